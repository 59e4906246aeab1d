/* SPDX-License-Identifier: MIT */
/*
 * Nesting: the effective spec, its codec, and narrowing (docs/design.md, Nesting). Pure: no file
 * system, no kernel. The launcher (src/launch.c) puts the encoded spec into a sealed memfd;
 * cmd/sbx/nest.c reads it back and calls sbx_spec_narrow.
 *
 * This file holds the effective spec's table (names, new, put, lookup) and its codec
 * (sbx_nest_encode, sbx_nest_decode); narrowing is in nest_narrow.c, the conversions to and
 * from plans, Landlock layers and specs in nest_convert.c.
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
	sbx_netpolicy_clear(&n->netpol);
	free(n);
}

/* Index of target in the sorted array, or where it would go (with *found false). */
size_t sbx_nest_find_slot(const struct sbx_nest *n, const char *target, bool *found)
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
	at = sbx_nest_find_slot(n, norm, &found);
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
const struct sbx_nest_mount *sbx_nest_lookup_in(const struct sbx_nest *n, const char *path,
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
		size_t i = sbx_nest_find_slot(n, buf, &found);
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
	return sbx_nest_lookup_in(n, path, false);
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

/* "" or SBX_NEST_ID_LEN lower-case hex digits. */
static bool id_valid(const char *id)
{
	size_t n = strnlen(id, SBX_NEST_ID_LEN + 1);

	if (n == 0)
		return true;
	if (n != SBX_NEST_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

/* What every effective spec must satisfy, for encode and decode alike. */
int sbx_nest_check(const struct sbx_nest *n, struct sbx_error *err)
{
	const char *bad = NULL;
	size_t n_rules = 0;

	if (!n->profile || !*n->profile || strlen(n->profile) > SBX_NEST_PROFILE_MAX)
		bad = "profile name missing or too long";
	else if (n->depth < 1 || n->depth > SBX_NEST_MAX_DEPTH)
		bad = "depth out of range";
	else if (n->backend >= SBX_BACKEND_MAX_ || n->net >= SBX_NET_MODE_MAX_)
		bad = "unknown backend or network mode";
	else if (n->scoped & ~(unsigned)(SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL))
		bad = "unknown Landlock scope";
	else if (n->n_mounts > SBX_NEST_MAX_ENTRIES)
		bad = "too many mounts";
	else if (n->limits.set >= SBX_LIMIT_BIT(SBX_LIMIT_COUNT))
		bad = "unknown limit";
	for (int l = 0; !bad && l < SBX_LIMIT_COUNT; l++)
		if ((n->limits.set & SBX_LIMIT_BIT(l)) ? n->limits.v[l] < sbx_limit_table[l].min ||
		                                             n->limits.v[l] > sbx_limit_table[l].max
		                                       : n->limits.v[l] != 0)
			bad = "a limit is out of range";
		else if (!id_valid(n->sandbox_id))
			bad = "the sandbox id is not 32 lower-case hex digits";
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
	if (!bad && n->net != SBX_NET_ALLOW && (n->netpol.n_allow || n->netpol.n_deny) &&
	    n->net != SBX_NET_LEARN)
		bad = "network entries without an allowlist";
	if (!bad && n->netpol.n_allow + n->netpol.n_deny > SBX_NET_MAX_RULES)
		bad = "too many network entries";
	if (bad)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec is invalid: %s", bad);
	return 0;
}

/* Version 5's network entries: a count, then each entry's flags and spelling. */
static void put_rules(struct wbuf *w, const struct sbx_net_rule *r, size_t n)
{
	char e[SBX_NET_NAME_MAX + 8];

	put_u32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		sbx_net_rule_fmt(&r[i], e, sizeof(e));
		put_u8(w, (uint8_t)(r[i].allow_private ? 1 : 0));
		put_str(w, e);
	}
}

int sbx_nest_encode(const struct sbx_nest *n, unsigned char **out, size_t *len,
                    struct sbx_error *err)
{
	struct wbuf w = {0};
	int r = sbx_nest_check(n, err);
	bool v5 = n->limits.set || n->net >= SBX_NET_ALLOW;

	if (r < 0)
		return r;
	put_bytes(&w, codec_magic, sizeof(codec_magic));
	/* Without an id the bytes are version 3's, so that what an older sbx wrote reads back
	 * to the same bytes (the codec is canonical) and an older sbx reads what this one
	 * writes for a sandbox that has no id. */
	put_u32(&w, v5 ? SBX_NEST_VERSION : n->sandbox_id[0] ? 4u : 3u);
	put_u32(&w, 0); /* total length, filled in below */
	put_u32(&w, n->depth);
	put_u8(&w, n->backend);
	put_u8(&w, n->net);
	put_u8(&w, n->nesting);
	put_u8(&w, n->landlocked);
	put_u8(&w, n->scoped);
	put_u8(&w, n->parent_unknown);
	put_str(&w, n->profile);
	if (v5) {
		put_str(&w, n->sandbox_id); /* version 5: "" where there is none */
		/* the limits' mask (0: none), then each limit given, in table order */
		put_u8(&w, n->limits.set);
		for (int l = 0; l < SBX_LIMIT_COUNT; l++)
			if (n->limits.set & SBX_LIMIT_BIT(l)) {
				put_u32(&w, (uint32_t)n->limits.v[l]);
				put_u32(&w, (uint32_t)(n->limits.v[l] >> 32));
			}
		/* the network's entries: none unless an allowlist or learn */
		if (n->net >= SBX_NET_ALLOW) {
			put_rules(&w, n->netpol.allow, n->netpol.n_allow);
			put_rules(&w, n->netpol.deny, n->netpol.n_deny);
		} else {
			put_rules(&w, NULL, 0);
			put_rules(&w, NULL, 0);
		}
	} else if (n->sandbox_id[0])
		put_str(&w, n->sandbox_id);
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
	if (version != SBX_NEST_VERSION && version != 4u && version != 3u)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the sandbox's effective spec has version %u; this sbx reads "
		                     "versions 3 to %u",
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
	if (version >= 4u) {
		/* version 4 has an id, always one (without one it would have been 3); version 5
		 * one or "" */
		_cleanup_free_ char *id = get_str(&b, SBX_NEST_ID_LEN);

		if (id && strlen(id) == SBX_NEST_ID_LEN)
			memcpy(n->sandbox_id, id, SBX_NEST_ID_LEN + 1);
		else if (!id || version == 4u || *id)
			b.bad = true;
	}
	if (version == 5u) {
		/* version 5 has limits or network entries, at least one of them (without either
		 * it would have been 3 or 4): the limits' mask and values, then the entries */
		n->limits.set = get_u8(&b);
		if (n->limits.set >= SBX_LIMIT_BIT(SBX_LIMIT_COUNT))
			b.bad = true;
		for (int l = 0; !b.bad && l < SBX_LIMIT_COUNT; l++) {
			uint64_t lo, hi;

			if (!(n->limits.set & SBX_LIMIT_BIT(l)))
				continue;
			lo = get_u32(&b);
			hi = get_u32(&b);
			n->limits.v[l] = lo | hi << 32;
		}
		if (!b.bad && !n->limits.set && n->net < SBX_NET_ALLOW)
			b.bad = true;
		for (int deny = 0; deny < 2 && !b.bad; deny++) {
			uint32_t nr = get_u32(&b);

			if (nr > SBX_NET_MAX_RULES || (size_t)nr * 5 > len - b.off ||
			    (nr && n->net < SBX_NET_ALLOW))
				b.bad = true;
			for (uint32_t i = 0; !b.bad && i < nr; i++) {
				unsigned fl = get_u8(&b);
				_cleanup_free_ char *e = get_str(&b, SBX_NET_NAME_MAX + 2);
				size_t before = deny ? n->netpol.n_deny : n->netpol.n_allow;
				char again[SBX_NET_NAME_MAX + 8];

				/* canonical: a known flag, an entry as sbx writes it, no repeat */
				if (b.bad || fl > 1 || (deny && fl) ||
				    sbx_netpolicy_add(&n->netpol, deny, e, fl, NULL) < 0 ||
				    (deny ? n->netpol.n_deny : n->netpol.n_allow) != before + 1) {
					b.bad = true;
					break;
				}
				sbx_net_rule_fmt(deny ? &n->netpol.deny[before]
				                      : &n->netpol.allow[before],
				                 again, sizeof(again));
				if (strcmp(again, e) != 0)
					b.bad = true;
			}
		}
	} else if (!b.bad && n->net >= SBX_NET_ALLOW) {
		b.bad = true;
	}
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
	r = sbx_nest_check(n, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(n);
	return 0;
}

int sbx_nest_blob_set_id(unsigned char **blob, size_t *len, const char *id, struct sbx_error *err)
{
	_cleanup_nest_ struct sbx_nest *n = NULL;
	unsigned char *again = NULL;
	size_t again_len = 0;
	int r;

	if (!id || strlen(id) != SBX_NEST_ID_LEN || !id_valid(id))
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: a sandbox id is %u lower-case hex digits",
		                     SBX_NEST_ID_LEN);
	r = sbx_nest_decode(*blob, *len, &n, err);
	if (r < 0)
		return r;
	memcpy(n->sandbox_id, id, SBX_NEST_ID_LEN + 1);
	r = sbx_nest_encode(n, &again, &again_len, err);
	if (r < 0)
		return r;
	free(*blob);
	*blob = again;
	*len = again_len;
	return 0;
}
