/* SPDX-License-Identifier: MIT */
/*
 * The supervisor reads nothing of a caller's /proc until some process under its filter
 * diverges from the worker (src/os/supervisor.c, serve_diverge; docs/design.md, The
 * supervisor): every call that could make a process differ in what it would read (a seccomp
 * filter of its own, other namespaces, another umask) stops in sbx first. These cases try to
 * defeat that shortcut: a thread that installs a filter on every thread (TSYNC) while another
 * creates in a loop; a child made by clone or unshare in namespaces of its own; a child of a
 * process that narrowed itself (by seccomp or by prctl); a child forked while its parent's
 * umask was changed and set back. Each would be performed for with the worker's rights, or get the
 * worker's umask, if the shortcut were stale. A denial still names its caller (read late, before
 * the answer). As root and as the user.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static char ws[4096], profile[4200];

static const char *res(int r)
{
	static char buf[64];

	if (r >= 0)
		return "ok";
	snprintf(buf, sizeof(buf), "%s", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return buf;
}

static int create(const char *path, mode_t mode)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* flags: SECCOMP_FILTER_FLAG_*; or -1: by prctl(PR_SET_SECCOMP) */
static int allow_filter(int flags)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {1, allow};

	if (flags < 0)
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, (unsigned)flags, &prog);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- inside the sandbox ---- */

static atomic_int filtered, made_before, made_after, denied_after, other_after;

/* Creates files in a loop; each create is counted by what it saw before it started: a
 * create begun after the filter is in place must be refused. */
static void *creator(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++) {
		char name[32];
		int after = atomic_load(&filtered);

		snprintf(name, sizeof(name), "tb%d", i);
		if (create(name, 0644) == 0)
			atomic_fetch_add(after ? &made_after : &made_before, 1);
		else if (after)
			atomic_fetch_add(errno == EACCES ? &denied_after : &other_after, 1);
		if (after && atomic_load(&denied_after) + atomic_load(&made_after) +
		                     atomic_load(&other_after) >=
		                 50)
			break;
	}
	return NULL;
}

static void tsync_race(void)
{
	pthread_t t;
	uint64_t until = mono_ms() + 20000;
	int r;

	pthread_create(&t, NULL, creator, NULL);
	/* the creator is served (the shortcut on) before the filter comes */
	while (atomic_load(&made_before) < 20 && mono_ms() < until)
		sched_yield();
	r = allow_filter(SECCOMP_FILTER_FLAG_TSYNC);
	printf("tsync - => %s\n", res(r));
	atomic_store(&filtered, 1);
	pthread_join(t, NULL);
	printf("tsync-race - => before %d after %d denied %d other %d\n", atomic_load(&made_before),
	       atomic_load(&made_after), atomic_load(&denied_after), atomic_load(&other_after));
}

/* A child in namespaces of its own (clone's flags, or unshare), creating beside .git. */
static void ns_child(const char *how, const char *name)
{
	pid_t pid;
	int st;

	fflush(stdout);
	if (!strcmp(how, "clone"))
		pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, NULL, NULL,
		                     NULL, NULL);
	else
		pid = fork();
	if (pid == 0) {
		if (strcmp(how, "clone") != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
			printf("%s-ns %s => %s\n", how, name, res(-1));
			_exit(0);
		}
		printf("%s-ns %s => %s\n", how, name, res(create(name, 0644)));
		_exit(0);
	}
	if (pid < 0)
		printf("%s-ns %s => %s\n", how, name, res(-1));
	else
		waitpid(pid, &st, 0);
}

