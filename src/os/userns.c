/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os.h"
#include "sbx/cleanup.h"
#include "sbx/probe.h"

/*
 * openat2 answers ENOSYS inside every sbx sandbox (its mode is out of seccomp's reach, see
 * the @suid group in sbx-seccomp(7)), so a nested sbx resolves paths without it: one
 * component at a time, each opened O_PATH | O_NOFOLLOW relative to the last, so that what a
 * worker renames or swaps meanwhile can only be refused, never followed. A symlink anywhere is
 * ELOOP (RESOLVE_NO_SYMLINKS, which covers magic links); under RESOLVE_BENEATH an absolute
 * path or any ".." is EXDEV (stricter than the kernel, which allows a ".." that stays
 * beneath). The walk emulates only what sbx asks for: RESOLVE_NO_SYMLINKS, with
 * RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH, and no O_CREAT.
 */
static int openat2_walk(int dirfd, const char *path, int flags, unsigned long long resolve)
{
	const unsigned long long known =
	    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
	bool beneath = resolve & RESOLVE_BENEATH, want_dir = false;
	_cleanup_close_ int cur = -1;
	char buf[PATH_MAX], *save = NULL, *comp, *next;
	struct stat st;
	int fd;

	if ((resolve & ~known) || !(resolve & RESOLVE_NO_SYMLINKS) || (flags & O_CREAT) ||
	    (flags & O_TMPFILE) == O_TMPFILE)
		return -ENOSYS; /* not a walk sbx needs: fail closed */
	if (!path || !*path)
		return -ENOENT;
	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	if (path[0] == '/') {
		if (beneath)
			return -EXDEV;
		dirfd = AT_FDCWD;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	want_dir = buf[strlen(buf) - 1] == '/';
	cur = openat(dirfd, path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	comp = strtok_r(buf, "/", &save);
	while (comp && strcmp(comp, ".") == 0)
		comp = strtok_r(NULL, "/", &save);
	if (!comp) /* the start itself: "/", "." or "./" */
		return (fd = openat(cur, ".", flags | O_CLOEXEC)) < 0 ? -errno : fd;
	for (;; comp = next) {
		do
			next = strtok_r(NULL, "/", &save);
		while (next && strcmp(next, ".") == 0);
		if (beneath && strcmp(comp, "..") == 0)
			return -EXDEV;
		if (!next)
			break;
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(cur);
		cur = fd;
		if (fstat(cur, &st) < 0)
			return -errno;
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	/* The last component: O_NOFOLLOW makes the kernel refuse a symlink (ELOOP), except with
	 * O_PATH, which opens the link itself: look at what was opened. */
	fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC | (want_dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return -errno;
	{
		int e = fstat(fd, &st) < 0                 ? errno
		        : S_ISLNK(st.st_mode)              ? ELOOP
		        : want_dir && !S_ISDIR(st.st_mode) ? ENOTDIR
		                                           : 0;

		if (e) {
			close(fd);
			return -e;
		}
	}
	return fd;
}

int sbx_openat2(int dirfd, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = {.flags = (unsigned long long)flags, .resolve = resolve};
	long r = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	if (r < 0 && errno == ENOSYS)
		return openat2_walk(dirfd, path, flags, resolve);
	return r < 0 ? -errno : (int)r;
}

static int write_file_at(int dirfd, const char *name, const char *content)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(content);

	if (fd < 0)
		return -errno;
	if (write(fd, content, len) != (ssize_t)len)
		return -errno;
	return 0;
}

/* One map file's text: "inner outer count\n" per extent, written in one write(2). */
static void format_map(const struct sbx_plan *plan, bool gid, bool for_binds, char *buf,
                       size_t size)
{
	struct sbx_id_extent ext[SBX_ID_EXTENTS_MAX];
	size_t n = sbx_plan_id_extents(plan, gid, for_binds, ext), len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%u %u %u\n", ext[i].inner, ext[i].outer,
		                 ext[i].count);

		if (w < 0)
			break;
		len += (size_t)w;
	}
}

static int write_maps_at(int procfd, const struct sbx_plan *plan, bool for_binds,
                         struct sbx_error *err)
{
	char map[SBX_ID_EXTENTS_MAX * 40];
	int r;

	/* Unprivileged, setgroups must be denied before gid_map can be written; as root we
	 * allow it so that the worker can shed the caller's supplementary groups (root's
	 * group 0 among them). */
	r = write_file_at(procfd, "setgroups", plan->map_count == 1 ? "deny" : "allow");
	if (r < 0 && r != -ENOENT)
		return sbx_error_set(err, SBX_ERR_SETUP, -r,
		                     "cannot write setgroups of the sandbox's user namespace: %s",
		                     strerror(-r));
	format_map(plan, false, for_binds, map, sizeof(map));
	r = write_file_at(procfd, "uid_map", map);
	if (r < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -r,
		                     "cannot map uid %u to host uid %u in the sandbox's user "
		                     "namespace: %s",
		                     plan->inner_uid, plan->outer_uid, strerror(-r));
	format_map(plan, true, for_binds, map, sizeof(map));
	r = write_file_at(procfd, "gid_map", map);
	if (r < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -r,
		                     "cannot map gid %u to host gid %u in the sandbox's user "
		                     "namespace: %s",
		                     plan->inner_gid, plan->outer_gid, strerror(-r));
	return 0;
}

int sbx_userns_write_maps(pid_t pid, const struct sbx_plan *plan, struct sbx_error *err)
{
	char path[64];
	_cleanup_close_ int procfd = -1;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	procfd = open(path, O_DIRECTORY | O_PATH | O_CLOEXEC);
	if (procfd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot open %s: %s", path,
		                     strerror(errno));
	return write_maps_at(procfd, plan, false, err);
}

int sbx_userns_idmap_fd(const struct sbx_plan *plan, struct sbx_error *err)
{
	int sync[2];
	char path[64];
	int fd, r;
	pid_t pid;

	/* A throwaway process in a new user namespace carries the mapping; the namespace
	 * outlives it through the fd. */
	r = sbx_proc_pipe(sync, "for the id-mapping user namespace", err);
	if (r < 0)
		return r;
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		r = errno;
		close(sync[0]);
		close(sync[1]);
		return sbx_userns_explain(r, false, err);
	}
	if (pid == 0) {
		char c;

		close(sync[1]);
		while (read(sync[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(sync[0]);
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	fd = open(path, O_DIRECTORY | O_PATH | O_CLOEXEC);
	if (fd < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot open %s: %s", path,
		                  strerror(errno));
	} else {
		/* the binds' mapping: host id k is kernel id base + k, with no swap */
		r = write_maps_at(fd, plan, true, err);
		close(fd);
	}
	if (r >= 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			r = sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot open %s: %s", path,
			                  strerror(errno));
		else
			r = fd;
	}
	close(sync[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return r;
}

int sbx_userns_become(const struct sbx_plan *plan, struct sbx_error *err)
{
	/* Root's supplementary groups (group 0 among them) must not follow the worker. */
	if (plan->map_count > 1 && setgroups(0, NULL) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot drop supplementary groups: %s", strerror(errno));
	if (setresgid(plan->inner_gid, plan->inner_gid, plan->inner_gid) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot become gid %u in the sandbox: %s", plan->inner_gid,
		                     strerror(errno));
	if (setresuid(plan->inner_uid, plan->inner_uid, plan->inner_uid) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot become uid %u in the sandbox: %s", plan->inner_uid,
		                     strerror(errno));
	return 0;
}

static long read_long(const char *path)
{
	char buf[32] = "";
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

int sbx_userns_explain(int errnum, bool net, struct sbx_error *err)
{
	static const struct {
		const char *name, *path;
		bool net;
	} others[] = {
	    {"max_mnt_namespaces", "/proc/sys/user/max_mnt_namespaces", false},
	    {"max_pid_namespaces", "/proc/sys/user/max_pid_namespaces", false},
	    {"max_ipc_namespaces", "/proc/sys/user/max_ipc_namespaces", false},
	    {"max_uts_namespaces", "/proc/sys/user/max_uts_namespaces", false},
	    {"max_cgroup_namespaces", "/proc/sys/user/max_cgroup_namespaces", false},
	    {"max_net_namespaces", "/proc/sys/user/max_net_namespaces", true},
	};
	struct sbx_userns_facts f = {
	    .errnum = errnum,
	    .root = geteuid() == 0,
	    .max_user_namespaces = read_long("/proc/sys/user/max_user_namespaces"),
	    .max_other_namespaces = -1,
	    .apparmor_restrict =
	        read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
	    .unprivileged_userns_clone = read_long("/proc/sys/kernel/unprivileged_userns_clone"),
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		long v = others[i].net && !net ? -1 : read_long(others[i].path);

		if (v >= 0 && (f.max_other_namespaces < 0 || v < f.max_other_namespaces)) {
			f.max_other_namespaces = v;
			f.max_other_name = others[i].name;
		}
	}
	sbx_userns_decide(&f, err);
	return -(errnum ? errnum : EINVAL);
}

int sbx_userns_probe(void)
{
	int st = 0;
	pid_t pid;

	/* A throwaway child tries what the launcher will do: a user namespace with a mount
	 * namespace in it. Its exit status carries the errno. */
	pid = fork();
	if (pid < 0)
		return -errno;
	/* ... and what it does first in there: make the mounts private. A Landlock domain
	 * (a parent sandbox's) allows the namespaces but forbids every mount. */
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(errno & 0xff ? errno & 0xff : 1);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -ECHILD;
	return WEXITSTATUS(st) ? -WEXITSTATUS(st) : 0;
}
