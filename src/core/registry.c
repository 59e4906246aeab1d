/* SPDX-License-Identifier: MIT */
/*
 * A running sandbox's record (include/sbx/registry.h): its text and a parser that trusts
 * nothing in it.
 */
#include "sbx/registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/nest.h"

/* A growing buffer; on ENOMEM it stops growing and says so at the end. */
struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		char *grown;

		while (b->len + n + 1 > cap)
			cap *= 2;
		grown = realloc(b->p, cap);
		if (!grown) {
			b->oom = true;
			return;
		}
		b->p = grown;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void putf(struct buf *b, const char *key, unsigned long long v)
{
	char line[96];
	int n = snprintf(line, sizeof(line), "%s %llu\n", key, v);

	put(b, line, (size_t)n);
}

static bool must_escape(unsigned char c)
{
	return c <= 0x20 || c == 0x7f || c == '%';
}

/* key, space, s %-escaped (at most max bytes of it), newline; true if s was cut */
static bool put_text(struct buf *b, const char *key, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(s);
	bool cut = n > max;

	puts_(b, key);
	put(b, " ", 1);
	if (cut)
		n = max;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[3] = {'%', hex[c >> 4], hex[c & 15]};

		if (must_escape(c))
			put(b, e, 3);
		else
			put(b, (const char *)&c, 1);
	}
	put(b, "\n", 1);
	return cut;
}

static const char *const backend_words[] = {"namespaces", "landlock"};

