/* SPDX-License-Identifier: MIT */
#ifndef SBX_FINISH_H
#define SBX_FINISH_H

/*
 * Finishing a plan (docs/design.md, The flow: parse → spec → plan → finish → execute).
 *
 * sbx_plan_build turns a spec into mount operations, ids and an environment. What is left
 * depends on the kernel and on where sbx runs, and is decided here, in one call, for
 * --dry-run and for a launch alike: which backend runs the worker, its Landlock layer
 * (compiled, narrowed to a parent's effective spec, carved, cut down to scopes where the
 * worker may nest, negotiated with the kernel's ABI), the seccomp groups the backend adds and
 * the rules the filter is built from, what the kernel does not keep of the profile (limits),
 * and the worker's effective spec, built once from the plan and encoded once at the end.
 *
 * The host comes in as data (struct sbx_finish_facts): src/os probes it, unit tests fake it.
 * Core stays pure, and what --dry-run prints is what the launcher applies.
 *
 * A nested run narrows its parent's effective spec first (sbx_nest_plan, nest.h).
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/globwalk.h"
#include "sbx/landlock.h"
#include "sbx/nest.h"
#include "sbx/plan.h"
#include "sbx/policy.h"
#include "sbx/spec.h"

/* The backend asked for (--backend). */
enum sbx_backend_ask {
	SBX_ASK_AUTO = 0, /* namespaces; landlock where user namespaces are off by configuration */
	SBX_ASK_NAMESPACES, /* a user and mount namespace, plus Landlock where rights need it */
	SBX_ASK_LANDLOCK,   /* Landlock and seccomp alone, in the caller's mount namespace */
};

/* What is known of user namespaces here. */
enum sbx_userns_state {
	SBX_USERNS_UNPROBED = 0, /* not probed: auto takes the namespaces backend, to be tried (a
	                            launch that cannot make them finishes again, with the launch's
	                            error as userns_why) */
	SBX_USERNS_AVAILABLE,    /* a probe made one */
	SBX_USERNS_UNAVAILABLE,  /* they cannot be made: userns_why says why */
};

/* The host's facts sbx_plan_finish decides with (src/os probes them; tests fake them). */
struct sbx_finish_facts {
	int landlock_abi; /* sbx_landlock_abi(): >= 1, or <= 0 (-ENOSYS, -EOPNOTSUPP): none */
	bool root;        /* sbx runs as euid 0: under the landlock backend the worker owns every
	                     root-owned file, and seccomp denies changing modes and owners */
	enum sbx_userns_state userns;
	/* SBX_USERNS_UNAVAILABLE: the error sbx_userns_explain filled. Kind
	 * SBX_ERR_UNSUPPORTED: off by configuration, auto takes the landlock backend; any
	 * other: a passing shortage (a used-up quota, memory), which auto refuses with it. */
	struct sbx_error userns_why;
	/* The landlock backend carves its rules around what they must not reach by listing the
	 * host's directories: sbx_landlock_host (src/os/landlock.c) or a test's table. Needed
	 * only for that backend. */
	const struct sbx_ll_host *ll_host;
	/* Can the worker get the supervisor's listener (include/sbx/supervise.h)? 0: yes;
	 * -EBUSY: a parent already supervises this process (a filter chain holds one listener);
	 * -ENOSYS: the kernel has no seccomp user notification. Otherwise `ask` approvals are
	 * compiled as kernel denials, nothing is supervised, and a limit says so. */
	int sup_listener;
};

/* What is being finished. Everything is borrowed. */
struct sbx_finish_in {
	const struct sbx_spec *spec;           /* the spec the plan was built from */
	const struct sbx_policy_set *policies; /* its profile's policies; NULL: none */
	enum sbx_backend_ask backend;
	/* Nesting: a nested run's narrowed effective spec (sbx_nest_plan), which gives the depth,
	 * the parent's Landlock scopes and origin and what the parent hides; NULL for a
	 * top-level run (depth 1), whose `parent_unknown` says sbx found itself confined with no
	 * effective spec (sbx_origin_decide). */
	const struct sbx_nest *child;
	bool parent_unknown;
	/* git's control surface (sbx_gitguard_survey, src/os/gitguard.c): the line
	 * sbx_gitguard_warning gives under the namespaces [0] and the landlock [1] backend, as
	 * it may be printed (escaped), or NULL; and whether any repository was found. */
	const char *git_warning[2];
	bool git_repos;
	/* What the supervisor keeps from being created (plan->sup.protected_paths), from the
	 * same survey, as HOST paths (sbx_plan_finish shows each through the plan's writable
	 * binds, and drops one no writable bind shows): git_absent, the names git reads that do
	 * not exist at launch (struct sbx_gitguard's `absent`); git_fresh, the .git of a
	 * writable top that has none (`fresh`: a fresh project, where a worker's `git init`
	 * would plant hooks that run at the user's next commit). */
	char *const *git_absent;
	size_t n_git_absent;
	char *const *git_fresh;
	size_t n_git_fresh;
};

