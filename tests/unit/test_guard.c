/* SPDX-License-Identifier: MIT */
/*
 * Guards (spec.h): where the planner binds them, what decisions and Landlock make of them, the
 * noexec guards a policy compiles to, and what --dry-run and sbx check say a denied execute
 * holds (pure: no host).
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

#include "sbx/landlock.h"
#include "sbx/path.h"
#include "sbx/plan.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "sbx/spec.h"

static struct sbx_host_entry host_entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
};
static char *const fake_environ[] = {"PATH=/usr/bin", NULL};
static struct sbx_host host = {
    .uid = 1000,
    .gid = 1000,
    .euid = 1000,
    .entries = host_entries,
    .n_entries = 1,
    .environ = fake_environ,
    .cwd = "/w",
};

static void add_bind(struct sbx_spec *spec, const char *src, const char *dst, bool ro)
{
	char s[SBX_PATH_MAX], d[SBX_PATH_MAX];
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = s,
	                      .target = d,
	                      .readonly = ro,
	                      .origin = SBX_ORIGIN_FLAG};

	snprintf(s, sizeof(s), "%s", src);
	snprintf(d, sizeof(d), "%s", dst);
	assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
}

static const struct sbx_plan_op *op_at(const struct sbx_plan *p, const char *target)
{
	for (size_t i = 0; i < p->n_ops; i++)
		if (strcmp(p->ops[i].target, target) == 0)
			return &p->ops[i];
	return NULL;
}

/* /w <- /host/w read-write, /ro read-only, /t a tmpfs, /w/secret hidden, /w/mine a mount of
 * the spec; guards at and beneath each. */
