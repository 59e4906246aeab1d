/* SPDX-License-Identifier: MIT */
#include "sbx/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/identity.h"
#include "sbx/nest.h"
#include "sbx/net.h"
#include "sbx/path.h"
#include "sbx/policy.h"

#define SBX_STR_(x) #x
#define SBX_STR(x)  SBX_STR_(x)

/*
 * What "the system mounts" are (docs/design.md, The model). Directories are mounted read-only at
 * their own paths; a top-level symlink (merged /usr: /bin -> usr/bin) is kept as a symlink; an /etc
 * entry that is a symlink (resolv.conf -> /run/...) is followed, since it is the host
 * administrator's and its target usually lies outside the sandbox.
 */
const struct sbx_system_candidate sbx_system_candidates[] = {
    {"/usr", false},
    {"/bin", false},
    {"/sbin", false},
    {"/lib", false},
    {"/lib32", false},
    {"/lib64", false},
    {"/libx32", false},
    {"/nix/store", false},
    {"/run/current-system", false},
    {"/etc/ld.so.cache", true},
    {"/etc/ld.so.conf", true},
    {"/etc/ld.so.conf.d", true},
    {"/etc/passwd", true},
    {"/etc/group", true},
    {"/etc/nsswitch.conf", true},
    {"/etc/hosts", true},
    {"/etc/host.conf", true},
    {"/etc/resolv.conf", true},
    {"/etc/gai.conf", true},
    {"/etc/services", true},
    {"/etc/protocols", true},
    {"/etc/localtime", true},
    {"/etc/timezone", true},
    {"/etc/ssl", true},
    {"/etc/ca-certificates", true},
    {"/etc/ca-certificates.conf", true},
    {"/etc/pki", true},
    {"/etc/crypto-policies", true},
    {"/etc/alternatives", true},
    /* git's system-wide config and attributes: where one exists, git refuses to run if it
     * cannot read it (the landlock backend denied it: EACCES, "fatal: unknown error") */
    {"/etc/gitconfig", true},
    {"/etc/gitattributes", true},
};
const size_t sbx_n_system_candidates = SBX_ARRAY_SIZE(sbx_system_candidates);

/* Parts of procfs that a process without capabilities can still misuse or read kernel state
 * from, after Docker's defaults: masked, or made read-only. */
