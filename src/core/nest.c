/* SPDX-License-Identifier: MIT */
/*
 * Nesting: the effective spec, its codec, and narrowing (SPEC section 6). Pure: no file
 * system, no kernel. The launcher (src/launch.c) puts the encoded spec into a sealed memfd;
 * cmd/sbx/nest.c reads it back and calls sbx_spec_narrow.
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

static const char codec_magic[8] = {'S', 'B', 'X', 'S', 'P', 'E', 'C', '\0'};
#define HEADER_LEN 16u /* magic, version u32, total length u32 */

const char *sbx_backend_name(unsigned backend)
{
	switch (backend) {
	case SBX_BACKEND_NAMESPACES:
		return "namespaces";
	case SBX_BACKEND_LANDLOCK:
		return "landlock";
	}
	return "?";
}

const char *sbx_nest_kind_name(unsigned kind)
{
	static const char *const names[] = {"bind", "tmpfs", "device", "hidden", "symlink", "rule"};

	return kind < SBX_ARRAY_SIZE(names) ? names[kind] : "?";
}

struct sbx_nest *sbx_nest_new(void)
{
	return calloc(1, sizeof(struct sbx_nest));
}

void sbx_nest_free(struct sbx_nest *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_mounts; i++)
		free(n->mounts[i].target);
	free(n->mounts);
	free(n->profile);
	free(n);
}

/* Index of target in the sorted array, or where it would go (with *found false). */
static size_t find_slot(const struct sbx_nest *n, const char *target, bool *found)
{
	size_t lo = 0, hi = n->n_mounts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(n->mounts[mid].target, target);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

int sbx_nest_put(struct sbx_nest *n, const char *target, unsigned kind, unsigned rights,
                 unsigned flags, struct sbx_error *err)
{
	char norm[SBX_PATH_MAX];
	struct sbx_nest_mount *m;
	bool found;
	size_t at;
	int r;

	r = sbx_path_normalize(target, norm, sizeof(norm), err);
	if (r < 0)
		return r;
	if (kind >= SBX_NEST_KIND_MAX_ || (rights & ~SBX_OP_ALL) || (flags & ~SBX_NEST_F_ALL_))
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "invalid effective-spec entry %s",
		                     norm);
	at = find_slot(n, norm, &found);
	if (!found) {
		struct sbx_nest_mount *grown;
		char *copy;

		if (n->n_mounts >= SBX_NEST_MAX_ENTRIES)
			return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
			                     "too many mounts for a nested sandbox: at most %u",
			                     SBX_NEST_MAX_ENTRIES);
		grown = realloc(n->mounts, (n->n_mounts + 1) * sizeof(*grown));
		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		n->mounts = grown;
		copy = strdup(norm);
		if (!copy)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		memmove(&n->mounts[at + 1], &n->mounts[at], (n->n_mounts - at) * sizeof(*grown));
		n->n_mounts++;
		n->mounts[at].target = copy;
	}
	m = &n->mounts[at];
	m->kind = kind;
	m->rights = kind == SBX_NEST_HIDDEN ? 0 : rights;
	m->flags = flags;
	return 0;
}

/* The longest entry covering path (mounts_only: not a rule entry): the path and each of its
 * ancestors looked up in the sorted array, so O(depth log n) rather than a scan. */
static const struct sbx_nest_mount *lookup_in(const struct sbx_nest *n, const char *path,
                                              bool mounts_only)
{
	char buf[SBX_PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf) || path[0] != '/') {
		const struct sbx_nest_mount *best = NULL;

		for (size_t i = 0; i < n->n_mounts; i++)
			if ((!mounts_only || n->mounts[i].kind != SBX_NEST_RULE) &&
			    sbx_path_covers(n->mounts[i].target, path) &&
			    (!best || strlen(n->mounts[i].target) > strlen(best->target)))
				best = &n->mounts[i];
		return best;
	}
	memcpy(buf, path, len + 1);
	for (;;) {
		bool found;
		size_t i = find_slot(n, buf, &found);
		char *slash;

		if (found && (!mounts_only || n->mounts[i].kind != SBX_NEST_RULE))
			return &n->mounts[i];
		if (len == 1)
			return NULL;
		slash = strrchr(buf, '/');
		len = slash == buf ? 1 : (size_t)(slash - buf);
		buf[len] = '\0';
	}
}

const struct sbx_nest_mount *sbx_nest_lookup(const struct sbx_nest *n, const char *path)
{
	return lookup_in(n, path, false);
}

unsigned sbx_nest_rights(const struct sbx_nest *n, const char *path)
{
	const struct sbx_nest_mount *m = sbx_nest_lookup(n, path);

	return m ? m->rights : 0;
}

/* ---- codec ---- */

struct wbuf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

static void put_bytes(struct wbuf *w, const void *src, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		unsigned char *grown;

		while (cap < w->len + n)
			cap *= 2;
		grown = realloc(w->p, cap);
		if (!grown) {
			w->oom = true;
			return;
		}
		w->p = grown;
		w->cap = cap;
	}
	memcpy(w->p + w->len, src, n);
	w->len += n;
}

