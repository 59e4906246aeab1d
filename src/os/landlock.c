/* SPDX-License-Identifier: MIT */
/*
 * Landlock: the ABI this kernel speaks, and enforcing a negotiated struct sbx_ll_plan on the
 * calling process. Runs in the worker (a vfork child): no allocation, system calls only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock_compat.h"
#include "os.h"
#include "sbx/cleanup.h"
#include "sbx/landlock.h"
#include "sbx/path.h"
#include "sbx/policy.h"

/* Our bit values are the kernel's: a mismatch would grant the wrong rights. */
_Static_assert(SBX_LL_FS_EXECUTE == LANDLOCK_ACCESS_FS_EXECUTE, "fs bits");
_Static_assert(SBX_LL_FS_READ_DIR == LANDLOCK_ACCESS_FS_READ_DIR, "fs bits");
_Static_assert(SBX_LL_FS_MAKE_SYM == LANDLOCK_ACCESS_FS_MAKE_SYM, "fs bits");
_Static_assert(SBX_LL_FS_REFER == LANDLOCK_ACCESS_FS_REFER, "fs bits");
_Static_assert(SBX_LL_FS_TRUNCATE == LANDLOCK_ACCESS_FS_TRUNCATE, "fs bits");
_Static_assert(SBX_LL_FS_IOCTL_DEV == LANDLOCK_ACCESS_FS_IOCTL_DEV, "fs bits");
_Static_assert(SBX_LL_NET_CONNECT_TCP == LANDLOCK_ACCESS_NET_CONNECT_TCP, "net bits");
_Static_assert(SBX_LL_SCOPE_SIGNAL == LANDLOCK_SCOPE_SIGNAL, "scope bits");

int sbx_landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	/* ENOSYS: built without Landlock; EOPNOTSUPP: built in, not enabled at boot. */
	return abi < 0 ? -errno : (int)abi;
}

int sbx_landlock_enforce(const struct sbx_ll_plan *p, struct sbx_error *err)
{
	struct sbx_landlock_ruleset_attr attr = {
	    .handled_access_fs = p->handled_fs,
	    .handled_access_net = p->handled_net,
	    .scoped = p->scoped,
	};
	/* The attribute's size tells the kernel which fields we use: an older kernel rejects
	 * a larger one (E2BIG) unless the extra fields are zero, so pass what the ABI has. */
	size_t size = p->abi >= 6 ? sizeof(attr) : p->abi >= 4 ? 16 : 8;
	int fd, r;

	if (!p->enabled)
		return 0;
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0) {
		r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, errno,
		                  "cannot create the Landlock ruleset (ABI %d): %s", p->abi,
		                  strerror(errno));
		sbx_error_hint(err, "see 'sbx doctor'; --best-effort runs without what the kernel "
		                    "lacks");
		return r;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		struct landlock_path_beneath_attr pb = {0};
		struct stat st;
		int pfd = open(p->rules[i].path, O_PATH | O_CLOEXEC);

		if (pfd < 0) {
			/* An optional mount that was skipped: nothing there to grant. */
			if (errno == ENOENT)
				continue;
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "Landlock rule for %s: cannot open it: %s",
			                  p->rules[i].path, strerror(errno));
			close(fd);
			return r;
		}
		pb.parent_fd = pfd;
		pb.allowed_access = p->rules[i].access & p->handled_fs;
		/* A rule on anything but a directory takes only the rights that apply to a
		 * file; the others are about entries of a directory. */
		if (fstat(pfd, &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= SBX_LL_FS_FILE;
		if (pb.allowed_access && syscall(__NR_landlock_add_rule, fd,
		                                 SBX_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot add the Landlock rule for %s: %s",
			                  p->rules[i].path, strerror(errno));
			close(pfd);
			close(fd);
			return r;
		}
		close(pfd);
	}
	/* TCP: handled with no port rule, so every bind and connect is denied. */
	if (syscall(__NR_landlock_restrict_self, fd, 0) < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno,
		                  "cannot enforce the Landlock ruleset: %s", strerror(errno));
		close(fd);
		return r;
	}
	close(fd);
	return 0;
}

