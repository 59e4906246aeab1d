/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/path.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

/* A merged-/usr host, as Debian 12. */
static struct sbx_host_entry debian_entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
    {"/bin", SBX_HOST_SYMLINK, "usr/bin"},
    {"/lib", SBX_HOST_SYMLINK, "usr/lib"},
    {"/lib64", SBX_HOST_SYMLINK, "usr/lib64"},
    {"/etc/passwd", SBX_HOST_FILE, NULL},
    {"/etc/resolv.conf", SBX_HOST_SYMLINK, "/run/systemd/resolve/stub-resolv.conf"},
};

static char *host_env[] = {
    "PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "AWS_SECRET_ACCESS_KEY=x",
    "SSH_AUTH_SOCK=/s",   "TERM=xterm",   "USER=u",       NULL};

static struct sbx_host host(uid_t euid)
{
	return (struct sbx_host){
	    .uid = euid,
	    .gid = euid,
	    .euid = euid,
	    .entries = debian_entries,
	    .n_entries = sizeof(debian_entries) / sizeof(debian_entries[0]),
	    .environ = host_env,
	    .cwd = "/home/u/project",
	};
}

static struct sbx_spec *seed_spec(void)
{
	/* The mount-model seed: root /home/user/project, /cache read-only. */
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount cache = {.kind = SBX_MOUNT_BIND,
	                          .source = "/home/user/.cache",
	                          .target = "/cache",
	                          .readonly = true};

	assert_non_null(spec);
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/user/project", NULL), 0);
	assert_int_equal(sbx_spec_set_str(&spec->root, "/home/user/project", NULL), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &cache, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	return spec;
}

static const struct {
	const char *path;
	int ret;
	const char *host;
} seed_resolution[] = {
    {"/src/app.ts", 0, "/home/user/project/src/app.ts"},
    {"/README.md", 0, "/home/user/project/README.md"},
    {"/cache/npm/pkg", 0, "/home/user/.cache/npm/pkg"},
    {"/cache", 0, "/home/user/.cache"},
    {"/../etc/passwd", 0, "/etc/passwd"}, /* '..' never climbs above '/': a system mount */
    {"/src/../../../cache/x", 0, "/home/user/.cache/x"},
    {"/bin/ls", 0, "/usr/bin/ls"}, /* through the kept symlink */
    {"/tmp/x", -ENOENT, NULL},     /* sbx's private /tmp: no host path */
    {"/proc/self", -ENOENT, NULL},
};

static void test_seed_resolution(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = seed_spec();
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;

	(void)state;
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	for (size_t i = 0; i < sizeof(seed_resolution) / sizeof(seed_resolution[0]); i++) {
		char out[SBX_PATH_MAX];
		size_t op;
		int r =
		    sbx_plan_resolve(plan, seed_resolution[i].path, &op, out, sizeof(out), NULL);

		assert_int_equal(r, seed_resolution[i].ret);
		if (r == 0)
			assert_string_equal(out, seed_resolution[i].host);
	}
}

static void test_unmounted_path(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	struct sbx_error err;
	char out[SBX_PATH_MAX];
	size_t op;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/project", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	assert_int_equal(sbx_plan_resolve(plan, "/home/u/.ssh/id_rsa", &op, out, sizeof(out), &err),
	                 -ENOENT);
	assert_non_null(strstr(err.msg, "no mount covers it"));
	assert_int_equal(sbx_plan_resolve(plan, "/home/u/project/a", &op, out, sizeof(out), NULL),
	                 0);
	assert_string_equal(out, "/home/u/project/a");
	assert_string_equal(plan->cwd, "/home/u/project");
}

