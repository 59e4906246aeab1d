/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/spec.h"

/* -v SRC[:DST][:ro|rw], relative to cwd /work/proj */
static const struct {
	const char *arg;
	int ret;
	const char *source, *target;
	bool readonly;
	const char *msg; /* part of the error message */
} volume_cases[] = {
    {"/data", 0, "/data", "/data", false, NULL},
    {"/data:ro", 0, "/data", "/data", true, NULL},
    {"/data:rw", 0, "/data", "/data", false, NULL},
    {"/data:/mnt", 0, "/data", "/mnt", false, NULL},
    {"/data:/mnt:ro", 0, "/data", "/mnt", true, NULL},
    {"~/.cache/pip:/cache:ro", 0, "/work/proj/~/.cache/pip", "/cache", true, NULL},
    {"sub/dir:/x", 0, "/work/proj/sub/dir", "/x", false, NULL},
    {".", 0, "/work/proj", "/work/proj", false, NULL},
    {"/a//b/../c/:/t/./u/", 0, "/a/c", "/t/u", false, NULL},
    {"/data:/mnt:rx", -EINVAL, NULL, NULL, false, "unknown option 'rx'"},
    {"/data:mnt", -EINVAL, NULL, NULL, false, "not an absolute path"},
    {"/a:/b:ro:x", -EINVAL, NULL, NULL, false, "more than three"},
    {"/a::ro", -EINVAL, NULL, NULL, false, "empty part"},
    {"", -EINVAL, NULL, NULL, false, "SRC[:DST]"},
};

static void test_volume_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(volume_cases) / sizeof(volume_cases[0]); i++) {
		struct sbx_mount m;
		struct sbx_error err = {0};
		int r = sbx_volume_parse(volume_cases[i].arg, "/work/proj", &m, &err);

		assert_int_equal(r, volume_cases[i].ret);
		if (r == 0) {
			assert_string_equal(m.source, volume_cases[i].source);
			assert_string_equal(m.target, volume_cases[i].target);
			assert_int_equal(m.readonly, volume_cases[i].readonly);
			assert_int_equal(m.kind, SBX_MOUNT_BIND);
			sbx_mount_clear(&m);
		} else {
			assert_non_null(strstr(err.msg, volume_cases[i].msg));
			assert_int_equal(err.kind, SBX_ERR_USAGE);
		}
	}
}

static const struct {
	const char *arg;
	int ret;
	enum sbx_mount_kind kind;
	const char *source, *target;
	bool readonly;
	const char *msg;
} mount_cases[] = {
    {"type=bind,source=/a,target=/b", 0, SBX_MOUNT_BIND, "/a", "/b", false, NULL},
    {"type=bind,src=/a,dst=/b,readonly", 0, SBX_MOUNT_BIND, "/a", "/b", true, NULL},
    {"source=/a,destination=/b,ro=true", 0, SBX_MOUNT_BIND, "/a", "/b", true, NULL},
    {"type=bind,source=/a,target=/b,readonly=false", 0, SBX_MOUNT_BIND, "/a", "/b", false, NULL},
    {"type=tmpfs,target=/scratch", 0, SBX_MOUNT_TMPFS, NULL, "/scratch", false, NULL},
    {"type=tmpfs,target=/t,readonly", 0, SBX_MOUNT_TMPFS, NULL, "/t", true, NULL},
    {"type=volume,source=x,target=/b", -EINVAL, 0, NULL, NULL, false, "unknown type"},
    {"type=bind,target=/b", -EINVAL, 0, NULL, NULL, false, "needs source="},
    {"type=bind,source=/a", -EINVAL, 0, NULL, NULL, false, "has no target"},
    {"type=tmpfs,source=/a,target=/b", -EINVAL, 0, NULL, NULL, false, "has no source"},
    {"type=bind,source=/a,target=b", -EINVAL, 0, NULL, NULL, false, "not an absolute"},
    {"type=bind,source=/a,target=/b,bind-propagation=shared", -EINVAL, 0, NULL, NULL, false,
     "unknown or incomplete key"},
    {"type=bind,source=/a,target=/b,readonly=maybe", -EINVAL, 0, NULL, NULL, false,
     "true or false"},
};

static void test_mount_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mount_cases) / sizeof(mount_cases[0]); i++) {
		struct sbx_mount m;
		struct sbx_error err = {0};
		int r = sbx_mount_parse(mount_cases[i].arg, "/cwd", &m, &err);

		assert_int_equal(r, mount_cases[i].ret);
		if (r == 0) {
			assert_int_equal(m.kind, mount_cases[i].kind);
			if (mount_cases[i].source)
				assert_string_equal(m.source, mount_cases[i].source);
			else
				assert_null(m.source);
			assert_string_equal(m.target, mount_cases[i].target);
			assert_int_equal(m.readonly, mount_cases[i].readonly);
			sbx_mount_clear(&m);
		} else {
			assert_non_null(strstr(err.msg, mount_cases[i].msg));
		}
	}
}

