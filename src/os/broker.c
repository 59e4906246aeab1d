/* SPDX-License-Identifier: MIT */
/*
 * The brokers (sbx(1), APPROVALS): who answers an approval request. Every failure here is a
 * deny with a reason, never a crash and never an allow: a broker that hangs, crashes, talks
 * nonsense or goes away answers "no".
 *
 *   tty          a prompt on the caller's terminal, /dev/tty opened at start (never the
 *                worker's stdin); typed-ahead input is flushed first, so that keys pressed
 *                before the question cannot answer it
 *   cmd:PROGRAM  PROGRAM run once per request in a process group of its own, the request on
 *                its stdin, at most SBX_BROKER_OUT_MAX bytes of answer read from its stdout;
 *                it inherits stderr and nothing else of sbx's
 *   socket:PATH  one unix stream connection for the sandbox's life, JSON Lines each way
 *   deny, allow  the policy answers (allow: log only)
 */
#include "os/broker.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/escape.h"
#include "sbx/path.h"

#define SBX_BROKER_OUT_MAX  4096u /* a cmd broker's stdout, a socket broker's line */
#define SBX_BROKER_TTY_LINE 256u  /* what a person types */

enum broker_kind {
	BROKER_TTY = 0,
	BROKER_CMD,
	BROKER_SOCKET,
	BROKER_DENY,
	BROKER_ALLOW,
};

static const char *const kind_names[] = {"tty", "cmd", "socket", "deny", "allow"};

struct sbx_broker {
	enum broker_kind kind;
	int fd;        /* tty: /dev/tty; socket: the connection */
	char *program; /* cmd: an absolute or relative path, checked executable at open */
	char *where;   /* what the spec named, escaped for text, for reasons */
	bool lost;     /* socket: the connection is gone; every later ask is a deny */
	char lost_why[160];
	char buf[SBX_BROKER_OUT_MAX]; /* socket: bytes read past the last answer line */
	size_t buf_len;
};

extern char **environ;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Milliseconds left before deadline, for poll: 0 once it has passed. */
static int left_ms(uint64_t deadline)
{
	uint64_t now = now_ms();

	if (now >= deadline)
		return 0;
	return deadline - now > 60u * 60 * 1000 ? 60 * 60 * 1000 : (int)(deadline - now);
}

static void answer_set(struct sbx_broker_answer *ans, bool allow, enum sbx_sup_decider decider,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void answer_set(struct sbx_broker_answer *ans, bool allow, enum sbx_sup_decider decider,
                       const char *fmt, ...)
{
	va_list ap;

	ans->allow = allow;
	ans->remember = SBX_SUP_REMEMBER_ONCE;
	ans->decider = decider;
	va_start(ap, fmt);
	vsnprintf(ans->reason, sizeof(ans->reason), fmt, ap);
	va_end(ap);
}

/* The request's "id": core's request line starts {"v":1,"type":"approval","id":N, so the first
 * "id" key comes before any string a worker could choose. */
static uint64_t request_id(const char *json)
{
	const char *p = strstr(json, "\"id\":");

	return p ? strtoull(p + 5, NULL, 10) : 0;
}

/* Has sbx been told to end while it asks? Called where the cancel fd is readable, and once
 * before the question is put. */
static bool cancelled(const struct sbx_broker_cancel *c)
{
	return c && c->fd >= 0 && c->fn && c->fn(c->ctx);
}

static int cancel_fd(const struct sbx_broker_cancel *c)
{
	return c && c->fn ? c->fd : -1;
}

#define CANCEL_REASON "sbx was told to end (a signal) while it asked: denied"

/* ---- tty ---- */

/* Read one line from the terminal until deadline; returns its length, -ETIMEDOUT, or -EIO
 * (end of file, an error). Works in canonical and raw mode (a worker may have put the shared
 * terminal in raw mode): a line ends at '\n' or '\r'. */
static ssize_t tty_read_line(int fd, char *line, size_t size, uint64_t deadline,
                             const struct sbx_broker_cancel *cancel)
{
	size_t len = 0;

	for (;;) {
		struct pollfd p[2] = {{fd, POLLIN, 0}, {cancel_fd(cancel), POLLIN, 0}};
		char chunk[64];
		ssize_t n;
		int r = poll(p, 2, left_ms(deadline));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -EIO;
		if (r == 0)
			return -ETIMEDOUT;
		if (p[1].revents && cancelled(cancel))
			return -ECANCELED;
		if (!p[0].revents)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -EIO;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] == '\n' || chunk[i] == '\r') {
				line[len] = '\0';
				return (ssize_t)len;
			}
			if (len + 1 < size)
				line[len++] = chunk[i];
		}
	}
}

