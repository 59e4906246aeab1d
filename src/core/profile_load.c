/* SPDX-License-Identifier: MIT */
/*
 * The profile and policy loader. Each YAML mapping is read through a table of its keys (as
 * netplan's mapping_entry_handler tables): key -> the node type it takes -> a handler that
 * fills the spec through the same setters the command line uses. Anything not in a table is
 * an error at its line and column; so is every wrong type and every value a handler refuses.
 *
 * This file holds the loading: variables, the profile key tables and sbx_profile_load. The
 * walk through a key table and what policy files share with profiles are in key_table.c,
 * finding and reading files in profile_find.c, policy files in policy_file.c; the calls go
 * one way (profile_load.c -> policy_file.c -> key_table.c, profile_find.c), and what they
 * share is declared in profile_priv.h.
 */
#include "sbx/profile.h"
#include "sbx/seccomp.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "profile_priv.h"
#include "yaml_tree.h"

void sbx_profile_free(struct sbx_profile *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->file);
	free(p->description);
	sbx_strv_free(p->chain);
	sbx_strv_free(p->skipped);
	sbx_policy_set_clear(&p->policies);
	free(p);
}

/* ---- variables ---- */

struct strbuf {
	char *s;
	size_t len, cap;
};

#define SBX_VALUE_MAX (64 * 1024)

static int sb_add(struct strbuf *b, const char *s, size_t n, struct sbx_error *err)
{
	if (b->len + n + 1 > SBX_VALUE_MAX)
		return sbx_error_set(err, SBX_ERR_PROFILE, E2BIG,
		                     "a value is longer than %d bytes after expanding variables",
		                     SBX_VALUE_MAX);
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *grown = realloc(b->s, cap);

		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		b->s = grown;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static const struct {
	const char *name, *under_home; /* XDG base directory defaults */
} xdg_defaults[] = {
    {"XDG_CONFIG_HOME", "/.config"},
    {"XDG_CACHE_HOME", "/.cache"},
    {"XDG_DATA_HOME", "/.local/share"},
    {"XDG_STATE_HOME", "/.local/state"},
};

/* A variable's value into b; in a glob (glob), each glob character of it quoted with '\\',
 * so that a workspace named "proj [v1]" is matched as itself, not as a character class. */
static int sb_add_val(struct strbuf *b, const char *val, size_t n, bool glob, struct sbx_error *err)
{
	int r = 0;

	if (!glob)
		return sb_add(b, val, n, err);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		if (strchr("*?[]\\", val[i]))
			r = sb_add(b, "\\", 1, err);
		if (r >= 0)
			r = sb_add(b, val + i, 1, err);
	}
	return r;
}

static int lookup_var(const char *name, const struct sbx_profile_vars *v, struct strbuf *b,
                      bool glob, struct sbx_error *err)
{
	char num[32];
	const char *val = NULL;
	int r;

	if (strcmp(name, "HOME") == 0) {
		val = v->home;
	} else if (strcmp(name, "WORKSPACE") == 0) {
		val = v->workspace;
	} else if (strcmp(name, "USER") == 0) {
		val = v->user;
	} else if (strcmp(name, "UID") == 0) {
		snprintf(num, sizeof(num), "%u", v->uid);
		val = num;
	} else if (strncmp(name, "XDG_", 4) == 0) {
		val = sbx_prof_env_get(v->environ, name);
		/* The XDG spec: a relative or empty value is ignored. */
		if (val && val[0] != '/')
			val = NULL;
		for (size_t i = 0; !val && i < SBX_ARRAY_SIZE(xdg_defaults); i++) {
			if (strcmp(name, xdg_defaults[i].name) != 0)
				continue;
			if (!v->home || !*v->home)
				break;
			r = sb_add_val(b, v->home, strlen(v->home), glob, err);
			if (r < 0)
				return r;
			return sb_add(b, xdg_defaults[i].under_home,
			              strlen(xdg_defaults[i].under_home), err);
		}
		if (!val && strcmp(name, "XDG_RUNTIME_DIR") == 0) {
			snprintf(num, sizeof(num), "/run/user/%u", v->uid);
			val = num;
		}
		if (!val) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, ENOENT,
			                  "${%s} is not set and has no default", name);
			sbx_error_hint(err, "set %s, or write the path out", name);
			return r;
		}
	} else {
		r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL, "unknown variable ${%s}", name);
		sbx_error_hint(err, "the variables are ${HOME}, ${WORKSPACE}, ${USER}, ${UID} and "
		                    "${XDG_*}; write $$ for a literal '$'");
		return r;
	}
	if (!val || !*val)
		return sbx_error_set(err, SBX_ERR_PROFILE, ENOENT, "${%s} has no value here", name);
	return sb_add_val(b, val, strlen(val), glob, err);
}

static int expand(const char *in, const struct sbx_profile_vars *vars, bool glob, char **out,
                  struct sbx_error *err)
{
	struct strbuf b = {0};
	const char *p = in;
	int r = 0;

