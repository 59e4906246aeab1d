/* SPDX-License-Identifier: MIT */
/*
 * The policy-file loader (sbx_policy_load_buffer, src/core/policy_file.c), fed the bytes of a
 * policy file. Properties: nothing crashes or leaks (ASan); a failure carries a message,
 * and a located one a line and a column, and leaves no policy; a loaded policy has at most
 * SBX_MAX_RULES rules, each with a known operation set, at least one path, and only paths
 * that sbx_glob_check accepts, so that matching them later is well defined.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbx/policy.h"
#include "sbx/profile.h"

#define FUZZ_FILE SBX_SOURCE_DIR "/tests/fixtures/profiles/good/policies/fuzz.yaml"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_policy: property violated: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_policy *p = NULL;
	struct sbx_error err = {0};
	int r = sbx_policy_load_buffer((const char *)data, size, FUZZ_FILE, NULL, &p, &err);

	if (r < 0) {
		check(err.msg[0] != '\0', "a failure has a message");
		check(!err.file[0] || (err.line > 0 && err.column > 0),
		      "a located failure has a line and a column");
		check(p == NULL, "no policy on failure");
		return 0;
	}
	check(p != NULL, "a policy on success");
	check(p->n_rules <= SBX_MAX_RULES, "rules capped");
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct sbx_rule *rule = &p->rules[i];

		check(rule->ops != 0 && (rule->ops & ~SBX_OP_ALL) == 0, "a known operation set");
		check(rule->n_paths > 0, "a rule names a path");
		for (size_t k = 0; k < rule->n_paths; k++) {
			size_t off;

			check(sbx_glob_check(rule->paths[k], &off, NULL) == 0,
			      "paths are valid globs");
			(void)sbx_glob_match(rule->paths[k], "a/b/.env");
		}
	}
	sbx_policy_free(p);
	return 0;
}
