/* SPDX-License-Identifier: MIT */
/*
 * The terminal and the end of the sandbox (sbx(1), TERMINAL and PROCESSES). sbx runs on a
 * real pseudo-terminal that the test holds the master of, as a shell would start it: a
 * session of its own, the pty its controlling terminal, in the foreground. Every wait is for
 * a condition (an output marker, a pidfd, an exit), bounded generously; nothing sleeps.
 *
 *   - Ctrl-C (the byte 0x03 on the terminal) ends `sh -c 'sleep 30; echo after'` and a make
 *     whose recipe sleeps at once, and "after" never shows; also with --no-tty, where the
 *     terminal's SIGINT reaches sbx and sbx passes it to the worker's whole job;
 *   - bash -i gets job control in its pty (a background job, fg, Ctrl-Z, jobs, /dev/tty);
 *   - the window size reaches the worker, at the start and on a change;
 *   - the caller's terminal mode is raw while sbx relays and comes back after a normal exit
 *     and after sbx is SIGKILLed (the keeper);
 *   - without a terminal, pipes stay pipes (and -t gives one anyway);
 *   - nothing outlives the sandbox: a double fork + setsid + a process that ignores SIGTERM,
 *     when the worker exits and when sbx is SIGKILLed, under both backends;
 *   - System V IPC creation is refused under the landlock backend.
 * Each case runs under both backends, as root and as the user.
 */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define BOUND_MS 60000 /* a generous upper bound for every wait */

static const char *backend = "namespaces";

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	va_end(ap);
	return s;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* ---- sbx on a pty ---- */

struct term {
	int master;
	pid_t pid;
	int pidfd;
	char out[65536];
	size_t len;
	struct termios before; /* the mode the terminal had before sbx */
	struct stat tty_st;    /* the terminal itself */
};

/* Start `sbx run --backend B OPTS... -- CMD...` (NULL-terminated, OPTS ends at "--") on a new
 * pty of rows x cols, as a shell starts a foreground job. */