	*out = NULL;
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
		if (!vars->home || !*vars->home)
			return sbx_error_set(err, SBX_ERR_PROFILE, ENOENT,
			                     "'~' is used but no home directory is known");
		r = sb_add_val(&b, vars->home, strlen(vars->home), glob, err);
		p++;
	}
	while (r >= 0 && *p) {
		size_t n = strcspn(p, "$");

		r = sb_add(&b, p, n, err);
		p += n;
		if (r < 0 || !*p)
			break;
		if (p[1] == '$') {
			r = sb_add(&b, "$", 1, err);
			p += 2;
		} else if (p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			char name[64];

			if (!end || end == p + 2 || (size_t)(end - p - 2) >= sizeof(name)) {
				r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
				                  "'%s': '${' without a variable name and '}'", in);
				break;
			}
			memcpy(name, p + 2, (size_t)(end - p - 2));
			name[end - p - 2] = '\0';
			r = lookup_var(name, vars, &b, glob, err);
			p = end + 1;
		} else {
			r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
			                  "'%s': a '$' must start ${NAME}", in);
			sbx_error_hint(err, "write ${HOME} rather than $HOME, and $$ for a '$'");
		}
	}
	if (r >= 0 && !b.s)
		r = sb_add(&b, "", 0, err);
	if (r < 0) {
		free(b.s);
		return r;
	}
	*out = b.s;
	return 0;
}

int sbx_profile_expand(const char *in, const struct sbx_profile_vars *vars, char **out,
                       struct sbx_error *err)
{
	return expand(in, vars, false, out, err);
}

int sbx_profile_expand_glob(const char *in, const struct sbx_profile_vars *vars, char **out,
                            struct sbx_error *err)
{
	return expand(in, vars, true, out, err);
}

/* ---- the loader ---- */

static int get_bool(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                    bool *out)
{
	if (v->kind == SBX_Y_SCALAR && v->plain && strcmp(v->value, "true") == 0) {
		*out = true;
		return 0;
	}
	if (v->kind == SBX_Y_SCALAR && v->plain && strcmp(v->value, "false") == 0) {
		*out = false;
		return 0;
	}
	return sbx_prof_fail(l, v, EINVAL, "'%s' takes true or false, not %s%s%s", k->value,
	                     v->kind == SBX_Y_SCALAR ? "'" : "",
	                     v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
	                     v->kind == SBX_Y_SCALAR ? "'" : "");
}

/* A scalar with variables expanded: the caller frees *out. */
static int get_expanded(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                        char **out)
{
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	r = sbx_profile_expand(s, &l->o->vars, out, l->err);
	if (r < 0) {
		sbx_error_wrap(l->err, "'%s'", k->value);
		return sbx_prof_locate(l, v, r);
	}
	return 0;
}

/* An absolute path after expanding variables, normalised. */
static int get_path(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                    char **out)
{
	_cleanup_free_ char *raw = NULL;
	int r = get_expanded(l, k, v, &raw);

	if (r < 0)
		return r;
	if (raw[0] != '/') {
		r = sbx_prof_fail(l, v, EINVAL, "'%s' must be an absolute path, not '%s'", k->value,
		                  v->value);
		sbx_error_hint(l->err, "start it with '/', '~/' or a variable such as "
		                       "${WORKSPACE}/");
		return r;
	}
	r = sbx_path_absolute(raw, "/", out, l->err);
	if (r < 0) {
		sbx_error_wrap(l->err, "'%s'", k->value);
		return sbx_prof_locate(l, v, r);
	}
	return 0;
}

static char *file_dir(const char *file)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		return strdup(".");
	if (slash == file)
		return strdup("/");
	return strndup(file, (size_t)(slash - file));
}

/* Load policy NAME for the current file (once per effective profile). */
static int need_policy(struct loader *l, const struct sbx_ynode *node, const char *name,
                       const struct sbx_policy **out)
{
	_cleanup_free_ char *file = NULL;
	struct sbx_policy *p = NULL;
	int r;

	*out = sbx_policy_set_find(&l->prof->policies, name);
	if (*out)
		return 0;
	r = sbx_prof_find_in(l->o, name, l->cur->dir, l->o->search, l->o->n_search, "/policies",
	                     "policy", &file, l->err);
	if (r < 0)
		return sbx_prof_locate(l, node, r);
	r = sbx_policy_load_file_with(file, name, l->o, &p, l->err);
	if (r < 0)
		return r; /* located in the policy file */
	r = sbx_policy_set_add(&l->prof->policies, p, l->err);
	if (r < 0)
		return sbx_prof_locate(l, node, r);
	*out = sbx_policy_set_find(&l->prof->policies, name);
	return 0;
}

/* ---- profiles ---- */

static int load_file(struct loader *l, const char *file, const struct sbx_ynode *from);

static int p_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *stem = sbx_prof_file_stem(l->cur->file);

	if (!stem)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	return sbx_prof_check_name(l, k, v, stem);
}

static int p_description(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_spec_set_str(&l->prof->description, v->value, l->err);
}

