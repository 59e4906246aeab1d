/* SPDX-License-Identifier: MIT */
/*
 * The profile and policy loader. Each YAML mapping is read through a table of its keys (as
 * netplan's mapping_entry_handler tables): key -> the node type it takes -> a handler that
 * fills the spec through the same setters the command line uses. Anything not in a table is
 * an error at its line and column; so is every wrong type and every value a handler refuses.
 */
#include "sbx/profile.h"
#include "sbx/seccomp.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "yaml_tree.h"

/* ---- small helpers ---- */

void sbx_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int strv_push(char ***v, size_t *n, const char *s, struct sbx_error *err)
{
	char **grown = realloc(*v, (*n + 2) * sizeof(*grown));
	char *copy = strdup(s);

	if (grown)
		*v = grown;
	if (!grown || !copy) {
		free(copy);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	(*v)[(*n)++] = copy;
	(*v)[*n] = NULL;
	return 0;
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

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

/* A profile or policy file, read by the caller's reader: core never opens a file. */
static int read_config(const struct sbx_profile_opts *o, const char *file, const char *what,
                       char **data, size_t *len, struct sbx_error *err)
{
	if (!o || !o->read)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOSYS,
		                     "cannot read %s %s: this caller gives the loader no reader",
		                     what, file);
	return o->read(file, what, SBX_YAML_MAX_BYTES, data, len, err);
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

static int lookup_var(const char *name, const struct sbx_profile_vars *v, struct strbuf *b,
                      struct sbx_error *err)
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
		val = env_get(v->environ, name);
		/* The XDG spec: a relative or empty value is ignored. */
		if (val && val[0] != '/')
			val = NULL;
		for (size_t i = 0; !val && i < SBX_ARRAY_SIZE(xdg_defaults); i++) {
			if (strcmp(name, xdg_defaults[i].name) != 0)
				continue;
			if (!v->home || !*v->home)
				break;
			r = sb_add(b, v->home, strlen(v->home), err);
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
	return sb_add(b, val, strlen(val), err);
}

int sbx_profile_expand(const char *in, const struct sbx_profile_vars *vars, char **out,
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
		r = sb_add(&b, vars->home, strlen(vars->home), err);
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
			r = lookup_var(name, vars, &b, err);
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

/* ---- finding files ---- */

int sbx_profile_search_path(char *const *envp, const char *home, bool from_build, char ***out,
                            size_t *n_out, struct sbx_error *err)
{
	char **v = NULL;
	size_t n = 0;
	const char *spp = env_get(envp, "SBX_PROFILE_PATH");
	const char *xdg = env_get(envp, "XDG_CONFIG_HOME");
	char buf[SBX_PATH_MAX];
	int r = 0;

	*out = NULL;
	*n_out = 0;
#define PUSH(dir)                                                                                  \
	do {                                                                                       \
		bool dup = false;                                                                  \
		for (size_t k = 0; k < n; k++)                                                     \
			dup |= strcmp(v[k], (dir)) == 0;                                           \
		if (!dup && r >= 0)                                                                \
			r = strv_push(&v, &n, (dir), err);                                         \
	} while (0)

	if (spp) {
		_cleanup_free_ char *copy = strdup(spp);
		char *save = NULL;

		if (!copy)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		for (char *t = strtok_r(copy, ":", &save); t && r >= 0;
		     t = strtok_r(NULL, ":", &save)) {
			if (t[0] != '/') {
				r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
				                  "SBX_PROFILE_PATH has a relative folder '%s'", t);
				sbx_error_hint(err, "list absolute folders, separated by ':'");
				break;
			}
			if (sbx_path_normalize(t, buf, sizeof(buf), err) < 0) {
				r = -EINVAL;
				break;
			}
			PUSH(buf);
		}
	}
	if (r >= 0 && xdg && xdg[0] == '/') {
		snprintf(buf, sizeof(buf), "%s/sbx/profiles", xdg);
		PUSH(buf);
	} else if (r >= 0 && home && home[0] == '/') {
		snprintf(buf, sizeof(buf), "%s/.config/sbx/profiles", home);
		PUSH(buf);
	}
	PUSH("/etc/sbx/profiles");
	PUSH(SBX_DATADIR "/profiles");
	if (from_build)
		PUSH(SBX_SOURCE_DIR "/profiles");
#undef PUSH
	if (r < 0) {
		sbx_strv_free(v);
		return r;
	}
	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	*out = v;
	*n_out = n;
	return 0;
}

bool sbx_profile_arg_is_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(arg + n - 4, ".yml") == 0);
}

