/* SPDX-License-Identifier: MIT */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

/*
 * The supervisor's deciding (docs/design.md, The supervisor). Pure: the kernel side
 * (src/os/supervisor.c: the listener, the performer, the brokers) resolves what a call names
 * into a struct sbx_sup_req and asks here what to do with it.
 *
 * Who does what:
 *   the worker        its calls that a profile needs supervised stop in the kernel
 *                     (SECCOMP_RET_USER_NOTIF) and wait;
 *   sbx (host)        the listener: copies the call's arguments, asks core (this file) and,
 *                     for `ask`, a broker; answers the kernel;
 *   the performer     a sibling of the worker forked just before the listener's filter, with
 *                     exactly the worker's rights (ids, mount namespace, Landlock domain,
 *                     seccomp filter; no capability), outside that filter: it resolves the
 *                     path beneath the caller's root and performs the call on sbx's word.
 *
 * Ownership: a struct sbx_sup_plan owns every string and array it points to.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"

/* ---- approvals (SPEC 9) ---- */

enum sbx_approval {
	SBX_APPROVE_ALLOW = 0,
	SBX_APPROVE_ASK,
	SBX_APPROVE_DENY,
};

/* The operations a mount's `approvals:` names. */
enum sbx_approval_class {
	SBX_AC_WRITE = 0, /* a new file, directory or link; writing into an existing file */
	SBX_AC_OVERWRITE, /* replacing what a file holds: O_TRUNC, truncate(2), a rename or link
	                     over an existing file */
	SBX_AC_DELETE,    /* unlink, rmdir */
	SBX_AC_RENAME,    /* moving an entry away (the source of a rename) */
	SBX_AC_COUNT,
};

struct sbx_approvals {
	enum sbx_approval op[SBX_AC_COUNT];
};

/* ---- what a request is ---- */

enum sbx_sup_op {
	SBX_SUP_OP_CREATE = 0, /* a new name: open O_CREAT of an absent name, mkdir, mknod,
	                          symlink, the new name of a link or rename */
	SBX_SUP_OP_WRITE,      /* open of an existing file for writing, without truncation */
	SBX_SUP_OP_OVERWRITE,  /* O_TRUNC or truncate(2) of an existing file; a rename or link
	                          onto an existing name */
	SBX_SUP_OP_DELETE,     /* unlink, rmdir */
	SBX_SUP_OP_RENAME,     /* the old name of a rename */
	SBX_SUP_OP_METADATA,   /* chmod, chown, utimes, setxattr, removexattr families */
	SBX_SUP_OP_READ,       /* open for reading */
	SBX_SUP_OP_COUNT,
};

/* One side of a call, as the performer resolved it (in the caller's root and cwd). */
struct sbx_sup_target {
	const char *path;  /* absolute sandbox path (the worker's view), resolved; NULL: none */
	const char *name;  /* its final component */
	uint64_t dev, ino; /* identity of the directory that holds `name` */
	bool exists;       /* `name` exists there */
	bool is_dir;
	bool casefold; /* the directory compares names folded (ext4 casefold, vfat, exfat, ...) */
	uint64_t size; /* SBX_SUP_OP_READ: the file's size */
};

struct sbx_sup_req {
	enum sbx_sup_op op;
	const char *call;         /* the system call, "openat" */
	struct sbx_sup_target t;  /* the object; rename and link: the old name */
	struct sbx_sup_target t2; /* rename and link: the new name (path NULL otherwise) */
	bool narrower;            /* the caller is narrower than the worker (a sub-sandbox, or
	                             any process with a seccomp filter or mount namespace the
	                             worker does not have): the performer cannot act for it */
	int pid;                  /* the caller, in sbx's pid namespace */
	const char *comm;         /* its command name */
	uint64_t now_ms;          /* a monotonic clock, for batching, grants and rate limits */
};

/* ---- what to do with it ---- */

enum sbx_sup_answer {
	SBX_SUP_PERFORM = 0, /* the performer does the call and its result is the answer */
	SBX_SUP_CONTINUE,    /* the kernel does the call in the caller's context (only where
	                        mounts and Landlock already bound what it can reach) */
	SBX_SUP_DENY,        /* the call fails with `errnum` */
	SBX_SUP_ASK,         /* a broker decides (then PERFORM, CONTINUE or DENY as above) */
};

/* Who decided, for the audit log and sbx explain. */
enum sbx_sup_decider {
	SBX_SUP_BY_POLICY = 0, /* core, from the profile */
	SBX_SUP_BY_BROKER,     /* a broker program or socket */
	SBX_SUP_BY_PERSON,     /* a person at the terminal */
	SBX_SUP_BY_GRANT,      /* a session or batch grant given before */
	SBX_SUP_BY_TIMEOUT,
	SBX_SUP_BY_RATE_LIMIT,
	SBX_SUP_BY_NO_BROKER, /* `ask` where no broker can answer (none, or no listener) */
};

#define SBX_SUP_RULE_MAX 256

struct sbx_sup_verdict {
	enum sbx_sup_answer answer;
	int errnum; /* SBX_SUP_DENY: EACCES, EPERM, ... */
	enum sbx_sup_decider decider;
	/* What decided, in words: "protected: /ws/.git (absent at launch; run git init outside
	 * the sandbox)", "approvals: /ws write ask", "read caps: /data suffixes". */
	char rule[SBX_SUP_RULE_MAX];
	enum sbx_approval_class asked; /* SBX_SUP_ASK: which approval */
};

