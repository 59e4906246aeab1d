/* SPDX-License-Identifier: MIT */
/*
 * Landlock: the ABI this kernel speaks, and enforcing a negotiated struct sbx_ll_plan on the
 * calling process. Runs in the worker (a vfork child): no allocation, system calls only.
 */
#include "os/landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock_compat.h"
#include "sbx/cleanup.h"
#include "sbx/landlock.h"
#include "sbx/path.h"
#include "sbx/policy.h"
#include "os/fs.h"
#include "os/supervisor.h"

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

/* The directory carved rules are opened beneath: kept open while consecutive rules share it
 * (carving appends a rule's entries together), so that a carved rule costs one openat2. */
struct carved_base {
	int fd;
	const struct sbx_ll_rule *of; /* the rule whose path[0..base_len) fd is */
};

/* What sbx_openat2 (O_PATH | O_NOFOLLOW) gave, checked: -1 with errno for a failure, and
 * ELOOP for a final symlink, which O_NOFOLLOW opens itself rather than refusing; *st: what
 * the descriptor is. */
static int nofollow_checked(int fd, struct stat *st)
{
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	if (fstat(fd, st) < 0 || S_ISLNK(st->st_mode)) {
		close(fd);
		errno = ELOOP;
		return -1;
	}
	return fd;
}

/* A rule's path with no symbolic link on it, the last component included (-1, errno ELOOP
 * for one); *out (may be NULL): what it is. */
static int open_nofollow_st(const char *path, struct stat *out)
{
	struct stat mine = {0};

	return nofollow_checked(sbx_openat2(AT_FDCWD, path, O_PATH | O_CLOEXEC | O_NOFOLLOW,
	                                    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
	                        out ? out : &mine);
}

static int open_nofollow(const char *path)
{
	return open_nofollow_st(path, NULL);
}

/* A carved rule's path, opened beneath the rule it was carved from without following any
 * symlink: one planted since sbx listed the directory (by a process of an earlier sandbox,
 * say) cannot redirect the rights elsewhere. No allocation: runs in the worker. Sets errno. */
static int open_carved(const struct sbx_ll_rule *rule, struct carved_base *cb, struct stat *st)
{
	char base[SBX_PATH_MAX];
	const char *rest = rule->path + rule->base_len;

	if (!cb->of || cb->of->base_len != rule->base_len ||
	    memcmp(cb->of->path, rule->path, rule->base_len) != 0) {
		if (cb->fd >= 0)
			close(cb->fd);
		cb->fd = -1;
		cb->of = NULL;
		if (rule->base_len >= sizeof(base)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(base, rule->path, rule->base_len);
		base[rule->base_len] = '\0';
		cb->fd = open_nofollow(base);
		if (cb->fd < 0)
			return -1;
		cb->of = rule;
	}
	while (*rest == '/')
		rest++;
	/* a final symlink: no rule for it */
	return nofollow_checked(
	    sbx_openat2(cb->fd, *rest ? rest : ".", O_PATH | O_CLOEXEC | O_NOFOLLOW,
	                RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
	    st);
}

/* What no rule carved beside a hidden path may be, by identity: each hidden path there at
 * carving and every folder above it now. Carving lists names; another process renaming a
 * folder between the listing and the rules (a above .env renamed b and back) would have its
 * folder granted under the name it had. */
struct hidden_id {
	dev_t dev;
	ino_t ino;
};

struct hidden_ids {
	struct hidden_id *v; /* grown as needed: a launch that hides nothing allocates nothing */
	size_t n, cap;
};

static int hidden_ids_add(struct hidden_ids *h, const struct stat *st)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].dev == st->st_dev && h->v[i].ino == st->st_ino)
			return 0;
	if (h->n >= SBX_LL_MAX_HIDDEN_IDS)
		return -E2BIG;
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct hidden_id *g = realloc(h->v, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		h->v = g;
		h->cap = cap;
	}
	h->v[h->n++] = (struct hidden_id){st->st_dev, st->st_ino};
	return 0;
}

