/* SPDX-License-Identifier: MIT */
/*
 * What the profile commands share: the host facts the loader needs (variables, the search
 * path, whether a path exists), loading a profile into a spec, building the plan and the
 * decision view, and printing the loader's notes. Nothing here exits.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "sbx/profile.h"
#include "os/fs.h"
#include "os/gitguard.h"
#include "os/probe.h"
#include "os/state.h"
#include "os/trust.h"

extern char **environ;

static bool host_exists(const char *path, void *ctx)
{
	struct stat st;

	(void)ctx;
	return lstat(path, &st) == 0;
}

/* Run from the build tree (not installed)? Then the source tree's profiles/ is searched. */

void sbx_cli_profile_env_clear(struct sbx_cli_profile_env *e)
{
	sbx_strv_free(e->search);
	free(e->home);
	free(e->user);
	free(e->workspace);
	memset(e, 0, sizeof(*e));
}

int sbx_cli_profile_env_init(struct sbx_cli_profile_env *e, const char *workspace,
                             struct sbx_error *err)
{
	const char *home = getenv("HOME"), *user = getenv("USER");
	struct passwd *pw = NULL;
	size_t n;
	int r;

	memset(e, 0, sizeof(*e));
	/* /etc/passwd read directly (fgetpwent, no NSS): sbx is linked static, and this is only
	 * the fallback for an unset HOME or USER. */
	if (!home || home[0] != '/' || !user || !*user) {
		FILE *f = fopen("/etc/passwd", "re");

		while (f && (pw = fgetpwent(f)) && pw->pw_uid != getuid())
			;
		if (f)
			fclose(f);
	}
	if (!home || home[0] != '/')
		home = pw ? pw->pw_dir : NULL;
	if (!user || !*user)
		user = pw ? pw->pw_name : NULL;
	e->home = home ? strdup(home) : NULL;
	e->user = user ? strdup(user) : NULL;
	e->workspace = workspace ? strdup(workspace) : getcwd(NULL, 0);
	if ((home && !e->home) || (user && !e->user) || !e->workspace)
		return sbx_error_set(err, SBX_ERR_SETUP, errno ? errno : ENOMEM,
		                     "cannot read the home directory, user or workspace");
	r = sbx_profile_search_path(environ, e->home, &e->search, &n, err);
	if (r < 0)
		return r;
	e->opts = (struct sbx_profile_opts){
	    .vars = {.home = e->home,
	             .workspace = e->workspace,
	             .user = e->user,
	             .uid = (unsigned)getuid(),
	             .environ = environ},
	    .search = e->search,
	    .n_search = n,
	    .exists = host_exists,
	    .is_file = sbx_fs_is_file,
	    .resolve = sbx_fs_realpath,
	    /* only files that no one but the caller or root could have written */
	    .read = sbx_trust_read,
	};
	return 0;
}

int sbx_cli_load_profile(const char *arg, const char *workspace, struct sbx_spec *spec,
                         struct sbx_profile **out, struct sbx_error *err)
{
	struct sbx_cli_profile_env e;
	int r = sbx_cli_profile_env_init(&e, workspace, err);

	if (r >= 0)
		r = sbx_profile_load(arg, &e.opts, spec, out, err);
	sbx_cli_profile_env_clear(&e);
	if (r == -ENOENT && err && !sbx_profile_arg_is_file(arg) && strstr(err->msg, "not found"))
		sbx_cli_hint_profile(err, arg);
	return r;
}

void sbx_cli_print_notes(FILE *f, const struct sbx_profile *p, const struct sbx_plan *plan)
{
	size_t n;

	if (sbx_cli_notes == SBX_NOTES_QUIET)
		return;
	/* Nothing to do about them: a profile names what it would use where it exists. */
	if (p && p->n_skipped && sbx_cli_notes == SBX_NOTES_ALL) {
		fprintf(f, "sbx: note: optional mount%s skipped, not on this host:",
		        p->n_skipped == 1 ? "" : "s");
		for (size_t i = 0; i < p->n_skipped; i++)
			fprintf(f, " %s", sbx_cli_esc(p->skipped[i]));
		fputc('\n', f);
	}
	/* A mask over a path that does not exist at launch hides nothing; a file the worker
	 * creates there later is its own, but one a host process creates meanwhile would be
	 * visible. Say so rather than stay silent: one line, the paths with --verbose. */
	n = 0;
	for (size_t i = 0; plan && !plan->sup.hide_later && i < plan->n_ops; i++) {
		char host[SBX_PATH_MAX];
		size_t op;
		struct stat st;
		const struct sbx_plan_op *o = &plan->ops[i];
		struct sbx_plan under = *plan;

		if (o->kind != SBX_PLAN_MASK || strcmp(o->why, "hide") != 0)
			continue;
		under.n_ops = i; /* resolve through what lies beneath the mask */
		if (sbx_plan_resolve(&under, o->target, &op, host, sizeof(host), NULL) < 0 ||
		    lstat(host, &st) == 0 || (plan->ops[op].flags & SBX_PLAN_F_READONLY))
			continue;
		if (n++ == 0 && sbx_cli_notes == SBX_NOTES_ALL)
			fputs(
			    "sbx: note: paths to hide that do not exist now, and would not be "
			    "hidden if created later (a mask or a Landlock rule needs a path that "
			    "exists):",
			    f);
		if (sbx_cli_notes == SBX_NOTES_ALL)
			fprintf(f, " %s", sbx_cli_esc(o->target));
	}
	if (n && sbx_cli_notes == SBX_NOTES_ALL)
		fputs("\nsbx: note: to hide them anyway, create them (empty) before the launch, "
		      "or hide the directory that will hold them\n",
		      f);
	else if (n)
		fprintf(f,
		        "sbx: note: %zu path%s to hide do%s not exist yet, and would not be hidden "
		        "if created during the run (--verbose names them)\n",
		        n, n == 1 ? "" : "s", n == 1 ? "es" : "");
}

