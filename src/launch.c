/* SPDX-License-Identifier: MIT */
/*
 * The one place that applies a plan, in enforcement order (minijail_enter, nsjail's
 * containProc):
 *
 *   sbx (host)          clone(NEWUSER|NEWNS|NEWPID|NEWIPC|NEWUTS|NEWCGROUP[|NEWNET])
 *     writes the child's uid/gid maps, then lets it go; forwards signals; relays its status
 *   init (pid 1)        becomes the inner ids; builds the mounts and pivots; loopback up;
 *     forks the worker, drops its own capabilities, reaps and forwards signals
 *   worker (pid 2)      new session; dies with init; chdir; every capability dropped;
 *     no_new_privs; Landlock; seccomp last; the spec memfd at fd 3; execve
 *
 * Nested sandboxes (sbx run inside sbx, SPEC section 6) take this same path: the caller's
 * view is their "host", every source is cloned from it with the caller's read-only locks, and
 * each layer stacks its own no_new_privs, its own Landlock domain and its own seccomp filter,
 * which the kernel intersects with the parent's.
 *
 * The landlock backend (no namespaces) runs the worker as sbx's own child instead: see
 * launch_landlock below.
 *
 * Errors in init or the worker travel to sbx as one flat struct sbx_error over a
 * close-on-exec pipe: EOF with nothing read means the exec succeeded.
 */

#include "os/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/fd.h"
#include "os/keyring.h"
#include "sbx/cleanup.h"
#include "sbx/nest.h"
#include "sbx/seccomp.h"
#include "os/caps.h"
#include "os/landlock.h"
#include "os/memfd.h"
#include "os/mounts.h"
#include "os/net.h"
#include "os/proc.h"
#include "os/seccomp.h"
#include "os/userns.h"

struct child_ctx {
	const struct sbx_plan *plan;
	char *const *argv;
	struct sbx_prepared *prep;
	int err_fd;  /* write end */
	int spec_fd; /* the sealed memfd with the worker's effective spec */
	int sync_fd; /* read end: one byte once the maps are written, EOF if sbx died */
	const struct sbx_seccomp_prog *filter; /* built by sbx before clone */
};

static int seal_spec_and_build_filter(const struct sbx_plan *plan, int *spec_fd,
                                      struct sbx_seccomp_prog *filter, struct sbx_error *err);
static int supervise(pid_t child, int sigfd, int err_fd, int *status, struct sbx_error *err);
__attribute__((noreturn)) static void init_main(struct child_ctx *c);
__attribute__((noreturn)) static void worker_main(const struct child_ctx *c);
static void worker_start(const struct child_ctx *c, pid_t parent);
__attribute__((noreturn)) static void worker_finish(const struct child_ctx *c);
static int launch_landlock(const struct sbx_plan *plan, char *const argv[], int *status,
                           struct sbx_error *err);
__attribute__((noreturn)) static void landlock_worker(const struct child_ctx *c, pid_t parent);

/* The caller's SIGXFSZ disposition, given back to the worker (sbx_launch_guard_xfsz). */
static struct sigaction caller_xfsz;
static bool xfsz_guarded;

void sbx_launch_guard_xfsz(void)
{
	struct sigaction ign;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	if (sigaction(SIGXFSZ, &ign, &caller_xfsz) == 0)
		xfsz_guarded = true;
}

__attribute__((noreturn)) static void child_fail(int fd, const struct sbx_error *err)
{
	ssize_t n = write(fd, err, sizeof(*err));

	(void)n;
	_exit(sbx_error_exit_code(err));
}

