/* SPDX-License-Identifier: MIT */
/* Per-operation rights compiled to Landlock rules, and the ABI negotiation (pure). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/landlock.h"
#include "sbx/path.h"
#include "sbx/plan.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "sbx/spec.h"

#define R SBX_LL_FS_READ_FILE
#define L SBX_LL_FS_READ_DIR
#define W (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE)
#define X SBX_LL_FS_EXECUTE
#define MK                                                                                         \
	(SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_DIR | SBX_LL_FS_MAKE_SOCK | SBX_LL_FS_MAKE_FIFO |     \
	 SBX_LL_FS_MAKE_SYM)
#define RM (SBX_LL_FS_REMOVE_FILE | SBX_LL_FS_REMOVE_DIR)

static struct sbx_host_entry host_entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
    {"/bin", SBX_HOST_SYMLINK, "usr/bin"},
    {"/etc/passwd", SBX_HOST_FILE, NULL},
};
static char *const fake_environ[] = {"PATH=/usr/bin", "HOME=/home/u", NULL};
static struct sbx_host host = {
    .uid = 1000,
    .gid = 1000,
    .euid = 1000,
    .entries = host_entries,
    .n_entries = sizeof(host_entries) / sizeof(host_entries[0]),
    .environ = fake_environ,
    .cwd = "/home/u/ws",
};

/* One case: a policy on /w (same path), what the rule on /w must grant, and whether the
 * compile is exact. */
static const struct {
	const char *name;
	const char *yaml; /* the policy's rules */
	bool readonly;    /* the mount's own flag */
	uint64_t want;    /* rights on /w */
	bool exact;
	const char *sub; /* a subtree rule expected, or NULL */
	uint64_t sub_want;
} cases[] = {
    {"everything", "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n", false,
     R | L | W | X | MK | RM | SBX_LL_FS_REFER, true, NULL, 0},
    {"read-only mount", "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n",
     true, R | L | X, true, NULL, 0},
    {"create but not delete",
     "  - {name: a, paths: [\"**\"], operations: [read, list, stat, write, create], decision: "
     "allow}\n",
     false, R | L | W | MK, true, NULL, 0},
    {"write but not execute",
     "  - {name: a, paths: [\"**\"], operations: [read, list, stat, write, create, delete], "
     "decision: allow}\n",
     false, R | L | W | MK | RM | SBX_LL_FS_REFER, true, NULL, 0},
    {"delete but not create",
     "  - {name: a, paths: [\"**\"], operations: [read, list, stat, delete], decision: "
     "allow}\n",
     false, R | L | RM, true, NULL, 0},
    {"a subtree may write",
     "  - {name: a, paths: [\"**\"], operations: [read, list, stat], decision: allow}\n"
     "  - {name: o, paths: [\"out/**\"], operations: [write, create, delete], decision: "
     "allow}\n",
     false, R | L, true, "/w/out", R | L | W | MK | RM | SBX_LL_FS_REFER},
    {"a partial deny is stricter",
     "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n"
     "  - {name: d, paths: [\"src/**\"], operations: [write], decision: deny}\n",
     false, R | L | MK | RM | SBX_LL_FS_REFER | X, false, NULL, 0},
    /* the walk hides its matches whole (spec->hide_globs): the mount keeps everything */
    {"a glob deny is hidden by the walk, stricter",
     "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n"
     "  - {name: d, paths: [\"**/*.key\"], operations: [read], decision: deny}\n",
     false, R | L | W | X | MK | RM | SBX_LL_FS_REFER, false, NULL, 0},
    {"a glob allow grants nothing more",
     "  - {name: a, paths: [\"**\"], operations: [read, list, stat], decision: allow}\n"
     "  - {name: g, paths: [\"*.sh\"], operations: [execute], decision: allow}\n",
     false, R | L, false, NULL, 0},
    {"a deny elsewhere changes nothing",
     "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n"
     "  - {name: d, paths: [\"/etc/**\"], operations: [read], decision: deny}\n",
     false, R | L | W | X | MK | RM | SBX_LL_FS_REFER, true, NULL, 0},
};

static const struct sbx_ll_rule *find_rule(const struct sbx_ll_plan *ll, const char *path)
{
	for (size_t i = 0; i < ll->n_rules; i++)
		if (strcmp(ll->rules[i].path, path) == 0)
			return &ll->rules[i];
	return NULL;
}

