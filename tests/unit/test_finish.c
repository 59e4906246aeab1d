/* SPDX-License-Identifier: MIT */
/*
 * Finishing a plan (sbx_plan_finish) and planning a nested run (sbx_nest_plan), in core, with
 * the host's facts faked: the Landlock ABI, root or not, user namespaces available, off by
 * configuration or short, and a directory table to carve on. Each case checks the backend,
 * the seccomp groups the backend adds, Landlock (on, whole or scopes only) and the worker's
 * effective spec as it travels (decoded: backend, landlocked, scopes, depth, origin).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/finish.h"
#include "sbx/limits.h"
#include "sbx/landlock.h"
#include "sbx/nest.h"
#include "sbx/plan.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "sbx/seccomp.h"
#include "sbx/spec.h"

#define SCOPES (SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL)

static char *const fake_environ[] = {"PATH=/usr/bin", "HOME=/home/u", NULL};

/* The host a world is planned on (entries are copied: sbx_nest_plan narrows them). */
static const struct sbx_host_entry host_entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
    {"/bin", SBX_HOST_SYMLINK, "usr/bin"},
    {"/etc/passwd", SBX_HOST_FILE, NULL},
};

struct world {
	struct sbx_host_entry entries[3];
	struct sbx_host host;
	struct sbx_spec *spec;
	struct sbx_policy_set set;
	bool policy;
	struct sbx_plan *plan;
};

/* ---- the host's directories, for the landlock backend's carving ---- */

static const struct {
	const char *path;
	enum sbx_ll_kind kind;
} fake_tree[] = {
    {"/w", SBX_LL_DIR},       {"/w/.env", SBX_LL_FILE}, {"/w/a", SBX_LL_FILE},
    {"/w/d", SBX_LL_DIR},     {"/w/d/x", SBX_LL_FILE},  {"/usr", SBX_LL_DIR},
    {"/usr/bin", SBX_LL_DIR}, {"/bin", SBX_LL_LINK},    {"/etc/passwd", SBX_LL_FILE},
    {"/etc", SBX_LL_DIR},     {"/home", SBX_LL_DIR},    {"/home/u", SBX_LL_DIR},
};
#define N_FAKE (sizeof(fake_tree) / sizeof(fake_tree[0]))

static size_t listed; /* how many directories the carving asked for */

static void fake_path(const char *base, const char *rel, char *out, size_t size)
{
	snprintf(out, size, "%s%s%s", base, *rel ? "/" : "", rel);
}

static enum sbx_ll_kind fake_kind(void *ctx, const char *base, const char *rel)
{
	char full[256];

	(void)ctx;
	fake_path(base, rel, full, sizeof(full));
	for (size_t i = 0; i < N_FAKE; i++)
		if (strcmp(fake_tree[i].path, full) == 0)
			return fake_tree[i].kind;
	return SBX_LL_ABSENT;
}

static long fake_list(void *ctx, const char *base, const char *rel, size_t max,
                      struct sbx_ll_entry **out)
{
	char dir[256];
	size_t dl;
	long n = 0;

	(void)ctx;
	listed++;
	fake_path(base, rel, dir, sizeof(dir));
	dl = strlen(dir);
	*out = calloc(N_FAKE, sizeof(**out));
	assert_non_null(*out);
	for (size_t i = 0; i < N_FAKE; i++) {
		const char *p = fake_tree[i].path;

		if (strncmp(p, dir, dl) != 0 || p[dl] != '/' || strchr(p + dl + 1, '/'))
			continue;
		if ((size_t)n < max) {
			snprintf((*out)[n].name, sizeof((*out)[n].name), "%s", p + dl + 1);
			(*out)[n].kind = fake_tree[i].kind;
		}
		n++;
	}
	return n;
}

static const struct sbx_ll_host fake_host = {.list = fake_list, .kind = fake_kind};

/* ---- worlds ---- */

/* /w at its own path, writable; `policy`: a rule that lets /w be written but nothing in it
 * deleted (only Landlock can say that); `hide`: /w/.env hidden. */
static void world_init(struct world *w, bool nesting, bool policy, bool hide, bool net_host,
                       bool best_effort, uid_t euid)
{
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = "/w",
	                      .target = "/w",
	                      .origin = SBX_ORIGIN_PROFILE,
	                      .policy = policy ? "p" : NULL};
	struct sbx_error err = {0};

	memset(w, 0, sizeof(*w));
	memcpy(w->entries, host_entries, sizeof(host_entries));
	w->host = (struct sbx_host){.uid = euid,
	                            .gid = euid,
	                            .euid = euid,
	                            .entries = w->entries,
	                            .n_entries = 3,
	                            .environ = fake_environ,
	                            .cwd = "/w"};
	w->spec = sbx_spec_new();
	assert_non_null(w->spec);
	assert_int_equal(sbx_spec_set_str(&w->spec->workspace, "/w", NULL), 0);
	w->spec->explicit_mounts = true;
	w->spec->nesting = nesting;
	w->spec->best_effort = best_effort;
	w->spec->net = net_host ? SBX_NET_HOST : SBX_NET_NONE;
	assert_int_equal(sbx_spec_add_mount(w->spec, &m, false, &err), 0);
	if (hide)
		assert_int_equal(sbx_spec_add_hide(w->spec, "/w/.env", &err), 0);
	if (policy) {
		static const char yaml[] =
		    "version: 1\nrules:\n"
		    "  - {name: a, paths: [\"**\"], operations: [read, list, stat, write, create, "
		    "execute], decision: allow}\n";
		struct sbx_policy *p = NULL;

		if (sbx_policy_load_buffer(yaml, strlen(yaml), "p.yaml", "p", &p, &err) < 0)
			fail_msg("policy: %s", err.msg);
		assert_int_equal(sbx_policy_set_add(&w->set, p, &err), 0);
		if (sbx_policy_compile(w->spec, &w->set, &err) < 0)
			fail_msg("compile: %s", err.msg);
		w->policy = true;
	}
	if (sbx_spec_finish(w->spec, &err) < 0)
		fail_msg("spec: %s", err.msg);
	if (sbx_plan_build(w->spec, &w->host, &w->plan, &err) < 0)
		fail_msg("plan: %s", err.msg);
}

static void world_clear(struct world *w)
{
	sbx_plan_free(w->plan);
	sbx_spec_free(w->spec);
	sbx_policy_set_clear(&w->set);
	memset(w, 0, sizeof(*w));
}

static struct sbx_finish_facts facts_for(int abi, bool root, enum sbx_userns_state userns,
                                         enum sbx_error_kind why, int why_errno)
{
	struct sbx_finish_facts f = {
	    .landlock_abi = abi, .root = root, .userns = userns, .ll_host = &fake_host};

	if (userns == SBX_USERNS_UNAVAILABLE) {
		f.userns_why.kind = why;
		f.userns_why.errnum = why_errno;
		snprintf(f.userns_why.msg, sizeof(f.userns_why.msg),
		         "cannot create a user namespace: %s",
		         why == SBX_ERR_UNSUPPORTED ? "user.max_user_namespaces is 0"
		                                    : "a namespace quota is used up");
	}
	return f;
}

static bool has_group_rule(const struct sbx_seccomp_rules *rules, const char *group)
{
	for (size_t i = 0; i < rules->n_rules; i++)
		if (rules->rules[i].group && strcmp(rules->rules[i].group, group) == 0)
			return true;
	return false;
}

/* ---- sbx_plan_finish, a table ---- */

