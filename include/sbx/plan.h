/* SPDX-License-Identifier: MIT */
#ifndef SBX_PLAN_H
#define SBX_PLAN_H

/*
 * The plan: a finished spec turned into the ordered operations that build the sandbox, as
 * bubblewrap turns its options into a SetupOp list. Core computes it (pure: host facts come
 * in as data, struct sbx_host); src/launch.c executes it; --dry-run prints it.
 *
 * Ownership: struct sbx_plan owns all its strings and arrays; sbx_plan_free() accepts NULL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/landlock.h"
#include "sbx/limits.h"
#include "sbx/spec.h"
#include "sbx/supervise.h"

/* As root, the worker's user namespace maps the caller's ids onto this unprivileged host range,
 * so that the worker is never kernel uid 0; bind mounts are id-mapped to match. */
#define SBX_ROOT_MAP_BASE  2147418112u /* 0x7fff0000 */
#define SBX_ROOT_MAP_COUNT 65536u
/*
 * As root, with nesting allowed, the worker is this uid and gid inside instead of 0: a nested
 * sbx must map its own ids into a new user namespace, and the kernel lets a process map uid 0
 * there only with CAP_SETFCAP (Linux >= 5.12, verify_root_map), which the worker never has.
 * The sandbox's map swaps 0 and N within the range, so host uid 0's files (through the
 * id-mapped binds) appear owned by N, the worker, and host uid N's appear owned by 0; every
 * other id is seen as itself; nothing maps to kernel uid 0. 65533 is next to nobody (65534)
 * and free on common distributions (Debian's base-passwd leaves 65533 unused).
 */
#define SBX_ROOT_NEST_ID   65533u
#define SBX_ID_EXTENTS_MAX 4u /* lines of one uid_map or gid_map this planner writes */

enum sbx_host_kind {
	SBX_HOST_ABSENT = 0,
	SBX_HOST_DIR,
	SBX_HOST_FILE, /* anything else that is not a symlink: file, device, socket */
	SBX_HOST_SYMLINK,
};

struct sbx_host_entry {
	const char *path; /* absolute host path */
	enum sbx_host_kind kind;
	char *link; /* symlink text, for SBX_HOST_SYMLINK */
};

/* What the planner needs to know about the host; os/probe.c fills it, tests fake it. */
struct sbx_host {
	uid_t uid, gid;                 /* the caller's real ids */
	uid_t euid;                     /* 0: sbx runs as root */
	struct sbx_host_entry *entries; /* system mount candidates that exist, and sbx's own
	                                   binary where none shows it (os/probe.c) */
	size_t n_entries;
	char *const *environ; /* the caller's environment */
	char *cwd;            /* the caller's working directory */
	bool nested;          /* sbx runs inside an sbx sandbox: uid 0 there holds no capability, so
	                         plan as an ordinary user (one id mapped, no id-mapped binds) */
	uint64_t mem_total;   /* bytes of RAM (sizes the tmpfs defaults); 0: unknown */
	/* the caller's /proc/sys/user values, by sbx_ucount_shares (limits.h); < 0: absent */
	long long ucount[SBX_N_UCOUNTS];
	/* root: the first host id of this sandbox's own range (src/os/uidslot.c), so that no two
	 * root-started sandboxes share a per-user pool; 0: SBX_ROOT_MAP_BASE */
	unsigned root_map_base;
	/* this sandbox's rank among the caller's sandboxes running at once (src/os/shareslot.c):
	 * its share of the per-user counts is of what those before it left; 0: the first */
	unsigned share_rank;
	/* The host's /etc/passwd and /etc/group (NUL-terminated, at most SBX_ETC_ID_MAX bytes),
	 * or NULL where unreadable: the worker's name comes from them (src/core/identity.c). */
	char *passwd, *group;
};
#define SBX_ETC_ID_MAX (4u << 20)

enum sbx_plan_kind {
	SBX_PLAN_MIRROR = 0, /* root mode: each top-level entry of source bound into '/' */
	SBX_PLAN_BIND,       /* source seen at target */
	SBX_PLAN_TMPFS,      /* an empty tmpfs at target */
	SBX_PLAN_SYMLINK,    /* a symlink at target whose text is source */
	SBX_PLAN_PROC,       /* a fresh procfs for the sandbox's pid namespace */
	SBX_PLAN_DEVPTS,     /* a new devpts instance */
	SBX_PLAN_MASK,       /* make target inaccessible: /dev/null over a file, an empty
	                        read-only tmpfs over a directory; skipped if target is absent */
	SBX_PLAN_REBIND_RO,  /* bind target onto itself read-only (/proc/sys); skipped if absent */
	SBX_PLAN_SEAL,       /* make the tmpfs at target read-only, not its submounts */
	SBX_PLAN_NEST_PROC,  /* nesting: a fully visible procfs at target/proc, then target
	                        masked so the worker cannot reach it (src/core/plan.c) */
};

