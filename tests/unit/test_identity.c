/* SPDX-License-Identifier: MIT */
/* The worker's name (src/core/identity.c) and its home (src/core/home.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/identity.h"
#include "sbx/spec.h"

static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n"
                             "# a comment:x:65533:\n"
                             "daemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"
                             "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"
                             "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin"; /* no \n */
static const char group[] = "root:x:0:\nalice:x:1000:\nnogroup:x:65534:\n";

static const struct {
	unsigned uid, gid;
	const char *hint, *home;
	const char *name;        /* expected */
	const char *passwd_line; /* expected added line, or NULL: nothing added */
	const char *group_line;
} cases[] = {
    /* the host names them: nothing added */
    {0, 0, NULL, "/root", "root", NULL, NULL},
    {1000, 1000, "bob", "/home/alice", "alice", NULL, NULL},
    /* root with nesting: SBX_ROOT_NEST_ID, no hint */
    {65533, 65533, NULL, "/root", "sbx", "sbx:x:65533:65533:sbx sandbox worker:/root:/bin/sh\n",
     "sbx:x:65533:\n"},
    /* a user the files do not list (a directory service): $USER's name */
    {2000, 2000, "carol", "/home/carol", "carol",
     "carol:x:2000:2000:sbx sandbox worker:/home/carol:/bin/sh\n", "carol:x:2000:\n"},
    /* a hint that is taken, or not a name, or a home that would break the line */
    {2001, 1000, "alice", "/h", "sbx", "sbx:x:2001:1000:sbx sandbox worker:/h:/bin/sh\n", NULL},
    {2002, 2002, "a:b", "/x:y", "sbx", "sbx:x:2002:2002:sbx sandbox worker:/:/bin/sh\n",
     "sbx:x:2002:\n"},
    {2003, 2003, "-rf", NULL, "sbx", "sbx:x:2003:2003:sbx sandbox worker:/:/bin/sh\n",
     "sbx:x:2003:\n"},
};

static void test_identity_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *name = NULL, *pw = NULL, *gr = NULL;

		assert_int_equal(sbx_identity_make(passwd, group, cases[i].uid, cases[i].gid,
		                                   cases[i].hint, cases[i].home, &name, &pw, &gr,
		                                   NULL),
		                 0);
		assert_string_equal(name, cases[i].name);
		if (!cases[i].passwd_line) {
			assert_null(pw);
		} else {
			/* the host's entries first, untouched, then the worker's */
			assert_non_null(pw);
			assert_memory_equal(pw, passwd, sizeof(passwd) - 1);
			assert_string_equal(pw + sizeof(passwd), cases[i].passwd_line);
			assert_int_equal(pw[sizeof(passwd) - 1], '\n');
		}
		if (!cases[i].group_line) {
			assert_null(gr);
		} else {
			assert_non_null(gr);
			assert_memory_equal(gr, group, sizeof(group) - 1);
			assert_string_equal(gr + sizeof(group) - 1, cases[i].group_line);
		}
		free(name);
		free(pw);
		free(gr);
	}
}

static void test_identity_edges(void **state)
{
	char *name = NULL, *pw = NULL, *gr = NULL;

	(void)state;
	/* unreadable files: a name still, nothing to show instead */
	assert_int_equal(
	    sbx_identity_make(NULL, NULL, 65533, 65533, NULL, "/root", &name, &pw, &gr, NULL), 0);
	assert_string_equal(name, "sbx");
	assert_null(pw);
	assert_null(gr);
	free(name);
	/* "sbx" taken: the next */
	assert_int_equal(sbx_identity_make("sbx:x:5:5::/:/bin/sh\n", "", 65533, 65533, NULL, "/",
	                                   &name, &pw, &gr, NULL),
	                 0);
	assert_string_equal(name, "sbx-worker");
	free(name);
	free(pw);
	free(gr);
	/* a uid is matched by its whole field: 100 is not 1000 */
	name = sbx_identity_lookup(passwd, 100);
	assert_null(name);
	name = sbx_identity_lookup(passwd, 65534);
	assert_string_equal(name, "nobody");
	free(name);
}

static struct sbx_spec *home_spec(enum sbx_home home, const char *gitconfig)
{
	struct sbx_spec *spec = sbx_spec_new();

	assert_non_null(spec);
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/home/u/proj", NULL), 0);
	assert_int_equal(sbx_spec_set_str(&spec->home_path, "/home/u", NULL), 0);
	assert_int_equal(sbx_spec_set_str(&spec->home_gitconfig, gitconfig, NULL), 0);
	spec->home = home;
	return spec;
}

