/* SPDX-License-Identifier: MIT */
/*
 * One walk for all hide globs. Each bind mount that a glob's literal directory overlaps is
 * walked from the deepest directory every such glob needs, with openat and O_NOFOLLOW
 * (symlinks are never followed: a link is matched as itself); every entry's sandbox path is
 * tested against the globs whose last component matches its name first, so the cost grows
 * with the tree, hardly with the number of globs.
 *
 * Cache: a file named by a hash of the globs and mounts, holding every directory walked
 * (path, inode, change time) and the matches. It is used only if each directory still has
 * its inode and change time (adding, removing or renaming an entry changes a directory's
 * change time); otherwise the tree is walked again.
 */
#include "os/globwalk.h"
#include "os/fs.h"
#include "os/kapi.h"

#include "sbx/globwalk.h"

#include <dirent.h>
#include <linux/openat2.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "sbx/policy.h"

#define MAX_DEPTH SBX_GLOBWALK_MAX_DEPTH

/* A directory walked, in depth-first order: the first of each walk (depth 0) by its host
 * path, the others by their name in the directory before them at depth - 1. */
struct dirrec {
	char *name;
	unsigned depth;
	uint64_t ino;
	int64_t sec;
	long nsec;
};

/* How a glob's last component is tested against a name before the whole path is. */
enum last_kind {
	LAST_ANY = 0, /* holds '**': test the whole path */
	LAST_LITERAL, /* ".env": equal */
	LAST_SUFFIX,  /* "*.pem": ends with ".pem" */
	LAST_GLOB,    /* anything else: a glob match of the name */
};

struct glob {
	const char *pattern;    /* absolute sandbox glob */
	char lit[SBX_PATH_MAX]; /* its literal folder (literal_dir) */
	const char *last;       /* its last component */
	size_t last_len;
	enum last_kind kind;
	bool firm; /* a policy's: never given back by unhide */
};

struct walk {
	struct glob *globs;
	size_t n_globs;
	struct dirrec *dirs;
	size_t n_dirs, cap_dirs;
	char **matches;
	size_t n_matches, cap_matches;
	size_t entries;
	bool root_top; /* walking the top of a --root: sbx makes /proc and /dev itself */
	const struct sbx_spec *spec; /* its unhide entries give back what a soft glob matches */
	struct sbx_error *err;
};

