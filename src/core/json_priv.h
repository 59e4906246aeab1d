/* SPDX-License-Identifier: MIT */
#ifndef SBX_CORE_JSON_PRIV_H
#define SBX_CORE_JSON_PRIV_H

/*
 * Internal to src/core: a JSON writer with snprintf's contract (the broker's request,
 * supervise.c; the audit log's records, audit.c). Every string goes through sbx_escape
 * (SBX_ESCAPE_JSON). A writer can cap each string at str_max escaped bytes (an escape or a
 * UTF-8 sequence is never cut in half) and remembers that it did (cut), so that a record too
 * long for its line can be written again shorter and still be whole JSON.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sbx_jw {
	char *out;
	size_t size;    /* of out, NUL included */
	size_t len;     /* bytes the whole text needs so far (without the NUL) */
	size_t used;    /* bytes written to out: a prefix of the text */
	size_t str_max; /* escaped bytes a string may take; SIZE_MAX: no cap */
	bool cut;       /* a string was capped */
};

void sbx_jw_init(struct sbx_jw *w, char *out, size_t size, size_t str_max);
void sbx_jw_raw(struct sbx_jw *w, const char *s);
/* A quoted, escaped string, or null for NULL. */
void sbx_jw_str(struct sbx_jw *w, const char *s);
void sbx_jw_u64(struct sbx_jw *w, uint64_t v);
void sbx_jw_i64(struct sbx_jw *w, int64_t v);
void sbx_jw_bool(struct sbx_jw *w, bool v);
/* ,"key": (no comma before the first member: w->len is 1 after the '{') */
void sbx_jw_key(struct sbx_jw *w, const char *key);
/* KEY: a filesystem name, and KEY_hex (its bytes) where it is not well-formed UTF-8 */
void sbx_jw_path(struct sbx_jw *w, const char *key, const char *s);
/* NUL-terminate and return the length needed, as snprintf does. */
size_t sbx_jw_end(struct sbx_jw *w);

#endif
