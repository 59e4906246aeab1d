/* SPDX-License-Identifier: MIT */
#ifndef SBX_SPEC_H
#define SBX_SPEC_H

/*
 * The spec: what a sandbox is, before anything is built. Flags (cmd/sbx) and profiles
 * (src/core/profile*.c) fill the same spec through the same setters below; the planner
 * (plan.h) turns a finished spec into an ordered list of operations.
 *
 * Ownership: a struct sbx_spec owns every string and array it points to. Setters copy their
 * arguments. sbx_spec_free() releases everything and accepts NULL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"
#include "sbx/limits.h"
#include "sbx/net.h"
#include "sbx/path.h"
#include "sbx/seccomp.h"
#include "sbx/supervise.h"

/* Caps on everything a user controls (STYLE.md: a cap on every size). */
#define SBX_MAX_MOUNTS  8192
#define SBX_MAX_ENV     1024
#define SBX_MAX_ARGS    65536
#define SBX_ENV_VAL_MAX (128 * 1024)
#define SBX_MAX_HIDE    1024
#define SBX_MAX_GUARDS  4096
/* The supervisor's settings (include/sbx/supervise.h; sbx-profile(5), APPROVALS). */
#define SBX_MAX_SUFFIXES        256
#define SBX_SUFFIX_MAX          64           /* bytes in one suffix */
#define SBX_MAX_FILE_BYTES_MAX  (1ull << 40) /* max_file_bytes: at most 1 TiB */
#define SBX_APPROVE_MAX         4096         /* bytes in an --approve value */
#define SBX_LABEL_MAX           256          /* bytes in a --label */
#define SBX_APPROVE_TIMEOUT_MAX 3600u        /* --approve-timeout: seconds, at most */

enum sbx_mount_kind {
	SBX_MOUNT_BIND = 0, /* host source seen at target */
	SBX_MOUNT_TMPFS,    /* an empty private tmpfs at target */
	SBX_MOUNT_DEVICE,   /* a host device node, with device access */
};

/* Where a mount came from: for messages, --dry-run and the default-profile rule. */
enum sbx_mount_origin {
	SBX_ORIGIN_FLAG = 0, /* -v, --mount, --device */
	SBX_ORIGIN_PROFILE,  /* a profile's mounts: */
	SBX_ORIGIN_DEFAULT,  /* the built-in default profile (the workspace) */
	SBX_ORIGIN_HOME,     /* the worker's home (--home, home:; src/core/home.c) */
};

struct sbx_mount {
	enum sbx_mount_kind kind;
	char *source; /* absolute, normalised host path; NULL for tmpfs */
	char *target; /* absolute, normalised sandbox path */
	bool readonly;
	bool optional; /* a missing source is skipped with a note, not an error */
	bool noexec;   /* nothing beneath may be executed (a policy that denies execute) */
	enum sbx_mount_origin origin;
	char *policy; /* name of the policy attached to this mount, or NULL */
	/* The supervisor (profile keys approvals:, suffixes:, max_file_bytes:). Zeroed: every
	 * operation allowed, no read caps. A mount that replaces another replaces these too. */
	struct sbx_approvals approvals;
	char **suffixes; /* read caps: only names with one of these endings can be read */
	size_t n_suffixes;
	uint64_t max_file_bytes; /* read caps: larger files cannot be read; 0: no cap */
	uint64_t size;           /* a tmpfs's size in bytes (size=, a profile's tmpfs entry); 0: the
	                            sandbox's default (sbx_limits_tmpfs_size) */
};

/*
 * A guard: a path bound onto itself beneath the mount that shows it, so that it is a mount
 * point of its own (rename(2), rmdir(2) and unlink(2) of it, or a rename over it, fail with
 * EBUSY), with the mount's flags and what the guard adds: read-only (git's control files,
 * src/os/gitguard.c), noexec (a policy that denies execute on a whole subtree: a noexec mount
 * refuses the loader's executable mmap too, which Landlock's execute right does not). The
 * plan binds a guard only where a bind mount shows it; the launcher only where it exists.
 */
struct sbx_guard {
	char *path; /* absolute, normalised sandbox path */
	bool readonly;
	bool noexec;
	const char *why; /* static: for --dry-run */
};

struct sbx_env_entry {
	char *name;
	char *value; /* NULL: pass the caller's value, if it has one */
};