static bool name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > SBX_PROFILE_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

/* Look for NAME.yaml in each folder (with `sub` appended), asking the caller's o->is_file
 * (none: nothing is found). Returns 0 and *out, or -ENOENT with err listing the folders. */
static int find_in(const struct sbx_profile_opts *o, const char *name, const char *first_dir,
                   char *const *dirs, size_t n_dirs, const char *sub, const char *what, char **out,
                   struct sbx_error *err)
{
	char path[SBX_PATH_MAX];
	char looked[SBX_ERROR_MSG_MAX / 2] = "";
	size_t used = 0;
	int r;

	*out = NULL;
	if (!name_valid(name)) {
		r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL, "'%s' is not a valid %s name", name,
		                  what);
		sbx_error_hint(err,
		               "names are letters, digits, '-', '_' and '.', at most %d "
		               "bytes, not starting with '.' or '-'",
		               SBX_PROFILE_NAME_MAX);
		return r;
	}
	for (size_t i = first_dir ? 0 : 1; i <= n_dirs; i++) {
		const char *dir = i == 0 ? first_dir : dirs[i - 1];
		int n = snprintf(path, sizeof(path), "%s%s/%s.yaml", dir, sub, name);

		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		if (o && o->is_file && o->is_file(path)) {
			*out = strdup(path);
			return *out ? 0
			            : sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		n = snprintf(looked + used, sizeof(looked) - used, "%s%s%s", used ? ", " : "", dir,
		             sub);
		if (n > 0 && (size_t)n < sizeof(looked) - used)
			used += (size_t)n;
	}
	r = sbx_error_set(err, SBX_ERR_PROFILE, ENOENT,
	                  "%s '%s' not found (looked for %s.yaml in: %s)", what, name, name,
	                  used ? looked : "no folder");
	sbx_error_hint(err, "check the name, or put %s.yaml in one of those folders", name);
	return r;
}

int sbx_profile_find(const char *name, const struct sbx_profile_opts *opts, char **file,
                     struct sbx_error *err)
{
	return find_in(opts, name, NULL, opts->search, opts->n_search, "", "profile", file, err);
}

/* ---- the loader ---- */

struct seen_target {
	char *target;
	int line;
};

struct file_ctx {
	const char *file;
	char *dir;
	struct seen_target *seen; /* mount targets this file names: one file, one target */
	size_t n_seen;
};

struct loader {
	const struct sbx_profile_opts *o;
	struct sbx_spec *spec; /* NULL when loading a policy alone */
	struct sbx_profile *prof;
	struct sbx_error *err;
	struct file_ctx *cur;
	/* the files being loaded: their real paths (o->resolve), or as named without one */
	const char *stack[SBX_PROFILE_MAX_EXTENDS + 2];
	int depth;
	struct sbx_policy *policy; /* the policy being loaded */
	struct sbx_rule *rule;     /* the rule being loaded */
	struct sbx_mount *mount;   /* the mount being loaded: &mount_buf */
	struct sbx_mount mount_buf;
	const struct sbx_ynode *mount_node;
	const struct sbx_ynode *path_node, *source_node, *target_node, *policy_node;
	bool mount_path_form;
};

