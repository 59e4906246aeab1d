/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <dirent.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <termios.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IT_EXIT_SKIP    77
#define IT_CASE_TIMEOUT 120

static char case_tmpdir[4096];

const char *it_sbx_path(void)
{
	const char *p = getenv("SBX");

	return p && *p ? p : "sbx";
}

bool it_is_root(void)
{
	return geteuid() == 0;
}

void it_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	_exit(1);
}

void it_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    skipped: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	_exit(IT_EXIT_SKIP);
}

/* Each case's directory is made by it_main before the case forks, so that it_main removes
 * it afterwards whatever the case did: passed, failed, skipped or was killed by its alarm. */
static void make_case_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(case_tmpdir, sizeof(case_tmpdir), "%s/sbx-it.XXXXXX",
	         base && *base ? base : "/tmp");
	if (!mkdtemp(case_tmpdir)) {
		fprintf(stderr, "mkdtemp %s: %s\n", case_tmpdir, strerror(errno));
		exit(1);
	}
	chmod(case_tmpdir, 0755);
}

const char *it_tmpdir(void)
{
	if (!case_tmpdir[0])
		make_case_tmpdir();
	return case_tmpdir;
}

bool it_proc_stat(pid_t pid, char *comm, size_t size, pid_t *ppid)
{
	char path[64], buf[1024], *l, *r;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l)
		return false;
	snprintf(comm, size, "%.*s", (int)(r - l - 1), l + 1);
	return sscanf(r + 2, "%*c %d", ppid) == 1;
}

