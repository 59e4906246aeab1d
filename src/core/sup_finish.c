/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's plan (include/sbx/finish.h, sbx_sup_finish): what the worker's listener
 * filter sends to sbx, and what sbx decides with, from the spec, the settled plan and the
 * host's facts. Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/finish.h"
#include "sbx/landlock.h"
#include "sbx/path.h"
#include "sbx/supervise.h"

/* Why a path is protected, and what the user does about it, by what it is. */
struct protect_kind {
	const char *component; /* a path component that names the kind */
	const char *why, *fix;
};

static const char git_why[] = "git's control surface: git runs what is planted there, "
                              "outside the sandbox";
static const char git_fix[] = "run `git init` outside the sandbox, then start it again";

static const struct protect_kind kinds[] = {
    {".git", git_why, git_fix},
    {".claude", "the agent's project settings (hooks there run outside the sandbox)",
     "create .claude/ before the run"},
    {".mcp.json", "the agent's MCP servers (started outside the sandbox)",
     "create .mcp.json before the run"},
};

static const struct protect_kind *kind_of(const char *path)
{
	for (size_t i = 0; i < SBX_ARRAY_SIZE(kinds); i++) {
		size_t n = strlen(kinds[i].component);

		for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
			if (strncmp(p + 1, kinds[i].component, n) == 0 &&
			    (p[1 + n] == '/' || p[1 + n] == '\0'))
				return &kinds[i];
	}
	return NULL;
}

/* The writable bind that shows sandbox path p, or NULL. */
static const struct sbx_plan_op *writable_bind(const struct sbx_plan *plan, const char *p)
{
	const struct sbx_plan_op *o = sbx_plan_guarded_by(plan, p);

	if (!o || o->kind != SBX_PLAN_BIND || (o->flags & SBX_PLAN_F_READONLY))
		return NULL;
	return o;
}

/* A writable home tmpfs (SBX_PLAN_F_OWNER) is what shows sandbox path p: a name created
 * there lasts the run only, but the worker's tools read it meanwhile. */
static bool in_writable_home(const struct sbx_plan *plan, const char *p)
{
	const struct sbx_plan_op *best = NULL;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if (o->kind == SBX_PLAN_SEAL || !sbx_path_covers(o->target, p))
			continue;
		if (!best || strlen(o->target) >= strlen(best->target))
			best = o;
	}
	return best && best->kind == SBX_PLAN_TMPFS && (best->flags & SBX_PLAN_F_OWNER) &&
	       !(best->flags & SBX_PLAN_F_READONLY);
}

/* The sandbox paths at which writable binds show host path h (a bind whose source covers
 * it, not beneath a deeper mount there): at most `max` of them into out[] (each `size`
 * bytes). Every view counts, not only the longest source: `-v DIR:/ref:ro -v DIR` shows
 * DIR's names writable at DIR all the same. Returns how many. */
static size_t host_views(const struct sbx_plan *plan, const char *h, char (*out)[SBX_PATH_MAX],
                         size_t max)
{
	size_t n_out = 0;

	for (size_t i = 0; i < plan->n_ops && n_out < max; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];
		const char *rest;
		int n;

		if ((o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_MIRROR) ||
		    (o->flags & (SBX_PLAN_F_GUARD | SBX_PLAN_F_SYSTEM | SBX_PLAN_F_READONLY)) ||
		    !o->source || !sbx_path_covers(o->source, h))
			continue;
		rest = sbx_path_rest(o->source, h);
		n = snprintf(out[n_out], SBX_PATH_MAX, "%s%s%s", o->target,
		             *rest && strcmp(o->target, "/") ? "/" : "", rest);
		/* shown by this mount itself (a --root's entries are its own), not beneath a
		 * deeper one */
		if (n < 0 || n >= SBX_PATH_MAX || sbx_plan_guarded_by(plan, out[n_out]) != o)
			continue;
		n_out++;
	}
	return n_out;
}

#define MAX_VIEWS 8

