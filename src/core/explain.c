/* SPDX-License-Identifier: MIT */
/*
 * `sbx explain` in core (include/sbx/explain.h): a reader for the audit log's flat JSON
 * records, and the narrowest profile change that would have allowed a denial, from the rule
 * that decided it (src/core/supervise.c writes the rules: "approvals: ...", "protected: ...",
 * "read caps: ...", "read-only: ...", "hide: ...").
 */
#include "sbx/explain.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sbx/supervise.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

/* ---- the reader ---- */

struct rd {
	const char *p, *end;
	struct sbx_jsonl *j;
	bool bad;
};

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n'))
		r->p++;
}

static bool eat(struct rd *r, char c)
{
	ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static void put(struct rd *r, char c)
{
	if (r->j->used + 1 >= sizeof(r->j->arena)) {
		r->bad = true;
		return;
	}
	r->j->arena[r->j->used++] = c;
}

static int hex4(const char *p, const char *end, unsigned *cp)
{
	*cp = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned v = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		             : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
		                                    : 16u;

		if (v > 15)
			return -1;
		*cp = *cp << 4 | v;
	}
	return 0;
}

static void put_utf8(struct rd *r, unsigned cp)
{
	if (cp == 0) {
		r->bad = true; /* a NUL inside a string cannot be kept */
	} else if (cp < 0x80) {
		put(r, (char)cp);
	} else if (cp < 0x800) {
		put(r, (char)(0xc0 | cp >> 6));
		put(r, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put(r, (char)(0xe0 | cp >> 12));
		put(r, (char)(0x80 | (cp >> 6 & 0x3f)));
		put(r, (char)(0x80 | (cp & 0x3f)));
	} else {
		put(r, (char)(0xf0 | cp >> 18));
		put(r, (char)(0x80 | (cp >> 12 & 0x3f)));
		put(r, (char)(0x80 | (cp >> 6 & 0x3f)));
		put(r, (char)(0x80 | (cp & 0x3f)));
	}
}

/* A string's contents, unescaped, appended to the arena (not terminated). */
static void string_body(struct rd *r)
{
	if (!eat(r, '"')) {
		r->bad = true;
		return;
	}
	while (!r->bad) {
		char c;

		if (r->p >= r->end) {
			r->bad = true;
			return;
		}
		c = *r->p++;
		if (c == '"')
			return;
		if ((unsigned char)c < 0x20) {
			r->bad = true;
			return;
		}
		if (c != '\\') {
			put(r, c);
			continue;
		}
		if (r->p >= r->end) {
			r->bad = true;
			return;
		}
		c = *r->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			put(r, c);
			break;
		case 'b':
			put(r, '\b');
			break;
		case 'f':
			put(r, '\f');
			break;
		case 'n':
			put(r, '\n');
			break;
		case 'r':
			put(r, '\r');
			break;
		case 't':
			put(r, '\t');
			break;
		case 'u': {
			unsigned cp, lo;

			if (hex4(r->p, r->end, &cp) < 0) {
				r->bad = true;
				return;
			}
			r->p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && r->end - r->p >= 6 && r->p[0] == '\\' &&
			    r->p[1] == 'u' && hex4(r->p + 2, r->end, &lo) == 0 && lo >= 0xdc00 &&
			    lo < 0xe000) {
				r->p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd; /* a lone surrogate */
			}
			put_utf8(r, cp);
			break;
		}
		default:
			r->bad = true;
			return;
		}
	}
}

/* A scalar appended to the arena; its kind in *kind. */
static void scalar(struct rd *r, enum sbx_jsonl_kind *kind)
{
	ws(r);
	if (r->p >= r->end) {
		r->bad = true;
		return;
	}
	if (*r->p == '"') {
		*kind = SBX_JSONL_STRING;
		string_body(r);
		return;
	}
	if ((size_t)(r->end - r->p) >= 4 && memcmp(r->p, "true", 4) == 0) {
		*kind = SBX_JSONL_BOOL;
		for (const char *s = "true"; *s; s++)
			put(r, *s);
		r->p += 4;
		return;
	}
	if ((size_t)(r->end - r->p) >= 5 && memcmp(r->p, "false", 5) == 0) {
		*kind = SBX_JSONL_BOOL;
		for (const char *s = "false"; *s; s++)
			put(r, *s);
		r->p += 5;
		return;
	}
	if ((size_t)(r->end - r->p) >= 4 && memcmp(r->p, "null", 4) == 0) {
		*kind = SBX_JSONL_NULL;
		r->p += 4;
		return;
	}
	*kind = SBX_JSONL_NUMBER;
	if (r->p < r->end && *r->p == '-')
		put(r, *r->p++);
	if (r->p >= r->end || *r->p < '0' || *r->p > '9') {
		r->bad = true;
		return;
	}
	while (r->p < r->end && strchr("0123456789.eE+-", *r->p))
		put(r, *r->p++);
}