static bool hidden_ids_has(const struct hidden_ids *h, const struct stat *st)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].dev == st->st_dev && h->v[i].ino == st->st_ino)
			return true;
	return false;
}

static int changed_at(const char *path, struct sbx_error *err)
{
	int r = sbx_error_set(err, SBX_ERR_SETUP, EAGAIN,
	                      "%s changed while sbx set up the rules around it", path);

	sbx_error_hint(err, "another process moves the folders above it (a sandbox running "
	                    "beside this one?); run again once it has stopped");
	return r;
}

static int hidden_ids_collect(const struct sbx_ll_plan *p, struct hidden_ids *h,
                              struct sbx_error *err)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_ll_rule *rule = &p->rules[i];
		_cleanup_close_ int fd = -1, dir = -1;
		char parent[SBX_PATH_MAX];
		const char *slash = strrchr(rule->path, '/');
		struct stat st, at;

		if (!rule->hidden || !rule->present || !slash || slash == rule->path)
			continue;
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - rule->path), rule->path);
		dir = open_nofollow(parent);
		if (dir < 0 || fstat(dir, &st) < 0 ||
		    fstatat(dir, slash + 1, &at, AT_SYMLINK_NOFOLLOW) < 0)
			return changed_at(rule->path, err);
		if (hidden_ids_add(h, &at) < 0)
			goto full;
		/* up from the folder that holds it now, by "..", to the root */
		for (unsigned depth = 0; depth < SBX_PATH_MAX / 2; depth++) {
			int up;

			if (hidden_ids_add(h, &st) < 0)
				goto full;
			up = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (up < 0)
				return changed_at(rule->path, err);
			close(dir);
			dir = up;
			{
				struct stat ust;

				if (fstat(dir, &ust) < 0)
					return changed_at(rule->path, err);
				if (ust.st_dev == st.st_dev && ust.st_ino == st.st_ino)
					break; /* the root */
				st = ust;
			}
		}
	}
	return 0;
full:
	return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
	                     "more than %d hidden paths and folders above them to check",
	                     SBX_LL_MAX_HIDDEN_IDS);
}

/* landlock_restrict_self's EAGAIN is never the kernel's: a supervising parent sandbox
 * refused it, its table of Landlock domains full (either of a sub-worker's two layers). */
static int slots_full(struct sbx_error *err)
{
	int r = sbx_error_set(err, SBX_ERR_SETUP, EAGAIN,
	                      "cannot start the sub-sandbox: the parent sandbox's supervisor holds "
	                      "at most %d Landlock domains of its processes at once (two for each "
	                      "sub-worker), and all are in use",
	                      SBX_SUP_MAX_SUBS);

	sbx_error_hint(err, "let a sub-worker of the parent sandbox end first, or start fewer at "
	                    "once");
	return r;
}

int sbx_landlock_scope_signal(int abi, struct sbx_error *err)
{
	struct sbx_landlock_ruleset_attr attr = {.scoped = LANDLOCK_SCOPE_SIGNAL};
	int fd, r = 0;

	if (abi < 6)
		return 0;
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot create the worker's signal scope (Landlock): %s",
		                     strerror(errno));
	if (syscall(__NR_landlock_restrict_self, fd, 0) < 0)
		r = errno == EAGAIN
		        ? slots_full(err)
		        : sbx_error_set(err, SBX_ERR_SETUP, errno,
		                        "cannot scope the worker's signals (Landlock): %s",
		                        strerror(errno));
	close(fd);
	return r;
}

