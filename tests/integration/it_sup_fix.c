/* SPDX-License-Identifier: MIT */
/*
 * Defects an attacker found in the supervisor (docs/design.md, The supervisor), each with the
 * case that shows it fixed:
 *
 * - a denied create leaves nothing: under the landlock backend the directories above a hidden
 *   path are carved (new files there can be made but not opened), and a supervised
 *   open(O_CREAT) used to leave an empty file behind its EACCES;
 * - a child made with CLONE_PARENT by a process that restricted itself with Landlock is
 *   narrower than the worker: its parent is its maker's parent, so the PPid line that finds a
 *   caller's domain skipped it, and the performer created for it with the worker's rights;
 * - the audit record of a FIFO open that waits for its other end holds its result: it used to
 *   be written when the wait began, with errno 0 whatever came of it.
 *
 * As root and as the user (the it_ harness runs both), under each backend where the defect
 * applies. The test binary is the probe inside (`--in OP ARG...`, one line "OP ARG => RESULT"
 * per operation).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <signal.h>
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

#define WAIT_MS 60000 /* every wait's upper bound */

/* ---- inside the sandbox ---- */

/* the harness's (it_errno_word, it_mono_ms, it_at) under this file's short names */
#define res    it_errno_word
#define now_ms it_mono_ms

static int create(const char *path, int acc)
{
	int fd = open(path, O_CREAT | O_EXCL | acc | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Landlock, read-only everywhere (every right of ABI 1 handled, reading granted at "/"). */
static int landlock_read_only(void)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = (1ULL << 13) - 1};
	struct landlock_path_beneath_attr pb = {
	    .allowed_access = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
	                      LANDLOCK_ACCESS_FS_READ_DIR,
	};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int r = -1;

	if (rs < 0)
		return -1;
	pb.parent_fd = open("/", O_PATH | O_CLOEXEC);
	if (pb.parent_fd >= 0 &&
	    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0 &&
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		r = (int)syscall(SYS_landlock_restrict_self, rs, 0);
	if (pb.parent_fd >= 0)
		close(pb.parent_fd);
	close(rs);
	return r;
}

/*
 * A child restricts itself (read-only everywhere) and tries a create of its own, then makes
 * a grandchild with clone(CLONE_PARENT): the grandchild's parent is this process, not the
 * one that holds its domain. Both creates must fail (EACCES); the grandchild's used to be
 * made by the performer with the worker's rights.
 */
static void ll_clone_parent(const char *mine, const char *kid)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		long c;

		if (landlock_read_only() < 0) {
			printf("ll-restrict - => %s\n", res(-1));
			_exit(1);
		}
		printf("ll-restrict - => ok\n");
		printf("ll-self %s => %s\n", mine, res(create(mine, O_WRONLY)));
		fflush(stdout);
		c = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, NULL);
		if (c == 0) {
			printf("ll-clone-parent %s => %s\n", kid, res(create(kid, O_WRONLY)));
			fflush(stdout);
			_exit(0);
		}
		if (c < 0)
			printf("ll-clone-parent %s => clone %s\n", kid, res(-1));
		_exit(0);
	}
	/* the child, then the grandchild: both are this process's children */
	while (pid > 0 && waitpid(-1, NULL, 0) > 0)
		;
}

/*
 * This process makes itself a child subreaper; a child restricts itself (read-only
 * everywhere), forks a grandchild and exits: the grandchild, an orphan, is adopted here, so
 * its parent is this process, not the one that gave it its domain. Its create must fail
 * (EACCES); it used to be made by the performer with the worker's rights.
 */
static void ll_orphan(const char *kid)
{
	pid_t pid;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		printf("ll-orphan %s => setup %s\n", kid, res(-1));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pid_t me = getpid(), g;

		if (landlock_read_only() < 0) {
			printf("ll-orphan %s => restrict %s\n", kid, res(-1));
			_exit(1);
		}
		g = fork();
		if (g == 0) {
			long long end = now_ms() + WAIT_MS;
			struct timespec tick = {0, 1000000};

			/* adopted: the parent that gave the domain has exited */
			while (getppid() == me && now_ms() < end)
				nanosleep(&tick, NULL);
			printf("ll-orphan %s => %s\n", kid,
			       getppid() == me ? "never adopted" : res(create(kid, O_WRONLY)));
			fflush(stdout);
			_exit(0);
		}
		_exit(g < 0 ? 1 : 0);
	}
	/* the child, then the adopted grandchild */
	while (pid > 0 && waitpid(-1, NULL, 0) > 0)
		;
}

