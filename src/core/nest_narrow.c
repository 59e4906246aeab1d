/* SPDX-License-Identifier: MIT */
/*
 * Nesting, narrowing (pure, docs/design.md, Nesting): a child's request (sbx_nest_request_*)
 * checked against the parent's effective spec, each grant no wider than the parent's, and the
 * child's effective spec (sbx_spec_narrow); the boundaries a refusal quotes.
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

/* ---- narrowing ---- */

void sbx_nest_request_clear(struct sbx_nest_request *r)
{
	for (size_t i = 0; i < r->n_grants; i++) {
		free(r->grants[i].path);
		free(r->grants[i].what);
	}
	free(r->grants);
	r->grants = NULL;
	r->n_grants = 0;
}

int sbx_nest_request_add(struct sbx_nest_request *r, unsigned kind, const char *path, bool optional,
                         const char *what, struct sbx_error *err)
{
	char norm[SBX_PATH_MAX];
	struct sbx_grant *grown;
	int rc;

	if (!path || path[0] != '/') {
		rc = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                   "%s: '%s' is not an absolute sandbox path", what,
		                   path ? path : "");
		sbx_error_hint(err, "nested sandboxes name paths as the sandbox sees them, e.g. "
		                    "--restrict /src");
		return rc;
	}
	rc = sbx_path_normalize(path, norm, sizeof(norm), err);
	if (rc < 0)
		return rc;
	if (r->n_grants >= SBX_NEST_MAX_GRANTS)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many paths in a nested request: at most %d",
		                     SBX_NEST_MAX_GRANTS);
	grown = realloc(r->grants, (r->n_grants + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r->grants = grown;
	grown = &r->grants[r->n_grants];
	*grown = (struct sbx_grant){.kind = kind, .optional = optional};
	grown->path = strdup(norm);
	grown->what = strdup(what);
	if (!grown->path || !grown->what) {
		free(grown->path);
		free(grown->what);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	r->n_grants++;
	return 0;
}

static void append(char *buf, size_t size, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len >= size)
		return;
	if (*len + n >= size) {
		/* keep room for the ellipsis */
		if (size > 4 && *len < size - 4) {
			memcpy(buf + *len, s, size - 4 - *len);
			*len = size - 4;
		}
		if (size >= 4) {
			memcpy(buf + size - 4, "...", 4);
			*len = size;
		}
		return;
	}
	memcpy(buf + *len, s, n + 1);
	*len += n;
}

const char *sbx_nest_boundaries(const struct sbx_nest *n, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;

		for (size_t i = 0; i < n->n_mounts; i++) {
			const struct sbx_nest_mount *m = &n->mounts[i];
			bool writes = (m->rights & SBX_OP_MODIFY) != 0;

			if ((m->flags & SBX_NEST_F_SYSTEM) || m->kind == SBX_NEST_HIDDEN ||
			    !(m->rights & SBX_OP_READ) || writes != (pass == 1))
				continue;
			if (first)
				append(buf, size, &len,
				       pass == 0 ? (len ? "; read " : "read ")
				                 : (len ? "; write " : "write "));
			else
				append(buf, size, &len, ", ");
			append(buf, size, &len, m->target);
			first = false;
		}
	}
	if (!len)
		append(buf, size, &len, "nothing but the read-only system mounts");
	return buf;
}

static const char *grant_verb(unsigned kind)
{
	return kind == SBX_GRANT_WRITE  ? "grant write on"
	       : kind == SBX_GRANT_READ ? "grant read on"
	                                : "restrict to";
}

/* The caps each kind of grant puts on the parent's rights. */
static unsigned grant_cap(unsigned kind)
{
	return kind == SBX_GRANT_READ ? SBX_OP_ALL & ~SBX_OP_MODIFY : SBX_OP_ALL;
}

/* A writable path of the parent, for hints: the first one, or NULL. */
static const char *some_writable(const struct sbx_nest *n)
{
	for (size_t i = 0; i < n->n_mounts; i++)
		if (!(n->mounts[i].flags & SBX_NEST_F_SYSTEM) &&
		    (n->mounts[i].rights & SBX_OP_MODIFY) && n->mounts[i].kind != SBX_NEST_HIDDEN)
			return n->mounts[i].target;
	return NULL;
}

static const char *some_readable(const struct sbx_nest *n)
{
	for (size_t i = 0; i < n->n_mounts; i++)
		if (!(n->mounts[i].flags & SBX_NEST_F_SYSTEM) &&
		    (n->mounts[i].rights & SBX_OP_READ))
			return n->mounts[i].target;
	return NULL;
}

static int escalation(const struct sbx_nest *parent, const struct sbx_grant *g, const char *why,
                      struct sbx_error *err)
{
	char bounds[512];
	int r = sbx_error_set(err, SBX_ERR_ESCALATION, EPERM,
	                      "cannot %s %s (%s): %s; child sandboxes can only narrow access "
	                      "(parent: %s)",
	                      grant_verb(g->kind), g->path, g->what, why,
	                      sbx_nest_boundaries(parent, bounds, sizeof(bounds)));
	const char *w = some_writable(parent), *rd = some_readable(parent);

