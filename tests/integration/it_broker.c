/* SPDX-License-Identifier: MIT */
/*
 * The brokers (src/os/broker.c) and the audit log's writer (src/os/audit.c), driven directly:
 * scripted cmd: brokers that allow, deny, answer, hang, crash and flood; the tty broker
 * through a real pty, the test typing as the person; a socket broker served by a thread. The
 * audit log: 50 writers at once give whole lines only, a SIGKILLed writer still gets its end
 * record from the keeper; and through sbx itself: start and end records, a worker killed by
 * SIGKILL, sbx killed by SIGKILL.
 */
#include "harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "os/audit.h"
#include "sbx/explain.h"
#include "os/broker.h"

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A request line as core writes it; only "id" matters to the brokers. */
static void request(char *out, size_t size, unsigned id)
{
	snprintf(out, size,
	         "{\"v\":1,\"type\":\"approval\",\"id\":%u,\"sandbox\":"
	         "\"0123456789abcdef0123456789abcdef\",\"label\":null,\"op\":\"delete\","
	         "\"class\":\"delete\",\"call\":\"unlinkat\",\"path\":\"/ws/build/x\","
	         "\"host_path\":null,\"path2\":null,\"scope\":\"/ws/build\",\"rule\":"
	         "\"approvals: /ws delete ask\",\"pid\":42,\"comm\":\"rm\",\"cmdline\":[\"rm\","
	         "\"-rf\",\"build\"],\"deadline_ms\":0}",
	         id);
}

/* An executable script in this case's directory. */
static char *script(const char *name, const char *body)
{
	char *p = it_path(it_tmpdir(), name);
	char *text;

	IT_EXPECT(asprintf(&text, "#!/bin/sh\n%s\n", body) > 0);
	it_write_file(p, text);
	IT_EXPECT_INT(chmod(p, 0755), 0);
	return p;
}

static struct sbx_broker *open_broker(const char *spec)
{
	struct sbx_broker *b = NULL;
	struct sbx_error err = {0};

	if (sbx_broker_open(spec, &b, &err) < 0)
		it_fail(__FILE__, __LINE__, "sbx_broker_open(%s): %s", spec, err.msg);
	return b;
}

static struct sbx_broker *open_cmd(const char *name, const char *body)
{
	char spec[4200];

	snprintf(spec, sizeof(spec), "cmd:%s", script(name, body));
	return open_broker(spec);
}

static void ask(struct sbx_broker *b, unsigned id, unsigned timeout_ms,
                struct sbx_broker_answer *ans)
{
	char req[1024];

	request(req, sizeof(req), id);
	sbx_broker_ask(b, req, "sbx: delete /ws/build/x by rm[42]? [y/N/a(lways)] ", timeout_ms,
	               NULL, ans);
}

/* A file's whole text (allocated; a case is a short-lived child), or NULL. */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t len = 0;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	IT_EXPECT(fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size + 1);
	IT_EXPECT(buf != NULL);
	while (len < (size_t)st.st_size && (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* No child of this process is left (reaped or running). */
static void expect_no_children(void)
{
	IT_EXPECT(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* ---- cmd: ---- */

static void test_cmd_allow_exit_0(void)
{
	struct sbx_broker *b = open_cmd("allow", "cat >/dev/null; exit 0");
	struct sbx_broker_answer a;

	IT_EXPECT(strcmp(sbx_broker_kind(b), "cmd") == 0);
	ask(b, 1, 5000, &a);
	IT_EXPECT(a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_BROKER);
	IT_EXPECT_INT(a.remember, SBX_SUP_REMEMBER_ONCE);
	sbx_broker_close(b);
	expect_no_children();
}

static void test_cmd_deny_exit_1(void)
{
	struct sbx_broker *b = open_cmd("deny", "cat >/dev/null; exit 1");
	struct sbx_broker_answer a;

	ask(b, 1, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_BROKER);
	IT_EXPECT_CONTAINS(a.reason, "exited with 1");
	sbx_broker_close(b);
}

/* The request reaches stdin whole, with its newline; an answer line adds remember and reason;
 * an answer that says no is a no even with exit 0; output that is no answer is a no. */
static void test_cmd_answers(void)
{
	char *got = it_path(it_tmpdir(), "got");
	char body[8192], req[1024];
	struct sbx_broker *b;
	struct sbx_broker_answer a;

	snprintf(body, sizeof(body),
	         "cat >'%s'\n"
	         "echo '{\"v\":1,\"id\":7,\"allow\":true,\"remember\":\"session\",\"reason\":"
	         "\"ok by script\"}'",
	         got);
	b = open_cmd("session", body);
	ask(b, 7, 5000, &a);
	IT_EXPECT(a.allow);
	IT_EXPECT_INT(a.remember, SBX_SUP_REMEMBER_SESSION);
	IT_EXPECT_CONTAINS(a.reason, "ok by script");
	request(req, sizeof(req), 7);
	strcat(req, "\n");
	IT_EXPECT(strcmp(slurp(got), req) == 0);
	/* the same answer to another request id is not an answer to this one */
	ask(b, 8, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_CONTAINS(a.reason, "not an answer");
	sbx_broker_close(b);

	b = open_cmd("says-no", "cat >/dev/null; echo '{\"v\":1,\"id\":3,\"allow\":false,"
	                        "\"reason\":\"not today\"}'; exit 0");
	ask(b, 3, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_BROKER);
	IT_EXPECT_CONTAINS(a.reason, "not today");
	sbx_broker_close(b);

	b = open_cmd("chatty", "cat >/dev/null; echo hello; exit 0");
	ask(b, 3, 5000, &a);
	IT_EXPECT(!a.allow);
	sbx_broker_close(b);

	b = open_cmd("long", "cat >/dev/null; head -c 100000 /dev/zero | tr '\\0' x; exit 0");
	ask(b, 3, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_CONTAINS(a.reason, "more than");
	sbx_broker_close(b);
	expect_no_children();
}

/* A hanging broker: deny by TIMEOUT within the timeout and a second, and nothing of it left:
 * neither the broker nor what it started in the background. */
static void test_cmd_hang_times_out(void)
{
	char *pidfile = it_path(it_tmpdir(), "bg.pid");
	char body[4200];
	struct sbx_broker *b;
	struct sbx_broker_answer a;
	uint64_t t0, t1;
	pid_t bg;

	snprintf(body, sizeof(body), "sleep 1000 & echo $! >'%s'; sleep 1000", pidfile);
	b = open_cmd("hang", body);
	t0 = mono_ms();
	ask(b, 1, 500, &a);
	t1 = mono_ms();
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_TIMEOUT);
	IT_EXPECT(t1 - t0 >= 450 && t1 - t0 < 1500);
	expect_no_children();
	bg = (pid_t)atoi(slurp(pidfile));
	IT_EXPECT(bg > 0);
	/* killed with the broker's group; its reaping is init's, so look until it is gone */
	for (uint64_t end = mono_ms() + 5000; kill(bg, 0) == 0;) {
		char stat[64], *s;

		snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)bg);
		s = slurp(stat);
		if (s && strstr(s, ") Z "))
			break; /* a zombie waiting for init: dead */
		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "the broker's background process %d lives on",
			        (int)bg);
		usleep(10000);
	}
	sbx_broker_close(b);
}

/* The cancel fd: each byte read is a signal; 'T' cancels (SIGTERM), others do not. */
static bool cancel_on_t(void *ctx)
{
	int fd = *(int *)ctx;
	bool cancel = false;
	char c;

	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};

		if (poll(&p, 1, 0) <= 0 || read(fd, &c, 1) != 1)
			break;
		cancel = cancel || c == 'T';
	}
	return cancel;
}

/* sbx told to end while a broker thinks (SIGTERM, ^C): the question is denied at once (not
 * at the broker's timeout), decider CANCELLED, the broker's group killed; a signal that does
 * not end sbx (a SIGCHLD) leaves the question waiting. Before, sbx waited out the timeout. */
