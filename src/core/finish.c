/* SPDX-License-Identifier: MIT */
/*
 * Finishing a plan (include/sbx/finish.h): the backend, Landlock, the limits, the seccomp rules
 * and the worker's effective spec, decided once from the plan and the host's facts.
 */
#include "sbx/finish.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/limits.h"
#include "sbx/seccomp.h"

/* The worker's effective spec: what was built, not what was asked. */
static int effective_spec(const struct sbx_finish_in *in, const struct sbx_plan *plan,
                          struct sbx_nest **out, struct sbx_error *err)
{
	const struct sbx_nest *child = in->child;
	_cleanup_nest_ struct sbx_nest *n = NULL;
	int r = sbx_nest_from_plan(in->spec, plan, child ? child->depth : 1, SBX_BACKEND_NAMESPACES,
	                           &n, err);

	if (r < 0)
		return r;
	if (!child) {
		n->parent_unknown = in->parent_unknown;
		*out = TAKE_PTR(n);
		return 0;
	}
	/* the parent's Landlock scopes and origin hold for the child too */
	n->scoped = child->scoped;
	n->parent_unknown = child->parent_unknown;
	/* what stays hidden by the parent's masks is still hidden for this child */
	for (size_t i = 0; r >= 0 && i < child->n_mounts; i++)
		if (child->mounts[i].kind == SBX_NEST_HIDDEN &&
		    sbx_nest_lookup(n, child->mounts[i].target))
			r = sbx_nest_put(n, child->mounts[i].target, SBX_NEST_HIDDEN, 0, 0, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(n);
	return 0;
}

/* Which backend runs: as asked, or for auto the landlock backend where user namespaces are
 * off by configuration (*why says so); a passing shortage is refused. */
static int choose_backend(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                          bool *landlock, struct sbx_error *why, struct sbx_error *err)
{
	*landlock = in->backend == SBX_ASK_LANDLOCK;
	if (in->backend != SBX_ASK_AUTO || facts->userns != SBX_USERNS_UNAVAILABLE)
		return 0;
	if (facts->userns_why.kind != SBX_ERR_UNSUPPORTED) {
		/* sbx_userns_decide: a used-up quota or memory passes; a weaker backend must not
		 * stand in for it silently */
		if (err)
			*err = facts->userns_why;
		return -(facts->userns_why.errnum ? facts->userns_why.errnum : EINVAL);
	}
	*landlock = true;
	*why = facts->userns_why;
	return 0;
}

/* The landlock backend: no user namespace, the spec checked against what it can give, and
 * seccomp where Landlock does not reach. */
static int landlock_backend(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                            const struct sbx_error *why, struct sbx_plan *plan, char **lost_out,
                            struct sbx_error *err)
{
	char lost[8192];
	int r;

