/* SPDX-License-Identifier: MIT */
/*
 * Nesting in core: the codec (round trips, truncation, garbage), narrowing per docs/design.md,
 * Nesting (the hierarchical-sandbox seed's test list and the mount-model seed's inheritance table,
 * in sbx terms), nesting 8 deep, and a property: random chains of narrowing never widen.
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

#include "sbx/finish.h"
#include "sbx/landlock.h"
#include "sbx/nest.h"
#include "sbx/policy.h"

#define RW (SBX_OP_ALL)
#define RO (SBX_OP_ALL & ~SBX_OP_MODIFY)

/* A parent like the seed's: root-less, /usr system, /src rw, /secrets rw, /out rw,
 * /cache ro, /src/.git/hooks ro, /src/.env hidden. */
static struct sbx_nest *parent_fixture(void)
{
	struct sbx_nest *n = sbx_nest_new();

	assert_non_null(n);
	n->profile = strdup("claude-agent");
	n->depth = 1;
	n->nesting = true;
	assert_int_equal(sbx_nest_put(n, "/usr", SBX_NEST_BIND, RO, SBX_NEST_F_SYSTEM, NULL), 0);
	assert_int_equal(
	    sbx_nest_put(n, "/bin", SBX_NEST_SYMLINK, SBX_OP_LOOK, SBX_NEST_F_SYSTEM, NULL), 0);
	assert_int_equal(sbx_nest_put(n, "/src", SBX_NEST_BIND, RW, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(n, "/secrets", SBX_NEST_BIND, RW, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(n, "/out", SBX_NEST_BIND, RW, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(n, "/cache", SBX_NEST_BIND, RO, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(n, "/src/.git/hooks", SBX_NEST_BIND, RO, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(n, "/src/.env", SBX_NEST_HIDDEN, 0, 0, NULL), 0);
	return n;
}

/* ---- codec ---- */

static void test_codec_round_trip(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	_cleanup_nest_ struct sbx_nest *back = NULL;
	unsigned char *a = NULL, *b = NULL;
	size_t alen, blen;

	(void)state;
	assert_int_equal(sbx_nest_encode(n, &a, &alen, NULL), 0);
	assert_int_equal(sbx_nest_decode(a, alen, &back, NULL), 0);
	assert_string_equal(back->profile, "claude-agent");
	assert_int_equal(back->depth, 1);
	assert_true(back->nesting);
	assert_int_equal(back->n_mounts, n->n_mounts);
	for (size_t i = 0; i < n->n_mounts; i++) {
		assert_string_equal(back->mounts[i].target, n->mounts[i].target);
		assert_int_equal(back->mounts[i].rights, n->mounts[i].rights);
		assert_int_equal(back->mounts[i].kind, n->mounts[i].kind);
		assert_int_equal(back->mounts[i].flags, n->mounts[i].flags);
	}
	assert_int_equal(sbx_nest_encode(back, &b, &blen, NULL), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(a);
	free(b);
}

static void test_codec_refuses_truncated_and_garbage(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	unsigned char *a = NULL;
	size_t len;
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_nest_encode(n, &a, &len, NULL), 0);
	/* every strict prefix is refused */
	for (size_t cut = 0; cut < len; cut++) {
		struct sbx_nest *out = NULL;

		assert_int_equal(sbx_nest_decode(a, cut, &out, &err), -EBADMSG);
		assert_null(out);
	}
	/* one flipped byte anywhere in the header or a count is refused or still canonical */
	for (size_t i = 0; i < len; i++) {
		struct sbx_nest *out = NULL;
		unsigned char *c = malloc(len);
		int r;

		memcpy(c, a, len);
		c[i] ^= 0xff;
		r = sbx_nest_decode(c, len, &out, NULL);
		if (r == 0) {
			unsigned char *again = NULL;
			size_t alen;

			assert_int_equal(sbx_nest_encode(out, &again, &alen, NULL), 0);
			assert_int_equal(alen, len);
			assert_memory_equal(again, c, len);
			free(again);
			sbx_nest_free(out);
		} else {
			assert_int_equal(r, -EBADMSG);
		}
		free(c);
	}
	/* garbage and oversized input */
	{
		unsigned char junk[64];
		struct sbx_nest *out = NULL;

		memset(junk, 'A', sizeof(junk));
		assert_int_equal(sbx_nest_decode(junk, sizeof(junk), &out, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "bad magic"));
		assert_int_equal(sbx_nest_decode(a, SBX_NEST_CODEC_MAX + 1, &out, &err), -EBADMSG);
	}
	/* a wrong version is named */
	{
		struct sbx_nest *out = NULL;

		a[8] = 1; /* version 1 carried no per-operation rights from policies */
		assert_int_equal(sbx_nest_decode(a, len, &out, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "version 1"));
	}
	free(a);
}

/* Version 3: the Landlock scopes a worker is held by and an unknown parent travel; a scope
 * this version does not know, or an origin byte that is not 0 or 1, is refused. */
static void test_codec_scopes_and_origin(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	_cleanup_nest_ struct sbx_nest *back = NULL;
	struct sbx_nest *bad = NULL;
	unsigned char *a = NULL;
	size_t len;

	(void)state;
	n->scoped = SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL;
	n->parent_unknown = true;
	assert_int_equal(sbx_nest_encode(n, &a, &len, NULL), 0);
	assert_int_equal(sbx_nest_decode(a, len, &back, NULL), 0);
	assert_int_equal(back->scoped, SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL);
	assert_true(back->parent_unknown);
	assert_false(back->landlocked);
	/* header (16), depth (4), backend, net, nesting, landlocked, then scoped and origin */
	assert_int_equal(a[24], 3);
	assert_int_equal(a[25], 1);
	a[24] = 4;
	assert_int_equal(sbx_nest_decode(a, len, &bad, NULL), -EBADMSG);
	assert_null(bad);
	a[24] = 3;
	a[25] = 2;
	assert_int_equal(sbx_nest_decode(a, len, &bad, NULL), -EBADMSG);
	assert_null(bad);
	free(a);
	/* and the encoder refuses to write an unknown scope */
	n->scoped = 4;
	assert_int_equal(sbx_nest_encode(n, &a, &len, NULL), -EBADMSG);
}

static void test_codec_refuses_writable_system_mount(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	unsigned char *a = NULL;
	size_t len;

	(void)state;
	n->mounts[0].rights = RW; /* /bin or /usr: a system entry */
	n->mounts[0].kind = SBX_NEST_BIND;
	assert_int_equal(sbx_nest_encode(n, &a, &len, NULL), -EBADMSG);
	assert_null(a);
}

/* ---- narrowing ---- */

/* ---- per-operation rights (codec version 2) ---- */

#define NODEL (RW & ~SBX_OP_DELETE)

/* Rule entries travel, canonically; a system or '/' rule entry, or too many, is refused. */
static void test_codec_rule_entries(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	_cleanup_nest_ struct sbx_nest *back = NULL;
	unsigned char *a = NULL, *b = NULL;
	size_t alen, blen;
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_nest_put(n, "/out/docs", SBX_NEST_RULE, RO, 0, NULL), 0);
	n->mounts[2].rights = NODEL; /* /out */
	assert_string_equal(n->mounts[2].target, "/out");
	n->landlocked = true;
	assert_int_equal(sbx_nest_encode(n, &a, &alen, NULL), 0);
	assert_int_equal(sbx_nest_decode(a, alen, &back, NULL), 0);
	assert_true(back->landlocked);
	assert_int_equal(sbx_nest_rights(back, "/out/docs/x"), RO);
	assert_int_equal(sbx_nest_rights(back, "/out/x"), NODEL);
	assert_int_equal(sbx_nest_encode(back, &b, &blen, NULL), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(a);
	free(b);

	/* a rule entry may not be a system mount, nor '/' */
	assert_int_equal(sbx_nest_put(n, "/", SBX_NEST_RULE, RO, 0, NULL), 0);
	assert_int_equal(sbx_nest_encode(n, &a, &alen, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "rule entry"));
	assert_int_equal(sbx_nest_put(n, "/", SBX_NEST_BIND, RO, 0, NULL), 0);
	for (unsigned i = 0; i <= SBX_NEST_MAX_RULES; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/out/r%u", i);
		assert_int_equal(sbx_nest_put(n, path, SBX_NEST_RULE, RO, 0, NULL), 0);
	}
	assert_int_equal(sbx_nest_encode(n, &a, &alen, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "too many rule entries"));
}

static void ll_add(struct sbx_ll_plan *ll, const char *path, unsigned ops)
{
	struct sbx_ll_rule *grown = realloc(ll->rules, (ll->n_rules + 1) * sizeof(*grown));

	assert_non_null(grown);
	ll->rules = grown;
	grown[ll->n_rules++] = (struct sbx_ll_rule){.path = strdup(path),
	                                            .access = sbx_ll_fs_from_ops(ops),
	                                            .full = sbx_ll_fs_from_ops(ops),
	                                            .ops = ops,
	                                            .why = "test"};
}

/* A Landlock domain's rules become the effective spec's rights: never wider, rule entries
 * where a rule beneath a mount grants more than the mount's target has. */
static void test_apply_landlock(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	_cleanup_nest_ struct sbx_nest *before = parent_fixture();
	struct sbx_ll_plan ll = {.enabled = true, .handled_fs = SBX_LL_FS_ALL};
	static const char *const probe[] = {
	    "/usr/bin/cc", "/src",     "/src/a.c",   "/src/.git/hooks/x", "/src/.env", "/out",
	    "/out/keep/x", "/cache/x", "/secrets/k", "/dev/null",         "/elsewhere"};

	(void)state;
	ll_add(&ll, "/usr", RO);
	ll_add(&ll, "/src", NODEL);
	ll_add(&ll, "/out", RO);
	ll_add(&ll, "/out/keep", RW); /* a rule beneath a mount that gives more */
	ll_add(&ll, "/cache", RO);
	/* /secrets: no rule at all, so nothing of it is granted */
	assert_int_equal(sbx_nest_apply_landlock(n, &ll, NULL), 0);
	assert_int_equal(sbx_nest_rights(n, "/src/a.c"), NODEL);
	assert_int_equal(sbx_nest_rights(n, "/src/.git/hooks/x"), RO); /* ro mount, rule NODEL */
	assert_int_equal(sbx_nest_rights(n, "/src/.env"), 0);
	assert_int_equal(sbx_nest_rights(n, "/out/x"), RO);
	assert_int_equal(sbx_nest_rights(n, "/out/keep/x"), RW);
	assert_int_equal(sbx_nest_lookup(n, "/out/keep/x")->kind, SBX_NEST_RULE);
	assert_int_equal(sbx_nest_rights(n, "/usr/bin/cc"), RO);
	/* never wider than the mounts alone */
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		assert_int_equal(sbx_nest_rights(n, probe[i]) & ~sbx_nest_rights(before, probe[i]),
		                 0);
	/* and it still encodes */
	{
		unsigned char *a = NULL;
		size_t len;

		assert_int_equal(sbx_nest_encode(n, &a, &len, NULL), 0);
		free(a);
	}
	sbx_ll_plan_clear(&ll);
}

/* The landlock backend's entry-by-entry expansion: thousands of rules beneath a mount give at
 * most SBX_NEST_MAX_RULES rule entries (the rest stricter), and the spec still encodes. */
static void test_apply_landlock_many_rules(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	struct sbx_ll_plan ll = {.enabled = true, .handled_fs = SBX_LL_FS_ALL};
	size_t rules = 0;
	unsigned char *a = NULL;
	size_t len;

	(void)state;
	ll_add(&ll, "/out", RO); /* reduced: a read-only path beneath it */
	for (unsigned i = 0; i < 3000; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/out/entry%u", i);
		ll_add(&ll, path, RW);
	}
	assert_int_equal(sbx_nest_apply_landlock(n, &ll, NULL), 0);
	for (size_t i = 0; i < n->n_mounts; i++)
		rules += n->mounts[i].kind == SBX_NEST_RULE;
	assert_int_equal(rules, SBX_NEST_MAX_RULES);
	assert_int_equal(sbx_nest_rights(n, "/out/x"), RO);
	assert_int_equal(sbx_nest_rights(n, "/out/entry0/x"), RW);
	assert_int_equal(sbx_nest_encode(n, &a, &len, NULL), 0);
	free(a);
	sbx_ll_plan_clear(&ll);
}

/* A nested sandbox's layer is cut down to its effective spec, gets its rule entries, and is
 * marked needed where mount flags cannot say the rights (no delete). */
static void test_ll_narrow(void **state)
{
	_cleanup_nest_ struct sbx_nest *child = sbx_nest_new();
	struct sbx_ll_plan ll = {.enabled = true, .handled_fs = SBX_LL_FS_ALL};
	bool saw_rule = false;

	(void)state;
	child->profile = strdup("p");
	child->depth = 2;
	assert_int_equal(sbx_nest_put(child, "/usr", SBX_NEST_BIND, RO, SBX_NEST_F_SYSTEM, NULL),
	                 0);
	assert_int_equal(sbx_nest_put(child, "/ws", SBX_NEST_BIND, NODEL, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(child, "/ws/out", SBX_NEST_RULE, RW, 0, NULL), 0);
	ll_add(&ll, "/usr", RO);
	ll_add(&ll, "/ws", RW);  /* compiled from a writable mount */
	ll_add(&ll, "/tmp", RW); /* sbx's private /tmp: not the spec's to narrow */
	assert_int_equal(sbx_nest_ll_narrow(child, &ll, NULL), 0);
	for (size_t i = 0; i < ll.n_rules; i++) {
		if (!strcmp(ll.rules[i].path, "/ws"))
			assert_int_equal(ll.rules[i].access, sbx_ll_fs_from_ops(NODEL));
		if (!strcmp(ll.rules[i].path, "/tmp"))
			assert_int_equal(ll.rules[i].access, sbx_ll_fs_from_ops(RW));
		if (!strcmp(ll.rules[i].path, "/ws/out")) {
			saw_rule = true;
			assert_int_equal(ll.rules[i].access, sbx_ll_fs_from_ops(RW));
		}
	}
	assert_true(saw_rule);
	assert_true(ll.needed_fs & SBX_LL_FS_REMOVE_FILE);
	sbx_ll_plan_clear(&ll);
}

/* ---- narrowing ---- */

static int narrow(const struct sbx_nest *p, struct sbx_nest_request *req, struct sbx_nest **c,
                  struct sbx_error *err)
{
	*c = NULL;
	return sbx_spec_narrow(p, req, c, err);
}

static void add(struct sbx_nest_request *req, unsigned kind, const char *path)
{
	char what[128];

	snprintf(what, sizeof(what), "%s %s",
	         kind == SBX_GRANT_WRITE  ? "--allow-write"
	         : kind == SBX_GRANT_READ ? "--allow-read"
	                                  : "--restrict",
	         path);
	assert_int_equal(sbx_nest_request_add(req, kind, path, false, what, NULL), 0);
}

/* Seed 003, 6 and 7: with no arguments the child inherits (sbx's default is inherit). */
static void test_inherit_by_default(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = parent_fixture();
	_cleanup_nest_ struct sbx_nest *c = NULL;
	struct sbx_nest_request req = {0};

	(void)state;
	p->scoped = SBX_LL_SCOPE_SIGNAL;
	p->parent_unknown = true;
	assert_int_equal(narrow(p, &req, &c, NULL), 0);
	assert_int_equal(c->depth, 2);
	assert_int_equal(c->scoped, SBX_LL_SCOPE_SIGNAL);
	assert_true(c->parent_unknown);
	assert_int_equal(c->n_mounts, p->n_mounts);
	assert_int_equal(sbx_nest_rights(c, "/src/a.c"), RW);
	assert_int_equal(sbx_nest_rights(c, "/cache/x"), RO);
	assert_int_equal(sbx_nest_rights(c, "/src/.env"), 0);
}

/* The promise: --restrict /src --readonly sees /src, not /secrets, writes nothing. */
static void test_restrict_readonly(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = parent_fixture();
	_cleanup_nest_ struct sbx_nest *c = NULL;
	struct sbx_nest_request req = {.readonly = true};

	(void)state;
	add(&req, SBX_GRANT_RESTRICT, "/src");
	assert_int_equal(narrow(p, &req, &c, NULL), 0);
	assert_int_equal(sbx_nest_rights(c, "/src/app.ts"), RO);
	assert_int_equal(sbx_nest_rights(c, "/secrets/api-key.txt"), 0);
	assert_int_equal(sbx_nest_rights(c, "/out/x"), 0);
	assert_int_equal(sbx_nest_rights(c, "/src/.env"), 0);            /* still hidden */
	assert_int_equal(sbx_nest_rights(c, "/usr/bin/cc"), RO);         /* system stays */
	assert_non_null(sbx_nest_lookup(c, "/bin/sh"));                  /* the symlink too */
	assert_int_equal(sbx_nest_rights(c, "/src/.git/hooks/pre"), RO); /* deeper mount kept */
	sbx_nest_request_clear(&req);
}

/* Seed 003, 4 and 5: allow-read gives reads only there; allow-write implies read. */
static void test_allowlists(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = parent_fixture();
	_cleanup_nest_ struct sbx_nest *c = NULL;
	struct sbx_nest_request req = {0};

	(void)state;
	add(&req, SBX_GRANT_READ, "/src");
	add(&req, SBX_GRANT_WRITE, "/out/reports");
	assert_int_equal(narrow(p, &req, &c, NULL), 0);
	assert_int_equal(sbx_nest_rights(c, "/src/a.py"), RO);
	assert_int_equal(sbx_nest_rights(c, "/out/reports/r.md"), RW);
	assert_int_equal(sbx_nest_rights(c, "/out/other"), 0);
	assert_int_equal(sbx_nest_rights(c, "/secrets/k"), 0);
	assert_int_equal(sbx_nest_rights(c, "/docs/x.md"), 0);
	sbx_nest_request_clear(&req);
}

/* A deeper grant decides beneath itself, a shallower one elsewhere. */
static void test_nested_grants(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = parent_fixture();
	_cleanup_nest_ struct sbx_nest *c = NULL;
	struct sbx_nest_request req = {0};

	(void)state;
	add(&req, SBX_GRANT_WRITE, "/src/gen");
	add(&req, SBX_GRANT_READ, "/src");
	assert_int_equal(narrow(p, &req, &c, NULL), 0);
	assert_int_equal(sbx_nest_rights(c, "/src/a.c"), RO);
	assert_int_equal(sbx_nest_rights(c, "/src/gen/b.c"), RW);
	sbx_nest_request_clear(&req);
}

/* The mount-model seed's inheritance table, per mount. */
static void test_inheritance_table(void **state)
{
	static const struct {
		unsigned parent;   /* rights of /m in the parent */
		unsigned grant;    /* what the child asks; ~0u: nothing (inherit) */
		bool readonly;     /* --readonly */
		int ret;           /* 0 or -EPERM */
		unsigned expected; /* rights of /m in the child */
	} table[] = {
	    {RW, ~0u, false, 0, RW},                 /* rw, (default) -> rw */
	    {RW, ~0u, true, 0, RO},                  /* rw, readonly -> ro */
	    {RO, ~0u, false, 0, RO},                 /* ro, (default) -> ro */
	    {RO, SBX_GRANT_WRITE, false, -EPERM, 0}, /* ro, readonly: false -> ERROR */
	    {RW, SBX_GRANT_WRITE, false, 0, RW},     /* rw, explicit rw -> rw */
	    {RW, SBX_GRANT_READ, false, 0, RO},      /* rw, -v :ro -> ro */
	    {RO, SBX_GRANT_RESTRICT, false, 0, RO},  /* restrict keeps ro */
	    {RW, SBX_GRANT_WRITE, true, 0, RO},      /* --readonly beats allow-write */
	    {RO & ~SBX_OP_EXECUTE, ~0u, false, 0, RO & ~SBX_OP_EXECUTE}, /* noexec stays */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		_cleanup_nest_ struct sbx_nest *p = sbx_nest_new();
		_cleanup_nest_ struct sbx_nest *c = NULL;
		struct sbx_nest_request req = {.readonly = table[i].readonly};
		struct sbx_error err = {0};

		p->profile = strdup("p");
		p->depth = 1;
		p->nesting = true;
		assert_int_equal(sbx_nest_put(p, "/m", SBX_NEST_BIND, table[i].parent, 0, NULL), 0);
		assert_int_equal(sbx_nest_put(p, "/cache", SBX_NEST_BIND, RO, 0, NULL), 0);
		if (table[i].grant != ~0u)
			add(&req, table[i].grant, "/m");
		assert_int_equal(narrow(p, &req, &c, &err), table[i].ret);
		if (table[i].ret == 0) {
			assert_int_equal(sbx_nest_rights(c, "/m/f"), table[i].expected);
			if (table[i].grant == ~0u) /* per mount: /cache stays read-only */
				assert_int_equal(sbx_nest_rights(c, "/cache/f"), RO);
		} else {
			assert_int_equal(err.kind, SBX_ERR_ESCALATION);
			assert_null(c);
		}
		sbx_nest_request_clear(&req);
	}
}

/* Seed 003's escalation error: what was asked, the parent's boundaries, an alternative. */
static void test_escalation_messages(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = sbx_nest_new();
	_cleanup_nest_ struct sbx_nest *c = NULL;
	struct sbx_nest_request req = {0};
	struct sbx_error err = {0};

	(void)state;
	p->profile = strdup("p");
	p->depth = 1;
	p->nesting = true;
	assert_int_equal(sbx_nest_put(p, "/", SBX_NEST_BIND, RO, 0, NULL), 0);
	assert_int_equal(sbx_nest_put(p, "/out", SBX_NEST_BIND, RW, 0, NULL), 0);
	add(&req, SBX_GRANT_WRITE, "/src");
	assert_int_equal(narrow(p, &req, &c, &err), -EPERM);
	assert_string_equal(err.msg,
	                    "cannot grant write on /src (--allow-write /src): the parent sandbox "
	                    "has /src read-only (mount /); child sandboxes can only narrow "
	                    "access (parent: read /; write /out)");
	assert_non_null(strstr(err.hint, "--allow-read /src"));
	assert_non_null(strstr(err.hint, "/out"));
	assert_int_equal(sbx_error_exit_code(&err), 125);
	sbx_nest_request_clear(&req);

	/* a path the parent does not see */
	{
		_cleanup_nest_ struct sbx_nest *q = parent_fixture();

		add(&req, SBX_GRANT_READ, "/home");
		assert_int_equal(narrow(q, &req, &c, &err), -EPERM);
		assert_non_null(strstr(err.msg, "the parent sandbox does not see /home"));
		assert_non_null(strstr(err.hint, "--restrict /cache"));
		sbx_nest_request_clear(&req);
		/* a hidden path */
		add(&req, SBX_GRANT_RESTRICT, "/src/.env");
		assert_int_equal(narrow(q, &req, &c, &err), -EPERM);
		assert_non_null(strstr(err.msg, "the parent sandbox hides /src/.env"));
		sbx_nest_request_clear(&req);
		/* write on a system mount */
		add(&req, SBX_GRANT_WRITE, "/usr/lib");
		assert_int_equal(narrow(q, &req, &c, &err), -EPERM);
		assert_non_null(strstr(err.msg, "read-only system mount"));
		sbx_nest_request_clear(&req);
		/* --net host under none */
		req.net_given = true;
		req.net = SBX_NET_HOST;
		assert_int_equal(narrow(q, &req, &c, &err), -EPERM);
		assert_non_null(strstr(err.msg, "--net host"));
		assert_non_null(strstr(err.hint, "drop --net host"));
		/* --net none under host narrows */
		q->net = SBX_NET_HOST;
		req.net = SBX_NET_NONE;
		assert_int_equal(narrow(q, &req, &c, &err), 0);
		assert_int_equal(c->net, SBX_NET_NONE);
	}
}

/* A profile's optional mount the parent does not see is skipped, not refused. */
static void test_optional_grant(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = parent_fixture();
	_cleanup_nest_ struct sbx_nest *c = NULL;
	struct sbx_nest_request req = {0};

	(void)state;
	assert_int_equal(sbx_nest_request_add(&req, SBX_GRANT_READ, "/home/u/.npm", true,
	                                      "profile x, mount /home/u/.npm", NULL),
	                 0);
	add(&req, SBX_GRANT_WRITE, "/out");
	req.no_system = true;
	assert_int_equal(narrow(p, &req, &c, NULL), 0);
	assert_int_equal(sbx_nest_rights(c, "/home/u/.npm"), 0);
	assert_int_equal(sbx_nest_rights(c, "/out/x"), RW);
	assert_int_equal(sbx_nest_rights(c, "/usr/bin/cc"), 0); /* system mounts off */
	sbx_nest_request_clear(&req);
}

static void test_eight_deep_and_the_cap(void **state)
{
	struct sbx_nest *cur = parent_fixture();

	(void)state;
	for (unsigned d = 2; d <= SBX_NEST_MAX_DEPTH; d++) {
		struct sbx_nest_request req = {0};
		struct sbx_nest *next = NULL;

		if (d == 3)
			add(&req, SBX_GRANT_RESTRICT, "/src");
		if (d == 5)
			req.readonly = true;
		assert_int_equal(narrow(cur, &req, &next, NULL), 0);
		assert_int_equal(next->depth, d);
		if (d >= 8) {
			assert_int_equal(sbx_nest_rights(next, "/src/a"), RO);
			assert_int_equal(sbx_nest_rights(next, "/out/a"), 0);
		}
		sbx_nest_request_clear(&req);
		sbx_nest_free(cur);
		cur = next;
	}
	{
		struct sbx_nest_request req = {0};
		struct sbx_nest *next = NULL;
		struct sbx_error err = {0};

		assert_int_equal(narrow(cur, &req, &next, &err), -ELOOP);
		assert_non_null(strstr(err.msg, "levels deep"));
	}
	sbx_nest_free(cur);
}

/* ---- the property: random chains of narrowing never widen ---- */

static const char *const paths[] = {
    "/",      "/src", "/src/a",   "/src/a/b", "/src/.env", "/out",   "/out/r",         "/secrets",
    "/cache", "/usr", "/usr/lib", "/home",    "/src/.git", "/x/y/z", "/src/.git/hooks"};
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static void dump(const char *what, const struct sbx_nest *n)
{
	for (size_t i = 0; i < n->n_mounts; i++)
		print_message("%s: %s kind %u rights %#x flags %u\n", what, n->mounts[i].target,
		              n->mounts[i].kind, n->mounts[i].rights, n->mounts[i].flags);
}

static void test_property_never_widens(void **state)
{
	unsigned seed = 20240611u;

	(void)state;
	for (int chain = 0; chain < 400; chain++) {
		struct sbx_nest *cur = sbx_nest_new();
		struct sbx_nest *top;
		int n = 1 + (int)(rnd(&seed) % 6);

		cur->profile = strdup("p");
		cur->depth = 1;
		cur->nesting = true;
		cur->net = rnd(&seed) % 2;
		for (int i = 0; i < n; i++) {
			unsigned kinds = rnd(&seed) % 4;
			const char *t = paths[rnd(&seed) % N_PATHS];
			bool sys = strncmp(t, "/usr", 4) == 0;

			assert_int_equal(sbx_nest_put(cur, t,
			                              kinds == 3 ? SBX_NEST_HIDDEN
			                              : kinds == 2 && !sys && strcmp(t, "/")
			                                  ? SBX_NEST_RULE
			                                  : SBX_NEST_BIND,
			                              sys ? RO : (rnd(&seed) & SBX_OP_ALL),
			                              sys ? SBX_NEST_F_SYSTEM : 0, NULL),
			                 0);
		}
		top = cur;
		cur = NULL;
		{
			struct sbx_nest *prev = top;

			for (int step = 0; step < 6; step++) {
				struct sbx_nest_request req = {0};
				struct sbx_nest *next = NULL;
				int g = (int)(rnd(&seed) % 4);

				for (int i = 0; i < g; i++)
					add(&req, rnd(&seed) % 3, paths[rnd(&seed) % N_PATHS]);
				req.readonly = rnd(&seed) % 4 == 0;
				req.no_system = rnd(&seed) % 5 == 0;
				req.net_given = rnd(&seed) % 3 == 0;
				req.net = rnd(&seed) % 2;
				if (narrow(prev, &req, &next, NULL) == 0) {
					for (size_t i = 0; i < N_PATHS; i++) {
						char sub[128];

						snprintf(sub, sizeof(sub), "%s/f",
						         strcmp(paths[i], "/") ? paths[i] : "");
						/* never wider than the parent, nor than the
						 * first sandbox of the chain */
						if (sbx_nest_rights(next, paths[i]) &
						    ~sbx_nest_rights(prev, paths[i])) {
							dump("parent", prev);
							dump("child", next);
							for (size_t k = 0; k < req.n_grants; k++)
								print_message("grant %s\n",
								              req.grants[k].what);
							print_message("path %s\n", paths[i]);
						}
						assert_int_equal(
						    sbx_nest_rights(next, paths[i]) &
						        ~sbx_nest_rights(prev, paths[i]),
						    0);
						assert_int_equal(sbx_nest_rights(next, sub) &
						                     ~sbx_nest_rights(top, sub),
						                 0);
					}
					assert_true(next->net == SBX_NET_NONE ||
					            prev->net == SBX_NET_HOST);
					assert_true(!next->nesting || prev->nesting);
					if (prev != top)
						sbx_nest_free(prev);
					prev = next;
				}
				sbx_nest_request_clear(&req);
			}
			if (prev != top)
				sbx_nest_free(prev);
		}
		sbx_nest_free(top);
	}
}

static void test_boundaries_text(void **state)
{
	_cleanup_nest_ struct sbx_nest *p = parent_fixture();
	char buf[512], tiny[16];

	(void)state;
	assert_string_equal(sbx_nest_boundaries(p, buf, sizeof(buf)),
	                    "read /cache, /src/.git/hooks; write /out, /secrets, /src");
	sbx_nest_boundaries(p, tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
	assert_string_equal(tiny + sizeof(tiny) - 4, "...");
}

/* The sandbox id (version 4): carried, read back, never inherited; a spec without one is
 * still version 3's bytes, which both read back canonically; a bad id is refused. */
/* A landlock sub-worker's temporary directory: where its base is (sbx_nest_tmp_base). */
static void test_tmp_base(void **state)
{
	static const struct {
		const char *name;
		enum sbx_backend backend;
		const char *entry; /* an entry of the parent's spec, or NULL */
		unsigned rights;
		const char *tmpdir; /* the caller's TMPDIR */
		int rc;
		const char *base;
	} cases[] = {
	    {"namespaces parent: its private /tmp", SBX_BACKEND_NAMESPACES, NULL, 0, NULL, 0,
	     "/tmp"},
	    {"a bind beneath /tmp leaves the tmpfs", SBX_BACKEND_NAMESPACES, "/tmp/ws", RW, NULL, 0,
	     "/tmp"},
	    {"a mount at /tmp is no private tmpfs", SBX_BACKEND_NAMESPACES, "/tmp", RW, NULL,
	     -ENOENT, NULL},
	    {"landlock parent without one", SBX_BACKEND_LANDLOCK, NULL, 0, "/tmp/sbx-sub.abc",
	     -ENOENT, NULL},
	    {"landlock parent with its own", SBX_BACKEND_LANDLOCK, "/tmp/sbx-sub.abc", RW,
	     "/tmp/sbx-sub.abc", 0, "/tmp/sbx-sub.abc"},
	    {"its own, read-only", SBX_BACKEND_LANDLOCK, "/tmp/sbx-sub.abc", RO, "/tmp/sbx-sub.abc",
	     -ENOENT, NULL},
	    {"TMPDIR beneath an entry, not at it", SBX_BACKEND_LANDLOCK, "/tmp/sbx-sub.abc", RW,
	     "/tmp/sbx-sub.abc/x", -ENOENT, NULL},
	    {"TMPDIR sbx did not make", SBX_BACKEND_LANDLOCK, "/tmp/mine", RW, "/tmp/mine", -ENOENT,
	     NULL},
	    {"TMPDIR that climbs", SBX_BACKEND_LANDLOCK, "/tmp/sbx-sub.abc", RW,
	     "/tmp/sbx-sub.abc/../x", -ENOENT, NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_nest_ struct sbx_nest *p = parent_fixture();
		char out[256] = "";
		int r;

		p->backend = cases[i].backend;
		if (cases[i].entry)
			assert_int_equal(sbx_nest_put(p, cases[i].entry, SBX_NEST_BIND,
			                              cases[i].rights, 0, NULL),
			                 0);
		r = sbx_nest_tmp_base(p, cases[i].tmpdir, out, sizeof(out));
		if (r != cases[i].rc || (cases[i].base && strcmp(out, cases[i].base) != 0))
			fail_msg("%s: %d '%s'", cases[i].name, r, out);
	}
}

static void test_codec_sandbox_id(void **state)
{
	static const char id[] = "0123456789abcdef0123456789abcdef";
	_cleanup_nest_ struct sbx_nest *n = parent_fixture();
	_cleanup_nest_ struct sbx_nest *back = NULL, *child = NULL;
	struct sbx_nest_request req = {0};
	unsigned char *v3 = NULL, *v4 = NULL, *again = NULL;
	size_t len3, len4, alen;
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_nest_encode(n, &v3, &len3, NULL), 0);
	assert_int_equal(v3[8], 3);
	/* set in place on the encoded bytes, as sbx does after finishing a plan */
	v4 = malloc(len3);
	assert_non_null(v4);
	memcpy(v4, v3, len3);
	len4 = len3;
	assert_int_equal(sbx_nest_blob_set_id(&v4, &len4, id, NULL), 0);
	assert_int_equal(v4[8], 4); /* an id, no limits: version 4 */
	assert_int_equal(len4, len3 + 2 + SBX_NEST_ID_LEN);
	assert_int_equal(sbx_nest_decode(v4, len4, &back, NULL), 0);
	assert_string_equal(back->sandbox_id, id);
	assert_int_equal(back->n_mounts, n->n_mounts);
	assert_int_equal(sbx_nest_encode(back, &again, &alen, NULL), 0);
	assert_int_equal(alen, len4);
	assert_memory_equal(again, v4, len4);
	free(again);
	/* a child starts without its parent's id (it gets its own) */
	assert_int_equal(sbx_spec_narrow(back, &req, &child, NULL), 0);
	assert_string_equal(child->sandbox_id, "");
	/* every prefix of a version 4 spec is refused too */
	for (size_t cut = 0; cut < len4; cut++) {
		struct sbx_nest *out = NULL;

		assert_int_equal(sbx_nest_decode(v4, cut, &out, NULL), -EBADMSG);
		assert_null(out);
	}
	/* an id that is not 32 lower-case hex digits: refused by encode, decode and set */
	memcpy(back->sandbox_id, "0123456789ABCDEF0123456789abcdef", SBX_NEST_ID_LEN + 1);
	assert_int_equal(sbx_nest_encode(back, &again, &alen, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "sandbox id"));
	assert_int_equal(sbx_nest_blob_set_id(&v4, &len4, "abc", NULL), -EINVAL);
	{
		unsigned char *c = malloc(len4);
		struct sbx_nest *out = NULL;
		memcpy(c, v4, len4);
		/* the id's first digit, just after the profile name: made upper case */
		for (size_t i = 0; i + SBX_NEST_ID_LEN <= len4; i++)
			if (memcmp(c + i, id, SBX_NEST_ID_LEN) == 0) {
				c[i + 10] = 'A';
				break;
			}
		assert_int_equal(sbx_nest_decode(c, len4, &out, NULL), -EBADMSG);
		free(c);
	}
	/* a version 4 spec whose id is empty is not canonical (it would be version 3) */
	{
		struct sbx_nest *out = NULL;
		unsigned char *c = malloc(len3 + 2);
		size_t plen = strlen(n->profile), hdr = 16 + 4 + 6 + 2 + plen;

		memcpy(c, v3, hdr);
		c[8] = 4;
		c[hdr] = 0;
		c[hdr + 1] = 0;
		memcpy(c + hdr + 2, v3 + hdr, len3 - hdr);
		for (int i = 0; i < 4; i++)
			c[12 + i] = (unsigned char)((len3 + 2) >> (8 * i));
		assert_int_equal(sbx_nest_decode(c, len3 + 2, &out, NULL), -EBADMSG);
		free(c);
	}
	free(v3);
	free(v4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_codec_round_trip),
	    cmocka_unit_test(test_codec_refuses_truncated_and_garbage),
	    cmocka_unit_test(test_codec_refuses_writable_system_mount),
	    cmocka_unit_test(test_codec_rule_entries),
	    cmocka_unit_test(test_codec_scopes_and_origin),
	    cmocka_unit_test(test_codec_sandbox_id),
	    cmocka_unit_test(test_tmp_base),
	    cmocka_unit_test(test_apply_landlock),
	    cmocka_unit_test(test_apply_landlock_many_rules),
	    cmocka_unit_test(test_ll_narrow),
	    cmocka_unit_test(test_inherit_by_default),
	    cmocka_unit_test(test_restrict_readonly),
	    cmocka_unit_test(test_allowlists),
	    cmocka_unit_test(test_nested_grants),
	    cmocka_unit_test(test_inheritance_table),
	    cmocka_unit_test(test_escalation_messages),
	    cmocka_unit_test(test_optional_grant),
	    cmocka_unit_test(test_eight_deep_and_the_cap),
	    cmocka_unit_test(test_property_never_widens),
	    cmocka_unit_test(test_boundaries_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
