/* SPDX-License-Identifier: MIT */
/*
 * The one place that applies a plan, in enforcement order (minijail_enter, nsjail's
 * containProc; docs/design.md, Enforcement order). The file reads in the order things run:
 *
 *   sbx (host)          seals the worker's spec; clone(NEWUSER|NEWNS|NEWPID|NEWIPC|
 *     NEWUTS|NEWCGROUP[|NEWNET]); forks the filter's builder; writes the child's uid/gid
 *     maps, then lets it go; then, beside init, as root streams the mount sources it
 *     clones and id-maps, and passes the builder's filter on (all on filter_fd); forwards
 *     signals; returns the status init tells, and reaps init last     (sbx_launch)
 *   init (pid 1)        becomes the inner ids; builds the mounts and pivots; loopback up;
 *     empties the bounding set; takes the filter; forks the worker, drops its own
 *     capabilities, reaps and forwards signals; when the worker ends, kills and reaps the
 *     rest and tells sbx the status                                          (init_main)
 *   worker (pid 2)      new session; dies with init; chdir; every capability dropped;
 *     no_new_privs; Landlock; seccomp last; the spec memfd at fd 3; execve (worker_main)
 *
 * Nested sandboxes (sbx run inside sbx, docs/design.md, Nesting) take this same path: the caller's
 * view is their "host", every source is cloned from it with the caller's read-only locks, and
 * each layer stacks its own no_new_privs, its own Landlock domain and its own seccomp filter,
 * which the kernel intersects with the parent's.
 *
 * The landlock backend (no namespaces) runs the worker as sbx's own child instead, with the
 * worker's same last steps: launch_landlock, at the end.
 *
 * Errors in init or the worker travel to sbx as one flat struct sbx_error over a
 * close-on-exec pipe (child_fail), read once the child has ended: a report means the launch
 * failed; none means the worker was exec'd and its status is sbx's.
 */
#include "os/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/broker.h"
#include "os/caps.h"
#include "os/cgroup.h"
#include "os/fd.h"
#include "os/keyring.h"
#include "os/landlock.h"
#include "os/limits.h"
#include "os/memfd.h"
#include "os/mounts.h"
#include "os/net.h"
#include "os/proc.h"
#include "os/reaper.h"
#include "os/seccomp.h"
#include "os/netproxy.h"
#include "os/supervisor.h"
#include "os/tty.h"
#include "os/userns.h"
#include "os/kapi.h"
#include "sbx/cleanup.h"
#include "sbx/trace.h"
#include "sbx/nest.h"

/* What a child of sbx (init, the worker) needs from it; only read after clone or fork. */
struct child_ctx {
	const struct sbx_plan *plan;
	char *const *argv;
	struct sbx_prepared *prep;
	bool prep_late; /* as root: sbx streams the prepared sources on filter_fd after clone */
	int err_fd;     /* write end of the error pipe */
	int spec_fd;    /* the sealed memfd with the worker's effective spec */
	int sync_fd; /* read end: one byte once the maps are written, EOF if sbx gave up or died */
	const struct sbx_seccomp_prog *filter; /* the landlock backend: built by sbx before fork */
	int filter_fd; /* namespaces: init's end of the socket sbx sends the filter on, and init
	                * sends the worker's status back on (init_tell_status), or -1 */
	struct sbx_supervisor *sup; /* NULL: nothing supervised */
	const struct sbx_tty *tty;  /* the caller's terminal; tty->active: a pty */
	int pty_sock;      /* init's end of the socket that takes the pty's master to sbx, or -1 */
	int pty_slave;     /* the worker's terminal, made before it is forked, or -1 */
	bool landlocked;   /* the landlock backend's reaper applied the Landlock layer already */
	int net_fd;        /* init's end of the proxy's socket pair (src/os/netproxy.c), or -1 */
	int net_parent_fd; /* sbx's end: init closes it */
};

/* The proxy and resolver for a plan with its own network namespace (sbx_launch_net). */
static struct sbx_netproxy *launch_net;

void sbx_launch_net(struct sbx_netproxy *proxy)
{
	launch_net = proxy;
}

static int seal_spec_and_build_filter(const struct sbx_plan *plan, int *spec_fd,
                                      struct sbx_seccomp_prog *filter, struct sbx_error *err);
static int seal_spec(const struct sbx_plan *plan, int *spec_fd, struct sbx_error *err);
static pid_t start_filter_builder(const struct sbx_plan *plan, pid_t init, int *out_fd,
                                  struct sbx_error *err);
static int send_filter(pid_t builder, int from, int fd, struct sbx_error *err);
static int recv_filter(int fd, struct sbx_seccomp_prog *filter, struct sbx_error *err);
static int supervise(pid_t *child, int sigfd, int err_fd, int status_fd, struct sbx_supervisor *sup,
                     struct sbx_tty *tty, bool landlock, int *status, struct sbx_error *err);
__attribute__((noreturn)) static void init_main(struct child_ctx *c);
static void init_tell_status(int fd, int code);
__attribute__((noreturn)) static void worker_main(const struct child_ctx *c);
static void worker_start(const struct child_ctx *c, pid_t parent);
__attribute__((noreturn)) static void worker_finish(const struct child_ctx *c);
static int launch_landlock(const struct sbx_plan *plan, char *const argv[],
                           struct sbx_supervisor *sup, struct sbx_tty *tty, int *status,
                           struct sbx_error *err);
__attribute__((noreturn)) static void landlock_worker(const struct child_ctx *c, pid_t parent);
__attribute__((noreturn)) static void reaper_main(const struct child_ctx *c, pid_t sbx);

/* init, told but not reaped (sbx_launch_reap); 0: none */
static pid_t unreaped;

void sbx_launch_reap(void)
{
	if (unreaped > 0)
		while (waitpid(unreaped, NULL, 0) < 0 && errno == EINTR)
			;
	unreaped = 0;
}

/* The limits of the next launch (sbx_launch_set_limits); NULL: none. */
static struct sbx_launch_limits *launch_limits;

void sbx_launch_set_limits(struct sbx_launch_limits *lim)
{
	launch_limits = lim;
}

static struct sbx_cgroup *limits_cg(void)
{
	return launch_limits ? launch_limits->cg : NULL;
}

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

/*
 * How every child of sbx fails: its error, whole, in one write on the error pipe (a struct
 * sbx_error has no pointers, and a write of less than PIPE_BUF bytes is atomic), then the exit
 * code its kind says. If sbx is gone, nobody reads: the write fails (or SIGPIPE ends the
 * child), which changes nothing.
 */
__attribute__((noreturn)) static void child_fail(int fd, const struct sbx_error *err)
{
	ssize_t n = write(fd, err, sizeof(*err));

	(void)n;
	_exit(sbx_error_exit_code(err));
}

/* ---- sbx, on the host: the namespaces backend ---- */

/* sbx_launch_on_start's hook: the record of running sandboxes (cmd/sbx/fleet.c) */
static void (*on_start_fn)(pid_t child, void *arg);
static void *on_start_arg;

void sbx_launch_on_start(void (*fn)(pid_t child, void *arg), void *arg)
{
	on_start_fn = fn;
	on_start_arg = arg;
}

/* A namespace made early (sbx_launch_prestart): the child that holds it, and sbx's end of the
 * socket on which it says 'r' (made) or 'x' (not), and whose close ends it. Two: the
 * sandbox's user namespace (with net, its network namespace too, loopback up), and, as root,
 * the user namespace that id-maps the binds (sbx_userns_idmap_fd). */
struct early_child {
	pid_t pid; /* 0: none */
	int fd;
	int fds[2]; /* while it starts: sbx's end, the child's */
	bool net;
	bool sandbox; /* the sandbox's: its mount, ipc and uts namespaces made too */
	char stack[16384] __attribute__((aligned(16)));
};
static struct early_child early = {.fd = -1}, early_idmap = {.fd = -1};

/*
 * The child shares sbx's memory (CLONE_VM): a fork would make every page sbx writes while it
 * plans a copy-on-write fault (~0.4 ms of a launch on these VMs). So it runs on a stack of
 * its own and makes its system calls raw, never through libc, which would set errno, and
 * errno is sbx's (the child has sbx's thread pointer). It blocks every signal first, so that
 * no handler of sbx's runs on its stack. Where there is no raw call for the architecture (or
 * under AddressSanitizer), nothing is made early.
 */
