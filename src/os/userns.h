/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_USERNS_H
#define SBX_OS_USERNS_H

/*
 * User namespaces (src/os/userns.c): the id maps of a new sandbox, becoming its inner ids, the
 * namespace behind id-mapped mounts, and why one could not be made (the facts; the verdict is
 * core's sbx_userns_decide, sbx/probe.h).
 */

#include <stdbool.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/plan.h"

/* Write uid_map, gid_map (and setgroups) of process pid per the plan's identity. */
int sbx_userns_write_maps(pid_t pid, const struct sbx_plan *plan, struct sbx_error *err);
/* The same, of the process whose /proc directory procfd is (O_PATH). */
int sbx_userns_write_maps_at(int procfd, const struct sbx_plan *plan, struct sbx_error *err);

/* A user namespace fd carrying the plan's mapping, for id-mapped mounts (root only). */
int sbx_userns_idmap_fd(const struct sbx_plan *plan, struct sbx_error *err);
/* A child of sbx's that made a user namespace of its own early (os/launch.h), by its /proc
 * directory (O_PATH, borrowed; the caller made sure it is that child's), whose namespace the
 * next sbx_userns_idmap_fd maps and returns rather than making one (it makes one as before if
 * that fails); -1: none. The child is the caller's to end. */
void sbx_userns_idmap_early(int procfd);

/* In the new user namespace, after the maps are written: become the plan's inner ids. */
int sbx_userns_become(const struct sbx_plan *plan, struct sbx_error *err);

/* 0 if this process can create a user namespace (with a mount namespace in it), else
 * -errno. Forks a throwaway child. */
int sbx_userns_probe(void);

/* Gather the facts for a failure (errno) to create namespaces (net: a network namespace was
 * asked for too), decide (sbx_userns_decide), and fill err with one actionable line: returns
 * -errnum. err->kind says the verdict: SBX_ERR_UNSUPPORTED where the landlock backend may
 * stand in, SBX_ERR_SETUP where sbx must refuse. */
int sbx_userns_explain(int errnum, bool net, struct sbx_error *err);

#endif
