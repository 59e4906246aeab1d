/* SPDX-License-Identifier: MIT */
/*
 * The glob walk's cache file, parsed (src/os/globwalk.c writes and revalidates it). A user can
 * write that file, and before sbx kept its state out of every sandbox's reach a sandbox could
 * too: nothing in it is trusted, every field is checked and capped, and the parser is pure so
 * that a fuzz target (tests/fuzz/fuzz_globcache.c) can drive it. The grammar is in globwalk.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/globwalk.h"
#include "sbx/path.h"
#include "sbx/spec.h"

bool sbx_globwalk_needs_escape(unsigned char c)
{
	return c <= 0x20 || c >= 0x7f || c == '%';
}

#define MAX_DEPTH    SBX_GLOBWALK_MAX_DEPTH
#define CACHE_HEADER SBX_GLOBWALK_CACHE_HEADER
#define needs_escape sbx_globwalk_needs_escape

/* A field: one or more decimal digits, at most max, then exactly one space. */
static bool take_num(char **s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (*p != ' ')
		return false;
	*s = p + 1;
	*out = v;
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Unescape a name in place: the rest of the line, not empty, every byte that needs escaping
 * escaped (%xx, lower-case hex, never %00). */
static bool take_name(char *s)
{
	char *o = s;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (needs_escape((unsigned char)*s) && *s != '%')
			return false;
		if (*s == '%') {
			int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);

			if (lo < 0 || (hi == 0 && lo == 0))
				return false;
			*o++ = (char)(hi * 16 + lo);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return true;
}

static bool is_normal_abs(const char *p)
{
	char norm[SBX_PATH_MAX];

	return p[0] == '/' && sbx_path_normalize(p, norm, sizeof(norm), NULL) >= 0 &&
	       strcmp(norm, p) == 0;
}

void sbx_globwalk_cache_clear(struct sbx_globwalk_cache *c)
{
	free(c->dirs);
	free(c->matches);
	memset(c, 0, sizeof(*c));
}

int sbx_globwalk_cache_parse(char *buf, size_t len, const char *key, struct sbx_globwalk_cache *out)
{
	size_t hl = strlen(CACHE_HEADER), kl = strlen(key), cap_d = 0, cap_m = 0;
	unsigned prev_depth = 0;
	bool end = false;
	char *p, *stop = buf + len;

	memset(out, 0, sizeof(*out));
	/* the header and the key, byte for byte; no NUL anywhere */
	if (len > SBX_GLOBWALK_CACHE_MAX || memchr(buf, '\0', len) || len < hl + kl ||
	    memcmp(buf, CACHE_HEADER, hl) != 0 || memcmp(buf + hl, key, kl) != 0)
		return -EBADMSG;
	for (p = buf + hl + kl; p < stop;) {
		char *nl = memchr(p, '\n', (size_t)(stop - p)), *f = p + 2;

		if (!nl || end)
			goto bad; /* an unended line, or anything after "end" */
		*nl = '\0';
		if (strcmp(p, "end") == 0) {
			end = true;
		} else if (p[0] == 'D' && p[1] == ' ') {
			unsigned long long depth, ino, sec, nsec;
			struct sbx_globwalk_dir *d;

			if (out->n_matches || !take_num(&f, MAX_DEPTH - 1, &depth) ||
			    !take_num(&f, UINT64_MAX, &ino) || !take_num(&f, INT64_MAX, &sec) ||
			    !take_num(&f, 999999999, &nsec) || !take_name(f))
				goto bad;
			/* depth-first: a walk's root (a host path), or one below its parent */
			if (out->n_dirs == 0 ? depth != 0 : depth > prev_depth + 1)
				goto bad;
			if (depth == 0 ? !is_normal_abs(f)
			               : strchr(f, '/') || !strcmp(f, ".") || !strcmp(f, ".."))
				goto bad;
			if (out->n_dirs == SBX_GLOBWALK_MAX_ENTRIES)
				goto bad;
			if (out->n_dirs == cap_d) {
				size_t c = cap_d ? cap_d * 2 : 256;
				void *g = realloc(out->dirs, c * sizeof(*out->dirs));

				if (!g)
					goto nomem;
				out->dirs = g;
				cap_d = c;
			}
			d = &out->dirs[out->n_dirs++];
			*d = (struct sbx_globwalk_dir){f, (unsigned)depth, ino, (long long)sec,
			                               (long)nsec};
			prev_depth = (unsigned)depth;
		} else if (p[0] == 'M' && p[1] == ' ') {
			if (!take_name(f) || !is_normal_abs(f) || out->n_matches == SBX_MAX_HIDE)
				goto bad;
			if (out->n_matches == cap_m) {
				size_t c = cap_m ? cap_m * 2 : 64;
				void *g = realloc(out->matches, c * sizeof(*out->matches));

				if (!g)
					goto nomem;
				out->matches = g;
				cap_m = c;
			}
			out->matches[out->n_matches++] = f;
		} else {
			goto bad;
		}
		p = nl + 1;
	}
	if (!end || out->n_dirs == 0)
		goto bad;
	return 0;
bad:
	sbx_globwalk_cache_clear(out);
	return -EBADMSG;
nomem:
	sbx_globwalk_cache_clear(out);
	return -ENOMEM;
}

void sbx_globwalk_matches_clear(struct sbx_globwalk_matches *m)
{
	for (size_t i = 0; m && i < m->n; i++)
		free(m->paths[i]);
	if (m) {
		free(m->paths);
		m->paths = NULL;
		m->n = 0;
	}
}
