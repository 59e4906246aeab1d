/* SPDX-License-Identifier: MIT */
/*
 * Sub-performers end with their sub-sandboxes (docs/design.md, The supervisor,
 * Sub-performers). A landlock sub-worker (`sbx run --restrict DIR --readonly -- cmd` inside a
 * supervised sandbox) holds two Landlock domains of its own (its reaper's and its worker's),
 * each served by a sub-performer ("sbx-subperf", a child of the sandbox's init or reaper).
 * When the sub-worker ends, sbx drops both slots at once and the sub-performers end: none
 * lingers until the table fills, none keeps a slot. At most SBX_SUP_MAX_SUBS (64) domains at
 * once: 32 long-lived sub-workers all run, the 33rd is refused with exit 125 and a message
 * that names the cap and what to do.
 *
 * Under both outer backends, as root and as the user (the it_ harness runs both). The host
 * side starts sbx with pipes of its own, finds the sub-performers while their sub-workers
 * live, holds pidfds of them, and waits on those pidfds (a generous bound, never a sleep).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define WAIT_MS  60000 /* every wait's upper bound */
#define MAX_PERF 256

/* ---- the host side ---- */

struct spawned {
	pid_t pid;
	int in, out; /* sbx's stdin (ours to write), its stdout (ours to read) */
	char *errfile;
	char buf[65536];
	size_t len;
};

