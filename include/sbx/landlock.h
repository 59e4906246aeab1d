/* SPDX-License-Identifier: MIT */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

/*
 * Per-operation rights compiled to Landlock (docs/design.md, The model (policies)). Core computes a
 * struct sbx_ll_plan from a plan, a spec and its policies (pure: the rights are plain numbers, the
 * kernel's own bit values, which are part of its ABI); src/os/landlock.c negotiates the ABI
 * and enforces it in the worker; --dry-run prints it.
 *
 * Ownership: a struct sbx_ll_plan owns its rules and notes; sbx_ll_plan_clear accepts a
 * zeroed or cleared plan.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"

struct sbx_policy_view;

/* Filesystem rights: the values of the kernel's LANDLOCK_ACCESS_FS_* (stable ABI). */
#define SBX_LL_FS_EXECUTE     (1ull << 0)
#define SBX_LL_FS_WRITE_FILE  (1ull << 1)
#define SBX_LL_FS_READ_FILE   (1ull << 2)
#define SBX_LL_FS_READ_DIR    (1ull << 3)
#define SBX_LL_FS_REMOVE_DIR  (1ull << 4)
#define SBX_LL_FS_REMOVE_FILE (1ull << 5)
#define SBX_LL_FS_MAKE_CHAR   (1ull << 6)
#define SBX_LL_FS_MAKE_DIR    (1ull << 7)
#define SBX_LL_FS_MAKE_REG    (1ull << 8)
#define SBX_LL_FS_MAKE_SOCK   (1ull << 9)
#define SBX_LL_FS_MAKE_FIFO   (1ull << 10)
#define SBX_LL_FS_MAKE_BLOCK  (1ull << 11)
#define SBX_LL_FS_MAKE_SYM    (1ull << 12)
#define SBX_LL_FS_REFER       (1ull << 13) /* ABI 2 */
#define SBX_LL_FS_TRUNCATE    (1ull << 14) /* ABI 3 */
#define SBX_LL_FS_IOCTL_DEV   (1ull << 15) /* ABI 5 */
#define SBX_LL_FS_ALL         ((1ull << 16) - 1)
/* The rights the kernel accepts on a rule whose path is not a directory. */
#define SBX_LL_FS_FILE                                                                             \
	(SBX_LL_FS_EXECUTE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE | SBX_LL_FS_TRUNCATE |     \
	 SBX_LL_FS_IOCTL_DEV)

/* TCP (ABI 4) and scopes (ABI 6). */
#define SBX_LL_NET_BIND_TCP        (1ull << 0)
#define SBX_LL_NET_CONNECT_TCP     (1ull << 1)
#define SBX_LL_SCOPE_ABSTRACT_UNIX (1ull << 0)
#define SBX_LL_SCOPE_SIGNAL        (1ull << 1)

#define SBX_LL_ABI_KNOWN 7 /* the newest ABI this version knows */

/* What each ABI adds, newest last: the table the negotiation masks down with (as the kernel's
 * sandboxer sample's falling-through switch). */
struct sbx_ll_abi_step {
	int abi;
	uint64_t fs, net, scoped; /* rights this ABI introduced */
	const char *lacks;        /* what a kernel older than this ABI cannot enforce */
	const char *since;        /* the first Linux release with it */
};
extern const struct sbx_ll_abi_step sbx_ll_abi_steps[];
extern const size_t sbx_ll_n_abi_steps;

/* The rights (fs, net, scopes) a kernel with this ABI knows; abi <= 0: none. */
uint64_t sbx_ll_fs_for_abi(int abi);
uint64_t sbx_ll_net_for_abi(int abi);
uint64_t sbx_ll_scoped_for_abi(int abi);

/* The filesystem rights that carry a set of sbx operations (enum sbx_op bits): read →
 * READ_FILE, list → READ_DIR, write → WRITE_FILE and TRUNCATE, create → MAKE_* but character
 * and block devices, delete → REMOVE_*, execute → EXECUTE; REFER where both create and delete
 * are allowed (a move out of and into the tree). stat has no right: Landlock cannot deny it. */
uint64_t sbx_ll_fs_from_ops(unsigned ops);

/* The sbx operations a rights mask carries in full (the inverse of sbx_ll_fs_from_ops). */
unsigned sbx_ll_ops_from_fs(uint64_t access);

/* "read_file,read_dir,..." for a rights mask; returns buf. */
const char *sbx_ll_fs_format(uint64_t access, char *buf, size_t size);

