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
	SBX_SUP_OP_READ,       /* open for reading only */
	SBX_SUP_OP_COUNT,
};

/* One side of a call, as the performer resolved it (in the caller's root and cwd). */
struct sbx_sup_target {
	const char *path;  /* absolute sandbox path (the worker's view), resolved; NULL: none */
	const char *name;  /* its final component */
	uint64_t dev, ino; /* identity of the directory that holds `name` */
	bool exists;       /* `name` exists there */
	bool is_dir;
	bool casefold;   /* the directory compares names folded (ext4 casefold, vfat, exfat, ...) */
	unsigned ftype;  /* S_IFMT of what is at the name, where it exists; 0: unknown */
	bool git_other;  /* the directory holds what the name would complete a git dir with: HEAD
	                    (for "objects", "commondir"), objects or commondir (for "HEAD") */
	bool private_fs; /* the directory is on a tmpfs sbx made for this sandbox (its /tmp,
	                    home, --tmpfs, scaffold): gone after the run (no_new_git) */
	uint64_t size;   /* SBX_SUP_OP_READ: the file's size */
	/* Other sandbox paths at which the same host file shows (another mount of its
	 * folder, a --root over the workspace): hide globs are matched at each (may be NULL). */
	const char *const *views;
	size_t n_views;
	bool views_lost; /* more views than the listener could hold: hide globs fail closed */
};

struct sbx_sup_req {
	enum sbx_sup_op op;
	const char *call;         /* the system call, "openat" */
	struct sbx_sup_target t;  /* the object; rename and link: the old name */
	struct sbx_sup_target t2; /* rename and link: the new name (path NULL otherwise) */
	bool narrower;            /* the caller is narrower than the worker (a sub-sandbox, or
	                             any process with a seccomp filter or mount namespace the
	                             worker does not have): the performer cannot act for it */
	bool guards_out_of_reach; /* narrower only: the listener found that the caller (in
	                             namespaces of its own) cannot reach any directory that
	                             holds a protected name, so a call that names none may be
	                             CONTINUEd; false (the default) where it can, or where
	                             nobody looked: its creations are then denied */
	bool own_namespaces;      /* narrower only: in a mount or user namespace of its own (a
	                             sub-sandbox), not only under a filter of its own */
	bool reads;               /* an open with read access (O_RDONLY or O_RDWR, not O_PATH),
	                             whatever its op: read caps and hide globs hold for it */
	bool exchange;            /* renameat2 RENAME_EXCHANGE: both names are renamed */
	bool noreplace;           /* renameat2 RENAME_NOREPLACE: the new name is only made */
	bool whiteout;            /* renameat2 RENAME_WHITEOUT: a whiteout is made at the old
	                             name */
	bool excl;                /* an open with O_CREAT|O_EXCL (sbx_sup_provisional_ok) */
	bool t_provisional;       /* t names a provisional file (include/sbx/sup_pending.h):
	                             its sides ask nothing (it is asked for on its own) */
	int pid;                  /* the caller's thread group, in sbx's pid namespace */
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
	SBX_SUP_BY_CANCELLED, /* sbx was told to end (SIGTERM, SIGINT, ...) while it asked */
};

/* The longest rule sbx writes is about 330 bytes and a path: room for most paths; a longer
 * rule is cut at a word and ends in "…". */
#define SBX_SUP_RULE_MAX 1024

struct sbx_sup_verdict {
	enum sbx_sup_answer answer;
	int errnum; /* SBX_SUP_DENY: EACCES, EPERM, ... */
	enum sbx_sup_decider decider;
	/* What decided, in words: "protected: /ws/.git (absent at launch; run git init outside
	 * the sandbox)", "approvals: /ws write ask", "read caps: /data suffixes". */
	char rule[SBX_SUP_RULE_MAX];
	enum sbx_approval_class asked; /* SBX_SUP_ASK, or an answer by GRANT: which approval;
	                                  SBX_AC_COUNT otherwise */
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
	/* connect(2): the landlock backend's network allowlist, where only sbx's proxy on the
	 * host's loopback may be reached (include/sbx/netll.h); sbx connects itself */
	SBX_SUP_F_CONNECT = 1u << 5,
};