	if (g->kind == SBX_GRANT_WRITE && sbx_nest_rights(parent, g->path) & SBX_OP_READ)
		sbx_error_hint(err, "use --allow-read %s%s%s", g->path,
		               w ? ", or --allow-write on a path the parent can write, e.g. " : "",
		               w ? w : "");
	else if (rd)
		sbx_error_hint(err, "name a path the parent sandbox sees, e.g. --restrict %s", rd);
	else
		sbx_error_hint(err, "the parent sandbox sees only its system mounts; run the "
		                    "sub-worker with no path options");
	return r;
}

static bool any_beneath(const struct sbx_nest *n, const char *path)
{
	for (size_t i = 0; i < n->n_mounts; i++)
		if (!(n->mounts[i].flags & SBX_NEST_F_SYSTEM) &&
		    n->mounts[i].kind != SBX_NEST_HIDDEN &&
		    sbx_path_covers(path, n->mounts[i].target) && strcmp(path, n->mounts[i].target))
			return true;
	return false;
}

static int cmp_grants(const void *a, const void *b)
{
	const struct sbx_grant *x = *(const struct sbx_grant *const *)a;
	const struct sbx_grant *y = *(const struct sbx_grant *const *)b;
	size_t dx = sbx_path_depth(x->path), dy = sbx_path_depth(y->path);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	/* at the same path the widest grant is applied last, so it is the one that stays */
	return (int)grant_cap(x->kind) - (int)grant_cap(y->kind) + (x->kind == SBX_GRANT_WRITE) -
	       (y->kind == SBX_GRANT_WRITE);
}

/* Keep the parent's view beneath g->path in the child, capped by the grant's kind. */
static int apply_grant(const struct sbx_nest *parent, const struct sbx_grant *g,
                       struct sbx_nest *child, struct sbx_error *err)
{
	const struct sbx_nest_mount *m = sbx_nest_lookup(parent, g->path);
	unsigned cap = grant_cap(g->kind) & (g->noexec ? ~(unsigned)SBX_OP_EXECUTE : SBX_OP_ALL);
	char why[SBX_PATH_MAX + 128];
	int r;