int sbx_reg_format(const struct sbx_reg *r, char **out, size_t *len, struct sbx_error *err)
{
	static const char hex[] = "0123456789abcdef";
	struct buf b = {0};
	bool cut = r->argv_cut;
	size_t n_args = r->n_argv;

	*out = NULL;
	*len = 0;
	if (!sbx_reg_id_valid(r->id) || (r->parent[0] && !sbx_reg_id_valid(r->parent)) ||
	    r->backend >= sizeof(backend_words) / sizeof(backend_words[0]))
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "a sandbox's record needs its id and backend");
	putf(&b, "sbx-sandbox", SBX_REG_VERSION);
	puts_(&b, "id ");
	puts_(&b, r->id);
	puts_(&b, "\n");
	if (r->parent[0]) {
		puts_(&b, "parent ");
		puts_(&b, r->parent);
		puts_(&b, "\n");
	}
	if (r->digest[0]) {
		puts_(&b, "digest ");
		puts_(&b, r->digest);
		puts_(&b, "\n");
	}
	putf(&b, "sbx_pid", (unsigned long long)r->sbx_pid);
	putf(&b, "sbx_start", r->sbx_start);
	putf(&b, "pid", (unsigned long long)r->pid);
	putf(&b, "pid_start", r->pid_start);
	putf(&b, "uid", r->uid);
	putf(&b, "start_ms", r->start_ms);
	putf(&b, "depth", r->depth);
	puts_(&b, "backend ");
	puts_(&b, backend_words[r->backend]);
	puts_(&b, "\n");
	put_text(&b, "profile", r->profile ? r->profile : "", SBX_REG_TEXT_MAX);
	if (n_args > SBX_REG_ARGS_MAX) {
		n_args = SBX_REG_ARGS_MAX;
		cut = true;
	}
	for (size_t i = 0; i < n_args; i++)
		cut |= put_text(&b, "arg", r->argv[i], SBX_REG_ARG_MAX);
	if (cut)
		puts_(&b, "argv_cut 1\n");
	/* a spec too large to keep is left out: sbx inspect says it was not kept */
	if (r->spec && r->spec_len && r->spec_len <= SBX_REG_SPEC_MAX) {
		puts_(&b, "spec ");
		for (size_t i = 0; i < r->spec_len; i++) {
			char e[2] = {hex[r->spec[i] >> 4], hex[r->spec[i] & 15]};

			put(&b, e, 2);
		}
		puts_(&b, "\n");
	}
	if (b.oom || b.len > SBX_REG_FILE_MAX) {
		free(b.p);
		return sbx_error_set(err, SBX_ERR_SETUP, b.oom ? ENOMEM : EFBIG,
		                     "a sandbox's record does not fit in %u bytes",
		                     SBX_REG_FILE_MAX);
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

void sbx_reg_clear(struct sbx_reg *r)
{
	free(r->profile);
	for (size_t i = 0; i < r->n_argv; i++)
		free(r->argv[i]);
	free(r->argv);
	free(r->spec);
	memset(r, 0, sizeof(*r));
}

bool sbx_reg_id_valid(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (n >= SBX_REG_ID_LEN ||
		    !((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return n == SBX_REG_ID_LEN;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A decimal number without sign, leading zeros (but "0") or overflow, at most max. */
static bool parse_num(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!v[0] || (v[0] == '0' && v[1]))
		return false;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || n > (max - (uint64_t)(*p - '0')) / 10)
			return false;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*out = n;
	return true;
}

/* %-escaped text: no raw byte that the writer escapes, at most max bytes decoded */
static char *parse_text(const char *v, size_t max)
{
	size_t n = 0;
	char *out = malloc(strlen(v) + 1);

	if (!out)
		return NULL;
	for (const char *p = v; *p; p++) {
		int c = (unsigned char)*p;

		if (c == '%') {
			int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);

			if (lo < 0)
				goto bad;
			c = hi << 4 | lo;
			/* canonical: only what the writer escapes, and no NUL */
			if (!c || !must_escape((unsigned char)c))
				goto bad;
			p += 2;
		} else if (must_escape((unsigned char)c)) {
			goto bad;
		}
		if (n >= max)
			goto bad;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static bool parse_hexid(const char *v, size_t len, char *out)
{
	if (strlen(v) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (hexval(v[i]) < 0)
			return false;
	memcpy(out, v, len + 1);
	return true;
}

enum {
	K_VERSION,
	K_ID,
	K_PARENT,
	K_DIGEST,
	K_SBX_PID,
	K_SBX_START,
	K_PID,
	K_PID_START,
	K_UID,
	K_START_MS,
	K_DEPTH,
	K_BACKEND,
	K_PROFILE,
	K_ARG,
	K_ARGV_CUT,
	K_SPEC,
	K_COUNT_,
};

/* The keys, and which a record must have (the rest are optional; only "arg" repeats). */
static const struct {
	const char *name;
	bool required;
} keys[K_COUNT_] = {
    [K_VERSION] = {"sbx-sandbox", true},
    [K_ID] = {"id", true},
    [K_PARENT] = {"parent", false},
    [K_DIGEST] = {"digest", false},
    [K_SBX_PID] = {"sbx_pid", true},
    [K_SBX_START] = {"sbx_start", true},
    [K_PID] = {"pid", true},
    [K_PID_START] = {"pid_start", true},
    [K_UID] = {"uid", true},
    [K_START_MS] = {"start_ms", true},
    [K_DEPTH] = {"depth", true},
    [K_BACKEND] = {"backend", true},
    [K_PROFILE] = {"profile", true},
    [K_ARG] = {"arg", false},
    [K_ARGV_CUT] = {"argv_cut", false},
    [K_SPEC] = {"spec", false},
};

static int bad(struct sbx_error *err, size_t line, const char *what)
{
	return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG, "not a sandbox record: line %zu: %s",
	                     line, what);
}

/* One "KEY VALUE" line (NUL-terminated, no newline) into r. */
static int parse_line(char *l, size_t lineno, bool *seen, struct sbx_reg *r, struct sbx_error *err)
{
	char *v = strchr(l, ' ');
	uint64_t n;
	int k;

	if (!v)
		return bad(err, lineno, "no value");
	*v++ = '\0';
	for (k = 0; k < K_COUNT_; k++)
		if (strcmp(l, keys[k].name) == 0)
			break;
	if (k == K_COUNT_)
		return bad(err, lineno, "an unknown key");
	/* the version first, every key but "arg" once */
	if ((k == K_VERSION) != (lineno == 1))
		return bad(err, lineno, "the version must be the first line, and only it");
	if (k != K_ARG && seen[k])
		return bad(err, lineno, "a key given twice");
	seen[k] = true;
	switch (k) {
	case K_VERSION:
		if (!parse_num(v, UINT32_MAX, &n) || n != SBX_REG_VERSION)
			return bad(err, lineno, "a version this sbx does not read");
		return 0;
	case K_ID:
		return parse_hexid(v, SBX_REG_ID_LEN, r->id) ? 0 : bad(err, lineno, "a bad id");
	case K_PARENT:
		return parse_hexid(v, SBX_REG_ID_LEN, r->parent)
		           ? 0
		           : bad(err, lineno, "a bad parent id");
	case K_DIGEST:
		return parse_hexid(v, SBX_REG_DIGEST_LEN, r->digest)
		           ? 0
		           : bad(err, lineno, "a bad digest");
	case K_SBX_PID:
	case K_PID:
		/* pids are positive and at most the kernel's pid_max limit (4194304) */
		if (!parse_num(v, 4194304, &n) || n < 1)
			return bad(err, lineno, "a bad pid");
		*(k == K_PID ? &r->pid : &r->sbx_pid) = (int64_t)n;
		return 0;
	case K_SBX_START:
	case K_PID_START:
	case K_START_MS:
		if (!parse_num(v, UINT64_MAX, &n))
			return bad(err, lineno, "a bad number");
		*(k == K_SBX_START   ? &r->sbx_start
		  : k == K_PID_START ? &r->pid_start
		                     : &r->start_ms) = n;
		return 0;
	case K_UID:
		if (!parse_num(v, UINT32_MAX - 1, &n))
			return bad(err, lineno, "a bad uid");
		r->uid = n;
		return 0;
	case K_DEPTH:
		if (!parse_num(v, SBX_NEST_MAX_DEPTH, &n) || n < 1)
			return bad(err, lineno, "a bad depth");
		r->depth = n;
		return 0;
	case K_BACKEND:
		for (unsigned b = 0; b < sizeof(backend_words) / sizeof(backend_words[0]); b++)
			if (strcmp(v, backend_words[b]) == 0) {
				r->backend = b;
				return 0;
			}
		return bad(err, lineno, "an unknown backend");
	case K_PROFILE:
		r->profile = parse_text(v, SBX_REG_TEXT_MAX);
		return r->profile ? 0 : bad(err, lineno, "a bad profile name");
	case K_ARG: {
		char **grown;

		if (r->n_argv >= SBX_REG_ARGS_MAX)
			return bad(err, lineno, "too many arguments");
		grown = realloc(r->argv, (r->n_argv + 1) * sizeof(*grown));
		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		r->argv = grown;
		r->argv[r->n_argv] = parse_text(v, SBX_REG_ARG_MAX);
		if (!r->argv[r->n_argv])
			return bad(err, lineno, "a bad argument");
		r->n_argv++;
		return 0;
	}
	case K_ARGV_CUT:
		if (strcmp(v, "1") != 0)
			return bad(err, lineno, "a bad argv_cut");
		r->argv_cut = true;
		return 0;
	case K_SPEC: {
		size_t len = strlen(v);

		if (!len || len % 2 || len / 2 > SBX_REG_SPEC_MAX)
			return bad(err, lineno, "a bad spec");
		r->spec = malloc(len / 2);
		if (!r->spec)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		for (size_t i = 0; i < len / 2; i++) {
			int hi = hexval(v[2 * i]), lo = hexval(v[2 * i + 1]);

			if (hi < 0 || lo < 0)
				return bad(err, lineno, "a bad spec");
			r->spec[i] = (unsigned char)(hi << 4 | lo);
		}
		r->spec_len = len / 2;
		return 0;
	}
	}
	return bad(err, lineno, "an unknown key");
}

int sbx_reg_parse(const char *buf, size_t len, struct sbx_reg *out, struct sbx_error *err)
{
	_cleanup_free_ char *copy = NULL;
	bool seen[K_COUNT_] = {false};
	size_t lineno = 0;
	char *p;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (len > SBX_REG_FILE_MAX)
		return bad(err, 0, "larger than a record can be");
	if (!len || buf[len - 1] != '\n' || memchr(buf, '\0', len))
		return bad(err, 0, "empty, cut short, or with a NUL byte");
	copy = malloc(len + 1);
	if (!copy)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	memcpy(copy, buf, len);
	copy[len] = '\0';
	p = copy;
	while (r >= 0 && *p) {
		char *nl = strchr(p, '\n');

		*nl = '\0';
		r = parse_line(p, ++lineno, seen, out, err);
		p = nl + 1;
	}
	for (int k = 0; r >= 0 && k < K_COUNT_; k++)
		if (keys[k].required && !seen[k])
			r = bad(err, lineno, "a required key is missing");
	if (r < 0)
		sbx_reg_clear(out);
	return r;
}
