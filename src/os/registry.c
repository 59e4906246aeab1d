/* SPDX-License-Identifier: MIT */
/*
 * The running sandboxes' records on the host (src/os/registry.h): the runtime directory,
 * atomic writes, reads that trust nothing, and the /proc facts that tell a live record from a
 * stale or planted one.
 */
#include "os/registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "os/reaper.h"
#include "sbx/nest.h"

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* A directory of uid's that no one else can write, reached without a symlink at its end. */
static bool dir_of(const char *path, uid_t uid)
{
	struct stat st;

	return path && path[0] == '/' && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == uid && (st.st_mode & 022) == 0;
}

static char *join(const char *a, const char *b)
{
	char *s = NULL;

	return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

void sbx_registry_places(char *const *envp, uid_t euid, char *out[SBX_REGISTRY_PLACES])
{
	const char *xdg = env_get(envp, "XDG_RUNTIME_DIR");
	char p[64];

	memset(out, 0, SBX_REGISTRY_PLACES * sizeof(*out));
	if (xdg && xdg[0] == '/')
		out[0] = join(xdg, "/sbx");
	if (euid == 0)
		out[1] = strdup("/run/sbx");
	snprintf(p, sizeof(p), "/run/user/%u/sbx", (unsigned)euid);
	out[2] = strdup(p);
}

/* The boot's id (/proc/sys/kernel/random/boot_id, dashes dropped): 32 hex digits. */
static int boot_id(char out[33])
{
	char buf[64];
	size_t n = 0;
	_cleanup_close_ int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (got <= 0)
		return -EIO;
	for (ssize_t i = 0; i < got && n < 32; i++)
		if ((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f'))
			out[n++] = buf[i];
	out[n] = '\0';
	return n == 32 ? 0 : -EIO;
}

/* The fallback: run-BOOT in sbx's cache directory ($XDG_CACHE_HOME/sbx or ~/.cache/sbx,
 * as the glob walk's cache: the state guard hides it already), each of the two made (0700)
 * when `create` and checked as a registry is. */
static int open_cached(const char *base, const char *rest, uid_t owner, bool create, int *dirfd,
                       char *path, size_t size, struct sbx_error *err)
{
	_cleanup_close_ int cache = -1;
	char boot[33];
	int r;

	if (boot_id(boot) < 0)
		return sbx_error_set(
		    err, SBX_ERR_SETUP, EIO,
		    "cannot read this boot's id (/proc/sys/kernel/random/boot_id)");
	r = snprintf(path, size, "%s%s", base, rest);
	if (r < 0 || (size_t)r >= size)
		return sbx_error_set(err, SBX_ERR_SETUP, ENAMETOOLONG,
		                     "the runtime directory's path is too long");
	/* ~/.cache itself, where a fresh home has none yet (as XDG tools make it: 0700) */
	if (create && strchr(rest + 1, '/')) {
		char *slash = strrchr(path, '/');

		*slash = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*slash = '/';
			return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot make %s/..: %s",
			                     path, strerror(errno));
		}
		*slash = '/';
	}
	if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot make %s: %s", path,
		                     strerror(errno));
	r = sbx_registry_open_dir(path, owner, &cache, err);
	if (r < 0)
		return r;
	r = snprintf(path, size, "%s%s/run-%s", base, rest, boot);
	if (r < 0 || (size_t)r >= size)
		return sbx_error_set(err, SBX_ERR_SETUP, ENAMETOOLONG,
		                     "the runtime directory's path is too long");
	if (create && mkdirat(cache, strrchr(path, '/') + 1, 0700) < 0 && errno != EEXIST)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot make %s: %s", path,
		                     strerror(errno));
	return sbx_registry_open_dir(path, owner, dirfd, err);
}

