/* SPDX-License-Identifier: MIT */
/*
 * Per-operation rights compiled to Landlock rules (pure). Landlock grants rights to a path and
 * everything beneath it, and rights granted by rules on a path's ancestors add up: nothing
 * beneath a grant can be given less. So a mount's rule carries what its policies allow over
 * its whole tree; what a policy allows or denies on part of a tree only is compiled stricter
 * (granted nowhere, or denied over the whole mount), and each such case is noted for
 * --dry-run.
 *
 * This file holds the compile (sbx_ll_compile), the rights vocabulary (operations to rights
 * and back, their names) and the plan's notes; the carving is in landlock_carve.c, the ABI
 * table and negotiation in landlock_abi.c.
 */
#include "sbx/landlock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/policy.h"
#include "sbx/supervise.h"

#include "landlock_priv.h"

uint64_t sbx_ll_fs_from_ops(unsigned ops)
{
	uint64_t a = 0;

	if (ops & SBX_OP_READ)
		a |= SBX_LL_FS_READ_FILE;
	if (ops & SBX_OP_LIST)
		a |= SBX_LL_FS_READ_DIR;
	if (ops & SBX_OP_WRITE)
		a |= SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE;
	if (ops & SBX_OP_CREATE)
		a |= FS_MAKE; /* never character or block devices */
	if (ops & SBX_OP_DELETE)
		a |= FS_REMOVE;
	if (ops & SBX_OP_EXECUTE)
		a |= SBX_LL_FS_EXECUTE;
	/* A move into or out of the tree is a delete at one end and a create at the other. */
	if ((ops & (SBX_OP_CREATE | SBX_OP_DELETE)) == (SBX_OP_CREATE | SBX_OP_DELETE))
		a |= SBX_LL_FS_REFER;
	return a;
}

uint64_t sbx_ll_approvals_take(const struct sbx_approvals *a, bool ask_is_deny)
{
	enum sbx_approval floor = ask_is_deny ? SBX_APPROVE_ASK : SBX_APPROVE_DENY;
	uint64_t take = 0;

	if (a->op[SBX_AC_WRITE] >= floor)
		take |= SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE | FS_MAKE | SBX_LL_FS_REFER;
	if (a->op[SBX_AC_OVERWRITE] >= floor)
		take |= SBX_LL_FS_TRUNCATE;
	if (a->op[SBX_AC_DELETE] >= floor || a->op[SBX_AC_RENAME] >= floor)
		take |= FS_REMOVE | SBX_LL_FS_REFER;
	return take;
}

static const char *const fs_names[16] = {
    "execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
    "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
    "make_sym",  "refer",      "truncate",  "ioctl_dev",
};

const char *sbx_ll_fs_format(uint64_t access, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < 16; i++) {
		int n;

		if (!(access & (1ull << i)))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", fs_names[i]);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	if (len == 0)
		snprintf(buf, size, "none");
	return buf;
}

int sbx_ll_note(struct sbx_ll_plan *p, const char *text, struct sbx_error *err)
{
	char **grown = realloc(p->inexact, (p->n_inexact + 1) * sizeof(*grown));

	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->inexact = grown;
	p->inexact[p->n_inexact] = strdup(text);
	if (!p->inexact[p->n_inexact])
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->n_inexact++;
	return 0;
}

/* ---- the compiler ---- */

struct cand {
	char *path;
	bool policy; /* from a mount of the spec (or the root, or a subtree rule): check's
	                decisions, which the kernel must not loosen */
	uint64_t access, full;
	unsigned ops;
	uint64_t blocked; /* what the mount's own flags stop (namespaces backend) */
	const char *why;
	bool hidden; /* landlock backend: denied whole, carved around (sbx_ll_expand) */
	bool follow; /* a system path or sbx's own: its symlinks are root's (sbx_ll_rule) */
	bool found;  /* hidden, found by the walk of the hide globs (sbx_ll_rule) */
};

struct ctx {
	const struct sbx_policy_view *view;
	const struct sbx_ll_opts *opts;
	struct sbx_ll_plan *out;
	struct cand *c;
	size_t n, cap;
	struct sbx_error *err;
};