/* Every operation comes after the one its target lies in: parents first. */
static void test_order_parents_first_and_seals_last(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount inner = {.kind = SBX_MOUNT_BIND,
	                          .source = "/home/u/project/.git",
	                          .target = "/home/u/project/.git",
	                          .readonly = true};
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	bool seen_seal = false;
	size_t git = 0, ws = 0;

	(void)state;
	/* added before the workspace on purpose */
	assert_int_equal(sbx_spec_add_mount(spec, &inner, false, NULL), 0);
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/project", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if (o->kind == SBX_PLAN_SEAL)
			seen_seal = true;
		else
			assert_false(seen_seal);
		for (size_t j = i + 1; j < plan->n_ops; j++)
			if (plan->ops[j].kind != SBX_PLAN_SEAL &&
			    strcmp(plan->ops[j].target, o->target) != 0)
				assert_false(sbx_path_covers(plan->ops[j].target, o->target));
		if (strcmp(o->target, "/home/u/project/.git") == 0)
			git = i;
		if (strcmp(o->target, "/home/u/project") == 0)
			ws = i;
	}
	assert_true(ws < git);
	assert_true(plan->ops[git].flags & SBX_PLAN_F_READONLY);
	assert_false(plan->ops[ws].flags & SBX_PLAN_F_READONLY);
}

static const struct sbx_plan_op *find_op(const struct sbx_plan *p, const char *target)
{
	for (size_t i = 0; i < p->n_ops; i++)
		if (strcmp(p->ops[i].target, target) == 0 && p->ops[i].kind != SBX_PLAN_SEAL)
			return &p->ops[i];
	return NULL;
}

static void test_system_mounts_adapt(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	const struct sbx_plan_op *o;
	struct sbx_mount etc = {.kind = SBX_MOUNT_BIND, .source = "/srv/etc", .target = "/etc"};

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/project", NULL), 0);
	assert_int_equal(sbx_spec_add_mount(spec, &etc, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	o = find_op(plan, "/usr");
	assert_non_null(o);
	assert_int_equal(o->kind, SBX_PLAN_BIND);
	assert_true(o->flags & SBX_PLAN_F_READONLY);
	assert_false(o->flags & SBX_PLAN_F_IDMAP); /* unprivileged */
	o = find_op(plan, "/bin");
	assert_non_null(o);
	assert_int_equal(o->kind, SBX_PLAN_SYMLINK); /* merged /usr: kept as a symlink */
	assert_string_equal(o->source, "usr/bin");
	/* /etc named by the user: the system /etc entries stand aside */
	o = find_op(plan, "/etc");
	assert_non_null(o);
	assert_string_equal(o->source, "/srv/etc");
	assert_null(find_op(plan, "/etc/passwd"));
	assert_null(find_op(plan, "/nix/store")); /* absent on this host */
	/* always there */
	assert_non_null(find_op(plan, "/proc"));
	assert_non_null(find_op(plan, "/dev/pts"));
	assert_non_null(find_op(plan, "/tmp"));
	o = find_op(plan, "/proc/sys");
	assert_non_null(o);
	assert_int_equal(o->kind, SBX_PLAN_REBIND_RO);
	o = find_op(plan, "/proc/kcore");
	assert_non_null(o);
	assert_int_equal(o->kind, SBX_PLAN_MASK);
}

static void test_system_etc_symlink_followed(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	const struct sbx_plan_op *o;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	o = find_op(plan, "/etc/resolv.conf");
	assert_non_null(o);
	assert_int_equal(o->kind, SBX_PLAN_BIND);
	assert_true(o->flags & SBX_PLAN_F_FOLLOW);
	o = find_op(plan, "/w");
	assert_non_null(o);
	assert_false(o->flags & SBX_PLAN_F_FOLLOW); /* a user's source never follows */
}

static void test_identity(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host user = host(1000), root = host(0);
	_cleanup_plan_ struct sbx_plan *pu = NULL;
	_cleanup_plan_ struct sbx_plan *pr = NULL;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &user, &pu, NULL), 0);
	assert_int_equal(pu->inner_uid, 1000);
	assert_int_equal(pu->outer_uid, 1000);
	assert_int_equal(pu->map_count, 1);
	assert_false(pu->idmap_binds);
	assert_true(pu->new_net);
	assert_int_equal(sbx_plan_build(spec, &root, &pr, NULL), 0);
	assert_int_equal(pr->inner_uid, 0);
	assert_true(pr->outer_uid != 0); /* never kernel uid 0 */
	assert_int_equal(pr->outer_uid, SBX_ROOT_MAP_BASE);
	assert_true(pr->idmap_binds);
	assert_false(pr->root_swap); /* without nesting, root's sandbox is as it was */
	assert_true(find_op(pr, "/w")->flags & SBX_PLAN_F_IDMAP);
}

