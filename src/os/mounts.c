/* SPDX-License-Identifier: MIT */
/*
 * The mount namespace, with the new mount API (open_tree, move_mount, mount_setattr,
 * fsopen/fsmount). Sources are cloned into detached mounts and get their attributes before
 * they are ever attached, so a read-only mount is never writable, not even for an instant,
 * and a flag the kernel refuses fails the launch. Mount points are found with openat2
 * (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) from the new root, so a symlink a worker planted
 * in a writable mount cannot redirect one, and missing ones are created only inside tmpfs
 * mounts that sbx made: nothing is ever written to the host.
 */
#include "os/mounts.h"
#include "os/userns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/trace.h"
#include "sbx/path.h"
#include "os/fs.h"
#include "os/kapi.h"

#define MIRROR_MAX_ENTRIES 4096
#define MAX_OWN_TMPFS      64
#define DIR_CACHE          16

/* Where the new root is attached while it is built, before pivot_root. The child has its
 * own mount namespace by then, so this hides nothing from anyone else. */
static const char build_base[] = "/tmp";

static const unsigned long long resolve_beneath =
    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

void sbx_prepared_clear(struct sbx_prepared *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->fds && p->fds[i] >= 0)
			close(p->fds[i]);
	for (size_t i = 0; i < p->n_mirror; i++) {
		if (p->mirror[i].fd >= 0)
			close(p->mirror[i].fd);
		free(p->mirror[i].link);
	}
	free(p->fds);
	free(p->absent);
	free(p->mirror);
	memset(p, 0, sizeof(*p));
}

static int set_attrs(int fd, const char *what, unsigned flags, int userns_fd, bool recursive,
                     struct sbx_error *err)
{
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};

	if (flags & SBX_PLAN_F_READONLY)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (!(flags & SBX_PLAN_F_DEVICE))
		attr.attr_set |= MOUNT_ATTR_NODEV;
	if (flags & SBX_PLAN_F_NOEXEC)
		attr.attr_set |= MOUNT_ATTR_NOEXEC;
	if (userns_fd >= 0 && (flags & SBX_PLAN_F_IDMAP)) {
		attr.attr_set |= MOUNT_ATTR_IDMAP;
		attr.userns_fd = (__u64)userns_fd;
	}
	if (mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr,
	                  sizeof(attr)) < 0) {
		int e = errno;
		int r = sbx_error_set(
		    err, SBX_ERR_SETUP, e, "cannot make the mount of %s%s%s%s: %s", what,
		    attr.attr_set & MOUNT_ATTR_RDONLY ? " read-only" : "", " nosuid",
		    attr.attr_set & MOUNT_ATTR_IDMAP ? " id-mapped" : "", strerror(e));

		if (attr.attr_set & MOUNT_ATTR_IDMAP)
			sbx_error_hint(err, "its file system may not support id-mapped mounts; "
			                    "run sbx as an ordinary user to avoid them");
		else
			sbx_error_hint(err, "sbx never goes on with a flag it could not apply");
		return r;
	}
	return 0;
}

/* Open a host source once. System paths may follow symlinks (root's, not the worker's);
 * every other source is resolved with no symlink at all. */
static int open_source(const char *path, unsigned flags, struct sbx_error *err)
{
	int fd;

	if (flags & SBX_PLAN_F_FOLLOW)
		fd = open(path, O_PATH | O_CLOEXEC);
	else
		fd = sbx_openat2(AT_FDCWD, path, O_PATH | O_CLOEXEC | O_NOFOLLOW,
		                 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd == -1)
		fd = -errno;
	if (fd >= 0) {
		struct stat st;

		/* O_PATH|O_NOFOLLOW opens a final symlink itself rather than failing. */
		if (fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode))
			return fd;
		close(fd);
		fd = -ELOOP;
	}
	if (fd == -ELOOP) {
		int r = sbx_error_set(err, SBX_ERR_SETUP, ELOOP,
		                      "mount source %s is or passes through a symlink", path);
		sbx_error_hint(err,
		               "sbx does not follow symlinks in mount sources, since a "
		               "worker may have planted them; name the real path ($(realpath "
		               "%s)) if you trust it",
		               path);
		return r;
	}
	if (fd == -ENOENT) {
		int r = sbx_error_set(err, SBX_ERR_SETUP, ENOENT, "mount source %s does not exist",
		                      path);
		sbx_error_hint(err, "create it, correct the path, or mark the mount optional");
		return r;
	}
	return sbx_error_set(err, SBX_ERR_SETUP, -fd, "cannot open mount source %s: %s", path,
	                     strerror(-fd));
}

static int clone_tree(int dirfd, const char *name, const char *what, unsigned extra,
                      struct sbx_error *err)
{
	int fd = open_tree(dirfd, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | extra);

	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot clone the mount of %s: %s",
		                     what, strerror(errno));
	return fd;
}

static int prepare_mirror(const struct sbx_plan_op *op, int userns_fd, struct sbx_prepared *p,
                          struct sbx_error *err)
{
	_cleanup_close_ int dirfd = -1;
	DIR *dir;
	struct dirent *de;
	int r = 0;

