/* SPDX-License-Identifier: MIT */
/*
 * The audit log's records (include/sbx/audit.h): each is one line of valid JSON (by the tests'
 * own checker), whatever bytes its paths and arguments hold, and still when it is too long and
 * cut; the time is RFC 3339 in UTC; SHA-256 against FIPS 180-4's vectors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "sbx/audit.h"
#include "sbx/error.h"

#define SANDBOX "0123456789abcdef0123456789abcdef"
#define PARENT  "fedcba9876543210fedcba9876543210"

static const struct sbx_audit_ids ids = {SANDBOX, NULL, "task-7"};
static const struct sbx_audit_ids child_ids = {SANDBOX, PARENT, NULL};

static char line[SBX_AUDIT_LINE_MAX + 64];

static void expect(const char *text, const char *key, const char *want)
{
	char val[SBX_AUDIT_LINE_MAX];

	if (!json_get(text, key, val, sizeof(val))) {
		print_error("no \"%s\" in %s\n", key, text);
		fail();
	}
	if (strcmp(val, want) != 0) {
		print_error("\"%s\": got \"%s\", want \"%s\"\n", key, val, want);
		fail();
	}
}

/* Whole, valid, one line, within the limit. */
static void check_line(const char *text, size_t n)
{
	assert_int_equal(n, strlen(text));
	assert_true(n < SBX_AUDIT_LINE_MAX);
	assert_null(strchr(text, '\n'));
	if (!json_valid(text)) {
		print_error("not JSON: %s\n", text);
		fail();
	}
}

static void test_time(void **state)
{
	static const struct {
		uint64_t ms;
		const char *text;
	} cases[] = {
	    {0, "1970-01-01T00:00:00.000Z"},
	    {999, "1970-01-01T00:00:00.999Z"},
	    {951782400000u, "2000-02-29T00:00:00.000Z"}, /* a leap day of a century */
	    {951868799999u, "2000-02-29T23:59:59.999Z"},
	    {951868800000u, "2000-03-01T00:00:00.000Z"},
	    {1709164800000u, "2024-02-29T00:00:00.000Z"},
	    {4107542400000u, "2100-03-01T00:00:00.000Z"}, /* 2100 is no leap year */
	    {1795854371123u, "2026-11-28T08:26:11.123Z"},
	    {253402300799999u, "9999-12-31T23:59:59.999Z"},
	};
	struct sbx_audit_end e = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n;

		e.time_ms = cases[i].ms;
		n = sbx_audit_fmt_end(line, sizeof(line), &ids, &e);
		check_line(line, n);
		expect(line, "time", cases[i].text);
	}
}

static void test_start(void **state)
{
	char *const argv[] = {"claude",      "--print",  "x\x1b]52;c;aGk=\x07",
	                      "caf\xc3\xa9", "\xff\xfe", NULL};
	struct sbx_audit_start s = {.time_ms = 1000,
	                            .version = "0.13.0",
	                            .profile = "claude-agent",
	                            .digest =
	                                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca4959"
	                                "91b7852b855",
	                            .argv = argv,
	                            .uid = 1000,
	                            .pid = 4242,
	                            .depth = 1,
	                            .backend = "namespaces",
	                            .supervised = true};
	size_t n;

	(void)state;
	n = sbx_audit_fmt_start(line, sizeof(line), &ids, &s);
	check_line(line, n);
	expect(line, "v", "1");
	expect(line, "type", "start");
	expect(line, "sandbox", SANDBOX);
	expect(line, "parent", "null");
	expect(line, "label", "task-7");
	expect(line, "profile", "claude-agent");
	expect(line, "uid", "1000");
	expect(line, "pid", "4242");
	expect(line, "depth", "1");
	expect(line, "backend", "namespaces");
	expect(line, "supervised", "true");
	/* control bytes escaped, ill-formed UTF-8 replaced, the rest as it is */
	expect(line, "argv",
	       "[\"claude\",\"--print\",\"x\\u001b]52;c;aGk=\\u0007\",\"caf\xc3\xa9\","
	       "\"\\ufffd\\ufffd\"]");
	assert_null(strstr(line, "\"cut\""));
	/* a child's record names its parent */
	n = sbx_audit_fmt_start(line, sizeof(line), &child_ids, &s);
	check_line(line, n);
	expect(line, "parent", PARENT);
	expect(line, "label", "null");
	/* no argv: an empty list */
	s.argv = NULL;
	n = sbx_audit_fmt_start(line, sizeof(line), &ids, &s);
	check_line(line, n);
	expect(line, "argv", "[]");
}