static void test_cmd_cancelled(void)
{
	char *pidfile = it_path(it_tmpdir(), "bg.pid");
	char body[4200];
	struct sbx_broker *b;
	struct sbx_broker_answer a;
	uint64_t t0, t1;
	int pipefd[2], st;
	pid_t sender, bg;

	snprintf(body, sizeof(body), "sleep 1000 & echo $! >'%s'; sleep 1000", pidfile);
	b = open_cmd("hang", body);
	IT_EXPECT_INT(pipe(pipefd), 0);
	sender = fork();
	IT_EXPECT(sender >= 0);
	if (sender == 0) {
		usleep(200000);
		if (write(pipefd[1], "C", 1) != 1)
			_exit(1);
		usleep(300000);
		_exit(write(pipefd[1], "T", 1) == 1 ? 0 : 1);
	}
	close(pipefd[1]);
	{
		char req[1024];
		const struct sbx_broker_cancel cancel = {pipefd[0], cancel_on_t, &pipefd[0]};

		request(req, sizeof(req), 1);
		t0 = mono_ms();
		sbx_broker_ask(b, req, "sbx: delete /ws/x? ", 20000, &cancel, &a);
		t1 = mono_ms();
	}
	IT_EXPECT(waitpid(sender, &st, 0) == sender && st == 0);
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_CANCELLED);
	IT_EXPECT(t1 - t0 >= 450 && t1 - t0 < 5000);
	expect_no_children();
	bg = (pid_t)atoi(slurp(pidfile));
	IT_EXPECT(bg > 0);
	for (uint64_t end = mono_ms() + 5000; kill(bg, 0) == 0;) {
		char stat[64], *s;

		snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)bg);
		s = slurp(stat);
		if (s && strstr(s, ") Z "))
			break;
		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "the broker's background process %d lives on",
			        (int)bg);
		usleep(10000);
	}
	close(pipefd[0]);
	sbx_broker_close(b);
}

static void test_cmd_crash(void)
{
	struct sbx_broker *b = open_cmd("crash", "kill -SEGV $$");
	struct sbx_broker_answer a;

	ask(b, 1, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_BROKER);
	IT_EXPECT_CONTAINS(a.reason, "signal 11");
	IT_EXPECT_CONTAINS(a.reason, "SIGSEGV");
	sbx_broker_close(b);
	expect_no_children();
}

/* The descriptors this process has open, as a bit set of numbers below 1024. */
static void open_fds(unsigned char set[128])
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	IT_EXPECT(d != NULL);
	memset(set, 0, 128);
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] != '.' && fd != dirfd(d) && fd < 1024)
			set[fd / 8] |= (unsigned char)(1u << (fd % 8));
	}
	closedir(d);
}

/* 100 asks in a row: each answered, no descriptor and no process left over, in bounded time. */
static void test_cmd_flood(void)
{
	struct sbx_broker *b = open_cmd("flood", "cat >/dev/null; exit 0");
	struct sbx_broker_answer a;
	unsigned char before[128], after[128];
	uint64_t t0 = mono_ms();

	open_fds(before);

	for (unsigned i = 1; i <= 100; i++) {
		ask(b, i, 5000, &a);
		IT_EXPECT(a.allow);
	}
	IT_EXPECT(mono_ms() - t0 < 30000);
	open_fds(after);
	for (int i = 0; i < 128; i++)
		IT_EXPECT_INT(after[i] & ~before[i], 0);
	expect_no_children();
	sbx_broker_close(b);
}

/* The broker gets stdin, stdout and stderr and nothing else of sbx's, even a descriptor left
 * without close-on-exec. */
static void test_cmd_fds_not_inherited(void)
{
	char *list = it_path(it_tmpdir(), "fds");
	char body[4200];
	struct sbx_broker *b;
	struct sbx_broker_answer a;
	char *got;

	IT_EXPECT_INT(dup2(2, 77), 77); /* no FD_CLOEXEC */
	snprintf(body, sizeof(body), "cat >/dev/null; ls /proc/$$/fd >'%s'", list);
	b = open_cmd("fds", body);
	ask(b, 1, 5000, &a);
	IT_EXPECT(a.allow);
	got = slurp(list);
	IT_EXPECT(got != NULL);
	IT_EXPECT_CONTAINS(got, "2\n");
	IT_EXPECT_NOT_CONTAINS(got, "77");
	sbx_broker_close(b);
}

static void test_open_refusals(void)
{
	struct sbx_broker *b = NULL;
	struct sbx_error err = {0};
	char *plain = it_path(it_tmpdir(), "plain");

	it_write_file(plain, "not executable\n");
	IT_EXPECT(sbx_broker_open("cmd:/nonexistent/broker", &b, &err) < 0 && !b);
	IT_EXPECT_CONTAINS(err.msg, "/nonexistent/broker");
	IT_EXPECT(sbx_broker_open("socket:/nonexistent/broker.sock", &b, &err) < 0 && !b);
	IT_EXPECT_CONTAINS(err.msg, "cannot connect");
	IT_EXPECT(sbx_broker_open("maybe", &b, &err) < 0 && !b);
	IT_EXPECT_CONTAINS(err.hint, "cmd:PROGRAM");
	if (getuid() != 0) {
		char spec[4200];

		snprintf(spec, sizeof(spec), "cmd:%s", plain);
		IT_EXPECT(sbx_broker_open(spec, &b, &err) < 0 && !b);
	}
	b = open_broker("deny");
	{
		struct sbx_broker_answer a;

		ask(b, 1, 100, &a);
		IT_EXPECT(!a.allow);
		IT_EXPECT_INT(a.decider, SBX_SUP_BY_POLICY);
	}
	sbx_broker_close(b);
	b = open_broker("allow");
	{
		struct sbx_broker_answer a;

		ask(b, 1, 100, &a);
		IT_EXPECT(a.allow);
		IT_EXPECT_INT(a.decider, SBX_SUP_BY_POLICY);
	}
	sbx_broker_close(b);
	sbx_broker_close(NULL);
	/* no terminal at all: tty is refused, the default is deny */
	if (setsid() < 0 && errno != EPERM)
		it_fail(__FILE__, __LINE__, "setsid: %s", strerror(errno));
	if (open("/dev/tty", O_RDWR | O_CLOEXEC) < 0) {
		IT_EXPECT(sbx_broker_open("tty", &b, &err) < 0 && !b);
		IT_EXPECT_CONTAINS(err.msg, "no terminal");
		b = open_broker(NULL);
		IT_EXPECT(strcmp(sbx_broker_kind(b), "deny") == 0);
		sbx_broker_close(b);
	}
}

/* ---- tty, through a real pty ---- */

/* Read the master until `want` has appeared (bounded); returns what was read. */
static char *pty_wait_for(int master, const char *want, char *buf, size_t size, size_t *len)
{
	uint64_t end = mono_ms() + 10000;

	while (!strstr(buf, want)) {
		struct pollfd p = {master, POLLIN, 0};
		ssize_t n;

		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "no \"%s\" on the terminal; it shows:\n%s",
			        want, buf);
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(master, buf + *len, size - 1 - *len);
		if (n <= 0)
			it_fail(__FILE__, __LINE__, "the terminal closed; it showed:\n%s", buf);
		*len += (size_t)n;
		buf[*len] = '\0';
	}
	return buf;
}

struct tty_result {
	int allow, remember, decider;
	char reason[256];
};

/* The asking side: a new session whose controlling terminal is the pty's slave, which asks
 * `rounds` questions and sends each answer back on `report`. `go` is read before each ask. */
__attribute__((noreturn)) static void tty_asker(const char *slave, int go, int report, int rounds,
                                                unsigned timeout_ms)
{
	struct sbx_broker *b = NULL;
	struct sbx_error err = {0};
	int fd;

	setsid();
	fd = open(slave, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0)
		_exit(2);
	if (sbx_broker_open("tty", &b, &err) < 0)
		_exit(3);
	for (int i = 0; i < rounds; i++) {
		struct sbx_broker_answer a;
		struct tty_result r = {0};
		char c, req[1024];

		if (read(go, &c, 1) != 1)
			_exit(4);
		request(req, sizeof(req), (unsigned)i + 1);
		sbx_broker_ask(b, req, "sbx: delete /ws/evil\x1b]0;pwned\x07 by rm[42]? ",
		               timeout_ms, NULL, &a);
		r.allow = a.allow;
		r.remember = a.remember;
		r.decider = a.decider;
		snprintf(r.reason, sizeof(r.reason), "%s", a.reason);
		if (write(report, &r, sizeof(r)) != sizeof(r))
			_exit(5);
	}
	sbx_broker_close(b);
	_exit(0);
}

