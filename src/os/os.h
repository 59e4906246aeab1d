/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_H
#define SBX_OS_H

/*
 * Thin kernel-facing modules, one concern a file. They decide nothing: the plan (core) says
 * what to build; these say how the kernel is asked. Each returns >= 0 or -errno and fills
 * err on failure; none prints or exits.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/plan.h"
#include "sbx/specfd.h"

/* ---- fs.c ---- */

/* openat2(2) (glibc 2.36 does not wrap it), or, where it answers ENOSYS (inside a parent
 * sandbox), a walk one component at a time that refuses what the flags refuse: -errno on
 * failure. Only RESOLVE_NO_SYMLINKS with RESOLVE_NO_MAGICLINKS and RESOLVE_BENEATH. */
int sbx_openat2(int dirfd, const char *path, int flags, unsigned long long resolve);

/* ---- userns.c ---- */

/* Write uid_map, gid_map (and setgroups) of process pid per the plan's identity. */
int sbx_userns_write_maps(pid_t pid, const struct sbx_plan *plan, struct sbx_error *err);

/* A user namespace fd carrying the plan's mapping, for id-mapped mounts (root only). */
int sbx_userns_idmap_fd(const struct sbx_plan *plan, struct sbx_error *err);

/* In the new user namespace, after the maps are written: become the plan's inner ids. */
int sbx_userns_become(const struct sbx_plan *plan, struct sbx_error *err);

/* sbx_userns_explain (sbx/probe.h): a failure to create namespaces as one actionable line,
 * with the verdict (may the landlock backend stand in?) in err->kind. */

/* ---- mounts.c ---- */

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

/*
 * In the child's own mount namespace: make every mount private, build the new root in a
 * tmpfs of sbx's own from the plan and the prepared sources, and pivot into it. Nothing is
 * created on the host: missing mount points are made only inside sbx's tmpfs mounts.
 */
int sbx_mounts_build(const struct sbx_plan *plan, struct sbx_prepared *prep, struct sbx_error *err);

/* ---- landlock.c ---- */

/* The Landlock ABI of this kernel (>= 1), or -ENOSYS / -EOPNOTSUPP when it has none. */
int sbx_landlock_abi(void);

/* Build the negotiated ruleset and restrict the calling process with it (after
 * no_new_privs). No allocation: safe in a vfork child. */
int sbx_landlock_enforce(const struct sbx_ll_plan *p, struct sbx_error *err);

/* ---- caps.c ---- */

/* Drop every capability (effective, permitted, inheritable, ambient, bounding) and lock
 * the securebits so that no execve can give any back. */
int sbx_caps_drop_all(struct sbx_error *err);

/* For a process that lacks CAP_SETPCAP (the landlock backend run by an ordinary user):
 * empty the effective, permitted, inheritable and ambient sets, and verify. Safe only
 * followed by no_new_privs. */
int sbx_caps_clear_unprivileged(struct sbx_error *err);

/* ---- net.c ---- */
int sbx_net_loopback_up(struct sbx_error *err);

/* ---- proc.c ---- */

/* The signals sbx forwards to the worker (SPEC section 7). */
extern const int sbx_forwarded_signals[];
extern const size_t sbx_n_forwarded_signals;
/* Job control: a stop of sbx stops the worker's process group, a continue continues it. */
extern const int sbx_job_signals[];
extern const size_t sbx_n_job_signals;

/* Block the forwarded and job-control signals and SIGCHLD; return a signalfd for them. */
int sbx_proc_signalfd(struct sbx_error *err);

/* Die with SIGKILL when the parent dies; fails if the parent is already gone, detected by
 * EOF on sync_fd (the parent's end of a pipe). */
int sbx_proc_die_with_parent(struct sbx_error *err);

/* Exit status as a shell reports it: the code, or 128+N for signal N. */
int sbx_proc_status_code(int wstatus);

/* pid 1 of the sandbox: reap every child, forward signals to the worker, and return the
 * worker's status code when it ends. */
int sbx_proc_init_loop(pid_t worker, int sigfd);

/* exec argv[0] the way execvp would, but searching the PATH of envp, and with 126/127
 * errors that name the command. Returns only on failure. */
int sbx_proc_exec(char *const argv[], char *const envp[], struct sbx_error *err);

#endif
