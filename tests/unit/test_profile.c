/* SPDX-License-Identifier: MIT */
/* The profile loader: every kind of bad profile with its exact position and message, and
 * what good profiles, extends and variables fill in. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_files.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "sbx/spec.h"

#define FIX SBX_SOURCE_DIR "/tests/fixtures/profiles"

static char *const fake_environ[] = {"HOME=/home/u", "XDG_CACHE_HOME=/var/cache/u",
                                     "XDG_CONFIG_HOME=relative/ignored", NULL};

/* The fixtures as they are on disk; any other source exists but /opt/missing. */
static bool fake_exists(const char *path, void *ctx)
{
	return strcmp(path, "/opt/missing") != 0 && test_source_exists(path, ctx);
}

static const struct sbx_profile_opts opts = {
    .vars = {.home = "/home/u",
             .workspace = "/work/ws",
             .user = "u",
             .uid = 1000,
             .environ = fake_environ},
    .search = NULL,
    .n_search = 0,
    .exists = fake_exists,
    .is_file = test_is_file,
    .resolve = test_resolve,
    .read = test_read_file,
};

/* Load and, as `sbx run` and `validate` do, compile. */
static int load(const char *file, struct sbx_error *err)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	int r;

	memset(err, 0, sizeof(*err));
	r = sbx_profile_load(file, &opts, spec, &p, err);
	if (r >= 0)
		r = sbx_policy_compile(spec, &p->policies, err);
	sbx_profile_free(p);
	sbx_spec_free(spec);
	return r;
}