/* `sbx run -v SELFDIR:ro OPTS -- /bin/sh -c SCRIPT`, stdin and stdout pipes, stderr a file. */
static void spawn(struct spawned *sp, const char *const *opts, const char *script)
{
	const char *args[64];
	char vol[4200];
	size_t n = 0;
	int in[2], out[2];

	memset(sp, 0, sizeof(*sp));
	sp->errfile = it_path(it_tmpdir(), "sbx.err");
	snprintf(vol, sizeof(vol), "%s:ro", it_self_dir());
	args[n++] = it_sbx_path();
	args[n++] = "run";
	args[n++] = "-v";
	args[n++] = vol;
	for (; *opts && n < 56; opts++)
		args[n++] = *opts;
	args[n++] = "--";
	args[n++] = "/bin/sh";
	args[n++] = "-c";
	args[n++] = script;
	args[n] = NULL;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		it_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
	sp->pid = fork();
	if (sp->pid < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (sp->pid == 0) {
		int err = open(sp->errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char *const *av;

		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err, 2);
		const char **ap = args;

		memcpy(&av, &ap, sizeof(av));
		execv(args[0], av);
		_exit(99);
	}
	close(in[0]);
	close(out[1]);
	sp->in = in[1];
	sp->out = out[0];
	signal(SIGPIPE, SIG_IGN);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read sbx's stdout until it holds `needle` (or EOF, or WAIT_MS). */
static bool read_until(struct spawned *sp, const char *needle)
{
	long long end = now_ms() + WAIT_MS;

	for (;;) {
		struct pollfd p = {sp->out, POLLIN, 0};
		long long left = end - now_ms();
		ssize_t n;

		sp->buf[sp->len] = '\0';
		if (strstr(sp->buf, needle))
			return true;
		if (left <= 0 || sp->len + 1 >= sizeof(sp->buf) || poll(&p, 1, (int)left) <= 0)
			return false;
		n = read(sp->out, sp->buf + sp->len, sizeof(sp->buf) - 1 - sp->len);
		if (n <= 0)
			return false;
		sp->len += (size_t)n;
	}
}

static char *err_text(const struct spawned *sp)
{
	static char buf[65536];
	int fd = open(sp->errfile, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Close stdin, read to EOF, reap sbx: its status as a shell says it. */
static int finish(struct spawned *sp)
{
	int st = 0;

	if (sp->in >= 0)
		close(sp->in);
	sp->in = -1;
	(void)read_until(sp, "\1never\1");
	if (waitpid(sp->pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* pidfds of the sub-performers of the sandbox sbx `pid` runs: processes named sbx-subperf
 * whose parent is a child of sbx (the sandbox's init, or its reaper under the landlock
 * backend). */
static size_t sub_performers(pid_t sbx, int *pidfds, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		it_fail(__FILE__, __LINE__, "opendir /proc: %s", strerror(errno));
	while ((de = readdir(d)) && n < max) {
		char comm[64];
		pid_t pid = atoi(de->d_name), ppid, pppid;
		int fd;

		if (pid <= 0 || !it_proc_stat(pid, comm, sizeof(comm), &ppid) ||
		    strcmp(comm, "sbx-subperf") != 0 ||
		    !it_proc_stat(ppid, comm, sizeof(comm), &pppid) || pppid != sbx)
			continue;
		fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd >= 0)
			pidfds[n++] = fd;
	}
	closedir(d);
	return n;
}

/* Every pidfd's process has ended, within WAIT_MS: how many have not. */
static size_t still_alive(int *pidfds, size_t n)
{
	long long end = now_ms() + WAIT_MS;
	size_t alive = 0;

	for (size_t i = 0; i < n; i++) {
		struct pollfd p = {pidfds[i], POLLIN, 0};
		long long left = end - now_ms();

		if (poll(&p, 1, left > 0 ? (int)left : 0) <= 0)
			alive++;
		close(pidfds[i]);
	}
	return alive;
}

static char *make_ws(void)
{
	char *ws = it_path(it_tmpdir(), "ws");

	it_write_file(it_path(ws, "src/a.c"), "int main;\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	return ws;
}

/*
 * A --readonly sub-worker that has ended leaves no sub-performer behind: the two that served
 * it (its reaper's domain and its worker's) end with it, while the parent sandbox goes on.
 * Before, they lived on until the table of 32 was full (or the sandbox ended).
 */
static void sub_ends(const char *backend)
{
	char *ws = make_ws();
	const char *opts[] = {"-v", ws, "--backend", backend, NULL};
	char script[8192];
	struct spawned sp;
	int pidfds[MAX_PERF];
	size_t n;

	snprintf(script, sizeof(script),
	         "%s run --restrict %s/src --readonly -- /bin/sh -c 'echo up; read x'; "
	         "echo done=$?; read y; echo end",
	         it_sbx_path(), ws);
	spawn(&sp, opts, script);
	if (!read_until(&sp, "up\n"))
		it_fail(__FILE__, __LINE__, "the sub-worker did not start: %s\n%s", sp.buf,
		        err_text(&sp));
	n = sub_performers(sp.pid, pidfds, MAX_PERF);
	IT_EXPECT_INT(n, 2);
	IT_EXPECT_INT(write(sp.in, "\n", 1), 1);
	if (!read_until(&sp, "done=0\n"))
		it_fail(__FILE__, __LINE__, "the sub-worker did not end: %s\n%s", sp.buf,
		        err_text(&sp));
	/* the parent still runs (it waits for a line): they end with the sub-worker */
	IT_EXPECT_INT(still_alive(pidfds, n), 0);
	IT_EXPECT_INT(write(sp.in, "\n", 1), 1);
	IT_EXPECT_INT(finish(&sp), 0);
	IT_EXPECT_CONTAINS(sp.buf, "end\n");
}

/*
 * 32 long-lived --readonly sub-workers run at once (64 domains, each with its sub-performer);
 * the 33rd is refused: exit 125, a message naming the cap and what to do. When they end,
 * every slot is free again at once: their sub-performers end, and the next sub-worker runs.
 * The 33rd starts only once all 32 said "up" (a pipe, not a timer). (An asynchronous list's
 * stdin is /dev/null unless redirected: the sub-workers read sbx's stdin through fd 7.)
 */
static void sub_cap(const char *backend)
{
	char *ws = make_ws();
	const char *opts[] = {"-v", ws, "--backend", backend, NULL};
	const char *sbx = it_sbx_path();
	char script[8192];
	struct spawned sp;
	int pidfds[MAX_PERF];
	size_t n;

	snprintf(script, sizeof(script),
	         "{ i=0; while [ $i -lt 32 ]; do "
	         "%s run --restrict %s/src --readonly -- /bin/sh -c 'echo up; read x' <&7 & "
	         "i=$((i+1)); done; wait; } 7<&0 | "
	         "{ n=0; while read l; do n=$((n+1)); if [ $n -eq 32 ]; then "
	         "%s run --restrict %s/src --readonly -- true </dev/null; echo over=$?; fi; "
	         "done; echo ended n=$n; }; "
	         "%s run --restrict %s/src --readonly -- true </dev/null; echo after=$?",
	         sbx, ws, sbx, ws, sbx, ws);
	spawn(&sp, opts, script);
	if (!read_until(&sp, "over="))
		it_fail(__FILE__, __LINE__, "32 sub-workers did not all start: %s\n%s", sp.buf,
		        err_text(&sp));
	if (!read_until(&sp, "over=125\n"))
		it_fail(__FILE__, __LINE__, "the 33rd was not refused: %s\n%s", sp.buf,
		        err_text(&sp));
	n = sub_performers(sp.pid, pidfds, MAX_PERF);
	IT_EXPECT_INT(n, 64);
	for (int i = 0; i < 32; i++)
		IT_EXPECT_INT(write(sp.in, "\n", 1), 1);
	if (!read_until(&sp, "after="))
		it_fail(__FILE__, __LINE__, "no sub-worker after the 32: %s\n%s", sp.buf,
		        err_text(&sp));
	IT_EXPECT_INT(still_alive(pidfds, n), 0);
	IT_EXPECT_INT(finish(&sp), 0);
	IT_EXPECT_CONTAINS(sp.buf, "ended n=32\n");
	IT_EXPECT_CONTAINS(sp.buf, "after=0\n");
	IT_EXPECT_CONTAINS(err_text(&sp),
	                   "cannot start the sub-sandbox: the parent sandbox's supervisor holds "
	                   "at most 64 Landlock domains");
	IT_EXPECT_CONTAINS(err_text(&sp), "let a sub-worker of the parent sandbox end first");
	IT_EXPECT_CONTAINS(err_text(&sp), "sub-performers: at most 64 processes of the sandbox");
}

/* How many lines of sbx's stdout so far are exactly `line`. */
static size_t lines(const struct spawned *sp, const char *line)
{
	size_t n = 0, len = strlen(line);

	for (const char *p = sp->buf; (p = strstr(p, line)); p += len)
		if ((p == sp->buf || p[-1] == '\n') && p[len] == '\n')
			n++;
	return n;
}

/* Read until up + refused lines number `total` (or EOF, or WAIT_MS). */
static void read_answers(struct spawned *sp, size_t total)
{
	long long end = now_ms() + WAIT_MS;

	while (lines(sp, "up") + lines(sp, "rc=125") < total && now_ms() < end) {
		struct pollfd p = {sp->out, POLLIN, 0};
		long long left = end - now_ms();
		ssize_t n;

		if (sp->len + 1 >= sizeof(sp->buf) || poll(&p, 1, left > 0 ? (int)left : 0) <= 0)
			break;
		n = read(sp->out, sp->buf + sp->len, sizeof(sp->buf) - 1 - sp->len);
		if (n <= 0)
			break;
		sp->len += (size_t)n;
		sp->buf[sp->len] = '\0';
	}
}

/*
 * 34 --readonly sub-workers started at once: exactly 32 run (64 domains) and 2 are refused
 * (exit 125, the message naming the cap). Each holds two domains, its reaper's then its
 * worker's; before, one could get its first and be refused its second, so that 30 or 31 ran
 * and more were refused. Every one says "up" or ends: the test waits for 34 such lines (a
 * pipe, not a timer), then lets the 32 end.
 */
static void sub_burst(const char *backend)
{
	char *ws = make_ws();
	const char *opts[] = {"-v", ws, "--backend", backend, NULL};
	char script[8192];
	struct spawned sp;
	int pidfds[MAX_PERF];
	size_t n;

	snprintf(script, sizeof(script),
	         "exec 7<&0; i=0; while [ $i -lt 34 ]; do "
	         "{ %s run --restrict %s/src --readonly -- /bin/sh -c 'echo up; read x' <&7; "
	         "echo rc=$?; } & i=$((i+1)); done; wait; echo all-done",
	         it_sbx_path(), ws);
	spawn(&sp, opts, script);
	read_answers(&sp, 34);
	IT_EXPECT_INT(lines(&sp, "up"), 32);
	IT_EXPECT_INT(lines(&sp, "rc=125"), 2);
	n = sub_performers(sp.pid, pidfds, MAX_PERF);
	IT_EXPECT_INT(n, 64);
	for (int i = 0; i < 32; i++)
		IT_EXPECT_INT(write(sp.in, "\n", 1), 1);
	if (!read_until(&sp, "all-done\n"))
		it_fail(__FILE__, __LINE__, "the sub-workers did not end: %s\n%s", sp.buf,
		        err_text(&sp));
	IT_EXPECT_INT(lines(&sp, "rc=0"), 32);
	IT_EXPECT_INT(still_alive(pidfds, n), 0);
	IT_EXPECT_INT(finish(&sp), 0);
	IT_EXPECT_CONTAINS(err_text(&sp),
	                   "cannot start the sub-sandbox: the parent sandbox's supervisor holds "
	                   "at most 64 Landlock domains");
	IT_EXPECT_CONTAINS(err_text(&sp), "sub-performers: at most 64 processes of the sandbox");
}

static void test_sub_burst_namespaces(void)
{
	sub_burst("namespaces");
}

static void test_sub_burst_landlock(void)
{
	sub_burst("landlock");
}

static void test_sub_ends_namespaces(void)
{
	sub_ends("namespaces");
}

static void test_sub_ends_landlock(void)
{
	sub_ends("landlock");
}

static void test_sub_cap_namespaces(void)
{
	sub_cap("namespaces");
}

static void test_sub_cap_landlock(void)
{
	sub_cap("landlock");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_sub_ends_namespaces),  IT_CASE(test_sub_ends_landlock),
	    IT_CASE(test_sub_cap_namespaces),   IT_CASE(test_sub_cap_landlock),
	    IT_CASE(test_sub_burst_namespaces), IT_CASE(test_sub_burst_landlock),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
