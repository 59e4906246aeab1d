/* SPDX-License-Identifier: MIT */
/* The supervision plan's ownership (include/sbx/supervise.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/supervise.h"

void sbx_sup_plan_clear(struct sbx_sup_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_protected; i++)
		free(p->protected_paths[i].path);
	free(p->protected_paths);
	for (size_t i = 0; i < p->n_areas; i++) {
		free(p->areas[i].target);
		for (size_t j = 0; j < p->areas[i].n_suffixes; j++)
			free(p->areas[i].suffixes[j]);
		free(p->areas[i].suffixes);
	}
	free(p->areas);
	for (size_t i = 0; i < p->n_places; i++)
		free(p->places[i].target);
	free(p->places);
	for (size_t i = 0; i < p->n_hide_globs; i++)
		free(p->hide_globs[i]);
	free(p->hide_globs);
	free(p->hide_firm);
	for (size_t i = 0; i < p->n_unhide; i++)
		free(p->unhide[i]);
	free(p->unhide);
	for (size_t i = 0; i < p->n_hide_exact; i++)
		free(p->hide_exact[i]);
	free(p->hide_exact);
	free(p->approve);
	free(p->audit_log);
	free(p->label);
	memset(p, 0, sizeof(*p));
}

/* ---- protected names ---- */

int sbx_sup_fold(const char *name, char *out, size_t size)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p;) {
		char c;

		if (p[0] == 0xC5 && p[1] == 0xBF) { /* U+017F LATIN SMALL LETTER LONG S */
			c = 's';
			p += 2;
		} else if (p[0] == 0xE2 && p[1] == 0x84 && p[2] == 0xAA) { /* U+212A KELVIN SIGN */
			c = 'k';
			p += 3;
		} else {
			c = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
			p++;
		}
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	if (size == 0)
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

static bool same_name(const char *a, const char *b, bool casefold)
{
	char fa[256], fb[256];

	if (!casefold)
		return strcmp(a, b) == 0;
	/* No name the kernel holds is longer than 255 bytes, and folding only shortens; a longer
	 * one is taken for the protected name (fail closed). */
	if (sbx_sup_fold(a, fa, sizeof(fa)) < 0 || sbx_sup_fold(b, fb, sizeof(fb)) < 0)
		return true;
	return strcmp(fa, fb) == 0;
}

int sbx_sup_guards_add(struct sbx_sup_guards *set, uint64_t dev, uint64_t ino, const char *name,
                       size_t protected_index, size_t depth, bool final, struct sbx_error *err)
{
	struct sbx_sup_guard *g;

	for (size_t i = 0; i < set->n; i++)
		if (set->g[i].dev == dev && set->g[i].ino == ino &&
		    strcmp(set->g[i].name, name) == 0 &&
		    set->g[i].protected_index == protected_index)
			return 0;
	if (set->n >= SBX_SUP_GUARDS_MAX)
		return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
		                     "too many protected names to watch (at most %d)",
		                     SBX_SUP_GUARDS_MAX);
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		struct sbx_sup_guard *grown = realloc(set->g, cap * sizeof(*grown));

		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		set->g = grown;
		set->cap = cap;
	}
	g = &set->g[set->n];
	g->name = strdup(name);
	if (!g->name)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	g->dev = dev;
	g->ino = ino;
	g->protected_index = protected_index;
	g->depth = depth;
	g->final = final;
	set->n++;
	return 0;
}

const struct sbx_sup_guard *sbx_sup_guards_find(const struct sbx_sup_guards *set, uint64_t dev,
                                                uint64_t ino, const char *name, bool casefold)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->g[i].dev == dev && set->g[i].ino == ino &&
		    same_name(set->g[i].name, name, casefold))
			return &set->g[i];
	return NULL;
}

void sbx_sup_guards_clear(struct sbx_sup_guards *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->g[i].name);
	free(set->g);
	memset(set, 0, sizeof(*set));
}
