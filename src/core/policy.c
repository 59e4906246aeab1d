/* SPDX-License-Identifier: MIT */
#include "sbx/policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"

static const struct {
	const char *name;
	unsigned ops;
} op_names[] = {
    {"read", SBX_OP_READ},
    {"list", SBX_OP_LIST},
    {"stat", SBX_OP_STAT},
    {"write", SBX_OP_WRITE},
    {"create", SBX_OP_CREATE},
    {"delete", SBX_OP_DELETE},
    {"execute", SBX_OP_EXECUTE},
    {"rename",
     SBX_OP_CREATE |
         SBX_OP_DELETE}, /* docs/design.md, The model (policies): a delete plus a create */
    {"all", SBX_OP_ALL},
};

unsigned sbx_op_parse(const char *name)
{
	for (size_t i = 0; i < SBX_ARRAY_SIZE(op_names); i++)
		if (strcmp(op_names[i].name, name) == 0)
			return op_names[i].ops;
	return 0;
}

const char *sbx_op_name(unsigned op)
{
	for (size_t i = 0; i < 7; i++)
		if (op_names[i].ops == op)
			return op_names[i].name;
	return "?";
}

const char *sbx_ops_format(unsigned ops, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < 7; i++) {
		if (!(ops & op_names[i].ops))
			continue;
		int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", op_names[i].name);

		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	return buf;
}

void sbx_policy_free(struct sbx_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_rules; i++) {
		free(p->rules[i].name);
		for (size_t j = 0; j < p->rules[i].n_paths; j++)
			free(p->rules[i].paths[j]);
		free(p->rules[i].paths);
	}
	free(p->rules);
	free(p->name);
	free(p->file);
	free(p->description);
	free(p);
}

void sbx_policy_set_clear(struct sbx_policy_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		sbx_policy_free(set->items[i]);
	free(set->items);
	memset(set, 0, sizeof(*set));
}

const struct sbx_policy *sbx_policy_set_find(const struct sbx_policy_set *set, const char *name)
{
	for (size_t i = 0; set && name && i < set->n; i++)
		if (strcmp(set->items[i]->name, name) == 0)
			return set->items[i];
	return NULL;
}

int sbx_policy_set_add(struct sbx_policy_set *set, struct sbx_policy *p, struct sbx_error *err)
{
	struct sbx_policy **grown;

	if (sbx_policy_set_find(set, p->name)) {
		int r = sbx_error_set(err, SBX_ERR_PROFILE, EEXIST, "two policies are named '%s'",
		                      p->name);
		sbx_policy_free(p);
		return r;
	}
	grown = realloc(set->items, (set->n + 1) * sizeof(*grown));
	if (!grown) {
		sbx_policy_free(p);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	set->items = grown;
	set->items[set->n++] = p;
	return 0;
}

/* ---- decisions ---- */

/* Does the pattern, in a policy whose scope is `scope`, match the absolute path? */
static bool pattern_matches(const char *pattern, const char *scope, const char *path)
{
	if (pattern[0] == '/')
		return sbx_glob_match(pattern, path);
	if (!sbx_path_covers(scope, path))
		return false;
	return sbx_glob_match(pattern, sbx_path_rest(scope, path));
}

/*
 * Evaluate a policy: the first matching deny rule decides; otherwise the first matching
 * allow rule allows; otherwise nothing allows it. Returns true if allowed, and the deciding
 * rule (NULL when no rule allows).
 */
static bool policy_allows(const struct sbx_policy *p, const char *scope, const char *path,
                          unsigned op, const struct sbx_rule **by)
{
	const struct sbx_rule *allow = NULL;

	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *r = &p->rules[i];

		if (!(r->ops & op))
			continue;
		for (size_t j = 0; j < r->n_paths; j++) {
			if (!pattern_matches(r->paths[j], scope, path))
				continue;
			if (!r->allow) {
				*by = r;
				return false;
			}
			if (!allow)
				allow = r;
			break;
		}
	}
	*by = allow;
	return allow != NULL;
}

/* The operation of the plan that covers `path` (the longest target; SEAL is not a mount),
 * following the symlinks the plan makes itself as the kernel would; rewrites `path`. */
static const struct sbx_plan_op *find_op(const struct sbx_plan *plan, char *path)
{
	for (int hops = 0; hops < 40; hops++) {
		const struct sbx_plan_op *best = NULL;
		size_t best_len = 0;
		char next[SBX_PATH_MAX * 2];
		int n;

		for (size_t i = 0; i < plan->n_ops; i++) {
			const struct sbx_plan_op *o = &plan->ops[i];
			size_t len = strlen(o->target);

			if (o->kind == SBX_PLAN_SEAL || !sbx_path_covers(o->target, path))
				continue;
			if (!best || len >= best_len) {
				best = o;
				best_len = len;
			}
		}
		if (!best || best->kind != SBX_PLAN_SYMLINK || strcmp(best->target, path) == 0)
			return best;
		if (best->source[0] == '/') {
			n = snprintf(next, sizeof(next), "%s/%s", best->source,
			             sbx_path_rest(best->target, path));
		} else {
			const char *slash = strrchr(best->target, '/');

			n = snprintf(next, sizeof(next), "%.*s/%s/%s", (int)(slash - best->target),
			             best->target, best->source, sbx_path_rest(best->target, path));
		}
		if (n < 0 || (size_t)n >= sizeof(next) ||
		    sbx_path_normalize(next, path, SBX_PATH_MAX, NULL) < 0)
			return NULL;
	}
	return NULL;
}