static void compile_world(const char *yaml, bool readonly, bool same_ns, struct sbx_ll_plan *ll,
                          struct sbx_plan **plan_out, struct sbx_spec **spec_out,
                          struct sbx_policy_set *set)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_policy *p = NULL;
	struct sbx_plan *plan = NULL;
	struct sbx_error err = {0};
	char *full;
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = "/w",
	                      .target = "/w",
	                      .readonly = readonly,
	                      .origin = SBX_ORIGIN_PROFILE,
	                      .policy = "p"};

	assert_non_null(spec);
	assert_true(asprintf(&full, "version: 1\nrules:\n%s", yaml) > 0);
	if (sbx_policy_load_buffer(full, strlen(full), "p.yaml", "p", &p, &err) < 0)
		fail_msg("policy: %s", err.msg);
	free(full);
	memset(set, 0, sizeof(*set));
	assert_int_equal(sbx_policy_set_add(set, p, &err), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &m, false, &err), 0);
	if (sbx_policy_compile(spec, set, &err) < 0)
		fail_msg("compile: %s", err.msg);
	assert_int_equal(sbx_spec_finish(spec, &err), 0);
	assert_int_equal(sbx_plan_build(spec, &host, &plan, &err), 0);
	{
		struct sbx_policy_view view = {.plan = plan, .spec = spec, .policies = set};
		struct sbx_ll_opts opts = {.same_ns = same_ns};

		if (sbx_ll_compile(&view, &opts, ll, &err) < 0)
			fail_msg("ll compile: %s", err.msg);
	}
	*plan_out = plan;
	*spec_out = spec;
}

static void test_compile_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_ll_plan ll;
		struct sbx_plan *plan;
		struct sbx_spec *spec;
		struct sbx_policy_set set;
		const struct sbx_ll_rule *r;
		char got[512], want[512];

		compile_world(cases[i].yaml, cases[i].readonly, false, &ll, &plan, &spec, &set);
		r = find_rule(&ll, "/w");
		assert_non_null(r);
		if (r->access != cases[i].want)
			fail_msg("%s: /w gets %s, expected %s", cases[i].name,
			         sbx_ll_fs_format(r->access, got, sizeof(got)),
			         sbx_ll_fs_format(cases[i].want, want, sizeof(want)));
		/* never a character or block device, anywhere */
		for (size_t k = 0; k < ll.n_rules; k++)
			assert_int_equal(
			    ll.rules[k].access & (SBX_LL_FS_MAKE_CHAR | SBX_LL_FS_MAKE_BLOCK), 0);
		if (cases[i].exact != (ll.n_inexact == 0))
			fail_msg("%s: exact is %d, expected %d (%s)", cases[i].name,
			         ll.n_inexact == 0, cases[i].exact,
			         ll.n_inexact ? ll.inexact[0] : "");
		if (cases[i].sub) {
			r = find_rule(&ll, cases[i].sub);
			assert_non_null(r);
			assert_int_equal(r->access, cases[i].sub_want);
		}
		/* the system directories are read and execute, /tmp everything */
		r = find_rule(&ll, "/usr");
		assert_non_null(r);
		assert_int_equal(r->access, R | L | X);
		r = find_rule(&ll, "/tmp");
		assert_non_null(r);
		assert_int_equal(r->access & (R | L | W | MK | RM), R | L | W | MK | RM);
		assert_true(ll.enabled);
		assert_int_equal(ll.handled_net, 0); /* the network namespace does that */
		sbx_ll_plan_clear(&ll);
		sbx_plan_free(plan);
		sbx_spec_free(spec);
		sbx_policy_set_clear(&set);
	}
}

/* Landlock rights reach everything beneath a path: an ancestor may not give more than a
 * mount beneath it allows, unless that mount's own flags stop it. */
static void test_ancestor_never_widens(void **state)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_plan *plan = NULL;
	struct sbx_error err = {0};
	struct sbx_ll_plan ll;
	struct sbx_policy_set set = {0};
	struct sbx_policy *p = NULL;
	static const char cnd[] = "version: 1\nrules:\n  - {name: a, paths: [\"**\"], operations: "
	                          "[read, list, stat, write, create], decision: allow}\n";
	struct sbx_mount ws = {.kind = SBX_MOUNT_BIND,
	                       .source = "/tmp/a/ws",
	                       .target = "/tmp/a/ws",
	                       .origin = SBX_ORIGIN_PROFILE,
	                       .policy = "cnd"};
	struct sbx_policy_view view;

	(void)state;
	assert_int_equal(sbx_policy_load_buffer(cnd, strlen(cnd), "cnd.yaml", "cnd", &p, &err), 0);
	assert_int_equal(sbx_policy_set_add(&set, p, &err), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &ws, false, &err), 0);
	assert_int_equal(sbx_policy_compile(spec, &set, &err), 0);
	assert_int_equal(sbx_spec_finish(spec, &err), 0);
	assert_int_equal(sbx_plan_build(spec, &host, &plan, &err), 0);
	view = (struct sbx_policy_view){.plan = plan, .spec = spec, .policies = &set};
	assert_int_equal(sbx_ll_compile(&view, NULL, &ll, &err), 0);
	/* /tmp (private, everything) loses delete because of the workspace beneath it */
	for (size_t i = 0; i < ll.n_rules; i++)
		if (strcmp(ll.rules[i].path, "/tmp") == 0)
			assert_int_equal(ll.rules[i].access & RM, 0);
	assert_true(ll.n_inexact > 0);
	assert_non_null(strstr(ll.inexact[0], "/tmp: remove_dir,remove_file"));
	/* and no rule anywhere gives delete beneath /tmp/a/ws */
	for (size_t i = 0; i < ll.n_rules; i++)
		if (sbx_path_covers(ll.rules[i].path, "/tmp/a/ws/x"))
			assert_int_equal(ll.rules[i].access & RM, 0);
	sbx_ll_plan_clear(&ll);
	sbx_plan_free(plan);
	sbx_spec_free(spec);
	sbx_policy_set_clear(&set);
}

