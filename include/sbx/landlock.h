/* SPDX-License-Identifier: MIT */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

/*
 * Per-operation rights compiled to Landlock (SPEC section 4). Core computes a struct
 * sbx_ll_plan from a plan, a spec and its policies (pure: the rights are plain numbers, the
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
	                    away (see sbx_landlock_expand); == access when nothing was */
	unsigned ops;    /* the sbx operations these rights carry, for --dry-run */
	const char *why; /* static: where the rule comes from */
};

struct sbx_ll_plan {
	bool enabled;         /* false: no Landlock at all (nothing to enforce) */
	uint64_t handled_fs;  /* rights the ruleset handles (denied unless a rule grants) */
	uint64_t needed_fs;   /* rights only Landlock denies where the policies deny them
	                         (mount flags do not): what an older kernel would lose */
	uint64_t handled_net; /* SBX_LL_NET_*: TCP denied (landlock backend, --net none) */
	uint64_t scoped;      /* SBX_LL_SCOPE_* */
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
	bool same_ns; /* the landlock backend: no mounts of sbx's own, so no read-only or noexec
	                 flags and no masks back the rights up; everything rests on Landlock */
};

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
 * Give back, entry by entry, what a rule lost because a path beneath it allows less
 * (src/os/landlock.c; reads directories, so it runs where the rules' paths are the host's:
 * the landlock backend, in sbx before it starts the worker). For each such rule, every entry
 * of its directory gets a rule of its own with the full rights, except the entries on the
 * way to the paths beneath that have rules of their own, which are descended into. Entries
 * created later directly in those directories get only the reduced rights (stricter); a
 * note in p->inexact says so.
 */
int sbx_landlock_expand(struct sbx_ll_plan *p, struct sbx_error *err);

/* Add a line to p->inexact (a copy). */
int sbx_ll_note(struct sbx_ll_plan *p, const char *text, struct sbx_error *err);

/* ---- the landlock backend (SPEC section 3) ---- */

struct sbx_spec;
struct sbx_plan;

/*
 * Can this spec run under the landlock backend, in the caller's own mount namespace?
 * Refused always: root mode, and mounts seen elsewhere than at their source. Refused unless
 * best_effort: what the profile asks that only namespaces give (hidden paths, private tmpfs
 * mounts, --net none beyond TCP). `lost` gets what the backend gives up, one per line,
 * including those accepted by best_effort (prefixed "NOT ENFORCED:").
 */
int sbx_ll_backend_check(const struct sbx_spec *spec, const struct sbx_plan *plan, bool best_effort,
                         char *lost, size_t size, struct sbx_error *err);

#endif