int sbx_landlock_enforce(const struct sbx_ll_plan *p, struct sbx_error *err)
{
	/* One ruleset for files, TCP (ABI 4) and scopes (ABI 6), restricted once: each sandbox
	 * layer adds exactly one Landlock domain (there are at most 16). */
	struct sbx_landlock_ruleset_attr attr = {
	    .handled_access_fs = p->handled_fs,
	    .handled_access_net = p->handled_net,
	    .scoped = p->scoped,
	};
	/* The attribute's size tells the kernel which fields we use: an older kernel rejects
	 * a larger one (E2BIG) unless the extra fields are zero, so pass what the ABI has. */
	size_t size = p->abi >= 6 ? sizeof(attr) : p->abi >= 4 ? 16 : 8;
	struct carved_base cb = {.fd = -1, .of = NULL};
	struct hidden_ids ids_store = {0}, *ids = &ids_store;
	int fd, r = 0;

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
	r = hidden_ids_collect(p, ids, err);
	for (size_t i = 0; r >= 0 && i < p->n_rules; i++) {
		const struct sbx_ll_rule *rule = &p->rules[i];
		struct landlock_path_beneath_attr pb = {0};
		struct stat st;
		bool have_st;
		int pfd;

		/* A hidden path has no rule: denied, and carved around (sbx_ll_expand). */
		if (rule->hidden || !(rule->access & p->handled_fs))
			continue;
		/* st: what the open found, where it looked (carved and no-follow rules) */
		have_st = !rule->follow;
		pfd = rule->base_len ? open_carved(rule, &cb, &st)
		      : rule->follow ? open(rule->path, O_PATH | O_CLOEXEC)
		                     : open_nofollow_st(rule->path, &st);
		if (pfd < 0 && !rule->base_len && !rule->follow && errno == ELOOP) {
			/* as the namespaces backend refuses such a mount source */
			r = sbx_error_set(err, SBX_ERR_SETUP, ELOOP,
			                  "%s is or passes through a symlink", rule->path);
			sbx_error_hint(err,
			               "sbx does not follow symlinks in mount sources, since a "
			               "worker may have planted them; name the real path if you "
			               "trust it, or remove the link");
			break;
		}
		if (pfd < 0) {
			/* An optional mount that was skipped: nothing there to grant. A carved
			 * entry gone, or turned into a symlink, since sbx listed it: nothing
			 * granted either (stricter). */
			if (errno == ENOENT ||
			    (rule->base_len &&
			     (errno == ELOOP || errno == EXDEV || errno == ENOTDIR)))
				continue;
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "Landlock rule for %s: cannot open it: %s", rule->path,
			                  strerror(errno));
			break;
		}
		/* a rule beside a hidden path is neither it nor a folder above it */
		if (!have_st)
			have_st = fstat(pfd, &st) == 0;
		if (rule->beside && ids->n && have_st && hidden_ids_has(ids, &st)) {
			close(pfd);
			r = changed_at(rule->path, err);
			break;
		}
		pb.parent_fd = pfd;
		pb.allowed_access = rule->access & p->handled_fs;
		/* A rule on anything but a directory takes only the rights that apply to a
		 * file; the others are about entries of a directory. */
		if (have_st && !S_ISDIR(st.st_mode))
			pb.allowed_access &= SBX_LL_FS_FILE;
		if (pb.allowed_access &&
		    syscall(__NR_landlock_add_rule, fd, SBX_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot add the Landlock rule for %s: %s", rule->path,
			                  strerror(errno));
		close(pfd);
	}
	if (cb.fd >= 0)
		close(cb.fd);
	/* TCP: handled with no bind rule, so every bind is denied; connect only to sbx's proxy
	 * (the landlock backend's allowlist), or to nothing. */
	for (size_t i = 0; r >= 0 && (p->handled_net & SBX_LL_NET_CONNECT_TCP) &&
	                   i < p->n_connect_ports && i < SBX_ARRAY_SIZE(p->connect_ports);
	     i++) {
		struct sbx_landlock_net_port_attr np = {
		    .allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
		    .port = p->connect_ports[i],
		};

		if (syscall(__NR_landlock_add_rule, fd, SBX_LANDLOCK_RULE_NET_PORT, &np, 0) < 0)
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot add the Landlock rule for TCP port %u (sbx's "
			                  "proxy): %s",
			                  p->connect_ports[i], strerror(errno));
	}
	if (r >= 0 && syscall(__NR_landlock_restrict_self, fd, 0) < 0) {
		if (errno == EAGAIN) {
			r = slots_full(err);
		} else {
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot enforce the Landlock ruleset: %s",
			                  strerror(errno));
		}
	}
	close(fd);
	free(ids->v);
	return r < 0 ? r : 0;
}

/* ---- the host's directories, for carving (sbx, before the worker exists) ---- */

