/* SPDX-License-Identifier: MIT */
/*
 * FIFOs under the supervisor (docs/design.md, The supervisor; sbx(1), SUPERVISOR). A shell's
 * `echo hi > fifo` is open(O_WRONLY|O_CREAT|O_TRUNC): under a supervisor that watches
 * creations it stops at sbx and the performer makes it. The performer serves every call of
 * the sandbox, so it must never wait for a FIFO's other end; it used to open without blocking
 * and gave the writer ENXIO (no reader yet). Now the open waits as outside a sandbox: a waiter
 * with the performer's rights opens the FIFO it decided on (by its inode) and sbx answers the
 * caller when the other end comes, serving every other call in the meantime. At most 64 such
 * opens wait at once (the 65th fails with EAGAIN and a line naming the cap), and a wait whose
 * caller is killed ends with its waiter, its slot free again.
 *
 * Under both backends, as root and as the user (the it_ harness runs both). The test binary is
 * the probe inside (`--in OP DIR`, one line "OP ... => RESULT" per check).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define WAIT_MS 60000 /* every wait's upper bound */
#define CAP     64    /* the supervisor's cap on waiting FIFO opens */

/* ---- inside the sandbox ---- */

/* the harness's (it_errno_word, it_mono_ms, it_at) under this file's short names */
#define res    it_errno_word
#define now_ms it_mono_ms
#define at     it_at

/* Is pid (a child) blocked in its open (its system call openat, waiting)? /proc/PID/syscall
 * names the call a task is in; polled, with a bound, for a condition the test needs. */
static bool in_open(pid_t pid)
{
	char path[64], buf[256];
	long long end = now_ms() + WAIT_MS;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	while (now_ms() < end) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		struct timespec tick = {0, 1000000};

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		if (atol(buf) == SYS_openat)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* A child that opens path for writing as a shell's `>` does (blocking), writes one byte and
 * exits 0; 1 where its open fails, with the errno's name on `report` (a pipe) if given. */
static pid_t writer(const char *path, int report)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			if (report >= 0)
				dprintf(report, "%s\n", res(-1));
			_exit(1);
		}
		if (write(fd, "w", 1) != 1)
			_exit(2);
		_exit(0);
	}
	return pid;
}

/* Open path for reading (never supervised: no read caps) and read its byte, within WAIT_MS:
 * opened without blocking (a reader all the same, which a waiting writer's open pairs with),
 * then polled, so that a writer that never comes fails the check instead of hanging it. */
static int reader(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct pollfd p = {fd, POLLIN, 0};

	if (fd < 0)
		return -1;
	if (poll(&p, 1, WAIT_MS) != 1 || read(fd, &c, 1) != 1 || c != 'w') {
		close(fd);
		errno = EIO;
		return -1;
	}
	close(fd);
	return 0;
}

/* Waiters of this sandbox's performer still alive: sbx-fifowait, whose parent (the
 * performer) is a sibling of this process (the worker). Their pidfds into fds. */
static size_t waiters(int *fds, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)) && n < max) {
		char comm[64];
		pid_t pid = atoi(de->d_name), ppid, pppid;
		int fd;

		if (pid <= 0 || !it_proc_stat(pid, comm, sizeof(comm), &ppid) ||
		    strcmp(comm, "sbx-fifowait") != 0 ||
		    !it_proc_stat(ppid, comm, sizeof(comm), &pppid) || pppid != getppid())
			continue;
		fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd >= 0)
			fds[n++] = fd;
	}
	if (d)
		closedir(d);
	return n;
}

/* How many of the pidfds' processes are still alive after WAIT_MS (closes them). */
static size_t still_alive(int *fds, size_t n)
{
	long long end = now_ms() + WAIT_MS;
	size_t alive = 0;

	for (size_t i = 0; i < n; i++) {
		struct pollfd p = {fds[i], POLLIN, 0};
		long long left = end - now_ms();

		if (poll(&p, 1, left > 0 ? (int)left : 0) <= 0)
			alive++;
		close(fds[i]);
	}
	return alive;
}