__attribute__((format(printf, 4, 5))) static int fail(struct loader *l, const struct sbx_ynode *n,
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
static int locate(struct loader *l, const struct sbx_ynode *n, int r)
{
	if (l->err) {
		if (l->err->kind == SBX_ERR_USAGE)
			l->err->kind = SBX_ERR_PROFILE;
		if (!l->err->file[0] && n)
			sbx_error_at(l->err, l->cur->file, n->line, n->column);
	}
	return r;
}

enum want {
	W_SCALAR,
	W_SEQ,
	W_MAP,
	W_ANY,
	W_REFUSED, /* recognised, and refused as not supported in this version */
};

typedef int (*handler_fn)(struct loader *l, const struct sbx_ynode *key,
                          const struct sbx_ynode *val);

struct key_entry {
	const char *key;
	enum want want;
	handler_fn fn;
	const char *why; /* W_REFUSED: what it is waiting for */
};

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

static int process_map(struct loader *l, const struct sbx_ynode *map, const struct key_entry *tab,
                       size_t n_tab, const char *what, const char *const *skip)
{
	char keys[512];
	size_t used = 0;

	if (map->kind != SBX_Y_MAP)
		return fail(l, map, EINVAL, "%s must be a mapping (key: value), not %s", what,
		            sbx_ynode_type_name(map));
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
			return fail(l, k, EINVAL, "a key in %s must be a plain word, not %s", what,
			            sbx_ynode_type_name(k));
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(map->kids[j]->value, k->value) == 0)
				return fail(l, k, EEXIST,
				            "duplicate key '%s' in %s (first at line %d)", k->value,
				            what, map->kids[j]->line);
		for (size_t j = 0; j < n_tab && !e; j++)
			if (strcmp(tab[j].key, k->value) == 0)
				e = &tab[j];
		if (!e) {
			r = fail(l, k, EINVAL, "unknown key '%s' in %s", k->value, what);
			sbx_error_hint(l->err, "the keys are: %s", keys);
			return r;
		}
		for (size_t j = 0; skip && skip[j]; j++)
			skipped |= strcmp(skip[j], k->value) == 0;
		if (skipped)
			continue;
		if (e->want == W_REFUSED) {
			r = fail(l, k, EOPNOTSUPP, "'%s' is not supported in this version of sbx",
			         k->value);
			sbx_error_hint(l->err,
			               "%s; remove the key (sbx never ignores a setting "
			               "silently)",
			               e->why);
			return r;
		}
		if ((e->want == W_SCALAR && v->kind != SBX_Y_SCALAR) ||
		    (e->want == W_SEQ && v->kind != SBX_Y_SEQ) ||
		    (e->want == W_MAP && v->kind != SBX_Y_MAP))
			return fail(l, v, EINVAL, "'%s' takes %s, not %s", k->value,
			            want_name(e->want), sbx_ynode_type_name(v));
		r = e->fn(l, k, v);
		if (r < 0)
			return r;
	}
	return 0;
}

static const struct sbx_ynode *map_get(const struct sbx_ynode *map, const char *key)
{
	for (size_t i = 0; map->kind == SBX_Y_MAP && i + 1 < map->n_kids; i += 2)
		if (map->kids[i]->kind == SBX_Y_SCALAR && strcmp(map->kids[i]->value, key) == 0)
			return map->kids[i + 1];
	return NULL;
}

static int get_str(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                   const char **out)
{
	if (v->kind != SBX_Y_SCALAR)
		return fail(l, v, EINVAL, "'%s' takes a single value, not %s", k->value,
		            sbx_ynode_type_name(v));
	if (v->len == 0)
		return fail(l, v, EINVAL, "'%s' needs a value", k->value);
	*out = v->value;
	return 0;
}

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
	return fail(l, v, EINVAL, "'%s' takes true or false, not %s%s%s", k->value,
	            v->kind == SBX_Y_SCALAR ? "'" : "",
	            v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
	            v->kind == SBX_Y_SCALAR ? "'" : "");
}

/* A scalar with variables expanded: the caller frees *out. */
static int get_expanded(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                        char **out)
{
	const char *s = NULL;
	int r = get_str(l, k, v, &s);

	if (r < 0)
		return r;
	r = sbx_profile_expand(s, &l->o->vars, out, l->err);
	if (r < 0) {
		sbx_error_wrap(l->err, "'%s'", k->value);
		return locate(l, v, r);
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
		r = fail(l, v, EINVAL, "'%s' must be an absolute path, not '%s'", k->value,
		         v->value);
		sbx_error_hint(l->err, "start it with '/', '~/' or a variable such as "
		                       "${WORKSPACE}/");
		return r;
	}
	r = sbx_path_absolute(raw, "/", out, l->err);
	if (r < 0) {
		sbx_error_wrap(l->err, "'%s'", k->value);
		return locate(l, v, r);
	}
	return 0;
}

