/* SPDX-License-Identifier: MIT */
/* The escaper every printer of sbx goes through (include/sbx/escape.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/escape.h"

static const struct {
	const char *in, *text, *json;
} cases[] = {
    /* printable ASCII and well-formed UTF-8 pass as they are */
    {"", "", ""},
    {"/src/app.ts", "/src/app.ts", "/src/app.ts"},
    {"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91",
     "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91",
     "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\x91"},
    {"a\\b\"c", "a\\\\b\"c", "a\\\\b\\\"c"}, /* text: a backslash doubled */
    /* the reproduction: OSC 52 (clipboard) and OSC 0 (window title) */
    {"x\x1b]52;c;aGk=\x07\x1b]0;PWNED\x07", "x\\x1b]52;c;aGk=\\x07\\x1b]0;PWNED\\x07",
     "x\\u001b]52;c;aGk=\\u0007\\u001b]0;PWNED\\u0007"},
    /* C0 controls, newline and tab included, and DEL */
    {"a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd", "a\\nb\\tc\\u000dd"},
    {"\x01\x1f\x7f", "\\x01\\x1f\\x7f", "\\u0001\\u001f\\u007f"},
    /* C1 controls as UTF-8: U+0080, U+009B (CSI), U+009F; U+00A0 is printable */
    {"\xc2\x80\xc2\x9b[2J\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9b[2J\\xc2\\x9f\xc2\xa0",
     "\\u0080\\u009b[2J\\u009f\xc2\xa0"},
    /* raw C1 bytes and other ill-formed UTF-8: lone continuation, overlong, surrogate,
     * beyond U+10FFFF, a truncated sequence, bytes that never start one */
    {"\x9b"
     "31m",
     "\\x9b31m", "\\ufffd31m"},
    {"\xc0\xaf", "\\xc0\\xaf", "\\ufffd\\ufffd"},
    {"\xe0\x80\xaf", "\\xe0\\x80\\xaf", "\\ufffd\\ufffd\\ufffd"},
    {"\xed\xa0\x80", "\\xed\\xa0\\x80", "\\ufffd\\ufffd\\ufffd"},
    {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"},
    {"\xe6\x97", "\\xe6\\x97", "\\ufffd\\ufffd"},
    {"\xe6\x97/", "\\xe6\\x97/", "\\ufffd\\ufffd/"},
    {"\xff\xfe", "\\xff\\xfe", "\\ufffd\\ufffd"},
    /* bidi controls and invisible format characters: U+202E RIGHT-TO-LEFT OVERRIDE,
     * U+200B ZERO WIDTH SPACE, U+2066 and U+2069 (isolates), U+200E, U+200F, U+061C, U+FEFF,
     * U+2028; their neighbours U+200A, U+2030 and U+FEFE pass */
    {"evil\xe2\x80\xaetxt.sh", "evil\\xe2\\x80\\xaetxt.sh", "evil\\u202etxt.sh"},
    {"a\xe2\x80\x8b"
     "b",
     "a\\xe2\\x80\\x8bb", "a\\u200bb"},
    {"\xe2\x81\xa6x\xe2\x81\xa9", "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9", "\\u2066x\\u2069"},
    {"\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c\xef\xbb\xbf\xe2\x80\xa8",
     "\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c\\xef\\xbb\\xbf\\xe2\\x80\\xa8",
     "\\u200e\\u200f\\u061c\\ufeff\\u2028"},
    {"\xe2\x80\x8a\xe2\x80\xb0\xef\xbb\xbe", "\xe2\x80\x8a\xe2\x80\xb0\xef\xbb\xbe",
     "\xe2\x80\x8a\xe2\x80\xb0\xef\xbb\xbe"},
    /* the largest code point and the last before the surrogates are well-formed */
    {"\xf4\x8f\xbf\xbf\xed\x9f\xbf", "\xf4\x8f\xbf\xbf\xed\x9f\xbf",
     "\xf4\x8f\xbf\xbf\xed\x9f\xbf"},
};