	dirfd = sbx_openat2(AT_FDCWD, op->source, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (dirfd < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, -dirfd, "cannot open the root %s: %s",
		                  op->source, strerror(-dirfd));
		sbx_error_hint(err, "--root needs an existing directory, named without symlinks");
		return r;
	}
	p->mirror = calloc(MIRROR_MAX_ENTRIES, sizeof(*p->mirror));
	if (!p->mirror)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	dir = fdopendir(dup(dirfd));
	if (!dir)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot list %s: %s", op->source,
		                     strerror(errno));
	while (r >= 0 && (de = readdir(dir))) {
		struct sbx_mirror_entry *e;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		/* sbx makes /proc and /dev itself. Not carrying the root's own ones matters most
		 * for a nested sandbox (--root / of its caller's view): the caller's /proc shows
		 * the caller's processes, and must not even lie underneath the fresh one. */
		if (strcmp(de->d_name, "proc") == 0 || strcmp(de->d_name, "dev") == 0)
			continue;
		if (p->n_mirror == MIRROR_MAX_ENTRIES) {
			r = sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
			                  "the root %s has more than %d entries", op->source,
			                  MIRROR_MAX_ENTRIES);
			break;
		}
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone meanwhile */
		e = &p->mirror[p->n_mirror];
		snprintf(e->name, sizeof(e->name), "%s", de->d_name);
		e->fd = -1;
		if (S_ISLNK(st.st_mode)) {
			char buf[SBX_PATH_MAX];
			ssize_t n = readlinkat(dirfd, de->d_name, buf, sizeof(buf) - 1);

			if (n < 0)
				continue;
			buf[n] = '\0';
			e->kind = SBX_HOST_SYMLINK;
			e->link = strdup(buf);
			if (!e->link)
				r = sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		} else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
			e->kind = S_ISDIR(st.st_mode) ? SBX_HOST_DIR : SBX_HOST_FILE;
			r = clone_tree(dirfd, de->d_name, op->source, AT_SYMLINK_NOFOLLOW, err);
			if (r >= 0) {
				e->fd = r;
				r = set_attrs(e->fd, op->source, op->flags, userns_fd, true, err);
			}
		} else {
			continue; /* sockets, fifos, devices at the top of a root: not carried */
		}
		p->n_mirror++;
	}
	closedir(dir);
	return r;
}

/* One bind's source on a stream: which op, and what came of it, with the fd as SCM_RIGHTS. */
struct stream_msg {
	uint32_t op;
	uint32_t code; /* STREAM_NONE, STREAM_FD or STREAM_ABSENT */
};
enum { STREAM_NONE, STREAM_FD, STREAM_ABSENT };

static int stream_send(int sock, size_t i, int fd, bool absent, struct sbx_error *err)
{
	struct stream_msg m = {(uint32_t)i, fd >= 0  ? STREAM_FD
	                                    : absent ? STREAM_ABSENT
	                                             : STREAM_NONE};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {&m, sizeof(m)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t w;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		w = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)sizeof(m))
		return sbx_error_set(err, SBX_ERR_SETUP, w < 0 ? errno : EIO,
		                     "cannot send the mount sources to the sandbox: %s",
		                     strerror(w < 0 ? errno : EIO));
	return 0;
}

