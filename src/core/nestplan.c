/* SPDX-License-Identifier: MIT */
/*
 * Planning a nested sandbox (include/sbx/finish.h, sbx_nest_plan): the parent's effective spec
 * narrowed by what the nested `sbx run` asks, and the spec the child is built from. Pure: the
 * one walk of the host for hide globs is the caller's callback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/finish.h"
#include "sbx/policy.h"

void sbx_nest_planned_clear(struct sbx_nest_planned *p)
{
	sbx_nest_free(p->child);
	sbx_spec_free(p->spec);
	memset(p, 0, sizeof(*p));
}

/* The flags' grants, copied as they were recorded (their paths normalised already). */
static int copy_grants(struct sbx_nest_request *to, const struct sbx_nest_request *from,
                       struct sbx_error *err)
{
	if (!from || from->n_grants == 0)
		return 0;
	to->grants = calloc(from->n_grants, sizeof(*to->grants));
	if (!to->grants)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < from->n_grants; i++) {
		struct sbx_grant *g = &to->grants[i];

		*g = from->grants[i];
		g->path = strdup(from->grants[i].path);
		g->what = strdup(from->grants[i].what);
		to->n_grants++;
		if (!g->path || !g->what)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	return 0;
}

/* A nested run's flags and profile as a narrowing request: the flags' grants, then each
 * mount of the profile as a grant of what it asks there. Borrows ask->spec's strings. */
static int build_request(const struct sbx_nest_ask *ask, struct sbx_nest_request *req,
                         struct sbx_error *err)
{
	const struct sbx_spec *spec = ask->spec;
	int r = copy_grants(req, ask->req, err);

	if (r < 0)
		return r;
	req->readonly = spec->readonly;
	req->no_system = spec->system_mounts == SBX_SYSMOUNTS_NONE;
	req->net_given = ask->net_given || ask->profile;
	req->net = spec->net;
	req->netpol = &spec->netpol;
	/* A nested sandbox inherits its parent's nesting unless a profile it names says
	 * `nesting: false` (the default of a fresh spec is not a request). */
	req->no_nesting = ask->profile && !spec->nesting;
	if (spec->root && !ask->profile) {
		r = sbx_error_set(
		    err, SBX_ERR_ESCALATION, EPERM,
		    "--root %s: a nested sandbox sees its parent's paths, at the same "
		    "paths",
		    spec->root);
		sbx_error_hint(err, "use --restrict PATH to keep parts of the parent's view");
		return r;
	}
	if (spec->root && strcmp(spec->root, "/") != 0) {
		r = sbx_error_set(err, SBX_ERR_ESCALATION, EPERM,
		                  "profile '%s' has root %s: a nested sandbox sees its parent's "
		                  "paths, at the same paths",
		                  spec->profile, spec->root);
		sbx_error_hint(err, "run the sub-worker without --profile, or with one whose "
		                    "mounts name paths the parent sandbox sees");
		return r;
	}
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];
		char what[SBX_PATH_MAX + 64];
		unsigned kind;

		if (m->origin == SBX_ORIGIN_DEFAULT)
			continue;
		if (m->kind == SBX_MOUNT_TMPFS) {
			r = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			    "a tmpfs at %s: nested sandboxes do not make tmpfs mounts "
			    "in this version",
			    m->target);
			sbx_error_hint(err, "use the private /tmp every sandbox has");
			return r;
		}
		if (strcmp(m->source, m->target) != 0) {
			r = sbx_error_set(
			    err, SBX_ERR_ESCALATION, EPERM,
			    "cannot mount %s at %s: a nested sandbox sees its parent's "
			    "paths at the same paths",
			    m->source, m->target);
			sbx_error_hint(err, "use -v %s or --restrict %s", m->source, m->source);
			return r;
		}
		if (m->origin != SBX_ORIGIN_PROFILE)
			continue; /* flags were recorded as they were parsed (ask->req) */
		/* A nested profile must fit inside the parent: its writable mounts need write
		 * there, its read-only ones read. */
		kind = m->readonly ? SBX_GRANT_READ : SBX_GRANT_WRITE;
		snprintf(what, sizeof(what), "profile %s, mount %s", spec->profile, m->target);
		r = sbx_nest_request_add(req, kind, m->target, m->optional, what, err);
		if (r < 0)
			return r;
		req->grants[req->n_grants - 1].noexec = m->noexec;
	}
	req->profile = ask->profile ? spec->profile : NULL;
	req->hide = spec->hide;
	req->n_hide = spec->n_hide;
	return 0;
}

/* Where the child may be built, and with which backend (*why, a static string, says why the
 * landlock backend was taken): a Landlock domain forbids every mount, a parent that forbids
 * nesting lets no namespace be made, and uid 0 without capabilities cannot map itself into a
 * user namespace. */
