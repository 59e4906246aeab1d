/* SPDX-License-Identifier: MIT */
/*
 * The worker's home (sbx(1), --home; sbx-profile(5), home:). Tools expect a writable $HOME:
 * npm, pip --user, git and every cache writer fail with ENOENT or EROFS without one. The
 * built-in default gives the worker a private, sized tmpfs at the caller's $HOME (paths are
 * paths) with the caller's ~/.gitconfig read-only in it, so that git knows who commits; a
 * profile chooses (tmpfs, empty, a directory, or none).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "sbx/spec.h"

const char *sbx_home_name(enum sbx_home home)
{
	switch (home) {
	case SBX_HOME_TMPFS:
		return "tmpfs";
	case SBX_HOME_EMPTY:
		return "empty";
	case SBX_HOME_DIR:
		return "dir";
	case SBX_HOME_NONE:
		return "none";
	case SBX_HOME_UNSET:
		break;
	}
	return "unset";
}

uint64_t sbx_home_size_for(uint64_t mem_bytes)
{
	uint64_t q = mem_bytes / 4;

	if (!mem_bytes)
		return SBX_HOME_SIZE_FALLBACK;
	if (q < (64ull << 20))
		q = 64ull << 20; /* a machine this small: still room for a git config and caches */
	return q > SBX_HOME_SIZE_CAP ? SBX_HOME_SIZE_CAP : q;
}

int sbx_spec_set_home(struct sbx_spec *spec, const char *arg, const char *cwd,
                      struct sbx_error *err)
{
	static const struct {
		const char *name;
		enum sbx_home home;
	} words[] = {
	    {"tmpfs", SBX_HOME_TMPFS},
	    {"empty", SBX_HOME_EMPTY},
	    {"none", SBX_HOME_NONE},
	};
	_cleanup_free_ char *dir = NULL;
	int r;

	for (size_t i = 0; i < SBX_ARRAY_SIZE(words); i++) {
		if (strcmp(arg, words[i].name) == 0) {
			spec->home = words[i].home;
			return sbx_spec_set_str(&spec->home_dir, NULL, err);
		}
	}
	if (!*arg || (arg[0] != '/' && !cwd)) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "home '%s' is not tmpfs, empty, none or an absolute directory",
		                  arg);
		sbx_error_hint(err, "tmpfs: a private home with your ~/.gitconfig read-only; "
		                    "empty: a private home with nothing of yours; none: no home; "
		                    "/path: that directory, read-write");
		return r;
	}
	r = sbx_path_absolute(arg, cwd ? cwd : "/", &dir, err);
	if (r < 0)
		return r;
	if (strcmp(dir, "/") == 0) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "home '%s' is '/', which would give the sandbox the whole host "
		                  "read-write",
		                  arg);
		sbx_error_hint(err, "name a directory of its own, e.g. --home ~/.sbx-home");
		return r;
	}
	spec->home = SBX_HOME_DIR;
	return sbx_spec_set_str(&spec->home_dir, dir, err);
}

/* A mount of the spec at or above path: the user's choice there wins over the home. */
static const struct sbx_mount *covering(const struct sbx_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->n_mounts; i++)
		if (sbx_path_covers(spec->mounts[i].target, path))
			return &spec->mounts[i];
	return NULL;
}

static bool has_env(const struct sbx_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->n_env; i++)
		if (strcmp(spec->env[i].name, name) == 0)
			return true;
	return false;
}

int sbx_spec_add_home(struct sbx_spec *spec, struct sbx_error *err)
{
	char gitconfig[SBX_PATH_MAX];
	int r;

	switch (spec->home) {
	case SBX_HOME_UNSET:
	case SBX_HOME_NONE:
		return 0;
	case SBX_HOME_DIR: {
		struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
		                      .source = spec->home_dir,
		                      .target = spec->home_dir,
		                      .origin = SBX_ORIGIN_HOME};

		if (!spec->home_dir)
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "--home DIR names no directory");
		if (!sbx_spec_find_target(spec, spec->home_dir)) {
			r = sbx_spec_add_mount(spec, &m, false, err);
			if (r < 0)
				return r;
		}
		return has_env(spec, "HOME") ? 0
		                             : sbx_spec_add_env(spec, "HOME", spec->home_dir, err);
	}
	case SBX_HOME_TMPFS:
	case SBX_HOME_EMPTY:
		break;
	}
	/* No $HOME known, or "/": no home (a tmpfs at / would be the root). */
	if (!spec->home_path || spec->home_path[0] != '/' || strcmp(spec->home_path, "/") == 0)
		return 0;
	/* A mount the user or the profile named at or above $HOME (the workspace is the home
	 * itself, -v /home) wins: it shows what was asked for, and the home, which is there
	 * for tools that need a writable $HOME, stays out of its way. */
	if (covering(spec, spec->home_path))
		return 0;
	{
		struct sbx_mount m = {.kind = SBX_MOUNT_TMPFS,
		                      .target = spec->home_path,
		                      .origin = SBX_ORIGIN_HOME,
		                      .size = spec->home_size ? spec->home_size
		                                              : SBX_HOME_SIZE_FALLBACK};

		r = sbx_spec_add_mount(spec, &m, false, err);
		if (r < 0)
			return r;
	}
	if (!has_env(spec, "HOME")) {
		r = sbx_spec_add_env(spec, "HOME", spec->home_path, err);
		if (r < 0)
			return r;
	}
	if (spec->home != SBX_HOME_TMPFS || !spec->home_gitconfig)
		return 0;
	r = snprintf(gitconfig, sizeof(gitconfig), "%s/.gitconfig", spec->home_path);
	if (r < 0 || (size_t)r >= sizeof(gitconfig) || sbx_spec_find_target(spec, gitconfig))
		return 0;
	{
		/* optional: a file removed between the look and the launch is skipped */
		struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
		                      .source = spec->home_gitconfig,
		                      .target = gitconfig,
		                      .readonly = true,
		                      .optional = true,
		                      .origin = SBX_ORIGIN_HOME};

		return sbx_spec_add_mount(spec, &m, false, err);
	}
}