static void test_decision(void **state)
{
	struct sbx_sup_req req = {.op = SBX_SUP_OP_CREATE,
	                          .call = "mkdirat",
	                          .t = {.path = "/ws/.git\n{\"forged\":1}", .name = ".git"},
	                          .pid = 77,
	                          .comm = "git\x7f",
	                          .now_ms = 5};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_DENY,
	                            .errnum = EACCES,
	                            .decider = SBX_SUP_BY_POLICY,
	                            .asked = SBX_AC_COUNT};
	struct sbx_audit_decision d = {.time_ms = 1795854371123u,
	                               .req = &req,
	                               .verdict = &v,
	                               .asked_path = ".git\n{\"forged\":1}",
	                               .host_path = "/home/u/p/.git",
	                               .errnum = EACCES,
	                               .latency_us = 12,
	                               .batch_uses = 1};
	size_t n;

	(void)state;
	snprintf(v.rule, sizeof(v.rule), "protected: /ws/.git (git's control surface)");
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	expect(line, "type", "decision");
	expect(line, "time", "2026-11-28T08:26:11.123Z");
	expect(line, "pid", "77");
	expect(line, "comm", "git\x7f");
	assert_non_null(strstr(line, "\"comm\":\"git\\u007f\""));
	expect(line, "op", "create");
	expect(line, "call", "mkdirat");
	expect(line, "path", ".git\n{\"forged\":1}");
	expect(line, "resolved", "/ws/.git\n{\"forged\":1}");
	expect(line, "path2", "null");
	expect(line, "host_path", "/home/u/p/.git");
	expect(line, "rule", "protected: /ws/.git (git's control surface)");
	expect(line, "decider", "policy");
	expect(line, "answer", "deny");
	expect(line, "class", "null");
	expect(line, "errno", "13");
	expect(line, "error", "EACCES");
	expect(line, "latency_us", "12");
	expect(line, "narrower", "false");

	/* a grant's answer, an unnamed errno */
	v.answer = SBX_SUP_PERFORM;
	v.decider = SBX_SUP_BY_GRANT;
	v.asked = SBX_AC_DELETE;
	d.errnum = 0;
	d.batch_uses = 1204;
	req.op = SBX_SUP_OP_DELETE;
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	expect(line, "decider", "grant");
	expect(line, "answer", "perform");
	expect(line, "class", "delete");
	expect(line, "batch", "1204");
	expect(line, "error", "null");
	d.errnum = 4095;
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	expect(line, "errno", "4095");
	expect(line, "error", "null");

	/* continue: the kernel does the call, its result is unknown to sbx */
	v.answer = SBX_SUP_CONTINUE;
	v.decider = SBX_SUP_BY_POLICY;
	d.errnum = 0;
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	expect(line, "answer", "continue");
	expect(line, "errno", "null");
	expect(line, "error", "null");
	assert_null(strstr(line, "_hex"));

	/* a name of ill-formed UTF-8: its bytes beside it, so that "a\xff.txt" and
	 * "a\uFFFD.txt" are two records (an outside attack's note) */
	d.asked_path = "a\xff.txt";
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	assert_non_null(strstr(line, "\"path\":\"a\\ufffd.txt\",\"path_hex\":\"61ff2e747874\""));
	d.asked_path = "a\xef\xbf\xbd.txt";
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	assert_null(strstr(line, "path_hex"));
}

static void test_end(void **state)
{
	struct sbx_audit_end e = {.time_ms = 2000,
	                          .status = -1,
	                          .signal = 9,
	                          .killed = "sbx killed",
	                          .duration_ms = 1000,
	                          .asked = 3,
	                          .allowed = 2,
	                          .denied = 1};
	size_t n;

	(void)state;
	n = sbx_audit_fmt_end(line, sizeof(line), &child_ids, &e);
	check_line(line, n);
	expect(line, "type", "end");
	expect(line, "status", "null");
	expect(line, "signal", "9");
	expect(line, "killed", "sbx killed");
	expect(line, "peak_rss_kb", "null");
	expect(line, "asked", "3");
	expect(line, "allowed", "2");
	expect(line, "denied", "1");
	e.status = 0;
	e.signal = 0;
	e.killed = NULL;
	e.peak_rss_kb = 5120;
	n = sbx_audit_fmt_end(line, sizeof(line), &child_ids, &e);
	check_line(line, n);
	expect(line, "status", "0");
	expect(line, "signal", "null");
	expect(line, "killed", "null");
	expect(line, "peak_rss_kb", "5120");
}