#define NS      SBX_ASK_NAMESPACES
#define LL      SBX_ASK_LANDLOCK
#define AUTO    SBX_ASK_AUTO
#define UNPROBE SBX_USERNS_UNPROBED
#define OK      SBX_USERNS_AVAILABLE
#define NOUSERN SBX_USERNS_UNAVAILABLE

static const struct finish_case {
	const char *name;
	/* asked, and the host */
	enum sbx_backend_ask ask;
	int abi;
	enum sbx_userns_state userns;
	enum sbx_error_kind why; /* NOUSERN: UNSUPPORTED (off) or SETUP (a shortage) */
	bool root;
	/* the spec */
	bool nesting, policy, hide, net_host, best_effort;
	/* expected */
	int rc;
	bool landlock;    /* the landlock backend */
	bool ll_enabled;  /* a Landlock layer at all */
	bool scopes_only; /* ... handling no file right */
	bool landlocked;  /* the effective spec says a Landlock domain holds the worker */
	unsigned scoped;  /* ... and which scopes */
	bool no_hardlinks;
	bool warned; /* a "NOT ENFORCED" line for --best-effort */
} finish_cases[] = {
    {"auto, user namespaces work: namespaces, Landlock whole", AUTO, 7, OK, 0, false, false, false,
     false, false, false, 0, false, true, false, true, SCOPES, false, false},
    {"auto, not probed: namespaces, to be tried", AUTO, 7, UNPROBE, 0, false, false, false, false,
     false, false, 0, false, true, false, true, SCOPES, false, false},
    {"auto, user namespaces off: the landlock backend", AUTO, 7, NOUSERN, SBX_ERR_UNSUPPORTED,
     false, false, false, false, false, false, 0, true, true, false, true, SCOPES, false, false},
    {"auto, a passing shortage: refused", AUTO, 7, NOUSERN, SBX_ERR_SETUP, false, false, false,
     false, false, false, -ENOSPC, false, false, false, false, 0, false, false},
    {"namespaces asked, a shortage: tried anyway", NS, 7, NOUSERN, SBX_ERR_SETUP, false, false,
     false, false, false, false, 0, false, true, false, true, SCOPES, false, false},
    {"landlock asked, user namespaces work", LL, 7, OK, 0, false, false, false, false, false, false,
     0, true, true, false, true, SCOPES, false, false},
    {"landlock backend as root: modes and owners denied", LL, 7, OK, 0, true, false, false, false,
     false, false, 0, true, true, false, true, SCOPES, false, false},
    {"auto off as root: the landlock backend, host root", AUTO, 6, NOUSERN, SBX_ERR_UNSUPPORTED,
     true, false, false, false, false, false, 0, true, true, false, true, SCOPES, false, false},
    {"namespaces as root: no host-root group", NS, 7, OK, 0, true, false, false, false, false,
     false, 0, false, true, false, true, SCOPES, false, false},
    {"nesting, the mounts hold every right: scopes only", NS, 7, OK, 0, false, true, false, false,
     false, false, 0, false, true, true, false, SCOPES, false, false},
    {"nesting on ABI 4 (no scopes): no Landlock", NS, 4, OK, 0, false, true, false, false, false,
     false, 0, false, false, false, false, 0, false, false},
    {"nesting with per-operation rights: Landlock whole", NS, 7, OK, 0, false, true, true, false,
     false, false, 0, false, true, false, true, SCOPES, false, false},
    {"no Landlock, nothing needs it: off", NS, 0, OK, 0, false, false, false, false, false, false,
     0, false, false, false, false, 0, false, false},
    {"no Landlock, per-operation rights: refused", NS, 0, OK, 0, false, false, true, false, false,
     false, -EOPNOTSUPP, false, false, false, false, 0, false, false},
    {"no Landlock, per-operation rights, best effort: warned", NS, -EOPNOTSUPP, OK, 0, false, false,
     true, false, false, true, 0, false, false, false, false, 0, false, true},
    {"ABI 4 under namespaces: no scopes", NS, 4, OK, 0, false, false, false, false, false, false, 0,
     false, true, false, true, 0, false, false},
    {"landlock backend on ABI 4 (no scopes): refused", LL, 4, OK, 0, false, false, false, false,
     false, false, -EOPNOTSUPP, true, false, false, false, 0, false, false},
    {"landlock backend on ABI 4, best effort: warned", LL, 4, OK, 0, false, false, false, false,
     false, true, 0, true, true, false, true, 0, false, true},
    {"landlock backend on ABI 6", LL, 6, OK, 0, false, false, false, false, false, false, 0, true,
     true, false, true, SCOPES, false, false},
    {"landlock backend hides by carving: no hard links", LL, 7, OK, 0, false, false, false, true,
     false, false, 0, true, true, false, true, SCOPES, true, false},
    {"landlock backend, --net host: sockets stay", LL, 7, OK, 0, false, false, false, false, true,
     false, 0, true, true, false, true, SCOPES, false, false},
    {"landlock backend with nesting: Landlock whole", LL, 7, OK, 0, false, true, false, false,
     false, false, 0, true, true, false, true, SCOPES, false, false},
};

static void test_finish_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(finish_cases) / sizeof(finish_cases[0]); i++) {
		const struct finish_case *c = &finish_cases[i];
		struct sbx_finish_facts facts =
		    facts_for(c->abi, c->root, c->userns, c->why,
		              c->why == SBX_ERR_SETUP ? ENOSPC : EOPNOTSUPP);
		struct world w;
		struct sbx_finish_in in = {.backend = c->ask};
		struct sbx_error err = {0};
		_cleanup_nest_ struct sbx_nest *eff = NULL;
		const struct sbx_plan *p;
		char warn[2048];
		int r;

		world_init(&w, c->nesting, c->policy, c->hide, c->net_host, c->best_effort,
		           c->root ? 0 : 1000);
		in.spec = w.spec;
		in.policies = w.policy ? &w.set : NULL;
		p = w.plan;
		r = sbx_plan_finish(&in, &facts, w.plan, warn, sizeof(warn), &err);
		if (r != c->rc)
			fail_msg("%s: returned %d, want %d (%s)", c->name, r, c->rc, err.msg);
		if (r < 0) {
			/* a shortage is refused with the probe's own words */
			if (c->userns == NOUSERN && c->why == SBX_ERR_SETUP)
				assert_string_equal(err.msg, facts.userns_why.msg);
			world_clear(&w);
			continue;
		}
		if (p->backend_landlock != c->landlock)
			fail_msg("%s: landlock backend %d", c->name, p->backend_landlock);
		/* the landlock backend maps no ids; the namespaces backend one (or root's range) */
		assert_int_equal(p->map_count, c->landlock ? 0 : c->root ? SBX_ROOT_MAP_COUNT : 1);
		/* its seccomp groups: from the facts and the spec, not from who runs the test */
		assert_int_equal(p->seccomp.no_network, c->landlock && !c->net_host);
		assert_int_equal(p->seccomp.no_unix_sockets, c->landlock);
		assert_int_equal(p->seccomp.same_ns, c->landlock);
		if (p->seccomp.host_root != (c->landlock && c->root))
			fail_msg("%s: host_root %d", c->name, p->seccomp.host_root);
		if (p->seccomp.no_hardlinks != c->no_hardlinks)
			fail_msg("%s: no_hardlinks %d", c->name, p->seccomp.no_hardlinks);
		/* ... resolved into the rules the filter is built from and --dry-run prints */
		assert_non_null(p->seccomp_rules.group_state);
		assert_int_equal(has_group_rule(&p->seccomp_rules, sbx_seccomp_host_root_group),
		                 p->seccomp.host_root);
		assert_int_equal(has_group_rule(&p->seccomp_rules, sbx_seccomp_no_unix_group),
		                 c->landlock);
		assert_int_equal(has_group_rule(&p->seccomp_rules, sbx_seccomp_no_hardlinks_group),
		                 c->no_hardlinks);
		if (p->landlock.enabled != c->ll_enabled)
			fail_msg("%s: Landlock enabled %d", c->name, p->landlock.enabled);
		if (c->ll_enabled &&
		    (p->landlock.enabled && p->landlock.handled_fs == 0) != c->scopes_only)
			fail_msg("%s: scopes only %d", c->name, p->landlock.handled_fs == 0);
		if ((strstr(warn, "NOT ENFORCED") != NULL) != c->warned)
			fail_msg("%s: warnings '%s'", c->name, warn);
		/* the landlock backend says what it gives up */
		assert_int_equal(p->landlock.lost != NULL, c->landlock);
		/* the effective spec, as it travels */
		assert_non_null(p->spec_blob);
		assert_int_equal(sbx_nest_decode(p->spec_blob, p->spec_len, &eff, &err), 0);
		assert_int_equal(eff->backend,
		                 c->landlock ? SBX_BACKEND_LANDLOCK : SBX_BACKEND_NAMESPACES);
		if (eff->landlocked != c->landlocked)
			fail_msg("%s: landlocked %d", c->name, eff->landlocked);
		if (eff->scoped != c->scoped)
			fail_msg("%s: scoped %u", c->name, eff->scoped);
		assert_int_equal(eff->depth, 1);
		assert_false(eff->parent_unknown);
		assert_int_equal(eff->nesting, c->nesting);
		if (c->hide)
			assert_non_null(sbx_nest_lookup(eff, "/w/.env"));
		world_clear(&w);
	}
}