#if defined(__SANITIZE_ADDRESS__)
/* none: the sanitizer's runtime keeps state per thread, and the child would share sbx's */
#elif defined(__x86_64__)
#define EARLY_RAW 1
static long early_raw(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
	                 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
#define EARLY_RAW 1
static long early_raw(long nr, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
#endif

/* valgrind runs no CLONE_VM child that is not a thread (it stops the program): under it,
 * nothing is made early (tests/valgrind: the launch clones as before). */
#if defined(EARLY_RAW) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define EARLY_UNDER_VALGRIND() RUNNING_ON_VALGRIND
#else
#define EARLY_UNDER_VALGRIND() 0
#endif

/* The caller's per-user counts (/proc/sys/user, the host's user namespace's), read by the
 * sandbox's early child before it makes its namespaces, beside sbx's probe: host->ucount
 * (sbx_launch_prestart_ucounts). early_ucounts_ready is set (release) once they are all read. */
static long long early_ucounts[SBX_N_UCOUNTS];
static int early_ucounts_ready;

#ifdef EARLY_RAW
/* In the early child: /proc/sys/user/NAME, a decimal, by raw calls; -1 where it cannot be
 * read. */
static long long early_read_count(const char *name)
{
	char path[96] = "/proc/sys/user/", buf[32];
	size_t p = sizeof("/proc/sys/user/") - 1;
	long long v = 0;
	long f, n;

	for (; *name && p + 1 < sizeof(path); name++)
		path[p++] = *name;
	if (*name)
		return -1;
	path[p] = '\0';
	f = early_raw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (f < 0)
		return -1;
	n = early_raw(SYS_read, f, (long)buf, sizeof(buf) - 1, 0);
	early_raw(SYS_close, f, 0, 0, 0);
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + (buf[i] - '0');
	return v;
}

static int early_main(void *arg)
{
	const struct early_child *e = arg;
	long fd = e->fds[1], s;
	uint64_t all = ~(uint64_t)0;
	struct ifreq ifr;
	char c = 'x';
	long ok, up;

	early_raw(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, sizeof(all));
	/* nothing of sbx's descriptors but its own end: EOF must mean sbx, and no other early
	 * child's end (nor a pipe of the caller's) may be held open by this one; where that
	 * cannot be done (a filter that denies close_range), it says 'x' and ends at once */
	ok = early_raw(SYS_close, e->fds[0], 0, 0, 0) == 0 &&
	     (fd == 0 || early_raw(SYS_close_range, 0, fd - 1, 0, 0) == 0) &&
	     early_raw(SYS_close_range, fd + 1, ~0U, 0, 0) == 0;
	if (!ok) {
		early_raw(SYS_write, fd, (long)&c, 1, 0);
		return 0;
	}
	/* the host's per-user counts, for sbx's plan, before this child's namespaces exist (the
	 * files answer for the reader's user namespace) */
	if (e->sandbox) {
		for (size_t i = 0; i < SBX_N_UCOUNTS; i++)
			early_ucounts[i] = early_read_count(sbx_ucount_shares[i].name);
		__atomic_store_n(&early_ucounts_ready, 1, __ATOMIC_RELEASE);
	}
	/* The namespaces, and proof that it holds every capability in them: where an LSM
	 * lets an unprivileged process make a user namespace but not use it (AppArmor's
	 * apparmor_restrict_unprivileged_userns), the capability it would be denied here is
	 * one that init, joining with setns, might not be, so the launch makes them itself
	 * then, with clone, and meets the refusal sbx explains. The sandbox's mount, ipc and
	 * uts namespaces are that proof (each asks CAP_SYS_ADMIN there), made here, off the
	 * launch's way (a mount namespace's copy of the host's table and an ipc namespace's
	 * mqueue are ~25 us each); the id-mapping child's is a uts namespace it drops. */
	ok = early_raw(SYS_unshare, CLONE_NEWUSER | (e->net ? CLONE_NEWNET : 0), 0, 0, 0) == 0 &&
	     early_raw(SYS_unshare, CLONE_NEWUTS | (e->sandbox ? CLONE_NEWNS | CLONE_NEWIPC : 0), 0,
	               0, 0) == 0;
	if (ok)
		c = 'r';
	/* said: sbx may go on */
	if (early_raw(SYS_write, fd, (long)&c, 1, 0) != 1)
		return 0;
	/* loopback up, as sbx_net_loopback_up does it, once sbx may go on: ~70 us of the kernel's
	 * that sbx need not wait for (init brings it up itself where this is not done by then,
	 * or failed) */
	if (ok && e->net) {
		s = early_raw(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0);
		memset(&ifr, 0, sizeof(ifr));
		memcpy(ifr.ifr_name, "lo", 3);
		up = s >= 0 && early_raw(SYS_ioctl, s, SIOCGIFFLAGS, (long)&ifr, 0) == 0;
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (up)
			early_raw(SYS_ioctl, s, SIOCSIFFLAGS, (long)&ifr, 0);
		if (s >= 0)
			early_raw(SYS_close, s, 0, 0, 0);
	}
	/* held until sbx has the namespace and says so (a byte), or is gone (EOF) */
	{
		long n;

		do
			n = early_raw(SYS_read, fd, (long)&c, 1, 0);
		while (n == -EINTR);
	}
	return 0;
}

/* On another CPU than sbx's, which the scheduler would often give it: it would then hold sbx
 * off its planning for as long as it works (~0.5 ms). */
static void early_elsewhere(pid_t pid)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu >= 0 && sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_ISSET(cpu, &set) &&
	    CPU_COUNT(&set) > 1) {
		CPU_CLR(cpu, &set);
		(void)sched_setaffinity(pid, sizeof(set), &set);
	}
}

static void early_start(struct early_child *e, bool net)
{
	pid_t pid;

	if (e->pid || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, e->fds) < 0)
		return;
	e->net = net;
	e->sandbox = e == &early;
	/* no CLONE_FILES: its descriptors are a copy, closed when it ends */
	pid = clone(early_main, e->stack + sizeof(e->stack), CLONE_VM | SIGCHLD, e);
	close(e->fds[1]);
	if (pid < 0) {
		close(e->fds[0]);
		return;
	}
	e->pid = pid;
	e->fd = e->fds[0];
	early_elsewhere(pid);
}
#endif

bool sbx_launch_prestart(bool net)
{
#ifdef EARLY_RAW
	if (EARLY_UNDER_VALGRIND())
		return false;
	early_start(&early, net);
	if (geteuid() == 0)
		early_start(&early_idmap, false);
	return early.pid != 0;
#else
	(void)net;
	return false;
#endif
}

/* The child told to end (a byte: a copy of sbx's end that another child of sbx's holds, a
 * terminal keeper say, would keep EOF from it), reaped later (early_end): the launch need not
 * wait for its exit. */
static void early_release(struct early_child *e)
{
	if (e->fd >= 0) {
		/* MSG_NOSIGNAL: a child that is gone (it said 'x' and ended) is no SIGPIPE */
		ssize_t n = send(e->fd, "e", 1, MSG_NOSIGNAL);

		(void)n; /* gone already: nothing to tell */
		close(e->fd);
	}
	e->fd = -1;
}

static void early_end(struct early_child *e)
{
	early_release(e);
	if (e->pid)
		while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR)
			;
	e->pid = 0;
}

/* Its /proc directory, once it said 'r', opened while it is still there: it ends only when
 * sbx tells it to (or when sbx is gone), so a hang-up on its socket after the open means that
 * its pid may name another process by then. -1: none. */