int sbx_launch(const struct sbx_plan *plan, char *const argv[], int *status, struct sbx_error *err)
{
	struct sbx_prepared prep = {0};
	_cleanup_close_ int userns_fd = -1;
	_cleanup_close_ int sigfd = -1;
	_cleanup_close_ int spec_fd = -1;
	struct sbx_seccomp_prog filter = {0};
	int err_pipe[2] = {-1, -1}, sync_pipe[2] = {-1, -1};
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
	                      CLONE_NEWUTS | CLONE_NEWCGROUP;
	pid_t pid;
	int r;

	if (plan->backend_landlock)
		return launch_landlock(plan, argv, status, err);
	if (plan->new_net)
		flags |= CLONE_NEWNET;

	r = seal_spec_and_build_filter(plan, &spec_fd, &filter, err);
	if (r < 0)
		return r;

	/* As root, sources are cloned and id-mapped here, where the privilege to id-map host
	 * file systems is; unprivileged, the child clones them in its own namespace. */
	if (plan->idmap_binds) {
		userns_fd = sbx_userns_idmap_fd(plan, err);
		if (userns_fd < 0) {
			r = userns_fd;
			goto out;
		}
		r = sbx_mounts_prepare(plan, userns_fd, &prep, err);
		if (r < 0)
			goto out;
	}
	r = sbx_fd_pipe(err_pipe, "that carries the sandbox's errors", err);
	if (r >= 0)
		r = sbx_fd_pipe(sync_pipe, "that starts the sandbox", err);
	if (r < 0)
		goto out;
	/* Blocked before clone, so that no signal is lost between clone and the loops; the
	 * worker unblocks them. */
	sigfd = sbx_proc_signalfd(err);
	if (sigfd < 0) {
		r = sigfd;
		goto out;
	}

	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		r = sbx_userns_explain(errno, plan->new_net, err);
		goto out;
	}
	if (pid == 0) {
		struct child_ctx c = {
		    .plan = plan,
		    .argv = argv,
		    .prep = &prep,
		    .err_fd = err_pipe[1],
		    .spec_fd = spec_fd,
		    .filter = &filter,
		    .sync_fd = sync_pipe[0],
		};

		close(err_pipe[0]);
		close(sync_pipe[1]);
		close(sigfd);
		init_main(&c);
	}

	close(err_pipe[1]);
	err_pipe[1] = -1;
	close(sync_pipe[0]);
	sync_pipe[0] = -1;
	sbx_prepared_clear(&prep);

	r = sbx_userns_write_maps(pid, plan, err);
	if (r < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	if (write(sync_pipe[1], "g", 1) != 1) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot start the sandbox: %s",
		                  strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	r = supervise(pid, sigfd, err_pipe[0], status, err);
out:
	sbx_prepared_clear(&prep);
	sbx_seccomp_prog_clear(&filter);
	for (int i = 0; i < 2; i++) {
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
		if (sync_pipe[i] >= 0)
			close(sync_pipe[i]);
	}
	return r;
}

/* What both backends need before any process of the sandbox exists: the worker's effective
 * spec sealed in a memfd (a launch without one is refused: SBX_SPEC_FD in the worker's
 * environment would name nothing, and a nested sbx would then refuse to start), and the
 * seccomp filter compiled, so that a bad one refuses early. *spec_fd is the caller's. */
static int seal_spec_and_build_filter(const struct sbx_plan *plan, int *spec_fd,
                                      struct sbx_seccomp_prog *filter, struct sbx_error *err)
{
	if (!plan->spec_blob)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: the plan carries no effective spec");
	*spec_fd = sbx_memfd_sealed(plan->spec_blob, plan->spec_len, err);
	if (*spec_fd < 0)
		return *spec_fd;
	/* the rules --dry-run prints, resolved by core once the backend was settled */
	return sbx_seccomp_build(&plan->seccomp_rules, filter, err);
}

/* Read what the child reports; returns true once EOF is seen. */
static bool read_report(int fd, struct sbx_error *rep, size_t *got)
{
	ssize_t n;

	if (*got < sizeof(*rep))
		n = read(fd, (char *)rep + *got, sizeof(*rep) - *got);
	else {
		char junk[256];
		n = read(fd, junk, sizeof(junk));
	}
	if (n < 0)
		return errno != EINTR && errno != EAGAIN;
	if (n == 0)
		return true;
	if (*got < sizeof(*rep))
		*got += (size_t)n;
	return false;
}

static int supervise(pid_t child, int sigfd, int err_fd, int *status, struct sbx_error *err)
{
	struct sbx_error rep;
	size_t got = 0;
	bool err_open = true;
	int wstatus;

	memset(&rep, 0, sizeof(rep));
	for (;;) {
		struct pollfd p[2] = {{sigfd, POLLIN, 0}, {err_open ? err_fd : -1, POLLIN, 0}};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			kill(child, SIGKILL);
			break;
		}
		if (p[1].revents && read_report(err_fd, &rep, &got))
			err_open = false;
		if (p[0].revents) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGTSTP || si.ssi_signo == SIGTTIN ||
			    si.ssi_signo == SIGTTOU) {
				/* ^Z: stop the sandbox's worker, then ourselves, as the shell
				 * expects; its SIGCONT comes back here and is passed on. */
				kill(child, SIGTSTP);
				raise(SIGSTOP);
				continue;
			}
			if (si.ssi_signo != SIGCHLD) {
				/* init forwards it to the worker */
				kill(child, (int)si.ssi_signo);
				continue;
			}
			if (waitpid(child, &wstatus, WNOHANG) == child)
				break;
		}
	}
	if (waitpid(child, &wstatus, 0) < 0 && errno != ECHILD)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "waitpid: %s", strerror(errno));
	/* The report, if any, was written before the child exited: drain it. */
	fcntl(err_fd, F_SETFL, O_NONBLOCK);
	while (err_open && !read_report(err_fd, &rep, &got))
		;
	if (got == sizeof(rep) && rep.kind != SBX_ERR_NONE) {
		rep.msg[sizeof(rep.msg) - 1] = '\0';
		rep.hint[sizeof(rep.hint) - 1] = '\0';
		rep.file[sizeof(rep.file) - 1] = '\0';
		if (err)
			*err = rep;
		return rep.errnum > 0 ? -rep.errnum : -EINVAL;
	}
	*status = sbx_proc_status_code(wstatus);
	return 0;
}