static struct sbx_plan *guarded_plan(struct sbx_spec **out)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount t = {.kind = SBX_MOUNT_TMPFS, .target = "/t"};
	struct sbx_plan *plan = NULL;

	assert_non_null(spec);
	spec->explicit_mounts = true;
	add_bind(spec, "/host/w", "/w", false);
	add_bind(spec, "/ro", "/ro", true);
	add_bind(spec, "/host/mine", "/w/mine", false);
	assert_int_equal(sbx_spec_add_mount(spec, &t, false, NULL), 0);
	assert_int_equal(sbx_spec_add_hide(spec, "/w/secret", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/w/.git", false, false, "pin", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/w/.git/config", true, false, "ro", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/w/up", false, true, "nx", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/w/secret/x", true, false, "ro", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/w/mine", true, false, "ro", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/ro/.git", false, false, "pin", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/ro/up", false, true, "nx", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/t/x", true, false, "ro", NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/nowhere", true, false, "ro", NULL), 0);
	/* a repeat adds its flags to the first */
	assert_int_equal(sbx_spec_add_guard(spec, "/w/up", true, false, "ro+nx", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &host, &plan, NULL), 0);
	*out = spec;
	return plan;
}

static void test_plan_places_guards(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = NULL;
	_cleanup_plan_ struct sbx_plan *plan = guarded_plan(&spec);
	const struct sbx_plan_op *o;
	size_t git = SIZE_MAX, ws = SIZE_MAX;

	(void)state;
	o = op_at(plan, "/w/.git");
	assert_non_null(o);
	assert_int_equal(o->kind, SBX_PLAN_BIND);
	assert_string_equal(o->source, "/host/w/.git");
	assert_int_equal(o->flags & (SBX_PLAN_F_GUARD | SBX_PLAN_F_READONLY), SBX_PLAN_F_GUARD);
	o = op_at(plan, "/w/.git/config");
	assert_non_null(o);
	assert_true(o->flags & SBX_PLAN_F_READONLY);
	o = op_at(plan, "/w/up");
	assert_non_null(o);
	assert_int_equal(o->flags & (SBX_PLAN_F_NOEXEC | SBX_PLAN_F_READONLY),
	                 SBX_PLAN_F_NOEXEC | SBX_PLAN_F_READONLY);
	assert_string_equal(o->why, "ro+nx");
	/* a read-only mount: a pin adds nothing; noexec does */
	assert_null(op_at(plan, "/ro/.git"));
	o = op_at(plan, "/ro/up");
	assert_non_null(o);
	assert_true((o->flags & SBX_PLAN_F_NOEXEC) && (o->flags & SBX_PLAN_F_READONLY));
	/* hidden, in a tmpfs, unmounted, or a mount of the spec: no guard */
	assert_null(op_at(plan, "/w/secret/x"));
	assert_null(op_at(plan, "/t/x"));
	assert_null(op_at(plan, "/nowhere"));
	o = op_at(plan, "/w/mine");
	assert_non_null(o);
	assert_false(o->flags & SBX_PLAN_F_GUARD);
	/* after the mount it lies in */
	for (size_t i = 0; i < plan->n_ops; i++) {
		if (strcmp(plan->ops[i].target, "/w") == 0)
			ws = i;
		if (strcmp(plan->ops[i].target, "/w/.git") == 0)
			git = i;
	}
	assert_true(ws < git);
	/* resolution goes through the guard to the same host path */
	{
		char h[SBX_PATH_MAX];
		size_t at;

		assert_int_equal(sbx_plan_resolve(plan, "/w/.git/HEAD", &at, h, sizeof(h), NULL),
		                 0);
		assert_string_equal(h, "/host/w/.git/HEAD");
		assert_string_equal(sbx_plan_guarded_by(plan, "/w/.git/HEAD")->target, "/w");
	}
}

/* The host has /host/w/.git only: the other guards have nothing to bind and go, and nothing
 * else does (the host is asked through a callback; core decides what leaves the plan). */
static bool only_git(void *ctx, const char *source)
{
	(*(int *)ctx)++;
	return strcmp(source, "/host/w/.git") == 0;
}

static void test_prune_guards(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = NULL;
	_cleanup_plan_ struct sbx_plan *plan = guarded_plan(&spec);
	size_t guards = 0, before = plan->n_ops;
	int asked = 0;

	(void)state;
	for (size_t i = 0; i < plan->n_ops; i++)
		guards += (plan->ops[i].flags & SBX_PLAN_F_GUARD) != 0;
	assert_true(guards > 1);
	sbx_plan_prune_guards(plan, only_git, &asked);
	assert_int_equal(asked, guards);
	assert_int_equal(plan->n_ops, before - guards + 1);
	assert_non_null(op_at(plan, "/w/.git"));
	assert_null(op_at(plan, "/w/.git/config"));
	assert_null(op_at(plan, "/w/up"));
	assert_non_null(op_at(plan, "/w"));
	assert_non_null(op_at(plan, "/w/mine"));
}

static struct sbx_policy *policy(const char *yaml)
{
	struct sbx_policy *p = NULL;
	struct sbx_error err = {0};

	if (sbx_policy_load_buffer(yaml, strlen(yaml), "p.yaml", "p", &p, &err) < 0)
		fail_msg("%s", err.msg);
	return p;
}

static const char exec_policy[] = "version: 1\nname: p\nrules:\n"
                                  "  - {name: all, paths: [\"**\"], operations: [all], decision: "
                                  "allow}\n"
                                  "  - {name: nx, paths: [\"up/**\", \"bin/tool\", \"/abs/**\"], "
                                  "operations: [execute], decision: deny}\n"
                                  "  - {name: sh, paths: [\"**/*.sh\"], operations: [execute], "
                                  "decision: deny}\n";

/* A subtree or a literal path denied execute becomes a noexec guard; a glob does not. */
static void test_compile_noexec_guards(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_policy_set set = {0};
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = "/w",
	                      .target = "/w",
	                      .policy = "p",
	                      .origin = SBX_ORIGIN_PROFILE};
	char path[SBX_PATH_MAX];

	(void)state;
	assert_int_equal(sbx_policy_set_add(&set, policy(exec_policy), NULL), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
	assert_int_equal(sbx_policy_compile(spec, &set, NULL), 0);
	/* /abs lies outside the mount: the rule does not reach it from there */
	assert_int_equal(spec->n_guards, 2);
	assert_string_equal(spec->guards[0].path, "/w/up");
	assert_true(spec->guards[0].noexec && !spec->guards[0].readonly);
	assert_string_equal(spec->guards[1].path, "/w/bin/tool");
	assert_false(spec->mounts[0].noexec);    /* the rest of the mount runs programs */
	assert_int_equal(spec->n_hide_globs, 1); /* the glob is the walk's */

	assert_true(sbx_policy_exec_mountable("up/**", "/w", path, sizeof(path)));
	assert_string_equal(path, "/w/up");
	assert_true(sbx_policy_exec_mountable("**", "/w", path, sizeof(path)));
	assert_string_equal(path, "/w");
	assert_true(sbx_policy_exec_mountable("/a/b/**", "/w", path, sizeof(path)));
	assert_string_equal(path, "/a/b");
	assert_false(sbx_policy_exec_mountable("**/*.sh", "/w", path, sizeof(path)));
	assert_false(sbx_policy_exec_mountable("up/*", "/w", path, sizeof(path)));
	sbx_policy_set_clear(&set);
}

/* Decisions: a read-only guard says so; a noexec guard leaves the decision to the policy of
 * the mount it lies in; the note says what holds a denied execute. */
static void test_decide_and_notes(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	struct sbx_policy_set set = {0};
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = "/w",
	                      .target = "/w",
	                      .policy = "p",
	                      .origin = SBX_ORIGIN_PROFILE};
	struct sbx_decision d;
	char buf[2048];

	(void)state;
	assert_int_equal(sbx_policy_set_add(&set, policy(exec_policy), NULL), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
	assert_int_equal(sbx_policy_compile(spec, &set, NULL), 0);
	assert_int_equal(
	    sbx_spec_add_guard(spec, "/w/.git/config", true, false, "git control file", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &host, &plan, NULL), 0);
	{
		struct sbx_policy_view v = {plan, spec, &set, NULL};

		assert_int_equal(sbx_policy_decide(&v, SBX_OP_WRITE, "/w/.git/config", &d, NULL),
		                 0);
		assert_false(d.allow);
		assert_int_equal(d.by, SBX_BY_READONLY);
		assert_string_equal(sbx_decision_format(&d, buf, sizeof(buf)),
		                    "readonly: git control file /w/.git/config is read-only");
		assert_int_equal(sbx_policy_decide(&v, SBX_OP_READ, "/w/.git/config", &d, NULL), 0);
		assert_true(d.allow);
		assert_string_equal(d.policy, "p");

		assert_int_equal(sbx_policy_decide(&v, SBX_OP_EXECUTE, "/w/up/tool", &d, NULL), 0);
		assert_false(d.allow);
		assert_int_equal(d.by, SBX_BY_POLICY);
		assert_string_equal(d.rule, "nx");
		assert_string_equal(d.mount, "/w");
		assert_non_null(sbx_policy_exec_note(&v, &d, buf, sizeof(buf)));
		assert_non_null(
		    strstr(buf, "under the namespaces backend /w/up is a noexec mount"));
		assert_non_null(strstr(buf, "under the landlock backend Landlock refuses execve(2) "
		                            "only"));
		/* compiled, a glob's matches are the walk's: hidden whole */
		assert_int_equal(sbx_policy_decide(&v, SBX_OP_EXECUTE, "/w/a/x.sh", &d, NULL), 0);
		assert_false(d.allow);
		assert_int_equal(d.by, SBX_BY_HIDDEN);
		/* as sbx check asks (the policies uncompiled): the rule, and what holds it */
		d.by = SBX_BY_POLICY;
		snprintf(d.rule, sizeof(d.rule), "sh");
		d.policy = "p";
		assert_non_null(sbx_policy_exec_note(&v, &d, buf, sizeof(buf)));
		assert_non_null(strstr(buf, "'**/*.sh' is a glob over single files"));
		assert_int_equal(sbx_policy_decide(&v, SBX_OP_EXECUTE, "/w/other", &d, NULL), 0);
		assert_true(d.allow);
		assert_null(sbx_policy_exec_note(&v, &d, buf, sizeof(buf)));

		/* the dry-run's limits: the subtree is held by its noexec mount; /abs shows
		 * nowhere; the glob is the walk's */
		assert_int_equal(sbx_policy_exec_limits(&v, plan, NULL), 0);
		for (size_t i = 0; i < plan->n_limits; i++)
			assert_null(strstr(plan->limits[i], "'/w/up/**'"));
		assert_int_equal(plan->n_limits, 1);
		assert_non_null(strstr(plan->limits[0], "execute on '/w/**/*.sh'"));

		/* under the landlock backend every one of them is execve only */
		plan->backend_landlock = true;
		assert_int_equal(sbx_policy_exec_limits(&v, plan, NULL), 0);
		assert_int_equal(plan->n_limits, 3);
		assert_non_null(strstr(plan->limits[1],
		                       "execute on '/w/up/**' (policy p, rule nx): "
		                       "Landlock refuses execve(2) only, since the "
		                       "landlock backend mounts nothing"));
	}
	sbx_policy_set_clear(&set);
}

static const struct sbx_ll_rule *rule_at(const struct sbx_ll_plan *ll, const char *path)
{
	for (size_t i = 0; i < ll->n_rules; i++)
		if (strcmp(ll->rules[i].path, path) == 0)
			return &ll->rules[i];
	return NULL;
}

/* Landlock: a noexec guard holds the subtree's denial, so the mount keeps execute; a pin is
 * read-only under the landlock backend, which cannot mount it. */
static void test_landlock_guards(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	struct sbx_policy_set set = {0};
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = "/w",
	                      .target = "/w",
	                      .policy = "p",
	                      .origin = SBX_ORIGIN_PROFILE};
	static const char yaml[] = "version: 1\nname: p\nrules:\n"
	                           "  - {name: all, paths: [\"**\"], operations: [all], decision: "
	                           "allow}\n"
	                           "  - {name: nx, paths: [\"up/**\"], operations: [execute], "
	                           "decision: deny}\n";
	struct sbx_ll_plan ll;
	struct sbx_ll_opts same = {.same_ns = true};
	const struct sbx_ll_rule *w, *up, *git;

	(void)state;
	assert_int_equal(sbx_policy_set_add(&set, policy(yaml), NULL), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
	assert_int_equal(sbx_policy_compile(spec, &set, NULL), 0);
	assert_int_equal(sbx_spec_add_guard(spec, "/w/.git", false, false, "pin", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &host, &plan, NULL), 0);
	{
		struct sbx_policy_view v = {plan, spec, &set, NULL};

		assert_int_equal(sbx_ll_compile(&v, NULL, &ll, NULL), 0);
		w = rule_at(&ll, "/w");
		up = rule_at(&ll, "/w/up");
		git = rule_at(&ll, "/w/.git");
		assert_non_null(w);
		assert_non_null(up);
		assert_non_null(git);
		assert_true(w->access & SBX_LL_FS_EXECUTE);
		assert_false(up->access & SBX_LL_FS_EXECUTE);
		assert_true(git->access & SBX_LL_FS_WRITE_FILE);
		/* nothing but what the mounts hold: Landlock is not needed for execute */
		assert_false(ll.needed_fs & SBX_LL_FS_EXECUTE);
		sbx_ll_plan_clear(&ll);

		/* without the noexec mount (the folder was absent at launch), Landlock takes
		 * execute from the whole mount: stricter */
		for (size_t i = 0; i < plan->n_ops; i++)
			if (strcmp(plan->ops[i].target, "/w/up") == 0)
				plan->ops[i].flags &= ~SBX_PLAN_F_NOEXEC;
		assert_int_equal(sbx_ll_compile(&v, NULL, &ll, NULL), 0);
		assert_false(rule_at(&ll, "/w")->access & SBX_LL_FS_EXECUTE);
		sbx_ll_plan_clear(&ll);

		assert_int_equal(sbx_ll_compile(&v, &same, &ll, NULL), 0);
		git = rule_at(&ll, "/w/.git");
		assert_non_null(git);
		assert_false(git->access & (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_MAKE_REG |
		                            SBX_LL_FS_REMOVE_FILE | SBX_LL_FS_REMOVE_DIR));
		assert_true(git->access & SBX_LL_FS_READ_FILE);
		/* the folder above cannot remove or rename it */
		assert_false(rule_at(&ll, "/w")->access & SBX_LL_FS_REMOVE_DIR);
		sbx_ll_plan_clear(&ll);
	}
	sbx_policy_set_clear(&set);
}

/* protect_git: true by default; a profile may say false. */
static void test_protect_git_key(void **state)
{
	static const char yaml[] = "version: 1\nname: p\nprotect_git: false\n";
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	_cleanup_profile_ struct sbx_profile *p = NULL;
	struct sbx_profile_opts o = {.vars = {.home = "/h", .workspace = "/w", .user = "u"}};
	struct sbx_error err = {0};

	(void)state;
	assert_true(spec->protect_git);
	assert_int_equal(
	    sbx_profile_load_buffer(yaml, strlen(yaml), "/x/p.yaml", &o, spec, &p, &err), 0);
	assert_false(spec->protect_git);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_places_guards),    cmocka_unit_test(test_prune_guards),
	    cmocka_unit_test(test_compile_noexec_guards), cmocka_unit_test(test_decide_and_notes),
	    cmocka_unit_test(test_landlock_guards),       cmocka_unit_test(test_protect_git_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