static int early_procfd(const struct early_child *e)
{
	char path[64];
	struct pollfd pf = {.fd = e->fd, .events = POLLIN};
	int fd;

	snprintf(path, sizeof(path), "/proc/%d", (int)e->pid);
	fd = open(path, O_DIRECTORY | O_PATH | O_CLOEXEC);
	if (fd >= 0 && (poll(&pf, 1, 0) != 0 || pf.revents)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Its 'r', or false: not made (or not at all: no child). */
static bool early_made(struct early_child *e)
{
	char c = 0;
	ssize_t n;

	if (!e->pid || e->fd < 0)
		return false;
	do
		n = read(e->fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 && c == 'r';
}

bool sbx_launch_prestart_ucounts(long long *ucount)
{
	if (!early.pid || !__atomic_load_n(&early_ucounts_ready, __ATOMIC_ACQUIRE))
		return false;
	memcpy(ucount, early_ucounts, sizeof(early_ucounts));
	return true;
}

void sbx_launch_prestart_end(void)
{
	early_end(&early);
	early_end(&early_idmap);
}

/* The namespaces init joins from the early child (user, net, mnt, ipc, uts: the order they
 * are joined in); pid and cgroup are made at clone, the cgroup one in a --limit's cgroup. */
#define EARLY_NS 5

/* Shared with the vfork child of clone_early (CLONE_VM): init's pid, or the errno of what
 * failed. */
static volatile pid_t early_init;
static volatile int early_errno;
static volatile bool early_go; /* init's go byte written (clone_early_into) */

/* clone_early's vfork child: into the namespaces nsfd names (EARLY_NS, in types' order; -1:
 * none), the others made, init started; its pid in sbx, 0 in init, -1 if a step failed
 * (early_errno). */
static const int early_types[EARLY_NS] = {CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWIPC,
                                          CLONE_NEWUTS};

/* `rest`: the namespaces made here, those no descriptor names */
__attribute__((noinline)) static pid_t clone_early_into(const int nsfd[], unsigned long rest,
                                                        int go_fd)
{
	pid_t v;

	early_init = 0;
	early_errno = 0;
	early_go = false;
	v = vfork();
	if (v == 0) {
		pid_t p;

		/* the user namespace first: it gives the capabilities the others ask */
		for (size_t i = 0; i < EARLY_NS; i++) {
			if (nsfd[i] >= 0 && setns(nsfd[i], early_types[i]) < 0) {
				early_errno = errno;
				_exit(1);
			}
		}
		if (unshare((int)rest) < 0) {
			early_errno = errno;
			_exit(1);
		}
		/* init's go (its maps are written): in the pipe before init reads it, so that
		 * init never sleeps for it (waking a CPU that went idle is ~0.3 ms on VMs) */
		if (write(go_fd, "g", 1) != 1) {
			early_errno = errno;
			_exit(1);
		}
		early_go = true;
		p = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, NULL);
		if (p == 0)
			return 0; /* init: a copy of this memory, sbx's child */
		early_errno = p < 0 ? errno : 0;
		early_init = p;
		_exit(p < 0);
	}
	if (v > 0)
		while (waitpid(v, NULL, 0) < 0 && errno == EINTR)
			;
	return early_init > 0 ? early_init : -1;
}

/*
 * init, in the namespaces sbx_launch_prestart made: their id maps written (as for an init
 * cloned here), then a vfork child that joins the user, network, mount, ipc and uts
 * namespaces, makes the pid and cgroup ones (owned by that user namespace, as clone would
 * make them; the cgroup one where sbx_cgroup_enter put sbx for a --limit), and starts init with
 * CLONE_PARENT: sbx's child, pid 1 of the new pid namespace, a copy of sbx's memory as it is
 * here. Returns init's pid in sbx and 0 in init; -1 where they cannot be used (nothing was
 * made: the caller clones as usual).
 */
static pid_t clone_early(const struct sbx_plan *plan, unsigned long flags, const int sync[2])
{
	static const char *const names[EARLY_NS] = {"ns/user", "ns/net", "ns/mnt", "ns/ipc",
	                                            "ns/uts"};
	struct sbx_error e = {0};
	_cleanup_close_ int procfd = -1;
	int nsfd[EARLY_NS] = {-1, -1, -1, -1, -1};
	bool made, all = false;
	pid_t pid;

	if (!early.pid)
		return -1;
	made = early_made(&early);
	SBX_TRACE("sbx: early namespaces ready");
	if (made && (procfd = early_procfd(&early)) >= 0 &&
	    sbx_userns_write_maps_at(procfd, plan, &e) >= 0) {
		all = true;
		for (size_t i = 0; i < EARLY_NS; i++) {
			/* the host's network (--net host: one made early is left unused), or one
			 * the child did not make (it started before the plan said): made at clone
			 */
			if (i == 1 && !(plan->new_net && early.net))
				continue;
			nsfd[i] = openat(procfd, names[i], O_RDONLY | O_CLOEXEC);
			all = all && nsfd[i] >= 0;
		}
	}
	early_release(&early);
	SBX_TRACE("sbx: early namespaces mapped, opened");
	for (size_t i = 0; i < EARLY_NS; i++)
		if (nsfd[i] >= 0)
			flags &= ~(unsigned long)early_types[i];
	pid = all ? clone_early_into(nsfd, flags, sync[1]) : -1;
	for (size_t i = 0; i < EARLY_NS; i++)
		if (nsfd[i] >= 0)
			close(nsfd[i]);
	/* no init: the go byte taken back, for the init that clone makes next */
	if (pid < 0 && early_go) {
		char g;

		while (read(sync[0], &g, 1) < 0 && errno == EINTR)
			;
	}
	return pid;
}

/* The id-mapping user namespace made early (as root: sbx_launch_prestart), mapped and opened
 * into *userns_fd (-1: none made: sbx_userns_idmap_fd makes one), and its child told to end;
 * for a --root, whose sources are cloned before clone. (Where they are streamed to init
 * after clone, sbx_mounts_prepare_send maps it when its first id-mapped bind comes.) */
static int idmap_from_early(const struct sbx_plan *plan, int *userns_fd, struct sbx_error *err)
{
	if (plan->idmap_binds && *userns_fd < 0 && early_made(&early_idmap)) {
		_cleanup_close_ int procfd = early_procfd(&early_idmap);

		if (procfd >= 0) {
			sbx_userns_idmap_early(procfd);
			*userns_fd = sbx_userns_idmap_fd(plan, err);
			sbx_userns_idmap_early(-1);
			if (*userns_fd < 0) {
				early_release(&early_idmap);
				return *userns_fd;
			}
		}
	}
	early_release(&early_idmap);
	return 0;
}

int sbx_launch(const struct sbx_plan *plan, char *const argv[], struct sbx_supervisor *sup,
               int *status, struct sbx_error *err)
{
	_cleanup_(sbx_prepared_clear) struct sbx_prepared prep = {0};
	_cleanup_close_ int userns_fd = -1;
	_cleanup_close_ int spec_fd = -1;
	_cleanup_close_ int sigfd = -1;
	_cleanup_close_pair_ int err_pipe[2] = {-1, -1};
	_cleanup_close_pair_ int sync_pipe[2] = {-1, -1};
	_cleanup_close_pair_ int filter_pipe[2] = {-1, -1};
	_cleanup_close_pair_ int pty_sock[2] = {-1, -1};
	_cleanup_close_ int builder_fd = -1;
	/* the filter's builder, killed and reaped if the launch fails before its work is read */
	_cleanup_pid_ pid_t builder = 0;
	/* The caller's terminal: its mode is given back on every way out of here (the keeper
	 * does it if sbx is killed). */
	_cleanup_(sbx_tty_end) struct sbx_tty tty;
	/* Last, so that it is released first: a child left behind by a failure below is killed
	 * and reaped before its pipes close. */
	_cleanup_pid_ pid_t pid = 0;
	int net_fd = -1;
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
	                      CLONE_NEWUTS | CLONE_NEWCGROUP;
	bool early_used; /* init started in the namespaces made early (clone_early) */
	int r;

	/* A pty for the worker? Decided first, while sbx's signals are still the default
	 * ones: a stopped background job stays stopped until it is the terminal's. */
	r = sbx_tty_begin(&tty, plan->tty, err);
	if (r < 0)
		return r;
	SBX_TRACE("terminal decided");
	if (plan->backend_landlock) {
		sbx_launch_prestart_end(); /* no child of sbx's but the worker while it runs */
		return launch_landlock(plan, argv, sup, &tty, status, err);
	}
	if (plan->new_net)
		flags |= CLONE_NEWNET;
	/* init makes the pty in the sandbox's own devpts and sends sbx its master */
	if (tty.active && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pty_sock) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the socket for the worker's terminal: %s",
		                     strerror(errno));

	/* The filter is built by sbx after clone, while init builds the mounts on the other
	 * CPU, and sent to init over filter_pipe: a filter that cannot be built still refuses
	 * the launch before the worker exists (sbx fails, and init with it). */
	r = seal_spec(plan, &spec_fd, err);
	if (r < 0)
		return r;
	SBX_TRACE("spec sealed");
	/* As root, sources are cloned and id-mapped by sbx, where the privilege to id-map host
	 * file systems is: after clone, while init takes its ids (prep_late), and sent to it
	 * over filter_pipe; for a --root (its entries carry names) before clone.
	 * Unprivileged, init clones them in its own namespace. */
	bool prep_late = plan->idmap_binds;

	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_MIRROR)
			prep_late = false;
	/* the id-mapping namespace made early, as root (sbx_launch_prestart): mapped here for a
	 * --root's sources, cloned before clone; else after clone, where sbx streams them */
	if (!prep_late && (r = idmap_from_early(plan, &userns_fd, err)) < 0)
		return r;
	if (plan->idmap_binds && !prep_late) {
		if (userns_fd < 0)
			userns_fd = sbx_userns_idmap_fd(plan, err);
		if (userns_fd < 0)
			return userns_fd;
		r = sbx_mounts_prepare(plan, userns_fd, &prep, err);
		if (r < 0)
			return r;
		SBX_TRACE("sources cloned and id-mapped (root)");
	}
	/* The error pipe brings back init's or the worker's one report; the sync pipe holds init
	 * until its id maps are written (it has no ids of its own before), and tells it by EOF
	 * that sbx has died. */
	r = sbx_fd_pipe(err_pipe, "that carries the sandbox's errors", err);
	if (r >= 0)
		r = sbx_fd_pipe(sync_pipe, "that starts the sandbox", err);
	/* a socket, not a pipe: sent with MSG_NOSIGNAL, so that an init that failed before it
	 * read the filter costs sbx no SIGPIPE, and its report is the launch's error */
	if (r >= 0 && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, filter_pipe) < 0)
		r = sbx_error_set(err, SBX_ERR_SETUP, errno,
		                  "cannot make the socket that carries the seccomp filter: %s",
		                  strerror(errno));
	if (r < 0)
		return r;
	/* Blocked before clone, so that no signal is lost between clone and the loops; the
	 * worker unblocks them. */
	sigfd = sbx_proc_signalfd(err);
	if (sigfd < 0)
		return sigfd;
	/* The supervisor's sockets, before clone: the worker's listener fd and the performer
	 * reach sbx over them (src/os/supervisor.c). */
	if (sup && (r = sbx_supervisor_prepare(sup, err)) < 0)
		return r;
	/* The proxy's socket pair: init makes the listening sockets in the new network
	 * namespace and sends them to sbx over it (src/os/netns.c). */
	if (plan->new_net && launch_net && (r = sbx_netproxy_prepare(launch_net, &net_fd, err)) < 0)
		return r;

	/* Every namespace at once: the new user namespace is what allows an unprivileged caller
	 * the others, and owns them, so that nothing init does there reaches the host's. */
	/* Into the sandbox's cgroup for the clone: init starts there (and the new cgroup
	 * namespace is rooted there), so that nothing of the sandbox runs outside it. */
	if ((r = sbx_cgroup_enter(limits_cg(), err)) < 0)
		return r;
	SBX_TRACE("pipes, signals, sockets");
	pid = clone_early(plan, flags, sync_pipe);
	early_used = pid >= 0;
	if (!early_used)
		pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid != 0)
		sbx_cgroup_leave(limits_cg());
	if (pid < 0)
		return sbx_userns_explain(errno, plan->new_net, err);
	if (pid == 0) {
		struct child_ctx c = {
		    .plan = plan,
		    .argv = argv,
		    .prep = &prep,
		    .prep_late = prep_late,
		    .err_fd = err_pipe[1],
		    .spec_fd = spec_fd,
		    .filter_fd = filter_pipe[0],
		    .sync_fd = sync_pipe[0],
		    .sup = sup,
		    .tty = &tty,
		    .pty_sock = pty_sock[1],
		    .pty_slave = -1,
		    .net_fd = net_fd,
		    .net_parent_fd = net_fd >= 0 ? sbx_netproxy_parent_fd(launch_net) : -1,
		};

		/* out of the caller's job (and sbx's process group), here and in sbx: the
		 * terminal's signals reach sbx alone, which passes them on once (a second
		 * SIGINT pending here would swallow the one sbx sends) */
		SBX_TRACE("init: cloned");
		/* the id-mapping namespace is sbx's to use, not init's to hold, nor the socket
		 * of the child that made it, which sbx tells to end once it is mapped */
		if (userns_fd >= 0)
			close(TAKE_FD(userns_fd));
		if (early_idmap.fd >= 0)
			close(early_idmap.fd);
		setpgid(0, 0);
		/* init keeps only its ends: the sync pipe's EOF must mean that sbx is gone, and
		 * sbx's signals are sbx's to read. */
		close(err_pipe[0]);
		close(sync_pipe[1]);
		close(filter_pipe[1]);
		close(sigfd);
		if (pty_sock[0] >= 0)
			close(pty_sock[0]);
		init_main(&c);
	}

	setpgid(pid, pid); /* as init does itself: whichever runs first */
	/* sbx keeps only its ends: the error pipe's EOF must mean that the children are gone.
	 * The detached mounts are init's now. */
	close(TAKE_FD(err_pipe[1]));
	close(TAKE_FD(sync_pipe[0]));
	close(TAKE_FD(filter_pipe[0]));
	if (pty_sock[1] >= 0)
		close(TAKE_FD(pty_sock[1]));
	sbx_prepared_clear(&prep);
	if (sup)
		sbx_supervisor_parent_close(sup);
	/* the filter's builder, while sbx has no thread (a fork of a threaded process may
	 * inherit a lock held by a thread that is not there to release it) */
	builder = start_filter_builder(plan, early_used ? 0 : pid, &builder_fd, err);
	if (builder < 0) {
		builder = 0;
		return -EIO;
	}
	/* sbx serves the sandbox's proxy and resolver from here on (one thread; it closes
	 * init's end of the pair) */
	/* --net none's resolver answers in sbx's own loop (no thread to start and to join at
	 * the end); a supervisor's questions can hold that loop, so with one, a thread */
	if (net_fd >= 0 &&
	    (r = sbx_netproxy_start(launch_net, plan->net == SBX_NET_NONE && !sup, err)) < 0)
		return r;

	/* The id maps are written from outside, as only a process in the parent user namespace
	 * may: the caller's own ids unprivileged, an unprivileged host range as root (so that
	 * the worker is never the host's uid 0). */
	SBX_TRACE("sbx: cloned");
	r = early_used ? 0 : sbx_userns_write_maps(pid, plan, err);
	if (r < 0)
		return r;
	SBX_TRACE("sbx: id maps written");
	/* init's go; from the early path it is in the pipe already (clone_early_into) */
	if (!early_used && write(sync_pipe[1], "g", 1) != 1)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot start the sandbox: %s",
		                     strerror(errno));
	/* as root, the sources while init takes its ids; an init that is gone already
	 * reports why */
	if (prep_late) {
		/* each sent as soon as it is made: init builds meanwhile (the id-mapping
		 * namespace, the one made early, mapped when the first id-mapped bind comes,
		 * after the system mounts) */
		_cleanup_close_ int procfd =
		    early_made(&early_idmap) ? early_procfd(&early_idmap) : -1;

		sbx_userns_idmap_early(procfd);
		r = sbx_mounts_prepare_send(plan, &userns_fd, filter_pipe[1], err);
		sbx_userns_idmap_early(-1);
		early_release(&early_idmap);
		if (r < 0 && err->errnum != EPIPE && err->errnum != ECONNRESET)
			return r;
		SBX_TRACE("sbx: sources cloned, id-mapped and sent (root)");
	}
	/* The early children, told to end by now, reaped before init may start the worker (it
	 * waits for the filter): no child of sbx's but init (and the filter's builder) once the
	 * sandbox runs. */
	sbx_launch_prestart_end();
	/* while init builds the mounts */
	r = send_filter(builder, builder_fd, filter_pipe[1], err);
	builder = 0;
	if (r < 0 && err->errnum != EPIPE && err->errnum != ECONNRESET)
		return r;
	memset(err, 0, sizeof(*err));
	SBX_TRACE("sbx: filter built and sent");
	/* the record sbx ps lists, once nothing that refuses the launch is left before the
	 * worker's own start */
	if (on_start_fn)
		on_start_fn(pid, on_start_arg);
	/* The pty's master, once init has built the sandbox; none (init failed, its report
	 * follows, or no pty could be made with -t not given): the caller's mode comes back
	 * and the worker has sbx's descriptors. */
	if (tty.active) {
		int master = sbx_tty_recv_master(pty_sock[0]);

		if (master < 0)
			sbx_tty_end(&tty);
		else if ((r = sbx_tty_relay_start(&tty, master, err)) < 0)
			return r;
	}
	return supervise(&pid, sigfd, err_pipe[0], filter_pipe[1], sup, &tty, false, status, err);
}

