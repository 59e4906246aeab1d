/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/error.h"
#include "sbx/path.h"

static const struct {
	const char *in, *out;
} normalize_cases[] = {
    {"/", "/"},
    {"//", "/"},
    {"/a", "/a"},
    {"/a/", "/a"},
    {"/a//b///c", "/a/b/c"},
    {"/a/./b/.", "/a/b"},
    {"/a/b/..", "/a"},
    {"/a/b/../../..", "/"},
    {"/../etc/passwd", "/etc/passwd"},
    {"/..", "/"},
    {"/a/../../b", "/b"},
    {"/.../x", "/.../x"},
    {"/a/..b/c", "/a/..b/c"},
    {"/src/app.ts", "/src/app.ts"},
};

static void test_normalize_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(normalize_cases) / sizeof(normalize_cases[0]); i++) {
		char out[SBX_PATH_MAX];
		int r = sbx_path_normalize(normalize_cases[i].in, out, sizeof(out), NULL);

		assert_true(r >= 0);
		assert_string_equal(out, normalize_cases[i].out);
		assert_int_equal((size_t)r, strlen(normalize_cases[i].out));
	}
}

static void test_normalize_refusals(void **state)
{
	char out[SBX_PATH_MAX], tiny[4], big[SBX_PATH_MAX_INPUT + 10];
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_path_normalize("relative/x", out, sizeof(out), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not absolute"));
	assert_int_equal(sbx_path_normalize("", out, sizeof(out), NULL), -EINVAL);
	/* a name may hold any byte but '/' and NUL: control characters are names too */
	assert_int_equal(sbx_path_normalize("/a\nb/\x1b]0;x\x07", out, sizeof(out), &err), 11);
	assert_string_equal(out, "/a\nb/\x1b]0;x\x07");
	assert_int_equal(sbx_path_normalize("/abcdef", tiny, sizeof(tiny), NULL), -ENAMETOOLONG);
	memset(big, 'a', sizeof(big));
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(sbx_path_normalize(big, out, sizeof(out), NULL), -ENAMETOOLONG);
}

static void test_absolute(void **state)
{
	char *p = NULL;

	(void)state;
	assert_int_equal(sbx_path_absolute("x/../y", "/base/dir", &p, NULL), 0);
	assert_string_equal(p, "/base/dir/y");
	free(p);
	assert_int_equal(sbx_path_absolute("/abs/./z", "/base", &p, NULL), 0);
	assert_string_equal(p, "/abs/z");
	free(p);
	assert_int_equal(sbx_path_absolute("rel", NULL, &p, NULL), -EINVAL);
}

static void test_covers_rest_depth(void **state)
{
	(void)state;
	assert_true(sbx_path_covers("/", "/anything"));
	assert_true(sbx_path_covers("/a", "/a"));
	assert_true(sbx_path_covers("/a", "/a/b"));
	assert_false(sbx_path_covers("/a", "/ab"));
	assert_false(sbx_path_covers("/a/b", "/a"));
	assert_string_equal(sbx_path_rest("/", "/x/y"), "x/y");
	assert_string_equal(sbx_path_rest("/x", "/x/y"), "y");
	assert_string_equal(sbx_path_rest("/x", "/x"), "");
	assert_int_equal(sbx_path_depth("/"), 0);
	assert_int_equal(sbx_path_depth("/a"), 1);
	assert_int_equal(sbx_path_depth("/a/b/c"), 3);
}

static void test_error_wrap_bounded(void **state)
{
	struct sbx_error err;
	char big[SBX_ERROR_MSG_MAX * 2];

	(void)state;
	sbx_error_set(&err, SBX_ERR_SETUP, 2, "inner %s", "failure");
	sbx_error_wrap(&err, "building %s", "/x");
	assert_string_equal(err.msg, "building /x: inner failure");
	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sbx_error_wrap(&err, "%s", big);
	assert_int_equal(strlen(err.msg), SBX_ERROR_MSG_MAX - 1);
	assert_int_equal(sbx_error_exit_code(&err), 125);
	err.kind = SBX_ERR_EXEC_NOT_FOUND;
	assert_int_equal(sbx_error_exit_code(&err), 127);
	err.kind = SBX_ERR_EXEC_DENIED;
	assert_int_equal(sbx_error_exit_code(&err), 126);
	assert_int_equal(sbx_error_set(NULL, SBX_ERR_USAGE, 0, "x"), -EINVAL);
}

/* A ".." right after a name the text gives: the kernel resolves the name first. */
static void test_backtracks(void **state)
{
	static const struct {
		const char *text;
		bool want;
	} cases[] = {
	    {"/ws/link/../x", true},
	    {"link/..", true},
	    {"a/./../x", true},
	    {"/a/b/c", false},
	    {"../x", false},
	    {"../../x/y", false},
	    {"./../x", false},
	    {"/ws/..x/y", false},
	    {"/ws/x../y", false},
	    {"a//..//b", true},
	    {"${WORKSPACE}/../x", true},
	    {"", false},
	    {"/", false},
	    {"..", false},
	    {"x/...", false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sbx_path_backtracks(cases[i].text) != cases[i].want)
			fail_msg("'%s': want %d", cases[i].text, cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalize_table),    cmocka_unit_test(test_normalize_refusals),
	    cmocka_unit_test(test_absolute),           cmocka_unit_test(test_covers_rest_depth),
	    cmocka_unit_test(test_error_wrap_bounded), cmocka_unit_test(test_backtracks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