/* What only Landlock enforces: nothing for rights the mounts give exactly; delete for a
 * mount that may create but not delete; everything under the landlock backend. */
static void test_needed(void **state)
{
	static const char all[] =
	    "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n";
	struct sbx_ll_plan ll;
	struct sbx_plan *plan;
	struct sbx_spec *spec;
	struct sbx_policy_set set;

	(void)state;
	compile_world(all, false, false, &ll, &plan, &spec, &set);
	assert_int_equal(ll.needed_fs, 0);
	sbx_ll_plan_clear(&ll);
	sbx_plan_free(plan);
	sbx_spec_free(spec);
	sbx_policy_set_clear(&set);

	compile_world(all, true, false, &ll, &plan, &spec, &set); /* read-only: the mount */
	assert_int_equal(ll.needed_fs, 0);
	sbx_ll_plan_clear(&ll);
	sbx_plan_free(plan);
	sbx_spec_free(spec);
	sbx_policy_set_clear(&set);

	compile_world(cases[2].yaml, false, false, &ll, &plan, &spec, &set); /* no delete */
	assert_int_equal(ll.needed_fs & RM, RM);
	assert_int_equal(ll.needed_fs & (W | MK), 0);
	sbx_ll_plan_clear(&ll);
	sbx_plan_free(plan);
	sbx_spec_free(spec);
	sbx_policy_set_clear(&set);

	compile_world(all, false, true, &ll, &plan, &spec, &set); /* landlock backend */
	assert_int_equal(ll.needed_fs, SBX_LL_FS_ALL);
	sbx_ll_plan_clear(&ll);
	sbx_plan_free(plan);
	sbx_spec_free(spec);
	sbx_policy_set_clear(&set);
}

static void test_mapping(void **state)
{
	(void)state;
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_READ), R);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_LIST), L);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_STAT), 0);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_WRITE), W);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_CREATE), MK);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_DELETE), RM);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_EXECUTE), X);
	assert_int_equal(sbx_ll_fs_from_ops(SBX_OP_CREATE | SBX_OP_DELETE),
	                 MK | RM | SBX_LL_FS_REFER);
}

/* The ABI table: each step adds what it says, and the masks only grow. */
static void test_abi_table(void **state)
{
	(void)state;
	assert_int_equal(sbx_ll_fs_for_abi(0), 0);
	assert_int_equal(sbx_ll_fs_for_abi(1),
	                 SBX_LL_FS_ALL &
	                     ~(SBX_LL_FS_REFER | SBX_LL_FS_TRUNCATE | SBX_LL_FS_IOCTL_DEV));
	assert_int_equal(sbx_ll_fs_for_abi(2) & SBX_LL_FS_REFER, SBX_LL_FS_REFER);
	assert_int_equal(sbx_ll_fs_for_abi(2) & SBX_LL_FS_TRUNCATE, 0);
	assert_int_equal(sbx_ll_fs_for_abi(3) & SBX_LL_FS_TRUNCATE, SBX_LL_FS_TRUNCATE);
	assert_int_equal(sbx_ll_net_for_abi(3), 0);
	assert_int_equal(sbx_ll_net_for_abi(4), SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP);
	assert_int_equal(sbx_ll_fs_for_abi(4) & SBX_LL_FS_IOCTL_DEV, 0);
	assert_int_equal(sbx_ll_fs_for_abi(5), SBX_LL_FS_ALL);
	assert_int_equal(sbx_ll_scoped_for_abi(5), 0);
	assert_int_equal(sbx_ll_scoped_for_abi(6),
	                 SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL);
	assert_int_equal(sbx_ll_fs_for_abi(99), SBX_LL_FS_ALL);
	for (size_t i = 1; i < sbx_ll_n_abi_steps; i++) {
		assert_int_equal(sbx_ll_abi_steps[i].abi, sbx_ll_abi_steps[i - 1].abi + 1);
		assert_non_null(sbx_ll_abi_steps[i].lacks);
		assert_non_null(sbx_ll_abi_steps[i].since);
	}
	assert_int_equal(sbx_ll_abi_steps[sbx_ll_n_abi_steps - 1].abi, SBX_LL_ABI_KNOWN);
}