static void term_start(struct term *t, unsigned short rows, unsigned short cols,
                       const char *const *args)
{
	const char *argv[128];
	struct winsize ws = {.ws_row = rows, .ws_col = cols};
	const char *dir = it_tmpdir();
	size_t n = 0;
	char *slave_name;
	int slave;

	memset(t, 0, sizeof(*t));
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0 ||
	    !(slave_name = ptsname(t->master)))
		it_fail(__FILE__, __LINE__, "cannot make a pty: %s", strerror(errno));
	slave = open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave < 0)
		it_fail(__FILE__, __LINE__, "open %s: %s", slave_name, strerror(errno));
	ioctl(slave, TIOCSWINSZ, &ws);
	tcgetattr(slave, &t->before);
	fstat(slave, &t->tty_st);
	argv[n++] = it_sbx_path();
	argv[n++] = "run";
	argv[n++] = "--backend";
	argv[n++] = backend;
	argv[n++] = "-v";
	argv[n++] = dir;
	argv[n++] = "--chdir";
	argv[n++] = dir;
	for (; *args && n < 126; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	t->pid = fork();
	if (t->pid < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (t->pid == 0) {
		const char **pa = argv;
		char *const *av;

		/* as a shell's foreground job: its own session, the pty its terminal; and gone
		 * with the case (the harness kills the case's process group, not this session) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		if (ioctl(slave, TIOCSCTTY, 0) < 0)
			_exit(98);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		memcpy(&av, &pa, sizeof(av));
		execv(argv[0], av);
		_exit(99);
	}
	close(slave);
	t->pidfd = pidfd_open(t->pid);
	if (t->pidfd < 0)
		it_fail(__FILE__, __LINE__, "pidfd_open: %s", strerror(errno));
}

/* Read what the terminal shows for up to ms; false on EOF/EIO (nobody holds the slave). */
static bool term_read(struct term *t, int ms)
{
	struct pollfd p = {t->master, POLLIN, 0};
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return true;
	n = read(t->master, t->out + t->len, sizeof(t->out) - 1 - t->len);
	if (n <= 0)
		return n < 0 && errno == EINTR;
	t->len += (size_t)n;
	t->out[t->len] = '\0';
	if (t->len + 1 >= sizeof(t->out))
		it_fail(__FILE__, __LINE__, "the terminal showed more than 64 KiB");
	return true;
}

/* Wait until the terminal has shown `marker` after offset *from; *from moves past it. */
static void term_expect(struct term *t, size_t *from, const char *marker, int line)
{
	long long end = now_ms() + BOUND_MS;
	char *hit;

	while (!(hit = strstr(t->out + *from, marker))) {
		if (now_ms() > end || !term_read(t, 200)) {
			int st = -1;

			if (waitpid(t->pid, &st, WNOHANG) != t->pid)
				st = -1;
			it_fail(__FILE__, line,
			        "the terminal never showed \"%s\" (sbx: %s %d); it showed:\n%s",
			        marker, st == -1 ? "running" : "wait status", st, t->out);
		}
	}
	*from = (size_t)(hit - t->out) + strlen(marker);
}

static void term_send(struct term *t, const char *bytes)
{
	size_t len = strlen(bytes);

	if (write(t->master, bytes, len) != (ssize_t)len)
		it_fail(__FILE__, __LINE__, "write to the pty: %s", strerror(errno));
}

/* Wait for sbx to end (reading what it shows meanwhile); its status as a shell says it, and
 * the time it took from `since`. */
static int term_wait(struct term *t, long long since, long long *took)
{
	long long end = now_ms() + BOUND_MS;
	int st;

	for (;;) {
		struct pollfd p = {t->pidfd, POLLIN, 0};

		if (poll(&p, 1, 0) > 0)
			break;
		if (now_ms() > end)
			it_fail(__FILE__, __LINE__, "sbx did not end; the terminal showed:\n%s",
			        t->out);
		if (!term_read(t, 100)) {
			/* the slave is closed: only the end remains */
			p.fd = t->pidfd;
			poll(&p, 1, BOUND_MS);
		}
	}
	if (took)
		*took = now_ms() - since;
	while (term_read(t, 0) && t->len < sizeof(t->out) - 1) {
		struct pollfd p = {t->master, POLLIN, 0};

		if (poll(&p, 1, 0) <= 0)
			break;
	}
	if (waitpid(t->pid, &st, 0) != t->pid)
		it_fail(__FILE__, __LINE__, "waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool same_mode(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_lflag == b->c_lflag &&
	       a->c_cflag == b->c_cflag;
}

static size_t find_marked(const char *marker, int *fds);

/* Wait until a process runs `sleep MARKER` and return its pid (a Ctrl-C typed before the
 * shell has forked it would reach the shell alone, which then waits for its child before it
 * ends, as it must). */
static pid_t wait_marked(const char *marker)
{
	long long end = now_ms() + BOUND_MS;
	char path[64], info[1024];
	int fds[8], fd;
	ssize_t got;
	size_t n;
	char *p;

	while ((n = find_marked(marker, fds)) < 1) {
		if (now_ms() > end)
			it_fail(__FILE__, __LINE__, "sleep %s never started", marker);
		sched_yield();
	}
	/* its pid in this namespace, from its pidfd */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fds[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	got = fd >= 0 ? read(fd, info, sizeof(info) - 1) : -1;
	if (fd >= 0)
		close(fd);
	info[got > 0 ? got : 0] = '\0';
	p = strstr(info, "\nPid:");
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	if (!p)
		it_fail(__FILE__, __LINE__, "no pid for sleep %s in %s", marker, path);
	return (pid_t)atoi(p + 5);
}

/* Is the process's fd 0 the test's terminal itself? */
static bool has_our_terminal(const struct term *t, pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/0", (int)pid);
	if (stat(path, &st) < 0)
		it_fail(__FILE__, __LINE__, "stat %s: %s", path, strerror(errno));
	return st.st_dev == t->tty_st.st_dev && st.st_rdev == t->tty_st.st_rdev;
}

/* ---- Ctrl-C ---- */

/* A sleep of 30 s and a little more, as a marker no other process has. */
static const char *sleep_marker(void)
{
	static char m[32];

	snprintf(m, sizeof(m), "30.%d", (int)getpid());
	return m;
}

static void ctrl_c(const char *const *args, const char *never, bool make, bool pty)
{
	struct term t;
	size_t at = 0;
	long long sent, took;
	int status;
	pid_t sleeper;

	term_start(&t, 24, 80, args);
	term_expect(&t, &at, "ready", __LINE__);
	sleeper = wait_marked(sleep_marker());
	/* with a pty of its own, the caller's terminal is none of the worker's descriptors
	 * (TIOCSTI or a mode change would reach only the sandbox's); --no-tty hands it on */
	IT_EXPECT(has_our_terminal(&t, sleeper) == !pty);
	sent = now_ms();
	term_send(&t, "\003");
	status = term_wait(&t, sent, &took);
	printf("    Ctrl-C to sbx's end: %lld ms\n", took);
	IT_EXPECT_NOT_CONTAINS(t.out, never);
	/* sh dies of SIGINT. make usually says "Interrupt" and dies of it too; when its own
	 * SIGINT comes while it reaps its interrupted recipe it exits 2 instead (or says "wait:
	 * No child processes"): make's own race, the same on any terminal */
	if (make)
		IT_EXPECT(status == 130 || status == 2);
	else
		IT_EXPECT_INT(status, 130);
	/* well before the 30 s the worker would have taken */
	if (took >= 20000)
		it_fail(__FILE__, __LINE__, "Ctrl-C took %lld ms; the terminal showed:\n%s", took,
		        t.out);
}

static void ctrl_c_sh(void)
{
	ctrl_c((const char *const[]){"--", "/bin/sh", "-c",
	                             fmt("echo re''ady; sleep %s; echo af''ter", sleep_marker()),
	                             NULL},
	       "after", false, true);
}

static void ctrl_c_make(void)
{
	const char *dir = it_tmpdir();

	it_write_file(it_path(dir, "Makefile"),
	              fmt("all:\n\t@echo re''ady; sleep %s; echo do''ne\n", sleep_marker()));
	ctrl_c((const char *const[]){"--", "make", "-s", "-C", dir, NULL}, "done", true, true);
}

/* --no-tty: the worker has the caller's terminal as is, sbx is in its foreground job, and the
 * terminal's SIGINT reaches sbx: passed on to the worker's whole job, not only sh. */
static void ctrl_c_no_tty(void)
{
	ctrl_c((const char *const[]){"--no-tty", "--", "/bin/sh", "-c",
	                             fmt("echo re''ady; sleep %s; echo af''ter", sleep_marker()),
	                             NULL},
	       "after", false, false);
}

/* ---- job control ---- */

/* Type `line` at the shell's prompt, again each time the prompt comes back, until what the
 * shell shows in reply holds `marker` (bounded: a shell that never says it fails). */
static void term_prompt_until(struct term *t, size_t *from, const char *line, const char *marker,
                              int at_line)
{
	long long end = now_ms() + BOUND_MS;

	for (;;) {
		size_t start = *from;
		char *hit;

		term_send(t, line);
		term_expect(t, from, "PS> ", at_line);
		hit = strstr(t->out + start, marker);
		if (hit && hit < t->out + *from)
			return;
		if (now_ms() > end)
			it_fail(__FILE__, at_line, "the shell never said \"%s\"; it showed:\n%s",
			        marker, t->out);
	}
}

static void job_control(void)
{
	struct term t;
	size_t at = 0;

	/* each command is typed once the shell's prompt is there: typed ahead, a line may be
	 * taken by a job rather than by the shell */
	term_start(&t, 24, 80,
	           (const char *const[]){"--env", "PS1=PS> ", "--", "/bin/bash", "--norc",
	                                 "--noprofile", "-i", NULL});
	term_expect(&t, &at, "PS> ", __LINE__);
	term_send(&t, "sleep 100 &\r");
	term_expect(&t, &at, "[1]", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	term_send(&t, "jobs\r");
	term_expect(&t, &at, "Running", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	/* a background job that reads the terminal would be stopped (SIGTTIN); in the
	 * foreground it reads: the line shows twice, the terminal's echo and cat's */
	term_send(&t, "cat &\r");
	term_expect(&t, &at, "[2]", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	/* fg only continues a job the shell knows is stopped: typed before bash has seen cat's
	 * SIGTTIN stop (cat slow to start, on a busy machine), bash waits for it, sees the stop
	 * it never continued, says "Stopped" and takes the terminal back. So ask till it knows */
	term_prompt_until(&t, &at, "jobs %2\r", "Stopped", __LINE__);
	term_send(&t, "fg %2\r");
	term_expect(&t, &at, "cat", __LINE__);
	term_send(&t, "one\r");
	term_expect(&t, &at, "one", __LINE__);
	term_expect(&t, &at, "one", __LINE__);
	/* Ctrl-Z stops it, the shell says so and lists it stopped */
	term_send(&t, "\032");
	term_expect(&t, &at, "Stopped", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	term_send(&t, "jobs %2\r");
	term_expect(&t, &at, "Stopped", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	/* back in the foreground, and Ctrl-C ends it, not the shell */
	term_send(&t, "fg %2\r");
	term_expect(&t, &at, "cat", __LINE__);
	term_send(&t, "two\r");
	term_expect(&t, &at, "two", __LINE__);
	term_expect(&t, &at, "two", __LINE__);
	term_send(&t, "\003");
	term_expect(&t, &at, "PS> ", __LINE__);
	term_send(&t, "kill %1; wait; echo still''here $(jobs | wc -l)\r");
	term_expect(&t, &at, "stillhere 0", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	/* /dev/tty is the shell's terminal */
	term_send(&t, "echo via''tty >/dev/tty && tty\r");
	term_expect(&t, &at, "viatty", __LINE__);
	term_expect(&t, &at, "/dev/pts/", __LINE__);
	term_expect(&t, &at, "PS> ", __LINE__);
	term_send(&t, "exit 7\r");
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 7);
	IT_EXPECT_NOT_CONTAINS(t.out, "no job control");
	IT_EXPECT_NOT_CONTAINS(t.out, "cannot set terminal process group");
}

/* ---- window size ---- */

static void window_size(void)
{
	struct winsize ws = {.ws_row = 40, .ws_col = 120};
	struct term t;
	size_t at = 0;

	/* bash's wait returns for a trapped signal: each SIGWINCH prints the size */
	term_start(&t, 33, 101,
	           (const char *const[]){"--", "/bin/bash", "-c",
	                                 "trap 'echo size $(stty size)' WINCH; "
	                                 "echo start $(stty size); sleep 100 & "
	                                 "while :; do wait $!; done",
	                                 NULL});
	term_expect(&t, &at, "start 33 101", __LINE__);
	/* the caller's window changes: the kernel tells sbx, sbx the worker's pty */
	if (ioctl(t.master, TIOCSWINSZ, &ws) < 0)
		it_fail(__FILE__, __LINE__, "TIOCSWINSZ: %s", strerror(errno));
	term_expect(&t, &at, "size 40 120", __LINE__);
	/* Ctrl-C ends the shell; one that arrives while a second SIGWINCH's trap runs stty ends
	 * stty alone, and the shell goes on: Ctrl-C again until it ends (a condition, bounded) */
	for (int i = 0; i < 50; i++) {
		struct pollfd p = {t.pidfd, POLLIN, 0};

		term_send(&t, "\003");
		if (poll(&p, 1, 1000) > 0)
			break;
		(void)term_read(&t, 0);
	}
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 130);
}

/* ---- the caller's terminal mode ---- */

static void mode_restored_after_exit(void)
{
	struct termios during, after;
	struct term t;
	size_t at = 0;

	term_start(
	    &t, 24, 80,
	    (const char *const[]){"--", "/bin/sh", "-c", "echo re''ady; read x; exit 3", NULL});
	term_expect(&t, &at, "ready", __LINE__);
	/* sbx relays raw bytes: the caller's terminal neither edits nor echoes lines */
	IT_EXPECT(tcgetattr(t.master, &during) == 0);
	IT_EXPECT(!(during.c_lflag & (ICANON | ECHO | ISIG)));
	term_send(&t, "\r");
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 3);
	IT_EXPECT(tcgetattr(t.master, &after) == 0);
	IT_EXPECT(same_mode(&after, &t.before));
}

/* sbx's own failure after the terminal went raw (a command not found in the sandbox): the
 * mode comes back before sbx says so. */
static void mode_restored_after_error(void)
{
	struct termios after;
	struct term t;
	size_t at = 0;

	term_start(&t, 24, 80, (const char *const[]){"--", "/nonexistent/sbx-it-cmd", NULL});
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 127);
	term_expect(&t, &at, "not found", __LINE__);
	IT_EXPECT(tcgetattr(t.master, &after) == 0);
	IT_EXPECT(same_mode(&after, &t.before));
}

static void mode_restored_after_sigkill(void)
{
	struct termios after;
	struct term t;
	size_t at = 0;

	/* whatever sbx leaves (its keeper, the sandbox's first process) comes here when sbx
	 * dies, so that the test can wait for all of it to end */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		it_fail(__FILE__, __LINE__, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	term_start(&t, 24, 80,
	           (const char *const[]){"--", "/bin/sh", "-c", "echo re''ady; sleep 100", NULL});
	term_expect(&t, &at, "ready", __LINE__);
	IT_EXPECT(tcgetattr(t.master, &after) == 0);
	IT_EXPECT(!(after.c_lflag & (ICANON | ECHO | ISIG)));
	kill(t.pid, SIGKILL);
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 128 + SIGKILL);
	alarm(BOUND_MS / 1000);
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	alarm(0);
	IT_EXPECT(tcgetattr(t.master, &after) == 0);
	IT_EXPECT(same_mode(&after, &t.before));
}

/* A stop of sbx from outside (SIGTSTP) gives the caller its mode back while sbx is stopped;
 * once continued, sbx is raw again and relays as before. */
static void stop_and_continue(void)
{
	struct termios m;
	struct term t;
	size_t at = 0;
	int st;

	term_start(&t, 24, 80,
	           (const char *const[]){"--", "/bin/sh", "-c",
	                                 "echo re''ady; read x; echo got-$x; read y", NULL});
	term_expect(&t, &at, "ready", __LINE__);
	kill(t.pid, SIGTSTP);
	IT_EXPECT(waitpid(t.pid, &st, WUNTRACED) == t.pid && WIFSTOPPED(st));
	IT_EXPECT(tcgetattr(t.master, &m) == 0);
	IT_EXPECT(same_mode(&m, &t.before));
	kill(t.pid, SIGCONT);
	term_send(&t, "x\r");
	term_expect(&t, &at, "got-x", __LINE__);
	IT_EXPECT(tcgetattr(t.master, &m) == 0);
	IT_EXPECT(!(m.c_lflag & (ICANON | ECHO | ISIG)));
	term_send(&t, "\r");
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 0);
	IT_EXPECT(tcgetattr(t.master, &m) == 0);
	IT_EXPECT(same_mode(&m, &t.before));
}

/* ---- without a terminal ---- */

/* --no-tty: the worker holds the caller's terminal itself and leaves it raw and its output
 * stopped (attack of 2026-11-28): sbx gives the mode and the output flow back at the end. */
static void no_tty_terminal_given_back(void)
{
	struct termios after;
	struct term t;
	size_t at = 0;

	term_start(&t, 24, 80,
	           (const char *const[]){"--no-tty", "--", "/bin/sh", "-c",
	                                 "stty raw -echo; echo re''ady; stty -ixon; exit 4", NULL});
	term_expect(&t, &at, "ready", __LINE__);
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 4);
	IT_EXPECT(tcgetattr(t.master, &after) == 0);
	IT_EXPECT(same_mode(&after, &t.before));
}

static void no_terminal(void)
{
	const char *dir = it_tmpdir();
	struct it_run r;
	char *cmd = fmt("echo hello | %s run --backend %s -v %s --chdir %s -- /bin/sh -c "
	                "'cat; test -p /dev/stdin && echo in-pipe; test -t 0 || echo in-no-tty; "
	                "test -p /dev/stdout && echo out-pipe; tty || true' 2>&1",
	                it_sbx_path(), backend, dir, dir);

	it_exec(&r, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "hello\nin-pipe\nin-no-tty\nout-pipe\nnot a tty");
	/* -t gives one anyway, as docker run -t */
	cmd = fmt("echo hello | %s run -t --backend %s -v %s --chdir %s -- /bin/sh -c "
	          "'read x; echo got $x; test -t 0 && test -t 1 && echo all-tty; tty' 2>&1",
	          it_sbx_path(), backend, dir, dir);
	it_exec(&r, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "got hello");
	IT_EXPECT_CONTAINS(r.out, "all-tty");
	IT_EXPECT_CONTAINS(r.out, "/dev/pts/");
}

/* The worker shares sbx's standard descriptors' file status flags with the caller (one open
 * file description): O_NONBLOCK it sets on its stdin is gone when sbx ends, and the caller's
 * next reader blocks as it did (an outside attack: the next program's read failed). */
static void flags_given_back(void)
{
	const char *dir = it_tmpdir();
	struct it_run r;
	char *cmd = fmt("sleep 0 | { %s run --no-tty --backend %s -v %s --chdir %s -- python3 -c "
	                "'import fcntl,os; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, "
	                "fcntl.F_GETFL) | os.O_NONBLOCK); print(\"set\")'; python3 -c 'import "
	                "fcntl,os; print(\"nonblock\", bool(fcntl.fcntl(0, fcntl.F_GETFL) & "
	                "os.O_NONBLOCK))'; } 2>&1",
	                it_sbx_path(), backend, dir, dir);

	it_exec(&r, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "set\nnonblock False");
}

/* ...and the flock and lease it leaves on a file the caller's stdout writes (a lease made the
 * caller's next open of its own log wait 45 s, lease-break-time: an outside attack). */
static void locks_given_back(void)
{
	const char *dir = it_tmpdir();
	struct it_run r;
	char *log = it_path(dir, "out.log");
	char *cmd = fmt(
	    "exec 3>&1; exec >>%s; %s run --no-tty --backend %s -v %s --chdir %s -- python3 -c "
	    "'import fcntl,sys; fcntl.flock(1, fcntl.LOCK_EX); print(\"locked\", file=sys.stderr);"
	    " fcntl.fcntl(1, 1024, fcntl.F_WRLCK)' 2>&3; timeout 20 cat %s >/dev/null && echo "
	    "opened >&3; python3 -c 'import fcntl; fcntl.flock(open(\"%s\", \"a\"), "
	    "fcntl.LOCK_EX | fcntl.LOCK_NB); print(\"flock free\")' >&3 2>&3",
	    log, it_sbx_path(), backend, dir, dir, log, log);

	it_exec(&r, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
	IT_EXPECT_CONTAINS(r.out, "opened\nflock free");
}

/* ...and the mode of a file the caller's stdout writes (the namespaces backend lets the worker,
 * its owner there, make the caller's 0600 log 0644: an outside attack). */
static void file_mode_given_back(void)
{
	const char *dir = it_tmpdir();
	struct it_run r;
	char *log = it_path(dir, "mode.log");
	char *cmd =
	    fmt("umask 077; : > %s; %s run --no-tty --backend %s -v %s --chdir %s -- python3 "
	        "-c 'import os; os.fchmod(1, 0o644)' >> %s 2>/dev/null; stat -c %%a %s",
	        log, it_sbx_path(), backend, dir, dir, log, log);

	it_exec(&r, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
	IT_EXPECT_CONTAINS(r.out, "600\n");
}

/* ...and the caller's terminal's own mode, which the worker holding it (--no-tty) could make
 * readable by every user, so that what is typed later is (an outside attack). */
static void terminal_mode_given_back(void)
{
	struct term t;
	size_t at = 0;
	struct stat st;

	term_start(&t, 24, 80,
	           (const char *const[]){"--no-tty", "--", "/bin/sh", "-c",
	                                 "chmod 0644 /proc/self/fd/0; echo mo''ded", NULL});
	term_expect(&t, &at, "moded", __LINE__);
	IT_EXPECT_INT(term_wait(&t, now_ms(), NULL), 0);
	IT_EXPECT_INT(stat(ptsname(t.master), &st), 0);
	IT_EXPECT_INT(st.st_mode & 07777, t.tty_st.st_mode & 07777);
}

/* ---- nothing outlives the sandbox ---- */

/* The processes whose argv holds "sleep MARKER", as pidfds (at most 8). */
static size_t find_marked(const char *marker, int *fds)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		it_fail(__FILE__, __LINE__, "opendir /proc: %s", strerror(errno));
	while ((e = readdir(d)) && n < 8) {
		char path[300], buf[256];
		ssize_t got;
		int fd, pfd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		/* the pidfd first: if the pid is then still the marked process, the pidfd is it */
		pfd = pidfd_open(atoi(e->d_name));
		if (pfd < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		got = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (got > 0) {
			buf[got] = '\0';
			if (strcmp(buf, "sleep") == 0 && (size_t)got > 6 &&
			    strcmp(buf + 6, marker) == 0) {
				fds[n++] = pfd;
				continue;
			}
		}
		close(pfd);
	}
	closedir(d);
	return n;
}

static void expect_ended(const int *fds, size_t n, const char *marker)
{
	size_t left = 0;

	for (size_t i = 0; i < n; i++) {
		struct pollfd p = {fds[i], POLLIN, 0};

		if (poll(&p, 1, 20000) != 1) {
			syscall(SYS_pidfd_send_signal, fds[i], SIGKILL, NULL, 0);
			left++;
		}
	}
	if (left)
		it_fail(__FILE__, __LINE__,
		        "%zu processes the worker started (sleep %s) outlived the sandbox", left,
		        marker);
}

/* The worker leaves: a double-forked process in a session of its own that ignores SIGTERM
 * and SIGHUP, and a plain background one; then it waits (sbx is killed) or exits. */
static void leftovers(bool kill_sbx)
{
	const char *dir = it_tmpdir();
	char *marker = fmt("%d%03d", 7000 + (int)(getpid() % 1000), kill_sbx ? 1 : 2);
	char *script = fmt("(setsid sh -c 'trap \"\" TERM HUP INT; exec sleep %s' &) ; "
	                   "sleep %s & echo started; %s",
	                   marker, marker, kill_sbx ? "exec sleep 100" : "exit 0");
	int out[2], fds[8];
	size_t n, got = 0;
	char buf[256];
	pid_t pid;
	int st;

	if (pipe2(out, O_CLOEXEC) < 0)
		it_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(null, 0);
		dup2(out[1], 1);
		execl(it_sbx_path(), "sbx", "run", "--backend", backend, "-v", dir, "--chdir", dir,
		      "--", "/bin/sh", "-c", script, (char *)NULL);
		_exit(99);
	}
	close(out[1]);
	/* "started" once both are forked (the setsid one may still be on its way to exec) */
	while (got < sizeof(buf) - 1) {
		ssize_t k = read(out[0], buf + got, sizeof(buf) - 1 - got);

		if (k <= 0)
			break;
		got += (size_t)k;
		buf[got] = '\0';
		if (strstr(buf, "started"))
			break;
	}
	IT_EXPECT(strstr(buf, "started") != NULL);
	if (kill_sbx) {
		/* both marked processes running: wait for them as for any condition */
		long long end = now_ms() + BOUND_MS;

		while ((n = find_marked(marker, fds)) < 2) {
			for (size_t i = 0; i < n; i++)
				close(fds[i]);
			if (now_ms() > end)
				it_fail(__FILE__, __LINE__, "the worker's processes never started");
			sched_yield();
		}
		kill(pid, SIGKILL);
		IT_EXPECT(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st));
	} else {
		IT_EXPECT(waitpid(pid, &st, 0) == pid);
		IT_EXPECT_INT(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0);
		/* sbx has ended: whatever is still marked now is left over */
		n = find_marked(marker, fds);
	}
	/* each must end, bounded; what is left over is killed, then reported */
	expect_ended(fds, n, marker);
	/* none left anywhere */
	expect_ended(fds, find_marked(marker, fds), marker);
}

static void leftovers_worker_exits(void)
{
	leftovers(false);
}

static void leftovers_sbx_killed(void)
{
	leftovers(true);
}

/* ---- System V IPC ---- */

static int ipc_main(void)
{
	int r;

	r = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	printf("semget => %s\n", r >= 0 ? "ok" : strerror(errno));
	if (r >= 0)
		semctl(r, 0, IPC_RMID);
	r = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	printf("shmget => %s\n", r >= 0 ? "ok" : strerror(errno));
	if (r >= 0)
		shmctl(r, IPC_RMID, NULL);
	r = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	printf("msgget => %s\n", r >= 0 ? "ok" : strerror(errno));
	if (r >= 0)
		msgctl(r, IPC_RMID, NULL);
	return 0;
}

/* Under the landlock backend the worker shares the caller's IPC namespace, where what it
 * made would stay after the run: refused. Under the namespaces backend it has one of its
 * own, which ends with the sandbox. */
static void sysv_ipc(void)
{
	struct it_run r;
	const char *want = strcmp(backend, "landlock") == 0 ? "Operation not permitted" : "ok";

	it_run_in(&r, (const char *const[]){"--backend", backend, NULL},
	          (const char *const[]){"@probe", "--term-ipc", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("semget => %s", want));
	IT_EXPECT_CONTAINS(r.out, fmt("shmget => %s", want));
	IT_EXPECT_CONTAINS(r.out, fmt("msgget => %s", want));
	if (strcmp(backend, "landlock") == 0) {
		it_run_in(&r, (const char *const[]){"--backend", backend, "--dry-run", NULL},
		          (const char *const[]){"@probe", NULL});
		IT_EXPECT_CONTAINS(r.out, "@sysvipc");
	}
}

/* ---- both backends ---- */

#define BOTH_BACKENDS(check)                                                                       \
	static void test_##check##_namespaces(void)                                                \
	{                                                                                          \
		backend = "namespaces";                                                            \
		check();                                                                           \
	}                                                                                          \
	static void test_##check##_landlock(void)                                                  \
	{                                                                                          \
		backend = "landlock";                                                              \
		check();                                                                           \
	}

BOTH_BACKENDS(ctrl_c_sh)
BOTH_BACKENDS(ctrl_c_make)
BOTH_BACKENDS(ctrl_c_no_tty)
BOTH_BACKENDS(job_control)
BOTH_BACKENDS(window_size)
BOTH_BACKENDS(mode_restored_after_exit)
BOTH_BACKENDS(mode_restored_after_error)
BOTH_BACKENDS(no_tty_terminal_given_back)
BOTH_BACKENDS(mode_restored_after_sigkill)
BOTH_BACKENDS(stop_and_continue)
BOTH_BACKENDS(no_terminal)
BOTH_BACKENDS(flags_given_back)
BOTH_BACKENDS(locks_given_back)
BOTH_BACKENDS(file_mode_given_back)
BOTH_BACKENDS(terminal_mode_given_back)
BOTH_BACKENDS(leftovers_worker_exits)
BOTH_BACKENDS(leftovers_sbx_killed)
BOTH_BACKENDS(sysv_ipc)

#define BOTH(check) IT_CASE(test_##check##_namespaces), IT_CASE(test_##check##_landlock)

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    BOTH(ctrl_c_sh),
	    BOTH(ctrl_c_make),
	    BOTH(ctrl_c_no_tty),
	    BOTH(job_control),
	    BOTH(window_size),
	    BOTH(mode_restored_after_exit),
	    BOTH(mode_restored_after_error),
	    BOTH(mode_restored_after_sigkill),
	    BOTH(stop_and_continue),
	    BOTH(no_terminal),
	    BOTH(flags_given_back),
	    BOTH(locks_given_back),
	    BOTH(file_mode_given_back),
	    BOTH(terminal_mode_given_back),
	    BOTH(no_tty_terminal_given_back),
	    BOTH(leftovers_worker_exits),
	    BOTH(leftovers_sbx_killed),
	    BOTH(sysv_ipc),
	};

	if (argc > 1 && strcmp(argv[1], "--term-ipc") == 0)
		return ipc_main();
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
