/* SPDX-License-Identifier: MIT */
#ifndef SBX_GLOBWALK_H
#define SBX_GLOBWALK_H

/*
 * Globs to hide (spec->hide_globs) turned into exact paths by one walk of the host for all
 * patterns, as the spec's bind mounts show it (src/os/globwalk.c, declared in
 * src/os/globwalk.h); the matches go back to the caller, and core hides them
 * (sbx_spec_add_hides). The result is cached under a cache directory and revalidated by the
 * change times of every directory walked: an unchanged tree costs one lstat per directory.
 *
 * A walk knows what exists when it runs: a file created later (by the host or the worker)
 * that would match is not hidden.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/spec.h"

#define SBX_GLOBWALK_MAX_ENTRIES  2000000    /* entries walked before the walk refuses */
#define SBX_GLOBWALK_CACHE_MAX    (1u << 28) /* bytes of a cache file */
#define SBX_GLOBWALK_MAX_DEPTH    512        /* directories below a walk's root */
#define SBX_GLOBWALK_CACHE_HEADER "sbx-globwalk 3\n"

/* What a walk matched: absolute, normalised sandbox paths, in the order found (owned). */
struct sbx_globwalk_matches {
	char **paths;
	size_t n;
};
void sbx_globwalk_matches_clear(struct sbx_globwalk_matches *m); /* core: accepts zeroed */

/* ---- the cache file (src/core/globcache.c: pure parsing, no system call; a fuzz target's
 * input) ---- */

/* Bytes a cached name or path carries as %xx: every byte that is not printable ASCII (space
 * included), and '%' itself. */
bool sbx_globwalk_needs_escape(unsigned char c);

/* A directory of a cached walk: where it was (its host path at depth 0, else its name in
 * the directory before it at depth - 1) and what it was. */
struct sbx_globwalk_dir {
	const char *name; /* into the parsed buffer */
	unsigned depth;
	unsigned long long ino;
	long long sec;
	long nsec;
};

struct sbx_globwalk_cache {
	struct sbx_globwalk_dir *dirs; /* depth-first */
	size_t n_dirs;
	char **matches; /* absolute, normalised sandbox paths, into the parsed buffer */
	size_t n_matches;
};

/*
 * Parse a cache file: buf[0..len) with buf[len] == '\0' (a user can write such a file, so
 * nothing in it is trusted). The grammar, one record a line, each ended by '\n':
 *
 *   sbx-globwalk 3
 *   KEY          exactly `key`: the globs, binds, root and unhide entries the walk was for
 *   D DEPTH INO SEC NSEC NAME   each directory walked, depth-first (depth 0 first)
 *   M PATH                      each match
 *   end
 *
 * NAME and PATH have every byte below 0x21 or above 0x7e, and '%', written as %xx (lower-case
 * hex; never %00); they are unescaped in place. Numbers are plain decimal within range.
 * Anything else (an unknown or misplaced record, a depth that skips a level, a relative
 * match, a NUL byte, something after "end", more than SBX_GLOBWALK_MAX_ENTRIES directories
 * or SBX_MAX_HIDE matches, more than SBX_GLOBWALK_CACHE_MAX bytes) is -EBADMSG. On success
 * *out points into buf (free it with sbx_globwalk_cache_clear, buf outliving it).
 */
int sbx_globwalk_cache_parse(char *buf, size_t len, const char *key,
                             struct sbx_globwalk_cache *out);
void sbx_globwalk_cache_clear(struct sbx_globwalk_cache *c);

#endif