/* Negotiation: masked down, refused where the result would be looser, warned with
 * best-effort. */
static void test_negotiate(void **state)
{
	static const struct {
		int abi;
		bool landlock_backend, tcp, best_effort;
		uint64_t needed;
		int ret;
		const char *msg; /* in the error, or in the warnings */
	} t[] = {
	    {7, false, false, false, SBX_LL_FS_ALL, 0, NULL},
	    {6, true, true, false, SBX_LL_FS_ALL, 0, NULL},
	    {2, false, false, false, SBX_LL_FS_TRUNCATE, -EOPNOTSUPP, "lacks ABI 3: truncation"},
	    {2, false, false, true, SBX_LL_FS_TRUNCATE, 0, "NOT ENFORCED: ABI 3 missing"},
	    /* the mounts enforce everything the policies deny: an old ABI loses nothing */
	    {2, false, false, false, SBX_LL_FS_REMOVE_FILE, 0, NULL},
	    /* the TCP rules (ABI 4) are not what refuses: seccomp closes the network there too
	     * (sbx_seccomp_conf.no_network); the scopes (ABI 6) are */
	    {3, true, true, false, SBX_LL_FS_ALL, -EOPNOTSUPP, "lacks ABI 6: scopes"},
	    {5, true, true, false, SBX_LL_FS_ALL, -EOPNOTSUPP, "lacks ABI 6: scopes"},
	    {5, true, false, false, SBX_LL_FS_ALL, -EOPNOTSUPP, "lacks ABI 6: scopes"},
	    {5, false, false, false, SBX_LL_FS_ALL, 0, NULL}, /* namespaces separate them */
	    {-38, false, false, false, SBX_LL_FS_REMOVE_FILE, -EOPNOTSUPP, "(ABI 0) lacks ABI 1"},
	    {-95, false, false, true, SBX_LL_FS_REMOVE_FILE, 0, "NOT ENFORCED: ABI 1 missing"},
	    {-38, false, false, false, 0, 0, NULL}, /* no Landlock, none needed */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sbx_ll_rule rule = {.path = NULL, .access = SBX_LL_FS_ALL};
		struct sbx_ll_plan p = {.enabled = true,
		                        .handled_fs = SBX_LL_FS_ALL,
		                        .needed_fs = t[i].needed,
		                        .handled_net = t[i].tcp ? SBX_LL_NET_BIND_TCP : 0,
		                        .scoped = SBX_LL_SCOPE_SIGNAL,
		                        .rules = &rule,
		                        .n_rules = 1};
		struct sbx_error err = {0};
		char warn[1024];
		int r = sbx_ll_negotiate(&p, t[i].abi, t[i].landlock_backend, t[i].best_effort,
		                         warn, sizeof(warn), &err);

		if (r != t[i].ret)
			fail_msg("case %zu: %d, expected %d (%s)", i, r, t[i].ret, err.msg);
		if (!t[i].msg && r == 0 && warn[0])
			fail_msg("case %zu: unexpected warning '%s'", i, warn);
		if (t[i].msg && !strstr(r < 0 ? err.msg : warn, t[i].msg))
			fail_msg("case %zu: '%s' not in '%s'", i, t[i].msg, r < 0 ? err.msg : warn);
		if (r == 0 && p.enabled) {
			assert_int_equal(p.handled_fs & ~sbx_ll_fs_for_abi(t[i].abi), 0);
			assert_int_equal(rule.access & ~p.handled_fs, 0);
			assert_int_equal(p.scoped & ~sbx_ll_scoped_for_abi(t[i].abi), 0);
		}
		if (r == 0 && t[i].abi < 1)
			assert_false(p.enabled);
	}
}

/* Scopes only (a nesting sandbox whose mounts enforce every right): no rule, no file or TCP
 * right handled, both scopes; kept where the kernel has them (ABI >= 6), off with a reason
 * below, since an empty ruleset is what the kernel refuses. */