/* The worker's $HOME (--home, profile key home:; src/core/home.c). */
enum sbx_home {
	SBX_HOME_UNSET = 0, /* neither said: tmpfs for the built-in default without --root,
	                       none for a profile */
	SBX_HOME_TMPFS,     /* a private sized tmpfs at $HOME, the caller's ~/.gitconfig
	                       read-only in it where it exists */
	SBX_HOME_EMPTY,     /* the same tmpfs, with nothing of the caller's in it */
	SBX_HOME_DIR,       /* a host directory, read-write at its own path, as $HOME */
	SBX_HOME_NONE,      /* nothing: $HOME names what the mounts show there, if anything */
};

enum sbx_sysmounts {
	SBX_SYSMOUNTS_DEFAULT = 0, /* /usr, /bin, /lib*, essential /etc, adapted to the host */
	SBX_SYSMOUNTS_NONE,
};

struct sbx_spec {
	char *profile;   /* profile name, exported as SBX_PROFILE; "default" when none */
	char *root;      /* host directory seen at "/", or NULL for an empty scaffold root */
	bool readonly;   /* no writes anywhere */
	char *workspace; /* value of ${WORKSPACE}; default: the caller's cwd */
	char *chdir;     /* working directory inside, or NULL for the default rule */
	enum sbx_sysmounts system_mounts;
	enum sbx_net_mode net;
	struct sbx_netpolicy netpol; /* SBX_NET_ALLOW's entries (include/sbx/net.h) */
	bool best_effort;
	bool nesting; /* may the worker start sub-sandboxes (profile key `nesting`); the seccomp
	                 filter decides namespace creation from it. Default: true (sbx_spec_new) */
	bool root_readonly; /* the root (--root) is read-only though other mounts may not be: a
	                       nested sandbox whose parent had a read-only root
	                       (src/core/nest_convert.c) */

	/* true once -v, --mount or --root was given: the default's workspace mount is dropped */
	bool explicit_mounts;

	struct sbx_mount *mounts;
	size_t n_mounts;
	/* open-addressing hash of targets -> mount index + 1, so that adding n mounts stays
	 * O(n) rather than comparing each with all before it; owned by spec.c */
	size_t *target_index;
	size_t index_cap;

	struct sbx_env_entry *env;
	size_t n_env;

	/* Exact sandbox paths made inaccessible (profile `hide:`, and policy rules that deny
	 * every operation on one path): the plan masks each with an empty read-only file or
	 * directory. Absolute, normalised, unique. */
	char **hide;
	size_t n_hide;
	/* hide_walked[i]: hide[i] came from the walk of the hide globs (sbx_spec_add_hides),
	 * not from an exact entry: a folder the walk could not look into is hidden whole, and
	 * found again at the next launch wherever it is moved */
	bool *hide_walked;

	/* Glob patterns to hide (profile `hide:` with globs, --hide): absolute sandbox globs.
	 * Before planning, one walk of the host (src/os/globwalk.c) turns them into exact
	 * paths in `hide`; files created after the walk are not hidden. */
	char **hide_globs;
	size_t n_hide_globs;
	/* The hide globs hold for files created after launch too (profile key `hide_later`,
	 * --hide-later): the supervisor decides every open for reading, and every rename and
	 * link, against them (src/core/supervise.c). Off by default: it costs each open. */
	bool hide_later;
	/* Guards (above): from the policies (noexec) and git's control surface (read-only). */
	struct sbx_guard *guards;
	size_t n_guards;
	/* Protect git's control surface where a writable mount shows a repository (profile key
	 * `protect_git`, default true; src/os/gitguard.c). */
	bool protect_git;
	/* hide_glob_firm[i]: hide_globs[i] is a policy's deny rule (sbx_spec_add_firm_hide_glob),
	 * which `unhide` never gives back: a policy can only be narrowed by another layer */
	bool *hide_glob_firm;
	/* Sandbox paths and globs given back (profile `unhide:`, --unhide): what `hide:` or
	 * --hide would hide, literally or by a glob's match, is not hidden where one of these
	 * matches its path exactly (a literal unhide names one path; a glob, what it matches).
	 * Never what a policy denies, nor (nested) what the parent sandbox hides: the parent's
	 * masks and Landlock layer stay, whatever the child asks. */
	char **unhide;
	size_t n_unhide;
	/* sbx's own state (its cache directory, src/os/state.c), hidden wherever a mount shows
	 * it: each path is in `hide` too, and its mask also pins every directory above it up to
	 * the mount that holds it (bound onto itself), so that a worker can neither rename one
	 * of them away nor remove it, and plant a directory of its own at the path. */
	char **pin;
	size_t n_pin;
	/* Targets of a profile's read-only optional mounts whose source did not exist at load
	 * (the mount is dropped): a worker may create them where a writable mount covers them,
	 * so the launch names them (src/os/gitguard.c, `unprotected`). */
	char **absent_ro;
	size_t n_absent_ro;
	/* Targets of a profile's optional mounts with a policy (its configuration: claude-agent's
	 * ~/.claude.json) whose source did not exist at load: inside a private home (--home) a
	 * worker could make one for the run, which the supervisor refuses
	 * (src/core/sup_finish.c). */
	char **absent_cfg;
	size_t n_absent_cfg;
	/* seccomp: groups and calls allowed or denied, errno, log mode, nesting (seccomp.h) */
	struct sbx_seccomp_conf seccomp;

