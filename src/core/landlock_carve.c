/* SPDX-License-Identifier: MIT */
/*
 * Carving (sbx_ll_expand, landlock backend): a grant above a hidden path is replaced by a
 * rule per sibling down the chain of directories that leads to it, so the hidden path gets
 * less than the grant (pure; the host's directories are listed through a callback).
 */
#include "sbx/landlock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/policy.h"

#include "landlock_priv.h"

/* ---- carving around the paths beneath a grant that must have less (landlock backend) ---- */

/* Rights that cannot reach a hidden path from a directory above it: listing and making
 * entries, where the hidden path is an existing file (a new entry can never be it; a rule on
 * a directory lists only directories). Nothing where it is a directory, or unknown. */
#define CARVE_KEEP_OVER_FILE (SBX_LL_FS_READ_DIR | FS_MAKE)

struct carve {
	struct sbx_ll_plan *p;
	const struct sbx_ll_host *host;
	size_t n_orig, max, added, wanted;
	const size_t *own;       /* the original rules strictly beneath the carved one */
	const uint64_t *contrib; /* what each may let through from a directory above it */
	size_t n_own;
	const char *top; /* the carved rule's path */
	uint64_t full;
	struct sbx_error *err;
};

__attribute__((format(printf, 3, 4))) static int
plan_note(struct sbx_ll_plan *p, struct sbx_error *err, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sbx_ll_note(p, buf, err);
}

static const char *rel_of(const char *top, const char *path)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return path + 1;
	return path[n] == '/' ? path + n + 1 : path + n;
}

/* What a directory on a chain may keep: the rights that reach none of the paths beneath it
 * that must have less. */
static uint64_t chain_keep(const struct carve *c, const char *dir)
{
	uint64_t keep = c->full;

	for (size_t i = 0; i < c->n_own; i++)
		if (strcmp(c->p->rules[c->own[i]].path, dir) != 0 &&
		    sbx_path_covers(dir, c->p->rules[c->own[i]].path))
			keep &= c->contrib[i];
	return keep;
}

