/* SPDX-License-Identifier: MIT */
/* The glob walk's cache file parser: a file a user (or a worker, were it reachable) can
 * write, so every deviation from the grammar is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/globwalk.h"

#define KEY "G /w/**/.env\nB /w /w\n"
#define HDR "sbx-globwalk 3\n" KEY

static const struct {
	const char *what, *file;
	int dirs, matches; /* -1: refused */
} cases[] = {
    {"a walk", HDR "D 0 12 1700000000 5 /w\nD 1 13 1700000001 0 sub\nM /w/sub/.env\nend\n", 2, 1},
    {"no match", HDR "D 0 12 1 0 /w\nend\n", 1, 0},
    {"escaped names", HDR "D 0 12 1 0 /w%20x\nD 1 3 1 0 a%1b%0ab\nM /w%20x/a%1b%0ab/.env\nend\n", 2,
     1},
    {"two roots", HDR "D 0 1 1 0 /w\nD 1 2 1 0 a\nD 0 3 1 0 /v\nD 1 4 1 0 b\nend\n", 4, 0},
    /* the header and the key, byte for byte */
    {"old version", "sbx-globwalk 2\n" KEY "D 0 12 1 0 /w\nend\n", -1, 0},
    {"another key", "sbx-globwalk 3\nG /w/**/.npmrc\nB /w /w\nD 0 12 1 0 /w\nend\n", -1, 0},
    {"no key", "sbx-globwalk 3\nD 0 12 1 0 /w\nend\n", -1, 0},
    {"empty", "", -1, 0},
    /* structure */
    {"no end", HDR "D 0 12 1 0 /w\n", -1, 0},
    {"no directory", HDR "end\n", -1, 0},
    {"after end", HDR "D 0 12 1 0 /w\nend\nM /w/.env\n", -1, 0},
    {"unended line", HDR "D 0 12 1 0 /w\nend", -1, 0},
    {"unknown record", HDR "D 0 12 1 0 /w\nX junk\nend\n", -1, 0},
    {"empty line", HDR "D 0 12 1 0 /w\n\nend\n", -1, 0},
    {"directory after a match", HDR "D 0 1 1 0 /w\nM /w/.env\nD 1 2 1 0 a\nend\n", -1, 0},
    {"first not a root", HDR "D 1 12 1 0 a\nend\n", -1, 0},
    {"a level skipped", HDR "D 0 1 1 0 /w\nD 2 2 1 0 a\nend\n", -1, 0},
    {"a relative root", HDR "D 0 1 1 0 w\nend\n", -1, 0},
    {"a root not normalised", HDR "D 0 1 1 0 /w/../x\nend\n", -1, 0},
    {"a name with a slash", HDR "D 0 1 1 0 /w\nD 1 2 1 0 a/b\nend\n", -1, 0},
    {"a name '..'", HDR "D 0 1 1 0 /w\nD 1 2 1 0 ..\nend\n", -1, 0},
    {"a relative match", HDR "D 0 1 1 0 /w\nM w/.env\nend\n", -1, 0},
    {"a match not normalised", HDR "D 0 1 1 0 /w\nM /w//.env\nend\n", -1, 0},
    /* fields */
    {"a negative number", HDR "D 0 -1 1 0 /w\nend\n", -1, 0},
    {"a plus sign", HDR "D 0 +1 1 0 /w\nend\n", -1, 0},
    {"an inode too large", HDR "D 0 18446744073709551616 1 0 /w\nend\n", -1, 0},
    {"nanoseconds too large", HDR "D 0 1 1 1000000000 /w\nend\n", -1, 0},
    {"a depth too large", HDR "D 512 1 1 0 /w\nend\n", -1, 0},
    {"two spaces", HDR "D 0  1 1 0 /w\nend\n", -1, 0},
    {"a missing field", HDR "D 0 1 1 /w\nend\n", -1, 0},
    {"an empty name", HDR "D 0 1 1 0 \nend\n", -1, 0},
    /* escapes */
    {"a raw space", HDR "D 0 1 1 0 /w x\nend\n", -1, 0},
    {"a raw control byte", HDR "D 0 1 1 0 /w\x1b\nend\n", -1, 0},
    {"a raw high byte", HDR "D 0 1 1 0 /w\xc3\xa9\nend\n", -1, 0},
    {"%00", HDR "D 0 1 1 0 /w%00\nend\n", -1, 0},
    {"upper-case hex", HDR "D 0 1 1 0 /w%1B\nend\n", -1, 0},
    {"a short escape", HDR "D 0 1 1 0 /w%1\nend\n", -1, 0},
    {"a bad escape", HDR "D 0 1 1 0 /w%zz\nend\n", -1, 0},
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].file);
		char *buf = malloc(len + 1);
		struct sbx_globwalk_cache c;
		int r;

		assert_non_null(buf);
		memcpy(buf, cases[i].file, len + 1);
		r = sbx_globwalk_cache_parse(buf, len, KEY, &c);
		if (cases[i].dirs < 0 ? r != -EBADMSG : r != 0)
			fail_msg("%s: parse gave %d", cases[i].what, r);
		if (r == 0) {
			assert_int_equal(c.n_dirs, (size_t)cases[i].dirs);
			assert_int_equal(c.n_matches, (size_t)cases[i].matches);
		} else {
			assert_null(c.dirs);
			assert_null(c.matches);
		}
		sbx_globwalk_cache_clear(&c);
		free(buf);
	}
}

