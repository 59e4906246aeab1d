/* SPDX-License-Identifier: MIT */
/*
 * sbx explain in core: the audit log reader (what the formatters write reads back; malformed
 * lines are refused) and the narrowest change for each kind of rule, as a table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/audit.h"
#include "sbx/explain.h"
#include "sbx/supervise.h"

static struct sbx_jsonl j;

static int parse(const char *line)
{
	return sbx_jsonl_parse(line, strlen(line), &j);
}

static void test_reader_scalars_and_arrays(void **state)
{
	(void)state;
	assert_int_equal(parse("{\"v\":1,\"type\":\"end\",\"label\":null,\"ok\":true,"
	                       "\"argv\":[\"rm\",\"-rf\",\"a b\"],\"n\":-12.5e3,\"e\":[]}"),
	                 0);
	assert_string_equal(sbx_jsonl_get(&j, "v"), "1");
	assert_string_equal(sbx_jsonl_get(&j, "type"), "end");
	assert_null(sbx_jsonl_get(&j, "label"));
	assert_null(sbx_jsonl_get(&j, "absent"));
	assert_string_equal(sbx_jsonl_get(&j, "ok"), "true");
	assert_string_equal(sbx_jsonl_get(&j, "argv"), "rm -rf a b");
	assert_string_equal(sbx_jsonl_get(&j, "n"), "-12.5e3");
	assert_string_equal(sbx_jsonl_get(&j, "e"), "");
	/* escapes, surrogate pairs, a control byte kept for the printer to escape */
	assert_int_equal(parse("{\"p\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\u001b]0;x\\u0007\"}"),
	                 0);
	assert_string_equal(sbx_jsonl_get(&j, "p"), "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80\x1b]0;x\x07");
	assert_int_equal(parse("  { }  "), 0);
	assert_int_equal(j.n, 0);
}

static void test_reader_refuses_malformed(void **state)
{
	static const char *const bad[] = {
	    "",
	    "{",
	    "{\"a\":1",
	    "{\"a\":1}x",
	    "{\"a\":1}{\"b\":2}",
	    "{\"a\":{\"b\":1}}",
	    "{\"a\":[[1]]}",
	    "{\"a\":1,\"a\":2}",
	    "{\"a\":\"\\x\"}",
	    "{\"a\":\"\\u12\"}",
	    "{\"a\":\"\\u0000\"}",
	    "{\"a\":\"tab\there\"}",
	    "{a:1}",
	    "{\"a\":tru}",
	    "{\"a\":-}",
	    "[1,2]",
	    "{\"a\":1,}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i]) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
	}
	/* too many members, too long */
	{
		char line[SBX_AUDIT_LINE_MAX + 64];
		size_t n = 0;

		n += (size_t)snprintf(line + n, sizeof(line) - n, "{");
		for (int i = 0; i <= SBX_JSONL_FIELDS_MAX; i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s\"k%d\":1",
			                      i ? "," : "", i);
		snprintf(line + n, sizeof(line) - n, "}");
		assert_int_equal(parse(line), -EINVAL);
		memset(line, ' ', sizeof(line) - 1);
		line[0] = '{';
		line[sizeof(line) - 2] = '}';
		line[sizeof(line) - 1] = '\0';
		assert_int_equal(parse(line), -EINVAL);
	}
}

/* What core's formatter writes for a decision reads back field by field. */
static void test_reader_reads_the_formatter(void **state)
{
	struct sbx_audit_ids ids = {.sandbox = "0123456789abcdef0123456789abcdef",
	                            .label = "task \"7\"\n"};
	struct sbx_sup_req req = {.op = SBX_SUP_OP_DELETE,
	                          .call = "unlinkat",
	                          .t = {.path = "/ws/build/x\x1b[2J"},
	                          .pid = 42,
	                          .comm = "rm"};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_DENY,
	                            .errnum = EACCES,
	                            .decider = SBX_SUP_BY_PERSON,
	                            .rule = "approvals: /ws delete ask",
	                            .asked = SBX_AC_DELETE};
	struct sbx_audit_decision d = {.time_ms = 1764320000123ull,
	                               .req = &req,
	                               .verdict = &v,
	                               .asked_path = "build/x\x1b[2J",
	                               .errnum = EACCES};
	char line[SBX_AUDIT_LINE_MAX];
	size_t n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);

	(void)state;
	assert_true(n < sizeof(line));
	assert_int_equal(sbx_jsonl_parse(line, n, &j), 0);
	assert_string_equal(sbx_jsonl_get(&j, "type"), "decision");
	assert_string_equal(sbx_jsonl_get(&j, "label"), "task \"7\"\n");
	assert_string_equal(sbx_jsonl_get(&j, "resolved"), "/ws/build/x\x1b[2J");
	assert_string_equal(sbx_jsonl_get(&j, "path"), "build/x\x1b[2J");
	assert_string_equal(sbx_jsonl_get(&j, "rule"), "approvals: /ws delete ask");
	assert_string_equal(sbx_jsonl_get(&j, "decider"), "person");
	assert_string_equal(sbx_jsonl_get(&j, "answer"), "deny");
	assert_string_equal(sbx_jsonl_get(&j, "op"), "delete");
	assert_string_equal(sbx_jsonl_get(&j, "comm"), "rm");
	assert_string_equal(sbx_jsonl_get(&j, "pid"), "42");
}