/* Too long for a line: still one line of valid JSON, marked cut, the ids kept whole. */
static void test_cut(void **state)
{
	enum { N_ARGS = 3000 };
	char **argv = calloc(N_ARGS + 1, sizeof(char *));
	char *big = malloc(20000);
	struct sbx_audit_start s = {.version = "0.13.0", .profile = "p", .argv = NULL, .depth = 1};
	struct sbx_sup_req req = {.op = SBX_SUP_OP_CREATE, .call = "openat", .comm = "x"};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_DENY, .errnum = EACCES};
	struct sbx_audit_decision d = {.req = &req, .verdict = &v, .errnum = EACCES};
	char val[64];
	size_t n;

	(void)state;
	assert_non_null(argv);
	assert_non_null(big);
	/* many arguments */
	for (int i = 0; i < N_ARGS; i++)
		argv[i] = "an-argument";
	s.argv = argv;
	n = sbx_audit_fmt_start(line, sizeof(line), &ids, &s);
	check_line(line, n);
	expect(line, "cut", "true");
	expect(line, "sandbox", SANDBOX);
	expect(line, "type", "start");
	/* one huge argument of control bytes (each escapes to 6 bytes) */
	memset(big, '\x01', 19999);
	big[19999] = '\0';
	argv[0] = big;
	argv[1] = NULL;
	n = sbx_audit_fmt_start(line, sizeof(line), &ids, &s);
	check_line(line, n);
	expect(line, "cut", "true");
	/* a cut never splits an escape or a UTF-8 sequence */
	for (size_t i = 0; i + 3 < 19999; i += 4)
		memcpy(big + i, "\xe6\x97\xa5", 3), big[i + 3] = '\x1b';
	n = sbx_audit_fmt_start(line, sizeof(line), &ids, &s);
	check_line(line, n);
	expect(line, "cut", "true");
	/* a decision with paths at the kernel's limit, bytes that escape to 6 each */
	memset(big, '\x7f', 4095);
	big[4095] = '\0';
	req.t.path = big;
	req.t2.path = big;
	d.asked_path = big;
	d.host_path = big;
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	expect(line, "cut", "true");
	expect(line, "decider", "policy");
	expect(line, "answer", "deny");
	/* a smaller buffer: cut harder, still whole */
	n = sbx_audit_fmt_decision(line, 700, &ids, &d);
	assert_true(n < 700);
	check_line(line, n);
	expect(line, "cut", "true");
	/* a buffer too small for any record: the length says so, out holds a prefix */
	n = sbx_audit_fmt_decision(val, sizeof(val), &ids, &d);
	assert_true(n >= sizeof(val));
	assert_true(strlen(val) < sizeof(val));
	assert_int_equal(sbx_audit_fmt_decision(NULL, 0, &ids, &d), n);
	/* a record that fits is not cut */
	big[100] = '\0';
	n = sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
	check_line(line, n);
	assert_null(strstr(line, "\"cut\""));
	free(big);
	free(argv);
}

/* Every byte in a path, one at a time and all together: always valid JSON. */
static void test_every_byte(void **state)
{
	char path[300];
	struct sbx_sup_req req = {.op = SBX_SUP_OP_READ, .call = "openat", .t = {.path = path}};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_CONTINUE};
	struct sbx_audit_decision d = {.req = &req, .verdict = &v, .asked_path = path};

	(void)state;
	for (int c = 1; c < 256; c++) {
		snprintf(path, sizeof(path), "/a%cb", c);
		check_line(line, sbx_audit_fmt_decision(line, sizeof(line), &ids, &d));
	}
	for (int c = 1; c < 256; c++)
		path[c - 1] = (char)c;
	path[255] = '\0';
	check_line(line, sbx_audit_fmt_decision(line, sizeof(line), &ids, &d));
}