	plan->backend_landlock = true;
	/* No network namespace, no resolver of sbx's in it: the worker reads the host's
	 * /etc/resolv.conf, as the plan then says (plan.c wrote it as sbx's own file). */
	for (size_t i = 0; i < plan->n_ops; i++)
		if ((plan->ops[i].flags & SBX_PLAN_F_DATA) &&
		    strcmp(plan->ops[i].target, "/etc/resolv.conf") == 0) {
			plan->ops[i].flags &= ~SBX_PLAN_F_DATA;
			plan->ops[i].why = "system";
		}
	plan->resolv_overlay = false;
	/* A home no mount shows, or a private one, is denied here (as every private tmpfs is),
	 * and git dies on a global config it may not read (EACCES, not ENOENT): it reads the
	 * caller's ~/.gitconfig where the plan binds it (home: tmpfs), nothing otherwise, unless
	 * told already (code-reviewer's home: none, ci-job's empty one). */
	{
		const char *home = sbx_plan_env(plan, "HOME");
		char gitconfig[SBX_PATH_MAX];
		const struct sbx_plan_op *at_home = NULL, *at_config = NULL;

		if (home && home[0] == '/' && !sbx_plan_env(plan, "GIT_CONFIG_GLOBAL") &&
		    snprintf(gitconfig, sizeof(gitconfig), "%s/.gitconfig", home) <
		        (int)sizeof(gitconfig)) {
			for (size_t i = 0; i < plan->n_ops; i++) {
				const struct sbx_plan_op *o = &plan->ops[i];

				if (o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_TMPFS)
					continue;
				if (strcmp(o->target, gitconfig) == 0)
					at_config = o;
				else if (sbx_path_covers(o->target, home) &&
				         (!at_home || strlen(o->target) > strlen(at_home->target)))
					at_home = o;
			}
			/* the home shown by a bind (a workspace that is the home): git reads it */
			if ((!at_home || at_home->kind == SBX_PLAN_TMPFS) &&
			    (r = sbx_plan_set_env(plan, "GIT_CONFIG_GLOBAL",
			                          at_config && at_config->kind == SBX_PLAN_BIND
			                              ? gitconfig
			                              : "/dev/null",
			                          err)) < 0)
				return r;
		}
	}
	/* An allowlist without a network namespace (sbx(1), NETWORK): sbx's proxy listens on
	 * the host's loopback, and every connect(2) stops at the supervisor, which lets only
	 * the proxy's ports on 127.0.0.1 through (a Landlock TCP rule names a port, never an
	 * address). Without a listener of its own (a parent already supervises, or no user
	 * notification) nothing would check the address: refused. A sub-worker that keeps its
	 * parent's very list (new_net false: the command line's nested_net) is behind the
	 * parent's proxy and the parent's checks; a narrower list would need a proxy of its own
	 * that the parent's supervisor does not know: refused. */
	if (in->spec->net >= SBX_NET_ALLOW && plan->new_net &&
	    (in->child || facts->sup_listener != 0)) {
		const char *mode = in->spec->net == SBX_NET_LEARN ? "learn" : "allow:...";
		int e;

		if (in->child)
			e = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			    "--net %s in a sub-worker on the landlock backend: a list "
			    "of its own needs a proxy of its own, which only a network "
			    "namespace can hold",
			    mode);
		else
			e = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			    "--net %s on the landlock backend needs sbx's supervisor to "
			    "check every connect(2), and %s",
			    mode,
			    facts->sup_listener == -EBUSY
			        ? "a parent sandbox already supervises this process "
			          "(one listener per process)"
			    : facts->sup_listener == -ENOSYS || facts->sup_listener == -EOPNOTSUPP
			        ? "this kernel has no seccomp user notification"
			        : "it cannot be installed here");
		if (why->kind != SBX_ERR_NONE)
			sbx_error_wrap(err, "%s, so sbx chose the landlock backend; but", why->msg);
		if (in->child)
			sbx_error_hint(err,
			               "a sub-worker on the landlock backend keeps its parent's "
			               "list (drop --net) or has none (--net none)");
		else
			sbx_error_hint(err,
			               "run where user namespaces are allowed (sbx doctor says why "
			               "they are not), or use --net none or --net host");
		return e;
	}
	/* No user namespace: the worker keeps the caller's ids, and --dry-run must say so. */
	sbx_plan_no_userns(plan);
	/* No mounts either: the workspace is where it is on the host even where the plan shows
	 * only parts of it (a nested --restrict src), so relative paths keep their meaning. */
	if (plan->cwd_fallback && in->spec->workspace && !in->spec->chdir) {
		char *ws = strdup(in->spec->workspace);

		if (!ws)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		free(plan->cwd);
		plan->cwd = ws;
		plan->cwd_fallback = false;
	}
	r = sbx_ll_backend_check(in->spec, plan, in->spec->best_effort, lost, sizeof(lost), err);
	if (r < 0) {
		/* Say why that backend was chosen: the user namespace failure, with its fix. */
		if (err && why->kind != SBX_ERR_NONE)
			sbx_error_wrap(err, "%s, so sbx chose the landlock backend; but", why->msg);
		return r;
	}
	*lost_out = strdup(lost);
	if (!*lost_out)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	/* --net none without a network namespace: Landlock denies TCP, seccomp the rest. An
	 * allowlist: TCP sockets only, their connects the supervisor's, Landlock's TCP rules
	 * the proxy's ports (added at launch, sbx_plan_ll_net_ports). */
	plan->seccomp.no_network = plan->new_net && in->spec->net < SBX_NET_ALLOW;
	plan->seccomp.tcp_only = plan->new_net && in->spec->net >= SBX_NET_ALLOW;
	/* Unix sockets bound to a path in the caller's mount namespace are beyond Landlock. */
	plan->seccomp.no_unix_sockets = true;
	/* No pid or IPC namespace: the caller's processes and System V IPC objects are near. */
	plan->seccomp.same_ns = true;
	/* As root there, the worker owns every root-owned file, and Landlock has no right for
	 * modes or owners. */
	plan->seccomp.host_root = facts->root;
	return 0;
}

