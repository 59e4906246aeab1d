/* SPDX-License-Identifier: MIT */
/*
 * The supervisor (src/os/supervisor.c; docs/design.md, The supervisor). A protected path that
 * does not exist at launch (a fresh project's .git, .claude/settings.json) cannot be created
 * by any route: a directory, a file with a gitdir: line, a symlink, a hard link, a rename onto
 * it, through a dirfd, through /proc/self/fd/N, through a dangling symlink, nor by racing the
 * check with a symlink swap or a change of the path in memory; ordinary creates, writes and
 * renames keep working, with the caller's owner and umask. The worker cannot install a
 * listener of its own (EBUSY), never holds the listener fd, and killing the performer ends
 * the sandbox. Under the landlock backend chmod, utimes, removexattr and chattr of a read-only
 * file are refused. A process that gives itself a Landlock domain (and its descendants) is
 * never performed for; the performer never opens another process's /proc/PID; a unix
 * socket's bind cannot make a protected name.
 * A nested sbx under a supervised parent is served by the parent's listener: one restricted
 * to a subtree that holds no protected name creates there, an unrestricted one cannot create
 * while protected names are watched (it could race the check). As root and as the user; both
 * backends where they apply.
 */
#include <dirent.h>
#include <linux/landlock.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char ws[4096], profile[4200];

/* The two cases of a check that takes the backend: test_NAME_namespaces and
 * test_NAME_landlock, each calling fn with its backend's name. */
