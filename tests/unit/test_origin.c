/* SPDX-License-Identifier: MIT */
/* Where an sbx without SBX_SPEC_FD runs (pure): SBX=1 refuses, other confinement makes the
 * parent unknown, nothing makes it top-level. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sbx/probe.h"

static const struct {
	const char *name;
	struct sbx_origin_facts f;
	int want; /* enum sbx_origin, or -EPERM */
	const char *evidence;
} cases[] = {
    {"a plain shell on a host", {false, 0, 0}, SBX_ORIGIN_TOP, ""},
    {"nothing known (no /proc)", {false, -1, -1}, SBX_ORIGIN_TOP, ""},
    {"an sbx worker that unset SBX_SPEC_FD",
     {true, 1, 2},
     -EPERM,
     "no_new_privs and a seccomp filter"},
    {"SBX=1 alone is an sbx worker's mark too", {true, 0, 0}, -EPERM, ""},
    {"a worker that unset SBX_SPEC_FD and SBX",
     {false, 1, 2},
     SBX_ORIGIN_UNKNOWN,
     "no_new_privs and a seccomp filter"},
    {"Docker's default: no_new_privs unset, a seccomp filter",
     {false, 0, 2},
     SBX_ORIGIN_UNKNOWN,
     "a seccomp filter"},
    {"systemd NoNewPrivileges=", {false, 1, 0}, SBX_ORIGIN_UNKNOWN, "no_new_privs"},
};

static void test_origin_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_error err = {0};
		int r = sbx_origin_decide(&cases[i].f, &err);

		if (r != cases[i].want)
			fail_msg("%s: %d, expected %d", cases[i].name, r, cases[i].want);
		assert_string_equal(sbx_origin_evidence(&cases[i].f), cases[i].evidence);
		if (r < 0) {
			assert_int_equal(err.kind, SBX_ERR_ESCALATION);
			assert_non_null(strstr(err.msg, "SBX=1"));
			assert_non_null(strstr(err.msg, "SBX_SPEC_FD is not set"));
			assert_non_null(strstr(err.hint, "unset SBX"));
		} else {
			assert_int_equal(err.kind, SBX_ERR_NONE);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_origin_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