/* Flags of a plan operation. */
enum {
	SBX_PLAN_F_READONLY = 1u << 0,
	SBX_PLAN_F_FOLLOW = 1u << 1,   /* source is a trusted system path: symlinks followed */
	SBX_PLAN_F_OPTIONAL = 1u << 2, /* a missing source is skipped */
	SBX_PLAN_F_DEVICE = 1u << 3,   /* device access: no nodev */
	SBX_PLAN_F_SYSTEM = 1u << 4,   /* one of the system mounts */
	SBX_PLAN_F_NOEXEC = 1u << 5,
	SBX_PLAN_F_IDMAP = 1u << 6,  /* id-map the bind with the worker's mapping (root) */
	SBX_PLAN_F_GUARD = 1u << 7,  /* a guard (spec.h): a path of the bind above it bound onto
	                                itself; decisions take that mount's policy */
	SBX_PLAN_F_PIN = 1u << 8,    /* a MASK of sbx's own state, or of a path hidden by a
	                                name its folders give: first bind every directory above
	                                target onto itself, up to the mount that holds it, so
	                                that none can be renamed or removed (spec->pin) */
	SBX_PLAN_F_OWNER = 1u << 9,  /* a TMPFS owned by the worker (inner uid and gid), mode
	                                0700: its home */
	SBX_PLAN_F_DATA = 1u << 10,  /* a read-only BIND of a file sbx writes itself from
	                                plan->etc_passwd, etc_group or etc_resolv (by target),
	                                in place of the host's file at source */
	SBX_PLAN_F_FOUND = 1u << 11, /* a MASK of what the walk of the hide globs found: gone
	                                when it is masked, it was moved during the launch (by
	                                another process): refused, never skipped */
	SBX_PLAN_F_SELF = 1u << 12,  /* the system mount of sbx itself, at the path it was run
	                                from (anywhere on the host: a 0750 home, say) */
};

struct sbx_plan_op {
	enum sbx_plan_kind kind;
	unsigned flags;
	char *source;    /* host path; symlink text for SBX_PLAN_SYMLINK; NULL otherwise */
	char *target;    /* absolute sandbox path */
	unsigned mode;   /* tmpfs root mode */
	uint64_t size;   /* tmpfs: its size= in bytes (every tmpfs op has one, sbx_plan_build) */
	const char *why; /* static text for --dry-run: where the operation comes from */
};

/* Whether the worker gets a pseudo-terminal of its own (-t, --no-tty; struct sbx_plan.tty). */
enum sbx_tty_ask {
	SBX_TTY_AUTO,   /* when sbx's stdin and stdout are terminals, sbx in the foreground */
	SBX_TTY_ALWAYS, /* -t, --tty */
	SBX_TTY_NEVER,  /* --no-tty */
};

struct sbx_plan {
	struct sbx_plan_op *ops;
	size_t n_ops;

	/* Namespaces and identity. */
	bool new_net;                 /* a network namespace with loopback up */
	enum sbx_net_mode net;        /* the spec's: ALLOW and LEARN add sbx's proxy and resolver
	                                 inside (src/os/netproxy.c), NONE its refusing resolver */
	struct sbx_netpolicy netpol;  /* the spec's entries, copied (for --dry-run) */
	uid_t inner_uid, inner_gid;   /* the worker's ids inside */
	uid_t outer_uid, outer_gid;   /* what they map to on the host */
	uid_t caller_uid, caller_gid; /* the caller's own ids (struct sbx_host) */
	unsigned map_count; /* ids mapped from inner_*; 1 when unprivileged; 0: no user namespace
	                       (the landlock backend, sbx_plan_no_userns) */
	bool idmap_binds;   /* root: id-map binds to the worker's mapping */
	bool root_swap; /* root with nesting: the worker is SBX_ROOT_NEST_ID, its map swaps 0 and
	                   it (sbx_plan_id_extents); the binds keep the plain range */

