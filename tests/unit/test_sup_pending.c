/* SPDX-License-Identifier: MIT */
/*
 * Questions pending (include/sbx/sup_pending.h): which call joins a question already pending
 * (the batch's rule: scope, class, thread group, command), the release of a question nobody
 * waits for, and the refusal past the caps. Pure: a table of calls against one pending
 * question.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/sup_pending.h"

static struct sbx_sup_area areas[2];
static struct sbx_sup_plan plan;

static void world(void)
{
	memset(&plan, 0, sizeof(plan));
	memset(areas, 0, sizeof(areas));
	areas[0].target = (char *)"/";
	areas[1].target = (char *)"/ws";
	areas[1].writable = true;
	for (int c = 0; c < SBX_AC_COUNT; c++)
		areas[1].approvals.op[c] = SBX_APPROVE_ASK;
	plan.enabled = true;
	plan.areas = areas;
	plan.n_areas = 2;
}

static const char * final(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A call: op on path (and path2 for a rename), existing or not, by pid/comm. */
struct call {
	enum sbx_sup_op op;
	const char *path, *path2;
	bool exists, exists2;
	int pid;
	const char *comm;
};

static struct sbx_sup_req req_of(const struct call *c)
{
	struct sbx_sup_req r = {0};

	r.op = c->op;
	r.call = c->path2 ? "renameat2" : "openat";
	r.t.path = c->path;
	r.t.name = final(c->path);
	r.t.exists = c->exists;
	r.t.dev = 1;
	r.t.ino = 10;
	if (c->path2) {
		r.t2.path = c->path2;
		r.t2.name = final(c->path2);
		r.t2.exists = c->exists2;
		r.t2.dev = 1;
		r.t2.ino = 10;
	}
	r.pid = c->pid;
	r.comm = c->comm;
	r.now_ms = 1000;
	return r;
}

static int key_of(const struct call *c, struct sbx_sup_qkey *k)
{
	struct sbx_sup_req r = req_of(c);
	struct sbx_sup_verdict v;

	sbx_sup_decide(&plan, NULL, NULL, &r, &v);
	assert_int_equal(v.answer, SBX_SUP_ASK);
	return sbx_sup_qkey_of(&plan, &r, &v, k);
}

/* The pending question: rm (pid 7) deleting under /ws/build. */
static const struct call pending = {SBX_SUP_OP_DELETE, "/ws/build/a.o", NULL, true, false, 7, "rm"};

static const struct {
	const char *what;
	struct call c;
	bool joins;
} rows[] = {
    {"the same subtree, command, process and class",
     {SBX_SUP_OP_DELETE, "/ws/build/b.o", NULL, true, false, 7, "rm"},
     true},
    {"deeper in the same subtree",
     {SBX_SUP_OP_DELETE, "/ws/build/x/y/z.o", NULL, true, false, 7, "rm"},
     true},
    {"the subtree's own directory (rmdir build)",
     {SBX_SUP_OP_DELETE, "/ws/build", NULL, true, false, 7, "rm"},
     true},
    {"another subtree", {SBX_SUP_OP_DELETE, "/ws/src/a.c", NULL, true, false, 7, "rm"}, false},
    {"a subtree whose name starts the same",
     {SBX_SUP_OP_DELETE, "/ws/build2/a.o", NULL, true, false, 7, "rm"},
     false},
    {"another class (a create in the same subtree)",
     {SBX_SUP_OP_CREATE, "/ws/build/new", NULL, false, false, 7, "rm"},
     false},
    {"another process of the same command",
     {SBX_SUP_OP_DELETE, "/ws/build/b.o", NULL, true, false, 8, "rm"},
     false},
    {"the same process under another name",
     {SBX_SUP_OP_DELETE, "/ws/build/b.o", NULL, true, false, 7, "sh"},
     false},
    {"a rename out of the subtree (asks overwrite of its new name first)",
     {SBX_SUP_OP_RENAME, "/ws/build/b.o", "/ws/build/c.o", true, true, 7, "rm"},
     false},
};

static void test_joins_table(void **state)
{
	struct sbx_sup_qkey p, k;

	(void)state;
	world();
	assert_int_equal(key_of(&pending, &p), 0);
	assert_string_equal(p.scope, "/ws/build");
	assert_int_equal(p.cls, SBX_AC_DELETE);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool got;

		assert_int_equal(key_of(&rows[i].c, &k), 0);
		got = sbx_sup_qkey_joins(&p, &k);
		if (got != rows[i].joins)
			fail_msg("%s: joins %d, expected %d", rows[i].what, got, rows[i].joins);
	}
}

