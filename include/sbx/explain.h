/* SPDX-License-Identifier: MIT */
#ifndef SBX_EXPLAIN_H
#define SBX_EXPLAIN_H

/*
 * `sbx explain` (sbx(1), EXPLAIN): reading the audit log's records back (include/sbx/audit.h)
 * and saying, for a denial, the narrowest profile change that would have allowed it. Pure.
 */

#include <stddef.h>

#include "sbx/audit.h"

/* ---- one JSON Lines record: a flat object of scalars and arrays of scalars ---- */

enum sbx_jsonl_kind {
	SBX_JSONL_STRING = 0,
	SBX_JSONL_NUMBER,
	SBX_JSONL_BOOL,  /* value "true" or "false" */
	SBX_JSONL_NULL,  /* value NULL */
	SBX_JSONL_ARRAY, /* value: the elements' texts joined by one space */
};

#define SBX_JSONL_FIELDS_MAX 64

struct sbx_jsonl_field {
	const char *key;   /* unescaped */
	const char *value; /* unescaped text (NULL for null); may hold any byte but NUL:
	                      escape it before printing */
	enum sbx_jsonl_kind kind;
};

struct sbx_jsonl {
	struct sbx_jsonl_field f[SBX_JSONL_FIELDS_MAX];
	size_t n;
	char arena[2 * SBX_AUDIT_LINE_MAX]; /* the keys and values */
	size_t used;
};

/* Parse one line (len bytes, no newline; at most SBX_AUDIT_LINE_MAX): 0, or -EINVAL for
 * anything but one object of at most SBX_JSONL_FIELDS_MAX members whose values are scalars
 * or arrays of scalars (a nested object, a duplicate key, trailing bytes, a bad escape). */
int sbx_jsonl_parse(const char *line, size_t len, struct sbx_jsonl *out);

/* The value of key (NULL when absent or null). */
const char *sbx_jsonl_get(const struct sbx_jsonl *j, const char *key);

/* ---- the narrowest change ---- */

/*
 * What would have allowed a denial, in words, from its rule (sbx_sup_verdict.rule) and who
 * decided (sbx_sup_decider_name: "policy", "person", "timeout", ...); path is the sandbox
 * path (may be NULL). For example, for rule "approvals: /ws delete ask" decided by a person:
 * "approvals: {delete: allow} on the mount /ws, or answer the prompt with y (once) or a
 * (the session)". Written as snprintf does; returns the length needed.
 */
size_t sbx_explain_fix(const char *rule, const char *decider, const char *path, char *out,
                       size_t size);

#endif