static const struct bad_case {
	const char *fixture; /* in bad/; the error may point into another file */
	const char *at;      /* file the error names, relative to bad/ */
	int line, column;
	const char *msg;
} bad_cases[] = {
    {"unknown-key", "unknown-key", 4, 5, "unknown key 'redonly' in a mount"},
    {"wrong-type", "wrong-type", 2, 9, "'mounts' takes a list, not a single value"},
    {"wrong-bool", "wrong-bool", 2, 11, "'readonly' takes true or false, not 'yes'"},
    {"relative-path", "relative-path", 3, 13, "'source' must be an absolute path, not 'src/app'"},
    {"duplicate-target", "duplicate-target", 5, 13,
     "two mounts have the target '/srv/a' (the first at line 3)"},
    {"missing-policy", "missing-policy", 4, 13,
     "policy 'no-such-policy' not found (looked for no-such-policy.yaml in: " FIX "/bad/policies)"},
    {"missing-base-policy", "missing-base-policy", 2, 14,
     "policy 'nowhere' not found (looked for nowhere.yaml in: " FIX "/bad/policies)"},
    {"cycle-a", "cycle-b", 2, 10,
     "'extends' makes a cycle: " FIX "/bad/cycle-a.yaml -> " FIX "/bad/cycle-b.yaml -> " FIX
     "/bad/cycle-a.yaml"},
    {"unknown-operation", "policies/bad-operation", 5, 24, "unknown operation 'open'"},
    {"unknown-decision", "policies/bad-decision", 6, 15, "unknown decision 'maybe'"},
    {"unsupported-version", "unsupported-version", 1, 10,
     "unsupported version '2'; this sbx reads version 1"},
    {"missing-version", "missing-version", 1, 1, "the profile has no 'version'"},
    {"tab", "tab", 4, 1, "a tab character; profiles are indented with spaces"},
    {"invalid-utf8", "invalid-utf8", 2, 17, "invalid UTF-8; profiles are UTF-8 text"},
    {"empty", "empty", 1, 1, "the file is empty"},
    {"comments-only", "comments-only", 1, 1, "the file is empty"},
    {"alias", "alias", 3, 5, "YAML anchors ('&') and aliases ('*') are not allowed in profiles"},
    {"alias-bomb", "alias-bomb", 2, 4,
     "YAML anchors ('&') and aliases ('*') are not allowed in profiles"},
    {"too-deep", "too-deep", 2, 19, "YAML nested too deeply (at most 16 levels)"},
    {"unknown-variable", "unknown-variable", 3, 11, "'path': unknown variable ${PROJECT}"},
    {"dollar", "dollar", 3, 11, "'path': '$HOME/src': a '$' must start ${NAME}"},
    {"limit-value", "limit-value", 3, 11,
     "limit memory: 'lots' is not a size from 4M to 64T, with K, M, G or T (powers of 1024), "
     "e.g. 512M"},
    {"limit-key", "limit-key", 4, 3, "unknown key 'disk' in 'limits'"},
    {"approval-value", "approval-value", 4, 37, "'delete' is allow, ask or deny, not 'maybe'"},
    {"approval-key", "approval-key", 5, 7, "unknown key 'create' in 'approvals'"},
    {"approvals-readonly", "approvals-readonly", 5, 16,
     "approvals on a read-only mount: nothing there can be written, deleted or renamed"},
    {"approvals-top", "approvals-top", 2, 1, "'approvals' is set on a mount, not on the profile"},
    {"suffixes-slash", "suffixes-slash", 4, 21,
     "'src/.md' is not a file name ending (1 to 64 bytes, no '/' or control character)"},
    {"suffixes-empty", "suffixes-empty", 4, 15,
     "'suffixes' is empty: nothing could be read there; drop the key, or name the endings "
     "that may be read"},
    {"max-file-bytes", "max-file-bytes", 4, 21, "'max_file_bytes': '10X' is not a size"},
    {"max-file-bytes-range", "max-file-bytes-range", 4, 21,
     "'max_file_bytes': the size '2048G' is not between 1 byte and 1T"},
    {"approve-unknown", "approve-unknown", 2, 10, "unknown approval broker 'email'"},
    {"audit-relative", "audit-relative", 2, 8,
     "'audit' must be an absolute path, not 'logs/sbx.jsonl'"},
    {"seccomp-unknown", "seccomp-unknown", 3, 19,
     "cannot allow 'nosuchcall': it is not a system call sbx knows"},
    {"duplicate-key", "duplicate-key", 3, 1,
     "duplicate key 'network' in a profile (first at line 2)"},
    {"name-mismatch", "name-mismatch", 2, 7,
     "name 'other-name' does not match the file's name 'name-mismatch'"},
    {"path-and-source", "path-and-source", 4, 13,
     "'path' is a mount at the same path inside and out; use 'source' and 'target' instead "
     "to mount elsewhere"},
    {"yaml-syntax", "yaml-syntax", 4, 4,
     "YAML syntax error: did not find expected '-' indicator while parsing a block "
     "collection"},
    {"two-documents", "two-documents", 2, 1,
     "more than one YAML document; a profile is one document"},
    {"bad-network", "bad-network", 2, 10,
     "'network' is none, host, learn or {allow: [...], deny: [...]}, not 'internet'"},
    {"stat-alone", "policies/no-stat", 3, 5,
     "policy 'no-stat' on /srv cannot be enforced by the kernel: rule 'no-stat' allows "
     "read,list,write,create,delete,execute but not stat"},
};

static void test_bad_profiles(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char file[4096], at[4096];
		struct sbx_error err;
		int r;

		snprintf(file, sizeof(file), FIX "/bad/%s.yaml", c->fixture);
		snprintf(at, sizeof(at), "%s/bad/%s.yaml", FIX, c->at);
		r = load(file, &err);
		if (r >= 0)
			fail_msg("%s loaded, but must not", c->fixture);
		if (strcmp(err.msg, c->msg) != 0 || err.line != c->line || err.column != c->column)
			fail_msg("%s: got %s:%d:%d: %s\n  expected %d:%d: %s", c->fixture, err.file,
			         err.line, err.column, err.msg, c->line, c->column, c->msg);
		/* the error names the file it is in, by the path sbx found it at */
		if (!strstr(err.file, c->at) || strlen(err.file) < strlen(c->at))
			fail_msg("%s: error names %s, not %s", c->fixture, err.file, at);
		assert_int_equal(sbx_error_exit_code(&err), 125);
	}
}