/* A call that does not ask has no key, and a key without a scope joins nothing. */
static void test_no_key(void **state)
{
	struct sbx_sup_req r = req_of(&pending);
	struct sbx_sup_verdict v = {.answer = SBX_SUP_PERFORM, .asked = SBX_AC_COUNT};
	struct sbx_sup_qkey k, empty;

	(void)state;
	world();
	assert_int_equal(sbx_sup_qkey_of(&plan, &r, &v, &k), -EINVAL);
	assert_int_equal(sbx_sup_qkey_of(&plan, NULL, &v, &k), -EINVAL);
	memset(&empty, 0, sizeof(empty));
	assert_false(sbx_sup_qkey_joins(&empty, &empty));
	assert_false(sbx_sup_qkey_joins(NULL, &empty));
}

/* Released: pending goes down, counted as denied; the caps' refusals name the cap. */
static void test_release_and_caps(void **state)
{
	struct sbx_sup_session s = {0};
	struct sbx_sup_verdict v = {.answer = SBX_SUP_ASK};

	(void)state;
	snprintf(v.rule, sizeof(v.rule), "approvals: /ws write ask");
	for (int i = 0; i < SBX_SUP_PENDING_MAX; i++)
		assert_true(sbx_sup_session_admit(&s, 1000));
	assert_false(sbx_sup_session_admit(&s, 1000));
	sbx_sup_refuse_capped(&s, &v);
	assert_int_equal(v.answer, SBX_SUP_DENY);
	assert_int_equal(v.errnum, EACCES);
	assert_int_equal(v.decider, SBX_SUP_BY_RATE_LIMIT);
	assert_non_null(strstr(v.rule, "at most 16 questions may wait for an answer at once"));
	assert_non_null(strstr(v.rule, "(approvals: /ws write ask)"));
	sbx_sup_session_release(&s);
	assert_int_equal(s.pending, SBX_SUP_PENDING_MAX - 1);
	assert_int_equal(s.n_denied, 1);
	assert_true(sbx_sup_session_admit(&s, 1000));
	/* the minute's cap */
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < SBX_SUP_RATE_PER_MIN; i++) {
		assert_true(sbx_sup_session_admit(&s, 1000));
		sbx_sup_session_release(&s);
	}
	assert_false(sbx_sup_session_admit(&s, 1000));
	v.answer = SBX_SUP_ASK;
	sbx_sup_refuse_capped(&s, &v);
	assert_non_null(strstr(v.rule, "at most 120 questions are asked a minute"));
	sbx_sup_session_release(NULL);
}

/* ---- provisional files ---- */

/* /ws asks everything (world); /ed asks write and overwrite, allows the rest; /wd asks write
 * and denies overwrite; /wa allows write. */
static struct sbx_sup_area more[5];

static void editor_world(void)
{
	world();
	more[0] = areas[0];
	more[1] = areas[1];
	more[2].target = (char *)"/ed";
	more[2].approvals.op[SBX_AC_WRITE] = SBX_APPROVE_ASK;
	more[2].approvals.op[SBX_AC_OVERWRITE] = SBX_APPROVE_ASK;
	more[3].target = (char *)"/wd";
	more[3].approvals.op[SBX_AC_WRITE] = SBX_APPROVE_ASK;
	more[3].approvals.op[SBX_AC_OVERWRITE] = SBX_APPROVE_DENY;
	more[4].target = (char *)"/wa";
	plan.areas = more;
	plan.n_areas = 5;
}

static const struct {
	const char *what;
	struct call c;
	bool excl, narrower;
	bool ok;
} prov_rows[] = {
    {"mkstemp in an asking folder",
     {SBX_SUP_OP_CREATE, "/ed/tmpab12", NULL, false, false, 7, "ed"},
     true,
     false,
     true},
    {"mkstemp where everything asks",
     {SBX_SUP_OP_CREATE, "/ws/sedXY", NULL, false, false, 7, "ed"},
     true,
     false,
     true},
    {"a create without O_EXCL asks at once",
     {SBX_SUP_OP_CREATE, "/ed/new", NULL, false, false, 7, "ed"},
     false,
     false,
     false},
    {"overwrite denied: a save could never land",
     {SBX_SUP_OP_CREATE, "/wd/tmp1", NULL, false, false, 7, "ed"},
     true,
     false,
     false},
    {"a narrower caller",
     {SBX_SUP_OP_CREATE, "/ed/tmp2", NULL, false, false, 7, "ed"},
     true,
     true,
     false},
    {"an existing file opened O_TRUNC",
     {SBX_SUP_OP_OVERWRITE, "/ed/doc", NULL, true, false, 7, "ed"},
     true,
     false,
     false},
};