static int p_base_policy(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const struct sbx_policy *p;
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	r = need_policy(l, v, s, &p);
	if (r < 0)
		return r;
	l->prof->policies.base = p;
	return 0;
}

static int p_root(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *path = NULL;
	int r = get_path(l, k, v, &path);

	if (r < 0)
		return r;
	return sbx_prof_locate(l, v, sbx_spec_set_str(&l->spec->root, path, l->err));
}

/* home: tmpfs | empty | none | DIR (src/core/home.c) */
static int p_home(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *path = NULL;
	int r;

	if (v->kind == SBX_Y_SCALAR &&
	    (strcmp(v->value, "tmpfs") == 0 || strcmp(v->value, "empty") == 0 ||
	     strcmp(v->value, "none") == 0))
		return sbx_prof_locate(l, v, sbx_spec_set_home(l->spec, v->value, NULL, l->err));
	if (v->kind == SBX_Y_SCALAR && !strchr("/~$", v->value[0])) {
		r = sbx_prof_fail(l, v, EINVAL,
		                  "'home' is tmpfs, empty, none or an absolute directory, not '%s'",
		                  v->value);
		sbx_error_hint(l->err, "tmpfs: a private home with the caller's ~/.gitconfig "
		                       "read-only; empty: a private home; none: no home");
		return r;
	}
	r = get_path(l, k, v, &path);
	if (r < 0)
		return r;
	return sbx_prof_locate(l, v, sbx_spec_set_home(l->spec, path, NULL, l->err));
}

static int p_readonly(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->spec->readonly);
}

static int p_best_effort(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->spec->best_effort);
}

static int p_nesting(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->spec->nesting);
}

static int p_protect_git(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->spec->protect_git);
}

static int p_hide_later(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->spec->hide_later);
}

static int p_network(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_prof_network(l, k, v); /* src/core/profile_net.c */
}

static int p_system_mounts(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	int r;

	if (v->kind == SBX_Y_SCALAR && strcmp(v->value, "default") == 0) {
		l->spec->system_mounts = SBX_SYSMOUNTS_DEFAULT;
		return 0;
	}
	if (v->kind == SBX_Y_SCALAR && strcmp(v->value, "none") == 0) {
		l->spec->system_mounts = SBX_SYSMOUNTS_NONE;
		return 0;
	}
	if (v->kind == SBX_Y_SEQ) {
		r = sbx_prof_fail(
		    l, v, EOPNOTSUPP,
		    "a list of system mounts is not supported in this version of sbx");
		sbx_error_hint(l->err, "use 'system_mounts: none' and list what you need under "
		                       "'mounts' with readonly: true");
		return r;
	}
	return sbx_prof_fail(l, v, EINVAL, "'system_mounts' is default or none, not %s%s%s",
	                     v->kind == SBX_Y_SCALAR ? "'" : "",
	                     v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
	                     v->kind == SBX_Y_SCALAR ? "'" : "");
}

/* One file may not name a target twice; a file that extends another replaces its mount. */
static int claim_target(struct loader *l, const struct sbx_ynode *node, const char *target)
{
	struct file_ctx *fc = l->cur;
	struct seen_target *grown;
	int r;

	for (size_t i = 0; i < fc->n_seen; i++) {
		if (strcmp(fc->seen[i].target, target) != 0)
			continue;
		r = sbx_prof_fail(l, node, EEXIST,
		                  "two mounts have the target '%s' (the first at line %d)", target,
		                  fc->seen[i].line);
		sbx_error_hint(l->err, "give each mount its own target, or drop one of them");
		return r;
	}
	if (fc->n_seen >= SBX_MAX_MOUNTS)
		return sbx_prof_fail(l, node, E2BIG, "too many mounts (at most %d)",
		                     SBX_MAX_MOUNTS);
	grown = realloc(fc->seen, (fc->n_seen + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	fc->seen = grown;
	fc->seen[fc->n_seen].target = strdup(target);
	fc->seen[fc->n_seen].line = node->line;
	if (!fc->seen[fc->n_seen].target)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	fc->n_seen++;
	return 0;
}

static int m_path(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	l->path_node = v;
	free(l->mount->source); /* 'path' with 'source' is refused once both are read */
	l->mount->source = NULL;
	return get_path(l, k, v, &l->mount->source);
}

static int m_source(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	l->source_node = v;
	free(l->mount->source);
	l->mount->source = NULL;
	return get_path(l, k, v, &l->mount->source);
}

static int m_target(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	l->target_node = v;
	return get_path(l, k, v, &l->mount->target);
}

static int m_readonly(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->mount->readonly);
}

static int m_optional(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->mount->optional);
}

static int m_policy(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const struct sbx_policy *p;
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	l->policy_node = v;
	r = need_policy(l, v, s, &p);
	if (r < 0)
		return r;
	return sbx_spec_set_str(&l->mount->policy, s, l->err);
}