static void test_parse_fields(void **state)
{
	char buf[] = HDR "D 0 12 1700000000 5 /w\nD 1 18446744073709551615 9 999999999 "
	                 "a%1b]0;x%07\nM /w/a%1b]0;x%07/.env\nend\n";
	struct sbx_globwalk_cache c;

	(void)state;
	assert_int_equal(sbx_globwalk_cache_parse(buf, strlen(buf), KEY, &c), 0);
	assert_string_equal(c.dirs[0].name, "/w");
	assert_int_equal(c.dirs[0].depth, 0);
	assert_int_equal(c.dirs[0].ino, 12);
	assert_int_equal(c.dirs[0].sec, 1700000000);
	assert_int_equal(c.dirs[0].nsec, 5);
	assert_string_equal(c.dirs[1].name, "a\x1b]0;x\x07");
	assert_true(c.dirs[1].ino == UINT64_MAX);
	assert_int_equal(c.dirs[1].nsec, 999999999);
	assert_string_equal(c.matches[0], "/w/a\x1b]0;x\x07/.env");
	sbx_globwalk_cache_clear(&c);
}

/* A NUL byte anywhere, and the caps. */
static void test_parse_limits(void **state)
{
	char nul[] = HDR "D 0 12 1 0 /w\nend\n";
	struct sbx_globwalk_cache c;
	size_t n = SBX_MAX_HIDE + 1, len = 0, cap = 64 * (n + 4);
	char *big = malloc(cap);

	(void)state;
	nul[strlen(HDR) + 4] = '\0';
	assert_int_equal(sbx_globwalk_cache_parse(nul, sizeof(nul) - 1, KEY, &c), -EBADMSG);
	/* one match more than a spec can hide */
	assert_non_null(big);
	len += (size_t)snprintf(big + len, cap - len, "%sD 0 1 1 0 /w\n", HDR);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(big + len, cap - len, "M /w/%zu\n", i);
	len += (size_t)snprintf(big + len, cap - len, "end\n");
	assert_int_equal(sbx_globwalk_cache_parse(big, len, KEY, &c), -EBADMSG);
	/* and the same with one match fewer is fine */
	len = 0;
	len += (size_t)snprintf(big + len, cap - len, "%sD 0 1 1 0 /w\n", HDR);
	for (size_t i = 0; i + 1 < n; i++)
		len += (size_t)snprintf(big + len, cap - len, "M /w/%zu\n", i);
	len += (size_t)snprintf(big + len, cap - len, "end\n");
	assert_int_equal(sbx_globwalk_cache_parse(big, len, KEY, &c), 0);
	assert_int_equal(c.n_matches, SBX_MAX_HIDE);
	sbx_globwalk_cache_clear(&c);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_table),
	    cmocka_unit_test(test_parse_fields),
	    cmocka_unit_test(test_parse_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