	if (m && m->kind == SBX_NEST_HIDDEN) {
		if (g->optional)
			return 0;
		snprintf(why, sizeof(why), "the parent sandbox hides %s", m->target);
		return escalation(parent, g, why, err);
	}
	if (m && m->kind == SBX_NEST_SYMLINK) {
		snprintf(why, sizeof(why), "%s lies beneath the system symlink %s", g->path,
		         m->target);
		r = escalation(parent, g, why, err);
		sbx_error_hint(err, "name the path the symlink points to");
		return r;
	}
	if (!m && !any_beneath(parent, g->path)) {
		if (g->optional)
			return 0;
		snprintf(why, sizeof(why), "the parent sandbox does not see %s", g->path);
		return escalation(parent, g, why, err);
	}
	if (m && (m->flags & SBX_NEST_F_SYSTEM) && g->kind == SBX_GRANT_WRITE) {
		snprintf(why, sizeof(why), "%s is a read-only system mount", m->target);
		return escalation(parent, g, why, err);
	}
	if (m && g->kind == SBX_GRANT_WRITE && (m->rights & SBX_OP_MODIFY) != SBX_OP_MODIFY) {
		snprintf(why, sizeof(why), "the parent sandbox has %s read-only%s%s", g->path,
		         strcmp(m->target, g->path) ? " (mount " : "",
		         strcmp(m->target, g->path) ? m->target : "");
		if (strcmp(m->target, g->path))
			strncat(why, ")", sizeof(why) - strlen(why) - 1);
		return escalation(parent, g, why, err);
	}
	if (!m && g->kind == SBX_GRANT_WRITE) {
		/* scaffolding between mounts: nothing there can be written */
		snprintf(why, sizeof(why),
		         "%s is sbx's read-only scaffolding in the parent sandbox", g->path);
		return escalation(parent, g, why, err);
	}
	if (m) {
		unsigned kind = strcmp(m->target, g->path) == 0 ? m->kind : SBX_NEST_BIND;

		r = sbx_nest_put(child, g->path, kind, m->rights & cap, m->flags, err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < parent->n_mounts; i++) {
		const struct sbx_nest_mount *e = &parent->mounts[i];

		if (!sbx_path_covers(g->path, e->target) || strcmp(g->path, e->target) == 0 ||
		    (e->flags & SBX_NEST_F_SYSTEM))
			continue;
		r = sbx_nest_put(child, e->target, e->kind, e->rights & cap, e->flags, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int sbx_spec_narrow(const struct sbx_nest *parent, const struct sbx_nest_request *req,
                    struct sbx_nest **out, struct sbx_error *err)
{
	_cleanup_nest_ struct sbx_nest *child = sbx_nest_new();
	_cleanup_free_ const struct sbx_grant **order = NULL;
	char bounds[512];
	int r;

	if (!child)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	if (parent->depth >= SBX_NEST_MAX_DEPTH) {
		r = sbx_error_set(err, SBX_ERR_ESCALATION, ELOOP,
		                  "cannot start a sandbox %u levels deep: at most %u are allowed",
		                  parent->depth + 1, SBX_NEST_MAX_DEPTH);
		sbx_error_hint(err, "start the sub-worker from a shallower sandbox");
		return r;
	}
	if (req->net_given && req->net == SBX_NET_HOST && parent->net != SBX_NET_HOST) {
		r = sbx_error_set(err, SBX_ERR_ESCALATION, EPERM,
		                  "cannot grant the host's network (--net host): the parent "
		                  "sandbox's network is '%s'; child sandboxes can only "
		                  "narrow access (parent: %s)",
		                  sbx_net_mode_name(parent->net),
		                  sbx_nest_boundaries(parent, bounds, sizeof(bounds)));
		sbx_error_hint(err, "drop --net host (the sub-worker inherits its parent's "
		                    "network), or give the parent sandbox --net host");
		return r;
	}
	if (req->net_given) {
		static const struct sbx_netpolicy empty = {0};

		r = sbx_netpolicy_narrows(parent->net, &parent->netpol, req->net,
		                          req->netpol ? req->netpol : &empty, err);
		if (r < 0)
			return r;
	}
	r = sbx_spec_set_str(&child->profile, req->profile ? req->profile : parent->profile, err);
	if (r < 0)
		return r;
	child->depth = parent->depth + 1;
	child->backend = parent->backend;
	child->net = req->net_given ? req->net : parent->net;
	if (child->net >= SBX_NET_ALLOW) {
		r = sbx_netpolicy_copy(
		    &child->netpol, req->net_given && req->netpol ? req->netpol : &parent->netpol,
		    err);
		if (r < 0)
			return r;
	}
	child->nesting = parent->nesting && !req->no_nesting;
	child->landlocked = parent->landlocked;
	/* the parent's domains hold its scopes for every process beneath it */
	child->scoped = parent->scoped;
	child->parent_unknown = parent->parent_unknown;

	/* System mounts stay, read-only, so that the sub-worker can run programs. */
	for (size_t i = 0; !req->no_system && i < parent->n_mounts; i++) {
		const struct sbx_nest_mount *e = &parent->mounts[i];

		if (!(e->flags & SBX_NEST_F_SYSTEM))
			continue;
		r = sbx_nest_put(child, e->target, e->kind, e->rights & ~SBX_OP_MODIFY, e->flags,
		                 err);
		if (r < 0)
			return r;
	}
	if (req->n_grants == 0) {
		/* Inherit by default. */
		for (size_t i = 0; i < parent->n_mounts; i++) {
			const struct sbx_nest_mount *e = &parent->mounts[i];

			if (e->flags & SBX_NEST_F_SYSTEM)
				continue;
			r = sbx_nest_put(child, e->target, e->kind, e->rights, e->flags, err);
			if (r < 0)
				return r;
		}
	} else {
		/* Shallow grants first, so that a deeper one decides beneath itself
		 * (--allow-read /a --allow-write /a/out). */
		order = calloc(req->n_grants, sizeof(*order));
		if (!order)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		for (size_t i = 0; i < req->n_grants; i++)
			order[i] = &req->grants[i];
		qsort(order, req->n_grants, sizeof(*order), cmp_grants);
		for (size_t i = 0; i < req->n_grants; i++) {
			r = apply_grant(parent, order[i], child, err);
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; i < req->n_hide; i++) {
		char norm[SBX_PATH_MAX];

		r = sbx_path_normalize(req->hide[i], norm, sizeof(norm), err);
		if (r < 0)
			return r;
		if (sbx_nest_lookup(child, norm) &&
		    (r = sbx_nest_put(child, norm, SBX_NEST_HIDDEN, 0, 0, err)) < 0)
			return r;
	}
	/* A mount of the parent the child does not keep, beneath one it keeps (a system mount
	 * under a kept root with --no-system-mounts, say), must not fall back to the rights of
	 * the one above it: it is hidden. (The kernel would show the parent's mount there, as
	 * the bind of its ancestor carries it; the child's spec says less, and masks it.) */
	for (size_t i = 0; i < parent->n_mounts; i++) {
		const struct sbx_nest_mount *e = &parent->mounts[i];
		bool found;

		/* a rule entry the child does not keep falls back to the rights above it, which a
		 * rule never exceeds (it only adds) */
		if (e->kind == SBX_NEST_RULE)
			continue;
		sbx_nest_find_slot(child, e->target, &found);
		if (!found && sbx_nest_rights(child, e->target) &&
		    (r = sbx_nest_put(child, e->target, SBX_NEST_HIDDEN, 0, 0, err)) < 0)
			return r;
	}
	if (req->readonly)
		for (size_t i = 0; i < child->n_mounts; i++)
			child->mounts[i].rights &= ~SBX_OP_MODIFY;
	r = sbx_nest_check(child, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(child);
	return 0;
}
