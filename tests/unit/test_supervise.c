/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's deciding (sbx_sup_decide), its session (grants, batches, rate limits) and
 * the broker's JSON (include/sbx/supervise.h): pure, so every case is a table row or a short
 * script of requests at chosen times.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "sbx/supervise.h"

/* ---- the world: a plan and the live table of protected names ---- */

/* Directory identities (dev 1): */
#define INO_WS     10 /* /ws */
#define INO_CLAUDE 20 /* /ws/.claude, made on the way */
#define INO_SRC    30 /* /ws/src */
#define INO_BUILD  40
#define INO_DATA   50
#define INO_OTHER  60

enum { P_GIT = 0, P_SETTINGS = 1 };

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

static void add_area(struct sbx_sup_plan *p, const char *target, bool writable, enum sbx_approval w,
                     enum sbx_approval o, enum sbx_approval d, enum sbx_approval r)
{
	struct sbx_sup_area *a;

	p->areas = realloc(p->areas, (p->n_areas + 1) * sizeof(*p->areas));
	assert_non_null(p->areas);
	a = &p->areas[p->n_areas++];
	memset(a, 0, sizeof(*a));
	a->target = xstrdup(target);
	a->writable = writable;
	a->approvals.op[SBX_AC_WRITE] = w;
	a->approvals.op[SBX_AC_OVERWRITE] = o;
	a->approvals.op[SBX_AC_DELETE] = d;
	a->approvals.op[SBX_AC_RENAME] = r;
}

#define ALLOW SBX_APPROVE_ALLOW
#define ASK   SBX_APPROVE_ASK
#define DENY  SBX_APPROVE_DENY

static void world(struct sbx_sup_plan *p, struct sbx_sup_guards *g)
{
	struct sbx_sup_area *data;

	memset(p, 0, sizeof(*p));
	p->enabled = true;
	p->meta_writable_only = true;
	add_area(p, "/", false, ALLOW, ALLOW, ALLOW, ALLOW);
	add_area(p, "/ws", true, ALLOW, ASK, ASK, ALLOW);
	add_area(p, "/ws/locked", true, DENY, DENY, DENY, DENY);
	add_area(p, "/ws/asked", true, ASK, ASK, ASK, ASK);
	add_area(p, "/data", false, ALLOW, ALLOW, ALLOW, ALLOW);
	data = &p->areas[p->n_areas - 1];
	data->suffixes = calloc(2, sizeof(char *));
	assert_non_null(data->suffixes);
	data->suffixes[0] = xstrdup(".py");
	data->suffixes[1] = xstrdup(".txt");
	data->n_suffixes = 2;
	data->max_file_bytes = 1000;
	p->protected_paths = calloc(2, sizeof(*p->protected_paths));
	assert_non_null(p->protected_paths);
	p->protected_paths[P_GIT] = (struct sbx_sup_protected){
	    xstrdup("/ws/.git"), "git's control surface", "run `git init` outside the sandbox"};
	p->protected_paths[P_SETTINGS] =
	    (struct sbx_sup_protected){xstrdup("/ws/.claude/settings.json"), "the agent's settings",
	                               "write them outside the sandbox"};
	p->n_protected = 2;
	p->hide_globs = calloc(1, sizeof(char *));
	assert_non_null(p->hide_globs);
	p->hide_globs[0] = xstrdup("/ws/**/.env");
	p->n_hide_globs = 1;
	if (!g)
		return;
	memset(g, 0, sizeof(*g));
	assert_int_equal(sbx_sup_guards_add(g, 1, INO_WS, ".git", P_GIT, 0, true, NULL), 0);
	assert_int_equal(sbx_sup_guards_add(g, 1, INO_WS, ".claude", P_SETTINGS, 0, false, NULL),
	                 0);
	assert_int_equal(
	    sbx_sup_guards_add(g, 1, INO_CLAUDE, "settings.json", P_SETTINGS, 1, true, NULL), 0);
}

/* ---- the table ---- */

#define T(path_, name_, ino_, exists_, dir_)                                                       \
	{                                                                                          \
		.path = path_, .name = name_, .dev = 1, .ino = ino_, .exists = exists_,            \
		.is_dir = dir_                                                                     \
	}
#define TF(path_, name_, ino_) T(path_, name_, ino_, true, false) /* an existing file */
#define TFT(path_, name_, ino_, type_, dir_)                                                       \
	{                                                                                          \
		.path = path_, .name = name_, .dev = 1, .ino = ino_, .exists = true,               \
		.is_dir = dir_, .ftype = type_                                                     \
	}
#define TD(p, n, i)            TFT(p, n, i, 0040000, true)  /* an existing folder (S_IFDIR) */
#define TR(p, n, i)            TFT(p, n, i, 0100000, false) /* an existing regular file (S_IFREG) */
#define TL(p, n, i)            TFT(p, n, i, 0120000, false) /* an existing symbolic link (S_IFLNK) */
#define TN(path_, name_, ino_) T(path_, name_, ino_, false, false) /* an absent name */
#define TS(path_, name_, ino_, size_)                                                              \
	{                                                                                          \
		.path = path_, .name = name_, .dev = 1, .ino = ino_, .exists = true, .size = size_ \
	}

enum guards_mode { G_ON = 0, G_OFF }; /* the live table, or none */

