/* SPDX-License-Identifier: MIT */
#include "os/limits.h"
#include "os/kapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sbx/cleanup.h"

static int set_rlimit(int res, const char *name, uint64_t v, struct sbx_error *err)
{
	struct rlimit rl;
	char buf[32];
	int r;

	if (getrlimit(res, &rl) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "getrlimit(%s): %s", name,
		                     strerror(errno));
	if (rl.rlim_max != RLIM_INFINITY && v > rl.rlim_max) {
		r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EPERM,
		                  "limit %s=%s is above the hard limit sbx was given (%llu)", name,
		                  sbx_limit_format(sbx_limit_lookup(name), v, buf, sizeof(buf)),
		                  (unsigned long long)rl.rlim_max);
		sbx_error_hint(err,
		               "ask at most %llu, or raise the hard limit before sbx starts "
		               "(ulimit -H)",
		               (unsigned long long)rl.rlim_max);
		return r;
	}
	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	if (setrlimit(res, &rl) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot set limit %s: %s", name,
		                     strerror(errno));
	return 0;
}

/* A per-user count the worker gets a share of: its soft limit divided, never raised. */
static void share_rlimit(int res)
{
	struct rlimit rl;

	if (getrlimit(res, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	rl.rlim_cur /= SBX_RLIMIT_SHARE_DIVISOR;
	rl.rlim_max = rl.rlim_cur;
	(void)setrlimit(res, &rl);
}

int sbx_limits_apply_rlimits(const struct sbx_plan *plan, struct sbx_error *err)
{
	const struct sbx_limits *l = &plan->resources;
	int r = 0;

	if (l->set & SBX_LIMIT_BIT(SBX_LIMIT_NOFILE))
		r = set_rlimit(RLIMIT_NOFILE, "nofile", l->v[SBX_LIMIT_NOFILE], err);
	if (r >= 0 && (l->set & SBX_LIMIT_BIT(SBX_LIMIT_FSIZE)))
		r = set_rlimit(RLIMIT_FSIZE, "fsize", l->v[SBX_LIMIT_FSIZE], err);
	/* pids: the kernel counts RLIMIT_NPROC per user namespace and uid (kernel/ucount.c), so
	 * in the sandbox's own namespace it counts the sandbox's tasks, init among them, as the
	 * cgroup's pids.max does: N in all. Under the landlock backend it would count all the
	 * caller's processes:
	 * the cgroup alone holds pids there. */
	if (r >= 0 && plan->map_count && (l->set & SBX_LIMIT_BIT(SBX_LIMIT_PIDS)))
		r = set_rlimit(RLIMIT_NPROC, "pids", l->v[SBX_LIMIT_PIDS], err);
	if (r < 0)
		return r;
	share_rlimit(RLIMIT_MSGQUEUE);
	share_rlimit(RLIMIT_SIGPENDING);
	return 0;
}

/*
 * /proc/sys/user of a procfs of init's own, made (not attached) where the one it sees is
 * read-only: a sandbox nested in another sees its parent's /proc/sys read-only, and the kernel
 * resolves the files to the writer's user namespace whichever procfs it goes through. A
 * new procfs needs a fully visible one in the namespace (the parent gives its nested
 * sandboxes one); -1 where none can be made.
 */
static int own_proc_sys_user(void)
{
	_cleanup_close_ int fs = fsopen("proc", FSOPEN_CLOEXEC), mnt = -1;

	if (fs < 0 || fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -1;
	mnt =
	    fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return -1;
	return openat(mnt, "sys/user", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
}

int sbx_limits_set_userns_counts(const struct sbx_plan *plan, struct sbx_error *err)
{
	/* the directory once, each file beneath it: one path walk rather than one a file */
	_cleanup_close_ int dir = -1;
	bool own = false;

	for (size_t i = 0; i < SBX_N_UCOUNTS; i++) {
		char path[96], val[32];
		_cleanup_close_ int fd = -1;
		int n;

		if (!plan->userns_max[i])
			continue;
		if (dir < 0)
			dir = open("/proc/sys/user", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		snprintf(path, sizeof(path), "/proc/sys/user/%s", sbx_ucount_shares[i].name);
		n = snprintf(val, sizeof(val), "%llu", (unsigned long long)plan->userns_max[i]);
		fd = dir >= 0
		         ? openat(dir, sbx_ucount_shares[i].name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
		         : open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno == EROFS && !own) {
			/* a parent sandbox's read-only /proc/sys: through a procfs of our own */
			int mine = own_proc_sys_user();

			own = true;
			if (mine >= 0) {
				if (dir >= 0)
					close(dir);
				dir = mine;
				fd = openat(dir, sbx_ucount_shares[i].name,
				            O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
			}
		}
		if (fd < 0 && (errno == ENOENT || errno == EROFS))
			continue;
		if (fd < 0 || write(fd, val, (size_t)n) != n) {
			if (errno == EROFS)
				continue;
			return sbx_error_set(
			    err, SBX_ERR_SETUP, errno,
			    "cannot give the sandbox's user namespace its share of "
			    "%s (%s): %s",
			    path, val, strerror(errno));
		}
	}
	return 0;
}
