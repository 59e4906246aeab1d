/* SPDX-License-Identifier: MIT */
/*
 * Guards on the command line (include/sbx/guard.h): git's control surface surveyed and the
 * plan rebuilt with its guards, guards the host lacks dropped, what the kernel does not keep
 * said (--dry-run's limits, one warning line at launch), and what appeared in git's control
 * surface during the run named afterwards.
 */
#include <stdio.h>

#include "cli.h"
#include "sbx/guard.h"
#include "sbx/policy.h"

int sbx_cli_guard_plan(struct sbx_spec *spec, const struct sbx_host *host, struct sbx_plan **plan,
                       struct sbx_gitguard *git, struct sbx_error *err)
{
	int r = sbx_gitguard_survey(spec, *plan, git, err);

	if (r < 0)
		return r;
	if (git->n_guarded) {
		/* the guards are the spec's now: plan again with them */
		sbx_plan_free(*plan);
		*plan = NULL;
		r = sbx_plan_build(spec, host, plan, err);
		if (r < 0)
			return r;
	}
	return sbx_guards_prune(*plan, err);
}

int sbx_cli_guard_limits(const struct sbx_cli_run *run, struct sbx_plan *plan,
                         const struct sbx_gitguard *git, struct sbx_error *err)
{
	struct sbx_policy_view view = {
	    .plan = plan,
	    .spec = run->spec,
	    .policies = run->profile ? &run->profile->policies : NULL,
	};
	char line[8192];
	int r = sbx_policy_exec_limits(&view, plan, err);

	if (r >= 0 && git && sbx_gitguard_warning(git, plan->backend_landlock, line, sizeof(line)))
		r = sbx_plan_add_limit(plan, line, err);
	if (r >= 0 && git && git->n_repos && plan->backend_landlock)
		r = sbx_plan_add_limit(
		    plan,
		    "git: the landlock backend mounts nothing, so .git cannot be a mount point of "
		    "its own: it is read-only whole (git can read, not commit), and the folders "
		    "above it are carved; a profile with protect_git: false leaves it writable",
		    err);
	return r;
}

void sbx_cli_guard_warn(FILE *f, const struct sbx_plan *plan, const struct sbx_gitguard *git,
                        bool again)
{
	char line[8192];

	if (git && git->n_repos && plan->backend_landlock)
		fputs("sbx: note: git: the landlock backend cannot make .git a mount point of its "
		      "own, so it is read-only whole (git can read, not commit) and the folder "
		      "above it takes no new entries; a profile with 'protect_git: false' leaves "
		      "them writable\n",
		      f);
	/* again: the same launch falling back to the landlock backend, which keeps more of
	 * .git (read-only whole) than the line said already */
	if (!again && git && sbx_gitguard_warning(git, plan->backend_landlock, line, sizeof(line)))
		fprintf(f, "sbx: warning: %s\n", line);
}

static void print_line(const char *line, void *ctx)
{
	fprintf((FILE *)ctx, "sbx: warning: %s\n", line);
}

void sbx_cli_guard_after(FILE *f, const struct sbx_gitguard *git)
{
	if (git)
		sbx_gitguard_after(git, print_line, f);
}
