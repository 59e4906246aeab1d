/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/policy.h"

static const struct {
	const char *pattern, *text;
	bool match;
} cases[] = {
    /* literal */
    {"a", "a", true},
    {"a", "b", false},
    {"a/b", "a/b", true},
    {"a/b", "a/bc", false},
    /* '*': any run without '/' */
    {"*", "", true},
    {"*", "abc", true},
    {"*", "a/b", false},
    {"*.c", "main.c", true},
    {"*.c", "dir/main.c", false},
    {"*.c", ".c", true},
    {"*", ".hidden", true}, /* dotfiles are not special */
    {"a*b*c", "aXbYc", true},
    {"a*b*c", "aXbY/c", false},
    /* '**': any run, '/' included */
    {"**", "", true},
    {"**", "a/b/c", true},
    {"**/.env", ".env", true}, /* zero directories */
    {"**/.env", "a/.env", true},
    {"**/.env", "a/b/.env", true},
    {"**/.env", "a/b/x.env", false},
    {"**/.env", "a.env", false},
    {"src/**", "src", true}, /* the directory itself */
    {"src/**", "src/a", true},
    {"src/**", "src/a/b", true},
    {"src/**", "srcx", false},
    {"src/**", "srcx/a", false},
    {"src/***", "src", true},  /* "***" is "**": the directory itself too */
    {"a\\\\/**", "a\\", true}, /* an escaped backslash does not escape the '/' */
    {"a\\/**", "a", false},    /* an escaped '/' is no separator */
    {"a/**/b", "a/b", true},
    {"a/**/b", "a/x/b", true},
    {"a/**/b", "a/x/y/b", true},
    {"a/**/b", "a/x/yb", false},
    {"x**y", "x/a/y", true},
    {"/**", "/", true},
    {"/**", "/etc/passwd", true},
    {"/home/*/.ssh/**", "/home/u/.ssh/id_rsa", true},
    {"/home/*/.ssh/**", "/home/u/v/.ssh/id_rsa", false},
    /* '?' */
    {"?.txt", "a.txt", true},
    {"?.txt", "ab.txt", false},
    {"?", "/", false},
    /* classes */
    {"[ab]*", "apple", true},
    {"[ab]*", "cherry", false},
    {"[a-c]x", "bx", true},
    {"[a-c]x", "dx", false},
    {"[!a-c]x", "dx", true},
    {"[!a-c]x", "ax", false},
    {"[^a]", "b", true},
    {"[]]", "]", true},
    {"[!/]", "/", false}, /* a class never matches '/' */
    {"[.]env", ".env", true},
    /* escapes */
    {"\\*", "*", true},
    {"\\*", "a", false},
    {"a\\?", "a?", true},
    /* many stars: linear, not exponential */
    {"*a*a*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     false},
    {"**a**a**a**a**a**a**a**a**b",
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
};

static void test_match_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t off;

		assert_int_equal(sbx_glob_check(cases[i].pattern, &off, NULL), 0);
		if (sbx_glob_match(cases[i].pattern, cases[i].text) != cases[i].match)
			fail_msg("glob '%s' vs '%s': expected %s", cases[i].pattern, cases[i].text,
			         cases[i].match ? "a match" : "no match");
	}
}

static const struct {
	const char *pattern;
	size_t offset;
	const char *msg;
} bad[] = {
    {"", 0, "an empty path pattern"},
    {"a/[bc", 2, "path pattern 'a/[bc' has an unclosed '[' or a trailing '\\'"},
    {"a\\", 1, "path pattern 'a\\' has an unclosed '[' or a trailing '\\'"},
    {"a//b", 1, "path pattern 'a//b' has an empty component ('//')"},
    {"../x", 0, "path pattern '../x' has a '.' or '..' component"},
    {"a/./b", 2, "path pattern 'a/./b' has a '.' or '..' component"},
    {"src/", 3, "path pattern 'src/' ends with '/'"},
    {"a\nb", 1, "path pattern 'a\nb' contains a control character"},
};

static void test_check_refusals(void **state)
{
	struct sbx_error err;
	char big[SBX_GLOB_MAX + 2];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t off = 99;

		assert_int_equal(sbx_glob_check(bad[i].pattern, &off, &err), -EINVAL);
		assert_string_equal(err.msg, bad[i].msg);
		assert_int_equal(off, bad[i].offset);
	}
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	{
		size_t off;

		assert_int_equal(sbx_glob_check(big, &off, &err), -ENAMETOOLONG);
		assert_false(sbx_glob_match(big, big));
	}
}

static void test_literal(void **state)
{
	(void)state;
	assert_true(sbx_glob_is_literal(".env"));
	assert_true(sbx_glob_is_literal("/a/b"));
	assert_false(sbx_glob_is_literal("*.c"));
	assert_false(sbx_glob_is_literal("a?"));
	assert_false(sbx_glob_is_literal("[a]"));
	assert_false(sbx_glob_is_literal("a\\b"));
}

/* A path quoted matches itself alone, and unquotes back to itself. */
static void test_quote(void **state)
{
	static const char *const paths[] = {"/tmp/proj [v1]", "/a*b/c?d", "/x\\y]z", "/plain"};
	static const char *const others[] = {"/tmp/proj v", "/aXb/cYd", "/xy]z", "/plainer"};
	char q[256], back[256];

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		size_t n = sbx_glob_quote(paths[i], q, sizeof(q));

		assert_int_equal(n, strlen(q));
		assert_true(sbx_glob_match(q, paths[i]));
		assert_false(sbx_glob_match(q, others[i]));
		assert_true(sbx_glob_unquote(q, back, sizeof(back)));
		assert_string_equal(back, paths[i]);
	}
	assert_false(sbx_glob_unquote("/a/*.c", back, sizeof(back)));
	assert_false(sbx_glob_unquote("/a/[ab]", back, sizeof(back)));
	/* truncated as snprintf: the length it would have */
	assert_int_equal(sbx_glob_quote("[[[[", q, 4), 8);
	assert_int_equal(strlen(q), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match_table),
	    cmocka_unit_test(test_check_refusals),
	    cmocka_unit_test(test_literal),
	    cmocka_unit_test(test_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