int sbx_cli_build_view(const char *profile, const char *workspace, bool compile,
                       struct sbx_cli_view *v, struct sbx_error *err)
{
	int r;

	memset(v, 0, sizeof(*v));
	v->spec = sbx_spec_new();
	if (!v->spec)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_probe_host(&v->host, environ, err);
	if (r < 0)
		return r;
	r = sbx_spec_set_str(&v->spec->workspace, workspace ? workspace : v->host.cwd, err);
	if (r < 0)
		return r;
	if (profile) {
		r = sbx_cli_load_profile(profile, v->spec->workspace, v->spec, &v->profile, err);
		if (r < 0)
			return r;
		sbx_spec_drop_unhidden(v->spec);
		if (compile) {
			r = sbx_policy_compile(v->spec, &v->profile->policies, err);
			if (r < 0)
				return r;
		}
	}
	/* the home as a run would have it */
	r = sbx_cli_home_facts(v->spec, false, err);
	if (r < 0)
		return r;
	r = sbx_spec_finish(v->spec, err);
	/* sbx's own state is hidden as a launch would hide it (nothing is made here) */
	if (r >= 0) {
		struct sbx_state_pins pins;

		r = sbx_state_guard(v->spec, &v->host, false, &pins, NULL, err);
		if (r >= 0)
			r = sbx_spec_add_pins(v->spec, pins.paths, pins.n, err);
		sbx_state_pins_clear(&pins);
	}
	if (r < 0)
		return r;
	r = sbx_plan_build(v->spec, &v->host, &v->plan, err);
	if (r >= 0) {
		/* as `sbx run` plans it: git's control surface guarded where the host has it */
		struct sbx_gitguard git;

		r = sbx_cli_guard_plan(v->spec, &v->host, &v->plan, &git, err);
		/* the supervisor's protected paths, as a launch would have them where it can
		 * supervise: sbx check answers for absent paths as the kernel then does */
		if (r >= 0) {
			struct sbx_finish_in in = {
			    .spec = v->spec, .policies = v->profile ? &v->profile->policies : NULL};
			struct sbx_finish_facts facts = {0};
			struct sbx_cli_git_lines lines;

			sbx_cli_guard_lines(&git, &lines, &in);
			r = sbx_sup_finish(&in, &facts, v->plan, err);
		}
		sbx_gitguard_clear(&git);
	}
	return r;
}

void sbx_cli_view_clear(struct sbx_cli_view *v)
{
	sbx_plan_free(v->plan);
	sbx_profile_free(v->profile);
	sbx_spec_free(v->spec);
	sbx_probe_host_clear(&v->host);
	memset(v, 0, sizeof(*v));
}

/* Is the profile enforceable by this version? (Compiles a scratch copy.) */
int sbx_cli_check_enforceable(const char *profile, const char *workspace, struct sbx_error *err)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	_cleanup_profile_ struct sbx_profile *p = NULL;
	int r;

	if (!spec)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_spec_set_str(&spec->workspace, workspace, err);
	if (r >= 0)
		r = sbx_cli_load_profile(profile, workspace, spec, &p, err);
	if (r >= 0) {
		sbx_spec_drop_unhidden(spec);
		r = sbx_policy_compile(spec, &p->policies, err);
	}
	return r;
}

/*
 * `sbx run`'s first pass: find -p/--profile and -w/--workspace wherever they are, and load
 * the profile into spec before any other flag, so that flags add to it and a flag naming one
 * of its targets replaces that mount (sbx(1)). Unknown options are left for the
 * main pass to report.
 */
int sbx_cli_run_prepass(int argc, char **argv, const struct option *options, const char *optstring,
                        const char *cwd, struct sbx_spec *spec, struct sbx_profile **profile,
                        struct sbx_error *err)
{
	_cleanup_free_ char *ws = NULL;
	const char *name = NULL;
	int c, r = 0;

	*profile = NULL;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
		if (c == 'p') {
			if (name) {
				r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
				                  "--profile is given twice ('%s' and '%s')", name,
				                  optarg);
				sbx_error_hint(err, "give one profile; a profile can build on "
				                    "another with 'extends:'");
				break;
			}
			name = optarg;
		} else if (c == SBX_CLI_OPT_WORKSPACE) {
			free(ws);
			ws = NULL;
			r = sbx_path_absolute(optarg, cwd, &ws, err);
			if (r < 0)
				break;
		}
	}
	optind = 0;
	if (r < 0 || !name)
		return r;
	r = sbx_spec_set_str(&spec->workspace, ws ? ws : cwd, err);
	if (r < 0)
		return r;
	return sbx_cli_load_profile(name, spec->workspace, spec, profile, err);
}