static int check_version(struct loader *l, const struct sbx_ynode *root, const char *what)
{
	const struct sbx_ynode *v = map_get(root, "version");
	int r;

	if (!v) {
		r = fail(l, root, EINVAL, "%s has no 'version'", what);
		sbx_error_hint(l->err, "add 'version: %d' as its first line", SBX_PROFILE_VERSION);
		return r;
	}
	if (v->kind != SBX_Y_SCALAR || !v->plain || strcmp(v->value, "1") != 0) {
		r = fail(l, v, EINVAL, "unsupported version '%s'; this sbx reads version %d",
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

static int check_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                      const char *expected)
{
	const char *s = NULL;
	int r = get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (expected && strcmp(s, expected) != 0) {
		r = fail(l, v, EINVAL, "name '%s' does not match the file's name '%s'", s,
		         expected);
		sbx_error_hint(l->err, "a profile or policy is named after its file: rename one "
		                       "of them");
		return r;
	}
	return 0;
}

/* "dir/name.yaml" -> "name"; "name.yml" -> "name". */
static char *file_stem(const char *file)
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

static char *file_dir(const char *file)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		return strdup(".");
	if (slash == file)
		return strdup("/");
	return strndup(file, (size_t)(slash - file));
}

/* ---- policies ---- */

static int rule_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const char *s = NULL;
	int r = get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (v->len > SBX_RULE_NAME_MAX || !name_valid(s))
		return fail(l, v, EINVAL,
		            "rule name '%s' is not valid (letters, digits, '-', '_', '.')", s);
	for (size_t i = 0; i + 1 < l->policy->n_rules; i++)
		if (strcmp(l->policy->rules[i].name, s) == 0)
			return fail(l, v, EEXIST, "two rules are named '%s' (the first at line %d)",
			            s, l->policy->rules[i].line);
	l->rule->name = strdup(s);
	return l->rule->name ? 0 : sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
}

static int rule_description(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return 0; /* for people reading the file; checked to be a single value */
}

static int rule_paths(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	if (v->n_kids == 0)
		return fail(l, v, EINVAL, "'paths' is empty; a rule needs at least one pattern");
	if (v->n_kids > SBX_MAX_RULE_PATHS)
		return fail(l, v, E2BIG, "a rule has more than %d paths", SBX_MAX_RULE_PATHS);
	l->rule->paths = calloc(v->n_kids, sizeof(char *));
	if (!l->rule->paths)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < v->n_kids; i++) {
		const struct sbx_ynode *p = v->kids[i];
		const char *s = NULL;
		size_t off;
		int r = get_str(l, k, p, &s);

		if (r < 0)
			return r;
		r = sbx_glob_check(s, &off, l->err);
		if (r < 0)
			return locate(l, p, r);
		l->rule->paths[l->rule->n_paths] = strdup(s);
		if (!l->rule->paths[l->rule->n_paths])
			return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		l->rule->n_paths++;
	}
	return 0;
}

static int rule_operations(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	if (v->n_kids == 0)
		return fail(l, v, EINVAL, "'operations' is empty; name at least one");
	for (size_t i = 0; i < v->n_kids; i++) {
		const char *s = NULL;
		unsigned op;
		int r = get_str(l, k, v->kids[i], &s);

		if (r < 0)
			return r;
		op = sbx_op_parse(s);
		if (!op) {
			r = fail(l, v->kids[i], EINVAL, "unknown operation '%s'", s);
			sbx_error_hint(l->err,
			               "the operations are read, list, stat, write, create, "
			               "delete, execute, rename (create and delete) and all");
			return r;
		}
		l->rule->ops |= op;
	}
	return 0;
}

static int rule_decision(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const char *s = NULL;
	int r = get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (strcmp(s, "allow") == 0 || strcmp(s, "deny") == 0) {
		l->rule->allow = s[0] == 'a';
		return 0;
	}
	r = fail(l, v, EINVAL, "unknown decision '%s'", s);
	sbx_error_hint(l->err, "a decision is allow or deny");
	return r;
}

static const struct key_entry rule_keys[] = {
    {"name", W_SCALAR, rule_name, NULL},         {"description", W_SCALAR, rule_description, NULL},
    {"paths", W_SEQ, rule_paths, NULL},          {"operations", W_SEQ, rule_operations, NULL},
    {"decision", W_SCALAR, rule_decision, NULL},
};

