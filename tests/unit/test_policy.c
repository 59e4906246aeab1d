/* SPDX-License-Identifier: MIT */
/* Decisions (docs/design.md, The model (policies)) and their compilation to mounts and masks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_files.h"
#include "sbx/plan.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "sbx/spec.h"

/* A host with merged /usr and a few /etc files, as os/probe.c would describe it. */
static struct sbx_host_entry host_entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
    {"/bin", SBX_HOST_SYMLINK, "usr/bin"},
    {"/etc/passwd", SBX_HOST_FILE, NULL},
    {"/etc/hosts", SBX_HOST_FILE, NULL},
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

static const char pol_workspace[] = "version: 1\n"
                                    "rules:\n"
                                    "  - {name: allow-all, paths: [\"**\"], operations: [all], "
                                    "decision: allow}\n";
static const char pol_config_ro[] =
    "version: 1\n"
    "rules:\n"
    "  - {name: read, paths: [\"**\"], operations: [read, list, stat, execute], decision: "
    "allow}\n"
    "  - {name: deny-write, paths: [\"**\"], operations: [write, create, delete], decision: "
    "deny}\n";
/* Globs of every kind, relative and absolute, and a deny that must win over an allow. */
static const char pol_globby[] =
    "version: 1\n"
    "rules:\n"
    "  - {name: c-files, paths: [\"*.c\"], operations: [read], decision: allow}\n"
    "  - {name: src-tree, paths: [\"src/**\"], operations: [read], decision: allow}\n"
    "  - {name: one-char, paths: [\"?.txt\"], operations: [read], decision: allow}\n"
    "  - {name: a-or-b, paths: [\"[ab]*.md\"], operations: [read], decision: allow}\n"
    "  - {name: absolute, paths: [\"/opt/g/abs/*\"], operations: [read], decision: allow}\n"
    "  - {name: no-secret, paths: [\"**/.secret\"], operations: [read], decision: deny}\n"
    "  - {name: listing, paths: [\"**\"], operations: [list, stat], decision: allow}\n";
static const char pol_base[] =
    "version: 1\n"
    "rules:\n"
    "  - {name: everything, paths: [\"**\"], operations: [all], decision: allow}\n"
    "  - {name: never-this, paths: [\"srv/data/base-denied\"], operations: [read], "
    "decision: deny}\n"
    "  - {name: never-abs, paths: [\"/home/u/ws/vault/**\"], operations: [all], decision: "
    "deny}\n";

struct world {
	struct sbx_spec *spec;
	struct sbx_policy_set set;
	struct sbx_plan *plan;
};

static void add_policy(struct world *w, const char *name, const char *yaml)
{
	struct sbx_policy *p = NULL;
	struct sbx_error err;
	char file[64];

	snprintf(file, sizeof(file), "%s.yaml", name);
	if (sbx_policy_load_buffer(yaml, strlen(yaml), file, name, &p, &err) < 0)
		fail_msg("policy %s: %d:%d: %s", name, err.line, err.column, err.msg);
	assert_int_equal(sbx_policy_set_add(&w->set, p, NULL), 0);
}

static void add_mount(struct world *w, const char *path, bool ro, const char *policy)
{
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = strdup(path),
	                      .target = strdup(path),
	                      .readonly = ro,
	                      .origin = SBX_ORIGIN_PROFILE,
	                      .policy = policy ? strdup(policy) : NULL};

	assert_int_equal(sbx_spec_add_mount(w->spec, &m, false, NULL), 0);
	sbx_mount_clear(&m);
}

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct sbx_error err;

	w->spec = sbx_spec_new();
	sbx_spec_set_str(&w->spec->profile, "test", NULL);
	sbx_spec_set_str(&w->spec->workspace, "/home/u/ws", NULL);
	add_policy(w, "workspace-rw", pol_workspace);
	add_policy(w, "config-readonly", pol_config_ro);
	add_policy(w, "globby", pol_globby);
	add_policy(w, "base", pol_base);
	w->set.base = sbx_policy_set_find(&w->set, "base");
	add_mount(w, "/home/u/ws", false, "workspace-rw");
	add_mount(w, "/home/u/.claude", false, "config-readonly");
	add_mount(w, "/home/u/.claude/projects", false, NULL);
	add_mount(w, "/srv/data", true, NULL);
	add_mount(w, "/srv/data/inner", false, NULL);
	add_mount(w, "/opt/g", false, "globby");
	assert_int_equal(sbx_spec_add_hide(w->spec, "/home/u/ws/.env", NULL), 0);
	assert_int_equal(sbx_spec_finish(w->spec, NULL), 0);
	if (sbx_plan_build(w->spec, &host, &w->plan, &err) < 0)
		fail_msg("plan: %s", err.msg);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	sbx_plan_free(w->plan);
	sbx_policy_set_clear(&w->set);
	sbx_spec_free(w->spec);
	free(w);
	return 0;
}