/* A row names `asked` only where the answer is ASK. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const struct dcase {
	const char *what;
	enum guards_mode guards;
	enum sbx_sup_op op;
	const char *call;
	struct sbx_sup_target t, t2;
	bool narrower, casefold;
	enum sbx_sup_answer answer;
	int errnum;
	enum sbx_sup_decider decider;
	const char *rule; /* a substring of verdict.rule */
	enum sbx_approval_class asked;
	bool out_of_reach; /* the listener found the guards' directories out of its reach */
	bool reads, exchange, noreplace, whiteout;
} dcases[] = {
    /* 1. protected names, absent at launch */
    {"mkdir .git",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.git", ".git", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git (git's control surface, absent at launch; run `git init` outside the "
     "sandbox)"},
    {"a .git file (gitdir: line)",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git", ".git", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"symlink named .git",
     G_ON,
     SBX_SUP_OP_CREATE,
     "symlinkat",
     TN("/ws/.git", ".git", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"mknod .git",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mknodat",
     TN("/ws/.git", ".git", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"by identity: a dirfd alias of /ws",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/proc/self/fd/3/.git", ".git", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"casefold: .GIT is .git",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     {.path = "/ws/.GIT", .name = ".GIT", .dev = 1, .ino = INO_WS, .casefold = true},
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"no casefold: .GIT is another name",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/.GIT", ".GIT", INO_WS),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "protected names checked"},
    {"same name, another directory",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/src/.git", ".git", INO_SRC),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "protected names"},
    {"mkdir on the way (.claude)",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.claude", ".claude", INO_WS),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.claude/settings.json (the agent's settings, absent at launch; write them "
     "outside the sandbox): a directory on the way"},
    {"a file where the way goes (.claude)",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.claude", ".claude", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.claude/settings.json"},
    {"a symlink where the way goes",
     G_ON,
     SBX_SUP_OP_CREATE,
     "symlink",
     TN("/ws/.claude", ".claude", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.claude/settings.json"},
    {"the final name in the new directory",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.claude/settings.json", "settings.json", INO_CLAUDE),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.claude/settings.json"},
    {"another name in the new directory",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.claude/notes.md", "notes.md", INO_CLAUDE),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "protected names checked"},
    {"rename onto .git", G_ON, SBX_SUP_OP_RENAME, "renameat2", TF("/ws/tmp", "tmp", INO_WS),
     TN("/ws/.git", ".git", INO_WS), 0, 0, SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"rename a directory onto .claude", G_ON, SBX_SUP_OP_RENAME, "rename",
     T("/ws/src/d", "d", INO_SRC, true, true), TN("/ws/.claude", ".claude", INO_WS), 0, 0,
     SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY, "protected: /ws/.claude/settings.json"},
    {"link onto .git", G_ON, SBX_SUP_OP_CREATE, "linkat", TF("/ws/src/x", "x", INO_SRC),
     TN("/ws/.git", ".git", INO_WS), 0, 0, SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"rename the directory on the way away", G_ON, SBX_SUP_OP_RENAME, "renameat",
     T("/ws/.claude", ".claude", INO_WS, true, true), TN("/ws/old", "old", INO_WS), 0, 0,
     SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY, "protected: /ws/.claude/settings.json"},
    {"delete .git made outside",
     G_ON,
     SBX_SUP_OP_DELETE,
     "unlinkat",
     T("/ws/.git", ".git", INO_WS, true, true),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"read the directory on the way",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     T("/ws/.claude", ".claude", INO_WS, true, true),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "hide globs checked"},
    {"a protected name is denied to a narrower caller too",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/.git", ".git", INO_WS),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git"},
    {"narrower: mkdir on the way cannot be performed",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/.claude", ".claude", INO_WS),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "narrower caller"},
    {"narrower: any creation while names are protected",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/x.c", "x.c", INO_SRC),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git is watched and this caller, narrower than the worker"},
    {"narrower: a creation beside a protected name names it",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/x", "x", INO_WS),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "can write beside it; a sub-sandbox can only create files while protected names are "
     "watched with --restrict"},
    {"narrower, every guard out of its reach: a creation is its own bounds' to decide",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/x.c", "x.c", INO_SRC),
     {},
     true,
     0,
     SBX_SUP_CONTINUE,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: /ws write allow",
     .out_of_reach = true},
    {"narrower, out of reach: an overwrite and a rename's new name too", G_ON, SBX_SUP_OP_RENAME,
     "renameat2", TF("/ws/src/a.c", "a.c", INO_SRC), TN("/ws/src/b.c", "b.c", INO_SRC), true, 0,
     SBX_SUP_CONTINUE, 0, SBX_SUP_BY_POLICY, "", .out_of_reach = true},
    {"narrower, out of reach: a protected name it names is still denied",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/.git", ".git", INO_WS),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.git (git's control surface",
     .out_of_reach = true},
    {"narrower, out of reach: mkdir on the way still cannot be performed",
     G_ON,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/.claude", ".claude", INO_WS),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "narrower caller",
     .out_of_reach = true},
    {"the worker's own call: out of reach means nothing, it is performed",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/x.c", "x.c", INO_SRC),
     {},
     false,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "supervised: protected names checked",
     .out_of_reach = true},
    {"narrower: a delete is no creation",
     G_ON,
     SBX_SUP_OP_DELETE,
     "unlinkat",
     TF("/tmp/x", "x", INO_OTHER),
     {},
     true,
     0,
     SBX_SUP_CONTINUE,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: / delete allow"},
    {"narrower: no protection, only approvals",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/x.c", "x.c", INO_SRC),
     {},
     true,
     0,
     SBX_SUP_CONTINUE,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: /ws write allow"},
    /* an ask is decided on the path sbx sees, and the kernel resolves it again for a
     * narrower caller (a racing thread, a symlink): never asked, never CONTINUEd */
    {"narrower: an ask is denied",
     G_OFF,
     SBX_SUP_OP_OVERWRITE,
     "openat",
     TF("/ws/src/a.c", "a.c", INO_SRC),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "approvals: /ws overwrite ask: a sub-sandbox or a process with its own seccomp filter "
     "cannot be performed for; run it without its own filter, or give the mount approvals "
     "allow"},
    {"narrower: an append where write asks",
     G_OFF,
     SBX_SUP_OP_WRITE,
     "openat",
     TF("/ws/asked/build/s", "s", INO_BUILD),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "approvals: /ws/asked write ask: a sub-sandbox"},
    {"narrower: an ask at a rename's new name", G_OFF, SBX_SUP_OP_RENAME, "renameat",
     TF("/tmp/a", "a", INO_OTHER), TN("/ws/asked/b", "b", INO_OTHER), true, 0, SBX_SUP_DENY, EACCES,
     SBX_SUP_BY_POLICY, "approvals: /ws/asked write ask: a sub-sandbox"},
    {"narrower: an ask at a rename's old name", G_OFF, SBX_SUP_OP_RENAME, "renameat",
     TF("/ws/asked/a", "a", INO_OTHER), TN("/tmp/b", "b", INO_OTHER), true, 0, SBX_SUP_DENY, EACCES,
     SBX_SUP_BY_POLICY, "approvals: /ws/asked rename ask: a sub-sandbox"},
    {"narrower: a deny is still denied",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/locked/x", "x", INO_OTHER),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "approvals: /ws/locked write deny"},

    /* 2. metadata outside the writable areas (the landlock backend) */
    {"chmod a read-only file",
     G_ON,
     SBX_SUP_OP_METADATA,
     "fchmodat",
     TF("/usr/bin/ls", "ls", INO_OTHER),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "read-only: /usr/bin/ls (the landlock backend)"},
    {"setxattr in a read-only area inside",
     G_ON,
     SBX_SUP_OP_METADATA,
     "setxattr",
     TF("/data/x.py", "x.py", INO_DATA),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "read-only: /data/x.py"},
    {"chown in the workspace",
     G_ON,
     SBX_SUP_OP_METADATA,
     "fchownat",
     TF("/ws/src/a.c", "a.c", INO_SRC),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "read-only areas checked"},
    {"narrower: metadata is a protection",
     G_OFF,
     SBX_SUP_OP_METADATA,
     "utimensat",
     TF("/ws/src/a.c", "a.c", INO_SRC),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "read-only areas hold only"},
    {"chmod the directory on the way (any op but mkdir and read)",
     G_ON,
     SBX_SUP_OP_METADATA,
     "fchmodat",
     T("/ws/.claude", ".claude", INO_WS, true, true),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "protected: /ws/.claude/settings.json"},

    /* 3. reading: hide globs for files made later, read caps */
    {"a hidden file made after launch",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TF("/ws/app/.env", ".env", INO_OTHER),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "hide: /ws/**/.env"},
    {"a hidden name at the top",
     G_ON,
     SBX_SUP_OP_READ,
     "open",
     TF("/ws/.env", ".env", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "hide: /ws/**/.env"},
    {"a file beside it",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TF("/ws/app/main.c", "main.c", 61),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "hide globs checked"},
    {"narrower: reading under hide globs",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TF("/ws/app/main.c", "main.c", 61),
     {},
     true,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "hide globs hold only"},
    {"suffix allowed",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TS("/data/x.py", "x.py", INO_DATA, 10),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "checked"},
    {"suffix refused",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TS("/data/x.bin", "x.bin", INO_DATA, 10),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "read caps: /data suffixes (/data/x.bin does not end with .py, ...)"},
    {"suffix is the name's ending, not the path's",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TS("/data/a.py/x", "x", 51, 10),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "read caps: /data suffixes"},
    {"a directory is never capped",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     T("/data/sub", "sub", INO_DATA, true, true),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     ""},
    {"max_file_bytes: at the cap",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TS("/data/ok.txt", "ok.txt", INO_DATA, 1000),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     ""},
    {"max_file_bytes: over it",
     G_ON,
     SBX_SUP_OP_READ,
     "openat",
     TS("/data/big.txt", "big.txt", INO_DATA, 1001),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "read caps: /data max_file_bytes 1000 (/data/big.txt has 1001)"},

    /* 4. approvals */
    {"write allowed, guards in play",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/new.c", "new.c", INO_SRC),
     {},
     0,
     0,
     SBX_SUP_PERFORM,
     0,
     SBX_SUP_BY_POLICY,
     "protected names checked"},
    {"write allowed, nothing else: the kernel's bounds",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/new.c", "new.c", INO_SRC),
     {},
     0,
     0,
     SBX_SUP_CONTINUE,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: /ws write allow"},
    {"overwrite asks",
     G_OFF,
     SBX_SUP_OP_OVERWRITE,
     "openat",
     TF("/ws/src/a.c", "a.c", INO_SRC),
     {},
     0,
     0,
     SBX_SUP_ASK,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: /ws overwrite ask",
     SBX_AC_OVERWRITE},
    {"delete asks",
     G_OFF,
     SBX_SUP_OP_DELETE,
     "unlinkat",
     TF("/ws/build/a.o", "a.o", INO_BUILD),
     {},
     0,
     0,
     SBX_SUP_ASK,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: /ws delete ask",
     SBX_AC_DELETE},
    {"the longest area wins: deny",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/locked/d", "d", INO_OTHER),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "approvals: /ws/locked write deny"},
    {"a sibling with the same prefix is another area",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "mkdir",
     TN("/ws/lockedx/d", "d", INO_OTHER),
     {},
     0,
     0,
     SBX_SUP_CONTINUE,
     0,
     SBX_SUP_BY_POLICY,
     "approvals: /ws write allow"},
    {"rename allowed (no overwrite)", G_OFF, SBX_SUP_OP_RENAME, "rename", TF("/ws/a", "a", INO_WS),
     TN("/ws/b", "b", INO_WS), 0, 0, SBX_SUP_CONTINUE, 0, SBX_SUP_BY_POLICY,
     "approvals: /ws write allow"},
    {"editor's save: one overwrite", G_OFF, SBX_SUP_OP_RENAME, "rename",
     TF("/ws/.a.txt.swp", ".a.txt.swp", INO_WS), TF("/ws/a.txt", "a.txt", INO_WS), 0, 0,
     SBX_SUP_ASK, 0, SBX_SUP_BY_POLICY, "approvals: /ws overwrite ask", SBX_AC_OVERWRITE},
    {"rename into a denied area", G_OFF, SBX_SUP_OP_RENAME, "renameat2", TF("/ws/a", "a", INO_WS),
     TN("/ws/locked/a", "a", INO_OTHER), 0, 0, SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY,
     "approvals: /ws/locked write deny"},
    {"rename out of a denied area", G_OFF, SBX_SUP_OP_RENAME, "renameat2",
     TF("/ws/locked/a", "a", INO_OTHER), TN("/ws/a", "a", INO_WS), 0, 0, SBX_SUP_DENY, EACCES,
     SBX_SUP_BY_POLICY, "approvals: /ws/locked rename deny"},
    {"rename where both sides ask", G_OFF, SBX_SUP_OP_RENAME, "renameat2",
     TF("/ws/asked/a", "a", INO_OTHER), TF("/ws/asked/b", "b", INO_OTHER), 0, 0, SBX_SUP_ASK, 0,
     SBX_SUP_BY_POLICY, "approvals: /ws/asked overwrite ask; /ws/asked rename ask",
     SBX_AC_OVERWRITE},
    {"link onto an existing name is an overwrite", G_OFF, SBX_SUP_OP_OVERWRITE, "linkat",
     TF("/ws/x", "x", INO_WS), TF("/ws/y", "y", INO_WS), 0, 0, SBX_SUP_ASK, 0, SBX_SUP_BY_POLICY,
     "overwrite ask", SBX_AC_OVERWRITE},
    /* a link's source is a side of its own: write in its own area */
    {"link: the source's area asks", G_OFF, SBX_SUP_OP_CREATE, "linkat",
     TF("/ws/asked/precious", "precious", INO_OTHER), TN("/ws/p", "p", INO_WS), 0, 0, SBX_SUP_ASK,
     0, SBX_SUP_BY_POLICY, "approvals: /ws/asked write ask", SBX_AC_WRITE},
    {"link: the source's area denies", G_OFF, SBX_SUP_OP_CREATE, "linkat",
     TF("/ws/locked/f", "f", INO_OTHER), TN("/ws/p", "p", INO_WS), 0, 0, SBX_SUP_DENY, EACCES,
     SBX_SUP_BY_POLICY, "approvals: /ws/locked write deny"},
    /* an exchange replaces and moves both names */
    {.what = "exchange: the old name is replaced too",
     .guards = G_OFF,
     .op = SBX_SUP_OP_RENAME,
     .call = "renameat2",
     .t = TF("/ws/a", "a", INO_WS),
     .t2 = TF("/tmp/b", "b", INO_OTHER),
     .answer = SBX_SUP_ASK,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "approvals: /ws overwrite ask",
     .asked = SBX_AC_OVERWRITE,
     .exchange = true},
    {.what = "exchange: both names are renamed",
     .guards = G_OFF,
     .op = SBX_SUP_OP_RENAME,
     .call = "renameat2",
     .t = TF("/tmp/b", "b", INO_OTHER),
     .t2 = TF("/ws/locked/a", "a", INO_OTHER),
     .answer = SBX_SUP_DENY,
     .errnum = EACCES,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "approvals: /ws/locked overwrite deny",
     .exchange = true},
    /* RENAME_NOREPLACE: the kernel refuses an existing new name, nothing is replaced */
    {.what = "noreplace onto an existing name: no overwrite",
     .guards = G_OFF,
     .op = SBX_SUP_OP_RENAME,
     .call = "renameat2",
     .t = TF("/ws/a", "a", INO_WS),
     .t2 = TF("/ws/b", "b", INO_WS),
     .answer = SBX_SUP_CONTINUE,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "approvals: /ws write allow",
     .noreplace = true},
    /* RENAME_WHITEOUT: a new entry (the whiteout) at the old name */
    {.what = "whiteout: a write at the old name",
     .guards = G_OFF,
     .op = SBX_SUP_OP_RENAME,
     .call = "renameat2",
     .t = TF("/ws/locked/a", "a", INO_OTHER),
     .t2 = TN("/tmp/b", "b", INO_OTHER),
     .answer = SBX_SUP_DENY,
     .errnum = EACCES,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "approvals: /ws/locked rename deny",
     .whiteout = true},
    /* read caps hold for every open with read access: O_RDWR too */
    {.what = "O_RDWR: suffix refused",
     .guards = G_OFF,
     .op = SBX_SUP_OP_WRITE,
     .call = "openat",
     .t = TS("/data/x.bin", "x.bin", INO_DATA, 10),
     .answer = SBX_SUP_DENY,
     .errnum = EACCES,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "read caps: /data suffixes",
     .reads = true},
    {.what = "O_RDWR|O_TRUNC: suffix refused",
     .guards = G_OFF,
     .op = SBX_SUP_OP_OVERWRITE,
     .call = "openat",
     .t = TS("/data/x.bin", "x.bin", INO_DATA, 10),
     .answer = SBX_SUP_DENY,
     .errnum = EACCES,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "read caps: /data suffixes",
     .reads = true},
    {.what = "O_RDWR: too large",
     .guards = G_OFF,
     .op = SBX_SUP_OP_WRITE,
     .call = "openat",
     .t = TS("/data/big.py", "big.py", INO_DATA, 5000),
     .answer = SBX_SUP_DENY,
     .errnum = EACCES,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "read caps: /data max_file_bytes 1000",
     .reads = true},
    {.what = "O_RDWR: within the caps, checked",
     .guards = G_OFF,
     .op = SBX_SUP_OP_WRITE,
     .call = "openat",
     .t = TS("/data/x.py", "x.py", INO_DATA, 10),
     .answer = SBX_SUP_PERFORM,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "read caps checked",
     .reads = true},
    {.what = "O_WRONLY reads nothing: no cap",
     .guards = G_OFF,
     .op = SBX_SUP_OP_WRITE,
     .call = "openat",
     .t = TS("/data/x.bin", "x.bin", INO_DATA, 10),
     .answer = SBX_SUP_CONTINUE,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "approvals: /data write allow"},
    {.what = "narrower: O_RDWR under read caps",
     .guards = G_OFF,
     .op = SBX_SUP_OP_WRITE,
     .call = "openat",
     .t = TS("/data/x.py", "x.py", INO_DATA, 10),
     .narrower = true,
     .answer = SBX_SUP_DENY,
     .errnum = EACCES,
     .decider = SBX_SUP_BY_POLICY,
     .rule = "read caps hold only",
     .reads = true},
    {"under / only",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/tmp/x", "x", INO_OTHER),
     {},
     0,
     0,
     SBX_SUP_CONTINUE,
     0,
     SBX_SUP_BY_POLICY,
     "/ write"},

    /* fail closed */
    {"unresolved: no path",
     G_ON,
     SBX_SUP_OP_CREATE,
     "openat",
     {.name = "x"},
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "unresolved"},
    {"unresolved: a relative path",
     G_OFF,
     SBX_SUP_OP_CREATE,
     "openat",
     TN("x", "x", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "unresolved"},
    {"unresolved: a rename without its new name",
     G_OFF,
     SBX_SUP_OP_RENAME,
     "rename",
     TF("/ws/a", "a", INO_WS),
     {},
     0,
     0,
     SBX_SUP_DENY,
     EACCES,
     SBX_SUP_BY_POLICY,
     "unresolved"},
};

static void check_verdict(const char *what, const struct sbx_sup_verdict *v,
                          enum sbx_sup_answer answer, int errnum, enum sbx_sup_decider decider,
                          const char *rule)
{
	if (v->answer != answer || v->errnum != errnum || v->decider != decider ||
	    !strstr(v->rule, rule)) {
		print_error("%s: answer %d errno %d decider %s rule \"%s\"; want %d %d %s \"%s\"\n",
		            what, v->answer, v->errnum, sbx_sup_decider_name(v->decider), v->rule,
		            answer, errnum, sbx_sup_decider_name(decider), rule);
		fail();
	}
}

static void test_decide_table(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_guards guards;

	(void)state;
	world(&plan, &guards);
	for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
		const struct dcase *c = &dcases[i];
		struct sbx_sup_req req = {.op = c->op,
		                          .call = c->call,
		                          .t = c->t,
		                          .t2 = c->t2,
		                          .narrower = c->narrower,
		                          .guards_out_of_reach = c->out_of_reach,
		                          .reads = c->reads,
		                          .exchange = c->exchange,
		                          .noreplace = c->noreplace,
		                          .whiteout = c->whiteout,
		                          .pid = 42,
		                          .comm = "sh",
		                          .now_ms = 1000};
		struct sbx_sup_verdict v;

		sbx_sup_decide(&plan, c->guards == G_ON ? &guards : NULL, NULL, &req, &v);
		check_verdict(c->what, &v, c->answer, c->errnum, c->decider, c->rule);
		if (c->answer == SBX_SUP_ASK && v.asked != c->asked) {
			print_error("%s: asked %s, want %s\n", c->what,
			            sbx_approval_class_name(v.asked),
			            sbx_approval_class_name(c->asked));
			fail();
		}
		/* the properties every verdict keeps */
		assert_true(strlen(v.rule) < SBX_SUP_RULE_MAX);
		if (c->narrower)
			assert_int_not_equal(v.answer, SBX_SUP_PERFORM);
		assert_true(v.answer == SBX_SUP_DENY ? v.errnum > 0 : v.errnum == 0);
	}
	sbx_sup_guards_clear(&guards);
	sbx_sup_plan_clear(&plan);
}

/* ---- hide_later: the globs hold for files made after launch ---- */

static const char *const view_of_b_env[] = {"/ws/b/.env"}; /* /view/x shows /ws/b/.env */

static const struct hcase {
	const char *what;
	bool later; /* the plan's hide_later */
	enum sbx_sup_op op;
	struct sbx_sup_target t, t2;
	bool narrower, reads, exchange;
	enum sbx_sup_answer answer;
	const char *rule;
	const char *call; /* NULL: renameat2 */
} hcases[] = {
    {"made later, read",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/b/.env", ".env", 71),
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "hide: /ws/**/.env (matches /ws/b/.env)"},
    {"given back by unhide",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/app/.env", ".env", 72),
     {},
     0,
     0,
     0,
     SBX_SUP_PERFORM,
     "hide globs checked"},
    {"a policy's glob is never given back",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/keys/id_rsa", "id_rsa", 73),
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "hide: /ws/**/id_rsa"},
    {"beneath a hidden folder",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/a/.ssh/config", "config", 74),
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "hide: /ws/**/.ssh (matches /ws/a/.ssh)"},
    {"at another view of the same file",
     true,
     SBX_SUP_OP_READ,
     {.path = "/view/x",
      .name = "x",
      .dev = 1,
      .ino = 75,
      .exists = true,
      .views = view_of_b_env,
      .n_views = 1},
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "matches /ws/b/.env"},
    {"read and write (O_RDWR)",
     true,
     SBX_SUP_OP_WRITE,
     TF("/ws/b/.env", ".env", 71),
     {},
     0,
     true,
     0,
     SBX_SUP_DENY,
     "hide: /ws/**/.env"},
    {"moved away from its name", true, SBX_SUP_OP_RENAME, TF("/ws/b/.env", ".env", 71),
     TN("/ws/b/x", "x", 71), 0, 0, 0, SBX_SUP_DENY, "not moved or linked"},
    {"linked to another name", true, SBX_SUP_OP_CREATE, TF("/ws/b/.env", ".env", 71),
     TN("/ws/b/y", "y", 71), 0, 0, 0, SBX_SUP_DENY, "not moved or linked"},
    {"its folder moved: the name still hides it", true, SBX_SUP_OP_RENAME,
     T("/ws/b", "b", INO_WS, true, true), TN("/ws/c", "c", INO_WS), 0, 0, 0, SBX_SUP_PERFORM,
     "hide globs checked"},
    {"moved onto a hidden name", true, SBX_SUP_OP_RENAME, TF("/ws/b/x", "x", 71),
     TF("/ws/b/.env", ".env", 71), 0, 0, 0, SBX_SUP_DENY, "a hidden name is not made"},
    {"linked to a hidden name", true, SBX_SUP_OP_CREATE, TF("/ws/b/x", "x", 71),
     TN("/ws/b/.env", ".env", 71), 0, 0, 0, SBX_SUP_DENY, "a hidden name is not made"},
    {"a hidden name made (open O_CREAT, mkfifo, symlink)",
     true,
     SBX_SUP_OP_CREATE,
     TN("/ws/b/.env", ".env", 71),
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "a hidden name is not made"},
    {"a name beside it made",
     true,
     SBX_SUP_OP_CREATE,
     TN("/ws/b/.envrc", ".envrc", 71),
     {},
     0,
     0,
     0,
     SBX_SUP_PERFORM,
     "hide globs checked"},
    {"a folder above an exact path moved", true, SBX_SUP_OP_RENAME,
     T("/ws/conf", "conf", INO_WS, true, true), TN("/ws/c2", "c2", INO_WS), 0, 0, 0, SBX_SUP_DENY,
     "a folder that holds an exact path to hide is not moved"},
    {"a symlink on the way to an exact path",
     true,
     SBX_SUP_OP_CREATE,
     TN("/ws/conf", "conf", INO_WS),
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "not made a symbolic link",
     "symlinkat"},
    {"a folder on the way to an exact path",
     true,
     SBX_SUP_OP_CREATE,
     T("/ws/conf", "conf", INO_WS, false, true),
     {},
     0,
     0,
     0,
     SBX_SUP_PERFORM,
     "hide globs checked",
     "mkdirat"},
    {"a symlink moved onto the way", true, SBX_SUP_OP_RENAME, TF("/ws/l", "l", INO_WS),
     TN("/ws/conf", "conf", INO_WS), 0, 0, 0, SBX_SUP_DENY, "nothing is moved or linked"},
    {"a folder moved onto the way", true, SBX_SUP_OP_RENAME, T("/ws/y", "y", INO_WS, true, true),
     TN("/ws/conf", "conf", INO_WS), 0, 0, 0, SBX_SUP_DENY, "nothing is moved or linked"},
    {"a folder swapped with one on the way", true, SBX_SUP_OP_RENAME,
     T("/ws/z", "z", INO_WS, true, true), T("/ws/conf", "conf", INO_WS, true, true), 0, 0, true,
     SBX_SUP_DENY, "hide: an exact path to hide"},
    {"more views than the listener holds",
     true,
     SBX_SUP_OP_READ,
     {.path = "/ws/b/main.c",
      .name = "main.c",
      .dev = 1,
      .ino = 78,
      .exists = true,
      .views_lost = true},
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "fail closed"},
    {"exchanged with a hidden name", true, SBX_SUP_OP_RENAME, TF("/ws/b/x", "x", 71),
     TF("/ws/b/.env", ".env", 71), 0, 0, true, SBX_SUP_DENY, "hide: /ws/**/.env"},
    {"narrower: reads cannot be performed for",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/b/main.c", "main.c", 76),
     {},
     true,
     0,
     0,
     SBX_SUP_DENY,
     "hide globs hold only"},
    {"narrower: renames neither", true, SBX_SUP_OP_RENAME, TF("/ws/b/x", "x", 71),
     TN("/ws/b/z", "z", 71), true, 0, 0, SBX_SUP_DENY, "hide globs hold only"},
    {"an exact path, absent at launch",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/conf/token", "token", 77),
     {},
     0,
     0,
     0,
     SBX_SUP_DENY,
     "hide: an exact path to hide (matches /ws/conf/token)"},
    {"beside an exact path",
     true,
     SBX_SUP_OP_READ,
     TF("/ws/conf/tokens", "tokens", 77),
     {},
     0,
     0,
     0,
     SBX_SUP_PERFORM,
     "hide globs checked"},
    {"without hide_later a move is the kernel's", false, SBX_SUP_OP_RENAME,
     TF("/ws/b/.env", ".env", 71), TN("/ws/b/x", "x", 71), 0, 0, 0, SBX_SUP_CONTINUE,
     "approvals: /ws write allow"},
};

static void test_hide_later_table(void **state)
{
	static const char *const globs[] = {"/ws/**/.env", "/ws/**/.ssh", "/ws/**/id_rsa"};
	static const bool firm[] = {false, false, true};
	static const char *const unhide[] = {"/ws/app/.env", "/ws/keys/id_rsa"};
	struct sbx_sup_plan plan;

	(void)state;
	memset(&plan, 0, sizeof(plan));
	plan.enabled = true;
	add_area(&plan, "/", false, ALLOW, ALLOW, ALLOW, ALLOW);
	add_area(&plan, "/ws", true, ALLOW, ALLOW, ALLOW, ALLOW);
	plan.hide_globs = calloc(3, sizeof(char *));
	plan.hide_firm = calloc(3, sizeof(bool));
	plan.unhide = calloc(2, sizeof(char *));
	assert_true(plan.hide_globs && plan.hide_firm && plan.unhide);
	for (size_t i = 0; i < 3; i++) {
		plan.hide_globs[i] = xstrdup(globs[i]);
		plan.hide_firm[i] = firm[i];
	}
	plan.n_hide_globs = 3;
	for (size_t i = 0; i < 2; i++)
		plan.unhide[i] = xstrdup(unhide[i]);
	plan.n_unhide = 2;
	plan.hide_exact = calloc(2, sizeof(char *));
	assert_non_null(plan.hide_exact);
	plan.hide_exact[0] = xstrdup("/ws/a/b");
	plan.hide_exact[1] = xstrdup("/ws/conf/token"); /* sorted */
	plan.n_hide_exact = 2;
	for (size_t i = 0; i < sizeof(hcases) / sizeof(hcases[0]); i++) {
		const struct hcase *c = &hcases[i];
		struct sbx_sup_req req = {.op = c->op,
		                          .call = c->call ? c->call : "renameat2",
		                          .t = c->t,
		                          .t2 = c->t2,
		                          .narrower = c->narrower,
		                          .reads = c->reads,
		                          .exchange = c->exchange,
		                          .pid = 42,
		                          .comm = "sh",
		                          .now_ms = 1000};
		struct sbx_sup_verdict v;

		plan.hide_later = c->later;
		plan.families = c->later ? SBX_SUP_F_READ | SBX_SUP_F_CREATE : 0;
		sbx_sup_decide(&plan, NULL, NULL, &req, &v);
		check_verdict(c->what, &v, c->answer, c->answer == SBX_SUP_DENY ? EACCES : 0,
		              SBX_SUP_BY_POLICY, c->rule);
	}
	sbx_sup_plan_clear(&plan);
}

/* A narrower caller is never performed for and never asked for: every row turned narrower
 * gives CONTINUE or DENY. */
static void test_narrower_never_performed(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_guards guards;

	(void)state;
	world(&plan, &guards);
	for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
		struct sbx_sup_req req = {.op = dcases[i].op,
		                          .call = dcases[i].call,
		                          .t = dcases[i].t,
		                          .t2 = dcases[i].t2,
		                          .narrower = true,
		                          .reads = dcases[i].reads,
		                          .exchange = dcases[i].exchange,
		                          .noreplace = dcases[i].noreplace,
		                          .whiteout = dcases[i].whiteout,
		                          .comm = "sh",
		                          .now_ms = 5};
		struct sbx_sup_verdict v, wide;

		for (int with_guards = 0; with_guards < 2; with_guards++) {
			sbx_sup_decide(&plan, with_guards ? &guards : NULL, NULL, &req, &v);
			assert_int_not_equal(v.answer, SBX_SUP_PERFORM);
			assert_int_not_equal(v.answer, SBX_SUP_ASK);
			/* and never more than the worker would get */
			req.narrower = false;
			sbx_sup_decide(&plan, with_guards ? &guards : NULL, NULL, &req, &wide);
			req.narrower = true;
			if (wide.answer == SBX_SUP_DENY)
				assert_int_equal(v.answer, SBX_SUP_DENY);
		}
	}
	sbx_sup_guards_clear(&guards);
	sbx_sup_plan_clear(&plan);
}

/* ---- protect_git: no new .git where the host keeps it ---- */

static void add_place(struct sbx_sup_plan *p, const char *target, bool kept)
{
	p->places = realloc(p->places, (p->n_places + 1) * sizeof(*p->places));
	assert_non_null(p->places);
	p->places[p->n_places++] = (struct sbx_sup_place){xstrdup(target), kept};
}

static const struct gcase {
	const char *what;
	enum sbx_sup_op op;
	const char *call;
	struct sbx_sup_target t, t2;
	bool refused;     /* by the .git rule (DENY EACCES, "protected: ...") */
	const char *rule; /* refused: a substring of the rule */
	bool exchange, noreplace, narrower, own_ns, casefold, private_fs, git_other;
} gcases[] = {
    {"mkdir of a repository's .git",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/b/.git", ".git", 70),
     {},
     true,
     "protected: /ws/b/.git (a new git repository where the host keeps files"},
    {"a .git file (gitdir: line)",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/b/.git", ".git", 70),
     {},
     true,
     "make it under /tmp"},
    {"a symbolic link .git",
     SBX_SUP_OP_CREATE,
     "symlinkat",
     TN("/ws/.git", ".git", INO_WS),
     {},
     true,
     "/ws/.git"},
    {"a unix socket's bind",
     SBX_SUP_OP_CREATE,
     "bind",
     TN("/ws/.git", ".git", INO_WS),
     {},
     true,
     "/ws/.git"},
    {"in any case",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.GiT", ".GiT", INO_WS),
     {},
     true,
     "/ws/.GiT"},
    {"trailing dots and spaces (vfat drops them)",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.git. .", ".git. .", INO_WS),
     {},
     true,
     "/ws/.git. ."},
    {"folding: a byte outside ASCII left out",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.g\xe2\x80\x8dit", ".g\xe2\x80\x8dit", INO_WS),
     {},
     true,
     "protected",
     false,
     false,
     false,
     false,
     true},
    {"not folding: another name",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.g\xe2\x80\x8dit", ".g\xe2\x80\x8dit", INO_WS),
     {},
     false},
    {"deep in the workspace",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/a/b/c/.git", ".git", 71),
     {},
     true,
     "/ws/a/b/c/.git"},
    {"a folder renamed to .git", SBX_SUP_OP_RENAME, "renameat2", TF("/ws/d/x", "x", 72),
     TN("/ws/d/.git", ".git", 72), true, "/ws/d/.git"},
    {"a hard link named .git", SBX_SUP_OP_CREATE, "linkat", TF("/ws/f", "f", INO_WS),
     TN("/ws/d/.git", ".git", 72), true, "/ws/d/.git"},
    {"renamed over an existing .git", SBX_SUP_OP_RENAME, "renameat2", TF("/ws/d/x", "x", 72),
     TF("/ws/.git", ".git", INO_WS), true, "/ws/.git"},
    {"an exchange with a .git", SBX_SUP_OP_RENAME, "renameat2", TF("/ws/v/.git", ".git", 73),
     TF("/ws/y", "y", INO_WS), true, "/ws/v/.git", true},
    {"renamed onto an existing .git without replacing: EEXIST", SBX_SUP_OP_RENAME, "renameat2",
     TF("/ws/d/x", "x", 72), TF("/ws/.git", ".git", INO_WS), false, NULL, false, true},
    {"mkdir -p through an existing .git: EEXIST",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TF("/ws/.git", ".git", INO_WS),
     {},
     false},
    {"a .git moved away", SBX_SUP_OP_RENAME, "renameat2", TF("/ws/v/.git", ".git", 73),
     TN("/ws/v/old", "old", 73), false},
    {"on a tmpfs sbx made (/tmp, home)",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/tmp/r/.git", ".git", 74),
     {},
     false,
     NULL,
     false,
     false,
     false,
     false,
     false,
     true},
    {"its path alone decides nothing: a tmpfs's path renamed away, a host folder made there",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/node_modules/.git", ".git", 75),
     {},
     true,
     "/ws/node_modules/.git"},
    {"a read-only mount (refused first)",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ro/.git", ".git", 77),
     {},
     true,
     "/ro/.git"},
    {"other names",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.gitignore", ".gitignore", INO_WS),
     {},
     false},
    {"a name with .git inside",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/x.git", "x.git", INO_WS),
     {},
     false},
    {".gi", SBX_SUP_OP_CREATE, "openat", TN("/ws/.gi", ".gi", INO_WS), {}, false},
    {"read", SBX_SUP_OP_READ, "openat", TF("/ws/.git", ".git", INO_WS), {}, false},
    /* a bare repository's shape: HEAD (with objects/ and refs/) */
    {"HEAD in a folder (a bare repository git finds)",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/HEAD", "HEAD", 78),
     {},
     true,
     "protected: /ws/src/HEAD"},
    {"HEAD at the top of a fresh project",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/HEAD", "HEAD", INO_WS),
     {},
     true,
     "/ws/HEAD"},
    {"HEAD as a symbolic link",
     SBX_SUP_OP_CREATE,
     "symlinkat",
     TN("/ws/src/HEAD", "HEAD", 78),
     {},
     true,
     "/ws/src/HEAD"},
    {"HEAD renamed into place", SBX_SUP_OP_RENAME, "renameat2", TF("/ws/src/h", "h", 78),
     TN("/ws/src/HEAD", "HEAD", 78), true, "/ws/src/HEAD"},
    {"HEAD with a trailing dot",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/HEAD.", "HEAD.", 78),
     {},
     true,
     "HEAD."},
    {"a new submodule's git dir",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/modules/x/HEAD", "HEAD", 79),
     {},
     true,
     "/ws/.git/modules/x/HEAD"},
    {"a submodule named refs",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/modules/refs/HEAD", "HEAD", 80),
     {},
     true,
     "/ws/.git/modules/refs/HEAD"},
    {"a new worktree's git dir",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/worktrees/w/HEAD", "HEAD", 81),
     {},
     true,
     "/ws/.git/worktrees/w/HEAD"},
    {"git's HEAD.lock onto HEAD", SBX_SUP_OP_RENAME, "renameat2",
     TF("/ws/.git/HEAD.lock", "HEAD.lock", 82), TF("/ws/.git/HEAD", "HEAD", 82), false},
    {"a remote's HEAD in refs",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/refs/remotes/origin/HEAD", "HEAD", 83),
     {},
     false},
    {"logs/HEAD", SBX_SUP_OP_CREATE, "openat", TN("/ws/.git/logs/HEAD", "HEAD", 84), {}, false},
    {"head in a folder that does not fold",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/head", "head", 78),
     {},
     false},
    {"head in a folder that folds",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/src/head", "head", 78),
     {},
     true,
     "head",
     false,
     false,
     false,
     false,
     true},
    {"ORIG_HEAD, FETCH_HEAD",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/ORIG_HEAD", "ORIG_HEAD", 82),
     {},
     false},
    {"HEAD in the private /tmp",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/tmp/r/HEAD", "HEAD", 74),
     {},
     false,
     NULL,
     false,
     false,
     false,
     false,
     false,
     true},
    {"HEAD inside a .git, out of modules/ and worktrees/",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/rebase-merge/HEAD", "HEAD", 85),
     {},
     false},
    /* into modules/ and worktrees/ of a .git: nothing but a file moved or linked */
    {"a folder moved into modules/ (a HEAD somewhere beneath it)", SBX_SUP_OP_RENAME, "renameat2",
     TD("/ws/.git/refs/remotes", "remotes", 86), TN("/ws/.git/modules/m", "m", 87), true,
     "/ws/.git/modules/m"},
    {"a folder moved as modules/ itself", SBX_SUP_OP_RENAME, "renameat2",
     TD("/ws/.git/logs", "logs", 82), TN("/ws/.git/modules", "modules", 82), true,
     "/ws/.git/modules"},
    {"a folder moved into worktrees/", SBX_SUP_OP_RENAME, "renameat2",
     TD("/ws/.git/logs", "logs", 82), TN("/ws/.git/worktrees/w", "w", 88), true,
     "/ws/.git/worktrees/w"},
    {"a symbolic link made in modules/",
     SBX_SUP_OP_CREATE,
     "symlinkat",
     TN("/ws/.git/modules/x", "x", 87),
     {},
     true,
     "/ws/.git/modules/x"},
    {"a hard link of a symbolic link into modules/", SBX_SUP_OP_CREATE, "linkat",
     TL("/ws/.git/refs/l", "l", 89), TN("/ws/.git/modules/x", "x", 87), true, "/ws/.git/modules/x"},
    {"git's lock file onto a submodule's index", SBX_SUP_OP_RENAME, "renameat2",
     TR("/ws/.git/modules/a/index.lock", "index.lock", 90),
     TR("/ws/.git/modules/a/index", "index", 90), false},
    {"a folder made in modules/",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.git/modules/x", "x", 87),
     {},
     false},
    {"a folder moved within a submodule's git dir... still into modules/", SBX_SUP_OP_RENAME,
     "renameat2", TD("/ws/.git/modules/a/x", "x", 90), TN("/ws/.git/modules/a/y", "y", 90), true,
     "/ws/.git/modules/a/y"},
    {"a folder moved elsewhere in a .git", SBX_SUP_OP_RENAME, "renameat2",
     TD("/ws/.git/refs/x", "x", 91), TN("/ws/.git/refs/y", "y", 91), false},
    {"an exchange with a folder in worktrees/", SBX_SUP_OP_RENAME, "renameat2",
     TR("/ws/.git/worktrees/w/f", "f", 92), TD("/ws/.git/refs/d", "d", 91), true,
     "/ws/.git/worktrees/w/f", true},
    /* what would complete a git dir where a HEAD (or objects/) already is */
    {"objects/ beside a HEAD (.git/logs: a link from the workspace would reach it)",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/.git/logs/objects", "objects", 93),
     {},
     true,
     "/ws/.git/logs/objects",
     false,
     false,
     false,
     false,
     false,
     false,
     true},
    {"commondir beside a HEAD",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/refs/remotes/origin/commondir", "commondir", 94),
     {},
     true,
     "commondir",
     false,
     false,
     false,
     false,
     false,
     false,
     true},
    {"objects/ moved beside a HEAD", SBX_SUP_OP_RENAME, "renameat2",
     TD("/ws/.git/x/objects", "objects", 95), TN("/ws/.git/logs/objects", "objects", 93), true,
     "/ws/.git/logs/objects", false, false, false, false, false, false, true},
    {"a HEAD beside objects/, even inside a .git",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/.git/logs/x/HEAD", "HEAD", 96),
     {},
     true,
     "/ws/.git/logs/x/HEAD",
     false,
     false,
     false,
     false,
     false,
     false,
     true},
    {"objects/ where no HEAD is",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/src/objects", "objects", 78),
     {},
     false},
    {"objects/ beside a HEAD in the private /tmp",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/tmp/r/objects", "objects", 74),
     {},
     false,
     NULL,
     false,
     false,
     false,
     false,
     false,
     true,
     true},
    /* callers sbx cannot perform for */
    {"a narrower process of the worker's: nothing made",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/plain", "plain", INO_WS),
     {},
     true,
     "narrower than the worker",
     false,
     false,
     true},
    {"a narrower one in a private tmpfs too (its path is read again)",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/tmp/plain", "plain", 74),
     {},
     true,
     "narrower",
     false,
     false,
     true,
     false,
     false,
     true},
    {"a sub-sandbox: .git by name",
     SBX_SUP_OP_CREATE,
     "mkdirat",
     TN("/ws/b/.git", ".git", 70),
     {},
     true,
     "a new git repository",
     false,
     false,
     true,
     true},
    {"a sub-sandbox: another name, as the protected names decide",
     SBX_SUP_OP_CREATE,
     "openat",
     TN("/ws/plain", "plain", INO_WS),
     {},
     false,
     NULL,
     false,
     false,
     true,
     true},
};

static void test_no_new_git(void **state)
{
	struct sbx_sup_plan plan;

	(void)state;
	memset(&plan, 0, sizeof(plan));
	plan.enabled = true;
	add_area(&plan, "/ws", true, ALLOW, ALLOW, ALLOW, ALLOW);
	add_place(&plan, "/ws", true);
	add_place(&plan, "/ws/tmp", false);
	add_place(&plan, "/ws/tmp/kept", true);
	add_place(&plan, "/ro", false);
	for (int on = 0; on < 2; on++) {
		plan.no_new_git = on;
		for (size_t i = 0; i < sizeof(gcases) / sizeof(gcases[0]); i++) {
			const struct gcase *c = &gcases[i];
			struct sbx_sup_req req = {.op = c->op,
			                          .call = c->call,
			                          .t = c->t,
			                          .t2 = c->t2,
			                          .exchange = c->exchange,
			                          .noreplace = c->noreplace,
			                          .narrower = c->narrower,
			                          .own_namespaces = c->own_ns,
			                          .comm = "sh",
			                          .now_ms = 1};
			struct sbx_sup_verdict v;
			bool refused;

			req.t.casefold = req.t2.casefold = c->casefold;
			req.t.private_fs = req.t2.private_fs = c->private_fs;
			req.t.git_other = req.t2.git_other = c->git_other;
			sbx_sup_decide(&plan, NULL, NULL, &req, &v);
			refused = v.answer == SBX_SUP_DENY && strstr(v.rule, "protected") != NULL;
			if (refused != (on && c->refused) || (refused && v.errnum != EACCES) ||
			    (refused && c->rule && !strstr(v.rule, c->rule))) {
				print_error("%s (rule %s): answer %d errno %d rule \"%s\"\n",
				            c->what, on ? "on" : "off", v.answer, v.errnum, v.rule);
				fail();
			}
		}
	}
	/* sbx check's view: by the plan's mounts */
	plan.no_new_git = true;
	assert_true(sbx_sup_no_new_git_at(&plan, "/ws/b/.git"));
	assert_true(sbx_sup_no_new_git_at(&plan, "/ws/src/HEAD"));
	assert_true(sbx_sup_no_new_git_at(&plan, "/ws/tmp/kept/.git"));
	assert_false(sbx_sup_no_new_git_at(&plan, "/ws/tmp/x/.git"));
	assert_false(sbx_sup_no_new_git_at(&plan, "/ws/.git/refs/remotes/o/HEAD"));
	assert_false(sbx_sup_no_new_git_at(&plan, "/ws/.gitx"));
	assert_false(sbx_sup_no_new_git_at(&plan, "/.git"));
	plan.no_new_git = false;
	assert_false(sbx_sup_no_new_git_at(&plan, "/ws/b/.git"));
	sbx_sup_plan_clear(&plan);
}

/* An approval that is not a value we know denies (fail closed). */
static void test_unknown_approval_denies(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_req req = {
	    .op = SBX_SUP_OP_CREATE, .call = "openat", .t = TN("/ws/x", "x", INO_WS), .comm = "sh"};
	struct sbx_sup_verdict v;

	(void)state;
	world(&plan, NULL);
	plan.areas[1].approvals.op[SBX_AC_WRITE] = (enum sbx_approval)7;
	sbx_sup_decide(&plan, NULL, NULL, &req, &v);
	assert_int_equal(v.answer, SBX_SUP_DENY);
	sbx_sup_plan_clear(&plan);
}

/* A rule is whole for a protected name of an ordinary length (before: cut at 256 bytes,
 * mid-word: "...watched wi"); longer, it is cut at a word and ends in "…", and is still a
 * string that fits. */
static void test_rule_long_path(void **state)
{
	static const struct {
		size_t len; /* the protected path's length */
		bool whole; /* the rule ends as written */
	} cases[] = {{60, true}, {300, true}, {800, false}, {2000, false}};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_sup_plan plan;
		struct sbx_sup_guards guards;
		struct sbx_sup_req req = {.op = SBX_SUP_OP_CREATE,
		                          .call = "mkdir",
		                          .t = TN("/ws/x", "x", INO_WS),
		                          .narrower = true,
		                          .comm = "sh"};
		struct sbx_sup_verdict v;
		char *path = malloc(cases[i].len + 1);
		size_t n;

		assert_non_null(path);
		memset(path, 'd', cases[i].len);
		memcpy(path, "/home/someone/projects/", 23);
		memcpy(path + cases[i].len - 5, "/.git", 5);
		path[cases[i].len] = 0;
		world(&plan, &guards);
		free(plan.protected_paths[P_GIT].path);
		plan.protected_paths[P_GIT].path = path;
		sbx_sup_decide(&plan, &guards, NULL, &req, &v);
		assert_int_equal(v.answer, SBX_SUP_DENY);
		n = strlen(v.rule);
		assert_true(n < SBX_SUP_RULE_MAX);
		if (cases[i].whole) {
			assert_non_null(strstr(v.rule, path));
			assert_true(n > 10 && strcmp(v.rule + n - 10, "holds none") == 0);
		} else {
			assert_true(n > 3 && strcmp(v.rule + n - 3, "\xe2\x80\xa6") == 0);
			/* a word's end: neither a space nor a cut character before the mark */
			assert_true(v.rule[n - 4] != ' ' &&
			            ((unsigned char)v.rule[n - 4] & 0x80) == 0);
		}
		sbx_sup_guards_clear(&guards);
		sbx_sup_plan_clear(&plan);
	}
}

/* ---- names and areas ---- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sbx_sup_op_name(SBX_SUP_OP_CREATE), "create");
	assert_string_equal(sbx_sup_op_name(SBX_SUP_OP_READ), "read");
	assert_string_equal(sbx_sup_op_name(SBX_SUP_OP_COUNT), "unknown");
	assert_string_equal(sbx_sup_decider_name(SBX_SUP_BY_RATE_LIMIT), "rate_limit");
	assert_string_equal(sbx_sup_decider_name(SBX_SUP_BY_PERSON), "person");
	assert_string_equal(sbx_approval_name(SBX_APPROVE_ASK), "ask");
	assert_string_equal(sbx_approval_class_name(SBX_AC_RENAME), "rename");
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_CREATE), SBX_AC_WRITE);
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_WRITE), SBX_AC_WRITE);
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_OVERWRITE), SBX_AC_OVERWRITE);
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_DELETE), SBX_AC_DELETE);
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_RENAME), SBX_AC_RENAME);
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_METADATA), SBX_AC_COUNT);
	assert_int_equal(sbx_sup_op_class(SBX_SUP_OP_READ), SBX_AC_COUNT);
	for (int op = 0; op < SBX_SUP_OP_COUNT; op++)
		assert_string_not_equal(sbx_sup_op_name(op), "unknown");
}

static void test_area_for(void **state)
{
	struct sbx_sup_plan plan;
	static const struct {
		const char *path, *target;
	} cases[] = {
	    {"/ws", "/ws"},
	    {"/ws/", "/ws"},
	    {"/ws/a/b", "/ws"},
	    {"/ws/locked", "/ws/locked"},
	    {"/ws/locked/x", "/ws/locked"},
	    {"/ws/lockedx", "/ws"},
	    {"/wsx", "/"},
	    {"/", "/"},
	};

	(void)state;
	world(&plan, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sbx_sup_area *a = sbx_sup_area_for(&plan, cases[i].path);

		assert_non_null(a);
		assert_string_equal(a->target, cases[i].target);
	}
	assert_null(sbx_sup_area_for(&plan, NULL));
	plan.n_areas = 2; /* "/" and "/ws" */
	assert_string_equal(sbx_sup_area_for(&plan, "/ws/locked/x")->target, "/ws");
	plan.n_areas = 5;
	sbx_sup_plan_clear(&plan);
}

/* ---- scopes ---- */

static void test_scope(void **state)
{
	struct sbx_sup_plan plan;
	static const struct {
		enum sbx_sup_op op;
		const char *path, *path2;
		bool t2_exists;
		const char *scope;
	} cases[] = {
	    {SBX_SUP_OP_DELETE, "/ws/build/a/b.o", NULL, 0, "/ws/build"},
	    {SBX_SUP_OP_DELETE, "/ws/build", NULL, 0, "/ws/build"},
	    {SBX_SUP_OP_OVERWRITE, "/ws/file.txt", NULL, 0, "/ws/file.txt"},
	    {SBX_SUP_OP_METADATA, "/ws", NULL, 0, "/ws"},
	    {SBX_SUP_OP_DELETE, "/ws/locked/x/y", NULL, 0, "/ws/locked/x"},
	    {SBX_SUP_OP_CREATE, "/etc/x/y", NULL, 0, "/etc"},
	    {SBX_SUP_OP_CREATE, "/", NULL, 0, "/"},
	    /* a rename: the side that asks (the overwrite at the new name, in /ws) */
	    {SBX_SUP_OP_RENAME, "/ws/.a.swp", "/ws/src/a.txt", true, "/ws/src"},
	    /* a rename that does not ask: its first side, the new name */
	    {SBX_SUP_OP_RENAME, "/ws/a/b", "/ws/c/d", false, "/ws/c"},
	    /* a rename out of an asking area into an allowing one: the rename side */
	    {SBX_SUP_OP_RENAME, "/ws/asked/x/y", "/ws/c", false, "/ws/asked/x"},
	    /* sides that ask in different scopes: their common ancestor */
	    {SBX_SUP_OP_RENAME, "/ws/asked/a/x", "/ws/asked/b/x", true, "/ws/asked"},
	    {SBX_SUP_OP_RENAME, "/ws/asked/ab/x", "/ws/asked/a/x", true, "/ws/asked"},
	    {SBX_SUP_OP_RENAME, "/ws/asked/a/x", "/ws/asked/a/y", true, "/ws/asked/a"},
	    {SBX_SUP_OP_RENAME, "/ws/asked/a", "/ws/x", true, "/ws"},
	    {SBX_SUP_OP_RENAME, "/ws/asked/a", "/etc/x", true, "/ws/asked/a"},
	    {SBX_SUP_OP_RENAME, "/ws/asked/a/x", "/ws/asked", true, "/ws/asked"},
	};
	char out[SBX_SUP_SCOPE_MAX];

	(void)state;
	world(&plan, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_sup_req req = {
		    .op = cases[i].op,
		    .t = {.path = cases[i].path, .exists = true},
		    .t2 = {.path = cases[i].path2, .exists = cases[i].t2_exists}};

		assert_int_equal(sbx_sup_scope(&plan, &req, out, sizeof(out)), 0);
		assert_string_equal(out, cases[i].scope);
	}
	{
		struct sbx_sup_req req = {.op = SBX_SUP_OP_DELETE, .t = {.path = "/ws/build/x"}};

		assert_int_equal(sbx_sup_scope(&plan, &req, out, 9), -ENAMETOOLONG);
		assert_int_equal(sbx_sup_scope(&plan, &req, out, 10), 0);
		req.t.path = NULL;
		assert_int_equal(sbx_sup_scope(&plan, &req, out, sizeof(out)), -EINVAL);
		req.t.path = "build/x";
		assert_int_equal(sbx_sup_scope(&plan, &req, out, sizeof(out)), -EINVAL);
	}
	sbx_sup_plan_clear(&plan);
}

/* ---- the session ---- */

static struct sbx_sup_req del(const char *path, const char *comm, uint64_t now)
{
	struct sbx_sup_req r = {.op = SBX_SUP_OP_DELETE,
	                        .call = "unlinkat",
	                        .t = {.path = path, .dev = 1, .ino = INO_BUILD, .exists = true},
	                        .pid = 7,
	                        .comm = comm,
	                        .now_ms = now};
	const char *slash = strrchr(path, '/');

	r.t.name = slash + 1;
	return r;
}

static struct sbx_sup_verdict decide(const struct sbx_sup_plan *plan,
                                     const struct sbx_sup_session *s, const struct sbx_sup_req *req)
{
	struct sbx_sup_verdict v;

	sbx_sup_decide(plan, NULL, s, req, &v);
	return v;
}

static void test_session_once(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = del("/ws/build/a.o", "rm", 1000);
	struct sbx_sup_verdict v;
	const struct sbx_sup_grant *g;

	(void)state;
	world(&plan, NULL);
	v = decide(&plan, &s, &r);
	assert_int_equal(v.answer, SBX_SUP_ASK);
	assert_true(sbx_sup_session_admit(&s, r.now_ms));
	assert_int_equal(s.pending, 1);
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(s.pending, 0);
	assert_int_equal(s.n_asked, 1);
	assert_int_equal(s.n_allowed, 1);
	assert_int_equal(s.n_grants, 1);
	assert_string_equal(s.grants[0].scope, "/ws/build");
	assert_int_equal(s.grants[0].cls, SBX_AC_DELETE);

	/* decided again: the grant's */
	v = decide(&plan, &s, &r);
	check_verdict("asked call, again", &v, SBX_SUP_PERFORM, 0, SBX_SUP_BY_GRANT,
	              "approvals: /ws delete ask, granted for this batch for /ws/build");
	assert_int_equal(v.asked, SBX_AC_DELETE);

	/* the batch goes on: the same command in the same subtree, within the idle window */
	r = del("/ws/build/sub/b.o", "rm", 2500);
	v = decide(&plan, &s, &r);
	assert_int_equal(v.decider, SBX_SUP_BY_GRANT);
	g = sbx_sup_session_find(&s, &plan, &r, true);
	assert_non_null(g);
	assert_int_equal(g->uses, 2);
	assert_int_equal(g->last_ms, 2500);
	/* the window is counted from the last call it covered */
	r = del("/ws/build/c.o", "rm", 2500 + SBX_SUP_BATCH_IDLE_MS);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	/* not marked used: decide does not change the session */
	assert_int_equal(g->uses, 2);

	/* exactly as narrow as the request: another command, subtree or class asks again */
	r = del("/ws/build/c.o", "make", 3000);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	r = del("/ws/src/c.o", "rm", 3000);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	r = del("/ws/build/c.o", "rm", 3000);
	r.op = SBX_SUP_OP_OVERWRITE;
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	/* the subtree's root itself is in it; a sibling with its name as a prefix is not */
	r = del("/ws/build", "rm", 3000);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	r = del("/ws/buildx/a", "rm", 3000);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);

	/* the batch ended: a pause longer than the idle window */
	r = del("/ws/build/d.o", "rm", 2500 + SBX_SUP_BATCH_IDLE_MS + 1);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	assert_null(sbx_sup_session_find(&s, &plan, &r, true));

	/* a narrower caller with a grant: denied, never PERFORMed nor CONTINUEd (the kernel
	 * would resolve the path again, after the check) */
	r = del("/ws/build/e.o", "rm", 3000);
	r.narrower = true;
	v = decide(&plan, &s, &r);
	check_verdict("narrower with a grant", &v, SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY,
	              "approvals: /ws delete ask: a sub-sandbox or a process with its own seccomp "
	              "filter cannot be performed for");

	sbx_sup_session_clear(&s);
	assert_int_equal(s.n_grants, 0);
	sbx_sup_plan_clear(&plan);
}

static void test_session_grant(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = del("/ws/build/a.o", "rm", 1000);

	(void)state;
	world(&plan, NULL);
	assert_true(sbx_sup_session_admit(&s, 1000));
	assert_int_equal(
	    sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_SESSION, NULL), 0);
	/* any command, any time later, the same subtree and class */
	r = del("/ws/build/x/y.o", "make", 1000 + 3600 * 1000);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_PERFORM);
	/* and no wider */
	r = del("/ws/src/y.o", "make", 5000);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	r = del("/ws/build/y.o", "make", 5000);
	r.op = SBX_SUP_OP_OVERWRITE;
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	sbx_sup_session_clear(&s);
	sbx_sup_plan_clear(&plan);
}

static void test_session_denial(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = del("/ws/build/a.o", "rm", 1000);
	struct sbx_sup_verdict v;

	(void)state;
	world(&plan, NULL);
	assert_true(sbx_sup_session_admit(&s, 1000));
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, false, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(s.n_denied, 1);
	/* the refused batch is not asked again for each file */
	r = del("/ws/build/b.o", "rm", 1500);
	v = decide(&plan, &s, &r);
	check_verdict("remembered denial", &v, SBX_SUP_DENY, EACCES, SBX_SUP_BY_GRANT,
	              "refused for this batch for /ws/build");
	/* a later answer for the same scope and class replaces it */
	assert_true(sbx_sup_session_admit(&s, 1600));
	assert_int_equal(
	    sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_SESSION, NULL), 0);
	assert_int_equal(s.n_grants, 1);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_PERFORM);
	/* a denial outranks an allowance where both cover */
	assert_true(sbx_sup_session_admit(&s, 1700));
	r.comm = "shred";
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, false, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_DENY);
	r.comm = "rm";
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_PERFORM);
	sbx_sup_session_clear(&s);
	sbx_sup_plan_clear(&plan);
}

/* A rename where both sides ask: one question, one answer for both sides. */
static void test_session_rename_both_sides(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = {.op = SBX_SUP_OP_RENAME,
	                        .call = "rename",
	                        .t = {.path = "/ws/asked/a/x", .exists = true},
	                        .t2 = {.path = "/ws/asked/b/x", .exists = true},
	                        .comm = "mv",
	                        .now_ms = 10};
	char scope[64];

	(void)state;
	world(&plan, NULL);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	assert_int_equal(sbx_sup_scope(&plan, &r, scope, sizeof(scope)), 0);
	assert_string_equal(scope, "/ws/asked"); /* both scopes: their common ancestor */
	assert_true(sbx_sup_session_admit(&s, 10));
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(s.n_grants, 2);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	/* the overwrite side alone is covered, the rename side of another subtree is not */
	r.t.path = "/ws/asked/c/x";
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);
	sbx_sup_session_clear(&s);
	sbx_sup_plan_clear(&plan);
}

/* A batch is one process's: another thread group under the granted command's name (prctl
 * PR_SET_NAME) is asked; the batch extends with each use. */
static void test_session_once_pid(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = del("/ws/build/a.o", "rm", 1000);
	struct sbx_sup_req impostor;

	(void)state;
	world(&plan, NULL);
	assert_true(sbx_sup_session_admit(&s, 1000));
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	impostor = del("/ws/build/b.o", "rm", 1500);
	impostor.pid = 8;
	assert_int_equal(decide(&plan, &s, &impostor).answer, SBX_SUP_ASK);
	assert_null(sbx_sup_session_find(&s, &plan, &impostor, true));
	/* the granted process, every 1.5 s: each use moves the window on */
	for (uint64_t t = 2500; t <= 8500; t += 1500) {
		r = del("/ws/build/c.o", "rm", t);
		assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
		assert_non_null(sbx_sup_session_find(&s, &plan, &r, true));
	}
	assert_int_equal(s.grants[0].last_ms, 8500);
	/* a remembered refusal is one process's too */
	assert_true(sbx_sup_session_admit(&s, 9000));
	r = del("/ws/src/a.o", "rm", 9000);
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, false, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	impostor = del("/ws/src/b.o", "rm", 9100);
	impostor.pid = 8;
	assert_int_equal(decide(&plan, &s, &impostor).answer, SBX_SUP_ASK);
	r.now_ms = 9100;
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_DENY);
	sbx_sup_session_clear(&s);
	sbx_sup_plan_clear(&plan);
}

/* A grant for one scope does not reach another through a link or an exchange. */
static void test_session_grant_sides(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = {.op = SBX_SUP_OP_CREATE,
	                        .call = "openat",
	                        .t = TN("/ws/asked/build/x", "x", INO_BUILD),
	                        .pid = 7,
	                        .comm = "sh",
	                        .now_ms = 10};
	struct sbx_sup_verdict v;
	static const enum sbx_approval_class classes[] = {SBX_AC_WRITE, SBX_AC_OVERWRITE,
	                                                  SBX_AC_DELETE, SBX_AC_RENAME};
	static const enum sbx_sup_op ops[] = {SBX_SUP_OP_CREATE, SBX_SUP_OP_OVERWRITE,
	                                      SBX_SUP_OP_DELETE, SBX_SUP_OP_RENAME};

	(void)state;
	world(&plan, NULL);
	/* /ws/asked: every class asks but overwrite (so an exchange's old sin, "overwrite" at
	 * the other name, was allowed) */
	plan.areas[3].approvals.op[SBX_AC_OVERWRITE] = SBX_APPROVE_ALLOW;
	/* a session grant of every class for /ws/asked/build */
	for (size_t i = 0; i < 4; i++) {
		struct sbx_sup_req g = r;

		(void)classes[i];
		g.op = ops[i];
		g.t.exists = ops[i] != SBX_SUP_OP_CREATE;
		if (ops[i] == SBX_SUP_OP_RENAME)
			g.t2 = (struct sbx_sup_target)TN("/ws/asked/build/y", "y", INO_BUILD);
		assert_true(sbx_sup_session_admit(&s, 10));
		assert_int_equal(
		    sbx_sup_session_record(&s, &plan, &g, true, SBX_SUP_REMEMBER_SESSION, NULL), 0);
	}
	v = decide(&plan, &s, &r);
	assert_int_equal(v.answer, SBX_SUP_PERFORM);

	/* a hard link of precious into build: the source's scope is not granted */
	r.t = (struct sbx_sup_target)TF("/ws/asked/precious", "precious", INO_OTHER);
	r.t2 = (struct sbx_sup_target)TN("/ws/asked/build/p", "p", INO_BUILD);
	r.call = "linkat";
	v = decide(&plan, &s, &r);
	check_verdict("link of precious into build", &v, SBX_SUP_ASK, 0, SBX_SUP_BY_POLICY,
	              "approvals: /ws/asked write ask");
	/* the question names both scopes' common ancestor, not the granted one */
	{
		char scope[64];

		assert_int_equal(sbx_sup_scope(&plan, &r, scope, sizeof(scope)), 0);
		assert_string_equal(scope, "/ws/asked");
	}
	/* refused: the refusal is remembered for precious, not for build, which stays granted */
	assert_true(sbx_sup_session_admit(&s, 10));
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, false, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_DENY);
	/* a link within build: granted */
	r.t = (struct sbx_sup_target)TF("/ws/asked/build/q", "q", INO_BUILD);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_PERFORM);

	/* an exchange of build/a and precious, either way round */
	r.op = SBX_SUP_OP_RENAME;
	r.call = "renameat2";
	r.exchange = true;
	r.t = (struct sbx_sup_target)TF("/ws/asked/build/a", "a", INO_BUILD);
	r.t2 = (struct sbx_sup_target)TF("/ws/asked/precious", "precious", INO_OTHER);
	v = decide(&plan, &s, &r);
	check_verdict("exchange build/a, precious", &v, SBX_SUP_ASK, 0, SBX_SUP_BY_POLICY,
	              "approvals: /ws/asked rename ask");
	r.t = (struct sbx_sup_target)TF("/ws/asked/precious", "precious", INO_OTHER);
	r.t2 = (struct sbx_sup_target)TF("/ws/asked/build/a", "a", INO_BUILD);
	v = decide(&plan, &s, &r);
	check_verdict("exchange precious, build/a", &v, SBX_SUP_ASK, 0, SBX_SUP_BY_POLICY,
	              "approvals: /ws/asked rename ask");
	/* within build: granted */
	r.t = (struct sbx_sup_target)TF("/ws/asked/build/b", "b", INO_BUILD);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	/* an answer to the exchange grants both scopes it asked for, nothing else */
	r.t = (struct sbx_sup_target)TF("/ws/asked/precious", "precious", INO_OTHER);
	assert_true(sbx_sup_session_admit(&s, 20));
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(decide(&plan, &s, &r).decider, SBX_SUP_BY_GRANT);
	r.exchange = false;
	r.op = SBX_SUP_OP_DELETE;
	r.t2 = (struct sbx_sup_target){0};
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_ASK);

	/* a whiteout at the old name: a write there, beside the rename */
	plan.areas[3].approvals.op[SBX_AC_RENAME] = SBX_APPROVE_ALLOW;
	r.op = SBX_SUP_OP_RENAME;
	r.t = (struct sbx_sup_target)TF("/ws/asked/other/a", "a", INO_OTHER);
	r.t2 = (struct sbx_sup_target)TN("/tmp/a", "a", INO_OTHER);
	assert_int_equal(decide(&plan, &s, &r).answer, SBX_SUP_CONTINUE);
	r.whiteout = true;
	v = decide(&plan, &s, &r);
	check_verdict("whiteout", &v, SBX_SUP_ASK, 0, SBX_SUP_BY_POLICY,
	              "approvals: /ws/asked write ask");
	sbx_sup_session_clear(&s);
	sbx_sup_plan_clear(&plan);
}