static int nest_backend(const struct sbx_nest *parent, const struct sbx_nest_ask *ask,
                        const struct sbx_host *host, enum sbx_backend_ask *backend,
                        const char **why, struct sbx_error *err)
{
	int r;

	*backend = ask->backend;
	*why = NULL;
	if (parent->backend == SBX_BACKEND_LANDLOCK || parent->landlocked || !parent->nesting) {
		/* A Landlock domain forbids every mount (and the landlock backend's worker has no
		 * namespaces to build in), and a parent that forbids nesting has its seccomp
		 * filter refuse every namespace: the child stacks its own Landlock layer and
		 * seccomp filter in the parent's mount namespace, where paths are the same. */
		const char *what = parent->backend == SBX_BACKEND_LANDLOCK
		                       ? "the parent sandbox runs on the landlock backend"
		                   : !parent->nesting
		                       ? "the parent sandbox forbids nesting (nesting: false), "
		                         "so no namespace can be made"
		                       : "the parent sandbox runs in a Landlock domain, which "
		                         "forbids mounting";

		if (ask->backend == SBX_ASK_NAMESPACES) {
			r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			                  "cannot start a nested sandbox with --backend "
			                  "namespaces: %s (profile '%s')",
			                  what, parent->profile);
			sbx_error_hint(err,
			               "drop --backend namespaces: the nested sandbox then uses "
			               "the landlock backend, a stacked Landlock layer and seccomp "
			               "filter that narrow it as well");
			return r;
		}
		*backend = SBX_ASK_LANDLOCK;
		*why = what;
	} else if (host->euid == 0) {
		/* Since Linux 5.12 (verify_root_map in kernel/user_namespace.c) a process may map
		 * uid 0 of its namespace into a new user namespace only with CAP_SETFCAP there. A
		 * sandbox that root starts with nesting runs its worker as SBX_ROOT_NEST_ID for
		 * that reason (plan.h); a uid 0 here is some other sandbox's worker. */
		r = sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, EPERM,
		    "cannot start a nested sandbox as uid 0: this process is uid 0 "
		    "without capabilities inside its sandbox, and the kernel maps uid "
		    "0 into a new user namespace only for a process with CAP_SETFCAP");
		sbx_error_hint(err,
		               "start the outer sandbox with nesting allowed (--allow-nesting "
		               "or nesting: true): as root its worker then runs as uid %u",
		               SBX_ROOT_NEST_ID);
		return r;
	}
	return 0;
}

/*
 * The child's hide globs (--hide, a nested profile's hide: and policy globs) become exact
 * paths by one walk of what this process sees, under either backend: the child masks them in
 * its own mount namespace, or denies them in its Landlock layer. The walk covers every entry
 * of the child's effective spec it may read, at its own path: the binds, and the entries
 * whose rights only a Landlock layer carries (a landlocked parent's carved directories), which
 * the child's spec has no mount for. The caller walks without a cache: a cache this sandbox
 * could reach is one a sub-worker could forge.
 */
static int nest_walk(const struct sbx_nest *child, const struct sbx_nest_ask *ask,
                     struct sbx_spec *spec, struct sbx_error *err)
{
	const struct sbx_spec *asked = ask->spec;
	_cleanup_spec_ struct sbx_spec *view = sbx_spec_new();
	struct sbx_globwalk_matches found = {0};
	int r = view ? 0 : sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");

	/* unhide gives back only what this child hides anew: the parent's masks and Landlock
	 * layer are beyond it (the CLI says so) */
	for (size_t i = 0; r >= 0 && i < asked->n_unhide; i++)
		r = sbx_spec_add_unhide(spec, asked->unhide[i], err);
	if (r < 0 || asked->n_hide_globs == 0)
		return r;
	if (!ask->walk)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: hide globs and no walk to match them");
	for (size_t i = 0; r >= 0 && i < child->n_mounts; i++) {
		const struct sbx_nest_mount *e = &child->mounts[i];
		struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
		                      .source = e->target,
		                      .target = e->target,
		                      .readonly = true,
		                      .origin = SBX_ORIGIN_FLAG};

		if ((e->kind != SBX_NEST_BIND && e->kind != SBX_NEST_RULE) ||
		    (e->flags & SBX_NEST_F_SYSTEM) || !(e->rights & (SBX_OP_READ | SBX_OP_LIST)))
			continue;
		r = strcmp(e->target, "/") == 0 ? sbx_spec_set_str(&view->root, "/", err)
		                                : sbx_spec_add_mount(view, &m, true, err);
	}
	for (size_t i = 0; r >= 0 && i < asked->n_hide_globs; i++)
		r = asked->hide_glob_firm[i]
		        ? sbx_spec_add_firm_hide_glob(view, asked->hide_globs[i], err)
		        : sbx_spec_add_hide_glob(view, asked->hide_globs[i], err);
	for (size_t i = 0; r >= 0 && i < asked->n_unhide; i++)
		r = sbx_spec_add_unhide(view, asked->unhide[i], err);
	if (r >= 0)
		r = ask->walk(ask->walk_ctx, view, &found, err);
	if (r >= 0)
		r = sbx_spec_add_hides(spec, found.paths, found.n, err);
	sbx_globwalk_matches_clear(&found);
	/* the child keeps its globs, for what it reports (--dry-run) */
	for (size_t i = 0; r >= 0 && i < view->n_hide_globs; i++)
		r = view->hide_glob_firm[i]
		        ? sbx_spec_add_firm_hide_glob(spec, view->hide_globs[i], err)
		        : sbx_spec_add_hide_glob(spec, view->hide_globs[i], err);
	return r;
}