int sbx_jsonl_parse(const char *line, size_t len, struct sbx_jsonl *out)
{
	struct rd r = {.p = line, .end = line + len, .j = out};

	out->n = 0;
	out->used = 0;
	if (len > SBX_AUDIT_LINE_MAX || !eat(&r, '{'))
		return -EINVAL;
	if (eat(&r, '}'))
		goto done;
	do {
		struct sbx_jsonl_field *f;
		size_t key_at = out->used, val_at;

		if (out->n >= SBX_JSONL_FIELDS_MAX)
			return -EINVAL;
		f = &out->f[out->n];
		string_body(&r);
		put(&r, '\0');
		if (r.bad || !eat(&r, ':'))
			return -EINVAL;
		f->key = out->arena + key_at;
		for (size_t i = 0; i < out->n; i++)
			if (strcmp(out->f[i].key, f->key) == 0)
				return -EINVAL;
		val_at = out->used;
		if (eat(&r, '[')) {
			f->kind = SBX_JSONL_ARRAY;
			if (!eat(&r, ']')) {
				do {
					enum sbx_jsonl_kind k = SBX_JSONL_NULL;

					if (out->used > val_at)
						put(&r, ' ');
					scalar(&r, &k);
					if (r.bad || k == SBX_JSONL_ARRAY)
						return -EINVAL;
				} while (eat(&r, ','));
				if (!eat(&r, ']'))
					return -EINVAL;
			}
		} else {
			scalar(&r, &f->kind);
		}
		put(&r, '\0');
		if (r.bad)
			return -EINVAL;
		f->value = f->kind == SBX_JSONL_NULL ? NULL : out->arena + val_at;
		out->n++;
	} while (eat(&r, ','));
	if (!eat(&r, '}'))
		return -EINVAL;
done:
	ws(&r);
	return r.p == r.end ? 0 : -EINVAL;
}

const char *sbx_jsonl_get(const struct sbx_jsonl *j, const char *key)
{
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->f[i].key, key) == 0)
			return j->f[i].value;
	return NULL;
}

/* ---- the narrowest change ---- */

/* The next space-delimited word of s into out; returns what follows it. */
static const char *word(const char *s, char *out, size_t size)
{
	size_t n;

	while (*s == ' ')
		s++;
	n = strcspn(s, " ;,");
	snprintf(out, size, "%.*s", (int)n, s);
	return s + n;
}