/* Hide globs hold for an O_RDWR open where the read family is on. */
static void test_reads_hide(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_req r = {.op = SBX_SUP_OP_WRITE,
	                        .call = "openat",
	                        .t = TF("/ws/app/.env", ".env", 61),
	                        .reads = true,
	                        .comm = "sh"};
	struct sbx_sup_verdict v;

	(void)state;
	world(&plan, NULL);
	sbx_sup_decide(&plan, NULL, NULL, &r, &v);
	assert_int_equal(v.answer, SBX_SUP_CONTINUE); /* the read family is off: not hidden */
	plan.families = SBX_SUP_F_READ | SBX_SUP_F_WRITE;
	sbx_sup_decide(&plan, NULL, NULL, &r, &v);
	check_verdict("O_RDWR .env", &v, SBX_SUP_DENY, EACCES, SBX_SUP_BY_POLICY,
	              "hide: /ws/**/.env");
	r.reads = false; /* O_WRONLY */
	sbx_sup_decide(&plan, NULL, NULL, &r, &v);
	assert_int_equal(v.answer, SBX_SUP_CONTINUE);
	sbx_sup_plan_clear(&plan);
}

static void test_session_limits(void **state)
{
	struct sbx_sup_plan plan;
	struct sbx_sup_session s = {0};
	struct sbx_sup_req r = del("/ws/build/a.o", "rm", 0);
	uint64_t t = 1000;
	unsigned admitted = 0;

	(void)state;
	world(&plan, NULL);
	/* the pending cap */
	for (int i = 0; i < SBX_SUP_PENDING_MAX; i++)
		assert_true(sbx_sup_session_admit(&s, t));
	assert_false(sbx_sup_session_admit(&s, t));
	assert_int_equal(s.pending, SBX_SUP_PENDING_MAX);
	/* an answer (a timeout is one: a denial) releases one */
	r.now_ms = t;
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, false, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_true(sbx_sup_session_admit(&s, t));
	sbx_sup_session_clear(&s);

	/* the rate limit: at most SBX_SUP_RATE_PER_MIN a minute, then again */
	for (int i = 0; i < 1000; i++) {
		if (sbx_sup_session_admit(&s, t + (uint64_t)i)) {
			admitted++;
			s.pending = 0;
		}
	}
	assert_int_equal(admitted, SBX_SUP_RATE_PER_MIN);
	assert_false(sbx_sup_session_admit(&s, t + 59999));
	assert_true(sbx_sup_session_admit(&s, t + 60000));
	assert_int_equal(s.n_asked, SBX_SUP_RATE_PER_MIN + 1);
	sbx_sup_session_clear(&s);

	/* the grants' cap: ended batches make room, live ones do not */
	for (int i = 0; i < SBX_SUP_GRANTS_MAX; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/ws/d%d/x", i);
		r = del(path, "rm", 100);
		assert_int_equal(
		    sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, NULL), 0);
	}
	r = del("/ws/last/x", "rm", 100);
	{
		struct sbx_error err = {0};

		assert_int_equal(
		    sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, &err),
		    -ENOSPC);
		assert_non_null(strstr(err.msg, "too many approvals"));
	}
	r.now_ms = 100 + SBX_SUP_BATCH_IDLE_MS + 1;
	assert_int_equal(sbx_sup_session_record(&s, &plan, &r, true, SBX_SUP_REMEMBER_ONCE, NULL),
	                 0);
	assert_int_equal(s.n_grants, 1);
	sbx_sup_session_clear(&s);
	sbx_sup_plan_clear(&plan);
}

