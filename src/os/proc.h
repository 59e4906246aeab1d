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