static int carve_add(struct carve *c, const char *path, uint64_t access, const char *why)
{
	struct sbx_ll_rule *grown;

	if (access == 0)
		return 0;
	c->wanted++;
	if (c->p->n_rules >= c->max)
		return 0; /* counted: past the cap, the whole carving is refused below */
	grown = realloc(c->p->rules, (c->p->n_rules + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(c->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	c->p->rules = grown;
	grown[c->p->n_rules] = (struct sbx_ll_rule){
	    .path = strdup(path),
	    .access = access,
	    .full = access,
	    .ops = sbx_ll_ops_from_fs(access) | SBX_OP_STAT,
	    .why = why,
	    .base_len = strlen(c->top),
	};
	if (!grown[c->p->n_rules].path)
		return sbx_error_set(c->err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	c->p->n_rules++;
	c->added++;
	return 0;
}

static int carve_dir(struct carve *c, const char *dir, unsigned depth)
{
	struct sbx_ll_entry *e = NULL;
	char path[SBX_PATH_MAX];
	long n;
	int r = 0;

	if (depth > SBX_PATH_MAX / 2)
		return 0;
	n = c->host->list(c->host->ctx, c->top, rel_of(c->top, dir), c->max + 1, &e);
	if (n < 0) {
		free(e);
		return 0; /* nothing readable there: nothing to give back (stricter) */
	}
	if ((size_t)n > c->max) {
		c->wanted += (size_t)n - c->max; /* counted, not listed */
		n = (long)c->max;
	}
	for (long i = 0; r >= 0 && i < n; i++) {
		bool own = false, above = false;

		if (snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", e[i].name) >=
		    (int)sizeof(path))
			continue; /* no path that long can be opened: stricter */
		for (size_t k = 0; k < c->n_own; k++) {
			const char *o = c->p->rules[c->own[k]].path;

			if (strcmp(o, path) == 0)
				own = true;
			else if (sbx_path_covers(path, o))
				above = true;
		}
		/* A symlink gets no rule and is never followed: what it names is decided
		 * where that lies. */
		if (own || e[i].kind == SBX_LL_LINK)
			continue;
		if (above) {
			if (e[i].kind != SBX_LL_DIR)
				continue;
			r = carve_add(c, path, chain_keep(c, path),
			              "carved: on the way to a hidden path");
			if (r >= 0)
				r = carve_dir(c, path, depth + 1);
			continue;
		}
		r = carve_add(c, path,
		              e[i].kind == SBX_LL_FILE ? c->full & SBX_LL_FS_FILE : c->full,
		              "carved: its own rights, beside a hidden path");
		if (r >= 0 && c->added && c->p->n_rules &&
		    strcmp(c->p->rules[c->p->n_rules - 1].path, path) == 0)
			c->p->rules[c->p->n_rules - 1].beside = true;
	}
	free(e);
	return r;
}

static size_t depth_of(const char *path)
{
	size_t d = 0;

	for (; *path; path++)
		d += *path == '/';
	return d;
}

/*
 * A hidden path with a symbolic link on the way is refused, as the namespaces backend
 * refuses to mask through one (Landlock decides on what a path resolves to). A hidden link
 * itself is kept from being read through by hiding what it leads to as well (sbx run,
 * hide_link_targets), before the plan is made.
 */
static int hidden_links(struct sbx_ll_plan *p, const struct sbx_ll_host *host,
                        struct sbx_error *err)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		int r;

		if (!p->rules[i].hidden || p->rules[i].path[0] != '/' ||
		    host->kind(host->ctx, "/", p->rules[i].path + 1) != SBX_LL_VIA_LINK)
			continue;
		r = sbx_error_set(err, SBX_ERR_USAGE, ELOOP,
		                  "the hidden path %s passes through a symbolic link",
		                  p->rules[i].path);
		sbx_error_hint(err, "sbx never follows a link the worker could have planted: hide "
		                    "the real path, or remove the link");
		return r;
	}
	return 0;
}

int sbx_ll_expand(struct sbx_ll_plan *p, const struct sbx_ll_host *host, size_t max_rules,
                  struct sbx_error *err)
{
	size_t n_orig = p->n_rules, total = 0;
	_cleanup_free_ size_t *order = NULL, *own = NULL;
	_cleanup_free_ uint64_t *contrib = NULL;
	char a[256], b[256];
	int r;

	if (p->n_rules == 0)
		return 0;
	r = hidden_links(p, host, err);
	if (r < 0)
		return r;
	n_orig = p->n_rules;
	order = calloc(n_orig, sizeof(*order));
	own = calloc(n_orig, sizeof(*own));
	contrib = calloc(n_orig, sizeof(*contrib));
	if (!order || !own || !contrib)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	/* Deepest first: a rule carved beneath another has its final rights before the one
	 * above counts them. */
	for (size_t i = 0; i < n_orig; i++)
		order[i] = i;
	for (size_t i = 1; i < n_orig; i++)
		for (size_t j = i; j > 0 && depth_of(p->rules[order[j]].path) >
		                                depth_of(p->rules[order[j - 1]].path);
		     j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}

	for (size_t oi = 0; oi < n_orig; oi++) {
		struct sbx_ll_rule *t = &p->rules[order[oi]];
		struct carve c = {.p = p,
		                  .host = host,
		                  .n_orig = n_orig,
		                  .max = max_rules,
		                  .own = own,
		                  .contrib = contrib,
		                  .top = t->path,
		                  .full = t->full,
		                  .err = err};
		bool hidden_beneath = false;
		uint64_t keep;

		if (t->hidden || t->full == t->access)
			continue;
		for (size_t k = 0; k < n_orig; k++) {
			const struct sbx_ll_rule *o = &p->rules[k];

			if (k == order[oi] || strcmp(o->path, t->path) == 0 ||
			    !sbx_path_covers(t->path, o->path))
				continue;
			if (o->hidden) {
				enum sbx_ll_kind kind =
				    host->kind(host->ctx, t->path, rel_of(t->path, o->path));

				/* Found by the walk a moment ago, absent now: another process
				 * moves the folders above it, and could move it back after the
				 * carving. Refused, never skipped. */
				if (kind != SBX_LL_DIR && kind != SBX_LL_FILE &&
				    kind != SBX_LL_LINK && o->found) {
					r = sbx_error_set(err, SBX_ERR_SETUP, ENOENT,
					                  "%s, which a hide glob matched at this "
					                  "launch, was moved or "
					                  "removed before it could be denied",
					                  o->path);
					sbx_error_hint(
					    err, "another process changes the folders above it "
					         "(a sandbox running beside this one?); run "
					         "again once it has stopped");
					return r;
				}
				/* Absent now: nothing to carve around (as a mask, which needs
				 * something to cover; see sbx-profile(5)). */
				if (kind == SBX_LL_ABSENT)
					continue;
				p->rules[k].present = true;
				contrib[c.n_own] = kind == SBX_LL_FILE || kind == SBX_LL_LINK
				                       ? CARVE_KEEP_OVER_FILE
				                       : 0;
				hidden_beneath = true;
			} else {
				contrib[c.n_own] = o->access;
			}
			own[c.n_own++] = k;
		}
		keep = chain_keep(&c, t->path);
		t->access = keep;
		t->ops = sbx_ll_ops_from_fs(keep) | SBX_OP_STAT;
		if (keep == t->full)
			continue; /* what took rights away is not there: nothing to carve */
		r = carve_dir(&c, t->path, 0);
		if (r < 0)
			return r;
		total += c.wanted;
		/* p->rules may have moved: t is stale from here. */
		if (total + n_orig > max_rules) {
			r = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, E2BIG,
			    "the landlock backend needs at least %zu Landlock rules to "
			    "carve around the paths beneath %s that must have less "
			    "(hidden paths, private tmpfs, subtree rules); the cap is %zu",
			    total + n_orig, p->rules[order[oi]].path, max_rules);
			sbx_error_hint(
			    err, "hide a whole directory rather than files in a large one, "
			         "mount a smaller directory (-v DIR), or run with the "
			         "namespaces backend, which masks instead (see 'sbx doctor')");
			return r;
		}
		r = plan_note(p, err,
		              "%s: stricter: carved into %zu rules around what beneath it must "
		              "have less (%s); entries created later directly in it or in a "
		              "directory on the way get only %s (no %s)",
		              p->rules[order[oi]].path, c.added,
		              hidden_beneath ? "hidden paths are denied, not masked"
		                             : "rules over part of it",
		              sbx_ll_fs_format(keep, a, sizeof(a)),
		              sbx_ll_fs_format(p->rules[order[oi]].full & ~keep, b, sizeof(b)));
		if (r < 0)
			return r;
	}
	return 0;
}
