/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_GUARD_H
#define SBX_OS_GUARD_H

/* Guards on the host (sbx/spec.h: paths bound onto themselves beneath their mount): which the
 * host has (src/os/guard.c). It looks and reports; core changes the spec and the plan. */

#include <stdbool.h>

/* Is a guard's source, now, a directory or a regular file reached without a symlink, as the
 * launcher will bind it? For sbx_plan_prune_guards (plan.h), which drops the guards that have
 * nothing to bind (what one would have held is then held by Landlock alone, and
 * sbx_policy_exec_limits says so). ctx is unused. */
bool sbx_guard_bindable(void *ctx, const char *source);

#endif
