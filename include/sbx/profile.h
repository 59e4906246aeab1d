/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_H
#define SBX_PROFILE_H

/*
 * Profiles (sbx-profile(5)): YAML files loaded strictly into the same struct sbx_spec the
 * flags fill, through the same setters (spec.h), and the policies they name (policy.h).
 *
 * The loader reads files (the profile, what it extends, its policies) but makes no other
 * system call: host facts it needs (variables, the search path, whether an optional mount's
 * source exists) come in through struct sbx_profile_opts, so tests and the fuzzer drive it
 * without a host. Whether a file may be trusted (who could have written it) is the caller's
 * question too: opts->read, which the command line points at src/os/trust.c.
 *
 * Every error names the file, line and column (struct sbx_error's file/line/column) and the
 * caller prints it with the source line and a caret.
 *
 * Ownership: struct sbx_profile owns everything it points to; sbx_profile_free accepts NULL.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/policy.h"
#include "sbx/spec.h"

#define SBX_PROFILE_MAX_EXTENDS 8  /* depth of an extends chain */
#define SBX_PROFILE_NAME_MAX    64 /* bytes in a profile or policy name */
#define SBX_PROFILE_VERSION     1  /* the one `version:` this sbx reads */

/* Values of the variables a profile may use (sbx-profile(5)). */
struct sbx_profile_vars {
	const char *home;      /* ${HOME} and a leading ~ */
	const char *workspace; /* ${WORKSPACE} */
	const char *user;      /* ${USER} */
	unsigned uid;          /* ${UID} */
	char *const *environ;  /* ${XDG_*}, with the XDG defaults when unset */
};

struct sbx_profile_opts {
	struct sbx_profile_vars vars;
	char *const *search; /* the search path (sbx_profile_search_path), in order */
	size_t n_search;
	/* Does a host path exist? For `optional: true` mounts: a missing source is dropped
	 * with a note. NULL: keep every optional mount (the launcher skips missing ones). */
	bool (*exists)(const char *host_path, void *ctx);
	void *exists_ctx;
	/* Is a host path a regular file, symlinks followed (stat(2))? The finder asks it for
	 * each NAME.yaml it looks at, so that a folder or a dangling symlink of that name early
	 * on the search path does not hide the file further on. NULL: nothing is found by
	 * name. */
	bool (*is_file)(const char *path);
	/* The canonical path of a file (realpath(3)), allocated, or NULL with errno: how the
	 * loader recognises an `extends` cycle however its files are named. NULL: files are
	 * compared as named (a cycle through a symlink then meets the depth limit). */
	char *(*resolve)(const char *path);
	/* Read a profile or policy file (what: "profile" or "policy") of at most max bytes into
	 * *data (NUL-terminated, the caller frees) and *len, or refuse it. The command line
	 * refuses a file that someone other than the caller or root could have written
	 * (sbx_trust_read). Core never opens a file: NULL refuses every file (a buffer with no
	 * extends and no policies still loads). */
	int (*read)(const char *file, const char *what, size_t max, char **data, size_t *len,
	            struct sbx_error *err);
};

struct sbx_profile {
	char *name;        /* the profile's name (its file's name without .yaml) */
	char *file;        /* the file it was loaded from */
	char *description; /* or NULL */
	char **chain;      /* files of the extends chain, the base first, this file last */
	size_t n_chain;
	struct sbx_policy_set policies; /* every policy named, and the base policy */
	char **skipped; /* sources of optional mounts dropped because they do not exist */
	size_t n_skipped;
};

void sbx_profile_free(struct sbx_profile *p);
static inline void sbx_profile_freep(struct sbx_profile **p)
{
	sbx_profile_free(*p);
}
#define _cleanup_profile_ __attribute__((cleanup(sbx_profile_freep)))

/*
 * The search path of sbx-profile(5), from an environment: $SBX_PROFILE_PATH (colon-separated,
 * empty parts ignored, relative parts refused), $XDG_CONFIG_HOME/sbx/profiles or
 * HOME/.config/sbx/profiles, /etc/sbx/profiles and the installed data directory (not a source
 * tree's profiles/: a sandbox of the checkout could write those for a later launch to find by
 * name). *out is a NULL-terminated array the caller frees with sbx_strv_free.
 */
int sbx_profile_search_path(char *const *envp, const char *home, char ***out, size_t *n,
                            struct sbx_error *err);
void sbx_strv_free(char **v);

/* Is this a file argument (contains '/' or ends in .yaml/.yml) rather than a name? */
bool sbx_profile_arg_is_file(const char *arg);

/* Find NAME.yaml on the search path; *file is allocated. -ENOENT with a message naming the
 * folders looked in. */
int sbx_profile_find(const char *name, const struct sbx_profile_opts *opts, char **file,
                     struct sbx_error *err);

/*
 * Load a profile by name or file (sbx_profile_arg_is_file) into spec, which may already hold
 * a workspace. Sets spec->profile. On failure the spec may be half filled: discard it.
 */
int sbx_profile_load(const char *name_or_file, const struct sbx_profile_opts *opts,
                     struct sbx_spec *spec, struct sbx_profile **out, struct sbx_error *err);

/* Load from memory (the fuzzer, tests); `file` names it in errors and places policies/. */
int sbx_profile_load_buffer(const char *data, size_t len, const char *file,
                            const struct sbx_profile_opts *opts, struct sbx_spec *spec,
                            struct sbx_profile **out, struct sbx_error *err);

/* Load one policy file. `expected` (or NULL) is the name it must carry. */
int sbx_policy_load_file_with(const char *file, const char *expected,
                              const struct sbx_profile_opts *opts, struct sbx_policy **out,
                              struct sbx_error *err);
int sbx_policy_load_buffer(const char *data, size_t len, const char *file, const char *expected,
                           struct sbx_policy **out, struct sbx_error *err);

/*
 * Expand the variables of one value: a leading "~" (alone or before '/'), ${HOME},
 * ${WORKSPACE}, ${USER}, ${UID}, ${XDG_*}; "$$" is a '$'. Any other '$' is an error (an
 * unknown variable, or '$' without braces). *out is allocated.
 */
int sbx_profile_expand(const char *in, const struct sbx_profile_vars *vars, char **out,
                       struct sbx_error *err);
/* The same for a glob: the variables' values have their glob characters (*?[]\\) quoted with
 * '\\', so that they match themselves (a workspace "proj [v1]"). */
int sbx_profile_expand_glob(const char *in, const struct sbx_profile_vars *vars, char **out,
                            struct sbx_error *err);

#endif