static void tty_round(int master, int go, int report, const char *typed_ahead, const char *answer,
                      struct tty_result *r)
{
	static char screen[65536];
	static size_t len;

	if (typed_ahead) {
		/* keys pressed before the question: they must not answer it */
		IT_EXPECT(write(master, typed_ahead, strlen(typed_ahead)) > 0);
	}
	len = 0;
	screen[0] = '\0';
	IT_EXPECT(write(go, "g", 1) == 1);
	/* the header line, then the prompt (the terminal turns \n into \r\n) */
	pty_wait_for(master, "by rm[42]? \r\r\nsbx: delete /ws/evil\\x1b]0;pwned\\x07 by rm[42]? ",
	             screen, sizeof(screen), &len);
	/* the prompt's control bytes reach the terminal escaped, never raw */
	IT_EXPECT_CONTAINS(screen, "\\x1b]0;pwned\\x07");
	/* sbx's own line, which a worker's output cannot be mistaken for: after a blank line,
	 * plain attributes, "sbx asks:" in bold, the whole question */
	IT_EXPECT_CONTAINS(screen, "\033[0m\r");
	IT_EXPECT_CONTAINS(screen, "\n\r\r\n\033[1msbx asks:\033[0m sbx: delete /ws/evil");
	/* apart from sbx's own attributes, no escape and no bell reaches the terminal */
	for (char *own; (own = strstr(screen, "\033[0m")) || (own = strstr(screen, "\033[1m"));)
		memset(own, '.', 4);
	IT_EXPECT(!memchr(screen, 0x1b, len) && !memchr(screen, 0x07, len));
	if (answer)
		IT_EXPECT(write(master, answer, strlen(answer)) > 0);
	IT_EXPECT(read(report, r, sizeof(*r)) == sizeof(*r));
}

static void test_tty_through_pty(void)
{
	int master, slave, go[2], report[2], st;
	char name[256];
	struct tty_result r;
	pid_t pid;

	if (openpty(&master, &slave, name, NULL, NULL) < 0)
		it_skip("no pseudo-terminals here: %s", strerror(errno));
	IT_EXPECT(pipe(go) == 0 && pipe(report) == 0);
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		close(master);
		close(slave);
		tty_asker(name, go[0], report[1], 5, 1000);
	}
	/* the slave stays open here too: the master reads EIO while no slave is open */
	tty_round(master, go[1], report[0], NULL, "y\n", &r);
	IT_EXPECT(r.allow);
	IT_EXPECT_INT(r.decider, SBX_SUP_BY_PERSON);
	IT_EXPECT_INT(r.remember, SBX_SUP_REMEMBER_ONCE);
	tty_round(master, go[1], report[0], NULL, "  Always \n", &r);
	IT_EXPECT(r.allow);
	IT_EXPECT_INT(r.remember, SBX_SUP_REMEMBER_SESSION);
	tty_round(master, go[1], report[0], NULL, "sure\n", &r);
	IT_EXPECT(!r.allow);
	IT_EXPECT_INT(r.decider, SBX_SUP_BY_PERSON);
	/* typed ahead: "y" before the question is flushed; the answer typed after it counts */
	tty_round(master, go[1], report[0], "y\ny\n", "n\n", &r);
	IT_EXPECT(!r.allow);
	IT_EXPECT_INT(r.decider, SBX_SUP_BY_PERSON);
	/* nobody answers: denied when the timeout (1 s) passes */
	tty_round(master, go[1], report[0], NULL, NULL, &r);
	IT_EXPECT(!r.allow);
	IT_EXPECT_INT(r.decider, SBX_SUP_BY_TIMEOUT);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	IT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(master);
	close(slave);
}

/* ---- socket: ---- */

struct server {
	int listen_fd;
	int mode; /* per request id: see serve() */
};

/* Answers by request id: 1 allow for the session; 2 after 1.5 s (too late); 3 allow at once;
 * 4 the connection is closed instead. */
static void *serve(void *arg)
{
	struct server *s = arg;
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	FILE *in;
	char line[8192];

	if (fd < 0)
		return NULL;
	in = fdopen(dup(fd), "r");
	while (in && fgets(line, sizeof(line), in)) {
		const char *p = strstr(line, "\"id\":");
		unsigned id = p ? (unsigned)atoi(p + 5) : 0;
		char ans[256];

		if (id == 4)
			break;
		if (id == 2)
			usleep(1500 * 1000);
		snprintf(ans, sizeof(ans),
		         "{\"v\":1,\"id\":%u,\"allow\":true%s,\"reason\":\"served %u\"}\n", id,
		         id == 1 ? ",\"remember\":\"session\"" : "", id);
		if (write(fd, ans, strlen(ans)) < 0)
			break;
	}
	if (in)
		fclose(in);
	close(fd);
	return NULL;
}