static void test_provisional_ok_table(void **state)
{
	(void)state;
	editor_world();
	for (size_t i = 0; i < sizeof(prov_rows) / sizeof(prov_rows[0]); i++) {
		struct sbx_sup_req r = req_of(&prov_rows[i].c);
		struct sbx_sup_verdict v;
		bool got;

		r.excl = prov_rows[i].excl;
		sbx_sup_decide(&plan, NULL, NULL, &r, &v);
		r.narrower = prov_rows[i].narrower; /* decided as the worker: only the flag */
		got = sbx_sup_provisional_ok(&plan, &r, &v);
		if (got != prov_rows[i].ok)
			fail_msg("%s: %d, expected %d", prov_rows[i].what, got, prov_rows[i].ok);
	}
	/* a create that does not ask is not made provisional (nothing to hold) */
	{
		const struct call c = {SBX_SUP_OP_CREATE, "/wa/tmp", NULL, false, false, 7, "ed"};
		struct sbx_sup_req r = req_of(&c);
		struct sbx_sup_verdict v;

		r.excl = true;
		sbx_sup_decide(&plan, NULL, NULL, &r, &v);
		assert_int_not_equal(v.answer, SBX_SUP_ASK);
		assert_false(sbx_sup_provisional_ok(&plan, &r, &v));
	}
}

/* What a provisional file's own name asks: nothing; the rename over a file asks only its
 * overwrite (/ws asks rename too: not asked for the provisional name), a rename to a new
 * name only its create, an unlink nothing. Without the flag, the same calls ask as before. */
static const struct {
	const char *what;
	struct call c;
	enum sbx_sup_answer answer; /* with t_provisional */
	enum sbx_approval_class asked;
	enum sbx_approval_class asked_plain; /* without */
} side_rows[] = {
    {"the editor's rename over the file",
     {SBX_SUP_OP_RENAME, "/ws/tmp1", "/ws/doc", true, true, 7, "ed"},
     SBX_SUP_ASK,
     SBX_AC_OVERWRITE,
     SBX_AC_OVERWRITE},
    {"a rename to a new name",
     {SBX_SUP_OP_RENAME, "/ws/tmp1", "/ws/new", true, false, 7, "ed"},
     SBX_SUP_ASK,
     SBX_AC_WRITE,
     SBX_AC_WRITE},
    {"its unlink",
     {SBX_SUP_OP_DELETE, "/ws/tmp1", NULL, true, false, 7, "ed"},
     SBX_SUP_PERFORM,
     SBX_AC_COUNT,
     SBX_AC_DELETE},
    {"its open for writing",
     {SBX_SUP_OP_WRITE, "/ws/tmp1", NULL, true, false, 7, "ed"},
     SBX_SUP_PERFORM,
     SBX_AC_COUNT,
     SBX_AC_WRITE},
};