/* A filter of its own (by seccomp, or by prctl), then a child: both are narrower. */
static void narrow_fork(const char *how, const char *name)
{
	pid_t pid;

	printf("narrow - => %s\n", res(allow_filter(!strcmp(how, "prctl") ? -1 : 0)));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("narrow-child %s => %s\n", name, res(create(name, 0644)));
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* umask 0, a child forked then, the parent's umask set back: the child's is still 0. */
static void umask_fork(const char *name)
{
	int p[2];
	pid_t pid;
	mode_t old;
	char c;

	if (pipe(p) < 0)
		return;
	old = umask(0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct stat st;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		if (create(name, 0666) == 0 && stat(name, &st) == 0)
			printf("umask-child %s => %04o\n", name, st.st_mode & 07777);
		else
			printf("umask-child %s => %s\n", name, res(-1));
		_exit(0);
	}
	umask(old);
	close(p[0]);
	if (write(p[1], "g", 1) != 1)
		printf("umask-child %s => %s\n", name, res(-1));
	close(p[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int in_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < argc; i++) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : "",
		           *b = i + 2 < argc ? argv[i + 2] : "";

		if (!strcmp(op, "create")) {
			printf("create %s => %s\n", a, res(create(a, 0644)));
			i += 1;
		} else if (!strcmp(op, "tsync-race")) {
			tsync_race();
		} else if (!strcmp(op, "ns-child")) {
			ns_child(a, b);
			i += 2;
		} else if (!strcmp(op, "narrow-fork")) {
			narrow_fork(a, b);
			i += 2;
		} else if (!strcmp(op, "umask-fork")) {
			umask_fork(a);
			i += 1;
		}
	}
	return 0;
}

/* ---- the host side ---- */

static void setup(void)
{
	snprintf(ws, sizeof(ws), "%s/ws", it_tmpdir());
	snprintf(profile, sizeof(profile), "%s/sup.yaml", it_tmpdir());
	it_write_file(it_path(ws, "f"), "file\n");
	it_write_file(profile, "version: 1\nname: sup\nnesting: true\nprotect_git: true\n"
	                       "mounts:\n  - path: ${WORKSPACE}\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
}

/* the probe's name for a child's create: "clone-ns", "unshare-ns" */
static const char *fmt_ns(const char *how)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s-ns", how);
	return buf;
}

static bool exists(const char *name)
{
	struct stat st;

	return lstat(it_path(ws, name), &st) == 0;
}

static void run_in(struct it_run *r, const char *backend, const char *const *ops)
{
	const char *opts[] = {"-p", profile, "-w", ws, "--backend", backend, NULL};
	const char *cmd[32];
	size_t n = 0;

	cmd[n++] = it_self();
	cmd[n++] = "--in";
	for (; *ops && n < 30; ops++)
		cmd[n++] = *ops;
	cmd[n] = NULL;
	it_run_in(r, opts, cmd);
}

/* A thread installs a filter on every thread of its process while another creates in a
 * loop: every create that begins after the filter is refused (the creator is narrower now,
 * and protected names are watched), however the two interleave in sbx. */
static void tsync(const char *backend)
{
	struct it_run r;
	const char *ops[] = {"tsync-race", NULL};

	setup();
	run_in(&r, backend, ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "tsync", "-", "ok");
	/* the test can fail: the creator was served before, and ran after */
	IT_EXPECT_NOT_CONTAINS(r.out, "before 0 ");
	IT_EXPECT_CONTAINS(r.out, " after 0 denied 50 other 0\n");
}

static void test_tsync_namespaces(void)
{
	tsync("namespaces");
}

static void test_tsync_landlock(void)
{
	tsync("landlock");
}

/* A child in a user and mount namespace of its own, by clone's flags or by unshare (each in
 * a run of its own: the first would open every later caller's /proc), is a sub-sandbox that
 * can write beside .git: its creations are refused, not performed. */
static void ns_child_by(const char *how)
{
	struct it_run r;
	const char *ops[] = {"create", "plain", "ns-child", how, "kid", NULL};

	setup();
	run_in(&r, "namespaces", ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", "plain", "ok");
	IT_EXPECT_PROBE(r.out, fmt_ns(how), "kid", "EACCES");
	IT_EXPECT(exists("plain"));
	IT_EXPECT(!exists("kid"));
}

static void test_ns_child_clone(void)
{
	ns_child_by("clone");
}

static void test_ns_child_unshare(void)
{
	ns_child_by("unshare");
}

/* A process that gave itself a filter, and its child forked after: both narrower. */
static void narrowed_by(const char *backend, const char *how)
{
	struct it_run r;
	const char *ops[] = {"create", "plain", "narrow-fork", how, "kid", "create", "after", NULL};

	setup();
	run_in(&r, backend, ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", "plain", "ok");
	IT_EXPECT_PROBE(r.out, "narrow", "-", "ok");
	IT_EXPECT_PROBE(r.out, "narrow-child", "kid", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", "after", "EACCES");
	IT_EXPECT(!exists("kid"));
	IT_EXPECT(!exists("after"));
}

static void test_narrowed_namespaces(void)
{
	narrowed_by("namespaces", "seccomp");
}

static void test_narrowed_landlock(void)
{
	narrowed_by("landlock", "seccomp");
}

static void test_narrowed_prctl(void)
{
	narrowed_by("namespaces", "prctl");
}

/* A child forked while its parent's umask was 0 keeps 0 after the parent set its own back:
 * the performer applies the child's umask, not the worker's. */
static void test_umask_fork(void)
{
	struct it_run r;
	const char *ops[] = {"create", "plain", "umask-fork", "kid", NULL};

	setup();
	run_in(&r, "namespaces", ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", "plain", "ok");
	IT_EXPECT_PROBE(r.out, "umask-child", "kid", "0666");
}

/* Nothing diverged: a denial still names its caller, read before the answer. */
static void test_denial_names_caller(void)
{
	struct it_run r;
	const char *ops[] = {"create", "plain", "create", ".git", NULL};

	setup();
	run_in(&r, "namespaces", ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", "plain", "ok");
	IT_EXPECT_PROBE(r.out, "create", ".git", "EACCES");
	IT_EXPECT_CONTAINS(r.err, "(openat by ");
	IT_EXPECT_NOT_CONTAINS(r.err, "(openat by ?[");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_tsync_namespaces),    IT_CASE(test_tsync_landlock),
	    IT_CASE(test_ns_child_clone),      IT_CASE(test_ns_child_unshare),
	    IT_CASE(test_narrowed_namespaces), IT_CASE(test_narrowed_landlock),
	    IT_CASE(test_narrowed_prctl),      IT_CASE(test_umask_fork),
	    IT_CASE(test_denial_names_caller),
	};

	if (argc > 1 && strcmp(argv[1], "--in") == 0)
		return in_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