/* Every fixture in bad/ has a case above (a fixture without an expectation tests nothing). */
static void test_every_fixture_has_a_case(void **state)
{
	FILE *ls = popen("ls " FIX "/bad/*.yaml", "r");
	char line[4096];
	size_t n = 0;

	(void)state;
	assert_non_null(ls);
	while (fgets(line, sizeof(line), ls)) {
		char *base = strrchr(line, '/') + 1;
		bool found = false;

		base[strcspn(base, ".")] = '\0';
		for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
			found |= strcmp(bad_cases[i].fixture, base) == 0 ||
			         (strcmp(base, "cycle-b") == 0);
		if (!found)
			fail_msg("fixture %s has no expected error", base);
		n++;
	}
	pclose(ls);
	assert_true(n >= 30);
}

/* Caps: the loader asks its reader for at most 1 MiB (src/os/trust.c refuses more). */
static void test_too_large(void **state)
{
	char path[] = "/tmp/sbx-test-large-XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	char chunk[4096];
	struct sbx_error err;

	(void)state;
	assert_true(fd >= 0);
	memset(chunk, '#', sizeof(chunk));
	chunk[sizeof(chunk) - 1] = '\n';
	for (int i = 0; i < 257; i++)
		assert_int_equal(write(fd, chunk, sizeof(chunk)), (ssize_t)sizeof(chunk));
	close(fd);
	assert_int_equal(load(path, &err), -EFBIG);
	assert_non_null(strstr(err.msg, "is larger than 1024 KiB"));
	unlink(path);
}

/* An alias bomb is refused at its first anchor, at once: not expanded, not slow. */
static void test_alias_bomb_is_not_expanded(void **state)
{
	struct sbx_error err;
	struct timespec a, b;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(load(FIX "/bad/alias-bomb.yaml", &err), -EINVAL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 100000000L);
}

static void test_good_seccomp(void **state)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	struct sbx_error err;

	(void)state;
	sbx_spec_set_str(&spec->workspace, "/work/ws", NULL);
	if (sbx_profile_load(FIX "/good/seccomp.yaml", &opts, spec, &p, &err) < 0)
		fail_msg("%s:%d:%d: %s", err.file, err.line, err.column, err.msg);
	assert_int_equal(spec->seccomp.n_allow, 1);
	assert_string_equal(spec->seccomp.allow[0], "@debug");
	assert_int_equal(spec->seccomp.n_deny, 1);
	assert_string_equal(spec->seccomp.deny[0], "getppid");
	assert_int_equal(spec->seccomp.deny_errno, EACCES);
	assert_false(spec->seccomp.log);
	sbx_profile_free(p);
	sbx_spec_free(spec);
}