	/* The supervisor (include/sbx/supervise.h), copied into plan->sup by sbx_plan_finish.
	 * approve: the broker (--approve, profile key approve:), checked by
	 * sbx_spec_set_approve; NULL: tty where the caller has a terminal, deny otherwise.
	 * approve_timeout_ms: --approve-timeout; 0: SBX_SUP_TIMEOUT_MS. audit_log: an absolute
	 * host path (--audit-log, profile key audit:) or NULL. label: --label, checked by
	 * sbx_spec_set_label, or NULL. */
	char *approve;
	unsigned approve_timeout_ms;
	char *audit_log;
	char *label;

	/* Resource limits (include/sbx/limits.h; profile key limits:, --limit NAME=VALUE), and
	 * which of them a parent sandbox enforces already (nested: sbx_limits_narrow). */
	struct sbx_limits resources;
	unsigned resources_inherited;
	/* The worker's home (src/core/home.c), made into mounts by sbx_spec_finish. home_path:
	 * the caller's $HOME, where the home is inside (paths are paths); home_dir: --home
	 * DIR; home_gitconfig: the caller's ~/.gitconfig where it is a regular file (the
	 * command line looks; NULL: none); home_size: the tmpfs's size in bytes (0:
	 * SBX_HOME_SIZE_FALLBACK). All set by the command line, home also by a profile. */
	enum sbx_home home;
	char *home_path;
	char *home_dir;
	char *home_gitconfig;
	uint64_t home_size;
};

struct sbx_spec *sbx_spec_new(void);
void sbx_spec_free(struct sbx_spec *spec);
static inline void sbx_spec_freep(struct sbx_spec **p)
{
	sbx_spec_free(*p);
}
#define _cleanup_spec_ __attribute__((cleanup(sbx_spec_freep)))

/* Replace the string *dst by a copy of src (NULL clears). */
int sbx_spec_set_str(char **dst, const char *src, struct sbx_error *err);

/*
 * Add a mount. source (for bind and device) and target must be absolute; both are normalised.
 * A second mount with the same target replaces the first when `replace` is true (a flag
 * naming a profile's target), and is an error otherwise.
 */
int sbx_spec_add_mount(struct sbx_spec *spec, const struct sbx_mount *m, bool replace,
                       struct sbx_error *err);

/* Add or replace an environment entry. value NULL: pass from the caller. */
int sbx_spec_add_env(struct sbx_spec *spec, const char *name, const char *value,
                     struct sbx_error *err);

/* Add an exact sandbox path to hide (absolute; normalised; a repeat is ignored). */
int sbx_spec_add_hide(struct sbx_spec *spec, const char *path, struct sbx_error *err);
/* Add each of n paths to hide, in order (a glob walk's matches, sbx_globwalk_run). */
int sbx_spec_add_hides(struct sbx_spec *spec, char *const *paths, size_t n, struct sbx_error *err);

/* Add a glob to hide that unhide never gives back (a policy's deny rule on a glob); a glob
 * already there becomes firm. */
int sbx_spec_add_firm_hide_glob(struct sbx_spec *spec, const char *pattern, struct sbx_error *err);

/* Add an absolute path or glob to give back (unhide:, --unhide; checked as a glob is). */
int sbx_spec_add_unhide(struct sbx_spec *spec, const char *pattern, struct sbx_error *err);

/* True if an unhide entry matches path. */
bool sbx_spec_unhidden(const struct sbx_spec *spec, const char *path);

/* Drop from `hide` every path an unhide entry matches. Call it once the profile and the flags
 * are in, before policies are compiled (their hidden paths are never given back). */
void sbx_spec_drop_unhidden(struct sbx_spec *spec);

