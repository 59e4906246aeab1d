/* SPDX-License-Identifier: MIT */
/*
 * The audit log's writer (sbx(1), AUDIT LOG). Records are formatted by core
 * (include/sbx/audit.h); here each goes into the file with one write(2) on an O_APPEND
 * descriptor: for a regular file the kernel moves the offset to the end and writes under the
 * inode's lock, so records of many sandboxes sharing one log never interleave (PIPE_BUF is a
 * pipe's limit and does not apply).
 *
 * The keeper: every start must get an end, even when sbx is killed with SIGKILL. At open a
 * small process is forked that holds the log and one end of a pipe (a socket pair) whose
 * other end only sbx holds. sbx ends by writing its own end record and one byte, "d"; the
 * keeper then exits. If the pipe reaches end of file without that byte, sbx is gone without a word,
 * and the keeper writes the end record itself ("killed": "sbx killed") and exits. It leads a
 * session of its own (setsid), so that the terminal's ^C or hangup, which reach sbx's process
 * group, do not kill it before it has written; it holds no other descriptor, sits in /, and is
 * outside any sandbox (forked before the launch).
 */
#include "os/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/fs.h"
#include "sbx/cleanup.h"

#define KEEPER_LOG_FD  3
#define KEEPER_PIPE_FD 4

struct sbx_audit {
	int fd;       /* the log: O_RDWR (or O_WRONLY) | O_APPEND */
	int keeper_w; /* the write end of the keeper's pipe */
	pid_t keeper;
	char sandbox[SBX_SANDBOX_ID_LEN + 1];
	char parent[SBX_SANDBOX_ID_LEN + 1];
	char *label;
	struct sbx_audit_ids ids;
	uint64_t start_ms;
	bool finished;
};

