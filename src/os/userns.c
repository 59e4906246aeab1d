/* SPDX-License-Identifier: MIT */
#include "os/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
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

#include "os/fd.h"
#include "os/proc.h"
#include "os/kapi.h"
#include "sbx/cleanup.h"
#include "sbx/probe.h"

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

static int idmap_early = -1;

void sbx_userns_idmap_early(int procfd)
{
	idmap_early = procfd;
}

/* The early child's namespace, mapped; -1 if it cannot be had. */
static int idmap_fd_of_early(const struct sbx_plan *plan)
{
	struct sbx_error e = {0};
	int procfd = idmap_early;

	idmap_early = -1;
	if (write_maps_at(procfd, plan, true, &e) < 0)
		return -1;
	return openat(procfd, "ns/user", O_RDONLY | O_CLOEXEC);
}

int sbx_userns_write_maps_at(int procfd, const struct sbx_plan *plan, struct sbx_error *err)
{
	return write_maps_at(procfd, plan, false, err);
}

int sbx_userns_idmap_fd(const struct sbx_plan *plan, struct sbx_error *err)
{
	_cleanup_close_pair_ int sync[2] = {-1, -1};
	_cleanup_close_ int procfd = -1;
	_cleanup_pid_ pid_t pid = 0; /* last: killed and reaped first, the fd keeps the namespace */
	char path[64];
	int fd, r;

	if (idmap_early >= 0 && (fd = idmap_fd_of_early(plan)) >= 0)
		return fd;
	/* A throwaway process in a new user namespace carries the mapping; the namespace
	 * outlives it through the fd. */
	r = sbx_fd_pipe(sync, "for the id-mapping user namespace", err);
	if (r < 0)
		return r;
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0)
		return sbx_userns_explain(errno, false, err);
	if (pid == 0) {
		char c;

		/* wait, doing nothing, until sbx has what it needs (or is gone: EOF) */
		close(sync[1]);
		while (read(sync[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(TAKE_FD(sync[0]));
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	procfd = open(path, O_DIRECTORY | O_PATH | O_CLOEXEC);
	if (procfd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot open %s: %s", path,
		                     strerror(errno));
	/* the binds' mapping: host id k is kernel id base + k, with no swap */
	r = write_maps_at(procfd, plan, true, err);
	if (r < 0)
		return r;
	fd = openat(procfd, "ns/user", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot open %s/ns/user: %s", path,
		                     strerror(errno));
	return fd;
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