/* approvals: {write, overwrite, delete, rename: allow|ask|deny} (sbx-profile(5), APPROVALS) */
static int approval(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                    enum sbx_approval_class c)
{
	enum sbx_approval a;
	int r;

	if (v->kind == SBX_Y_SCALAR && sbx_approval_parse(v->value, &a)) {
		l->mount->approvals.op[c] = a;
		return 0;
	}
	r = sbx_prof_fail(l, v, EINVAL, "'%s' is allow, ask or deny, not %s%s%s", k->value,
	                  v->kind == SBX_Y_SCALAR ? "'" : "",
	                  v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
	                  v->kind == SBX_Y_SCALAR ? "'" : "");
	sbx_error_hint(l->err, "allow: the kernel decides as for any write; ask: a broker "
	                       "(--approve) is asked; deny: refused by the kernel");
	return r;
}

static int a_write(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return approval(l, k, v, SBX_AC_WRITE);
}

static int a_overwrite(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return approval(l, k, v, SBX_AC_OVERWRITE);
}

static int a_delete(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return approval(l, k, v, SBX_AC_DELETE);
}

static int a_rename(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return approval(l, k, v, SBX_AC_RENAME);
}

static const struct key_entry approval_keys[] = {
    {"write", W_SCALAR, a_write, NULL},
    {"overwrite", W_SCALAR, a_overwrite, NULL},
    {"delete", W_SCALAR, a_delete, NULL},
    {"rename", W_SCALAR, a_rename, NULL},
};

static int m_approvals(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	l->approvals_node = v;
	return sbx_prof_process_map(l, v, approval_keys, SBX_ARRAY_SIZE(approval_keys),
	                            "'approvals'", NULL);
}

static int m_suffixes(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	if (v->n_kids == 0)
		return sbx_prof_fail(l, v, EINVAL,
		                     "'suffixes' is empty: nothing could be read there; drop the "
		                     "key, or name the endings that may be read");
	for (size_t i = 0; i < v->n_kids; i++) {
		const char *s = NULL;
		int r = sbx_prof_get_str(l, k, v->kids[i], &s);

		if (r >= 0)
			r = sbx_prof_locate(l, v->kids[i],
			                    sbx_mount_add_suffix(l->mount, s, l->err));
		if (r < 0)
			return r;
	}
	return 0;
}

static int m_max_file_bytes(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	r = sbx_size_parse(s, &l->mount->max_file_bytes, l->err);
	if (r < 0)
		sbx_error_wrap(l->err, "'max_file_bytes'");
	return sbx_prof_locate(l, v, r);
}

static const struct key_entry mount_keys[] = {
    {"path", W_SCALAR, m_path, NULL},
    {"source", W_SCALAR, m_source, NULL},
    {"target", W_SCALAR, m_target, NULL},
    {"readonly", W_SCALAR, m_readonly, NULL},
    {"optional", W_SCALAR, m_optional, NULL},
    {"policy", W_SCALAR, m_policy, NULL},
    {"approvals", W_MAP, m_approvals, NULL},
    {"suffixes", W_SEQ, m_suffixes, NULL},
    {"max_file_bytes", W_SCALAR, m_max_file_bytes, NULL},
};

