/* SPDX-License-Identifier: MIT */
#ifndef SBX_NEST_H
#define SBX_NEST_H

/*
 * Nesting (docs/design.md, Nesting): the effective spec a worker runs under, as the sandbox sees
 * it; its codec (what travels to the worker in the sealed memfd named by SBX_SPEC_FD); and the
 * narrowing of a parent's effective spec by a sub-worker's request.
 *
 * The effective spec is advisory for the child: it says what the parent *meant* so that a
 * nested `sbx run` can refuse a wider request with a good message. The boundary itself is
 * held by the kernel: a nested sandbox is built only from what its caller can see (same
 * paths), with the caller's read-only locks, so a forged or missing memfd gains nothing.
 *
 * Ownership: a struct sbx_nest owns its strings and arrays; sbx_nest_free accepts NULL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

#define SBX_NEST_VERSION                                                                           \
	5u                         /* 2: per-operation rights (SBX_NEST_RULE); 3: scopes, origin;  \
	                              4: the sandbox's id (a spec without one is written, and      \
	                              read, as version 3); 5: limits and the network allowlist     \
	                              (a spec with neither is written, and read, as version 4 or   \
	                              3) */
#define SBX_NEST_ID_LEN      32u   /* a sandbox id: hex digits (SBX_SANDBOX_ID_LEN) */
#define SBX_NEST_MAX_DEPTH   16u   /* at least 8 levels (sbx(1)) */
#define SBX_NEST_MAX_ENTRIES 4096u /* mounts in one effective spec */
#define SBX_NEST_CODEC_MAX   (1u << 20)     /* bytes of an encoded spec */
#define SBX_NEST_PROFILE_MAX 255u           /* bytes of a profile name */
#define SBX_NEST_MAX_GRANTS  SBX_MAX_MOUNTS /* paths named by one nested request */
#define SBX_NEST_MAX_RULES   512u /* SBX_NEST_RULE entries carried; beyond, stricter (dropped) */
#define SBX_SPEC_FD_ENV      "SBX_SPEC_FD"
#define SBX_SPEC_FD_NUMBER   3                /* the worker's spec fd: the first after stdio */
#define SBX_NEST_PROC_DIR    "/dev/.sbx-nest" /* masked; holds the nesting procfs (plan.c) */

enum sbx_nest_kind {
	SBX_NEST_BIND = 0, /* a directory or file of the sandbox's view */
	SBX_NEST_TMPFS,    /* a tmpfs the profile or flags asked for (shared with children) */
	SBX_NEST_DEVICE,   /* a device node with device access */
	SBX_NEST_HIDDEN,   /* masked: exists, but nothing may be done to it */
	SBX_NEST_SYMLINK,  /* a system symlink (/bin -> usr/bin): rights are those of its target */
	SBX_NEST_RULE,     /* no mount: the per-operation rights a policy gives beneath a mount
	                      (Landlock holds them; a nested sandbox's layer re-applies them) */
	SBX_NEST_KIND_MAX_,
};

enum {
	SBX_NEST_F_SYSTEM = 1u << 0, /* one of the system mounts: always read-only */
	SBX_NEST_F_ALL_ = 1u,
};

enum sbx_backend {
	SBX_BACKEND_NAMESPACES = 0, /* user+mount namespace (+ Landlock once it lands) */
	SBX_BACKEND_LANDLOCK,       /* Landlock + seccomp in the caller's mount namespace */
	SBX_BACKEND_MAX_,
};

struct sbx_nest_mount {
	char *target;    /* absolute, normalised sandbox path */
	unsigned rights; /* enum sbx_op bits (policy.h): what may be done beneath target */
	unsigned kind;   /* enum sbx_nest_kind */
	unsigned flags;  /* SBX_NEST_F_* */
};

