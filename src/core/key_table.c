/* SPDX-License-Identifier: MIT */
/*
 * The walk of a YAML mapping through a table of its keys, shared by the profile loader
 * (profile_load.c) and the policy file loader (policy_file.c). Each YAML mapping is read
 * through a table of its keys (as netplan's mapping_entry_handler tables): key -> the node type
 * it takes -> a handler that fills the spec through the same setters the command line uses.
 * Anything not in a table is an error at its line and column; so is every wrong type and every
 * value a handler refuses.
 *
 * This file holds the walk (sbx_prof_process_map), errors at a node (sbx_prof_fail,
 * sbx_prof_locate), a key's single value, the version and name every file checks, and a
 * file's stem; it calls nothing of the loaders.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_priv.h"
#include "yaml_tree.h"

__attribute__((format(printf, 4, 5))) int sbx_prof_fail(struct loader *l, const struct sbx_ynode *n,
                                                        int errnum, const char *fmt, ...)
{
	char msg[SBX_ERROR_MSG_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r = sbx_error_set(l->err, SBX_ERR_PROFILE, errnum, "%s", msg);
	if (n)
		sbx_error_at(l->err, l->cur->file, n->line, n->column);
	return r;
}

/* Give an error that a setter or helper filled a location in the current file. */
int sbx_prof_locate(struct loader *l, const struct sbx_ynode *n, int r)
{
	if (l->err) {
		if (l->err->kind == SBX_ERR_USAGE)
			l->err->kind = SBX_ERR_PROFILE;
		if (!l->err->file[0] && n)
			sbx_error_at(l->err, l->cur->file, n->line, n->column);
	}
	return r;
}

static const char *want_name(enum want w)
{
	switch (w) {
	case W_SCALAR:
		return "a single value";
	case W_SEQ:
		return "a list";
	case W_MAP:
		return "a mapping";
	default:
		return "a value";
	}
}

int sbx_prof_process_map(struct loader *l, const struct sbx_ynode *map, const struct key_entry *tab,
                         size_t n_tab, const char *what, const char *const *skip)
{
	char keys[512];
	size_t used = 0;

	if (map->kind != SBX_Y_MAP)
		return sbx_prof_fail(l, map, EINVAL, "%s must be a mapping (key: value), not %s",
		                     what, sbx_ynode_type_name(map));
	for (size_t i = 0; i < n_tab; i++) {
		int n =
		    snprintf(keys + used, sizeof(keys) - used, "%s%s", i ? ", " : "", tab[i].key);

		if (n > 0 && (size_t)n < sizeof(keys) - used)
			used += (size_t)n;
	}
	for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
		const struct sbx_ynode *k = map->kids[i], *v = map->kids[i + 1];
		const struct key_entry *e = NULL;
		bool skipped = false;
		int r;

		if (k->kind != SBX_Y_SCALAR)
			return sbx_prof_fail(l, k, EINVAL,
			                     "a key in %s must be a plain word, not %s", what,
			                     sbx_ynode_type_name(k));
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(map->kids[j]->value, k->value) == 0)
				return sbx_prof_fail(l, k, EEXIST,
				                     "duplicate key '%s' in %s (first at line %d)",
				                     k->value, what, map->kids[j]->line);
		for (size_t j = 0; j < n_tab && !e; j++)
			if (strcmp(tab[j].key, k->value) == 0)
				e = &tab[j];
		if (!e) {
			r = sbx_prof_fail(l, k, EINVAL, "unknown key '%s' in %s", k->value, what);
			sbx_error_hint(l->err, "the keys are: %s", keys);
			return r;
		}
		for (size_t j = 0; skip && skip[j]; j++)
			skipped |= strcmp(skip[j], k->value) == 0;
		if (skipped)
			continue;
		if (e->want == W_REFUSED) {
			r = sbx_prof_fail(l, k, EOPNOTSUPP,
			                  "'%s' is not supported in this version of sbx", k->value);
			sbx_error_hint(l->err,
			               "%s; remove the key (sbx never ignores a setting "
			               "silently)",
			               e->why);
			return r;
		}
		if ((e->want == W_SCALAR && v->kind != SBX_Y_SCALAR) ||
		    (e->want == W_SEQ && v->kind != SBX_Y_SEQ) ||
		    (e->want == W_MAP && v->kind != SBX_Y_MAP))
			return sbx_prof_fail(l, v, EINVAL, "'%s' takes %s, not %s", k->value,
			                     want_name(e->want), sbx_ynode_type_name(v));
		r = e->fn(l, k, v);
		if (r < 0)
			return r;
	}
	return 0;
}

const struct sbx_ynode *sbx_prof_map_get(const struct sbx_ynode *map, const char *key)
{
	for (size_t i = 0; map->kind == SBX_Y_MAP && i + 1 < map->n_kids; i += 2)
		if (map->kids[i]->kind == SBX_Y_SCALAR && strcmp(map->kids[i]->value, key) == 0)
			return map->kids[i + 1];
	return NULL;
}

int sbx_prof_get_str(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                     const char **out)
{
	if (v->kind != SBX_Y_SCALAR)
		return sbx_prof_fail(l, v, EINVAL, "'%s' takes a single value, not %s", k->value,
		                     sbx_ynode_type_name(v));
	if (v->len == 0)
		return sbx_prof_fail(l, v, EINVAL, "'%s' needs a value", k->value);
	*out = v->value;
	return 0;
}

int sbx_prof_check_version(struct loader *l, const struct sbx_ynode *root, const char *what)
{
	const struct sbx_ynode *v = sbx_prof_map_get(root, "version");
	int r;

	if (!v) {
		r = sbx_prof_fail(l, root, EINVAL, "%s has no 'version'", what);
		sbx_error_hint(l->err, "add 'version: %d' as its first line", SBX_PROFILE_VERSION);
		return r;
	}
	if (v->kind != SBX_Y_SCALAR || !v->plain || strcmp(v->value, "1") != 0) {
		r = sbx_prof_fail(l, v, EINVAL,
		                  "unsupported version '%s'; this sbx reads version %d",
		                  v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
		                  SBX_PROFILE_VERSION);
		sbx_error_hint(l->err,
		               "write 'version: %d', or use the sbx the file was written "
		               "for",
		               SBX_PROFILE_VERSION);
		return r;
	}
	return 0;
}

int sbx_prof_check_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                        const char *expected)
{
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (expected && strcmp(s, expected) != 0) {
		r = sbx_prof_fail(l, v, EINVAL, "name '%s' does not match the file's name '%s'", s,
		                  expected);
		sbx_error_hint(l->err, "a profile or policy is named after its file: rename one "
		                       "of them");
		return r;
	}
	return 0;
}

/* "dir/name.yaml" -> "name"; "name.yml" -> "name". */
char *sbx_prof_file_stem(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
		n -= 5;
	else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
		n -= 4;
	return strndup(base, n);
}

int sbx_prof_skip_key(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return 0; /* handled before the table is walked */
}