static int p_mounts(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		const struct sbx_ynode *mn = v->kids[i];
		struct sbx_mount *mp = &l->mount_buf;
		int r;

		*mp = (struct sbx_mount){.kind = SBX_MOUNT_BIND, .origin = SBX_ORIGIN_PROFILE};
		l->mount = mp;
		l->path_node = l->source_node = l->target_node = l->policy_node = NULL;
		l->approvals_node = NULL;
		r = sbx_prof_process_map(l, mn, mount_keys, SBX_ARRAY_SIZE(mount_keys), "a mount",
		                         NULL);
		/* Nothing can be written on a read-only mount: an approval there would never be
		 * asked, and a profile that says one is mistaken about the mount. */
		for (size_t c = 0; r >= 0 && mp->readonly && c < SBX_AC_COUNT; c++)
			if (mp->approvals.op[c] != SBX_APPROVE_ALLOW) {
				r = sbx_prof_fail(
				    l, l->approvals_node, EINVAL,
				    "approvals on a read-only mount: nothing there can "
				    "be written, deleted or renamed");
				sbx_error_hint(l->err, "drop 'approvals', or 'readonly: true'");
			}
		if (r >= 0 && l->path_node && (l->source_node || l->target_node))
			r = sbx_prof_fail(
			    l, l->source_node ? l->source_node : l->target_node, EINVAL,
			    "'path' is a mount at the same path inside and out; use 'source' "
			    "and 'target' instead to mount elsewhere");
		if (r >= 0 && !l->path_node && !l->source_node)
			r = sbx_prof_fail(l, mn, EINVAL, "this mount has no 'path' or 'source'");
		if (r >= 0 && !mp->target)
			r = sbx_spec_set_str(&mp->target, mp->source, l->err);
		if (r >= 0)
			r = claim_target(l,
			                 l->target_node ? l->target_node
			                 : l->path_node ? l->path_node
			                                : l->source_node,
			                 mp->target);
		if (r >= 0 && mp->optional && l->o->exists &&
		    !l->o->exists(mp->source, l->o->exists_ctx)) {
			r = sbx_prof_strv_push(&l->prof->skipped, &l->prof->n_skipped, mp->source,
			                       l->err);
			if (r >= 0 && mp->readonly)
				r = sbx_prof_strv_push(&l->spec->absent_ro, &l->spec->n_absent_ro,
				                       mp->target, l->err);
			if (r >= 0 && mp->policy)
				r = sbx_prof_strv_push(&l->spec->absent_cfg, &l->spec->n_absent_cfg,
				                       mp->target, l->err);
			sbx_mount_clear(mp);
			if (r < 0)
				return r;
			continue;
		}
		if (r >= 0)
			r = sbx_prof_locate(l, mn, sbx_spec_add_mount(l->spec, mp, true, l->err));
		sbx_mount_clear(mp);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One tmpfs entry: a path, or {path: PATH, size: SIZE} (its size=; without one the sandbox's
 * default, sbx_limits_tmpfs_size). */
static int tmpfs_entry(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *e,
                       struct sbx_mount *m)
{
	const struct sbx_ynode *path = NULL;
	int r;

	if (e->kind != SBX_Y_MAP)
		return get_path(l, k, e, &m->target);
	for (size_t j = 0; j + 1 < e->n_kids; j += 2) {
		const struct sbx_ynode *key = e->kids[j], *val = e->kids[j + 1];
		const char *s = NULL;

		if (key->kind == SBX_Y_SCALAR && strcmp(key->value, "path") == 0) {
			path = val;
			continue;
		}
		if (key->kind != SBX_Y_SCALAR || strcmp(key->value, "size") != 0)
			return sbx_prof_fail(
			    l, key, EINVAL,
			    "unknown key '%s' in a tmpfs entry; the keys are path and "
			    "size",
			    key->kind == SBX_Y_SCALAR ? key->value : "?");
		r = sbx_prof_get_str(l, key, val, &s);
		if (r >= 0)
			r = sbx_limit_parse(SBX_LIMIT_TMPFS, s, &m->size, l->err);
		if (r < 0) {
			sbx_error_wrap(l->err, "tmpfs size");
			return sbx_prof_locate(l, val, r);
		}
	}
	if (!path)
		return sbx_prof_fail(l, e, EINVAL, "this tmpfs entry has no 'path'");
	return get_path(l, k, path, &m->target);
}

static int p_tmpfs(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		struct sbx_mount m = {.kind = SBX_MOUNT_TMPFS, .origin = SBX_ORIGIN_PROFILE};
		int r = tmpfs_entry(l, k, v->kids[i], &m);

		if (r >= 0)
			r = claim_target(l, v->kids[i], m.target);
		if (r >= 0)
			r = sbx_prof_locate(l, v->kids[i],
			                    sbx_spec_add_mount(l->spec, &m, true, l->err));
		sbx_mount_clear(&m);
		if (r < 0)
			return r;
	}
	return 0;
}

/* limits: {memory: 512M, pids: 256, cpu: 1.5, nofile: 1024, fsize: 1G, timeout: 5m,
 * tmpfs: 256M}, through the setter --limit uses. */
static int p_limit_value(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r >= 0)
		r = sbx_limits_set(&l->spec->resources, k->value, s, l->err);
	return sbx_prof_locate(l, v, r);
}

static const struct key_entry limit_keys[] = {
    {"memory", W_SCALAR, p_limit_value, NULL}, {"pids", W_SCALAR, p_limit_value, NULL},
    {"cpu", W_SCALAR, p_limit_value, NULL},    {"nofile", W_SCALAR, p_limit_value, NULL},
    {"fsize", W_SCALAR, p_limit_value, NULL},  {"timeout", W_SCALAR, p_limit_value, NULL},
    {"tmpfs", W_SCALAR, p_limit_value, NULL},
};

static int p_limits(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_prof_process_map(l, v, limit_keys, SBX_ARRAY_SIZE(limit_keys), "'limits'", NULL);
}

