/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_LIMITS_H
#define SBX_OS_LIMITS_H

/* The limits a process applies to itself (include/sbx/limits.h): rlimits in the worker, and
 * the per-user counts of the sandbox's own user namespace, set by its init. */

#include "sbx/error.h"
#include "sbx/plan.h"

/*
 * In the worker, before exec: RLIMIT_NOFILE and RLIMIT_FSIZE as the plan says (a value above
 * the hard limit sbx was given is refused: only the host's root may raise one); RLIMIT_NPROC
 * for pids where the sandbox has a user namespace of its own (the kernel counts its processes
 * there, per namespace: a clean per-sandbox count beside the cgroup's); and a share of the
 * per-user rlimit counts (RLIMIT_MSGQUEUE, RLIMIT_SIGPENDING: SBX_RLIMIT_SHARE_DIVISOR).
 */
int sbx_limits_apply_rlimits(const struct sbx_plan *plan, struct sbx_error *err);

/*
 * In the sandbox's init, in its new user namespace and still holding CAP_SYS_RESOURCE there
 * (before it becomes the inner ids): write plan->userns_max into /proc/sys/user, which the
 * kernel resolves to the namespace of the writer. A kernel without one of them (ENOENT) or a
 * read-only /proc/sys (a container's: EROFS) is skipped; anything else refuses the launch.
 */
int sbx_limits_set_userns_counts(const struct sbx_plan *plan, struct sbx_error *err);

#endif
