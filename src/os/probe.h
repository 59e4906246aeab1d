/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_PROBE_H
#define SBX_OS_PROBE_H

/* What the planner needs to know about this machine (src/os/probe.c). */

#include <stdbool.h>

#include "sbx/error.h"
#include "sbx/plan.h"

/*
 * Fill *host with what the planner needs to know about this machine: the caller's ids, cwd
 * and environment, and which system mount candidates exist (and which are symlinks).
 * The strings are owned by the probe; release them with sbx_probe_host_clear().
 */
int sbx_probe_host(struct sbx_host *host, char *const *envp, struct sbx_error *err);
/* The same, calling before(arg) first: where it returns true, the per-user counts
 * (/proc/sys/user) are left unread, for the caller to fill in (sbx run's early namespaces'
 * child reads them, beside the probe) or to read with sbx_probe_ucounts. */
int sbx_probe_host_then(struct sbx_host *host, char *const *envp, bool (*before)(void *), void *arg,
                        struct sbx_error *err);
/* host->ucount: the caller's per-user counts, from /proc/sys/user (-1: unknown). */
void sbx_probe_ucounts(struct sbx_host *host);
void sbx_probe_host_clear(struct sbx_host *host);

/* What id `id` of this process's user namespace is in its parent user namespace (read from
 * /proc/self/uid_map, or gid_map): 0 and *outer, or -errno (-ENOENT: unmapped). *whole: the
 * map is the identity over every id, as in the initial user namespace. */
int sbx_probe_outer_id(bool gid, unsigned id, unsigned *outer, bool *whole);

#endif
