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

/*
 * Why namespaces could not be made, and whether the landlock backend may stand in: facts
 * gathered by src/os/userns.c, decided by a pure function (src/core/userns.c) so that the
 * decision can be tested by a table. The sysctls are the caller's user namespace's (-1:
 * absent or unreadable).
 */
struct sbx_userns_facts {
	int errnum;                     /* what clone/unshare (or the mount in the probe) said */
	bool root;                      /* euid 0 */
	long max_user_namespaces;       /* user.max_user_namespaces */
	long max_other_namespaces;      /* the smallest of user.max_{mnt,pid,ipc,uts,cgroup}_
	                                   namespaces (and net, when asked for) */
	const char *max_other_name;     /* static: which of them that is, or NULL */
	long apparmor_restrict;         /* kernel.apparmor_restrict_unprivileged_userns */
	long unprivileged_userns_clone; /* kernel.unprivileged_userns_clone (Debian's) */
};

enum sbx_userns_verdict {
	/* a passing shortage (a namespace quota used up by other processes, memory, the
	 * process limit): refuse rather than run on a weaker backend; err kind SETUP */
	SBX_USERNS_TRANSIENT = 0,
	/* unavailable by configuration (a sysctl, AppArmor, a seccomp policy, a parent
	 * sandbox's filter or Landlock domain, a kernel without them): --backend auto may take
	 * the landlock backend; err kind UNSUPPORTED */
	SBX_USERNS_OFF = 1,
};

/* Decide, and fill err with one actionable line (what blocks them and what to do). */
enum sbx_userns_verdict sbx_userns_decide(const struct sbx_userns_facts *f, struct sbx_error *err);

/* Gather the facts for a failure (errno) to create namespaces (net: a network namespace was
 * asked for too), decide, and fill err: returns -errnum. err->kind says the verdict:
 * SBX_ERR_UNSUPPORTED where the landlock backend may stand in, SBX_ERR_SETUP where sbx must
 * refuse. */
int sbx_userns_explain(int errnum, bool net, struct sbx_error *err);

/* What id `id` of this process's user namespace is in its parent user namespace (read from
 * /proc/self/uid_map, or gid_map): 0 and *outer, or -errno (-ENOENT: unmapped). *whole: the
 * map is the identity over every id, as in the initial user namespace. */
int sbx_probe_outer_id(bool gid, unsigned id, unsigned *outer, bool *whole);

/* The Landlock ABI of this kernel (>= 1), or -ENOSYS / -EOPNOTSUPP when it has none
 * (src/os/landlock.c). */
int sbx_landlock_abi(void);

/*
 * Where does an sbx without a valid SBX_SPEC_FD run? Facts gathered by src/os/sysprobe.c,
 * decided by a pure function (src/core/origin.c). sbx gives every worker SBX=1, no_new_privs
 * and a seccomp filter; ordinary containers (Docker, Kubernetes with
 * allowPrivilegeEscalation: false, systemd's NoNewPrivileges=) give the last two as well, and
 * sbx must keep working there as a top-level sandbox.
 */
struct sbx_origin_facts {
	bool sbx_env;     /* SBX=1 in the environment: what sbx sets for its workers */
	int no_new_privs; /* prctl(PR_GET_NO_NEW_PRIVS): 1, 0, or -1 when unknown */
	int seccomp_mode; /* "Seccomp:" of /proc/self/status: 0, 1, 2, or -1 when unknown */
};

enum sbx_origin {
	SBX_ORIGIN_TOP = 0, /* nothing confines this process: a sandbox started from outside */
	SBX_ORIGIN_UNKNOWN, /* confined (no_new_privs, a seccomp filter) without a spec: a
	                       container, or a sandbox whose worker dropped its spec; the new
	                       sandbox's effective spec says its parent is unknown */
};

/* Decide for an sbx that found no SBX_SPEC_FD: the origin, or a refusal (-EPERM, err: SBX=1
 * says this is an sbx worker whose spec is gone; a top-level launch would be a lie). */
int sbx_origin_decide(const struct sbx_origin_facts *f, struct sbx_error *err);

/* What confines the process, for messages: "no_new_privs and a seccomp filter", ... or "". */
const char *sbx_origin_evidence(const struct sbx_origin_facts *f);

/* Gather the facts of this process (src/os/sysprobe.c). */
void sbx_probe_origin(struct sbx_origin_facts *f);

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