static void tty_write(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static void ask_tty(struct sbx_broker *b, const char *prompt, unsigned timeout_ms,
                    const struct sbx_broker_cancel *cancel, struct sbx_broker_answer *ans)
{
	char esc[1024], line[SBX_BROKER_TTY_LINE], *word;
	pid_t fg = tcgetpgrp(b->fd);
	ssize_t n;

	/* A background sbx that read or wrote its terminal would be stopped (SIGTTIN,
	 * SIGTTOU), and with it every supervised call of the sandbox. */
	if (fg < 0 || fg != getpgrp()) {
		answer_set(ans, false, SBX_SUP_BY_NO_BROKER,
		           "the terminal cannot be asked: sbx is not in its foreground");
		return;
	}
	/* Keys typed before the question was shown must not answer it. */
	tcflush(b->fd, TCIFLUSH);
	sbx_escape(esc, sizeof(esc), prompt ? prompt : "sbx: allow? [y/N/a(lways)] ",
	           SBX_ESCAPE_TEXT);
	/* The worker shares this terminal and may have drawn anything on it, a fake question
	 * too: sbx's own line comes after the worker's output, plain attributes, a blank line,
	 * then "sbx asks:" in bold with the whole question, then the prompt (sbx(1), APPROVALS:
	 * this guards against mistakes, not against a worker that means harm). */
	tty_write(b->fd, "\033[0m\r\n\r\n\033[1msbx asks:\033[0m ");
	tty_write(b->fd, esc);
	tty_write(b->fd, "\r\n");
	tty_write(b->fd, esc);
	n = tty_read_line(b->fd, line, sizeof(line), now_ms() + timeout_ms, cancel);
	if (n == -ECANCELED) {
		tty_write(b->fd, "\r\nsbx: cancelled: denied\r\n");
		answer_set(ans, false, SBX_SUP_BY_CANCELLED, CANCEL_REASON);
		return;
	}
	if (n == -ETIMEDOUT) {
		tty_write(b->fd, "\r\nsbx: no answer in time: denied\r\n");
		answer_set(ans, false, SBX_SUP_BY_TIMEOUT, "no answer at the terminal in %u s",
		           (timeout_ms + 999) / 1000);
		return;
	}
	if (n < 0) {
		answer_set(ans, false, SBX_SUP_BY_NO_BROKER,
		           "the terminal could not be read (closed or hung up)");
		return;
	}
	word = line;
	while (*word && isspace((unsigned char)*word))
		word++;
	for (char *e = word + strlen(word); e > word && isspace((unsigned char)e[-1]);)
		*--e = '\0';
	for (char *c = word; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	if (strcmp(word, "y") == 0 || strcmp(word, "yes") == 0) {
		answer_set(ans, true, SBX_SUP_BY_PERSON, "allowed at the terminal");
	} else if (strcmp(word, "a") == 0 || strcmp(word, "always") == 0) {
		answer_set(ans, true, SBX_SUP_BY_PERSON,
		           "allowed at the terminal for the rest of the session");
		ans->remember = SBX_SUP_REMEMBER_SESSION;
	} else {
		answer_set(ans, false, SBX_SUP_BY_PERSON, "denied at the terminal");
	}
}

/* ---- cmd:PROGRAM ---- */

/* The child: the request pipe as stdin, the answer pipe as stdout, stderr kept, nothing else;
 * its own process group (so that a timeout kills what it started too), default signals.
 * Only async-signal-safe calls: sbx may have threads. */
__attribute__((noreturn)) static void cmd_child(char *program, int in_fd, int out_fd, pid_t parent)
{
	char *const argv[] = {program, NULL};
	sigset_t none;
	int in, out;

	/* Die with sbx: a broker left running by a SIGKILLed sbx is a host process nobody
	 * waits for. Armed before anything else, and sbx checked after it (it may have died
	 * before the prctl). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	/* above 2 first, so that neither dup2 below overwrites the other's source */
	in = fcntl(in_fd, F_DUPFD_CLOEXEC, 3);
	out = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(127);
	/* nothing of sbx's reaches the broker: not the listener, not the tty, not the log */
	if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	execve(program, argv, environ);
	_exit(127);
}

/* Kill the broker's whole process group and reap the broker. */
static void cmd_kill(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* write(2) to a pipe whose reader may be gone (a broker that exits without reading): EPIPE,
 * never the SIGPIPE that would kill sbx. The signal is blocked in this thread for the call
 * and, if the call raised it, taken back. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
	sigset_t pipe_set, old, pending;
	bool was_pending;
	ssize_t n;
	int saved;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE) == 1;
	n = write(fd, buf, len);
	saved = errno;
	if (n < 0 && errno == EPIPE && !was_pending) {
		const struct timespec zero = {0, 0};

		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return n;
}

/* Has the broker exited? (It stays a zombie, so that its pid and group cannot be reused
 * before cmd_kill.) */
static bool cmd_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Wait until the broker exits or the deadline passes, feeding its stdin and reading its
 * stdout meanwhile. Returns 0 once it has exited (not reaped), -ETIMEDOUT, or -E2BIG (too
 * much output). */
static int cmd_wait(pid_t pid, int pidfd, int *in_fd, size_t *in_off, const char *req,
                    size_t req_len, int *out_fd, char *out, size_t *out_len, uint64_t deadline,
                    const struct sbx_broker_cancel *cancel)
{
	for (;;) {
		struct pollfd p[4] = {{pidfd, POLLIN, 0},
		                      {*in_fd, POLLOUT, 0},
		                      {*out_fd, POLLIN, 0},
		                      {cancel_fd(cancel), POLLIN, 0}};
		int wait = left_ms(deadline);
		int r;

		/* without a pidfd (before Linux 5.3): look every 10 ms; no SIGCHLD is needed */
		if (pidfd < 0) {
			if (cmd_exited(pid))
				return 0;
			wait = wait > 10 ? 10 : wait;
		}
		if (wait == 0 && now_ms() >= deadline)
			return -ETIMEDOUT;
		r = poll(p, 4, wait);
		if (r < 0 && errno != EINTR)
			return -ETIMEDOUT;
		if (r <= 0)
			continue;
		if (p[3].revents && cancelled(cancel))
			return -ECANCELED;
		if (p[1].revents) {
			/* the request line, then its newline */
			ssize_t n = *in_off < req_len
			                ? write_nosigpipe(*in_fd, req + *in_off, req_len - *in_off)
			                : write_nosigpipe(*in_fd, "\n", 1);

			if (n > 0)
				*in_off += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
			    *in_off == req_len + 1) {
				/* all written, or the broker closed its stdin: it has all it
				 * will read */
				close(*in_fd);
				*in_fd = -1;
			}
		}
		if (p[2].revents) {
			ssize_t n = read(*out_fd, out + *out_len, SBX_BROKER_OUT_MAX - *out_len);

			if (n > 0)
				*out_len += (size_t)n;
			if (*out_len >= SBX_BROKER_OUT_MAX)
				return -E2BIG;
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
				close(*out_fd);
				*out_fd = -1;
			}
		}
		if (p[0].revents && cmd_exited(pid))
			return 0;
	}
}

