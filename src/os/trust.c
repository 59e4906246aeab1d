/* SPDX-License-Identifier: MIT */
/*
 * Who could have written a profile or policy (src/os/trust.h). The path is resolved
 * here, one component at a time from a descriptor of /, with O_NOFOLLOW at every step: the
 * kernel never follows a symlink for us, so every folder checked is one the file is really
 * reached through, and a symlink is followed only after its owner is checked.
 */

#include "os/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "sbx/profile.h"
#include "sbx/nest.h"

#define TRUST_MAX_DEPTH 128 /* folders held open on the way down */
#define TRUST_MAX_LINKS 40  /* symlinks followed, as the kernel's own limit */

struct who {
	uid_t uid;      /* the caller */
	bool in_userns; /* not the initial user namespace: unmapped owners read as overflow */
	uid_t overflow;
};

/* In the initial user namespace uid_map is one line, "0 0 4294967295". */
static bool in_initial_userns(void)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long inner, outer, count;
	int lines = 0;
	bool initial = false;

	if (!f)
		return true; /* no /proc: assume the strict case */
	while (fscanf(f, "%lu %lu %lu", &inner, &outer, &count) == 3) {
		lines++;
		initial = inner == 0 && outer == 0 && count == 4294967295ul;
	}
	fclose(f);
	return lines == 1 && initial;
}

static uid_t overflow_uid(void)
{
	FILE *f = fopen("/proc/sys/kernel/overflowuid", "re");
	unsigned long v = 65534;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 65534;
		fclose(f);
	}
	return (uid_t)v;
}

/*
 * Owners the caller may trust: itself and root. In a user namespace of a nested sbx also the
 * overflow id, which is how every owner not mapped there reads, root's system files among
 * them (and another host user's files, if the parent showed any). A nested sandbox can only
 * narrow its parent: the kernel holds the parent's mounts, Landlock layers and seccomp filter
 * whatever the child's profile says, so a profile from such a file can at worst make the
 * child as wide as its parent, which the worker could ask for anyway. The mode checks still
 * apply: nothing writable by group or others inside is accepted.
 */
static bool owner_ok(const struct who *w, uid_t owner)
{
	return owner == w->uid || owner == 0 || (w->in_userns && owner == w->overflow);
}

/* "the folder X" / "the file X" / "the symlink X" */
static const char *kind_word(mode_t mode)
{
	return S_ISDIR(mode) ? "folder" : S_ISLNK(mode) ? "symlink" : "file";
}

/* "the file" when the fault is the file itself, "the folder D" on the way. */
static void where(char *buf, size_t size, const char *file, const char *path, mode_t mode)
{
	if (strcmp(file, path) == 0)
		snprintf(buf, size, "it");
	else
		snprintf(buf, size, "the %s %s on the way", kind_word(mode), path);
}

static int refuse_owner(const struct who *w, const char *file, const char *what, const char *path,
                        const struct stat *st, struct sbx_error *err)
{
	char at[SBX_PATH_MAX + 32];
	int r;

	where(at, sizeof(at), file, path, st->st_mode);
	r = sbx_error_set(err, SBX_ERR_PROFILE, EPERM,
	                  "refusing %s %s: %s is owned by uid %u, not by you (uid %u) or root, "
	                  "so someone else could have written it",
	                  what, file, at, (unsigned)st->st_uid, (unsigned)w->uid);
	if (w->uid == 0)
		sbx_error_hint(err,
		               "if you trust it: chown root %s; or copy the %s into a folder "
		               "of your own",
		               path, what);
	else
		sbx_error_hint(err,
		               "copy the %s into a folder of your own (you or root must own "
		               "it and every folder above it)",
		               what);
	return r;
}

static int refuse_mode(const char *file, const char *what, const char *path, const struct stat *st,
                       struct sbx_error *err)
{
	char at[SBX_PATH_MAX + 32];
	int r;

	where(at, sizeof(at), file, path, st->st_mode);
	r = sbx_error_set(err, SBX_ERR_PROFILE, EPERM,
	                  "refusing %s %s: %s is writable by %s (mode %04o), so someone other "
	                  "than you or root could have written it",
	                  what, file, at,
	                  (st->st_mode & S_IWGRP) && (st->st_mode & S_IWOTH) ? "group and others"
	                  : (st->st_mode & S_IWGRP)                          ? "its group"
	                                                                     : "others",
	                  (unsigned)(st->st_mode & 07777));
	sbx_error_hint(err, "chmod go-w %s", path);
	return r;
}