#define R SBX_OP_READ
#define W SBX_OP_WRITE
#define C SBX_OP_CREATE
#define D SBX_OP_DELETE
#define X SBX_OP_EXECUTE
#define L SBX_OP_LIST
#define S SBX_OP_STAT

static const struct decide_case {
	unsigned op;
	const char *path;
	bool allow;
	enum sbx_decider by;
	const char *mount;  /* expected covering mount ("" when unmounted) */
	const char *policy; /* expected deciding policy, or NULL */
	const char *rule;   /* expected rule text, or NULL */
} decide_cases[] = {
    /* 1. unmounted */
    {R, "/etc/shadow", false, SBX_BY_UNMOUNTED, "", NULL, "no mount covers it"},
    {R, "/home/u/.ssh/id_rsa", false, SBX_BY_UNMOUNTED, "", NULL, NULL},
    {W, "/home/u/wsx", false, SBX_BY_UNMOUNTED, "", NULL, NULL}, /* not /home/u/ws */
    {R, "/home/u/ws/../.ssh/id_rsa", false, SBX_BY_UNMOUNTED, "", NULL, NULL},
    /* a system mount covers /etc/passwd, and says so */
    {R, "/etc/passwd", true, SBX_BY_ALLOWED, "/etc/passwd", NULL, NULL},
    {W, "/etc/passwd", false, SBX_BY_READONLY, "/etc/passwd", NULL, NULL},
    /* the plan's own symlinks are followed: /bin is usr/bin */
    {X, "/bin/sh", true, SBX_BY_ALLOWED, "/usr", NULL, NULL},
    {D, "/bin/sh", false, SBX_BY_READONLY, "/usr", NULL, NULL},
    /* 2. read-only, and the longest target wins over an overlapping mount */
    {W, "/srv/data/x", false, SBX_BY_READONLY, "/srv/data", NULL, NULL},
    {C, "/srv/data/innerx", false, SBX_BY_READONLY, "/srv/data", NULL, NULL},
    {W, "/srv/data/inner/x", true, SBX_BY_ALLOWED, "/srv/data/inner", NULL, NULL},
    {C, "/srv/data/inner", true, SBX_BY_ALLOWED, "/srv/data/inner", NULL, NULL},
    {R, "/srv/data/x", true, SBX_BY_ALLOWED, "/srv/data", NULL, NULL},
    /* 3. the mount's policy: the seed's examples */
    {W, "/home/u/.claude/settings.json", false, SBX_BY_POLICY, "/home/u/.claude", "config-readonly",
     "deny-write"},
    {C, "/home/u/.claude/hooks/pre.sh", false, SBX_BY_POLICY, "/home/u/.claude", "config-readonly",
     "deny-write"},
    {R, "/home/u/.claude/CLAUDE.md", true, SBX_BY_ALLOWED, "/home/u/.claude", "config-readonly",
     "read"},
    {X, "/home/u/.claude/hooks/pre.sh", true, SBX_BY_ALLOWED, "/home/u/.claude", "config-readonly",
     "read"},
    {R, "/home/u/ws/file.txt", true, SBX_BY_ALLOWED, "/home/u/ws", "workspace-rw", "allow-all"},
    {D, "/home/u/ws/src/a.c", true, SBX_BY_ALLOWED, "/home/u/ws", "workspace-rw", "allow-all"},
    /* the longest target: session state beneath the read-only config is writable */
    {W, "/home/u/.claude/projects/t.jsonl", true, SBX_BY_ALLOWED, "/home/u/.claude/projects", NULL,
     NULL},
    /* globs in a mount policy, relative to the mount */
    {R, "/opt/g/main.c", true, SBX_BY_ALLOWED, "/opt/g", "globby", "c-files"},
    {R, "/opt/g/dir/main.c", false, SBX_BY_POLICY, "/opt/g", "globby", "no rule allows read"},
    {R, "/opt/g/src", true, SBX_BY_ALLOWED, "/opt/g", "globby", "src-tree"},
    {R, "/opt/g/src/a/b/c.py", true, SBX_BY_ALLOWED, "/opt/g", "globby", "src-tree"},
    {R, "/opt/g/x.txt", true, SBX_BY_ALLOWED, "/opt/g", "globby", "one-char"},
    {R, "/opt/g/xy.txt", false, SBX_BY_POLICY, "/opt/g", "globby", "no rule allows read"},
    {R, "/opt/g/a1.md", true, SBX_BY_ALLOWED, "/opt/g", "globby", "a-or-b"},
    {R, "/opt/g/b.md", true, SBX_BY_ALLOWED, "/opt/g", "globby", "a-or-b"},
    {R, "/opt/g/c1.md", false, SBX_BY_POLICY, "/opt/g", "globby", "no rule allows read"},
    {R, "/opt/g/abs/q", true, SBX_BY_ALLOWED, "/opt/g", "globby", "absolute"},
    {R, "/opt/g/abs/q/r", false, SBX_BY_POLICY, "/opt/g", "globby", "no rule allows read"},
    /* deny wins over an allow that also matches */
    {R, "/opt/g/src/.secret", false, SBX_BY_POLICY, "/opt/g", "globby", "no-secret"},
    {R, "/opt/g/.secret", false, SBX_BY_POLICY, "/opt/g", "globby", "no-secret"},
    {L, "/opt/g/src/.secret", true, SBX_BY_ALLOWED, "/opt/g", "globby", "listing"},
    /* an operation no rule names is denied */
    {W, "/opt/g/main.c", false, SBX_BY_POLICY, "/opt/g", "globby", "no rule allows write"},
    /* 4. the base policy, relative to '/', after the mount's policy */
    {R, "/srv/data/base-denied", false, SBX_BY_BASE_POLICY, "/srv/data", "base", "never-this"},
    {W, "/home/u/ws/vault/key", false, SBX_BY_BASE_POLICY, "/home/u/ws", "base", "never-abs"},
    {R, "/home/u/ws/vault", false, SBX_BY_BASE_POLICY, "/home/u/ws", "base", "never-abs"},
    /* a read-only mount decides before its policy and the base policy */
    {W, "/srv/data/base-denied", false, SBX_BY_READONLY, "/srv/data", NULL, NULL},
    /* hidden paths: every operation */
    {R, "/home/u/ws/.env", false, SBX_BY_HIDDEN, "/home/u/ws/.env", NULL, NULL},
    {S, "/home/u/ws/.env", false, SBX_BY_HIDDEN, "/home/u/ws/.env", NULL, NULL},
    /* sbx's own scaffolding: private /tmp writable, /dev sealed, /proc/sys read-only */
    {W, "/tmp/x", true, SBX_BY_ALLOWED, "/tmp", NULL, NULL},
    {C, "/dev/newnode", false, SBX_BY_READONLY, "/dev", NULL, NULL},
    {W, "/dev/null", true, SBX_BY_ALLOWED, "/dev/null", NULL, NULL},
    {W, "/proc/sys/kernel/hostname", false, SBX_BY_READONLY, "/proc/sys", NULL, NULL},
    {R, "/proc/kcore", false, SBX_BY_HIDDEN, "/proc/kcore", NULL, NULL},
};