__attribute__((format(printf, 2, 3))) static int note(struct ctx *x, const char *fmt, ...)
{
	char buf[1024];
	char **grown;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < x->out->n_inexact; i++)
		if (strcmp(x->out->inexact[i], buf) == 0)
			return 0;
	grown = realloc(x->out->inexact, (x->out->n_inexact + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(x->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	x->out->inexact = grown;
	grown[x->out->n_inexact] = strdup(buf);
	if (!grown[x->out->n_inexact])
		return sbx_error_set(x->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	x->out->n_inexact++;
	return 0;
}

/* A pattern made absolute: scope "/a" and "src/..." give "/a/src/...". */
static void abs_pattern(const char *pat, const char *scope, char *out, size_t size)
{
	size_t n;

	if (pat[0] == '/') {
		snprintf(out, size, "%s", pat);
	} else if (strcmp(scope, "/") == 0) {
		snprintf(out, size, "/%s", pat);
	} else {
		/* the scope (a workspace "proj [v1]") matches itself in the glob */
		n = sbx_glob_quote(scope, out, size);
		if (n < size)
			snprintf(out + n, size - n, "/%s", pat);
	}
}

/* For an absolute pattern of a whole subtree (L, slash, double star) with L literal: L;
 * else false. */
static bool subtree_of(const char *apat, char *out, size_t size)
{
	size_t n = strlen(apat);

	if (strcmp(apat, "/**") == 0) {
		snprintf(out, size, "/");
		return true;
	}
	if (n < 4 || strcmp(apat + n - 3, "/**") != 0)
		return false;
	snprintf(out, size, "%.*s", (int)(n - 3), apat);
	return sbx_glob_unquote(out, out, size); /* in place: never longer */
}

/* The literal directory an absolute pattern starts with. */
static void literal_prefix(const char *apat, char *out, size_t size)
{
	size_t n = strcspn(apat, "*?[\\");
	char *slash;

	snprintf(out, size, "%.*s", (int)n, apat);
	if (apat[n]) {
		slash = strrchr(out, '/');
		if (slash)
			out[slash == out ? 1 : (size_t)(slash - out)] = '\0';
	}
}

static bool is_hidden(const struct sbx_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->n_hide; i++)
		if (strcmp(spec->hide[i], path) == 0)
			return true;
	return false;
}

/* A glob whose matches the launch's walk hides (a policy's deny rule on a glob, or hide:). */
static bool is_hidden_glob(const struct sbx_spec *spec, const char *pattern)
{
	for (size_t i = 0; i < spec->n_hide_globs; i++)
		if (strcmp(spec->hide_globs[i], pattern) == 0)
			return true;
	return false;
}

/* Does a noexec mount of the plan sit exactly where an absolute deny pattern's literal
 * subtree (or literal path) starts? Then it denies execute beneath, mmap included. */
static bool noexec_backed(const struct sbx_plan *plan, const char *apat)
{
	char path[SBX_PATH_MAX];

	if (!sbx_policy_exec_mountable(apat, "/", path, sizeof(path)))
		return false;
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_BIND &&
		    (plan->ops[i].flags & SBX_PLAN_F_NOEXEC) &&
		    strcmp(plan->ops[i].target, path) == 0)
			return true;
	return false;
}

/*
 * The operations a policy (scope ps) allows on every path beneath q: the allow rules whose
 * pattern covers all of q, less every operation a deny rule may deny anywhere beneath q.
 * A deny over part of q only, or an allow over part of q only that no rule of its own can
 * carry, is compiled stricter and noted.
 */
static int policy_ops(struct ctx *x, const struct sbx_policy *p, const char *ps, const char *q,
                      unsigned *ops_out)
{
	unsigned allowed = 0, denied = 0;
	char apat[SBX_GLOB_MAX + SBX_PATH_MAX + 2], lit[sizeof(apat)];
	char a[64];
	int r;

	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];

		for (size_t j = 0; j < rule->n_paths; j++) {
			abs_pattern(rule->paths[j], ps, apat, sizeof(apat));
			if (rule->allow) {
				if (subtree_of(apat, lit, sizeof(lit)) && sbx_path_covers(lit, q))
					allowed |= rule->ops;
				continue;
			}
			/* deny: does it reach anything at or beneath q? */
			literal_prefix(apat, lit, sizeof(lit));
			if (!sbx_path_covers(lit, q) && !sbx_path_covers(q, lit))
				continue;
			/* A mask enforces it (namespaces backend), or carving (landlock
			 * backend: sbx_ll_expand). */
			if (sbx_glob_is_literal(apat) && strcmp(apat, q) != 0 &&
			    is_hidden(x->view->spec, apat))
				continue;
			/* A glob whose matches the walk hides: hidden whole, which is more
			 * than the rule denies where it denies less than everything. */
			if (!sbx_glob_is_literal(apat) && is_hidden_glob(x->view->spec, apat)) {
				r = note(
				    x,
				    "%s: stricter: what '%s' matches (policy %s, rule %s) at "
				    "launch is hidden whole (masked read-only, or denied under the "
				    "landlock backend)%s; a match created after the walk is not "
				    "hidden until the next launch",
				    q, apat, p->name, rule->name,
				    (rule->ops | SBX_OP_STAT) == SBX_OP_ALL
				        ? ""
				        : ", which is more than the "
				          "rule denies");
				if (r < 0)
					return r;
				continue;
			}
			/* A noexec mount (a guard, or the mount itself) holds execute there, the
			 * loader's mmap too: Landlock need not take it from the whole tree. */
			if (!x->opts->same_ns && (rule->ops & SBX_OP_EXECUTE) &&
			    noexec_backed(x->view->plan, apat)) {
				unsigned rest = rule->ops & ~SBX_OP_EXECUTE;

				if (!(rest & ~SBX_OP_STAT))
					continue;
				denied |= rest;
			} else {
				denied |= rule->ops;
			}
			if (!(subtree_of(apat, lit, sizeof(lit)) && sbx_path_covers(lit, q))) {
				r = note(
				    x,
				    "%s: %s denied on the whole tree, stricter than policy %s, "
				    "rule "
				    "%s ('%s' only): Landlock cannot take rights back beneath a "
				    "grant",
				    q, sbx_ops_format(rule->ops & ~SBX_OP_STAT, a, sizeof(a)),
				    p->name, rule->name, rule->paths[j]);
				if (r < 0)
					return r;
			}
		}
	}
	/* Allows over part of q that no subtree rule carries: granted nowhere. */
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];
		unsigned extra = rule->ops & ~allowed & ~denied & ~SBX_OP_STAT;

		if (!rule->allow || !extra)
			continue;
		for (size_t j = 0; j < rule->n_paths; j++) {
			abs_pattern(rule->paths[j], ps, apat, sizeof(apat));
			if (subtree_of(apat, lit, sizeof(lit)))
				continue; /* all of q, outside q, or a rule of its own */
			literal_prefix(apat, lit, sizeof(lit));
			if (!sbx_path_covers(lit, q) && !sbx_path_covers(q, lit))
				continue;
			r = note(
			    x,
			    "%s: %s on '%s' (policy %s, rule %s) not granted: Landlock grants a "
			    "directory's rights to everything beneath it, so only rules over "
			    "whole trees ('dir/**') compile",
			    q, sbx_ops_format(extra, a, sizeof(a)), rule->paths[j], p->name,
			    rule->name);
			if (r < 0)
				return r;
		}
	}
	*ops_out = allowed & ~denied;
	return 0;
}