static void put_u8(struct wbuf *w, unsigned v)
{
	unsigned char b = (unsigned char)v;

	put_bytes(w, &b, 1);
}

static void put_u16(struct wbuf *w, unsigned v)
{
	unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};

	put_bytes(w, b, 2);
}

static void put_u32(struct wbuf *w, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
	                      (unsigned char)(v >> 24)};

	put_bytes(w, b, 4);
}

static void put_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);

	put_u16(w, (unsigned)n);
	put_bytes(w, s, n);
}

/* What every effective spec must satisfy, for encode and decode alike. */
static int check_nest(const struct sbx_nest *n, struct sbx_error *err)
{
	const char *bad = NULL;
	size_t n_rules = 0;

	if (!n->profile || !*n->profile || strlen(n->profile) > SBX_NEST_PROFILE_MAX)
		bad = "profile name missing or too long";
	else if (n->depth < 1 || n->depth > SBX_NEST_MAX_DEPTH)
		bad = "depth out of range";
	else if (n->backend >= SBX_BACKEND_MAX_ || n->net > SBX_NET_HOST)
		bad = "unknown backend or network mode";
	else if (n->scoped & ~(unsigned)(SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL))
		bad = "unknown Landlock scope";
	else if (n->n_mounts > SBX_NEST_MAX_ENTRIES)
		bad = "too many mounts";
	for (const char *p = n->profile; !bad && p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			bad = "control character in the profile name";
	for (size_t i = 0; !bad && i < n->n_mounts; i++) {
		const struct sbx_nest_mount *m = &n->mounts[i];
		char norm[SBX_PATH_MAX];

		if (!m->target || sbx_path_normalize(m->target, norm, sizeof(norm), NULL) < 0 ||
		    strcmp(norm, m->target) != 0)
			bad = "a mount target is not a normalised absolute path";
		else if (i && strcmp(n->mounts[i - 1].target, m->target) >= 0)
			bad = "mount targets are not sorted and unique";
		else if (m->kind >= SBX_NEST_KIND_MAX_ || (m->rights & ~SBX_OP_ALL) ||
		         (m->flags & ~SBX_NEST_F_ALL_))
			bad = "a mount has an unknown kind, right or flag";
		else if (m->kind == SBX_NEST_HIDDEN && m->rights)
			bad = "a hidden mount has rights";
		else if ((m->flags & SBX_NEST_F_SYSTEM) && (m->rights & SBX_OP_MODIFY))
			bad = "a system mount is writable";
		else if (m->kind == SBX_NEST_RULE && (m->flags || !strcmp(m->target, "/")))
			bad = "a rule entry is a system mount or '/'";
		else if (m->kind == SBX_NEST_RULE && ++n_rules > SBX_NEST_MAX_RULES)
			bad = "too many rule entries";
	}
	if (bad)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec is invalid: %s", bad);
	return 0;
}

int sbx_nest_encode(const struct sbx_nest *n, unsigned char **out, size_t *len,
                    struct sbx_error *err)
{
	struct wbuf w = {0};
	int r = check_nest(n, err);

	if (r < 0)
		return r;
	put_bytes(&w, codec_magic, sizeof(codec_magic));
	put_u32(&w, SBX_NEST_VERSION);
	put_u32(&w, 0); /* total length, filled in below */
	put_u32(&w, n->depth);
	put_u8(&w, n->backend);
	put_u8(&w, n->net);
	put_u8(&w, n->nesting);
	put_u8(&w, n->landlocked);
	put_u8(&w, n->scoped);
	put_u8(&w, n->parent_unknown);
	put_str(&w, n->profile);
	put_u32(&w, (uint32_t)n->n_mounts);
	for (size_t i = 0; i < n->n_mounts; i++) {
		put_u8(&w, n->mounts[i].kind);
		put_u8(&w, n->mounts[i].flags);
		put_u16(&w, n->mounts[i].rights);
		put_str(&w, n->mounts[i].target);
	}
	if (w.oom) {
		free(w.p);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	if (w.len > SBX_NEST_CODEC_MAX) {
		free(w.p);
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "the effective spec needs %zu bytes; at most %u are allowed",
		                     w.len, SBX_NEST_CODEC_MAX);
	}
	for (int i = 0; i < 4; i++)
		w.p[12 + i] = (unsigned char)(w.len >> (8 * i));
	*out = w.p;
	*len = w.len;
	return 0;
}

struct rbuf {
	const unsigned char *p;
	size_t len, off;
	bool bad;
};

static const unsigned char *take(struct rbuf *b, size_t n)
{
	const unsigned char *p;

	if (b->bad || n > b->len - b->off) {
		b->bad = true;
		return NULL;
	}
	p = b->p + b->off;
	b->off += n;
	return p;
}

static unsigned get_u8(struct rbuf *b)
{
	const unsigned char *p = take(b, 1);

	return p ? p[0] : 0;
}

static unsigned get_u16(struct rbuf *b)
{
	const unsigned char *p = take(b, 2);

	return p ? (unsigned)p[0] | (unsigned)p[1] << 8 : 0;
}

static uint32_t get_u32(struct rbuf *b)
{
	const unsigned char *p = take(b, 4);

	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	               (uint32_t)p[3] << 24
	         : 0;
}

static bool get_bool(struct rbuf *b)
{
	unsigned v = get_u8(b);

	if (v > 1)
		b->bad = true;
	return v == 1;
}

/* A string of at most max bytes, with no NUL inside. */
static char *get_str(struct rbuf *b, size_t max)
{
	size_t n = get_u16(b);
	const unsigned char *p;
	char *s;

	if (n > max) {
		b->bad = true;
		return NULL;
	}
	p = take(b, n);
	if (!p || memchr(p, '\0', n)) {
		b->bad = true;
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		b->bad = true;
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

int sbx_nest_decode(const unsigned char *buf, size_t len, struct sbx_nest **out,
                    struct sbx_error *err)
{
	_cleanup_nest_ struct sbx_nest *n = NULL;
	struct rbuf b = {.p = buf, .len = len};
	const unsigned char *magic;
	uint32_t version, total, count;
	int r;

	if (len < HEADER_LEN || len > SBX_NEST_CODEC_MAX)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec has %zu bytes: not between %u "
		                     "and %u",
		                     len, HEADER_LEN, SBX_NEST_CODEC_MAX);
	magic = take(&b, sizeof(codec_magic));
	version = get_u32(&b);
	total = get_u32(&b);
	if (!magic || memcmp(magic, codec_magic, sizeof(codec_magic)) != 0)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec is not an sbx spec (bad magic)");
	if (version != SBX_NEST_VERSION)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec has version %u; this sbx reads "
		                     "version %u",
		                     version, SBX_NEST_VERSION);
	if (total != len)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec says %u bytes but has %zu "
		                     "(truncated or padded)",
		                     total, len);
	n = sbx_nest_new();
	if (!n)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	n->depth = get_u32(&b);
	n->backend = get_u8(&b);
	n->net = get_u8(&b);
	n->nesting = get_bool(&b);
	n->landlocked = get_bool(&b);
	n->scoped = get_u8(&b);
	n->parent_unknown = get_bool(&b);
	n->profile = get_str(&b, SBX_NEST_PROFILE_MAX);
	count = get_u32(&b);
	/* Each entry takes at least 6 bytes: a count larger than the rest can hold is a lie,
	 * refused before anything is allocated for it. */
	if (!b.bad && (count > SBX_NEST_MAX_ENTRIES || (size_t)count * 6 > len - b.off))
		b.bad = true;
	if (!b.bad && count) {
		n->mounts = calloc(count, sizeof(*n->mounts));
		if (!n->mounts)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; !b.bad && i < count; i++) {
		struct sbx_nest_mount *m = &n->mounts[i];

		m->kind = get_u8(&b);
		m->flags = get_u8(&b);
		m->rights = get_u16(&b);
		m->target = get_str(&b, SBX_PATH_MAX - 1);
		if (!b.bad)
			n->n_mounts++;
	}
	if (b.bad || b.off != len)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec is truncated or malformed at "
		                     "byte %zu of %zu",
		                     b.off, len);
	r = check_nest(n, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(n);
	return 0;
}

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
	n->net = plan->new_net ? SBX_NET_NONE : SBX_NET_HOST;
	n->nesting = spec->nesting;
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
	r = check_nest(n, err);
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
		const struct sbx_nest_mount *m = lookup_in(n, path, true);
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
		                  "sandbox has no network but loopback; child sandboxes can only "
		                  "narrow access (parent: %s)",
		                  sbx_nest_boundaries(parent, bounds, sizeof(bounds)));
		sbx_error_hint(err, "drop --net host (the sub-worker inherits loopback only), or "
		                    "give the parent sandbox --net host");
		return r;
	}
	r = sbx_spec_set_str(&child->profile, req->profile ? req->profile : parent->profile, err);
	if (r < 0)
		return r;
	child->depth = parent->depth + 1;
	child->backend = parent->backend;
	child->net = req->net_given ? req->net : parent->net;
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
		find_slot(child, e->target, &found);
		if (!found && sbx_nest_rights(child, e->target) &&
		    (r = sbx_nest_put(child, e->target, SBX_NEST_HIDDEN, 0, 0, err)) < 0)
			return r;
	}
	if (req->readonly)
		for (size_t i = 0; i < child->n_mounts; i++)
			child->mounts[i].rights &= ~SBX_OP_MODIFY;
	r = check_nest(child, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(child);
	return 0;
}

/* ---- to a spec ---- */

bool sbx_nest_system_allowed(const struct sbx_nest *n, const char *path)
{
	bool found;
	size_t i = find_slot(n, path, &found);

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