/* The first non-empty line of the broker's output, or NULL if there is none. */
static char *first_line(char *out, size_t len)
{
	char *line = out, *nl;

	out[len] = '\0';
	while (*line == '\n' || *line == '\r' || *line == ' ' || *line == '\t')
		line++;
	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	return line;
}

static void ask_cmd(struct sbx_broker *b, const char *json, unsigned timeout_ms,
                    const struct sbx_broker_cancel *cancel, struct sbx_broker_answer *ans)
{
	_cleanup_close_pair_ int in_pipe[2] = {-1, -1};
	_cleanup_close_pair_ int out_pipe[2] = {-1, -1};
	_cleanup_close_ int pidfd = -1;
	char out[SBX_BROKER_OUT_MAX + 1], reason[sizeof(ans->reason)], *line;
	size_t req_len = strlen(json), in_off = 0, out_len = 0;
	uint64_t id = request_id(json);
	uint64_t deadline = now_ms() + timeout_ms;
	enum sbx_sup_remember remember = SBX_SUP_REMEMBER_ONCE;
	bool said_allow = false, answered = false;
	int wstatus = 0, r;
	pid_t pid, self = getpid();

	if (pipe2(in_pipe, O_CLOEXEC) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0) {
		answer_set(ans, false, SBX_SUP_BY_BROKER, "cannot run the broker %s: pipe: %s",
		           b->where, strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		answer_set(ans, false, SBX_SUP_BY_BROKER, "cannot run the broker %s: fork: %s",
		           b->where, strerror(errno));
		return;
	}
	if (pid == 0)
		cmd_child(b->program, in_pipe[0], out_pipe[1], self);
	/* also here, so that a kill of the group never misses a process the broker started
	 * before it ran setpgid itself */
	setpgid(pid, pid);
	close(TAKE_FD(in_pipe[0]));
	close(TAKE_FD(out_pipe[1]));
	fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
	fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	r = cmd_wait(pid, pidfd, &in_pipe[1], &in_off, json, req_len, &out_pipe[0], out, &out_len,
	             deadline, cancel);
	if (r == -ECANCELED) {
		cmd_kill(pid);
		answer_set(ans, false, SBX_SUP_BY_CANCELLED, CANCEL_REASON);
		return;
	}
	if (r == -ETIMEDOUT) {
		cmd_kill(pid);
		answer_set(ans, false, SBX_SUP_BY_TIMEOUT, "the broker %s did not answer in %u ms",
		           b->where, timeout_ms);
		return;
	}
	if (r == -E2BIG) {
		cmd_kill(pid);
		answer_set(ans, false, SBX_SUP_BY_BROKER,
		           "the broker %s wrote more than %u bytes: not an answer", b->where,
		           SBX_BROKER_OUT_MAX);
		return;
	}
	/* the broker's job is one answer: whatever it left running in its group goes too
	 * (it is still a zombie here: its group id cannot have been reused) */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	/* what it wrote before it exited */
	while (out_pipe[0] >= 0 && out_len < SBX_BROKER_OUT_MAX) {
		ssize_t n = read(out_pipe[0], out + out_len, SBX_BROKER_OUT_MAX - out_len);

		if (n <= 0)
			break;
		out_len += (size_t)n;
	}
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		const char *name = sbx_signal_abbrev(sig);

		answer_set(ans, false, SBX_SUP_BY_BROKER,
		           "the broker %s was killed by signal %d%s%s", b->where, sig,
		           name ? " SIG" : "", name ? name : "");
		return;
	}
	reason[0] = '\0';
	line = first_line(out, out_len);
	if (line) {
		answered = sbx_sup_answer_parse(line, id, &said_allow, &remember, reason,
		                                sizeof(reason)) == 0;
	}
	if (WEXITSTATUS(wstatus) != 0) {
		if (WEXITSTATUS(wstatus) == 127 && !line)
			answer_set(ans, false, SBX_SUP_BY_BROKER,
			           "the broker %s could not be run (exit status 127)", b->where);
		else
			answer_set(ans, false, SBX_SUP_BY_BROKER,
			           "%s%sthe broker %s exited with %d", answered ? reason : "",
			           answered && *reason ? "; " : "", b->where, WEXITSTATUS(wstatus));
		if (answered && remember == SBX_SUP_REMEMBER_SESSION)
			ans->remember = SBX_SUP_REMEMBER_SESSION;
		return;
	}
	if (line && !answered) {
		/* fail closed: output that is not an answer is not a yes */
		answer_set(
		    ans, false, SBX_SUP_BY_BROKER,
		    "the broker %s exited 0 but its output is not an answer for request %" PRIu64
		    " (sbx(1), APPROVALS)",
		    b->where, id);
		return;
	}
	if (answered && !said_allow) {
		answer_set(ans, false, SBX_SUP_BY_BROKER, "%s",
		           *reason ? reason : "denied by the broker");
		ans->remember = remember;
		return;
	}
	answer_set(ans, true, SBX_SUP_BY_BROKER, "%s", *reason ? reason : "allowed by the broker");
	ans->remember = remember;
}