struct sbx_nest {
	char *profile;  /* name, for messages and SBX_PROFILE */
	unsigned depth; /* 1: a sandbox started from outside any sandbox */
	unsigned backend;
	unsigned net;                /* enum sbx_net_mode */
	struct sbx_netpolicy netpol; /* SBX_NET_ALLOW's entries (owned) */
	bool nesting;                /* may this sandbox's worker start sub-sandboxes */
	bool landlocked; /* the worker runs in a Landlock domain that handles file rights: it can
	                    no longer mount */
	unsigned scoped; /* SBX_LL_SCOPE_* the worker's Landlock domains hold (abstract unix
	                    sockets, signals): it cannot reach what runs outside its sandbox */
	bool parent_unknown; /* sbx found itself confined (no_new_privs, a seccomp filter) with
	                        no SBX_SPEC_FD when it started the outermost sandbox it knows of:
	                        a container, or a sandbox whose worker dropped its spec; depth
	                        counts from there */
	struct sbx_nest_mount *mounts; /* sorted by target (strcmp), targets unique */
	size_t n_mounts;
	/* The id of the sandbox this spec is the worker's (the audit log's "sandbox"), so that
	 * a nested sbx can name its parent; "" where none was given. 32 lower-case hex digits.
	 * Never inherited: a narrowed child starts without one. */
	char sandbox_id[SBX_NEST_ID_LEN + 1];
	/* The sandbox's resource limits (include/sbx/limits.h), which a nested sandbox may only
	 * lower (sbx_limits_narrow). */
	struct sbx_limits limits;
};

struct sbx_nest *sbx_nest_new(void);
void sbx_nest_free(struct sbx_nest *n);
static inline void sbx_nest_freep(struct sbx_nest **p)
{
	sbx_nest_free(*p);
}
#define _cleanup_nest_ __attribute__((cleanup(sbx_nest_freep)))

/* Add (or replace) the entry at target; keeps the array sorted. */
int sbx_nest_put(struct sbx_nest *n, const char *target, unsigned kind, unsigned rights,
                 unsigned flags, struct sbx_error *err);

/* The covering entry of a sandbox path: the one with the longest target covering it. */
const struct sbx_nest_mount *sbx_nest_lookup(const struct sbx_nest *n, const char *path);

/* What may be done at path: the covering entry's rights (0 when unseen or hidden). */
unsigned sbx_nest_rights(const struct sbx_nest *n, const char *path);

/* ---- codec ---- */

/*
 * Encode: a versioned, length-prefixed, little-endian byte string; never a raw struct.
 * Canonical: decode(encode(x)) == x and encode(decode(b)) == b for every b decode accepts.
 * *out is allocated (caller frees).
 */
int sbx_nest_encode(const struct sbx_nest *n, unsigned char **out, size_t *len,
                    struct sbx_error *err);

/* Decode; refuses truncated, oversized, non-canonical or garbage input with -EBADMSG. */
int sbx_nest_decode(const unsigned char *buf, size_t len, struct sbx_nest **out,
                    struct sbx_error *err);

/* Give the encoded spec at *blob (*len bytes, owned) a sandbox id (SBX_NEST_ID_LEN lower-case
 * hex digits): decoded, the id set, encoded again in place of the old bytes. */
int sbx_nest_blob_set_id(unsigned char **blob, size_t *len, const char *id, struct sbx_error *err);

/* ---- the effective spec of a sandbox about to be launched ---- */

/*
 * What the worker of this plan will see: its mounts (system mounts, the root, the spec's
 * binds, tmpfs and devices, hidden paths) with their rights; sbx's own /proc, /dev and
 * private /tmp are left out (every sandbox gets fresh ones).
 */
int sbx_nest_from_plan(const struct sbx_spec *spec, const struct sbx_plan *plan, unsigned depth,
                       unsigned backend, struct sbx_nest **out, struct sbx_error *err);

/* ---- per-operation rights (policies, Landlock) ---- */

struct sbx_ll_plan;

/*
 * Carry what a worker's Landlock domain allows into its effective spec: each entry keeps only
 * the operations the rules covering its target grant (a Landlock domain grants beneath a rule
 * the union of the rules above), and a rule beneath an entry that grants something else there
 * becomes an SBX_NEST_RULE entry (at most SBX_NEST_MAX_RULES; beyond, the rest are left out,
 * which is stricter). Entries no rule covers (sbx's own /dev, say) are left alone. Never
 * widens: rights(n', p) is a subset of rights(n, p) for every p.
 */