struct sbx_ll_rule {
	char *path;      /* absolute sandbox path (host path under the landlock backend) */
	uint64_t access; /* SBX_LL_FS_* bits granted beneath path */
	uint64_t full;   /* what the policies allow there before paths beneath it took some
	                    away (see sbx_ll_expand); == access when nothing was */
	unsigned ops;    /* the sbx operations these rights carry, for --dry-run */
	const char *why; /* static: where the rule comes from */
	bool hidden;     /* landlock backend: a path denied whole (hidden, or a private tmpfs):
	                    no rule is added for it, and the rules above it are carved around it
	                    (sbx_ll_expand) */
	size_t base_len; /* > 0: a rule carved from the rule on path[0..base_len): the rest is
	                    opened beneath that one without following any symlink */
	bool found;      /* hidden: the walk of the hide globs found it at this launch; absent
	                    when carved, another process moved it meanwhile: refused */
	bool present;    /* hidden, and there when carved: sbx_landlock_enforce checks that no
	                    rule beside it is it or a folder above it by identity (a rename
	                    between the listing and the rules could make one so) */
	bool beside;     /* carved with its own rights beside a hidden path */
	bool follow;     /* a system path or sbx's own (root's symlinks followed); every other
	                    rule is opened with no symlink on its path (a worker may have
	                    planted one in a mount's source) */
};

struct sbx_ll_plan {
	bool enabled; /* false: no Landlock at all (nothing to enforce) */
	/* handled_fs == 0 with enabled: scopes only (sbx_ll_scopes_only) */
	uint64_t handled_fs;  /* rights the ruleset handles (denied unless a rule grants) */
	uint64_t needed_fs;   /* rights only Landlock denies where the policies deny them
	                         (mount flags do not): what an older kernel would lose */
	uint64_t handled_net; /* SBX_LL_NET_*: TCP denied (landlock backend, --net none) */
	uint64_t scoped;      /* SBX_LL_SCOPE_* */
	/* The landlock backend's allowlist: the only ports TCP may connect to (sbx's proxy on
	 * the host's loopback; the supervisor checks the address). Filled at launch, when the
	 * proxy listens (cmd/sbx, before sbx_launch); none: every connect denied. */
	unsigned connect_ports[4];
	size_t n_connect_ports;
	struct sbx_ll_rule *rules;
	size_t n_rules;
	char **inexact; /* what was compiled stricter than the policies say, and why */
	size_t n_inexact;
	int abi;         /* after sbx_ll_negotiate: the ABI the ruleset is built for */
	char *lost;      /* landlock backend: what it gives up, one per line (owned; may be NULL) */
	const char *off; /* static: why Landlock is not applied though it could be, or NULL */
};

void sbx_ll_plan_clear(struct sbx_ll_plan *p);

/* Compile options. */
struct sbx_ll_opts {
	bool same_ns;     /* the landlock backend: no mounts of sbx's own, so no read-only or noexec
	                     flags and no masks back the rights up; everything rests on Landlock */
	bool ask_is_deny; /* no supervisor can be installed (a parent already supervises, or no
	                     user notification): a mount's `ask` approvals are compiled as `deny`
	                     (its `deny` approvals always are) */
};

/*
 * The Landlock rights a mount's approvals take away (include/sbx/supervise.h): write deny ->
 * writing and making entries (and moves in); overwrite deny -> truncation (a rename or link
 * over a file, which needs the remove right the delete class holds, is the supervisor's);
 * delete or rename deny -> removing entries (and moves out): Landlock has one right for an
 * unlink and a rename away, so either denies both. `ask` counts as `deny` with ask_is_deny.
 */
struct sbx_approvals;
uint64_t sbx_ll_approvals_take(const struct sbx_approvals *a, bool ask_is_deny);

/*
 * Compile the effective rights of every mount of view->plan into Landlock rules: what each
 * sbx operation allowed over a mount's whole tree becomes rights on its target; rules over
 * part of a mount that Landlock cannot express (rights are granted to a directory and
 * everything beneath it, and a grant can never be taken back beneath) are compiled stricter,
 * with a note in out->inexact. Returns 0, or -errno with err (out of memory, a bad path).
 */
int sbx_ll_compile(const struct sbx_policy_view *view, const struct sbx_ll_opts *opts,
                   struct sbx_ll_plan *out, struct sbx_error *err);

/*
 * Mask a compiled plan down to what a kernel with Landlock ABI `abi` knows (abi <= 0: no
 * Landlock), as the kernel's sandboxer sample does. What the kernel lacks and the plan needs
 * (needed_fs; TCP; scopes under the landlock backend) is refused (-EOPNOTSUPP, err naming the
 * missing ABI and what it would enforce) unless `best_effort`, when each becomes a line in
 * warn (one per line, size bytes) and the plan runs with what the kernel has. What an older
 * ABI only makes stricter (REFER), or what the mounts enforce anyway, is never refused; with
 * no Landlock and nothing needed, p->enabled becomes false. `landlock_backend`: nothing but
 * Landlock confines the worker (scopes and TCP matter).
 */