static int reap(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * A writer waits in its open of f1 (no reader yet); meanwhile the supervisor answers other
 * calls: a create, a mkdir, and a writer of f2 whose reader is there already. The first
 * writer still waits; a reader of f1 comes, and it succeeds.
 */
static int in_others(const char *dir)
{
	pid_t w1, w2;
	int fd, rd;
	struct pollfd p;

	if (mkfifo(at(dir, "f1"), 0644) < 0 || mkfifo(at(dir, "f2"), 0644) < 0) {
		printf("mkfifo %s => %s\n", dir, res(-1));
		return 1;
	}
	w1 = writer(at(dir, "f1"), -1);
	printf("waiting %s => %s\n", at(dir, "f1"), in_open(w1) ? "ok" : "ENOTBLK");
	fd = open(at(dir, "x"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	printf("create %s => %s\n", at(dir, "x"), res(fd));
	if (fd >= 0)
		close(fd);
	printf("mkdir %s => %s\n", at(dir, "d"), res(mkdir(at(dir, "d"), 0755)));
	rd = open(at(dir, "f2"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	w2 = writer(at(dir, "f2"), -1);
	printf("writer %s => %s\n", at(dir, "f2"), reap(w2) == 0 ? "ok" : "failed");
	if (rd >= 0)
		close(rd);
	/* w1 has not ended: nothing answered its open */
	fd = (int)syscall(SYS_pidfd_open, w1, 0);
	p = (struct pollfd){fd, POLLIN, 0};
	printf("still-waiting %s => %s\n", at(dir, "f1"),
	       fd >= 0 && poll(&p, 1, 0) == 0 ? "ok" : "ENOTBLK");
	printf("reader %s => %s\n", at(dir, "f1"), res(reader(at(dir, "f1"))));
	printf("writer %s => %s\n", at(dir, "f1"), reap(w1) == 0 ? "ok" : "failed");
	return 0;
}

/*
 * The cap, and waits whose callers are killed. Round 1: CAP+6 writers of distinct FIFOs
 * without readers: CAP wait, 6 fail with EAGAIN at once; the waiting ones are killed (and
 * reaped: their threads are gone), and their waiters end too. Round 2: CAP writers of fresh FIFOs
 * (the killed ones' slots must be free), each with a reader: all succeed. Round 3: N opens one
 * after the other on one FIFO whose reader loops in a thread (no leak over many opens). The two
 * take turns through two pipes, in or out of a sandbox: a writer still open when the next reader
 * opens gives that reader end of file, and a reader still open when the next writer opens takes its
 * byte.
 */
static const char *loop_path;
static volatile int loop_n;
static int ack[2], closed[2]; /* the reader's close, the writer's close */

static void *loop_reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < loop_n; i++) {
		char c;

		if (reader(loop_path) < 0) {
			printf("loop-reader %d => %s\n", i, res(-1));
			return (void *)1;
		}
		if (read(closed[0], &c, 1) != 1 || write(ack[1], "a", 1) != 1)
			return (void *)1;
	}
	return NULL;
}

static int in_cap(const char *dir, int n)
{
	pid_t pid[CAP + 6];
	int report[2], again = 0, ok = 0;
	char name[32], line[64];
	FILE *rf;
	pthread_t th;
	void *thr = NULL;

	for (int i = 0; i < CAP + 6; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		if (mkfifo(at(dir, name), 0644) < 0) {
			printf("mkfifo %s => %s\n", at(dir, name), res(-1));
			return 1;
		}
	}
	if (pipe2(report, O_CLOEXEC) < 0)
		return 1;
	for (int i = 0; i < CAP + 6; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		pid[i] = writer(at(dir, name), report[1]);
	}
	close(report[1]);
	/* 6 say EAGAIN, once CAP wait: those that wait never write here */
	rf = fdopen(report[0], "r");
	while (again < 6 && rf && fgets(line, sizeof(line), rf))
		again += strcmp(line, "EAGAIN\n") == 0;
	printf("round1-eagain %s => %d\n", dir, again);
	for (int i = 0; i < CAP + 6; i++)
		kill(pid[i], SIGKILL);
	for (int i = 0; i < CAP + 6; i++)
		reap(pid[i]);
	if (rf)
		fclose(rf);
	{
		/* their waiters end with them (they would wait for readers forever) */
		int fds[CAP + 6];
		size_t nw = waiters(fds, CAP + 6);

		printf("round1-waiters %s => %zu\n", dir, still_alive(fds, nw));
	}
	for (int i = 0; i < CAP; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		if (mkfifo(at(dir, name), 0644) < 0)
			return 1;
		pid[i] = writer(at(dir, name), -1);
	}
	for (int i = 0; i < CAP; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		if (reader(at(dir, name)) == 0 && reap(pid[i]) == 0)
			ok++;
	}
	printf("round2 %s => %d\n", dir, ok);
	loop_path = at(dir, "loop");
	loop_n = n;
	if (mkfifo(loop_path, 0644) < 0 || pipe2(ack, O_CLOEXEC) < 0 ||
	    pipe2(closed, O_CLOEXEC) < 0 || pthread_create(&th, NULL, loop_reader, NULL) != 0)
		return 1;
	ok = 0;
	for (int i = 0; i < n; i++) {
		int fd = open(loop_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		char a;

		if (fd < 0)
			break;
		ok += write(fd, "w", 1) == 1;
		close(fd);
		if (write(closed[1], "c", 1) != 1 || read(ack[0], &a, 1) != 1)
			break;
	}
	pthread_join(th, &thr);
	printf("round3 %s => %d%s\n", dir, ok, thr ? " (reader failed)" : "");
	return 0;
}

/* The waiting writer's process execs from another thread (de_thread takes the waiting
 * leader's id and pid, so sbx's pidfd of the caller never fires): once the process is gone
 * and the next supervised call has come, its waiter is gone too (it held a slot for as long
 * as the exec'd program ran, and a reader paired with it: an outside attack). */
static const char *gone_path;

static void *gone_exec(void *arg)
{
	(void)arg;
	if (in_open(getpid()))
		execl("/bin/sleep", "sleep", "1000", (char *)NULL);
	_exit(3);
}

static int in_gone(const char *dir)
{
	int fds[8], fd;
	size_t nw;
	pid_t pid;

	gone_path = at(dir, "g1");
	if (mkfifo(gone_path, 0644) < 0) {
		printf("mkfifo %s => %s\n", gone_path, res(-1));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		pthread_t th;

		if (pthread_create(&th, NULL, gone_exec, NULL) != 0)
			_exit(4);
		fd = open(gone_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		_exit(fd < 0 ? 1 : 2); /* the exec ends this first */
	}
	{
		/* the exec'd program runs (its comm says so): the waiting open is gone with the
		 * thread that made it */
		char comm[64] = "";
		pid_t pp;
		long long end = now_ms() + WAIT_MS;
		struct timespec tick = {0, 1000000};

		while (now_ms() < end &&
		       (!it_proc_stat(pid, comm, sizeof(comm), &pp) || strcmp(comm, "sleep") != 0))
			nanosleep(&tick, NULL);
		printf("gone-exec %s => %s\n", dir, comm);
	}
	/* the next supervised call */
	fd = open(at(dir, "after"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	nw = waiters(fds, 8);
	printf("gone-waiters %s => %zu\n", dir, still_alive(fds, nw));
	kill(pid, SIGKILL);
	reap(pid);
	return 0;
}

static int in_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(WAIT_MS / 1000 * 2); /* a hang is a failure, never a stuck suite */
	if (argc >= 2 && !strcmp(argv[0], "others"))
		return in_others(argv[1]);
	if (argc >= 3 && !strcmp(argv[0], "cap"))
		return in_cap(argv[1], atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[0], "gone"))
		return in_gone(argv[1]);
	printf("%s => unknown\n", argc ? argv[0] : "");
	return 2;
}

/* ---- the host side ---- */

static char *make_ws(void)
{
	char *ws = it_path(it_tmpdir(), "ws");

	it_write_file(it_path(ws, "keep"), "x\n");
	it_write_file(it_path(ws, "sub/keep"), "x\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	return ws;
}

/* The default profile with a workspace: git's absent names are watched, so every creation
 * (an open with O_CREAT) stops at the supervisor. */
static void run(struct it_run *r, const char *backend, const char *ws, const char *const *cmd)
{
	const char *opts[] = {"-v", ws, "--backend", backend, NULL};

	it_run_in(r, opts, cmd);
}

/* The shell's way: `cat f & echo hi > f` (the reader first), and a writer that waits for a
 * reader that comes later; then the same in a landlock sub-worker, whose opens a
 * sub-performer makes (its waiter holds the sub-worker's Landlock domain). */
static void shell(const char *backend)
{
	char *ws = make_ws();
	char script[4096];
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	struct it_run r;

	snprintf(
	    script, sizeof(script),
	    "cd %s; mkfifo f g; cat f > got & echo hi > f; w=$?; echo w=$w; "
	    "[ $w = 0 ] || kill $!; wait; "
	    "echo \"got=$(cat got)\"; "
	    "(echo there > g; echo w2=$?) & echo \"read=$(timeout 60 cat g)\"; wait; "
	    "%s run --restrict %s/sub -- /bin/sh -c 'cd %s/sub; mkfifo s; "
	    "timeout 60 cat s > got & echo sub > s; echo sw=$?; wait; echo \"sgot=$(cat got)\"'",
	    ws, it_sbx_path(), ws, ws);
	run(&r, backend, ws, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "w=0\n");
	IT_EXPECT_CONTAINS(r.out, "got=hi\n");
	IT_EXPECT_CONTAINS(r.out, "w2=0\n");
	IT_EXPECT_CONTAINS(r.out, "read=there\n");
	IT_EXPECT_CONTAINS(r.out, "sw=0\n");
	IT_EXPECT_CONTAINS(r.out, "sgot=sub\n");
	IT_EXPECT_NOT_CONTAINS(r.err, "No such device or address");
}

static void others(const char *backend)
{
	char *ws = make_ws();
	const char *cmd[] = {"@probe", "--in", "others", ws, NULL};
	struct it_run r;

	cmd[0] = it_self();
	run(&r, backend, ws, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "waiting", it_path(ws, "f1"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "x"), "ok");
	IT_EXPECT_PROBE(r.out, "mkdir", it_path(ws, "d"), "ok");
	IT_EXPECT_PROBE(r.out, "writer", it_path(ws, "f2"), "ok");
	IT_EXPECT_PROBE(r.out, "still-waiting", it_path(ws, "f1"), "ok");
	IT_EXPECT_PROBE(r.out, "reader", it_path(ws, "f1"), "ok");
	IT_EXPECT_PROBE(r.out, "writer", it_path(ws, "f1"), "ok");
}

static void cap(const char *backend)
{
	char *ws = make_ws();
	const char *cmd[] = {"@probe", "--in", "cap", ws, "1000", NULL};
	struct it_run r;

	cmd[0] = it_self();
	run(&r, backend, ws, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "round1-eagain", ws, "6");
	IT_EXPECT_PROBE(r.out, "round1-waiters", ws, "0");
	IT_EXPECT_PROBE(r.out, "round2", ws, "64");
	IT_EXPECT_PROBE(r.out, "round3", ws, "1000");
	IT_EXPECT_CONTAINS(r.err, "FIFO opens: at most 64 opens of a FIFO may wait for their "
	                          "other end at once");
}

static void gone(const char *backend)
{
	char *ws = make_ws();
	const char *cmd[] = {"@probe", "--in", "gone", ws, NULL};
	struct it_run r;

	cmd[0] = it_self();
	run(&r, backend, ws, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "gone-exec", ws, "sleep");
	IT_EXPECT_PROBE(r.out, "gone-waiters", ws, "0");
}

#define BOTH_BACKENDS(name)                                                                        \
	static void test_##name##_namespaces(void)                                                 \
	{                                                                                          \
		name("namespaces");                                                                \
	}                                                                                          \
	static void test_##name##_landlock(void)                                                   \
	{                                                                                          \
		name("landlock");                                                                  \
	}

BOTH_BACKENDS(shell)
BOTH_BACKENDS(others)
BOTH_BACKENDS(cap)
BOTH_BACKENDS(gone)

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_shell_namespaces),  IT_CASE(test_shell_landlock),
	    IT_CASE(test_others_namespaces), IT_CASE(test_others_landlock),
	    IT_CASE(test_cap_namespaces),    IT_CASE(test_cap_landlock),
	    IT_CASE(test_gone_namespaces),   IT_CASE(test_gone_landlock),
	};

	if (argc > 1 && strcmp(argv[1], "--in") == 0)
		return in_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