/* The landlock backend: no user namespace, so the worker is the caller (root: kernel uid 0,
 * with nesting too), nothing is mapped, no bind is id-mapped. */
static void test_identity_no_userns(void **state)
{
	static const struct {
		uid_t caller;
		bool nesting;
	} t[] = {{0, false}, {0, true}, {1000, false}, {1000, true}};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
		_cleanup_plan_ struct sbx_plan *p = NULL;
		struct sbx_host h = host(t[i].caller);

		spec->nesting = t[i].nesting;
		assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
		assert_int_equal(sbx_spec_finish(spec, NULL), 0);
		assert_int_equal(sbx_plan_build(spec, &h, &p, NULL), 0);
		sbx_plan_no_userns(p);
		assert_int_equal(p->inner_uid, t[i].caller);
		assert_int_equal(p->inner_gid, t[i].caller);
		assert_int_equal(p->outer_uid, t[i].caller);
		assert_int_equal(p->outer_gid, t[i].caller);
		assert_int_equal(p->map_count, 0);
		assert_false(p->idmap_binds);
		assert_false(p->root_swap);
		for (size_t k = 0; k < p->n_ops; k++)
			assert_false(p->ops[k].flags & SBX_PLAN_F_IDMAP);
	}
}

/* Two extents overlap if their inner or their outer ranges meet (the kernel refuses it). */
static bool extents_overlap(const struct sbx_id_extent *a, const struct sbx_id_extent *b)
{
	return (a->inner < b->inner + b->count && b->inner < a->inner + a->count) ||
	       (a->outer < b->outer + b->count && b->outer < a->outer + a->count);
}

/* Root with nesting: the worker is SBX_ROOT_NEST_ID, 0 and it swapped, a bijection of the
 * range that never reaches kernel uid 0; the binds keep the plain range. */
static void test_identity_root_nesting(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host root = host(0), user = host(1000);
	_cleanup_plan_ struct sbx_plan *pr = NULL;
	_cleanup_plan_ struct sbx_plan *pu = NULL;
	struct sbx_id_extent ext[SBX_ID_EXTENTS_MAX];
	size_t n, total = 0;

	(void)state;
	spec->nesting = true;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &root, &pr, NULL), 0);
	assert_true(pr->root_swap);
	assert_int_equal(pr->inner_uid, SBX_ROOT_NEST_ID);
	assert_int_equal(pr->inner_gid, SBX_ROOT_NEST_ID);
	assert_true(pr->idmap_binds);
	for (int gid = 0; gid < 2; gid++) {
		n = sbx_plan_id_extents(pr, gid, false, ext);
		assert_true(n >= 2 && n <= SBX_ID_EXTENTS_MAX);
		total = 0;
		for (size_t i = 0; i < n; i++) {
			assert_true(ext[i].count > 0);
			assert_true(ext[i].outer >= SBX_ROOT_MAP_BASE); /* never kernel id 0 */
			assert_true(ext[i].outer + ext[i].count <=
			            SBX_ROOT_MAP_BASE + SBX_ROOT_MAP_COUNT);
			for (size_t j = 0; j < i; j++)
				assert_false(extents_overlap(&ext[i], &ext[j]));
			/* the worker is the kernel id host root's files have through the binds */
			if (ext[i].inner == SBX_ROOT_NEST_ID)
				assert_int_equal(ext[i].outer, SBX_ROOT_MAP_BASE);
			if (ext[i].inner == 0)
				assert_int_equal(ext[i].outer,
				                 SBX_ROOT_MAP_BASE + SBX_ROOT_NEST_ID);
			total += ext[i].count;
		}
		assert_int_equal(total, SBX_ROOT_MAP_COUNT); /* a bijection of the range */
		n = sbx_plan_id_extents(pr, gid, true, ext);
		assert_int_equal(n, 1);
		assert_int_equal(ext[0].inner, 0);
		assert_int_equal(ext[0].outer, SBX_ROOT_MAP_BASE);
		assert_int_equal(ext[0].count, SBX_ROOT_MAP_COUNT);
	}
	/* an ordinary user maps itself, nesting or not */
	assert_int_equal(sbx_plan_build(spec, &user, &pu, NULL), 0);
	assert_false(pu->root_swap);
	n = sbx_plan_id_extents(pu, false, false, ext);
	assert_int_equal(n, 1);
	assert_int_equal(ext[0].inner, 1000);
	assert_int_equal(ext[0].outer, 1000);
	assert_int_equal(ext[0].count, 1);
}

