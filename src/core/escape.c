/* SPDX-License-Identifier: MIT */
#include "sbx/escape.h"

#include <stdbool.h>
#include <string.h>

size_t sbx_utf8_seq_len(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	/* The well-formed sequences of Unicode's table 3-7: no overlong form, no surrogate,
	 * nothing above U+10FFFF. */
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	/* the NUL is no continuation byte, so a truncated sequence stops here */
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* The code point of the n-byte well-formed sequence at p. */
static unsigned code_point(const unsigned char *p, size_t n)
{
	unsigned c = n == 1 ? p[0] : n == 2 ? p[0] & 0x1fu : n == 3 ? p[0] & 0x0fu : p[0] & 0x07u;

	for (size_t i = 1; i < n; i++)
		c = (c << 6) | (p[i] & 0x3fu);
	return c;
}

/* An invisible format character that makes text read other than it is (escape.h). */
static bool format_char(unsigned c)
{
	return c == 0x061c || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x2069) || c == 0xfeff;
}

struct sink {
	char *out;
	size_t size;
	size_t used; /* bytes written to out */
	size_t len;  /* bytes the whole result needs */
	bool full;   /* a unit did not fit: nothing more is written, so none is cut in half */
};

static void put(struct sink *k, const char *unit, size_t n)
{
	if (!k->full && k->out && k->used + n < k->size) {
		memcpy(k->out + k->used, unit, n);
		k->used += n;
	} else {
		k->full = true;
	}
	k->len += n;
}

static void put_hex(struct sink *k, const char *prefix, unsigned v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	char unit[8];
	size_t n = strlen(prefix);

	memcpy(unit, prefix, n);
	for (int d = digits - 1; d >= 0; d--)
		unit[n++] = hex[(v >> (4 * d)) & 0xf];
	put(k, unit, n);
}

size_t sbx_escape(char *out, size_t size, const char *in, enum sbx_escape_mode mode)
{
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	struct sink k = {.out = out, .size = size};

	while (*p) {
		size_t n = sbx_utf8_seq_len((const char *)p);
		/* a C0 control or DEL (n == 1), a C1 control as UTF-8 (U+0080-U+009F) */
		bool control = (n == 1 && (*p < 0x20 || *p == 0x7f)) ||
		               (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f) ||
		               (n >= 2 && format_char(code_point(p, n)));

		if (n > 0 && !control) {
			if (mode == SBX_ESCAPE_JSON && (*p == '"' || *p == '\\')) {
				const char unit[2] = {'\\', (char)*p};

				put(&k, unit, 2);
			} else if (mode == SBX_ESCAPE_TEXT && *p == '\\') {
				/* doubled, so that a name's own "\x0a" is not a newline's escape
				 * (an outside attack made two names print alike) */
				put(&k, "\\\\", 2);
			} else {
				put(&k, (const char *)p, n);
			}
			p += n;
			continue;
		}
		if (mode == SBX_ESCAPE_TEXT) {
			/* every byte of it, so that the bytes can be told apart */
			for (size_t i = 0; i < (n ? n : 1); i++)
				put_hex(&k, "\\x", p[i], 2);
		} else if (n == 0) {
			put(&k, "\\ufffd", 6);
		} else if (*p == '\n') {
			put(&k, "\\n", 2);
		} else if (*p == '\t') {
			put(&k, "\\t", 2);
		} else {
			/* one code point: a C0 control, DEL, a C1 control or a format character */
			put_hex(&k, "\\u", code_point(p, n), 4);
		}
		p += n ? n : 1;
	}
	if (out && size > 0)
		out[k.used] = '\0';
	return k.len;
}