static void test_socket_broker(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct server s = {0};
	struct sbx_broker_answer a;
	struct sbx_broker *b;
	pthread_t t;
	char spec[256];
	uint64_t t0;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/b.sock", it_tmpdir());
	s.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	IT_EXPECT(s.listen_fd >= 0);
	IT_EXPECT(bind(s.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	IT_EXPECT(listen(s.listen_fd, 4) == 0);
	IT_EXPECT(pthread_create(&t, NULL, serve, &s) == 0);
	snprintf(spec, sizeof(spec), "socket:%s", sa.sun_path);
	b = open_broker(spec);
	IT_EXPECT(strcmp(sbx_broker_kind(b), "socket") == 0);

	ask(b, 1, 5000, &a);
	IT_EXPECT(a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_BROKER);
	IT_EXPECT_INT(a.remember, SBX_SUP_REMEMBER_SESSION);
	IT_EXPECT_CONTAINS(a.reason, "served 1");
	/* a slow answer: deny by timeout */
	t0 = mono_ms();
	ask(b, 2, 300, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_TIMEOUT);
	IT_EXPECT(mono_ms() - t0 < 1300);
	/* the late answer to 2 arrives first and is skipped: 3 gets its own */
	ask(b, 3, 5000, &a);
	IT_EXPECT(a.allow);
	IT_EXPECT_CONTAINS(a.reason, "served 3");
	/* the broker goes away: deny, now and for every later request, with a reason */
	ask(b, 4, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_CONTAINS(a.reason, "closed the connection");
	ask(b, 5, 5000, &a);
	IT_EXPECT(!a.allow);
	IT_EXPECT_INT(a.decider, SBX_SUP_BY_NO_BROKER);
	IT_EXPECT_CONTAINS(a.reason, "closed the connection");
	pthread_join(t, NULL);
	sbx_broker_close(b);
}

/* ---- the audit log's writer ---- */

static const char test_id[] = "00112233445566778899aabbccddeeff";

static struct sbx_audit *open_log(const char *path)
{
	struct sbx_audit_ids ids = {.sandbox = test_id, .label = "task-7"};
	struct sbx_audit *a = NULL;
	struct sbx_error err = {0};
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (sbx_audit_open(path, &ids, (uint64_t)ts.tv_sec * 1000, &a, &err) < 0)
		it_fail(__FILE__, __LINE__, "sbx_audit_open(%s): %s", path, err.msg);
	return a;
}

static void test_audit_new_id(void)
{
	char a[SBX_SANDBOX_ID_LEN + 1], b[SBX_SANDBOX_ID_LEN + 1];

	IT_EXPECT_INT(sbx_audit_new_id(a), 0);
	IT_EXPECT_INT(sbx_audit_new_id(b), 0);
	IT_EXPECT_INT(strlen(a), SBX_SANDBOX_ID_LEN);
	IT_EXPECT_INT(strspn(a, "0123456789abcdef"), SBX_SANDBOX_ID_LEN);
	IT_EXPECT(strcmp(a, b) != 0);
}

static void test_audit_refuses_links_and_specials(void)
{
	char *target = it_path(it_tmpdir(), "real.log");
	char *link = it_path(it_tmpdir(), "link.log");
	char *fifo = it_path(it_tmpdir(), "fifo.log");
	struct sbx_audit_ids ids = {.sandbox = test_id};
	struct sbx_audit *a = NULL;
	struct sbx_error err = {0};
	struct stat st;

	IT_EXPECT_INT(symlink(target, link), 0);
	IT_EXPECT(sbx_audit_open(link, &ids, 0, &a, &err) < 0 && !a);
	IT_EXPECT_CONTAINS(err.msg, "symbolic link");
	IT_EXPECT(lstat(target, &st) < 0); /* nothing created through the link */
	IT_EXPECT_INT(mkfifo(fifo, 0600), 0);
	IT_EXPECT(sbx_audit_open(fifo, &ids, 0, &a, &err) < 0 && !a); /* and no hang */
	IT_EXPECT(sbx_audit_open(it_tmpdir(), &ids, 0, &a, &err) < 0 && !a);
	/* created 0600 */
	a = open_log(target);
	IT_EXPECT_INT(stat(target, &st), 0);
	IT_EXPECT_INT(st.st_mode & 07777, 0600);
	sbx_audit_finish(a, NULL);
	expect_no_children();
}

#define WRITERS 50
#define RECORDS 200

/* 50 processes, 200 records each, of 100 bytes to 12 KiB, into one log at once: every line is
 * one whole record (its declared length and its padding agree), and none is missing. */
static void test_audit_concurrent_writers(void)
{
	char *log = it_path(it_tmpdir(), "shared.log");
	pid_t pids[WRITERS];
	unsigned seen[WRITERS] = {0};
	unsigned ends = 0, lines = 0;
	static struct sbx_jsonl parsed;
	char *text, *line, *save;

	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		IT_EXPECT(pids[w] >= 0);
		if (pids[w] == 0) {
			struct sbx_audit *a = open_log(log);
			static char rec[SBX_AUDIT_LINE_MAX];

			for (int i = 0; i < RECORDS; i++) {
				/* every tenth longer than a page and than PIPE_BUF */
				int pad = i % 10 ? 50 + (w * 7919 + i * 104729) % 400
				                 : 4000 + (w * 7919 + i * 104729) % 12000;
				int n = snprintf(rec, sizeof(rec),
				                 "{\"v\":1,\"type\":\"test\",\"w\":%d,\"i\":%d,"
				                 "\"pad\":%d,\"x\":\"",
				                 w, i, pad);

				memset(rec + n, 'a' + (w % 26), (size_t)pad);
				snprintf(rec + n + pad, sizeof(rec) - (size_t)(n + pad), "\"}");
				if (sbx_audit_write(a, rec) < 0)
					_exit(1);
			}
			sbx_audit_finish(a, NULL);
			_exit(0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int st;

		IT_EXPECT(waitpid(pids[w], &st, 0) == pids[w]);
		IT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	text = slurp(log);
	IT_EXPECT(text != NULL && *text);
	IT_EXPECT(text[strlen(text) - 1] == '\n');
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int w, i, pad, n = 0;

		lines++;
		if (strstr(line, "\"type\":\"end\"")) {
			IT_EXPECT_INT(sbx_jsonl_parse(line, strlen(line), &parsed), 0);
			ends++;
			continue;
		}
		if (sscanf(line,
		           "{\"v\":1,\"type\":\"test\",\"w\":%d,\"i\":%d,\"pad\":%d,\"x\":\"%n", &w,
		           &i, &pad, &n) != 3 ||
		    n == 0 || w < 0 || w >= WRITERS)
			it_fail(__FILE__, __LINE__, "line %u is not a whole record: %.120s", lines,
			        line);
		IT_EXPECT_INT(strlen(line), (size_t)n + (size_t)pad + 2);
		IT_EXPECT_INT(sbx_jsonl_parse(line, strlen(line), &parsed), 0);
		IT_EXPECT_INT(strspn(line + n, (char[]){(char)('a' + (w % 26)), 0}), pad);
		IT_EXPECT(strcmp(line + n + pad, "\"}") == 0);
		seen[w]++;
	}
	for (int w = 0; w < WRITERS; w++)
		IT_EXPECT_INT(seen[w], RECORDS);
	IT_EXPECT_INT(ends, WRITERS);
}

/* Wait (bounded) until the file holds `want`; returns its text. */
static char *wait_for_text(const char *path, const char *want, unsigned ms)
{
	uint64_t end = mono_ms() + ms;

	for (;;) {
		char *t = slurp(path);

		if (t && strstr(t, want))
			return t;
		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "%s never held \"%s\"; it holds:\n%s", path,
			        want, t ? t : "(nothing)");
		usleep(10000);
	}
}

/* The writer is killed with SIGKILL: the keeper writes the end record. And ^C to the
 * writer's process group does not reach the keeper first. */
static void test_audit_keeper_writes_end(void)
{
	char *log = it_path(it_tmpdir(), "killed.log");
	int ready[2], st;
	char *text;
	pid_t pid;

	IT_EXPECT(pipe(ready) == 0);
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		struct sbx_audit *a;

		setpgid(0, 0);
		a = open_log(log);
		IT_EXPECT_INT(sbx_audit_write(a, "{\"v\":1,\"type\":\"start\"}"), 0);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	{
		char c;

		IT_EXPECT(read(ready[0], &c, 1) == 1);
	}
	kill(-pid, SIGINT); /* the terminal's ^C reaches the writer's group: not the keeper */
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	IT_EXPECT(WIFSIGNALED(st));
	text = wait_for_text(log, "sbx killed", 5000);
	IT_EXPECT_CONTAINS(text, "\"type\":\"end\"");
	IT_EXPECT_CONTAINS(text, test_id);
	IT_EXPECT_CONTAINS(text, "task-7");
	/* once: the keeper wrote one end and left */
	IT_EXPECT(strstr(strstr(text, "\"type\":\"end\"") + 1, "\"type\":\"end\"") == NULL);

	/* and SIGKILL itself */
	log = it_path(it_tmpdir(), "killed9.log");
	IT_EXPECT(pipe(ready) == 0);
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		open_log(log);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	{
		char c;

		IT_EXPECT(read(ready[0], &c, 1) == 1);
	}
	kill(pid, SIGKILL);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	wait_for_text(log, "sbx killed", 5000);
}

/* The keeper killed by someone else: sbx's finish still returns (no SIGPIPE), its end record
 * written. */
static void test_audit_keeper_gone(void)
{
	char *log = it_path(it_tmpdir(), "nokeeper.log");
	struct sbx_audit *a = open_log(log);
	struct sbx_audit_end end = {.status = 0};
	pid_t keeper;
	int st;

	/* the keeper is this process's only child */
	{
		char path[64], kids[256] = "";
		int fd;

		snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			it_skip("no %s (CONFIG_PROC_CHILDREN)", path);
		IT_EXPECT(read(fd, kids, sizeof(kids) - 1) > 0);
		close(fd);
		keeper = (pid_t)atoi(kids);
	}
	IT_EXPECT(keeper > 0);
	IT_EXPECT_INT(kill(keeper, SIGKILL), 0);
	IT_EXPECT(waitpid(keeper, &st, 0) == keeper);
	sbx_audit_finish(a, &end); /* would die of SIGPIPE on a pipe */
	IT_EXPECT_CONTAINS(slurp(log), "\"type\":\"end\"");
}

/* A normal finish: one end record, by sbx, and the keeper gone without a second one. */
static void test_audit_finish_once(void)
{
	char *log = it_path(it_tmpdir(), "done.log");
	struct sbx_audit *a = open_log(log);
	struct sbx_audit_end end = {
	    .status = 3, .duration_ms = 12, .asked = 2, .allowed = 1, .denied = 1};
	char *text;

	IT_EXPECT(strcmp(sbx_audit_ids(a)->sandbox, test_id) == 0);
	sbx_audit_finish(a, &end);
	expect_no_children(); /* the keeper is reaped */
	text = slurp(log);
	IT_EXPECT_CONTAINS(text, "\"type\":\"end\"");
	IT_EXPECT_NOT_CONTAINS(text, "sbx killed");
	IT_EXPECT(strchr(text, '\n') == text + strlen(text) - 1);
}

/* ---- through sbx ---- */

static char *log_of(const char *name)
{
	return it_path(it_tmpdir(), name);
}

static void test_sbx_run_start_and_end(void)
{
	char *log = log_of("run.log");
	struct it_run r;
	char *text;

	it_sbxv(&r, "run", "--audit-log", log, "--label", "job-1", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	text = slurp(log);
	IT_EXPECT(text != NULL);
	IT_EXPECT_CONTAINS(text, "\"type\":\"start\"");
	IT_EXPECT_CONTAINS(text, "\"type\":\"end\"");
	IT_EXPECT_CONTAINS(text, "job-1");
	IT_EXPECT_CONTAINS(text, "\"status\":0");
	IT_EXPECT_NOT_CONTAINS(text, "sbx killed");
	IT_EXPECT_NOT_CONTAINS(r.err, "standard output");
	/* a log that is sbx's own stdout takes the worker's lines between the records: said */
	{
		char cmd[8192];

		snprintf(cmd, sizeof(cmd), "%s run --no-tty --audit-log %s -- echo forged >> %s",
		         it_sbx_path(), log, log);

		it_exec(&r, (const char *const[]){"/bin/sh", "-c", cmd, NULL});
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.err, "is sbx's standard output, which the worker may write");
	}
}

static void test_sbx_worker_sigkill(void)
{
	char *log = log_of("kill9.log");
	struct it_run r;
	char *text;

	it_sbxv(&r, "run", "--audit-log", log, "--", "sh", "-c", "kill -9 $$", NULL);
	IT_EXPECT_INT(r.status, 137);
	text = slurp(log);
	IT_EXPECT_CONTAINS(text, "\"type\":\"end\"");
	IT_EXPECT_CONTAINS(text, "\"signal\":9");
	IT_EXPECT_NOT_CONTAINS(text, "sbx killed");
}

/* sbx itself killed mid-run: the keeper's end record. */
static void test_sbx_killed(void)
{
	char *log = log_of("sbxkilled.log");
	char *mark = log_of("started");
	char script_text[4200];
	int st;
	pid_t pid;

	snprintf(script_text, sizeof(script_text), "touch '%s'; sleep 1000", mark);
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2); /* its warning: the log is in the writable mount */
		execl(it_sbx_path(), "sbx", "run", "--audit-log", log, "-v", it_tmpdir(), "--",
		      "sh", "-c", script_text, (char *)NULL);
		_exit(127);
	}
	for (uint64_t end = mono_ms() + 20000; access(mark, F_OK) != 0;) {
		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "the sandbox never started");
		usleep(10000);
	}
	kill(pid, SIGKILL);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	wait_for_text(log, "sbx killed", 10000);
}