static const char *const proc_masked[] = {
    "/proc/acpi",        "/proc/asound",        "/proc/kcore",      "/proc/keys",
    "/proc/kmsg",        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
    "/proc/sched_debug", "/proc/scsi",          "/proc/config.gz",
};
static const char *const proc_readonly[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

/* The minimal /dev of docs/design.md, The model: host nodes bound in, the rest made here. */
static const char *const dev_nodes[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
};
static const struct {
	const char *target, *text;
} dev_links[] = {
    {"/dev/ptmx", "pts/ptmx"},          {"/dev/fd", "/proc/self/fd"},
    {"/dev/stdin", "/proc/self/fd/0"},  {"/dev/stdout", "/proc/self/fd/1"},
    {"/dev/stderr", "/proc/self/fd/2"},
};

/* Environment variables that pass from the caller (docs/design.md, Enforcement order). LC_* is a
 * prefix. */
static const char *const env_allow[] = {"PATH", "HOME", "TERM", "LANG", "TZ", "USER"};
static const char default_path[] = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

const char *sbx_plan_kind_name(enum sbx_plan_kind kind)
{
	switch (kind) {
	case SBX_PLAN_MIRROR:
		return "mirror";
	case SBX_PLAN_BIND:
		return "bind";
	case SBX_PLAN_TMPFS:
		return "tmpfs";
	case SBX_PLAN_SYMLINK:
		return "symlink";
	case SBX_PLAN_PROC:
		return "proc";
	case SBX_PLAN_DEVPTS:
		return "devpts";
	case SBX_PLAN_MASK:
		return "mask";
	case SBX_PLAN_REBIND_RO:
		return "rebind-ro";
	case SBX_PLAN_SEAL:
		return "seal";
	case SBX_PLAN_NEST_PROC:
		return "nest-proc";
	}
	return "?";
}

void sbx_plan_free(struct sbx_plan *plan)
{
	if (!plan)
		return;
	sbx_netpolicy_clear(&plan->netpol);
	for (size_t i = 0; i < plan->n_ops; i++) {
		free(plan->ops[i].source);
		free(plan->ops[i].target);
	}
	free(plan->ops);
	sbx_ll_plan_clear(&plan->landlock);
	for (size_t i = 0; i < plan->n_env; i++)
		free(plan->envp[i]);
	free(plan->envp);
	free(plan->cwd);
	free(plan->user_name);
	free(plan->caller_name);
	free(plan->etc_passwd);
	free(plan->etc_group);
	free(plan->etc_resolv);
	free(plan->profile);
	free(plan->spec_blob);
	sbx_seccomp_conf_clear(&plan->seccomp);
	sbx_seccomp_rules_clear(&plan->seccomp_rules);
	for (size_t i = 0; i < plan->n_limits; i++)
		free(plan->limits[i]);
	free(plan->limits);
	sbx_sup_plan_clear(&plan->sup);
	free(plan);
}

void sbx_plan_prune_guards(struct sbx_plan *plan, bool (*bindable)(void *ctx, const char *source),
                           void *ctx)
{
	size_t k = 0;

	for (size_t i = 0; i < plan->n_ops; i++) {
		struct sbx_plan_op *o = &plan->ops[i];

		if ((o->flags & SBX_PLAN_F_GUARD) && !bindable(ctx, o->source)) {
			free(o->source);
			free(o->target);
			continue;
		}
		plan->ops[k++] = *o;
	}
	plan->n_ops = k;
}

int sbx_plan_resolve_seccomp(struct sbx_plan *plan, struct sbx_error *err)
{
	struct sbx_seccomp_rules rules;
	int r = sbx_seccomp_resolve(&plan->seccomp, &rules, err);

	if (r < 0)
		return r;
	sbx_seccomp_rules_clear(&plan->seccomp_rules);
	plan->seccomp_rules = rules;
	return 0;
}

int sbx_plan_add_limit(struct sbx_plan *plan, const char *line, struct sbx_error *err)
{
	char **grown;

	for (size_t i = 0; i < plan->n_limits; i++)
		if (strcmp(plan->limits[i], line) == 0)
			return 0;
	grown = realloc(plan->limits, (plan->n_limits + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	plan->limits = grown;
	grown[plan->n_limits] = strdup(line);
	if (!grown[plan->n_limits])
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	plan->n_limits++;
	return 0;
}

const struct sbx_plan_op *sbx_plan_guarded_by(const struct sbx_plan *plan, const char *path)
{
	const struct sbx_plan_op *best = NULL;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if (o->kind == SBX_PLAN_SEAL || (o->flags & SBX_PLAN_F_GUARD) ||
		    !sbx_path_covers(o->target, path))
			continue;
		if (!best || strlen(o->target) >= strlen(best->target))
			best = o;
	}
	if (best && best->kind != SBX_PLAN_BIND && best->kind != SBX_PLAN_MIRROR)
		return NULL;
	return best;
}

struct builder {
	struct sbx_plan *plan;
	size_t cap;
};

static int add_op(struct builder *b, enum sbx_plan_kind kind, unsigned flags, const char *source,
                  const char *target, unsigned mode, const char *why, struct sbx_error *err)
{
	struct sbx_plan *p = b->plan;
	struct sbx_plan_op *op;

	if (p->n_ops == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		struct sbx_plan_op *ops = realloc(p->ops, cap * sizeof(*ops));

		if (!ops)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		p->ops = ops;
		b->cap = cap;
	}
	op = &p->ops[p->n_ops];
	*op = (struct sbx_plan_op){.kind = kind, .flags = flags, .mode = mode, .why = why};
	op->target = strdup(target);
	if (source)
		op->source = strdup(source);
	if (!op->target || (source && !op->source)) {
		free(op->target);
		free(op->source);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	p->n_ops++;
	return 0;
}

static bool covered_by_spec(const struct sbx_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->n_mounts; i++)
		if (sbx_path_covers(spec->mounts[i].target, path))
			return true;
	return false;
}

/* A stable sort of the operations: parents before children, so that a deeper target is
 * mounted on top of a shallower one (the longest target wins), SEAL operations last, and
 * equal depths in the order they were added. qsort is not stable, hence the index key. */
struct sort_key {
	size_t depth, index;
	int seal;
};

static int cmp_keys(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;

	if (x->seal != y->seal)
		return x->seal - y->seal;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->index < y->index ? -1 : (x->index > y->index);
}

static int sort_ops(struct sbx_plan *p, struct sbx_error *err)
{
	_cleanup_free_ struct sort_key *keys = NULL;
	_cleanup_free_ struct sbx_plan_op *sorted = NULL;

	if (p->n_ops == 0)
		return 0;
	keys = calloc(p->n_ops, sizeof(*keys));
	sorted = calloc(p->n_ops, sizeof(*sorted));
	if (!keys || !sorted)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n_ops; i++)
		keys[i] = (struct sort_key){sbx_path_depth(p->ops[i].target), i,
		                            p->ops[i].kind == SBX_PLAN_SEAL};
	qsort(keys, p->n_ops, sizeof(*keys), cmp_keys);
	for (size_t i = 0; i < p->n_ops; i++)
		sorted[i] = p->ops[keys[i].index];
	memcpy(p->ops, sorted, p->n_ops * sizeof(*sorted));
	return 0;
}

/* The generated file for a system mount's path (SBX_PLAN_F_DATA), or NULL. */
static const char *data_for(const struct sbx_plan *p, const char *path)
{
	if (strcmp(path, "/etc/passwd") == 0)
		return p->etc_passwd;
	if (strcmp(path, "/etc/group") == 0)
		return p->etc_group;
	if (strcmp(path, "/etc/resolv.conf") == 0)
		return p->etc_resolv;
	return NULL;
}

/* sbx_plan.resolv_overlay: sbx's resolver, and no file at /etc/resolv.conf that the plan
 * writes (SBX_PLAN_F_DATA), hides, or that a mount the user named puts there. */
static bool resolv_overlay(const struct sbx_plan *p, const struct sbx_spec *spec)
{
	static const char path[] = "/etc/resolv.conf";

	if (spec->net == SBX_NET_HOST)
		return false;
	for (size_t i = 0; i < p->n_ops; i++) {
		const struct sbx_plan_op *o = &p->ops[i];

		if (o->kind == SBX_PLAN_MASK && sbx_path_covers(o->target, path))
			return false;
		if (strcmp(o->target, path) == 0 &&
		    ((o->flags & SBX_PLAN_F_DATA) || !(o->flags & SBX_PLAN_F_SYSTEM)))
			return false;
	}
	return true;
}

static int add_system_mounts(struct builder *b, const struct sbx_spec *spec,
                             const struct sbx_host *host, struct sbx_error *err)
{
	for (size_t i = 0; i < host->n_entries; i++) {
		const struct sbx_host_entry *e = &host->entries[i];
		bool follow = false, self = true; /* an entry no candidate names: sbx itself */
		int r;

		for (size_t c = 0; c < sbx_n_system_candidates; c++)
			if (strcmp(sbx_system_candidates[c].path, e->path) == 0) {
				follow = sbx_system_candidates[c].follow;
				self = false;
			}
		/* A mount the user named wins over a system mount at or above its path. */
		if (e->kind == SBX_HOST_ABSENT || covered_by_spec(spec, e->path))
			continue;
		if (e->kind == SBX_HOST_SYMLINK && !follow)
			r = add_op(b, SBX_PLAN_SYMLINK, SBX_PLAN_F_SYSTEM, e->link, e->path, 0,
			           "system (symlink kept)", err);
		else if (data_for(b->plan, e->path))
			/* the host's entries plus the worker's (src/core/identity.c), in a file
			 * of sbx's own: the host's file is never written */
			r = add_op(b, SBX_PLAN_BIND,
			           SBX_PLAN_F_READONLY | SBX_PLAN_F_SYSTEM | SBX_PLAN_F_FOLLOW |
			               SBX_PLAN_F_DATA,
			           e->path, e->path, 0,
			           strcmp(e->path, "/etc/resolv.conf") == 0
			               ? "system, naming sbx's resolver"
			               : "system, with the worker's name added",
			           err);
		else
			/* Never id-mapped: as root, an id-mapped system mount would make the
			 * worker the owner of root's files there (a 0600 key under /etc/ssl
			 * included). Unmapped, they read as the overflow id, by their "other"
			 * bits, as in an ordinary user's sandbox. */
			r = add_op(b, SBX_PLAN_BIND,
			           SBX_PLAN_F_READONLY | SBX_PLAN_F_SYSTEM |
			               (follow ? SBX_PLAN_F_FOLLOW : 0) |
			               (self ? SBX_PLAN_F_SELF : 0),
			           e->path, e->path, 0,
			           self ? "system: sbx itself, for sub-workers" : "system", err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_spec_mounts(struct builder *b, const struct sbx_spec *spec, struct sbx_error *err)
{
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];
		unsigned flags = (m->readonly ? SBX_PLAN_F_READONLY : 0) |
		                 (m->optional ? SBX_PLAN_F_OPTIONAL : 0) |
		                 (m->noexec ? SBX_PLAN_F_NOEXEC : 0);
		const char *why =
		    m->origin == SBX_ORIGIN_DEFAULT   ? "workspace (default profile)"
		    : m->origin == SBX_ORIGIN_PROFILE ? "profile"
		    : m->origin == SBX_ORIGIN_HOME
		        ? (m->kind == SBX_MOUNT_TMPFS ? "home (a private tmpfs)" : "home")
		        : "flag";
		int r;

		if (sbx_path_covers("/proc", m->target) || strcmp(m->target, "/dev") == 0) {
			r = sbx_error_set(
			    err, SBX_ERR_USAGE, EINVAL,
			    "mount target '%s' is reserved: sbx builds /proc and /dev "
			    "itself",
			    m->target);
			sbx_error_hint(err, "use --device PATH to add a device node under /dev");
			return r;
		}
		switch (m->kind) {
		case SBX_MOUNT_BIND:
			if (b->plan->idmap_binds)
				flags |= SBX_PLAN_F_IDMAP;
			r = add_op(b, SBX_PLAN_BIND, flags, m->source, m->target, 0, why, err);
			break;
		case SBX_MOUNT_TMPFS:
			/* the home is the worker's own (mode 0700), every other tmpfs is /tmp's
			 * kind (sticky, anyone's) */
			r = m->origin == SBX_ORIGIN_HOME
			        ? add_op(b, SBX_PLAN_TMPFS, flags | SBX_PLAN_F_OWNER, NULL,
			                 m->target, 0700, why, err)
			        : add_op(b, SBX_PLAN_TMPFS, flags, NULL, m->target, 01777, why,
			                 err);
			if (r >= 0)
				b->plan->ops[b->plan->n_ops - 1].size = m->size;
			if (r >= 0 && m->readonly)
				r = add_op(b, SBX_PLAN_SEAL, 0, NULL, m->target, 0,
				           "read-only tmpfs", err);
			break;
		case SBX_MOUNT_DEVICE:
			r = add_op(b, SBX_PLAN_BIND, flags | SBX_PLAN_F_DEVICE, m->source,
			           m->target, 0, "device", err);
			break;
		default:
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "unknown mount kind");
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static bool hidden_at_or_above(const struct sbx_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->n_hide; i++)
		if (sbx_path_covers(spec->hide[i], path))
			return true;
	return false;
}

/*
 * Guards (spec.h): each bound onto itself beneath the bind that shows it, with that mount's
 * flags and its own, after the spec's mounts (a deeper mount of the spec is mounted on top of
 * it) and before the masks (a hidden path stays hidden). Nothing where no bind shows the path
 * (a tmpfs, /proc, nothing at all), where it is hidden, where a mount of the spec sits
 * already (the user's choice wins), or where the mount's flags hold already what the guard
 * adds in a read-only mount (nothing can be renamed there anyway).
 */
static int add_guards(struct builder *b, const struct sbx_spec *spec, struct sbx_error *err)
{
	for (size_t i = 0; i < spec->n_guards; i++) {
		const struct sbx_guard *g = &spec->guards[i];
		const struct sbx_plan_op *cov;
		char source[SBX_PATH_MAX];
		const char *rest;
		unsigned flags, add;
		int n, r;

		if (hidden_at_or_above(spec, g->path))
			continue;
		cov = sbx_plan_guarded_by(b->plan, g->path);
		if (!cov || (cov->flags & SBX_PLAN_F_DEVICE) || strcmp(cov->target, g->path) == 0)
			continue;
		flags = cov->flags & (SBX_PLAN_F_READONLY | SBX_PLAN_F_NOEXEC | SBX_PLAN_F_IDMAP);
		add = (g->readonly ? SBX_PLAN_F_READONLY : 0) | (g->noexec ? SBX_PLAN_F_NOEXEC : 0);
		if ((flags & SBX_PLAN_F_READONLY) && (add & ~flags) == 0)
			continue;
		rest = sbx_path_rest(cov->target, g->path);
		n = snprintf(source, sizeof(source), "%s%s%s", cov->source,
		             strcmp(cov->source, "/") ? "/" : "", rest);
		if (n < 0 || (size_t)n >= sizeof(source))
			continue; /* no such path can be opened */
		r = add_op(b, SBX_PLAN_BIND, flags | add | SBX_PLAN_F_GUARD, source, g->path, 0,
		           g->why, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Hidden paths (profile `hide:` and policy rules compiled to masks, src/core/policy.c):
 * one MASK per path, applied after the mounts it lies in (it is deeper, or at the same depth
 * and added later), so the worker sees an empty read-only file or directory there. A path
 * that no mount makes visible needs no mask: it does not exist inside.
 */
static bool masked_at(const struct sbx_plan *plan, const char *target)
{
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_MASK && strcmp(plan->ops[i].target, target) == 0)
			return true;
	return false;
}

/* Every other view of the host file behind hidden path `path`: a bind (or a --root) whose
 * source covers it shows it at that mount's target + the rest (`-v WS:/app` shows
 * WS/.env at /app/.env; `--root WS` at /.env). The hidden path names a host path where the
 * workspace is at its own path (`${WORKSPACE}/.env`), and also the host path the mount that
 * shows it stands for: both are followed. Each view gets a mask of its own. */
static int mask_other_views(struct builder *b, const struct sbx_spec *spec, const char *path,
                            struct sbx_error *err)
{
	char host[2][SBX_PATH_MAX];
	size_t n_host = 0;
	const struct sbx_plan_op *shows = NULL;

	snprintf(host[n_host++], SBX_PATH_MAX, "%s", path);
	for (size_t j = 0; j < b->plan->n_ops; j++) {
		const struct sbx_plan_op *o = &b->plan->ops[j];

		if ((o->kind == SBX_PLAN_BIND || o->kind == SBX_PLAN_MIRROR) && o->source &&
		    sbx_path_covers(o->target, path) &&
		    (!shows || strlen(o->target) >= strlen(shows->target)))
			shows = o;
	}
	if (shows) {
		const char *rest = sbx_path_rest(shows->target, path);
		int n = snprintf(host[n_host], SBX_PATH_MAX, "%s%s%s", shows->source,
		                 *rest && strcmp(shows->source, "/") ? "/" : "", rest);

		if (n > 0 && n < SBX_PATH_MAX && strcmp(host[n_host], path) != 0)
			n_host++;
	}
	for (size_t h = 0; h < n_host; h++) {
		for (size_t j = 0; j < b->plan->n_ops; j++) {
			const struct sbx_plan_op *o = &b->plan->ops[j];
			char view[SBX_PATH_MAX];
			const char *rest;
			int n, r;

			if ((o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_MIRROR) ||
			    !o->source || (o->flags & SBX_PLAN_F_SYSTEM) ||
			    !sbx_path_covers(o->source, host[h]))
				continue;
			rest = sbx_path_rest(o->source, host[h]);
			n = snprintf(view, sizeof(view), "%s%s%s", o->target,
			             *rest && strcmp(o->target, "/") ? "/" : "", rest);
			if (n < 0 || (size_t)n >= sizeof(view) || strcmp(view, path) == 0 ||
			    masked_at(b->plan, view) || hidden_at_or_above(spec, view))
				continue;
			r = add_op(b, SBX_PLAN_MASK, SBX_PLAN_F_READONLY, NULL, view, 0,
			           "hide (another view of it)", err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * Whether the folders above hidden path k are pinned (bound onto themselves, so that the
 * worker cannot rename them: EBUSY). A path is hidden by its name: a folder above it renamed
 * in one run (`mv config cfg` for config/x.key) would leave it unhidden in the next, where
 * the landlock backend's carving refuses such a rename. Not where a glob matches it by its
 * last name anywhere beneath the mount it lies in (a ** folder, then .env, as every glob of
 * the shipped profiles): wherever its folders go, it is matched again, and no mount is spent.
 */
static bool hide_needs_pin(const struct sbx_spec *spec, size_t k)
{
	const char *path = spec->hide[k];
	const char *name = strrchr(path, '/') + 1;
	const char *root = "/";
	bool matched = false;

	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];

		if (m->kind == SBX_MOUNT_BIND && sbx_path_covers(m->target, path) &&
		    strlen(m->target) > strlen(root))
			root = m->target;
	}
	for (size_t i = 0; i < spec->n_hide_globs; i++) {
		const char *g = spec->hide_globs[i];
		const char *last = strrchr(g, '/');
		char lit[SBX_PATH_MAX], pre[SBX_PATH_MAX];
		size_t n;

		if (sbx_glob_match(g, path))
			matched = true;
		if (!last || last - g < 3 || strncmp(last - 3, "/**", 3) != 0 ||
		    !sbx_glob_match(last + 1, name))
			continue;
		n = (size_t)(last - 3 - g);
		if (n >= sizeof(pre))
			continue;
		memcpy(pre, g, n);
		pre[n] = '\0';
		if (!n)
			snprintf(pre, sizeof(pre), "/");
		if (sbx_glob_unquote(pre, lit, sizeof(lit)) && sbx_path_covers(lit, root) &&
		    sbx_path_covers(lit, path))
			return false;
	}
	/* a folder the walk hid whole (no glob names it): walked again next time */
	return matched || !spec->hide_walked || !spec->hide_walked[k];
}

static int add_hide_masks(struct builder *b, const struct sbx_spec *spec, struct sbx_error *err)
{
	for (size_t i = 0; i < spec->n_hide; i++) {
		int r = mask_other_views(b, spec, spec->hide[i], err);

		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < spec->n_hide; i++) {
		const char *path = spec->hide[i];
		bool visible = spec->root != NULL || covered_by_spec(spec, path);
		bool pin = false;
		int r;

		bool own = false;

		for (size_t j = 0; j < spec->n_pin && !own; j++)
			own = strcmp(spec->pin[j], path) == 0;
		pin = own || hide_needs_pin(spec, i);
		for (size_t j = 0; !visible && j < b->plan->n_ops; j++)
			visible = b->plan->ops[j].kind != SBX_PLAN_SEAL &&
			          sbx_path_covers(b->plan->ops[j].target, path);
		if (!visible)
			continue;
		r = add_op(b, SBX_PLAN_MASK,
		           SBX_PLAN_F_READONLY | (pin ? SBX_PLAN_F_PIN : 0) |
		               (spec->hide_walked && spec->hide_walked[i] ? SBX_PLAN_F_FOUND : 0),
		           NULL, path, 0, own ? "sbx's own state" : "hide", err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_proc_dev_tmp(struct builder *b, const struct sbx_spec *spec, struct sbx_error *err)
{
	int r;

	if (!sbx_spec_find_target(spec, "/tmp")) {
		r = add_op(b, SBX_PLAN_TMPFS, 0, NULL, "/tmp", 01777, "private /tmp", err);
		if (r < 0)
			return r;
	}
	r = add_op(b, SBX_PLAN_PROC, 0, NULL, "/proc", 0, "fresh /proc", err);
	for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(proc_readonly); i++)
		r = add_op(b, SBX_PLAN_REBIND_RO, 0, NULL, proc_readonly[i], 0,
		           "kernel settings read-only", err);
	for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(proc_masked); i++)
		r = add_op(b, SBX_PLAN_MASK, 0, NULL, proc_masked[i], 0, "kernel state masked",
		           err);
	if (r < 0)
		return r;

	r = add_op(b, SBX_PLAN_TMPFS, SBX_PLAN_F_NOEXEC, NULL, "/dev", 0755, "minimal /dev", err);
	for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(dev_nodes); i++)
		if (!sbx_spec_find_target(spec, dev_nodes[i]))
			r = add_op(b, SBX_PLAN_BIND, SBX_PLAN_F_DEVICE, dev_nodes[i], dev_nodes[i],
			           0, "minimal /dev", err);
	if (r >= 0)
		r = add_op(b, SBX_PLAN_DEVPTS, 0, NULL, "/dev/pts", 0, "minimal /dev", err);
	if (r >= 0 && !sbx_spec_find_target(spec, "/dev/shm"))
		r = add_op(b, SBX_PLAN_TMPFS, SBX_PLAN_F_NOEXEC, NULL, "/dev/shm", 01777,
		           "minimal /dev", err);
	for (size_t i = 0; r >= 0 && i < SBX_ARRAY_SIZE(dev_links); i++)
		r = add_op(b, SBX_PLAN_SYMLINK, 0, dev_links[i].text, dev_links[i].target, 0,
		           "minimal /dev", err);
	/*
	 * Nesting and /proc. A nested sandbox needs a fresh procfs for its own pid namespace,
	 * and the kernel mounts one in a user namespace only if the mount namespace already
	 * holds a *fully visible* procfs (fs/namespace.c, mount_too_revealing): one whose
	 * locked submounts all sit on permanently empty directories. Our /proc is not, by
	 * design (the masks and read-only rebinds above), and we keep it that way: dropping
	 * the masks would hand every worker /proc/sysrq-trigger and /proc/sys writable to its
	 * namespace root, /proc/keys and the rest. Instead, when the spec allows nesting, a
	 * second procfs of this sandbox's pid namespace (no more than the worker's /proc shows,
	 * nothing of the host's processes) is mounted at SBX_NEST_PROC_DIR/proc and its parent
	 * directory is then masked with an empty read-only directory: no path reaches it, a
	 * nested mount namespace inherits the mask locked (it cannot be unmounted there), and
	 * the kernel, which scans mounts rather than paths, finds it fully visible.
	 */
	if (r >= 0 && spec->nesting)
		r = add_op(b, SBX_PLAN_NEST_PROC, 0, NULL, SBX_NEST_PROC_DIR, 0,
		           "procfs for nested sandboxes, masked", err);
	return r;
}

static bool env_allowed(const char *entry)
{
	size_t n = strcspn(entry, "=");

	if (strncmp(entry, "LC_", 3) == 0)
		return true;
	for (size_t i = 0; i < SBX_ARRAY_SIZE(env_allow); i++)
		if (strlen(env_allow[i]) == n && strncmp(entry, env_allow[i], n) == 0)
			return true;
	return false;
}

static const char *env_lookup(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int env_put(struct sbx_plan *p, size_t *cap, const char *name, const char *value,
                   struct sbx_error *err)
{
	size_t n = strlen(name);
	char *entry;

	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n_env; i++) {
		if (strncmp(p->envp[i], name, n) == 0 && p->envp[i][n] == '=') {
			free(p->envp[i]);
			p->envp[i] = entry;
			return 0;
		}
	}
	if (p->n_env + 2 > *cap) {
		size_t c = *cap ? *cap * 2 : 32;
		char **grown = realloc(p->envp, c * sizeof(*grown));

		if (!grown) {
			free(entry);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		p->envp = grown;
		*cap = c;
	}
	p->envp[p->n_env++] = entry;
	p->envp[p->n_env] = NULL;
	return 0;
}

int sbx_plan_set_env(struct sbx_plan *p, const char *name, const char *value, struct sbx_error *err)
{
	size_t cap = p->n_env + 1; /* as allocated, or less: env_put grows it when full */

	return env_put(p, &cap, name, value, err);
}

const char *sbx_plan_env(const struct sbx_plan *p, const char *name)
{
	return env_lookup(p->envp, name);
}

static int build_env(struct sbx_plan *p, const struct sbx_spec *spec, const struct sbx_host *host,
                     struct sbx_error *err)
{
	size_t cap = 0;
	int r = 0;

	for (char *const *e = host->environ; r >= 0 && e && *e; e++) {
		char name[256];
		size_t n = strcspn(*e, "=");

		if (!env_allowed(*e) || n >= sizeof(name) || (*e)[n] != '=')
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		r = env_put(p, &cap, name, *e + n + 1, err);
	}
	if (r >= 0 && !env_lookup(p->envp, "PATH"))
		r = env_put(p, &cap, "PATH", default_path, err);
	/* the worker's own name, whoever started sbx (root's worker may be SBX_ROOT_NEST_ID) */
	if (r >= 0 && p->user_name)
		r = env_put(p, &cap, "USER", p->user_name, err);
	if (r >= 0 && p->user_name)
		r = env_put(p, &cap, "LOGNAME", p->user_name, err);
	for (size_t i = 0; r >= 0 && i < spec->n_env; i++) {
		const struct sbx_env_entry *e = &spec->env[i];
		const char *v = e->value ? e->value : env_lookup(host->environ, e->name);

		if (v)
			r = env_put(p, &cap, e->name, v, err);
	}
	if (r >= 0)
		r = env_put(p, &cap, "SBX", "1", err);
	/* Last, so no --env can point it elsewhere: the launcher puts the sealed memfd there. */
	if (r >= 0)
		r = env_put(p, &cap, SBX_SPEC_FD_ENV, SBX_STR(SBX_SPEC_FD_NUMBER), err);
	if (r >= 0)
		r = env_put(p, &cap, "SBX_PROFILE", spec->profile ? spec->profile : "default", err);
	if (r >= 0 && !p->envp) /* unreachable in practice: SBX is always set */
		r = sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "empty environment");
	return r;
}

/* Some operation (a tmpfs, /proc, a bind) covers path. */
static bool covered(const struct sbx_plan *p, const char *path)
{
	for (size_t i = 0; i < p->n_ops; i++)
		if (p->ops[i].kind != SBX_PLAN_SEAL && sbx_path_covers(p->ops[i].target, path))
			return true;
	return strcmp(path, "/") == 0; /* the root always is */
}

static int choose_cwd(struct sbx_plan *p, const struct sbx_spec *spec, struct sbx_error *err)
{
	char host[SBX_PATH_MAX];
	const char *cwd = "/";
	size_t op;

	if (spec->chdir) {
		cwd = spec->chdir;
		/* A directory no operation covers does not exist inside: refused now rather
		 * than by the worker's chdir. */
		if (sbx_plan_resolve(p, cwd, &op, host, sizeof(host), NULL) == -ENOENT &&
		    !sbx_plan_is_scaffold_dir(p, cwd) && !covered(p, cwd)) {
			int r = sbx_error_set(err, SBX_ERR_USAGE, ENOENT,
			                      "the working directory %s does not exist inside the "
			                      "sandbox: no mount shows it",
			                      cwd);

			sbx_error_hint(err, "mount it (-v %s) or choose another with -w DIR", cwd);
			return r;
		}
	} else if (spec->workspace &&
	           sbx_plan_resolve(p, spec->workspace, &op, host, sizeof(host), NULL) == 0 &&
	           strcmp(host, spec->workspace) == 0) {
		/* Paths are paths: the workspace is visible at its own path. */
		cwd = spec->workspace;
	} else if (spec->workspace && sbx_plan_is_scaffold_dir(p, spec->workspace)) {
		/* Only parts of it are shown (-v "$PWD/src", a nested --restrict src): it is
		 * still there, a directory of sbx's holding them, and relative paths still mean
		 * what the caller meant. */
		cwd = spec->workspace;
	} else if (spec->workspace) {
		p->cwd_fallback = true;
	}
	p->cwd = strdup(cwd);
	if (!p->cwd)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	return 0;
}

/*
 * The limits, and the sizes of every tmpfs (SPEC section 3: each has one): a tmpfs that names
 * none (the private /tmp, /dev/shm, a private $HOME, a profile's tmpfs: without size:) gets
 * the sandbox's default, which cannot take the machine (sbx_limits_tmpfs_size).
 */
static void plan_resources(struct sbx_plan *p, const struct sbx_spec *spec,
                           const struct sbx_host *host)
{
	uint64_t dflt = sbx_limits_tmpfs_size(&spec->resources, host->mem_total);

	p->resources = spec->resources;
	p->tmpfs_size = dflt;
	p->resources_own = spec->resources.set & ~spec->resources_inherited;
	for (size_t i = 0; i < p->n_ops; i++) {
		if (p->ops[i].kind != SBX_PLAN_TMPFS)
			continue;
		if (!p->ops[i].size)
			p->ops[i].size = dflt;
		/* the private home sizes itself (a quarter of RAM, at most 4 GiB), but never
		 * past what `limits: tmpfs` or the memory limit allow */
		else if ((p->ops[i].flags & SBX_PLAN_F_OWNER) &&
		         (spec->resources.set &
		          (SBX_LIMIT_BIT(SBX_LIMIT_TMPFS) | SBX_LIMIT_BIT(SBX_LIMIT_MEMORY))) &&
		         p->ops[i].size > dflt)
			p->ops[i].size = dflt;
	}
	for (size_t i = 0; i < SBX_N_UCOUNTS; i++)
		p->userns_max[i] = sbx_ucount_share_at(i, host->ucount[i], host->share_rank);
}

/*
 * The worker's name (src/core/identity.c): the host's name for its uid, else one added to a
 * copy of the host's passwd (and group) bound over the host's: as root with nesting the
 * worker is SBX_ROOT_NEST_ID, which no host names; a user the host's files do not list
 * (a directory service sbx cannot reach inside) keeps the name in $USER.
 */
static int make_identity(struct sbx_plan *p, const struct sbx_spec *spec,
                         const struct sbx_host *host, struct sbx_error *err)
{
	const char *user = env_lookup(host->environ, "USER");
	const char *home = spec->home_path ? spec->home_path : env_lookup(host->environ, "HOME");
	int r;

	r = sbx_identity_make(host->passwd, host->group, p->inner_uid, p->inner_gid,
	                      p->inner_uid == host->uid ? user : NULL, home, &p->user_name,
	                      &p->etc_passwd, &p->etc_group, err);
	if (r < 0)
		return r;
	p->caller_name = sbx_identity_lookup(host->passwd, host->uid);
	if (!p->caller_name)
		p->caller_name = strdup(user ? user : p->user_name);
	if (!p->caller_name)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	return 0;
}

int sbx_plan_build(const struct sbx_spec *spec, const struct sbx_host *host, struct sbx_plan **out,
                   struct sbx_error *err)
{
	_cleanup_plan_ struct sbx_plan *p = calloc(1, sizeof(*p));
	struct builder b = {.plan = p};
	int r;

	if (!p)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->profile = strdup(spec->profile ? spec->profile : "default");
	if (!p->profile)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");

	/* seccomp: resolving it here refuses an incoherent configuration (say, clone3 allowed
	 * while namespaces are denied) before anything runs, dry-run included; sbx_plan_finish
	 * resolves it again once the backend has added its own groups. */
	r = sbx_seccomp_conf_copy(&p->seccomp, &spec->seccomp, err);
	if (r < 0)
		return r;
	/* The profile's `nesting` decides whether namespaces and mounts are lifted. */
	p->seccomp.nesting = spec->nesting;
	r = sbx_plan_resolve_seccomp(p, err);
	if (r < 0)
		return r;

	p->new_net = spec->net != SBX_NET_HOST;
	p->net = spec->net;
	/* sbx's resolver answers on the sandbox's loopback: its /etc/resolv.conf names it (a
	 * file of sbx's own, in place of the host's, where the host has one) */
	if (spec->net != SBX_NET_HOST && !(p->etc_resolv = strdup(SBX_NET_RESOLV_CONF)))
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	if (spec->net >= SBX_NET_ALLOW &&
	    (r = sbx_netpolicy_copy(&p->netpol, &spec->netpol, err)) < 0)
		return r;
	p->caller_uid = host->uid;
	p->caller_gid = host->gid;
	p->inner_uid = host->uid;
	p->inner_gid = host->gid;
	p->nested = host->nested;
	if (host->euid == 0 && !host->nested) {
		/* Root: the worker must never be kernel uid 0 (a launcher binary reachable
		 * through /proc/PID/exe must not be writable from inside). Map a whole range
		 * so that ownership inside looks as it does outside, and id-map the binds so
		 * that root's files stay writable where the spec says so. The range is this
		 * sandbox's own where sbx took one (host->root_map_base): per-user pools (pipe
		 * buffers, epoll watches, processes) are not shared with other sandboxes. */
		p->outer_uid = host->root_map_base ? host->root_map_base : SBX_ROOT_MAP_BASE;
		p->outer_gid = p->outer_uid;
		p->inner_uid = 0;
		p->inner_gid = 0;
		p->map_count = SBX_ROOT_MAP_COUNT;
		p->idmap_binds = true;
		/* With nesting, the worker must be able to map itself into a nested user
		 * namespace, which uid 0 cannot without CAP_SETFCAP: it runs as
		 * SBX_ROOT_NEST_ID, and root's files are seen owned by it (plan.h). */
		if (spec->nesting) {
			p->root_swap = true;
			p->inner_uid = SBX_ROOT_NEST_ID;
			p->inner_gid = SBX_ROOT_NEST_ID;
		}
	} else {
		p->outer_uid = host->uid;
		p->outer_gid = host->gid;
		p->map_count = 1;
	}

	r = make_identity(p, spec, host, err);
	if (r < 0)
		return r;
	if (spec->root)
		r = add_op(&b, SBX_PLAN_MIRROR,
		           (spec->readonly || spec->root_readonly ? SBX_PLAN_F_READONLY : 0) |
		               (p->idmap_binds ? SBX_PLAN_F_IDMAP : 0),
		           spec->root, "/", 0, "root", err);
	if (r >= 0 && spec->system_mounts == SBX_SYSMOUNTS_DEFAULT)
		r = add_system_mounts(&b, spec, host, err);
	if (r >= 0)
		r = add_spec_mounts(&b, spec, err);
	if (r >= 0)
		r = add_guards(&b, spec, err);
	if (r >= 0)
		r = add_hide_masks(&b, spec, err);
	if (r >= 0)
		r = add_proc_dev_tmp(&b, spec, err);
	/* Scaffolding is read-only once built: an entry created there would vanish silently. */
	if (r >= 0)
		r = add_op(&b, SBX_PLAN_SEAL, 0, NULL, "/", 0, "scaffold read-only", err);
	if (r >= 0)
		r = add_op(&b, SBX_PLAN_SEAL, 0, NULL, "/dev", 0, "scaffold read-only", err);
	if (r >= 0)
		plan_resources(p, spec, host);
	if (r >= 0)
		r = sort_ops(p, err);
	if (r >= 0)
		p->resolv_overlay = resolv_overlay(p, spec);
	if (r >= 0)
		r = build_env(p, spec, host, err);
	if (r >= 0)
		r = choose_cwd(p, spec, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(p);
	return 0;
}

int sbx_plan_resolve(const struct sbx_plan *plan, const char *path, size_t *op_out, char *host,
                     size_t size, struct sbx_error *err)
{
	char cur[SBX_PATH_MAX];
	int r = sbx_path_normalize(path, cur, sizeof(cur), err);

	if (r < 0)
		return r;
	/* Symlinks the plan makes itself (/bin -> usr/bin) are followed, at most 40 times as
	 * the kernel does; symlinks on the host are the kernel's business at run time. */
	for (int hops = 0; hops < 40; hops++) {
		const struct sbx_plan_op *best = NULL;
		size_t best_i = 0, best_len = 0;

		for (size_t i = 0; i < plan->n_ops; i++) {
			const struct sbx_plan_op *o = &plan->ops[i];
			size_t n = strlen(o->target);

			if (o->kind == SBX_PLAN_SEAL || !sbx_path_covers(o->target, cur))
				continue;
			if (!best || n >= best_len) {
				best = o;
				best_i = i;
				best_len = n;
			}
		}
		if (!best)
			return sbx_error_set(err, SBX_ERR_USAGE, ENOENT,
			                     "%s is not in the sandbox: no mount covers it", cur);
		*op_out = best_i;
		if (best->kind == SBX_PLAN_SYMLINK && strcmp(best->target, cur) != 0) {
			char next[SBX_PATH_MAX * 2];
			const char *rest = sbx_path_rest(best->target, cur);
			int n;

			if (best->source[0] == '/') {
				n = snprintf(next, sizeof(next), "%s/%s", best->source, rest);
			} else {
				/* relative to the link's directory */
				const char *slash = strrchr(best->target, '/');
				int dlen = (int)(slash - best->target);

				n = snprintf(next, sizeof(next), "%.*s/%s/%s", dlen, best->target,
				             best->source, rest);
			}
			if (n < 0 || (size_t)n >= sizeof(next))
				return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
				                     "%s: path too long", path);
			r = sbx_path_normalize(next, cur, sizeof(cur), err);
			if (r < 0)
				return r;
			continue;
		}
		if (best->kind != SBX_PLAN_BIND && best->kind != SBX_PLAN_MIRROR)
			return sbx_error_set(
			    err, SBX_ERR_USAGE, ENOENT,
			    "%s lies in a %s made by sbx (%s): it has no host path", cur,
			    sbx_plan_kind_name(best->kind), best->target);
		{
			const char *rest = sbx_path_rest(best->target, cur);
			int n = *rest ? snprintf(host, size, "%s%s%s", best->source,
			                         strcmp(best->source, "/") ? "/" : "", rest)
			              : snprintf(host, size, "%s", best->source);

			if (n < 0 || (size_t)n >= size)
				return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
				                     "%s: host path too long", path);
		}
		return 0;
	}
	return sbx_error_set(err, SBX_ERR_USAGE, ELOOP, "%s: too many levels of symlinks", path);
}

bool sbx_plan_is_scaffold_dir(const struct sbx_plan *plan, const char *path)
{
	bool ancestor = false;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		if (o->kind == SBX_PLAN_SEAL)
			continue;
		if (sbx_path_covers(o->target, path))
			return false; /* covered: not scaffold */
		if (sbx_path_covers(path, o->target))
			ancestor = true;
	}
	return ancestor;
}

void sbx_plan_no_userns(struct sbx_plan *plan)
{
	plan->inner_uid = plan->outer_uid = plan->caller_uid;
	plan->inner_gid = plan->outer_gid = plan->caller_gid;
	plan->map_count = 0;
	plan->idmap_binds = false;
	plan->root_swap = false;
	for (size_t i = 0; i < plan->n_ops; i++)
		plan->ops[i].flags &= ~(unsigned)SBX_PLAN_F_IDMAP;
	/* the worker is the caller: its name, and the host's own files (nothing is mounted) */
	for (size_t i = 0; plan->caller_name && i < plan->n_env; i++) {
		char *e = plan->envp[i], *v;

		if ((strncmp(e, "USER=", 5) != 0 && strncmp(e, "LOGNAME=", 8) != 0) ||
		    asprintf(&v, "%.*s%s", (int)(strchr(e, '=') - e + 1), e, plan->caller_name) < 0)
			continue;
		free(e);
		plan->envp[i] = v;
	}
}

size_t sbx_plan_id_extents(const struct sbx_plan *plan, bool gid, bool for_binds,
                           struct sbx_id_extent out[SBX_ID_EXTENTS_MAX])
{
	unsigned outer = gid ? plan->outer_gid : plan->outer_uid;
	unsigned inner = gid ? plan->inner_gid : plan->inner_uid;
	const unsigned n = SBX_ROOT_NEST_ID;
	size_t k = 0;

	if (plan->map_count <= 1) {
		out[0] = (struct sbx_id_extent){inner, outer, 1};
		return 1;
	}
	if (!plan->root_swap || for_binds) {
		/* the worker is 0 inside; or the binds: host id k is kernel id base + k */
		out[0] = (struct sbx_id_extent){0, outer, plan->map_count};
		return 1;
	}
	/* 0 <-> N swapped, every other id of the range as itself: the binds show host id k as
	 * kernel id base + k, and this map shows kernel id base as N, base + N as 0. */
	out[k++] = (struct sbx_id_extent){0, outer + n, 1};
	if (n > 1)
		out[k++] = (struct sbx_id_extent){1, outer + 1, n - 1};
	out[k++] = (struct sbx_id_extent){n, outer, 1};
	if (n + 1 < plan->map_count)
		out[k++] = (struct sbx_id_extent){n + 1, outer + n + 1, plan->map_count - n - 1};
	return k;
}

int sbx_plan_host_views(const struct sbx_plan *plan, const char *host,
                        int (*cb)(void *ctx, const char *view, bool readonly), void *ctx)
{
	int count = 0;

	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];
		char view[SBX_PATH_MAX];
		const char *rest;
		int n, r;

		if ((o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_MIRROR) || !o->source ||
		    !sbx_path_covers(o->source, host))
			continue;
		rest = sbx_path_rest(o->source, host);
		n = snprintf(view, sizeof(view), "%s%s%s", o->target,
		             *rest && strcmp(o->target, "/") ? "/" : "", rest);
		if (n < 0 || (size_t)n >= sizeof(view))
			continue; /* no path that long can be opened there */
		count++;
		r = cb(ctx, view, (o->flags & (SBX_PLAN_F_READONLY | SBX_PLAN_F_SYSTEM)) != 0);
		if (r < 0)
			return r;
	}
	return count;
}
