/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/policy.h"

/*
 * Globs are compiled into a short token list and matched by simulating the automaton over all
 * token positions at once (one pass over the text, a set of live positions): O(pattern x
 * text) whatever the stars, where backtracking matchers go exponential on patterns such as
 * "*a*a*a*a*b" that a hostile profile or a fuzzer will write.
 */

enum tok_kind {
	T_LIT,   /* one byte */
	T_ANY,   /* '?': one byte but '/' */
	T_CLASS, /* "[...]": one byte of a class, never '/' */
	T_STAR,  /* '*': any run without '/' */
	T_DSTAR, /* '**': any run */
	/* double star then '/': nothing, or any run that ends with '/'. Two positions: the
	 * entry may skip the whole token (zero directories), but once the body has consumed
	 * a character it can only leave through a '/'. */
	T_DSLASH_ENTRY, /* consumes nothing: leads to the body, or past it */
	T_DSLASH_BODY,  /* any byte stays; '/' also leaves */
};

struct tok {
	enum tok_kind kind;
	unsigned char c; /* T_LIT */
	bool escaped;    /* T_LIT written as backslash + c */
	const char *cls; /* T_CLASS: first byte after '[' (and after '!' or '^') */
	bool negate;     /* T_CLASS */
};

/* Scan a class starting after '[' (and the negation). Returns the offset just after the
 * closing ']', or 0 if it is not closed. A ']' right at the start is a member. */
static size_t class_end(const char *s)
{
	size_t i = 0;

	if (s[i] == ']')
		i++;
	while (s[i] && s[i] != ']') {
		if (s[i] == '\\' && s[i + 1])
			i++;
		i++;
	}
	return s[i] == ']' ? i + 1 : 0;
}

static bool class_has(const char *cls, unsigned char c)
{
	size_t i = 0;

	if (cls[i] == ']') {
		if (c == ']')
			return true;
		i++;
	}
	while (cls[i] && cls[i] != ']') {
		unsigned char lo = (unsigned char)cls[i];

		if (lo == '\\' && cls[i + 1])
			lo = (unsigned char)cls[++i];
		if (cls[i + 1] == '-' && cls[i + 2] && cls[i + 2] != ']') {
			unsigned char hi = (unsigned char)cls[i + 2];

			if (hi == '\\' && cls[i + 3]) {
				hi = (unsigned char)cls[i + 3];
				i++;
			}
			if (c >= lo && c <= hi)
				return true;
			i += 3;
			continue;
		}
		if (c == lo)
			return true;
		i++;
	}
	return false;
}

/* Tokenise a checked pattern; returns the count, or -1 if it is not well formed. */
static long tokenize(const char *p, struct tok *toks, size_t cap)
{
	size_t n = 0, i = 0, len = strlen(p);

	while (i < len) {
		struct tok t = {0};

		if (n == cap)
			return -1;
		if (p[i] == '*') {
			if (p[i + 1] == '*') {
				bool at_component = i == 0 || p[i - 1] == '/';

				i += 2;
				while (p[i] == '*') /* "***" is "**" */
					i++;
				if (at_component && p[i] == '/') {
					if (n + 2 > cap)
						return -1;
					toks[n++] = (struct tok){.kind = T_DSLASH_ENTRY};
					t.kind = T_DSLASH_BODY;
					i++;
				} else {
					t.kind = T_DSTAR;
				}
			} else {
				t.kind = T_STAR;
				i++;
			}
		} else if (p[i] == '?') {
			t.kind = T_ANY;
			i++;
		} else if (p[i] == '[') {
			size_t start = i + 1, end;

			if (p[start] == '!' || p[start] == '^') {
				t.negate = true;
				start++;
			}
			end = class_end(p + start);
			if (!end)
				return -1;
			t.kind = T_CLASS;
			t.cls = p + start;
			i = start + end;
		} else if (p[i] == '\\') {
			if (!p[i + 1])
				return -1;
			t.kind = T_LIT;
			t.c = (unsigned char)p[i + 1];
			t.escaped = true;
			i += 2;
		} else {
			t.kind = T_LIT;
			t.c = (unsigned char)p[i];
			i++;
		}
		toks[n++] = t;
	}
	return (long)n;
}

static void closure(const struct tok *toks, size_t n, unsigned char *set)
{
	/* Star tokens may match nothing: a live position before one is live after it too.
	 * Positions only move forward, so one pass in order suffices. */
	for (size_t i = 0; i < n; i++) {
		if (!set[i])
			continue;
		if (toks[i].kind == T_STAR || toks[i].kind == T_DSTAR)
			set[i + 1] = 1;
		if (toks[i].kind == T_DSLASH_ENTRY) {
			set[i + 1] = 1; /* into the body */
			set[i + 2] = 1; /* or zero directories (the body is never last) */
		}
	}
}