static int p_devices(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		struct sbx_mount m = {.kind = SBX_MOUNT_DEVICE, .origin = SBX_ORIGIN_PROFILE};
		int r = get_path(l, k, v->kids[i], &m.source);

		if (r >= 0 && (!sbx_path_covers("/dev", m.source) || !strcmp(m.source, "/dev")))
			r = sbx_prof_fail(l, v->kids[i], EINVAL,
			                  "device '%s' is not a path under /dev", m.source);
		if (r >= 0)
			r = sbx_spec_set_str(&m.target, m.source, l->err);
		if (r >= 0)
			r = claim_target(l, v->kids[i], m.target);
		if (r >= 0)
			r = sbx_prof_locate(l, v->kids[i],
			                    sbx_spec_add_mount(l->spec, &m, true, l->err));
		sbx_mount_clear(&m);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A path of hide: or unhide:, which may be a glob: the variables' values match themselves
 * in a glob (a workspace "proj [v1]"); a literal entry stays the exact path. */
static int get_hide_path(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                         bool always_glob, char **out, bool *glob)
{
	_cleanup_free_ char *raw = NULL;
	const char *s = NULL;
	int r = get_path(l, k, v, out);

	*glob = false;
	if (r < 0 || (r = sbx_prof_get_str(l, k, v, &s)) < 0)
		return r;
	if (sbx_path_backtracks(s)) {
		r = sbx_error_set(l->err, SBX_ERR_USAGE, EINVAL,
		                  "'%s': a '..' after a name, which the kernel would resolve "
		                  "first (a symbolic link there leads elsewhere)",
		                  s);
		sbx_error_hint(l->err, "write the path without '..'");
		return sbx_prof_locate(l, v, r);
	}
	/* a glob by what the profile wrote, not by what a variable's value holds */
	*glob = !sbx_glob_is_literal(s);
	if (!*glob && !always_glob)
		return 0;
	r = sbx_profile_expand_glob(s, &l->o->vars, &raw, l->err);
	if (r < 0)
		return sbx_prof_locate(l, v, r);
	free(*out);
	*out = NULL;
	return sbx_prof_locate(l, v, sbx_path_absolute(raw, "/", out, l->err));
}

static int p_hide(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		_cleanup_free_ char *path = NULL;
		bool glob;
		int r = get_hide_path(l, k, v->kids[i], false, &path, &glob);

		if (r < 0)
			return r;
		/* A glob is matched by one walk of the host at launch (src/os/globwalk.c). */
		if (glob)
			r = sbx_prof_locate(l, v->kids[i],
			                    sbx_spec_add_hide_glob(l->spec, path, l->err));
		else
			r = sbx_prof_locate(l, v->kids[i],
			                    sbx_spec_add_hide(l->spec, path, l->err));
		if (r < 0)
			return r;
	}
	return 0;
}

/* unhide: [PATH|GLOB...]: what hide: (here or in what this extends) would hide, given back. */
static int p_unhide(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		_cleanup_free_ char *path = NULL;
		bool glob;
		/* matched as a glob either way: a literal entry, its glob characters quoted */
		int r = get_hide_path(l, k, v->kids[i], true, &path, &glob);

		if (r >= 0)
			r = sbx_prof_locate(l, v->kids[i],
			                    sbx_spec_add_unhide(l->spec, path, l->err));
		if (r < 0)
			return r;
	}
	return 0;
}

static int env_pass(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		const char *s = NULL;
		int r = sbx_prof_get_str(l, k, v->kids[i], &s);

		if (r < 0)
			return r;
		r = sbx_prof_locate(l, v->kids[i], sbx_spec_add_env(l->spec, s, NULL, l->err));
		if (r < 0)
			return r;
	}
	return 0;
}

static int env_set(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i + 1 < v->n_kids; i += 2) {
		const struct sbx_ynode *nk = v->kids[i], *nv = v->kids[i + 1];
		_cleanup_free_ char *val = NULL;
		int r;

		if (nk->kind != SBX_Y_SCALAR)
			return sbx_prof_fail(l, nk, EINVAL,
			                     "an environment name must be a plain word");
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(v->kids[j]->value, nk->value) == 0)
				return sbx_prof_fail(l, nk, EEXIST,
				                     "'%s' is set twice (first at line %d)",
				                     nk->value, v->kids[j]->line);
		if (nv->kind != SBX_Y_SCALAR)
			return sbx_prof_fail(l, nv, EINVAL,
			                     "the value of %s must be a single value, not %s",
			                     nk->value, sbx_ynode_type_name(nv));
		if (nv->len == 0) {
			val = strdup("");
			r = val ? 0 : sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		} else {
			r = get_expanded(l, nk, nv, &val);
		}
		if (r >= 0)
			r = sbx_prof_locate(l, nk,
			                    sbx_spec_add_env(l->spec, nk->value, val, l->err));
		if (r < 0)
			return r;
	}
	return 0;
}

static const struct key_entry env_keys[] = {
    {"pass", W_SEQ, env_pass, NULL},
    {"set", W_MAP, env_set, NULL},
};

static int p_env(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_prof_process_map(l, v, env_keys, SBX_ARRAY_SIZE(env_keys), "'env'", NULL);
}

static int p_extends(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *file = NULL;
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	/* Beside this file first, then the search path. */
	r = sbx_prof_find_in(l->o, s, l->cur->dir, l->o->search, l->o->n_search, "", "profile",
	                     &file, l->err);
	if (r < 0)
		return sbx_prof_locate(l, v, r);
	return load_file(l, file, v);
}

/* seccomp: {allow: [NAME...], deny: [NAME...], errno: N, log: bool}, through the same setters
 * as --seccomp-allow, --seccomp-deny, --seccomp-errno and --seccomp-log. */
static int seccomp_names(struct loader *l, const struct sbx_ynode *v,
                         int (*set)(struct sbx_seccomp_conf *, const char *, struct sbx_error *))
{
	for (size_t i = 0; i < v->n_kids; i++) {
		const struct sbx_ynode *n = v->kids[i];

		if (n->kind != SBX_Y_SCALAR || n->len == 0)
			return sbx_prof_fail(l, n, EINVAL,
			                     "a seccomp group or call name must be a word, not %s",
			                     sbx_ynode_type_name(n));
		if (set(&l->spec->seccomp, n->value, l->err) < 0)
			return sbx_prof_locate(l, n, -EINVAL);
	}
	return 0;
}

