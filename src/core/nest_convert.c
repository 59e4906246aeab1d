/* SPDX-License-Identifier: MIT */
/*
 * Nesting, conversions (pure): a plan to the effective spec its worker reads
 * (sbx_nest_from_plan), a Landlock layer's per-operation rights folded into it
 * (sbx_nest_apply_landlock), a child's Landlock layer narrowed to it (sbx_nest_ll_narrow,
 * sbx_nest_ll_hide), and an effective spec back to a spec (sbx_nest_to_spec).
 */
#include "sbx/nest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/landlock.h"
#include "sbx/path.h"
#include "sbx/policy.h"

#include "nest_priv.h"

/* ---- from a plan ---- */

static unsigned op_rights(unsigned plan_flags)
{
	unsigned rights = SBX_OP_ALL;

	if (plan_flags & SBX_PLAN_F_READONLY)
		rights &= ~SBX_OP_MODIFY;
	if (plan_flags & SBX_PLAN_F_NOEXEC)
		rights &= ~SBX_OP_EXECUTE;
	return rights;
}

static bool spec_hides(const struct sbx_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->n_hide; i++)
		if (strcmp(spec->hide[i], path) == 0)
			return true;
	return false;
}

int sbx_nest_from_plan(const struct sbx_spec *spec, const struct sbx_plan *plan, unsigned depth,
                       unsigned backend, struct sbx_nest **out, struct sbx_error *err)
{
	_cleanup_nest_ struct sbx_nest *n = sbx_nest_new();
	int r = 0;

	if (!n)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_spec_set_str(&n->profile, plan->profile, err);
	if (r < 0)
		return r;
	n->depth = depth;
	n->backend = backend;
	n->net = !plan->new_net              ? SBX_NET_HOST
	         : spec->net == SBX_NET_HOST ? SBX_NET_NONE
	                                     : spec->net;
	if (n->net >= SBX_NET_ALLOW && (r = sbx_netpolicy_copy(&n->netpol, &spec->netpol, err)) < 0)
		return r;
	n->nesting = spec->nesting;
	n->limits = plan->resources; /* a nested sandbox may only lower them */
	/* set once Landlock is planned and on (sbx_plan_finish) */
	n->landlocked = false;

	for (size_t i = 0; r >= 0 && i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];
		const struct sbx_mount *m = sbx_spec_find_target(spec, o->target);
		unsigned sys = o->flags & SBX_PLAN_F_SYSTEM ? SBX_NEST_F_SYSTEM : 0;
		unsigned rights = op_rights(o->flags);

		if (sys)
			rights &= ~SBX_OP_MODIFY;
		/* sbx's own /proc and /dev are remade fresh in every sandbox; only devices the
		 * spec asked for are carried. */
		if (sbx_path_covers("/proc", o->target) || sbx_path_covers("/dev", o->target)) {
			if (o->kind == SBX_PLAN_BIND && m && m->kind == SBX_MOUNT_DEVICE)
				r = sbx_nest_put(n, o->target, SBX_NEST_DEVICE,
				                 rights & ~SBX_OP_EXECUTE, 0, err);
			continue;
		}
		switch (o->kind) {
		case SBX_PLAN_MIRROR:
		case SBX_PLAN_BIND:
			r = sbx_nest_put(n, o->target, SBX_NEST_BIND, rights, sys, err);
			break;
		case SBX_PLAN_TMPFS:
			if (!m) /* the private /tmp: every sandbox gets its own */
				break;
			if (m->readonly)
				rights &= ~SBX_OP_MODIFY;
			r = sbx_nest_put(n, o->target, SBX_NEST_TMPFS, rights, 0, err);
			break;
		case SBX_PLAN_SYMLINK:
			if (sys)
				r = sbx_nest_put(n, o->target, SBX_NEST_SYMLINK, SBX_OP_LOOK, sys,
				                 err);
			break;
		case SBX_PLAN_MASK:
			if (spec_hides(spec, o->target))
				r = sbx_nest_put(n, o->target, SBX_NEST_HIDDEN, 0, 0, err);
			break;
		default: /* proc, devpts, rebind-ro, seal, nest-proc: sbx's own scaffolding */
			break;
		}
	}
	if (r < 0)
		return r;
	r = sbx_nest_check(n, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(n);
	return 0;
}

/* ---- per-operation rights ---- */

/* The rules of a domain sorted by path, so that the rules covering a path (those at it and at
 * each of its ancestors) are found by binary search: thousands of rules (the landlock
 * backend's entry-by-entry expansion) must not cost a scan each. */
struct rule_ref {
	const char *path;
	size_t i;
};