static int add_protected(struct sbx_sup_plan *sup, const char *path, const char *why,
                         const char *fix, struct sbx_error *err)
{
	struct sbx_sup_protected *grown;
	const struct protect_kind *k = kind_of(path);

	for (size_t i = 0; i < sup->n_protected; i++)
		if (strcmp(sup->protected_paths[i].path, path) == 0)
			return 0;
	if (sup->n_protected >= SBX_MAX_GUARDS)
		return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
		                     "too many protected paths (at most %d)", SBX_MAX_GUARDS);
	grown = realloc(sup->protected_paths, (sup->n_protected + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	sup->protected_paths = grown;
	grown[sup->n_protected] = (struct sbx_sup_protected){
	    .path = strdup(path),
	    .why = why ? why
	           : k ? k->why
	               : "read-only in the profile, absent at launch",
	    .fix = fix ? fix
	           : k ? k->fix
	               : "create it before the run",
	};
	if (!grown[sup->n_protected].path)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	sup->n_protected++;
	return 0;
}

static int protect(const struct sbx_finish_in *in, const struct sbx_plan *plan,
                   struct sbx_sup_plan *sup, struct sbx_error *err)
{
	const struct sbx_spec *spec = in->spec;
	_cleanup_free_ char(*views)[SBX_PATH_MAX] = malloc(MAX_VIEWS * SBX_PATH_MAX);
	int r = 0;

	if (!views)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");

	/* the profile's read-only optional mounts whose source was absent: a writable bind
	 * above lets the worker create them */
	for (size_t i = 0; r >= 0 && i < spec->n_absent_ro; i++)
		if (writable_bind(plan, spec->absent_ro[i]))
			r = add_protected(sup, spec->absent_ro[i], NULL, NULL, err);
	/* its configuration (an optional mount with a policy) absent at launch, in a private
	 * home: made there it would be gone after the run, but the agent it governs would read
	 * it during the run (claude-agent's ~/.claude.json). A cache made there is the run's
	 * own, and is not refused. */
	for (size_t i = 0; r >= 0 && i < spec->n_absent_cfg; i++)
		if (in_writable_home(plan, spec->absent_cfg[i]))
			r = add_protected(
			    sup, spec->absent_cfg[i],
			    "the profile's configuration: made in the private home, the "
			    "worker it governs would read it",
			    "create it before the run", err);
	/* a fresh project's .git: git init inside would plant hooks; at every view of it */
	for (size_t i = 0; r >= 0 && i < in->n_git_fresh; i++) {
		size_t n = host_views(plan, in->git_fresh[i], views, MAX_VIEWS);

		for (size_t v = 0; r >= 0 && v < n; v++)
			r = add_protected(sup, views[v], git_why, git_fix, err);
	}
	/* what git reads and a mount cannot guard, because it does not exist */
	for (size_t i = 0; r >= 0 && i < in->n_git_absent; i++) {
		size_t n = host_views(plan, in->git_absent[i], views, MAX_VIEWS);

		for (size_t v = 0; r >= 0 && v < n; v++)
			r = add_protected(sup, views[v], git_why,
			                  "create it outside the sandbox if git needs it, or run "
			                  "the git command that makes it outside",
			                  err);
	}
	return r;
}

bool sbx_sup_host_creatable(const struct sbx_plan *plan, const char *host_path)
{
	char views[1][SBX_PATH_MAX];

	return host_views(plan, host_path, views, 1) > 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* hide_later: the plan's hide masks as exact paths, sorted; an absent one masks nothing,
 * and the supervisor holds it instead. */
static int hide_exact(const struct sbx_plan *plan, struct sbx_sup_plan *sup, struct sbx_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n_ops; i++)
		n += plan->ops[i].kind == SBX_PLAN_MASK && plan->ops[i].why &&
		     strcmp(plan->ops[i].why, "hide") == 0;
	if (!n)
		return 0;
	sup->hide_exact = calloc(n, sizeof(*sup->hide_exact));
	if (!sup->hide_exact)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if (o->kind != SBX_PLAN_MASK || !o->why || strcmp(o->why, "hide") != 0)
			continue;
		sup->hide_exact[sup->n_hide_exact] = strdup(o->target);
		if (!sup->hide_exact[sup->n_hide_exact])
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		sup->n_hide_exact++;
	}
	qsort(sup->hide_exact, sup->n_hide_exact, sizeof(*sup->hide_exact), cmp_str);
	return 0;
}