int sbx_nest_apply_landlock(struct sbx_nest *n, const struct sbx_ll_plan *ll,
                            struct sbx_error *err);

/*
 * The other way, for a nested sandbox: cut the Landlock rules compiled from its spec down to
 * its effective spec's per-operation rights (a rule covered by an entry keeps only what the
 * entry allows), add a rule for each SBX_NEST_RULE entry, and mark as needed what only
 * Landlock can deny (a write without delete, say), so that the layer is not left off.
 */
int sbx_nest_ll_narrow(const struct sbx_nest *n, struct sbx_ll_plan *ll, struct sbx_error *err);

/*
 * A nested sandbox on the landlock backend: deny each of the n paths whole, whatever rule
 * reaches it, including the rule entries sbx_nest_ll_narrow added after compiling (a carved
 * parent's directories), which the compile could not know: a hidden rule for each path, and
 * every other rule above it reduced, to be carved around it by sbx_ll_expand (call it after
 * this). A path no rule reaches is denied already.
 */
int sbx_nest_ll_hide(struct sbx_ll_plan *ll, char *const *paths, size_t n, struct sbx_error *err);

/* ---- narrowing ---- */

enum sbx_grant_kind {
	SBX_GRANT_RESTRICT = 0, /* --restrict P: the parent's rights at P */
	SBX_GRANT_READ,         /* --allow-read P, -v P:ro, a read-only profile mount */
	SBX_GRANT_WRITE,        /* --allow-write P, -v P[:rw], a writable profile mount */
};

struct sbx_grant {
	char *path; /* absolute sandbox path (normalised by sbx_nest_request_add) */
	unsigned kind;
	bool optional; /* a profile's optional mount: skipped if the parent does not see it */
	bool noexec;   /* nothing beneath may be executed (a nested profile's policy) */
	char *what;    /* the request as the user wrote it, for messages: "--allow-write /src" */
};

struct sbx_nest_request {
	bool readonly;
	bool net_given; /* --net or a nested profile's network: key */
	unsigned net;
	const struct sbx_netpolicy *netpol; /* the entries asked for (borrowed), or NULL */
	bool no_nesting;                    /* the child may not nest further */
	bool no_system;      /* --no-system-mounts, or a profile's system_mounts: none */
	const char *profile; /* a nested --profile's name, or NULL (borrowed) */
	struct sbx_grant *grants;
	size_t n_grants;
	char **hide; /* sandbox paths to hide in the child (borrowed from a profile's spec) */
	size_t n_hide;
};

void sbx_nest_request_clear(struct sbx_nest_request *r);
int sbx_nest_request_add(struct sbx_nest_request *r, unsigned kind, const char *path, bool optional,
                         const char *what, struct sbx_error *err);

/*
 * The child's effective spec: the parent's, narrowed per docs/design.md, Nesting, or an escalation
 * error (SBX_ERR_ESCALATION, exit 125) naming the request, the parent's boundaries and a
 * valid alternative. Never wider than the parent: for every path p and operation o,
 * rights(child, p) & o implies rights(parent, p) & o.
 */
int sbx_spec_narrow(const struct sbx_nest *parent, const struct sbx_nest_request *req,
                    struct sbx_nest **child, struct sbx_error *err);

/*
 * The spec a nested sandbox is built from: each entry mounted from the caller's view at its
 * own path with the entry's rights (read-only where nothing may be written, noexec where
 * nothing may be executed), hidden entries masked; the system mounts are taken from the
 * caller's view, filtered by sbx_nest_system_allowed().
 */
int sbx_nest_to_spec(const struct sbx_nest *n, const char *cwd, struct sbx_spec **out,
                     struct sbx_error *err);

/* True if the effective spec has this system path (or symlink) among its system mounts. */
bool sbx_nest_system_allowed(const struct sbx_nest *n, const char *path);

/* "read /, /usr; write /out" for messages: the non-system boundaries, capped to size. */
const char *sbx_nest_boundaries(const struct sbx_nest *n, char *buf, size_t size);

const char *sbx_backend_name(unsigned backend);
const char *sbx_nest_kind_name(unsigned kind);

#endif