/* What both backends need before any process of the sandbox exists: the worker's effective
 * spec sealed in a memfd (a launch without one is refused: SBX_SPEC_FD in the worker's
 * environment would name nothing, and a nested sbx would then refuse to start), and the
 * seccomp filter compiled, so that a bad one refuses early. *spec_fd is the caller's. */
static int seal_spec_and_build_filter(const struct sbx_plan *plan, int *spec_fd,
                                      struct sbx_seccomp_prog *filter, struct sbx_error *err)
{
	int r = seal_spec(plan, spec_fd, err);

	/* the rules --dry-run prints, resolved by core once the backend was settled */
	return r < 0 ? r : sbx_seccomp_build(&plan->seccomp_rules, filter, err);
}

static int seal_spec(const struct sbx_plan *plan, int *spec_fd, struct sbx_error *err)
{
	if (!plan->spec_blob)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: the plan carries no effective spec");
	*spec_fd = sbx_memfd_sealed(plan->spec_blob, plan->spec_len, err);
	return *spec_fd < 0 ? *spec_fd : 0;
}

/*
 * The seccomp filter is compiled in a child of sbx (the builder), forked right after clone
 * while sbx has no thread yet, so that libseccomp's few hundred KiB of heap are never kept by
 * sbx (every running sandbox's) and the work runs beside init's. It writes back on a pipe a
 * struct sbx_error (kind SBX_ERR_NONE when built), the program's length in instructions and
 * the instructions; sbx passes them on to init (send_filter) after the sources.
 *
 * With a network namespace of the sandbox's own, the builder first brings its loopback up from
 * outside (the kernel's IPv6 set-up of lo is ~0.2 ms, which then runs beside init's mounts
 * rather than after them): it joins init's namespace, which sbx may, as the owner of init's
 * user namespace or as root. Only an attempt: init brings loopback up itself once the
 * filter is there, which costs nothing if it is up, and is the step that counts if this failed
 * (a nested sbx whose filter denies setns, say).
 */
static void loopback_up_beside(pid_t init)
{
	char path[64];
	struct sbx_error e;
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)init);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && setns(fd, CLONE_NEWNET) == 0)
		(void)sbx_net_loopback_up(&e);
}

static pid_t start_filter_builder(const struct sbx_plan *plan, pid_t init, int *out_fd,
                                  struct sbx_error *err)
{
	int fds[2];
	pid_t pid;