/* Does process `pid` (a /proc entry's name) run with this process's real uid? Another test of
 * the suite, running beside this one as the other user, has waiters of its own (the landlock
 * backend's probe sees the host's processes): a waiter of theirs is not this open's. */
static bool same_uid(const char *pid)
{
	char path[300], buf[4096];
	const char *line;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	line = strstr(buf, "\nUid:");
	return line && strtol(line + 5, NULL, 10) == (long)getuid();
}

/* Is a process named `comm` there (/proc), of this uid? Polled with a bound: a condition, not
 * a time. */
static bool wait_comm(const char *comm)
{
	long long end = now_ms() + WAIT_MS;
	struct timespec tick = {0, 2000000};

	while (now_ms() < end) {
		DIR *d = opendir("/proc");
		struct dirent *de;
		bool found = false;

		while (d && !found && (de = readdir(d))) {
			char path[300], buf[64] = "";
			int fd;
			ssize_t n;

			if (atoi(de->d_name) <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
			if (fd >= 0)
				close(fd);
			buf[n > 0 ? n : 0] = '\0';
			found = strncmp(buf, comm, strlen(comm)) == 0 &&
			        buf[strlen(comm)] == '\n' && same_uid(de->d_name);
		}
		if (d)
			closedir(d);
		if (found)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/* A writer waits in its open of the FIFO (a waiter serves it), and is killed there. */
static void fifo_kill(const char *path)
{
	pid_t pid;
	int st = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		_exit(fd < 0 ? 1 : 0);
	}
	if (pid < 0 || !wait_comm("sbx-fifowait")) {
		printf("fifo-kill %s => never waited\n", path);
		if (pid > 0)
			kill(pid, SIGKILL);
	} else {
		kill(pid, SIGKILL);
	}
	waitpid(pid, &st, 0);
	printf("fifo-kill %s => %s\n", path,
	       WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "killed" : "opened");
}

/* A writer waits in its open of the FIFO until a reader comes (once the wait is served). */
static void fifo_pair(const char *path)
{
	pid_t pid;
	int st = 0, fd;
	char c = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		_exit(fd < 0 || write(fd, "w", 1) != 1 ? 1 : 0);
	}
	if (pid < 0 || !wait_comm("sbx-fifowait")) {
		printf("fifo-pair %s => never waited\n", path);
		if (pid > 0)
			kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &c, 1) != 1)
		c = 0;
	if (fd >= 0)
		close(fd);
	waitpid(pid, &st, 0);
	printf("fifo-pair %s => %s\n", path,
	       c == 'w' && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "failed");
}

/* A child stacks n layers on itself (each read-only everywhere), then exits. */
static void ll_stack(int n)
{
	pid_t pid;
	int st = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < n; i++) {
			if (landlock_read_only() < 0) {
				printf("ll-stack %d => layer %d %s\n", n, i + 1, res(-1));
				_exit(1);
			}
		}
		printf("ll-stack %d => ok\n", n);
		_exit(0);
	}
	waitpid(pid, &st, 0);
}

/* k children each restrict themselves once, all at once, and hold their domain until every
 * one has said how it went (a pipe each way, no timer): how many got one, how many EAGAIN. */
static void ll_hold(int k)
{
	int res_pipe[2], go[2], ok = 0, again = 0, other = 0;

	if (pipe(res_pipe) < 0 || pipe(go) < 0)
		return;
	fflush(stdout);
	for (int i = 0; i < k; i++) {
		if (fork() == 0) {
			char c = landlock_read_only() == 0 ? 'o' : errno == EAGAIN ? 'a' : 'x';

			close(res_pipe[0]);
			close(go[1]);
			if (write(res_pipe[1], &c, 1) != 1)
				_exit(1);
			if (read(go[0], &c, 1) < 0) /* EOF: every one has answered */
				_exit(1);
			_exit(0);
		}
	}
	close(res_pipe[1]);
	close(go[0]);
	for (int i = 0; i < k; i++) {
		char c;

		if (read(res_pipe[0], &c, 1) != 1)
			break;
		ok += c == 'o';
		again += c == 'a';
		other += c == 'x';
	}
	close(go[1]);
	close(res_pipe[0]);
	while (waitpid(-1, NULL, 0) > 0)
		;
	printf("ll-hold %d => ok=%d again=%d other=%d\n", k, ok, again, other);
}

