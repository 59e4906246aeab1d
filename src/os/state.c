/* SPDX-License-Identifier: MIT */
/*
 * sbx's own state on the host, kept out of every sandbox (src/os/state.h says why and
 * how). Everything here is looked at by identity (st_dev, st_ino): a path can be reached by
 * many names, a directory has one identity.
 */

#include "os/state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "os/registry.h"

#define MAX_CHAIN 512 /* directories between the cache and '/' (a path has fewer) */

struct ident {
	dev_t dev;
	ino_t ino;
};

static bool same(const struct stat *st, const struct ident *id)
{
	return st->st_dev == id->dev && st->st_ino == id->ino;
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* mkdir -p, each directory it makes private (0700). */
static int make_dirs(const char *dir)
{
	char p[SBX_PATH_MAX];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	return mkdir(p, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

/*
 * Where the cache is, as the host sees it: the identities of the deepest directory of `dir`
 * that exists (chain[0]) and of each directory above it up to '/' (found by "..", so that no
 * name can lie), their names (the components of its real path: names[i] names chain[i] in
 * chain[i + 1]), and the components of `dir` that do not exist yet (`tail`).
 */
struct place {
	struct ident chain[MAX_CHAIN];
	char *names[MAX_CHAIN];
	size_t n; /* entries of chain; chain[n - 1] is '/' */
	char real[SBX_PATH_MAX];
	char tail[SBX_PATH_MAX]; /* "" or "/a/b" */
	bool exists;             /* chain[0] is dir itself */
	bool consistent;         /* the names and the identities agree (nothing moved meanwhile) */
};

static int locate(const char *dir, struct place *pl)
{
	char probe[SBX_PATH_MAX], comps[SBX_PATH_MAX];
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t ncomp = 0;
	char *comp[MAX_CHAIN];

	/* what the walk reads of a place it reuses (the chain beyond n is never read) */
	pl->n = 0;
	pl->exists = pl->consistent = false;
	pl->real[0] = pl->tail[0] = '\0';
	memset(pl->names, 0, sizeof(pl->names));
	snprintf(probe, sizeof(probe), "%s", dir);
	/* the deepest part that exists */
	while (stat(probe, &st) < 0) {
		char *slash = strrchr(probe, '/');
		char t[SBX_PATH_MAX];
		int e = errno;

		if (e != ENOENT || !slash || slash == probe)
			return -e;
		snprintf(t, sizeof(t), "%s%s", slash, pl->tail);
		snprintf(pl->tail, sizeof(pl->tail), "%s", t);
		*slash = '\0';
	}
	pl->exists = !pl->tail[0];
	if (!realpath(probe, pl->real))
		return -errno;
	fd = open(pl->real, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* identities, up through ".." */
	for (;;) {
		int up;
		struct stat ust;

		if (pl->n == MAX_CHAIN || fstat(fd, &st) < 0)
			return -ELOOP;
		pl->chain[pl->n++] = (struct ident){st.st_dev, st.st_ino};
		up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0)
			return -errno;
		if (fstat(up, &ust) < 0 || (ust.st_dev == st.st_dev && ust.st_ino == st.st_ino)) {
			close(up);
			break; /* '/' is its own parent */
		}
		close(fd);
		fd = up;
	}
	/* names, from the real path; they must name the same directories */
	snprintf(comps, sizeof(comps), "%s", pl->real);
	for (char *s = strtok(comps, "/"); s && ncomp < MAX_CHAIN; s = strtok(NULL, "/"))
		comp[ncomp++] = s;
	pl->consistent = ncomp + 1 == pl->n;
	for (size_t i = 0; pl->consistent && i < ncomp; i++) {
		char prefix[SBX_PATH_MAX];
		size_t len = 0;

		/* the prefix of ncomp - i components names chain[i] */
		for (size_t j = 0; j < ncomp - i; j++)
			len += (size_t)snprintf(prefix + len, sizeof(prefix) - len, "/%s", comp[j]);
		pl->consistent = lstat(prefix, &st) == 0 && same(&st, &pl->chain[i]);
	}
	for (size_t i = 0; i < ncomp && i + 1 < pl->n; i++) {
		pl->names[i] = strdup(comp[ncomp - 1 - i]);
		if (!pl->names[i])
			return -ENOMEM;
	}
	return 0;
}

static void place_clear(struct place *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->names[i]);
}

/*
 * A mount's source (the spec's binds, the root, the system mounts), looked at once for every
 * directory of sbx's state: its identity, and for a bind of something that may lie beneath
 * one of them, the identities of the directories above it up to '/', found by ".." so that
 * no name can lie (walked when first needed).
 */
struct source {
	const char *path, *target;
	bool follow;   /* a system mount: its path followed (stat), as the mount follows it */
	bool present;  /* it exists (else it shows nothing: an optional mount, say) */
	bool readonly; /* a read-only bind, or a system mount */
	struct stat st;
	int walked; /* 0: not yet; 1: up to '/'; -1: cannot tell (an error on the way) */
	struct ident *up;
	size_t n_up;
};

/* The sandbox paths where the cache is seen, gathered for the caller to pin
 * (sbx_spec_add_pins); `fresh` counts those the spec does not pin already. */
struct found {
	const struct sbx_spec *spec;
	struct sbx_state_pins *pins;
	size_t fresh;
	struct source *src; /* every mount source, looked at once for all the directories */
	size_t n_src;
	struct place *pl;   /* one, reused by each directory (locate resets it) */
	bool writable_only; /* look only where a writable mount shows the directory */
};

static int pin(struct found *f, const char *path, struct sbx_error *err)
{
	_cleanup_free_ char *norm = NULL;
	char **grown;
	int r = sbx_path_absolute(path, "/", &norm, err);

	if (r < 0)
		return r;
	for (size_t i = 0; i < f->pins->n; i++)
		if (strcmp(f->pins->paths[i], norm) == 0)
			return 0;
	grown = realloc(f->pins->paths, (f->pins->n + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	f->pins->paths = grown;
	f->fresh++;
	for (size_t i = 0; i < f->spec->n_pin; i++)
		if (strcmp(f->spec->pin[i], norm) == 0)
			f->fresh--;
	f->pins->paths[f->pins->n++] = TAKE_PTR(norm);
	return 0;
}

void sbx_state_pins_clear(struct sbx_state_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->paths[i]);
	free(p->paths);
	p->paths = NULL;
	p->n = 0;
}

/* Hide the cache at target + the names of chain[k - 1] .. chain[0] + the missing tail:
 * where a mount whose source is chain[k] shows it. */
static int hide_at(struct found *f, const char *target, const struct place *pl, size_t k,
                   struct sbx_error *err)
{
	char path[SBX_PATH_MAX * 2];
	size_t len = (size_t)snprintf(path, sizeof(path), "%s", strcmp(target, "/") ? target : "");

	for (size_t i = k; i > 0 && len < sizeof(path); i--)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/%s",
		                        pl->names[i - 1] ? pl->names[i - 1] : "?");
	if (len < sizeof(path))
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s", pl->tail);
	if (len >= SBX_PATH_MAX)
		return sbx_error_set(
		    err, SBX_ERR_SETUP, ENAMETOOLONG,
		    "a directory of sbx's own state is seen in the sandbox at a path longer "
		    "than %d bytes beneath %s",
		    SBX_PATH_MAX, target);
	return pin(f, path[0] ? path : "/", err);
}

/* Walk up from src (a directory) or its parent, recording each directory's identity. */
static void walk_up(struct source *src)
{
	_cleanup_close_ int fd = -1;

	src->walked = 1;
	if (S_ISDIR(src->st.st_mode)) {
		fd = open(src->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		char parent[SBX_PATH_MAX];
		char *slash;

		snprintf(parent, sizeof(parent), "%s", src->path);
		slash = strrchr(parent, '/');
		if (!slash)
			return;
		slash[slash == parent] = '\0';
		fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return; /* nothing to walk: shown by no name beneath the cache */
	src->up = calloc(MAX_CHAIN, sizeof(*src->up));
	if (!src->up) {
		src->walked = -1;
		return;
	}
	for (;;) {
		int up;
		struct stat st, ust;

		if (src->n_up == MAX_CHAIN || fstat(fd, &st) < 0) {
			src->walked = -1; /* deeper than any path, or cannot tell */
			return;
		}
		src->up[src->n_up++] = (struct ident){st.st_dev, st.st_ino};
		up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0 || fstat(up, &ust) < 0) {
			if (up >= 0)
				close(up);
			src->walked = -1;
			return;
		}
		close(fd);
		fd = up;
		if (ust.st_dev == st.st_dev && ust.st_ino == st.st_ino)
			return; /* '/' reached */
	}
}

/* Is the cache directory (chain[0], when it exists) at or above the host path of src? Where
 * that cannot be told, yes: it is hidden, stricter. */
static bool beneath_cache(struct source *src, const struct place *pl)
{
	if (!pl->exists || src->st.st_dev != pl->chain[0].dev)
		return false;
	if (!src->walked)
		walk_up(src);
	for (size_t i = 0; i < src->n_up; i++)
		if (src->up[i].dev == pl->chain[0].dev && src->up[i].ino == pl->chain[0].ino)
			return true;
	return src->walked < 0;
}

/* One mount (or the root, or a system mount) of the sandbox: where does it show the cache? */
static int guard_one(struct found *f, struct source *src, const struct place *pl,
                     struct sbx_error *err)
{
	if (!src->present || (f->writable_only && src->readonly))
		return 0; /* nothing there: nothing shown (an optional mount, say) */
	for (size_t k = 0; k < pl->n; k++)
		if (same(&src->st, &pl->chain[k]))
			return hide_at(f, src->target, pl, k, err);
	/* a mount of something beneath the cache shows only the cache: hidden whole */
	if (!src->follow && beneath_cache(src, pl))
		return pin(f, src->target, err);
	return 0;
}

/* Find the cache wherever a mount (the spec's binds, the root, the system mounts) shows it;
 * the paths found so far grow in f->pins. */
static int guard_all(struct found *f, const struct place *pl, struct sbx_error *err)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < f->n_src; i++)
		r = guard_one(f, &f->src[i], pl, err);
	return r;
}

/* Every mount source, looked at once (struct source). */
static int sources_gather(struct found *f, const struct sbx_host *host, struct sbx_error *err)
{
	const struct sbx_spec *spec = f->spec;
	size_t max = spec->n_mounts + 1 + host->n_entries;

	f->src = calloc(max, sizeof(*f->src));
	if (!f->src)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < spec->n_mounts; i++)
		if (spec->mounts[i].kind == SBX_MOUNT_BIND)
			f->src[f->n_src++] = (struct source){.path = spec->mounts[i].source,
			                                     .target = spec->mounts[i].target,
			                                     .readonly = spec->mounts[i].readonly};
	if (spec->root)
		f->src[f->n_src++] = (struct source){.path = spec->root, .target = "/"};
	for (size_t i = 0; spec->system_mounts == SBX_SYSMOUNTS_DEFAULT && i < host->n_entries; i++)
		if (host->entries[i].kind != SBX_HOST_ABSENT)
			f->src[f->n_src++] = (struct source){.path = host->entries[i].path,
			                                     .target = host->entries[i].path,
			                                     .follow = true,
			                                     .readonly = true};
	for (size_t i = 0; i < f->n_src; i++) {
		struct source *s = &f->src[i];

		s->present = (s->follow ? stat(s->path, &s->st) : lstat(s->path, &s->st)) == 0;
	}
	return 0;
}