static const char *starts(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

static bool known_class(const char *cls)
{
	for (int c = 0; c < SBX_AC_COUNT; c++)
		if (strcmp(cls, sbx_approval_class_name((enum sbx_approval_class)c)) == 0)
			return true;
	return false;
}

/* What to do about a broker that said no, or could not say yes, for an ask. */
static const char *ask_hint(const char *decider)
{
	if (!decider)
		return "or answer the prompt";
	if (strcmp(decider, "person") == 0)
		return "or answer the prompt with y (this batch) or a (the session)";
	if (strcmp(decider, "timeout") == 0)
		return "or answer within the timeout (--approve-timeout SECONDS)";
	if (strcmp(decider, "rate_limit") == 0)
		return "or ask fewer at once: at most " STR(
		    SBX_SUP_PENDING_MAX) " requests wait and " STR(SBX_SUP_RATE_PER_MIN) " are "
		                                                                         "asked a "
		                                                                         "minute";
	if (strcmp(decider, "no_broker") == 0)
		return "or give a broker that can answer (--approve tty, cmd:PROGRAM or "
		       "socket:PATH; a parent sandbox that supervises leaves none)";
	if (strcmp(decider, "cancelled") == 0)
		return "or let the question be answered (sbx was told to end while it asked)";
	if (strcmp(decider, "broker") == 0)
		return "or have the broker allow it";
	if (strcmp(decider, "policy") == 0)
		return "or choose a broker other than --approve deny";
	return "or answer the prompt";
}

size_t sbx_explain_fix(const char *rule, const char *decider, const char *path, char *out,
                       size_t size)
{
	char target[4096], cls[32], rest[64];
	const char *s;

	if (!rule)
		return (size_t)snprintf(out, size, "no rule is recorded: nothing to change");
	if ((s = starts(rule, "approvals: "))) {
		bool remembered;

		s = word(s, target, sizeof(target));
		s = word(s, cls, sizeof(cls));
		s = word(s, rest, sizeof(rest));
		/* a rule from a hostile or damaged log may name no mount or no known class:
		 * nothing is suggested rather than "approvals: {: allow}" */
		if (target[0] != '/' || !known_class(cls))
			return (size_t)snprintf(out, size,
			                        "none to suggest: the recorded rule names no mount "
			                        "and approval class");
		/* "..., refused for this batch for SCOPE": decided again with the grant the
		 * answer left; only a later call of the batch is the grant's own decision */
		remembered =
		    strstr(s, "refused") != NULL && decider && strcmp(decider, "grant") == 0;
		if (strcmp(rest, "deny") == 0)
			return (size_t)snprintf(out, size,
			                        "approvals: {%s: ask} on the mount %s, to be asked "
			                        "(or {%s: allow})",
			                        cls, target, cls);
		if (remembered)
			return (size_t)snprintf(
			    out, size,
			    "approvals: {%s: allow} on the mount %s, or answer again: the refusal "
			    "was remembered (remember: once lasts while the batch goes on, session "
			    "for the sandbox's life)",
			    cls, target);
		return (size_t)snprintf(out, size, "approvals: {%s: allow} on the mount %s, %s",
		                        cls, target, ask_hint(decider));
	}
	if ((s = starts(rule, "protected: "))) {
		/* "protected: PATH (WHY, absent at launch; FIX)...": the rule says what to do */
		const char *fix = strstr(s, "; ");
		const char *close = fix ? strchr(fix, ')') : NULL;

		if (fix && close)
			return (size_t)snprintf(out, size,
			                        "none inside the sandbox: %.*s (a protected path "
			                        "is never created from inside)",
			                        (int)(close - fix - 2), fix + 2);
		return (size_t)snprintf(out, size,
		                        "none inside the sandbox: create it outside if it is "
		                        "wanted");
	}
	if ((s = starts(rule, "read caps: "))) {
		const char *caps;

		s = word(s, target, sizeof(target));
		caps = s;
		while (*caps == ' ')
			caps++;
		if (starts(caps, "suffixes")) {
			const char *name = path ? strrchr(path, '/') : NULL;
			const char *dot = name ? strrchr(name, '.') : NULL;

			if (dot && dot != name + 1 && dot[1])
				return (size_t)snprintf(out, size,
				                        "add \"%s\" to suffixes: on the mount %s",
				                        dot, target);
			return (size_t)snprintf(
			    out, size,
			    "add the file's ending to suffixes: on the mount %s "
			    "(or drop suffixes: there)",
			    target);
		}
		if (starts(caps, "max_file_bytes")) {
			const char *has = strstr(caps, " has ");
			unsigned long long n = 0;

			if (has && sscanf(has + 5, "%llu", &n) == 1)
				return (size_t)snprintf(
				    out, size, "max_file_bytes: %llu (or more) on the mount %s", n,
				    target);
			return (size_t)snprintf(out, size,
			                        "a larger max_file_bytes: on the mount %s", target);
		}
		return (size_t)snprintf(out, size, "the read caps of the mount %s", target);
	}
	if ((s = starts(rule, "read-only: ")))
		return (size_t)snprintf(out, size,
		                        "a writable mount covering %s (the landlock backend "
		                        "refuses metadata changes outside the writable mounts), "
		                        "or the namespaces backend",
		                        path ? path : "the path");
	if ((s = starts(rule, "hide: "))) {
		s = word(s, target, sizeof(target));
		return (size_t)snprintf(out, size,
		                        "unhide: %s (or --unhide %s), or drop %s from hide:",
		                        path ? path : "PATH", path ? path : "PATH", target);
	}
	if (starts(rule, "unresolved: "))
		return (size_t)snprintf(out, size,
		                        "none: the path could not be resolved when the call was "
		                        "made (a name that changed meanwhile); a path that cannot "
		                        "be resolved is always denied");
	if (starts(rule, "supervised: "))
		return (size_t)snprintf(out, size,
		                        "none for a sub-sandbox: run the call in the sandbox "
		                        "itself, where the supervisor can act for it");
	return (size_t)snprintf(out, size, "no profile change is known for this rule");
}