/* A reader of the FIFO is there (this process, without blocking: reading is not
 * supervised), then a writer opens it as a shell's `>` does (O_CREAT), blocking and not. */
static void fifo_ro_write(const char *path)
{
	int rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), fd;

	if (rd < 0) {
		printf("fifo-ro-write %s => reader %s\n", path, res(-1));
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	printf("fifo-ro-write %s => %s\n", path, res(fd));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
	printf("fifo-ro-write-nb %s => %s\n", path, res(fd));
	if (fd >= 0)
		close(fd);
	close(rd);
}

static int in_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < argc; i++) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : "",
		           *b = i + 2 < argc ? argv[i + 2] : "";

		if (!strcmp(op, "create")) {
			printf("create %s => %s\n", a, res(create(a, O_WRONLY)));
			i += 1;
		} else if (!strcmp(op, "create-ro")) {
			printf("create-ro %s => %s\n", a, res(create(a, O_RDONLY)));
			i += 1;
		} else if (!strcmp(op, "ll-clone-parent")) {
			ll_clone_parent(a, b);
			i += 2;
		} else if (!strcmp(op, "ll-orphan")) {
			ll_orphan(a);
			i += 1;
		} else if (!strcmp(op, "ll-stack")) {
			ll_stack(atoi(a));
			i += 1;
		} else if (!strcmp(op, "ll-hold")) {
			ll_hold(atoi(a));
			i += 1;
		} else if (!strcmp(op, "fifo-ro-write")) {
			fifo_ro_write(a);
			i += 1;
		} else if (!strcmp(op, "fifo-kill")) {
			fifo_kill(a);
			i += 1;
		} else if (!strcmp(op, "fifo-pair")) {
			fifo_pair(a);
			i += 1;
		}
	}
	return 0;
}

/* ---- the host side ---- */

static char ws[4096], profile[4200];

