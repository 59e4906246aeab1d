/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_GLOBWALK_H
#define SBX_OS_GLOBWALK_H

/* The walk of the host that turns hide globs into paths, and its cache (src/os/globwalk.c);
 * what the cache file holds and how it is parsed is core's (sbx/globwalk.h). */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/globwalk.h"
#include "sbx/spec.h"

struct sbx_globwalk_stats {
	size_t dirs, entries, matches;
	double ms;     /* wall time of the walk or the revalidation */
	double cpu_ms; /* CPU time of sbx meanwhile (all threads): the figure a loaded
	                  machine does not inflate */
	bool cache_hit;
	bool cache_used; /* false: no cache (none given, or writable inside the sandbox) */
};

/*
 * Walk what the spec's same-path and bind mounts (and its root) show beneath each glob's literal
 * directory, once for all globs, and return every match in *out (the spec is only read; the
 * caller hides them: sbx_spec_add_hides). cache_dir may be NULL (no cache): give only a
 * directory no sandbox can see or write (sbx_state_guard, state.h), since a forged cache would
 * make a launch hide nothing.
 */
int sbx_globwalk_run(const struct sbx_spec *spec, const char *cache_dir,
                     struct sbx_globwalk_matches *out, struct sbx_globwalk_stats *stats,
                     struct sbx_error *err);

#endif