struct rule_index {
	const struct sbx_ll_plan *ll;
	struct rule_ref *refs;
	size_t n;
};

static int cmp_rule_ref(const void *a, const void *b)
{
	const struct rule_ref *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int index_rules(struct rule_index *x, const struct sbx_ll_plan *ll, size_t n,
                       struct sbx_error *err)
{
	x->ll = ll;
	x->n = n;
	x->refs = calloc(n ? n : 1, sizeof(*x->refs));
	if (!x->refs)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		x->refs[i] = (struct rule_ref){ll->rules[i].path, i};
	qsort(x->refs, n, sizeof(*x->refs), cmp_rule_ref);
	return 0;
}

/* The first reference whose path is path (*count of them), or n. */
static size_t rules_at(const struct rule_index *x, const char *path, size_t *count)
{
	size_t lo = 0, hi = x->n, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(x->refs[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < x->n && strcmp(x->refs[k].path, path) == 0; k++)
		;
	*count = k - lo;
	return lo;
}

/* Call fn on every rule at path or at one of its ancestors (but not at path if !self). */
static void each_covering(const struct rule_index *x, const char *path, bool self,
                          void (*fn)(size_t i, void *arg), void *arg)
{
	char buf[SBX_PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf) || path[0] != '/') {
		for (size_t i = 0; i < x->n; i++)
			if (sbx_path_covers(x->ll->rules[i].path, path) &&
			    (self || strcmp(x->ll->rules[i].path, path)))
				fn(i, arg);
		return;
	}
	memcpy(buf, path, len + 1);
	for (bool first = true;; first = false) {
		size_t count = 0, at = first && !self ? 0 : rules_at(x, buf, &count);
		char *slash;

		for (size_t k = 0; (!first || self) && k < count; k++)
			fn(x->refs[at + k].i, arg);
		if (len == 1)
			return;
		slash = strrchr(buf, '/');
		len = slash == buf ? 1 : (size_t)(slash - buf);
		buf[len] = '\0';
	}
}

struct ops_acc {
	const struct sbx_ll_plan *ll;
	unsigned ops;
	bool covered;
};

static void add_ops(size_t i, void *arg)
{
	struct ops_acc *a = arg;

	a->ops |= sbx_ll_ops_from_fs(a->ll->rules[i].access);
	a->covered = true;
}

/* What the rules of a domain grant at path (the union of those covering it); *covered says
 * whether any does. */
static unsigned ll_ops_at(const struct rule_index *x, const char *path, bool *covered)
{
	struct ops_acc a = {.ll = x->ll};

	each_covering(x, path, true, add_ops, &a);
	*covered = a.covered;
	/* Landlock cannot deny stat: it is whatever the entry says */
	return a.ops | SBX_OP_STAT;
}

/* What an entry allows once the domain's rules are taken into account. */
static unsigned effective(const struct sbx_nest_mount *e, const struct rule_index *x)
{
	bool covered;
	unsigned ops = ll_ops_at(x, e->target, &covered);

	if (e->kind == SBX_NEST_RULE || e->kind == SBX_NEST_HIDDEN || e->kind == SBX_NEST_SYMLINK ||
	    !covered)
		return e->rights;
	return e->rights & ops;
}

int sbx_nest_apply_landlock(struct sbx_nest *n, const struct sbx_ll_plan *ll, struct sbx_error *err)
{
	struct rule_index x = {0};
	size_t n_rules = 0;
	int r;

	if (!ll->enabled)
		return 0;
	r = index_rules(&x, ll, ll->n_rules, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n->n_mounts; i++)
		n_rules += n->mounts[i].kind == SBX_NEST_RULE;
	/* First the rule entries, from the mounts' rights as the mounts alone give them: the
	 * kernel allows beneath a rule what the mount's flags allow there and the rules grant. */
	for (size_t i = 0; r >= 0 && i < ll->n_rules; i++) {
		const char *path = ll->rules[i].path;
		const struct sbx_nest_mount *m = sbx_nest_lookup_in(n, path, true);
		const struct sbx_nest_mount *cur = sbx_nest_lookup(n, path);
		unsigned rights;
		bool covered;

		if (!m || !strcmp(cur->target, path) || m->kind == SBX_NEST_HIDDEN ||
		    m->kind == SBX_NEST_SYMLINK || (m->flags & SBX_NEST_F_SYSTEM))
			continue;
		rights = m->rights & ll_ops_at(&x, path, &covered);
		if (rights == effective(cur, &x))
			continue;
		if (n_rules >= SBX_NEST_MAX_RULES)
			continue; /* left out: the rights above it, fewer, apply (stricter) */
		r = sbx_nest_put(n, path, SBX_NEST_RULE, rights, 0, err);
		n_rules++;
	}
	/* Then each mount keeps only what the rules covering its target grant. */
	for (size_t i = 0; r >= 0 && i < n->n_mounts; i++)
		n->mounts[i].rights = effective(&n->mounts[i], &x);
	free(x.refs);
	return r < 0 ? r : 0;
}

struct strip {
	struct sbx_ll_plan *ll;
	uint64_t bits;
	bool reduced;
};

static void strip_bits(size_t i, void *arg)
{
	struct strip *s = arg;
	struct sbx_ll_rule *up = &s->ll->rules[i];

	if (!(up->access & s->bits))
		return;
	up->access &= ~s->bits;
	up->full &= ~s->bits;
	up->ops = sbx_ll_ops_from_fs(up->access) | (up->ops & SBX_OP_STAT);
	s->reduced = true;
}

int sbx_nest_ll_narrow(const struct sbx_nest *n, struct sbx_ll_plan *ll, struct sbx_error *err)
{
	_cleanup_free_ uint64_t *removed = NULL;
	size_t n0 = ll->n_rules;
	bool reduced = false;

	if (!ll->enabled)
		return 0;
	removed = calloc(n0 ? n0 : 1, sizeof(*removed));
	if (!removed)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < n0; i++) {
		struct sbx_ll_rule *rule = &ll->rules[i];
		const struct sbx_nest_mount *m = sbx_nest_lookup(n, rule->path);
		static const char *const own[] = {"/dev", "/proc", "/tmp"};
		bool skip = !m;
		uint64_t allow;

		/* sbx's own /dev, /proc and private /tmp are fresh in every sandbox: an entry
		 * above them (a root '/') does not speak of them, one beneath does */
		for (size_t k = 0; !skip && k < SBX_ARRAY_SIZE(own); k++)
			skip = sbx_path_covers(own[k], rule->path) &&
			       !sbx_path_covers(own[k], m->target);
		if (skip)
			continue;
		allow = sbx_ll_fs_from_ops(sbx_nest_rights(n, rule->path));
		removed[i] = rule->access & ~allow;
		rule->access &= allow;
		rule->full &= allow;
		rule->ops = sbx_ll_ops_from_fs(rule->access) | (rule->ops & SBX_OP_STAT);
	}
	/* Landlock grants beneath a rule's path whatever the rule allows, across mounts (the
	 * private /tmp's rule reaches a bind beneath it): a rule above one that lost rights
	 * loses them too, which is stricter there. */
	{
		struct rule_index x = {0};
		int r = index_rules(&x, ll, n0, err);

		if (r < 0)
			return r;
		for (size_t j = 0; j < n0; j++) {
			struct strip st = {.ll = ll, .bits = removed[j]};

			if (!removed[j])
				continue;
			each_covering(&x, ll->rules[j].path, false, strip_bits, &st);
			reduced |= st.reduced;
		}
		free(x.refs);
	}
	if (reduced) {
		int r = sbx_ll_note(ll,
		                    "a path above one whose per-operation rights the parent "
		                    "sandbox narrowed gives up those rights too (Landlock rights "
		                    "reach everything beneath a path)",
		                    err);

		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < n->n_mounts; i++) {
		const struct sbx_nest_mount *e = &n->mounts[i];
		uint64_t access = sbx_ll_fs_from_ops(e->rights) & ll->handled_fs;
		unsigned modify = e->rights & SBX_OP_MODIFY;
		struct sbx_ll_rule *grown;

		if (e->kind == SBX_NEST_HIDDEN || e->kind == SBX_NEST_SYMLINK)
			continue;
		/* what mount flags cannot say (some writes but not all, a rule entry), only
		 * Landlock denies: it must not be left off */
		if ((modify && modify != SBX_OP_MODIFY) || e->kind == SBX_NEST_RULE)
			ll->needed_fs |= ll->handled_fs & ~sbx_ll_fs_from_ops(e->rights);
		if (e->kind != SBX_NEST_RULE)
			continue;
		grown = realloc(ll->rules, (ll->n_rules + 1) * sizeof(*grown));
		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		ll->rules = grown;
		grown[ll->n_rules] = (struct sbx_ll_rule){
		    .path = strdup(e->target),
		    .access = access,
		    .full = access,
		    .ops = sbx_ll_ops_from_fs(access) | (e->rights & SBX_OP_STAT),
		    .why = "the parent sandbox's per-operation rights",
		};
		if (!grown[ll->n_rules].path)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		ll->n_rules++;
	}
	return 0;
}