static bool has_unsafe_byte(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	/* no C1 control and no ill-formed UTF-8 either */
	for (const char *p = s; *p;) {
		size_t n = sbx_utf8_seq_len(p);

		if (n == 0 ||
		    (n == 2 && (unsigned char)p[0] == 0xc2 && (unsigned char)p[1] <= 0x9f))
			return true;
		/* nor a bidi control or an invisible format character */
		if (n >= 2 &&
		    (strncmp(p, "\xd8\x9c", 2) == 0 || strncmp(p, "\xef\xbb\xbf", 3) == 0 ||
		     (strncmp(p, "\xe2\x80", 2) == 0 &&
		      (((unsigned char)p[2] >= 0x8b && (unsigned char)p[2] <= 0x8f) ||
		       ((unsigned char)p[2] >= 0xa8 && (unsigned char)p[2] <= 0xae))) ||
		     (strncmp(p, "\xe2\x81", 2) == 0 && (unsigned char)p[2] >= 0xa0 &&
		      (unsigned char)p[2] <= 0xa9)))
			return true;
		p += n;
	}
	return false;
}

static void test_escape_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[256];
		size_t n;

		n = sbx_escape(out, sizeof(out), cases[i].in, SBX_ESCAPE_TEXT);
		if (strcmp(out, cases[i].text) != 0)
			fail_msg("case %zu: text '%s', expected '%s'", i, out, cases[i].text);
		assert_int_equal(n, strlen(cases[i].text));
		assert_false(has_unsafe_byte(out));
		n = sbx_escape(out, sizeof(out), cases[i].in, SBX_ESCAPE_JSON);
		if (strcmp(out, cases[i].json) != 0)
			fail_msg("case %zu: json '%s', expected '%s'", i, out, cases[i].json);
		assert_int_equal(n, strlen(cases[i].json));
		assert_false(has_unsafe_byte(out));
		/* the length alone, for sizing a buffer */
		assert_int_equal(sbx_escape(NULL, 0, cases[i].in, SBX_ESCAPE_TEXT),
		                 strlen(cases[i].text));
	}
}

/* A buffer too small gets whole escapes only, NUL-terminated, and the length needed. */
static void test_escape_truncates_whole_units(void **state)
{
	char out[8];

	(void)state;
	/* "ab" + "\x1b" (4) = 6 fit in 8 with the NUL; "cd" then fits "c" only... */
	assert_int_equal(sbx_escape(out, sizeof(out),
	                            "ab\x1b"
	                            "cd",
	                            SBX_ESCAPE_TEXT),
	                 8);
	assert_string_equal(out, "ab\\x1bc");
	assert_int_equal(sbx_escape(out, 5,
	                            "ab\x1b"
	                            "cd",
	                            SBX_ESCAPE_TEXT),
	                 8);
	assert_string_equal(out, "ab"); /* "\x1b" would be cut: nothing after it either */
	assert_int_equal(sbx_escape(out, 3, "\xe6\x97\xa5", SBX_ESCAPE_TEXT), 3);
	assert_string_equal(out, ""); /* a UTF-8 sequence is never cut in half */
	assert_int_equal(sbx_escape(out, 0, "abc", SBX_ESCAPE_TEXT), 3);
	assert_int_equal(sbx_escape(out, sizeof(out), NULL, SBX_ESCAPE_TEXT), 0);
	assert_string_equal(out, "");
}

/* Every byte value, alone and after a lead byte: the output is always safe. */
static void test_escape_every_byte(void **state)
{
	(void)state;
	for (unsigned a = 1; a < 256; a++)
		for (unsigned b = 0; b < 256; b++) {
			char in[3] = {(char)a, (char)b, 0}, out[64];

			for (int mode = SBX_ESCAPE_TEXT; mode <= SBX_ESCAPE_JSON; mode++) {
				size_t n = sbx_escape(out, sizeof(out), in, mode);

				assert_true(n < sizeof(out));
				assert_int_equal(strlen(out), n);
				assert_false(has_unsafe_byte(out));
			}
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape_table),
	    cmocka_unit_test(test_escape_truncates_whole_units),
	    cmocka_unit_test(test_escape_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