static int seccomp_allow(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return seccomp_names(l, v, sbx_seccomp_conf_allow);
}

static int seccomp_deny(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return seccomp_names(l, v, sbx_seccomp_conf_deny);
}

static int seccomp_errno(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	if (sbx_seccomp_conf_set_errno(&l->spec->seccomp, v->value, l->err) < 0)
		return sbx_prof_locate(l, v, -EINVAL);
	return 0;
}

static int seccomp_log(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return get_bool(l, k, v, &l->spec->seccomp.log);
}

static const struct key_entry seccomp_keys[] = {
    {"allow", W_SEQ, seccomp_allow, NULL},
    {"deny", W_SEQ, seccomp_deny, NULL},
    {"errno", W_SCALAR, seccomp_errno, NULL},
    {"log", W_SCALAR, seccomp_log, NULL},
};

static int p_seccomp(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_prof_process_map(l, v, seccomp_keys, SBX_ARRAY_SIZE(seccomp_keys), "'seccomp'",
	                            NULL);
}

/* approvals belong to a mount: what they guard is the tree it shows */
static int p_approvals(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	int r = sbx_prof_fail(l, k, EINVAL, "'approvals' is set on a mount, not on the profile");

	sbx_error_hint(l->err, "move it under the mount it guards, e.g. mounts: [{path: "
	                       "${WORKSPACE}, approvals: {delete: ask}}]");
	return r;
}

/* audit: PATH, the audit log (as --audit-log) */
static int p_audit(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *path = NULL;
	int r = get_path(l, k, v, &path);

	if (r < 0)
		return r;
	return sbx_prof_locate(l, v, sbx_spec_set_str(&l->spec->audit_log, path, l->err));
}

/* approve: tty|deny|allow|cmd:PROGRAM|socket:PATH (as --approve); variables expanded in the
 * program's or socket's path */
static int p_approve(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *rest = NULL, *full = NULL;
	const char *s = NULL;
	size_t pre = 0;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (strncmp(s, "cmd:", 4) == 0)
		pre = 4;
	else if (strncmp(s, "socket:", 7) == 0)
		pre = 7;
	if (pre && s[pre]) {
		r = sbx_profile_expand(s + pre, &l->o->vars, &rest, l->err);
		if (r < 0) {
			sbx_error_wrap(l->err, "'approve'");
			return sbx_prof_locate(l, v, r);
		}
		if (asprintf(&full, "%.*s%s", (int)pre, s, rest) < 0)
			return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		s = full;
	}
	return sbx_prof_locate(l, v, sbx_spec_set_approve(l->spec, s, l->err));
}

static const struct key_entry profile_keys[] = {
    {"version", W_SCALAR, sbx_prof_skip_key, NULL},
    {"extends", W_SCALAR, sbx_prof_skip_key, NULL},
    {"name", W_SCALAR, p_name, NULL},
    {"description", W_SCALAR, p_description, NULL},
    {"base_policy", W_SCALAR, p_base_policy, NULL},
    {"root", W_SCALAR, p_root, NULL},
    {"readonly", W_SCALAR, p_readonly, NULL},
    {"home", W_SCALAR, p_home, NULL},
    {"mounts", W_SEQ, p_mounts, NULL},
    {"system_mounts", W_ANY, p_system_mounts, NULL},
    {"tmpfs", W_SEQ, p_tmpfs, NULL},
    {"hide", W_SEQ, p_hide, NULL},
    {"unhide", W_SEQ, p_unhide, NULL},
    {"hide_later", W_SCALAR, p_hide_later, NULL},
    {"devices", W_SEQ, p_devices, NULL},
    {"env", W_MAP, p_env, NULL},
    {"network", W_ANY, p_network, NULL},
    {"nesting", W_SCALAR, p_nesting, NULL},
    {"best_effort", W_SCALAR, p_best_effort, NULL},
    {"protect_git", W_SCALAR, p_protect_git, NULL},
    {"seccomp", W_MAP, p_seccomp, NULL},
    {"approvals", W_ANY, p_approvals, NULL},
    {"limits", W_MAP, p_limits, NULL},
    {"audit", W_SCALAR, p_audit, NULL},
    {"approve", W_SCALAR, p_approve, NULL},
};

static int load_tree(struct loader *l, const struct sbx_ynode *root)
{
	const struct sbx_ynode *ext;
	int r;

	if (root->kind == SBX_Y_SCALAR && root->plain && root->len == 0)
		return sbx_prof_fail(l, root, ENODATA, "the file is empty");
	if (root->kind != SBX_Y_MAP)
		return sbx_prof_fail(l, root, EINVAL,
		                     "a profile must be a mapping (version, mounts, ...), "
		                     "not %s",
		                     sbx_ynode_type_name(root));
	r = sbx_prof_check_version(l, root, "the profile");
	if (r < 0)
		return r;
	/* What this file extends is loaded first, so that every key of this file applies on
	 * top of it. */
	ext = sbx_prof_map_get(root, "extends");
	if (ext) {
		for (size_t i = 0; i + 1 < root->n_kids; i += 2)
			if (root->kids[i + 1] == ext)
				r = p_extends(l, root->kids[i], ext);
		if (r < 0)
			return r;
	}
	return sbx_prof_process_map(l, root, profile_keys, SBX_ARRAY_SIZE(profile_keys),
	                            "a profile", (const char *const[]){"version", "extends", NULL});
}