static void test_scopes_only(void **state)
{
	static const int abis[] = {7, 6, 5, 1, -38};

	(void)state;
	for (size_t i = 0; i < sizeof(abis) / sizeof(abis[0]); i++) {
		struct sbx_ll_plan p = {0};
		struct sbx_error err = {0};
		char warn[256];

		p.enabled = true;
		p.handled_fs = SBX_LL_FS_ALL;
		p.handled_net = SBX_LL_NET_CONNECT_TCP;
		p.rules = calloc(1, sizeof(*p.rules));
		assert_non_null(p.rules);
		p.rules[0].path = strdup("/w");
		p.rules[0].access = SBX_LL_FS_ALL;
		p.n_rules = 1;
		assert_int_equal(sbx_ll_note(&p, "a note about rules", NULL), 0);
		sbx_ll_scopes_only(&p);
		assert_int_equal(p.n_rules, 0);
		assert_int_equal(p.n_inexact, 0);
		assert_int_equal(p.handled_fs, 0);
		assert_int_equal(p.needed_fs, 0);
		assert_int_equal(p.handled_net, 0);
		assert_int_equal(p.scoped, SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL);
		assert_true(p.enabled);
		/* never refused, never warned: the namespaces separate what the scopes add */
		assert_int_equal(
		    sbx_ll_negotiate(&p, abis[i], false, false, warn, sizeof(warn), &err), 0);
		assert_string_equal(warn, "");
		if (abis[i] >= 6) {
			assert_true(p.enabled);
			assert_int_equal(p.scoped,
			                 SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL);
			assert_null(p.off);
		} else {
			assert_false(p.enabled);
			if (abis[i] >= 1)
				assert_non_null(strstr(p.off, "has no scopes"));
		}
		sbx_ll_plan_clear(&p);
	}
}

/* Under the landlock backend a hidden path is a rule of its own, denied, and the mount's rule
 * above it keeps its full rights for carving (nothing is granted it before); under the
 * namespaces backend a mask does that, and no such rule exists. */
static void test_compile_hidden(void **state)
{
	static const char yaml[] =
	    "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n"
	    "  - {name: s, paths: [\".env\"], operations: [all], decision: deny}\n";

	(void)state;
	for (int same_ns = 0; same_ns < 2; same_ns++) {
		struct sbx_ll_plan ll;
		struct sbx_plan *plan;
		struct sbx_spec *spec;
		struct sbx_policy_set set;
		const struct sbx_ll_rule *w, *h;

		compile_world(yaml, false, same_ns, &ll, &plan, &spec, &set);
		w = find_rule(&ll, "/w");
		h = find_rule(&ll, "/w/.env");
		assert_non_null(w);
		if (same_ns) {
			assert_non_null(h);
			assert_true(h->hidden);
			assert_int_equal(h->access, 0);
			assert_int_equal(w->access, 0);
			assert_int_equal(w->full, R | L | W | X | MK | RM | SBX_LL_FS_REFER);
		} else {
			assert_null(h);
			assert_int_equal(w->access, R | L | W | X | MK | RM | SBX_LL_FS_REFER);
		}
		sbx_ll_plan_clear(&ll);
		sbx_plan_free(plan);
		sbx_spec_free(spec);
		sbx_policy_set_clear(&set);
	}
}

/* ---- carving (sbx_ll_expand) over a host given as a table ---- */

struct fake_node {
	const char *path;
	enum sbx_ll_kind kind;
};

/* The host: /w holds a secret file, a file, a directory with a file and a secret, a
 * symlink, and a secret directory. */
static const struct fake_node fake_tree[] = {
    {"/w", SBX_LL_DIR},     {"/w/.env", SBX_LL_FILE},  {"/w/a", SBX_LL_FILE},
    {"/w/d", SBX_LL_DIR},   {"/w/d/x", SBX_LL_FILE},   {"/w/d/.env", SBX_LL_FILE},
    {"/w/ln", SBX_LL_LINK}, {"/w/secret", SBX_LL_DIR}, {"/w/secret/k", SBX_LL_FILE},
    {"/w/ro", SBX_LL_DIR},  {"/w/ro/f", SBX_LL_FILE},  {"/w/ln/y", SBX_LL_VIA_LINK},
};

static void fake_full(const char *base, const char *rel, char *out, size_t size)
{
	snprintf(out, size, "%s%s%s", strcmp(base, "/") ? base : "", *rel ? "/" : "", rel);
}

static enum sbx_ll_kind fake_kind(void *ctx, const char *base, const char *rel)
{
	char full[256];

