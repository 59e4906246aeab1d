/* SPDX-License-Identifier: MIT */
#ifndef SBX_CORE_PROFILE_PRIV_H
#define SBX_CORE_PROFILE_PRIV_H

/*
 * Internal to src/core: the loader's state and key tables, and the helpers shared by the
 * profile loader (profile_load.c), the key-table walk (key_table.c), the file finder
 * (profile_find.c) and the policy file loader (policy_file.c).
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "yaml_tree.h"

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
	const struct sbx_ynode *approvals_node; /* the mount's approvals:, for its checks */
	bool mount_path_form;
};

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

/* profile_find.c */
const char *sbx_prof_env_get(char *const *envp, const char *name);
int sbx_prof_strv_push(char ***v, size_t *n, const char *s, struct sbx_error *err);
/* A profile or policy file, read by the caller's reader when it has one. */
int sbx_prof_read_config(const struct sbx_profile_opts *o, const char *file, const char *what,
                         char **data, size_t *len, struct sbx_error *err);
bool sbx_prof_name_valid(const char *name);
/* Look for NAME.yaml in each folder (with `sub` appended). Returns 0 and *out, or -ENOENT
 * with err listing the folders. */
int sbx_prof_find_in(const struct sbx_profile_opts *o, const char *name, const char *first_dir,
                     char *const *dirs, size_t n_dirs, const char *sub, const char *what,
                     char **out, struct sbx_error *err);

/* key_table.c */
__attribute__((format(printf, 4, 5))) int sbx_prof_fail(struct loader *l, const struct sbx_ynode *n,
                                                        int errnum, const char *fmt, ...);
/* Give an error that a setter or helper filled a location in the current file. */
int sbx_prof_locate(struct loader *l, const struct sbx_ynode *n, int r);
int sbx_prof_process_map(struct loader *l, const struct sbx_ynode *map, const struct key_entry *tab,
                         size_t n_tab, const char *what, const char *const *skip);
const struct sbx_ynode *sbx_prof_map_get(const struct sbx_ynode *map, const char *key);
int sbx_prof_get_str(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                     const char **out);
int sbx_prof_check_version(struct loader *l, const struct sbx_ynode *root, const char *what);
int sbx_prof_check_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v,
                        const char *expected);
/* "dir/name.yaml" -> "name"; "name.yml" -> "name". */
char *sbx_prof_file_stem(const char *file);
/* The key network: (src/core/profile_net.c). */
int sbx_prof_network(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v);
int sbx_prof_skip_key(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v);

#endif