/*
 * Finish a plan that sbx_plan_build (and the caller's guard pruning) made from in->spec, once:
 *
 * 1. the worker's effective spec, from the plan (sbx_nest_from_plan; nested: the child's
 *    depth, scopes, origin and hidden entries);
 * 2. the backend: as asked, or for auto the landlock backend where facts say user namespaces
 *    are off by configuration; refused with facts->userns_why on a passing shortage. The
 *    landlock backend maps no ids (sbx_plan_no_userns), must fit the spec
 *    (sbx_ll_backend_check: refused with why that backend was chosen), says what it gives
 *    up (landlock.lost) and adds its seccomp groups (no_network, no_unix_sockets, same_ns,
 *    host_root from facts->root);
 * 3. Landlock: compiled from the plan, spec and policies; narrowed to a nested run's
 *    effective spec (and its hidden paths, under the landlock backend); carved under the
 *    landlock backend (facts->ll_host), which then denies hard links where something is
 *    hidden; scopes only, or a note, where a namespaces sandbox may nest; negotiated with
 *    facts->landlock_abi: what is lost with --best-effort is a line of `warn` (size bytes,
 *    "NOT ENFORCED: ...\n" each; "" if none), else refused;
 * 4. limits: execute denials Landlock alone holds (sbx_policy_exec_limits), git's line;
 * 5. the seccomp rules resolved (plan->seccomp_rules), which the launcher builds;
 * 6. the effective spec says the backend, the Landlock scopes and whether a Landlock domain
 *    holds the worker (sbx_nest_apply_landlock), and is encoded once (plan->spec_blob);
 * 7. the supervisor (plan->sup, sbx_sup_finish below).
 *
 * Returns 0, or -errno with err (exit 125); a plan that failed is not to be launched.
 */
int sbx_plan_finish(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                    struct sbx_plan *plan, char *warn, size_t size, struct sbx_error *err);

/*
 * The supervisor's plan (include/sbx/supervise.h; src/core/sup_finish.c), step 7 above, once
 * the backend and Landlock are settled:
 *  - protected_paths: the targets of the profile's read-only optional mounts whose source
 *    was absent (spec->absent_ro: .claude, .mcp.json, .git/hooks) and git's absent names
 *    (in->git_absent, in->git_fresh), each where a writable bind shows it;
 *  - areas: one per bind of the spec, with its approvals and read caps;
 *  - meta_writable_only: the landlock backend (chmod, chown, utimes and xattrs reach
 *    read-only files there: Landlock has no right for them);
 *  - hide_globs: the spec's, for the opens for reading that read caps put through the
 *    supervisor (a matching file made during the run is then refused there too). Hide
 *    globs alone turn no family on: supervising every open of every profile with a hide
 *    glob costs each open a round trip, and refusing only creations would stop the worker
 *    making its own .env while a file the host makes during the run stays readable. That
 *    gap is named in sbx-profile(5);
 *  - families: CREATE (protected paths, write/overwrite/rename approvals), WRITE
 *    (write/overwrite), DELETE (delete/rename), META (the landlock backend), READ (read
 *    caps only); enabled where any;
 *  - approve, timeout_ms, audit_log, label from the spec.
 * Where facts->sup_listener is not 0 nothing is supervised (enabled false, families 0): `ask`
 * was compiled as `deny` into Landlock (sbx_ll_opts.ask_is_deny), and a limit line says so.
 * Exposed for sbx check, which asks the same protected paths (plan->sup of a plan that is not
 * finished otherwise).
 */
/* Could the worker create host_path (a name absent at launch)? True where a writable bind of
 * the plan shows it (src/core/sup_finish.c). */
bool sbx_sup_host_creatable(const struct sbx_plan *plan, const char *host_path);