	(void)ctx;
	fake_full(base, rel, full, sizeof(full));
	for (size_t i = 0; i < sizeof(fake_tree) / sizeof(fake_tree[0]); i++)
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
	fake_full(base, rel, dir, sizeof(dir));
	dl = strlen(dir);
	*out = calloc(sizeof(fake_tree) / sizeof(fake_tree[0]), sizeof(**out));
	assert_non_null(*out);
	for (size_t i = 0; i < sizeof(fake_tree) / sizeof(fake_tree[0]); i++) {
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

#define ALLR  (R | L | W | X | MK | RM | SBX_LL_FS_REFER)
#define FILER (ALLR & SBX_LL_FS_FILE)

struct want_rule {
	const char *path;
	uint64_t access; /* 0: no rule granting anything there */
};

static const struct {
	const char *name;
	const char *hidden[3];
	const char *sub;     /* a subtree rule with less, or NULL */
	uint64_t sub_access; /* its rights */
	struct want_rule want[8];
	size_t n_rules; /* rules granting something, the top and the subtree rule included */
} carve_cases[] = {
    {"a hidden file at the top",
     {"/w/.env"},
     NULL,
     0,
     {{"/w", L | MK},
      {"/w/.env", 0},
      {"/w/a", FILER},
      {"/w/d", ALLR},
      {"/w/ln", 0},
      {"/w/secret", ALLR},
      {"/w/ro", ALLR}},
     5},
    {"a hidden file deeper: the chain keeps list and create",
     {"/w/d/.env"},
     NULL,
     0,
     {{"/w", L | MK}, {"/w/d", L | MK}, {"/w/d/x", FILER}, {"/w/a", FILER}, {"/w/d/.env", 0}},
     7},
    {"a hidden directory: its parent keeps nothing",
     {"/w/secret"},
     NULL,
     0,
     {{"/w", 0}, {"/w/secret", 0}, {"/w/secret/k", 0}, {"/w/a", FILER}, {"/w/d", ALLR}},
     4},
    {"a hidden path that does not exist: nothing to carve",
     {"/w/.npmrc"},
     NULL,
     0,
     {{"/w", ALLR}, {"/w/a", 0}},
     1},
    {"a read-only subtree: the chain keeps what it allows",
     {NULL},
     "/w/ro",
     R | L | X,
     {{"/w", R | L | X}, {"/w/ro", R | L | X}, {"/w/a", FILER}, {"/w/d", ALLR}},
     6},
    {"a hidden file beside a read-only subtree",
     {"/w/.env"},
     "/w/ro",
     R | L | X,
     {{"/w", L}, {"/w/ro", R | L | X}, {"/w/a", FILER}, {"/w/.env", 0}},
     5},
};

static void add_plan_rule(struct sbx_ll_plan *p, const char *path, uint64_t access, uint64_t full,
                          bool hidden)
{
	p->rules = realloc(p->rules, (p->n_rules + 1) * sizeof(*p->rules));
	assert_non_null(p->rules);
	p->rules[p->n_rules++] = (struct sbx_ll_rule){
	    .path = strdup(path), .access = access, .full = full, .hidden = hidden, .why = "t"};
}

static void test_carve_table(void **state)
{
	const struct sbx_ll_host fake = {.list = fake_list, .kind = fake_kind};

	(void)state;
	for (size_t i = 0; i < sizeof(carve_cases) / sizeof(carve_cases[0]); i++) {
		struct sbx_ll_plan p = {0};
		struct sbx_error err = {0};
		size_t granting = 0;

		/* as sbx_ll_compile leaves it: the top lost what a path beneath takes */
		add_plan_rule(&p, "/w", carve_cases[i].sub ? carve_cases[i].sub_access : 0, ALLR,
		              false);
		if (carve_cases[i].sub)
			add_plan_rule(&p, carve_cases[i].sub, carve_cases[i].sub_access,
			              carve_cases[i].sub_access, false);
		for (size_t h = 0; h < 3 && carve_cases[i].hidden[h]; h++) {
			add_plan_rule(&p, carve_cases[i].hidden[h], 0, 0, true);
			p.rules[0].access = 0;
		}
		if (sbx_ll_expand(&p, &fake, 100, &err) < 0)
			fail_msg("%s: %s", carve_cases[i].name, err.msg);
		for (size_t k = 0; k < p.n_rules; k++) {
			granting += p.rules[k].access != 0 && !p.rules[k].hidden;
			/* nothing carved ever reaches beneath a hidden path */
			for (size_t h = 0; h < 3 && carve_cases[i].hidden[h]; h++)
				if (!p.rules[k].hidden && p.rules[k].access &&
				    sbx_path_covers(carve_cases[i].hidden[h], p.rules[k].path))
					fail_msg("%s: %s granted beneath hidden %s",
					         carve_cases[i].name, p.rules[k].path,
					         carve_cases[i].hidden[h]);
		}
		for (size_t w = 0; w < 8 && carve_cases[i].want[w].path; w++) {
			const struct want_rule *wr = &carve_cases[i].want[w];
			uint64_t got = 0;

			for (size_t k = 0; k < p.n_rules; k++)
				if (strcmp(p.rules[k].path, wr->path) == 0 && !p.rules[k].hidden)
					got = p.rules[k].access;
			if (got != wr->access)
				fail_msg("%s: %s has %#llx, want %#llx", carve_cases[i].name,
				         wr->path, (unsigned long long)got,
				         (unsigned long long)wr->access);
		}
		if (granting != carve_cases[i].n_rules)
			fail_msg("%s: %zu rules grant something, want %zu", carve_cases[i].name,
			         granting, carve_cases[i].n_rules);
		/* carved rules are opened beneath the rule they come from */
		for (size_t k = 0; k < p.n_rules; k++)
			if (strncmp(p.rules[k].why, "carved", 6) == 0)
				assert_int_equal(p.rules[k].base_len, 2);
		if (p.rules[0].access != ALLR) {
			bool noted = false;

			for (size_t k = 0; k < p.n_inexact; k++)
				noted = noted || strstr(p.inexact[k], "/w: stricter: carved into");
			if (!noted)
				fail_msg("%s: no 'stricter' note", carve_cases[i].name);
		}
		sbx_ll_plan_clear(&p);
	}
}

/* Past the cap, the carving is refused, naming the count, the cap and what to do. */
static void test_carve_cap(void **state)
{
	const struct sbx_ll_host fake = {.list = fake_list, .kind = fake_kind};
	struct sbx_ll_plan p = {0};
	struct sbx_error err = {0};

	(void)state;
	add_plan_rule(&p, "/w", 0, ALLR, false);
	add_plan_rule(&p, "/w/.env", 0, 0, true);
	assert_int_equal(sbx_ll_expand(&p, &fake, 4, &err), -E2BIG);
	assert_int_equal(sbx_error_exit_code(&err), 125);
	assert_non_null(strstr(err.msg, "at least 6 Landlock rules"));
	assert_non_null(strstr(err.msg, "the cap is 4"));
	assert_non_null(strstr(err.hint, "namespaces backend"));
	sbx_ll_plan_clear(&p);
}

/* A hidden path through a symbolic link is refused (what a hidden link itself leads to is
 * hidden by sbx run before the plan: it_landlock test_hide_and_links). */
static void test_carve_links(void **state)
{
	const struct sbx_ll_host fake = {.list = fake_list, .kind = fake_kind};
	struct sbx_ll_plan p = {0};
	struct sbx_error err = {0};

	(void)state;
	add_plan_rule(&p, "/w", 0, ALLR, false);
	add_plan_rule(&p, "/w/ln/y", 0, 0, true);
	assert_int_equal(sbx_ll_expand(&p, &fake, 100, &err), -ELOOP);
	assert_int_equal(sbx_error_exit_code(&err), 125);
	assert_non_null(strstr(err.msg, "/w/ln/y passes through a symbolic link"));
	sbx_ll_plan_clear(&p);
	/* the link itself hidden: no rule for it, nothing refused */
	add_plan_rule(&p, "/w", 0, ALLR, false);
	add_plan_rule(&p, "/w/ln", 0, 0, true);
	assert_int_equal(sbx_ll_expand(&p, &fake, 100, &err), 0);
	for (size_t k = 0; k < p.n_rules; k++)
		assert_false(!p.rules[k].hidden && p.rules[k].access &&
		             strcmp(p.rules[k].path, "/w/ln") == 0);
	sbx_ll_plan_clear(&p);
}

/*
 * A directory sbx made and sealed takes the rights every entry in it has, and the entries'
 * rules that add nothing go (fold_sealed): never a right to make or remove, never over an
 * entry without a rule (a mask), never in a root that is not sealed, nor under the landlock
 * backend, where the directories are the host's.
 */
static const struct {
	const char *name;
	bool b_rw;           /* /s/b read-write (else read-only, as /s/a is) */
	bool b_denied;       /* /s/b's policy denies everything: no rule on it */
	bool unseal;         /* the plan's "seal /" taken out */
	bool same_ns;        /* the landlock backend */
	uint64_t s_want;     /* the rule on /s; 0: none */
	bool a_rule, b_rule; /* rules left on /s/a, /s/b */
} fold_cases[] = {
    {"same rights: one rule", false, false, false, false, R | L | X, false, false},
    {"more beneath: the common part", true, false, false, false, R | L | X, false, true},
    {"an entry without a rule: nothing folded", false, true, false, false, 0, true, false},
    {"root not sealed: nothing folded", false, false, true, false, L, true, true},
    {"landlock backend: nothing folded", false, false, false, true, 0, true, true},
};

static void test_fold_sealed(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(fold_cases) / sizeof(fold_cases[0]); c++) {
		struct sbx_spec *spec = sbx_spec_new();
		struct sbx_plan *plan = NULL;
		struct sbx_error err = {0};
		struct sbx_ll_plan ll;
		struct sbx_policy_set set = {0};
		struct sbx_mount a = {.kind = SBX_MOUNT_BIND,
		                      .source = "/h/a",
		                      .target = "/s/a",
		                      .readonly = true,
		                      .origin = SBX_ORIGIN_FLAG};
		struct sbx_mount b = {.kind = SBX_MOUNT_BIND,
		                      .source = "/h/b",
		                      .target = "/s/b",
		                      .readonly = !fold_cases[c].b_rw,
		                      .origin = SBX_ORIGIN_FLAG,
		                      .policy = fold_cases[c].b_denied ? "deny" : NULL};
		struct sbx_ll_opts opts = {.same_ns = fold_cases[c].same_ns};
		struct sbx_policy_view view;
		const struct sbx_ll_rule *rule;

		print_message("fold: %s\n", fold_cases[c].name);
		spec->explicit_mounts = true;
		assert_int_equal(sbx_spec_add_mount(spec, &a, false, &err), 0);
		assert_int_equal(sbx_spec_add_mount(spec, &b, false, &err), 0);
		if (fold_cases[c].b_denied) {
			static const char deny[] =
			    "version: 1\nrules:\n  - {name: d, paths: [\"**\"], "
			    "operations: [all], decision: deny}\n";
			struct sbx_policy *p = NULL;

			assert_int_equal(sbx_policy_load_buffer(deny, strlen(deny), "deny.yaml",
			                                        "deny", &p, &err),
			                 0);
			assert_int_equal(sbx_policy_set_add(&set, p, &err), 0);
			assert_int_equal(sbx_policy_compile(spec, &set, &err), 0);
		}
		assert_int_equal(sbx_spec_finish(spec, &err), 0);
		assert_int_equal(sbx_plan_build(spec, &host, &plan, &err), 0);
		if (fold_cases[c].unseal) {
			bool found = false;

			for (size_t i = 0; i < plan->n_ops; i++)
				if (plan->ops[i].kind == SBX_PLAN_SEAL &&
				    strcmp(plan->ops[i].target, "/") == 0) {
					/* another seal: the root's taken out */
					free(plan->ops[i].target);
					plan->ops[i].target = strdup("/s/a");
					assert_non_null(plan->ops[i].target);
					found = true;
				}
			assert_true(found);
		}
		view = (struct sbx_policy_view){.plan = plan, .spec = spec, .policies = &set};
		assert_int_equal(sbx_ll_compile(&view, &opts, &ll, &err), 0);
		rule = find_rule(&ll, "/s");
		if (!fold_cases[c].s_want) {
			/* the host's /s under the landlock backend; a directory above one that
			 * grants nothing grants nothing itself */
			assert_null(rule);
		} else {
			assert_non_null(rule);
			assert_int_equal(rule->access & (R | L | W | X | MK | RM),
			                 fold_cases[c].s_want);
		}
		assert_int_equal(find_rule(&ll, "/s/a") != NULL, fold_cases[c].a_rule);
		assert_int_equal(find_rule(&ll, "/s/b") != NULL, fold_cases[c].b_rule);
		/* never a right to make, remove or move on the directory sbx made */
		if (rule && !fold_cases[c].same_ns)
			assert_int_equal(rule->access & (MK | RM | SBX_LL_FS_REFER), 0);
		/* and nothing beneath /s lost a right it had */
		if (fold_cases[c].b_rw && !fold_cases[c].same_ns) {
			const struct sbx_ll_rule *rb = find_rule(&ll, "/s/b");

			assert_non_null(rb);
			assert_true((rb->access & (W | MK | RM)) == (W | MK | RM));
		}
		sbx_ll_plan_clear(&ll);
		sbx_plan_free(plan);
		sbx_spec_free(spec);
		sbx_policy_set_clear(&set);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mapping),       cmocka_unit_test(test_abi_table),
	    cmocka_unit_test(test_negotiate),     cmocka_unit_test(test_scopes_only),
	    cmocka_unit_test(test_compile_table), cmocka_unit_test(test_ancestor_never_widens),
	    cmocka_unit_test(test_needed),        cmocka_unit_test(test_compile_hidden),
	    cmocka_unit_test(test_carve_table),   cmocka_unit_test(test_carve_cap),
	    cmocka_unit_test(test_carve_links),   cmocka_unit_test(test_fold_sealed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