	char *cwd;   /* working directory inside */
	bool nested; /* built inside an sbx sandbox (host->nested): init builds its mounts from an
	              * empty root of its own, which a parent's supervisor sees no name through */
	bool git_unprotected; /* git names absent at launch that the worker could create and
	                       * nothing refuses (the line sbx_plan_finish adds as a limit) */
	bool cwd_fallback;    /* cwd is "/" because no mount shows the workspace (-v, --mount or
	                         --root replaced it): the command line says so */
	/* The worker's name (src/core/identity.c): user_name the name of inner_uid,
	 * caller_name of caller_uid (the landlock backend's worker), both set in USER and
	 * LOGNAME; etc_passwd and etc_group the files bound (SBX_PLAN_F_DATA) over the host's,
	 * the host's entries plus the worker's, or NULL where the host's name it already. */
	char *user_name, *caller_name;
	char *etc_passwd, *etc_group;
	/* /etc/resolv.conf naming sbx's resolver (SBX_NET_RESOLV_CONF) where the sandbox has
	 * one (every network mode but host); NULL: the host's file, bound as it is */
	char *etc_resolv;
	/* init binds sbx's resolv.conf over the one the sandbox shows, once the mounts are
	 * built: sbx's resolver answers there, and the plan writes no file of its own at
	 * /etc/resolv.conf (a mount the user named covers /etc; system mounts off), which is
	 * neither hidden nor a mount the user named at that very path */
	bool resolv_overlay;
	char **envp; /* NULL-terminated */
	size_t n_env;
	char *profile; /* for messages */
	/* The worker's terminal (sbx(1), TERMINAL): -t, --no-tty, or auto (a pseudo-terminal of
	 * its own when sbx's stdin and stdout are terminals), decided by the launcher. Set by the
	 * CLI. */
	enum sbx_tty_ask tty;

	/* Landlock (issue 4): filled by sbx_ll_compile after the plan is built, applied by
	 * the worker after no_new_privs. `backend_landlock`: no namespaces at all, the
	 * caller's mount namespace with Landlock alone (docs/design.md, The model). */
	struct sbx_ll_plan landlock;
	bool backend_landlock;
	const char *backend_why; /* static: why a nested run took the landlock backend, or NULL */
	/* The worker's effective spec, encoded (src/core/nest_codec.c); the launcher hands it over
	 * in a sealed memfd at fd SBX_SPEC_FD_NUMBER. Owned; NULL: the launch is refused. */
	unsigned char *spec_blob;
	size_t spec_len;

	/* The seccomp configuration, copied from the spec and completed once the backend is
	 * settled (the landlock backend's own groups: no_network, no_unix_sockets, same_ns,
	 * host_root, no_hardlinks), and the rules it resolves to (sbx_plan_resolve_seccomp):
	 * src/os/seccomp.c builds the BPF program from those rules, and --dry-run prints the
	 * same rules. A plan whose rules are not resolved (group_state NULL) is not launched. */
	struct sbx_seccomp_conf seccomp;
	struct sbx_seccomp_rules seccomp_rules;

	/* What this sandbox does not keep of what the profile says, one line each, for
	 * --dry-run (sbx_plan_add_limit): an execute denial Landlock holds for execve(2) only,
	 * a git control file that cannot be protected. Owned. */
	char **limits;
	size_t n_limits;

	/* The supervisor (include/sbx/supervise.h): what the worker's listener filter sends to
	 * sbx and how sbx decides; sup.enabled false: no listener, nothing supervised. */
	struct sbx_sup_plan sup;

	/* Resource limits (include/sbx/limits.h): the sandbox's effective ones (carried to its
	 * children in the effective spec), and those this sandbox enforces itself
	 * (resources_own: all at the top; nested, what the child lowered, the parent's cgroup
	 * and timer holding the rest). userns_max: what the sandbox's own user namespace gets
	 * of the caller's /proc/sys/user/<sbx_ucount_shares[i].name> (0: left alone). */
	struct sbx_limits resources;
	unsigned resources_own;
	uint64_t tmpfs_size; /* the size of each tmpfs that names none (sbx_limits_tmpfs_size) */
	uint64_t userns_max[SBX_N_UCOUNTS];
};

/* Resolve plan->seccomp into plan->seccomp_rules (replacing any resolved before): what the
 * worker's filter denies. Refuses an incoherent configuration (sbx_seccomp_resolve). */