static bool is_sealed(const struct sbx_plan *plan, const char *target)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_SEAL && strcmp(plan->ops[i].target, target) == 0)
			return true;
	return false;
}

/* The hide glob that hides path, or NULL: one that matches path itself or a folder above it
 * (the walk hides a matching folder whole), unless an unhide entry gives that one back (a
 * policy's firm glob is never given back). */
static const char *hidden_by_glob(const struct sbx_spec *spec, const char *path)
{
	char at[SBX_PATH_MAX];

	if (!spec || !spec->n_hide_globs || strlen(path) >= sizeof(at))
		return NULL;
	snprintf(at, sizeof(at), "%s", path);
	for (;;) {
		char *slash;

		for (size_t i = 0; i < spec->n_hide_globs; i++)
			if (sbx_glob_match(spec->hide_globs[i], at) &&
			    (spec->hide_glob_firm[i] || !sbx_spec_unhidden(spec, at)))
				return spec->hide_globs[i];
		slash = strrchr(at, '/');
		if (!slash || slash == at)
			return NULL;
		*slash = '\0';
	}
}

int sbx_policy_decide(const struct sbx_policy_view *view, unsigned op, const char *path,
                      struct sbx_decision *out, struct sbx_error *err)
{
	const struct sbx_plan_op *o, *guard = NULL;
	const struct sbx_mount *m = NULL;
	const struct sbx_policy *base = view->policies ? view->policies->base : NULL;
	const struct sbx_rule *rule = NULL;
	bool scaffold;
	char ops[64];
	int r;

