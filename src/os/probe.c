/* SPDX-License-Identifier: MIT */
#include "os/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "sbx/cleanup.h"

/* One number from /proc/sys/user/NAME (the caller's user namespace's), read beneath dir (that
 * directory, opened once), or -1. */
static long long read_ucount(int dir, const char *name)
{
	char buf[32] = "";
	_cleanup_close_ int fd = -1;
	ssize_t n;

	fd = dir >= 0 ? openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

/* Does a system candidate that exists here (a directory, or a file) cover path? */
static bool system_covers(const struct sbx_host_entry *entries, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(entries[i].path);

		if (entries[i].kind != SBX_HOST_SYMLINK &&
		    strncmp(entries[i].path, path, len) == 0 &&
		    (path[len] == '/' || path[len] == '\0'))
			return true;
	}
	return false;
}

/*
 * sbx itself, so that a worker can start a sub-worker (docs/design.md, Nesting): the binary that
 * runs, at its own path, where no system mount shows it (a build tree, /opt, a home). It is a
 * system entry like /etc/ld.so.cache: read-only, kept by every nested sandbox, and a mount the
 * user names at or above it wins. A binary that is gone (" (deleted)") or not a regular file is
 * left out.
 */
static void add_self(struct sbx_host_entry *entries, size_t *n)
{
	static char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct stat st;

	if (len <= 0 || (size_t)len >= sizeof(self) - 1)
		return;
	self[len] = '\0';
	if (self[0] != '/' || strstr(self, " (deleted)") || lstat(self, &st) < 0 ||
	    !S_ISREG(st.st_mode) || system_covers(entries, *n, self))
		return;
	entries[*n].path = self;
	entries[*n].kind = SBX_HOST_FILE;
	(*n)++;
}

/* A system file of at most SBX_ETC_ID_MAX bytes, NUL-terminated, or NULL. */
static char *read_small(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *buf;
	size_t off = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > SBX_ETC_ID_MAX)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return NULL;
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	buf[off] = '\0';
	if (memchr(buf, '\0', off)) { /* not a text file */
		free(buf);
		return NULL;
	}
	return buf;
}

int sbx_probe_host(struct sbx_host *host, char *const *envp, struct sbx_error *err)
{
	return sbx_probe_host_then(host, envp, NULL, NULL, err);
}

void sbx_probe_ucounts(struct sbx_host *host)
{
	_cleanup_close_ int dir =
	    open("/proc/sys/user", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	for (size_t i = 0; i < SBX_N_UCOUNTS; i++)
		host->ucount[i] = read_ucount(dir, sbx_ucount_shares[i].name);
}

int sbx_probe_host_then(struct sbx_host *host, char *const *envp, bool (*before)(void *), void *arg,
                        struct sbx_error *err)
{
	struct sbx_host_entry *entries;
	size_t n = 0;
	char *cwd;

	memset(host, 0, sizeof(*host));
	host->uid = getuid();
	host->gid = getgid();
	host->euid = geteuid();
	host->environ = envp;
	{
		/* the limits' facts: RAM sizes the tmpfs defaults, the per-user counts give the
		 * sandbox's user namespace its share (include/sbx/limits.h); those read by another
		 * where before says so (sbx run's early namespaces' child: the caller fills them in
		 * before the plan is built) */
		struct sysinfo si;

		if (sysinfo(&si) == 0)
			host->mem_total = (uint64_t)si.totalram * si.mem_unit;
		if (!before || !before(arg))
			sbx_probe_ucounts(host);
	}

	cwd = getcwd(NULL, 0);
	if (!cwd)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot read the current directory: %s", strerror(errno));
	host->cwd = cwd;

	entries = calloc(sbx_n_system_candidates + 1, sizeof(*entries));
	if (!entries)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < sbx_n_system_candidates; i++) {
		const char *path = sbx_system_candidates[i].path;
		struct stat st;

		if (lstat(path, &st) < 0)
			continue;
		entries[n].path = path;
		if (S_ISLNK(st.st_mode)) {
			char buf[PATH_MAX];
			ssize_t len = readlink(path, buf, sizeof(buf) - 1);

			if (len < 0)
				continue;
			buf[len] = '\0';
			entries[n].link = strdup(buf);
			if (!entries[n].link)
				continue;
			entries[n].kind = SBX_HOST_SYMLINK;
		} else {
			entries[n].kind = S_ISDIR(st.st_mode) ? SBX_HOST_DIR : SBX_HOST_FILE;
		}
		n++;
	}
	add_self(entries, &n);
	host->entries = entries;
	host->n_entries = n;
	/* The worker's name comes from these (src/core/identity.c); unreadable: none added. */
	host->passwd = read_small("/etc/passwd");
	host->group = read_small("/etc/group");
	return 0;
}

void sbx_probe_host_clear(struct sbx_host *host)
{
	for (size_t i = 0; i < host->n_entries; i++)
		free(host->entries[i].link);
	free(host->entries);
	free(host->cwd);
	free(host->passwd);
	free(host->group);
	memset(host, 0, sizeof(*host));
}

int sbx_probe_outer_id(bool gid, unsigned id, unsigned *outer, bool *whole)
{
	FILE *f = fopen(gid ? "/proc/self/gid_map" : "/proc/self/uid_map", "re");
	unsigned in, out, count;
	int r = -ENOENT;

	*whole = false;
	if (!f)
		return -errno;
	while (fscanf(f, "%u %u %u", &in, &out, &count) == 3) {
		if (in == 0 && out == 0 && count == 4294967295u)
			*whole = true;
		if (id >= in && id - in < count) {
			*outer = out + (id - in);
			r = 0;
		}
	}
	fclose(f);
	return r;
}