static bool is_sealed(const struct sbx_plan *plan, const char *target)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_SEAL && strcmp(plan->ops[i].target, target) == 0)
			return true;
	return false;
}

static int add_cand(struct ctx *x, const char *path, unsigned ops, uint64_t extra, uint64_t blocked,
                    const char *why)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 64;
		struct cand *grown = realloc(x->c, cap * sizeof(*grown));

		if (!grown)
			return sbx_error_set(x->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		x->c = grown;
		x->cap = cap;
	}
	x->c[x->n] = (struct cand){.path = strdup(path),
	                           .access = sbx_ll_fs_from_ops(ops) | extra,
	                           .full = sbx_ll_fs_from_ops(ops) | extra,
	                           .ops = ops,
	                           .blocked = blocked,
	                           .why = why};
	if (!x->c[x->n].path)
		return sbx_error_set(x->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	x->n++;
	return 0;
}

/*
 * A mount's approvals (supervise.h): `deny` is a kernel rule wherever Landlock has a right for
 * it, and so is `ask` where no supervisor can ask. The rights are taken from the rule just
 * added for the mount (its target, a subtree of it, a guard in it), from what the policies
 * allow there too (`full`), so the landlock backend carves nothing for them.
 */
static int approvals_narrow(struct ctx *x, const struct sbx_mount *m)
{
	enum sbx_approval floor = x->opts->ask_is_deny ? SBX_APPROVE_ASK : SBX_APPROVE_DENY;
	struct cand *c = &x->c[x->n - 1];
	uint64_t take;
	char a[128];

	if (!m)
		return 0;
	take = sbx_ll_approvals_take(&m->approvals, x->opts->ask_is_deny) & c->access;
	if (!take)
		return 0;
	c->access &= ~take;
	c->full &= ~take;
	c->ops = sbx_ll_ops_from_fs(c->access) | (c->ops & SBX_OP_STAT);
	/* Landlock has one right for an unlink and a rename away, and one for writing into a
	 * file and for making one: where only one of a pair is denied, both are */
	if ((take & FS_REMOVE) &&
	    (m->approvals.op[SBX_AC_DELETE] < floor || m->approvals.op[SBX_AC_RENAME] < floor))
		return note(x,
		            "%s: approvals: delete and rename both denied by the kernel (%s), "
		            "stricter than the profile: Landlock's remove right covers both",
		            m->target, sbx_ll_fs_format(take & FS_REMOVE, a, sizeof(a)));
	return 0;
}