static void test_decide_table(void **state)
{
	struct world *w = *state;
	struct sbx_policy_view v = {w->plan, w->spec, &w->set, NULL};

	for (size_t i = 0; i < sizeof(decide_cases) / sizeof(decide_cases[0]); i++) {
		const struct decide_case *c = &decide_cases[i];
		struct sbx_decision d;
		char text[SBX_PATH_MAX * 2];

		assert_int_equal(sbx_policy_decide(&v, c->op, c->path, &d, NULL), 0);
		sbx_decision_format(&d, text, sizeof(text));
		if (d.allow != c->allow || d.by != c->by || strcmp(d.mount, c->mount) != 0 ||
		    (c->policy && (!d.policy || strcmp(d.policy, c->policy) != 0)) ||
		    (!c->policy && d.by != SBX_BY_ALLOWED && d.policy) ||
		    (c->rule && strcmp(d.rule, c->rule) != 0))
			fail_msg(
			    "case %zu: %s %s: got %s by %d (mount '%s', policy %s, rule '%s'): "
			    "%s",
			    i, sbx_op_name(c->op), c->path, d.allow ? "allow" : "deny", d.by,
			    d.mount, d.policy ? d.policy : "-", d.rule, text);
	}
}

static void test_decide_refusals(void **state)
{
	struct world *w = *state;
	struct sbx_policy_view v = {w->plan, w->spec, &w->set, NULL};
	struct sbx_decision d;
	struct sbx_error err;

	assert_int_equal(sbx_policy_decide(&v, R | W, "/x", &d, &err), -EINVAL);
	assert_int_equal(sbx_policy_decide(&v, 0, "/x", &d, &err), -EINVAL);
	assert_int_equal(sbx_policy_decide(&v, R, "relative", &d, &err), -EINVAL);
	/* Without policies, decisions come from mounts alone. */
	v.policies = NULL;
	assert_int_equal(sbx_policy_decide(&v, W, "/home/u/.claude/settings.json", &d, NULL), 0);
	assert_true(d.allow);
}

