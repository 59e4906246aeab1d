/* SPDX-License-Identifier: MIT */
#ifndef SBX_PATH_H
#define SBX_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"

#define SBX_PATH_MAX       4096 /* a normalised path, including the NUL, as PATH_MAX */
#define SBX_PATH_MAX_INPUT 8192 /* what we accept before normalising */
#define SBX_PATH_MAX_OUT   SBX_PATH_MAX

/*
 * Normalise an absolute path lexically: collapse repeated '/', drop ".", apply ".." without
 * ever climbing above "/", drop a trailing '/'. Symlinks are not looked at (core never
 * touches the file system). `out` gets at most `size` bytes including the NUL.
 * Every byte but NUL may be part of a name (control characters too: callers escape what
 * they print). Returns the length, or -EINVAL (not absolute, empty) or -ENAMETOOLONG.
 */
int sbx_path_normalize(const char *in, char *out, size_t size, struct sbx_error *err);

/*
 * Like sbx_path_normalize but relative paths are taken relative to `base` (absolute).
 * Returns an allocated string in *out.
 */
int sbx_path_absolute(const char *in, const char *base, char **out, struct sbx_error *err);

/* True if `path` equals `prefix` or lies beneath it ("/a" covers "/a/b", not "/ab"). Both
 * must be normalised. */
bool sbx_path_covers(const char *prefix, const char *path);

/* The remainder of `path` beneath `prefix` without the leading '/', "" when equal. */
const char *sbx_path_rest(const char *prefix, const char *path);

/* True if `text`, as written, has a ".." right after a name it gives ("a/link/../x"): the
 * kernel would resolve the name first (a symbolic link elsewhere), lexical normalising
 * drops it. A leading "..", or one after "." or "..", is not such a step. */
bool sbx_path_backtracks(const char *text);

/* Number of components: "/" is 0, "/a/b" is 2. */
size_t sbx_path_depth(const char *path);

#endif