size_t sbx_sup_views(const struct sbx_plan *plan, const char *path, char (*out)[SBX_PATH_MAX],
                     size_t max)
{
	char host[SBX_PATH_MAX];
	size_t at, n_out = 0;

	if (!plan || !path || path[0] != '/' ||
	    sbx_plan_resolve(plan, path, &at, host, sizeof(host), NULL) < 0)
		return 0;
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];
		char view[SBX_PATH_MAX];
		const char *rest;
		bool again = false;
		int n;

		if ((o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_MIRROR) || !o->source ||
		    !sbx_path_covers(o->source, host))
			continue;
		rest = sbx_path_rest(o->source, host);
		n = snprintf(view, sizeof(view), "%s%s%s", o->target,
		             *rest && strcmp(o->target, "/") ? "/" : "", rest);
		if (n < 0 || n >= SBX_PATH_MAX || strcmp(view, path) == 0 ||
		    sbx_plan_guarded_by(plan, view) != o)
			continue;
		for (size_t k = 0; k < n_out && k < max && !again; k++)
			again = strcmp(out[k], view) == 0;
		if (again)
			continue;
		if (n_out < max)
			memcpy(out[n_out], view, (size_t)n + 1);
		n_out++; /* counted beyond max too: the caller fails closed */
	}
	return n_out;
}

static int strv_copy(char ***dst, size_t *n_dst, char *const *src, size_t n, struct sbx_error *err)
{
	if (!n)
		return 0;
	*dst = calloc(n, sizeof(**dst));
	if (!*dst)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		(*dst)[i] = strdup(src[i]);
		if (!(*dst)[i])
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		(*n_dst)++;
	}
	return 0;
}

/* One area per bind of the spec that the plan shows, with its approvals and read caps
 * (`ask` already a denial where nothing can ask). */
static int areas(const struct sbx_finish_in *in, const struct sbx_plan *plan, bool ask_is_deny,
                 struct sbx_sup_plan *sup, struct sbx_error *err)
{
	const struct sbx_spec *spec = in->spec;
	int r;

	sup->areas = calloc(spec->n_mounts ? spec->n_mounts : 1, sizeof(*sup->areas));
	if (!sup->areas)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];
		struct sbx_sup_area *a = &sup->areas[sup->n_areas];
		const struct sbx_plan_op *o = NULL;

		if (m->kind != SBX_MOUNT_BIND)
			continue;
		for (size_t k = 0; !o && k < plan->n_ops; k++)
			if (plan->ops[k].kind == SBX_PLAN_BIND &&
			    !(plan->ops[k].flags & SBX_PLAN_F_GUARD) &&
			    strcmp(plan->ops[k].target, m->target) == 0)
				o = &plan->ops[k];
		if (!o)
			continue; /* not in this plan */
		a->target = strdup(m->target);
		if (!a->target)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		sup->n_areas++;
		/* read caps on files that show at a second path too (a --root over the workspace):
		 * their opens are judged at each path, but the mount's noexec holds at its own
		 * path only, and a program run hands the worker its bytes (an outside attack) */
		if (m->n_suffixes || m->max_file_bytes) {
			char views[1][SBX_PATH_MAX];

			if (sbx_sup_views(plan, m->target, views, 1))
				return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
				                     "read caps on %s: its files show at %s too, "
				                     "where they can be run "
				                     "(caps judge opens for reading, and running a "
				                     "program hands the "
				                     "worker its bytes); mount them at one path "
				                     "(no --root or second "
				                     "mount over them), or drop the caps",
				                     m->target, views[0]);
		}
		a->writable = !(o->flags & SBX_PLAN_F_READONLY);
		a->approvals = m->approvals;
		for (size_t c = 0; c < SBX_AC_COUNT; c++)
			if (ask_is_deny && a->approvals.op[c] == SBX_APPROVE_ASK)
				a->approvals.op[c] = SBX_APPROVE_DENY;
		a->max_file_bytes = m->max_file_bytes;
		r = strv_copy(&a->suffixes, &a->n_suffixes, m->suffixes, m->n_suffixes, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * protect_git: where a name ".git" made by the worker would be kept by the host. Every bind
 * and mirror of a host directory is a place, kept where it is writable; a tmpfs, a mask and
 * a read-only rebind are places that keep nothing. Nothing is refused where nothing is kept.
 */
static int places(const struct sbx_finish_in *in, const struct sbx_plan *plan,
                  struct sbx_sup_plan *sup, struct sbx_error *err)
{
	bool any_kept = false;

	if (!in->spec->protect_git)
		return 0;
	sup->places = calloc(plan->n_ops ? plan->n_ops : 1, sizeof(*sup->places));
	if (!sup->places)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];
		struct sbx_sup_place *p = &sup->places[sup->n_places];

		switch (o->kind) {
		case SBX_PLAN_BIND:
		case SBX_PLAN_MIRROR:
			p->kept = !(o->flags & (SBX_PLAN_F_READONLY | SBX_PLAN_F_DATA));
			break;
		case SBX_PLAN_TMPFS:
		case SBX_PLAN_MASK:
		case SBX_PLAN_REBIND_RO:
		case SBX_PLAN_PROC:
		case SBX_PLAN_DEVPTS:
		case SBX_PLAN_NEST_PROC:
			p->kept = false;
			break;
		default:
			continue;
		}
		if (!o->target || o->target[0] != '/')
			continue;
		p->target = strdup(o->target);
		if (!p->target)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		sup->n_places++;
		any_kept = any_kept || p->kept;
	}
	sup->no_new_git = any_kept;
	return 0;
}