/* A nested sbx names its parent's id (carried in the effective spec), and its depth. */
static void test_sbx_nested_parent_id(void)
{
	char *log = log_of("nested.log");
	char *sbx_dir = strdup(it_sbx_path()), *slash = strrchr(sbx_dir, '/'), sbx_ro[4200];
	struct it_run r;
	char *text, *outer, *inner, want[128];

	IT_EXPECT(slash != NULL);
	*slash = '\0';
	snprintf(sbx_ro, sizeof(sbx_ro), "%s:ro", sbx_dir);
	it_sbxv(&r, "run", "--allow-nesting", "--audit-log", log, "-v", sbx_ro, "-v", it_tmpdir(),
	        "--", it_sbx_path(), "run", "--audit-log", log, "--label", "inner", "--", "true",
	        NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "nested run: %d: %s", r.status, r.err);
	text = slurp(log);
	outer = strstr(text, "\"type\":\"start\"");
	IT_EXPECT(outer != NULL);
	inner = strstr(outer + 1, "\"type\":\"start\"");
	IT_EXPECT(inner != NULL);
	IT_EXPECT_CONTAINS(outer, "\"parent\":null");
	/* the inner start names the outer's sandbox id as its parent */
	IT_EXPECT(strncmp(strstr(outer, "\"sandbox\":\""), "\"sandbox\":\"", 11) == 0);
	snprintf(want, sizeof(want), "\"parent\":\"%.32s\"", strstr(outer, "\"sandbox\":\"") + 11);
	IT_EXPECT_CONTAINS(inner, want);
	IT_EXPECT_CONTAINS(inner, "\"depth\":2");
	IT_EXPECT_CONTAINS(inner, "\"label\":\"inner\"");
}

/* The log and the keeper's pipe never reach the worker, under either backend (the landlock
 * backend's worker is forked from sbx itself). */
static void test_sbx_worker_has_no_audit_fds(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};

	for (size_t i = 0; i < 2; i++) {
		char *log = log_of(backends[i]);
		struct it_run r;

		it_sbxv(&r, "run", "--backend", backends[i], "--audit-log", log, "--", "sh", "-c",
		        "ls /proc/$$/fd", NULL);
		if (r.status == 125 && i == 1 && strstr(r.err, "Landlock"))
			it_skip("the landlock backend: %s", r.err);
		IT_EXPECT_INT(r.status, 0);
		/* stdio and the spec's memfd (SBX_SPEC_FD) */
		if (strcmp(r.out, "0\n1\n2\n3\n") != 0)
			it_fail(__FILE__, __LINE__, "%s: the worker has %s", backends[i], r.out);
		IT_EXPECT_CONTAINS(slurp(log), "\"type\":\"end\"");
	}
}

/* sbx explain: the denials of the log's last MiB, oldest first, with the rule, who decided
 * and the change that would allow each; what the log holds is printed escaped; a malformed
 * line is counted and skipped; the log named by a profile's audit: key. */
static void test_sbx_explain(void)
{
	char *log = log_of("explain.log");
	char *prof = log_of("with-audit.yaml");
	FILE *f = fopen(log, "w");
	struct it_run r;
	char *text;

	IT_EXPECT(f != NULL);
	/* an old denial pushed out of the last MiB by filler, then the recent ones */
	fputs("{\"v\":1,\"type\":\"decision\",\"answer\":\"deny\",\"rule\":\"OLD RULE\"}\n", f);
	for (int i = 0; i < 1200; i++)
		fprintf(f, "{\"v\":1,\"type\":\"end\",\"pad\":\"%01000d\"}\n", i);
	fputs("{\"v\":1,\"type\":\"start\",\"time\":\"t0\",\"sandbox\":"
	      "\"f5f9ab7d9af581a01d1f94610067e893\",\"argv\":[\"make\",\"clean\"]}\n"
	      "{\"v\":1,\"type\":\"decision\",\"time\":\"t1\",\"sandbox\":"
	      "\"f5f9ab7d9af581a01d1f94610067e893\",\"label\":null,\"pid\":12,\"comm\":\"rm\","
	      "\"op\":\"delete\",\"call\":\"unlinkat\",\"path\":\"x\",\"resolved\":"
	      "\"/ws/build/\\u001b]0;pwned\\u0007x\",\"rule\":\"approvals: /ws delete ask\","
	      "\"decider\":\"person\",\"answer\":\"deny\",\"errno\":13,\"error\":\"EACCES\"}\n"
	      "not json at all\n"
	      "{\"v\":1,\"type\":\"decision\",\"time\":\"t2\",\"pid\":13,\"comm\":\"cat\","
	      "\"op\":\"read\",\"call\":\"openat\",\"resolved\":\"/data/a.bin\",\"rule\":"
	      "\"read caps: /data suffixes (/data/a.bin does not end with .csv)\",\"decider\":"
	      "\"policy\",\"answer\":\"deny\",\"errno\":13,\"error\":\"EACCES\"}\n"
	      "{\"v\":1,\"type\":\"decision\",\"time\":\"t3\",\"answer\":\"perform\",\"rule\":"
	      "\"approvals: /ws write allow\"}\n",
	      f);
	IT_EXPECT(fclose(f) == 0);
	it_sbxv(&r, "explain", log, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "OLD RULE");
	IT_EXPECT_CONTAINS(r.out, "delete /ws/build/\\x1b]0;pwned\\x07x (unlinkat): EACCES");
	IT_EXPECT(!strchr(r.out, 0x1b) && !strchr(r.out, 0x07));
	IT_EXPECT_CONTAINS(r.out, "rm[12] in sandbox f5f9ab7d, started as: make clean");
	IT_EXPECT_CONTAINS(r.out, "decided by: person");
	IT_EXPECT_CONTAINS(r.out, "to allow:   approvals: {delete: allow} on the mount /ws, or "
	                          "answer the prompt");
	IT_EXPECT_CONTAINS(r.out, "add \".bin\" to suffixes: on the mount /data");
	IT_EXPECT(strstr(r.out, "t1 ") < strstr(r.out, "t2 ")); /* oldest first */
	IT_EXPECT_CONTAINS(r.out, "2 denials shown of 2");
	IT_EXPECT_CONTAINS(r.out, "the last 1 MiB of");
	IT_EXPECT_CONTAINS(r.out, "1 malformed line skipped");
	/* -n 1: the latest only */
	it_sbxv(&r, "explain", "-n", "1", log, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "unlinkat");
	IT_EXPECT_CONTAINS(r.out, "1 denial shown of 2");
	/* the profile's audit: */
	text = NULL;
	IT_EXPECT(asprintf(&text, "version: 1\nname: with-audit\naudit: %s\n", log) > 0);
	it_write_file(prof, text);
	chmod(prof, 0644);
	it_sbxv(&r, "explain", "-p", prof, NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "explain -p: %d: %s", r.status, r.err);
	IT_EXPECT_CONTAINS(r.out, "2 denials shown of 2");
	/* no log: refused, saying how to name one */
	it_sbxv(&r, "explain", "-n", "0", log, NULL);
	IT_EXPECT_INT(r.status, 125);
	it_sbxv(&r, "explain", log_of("absent.log"), NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "absent.log");
}