/* The carving lists the host's directories through the facts, never the real ones: the table
 * has no /w/.env on this machine. */
static void test_carving_asks_the_facts(void **state)
{
	struct sbx_finish_facts facts = facts_for(7, false, OK, 0, 0);
	struct sbx_finish_in in = {.backend = LL};
	struct world w;
	bool carved = false;

	(void)state;
	world_init(&w, false, false, true, false, false, 1000);
	in.spec = w.spec;
	listed = 0;
	assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, NULL), 0);
	assert_true(listed > 0);
	for (size_t i = 0; i < w.plan->landlock.n_rules; i++) {
		const struct sbx_ll_rule *r = &w.plan->landlock.rules[i];

		/* /w's other entries get their own rules; /w/.env gets none */
		carved |= strcmp(r->path, "/w/a") == 0 && r->access != 0;
		assert_false(strcmp(r->path, "/w/.env") == 0 && r->access != 0);
	}
	assert_true(carved);
	world_clear(&w);
}

/* Where the landlock backend cannot take the spec, the refusal says why it was chosen. */
static void test_refusal_says_why_landlock(void **state)
{
	struct sbx_finish_facts facts = facts_for(7, false, NOUSERN, SBX_ERR_UNSUPPORTED, EPERM);
	struct sbx_finish_in in = {.backend = AUTO};
	struct sbx_error err = {0};
	struct world w;

	(void)state;
	world_init(&w, false, false, false, false, false, 1000);
	sbx_plan_free(w.plan);
	assert_int_equal(sbx_spec_set_str(&w.spec->root, "/", NULL), 0);
	assert_int_equal(sbx_plan_build(w.spec, &w.host, &w.plan, NULL), 0);
	in.spec = w.spec;
	assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "user.max_user_namespaces is 0, so sbx chose the landlock "
	                                "backend; but"));
	assert_non_null(strstr(err.msg, "root mode needs a mount namespace"));
	/* asked for, it is refused without a reason that was not there */
	world_clear(&w);
	world_init(&w, false, false, false, false, false, 1000);
	sbx_plan_free(w.plan);
	assert_int_equal(sbx_spec_set_str(&w.spec->root, "/", NULL), 0);
	assert_int_equal(sbx_plan_build(w.spec, &w.host, &w.plan, NULL), 0);
	in = (struct sbx_finish_in){.spec = w.spec, .backend = LL};
	facts = facts_for(7, false, OK, 0, 0);
	assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, &err), -EOPNOTSUPP);
	assert_null(strstr(err.msg, "so sbx chose"));
	world_clear(&w);
}

/* A top-level run: depth 1, and the origin as the caller found it; finished once. */
static void test_top_level_origin_and_once(void **state)
{
	struct sbx_finish_facts facts = facts_for(7, false, OK, 0, 0);
	struct sbx_finish_in in = {.backend = AUTO, .parent_unknown = true};
	_cleanup_nest_ struct sbx_nest *eff = NULL;
	struct sbx_error err = {0};
	struct world w;

	(void)state;
	world_init(&w, false, false, false, false, false, 1000);
	in.spec = w.spec;
	assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, NULL), 0);
	assert_int_equal(sbx_nest_decode(w.plan->spec_blob, w.plan->spec_len, &eff, NULL), 0);
	assert_int_equal(eff->depth, 1);
	assert_true(eff->parent_unknown);
	assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "finished already"));
	world_clear(&w);
}

/* A pids limit below sbx's own processes in the sandbox is refused by the plan (so --dry-run
 * says it as the run does): 2 without the supervisor, 4 with it. */
static void test_pids_floor(void **state)
{
	static const struct {
		bool listener;
		uint64_t pids;
		int want;
	} cases[] = {
	    {false, 1, -EINVAL}, {false, 2, 0}, {true, 3, -EINVAL}, {true, 4, 0}, {true, 100, 0},
	};
	struct world w;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sbx_finish_facts facts = facts_for(7, false, OK, 0, 0);
		char path[] = "/w/.git";
		char *fresh[] = {path};
		struct sbx_finish_in in = {.backend = NS, .git_fresh = fresh, .n_git_fresh = 1};
		struct sbx_error err = {0};
		int r;

		facts.sup_listener = cases[c].listener ? 0 : -EBUSY;
		world_init(&w, false, false, false, false, false, 1000);
		in.spec = w.spec;
		w.plan->resources.set |= SBX_LIMIT_BIT(SBX_LIMIT_PIDS);
		w.plan->resources.v[SBX_LIMIT_PIDS] = cases[c].pids;
		r = sbx_plan_finish(&in, &facts, w.plan, NULL, 0, &err);
		if (r != cases[c].want)
			fail_msg("case %zu: %d (%s)", c, r, err.msg);
		if (r < 0 && !strstr(err.msg, "below sbx's own processes"))
			fail_msg("case %zu: %s", c, err.msg);
		world_clear(&w);
	}
}

/* The caller's per-user counts: a worker whose filter denies creating namespaces gets no share
 * of the namespace counts written (it cannot spend them), one that may nest does; the inotify
 * share is written either way. */
static void test_namespace_count_shares(void **state)
{
	struct sbx_finish_facts facts = facts_for(7, false, OK, 0, 0);
	struct sbx_finish_in in = {.backend = NS};
	struct world w;

	(void)state;
	for (int nesting = 0; nesting < 2; nesting++) {
		world_init(&w, nesting, false, false, false, false, 1000);
		in.spec = w.spec;
		for (size_t i = 0; i < SBX_N_UCOUNTS; i++)
			w.plan->userns_max[i] = 1000; /* as sbx_plan_build gives from the host */
		assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, NULL), 0);
		for (size_t i = 0; i < SBX_N_UCOUNTS; i++) {
			bool ns = strstr(sbx_ucount_shares[i].name, "_namespaces") != NULL;

			if (w.plan->userns_max[i] != (ns && !nesting ? 0 : 1000))
				fail_msg("nesting %d: %s is %llu", nesting,
				         sbx_ucount_shares[i].name,
				         (unsigned long long)w.plan->userns_max[i]);
		}
		world_clear(&w);
	}
}