/* The other sandbox paths at which the host file behind sandbox path `path` shows (another
 * bind or mirror of a folder above it, not beneath a deeper mount there): at most `max`
 * into out[] (SBX_PATH_MAX bytes each); returns how many there are, more than `max` where
 * more were found than filled (the caller then fails closed). 0 where the path has no host
 * file (a tmpfs, /proc) or no other view. For the supervisor's hide globs (hide_later). */
size_t sbx_sup_views(const struct sbx_plan *plan, const char *path, char (*out)[SBX_PATH_MAX],
                     size_t max);

int sbx_sup_finish(const struct sbx_finish_in *in, const struct sbx_finish_facts *facts,
                   struct sbx_plan *plan, struct sbx_error *err);

/* ---- a nested run (src/core/nestplan.c) ---- */

/* What a nested `sbx run` asks, as data. Everything is borrowed. */
struct sbx_nest_ask {
	const struct sbx_spec *spec;        /* its flags and its profile, parsed, with the
	                                       profile's policies compiled (guards, globs) */
	const struct sbx_nest_request *req; /* the grants its flags name as they were parsed (-v,
	                                       --mount, --restrict, --allow-read, --allow-write);
	                                       copied, never changed */
	bool profile;                       /* it names a --profile */
	bool net_given;                     /* --net was given */
	enum sbx_backend_ask backend;
	/* Its hide globs become paths by one walk of what this process sees: walk returns in
	 * *out every match of view's globs beneath view's mounts (sbx_globwalk_run, without a
	 * cache), which the child hides; only called when there are globs. */
	int (*walk)(void *ctx, const struct sbx_spec *view, struct sbx_globwalk_matches *out,
	            struct sbx_error *err);
	void *walk_ctx;
};

/* The child of a nested run, planned. */
struct sbx_nest_planned {
	struct sbx_nest *child;       /* owned: the parent's effective spec narrowed by the ask
	                                 (sbx_plan_finish's in->child) */
	struct sbx_spec *spec;        /* owned: the spec the child is built from (sbx_plan_build) */
	enum sbx_backend_ask backend; /* as asked, or the landlock backend under a parent in a
	                                 Landlock domain or one that forbids nesting */
	const char *backend_why;      /* static: why the landlock backend was taken, or NULL */
};
void sbx_nest_planned_clear(struct sbx_nest_planned *p);

/*
 * A landlock sub-worker's private temporary directory (src/core/nest_tmp.c). The base it is
 * made in: "/tmp" under a namespaces parent (its private tmpfs, unless a mount takes /tmp),
 * or tmpdir (the caller's TMPDIR) under a landlock parent whose own such directory it is (a
 * writable entry of its spec at that path, named SBX_NEST_TMP_PREFIX...). 0 with out filled,
 * -ENOENT where there is none (the child then has no temporary directory, as under the
 * landlock backend), -ENAMETOOLONG.
 */
#define SBX_NEST_TMP_PREFIX "sbx-sub."
int sbx_nest_tmp_base(const struct sbx_nest *parent, const char *tmpdir, char *out, size_t size);
/* Give the planned child dir (made by the caller: made false for --dry-run, which makes
 * nothing and shows it optional): a read-write bind at its own path, the same entry in its
 * effective spec, and TMPDIR. */
int sbx_nest_add_tmp(struct sbx_nest_planned *np, const char *dir, bool made,
                     struct sbx_error *err);

/*
 * Plan a nested run (docs/design.md, Nesting) inside a sandbox whose effective spec is `parent`:
 * the ask as a narrowing request (the flags'
 * grants, the profile's mounts; refused: another root, a tmpfs, a mount seen elsewhere than
 * at its source) applied by sbx_spec_narrow (refused: any widening); the backend (under a
 * parent's Landlock domain, or a parent that forbids nesting, the landlock backend, refused
 * if namespaces were asked, with out->backend_why; refused as uid 0 otherwise, host->euid); the
 * child's spec (sbx_nest_to_spec) with the profile's policies on its mounts, its unhide entries,
 * its hide globs walked (ask->walk) over what the child may read, what the parent hides already
 * left to the parent under the landlock backend, and its chdir, environment and guards. host is
 * adjusted for sbx_plan_build: only the system mounts the parent has, and `nested`. Returns 0 with
 * *out filled, or -errno.
 */
int sbx_nest_plan(const struct sbx_nest *parent, const struct sbx_nest_ask *ask,
                  struct sbx_host *host, struct sbx_nest_planned *out, struct sbx_error *err);

#endif
