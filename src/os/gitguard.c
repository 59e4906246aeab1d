/* SPDX-License-Identifier: MIT */
/*
 * git's control surface (src/os/gitguard.h): what in a repository can make git run a
 * program, and which of it exists at launch.
 *
 * git finds hooks in hooks/ or where core.hooksPath says, and runs programs the config names
 * (core.fsmonitor, core.sshCommand, core.editor, aliases with '!', filter, diff and merge
 * drivers, credential helpers, include.path pulling in more config). It reads the config of
 * the common dir (commondir redirects it, hooks and refs to another git dir), and
 * config.worktree when extensions.worktreeConfig is set. info/attributes only selects drivers
 * that a config defines, so it runs nothing by itself. Submodules keep their git dirs in
 * modules/, linked worktrees in worktrees/ (each with commondir and gitdir), and a checkout
 * whose .git is a file follows its "gitdir:" line.
 *
 * Everything here only reads the host: directories are opened without following symlinks.
 */

#include "os/gitguard.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "sbx/sha.h"
#include "os/fs.h"

/* What one survey looks at; past any of these it refuses (fail closed: an entry it did not
 * look at would be an unguarded git dir), and says so (surveyed_too_much). */
#define GIT_MAX_DEPTH   8    /* git dirs within git dirs (submodules of submodules) */
#define GIT_MAX_ENTRIES 4096 /* entries of modules/ or worktrees/, links in hooks/ */
#define GIT_MAX_GUARDS  4096 /* guards one survey adds (each a mount) */

static const char why_pin[] = "git directory, pinned: it cannot be renamed or replaced";
static const char why_ro[] = "git control file";

#define GIT_MAX_VISITED    1024  /* git dirs surveyed by one survey */
#define GIT_MAX_NAME_DEPTH 64    /* folders of module names within one another */
#define GIT_MAX_NAME_DIRS  65536 /* folders of module names in all */

static int too_much(struct sbx_error *err, const char *what, const char *where, int limit)
{
	sbx_error_set(err, SBX_ERR_UNSUPPORTED, E2BIG,
	              "git: %s %s: more than %d, which sbx cannot all guard", what, where, limit);
	sbx_error_hint(err, "if a sandbox made them (sbx names what appeared after a run), remove "
	                    "them; else mount less of the repository, or, knowing that nothing of "
	                    "git's is guarded then, use a profile with protect_git: false");
	return -E2BIG;
}

struct survey {
	int top_depth;                  /* submodules' checkouts surveyed within one another */
	char *visited[GIT_MAX_VISITED]; /* "host\nsandbox" of each view of a git dir surveyed */
	size_t n_visited;
	const struct sbx_plan *plan;
	const struct sbx_spec *spec;
	const char *checkout_of; /* a git dir a checkout's .git file names (gitdir: .bare) ... */
	const char *checkout;    /* ... and that checkout, for its review (host paths) */
	struct sbx_gitguard *out;
	bool *absent_pinned; /* parallel to out->absent: inside a pinned git dir */
	int include_depth;   /* config files included within one another (git stops at 10) */
	bool globals_seen;   /* the user's and the system's configs were read */
	size_t n_checked;    /* files and folders looked at for hard links (check_links) */
	size_t n_name_dirs;  /* folders of module names looked in (survey_modules) */
	char *walked_index;  /* the index review_add walked last, and its gitlinks */
	char *walked_links;
	struct sbx_error *err;
};

void sbx_gitguard_clear(struct sbx_gitguard *g)
{
	free(g->unseen);
	free(g->unscanned);
	for (size_t i = 0; i < g->n_scanned; i++)
		free(g->scanned[i]);
	free(g->scanned);
	for (size_t i = 0; i < g->n_absent; i++) {
		free(g->absent[i]);
		if (g->absent_link)
			free(g->absent_link[i]);
	}
	free(g->absent_link);
	free(g->absent);
	free(g->absent_pinned);
	for (size_t i = 0; i < g->n_appear; i++)
		free(g->appear[i]);
	free(g->appear);
	for (size_t i = 0; i < g->n_heads; i++)
		free(g->heads[i]);
	free(g->heads);
	for (size_t i = 0; i < g->n_indexes; i++) {
		free(g->indexes[i]);
		free(g->links[i]);
	}
	free(g->indexes);
	free(g->links);
	for (size_t i = 0; i < g->n_watch; i++) {
		free(g->watch[i]);
		free(g->seen[i]);
	}
	free(g->watch);
	free(g->seen);
	for (size_t i = 0; i < g->n_unprotected; i++)
		free(g->unprotected[i]);
	free(g->unprotected);
	for (size_t i = 0; i < g->n_fresh; i++)
		free(g->fresh[i]);
	free(g->fresh);
	for (size_t i = 0; i < g->n_guarded; i++)
		free(g->guards[i].path);
	free(g->guards);
	for (size_t i = 0; i < g->n_reviews; i++) {
		free(g->reviews[i].gitdir);
		free(g->reviews[i].worktree);
		free(g->reviews[i].entries);
		for (size_t k = 0; k < SBX_GIT_REVIEW; k++)
			free(g->reviews[i].part[k]);
	}
	free(g->reviews);
	memset(g, 0, sizeof(*g));
}

static int push(char ***v, size_t n, char *s)
{
	char **grown = realloc(*v, (n + 1) * sizeof(*grown));

	if (!grown) {
		free(s);
		return -ENOMEM;
	}
	*v = grown;
	grown[n] = s;
	return 0;
}