/* The limits: git's line for the backend that runs, and the landlock backend's .git note. Under
 * the namespaces backend the line is a limit only where the worker could make one of the
 * absent names (a writable bind shows it; a read-only .git takes none); the landlock backend
 * keeps it as sbx_gitguard_warning gave it. */
static void test_git_limits(void **state)
{
	static const struct {
		bool ll;
		const char *absent; /* the host path git reads that is absent at launch */
		bool listener;      /* a supervisor can run (it refuses the creation then) */
		bool limit;
	} cases[] = {
	    {false, "/w/.git/config", false, true},          /* the workspace is writable */
	    {false, "/w/.git/config", true, false},          /* the supervisor protects it */
	    {false, "/elsewhere/.git/config", false, false}, /* no bind shows it */
	    {true, "/w/.git/config", false, true},
	    {true, "/elsewhere/.git/config", false, true},
	};
	struct world w;

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sbx_finish_facts facts = facts_for(7, false, OK, 0, 0);
		char path[64];
		char *absent[] = {path};
		struct sbx_finish_in in = {
		    .backend = cases[c].ll ? LL : NS,
		    .git_warning = {"git: for namespaces", "git: for landlock"},
		    .git_repos = true,
		    .git_absent = absent,
		    .n_git_absent = 1};
		bool seen = false, note = false;
		int ll = cases[c].ll;

		facts.sup_listener = cases[c].listener ? 0 : -EBUSY;
		snprintf(path, sizeof(path), "%s", cases[c].absent);
		world_init(&w, false, false, false, false, false, 1000);
		in.spec = w.spec;
		assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, NULL), 0);
		for (size_t i = 0; i < w.plan->n_limits; i++) {
			seen |= strcmp(w.plan->limits[i], in.git_warning[ll]) == 0;
			assert_string_not_equal(w.plan->limits[i], in.git_warning[!ll]);
			note |=
			    strstr(w.plan->limits[i], "so .git cannot be a mount point") != NULL;
		}
		if (seen != cases[c].limit)
			fail_msg("case %zu: the git line is %s a limit", c, seen ? "" : "not");
		assert_int_equal(w.plan->git_unprotected, cases[c].limit);
		assert_int_equal(note, ll);
		world_clear(&w);
	}
}

/* ---- a nested run: sbx_nest_plan, then sbx_plan_finish with the child ---- */

/* The effective spec of a top-level sandbox as its worker would read it. */
static struct sbx_nest *parent_of(enum sbx_backend_ask ask, bool nesting, bool policy,
                                  bool parent_unknown)
{
	struct sbx_finish_facts facts = facts_for(7, false, OK, 0, 0);
	struct sbx_finish_in in = {.backend = ask, .parent_unknown = parent_unknown};
	struct sbx_nest *n = NULL;
	struct sbx_error err = {0};
	struct world w;

	world_init(&w, nesting, policy, true, false, false, 1000);
	in.spec = w.spec;
	in.policies = w.policy ? &w.set : NULL;
	if (sbx_plan_finish(&in, &facts, w.plan, NULL, 0, &err) < 0)
		fail_msg("parent: %s", err.msg);
	assert_int_equal(sbx_nest_decode(w.plan->spec_blob, w.plan->spec_len, &n, NULL), 0);
	world_clear(&w);
	return n;
}

static const struct nest_case {
	const char *name;
	enum sbx_backend_ask parent_backend;
	bool parent_nesting, parent_policy; /* the parent's Landlock domain handles files */
	enum sbx_backend_ask ask;
	uid_t euid; /* inside the parent */
	/* expected */
	int rc;
	enum sbx_backend_ask backend;
	bool landlock;   /* finished on the landlock backend */
	bool landlocked; /* the child's effective spec */
} nest_cases[] = {
    /* a parent that forbids nesting: the landlock backend, a stacked layer */
    {"nesting forbidden: the landlock backend", NS, false, false, AUTO, 1000, 0, LL, true, true},
    {"nesting forbidden, namespaces asked: refused", NS, false, false, NS, 1000, -EOPNOTSUPP, NS,
     false, false},
    {"uid 0 under a parent that forbids nesting: the landlock backend", NS, false, false, AUTO, 0,
     0, LL, true, true},
    /* the child inherits nesting, and its mounts hold every right: scopes only again */
    {"scopes-only parent: namespaces", NS, true, false, AUTO, 1000, 0, AUTO, false, false},
    {"landlocked parent: the landlock backend", NS, true, true, AUTO, 1000, 0, LL, true, true},
    {"landlocked parent, namespaces asked: refused", NS, true, true, NS, 1000, -EOPNOTSUPP, NS,
     false, false},
    {"landlock-backend parent: the landlock backend", LL, true, false, AUTO, 1000, 0, LL, true,
     true},
    {"uid 0 without capabilities: refused", NS, true, false, AUTO, 0, -EPERM, AUTO, false, false},
    {"uid 0 under a landlocked parent: the landlock backend", NS, true, true, AUTO, 0, 0, LL, true,
     true},
};

static int fake_walk(void *ctx, const struct sbx_spec *view, struct sbx_globwalk_matches *out,
                     struct sbx_error *err)
{
	/* one match, /w/a, for the one glob the nested run asks */
	(*(int *)ctx)++;
	assert_int_equal(view->n_hide_globs, 1);
	out->paths = calloc(1, sizeof(*out->paths));
	assert_non_null(out->paths);
	out->paths[0] = strdup("/w/a");
	out->n = 1;
	(void)err;
	return 0;
}

