/* SPDX-License-Identifier: MIT */
#include "os/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"

const int sbx_forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};
const size_t sbx_n_forwarded_signals = SBX_ARRAY_SIZE(sbx_forwarded_signals);
const int sbx_job_signals[] = {SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT};
const size_t sbx_n_job_signals = SBX_ARRAY_SIZE(sbx_job_signals);

int sbx_proc_signalfd(struct sbx_error *err)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < sbx_n_job_signals; i++)
		sigaddset(&set, sbx_job_signals[i]);
	for (size_t i = 0; i < sbx_n_forwarded_signals; i++)
		sigaddset(&set, sbx_forwarded_signals[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "sigprocmask: %s", strerror(errno));
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "signalfd: %s", strerror(errno));
	return fd;
}

void sbx_proc_forward(pid_t child, const struct signalfd_siginfo *si)
{
	int signo = (int)si->ssi_signo;

	if (si->ssi_code == SI_KERNEL) {
		union sigval v = {.sival_int = SBX_PROC_SIG_JOB};

		if (sigqueue(child, signo, v) == 0)
			return;
	}
	kill(child, signo);
}

void sbx_proc_deliver(pid_t worker, const struct signalfd_siginfo *si, pid_t sbx)
{
	int signo = (int)si->ssi_signo;

	/* The terminal's own signals (SI_KERNEL) are sbx's to pass on, once: this process left
	 * sbx's process group, but may have got one before. */
	if (si->ssi_code == SI_KERNEL)
		return;
	/* the worker leads its own session and process group (worker_start): its group is
	 * the job, unless a shell of its own moved a job elsewhere, which only a terminal of
	 * its own (a pty) lets it do, and then the terminal signals that job itself */
	if (si->ssi_code == SI_QUEUE && si->ssi_int == SBX_PROC_SIG_JOB &&
	    (pid_t)si->ssi_pid == sbx && kill(-worker, signo) == 0)
		return;
	kill(worker, signo);
}

int sbx_proc_die_with_parent(struct sbx_error *err)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "PR_SET_PDEATHSIG: %s",
		                     strerror(errno));
	return 0;
}

int sbx_proc_status_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 125;
}

int sbx_proc_init_loop(pid_t worker, int sigfd)
{
	int code = 125;

	for (;;) {
		struct signalfd_siginfo si;
		ssize_t n = read(sigfd, &si, sizeof(si));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(si))
			return 125;
		switch (si.ssi_signo) {
		case SIGCHLD:
			break;
		case SIGTSTP:
		case SIGTTIN:
		case SIGTTOU:
			/* The worker leads its own session, where a terminal stop signal would be
			 * discarded (an orphaned process group): stop its group outright. */
			kill(-worker, SIGSTOP);
			continue;
		case SIGCONT:
			kill(-worker, SIGCONT);
			continue;
		default:
			/* sbx is outside this pid namespace: its pid reads 0 here */
			sbx_proc_deliver(worker, &si, 0);
			continue;
		}
		/* Reap everything: orphans reparented to us included. */
		for (;;) {
			int st;
			pid_t pid = waitpid(-1, &st, WNOHANG);

			if (pid <= 0)
				break;
			if (pid == worker) {
				code = sbx_proc_status_code(st);
				return code;
			}
		}
	}
}

static int exec_error(int errnum, const char *cmd, const char *path, const char *found,
                      struct sbx_error *err)
{
	int r;

	if (errnum == ENOENT && found) {
		/* execve says ENOENT for a file that is there when its ELF interpreter or its
		 * #! program is not. */
		r = sbx_error_set(err, SBX_ERR_EXEC_NOT_FOUND, errnum,
		                  "%s: found at %s, but its dynamic loader or #! interpreter is "
		                  "not in the sandbox",
		                  cmd, found);
		sbx_error_hint(err,
		               "mount the loader's directory too (the system mounts do, "
		               "unless --no-system-mounts); see what is mounted with --dry-run");
		return r;
	}
	if (errnum == ENOENT || errnum == ENOTDIR) {
		r = sbx_error_set(err, SBX_ERR_EXEC_NOT_FOUND, errnum,
		                  "%s: command not found in the sandbox", cmd);
		if (strchr(cmd, '/'))
			sbx_error_hint(err,
			               "is %s under a mounted directory? mount it with "
			               "-v DIR:ro, or see what is mounted with --dry-run",
			               cmd);
		else
			sbx_error_hint(err,
			               "PATH inside is %s; mount the directory holding it, "
			               "or give its full path",
			               path ? path : "(unset)");
		return r;
	}
	r = sbx_error_set(err, SBX_ERR_EXEC_DENIED, errnum, "%s: cannot execute: %s", cmd,
	                  strerror(errnum));
	sbx_error_hint(err, "check that it is an executable for this machine and that its "
	                    "mount allows execution");
	return r;
}

int sbx_proc_exec(char *const argv[], char *const envp[], struct sbx_error *err)
{
	const char *cmd = argv[0];
	const char *path = NULL;
	char found[SBX_PATH_MAX] = "";
	int first_err = 0;

	if (strchr(cmd, '/')) {
		execve(cmd, argv, envp);
		first_err = errno;
		return exec_error(first_err, cmd, NULL,
		                  first_err == ENOENT && access(cmd, F_OK) == 0 ? cmd : NULL, err);
	}
	for (char *const *e = envp; *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			path = *e + 5;
	for (const char *p = path ? path : ""; path && *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char full[SBX_PATH_MAX];

		if (snprintf(full, sizeof(full), "%.*s/%s", (int)(len ? len : 1), len ? p : ".",
		             cmd) < (int)sizeof(full)) {
			execve(full, argv, envp);
			/* As execvp: remember a "found but cannot run", keep looking otherwise. */
			if (errno == ENOENT && !found[0] && access(full, F_OK) == 0)
				snprintf(found, sizeof(found), "%s", full);
			else if (errno != ENOENT && errno != ENOTDIR && !first_err)
				first_err = errno;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return exec_error(first_err ? first_err : ENOENT, cmd, path, found[0] ? found : NULL, err);
}
