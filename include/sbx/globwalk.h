/* SPDX-License-Identifier: MIT */
#ifndef SBX_GLOBWALK_H
#define SBX_GLOBWALK_H

/*
 * Globs to hide (spec->hide_globs) turned into exact paths by one walk of the host for all
 * patterns, as the spec's bind mounts show it (src/os/globwalk.c). The result is cached under
 * a cache directory and revalidated by the change times of every directory walked: an
 * unchanged tree costs one lstat per directory.
 *
 * A walk knows what exists when it runs: a file created later (by the host or the worker)
 * that would match is not hidden.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/spec.h"

#define SBX_GLOBWALK_MAX_ENTRIES 2000000 /* entries walked before the walk refuses */

struct sbx_globwalk_stats {
	size_t dirs, entries, matches;
	double ms;     /* wall time of the walk or the revalidation */
	double cpu_ms; /* CPU time of sbx meanwhile (all threads): the figure a loaded
	                  machine does not inflate */
	bool cache_hit;
	bool cache_used; /* false: no cache (none given, or writable inside the sandbox) */
};

/*
 * Walk what the spec's same-path and bind mounts show beneath each glob's literal directory,
 * once for all globs, and add every match to spec->hide. cache_dir may be NULL (no cache);
 * it is not used if a writable mount of the spec covers it (a worker could forge it).
 */
int sbx_globwalk_apply(struct sbx_spec *spec, const char *cache_dir,
                       struct sbx_globwalk_stats *stats, struct sbx_error *err);

#endif
