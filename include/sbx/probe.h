/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <stdbool.h>

#include "sbx/error.h"
#include "sbx/plan.h"

/*
 * Fill *host with what the planner needs to know about this machine: the caller's ids, cwd
 * and environment, and which system mount candidates exist (and which are symlinks).
 * The strings are owned by the probe; release them with sbx_probe_host_clear().
 */
int sbx_probe_host(struct sbx_host *host, char *const *envp, struct sbx_error *err);
void sbx_probe_host_clear(struct sbx_host *host);

/* 0 if this process can create a user namespace (with a mount namespace in it), else
 * -errno (src/os/userns.c). Forks a throwaway child. */
int sbx_userns_probe(void);

/* Translate a failure (errno) to create namespaces into one actionable line in err, naming
 * what blocks them (sysctl, AppArmor, a container's seccomp profile) and the fix. */
int sbx_userns_explain(int errnum, struct sbx_error *err);

/* What id `id` of this process's user namespace is in its parent user namespace (read from
 * /proc/self/uid_map, or gid_map): 0 and *outer, or -errno (-ENOENT: unmapped). *whole: the
 * map is the identity over every id, as in the initial user namespace. */
int sbx_probe_outer_id(bool gid, unsigned id, unsigned *outer, bool *whole);

/* The Landlock ABI of this kernel (>= 1), or -ENOSYS / -EOPNOTSUPP when it has none
 * (src/os/landlock.c). */
int sbx_landlock_abi(void);

/* What this kernel and system allow (src/os/sysprobe.c), for `sbx doctor`. */
struct sbx_system_facts {
	char kernel[65];
	unsigned euid;
	int userns_errno;               /* 0: a user namespace can be made here */
	long max_user_namespaces;       /* -1: unreadable */
	bool proc_sys_readable;         /* false: /proc/sys masked or absent */
	long apparmor_restrict;         /* kernel.apparmor_restrict_unprivileged_userns, -1 */
	long unprivileged_userns_clone; /* Debian's old knob, -1 when absent */
	long seccomp_mode;              /* of this process: 0 none, 2 filter (a container's) */
	long nnp;                       /* no_new_privs already set on sbx */
	int landlock_abi;               /* >= 1, or -errno */
	bool seccomp_user_notif, seccomp_actions_known;
	bool mount_api;                 /* open_tree, mount_setattr */
	bool cgroup2, cgroup_delegated; /* v2 mounted; our cgroup writable */
	char cgroup[512];
	char container[96];       /* "" when none detected (sbx_container_decide) */
	char container_note[256]; /* what the decision set aside, and why; or "" */
	bool hypervisor;          /* a virtual machine's CPU: its own kernel */
	bool wsl;
};
void sbx_probe_system(struct sbx_system_facts *f);

/*
 * Running in a container? Facts gathered by src/os/sysprobe.c, decided by a pure function
 * (src/core/container.c) so that the decision can be tested. A file such as /.dockerenv
 * alone is not trusted: images built with Docker keep it when they boot as virtual machines
 * (Firecracker, Kata), where kernel threads are visible and / is the machine's own disk.
 */
struct sbx_container_facts {
	bool dockerenv;             /* /.dockerenv exists */
	bool containerenv;          /* /run/.containerenv exists (podman) */
	bool k8s_secrets;           /* /var/run/secrets/kubernetes.io exists */
	bool pid1_environ_readable; /* /proc/1/environ could be read */
	char pid1_container[64];    /* the value of container= there, or "" */
	char cgroup_engine[32];     /* docker, containerd, kubepods, libpod, lxc named in pid 1's
	                               or our own cgroup paths, or "" */
	bool kthreadd_visible;      /* /proc/2 is kthreadd: the machine's initial PID namespace */
	char root_fs[32];           /* the file system type of / ("overlay", "ext4"), or "" */
};

/* The container's name for people into what ("" for none), and in note what was set aside
 * and why ("" for nothing). */
void sbx_container_decide(const struct sbx_container_facts *f, char *what, size_t wsize, char *note,
                          size_t nsize);

#endif