/* sbx check and the kernel agree on what the supervisor protects and what approvals deny. */
static void test_decide_protected_and_approvals(void **state)
{
	struct world *w = *state;
	struct sbx_sup_protected pp = {.path = "/home/u/ws/.git",
	                               .why = "git's control surface",
	                               .fix = "run `git init` outside the sandbox"};
	struct sbx_sup_plan sup = {.protected_paths = &pp, .n_protected = 1};
	struct sbx_policy_view v = {w->plan, w->spec, &w->set, &sup};
	struct sbx_mount *ws = sbx_spec_find_target(w->spec, "/home/u/ws");
	static const struct {
		unsigned op;
		const char *path;
		bool allow;
		enum sbx_decider by;
	} cases[] = {
	    {C, "/home/u/ws/.git", false, SBX_BY_PROTECTED},
	    {C, "/home/u/ws/.git/hooks/pre-commit", false, SBX_BY_PROTECTED},
	    {W, "/home/u/ws/.git/config", false, SBX_BY_PROTECTED},
	    {R, "/home/u/ws/.git/config", true, SBX_BY_ALLOWED},
	    {C, "/home/u/ws/.gitignore", false, SBX_BY_APPROVAL}, /* not .git */
	    {C, "/home/u/ws/a.c", false, SBX_BY_APPROVAL},        /* write: deny */
	    {W, "/home/u/ws/a.c", false, SBX_BY_APPROVAL},        /* write: deny */
	    {D, "/home/u/ws/a.c", true, SBX_BY_ALLOWED}, /* delete: ask decides nothing here */
	    {R, "/home/u/ws/a.c", true, SBX_BY_ALLOWED}, /* reading is no approval's */
	    {W, "/srv/data/x", false, SBX_BY_READONLY},  /* read-only decides first */
	};
	char text[SBX_PATH_MAX * 2];
	struct sbx_decision d;

	assert_non_null(ws);
	ws->approvals.op[SBX_AC_WRITE] = SBX_APPROVE_DENY;
	ws->approvals.op[SBX_AC_DELETE] = SBX_APPROVE_ASK;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sbx_policy_decide(&v, cases[i].op, cases[i].path, &d, NULL), 0);
		if (d.allow != cases[i].allow || d.by != cases[i].by)
			fail_msg("%s %s: got %s by %d: %s", sbx_op_name(cases[i].op), cases[i].path,
			         d.allow ? "allow" : "deny", d.by,
			         sbx_decision_format(&d, text, sizeof(text)));
	}
	assert_int_equal(sbx_policy_decide(&v, C, "/home/u/ws/.git/x", &d, NULL), 0);
	assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
	                    "protected: /home/u/ws/.git does not exist at launch and cannot be "
	                    "created (git's control surface; run `git init` outside the sandbox)");
	assert_int_equal(sbx_policy_decide(&v, W, "/home/u/ws/a", &d, NULL), 0);
	assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
	                    "approvals: write deny (profile mount /home/u/ws)");
	/* without the supervisor's plan, and without approvals: as before */
	v.sup = NULL;
	memset(&ws->approvals, 0, sizeof(ws->approvals));
	assert_int_equal(sbx_policy_decide(&v, C, "/home/u/ws/.git", &d, NULL), 0);
	assert_true(d.allow);
	assert_int_equal(sbx_policy_decide(&v, W, "/home/u/ws/a.c", &d, NULL), 0);
	assert_true(d.allow);
	/* read caps: sbx check says deny for a name the supervisor refuses to open */
	{
		char *sfx[] = {".py", ".md"};

		ws->suffixes = sfx;
		ws->n_suffixes = 2;
		assert_int_equal(sbx_policy_decide(&v, R, "/home/u/ws/secret.bin", &d, NULL), 0);
		assert_false(d.allow);
		assert_int_equal(d.by, SBX_BY_CAPS);
		assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
		                    "read caps: suffixes .py, ... (secret.bin ends with none) "
		                    "(profile mount /home/u/ws)");
		assert_int_equal(sbx_policy_decide(&v, R, "/home/u/ws/x.md", &d, NULL), 0);
		assert_true(d.allow);
		assert_int_equal(sbx_policy_decide(&v, W, "/home/u/ws/secret.bin", &d, NULL), 0);
		assert_true(d.allow); /* caps govern reading */
		assert_int_equal(sbx_policy_decide(&v, SBX_OP_EXECUTE, "/home/u/ws/x.py", &d, NULL),
		                 0);
		assert_false(d.allow); /* and running: the mount is noexec */
		assert_int_equal(d.by, SBX_BY_CAPS);
		ws->suffixes = NULL;
		ws->n_suffixes = 0;
	}
}