int sbx_ll_negotiate(struct sbx_ll_plan *p, int abi, bool landlock_backend, bool best_effort,
                     char *warn, size_t size, struct sbx_error *err);

/*
 * Carving (the landlock backend, where rules name the host's paths). Landlock only grants,
 * and a grant reaches everything beneath it: a rule whose rights a path beneath it must not
 * have (a hidden path, a private tmpfs, a subtree rule that allows less) is compiled as
 * rules on each of its other entries, walking down the chain of directories that lead to
 * those paths. Each directory on a chain keeps the rights that cannot reach the paths
 * beneath it: listing and creating entries where every hidden path beneath is an existing
 * file (a new entry can never be one of them), nothing where one is a directory; never
 * delete or moves, which would reach a hidden file. So a hidden path is denied (EACCES),
 * not masked; other entries keep their rights; entries created later directly in a
 * directory on a chain get only that directory's rights (no read): stricter, and noted.
 *
 * The host is asked through callbacks (src/os/landlock.c reads directories without following
 * any symlink beneath the carved rule; unit tests give a table), so that the compile stays
 * pure.
 */
enum sbx_ll_kind {
	SBX_LL_ABSENT = 0,
	SBX_LL_DIR,
	SBX_LL_FILE, /* anything but a directory or a symlink */
	SBX_LL_LINK,
	SBX_LL_UNREADABLE, /* exists, cannot be looked at: treated as a directory */
	SBX_LL_VIA_LINK,   /* a symbolic link on the way to it (not its last component) */
};

struct sbx_ll_entry {
	char name[256];
	enum sbx_ll_kind kind;
};

struct sbx_ll_host {
	/* The entries of base/rel (rel "" for base), at most `max`; returns how many the
	 * directory holds (which may be more than max), or -errno. *out is malloc'd. */
	long (*list)(void *ctx, const char *base, const char *rel, size_t max,
	             struct sbx_ll_entry **out);
	/* What base/rel is, without following a symlink beneath base. */
	enum sbx_ll_kind (*kind)(void *ctx, const char *base, const char *rel);
	void *ctx;
};

#define SBX_LL_MAX_RULES 20000 /* rules after carving, at most */
/* hidden paths and the folders above them checked by identity at enforcing, at most */
#define SBX_LL_MAX_HIDDEN_IDS 8192

/* Carve every rule that lost rights to a path beneath it (see above); refuses (E2BIG, exit
 * 125) past max_rules, naming the count, the cap and what to do. */
int sbx_ll_expand(struct sbx_ll_plan *p, const struct sbx_ll_host *host, size_t max_rules,
                  struct sbx_error *err);

/* The host's own directories are sbx_landlock_host (src/os/landlock.h), which
 * sbx_plan_finish takes as a fact (finish.h). */

/*
 * Keep only the scopes (abstract unix sockets, signals): for a namespaces sandbox that may nest
 * and whose mounts enforce every file right. The rules and the notes about them go; nothing of
 * the file system or TCP is handled. A domain that handles no file access does not forbid
 * mounting (the kernel's mount hooks in security/landlock/fs.c deny only where a layer of the
 * domain handles some file access), so nested sandboxes still build their mount namespaces,
 * while the worker can neither connect to an abstract unix socket nor signal a process outside
 * its sandbox (its own init included). With --net host the abstract sockets of the host's
 * network namespace (X11, D-Bus, anything bound to @name) would otherwise be in reach.
 */
void sbx_ll_scopes_only(struct sbx_ll_plan *p);

/* Add a line to p->inexact (a copy). */
int sbx_ll_note(struct sbx_ll_plan *p, const char *text, struct sbx_error *err);

/* ---- the landlock backend (docs/design.md, The model) ---- */

struct sbx_spec;
struct sbx_plan;

/*
 * Can this spec run under the landlock backend, in the caller's own mount namespace?
 * Refused: root mode, and mounts seen elsewhere than at their source. What only namespaces
 * give exactly is compiled stricter, never refused: hidden paths are denied rather than
 * masked (carved, sbx_ll_expand), a private tmpfs denies the host's directory, --net none
 * denies loopback too (seccomp: sockets but AF_UNIX). `lost` gets, one per line, what is
 * stricter (prefixed "STRICTER: ") and what the backend gives up. best_effort is accepted
 * for the callers' sake: nothing here needs it.
 */
int sbx_ll_backend_check(const struct sbx_spec *spec, const struct sbx_plan *plan, bool best_effort,
                         char *lost, size_t size, struct sbx_error *err);

#endif