static void test_good_extends(void **state)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	struct sbx_error err;
	const struct sbx_mount *m;

	(void)state;
	sbx_spec_set_str(&spec->workspace, "/work/ws", NULL);
	if (sbx_profile_load(FIX "/good/child.yaml", &opts, spec, &p, &err) < 0)
		fail_msg("%s:%d:%d: %s", err.file, err.line, err.column, err.msg);
	assert_string_equal(spec->profile, "child");
	assert_string_equal(p->name, "child");
	assert_string_equal(p->description, "the base"); /* inherited */
	assert_int_equal(p->n_chain, 2);
	assert_non_null(strstr(p->chain[0], "good/base.yaml"));
	assert_non_null(strstr(p->chain[1], "good/child.yaml"));
	assert_int_equal(spec->net, SBX_NET_HOST); /* the child overrides */
	assert_true(spec->nesting);
	/* inherited, with variables: ${WORKSPACE} and ~ */
	m = sbx_spec_find_target(spec, "/work/ws");
	assert_non_null(m);
	assert_string_equal(m->policy, "all");
	m = sbx_spec_find_target(spec, "/home/u/.config/tool");
	assert_non_null(m);
	assert_string_equal(m->policy, "ro");
	/* the child replaces the base's mount at /srv/cache */
	m = sbx_spec_find_target(spec, "/srv/cache");
	assert_non_null(m);
	assert_string_equal(m->source, "/srv/other");
	assert_false(m->readonly);
	/* an optional mount whose source is missing is dropped, with a note */
	assert_null(sbx_spec_find_target(spec, "/opt/missing"));
	assert_int_equal(p->n_skipped, 1);
	assert_string_equal(p->skipped[0], "/opt/missing");
	/* ${XDG_CACHE_HOME} from the environment */
	m = sbx_spec_find_target(spec, "/var/cache/u/x");
	assert_non_null(m);
	assert_true(m->readonly);
	m = sbx_spec_find_target(spec, "/scratch");
	assert_non_null(m);
	assert_int_equal(m->kind, SBX_MOUNT_TMPFS);
	assert_int_equal(spec->n_hide, 1);
	assert_string_equal(spec->hide[0], "/work/ws/.env");
	/* env: pass and set, with ${USER}, ${UID} and $$ */
	assert_int_equal(spec->n_env, 3);
	assert_string_equal(spec->env[0].name, "TERM_PROGRAM");
	assert_null(spec->env[0].value);
	assert_string_equal(spec->env[1].value, "hi u $5");
	assert_string_equal(spec->env[2].value, "1000");
	/* policies from the base's folder, the base policy kept */
	assert_non_null(sbx_policy_set_find(&p->policies, "all"));
	assert_non_null(p->policies.base);
	assert_string_equal(p->policies.base->name, "all");
	/* the policy 'ro' hides secret.txt: compiled into a mask */
	assert_int_equal(sbx_policy_compile(spec, &p->policies, &err), 0);
	assert_true(sbx_spec_find_target(spec, "/home/u/.config/tool")->readonly);
	assert_int_equal(spec->n_hide, 2);
	assert_string_equal(spec->hide[1], "/home/u/.config/tool/secret.txt");
	sbx_profile_free(p);
	sbx_spec_free(spec);
}

/* The supervisor's keys: approvals and read caps on mounts, the broker and the audit log; a
 * mount that replaces the base's replaces its approvals too. */
static void test_good_approvals(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	struct sbx_error err = {0};
	const struct sbx_mount *m;

	(void)state;
	sbx_spec_set_str(&spec->workspace, "/work/ws", NULL);
	if (sbx_profile_load(FIX "/good/approvals.yaml", &opts, spec, &p, &err) < 0)
		fail_msg("%s:%d:%d: %s", err.file, err.line, err.column, err.msg);
	assert_string_equal(spec->approve, "cmd:/home/u/bin/broker");
	assert_string_equal(spec->audit_log, "/home/u/.local/state/sbx/audit.jsonl");
	m = sbx_spec_find_target(spec, "/work/ws");
	assert_non_null(m);
	assert_int_equal(m->approvals.op[SBX_AC_WRITE], SBX_APPROVE_ASK);
	assert_int_equal(m->approvals.op[SBX_AC_OVERWRITE], SBX_APPROVE_ASK);
	assert_int_equal(m->approvals.op[SBX_AC_DELETE], SBX_APPROVE_DENY);
	assert_int_equal(m->approvals.op[SBX_AC_RENAME], SBX_APPROVE_ALLOW);
	assert_int_equal(m->n_suffixes, 0);
	m = sbx_spec_find_target(spec, "/data");
	assert_non_null(m);
	assert_true(m->readonly);
	assert_int_equal(m->n_suffixes, 2); /* a repeat is ignored */
	assert_string_equal(m->suffixes[0], ".csv");
	assert_string_equal(m->suffixes[1], ".json");
	assert_int_equal(m->max_file_bytes, 10u << 20);
	/* base's /srv/cache was read-only: replaced whole by this one */
	m = sbx_spec_find_target(spec, "/srv/cache");
	assert_non_null(m);
	assert_false(m->readonly);
	assert_int_equal(m->max_file_bytes, 4096);
	/* mounts the child does not name keep what the base said (no approvals) */
	m = sbx_spec_find_target(spec, "/home/u/.config/tool");
	assert_non_null(m);
	for (int c = 0; c < SBX_AC_COUNT; c++)
		assert_int_equal(m->approvals.op[c], SBX_APPROVE_ALLOW);
	sbx_profile_free(p);
}