static void test_decision_format(void **state)
{
	struct world *w = *state;
	struct sbx_policy_view v = {w->plan, w->spec, &w->set, NULL};
	struct sbx_decision d;
	char text[SBX_PATH_MAX * 2];

	assert_int_equal(sbx_policy_decide(&v, W, "/home/u/.claude/settings.json", &d, NULL), 0);
	assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
	                    "policy config-readonly/deny-write (profile mount /home/u/.claude)");
	assert_int_equal(sbx_policy_decide(&v, R, "/etc/passwd", &d, NULL), 0);
	assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
	                    "system mount /etc/passwd");
	assert_int_equal(sbx_policy_decide(&v, R, "/etc/shadow", &d, NULL), 0);
	assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
	                    "unmounted: no mount covers /etc/shadow");
	assert_int_equal(sbx_policy_decide(&v, W, "/usr/bin/ls", &d, NULL), 0);
	assert_string_equal(sbx_decision_format(&d, text, sizeof(text)),
	                    "readonly: system mount /usr is read-only");
}

/* ---- compiling ---- */

static struct sbx_policy *policy(const char *yaml)
{
	struct sbx_policy *p = NULL;
	struct sbx_error err;

	if (sbx_policy_load_buffer(yaml, strlen(yaml), "p.yaml", "p", &p, &err) < 0)
		fail_msg("%d:%d: %s", err.line, err.column, err.msg);
	return p;
}

