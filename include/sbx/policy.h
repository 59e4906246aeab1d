/* SPDX-License-Identifier: MIT */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

/*
 * Policies: per-operation rights (docs/design.md, The model (policies)), the decisions `sbx check`
 * prints, and the compilation of rules into what this version can enforce (mounts, read-only and
 * noexec flags, masks). All pure: decisions are computed from a plan and a spec, never from the
 * file system.
 *
 * Ownership: a struct sbx_policy owns its strings and rules; sbx_policy_free accepts NULL.
 * A struct sbx_policy_set owns the policies it holds.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/path.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

/* Operations (docs/design.md, The model (policies)). A rename is a delete plus a create. */
enum sbx_op {
	SBX_OP_READ = 1u << 0,
	SBX_OP_LIST = 1u << 1,
	SBX_OP_STAT = 1u << 2,
	SBX_OP_WRITE = 1u << 3,
	SBX_OP_CREATE = 1u << 4,
	SBX_OP_DELETE = 1u << 5,
	SBX_OP_EXECUTE = 1u << 6,
};
#define SBX_OP_ALL    0x7fu
#define SBX_OP_MODIFY (SBX_OP_WRITE | SBX_OP_CREATE | SBX_OP_DELETE)
#define SBX_OP_LOOK   (SBX_OP_READ | SBX_OP_LIST | SBX_OP_STAT)

/* Parse one operation name ("read", ..., "rename" = create|delete, "all"); 0 if unknown. */
unsigned sbx_op_parse(const char *name);
/* The name of a single operation bit; "?" otherwise. */
const char *sbx_op_name(unsigned op);
/* Write "read,list,stat" for a mask into buf; returns buf. */
const char *sbx_ops_format(unsigned ops, char *buf, size_t size);

/* ---- globs (src/core/glob.c) ---- */

#define SBX_GLOB_MAX 1024 /* bytes in one pattern */

/*
 * Check a pattern: not empty, at most SBX_GLOB_MAX bytes, every '[' closed, no control
 * characters, no "." or ".." component. On failure *offset is the byte where it goes wrong.
 */
int sbx_glob_check(const char *pattern, size_t *offset, struct sbx_error *err);

/*
 * Match a checked pattern against a text: '*' is any run of characters but '/', '**' any run
 * at all ('/' included), "**" followed by '/' also matches nothing (so "**" + "/.env" matches
 * ".env"), a trailing slash-and-double-star also matches the directory itself (src and
 * everything beneath it), '?'
 * one character but '/', "[...]" one character of a class ("[!...]" or "[^...]" negates;
 * ranges a-z; never '/'), and '\' quotes the next character. Dotfiles are not special.
 * Runs in O(pattern x text) time, however the stars are arranged.
 */
bool sbx_glob_match(const char *pattern, const char *text);

/* True if the pattern has no glob metacharacter: it names one exact path. */
bool sbx_glob_is_literal(const char *pattern);

/* A path as a glob that matches it alone: each of *?[]\\ quoted with '\\'. Returns the
 * length (truncated to size - 1, as snprintf). */
size_t sbx_glob_quote(const char *path, char *out, size_t size);

/* A pattern with no unquoted metacharacter, as the path it names (quotes removed) into out;
 * false if it is a glob. */
bool sbx_glob_unquote(const char *pattern, char *out, size_t size);

/* ---- policies ---- */

#define SBX_MAX_RULES      1024
#define SBX_MAX_RULE_PATHS 256
#define SBX_RULE_NAME_MAX  128

struct sbx_rule {
	char *name;
	char *
	    *paths; /* globs: relative to the policy's scope, or absolute if they start with '/' */
	size_t n_paths;
	unsigned ops;     /* enum sbx_op bits */
	bool allow;       /* decision: allow or deny */
	int line, column; /* where the rule starts in its file, for messages */
};