	memset(out, 0, sizeof(*out));
	if (op == 0 || (op & (op - 1)) != 0 || (op & ~SBX_OP_ALL))
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "decide one operation at a time (got 0x%x)", op);
	r = sbx_path_normalize(path, out->path, sizeof(out->path), err);
	if (r < 0)
		return r;

	/* 1. No mount covers the path: it does not exist inside. */
	o = find_op(view->plan, out->path);
	if (!o && sbx_plan_is_scaffold_dir(view->plan, out->path)) {
		/* A directory sbx made in its own read-only root to hold mount points: it
		 * can be looked at, and holds nothing of the host. */
		out->mount_what = "sbx";
		out->allow = (op & (SBX_OP_LIST | SBX_OP_STAT)) != 0;
		out->by = out->allow ? SBX_BY_ALLOWED : SBX_BY_READONLY;
		snprintf(out->rule, sizeof(out->rule), "%s",
		         out->allow ? "directory made by sbx to hold mount points"
		                    : "a directory made by sbx, read-only");
		return 0;
	}
	if (!o) {
		out->by = SBX_BY_UNMOUNTED;
		snprintf(out->rule, sizeof(out->rule), "no mount covers it");
		return 0;
	}
	/* A guard (spec.h) adds its flags to the mount it lies in, whose policy decides. */
	if (o->flags & SBX_PLAN_F_GUARD) {
		const struct sbx_plan_op *under = sbx_plan_guarded_by(view->plan, out->path);

		if (under) {
			guard = o;
			o = under;
		}
	}
	snprintf(out->mount, sizeof(out->mount), "%s", o->target);
	/* A glob to hide: matched by the launch's walk (what exists then), which hides a
	 * matching directory whole: the path, or any folder above it, matching is enough. */
	{
		const char *glob = hidden_by_glob(view->spec, out->path);

		if (glob) {
			out->by = SBX_BY_HIDDEN;
			out->mount_what = "hide";
			snprintf(out->rule, sizeof(out->rule), "hide glob %s", glob);
			return 0;
		}
	}
	if (o->kind == SBX_PLAN_MASK) {
		out->by = SBX_BY_HIDDEN;
		out->mount_what = "hide";
		snprintf(out->rule, sizeof(out->rule), "%s is masked", o->target);
		return 0;
	}
	if (!(o->flags & SBX_PLAN_F_SYSTEM) &&
	    (o->kind == SBX_PLAN_BIND || o->kind == SBX_PLAN_TMPFS))
		m = sbx_spec_find_target(view->spec, o->target);
	scaffold = !m && !(o->flags & SBX_PLAN_F_SYSTEM) && o->kind != SBX_PLAN_MIRROR;
	out->mount_what = o->kind == SBX_PLAN_MIRROR        ? "root"
	                  : (o->flags & SBX_PLAN_F_SYSTEM)  ? "system mount"
	                  : !m                              ? "sbx"
	                  : m->origin == SBX_ORIGIN_FLAG    ? "flag mount"
	                  : m->origin == SBX_ORIGIN_DEFAULT ? "default workspace mount"
	                  : m->origin == SBX_ORIGIN_HOME    ? "home"
	                                                    : "profile mount";

	/* 2. Read-only: the mount's own flag; sbx's scaffolding (sealed /dev, the kernel
	 * settings under /proc, the plan's own symlinks) is read-only too. */
	if (op & SBX_OP_MODIFY) {
		bool ro = (o->flags & SBX_PLAN_F_READONLY) || o->kind == SBX_PLAN_REBIND_RO ||
		          o->kind == SBX_PLAN_SYMLINK || is_sealed(view->plan, o->target);

		if (!ro && guard && (guard->flags & SBX_PLAN_F_READONLY)) {
			out->by = SBX_BY_READONLY;
			out->mount_what = guard->why;
			snprintf(out->mount, sizeof(out->mount), "%s", guard->target);
			snprintf(out->rule, sizeof(out->rule), "%s is read-only", guard->target);
			return 0;
		}
		if (ro) {
			out->by = SBX_BY_READONLY;
			snprintf(out->rule, sizeof(out->rule), "%s is read-only", o->target);
			return 0;
		}
	}
	/* 2b. A protected path that does not exist at launch: the supervisor refuses its
	 * creation, and anything beneath it (sbx check agrees with the kernel there too). The
	 * outermost one names what is missing (.git, rather than .git/hooks in it). */
	if (view->sup && (op & SBX_OP_MODIFY)) {
		const struct sbx_sup_protected *pp = NULL;

		for (size_t i = 0; i < view->sup->n_protected; i++) {
			const struct sbx_sup_protected *q = &view->sup->protected_paths[i];

			if (sbx_path_covers(q->path, out->path) &&
			    (!pp || strlen(q->path) < strlen(pp->path)))
				pp = q;
		}
		/* a new .git where the host keeps files: refused by name, at any depth */
		if (!pp && op == SBX_OP_CREATE && sbx_sup_no_new_git_at(view->sup, out->path)) {
			out->by = SBX_BY_PROTECTED;
			out->mount_what = "protected";
			snprintf(out->mount, sizeof(out->mount), "%s", out->path);
			snprintf(out->rule, sizeof(out->rule), "a new repository");
			out->protect_why = SBX_SUP_NEW_GIT_WHY;
			out->protect_fix = SBX_SUP_NEW_GIT_FIX;
			return 0;
		}
		if (pp) {
			out->by = SBX_BY_PROTECTED;
			out->mount_what = "protected";
			snprintf(out->mount, sizeof(out->mount), "%s", pp->path);
			snprintf(out->rule, sizeof(out->rule), "absent at launch");
			out->protect_why = pp->why;
			out->protect_fix = pp->fix;
			return 0;
		}
	}
	/* 2c. The mount's approvals: deny is a kernel rule. */
	if (m && (op & SBX_OP_MODIFY)) {
		enum sbx_approval_class c = op == SBX_OP_DELETE ? SBX_AC_DELETE : SBX_AC_WRITE;

		if (op == SBX_OP_DELETE)
			out->rename = m->approvals.op[SBX_AC_RENAME];
		if (m->approvals.op[c] == SBX_APPROVE_DENY) {
			out->by = SBX_BY_APPROVAL;
			snprintf(out->rule, sizeof(out->rule), "%s deny",
			         c == SBX_AC_DELETE ? "delete" : "write");
			return 0;
		}
		/* ask: a question the run's broker answers, if nothing below denies; a write
		 * to a file that exists asks its overwrite class too */
		if (m->approvals.op[c] == SBX_APPROVE_ASK)
			out->ask = c == SBX_AC_DELETE ? "delete" : "write";
		else if (op == SBX_OP_WRITE && m->approvals.op[SBX_AC_OVERWRITE] == SBX_APPROVE_ASK)
			out->ask = "overwrite";
	}
	/* 2d. The mount's read caps: a name none of its suffixes ends (the supervisor refuses
	 * the open; sbx check said allow while the run denied: an outside attack's note) */
	/* and read caps make their mount noexec (a program run hands over its bytes) */
	if (m && op == SBX_OP_EXECUTE && (m->n_suffixes || m->max_file_bytes)) {
		out->by = SBX_BY_CAPS;
		snprintf(out->rule, sizeof(out->rule),
		         "noexec (a program run hands its bytes over)");
		return 0;
	}
	if (m && op == SBX_OP_READ && m->n_suffixes) {
		const char *name =
		    strrchr(out->path, '/') ? strrchr(out->path, '/') + 1 : out->path;
		bool ok = false;

		for (size_t i = 0; i < m->n_suffixes && !ok; i++) {
			size_t n = strlen(name), k = strlen(m->suffixes[i]);

			ok = k <= n && strcmp(name + n - k, m->suffixes[i]) == 0;
		}
		if (!ok) {
			out->by = SBX_BY_CAPS;
			snprintf(out->rule, sizeof(out->rule), "suffixes %s%s (%s ends with none)",
			         m->suffixes[0], m->n_suffixes > 1 ? ", ..." : "", name);
			return 0;
		}
	}
	if (o->kind == SBX_PLAN_SYMLINK && !(op & SBX_OP_LOOK)) {
		out->by = SBX_BY_READONLY;
		snprintf(out->rule, sizeof(out->rule), "%s is a symlink made by sbx", o->target);
		return 0;
	}
	/* sbx's private /tmp, /proc and /dev hold nothing of the host: no policy applies. */
	if (scaffold) {
		out->allow = true;
		snprintf(out->rule, sizeof(out->rule), "made by sbx");
		return 0;
	}

	/* 3. The mount's policy. */
	if (m && m->policy && view->policies) {
		const struct sbx_policy *p = sbx_policy_set_find(view->policies, m->policy);

		if (!p)
			return sbx_error_set(err, SBX_ERR_PROFILE, ENOENT,
			                     "mount %s names policy '%s', which is not loaded",
			                     m->target, m->policy);
		out->policy = p->name;
		if (!policy_allows(p, m->target, out->path, op, &rule)) {
			out->by = SBX_BY_POLICY;
			if (rule)
				snprintf(out->rule, sizeof(out->rule), "%s", rule->name);
			else
				snprintf(out->rule, sizeof(out->rule), "no rule allows %s",
				         sbx_ops_format(op, ops, sizeof(ops)));
			return 0;
		}
		snprintf(out->rule, sizeof(out->rule), "%s", rule->name);
	}

	/* 4. The base policy, relative to '/'. */
	if (base) {
		const struct sbx_rule *brule = NULL;

		if (!policy_allows(base, "/", out->path, op, &brule)) {
			out->by = SBX_BY_BASE_POLICY;
			out->policy = base->name;
			if (brule)
				snprintf(out->rule, sizeof(out->rule), "%s", brule->name);
			else
				snprintf(out->rule, sizeof(out->rule), "no rule allows %s",
				         sbx_ops_format(op, ops, sizeof(ops)));
			return 0;
		}
	}

	/* 5. Allowed. */
	out->allow = true;
	return 0;
}