int sbx_plan_resolve_seccomp(struct sbx_plan *plan, struct sbx_error *err);

/* Add a line to plan->limits (a copy; a repeat is ignored). */
/* The worker's environment: set NAME=VALUE (replacing it), or look NAME up (NULL: unset). */
int sbx_plan_set_env(struct sbx_plan *p, const char *name, const char *value,
                     struct sbx_error *err);
const char *sbx_plan_env(const struct sbx_plan *p, const char *name);

int sbx_plan_add_limit(struct sbx_plan *plan, const char *line, struct sbx_error *err);

void sbx_plan_free(struct sbx_plan *plan);
static inline void sbx_plan_freep(struct sbx_plan **p)
{
	sbx_plan_free(*p);
}
#define _cleanup_plan_ __attribute__((cleanup(sbx_plan_freep)))

/* The system mount candidates sbx looks for on a host, in plan order. */
struct sbx_system_candidate {
	const char *path;
	bool follow; /* an /etc entry: follow a symlink to its file (it is root's, not the
	                worker's); otherwise a symlink is kept as a symlink */
};
extern const struct sbx_system_candidate sbx_system_candidates[];
extern const size_t sbx_n_system_candidates;

/* The bind or root mount a guard at `path` lies in: the longest non-guard BIND or MIRROR
 * operation covering it, or NULL. */
const struct sbx_plan_op *sbx_plan_guarded_by(const struct sbx_plan *plan, const char *path);

/* Drop the guard binds (SBX_PLAN_F_GUARD) whose source the host cannot bind now, as
 * bindable(ctx, source) says (sbx_guard_bindable, src/os/guard.c; tests fake it). */
void sbx_plan_prune_guards(struct sbx_plan *plan, bool (*bindable)(void *ctx, const char *source),
                           void *ctx);

/* Build the plan for a finished spec on a host. */
int sbx_plan_build(const struct sbx_spec *spec, const struct sbx_host *host, struct sbx_plan **out,
                   struct sbx_error *err);

const char *sbx_plan_kind_name(enum sbx_plan_kind kind);

/* One line of a uid_map or gid_map: count ids from inner (in the namespace) onto outer. */
struct sbx_id_extent {
	unsigned inner, outer, count;
};

/*
 * The landlock backend makes no user namespace: the worker keeps the caller's own ids (kernel
 * uid 0, without capabilities, when root starts it), nothing is mapped (map_count 0), and no
 * bind is id-mapped (the flag leaves every operation).
 */
void sbx_plan_no_userns(struct sbx_plan *plan);

/*
 * The extents of the sandbox's uid map (gid: false) or gid map (gid: true), or, with
 * for_binds, of the user namespace the binds are id-mapped with (root only: the plain range,
 * host id k seen as kernel id SBX_ROOT_MAP_BASE + k). Returns how many (at most
 * SBX_ID_EXTENTS_MAX); the extents never overlap, inside or outside, as the kernel requires.
 */
size_t sbx_plan_id_extents(const struct sbx_plan *plan, bool gid, bool for_binds,
                           struct sbx_id_extent out[SBX_ID_EXTENTS_MAX]);

/* True if `path` (normalised) is a directory sbx makes in its own root only to hold mount
 * points: an ancestor of some operation's target that no operation covers (root mode mirrors
 * the root's own directories instead). */
bool sbx_plan_is_scaffold_dir(const struct sbx_plan *plan, const char *path);

/*
 * Resolution (docs/design.md, The model): map a sandbox path onto the host through the plan:
 * normalise, find the operation with the longest matching target, map the remainder onto its
 * source. On success *op is the deciding operation's index and host (size bytes) the host path;
 * returns 0. Returns -ENOENT when no operation covers the path (it does not exist inside),
 * or when it lies in a tmpfs, /proc or /dev (no host path; *op is still set).
 */
int sbx_plan_resolve(const struct sbx_plan *plan, const char *path, size_t *op, char *host,
                     size_t size, struct sbx_error *err);

/*
 * Where the sandbox shows host path `host`: each bind (or the --root mirror) whose source
 * covers it, at its target plus the rest, called back with that sandbox path and whether the
 * mount is read-only (a system mount, or :ro). Returns how many views there are (0: not
 * visible), or the callback's negative return.
 */
int sbx_plan_host_views(const struct sbx_plan *plan, const char *host,
                        int (*cb)(void *ctx, const char *view, bool readonly), void *ctx);

#endif