/* A mount of the plan, for the rule on new git repositories: made beneath it, is a name
 * kept by the host after the run (a writable bind of a host directory) or not (a tmpfs,
 * a read-only bind)? The longest target that covers a path wins; none: sbx's scaffold. */
struct sbx_sup_place {
	char *target; /* absolute sandbox path */
	bool kept;
};

struct sbx_sup_plan {
	bool enabled;      /* the worker gets a listener and sbx supervises */
	unsigned families; /* SBX_SUP_F_* */
	/* protect_git: no ".git" and no git dir's HEAD is made, by any call, where the host keeps
	 * it (a repository the worker makes there, or one it registers as a submodule of the
	 * workspace, would run its config and hooks at the user's next git command on the host);
	 * places: what sbx check says of a path (the supervisor goes by private_fs) */
	bool no_new_git;
	struct sbx_sup_place *places;
	size_t n_places;
	struct sbx_sup_protected *protected_paths;
	size_t n_protected;
	struct sbx_sup_area *areas;
	size_t n_areas;
	/* The landlock backend: metadata changes outside the writable areas are refused. */
	bool meta_writable_only;
	/* Hide globs (sandbox globs), decided on opens for reading where read caps put them
	 * through the supervisor, and on every open for reading, rename and link with
	 * hide_later; hide_firm[i]: a policy's, never given back by `unhide`. */
	char **hide_globs;
	bool *hide_firm;
	size_t n_hide_globs;
	char **unhide; /* what unhide: and --unhide give back */
	size_t n_unhide;
	bool hide_later; /* the spec's hide_later: the globs hold for files made after launch */
	/* hide_later: the exact paths the plan masks (hide:, a walk's matches, every view),
	 * sorted (strcmp), for the ones absent at launch that a mask could not hide */
	char **hide_exact;
	size_t n_hide_exact;
	/* The broker, its timeout, the audit log: copied from the spec (cmd/sbx fills them). */
	char *approve;       /* "tty", "deny", "allow", "cmd:PROGRAM", "socket:PATH"; NULL: tty
	                        where the caller has a terminal, deny otherwise */
	unsigned timeout_ms; /* a broker's answer is awaited this long, then deny */
	char *audit_log;     /* NULL: none */
	char *label;         /* --label, for the audit log */
};

void sbx_sup_plan_clear(struct sbx_sup_plan *p);

struct sbx_sup_guards;
struct sbx_sup_session;