	*out_fd = -1;
	if (sbx_fd_pipe(fds, "for the seccomp filter's builder", err) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		sbx_error_set(err, SBX_ERR_SETUP, errno,
		              "cannot start the seccomp filter's builder: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		struct sbx_seccomp_prog prog = {0};
		struct sbx_error e;
		bool ok;

		memset(&e, 0, sizeof(e));
		close(fds[0]);
		if (plan->new_net && init > 0)
			loopback_up_beside(init);
		(void)sbx_seccomp_build(&plan->seccomp_rules, &prog, &e);
		ok = write(fds[1], &e, sizeof(e)) == (ssize_t)sizeof(e);
		if (ok && e.kind == SBX_ERR_NONE) {
			const char *p = (const char *)prog.insns;
			size_t left = prog.len * sizeof(*prog.insns);

			ok =
			    write(fds[1], &prog.len, sizeof(prog.len)) == (ssize_t)sizeof(prog.len);
			while (ok && left) {
				ssize_t n = write(fds[1], p, left);

				if (n < 0 && errno == EINTR)
					continue;
				ok = n > 0;
				if (ok) {
					p += n;
					left -= (size_t)n;
				}
			}
		}
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	*out_fd = fds[0];
	return pid;
}

/* The builder's work (its pipe, from), reaped, and the program sent on to init on fd: its
 * length in instructions (a size_t), then the instructions. An error with errnum EPIPE: init
 * is gone (its report says why); a builder that ended without a word is EIO. */
static int send_filter(pid_t builder, int from, int fd, struct sbx_error *err)
{
	_cleanup_(sbx_seccomp_prog_clear) struct sbx_seccomp_prog prog = {0};
	struct sbx_error got;
	struct iovec iov[2];
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	int r;

	memset(&got, 0, sizeof(got));
	r = sbx_fd_read_all(from, &got, sizeof(got));
	if (r >= 0 && got.kind != SBX_ERR_NONE) {
		while (waitpid(builder, NULL, 0) < 0 && errno == EINTR)
			;
		got.msg[sizeof(got.msg) - 1] = '\0';
		got.hint[sizeof(got.hint) - 1] = '\0';
		got.file[sizeof(got.file) - 1] = '\0';
		*err = got;
		return got.errnum > 0 ? -got.errnum : -EINVAL;
	}
	if (r >= 0)
		r = sbx_fd_read_all(from, &prog.len, sizeof(prog.len));
	if (r >= 0 && (prog.len == 0 || prog.len > BPF_MAXINSNS))
		r = -EINVAL;
	if (r >= 0 && !(prog.insns = calloc(prog.len, sizeof(*prog.insns))))
		r = -ENOMEM;
	if (r >= 0)
		r = sbx_fd_read_all(from, prog.insns, prog.len * sizeof(*prog.insns));
	while (waitpid(builder, NULL, 0) < 0 && errno == EINTR)
		;
	/* not EPIPE: a builder that died says nothing of init, and init waits for a filter */
	if (r < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, EIO,
		                     "the seccomp filter's builder ended without a word");
	iov[0] = (struct iovec){&prog.len, sizeof(prog.len)};
	iov[1] = (struct iovec){prog.insns, prog.len * sizeof(*prog.insns)};
	while (msg.msg_iovlen) {
		ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot send the seccomp filter to the sandbox: %s",
			                     strerror(errno));
		while (msg.msg_iovlen && (size_t)n >= msg.msg_iov->iov_len) {
			n -= (ssize_t)msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen) {
			msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + n;
			msg.msg_iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* init: the filter sbx sent (send_filter); EOF or a short read: sbx failed or died. */
static int recv_filter(int fd, struct sbx_seccomp_prog *filter, struct sbx_error *err)
{
	size_t len = 0;
	int r = sbx_fd_read_all(fd, &len, sizeof(len));

	if (r >= 0 && (len == 0 || len > BPF_MAXINSNS))
		r = -EINVAL;
	if (r >= 0) {
		filter->insns = calloc(len, sizeof(*filter->insns));
		if (!filter->insns)
			r = -ENOMEM;
	}
	if (r >= 0) {
		filter->len = len;
		r = sbx_fd_read_all(fd, filter->insns, len * sizeof(*filter->insns));
	}
	if (r < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -r, "init: no seccomp filter from sbx: %s",
		                     r == -EPIPE ? "sbx ended" : strerror(-r));
	return 0;
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

/*
 * sbx for the rest of the run: pass signals on, stop with ^Z, serve the supervisor's listener,
 * and once *child has ended (it is reaped here, and *child becomes 0) return its report as
 * the launch's error, or its status in *status. If the supervisor can no longer answer (its
 * performer died while the worker lives), the whole sandbox is killed and the launch fails
 * with that error: a supervised call must never get ENOSYS from a live worker's kernel.
 */
/* The signals sbx read from its signalfd while a broker was asked (sbx_broker_cancel): handled
 * by the loop once the question is over. */
struct sig_queue {
	int fd;
	sigset_t got;
};

/* Read what the signalfd holds; a signal that ends sbx cancels the question. */
static bool sig_cancel(void *ctx)
{
	struct sig_queue *q = ctx;

	for (;;) {
		struct pollfd p = {q->fd, POLLIN, 0};
		struct signalfd_siginfo si;

		if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN) ||
		    read(q->fd, &si, sizeof(si)) != sizeof(si))
			break;
		sigaddset(&q->got, (int)si.ssi_signo);
	}
	return sigismember(&q->got, SIGTERM) == 1 || sigismember(&q->got, SIGINT) == 1 ||
	       sigismember(&q->got, SIGHUP) == 1 || sigismember(&q->got, SIGQUIT) == 1;
}

/* One signal for sbx: pass it on, stop with ^Z; true once *child has ended (reaped). */
static bool on_signal(pid_t *child, const struct signalfd_siginfo *si, struct sbx_tty *tty,
                      int *wstatus)
{
	int signo = (int)si->ssi_signo;

	if (signo == SIGTSTP || signo == SIGTTIN || signo == SIGTTOU) {
		/* ^Z: stop the sandbox's worker, then ourselves, as the shell expects, with the
		 * caller's terminal mode given back meanwhile; its SIGCONT comes back here and
		 * is passed on. */
		kill(*child, SIGTSTP);
		sbx_tty_suspend(tty);
		raise(SIGSTOP);
		sbx_tty_resume(tty);
		return false;
	}
	if (signo == SIGWINCH && tty->master >= 0) {
		/* the pty's new size: the kernel signals the worker's foreground job */
		sbx_tty_winch(tty);
		return false;
	}
	if (signo != SIGCHLD) {
		/* init (the reaper) forwards it to the worker, or to its whole job */
		sbx_proc_forward(*child, si);
		return false;
	}
	if (waitpid(*child, wstatus, WNOHANG) == *child) {
		*child = 0;
		return true;
	}
	return false;
}

/* End the whole sandbox now: init's death takes its pid namespace; under the landlock backend
 * the reaper kills every process of the worker's, then itself; and the cgroup, where there is
 * one, is killed whole. */
static void end_sandbox(pid_t child, bool landlock)
{
	union sigval v = {.sival_int = 0};

	if (child > 0 && (!landlock || sigqueue(child, SBX_REAPER_END_SIGNAL, v) < 0))
		kill(child, SIGKILL);
	sbx_cgroup_kill(limits_cg());
}

static int supervise(pid_t *child, int sigfd, int err_fd, int status_fd, struct sbx_supervisor *sup,
                     struct sbx_tty *tty, bool landlock, int *status, struct sbx_error *err)
{
	struct sbx_error rep, sup_err;
	struct sig_queue queue = {.fd = sigfd};
	size_t got = 0;
	bool err_open = true, sup_failed = false;
	int wstatus = W_EXITCODE(125, 0); /* what sbx says if the child's status is lost */
	_cleanup_close_ int timer = -1;
	int timer_fd = -1;
	bool told = false; /* init told the status (init_tell_status) */

	memset(&rep, 0, sizeof(rep));
	memset(&sup_err, 0, sizeof(sup_err));
	sigemptyset(&queue.got);
	if (launch_limits && launch_limits->timeout_ms) {
		struct itimerspec its = {
		    .it_value = {(time_t)(launch_limits->timeout_ms / 1000),
		                 (long)(launch_limits->timeout_ms % 1000) * 1000000L}};

		timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (timer < 0 || timerfd_settime(timer, 0, &its, NULL) < 0) {
			end_sandbox(*child, landlock);
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot start the timeout's timer: %s",
			                     strerror(errno));
		}
		timer_fd = timer;
	}
	if (sup) {
		/* a SIGTERM or ^C while a broker is asked denies the question at once, then
		 * ends the sandbox as usual, instead of waiting for the broker's timeout */
		const struct sbx_broker_cancel cancel = {sigfd, sig_cancel, &queue};

		sbx_supervisor_set_cancel(sup, &cancel);
	}
	for (;;) {
		struct pollfd p[6 + SBX_TTY_POLLFDS + SBX_SUP_POLLFDS] = {
		    {sigfd, POLLIN, 0}, {err_open ? err_fd : -1, POLLIN, 0}};
		struct pollfd *tp = p + 2;
		size_t np = 2 + SBX_TTY_POLLFDS, lim_at;
		bool ended = false, sup_polled = false;

		/* the worker's terminal: its bytes both ways (fds -1 without one); none of the
		 * caller's keys while the terminal's broker asks (they are its answer) */
		sbx_tty_pollfds(tty, tp);
		if (sbx_supervisor_asks_tty(sup))
			tp[1].fd = -1;
		if (sup && !sup_failed) {
			sbx_supervisor_pollfd(sup, p + np);
			np += SBX_SUP_POLLFDS;
			sup_polled = true;
		}
		/* the limits: the timeout's timer, v1's oom event */
		lim_at = np;
		p[np++] = (struct pollfd){timer_fd, POLLIN, 0};
		p[np++] = (struct pollfd){sbx_cgroup_oom_fd(limits_cg()), POLLIN, 0};
		p[np++] = (struct pollfd){status_fd, POLLIN, 0};
		p[np++] = (struct pollfd){sbx_netproxy_pollfd(launch_net), POLLIN, 0};
		if (poll(p, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			end_sandbox(*child, landlock);
			break;
		}
		if (p[lim_at].revents) {
			/* the timeout: the whole sandbox goes, as timeout(1) would take it */
			launch_limits->timed_out = true;
			timer_fd = -1;
			end_sandbox(*child, landlock);
		}
		if (p[lim_at + 1].revents)
			sbx_cgroup_on_oom(limits_cg());
		if (p[lim_at + 3].revents)
			sbx_netproxy_service(launch_net);
		if (p[lim_at + 2].revents) {
			int code;

			/* the worker's status, every other process of the sandbox gone; EOF:
			 * init ended without telling (killed), its own end says the rest */
			if (recv(status_fd, &code, sizeof(code), MSG_DONTWAIT) == sizeof(code) &&
			    code >= 0 && code <= 255) {
				wstatus = W_EXITCODE(code, 0);
				told = true;
				break;
			}
			status_fd = -1;
		}
		if (tty->master >= 0)
			sbx_tty_handle(tty, tp);
		if (sup_polled) {
			int r = sbx_supervisor_handle(sup, p + 2 + SBX_TTY_POLLFDS, &sup_err);

			if (r != 0) {
				/* lost (1) or a failed start (< 0): the sandbox ends now */
				sup_failed = true;
				end_sandbox(*child, landlock);
			}
		}
		/* what came while a broker was asked, as if it had come now */
		for (int sig = 1; sig < NSIG && !ended; sig++) {
			if (sigismember(&queue.got, sig) == 1) {
				struct signalfd_siginfo si = {.ssi_signo = (uint32_t)sig,
				                              .ssi_code = SI_USER};

				sigdelset(&queue.got, sig);
				ended = on_signal(child, &si, tty, &wstatus);
			}
		}
		if (ended)
			break;
		if (p[1].revents && read_report(err_fd, &rep, &got))
			err_open = false;
		if (p[0].revents) {
			struct pollfd now = {sigfd, POLLIN, 0};
			struct signalfd_siginfo si;

			/* the queue may have taken what poll saw */
			if (poll(&now, 1, 0) <= 0 || read(sigfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (on_signal(child, &si, tty, &wstatus))
				break;
		}
	}
	/* Told: init is ending, alone in its namespaces, and their teardown (every mount) is
	 * the kernel's work, not the caller's wait. A cgroup must be empty to be removed: with
	 * one, sbx waits for init all the same. */
	if (told && !limits_cg()) {
		unreaped = *child;
		*child = 0;
	}
	if (*child > 0 && waitpid(*child, told ? NULL : &wstatus, 0) < 0 && errno != ECHILD)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "waitpid: %s", strerror(errno));
	*child = 0;
	/* Under the landlock backend what the worker started is not in a pid namespace that
	 * ends with it: its cgroup, where there is one, is killed whole. */
	if (landlock)
		sbx_cgroup_kill(limits_cg());
	/* Every process of the sandbox is gone: what its terminal still holds is the last of
	 * its output. */
	sbx_tty_drain(tty);
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
	/* a limit (the timeout, the memory limit's oom kill) killed the performer with the
	 * rest: no supervisor failure */
	if (sup_failed && !(launch_limits && launch_limits->timed_out) &&
	    !sbx_cgroup_oom_seen(limits_cg())) {
		if (err)
			*err = sup_err;
		return sup_err.errnum > 0 ? -sup_err.errnum : -EPIPE;
	}
	*status = launch_limits && launch_limits->timed_out ? 124 : sbx_proc_status_code(wstatus);
	return 0;
}

/* ---- init, pid 1 of the sandbox ---- */

/*
 * In the new namespaces, owned by the new user namespace: wait for the id maps, become the
 * inner ids, build the mounts, start the worker, then reap and forward signals until the
 * worker ends. Every failure goes to sbx over the error pipe.
 */
__attribute__((noreturn)) static void init_main(struct child_ctx *c)
{
	struct sbx_error err = {0};
	int sigfd, r;
	pid_t worker;
	char go;

	/* Die with sbx: a sandbox whose sbx is gone would run on with nobody to forward its
	 * signals or relay its status. */
	if (sbx_proc_die_with_parent(&err) < 0)
		child_fail(c->err_fd, &err);
	/* Wait for the id maps: until sbx has written them, this process's ids are unmapped in
	 * its own namespace and it cannot become anyone. EOF instead of the byte: sbx gave up
	 * (it kills init then) or died before PDEATHSIG was armed; sbx reads the report only
	 * in the first case, if at all. */
	do
		r = (int)read(c->sync_fd, &go, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1) {
		sbx_error_set(&err, SBX_ERR_SETUP, r < 0 ? errno : EPIPE,
		              "sbx ended before the sandbox's id maps were written");
		child_fail(c->err_fd, &err);
	}
	/* The caller's per-user counts are not the sandbox's to spend: its user namespace gets a
	 * share of each (include/sbx/limits.h), written while init still holds CAP_SYS_RESOURCE
	 * there, before it becomes the inner ids. */
	if (sbx_limits_set_userns_counts(c->plan, &err) < 0)
		child_fail(c->err_fd, &err);

	/* Become the mapped user: the plan's inner ids, which the maps make the caller's own
	 * outside (or an unprivileged range, as root), so that what the worker creates belongs
	 * to them and nothing runs as an unmapped id. */
	if (sbx_userns_become(c->plan, &err) < 0)
		child_fail(c->err_fd, &err);
	SBX_TRACE("init: counts shared, ids taken");
	/* A change of effective ids clears the parent-death signal: arm it again, then make
	 * sure sbx did not die in between (its end of the sync pipe stays open while it
	 * lives). */
	if (sbx_proc_die_with_parent(&err) < 0)
		child_fail(c->err_fd, &err);
	{
		struct pollfd p = {c->sync_fd, POLLIN, 0};

		if (poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR))) {
			sbx_error_set(&err, SBX_ERR_SETUP, EPIPE,
			              "sbx ended while the sandbox was starting");
			child_fail(c->err_fd, &err);
		}
	}
	close(c->sync_fd);

	/* Build the mounts: every source opened once without following a symlink a worker could
	 * have planted, cloned detached with its read-only and no-exec flags set before it is
	 * attached, in sbx's own tmpfs; then pivot_root into it, so that nothing of the host is
	 * seen that the plan does not mount. Unprivileged, the sources are cloned here, by the
	 * namespace that owns this mount namespace; as root sbx cloned them before clone. */
	if (!c->plan->idmap_binds && sbx_mounts_prepare(c->plan, -1, c->prep, &err) < 0)
		child_fail(c->err_fd, &err);
	if (c->prep_late && sbx_prepared_stream(c->prep, c->plan, c->filter_fd, &err) < 0)
		child_fail(c->err_fd, &err);
	SBX_TRACE("init: sources cloned");
	if (sbx_mounts_build(c->plan, c->prep, &err) < 0)
		child_fail(c->err_fd, &err);
	SBX_TRACE("init: pivoted");
	/* attached or dropped: the worker must not inherit the detached mounts' descriptors */
	sbx_prepared_clear(c->prep);
	/* the worker's filter, which sbx built meanwhile (its builder brought loopback up
	 * first, from outside: start_filter_builder) */
	if (c->filter_fd >= 0) {
		static struct sbx_seccomp_prog received;

		if (recv_filter(c->filter_fd, &received, &err) < 0)
			child_fail(c->err_fd, &err);
		c->filter = &received; /* the socket stays: init tells the status on it */
		SBX_TRACE("init: filter received");
	}
	/* A new network namespace has every interface down: bring loopback up, which
	 * programs expect to answer (--net none is loopback only). Up already, as a rule: then
	 * this only reads and sets the flags it has. */
	if (c->plan->new_net && sbx_net_loopback_up(&err) < 0)
		child_fail(c->err_fd, &err);
	/* sbx's resolver (and, with an allowlist, its proxies) on that loopback: the sockets
	 * are made here, in the namespace, and served by sbx from outside; the sandbox's
	 * /etc/resolv.conf names it. */
	if (c->net_fd >= 0) {
		close(c->net_parent_fd);
		if (sbx_netns_sockets(c->net_fd, c->plan->net >= SBX_NET_ALLOW, &err) < 0 ||
		    (c->plan->resolv_overlay && sbx_netns_resolv_conf(&err) < 0))
			child_fail(c->err_fd, &err);
	}

	/* The worker's terminal, from the sandbox's own devpts (its /dev/pts/N is what the
	 * worker's ttyname(3) finds): the master goes to sbx, the slave to the worker. Without
	 * -t a failure only costs the pty. */
	if (c->tty->active) {
		int master = sbx_tty_open_pty(c->tty, "/dev/pts/ptmx", &c->pty_slave, &err);

		if (master < 0 && c->plan->tty == SBX_TTY_ALWAYS)
			child_fail(c->err_fd, &err);
		if (sbx_tty_send_master(c->pty_sock, master) < 0 && master >= 0) {
			sbx_error_set(&err, SBX_ERR_SETUP, EPIPE,
			              "cannot hand the worker's terminal to sbx");
			child_fail(c->err_fd, &err);
		}
		if (master >= 0)
			close(master);
	}
	if (c->pty_sock >= 0)
		close(c->pty_sock);
	/* sbx's: the pipe its terminal keeper watches must close when sbx dies */
	if (c->tty->keeper >= 0)
		close(c->tty->keeper);

	/* init's own signalfd, for the signals sbx forwards and for its children's ends (the
	 * mask blocking them is inherited from sbx). */
	sigfd = sbx_proc_signalfd(&err);
	if (sigfd < 0)
		child_fail(c->err_fd, &err);
	SBX_TRACE("init: loopback, resolver, terminal");
	/* The bounding set emptied and the securebits locked before the worker is forked: it
	 * inherits both, and its own drop only has to read that they hold (one system call a
	 * capability rather than three). init needs neither for what it still does. */
	if (sbx_caps_drop_bound(&err) < 0) {
		sbx_error_wrap(&err, "init");
		child_fail(c->err_fd, &err);
	}
	SBX_TRACE("init: bounding set dropped");
	/* vfork: the worker borrows init's memory until it execs (init is suspended till
	 * then), which spares copying page tables, the dearest part of a launch on VMs. The
	 * worker only makes system calls and writes its own stack frame before exec/_exit.
	 * Supervised too: the worker makes the performer with a raw clone (no glibc fork, whose
	 * handlers would write init's memory), which copies the memory it borrows. */
	/* The detached trees the build left (the masks' source, a data file's tmpfs): the last
	 * close of one waits for an RCU grace period, which the worker need not wait for: init
	 * is back once the worker has exec'd, and closes them then. */
	worker = vfork();
	if (worker < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "cannot start the worker: %s",
		              strerror(errno));
		child_fail(c->err_fd, &err);
	}
	if (worker == 0) {
		close(sigfd); /* init's: the worker reads no signalfd */
		worker_main(c);
	}
	sbx_mounts_close_deferred();
	/* the supervisor's sockets are the worker's and the performer's, never init's; the
	 * terminal is the worker's (the master's EIO then means the sandbox let go of it) */
	if (c->sup)
		sbx_supervisor_child_close(c->sup);
	if (c->pty_slave >= 0)
		close(c->pty_slave);

	/* init keeps nothing it does not need: no capabilities, no way to be ptraced or to
	 * have its memory read through /proc/1, no privilege an exec could give. Before the
	 * error pipe closes, so that a failure here still reaches sbx (the worker, already
	 * running, is killed). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		r = sbx_error_set(&err, SBX_ERR_SETUP, errno,
		                  "init: cannot clear its dumpable flag: %s", strerror(errno));
	else if ((r = sbx_caps_clear_sets(&err)) < 0)
		sbx_error_wrap(&err, "init");
	else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		r = sbx_error_set(&err, SBX_ERR_SETUP, errno, "init: cannot set no_new_privs: %s",
		                  strerror(errno));
	if (r < 0) {
		kill(worker, SIGKILL);
		child_fail(c->err_fd, &err);
	}
	/* The error pipe is the worker's alone from here: it closes at the worker's exec. The
	 * loop's own failure (reading its signalfd) has nobody to tell: init ends with 125. */
	close(c->err_fd);
	r = sbx_proc_init_loop(worker, sigfd);
	SBX_TRACE("init: worker reaped");
	if (c->filter_fd >= 0)
		init_tell_status(c->filter_fd, r);
	_exit(r);
}

/*
 * The worker has ended (its status code in code): kill every other process of the sandbox and
 * reap them all, then tell sbx the status on fd, so that sbx can return it without waiting
 * for init's own end, whose teardown of the namespaces (every mount) is long and is the
 * kernel's alone. Only init's children are left to reap: every process of the pid namespace
 * descends from it, and orphans come back to it. kill(-1) reaches all of them: none can hold
 * an id other than init's (no capability, no_new_privs), and SIGKILL ends the stopped too.
 * Each round kills again what a fork in flight may have made since.
 */
static void init_tell_status(int fd, int code)
{
	for (;;) {
		kill(-1, SIGKILL);
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
			break;
	}
	/* and init lets go of the caller's descriptors: a caller reading the output to its end
	 * (`out=$(sbx run ...)`) has it once sbx has ended */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	(void)send(fd, &code, sizeof(code), MSG_NOSIGNAL);
}

/* ---- the worker ---- */

__attribute__((noreturn)) static void worker_main(const struct child_ctx *c)
{
	struct sbx_error err = {0};

	SBX_TRACE("worker: forked");
	if (c->filter_fd >= 0)
		close(c->filter_fd); /* init's, to tell sbx the status: never the worker's */
	worker_start(c, 1);          /* init is pid 1 */
	SBX_TRACE("worker: session, cwd");
	/* Every capability dropped: in the user namespace that owns its mounts the worker may
	 * hold them all (as uid 0 there it does), and with one left it could unmount the masks
	 * that hide paths or remount a read-only bind read-write. Bounding and ambient sets too,
	 * and the securebits locked, so that no exec gives one back. */
	if (sbx_caps_drop_all(&err) < 0)
		child_fail(c->err_fd, &err);
	SBX_TRACE("worker: capabilities dropped");
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

	/* The program gets the signal mask and the SIGXFSZ disposition its caller gave sbx, not
	 * what sbx set for itself. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (xfsz_guarded)
		sigaction(SIGXFSZ, &caller_xfsz, NULL);
	if (setsid() < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "setsid: %s", strerror(errno));
		child_fail(c->err_fd, &err);
	}
	/* Its own pty as its controlling terminal (job control, /dev/tty), in place of the
	 * caller's terminal: TIOCSTI and terminal modes reach only the sandbox's. */
	if (c->pty_slave >= 0 && sbx_tty_attach(c->pty_slave, c->tty->fds, &err) < 0)
		child_fail(c->err_fd, &err);
	if (sbx_proc_die_with_parent(&err) < 0)
		child_fail(c->err_fd, &err);
	if (getppid() != parent) {
		/* Its parent ended before PDEATHSIG was armed. Under namespaces that was init,
		 * whose end takes the whole pid namespace with it; under the landlock backend it
		 * was sbx, and nobody reads this. */
		sbx_error_set(&err, SBX_ERR_SETUP, ESRCH,
		              "the worker's parent ended before the worker started");
		child_fail(c->err_fd, &err);
	}
	/* The working directory the plan chose, inside the sandbox: relative paths in the
	 * command mean what the caller meant. */
	if (chdir(c->plan->cwd) < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno,
		              "cannot change to the working directory %s inside the sandbox: %s",
		              c->plan->cwd, strerror(errno));
		sbx_error_hint(&err, "create it, or choose a directory the sandbox shows with -w "
		                     "DIR");
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

	/* no_new_privs: no exec can grant privileges again (set-uid files, file capabilities),
	 * and it lets an unprivileged process restrict itself with Landlock and seccomp. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "cannot set no_new_privs: %s",
		              strerror(errno));
		child_fail(err_fd, &err);
	}
	/* rlimits (--limit nofile, fsize; pids in a user namespace of its own; a share of the
	 * per-user counts): inherited by everything the worker starts, and only lowered. */
	if (sbx_limits_apply_rlimits(c->plan, &err) < 0)
		child_fail(err_fd, &err);
	SBX_TRACE("worker: no_new_privs, rlimits");
	/* Landlock: per-operation rights, once no_new_privs is set (which lets an unprivileged
	 * process restrict itself) and before seccomp, which comes last. */
	if (!c->landlocked && sbx_landlock_enforce(&c->plan->landlock, &err) < 0)
		child_fail(err_fd, &err);
	/* Under the landlock backend the reaper holds the sandbox's layer (reaper_main): one more
	 * layer here that only scopes signals puts the worker in a domain below the reaper's, so
	 * that nothing of the sandbox can kill the reaper and outlive it. */
	if (c->landlocked && sbx_landlock_scope_signal(c->plan->landlock.abi, &err) < 0)
		child_fail(err_fd, &err);
	SBX_TRACE("worker: Landlock");
	/* Only 0, 1, 2 and the spec memfd reach the worker (docs/design.md, Enforcement order):
	 * everything else closes at exec. The memfd goes to a fixed number, SBX_SPEC_FD names it;
	 * the error pipe moves out of the way first if it sits there. */
	if (sbx_fd_cloexec_from(3, &err) < 0)
		child_fail(err_fd, &err);
	if (err_fd == SBX_SPEC_FD_NUMBER) {
		err_fd = fcntl(c->err_fd, F_DUPFD_CLOEXEC, SBX_SPEC_FD_NUMBER + 1);
		if (err_fd < 0) {
			sbx_error_set(&err, SBX_ERR_SETUP, errno,
			              "cannot move the error pipe off fd %d: %s",
			              SBX_SPEC_FD_NUMBER, strerror(errno));
			child_fail(c->err_fd, &err); /* still open where it was */
		}
	}
	if (sbx_fd_pass(c->spec_fd, SBX_SPEC_FD_NUMBER, &err) < 0)
		child_fail(err_fd, &err);

	/* The worker's session keyring is its own, not the caller's: the caller's keys stay out
	 * of reach. Before the filter, which denies keyctl. */
	if (sbx_keyring_new_session(&err) < 0)
		child_fail(err_fd, &err);
	SBX_TRACE("worker: descriptors, keyring");
	/* seccomp last: nothing above needs a call it may deny. */
	if (sbx_seccomp_install(c->filter, &err) < 0)
		child_fail(err_fd, &err);
	/* The supervisor after the main filter: the performer it forks has exactly the
	 * worker's rights, and the listener filter comes last, so that nothing above stops in
	 * it. The listener fd goes to sbx and none of it stays here. */
	if (c->sup && sbx_supervisor_arm(c->sup, &err) < 0)
		child_fail(err_fd, &err);
	SBX_TRACE("worker: seccomp; execve");
	sbx_proc_exec(c->argv, c->plan->envp, &err);
	child_fail(err_fd, &err);
}

/* ---- the landlock backend (docs/design.md, The model) ---- */

/*
 * No namespaces: the worker runs in the caller's mount namespace, a child of the reaper
 * (os/reaper.h), which is sbx's child and stands where init stands under the namespaces
 * backend: it forwards signals, reaps, and ends every process of the sandbox when the worker
 * ends or sbx does. sbx seals the spec and builds the filter as above, forks the reaper, and
 * supervises it as it supervises init.
 */
static int launch_landlock(const struct sbx_plan *plan, char *const argv[],
                           struct sbx_supervisor *sup, struct sbx_tty *tty, int *status,
                           struct sbx_error *err)
{
	_cleanup_close_ int pty_slave = -1;
	_cleanup_(sbx_seccomp_prog_clear) struct sbx_seccomp_prog filter = {0};
	_cleanup_close_ int spec_fd = -1;
	_cleanup_close_ int sigfd = -1;
	_cleanup_close_pair_ int err_pipe[2] = {-1, -1};
	_cleanup_pid_ pid_t pid = 0; /* last: killed and reaped before its pipe closes */
	pid_t parent = getpid();
	int r;