__attribute__((noreturn)) static void init_main(struct child_ctx *c)
{
	struct sbx_error err = {0};
	int sigfd, r;
	pid_t worker;
	char go;

	if (sbx_proc_die_with_parent(&err) < 0)
		child_fail(c->err_fd, &err);
	/* EOF here means sbx died before PDEATHSIG was armed: end quietly. */
	do
		r = (int)read(c->sync_fd, &go, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(125);

	if (sbx_userns_become(c->plan, &err) < 0)
		child_fail(c->err_fd, &err);
	/* A change of effective ids clears the parent-death signal: arm it again, then make
	 * sure sbx did not die in between (its end of the sync pipe stays open while it
	 * lives). */
	if (sbx_proc_die_with_parent(&err) < 0)
		child_fail(c->err_fd, &err);
	{
		struct pollfd p = {c->sync_fd, POLLIN, 0};

		if (poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
			_exit(125);
	}
	close(c->sync_fd);
	if (!c->plan->idmap_binds && sbx_mounts_prepare(c->plan, -1, c->prep, &err) < 0)
		child_fail(c->err_fd, &err);
	if (sbx_mounts_build(c->plan, c->prep, &err) < 0)
		child_fail(c->err_fd, &err);
	sbx_prepared_clear(c->prep);
	if (c->plan->new_net && sbx_net_loopback_up(&err) < 0)
		child_fail(c->err_fd, &err);

	sigfd = sbx_proc_signalfd(&err);
	if (sigfd < 0)
		child_fail(c->err_fd, &err);
	/* vfork: the worker borrows init's memory until it execs (init is suspended till
	 * then), which spares copying page tables, the dearest part of a launch on VMs. The
	 * worker only makes system calls and writes its own stack frame before exec/_exit. */
	worker = vfork();
	if (worker < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "cannot start the worker: %s",
		              strerror(errno));
		child_fail(c->err_fd, &err);
	}
	if (worker == 0) {
		close(sigfd);
		worker_main(c);
	}
	close(c->err_fd);

	/* init keeps nothing it does not need: no capabilities, no way to be ptraced or to
	 * have its memory read through /proc/1. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (sbx_caps_drop_all(&err) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		kill(worker, SIGKILL);
		_exit(125);
	}
	_exit(sbx_proc_init_loop(worker, sigfd));
}

__attribute__((noreturn)) static void worker_main(const struct child_ctx *c)
{
	struct sbx_error err = {0};

	worker_start(c, 1); /* init is pid 1 */
	if (sbx_caps_drop_all(&err) < 0)
		child_fail(c->err_fd, &err);
	worker_finish(c);
}

/*
 * The first steps of every worker: default signals, a new session (no controlling terminal,
 * so TIOCSTI cannot push input into the caller's terminal), death with its parent (`parent`:
 * the pid it must still see, or it died before PDEATHSIG was armed), and its directory.
 */
static void worker_start(const struct child_ctx *c, pid_t parent)
{
	struct sbx_error err = {0};
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (xfsz_guarded)
		sigaction(SIGXFSZ, &caller_xfsz, NULL);
	if (setsid() < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "setsid: %s", strerror(errno));
		child_fail(c->err_fd, &err);
	}
	if (sbx_proc_die_with_parent(&err) < 0)
		child_fail(c->err_fd, &err);
	if (getppid() != parent)
		_exit(125);
	if (chdir(c->plan->cwd) < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno,
		              "cannot change to the working directory %s inside the sandbox: %s",
		              c->plan->cwd, strerror(errno));
		sbx_error_hint(&err, "pass --chdir with a directory the sandbox grants");
		child_fail(c->err_fd, &err);
	}
}