/* ---- the broker's JSON ---- */

static void test_ask_json(void **state)
{
	struct sbx_sup_req req = {.op = SBX_SUP_OP_DELETE,
	                          .call = "unlinkat",
	                          .t = {.path = "/ws/build/\x1b]0;evil\x07\"quoted\"\\\xff"},
	                          .pid = 1234,
	                          .comm = "rm",
	                          .now_ms = 1};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_ASK, .asked = SBX_AC_DELETE};
	char *const cmdline[] = {"rm", "-rf", "build\nx", NULL};
	struct sbx_sup_ask ask = {.id = 18446744073709551615u,
	                          .sandbox_id = "0123456789abcdef0123456789abcdef",
	                          .label = NULL,
	                          .req = &req,
	                          .verdict = &v,
	                          .scope = "/ws/build",
	                          .host_path = "/home/u/p/build/x",
	                          .cmdline = cmdline,
	                          .deadline_ms = 1790000000000u};
	char buf[2048], val[512];
	size_t n;

	(void)state;
	snprintf(v.rule, sizeof(v.rule), "approvals: /ws delete ask");
	n = sbx_sup_ask_json(buf, sizeof(buf), &ask);
	assert_int_equal(n, strlen(buf));
	assert_null(strchr(buf, '\n'));
	assert_true(json_valid(buf));
	assert_true(json_get(buf, "v", val, sizeof(val)));
	assert_string_equal(val, "1");
	assert_true(json_get(buf, "type", val, sizeof(val)));
	assert_string_equal(val, "approval");
	assert_true(json_get(buf, "id", val, sizeof(val)));
	assert_string_equal(val, "18446744073709551615");
	assert_true(json_get(buf, "label", val, sizeof(val)));
	assert_string_equal(val, "null");
	assert_true(json_get(buf, "path2", val, sizeof(val)));
	assert_string_equal(val, "null");
	assert_true(json_get(buf, "op", val, sizeof(val)));
	assert_string_equal(val, "delete");
	assert_true(json_get(buf, "class", val, sizeof(val)));
	assert_string_equal(val, "delete");
	assert_true(json_get(buf, "path", val, sizeof(val)));
	/* the control bytes escaped and back, the bad byte replaced */
	assert_string_equal(val, "/ws/build/\x1b]0;evil\x07\"quoted\"\\\xef\xbf\xbd");
	assert_true(json_get(buf, "cmdline", val, sizeof(val)));
	assert_string_equal(val, "[\"rm\",\"-rf\",\"build\\nx\"]");
	assert_true(json_get(buf, "pid", val, sizeof(val)));
	assert_string_equal(val, "1234");
	assert_true(json_get(buf, "deadline_ms", val, sizeof(val)));
	assert_string_equal(val, "1790000000000");
	assert_true(json_get(buf, "scope", val, sizeof(val)));
	assert_string_equal(val, "/ws/build");
	assert_true(json_get(buf, "rule", val, sizeof(val)));
	assert_string_equal(val, "approvals: /ws delete ask");
	/* the bad byte's name kept whole beside it, and no exchange */
	assert_true(json_get(buf, "path_hex", val, sizeof(val)));
	assert_non_null(strstr(val, "ff"));
	assert_true(json_get(buf, "exchange", val, sizeof(val)));
	assert_string_equal(val, "false");
	req.exchange = true;
	assert_true(sbx_sup_ask_json(val, sizeof(val), &ask) < sizeof(val));
	assert_non_null(strstr(val, "\"exchange\":true"));
	req.exchange = false;

	/* snprintf's contract: the length needed, a prefix written */
	assert_int_equal(sbx_sup_ask_json(NULL, 0, &ask), n);
	assert_int_equal(sbx_sup_ask_json(val, 10, &ask), n);
	assert_int_equal(strlen(val), 9);
	assert_memory_equal(val, buf, 9);
	assert_int_equal(sbx_sup_ask_json(val, 0, &ask), n);
	for (size_t size = 1; size <= n + 1; size++) {
		char *small = malloc(size);

		assert_non_null(small);
		assert_int_equal(sbx_sup_ask_json(small, size, &ask), n);
		/* a prefix, never with half an escape */
		assert_true(strlen(small) <= size - 1);
		assert_memory_equal(small, buf, strlen(small));
		if (size > n)
			assert_string_equal(small, buf);
		free(small);
	}
	/* no cmdline: an empty array */
	ask.cmdline = NULL;
	ask.label = "task-7";
	sbx_sup_ask_json(buf, sizeof(buf), &ask);
	assert_true(json_valid(buf));
	assert_true(json_get(buf, "cmdline", val, sizeof(val)));
	assert_string_equal(val, "[]");
	assert_true(json_get(buf, "label", val, sizeof(val)));
	assert_string_equal(val, "task-7");
}

