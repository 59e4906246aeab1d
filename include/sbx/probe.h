/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

/*
 * Decisions about the host, made by pure functions from facts (so that tables can test them):
 * why user namespaces could not be made, where an sbx without a spec runs, whether this is a
 * container. The os modules gather the facts (src/os/userns.c, src/os/sysprobe.c: their
 * declarations are in src/os/userns.h and src/os/sysprobe.h); core decides.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"

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