char *it_path(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

static void mkparents(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
}

void it_write_file(const char *path, const char *content)
{
	FILE *f;

	mkparents(path);
	f = fopen(path, "w");
	if (!f)
		it_fail(__FILE__, __LINE__, "cannot write %s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
}

/* Read what is there into buf (kept NUL-terminated, excess discarded); false at EOF. */
static bool drain(int fd, char *buf, size_t size, size_t *len)
{
	char junk[4096];
	ssize_t n;

	if (*len + 1 < size)
		n = read(fd, buf + *len, size - 1 - *len);
	else
		n = read(fd, junk, sizeof(junk));
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	if (*len + 1 < size) {
		*len += (size_t)n;
		buf[*len] = '\0';
	}
	return true;
}

void it_exec(struct it_run *r, const char *const *argv)
{
	int out[2], err[2];
	size_t olen = 0, elen = 0;
	int status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		it_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		char *const *av;

		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		/* execv's prototype predates const; it does not write to the strings. */
		memcpy(&av, &argv, sizeof(av));
		execv(argv[0], av);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	{
		struct pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
		char *bufs[2] = {r->out, r->err};
		size_t *lens[2] = {&olen, &elen};

		while (p[0].fd >= 0 || p[1].fd >= 0) {
			if (poll(p, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < 2; i++) {
				if (p[i].fd < 0 || !p[i].revents)
					continue;
				if (!drain(p[i].fd, bufs[i], sizeof(r->out), lens[i])) {
					close(p[i].fd);
					p[i].fd = -1;
				}
			}
		}
	}
	if (waitpid(pid, &status, 0) < 0)
		it_fail(__FILE__, __LINE__, "waitpid: %s", strerror(errno));
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void it_sbx(struct it_run *r, const char *const *args)
{
	size_t n = 0;
	const char **argv;

	while (args[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	if (!argv)
		it_fail(__FILE__, __LINE__, "out of memory");
	argv[0] = it_sbx_path();
	memcpy(argv + 1, args, n * sizeof(*argv));
	it_exec(r, argv);
	free(argv);
}

void it_sbxv(struct it_run *r, ...)
{
	const char *args[256];
	size_t n = 0;
	va_list ap;

	va_start(ap, r);
	while (n + 1 < sizeof(args) / sizeof(args[0]) && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	it_sbx(r, args);
}

void it_sh(struct it_run *r, const char *script, ...)
{
	const char *args[256];
	size_t n = 0;
	va_list ap;

	args[n++] = "run";
	va_start(ap, script);
	while (n + 5 < sizeof(args) / sizeof(args[0]) && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n++] = "--";
	args[n++] = "/bin/sh";
	args[n++] = "-c";
	args[n++] = script;
	args[n] = NULL;
	it_sbx(r, args);
}

/* A case may leave directories read-only (a test of read-only mounts makes some): they are
 * made writable on the way down, before their entries are removed on the way up. */
static int make_writable(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && (st->st_mode & 0700) != 0700)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, make_writable, 32, FTW_PHYS);
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

void it_expect_probe(const char *file, int line, const char *out, const char *op, const char *path,
                     const char *want)
{
	char head[4400];
	const char *at, *got;
	size_t n;

	snprintf(head, sizeof(head), "%s %s => ", op, path);
	for (at = strstr(out, head); at && at != out && at[-1] != '\n'; at = strstr(at + 1, head))
		;
	if (!at)
		it_fail(file, line, "the probe printed no result for '%s %s' in:\n%s", op, path,
		        out);
	got = at + strlen(head);
	n = strcspn(got, "\n");
	if (strlen(want) != n || strncmp(got, want, n) != 0)
		it_fail(file, line, "%s %s answered %.*s, expected %s", op, path, (int)n, got,
		        want);
}

/* ---- the probe: runs inside sandboxes ---- */

static const char *res(int r)
{
	static char buf[64];

	if (r >= 0)
		return "ok";
	snprintf(buf, sizeof(buf), "%s", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return buf;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* A nested user and mount namespace, as a worker could make if nothing forbade it. */
static int nested_ns(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -1;
	write_str("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	write_str("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	write_str("/proc/self/gid_map", map);
	return 0;
}

static int probe_one(const char *op, char **a)
{
	struct mount_attr rw = {.attr_clr = MOUNT_ATTR_RDONLY};
	int fd, r;

	if (!strcmp(op, "read")) {
		char c;
		fd = open(a[0], O_RDONLY | O_CLOEXEC);
		r = fd < 0 ? -1 : (int)read(fd, &c, 1);
		printf("read %s => %s\n", a[0], res(r));
	} else if (!strcmp(op, "write")) {
		fd = open(a[0], O_WRONLY | O_CLOEXEC);
		r = fd < 0 ? -1 : (int)write(fd, "x", 1);
		printf("write %s => %s\n", a[0], res(r));
	} else if (!strcmp(op, "create")) {
		fd = open(a[0], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		printf("create %s => %s\n", a[0], res(fd));
	} else if (!strcmp(op, "unlink")) {
		printf("unlink %s => %s\n", a[0], res(unlink(a[0])));
	} else if (!strcmp(op, "mkdir")) {
		printf("mkdir %s => %s\n", a[0], res(mkdir(a[0], 0755)));
	} else if (!strcmp(op, "rmdir")) {
		printf("rmdir %s => %s\n", a[0], res(rmdir(a[0])));
	} else if (!strcmp(op, "rename")) {
		printf("rename %s => %s\n", a[0], res(rename(a[0], a[1])));
	} else if (!strcmp(op, "chmod")) {
		printf("chmod %s => %s\n", a[0], res(chmod(a[0], 0600)));
	} else if (!strcmp(op, "truncate")) {
		printf("truncate %s => %s\n", a[0], res(truncate(a[0], 0)));
	} else if (!strcmp(op, "link")) {
		printf("link %s => %s\n", a[0], res(link(a[0], a[1])));
	} else if (!strcmp(op, "symlink")) {
		printf("symlink %s => %s\n", a[1], res(symlink(a[0], a[1])));
	} else if (!strcmp(op, "stat")) {
		struct stat st;
		printf("stat %s => %s\n", a[0], res(lstat(a[0], &st)));
	} else if (!strcmp(op, "tcp-connect") || !strcmp(op, "tcp-bind")) {
		/* to or on 127.0.0.1:PORT */
		struct sockaddr_in sa = {.sin_family = AF_INET,
		                         .sin_port = htons((uint16_t)atoi(a[0])),
		                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rr = s;

		if (s >= 0)
			rr = op[4] == 'c' ? connect(s, (struct sockaddr *)&sa, sizeof(sa))
			                  : bind(s, (struct sockaddr *)&sa, sizeof(sa));
		printf("%s %s => %s\n", op, a[0], res(rr));
		if (s >= 0)
			close(s);
	} else if (!strcmp(op, "read-size")) {
		/* how many bytes open and read give (an empty mask reads as 0) */
		char buf[4096];
		ssize_t n, total = 0;

		fd = open(a[0], O_RDONLY | O_CLOEXEC);
		r = fd;
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
			if (n < 0) {
				r = -1;
				break;
			}
			total += n;
		}
		if (r >= 0)
			printf("read-size %s => ok %zd\n", a[0], total);
		else
			printf("read-size %s => %s\n", a[0], res(-1));
		if (fd >= 0)
			close(fd);
	} else if (!strcmp(op, "unix-connect")) {
		/* to a unix socket bound to a path */
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rr = s;

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", a[0]);
		if (s >= 0)
			rr = connect(s, (struct sockaddr *)&sa, sizeof(sa));
		printf("%s %s => %s\n", op, a[0], res(rr));
		if (s >= 0)
			close(s);
	} else if (!strcmp(op, "abstract-connect")) {
		/* to a unix socket in the abstract namespace: @NAME */
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		size_t n = strnlen(a[0], sizeof(sa.sun_path) - 1);
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rr = s;

		memcpy(sa.sun_path + 1, a[0], n);
		if (s >= 0)
			rr = connect(s, (struct sockaddr *)&sa,
			             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
		printf("%s %s => %s\n", op, a[0], res(rr));
		if (s >= 0)
			close(s);
	} else if (!strcmp(op, "udp-send")) {
		/* one datagram to 127.0.0.1:PORT */
		struct sockaddr_in sa = {.sin_family = AF_INET,
		                         .sin_port = htons((uint16_t)atoi(a[0])),
		                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rr = s;

		if (s >= 0)
			rr = sendto(s, "x", 1, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -1 : 0;
		printf("%s %s => %s\n", op, a[0], res(rr));
		if (s >= 0)
			close(s);
	} else if (!strcmp(op, "exec")) {
		/* execve in a child; its exit code carries execve's errno (100 + errno) */
		pid_t pid = fork();
		int st = 0, rr = -1;

		if (pid == 0) {
			char *const av[] = {(char *)a[0], NULL};

			execve(a[0], av, (char *const[]){NULL});
			_exit(100 + errno);
		}
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)) {
			if (WEXITSTATUS(st) == 0)
				rr = 0;
			else if (WEXITSTATUS(st) > 100)
				errno = WEXITSTATUS(st) - 100;
			else
				errno = ECHILD;
		}
		printf("exec %s => %s\n", a[0], res(rr));
	} else if (!strcmp(op, "mmap-exec")) {
		/* what a loader does with a program: map it executable (noexec mounts refuse) */
		void *m = MAP_FAILED;

		fd = open(a[0], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		printf("mmap-exec %s => %s\n", a[0], res(fd < 0 || m == MAP_FAILED ? -1 : 0));
		if (m != MAP_FAILED)
			munmap(m, 4096);
		if (fd >= 0)
			close(fd);
	} else if (!strcmp(op, "ls")) {
		DIR *d = opendir(a[0]);
		int n = 0;
		if (d) {
			while (readdir(d))
				n++;
			closedir(d);
			printf("ls %s => ok %d\n", a[0], n - 2);
		} else {
			printf("ls %s => %s\n", a[0], res(-1));
		}
	} else if (!strcmp(op, "remount-rw")) {
		r = mount(NULL, a[0], NULL, MS_REMOUNT | MS_BIND, NULL);
		printf("remount-rw %s => %s\n", a[0], res(r));
	} else if (!strcmp(op, "umount")) {
		printf("umount %s => %s\n", a[0], res(umount2(a[0], MNT_DETACH)));
	} else if (!strcmp(op, "setattr-rw")) {
		r = mount_setattr(AT_FDCWD, a[0], AT_RECURSIVE, &rw, sizeof(rw));
		printf("setattr-rw %s => %s\n", a[0], res(r));
	} else if (!strcmp(op, "open-tree")) {
		fd = open_tree(AT_FDCWD, a[0], OPEN_TREE_CLONE | AT_RECURSIVE);
		printf("open-tree %s => %s\n", a[0], res(fd));
	} else if (!strcmp(op, "nested")) {
		/* Enter a nested user+mount namespace; later operations run there. */
		printf("nested => %s\n", res(nested_ns()));
	} else if (!strcmp(op, "open-tree-rw")) {
		/* Clone, clear read-only on the clone, attach it over the original. */
		fd = open_tree(AT_FDCWD, a[0], OPEN_TREE_CLONE | AT_RECURSIVE);
		r = fd;
		if (fd >= 0)
			r = mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &rw, sizeof(rw));
		if (fd >= 0 && r >= 0)
			r = move_mount(fd, "", AT_FDCWD, a[0], MOVE_MOUNT_F_EMPTY_PATH);
		printf("open-tree-rw %s => %s\n", a[0], res(r));
	} else if (!strcmp(op, "tiocsti")) {
		char c = 'X';
		printf("tiocsti => %s\n", res(ioctl(0, TIOCSTI, &c)));
	} else if (!strcmp(op, "kill")) {
		printf("kill %s => %s\n", a[0], res(kill(atoi(a[0]), SIGTERM)));
	} else if (!strcmp(op, "kill0")) {
		/* may a signal be sent? (signal 0: nothing is delivered) */
		printf("kill0 %s => %s\n", a[0], res(kill(atoi(a[0]), 0)));
	} else if (!strcmp(op, "ptrace")) {
		r = (int)ptrace(PTRACE_ATTACH, atoi(a[0]), NULL, NULL);
		printf("ptrace %s => %s\n", a[0], res(r));
	} else if (!strcmp(op, "fds")) {
		DIR *d = opendir("/proc/self/fd");
		struct dirent *de;
		printf("fds =>");
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
				printf(" %s", de->d_name);
		printf("\n");
		if (d)
			closedir(d);
	} else if (!strcmp(op, "sleep")) {
		sleep((unsigned)atoi(a[0]));
		printf("slept\n");
	} else {
		printf("unknown probe op %s\n", op);
		return -1;
	}
	fflush(stdout);
	return 0;
}

static int probe_arity(const char *op)
{
	static const char *const two[] = {"rename", "link", "symlink"};
	static const char *const zero[] = {"nested", "tiocsti", "fds"};

	for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
		if (!strcmp(op, two[i]))
			return 2;
	for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (!strcmp(op, zero[i]))
			return 0;
	return 1;
}

static int probe_main(int argc, char **argv)
{
	for (int i = 0; i < argc;) {
		int n = probe_arity(argv[i]);

		if (i + n >= argc + (n == 0)) {
			fprintf(stderr, "probe: %s needs %d arguments\n", argv[i], n);
			return 2;
		}
		if (probe_one(argv[i], argv + i + 1) < 0)
			return 2;
		i += n + 1;
	}
	return 0;
}

static char self_path[4096], self_dir[4096];

const char *it_self(void)
{
	if (!self_path[0]) {
		ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
		if (n < 0)
			it_fail(__FILE__, __LINE__, "readlink /proc/self/exe: %s", strerror(errno));
		self_path[n] = '\0';
	}
	return self_path;
}

const char *it_self_dir(void)
{
	if (!self_dir[0]) {
		char *slash;
		snprintf(self_dir, sizeof(self_dir), "%s", it_self());
		slash = strrchr(self_dir, '/');
		if (slash && slash != self_dir)
			*slash = '\0';
	}
	return self_dir;
}

void it_run_in(struct it_run *r, const char *const *opts, const char *const *cmd)
{
	const char *args[512];
	char vol[4200];
	size_t n = 0;

	snprintf(vol, sizeof(vol), "%s:ro", it_self_dir());
	args[n++] = "run";
	args[n++] = "-v";
	args[n++] = vol;
	for (; opts && *opts && n < 400; opts++)
		args[n++] = *opts;
	args[n++] = "--";
	for (; cmd && *cmd && n < 510; cmd++)
		args[n++] = strcmp(*cmd, "@probe") == 0 ? it_self() : *cmd;
	args[n] = NULL;
	it_sbx(r, args);
}

int it_main(int argc, char **argv, const struct it_case *cases, size_t n)
{
	unsigned passed = 0, failed = 0, skipped = 0;
	const char *filter = argc > 1 ? argv[1] : NULL;

	if (filter && strcmp(filter, "--probe") == 0)
		return probe_main(argc - 2, argv + 2);

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# %s as uid %u, sbx = %s\n", argv[0], (unsigned)geteuid(), it_sbx_path());
	for (size_t i = 0; i < n; i++) {
		int status;
		pid_t pid;
		time_t start = time(NULL);

		if (filter && !strstr(cases[i].name, filter))
			continue;
		make_case_tmpdir();
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			setpgid(0, 0);
			alarm(IT_CASE_TIMEOUT);
			cases[i].fn();
			fflush(stdout);
			_exit(0);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		/* A case's own leftovers (a sandbox it started, its directory) go with it. */
		kill(-pid, SIGKILL);
		remove_tree(case_tmpdir);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok      %s (%lds)\n", cases[i].name, (long)(time(NULL) - start));
			passed++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == IT_EXIT_SKIP) {
			printf("skip    %s\n", cases[i].name);
			skipped++;
		} else {
			printf("FAILED  %s (%s %d)\n", cases[i].name,
			       WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			failed++;
		}
	}
	printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
	if (failed)
		return 1;
	if (passed == 0 && skipped > 0)
		return IT_EXIT_SKIP;
	return 0;
}

const char *it_errno_word(int r)
{
	if (r >= 0)
		return "ok";
	return strerrorname_np(errno) ? strerrorname_np(errno) : "error";
}

long long it_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *it_at(const char *dir, const char *name)
{
	static char buf[8][4200];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}
