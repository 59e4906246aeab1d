/* SPDX-License-Identifier: MIT */
/* A running sandbox's record (src/core/registry.c), which sbx ps reads from a directory a
 * planted file may sit in. Properties: anything refused is refused with -EBADMSG and nothing
 * left allocated; what is accepted formats to a record that parses to the same fields, and
 * formatting that gives the very same bytes again (the formatter is canonical). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct sbx_reg *a, const struct sbx_reg *b)
{
	if (strcmp(a->id, b->id) || strcmp(a->parent, b->parent) || strcmp(a->digest, b->digest) ||
	    a->sbx_pid != b->sbx_pid || a->sbx_start != b->sbx_start || a->pid != b->pid ||
	    a->pid_start != b->pid_start || a->uid != b->uid || a->start_ms != b->start_ms ||
	    a->depth != b->depth || a->backend != b->backend || strcmp(a->profile, b->profile) ||
	    a->n_argv != b->n_argv || a->argv_cut != b->argv_cut || a->spec_len != b->spec_len ||
	    (a->spec_len && memcmp(a->spec, b->spec, a->spec_len)))
		abort();
	for (size_t i = 0; i < a->n_argv; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_reg r, again;
	char *text = NULL, *text2 = NULL;
	size_t len = 0, len2 = 0;
	int e = sbx_reg_parse((const char *)data, size, &r, NULL);

	if (e < 0) {
		if (e != -EBADMSG || r.profile || r.argv || r.spec)
			abort();
		return 0;
	}
	if (sbx_reg_format(&r, &text, &len, NULL) < 0 || sbx_reg_parse(text, len, &again, NULL) < 0)
		abort();
	same(&r, &again);
	if (sbx_reg_format(&again, &text2, &len2, NULL) < 0 || len2 != len ||
	    memcmp(text, text2, len) != 0)
		abort();
	free(text);
	free(text2);
	sbx_reg_clear(&r);
	sbx_reg_clear(&again);
	return 0;
}
