/* SPDX-License-Identifier: MIT */
/*
 * Policy files: the key tables of a policy and its rules, and loading one from a buffer or
 * a file (sbx_policy_load_buffer, sbx_policy_load_file*), through the loader's shared
 * handlers (profile_priv.h).
 */
#include "sbx/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "profile_priv.h"
#include "yaml_tree.h"

/* ---- policies ---- */

static int rule_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	const char *s = NULL;
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (v->len > SBX_RULE_NAME_MAX || !sbx_prof_name_valid(s))
		return sbx_prof_fail(l, v, EINVAL,
		                     "rule name '%s' is not valid (letters, digits, '-', '_', '.')",
		                     s);
	for (size_t i = 0; i + 1 < l->policy->n_rules; i++)
		if (strcmp(l->policy->rules[i].name, s) == 0)
			return sbx_prof_fail(l, v, EEXIST,
			                     "two rules are named '%s' (the first at line %d)", s,
			                     l->policy->rules[i].line);
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
		return sbx_prof_fail(l, v, EINVAL,
		                     "'paths' is empty; a rule needs at least one pattern");
	if (v->n_kids > SBX_MAX_RULE_PATHS)
		return sbx_prof_fail(l, v, E2BIG, "a rule has more than %d paths",
		                     SBX_MAX_RULE_PATHS);
	l->rule->paths = calloc(v->n_kids, sizeof(char *));
	if (!l->rule->paths)
		return sbx_error_set(l->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < v->n_kids; i++) {
		const struct sbx_ynode *p = v->kids[i];
		const char *s = NULL;
		size_t off;
		int r = sbx_prof_get_str(l, k, p, &s);

		if (r < 0)
			return r;
		r = sbx_glob_check(s, &off, l->err);
		if (r < 0)
			return sbx_prof_locate(l, p, r);
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
		return sbx_prof_fail(l, v, EINVAL, "'operations' is empty; name at least one");
	for (size_t i = 0; i < v->n_kids; i++) {
		const char *s = NULL;
		unsigned op;
		int r = sbx_prof_get_str(l, k, v->kids[i], &s);

		if (r < 0)
			return r;
		op = sbx_op_parse(s);
		if (!op) {
			r = sbx_prof_fail(l, v->kids[i], EINVAL, "unknown operation '%s'", s);
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
	int r = sbx_prof_get_str(l, k, v, &s);

	if (r < 0)
		return r;
	if (strcmp(s, "allow") == 0 || strcmp(s, "deny") == 0) {
		l->rule->allow = s[0] == 'a';
		return 0;
	}
	r = sbx_prof_fail(l, v, EINVAL, "unknown decision '%s'", s);
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
		return sbx_prof_fail(l, v, E2BIG, "a policy has more than %d rules", SBX_MAX_RULES);
	if (l->policy->rules)
		return sbx_prof_fail(l, k, EEXIST,
		                     "'rules' and 'file_rules' are the same key; give one");
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
		r = sbx_prof_process_map(l, rn, rule_keys, SBX_ARRAY_SIZE(rule_keys), "a rule",
		                         NULL);
		if (r < 0)
			return r;
		for (size_t j = 0; j < SBX_ARRAY_SIZE(required); j++)
			if (!sbx_prof_map_get(rn, required[j]))
				return sbx_prof_fail(l, rn, EINVAL, "this rule has no '%s'",
				                     required[j]);
	}
	return 0;
}

static int policy_name(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	return sbx_prof_check_name(l, k, v, l->policy->name);
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

static const struct key_entry policy_keys[] = {
    {"version", W_SCALAR, sbx_prof_skip_key, NULL},      {"name", W_SCALAR, policy_name, NULL},
    {"description", W_SCALAR, policy_description, NULL}, {"rules", W_SEQ, policy_rules, NULL},
    {"file_rules", W_SEQ, policy_rules, NULL}, /* the multi-mount seed's spelling */
};

static int load_policy_tree(struct loader *l, const struct sbx_ynode *root)
{
	int r;

	if (root->kind != SBX_Y_MAP)
		return sbx_prof_fail(l, root, EINVAL,
		                     "a policy must be a mapping (version, name, rules), "
		                     "not %s",
		                     sbx_ynode_type_name(root));
	r = sbx_prof_check_version(l, root, "the policy");
	if (r < 0)
		return r;
	r = sbx_prof_process_map(l, root, policy_keys, SBX_ARRAY_SIZE(policy_keys), "a policy",
	                         NULL);
	if (r < 0)
		return r;
	if (!sbx_prof_map_get(root, "rules") && !sbx_prof_map_get(root, "file_rules"))
		return sbx_prof_fail(l, root, EINVAL, "the policy has no 'rules'");
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
	p->name = expected ? strdup(expected) : sbx_prof_file_stem(file);
	p->file = strdup(file);
	p->line = p->column = 1;
	if (!p->name || !p->file) {
		sbx_policy_free(p);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	l.policy = p;
	r = sbx_yaml_parse(data, len, file, &root, err);
	if (r >= 0 && root->kind == SBX_Y_SCALAR && root->plain && root->len == 0)
		r = sbx_prof_fail(&l, root, ENODATA, "the file is empty");
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
	int r = sbx_prof_read_config(opts, file, "policy", &data, &len, err);

	if (r < 0)
		return r;
	return sbx_policy_load_buffer(data, len, file, expected, out, err);
}