const char *sbx_decision_format(const struct sbx_decision *d, char *buf, size_t size)
{
	const char *what = d->mount_what ? d->mount_what : "";

	switch (d->by) {
	case SBX_BY_UNMOUNTED:
		snprintf(buf, size, "unmounted: no mount covers %s", d->path);
		break;
	case SBX_BY_HIDDEN:
		/* "X is masked", or "hide glob G" for what the launch's walk will hide */
		snprintf(buf, size, "hidden: %s", d->rule);
		break;
	case SBX_BY_READONLY:
		snprintf(buf, size, "readonly: %s %s is read-only", what, d->mount);
		break;
	case SBX_BY_POLICY:
		snprintf(buf, size, "policy %s/%s (%s %s)", d->policy, d->rule, what, d->mount);
		break;
	case SBX_BY_BASE_POLICY:
		snprintf(buf, size, "base policy %s/%s (%s %s)", d->policy, d->rule, what,
		         d->mount);
		break;
	case SBX_BY_PROTECTED:
		if (d->protect_why && strcmp(d->protect_why, SBX_SUP_NEW_GIT_WHY) == 0)
			snprintf(buf, size,
			         "protected: %s is not made where it does not exist (%s; %s)",
			         d->mount, d->protect_why, d->protect_fix ? d->protect_fix : "");
		else
			snprintf(buf, size,
			         "protected: %s does not exist at launch and cannot be created "
			         "(%s; %s)",
			         d->mount, d->protect_why ? d->protect_why : "",
			         d->protect_fix ? d->protect_fix : "");
		break;
	case SBX_BY_APPROVAL:
		snprintf(buf, size, "approvals: %s (%s %s)", d->rule, what, d->mount);
		break;
	case SBX_BY_CAPS:
		snprintf(buf, size, "read caps: %s (%s %s)", d->rule, what, d->mount);
		break;
	case SBX_BY_ALLOWED:
		if (d->policy)
			snprintf(buf, size, "%s %s, policy %s/%s", what, d->mount, d->policy,
			         d->rule);
		else
			snprintf(buf, size, "%s %s", what, d->mount);
		break;
	}
	return buf;
}

/* ---- compiling ---- */