/* init: receive until op i's source has come (they come in plan order). */
static int stream_wait(struct sbx_prepared *p, size_t i, struct sbx_error *err)
{
	while (p->next <= i) {
		struct stream_msg m;
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		struct iovec iov = {&m, sizeof(m)};
		struct msghdr msg = {.msg_iov = &iov,
		                     .msg_iovlen = 1,
		                     .msg_control = u.buf,
		                     .msg_controllen = sizeof(u.buf)};
		struct cmsghdr *c;
		int fd = -1;
		ssize_t n;

		do
			n = recvmsg(p->stream_fd, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
		while (n < 0 && errno == EINTR);
		c = n == (ssize_t)sizeof(m) ? CMSG_FIRSTHDR(&msg) : NULL;
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (n != (ssize_t)sizeof(m) || (msg.msg_flags & MSG_CTRUNC) || m.op < p->next ||
		    m.op >= p->n || (m.code == STREAM_FD) != (fd >= 0) || m.code > STREAM_ABSENT) {
			if (fd >= 0)
				close(fd);
			return sbx_error_set(err, SBX_ERR_SETUP, n < 0 ? errno : EPIPE,
			                     "init: the mount sources from sbx stopped short");
		}
		p->fds[m.op] = fd;
		p->absent[m.op] = m.code == STREAM_ABSENT;
		p->next = (size_t)m.op + 1;
	}
	return 0;
}

/* Which binds' sources prepare clones: all; those sbx streams to init as root; those init
 * clones itself beside that stream (init_clones). */
enum prep_which { PREP_ALL, PREP_STREAMED, PREP_LOCAL };

/*
 * As root, the binds whose sources init clones itself, beside sbx's stream of the others:
 * the system mounts' (/usr, /etc's files: beneath directories everyone may search, which
 * init, an unprivileged id on the host, reaches as sbx does). Not sbx's own binary (run
 * from anywhere: a 0750 home), not a device (a --device anywhere), not a guard, nor a bind
 * the plan id-maps (only sbx may id-map a host file system): sbx clones and sends those.
 */
static bool init_clones(const struct sbx_plan_op *op)
{
	return (op->flags & SBX_PLAN_F_SYSTEM) &&
	       !(op->flags &
	         (SBX_PLAN_F_SELF | SBX_PLAN_F_DEVICE | SBX_PLAN_F_GUARD | SBX_PLAN_F_IDMAP));
}

static int prepare_init(const struct sbx_plan *plan, struct sbx_prepared *p, struct sbx_error *err);
static int prepare(const struct sbx_plan *plan, int userns_fd, int *lazy_userns,
                   struct sbx_prepared *p, int sock, enum prep_which which, struct sbx_error *err);

int sbx_prepared_stream(struct sbx_prepared *p, const struct sbx_plan *plan, int sock,
                        struct sbx_error *err)
{
	int r = prepare_init(plan, p, err);

	if (r < 0)
		return r;
	p->streaming = true;
	p->stream_fd = sock;
	/* the system mounts' sources: cloned here, while sbx streams the others (init clones
	 * them faster than they come over the socket) */
	return prepare(plan, -1, NULL, p, -1, PREP_LOCAL, err);
}

static int prepare_init(const struct sbx_plan *plan, struct sbx_prepared *p, struct sbx_error *err)
{
	memset(p, 0, sizeof(*p));
	p->fds = malloc((plan->n_ops ? plan->n_ops : 1) * sizeof(*p->fds));
	p->absent = calloc(plan->n_ops ? plan->n_ops : 1, sizeof(*p->absent));
	if (!p->fds || !p->absent)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->n = plan->n_ops;
	for (size_t i = 0; i < plan->n_ops; i++)
		p->fds[i] = -1;
	return 0;
}

static int prepare(const struct sbx_plan *plan, int userns_fd, int *lazy_userns,
                   struct sbx_prepared *p, int sock, enum prep_which which, struct sbx_error *err)
{
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *op = &plan->ops[i];
		bool local = init_clones(op);
		_cleanup_close_ int src = -1;
		int fd, r;

		if (op->kind == SBX_PLAN_MIRROR) {
			r = prepare_mirror(op, userns_fd, p, err);
			if (r < 0)
				return r;
			continue;
		}
		/* a data file is sbx's own (do_data): nothing of the host's to clone */
		if (op->kind != SBX_PLAN_BIND || (op->flags & SBX_PLAN_F_DATA) ||
		    (which == PREP_STREAMED && local) || (which == PREP_LOCAL && !local))
			continue;
		src = open_source(op->source, op->flags, err);
		if (src < 0) {
			if (src == -ENOENT && (op->flags & SBX_PLAN_F_OPTIONAL)) {
				p->absent[i] = true;
				if (sock >= 0 && (r = stream_send(sock, i, -1, true, err)) < 0)
					return r;
				continue;
			}
			/* only a profile's mount can be marked optional; -v, --device and the
			 * default's workspace name a path that must be there */
			if (src == -ENOENT && strcmp(op->why, "profile") != 0)
				sbx_error_hint(err, "create it or correct the path");
			sbx_error_wrap(err, "mount %s", op->target);
			return src;
		}
		if (op->flags & SBX_PLAN_F_DEVICE) {
			struct stat st;

			if (fstat(src, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
				r = sbx_error_set(err, SBX_ERR_SETUP, ENODEV,
				                  "--device %s is not a device node", op->source);
				sbx_error_hint(err, "name a character or block device such as "
				                    "/dev/nvidia0; use -v to bind directories");
				return r;
			}
		}
		fd = clone_tree(src, "", op->source, AT_EMPTY_PATH, err);
		if (fd < 0)
			return fd;
		p->fds[i] = fd;
		/* the id-mapping namespace, made when first needed (sbx_mounts_prepare_send); a
		 * bind the plan id-maps is never mounted without */
		if (lazy_userns && (op->flags & SBX_PLAN_F_IDMAP) && plan->idmap_binds &&
		    *lazy_userns < 0) {
			*lazy_userns = sbx_userns_idmap_fd(plan, err);
			if (*lazy_userns < 0)
				return *lazy_userns;
		}
		if (lazy_userns)
			userns_fd = *lazy_userns;
		if ((op->flags & SBX_PLAN_F_IDMAP) && plan->idmap_binds && userns_fd < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
			                     "internal: no id-mapping namespace for %s",
			                     op->source);
		r = set_attrs(fd, op->source, op->flags, userns_fd, true, err);
		if (r < 0)
			return r;
		if (sock >= 0) {
			r = stream_send(sock, i, fd, false, err);
			close(TAKE_FD(p->fds[i]));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int sbx_mounts_prepare(const struct sbx_plan *plan, int userns_fd, struct sbx_prepared *p,
                       struct sbx_error *err)
{
	int r = prepare_init(plan, p, err);

	return r < 0 ? r : prepare(plan, userns_fd, NULL, p, -1, PREP_ALL, err);
}

int sbx_mounts_prepare_send(const struct sbx_plan *plan, int *userns_fd, int sock,
                            struct sbx_error *err)
{
	_cleanup_(sbx_prepared_clear) struct sbx_prepared p = {0};
	int r;

	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_MIRROR)
			return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
			                     "internal: a --root's sources are not streamed");
	r = prepare_init(plan, &p, err);
	return r < 0 ? r : prepare(plan, -1, userns_fd, &p, sock, PREP_STREAMED, err);
}

/* ---- building the tree ---- */

struct builder {
	int rootfd;               /* the new root, attached at build_base */
	dev_t own[MAX_OWN_TMPFS]; /* tmpfs mounts sbx made: mount points may be made there */
	size_t n_own;
	int maskfd; /* a sealed tmpfs with an empty file "f" and dir "d" */
	const struct sbx_plan *plan;
	/* Directories of sbx's own tmpfs that mount_point walked through lately (/etc, /dev,
	 * the workspace's parents): a walk to a target beneath one starts there. An entry goes when
	 * anything is attached at it or above it (dir_cache_drop), since its fd then names the
	 * directory the mount covers. */
	struct {
		char *path;
		int fd; /* a directory of a tmpfs of sbx's own */
	} dirs[DIR_CACHE];
	size_t n_dirs, next_dir;
};

/* The cached directory that is the longest proper ancestor of target, or NULL; *len: its
 * path's length. */
static int dir_cache_find(const struct builder *b, const char *target, size_t *len)
{
	int fd = -1;

	*len = 0;
	for (size_t i = 0; i < b->n_dirs; i++) {
		size_t n = strlen(b->dirs[i].path);

		if (n > *len && strncmp(target, b->dirs[i].path, n) == 0 && target[n] == '/') {
			*len = n;
			fd = b->dirs[i].fd;
		}
	}
	return fd;
}

static void dir_cache_add(struct builder *b, const char *path, size_t len, int fd)
{
	size_t i;
	char *copy;
	int dup_fd;

	for (i = 0; i < b->n_dirs; i++)
		if (strlen(b->dirs[i].path) == len && strncmp(b->dirs[i].path, path, len) == 0)
			return;
	copy = strndup(path, len);
	dup_fd = copy ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;
	if (dup_fd < 0) {
		free(copy);
		return; /* only a cache */
	}
	if (b->n_dirs < DIR_CACHE) {
		i = b->n_dirs++;
	} else {
		i = b->next_dir;
		b->next_dir = (b->next_dir + 1) % DIR_CACHE;
		free(b->dirs[i].path);
		close(b->dirs[i].fd);
	}
	b->dirs[i].path = copy;
	b->dirs[i].fd = dup_fd;
}

/* Something is attached at target: every cached directory at or beneath it is covered. */
static void dir_cache_drop(struct builder *b, const char *target)
{
	size_t n = strlen(target);
	bool all = strcmp(target, "/") == 0;

	for (size_t i = 0; i < b->n_dirs;) {
		const char *p = b->dirs[i].path;

		if (all || (strncmp(p, target, n) == 0 && (p[n] == '\0' || p[n] == '/'))) {
			free(b->dirs[i].path);
			close(b->dirs[i].fd);
			b->dirs[i] = b->dirs[--b->n_dirs];
			b->next_dir = 0;
		} else {
			i++;
		}
	}
}

static void dir_cache_clear(struct builder *b)
{
	for (size_t i = 0; i < b->n_dirs; i++) {
		free(b->dirs[i].path);
		close(b->dirs[i].fd);
	}
	b->n_dirs = 0;
}

/* A tmpfs of sbx's own, once attached (or the new root, attached at once): its device
 * number, which no other superblock can have while it is mounted, as it is till the build
 * ends. One that is not attached is never listed: its number is free again once it closes. */
static void own_add(struct builder *b, int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && b->n_own < MAX_OWN_TMPFS)
		b->own[b->n_own++] = st.st_dev;
}

static int new_fs(const char *type, const char *const *opts, unsigned attrs, const char *what,
                  struct sbx_error *err)
{
	_cleanup_close_ int fs = fsopen(type, FSOPEN_CLOEXEC);
	int mfd;

	if (fs < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot create a %s for %s: %s",
		                     type, what, strerror(errno));
	for (const char *const *o = opts; o && *o; o += 2) {
		int r = o[1] ? fsconfig(fs, FSCONFIG_SET_STRING, o[0], o[1], 0)
		             : fsconfig(fs, FSCONFIG_SET_FLAG, o[0], NULL, 0);

		if (r < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot set %s=%s on the %s for %s: %s", o[0],
			                     o[1] ? o[1] : "", type, what, strerror(errno));
	}
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot create the %s for %s: %s",
		                     type, what, strerror(errno));
	mfd = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	if (mfd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot mount the %s for %s: %s",
		                     type, what, strerror(errno));
	return mfd;
}