/* The operations the policies of a spec mount (or the root's mirror) allow beneath q. */
static int mount_ops(struct ctx *x, const struct sbx_plan_op *o, const struct sbx_mount *m,
                     const char *q, unsigned *ops)
{
	const struct sbx_policy_set *set = x->view->policies;
	unsigned o_ops = SBX_OP_ALL, p_ops;
	int r;

	if (o->flags & SBX_PLAN_F_READONLY)
		o_ops &= ~SBX_OP_MODIFY;
	if (o->flags & SBX_PLAN_F_NOEXEC)
		o_ops &= ~SBX_OP_EXECUTE;
	if (m && m->policy && set) {
		const struct sbx_policy *p = sbx_policy_set_find(set, m->policy);

		if (!p)
			return sbx_error_set(x->err, SBX_ERR_PROFILE, ENOENT,
			                     "mount %s names policy '%s', which is not loaded",
			                     m->target, m->policy);
		r = policy_ops(x, p, m->target, q, &p_ops);
		if (r < 0)
			return r;
		o_ops &= p_ops;
	}
	if (set && set->base) {
		r = policy_ops(x, set->base, "/", q, &p_ops);
		if (r < 0)
			return r;
		o_ops &= p_ops;
	}
	*ops = o_ops;
	return 0;
}

static uint64_t flags_block(const struct ctx *x, const struct sbx_plan_op *o)
{
	uint64_t b = 0;

	if (x->opts->same_ns)
		return 0; /* no mounts of sbx's own: nothing but Landlock stops anything */
	if ((o->flags & SBX_PLAN_F_READONLY) || is_sealed(x->view->plan, o->target))
		b |= FS_MODIFY;
	if (o->flags & SBX_PLAN_F_NOEXEC)
		b |= SBX_LL_FS_EXECUTE;
	return b;
}

/* The operation of the plan that covers a path (the longest target), as the kernel sees it. */
static const struct sbx_plan_op *covering(const struct sbx_plan *plan, const char *path)
{
	const struct sbx_plan_op *best = NULL;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if (o->kind == SBX_PLAN_SEAL || !sbx_path_covers(o->target, path))
			continue;
		if (!best || strlen(o->target) >= strlen(best->target))
			best = o;
	}
	return best;
}

