/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_LANDLOCK_H
#define SBX_OS_LANDLOCK_H

/* Landlock in the kernel (src/os/landlock.c): its ABI, the host's directories for carving,
 * and enforcing a negotiated plan (sbx/landlock.h, computed by core). */

#include "sbx/error.h"
#include "sbx/landlock.h"

/* The Landlock ABI of this kernel (>= 1), or -ENOSYS / -EOPNOTSUPP when it has none. */
int sbx_landlock_abi(void);

/* Build the negotiated ruleset and restrict the calling process with it (after
 * no_new_privs). No allocation: safe in a vfork child. */
int sbx_landlock_enforce(const struct sbx_ll_plan *p, struct sbx_error *err);
/* One more layer that grants and denies no file or port and only scopes signals (ABI 6): the
 * process and what it starts can no longer signal the processes of the domain it had (the
 * landlock backend's reaper, which holds the sandbox's layer). 0 where the kernel has no signal
 * scope (nothing done: the reaper is then as reachable as before). */
int sbx_landlock_scope_signal(int abi, struct sbx_error *err);

/* The host's own directories, for sbx_ll_expand: listed without following any symlink beneath
 * the carved rule. sbx_plan_finish takes it as a fact (sbx/finish.h). */
extern const struct sbx_ll_host sbx_landlock_host;

#endif