	/* Fail closed: without Landlock nothing at all would confine the worker. */
	if (!plan->landlock.enabled)
		return sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
		    "the landlock backend needs Landlock, which this kernel lacks");
	r = seal_spec_and_build_filter(plan, &spec_fd, &filter, err);
	if (r < 0)
		return r;
	/* No devpts of its own: the worker's terminal comes from the host's multiplexer, made
	 * here, before any process of the sandbox exists. Without -t a failure only costs the
	 * pty. */
	if (tty->active) {
		struct sbx_error pty_err = {0};
		int master = sbx_tty_open_pty(tty, "/dev/ptmx", &pty_slave, &pty_err);

		if (master < 0 && plan->tty == SBX_TTY_ALWAYS) {
			if (err)
				*err = pty_err;
			return master;
		}
		if (master < 0)
			sbx_tty_end(tty);
		else if ((r = sbx_tty_relay_start(tty, master, err)) < 0)
			return r;
	}
	r = sbx_fd_pipe(err_pipe, "that carries the sandbox's errors", err);
	if (r < 0)
		return r;
	/* Blocked before fork, so that none is lost; the worker unblocks them. The reaper's end
	 * signal too: sent before the reaper reads it, it would kill the reaper unswept. */
	sigfd = sbx_proc_signalfd(err);
	if (sigfd < 0)
		return sigfd;
	{
		sigset_t end;

		sigemptyset(&end);
		sigaddset(&end, SBX_REAPER_END_SIGNAL);
		sigprocmask(SIG_BLOCK, &end, NULL);
	}
	if (sup && (r = sbx_supervisor_prepare(sup, err)) < 0)
		return r;
	if ((r = sbx_cgroup_enter(limits_cg(), err)) < 0)
		return r;
	pid = fork();
	if (pid != 0)
		sbx_cgroup_leave(limits_cg());
	if (pid < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot start the worker: %s",
		                     strerror(errno));
	if (pid == 0) {
		struct child_ctx c = {.plan = plan,
		                      .argv = argv,
		                      .err_fd = err_pipe[1],
		                      .spec_fd = spec_fd,
		                      .sync_fd = -1,
		                      .filter = &filter,
		                      .filter_fd = -1,
		                      .sup = sup,
		                      .tty = tty,
		                      .pty_sock = -1,
		                      .pty_slave = pty_slave,
		                      .net_fd = -1,
		                      .net_parent_fd = -1};

		/* out of the caller's job, as init (sbx_launch) */
		setpgid(0, 0);
		/* the reaper keeps only its end of the error pipe, and no signalfd of sbx's */
		close(err_pipe[0]);
		close(sigfd);
		reaper_main(&c, parent);
	}
	setpgid(pid, pid);
	/* sbx keeps only its end: EOF must mean that the worker is gone or exec'd; the
	 * terminal is the worker's. */
	close(TAKE_FD(err_pipe[1]));
	sbx_closep(&pty_slave);
	pty_slave = -1;
	if (sup)
		sbx_supervisor_parent_close(sup);
	/* The allowlist's proxy on the host's loopback (listening since before the fork, so
	 * that a connect made before this thread runs waits in its queue): served from here
	 * on, by a thread, now that nothing forks */
	if (launch_net && plan->new_net && plan->net >= SBX_NET_ALLOW &&
	    (r = sbx_netproxy_start(launch_net, false, err)) < 0)
		return r;
	if (on_start_fn)
		on_start_fn(pid, on_start_arg);
	return supervise(&pid, sigfd, err_pipe[0], -1, sup, tty, true, status, err);
}