static void test_sha256(void **state)
{
	static const struct {
		const char *in;
		size_t repeat;
		const char *hex;
	} cases[] = {
	    /* FIPS 180-4 examples (NIST CSRC) */
	    {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	    {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmno"
	     "p"
	     "qrlmnopqrsmnopqrstnopqrstu",
	     1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
	    {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
	    /* the padding's edges: one block or two */
	    {"a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
	    {"a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
	    {"a", 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
	    {"a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
	    {"a", 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
	    {"a", 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
	    {"a", 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
	};
	char out[65];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t k = strlen(cases[i].in), n = k * cases[i].repeat;
		char *buf = malloc(n + 1);

		assert_non_null(buf);
		for (size_t r = 0; r < cases[i].repeat; r++)
			memcpy(buf + r * k, cases[i].in, k);
		memset(out, 'x', sizeof(out));
		sbx_sha256_hex(buf, n, out);
		assert_string_equal(out, cases[i].hex);
		free(buf);
	}
	{
		unsigned char all[768];

		for (size_t i = 0; i < sizeof(all); i++)
			all[i] = (unsigned char)i;
		sbx_sha256_hex(all, sizeof(all), out);
		assert_string_equal(
		    out, "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363");
	}
}

/* Folding: like decisions less than the gap apart are one pending record with a count,
 * written when a different one comes, every SBX_AUDIT_FOLD_EVERY_MS, and at the end; a
 * different op, rule, answer, decider, errno or command name, or a pause, starts a new run. */
static void test_fold(void **state)
{
	struct sbx_audit_fold f;
	struct sbx_sup_req a = {.op = SBX_SUP_OP_DELETE, .comm = "rm"}, b = a, c = a;
	struct sbx_sup_verdict v = {.answer = SBX_SUP_DENY, .decider = SBX_SUP_BY_GRANT}, w = v;
	uint64_t rep, flush, t = 1000000;

	(void)state;
	memset(&f, 0, sizeof(f));
	snprintf(v.rule, sizeof(v.rule), "approvals: /ws delete ask");
	snprintf(w.rule, sizeof(w.rule), "approvals: /ws delete ask, refused");
	b.comm = "sh";
	c.op = SBX_SUP_OP_RENAME;
	assert_int_equal(sbx_audit_fold(&f, &a, &v, EACCES, t, &rep, &flush), SBX_AUDIT_FOLD_NEW);
	assert_int_equal(flush, 0);
	for (uint64_t i = 1; i <= 1000; i++) {
		assert_int_equal(sbx_audit_fold(&f, &a, &v, EACCES, t + i, &rep, &flush),
		                 SBX_AUDIT_FOLD_KEEP);
		assert_int_equal(rep, i);
	}
	/* another command name: the pending 1000 are flushed first */
	assert_int_equal(sbx_audit_fold(&f, &b, &v, EACCES, t + 1001, &rep, &flush),
	                 SBX_AUDIT_FOLD_NEW);
	assert_int_equal(flush, 1000);
	assert_int_equal(rep, 0);
	/* another rule, op, errno: each a new run */
	assert_int_equal(sbx_audit_fold(&f, &b, &w, EACCES, t + 1002, &rep, &flush),
	                 SBX_AUDIT_FOLD_NEW);
	assert_int_equal(flush, 0);
	assert_int_equal(sbx_audit_fold(&f, &c, &w, EACCES, t + 1003, &rep, &flush),
	                 SBX_AUDIT_FOLD_NEW);
	assert_int_equal(sbx_audit_fold(&f, &c, &w, EPERM, t + 1004, &rep, &flush),
	                 SBX_AUDIT_FOLD_NEW);
	assert_int_equal(sbx_audit_fold(&f, &c, &w, EPERM, t + 1005, &rep, &flush),
	                 SBX_AUDIT_FOLD_KEEP);
	/* a pause longer than the gap ends the run */
	assert_int_equal(
	    sbx_audit_fold(&f, &c, &w, EPERM, t + 1005 + SBX_AUDIT_FOLD_GAP_MS, &rep, &flush),
	    SBX_AUDIT_FOLD_NEW);
	assert_int_equal(flush, 1);
	/* a long run is written every SBX_AUDIT_FOLD_EVERY_MS */
	t += 10000;
	{
		uint64_t written = 0, folded = 0;

		for (uint64_t i = 1; i <= 12000; i++) {
			enum sbx_audit_fold_act act =
			    sbx_audit_fold(&f, &c, &w, EPERM, t + i, &rep, &flush);

			if (act == SBX_AUDIT_FOLD_WRITE) {
				written++;
				folded += rep;
			}
		}
		assert_int_equal(written, 12000 / SBX_AUDIT_FOLD_EVERY_MS);
		folded += sbx_audit_fold_end(&f);
		assert_int_equal(folded, 12000 - 1); /* the first was a NEW */
	}
	assert_int_equal(sbx_audit_fold_end(&f), 0);
}

/* The cap: at most SBX_AUDIT_RATE_MAX records a second; the dropped decisions are said once
 * in the next second's first record, and at the end. */
static void test_rate(void **state)
{
	struct sbx_audit_fold f;
	uint64_t said, admitted = 0, t = 5000000;

	(void)state;
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < 1000; i++) {
		admitted += sbx_audit_rate(&f, t + (uint64_t)i % 1000, 1, 100, &said);
		assert_int_equal(said, 0);
	}
	assert_int_equal(admitted, SBX_AUDIT_RATE_MAX);
	/* the next second: admitted, with the 800 dropped to say first */
	assert_true(sbx_audit_rate(&f, t + 1000, 1, 100, &said));
	assert_int_equal(said, 1000 - SBX_AUDIT_RATE_MAX);
	assert_true(sbx_audit_rate(&f, t + 1001, 1, 100, &said));
	assert_int_equal(said, 0);
	/* a folded record dropped counts its decisions */
	for (int i = 0; i < 1000; i++)
		(void)sbx_audit_rate(&f, t + 1002, 1, 100, &said);
	assert_false(sbx_audit_rate(&f, t + 1003, 50, 100, &said));
	assert_int_equal(sbx_audit_rate_end(&f), 1000 - (SBX_AUDIT_RATE_MAX - 3) + 50);
	assert_int_equal(sbx_audit_rate_end(&f), 0);
	/* bytes count too: 16 KiB records, 8 a second (SBX_AUDIT_BYTES_PER_SEC), and
	 * SBX_AUDIT_BYTES_MAX in all (an outside attack wrote 2.8 MB a second) */
	memset(&f, 0, sizeof(f));
	admitted = 0;
	for (int i = 0; i < 200; i++)
		admitted += sbx_audit_rate(&f, t, 1, 16384, &said);
	assert_int_equal(admitted, SBX_AUDIT_BYTES_PER_SEC / 16384);
	admitted = 0;
	for (uint64_t sec = 1; sec < 4000; sec++)
		for (int i = 0; i < 10; i++)
			admitted += sbx_audit_rate(&f, t + sec * 1000, 1, 16384, &said);
	assert_int_equal((admitted + SBX_AUDIT_BYTES_PER_SEC / 16384) * 16384, SBX_AUDIT_BYTES_MAX);
	assert_false(sbx_audit_rate(&f, t + 5000000, 1, 100, &said));
	/* the records themselves */
	sbx_audit_fmt_suppressed(line, sizeof(line), &ids, 0, 42);
	expect(line, "type", "suppressed");
	expect(line, "count", "42");
	{
		struct sbx_sup_req q = {.op = SBX_SUP_OP_DELETE, .comm = "rm"};
		struct sbx_sup_verdict v = {.answer = SBX_SUP_DENY};
		struct sbx_audit_decision d = {.req = &q, .verdict = &v, .repeated = 4998};

		sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
		expect(line, "repeated", "4998");
		d.repeated = 0;
		sbx_audit_fmt_decision(line, sizeof(line), &ids, &d);
		assert_null(strstr(line, "repeated"));
	}
}

/* The names a decision's errno and a broker's signal are given (the same on every C library) */
static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sbx_errno_name(EACCES), "EACCES");
	assert_string_equal(sbx_errno_name(EROFS), "EROFS");
	assert_string_equal(sbx_errno_name(ECONNREFUSED), "ECONNREFUSED");
	assert_null(sbx_errno_name(0));
	assert_null(sbx_errno_name(4095));
	assert_string_equal(sbx_signal_abbrev(SIGKILL), "KILL");
	assert_string_equal(sbx_signal_abbrev(SIGSYS), "SYS");
	assert_null(sbx_signal_abbrev(0));
	assert_null(sbx_signal_abbrev(-1));
	assert_null(sbx_signal_abbrev(64));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time),     cmocka_unit_test(test_start),
	    cmocka_unit_test(test_decision), cmocka_unit_test(test_end),
	    cmocka_unit_test(test_cut),      cmocka_unit_test(test_every_byte),
	    cmocka_unit_test(test_names),    cmocka_unit_test(test_sha256),
	    cmocka_unit_test(test_fold),     cmocka_unit_test(test_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