/* A fresh project (no .git: its creation is watched, so every create is supervised). */
static void setup(void)
{
	snprintf(ws, sizeof(ws), "%s/ws", it_tmpdir());
	snprintf(profile, sizeof(profile), "%s/sup.yaml", it_tmpdir());
	it_write_file(it_path(ws, "keep"), "kept\n");
	it_write_file(it_path(ws, "secret.key"), "secret\n");
	it_write_file(it_path(ws, "src/a.c"), "int a;\n");
	it_write_file(profile, "version: 1\nname: sup\nprotect_git: true\n"
	                       "mounts:\n  - path: ${WORKSPACE}\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
}

static bool exists(const char *name)
{
	struct stat st;

	return lstat(it_path(ws, name), &st) == 0;
}

static void run_in(struct it_run *r, const char *const *extra, const char *const *ops)
{
	const char *opts[24];
	const char *cmd[32];
	size_t n = 0, m = 0;

	opts[n++] = "-p";
	opts[n++] = profile;
	opts[n++] = "-w";
	opts[n++] = ws;
	for (; *extra && n < 22; extra++)
		opts[n++] = *extra;
	opts[n] = NULL;
	cmd[m++] = it_self();
	cmd[m++] = "--in";
	for (; *ops && m < 30; ops++)
		cmd[m++] = *ops;
	cmd[m] = NULL;
	it_run_in(r, opts, cmd);
}

/*
 * Under the landlock backend, a file made in the workspace's top (which holds the hidden
 * secret.key, so it is carved) could not be opened, and the supervisor's create used to
 * leave it there empty. Now the kernel is asked first: EACCES, and nothing on disk, for a
 * create to write and one to read alike; a create in src/ (not carved) is made.
 */
static void test_denied_create_leaves_nothing(void)
{
	struct it_run r;
	char hide[4200], a[4200], b[4200], c[4200];

	setup();
	snprintf(hide, sizeof(hide), "%s/secret.key", ws);
	snprintf(a, sizeof(a), "%s/new.txt", ws);
	snprintf(b, sizeof(b), "%s/new-ro", ws);
	snprintf(c, sizeof(c), "%s/src/made.c", ws);
	{
		const char *extra[] = {"--backend", "landlock", "--hide", hide, NULL};
		const char *ops[] = {"create", a, "create-ro", b, "create", c, NULL};

		run_in(&r, extra, ops);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", a, "EACCES");
	IT_EXPECT_PROBE(r.out, "create-ro", b, "EACCES");
	IT_EXPECT_PROBE(r.out, "create", c, "ok");
	IT_EXPECT(!exists("new.txt"));
	IT_EXPECT(!exists("new-ro"));
	IT_EXPECT(exists("src/made.c"));
}

/* The CLONE_PARENT child of a process that restricted itself to reading: its create in the
 * writable workspace fails (EACCES) and nothing is made. */
static void clone_parent(const char *backend)
{
	struct it_run r;
	char mine[4200], kid[4200];
	const char *extra[] = {"--backend", backend, NULL};

	setup();
	snprintf(mine, sizeof(mine), "%s/mine", ws);
	snprintf(kid, sizeof(kid), "%s/kid", ws);
	{
		const char *ops[] = {"create", it_path(ws, "plain"), "ll-clone-parent", mine, kid,
		                     NULL};

		run_in(&r, extra, ops);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "plain"), "ok");
	IT_EXPECT_PROBE(r.out, "ll-restrict", "-", "ok");
	IT_EXPECT_PROBE(r.out, "ll-self", mine, "EACCES");
	IT_EXPECT_PROBE(r.out, "ll-clone-parent", kid, "EACCES");
	IT_EXPECT(!exists("mine"));
	IT_EXPECT(!exists("kid"));
}

static void test_clone_parent_namespaces(void)
{
	clone_parent("namespaces");
}

static void test_clone_parent_landlock(void)
{
	clone_parent("landlock");
}

/* An orphan of a process that restricted itself, adopted by a child subreaper of the worker
 * (the worker itself): narrower, its create in the writable workspace fails. */
static void orphan(const char *backend)
{
	struct it_run r;
	char kid[4200];
	const char *extra[] = {"--backend", backend, NULL};

	setup();
	snprintf(kid, sizeof(kid), "%s/orphan", ws);
	{
		const char *ops[] = {"create", it_path(ws, "plain"), "ll-orphan", kid, NULL};

		run_in(&r, extra, ops);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "plain"), "ok");
	IT_EXPECT_PROBE(r.out, "ll-orphan", kid, "EACCES");
	IT_EXPECT(!exists("orphan"));
}

static void test_orphan_namespaces(void)
{
	orphan("namespaces");
}

static void test_orphan_landlock(void)
{
	orphan("landlock");
}

/*
 * A process that stacks 15 layers on itself, each replacing its sub-performer, then exits:
 * its slot, and the slot it kept for a layer stacked on it, are free again. Then 33
 * processes restrict themselves at once: 32 get a domain (each keeps room for one more, so 64
 * slots), the 33rd is refused (EAGAIN). A replacement counted its spare twice before the fix,
 * and 14 slots were lost for good.
 */
static void test_domain_slots(void)
{
	struct it_run r;
	const char *extra[] = {"--backend", "namespaces", NULL};
	const char *ops[] = {"ll-stack", "15", "ll-hold", "33", NULL};

	setup();
	run_in(&r, extra, ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "ll-stack", "15", "ok");
	IT_EXPECT_PROBE(r.out, "ll-hold", "33", "ok=32 again=1 other=0");
	IT_EXPECT_CONTAINS(r.err, "sub-performers: at most 64 processes of the sandbox");
}

/* The audit log's decision records for `resolved` (the sandbox path), one a line. */
static char *records_for(const char *log, const char *resolved)
{
	static char text[262144], out[65536];
	char needle[4300];
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	size_t len = 0;

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	out[0] = '\0';
	snprintf(needle, sizeof(needle), "\"resolved\":\"%s\"", resolved);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "\"type\":\"decision\"") && strstr(line, needle))
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s\n", line);
	return out;
}