int sbx_registry_open_dir(const char *path, uid_t owner, int *dirfd, struct sbx_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	*dirfd = -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return -ENOENT;
		return sbx_error_set(err, SBX_ERR_SETUP, e == ENOTDIR ? ELOOP : e,
		                     "the runtime directory %s cannot be opened as a directory "
		                     "(without following a symlink): %s",
		                     path, strerror(e));
	}
	if (fstat(fd, &st) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "%s: fstat: %s", path,
		                     strerror(errno));
	if (st.st_uid != owner || (st.st_mode & 077) != 0) {
		int r = sbx_error_set(err, SBX_ERR_SETUP, EPERM,
		                      "the runtime directory %s is owned by uid %u with mode %04o; "
		                      "sbx uses only a directory of uid %u's with mode 0700",
		                      path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
		                      (unsigned)owner);

		sbx_error_hint(err, "someone else may have made it first: remove it, or set "
		                    "XDG_RUNTIME_DIR to a private directory of yours");
		return r;
	}
	*dirfd = TAKE_FD(fd);
	return 0;
}

int sbx_registry_open_own(char *const *envp, bool create, int *dirfd, char *path, size_t size,
                          struct sbx_error *err)
{
	const char *xdg = env_get(envp, "XDG_RUNTIME_DIR");
	const char *cache = env_get(envp, "XDG_CACHE_HOME");
	const char *home = env_get(envp, "HOME");
	uid_t euid = geteuid();
	char own[64];
	int r;

	*dirfd = -1;
	snprintf(own, sizeof(own), "/run/user/%u", (unsigned)euid);
	if (dir_of(xdg, euid))
		r = snprintf(path, size, "%s/sbx", xdg);
	else if (euid == 0)
		r = snprintf(path, size, "/run/sbx");
	else if (dir_of(own, euid))
		r = snprintf(path, size, "%s/sbx", own);
	else if (cache && cache[0] == '/')
		return open_cached(cache, "/sbx", euid, create, dirfd, path, size, err);
	else if (home && home[0] == '/')
		return open_cached(home, "/.cache/sbx", euid, create, dirfd, path, size, err);
	else
		return sbx_error_set(err, SBX_ERR_SETUP, ENOENT,
		                     "no runtime directory: XDG_RUNTIME_DIR, /run/user/%u and HOME "
		                     "are all missing",
		                     (unsigned)euid);
	if (r < 0 || (size_t)r >= size)
		return sbx_error_set(err, SBX_ERR_SETUP, ENAMETOOLONG,
		                     "the runtime directory's path is too long");
	/* mkdir does not follow a symlink at the path's end: one there is found by the open */
	if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the runtime directory %s: %s", path,
		                     strerror(errno));
	return sbx_registry_open_dir(path, euid, dirfd, err);
}

int sbx_registry_put(int dirfd, const char *id, const char *text, size_t len, struct sbx_error *err)
{
	char tmp[SBX_REG_ID_LEN + 64];
	_cleanup_close_ int fd = -1;
	uint64_t start = 0;
	size_t done = 0;

	if (!sbx_reg_id_valid(id))
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL, "a record needs a sandbox id");
	/* named by its writer (pid and start time), so that sbx ps can remove one whose writer
	 * died between its creation and the rename (SIGKILL) */
	(void)sbx_registry_self_start(&start);
	snprintf(tmp, sizeof(tmp), ".%s.%d.%llu", id, (int)getpid(), (unsigned long long)start);
	/* one left by an earlier write of this same process (a failed rename) goes first */
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot write a record: %s",
		                     strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			unlinkat(dirfd, tmp, 0);
			return sbx_error_set(err, SBX_ERR_SETUP, e, "cannot write a record: %s",
			                     strerror(e));
		}
		done += (size_t)n;
	}
	if (renameat(dirfd, tmp, dirfd, id) < 0) {
		int e = errno;

		unlinkat(dirfd, tmp, 0);
		return sbx_error_set(err, SBX_ERR_SETUP, e, "cannot write a record: rename: %s",
		                     strerror(e));
	}
	return 0;
}