static const struct {
	const char *in;
	uint64_t out; /* 0: refused */
} size_cases[] = {
    {"1", 1},
    {"4096", 4096},
    {"512K", 512u << 10},
    {"10m", 10u << 20},
    {"1G", 1u << 30},
    {"1024G", 1ull << 40},
    {"1025G", 0},
    {"0", 0},
    {"", 0},
    {"K", 0},
    {"10KB", 0},
    {"-1", 0},
    {"1.5M", 0},
    {"99999999999999999999999", 0},
};

static void test_size_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
		struct sbx_error err = {0};
		uint64_t v = 0;
		int r = sbx_size_parse(size_cases[i].in, &v, &err);

		if (size_cases[i].out ? (r != 0 || v != size_cases[i].out) : r >= 0)
			fail_msg("'%s': got %d, %llu", size_cases[i].in, r, (unsigned long long)v);
	}
}

static const struct {
	const char *in;
	bool ok;
} approve_cases[] = {
    {"tty", true},
    {"deny", true},
    {"allow", true},
    {"cmd:/usr/bin/broker", true},
    {"cmd:broker", true},
    {"cmd:bin/broker", false},
    {"cmd:", false},
    {"socket:/run/user/1000/a.sock", true},
    {"socket:relative.sock", false},
    {"socket:", false},
    {"socket:/"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaa",
     false},
    {"cmd:/bin/x\nrm", false},
    {"cmd:/bin/x\tx", false},
    {"cmd:/bin/\x01", false},
    {"TTY", false},
    {"", false},
};

static void test_approve_and_label(void **state)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	char label[SBX_LABEL_MAX + 2];
	struct sbx_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(approve_cases) / sizeof(approve_cases[0]); i++) {
		int r = sbx_spec_set_approve(spec, approve_cases[i].in, &err);

		if ((r == 0) != approve_cases[i].ok)
			fail_msg("--approve '%s': got %d", approve_cases[i].in, r);
	}
	assert_int_equal(sbx_spec_set_approve(spec, "socket:/tmp/\x7f", &err), -EINVAL);
	assert_int_equal(sbx_spec_set_approve(spec, "cmd:/usr/bin/ok", &err), 0);
	assert_string_equal(spec->approve, "cmd:/usr/bin/ok");
	memset(label, 'x', sizeof(label));
	label[SBX_LABEL_MAX] = '\0';
	assert_int_equal(sbx_spec_set_label(spec, label, &err), 0);
	assert_int_equal(strlen(spec->label), SBX_LABEL_MAX);
	label[SBX_LABEL_MAX] = 'x';
	label[SBX_LABEL_MAX + 1] = '\0';
	assert_int_equal(sbx_spec_set_label(spec, label, &err), -EINVAL);
	assert_int_equal(sbx_spec_set_label(spec, "task\t42", &err), -EINVAL);
	assert_int_equal(sbx_spec_set_label(spec, "task\x1b[2J", &err), -EINVAL);
	assert_int_equal(sbx_spec_set_label(spec, "task-42 (ü)", &err), 0);
	assert_string_equal(spec->label, "task-42 (ü)");
}

static const struct {
	const char *in, *out;
} expand_cases[] = {
    {"~", "/home/u"},
    {"~/x", "/home/u/x"},
    {"a~", "a~"},
    {"~user", "~user"}, /* only a lone ~ or ~/ */
    {"${HOME}/a", "/home/u/a"},
    {"${WORKSPACE}", "/work/ws"},
    {"${USER}-${UID}", "u-1000"},
    {"${XDG_CACHE_HOME}", "/var/cache/u"},
    {"${XDG_CONFIG_HOME}", "/home/u/.config"}, /* relative value ignored: the default */
    {"${XDG_DATA_HOME}", "/home/u/.local/share"},
    {"${XDG_STATE_HOME}", "/home/u/.local/state"},
    {"${XDG_RUNTIME_DIR}", "/run/user/1000"},
    {"$$HOME", "$HOME"},
    {"", ""},
};