static int load_data(struct loader *l, const char *file, const char *data, size_t len)
{
	struct file_ctx fc = {.file = file};
	struct file_ctx *saved = l->cur;
	struct sbx_ynode *root = NULL;
	int r;

	fc.dir = file_dir(file);
	if (!fc.dir)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	l->cur = &fc;
	r = sbx_yaml_parse(data, len, file, &root, l->err);
	if (r >= 0)
		r = load_tree(l, root);
	if (r >= 0)
		r = sbx_prof_strv_push(&l->prof->chain, &l->prof->n_chain, file, l->err);
	sbx_ynode_free(root);
	for (size_t i = 0; i < fc.n_seen; i++)
		free(fc.seen[i].target);
	free(fc.seen);
	free(fc.dir);
	l->cur = saved;
	return r;
}

static int load_file(struct loader *l, const char *file, const struct sbx_ynode *from)
{
	_cleanup_free_ char *real = l->o && l->o->resolve ? l->o->resolve(file) : strdup(file);
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	if (!real) {
		r = errno ? errno : ENOMEM;
		r = sbx_error_set(l->err, SBX_ERR_PROFILE, r, "cannot open profile %s: %s", file,
		                  strerror(r));
		return from ? sbx_prof_locate(l, from, r) : r;
	}
	for (int i = 0; i < l->depth; i++) {
		if (strcmp(l->stack[i], real) != 0)
			continue;
		r = sbx_prof_fail(l, from, ELOOP, "'extends' makes a cycle:");
		if (l->err) {
			for (int j = i; j <= l->depth; j++) {
				size_t n = strlen(l->err->msg);

				snprintf(l->err->msg + n, sizeof(l->err->msg) - n, " %s%s",
				         j < l->depth ? l->stack[j] : real,
				         j < l->depth ? " ->" : "");
			}
		}
		sbx_error_hint(l->err, "remove one 'extends' from the cycle");
		return r;
	}
	if (l->depth > SBX_PROFILE_MAX_EXTENDS) {
		r = sbx_prof_fail(l, from, E2BIG, "'extends' goes deeper than %d profiles",
		                  SBX_PROFILE_MAX_EXTENDS);
		return r;
	}
	r = sbx_prof_read_config(l->o, file, "profile", &data, &len, l->err);
	if (r < 0)
		return from && !l->err->file[0] ? sbx_prof_locate(l, from, r) : r;
	l->stack[l->depth++] = real;
	r = load_data(l, file, data, len);
	l->depth--;
	return r;
}

static int start(const char *file, const struct sbx_profile_opts *opts, struct sbx_spec *spec,
                 struct sbx_profile **prof, struct sbx_error *err)
{
	*prof = calloc(1, sizeof(**prof));
	if (!*prof)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	(*prof)->file = strdup(file);
	(*prof)->name = sbx_prof_file_stem(file);
	if (!(*prof)->file || !(*prof)->name)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	return sbx_spec_set_str(&spec->profile, (*prof)->name, err);
}

int sbx_profile_load_buffer(const char *data, size_t len, const char *file,
                            const struct sbx_profile_opts *opts, struct sbx_spec *spec,
                            struct sbx_profile **out, struct sbx_error *err)
{
	_cleanup_profile_ struct sbx_profile *prof = NULL;
	struct loader l = {.o = opts, .spec = spec, .err = err};
	int r = start(file, opts, spec, &prof, err);

	*out = NULL;
	if (r < 0)
		return r;
	l.prof = prof;
	r = load_data(&l, file, data, len);
	if (r < 0)
		return r;
	*out = TAKE_PTR(prof);
	return 0;
}

int sbx_profile_load(const char *name_or_file, const struct sbx_profile_opts *opts,
                     struct sbx_spec *spec, struct sbx_profile **out, struct sbx_error *err)
{
	_cleanup_profile_ struct sbx_profile *prof = NULL;
	_cleanup_free_ char *file = NULL;
	struct loader l = {.o = opts, .spec = spec, .err = err};
	int r;

	*out = NULL;
	if (sbx_profile_arg_is_file(name_or_file)) {
		file = strdup(name_or_file);
		if (!file)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	} else {
		r = sbx_profile_find(name_or_file, opts, &file, err);
		if (r < 0)
			return r;
	}
	r = start(file, opts, spec, &prof, err);
	if (r < 0)
		return r;
	l.prof = prof;
	r = load_file(&l, file, NULL);
	if (r < 0)
		return r;
	*out = TAKE_PTR(prof);
	return 0;
}