static void test_provisional_sides(void **state)
{
	(void)state;
	world();
	for (size_t i = 0; i < sizeof(side_rows) / sizeof(side_rows[0]); i++) {
		struct sbx_sup_req r = req_of(&side_rows[i].c);
		struct sbx_sup_verdict v, plain;
		struct sbx_sup_session s = {0};

		sbx_sup_decide(&plan, NULL, NULL, &r, &plain);
		assert_int_equal(plain.answer, SBX_SUP_ASK);
		if (plain.asked != side_rows[i].asked_plain)
			fail_msg("%s, plain: asked %d", side_rows[i].what, plain.asked);
		r.t_provisional = true;
		sbx_sup_decide(&plan, NULL, NULL, &r, &v);
		if (v.answer == SBX_SUP_CONTINUE)
			v.answer =
			    SBX_SUP_PERFORM; /* the worker's calls are performed either way */
		if (v.answer != side_rows[i].answer)
			fail_msg("%s: answer %d, expected %d", side_rows[i].what, v.answer,
			         side_rows[i].answer);
		if (v.answer == SBX_SUP_ASK && v.asked != side_rows[i].asked)
			fail_msg("%s: asked %d, expected %d", side_rows[i].what, v.asked,
			         side_rows[i].asked);
		/* the answer grants what was asked, and covers the call again */
		if (v.answer == SBX_SUP_ASK) {
			assert_true(sbx_sup_session_admit(&s, 1000));
			assert_int_equal(sbx_sup_session_record(&s, &plan, &r, true,
			                                        SBX_SUP_REMEMBER_ONCE, NULL),
			                 0);
			assert_int_equal(s.n_grants, 1);
			assert_int_equal(s.grants[0].cls, side_rows[i].asked);
			sbx_sup_decide(&plan, NULL, &s, &r, &v);
			assert_int_equal(v.answer, SBX_SUP_PERFORM);
			assert_int_equal(v.decider, SBX_SUP_BY_GRANT);
			sbx_sup_session_clear(&s);
		}
	}
}

static void test_provisional_verdict(void **state)
{
	struct sbx_sup_verdict v = {.answer = SBX_SUP_ASK, .asked = SBX_AC_WRITE};

	(void)state;
	snprintf(v.rule, sizeof(v.rule), "approvals: /ed write ask");
	sbx_sup_provisional_verdict(&v);
	assert_int_equal(v.answer, SBX_SUP_PERFORM);
	assert_int_equal(v.decider, SBX_SUP_BY_POLICY);
	assert_non_null(strstr(v.rule, "approvals: /ed write ask: provisional"));
	assert_non_null(strstr(v.rule, "asked for in 5 s"));
}

/* The request says a provisional file's question is one (a field added to version 1). */
static void test_provisional_json(void **state)
{
	const struct call c = {SBX_SUP_OP_CREATE, "/ed/x", NULL, false, false, 7, "ed"};
	struct sbx_sup_req r;
	struct sbx_sup_verdict v;
	struct sbx_sup_ask ask = {.id = 3, .sandbox_id = "0123456789abcdef0123456789abcdef"};
	char json[4096];

	(void)state;
	editor_world();
	r = req_of(&c);
	sbx_sup_decide(&plan, NULL, NULL, &r, &v);
	ask.req = &r;
	ask.verdict = &v;
	ask.scope = "/ed/x";
	assert_true(sbx_sup_ask_json(json, sizeof(json), &ask) < sizeof(json));
	assert_non_null(strstr(json, ",\"provisional\":false}"));
	ask.provisional = true;
	assert_true(sbx_sup_ask_json(json, sizeof(json), &ask) < sizeof(json));
	assert_non_null(strstr(json, ",\"provisional\":true}"));
	assert_non_null(strstr(json, "\"op\":\"create\",\"class\":\"write\""));
}

/* Room for n more questions: the pending cap and the rate, without changing either. */
static void test_session_room(void **state)
{
	struct sbx_sup_session s = {0};

	(void)state;
	assert_true(sbx_sup_session_room(&s, 1000, SBX_SUP_PENDING_MAX));
	assert_false(sbx_sup_session_room(&s, 1000, SBX_SUP_PENDING_MAX + 1));
	for (int i = 0; i < SBX_SUP_PENDING_MAX - 1; i++)
		assert_true(sbx_sup_session_admit(&s, 1000));
	assert_true(sbx_sup_session_room(&s, 1000, 1));
	assert_false(sbx_sup_session_room(&s, 1000, 2));
	assert_int_equal(s.pending, SBX_SUP_PENDING_MAX - 1); /* unchanged by the question */
	/* the rate: a window spent leaves no room until it passes */
	s.pending = 0;
	s.asked_in_window = SBX_SUP_RATE_PER_MIN;
	s.window_start_ms = 1000;
	assert_false(sbx_sup_session_room(&s, 2000, 1));
	assert_true(sbx_sup_session_room(&s, 1000 + 60000, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_joins_table),       cmocka_unit_test(test_no_key),
	    cmocka_unit_test(test_release_and_caps),  cmocka_unit_test(test_provisional_ok_table),
	    cmocka_unit_test(test_provisional_sides), cmocka_unit_test(test_provisional_verdict),
	    cmocka_unit_test(test_provisional_json),  cmocka_unit_test(test_session_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