/*
 * Decide one request against the plan, the live table of protected names (may be NULL) and
 * the session's grants (may be NULL). Pure. In order, the first that applies:
 *  1. a protected name (guards: t, or t2 for rename/link, names a guard whose `final` is set,
 *     or a non-final guard by any op but mkdir) -> DENY EACCES, rule "protected: PATH (WHY;
 *     FIX)"; mkdir of a non-final guard name -> PERFORM (the listener then adds the new
 *     directory's identity with the next component, sbx_sup_guards_add);
 *  1b. plan->no_new_git: a call that makes a name ".git" (any case, trailing dots and spaces
 *     ignored) or "HEAD" (but in a .git's refs/ and logs/), or renames onto a ".git", at t,
 *     or at t2 for rename and link, or that exchanges one, in a directory not on a tmpfs sbx
 *     made (!private_fs) -> DENY EACCES (rule "protected: DIR/NAME (a new git repository
 *     ...)"); a narrower caller's call that may make a name, unless it is in namespaces of
 *     its own (req->own_namespaces: then as below) -> DENY EACCES;
 *  2. SBX_SUP_OP_METADATA with plan->meta_writable_only and the target outside every writable
 *     area -> DENY EACCES (rule "read-only: PATH (the landlock backend)");
 *  3. an open with read access (SBX_SUP_OP_READ, or req->reads: O_RDWR is read too): a hide
 *     glob matching t.path -> DENY EACCES (for req->reads only where SBX_SUP_F_READ is in
 *     plan->families); read caps of the area (suffixes, max_file_bytes) -> DENY EACCES;
 *  4. the area's approval for each side's class (CREATE/WRITE -> write, OVERWRITE ->
 *     overwrite, DELETE -> delete, RENAME -> rename; the sides below): deny -> DENY EACCES;
 *     ask -> a session grant that covers it -> PERFORM by GRANT, else ASK (verdict.asked
 *     set);
 *  5. otherwise PERFORM, or CONTINUE where nothing path-dependent was decided (no guard in
 *     play, no read cap, no ask): the kernel's own bounds hold.
 * A narrower caller (req->narrower) is never PERFORMed for, and CONTINUE decides nothing for
 * a caller that can change the path between the check and the kernel's call (any process
 * of the worker can make itself "narrower": a seccomp filter of its own). So wherever the
 * decision is path-dependent (a guard in play, the metadata gap, hide globs or read caps,
 * an `ask` on any side, granted or not) it is DENY EACCES, never asked; it gets CONTINUE
 * only where nothing path-dependent was decided (a `deny` approval is a Landlock rule too,
 * which the kernel holds for it). While protected names are watched, its calls that may make
 * a name are DENIED (EACCES, rule "protected: PATH is watched and this caller can reach the
 * directory that holds it; ...") unless req->guards_out_of_reach: the listener found every
 * directory that holds a protected name out of its reach (a sub-sandbox restricted to a
 * subtree that holds none).
 *
 * In detail:
 *  - a call that only reads (READ) is not held to the non-final guards: a directory made on
 *    the way (`.claude`) must be listable; the mkdir of such a directory is PERFORMed and
 *    still subject to its area's approvals;
 *  - "a guard in play": the table is not empty and the call may make a name (CREATE, WRITE,
 *    which may carry O_CREAT, OVERWRITE, RENAME, or a new name at t2); the worker could
 *    aim it elsewhere after the check, so it is PERFORMed;
 *  - the sides: a rename or link makes (or replaces) the new name at t2: overwrite where it
 *    exists (a rename with req->noreplace: write, as the kernel refuses an existing name),
 *    write otherwise; a rename then moves the old name at t (rename class; with
 *    req->whiteout also write: a whiteout is made there); a link's source at t needs the
 *    write class of its own area and scope (the inode becomes writable under the new name,
 *    so a grant for the new name's scope is not enough); an exchange (req->exchange)
 *    replaces and moves both names: overwrite and rename at t2 and at t. A deny on any side
 *    denies, an ask on any asks once for the whole call (verdict.asked: the first side that
 *    asks, so an editor's save asks one overwrite), and a grant must cover every side that
 *    asks;
 *  - a request without a resolved absolute path (t.path, or t2.path for a rename) -> DENY;
 *  - after a broker's answer, sbx_sup_session_record it and decide again: the answer is then
 *    the grant's (PERFORM or DENY), decider GRANT, which the listener reports as the
 *    broker's.
 */
void sbx_sup_decide(const struct sbx_sup_plan *plan, const struct sbx_sup_guards *guards,
                    const struct sbx_sup_session *session, const struct sbx_sup_req *req,
                    struct sbx_sup_verdict *out);

/* The area (longest target covering `path`) or NULL. */
const struct sbx_sup_area *sbx_sup_area_for(const struct sbx_sup_plan *plan, const char *path);

/* Would the supervisor refuse to make `path` (an absolute sandbox path whose final name is
 * ".git", in any case) as a new git repository where the host keeps files? (sbx check) */
bool sbx_sup_no_new_git_at(const struct sbx_sup_plan *plan, const char *path);

/* The plan's limit where no supervisor can run here: a parent sandbox supervises (which
 * refuses them itself where its own profile protects git), or the kernel lacks it. */
#define SBX_NO_NEW_GIT_PREFIX                                                                      \
	"git: a new repository (.git, or a git dir's HEAD) in a writable mount"