struct sbx_policy {
	char *name;
	char *file; /* the file it was loaded from ("" when built in code) */
	char *description;
	struct sbx_rule *rules;
	size_t n_rules;
	int line, column; /* where the policy is named (for compile errors) */
};

void sbx_policy_free(struct sbx_policy *p);

/* The policies of one effective profile, unique by name, and which is the base policy. */
struct sbx_policy_set {
	struct sbx_policy **items;
	size_t n;
	const struct sbx_policy *base; /* NULL: no base policy */
};

void sbx_policy_set_clear(struct sbx_policy_set *set);
const struct sbx_policy *sbx_policy_set_find(const struct sbx_policy_set *set, const char *name);
/* Take ownership of p (freed on failure too). */
int sbx_policy_set_add(struct sbx_policy_set *set, struct sbx_policy *p, struct sbx_error *err);

/* ---- decisions ---- */

/* What decided a verdict, in the order of docs/design.md, The model (policies). */
enum sbx_decider {
	SBX_BY_ALLOWED = 0, /* every step passed */
	SBX_BY_UNMOUNTED,   /* 1: no mount covers the path */
	SBX_BY_HIDDEN,      /* hidden (masked) path: every operation denied */
	SBX_BY_READONLY,    /* 2: read-only mount and a writing operation */
	SBX_BY_POLICY,      /* 3: the mount's policy */
	SBX_BY_BASE_POLICY, /* 4: the base policy */
	SBX_BY_PROTECTED,   /* 2b: a protected path absent at launch (view->sup): its creation is
	                       refused by the supervisor */
	SBX_BY_APPROVAL,    /* 2c: the mount's approvals say deny (a kernel rule, Landlock) */
	SBX_BY_CAPS,        /* 2d: the mount's read caps refuse the name (the supervisor) */
};

struct sbx_decision {
	bool allow;
	enum sbx_decider by;
	char path[SBX_PATH_MAX];  /* the normalised sandbox path decided (after plan symlinks) */
	char mount[SBX_PATH_MAX]; /* target of the covering mount; "" when unmounted */
	const char *mount_what;   /* static: "system mount", "profile mount", "flag mount",
	                             "root", "sbx" (private /tmp, /proc, /dev), "hide" */
	const char *policy;       /* the policy that decided or last allowed, or NULL */
	char rule[SBX_RULE_NAME_MAX + 64];     /* "rule" name, or a short reason */
	const char *protect_why, *protect_fix; /* SBX_BY_PROTECTED: the plan's (borrowed) */
	/* allow, but the mount's approvals `ask` for the operation's class: the class asked
	 * ("write", "overwrite", "delete"; static), else NULL. The run's broker decides; an
	 * allow that asks is no allow yet (sbx check prints "ask"). */
	const char *ask;
	/* SBX_OP_DELETE decided by a mount with approvals: what they say of the rename class
	 * (moving an entry away: a rename's source is a delete of its old name). sbx check's
	 * `rename` asks it; ALLOW otherwise. */
	enum sbx_approval rename;
};

struct sbx_policy_view {
	const struct sbx_plan *plan;           /* coverage, read-only flags, masks */
	const struct sbx_spec *spec;           /* which mount carries which policy */
	const struct sbx_policy_set *policies; /* may be NULL: no policies */
	const struct sbx_sup_plan *sup;        /* may be NULL: the supervisor's protected paths
	                                          (plan->sup) are not asked */
};

/*
 * Decide one operation (a single enum sbx_op bit) on one sandbox path, per docs/design.md, The
 * model (policies): unmounted, then read-only, then a protected path absent at launch (at or
 * beneath one of view->sup's: every writing operation), then the mount's approvals (`deny`
 * for the operation's class: write and create -> write, delete -> delete; `ask` is a
 * question, not an answer: an allow then names the class asked in out->ask), then the
 * mount's policy, then the base policy. The
 * private /tmp, /proc and /dev that sbx makes itself are outside the policies (they hold nothing of
 * the host). Returns 0 and fills *out, or -EINVAL for a bad path or operation.
 */
