/* SPDX-License-Identifier: MIT */
/*
 * The broker's answer (sbx_sup_answer_parse, src/core/supervise.c), fed any bytes: a broker is
 * another program, a socket another party. Properties: nothing crashes or leaks (ASan); a
 * failure is a deny that says nothing else; an accepted answer is valid JSON (by the tests'
 * own checker, tests/json_check.h), at most 4096 bytes, for id 7, and its reason, escaped for
 * text, holds no control byte.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "sbx/supervise.h"

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_answer: property violated: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	char reason[64];
	bool allow = true;
	enum sbx_sup_remember remember = SBX_SUP_REMEMBER_SESSION;
	char idtext[32];
	int r;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	r = sbx_sup_answer_parse(line, 7, &allow, &remember, reason, sizeof(reason));
	check(r == 0 || r == -EINVAL, "0 or -EINVAL");
	check(memchr(reason, '\0', sizeof(reason)) != NULL, "the reason is a string");
	if (r < 0) {
		check(!allow, "a failure denies");
		check(remember == SBX_SUP_REMEMBER_ONCE, "a failure remembers nothing");
		check(reason[0] == '\0', "a failure gives no reason");
	} else {
		check(strlen(line) <= 4096, "an answer is at most 4096 bytes");
		check(json_valid(line), "an accepted answer is JSON");
		check(json_get(line, "id", idtext, sizeof(idtext)) && strcmp(idtext, "7") == 0,
		      "an accepted answer is for its request");
		for (const unsigned char *p = (const unsigned char *)reason; *p; p++)
			check(*p >= 0x20 && *p != 0x7f, "the reason has no control byte");
		/* the same bytes for another request are refused */
		check(sbx_sup_answer_parse(line, 8, &allow, &remember, NULL, 0) == -EINVAL,
		      "another id is refused");
	}
	free(line);
	return 0;
}