#define BOTH_BACKENDS(name, fn)                                                                    \
	static void test_##name##_namespaces(void)                                                 \
	{                                                                                          \
		fn("namespaces");                                                                  \
	}                                                                                          \
	static void test_##name##_landlock(void)                                                   \
	{                                                                                          \
		fn("landlock");                                                                    \
	}

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, f);
	n = vasprintf(&p, f, ap);
	va_end(ap);
	if (n < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

/* ---- inside the sandbox: `it_supervise --in OP ARG... OP ARG...` ---- */

static const char *res(int r)
{
	static char buf[64];

	if (r >= 0)
		return "ok";
	snprintf(buf, sizeof(buf), "%s", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	return buf;
}

static int create_file(const char *path, int flags)
{
	int fd = open(path, flags | O_WRONLY | O_CLOEXEC, 0666);

	if (fd < 0)
		return -1;
	/* what makes a .git file a repository: git follows its gitdir: line */
	if (write(fd, "gitdir: /tmp/evil\n", 18) != 18) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Two threads: one flips what the path names (a symlink's target, or the bytes of the path
 * in memory), the other creates through it. Prints how many creates succeeded. */
static volatile int stop_flag;
static char race_buf[4096];
static const char *race_dir;

static void *flip_link(void *arg)
{
	char *tmp = fmt("%s/p.tmp", race_dir), *p = fmt("%s/p", race_dir);

	(void)arg;
	for (unsigned i = 0; !stop_flag; i++) {
		unlink(tmp);
		if (symlink(i % 2 ? "." : "sub", tmp) == 0)
			rename(tmp, p);
	}
	return NULL;
}

static void *flip_memory(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !stop_flag; i++)
		memcpy(race_buf + strlen(race_dir), i % 2 ? "/sub/.gix" : "/./.git\0", 9);
	return NULL;
}

static void race(const char *dir, int n, bool memory)
{
	pthread_t th;
	int made = 0;
	char *target = fmt("%s/p/.git", dir);
	char *sub = fmt(memory ? "%s/sub/.gix" : "%s/sub/.git", dir);

	race_dir = dir;
	snprintf(race_buf, sizeof(race_buf), "%s/sub/.gix", dir);
	stop_flag = 0;
	pthread_create(&th, NULL, memory ? flip_memory : flip_link, NULL);
	for (int i = 0; i < n; i++) {
		int fd = open(memory ? race_buf : target, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd >= 0) {
			made++;
			close(fd);
			unlink(sub);
		}
		if (mkdir(memory ? race_buf : target, 0755) == 0) {
			made++;
			rmdir(sub);
		}
	}
	stop_flag = 1;
	pthread_join(th, NULL);
	printf("race %s => made %d\n", memory ? "memory" : "link", made);
}

/* The same race on a directory descriptor (the caller's FD): the path flips between
 * "./sub/.gix" and "././.git" relative to it. */
static void race_at(int dfd, int n)
{
	pthread_t th;
	int made = 0;

	race_dir = ".";
	snprintf(race_buf, sizeof(race_buf), "./sub/.gix");
	stop_flag = 0;
	pthread_create(&th, NULL, flip_memory, NULL);
	for (int i = 0; i < n; i++) {
		int fd = openat(dfd, race_buf, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd >= 0) {
			made++;
			close(fd);
			unlinkat(dfd, "sub/.gix", 0);
		}
		if (mkdirat(dfd, race_buf, 0755) == 0) {
			made++;
			unlinkat(dfd, "sub/.gix", AT_REMOVEDIR);
		}
	}
	stop_flag = 1;
	pthread_join(th, NULL);
	printf("race at => made %d\n", made);
}

/* A filter of its own (allow-all) on the calling thread: it is then "narrower" than the
 * worker (what an attacker's "narrow" helper does before exec). */
static int narrow_self(void)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {1, allow};

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* DIR/p flips between "sub" (inside DIR) and ".." (DIR's parent), each time by renaming a
 * fresh symlink over it (no unlink: only creations, which the profile does not supervise). */
static void *flip_up(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !stop_flag; i++) {
		char tmp[4200], p[4200];

		snprintf(tmp, sizeof(tmp), "%s/p.%u", race_dir, i);
		snprintf(p, sizeof(p), "%s/p", race_dir);
		if (symlink(i % 2 ? ".." : "sub", tmp) == 0)
			rename(tmp, p);
	}
	return NULL;
}

/* A thread with a filter of its own unlinks DIR/p/precious while the other (with the
 * worker's rights) flips DIR/p: a grant for DIR must never delete DIR/../precious. */
static void race_unlink(const char *dir, int n)
{
	pthread_t th;
	int deleted = 0;
	char *victim = fmt("%s/p/precious", dir);

	race_dir = dir;
	stop_flag = 0;
	pthread_create(&th, NULL, flip_up, NULL);
	if (narrow_self() < 0) {
		printf("race unlink => %s\n", res(-1));
		stop_flag = 1;
		pthread_join(th, NULL);
		return;
	}
	for (int i = 0; i < n; i++)
		if (unlink(victim) == 0)
			deleted++;
	stop_flag = 1;
	pthread_join(th, NULL);
	printf("race unlink => deleted %d\n", deleted);
}

static int open_read1(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	char c;

	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int own_listener(void)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {1, allow};
	int r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
	                     &prog);

	if (r >= 0)
		close(r);
	return r;
}

static int performer_pid(void);

/* Kill the performer (see performer_pid); says so first: sbx may end this process as soon as
 * the performer is gone. */
static int kill_performer(void)
{
	int pid = performer_pid();

	if (!pid) {
		errno = ESRCH;
		return -1;
	}
	printf("kill-performer - => ok\n");
	fflush(stdout);
	return kill(pid, SIGKILL);
}

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

/* The caller gives itself a Landlock domain that refuses every write and read of a file it
 * opens from now on (no rule: nothing is allowed). */
static int landlock_self(void)
{
	struct landlock_ruleset_attr attr = {
	    .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
	                         LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |
	                         LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	int abi =
	    (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int rs;

	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		close(rs);
		return -1;
	}
	close(rs);
	return 0;
}

/* The performer's pid as the worker sees it, 0 when none: a process of the worker's session
 * that kept sbx's name (forked, never exec'd); neither this process nor init (pid 1), nor sbx
 * on the host (another session). */
static int performer_pid(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;

	while (d && (de = readdir(d))) {
		char path[300], buf[512], *rp;
		int fd, sid;
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		rp = strrchr(buf, ')');
		if (!rp || !strstr(buf, "(sbx)") || sscanf(rp + 2, "%*c %*d %*d %d", &sid) != 1 ||
		    sid != getsid(0) || atoi(de->d_name) == getpid() || atoi(de->d_name) == 1)
			continue;
		found = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

static int in_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < argc; i++) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : "",
		           *b = i + 2 < argc ? argv[i + 2] : "";

		if (!strcmp(op, "mkdir")) {
			printf("mkdir %s => %s\n", a, res(mkdir(a, 0755)));
			i += 1;
		} else if (!strcmp(op, "create")) {
			printf("create %s => %s\n", a, res(create_file(a, O_CREAT | O_EXCL)));
			i += 1;
		} else if (!strcmp(op, "ftrunc-shrink") || !strcmp(op, "ftrunc-grow")) {
			/* ftruncate(2) on a descriptor opened for writing, to 0 or past the end */
			int fd = open(a, O_WRONLY | O_CLOEXEC);
			struct stat st;
			int r = fd < 0 || fstat(fd, &st) < 0
			            ? -1
			            : ftruncate(fd, op[7] == 's' ? 0 : st.st_size + 10);

			printf("%s %s => %s\n", op, a, res(r));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "falloc-punch") || !strcmp(op, "falloc-grow")) {
			/* fallocate(2): a hole punched over the start, or space made past the end
			 */
			int fd = open(a, O_WRONLY | O_CLOEXEC);
			struct stat st;
			int r =
			    fd < 0 || fstat(fd, &st) < 0
			        ? -1
			        : (op[7] == 'p'
			               ? fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			                           0, 4096)
			               : fallocate(fd, 0, st.st_size, 4096));

			printf("%s %s => %s\n", op, a, res(r));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "creat-trunc")) {
			printf("creat-trunc %s => %s\n", a, res(create_file(a, O_CREAT | O_TRUNC)));
			i += 1;
		} else if (!strcmp(op, "write")) {
			printf("write %s => %s\n", a, res(create_file(a, O_APPEND)));
			i += 1;
		} else if (!strcmp(op, "symlink")) {
			printf("symlink %s => %s\n", b, res(symlink(a, b)));
			i += 2;
		} else if (!strcmp(op, "link")) {
			printf("link %s => %s\n", b, res(link(a, b)));
			i += 2;
		} else if (!strcmp(op, "rename")) {
			printf("rename %s => %s\n", b, res(rename(a, b)));
			i += 2;
		} else if (!strcmp(op, "unlink")) {
			printf("unlink %s => %s\n", a, res(unlink(a)));
			i += 1;
		} else if (!strcmp(op, "rmdir")) {
			printf("rmdir %s => %s\n", a, res(rmdir(a)));
			i += 1;
		} else if (!strcmp(op, "at-create")) {
			/* openat on a dirfd: DIR NAME */
			int dfd = open(a, O_PATH | O_DIRECTORY | O_CLOEXEC);
			int fd =
			    dfd < 0 ? -1 : openat(dfd, b, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

			printf("at-create %s/%s => %s\n", a, b, res(fd));
			i += 2;
		} else if (!strcmp(op, "procfd-create")) {
			/* through the magic link /proc/self/fd/N: DIR NAME */
			int dfd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			char p[128];

			snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", dfd, b);
			printf("procfd-create %s/%s => %s\n", a, b, res(create_file(p, O_CREAT)));
			i += 2;
		} else if (!strcmp(op, "procfd-mkdir")) {
			int dfd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			char p[128];

			snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", dfd, b);
			printf("procfd-mkdir %s/%s => %s\n", a, b, res(mkdir(p, 0755)));
			i += 2;
		} else if (!strcmp(op, "dangling")) {
			/* LINK -> TARGET, then O_CREAT through the link (which creates its target)
			 */
			int r = symlink(b, a);

			printf("dangling-symlink %s => %s\n", a, res(r));
			printf("dangling-create %s => %s\n", a, res(create_file(a, O_CREAT)));
			i += 2;
		} else if (!strcmp(op, "mode")) {
			/* umask honoured, owner the caller: PATH */
			struct stat st;
			int r;

			umask(027);
			r = create_file(a, O_CREAT | O_EXCL);
			if (r == 0 && stat(a, &st) == 0)
				printf("mode %s => %04o uid %s\n", a, st.st_mode & 07777,
				       st.st_uid == getuid() ? "same" : "other");
			else
				printf("mode %s => %s\n", a, res(r));
			umask(022);
			i += 1;
		} else if (!strcmp(op, "chmod")) {
			printf("chmod %s => %s\n", a, res(chmod(a, 0640)));
			i += 1;
		} else if (!strcmp(op, "utimes")) {
			printf("utimes %s => %s\n", a, res(utimes(a, NULL)));
			i += 1;
		} else if (!strcmp(op, "chown")) {
			printf("chown %s => %s\n", a, res(chown(a, getuid(), getgid())));
			i += 1;
		} else if (!strcmp(op, "race-link")) {
			race(a, atoi(b), false);
			i += 2;
		} else if (!strcmp(op, "race-memory")) {
			race(a, atoi(b), true);
			i += 2;
		} else if (!strcmp(op, "race-at")) {
			race_at(atoi(a), atoi(b));
			i += 2;
		} else if (!strcmp(op, "narrow")) {
			/* a filter of its own: the caller is "narrower" than the worker */
			struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
			struct sock_fprog prog = {1, allow};

			printf("narrow - => %s\n",
			       res((int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)));
		} else if (!strcmp(op, "rdwr")) {
			printf("rdwr %s => %s\n", a, res(open_read1(a, O_RDWR)));
			i += 1;
		} else if (!strcmp(op, "rdonly")) {
			printf("rdonly %s => %s\n", a, res(open_read1(a, O_RDONLY)));
			i += 1;
		} else if (!strcmp(op, "opath")) {
			int fd = open(a, O_PATH | O_CLOEXEC);

			printf("opath %s => %s\n", a, res(fd));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "opath-reopen")) {
			/* an O_PATH fd reopened for reading through /proc/self/fd: an open of
			 * its own, decided on the object */
			int fd = open(a, O_PATH | O_CLOEXEC);
			char link[64];

			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			printf("opath-reopen %s => %s\n", a,
			       fd < 0 ? res(fd) : res(open_read1(link, O_RDONLY)));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "exchange")) {
			printf("exchange %s => %s\n", b,
			       res(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)));
			i += 2;
		} else if (!strcmp(op, "noreplace")) {
			printf("noreplace %s => %s\n", b,
			       res(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE)));
			i += 2;
		} else if (!strcmp(op, "batch")) {
			/* DIR: deletes 1.5 s apart (a batch that goes on), then one by a child
			 * process under the same command name (not the batch's) */
			char *path[4];
			pid_t pid;

			for (int k = 0; k < 4; k++)
				path[k] = fmt("%s/%c", a, 'a' + k);
			for (int k = 0; k < 3; k++) {
				if (k)
					usleep(1500000);
				printf("unlink %s => %s\n", path[k], res(unlink(path[k])));
			}
			fflush(stdout);
			pid = fork();
			if (pid == 0) {
				printf("unlink %s => %s\n", path[3], res(unlink(path[3])));
				fflush(stdout);
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
			i += 1;
		} else if (!strcmp(op, "race-unlink")) {
			race_unlink(a, atoi(b));
			i += 2;
		} else if (!strcmp(op, "listener")) {
			printf("listener - => %s\n", res(own_listener()));
		} else if (!strcmp(op, "fds")) {
			/* every open fd, by probing each number, and what /proc says */
			DIR *d = opendir("/proc/self/fd");
			struct dirent *de;

			printf("fds =>");
			for (int fd = 0; fd < 1024; fd++)
				if ((!d || fd != dirfd(d)) && fcntl(fd, F_GETFD) >= 0)
					printf(" %d", fd);
			printf("\nprocfds =>");
			while (d && (de = readdir(d)))
				if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
					printf(" %s", de->d_name);
			printf("\n");
			if (d)
				closedir(d);
		} else if (!strcmp(op, "rmxattr")) {
			/* removexattr, lremovexattr, fremovexattr of NAME on PATH: PATH NAME */
			int fd = open(a, O_RDONLY | O_CLOEXEC);

			printf("rmxattr %s => %s\n", a, res(removexattr(a, b)));
			printf("lrmxattr %s => %s\n", a, res(lremovexattr(a, b)));
			printf("frmxattr %s => %s\n", a, res(fd < 0 ? -1 : fremovexattr(fd, b)));
			if (fd >= 0)
				close(fd);
			i += 2;
		} else if (!strcmp(op, "setxattr")) {
			printf("setxattr %s => %s\n", a, res(setxattr(a, "user.x", "1", 1, 0)));
			i += 1;
		} else if (!strcmp(op, "chattr")) {
			/* FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR, setting what is already set (a
			 * no-op where allowed: its answer is the point) */
			int fd = open(a, O_RDONLY | O_CLOEXEC | O_NONBLOCK), flags = 0, r;
			struct fsxattr fsx;

			r = fd < 0 ? -1 : ioctl(fd, FS_IOC_GETFLAGS, &flags);
			printf("getflags %s => %s\n", a, res(r));
			r = fd < 0 ? -1 : ioctl(fd, FS_IOC_SETFLAGS, &flags);
			printf("setflags %s => %s\n", a, res(r));
			memset(&fsx, 0, sizeof(fsx));
			r = fd < 0 ? -1 : ioctl(fd, FS_IOC_FSGETXATTR, &fsx);
			r = r < 0 ? r : ioctl(fd, FS_IOC_FSSETXATTR, &fsx);
			printf("fssetxattr %s => %s\n", a, res(r));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "bind")) {
			/* an AF_UNIX socket bound to PATH, then reached there */
			struct sockaddr_un un = {.sun_family = AF_UNIX};
			int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			int cl = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

			snprintf(un.sun_path, sizeof(un.sun_path), "%s", a);
			r = bind(fd, (struct sockaddr *)&un, sizeof(un));
			printf("bind %s => %s\n", a, res(r));
			if (r == 0) {
				r = listen(fd, 1);
				r = r < 0 ? r : connect(cl, (struct sockaddr *)&un, sizeof(un));
				printf("connect %s => %s\n", a, res(r));
			}
			close(fd);
			close(cl);
			i += 1;
		} else if (!strcmp(op, "bind-inet")) {
			struct sockaddr_in in = {.sin_family = AF_INET,
			                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

			printf("bind-inet - => %s\n",
			       res(fd < 0 ? fd : bind(fd, (struct sockaddr *)&in, sizeof(in))));
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(op, "landlock")) {
			printf("landlock - => %s\n", res(landlock_self()));
		} else if (!strcmp(op, "read-creat")) {
			/* a read that stops at the supervisor: O_RDONLY|O_CREAT of PATH */
			int fd = open(a, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);

			printf("read-creat %s => %s\n", a, res(fd));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "child-create")) {
			/* from a child, and from a grandchild whose parent has ended (an orphan) */
			pid_t pid = fork();

			if (pid == 0) {
				printf("child-create %s => %s\n", a,
				       res(create_file(a, O_CREAT | O_EXCL)));
				if (fork() == 0) {
					usleep(100000); /* its parent is gone: reparented */
					printf("orphan-create %s.o => %s\n", a,
					       res(create_file(fmt("%s.o", a), O_CREAT | O_EXCL)));
					_exit(0);
				}
				_exit(0);
			}
			waitpid(pid, NULL, 0);
			usleep(300000);
			i += 1;
		} else if (!strcmp(op, "proc-creat")) {
			/* /proc/PID/FILE with O_CREAT (through the supervisor): PID FILE, PID
			 * "performer" for the performer's */
			char p[128];
			int pid = !strcmp(a, "performer") ? performer_pid() : atoi(a);
			int fd;

			snprintf(p, sizeof(p), "/proc/%d/%s", pid, b);
			fd = open(p, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
			printf("proc-creat %s/%s => %s\n", pid ? a : "none", b, res(fd));
			if (fd >= 0)
				close(fd);
			i += 2;
		} else if (!strcmp(op, "procdir-creat")) {
			/* the same through a dirfd on /proc/PID (O_PATH needs no ptrace right) */
			char p[64];
			int pid = !strcmp(a, "performer") ? performer_pid() : atoi(a);
			int dfd, fd;

			snprintf(p, sizeof(p), "/proc/%d", pid);
			dfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
			fd = dfd < 0 ? -1 : openat(dfd, b, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
			printf("procdir-creat %s/%s => %s\n", pid ? a : "none", b, res(fd));
			if (fd >= 0)
				close(fd);
			if (dfd >= 0)
				close(dfd);
			i += 2;
		} else if (!strcmp(op, "kill-performer")) {
			if (kill_performer() < 0)
				printf("kill-performer - => %s\n", res(-1));
			usleep(200000);
		}
	}
	return 0;
}

