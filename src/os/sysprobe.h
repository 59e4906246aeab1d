/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_SYSPROBE_H
#define SBX_OS_SYSPROBE_H

/* What this process, kernel and system are (src/os/sysprobe.c): the facts behind core's
 * sbx_origin_decide and sbx_container_decide (sbx/probe.h), and `sbx doctor`. */

#include <stdbool.h>

#include "sbx/probe.h"

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

#endif