/* A log the worker could rewrite is named at launch; a read-only view of it is not. */
static void test_sbx_warns_writable_log(void)
{
	char *log = log_of("visible.log");
	char ro[4200];
	struct it_run r;

	it_sbxv(&r, "run", "--audit-log", log, "-v", it_tmpdir(), "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "is writable inside the sandbox");
	snprintf(ro, sizeof(ro), "%s:ro", it_tmpdir());
	it_sbxv(&r, "run", "--audit-log", log, "-v", ro, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "writable inside");
	/* read-only: the worker reads every run's records (before: no warning) */
	IT_EXPECT_CONTAINS(r.err, "is readable inside the sandbox");
	it_sbxv(&r, "run", "--audit-log", log, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "inside the sandbox");
}

/* A worker that could write a directory on the log's path leaves a symbolic link there for
 * the next run, aimed at another directory: the next run refuses the log rather than append
 * to (or create) a file wherever the link points. Both backends. */
static void test_sbx_log_path_symlink_refused(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};
	char *cmd = NULL, *victim_log = NULL;
	struct it_run r;
	struct stat st;

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		char name[64];
		char *ws, *victim, *log;

		snprintf(name, sizeof(name), "plant-ws-%s", backends[i]);
		ws = it_path(it_tmpdir(), name);
		snprintf(name, sizeof(name), "victim-%s", backends[i]);
		victim = it_path(it_tmpdir(), name);
		victim_log = it_path(victim, "audit.log");
		log = it_path(ws, "logs/audit.log");
		IT_EXPECT(mkdir(ws, 0755) == 0 && mkdir(victim, 0755) == 0);
		free(cmd);
		IT_EXPECT(asprintf(&cmd, "ln -s %s %s/logs", victim, ws) > 0);
		/* the first run plants it */
		it_sbxv(&r, "run", "--backend", backends[i], "-v", ws, "--", "sh", "-c", cmd, NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT(lstat(it_path(ws, "logs"), &st) == 0 && S_ISLNK(st.st_mode));
		/* the next run, logging into the workspace, does not follow it */
		it_sbxv(&r, "run", "--backend", backends[i], "--audit-log", log, "--", "true",
		        NULL);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "symbolic link");
		IT_EXPECT_CONTAINS(r.err, "realpath");
		IT_EXPECT(lstat(victim_log, &st) < 0 && errno == ENOENT);
	}
	/* the real path works */
	it_sbxv(&r, "run", "--audit-log", victim_log, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(lstat(victim_log, &st) == 0 && S_ISREG(st.st_mode));
	free(cmd);
}

static char *asking_workspace(const char *ws);
static void supervised_or_skip(const struct it_run *r);

/* A listening unix socket at path (nothing accepts: a connect still succeeds). */
static int listen_at(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		it_skip("the test's directory is too long for a socket path");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	IT_EXPECT(fd >= 0);
	IT_EXPECT_INT(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	IT_EXPECT_INT(listen(fd, 8), 0);
	return fd;
}

/* A socket broker the worker can reach is one it can send forged requests to: sbx warns at
 * launch; not where no mount shows the socket. (Before: no warning.) */
static void test_sbx_warns_reachable_socket(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *prof = asking_workspace(ws);
	char *in = it_path(ws, "b.sock"), *out = it_path(it_tmpdir(), "b.sock"), spec[4200];
	int fd_in = listen_at(in), fd_out = listen_at(out);
	struct it_run r;

	snprintf(spec, sizeof(spec), "socket:%s", in);
	it_sbxv(&r, "run", "-p", prof, "--approve", spec, "--", "true", NULL);
	supervised_or_skip(&r);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "the broker's socket");
	IT_EXPECT_CONTAINS(r.err, "is reachable inside the sandbox");
	snprintf(spec, sizeof(spec), "socket:%s", out);
	it_sbxv(&r, "run", "-p", prof, "--approve", spec, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "reachable inside");
	close(fd_in);
	close(fd_out);
}

/* 50 sandboxes at once, one log: 50 starts and 50 ends, each whole and parseable, each
 * start with its end. */
static void test_sbx_concurrent_sandboxes(void)
{
	char *log = log_of("many.log");
	static struct sbx_jsonl j;
	char *text, *line, *save;
	char ids[50][SBX_SANDBOX_ID_LEN + 1];
	int starts = 0, ends = 0;
	pid_t pids[50];

	for (int i = 0; i < 50; i++) {
		pids[i] = fork();
		IT_EXPECT(pids[i] >= 0);
		if (pids[i] == 0) {
			int null = open("/dev/null", O_RDWR);

			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			execl(it_sbx_path(), "sbx", "run", "--audit-log", log, "--", "true",
			      (char *)NULL);
			_exit(127);
		}
	}
	for (int i = 0; i < 50; i++) {
		int st;

		IT_EXPECT(waitpid(pids[i], &st, 0) == pids[i]);
		IT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	text = slurp(log);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *type, *id;

		if (sbx_jsonl_parse(line, strlen(line), &j) < 0)
			it_fail(__FILE__, __LINE__, "not a record: %.200s", line);
		type = sbx_jsonl_get(&j, "type");
		id = sbx_jsonl_get(&j, "sandbox");
		IT_EXPECT(type && id && strlen(id) == SBX_SANDBOX_ID_LEN);
		if (strcmp(type, "start") == 0) {
			IT_EXPECT(starts < 50);
			memcpy(ids[starts++], id, SBX_SANDBOX_ID_LEN + 1);
			continue;
		}
		IT_EXPECT(strcmp(type, "end") == 0);
		IT_EXPECT(sbx_jsonl_get(&j, "status") &&
		          strcmp(sbx_jsonl_get(&j, "status"), "0") == 0);
		{
			bool known = false;

			for (int k = 0; k < starts; k++)
				known = known || strcmp(ids[k], id) == 0;
			IT_EXPECT(known); /* an end after its start */
		}
		ends++;
	}
	IT_EXPECT_INT(starts, 50);
	IT_EXPECT_INT(ends, 50);
}