static int policy_rules(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	static const char *const required[] = {"name", "paths", "operations", "decision"};

	if (v->n_kids > SBX_MAX_RULES)
		return fail(l, v, E2BIG, "a policy has more than %d rules", SBX_MAX_RULES);
	if (l->policy->rules)
		return fail(l, k, EEXIST, "'rules' and 'file_rules' are the same key; give one");
	l->policy->rules = calloc(v->n_kids ? v->n_kids : 1, sizeof(struct sbx_rule));
	if (!l->policy->rules)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	l->policy->line = k->line;
	l->policy->column = k->column;
	for (size_t i = 0; i < v->n_kids; i++) {
		const struct sbx_ynode *rn = v->kids[i];
		int r;

		l->rule = &l->policy->rules[l->policy->n_rules++];
		l->rule->line = rn->line;
		l->rule->column = rn->column;
		r = process_map(l, rn, rule_keys, SBX_ARRAY_SIZE(rule_keys), "a rule", NULL);
		if (r < 0)
			return r;
		for (size_t j = 0; j < SBX_ARRAY_SIZE(required); j++)
			if (!map_get(rn, required[j]))
				return fail(l, rn, EINVAL, "this rule has no '%s'", required[j]);
	}
	return 0;
}

static int policy_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return check_name(l, k, v, l->policy->name);
}

static int policy_description(struct loader *l, const struct sbx_ynode *k,
                              const struct sbx_ynode *v)
{
	free(l->policy->description);
	l->policy->description = strdup(v->value);
	return l->policy->description
	           ? 0
	           : sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
}

static int skip_key(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return 0; /* handled before the table is walked */
}

static const struct key_entry policy_keys[] = {
    {"version", W_SCALAR, skip_key, NULL},
    {"name", W_SCALAR, policy_name, NULL},
    {"description", W_SCALAR, policy_description, NULL},
    {"rules", W_SEQ, policy_rules, NULL},
    {"file_rules", W_SEQ, policy_rules, NULL}, /* the multi-mount seed's spelling */
};

static int load_policy_tree(struct loader *l, const struct sbx_ynode *root)
{
	int r;

	if (root->kind != SBX_Y_MAP)
		return fail(l, root, EINVAL,
		            "a policy must be a mapping (version, name, rules), "
		            "not %s",
		            sbx_ynode_type_name(root));
	r = check_version(l, root, "the policy");
	if (r < 0)
		return r;
	r = process_map(l, root, policy_keys, SBX_ARRAY_SIZE(policy_keys), "a policy", NULL);
	if (r < 0)
		return r;
	if (!map_get(root, "rules") && !map_get(root, "file_rules"))
		return fail(l, root, EINVAL, "the policy has no 'rules'");
	return 0;
}

int sbx_policy_load_buffer(const char *data, size_t len, const char *file, const char *expected,
                           struct sbx_policy **out, struct sbx_error *err)
{
	struct file_ctx fc = {.file = file};
	struct loader l = {.err = err, .cur = &fc};
	struct sbx_ynode *root = NULL;
	struct sbx_policy *p = calloc(1, sizeof(*p));
	int r;

	*out = NULL;
	if (!p)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->name = expected ? strdup(expected) : file_stem(file);
	p->file = strdup(file);
	p->line = p->column = 1;
	if (!p->name || !p->file) {
		sbx_policy_free(p);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	l.policy = p;
	r = sbx_yaml_parse(data, len, file, &root, err);
	if (r >= 0 && root->kind == SBX_Y_SCALAR && root->plain && root->len == 0)
		r = fail(&l, root, ENODATA, "the file is empty");
	if (r >= 0)
		r = load_policy_tree(&l, root);
	sbx_ynode_free(root);
	if (r < 0) {
		sbx_policy_free(p);
		return r;
	}
	*out = p;
	return 0;
}

int sbx_policy_load_file_with(const char *file, const char *expected,
                              const struct sbx_profile_opts *opts, struct sbx_policy **out,
                              struct sbx_error *err)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r = read_config(opts, file, "policy", &data, &len, err);