static unsigned families(const struct sbx_sup_plan *sup)
{
	unsigned f = 0;

	/* protect_git: every call that makes a name is looked at for ".git" */
	if (sup->no_new_git)
		f |= SBX_SUP_F_CREATE;

	/* Hide globs alone stop nothing at launch's cost: a file the worker makes is its own,
	 * and one the host makes during the run is opened by reads, which only read caps and
	 * hide_later supervise (every open through the supervisor costs each open). The globs
	 * are kept for the reads a profile's read caps put through it. */
	if (sup->n_protected)
		f |= SBX_SUP_F_CREATE;
	/* hide_later: every open for reading is decided against the globs, and every rename
	 * and link (a file made after launch moved or linked away from its hidden name) */
	if (sup->hide_later)
		f |= SBX_SUP_F_READ | SBX_SUP_F_CREATE;
	if (sup->meta_writable_only)
		f |= SBX_SUP_F_META;
	for (size_t i = 0; i < sup->n_areas; i++) {
		const struct sbx_sup_area *a = &sup->areas[i];

		/* read caps: every open for reading, and every rename and link (a capped file
		 * given a name its caps admit, or moved out of them: supervise.c caps_moved) */
		if (a->n_suffixes || a->max_file_bytes)
			f |= SBX_SUP_F_READ | SBX_SUP_F_CREATE;
		if (!a->writable)
			continue;
		/* a `deny` is Landlock's too, and still decided here: the supervisor answers
		 * with the rule that denied, for the audit log */
		if (a->approvals.op[SBX_AC_WRITE] || a->approvals.op[SBX_AC_OVERWRITE])
			f |= SBX_SUP_F_CREATE | SBX_SUP_F_WRITE;
		/* rename(2) and link(2) are in the create family */
		if (a->approvals.op[SBX_AC_RENAME])
			f |= SBX_SUP_F_CREATE | SBX_SUP_F_DELETE;
		if (a->approvals.op[SBX_AC_DELETE])
			f |= SBX_SUP_F_DELETE;
	}
	return f;
}

static bool any_ask(const struct sbx_spec *spec)
{
	for (size_t i = 0; i < spec->n_mounts; i++)
		for (size_t c = 0; c < SBX_AC_COUNT; c++)
			if (spec->mounts[i].approvals.op[c] == SBX_APPROVE_ASK)
				return true;
	return false;
}