/* A folder on the way: trusted owner; writable by no one else unless sticky (others may add
 * entries there, not rename or remove the ones beneath, which are checked in turn). */
static int check_dir(const struct who *w, const char *file, const char *what, const char *path,
                     const struct stat *st, struct sbx_error *err)
{
	if (!owner_ok(w, st->st_uid))
		return refuse_owner(w, file, what, path, st, err);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return refuse_mode(file, what, path, st, err);
	return 0;
}

static int check_file(const struct who *w, const char *file, const char *what, const char *path,
                      const struct stat *st, struct sbx_error *err)
{
	if (!S_ISREG(st->st_mode))
		return sbx_error_set(err, SBX_ERR_PROFILE, EINVAL, "%s %s is not a regular file",
		                     what, file);
	if (!owner_ok(w, st->st_uid))
		return refuse_owner(w, file, what, path, st, err);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return refuse_mode(file, what, path, st, err);
	return 0;
}

/* The folders held open on the way down, and the real path they make. */
struct chain {
	int fd[TRUST_MAX_DEPTH + 1];
	size_t depth; /* fd[0] is / */
	char path[SBX_PATH_MAX];
};

static void chain_close(struct chain *c)
{
	for (size_t i = 0; i <= c->depth; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
}

static void chain_to_root(struct chain *c)
{
	while (c->depth > 0)
		close(c->fd[c->depth--]);
	snprintf(c->path, sizeof(c->path), "/");
}

static void chain_up(struct chain *c)
{
	char *slash;

	if (c->depth == 0)
		return;
	close(c->fd[c->depth--]);
	slash = strrchr(c->path, '/');
	if (slash)
		slash[slash == c->path ? 1 : 0] = '\0';
}

/* dir/name; false if it does not fit */
static bool join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);

	return n >= 0 && (size_t)n < size;
}

