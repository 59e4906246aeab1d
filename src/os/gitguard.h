/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_GITGUARD_H
#define SBX_OS_GITGUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

/*
 * git's control surface. Where a writable bind of the plan shows a git repository at launch
 * (a .git folder, or a .git file naming a git dir, at the top of the workspace or of a
 * writable mount), git runs programs named there: hooks/, and the config (core.hooksPath,
 * core.fsmonitor, aliases, filters, core.sshCommand, includes); commondir redirects all of it
 * to another git dir. A hook planted by a worker runs on the host at the next git command.
 * src/os/gitguard.c looks and reports; core changes the spec and the plan.
 *
 * sbx_gitguard_survey finds the guards for the spec (the caller adds them, sbx_spec_add_guard):
 * .git bound onto itself (a mount point cannot be
 * renamed, removed or replaced: EBUSY), and read-only every file and folder git reads to find
 * hooks, a config or another git dir that exists at launch: config, config.worktree, hooks/,
 * commondir, and the same beneath modules/ (submodules' git dirs, nested) and worktrees/
 * (with their gitdir); a .git file, and the git dir it names where a writable bind shows it;
 * each submodule's checkout (the gitlinks of the index); and where the config sends git for
 * hooks or more config (core.hooksPath, include.path).
 *
 * What mounts cannot guard: a name that does not exist at launch in a folder git must be able
 * to write (.git/commondir in an ordinary repository; hooks/ or config.worktree where absent;
 * new submodules' and worktrees' git dirs). Those are listed in `absent` for one warning line
 * at launch, and sbx_gitguard_after names any that appeared during the run.
 */
/* The parts of a git dir's review (struct sbx_gitguard_review, src/os/gitguard.c): replace
 * refs, grafts and shallow, info/exclude, info/attributes, a merge's or pick's state,
 * rerere's resolutions, the commit-graph and alternates, index entries hidden from git status, the
 * index's untracked cache, its resolve-undo data. */
#define SBX_GIT_REVIEW 10

struct sbx_gitguard {
	char **absent;       /* host paths git would read that do not exist and cannot be guarded */
	bool *absent_pinned; /* each in a pinned git dir (read-only whole under landlock) */
	char **absent_link;  /* each that is a symbolic link at launch: its text (NULL: absent);
	                        the same link after the run is not named as appeared */
	size_t n_absent;
	char **appear; /* host paths that do not exist at launch, named after the run if they
	                  appear, but not warned of at launch: a workspace's own HEAD, config,
	                  hooks (git takes a folder for a bare repository when its .git is not
	                  valid), a git dir's modules/ and worktrees/ */
	size_t n_appear;
	char **heads; /* .git/HEAD files: still valid after the run? */
	size_t n_heads;
	char **indexes; /* each repository's .git/index, and the gitlinks (submodules) it held at
	                   launch, '\n'-separated: a gitlink added during the run makes git run
	                   git in that folder, with its own config, at the next git status */
	char **links;
	size_t n_indexes;
	char **watch; /* folders whose entries are compared after the run (modules/, worktrees/) */
	char **seen;  /* for each of watch: its entries at launch, as "/NAME/NAME/" */
	size_t n_watch;
	char **unprotected; /* host paths a profile makes read-only (readonly and optional mounts:
	                       .claude/, .mcp.json, .git/hooks) that do not exist at launch and lie
	                       beneath a writable mount: a worker can create them, and a program
	                       run outside may trust them later. Named at launch, and after the
	                       run if they appeared (a supervisor will deny their creation) */
	size_t n_unprotected;
	char **fresh; /* host paths of the .git that the workspace or a writable bind's top does
	                 not have (a fresh project, or a folder inside a repository): a worker's
	                 `git init` there would plant hooks that run at the user's next git
	                 command. The supervisor keeps it from being created
	                 (sbx_finish_in.git_fresh) */
	size_t n_fresh;
	size_t n_repos; /* repositories found */
	char *unseen;   /* the workspace's .git names a git dir that no mount shows (a linked
	                   worktree of a repository outside it): git fails there (a note) */
	struct sbx_gitguard_bind {
		char *path;      /* sandbox path: bound onto itself */
		bool readonly;   /* else only pinned (a mount point cannot be renamed) */
		const char *why; /* static, for --dry-run */
	} * guards;              /* for the spec, in the order found */
	size_t n_guarded;
	/* Every git dir surveyed (a .git, a submodule's, a linked worktree's), with what it held
	 * at launch that makes git on the host show other content or hide changes, compared
	 * after the run: its rebase counters, its replace refs and grafts, info/exclude and
	 * info/attributes, and the index entries marked skip-worktree or assume-unchanged. */
	struct sbx_gitguard_review {
		char *gitdir;               /* host path */
		char *worktree;             /* its checkout's host path, where known, or NULL */
		char *part[SBX_GIT_REVIEW]; /* each a text, compared whole */
		uint64_t *entries; /* each index entry at launch (its name, stat data, object and
		                      flags), as a keyed digest (sbx_siphash under `key`): one
		                      the same after the run was not written during it */
		size_t n_entries;
		bool entries_ok; /* the index was read at launch (else every entry is checked) */
	} * reviews;
	size_t n_reviews;
	unsigned char key[16]; /* random, for the digests of reviews[].entries */
	bool key_ok;
	char **scanned; /* writable tops looked through whole for repositories (survey_nested):
	                   named after the run if they no longer can be */
	size_t n_scanned;
	char *unscanned; /* a writable top with more entries two folders deep than sbx looks
	                    through for repositories (survey_nested), or NULL: said at launch */
	bool lax_stat;   /* a git config sets core.trustctime false or core.checkStat minimal:
	                    git then calls a file clean by its mtime and size alone */
	bool lfs;        /* a git config names git-lfs's filter (filter.lfs.clean or .process): an
	                           index entry may hold its file's LFS pointer rather than the file */
	long long launch_sec; /* when the survey ran (CLOCK_REALTIME): index entries whose stat
	                         data is newer were written during the run */
};

void sbx_gitguard_clear(struct sbx_gitguard *g);

/* Survey the repositories the plan shows writable (spec->workspace, and the top of each
 * writable bind of the spec) and find their guards (out->guards); the caller adds them to the
 * spec and rebuilds the plan. */
int sbx_gitguard_survey(const struct sbx_spec *spec, const struct sbx_plan *plan,
                        struct sbx_gitguard *out, struct sbx_error *err);

/* One line for stderr (in buf) naming the profile's read-only paths that do not exist and so
 * cannot be protected (`unprotected`), or NULL if none. */
const char *sbx_guard_unprotected_warning(const struct sbx_gitguard *g, char *buf, size_t size);

/* One line for stderr (in buf) naming what cannot be guarded, or NULL if nothing. */
const char *sbx_gitguard_warning(const struct sbx_gitguard *g, bool landlock_backend, char *buf,
                                 size_t size);

/* After the run: call report(line, ctx) once per control file or git dir that appeared since
 * the survey (read-only: nothing on the host is changed). Returns how many. */
size_t sbx_gitguard_after(const struct sbx_gitguard *g, void (*report)(const char *line, void *ctx),
                          void *ctx);

#endif