#define SBX_NO_NEW_GIT_LIMIT_PARENT                                                                \
	SBX_NO_NEW_GIT_PREFIX                                                                      \
	" is not refused by this sbx: a parent sandbox supervises, and "                           \
	"refuses it only where its own profile protects git; one the worker registers as a "       \
	"submodule is named when the run ends"
#define SBX_NO_NEW_GIT_LIMIT                                                                       \
	SBX_NO_NEW_GIT_PREFIX                                                                      \
	" cannot be refused here: the kernel lacks seccomp user "                                  \
	"notification; one the worker registers as a submodule is named when the run ends"

#define SBX_SUP_NEW_GIT_WHY "a new git repository where the host keeps files"
#define SBX_SUP_NEW_GIT_FIX                                                                        \
	"make it under /tmp, or run git init, clone, worktree add or submodule add outside the "   \
	"sandbox"

/* The approval class of an op (SBX_AC_COUNT for METADATA and READ). */
enum sbx_approval_class sbx_sup_op_class(enum sbx_sup_op op);
const char *sbx_sup_op_name(enum sbx_sup_op op);                /* "create", "overwrite", ... */
const char *sbx_sup_decider_name(enum sbx_sup_decider d);       /* "policy", "broker", ... */
const char *sbx_approval_name(enum sbx_approval a);             /* "allow", "ask", "deny" */
const char *sbx_approval_class_name(enum sbx_approval_class c); /* "write", ... */

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
 * A batch: a request's scope is the subtree it falls in, the first component below its area's
 * target (`rm -rf build` under /ws asks once for "/ws/build"), or the path itself where it is
 * the area's direct child that is not a directory. An answer with remember `once` covers the
 * scope for the same process (thread group, req->pid) under the same command name (comm)
 * and class while calls keep coming within
 * SBX_SUP_BATCH_IDLE_MS of each other; `session` covers the scope and class for the rest of
 * the sandbox's life, whoever calls. Both are exactly as narrow as the request: one class, one
 * scope. A denial is remembered the same way (a batch that was refused is not asked again for
 * each file). At most SBX_SUP_PENDING_MAX requests wait for a broker at once and at most
 * SBX_SUP_RATE_PER_MIN are asked in a minute; beyond, deny (decider RATE_LIMIT).
 */
#define SBX_SUP_PENDING_MAX   16
#define SBX_SUP_RATE_PER_MIN  120
#define SBX_SUP_TIMEOUT_MS    60000u
#define SBX_SUP_BATCH_IDLE_MS 2000u
#define SBX_SUP_GRANTS_MAX    4096
#define SBX_SUP_SCOPE_MAX     4096

enum sbx_sup_remember {
	SBX_SUP_REMEMBER_ONCE = 0, /* the batch: this scope, class and command, while it goes on */
	SBX_SUP_REMEMBER_SESSION,  /* this scope and class, for the sandbox's life */
};

struct sbx_sup_grant {
	char *scope; /* absolute sandbox path: a subtree (and itself) */
	enum sbx_approval_class cls;
	char comm[16]; /* ONCE: the command it was given to */
	int pid;       /* ONCE: and its thread group (req->pid): a name is no identity */
	bool allow;    /* a remembered denial otherwise */
	enum sbx_sup_remember remember;
	uint64_t last_ms; /* ONCE: the last call it covered */
	uint64_t uses;    /* calls it answered (for the audit log and the batch summary) */
};

struct sbx_sup_session {
	struct sbx_sup_grant *grants;
	size_t n_grants, cap_grants;
	uint64_t window_start_ms; /* the rate limit's minute */
	unsigned asked_in_window;
	unsigned pending;                      /* requests waiting for a broker now */
	uint64_t n_asked, n_allowed, n_denied; /* for the audit log's end record */
};

void sbx_sup_session_clear(struct sbx_sup_session *s);
/* The scope of a request (see above; for a rename or link, of the side verdict.asked names;
 * where sides that ask fall in different scopes, their common ancestor: the answer grants
 * each side's own scope, and a broker must not read the question as one subtree's) into
 * out; returns 0, -ENAMETOOLONG, or -EINVAL without a resolved path. */