static void test_nested_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(nest_cases) / sizeof(nest_cases[0]); i++) {
		const struct nest_case *c = &nest_cases[i];
		_cleanup_nest_ struct sbx_nest *parent =
		    parent_of(c->parent_backend, c->parent_nesting, c->parent_policy, true);
		_cleanup_nest_ struct sbx_nest *eff = NULL;
		struct sbx_finish_facts facts = facts_for(7, c->euid == 0, OK, 0, 0);
		struct sbx_nest_request req = {0};
		struct sbx_nest_planned np;
		struct sbx_plan *plan = NULL;
		struct sbx_error err = {0};
		struct world w;
		int walked = 0, r;
		struct sbx_nest_ask ask = {
		    .req = &req, .backend = c->ask, .walk = fake_walk, .walk_ctx = &walked};

		/* what the nested `sbx run` asks: its parent's view, one hide glob */
		world_init(&w, false, false, false, false, false, c->euid);
		sbx_plan_free(w.plan);
		w.plan = NULL;
		sbx_spec_free(w.spec);
		w.spec = sbx_spec_new();
		assert_non_null(w.spec);
		assert_int_equal(sbx_spec_set_str(&w.spec->workspace, "/w", NULL), 0);
		w.spec->explicit_mounts = true;
		assert_int_equal(sbx_spec_add_hide_glob(w.spec, "/w/**/a", NULL), 0);
		assert_int_equal(sbx_spec_finish(w.spec, NULL), 0);
		ask.spec = w.spec;
		r = sbx_nest_plan(parent, &ask, &w.host, &np, &err);
		if (r != c->rc)
			fail_msg("%s: returned %d, want %d (%s)", c->name, r, c->rc, err.msg);
		if (r < 0) {
			world_clear(&w);
			continue;
		}
		if (np.backend != c->backend)
			fail_msg("%s: backend %d", c->name, np.backend);
		assert_true(w.host.nested);
		/* the glob was walked once, and its match is the child's to hide */
		assert_int_equal(walked, 1);
		assert_true(np.child->depth == 2 && np.child->parent_unknown);
		assert_int_equal(sbx_plan_build(np.spec, &w.host, &plan, &err), 0);
		{
			struct sbx_finish_in in = {
			    .spec = np.spec, .backend = np.backend, .child = np.child};

			if (sbx_plan_finish(&in, &facts, plan, NULL, 0, &err) < 0)
				fail_msg("%s: finish: %s", c->name, err.msg);
		}
		assert_int_equal(plan->backend_landlock, c->landlock);
		assert_int_equal(sbx_nest_decode(plan->spec_blob, plan->spec_len, &eff, NULL), 0);
		/* depth and origin from the child, what the parent hides still hidden */
		assert_int_equal(eff->depth, 2);
		assert_true(eff->parent_unknown);
		assert_int_equal(eff->backend,
		                 c->landlock ? SBX_BACKEND_LANDLOCK : SBX_BACKEND_NAMESPACES);
		if (eff->landlocked != c->landlocked)
			fail_msg("%s: landlocked %d", c->name, eff->landlocked);
		assert_int_equal(eff->scoped, SCOPES);
		/* nothing of what the parent hides or the walk matched is reachable; under a
		 * parent with namespaces its masks are carried as hidden entries (a carved
		 * parent's /w has no read right left: the child sees none of it) */
		assert_int_equal(sbx_nest_rights(eff, "/w/.env"), 0);
		assert_int_equal(sbx_nest_rights(eff, "/w/a"), 0);
		if (c->parent_backend == NS) {
			assert_int_equal(sbx_nest_lookup(eff, "/w/.env")->kind, SBX_NEST_HIDDEN);
			assert_int_equal(sbx_nest_lookup(eff, "/w/a")->kind, SBX_NEST_HIDDEN);
		}
		/* served by a parent's supervisor (its listener makes the child's EBUSY), a
		 * nesting child keeps its file layer whole: only that bounds a descriptor from
		 * outside its root with which it could race the supervisor's CONTINUE */
		if (np.spec->nesting && !plan->backend_landlock) {
			struct sbx_plan *served = NULL;
			_cleanup_nest_ struct sbx_nest *eff2 = NULL;
			struct sbx_finish_facts busy = facts;
			struct sbx_finish_in in = {
			    .spec = np.spec, .backend = np.backend, .child = np.child};

			busy.sup_listener = -EBUSY;
			assert_int_equal(sbx_plan_build(np.spec, &w.host, &served, &err), 0);
			if (sbx_plan_finish(&in, &busy, served, NULL, 0, &err) < 0)
				fail_msg("%s: finish, served: %s", c->name, err.msg);
			assert_true(served->landlock.enabled && served->landlock.handled_fs != 0);
			assert_int_equal(
			    sbx_nest_decode(served->spec_blob, served->spec_len, &eff2, NULL), 0);
			if (!eff2->landlocked)
				fail_msg("%s: served, not landlocked", c->name);
			sbx_plan_free(served);
		}
		sbx_plan_free(plan);
		sbx_nest_planned_clear(&np);
		world_clear(&w);
	}
}

/* ---- the supervisor's plan (plan->sup, sbx_sup_finish) ---- */

struct sup_world {
	struct world w;
	struct sbx_finish_in in;
	struct sbx_finish_facts facts;
};

static char *const fresh_git[] = {"/host/w/.git"};
static bool sup_glob;            /* the next sup_finish hides /w/ ** /.env */
static bool sup_later;           /* ... with hide_later */
static bool sup_best_effort;     /* ... with --best-effort */
static bool sup_second_view;     /* ... and shows /host/w at /v too, read-only */
static struct sbx_error sup_err; /* a refusal, where sup_fails is set */
static bool sup_fails;
static char *const absent_git[] = {"/host/w/.git/hooks", "/elsewhere/.git/config"};

static const struct sbx_ll_rule *ll_rule(const struct sbx_plan *p, const char *path)
{
	for (size_t i = 0; i < p->landlock.n_rules; i++)
		if (strcmp(p->landlock.rules[i].path, path) == 0)
			return &p->landlock.rules[i];
	return NULL;
}

static bool has_limit(const struct sbx_plan *p, const char *text)
{
	for (size_t i = 0; i < p->n_limits; i++)
		if (strstr(p->limits[i], text))
			return true;
	return false;
}

/*
 * claude-agent in a fresh project, as core sees it: the workspace /w writable (shown from the
 * host's /host/w under namespaces; the landlock backend sees a path only where it is), its .claude
 * and .mcp.json read-only optional mounts dropped because their sources were absent
 * (spec->absent_ro), no .git there (git_fresh), git's hooks/ absent, a read-only /r (with read
 * caps: `caps`), and the workspace's approvals as given.
 */
static void sup_finish(struct sup_world *s, enum sbx_backend_ask backend, int listener,
                       const struct sbx_approvals *ap, bool caps, bool git)
{
	static const char *const absent[] = {"/w/.claude", "/w/.mcp.json", "/r/x",
	                                     "/nowhere/.claude"};
	struct sbx_mount ws = {.kind = SBX_MOUNT_BIND,
	                       .source = "/host/w",
	                       .target = "/w",
	                       .origin = SBX_ORIGIN_PROFILE};
	struct sbx_mount ro = {.kind = SBX_MOUNT_BIND,
	                       .source = "/r",
	                       .target = "/r",
	                       .readonly = true,
	                       .origin = SBX_ORIGIN_PROFILE};
	struct sbx_error err = {0};
	char warn[2048];

	memset(s, 0, sizeof(*s));
	if (backend == LL)
		ws.source = "/w";
	world_init(&s->w, false, false, false, false, false, 1000);
	sbx_plan_free(s->w.plan);
	s->w.plan = NULL;
	sbx_spec_free(s->w.spec);
	s->w.spec = sbx_spec_new();
	assert_non_null(s->w.spec);
	assert_int_equal(sbx_spec_set_str(&s->w.spec->workspace, "/w", NULL), 0);
	s->w.spec->explicit_mounts = true;
	s->w.spec->nesting = false;
	if (ap)
		ws.approvals = *ap;
	assert_int_equal(sbx_spec_add_mount(s->w.spec, &ws, false, &err), 0);
	if (caps) {
		assert_int_equal(sbx_mount_add_suffix(&ro, ".csv", &err), 0);
		ro.max_file_bytes = 1 << 20;
	}
	assert_int_equal(sbx_spec_add_mount(s->w.spec, &ro, false, &err), 0);
	for (size_t i = 0; i < ro.n_suffixes; i++)
		free(ro.suffixes[i]);
	free(ro.suffixes);
	/* /r/x lies in a read-only mount and /nowhere in none: nothing to protect there */
	s->w.spec->absent_ro = calloc(SBX_ARRAY_SIZE(absent), sizeof(char *));
	assert_non_null(s->w.spec->absent_ro);
	for (size_t i = 0; i < SBX_ARRAY_SIZE(absent); i++)
		s->w.spec->absent_ro[s->w.spec->n_absent_ro++] = strdup(absent[i]);
	assert_int_equal(sbx_spec_set_approve(s->w.spec, "cmd:/usr/bin/broker", &err), 0);
	assert_int_equal(sbx_spec_set_label(s->w.spec, "task-7", &err), 0);
	assert_int_equal(sbx_spec_set_str(&s->w.spec->audit_log, "/var/log/a.jsonl", &err), 0);
	s->w.spec->approve_timeout_ms = 5000;
	if (sup_glob)
		assert_int_equal(sbx_spec_add_hide_glob(s->w.spec, "/w/**/.env", &err), 0);
	s->w.spec->hide_later = sup_later;
	s->w.spec->best_effort = sup_best_effort;
	if (sup_second_view) {
		struct sbx_mount v = {.kind = SBX_MOUNT_BIND,
		                      .source = "/host/w",
		                      .target = "/v",
		                      .readonly = true,
		                      .origin = SBX_ORIGIN_PROFILE};

		assert_int_equal(sbx_spec_add_mount(s->w.spec, &v, false, &err), 0);
	}
	assert_int_equal(sbx_spec_finish(s->w.spec, &err), 0);
	if (sbx_plan_build(s->w.spec, &s->w.host, &s->w.plan, &err) < 0)
		fail_msg("plan: %s", err.msg);
	s->facts = facts_for(7, false, OK, 0, 0);
	s->facts.sup_listener = listener;
	s->in = (struct sbx_finish_in){.spec = s->w.spec, .backend = backend};
	if (git) {
		s->in.git_fresh = fresh_git;
		s->in.n_git_fresh = 1;
		s->in.git_absent = absent_git;
		s->in.n_git_absent = 2;
	}
	if (sup_fails) {
		memset(&sup_err, 0, sizeof(sup_err));
		assert_true(sbx_plan_finish(&s->in, &s->facts, s->w.plan, warn, sizeof(warn),
		                            &sup_err) < 0);
		return;
	}
	if (sbx_plan_finish(&s->in, &s->facts, s->w.plan, warn, sizeof(warn), &err) < 0)
		fail_msg("finish: %s", err.msg);
}