/*
 * A tmpfs of sbx's own. size (bytes; the plan gives every tmpfs the worker can write one,
 * include/sbx/limits.h) bounds its pages and, through nr_inodes, its inodes: without them the
 * kernel allows half of RAM each. 0: no size (sbx's read-only scaffolding: the new root that
 * holds mount points, the masks). Owned by uid:gid inside where owner (a private home), else
 * by whoever builds.
 */
static int new_tmpfs_with(struct builder *b, unsigned mode, unsigned flags, uint64_t size,
                          bool owner, unsigned uid, unsigned gid, const char *what,
                          struct sbx_error *err)
{
	char m[16], sz[32], ino[32], u[16], g[16];
	const char *opts[12] = {"mode", m};
	size_t n = 2;
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	int fd;

	snprintf(m, sizeof(m), "%o", mode);
	if (size) {
		snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
		snprintf(ino, sizeof(ino), "%llu",
		         (unsigned long long)sbx_limits_tmpfs_inodes(size));
		opts[n++] = "size";
		opts[n++] = sz;
		opts[n++] = "nr_inodes";
		opts[n++] = ino;
	}
	if (owner) {
		snprintf(u, sizeof(u), "%u", uid);
		snprintf(g, sizeof(g), "%u", gid);
		opts[n++] = "uid";
		opts[n++] = u;
		opts[n++] = "gid";
		opts[n++] = g;
	}
	if (flags & SBX_PLAN_F_NOEXEC)
		attrs |= MOUNT_ATTR_NOEXEC;
	fd = new_fs("tmpfs", opts, attrs, what, err);
	if (fd < 0)
		return fd;
	if (b)
		own_add(b, fd);
	return fd;
}

static int new_tmpfs(struct builder *b, unsigned mode, unsigned flags, uint64_t size,
                     const char *what, struct sbx_error *err)
{
	return new_tmpfs_with(b, mode, flags, size, false, 0, 0, what, err);
}

/* A device number of a tmpfs sbx made: unique while that tmpfs is mounted, as all of them are
 * until the build ends. */
static bool own_dev(const struct builder *b, dev_t dev)
{
	for (size_t i = 0; i < b->n_own; i++)
		if (b->own[i] == dev)
			return true;
	return false;
}

static bool is_own(const struct builder *b, int fd)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC || fstat(fd, &st) < 0)
		return false;
	return own_dev(b, st.st_dev);
}

enum point_kind { POINT_DIR, POINT_FILE, POINT_PARENT };

/*
 * Find (or, inside sbx's own tmpfs mounts, create) the mount point for target, walking one
 * component at a time from the new root with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS):
 * O(depth) per target, and no symlink is ever followed. POINT_PARENT returns the parent
 * directory and leaves the last component to the caller (for symlinks); *own (may be NULL):
 * whether what is returned lies in a tmpfs of sbx's own. Whether a directory is sbx's own is
 * told by the device number its fstat gives (every walked component is stat'ed anyway, for
 * symlinks): the walk starts in sbx's own root or a cached directory of it.
 */