int sbx_nest_ll_hide(struct sbx_ll_plan *ll, char *const *paths, size_t n, struct sbx_error *err)
{
	for (size_t i = 0; ll->enabled && i < n; i++) {
		bool reached = false, have = false;
		size_t n0 = ll->n_rules;
		struct sbx_ll_rule *grown;

		for (size_t k = 0; k < n0; k++) {
			struct sbx_ll_rule *rule = &ll->rules[k];

			if (!sbx_path_covers(rule->path, paths[i]))
				continue;
			if (rule->hidden) {
				have |= strcmp(rule->path, paths[i]) == 0;
				continue;
			}
			if (strcmp(rule->path, paths[i]) == 0) {
				/* a rule of its own (a carved parent's entry): it is the hidden one
				 */
				*rule = (struct sbx_ll_rule){.path = rule->path,
				                             .ops = SBX_OP_STAT,
				                             .why = "hidden: denied, not masked",
				                             .hidden = true};
				have = true;
				continue;
			}
			/* its rights reach the hidden path: it keeps only what sbx_ll_expand
			 * finds safe on the way, and its other entries are carved */
			reached = true;
			rule->access = 0;
			rule->ops = SBX_OP_STAT;
		}
		if (!reached || have)
			continue;
		grown = realloc(ll->rules, (ll->n_rules + 1) * sizeof(*grown));
		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		ll->rules = grown;
		grown[ll->n_rules] = (struct sbx_ll_rule){.path = strdup(paths[i]),
		                                          .ops = SBX_OP_STAT,
		                                          .why = "hidden: denied, not masked",
		                                          .hidden = true};
		if (!grown[ll->n_rules].path)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		ll->n_rules++;
	}
	return 0;
}

