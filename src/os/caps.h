/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_CAPS_H
#define SBX_OS_CAPS_H

/* Capabilities (src/os/caps.c). */

#include "sbx/error.h"

/* Drop every capability (effective, permitted, inheritable, ambient, bounding) and lock
 * the securebits so that no execve can give any back. */
int sbx_caps_drop_all(struct sbx_error *err);

/* The part of sbx_caps_drop_all that a child inherits: securebits locked, ambient set and
 * bounding set emptied, the bounding set verified (init does it before it forks the worker,
 * whose own sbx_caps_drop_all then only reads that it is empty). */
int sbx_caps_drop_bound(struct sbx_error *err);

/* Empty the effective, permitted and inheritable sets (after sbx_caps_drop_bound). */
int sbx_caps_clear_sets(struct sbx_error *err);

/* For a process that lacks CAP_SETPCAP (the landlock backend run by an ordinary user):
 * empty the effective, permitted, inheritable and ambient sets, and verify. Safe only
 * followed by no_new_privs. */
int sbx_caps_clear_unprivileged(struct sbx_error *err);

#endif