void sbx_policy_effect_clear(struct sbx_policy_effect *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_hide; i++)
		free(e->hide[i]);
	free(e->hide);
	for (size_t i = 0; i < e->n_hide_globs; i++)
		free(e->hide_globs[i]);
	free(e->hide_globs);
	for (size_t i = 0; i < e->n_noexec_paths; i++)
		free(e->noexec_paths[i]);
	free(e->noexec_paths);
	memset(e, 0, sizeof(*e));
}

/* The literal directory a pattern starts with: for "/a/b/x*.c", "/a/b". */
static void literal_dir(const char *pattern, char *out, size_t size)
{
	size_t n = strcspn(pattern, "*?[\\");
	const char *slash;

	if (pattern[n]) {
		snprintf(out, size, "%.*s", (int)n, pattern);
		slash = strrchr(out, '/');
		if (slash)
			out[slash == out ? 1 : (size_t)(slash - out)] = '\0';
	} else {
		snprintf(out, size, "%s", pattern);
	}
}

/* Does the pattern name the whole scope and everything beneath it? */
static bool whole_scope(const char *pattern, const char *scope)
{
	size_t n = strlen(pattern);
	char lit[SBX_GLOB_MAX + 1];

	if (strcmp(pattern, "**") == 0)
		return true;
	if (pattern[0] != '/' || n < 3 || strcmp(pattern + n - 3, "/**") != 0)
		return false;
	if (n == 3)
		return true; /* the whole tree */
	snprintf(lit, sizeof(lit), "%.*s", (int)(n - 3), pattern);
	return sbx_glob_is_literal(lit) && sbx_path_covers(lit, scope);
}

/* Can an absolute pattern match anything within scope? (If its literal directory and the
 * scope are disjoint, it never does, and the rule is dead for this scope.) */
static bool may_touch(const char *pattern, const char *scope)
{
	char dir[SBX_GLOB_MAX + 1];

	if (pattern[0] != '/')
		return true;
	literal_dir(pattern, dir, sizeof(dir));
	return sbx_path_covers(dir, scope) || sbx_path_covers(scope, dir);
}

__attribute__((format(printf, 5, 6))) static int refuse(const struct sbx_policy *p,
                                                        const struct sbx_rule *rule,
                                                        const char *scope, struct sbx_error *err,
                                                        const char *fmt, ...)
{
	char what[512];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
	                  "policy '%s' on %s cannot be enforced by the kernel: %s%s%s", p->name,
	                  scope, rule ? "rule '" : "", rule ? rule->name : "", rule ? "' " : "");
	if (err) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len, "%s", what);
		sbx_error_at(err, p->file, rule ? rule->line : p->line,
		             rule ? rule->column : p->column);
	}
	sbx_error_hint(err, "sbx refuses rather than run with a rule unenforced; Landlock cannot "
	                    "deny stat(2) apart from everything else: deny every operation on "
	                    "an exact path (it is then hidden), or allow stat");
	return r;
}

static int effect_hide(struct sbx_policy_effect *e, const char *scope, const char *pattern,
                       struct sbx_error *err)
{
	char *path = NULL;
	char **grown;
	int r;

	if (pattern[0] == '/')
		r = sbx_path_absolute(pattern, "/", &path, err);
	else
		r = sbx_path_absolute(pattern, scope, &path, err);
	if (r < 0)
		return r;
	grown = realloc(e->hide, (e->n_hide + 1) * sizeof(*grown));
	if (!grown) {
		free(path);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	e->hide = grown;
	e->hide[e->n_hide++] = path;
	return 0;
}

/* "src/ then two stars" (a literal directory and everything beneath): Landlock's, by subtree rules.
 */
static bool literal_subtree(const char *pattern)
{
	size_t n = strlen(pattern);
	char lit[SBX_GLOB_MAX + 1];

	if (strcmp(pattern, "**") == 0 || strcmp(pattern, "/**") == 0)
		return true;
	if (n < 3 || strcmp(pattern + n - 3, "/**") != 0 || n - 3 >= sizeof(lit))
		return false;
	snprintf(lit, sizeof(lit), "%.*s", (int)(n - 3), pattern);
	return sbx_glob_is_literal(lit);
}

/* A deny rule on a glob: what it matches is hidden whole, found by the launch's one walk. */
static int effect_hide_glob(struct sbx_policy_effect *e, const char *scope, const char *pattern,
                            struct sbx_error *err)
{
	char abs[SBX_GLOB_MAX + SBX_PATH_MAX + 2];
	char *copy;
	char **grown;