	if (r < 0)
		return r;
	return sbx_policy_load_buffer(data, len, file, expected, out, err);
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
	r = find_in(l->o, name, l->cur->dir, l->o->search, l->o->n_search, "/policies", "policy",
	            &file, l->err);
	if (r < 0)
		return locate(l, node, r);
	r = sbx_policy_load_file_with(file, name, l->o, &p, l->err);
	if (r < 0)
		return r; /* located in the policy file */
	r = sbx_policy_set_add(&l->prof->policies, p, l->err);
	if (r < 0)
		return locate(l, node, r);
	*out = sbx_policy_set_find(&l->prof->policies, name);
	return 0;
}

/* ---- profiles ---- */

static int load_file(struct loader *l, const char *file, const struct sbx_ynode *from);

static int p_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *stem = file_stem(l->cur->file);

	if (!stem)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	return check_name(l, k, v, stem);
}

static int p_description(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_spec_set_str(&l->prof->description, v->value, l->err);
}

static int p_base_policy(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const struct sbx_policy *p;
	const char *s = NULL;
	int r = get_str(l, k, v, &s);

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
	return locate(l, v, sbx_spec_set_str(&l->spec->root, path, l->err));
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

static int p_network(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	int r;

	if (v->kind == SBX_Y_SCALAR && strcmp(v->value, "none") == 0) {
		l->spec->net = SBX_NET_NONE;
		return 0;
	}
	if (v->kind == SBX_Y_SCALAR && strcmp(v->value, "host") == 0) {
		l->spec->net = SBX_NET_HOST;
		return 0;
	}
	if (v->kind == SBX_Y_MAP) {
		r = fail(l, v, EOPNOTSUPP,
		         "network allowlists are not supported in this version of sbx");
		sbx_error_hint(l->err, "use 'network: none' (loopback only) or 'network: host'");
		return r;
	}
	r = fail(l, v, EINVAL, "'network' is none or host, not %s%s%s",
	         v->kind == SBX_Y_SCALAR ? "'" : "",
	         v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
	         v->kind == SBX_Y_SCALAR ? "'" : "");
	return r;
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
		r = fail(l, v, EOPNOTSUPP,
		         "a list of system mounts is not supported in this version of sbx");
		sbx_error_hint(l->err, "use 'system_mounts: none' and list what you need under "
		                       "'mounts' with readonly: true");
		return r;
	}
	return fail(l, v, EINVAL, "'system_mounts' is default or none, not %s%s%s",
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
		r = fail(l, node, EEXIST, "two mounts have the target '%s' (the first at line %d)",
		         target, fc->seen[i].line);
		sbx_error_hint(l->err, "give each mount its own target, or drop one of them");
		return r;
	}
	if (fc->n_seen >= SBX_MAX_MOUNTS)
		return fail(l, node, E2BIG, "too many mounts (at most %d)", SBX_MAX_MOUNTS);
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
	int r = get_str(l, k, v, &s);

	if (r < 0)
		return r;
	l->policy_node = v;
	r = need_policy(l, v, s, &p);
	if (r < 0)
		return r;
	return sbx_spec_set_str(&l->mount->policy, s, l->err);
}

static const struct key_entry mount_keys[] = {
    {"path", W_SCALAR, m_path, NULL},
    {"source", W_SCALAR, m_source, NULL},
    {"target", W_SCALAR, m_target, NULL},
    {"readonly", W_SCALAR, m_readonly, NULL},
    {"optional", W_SCALAR, m_optional, NULL},
    {"policy", W_SCALAR, m_policy, NULL},
    {"suffixes", W_REFUSED, NULL,
     "narrowing reads by suffix needs Landlock, which this "
     "version does not have yet"},
    {"max_file_bytes", W_REFUSED, NULL,
     "a size limit on reads needs the supervisor, which "
     "this version does not have yet"},
    {"approvals", W_REFUSED, NULL,
     "approvals need the supervisor, which this version does "
     "not have yet"},
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
		r = process_map(l, mn, mount_keys, SBX_ARRAY_SIZE(mount_keys), "a mount", NULL);
		if (r >= 0 && l->path_node && (l->source_node || l->target_node))
			r = fail(l, l->source_node ? l->source_node : l->target_node, EINVAL,
			         "'path' is a mount at the same path inside and out; use 'source' "
			         "and 'target' instead to mount elsewhere");
		if (r >= 0 && !l->path_node && !l->source_node)
			r = fail(l, mn, EINVAL, "this mount has no 'path' or 'source'");
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
			r = strv_push(&l->prof->skipped, &l->prof->n_skipped, mp->source, l->err);
			if (r >= 0 && mp->readonly)
				r = strv_push(&l->spec->absent_ro, &l->spec->n_absent_ro,
				              mp->target, l->err);
			sbx_mount_clear(mp);
			if (r < 0)
				return r;
			continue;
		}
		if (r >= 0)
			r = locate(l, mn, sbx_spec_add_mount(l->spec, mp, true, l->err));
		sbx_mount_clear(mp);
		if (r < 0)
			return r;
	}
	return 0;
}