int sbx_trust_open(const char *file, const char *what, struct sbx_error *err)
{
	/* Nested: started by sbx (its spec fd is set) in a user namespace of its making. A
	 * process that dropped SBX_SPEC_FD gets the strict rules, which only refuse more. */
	struct who w = {.uid = geteuid(),
	                .in_userns = getenv(SBX_SPEC_FD_ENV) && !in_initial_userns()};
	struct chain c = {.depth = 0};
	char todo[SBX_PATH_MAX * 2];
	char *rest;
	int links = 0, r = -EINVAL;

	w.overflow = overflow_uid();
	if (file[0] == '/') {
		snprintf(todo, sizeof(todo), "%s", file);
	} else {
		_cleanup_free_ char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return sbx_error_set(err, SBX_ERR_PROFILE, errno,
			                     "cannot read the current directory to find %s %s: %s",
			                     what, file, strerror(errno));
		if ((size_t)snprintf(todo, sizeof(todo), "%s/%s", cwd, file) >= sizeof(todo))
			return sbx_error_set(err, SBX_ERR_PROFILE, ENAMETOOLONG,
			                     "%s %s: path too long", what, file);
	}
	snprintf(c.path, sizeof(c.path), "/");
	c.fd[0] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c.fd[0] < 0)
		return sbx_error_set(err, SBX_ERR_PROFILE, errno, "cannot open /: %s",
		                     strerror(errno));
	{
		struct stat st;

		if (fstat(c.fd[0], &st) < 0) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, errno, "cannot stat /: %s",
			                  strerror(errno));
			goto out;
		}
		r = check_dir(&w, file, what, "/", &st, err);
		if (r < 0)
			goto out;
	}

	rest = todo;
	for (;;) {
		char name[NAME_MAX + 1], here[SBX_PATH_MAX];
		size_t n;
		bool last;
		int fd;
		struct stat st;

		while (*rest == '/')
			rest++;
		if (!*rest) {
			/* the path named a folder */
			r = sbx_error_set(err, SBX_ERR_PROFILE, EISDIR, "%s %s is a folder", what,
			                  file);
			goto out;
		}
		n = strcspn(rest, "/");
		if (n > NAME_MAX) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, ENAMETOOLONG,
			                  "%s %s: a name in its path is too long", what, file);
			goto out;
		}
		memcpy(name, rest, n);
		name[n] = '\0';
		rest += n;
		while (*rest == '/')
			rest++;
		last = *rest == '\0';
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			chain_up(&c);
			continue;
		}
		if (!join(here, sizeof(here), c.path, name)) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, ENAMETOOLONG,
			                  "%s %s: path too long", what, file);
			goto out;
		}
		if (last) {
			/* The file itself, opened once for reading; O_NONBLOCK so that a fifo
			 * planted there cannot hang us (it is refused as not a regular file). */
			fd = openat(c.fd[c.depth], name,
			            O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0) {
				if (fstat(fd, &st) < 0) {
					r = sbx_error_set(err, SBX_ERR_PROFILE, errno,
					                  "cannot stat %s: %s", here,
					                  strerror(errno));
					close(fd);
					goto out;
				}
				r = check_file(&w, file, what, here, &st, err);
				if (r < 0) {
					close(fd);
					goto out;
				}
				r = fd;
				goto out;
			}
			if (errno != ELOOP) {
				r = sbx_error_set(err, SBX_ERR_PROFILE, errno,
				                  "cannot open %s %s: %s", what, file,
				                  strerror(errno));
				goto out;
			}
			/* a symlink: looked at below */
		}
		fd = openat(c.fd[c.depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, errno,
			                  "cannot open %s %s: %s (at %s)", what, file,
			                  strerror(errno), here);
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[SBX_PATH_MAX], next[sizeof(todo)];
			ssize_t len;

			/* Followed only if its owner could be trusted with the file itself: in a
			 * sticky folder (/tmp) anyone may plant a symlink. */
			if (!owner_ok(&w, st.st_uid)) {
				r = refuse_owner(&w, file, what, here, &st, err);
				close(fd);
				goto out;
			}
			len = readlinkat(fd, "", target, sizeof(target) - 1);
			close(fd);
			if (len <= 0 || ++links > TRUST_MAX_LINKS) {
				r = sbx_error_set(
				    err, SBX_ERR_PROFILE, len <= 0 ? errno : ELOOP,
				    "cannot follow the symlink %s on the way to %s %s", here, what,
				    file);
				goto out;
			}
			target[len] = '\0';
			if ((size_t)snprintf(next, sizeof(next), "%s/%s", target, rest) >=
			    sizeof(next)) {
				r = sbx_error_set(err, SBX_ERR_PROFILE, ENAMETOOLONG,
				                  "%s %s: path too long", what, file);
				goto out;
			}
			if (target[0] == '/')
				chain_to_root(&c);
			snprintf(todo, sizeof(todo), "%s", next);
			rest = todo;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			r = sbx_error_set(err, SBX_ERR_PROFILE, ENOTDIR,
			                  "cannot open %s %s: %s is not a folder", what, file,
			                  here);
			goto out;
		}
		r = check_dir(&w, file, what, here, &st, err);
		if (r < 0 || c.depth == TRUST_MAX_DEPTH) {
			close(fd);
			if (r >= 0)
				r = sbx_error_set(err, SBX_ERR_PROFILE, ENAMETOOLONG,
				                  "%s %s lies more than %d folders deep", what,
				                  file, TRUST_MAX_DEPTH);
			goto out;
		}
		c.fd[++c.depth] = fd;
		snprintf(c.path, sizeof(c.path), "%s", here);
	}
out:
	chain_close(&c);
	return r;
}

int sbx_read_fd(int fd, const char *file, size_t max, char **data, size_t *len,
                struct sbx_error *err)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;
	int r;

	if (fstat(fd, &st) < 0)
		return sbx_error_set(err, SBX_ERR_PROFILE, errno, "cannot stat %s: %s", file,
		                     strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sbx_error_set(err, SBX_ERR_PROFILE, EINVAL, "%s is not a regular file",
		                     file);
	if ((unsigned long long)st.st_size > max) {
		r = sbx_error_set(err, SBX_ERR_PROFILE, EFBIG,
		                  "%s is larger than %zu KiB; profiles and policies are small",
		                  file, max / 1024);
		sbx_error_at(err, file, 1, 1);
		return r;
	}
	buf = malloc(max + 2);
	if (!buf)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (;;) {
		ssize_t n = read(fd, buf + got, max + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sbx_error_set(err, SBX_ERR_PROFILE, errno, "cannot read %s: %s",
			                     file, strerror(errno));
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > max) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, EFBIG,
			                  "%s is larger than %zu KiB; profiles and policies are "
			                  "small",
			                  file, max / 1024);
			sbx_error_at(err, file, 1, 1);
			return r;
		}
	}
	buf[got] = '\0';
	*data = TAKE_PTR(buf);
	*len = got;
	return 0;
}

int sbx_trust_read(const char *file, const char *what, size_t max, char **data, size_t *len,
                   struct sbx_error *err)
{
	_cleanup_close_ int fd = sbx_trust_open(file, what, err);

	if (fd < 0)
		return fd;
	return sbx_read_fd(fd, file, max, data, len, err);
}
