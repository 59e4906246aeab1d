/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_MOUNTS_H
#define SBX_OS_MOUNTS_H

/* The sandbox's mounts, built from the plan's operations with the new mount API
 * (src/os/mounts.c). */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/plan.h"

/* Detached mounts prepared for each operation that needs a host source. */
struct sbx_mirror_entry {
	char name[256];
	int kind; /* SBX_HOST_DIR, SBX_HOST_FILE, SBX_HOST_SYMLINK */
	int fd;   /* detached mount for dirs and files, -1 for symlinks */
	char *link;
};

struct sbx_prepared {
	int *fds;     /* per plan op: a detached mount fd, or -1 */
	bool *absent; /* per plan op: an optional source that does not exist */
	struct sbx_mirror_entry *mirror;
	size_t n_mirror;
	size_t n;
	/* init, as root: the sources come one by one on stream_fd as sbx makes them
	 * (sbx_prepared_stream), and each bind waits for its own; next: ops heard of so far */
	bool streaming;
	int stream_fd;
	size_t next;
};

/*
 * Resolve each plan source once and clone it as a detached mount, with its attributes
 * (read-only recursive, nosuid, nodev unless a device, id-mapped if userns_fd >= 0) applied
 * before it is ever attached. Source paths are opened without following symlinks (a worker
 * may have planted them), except system paths flagged FOLLOW.
 */
int sbx_mounts_prepare(const struct sbx_plan *plan, int userns_fd, struct sbx_prepared *out,
                       struct sbx_error *err);
void sbx_prepared_clear(struct sbx_prepared *p);

/* As root (plan->idmap_binds): the sources init does not clone itself (those the plan
 * id-maps, which only sbx may; sbx's own binary; devices; guards) cloned, their attributes
 * set and sent on sock (SCM_RIGHTS, in plan order) as soon as each is made, for an init that
 * builds meanwhile (sbx_prepared_stream); not for a --root (SBX_PLAN_MIRROR: refused). sbx
 * keeps none of them. The id-mapping user namespace is made when the first id-mapped one
 * comes, and left in *userns_fd (the caller's to close). */
int sbx_mounts_prepare_send(const struct sbx_plan *plan, int *userns_fd, int sock,
                            struct sbx_error *err);
/* init: the system mounts' sources are cloned here, now (init clones them faster than they
 * would come over the socket, from directories everyone may search); the others will come
 * on sock, as sbx_mounts_prepare_send sends them, and sbx_mounts_build takes each when its
 * bind comes. A data file's bind (SBX_PLAN_F_DATA) has no source to clone, here or in
 * sbx_mounts_prepare. */
int sbx_prepared_stream(struct sbx_prepared *p, const struct sbx_plan *plan, int sock,
                        struct sbx_error *err);

/*
 * In the child's own mount namespace: make every mount private, build the new root in a
 * tmpfs of sbx's own from the plan and the prepared sources, and pivot into it. Nothing is
 * created on the host: missing mount points are made only inside sbx's tmpfs mounts.
 */
int sbx_mounts_build(const struct sbx_plan *plan, struct sbx_prepared *prep, struct sbx_error *err);

/*
 * A detached mount (a tmpfs that was only a source of clones: the masks', a data file's),
 * kept open till sbx_mounts_close_deferred. The last reference to a detached tree dissolves
 * it, and the kernel waits for an RCU grace period there (50-250 us on the VMs sbx is
 * measured on): init closes them once the worker has started, not on the way to it. fd is
 * close-on-exec; where no room is left it is closed at once.
 */
void sbx_mounts_defer_close(int fd);
void sbx_mounts_close_deferred(void);

#endif
