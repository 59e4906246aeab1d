/* SPDX-License-Identifier: MIT */
/* The audit log's reader for sbx explain (src/core/explain.c, sbx_jsonl_parse), on any bytes.
 * Properties: it accepts or refuses (-EINVAL) without reading past the input; an accepted
 * record's keys are unique and every value but null's is a string; the narrowest-change
 * text for any rule and decider it yields fits what it says it needs. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/explain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sbx_jsonl j;
	char *line = malloc(size ? size : 1), fix[256];
	int r;

	if (!line)
		return 0;
	memcpy(line, data, size);
	r = sbx_jsonl_parse(line, size, &j);
	if (r != 0 && r != -EINVAL)
		abort();
	if (r == 0) {
		for (size_t i = 0; i < j.n; i++) {
			if (!j.f[i].key || (j.f[i].kind != SBX_JSONL_NULL && !j.f[i].value))
				abort();
			for (size_t k = 0; k < i; k++)
				if (strcmp(j.f[i].key, j.f[k].key) == 0)
					abort();
		}
		size_t need =
		    sbx_explain_fix(sbx_jsonl_get(&j, "rule"), sbx_jsonl_get(&j, "decider"),
		                    sbx_jsonl_get(&j, "resolved"), fix, sizeof(fix));
		if (strlen(fix) != (need < sizeof(fix) ? need : sizeof(fix) - 1))
			abort();
	}
	free(line);
	return 0;
}