int sbx_sup_finish(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                   struct sbx_plan *plan, struct sbx_error *err)
{
	struct sbx_sup_plan *sup = &plan->sup;
	const struct sbx_spec *spec = in->spec;
	bool listener = facts->sup_listener == 0;
	int r;

	sbx_sup_plan_clear(sup);
	/* what the audit log and the broker need, whether or not anything is supervised */
	r = sbx_spec_set_str(&sup->approve, spec->approve, err);
	if (r >= 0)
		r = sbx_spec_set_str(&sup->audit_log, spec->audit_log, err);
	if (r >= 0)
		r = sbx_spec_set_str(&sup->label, spec->label, err);
	sup->timeout_ms = spec->approve_timeout_ms ? spec->approve_timeout_ms : SBX_SUP_TIMEOUT_MS;
	if (r >= 0)
		r = protect(in, plan, sup, err);
	if (r >= 0)
		r = areas(in, plan, !listener, sup, err);
	if (r >= 0)
		r = places(in, plan, sup, err);
	if (r >= 0)
		r = strv_copy(&sup->hide_globs, &sup->n_hide_globs, spec->hide_globs,
		              spec->n_hide_globs, err);
	if (r >= 0)
		r = strv_copy(&sup->unhide, &sup->n_unhide, spec->unhide, spec->n_unhide, err);
	if (r >= 0 && sup->n_hide_globs) {
		sup->hide_firm = calloc(sup->n_hide_globs, sizeof(*sup->hide_firm));
		if (!sup->hide_firm)
			r = sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		for (size_t i = 0; r >= 0 && spec->hide_glob_firm && i < sup->n_hide_globs; i++)
			sup->hide_firm[i] = spec->hide_glob_firm[i];
	}
	if (r < 0)
		return r;
	sup->hide_later = spec->hide_later && (sup->n_hide_globs || spec->n_hide);
	if (sup->hide_later && (r = hide_exact(plan, sup, err)) < 0)
		return r;
	sup->meta_writable_only = plan->backend_landlock;
	sup->families = families(sup);
	/* the landlock backend's allowlist: every connect(2) is checked and made by sbx
	 * (finish.c refused the plan where no listener can be installed) */
	if (plan->backend_landlock && plan->new_net && plan->net >= SBX_NET_ALLOW)
		sup->families |= SBX_SUP_F_CONNECT;
	sup->enabled = listener && sup->families != 0;
	if (listener)
		return 0;
	/* No listener: Landlock holds `ask` as `deny` already (sbx_ll_opts.ask_is_deny); the
	 * protected paths and the landlock backend's metadata gap stay as the limits and the
	 * launch's warnings say. */
	sup->families = 0;
	if (sup->hide_later) {
		/* a promise about files made later that nobody could keep: refused, or (with
		 * --best-effort) said in the plan's limits */
		const char *why =
		    facts->sup_listener == -EBUSY
		        ? "a parent sandbox already supervises (one listener per process; the "
		          "parent's hide globs hold for this sandbox's opens where the parent "
		          "asks hide_later)"
		    : facts->sup_listener == -ENOSYS || facts->sup_listener == -EOPNOTSUPP
		        ? "this kernel has no seccomp user notification"
		        : "the supervisor cannot be installed here";

		sup->hide_later = false;
		if (!spec->best_effort) {
			r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			                  "hide_later needs sbx's supervisor, and %s", why);
			sbx_error_hint(err,
			               "drop --hide-later (hide_later: in the profile): what the "
			               "launch's walk finds stays hidden; or --best-effort to run "
			               "without it");
			return r;
		}
		char line[512];

		snprintf(
		    line, sizeof(line),
		    "hide_later: files created after launch are not hidden (--best-effort): %s",
		    why);
		r = sbx_plan_add_limit(plan, line, err);
		if (r < 0)
			return r;
	}
	if (!any_ask(spec))
		return 0;
	return sbx_plan_add_limit(
	    plan,
	    facts->sup_listener == -EBUSY
	        ? "approvals: ask becomes deny: a parent sandbox already supervises (one listener "
	          "per process)"
	    : facts->sup_listener == -ENOSYS || facts->sup_listener == -EOPNOTSUPP
	        ? "approvals: ask becomes deny: this kernel has no seccomp user notification"
	        : "approvals: ask becomes deny: the supervisor cannot be installed here",
	    err);
}