static const struct compile_case {
	const char *yaml;
	const char *scope;
	bool base;
	int ret;
	unsigned allowed;
	bool readonly, noexec, hide_scope;
	const char *hide; /* the one expected masked path, or NULL */
	const char *msg;  /* expected substring of the refusal */
	int line;         /* expected line of the refusal */
} compile_cases[] = {
    {pol_workspace, "/w", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    {pol_config_ro, "/c", false, 0, SBX_OP_LOOK | X, true, false, false, NULL, NULL, 0},
    /* the seed's read-only policy, without execute: read-only and noexec */
    {"version: 1\nrules:\n  - {name: r, paths: [\"**\"], operations: [read, stat, list], "
     "decision: allow}\n",
     "/c", false, 0, SBX_OP_LOOK, true, true, false, NULL, NULL, 0},
    /* an absolute pattern over the scope, or over a parent, is the whole scope */
    {"version: 1\nrules:\n  - {name: r, paths: [\"/home/**\"], operations: [all], decision: "
     "allow}\n",
     "/home/u", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    /* create but not delete: Landlock's; the mount stays writable */
    {"version: 1\nrules:\n  - {name: cw, paths: [\"**\"], operations: [read, list, stat, "
     "write, create], decision: allow}\n",
     "/w", false, 0, SBX_OP_LOOK | SBX_OP_WRITE | SBX_OP_CREATE, false, true, false, NULL, NULL, 0},
    /* reading without listing (stat kept): Landlock's */
    {"version: 1\nrules:\n  - {name: r, paths: [\"**\"], operations: [read, stat], decision: "
     "allow}\n",
     "/w", false, 0, SBX_OP_READ | SBX_OP_STAT, true, true, false, NULL, NULL, 0},
    /* a glob deny of read: what it matches is hidden by the launch's walk (stricter) */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [all], decision: "
     "allow}\n  - {name: env, paths: [\"**/.env\"], operations: [read], decision: deny}\n",
     "/w", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    /* a glob deny of everything, stat included: hidden by the walk too, no longer refused */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [all], decision: "
     "allow}\n  - {name: env, paths: [\"**/.env\"], operations: [all], decision: deny}\n",
     "/w", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    /* an exact path denied every operation: a mask */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [all], decision: "
     "allow}\n  - {name: env, paths: [\".env\"], operations: [all], decision: deny}\n",
     "/w", false, 0, SBX_OP_ALL, false, false, false, "/w/.env", NULL, 0},
    /* ... but denying only writes to it is per-operation: Landlock's, no mount flag */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [all], decision: "
     "allow}\n  - {name: cfg, paths: [\".git/config\"], operations: [write], decision: "
     "deny}\n",
     "/w", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    /* stat cannot be denied apart from the rest */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [read, list, write], "
     "decision: allow}\n",
     "/w", false, -EOPNOTSUPP, 0, false, false, false, NULL, "allows read,list,write but not stat",
     3},
    /* a narrow allow that grants nothing new is harmless */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [all], decision: "
     "allow}\n  - {name: src, paths: [\"src/**\"], operations: [write], decision: allow}\n",
     "/w", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    /* a narrow allow that grants more than the whole mount has */
    {pol_config_ro /* placeholder replaced below */, NULL, false, 0, 0, false, false, false, NULL,
     NULL, 0},
    /* a rule on another tree never applies to this scope */
    {"version: 1\nrules:\n  - {name: all, paths: [\"**\"], operations: [all], decision: "
     "allow}\n  - {name: elsewhere, paths: [\"/etc/*.conf\"], operations: [read], decision: "
     "deny}\n",
     "/w", false, 0, SBX_OP_ALL, false, false, false, NULL, NULL, 0},
    /* nothing allowed on a mount: the mount is masked */
    {"version: 1\nrules: []\n", "/w", false, 0, 0, false, false, true, NULL, NULL, 0},
    /* a base policy may deny neither everything nor execute */
    {"version: 1\nrules: []\n", "/", true, -EINVAL, 0, false, false, false, NULL,
     "allows no operation", 0},
    {"version: 1\nrules:\n  - {name: r, paths: [\"**\"], operations: [read, list, stat, "
     "write, create, delete], decision: allow}\n",
     "/", true, -EOPNOTSUPP, 0, false, false, false, NULL, "denies execute everywhere", 3},
    /* a read-only base policy */
    {pol_config_ro, "/", true, 0, SBX_OP_LOOK | X, true, false, false, NULL, NULL, 0},
};

static const char pol_narrow_grant[] =
    "version: 1\n"
    "rules:\n"
    "  - {name: read, paths: [\"**\"], operations: [read, list, stat, execute], decision: "
    "allow}\n"
    "  - {name: out, paths: [\"out/**\"], operations: [write, create, delete], decision: "
    "allow}\n";

