/* SPDX-License-Identifier: MIT */
/*
 * Paths on the host, opened without following what a worker could have planted: openat2 with
 * RESOLVE_* flags, and the walk that stands in for it where a parent sandbox's filter answers
 * ENOSYS.
 */
#include "os/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"

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

int sbx_fs_open_output(const char *path, int flags, mode_t mode)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	_cleanup_free_ char *dir_path = NULL;
	_cleanup_close_ int dir = -1;
	int fd;

	if (!*base)
		return -EISDIR;
	if (slash) {
		dir_path = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
		if (!dir_path)
			return -ENOMEM;
	}
	dir = sbx_openat2(AT_FDCWD, dir_path ? dir_path : ".", O_PATH | O_DIRECTORY | O_CLOEXEC,
	                  RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (dir < 0)
		return dir;
	fd = openat(dir, base, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
	return fd < 0 ? -errno : fd;
}

bool sbx_fs_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *sbx_fs_realpath(const char *path)
{
	return realpath(path, NULL);
}

/* The entries of dir (an open directory, consumed), removed depth first; never follows a
 * symlink (unlinkat removes the link itself) and opens each subdirectory O_NOFOLLOW beneath
 * its parent's descriptor, so a name swapped meanwhile is left, never followed. */
static void remove_entries(int dir, unsigned depth)
{
	DIR *d = fdopendir(dir);
	struct dirent *de;

	if (!d) {
		close(dir);
		return;
	}
	while ((de = readdir(d))) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno != EISDIR)
			continue;
		sub = depth < 64 ? openat(dirfd(d), de->d_name,
		                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		                 : -1;
		if (sub >= 0) {
			remove_entries(sub, depth + 1);
			(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
}

int sbx_fs_remove_tree(const char *path)
{
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dir < 0)
		return -errno;
	remove_entries(dir, 0);
	return rmdir(path) < 0 ? -errno : 0;
}

int sbx_fs_hidden_name(const char *path, char *out, size_t size, const char **why)
{
	char text[PATH_MAX], joined[2 * PATH_MAX + 2], norm[PATH_MAX], up[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	ssize_t n;

	*why = NULL;
	if (lstat(path, &st) < 0 || S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISLNK(st.st_mode)) {
		if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			*why = "a file with more than one hard link: what is written to it can be "
			       "read under its other names";
			return -EMLINK;
		}
		return 0;
	}
	n = readlink(path, text, sizeof(text) - 1);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	if (sbx_path_backtracks(text)) {
		*why = "a symbolic link whose text has a '..' after a name";
		return -ELOOP;
	}
	if (text[0] == '/')
		snprintf(joined, sizeof(joined), "%s", text);
	else
		snprintf(joined, sizeof(joined), "%.*s/%s", slash ? (int)(slash - path) : 0, path,
		         text);
	if (sbx_path_normalize(joined, norm, sizeof(norm), NULL) < 0 || !strcmp(norm, "/")) {
		*why = "a symbolic link that leads nowhere sbx can name";
		return -EINVAL;
	}
	/* the deepest folder on its way that exists, reached with no link at all */
	snprintf(up, sizeof(up), "%s", norm);
	for (;;) {
		char *cut = strrchr(up, '/');
		int fd;

		if (cut == up)
			up[1] = '\0';
		else
			*cut = '\0';
		fd = sbx_openat2(AT_FDCWD, up, O_PATH | O_DIRECTORY | O_CLOEXEC,
		                 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd >= 0) {
			close(fd);
			break;
		}
		if (fd != -ENOENT || !strcmp(up, "/")) {
			*why = "a symbolic link with a link, /proc or a file on its way";
			return -ELOOP;
		}
	}
	if (lstat(norm, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) {
		*why = S_ISLNK(st.st_mode) ? "a symbolic link to another link"
		       : S_ISREG(st.st_mode)
		           ? "a symbolic link to a file with more than one hard link"
		           : "a symbolic link to something other than a file";
		return -ELOOP;
	}
	if (snprintf(out, size, "%s", norm) >= (int)size)
		return -ENAMETOOLONG;
	return 1;
}