/*
 * The last steps of every worker, whichever backend built its world, once its capabilities
 * are gone: no_new_privs, Landlock, only 0, 1, 2 and the spec memfd, a session keyring of its
 * own, seccomp last, exec.
 */
__attribute__((noreturn)) static void worker_finish(const struct child_ctx *c)
{
	struct sbx_error err = {0};
	int err_fd = c->err_fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "cannot set no_new_privs: %s",
		              strerror(errno));
		child_fail(c->err_fd, &err);
	}
	/* Landlock: per-operation rights, once no_new_privs is set (which lets an unprivileged
	 * process restrict itself) and before seccomp, which comes last. */
	if (sbx_landlock_enforce(&c->plan->landlock, &err) < 0)
		child_fail(c->err_fd, &err);
	/* Only 0, 1, 2 and the spec memfd reach the worker (SPEC section 7): everything else
	 * closes at exec. The memfd goes to a fixed number, SBX_SPEC_FD names it; the error
	 * pipe moves out of the way first if it sits there. */
	if (sbx_fd_cloexec_from(3, &err) < 0)
		child_fail(c->err_fd, &err);
	if (err_fd == SBX_SPEC_FD_NUMBER) {
		err_fd = fcntl(err_fd, F_DUPFD_CLOEXEC, SBX_SPEC_FD_NUMBER + 1);
		if (err_fd < 0)
			_exit(125);
	}
	if (sbx_fd_pass(c->spec_fd, SBX_SPEC_FD_NUMBER, &err) < 0)
		child_fail(err_fd, &err);

	/* The worker's session keyring is its own, not the caller's. */
	if (sbx_keyring_new_session(&err) < 0)
		child_fail(err_fd, &err);
	/* seccomp last: nothing above needs a call it may deny. */
	if (sbx_seccomp_install(c->filter, &err) < 0)
		child_fail(err_fd, &err);
	sbx_proc_exec(c->argv, c->plan->envp, &err);
	child_fail(err_fd, &err);
}

static int launch_landlock(const struct sbx_plan *plan, char *const argv[], int *status,
                           struct sbx_error *err)
{
	_cleanup_close_ int sigfd = -1;
	_cleanup_close_ int spec_fd = -1;
	struct sbx_seccomp_prog filter = {0};
	int err_pipe[2] = {-1, -1};
	pid_t parent = getpid(), pid;
	int r;

	/* Fail closed: without Landlock nothing at all would confine the worker. */
	if (!plan->landlock.enabled)
		return sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
		    "the landlock backend needs Landlock, which this kernel lacks");
	r = seal_spec_and_build_filter(plan, &spec_fd, &filter, err);
	if (r < 0)
		return r;
	if (pipe2(err_pipe, O_CLOEXEC) < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno, "pipe: %s", strerror(errno));
		goto out;
	}
	sigfd = sbx_proc_signalfd(err);
	if (sigfd < 0) {
		r = sigfd;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot start the worker: %s",
		                  strerror(errno));
		goto out;
	}
	if (pid == 0) {
		struct child_ctx c = {.plan = plan,
		                      .argv = argv,
		                      .err_fd = err_pipe[1],
		                      .spec_fd = spec_fd,
		                      .filter = &filter};

		close(err_pipe[0]);
		close(sigfd);
		landlock_worker(&c, parent);
	}
	close(err_pipe[1]);
	err_pipe[1] = -1;
	r = supervise(pid, sigfd, err_pipe[0], status, err);
out:
	sbx_seccomp_prog_clear(&filter);
	for (int i = 0; i < 2; i++)
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	return r;
}

/*
 * The landlock backend (SPEC section 3): no namespaces. The worker is sbx's own child in the
 * caller's mount namespace: new session, dies with sbx, chdir, every capability dropped,
 * no_new_privs, Landlock (which alone decides what it may touch), seccomp last, execve.
 */
__attribute__((noreturn)) static void landlock_worker(const struct child_ctx *c, pid_t parent)
{
	struct sbx_error err = {0};

	worker_start(c, parent);
	/* An ordinary user (or a container's) has no CAP_SETPCAP to lock securebits and empty
	 * the bounding set: empty its own sets instead; no_new_privs next keeps exec from
	 * granting any. */
	if (sbx_caps_drop_all(&err) < 0 &&
	    (err.errnum != EPERM || sbx_caps_clear_unprivileged(&err) < 0))
		child_fail(c->err_fd, &err);
	worker_finish(c);
}