/* ---- the whole chain: supervisor, broker, audit log, explain ---- */

/* A workspace whose deletions ask, with build/a and build/b in it; returns the profile. */
static char *asking_workspace(const char *ws)
{
	char *prof = it_path(it_tmpdir(), "asks.yaml"), *text = NULL;

	it_write_file(it_path(ws, "build/a"), "a\n");
	it_write_file(it_path(ws, "build/b"), "b\n");
	IT_EXPECT(asprintf(&text,
	                   "version: 1\nname: asks\nmounts:\n  - path: %s\n"
	                   "    approvals: {delete: ask}\n",
	                   ws) > 0);
	it_write_file(prof, text);
	return prof;
}

static void supervised_or_skip(const struct it_run *r)
{
	if (r->status == 125 &&
	    (strstr(r->err, "supervisor needs") || strstr(r->err, "user notification")))
		it_skip("no supervisor here: %s", r->err);
}

/* rm -rf build under delete: ask, a broker that says no: one question for the batch, both
 * calls denied (the second by the remembered refusal), every decision and the counts in the
 * log, and sbx explain says what would allow them. */
static void test_chain_cmd_broker_denies(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *log = log_of("chain.log");
	char *req = it_path(it_tmpdir(), "req"), body[4200], spec[4200], *prof, *text;
	struct it_run r;

	prof = asking_workspace(ws);
	snprintf(body, sizeof(body), "cat >>'%s'; exit 1", req);
	snprintf(spec, sizeof(spec), "cmd:%s", script("no", body));
	it_sbxv(&r, "run", "-p", prof, "--approve", spec, "--audit-log", log, "--label", "t-1",
	        "--chdir", ws, "--", "rm", "-rf", "build", NULL);
	supervised_or_skip(&r);
	IT_EXPECT(r.status != 0 && r.status != 125);
	IT_EXPECT(access(it_path(ws, "build/a"), F_OK) == 0);
	IT_EXPECT(access(it_path(ws, "build/b"), F_OK) == 0);
	/* asked once, for the batch */
	text = slurp(req);
	IT_EXPECT(text != NULL);
	IT_EXPECT(strchr(text, '\n') == text + strlen(text) - 1);
	IT_EXPECT_CONTAINS(text, "\"type\":\"approval\"");
	IT_EXPECT_CONTAINS(text, "\"label\":\"t-1\"");
	/* the host path behind the bind mount, in the request and the records (was null) */
	{
		char want[4300];

		snprintf(want, sizeof(want), "\"host_path\":\"%s/build", ws);
		IT_EXPECT_CONTAINS(text, want);
		IT_EXPECT_CONTAINS(slurp(log), want);
	}
	text = slurp(log);
	IT_EXPECT_CONTAINS(text, "\"type\":\"decision\"");
	IT_EXPECT_CONTAINS(text, "\"decider\":\"broker\"");
	IT_EXPECT_CONTAINS(text, "\"decider\":\"grant\"");
	/* the end record counts questions to the broker and its answers, not decisions */
	IT_EXPECT_CONTAINS(text, "\"asked\":1,\"allowed\":0,\"denied\":1");
	it_sbxv(&r, "explain", log, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "2 denials shown of 2");
	IT_EXPECT_CONTAINS(r.out, "to allow:   approvals: {delete: allow} on the mount");
	IT_EXPECT_CONTAINS(r.out, "started as: rm -rf build");
}

/* A broker that says yes: asked once, both files and the directory deleted (performed by the
 * supervisor), the counts in the end record. (Fails at sup-os a17d88d..c6da48b: after a
 * broker's yes, answer_perform clears s->req up to `path`, so the performer's perform() sees
 * call 0, C_OPEN: it opens the object and the worker's unlinkat returns the new fd's number,
 * deleting nothing.) */
static void test_chain_cmd_broker_allows(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *log = log_of("yes.log"), spec[4200], *prof;
	struct it_run r;

	prof = asking_workspace(ws);
	snprintf(spec, sizeof(spec), "cmd:%s", script("yes", "cat >/dev/null; exit 0"));
	it_sbxv(&r, "run", "-p", prof, "--approve", spec, "--audit-log", log, "--chdir", ws, "--",
	        "rm", "-rf", "build", NULL);
	supervised_or_skip(&r);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "rm -rf build: %d: %s", r.status, r.err);
	IT_EXPECT(access(it_path(ws, "build"), F_OK) < 0 && errno == ENOENT);
	IT_EXPECT_CONTAINS(slurp(log), "\"asked\":1,\"allowed\":");
	IT_EXPECT_CONTAINS(slurp(log), "\"denied\":0}");
}

/* A worker in a loop of denied calls (5000 denied deletes by one rm): the audit log and the
 * terminal get a few lines, one of them "repeated"/"more like it" with the count, not 5000
 * (before: one record and one line each; 39 MB/s were seen). */
static void test_chain_denials_folded(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *log = log_of("flood.log"), *prof, *text, *p;
	struct it_run r;
	size_t records = 0, lines = 0;

	prof = asking_workspace(ws);
	it_sbxv(&r, "run", "-p", prof, "--approve", "deny", "--audit-log", log, "--chdir", ws, "--",
	        "sh", "-c",
	        "set --; i=0; while [ $i -lt 5000 ]; do set -- \"$@\" build/a; i=$((i+1)); "
	        "done; rm -f \"$@\" 2>/dev/null; true",
	        NULL);
	supervised_or_skip(&r);
	IT_EXPECT_INT(r.status, 0);
	text = slurp(log);
	IT_EXPECT(text != NULL);
	for (p = text; (p = strstr(p, "\"type\":\"decision\"")); p++)
		records++;
	for (p = r.err; (p = strstr(p, "sbx: supervisor: ")); p++)
		lines++;
	if (records > 10 || lines > 10)
		it_fail(__FILE__, __LINE__, "%zu records, %zu lines for 5000 like denials", records,
		        lines);
	IT_EXPECT(strstr(text, "\"repeated\":") != NULL);
	IT_EXPECT_CONTAINS(r.err, "more like it, the last: denied delete");
	/* the end record counts questions put to the broker and their answers (sbx(1), AUDIT
	 * LOG): one refusal, remembered for the other 4 999 */
	IT_EXPECT_CONTAINS(text, "\"asked\":1,\"allowed\":0,\"denied\":1}");
}

/* sbx check answers ask (not allow) for an operation a mount's approvals ask, and who will
 * answer in a run; an operation nothing asks stays allow. (Before: allow.) */
static void test_check_says_ask(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *prof = asking_workspace(ws);
	char *file = it_path(ws, "build/a");
	struct it_run r;

	it_sbxv(&r, "check", "--profile", prof, "delete", file, NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "ask   delete");
	IT_EXPECT_CONTAINS(r.out, "approvals: delete ask");
	IT_EXPECT_CONTAINS(r.out, "denies where sbx has none");
	IT_EXPECT_NOT_CONTAINS(r.out, "allow delete");
	it_sbxv(&r, "check", "--profile", prof, "create,read", file, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "allow create");
	/* rename: ask asks rename (before: allow create, allow delete, exit 0) */
	{
		char *rp = it_path(it_tmpdir(), "rename-asks.yaml"), *text = NULL;

		IT_EXPECT(asprintf(&text,
		                   "version: 1\nname: rename-asks\nmounts:\n  - path: %s\n"
		                   "    approvals: {rename: ask}\n",
		                   ws) > 0);
		it_write_file(rp, text);
		free(text);
		it_sbxv(&r, "check", "--profile", rp, "rename", file, NULL);
		IT_EXPECT_INT(r.status, 1);
		IT_EXPECT_CONTAINS(r.out, "ask   rename");
		IT_EXPECT_CONTAINS(r.out, "approvals: rename ask");
		it_sbxv(&r, "check", "--profile", rp, "delete", file, NULL);
		IT_EXPECT_INT(r.status, 0);
	}
}

/* sbx run with a cmd broker that never answers; returns sbx's pid once the broker runs
 * (its pid in pidfile). */