/* ---- the host side ---- */

/* A fresh project (no .git), its agent settings protected where they do not exist yet. */
static void setup(void)
{
	snprintf(ws, sizeof(ws), "%s/ws", it_tmpdir());
	snprintf(profile, sizeof(profile), "%s/sup.yaml", it_tmpdir());
	it_write_file(it_path(ws, "f"), "file\n");
	it_write_file(it_path(ws, "d/keep"), "x\n");
	it_write_file(it_path(ws, "sub/keep"), "x\n");
	it_write_file(profile, "version: 1\nname: sup\nnesting: true\nprotect_git: true\n"
	                       "mounts:\n  - path: ${WORKSPACE}\n"
	                       "  - path: ${WORKSPACE}/.claude/settings.json\n"
	                       "    readonly: true\n    optional: true\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void run_in(struct it_run *r, const char *backend, const char *const *ops)
{
	const char *opts[] = {"-p", profile, "--workspace", ws, "--backend", backend, NULL};
	const char *cmd[64];
	size_t n = 0;

	cmd[n++] = it_self();
	cmd[n++] = "--in";
	for (; *ops && n < 62; ops++)
		cmd[n++] = *ops;
	cmd[n] = NULL;
	it_run_in(r, opts, cmd);
}

static void protected_names(const char *backend)
{
	struct it_run r;
	const char *ops[] = {"mkdir",
	                     ".git",
	                     "create",
	                     ".git",
	                     "symlink",
	                     "somewhere",
	                     ".git",
	                     "link",
	                     "f",
	                     ".git",
	                     "rename",
	                     "d",
	                     ".git",
	                     "at-create",
	                     ".",
	                     ".git",
	                     "procfd-create",
	                     ".",
	                     ".git",
	                     "procfd-mkdir",
	                     ".",
	                     ".git",
	                     "dangling",
	                     "x",
	                     ".git",
	                     "mkdir",
	                     "sub/../.git",
	                     "create",
	                     "f2",
	                     "write",
	                     "f2",
	                     "rename",
	                     "f2",
	                     "f3",
	                     "mkdir",
	                     "d2",
	                     "unlink",
	                     "f3",
	                     "mode",
	                     "m",
	                     "mkdir",
	                     ".claude",
	                     "create",
	                     ".claude/settings.json",
	                     "create",
	                     ".claude/other",
	                     "rename",
	                     ".claude",
	                     ".claude-away",
	                     "rmdir",
	                     ".claude",
	                     NULL};

	setup();
	run_in(&r, backend, ops);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	/* every route to the protected name */
	IT_EXPECT_PROBE(r.out, "mkdir", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "symlink", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "link", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "rename", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "at-create", "./.git", "EACCES");
	IT_EXPECT_PROBE(r.out, "procfd-create", "./.git", "EACCES");
	IT_EXPECT_PROBE(r.out, "procfd-mkdir", "./.git", "EACCES");
	IT_EXPECT_PROBE(r.out, "dangling-symlink", "x", "ok");
	IT_EXPECT_PROBE(r.out, "dangling-create", "x", "EACCES");
	IT_EXPECT_PROBE(r.out, "mkdir", "sub/../.git", "EACCES");
	/* the rest of the workspace as ever */
	IT_EXPECT_PROBE(r.out, "create", "f2", "ok");
	IT_EXPECT_PROBE(r.out, "write", "f2", "ok");
	IT_EXPECT_PROBE(r.out, "rename", "f3", "ok");
	IT_EXPECT_PROBE(r.out, "mkdir", "d2", "ok");
	IT_EXPECT_PROBE(r.out, "unlink", "f3", "ok");
	IT_EXPECT_PROBE(r.out, "mode", "m", "0640 uid same");
	/* the way to a protected name is made and watched; the name is not */
	IT_EXPECT_PROBE(r.out, "mkdir", ".claude", "ok");
	IT_EXPECT_PROBE(r.out, "create", ".claude/settings.json", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", ".claude/other", "ok");
	IT_EXPECT_PROBE(r.out, "rename", ".claude-away", "EACCES");
	/* the refusal names the rule and what to do */
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: supervisor: denied create %s/.git (mkdir", ws));
	IT_EXPECT_CONTAINS(r.err, "git init");
	/* nothing on the host */
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT(!exists(it_path(ws, ".claude/settings.json")));
	IT_EXPECT(exists(it_path(ws, ".claude/other")));
	IT_EXPECT(exists(it_path(ws, "d2")));
	{
		/* the file the worker made is the caller's, as without the supervisor */
		struct stat st;

		IT_EXPECT_INT(stat(it_path(ws, "m"), &st), 0);
		IT_EXPECT_INT(st.st_uid, getuid());
		IT_EXPECT_INT(st.st_mode & 07777, 0640);
	}
}

BOTH_BACKENDS(protected_names, protected_names)

/* With an approval that asks, a directory on the way is made on the broker's word (sbx sends
 * the performer its PERFORM); its protected name inside is still refused, and the sandbox
 * goes on (sbx's table of protected names and the performer's copy stay the same). */
static void test_on_the_way_asked(void)
{
	struct it_run r;
	char *p = fmt("%s/ask.yaml", it_tmpdir());

	setup();
	it_write_file(p, "version: 1\nname: ask\nprotect_git: true\n"
	                 "mounts:\n  - path: ${WORKSPACE}\n    approvals: {write: ask}\n"
	                 "  - path: ${WORKSPACE}/.claude/settings.json\n"
	                 "    readonly: true\n    optional: true\n");
	{
		const char *opts[] = {"-p", p, "--workspace", ws, "--approve", "allow", NULL};
		const char *cmd[] = {it_self(), "--in",          "mkdir",
		                     ".claude", "create",        ".claude/settings.json",
		                     "create",  ".claude/other", NULL};

		it_run_in(&r, opts, cmd);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_PROBE(r.out, "mkdir", ".claude", "ok");
	IT_EXPECT_PROBE(r.out, "create", ".claude/settings.json", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", ".claude/other", "ok");
	IT_EXPECT(!exists(it_path(ws, ".claude/settings.json")));
}

/* An approval that asks: the broker's answer is what the call gets (performed on its word,
 * or EACCES), for a create, a write and a rename alike. */
static void test_asked(void)
{
	struct it_run r;
	char *p = fmt("%s/ask.yaml", it_tmpdir());
	const char *ops[] = {"--in", "create", "new", "write", "f", "rename", "f", "g", NULL};

	setup();
	it_write_file(p, "version: 1\nname: ask\nmounts:\n  - path: ${WORKSPACE}\n"
	                 "    approvals: {write: ask, overwrite: ask, rename: ask}\n");
	for (int allow = 0; allow < 2; allow++) {
		const char *opts[] = {
		    "-p", p, "--workspace", ws, "--approve", allow ? "allow" : "deny", NULL};
		const char *cmd[10] = {it_self()};

		memcpy(cmd + 1, ops, sizeof(ops));
		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_PROBE(r.out, "create", "new", allow ? "ok" : "EACCES");
		IT_EXPECT_PROBE(r.out, "write", "f", allow ? "ok" : "EACCES");
		IT_EXPECT_PROBE(r.out, "rename", "g", allow ? "ok" : "EACCES");
		IT_EXPECT(exists(it_path(ws, "new")) == (allow == 1));
		IT_EXPECT(exists(it_path(ws, "g")) == (allow == 1));
	}
}

/* A thread flips a symlink on the way, or the path's bytes in memory, while the other creates
 * through it: sub/.git (on a private tmpfs, which the host does not keep) and sub/.gix are
 * made sometimes, ws/.git never. */
static void test_race(void)
{
	struct it_run r;
	const char *opts[] = {"-p",         profile,   "--workspace", ws,  "--backend",
	                      "namespaces", "--tmpfs", NULL,          NULL};
	const char *cmd[] = {it_self(),     "--in", "race-link", NULL, "3000",
	                     "race-memory", NULL,   "3000",      NULL};

	setup();
	opts[7] = fmt("%s/sub", ws);
	cmd[3] = ws;
	cmd[6] = ws;
	IT_EXPECT_INT(symlink("sub", it_path(ws, "p")), 0);
	it_run_in(&r, opts, cmd);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.out, "race link => made ");
	IT_EXPECT_CONTAINS(r.out, "race memory => made ");
	/* the test can fail: it made something in sub at all */
	IT_EXPECT_NOT_CONTAINS(r.out, "race link => made 0\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "race memory => made 0\n");
	IT_EXPECT(!exists(it_path(ws, ".git")));
}

/* A process of the worker that gives itself a filter of its own (so that it is not performed
 * for) does not get CONTINUE while protected names are watched: it could aim the call at one
 * after the check. Its creations are refused, the protected name's and the race's. */
static void test_self_narrowed(void)
{
	struct it_run r;
	const char *ops[] = {"narrow",    "mkdir", ".git", "create", "plain",
	                     "race-link", NULL,    "300",  NULL};

	setup();
	ops[6] = ws;
	IT_EXPECT_INT(symlink("sub", it_path(ws, "p")), 0);
	run_in(&r, "namespaces", ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "narrow", "-", "ok");
	IT_EXPECT_PROBE(r.out, "mkdir", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", "plain", "EACCES");
	IT_EXPECT_CONTAINS(r.out, "race link => made 0\n");
	IT_EXPECT(!exists(it_path(ws, ".git")));
}

/* A filter chain holds one listener: the worker's own gets EBUSY, so none can outrank sbx's;
 * and no fd of the supervisor is in the worker. */
/* A process that gives itself a Landlock domain is narrower: the performer, with the worker's
 * wider rights, never creates, truncates or opens for it (nor for its children, nor for an
 * orphan of theirs); its calls are bounded by its own domain. */
static void landlocked(const char *backend)
{
	struct it_run r;
	const char *ops[] = {"landlock",   "create", "plain",        "mkdir",       "dir2",
	                     "symlink",    "f",      "sym",          "creat-trunc", "f",
	                     "read-creat", "f",      "child-create", "kid",         NULL};

	setup();
	run_in(&r, backend, ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "landlock", "-", "ok");
	IT_EXPECT_PROBE(r.out, "create", "plain", "EACCES");
	IT_EXPECT_PROBE(r.out, "mkdir", "dir2", "EACCES");
	IT_EXPECT_PROBE(r.out, "symlink", "sym", "EACCES");
	IT_EXPECT_PROBE(r.out, "creat-trunc", "f", "EACCES");
	IT_EXPECT_PROBE(r.out, "read-creat", "f", "EACCES");
	IT_EXPECT_PROBE(r.out, "child-create", "kid", "EACCES");
	IT_EXPECT_PROBE(r.out, "orphan-create", "kid.o", "EACCES");
	IT_EXPECT(!exists(it_path(ws, "plain")));
	IT_EXPECT(!exists(it_path(ws, "dir2")));
	IT_EXPECT(!exists(it_path(ws, "sym")));
	IT_EXPECT(!exists(it_path(ws, "kid")));
	IT_EXPECT(!exists(it_path(ws, "kid.o")));
	{
		struct stat st;

		IT_EXPECT_INT(stat(it_path(ws, "f"), &st), 0);
		IT_EXPECT_INT((int)st.st_size, 5); /* not truncated */
	}
	/* and a run without Landlock of its own is served as before */
	{
		const char *plain[] = {"create", "plain", "read-creat", "f", NULL};

		run_in(&r, backend, plain);
		IT_EXPECT_PROBE(r.out, "create", "plain", "ok");
		IT_EXPECT_PROBE(r.out, "read-creat", "f", "ok");
	}
}

BOTH_BACKENDS(landlocked, landlocked)

/* The performer never opens another process's /proc/PID for the caller: its own environ (the
 * host's, under the landlock backend) and pid 1's are refused; the caller's own /proc/self
 * routes keep working. */
static void proc_others(const char *backend)
{
	struct it_run r;
	const char *ops[] = {"proc-creat",
	                     "performer",
	                     "environ",
	                     "proc-creat",
	                     "performer",
	                     "mem",
	                     "proc-creat",
	                     "performer",
	                     "maps",
	                     "proc-creat",
	                     "1",
	                     "environ",
	                     "procfd-create",
	                     NULL,
	                     "made",
	                     "procfd-mkdir",
	                     NULL,
	                     "dmade",
	                     "procdir-creat",
	                     "performer",
	                     "maps",
	                     NULL};

	setup();
	ops[13] = ws;
	ops[16] = ws;
	run_in(&r, backend, ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "proc-creat", "performer/environ", "EACCES");
	IT_EXPECT_PROBE(r.out, "proc-creat", "performer/mem", "EACCES");
	IT_EXPECT_PROBE(r.out, "proc-creat", "performer/maps", "EACCES");
	IT_EXPECT_PROBE(r.out, "proc-creat", "1/environ", "EACCES");
	IT_EXPECT_PROBE(r.out, "procdir-creat", "performer/maps", "EACCES");
	IT_EXPECT_PROBE(r.out, "procfd-create", fmt("%s/made", ws), "ok");
	IT_EXPECT_PROBE(r.out, "procfd-mkdir", fmt("%s/dmade", ws), "ok");
}

BOTH_BACKENDS(proc_others, proc_others)

/* bind(2) of an AF_UNIX socket makes a name: not a protected one (a fresh project's .git, a
 * socket for a repository); elsewhere it works, with the caller's umask, and other families
 * bind as before. The namespaces backend only: the landlock backend denies socket(AF_UNIX). */
static void test_bind(void)
{
	const char *backend = "namespaces";
	struct it_run r;
	const char *ops[] = {"bind", ".git", "bind",        "sock",      "bind",
	                     NULL,   "bind", "sub/../.git", "bind-inet", NULL};
	struct stat st;

	setup();
	ops[5] = fmt("%s/.git", ws);
	run_in(&r, backend, ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "bind", ".git", "EACCES");
	IT_EXPECT_PROBE(r.out, "bind", fmt("%s/.git", ws), "EACCES");
	IT_EXPECT_PROBE(r.out, "bind", "sub/../.git", "EACCES");
	IT_EXPECT_PROBE(r.out, "bind", "sock", "ok");
	IT_EXPECT_PROBE(r.out, "connect", "sock", "ok");
	IT_EXPECT_PROBE(r.out, "bind-inet", "-", "ok");
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT_INT(lstat(it_path(ws, "sock"), &st), 0);
	IT_EXPECT(S_ISSOCK(st.st_mode));
	IT_EXPECT_INT(st.st_mode & 0777, 0755);
}

static void test_listener_and_fds(void)
{
	struct it_run r;
	const char *ops[] = {"listener", "fds", NULL};

	setup();
	run_in(&r, "namespaces", ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "listener", "-", "EBUSY");
	IT_EXPECT_CONTAINS(r.out, "fds => 0 1 2 3\n");
	IT_EXPECT_CONTAINS(r.out, "procfds => 0 1 2 3\n");
	run_in(&r, "landlock", ops);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "listener", "-", "EBUSY");
	IT_EXPECT_CONTAINS(r.out, "fds => 0 1 2 3\n");
}

/* The performer killed from inside: nothing can answer the supervised calls, so the sandbox
 * ends (never ENOSYS to a live worker). */
static void kill_the_performer(const char *backend)
{
	struct it_run r;
	char *log = fmt("%s/audit.jsonl", it_tmpdir());

	setup();
	/* a record cut short before (a full file system): this run's records start lines */
	it_write_file(log, "{\"cut\":");
	{
		const char *opts[] = {"-p",    profile,       "--workspace", ws,  "--backend",
		                      backend, "--audit-log", log,           NULL};
		const char *cmd[] = {it_self(), "--in", "kill-performer", "mkdir", "after", NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_PROBE(r.out, "kill-performer", "-", "ok");
	IT_EXPECT_NOT_CONTAINS(r.out, "mkdir after => ENOSYS");
	IT_EXPECT_NOT_CONTAINS(r.out, "mkdir after => ok");
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "lost its performer");
	IT_EXPECT(!exists(it_path(ws, "after")));
	/* and the audit log's end record says who ended it */
	{
		char buf[65536];
		FILE *f = fopen(log, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		IT_EXPECT_CONTAINS(buf, "\"type\":\"end\"");
		IT_EXPECT_CONTAINS(buf, "\"killed\":\"supervisor lost\"");
		IT_EXPECT_CONTAINS(buf, "{\"cut\":\n{\"v\":1,\"type\":\"start\"");
	}
}

BOTH_BACKENDS(performer_killed, kill_the_performer)

/* The landlock backend's metadata gap: Landlock does not govern chmod, chown or utimes; the
 * supervisor refuses them outside the writable areas. */
static void test_landlock_metadata(void)
{
	struct it_run r;
	char *ro = fmt("%s/ro", it_tmpdir()), *rofile, *rwfile, *updir;

	setup();
	rofile = it_path(ro, "file");
	rwfile = it_path(ws, "f");
	updir = fmt("%s/sub/..", ro);
	it_write_file(rofile, "read-only\n");
	it_write_file(it_path(ro, "sub/keep"), "x\n");
	{
		/* ro/sub is writable inside the read-only ro: "ro/sub/.." is ro itself */
		const char *opts[] = {
		    "-p",        profile,          "--workspace", ws,
		    "-v",        fmt("%s:ro", ro), "-v",          fmt("%s/sub:rw", ro),
		    "--backend", "landlock",       NULL};
		const char *cmd[] = {it_self(), "--in",  "utimes", rofile,  "utimes",
		                     rwfile,    "chmod", rofile,   "chmod", rwfile,
		                     "chown",   rofile,  "chown",  rwfile,  "utimes",
		                     updir,     "chmod", updir,    NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "utimes", updir, "EACCES");
	IT_EXPECT_PROBE(r.out, "utimes", rofile, "EACCES");
	IT_EXPECT_PROBE(r.out, "utimes", rwfile, "ok");
	if (it_is_root()) {
		/* root's worker under the landlock backend has every mode and owner change
		 * denied by its main filter (seccomp group host-root): EPERM before any
		 * supervision */
		IT_EXPECT_PROBE(r.out, "chmod", rofile, "EPERM");
		IT_EXPECT_PROBE(r.out, "chmod", rwfile, "EPERM");
	} else {
		IT_EXPECT_PROBE(r.out, "chmod", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "chmod", rwfile, "ok");
		IT_EXPECT_PROBE(r.out, "chown", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "chown", rwfile, "ok");
		IT_EXPECT_PROBE(r.out, "chmod", updir, "EACCES");
	}
	{
		struct stat st;

		IT_EXPECT_INT(stat(rofile, &st), 0);
		IT_EXPECT_INT(st.st_mode & 07777, 0644);
	}
}

/* The rest of the landlock backend's metadata gap: removing an extended attribute (a POSIX
 * ACL: the group's bits become its rights) and setting inode flags on a file of the user's
 * outside the writable areas are refused; in the workspace they work. Writing an attribute is
 * refused everywhere (@setxattr). As root the main filter denies them all (EPERM). */
static void test_landlock_xattr_flags(void)
{
	struct it_run r;
	char *ro = fmt("%s/ro", it_tmpdir()), *rofile, *rwfile;
	char val[8];

	setup();
	rofile = it_path(ro, "file");
	rwfile = it_path(ws, "f");
	it_write_file(rofile, "read-only\n");
	if (setxattr(rofile, "user.x", "1", 1, 0) < 0 || setxattr(rwfile, "user.x", "1", 1, 0) < 0)
		it_fail(__FILE__, __LINE__, "setxattr: %s", strerror(errno));
	{
		const char *opts[] = {"-p",        profile,    "--workspace",
		                      ws,          "-v",       fmt("%s:ro", ro),
		                      "--backend", "landlock", NULL};
		const char *cmd[] = {it_self(), "--in",   "rmxattr",  rofile, "user.x",   "rmxattr",
		                     rwfile,    "user.x", "setxattr", rofile, "setxattr", rwfile,
		                     "chattr",  rofile,   "chattr",   rwfile, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "setxattr", rofile, "EOPNOTSUPP");
	IT_EXPECT_PROBE(r.out, "setxattr", rwfile, "EOPNOTSUPP");
	if (it_is_root()) {
		IT_EXPECT_PROBE(r.out, "rmxattr", rofile, "EPERM");
		IT_EXPECT_PROBE(r.out, "lrmxattr", rofile, "EPERM");
		IT_EXPECT_PROBE(r.out, "frmxattr", rofile, "EPERM");
		IT_EXPECT_PROBE(r.out, "setflags", rofile, "EPERM");
		IT_EXPECT_PROBE(r.out, "fssetxattr", rofile, "EPERM");
	} else {
		IT_EXPECT_PROBE(r.out, "rmxattr", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "lrmxattr", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "frmxattr", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "rmxattr", rwfile, "ok");
		IT_EXPECT_PROBE(r.out, "lrmxattr", rwfile, "ENODATA");
		IT_EXPECT_PROBE(r.out, "getflags", rofile, "ok");
		IT_EXPECT_PROBE(r.out, "setflags", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "fssetxattr", rofile, "EACCES");
		IT_EXPECT_PROBE(r.out, "setflags", rwfile, "ok");
		IT_EXPECT_PROBE(r.out, "fssetxattr", rwfile, "ok");
		IT_EXPECT_INT((int)getxattr(rwfile, "user.x", val, sizeof(val)), -1);
	}
	IT_EXPECT_INT((int)getxattr(rofile, "user.x", val, sizeof(val)), 1);
}

/* Run a shell script in a supervised parent whose profile allows nesting, the sbx binary
 * visible to it. */
static void run_nested(struct it_run *r, const char *script)
{
	char sbxdir[4096];
	const char *opts[] = {"-p", profile,     "--workspace", ws,  "-v",
	                      NULL, "--backend", "namespaces",  NULL};
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};

	snprintf(sbxdir, sizeof(sbxdir), "%s", it_sbx_path());
	opts[5] = fmt("%s:ro", dirname(sbxdir));
	it_run_in(r, opts, cmd);
	if (r->status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r->status, r->out, r->err);
}

/*
 * A nested sbx under a supervised parent is served by the parent's listener (a second one
 * would get EBUSY). A child restricted to a subtree that holds no protected name creates
 * there (its calls are CONTINUEd: its own mounts and Landlock layer bound them) and cannot
 * create the protected name, by name, by a relative path that climbs, or by racing a change
 * of the path in memory.
 */
static void test_nested_restricted(void)
{
	struct it_run r;
	char *sub;

	setup();
	sub = fmt("%s/sub", ws);
	run_nested(&r, fmt("%s run --restrict %s --allow-read %s -- /bin/sh -c '%s --in mkdir "
	                   "%s/.git create %s/.git create %s/child-made race-memory %s 2000; cd "
	                   "%s && %s --in mkdir ../.git mkdir made-here'",
	                   it_sbx_path(), sub, it_self_dir(), it_self(), ws, ws, sub, ws, sub,
	                   it_self()));
	/* WS/.git in the child's root is its own scaffold's (a tmpfs of its own): whatever it
	 * made there, the workspace has none */
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT_PROBE(r.out, "create", fmt("%s/child-made", sub), "ok");
	IT_EXPECT_PROBE(r.out, "mkdir", "made-here", "ok");
	/* it raced at all: its creations in sub went through */
	IT_EXPECT_CONTAINS(r.out, "race memory => made ");
	IT_EXPECT_NOT_CONTAINS(r.out, "race memory => made 0\n");
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT(exists(it_path(ws, "sub/child-made")));
	IT_EXPECT(exists(it_path(ws, "sub/made-here")));
}

/*
 * An unrestricted nested sbx sees the whole workspace: a thread that flips the path in memory
 * between an allowed name and .git would land .git after a CONTINUE (the kernel reads the
 * path again). So while protected names are watched, its creations are refused wherever it
 * can reach a directory that holds one (the documented cost), and nothing is made; writing
 * an existing file (no O_CREAT) and deleting still work.
 */
static void test_nested_unrestricted(void)
{
	struct it_run r;

	setup();
	run_nested(&r, fmt("%s run -- %s --in race-memory %s 3000 create %s/plain mkdir %s/sub/dir "
	                   "write %s/f unlink %s/d/keep",
	                   it_sbx_path(), it_self(), ws, ws, ws, ws, ws));
	/* the bypass itself first: a racing thread landed .git */
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT_CONTAINS(r.out, "race memory => made 0\n");
	IT_EXPECT_PROBE(r.out, "create", fmt("%s/plain", ws), "EACCES");
	IT_EXPECT_PROBE(r.out, "mkdir", fmt("%s/sub/dir", ws), "EACCES");
	IT_EXPECT_PROBE(r.out, "write", fmt("%s/f", ws), "ok");
	IT_EXPECT_PROBE(r.out, "unlink", fmt("%s/d/keep", ws), "ok");
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT(!exists(it_path(ws, "plain")));
}

/*
 * A restricted child handed a descriptor of the workspace (its standard input) from outside
 * its root: the parent's supervisor, which finds no protected name's directory in the
 * child's root, lets its creations through, and a thread flipping the path relative to
 * that descriptor between "sub/.gix" and ".git" would land WS/.git. The child's own
 * Landlock layer, kept whole under a parent's supervisor, refuses it.
 */
static void test_nested_descriptor(void)
{
	struct it_run r;

	setup();
	run_nested(&r, fmt("%s run --restrict %s/sub --allow-read %s -- %s --in race-at 0 3000 "
	                   "create %s/sub/child-made < %s",
	                   it_sbx_path(), ws, it_self_dir(), it_self(), ws, ws));
	IT_EXPECT(!exists(it_path(ws, ".git")));
	/* it raced at all: its creations of sub/.gix, where it may create, went through */
	IT_EXPECT_CONTAINS(r.out, "race at => made ");
	IT_EXPECT_NOT_CONTAINS(r.out, "race at => made 0\n");
	IT_EXPECT_PROBE(r.out, "create", fmt("%s/sub/child-made", ws), "ok");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/*
 * A nested sbx restricted to WS/src under a claude-agent-like parent (protect_git, an absent
 * WS/.claude: both watched) in a fresh project, with the workspace outside /tmp: the child's
 * init builds its root before pivot_root, and every mount point it makes there is a creation
 * of a caller in namespaces of its own. From the old root (where only /tmp, the build base,
 * is covered) it reaches WS, which holds the protected names, and every mount point was
 * refused ("cannot make the mount point /usr", exit 125; as root with ~/.claude/projects, a
 * guard outside /tmp, in claude-agent). Built from an empty root of its own, it reaches none:
 * it starts, creates in src, and neither WS/.git nor WS/.claude appears.
 */
static void test_nested_restricted_outside_tmp(void)
{
	char dir[] = "/var/tmp/sbx-it-nest.XXXXXX", sbxdir[4096];
	const char *opts[] = {"-p", profile,     "--workspace", dir, "-v",
	                      NULL, "--backend", "namespaces",  NULL};
	const char *cmd[] = {"/bin/sh", "-c", NULL, NULL};
	bool made, git, claude;
	struct it_run r = {.status = -1};

	if (!mkdtemp(dir))
		it_fail(__FILE__, __LINE__, "mkdtemp %s: %s", dir, strerror(errno));
	snprintf(ws, sizeof(ws), "%s", dir);
	snprintf(profile, sizeof(profile), "%s/agent.yaml", it_tmpdir());
	it_write_file(it_path(ws, "src/keep"), "x\n");
	it_write_file(profile, "version: 1\nname: agent\nnesting: true\nprotect_git: true\n"
	                       "mounts:\n  - path: ${WORKSPACE}\n"
	                       "  - path: ${WORKSPACE}/.claude\n"
	                       "    readonly: true\n    optional: true\n");
	snprintf(sbxdir, sizeof(sbxdir), "%s", it_sbx_path());
	opts[5] = fmt("%s:ro", dirname(sbxdir));
	cmd[2] = fmt("%s run --restrict %s/src --allow-read %s -- %s --in create %s/src/child-made "
	             "mkdir %s/.git mkdir %s/.claude",
	             it_sbx_path(), ws, it_self_dir(), it_self(), ws, ws, ws);
	if (chdir(ws) == 0)
		it_run_in(&r, opts, cmd);
	made = exists(it_path(ws, "src/child-made"));
	git = exists(it_path(ws, ".git"));
	claude = exists(it_path(ws, ".claude"));
	/* outside the case's own directory: removed here, before anything can fail */
	if (chdir("/") == 0)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_PROBE(r.out, "create", fmt("%s/src/child-made", ws), "ok");
	IT_EXPECT(made);
	IT_EXPECT(!git);
	IT_EXPECT(!claude);
}

/* ---- approvals and what a grant covers (an outside attacker's breaks) ---- */

/* A broker that allows, for the session, exactly the scope WS/build and refuses the rest. */
static const char *build_broker(void)
{
	char *p = it_path(it_tmpdir(), "broker.sh");

	it_write_file(p,
	              fmt("#!/bin/sh\n"
	                  "read -r line\n"
	                  "id=$(printf '%%s\\n' \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n"
	                  "case \"$line\" in\n"
	                  "*'\"scope\":\"%s/build\"'*) printf "
	                  "'{\"v\":1,\"id\":%%s,\"allow\":true,\"remember\":\"session\"}\\n' "
	                  "\"$id\";;\n"
	                  "*) printf '{\"v\":1,\"id\":%%s,\"allow\":false}\\n' \"$id\";;\n"
	                  "esac\n",
	                  ws));
	IT_EXPECT_INT(chmod(p, 0755), 0);
	return fmt("cmd:%s", p);
}

/* The workspace with build/ (granted by the broker) beside precious (refused). */
static const char *approvals_setup(const char *approvals)
{
	char *p;

	snprintf(ws, sizeof(ws), "%s/ws", it_tmpdir());
	it_write_file(it_path(ws, "precious"), "keep\n");
	it_write_file(it_path(ws, "build/a"), "build\n");
	it_write_file(it_path(ws, "build/x"), "x\n");
	it_write_file(it_path(ws, "build/sub/keep"), "x\n");
	p = fmt("%s/ap.yaml", it_tmpdir());
	it_write_file(p, fmt("version: 1\nname: ap\nprotect_git: false\nmounts:\n"
	                     "  - path: ${WORKSPACE}\n"
	                     "    approvals: %s\n",
	                     approvals));
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	return p;
}

static void run_approved(struct it_run *r, const char *prof, const char *backend,
                         const char *const *ops)
{
	const char *opts[] = {"-p",    prof,        "--workspace",  ws,  "--backend",
	                      backend, "--approve", build_broker(), NULL};
	const char *cmd[64];
	size_t n = 0;

	cmd[n++] = it_self();
	cmd[n++] = "--in";
	for (; *ops && n < 62; ops++)
		cmd[n++] = *ops;
	cmd[n] = NULL;
	it_run_in(r, opts, cmd);
	if (r->status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r->status, r->out, r->err);
}

static char *file_text(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* 4. A `once` answer is one process's batch, and each call it covers moves its window on:
 * deletes 1.5 s apart are asked once (the third is 3 s after the question), and a child under
 * the same command name is asked again. */
static void test_once_batch(void)
{
	struct it_run r;
	const char *prof = approvals_setup("{delete: ask}");
	char *log = it_path(it_tmpdir(), "asked.log"), *broker = it_path(it_tmpdir(), "once.sh");
	const char *ops[] = {"batch", NULL, NULL};
	const char *opts[] = {"-p", prof, "--workspace", ws, "--approve", NULL, NULL};
	const char *cmd[8] = {it_self(), "--in"};
	char *text;

	it_write_file(it_path(ws, "build/b"), "b\n");
	it_write_file(it_path(ws, "build/c"), "c\n");
	it_write_file(it_path(ws, "build/d"), "d\n");
	it_write_file(broker,
	              fmt("#!/bin/sh\n"
	                  "read -r line\n"
	                  "printf '%%s\\n' \"$line\" >>'%s'\n"
	                  "id=$(printf '%%s\\n' \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n"
	                  "printf '{\"v\":1,\"id\":%%s,\"allow\":true}\\n' \"$id\"\n",
	                  log));
	IT_EXPECT_INT(chmod(broker, 0755), 0);
	opts[5] = fmt("cmd:%s", broker);
	ops[1] = fmt("%s/build", ws);
	memcpy(cmd + 2, ops, sizeof(ops));
	it_run_in(&r, opts, cmd);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	for (char c = 'a'; c <= 'd'; c++)
		IT_EXPECT_PROBE(r.out, "unlink", fmt("%s/build/%c", ws, c), "ok");
	text = file_text(log);
	IT_EXPECT_CONTAINS(text, fmt("\"path\":\"%s/build/a\"", ws));
	IT_EXPECT_NOT_CONTAINS(text, fmt("\"path\":\"%s/build/c\"", ws));
	IT_EXPECT_CONTAINS(text, fmt("\"path\":\"%s/build/d\"", ws));
}

/* 1a. A session grant for build, a thread with its own filter, a flipping symlink: the
 * refused file is never deleted (3000 tries, no sleeps). */
static void test_narrower_grant_race(void)
{
	struct it_run r;
	const char *prof = approvals_setup("{delete: ask}");
	const char *ops[] = {"unlink",      "build/x", "unlink", "precious",
	                     "race-unlink", NULL,      "3000",   NULL};

	ops[5] = fmt("%s/build", ws);
	IT_EXPECT_INT(symlink("sub", it_path(ws, "build/p")), 0);
	run_approved(&r, prof, "namespaces", ops);
	IT_EXPECT_PROBE(r.out, "unlink", "build/x", "ok");
	IT_EXPECT_PROBE(r.out, "unlink", "precious", "EACCES");
	IT_EXPECT_CONTAINS(r.out, "race unlink => deleted 0\n");
	IT_EXPECT(exists(it_path(ws, "precious")));
}

/* 1b. No race: a symlink in build to ../precious, made under the grant; a process with its
 * own filter appends through it: refused (the kernel would follow the link to precious). */
static void narrower_symlink(const char *backend)
{
	struct it_run r;
	const char *prof = approvals_setup("{write: ask}");
	const char *ops[] = {"create", "build/y", "symlink", "../precious", "build/s", "narrow",
	                     "write",  "build/s", "create",  "build/z",     NULL};

	run_approved(&r, prof, backend, ops);
	IT_EXPECT_PROBE(r.out, "create", "build/y", "ok");
	IT_EXPECT_PROBE(r.out, "symlink", "build/s", "ok");
	IT_EXPECT_PROBE(r.out, "narrow", "-", "ok");
	IT_EXPECT_PROBE(r.out, "write", "build/s", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", "build/z", "EACCES");
	IT_EXPECT(strcmp(file_text(it_path(ws, "precious")), "keep\n") == 0);
	IT_EXPECT(!exists(it_path(ws, "build/z")));
	IT_EXPECT_CONTAINS(r.err, "cannot be performed for");
}

BOTH_BACKENDS(narrower_symlink, narrower_symlink)

/* 2. Read caps hold for O_RDWR opens (read caps without approvals: only the read family is
 * on, and the listener filter must send O_RDWR opens too). An O_PATH open reads nothing and
 * is not sent (it works anywhere: /usr, ".", a capped file); reopening its fd for reading
 * through /proc/self/fd is an open of its own and the caps hold. */
static void read_caps_rdwr(const char *backend)
{
	struct it_run r;
	char *p = fmt("%s/caps.yaml", it_tmpdir());
	const char *ops[] = {"rdwr", "data.bin", "rdonly", "data.bin", "rdwr", "ok.txt", "write",
	                     "data.bin", "opath", "/usr", "opath", "/etc/passwd", "opath", ".",
	                     "opath", "data.bin", "opath-reopen", "data.bin", "opath-reopen",
	                     "ok.txt",
	                     /* caps judge a name: the file behind a refused one gets no admitted
	                      * name (an outside attack: ln data.bin h.txt, then read h.txt) */
	                     "link", "data.bin", "h.txt", "rename", "data.bin", "r.txt", "exchange",
	                     "data.bin", "ok.txt", "link", "ok.txt", "ok2.txt", "rename",
	                     "data.bin", "other.bin", "rdonly", "other.bin", NULL};
	const char *opts[] = {"-p", p, "--workspace", ws, "--backend", backend, NULL};
	const char *cmd[64] = {it_self(), "--in"};

	snprintf(ws, sizeof(ws), "%s/ws", it_tmpdir());
	it_write_file(it_path(ws, "data.bin"), "secret\n");
	it_write_file(it_path(ws, "ok.txt"), "fine\n");
	/* protect_git off: read caps alone put links and renames through the supervisor */
	it_write_file(p, "version: 1\nname: caps\nprotect_git: false\nmounts:\n"
	                 "  - path: ${WORKSPACE}\n    suffixes: [.txt]\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	memcpy(cmd + 2, ops, sizeof(ops));
	it_run_in(&r, opts, cmd);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_PROBE(r.out, "rdwr", "data.bin", "EACCES");
	IT_EXPECT_PROBE(r.out, "rdonly", "data.bin", "EACCES");
	IT_EXPECT_PROBE(r.out, "rdwr", "ok.txt", "ok");
	IT_EXPECT_PROBE(r.out, "write", "data.bin", "ok"); /* O_WRONLY reads nothing */
	IT_EXPECT_PROBE(r.out, "opath", "/usr", "ok");
	IT_EXPECT_PROBE(r.out, "opath", "/etc/passwd", "ok");
	IT_EXPECT_PROBE(r.out, "opath", ".", "ok");
	IT_EXPECT_PROBE(r.out, "opath", "data.bin", "ok");
	IT_EXPECT_PROBE(r.out, "opath-reopen", "data.bin", "EACCES");
	IT_EXPECT_PROBE(r.out, "opath-reopen", "ok.txt", "ok");
	IT_EXPECT_PROBE(r.out, "link", "h.txt", "EACCES");
	IT_EXPECT_PROBE(r.out, "rename", "r.txt", "EACCES");
	IT_EXPECT_PROBE(r.out, "exchange", "ok.txt", "EACCES");
	IT_EXPECT_PROBE(r.out, "link", "ok2.txt", "ok");
	IT_EXPECT_PROBE(r.out, "rename", "other.bin", "ok"); /* refused before and after */
	IT_EXPECT_PROBE(r.out, "rdonly", "other.bin", "EACCES");
	IT_EXPECT_CONTAINS(r.err, "and is not moved or linked to");
}

BOTH_BACKENDS(read_caps_rdwr, read_caps_rdwr)

/* Read caps judge names, and a name is not what the caller can make it seem: a capped file
 * renamed "x.txt (deleted)" (the kernel's mark of a gone name, which sbx once cut) is not
 * read as x.txt through /proc/self/fd; a folder that holds a capped mount is not moved (the
 * path beneath would leave the caps behind). Outside attacks, both; protect_git off. */
static void read_caps_names(const char *backend)
{
	struct it_run r;
	const char *dir = it_tmpdir();
	char *p = fmt("%s/caps2.yaml", dir), *w = fmt("%s/w2", dir);
	const char *opts[] = {"-p", p, "-w", w, "--backend", backend, NULL};
	const char *cmd[] = {
	    "/bin/sh", "-c",
	    "mv sub/data/secret.bin 'sub/data/x.txt (deleted)' && exec 3>>'sub/data/x.txt"
	    " (deleted)' && cat /proc/self/fd/3; echo reopen=$?;"
	    " mv sub sub2; echo moved=$?; cat sub2/data/secret.bin sub2/data/*;"
	    " echo read=$?; unshare -rm true 2>/dev/null; echo unshare=$?;"
	    " sub/data/t.bin 2>/dev/null; echo exec=$?",
	    NULL};

	it_write_file(it_path(w, "sub/data/secret.bin"), "TOPSECRET\n");
	{
		/* a program beneath the caps: run, its bytes would be the worker's (mapped) */
		struct it_run c;

		it_exec(&c, (const char *const[]){"/bin/cp", "/bin/true",
		                                  it_path(w, "sub/data/t.bin"), NULL});
		IT_EXPECT_INT(c.status, 0);
	}
	it_write_file(p, fmt("version: 1\nname: caps2\nprotect_git: false\nnesting: "
	                     "true\nmounts:\n  - path: %s\n"
	                     "  - path: %s/sub/data\n    suffixes: [.txt]\n",
	                     w, w));
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "TOPSECRET");
	IT_EXPECT_CONTAINS(r.out, "reopen=1");
	IT_EXPECT_CONTAINS(r.out, "moved=1");
	IT_EXPECT_CONTAINS(r.err, "whose read caps would not follow it");
	/* and no mount namespace of its own, nesting: true or not (a capped folder bound at
	 * another path there is read: an outside attack); sub-workers take the landlock
	 * backend */
	IT_EXPECT_CONTAINS(r.out, "unshare=1");
	/* and runs nothing: the mount is noexec (an outside attack dumped a capped program's
	 * bytes from its own mappings) */
	IT_EXPECT_CONTAINS(r.out, "exec=126");
	/* caps on files that show at a second path (--root over the workspace) are refused:
	 * noexec holds at the capped mount's own path only (an outside attack read /data) */
	if (strcmp(backend, "namespaces") == 0) {
		const char *ropts[] = {"-p", p, "--root", w, "-w", w, "--backend", backend, NULL};
		const char *rcmd[] = {"/bin/true", NULL};

		it_run_in(&r, ropts, rcmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "its files show at /sub/data too, where they can be run");
		/* a folder beneath the caps mounted at a second path runs nothing either (an
		 * outside attack ran a capped program from -v ws/data/sub:/opt/sub) */
		{
			struct it_run c;
			const char *bopts[] = {
			    "-p",        p,       "-w", w, "-v", fmt("%s/sub/data/in:/opt/d", w),
			    "--backend", backend, NULL};
			const char *bcmd[] = {"/bin/sh", "-c", "/opt/d/t.bin; echo below=$?", NULL};

			it_exec(&c, (const char *const[]){"/bin/mkdir", "-p",
			                                  it_path(w, "sub/data/in"), NULL});
			it_exec(&c, (const char *const[]){"/bin/cp", "/bin/true",
			                                  it_path(w, "sub/data/in/t.bin"), NULL});
			IT_EXPECT_INT(c.status, 0);
			it_run_in(&r, bopts, bcmd);
			IT_EXPECT_INT(r.status, 0);
			IT_EXPECT_CONTAINS(r.out, "below=126");
		}
	}
}

BOTH_BACKENDS(read_caps_names, read_caps_names)

/* 3a. A hard link of precious into build, under a grant for build: refused (the link's
 * source needs the write class of its own scope; the question names both). The grant comes
 * from a mkdir, which asks at once (the probe's create is O_EXCL: provisional, its question
 * held, sbx(1) APPROVALS, An editor's save is one question). */
static void grant_link(const char *backend)
{
	struct it_run r;
	const char *prof = approvals_setup("{write: ask}");
	const char *ops[] = {"mkdir", "build/y", "link",    "precious", "build/p",
	                     "link",  "build/a", "build/q", NULL};

	run_approved(&r, prof, backend, ops);
	IT_EXPECT_PROBE(r.out, "mkdir", "build/y", "ok");
	IT_EXPECT_PROBE(r.out, "link", "build/p", "EACCES");
	IT_EXPECT_PROBE(r.out, "link", "build/q", "ok");
	IT_EXPECT(!exists(it_path(ws, "build/p")));
}

BOTH_BACKENDS(grant_link, grant_link)

/* 3b. RENAME_EXCHANGE of precious and build/a under a grant for build: refused (both names
 * are replaced and moved); within build: granted. RENAME_NOREPLACE onto an existing name:
 * the kernel's EEXIST, nothing replaced. */
static void grant_exchange(const char *backend)
{
	struct it_run r;
	const char *prof = approvals_setup("{write: ask, overwrite: ask, delete: ask}");
	const char *ops[] = {"creat-trunc", "build/x",  "exchange", "precious",
	                     "build/a",     "exchange", "build/x",  "build/a",
	                     "noreplace",   "build/x",  "build/a",  NULL};

	run_approved(&r, prof, backend, ops);
	IT_EXPECT_PROBE(r.out, "creat-trunc", "build/x", "ok");
	IT_EXPECT_CONTAINS(r.out, "exchange build/a => EACCES\nexchange build/a => ok\n");
	IT_EXPECT(strcmp(file_text(it_path(ws, "precious")), "keep\n") == 0);
	IT_EXPECT(strcmp(file_text(it_path(ws, "build/x")), "build\n") == 0);
	/* RENAME_NOREPLACE makes the new name only: a write there (granted), and the kernel
	 * refuses the existing name */
	IT_EXPECT_PROBE(r.out, "noreplace", "build/a", "EEXIST");
	IT_EXPECT(strcmp(file_text(it_path(ws, "build/x")), "build\n") == 0);
}

BOTH_BACKENDS(grant_exchange, grant_exchange)

/* ftruncate(2) under `overwrite: ask`: cutting a file short asks as truncate(2) and O_TRUNC
 * do (an outside attack: truncate(1) emptied a file unasked); making it longer loses nothing
 * and asks nothing. The broker grants build/ only. */
static void ftruncate_asked(const char *backend)
{
	struct it_run r;
	const char *prof = approvals_setup("{overwrite: ask}");
	const char *ops[] = {
	    "ftrunc-grow", "precious",    "ftrunc-shrink", "precious",     "ftrunc-shrink",
	    "build/x",     "falloc-grow", "precious",      "falloc-punch", "precious",
	    NULL};

	run_approved(&r, prof, backend, ops);
	IT_EXPECT_PROBE(r.out, "ftrunc-grow", "precious", "ok");
	IT_EXPECT_PROBE(r.out, "ftrunc-shrink", "precious", "EACCES");
	IT_EXPECT_PROBE(r.out, "ftrunc-shrink", "build/x", "ok");
	/* fallocate: space made is a write; a hole punched over the content an overwrite (an
	 * outside attack cut a file short under overwrite: deny with a collapse) */
	IT_EXPECT_PROBE(r.out, "falloc-grow", "precious", "ok");
	IT_EXPECT_PROBE(r.out, "falloc-punch", "precious", "EACCES");
	IT_EXPECT(strncmp(file_text(it_path(ws, "precious")), "keep\n", 5) == 0);
	IT_EXPECT(strcmp(file_text(it_path(ws, "build/x")), "") == 0);
}

BOTH_BACKENDS(ftruncate_asked, ftruncate_asked)

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_protected_names_namespaces),
	    IT_CASE(test_protected_names_landlock),
	    IT_CASE(test_on_the_way_asked),
	    IT_CASE(test_asked),
	    IT_CASE(test_race),
	    IT_CASE(test_self_narrowed),
	    IT_CASE(test_landlocked_namespaces),
	    IT_CASE(test_landlocked_landlock),
	    IT_CASE(test_proc_others_namespaces),
	    IT_CASE(test_proc_others_landlock),
	    IT_CASE(test_bind),
	    IT_CASE(test_listener_and_fds),
	    IT_CASE(test_performer_killed_namespaces),
	    IT_CASE(test_performer_killed_landlock),
	    IT_CASE(test_landlock_metadata),
	    IT_CASE(test_nested_restricted),
	    IT_CASE(test_nested_unrestricted),
	    IT_CASE(test_nested_descriptor),
	    IT_CASE(test_nested_restricted_outside_tmp),
	    IT_CASE(test_narrower_grant_race),
	    IT_CASE(test_once_batch),
	    IT_CASE(test_narrower_symlink_namespaces),
	    IT_CASE(test_narrower_symlink_landlock),
	    IT_CASE(test_read_caps_rdwr_namespaces),
	    IT_CASE(test_read_caps_rdwr_landlock),
	    IT_CASE(test_read_caps_names_namespaces),
	    IT_CASE(test_read_caps_names_landlock),
	    IT_CASE(test_ftruncate_asked_namespaces),
	    IT_CASE(test_ftruncate_asked_landlock),
	    IT_CASE(test_grant_link_namespaces),
	    IT_CASE(test_grant_link_landlock),
	    IT_CASE(test_grant_exchange_namespaces),
	    IT_CASE(test_grant_exchange_landlock),
	    IT_CASE(test_landlock_xattr_flags),
	};

	if (argc > 1 && strcmp(argv[1], "--in") == 0)
		return in_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