static void test_compile_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(compile_cases) / sizeof(compile_cases[0]); i++) {
		struct compile_case c = compile_cases[i];
		struct sbx_policy *p;
		struct sbx_policy_effect eff;
		struct sbx_error err = {0};
		int r;

		if (!c.scope) { /* the narrow grant case */
			/* a narrow grant compiles (Landlock grants out/ more), and keeps
			 * the mount writable: a read-only mount would deny out/ too */
			c = (struct compile_case){pol_narrow_grant,
			                          "/w",
			                          false,
			                          0,
			                          SBX_OP_LOOK | X,
			                          false,
			                          false,
			                          false,
			                          NULL,
			                          NULL,
			                          0};
		}
		p = policy(c.yaml);
		r = sbx_policy_compile_one(p, c.scope, c.base, &eff, &err);
		if (r != c.ret)
			fail_msg("case %zu: returned %d, expected %d (%s)", i, r, c.ret, err.msg);
		if (r == 0) {
			assert_int_equal(eff.allowed, c.allowed);
			assert_int_equal(eff.readonly, c.readonly);
			assert_int_equal(eff.noexec, c.noexec);
			assert_int_equal(eff.hide_scope, c.hide_scope);
			if (c.hide) {
				assert_int_equal(eff.n_hide, 1);
				assert_string_equal(eff.hide[0], c.hide);
			} else {
				assert_int_equal(eff.n_hide, 0);
			}
			/* a deny on a glob (not a literal subtree) is left to the walk */
			if (strstr(c.yaml, "**/.env")) {
				assert_int_equal(eff.n_hide_globs, 1);
				assert_string_equal(eff.hide_globs[0], "/w/**/.env");
			} else {
				assert_int_equal(eff.n_hide_globs, 0);
			}
			sbx_policy_effect_clear(&eff);
		} else {
			if (!strstr(err.msg, c.msg))
				fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, c.msg);
			if (c.line)
				assert_int_equal(err.line, c.line);
			assert_string_equal(err.file, "p.yaml");
		}
		sbx_policy_free(p);
	}
}

/* sbx_policy_compile writes the effects into the spec. */
static void test_compile_spec(void **state)
{
	struct world *w = *state;
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_policy_set set = {0};
	struct sbx_error err;

	(void)w;
	assert_int_equal(sbx_policy_set_add(&set, policy(pol_config_ro), NULL), 0);
	{
		struct sbx_mount m = {
		    .kind = SBX_MOUNT_BIND, .source = "/c", .target = "/c", .policy = "p"};

		assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
		m.source = m.target = "/w";
		m.policy = "missing";
		assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
	}
	/* a mount naming a policy that is not loaded fails closed */
	assert_int_equal(sbx_policy_compile(spec, &set, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "names policy 'missing'"));
	free(spec->mounts[1].policy);
	spec->mounts[1].policy = NULL;
	assert_int_equal(sbx_policy_compile(spec, &set, &err), 0);
	assert_true(spec->mounts[0].readonly);
	assert_false(spec->mounts[1].readonly);
	assert_false(spec->readonly);
	/* a read-only base policy makes the whole sandbox read-only */
	set.base = set.items[0];
	assert_int_equal(sbx_policy_compile(spec, &set, &err), 0);
	assert_true(spec->readonly);
	sbx_policy_set_clear(&set);
	sbx_spec_free(spec);
}

/*
 * The property that makes enforcement honest: for every shipped profile, the compiled
 * spec alone (mounts, read-only flags, masks: what the launcher applies) decides exactly
 * what the profile's policies decide. Stat on a masked path is the one difference the
 * mask cannot hide (the empty mask can be stat'ed), and it is excluded by name.
 */