/*
 * Under the landlock backend nothing is mounted, so a pin (a guard that only keeps a directory
 * from being renamed: git's .git) cannot be one; the compiler makes its tree read-only instead.
 * The plan says so too, or --dry-run would show a writable bind the rules do not grant.
 */
static void pins_read_only(struct sbx_plan *plan)
{
	for (size_t i = 0; plan->backend_landlock && i < plan->n_ops; i++) {
		struct sbx_plan_op *o = &plan->ops[i];

		if (!(o->flags & SBX_PLAN_F_GUARD) ||
		    (o->flags & (SBX_PLAN_F_READONLY | SBX_PLAN_F_NOEXEC)))
			continue;
		o->flags |= SBX_PLAN_F_READONLY;
		o->why =
		    "pinned under the namespaces backend; the landlock backend mounts nothing, "
		    "so it is read-only whole";
	}
}

/* The Landlock layer: compiled, narrowed, carved, cut down for nesting, negotiated. */
static int plan_landlock(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                         struct sbx_plan *plan, char *lost, char *warn, size_t size,
                         struct sbx_error *err)
{
	struct sbx_policy_view view = {.plan = plan, .spec = in->spec, .policies = in->policies};
	/* `deny` approvals are kernel rules; `ask` ones too where nothing can ask */
	struct sbx_ll_opts opts = {.same_ns = plan->backend_landlock,
	                           .ask_is_deny = facts->sup_listener != 0};
	int r;

	pins_read_only(plan);
	r = sbx_ll_compile(&view, &opts, &plan->landlock, err);

	/* what the landlock backend gives up, said beside its rules (owned by the plan now) */
	plan->landlock.lost = lost;
	if (r < 0)
		return r;
	/* Nested: the layer holds the per-operation rights of the child's effective spec, which
	 * mount flags alone cannot (write without delete, say). */
	if (in->child) {
		r = sbx_nest_ll_narrow(in->child, &plan->landlock, err);
		/* what the child hides beneath a rule entry the narrowing added is denied too */
		if (r >= 0 && plan->backend_landlock)
			r = sbx_nest_ll_hide(&plan->landlock, in->spec->hide, in->spec->n_hide,
			                     err);
		if (r < 0)
			return r;
	}
	/* The landlock backend sees the host's paths: what a rule lost to a path beneath it
	 * can be given back entry by entry. */
	if (plan->backend_landlock) {
		if (!facts->ll_host)
			return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
			                     "internal: no host to carve the Landlock rules on");
		r = sbx_ll_expand(&plan->landlock, facts->ll_host, SBX_LL_MAX_RULES, err);
		if (r < 0)
			return r;
		/* A hidden file could be linked under another name in a carved directory,
		 * which a later launch would not hide: no hard links. */
		for (size_t i = 0; i < plan->landlock.n_rules; i++)
			plan->seccomp.no_hardlinks |= plan->landlock.rules[i].hidden;
	}
	/* A Landlock domain that handles file rights forbids mounting, so a worker under one
	 * could never build a nested sandbox's mount namespace. Where nesting is allowed and
	 * the mounts alone enforce every right, only the scopes are kept (a domain handling no
	 * file access lets its processes mount); where per-operation rights need Landlock, it
	 * stays whole and nested sandboxes fall back to the landlock backend. */
	if (!plan->backend_landlock && in->spec->nesting) {
		/* A sub-sandbox under a parent's supervisor keeps its file layer: the parent's
		 * listener lets the kernel make its calls in its context (CONTINUE), and only its
		 * own layer bounds a descriptor from outside its root (passed to it, or reached
		 * through a magic link) with which it could race that check. */
		bool served = in->child && facts->sup_listener == -EBUSY;

		if (plan->landlock.needed_fs == 0 && !served)
			sbx_ll_scopes_only(&plan->landlock);
		else if (served)
			r = sbx_ll_note(
			    &plan->landlock,
			    "nested sandboxes cannot build mount namespaces under this Landlock "
			    "domain (it forbids mounting; kept whole because a parent's supervisor "
			    "serves this sandbox): they use the landlock backend",
			    err);
		else
			r = sbx_ll_note(
			    &plan->landlock,
			    "nested sandboxes cannot build mount namespaces under this Landlock "
			    "domain (it forbids mounting): they use the landlock backend",
			    err);
		if (r < 0)
			return r;
	}
	return sbx_ll_negotiate(&plan->landlock, facts->landlock_abi, plan->backend_landlock,
	                        in->spec->best_effort, warn, size, err);
}