	if (pattern[0] == '/') {
		snprintf(abs, sizeof(abs), "%s", pattern);
	} else {
		/* the scope matches itself in the glob (a workspace "proj [v1]") */
		size_t n = strcmp(scope, "/") ? sbx_glob_quote(scope, abs, sizeof(abs)) : 0;

		if (n < sizeof(abs))
			snprintf(abs + n, sizeof(abs) - n, "/%s", pattern);
	}
	copy = strdup(abs);
	grown = copy ? realloc(e->hide_globs, (e->n_hide_globs + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	e->hide_globs = grown;
	e->hide_globs[e->n_hide_globs++] = copy;
	return 0;
}

bool sbx_policy_exec_mountable(const char *pattern, const char *scope, char *path, size_t size)
{
	char apat[SBX_GLOB_MAX + SBX_PATH_MAX + 2];
	size_t n;

	if (pattern[0] == '/') {
		snprintf(apat, sizeof(apat), "%s", pattern);
	} else {
		n = strcmp(scope, "/") ? sbx_glob_quote(scope, apat, sizeof(apat)) : 0;
		if (n < sizeof(apat))
			snprintf(apat + n, sizeof(apat) - n, "/%s", pattern);
	}
	n = strlen(apat);
	if (n >= 3 && strcmp(apat + n - 3, "/**") == 0)
		apat[n - 3] = '\0';
	if (!apat[0] || !sbx_glob_unquote(apat, apat, sizeof(apat)))
		return false;
	return sbx_path_normalize(apat, path, size, NULL) >= 0;
}

static int effect_noexec(struct sbx_policy_effect *e, const char *scope, const char *pattern,
                         struct sbx_error *err)
{
	char path[SBX_PATH_MAX];
	char *copy;
	char **grown;

	if (!sbx_policy_exec_mountable(pattern, scope, path, sizeof(path)))
		return 0; /* a glob over files: Landlock's alone (sbx_policy_exec_limits) */
	copy = strdup(path);
	grown = copy ? realloc(e->noexec_paths, (e->n_noexec_paths + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	e->noexec_paths = grown;
	e->noexec_paths[e->n_noexec_paths++] = copy;
	return 0;
}

int sbx_policy_compile_one(const struct sbx_policy *p, const char *scope, bool is_base,
                           struct sbx_policy_effect *eff, struct sbx_error *err)
{
	unsigned allow_w = 0, deny_w = 0, partial = 0, w;
	const struct sbx_rule *first_whole = NULL;
	char a[64];
	int r;

	memset(eff, 0, sizeof(*eff));
	/* The rights over the whole scope. */
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];

		for (size_t j = 0; j < rule->n_paths; j++) {
			if (!whole_scope(rule->paths[j], scope))
				continue;
			if (!first_whole)
				first_whole = rule;
			if (rule->allow)
				allow_w |= rule->ops;
			else
				deny_w |= rule->ops;
		}
	}
	w = allow_w & ~deny_w;

	/* Rules over part of the scope: enforceable only when they change nothing, or deny
	 * everything on one exact path (a mask). */
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];

		for (size_t j = 0; j < rule->n_paths; j++) {
			const char *pat = rule->paths[j];

			if (whole_scope(pat, scope) || !may_touch(pat, scope))
				continue;
			/* Allows over part of the scope, and denies that do not hide, are
			 * Landlock's (src/core/landlock_compile.c): exact over whole subtrees,
			 * stricter elsewhere. A part that may be written keeps the mount
			 * writable (and one that may run programs, executable). */
			if (rule->allow)
				partial |= rule->ops;
			if (rule->allow || !(rule->ops & w))
				continue;
			if (sbx_glob_is_literal(pat) && (w & ~SBX_OP_STAT & ~rule->ops) == 0) {
				r = effect_hide(eff, scope, pat, err);
				if (r < 0)
					goto fail;
				continue;
			}
			/* A glob (not a literal subtree): one walk at launch finds what it
			 * matches, which is hidden whole (masked read-only, or denied under
			 * the landlock backend): stricter where the rule denies less. */
			if (!sbx_glob_is_literal(pat) && !literal_subtree(pat)) {
				r = effect_hide_glob(eff, scope, pat, err);
				if (r < 0)
					goto fail;
				continue;
			}
			/* A literal subtree or path: execute denied there by a noexec mount
			 * too (Landlock's execute right stops execve(2), not a loader). */
			if (rule->ops & w & SBX_OP_EXECUTE) {
				r = effect_noexec(eff, scope, pat, err);
				if (r < 0)
					goto fail;
			}
			if (!(rule->ops & w & SBX_OP_STAT))
				continue;
			r = refuse(
			    p, rule, scope, err,
			    sbx_glob_is_literal(pat)
			        ? "denies %s on '%s' but not every operation: stat cannot "
			          "be denied alone"
			        : "denies %s on the glob '%s': stat cannot be denied on a "
			          "glob (hide it with the profile's 'hide:' instead, or deny "
			          "less than stat)",
			    sbx_ops_format(rule->ops & w, a, sizeof(a)), pat);
			goto fail;
		}
	}

