/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_PROC_H
#define SBX_OS_PROC_H

/* Processes (src/os/proc.c): signals, death with the parent, pid 1's loop, exec. */

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "sbx/cleanup.h"
#include "sbx/error.h"

/*
 * A child that must not outlive the scope that started it (as crun's cleanup_pid): killed
 * with SIGKILL and reaped when the variable leaves scope. Whoever reaps it first sets the
 * variable to 0, so that a recycled pid is never killed; 0 and -1 are left alone. The child's
 * own copy never runs it: a child of fork or clone leaves by _exit.
 */
static inline void sbx_kill_pidp(pid_t *pid)
{
	if (*pid > 0) {
		int saved = errno;

		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
		*pid = 0;
		errno = saved;
	}
}
#define _cleanup_pid_ _cleanup_(sbx_kill_pidp)

/* The signals sbx forwards to the worker (docs/design.md, Enforcement order). */
extern const int sbx_forwarded_signals[];
extern const size_t sbx_n_forwarded_signals;
/* Job control: a stop of sbx stops the worker's process group, a continue continues it. */
extern const int sbx_job_signals[];
extern const size_t sbx_n_job_signals;

/*
 * sbx passes a signal on to the sandbox's first process (init under the namespaces backend,
 * the reaper under the landlock backend) with sigqueue(3) and one of these values when it
 * means more than "this signal, to the worker" (the reaper's end: os/reaper.h):
 *   SBX_PROC_SIG_JOB  deliver it to the worker's whole process group, as the terminal would
 *                     have (Ctrl-C, Ctrl-\ reach every process of the foreground job, not
 *                     only the first: a shell waiting for its child ignores a SIGINT that
 *                     its child did not get);
 * The receiver takes the value only with sbx's pid (signalfd's ssi_pid: 0 in init's pid
 * namespace, sbx's pid for the reaper). A worker that forges both (rt_sigqueueinfo lets a
 * process name any sender) gains nothing: it could signal its own group itself.
 */
#define SBX_PROC_SIG_JOB 0x53425801

struct signalfd_siginfo;

/* sbx: pass si on to child. A signal the terminal generated (si_code SI_KERNEL: Ctrl-C,
 * Ctrl-\, a hangup, a window change) goes to the worker's whole job; one sent by a process
 * (kill(1), timeout(1)) to the worker alone, as docker kill does. */
void sbx_proc_forward(pid_t child, const struct signalfd_siginfo *si);

/* init or the reaper: deliver what sbx (pid `sbx` as this process sees it) forwarded to the
 * worker, or to its process group (SBX_PROC_SIG_JOB). */
void sbx_proc_deliver(pid_t worker, const struct signalfd_siginfo *si, pid_t sbx);

/* Block the forwarded and job-control signals and SIGCHLD; return a signalfd for them. */
int sbx_proc_signalfd(struct sbx_error *err);

/* Die with SIGKILL when the parent dies (PR_SET_PDEATHSIG). It does not notice a parent that
 * is already gone: the caller checks that after arming it. */
int sbx_proc_die_with_parent(struct sbx_error *err);

/* Exit status as a shell reports it: the code, or 128+N for signal N. */
int sbx_proc_status_code(int wstatus);

/* pid 1 of the sandbox: reap every child, forward signals to the worker, and return the
 * worker's status code when it ends. */
int sbx_proc_init_loop(pid_t worker, int sigfd);

/* exec argv[0] the way execvp would, but searching the PATH of envp, and with 126/127
 * errors that name the command. Returns only on failure. */
int sbx_proc_exec(char *const argv[], char *const envp[], struct sbx_error *err);

#endif