int sbx_audit_new_id(char out[SBX_SANDBOX_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[SBX_SANDBOX_ID_LEN / 2];
	size_t got = 0;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(raw); i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[SBX_SANDBOX_ID_LEN] = '\0';
	return 0;
}

static uint64_t realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One record, one write(2). A short write (a full disk, a file size limit) is not retried:
 * the rest written by a second write could land after another sandbox's record. */
static int write_record(int fd, const char *record)
{
	char line[SBX_AUDIT_LINE_MAX + 2];
	size_t len = strlen(record), at = 0;
	struct stat st;
	char last = '\n';
	ssize_t n;

	if (len >= SBX_AUDIT_LINE_MAX)
		return -EMSGSIZE;
	/* a record cut short before this one (a full file system, which the worker can make
	 * when the log shares it) would swallow this one into its line (an outside attack):
	 * where the log does not end a line, this record starts one */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
	    last != '\n')
		line[at++] = '\n';
	memcpy(line + at, record, len);
	len += at;
	line[len++] = '\n';
	do
		n = write(fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* The keeper's life: wait for "d" or end of file. Only the two descriptors, nothing else. */
__attribute__((noreturn)) static void keeper_main(const struct sbx_audit *a)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};
	char c = 0;
	ssize_t n;

	sigset_t none;

	setsid();
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			sigaction(sig, &ign, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (chdir("/") < 0) {
		/* nothing to do about it: the keeper holds no directory it needs */
	}
	for (;;) {
		n = read(KEEPER_PIPE_FD, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	if (n == 1 && c == 'd')
		_exit(0);
	{
		char rec[SBX_AUDIT_LINE_MAX];
		uint64_t now = realtime_ms();
		struct sbx_audit_end end = {
		    .time_ms = now,
		    .status = -1,
		    .signal = 0,
		    .killed = "sbx killed",
		    .duration_ms = now > a->start_ms ? now - a->start_ms : 0,
		};

		if (sbx_audit_fmt_end(rec, sizeof(rec), &a->ids, &end) < sizeof(rec))
			(void)write_record(KEEPER_LOG_FD, rec);
	}
	_exit(0);
}

/* Move fd to exactly `to` (which must not be in use by the other one). */
static int move_fd(int fd, int to)
{
	if (fd == to)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, to) < 0 ? -1 : 0;
}

static void audit_free(struct sbx_audit *a)
{
	if (!a)
		return;
	if (a->keeper_w >= 0)
		close(a->keeper_w);
	if (a->keeper > 0)
		while (waitpid(a->keeper, NULL, 0) < 0 && errno == EINTR)
			;
	if (a->fd >= 0)
		close(a->fd);
	free(a->label);
	free(a);
}

static void audit_freep(struct sbx_audit **a)
{
	audit_free(*a);
}

static struct sbx_audit *audit_new(void)
{
	struct sbx_audit *a = calloc(1, sizeof(*a));

	if (a) {
		a->fd = -1;
		a->keeper_w = -1;
	}
	return a;
}

int sbx_audit_open(const char *path, const struct sbx_audit_ids *ids, uint64_t start_ms,
                   struct sbx_audit **out, struct sbx_error *err)
{
	_cleanup_(audit_freep) struct sbx_audit *a = audit_new();
	_cleanup_close_pair_ int pipe_fds[2] = {-1, -1};
	sigset_t all, old;
	struct stat st;
	int r;

	*out = NULL;
	if (!a)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	a->start_ms = start_ms;
	if (!ids || !ids->sandbox || strlen(ids->sandbox) != SBX_SANDBOX_ID_LEN ||
	    (ids->parent && strlen(ids->parent) != SBX_SANDBOX_ID_LEN))
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: the audit log needs a sandbox id of %d hex digits",
		                     SBX_SANDBOX_ID_LEN);
	memcpy(a->sandbox, ids->sandbox, SBX_SANDBOX_ID_LEN + 1);
	a->ids.sandbox = a->sandbox;
	if (ids->parent) {
		memcpy(a->parent, ids->parent, SBX_SANDBOX_ID_LEN + 1);
		a->ids.parent = a->parent;
	}
	if (ids->label) {
		a->label = strdup(ids->label);
		if (!a->label)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		a->ids.label = a->label;
	}

	/* No symbolic link followed on the path: a sandbox that could write a directory on it (a
	 * log kept in a workspace) could have left one there for the next run, and sbx would
	 * append to, or create, a file wherever it points. O_NONBLOCK: a FIFO or a device at the
	 * path must not hang sbx before it is refused. */
	/* read too, where it may be: a record starts a line where a record before it was cut
	 * short (write_record) */
	a->fd = sbx_fs_open_output(path, O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK, 0600);
	if (a->fd == -EACCES)
		a->fd = sbx_fs_open_output(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0600);
	if (a->fd < 0) {
		int e = -a->fd;

		a->fd = -1;
		r = sbx_error_set(err, SBX_ERR_SETUP, e, "--audit-log %s: cannot open it: %s", path,
		                  e == ELOOP ? "a symbolic link on its path is not followed"
		                             : strerror(e));
		sbx_error_hint(err, e == ELOOP ? "name the log by its real path (realpath -m shows "
		                                 "it): sbx follows no symbolic link there"
		                               : "name a regular file sbx may append to (it is "
		                                 "created 0600 if missing)");
		return r;
	}
	if (fstat(a->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = sbx_error_set(err, SBX_ERR_SETUP, EINVAL, "--audit-log %s: not a regular file",
		                  path);
		sbx_error_hint(err, "the audit log is a regular file that records are appended "
		                    "to; name one");
		return r;
	}
	if (fcntl(a->fd, F_SETFL, O_APPEND) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "--audit-log %s: fcntl: %s", path,
		                     strerror(errno));

	/* A socket pair rather than a pipe: sbx's last byte is sent with MSG_NOSIGNAL, so that a
	 * keeper that died before it (killed by someone) costs sbx no SIGPIPE. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pipe_fds) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the audit log keeper's pipe: %s",
		                     strerror(errno));
	/* Every signal blocked across fork: one sent to sbx's process group (the terminal's ^C)
	 * before the keeper has left it is held, then dropped once the keeper ignores it. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	a->keeper = fork();
	if (a->keeper != 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (a->keeper < 0) {
		a->keeper = 0;
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot start the audit log keeper: %s", strerror(errno));
	}
	if (a->keeper == 0) {
		/* the log at 3 and the pipe at 4, whatever numbers they had; nothing else */
		int log_fd = fcntl(a->fd, F_DUPFD_CLOEXEC, 10);
		int pipe_r = fcntl(pipe_fds[0], F_DUPFD_CLOEXEC, 10);

		if (log_fd < 0 || pipe_r < 0 || move_fd(log_fd, KEEPER_LOG_FD) < 0 ||
		    move_fd(pipe_r, KEEPER_PIPE_FD) < 0)
			_exit(125);
		if (syscall(SYS_close_range, 5u, ~0u, 0u) < 0)
			for (int fd = 5; fd < 1024; fd++)
				close(fd);
		for (int fd = 0; fd < 3; fd++)
			close(fd);
		keeper_main(a);
	}
	close(TAKE_FD(pipe_fds[0]));
	a->keeper_w = TAKE_FD(pipe_fds[1]);
	*out = TAKE_PTR(a);
	return 0;
}

int sbx_audit_write(struct sbx_audit *a, const char *record)
{
	if (!a || a->fd < 0)
		return -EBADF;
	return write_record(a->fd, record);
}

const struct sbx_audit_ids *sbx_audit_ids(const struct sbx_audit *a)
{
	return &a->ids;
}

void sbx_audit_finish(struct sbx_audit *a, const struct sbx_audit_end *end)
{
	char rec[SBX_AUDIT_LINE_MAX];
	struct sbx_audit_end unknown;

	if (!a)
		return;
	if (!end) {
		/* the caller knows nothing of the end: still one, with no status */
		uint64_t now = realtime_ms();

		memset(&unknown, 0, sizeof(unknown));
		unknown.time_ms = now;
		unknown.status = -1;
		unknown.duration_ms = now > a->start_ms ? now - a->start_ms : 0;
		end = &unknown;
	}
	if (sbx_audit_fmt_end(rec, sizeof(rec), &a->ids, end) < sizeof(rec))
		(void)write_record(a->fd, rec);
	/* Only after the end record: if sbx dies in between, the keeper writes a second end
	 * rather than none. */
	while (send(a->keeper_w, "d", 1, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
	audit_free(a);
}