int sbx_sup_scope(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req, char *out,
                  size_t size);
/* The grant covering req (class, scope, command, window), or NULL; marks it used (last_ms,
 * uses) when `use`. */
const struct sbx_sup_grant *sbx_sup_session_find(struct sbx_sup_session *s,
                                                 const struct sbx_sup_plan *plan,
                                                 const struct sbx_sup_req *req, bool use);
/* May one more request go to the broker now? false: the rate limit or the pending cap. true
 * counts it (n_asked, pending, the minute's count): every admitted request is then
 * recorded, a timeout or a broker's failure as a denial, which releases it from pending. */
bool sbx_sup_session_admit(struct sbx_sup_session *s, uint64_t now_ms);

/* Would `n` more questions be admitted now (the pending cap and the rate both leave room)?
 * Changes nothing. A file made provisionally (sup_pending.h) only where its question, and
 * those of the files held already, could be asked when due: a worker that filled the caps
 * first would otherwise keep it unasked for as long as it kept them full. */
bool sbx_sup_session_room(const struct sbx_sup_session *s, uint64_t now_ms, size_t n);
/* Record a broker's answer for req (a grant as narrow as the request: one per side of the
 * call that asks, each its class and scope; it replaces what was remembered for the same
 * scope and class; a refusal is not remembered for a side an allowance already covers).
 * Counts n_allowed or n_denied and releases one pending request.
 * -ENOSPC past SBX_SUP_GRANTS_MAX (after dropping batches that ended). */
int sbx_sup_session_record(struct sbx_sup_session *s, const struct sbx_sup_plan *plan,
                           const struct sbx_sup_req *req, bool allow,
                           enum sbx_sup_remember remember, struct sbx_error *err);

/*
 * ---- the broker's JSON (a stable, versioned interface: sbx(1), APPROVALS) ----
 *
 * The request, one line without a newline, `"v":1`:
 *   {"v":1,"type":"approval","id":N,"sandbox":ID,"label":L|null,"op":"delete",
 *    "class":"delete","call":"unlinkat","path":SANDBOX_PATH,"host_path":HOST|null,
 *    "path2":NEW|null,"scope":SCOPE,"rule":RULE,"pid":P,"comm":C,"cmdline":[ARGS...],
 *    "deadline_ms":EPOCH_MS,"provisional":false|true}
 * The answer, one JSON object on one line: {"v":1,"id":N,"allow":true|false,
 *   "remember":"once"|"session","reason":"..."} (remember and reason optional; a missing
 *   or malformed answer is a deny).
 * Strings are null where the request has none. The answer is parsed strictly: at most 4096
 * bytes, one flat object (no nested object or array), "v" 1, "id" and "allow" required, no
 * key twice, other keys (with scalar values) ignored, whitespace only around it.
 */
struct sbx_sup_ask {
	uint64_t id;
	const char *sandbox_id; /* 32 hex digits */
	const char *label;      /* NULL: none */
	const struct sbx_sup_req *req;
	const struct sbx_sup_verdict *verdict; /* ASK: the rule and the class asked */
	const char *scope;
	const char *host_path; /* NULL: none (a tmpfs) */
	char *const *cmdline;  /* NULL-terminated, may be NULL */
	uint64_t deadline_ms;  /* CLOCK_REALTIME, ms */
	bool provisional;      /* the file exists already, made provisionally (sup_pending.h):
	                          a refusal removes it */
};
/* Format as snprintf does (returns the length needed). */
size_t sbx_sup_ask_json(char *out, size_t size, const struct sbx_sup_ask *ask);
/* Parse an answer; returns 0 with *allow and *remember set, or -EINVAL (a deny). `id` must
 * match. reason (may be NULL) gets the reason, escaped for text. */
int sbx_sup_answer_parse(const char *line, uint64_t id, bool *allow,
                         enum sbx_sup_remember *remember, char *reason, size_t reason_size);

#endif