static const struct acase {
	const char *line;
	int ret;
	bool allow;
	enum sbx_sup_remember remember;
	const char *reason;
} acases[] = {
    {"{\"v\":1,\"id\":7,\"allow\":true}", 0, true, SBX_SUP_REMEMBER_ONCE, ""},
    {"{\"v\":1,\"id\":7,\"allow\":false}", 0, false, SBX_SUP_REMEMBER_ONCE, ""},
    {" {\"id\":7 , \"allow\" : true,\"v\":1,\"remember\":\"session\"}\r\n", 0, true,
     SBX_SUP_REMEMBER_SESSION, ""},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"remember\":\"once\",\"reason\":\"ok by \\u00e9ric\"}", 0,
     true, SBX_SUP_REMEMBER_ONCE, "ok by \xc3\xa9ric"},
    /* a reason is escaped for text */
    {"{\"v\":1,\"id\":7,\"allow\":false,\"reason\":\"no\\u001b]0;x\\u0007\\n\"}", 0, false,
     SBX_SUP_REMEMBER_ONCE, "no\\x1b]0;x\\x07\\x0a"},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\\ud83d\\udd11\"}", 0, true,
     SBX_SUP_REMEMBER_ONCE, "\xf0\x9f\x94\x91"},
    /* unknown keys with scalar values are ignored */
    {"{\"v\":1,\"x\":null,\"y\":-1.5e3,\"z\":\"s\",\"w\":false,\"id\":7,\"allow\":true}", 0, true,
     SBX_SUP_REMEMBER_ONCE, ""},

    /* hostile or malformed: a deny */
    {"", -EINVAL},
    {"{}", -EINVAL},
    {"[]", -EINVAL},
    {"null", -EINVAL},
    {"{\"v\":1,\"id\":8,\"allow\":true}", -EINVAL},                       /* another request's */
    {"{\"v\":2,\"id\":7,\"allow\":true}", -EINVAL},                       /* another version */
    {"{\"id\":7,\"allow\":true}", -EINVAL},                               /* no version */
    {"{\"v\":1,\"allow\":true}", -EINVAL},                                /* no id */
    {"{\"v\":1,\"id\":7}", -EINVAL},                                      /* no answer */
    {"{\"v\":1,\"id\":7,\"allow\":\"true\"}", -EINVAL},                   /* a string */
    {"{\"v\":1,\"id\":7,\"allow\":1}", -EINVAL},                          /* a number */
    {"{\"v\":1,\"id\":\"7\",\"allow\":true}", -EINVAL},                   /* id as a string */
    {"{\"v\":1,\"id\":7.0,\"allow\":true}", -EINVAL},                     /* not an integer */
    {"{\"v\":1,\"id\":-7,\"allow\":true}", -EINVAL},                      /* signed */
    {"{\"v\":1,\"id\":07,\"allow\":true}", -EINVAL},                      /* a leading zero */
    {"{\"v\":1,\"id\":7e0,\"allow\":true}", -EINVAL},                     /* an exponent */
    {"{\"v\":1,\"id\":18446744073709551623,\"allow\":true}", -EINVAL},    /* 2^64 + 7 */
    {"{\"v\":1,\"id\":7,\"allow\":false,\"allow\":true}", -EINVAL},       /* twice */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":1,\"x\":2}", -EINVAL},       /* an unknown twice */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"\\u0061llow\":false}", -EINVAL}, /* "allow" again */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":{}}", -EINVAL},              /* nested */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":[1]}", -EINVAL},             /* an array */
    {"{\"v\":1,\"id\":7,\"allow\":true}x", -EINVAL},                      /* trailing bytes */
    {"{\"v\":1,\"id\":7,\"allow\":true}{\"v\":1}", -EINVAL},              /* two objects */
    {"{\"v\":1,\"id\":7,\"allow\":true,}", -EINVAL},                      /* a trailing comma */
    {"{\"v\":1,\"id\":7,\"allow\":true", -EINVAL},                        /* unterminated */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"abc}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"a\nb\"}", -EINVAL}, /* a raw control */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\xff\"}", -EINVAL}, /* bad UTF-8 */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\xe6\x97\"}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\\ud800\"}", -EINVAL}, /* a lone half */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\\udc00\\ud800\"}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\\u0000\"}", -EINVAL}, /* a NUL */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\\x41\"}", -EINVAL},   /* no such escape */
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":\"\\u12\"}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"reason\":7}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"remember\":\"forever\"}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"remember\":true}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":tru}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":nul}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":-}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":1.}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":.5}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":1e}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\":+1}", -EINVAL},
    {"{v:1,\"id\":7,\"allow\":true}", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,\"x\" 1}", -EINVAL},
    {"{\"v\":1;\"id\":7,\"allow\":true}", -EINVAL},
    {"\"{\\\"v\\\":1,\\\"id\\\":7,\\\"allow\\\":true}\"", -EINVAL},
    {"{\"v\":1,\"id\":7,\"allow\":true,"
     "\"a123456789012345678901234567890123456789012345678901234567890123\":1}",
     -EINVAL}, /* a key past 63 bytes */
};