/* A worker in a Landlock domain can no longer mount: its effective spec says so (nested
 * sandboxes then take the landlock backend), with the rights the domain's rules give. */
static int mark_landlocked(struct sbx_nest *n, const struct sbx_ll_plan *ll, struct sbx_error *err)
{
	int r;

	if (!ll->enabled)
		return 0;
	n->scoped |= (unsigned)ll->scoped;
	/* Scopes only: a domain that handles no file right lets its processes mount, so nested
	 * sandboxes keep the namespaces backend. */
	if (!ll->handled_fs)
		return 0;
	r = sbx_nest_apply_landlock(n, ll, err);
	if (r >= 0)
		n->landlocked = true;
	return r;
}

/* What the kernel does not keep of the profile, once the backend is settled and the guards
 * pruned: execute denials Landlock holds alone, git's control surface. */
static int add_limits(const struct sbx_finish_in *in, struct sbx_plan *plan, struct sbx_error *err)
{
	struct sbx_policy_view view = {.plan = plan, .spec = in->spec, .policies = in->policies};
	int r = sbx_policy_exec_limits(&view, plan, err);

	if (r >= 0 && in->git_repos && plan->backend_landlock)
		r = sbx_plan_add_limit(
		    plan,
		    "git: the landlock backend mounts nothing, so .git cannot be a mount point of "
		    "its own: it is read-only whole (git can read, not commit), and the folders "
		    "above it are carved; a profile with protect_git: false leaves it writable",
		    err);
	return r;
}

/*
 * sbx's own processes count against the pids limit (the cgroup's pids.max, or RLIMIT_NPROC in
 * the sandbox's user namespace): init (or the landlock backend's reaper) and the worker, and
 * with the supervisor its performer and the performer's parent for a moment. A limit below
 * them would fail the launch with a word about ulimit -u or the performer: refused here, in
 * the plan, so that --dry-run says the same.
 */
static int pids_floor(const struct sbx_plan *plan, struct sbx_error *err)
{
	uint64_t floor = plan->sup.enabled ? 4 : 2;
	uint64_t pids = plan->resources.v[SBX_LIMIT_PIDS];
	int r;

	if (!(plan->resources.set & SBX_LIMIT_BIT(SBX_LIMIT_PIDS)) || pids >= floor)
		return 0;
	r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
	                  "--limit pids=%llu is below sbx's own processes in this sandbox: %llu "
	                  "(%s)",
	                  (unsigned long long)pids, (unsigned long long)floor,
	                  plan->sup.enabled ? "init, the worker, the supervisor's performer and "
	                                      "its parent"
	                                    : "init and the worker");
	sbx_error_hint(err, "ask pids=%llu or more (the worker's own processes come on top)",
	               (unsigned long long)floor);
	return r;
}

