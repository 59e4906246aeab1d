/* SPDX-License-Identifier: MIT */
/*
 * The worker's session keyring: a fresh anonymous one, so that the caller's keys (kerberos
 * tickets in a KEYRING: credential cache, anything added with keyctl or add_key) are out of
 * its reach. The worker joins it before the
 * seccomp filter, which denies keyctl (the @keyring group).
 */
#include "os/keyring.h"

#include <errno.h>
#include <linux/keyctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int sbx_keyring_new_session(struct sbx_error *err)
{
	int r, e;

	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL, 0, 0, 0) >= 0)
		return 0;
	e = errno;
	/* ENOSYS: no CONFIG_KEYS. EPERM/EACCES: a filter (a parent sandbox's) or an LSM refuses.
	 * Either is as good as a keyring of our own only if the current session keyring is out
	 * of reach as well; check that rather than assume it. */
	if (e == ENOSYS || e == EPERM || e == EACCES) {
		if (syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0, 0) <
		        0 &&
		    (errno == ENOSYS || errno == EPERM || errno == EACCES))
			return 1;
	}
	r = sbx_error_set(err, SBX_ERR_SETUP, e,
	                  "cannot give the worker a session keyring of its own "
	                  "(keyctl JOIN_SESSION_KEYRING): %s",
	                  strerror(e));
	if (e == EDQUOT)
		sbx_error_hint(err, "this user's key quota is used up; see "
		                    "/proc/sys/kernel/keys/maxkeys and /proc/key-users");
	else
		sbx_error_hint(err, "without it the worker could reach the caller's keys; sbx "
		                    "refuses to go on");
	return r;
}