/*
 * The landlock backend's reaper: a child subreaper that watches sbx, forks the worker, and
 * lives until every process of the sandbox is gone. Its failures before the worker runs go
 * to sbx as init's do.
 */
__attribute__((noreturn)) static void reaper_main(const struct child_ctx *c, pid_t sbx)
{
	/* The cgroup, where there is one, is killed whole by sbx (end_sandbox, and after the
	 * reaper's exit): the reaper is inside it. */
	struct sbx_reaper r = {.kill_cgroup = NULL};
	struct child_ctx wc = *c; /* the worker's: the layer is on already */
	struct sbx_error err = {0};
	pid_t self = getpid(), worker;

	/*
	 * The Landlock layer here, before the worker is forked: everything the reaper adopts is
	 * then below a process that holds the layer. A parent's supervisor records this layer
	 * (a sub-worker under a supervised parent) and finds it on every PPid line of the
	 * sandbox, orphans adopted here included. The reaper only waits, reads /proc and
	 * signals processes of its own domain and those below it; the worker stacks a layer
	 * that scopes signals (worker_finish), so it cannot signal the reaper.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "cannot set no_new_privs: %s",
		              strerror(errno));
		child_fail(c->err_fd, &err);
	}
	if (sbx_landlock_enforce(&c->plan->landlock, &err) < 0)
		child_fail(c->err_fd, &err);
	wc.landlocked = true;
	if (sbx_reaper_start(&r, sbx, &err) < 0)
		child_fail(c->err_fd, &err);
	worker = c->sup ? fork() : vfork();
	if (worker < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno, "cannot start the worker: %s",
		              strerror(errno));
		child_fail(c->err_fd, &err);
	}
	if (worker == 0) {
		/* the reaper's own: the worker reads no signalfd and watches no sbx */
		close(r.sigfd);
		close(r.sbx_pidfd);
		landlock_worker(&wc, self);
	}
	/* The worker runs with this process's uid: it must not read the reaper's memory or
	 * ptrace it (Landlock's scopes keep its signals off, where the kernel has them).
	 * After the fork, which would pass the flag on. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		sbx_error_set(&err, SBX_ERR_SETUP, errno,
		              "the reaper cannot clear its dumpable flag: %s", strerror(errno));
		kill(worker, SIGKILL);
		child_fail(c->err_fd, &err);
	}
	if (c->sup)
		sbx_supervisor_child_close(c->sup);
	if (c->pty_slave >= 0)
		close(c->pty_slave);
	/* sbx's: the master it relays, the pipe its terminal keeper watches */
	if (c->tty->master >= 0)
		close(c->tty->master);
	if (c->tty->keeper >= 0)
		close(c->tty->keeper);
	/* the error pipe is the worker's alone from here: it closes at the worker's exec */
	close(c->err_fd);
	_exit(sbx_reaper_loop(&r, worker));
}

/*
 * The landlock backend's worker: new session, dies with sbx, chdir, every capability dropped,
 * no_new_privs, Landlock (which alone decides what it may touch), seccomp last, execve.
 */
__attribute__((noreturn)) static void landlock_worker(const struct child_ctx *c, pid_t parent)
{
	struct sbx_error err = {0};

	worker_start(c, parent);
	/* Every capability dropped: root's worker shares the host's namespaces, where any
	 * capability is the host's. An ordinary user (or a container's) has no CAP_SETPCAP to
	 * lock securebits and empty the bounding set: it empties its own sets instead;
	 * no_new_privs next keeps exec from granting any. */
	if (sbx_caps_drop_all(&err) < 0 &&
	    (err.errnum != EPERM || sbx_caps_clear_unprivileged(&err) < 0))
		child_fail(c->err_fd, &err);
	worker_finish(c);
}
