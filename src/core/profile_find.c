/* SPDX-License-Identifier: MIT */
/*
 * Finding profile and policy files, through the caller's hooks (core reads no file: the
 * opts' is_file and read, which cmd fills with os functions): the search path
 * (sbx_profile_search_path), whether an argument is a file, valid names, the lookup of
 * NAME.yaml in the search path (sbx_profile_find), reading through the reader
 * (sbx_prof_read_config), and the small string helpers the loaders share. This file calls
 * nothing of the loaders.
 */
#include "sbx/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "profile_priv.h"
#include "yaml_tree.h"

/* ---- small helpers ---- */

void sbx_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int sbx_prof_strv_push(char ***v, size_t *n, const char *s, struct sbx_error *err)
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

const char *sbx_prof_env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* A profile or policy file, read by the caller's reader when it has one. */
int sbx_prof_read_config(const struct sbx_profile_opts *o, const char *file, const char *what,
                         char **data, size_t *len, struct sbx_error *err)
{
	if (!o || !o->read)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOSYS,
		                     "cannot read %s %s: this caller gives the loader no reader",
		                     what, file);
	return o->read(file, what, SBX_YAML_MAX_BYTES, data, len, err);
}

/* ---- finding files ---- */

int sbx_profile_search_path(char *const *envp, const char *home, char ***out, size_t *n_out,
                            struct sbx_error *err)
{
	char **v = NULL;
	size_t n = 0;
	const char *spp = sbx_prof_env_get(envp, "SBX_PROFILE_PATH");
	const char *xdg = sbx_prof_env_get(envp, "XDG_CONFIG_HOME");
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
			r = sbx_prof_strv_push(&v, &n, (dir), err);                                \
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

bool sbx_prof_name_valid(const char *name)
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

/* Look for NAME.yaml in each folder (with `sub` appended). Returns 0 and *out, or -ENOENT
 * with err listing the folders. */
int sbx_prof_find_in(const struct sbx_profile_opts *o, const char *name, const char *first_dir,
                     char *const *dirs, size_t n_dirs, const char *sub, const char *what,
                     char **out, struct sbx_error *err)
{
	char path[SBX_PATH_MAX];
	char looked[SBX_ERROR_MSG_MAX / 2] = "";
	size_t used = 0;
	int r;

	*out = NULL;
	if (!sbx_prof_name_valid(name)) {
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
	return sbx_prof_find_in(opts, name, NULL, opts->search, opts->n_search, "", "profile", file,
	                        err);
}