void sbx_registry_remove(int dirfd, const char *id)
{
	if (dirfd >= 0 && sbx_reg_id_valid(id))
		(void)unlinkat(dirfd, id, 0);
}

int sbx_registry_read(int dirfd, const char *name, uid_t owner, struct sbx_reg *out,
                      struct sbx_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;

	memset(out, 0, sizeof(*out));
	if (!sbx_reg_id_valid(name))
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG, "%s is not a record's name",
		                     name);
	/* O_NONBLOCK: a fifo planted in its place must not hang the reader */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "%s: %s", name, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != owner ||
	    st.st_size > (off_t)SBX_REG_FILE_MAX)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "%s: not a regular file of uid %u's of at most %u bytes", name,
		                     (unsigned)owner, SBX_REG_FILE_MAX);
	buf = malloc(SBX_REG_FILE_MAX + 1);
	if (!buf)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	/* one more byte than a record can have: a file that grew is refused, not cut */
	while (got <= SBX_REG_FILE_MAX) {
		ssize_t n = read(fd, buf + got, SBX_REG_FILE_MAX + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno, "%s: %s", name,
			                     strerror(errno));
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return sbx_reg_parse(buf, got, out, err);
}

/* Read at most size - 1 bytes of /proc/PID/NAME. */
static ssize_t proc_read(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

int sbx_registry_proc(pid_t pid, struct sbx_proc_facts *out)
{
	char buf[4096];
	char *p, *uid;
	unsigned long long start = 0;
	int ppid = 0;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (pid <= 0)
		return -ESRCH;
	n = proc_read(pid, "stat", buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	/* the command name may hold anything, ')' included: the fields start after the last */
	p = strrchr(buf, ')');
	if (!p)
		return -EBADMSG;
	/* field 3 is the state; ppid is field 4, starttime field 22 */
	if (sscanf(p + 1,
	           " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
	           "%*d %*d %llu",
	           &ppid, &start) != 2)
		return -EBADMSG;
	n = proc_read(pid, "status", buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	uid = strstr(buf, "\nUid:");
	if (!uid)
		return -EBADMSG;
	out->uid = (uid_t)strtoul(uid + 5, NULL, 10);
	out->start = start;
	out->ppid = ppid;
	return 0;
}

int sbx_registry_self_start(uint64_t *start)
{
	struct sbx_proc_facts f;
	int r = sbx_registry_proc(getpid(), &f);

	*start = f.start;
	return r;
}

bool sbx_registry_alive(const struct sbx_reg *r)
{
	struct sbx_proc_facts sbx, child;

	return sbx_registry_proc((pid_t)r->sbx_pid, &sbx) == 0 && sbx.start == r->sbx_start &&
	       sbx_registry_proc((pid_t)r->pid, &child) == 0 && child.start == r->pid_start &&
	       child.ppid == (pid_t)r->sbx_pid;
}

int sbx_registry_signal(const struct sbx_reg *r, uid_t owner, int sig, struct sbx_error *err)
{
	_cleanup_close_ int pidfd = -1;
	struct sbx_proc_facts child;

	/* The pidfd first: whatever /proc says next is about the process it holds, or the
	 * pidfd refers to a process already gone and the signal fails with ESRCH. */
	pidfd = (int)syscall(SYS_pidfd_open, (pid_t)r->pid, 0);
	if (pidfd < 0 && errno != ENOSYS)
		return sbx_error_set(err, SBX_ERR_SETUP, ESRCH,
		                     "sandbox %s has ended (its pid %lld is gone)", r->id,
		                     (long long)r->pid);
	if (!sbx_registry_alive(r))
		return sbx_error_set(err, SBX_ERR_SETUP, ESRCH,
		                     "sandbox %s has ended: its pid %lld is gone or now another "
		                     "process's, which sbx does not signal",
		                     r->id, (long long)r->pid);
	if (sbx_registry_proc((pid_t)r->pid, &child) < 0 || (owner != 0 && child.uid != owner)) {
		int e = sbx_error_set(err, SBX_ERR_SETUP, EPERM,
		                      "the record of sandbox %s names pid %lld, which is not a "
		                      "process of uid %u's, whose directory holds the record",
		                      r->id, (long long)r->pid, (unsigned)owner);

		sbx_error_hint(err, "the record is not trusted: it may have been planted");
		return e;
	}
	/* Under the landlock backend the recorded pid is the reaper: a SIGKILL there would leave
	 * what it adopted to init. Its end signal (queued) makes it kill every process of the
	 * sandbox first, then end with 137 (os/reaper.h); sbx then removes the record. */
	if (r->backend == SBX_BACKEND_LANDLOCK && sig == SIGKILL && pidfd >= 0) {
		siginfo_t si = {.si_signo = SBX_REAPER_END_SIGNAL, .si_code = SI_QUEUE};

		si.si_pid = getpid();
		si.si_uid = getuid();
		if (syscall(SYS_pidfd_send_signal, pidfd, SBX_REAPER_END_SIGNAL, &si, 0) == 0)
			return 0;
	}
	if (pidfd >= 0 ? syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0
	               : kill((pid_t)r->pid, sig) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot signal sandbox %s: %s",
		                     r->id, strerror(errno));
	return 0;
}

void sbx_registry_list_clear(struct sbx_registry_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		sbx_reg_clear(&l->items[i].rec);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* A temporary record (".ID.PID.START", sbx_registry_put) whose writer is gone or was
 * another process: left by an sbx killed between writing and renaming it. */
static bool stale_temp(const char *name)
{
	char id[SBX_REG_ID_LEN + 1];
	int pid = 0, n = 0;
	unsigned long long start = 0;
	struct sbx_proc_facts f;

	if (strlen(name) < SBX_REG_ID_LEN + 2 || name[SBX_REG_ID_LEN + 1] != '.')
		return false;
	memcpy(id, name + 1, SBX_REG_ID_LEN);
	id[SBX_REG_ID_LEN] = '\0';
	if (!sbx_reg_id_valid(id) ||
	    sscanf(name + SBX_REG_ID_LEN + 2, "%d.%llu%n", &pid, &start, &n) != 2 ||
	    name[SBX_REG_ID_LEN + 2 + n] != '\0' || pid <= 0)
		return false;
	return sbx_registry_proc(pid, &f) < 0 || f.start != start;
}

/* Directories already read (by identity: /run/user/0/sbx may be $XDG_RUNTIME_DIR/sbx). */
struct seen {
	dev_t dev[64];
	ino_t ino[64];
	size_t n;
};

static int list_dir(const char *path, uid_t owner, struct seen *seen, struct sbx_registry_list *out,
                    struct sbx_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	DIR *d;
	struct dirent *de;
	int r = sbx_registry_open_dir(path, owner, &fd, err);

	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return 0;
	for (size_t i = 0; i < seen->n; i++)
		if (seen->dev[i] == st.st_dev && seen->ino[i] == st.st_ino)
			return 0;
	if (seen->n < 64) {
		seen->dev[seen->n] = st.st_dev;
		seen->ino[seen->n++] = st.st_ino;
	}
	d = fdopendir(dup(fd));
	if (!d)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		struct sbx_reg rec;
		struct sbx_registry_entry *grown;

		if (de->d_name[0] == '.') {
			/* ".", "..", and a record being written: swept where its writer is gone */
			if (owner == geteuid() && stale_temp(de->d_name))
				(void)unlinkat(fd, de->d_name, 0);
			continue;
		}
		if (out->n + out->skipped >= 65536)
			break; /* a cap on the work a directory full of files can cause */
		if (sbx_registry_read(fd, de->d_name, owner, &rec, NULL) < 0) {
			out->skipped++;
			continue;
		}
		if (!sbx_registry_alive(&rec)) {
			/* only the directory's owner sweeps: root leaves others' files alone */
			if (owner == geteuid()) {
				sbx_registry_remove(fd, rec.id);
				out->swept++;
			}
			sbx_reg_clear(&rec);
			continue;
		}
		grown = realloc(out->items, (out->n + 1) * sizeof(*grown));
		if (!grown) {
			sbx_reg_clear(&rec);
			closedir(d);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		out->items = grown;
		out->items[out->n].rec = rec;
		out->items[out->n++].owner = owner;
	}
	closedir(d);
	return 0;
}

/* Every NAME of dir that is PREFIX followed by a uid: list_dir(dir/NAME/SUFFIX, uid). */
static int list_each(const char *dir, const char *prefix, const char *suffix, struct seen *seen,
                     struct sbx_registry_list *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t pl = strlen(prefix);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end, path[PATH_MAX];
		unsigned long uid;

		if (strncmp(de->d_name, prefix, pl) != 0 || !de->d_name[pl])
			continue;
		errno = 0;
		uid = strtoul(de->d_name + pl, &end, 10);
		if (*end || errno || uid >= UINT32_MAX || de->d_name[pl] < '0' ||
		    de->d_name[pl] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s%s", dir, de->d_name, suffix);
		(void)list_dir(path, (uid_t)uid, seen, out, NULL);
	}
	closedir(d);
	return 0;
}

/* Every user's ~/.cache/sbx/run-BOOT, as that user's: the homes of /etc/passwd, read here
 * (getpwent would load NSS modules into a static sbx), at most 4 MiB of it. */
static void list_homes(struct seen *seen, struct sbx_registry_list *out)
{
	char boot[33], line[4096];
	FILE *f;

	if (boot_id(boot) < 0 || !(f = fopen("/etc/passwd", "re")))
		return;
	for (size_t read = 0; read < (4u << 20) && fgets(line, sizeof(line), f);) {
		char *field[7], *p = line, path[PATH_MAX], *end;
		unsigned long uid;
		size_t n = 0;

		read += strlen(line);
		line[strcspn(line, "\n")] = '\0';
		while (n < 7 && p) {
			field[n++] = p;
			p = strchr(p, ':');
			if (p)
				*p++ = '\0';
		}
		if (n < 7)
			continue;
		errno = 0;
		uid = strtoul(field[2], &end, 10);
		if (*end || errno || !field[2][0] || uid >= UINT32_MAX || field[5][0] != '/' ||
		    snprintf(path, sizeof(path), "%s/.cache/sbx/run-%s", field[5], boot) >=
		        (int)sizeof(path))
			continue;
		(void)list_dir(path, (uid_t)uid, seen, out, NULL);
	}
	fclose(f);
}

static int by_start(const void *a, const void *b)
{
	const struct sbx_reg *x = &((const struct sbx_registry_entry *)a)->rec;
	const struct sbx_reg *y = &((const struct sbx_registry_entry *)b)->rec;

	if (x->start_ms != y->start_ms)
		return x->start_ms < y->start_ms ? -1 : 1;
	return strcmp(x->id, y->id);
}

int sbx_registry_list(char *const *envp, bool all, struct sbx_registry_list *out,
                      struct sbx_error *err)
{
	_cleanup_close_ int fd = -1;
	struct seen seen = {.n = 0};
	char path[PATH_MAX];
	int r;

	memset(out, 0, sizeof(*out));
	r = sbx_registry_open_own(envp, false, &fd, path, sizeof(path), err);
	if (r == -ENOENT)
		r = 0;
	else if (r >= 0)
		r = list_dir(path, geteuid(), &seen, out, err);
	if (r < 0) {
		sbx_registry_list_clear(out);
		return r;
	}
	if (all) {
		(void)list_dir("/run/sbx", 0, &seen, out, NULL);
		list_each("/run/user", "", "/sbx", &seen, out);
		list_homes(&seen, out);
	}
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), by_start);
	return 0;
}