static int mount_point_own(struct builder *b, const char *target, enum point_kind kind,
                           const char *what, bool *own, struct sbx_error *err)
{
	char path[SBX_PATH_MAX];
	_cleanup_close_ int held = -1; /* cur, when the walk opened it */
	int cur;
	bool cur_own = true; /* the root and the cached directories are sbx's own */
	struct stat st = {.st_mode = S_IFDIR};
	char *comp, *next;
	size_t start = 0;
	int from = dir_cache_find(b, target, &start);

	snprintf(path, sizeof(path), "%s", target);
	cur = from >= 0 ? from : b->rootfd;
	for (comp = path + start + 1; *comp; comp = next) {
		bool last, made;
		int fd;

		next = strchr(comp, '/');
		if (next)
			*next++ = '\0';
		else
			next = comp + strlen(comp);
		last = *next == '\0';
		if (last && kind == POINT_PARENT)
			break;

		fd = -ENOENT;
		made = false;
		if (cur_own) {
			/* In sbx's own tmpfs, where nothing but this build makes anything, the
			 * mount point is made first, and opened after only where it was there
			 * already; a file's O_EXCL creation hands back the file itself (read-only:
			 * no writer may hold the scaffold when it is sealed). */
			int r;

			if (!last || kind == POINT_DIR) {
				r = mkdirat(cur, comp, 0755);
			} else {
				r = openat(cur, comp,
				           O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
				           0444);
				made = r >= 0;
				if (made)
					fd = r;
			}
			if (r < 0 && errno != EEXIST)
				return sbx_error_set(err, SBX_ERR_SETUP, errno,
				                     "cannot make the mount point %s for %s: %s",
				                     target, what, strerror(errno));
		}
		if (made)
			st.st_mode = S_IFREG; /* the file just made, in sbx's own tmpfs */
		else
			fd = sbx_openat2(cur, comp, O_PATH | O_CLOEXEC | O_NOFOLLOW,
			                 resolve_beneath);
		if (fd >= 0 && !made) {
			/* O_PATH|O_NOFOLLOW hands back a final symlink rather than failing. */
			if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
				close(fd);
				fd = -ELOOP;
			} else if (!last && !S_ISDIR(st.st_mode)) {
				close(fd);
				fd = -ENOTDIR;
			}
		}
		if (fd < 0) {
			int r;

			if (fd == -ELOOP || fd == -EXDEV) {
				r = sbx_error_set(err, SBX_ERR_SETUP, ELOOP,
				                  "the mount point %s for %s passes through a "
				                  "symlink inside the sandbox",
				                  target, what);
				sbx_error_hint(err, "sbx never follows symlinks when it places "
				                    "mounts; mount at the real path instead");
			} else if (fd == -ENOENT) {
				r = sbx_error_set(
				    err, SBX_ERR_SETUP, ENOENT,
				    "the mount point %s for %s does not exist in the "
				    "directory mounted above it, and sbx never creates "
				    "anything on the host",
				    target, what);
				sbx_error_hint(err,
				               "create %s in the host directory behind it, or "
				               "choose a target that exists",
				               target);
			} else if (fd == -ENOTDIR) {
				r = sbx_error_set(err, SBX_ERR_SETUP, ENOTDIR,
				                  "the mount point %s for %s lies beneath a file",
				                  target, what);
				sbx_error_hint(err,
				               "mount at a path whose parents are directories");
			} else {
				r = sbx_error_set(err, SBX_ERR_SETUP, -fd,
				                  "cannot open the mount point %s for %s: %s",
				                  target, what, strerror(-fd));
			}
			return r;
		}
		if (held >= 0)
			close(held);
		held = cur = fd;
		cur_own = made || own_dev(b, st.st_dev);
		/* a directory on the way, in a tmpfs of sbx's own (which nothing outside this
		 * process can change, unlike a host directory a bind shows): later targets
		 * beneath it start here */
		if (!last && cur_own)
			dir_cache_add(b, target, (size_t)(comp - path) + strlen(comp), cur);
	}
	if (kind == POINT_DIR && !S_ISDIR(st.st_mode))
		return sbx_error_set(err, SBX_ERR_SETUP, ENOTDIR,
		                     "cannot mount the directory %s at %s: a file is there", what,
		                     target);
	if (kind == POINT_FILE && S_ISDIR(st.st_mode))
		return sbx_error_set(err, SBX_ERR_SETUP, EISDIR,
		                     "cannot mount the file %s at %s: a directory is there", what,
		                     target);
	if (own)
		*own = cur_own;
	if (held < 0) {
		held = fcntl(cur, F_DUPFD_CLOEXEC, 3);
		if (held < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno, "dup: %s", strerror(errno));
	}
	return TAKE_FD(held);
}

static int mount_point(struct builder *b, const char *target, enum point_kind kind,
                       const char *what, struct sbx_error *err)
{
	return mount_point_own(b, target, kind, what, NULL, err);
}

static int attach(struct builder *b, int mfd, int pointfd, const char *target,
                  struct sbx_error *err)
{
	dir_cache_drop(b, target);
	if (move_mount(mfd, "", pointfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot attach the mount at %s: %s",
		                     target, strerror(errno));
	return 0;
}

static int attach_at(struct builder *b, int mfd, const char *target, const char *what,
                     struct sbx_error *err)
{
	struct stat st;
	_cleanup_close_ int point = -1;

	if (fstat(mfd, &st) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "stat: %s", strerror(errno));
	point = mount_point(b, target, S_ISDIR(st.st_mode) ? POINT_DIR : POINT_FILE, what, err);
	if (point < 0)
		return point;
	return attach(b, mfd, point, target, err);
}

static int do_symlink(struct builder *b, const char *text, const char *target,
                      struct sbx_error *err)
{
	bool own = false;
	_cleanup_close_ int parent =
	    mount_point_own(b, target, POINT_PARENT, "a symlink", &own, err);
	const char *name = strrchr(target, '/') + 1;