/* ---- socket:PATH ---- */

static void socket_lose(struct sbx_broker *b, const char *why)
{
	b->lost = true;
	snprintf(b->lost_why, sizeof(b->lost_why), "%s", why);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

/* The id an answer line names, or UINT64_MAX if none can be found. */
static uint64_t answer_id(const char *line)
{
	const char *p = strstr(line, "\"id\":");

	return p ? strtoull(p + 5, NULL, 10) : UINT64_MAX;
}

static void ask_socket(struct sbx_broker *b, const char *json, unsigned timeout_ms,
                       const struct sbx_broker_cancel *cancel, struct sbx_broker_answer *ans)
{
	uint64_t id = request_id(json);
	uint64_t deadline = now_ms() + timeout_ms;
	size_t len = strlen(json), off = 0;
	char why[160];

	if (b->lost) {
		answer_set(ans, false, SBX_SUP_BY_NO_BROKER, "%s", b->lost_why);
		return;
	}
	/* the request line, then its newline */
	while (off < len + 1) {
		struct pollfd p[2] = {{b->fd, POLLOUT, 0}, {cancel_fd(cancel), POLLIN, 0}};
		const char *from = off < len ? json + off : "\n";
		size_t n_left = off < len ? len - off : 1;
		ssize_t n;
		int r = poll(p, 2, left_ms(deadline));

		if (r < 0 && errno == EINTR)
			continue;
		if (r > 0 && p[1].revents && cancelled(cancel)) {
			/* half a request on the wire cannot be taken back */
			if (off)
				socket_lose(b, "sbx was told to end while it sent a request");
			answer_set(ans, false, SBX_SUP_BY_CANCELLED, CANCEL_REASON);
			return;
		}
		if (r > 0 && !p[0].revents)
			continue;
		if (r == 0) {
			/* half a request on the wire cannot be taken back */
			snprintf(why, sizeof(why), "the broker %s stopped reading requests",
			         b->where);
			socket_lose(b, why);
			answer_set(ans, false, SBX_SUP_BY_TIMEOUT, "%s", why);
			return;
		}
		n = send(b->fd, from, n_left, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			snprintf(why, sizeof(why), "the connection to the broker %s is lost: %s",
			         b->where, strerror(n < 0 ? errno : EPIPE));
			socket_lose(b, why);
			answer_set(ans, false, SBX_SUP_BY_NO_BROKER, "%s", why);
			return;
		}
		off += (size_t)n;
	}
	for (;;) {
		char *nl = memchr(b->buf, '\n', b->buf_len);

		if (nl) {
			char line[SBX_BROKER_OUT_MAX + 1], reason[sizeof(ans->reason)];
			enum sbx_sup_remember remember = SBX_SUP_REMEMBER_ONCE;
			size_t n = (size_t)(nl - b->buf);
			bool allow = false;

			memcpy(line, b->buf, n);
			line[n] = '\0';
			memmove(b->buf, nl + 1, b->buf_len - n - 1);
			b->buf_len -= n + 1;
			reason[0] = '\0';
			if (sbx_sup_answer_parse(line, id, &allow, &remember, reason,
			                         sizeof(reason)) == 0) {
				answer_set(ans, allow, SBX_SUP_BY_BROKER, "%s",
				           *reason ? reason
				           : allow ? "allowed by the broker"
				                   : "denied by the broker");
				ans->remember = remember;
				return;
			}
			/* a late answer to a request that timed out: skip it */
			if (answer_id(line) < id)
				continue;
			answer_set(ans, false, SBX_SUP_BY_BROKER,
			           "the broker %s answered request %" PRIu64
			           " with a line that is not an answer to it (sbx(1), APPROVALS)",
			           b->where, id);
			return;
		}
		if (b->buf_len >= sizeof(b->buf)) {
			snprintf(why, sizeof(why),
			         "the broker %s sent a line longer than %u bytes: not an answer",
			         b->where, SBX_BROKER_OUT_MAX);
			socket_lose(b, why);
			answer_set(ans, false, SBX_SUP_BY_BROKER, "%s", why);
			return;
		}
		{
			struct pollfd p[2] = {{b->fd, POLLIN, 0}, {cancel_fd(cancel), POLLIN, 0}};
			int r = poll(p, 2, left_ms(deadline));
			ssize_t n;

			if (r < 0 && errno == EINTR)
				continue;
			if (r > 0 && p[1].revents && cancelled(cancel)) {
				/* its late answer is skipped by its id (above) */
				answer_set(ans, false, SBX_SUP_BY_CANCELLED, CANCEL_REASON);
				return;
			}
			if (r > 0 && !p[0].revents)
				continue;
			if (r == 0) {
				answer_set(ans, false, SBX_SUP_BY_TIMEOUT,
				           "the broker %s did not answer in %u ms", b->where,
				           timeout_ms);
				return;
			}
			n = recv(b->fd, b->buf + b->buf_len, sizeof(b->buf) - b->buf_len,
			         MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0) {
				snprintf(why, sizeof(why),
				         "the broker %s closed the connection%s%s", b->where,
				         n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
				socket_lose(b, why);
				answer_set(ans, false, SBX_SUP_BY_NO_BROKER, "%s", why);
				return;
			}
			b->buf_len += (size_t)n;
		}
	}
}

/* ---- the interface ---- */

void sbx_broker_ask(struct sbx_broker *b, const char *json, const char *prompt, unsigned timeout_ms,
                    const struct sbx_broker_cancel *cancel, struct sbx_broker_answer *ans)
{
	memset(ans, 0, sizeof(*ans));
	if (timeout_ms == 0)
		timeout_ms = SBX_SUP_TIMEOUT_MS;
	if (!b) {
		answer_set(ans, false, SBX_SUP_BY_NO_BROKER, "no broker");
		return;
	}
	switch (b->kind) {
	case BROKER_ALLOW:
		answer_set(ans, true, SBX_SUP_BY_POLICY, "the broker is 'allow' (log only)");
		return;
	case BROKER_DENY:
		answer_set(ans, false, SBX_SUP_BY_POLICY, "the broker is 'deny'");
		return;
	case BROKER_TTY:
	case BROKER_CMD:
	case BROKER_SOCKET:
		break;
	}
	/* sbx told to end before the question was put: nobody is asked */
	if (cancelled(cancel)) {
		answer_set(ans, false, SBX_SUP_BY_CANCELLED, CANCEL_REASON);
		return;
	}
	switch (b->kind) {
	case BROKER_TTY:
		ask_tty(b, prompt, timeout_ms, cancel, ans);
		return;
	case BROKER_CMD:
		ask_cmd(b, json ? json : "{}", timeout_ms, cancel, ans);
		return;
	case BROKER_SOCKET:
		ask_socket(b, json ? json : "{}", timeout_ms, cancel, ans);
		return;
	default:
		break;
	}
	answer_set(ans, false, SBX_SUP_BY_NO_BROKER, "unknown broker");
}

bool sbx_broker_thinks(const struct sbx_broker *b)
{
	return b && (b->kind == BROKER_TTY || b->kind == BROKER_CMD || b->kind == BROKER_SOCKET);
}

const char *sbx_broker_kind(const struct sbx_broker *b)
{
	return b ? kind_names[b->kind] : "none";
}

void sbx_broker_close(struct sbx_broker *b)
{
	if (!b)
		return;
	if (b->fd >= 0)
		close(b->fd);
	free(b->program);
	free(b->where);
	free(b);
}

static void broker_freep(struct sbx_broker **b)
{
	sbx_broker_close(*b);
}

static struct sbx_broker *broker_new(void)
{
	struct sbx_broker *b = calloc(1, sizeof(*b));

	if (b)
		b->fd = -1;
	return b;
}

static int open_tty(struct sbx_broker *b, bool quiet, struct sbx_error *err)
{
	int r;

	b->fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (b->fd >= 0 && isatty(b->fd))
		return 0;
	r = -errno;
	if (b->fd >= 0) {
		close(b->fd);
		b->fd = -1;
		r = -ENOTTY;
	}
	if (quiet)
		return r;
	r = sbx_error_set(err, SBX_ERR_SETUP, -r,
	                  "--approve tty: sbx has no terminal to ask on (/dev/tty: %s)",
	                  strerror(-r));
	sbx_error_hint(err, "run sbx from a terminal, or choose another broker: --approve "
	                    "cmd:PROGRAM, socket:PATH or deny");
	return r;
}

/* PROGRAM as a path to run: as given when it has a '/', else found in $PATH (an absolute
 * path, so that the broker run later is the one checked now). */
static int find_program(const char *name, char **out, struct sbx_error *err)
{
	const char *path = getenv("PATH");
	int r;

	if (!*name) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "--approve cmd: names no program");
		sbx_error_hint(err, "e.g. --approve cmd:/usr/local/bin/my-broker");
		return r;
	}
	if (strchr(name, '/')) {
		struct stat st;

		if (stat(name, &st) < 0 || !S_ISREG(st.st_mode) || access(name, X_OK) < 0) {
			int e = errno ? errno : EACCES;

			r = sbx_error_set(err, SBX_ERR_USAGE, e,
			                  "--approve cmd:%s: not an executable file", name);
			sbx_error_hint(err, "name an executable program; it gets one JSON request "
			                    "on stdin, exit 0 allows (sbx(1), APPROVALS)");
			return r;
		}
		/* absolute, so that the program run later is the one checked now (its own
		 * name kept: a program may act on the name it was run by) */
		if (name[0] != '/') {
			char cwd[4096];

			if (!getcwd(cwd, sizeof(cwd)))
				return sbx_error_set(err, SBX_ERR_SETUP, errno,
				                     "--approve cmd:%s: getcwd: %s", name,
				                     strerror(errno));
			return sbx_path_absolute(name, cwd, out, err);
		}
		*out = strdup(name);
		return *out ? 0 : sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	for (const char *dir = path ? path : "/usr/local/bin:/usr/bin:/bin"; *dir;) {
		size_t n = strcspn(dir, ":");
		char cand[4096];
		struct stat st;

		if (n &&
		    snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, dir, name) <
		        (int)sizeof(cand) &&
		    cand[0] == '/' && stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0) {
			*out = strdup(cand);
			return *out ? 0
			            : sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		dir += n + (dir[n] == ':');
	}
	r = sbx_error_set(err, SBX_ERR_USAGE, ENOENT, "--approve cmd:%s: no such program in $PATH",
	                  name);
	sbx_error_hint(err, "name the program by its path, e.g. --approve cmd:/usr/local/bin/%s",
	               name);
	return r;
}

static int open_socket(struct sbx_broker *b, const char *path, struct sbx_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int r;

	if (!*path || strlen(path) >= sizeof(sa.sun_path)) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "--approve socket:%s: a unix socket path of 1 to %zu bytes is "
		                  "needed",
		                  path, sizeof(sa.sun_path) - 1);
		sbx_error_hint(err, "e.g. --approve socket:$XDG_RUNTIME_DIR/broker.sock");
		return r;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	b->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (b->fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "--approve socket:%s: socket: %s",
		                     path, strerror(errno));
	while (connect(b->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR)
			continue;
		r = sbx_error_set(err, SBX_ERR_SETUP, errno,
		                  "--approve socket:%s: cannot connect to the broker: %s", path,
		                  strerror(errno));
		sbx_error_hint(err, "start the broker first; it listens on a unix stream socket "
		                    "and answers JSON Lines (sbx(1), APPROVALS)");
		return r;
	}
	return 0;
}