static void sources_clear(struct found *f)
{
	for (size_t i = 0; i < f->n_src; i++)
		free(f->src[i].up);
	free(f->src);
	f->src = NULL;
	f->n_src = 0;
}

/*
 * Guard one directory of sbx's state: find where mounts show it (f->pins), and make it first
 * (when `create`) if it is missing and a mount shows where it would be, or `needed` (the cache
 * a walk will use). *trusted: it exists, is the caller's, private, and was reached by names
 * that agree with what ".." found.
 */
static int guard_dir(struct found *f, const struct sbx_host *host, const char *dir, bool create,
                     bool needed, bool *trusted, struct sbx_error *err)
{
	struct place *pl = f->pl;
	struct stat st;
	size_t fresh = f->fresh;
	int r;

	*trusted = false;
	r = locate(dir, pl);
	if (r == -ENOMEM) {
		place_clear(pl);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	if (r < 0) {
		place_clear(pl);
		return 0; /* no part of it can be looked at: nothing a mount shows */
	}
	/* Where it is, or would be if it is not there yet (a path hidden where it does not
	 * exist is one a worker could make). */
	r = guard_all(f, pl, err);
	/* sbx makes it when it will use it, or when a mount shows where it would be, so that no
	 * worker makes it first and plants a cache or a profile there; a launch that needs
	 * neither writes nothing. If it cannot be made, no worker can make it either. */
	if (r >= 0 && create && !pl->exists && (needed || f->fresh > fresh)) {
		(void)make_dirs(dir);
		/* a source that was missing may be what was just made */
		for (size_t i = 0; i < f->n_src; i++) {
			struct source *src = &f->src[i];

			if (!src->present)
				src->present = (src->follow ? stat(src->path, &src->st)
				                            : lstat(src->path, &src->st)) == 0;
		}
		place_clear(pl);
		if (locate(dir, pl) < 0)
			pl->exists = false;
		else
			r = guard_all(f, pl, err);
	}
	/* Only a directory of the caller's, private, reached without a symlink at its end and
	 * by names that agree with what ".." found, is one sbx trusts. */
	*trusted = r >= 0 && pl->exists && pl->consistent && lstat(dir, &st) == 0 &&
	           S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0 &&
	           same(&st, &pl->chain[0]);
	place_clear(pl);
	return r;
}

/* base/rest, normalised, guarded as a directory of sbx's state (trusted: see guard_dir). */
static int guard_under(struct found *f, const struct sbx_host *host, const char *base,
                       const char *rest, bool create, bool needed, bool *trusted, char **path_out,
                       struct sbx_error *err)
{
	_cleanup_free_ char *raw = NULL, *dir = NULL;
	bool ignored;
	int r;

	if (!base || base[0] != '/')
		return 0;
	if (asprintf(&raw, "%s%s", base, rest) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_path_absolute(raw, "/", &dir, err);
	if (r >= 0)
		r = guard_dir(f, host, dir, create, needed, trusted ? trusted : &ignored, err);
	if (r >= 0 && path_out)
		*path_out = TAKE_PTR(dir);
	return r;
}

int sbx_state_guard(const struct sbx_spec *spec, const struct sbx_host *host, bool create,
                    struct sbx_state_pins *pins, char **cache_dir, struct sbx_error *err)
{
	const char *home = env_get(host->environ, "HOME");
	const char *xdg_config = env_get(host->environ, "XDG_CONFIG_HOME");
	const char *xdg_cache = env_get(host->environ, "XDG_CACHE_HOME");
	const char *spp = env_get(host->environ, "SBX_PROFILE_PATH");
	_cleanup_free_ char *dir = NULL;
	struct found f = {.spec = spec, .pins = pins};
	bool trusted = false;
	int r;

	memset(pins, 0, sizeof(*pins));
	if (cache_dir)
		*cache_dir = NULL;
	f.pl = malloc(sizeof(*f.pl));
	if (!f.pl)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sources_gather(&f, host, err);
	if (r < 0) {
		free(f.pl);
		return r;
	}
	/*
	 * The folders where sbx finds profiles and policies of its own accord: a worker that
	 * wrote one there would choose the next sandbox's mounts (a profile named like a shipped
	 * one shadows it). Which of them a later sbx reads depends on its own environment, not
	 * on this run's, so every one is guarded: ~/.config/sbx and $XDG_CONFIG_HOME/sbx both,
	 * each folder of SBX_PROFILE_PATH, and /etc/sbx. The caller's are made when a mount
	 * shows where they would be; /etc/sbx is root's, and only root's sbx makes it.
	 */
	r = guard_under(&f, host, home, "/.config/sbx", create, false, NULL, NULL, err);
	if (r >= 0)
		r = guard_under(&f, host, xdg_config, "/sbx", create, false, NULL, NULL, err);
	for (const char *p = spp; r >= 0 && p && *p;) {
		size_t n = strcspn(p, ":");
		char one[SBX_PATH_MAX];

		if (n && n < sizeof(one)) {
			memcpy(one, p, n);
			one[n] = '\0';
			r = guard_under(&f, host, one, "", create, false, NULL, NULL, err);
		}
		p += n + (p[n] == ':');
	}
	if (r >= 0)
		r = guard_dir(&f, host, "/etc/sbx", create && host->euid == 0, false, &trusted,
		              err);
	/* and the installed profiles, only where a writable mount shows them (they are the
	 * system's, and nothing there is secret). A build tree's profiles/ is not on the search
	 * path at all (an outside attack edited the checkout's ci-job.yaml from a sandbox of the
	 * checkout, and the next -p ci-job of a build-tree sbx ran with the host's network) */
	f.writable_only = true;
	if (r >= 0)
		r = guard_under(&f, host, SBX_DATADIR, "/profiles", false, false, NULL, NULL, err);
	f.writable_only = false;
	/* The runtime directories, where sbx ps, inspect and kill read which pid is which
	 * sandbox (os/registry.h): a worker that wrote a record there could list a sandbox that
	 * is not one, and one that read them would see other sandboxes' commands. Every place a
	 * later sbx might use is guarded; the caller's are made first where a mount shows where
	 * they would be (/run/user/UID is the session's, and is never made here). The last
	 * place, run-BOOT in sbx's cache directory, is hidden with the cache (below). */
	if (r >= 0) {
		char *places[SBX_REGISTRY_PLACES];

		sbx_registry_places(host->environ, host->euid, places);
		for (size_t i = 0; i < SBX_REGISTRY_PLACES; i++) {
			if (r >= 0 && places[i])
				r = guard_under(&f, host, places[i], "", create && i != 2, false,
				                NULL, NULL, err);
			free(places[i]);
		}
	}
	/* The glob walk's cache, which a later launch trusts to know what to hide: both places
	 * are guarded (a later run may look in the other), the one this run uses is made when a
	 * walk needs it and used if sbx trusts it. */
	trusted = false;
	if (r >= 0 && xdg_cache && xdg_cache[0] == '/') {
		r = guard_under(&f, host, home, "/.cache/sbx", create, false, NULL, NULL, err);
		if (r >= 0)
			r = guard_under(&f, host, xdg_cache, "/sbx", create, spec->n_hide_globs > 0,
			                &trusted, &dir, err);
	} else if (r >= 0) {
		r = guard_under(&f, host, home, "/.cache/sbx", create, spec->n_hide_globs > 0,
		                &trusted, &dir, err);
	}
	sources_clear(&f);
	free(f.pl);
	if (r < 0) {
		sbx_state_pins_clear(pins);
		return r;
	}
	if (trusted && cache_dir)
		*cache_dir = TAKE_PTR(dir);
	return 0;
}