static bool match_tokens(const struct tok *toks, size_t n, const char *text)
{
	/* On the stack: n <= SBX_GLOB_MAX, and a failed allocation must never turn into "no
	 * match", which for a deny rule would fail open. */
	unsigned char cur[SBX_GLOB_MAX + 1], next[SBX_GLOB_MAX + 1];
	bool any;

	memset(cur, 0, n + 1);
	cur[0] = 1;
	closure(toks, n, cur);
	for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
		memset(next, 0, n + 1);
		any = false;
		for (size_t i = 0; i < n; i++) {
			const struct tok *t = &toks[i];

			if (!cur[i])
				continue;
			switch (t->kind) {
			case T_LIT:
				if (*s == t->c)
					next[i + 1] = 1;
				break;
			case T_ANY:
				if (*s != '/')
					next[i + 1] = 1;
				break;
			case T_CLASS:
				if (*s != '/' && class_has(t->cls, *s) != t->negate)
					next[i + 1] = 1;
				break;
			case T_STAR:
				if (*s != '/')
					next[i] = 1;
				break;
			case T_DSTAR:
				next[i] = 1;
				break;
			case T_DSLASH_ENTRY:
				break; /* consumes nothing; the closure moved past it */
			case T_DSLASH_BODY:
				next[i] = 1;
				if (*s == '/')
					next[i + 1] = 1;
				break;
			}
		}
		closure(toks, n, next);
		for (size_t i = 0; i <= n; i++)
			any |= next[i];
		if (!any)
			return false;
		memcpy(cur, next, n + 1);
	}
	return cur[n] != 0;
}

static bool match_one(const char *pattern, const char *text)
{
	struct tok toks[SBX_GLOB_MAX];
	long n = tokenize(pattern, toks, SBX_ARRAY_SIZE(toks));

	if (n < 0)
		return false;
	if (match_tokens(toks, (size_t)n, text))
		return true;
	/* "dir" + '/' + a double star (of any number of stars) also names dir itself. Decided
	 * on tokens, so that an escaped '/' is not a separator and an escaped backslash
	 * before the '/' does not hide it. */
	if (n >= 2 && toks[n - 1].kind == T_DSTAR && toks[n - 2].kind == T_LIT &&
	    toks[n - 2].c == '/' && !toks[n - 2].escaped) {
		if (n == 2) /* the whole tree: its prefix of "/" is "/" */
			return strcmp(text, "/") == 0;
		return match_tokens(toks, (size_t)n - 2, text);
	}
	return false;
}

bool sbx_glob_match(const char *pattern, const char *text)
{
	if (strlen(pattern) > SBX_GLOB_MAX)
		return false;
	return match_one(pattern, text);
}

bool sbx_glob_is_literal(const char *pattern)
{
	return strpbrk(pattern, "*?[\\") == NULL;
}

size_t sbx_glob_quote(const char *path, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = path; *p; p++) {
		if (strchr("*?[]\\", *p)) {
			if (n + 1 < size)
				out[n] = '\\';
			n++;
		}
		if (n + 1 < size)
			out[n] = *p;
		n++;
	}
	if (size)
		out[n < size ? n : size - 1] = '\0';
	return n;
}

bool sbx_glob_unquote(const char *pattern, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = pattern; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (strchr("*?[", *p))
			return false;
		if (n + 1 >= size)
			return false;
		out[n++] = *p;
	}
	if (!size)
		return false;
	out[n] = '\0';
	return true;
}

int sbx_glob_check(const char *pattern, size_t *offset, struct sbx_error *err)
{
	size_t len = strlen(pattern);
	struct tok *toks;
	long n;
	int r;

	*offset = 0;
	if (len == 0)
		return sbx_error_set(err, SBX_ERR_PROFILE, EINVAL, "an empty path pattern");
	if (len > SBX_GLOB_MAX)
		return sbx_error_set(err, SBX_ERR_PROFILE, ENAMETOOLONG,
		                     "path pattern is longer than %d bytes", SBX_GLOB_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)pattern[i];
		const char *comp = pattern + i;
		bool start = i == 0 || pattern[i - 1] == '/';

		*offset = i;
		if (c < 0x20 || c == 0x7f)
			return sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
			                     "path pattern '%s' contains a control character",
			                     pattern);
		if (c == '/' && pattern[i + 1] == '/')
			return sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
			                     "path pattern '%s' has an empty component ('//')",
			                     pattern);
		if (start && comp[0] == '.' &&
		    (comp[1] == '/' || !comp[1] ||
		     (comp[1] == '.' && (comp[2] == '/' || !comp[2])))) {
			r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
			                  "path pattern '%s' has a '.' or '..' component", pattern);
			sbx_error_hint(err, "patterns match normalised paths; write the path "
			                    "without '.' and '..'");
			return r;
		}
	}
	*offset = len - 1;
	if (len > 1 && pattern[len - 1] == '/') {
		r = sbx_error_set(err, SBX_ERR_PROFILE, EINVAL, "path pattern '%s' ends with '/'",
		                  pattern);
		sbx_error_hint(err, "write 'dir/**' for a directory and everything beneath it");
		return r;
	}
	toks = calloc(len + 1, sizeof(*toks));
	if (!toks)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	n = tokenize(pattern, toks, len + 1);
	free(toks);
	if (n < 0) {
		const char *br = strrchr(pattern, '[');

		*offset = br ? (size_t)(br - pattern) : len - 1;
		return sbx_error_set(err, SBX_ERR_PROFILE, EINVAL,
		                     "path pattern '%s' has an unclosed '[' or a trailing '\\'",
		                     pattern);
	}
	*offset = 0;
	return 0;
}
