/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

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

/* The Landlock ABI of this kernel (>= 1), or -ENOSYS / -EOPNOTSUPP when it has none
 * (src/os/landlock.c). */
int sbx_landlock_abi(void);

#endif
