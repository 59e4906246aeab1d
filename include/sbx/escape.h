/* SPDX-License-Identifier: MIT */
#ifndef SBX_ESCAPE_H
#define SBX_ESCAPE_H

/*
 * What sbx prints of a path, a name or an argument goes through here first (docs/design.md, The
 * model: nothing sbx prints carries a control byte from a path, a name or an argument). A worker
 * can name a file "x<ESC>]52;c;...<BEL>": printed raw, that writes the caller's clipboard or
 * window title, or forges a line of output with a newline. cmd/ escapes every such string
 * with this one function (sbx_cli_esc, sbx_json_string) before it reaches a terminal.
 *
 * Escaped are the bytes a terminal acts on or that are not text: the C0 controls (0x00-0x1f,
 * newline and tab included), DEL (0x7f), the C1 controls U+0080-U+009F written as UTF-8
 * (0xc2 0x80-0x9f), and every byte that is not part of well-formed UTF-8 (a raw 0x9b, which
 * some terminals take as CSI, an overlong form, a surrogate, a truncated sequence). So are
 * the invisible format characters that make text read other than it is: the bidirectional
 * controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069: a RIGHT-TO-LEFT OVERRIDE
 * shows "evil\u202etxt.sh" as "evilhs.txt"), the zero-width ones (U+200B-U+200D, U+2060-U+2064,
 * U+FEFF) and the line and paragraph separators U+2028-U+2029. The rest of UTF-8 passes
 * unchanged, so names in any script print as they are.
 */

#include <stddef.h>

enum sbx_escape_mode {
	/* for people: each escaped byte becomes \xNN (lower-case hex), and a backslash is
	 * doubled, so that two names never print alike (a name's own "\x0a" and a newline) */
	SBX_ESCAPE_TEXT = 0,
	/* the inside of a JSON string (also a valid YAML double-quoted string): '"' and '\'
	 * escaped, \n and \t, \u00XX for the other C0 controls, DEL and the C1 controls, \uXXXX
	 * for the format characters above (one code point each), and \ufffd (the replacement
	 * character) for each byte of ill-formed UTF-8, since JSON text is Unicode and cannot carry
	 * such a byte */
	SBX_ESCAPE_JSON,
};

/*
 * Escape the NUL-terminated string `in` into out[0..size), as snprintf does: the result is
 * always NUL-terminated when size > 0, an escape sequence is never cut in half, and the
 * return value is the length the whole result needs (without the NUL), so that a caller can
 * size a buffer with sbx_escape(NULL, 0, in, mode) + 1. The output never holds a byte that
 * the mode escapes. Pure: no allocation, no locale.
 */
size_t sbx_escape(char *out, size_t size, const char *in, enum sbx_escape_mode mode);

/* The length of the well-formed UTF-8 sequence at p (1 to 4 bytes), or 0 if the byte at p
 * does not start one (or p points at the NUL). */
size_t sbx_utf8_seq_len(const char *p);

#endif