static int p_tmpfs(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		struct sbx_mount m = {.kind = SBX_MOUNT_TMPFS, .origin = SBX_ORIGIN_PROFILE};
		int r = get_path(l, k, v->kids[i], &m.target);

		if (r >= 0)
			r = claim_target(l, v->kids[i], m.target);
		if (r >= 0)
			r = locate(l, v->kids[i], sbx_spec_add_mount(l->spec, &m, true, l->err));
		sbx_mount_clear(&m);
		if (r < 0)
			return r;
	}
	return 0;
}

static int p_devices(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		struct sbx_mount m = {.kind = SBX_MOUNT_DEVICE, .origin = SBX_ORIGIN_PROFILE};
		int r = get_path(l, k, v->kids[i], &m.source);

		if (r >= 0 && (!sbx_path_covers("/dev", m.source) || !strcmp(m.source, "/dev")))
			r = fail(l, v->kids[i], EINVAL, "device '%s' is not a path under /dev",
			         m.source);
		if (r >= 0)
			r = sbx_spec_set_str(&m.target, m.source, l->err);
		if (r >= 0)
			r = claim_target(l, v->kids[i], m.target);
		if (r >= 0)
			r = locate(l, v->kids[i], sbx_spec_add_mount(l->spec, &m, true, l->err));
		sbx_mount_clear(&m);
		if (r < 0)
			return r;
	}
	return 0;
}

static int p_hide(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		_cleanup_free_ char *path = NULL;
		int r = get_path(l, k, v->kids[i], &path);

		if (r < 0)
			return r;
		/* A glob is matched by one walk of the host at launch (src/os/globwalk.c). */
		if (!sbx_glob_is_literal(path))
			r = locate(l, v->kids[i], sbx_spec_add_hide_glob(l->spec, path, l->err));
		else
			r = locate(l, v->kids[i], sbx_spec_add_hide(l->spec, path, l->err));
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
		int r = get_path(l, k, v->kids[i], &path);

		if (r >= 0)
			r = locate(l, v->kids[i], sbx_spec_add_unhide(l->spec, path, l->err));
		if (r < 0)
			return r;
	}
	return 0;
}

static int env_pass(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	for (size_t i = 0; i < v->n_kids; i++) {
		const char *s = NULL;
		int r = get_str(l, k, v->kids[i], &s);

		if (r < 0)
			return r;
		r = locate(l, v->kids[i], sbx_spec_add_env(l->spec, s, NULL, l->err));
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
			return fail(l, nk, EINVAL, "an environment name must be a plain word");
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(v->kids[j]->value, nk->value) == 0)
				return fail(l, nk, EEXIST, "'%s' is set twice (first at line %d)",
				            nk->value, v->kids[j]->line);
		if (nv->kind != SBX_Y_SCALAR)
			return fail(l, nv, EINVAL, "the value of %s must be a single value, not %s",
			            nk->value, sbx_ynode_type_name(nv));
		if (nv->len == 0) {
			val = strdup("");
			r = val ? 0 : sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		} else {
			r = get_expanded(l, nk, nv, &val);
		}
		if (r >= 0)
			r = locate(l, nk, sbx_spec_add_env(l->spec, nk->value, val, l->err));
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
	return process_map(l, v, env_keys, SBX_ARRAY_SIZE(env_keys), "'env'", NULL);
}

