/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_LAUNCH_H
#define SBX_OS_LAUNCH_H

/* The one executor of a plan (src/launch.c). */

#include "sbx/error.h"
#include "sbx/plan.h"

struct sbx_supervisor;

/*
 * Apply a plan and run argv inside it; returns when the worker has ended.
 * On success returns 0 and *status is what sbx should exit with: the worker's own status, or
 * 128+N if it was killed by signal N. On failure returns -errno with *err filled (the kind
 * says 125, 126 or 127). `sup` (may be NULL): the supervisor (os/supervisor.h) that serves the
 * worker's listener; borrowed, created by the caller for plan->sup.
 */
int sbx_launch(const struct sbx_plan *plan, char *const argv[], struct sbx_supervisor *sup,
               int *status, struct sbx_error *err);

/* The proxy and resolver (os/netproxy.h) that sbx_launch prepares, starts and hands init's
 * sockets to when the plan has its own network namespace; borrowed; NULL: none. */
struct sbx_netproxy;
void sbx_launch_net(struct sbx_netproxy *proxy);

/*
 * Once, first thing in main: ignore SIGXFSZ, so that sbx's own writes (the spec memfd, the
 * filter's export, the glob-walk cache) fail with EFBIG under a small file size limit
 * (ulimit -f), and sbx can say so, instead of dying of the signal without a word. Every
 * worker gets the caller's disposition back before it execs.
 */
void sbx_launch_guard_xfsz(void);

#endif