static bool env_has(const struct sbx_plan *p, const char *entry)
{
	for (size_t i = 0; i < p->n_env; i++)
		if (strcmp(p->envp[i], entry) == 0)
			return true;
	return false;
}

static bool env_has_name(const struct sbx_plan *p, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < p->n_env; i++)
		if (strncmp(p->envp[i], name, n) == 0 && p->envp[i][n] == '=')
			return true;
	return false;
}

static void test_environment_allowlist(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_add_env(spec, "SSH_AUTH_SOCK", NULL, NULL), 0);
	assert_int_equal(sbx_spec_add_env(spec, "MODE", "ci", NULL), 0);
	assert_int_equal(sbx_spec_add_env(spec, "NOT_IN_CALLER", NULL, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	assert_true(env_has(plan, "PATH=/usr/bin:/bin"));
	assert_true(env_has(plan, "HOME=/home/u"));
	assert_true(env_has(plan, "LC_ALL=C"));
	assert_true(env_has(plan, "SSH_AUTH_SOCK=/s")); /* passed by name */
	assert_true(env_has(plan, "MODE=ci"));
	assert_true(env_has(plan, "SBX=1"));
	assert_true(env_has(plan, "SBX_PROFILE=default"));
	assert_false(env_has_name(plan, "AWS_SECRET_ACCESS_KEY"));
	assert_false(env_has_name(plan, "NOT_IN_CALLER"));
	assert_null(plan->envp[plan->n_env]);
}

static void test_cwd_rule(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount other = {.kind = SBX_MOUNT_BIND, .source = "/data", .target = "/data"};
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	_cleanup_plan_ struct sbx_plan *plan2 = NULL;

	(void)state;
	/* explicit mounts that do not show the workspace: cwd is / */
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/project", NULL), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &other, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	assert_string_equal(plan->cwd, "/");
	/* --chdir wins */
	assert_int_equal(sbx_spec_set_str(&spec->chdir, "/data/sub", NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan2, NULL), 0);
	assert_string_equal(plan2->cwd, "/data/sub");
}

/* The worker's name: USER and LOGNAME, and the host's passwd with the worker's entry added
 * (as root with nesting) in a file of sbx's own bound over it; the landlock backend's
 * worker is the caller. */
static void test_worker_name(void **state)
{
	static char pw[] = "root:x:0:0:root:/root:/bin/bash\nu:x:1000:1000::/home/u:/bin/sh\n";
	static char gr[] = "root:x:0:\nu:x:1000:\n";
	static const struct {
		uid_t euid;
		bool nesting;
		const char *user;
		bool data;
	} t[] = {
	    {1000, false, "USER=u", false},
	    {0, false, "USER=root", false},
	    {0, true, "USER=sbx", true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
		struct sbx_host h = host(t[i].euid);
		_cleanup_plan_ struct sbx_plan *plan = NULL;
		const struct sbx_plan_op *op = NULL;

		h.passwd = pw;
		h.group = gr;
		spec->nesting = t[i].nesting;
		assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
		assert_int_equal(sbx_spec_finish(spec, NULL), 0);
		assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
		assert_true(env_has(plan, t[i].user));
		for (size_t k = 0; k < plan->n_ops; k++)
			if (strcmp(plan->ops[k].target, "/etc/passwd") == 0)
				op = &plan->ops[k];
		assert_non_null(op);
		assert_int_equal((op->flags & SBX_PLAN_F_DATA) != 0, t[i].data);
		assert_true(op->flags & SBX_PLAN_F_READONLY);
		assert_int_equal(plan->etc_passwd != NULL, t[i].data);
		if (t[i].data) {
			assert_non_null(
			    strstr(plan->etc_passwd, "root:x:0:0:root:/root:/bin/bash\n"));
			assert_non_null(strstr(plan->etc_passwd, "\nsbx:x:65533:65533:"));
			assert_non_null(strstr(plan->etc_group, "\nsbx:x:65533:\n"));
			/* the landlock backend: the caller's own name */
			sbx_plan_no_userns(plan);
			assert_true(env_has(plan, "USER=root"));
			assert_true(env_has(plan, "LOGNAME=root"));
		}
	}
}

/* -w names a directory no mount shows: refused, naming it; a fallback to / is marked for
 * the command line's one line. */
static void test_workdir_checked(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount app = {.kind = SBX_MOUNT_BIND, .source = "/home/u/p", .target = "/app"};
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL, *plan2 = NULL, *plan3 = NULL;
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/project", NULL), 0);
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &app, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	assert_string_equal(plan->cwd, "/");
	assert_true(plan->cwd_fallback);
	/* a workspace of which only a part is shown is still the working directory */
	{
		_cleanup_spec_ struct sbx_spec *part = sbx_spec_new();
		struct sbx_mount src = {.kind = SBX_MOUNT_BIND,
		                        .source = "/home/u/project/src",
		                        .target = "/home/u/project/src"};
		_cleanup_plan_ struct sbx_plan *pp = NULL;

		assert_int_equal(sbx_spec_set_str(&part->workspace, "/home/u/project", NULL), 0);
		part->explicit_mounts = true;
		assert_int_equal(sbx_spec_add_mount(part, &src, false, NULL), 0);
		assert_int_equal(sbx_spec_finish(part, NULL), 0);
		assert_int_equal(sbx_plan_build(part, &h, &pp, NULL), 0);
		assert_string_equal(pp->cwd, "/home/u/project");
		assert_false(pp->cwd_fallback);
	}
	assert_int_equal(sbx_spec_set_str(&spec->chdir, "/nowhere/sub", NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan2, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "the working directory /nowhere/sub does not exist"));
	/* what a mount, a tmpfs or sbx's scaffolding shows is there */
	static const char *const ok[] = {"/app", "/app/src", "/tmp", "/", "/usr/bin"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(sbx_spec_set_str(&spec->chdir, ok[i], NULL), 0);
		assert_int_equal(sbx_plan_build(spec, &h, &plan3, NULL), 0);
		assert_false(plan3->cwd_fallback);
		sbx_plan_free(plan3);
		plan3 = NULL;
	}
}

static void test_reserved_targets(void **state)
{
	static char *const reserved[] = {"/proc", "/proc/sys", "/dev"};

	(void)state;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
		struct sbx_mount m = {
		    .kind = SBX_MOUNT_BIND, .source = "/x", .target = reserved[i]};
		struct sbx_host h = host(1000);
		_cleanup_plan_ struct sbx_plan *plan = NULL;
		struct sbx_error err;

		assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
		assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
		assert_int_equal(sbx_spec_finish(spec, NULL), 0);
		assert_int_equal(sbx_plan_build(spec, &h, &plan, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "is reserved"));
	}
}

static void test_private_tmp_replaced_by_user_mount(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount tmp = {.kind = SBX_MOUNT_BIND, .source = "/var/tmp", .target = "/tmp"};
	struct sbx_host h = host(1000);
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	int tmps = 0;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_add_mount(spec, &tmp, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	for (size_t i = 0; i < plan->n_ops; i++)
		tmps += strcmp(plan->ops[i].target, "/tmp") == 0;
	assert_int_equal(tmps, 1);
	assert_int_equal(find_op(plan, "/tmp")->kind, SBX_PLAN_BIND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seed_resolution),
	    cmocka_unit_test(test_unmounted_path),
	    cmocka_unit_test(test_order_parents_first_and_seals_last),
	    cmocka_unit_test(test_system_mounts_adapt),
	    cmocka_unit_test(test_system_etc_symlink_followed),
	    cmocka_unit_test(test_identity),
	    cmocka_unit_test(test_identity_root_nesting),
	    cmocka_unit_test(test_identity_no_userns),
	    cmocka_unit_test(test_environment_allowlist),
	    cmocka_unit_test(test_cwd_rule),
	    cmocka_unit_test(test_worker_name),
	    cmocka_unit_test(test_workdir_checked),
	    cmocka_unit_test(test_reserved_targets),
	    cmocka_unit_test(test_private_tmp_replaced_by_user_mount),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
