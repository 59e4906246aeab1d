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
/* The same, calling after_counts(arg) once the per-user counts are read (/proc/sys/user),
 * before the rest: sbx run starts its early namespaces there (a network namespace's sysctls,
 * registered meanwhile, would hold up those reads). */
int sbx_probe_host_then(struct sbx_host *host, char *const *envp, void (*after_counts)(void *),
                        void *arg, struct sbx_error *err);
void sbx_probe_host_clear(struct sbx_host *host);

/* What id `id` of this process's user namespace is in its parent user namespace (read from
 * /proc/self/uid_map, or gid_map): 0 and *outer, or -errno (-ENOENT: unmapped). *whole: the
 * map is the identity over every id, as in the initial user namespace. */
int sbx_probe_outer_id(bool gid, unsigned id, unsigned *outer, bool *whole);

#endif