/*
 * A worker whose filter denies creating namespaces (@namespaces, not in log mode: nesting off)
 * spends none of the caller's namespace counts: its user namespace gets no share of them
 * written (init writes each share to /proc/sys/user at launch, a write through procfs a
 * count), only the inotify and fanotify shares, which it can spend.
 */
static void namespace_counts(struct sbx_plan *plan)
{
	const struct sbx_seccomp_rules *rules = &plan->seccomp_rules;
	bool denied = false;

	if (!rules->group_state || rules->log)
		return;
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++)
		if (strcmp(sbx_seccomp_groups[g].name, "@namespaces") == 0)
			denied = rules->group_state[g] == SBX_SECCOMP_GROUP_DENIED;
	for (size_t i = 0; denied && i < SBX_N_UCOUNTS; i++)
		if (strstr(sbx_ucount_shares[i].name, "_namespaces"))
			plan->userns_max[i] = 0;
}

int sbx_plan_finish(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                    struct sbx_plan *plan, char *warn, size_t size, struct sbx_error *err)
{
	_cleanup_nest_ struct sbx_nest *eff = NULL;
	struct sbx_error why = {0};
	char *lost = NULL;
	bool landlock = false;
	int r;

	if (warn && size)
		warn[0] = '\0';
	else
		size = 0;
	/* Finishing twice would stack the backend's changes: a plan is finished once. */
	if (plan->spec_blob)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: the plan is finished already");
	r = effective_spec(in, plan, &eff, err);
	if (r >= 0)
		r = choose_backend(in, facts, &landlock, &why, err);
	plan->backend_landlock = false;
	if (r >= 0 && landlock) {
		r = landlock_backend(in, facts, &why, plan, &lost, err);
		/* the worker's effective spec says which backend holds it (sbx status, nesting) */
		eff->backend = SBX_BACKEND_LANDLOCK;
	}
	if (r < 0) {
		free(lost);
		return r;
	}
	r = plan_landlock(in, facts, plan, lost, size ? warn : NULL, size, err);
	if (r >= 0)
		r = mark_landlocked(eff, &plan->landlock, err);
	if (r >= 0)
		r = add_limits(in, plan, err);
	/* the supervisor, once the backend and its Landlock layer are settled */
	if (r >= 0)
		r = sbx_sup_finish(in, facts, plan, err);
	if (r >= 0)
		r = pids_floor(plan, err);
	/* git's absent names are a limit only where no supervisor refuses their creation, and
	 * (namespaces backend) where a writable bind would let the worker make one: a .git
	 * mounted read-only takes no new name */
	if (r >= 0 && in->git_warning[plan->backend_landlock ? 1 : 0] &&
	    !(plan->sup.enabled && plan->sup.n_protected)) {
		bool creatable = plan->backend_landlock;

		for (size_t i = 0; !creatable && i < in->n_git_absent; i++)
			creatable = sbx_sup_host_creatable(plan, in->git_absent[i]);
		for (size_t i = 0; !creatable && i < in->n_git_fresh; i++)
			creatable = sbx_sup_host_creatable(plan, in->git_fresh[i]);
		plan->git_unprotected = creatable;
		if (creatable)
			r = sbx_plan_add_limit(
			    plan, in->git_warning[plan->backend_landlock ? 1 : 0], err);
	}
	/* no new .git where the host keeps files: the supervisor's alone */
	if (r >= 0 && plan->sup.no_new_git && !plan->sup.enabled)
		r = sbx_plan_add_limit(plan,
		                       facts->sup_listener == -EBUSY ? SBX_NO_NEW_GIT_LIMIT_PARENT
		                                                     : SBX_NO_NEW_GIT_LIMIT,
		                       err);
	/* the backend's groups are settled: the rules the filter is built from */
	if (r >= 0)
		r = sbx_plan_resolve_seccomp(plan, err);
	if (r >= 0)
		namespace_counts(plan);
	if (r >= 0)
		r = sbx_nest_encode(eff, &plan->spec_blob, &plan->spec_len, err);
	return r;
}
