/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_LANDLOCK_COMPAT_H
#define SBX_OS_LANDLOCK_COMPAT_H

/*
 * What Debian 12's <linux/landlock.h> (ABI 2) lacks: the rights of ABI 3 to 7, network rules,
 * scopes, and the ruleset attribute grown to three fields. The values are the kernel's UAPI.
 */
#include <linux/landlock.h>
#include <linux/types.h>
#include <sys/syscall.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule       445
#define __NR_landlock_restrict_self  446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP    (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL               (1ULL << 1)
#endif

/* The ruleset attribute as of ABI 6; older kernels take a prefix of it (its size says which
 * fields the caller knows). Our own name, so it never clashes with a newer header's. */
struct sbx_landlock_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net; /* ABI 4 */
	__u64 scoped;             /* ABI 6 */
};

struct sbx_landlock_net_port_attr {
	__u64 allowed_access;
	__u64 port;
};

#define SBX_LANDLOCK_RULE_PATH_BENEATH 1
#define SBX_LANDLOCK_RULE_NET_PORT     2

#endif