static pid_t run_with_hanging_broker(const char *ws, const char *log, const char *pidfile)
{
	char body[4200], spec[4200], *prof = asking_workspace(ws);
	pid_t pid;

	snprintf(body, sizeof(body), "echo $$ >'%s.tmp'; mv '%s.tmp' '%s'; exec sleep 1000",
	         pidfile, pidfile, pidfile);
	snprintf(spec, sizeof(spec), "cmd:%s", script("hang", body));
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execl(it_sbx_path(), "sbx", "run", "-p", prof, "--approve", spec,
		      "--approve-timeout", "3600", "--audit-log", log, "--chdir", ws, "--", "rm",
		      "-rf", "build", (char *)NULL);
		_exit(127);
	}
	for (uint64_t end = mono_ms() + 20000; access(pidfile, F_OK) != 0;) {
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid)
			it_skip("sbx ended before it asked (no supervisor here?): %d", st);
		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "the broker was never asked");
		usleep(10000);
	}
	return pid;
}

static void expect_gone(pid_t pid, unsigned ms)
{
	for (uint64_t end = mono_ms() + ms; kill(pid, 0) == 0;) {
		char stat[64], *s;

		snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)pid);
		s = slurp(stat);
		if (s && strstr(s, ") Z "))
			return;
		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "process %d lives on", (int)pid);
		usleep(10000);
	}
}

/* SIGTERM (and ^C) while a broker is asked: the question is denied at once, decider
 * "cancelled", and the sandbox ends as the signal asked, not after --approve-timeout 3600.
 * (Before: sbx ignored it until the broker's timeout.) */
static void test_chain_sigterm_cancels_question(void)
{
	static const int sigs[] = {SIGTERM, SIGINT};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char name[32], *ws, *log, *pidfile, *text;
		pid_t pid, broker;
		int st;

		snprintf(name, sizeof(name), "ws%zu", i);
		ws = it_path(it_tmpdir(), name);
		snprintf(name, sizeof(name), "cancel%zu.log", i);
		log = log_of(name);
		snprintf(name, sizeof(name), "broker%zu.pid", i);
		pidfile = it_path(it_tmpdir(), name);
		pid = run_with_hanging_broker(ws, log, pidfile);
		broker = (pid_t)atoi(slurp(pidfile));
		kill(pid, sigs[i]);
		for (uint64_t end = mono_ms() + 10000; waitpid(pid, &st, WNOHANG) != pid;) {
			if (mono_ms() > end) {
				kill(pid, SIGKILL);
				it_fail(__FILE__, __LINE__,
				        "sbx did not end on signal %d while it "
				        "asked",
				        sigs[i]);
			}
			usleep(10000);
		}
		expect_gone(broker, 5000);
		text = slurp(log);
		IT_EXPECT(text != NULL);
		IT_EXPECT_CONTAINS(text, "\"decider\":\"cancelled\"");
		IT_EXPECT(access(it_path(ws, "build/a"), F_OK) == 0);
	}
}

/* sbx SIGKILLed while a cmd broker thinks: the broker dies with it (PR_SET_PDEATHSIG), no
 * host process left running. */
static void test_chain_sbx_killed_kills_broker(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *log = log_of("k.log");
	char *pidfile = it_path(it_tmpdir(), "broker.pid");
	pid_t pid = run_with_hanging_broker(ws, log, pidfile), broker;
	int st;

	broker = (pid_t)atoi(slurp(pidfile));
	IT_EXPECT(broker > 0);
	kill(pid, SIGKILL);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	expect_gone(broker, 5000);
}

/* The same through a terminal: the person reads the prompt and types y. */
static void test_chain_tty_person_allows(void)
{
	char *ws = it_path(it_tmpdir(), "ws"), *log = log_of("tty.log"), *prof;
	static char screen[65536];
	size_t len = 0;
	int master, slave, st;
	char name[256];
	pid_t pid;

	prof = asking_workspace(ws);
	if (openpty(&master, &slave, name, NULL, NULL) < 0)
		it_skip("no pseudo-terminals here: %s", strerror(errno));
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		close(master);
		setsid();
		if (ioctl(slave, TIOCSCTTY, 0) < 0)
			_exit(121);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		execl(it_sbx_path(), "sbx", "run", "-p", prof, "--approve", "tty", "--audit-log",
		      log, "--chdir", ws, "--", "rm", "-rf", "build", (char *)NULL);
		_exit(127);
	}
	screen[0] = '\0';
	/* the prompt names the operation; a run that cannot supervise says so instead */
	for (uint64_t end = mono_ms() + 20000; !strstr(screen, "[y/N/a(lways)]");) {
		struct pollfd p = {master, POLLIN, 0};
		ssize_t n;

		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "no prompt; the terminal shows:\n%s", screen);
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(master, screen + len, sizeof(screen) - 1 - len);
		if (n <= 0) {
			if (strstr(screen, "supervisor needs"))
				it_skip("no supervisor here: %s", screen);
			it_fail(__FILE__, __LINE__, "sbx ended without asking:\n%s", screen);
		}
		len += (size_t)n;
		screen[len] = '\0';
	}
	IT_EXPECT_CONTAINS(screen, "delete");
	IT_EXPECT_CONTAINS(screen, "rm[");
	IT_EXPECT(write(master, "y\n", 2) == 2);
	/* read the terminal until sbx ends (it must not block on a full pty) */
	for (uint64_t end = mono_ms() + 20000; waitpid(pid, &st, WNOHANG) == 0;) {
		struct pollfd p = {master, POLLIN, 0};
		ssize_t n;

		if (mono_ms() > end)
			it_fail(__FILE__, __LINE__, "sbx did not end:\n%s", screen);
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = read(master, screen + len, sizeof(screen) - 1 - len);
		if (n <= 0)
			usleep(10000);
		else
			screen[len += (size_t)n] = '\0';
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		it_fail(__FILE__, __LINE__, "sbx ended with %#x; the terminal shows:\n%s", st,
		        screen);
	IT_EXPECT(access(it_path(ws, "build"), F_OK) < 0 && errno == ENOENT);
	IT_EXPECT_CONTAINS(slurp(log), "\"decider\":\"person\"");
	IT_EXPECT_CONTAINS(slurp(log), "\"asked\":1,\"allowed\":");
	close(master);
	close(slave);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_cmd_allow_exit_0),
	    IT_CASE(test_cmd_deny_exit_1),
	    IT_CASE(test_cmd_answers),
	    IT_CASE(test_cmd_hang_times_out),
	    IT_CASE(test_cmd_cancelled),
	    IT_CASE(test_cmd_crash),
	    IT_CASE(test_cmd_flood),
	    IT_CASE(test_cmd_fds_not_inherited),
	    IT_CASE(test_open_refusals),
	    IT_CASE(test_tty_through_pty),
	    IT_CASE(test_socket_broker),
	    IT_CASE(test_audit_new_id),
	    IT_CASE(test_audit_refuses_links_and_specials),
	    IT_CASE(test_audit_concurrent_writers),
	    IT_CASE(test_audit_keeper_writes_end),
	    IT_CASE(test_audit_finish_once),
	    IT_CASE(test_audit_keeper_gone),
	    IT_CASE(test_sbx_run_start_and_end),
	    IT_CASE(test_sbx_worker_sigkill),
	    IT_CASE(test_sbx_killed),
	    IT_CASE(test_sbx_worker_has_no_audit_fds),
	    IT_CASE(test_sbx_explain),
	    IT_CASE(test_sbx_warns_writable_log),
	    IT_CASE(test_sbx_log_path_symlink_refused),
	    IT_CASE(test_sbx_warns_reachable_socket),
	    IT_CASE(test_sbx_concurrent_sandboxes),
	    IT_CASE(test_chain_cmd_broker_denies),
	    IT_CASE(test_chain_cmd_broker_allows),
	    IT_CASE(test_chain_tty_person_allows),
	    IT_CASE(test_chain_sigterm_cancels_question),
	    IT_CASE(test_check_says_ask),
	    IT_CASE(test_chain_denials_folded),
	    IT_CASE(test_chain_sbx_killed_kills_broker),
	    IT_CASE(test_sbx_nested_parent_id),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