static void test_add_mount_replace_and_duplicates(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount a = {.kind = SBX_MOUNT_BIND, .source = "/a", .target = "/t"};
	struct sbx_mount b = {.kind = SBX_MOUNT_BIND, .source = "/b", .target = "/t/"};
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_spec_add_mount(spec, &a, false, NULL), 0);
	assert_int_equal(sbx_spec_add_mount(spec, &b, false, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "two mounts have the target '/t'"));
	assert_int_equal(sbx_spec_add_mount(spec, &b, true, NULL), 0);
	assert_int_equal(spec->n_mounts, 1);
	assert_string_equal(spec->mounts[0].source, "/b");
}

static void test_finish_default_workspace(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	_cleanup_spec_ struct sbx_spec *explicit = sbx_spec_new();
	struct sbx_mount v = {.kind = SBX_MOUNT_BIND, .source = "/data", .target = "/data"};

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/proj", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_string_equal(spec->profile, "default");
	assert_int_equal(spec->n_mounts, 1);
	assert_string_equal(spec->mounts[0].target, "/home/u/proj");
	assert_false(spec->mounts[0].readonly);
	assert_int_equal(spec->mounts[0].origin, SBX_ORIGIN_DEFAULT);

	/* -v replaces the default's workspace mount; --readonly reaches every mount */
	assert_int_equal(sbx_spec_set_str(&explicit->workspace, "/home/u/proj", NULL), 0);
	explicit->explicit_mounts = true;
	explicit->readonly = true;
	assert_int_equal(sbx_spec_add_mount(explicit, &v, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(explicit, NULL), 0);
	assert_int_equal(explicit->n_mounts, 1);
	assert_string_equal(explicit->mounts[0].target, "/data");
	assert_true(explicit->mounts[0].readonly);
}

static void test_finish_refusals(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_mount root = {.kind = SBX_MOUNT_BIND, .source = "/data", .target = "/"};
	struct sbx_mount tmpfs_root = {.kind = SBX_MOUNT_TMPFS, .target = "/"};
	struct sbx_error err;

	(void)state;
	spec->explicit_mounts = true;
	assert_int_equal(sbx_spec_add_mount(spec, &tmpfs_root, false, &err), -EINVAL);
	assert_int_equal(sbx_spec_add_mount(spec, &root, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "targets '/'"));
	assert_non_null(strstr(err.hint, "--root /data"));
}

static void test_workspace_root_refused(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "the workspace is '/'"));
	assert_non_null(strstr(err.hint, "--workspace DIR"));
}

static void test_env_entries(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_spec_add_env(spec, "FOO", "1", NULL), 0);
	assert_int_equal(sbx_spec_add_env(spec, "FOO", "2", NULL), 0);
	assert_int_equal(sbx_spec_add_env(spec, "PASS", NULL, NULL), 0);
	assert_int_equal(spec->n_env, 2);
	assert_string_equal(spec->env[0].value, "2");
	assert_null(spec->env[1].value);
	assert_int_equal(sbx_spec_add_env(spec, "1BAD", "x", &err), -EINVAL);
	assert_int_equal(sbx_spec_add_env(spec, "A-B", "x", &err), -EINVAL);
	assert_int_equal(sbx_spec_add_env(spec, "", "x", &err), -EINVAL);
}

static void test_mount_cap(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_error err;
	char target[64];

	(void)state;
	for (int i = 0; i < SBX_MAX_MOUNTS; i++) {
		struct sbx_mount m = {.kind = SBX_MOUNT_TMPFS, .target = target};

		snprintf(target, sizeof(target), "/m/%d", i);
		assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
	}
	{
		struct sbx_mount m = {.kind = SBX_MOUNT_TMPFS, .target = "/one-more"};

		assert_int_equal(sbx_spec_add_mount(spec, &m, false, &err), -E2BIG);
		assert_non_null(strstr(err.msg, "too many mounts"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_volume_table),
	    cmocka_unit_test(test_mount_table),
	    cmocka_unit_test(test_add_mount_replace_and_duplicates),
	    cmocka_unit_test(test_finish_default_workspace),
	    cmocka_unit_test(test_finish_refusals),
	    cmocka_unit_test(test_workspace_root_refused),
	    cmocka_unit_test(test_env_entries),
	    cmocka_unit_test(test_mount_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