static void test_answer_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(acases) / sizeof(acases[0]); i++) {
		const struct acase *c = &acases[i];
		bool allow = true;
		enum sbx_sup_remember remember = SBX_SUP_REMEMBER_SESSION;
		char reason[256] = "junk";
		int r = sbx_sup_answer_parse(c->line, 7, &allow, &remember, reason, sizeof(reason));

		if (r != c->ret) {
			print_error("case %zu: %s: got %d, want %d\n", i, c->line, r, c->ret);
			fail();
		}
		if (r < 0) {
			/* a failure is a deny, and says nothing else */
			assert_false(allow);
			assert_int_equal(remember, SBX_SUP_REMEMBER_ONCE);
			assert_string_equal(reason, "");
			continue;
		}
		assert_int_equal(allow, c->allow);
		assert_int_equal(remember, c->remember);
		assert_string_equal(reason, c->reason);
	}
}

static void test_answer_parse_bounds(void **state)
{
	char line[6000];
	char reason[8];
	bool allow;
	enum sbx_sup_remember remember;
	int n;

	(void)state;
	assert_int_equal(sbx_sup_answer_parse(NULL, 7, &allow, &remember, NULL, 0), -EINVAL);
	/* a reason longer than the caller's buffer is cut (escaped for text), not an error */
	assert_int_equal(sbx_sup_answer_parse("{\"v\":1,\"id\":7,\"allow\":true,\"reason\":"
	                                      "\"abcdefghijkl\"}",
	                                      7, &allow, &remember, reason, sizeof(reason)),
	                 0);
	assert_string_equal(reason, "abcdefg");
	assert_int_equal(sbx_sup_answer_parse("{\"v\":1,\"id\":7,\"allow\":true}", 7, &allow,
	                                      &remember, NULL, 0),
	                 0);
	assert_true(allow);
	/* 4096 bytes is the most; one more is refused however well-formed */
	n = snprintf(line, sizeof(line), "{\"v\":1,\"id\":7,\"allow\":true,\"pad\":\"");
	memset(line + n, 'a', 4096 - (size_t)n - 2);
	memcpy(line + 4096 - 2, "\"}", 3);
	assert_int_equal(strlen(line), 4096);
	assert_int_equal(sbx_sup_answer_parse(line, 7, &allow, &remember, NULL, 0), 0);
	memmove(line + n + 1, line + n, strlen(line + n) + 1);
	line[n] = 'a';
	assert_int_equal(strlen(line), 4097);
	assert_int_equal(sbx_sup_answer_parse(line, 7, &allow, &remember, NULL, 0), -EINVAL);
	assert_false(allow);
	/* at most 32 members */
	n = snprintf(line, sizeof(line), "{\"v\":1,\"id\":7,\"allow\":true");
	for (int i = 0; i < 29; i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ",\"k%d\":%d", i, i);
	snprintf(line + n, sizeof(line) - (size_t)n, "}");
	assert_int_equal(sbx_sup_answer_parse(line, 7, &allow, &remember, NULL, 0), 0);
	snprintf(line + n, sizeof(line) - (size_t)n, ",\"k99\":1}");
	assert_int_equal(sbx_sup_answer_parse(line, 7, &allow, &remember, NULL, 0), -EINVAL);
	/* deep nesting is refused at the first level, without recursion */
	memset(line, '[', 4000);
	line[4000] = '\0';
	memcpy(line, "{\"v\":", 5);
	assert_int_equal(sbx_sup_answer_parse(line, 7, &allow, &remember, NULL, 0), -EINVAL);
}

