/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_REAPER_H
#define SBX_OS_REAPER_H

/*
 * The landlock backend's reaper (src/os/reaper.c): the process between sbx and the worker
 * that keeps "nothing the worker starts outlives the sandbox" where there is no pid
 * namespace. It is a child subreaper (PR_SET_CHILD_SUBREAPER): every process of the worker
 * whose parent ends is re-parented to it rather than to the host's init, so that the whole
 * tree stays its descendants (a setsid(2) or a double fork does not leave it). When the
 * worker ends, or sbx does (a pidfd of sbx, so that even SIGKILL of sbx is seen), it kills
 * what is left, repeatedly until nothing is.
 */

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sbx/error.h"

/* sbx's word to the reaper to end the whole sandbox now (sigqueue(3) from sbx): every
 * process, then itself. */
#define SBX_REAPER_END_SIGNAL (SIGRTMIN + 1)

struct sbx_reaper {
	pid_t sbx;     /* the parent whose end ends the sandbox */
	int sbx_pidfd; /* readable once sbx has ended */
	int sigfd;     /* the signals sbx forwards, and SIGCHLD */
	/*
	 * HOOK(cgroup): where the sandbox has a cgroup of its own (the limits work), the whole
	 * sandbox ends at once through it (cgroup.kill), before the sweep reaps what is left;
	 * NULL: no cgroup, the sweep alone kills. Called with kill_cgroup_ctx; its result is
	 * not needed (the sweep kills whatever it missed).
	 */
	int (*kill_cgroup)(void *ctx);
	void *kill_cgroup_ctx;
};

/*
 * In the child of sbx (`sbx` is its pid, read before the fork): become a child subreaper,
 * watch sbx through a pidfd, and open a signalfd (the signals are blocked already). Fails if
 * sbx is already gone. r->kill_cgroup is left as the caller set it. The caller clears its
 * dumpable flag once the worker is forked (a fork inherits it, and sbx's supervisor must
 * read the worker's /proc entries before its exec).
 */
int sbx_reaper_start(struct sbx_reaper *r, pid_t sbx, struct sbx_error *err);

/*
 * The reaper's life once it has forked the worker: deliver what sbx forwards (job control
 * as init does), reap, and return the code to exit with: the worker's status (128+N for
 * signal N) once it has ended and every other process of the sandbox is gone; 137 when sbx
 * ended or asked for the end (SBX_REAPER_END_SIGNAL), after the same sweep.
 */
int sbx_reaper_loop(struct sbx_reaper *r, pid_t worker);

/*
 * Kill every descendant and reap it, until none is left: every child is sent SIGKILL, and
 * what a killed child leaves behind is re-parented here and killed in the next round.
 * A process group kill would miss a setsid(2) and PR_SET_PDEATHSIG is not inherited; the
 * children list misses nothing that descends from the reaper.
 */
void sbx_reaper_kill_all(struct sbx_reaper *r);

#endif