/* ---- the supervision plan: finished in core with the rest of the plan ---- */

/* Per mount target: what the supervisor checks beneath it (the longest target wins). */
struct sbx_sup_area {
	char *target; /* absolute sandbox path */
	bool writable;
	struct sbx_approvals approvals;
	char **suffixes; /* read caps: only names with these endings can be opened for reading */
	size_t n_suffixes;
	uint64_t max_file_bytes; /* read caps: larger files cannot be opened for reading; 0: none */
};

/* A path that does not exist at launch and must not be created (SPEC 4, issue: supervisor). */
struct sbx_sup_protected {
	char *path;      /* absolute sandbox path */
	const char *why; /* static: "git's control surface", "a read-only optional mount" */
	const char *fix; /* static: "run `git init` outside the sandbox" */
};

/* Families of calls the worker's listener filter sends to the supervisor. */
enum {
	SBX_SUP_F_CREATE = 1u << 0, /* open/openat/creat with O_CREAT, mkdir, mknod, symlink,
	                               link, rename (every *at form and the legacy entry points) */
	SBX_SUP_F_WRITE = 1u << 1,  /* open for writing without O_CREAT, truncate */
	SBX_SUP_F_DELETE = 1u << 2, /* unlink, unlinkat, rmdir */
	SBX_SUP_F_META = 1u << 3,   /* chmod, chown, utimes, xattr families (path and fd forms) */
	SBX_SUP_F_READ = 1u << 4,   /* open for reading */
};

struct sbx_sup_plan {
	bool enabled;      /* the worker gets a listener and sbx supervises */
	unsigned families; /* SBX_SUP_F_* */
	struct sbx_sup_protected *protected_paths;
	size_t n_protected;
	struct sbx_sup_area *areas;
	size_t n_areas;
	/* The landlock backend: metadata changes outside the writable areas are refused. */
	bool meta_writable_only;
	/* Hide globs that also hold for files created after launch (opens for reading). */
	char **hide_globs;
	size_t n_hide_globs;
	/* The broker, its timeout, the audit log: copied from the spec (cmd/sbx fills them). */
	char *approve;       /* "tty", "deny", "allow", "cmd:PROGRAM", "socket:PATH"; NULL: tty
	                        where the caller has a terminal, deny otherwise */
	unsigned timeout_ms; /* a broker's answer is awaited this long, then deny */
	char *audit_log;     /* NULL: none */
	char *label;         /* --label, for the audit log */
};

void sbx_sup_plan_clear(struct sbx_sup_plan *p);

/* sbx_sup_decide (helper sup-core): decide one request against the plan and the live table
 * of protected names (below); pure; never PERFORM for a narrower caller. */

/* ---- protected names, decided on the directory's identity and the final name ---- */

/*
 * The live table of (directory, name) pairs a creation must not make: each protected path's
 * nearest existing ancestor at launch and the next component on the way to it. When the
 * performer makes a directory on such a way (`.claude` of `.claude/settings.json`), the new
 * directory's identity is added with the component after it. Names compare folded where the
 * directory folds case.
 */
struct sbx_sup_guard {
	uint64_t dev, ino;
	char *name;
	size_t protected_index; /* into plan->protected_paths */
	size_t depth;           /* which component of that path `name` is (0: the first below
	                           the ancestor) */
	bool final;             /* `name` is the protected path itself */
};

struct sbx_sup_guards {
	struct sbx_sup_guard *g;
	size_t n, cap;
};

#define SBX_SUP_GUARDS_MAX 65536

int sbx_sup_guards_add(struct sbx_sup_guards *set, uint64_t dev, uint64_t ino, const char *name,
                       size_t protected_index, size_t depth, bool final, struct sbx_error *err);
/* The entry for (dev, ino, name), comparing folded when `casefold`, or NULL. */
const struct sbx_sup_guard *sbx_sup_guards_find(const struct sbx_sup_guards *set, uint64_t dev,
                                                uint64_t ino, const char *name, bool casefold);
void sbx_sup_guards_clear(struct sbx_sup_guards *set);

/* Fold a name as a case-folding directory compares it (ASCII, and the two non-ASCII letters
 * Unicode folds onto ASCII: U+017F to 's', U+212A to 'k'). Returns 0, or -ENAMETOOLONG. */
int sbx_sup_fold(const char *name, char *out, size_t size);

/*
 * ---- the session: grants, batches, rate limits (pure state; time comes in as now_ms) ----
 *
 * To be defined with the brokers: a grant (`remember: session`) is exactly as narrow as its
 * request (operation, subtree or path); a batch folds the calls of one command on one subtree
 * within a short window into one request; at most SBX_SUP_PENDING_MAX requests wait for a
 * broker at once and at most SBX_SUP_RATE_PER_MIN are asked a minute; beyond, deny.
 */
#define SBX_SUP_PENDING_MAX  16
#define SBX_SUP_RATE_PER_MIN 120
#define SBX_SUP_TIMEOUT_MS   60000u

#endif
