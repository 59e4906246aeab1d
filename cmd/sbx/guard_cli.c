/* SPDX-License-Identifier: MIT */
/*
 * Guards on the command line (src/os/gitguard.h): git's control surface surveyed and the
 * plan rebuilt with its guards, guards the host lacks dropped, what cannot be guarded handed
 * to sbx_plan_finish for --dry-run's limits and said in one warning line at launch, and what
 * appeared in git's control surface during the run named afterwards.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sbx/escape.h"
#include "sbx/finish.h"
#include "os/gitguard.h"
#include "os/guard.h"

int sbx_cli_guard_plan(struct sbx_spec *spec, const struct sbx_host *host, struct sbx_plan **plan,
                       struct sbx_gitguard *git, struct sbx_error *err)
{
	int r = sbx_gitguard_survey(spec, *plan, git, err);

	/* the guards are the spec's */
	for (size_t i = 0; r >= 0 && i < git->n_guarded; i++)
		r = sbx_spec_add_guard(spec, git->guards[i].path, git->guards[i].readonly, false,
		                       git->guards[i].why, err);
	if (r < 0)
		return r;
	if (git->n_guarded) {
		/* plan again with them */
		sbx_plan_free(*plan);
		*plan = NULL;
		r = sbx_plan_build(spec, host, plan, err);
		if (r < 0)
			return r;
	}
	/* guards the host lacks dropped */
	sbx_plan_prune_guards(*plan, sbx_guard_bindable, NULL);
	return 0;
}

void sbx_cli_guard_lines(const struct sbx_gitguard *git, struct sbx_cli_git_lines *lines,
                         struct sbx_finish_in *in)
{
	char line[8192];

	in->git_repos = git && git->n_repos;
	/* what the supervisor keeps from being created (host paths; finish maps them) */
	in->git_absent = git ? git->absent : NULL;
	in->n_git_absent = git ? git->n_absent : 0;
	in->git_fresh = git ? git->fresh : NULL;
	in->n_git_fresh = git ? git->n_fresh : 0;
	/* sbx_gitguard_warning's line names fewer paths under the landlock backend, which
	 * keeps a pinned git dir read-only whole: one for each, the plan takes its backend's */
	for (int ll = 0; ll < 2; ll++) {
		in->git_warning[ll] = NULL;
		if (git && sbx_gitguard_warning(git, ll, line, sizeof(line))) {
			/* names from the host and from what a worker made: escaped */
			sbx_escape(lines->text[ll], sizeof(lines->text[ll]), line, SBX_ESCAPE_TEXT);
			in->git_warning[ll] = lines->text[ll];
		}
	}
}

void sbx_cli_guard_warn(FILE *f, const struct sbx_plan *plan, const struct sbx_gitguard *git,
                        bool again)
{
	char line[8192];

	if (!again && git && git->unseen && sbx_cli_notes != SBX_NOTES_QUIET)
		fprintf(f,
		        "sbx: note: git: the workspace's .git names %s, which no mount shows (a "
		        "linked worktree of a repository outside it): git fails there; mount the "
		        "repository too (-v REPO), which is guarded as the workspace's would be\n",
		        sbx_cli_esc(git->unseen));
	if (!again && git && git->unscanned)
		fprintf(
		    f,
		    "sbx: warning: git: %s holds more entries, two folders deep, than sbx looks "
		    "through for "
		    "repositories (4096): the hooks and config of one it did not reach are as "
		    "writable as its files; mount that repository itself to have it guarded\n",
		    sbx_cli_esc(git->unscanned));
	if (git && git->n_repos && plan->backend_landlock && sbx_cli_notes != SBX_NOTES_QUIET)
		fputs("sbx: note: git: the landlock backend cannot make .git a mount point of its "
		      "own, so it is read-only whole (git can read, not commit) and the folder "
		      "above it takes no new entries; a profile with 'protect_git: false' leaves "
		      "them writable\n",
		      f);
	/* no new repository where nothing supervises: a warning; a parent's supervisor holds
	 * it where its profile protects git: a note */
	for (size_t i = 0; !again && i < plan->n_limits; i++) {
		bool parent = strstr(plan->limits[i], "parent sandbox") != NULL;

		if (strncmp(plan->limits[i], SBX_NO_NEW_GIT_PREFIX,
		            strlen(SBX_NO_NEW_GIT_PREFIX)) ||
		    (parent && sbx_cli_notes == SBX_NOTES_QUIET))
			continue;
		fprintf(f, "sbx: %s: %s\n", parent ? "note" : "warning", plan->limits[i]);
	}
	/* What those lines name is what the supervisor keeps from being created, where it runs
	 * (plan->sup.protected_paths; without a listener it warns for itself) */
	if (plan->sup.enabled && plan->sup.n_protected)
		return;
	if (!again && git && sbx_guard_unprotected_warning(git, line, sizeof(line)))
		fprintf(f, "sbx: warning: %s\n", sbx_cli_esc(line));
	/* again: the same launch falling back to the landlock backend, which keeps more of
	 * .git (read-only whole) than the line said already */
	if (!again && git && plan->git_unprotected &&
	    sbx_gitguard_warning(git, plan->backend_landlock, line, sizeof(line)))
		fprintf(f, "sbx: warning: %s\n", sbx_cli_esc(line));
}

static void print_line(const char *line, void *ctx)
{
	fprintf((FILE *)ctx, "sbx: warning: %s\n", sbx_cli_esc(line));
}

void sbx_cli_guard_after(FILE *f, const struct sbx_gitguard *git)
{
	if (git)
		sbx_gitguard_after(git, print_line, f);
}