int sbx_broker_open(const char *spec, struct sbx_broker **out, struct sbx_error *err)
{
	_cleanup_(broker_freep) struct sbx_broker *b = broker_new();
	char where[256];
	int r = 0;

	*out = NULL;
	if (!b)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	sbx_escape(where, sizeof(where), spec ? spec : "tty", SBX_ESCAPE_TEXT);
	b->where = strdup(where);
	if (!b->where)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	if (!spec) {
		/* a terminal where there is one, else nobody to ask: deny */
		b->kind = open_tty(b, true, NULL) == 0 ? BROKER_TTY : BROKER_DENY;
	} else if (strcmp(spec, "tty") == 0) {
		b->kind = BROKER_TTY;
		r = open_tty(b, false, err);
	} else if (strcmp(spec, "deny") == 0) {
		b->kind = BROKER_DENY;
	} else if (strcmp(spec, "allow") == 0) {
		b->kind = BROKER_ALLOW;
	} else if (strncmp(spec, "cmd:", 4) == 0) {
		b->kind = BROKER_CMD;
		r = find_program(spec + 4, &b->program, err);
	} else if (strncmp(spec, "socket:", 7) == 0) {
		b->kind = BROKER_SOCKET;
		r = open_socket(b, spec + 7, err);
	} else {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "--approve '%s' is not a broker",
		                  where);
		sbx_error_hint(err, "use tty, deny, allow, cmd:PROGRAM or socket:PATH");
	}
	if (r < 0)
		return r;
	*out = TAKE_PTR(b);
	return 0;
}