/* What the parent hides stays hidden for a child in its mount namespace (the parent's masks,
 * which Landlock forbids it to unmount), or is as unenforced as it was for the parent: only
 * what the child hides anew asks the landlock backend for hiding (sbx_ll_backend_check). */
static void drop_parent_hidden(const struct sbx_nest *parent, struct sbx_spec *spec)
{
	size_t k = 0;

	for (size_t i = 0; i < spec->n_hide; i++) {
		const struct sbx_nest_mount *m = sbx_nest_lookup(parent, spec->hide[i]);

		if (m && m->kind == SBX_NEST_HIDDEN && !strcmp(m->target, spec->hide[i]))
			free(spec->hide[i]);
		else
			spec->hide[k++] = spec->hide[i];
	}
	spec->n_hide = k;
}

int sbx_nest_plan(const struct sbx_nest *parent, const struct sbx_nest_ask *ask,
                  struct sbx_host *host, struct sbx_nest_planned *out, struct sbx_error *err)
{
	const struct sbx_spec *asked = ask->spec;
	struct sbx_nest_request req = {0};
	_cleanup_nest_ struct sbx_nest *child = NULL;
	_cleanup_spec_ struct sbx_spec *spec = NULL;
	enum sbx_backend_ask backend;
	const char *backend_why = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	r = build_request(ask, &req, err);
	if (r >= 0)
		r = sbx_spec_narrow(parent, &req, &child, err);
	sbx_nest_request_clear(&req);
	if (r >= 0)
		r = nest_backend(parent, ask, host, &backend, &backend_why, err);
	if (r >= 0)
		r = sbx_nest_to_spec(child, host->cwd, &spec, err);
	if (r < 0)
		return r;
	/* A nested profile's policies stay attached to its mounts, so that the child's Landlock
	 * layer compiles them (sbx_plan_finish): they can only take rights away. */
	for (size_t i = 0; r >= 0 && i < spec->n_mounts; i++) {
		const struct sbx_mount *m = sbx_spec_find_target(asked, spec->mounts[i].target);

		if (ask->profile && m && m->policy)
			r = sbx_spec_set_str(&spec->mounts[i].policy, m->policy, err);
	}
	if (r >= 0)
		r = nest_walk(child, ask, spec, err);
	if (r < 0)
		return r;
	if (backend == SBX_ASK_LANDLOCK)
		drop_parent_hidden(parent, spec);
	/* Limits only go down: the parent's hold (its cgroup and timer hold this child too),
	 * and what the child lowers it enforces itself. */
	{
		unsigned own = 0;

		r = sbx_limits_narrow(&parent->limits, &asked->resources, &spec->resources, &own,
		                      err);
		if (r < 0)
			return r;
		spec->resources_inherited = spec->resources.set & ~own;
	}
	/* --best-effort is the run's own: it weakens only what this child would add, never
	 * the parent's layers, which hold it whatever it says */
	spec->best_effort = asked->best_effort;
	/* hide_later is a promise only a supervisor of the child's own can keep: asked, it is
	 * planned (and refused where no listener can be installed, sbx_sup_finish) */
	spec->hide_later = asked->hide_later;
	if (asked->chdir)
		r = sbx_spec_set_str(&spec->chdir, asked->chdir, err);
	for (size_t i = 0; r >= 0 && i < asked->n_env; i++)
		r = sbx_spec_add_env(spec, asked->env[i].name, asked->env[i].value, err);
	if (r < 0)
		return r;
	/* Only the system mounts the parent has, taken from its view; uid 0 there holds no
	 * capability (plan as an ordinary user). */
	for (size_t i = 0; i < host->n_entries; i++)
		if (!sbx_nest_system_allowed(child, host->entries[i].path))
			host->entries[i].kind = SBX_HOST_ABSENT;
	host->nested = true;
	/* The guards the child's own policies ask for (a noexec subtree) only narrow it. */
	for (size_t i = 0; r >= 0 && i < asked->n_guards; i++)
		r = sbx_spec_add_guard(spec, asked->guards[i].path, asked->guards[i].readonly,
		                       asked->guards[i].noexec, asked->guards[i].why, err);
	if (r < 0)
		return r;
	out->child = TAKE_PTR(child);
	out->spec = TAKE_PTR(spec);
	out->backend = backend;
	out->backend_why = backend_why;
	return 0;
}