/* Hide a path of sbx's own state, pinned (see `pin` above): added to `hide` and `pin`. */
int sbx_spec_add_pin(struct sbx_spec *spec, const char *path, struct sbx_error *err);
/* ... each of n paths, in order (where sbx_state_guard found sbx's cache directory shown). */
int sbx_spec_add_pins(struct sbx_spec *spec, char *const *paths, size_t n, struct sbx_error *err);

/* Add an absolute glob to hide (checked with sbx_glob_check; a repeat is ignored). */
int sbx_spec_add_hide_glob(struct sbx_spec *spec, const char *pattern, struct sbx_error *err);

/* Add a guard (a repeat of a path adds its flags to the first; `why` must be static). */
int sbx_spec_add_guard(struct sbx_spec *spec, const char *path, bool readonly, bool noexec,
                       const char *why, struct sbx_error *err);

/*
 * The supervisor's settings, checked where they are set (flags and profile keys alike).
 * sbx_spec_set_approve: "tty", "deny", "allow", "cmd:PROGRAM" (PROGRAM an absolute path or a
 * name looked up in PATH) or "socket:PATH" (PATH absolute, at most 107 bytes); never a
 * control byte. sbx_spec_set_label: at most SBX_LABEL_MAX bytes, no control byte. Errors are
 * SBX_ERR_USAGE, naming what is allowed.
 */
int sbx_spec_set_approve(struct sbx_spec *spec, const char *broker, struct sbx_error *err);
int sbx_spec_set_label(struct sbx_spec *spec, const char *label, struct sbx_error *err);
/* Parse a size: digits, optionally followed by K, M or G (powers of 1024); 1 to
 * SBX_MAX_FILE_BYTES_MAX. Returns 0, or -EINVAL / -ERANGE with err. */
int sbx_size_parse(const char *s, uint64_t *out, struct sbx_error *err);
/* Add a read-cap suffix to a mount (1 to SBX_SUFFIX_MAX bytes, no '/' or control byte; a
 * repeat is ignored; at most SBX_MAX_SUFFIXES). */
int sbx_mount_add_suffix(struct sbx_mount *m, const char *suffix, struct sbx_error *err);
/* An approval's name: "allow", "ask", "deny"; false if unknown. */
bool sbx_approval_parse(const char *name, enum sbx_approval *out);

/* Find the mount whose target is exactly `target`, or NULL. */
struct sbx_mount *sbx_spec_find_target(const struct sbx_spec *spec, const char *target);

/*
 * Parse Docker's short form `SRC[:DST][:ro|rw]` into *out (strings allocated, caller frees
 * with sbx_mount_clear). A relative SRC is taken relative to `cwd`.
 */
int sbx_volume_parse(const char *arg, const char *cwd, struct sbx_mount *out,
                     struct sbx_error *err);

/* Parse Docker's long form `type=bind,source=S,target=T[,readonly]` or
 * `type=tmpfs,target=T[,size=S]` (also Docker's tmpfs-size=). */
int sbx_mount_parse(const char *arg, const char *cwd, struct sbx_mount *out, struct sbx_error *err);

void sbx_mount_clear(struct sbx_mount *m);

/* The home (src/core/home.c). A home tmpfs's size when the command line knows no better:
 * a quarter of the machine's memory, at most SBX_HOME_SIZE_CAP, or SBX_HOME_SIZE_FALLBACK. */
#define SBX_HOME_SIZE_FALLBACK (1ull << 30)
#define SBX_HOME_SIZE_CAP      (4ull << 30)
/* --home / home: "tmpfs", "empty", "none" or an absolute DIR (relative: against cwd, which may
 * be NULL to refuse it). */
int sbx_spec_set_home(struct sbx_spec *spec, const char *arg, const char *cwd,
                      struct sbx_error *err);
/* The home's size for a machine with mem_bytes of memory (0: unknown). */
uint64_t sbx_home_size_for(uint64_t mem_bytes);
/* Add the home's mounts and $HOME (sbx_spec_finish calls it, before readonly applies). */
int sbx_spec_add_home(struct sbx_spec *spec, struct sbx_error *err);
/* The words for a home mode: "tmpfs", "empty", "dir", "none", "unset". */
const char *sbx_home_name(enum sbx_home home);

/*
 * Complete a spec filled from flags and profile: apply the built-in default profile's
 * workspace mount unless explicit mounts were given, apply `readonly` to every mount, and
 * check the invariants (targets unique, the root not a target, counts within caps).
 */
int sbx_spec_finish(struct sbx_spec *spec, struct sbx_error *err);

#endif