/*
 * A writer killed while its open of a FIFO waits: the record says the call did not succeed
 * (EINTR: no answer came), where it used to say errno 0, written when the wait began. A
 * writer whose reader came: errno 0, answer perform.
 */
static void fifo_audit(const char *backend)
{
	struct it_run r;
	char log[4200], fk[4200], fp[4200];

	setup();
	snprintf(log, sizeof(log), "%s/audit.log", it_tmpdir());
	snprintf(fk, sizeof(fk), "%s/fk", ws);
	snprintf(fp, sizeof(fp), "%s/fp", ws);
	if (mkfifo(fk, 0644) < 0 || mkfifo(fp, 0644) < 0)
		it_fail(__FILE__, __LINE__, "mkfifo: %s", strerror(errno));
	{
		const char *extra[] = {"--backend", backend, "--audit-log", log, NULL};
		const char *ops[] = {"fifo-kill", fk, "fifo-pair", fp, NULL};

		run_in(&r, extra, ops);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "fifo-kill", fk, "killed");
	IT_EXPECT_PROBE(r.out, "fifo-pair", fp, "ok");
	/* the killed wait: recorded with no success (EINTR: no answer came, whether the caller
	 * ended while it waited or just before) */
	IT_EXPECT_CONTAINS(records_for(log, fk), "\"answer\":\"perform\",\"errno\":4,");
	IT_EXPECT_NOT_CONTAINS(records_for(log, fk), "\"errno\":0,");
	IT_EXPECT_CONTAINS(records_for(log, fp), "\"answer\":\"perform\",\"errno\":0,");
}

/*
 * A FIFO in a read-only mount inside a writable one (claude-agent's .git/hooks): the kernel
 * opens it for writing all the same, and a host reader would get the data. Where the
 * supervisor makes the open (O_CREAT, as a shell's `>`), it is refused: EROFS, as for a file
 * there; a FIFO in the writable part still opens.
 */
static void test_fifo_in_read_only_mount(void)
{
	struct it_run r;
	char ro[4200], fifo[4200], rw[4200];
	const char *extra[] = {"--backend", "namespaces", NULL};

	setup();
	snprintf(ro, sizeof(ro), "%s/ro", ws);
	snprintf(fifo, sizeof(fifo), "%s/ro/fifo", ws);
	snprintf(rw, sizeof(rw), "%s/fifo", ws);
	it_write_file(it_path(ro, "f"), "f\n");
	if (mkfifo(fifo, 0666) < 0 || mkfifo(rw, 0666) < 0)
		it_fail(__FILE__, __LINE__, "mkfifo: %s", strerror(errno));
	it_write_file(profile, "version: 1\nname: sup\nprotect_git: true\n"
	                       "mounts:\n  - path: ${WORKSPACE}\n"
	                       "  - path: ${WORKSPACE}/ro\n    readonly: true\n");
	{
		const char *ops[] = {"fifo-ro-write", fifo, "fifo-ro-write", rw, NULL};

		run_in(&r, extra, ops);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "fifo-ro-write", fifo, "EROFS");
	IT_EXPECT_PROBE(r.out, "fifo-ro-write-nb", fifo, "EROFS");
	IT_EXPECT_PROBE(r.out, "fifo-ro-write", rw, "ok");
	IT_EXPECT_PROBE(r.out, "fifo-ro-write-nb", rw, "ok");
}

static void test_fifo_audit_namespaces(void)
{
	fifo_audit("namespaces");
}

static void test_fifo_audit_landlock(void)
{
	fifo_audit("landlock");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_denied_create_leaves_nothing),
	    IT_CASE(test_clone_parent_namespaces),
	    IT_CASE(test_clone_parent_landlock),
	    IT_CASE(test_fifo_audit_namespaces),
	    IT_CASE(test_fifo_audit_landlock),
	    IT_CASE(test_orphan_namespaces),
	    IT_CASE(test_orphan_landlock),
	    IT_CASE(test_fifo_in_read_only_mount),
	    IT_CASE(test_domain_slots),
	};

	if (argc > 1 && strcmp(argv[1], "--in") == 0)
		return in_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
