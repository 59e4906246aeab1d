/* SPDX-License-Identifier: MIT */
/*
 * The glob walk's cache file (src/core/globcache.c): a file a user, and once a sandbox, could
 * write. Properties: the parser never reads past its buffer or crashes; what it accepts is
 * well-formed (a first directory at depth 0 and absolute, depths that never skip a level,
 * names without '/' that are not "." or "..", absolute normal matches); and what it accepts
 * survives a round trip: written again with the writer's escaping and parsed again, it gives
 * the same records. The key is fixed; the seeds carry it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/globwalk.h"
#include "sbx/path.h"

#define KEY "G /w/**/.env\nB /w /w\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*out = realloc(*out, *cap);
		if (!*out)
			abort();
	}
	memcpy(*out + *len, s, n);
	*len += n;
	(*out)[*len] = '\0';
}

static void put_name(char **out, size_t *len, size_t *cap, const char *s)
{
	char esc[4];

	for (; *s; s++) {
		if (sbx_globwalk_needs_escape((unsigned char)*s)) {
			snprintf(esc, sizeof(esc), "%%%02x", (unsigned char)*s);
			put(out, len, cap, esc, 3);
		} else {
			put(out, len, cap, s, 1);
		}
	}
}

static char *write_back(const struct sbx_globwalk_cache *c, size_t *len)
{
	char *out = NULL, line[128];
	size_t cap = 0;

	*len = 0;
	put(&out, len, &cap, SBX_GLOBWALK_CACHE_HEADER KEY, strlen(SBX_GLOBWALK_CACHE_HEADER KEY));
	for (size_t i = 0; i < c->n_dirs; i++) {
		const struct sbx_globwalk_dir *d = &c->dirs[i];
		int n = snprintf(line, sizeof(line), "D %u %llu %lld %ld ", d->depth, d->ino,
		                 d->sec, d->nsec);

		put(&out, len, &cap, line, (size_t)n);
		put_name(&out, len, &cap, d->name);
		put(&out, len, &cap, "\n", 1);
	}
	for (size_t i = 0; i < c->n_matches; i++) {
		put(&out, len, &cap, "M ", 2);
		put_name(&out, len, &cap, c->matches[i]);
		put(&out, len, &cap, "\n", 1);
	}
	put(&out, len, &cap, "end\n", 4);
	return out;
}

static void check_well_formed(const struct sbx_globwalk_cache *c)
{
	char norm[SBX_PATH_MAX];

	if (c->n_dirs == 0 || c->dirs[0].depth != 0)
		abort();
	for (size_t i = 0; i < c->n_dirs; i++) {
		const struct sbx_globwalk_dir *d = &c->dirs[i];

		if (!d->name[0] || (i && d->depth > c->dirs[i - 1].depth + 1))
			abort();
		if (d->depth == 0 && (d->name[0] != '/' ||
		                      sbx_path_normalize(d->name, norm, sizeof(norm), NULL) < 0 ||
		                      strcmp(norm, d->name) != 0))
			abort();
		if (d->depth > 0 &&
		    (strchr(d->name, '/') || !strcmp(d->name, ".") || !strcmp(d->name, "..")))
			abort();
	}
	for (size_t i = 0; i < c->n_matches; i++)
		if (c->matches[i][0] != '/' ||
		    sbx_path_normalize(c->matches[i], norm, sizeof(norm), NULL) < 0 ||
		    strcmp(norm, c->matches[i]) != 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_globwalk_cache c = {0}, again = {0};
	char *buf, *back;
	size_t blen;

	if (size > (1u << 20))
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	if (sbx_globwalk_cache_parse(buf, size, KEY, &c) == 0) {
		check_well_formed(&c);
		back = write_back(&c, &blen);
		if (sbx_globwalk_cache_parse(back, blen, KEY, &again) != 0 ||
		    again.n_dirs != c.n_dirs || again.n_matches != c.n_matches)
			abort();
		for (size_t i = 0; i < c.n_dirs; i++)
			if (again.dirs[i].depth != c.dirs[i].depth ||
			    again.dirs[i].ino != c.dirs[i].ino ||
			    again.dirs[i].sec != c.dirs[i].sec ||
			    again.dirs[i].nsec != c.dirs[i].nsec ||
			    strcmp(again.dirs[i].name, c.dirs[i].name) != 0)
				abort();
		for (size_t i = 0; i < c.n_matches; i++)
			if (strcmp(again.matches[i], c.matches[i]) != 0)
				abort();
		sbx_globwalk_cache_clear(&again);
		free(back);
	}
	sbx_globwalk_cache_clear(&c);
	free(buf);
	return 0;
}