	if (parent < 0)
		return parent;
	if (!own) {
		int r = sbx_error_set(err, SBX_ERR_SETUP, ENOENT,
		                      "the symlink %s would have to be made in a host directory, "
		                      "and sbx never creates anything on the host",
		                      target);
		sbx_error_hint(err, "mount something else at its parent, or leave it out");
		return r;
	}
	/* an O_PATH directory serves as the *at calls' directory */
	if (symlinkat(text, parent, name) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the symlink %s -> %s: %s", target, text,
		                     strerror(errno));
	return 0;
}

static int do_mirror(struct builder *b, const struct sbx_plan_op *op, struct sbx_prepared *p,
                     struct sbx_error *err)
{
	for (size_t i = 0; i < p->n_mirror; i++) {
		struct sbx_mirror_entry *e = &p->mirror[i];
		char target[SBX_PATH_MAX];
		int r;

		snprintf(target, sizeof(target), "/%s", e->name);
		if (e->kind == SBX_HOST_SYMLINK)
			r = do_symlink(b, e->link, target, err);
		else
			r = attach_at(b, e->fd, target, op->source, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The source of every mask: a tmpfs of sbx's own, read-only, holding an empty directory "d"
 * (a hidden directory is an empty read-only directory, docs/design.md, The model) and a file "f" of
 * mode 0000. A hidden file cannot be opened at all, for reading or writing (EACCES), as under the
 * landlock backend, rather than reading as empty: no bit of its mode lets anyone in, the
 * worker has no CAP_DAC_OVERRIDE (capabilities are dropped), and the read-only mount stops a
 * chmod (EROFS) by whoever owns it.
 */
static int make_mask_source(struct builder *b, struct sbx_error *err)
{
	_cleanup_close_ int fd = new_tmpfs(NULL, 0555, SBX_PLAN_F_NOEXEC, 0, "masking", err);
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
	int f;

	if (fd < 0)
		return fd;
	/* O_CREAT's mode is masked by the umask, and 0000 has nothing to mask */
	f = openat(fd, "f", O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC, 0000);
	if (f < 0 || mkdirat(fd, "d", 0555) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot prepare masking: %s",
		                     strerror(errno));
	close(f);
	if (mount_setattr(fd, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the masking tmpfs read-only: %s",
		                     strerror(errno));
	b->maskfd = TAKE_FD(fd);
	return 0;
}

/* Open an existing target beneath the new root, or -ENOENT. */
static int open_existing(struct builder *b, const char *target)
{
	return sbx_openat2(b->rootfd, target + 1, O_PATH | O_CLOEXEC | O_NOFOLLOW, resolve_beneath);
}

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000 /* Linux 5.8 */
#endif

/*
 * Bind each directory above target onto itself, from its parent up to the first that is the
 * root of a mount, each with the flags of the mount it lies in (a recursive clone keeps
 * them). A directory that is a mount point cannot be renamed or removed in the sandbox
 * (EBUSY), so a worker that may write above sbx's own state cannot move the directory that
 * holds it away and plant one of its own at its path for a later launch to trust.
 */
static int pin_above(struct builder *b, const char *target, struct sbx_error *err)
{
	char path[SBX_PATH_MAX];

	snprintf(path, sizeof(path), "%s", target);
	for (char *slash = strrchr(path, '/'); slash && slash != path; slash = strrchr(path, '/')) {
		_cleanup_close_ int point = -1;
		int mfd, r;
		struct statx sx;

		*slash = '\0';
		point = open_existing(b, path);
		if (point < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, -point,
			                     "cannot open %s to keep it in place: %s", path,
			                     strerror(-point));
		if (statx(point, "", AT_EMPTY_PATH, 0, &sx) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno, "statx %s: %s", path,
			                     strerror(errno));
		if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
			return sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			                     "this kernel does not say which directories are mount "
			                     "roots (Linux 5.8)");
		if (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)
			return 0; /* a mount's root is a mount point already */
		mfd = clone_tree(point, "", path, AT_EMPTY_PATH, err);
		if (mfd < 0)
			return mfd;
		r = attach(b, mfd, point, path, err);
		close(mfd);
		if (r < 0)
			return r;
	}
	return 0;
}

static int do_mask(struct builder *b, const char *target, unsigned flags, struct sbx_error *err)
{
	_cleanup_close_ int point = open_existing(b, target);
	_cleanup_close_ int mfd = -1;
	struct stat st;

	int r;

	if (point == -ENOENT && (flags & SBX_PLAN_F_FOUND)) {
		/* the walk found it moments ago: moved since, by another process (a sandbox
		 * beside this one, renaming a folder above it back and forth) */
		r = sbx_error_set(err, SBX_ERR_SETUP, ENOENT,
		                  "%s, which a hide glob matched at this launch, was moved or "
		                  "removed before it could be masked",
		                  target);

		sbx_error_hint(err, "another process changes the folders above it (a sandbox "
		                    "running beside this one?); run again once it has stopped");
		return r;
	}
	if (point == -ENOENT)
		return 0; /* nothing there to hide */
	if (point < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -point, "cannot open %s to mask it: %s",
		                     target, strerror(-point));
	if (b->maskfd < 0) {
		r = make_mask_source(b, err);
		if (r < 0)
			return r;
	}
	if (fstat(point, &st) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "stat %s: %s", target,
		                     strerror(errno));
	mfd = open_tree(b->maskfd, S_ISDIR(st.st_mode) ? "d" : "f",
	                OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (mfd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot clone the mask for %s: %s",
		                     target, strerror(errno));
	r = attach(b, mfd, point, target, err);
	/* Masked first, then the directories above pinned: each pin is a recursive copy, so
	 * the path is masked in the copy the worker sees and beneath it alike. */
	if (r >= 0 && (flags & SBX_PLAN_F_PIN))
		r = pin_above(b, target, err);
	return r;
}

static int do_rebind_ro(struct builder *b, const char *target, struct sbx_error *err)
{
	_cleanup_close_ int point = open_existing(b, target);
	_cleanup_close_ int mfd = -1;
	int r;

	if (point == -ENOENT)
		return 0;
	if (point < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -point, "cannot open %s: %s", target,
		                     strerror(-point));
	mfd = clone_tree(point, "", target, AT_EMPTY_PATH, err);
	if (mfd < 0)
		return mfd;
	r = set_attrs(mfd, target, SBX_PLAN_F_READONLY | SBX_PLAN_F_NOEXEC, -1, true, err);
	if (r < 0)
		return r;
	return attach(b, mfd, point, target, err);
}

static int do_seal(struct builder *b, const char *target, struct sbx_error *err)
{
	_cleanup_close_ int fd = -1;
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};

	if (strcmp(target, "/") == 0)
		fd = fcntl(b->rootfd, F_DUPFD_CLOEXEC, 3);
	else
		fd = open_existing(b, target);
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, fd == -1 ? errno : -fd,
		                     "cannot open %s to make it read-only", target);
	if (!is_own(b, fd))
		return 0; /* a mount the user named sits there: it has its own flags */
	if (mount_setattr(fd, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make sbx's scaffolding at %s read-only: %s", target,
		                     strerror(errno));
	return 0;
}

/* A fully visible procfs at target/proc, then target masked (plan.c says why). The proc
 * must have no submount and stay read-write, or the kernel will not count it as visible. */
static int do_nest_proc(struct builder *b, const char *target, struct sbx_error *err)
{
	static const char *const opts[] = {NULL};
	char path[SBX_PATH_MAX];
	_cleanup_close_ int mfd = -1;
	int r;

	snprintf(path, sizeof(path), "%s/proc", target);
	mfd = new_fs("proc", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, path,
	             err);
	if (mfd < 0)
		return mfd;
	r = attach_at(b, mfd, path, "the procfs for nested sandboxes", err);
	if (r < 0)
		return r;
	return do_mask(b, target, 0, err);
}

/*
 * A file of sbx's own in place of a system file (SBX_PLAN_F_DATA: /etc/passwd and /etc/group
 * with the worker's entry added, src/core/identity.c; /etc/resolv.conf naming sbx's
 * resolver). Where its directory is a tmpfs of sbx's own (the scaffold's /etc, sealed
 * read-only once built), the file is made there, its content written and its mode 0444:
 * no mount at all. Elsewhere (a --root's /etc) it is written to a small tmpfs made for it,
 * made read-only, and that one file bound at target. The host's file is never written.
 */
static int write_all(int f, const char *text, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(f, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

static int do_data(struct builder *b, const struct sbx_plan_op *op, struct sbx_error *err)
{
	const char *text = strcmp(op->target, "/etc/passwd") == 0        ? b->plan->etc_passwd
	                   : strcmp(op->target, "/etc/group") == 0       ? b->plan->etc_group
	                   : strcmp(op->target, "/etc/resolv.conf") == 0 ? b->plan->etc_resolv
	                                                                 : NULL;
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
	_cleanup_close_ int fs = -1, f = -1, mfd = -1;
	size_t len;
	int r;

	if (!text)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL, "no content for %s", op->target);
	len = strlen(text);
	{
		bool own = false;
		_cleanup_close_ int dir =
		    mount_point_own(b, op->target, POINT_PARENT, op->target, &own, err);

		if (dir < 0)
			return dir;
		/* the scaffold: the file itself, new (O_EXCL: nothing there to follow) */
		if (own &&
		    (f = openat(dir, strrchr(op->target, '/') + 1,
		                O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444)) >= 0) {
			r = write_all(f, text, len);
			if (r >= 0 && fchmod(f, 0444) < 0)
				r = -errno;
			if (r < 0)
				return sbx_error_set(err, SBX_ERR_SETUP, -r, "cannot write %s: %s",
				                     op->target, strerror(-r));
			return 0;
		}
	}
	fs = new_tmpfs_with(NULL, 0555, SBX_PLAN_F_NOEXEC, len + 65536, false, 0, 0, op->target,
	                    err);
	if (fs < 0)
		return fs;
	f = openat(fs, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444);
	if (f < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot write %s: %s", op->target,
		                     strerror(errno));
	r = write_all(f, text, len);
	if (r < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -r, "cannot write %s: %s", op->target,
		                     strerror(-r));
	/* closed first: a tmpfs with a file open for writing cannot be made read-only */
	if (fchmod(f, 0444) < 0 || close(TAKE_FD(f)) < 0 ||
	    mount_setattr(fs, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot seal %s: %s", op->target,
		                     strerror(errno));
	mfd = clone_tree(fs, "f", op->target, 0, err);
	sbx_mounts_defer_close(TAKE_FD(fs));
	if (mfd < 0)
		return mfd;
	return attach_at(b, mfd, op->target, "the worker's name", err);
}

static int do_op(struct builder *b, const struct sbx_plan_op *op, size_t i, struct sbx_prepared *p,
                 struct sbx_error *err)
{
	static const char *const devpts_opts[] = {"newinstance", NULL,  "ptmxmode", "0666",
	                                          "mode",        "620", NULL};
	_cleanup_close_ int mfd = -1;

	switch (op->kind) {
	case SBX_PLAN_MIRROR:
		return do_mirror(b, op, p, err);
	case SBX_PLAN_BIND: {
		/* sbx streams the sources init does not clone itself (init_clones) */
		int r = p->streaming && !init_clones(op) && !(op->flags & SBX_PLAN_F_DATA)
		            ? stream_wait(p, i, err)
		            : 0;

		if (r < 0)
			return r;
	}
		if (op->flags & SBX_PLAN_F_DATA)
			return do_data(b, op, err);
		if (p->absent[i])
			return 0;
		return attach_at(b, p->fds[i], op->target, op->source, err);
	case SBX_PLAN_TMPFS:
		/* A read-only tmpfs is sealed by its own SEAL operation, after the mount points
		 * beneath it are made. */
		mfd = new_tmpfs_with(NULL, op->mode, op->flags, op->size,
		                     (op->flags & SBX_PLAN_F_OWNER) != 0, b->plan->inner_uid,
		                     b->plan->inner_gid, op->target, err);
		if (mfd < 0)
			return mfd;
		{
			int r = attach_at(b, mfd, op->target, "a tmpfs", err);

			if (r >= 0)
				own_add(b, mfd);
			return r;
		}
	case SBX_PLAN_PROC: {
		static const char *const opts[] = {NULL};

		mfd = new_fs("proc", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
		             "/proc", err);
		if (mfd < 0)
			return mfd;
		return attach_at(b, mfd, op->target, "procfs", err);
	}
	case SBX_PLAN_DEVPTS:
		mfd = new_fs("devpts", devpts_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
		             op->target, err);
		if (mfd < 0)
			return mfd;
		return attach_at(b, mfd, op->target, "devpts", err);
	case SBX_PLAN_SYMLINK:
		return do_symlink(b, op->source, op->target, err);
	case SBX_PLAN_MASK:
		return do_mask(b, op->target, op->flags, err);
	case SBX_PLAN_REBIND_RO:
		return do_rebind_ro(b, op->target, err);
	case SBX_PLAN_SEAL:
		return do_seal(b, op->target, err);
	case SBX_PLAN_NEST_PROC:
		return do_nest_proc(b, op->target, err);
	}
	return sbx_error_set(err, SBX_ERR_SETUP, EINVAL, "unknown plan operation %d", op->kind);
}

static int deferred[8];
static size_t n_deferred;

void sbx_mounts_defer_close(int fd)
{
	if (fd < 0)
		return;
	if (n_deferred < sizeof(deferred) / sizeof(deferred[0]))
		deferred[n_deferred++] = fd;
	else
		close(fd);
}

void sbx_mounts_close_deferred(void)
{
	while (n_deferred)
		close(deferred[--n_deferred]);
}

int sbx_mounts_build(const struct sbx_plan *plan, struct sbx_prepared *p, struct sbx_error *err)
{
	struct builder b = {.rootfd = -1, .maskfd = -1, .plan = plan};
	_cleanup_close_ int oldroot = -1;
	_cleanup_close_ int emptyfd = -1;
	bool root_mode = plan->n_ops && plan->ops[0].kind == SBX_PLAN_MIRROR;
	int r = 0;

	/* Nothing we mount may propagate back to the host, nor the host's into the sandbox. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		/* EPERM here, with a user namespace made, is a Landlock domain (a parent
		 * sandbox's) or a container's seccomp profile forbidding mounts: unsupported,
		 * and nothing has run, so --backend auto may fall back. */
		r = sbx_error_set(err, errno == EPERM ? SBX_ERR_UNSUPPORTED : SBX_ERR_SETUP, errno,
		                  "cannot make the sandbox's mounts private: %s", strerror(errno));
		sbx_error_hint(err, "mounting is forbidden here; --backend landlock needs none");
		return r;
	}

	b.rootfd = new_tmpfs(&b, 0755, 0, 0, "the new root", err);
	if (b.rootfd < 0)
		return b.rootfd;
	if (move_mount(b.rootfd, "", AT_FDCWD, build_base, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno,
		                  "cannot attach the new root at %s (in sbx's own mount "
		                  "namespace): %s",
		                  build_base, strerror(errno));
		goto out;
	}
	/* Build from an empty root of its own: every source is a descriptor already and every
	 * mount point is found from b.rootfd, so nothing needs a path. Nested under a parent's
	 * supervisor, the mount points made here are creations of a caller in namespaces of
	 * its own, CONTINUEd only where its root reaches no directory that holds a protected
	 * name (docs/design.md, The supervisor, Narrower): the old root reaches every one the
	 * parent's worker does (a guard outside build_base refused every mount point), and the
	 * new root would soon show the ones its plan mounts, with that root's answer cached
	 * before they were. A detached, read-only, empty tmpfs shows none, ever, and is not the
	 * root the worker gets. The old root comes back for pivot_root only. */
	/* At the top level no supervisor watches these calls: built from the caller's root as
	 * it is (every walk is beneath b.rootfd all the same). */
	if (plan->nested) {
		static const char *const opts[] = {"mode", "555", NULL, NULL};

		emptyfd = new_fs("tmpfs", opts,
		                 MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		                     MOUNT_ATTR_NOEXEC,
		                 "the empty root sbx builds from", err);
		if (emptyfd < 0) {
			r = emptyfd;
			goto out;
		}
		oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (oldroot < 0 || fchdir(emptyfd) < 0 || chroot(".") < 0) {
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot enter an empty root to build the new one: %s",
			                  strerror(errno));
			goto out;
		}
	}

	for (size_t i = 0; i < plan->n_ops && r >= 0; i++) {
		const struct sbx_plan_op *op = &plan->ops[i];

		r = do_op(&b, op, i, p, err);
		/* In root mode the root's own directories stand where system mounts would go
		 * (its etc/, say): a system mount that would need a mount point made on the host,
		 * or whose symlink would replace the root's entry, gives way. That only ever
		 * grants less. */
		if (r < 0 && root_mode && (op->flags & SBX_PLAN_F_SYSTEM) &&
		    (r == -ENOENT || r == -EEXIST)) {
			r = 0;
			continue;
		}
		if (r < 0)
			sbx_error_wrap(err, "building %s (%s)", plan->ops[i].target,
			               plan->ops[i].why);
	}
	if (r < 0)
		goto out;

	/* pivot_root(".", "."): the old root ends up stacked under the new one, and is then
	 * detached with everything mounted beneath it. */
	SBX_TRACE("init: mounts built");
	if ((oldroot >= 0 && (fchdir(oldroot) < 0 || chroot(".") < 0)) || fchdir(b.rootfd) < 0 ||
	    syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
	    chdir("/") < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot switch to the new root: %s",
		                  strerror(errno));
		goto out;
	}
out:
	dir_cache_clear(&b);
	if (b.rootfd >= 0)
		close(b.rootfd);
	sbx_mounts_defer_close(b.maskfd);
	return r;
}
