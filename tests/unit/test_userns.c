/* SPDX-License-Identifier: MIT */
/* Why namespaces could not be made, and may the landlock backend stand in (pure): a table of
 * probed facts, each with its verdict, error kind and a piece of its one line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sbx/probe.h"

/* -1: absent or unreadable, as the os side reports it */
static const struct {
	const char *name;
	int errnum;
	bool root;
	long max_user, max_mnt, apparmor, clone;
	enum sbx_userns_verdict verdict;
	const char *msg; /* in err.msg */
} cases[] = {
    {"the quota used up by other processes", ENOSPC, false, 15000, 15000, -1, -1,
     SBX_USERNS_TRANSIENT,
     "a namespace quota is used up (ENOSPC; user.max_user_namespaces is 15000 and not 0"},
    {"the quota used up, as root", ENOSPC, true, 15000, 15000, -1, -1, SBX_USERNS_TRANSIENT,
     "quota is used up"},
    {"user.max_user_namespaces = 0 (ENOSPC too)", ENOSPC, false, 0, 15000, -1, -1, SBX_USERNS_OFF,
     "user.max_user_namespaces is 0"},
    {"user.max_mnt_namespaces = 0", ENOSPC, false, 15000, 0, -1, -1, SBX_USERNS_OFF,
     "user.max_mnt_namespaces is 0"},
    {"an unreadable limit: off cannot be told from used up, so refuse", ENOSPC, false, -1, -1, -1,
     -1, SBX_USERNS_TRANSIENT, "cannot be read"},
    {"memory", ENOMEM, false, 15000, 15000, -1, -1, SBX_USERNS_TRANSIENT, "memory is short"},
    {"the process limit", EAGAIN, false, 15000, 15000, -1, -1, SBX_USERNS_TRANSIENT, "ulimit -u"},
    {"something unknown is not a configuration", EIO, false, 15000, 15000, -1, -1,
     SBX_USERNS_TRANSIENT, "may pass"},
    {"AppArmor's restriction", EPERM, false, 15000, 15000, 1, -1, SBX_USERNS_OFF,
     "AppArmor restricts"},
    {"AppArmor's restriction answering EACCES", EACCES, false, 15000, 15000, 1, -1, SBX_USERNS_OFF,
     "AppArmor restricts"},
    {"Debian's knob", EPERM, false, 15000, 15000, 0, 0, SBX_USERNS_OFF,
     "kernel.unprivileged_userns_clone is 0"},
    {"root is not held by the unprivileged knobs: a policy", EPERM, true, 15000, 15000, 1, 0,
     SBX_USERNS_OFF, "the kernel said EPERM"},
    {"a container's seccomp profile, or a parent sandbox's filter", EPERM, false, 15000, 15000, -1,
     -1, SBX_USERNS_OFF, "seccomp profile denies unshare/clone"},
    {"no user namespaces in this kernel", EINVAL, false, 15000, 15000, -1, -1, SBX_USERNS_OFF,
     "does not offer them"},
    {"an old kernel's nesting limit", EUSERS, false, 15000, 15000, -1, -1, SBX_USERNS_OFF,
     "does not offer them"},
    {"user.max_user_namespaces = 0 wins over any errno", ENOMEM, false, 0, 15000, -1, -1,
     SBX_USERNS_OFF, "user.max_user_namespaces is 0"},
};

static void test_decide_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sbx_userns_facts f = {
		    .errnum = cases[i].errnum,
		    .root = cases[i].root,
		    .max_user_namespaces = cases[i].max_user,
		    .max_other_namespaces = cases[i].max_mnt,
		    .max_other_name = cases[i].max_mnt >= 0 ? "max_mnt_namespaces" : NULL,
		    .apparmor_restrict = cases[i].apparmor,
		    .unprivileged_userns_clone = cases[i].clone,
		};
		struct sbx_error err = {0};
		enum sbx_userns_verdict v = sbx_userns_decide(&f, &err);

		if (v != cases[i].verdict)
			fail_msg("%s: verdict %d, expected %d (%s)", cases[i].name, v,
			         cases[i].verdict, err.msg);
		/* the kind carries the verdict to the launcher's fallback */
		assert_int_equal(err.kind,
		                 v == SBX_USERNS_OFF ? SBX_ERR_UNSUPPORTED : SBX_ERR_SETUP);
		assert_int_equal(err.errnum, cases[i].errnum);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("%s: '%s' not in '%s'", cases[i].name, cases[i].msg, err.msg);
		/* every refusal says what to do; a transient one names the explicit choice */
		assert_true(err.hint[0] != '\0');
		if (v == SBX_USERNS_TRANSIENT)
			assert_non_null(strstr(err.hint, "--backend landlock"));
		assert_null(strchr(err.msg, '\n'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decide_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