/* Rules of their own for allow rules over a whole subtree beneath a mount. */
static int subtree_rules(struct ctx *x, const struct sbx_plan_op *o, const struct sbx_mount *m,
                         const struct sbx_policy *p, const char *ps)
{
	char apat[SBX_GLOB_MAX + SBX_PATH_MAX + 2], lit[sizeof(apat)];
	unsigned ops;
	int r;

	for (size_t i = 0; p && i < p->n_rules; i++) {
		for (size_t j = 0; p->rules[i].allow && j < p->rules[i].n_paths; j++) {
			abs_pattern(p->rules[i].paths[j], ps, apat, sizeof(apat));
			if (!subtree_of(apat, lit, sizeof(lit)) || strcmp(lit, o->target) == 0 ||
			    !sbx_path_covers(o->target, lit) || covering(x->view->plan, lit) != o)
				continue;
			r = mount_ops(x, o, m, lit, &ops);
			if (r < 0)
				return r;
			r = add_cand(x, lit, ops, 0, flags_block(x, o),
			             "policy rule over a subtree");
			if (r >= 0)
				r = approvals_narrow(x, m);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

unsigned sbx_ll_ops_from_fs(uint64_t a)
{
	static const struct {
		unsigned op;
		uint64_t need;
	} map[] = {
	    {SBX_OP_READ, SBX_LL_FS_READ_FILE},
	    {SBX_OP_LIST, SBX_LL_FS_READ_DIR},
	    {SBX_OP_WRITE, SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE},
	    {SBX_OP_CREATE, FS_MAKE},
	    {SBX_OP_DELETE, FS_REMOVE},
	    {SBX_OP_EXECUTE, SBX_LL_FS_EXECUTE},
	};
	unsigned ops = 0;

	for (size_t i = 0; i < SBX_ARRAY_SIZE(map); i++)
		if ((a & map[i].need) == map[i].need)
			ops |= map[i].op;
	return ops;
}

/*
 * A guard (spec.h): the rights the policies of the mount it lies in give there, less what its
 * own flags take. Under the landlock backend nothing is mounted, so a pin (a guard that only
 * keeps a directory from being renamed: git's .git) cannot be one; its tree is read-only
 * instead, which Landlock can hold, and the directories above it are carved (stricter).
 */
static int guard_op(struct ctx *x, const struct sbx_plan_op *o)
{
	const struct sbx_plan_op *under = sbx_plan_guarded_by(x->view->plan, o->target);
	const struct sbx_mount *m = NULL;
	struct sbx_plan_op g = *o;
	unsigned ops;
	int r;

	if (!under)
		return 0;
	if (x->opts->same_ns && !(o->flags & (SBX_PLAN_F_READONLY | SBX_PLAN_F_NOEXEC)))
		g.flags |= SBX_PLAN_F_READONLY;
	if (under->flags & SBX_PLAN_F_SYSTEM)
		return add_cand(x, o->target,
		                SBX_OP_LOOK | ((g.flags & SBX_PLAN_F_NOEXEC) ? 0 : SBX_OP_EXECUTE),
		                0, flags_block(x, &g), o->why);
	if (under->kind == SBX_PLAN_BIND)
		m = sbx_spec_find_target(x->view->spec, under->target);
	r = mount_ops(x, &g, m, o->target, &ops);
	if (r < 0)
		return r;
	r = add_cand(x, o->target, ops, 0, flags_block(x, &g), o->why);
	if (r < 0)
		return r;
	x->c[x->n - 1].policy = true;
	return approvals_narrow(x, m);
}

static int one_op(struct ctx *x, const struct sbx_plan_op *o)
{
	const struct sbx_spec *spec = x->view->spec;
	const struct sbx_policy_set *set = x->view->policies;
	const struct sbx_mount *m = NULL;
	uint64_t extra = 0, blocked;
	unsigned ops;
	int r;

	switch (o->kind) {
	case SBX_PLAN_MASK:      /* an empty read-only mount: nothing to grant */
	case SBX_PLAN_SYMLINK:   /* resolved by the kernel to what it names */
	case SBX_PLAN_SEAL:      /* not a mount */
	case SBX_PLAN_REBIND_RO: /* beneath /proc, read-only */
		return 0;
	default:
		break;
	}
	if (o->flags & SBX_PLAN_F_GUARD)
		return guard_op(x, o);
	if (!(o->flags & SBX_PLAN_F_SYSTEM) &&
	    (o->kind == SBX_PLAN_BIND || o->kind == SBX_PLAN_TMPFS))
		m = sbx_spec_find_target(spec, o->target);

	if (o->flags & SBX_PLAN_F_SYSTEM) {
		r = add_cand(x, o->target, SBX_OP_LOOK | SBX_OP_EXECUTE, 0, flags_block(x, o),
		             "system mount: read and execute");
		if (r >= 0)
			x->c[x->n - 1].follow = true;
		return r;
	}
	if (m || o->kind == SBX_PLAN_MIRROR) {
		if (x->opts->same_ns && m && m->kind == SBX_MOUNT_TMPFS) {
			/* No mount of sbx's own: the host's directory must stay out of reach,
			 * and nothing is made there. */
			r = add_cand(x, o->target, 0, 0, 0,
			             "private tmpfs: denied (the landlock backend mounts nothing)");
			if (r < 0)
				return r;
			x->c[x->n - 1].hidden = true;
			return note(
			    x,
			    "%s: stricter: a private tmpfs needs a mount namespace; the host's "
			    "directory is denied instead (nothing of it is reachable, nothing "
			    "is created there)",
			    o->target);
		}
		r = mount_ops(x, o, m, o->target, &ops);
		if (r < 0)
			return r;
		if (m && m->kind == SBX_MOUNT_DEVICE && (ops & (SBX_OP_READ | SBX_OP_WRITE)))
			extra = SBX_LL_FS_IOCTL_DEV;
		r = add_cand(x, o->target, ops, extra, flags_block(x, o),
		             o->kind == SBX_PLAN_MIRROR ? "root" : "mount and its policies");
		if (r < 0)
			return r;
		x->c[x->n - 1].policy = true;
		r = approvals_narrow(x, m);
		if (r < 0)
			return r;
		r = subtree_rules(x, o, m,
		                  m && m->policy ? sbx_policy_set_find(set, m->policy) : NULL,
		                  m ? m->target : "/");
		if (r < 0)
			return r;
		return subtree_rules(x, o, m, set ? set->base : NULL, "/");
	}

	/* sbx's own: /proc read (and write, as procfs allows: a root mirror's rights reach it
	 * anyway); /dev nodes read and write; /tmp and /dev/shm everything. procfs, devpts and
	 * device nodes can hold no new entry and run nothing, whatever a rule says. */
	blocked = flags_block(x, o);
	if (o->kind == SBX_PLAN_PROC) {
		/* The host's /proc (landlock backend) is read only: a worker still uid 0 without
		 * capabilities owns /proc/sys and could write sysctls that check no capability. */
		ops = SBX_OP_LOOK | (x->opts->same_ns ? 0 : SBX_OP_WRITE);
		blocked |= x->opts->same_ns ? 0 : NOT_A_TREE;
	} else if (sbx_path_covers("/dev", o->target)) {
		/* The host's /dev: only the nodes sbx names; not the host's /dev/pts, whose
		 * terminals are other sessions'. */
		if (x->opts->same_ns &&
		    (strcmp(o->target, "/dev") == 0 || o->kind == SBX_PLAN_DEVPTS))
			return 0;
		ops = SBX_OP_LOOK | SBX_OP_WRITE;
		if (o->kind == SBX_PLAN_TMPFS && strcmp(o->target, "/dev") != 0) {
			if (x->opts->same_ns)
				return 0; /* the host's /dev/shm: shared, not granted */
			ops = SBX_OP_ALL;
		} else if (o->kind != SBX_PLAN_TMPFS && !x->opts->same_ns)
			blocked |= NOT_A_TREE;
		extra = SBX_LL_FS_IOCTL_DEV;
	} else {
		/* The host's /tmp is shared with every process there: never granted under the
		 * landlock backend (listed in what it gives up). */
		if (x->opts->same_ns)
			return 0;
		ops = SBX_OP_ALL;
	}
	if (is_sealed(x->view->plan, o->target))
		ops &= ~SBX_OP_MODIFY;
	if (ops & SBX_OP_LOOK)
		ops |= SBX_OP_STAT;
	r = add_cand(x, o->target, ops, extra, blocked, o->why);
	if (r >= 0)
		x->c[x->n - 1].follow = true;
	return r;
}

static const char scaffold_why[] = "directory made by sbx to hold mount points";

/* The directories sbx makes in its sealed root to hold mount points: listable (sbx(1): they
 * hold nothing of the host). Not under the landlock backend, where they are the host's. */
static int scaffold_dirs(struct ctx *x)
{
	const struct sbx_plan *plan = x->view->plan;
	char dir[SBX_PATH_MAX];
	/* the parents the ops share (/etc, /proc, /dev), asked about once: the question walks
	 * every op (a scaffold directory is added once, as a candidate; the others are kept
	 * here) */
	char *not_scaffold[64];
	size_t n_not = 0, first = x->n;
	int r = 0;

	if (x->opts->same_ns)
		return 0;
	for (size_t i = 0; i < plan->n_ops; i++) {
		snprintf(dir, sizeof(dir), "%s", plan->ops[i].target);
		for (;;) {
			char *slash = strrchr(dir, '/');
			bool seen = false;

			if (!slash || strcmp(dir, "/") == 0)
				break;
			slash[slash == dir ? 1 : 0] = '\0';
			for (size_t k = first; k < x->n && !seen; k++)
				seen = strcmp(x->c[k].path, dir) == 0;
			for (size_t k = 0; k < n_not && !seen; k++)
				seen = strcmp(not_scaffold[k], dir) == 0;
			if (seen)
				continue;
			if (!sbx_plan_is_scaffold_dir(plan, dir)) {
				if (n_not < sizeof(not_scaffold) / sizeof(not_scaffold[0]) &&
				    (not_scaffold[n_not] = strdup(dir)) != NULL)
					n_not++;
				continue;
			}
			r = add_cand(x, dir, SBX_OP_LIST | SBX_OP_STAT, 0,
			             FS_MODIFY | SBX_LL_FS_EXECUTE, scaffold_why);
			if (r < 0)
				goto out;
		}
	}
out:
	for (size_t k = 0; k < n_not; k++)
		free(not_scaffold[k]);
	return r < 0 ? r : 0;
}

/* Landlock backend: each hidden path beneath a grant, denied whole (carved around later). */
static int hidden_paths(struct ctx *x)
{
	const struct sbx_spec *spec = x->view->spec;
	size_t n = x->n;
	int r;

	if (!x->opts->same_ns || !spec)
		return 0;
	for (size_t i = 0; i < spec->n_hide; i++) {
		bool granted = false;

		for (size_t k = 0; k < n && !granted; k++)
			granted = !x->c[k].hidden && sbx_path_covers(x->c[k].path, spec->hide[i]);
		if (!granted)
			continue; /* nothing reaches it: denied already */
		r = add_cand(x, spec->hide[i], 0, 0, 0, "hidden: denied, not masked");
		if (r < 0)
			return r;
		x->c[x->n - 1].hidden = true;
		x->c[x->n - 1].found = spec->hide_walked && spec->hide_walked[i];
	}
	return 0;
}

/* The entry directly in dir (a path it covers strictly) that target lies at or beneath, into
 * out; false where target is not strictly beneath dir. */
static bool entry_in(const char *dir, const char *target, char *out, size_t size)
{
	size_t len = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	size_t n;

	if (strncmp(target, dir, len) != 0 || target[len] != '/' || !target[len + 1])
		return false;
	n = len + 1 + strcspn(target + len + 1, "/");
	if (n >= size)
		return false;
	memcpy(out, target, n);
	out[n] = '\0';
	return true;
}

static struct sbx_ll_rule *rule_at(struct sbx_ll_plan *out, const char *path)
{
	for (size_t i = 0; i < out->n_rules; i++)
		if (out->rules[i].path && strcmp(out->rules[i].path, path) == 0)
			return &out->rules[i];
	return NULL;
}

/*
 * Fewer rules for the worker to add (each an open, a stat and a system call: ~3 us a rule).
 * A directory sbx made and sealed (a scaffold directory in its sealed root, such as /etc; a
 * sealed tmpfs of its own, such as /dev) holds only what the plan put there, and nothing can
 * be added to it. Where every entry directly in it (but the symlinks sbx made there, which
 * grant nothing of themselves: their targets' rules decide) has a rule that grants at least X
 * of the rights that act on what exists (reading, listing, executing, writing: never a right
 * to make, remove or move), the directory's rule takes X: it reaches only those entries and
 * what lies beneath them, which have X already (a rule never gives more than a rule beneath
 * it: sbx_ll_compile). An entry's rule that then grants nothing the directory's does not is
 * left out: Landlock grants a right where any rule on the way up grants it. Deepest first, so
 * that a directory takes what its subdirectories took.
 */
static void fold_sealed(const struct sbx_plan *plan, struct sbx_ll_plan *out)
{
	const uint64_t acts = SBX_LL_FS_FILE | SBX_LL_FS_READ_DIR;
	bool root_sealed = is_sealed(plan, "/");
	size_t depth_max = 0;

	for (size_t i = 0; i < out->n_rules; i++) {
		size_t d = 0;

		for (const char *c = out->rules[i].path; *c; c++)
			d += *c == '/';
		depth_max = d > depth_max ? d : depth_max;
	}
	for (size_t depth = depth_max + 1; depth-- > 0;) {
		for (size_t p = 0; p < out->n_rules; p++) {
			struct sbx_ll_rule *dir = &out->rules[p];
			uint64_t x = acts;
			bool any = false, own_tmpfs = false;
			char entry[SBX_PATH_MAX];
			size_t d = 0;

			if (!dir->path || dir->hidden)
				continue; /* dropped, or a landlock backend's */
			for (const char *c = dir->path; *c; c++)
				d += *c == '/';
			if (d != depth)
				continue;
			/* a scaffold directory's rule is scaffold_dirs' (which asked
			 * sbx_plan_is_scaffold_dir); a tmpfs of sbx's own, one that is sealed */
			if (dir->why != scaffold_why) {
				if (!is_sealed(plan, dir->path))
					continue;
				for (size_t i = 0; i < plan->n_ops && !own_tmpfs; i++)
					own_tmpfs = plan->ops[i].kind == SBX_PLAN_TMPFS &&
					            strcmp(plan->ops[i].target, dir->path) == 0;
				if (!own_tmpfs)
					continue;
			} else if (!root_sealed) {
				continue;
			}
			for (size_t i = 0; i < plan->n_ops && (x & ~dir->access); i++) {
				const struct sbx_plan_op *o = &plan->ops[i];
				const struct sbx_ll_rule *r;

				if (o->kind == SBX_PLAN_SEAL ||
				    !entry_in(dir->path, o->target, entry, sizeof(entry)) ||
				    (o->kind == SBX_PLAN_SYMLINK && strcmp(entry, o->target) == 0))
					continue;
				r = rule_at(out, entry);
				x &= r && !r->hidden ? r->access : 0;
				any = true;
			}
			if (!any || !(x & ~dir->access))
				continue;
			dir->access |= x;
			dir->full |= x;
			dir->ops = sbx_ll_ops_from_fs(dir->access) | (dir->ops & SBX_OP_STAT);
			if (!own_tmpfs)
				dir->why = "directory made by sbx to hold mount points: the rights "
				           "of every mount it holds";
			/* the entries' rules it makes redundant (but a symlink's) */
			for (size_t i = 0; i < out->n_rules; i++) {
				struct sbx_ll_rule *r = &out->rules[i];
				bool link = false;

				if (!r->path || r == dir || r->hidden ||
				    !entry_in(dir->path, r->path, entry, sizeof(entry)) ||
				    strcmp(entry, r->path) != 0 || (r->access & ~dir->access))
					continue;
				for (size_t k = 0; k < plan->n_ops && !link; k++)
					link = plan->ops[k].kind == SBX_PLAN_SYMLINK &&
					       strcmp(plan->ops[k].target, r->path) == 0;
				if (!link) {
					free(r->path);
					r->path = NULL; /* dropped below */
				}
			}
		}
	}
	{
		size_t n = 0;

		for (size_t i = 0; i < out->n_rules; i++)
			if (out->rules[i].path)
				out->rules[n++] = out->rules[i];
		out->n_rules = n;
	}
}

int sbx_ll_compile(const struct sbx_policy_view *view, const struct sbx_ll_opts *opts,
                   struct sbx_ll_plan *out, struct sbx_error *err)
{
	static const struct sbx_ll_opts none = {0};
	struct ctx x = {.view = view, .opts = opts ? opts : &none, .out = out, .err = err};
	size_t *len = NULL;    /* each candidate's path's */
	size_t *out_of = NULL; /* each rule's candidate */
	char a[256];
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; r >= 0 && i < view->plan->n_ops; i++)
		r = one_op(&x, &view->plan->ops[i]);
	if (r >= 0)
		r = scaffold_dirs(&x);
	if (r >= 0)
		r = hidden_paths(&x);

	/* Rights on a path reach everything beneath it: a rule may not give a path beneath it
	 * more than that path's own rule (less what its mount flags stop already). (A path
	 * covers only longer ones: the lengths, taken once, spare most comparisons.) */
	len = calloc(x.n ? x.n : 1, sizeof(*len));
	out_of = calloc(x.n ? x.n : 1, sizeof(*out_of));
	if (!len || !out_of)
		r = sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; r >= 0 && i < x.n; i++)
		len[i] = strlen(x.c[i].path);
	for (size_t i = 0; r >= 0 && i < x.n; i++) {
		for (size_t j = 0; r >= 0 && j < x.n; j++) {
			uint64_t more;

			if (len[i] >= len[j] || !sbx_path_covers(x.c[i].path, x.c[j].path))
				continue;
			more = x.c[i].access & ~x.c[j].access & ~x.c[j].blocked;
			if (!more)
				continue;
			x.c[i].access &= ~more;
			/* Around a hidden path the landlock backend carves, and says so. */
			if (x.c[j].hidden)
				continue;
			r = note(
			    &x,
			    "%s: %s not granted, stricter than its policies: %s beneath it allows "
			    "less, and Landlock rights reach everything beneath a path",
			    x.c[i].path, sbx_ll_fs_format(more, a, sizeof(a)), x.c[j].path);
		}
	}
	if (r < 0)
		goto out;

	out->rules = calloc(x.n ? x.n : 1, sizeof(*out->rules));
	if (!out->rules) {
		r = sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < x.n; i++) {
		bool dup = false;

		/* The same path twice (a subtree rule on a mount's own target): one rule with
		 * the rights both allow. */
		for (size_t k = 0; k < out->n_rules; k++)
			if (len[out_of[k]] == len[i] &&
			    strcmp(out->rules[k].path, x.c[i].path) == 0) {
				out->rules[k].access &= x.c[i].access;
				out->rules[k].full &= x.c[i].full;
				out->rules[k].ops = sbx_ll_ops_from_fs(out->rules[k].access);
				out->rules[k].hidden |= x.c[i].hidden;
				out->rules[k].follow &= x.c[i].follow;
				out->rules[k].found |= x.c[i].found;
				if (x.c[i].hidden)
					out->rules[k].why = x.c[i].why;
				dup = true;
			}
		/* Under the landlock backend a rule that lost everything to paths beneath it
		 * stays, to be carved (sbx_ll_expand); so does a hidden path, for --dry-run. */
		if (dup || (x.c[i].access == 0 &&
		            !(x.opts->same_ns && (x.c[i].hidden || x.c[i].full != 0))))
			continue;
		struct sbx_ll_rule *rule = &out->rules[out->n_rules];

		out_of[out->n_rules++] = i;

		rule->path = TAKE_PTR(x.c[i].path);
		rule->access = x.c[i].access;
		rule->full = x.c[i].full;
		rule->ops = sbx_ll_ops_from_fs(x.c[i].access) | (x.c[i].ops & SBX_OP_STAT);
		rule->why = x.c[i].why;
		rule->hidden = x.c[i].hidden;
		rule->follow = x.c[i].follow;
		rule->found = x.c[i].found;
	}
	if (!x.opts->same_ns)
		fold_sealed(view->plan, out);
	/* What only Landlock denies of what the policies decide: without it, this much of
	 * the profile would go unenforced. (Device nodes: nodev mounts and no CAP_MKNOD.) */
	for (size_t i = 0; i < x.n; i++)
		if (x.c[i].policy)
			out->needed_fs |= ~x.c[i].access & ~x.c[i].blocked & SBX_LL_FS_ALL &
			                  ~(SBX_LL_FS_MAKE_CHAR | SBX_LL_FS_MAKE_BLOCK |
			                    SBX_LL_FS_IOCTL_DEV | SBX_LL_FS_REFER);
	if (x.opts->same_ns)
		out->needed_fs = SBX_LL_FS_ALL; /* nothing else confines the worker */
	out->enabled = true;
	out->handled_fs = SBX_LL_FS_ALL;
	out->scoped = SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL;
	out->handled_net = x.opts->same_ns && view->plan->new_net
	                       ? SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP
	                       : 0;
out:
	for (size_t i = 0; i < x.n; i++)
		free(x.c[i].path);
	free(x.c);
	free(len);
	free(out_of);
	if (r < 0)
		sbx_ll_plan_clear(out);
	return r < 0 ? r : 0;
}