/* ---- to a spec ---- */

bool sbx_nest_system_allowed(const struct sbx_nest *n, const char *path)
{
	bool found;
	size_t i = sbx_nest_find_slot(n, path, &found);

	return found && (n->mounts[i].flags & SBX_NEST_F_SYSTEM);
}

int sbx_nest_to_spec(const struct sbx_nest *n, const char *cwd, struct sbx_spec **out,
                     struct sbx_error *err)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	bool system = false;
	int r;

	if (!spec)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_spec_set_str(&spec->profile, n->profile, err);
	if (r >= 0)
		r = sbx_spec_set_str(&spec->workspace, cwd, err);
	if (r < 0)
		return r;
	spec->net = n->net;
	if (n->net >= SBX_NET_ALLOW && (r = sbx_netpolicy_copy(&spec->netpol, &n->netpol, err)) < 0)
		return r;
	spec->nesting = n->nesting;
	spec->explicit_mounts = true;
	for (size_t i = 0; r >= 0 && i < n->n_mounts; i++) {
		const struct sbx_nest_mount *e = &n->mounts[i];
		struct sbx_mount m = {
		    .kind = e->kind == SBX_NEST_DEVICE ? SBX_MOUNT_DEVICE : SBX_MOUNT_BIND,
		    .source = e->target,
		    .target = e->target,
		    /* a partial write right (a policy's: write without delete, say) is a writable
		     * mount whose Landlock layer cuts it down (sbx_nest_ll_narrow) */
		    .readonly = !(e->rights & SBX_OP_MODIFY),
		    .noexec = !(e->rights & SBX_OP_EXECUTE),
		    /* what the caller cannot see, the child does not get: less, never more */
		    .optional = true,
		    .origin = SBX_ORIGIN_FLAG,
		};

		if (e->flags & SBX_NEST_F_SYSTEM) {
			system = true;
			continue;
		}
		if (e->kind == SBX_NEST_RULE)
			continue; /* no mount: the Landlock layer (sbx_nest_ll_narrow) */
		if (e->kind == SBX_NEST_HIDDEN || !(e->rights & SBX_OP_READ)) {
			r = sbx_spec_add_hide(spec, e->target, err);
			continue;
		}
		if (strcmp(e->target, "/") == 0) {
			if (m.noexec) {
				r = sbx_error_set(
				    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
				    "a nested sandbox cannot make its root '/' noexec");
				sbx_error_hint(err, "use --restrict on the directories it needs");
				break;
			}
			r = sbx_spec_set_str(&spec->root, "/", err);
			spec->root_readonly = m.readonly;
			continue;
		}
		r = sbx_spec_add_mount(spec, &m, false, err);
	}
	if (r < 0)
		return r;
	spec->system_mounts = system ? SBX_SYSMOUNTS_DEFAULT : SBX_SYSMOUNTS_NONE;
	*out = TAKE_PTR(spec);
	return 0;
}