/* ---- giving back, entry by entry, what an ancestor's rule lost ---- */

#define SBX_LL_MAX_EXPANDED 20000 /* rules added, at most */

static int add_rule(struct sbx_ll_plan *p, const char *path, uint64_t access, const char *why,
                    struct sbx_error *err)
{
	struct sbx_ll_rule *grown;

	if (p->n_rules >= SBX_LL_MAX_EXPANDED)
		return sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, E2BIG,
		    "giving rights back entry by entry needs more than %d Landlock "
		    "rules",
		    SBX_LL_MAX_EXPANDED);
	grown = realloc(p->rules, (p->n_rules + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->rules = grown;
	grown[p->n_rules] = (struct sbx_ll_rule){
	    .path = strdup(path), .access = access, .full = access, .why = why};
	if (!grown[p->n_rules].path)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->n_rules++;
	return 0;
}

/* Is `path` one of the rules beneath the expanded one (own == true), or above one? */
static bool on_the_way(const struct sbx_ll_plan *p, size_t n_orig, const char *top,
                       const char *path, bool *own)
{
	bool above = false;

	*own = false;
	for (size_t i = 0; i < n_orig; i++) {
		const char *d = p->rules[i].path;

		if (strcmp(d, top) == 0 || !sbx_path_covers(top, d))
			continue;
		if (strcmp(d, path) == 0)
			*own = true;
		else if (sbx_path_covers(path, d))
			above = true;
	}
	return above;
}

static int expand_dir(struct sbx_ll_plan *p, size_t n_orig, const char *top, const char *dir,
                      uint64_t full, unsigned depth, struct sbx_error *err)
{
	_cleanup_free_ char *path = NULL;
	DIR *d;
	struct dirent *e;
	int fd, r = 0;

	if (depth > 64)
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* nothing to give back there */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	path = malloc(SBX_PATH_MAX);
	if (!path) {
		closedir(d);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	while (r >= 0 && (e = readdir(d))) {
		bool own, above;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(path, SBX_PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) >=
		    SBX_PATH_MAX)
			continue;
		above = on_the_way(p, n_orig, top, path, &own);
		if (own)
			continue; /* its own rule decides beneath it */
		if (above) {
			r = expand_dir(p, n_orig, top, path, full, depth + 1, err);
			continue;
		}
		/* A symlink gets no rule: what it names is decided where that lies. */
		if (e->d_type == DT_LNK)
			continue;
		r = add_rule(p, path,
		             e->d_type == DT_DIR || e->d_type == DT_UNKNOWN ? full
		                                                            : full & SBX_LL_FS_FILE,
		             "given back entry by entry", err);
	}
	closedir(d);
	return r;
}

int sbx_landlock_expand(struct sbx_ll_plan *p, struct sbx_error *err)
{
	size_t n_orig = p->n_rules;
	char *note;
	int r;

	for (size_t i = 0; i < n_orig; i++) {
		char top[SBX_PATH_MAX];
		uint64_t full = p->rules[i].full;

		if (full == p->rules[i].access)
			continue;
		snprintf(top, sizeof(top), "%s", p->rules[i].path);
		r = expand_dir(p, n_orig, top, top, full, 0, err);
		if (r < 0)
			return r;
		if (asprintf(
		        &note,
		        "%s: what it lost is given back entry by entry (rules marked 'given "
		        "back'); entries created later directly in it, or in a directory on the "
		        "way to a path that allows less, get only the reduced rights",
		        top) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		{
			char **grown = realloc(p->inexact, (p->n_inexact + 1) * sizeof(*grown));

			if (!grown) {
				free(note);
				return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
			}
			p->inexact = grown;
			p->inexact[p->n_inexact++] = note;
		}
	}
	return 0;
}
