/* SPDX-License-Identifier: MIT */
#ifndef SBX_CORE_NEST_PRIV_H
#define SBX_CORE_NEST_PRIV_H

/*
 * Internal to src/core: the effective spec's table lookups and check, defined in
 * nest_codec.c and shared by nest_convert.c and nest_narrow.c.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/nest.h"

/* Index of target in the sorted array, or where it would go (with *found false). */
size_t sbx_nest_find_slot(const struct sbx_nest *n, const char *target, bool *found);
/* The longest entry covering path (mounts_only: not a rule entry). */
const struct sbx_nest_mount *sbx_nest_lookup_in(const struct sbx_nest *n, const char *path,
                                                bool mounts_only);
/* What every effective spec must satisfy, for encode and decode alike. */
int sbx_nest_check(const struct sbx_nest *n, struct sbx_error *err);

#endif