static void test_expand(void **state)
{
	struct sbx_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(expand_cases) / sizeof(expand_cases[0]); i++) {
		char *out = NULL;

		if (sbx_profile_expand(expand_cases[i].in, &opts.vars, &out, &err) < 0)
			fail_msg("%s: %s", expand_cases[i].in, err.msg);
		assert_string_equal(out, expand_cases[i].out);
		free(out);
	}
	{
		char *out = NULL;

		assert_int_equal(sbx_profile_expand("${NOPE}", &opts.vars, &out, &err), -EINVAL);
		assert_string_equal(err.msg, "unknown variable ${NOPE}");
		assert_int_equal(sbx_profile_expand("${XDG_NOPE}", &opts.vars, &out, &err),
		                 -ENOENT);
		assert_string_equal(err.msg, "${XDG_NOPE} is not set and has no default");
		assert_int_equal(sbx_profile_expand("$HOME", &opts.vars, &out, &err), -EINVAL);
		assert_int_equal(sbx_profile_expand("${HOME", &opts.vars, &out, &err), -EINVAL);
		assert_int_equal(sbx_profile_expand("${}", &opts.vars, &out, &err), -EINVAL);
		assert_null(out);
	}
}

static void test_search_path(void **state)
{
	char *const env[] = {"SBX_PROFILE_PATH=/a:/b/:/a", "XDG_CONFIG_HOME=/cfg", NULL};
	char *const env2[] = {"SBX_PROFILE_PATH=rel", NULL};
	char **v = NULL;
	size_t n;
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_profile_search_path(env, "/home/u", &v, &n, &err), 0);
	assert_int_equal(n, 5);
	assert_string_equal(v[0], "/a");
	assert_string_equal(v[1], "/b");
	assert_string_equal(v[2], "/cfg/sbx/profiles");
	assert_string_equal(v[3], "/etc/sbx/profiles");
	assert_string_equal(v[4], SBX_DATADIR "/profiles");
	assert_null(v[5]);
	sbx_strv_free(v);
	assert_int_equal(sbx_profile_search_path(fake_environ, "/home/u", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "/home/u/.config/sbx/profiles");
	sbx_strv_free(v);
	assert_int_equal(sbx_profile_search_path(env2, "/home/u", &v, &n, &err), -EINVAL);
	assert_string_equal(err.msg, "SBX_PROFILE_PATH has a relative folder 'rel'");
}

static void test_find_by_name(void **state)
{
	char *const dirs[] = {FIX "/bad", FIX "/good", NULL};
	struct sbx_profile_opts o = opts;
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	struct sbx_error err;
	char *file = NULL;

	(void)state;
	o.search = dirs;
	o.n_search = 2;
	assert_int_equal(sbx_profile_find("base", &o, &file, &err), 0);
	assert_string_equal(file, FIX "/good/base.yaml");
	free(file);
	assert_int_equal(sbx_profile_find("../etc/passwd", &o, &file, &err), -EINVAL);
	assert_int_equal(sbx_profile_find("nope", &o, &file, &err), -ENOENT);
	assert_string_equal(err.msg, "profile 'nope' not found (looked for nope.yaml in: " FIX
	                             "/bad, " FIX "/good)");
	assert_true(sbx_profile_arg_is_file("x.yaml"));
	assert_true(sbx_profile_arg_is_file("./x"));
	assert_false(sbx_profile_arg_is_file("claude-agent"));
	/* by name, through the search path */
	sbx_spec_set_str(&spec->workspace, "/work/ws", NULL);
	assert_int_equal(sbx_profile_load("child", &o, spec, &p, &err), 0);
	sbx_profile_free(p);
	sbx_spec_free(spec);
}