struct fix_case {
	const char *rule, *decider, *path, *want;
};

static void test_fix_table(void **state)
{
	static const struct fix_case cases[] = {
	    {"approvals: /ws delete ask", "person", "/ws/build/x",
	     "approvals: {delete: allow} on the mount /ws, or answer the prompt with y"},
	    {"approvals: /ws delete ask", "timeout", "/ws/x", "within the timeout"},
	    {"approvals: /ws write ask", "rate_limit", "/ws/x", "at most 16 requests wait"},
	    {"approvals: /ws write ask", "no_broker", "/ws/x", "give a broker"},
	    {"approvals: /ws overwrite ask; /ws rename ask", "broker", "/ws/x",
	     "approvals: {overwrite: allow} on the mount /ws"},
	    {"approvals: /ws/src rename deny", "policy", "/ws/src/a",
	     "approvals: {rename: ask} on the mount /ws/src"},
	    {"approvals: /ws delete ask, refused for the session for /ws/build", "grant",
	     "/ws/build/y", "the refusal was remembered"},
	    /* the call the broker answered itself: the broker's, not a remembered one */
	    {"approvals: /ws delete ask, refused for this batch for /ws/build", "broker",
	     "/ws/build/x",
	     "approvals: {delete: allow} on the mount /ws, or have the broker allow"},
	    {"protected: /ws/.git (git's control surface, absent at launch; run `git init` "
	     "outside the sandbox)",
	     "policy", "/ws/.git", "none inside the sandbox: run `git init` outside the sandbox"},
	    {"read caps: /data suffixes (/data/a.bin does not end with .csv, ...)", "policy",
	     "/data/a.bin", "add \".bin\" to suffixes: on the mount /data"},
	    {"read caps: /data suffixes (/data/Makefile does not end with .csv)", "policy",
	     "/data/Makefile", "add the file's ending to suffixes: on the mount /data"},
	    {"read caps: /data max_file_bytes 1048576 (/data/big has 5000000)", "policy",
	     "/data/big", "max_file_bytes: 5000000 (or more) on the mount /data"},
	    {"read-only: /usr/bin/ls (the landlock backend)", "policy", "/usr/bin/ls",
	     "a writable mount covering /usr/bin/ls"},
	    {"hide: /ws/**/.env (matches /ws/a/.env)", "policy", "/ws/a/.env",
	     "unhide: /ws/a/.env (or --unhide /ws/a/.env), or drop /ws/**/.env from hide:"},
	    {"unresolved: openat x (a path that cannot be resolved is denied)", "policy", NULL,
	     "could not be resolved"},
	    {"supervised: protected names hold only for calls sbx performs", "policy", NULL,
	     "none for a sub-sandbox"},
	    /* a hostile log line: an empty class, no mount, an unknown class; never
	     * "approvals: {: allow}" */
	    {"approvals: /ws  ask", "person", "/ws/x", "none to suggest"},
	    {"approvals: ", "person", "/ws/x", "none to suggest"},
	    {"approvals: /ws chmod ask", "person", "/ws/x", "none to suggest"},
	    {"approvals: ws delete ask", "person", "/ws/x", "none to suggest"},
	    {"approvals: cancelled", "cancelled", "/ws/x", "none to suggest"},
	    {"approvals: /ws delete ask", "cancelled", "/ws/x", "told to end"},
	    {"something new", "policy", NULL, "no profile change is known"},
	    {NULL, NULL, NULL, "no rule is recorded"},
	};
	char out[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = sbx_explain_fix(cases[i].rule, cases[i].decider, cases[i].path, out,
		                           sizeof(out));

		assert_true(n < sizeof(out));
		if (!strstr(out, cases[i].want))
			fail_msg("rule %s: got \"%s\", want \"%s\"", cases[i].rule, out,
			         cases[i].want);
	}
	/* cut like snprintf */
	assert_true(sbx_explain_fix("approvals: /ws delete ask", "person", NULL, out, 8) > 8);
	assert_int_equal(strlen(out), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reader_scalars_and_arrays),
	    cmocka_unit_test(test_reader_refuses_malformed),
	    cmocka_unit_test(test_reader_reads_the_formatter),
	    cmocka_unit_test(test_fix_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
