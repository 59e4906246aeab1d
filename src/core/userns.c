/* SPDX-License-Identifier: MIT */
/*
 * Namespaces could not be made: by configuration, or for want of something that will come
 * back? Only the first lets `--backend auto` run the worker on the landlock backend, which
 * gives up pid, ipc and uts isolation and hides nothing: a quota that other processes of the
 * same user used up (ENOSPC, which user.max_user_namespaces = 0 also gives: the sysctls tell
 * them apart), a short memory (ENOMEM) or the process limit (EAGAIN) must not silently weaken
 * the sandbox. Facts in (src/os/userns.c gathers them), a verdict and one line out.
 */
#include <errno.h>
#include <string.h>

#include "sbx/probe.h"

static const char landlock_hint[] = "; or choose the weaker landlock backend yourself with "
                                    "--backend landlock";

enum sbx_userns_verdict sbx_userns_decide(const struct sbx_userns_facts *f, struct sbx_error *err)
{
	int e = f->errnum;

	/* Off by configuration, whatever the kernel answered. */
	if (f->max_user_namespaces == 0) {
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, e,
		              "cannot create a user namespace: user.max_user_namespaces is 0");
		sbx_error_hint(err, "allow them with 'sysctl -w user.max_user_namespaces=15000' "
		                    "(as root), or run sbx as root");
		return SBX_USERNS_OFF;
	}
	if (e == ENOSPC && f->max_other_namespaces == 0 && f->max_other_name) {
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, e, "cannot create namespaces: user.%s is 0",
		              f->max_other_name);
		sbx_error_hint(err, "allow them with 'sysctl -w user.%s=15000' (as root)",
		               f->max_other_name);
		return SBX_USERNS_OFF;
	}
	if (e == ENOSPC) {
		/* The limit is not 0: this user's processes hold as many namespaces as it
		 * allows (or the nesting of user namespaces is 32 deep). It comes back when they
		 * end. An unreadable limit cannot be told from 0: refuse too (fail closed). */
		if (f->max_user_namespaces < 0)
			sbx_error_set(
			    err, SBX_ERR_SETUP, e,
			    "cannot create namespaces: a namespace limit is reached (ENOSPC), "
			    "and /proc/sys/user cannot be read to tell whether it is 0 (off) "
			    "or used up by other processes");
		else
			sbx_error_set(
			    err, SBX_ERR_SETUP, e,
			    "cannot create namespaces: a namespace quota is used up (ENOSPC; "
			    "user.max_user_namespaces is %ld and not 0, so other processes "
			    "of this user hold them, or namespaces nest too deep); sbx will "
			    "not fall back to the weaker landlock backend for a passing "
			    "shortage",
			    f->max_user_namespaces);
		sbx_error_hint(err,
		               "end other sandboxes or containers of this user, or raise the limit "
		               "(sysctl -w user.max_user_namespaces=N, as root), then run again%s",
		               landlock_hint);
		return SBX_USERNS_TRANSIENT;
	}
	if ((e == EPERM || e == EACCES) && !f->root && f->apparmor_restrict == 1) {
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, e,
		              "cannot create a user namespace: AppArmor restricts unprivileged "
		              "user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)");
		sbx_error_hint(err, "install an AppArmor profile for sbx granting 'userns,' "
		                    "(see sbx(1)), or set the sysctl to 0");
		return SBX_USERNS_OFF;
	}
	if ((e == EPERM || e == EACCES) && !f->root && f->unprivileged_userns_clone == 0) {
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, e,
		              "cannot create a user namespace: kernel.unprivileged_userns_clone is "
		              "0");
		sbx_error_hint(err,
		               "enable it with 'sysctl -w kernel.unprivileged_userns_clone=1'");
		return SBX_USERNS_OFF;
	}
	if (e == EPERM || e == EACCES) {
		/* A policy, never a shortage: a container's seccomp profile, a parent sandbox's
		 * filter (nesting: false) or Landlock domain (no mounts), an LSM. */
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, e,
		              "cannot create namespaces: the kernel said %s, as it does inside a "
		              "container whose seccomp profile denies unshare/clone, or inside a "
		              "sandbox that forbids nesting or mounting",
		              e == EPERM ? "EPERM" : "EACCES");
		sbx_error_hint(err, "run the container with a seccomp profile that allows user "
		                    "namespaces, or run sbx on the host");
		return SBX_USERNS_OFF;
	}
	if (e == EINVAL || e == ENOSYS || e == EUSERS) {
		/* no CONFIG_USER_NS (or a namespace kind), or an old kernel's nesting limit */
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, e,
		              "cannot create namespaces: this kernel does not offer them here (%s)",
		              strerror(e));
		sbx_error_hint(err, "use a kernel built with CONFIG_USER_NS (and the other "
		                    "namespaces), or run sbx on the host");
		return SBX_USERNS_OFF;
	}
	/* ENOMEM, EAGAIN (the process limit), anything else: not a configuration; it may pass,
	 * and the landlock backend is no substitute for namespaces that are merely short. */
	sbx_error_set(err, SBX_ERR_SETUP, e,
	              "cannot create namespaces: %s (%s), which may pass; sbx will not fall back "
	              "to the weaker landlock backend for it",
	              strerror(e),
	              e == ENOMEM   ? "memory is short"
	              : e == EAGAIN ? "this user's process limit (ulimit -u) is reached"
	                            : "not a known configuration that disables them");
	sbx_error_hint(err, "%s and run again%s",
	               e == EAGAIN   ? "end some of this user's processes (or raise ulimit -u)"
	               : e == ENOMEM ? "free memory"
	                             : "see 'sbx doctor'",
	               landlock_hint);
	return SBX_USERNS_TRANSIENT;
}