/*
 * Core reads files only through the caller's hooks, and an extends cycle is found by real path
 * (opts.resolve): a profile that comes back through a symlink is named as the cycle it is. In
 * memory: a.yaml extends b, b extends link, and link.yaml is a symlink to a.yaml.
 */
static const struct mem_file {
	const char *path, *real, *text;
} mem_files[] = {
    {"/v/a.yaml", "/v/a.yaml", "version: 1\nname: a\nextends: b\n"},
    {"/v/b.yaml", "/v/b.yaml", "version: 1\nname: b\nextends: link\n"},
    {"/v/link.yaml", "/v/a.yaml", "version: 1\nname: a\nextends: b\n"},
};

static const struct mem_file *mem_find(const char *path)
{
	for (size_t i = 0; i < sizeof(mem_files) / sizeof(mem_files[0]); i++)
		if (strcmp(mem_files[i].path, path) == 0)
			return &mem_files[i];
	return NULL;
}

static bool mem_is_file(const char *path)
{
	return mem_find(path) != NULL;
}

static char *mem_resolve(const char *path)
{
	const struct mem_file *f = mem_find(path);

	errno = ENOENT;
	return f ? strdup(f->real) : NULL;
}

static int mem_read(const char *file, const char *what, size_t max, char **data, size_t *len,
                    struct sbx_error *err)
{
	const struct mem_file *f = mem_find(file);

	(void)what;
	(void)max;
	if (!f)
		return sbx_error_set(err, SBX_ERR_PROFILE, ENOENT, "cannot open %s", file);
	*data = strdup(f->text);
	*len = strlen(f->text);
	return 0;
}

static void test_cycle_through_a_symlink(void **state)
{
	struct sbx_profile_opts o = opts;
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	struct sbx_error err = {0};

	(void)state;
	o.is_file = mem_is_file;
	o.resolve = mem_resolve;
	o.read = mem_read;
	assert_int_equal(sbx_profile_load("/v/a.yaml", &o, spec, &p, &err), -ELOOP);
	assert_string_equal(err.msg,
	                    "'extends' makes a cycle: /v/a.yaml -> /v/b.yaml -> /v/a.yaml");
	assert_string_equal(err.file, "/v/b.yaml");
	/* a file the resolver cannot find is named where it is asked for */
	assert_int_equal(sbx_profile_load("/v/none.yaml", &o, spec, &p, &err), -ENOENT);
	assert_string_equal(err.msg, "cannot open profile /v/none.yaml: No such file or directory");
	/* without a reader, core opens nothing */
	o.read = NULL;
	assert_int_equal(sbx_profile_load("/v/b.yaml", &o, spec, &p, &err), -ENOSYS);
	assert_null(p);
}

/* The shipped profiles load, and the seed's example holds in claude-agent's spec. */
static void test_shipped_profiles_load(void **state)
{
	static const char *const names[] = {"claude-agent", "restricted-agent", "code-reviewer",
	                                    "ci-job", "no-secrets"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char file[4096];
		struct sbx_error err;

		snprintf(file, sizeof(file), SBX_SOURCE_DIR "/profiles/%s.yaml", names[i]);
		if (load(file, &err) < 0)
			fail_msg("%s: %s:%d:%d: %s", names[i], err.file, err.line, err.column,
			         err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_profiles),
	    cmocka_unit_test(test_every_fixture_has_a_case),
	    cmocka_unit_test(test_too_large),
	    cmocka_unit_test(test_alias_bomb_is_not_expanded),
	    cmocka_unit_test(test_good_extends),
	    cmocka_unit_test(test_good_seccomp),
	    cmocka_unit_test(test_good_approvals),
	    cmocka_unit_test(test_size_parse),
	    cmocka_unit_test(test_approve_and_label),
	    cmocka_unit_test(test_expand),
	    cmocka_unit_test(test_search_path),
	    cmocka_unit_test(test_find_by_name),
	    cmocka_unit_test(test_shipped_profiles_load),
	    cmocka_unit_test(test_cycle_through_a_symlink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