	/* The whole-scope rights must be what a mount can be: all or nothing of reading,
	 * all or nothing of writing, with or without execute. */
	if (w == 0) {
		if (is_base) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
			                  "base policy '%s' allows no operation on '/**': nothing "
			                  "could run",
			                  p->name);
			sbx_error_hint(err, "a base policy usually allows everything on '**' and "
			                    "denies what must never happen");
			sbx_error_at(err, p->file, p->line, p->column);
			goto fail;
		}
		eff->hide_scope = true;
		return 0;
	}
	/* Everything else Landlock enforces per operation; stat it cannot deny. */
	if (!(w & SBX_OP_STAT)) {
		r = refuse(p, first_whole, scope, err, "allows %s but not stat",
		           sbx_ops_format(w, a, sizeof(a)));
		goto fail;
	}
	if (!(w & SBX_OP_EXECUTE) && is_base) {
		r = refuse(p, first_whole, scope, err,
		           "denies execute everywhere (system programs could not run; deny it "
		           "on mounts instead)");
		goto fail;
	}
	eff->allowed = w;
	eff->readonly = !((w | partial) & SBX_OP_MODIFY);
	eff->noexec = !((w | partial) & SBX_OP_EXECUTE);
	return 0;
fail:
	sbx_policy_effect_clear(eff);
	return r;
}

static const char noexec_why[] = "execute denied by a policy: noexec";

int sbx_policy_compile(struct sbx_spec *spec, const struct sbx_policy_set *set,
                       struct sbx_error *err)
{
	struct sbx_policy_effect eff;
	int r;

