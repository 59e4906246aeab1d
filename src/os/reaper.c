/* SPDX-License-Identifier: MIT */
#include "os/reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/proc.h"
#include "sbx/cleanup.h"

int sbx_reaper_start(struct sbx_reaper *r, pid_t sbx, struct sbx_error *err)
{
	r->sbx = sbx;
	r->sbx_pidfd = r->sigfd = -1;
	/* Orphans come here, not to the host's init: the whole tree stays in reach. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "the reaper cannot become a child subreaper: %s",
		                     strerror(errno));
	/* sbx's end, SIGKILL included, is the sandbox's end. A pidfd, not PR_SET_PDEATHSIG:
	 * the reaper must outlive sbx long enough to kill what the worker left. */
	r->sbx_pidfd = (int)syscall(SYS_pidfd_open, sbx, 0);
	if (r->sbx_pidfd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "the reaper cannot watch sbx (pidfd_open): %s",
		                     strerror(errno));
	/* opened before this check: if sbx is still the parent now, the pidfd is sbx's */
	if (getppid() != sbx)
		return sbx_error_set(err, SBX_ERR_SETUP, ESRCH,
		                     "sbx ended while the sandbox was starting");
	r->sigfd = sbx_proc_signalfd(err);
	if (r->sigfd < 0)
		return r->sigfd;
	/* and SBX_REAPER_END_SIGNAL, a real-time signal: it queues, where a second SIGTERM
	 * pending beside one sbx forwarded would be merged with it and lost */
	{
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGCHLD);
		for (size_t i = 0; i < sbx_n_job_signals; i++)
			sigaddset(&set, sbx_job_signals[i]);
		for (size_t i = 0; i < sbx_n_forwarded_signals; i++)
			sigaddset(&set, sbx_forwarded_signals[i]);
		sigaddset(&set, SBX_REAPER_END_SIGNAL);
		if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 || signalfd(r->sigfd, &set, 0) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "the reaper cannot wait for sbx's word: %s",
			                     strerror(errno));
	}
	return 0;
}

/* SIGKILL every child that is not reaped yet; returns how many. An unreaped child's pid
 * cannot be recycled (the zombie holds it), and nothing reaps here but this thread, so
 * kill(2) on a pid read from the children list reaches that child and no other process. */
static size_t kill_children(void)
{
	char path[300], buf[65536];
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* "PID PID ... ": read whole (at most 64 KiB a round: the rest goes in the next
		 * round, as what it kills now is reaped) */
		size_t len = 0;
		ssize_t got;
		char *p = buf, *end;

		while (len < sizeof(buf) - 1 &&
		       (got = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)got;
		close(fd);
		buf[len] = '\0';
		if (len == sizeof(buf) - 1 && strrchr(buf, ' ')) /* the last pid may be cut */
			*strrchr(buf, ' ') = '\0';
		for (;;) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
				n++;
			p = end;
		}
		return n;
	}
	/* No children list (CONFIG_PROC_CHILDREN off): every /proc/PID/stat whose parent is
	 * this process. */
	{
		DIR *d = opendir("/proc");
		struct dirent *e;
		pid_t self = getpid();

		if (!d)
			return 0;
		while ((e = readdir(d))) {
			char stat[512], *rp;
			int sfd;
			ssize_t got;
			int ppid = 0;

			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
			sfd = open(path, O_RDONLY | O_CLOEXEC);
			if (sfd < 0)
				continue;
			got = read(sfd, stat, sizeof(stat) - 1);
			close(sfd);
			if (got <= 0)
				continue;
			stat[got] = '\0';
			/* "pid (comm) S ppid ...": comm may hold anything, ')' included */
			rp = strrchr(stat, ')');
			if (rp && sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == self &&
			    kill(atoi(e->d_name), SIGKILL) == 0)
				n++;
		}
		closedir(d);
		return n;
	}
}

void sbx_reaper_kill_all(struct sbx_reaper *r)
{
	if (r->kill_cgroup)
		r->kill_cgroup(r->kill_cgroup_ctx);
	/* Each round kills every child there is, then waits for one to end: what a killed
	 * process had started comes here when it dies, and the next round kills it. A process
	 * with SIGKILL pending forks no more, so the rounds end; ECHILD says nothing is left.
	 * __WALL: children whose exit signal is not SIGCHLD too. */
	for (;;) {
		pid_t pid;

		kill_children();
		pid = waitpid(-1, NULL, __WALL);
		if (pid < 0 && errno != EINTR)
			break;
	}
}

int sbx_reaper_loop(struct sbx_reaper *r, pid_t worker)
{
	int code = 125;

	for (;;) {
		struct pollfd p[2] = {{r->sigfd, POLLIN, 0}, {r->sbx_pidfd, POLLIN, 0}};
		struct signalfd_siginfo si;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break; /* sbx ended: nobody will read a status */
		if (!p[0].revents)
			continue;
		if (read(r->sigfd, &si, sizeof(si)) != sizeof(si)) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			break;
		}
		switch (si.ssi_signo) {
		case SIGCHLD:
			break;
		case SIGTSTP:
		case SIGTTIN:
		case SIGTTOU:
			/* as init: the worker's session would discard a terminal stop */
			kill(-worker, SIGSTOP);
			continue;
		case SIGCONT:
			kill(-worker, SIGCONT);
			continue;
		default:
			if ((int)si.ssi_signo == SBX_REAPER_END_SIGNAL) {
				/* queued, from sbx (a supervisor lost) or from `sbx kill -s KILL`
				 * (src/os/registry.c): the worker cannot send it (its signal scope)
				 */
				if (si.ssi_code != SI_QUEUE)
					continue;
				code = 128 + SIGKILL;
				goto end;
			}
			sbx_proc_deliver(worker, &si, r->sbx);
			continue;
		}
		/* Reap what ended (adopted orphans too); the worker's end ends the sandbox. */
		for (;;) {
			int st;
			pid_t pid = waitpid(-1, &st, WNOHANG | __WALL);

			if (pid <= 0)
				break;
			if (pid == worker) {
				code = sbx_proc_status_code(st);
				goto end;
			}
		}
	}
	code = 128 + SIGKILL;
end:
	sbx_reaper_kill_all(r);
	return code;
}