static int push_str(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		char **g = realloc(*v, c * sizeof(*g));

		if (!g)
			return -ENOMEM;
		*v = g;
		*cap = c;
	}
	(*v)[*n] = strdup(s);
	if (!(*v)[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int push_dir(struct walk *w, const char *name, unsigned depth, const struct stat *st)
{
	if (w->n_dirs == w->cap_dirs) {
		size_t c = w->cap_dirs ? w->cap_dirs * 2 : 256;
		struct dirrec *g = realloc(w->dirs, c * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->dirs = g;
		w->cap_dirs = c;
	}
	w->dirs[w->n_dirs] = (struct dirrec){.name = strdup(name),
	                                     .depth = depth,
	                                     .ino = st->st_ino,
	                                     .sec = st->st_ctim.tv_sec,
	                                     .nsec = st->st_ctim.tv_nsec};
	if (!w->dirs[w->n_dirs].name)
		return -ENOMEM;
	w->n_dirs++;
	return 0;
}

/* Is sbx_path (whose last component is name) to be hidden: a firm glob matches it, or
 * another does and no unhide entry gives it back? */
static bool matches(const struct walk *w, const char *name, size_t nl, const char *sbx_path)
{
	bool soft = false;

	for (size_t i = 0; i < w->n_globs; i++) {
		const struct glob *g = &w->globs[i];

		switch (g->kind) {
		case LAST_LITERAL:
			if (nl != g->last_len || memcmp(name, g->last, nl) != 0)
				continue;
			break;
		case LAST_SUFFIX:
			if (nl < g->last_len - 1 || memcmp(name + nl - (g->last_len - 1),
			                                   g->last + 1, g->last_len - 1) != 0)
				continue;
			break;
		case LAST_GLOB:
			if (!sbx_glob_match(g->last, name))
				continue;
			break;
		case LAST_ANY:
			break;
		}
		if (!sbx_glob_match(g->pattern, sbx_path))
			continue;
		if (g->firm)
			return true;
		soft = true;
	}
	return soft && !sbx_spec_unhidden(w->spec, sbx_path);
}

/* Hide sbx[0..len) whole (the sandbox path of a folder or entry the walk cannot look into):
 * a match like any other, added once. */
static int hide_whole(struct walk *w, char *sbx, size_t len)
{
	char keep = sbx[len];
	int r;

	sbx[len] = '\0';
	/* beneath "/" the path is built as "//name" (walk_dir): one slash */
	r = push_str(&w->matches, &w->n_matches, &w->cap_matches,
	             !len                       ? "/"
	             : len > 1 && sbx[1] == '/' ? sbx + 1
	                                        : sbx);
	sbx[len] = keep;
	return r < 0 ? sbx_error_set(w->err, SBX_ERR_SETUP, ENOMEM, "out of memory") : 0;
}

/* A folder listed a moment ago is gone, or no longer a folder: another process moves
 * things beneath the walk (a sandbox beside this one renaming a folder back and forth), and
 * what it moves could be missed. Refused, never skipped. */
static int changed(struct walk *w, const char *sbx_path)
{
	int r = sbx_error_set(w->err, SBX_ERR_SETUP, EAGAIN,
	                      "%s changed while sbx looked for what the hide globs match",
	                      sbx_path[0] == '/' && sbx_path[1] == '/' ? sbx_path + 1 : sbx_path);

	sbx_error_hint(w->err, "another process moves folders there (a sandbox running beside "
	                       "this one?); run again once it has stopped");
	return r;
}

/*
 * A symbolic link on a glob's literal folder (`config` of config/\*.key, or the folder
 * itself): the walk never follows it, so nothing beneath would be hidden, while the path as
 * written (config/x.key) reaches what the link names. Refused, as an exact hide path through
 * a link is (sbx(1), --hide): the link may be the worker's.
 */
static int literal_link(struct walk *w, const char *sbx_path)
{
	for (size_t i = 0; i < w->n_globs; i++) {
		int r;

		if (!sbx_path_covers(sbx_path, w->globs[i].lit))
			continue;
		r = sbx_error_set(w->err, SBX_ERR_USAGE, ELOOP,
		                  "the hide glob %s passes through %s, a symbolic link",
		                  w->globs[i].pattern, sbx_path);
		sbx_error_hint(w->err,
		               "sbx never follows a link the worker could have planted, and what "
		               "a link names cannot be hidden through it: name the real folder in "
		               "the glob, or remove the link");
		return r;
	}
	return 0;
}

/*
 * Walk the directory open at fd, `name` in its parent (its host path for depth 0). Paths
 * are built in place: host[0..hlen) and sbx[0..slen) name this directory.
 */
static int walk_dir(struct walk *w, int fd, const char *name, unsigned depth, char *host,
                    size_t hlen, char *sbx, size_t slen)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int r = 0;

	/* What the walk cannot look into is hidden whole, never skipped: a folder the caller
	 * cannot list today (the worker owns it and can chmod it back), or one deeper than a
	 * cache records, could hold a match (fail closed; sbx-profile(5), HIDE GLOBS). */
	if (depth + 1 >= SBX_GLOBWALK_MAX_DEPTH || fstat(fd, &st) < 0) {
		close(fd);
		return hide_whole(w, sbx, slen);
	}
	if (push_dir(w, name, depth, &st) < 0) {
		close(fd);
		return sbx_error_set(w->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return hide_whole(w, sbx, slen);
	}
	while (r >= 0 && (e = readdir(d))) {
		const char *n = e->d_name;
		size_t nl;
		bool is_dir;

		if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
			continue;
		/* a root's own proc and dev are never shown (mounts.c, prepare_mirror) */
		if (depth == 0 && w->root_top && (!strcmp(n, "proc") || !strcmp(n, "dev")))
			continue;
		if (++w->entries > SBX_GLOBWALK_MAX_ENTRIES) {
			r = sbx_error_set(w->err, SBX_ERR_UNSUPPORTED, E2BIG,
			                  "the walk for hide globs passed %d entries",
			                  SBX_GLOBWALK_MAX_ENTRIES);
			sbx_error_hint(w->err, "give the globs a deeper literal directory "
			                       "(src/**/.env rather than **/.env)");
			break;
		}
		nl = strlen(n);
		if (hlen + nl + 2 >= SBX_PATH_MAX || slen + nl + 2 >= SBX_PATH_MAX) {
			/* An entry whose path is longer than a path can be is still reached by
			 * relative opens: this folder is hidden whole. */
			r = hide_whole(w, sbx, slen);
			break;
		}
		host[hlen] = '/';
		memcpy(host + hlen + 1, n, nl + 1);
		sbx[slen] = '/';
		memcpy(sbx + slen + 1, n, nl + 1);
		if (matches(w, n, nl, slen == 1 ? sbx + 1 : sbx)) {
			/* Hidden whole: nothing beneath needs looking at (a match given back
			 * is walked into, as any other directory). */
			if (push_str(&w->matches, &w->n_matches, &w->cap_matches,
			             slen == 1 ? sbx + 1 : sbx) < 0)
				r = sbx_error_set(w->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		} else {
			bool unknown = false, is_link = e->d_type == DT_LNK;

			is_dir = e->d_type == DT_DIR;
			if (e->d_type == DT_UNKNOWN) {
				struct stat est;

				unknown = fstatat(dirfd(d), n, &est, AT_SYMLINK_NOFOLLOW) < 0;
				is_dir = !unknown && S_ISDIR(est.st_mode);
				is_link = !unknown && S_ISLNK(est.st_mode);
			}
			if (unknown) {
				r = hide_whole(w, sbx, slen + 1 + nl);
			} else if (is_link) {
				r = literal_link(w, slen == 1 ? sbx + 1 : sbx);
			} else if (is_dir) {
				int sub = openat(dirfd(d), n,
				                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

				if (sub >= 0)
					r = walk_dir(w, sub, n, depth + 1, host, hlen + 1 + nl, sbx,
					             slen + 1 + nl);
				else if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
					r = changed(w, sbx);
				else
					r = hide_whole(w, sbx, slen + 1 + nl);
			}
		}
		host[hlen] = '\0';
		sbx[slen] = '\0';
	}
	closedir(d);
	return r;
}

/* The literal directory a glob starts with, unquoted (the glob "proj \[v1]/config/x*" starts
 * in the folder "proj [v1]/config"). */
static void literal_dir(const char *pattern, char *out, size_t size)
{
	size_t o = 0;
	char *slash;

	for (const char *c = pattern; *c && !strchr("*?[", *c) && o + 1 < size; c++) {
		if (*c == '\\') {
			if (!c[1])
				break;
			c++;
		}
		out[o++] = *c;
	}
	out[o] = '\0';
	slash = strrchr(out, '/');
	if (slash)
		out[slash == out ? 1 : (size_t)(slash - out)] = '\0';
}

/* The folder a walk starts from: the mount's source (as the mount builder opens it), then
 * rest beneath it with no symbolic link followed (-ELOOP: one is on the way). */
static int open_start(const char *source, const char *rest)
{
	_cleanup_close_ int base = open(source, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (base < 0)
		return -errno;
	return sbx_openat2(base, *rest ? rest : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

/* ---- the cache: a text file, one record a line; names are %-escaped ---- */

#define CACHE_HEADER SBX_GLOBWALK_CACHE_HEADER
#define needs_escape sbx_globwalk_needs_escape

static int put_escaped(char **buf, size_t *len, size_t *cap, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*len + 4 >= *cap) {
			size_t c = *cap ? *cap * 2 : 4096;
			char *g = realloc(*buf, c);

			if (!g)
				return -ENOMEM;
			*buf = g;
			*cap = c;
		}
		if (needs_escape(*p))
			*len += (size_t)snprintf(*buf + *len, 4, "%%%02x", *p);
		else
			(*buf)[(*len)++] = (char)*p;
	}
	(*buf)[*len] = '\0';
	return 0;
}

static int put_raw(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 >= *cap) {
		size_t c = (*cap ? *cap * 2 : 4096) + n;
		char *g = realloc(*buf, c);

		if (!g)
			return -ENOMEM;
		*buf = g;
		*cap = c;
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
	return 0;
}

/*
 * What a cache answers for: every glob, every bind mount, the root and every unhide entry,
 * in the spec's order, as key lines ("G GLOB" or "F GLOB" for a firm one, "B SOURCE TARGET",
 * "R ROOT", "U PATH"). The file repeats them and is used only
 * if they are the same, so that its name (a hash of them) never has to be trusted.
 */
static int cache_key(const struct sbx_spec *spec, char **out)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < spec->n_hide_globs; i++) {
		r = put_raw(&buf, &len, &cap, spec->hide_glob_firm[i] ? "F " : "G ");
		if (r >= 0)
			r = put_escaped(&buf, &len, &cap, spec->hide_globs[i]);
		if (r >= 0)
			r = put_raw(&buf, &len, &cap, "\n");
	}
	for (size_t i = 0; r >= 0 && i < spec->n_mounts; i++) {
		if (spec->mounts[i].kind != SBX_MOUNT_BIND)
			continue;
		r = put_raw(&buf, &len, &cap, "B ");
		if (r >= 0)
			r = put_escaped(&buf, &len, &cap, spec->mounts[i].source);
		if (r >= 0)
			r = put_raw(&buf, &len, &cap, " ");
		if (r >= 0)
			r = put_escaped(&buf, &len, &cap, spec->mounts[i].target);
		if (r >= 0)
			r = put_raw(&buf, &len, &cap, "\n");
	}
	if (r >= 0 && spec->root) {
		r = put_raw(&buf, &len, &cap, "R ");
		if (r >= 0)
			r = put_escaped(&buf, &len, &cap, spec->root);
		if (r >= 0)
			r = put_raw(&buf, &len, &cap, "\n");
	}
	for (size_t i = 0; r >= 0 && i < spec->n_unhide; i++) {
		r = put_raw(&buf, &len, &cap, "U ");
		if (r >= 0)
			r = put_escaped(&buf, &len, &cap, spec->unhide[i]);
		if (r >= 0)
			r = put_raw(&buf, &len, &cap, "\n");
	}
	if (r >= 0 && !buf)
		r = put_raw(&buf, &len, &cap, "");
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

static void put_path(FILE *f, const char *p)
{
	for (; *p; p++)
		if (needs_escape((unsigned char)*p))
			fprintf(f, "%%%02x", (unsigned char)*p);
		else
			fputc(*p, f);
}

/* Written to a private temporary file in the (trusted, private) cache directory, then renamed
 * into place, so that a reader never sees half a file. */
static void cache_write(const char *file, const char *key, const struct walk *w)
{
	char tmp[SBX_PATH_MAX + 16];
	FILE *f;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return; /* a cache that cannot be written only costs the next launch a walk */
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	fputs(CACHE_HEADER, f);
	fputs(key, f);
	for (size_t i = 0; i < w->n_dirs; i++) {
		fprintf(f, "D %u %llu %lld %ld ", w->dirs[i].depth,
		        (unsigned long long)w->dirs[i].ino, (long long)w->dirs[i].sec,
		        w->dirs[i].nsec);
		put_path(f, w->dirs[i].name);
		fputc('\n', f);
	}
	for (size_t i = 0; i < w->n_matches; i++) {
		fputs("M ", f);
		put_path(f, w->matches[i]);
		fputc('\n', f);
	}
	fputs("end\n", f);
	if (fclose(f) != 0 || rename(tmp, file) < 0)
		unlink(tmp);
}

struct check_job {
	const struct sbx_globwalk_dir *r;
	size_t from, to; /* [from, to): starts at depth 0 or 1 */
	bool ok;
};

/* Is the directory (by name in parent) still the same inode, unchanged? *fd_out gets an
 * O_PATH descriptor of it when want_fd (its subdirectories follow). One system call for a
 * leaf; statx asks only for what is compared. */
static bool still_same(int parent, const struct sbx_globwalk_dir *c, bool want_fd, int *fd_out)
{
	struct statx sx;
	int fd = -1;

	*fd_out = -1;
	if (want_fd) {
		fd = openat(parent, c->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return false;
	}
	if (statx(fd >= 0 ? fd : parent, fd >= 0 ? "" : c->name,
	          (fd >= 0 ? AT_EMPTY_PATH : 0) | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
	          STATX_TYPE | STATX_INO | STATX_CTIME, &sx) < 0 ||
	    !S_ISDIR(sx.stx_mode) || sx.stx_ino != c->ino || sx.stx_ctime.tv_sec != c->sec ||
	    sx.stx_ctime.tv_nsec != c->nsec) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	*fd_out = fd;
	return true;
}

static void *check_range(void *arg)
{
	struct check_job *j = arg;
	int stack[MAX_DEPTH];
	unsigned top = 0;

	j->ok = true;
	/* A range that starts beneath the root opens the root first. */
	if (j->r[j->from].depth == 1) {
		stack[0] = open(j->r[0].name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (stack[0] < 0) {
			j->ok = false;
			return NULL;
		}
		top = 1;
	}
	for (size_t i = j->from; i < j->to && j->ok; i++) {
		const struct sbx_globwalk_dir *c = &j->r[i];
		bool parent_of_next = i + 1 < j->to && j->r[i + 1].depth == c->depth + 1;
		int fd;

		while (top > c->depth)
			close(stack[--top]);
		if (c->depth != top || (c->depth == 0 && c->name[0] != '/') ||
		    !still_same(c->depth ? stack[c->depth - 1] : AT_FDCWD, c, parent_of_next, &fd))
			j->ok = false;
		else if (fd >= 0)
			stack[top++] = fd;
	}
	while (top > 0)
		close(stack[--top]);
	return NULL;
}

/*
 * True, with w->matches filled, if the cache holds a walk whose every directory is
 * unchanged: each checked by name in its parent, on as many threads as there are CPUs (up
 * to 4), split where a subtree of the walk's root begins. Only a file of the caller's,
 * private (0600 or less), with one link, not a symlink, and no larger than the cap is read;
 * sbx's directory that holds it is one no sandbox can see (src/os/state.c).
 */
static bool cache_read(const char *file, const char *key, struct walk *w)
{
	_cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	_cleanup_free_ char *buf = NULL;
	struct sbx_globwalk_cache c;
	struct check_job jobs[4];
	pthread_t th[4];
	size_t len = 0, n, n_jobs;
	struct stat st;
	bool ok = true;
	long cpus;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_nlink != 1 || st.st_size > SBX_GLOBWALK_CACHE_MAX)
		return false;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return false;
	while (len < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + len, (size_t)st.st_size - len);

		if (k <= 0)
			return false;
		len += (size_t)k;
	}
	buf[len] = '\0';
	if (sbx_globwalk_cache_parse(buf, len, key, &c) < 0)
		return false;
	for (size_t i = 0; i < c.n_matches; i++)
		if (push_str(&w->matches, &w->n_matches, &w->cap_matches, c.matches[i]) < 0) {
			sbx_globwalk_cache_clear(&c);
			return false;
		}
	n = c.n_dirs;

	/* Split into ranges that begin at a root (depth 0) or a child of one (depth 1). */
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	n_jobs = cpus < 1 ? 1 : cpus > 4 ? 4 : (size_t)cpus;
	for (size_t k = 0, from = 0; k < n_jobs; k++) {
		size_t to = k + 1 == n_jobs ? n : n * (k + 1) / n_jobs;

		while (to < n && c.dirs[to].depth > 1)
			to++;
		/* a range of depth-1 records needs its root to be the only one so far */
		if (to < n && c.dirs[to].depth == 1)
			for (size_t q = 1; q < to; q++)
				if (c.dirs[q].depth == 0)
					to = n; /* several roots: keep it simple, one range */
		jobs[k] = (struct check_job){.r = c.dirs, .from = from, .to = to};
		from = to;
		if (from >= n) {
			n_jobs = k + 1;
			break;
		}
	}
	for (size_t k = 1; k < n_jobs; k++)
		if (jobs[k].from < jobs[k].to &&
		    pthread_create(&th[k], NULL, check_range, &jobs[k]))
			jobs[k].to = jobs[k].from, jobs[k].ok = false, ok = false;
	check_range(&jobs[0]);
	for (size_t k = 1; k < n_jobs; k++)
		if (jobs[k].from < jobs[k].to)
			pthread_join(th[k], NULL);
	for (size_t k = 0; k < n_jobs; k++)
		if (jobs[k].from < jobs[k].to && !jobs[k].ok)
			ok = false;
	if (ok)
		w->n_dirs = n;
	sbx_globwalk_cache_clear(&c);
	return ok;
}

int sbx_globwalk_run(const struct sbx_spec *spec, const char *cache_dir,
                     struct sbx_globwalk_matches *out, struct sbx_globwalk_stats *stats,
                     struct sbx_error *err)
{
	struct walk w = {.err = err, .spec = spec};
	struct timespec t0, t1, c0, c1;
	char cache_file[SBX_PATH_MAX] = "";
	_cleanup_free_ char *key = NULL;
	uint64_t h = 1469598103934665603ull;
	int r = 0;

	memset(stats, 0, sizeof(*stats));
	memset(out, 0, sizeof(*out));
	if (spec->n_hide_globs == 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	w.globs = calloc(spec->n_hide_globs, sizeof(*w.globs));
	if (!w.globs)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	w.n_globs = spec->n_hide_globs;
	for (size_t i = 0; i < spec->n_hide_globs; i++) {
		const char *p = spec->hide_globs[i];
		const char *last = strrchr(p, '/') + 1;

		w.globs[i].pattern = p;
		literal_dir(p, w.globs[i].lit, sizeof(w.globs[i].lit));
		w.globs[i].firm = spec->hide_glob_firm[i];
		w.globs[i].last = last;
		w.globs[i].last_len = strlen(last);
		if (strstr(last, "**"))
			w.globs[i].kind = LAST_ANY;
		else if (sbx_glob_is_literal(last))
			w.globs[i].kind = LAST_LITERAL;
		else if (last[0] == '*' && sbx_glob_is_literal(last + 1))
			w.globs[i].kind = LAST_SUFFIX;
		else
			w.globs[i].kind = LAST_GLOB;
	}

	if (cache_dir) {
		r = cache_key(spec, &key);
		if (r < 0) {
			free(w.globs);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		h = fnv(h, key);
		snprintf(cache_file, sizeof(cache_file), "%s/globwalk-%016llx", cache_dir,
		         (unsigned long long)h);
		stats->cache_used = true;
		stats->cache_hit = cache_read(cache_file, key, &w);
	}
	if (!stats->cache_hit) {
		for (size_t i = 0; i < w.n_matches; i++)
			free(w.matches[i]);
		w.n_matches = 0;
		w.n_dirs = 0;
		/* Each bind mount, and the root (--root, or a nested sandbox's view of its
		 * parent's /), walked once from the shallowest directory any glob needs. */
		for (size_t i = 0; r >= 0 && i <= spec->n_mounts; i++) {
			const struct sbx_mount root = {
			    .kind = SBX_MOUNT_BIND, .source = spec->root, .target = (char *)"/"};
			const struct sbx_mount *m = i < spec->n_mounts ? &spec->mounts[i] : &root;
			char start[SBX_PATH_MAX] = "", dir[SBX_PATH_MAX];
			char host[SBX_PATH_MAX], sbx[SBX_PATH_MAX];
			int fd;

			if (m->kind != SBX_MOUNT_BIND || !m->source)
				continue;
			for (size_t g = 0; g < w.n_globs; g++) {
				literal_dir(w.globs[g].pattern, dir, sizeof(dir));
				if (sbx_path_covers(dir, m->target))
					snprintf(dir, sizeof(dir), "%s", m->target);
				else if (!sbx_path_covers(m->target, dir))
					continue;
				if (!start[0] || sbx_path_covers(dir, start))
					snprintf(start, sizeof(start), "%s", dir);
				else
					while (!sbx_path_covers(start, dir)) { /* common ancestor */
						char *sl = strrchr(start, '/');

						if (sl == start) {
							start[1] = '\0';
							break;
						}
						*sl = '\0';
					}
			}
			if (!start[0])
				continue;
			/* Another mount at or beneath this one is walked on its own. */
			snprintf(sbx, sizeof(sbx), "%s", start);
			snprintf(host, sizeof(host), "%s%s%s",
			         strcmp(m->source, "/") != 0 ? m->source : "",
			         sbx_path_rest(m->target, start)[0] ? "/" : "",
			         sbx_path_rest(m->target, start));
			if (!host[0])
				snprintf(host, sizeof(host), "/");
			fd = open_start(m->source, sbx_path_rest(m->target, start));
			if (fd == -ELOOP || fd == -EXDEV) {
				/* a link on the way from the mount's source to the folder */
				r = literal_link(&w, start);
				if (r == 0)
					r = sbx_error_set(
					    err, SBX_ERR_USAGE, ELOOP,
					    "a hide glob's folder %s passes through a "
					    "symbolic link",
					    start);
				continue;
			}
			if (fd < 0)
				errno = -fd;
			if (fd < 0 && (errno == EACCES || errno == EPERM)) {
				/* there, but not to be looked into: hidden whole */
				r = hide_whole(&w, sbx, strlen(sbx));
				continue;
			}
			if (fd < 0)
				continue; /* nothing there: nothing to hide */
			w.root_top = m == &root && strcmp(start, "/") == 0;
			r = walk_dir(&w, fd, host, 0, host, strlen(host), sbx, strlen(sbx));
		}
		if (r >= 0 && cache_file[0])
			cache_write(cache_file, key, &w);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	stats->cpu_ms =
	    (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
	stats->dirs = w.n_dirs;
	stats->entries = w.entries;
	stats->matches = w.n_matches;
	stats->ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	for (size_t i = 0; i < w.n_dirs && !stats->cache_hit; i++)
		free(w.dirs[i].name);
	free(w.dirs);
	free(w.globs);
	/* what to hide is the spec's business (sbx_spec_add_hides): the walk only finds it */
	out->paths = w.matches;
	out->n = w.n_matches;
	if (r < 0)
		sbx_globwalk_matches_clear(out);
	return r < 0 ? r : 0;
}
