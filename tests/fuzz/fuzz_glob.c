/* SPDX-License-Identifier: MIT */
/* Globs (src/core/glob.c), differentially: the automaton matcher must agree with a slow,
 * obviously-correct backtracking matcher written here from the documented semantics
 * (include/sbx/policy.h). Input: pattern, a zero byte, text. Both are capped so that the
 * reference (memoised) stays cheap. A pattern sbx_glob_check refuses must still be matched
 * without a crash. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 64

enum ref_kind { R_LIT, R_ANY, R_CLASS, R_STAR, R_DSTAR, R_DSLASH };

struct ref_tok {
	enum ref_kind kind;
	unsigned char c;
	bool escaped;          /* R_LIT written as '\' c */
	unsigned char set[32]; /* R_CLASS: member bits, negation already applied */
};

static void set_bit(unsigned char *set, unsigned c)
{
	set[c >> 3] |= (unsigned char)(1u << (c & 7));
}

/* "[...]" from just after '[': fills t->set, returns the bytes consumed after '[' or 0. */
static size_t ref_class(const char *p, struct ref_tok *t)
{
	size_t i = 0;
	bool negate = false, first = true;
	unsigned char members[32] = {0};

	if (p[i] == '!' || p[i] == '^') {
		negate = true;
		i++;
	}
	for (;;) {
		unsigned lo, hi;

		if (!p[i])
			return 0;
		if (p[i] == ']' && !first)
			break;
		if (p[i] == ']' && first) { /* a leading ']' is a member, never a range start */
			first = false;
			set_bit(members, ']');
			i++;
			continue;
		}
		first = false;
		if (p[i] == '\\' && p[i + 1])
			i++;
		lo = (unsigned char)p[i++];
		hi = lo;
		if (p[i] == '-' && p[i + 1] && p[i + 1] != ']') {
			i++;
			if (p[i] == '\\' && p[i + 1])
				i++;
			hi = (unsigned char)p[i++];
		}
		for (unsigned c = lo; c <= hi; c++)
			set_bit(members, c);
	}
	for (unsigned c = 0; c < 256; c++) {
		bool in = (members[c >> 3] >> (c & 7)) & 1;

		if (c != '/' && c != 0 && in != negate)
			set_bit(t->set, c);
	}
	return i + 1;
}

static long ref_tokenize(const char *p, struct ref_tok *toks)
{
	size_t n = 0, i = 0;

	while (p[i]) {
		struct ref_tok t;

		memset(&t, 0, sizeof(t));
		if (p[i] == '*' && p[i + 1] == '*') {
			bool component = i == 0 || p[i - 1] == '/';

			while (p[i] == '*')
				i++;
			if (component && p[i] == '/') {
				t.kind = R_DSLASH;
				i++;
			} else {
				t.kind = R_DSTAR;
			}
		} else if (p[i] == '*') {
			t.kind = R_STAR;
			i++;
		} else if (p[i] == '?') {
			t.kind = R_ANY;
			i++;
		} else if (p[i] == '[') {
			size_t used = ref_class(p + i + 1, &t);

			if (!used)
				return -1;
			t.kind = R_CLASS;
			i += 1 + used;
		} else if (p[i] == '\\') {
			if (!p[i + 1])
				return -1;
			t.kind = R_LIT;
			t.c = (unsigned char)p[i + 1];
			t.escaped = true;
			i += 2;
		} else {
			t.kind = R_LIT;
			t.c = (unsigned char)p[i++];
		}
		toks[n++] = t;
	}
	return (long)n;
}

struct ref {
	const struct ref_tok *toks;
	size_t n;
	const char *text;
	size_t len;
	signed char memo[CAP + 1][CAP + 1];
};

static bool ref_at(struct ref *r, size_t i, size_t j)
{
	const char *t = r->text;
	bool m = false;

	if (r->memo[i][j] >= 0)
		return r->memo[i][j];
	if (i == r->n) {
		m = j == r->len;
	} else {
		const struct ref_tok *k = &r->toks[i];
		unsigned char c = (unsigned char)t[j];

		switch (k->kind) {
		case R_LIT:
			m = j < r->len && c == k->c && ref_at(r, i + 1, j + 1);
			break;
		case R_ANY:
			m = j < r->len && c != '/' && ref_at(r, i + 1, j + 1);
			break;
		case R_CLASS:
			m = j < r->len && ((k->set[c >> 3] >> (c & 7)) & 1) &&
			    ref_at(r, i + 1, j + 1);
			break;
		case R_STAR:
			m = ref_at(r, i + 1, j) || (j < r->len && c != '/' && ref_at(r, i, j + 1));
			break;
		case R_DSTAR:
			m = ref_at(r, i + 1, j) || (j < r->len && ref_at(r, i, j + 1));
			break;
		case R_DSLASH: /* zero directories, or any run that ends with '/' */
			m = ref_at(r, i + 1, j);
			for (size_t e = j; !m && e < r->len; e++)
				if (t[e] == '/')
					m = ref_at(r, i + 1, e + 1);
			break;
		}
	}
	r->memo[i][j] = (signed char)m;
	return m;
}

static bool ref_match_toks(const struct ref_tok *toks, size_t n, const char *text)
{
	static struct ref r;

	r.toks = toks;
	r.n = n;
	r.text = text;
	r.len = strlen(text);
	memset(r.memo, -1, sizeof(r.memo));
	return ref_at(&r, 0, 0);
}

static bool ref_match(const char *pattern, const char *text)
{
	struct ref_tok toks[CAP] = {0}; /* zeroed: GCC's sanitizer build cannot see it is set */
	long n = ref_tokenize(pattern, toks);

	if (n < 0)
		abort(); /* sbx_glob_check accepted it */
	if (ref_match_toks(toks, (size_t)n, text))
		return true;
	/* "dir/" + a double star (however many stars) also names dir itself. */
	if (n >= 2 && toks[n - 1].kind == R_DSTAR && toks[n - 2].kind == R_LIT &&
	    toks[n - 2].c == '/' && !toks[n - 2].escaped) {
		if (n == 2)
			return strcmp(text, "/") == 0;
		return ref_match_toks(toks, (size_t)n - 2, text);
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char pattern[CAP + 1], text[CAP + 1];
	const uint8_t *zero = memchr(data, 0, size);
	size_t plen, tlen;
	size_t off;

	if (!zero)
		return 0;
	plen = (size_t)(zero - data);
	tlen = size - plen - 1;
	if (plen > CAP || tlen > CAP || memchr(zero + 1, 0, tlen))
		return 0;
	memcpy(pattern, data, plen);
	pattern[plen] = '\0';
	memcpy(text, zero + 1, tlen);
	text[tlen] = '\0';

	if (sbx_glob_check(pattern, &off, NULL) < 0) {
		if (off > plen)
			abort();
		(void)sbx_glob_match(pattern, text); /* defined enough not to crash */
		return 0;
	}
	if (sbx_glob_match(pattern, text) != ref_match(pattern, text))
		abort();
	/* a literal pattern matches exactly itself (and "dir/..." nothing else) */
	if (sbx_glob_is_literal(pattern) && sbx_glob_match(pattern, pattern) != true)
		abort();
	return 0;
}
