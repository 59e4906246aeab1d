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

/* The Landlock ABI of this kernel (>= 1), or -ENOSYS / -EOPNOTSUPP when it has none
 * (src/os/landlock.c). */
int sbx_landlock_abi(void);

#endif
