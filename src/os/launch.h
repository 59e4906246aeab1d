/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_LAUNCH_H
#define SBX_OS_LAUNCH_H

/* The one executor of a plan (src/launch.c). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/plan.h"

struct sbx_supervisor;
struct sbx_cgroup;

/* What the launcher enforces while the sandbox runs (include/sbx/limits.h), set by the caller
 * before sbx_launch (sbx_launch_set_limits) and read back after it. */
struct sbx_launch_limits {
	struct sbx_cgroup *cg; /* the sandbox's cgroup (os/cgroup.h), borrowed; NULL: none */
	uint64_t timeout_ms;   /* 0: no timeout */
	bool timed_out;        /* out: the timeout killed the sandbox (status 124) */
};

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
 * A hook for the record of running sandboxes (sbx ps): fn(child, arg) is called in sbx once
 * the sandbox's first process (sbx's child: the namespaces backend's init, the landlock
 * backend's worker) exists, before it runs the worker's command; each launch calls it again
 * (a fallback to the landlock backend). NULL: none.
 */
void sbx_launch_on_start(void (*fn)(pid_t child, void *arg), void *arg);

/*
 * Once, first thing in main: ignore SIGXFSZ, so that sbx's own writes (the spec memfd, the
 * filter's export, the glob-walk cache) fail with EFBIG under a small file size limit
 * (ulimit -f), and sbx can say so, instead of dying of the signal without a word. Every
 * worker gets the caller's disposition back before it execs.
 */
void sbx_launch_guard_xfsz(void);

/* The sandbox's init, when sbx_launch returned the worker's status as init told it, before
 * init's own end (the kernel's teardown of the namespaces): reaped here, at the very end of
 * sbx, so that the teardown runs beside sbx's last work and no zombie of it is left to the
 * caller's reaper. Nothing to do otherwise; safe to call more than once. */
void sbx_launch_reap(void);

/*
 * The namespaces of the next launch made early, beside the planning: a child of sbx makes a
 * user namespace and, with net, a network namespace with loopback up (the kernel's set-up of
 * a network namespace is ~0.5 ms, which then runs on the other CPU while sbx plans), and the
 * mount, ipc and uts namespaces. The namespaces backend's sbx_launch then writes that user
 * namespace's id maps and starts init in them (its pid and cgroup namespaces made then, from
 * inside; a network namespace made early that the plan does not want is not joined, one it
 * wants and the child did not make is made then); a launch that cannot use them (another
 * backend, a child that could not make them) starts init as before. As root a second child makes
 * the user namespace that id-maps the binds (sbx_userns_idmap_early). Only an optimisation: nothing
 * of the sandbox runs in them before init. sbx_launch_prestart_end ends the children and reaps
 * them, also on every way out of sbx that did not launch; both are safe to call more than
 * once.
 */
bool sbx_launch_prestart(bool net); /* true: the sandbox's child started */
/* The caller's per-user counts (/proc/sys/user), as the sandbox's early child read them before
 * it made its namespaces, into ucount[SBX_N_UCOUNTS]; false: not read (yet), or no child: the
 * caller reads them itself (sbx_probe_ucounts). */
bool sbx_launch_prestart_ucounts(long long *ucount);
void sbx_launch_prestart_end(void);

/*
 * The limits of the next sbx_launch (NULL: none), borrowed until it returns: the sandbox's
 * processes start in lim->cg (sbx moves itself in around clone or fork, so that the worker
 * never runs outside it); a v1 oom event kills the whole cgroup; lim->timeout_ms after the
 * start, every process of the sandbox is killed (its pid namespace; under the landlock
 * backend its cgroup and process group), lim->timed_out is set and the status is 124. Under
 * the landlock backend the cgroup is also killed whole when the worker ends, so that nothing
 * it started outlives it.
 */
void sbx_launch_set_limits(struct sbx_launch_limits *lim);

#endif
