/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_CGROUP_H
#define SBX_OS_CGROUP_H

/*
 * A cgroup per sandbox, for the limits that need one (memory, pids, cpu; include/sbx/limits.h)
 * and to end every process of a sandbox at once. Where sbx can have one is found by trying
 * (making and removing a directory), never by the version alone: containers mount the tree
 * read-only, and hosts keep controllers on cgroup v1 with cgroup2 mounted empty.
 *
 *   cgroup v2: beneath the caller's own cgroup (/proc/self/cgroup "0::PATH") where it is
 *     writable (root, or a delegated subtree: `systemd-run --user --scope -p Delegate=yes
 *     sbx run ...`) and has the controllers; memory.oom.group makes an oom kill take the
 *     whole sandbox; cgroup.kill ends it.
 *   cgroup v1: beneath the caller's own cgroup of each controller's hierarchy (memory, pids,
 *     cpu), one directory in each; an oom kill is seen through memory.oom_control's event
 *     (cgroup.event_control), and sbx then kills the group itself.
 *
 * Each sandbox's directory is named sbx-PID-ID (sbx's pid, the sandbox id): removed when the
 * sandbox ends; one whose sbx is gone (killed) is emptied and removed by the next sbx that
 * makes one beside it (sbx_cgroup_create's sweep).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/limits.h"

#define SBX_CGROUP_V1_MAX 3 /* memory, pids, cpu */

struct sbx_cgroup {
	int version;                        /* 2 or 1 */
	unsigned enforces;                  /* SBX_LIMIT_BIT of the limits it holds */
	char name[96];                      /* sbx-PID-ID */
	char dir[SBX_CGROUP_V1_MAX][1024];  /* v2: dir[0]; v1: one per hierarchy used */
	char home[SBX_CGROUP_V1_MAX][1024]; /* the caller's own cgroup of each (sbx_cgroup_leave) */
	size_t n_dirs;
	int memory_dir;  /* index of the directory with the memory controller, or -1 */
	int oom_fd;      /* v1: an eventfd signalled on oom (sbx_cgroup_oom_fd); -1 */
	uint64_t memory; /* the memory limit, for the message */
	bool oom_killed; /* set by sbx_cgroup_on_oom or sbx_cgroup_oom_seen */
};

/* What a host can enforce, for `sbx doctor` and refusals: each limit's bit, and one line
 * saying how or why not. */
struct sbx_cgroup_facts {
	unsigned can; /* SBX_LIMIT_BIT of memory, pids, cpu */
	int version;  /* the version that gives them, 0: none */
	char how[512];
	char why_not[512];
};

/* Try, without keeping anything: a directory made and removed where sbx would make one. */
void sbx_cgroup_probe(struct sbx_cgroup_facts *f);

/*
 * Make the sandbox's cgroup for the limits in `want` (bits of SBX_LIMITS_CGROUP) with the
 * values in lim, named after `id`. Returns 0 with *out (free with sbx_cgroup_destroy); on a
 * host where some of `want` cannot be had, -EOPNOTSUPP with an SBX_ERR_UNSUPPORTED error
 * naming what is missing and why; *got says what could be had (the caller may go on with
 * less under --best-effort: *out is then the partial cgroup, or NULL).
 */
int sbx_cgroup_create(unsigned want, const struct sbx_limits *lim, const char *id,
                      struct sbx_cgroup **out, unsigned *got, struct sbx_error *err);

/* sbx itself into the sandbox's cgroup, so that what it forks or clones next starts there
 * (and a new cgroup namespace is rooted there); sbx_cgroup_leave moves it back. */
int sbx_cgroup_enter(struct sbx_cgroup *cg, struct sbx_error *err);
void sbx_cgroup_leave(struct sbx_cgroup *cg);

/* Kill every process in the cgroup (v2: cgroup.kill; v1: SIGKILL each listed, until none
 * is left). Async-signal-safe enough for the end path: no allocation. */
void sbx_cgroup_kill(struct sbx_cgroup *cg);

/* v1: a file descriptor that becomes readable when the memory controller's oom killer acts
 * (poll it; then call sbx_cgroup_on_oom); -1 where there is none (v2 needs none:
 * memory.oom.group). */
int sbx_cgroup_oom_fd(const struct sbx_cgroup *cg);
void sbx_cgroup_on_oom(struct sbx_cgroup *cg);

/* After the sandbox: did the memory limit kill a process (memory.events' oom_kill, v1's
 * memory.oom_control)? Sets cg->oom_killed. */
bool sbx_cgroup_oom_seen(struct sbx_cgroup *cg);

/* Kill what is left, wait (bounded) for it to go, remove the directories, free. NULL: no-op. */
void sbx_cgroup_destroy(struct sbx_cgroup *cg);

#endif
