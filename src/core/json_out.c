/* SPDX-License-Identifier: MIT */
/* A bounded JSON writer (json_priv.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_priv.h"
#include "sbx/escape.h"

void sbx_jw_init(struct sbx_jw *w, char *out, size_t size, size_t str_max)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->size = out ? size : 0;
	w->str_max = str_max;
	if (w->size)
		w->out[0] = '\0';
}

/* Room left in out for text, the NUL not counted; none once something did not fit, so that
 * out always holds a prefix of the text. */
static size_t room(const struct sbx_jw *w)
{
	return w->used == w->len && w->len + 1 < w->size ? w->size - w->len - 1 : 0;
}

static void put(struct sbx_jw *w, const char *s, size_t n)
{
	size_t r = room(w);
	size_t k = n < r ? n : r;

	if (k)
		memcpy(w->out + w->used, s, k);
	w->used += k;
	w->len += n;
}

void sbx_jw_raw(struct sbx_jw *w, const char *s)
{
	put(w, s, strlen(s));
}

void sbx_jw_str(struct sbx_jw *w, const char *s)
{
	size_t need, r;

	if (!s) {
		sbx_jw_raw(w, "null");
		return;
	}
	put(w, "\"", 1);
	need = sbx_escape(NULL, 0, s, SBX_ESCAPE_JSON);
	r = room(w);
	if (need > w->str_max) {
		w->cut = true;
		if (w->out && r >= w->str_max) {
			/* sbx_escape stops before a unit that does not fit: whole escapes only */
			sbx_escape(w->out + w->used, w->str_max + 1, s, SBX_ESCAPE_JSON);
			need = strlen(w->out + w->used);
			w->used += need;
			w->len += need;
			put(w, "\"", 1);
			return;
		}
		need = w->str_max; /* does not fit anyway: the caller cuts harder */
	}
	if (r) {
		sbx_escape(w->out + w->used, (need < r ? need : r) + 1, s, SBX_ESCAPE_JSON);
		w->used += strlen(w->out + w->used);
	}
	w->len += need;
	put(w, "\"", 1);
}

void sbx_jw_u64(struct sbx_jw *w, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	sbx_jw_raw(w, buf);
}

void sbx_jw_i64(struct sbx_jw *w, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	sbx_jw_raw(w, buf);
}

void sbx_jw_bool(struct sbx_jw *w, bool v)
{
	sbx_jw_raw(w, v ? "true" : "false");
}

void sbx_jw_key(struct sbx_jw *w, const char *key)
{
	if (w->len > 1)
		put(w, ",", 1);
	sbx_jw_str(w, key);
	put(w, ":", 1);
}

size_t sbx_jw_end(struct sbx_jw *w)
{
	if (w->size)
		w->out[w->used] = '\0';
	return w->len;
}

/* A name from the filesystem, which may be any bytes: as a string (ill-formed UTF-8 as
 * U+FFFD, since JSON carries only Unicode), and where that lost bytes, KEY_hex with every
 * byte in hex beside it, so that two names never give one record (an outside attack's
 * "a\xff.txt" and "a\uFFFD.txt" did). */
void sbx_jw_path(struct sbx_jw *w, const char *key, const char *s)
{
	bool whole = true;

	sbx_jw_key(w, key);
	sbx_jw_str(w, s);
	for (const char *p = s; p && *p;) {
		size_t n = sbx_utf8_seq_len(p);

		if (!n) {
			whole = false;
			break;
		}
		p += n;
	}
	if (!whole) {
		char k[64], hex[2 * 4096 + 1];
		size_t len = strlen(s);

		if (len > 4096)
			len = 4096; /* a path is at most PATH_MAX */
		snprintf(k, sizeof(k), "%s_hex", key);
		for (size_t i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
		hex[2 * len] = '\0';
		sbx_jw_key(w, k);
		sbx_jw_str(w, hex);
	}
}