static void test_home(void **state)
{
	static const struct {
		enum sbx_home home;
		const char *profile, *root, *gitconfig;
		size_t mounts; /* besides the workspace */
		bool tmpfs, git;
	} t[] = {
	    {SBX_HOME_UNSET, NULL, NULL, "/home/u/.gitconfig", 2, true, true}, /* the default */
	    {SBX_HOME_UNSET, NULL, NULL, NULL, 1, true, false},                /* no ~/.gitconfig */
	    {SBX_HOME_UNSET, "p", NULL, "/home/u/.gitconfig", 0, false, false},  /* a profile */
	    {SBX_HOME_UNSET, NULL, "/r", "/home/u/.gitconfig", 0, false, false}, /* --root */
	    {SBX_HOME_TMPFS, "p", NULL, "/home/u/.gitconfig", 2, true, true},
	    {SBX_HOME_EMPTY, NULL, NULL, "/home/u/.gitconfig", 1, true, false},
	    {SBX_HOME_NONE, NULL, NULL, "/home/u/.gitconfig", 0, false, false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		_cleanup_spec_ struct sbx_spec *spec = home_spec(t[i].home, t[i].gitconfig);
		const struct sbx_mount *m, *g;
		size_t ws = t[i].profile || t[i].root ? 0 : 1;

		assert_int_equal(sbx_spec_set_str(&spec->profile, t[i].profile, NULL), 0);
		assert_int_equal(sbx_spec_set_str(&spec->root, t[i].root, NULL), 0);
		spec->explicit_mounts = t[i].root != NULL;
		assert_int_equal(sbx_spec_finish(spec, NULL), 0);
		assert_int_equal(spec->n_mounts, ws + t[i].mounts);
		m = sbx_spec_find_target(spec, "/home/u");
		g = sbx_spec_find_target(spec, "/home/u/.gitconfig");
		assert_int_equal(m != NULL, t[i].tmpfs);
		assert_int_equal(g != NULL, t[i].git);
		if (m) {
			assert_int_equal(m->kind, SBX_MOUNT_TMPFS);
			assert_int_equal(m->size, SBX_HOME_SIZE_FALLBACK);
			assert_false(m->readonly);
		}
		if (g) {
			assert_int_equal(g->kind, SBX_MOUNT_BIND);
			assert_true(g->readonly);
			assert_string_equal(g->source, "/home/u/.gitconfig");
		}
	}
}

static void test_home_yields(void **state)
{
	struct sbx_mount ro = {
	    .kind = SBX_MOUNT_BIND, .source = "/home", .target = "/home", .readonly = true};
	struct sbx_mount git = {.kind = SBX_MOUNT_BIND,
	                        .source = "/etc/gitconfig",
	                        .target = "/home/u/.gitconfig",
	                        .readonly = true};
	_cleanup_spec_ struct sbx_spec *a = home_spec(SBX_HOME_UNSET, "/home/u/.gitconfig");
	_cleanup_spec_ struct sbx_spec *b = home_spec(SBX_HOME_UNSET, "/home/u/.gitconfig");
	_cleanup_spec_ struct sbx_spec *c = home_spec(SBX_HOME_UNSET, NULL);
	_cleanup_spec_ struct sbx_spec *d = home_spec(SBX_HOME_EMPTY, NULL);
	_cleanup_spec_ struct sbx_spec *e = home_spec(SBX_HOME_EMPTY, NULL);
	struct sbx_mount at = {.kind = SBX_MOUNT_BIND, .source = "/home/u", .target = "/home/u"};
	struct sbx_error err;

	(void)state;
	/* the home yields to a mount above it: it shows what was asked for */
	assert_int_equal(sbx_spec_add_mount(a, &ro, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(a, NULL), 0);
	assert_null(sbx_spec_find_target(a, "/home/u"));
	/* a mount of the profile's at ~/.gitconfig wins over the home's */
	assert_int_equal(sbx_spec_add_mount(b, &git, false, NULL), 0);
	assert_int_equal(sbx_spec_finish(b, NULL), 0);
	assert_string_equal(sbx_spec_find_target(b, "/home/u/.gitconfig")->source,
	                    "/etc/gitconfig");
	/* --readonly makes the home read-only too; --env HOME stays the caller's choice */
	c->readonly = true;
	assert_int_equal(sbx_spec_add_env(c, "HOME", "/elsewhere", NULL), 0);
	assert_int_equal(sbx_spec_finish(c, NULL), 0);
	assert_true(sbx_spec_find_target(c, "/home/u")->readonly);
	assert_int_equal(c->n_env, 1);
	assert_string_equal(c->env[0].value, "/elsewhere");
	/* the same for a home a profile asks for (ci-job's home: empty): a mount at $HOME
	 * itself (the workspace is the home) is what was asked for */
	assert_int_equal(sbx_spec_add_mount(d, &ro, false, NULL), 0);
	assert_int_equal(sbx_spec_set_str(&d->profile, "ci-job", NULL), 0);
	assert_int_equal(sbx_spec_finish(d, NULL), 0);
	assert_null(sbx_spec_find_target(d, "/home/u"));
	assert_int_equal(sbx_spec_add_mount(e, &at, false, NULL), 0);
	assert_int_equal(sbx_spec_set_str(&e->profile, "ci-job", NULL), 0);
	assert_int_equal(sbx_spec_finish(e, &err), 0);
	assert_int_equal(sbx_spec_find_target(e, "/home/u")->kind, SBX_MOUNT_BIND);
}

static void test_home_words(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_spec_set_home(spec, "empty", NULL, NULL), 0);
	assert_int_equal(spec->home, SBX_HOME_EMPTY);
	assert_int_equal(sbx_spec_set_home(spec, "/srv/h/../home", NULL, NULL), 0);
	assert_int_equal(spec->home, SBX_HOME_DIR);
	assert_string_equal(spec->home_dir, "/srv/home");
	assert_int_equal(sbx_spec_set_home(spec, "none", NULL, NULL), 0);
	assert_null(spec->home_dir);
	assert_int_equal(sbx_spec_set_home(spec, "rel", NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "is not tmpfs, empty, none or an absolute directory"));
	assert_int_equal(sbx_spec_set_home(spec, "/", NULL, &err), -EINVAL);
	/* the size: a quarter of the memory, within bounds */
	assert_int_equal(sbx_home_size_for(0), SBX_HOME_SIZE_FALLBACK);
	assert_int_equal(sbx_home_size_for(8ull << 30), 2ull << 30);
	assert_int_equal(sbx_home_size_for(64ull << 30), SBX_HOME_SIZE_CAP);
	assert_int_equal(sbx_home_size_for(16ull << 20), 64ull << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_identity_table), cmocka_unit_test(test_identity_edges),
	    cmocka_unit_test(test_home),           cmocka_unit_test(test_home_yields),
	    cmocka_unit_test(test_home_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