int sbx_policy_decide(const struct sbx_policy_view *view, unsigned op, const char *path,
                      struct sbx_decision *out, struct sbx_error *err);

/*
 * What a denial of execute holds (sbx check, --dry-run). Landlock's execute right is checked
 * at execve(2) only: a loader (ld.so FILE) maps the file and runs it anyway, and an
 * interpreter reading a script does a read. A noexec mount refuses the loader's executable
 * mmap too. A rule's pattern becomes a noexec mount (a guard) when it names a whole subtree
 * (dir/star-star) or one literal path, under the namespaces backend, where the path exists at
 * launch; a glob over single files is hidden whole at launch instead (what matches then).
 */

/* Can a deny-execute pattern (relative to scope, or absolute) be a noexec mount? Fills the
 * absolute path that mount would be (size bytes) when it can. */
bool sbx_policy_exec_mountable(const char *pattern, const char *scope, char *path, size_t size);

/* Add to plan->limits a line for each rule of the view's policies that denies execute where
 * the plan holds it with Landlock alone (execve only), or only for what exists at launch.
 * plan->backend_landlock must be settled, and the guards pruned to what the host has. */
int sbx_policy_exec_limits(const struct sbx_policy_view *view, struct sbx_plan *plan,
                           struct sbx_error *err);

/* For a decision that denies execute by a policy: what holds it, under either backend, in
 * buf; NULL when there is nothing to say. */
const char *sbx_policy_exec_note(const struct sbx_policy_view *view, const struct sbx_decision *d,
                                 char *buf, size_t size);

/* One line for people: "deny (policy config-readonly, rule deny-write; mount /x)". */
const char *sbx_decision_format(const struct sbx_decision *d, char *buf, size_t size);

/* ---- compiling rules to what the kernel enforces in this version ---- */

/* What one policy compiles to over its scope (a mount's target, or "/" for the base). */
struct sbx_policy_effect {
	unsigned allowed; /* operations allowed over the whole scope */
	bool readonly;    /* write, create and delete denied: a read-only mount */
	bool noexec;      /* execute denied: a noexec mount */
	bool hide_scope;  /* nothing allowed: the whole scope is masked */
	char **hide;      /* exact absolute paths to mask */
	size_t n_hide;
	char **hide_globs; /* absolute globs whose matches the launch's one walk hides: deny
	                      rules on globs other than a literal subtree (dir/star-star) */
	size_t n_hide_globs;
	char **noexec_paths; /* absolute literal paths whose subtree a rule denies execute on (a
	                  literal subtree dir/star-star, or a literal path): a noexec guard
	                  each (spec.h), which the loader cannot get around as it can Landlock */
	size_t n_noexec_paths;
};

void sbx_policy_effect_clear(struct sbx_policy_effect *e);

/*
 * Can this policy, over this scope, be enforced with mounts and masks alone? Fills *eff and
 * returns 0 if so. Otherwise returns -EOPNOTSUPP with err saying which rule needs
 * per-operation enforcement (Landlock), at the rule's file, line and column. `is_base`: the
 * base policy may not deny execute or everything (no program could run).
 */
int sbx_policy_compile_one(const struct sbx_policy *p, const char *scope, bool is_base,
                           struct sbx_policy_effect *eff, struct sbx_error *err);

/*
 * Compile every policy of a spec into the spec itself: a mount whose policy denies writing
 * becomes read-only, one that denies execute noexec (and a subtree it denies execute on a
 * noexec guard), exact denied paths are hidden; a base
 * policy that denies writing makes the whole sandbox read-only. After this the spec alone
 * (and so the plan and the launcher) enforces what the policies decide. Fails closed with
 * -EOPNOTSUPP when a rule cannot be compiled, and -ENOENT when a mount names a policy the
 * set does not hold.
 */
int sbx_policy_compile(struct sbx_spec *spec, const struct sbx_policy_set *set,
                       struct sbx_error *err);

#endif