/* A private home (--home tmpfs): the profile's configuration absent at launch (an optional
 * mount with a policy, spec->absent_cfg) is protected there, since the worker would read it
 * during the run; its read-only caches absent at launch (absent_ro) are the run's own. */
static void test_sup_home_config(void **state)
{
	static const char *const cfg[] = {"/h/.claude.json", "/nowhere/cfg"};
	struct sup_world s;
	struct sbx_error err = {0};
	char warn[2048];

	(void)state;
	memset(&s, 0, sizeof(s));
	world_init(&s.w, false, false, false, false, false, 1000);
	sbx_plan_free(s.w.plan);
	s.w.plan = NULL;
	sbx_spec_free(s.w.spec);
	s.w.spec = sbx_spec_new();
	assert_non_null(s.w.spec);
	assert_int_equal(sbx_spec_set_str(&s.w.spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_set_str(&s.w.spec->home_path, "/h", NULL), 0);
	s.w.spec->home = SBX_HOME_TMPFS;
	s.w.spec->nesting = false;
	s.w.spec->absent_cfg = calloc(SBX_ARRAY_SIZE(cfg), sizeof(char *));
	s.w.spec->absent_ro = calloc(1, sizeof(char *));
	assert_non_null(s.w.spec->absent_cfg);
	assert_non_null(s.w.spec->absent_ro);
	for (size_t i = 0; i < SBX_ARRAY_SIZE(cfg); i++)
		s.w.spec->absent_cfg[s.w.spec->n_absent_cfg++] = strdup(cfg[i]);
	s.w.spec->absent_ro[s.w.spec->n_absent_ro++] = strdup("/h/.npm");
	assert_int_equal(sbx_spec_finish(s.w.spec, &err), 0);
	assert_int_equal(sbx_plan_build(s.w.spec, &s.w.host, &s.w.plan, &err), 0);
	s.facts = facts_for(7, false, OK, 0, 0);
	s.in = (struct sbx_finish_in){.spec = s.w.spec, .backend = NS};
	assert_int_equal(sbx_plan_finish(&s.in, &s.facts, s.w.plan, warn, sizeof(warn), &err), 0);
	assert_int_equal(s.w.plan->sup.n_protected, 1);
	assert_string_equal(s.w.plan->sup.protected_paths[0].path, "/h/.claude.json");
	assert_non_null(strstr(s.w.plan->sup.protected_paths[0].why, "private home"));
	world_clear(&s.w);
	/* with no home there, nothing shows it: nothing to protect */
	memset(&s, 0, sizeof(s));
	world_init(&s.w, false, false, false, false, false, 1000);
	s.w.spec->absent_cfg = calloc(1, sizeof(char *));
	assert_non_null(s.w.spec->absent_cfg);
	s.w.spec->absent_cfg[s.w.spec->n_absent_cfg++] = strdup("/h/.claude.json");
	s.facts = facts_for(7, false, OK, 0, 0);
	s.in = (struct sbx_finish_in){.spec = s.w.spec, .backend = NS};
	assert_int_equal(sbx_plan_finish(&s.in, &s.facts, s.w.plan, warn, sizeof(warn), &err), 0);
	assert_int_equal(s.w.plan->sup.n_protected, 0);
	world_clear(&s.w);
}

static void test_sup_fresh_project(void **state)
{
	struct sup_world s;
	const struct sbx_sup_plan *sup;

	(void)state;
	sup_finish(&s, NS, 0, NULL, false, true);
	sup = &s.w.plan->sup;
	/* .claude and .mcp.json under the writable workspace; the fresh project's .git and
	 * git's absent hooks/, shown at /w though the host has them at /host/w; nothing in the
	 * read-only /r, outside every mount, or outside every writable bind */
	assert_int_equal(sup->n_protected, 4);
	assert_string_equal(sup->protected_paths[0].path, "/w/.claude");
	assert_non_null(strstr(sup->protected_paths[0].why, "the agent's project settings"));
	assert_string_equal(sup->protected_paths[0].fix, "create .claude/ before the run");
	assert_string_equal(sup->protected_paths[1].path, "/w/.mcp.json");
	assert_string_equal(sup->protected_paths[2].path, "/w/.git");
	assert_non_null(strstr(sup->protected_paths[2].why, "git's control surface"));
	assert_string_equal(sup->protected_paths[2].fix,
	                    "run `git init` outside the sandbox, then start it again");
	assert_string_equal(sup->protected_paths[3].path, "/w/.git/hooks");
	/* creations are supervised, nothing else: namespaces keep metadata with the mounts */
	assert_true(sup->enabled);
	assert_int_equal(sup->families, SBX_SUP_F_CREATE);
	assert_false(sup->meta_writable_only);
	/* both binds are areas; the workspace allows everything */
	assert_int_equal(sup->n_areas, 2);
	assert_string_equal(sup->areas[0].target, "/w");
	assert_true(sup->areas[0].writable);
	for (int c = 0; c < SBX_AC_COUNT; c++)
		assert_int_equal(sup->areas[0].approvals.op[c], SBX_APPROVE_ALLOW);
	assert_string_equal(sup->areas[1].target, "/r");
	assert_false(sup->areas[1].writable);
	/* the broker, its timeout, the audit log and the label, from the spec */
	assert_string_equal(sup->approve, "cmd:/usr/bin/broker");
	assert_int_equal(sup->timeout_ms, 5000);
	assert_string_equal(sup->audit_log, "/var/log/a.jsonl");
	assert_string_equal(sup->label, "task-7");
	world_clear(&s.w);

	/* without git's lists (protect_git off, or nothing surveyed) only the profile's paths */
	sup_finish(&s, NS, 0, NULL, false, false);
	assert_int_equal(s.w.plan->sup.n_protected, 2);
	world_clear(&s.w);

	/* no listener: nothing supervised, and nothing asked, so no line about it */
	sup_finish(&s, NS, -EBUSY, NULL, false, true);
	assert_false(s.w.plan->sup.enabled);
	assert_int_equal(s.w.plan->sup.families, 0);
	assert_false(has_limit(s.w.plan, "approvals: ask becomes deny"));
	assert_string_equal(s.w.plan->sup.audit_log, "/var/log/a.jsonl"); /* still logged */
	world_clear(&s.w);
}

/* The landlock backend: chmod, chown, utimes and xattrs reach read-only files, so metadata
 * calls are supervised (refused outside the writable areas). */
static void test_sup_landlock_meta(void **state)
{
	struct sup_world s;

	(void)state;
	sup_finish(&s, LL, 0, NULL, false, false);
	assert_true(s.w.plan->backend_landlock);
	assert_true(s.w.plan->sup.meta_writable_only);
	assert_true(s.w.plan->sup.enabled);
	assert_int_equal(s.w.plan->sup.families, SBX_SUP_F_CREATE | SBX_SUP_F_META);
	world_clear(&s.w);
	/* namespaces: no metadata gap */
	sup_finish(&s, NS, 0, NULL, false, false);
	assert_false(s.w.plan->sup.meta_writable_only);
	assert_int_equal(s.w.plan->sup.families & SBX_SUP_F_META, 0);
	world_clear(&s.w);
}

#define FS_REMOVE_ALL (SBX_LL_FS_REMOVE_FILE | SBX_LL_FS_REMOVE_DIR)
#define FS_WRITE_MAKE (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_DIR)

/* `ask` is the supervisor's where a listener can be installed; where a parent supervises
 * already it becomes a kernel denial (Landlock), with a line saying so. */
static void test_sup_ask_without_listener(void **state)
{
	const struct sbx_approvals ask = {
	    {SBX_APPROVE_ASK, SBX_APPROVE_ALLOW, SBX_APPROVE_ASK, SBX_APPROVE_ALLOW}};
	const struct sbx_ll_rule *rule;
	struct sup_world s;

	(void)state;
	/* a listener: Landlock grants what the supervisor asks about */
	sup_finish(&s, NS, 0, &ask, false, false);
	rule = ll_rule(s.w.plan, "/w");
	assert_non_null(rule);
	assert_int_equal(rule->access & (FS_WRITE_MAKE | FS_REMOVE_ALL),
	                 FS_WRITE_MAKE | FS_REMOVE_ALL);
	assert_true(s.w.plan->sup.enabled);
	assert_int_equal(s.w.plan->sup.families,
	                 SBX_SUP_F_CREATE | SBX_SUP_F_WRITE | SBX_SUP_F_DELETE);
	assert_int_equal(s.w.plan->sup.areas[0].approvals.op[SBX_AC_WRITE], SBX_APPROVE_ASK);
	assert_false(has_limit(s.w.plan, "approvals: ask becomes deny"));
	world_clear(&s.w);

	/* a parent supervises: ask is deny, in the kernel */
	sup_finish(&s, NS, -EBUSY, &ask, false, false);
	rule = ll_rule(s.w.plan, "/w");
	assert_non_null(rule);
	assert_int_equal(rule->access & (FS_WRITE_MAKE | FS_REMOVE_ALL | SBX_LL_FS_TRUNCATE), 0);
	assert_true(rule->access & SBX_LL_FS_READ_FILE); /* reading is no approval's */
	assert_false(s.w.plan->sup.enabled);
	assert_int_equal(s.w.plan->sup.families, 0);
	assert_int_equal(s.w.plan->sup.areas[0].approvals.op[SBX_AC_WRITE], SBX_APPROVE_DENY);
	assert_true(has_limit(s.w.plan, "approvals: ask becomes deny: a parent sandbox already "
	                                "supervises (one listener per process)"));
	/* rename stays allowed in the profile, but Landlock's remove right is one: noted */
	assert_true(s.w.plan->landlock.n_inexact > 0);
	world_clear(&s.w);

	/* no user notification at all, under the landlock backend (rules on host paths) */
	sup_finish(&s, LL, -ENOSYS, &ask, false, false);
	rule = ll_rule(s.w.plan, "/w");
	assert_non_null(rule);
	assert_int_equal(rule->access & (FS_WRITE_MAKE | FS_REMOVE_ALL), 0);
	assert_true(has_limit(s.w.plan, "no seccomp user notification"));
	world_clear(&s.w);
}

/* The landlock backend's allowlist: TCP sockets only, every connect the supervisor's, a
 * listener required (fail closed), a sub-worker's list of its own refused. */
static void allow_world(struct world *w)
{
	struct sbx_error err = {0};

	world_init(w, false, false, false, false, false, 1000);
	w->spec->net = SBX_NET_ALLOW;
	assert_int_equal(sbx_netpolicy_add(&w->spec->netpol, false, "ok.example", false, &err), 0);
	sbx_plan_free(w->plan);
	w->plan = NULL;
	if (sbx_plan_build(w->spec, &w->host, &w->plan, &err) < 0)
		fail_msg("plan: %s", err.msg);
}

static void test_landlock_allowlist(void **state)
{
	static const struct {
		int listener;
		bool ok;
		const char *why;
	} cases[] = {
	    {0, true, NULL},
	    {-EBUSY, false, "a parent sandbox already supervises this process"},
	    {-ENOSYS, false, "this kernel has no seccomp user notification"},
	    {-EPERM, false, "it cannot be installed here"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_finish_facts facts = facts_for(7, false, OK, SBX_ERR_NONE, 0);
		struct sbx_finish_in in = {.backend = LL};
		struct sbx_error err = {0};
		struct world w;
		char warn[2048];
		int r;

		allow_world(&w);
		facts.sup_listener = cases[i].listener;
		in.spec = w.spec;
		r = sbx_plan_finish(&in, &facts, w.plan, warn, sizeof(warn), &err);
		if (!cases[i].ok) {
			/* nothing would check a connect's address: refused, 125 */
			assert_true(r < 0);
			assert_int_equal(err.kind, SBX_ERR_UNSUPPORTED);
			assert_non_null(strstr(err.msg, "needs sbx's supervisor"));
			assert_non_null(strstr(err.msg, cases[i].why));
			assert_non_null(strstr(err.hint, "--net none or --net host"));
			world_clear(&w);
			continue;
		}
		assert_int_equal(r, 0);
		assert_true(w.plan->backend_landlock);
		assert_true(w.plan->seccomp.tcp_only);
		assert_false(w.plan->seccomp.no_network);
		assert_true(has_group_rule(&w.plan->seccomp_rules, sbx_seccomp_tcp_only_group));
		assert_false(has_group_rule(&w.plan->seccomp_rules, sbx_seccomp_no_network_group));
		assert_true(w.plan->sup.enabled);
		assert_true(w.plan->sup.families & SBX_SUP_F_CONNECT);
		/* Landlock: TCP bind and connect handled (the proxy's ports come at launch) */
		assert_int_equal(w.plan->landlock.handled_net,
		                 SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP);
		assert_int_equal(w.plan->landlock.n_connect_ports, 0);
		/* what it gives up, said */
		assert_non_null(strstr(w.plan->landlock.lost, "no resolver inside"));
		assert_non_null(strstr(w.plan->landlock.lost, "host's loopback"));
		world_clear(&w);
	}
	/* the namespaces backend: its own namespace, no connect gate */
	{
		struct sbx_finish_facts facts = facts_for(7, false, OK, SBX_ERR_NONE, 0);
		struct sbx_finish_in in = {.backend = NS};
		struct world w;

		allow_world(&w);
		in.spec = w.spec;
		assert_int_equal(sbx_plan_finish(&in, &facts, w.plan, NULL, 0, NULL), 0);
		assert_false(w.plan->seccomp.tcp_only);
		assert_int_equal(w.plan->sup.families & SBX_SUP_F_CONNECT, 0);
		world_clear(&w);
	}
}

/* `deny` is always a kernel rule, supervisor or not. */
static void test_sup_deny_is_landlock(void **state)
{
	const struct sbx_approvals deny_delete = {
	    {SBX_APPROVE_ALLOW, SBX_APPROVE_ALLOW, SBX_APPROVE_DENY, SBX_APPROVE_DENY}};
	const struct sbx_approvals deny_overwrite = {
	    {SBX_APPROVE_ALLOW, SBX_APPROVE_DENY, SBX_APPROVE_ALLOW, SBX_APPROVE_ALLOW}};
	const struct sbx_ll_rule *rule;
	struct sup_world s;

	(void)state;
	for (int listener = 0; listener >= -EBUSY; listener -= EBUSY) {
		sup_finish(&s, NS, listener, &deny_delete, false, false);
		rule = ll_rule(s.w.plan, "/w");
		assert_non_null(rule);
		assert_int_equal(rule->access & (FS_REMOVE_ALL | SBX_LL_FS_REFER), 0);
		assert_int_equal(rule->access & FS_WRITE_MAKE, FS_WRITE_MAKE);
		/* both denied: nothing stricter than the profile to say */
		assert_int_equal(s.w.plan->landlock.n_inexact, 0);
		assert_false(has_limit(s.w.plan, "approvals: ask becomes deny"));
		assert_int_equal(s.w.plan->sup.enabled, listener == 0);
		world_clear(&s.w);
	}
	/* overwrite: truncation is the kernel's */
	sup_finish(&s, NS, 0, &deny_overwrite, false, false);
	rule = ll_rule(s.w.plan, "/w");
	assert_non_null(rule);
	assert_int_equal(rule->access & SBX_LL_FS_TRUNCATE, 0);
	assert_int_equal(rule->access & (FS_WRITE_MAKE | FS_REMOVE_ALL),
	                 FS_WRITE_MAKE | FS_REMOVE_ALL);
	world_clear(&s.w);
	/* without approvals the same world keeps every right (the checks above can fail) */
	sup_finish(&s, NS, 0, NULL, false, false);
	rule = ll_rule(s.w.plan, "/w");
	assert_non_null(rule);
	assert_int_equal(rule->access & (FS_REMOVE_ALL | SBX_LL_FS_TRUNCATE | FS_WRITE_MAKE),
	                 FS_REMOVE_ALL | SBX_LL_FS_TRUNCATE | FS_WRITE_MAKE);
	world_clear(&s.w);
}

/* Read caps put opens for reading through the supervisor; hide globs alone nothing. */
static void test_sup_read_caps_and_globs(void **state)
{
	struct sup_world s;
	unsigned families;

	(void)state;
	sup_finish(&s, NS, 0, NULL, true, false);
	assert_true(s.w.plan->sup.families & SBX_SUP_F_READ);
	assert_int_equal(s.w.plan->sup.areas[1].n_suffixes, 1);
	assert_string_equal(s.w.plan->sup.areas[1].suffixes[0], ".csv");
	assert_int_equal(s.w.plan->sup.areas[1].max_file_bytes, 1 << 20);
	world_clear(&s.w);
	/* a hide glob turns no family on (sbx-profile(5) names the gap): the families are
	 * those of the world's absent .claude and .mcp.json alone; the glob is kept for read
	 * caps */
	sup_finish(&s, NS, 0, NULL, false, false);
	families = s.w.plan->sup.families;
	world_clear(&s.w);
	sup_glob = true;
	sup_finish(&s, NS, 0, NULL, false, false);
	sup_glob = false;
	assert_int_equal(families, SBX_SUP_F_CREATE);
	assert_int_equal(s.w.plan->sup.families, families);
	assert_int_equal(s.w.plan->sup.n_hide_globs, 1);
	assert_string_equal(s.w.plan->sup.hide_globs[0], "/w/**/.env");
	world_clear(&s.w);
}

/* hide_later: every open for reading and every rename and link are supervised; the globs
 * are decided at every view of a host file; without a listener it is refused, or (with
 * --best-effort) a limit says it does not hold. */
static void test_sup_hide_later(void **state)
{
	struct sup_world s;
	char views[4][SBX_PATH_MAX];

	(void)state;
	sup_glob = sup_later = sup_second_view = true;
	sup_finish(&s, NS, 0, NULL, false, false);
	assert_true(s.w.plan->sup.hide_later);
	assert_int_equal(s.w.plan->sup.families & (SBX_SUP_F_READ | SBX_SUP_F_CREATE),
	                 SBX_SUP_F_READ | SBX_SUP_F_CREATE);
	assert_int_equal(sbx_sup_views(s.w.plan, "/w/a/.env", views, 4), 1);
	assert_string_equal(views[0], "/v/a/.env");
	assert_int_equal(sbx_sup_views(s.w.plan, "/v/a/.env", views, 4), 1);
	assert_string_equal(views[0], "/w/a/.env");
	assert_int_equal(sbx_sup_views(s.w.plan, "/tmp/x", views, 4), 0); /* a tmpfs */
	world_clear(&s.w);

	/* a parent already supervises: refused, naming the flag and the way out */
	sup_fails = true;
	sup_finish(&s, NS, -EBUSY, NULL, false, false);
	sup_fails = false;
	assert_non_null(strstr(sup_err.msg, "hide_later needs sbx's supervisor"));
	assert_non_null(strstr(sup_err.msg, "a parent sandbox already supervises"));
	assert_non_null(strstr(sup_err.hint, "--best-effort"));
	world_clear(&s.w);
	/* ... or run without it, said */
	sup_best_effort = true;
	sup_finish(&s, NS, -EBUSY, NULL, false, false);
	assert_false(s.w.plan->sup.hide_later);
	assert_true(has_limit(s.w.plan, "hide_later: files created after launch are not hidden"));
	world_clear(&s.w);
	/* no glob: nothing to hold, nothing supervised for it */
	sup_glob = false;
	sup_best_effort = false;
	sup_finish(&s, NS, 0, NULL, false, false);
	assert_false(s.w.plan->sup.hide_later);
	assert_int_equal(s.w.plan->sup.families & SBX_SUP_F_READ, 0);
	world_clear(&s.w);
	sup_later = sup_second_view = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finish_table),
	    cmocka_unit_test(test_carving_asks_the_facts),
	    cmocka_unit_test(test_refusal_says_why_landlock),
	    cmocka_unit_test(test_top_level_origin_and_once),
	    cmocka_unit_test(test_git_limits),
	    cmocka_unit_test(test_namespace_count_shares),
	    cmocka_unit_test(test_pids_floor),
	    cmocka_unit_test(test_nested_table),
	    cmocka_unit_test(test_sup_home_config),
	    cmocka_unit_test(test_sup_fresh_project),
	    cmocka_unit_test(test_sup_landlock_meta),
	    cmocka_unit_test(test_sup_ask_without_listener),
	    cmocka_unit_test(test_sup_deny_is_landlock),
	    cmocka_unit_test(test_landlock_allowlist),
	    cmocka_unit_test(test_sup_read_caps_and_globs),
	    cmocka_unit_test(test_sup_hide_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