	if (set && set->base) {
		r = sbx_policy_compile_one(set->base, "/", true, &eff, err);
		if (r < 0)
			return r;
		if (eff.readonly)
			spec->readonly = true;
		for (size_t i = 0; r >= 0 && i < eff.n_hide; i++)
			r = sbx_spec_add_hide(spec, eff.hide[i], err);
		for (size_t i = 0; r >= 0 && i < eff.n_hide_globs; i++)
			r = sbx_spec_add_firm_hide_glob(spec, eff.hide_globs[i], err);
		for (size_t i = 0; r >= 0 && i < eff.n_noexec_paths; i++)
			r = sbx_spec_add_guard(spec, eff.noexec_paths[i], false, true, noexec_why,
			                       err);
		sbx_policy_effect_clear(&eff);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < spec->n_mounts; i++) {
		struct sbx_mount *m = &spec->mounts[i];
		const struct sbx_policy *p;

		if (!m->policy)
			continue;
		p = sbx_policy_set_find(set, m->policy);
		if (!p)
			return sbx_error_set(err, SBX_ERR_PROFILE, ENOENT,
			                     "mount %s names policy '%s', which is not loaded",
			                     m->target, m->policy);
		r = sbx_policy_compile_one(p, m->target, false, &eff, err);
		if (r < 0)
			return r;
		m->readonly |= eff.readonly;
		m->noexec |= eff.noexec;
		if (eff.hide_scope)
			r = sbx_spec_add_hide(spec, m->target, err);
		for (size_t j = 0; r >= 0 && j < eff.n_hide; j++)
			r = sbx_spec_add_hide(spec, eff.hide[j], err);
		for (size_t j = 0; r >= 0 && j < eff.n_hide_globs; j++)
			r = sbx_spec_add_firm_hide_glob(spec, eff.hide_globs[j], err);
		for (size_t j = 0; r >= 0 && j < eff.n_noexec_paths; j++)
			r = sbx_spec_add_guard(spec, eff.noexec_paths[j], false, true, noexec_why,
			                       err);
		sbx_policy_effect_clear(&eff);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- what a denial of execute holds ---- */

static const char loader_words[] =
    "a loader (ld.so FILE) still maps and runs such a file, and an interpreter reading a "
    "script does a read, not an execution";

/* Is there a noexec mount at path in the plan (a guard, or a mount of its own)? */
static bool noexec_mount_at(const struct sbx_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if ((plan->ops[i].kind == SBX_PLAN_BIND || plan->ops[i].kind == SBX_PLAN_MIRROR ||
		     plan->ops[i].kind == SBX_PLAN_TMPFS) &&
		    (plan->ops[i].flags & SBX_PLAN_F_NOEXEC) &&
		    strcmp(plan->ops[i].target, path) == 0)
			return true;
	return false;
}

static int exec_limits_of(const struct sbx_policy *p, const char *scope,
                          const struct sbx_spec *spec, struct sbx_plan *plan, struct sbx_error *err)
{
	char path[SBX_PATH_MAX], apat[SBX_GLOB_MAX + SBX_PATH_MAX + 2];
	char line[SBX_GLOB_MAX + 2 * SBX_PATH_MAX + 512];

	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];

		if (rule->allow || !(rule->ops & SBX_OP_EXECUTE))
			continue;
		for (size_t j = 0; j < rule->n_paths; j++) {
			const char *pat = rule->paths[j];
			bool glob_hidden = false;
			int r;

			if (pat[0] == '/') {
				snprintf(apat, sizeof(apat), "%s", pat);
			} else {
				/* as effect_hide_glob wrote it: the scope quoted */
				size_t n = strcmp(scope, "/")
				               ? sbx_glob_quote(scope, apat, sizeof(apat))
				               : 0;

				if (n < sizeof(apat))
					snprintf(apat + n, sizeof(apat) - n, "/%s", pat);
			}
			for (size_t k = 0; spec && k < spec->n_hide_globs; k++)
				glob_hidden |= strcmp(spec->hide_globs[k], apat) == 0;
			if (glob_hidden) {
				snprintf(
				    line, sizeof(line),
				    "execute on '%s' (policy %s, rule %s): what matches at launch "
				    "is hidden whole; a match created later is neither hidden nor "
				    "denied execute (the launch's one walk sees what exists)",
				    apat, p->name, rule->name);
			} else if (!sbx_policy_exec_mountable(pat, scope, path, sizeof(path))) {
				snprintf(
				    line, sizeof(line),
				    "execute on '%s' (policy %s, rule %s): Landlock refuses "
				    "execve(2) only, since a glob over single files cannot be a "
				    "noexec mount; %s",
				    apat, p->name, rule->name, loader_words);
			} else if (!sbx_plan_guarded_by(plan, path)) {
				continue; /* no bind shows it: nothing there to execute */
			} else if (plan->backend_landlock) {
				snprintf(line, sizeof(line),
				         "execute on '%s' (policy %s, rule %s): Landlock refuses "
				         "execve(2) only, since the landlock backend mounts "
				         "nothing (the "
				         "namespaces backend makes %s a noexec mount); %s",
				         apat, p->name, rule->name, path, loader_words);
			} else if (!noexec_mount_at(plan, path) &&
			           !(sbx_plan_guarded_by(plan, path)->flags & SBX_PLAN_F_NOEXEC)) {
				snprintf(line, sizeof(line),
				         "execute on '%s' (policy %s, rule %s): Landlock refuses "
				         "execve(2) only, since %s does not exist at launch and "
				         "cannot be "
				         "a noexec mount; %s",
				         apat, p->name, rule->name, path, loader_words);
			} else {
				continue; /* a noexec mount holds it, or nothing shows the path */
			}
			r = sbx_plan_add_limit(plan, line, err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int sbx_policy_exec_limits(const struct sbx_policy_view *view, struct sbx_plan *plan,
                           struct sbx_error *err)
{
	const struct sbx_policy_set *set = view->policies;
	int r = 0;

	if (!set)
		return 0;
	if (set->base)
		r = exec_limits_of(set->base, "/", view->spec, plan, err);
	for (size_t i = 0; r >= 0 && view->spec && i < view->spec->n_mounts; i++) {
		const struct sbx_mount *m = &view->spec->mounts[i];
		const struct sbx_policy *p = m->policy ? sbx_policy_set_find(set, m->policy) : NULL;

		if (p)
			r = exec_limits_of(p, m->target, view->spec, plan, err);
	}
	return r;
}

const char *sbx_policy_exec_note(const struct sbx_policy_view *view, const struct sbx_decision *d,
                                 char *buf, size_t size)
{
	const struct sbx_policy *p;
	const struct sbx_mount *m;
	const char *scope = "/";
	char path[SBX_PATH_MAX];

	if (d->allow || (d->by != SBX_BY_POLICY && d->by != SBX_BY_BASE_POLICY) || !view->policies)
		return NULL;
	p = sbx_policy_set_find(view->policies, d->policy);
	if (!p)
		return NULL;
	if (d->by == SBX_BY_POLICY) {
		m = sbx_spec_find_target(view->spec, d->mount);
		scope = m ? m->target : d->mount;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];

		if (rule->allow || !(rule->ops & SBX_OP_EXECUTE) ||
		    strcmp(rule->name, d->rule) != 0)
			continue;
		for (size_t j = 0; j < rule->n_paths; j++) {
			if (!pattern_matches(rule->paths[j], scope, d->path))
				continue;
			if (sbx_policy_exec_mountable(rule->paths[j], scope, path, sizeof(path)))
				snprintf(
				    buf, size,
				    "execute on %s: under the namespaces backend %s is a noexec "
				    "mount (if it exists at launch), which refuses execve(2) and a "
				    "loader's mmap; under the landlock backend Landlock refuses "
				    "execve(2) only, and a loader (ld.so FILE) still runs it",
				    d->path, path);
			else
				snprintf(
				    buf, size,
				    "execute on %s: '%s' is a glob over single files: what matches "
				    "at launch is hidden whole, and a match created later is "
				    "neither hidden nor denied execute",
				    d->path, rule->paths[j]);
			return buf;
		}
	}
	return NULL;
}