static int p_extends(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	_cleanup_free_ char *file = NULL;
	const char *s = NULL;
	int r = get_str(l, k, v, &s);

	if (r < 0)
		return r;
	/* Beside this file first, then the search path. */
	r = find_in(l->o, s, l->cur->dir, l->o->search, l->o->n_search, "", "profile", &file,
	            l->err);
	if (r < 0)
		return locate(l, v, r);
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
			return fail(l, n, EINVAL,
			            "a seccomp group or call name must be a word, not %s",
			            sbx_ynode_type_name(n));
		if (set(&l->spec->seccomp, n->value, l->err) < 0)
			return locate(l, n, -EINVAL);
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
		return locate(l, v, -EINVAL);
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
	return process_map(l, v, seccomp_keys, SBX_ARRAY_SIZE(seccomp_keys), "'seccomp'", NULL);
}

static const struct key_entry profile_keys[] = {
    {"version", W_SCALAR, skip_key, NULL},
    {"extends", W_SCALAR, skip_key, NULL},
    {"name", W_SCALAR, p_name, NULL},
    {"description", W_SCALAR, p_description, NULL},
    {"base_policy", W_SCALAR, p_base_policy, NULL},
    {"root", W_SCALAR, p_root, NULL},
    {"readonly", W_SCALAR, p_readonly, NULL},
    {"mounts", W_SEQ, p_mounts, NULL},
    {"system_mounts", W_ANY, p_system_mounts, NULL},
    {"tmpfs", W_SEQ, p_tmpfs, NULL},
    {"hide", W_SEQ, p_hide, NULL},
    {"unhide", W_SEQ, p_unhide, NULL},
    {"devices", W_SEQ, p_devices, NULL},
    {"env", W_MAP, p_env, NULL},
    {"network", W_ANY, p_network, NULL},
    {"nesting", W_SCALAR, p_nesting, NULL},
    {"best_effort", W_SCALAR, p_best_effort, NULL},
    {"protect_git", W_SCALAR, p_protect_git, NULL},
    {"seccomp", W_MAP, p_seccomp, NULL},
    {"approvals", W_REFUSED, NULL,
     "approvals need the supervisor (SPEC section 9), which "
     "this version does not have yet"},
    {"limits", W_REFUSED, NULL, "limits (SPEC section 12) are not implemented yet"},
    {"audit", W_REFUSED, NULL, "the audit log (SPEC section 10) is not implemented yet"},
};

static int load_tree(struct loader *l, const struct sbx_ynode *root)
{
	const struct sbx_ynode *ext;
	int r;

	if (root->kind == SBX_Y_SCALAR && root->plain && root->len == 0)
		return fail(l, root, ENODATA, "the file is empty");
	if (root->kind != SBX_Y_MAP)
		return fail(l, root, EINVAL,
		            "a profile must be a mapping (version, mounts, ...), "
		            "not %s",
		            sbx_ynode_type_name(root));
	r = check_version(l, root, "the profile");
	if (r < 0)
		return r;
	/* What this file extends is loaded first, so that every key of this file applies on
	 * top of it. */
	ext = map_get(root, "extends");
	if (ext) {
		for (size_t i = 0; i + 1 < root->n_kids; i += 2)
			if (root->kids[i + 1] == ext)
				r = p_extends(l, root->kids[i], ext);
		if (r < 0)
			return r;
	}
	return process_map(l, root, profile_keys, SBX_ARRAY_SIZE(profile_keys), "a profile",
	                   (const char *const[]){"version", "extends", NULL});
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
		r = strv_push(&l->prof->chain, &l->prof->n_chain, file, l->err);
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
		return from ? locate(l, from, r) : r;
	}
	for (int i = 0; i < l->depth; i++) {
		if (strcmp(l->stack[i], real) != 0)
			continue;
		r = fail(l, from, ELOOP, "'extends' makes a cycle:");
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
		r = fail(l, from, E2BIG, "'extends' goes deeper than %d profiles",
		         SBX_PROFILE_MAX_EXTENDS);
		return r;
	}
	r = read_config(l->o, file, "profile", &data, &len, l->err);
	if (r < 0)
		return from && !l->err->file[0] ? locate(l, from, r) : r;
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
	(*prof)->name = file_stem(file);
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
