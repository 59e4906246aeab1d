/* SPDX-License-Identifier: MIT */
/* "Did you mean" (src/core/suggest.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sbx/suggest.h"

static void test_distance(void **state)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} t[] = {
	    {"", "", 0},
	    {"run", "run", 0},
	    {"rn", "run", 1},
	    {"urn", "run", 1},
	    {"rnu", "run", 1},
	    {"kitten", "sitting", 3},
	    {"", "abc", 3},
	    {"abc", "", 3},
	    {"workspce", "workspace", 1},
	    {"chek", "check", 1},
	    {"profles", "profiles", 1},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(sbx_edit_distance(t[i].a, t[i].b), t[i].d);
		assert_int_equal(sbx_edit_distance(t[i].b, t[i].a), t[i].d);
	}
	char big[SBX_SUGGEST_MAX + 2];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(sbx_edit_distance(big, "a"), SIZE_MAX);
}

static void test_suggest(void **state)
{
	static const char *const commands[] = {"run",    "check",  "resolve", "profiles",
	                                       "doctor", "status", "explain", "help"};
	static const char *const profiles[] = {"claude-agent", "ci-job", "code-reviewer",
	                                       "restricted-agent", "no-secrets"};
	static const char *const flags[] = {"--workspace", "--workdir",   "--volume", "--verbose",
	                                    "--readonly",  "--read-only", "--net",    "--network"};
	static const struct {
		const char *word;
		const char *const *cands;
		size_t n;
		const char *want; /* NULL: nothing near */
	} t[] = {
	    {"rnu", commands, 8, "run"},
	    {"chekc", commands, 8, "check"},
	    {"profile", commands, 8, "profiles"},
	    {"docter", commands, 8, "doctor"},
	    {"xyz", commands, 8, NULL},
	    {"deploy", commands, 8, NULL},
	    {"claud-agent", profiles, 5, "claude-agent"},
	    {"claude", profiles, 5, "claude-agent"}, /* unfinished */
	    {"cijob", profiles, 5, "ci-job"},
	    {"reviewer", profiles, 5, NULL},
	    {"--workspce", flags, 8, "--workspace"},
	    {"--verbos", flags, 8, "--verbose"},
	    {"--netwrok", flags, 8, "--network"},
	    {"--rm", flags, 8, NULL},
	    {"", flags, 8, NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = sbx_suggest(t[i].word, t[i].cands, t[i].n);

		if (!t[i].want)
			assert_null(got);
		else
			assert_string_equal(got, t[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_distance),
	    cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