static const unsigned long long beneath =
    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

/* base/rel: base as the profile names it (the mount's own path); beneath it, no symlink is
 * followed, so none planted there can redirect a rule. */
static int open_beneath(const char *base, const char *rel, int flags)
{
	_cleanup_close_ int b = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (b < 0)
		return -errno;
	if (!*rel)
		return sbx_openat2(b, ".", flags | O_CLOEXEC, beneath);
	return sbx_openat2(b, rel, flags | O_CLOEXEC | O_NOFOLLOW, beneath);
}

static enum sbx_ll_kind kind_of(mode_t mode)
{
	return S_ISDIR(mode) ? SBX_LL_DIR : S_ISLNK(mode) ? SBX_LL_LINK : SBX_LL_FILE;
}

static enum sbx_ll_kind host_kind(void *ctx, const char *base, const char *rel)
{
	_cleanup_close_ int fd = open_beneath(base, rel, O_PATH);
	struct stat st;

	(void)ctx;
	if (fd == -ENOENT || fd == -ENOTDIR)
		return SBX_LL_ABSENT;
	if (fd == -ELOOP && *rel) {
		/* The last component may be a symlink (matched as itself); one on the way
		 * means the path is not there as named. */
		_cleanup_free_ char *dir = strdup(rel);
		char *slash = dir ? strrchr(dir, '/') : NULL;
		_cleanup_close_ int dfd = -1;

		if (!dir)
			return SBX_LL_UNREADABLE;
		if (slash)
			*slash = '\0';
		dfd = slash ? open_beneath(base, dir, O_PATH | O_DIRECTORY)
		            : open_beneath(base, "", O_PATH | O_DIRECTORY);
		if (dfd == -ENOTDIR && slash) {
			/* O_PATH|O_NOFOLLOW opens a last link itself: is the folder one? */
			_cleanup_close_ int lfd = open_beneath(base, dir, O_PATH);

			if (lfd >= 0 && fstat(lfd, &st) == 0 && S_ISLNK(st.st_mode))
				return SBX_LL_VIA_LINK;
		}
		if (dfd < 0)
			return dfd == -ENOENT  ? SBX_LL_ABSENT
			       : dfd == -ELOOP ? SBX_LL_VIA_LINK
			                       : SBX_LL_UNREADABLE;
		if (fstatat(dfd, slash ? slash + 1 : rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT ? SBX_LL_ABSENT : SBX_LL_UNREADABLE;
		return kind_of(st.st_mode);
	}
	if (fd < 0 || fstat(fd, &st) < 0)
		return SBX_LL_UNREADABLE;
	return kind_of(st.st_mode);
}

static long host_list(void *ctx, const char *base, const char *rel, size_t max,
                      struct sbx_ll_entry **out)
{
	int fd = open_beneath(base, rel, O_RDONLY | O_DIRECTORY);
	struct sbx_ll_entry *v = NULL;
	size_t cap = 0;
	long n = 0;
	struct dirent *e;
	DIR *d;

	(void)ctx;
	*out = NULL;
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		struct sbx_ll_entry *en;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((size_t)n++ >= max)
			continue; /* counted only */
		if ((size_t)n > cap) {
			size_t c = cap ? cap * 2 : 64;
			struct sbx_ll_entry *g = realloc(v, c * sizeof(*g));

			if (!g) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = g;
			cap = c;
		}
		en = &v[n - 1];
		snprintf(en->name, sizeof(en->name), "%s", e->d_name);
		switch (e->d_type) {
		case DT_DIR:
			en->kind = SBX_LL_DIR;
			break;
		case DT_LNK:
			en->kind = SBX_LL_LINK;
			break;
		case DT_UNKNOWN: {
			struct stat st;

			en->kind = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
			               ? kind_of(st.st_mode)
			               : SBX_LL_UNREADABLE;
			break;
		}
		default:
			en->kind = SBX_LL_FILE;
			break;
		}
	}
	closedir(d);
	*out = v;
	return n;
}

const struct sbx_ll_host sbx_landlock_host = {.list = host_list, .kind = host_kind};