static int add_absent(struct survey *s, const char *host, bool pinned)
{
	struct sbx_gitguard *g = s->out;
	bool *grown;
	char *copy = strdup(host);

	for (size_t i = 0; copy && i < g->n_absent; i++)
		if (strcmp(g->absent[i], host) == 0) {
			free(copy);
			return 0;
		}
	grown = copy ? realloc(g->absent_pinned, (g->n_absent + 1) * sizeof(*grown)) : NULL;
	if (grown)
		g->absent_pinned = grown;
	else
		free(copy);
	if (grown) {
		char **links = realloc(g->absent_link, (g->n_absent + 1) * sizeof(*links));

		if (!links) {
			free(copy);
			return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		g->absent_link = links;
		g->absent_link[g->n_absent] = NULL;
		{
			char text[SBX_PATH_MAX];
			ssize_t n = readlink(host, text, sizeof(text) - 1);

			if (n > 0) {
				text[n] = '\0';
				g->absent_link[g->n_absent] = strdup(text);
			}
		}
	}
	if (!grown || push(&g->absent, g->n_absent, copy) < 0)
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	g->absent_pinned[g->n_absent++] = pinned;
	return 0;
}

/* A host path to look at after the run (appear: if it exists then; heads: if still valid). */
static int add_later(struct survey *s, char ***v, size_t *n, const char *host)
{
	char *copy = strdup(host);

	if (!copy || push(v, *n, copy) < 0)
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	(*n)++;
	return 0;
}

/* A guard for the caller to add to the spec (sbx_spec_add_guard, in core). */
static int guard(struct survey *s, const char *sandbox, bool readonly)
{
	struct sbx_gitguard *g = s->out;
	struct sbx_gitguard_bind *grown;
	char *copy;

	if (g->n_guarded >= GIT_MAX_GUARDS)
		return too_much(s->err, "files and folders of git's to guard, at", sandbox,
		                GIT_MAX_GUARDS);
	copy = strdup(sandbox);
	grown = copy ? realloc(g->guards, (g->n_guarded + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	g->guards = grown;
	g->guards[g->n_guarded++] = (struct sbx_gitguard_bind){
	    .path = copy, .readonly = readonly, .why = readonly ? why_ro : why_pin};
	return 0;
}

/* A directory, opened without following any symlink. */
static int open_dir(const char *host)
{
	return sbx_openat2(AT_FDCWD, host, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	                   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/* The start of a small file in dir (size - 1 bytes at most), NUL-terminated in buf; false if
 * it cannot be read or is empty. Never follows a symlink at name. */
static bool read_small(int dir, const char *name, char *buf, size_t size)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* The first line of a small file in dir (a gitdir: or commondir file), trimmed. */
static bool read_line(int dir, const char *name, char *buf, size_t size)
{
	size_t n;

	if (!read_small(dir, name, buf, size))
		return false;
	buf[strcspn(buf, "\r\n")] = '\0';
	for (n = strlen(buf); n > 0 && isspace((unsigned char)buf[n - 1]); n--)
		buf[n - 1] = '\0';
	return buf[0] != '\0';
}

/* The first 64 KiB of dir's config, lower-cased, in buf (size bytes); false if none. A git
 * dir's config is read only to decide what else to guard, never to trust it: a word found
 * anywhere counts (stricter). */
static bool read_config_lower(int dir, char *buf, size_t size)
{
	if (!read_small(dir, "config", buf, size))
		return false;
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return true;
}

/* The sandbox path that shows host path h through a writable bind of the plan, if any. */
static bool host_to_sandbox(const struct sbx_plan *plan, const char *h, char *out, size_t size)
{
	const struct sbx_plan_op *best = NULL;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if ((o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_MIRROR) ||
		    (o->flags & (SBX_PLAN_F_GUARD | SBX_PLAN_F_SYSTEM)) || !o->source ||
		    !sbx_path_covers(o->source, h))
			continue;
		if (!best || strlen(o->source) > strlen(best->source))
			best = o;
	}
	if (!best || (best->flags & SBX_PLAN_F_READONLY))
		return false;
	{
		const char *rest = sbx_path_rest(best->source, h);
		int n = snprintf(out, size, "%s%s%s", best->target,
		                 *rest && strcmp(best->target, "/") ? "/" : "", rest);

		if (n < 0 || (size_t)n >= size)
			return false;
	}
	/* shown there, not beneath a deeper mount or a mask */
	return sbx_plan_guarded_by(plan, out) == best;
}

enum gitdir_kind { GITDIR_MAIN, GITDIR_MODULE, GITDIR_WORKTREE };

static int survey_gitdir(struct survey *s, const char *sandbox, const char *host,
                         enum gitdir_kind kind, bool pinned, int depth);
static int review_add(struct survey *s, int gitdir, const char *host);
static int survey_nested(struct survey *s, const char *top, const char *sandbox, const char *host,
                         int dir, int depth, size_t *budget);
static int survey_top(struct survey *s, const char *sandbox, bool workspace);

/* "." or "..", which a directory's listing gives beside its entries */
static bool dot_name(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* A stream over a directory descriptor that stays ours; dup shares the offset, so rewind. */
static DIR *list_dir(int dir)
{
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	if (d)
		rewinddir(d);
	return d;
}

/* Record a folder's entries, to name what appears there during the run. */
static int watch_dir(struct survey *s, int dir, const char *host)
{
	struct sbx_gitguard *g = s->out;
	DIR *d = list_dir(dir);
	struct dirent *de;
	size_t len = 0, cap = 256;
	char *seen = malloc(cap), *copy = strdup(host);
	int r = 0;

	if (!d || !seen || !copy) {
		if (d)
			closedir(d);
		free(seen);
		free(copy);
		return d ? sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory") : 0;
	}
	/* "/NAME/NAME/": a name holds no '/', so "/NAME/" finds exactly that name (a '\n'
	 * separator would let "wx\nwy" pass for two names seen at launch) */
	seen[0] = '/';
	seen[1] = '\0';
	len = 1;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (len + n + 2 > cap) {
			char *grown = realloc(seen, cap * 2 + n);

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			seen = grown;
			cap = cap * 2 + n;
		}
		memcpy(seen + len, de->d_name, n);
		len += n;
		seen[len++] = '/';
		seen[len] = '\0';
	}
	closedir(d);
	if (r >= 0) {
		char **w = realloc(g->watch, (g->n_watch + 1) * sizeof(*w));

		if (w)
			g->watch = w;
		w = w ? realloc(g->seen, (g->n_watch + 1) * sizeof(*w)) : NULL;
		if (w)
			g->seen = w;
		else
			r = -ENOMEM;
	}
	if (r < 0) {
		free(seen);
		free(copy);
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	g->watch[g->n_watch] = copy;
	g->seen[g->n_watch++] = seen;
	return 0;
}

static bool join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s%s%s", a, strcmp(a, "/") ? "/" : "", b);

	return n >= 0 && (size_t)n < size;
}

/* A git dir named by a path in a file (gitdir:, commondir): relative to `base`. */
static int follow(struct survey *s, const char *base, const char *text, enum gitdir_kind kind,
                  int depth)
{
	char host[SBX_PATH_MAX], joined[SBX_PATH_MAX * 2], sandbox[SBX_PATH_MAX];

	if (text[0] == '/')
		snprintf(joined, sizeof(joined), "%s", text);
	else
		snprintf(joined, sizeof(joined), "%s/%s", base, text);
	if (sbx_path_normalize(joined, host, sizeof(host), NULL) < 0)
		return 0;
	if (!host_to_sandbox(s->plan, host, sandbox, sizeof(sandbox)))
		return 0; /* not in view, or read-only there: nothing a worker can change */
	/* the common dir of a worktree: a .git of its own that must not be renamed either */
	if (kind == GITDIR_MAIN) {
		int r = guard(s, sandbox, false);

		if (r < 0)
			return r;
	}
	return survey_gitdir(s, sandbox, host, kind, kind == GITDIR_MAIN, depth + 1);
}

/* The git dirs in a modules/ folder (names may hold '/': modules/a/b is module "a/b"). */
static int survey_modules(struct survey *s, int dir, const char *sandbox, const char *host,
                          bool pinned, int depth, int names)
{
	DIR *d;
	struct dirent *de;
	size_t n = 0;
	int r = 0;

	if (depth > GIT_MAX_DEPTH)
		return too_much(s->err, "git dirs nested within one another, at", host,
		                GIT_MAX_DEPTH);
	/* folders of module names ("vendor/lib" is modules/vendor/lib) are not git dirs: they
	 * count apart, so that empty folders a worker nests do not pass for git dirs nested
	 * 8 deep (an outside attack made every later launch refuse that way) */
	if (names > GIT_MAX_NAME_DEPTH)
		return too_much(s->err, "folders of module names nested within one another, at",
		                host, GIT_MAX_NAME_DEPTH);
	if (++s->n_name_dirs > GIT_MAX_NAME_DIRS)
		return too_much(s->err, "folders of module names, up to", host, GIT_MAX_NAME_DIRS);
	d = list_dir(dir);
	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		char sb[SBX_PATH_MAX], hb[SBX_PATH_MAX];
		struct stat st;
		int sub;

		if (dot_name(de->d_name))
			continue;
		/* only folders can be git dirs: files count for nothing, and folders of module
		 * names count apart (an outside attack left 4100 empty files there, and every
		 * later launch refused) */
		if (fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!join(sb, sizeof(sb), sandbox, de->d_name) ||
		    !join(hb, sizeof(hb), host, de->d_name))
			continue;
		sub = openat(dir, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		/* a git dir has HEAD; anything else is a folder of module names, whose new
		 * entries are named after the run as those of modules/ itself are (a git dir
		 * made at .git/modules/vendor/evil is module "vendor/evil") */
		if (faccessat(sub, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			if (n++ >= GIT_MAX_ENTRIES)
				r = too_much(s->err, "git dirs in", host, GIT_MAX_ENTRIES);
			else
				r = survey_gitdir(s, sb, hb, GITDIR_MODULE, pinned, depth + 1);
		} else {
			r = watch_dir(s, sub, hb);
			if (r >= 0)
				r = survey_modules(s, sub, sb, hb, pinned, depth, names + 1);
		}
		close(sub);
	}
	closedir(d);
	return r;
}

static int survey_worktrees(struct survey *s, int dir, const char *sandbox, const char *host,
                            bool pinned, int depth)
{
	DIR *d = list_dir(dir);
	struct dirent *de;
	size_t n = 0;
	int r = 0;

	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		char sb[SBX_PATH_MAX], hb[SBX_PATH_MAX];
		struct stat st;

		if (dot_name(de->d_name))
			continue;
		if (fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (n++ >= GIT_MAX_ENTRIES) {
			r = too_much(s->err, "folders in", host, GIT_MAX_ENTRIES);
			break;
		}
		if (join(sb, sizeof(sb), sandbox, de->d_name) &&
		    join(hb, sizeof(hb), host, de->d_name))
			r = survey_gitdir(s, sb, hb, GITDIR_WORKTREE, pinned, depth + 1);
	}
	closedir(d);
	return r;
}

static int config_path(struct survey *s, const char *value, const char *base);

/*
 * A hook that reaches its program through more than its own link (hooks/pre-commit ->
 * ../../hooklink -> tools/pre-commit, or through a linked folder): each link on the way is a
 * file the worker could replace where a writable mount shows it, and a mount can hold a file,
 * not a symlink's text. Fail closed: refuse such a launch, naming the hook and what to do.
 */
static int hook_chain(struct survey *s, const char *name, const char *text, const char *base)
{
	char joined[SBX_PATH_MAX * 2], lexical[SBX_PATH_MAX], real[PATH_MAX], sandbox[SBX_PATH_MAX];
	int r;

	if (text[0] == '/')
		snprintf(joined, sizeof(joined), "%s", text);
	else
		snprintf(joined, sizeof(joined), "%s/%s", base, text);
	if (sbx_path_normalize(joined, lexical, sizeof(lexical), NULL) < 0 ||
	    !realpath(lexical, real) || strcmp(real, lexical) == 0)
		return 0; /* one link, or a dangling one (absent: named as such) */
	if (!host_to_sandbox(s->plan, lexical, sandbox, sizeof(sandbox)) &&
	    !host_to_sandbox(s->plan, real, sandbox, sizeof(sandbox)))
		return 0; /* nothing on the way is the sandbox's to change */
	r = sbx_error_set(s->err, SBX_ERR_UNSUPPORTED, EPERM,
	                  "git: the hook %s/%s reaches %s through another symlink (%s), which "
	                  "the sandbox could replace: sbx can make a file read-only, not a link",
	                  base, name, real, lexical);
	sbx_error_hint(s->err,
	               "point the hook at its program directly (ln -sfn %s %s/%s), or "
	               "use a profile with protect_git: false",
	               real, base, name);
	return r;
}

/*
 * A guarded file that has another name (a hard link: tools/pre-commit and .git/hooks/pre-commit
 * one file): a mount holds a path read-only, not the file, which stays as writable through its
 * other name as that name's folder is, and sbx cannot find that name. Fail closed: refuse the
 * launch, naming the file. A guarded folder's files are looked at too, LINKS_DEPTH folders
 * deep, LINKS_MAX in all, past which it refuses too (an outside attack: a hook linked into the
 * working tree was rewritten there, then ran at the user's next commit).
 */
#define LINKS_DEPTH 8
#define LINKS_MAX   65536

static int check_links(struct survey *s, int dir, const char *name, const char *host, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int sub, r = 0;

	if (++s->n_checked > LINKS_MAX)
		return too_much(s->err, "files of git's to look at for hard links, up to", host,
		                LINKS_MAX);
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		r = sbx_error_set(
		    s->err, SBX_ERR_UNSUPPORTED, EMLINK,
		    "git: %s has %ju names (hard links): sbx makes it read-only by its "
		    "path, and the sandbox could rewrite it through another name in a "
		    "writable folder, for git to run or read outside",
		    host, (uintmax_t)st.st_nlink);
		if (strstr(host, "/.git/") && !strstr(host, "/hooks/") && !strstr(host, "/config"))
			sbx_error_hint(s->err,
			               "if a sandbox made it (sbx names what appeared after a "
			               "run), remove it; else make it a file of its own (cp "
			               "-p FILE FILE.new && mv FILE.new FILE)");
		else
			sbx_error_hint(
			    s->err,
			    "if a sandbox made it, remove it; else make it a file of its "
			    "own (cp -p %s %s.new && mv %s.new %s), or a symbolic link to "
			    "its program",
			    host, host, host, host);
		return r;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;
	if (depth >= LINKS_DEPTH)
		return too_much(s->err, "folders of git's nested within one another, at", host,
		                LINKS_DEPTH);
	sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = sub >= 0 ? fdopendir(sub) : NULL;
	if (!d) {
		if (sub >= 0)
			close(sub);
		return 0;
	}
	while (r >= 0 && (e = readdir(d))) {
		char p[SBX_PATH_MAX];

		if (dot_name(e->d_name))
			continue;
		if (join(p, sizeof(p), host, e->d_name))
			r = check_links(s, dirfd(d), e->d_name, p, depth + 1);
	}
	closedir(d);
	return r;
}

/* The symlinks in a folder of hooks (a git dir's hooks/, the folder core.hooksPath names, a
 * template's hooks/), `base` its host path: each target is guarded (read-only where a
 * writable mount shows it) as a file the config names would be; at most GIT_MAX_ENTRIES of
 * them. Takes `fd`. */
static int survey_links_at(struct survey *s, int fd, const char *base, int depth)
{
	char text[SBX_PATH_MAX];
	struct dirent *e;
	size_t n = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	int r = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (r >= 0 && (e = readdir(d))) {
		struct stat st;
		ssize_t len;

		if (dot_name(e->d_name))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* a subfolder (a hook's lib/, husky 8's _/): its links are as much the hooks'
		 * (an outside attack rewrote the target of .githooks/lib/common.sh, which the hook
		 * sources) */
		if (S_ISDIR(st.st_mode)) {
			char sub[SBX_PATH_MAX];

			if (depth + 1 >= LINKS_DEPTH) {
				r = too_much(s->err,
				             "folders of hooks nested within one another, at", base,
				             LINKS_DEPTH);
				break;
			}
			if (++s->n_checked > LINKS_MAX) {
				r = too_much(s->err, "files of git's to look at, up to", base,
				             LINKS_MAX);
				break;
			}
			if (join(sub, sizeof(sub), base, e->d_name))
				r = survey_links_at(
				    s,
				    openat(dirfd(d), e->d_name,
				           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
				    sub, depth + 1);
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (n >= GIT_MAX_ENTRIES) {
			r = too_much(s->err, "symbolic links in", base, GIT_MAX_ENTRIES);
			break;
		}
		len = readlinkat(dirfd(d), e->d_name, text, sizeof(text) - 1);
		if (len <= 0)
			continue;
		text[len] = '\0';
		n++;
		r = hook_chain(s, e->d_name, text, base);
		if (r >= 0)
			r = config_path(s, text, base);
	}
	closedir(d);
	return r;
}

static int survey_links_in(struct survey *s, int fd, const char *base)
{
	return survey_links_at(s, fd, base, 0);
}

static int survey_hook_links(struct survey *s, int gitdir, const char *host)
{
	char base[SBX_PATH_MAX];

	if (!join(base, sizeof(base), host, "hooks"))
		return 0;
	return survey_links_in(
	    s, openat(gitdir, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), base);
}

/*
 * One git dir: its control files read-only where they exist, the ones git would read that do
 * not noted as absent, and its submodules' and worktrees' git dirs in turn.
 */
static int survey_gitdir(struct survey *s, const char *sandbox, const char *host,
                         enum gitdir_kind kind, bool pinned, int depth)
{
	static const char *const sequencers[] = {"rebase-merge", "rebase-apply", "sequencer"};
	static const char *const names[] = {"config", "config.worktree", "hooks", "commondir",
	                                    "gitdir"};
	_cleanup_close_ int dir = -1;
	char text[SBX_PATH_MAX];
	int r = 0;

	if (depth > GIT_MAX_DEPTH)
		return too_much(s->err, "git dirs nested within one another, at", host,
		                GIT_MAX_DEPTH);
	if (s->n_visited == GIT_MAX_VISITED)
		return too_much(s->err, "git dirs (submodules, worktrees) in view, up to", host,
		                GIT_MAX_VISITED);
	/* once a view: a git dir shown at two sandbox paths (two binds of one repository,
	 * --root beside the workspace's own bind) is guarded at both */
	{
		char key[SBX_PATH_MAX * 2 + 2];

		snprintf(key, sizeof(key), "%s\n%s", host, sandbox);
		for (size_t i = 0; i < s->n_visited; i++)
			if (strcmp(s->visited[i], key) == 0)
				return 0; /* a worktree's common dir is its main repository's .git
				           */
		s->visited[s->n_visited] = strdup(key);
	}
	if (!s->visited[s->n_visited])
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	s->n_visited++;
	dir = open_dir(host);
	if (dir < 0)
		return 0;
	for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(names); i++) {
		char sb[SBX_PATH_MAX], hb[SBX_PATH_MAX];
		struct stat st;
		bool want_absent;

		if (!join(sb, sizeof(sb), sandbox, names[i]) ||
		    !join(hb, sizeof(hb), host, names[i]))
			continue;
		if (fstatat(dir, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
				r = guard(s, sb, true);
				if (r >= 0)
					r = check_links(s, dir, names[i], hb, 0);
			} else {
				/* a symlink (hooks -> ../githooks, config -> ../repo.gitconfig)
				 * cannot be bound, it can be swapped: named; and what it leads to
				 * is git's, guarded where a writable mount shows it */
				char real[PATH_MAX];

				r = add_absent(s, hb, pinned);
				if (r >= 0 && realpath(hb, real))
					r = config_path(s, real, "/");
			}
			continue;
		}
		/* what git would read if a worker made it */
		switch (i) {
		case 0: /* config */
		case 2: /* hooks */
			want_absent = kind != GITDIR_WORKTREE;
			break;
		case 1:
			/* config.worktree: read only with extensions.worktreeConfig, but that
			 * can be turned on later by the host's own git (git sparse-checkout
			 * init, git worktree): one planted now would run then. Always absent */
			want_absent = true;
			break;
		case 3: /* commondir: a worktree's git dir has one already */
			want_absent = kind != GITDIR_WORKTREE;
			break;
		default:
			want_absent = false;
			break;
		}
		if (want_absent)
			r = add_absent(s, hb, pinned);
	}
	/* A hook that is a symlink runs its target: where that lies in a writable mount (a
	 * repository's tools/pre-commit, linked from .git/hooks), it is as much a hook. */
	if (r >= 0)
		r = survey_hook_links(s, dir, host);
	if (r >= 0 && read_line(dir, "commondir", text, sizeof(text)))
		r = follow(s, host, text, GITDIR_MAIN, depth);
	/* a linked worktree's checkout: its .git file, which names this git dir */
	if (r >= 0 && kind == GITDIR_WORKTREE && read_line(dir, "gitdir", text, sizeof(text)) &&
	    text[0] == '/') {
		char norm[SBX_PATH_MAX], sb[SBX_PATH_MAX];

		if (sbx_path_normalize(text, norm, sizeof(norm), NULL) >= 0 &&
		    host_to_sandbox(s->plan, norm, sb, sizeof(sb)))
			r = guard(s, sb, true);
	}
	if (r >= 0 && kind != GITDIR_WORKTREE) {
		_cleanup_close_ int mod =
		    openat(dir, "modules", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		_cleanup_close_ int wt =
		    openat(dir, "worktrees", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		char sb[SBX_PATH_MAX], hb[SBX_PATH_MAX];

		if (mod >= 0 && join(sb, sizeof(sb), sandbox, "modules") &&
		    join(hb, sizeof(hb), host, "modules")) {
			r = watch_dir(s, mod, hb);
			if (r >= 0)
				r = survey_modules(s, mod, sb, hb, pinned, depth, 0);
		}
		if (r >= 0 && wt >= 0 && join(sb, sizeof(sb), sandbox, "worktrees") &&
		    join(hb, sizeof(hb), host, "worktrees")) {
			r = watch_dir(s, wt, hb);
			if (r >= 0)
				r = survey_worktrees(s, wt, sb, hb, pinned, depth);
		}
		/* new submodules' and worktrees' git dirs: named if they appear */
		if (r >= 0 && mod < 0 && join(hb, sizeof(hb), host, "modules"))
			r = add_later(s, &s->out->appear, &s->out->n_appear, hb);
		if (r >= 0 && wt < 0 && join(hb, sizeof(hb), host, "worktrees"))
			r = add_later(s, &s->out->appear, &s->out->n_appear, hb);
	}
	/* a rebase or cherry-pick left half-done, in any git dir (a linked worktree keeps its
	 * own): its todo list holds `exec` lines that run at the user's `git rebase --continue` */
	for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(sequencers); i++) {
		char sb[SBX_PATH_MAX], hb[SBX_PATH_MAX];
		struct stat st;

		if (!join(hb, sizeof(hb), host, sequencers[i]) ||
		    !join(sb, sizeof(sb), sandbox, sequencers[i]))
			continue;
		if (lstat(hb, &st) < 0)
			r = add_later(s, &s->out->appear, &s->out->n_appear, hb);
		else if (S_ISDIR(st.st_mode)) {
			/* one the user left half-done: its todo is read-only here (the rebase
			 * cannot go on in the sandbox; finish it outside) */
			r = guard(s, sb, true);
			if (r >= 0)
				r = check_links(s, dir, sequencers[i], hb, 0);
		}
	}
	/* what makes git show other content or hide changes, compared after the run; its rebase
	 * counters are read then too */
	if (r >= 0)
		r = review_add(s, dir, host);
	return r;
}

/*
 * Where a config sends git for hooks and more config: core.hooksPath (relative to the
 * working tree), include.path and includeIf.*.path (relative to the config's folder). Husky,
 * lefthook and shared configs put them in the working tree, which the worker may write: each
 * that a writable bind shows is made read-only where it exists, and noted absent where not.
 * Programs a config names by path (a filter driver ./tools/x) are not followed: see
 * sbx-profile(5).
 */
/*
 * A read-only guard holds its own path, but a folder above it in the writable mount could be
 * renamed away and a new one made in its place (tools/ moved aside, a new tools/pre-commit
 * planted where a hook's symlink points): each folder between the mount and the guarded path
 * is pinned (bound onto itself: a mount point cannot be renamed or removed).
 */
static int pin_above(struct survey *s, const char *sandbox)
{
	char host[SBX_PATH_MAX], at[SBX_PATH_MAX];
	const char *top;
	size_t op;
	int r = 0;

	if (sbx_plan_resolve(s->plan, sandbox, &op, host, sizeof(host), NULL) < 0)
		return 0;
	top = s->plan->ops[op].target;
	snprintf(at, sizeof(at), "%s", sandbox);
	for (char *slash = strrchr(at, '/'); r >= 0 && slash && slash != at;
	     slash = strrchr(at, '/')) {
		*slash = '\0';
		if (!sbx_path_covers(top, at) || strcmp(at, top) == 0)
			break;
		r = guard(s, at, false);
	}
	return r;
}

/* A user's home in /etc/passwd, read here (getpwnam would drag NSS into a static sbx). */
static bool passwd_home(const char *name, char *out, size_t size)
{
	FILE *f = fopen("/etc/passwd", "re");
	char line[4096];
	size_t n = strlen(name);
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = line;

		if (strncmp(line, name, n) != 0 || line[n] != ':')
			continue;
		for (int field = 0; p && field < 5; field++)
			p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL;
		if (!p || *p != '/')
			continue;
		p[strcspn(p, ":\n")] = '\0';
		found = snprintf(out, size, "%s", p) < (int)size;
	}
	if (f)
		fclose(f);
	return found;
}

/* A path a config names (~/, ~user/, absolute, or relative to `base`): as joined (`raw`,
 * which the kernel resolves, a ".." after a symbolic link included) and normalized. */
static bool config_resolve_raw(const char *value, const char *base, char *raw, size_t rawsize,
                               char *host, size_t size)
{
	const char *home = getenv("HOME");

	if (value[0] == '~' && value[1] == '/') {
		if (!home || home[0] != '/')
			return false;
		snprintf(raw, rawsize, "%s/%s", home, value + 2);
	} else if (value[0] == '~') {
		/* ~user/...: that user's home, as git reads it */
		char name[256], dir[SBX_PATH_MAX];
		size_t n = strcspn(value + 1, "/");

		if (n == 0 || n >= sizeof(name))
			return false;
		memcpy(name, value + 1, n);
		name[n] = '\0';
		if (!passwd_home(name, dir, sizeof(dir)))
			return false;
		snprintf(raw, rawsize, "%s%s", dir, value + 1 + n);
	} else if (value[0] == '/') {
		snprintf(raw, rawsize, "%s", value);
	} else if (base) {
		snprintf(raw, rawsize, "%s/%s", base, value);
	} else {
		return false;
	}
	return sbx_path_normalize(raw, host, size, NULL) >= 0;
}

/*
 * A symbolic link on the way to a path a config names, where a writable mount shows it
 * (core.hooksPath = tools/hooks, tools a link): a mount holds files and folders, not links,
 * and the worker could replace it (a link to a folder of its own). Each is a protected name,
 * as a linked control file is: removed, it is not made again, nor renamed over; where no
 * supervisor runs, it is named after the run. What it leads to is guarded (config_path).
 */
static int config_links(struct survey *s, const char *host)
{
	char at[SBX_PATH_MAX], sandbox[SBX_PATH_MAX];
	size_t n = strlen(host);
	int r = 0;

	if (n >= sizeof(at))
		return 0;
	for (size_t i = 1; r >= 0 && i <= n; i++) {
		struct stat st;

		if (host[i] != '/' && host[i] != '\0')
			continue;
		memcpy(at, host, i);
		at[i] = '\0';
		if (lstat(at, &st) < 0)
			break; /* absent from here on: named as absent */
		if (S_ISLNK(st.st_mode) && host_to_sandbox(s->plan, at, sandbox, sizeof(sandbox)))
			r = add_absent(s, at, false);
	}
	return r;
}

/* Guard one resolved host path a config names, where a writable mount shows it. */
static int config_host(struct survey *s, const char *host)
{
	char sandbox[SBX_PATH_MAX];
	struct stat st;

	if (!host_to_sandbox(s->plan, host, sandbox, sizeof(sandbox)))
		return 0; /* not in view, or read-only there */
	if (lstat(host, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		int r = guard(s, sandbox, true);

		if (r >= 0)
			r = check_links(s, AT_FDCWD, host, host, 0);
		return r < 0 ? r : pin_above(s, sandbox);
	}
	return add_absent(s, host, false);
}

/* Where a path leads through symbolic links (a stow-made ~/.gitconfig.local, a linked
 * folder on the way): the real path of what exists, or of the folder an absent name would
 * be made in. */
static bool real_of(const char *host, char *out)
{
	char dir[SBX_PATH_MAX], real[PATH_MAX];
	const char *slash;

	if (realpath(host, out))
		return true;
	slash = strrchr(host, '/');
	if (!slash || slash == host || (size_t)(slash - host) >= sizeof(dir))
		return false;
	memcpy(dir, host, (size_t)(slash - host));
	dir[slash - host] = '\0';
	if (!realpath(dir, real))
		return false;
	return snprintf(out, PATH_MAX, "%s%s", real, slash) < PATH_MAX;
}

/* A path a config names: guarded at its own path and where it leads. */
static int config_path(struct survey *s, const char *value, const char *base)
{
	char raw[SBX_PATH_MAX * 2], host[SBX_PATH_MAX], real[PATH_MAX];
	int r;

	if (!config_resolve_raw(value, base, raw, sizeof(raw), host, sizeof(host)))
		return 0;
	r = config_links(s, host);
	if (r >= 0)
		r = config_host(s, host);
	/* where the kernel takes it: links followed, a ".." after a link from the link's
	 * target (a dotfiles folder a linked ~/.gitconfig.d leads into) */
	if (r >= 0 && real_of(raw, real) && strcmp(real, host) != 0)
		r = config_host(s, real);
	return r;
}

static int survey_include(struct survey *s, const char *value, const char *base,
                          const char *worktree_host);

#define CONFIG_MAX (16u << 20) /* a git config larger than this is refused, not half read */

/* A config file's bytes, whole (git reads it whole: not a prefix), up to CONFIG_MAX, past
 * which it is refused. 1 and *out (to free) when read, 0 when there is none (or it is not a
 * regular file, which git does not read either), or a refusal. */
static int config_read(struct survey *s, int dir, const char *name, const char *where, char **out,
                       size_t *len)
{
	int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t n = 0;

	*out = NULL;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > CONFIG_MAX) {
		close(fd);
		return too_much(s->err, "bytes in a git config in", where, (int)CONFIG_MAX);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);

		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 1;
}

/*
 * git's config parser (config.c: git_parse_source, get_base_var, get_value, parse_value),
 * followed step by step so that sbx reads each key's value as git will: a BOM skipped,
 * "\r\n" read as "\n" (a lone "\r" is whitespace), several headers and a key on one line,
 * a subsection in quotes after any whitespace, comments from '#' or ';' outside quotes, a
 * backslash-newline joining a value (only a value) to the next line and dropped at the end
 * of the file, the escapes \t \n \b \\ \", a value cut at a NUL. A line git would
 * reject ends the parse, as git's error does.
 */
struct cfg_parse {
	const unsigned char *p, *end;
	bool eof;
};

static int cfg_next(struct cfg_parse *c)
{
	int ch;

	if (c->p >= c->end) {
		c->eof = true;
		return '\n';
	}
	ch = *c->p++;
	if (ch == '\r' && c->p < c->end && *c->p == '\n')
		ch = *c->p++;
	return ch;
}

static bool cfg_keychar(int ch)
{
	return isalnum(ch) || ch == '-';
}

/* [section] or [section "sub"]: the section lower-cased into `sec`, whether it had a
 * subsection; false where git would stop. */
static bool cfg_header(struct cfg_parse *c, char *sec, size_t size, bool *sub, char *subname,
                       size_t subsize)
{
	size_t n = 0, k = 0;
	int ch;

	*sub = false;
	subname[0] = '\0';
	for (;;) {
		ch = cfg_next(c);
		if (c->eof)
			return false;
		if (ch == ']')
			break;
		if (isspace(ch)) {
			/* the extended form: whitespace, "subsection", ']' */
			do
				ch = cfg_next(c);
			while (!c->eof && isspace(ch));
			if (ch != '"')
				return false;
			for (;;) {
				ch = cfg_next(c);
				if (c->eof || ch == '\n')
					return false;
				if (ch == '"')
					break;
				if (ch == '\\') {
					ch = cfg_next(c);
					if (c->eof || ch == '\n')
						return false;
				}
				if (k + 1 < subsize) {
					subname[k++] = (char)ch;
					subname[k] = '\0';
				}
			}
			if (cfg_next(c) != ']')
				return false;
			*sub = true;
			break;
		}
		if (!cfg_keychar(ch) && ch != '.')
			return false;
		if (n + 1 < size)
			sec[n++] = (char)tolower(ch);
	}
	sec[n] = '\0';
	return true;
}

/* The value after '=': false where git would stop (an open quote at the line's end, a bad
 * escape). */
static bool cfg_value(struct cfg_parse *c, char *out, size_t size)
{
	size_t n = 0, space = 0;
	bool quote = false, comment = false, cut = false;

	for (;;) {
		int ch = cfg_next(c);

		if (ch == '\n') {
			if (quote)
				return false;
			break;
		}
		if (comment)
			continue;
		if (isspace(ch) && !quote) {
			if (n)
				space++;
			continue;
		}
		if (!quote && (ch == ';' || ch == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			if (!cut && n + 1 < size)
				out[n++] = ' ';
		if (ch == '\\') {
			ch = cfg_next(c);
			switch (ch) {
			case '\n':
				continue; /* joins the next line; at the end of the file, nothing */
			case 't':
				ch = '\t';
				break;
			case 'b':
				ch = '\b';
				break;
			case 'n':
				ch = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return false;
			}
		} else if (ch == '"') {
			quote = !quote;
			continue;
		}
		if (ch == '\0')
			cut = true; /* git's value is a C string: it ends here */
		if (!cut && n + 1 < size)
			out[n++] = (char)ch;
	}
	out[n] = '\0';
	return true;
}

/*
 * A folder git runs hooks from: core.hooksPath, or a template folder (init.templateDir,
 * GIT_TEMPLATE_DIR), whose every file git copies into each repository it makes, its hooks/
 * among them, and `git clone` runs post-checkout at once. Guarded read-only whole, as a path a
 * config names; and the symbolic links in it, as those of .git/hooks: each leads to a program
 * git runs (an outside attack rewrote a hooksPath link's target in the working tree). husky 9
 * sets core.hooksPath to .husky/_, whose stubs (each sourcing `h`) run the hook of the same name
 * in the folder above: that folder is guarded too (an outside attack edited .husky/pre-commit
 * and added .husky/post-checkout).
 */
static int hooks_folder(struct survey *s, const char *value, const char *base, bool tmpl)
{
	char raw[SBX_PATH_MAX * 2], host[SBX_PATH_MAX], real[PATH_MAX];
	int r = config_path(s, value, base), fd;
	const char *slash;

	if (r < 0 || !config_resolve_raw(value, base, raw, sizeof(raw), host, sizeof(host)))
		return r;
	if (!real_of(raw, real))
		snprintf(real, sizeof(real), "%s", host);
	fd = open_dir(real);
	if (fd < 0)
		return 0;
	if (tmpl)
		return survey_links_in(s, fd, host); /* its links, hooks/ and all */
	slash = strrchr(host, '/');
	if (slash && strcmp(slash, "/_") == 0 && slash != host &&
	    (faccessat(fd, "h", F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	     faccessat(fd, "husky.sh", F_OK, AT_SYMLINK_NOFOLLOW) == 0)) {
		char parent[SBX_PATH_MAX];

		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - host), host);
		r = config_path(s, parent, "/");
	}
	if (r >= 0)
		r = survey_links_in(s, fd, host);
	else
		close(fd);
	return r;
}

/*
 * core.fsmonitor: a boolean is git's own daemon; anything else is a program git runs at every
 * status, in the working tree's top. git runs the value itself where it holds none of the
 * shell's special characters, else `sh -c VALUE` (run-command.c, prepare_shell_cmd): then each
 * word that names a file is guarded (`sh tools/fsmon.sh`: an outside attack rewrote the
 * script, which sbx had taken for an argument). A value the shell would expand or chain (a
 * quote, $, ;, |, a glob) cannot be followed: refused.
 */
static int fsmonitor_program(struct survey *s, const char *v, const char *base)
{
	static const char git_meta[] = "|&;<>()$`\\\"' \t\n*?[#~=%";
	char word[SBX_PATH_MAX];
	int r = 0;

	if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0 ||
	    strcasecmp(v, "yes") == 0 || strcasecmp(v, "no") == 0 || strcasecmp(v, "on") == 0 ||
	    strcasecmp(v, "off") == 0 || strcmp(v, "1") == 0 || strcmp(v, "0") == 0)
		return 0;
	if (!v[strcspn(v, git_meta)])
		return config_path(s, v, base); /* run as it is */
	if (v[strcspn(v, "|&;<>()$`\\\"'*?[\n")]) {
		r = sbx_error_set(
		    s->err, SBX_ERR_UNSUPPORTED, EINVAL,
		    "git: core.fsmonitor is a shell command (%s), which git runs with "
		    "sh -c at every git status: sbx cannot tell which files of the "
		    "working tree it runs, to keep the sandbox from rewriting them",
		    v);
		sbx_error_hint(s->err,
		               "name the program by its path (git config core.fsmonitor "
		               "tools/fsmonitor), or use a profile with protect_git: false");
		return r;
	}
	/* words: the shell's program, its arguments, an assignment; each that names a file (a
	 * path, or a name in the working tree's top) is as much the program */
	for (const char *p = v; r >= 0 && *p;) {
		size_t len;
		char raw[SBX_PATH_MAX * 2], host[SBX_PATH_MAX];

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)len, p);
		p += len;
		if (strchr(word, '/') ||
		    (config_resolve_raw(word, base, raw, sizeof(raw), host, sizeof(host)) &&
		     access(host, F_OK) == 0))
			r = config_path(s, word, base);
	}
	return r;
}

/* A config file (name in dir; dir AT_FDCWD and a path for the user's own, which may be a
 * symlink a dotfiles manager made), its include paths relative to base. */
/* What one config says that sbx follows, in the order it says it. */
struct cfg_entry {
	enum { CFG_HOOKS, CFG_FSMONITOR, CFG_INCLUDE, CFG_WORKTREE, CFG_TEMPLATE, CFG_FILE } kind;
	char *value;
};

#define CFG_MAX_ENTRIES 4096

static int survey_config(struct survey *s, int dir, const char *name, const char *base,
                         const char *worktree_host)
{
	char section[128] = "", subname[16] = "", *buf, worktree[SBX_PATH_MAX];
	bool sub = false;
	size_t n = 0, n_entries = 0;
	struct cfg_parse c;
	struct cfg_entry *entries = NULL;
	int r;

	/* whole, as git reads it (a link too: what it leads to is git's config) */
	r = config_read(s, dir, name, base, &buf, &n);
	if (r <= 0)
		return r;
	r = 0;
	c = (struct cfg_parse){(const unsigned char *)buf, (const unsigned char *)buf + n, false};
	if (n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	for (bool comment = false; r >= 0;) {
		char key[64], value[SBX_PATH_MAX];
		size_t k = 0;
		int ch = cfg_next(&c), kind = -1;

		if (ch == '\n') {
			if (c.eof)
				break;
			comment = false;
			continue;
		}
		if (comment || isspace(ch))
			continue;
		if (ch == '#' || ch == ';') {
			comment = true;
			continue;
		}
		if (ch == '[') {
			if (!cfg_header(&c, section, sizeof(section), &sub, subname,
			                sizeof(subname)))
				break;
			continue;
		}
		if (!isalpha(ch))
			break; /* git stops here: a bad config line */
		for (; !c.eof && cfg_keychar(ch); ch = cfg_next(&c))
			if (k + 1 < sizeof(key))
				key[k++] = (char)tolower(ch);
		key[k] = '\0';
		while (ch == ' ' || ch == '\t')
			ch = cfg_next(&c);
		if (ch == '\n') {
			if (c.eof)
				break;
			continue; /* a key without a value: a boolean */
		}
		if (ch != '=' || !cfg_value(&c, value, sizeof(value)))
			break;
		if (!value[0])
			continue;
		/* git told to trust less of a file's stat data: ctime not compared, or only mtime
		 * and size: a file rewritten during the run at its size and mtime is clean to it
		 * with its entry untouched (an outside attack), so verify_one hashes such files */
		if (strcmp(section, "core") == 0 && !sub &&
		    ((strcmp(key, "trustctime") == 0 &&
		      (!strcasecmp(value, "false") || !strcasecmp(value, "no") ||
		       !strcasecmp(value, "off") || !strcmp(value, "0"))) ||
		     (strcmp(key, "checkstat") == 0 && !strcasecmp(value, "minimal"))))
			s->out->lax_stat = true;
		/* git-lfs's filter: an index entry may hold its file's LFS pointer (verify_one) */
		if (((strcmp(section, "filter") == 0 && sub && strcmp(subname, "lfs") == 0) ||
		     (strcmp(section, "filter.lfs") == 0 && !sub)) &&
		    (strcmp(key, "clean") == 0 || strcmp(key, "process") == 0))
			s->out->lfs = true;
		if (strcmp(section, "core") == 0 && !sub && strcmp(key, "hookspath") == 0)
			kind = CFG_HOOKS;
		else if (strcmp(section, "core") == 0 && !sub && strcmp(key, "fsmonitor") == 0)
			kind = CFG_FSMONITOR;
		else if (strcmp(section, "core") == 0 && !sub && strcmp(key, "worktree") == 0)
			kind = CFG_WORKTREE;
		else if (strcmp(section, "init") == 0 && !sub && strcmp(key, "templatedir") == 0)
			kind = CFG_TEMPLATE;
		/* the user's attributes and ignore files: -diff hides changes from git diff, an
		 * ignore pattern new files from git status */
		else if (strcmp(section, "core") == 0 && !sub &&
		         (strcmp(key, "attributesfile") == 0 || strcmp(key, "excludesfile") == 0))
			kind = CFG_FILE;
		else if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
		         strcmp(key, "path") == 0)
			kind = CFG_INCLUDE;
		if (kind < 0)
			continue;
		if (n_entries >= CFG_MAX_ENTRIES) {
			r = too_much(s->err, "hooks paths and includes in the git config", base,
			             CFG_MAX_ENTRIES);
			break;
		}
		{
			struct cfg_entry *grown =
			    realloc(entries, (n_entries + 1) * sizeof(*grown));
			char *copy = strdup(value);

			if (!grown || !copy) {
				free(copy);
				if (grown)
					entries = grown;
				r = sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
				break;
			}
			entries = grown;
			entries[n_entries++] = (struct cfg_entry){kind, copy};
		}
	}
	free(buf);
	/* core.worktree moves the working tree a relative hooks path or fsmonitor names a file
	 * in (relative to the git dir, as git takes it); both places are guarded */
	worktree[0] = '\0';
	for (size_t i = 0; i < n_entries; i++)
		if (entries[i].kind == CFG_WORKTREE) {
			char raw[SBX_PATH_MAX * 2];

			if (!config_resolve_raw(entries[i].value, base, raw, sizeof(raw), worktree,
			                        sizeof(worktree)))
				worktree[0] = '\0';
		}
	for (size_t i = 0; r >= 0 && i < n_entries; i++) {
		const char *v = entries[i].value;

		switch (entries[i].kind) {
		case CFG_HOOKS:
		case CFG_TEMPLATE:
			r = hooks_folder(s, v, worktree_host, entries[i].kind == CFG_TEMPLATE);
			if (r >= 0 && worktree[0])
				r = hooks_folder(s, v, worktree, entries[i].kind == CFG_TEMPLATE);
			break;
		case CFG_FSMONITOR:
			r = fsmonitor_program(s, v, worktree_host);
			if (r >= 0 && worktree[0])
				r = fsmonitor_program(s, v, worktree);
			break;
		case CFG_INCLUDE:
			r = survey_include(s, v, base, worktree_host);
			break;
		case CFG_FILE:
			r = config_path(s, v, worktree_host);
			break;
		case CFG_WORKTREE:
			break;
		}
	}
	for (size_t i = 0; i < n_entries; i++)
		free(entries[i].value);
	free(entries);
	return r;
}

/* An included config: guarded, and read in its turn (its hooksPath, its own includes),
 * relative to its own folder; git stops at a depth of 10. */
static int survey_include(struct survey *s, const char *value, const char *base,
                          const char *worktree_host)
{
	char raw[SBX_PATH_MAX * 2], host[SBX_PATH_MAX], dir[SBX_PATH_MAX * 2];
	char *slash;
	int r = config_path(s, value, base);

	if (r < 0 || s->include_depth >= 10 ||
	    !config_resolve_raw(value, base, raw, sizeof(raw), host, sizeof(host)))
		return r;
	/* read where the kernel leads (a ".." after a link), its includes relative to the path
	 * as joined, as git takes them */
	snprintf(dir, sizeof(dir), "%s", raw);
	slash = strrchr(dir, '/');
	if (!slash)
		return r;
	*(slash == dir ? slash + 1 : slash) = '\0';
	s->include_depth++;
	r = survey_config(s, AT_FDCWD, raw, dir, worktree_host);
	s->include_depth--;
	return r;
}

/*
 * The user's and the system's configs apply to every repository: a core.hooksPath there that
 * is relative (".githooks") names a folder in each working tree. Read where git reads them
 * (git-config(1), FILES), as the caller.
 */
/* An environment variable's path (GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME) with `tail`: git takes a
 * relative one from its working directory, which sbx can only take to be its own. */
static void env_path(char out[SBX_PATH_MAX + 16], const char *value, const char *tail)
{
	char cwd[SBX_PATH_MAX];

	if (value[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(out, SBX_PATH_MAX + 16, "%s%s", value, tail);
	else
		snprintf(out, SBX_PATH_MAX + 16, "%s/%s%s", cwd, value, tail);
}

static int bad_params(struct sbx_error *err)
{
	sbx_error_set(err, SBX_ERR_UNSUPPORTED, EINVAL,
	              "git: GIT_CONFIG_PARAMETERS is not in the form git writes ('key'='value' "
	              "...): sbx cannot tell what it sets for git");
	sbx_error_hint(err, "unset it, or use a profile with protect_git: false");
	return -EINVAL;
}

/* One key of git's environment config: a hooks folder or an include. */
static int env_config_entry(struct survey *s, const char *key, const char *value, const char *cwd,
                            const char *worktree_host)
{
	if (strcasecmp(key, "core.hooksPath") == 0 || strcasecmp(key, "init.templateDir") == 0)
		return hooks_folder(s, value, worktree_host ? worktree_host : cwd,
		                    strcasecmp(key, "init.templateDir") == 0);
	if (strcasecmp(key, "core.fsmonitor") == 0)
		return fsmonitor_program(s, value, worktree_host ? worktree_host : cwd);
	if (strcasecmp(key, "include.path") == 0 ||
	    (strncasecmp(key, "includeIf.", 10) == 0 && strlen(key) > 15 &&
	     strcasecmp(key + strlen(key) - 5, ".path") == 0))
		return survey_include(s, value, cwd, worktree_host);
	return 0;
}

/* The user's and the system's config files, where git reads them: GIT_CONFIG_GLOBAL in place
 * of the XDG file and ~/.gitconfig, GIT_CONFIG_SYSTEM in place of /etc/gitconfig, none of the
 * system's with GIT_CONFIG_NOSYSTEM. Returns how many were put in files[]. */
static size_t global_config_files(char files[3][SBX_PATH_MAX + 16])
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *global = getenv("GIT_CONFIG_GLOBAL"), *sys = getenv("GIT_CONFIG_SYSTEM");
	const char *nosys = getenv("GIT_CONFIG_NOSYSTEM");
	size_t n = 0;

	/* git's boolean: only a true value turns the system's off */
	if (!nosys || !(strcasecmp(nosys, "1") == 0 || strcasecmp(nosys, "true") == 0 ||
	                strcasecmp(nosys, "yes") == 0 || strcasecmp(nosys, "on") == 0)) {
		env_path(files[n++], sys && sys[0] ? sys : "/etc/gitconfig", "");
	}
	if (global) {
		if (global[0])
			env_path(files[n++], global, "");
		return n;
	}
	if (xdg && xdg[0])
		env_path(files[n++], xdg, "/git/config");
	else if (home && home[0] == '/')
		snprintf(files[n++], SBX_PATH_MAX + 16, "%s/.config/git/config", home);
	if (home && home[0] == '/')
		snprintf(files[n++], SBX_PATH_MAX + 16, "%s/.gitconfig", home);
	return n;
}

/* git's config from its environment (GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and _VALUE_n,
 * and GIT_CONFIG_PARAMETERS, 'key'='value' pairs): what its hooksPath and includes name. */
static int survey_env_config(struct survey *s, const char *worktree_host)
{
	const char *count = getenv("GIT_CONFIG_COUNT"), *params = getenv("GIT_CONFIG_PARAMETERS");
	char cwd[SBX_PATH_MAX];
	long n = count ? strtol(count, NULL, 10) : 0;
	int r = 0;

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	/* the template folder git init and clone copy from, from the environment */
	if (getenv("GIT_TEMPLATE_DIR") && getenv("GIT_TEMPLATE_DIR")[0])
		r = hooks_folder(s, getenv("GIT_TEMPLATE_DIR"), cwd, true);
	if (r < 0)
		return r;
	if (n > 1000)
		return too_much(s->err, "entries of GIT_CONFIG_COUNT in", "the environment", 1000);
	for (long i = 0; r >= 0 && i < n; i++) {
		char kname[64], vname[64];
		const char *k, *v;

		snprintf(kname, sizeof(kname), "GIT_CONFIG_KEY_%ld", i);
		snprintf(vname, sizeof(vname), "GIT_CONFIG_VALUE_%ld", i);
		k = getenv(kname);
		v = getenv(vname);
		if (k && v && v[0])
			r = env_config_entry(s, k, v, cwd, worktree_host);
	}
	/* 'key'='value' pairs, or the older 'key=value', each quoted as git's sq_quote writes
	 * them ('\'' for a quote inside), separated by spaces */
	for (const char *p = params; r >= 0 && p && *p;) {
		char word[2][SBX_PATH_MAX];
		size_t w = 0;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		for (; w < 2; w++) {
			size_t len = 0;

			if (*p != '\'')
				return bad_params(s->err);
			for (p++;;) {
				if (!*p)
					return bad_params(s->err);
				if (*p == '\'') {
					if (strncmp(p, "'\\''", 4) == 0) {
						if (len + 1 < sizeof(word[w]))
							word[w][len++] = '\'';
						p += 4;
						continue;
					}
					p++;
					break;
				}
				if (len + 1 < sizeof(word[w]))
					word[w][len++] = *p;
				p++;
			}
			word[w][len] = '\0';
			if (*p != '=')
				break;
			p++;
		}
		if (w == 0) {
			/* 'key=value' */
			char *eq = strchr(word[0], '=');

			if (eq) {
				*eq = '\0';
				r = env_config_entry(s, word[0], eq + 1, cwd, worktree_host);
			}
		} else {
			r = env_config_entry(s, word[0], word[1], cwd, worktree_host);
		}
	}
	return r;
}

static int survey_global_configs(struct survey *s, const char *worktree_host)
{
	char files[3][SBX_PATH_MAX + 16], dir[SBX_PATH_MAX + 16];
	size_t n = global_config_files(files);
	int r = 0;

	s->globals_seen = true;
	r = survey_env_config(s, worktree_host);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		char *slash;

		size_t len = strnlen(files[i], sizeof(files[i]) - 1);

		memcpy(dir, files[i], len);
		dir[len] = '\0';
		slash = strrchr(dir, '/');
		if (!slash)
			continue;
		*(slash == dir ? slash + 1 : slash) = '\0';
		r = survey_config(s, AT_FDCWD, files[i], dir, worktree_host);
	}
	return r;
}

#define INDEX_MAX (256u << 20) /* an index larger than this is not read */
#define NAMES_MAX (64u << 20)  /* nor one whose names come to more than this in all */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The paths of the gitlinks (mode 160000: submodules) in a git index, '\n'-separated and
 * '\n'-led ("\nsub\nlib/x\n"), or NULL if it cannot be read. Index versions 2, 3 and 4
 * (gitformat-index(5)): 40 bytes of stat data, mode at byte 24, the object name (hashsz
 * bytes), 16 bits of flags (and 16 more in version 3 when the extended bit is set), then the
 * path: NUL-terminated and padded to a multiple of 8 in versions 2 and 3, prefix-compressed
 * against the previous path in version 4.
 */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void text_add(struct text *t, const char *a, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->cap ? t->cap * 2 : 256) + n;
		char *grown = realloc(t->s, cap);

		if (!grown) {
			t->failed = true;
			return;
		}
		t->s = grown;
		t->cap = cap;
	}
	memcpy(t->s + t->len, a, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static char *text_take(struct text *t)
{
	if (t->failed) {
		free(t->s);
		return NULL;
	}
	return t->s ? t->s : strdup("");
}

/* One entry of a git index, as index_walk gives it. */
struct index_entry {
	const unsigned char *stat; /* 40 bytes: ctime, mtime (s, ns), dev, ino, mode, uid, gid,
	                              size, each 32 bits big-endian */
	const unsigned char *oid;  /* hashsz bytes */
	uint32_t mode;
	uint16_t flags, ext; /* ext: version 3's extended flags (skip-worktree 0x4000, intent to
	                        add 0x2000) */
	const char *name;
	size_t len;
	size_t off; /* where it starts in its file (a split index's shared part: in that one) */
	int depth;  /* 0: the index itself; 1: a split index's shared part */
};

/*
 * Call cb for each entry of a git index, and of a split index's shared part (`link`
 * extension: .git/sharedindex.<hash>, in the index's own folder), followed once (depth): its
 * entries are given beside the split part's, whatever the split part's bitmaps delete or
 * replace, a superset computed the same way before and after a run. -1 if it cannot be read.
 */
static int index_walk(const char *file, size_t hashsz, int depth,
                      void (*cb)(void *ctx, const struct index_entry *e),
                      void (*ext)(void *ctx, const unsigned char *sig, const unsigned char *data,
                                  size_t size, size_t first),
                      void *ctx)
{
	_cleanup_free_ unsigned char *buf = NULL;
	char name[SBX_PATH_MAX];
	size_t len = 0, pos = 12, prev = 0;
	uint32_t version, count;
	struct stat st;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 12 ||
	    (unsigned long long)st.st_size > INDEX_MAX || !(buf = malloc((size_t)st.st_size))) {
		close(fd);
		return -1;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len < 12 || memcmp(buf, "DIRC", 4) != 0)
		return -1;
	version = be32(buf + 4);
	count = be32(buf + 8);
	if (version < 2 || version > 4)
		return -1;
	name[0] = '\0';
	for (uint32_t e = 0, names = 0; e < count; e++) {
		size_t start = pos, fixed = 40 + hashsz + 2, nlen;
		struct index_entry ent;

		if (pos + fixed > len)
			return -1;
		ent.off = pos;
		ent.depth = depth;
		ent.stat = buf + pos;
		ent.oid = buf + pos + 40;
		ent.mode = be32(buf + pos + 24);
		ent.flags = (uint16_t)(buf[pos + 40 + hashsz] << 8 | buf[pos + 41 + hashsz]);
		ent.ext = 0;
		pos += fixed;
		/* read as git's create_from_disk reads it: the extended flags wherever the entry
		 * says it has them, in any version (an outside attack set the bit in a version 2
		 * index, and sbx read its two bytes as the name's, out of step from there), and the
		 * name's length from the flags unless they say 0xfff */
		if (ent.flags & 0x4000) {
			if (pos + 2 > len)
				return -1;
			ent.ext = (uint16_t)(buf[pos] << 8 | buf[pos + 1]);
			pos += 2;
			if (ent.ext & ~0x6000)
				return -1; /* git stops there: "unknown index entry format" */
		}
		if (version == 4) {
			/* varint: bytes to drop from the end of the previous name */
			size_t drop = 0;
			unsigned char c;

			do {
				if (pos >= len)
					return -1;
				c = buf[pos++];
				drop = (drop << 7) | (c & 127);
				if (c & 128)
					drop++;
			} while ((c & 128) && drop < SBX_PATH_MAX);
			if (drop > prev)
				return -1;
			prev -= drop;
		} else {
			prev = 0;
		}
		nlen = strnlen((const char *)buf + pos, len - pos);
		if ((ent.flags & 0xfff) != 0xfff) {
			/* the length the flags give is the whole name's */
			if ((size_t)(ent.flags & 0xfff) < prev)
				return -1;
			nlen = (size_t)(ent.flags & 0xfff) - prev;
		}
		if (pos + nlen >= len || prev + nlen >= sizeof(name))
			return -1;
		memcpy(name + prev, buf + pos, nlen);
		prev += nlen;
		name[prev] = '\0';
		/* version 4's names share their start with the one before: a 64 MiB index can hold
		 * 4 GiB of them (an outside attack), which every list would copy. Past NAMES_MAX,
		 * the index is not read, and that is said */
		if ((names += (uint32_t)prev) > NAMES_MAX)
			return -1;
		pos += nlen + 1;
		if (version < 4)
			pos = start + ((pos - start + 7) & ~(size_t)7);
		ent.name = name;
		ent.len = prev;
		cb(ctx, &ent);
	}
	/* the extensions, up to the trailing checksum (`first`: where they start, which an EOIE
	 * extension must name) */
	for (size_t first = pos, links = 0; depth == 0 && pos + 8 + hashsz <= len;) {
		uint32_t size = be32(buf + pos + 4);

		if (size > len - hashsz - pos - 8)
			break;
		/* git keeps one split index: a second `link` (git takes the last) is not read,
		 * and that is said (an outside attack made sbx walk one shared index 200 times,
		 * 3.4 GB of memory, from a 5 KiB index) */
		if (memcmp(buf + pos, "link", 4) == 0 && links++)
			return -1;
		if (memcmp(buf + pos, "link", 4) == 0 && size >= hashsz) {
			char shared[SBX_PATH_MAX + 128];
			const char *slash = strrchr(file, '/');
			int n = snprintf(shared, sizeof(shared), "%.*s/sharedindex.",
			                 slash ? (int)(slash - file) : 1, slash ? file : ".");

			for (size_t i = 0; i < hashsz && n > 0 && (size_t)n + 3 < sizeof(shared);
			     i++)
				n += snprintf(shared + n, sizeof(shared) - (size_t)n, "%02x",
				              buf[pos + 8 + i]);
			/* a split index whose shared part cannot be read */
			if (index_walk(shared, hashsz, depth + 1, cb, NULL, ctx) < 0)
				return -1;
		}
		if (ext)
			ext(ctx, buf + pos, buf + pos + 8, size, first);
		pos += 8 + size;
	}
	return 0;
}

struct scan_ctx {
	bool hidden;
	char *out;
	size_t have, cap;
	bool failed;
};

static void scan_one(void *ctx, const struct index_entry *e)
{
	struct scan_ctx *c = ctx;

	/* hidden: marked assume-unchanged or skip-worktree, or a sparse index's folder (git
	 * expands it into skip-worktree entries, its flag or not) */
	if (c->failed || (c->hidden ? !((e->flags & 0x8000) || (e->ext & 0x4000) ||
	                                (e->mode & 0170000) == 0040000)
	                            : (e->mode & 0170000) != 0160000))
		return;
	while (c->have + e->len + 2 > c->cap) {
		char *grown = realloc(c->out, c->cap * 2 + e->len + 2);

		if (!grown) {
			c->failed = true;
			return;
		}
		c->out = grown;
		c->cap = c->cap * 2 + e->len + 2;
	}
	memcpy(c->out + c->have, e->name, e->len);
	/* the list is one name a line: a newline in a name (the worker chose it) is shown as '?',
	 * so that one entry stays one line */
	for (size_t k = c->have; k < c->have + e->len; k++)
		if (c->out[k] == '\n' || c->out[k] == '\0')
			c->out[k] = '?';
	c->have += e->len;
	c->out[c->have++] = '\n';
	c->out[c->have] = '\0';
}

/*
 * The gitlinks (mode 160000: submodules) of a git index, '\n'-separated and '\n'-led
 * ("\nsub\nlib/x\n"), or NULL if it cannot be read (gitformat-index(5): versions 2, 3 and 4).
 * index_lists gives them beside the hidden entries in the same walk.
 */
static char *index_gitlinks(const char *file, size_t hashsz)
{
	struct scan_ctx c = {.hidden = false, .out = malloc(2), .have = 1, .cap = 2};

	if (!c.out)
		return NULL;
	c.out[0] = '\n';
	c.out[1] = '\0';
	if (index_walk(file, hashsz, 0, scan_one, NULL, &c) < 0 || c.failed) {
		free(c.out);
		return NULL;
	}
	return c.out;
}

/* One walk of an index for both lists (gitlinks, hidden entries) and, where `each` is set,
 * a call for every entry: an index of 50 000 files takes ~3.5 ms a walk here, and a launch
 * looks at it before and after the run. */
/* An index entry kept for the cache tree's check (index_extras.collect). */
struct ct_entry {
	char *name;
	uint32_t mode;
	uint16_t flags, ext;
	unsigned char oid[32];
};

/* What one walk also tells of an index's extensions: the untracked cache's digest, and,
 * where asked (`collect`), whether its cached trees match its entries. */
struct index_extras {
	bool collect;
	char untr[2 * 20 + 1];     /* hex SHA-1 of the UNTR extension, or "" */
	char reuc[2 * 20 + 1];     /* of the REUC (resolve-undo) extension, or "" */
	char conflict[2 * 20 + 1]; /* of the entries of stage 1-3, or "" */
	bool tree_bad;
	char tree_at[SBX_PATH_MAX]; /* the first cached tree that does not match */
};

struct lists_ctx {
	struct scan_ctx links, hidden;
	void (*each)(void *ctx, const struct index_entry *e);
	void *each_ctx;
	size_t hashsz;
	struct index_extras *x;
	struct ct_entry *ents;
	size_t n_ents, cap_ents;
	bool ents_failed;
	unsigned char *tree;
	size_t tree_len;
	int trees;    /* TREE extensions seen (git takes the last) */
	size_t *offs; /* each entry's offset in the index (collect), for IEOT */
	unsigned char *ieot;
	size_t ieot_len;
	bool eoie_bad;    /* an EOIE that names other bytes than the extensions sbx read */
	size_t ct_budget; /* entries the cached-tree check may still look at */
	bool split;       /* a `link` extension: a split index */
	bool conflicts;   /* entries of stage 1-3 seen, hashed in conflict_sha */
	struct sbx_sha conflict_sha;
};

static void lists_one(void *ctx, const struct index_entry *e)
{
	struct lists_ctx *c = ctx;

	scan_one(&c->links, e);
	scan_one(&c->hidden, e);
	/* an unresolved conflict's stages: what git checkout -m, --theirs and restore --merge
	 * put in place of the file (an outside attack planted one whose diff showed nothing) */
	if (c->x && (e->flags & 0x3000)) {
		unsigned char stage = (unsigned char)((e->flags >> 12) & 3);

		if (!c->conflicts) {
			sbx_sha_init(&c->conflict_sha, 160);
			c->conflicts = true;
		}
		sbx_sha_update(&c->conflict_sha, e->name, e->len + 1);
		sbx_sha_update(&c->conflict_sha, &stage, 1);
		sbx_sha_update(&c->conflict_sha, e->oid, c->hashsz);
	}
	if (c->each)
		c->each(c->each_ctx, e);
	if (c->x && c->x->collect && !c->ents_failed) {
		struct ct_entry *ce;

		if (c->n_ents == c->cap_ents) {
			size_t cap = c->cap_ents ? c->cap_ents * 2 : 256;
			struct ct_entry *grown = realloc(c->ents, cap * sizeof(*grown));

			if (!grown) {
				c->ents_failed = true;
				return;
			}
			c->ents = grown;
			c->cap_ents = cap;
		}
		ce = &c->ents[c->n_ents];
		ce->name = strndup(e->name, e->len);
		if (!ce->name) {
			c->ents_failed = true;
			return;
		}
		ce->mode = e->mode;
		ce->flags = e->flags;
		ce->ext = e->ext;
		memcpy(ce->oid, e->oid, c->hashsz);
		{
			size_t *grown = realloc(c->offs, c->cap_ents * sizeof(*grown));

			if (!grown) {
				free(ce->name);
				c->ents_failed = true;
				return;
			}
			c->offs = grown;
			c->offs[c->n_ents] = e->depth ? SIZE_MAX : e->off;
		}
		c->n_ents++;
	}
}

/* A SHA-1 digest (20 bytes) as 40 hex digits and a NUL: the review's text of an extension. */
static void sha1_hex(const unsigned char d[20], char out[41])
{
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* An extension's bytes, digested into out (41 bytes). */
static void ext_digest(const unsigned char *data, size_t size, char out[41])
{
	struct sbx_sha h;
	unsigned char d[32];

	sbx_sha_init(&h, 160);
	sbx_sha_update(&h, data, size);
	sbx_sha_final(&h, d);
	sha1_hex(d, out);
}

static void lists_ext(void *ctx, const unsigned char *sig, const unsigned char *data, size_t size,
                      size_t first)
{
	struct lists_ctx *c = ctx;

	if (!c->x)
		return;
	if (memcmp(sig, "UNTR", 4) == 0)
		ext_digest(data, size, c->x->untr);
	if (memcmp(sig, "link", 4) == 0)
		c->split = true;
	/* resolve-undo: what `git checkout -m` and `git restore --merge` put back */
	if (memcmp(sig, "REUC", 4) == 0)
		ext_digest(data, size, c->x->reuc);
	/* git keeps the last TREE it reads: that one is checked, and more than one is said */
	if (memcmp(sig, "TREE", 4) == 0 && c->x->collect) {
		c->trees++;
		free(c->tree);
		c->tree = malloc(size ? size : 1);
		c->tree_len = size;
		if (c->tree)
			memcpy(c->tree, data, size);
	}
	/* git with index.threads reads the extensions from where EOIE says, and the entries
	 * from where IEOT says: both must name what sbx read (an outside attack hid a second
	 * TREE in an unknown extension that EOIE pointed into) */
	if (memcmp(sig, "EOIE", 4) == 0 && c->x->collect && (size < 4 || be32(data) != first))
		c->eoie_bad = true;
	if (memcmp(sig, "IEOT", 4) == 0 && c->x->collect && !c->ieot) {
		c->ieot = malloc(size ? size : 1);
		c->ieot_len = size;
		if (c->ieot)
			memcpy(c->ieot, data, size);
	}
}

/* Does each block an IEOT extension names start where sbx read that entry? */
static bool ieot_ok(const struct lists_ctx *c)
{
	size_t k = 0;

	if (!c->ieot || c->ieot_len < 4 || (c->ieot_len - 4) % 8)
		return !c->ieot;
	for (size_t p = 4; p + 8 <= c->ieot_len; p += 8) {
		uint32_t off = be32(c->ieot + p), n = be32(c->ieot + p + 4);

		if (k >= c->n_ents || c->offs[k] != off)
			return false;
		k += n;
	}
	return true;
}

static int cmp_ct(const void *a, const void *b)
{
	return strcmp(((const struct ct_entry *)a)->name, ((const struct ct_entry *)b)->name);
}

/* One node of a TREE extension (gitformat-index(5), "Cache tree"): its path NUL, "COUNT
 * SUBTREES\n", its tree's name where COUNT is not -1, then its subtrees. Each node that
 * claims a tree is hashed from the entries it covers as git would write that tree (a file:
 * "MODE NAME\0" and its object; a folder: "40000 NAME\0" and its subtree's), and compared:
 * git commit and stash take a valid cached tree as it is (an outside attack made a commit of
 * README record the worker's src/a). 1 where one does not match; -1 where the extension
 * cannot be read (git drops it then). */
struct ct_child {
	const unsigned char *name; /* in the extension's bytes */
	size_t len;
	bool valid;
	unsigned char oid[32];
};

/* subtrees by name, as bytes (shorter first where one begins the other) */
static int cmp_kid(const void *a, const void *b)
{
	const struct ct_child *x = a, *y = b;
	int d = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return d ? d : (x->len > y->len) - (x->len < y->len);
}

/*
 * A cached tree's line, "COUNT SUBS\n", only as git writes it ("%d %d\n"): git's read_one
 * takes the numbers with strtol, which skips white space (a newline too), while its line ends
 * at the first newline after the name, so a line written otherwise can give git other numbers
 * or another object than any second reader (two outside attacks did: a count of -4294967295,
 * and "1\n" followed by a tree whose name starts with '0'). Anything else: false, and the
 * cached tree is said to be unchecked.
 */
static bool ct_line(const unsigned char **p, const unsigned char *end, int *count, int *subs)
{
	const unsigned char *q = *p;
	long long v[2];

	for (int k = 0; k < 2; k++) {
		bool neg = k == 0 && q < end && *q == '-';
		int digits = 0;

		q += neg;
		v[k] = 0;
		for (; q < end && *q >= '0' && *q <= '9' && digits < 11; q++, digits++)
			v[k] = v[k] * 10 + (*q - '0');
		/* no sign but the count's, no leading zero, an int */
		if (!digits || (digits > 1 && q[-digits] == '0') || (neg && v[k] == 0) ||
		    v[k] > INT_MAX)
			return false;
		if (neg)
			v[k] = -v[k];
		if (q >= end || *q++ != (k ? '\n' : ' '))
			return false;
	}
	*count = (int)v[0];
	*subs = (int)v[1];
	*p = q;
	return true;
}

static int ct_node(struct lists_ctx *c, const unsigned char **p, const unsigned char *end,
                   const char *parent, struct ct_child *self, int depth)
{
	const unsigned char *nul = memchr(*p, 0, (size_t)(end - *p));
	char full[SBX_PATH_MAX];
	int count, subs;
	struct ct_child *kids = NULL;
	int r = 0;

	/* as git's read_one reads it: a name of any length, then its line (ct_line) */
	if (!nul)
		return -1;
	self->name = *p;
	self->len = (size_t)(nul - *p);
	*p = nul + 1;
	if (!ct_line(p, end, &count, &subs) || subs < 0)
		return -1;
	/* past what one launch looks at (4096 folders in a folder, 256 deep): not checked, so
	 * said, as a tree that does not match is (fail closed) */
	if (subs > GIT_MAX_ENTRIES || depth > 256) {
		if (!c->x->tree_bad) {
			c->x->tree_bad = true;
			snprintf(c->x->tree_at, sizeof(c->x->tree_at), "%s (too large to check)",
			         parent[0] ? parent : "/");
		}
		return 1;
	}
	self->valid = count >= 0;
	if (self->valid) {
		if ((size_t)(end - *p) < c->hashsz)
			return -1;
		memcpy(self->oid, *p, c->hashsz);
		*p += c->hashsz;
	}
	if (snprintf(full, sizeof(full), "%s%.*s%s", parent, (int)self->len,
	             (const char *)self->name, self->len ? "/" : "") >= (int)sizeof(full))
		return -1;
	kids = subs ? calloc((size_t)subs, sizeof(*kids)) : NULL;
	if (subs && !kids)
		return -1;
	/* the first that does not match ends the check (an outside attack had 8192 nodes each
	 * claim every entry); two subtrees of one name, which git folds into one, do not match */
	for (long i = 0; i < subs && r == 0; i++)
		r = ct_node(c, p, end, full, &kids[i], depth + 1);
	/* sorted, for lookups by name and to find two of one name (an outside attack's 4096
	 * subtrees a folder took a minute to compare pairwise) */
	if (r == 0 && subs > 1) {
		qsort(kids, (size_t)subs, sizeof(*kids), cmp_kid);
		for (long k = 1; r == 0 && k < subs; k++)
			if (cmp_kid(&kids[k - 1], &kids[k]) == 0) {
				r = 1;
				if (!c->x->tree_bad) {
					c->x->tree_bad = true;
					snprintf(c->x->tree_at, sizeof(c->x->tree_at), "%s",
					         full[0] ? full : "/");
				}
			}
	}
	if (r == 0 && self->valid && self->len) {
		/* a node that is a sparse index's folder entry: that entry's object is its tree */
		size_t lo = 0, hi = c->n_ents;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(c->ents[mid].name, full) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < c->n_ents && strcmp(c->ents[lo].name, full) == 0 &&
		    (c->ents[lo].mode & 0170000) == 0040000) {
			if (count != 1 || memcmp(c->ents[lo].oid, self->oid, c->hashsz) != 0) {
				r = 1;
				if (!c->x->tree_bad) {
					c->x->tree_bad = true;
					snprintf(c->x->tree_at, sizeof(c->x->tree_at), "%s", full);
				}
			}
			free(kids);
			return r;
		}
	}
	if (r == 0 && self->valid) {
		/* the entries beneath `full`, found by a binary search of the sorted names */
		size_t len = strlen(full), lo = 0, hi = c->n_ents, n = 0;
		struct text t = {0};
		char head[64];
		struct sbx_sha h;
		unsigned char sum[32];

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(c->ents[mid].name, full) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < c->n_ents && strncmp(c->ents[i].name, full, len) == 0;) {
			const struct ct_entry *e = &c->ents[i];

			if (!c->ct_budget--) {
				/* more than a launch looks at: said, not checked */
				if (!c->x->tree_bad) {
					c->x->tree_bad = true;
					snprintf(c->x->tree_at, sizeof(c->x->tree_at),
					         "%s (too large to check)", full[0] ? full : "/");
				}
				r = 1;
				break;
			}
			const char *rel = e->name + len, *slash = strchr(rel, '/');

			if (e->ext & 0x2000) {
				r = 1; /* intent to add: git leaves no valid tree over one */
				break;
			}
			if (e->flags & 0x3000) {
				r = 1; /* a conflict's stage: no tree is valid over it */
				break;
			}
			/* a sparse index's folder entry ("lib/", mode 040000): its object is the
			 * subtree itself */
			if (slash && !slash[1] && (e->mode & 0170000) == 0040000) {
				text_add(&t, "40000 ", 6);
				text_add(&t, rel, (size_t)(slash - rel));
				text_add(&t, "", 1);
				text_add(&t, (const char *)e->oid, c->hashsz);
				i++;
				n++;
				continue;
			}
			if (slash) {
				size_t cl = (size_t)(slash - rel);
				struct ct_child key = {.name = (const unsigned char *)rel,
				                       .len = cl};
				const struct ct_child *kid =
				    subs ? bsearch(&key, kids, (size_t)subs, sizeof(*kids), cmp_kid)
				         : NULL;

				if (!kid || !kid->valid) {
					r = 1;
					break;
				}
				snprintf(head, sizeof(head), "40000 ");
				text_add(&t, head, strlen(head));
				text_add(&t, rel, cl);
				text_add(&t, "", 1);
				text_add(&t, (const char *)kid->oid, c->hashsz);
				/* past every entry of that folder */
				for (; i < c->n_ents &&
				       strncmp(c->ents[i].name, e->name, len + cl + 1) == 0;
				     i++, n++)
					;
				continue;
			}
			snprintf(head, sizeof(head), "%o ", (unsigned)e->mode);
			text_add(&t, head, strlen(head));
			text_add(&t, rel, strlen(rel) + 1);
			text_add(&t, (const char *)e->oid, c->hashsz);
			i++;
			n++;
		}
		if (r == 0 && (t.failed || (long)n != count))
			r = 1;
		if (r == 0) {
			int hl = snprintf(head, sizeof(head), "tree %zu", t.len);

			sbx_sha_init(&h, c->hashsz == 32 ? 256 : 160);
			sbx_sha_update(&h, head, (size_t)hl + 1);
			if (t.len)
				sbx_sha_update(&h, t.s, t.len);
			sbx_sha_final(&h, sum);
			if (memcmp(sum, self->oid, c->hashsz) != 0)
				r = 1;
		}
		free(t.s);
		if (r == 1 && !c->x->tree_bad) {
			c->x->tree_bad = true;
			snprintf(c->x->tree_at, sizeof(c->x->tree_at), "%s", full[0] ? full : "/");
		}
	}
	free(kids);
	return r;
}

static int index_lists(const char *file, size_t hashsz,
                       void (*each)(void *ctx, const struct index_entry *e), void *each_ctx,
                       struct index_extras *x, char **links, char **hidden)
{
	struct lists_ctx c = {.links = {.hidden = false, .out = malloc(2), .have = 1, .cap = 2},
	                      .hidden = {.hidden = true, .out = malloc(2), .have = 1, .cap = 2},
	                      .each = each,
	                      .each_ctx = each_ctx,
	                      .hashsz = hashsz,
	                      .x = x};

	*links = *hidden = NULL;
	if (!c.links.out || !c.hidden.out) {
		free(c.links.out);
		free(c.hidden.out);
		return -1;
	}
	memcpy(c.links.out, "\n", 2);
	memcpy(c.hidden.out, "\n", 2);
	if (x)
		x->untr[0] = x->reuc[0] = x->conflict[0] = '\0';
	if (index_walk(file, hashsz, 0, lists_one, lists_ext, &c) < 0 || c.links.failed ||
	    c.hidden.failed) {
		free(c.links.out);
		free(c.hidden.out);
		c.links.out = c.hidden.out = NULL;
	} else if (x && x->collect && c.tree && c.split) {
		/* a split index's entries are its shared part's, replaced and deleted by bitmaps
		 * sbx does not apply: its cached trees are not checked, and that is said (an
		 * outside attack matched a forged tree to the shared part's stale entry) */
		x->tree_bad = true;
		snprintf(x->tree_at, sizeof(x->tree_at), "/ (a split index: not checked)");
	} else if (x && x->collect && !c.ents_failed &&
	           (c.trees > 1 || c.eoie_bad || !ieot_ok(&c))) {
		x->tree_bad = true;
		snprintf(x->tree_at, sizeof(x->tree_at), "%s",
		         c.trees > 1 ? "/ (more than one TREE extension)"
		                     : "/ (an EOIE or IEOT extension that names other bytes)");
	} else if (x && x->collect && c.tree && !c.ents_failed) {
		const unsigned char *p = c.tree;
		struct ct_child root;

		/* sorted as git sorts (a split index's shared part walked beside it) */
		if (c.n_ents)
			qsort(c.ents, c.n_ents, sizeof(*c.ents), cmp_ct);
		c.ct_budget = 4 * c.n_ents + 65536;
		int k = ct_node(&c, &p, c.tree + c.tree_len, "", &root, 0);

		if (k < 0) {
			/* one git may read otherwise than sbx: not checked, and said (an outside
			 * attack's name longer than sbx read hid a forged subtree after it) */
			x->tree_bad = true;
			snprintf(x->tree_at, sizeof(x->tree_at),
			         "/ (one sbx cannot read: not checked)");
		} else if (k == 1 && !x->tree_bad) {
			x->tree_bad = true; /* two subtrees of one name in a folder */
			snprintf(x->tree_at, sizeof(x->tree_at), "/");
		}
	} else if (x && x->collect && c.ents_failed) {
		x->tree_bad = true; /* not checked: said */
		snprintf(x->tree_at, sizeof(x->tree_at), "(out of memory)");
	}
	if (x && c.conflicts) {
		unsigned char d[32];

		sbx_sha_final(&c.conflict_sha, d);
		sha1_hex(d, x->conflict);
	}
	for (size_t i = 0; i < c.n_ents; i++)
		free(c.ents[i].name);
	free(c.ents);
	free(c.tree);
	free(c.offs);
	free(c.ieot);
	if (!c.links.out)
		return -1;
	*links = c.links.out;
	*hidden = c.hidden.out;
	return 0;
}

/* Does a config name sha256 as the object format? (The index then holds 32-byte names.) */
static bool sha256_repo(int gitdir)
{
	char buf[65536], common[SBX_PATH_MAX];
	int cd;
	bool yes;

	if (read_config_lower(gitdir, buf, sizeof(buf)) && strstr(buf, "objectformat") &&
	    strstr(buf, "sha256"))
		return true;
	/* a linked worktree's git dir has no config: the repository's is in its common dir
	 * (an outside attack hid edits in a sha256 repository's worktree, whose index sbx read
	 * with SHA-1's 20-byte names) */
	if (!read_line(gitdir, "commondir", common, sizeof(common)))
		return false;
	cd = openat(gitdir, common, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cd < 0)
		return false;
	yes = read_config_lower(cd, buf, sizeof(buf)) && strstr(buf, "objectformat") &&
	      strstr(buf, "sha256");
	close(cd);
	return yes;
}

/*
 * What a git dir holds that makes git on the host show other content than the history's, or
 * hide changes from git status and git diff, each part a text compared after the run
 * (struct sbx_gitguard_review). Under the namespaces backend a kept .git stays writable (git
 * must write it), so the worker can change these: `git replace` gives checkout, reset, show and
 * diff the worker's content for an object of the user's history; grafts rewrite parents;
 * info/exclude hides new files from git status, info/attributes hides changes from diff
 * (-diff); an index entry marked skip-worktree or assume-unchanged hides its file's changes
 * from both (an outside attack: a Makefile rewritten and marked, "nothing to commit"). None
 * runs anything by itself; each is named after the run.
 */
enum {
	REVIEW_REPLACE,
	REVIEW_GRAFTS,
	REVIEW_EXCLUDE,
	REVIEW_ATTRIBUTES,
	REVIEW_MERGE,  /* MERGE_HEAD and its like: the user's next commit takes them as parents */
	REVIEW_RERERE, /* rr-cache: git merge puts a recorded resolution in place */
	REVIEW_GRAPH,  /* the commit-graph: git log and diff read history's trees through it */
	REVIEW_HIDDEN,
	REVIEW_UNTRACKED,
	REVIEW_RESOLVE
};

#define REVIEW_FILE_MAX (1u << 20) /* info/ files read whole up to this; past it, by size */

/* A file's type, size, inode and ctime, which no call sets back (an mtime can be). */
static void review_stat(struct text *t, const struct stat *st)
{
	char buf[160];
	int n = snprintf(buf, sizeof(buf), "mode %o size %lld dev %llu ino %llu ctime %lld.%09ld\n",
	                 (unsigned)st->st_mode, (long long)st->st_size,
	                 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
	                 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);

	text_add(t, buf, (size_t)n);
}

/*
 * The symbolic links on the way to a path of a git dir, each "link:PREFIX->TEXT", and where
 * there is one, what the path leads to (review_stat). git follows links at every step
 * (.git/info, refs/replace, packed-refs); sbx reads beneath the git dir only, so a link made
 * or changed there is named by itself, and a change behind one by its target's ctime (an
 * outside attack made .git/info a link into .git/objects, where sbx read nothing).
 * True if a link is on the way.
 */
static bool review_links(struct text *t, int gitdir, const char *path)
{
	char prefix[SBX_PATH_MAX], target[SBX_PATH_MAX];
	bool any = false;
	struct stat st;

	if (snprintf(prefix, sizeof(prefix), "%s", path) >= (int)sizeof(prefix))
		return false;
	for (char *p = prefix;; p++) {
		if (*p != '/' && *p)
			continue;
		{
			char c = *p;

			*p = '\0';
			if (prefix[0] && fstatat(gitdir, prefix, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode)) {
				ssize_t n = readlinkat(gitdir, prefix, target, sizeof(target) - 1);

				target[n > 0 ? n : 0] = '\0';
				text_add(t, "link:", 5);
				text_add(t, prefix, strlen(prefix));
				text_add(t, "->", 2);
				text_add(t, target, strlen(target));
				text_add(t, "\n", 1);
				any = true;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	if (any && fstatat(gitdir, path, &st, 0) == 0)
		review_stat(t, &st);
	return any;
}

/* A small file of a git dir, whole ("" if absent; its size past REVIEW_FILE_MAX), as git
 * reads it: through the links on the way where they stay beneath the git dir, and the links
 * themselves named (review_links). */
static void review_file(struct text *t, int gitdir, const char *name)
{
	char buf[8192];
	struct stat st;
	int fd;

	review_links(t, gitdir, name);
	fd = sbx_openat2(gitdir, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	                 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > REVIEW_FILE_MAX)
		review_stat(t, &st);
	else
		for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;)
			text_add(t, buf, (size_t)n);
	close(fd);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The loose refs beneath a folder of refs (refs/replace), "NAME VALUE" a line, sorted. */
static void review_refs(struct text *t, int dir, const char *prefix, int depth, char ***lines,
                        size_t *n)
{
	DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
	struct dirent *e;

	if (!d) {
		if (dir >= 0)
			close(dir);
		return;
	}
	while ((e = readdir(d)) && *n < GIT_MAX_ENTRIES) {
		char line[SBX_PATH_MAX + 160], value[130];
		struct stat st;
		int len;

		if (dot_name(e->d_name))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			char sub[SBX_PATH_MAX];

			if (depth < 8 && snprintf(sub, sizeof(sub), "%s%s/", prefix, e->d_name) <
			                     (int)sizeof(sub))
				review_refs(t,
				            openat(dirfd(d), e->d_name,
				                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
				            sub, depth + 1, lines, n);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			/* git follows it (or takes it for a symbolic ref): its text, and the
			 * ctime of what it leads to */
			struct stat to;
			ssize_t k = readlinkat(dirfd(d), e->d_name, value, 80);

			value[k > 0 ? k : 0] = '\0';
			if (fstatat(dirfd(d), e->d_name, &to, 0) == 0)
				snprintf(value + strlen(value), sizeof(value) - strlen(value),
				         " ino %llu ctime %lld.%09ld",
				         (unsigned long long)to.st_ino,
				         (long long)to.st_ctim.tv_sec, to.st_ctim.tv_nsec);
		} else if (!read_line(dirfd(d), e->d_name, value, sizeof(value)))
			snprintf(value, sizeof(value), "(mode %o)", (unsigned)st.st_mode);
		len = snprintf(line, sizeof(line), "%s%s %s\n", prefix, e->d_name, value);
		if (len > 0 && (size_t)len < sizeof(line)) {
			char *copy = strdup(line),
			     **grown = realloc(*lines, (*n + 1) * sizeof(*grown));

			if (grown)
				*lines = grown;
			if (copy && grown)
				(*lines)[(*n)++] = copy;
			else {
				free(copy);
				t->failed = true;
			}
		}
	}
	closedir(d);
}

/* Each entry of a folder, sorted: "NAME " and its stat, and where `inner` is set, the stat of
 * that file in it (rr-cache/ID/postimage); 4096 at most. The commit-graph's layers, rerere's
 * recorded resolutions. */
static void review_entries(struct text *t, int dir, const char *skip, const char *inner)
{
	int fd = dup(dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;

	while (d && (e = readdir(d)) && n < GIT_MAX_ENTRIES) {
		char **grown;

		if (dot_name(e->d_name) || (skip && strcmp(e->d_name, skip) == 0))
			continue;
		grown = realloc(names, (n + 1) * sizeof(*grown));
		if (!grown || !(grown[n] = strdup(e->d_name))) {
			if (grown)
				names = grown;
			t->failed = true;
			break;
		}
		names = grown;
		n++;
	}
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		text_add(t, names[i], strlen(names[i]));
		text_add(t, " ", 1);
		if (fstatat(dir, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			review_stat(t, &st);
		if (inner) {
			char p[NAME_MAX + 64];

			snprintf(p, sizeof(p), "%s/%s", names[i], inner);
			if (fstatat(dir, p, &st, AT_SYMLINK_NOFOLLOW) == 0)
				review_stat(t, &st);
		}
		free(names[i]);
	}
	free(names);
}

static char *review_part(int gitdir, const char *host, int part,
                         void (*each)(void *ctx, const struct index_entry *e), void *each_ctx,
                         struct index_extras *x, char **links_out)
{
	struct text t = {0};

	switch (part) {
	case REVIEW_REPLACE: {
		const char *base = getenv("GIT_REPLACE_REF_BASE");
		char dir[SBX_PATH_MAX], line[SBX_PATH_MAX + 256];
		char **lines = NULL;
		size_t n = 0;
		int fd;
		FILE *f;

		if (!base || !base[0])
			base = "refs/replace/";
		snprintf(dir, sizeof(dir), "%s", base);
		while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
			dir[strlen(dir) - 1] = '\0';
		/* followed where git would, beneath the git dir; the links named */
		review_links(&t, gitdir, dir);
		review_links(&t, gitdir, "packed-refs");
		fd = sbx_openat2(gitdir, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		                 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
		review_refs(&t, fd, base, 0, &lines, &n);
		if (n)
			qsort(lines, n, sizeof(*lines), cmp_str);
		for (size_t i = 0; i < n; i++) {
			text_add(&t, lines[i], strlen(lines[i]));
			free(lines[i]);
		}
		free(lines);
		/* and packed-refs' lines that name one, read as a stream, 4096 of them; one larger
		 * than an index may be is taken by its inode and ctime */
		fd =
		    sbx_openat2(gitdir, "packed-refs", O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		                RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
		{
			struct stat st;

			if (fd >= 0 && fstat(fd, &st) == 0 &&
			    (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > INDEX_MAX)) {
				close(fd);
				fd = -1;
				review_file(&t, gitdir, "packed-refs");
			}
		}
		f = fd >= 0 ? fdopen(fd, "re") : NULL;
		if (!f && fd >= 0)
			close(fd);
		n = 0;
		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, base) && n++ < GIT_MAX_ENTRIES)
				text_add(&t, line, strlen(line));
		if (n > GIT_MAX_ENTRIES) {
			snprintf(line, sizeof(line), "and %zu more\n", n - GIT_MAX_ENTRIES);
			text_add(&t, line, strlen(line));
		}
		if (f)
			fclose(f);
		break;
	}
	case REVIEW_GRAFTS:
		review_file(&t, gitdir, "info/grafts");
		text_add(&t, "\nshallow:", 9);
		review_file(&t, gitdir, "shallow"); /* cuts history where it says */
		break;
	case REVIEW_UNTRACKED:
	case REVIEW_RESOLVE:
		break; /* given by the index's walk (REVIEW_HIDDEN) */
	case REVIEW_EXCLUDE:
		review_file(&t, gitdir, "info/exclude");
		break;
	case REVIEW_ATTRIBUTES:
		review_file(&t, gitdir, "info/attributes");
		break;
	case REVIEW_MERGE: {
		/* a merge, cherry-pick or revert left to finish: the user's next git commit
		 * records the commit(s) named there as parents, and its message (an outside
		 * attack: a planted MERGE_HEAD made the worker's commit a parent of the user's) */
		static const char *const names[] = {"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD",
		                                    "MERGE_MSG",  "MERGE_MODE",       "SQUASH_MSG",
		                                    "AUTO_MERGE"};

		for (size_t i = 0; i < SBX_ARRAY_SIZE(names); i++) {
			text_add(&t, names[i], strlen(names[i]));
			text_add(&t, ":", 1);
			review_file(&t, gitdir, names[i]);
			text_add(&t, "\n", 1);
		}
		break;
	}
	case REVIEW_RERERE: {
		_cleanup_close_ int rr = -1;

		/* rerere's recorded resolutions: git turns rerere on where rr-cache/ exists and
		 * the config does not say, and git merge then puts a recorded resolution in
		 * place (an outside attack planted one for the user's coming merge) */
		review_links(&t, gitdir, "rr-cache");
		rr = openat(gitdir, "rr-cache", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rr >= 0) {
			text_add(&t, "rr-cache:\n", 10);
			review_entries(&t, rr, NULL, "postimage");
		}
		break;
	}
	case REVIEW_GRAPH: {
		/* the commit-graph (one file, or a chain of layers in commit-graphs/): git log,
		 * diff and merge-base take a commit's tree and parents from it, and git checks no
		 * layer's sum when it loads one (git commit-graph verify and git fsck do): the
		 * type, size, inode and ctime of each (review_stat); and the object alternates,
		 * through which git finds objects and a commit-graph elsewhere (an outside attack
		 * rewrote a chain's layer in place, and another planted a graph behind an
		 * alternate) */
		static const char *const names[] = {
		    "objects/info/commit-graph", "objects/info/commit-graphs",
		    "objects/info/commit-graphs/commit-graph-chain"};
		_cleanup_close_ int layers = -1;

		for (size_t i = 0; i < SBX_ARRAY_SIZE(names); i++) {
			struct stat st;

			review_links(&t, gitdir, names[i]);
			if (fstatat(gitdir, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
				review_stat(&t, &st);
			text_add(&t, "\n", 1);
		}
		layers = openat(gitdir, "objects/info/commit-graphs",
		                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (layers >= 0)
			review_entries(&t, layers, "commit-graph-chain", NULL);
		text_add(&t, "alternates:", 11);
		review_file(&t, gitdir, "objects/info/alternates");
		text_add(&t, "\nhttp-alternates:", 17);
		review_file(&t, gitdir, "objects/info/http-alternates");
		break;
	}
	case REVIEW_HIDDEN: {
		char file[SBX_PATH_MAX + 8];
		char *list, *links;

		snprintf(file, sizeof(file), "%s/index", host);
		if (index_lists(file, sha256_repo(gitdir) ? 32 : 20, each, each_ctx, x, &links,
		                &list) == 0) {
			if (links_out)
				*links_out = links;
			else
				free(links);
			return list;
		}
		review_file(&t, gitdir, "index"); /* not read: its size and time, at least */
		break;
	}
	}
	return text_take(&t);
}

/* A review's merge part with none of its files there ("NAME:" lines only): no merge, pick or
 * revert to finish. */
static bool merge_ended(const char *text)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');

		if (!nl || nl == p || nl[-1] != ':')
			return false;
		p = nl + 1;
	}
	return true;
}

/* The resolve part of a review: the resolve-undo data's digest and the conflicts', or "" */
static char *resolve_text(const struct index_extras *x)
{
	char *out;

	if (!x->reuc[0] && !x->conflict[0])
		return strdup("");
	if (asprintf(&out, "%s:%s", x->reuc, x->conflict) < 0)
		return NULL;
	return out;
}

/* core.worktree of a git dir's own config (a submodule's git dir under modules/ names its
 * checkout so), resolved as git does, relative to the git dir; false if none. */
static bool config_worktree(int gitdir, const char *host, char *out, size_t size)
{
	char buf[65536], raw[SBX_PATH_MAX * 2];
	bool core = false, found = false;

	if (!read_small(gitdir, "config", buf, sizeof(buf)))
		return false;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *p = line + strspn(line, " \t"), *v;
		size_t n;

		if (*p == '[') {
			core = strncasecmp(p, "[core]", 6) == 0;
			continue;
		}
		if (!core || strncasecmp(p, "worktree", 8) != 0)
			continue;
		p += 8;
		p += strspn(p, " \t");
		if (*p++ != '=')
			continue;
		v = p + strspn(p, " \t");
		n = strcspn(v, "#;");
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
			n--;
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
			v++;
			n -= 2;
		}
		v[n] = '\0';
		/* git takes the last */
		found = n && config_resolve_raw(v, host, raw, sizeof(raw), out, size);
	}
	return found;
}

/* An index entry's keyed digest: its name, stat data, object and flags. */
static uint64_t entry_digest(const unsigned char key[16], size_t hashsz,
                             const struct index_entry *e)
{
	unsigned char buf[40 + 32 + 4 + SBX_PATH_MAX];
	size_t n = 40 + hashsz + 4, len = e->len < SBX_PATH_MAX ? e->len : SBX_PATH_MAX;

	memcpy(buf, e->stat, 40);
	memcpy(buf + 40, e->oid, hashsz);
	buf[40 + hashsz] = (unsigned char)(e->flags >> 8);
	buf[41 + hashsz] = (unsigned char)e->flags;
	buf[42 + hashsz] = (unsigned char)(e->ext >> 8);
	buf[43 + hashsz] = (unsigned char)e->ext;
	memcpy(buf + n, e->name, len);
	return sbx_siphash(key, buf, n + len);
}

struct record_ctx {
	const unsigned char *key;
	size_t hashsz;
	uint64_t *v;
	size_t n, cap;
	bool failed;
};

static void record_one(void *ctx, const struct index_entry *e)
{
	struct record_ctx *c = ctx;

	if (c->failed)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		uint64_t *grown = realloc(c->v, cap * sizeof(*grown));

		if (!grown) {
			c->failed = true;
			return;
		}
		c->v = grown;
		c->cap = cap;
	}
	c->v[c->n++] = entry_digest(c->key, c->hashsz, e);
}

static int review_add(struct survey *s, int gitdir, const char *host)
{
	struct sbx_gitguard *g = s->out;
	struct sbx_gitguard_review *grown, *rv;

	for (size_t i = 0; i < g->n_reviews; i++)
		if (strcmp(g->reviews[i].gitdir, host) == 0)
			return 0; /* one git dir shown at two paths */
	grown = realloc(g->reviews, (g->n_reviews + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	g->reviews = grown;
	rv = &g->reviews[g->n_reviews];
	memset(rv, 0, sizeof(*rv));
	rv->gitdir = strdup(host);
	/* its checkout: the folder that holds a .git folder, or the one a linked worktree's
	 * gitdir file names the .git file of */
	{
		size_t n = strlen(host);
		char text[SBX_PATH_MAX];

		if (n > 5 && strcmp(host + n - 5, "/.git") == 0)
			rv->worktree = strndup(host, n - 5);
		else if (read_line(gitdir, "gitdir", text, sizeof(text)) && text[0] == '/' &&
		         strlen(text) > 5 && strcmp(text + strlen(text) - 5, "/.git") == 0)
			rv->worktree = strndup(text, strlen(text) - 5);
		/* a submodule's git dir names its checkout in its config; a checkout's .git file
		 * names a git dir of another name (gitdir: .bare): that checkout (an outside
		 * attack hid edits in both, whose index entries sbx never checked) */
		else if (config_worktree(gitdir, host, text, sizeof(text)))
			rv->worktree = strdup(text);
		else if (s->checkout_of && strcmp(s->checkout_of, host) == 0)
			rv->worktree = strdup(s->checkout);
	}
	for (int k = 0; k < REVIEW_UNTRACKED; k++) {
		struct index_extras x = {0};
		struct record_ctx rec = {.key = g->key, .hashsz = sha256_repo(gitdir) ? 32 : 20};
		char *links = NULL;

		/* the index's entries as they are at launch: after the run, the entries that
		 * differ are the ones checked against their files (an outside attack gave a
		 * forged entry an old ctime, which sbx took for one of the user's) */
		rv->part[k] = review_part(gitdir, host, k, k == REVIEW_HIDDEN ? record_one : NULL,
		                          &rec, &x, &links);
		if (k == REVIEW_HIDDEN) {
			rv->part[REVIEW_UNTRACKED] = strdup(x.untr);
			rv->part[REVIEW_RESOLVE] = resolve_text(&x);
			rv->entries_ok =
			    g->key_ok && !rec.failed && rv->part[k] && rv->part[k][0] == '\n';
			if (rv->entries_ok) {
				rv->entries = rec.v;
				rv->n_entries = rec.n;
			} else {
				free(rec.v);
			}
		}
		if (links) {
			/* the gitlinks of the same walk, for watch_index */
			free(s->walked_links);
			free(s->walked_index);
			s->walked_links = links;
			s->walked_index = NULL;
			if (asprintf(&s->walked_index, "%s/index", host) < 0)
				s->walked_index = NULL;
		}
	}
	g->n_reviews++;
	for (int k = 0; k < SBX_GIT_REVIEW; k++)
		if (!rv->part[k] || !rv->gitdir)
			return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	return 0;
}

static int watch_index(struct survey *s, int gitdir, const char *gitdir_host)
{
	struct sbx_gitguard *g = s->out;
	char file[SBX_PATH_MAX + 8];
	char *links, **grown;

	snprintf(file, sizeof(file), "%s/index", gitdir_host);
	if (s->walked_index && strcmp(s->walked_index, file) == 0) {
		links = s->walked_links; /* walked by review_add a moment ago */
		s->walked_links = NULL;
	} else {
		links = index_gitlinks(file, sha256_repo(gitdir) ? 32 : 20);
	}
	if (!links)
		links = strdup("\n"); /* none yet, or not readable now: compared after the run */
	grown = links ? realloc(g->indexes, (g->n_indexes + 1) * sizeof(*grown)) : NULL;
	if (grown)
		g->indexes = grown;
	grown = grown ? realloc(g->links, (g->n_indexes + 1) * sizeof(*grown)) : NULL;
	if (grown)
		g->links = grown;
	if (!grown || !(g->indexes[g->n_indexes] = strdup(file))) {
		free(links);
		return sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	g->links[g->n_indexes++] = links;
	return 0;
}

/* A host directory with no .git of its own: is it inside a repository? Then a .git made in
 * it is the one git finds there first. */
static bool inside_repo(const char *host, char *top, size_t size)
{
	char dir[SBX_PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", host);
	for (;;) {
		char *slash = strrchr(dir, '/');
		char probe[SBX_PATH_MAX + 8];
		struct stat st;

		if (!slash || slash == dir)
			return false;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/.git", dir);
		if (lstat(probe, &st) == 0) {
			snprintf(top, size, "%s", dir);
			return true;
		}
	}
}

/*
 * The configs git reads in a checkout at `top` (its .git a folder, or a file naming a git dir
 * and, through that git dir's commondir, a common one), with `worktree` as the working tree
 * a relative core.hooksPath names a folder in: the common dir's config, the git dir's
 * config.worktree, and the user's and the system's. What they name that a writable mount
 * shows is guarded (a husky hooks folder in the workspace, a tracked file they include).
 */
static int survey_checkout_configs(struct survey *s, const char *top, const char *worktree)
{
	char dotgit[SBX_PATH_MAX + 8], gitdir[SBX_PATH_MAX], common[SBX_PATH_MAX];
	char text[SBX_PATH_MAX], joined[SBX_PATH_MAX * 2 + 8];
	struct stat st;
	int r;

	snprintf(dotgit, sizeof(dotgit), "%s/.git", top);
	if (lstat(dotgit, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		if (sbx_path_normalize(dotgit, gitdir, sizeof(gitdir), NULL) < 0)
			return 0;
	} else {
		_cleanup_close_ int d = open_dir(top);
		const char *p = text + 7;

		if (d < 0 || !read_line(d, ".git", text, sizeof(text)) ||
		    strncmp(text, "gitdir:", 7) != 0)
			return 0;
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(joined, sizeof(joined), "%s%s%s", p[0] == '/' ? "" : top,
		         p[0] == '/' ? "" : "/", p);
		if (sbx_path_normalize(joined, gitdir, sizeof(gitdir), NULL) < 0)
			return 0;
	}
	snprintf(common, sizeof(common), "%s", gitdir);
	{
		_cleanup_close_ int g = open_dir(gitdir);

		if (g >= 0 && read_line(g, "commondir", text, sizeof(text))) {
			snprintf(joined, sizeof(joined), "%s%s%s", text[0] == '/' ? "" : gitdir,
			         text[0] == '/' ? "" : "/", text);
			if (sbx_path_normalize(joined, common, sizeof(common), NULL) < 0)
				return 0;
		}
		r = g >= 0 ? survey_config(s, g, "config.worktree", gitdir, worktree) : 0;
	}
	if (r >= 0) {
		_cleanup_close_ int c = open_dir(common);

		if (c >= 0)
			r = survey_config(s, c, "config", common, worktree);
	}
	return r >= 0 ? survey_global_configs(s, worktree) : r;
}

/* One top: the workspace, a writable bind's target, or a submodule's checkout. */
/* Has the git dir a .git file in `base` names (`text`, relative to it) a commondir? */
static bool has_commondir(const char *base, const char *text)
{
	char joined[SBX_PATH_MAX * 2], h[SBX_PATH_MAX];
	_cleanup_close_ int d = -1;

	snprintf(joined, sizeof(joined), "%s%s%s", text[0] == '/' ? "" : base,
	         text[0] == '/' ? "" : "/", text);
	if (sbx_path_normalize(joined, h, sizeof(h), NULL) < 0)
		return true; /* as before: a worktree's */
	d = open_dir(h);
	return d < 0 || faccessat(d, "commondir", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Does any mount show the git dir a .git file in `base` names (`text`, relative to it)? */
static bool shown(const struct sbx_plan *plan, const char *base, const char *text)
{
	char joined[SBX_PATH_MAX * 2], h[SBX_PATH_MAX];

	snprintf(joined, sizeof(joined), "%s%s%s", text[0] == '/' ? "" : base,
	         text[0] == '/' ? "" : "/", text);
	if (sbx_path_normalize(joined, h, sizeof(h), NULL) < 0)
		return true; /* nothing to say of what cannot be named */
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if ((o->kind == SBX_PLAN_BIND || o->kind == SBX_PLAN_MIRROR) && o->source &&
		    sbx_path_covers(o->source, h))
			return true;
	}
	return false;
}

/* git's own test for a git dir (is_git_directory): HEAD, and objects/ and refs/ or a
 * commondir naming where they are. */
static bool is_gitdir(int dir)
{
	return faccessat(dir, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (faccessat(dir, "commondir", F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	        (faccessat(dir, "objects", F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	         faccessat(dir, "refs", F_OK, AT_SYMLINK_NOFOLLOW) == 0));
}

/*
 * The repositories in a writable top that is none itself (a folder of projects: -v ~/src),
 * up to two folders deep, surveyed as tops: their hooks and configs were as writable as their
 * files (a review found it; deeper ones stay as sbx-profile(5) says). NESTED_MAX entries
 * looked at in all; past them, the first top is kept for a note at launch. No link is
 * followed.
 */
#define NESTED_MAX 4096

/* A path sbx_gitguard_survey surveys as a top of its own (the workspace, a writable bind). */
static bool is_top(const struct survey *s, const char *sandbox)
{
	if (s->spec->workspace && strcmp(s->spec->workspace, sandbox) == 0)
		return true;
	for (size_t i = 0; i < s->spec->n_mounts; i++) {
		const struct sbx_mount *m = &s->spec->mounts[i];

		if (m->kind == SBX_MOUNT_BIND && !m->readonly && strcmp(m->target, sandbox) == 0)
			return true;
	}
	return false;
}

/* Is dir/name a bare repository (a git dir of its own)? Its stat in *st. */
static bool bare_at(int dir, const char *name, struct stat *st)
{
	char p[NAME_MAX + 16];

	snprintf(p, sizeof(p), "%s/HEAD", name);
	if (faccessat(dir, p, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	snprintf(p, sizeof(p), "%s/objects", name);
	if (faccessat(dir, p, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	snprintf(p, sizeof(p), "%s/refs", name);
	return faccessat(dir, p, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int survey_nested(struct survey *s, const char *top, const char *sandbox, const char *host,
                         int dir, int depth, size_t *budget)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	/* (dir may be an O_PATH descriptor: reopened to be read) */
	struct dirent *e;
	int r = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (r >= 0 && (e = readdir(d))) {
		char sub[SBX_PATH_MAX], subhost[SBX_PATH_MAX], dotgit[NAME_MAX + 8];
		struct stat st;
		int child;

		if (dot_name(e->d_name))
			continue;
		if (!*budget) {
			if (!s->out->unscanned && !(s->out->unscanned = strdup(top)))
				r = sbx_error_set(s->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
			break;
		}
		(*budget)--;
		/* a folder, not a link to one (d_type where the filesystem gives it) */
		if (e->d_type != DT_DIR &&
		    (e->d_type != DT_UNKNOWN ||
		     fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISDIR(st.st_mode)))
			continue;
		if (!join(sub, sizeof(sub), sandbox, e->d_name) ||
		    !join(subhost, sizeof(subhost), host, e->d_name) || is_top(s, sub))
			continue;
		snprintf(dotgit, sizeof(dotgit), "%s/.git", e->d_name);
		/* a repository the caller owns (or one others may write): another user's cannot
		 * be written by the worker, and may not even be readable by sbx. A checkout (its
		 * .git), or a bare repository (a local remote beside the projects: its hooks ran
		 * at the user's git push, an outside attack). One sbx would refuse as a workspace
		 * refuses the launch too: a warning instead let a worker fill a guarded .git in
		 * one run to leave it unguarded in the next (an outside attack) */
		if ((fstatat(dirfd(d), dotgit, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		     bare_at(dirfd(d), e->d_name, &st)) &&
		    (st.st_uid == geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
			s->top_depth++;
			r = survey_top(s, sub, false);
			s->top_depth--;
		} else if (depth < 2) {
			child = openat(dirfd(d), e->d_name,
			               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (child >= 0) {
				r = survey_nested(s, top, sub, subhost, child, depth + 1, budget);
				close(child);
			}
		}
	}
	closedir(d);
	return r;
}

static int survey_top(struct survey *s, const char *sandbox, bool workspace)
{
	const struct sbx_plan_op *cov = sbx_plan_guarded_by(s->plan, sandbox);
	char host[SBX_PATH_MAX], sb[SBX_PATH_MAX], hb[SBX_PATH_MAX], text[SBX_PATH_MAX];
	_cleanup_close_ int dir = -1;
	struct stat st;

	if (!cov || (cov->flags & SBX_PLAN_F_READONLY))
		return 0; /* not shown, or nothing there can be written */
	{
		const char *rest = sbx_path_rest(cov->target, sandbox);
		int n = snprintf(host, sizeof(host), "%s%s%s", cov->source,
		                 *rest && strcmp(cov->source, "/") ? "/" : "", rest);

		if (n < 0 || (size_t)n >= sizeof(host))
			return 0;
	}
	dir = open_dir(host);
	if (dir < 0 || !join(sb, sizeof(sb), sandbox, ".git") ||
	    !join(hb, sizeof(hb), host, ".git"))
		return 0;
	if (fstatat(dir, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		int r = 0;

		if (errno != ENOENT)
			return 0;
		/* the top is itself a git dir (a bare repository: a local remote passed with -v, or
		 * run from inside one): its config and hooks as a .git's (a hook the worker wrote
		 * there ran at the user's next git push: an outside attack) */
		if (is_gitdir(dir)) {
			s->out->n_repos++;
			r = survey_gitdir(s, sandbox, host, GITDIR_MAIN, true, 0);
			if (r >= 0)
				r = survey_config(s, dir, "config", host, host);
			if (r >= 0)
				r = survey_global_configs(s, host);
			return r;
		}
		/* no .git at a top (not a submodule's checkout, which git itself fills): the
		 * supervisor keeps one from being made */
		if (s->top_depth == 0)
			r = add_later(s, &s->out->fresh, &s->out->n_fresh, hb);
		/* a workspace inside a repository (a subfolder of a checkout): a .git made in
		 * it is the one git finds there first. Named after the run if it appears (not
		 * warned of at launch: every run in a subfolder would say it). */
		if (r >= 0 && workspace && inside_repo(host, text, sizeof(text))) {
			r = add_later(s, &s->out->appear, &s->out->n_appear, hb);
			/* the enclosing repository's configs: a core.hooksPath there may name a
			 * folder in this workspace (husky in a monorepo's package) */
			if (r >= 0)
				r = survey_checkout_configs(s, text, text);
		}
		/* a folder of projects (-v ~/src): the repositories in it, two folders deep */
		if (r >= 0 && s->top_depth == 0) {
			size_t budget = NESTED_MAX;

			r = survey_nested(s, host, sandbox, host, dir, 1, &budget);
			/* looked through whole: after the run, is it still? (a worker that fills it
			 * leaves the next launch's look short of a repository: an outside attack)
			 */
			if (r >= 0 && budget &&
			    add_later(s, &s->out->scanned, &s->out->n_scanned, host) < 0)
				r = -ENOMEM;
		}
		return r;
	}
	s->out->n_repos++;
	if (S_ISDIR(st.st_mode)) {
		/* git takes the folder itself for a bare repository when its .git is not a valid
		 * git dir (a HEAD that names nothing): then its own HEAD, config and hooks
		 * would count. .git/HEAD must stay writable (git switches branches there), so
		 * both are looked at after the run. */
		static const char *const bare[] = {"HEAD", "config", "hooks", "objects", "refs"};
		char head[SBX_PATH_MAX + 8];
		int r = guard(s, sb, false);

		for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(bare); i++) {
			char p[SBX_PATH_MAX];

			if (faccessat(dir, bare[i], F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
			    join(p, sizeof(p), host, bare[i]))
				r = add_later(s, &s->out->appear, &s->out->n_appear, p);
		}
		snprintf(head, sizeof(head), "%s/HEAD", hb);
		if (r >= 0)
			r = add_later(s, &s->out->heads, &s->out->n_heads, head);
		if (r >= 0)
			r = survey_gitdir(s, sb, hb, GITDIR_MAIN, true, 0);
		if (r >= 0) {
			_cleanup_close_ int g =
			    openat(dir, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (g >= 0)
				r = survey_config(s, g, "config", hb, host);
			if (g >= 0 && r >= 0)
				r = survey_config(s, g, "config.worktree", hb, host);
			if (r >= 0)
				r = survey_global_configs(s, host);
			if (g >= 0 && r >= 0)
				r = watch_index(s, g, hb);
			/* its submodules' checkouts: each .git (a file naming a git dir under
			 * modules/, or a git dir of its own) as this one */
			if (r >= 0 && s->top_depth < GIT_MAX_DEPTH && s->out->n_indexes) {
				const char *links = s->out->links[s->out->n_indexes - 1];

				s->top_depth++;
				for (const char *p = links + 1; r >= 0 && *p;) {
					const char *end = strchr(p, '\n');
					char sub[SBX_PATH_MAX];

					if (!end)
						break;
					if ((size_t)snprintf(sub, sizeof(sub), "%s/%.*s", sandbox,
					                     (int)(end - p), p) < sizeof(sub))
						r = survey_top(s, sub, false);
					p = end + 1;
				}
				s->top_depth--;
			}
		}
		return r;
	}
	if (S_ISREG(st.st_mode)) {
		/* a worktree or submodule checkout: .git names its git dir */
		int r = guard(s, sb, true);

		if (r >= 0)
			r = check_links(s, dir, ".git", hb, 0);

		if (r >= 0 && read_line(dir, ".git", text, sizeof(text)) &&
		    strncmp(text, "gitdir:", 7) == 0) {
			const char *p = text + 7;

			while (*p == ' ' || *p == '\t')
				p++;
			if (workspace && !s->out->unseen && !shown(s->plan, host, p))
				s->out->unseen =
				    strdup(p); /* a note only: nothing to guard there */
			/* a linked worktree's git dir has a commondir; one without is a main git
			 * dir kept apart (--separate-git-dir, a "gitdir: ./.bare" layout), whose
			 * modules/ and worktrees/ git looks in as a .git's */
			{
				char raw[SBX_PATH_MAX * 2], gd[SBX_PATH_MAX];

				/* this checkout is that git dir's (its review hashes files here) */
				if (config_resolve_raw(p, host, raw, sizeof(raw), gd, sizeof(gd))) {
					s->checkout_of = gd;
					s->checkout = host;
				}
				r = follow(s, host, p,
				           has_commondir(host, p) ? GITDIR_WORKTREE : GITDIR_MAIN,
				           0);
				s->checkout_of = s->checkout = NULL;
			}
			/* and the configs git reads in this checkout: a relative core.hooksPath
			 * names a folder in it */
			if (r >= 0)
				r = survey_checkout_configs(s, host, host);
		}
		return r;
	}
	/* a symlink: cannot be bound, can be swapped (its name is protected); the git dir it
	 * leads to is git's, surveyed as a .git wherever a writable mount shows it, and so are
	 * the configs git reads in this checkout */
	{
		char real[PATH_MAX];
		int r = add_absent(s, hb, false);

		if (r >= 0 && realpath(hb, real)) {
			s->out->n_repos++;
			s->checkout_of = real;
			s->checkout = host;
			r = follow(s, host, real,
			           has_commondir(host, real) ? GITDIR_WORKTREE : GITDIR_MAIN, 0);
			s->checkout_of = s->checkout = NULL;
			if (r >= 0)
				r = survey_checkout_configs(s, host, host);
		}
		return r;
	}
}

/*
 * The profile's read-only paths that a mount cannot protect yet: a readonly, optional mount
 * whose source did not exist when the profile was loaded (spec->absent_ro) and whose target
 * lies beneath a writable bind of the plan. claude-agent's .claude/ in a project that has none is
 * the case: the agent could create .claude/settings.json with a hook that runs at the user's next
 * session, outside any sandbox.
 */
static int survey_unprotected(const struct sbx_spec *spec, const struct sbx_plan *plan,
                              struct sbx_gitguard *out)
{
	for (size_t i = 0; i < spec->n_absent_ro; i++) {
		char host[SBX_PATH_MAX];
		struct stat st;
		size_t op;
		char *copy;

		if (sbx_plan_resolve(plan, spec->absent_ro[i], &op, host, sizeof(host), NULL) < 0 ||
		    plan->ops[op].kind != SBX_PLAN_BIND ||
		    (plan->ops[op].flags & SBX_PLAN_F_READONLY) || lstat(host, &st) == 0 ||
		    errno != ENOENT)
			continue;
		copy = strdup(host);
		if (!copy || push(&out->unprotected, out->n_unprotected, copy) < 0)
			return -ENOMEM;
		out->n_unprotected++;
	}
	return 0;
}

const char *sbx_guard_unprotected_warning(const struct sbx_gitguard *g, char *buf, size_t size)
{
	size_t len = 0, shown = g->n_unprotected < 8 ? g->n_unprotected : 8;

	if (!g->n_unprotected)
		return NULL;
	buf[0] = '\0';
	/* every one, up to eight: which are unprotected is the point of the line */
	for (size_t i = 0; i < shown && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		                        i == 0                                        ? ""
		                        : i + 1 == shown && shown == g->n_unprotected ? " and "
		                                                                      : ", ",
		                        g->unprotected[i]);
	if (g->n_unprotected > shown && len < size)
		len += (size_t)snprintf(buf + len, size - len, " and %zu more",
		                        g->n_unprotected - shown);
	if (len < size)
		snprintf(
		    buf + len, size - len,
		    " %s read-only in this profile but %s not exist, and a mount can only "
		    "protect what exists: the sandbox could create %s (sbx names any that "
		    "appear when the run ends); create %s before the run to protect %s",
		    g->n_unprotected == 1 ? "is" : "are", g->n_unprotected == 1 ? "does" : "do",
		    g->n_unprotected == 1 ? "it" : "them", g->n_unprotected == 1 ? "it" : "them",
		    g->n_unprotected == 1 ? "it" : "them");
	return buf;
}

/* The folder of the user's XDG git files ($XDG_CONFIG_HOME/git, or ~/.config/git). */
static bool xdg_git_dir(char *out, size_t size)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(out, size, "%s/git", xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, size, "%s/.config/git", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

int sbx_gitguard_survey(const struct sbx_spec *spec, const struct sbx_plan *plan,
                        struct sbx_gitguard *out, struct sbx_error *err)
{
	struct survey s = {.plan = plan, .spec = spec, .out = out, .err = err};
	int r = 0;

	memset(out, 0, sizeof(*out));
	{
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		out->launch_sec = (long long)now.tv_sec;
		out->key_ok = getrandom(out->key, sizeof(out->key), 0) == (ssize_t)sizeof(out->key);
	}
	if (survey_unprotected(spec, plan, out) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	if (!spec->protect_git)
		return 0;
	if (spec->workspace)
		r = survey_top(&s, spec->workspace, true);
	/* --root DIR shows DIR at / (its .git at /.git): a top like a writable bind's */
	if (r >= 0 && spec->root)
		r = survey_top(&s, "/", false);
	for (size_t i = 0; r >= 0 && i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];

		if (m->kind == SBX_MOUNT_BIND && !m->readonly &&
		    (!spec->workspace || strcmp(m->target, spec->workspace) != 0))
			r = survey_top(&s, m->target, false);
	}
	/* The user's and the system's git config apply to every repository, and what they
	 * include and name too, even where no repository is in view (an include into the
	 * workspace): read once here if no repository's survey read them. */
	if (r >= 0 && !s.globals_seen)
		r = survey_global_configs(&s, spec->workspace);
	/* Where a writable mount shows those files (a sandbox of the home folder, a dotfiles
	 * folder a symbolic link leads to, GIT_CONFIG_GLOBAL naming one), they are read-only,
	 * or named if absent. */
	if (r >= 0) {
		char files[3][SBX_PATH_MAX + 16];
		size_t n = global_config_files(files);

		for (size_t i = 0; r >= 0 && i < n; i++)
			r = config_path(&s, files[i], "/"); /* and where its links lead */
		/* git's default attributes and ignore files beside the user's XDG config (every
		 * repository's: an outside attack hid a change from git diff with "* -diff" there)
		 */
		if (r >= 0 && xdg_git_dir(files[0], sizeof(files[0]))) {
			char f[SBX_PATH_MAX + 32];

			snprintf(f, sizeof(f), "%s/attributes", files[0]);
			r = config_path(&s, f, "/");
			snprintf(f, sizeof(f), "%s/ignore", files[0]);
			if (r >= 0)
				r = config_path(&s, f, "/");
		}
	}
	for (size_t i = 0; i < s.n_visited; i++)
		free(s.visited[i]);
	free(s.walked_index);
	free(s.walked_links);
	return r;
}

const char *sbx_gitguard_warning(const struct sbx_gitguard *g, bool landlock_backend, char *buf,
                                 size_t size)
{
	size_t n = 0, len = 0;
	const char *first = NULL, *second = NULL;

	for (size_t i = 0; i < g->n_absent; i++) {
		/* under the landlock backend a pinned git dir is read-only whole: nothing can
		 * be made in it */
		if (landlock_backend && g->absent_pinned[i])
			continue;
		if (!first)
			first = g->absent[i];
		else if (!second)
			second = g->absent[i];
		n++;
	}
	if (!n)
		return NULL;
	len = (size_t)snprintf(buf, size, "git: %s%s%s", first, second ? ", " : "",
	                       second ? second : "");
	if (n > 2 && len < size)
		len += (size_t)snprintf(buf + len, size - len, " and %zu more", n - 2);
	if (len < size)
		snprintf(buf + len, size - len,
		         " %s not exist and cannot be protected here: no mount can, and the "
		         "supervisor that refuses such a creation cannot run (a parent sandbox "
		         "supervises, or the kernel lacks user notification); a worker could "
		         "create %s to redirect git's config and hooks (sbx names any that appear "
		         "when the run ends)",
		         n == 1 ? "does" : "do", n == 1 ? "it" : "one");
	return buf;
}

/* Call report once for each path of list that exists now (it did not at launch). */
static size_t name_appeared(char *const *list, char *const *links, size_t n, const char *prefix,
                            const char *why, void (*report)(const char *line, void *ctx), void *ctx)
{
	char line[SBX_PATH_MAX * 2 + 256];
	size_t found = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (lstat(list[i], &st) < 0)
			continue;
		/* a symbolic link there at launch, still the same: nothing appeared */
		if (links && links[i] && S_ISLNK(st.st_mode)) {
			char text[SBX_PATH_MAX];
			ssize_t len = readlink(list[i], text, sizeof(text) - 1);

			if (len > 0) {
				text[len] = '\0';
				if (strcmp(text, links[i]) == 0)
					continue;
			}
		}
		snprintf(line, sizeof(line), "%s%s appeared during the run (%s", prefix, list[i],
		         why);
		report(line, ctx);
		found++;
	}
	return found;
}

/*
 * Index entries that say their file is unchanged when it is not: git takes a file whose stat
 * data matches its index entry for the object the entry names, and reads no further, so an
 * index written with a file's new stat data beside its old object hides the change from git
 * status and git diff (an outside attack). Looked at: the entries that differ from the index's
 * at launch (a keyed digest of each, struct sbx_gitguard_review.entries: not the entry's own
 * ctime, which the worker writes), and where git compares no ctime (core.trustctime false,
 * core.checkStat minimal) also those whose file changed during the run; each only where the
 * file matches it as git compares (else git sees the change itself), hashed as git hashes a
 * blob ("blob SIZE\0" and the bytes), opened beneath the checkout without following any
 * symbolic link. VERIFY_MAX bytes in all; past that, said.
 */
#define VERIFY_MAX (256ull << 20)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct verify_ctx {
	int top;         /* the checkout */
	bool lfs;        /* git-lfs's filter is configured (struct sbx_gitguard.lfs) */
	bool lax;        /* git compares no ctime (struct sbx_gitguard.lax_stat) */
	long long since; /* the launch (CLOCK_REALTIME s): a file's ctime after it was changed
	                    during the run (no call sets a ctime back) */
	size_t hashsz;
	const unsigned char *key; /* struct sbx_gitguard.key */
	const uint64_t *seen;     /* the entries at launch, sorted (NULL: none known) */
	size_t n_seen;
	unsigned long long bytes;
	size_t found, unread;
	char first[SBX_PATH_MAX];
};

/* The blob git-lfs's clean filter makes of a file: its pointer (the LFS specification, v1),
 * hashed as git hashes a blob. */
static void lfs_pointer_hash(struct verify_ctx *c, const unsigned char sha256[32], long long size,
                             unsigned char *out)
{
	char text[160], head[64];
	struct sbx_sha h;
	int n =
	    snprintf(text, sizeof(text), "version https://git-lfs.github.com/spec/v1\noid sha256:");

	for (int i = 0; i < 32; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%02x", sha256[i]);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "\nsize %lld\n", size);
	sbx_sha_init(&h, c->hashsz == 32 ? 256 : 160);
	sbx_sha_update(&h, head, (size_t)snprintf(head, sizeof(head), "blob %d", n) + 1);
	sbx_sha_update(&h, text, (size_t)n);
	sbx_sha_final(&h, out);
}

/* The blob hash of an entry's file, and (c->lfs, a regular file) that of its LFS pointer in
 * `lfs`, from one read. */
static bool blob_hash(struct verify_ctx *c, const struct index_entry *e, unsigned char *out,
                      unsigned char *lfs)
{
	char head[64];
	unsigned char buf[65536], raw[32];
	struct sbx_sha h, h2;
	struct stat st;
	bool ok = true;
	int fd, n;

	if ((e->mode & 0170000) == 0120000) {
		/* a symbolic link's blob is its text: read from its folder, opened beneath the
		 * checkout without following one */
		char dir[SBX_PATH_MAX], text[SBX_PATH_MAX];
		const char *slash = strrchr(e->name, '/');
		ssize_t len;
		int d;

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - e->name) : 1,
		         slash ? e->name : ".");
		d = sbx_openat2(c->top, dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
		                RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH);
		len = d < 0 ? -1 : readlinkat(d, slash ? slash + 1 : e->name, text, sizeof(text));
		if (d >= 0)
			close(d);
		if (len < 0)
			return false;
		n = snprintf(head, sizeof(head), "blob %zd", len);
		sbx_sha_init(&h, c->hashsz == 32 ? 256 : 160);
		sbx_sha_update(&h, head, (size_t)n + 1);
		sbx_sha_update(&h, text, (size_t)len);
		sbx_sha_final(&h, out);
		return true;
	}
	fd = sbx_openat2(c->top, e->name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	                 RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    c->bytes + (unsigned long long)st.st_size > VERIFY_MAX) {
		close(fd);
		return false;
	}
	c->bytes += (unsigned long long)st.st_size;
	n = snprintf(head, sizeof(head), "blob %lld", (long long)st.st_size);
	sbx_sha_init(&h, c->hashsz == 32 ? 256 : 160);
	sbx_sha_update(&h, head, (size_t)n + 1);
	sbx_sha_init(&h2, 256);
	for (long long left = st.st_size; left > 0;) {
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got <= 0) {
			ok = false;
			break;
		}
		sbx_sha_update(&h, buf, (size_t)got);
		if (c->lfs)
			sbx_sha_update(&h2, buf, (size_t)got);
		left -= got;
	}
	close(fd);
	sbx_sha_final(&h, out);
	sbx_sha_final(&h2, raw);
	if (c->lfs)
		lfs_pointer_hash(c, raw, (long long)st.st_size, lfs);
	return ok;
}

static void verify_one(void *ctx, const struct index_entry *e)
{
	struct verify_ctx *c = ctx;
	unsigned char sum[32], lfs[32];
	bool unchanged = false;
	struct stat st;
	uint32_t ctime_s = be32(e->stat), mtime_s = be32(e->stat + 8), size = be32(e->stat + 36);

	/* submodules, marked entries (named apart), intent-to-add; an entry as it was at launch */
	if ((e->mode & 0170000) == 0160000 || (e->flags & 0x8000) || (e->ext & 0x6000))
		return;
	if (c->seen) {
		uint64_t d = entry_digest(c->key, c->hashsz, e);

		unchanged = bsearch(&d, c->seen, c->n_seen, sizeof(d), cmp_u64) != NULL;
	}
	/* an entry as it was at launch: its file is looked at only where git compares no
	 * ctime (a file changed during the run at its size and mtime would be clean to it) */
	if (unchanged && !c->lax)
		return;
	/* a git dir whose checkout sbx does not know: changed entries said, not passed */
	if (c->top < 0) {
		if (!unchanged)
			c->unread++;
		return;
	}
	/* a split index's entry that replaces one of its shared part has no name of its own
	 * (git takes it from the shared entry the replace bitmap points at, which sbx does not
	 * read): not checked, so said (an outside attack hid an edit that way) */
	if (!e->len) {
		c->unread++;
		return;
	}
	if (fstatat(c->top, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (unchanged && (long long)st.st_ctim.tv_sec < c->since - 1) ||
	    (!c->lax && (uint32_t)st.st_ctim.tv_sec != ctime_s) ||
	    (uint32_t)st.st_mtim.tv_sec != mtime_s || (uint32_t)st.st_size != size)
		return; /* untouched during the run, or git sees this one differ by itself */
	memset(lfs, 0, sizeof(lfs));
	if (!blob_hash(c, e, sum, lfs)) {
		c->unread++;
		return;
	}
	/* git-lfs's clean filter gives git the file's pointer, which git commits: the file as
	 * git would record it (where the user's config runs that filter) */
	if (memcmp(sum, e->oid, c->hashsz) == 0 ||
	    (c->lfs && (e->mode & 0170000) == 0100000 && memcmp(lfs, e->oid, c->hashsz) == 0))
		return;
	if (!c->found++)
		snprintf(c->first, sizeof(c->first), "%s", e->name);
}

/* The names of a list ("\nNAME\nNAME\n"), sorted, for lookups in N log N (a list of 2.5
 * million gitlinks compared by strstr took an hour after every run: an outside attack). */
struct names {
	char *buf;
	char **v;
	size_t n;
};

static void names_free(struct names *n)
{
	free(n->buf);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

static bool names_sep(const char *list, char sep, struct names *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	out->buf = strdup(list ? list : "");
	if (!out->buf)
		return false;
	for (char *p = out->buf + (out->buf[0] == sep); *p;) {
		char *end = strchr(p, sep);

		if (!end)
			break;
		*end = '\0';
		if (out->n == cap) {
			char **grown = realloc(out->v, (cap ? cap * 2 : 64) * sizeof(*grown));

			if (!grown) {
				names_free(out);
				return false;
			}
			out->v = grown;
			cap = cap ? cap * 2 : 64;
		}
		out->v[out->n++] = p;
		p = end + 1;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return true;
}

static bool names_of(const char *list, struct names *out)
{
	return names_sep(list, '\n', out);
}

static bool names_has(const struct names *n, const char *name)
{
	return n->n && bsearch(&name, n->v, n->n, sizeof(*n->v), cmp_str);
}

/* Does the list `now` hold a name that `then` did not? (Unreadable: yes.) */
static bool hidden_added(const char *then, const char *now)
{
	struct names t, w;
	bool added = false;

	if (!names_of(then, &t))
		return true;
	if (!names_of(now, &w)) {
		names_free(&t);
		return true;
	}
	for (size_t i = 0; i < w.n && !added; i++)
		added = !names_has(&t, w.v[i]);
	names_free(&t);
	names_free(&w);
	return added;
}

/* Entries one and two folders beneath dir, as survey_nested counts them, *budget at most. */
static void count_nested(int dir, int depth, size_t *budget)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (*budget && (e = readdir(d))) {
		int child;

		if (dot_name(e->d_name))
			continue;
		(*budget)--;
		if (depth < 2 && e->d_type == DT_DIR &&
		    (child = openat(dirfd(d), e->d_name,
		                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			count_nested(child, depth + 1, budget);
			close(child);
		}
	}
	closedir(d);
}

size_t sbx_gitguard_after(const struct sbx_gitguard *g, void (*report)(const char *line, void *ctx),
                          void *ctx)
{
	char line[SBX_PATH_MAX * 2 + 256];
	char **after_links = NULL; /* each review's gitlinks now, from the walk it made */
	size_t found = 0;

	for (size_t i = 0; i < g->n_scanned; i++) {
		size_t budget = NESTED_MAX;
		int dir = open_dir(g->scanned[i]);

		if (dir < 0)
			continue;
		count_nested(dir, 1, &budget);
		close(dir);
		if (budget)
			continue;
		snprintf(line, sizeof(line),
		         "git: %s now holds more entries, two folders deep, than sbx looks through "
		         "for repositories (%d), which it did not at launch: the next launch would "
		         "not look at all of its repositories, whose hooks the worker could then "
		         "write: remove what the sandbox made there",
		         g->scanned[i], NESTED_MAX);
		report(line, ctx);
		found++;
	}
	found += name_appeared(g->unprotected, NULL, g->n_unprotected, "",
	                       "it did not exist at launch, and the profile makes it read-only): "
	                       "look at what the sandbox wrote there before a program outside "
	                       "trusts it",
	                       report, ctx);
	found += name_appeared(g->absent, g->absent_link, g->n_absent, "git: ",
	                       "it did not exist at launch); git reads it to find its config and "
	                       "hooks: look at it before running git there",
	                       report, ctx);
	found += name_appeared(g->appear, NULL, g->n_appear, "git: ",
	                       "it did not exist at launch): git may read a config, hooks, a "
	                       "repository or a rebase's exec lines there: look at it before "
	                       "running git there",
	                       report, ctx);
	/* a fresh project's .git (a folder, or a file naming a git dir elsewhere); one inside
	 * a repository is named once, by `appear` above */
	for (size_t i = 0; i < g->n_fresh; i++) {
		struct stat st;
		bool named = false;

		for (size_t j = 0; j < g->n_appear && !named; j++)
			named = strcmp(g->appear[j], g->fresh[i]) == 0;
		if (named || lstat(g->fresh[i], &st) < 0)
			continue;
		snprintf(line, sizeof(line),
		         "git: %s appeared during the run (the project had no .git at launch): its "
		         "hooks and config would run at the next git command there: look at it "
		         "before running git there",
		         g->fresh[i]);
		report(line, ctx);
		found++;
	}
	for (size_t i = 0; i < g->n_heads; i++) {
		char head[256];
		int fd = open(g->heads[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head) - 1);
		bool valid = false;

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			size_t hex = 0;

			head[n] = '\0';
			while (isxdigit((unsigned char)head[hex]))
				hex++;
			valid = strncmp(head, "ref: refs/", 10) == 0 ||
			        ((hex == 40 || hex == 64) && (head[hex] == '\n' || !head[hex]));
		}
		if (valid)
			continue;
		snprintf(
		    line, sizeof(line),
		    "git: %s no longer names a branch or a commit: git would not take its folder "
		    "for a repository, and may take the folder above it for a bare one: look "
		    "at it before running git there",
		    g->heads[i]);
		report(line, ctx);
		found++;
	}
	/* A rebase's step counters, which git's own prompt script (git-sh-prompt, called from
	 * PROMPT_COMMAND) pastes into PS1, where bash expands them when it draws the next
	 * prompt: the worker may start a rebase, so they cannot be refused; text that is not a
	 * number there would run at the user's next prompt. Said, loudly. */
	for (size_t i = 0; i < g->n_reviews; i++) {
		static const char *const counters[] = {"rebase-merge/msgnum", "rebase-merge/end",
		                                       "rebase-apply/next", "rebase-apply/last"};
		const char *gitdir = g->reviews[i].gitdir;
		_cleanup_close_ int gd = open_dir(gitdir);

		for (size_t k = 0; gd >= 0 && k < SBX_ARRAY_SIZE(counters); k++) {
			/* the prompt reads the whole first line; anything past a number there, or a
			 * counter longer than this, is named */
			char text[4096];
			int fd = sbx_openat2(gd, counters[k], O_RDONLY | O_NONBLOCK | O_CLOEXEC,
			                     RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH);
			ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
			bool number = true;

			if (fd >= 0)
				close(fd);
			if (n <= 0)
				continue;
			number = (size_t)n < sizeof(text) - 1;
			for (ssize_t j = 0; j < n; j++)
				number =
				    number && (isdigit((unsigned char)text[j]) || text[j] == '\n');
			if (number)
				continue;
			snprintf(
			    line, sizeof(line),
			    "git: %s/%s holds text that is not a number: git's prompt script "
			    "(git-sh-prompt, in PROMPT_COMMAND mode) runs it at a shell's next "
			    "prompt in this repository, this shell's too if it uses that script: "
			    "look at it, and remove %s/%s",
			    gitdir, counters[k], gitdir,
			    strncmp(counters[k], "rebase-merge", 12) == 0 ? "rebase-merge"
			                                                  : "rebase-apply");
			report(line, ctx);
			found++;
		}
	}
	after_links = g->n_reviews ? calloc(g->n_reviews, sizeof(*after_links)) : NULL;
	for (size_t i = 0; i < g->n_reviews; i++) {
		static const char *const said[SBX_GIT_REVIEW] = {
		    "its replace refs changed during the run (git replace): git on the host then "
		    "gives the sandbox's content for objects of your history (checkout, reset, "
		    "show, diff): look at git replace -l there",
		    "info/grafts or shallow changed during the run: git rewrites your history's "
		    "parents, or cuts it, by them (git log shows less): look at them",
		    "info/exclude changed during the run: git status no longer shows the new files "
		    "it names: look at it",
		    "info/attributes changed during the run: it can hide changes from git diff "
		    "(-diff) or pick a config's drivers: look at it",
		    "MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, MERGE_MSG or SQUASH_MSG changed "
		    "during the run: your next git commit records the commits they name as "
		    "parents, "
		    "with that message (git status says a merge or pick is in progress; git merge "
		    "--abort or git cherry-pick --abort ends it): look at them",
		    "rerere's recorded resolutions (rr-cache) changed or appeared during the run: "
		    "git merge puts a recorded resolution in place of a conflict, and git turns "
		    "rerere on where rr-cache exists (git rerere forget PATH drops one; rm -r "
		    ".git/rr-cache drops all): look before your next merge there",
		    "its commit-graph or its object alternates changed during the run (git gc and "
		    "git commit-graph write change the graph): git log and git diff take history's "
		    "trees and parents from the graph, and objects from the alternates (git "
		    "commit-graph verify checks the graph; objects/info/alternates names the "
		    "others): look at them before trusting git log there",
		    "files were marked skip-worktree or assume-unchanged during the run (git "
		    "update-index): git status and git diff pass over their changes (git ls-files "
		    "-v shows them, in lower case or with S): look at them",
		    "an untracked cache appeared in its index during the run: git status trusts it "
		    "to list new files, and may leave out one the sandbox made (git -c "
		    "core.untrackedCache=false status lists them all): look before trusting it",
		    "its index's resolve-undo data or unresolved conflicts changed during the run: "
		    "git checkout -m, --theirs and git restore --merge would put that content in "
		    "place of a file (git ls-files -u and --resolve-undo list them): look at them",
		};
		const struct sbx_gitguard_review *rv = &g->reviews[i];
		_cleanup_close_ int gd = open_dir(rv->gitdir);
		struct verify_ctx c = {.top = -1,
		                       .lfs = g->lfs,
		                       .lax = g->lax_stat,
		                       .since = g->launch_sec,
		                       .key = g->key};
		struct index_extras x = {0};
		char untr_now[sizeof(x.untr)] = "";
		_cleanup_free_ char *resolve_now = NULL;

		/* the cached trees are checked where the index was written during the run */
		if (gd >= 0) {
			struct stat ist;

			x.collect = fstatat(gd, "index", &ist, AT_SYMLINK_NOFOLLOW) == 0 &&
			            (long long)ist.st_ctim.tv_sec >= g->launch_sec - 1;
		}

		/* the index's walk checks each entry written during the run too (verify_one), and
		 * gives the gitlinks the loop below compares */
		if (gd >= 0) {
			c.top = rv->worktree ? open_dir(rv->worktree) : -1;
			c.hashsz = sha256_repo(gd) ? 32 : 20;
		}
		if (rv->entries_ok) {
			if (rv->n_entries)
				qsort(rv->entries, rv->n_entries, sizeof(*rv->entries), cmp_u64);
			/* bsearch wants a base even for none */
			c.seen = rv->entries ? rv->entries : (const uint64_t *)(const void *)g->key;
			c.n_seen = rv->n_entries;
		}
		for (int k = 0; k < SBX_GIT_REVIEW; k++) {
			_cleanup_free_ char *now =
			    gd < 0                  ? NULL
			    : k == REVIEW_UNTRACKED ? strdup(untr_now)
			    : k == REVIEW_RESOLVE   ? (resolve_now ? strdup(resolve_now) : NULL)
			    : k == REVIEW_HIDDEN
			        ? review_part(gd, rv->gitdir, k, verify_one, &c, &x,
			                      after_links ? &after_links[i] : NULL)
			        : review_part(gd, rv->gitdir, k, NULL, NULL, NULL, NULL);

			if (k == REVIEW_HIDDEN) {
				snprintf(untr_now, sizeof(untr_now), "%s", x.untr);
				free(resolve_now);
				resolve_now = resolve_text(&x);
			}
			/* resolve-undo data gone is nothing planted; nor is a merge ended */
			if (k == REVIEW_RESOLVE && now && !now[0])
				continue;
			if (k == REVIEW_MERGE && now && merge_ended(now))
				continue;
			/* an untracked cache that appeared: one the user keeps
			 * (core.untrackedCache, feature.manyFiles) changes at every git status, and
			 * is not named (a warning at every run would teach users to skip them all;
			 * sbx-profile(5) says so) */
			if (k == REVIEW_UNTRACKED && now &&
			    (!now[0] || (rv->part[k] && rv->part[k][0])))
				continue;

			if (now && rv->part[k] && strcmp(now, rv->part[k]) == 0)
				continue;
			/* an index there that sbx cannot read now (a list starts with '\n'): said
			 */
			if (k == REVIEW_HIDDEN && now && now[0] && now[0] != '\n') {
				snprintf(
				    line, sizeof(line),
				    "git: %s/index cannot be read by sbx after the run (too large, "
				    "or a form sbx does not read): what it hides from git status "
				    "is "
				    "not known: look before trusting git status there",
				    rv->gitdir);
				report(line, ctx);
				found++;
				continue;
			}
			/* marks taken away, not added: nothing is hidden that was not */
			if (k == REVIEW_HIDDEN && now && rv->part[k] &&
			    !hidden_added(rv->part[k], now))
				continue;
			snprintf(line, sizeof(line), "git: %s: %s", rv->gitdir,
			         gd < 0 ? "is no longer the folder it was at launch: look at it "
			                  "before running git there"
			                : said[k]);
			report(line, ctx);
			found++;
			if (gd < 0)
				break;
		}
		if (c.top >= 0)
			close(c.top);
		if (x.tree_bad) {
			snprintf(
			    line, sizeof(line),
			    "git: %s: the index's cached tree for %s, written during the run, does "
			    "not match its entries, or sbx could not check it: git commit and git "
			    "stash would record content other than what git status and git diff "
			    "show (git read-tree HEAD, then git add what you meant to, rebuilds "
			    "it): look before committing there",
			    rv->gitdir, x.tree_at);
			report(line, ctx);
			found++;
		}
		if (c.found) {
			snprintf(line, sizeof(line),
			         "git: %s: the index calls %s%s%.0zu%s "
			         "unchanged while %s not: git status and git diff show no change "
			         "there (git trusts stat data: touch the file, then git status "
			         "shows it; rm .git/index, then git reset -q, makes git hash every "
			         "file, and "
			         "unstages what was staged): look before trusting that checkout",
			         rv->gitdir, c.first, c.found > 1 ? " and " : "",
			         c.found > 1 ? c.found - 1 : 0, c.found > 1 ? " more" : "",
			         c.found > 1 ? "they are" : "it is");
			report(line, ctx);
			found++;
		}
		if (c.unread) {
			snprintf(
			    line, sizeof(line),
			    "git: %s: %zu files the index calls "
			    "unchanged could not be checked (not regular files, past %llu MiB, "
			    "entries of a split index, or of a git dir whose checkout sbx does "
			    "not know): rm .git/index, then git reset -q, "
			    "makes git hash every file (and unstages what was staged), and git "
			    "status then shows a change they hide",
			    rv->gitdir, c.unread, VERIFY_MAX >> 20);
			report(line, ctx);
			found++;
		}
	}
	for (size_t i = 0; i < g->n_indexes; i++) {
		char *dir = strdup(g->indexes[i]), *slash;
		_cleanup_free_ char *now = NULL;
		int gd;

		if (!dir)
			continue;
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		/* walked already with its git dir's review */
		for (size_t k = 0; after_links && k < g->n_reviews && !now; k++)
			if (after_links[k] && strcmp(g->reviews[k].gitdir, dir) == 0) {
				now = after_links[k];
				after_links[k] = NULL;
			}
		gd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (!now)
			now = index_gitlinks(g->indexes[i], gd >= 0 && sha256_repo(gd) ? 32 : 20);
		if (gd >= 0)
			close(gd);
		{
			struct stat ist;

			/* there, but not read: what it stages is not known, so it is said */
			if (!now && lstat(g->indexes[i], &ist) == 0) {
				int ifd = open(g->indexes[i],
				               O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
				int oerr = ifd < 0 ? errno : 0;

				if (ifd >= 0)
					close(ifd);
				snprintf(
				    line, sizeof(line),
				    "git: %s cannot be read by sbx after the run (%s): it may "
				    "stage "
				    "a submodule, whose own config and hooks git status runs: look "
				    "at it before running git here",
				    g->indexes[i],
				    S_ISLNK(ist.st_mode)    ? "a symbolic link"
				    : !S_ISREG(ist.st_mode) ? "not a regular file"
				    : oerr                  ? strerror(oerr)
				    : (unsigned long long)ist.st_size > INDEX_MAX
				        ? "larger than sbx reads"
				        : "a split index whose shared part is gone, names past 64 "
				          "MiB, or a format sbx does not read");
				report(line, ctx);
				found++;
			}
		}
		if (now) {
			struct names then, cur;
			size_t made = 0;
			/* the working tree is the folder that holds .git */
			char *top = strrchr(dir, '/');

			if (!names_of(g->links[i], &then) || !names_of(now, &cur)) {
				names_free(&then);
				snprintf(
				    line, sizeof(line),
				    "git: %s could not be compared after the run (out of "
				    "memory): it may stage a submodule: look at it before running "
				    "git here",
				    g->indexes[i]);
				report(line, ctx);
				found++;
				free(dir);
				continue;
			}
			for (size_t k = 0; k < cur.n; k++) {
				if (names_has(&then, cur.v[k]) || ++made > 8)
					continue; /* past 8, counted below */
				snprintf(
				    line, sizeof(line),
				    "git: %.*s/%s was made a submodule during the run (a gitlink "
				    "in %s): git status and other commands run git there, with its "
				    "own config and hooks: look at it before running git here",
				    top ? (int)(top - dir) : 0, dir, cur.v[k], g->indexes[i]);
				report(line, ctx);
			}
			if (made > 8) {
				snprintf(line, sizeof(line),
				         "git: and %zu more submodules made during the run in %s",
				         made - 8, g->indexes[i]);
				report(line, ctx);
			}
			found += made;
			names_free(&then);
			names_free(&cur);
		}
		free(dir);
	}
	for (size_t i = 0; i < g->n_watch; i++) {
		/* not followed if it is a symlink now: that is what is reported */
		int fd = open(g->watch[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *de;
		struct names seen;
		size_t here = 0;

		if (!d) {
			if (fd >= 0)
				close(fd);
			snprintf(
			    line, sizeof(line),
			    "git: %s is no longer the folder it was at launch: look at it before "
			    "running git there",
			    g->watch[i]);
			report(line, ctx);
			found++;
			continue;
		}
		/* entries are '/'-separated ("/NAME/NAME/"), and no name holds a '/' */
		if (!names_sep(g->seen[i], '/', &seen)) {
			closedir(d);
			snprintf(
			    line, sizeof(line),
			    "git: %s could not be compared after the run (out of memory): look "
			    "at it before running git there",
			    g->watch[i]);
			report(line, ctx);
			found++;
			continue;
		}
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (names_has(&seen, de->d_name))
				continue;
			if (++here > 8)
				continue; /* counted below, not each named */
			snprintf(
			    line, sizeof(line),
			    "git: %s/%s appeared during the run: a git dir (a submodule's or a "
			    "worktree's) whose config and hooks sbx did not guard: look at it "
			    "before running git there",
			    g->watch[i], de->d_name);
			report(line, ctx);
		}
		closedir(d);
		names_free(&seen);
		if (here > 8) {
			snprintf(line, sizeof(line), "git: and %zu more appeared in %s", here - 8,
			         g->watch[i]);
			report(line, ctx);
		}
		found += here;
	}
	for (size_t i = 0; after_links && i < g->n_reviews; i++)
		free(after_links[i]);
	free(after_links);
	return found;
}