static const char *const probe_paths[] = {
    "/home/u/ws",
    "/home/u/ws/main.c",
    "/home/u/ws/.env",
    "/home/u/ws/.npmrc",
    "/home/u/ws/sub/.env",
    "/home/u/ws/.git/hooks/pre-commit",
    "/home/u/ws/.git/config",
    "/home/u/ws/.claude/settings.json",
    "/home/u/.claude",
    "/home/u/.claude/settings.json",
    "/home/u/.claude/hooks/h.sh",
    "/home/u/.claude/CLAUDE.md",
    "/home/u/.claude/projects/p/t.jsonl",
    "/home/u/.claude/todos/t.json",
    "/home/u/.claude.json",
    "/home/u/.config/claude-code/managed.json",
    "/home/u/.npm/_cacache/x",
    "/home/u/.ssh/id_rsa",
    "/home/u/.bashrc",
    "/etc/passwd",
    "/etc/shadow",
    "/usr/bin/env",
    "/bin/sh",
    "/tmp/scratch",
};

static void check_profile_consistency(const char *name)
{
	char file[4096];
	char *const env[] = {"HOME=/home/u", NULL};
	struct sbx_profile_opts o = {
	    .vars = {.home = "/home/u",
	             .workspace = "/home/u/ws",
	             .user = "u",
	             .uid = 1000,
	             .environ = env},
	    .exists = test_source_exists,
	    .is_file = test_is_file,
	    .resolve = test_resolve,
	    .read = test_read_file,
	};
	struct sbx_spec *meaning = sbx_spec_new(), *enforced = sbx_spec_new();
	struct sbx_profile *p1 = NULL, *p2 = NULL;
	struct sbx_plan *plan1 = NULL, *plan2 = NULL;
	struct sbx_error err;

	snprintf(file, sizeof(file), "%s/profiles/%s.yaml", SBX_SOURCE_DIR, name);
	sbx_spec_set_str(&meaning->workspace, "/home/u/ws", NULL);
	sbx_spec_set_str(&enforced->workspace, "/home/u/ws", NULL);
	if (sbx_profile_load(file, &o, meaning, &p1, &err) < 0 ||
	    sbx_profile_load(file, &o, enforced, &p2, &err) < 0 ||
	    sbx_policy_compile(enforced, &p2->policies, &err) < 0 ||
	    sbx_spec_finish(meaning, &err) < 0 || sbx_spec_finish(enforced, &err) < 0 ||
	    sbx_plan_build(meaning, &host, &plan1, &err) < 0 ||
	    sbx_plan_build(enforced, &host, &plan2, &err) < 0)
		fail_msg("%s: %s:%d:%d: %s", name, err.file, err.line, err.column, err.msg);

	for (size_t i = 0; i < sizeof(probe_paths) / sizeof(probe_paths[0]); i++) {
		for (unsigned op = 1; op <= SBX_OP_EXECUTE; op <<= 1) {
			struct sbx_policy_view v1 = {plan1, meaning, &p1->policies, NULL};
			struct sbx_policy_view v2 = {plan2, enforced, NULL, NULL};
			struct sbx_decision d1, d2;

			assert_int_equal(sbx_policy_decide(&v1, op, probe_paths[i], &d1, NULL), 0);
			assert_int_equal(sbx_policy_decide(&v2, op, probe_paths[i], &d2, NULL), 0);
			if (d1.allow == d2.allow)
				continue;
			if (op == SBX_OP_STAT && d2.by == SBX_BY_HIDDEN)
				continue;
			fail_msg("%s: %s %s: the policies say %s, the mounts enforce %s", name,
			         sbx_op_name(op), probe_paths[i], d1.allow ? "allow" : "deny",
			         d2.allow ? "allow" : "deny");
		}
	}
	sbx_plan_free(plan1);
	sbx_plan_free(plan2);
	sbx_profile_free(p1);
	sbx_profile_free(p2);
	sbx_spec_free(meaning);
	sbx_spec_free(enforced);
}

static void test_shipped_profiles_enforce_their_meaning(void **state)
{
	(void)state;
	check_profile_consistency("claude-agent");
	check_profile_consistency("restricted-agent");
	check_profile_consistency("code-reviewer");
	check_profile_consistency("ci-job");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_decide_table, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_decide_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_decision_format, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_decide_protected_and_approvals, setup, teardown),
	    cmocka_unit_test(test_compile_table),
	    cmocka_unit_test_setup_teardown(test_compile_spec, setup, teardown),
	    cmocka_unit_test(test_shipped_profiles_enforce_their_meaning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