/* What the request says parses back, and an answer to it round-trips. */
static void test_json_round_trip(void **state)
{
	struct sbx_sup_req req = {.op = SBX_SUP_OP_RENAME,
	                          .call = "renameat2",
	                          .t = {.path = "/ws/a \"b\""},
	                          .t2 = {.path = "/ws/c\td"},
	                          .pid = 9,
	                          .comm = "mv"};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_ASK, .asked = SBX_AC_OVERWRITE};
	struct sbx_sup_ask ask = {.id = 42, .sandbox_id = "ab", .req = &req, .verdict = &v};
	char buf[1024], id[32], answer[128], val[64];
	bool allow = false;
	enum sbx_sup_remember remember;

	(void)state;
	sbx_sup_ask_json(buf, sizeof(buf), &ask);
	assert_true(json_valid(buf));
	assert_true(json_get(buf, "path2", val, sizeof(val)));
	assert_string_equal(val, "/ws/c\td");
	assert_true(json_get(buf, "class", val, sizeof(val)));
	assert_string_equal(val, "overwrite");
	assert_true(json_get(buf, "id", id, sizeof(id)));
	snprintf(answer, sizeof(answer),
	         "{\"v\":1,\"id\":%s,\"allow\":true,\"remember\":\"session\"}", id);
	assert_int_equal(sbx_sup_answer_parse(answer, 42, &allow, &remember, NULL, 0), 0);
	assert_true(allow);
	assert_int_equal(remember, SBX_SUP_REMEMBER_SESSION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decide_table),
	    cmocka_unit_test(test_hide_later_table),
	    cmocka_unit_test(test_narrower_never_performed),
	    cmocka_unit_test(test_no_new_git),
	    cmocka_unit_test(test_unknown_approval_denies),
	    cmocka_unit_test(test_rule_long_path),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_area_for),
	    cmocka_unit_test(test_scope),
	    cmocka_unit_test(test_session_once),
	    cmocka_unit_test(test_session_grant),
	    cmocka_unit_test(test_session_denial),
	    cmocka_unit_test(test_session_rename_both_sides),
	    cmocka_unit_test(test_session_once_pid),
	    cmocka_unit_test(test_session_grant_sides),
	    cmocka_unit_test(test_reads_hide),
	    cmocka_unit_test(test_session_limits),
	    cmocka_unit_test(test_ask_json),
	    cmocka_unit_test(test_answer_parse),
	    cmocka_unit_test(test_answer_parse_bounds),
	    cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
