/* SPDX-License-Identifier: MIT */
/* Limits in core (include/sbx/limits.h): parsing and its errors, formatting, nesting (only
 * lower), the tmpfs defaults, the per-user shares, and the effective spec's codec (version 5). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/limits.h"
#include "sbx/nest.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

#define K (1ull << 10)
#define M (1ull << 20)
#define G (1ull << 30)

static const struct {
	const char *name, *value;
	int r;           /* 0, -EINVAL (not a value) or -ERANGE (out of range) */
	uint64_t want;   /* when r == 0 */
	const char *fmt; /* sbx_limit_format of want, when r == 0 */
} parse_cases[] = {
    {"memory", "512M", 0, 512 * M, "512M"},
    {"memory", "2G", 0, 2 * G, "2G"},
    {"memory", "2g", 0, 2 * G, "2G"},
    {"memory", "1GiB", 0, G, "1G"},
    {"memory", "1536M", 0, 1536 * M, "1536M"},
    {"memory", "4194304", 0, 4 * M, "4M"},
    {"memory", "4M", 0, 4 * M, "4M"},
    {"memory", "3M", -ERANGE, 0, NULL}, /* below 4M: no process starts */
    {"memory", "65T", -ERANGE, 0, NULL},
    {"memory", "99999999999999999999999G", -ERANGE, 0, NULL}, /* no wrap-around */
    {"memory", "lots", -EINVAL, 0, NULL},
    {"memory", "", -EINVAL, 0, NULL},
    {"memory", "512X", -EINVAL, 0, NULL},
    {"memory", "-1", -EINVAL, 0, NULL},
    {"memory", "1.5G", -EINVAL, 0, NULL},
    {"pids", "256", 0, 256, "256"},
    {"pids", "1", 0, 1, "1"},
    {"pids", "0", -ERANGE, 0, NULL},
    {"pids", "4194305", -ERANGE, 0, NULL},
    {"pids", "10k", -EINVAL, 0, NULL},
    {"cpu", "1.5", 0, 1500, "1.5"},
    {"cpu", "2", 0, 2000, "2"},
    {"cpu", "0.25", 0, 250, "0.25"},
    {"cpu", "0.125", 0, 125, "0.125"},
    {"cpu", ".5", 0, 500, "0.5"},
    {"cpu", "150%", 0, 1500, "1.5"},
    {"cpu", "50%", 0, 500, "0.5"},
    {"cpu", "12.5%", 0, 125, "0.125"},
    {"cpu", "1%", 0, 10, "0.01"},
    {"cpu", "0.001", -ERANGE, 0, NULL},  /* below 0.01 CPU */
    {"cpu", "0.0001", -EINVAL, 0, NULL}, /* more than three decimals */
    {"cpu", "2000", -ERANGE, 0, NULL},
    {"cpu", "1.5.0", -EINVAL, 0, NULL},
    {"cpu", "%", -EINVAL, 0, NULL},
    {"cpu", "1.25%", -EINVAL, 0, NULL},
    {"nofile", "1024", 0, 1024, "1024"},
    {"nofile", "4", -ERANGE, 0, NULL},
    {"fsize", "1G", 0, G, "1G"},
    {"fsize", "1", 0, 1, "1"},
    {"fsize", "0", -ERANGE, 0, NULL},
    {"timeout", "30s", 0, 30000, "30s"},
    {"timeout", "5m", 0, 300000, "5m"},
    {"timeout", "1h", 0, 3600000, "1h"},
    {"timeout", "1d", 0, 86400000, "1d"},
    {"timeout", "90", 0, 90000, "90s"},
    {"timeout", "1500ms", 0, 1500, "1500ms"},
    {"timeout", "60s", 0, 60000, "1m"},
    {"timeout", "31d", -ERANGE, 0, NULL},
    {"timeout", "0", -ERANGE, 0, NULL},
    {"timeout", "5min", -EINVAL, 0, NULL},
    {"timeout", "1.5h", -EINVAL, 0, NULL},
    {"tmpfs", "256M", 0, 256 * M, "256M"},
    {"tmpfs", "64K", 0, 64 * K, "64K"},
    {"tmpfs", "4K", -ERANGE, 0, NULL},
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		struct sbx_limits lim = {0};
		struct sbx_error err = {0};
		int l = sbx_limit_lookup(parse_cases[i].name);
		int r = sbx_limits_set(&lim, parse_cases[i].name, parse_cases[i].value, &err);
		char buf[32];

		assert_true(l >= 0);
		if (r != parse_cases[i].r)
			fail_msg("%s=%s: got %d, want %d (%s)", parse_cases[i].name,
			         parse_cases[i].value, r, parse_cases[i].r, err.msg);
		if (r < 0) {
			/* the error names the key, the value and what is allowed */
			assert_non_null(strstr(err.msg, parse_cases[i].name));
			assert_non_null(strstr(err.msg, "from"));
			assert_int_equal(lim.set, 0);
			assert_non_null(strstr(err.hint, "--limit"));
			continue;
		}
		assert_int_equal(lim.set, SBX_LIMIT_BIT(l));
		if (lim.v[l] != parse_cases[i].want)
			fail_msg("%s=%s: got %llu", parse_cases[i].name, parse_cases[i].value,
			         (unsigned long long)lim.v[l]);
		assert_string_equal(sbx_limit_format(l, lim.v[l], buf, sizeof(buf)),
		                    parse_cases[i].fmt);
		/* what is printed parses back to the same value */
		{
			uint64_t again = 0;
			char in[32];

			snprintf(in, sizeof(in), "%s", buf);
			assert_int_equal(sbx_limit_parse(l, in, &again, NULL), 0);
			assert_int_equal(again, lim.v[l]);
		}
	}
}

static void test_arg_form(void **state)
{
	struct sbx_limits lim = {0};
	struct sbx_error err = {0};

	(void)state;
	assert_int_equal(sbx_limits_set_arg(&lim, "memory=512M", &err), 0);
	assert_int_equal(sbx_limits_set_arg(&lim, "timeout=5m", &err), 0);
	/* a repeat replaces */
	assert_int_equal(sbx_limits_set_arg(&lim, "memory=1G", &err), 0);
	assert_int_equal(lim.v[SBX_LIMIT_MEMORY], G);
	assert_int_equal(lim.set,
	                 SBX_LIMIT_BIT(SBX_LIMIT_MEMORY) | SBX_LIMIT_BIT(SBX_LIMIT_TIMEOUT));
	assert_int_equal(sbx_limits_set_arg(&lim, "memory", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NAME=VALUE"));
	assert_int_equal(sbx_limits_set_arg(&lim, "disk=10G", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'disk' is not a limit"));
	assert_non_null(strstr(err.msg, "memory, pids, cpu, nofile, fsize, timeout, tmpfs"));
	assert_int_equal(sbx_limits_set_arg(&lim, "averyveryverylongnamethatisnotalimit=1", &err),
	                 -EINVAL);
	assert_int_equal(sbx_limits_set_arg(&lim, "=1", &err), -EINVAL);
}

/* A child may only lower: each case is a parent's and a child's value of one limit. */
static const struct {
	enum sbx_limit l;
	bool parent_has, child_has;
	uint64_t parent, child;
	int r;
	bool own;      /* the child enforces it itself */
	uint64_t want; /* the effective value */
} narrow_cases[] = {
    {SBX_LIMIT_MEMORY, true, true, G, 512 * M, 0, true, 512 * M},
    {SBX_LIMIT_MEMORY, true, true, G, G, 0, false, G}, /* the same: the parent's holds */
    {SBX_LIMIT_MEMORY, true, true, 512 * M, G, -EPERM, false, 0},
    {SBX_LIMIT_MEMORY, true, false, G, 0, 0, false, G}, /* inherited */
    {SBX_LIMIT_MEMORY, false, true, 0, G, 0, true, G},  /* the parent had none */
    {SBX_LIMIT_PIDS, true, true, 100, 101, -EPERM, false, 0},
    {SBX_LIMIT_CPU, true, true, 1000, 1500, -EPERM, false, 0},
    {SBX_LIMIT_TIMEOUT, true, true, 60000, 30000, 0, true, 30000},
    {SBX_LIMIT_TIMEOUT, true, true, 60000, 3600000, -EPERM, false, 0},
    {SBX_LIMIT_NOFILE, true, true, 64, 1024, -EPERM, false, 0},
    {SBX_LIMIT_FSIZE, true, true, M, K, 0, true, K},
    {SBX_LIMIT_TMPFS, true, true, 64 * M, 128 * M, -EPERM, false, 0},
};

static void test_narrow_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(narrow_cases) / sizeof(narrow_cases[0]); i++) {
		struct sbx_limits parent = {0}, asked = {0}, out = {0};
		struct sbx_error err = {0};
		unsigned own = 0, bit = SBX_LIMIT_BIT(narrow_cases[i].l);
		int r;

		if (narrow_cases[i].parent_has) {
			parent.set = bit;
			parent.v[narrow_cases[i].l] = narrow_cases[i].parent;
		}
		if (narrow_cases[i].child_has) {
			asked.set = bit;
			asked.v[narrow_cases[i].l] = narrow_cases[i].child;
		}
		r = sbx_limits_narrow(&parent, &asked, &out, &own, &err);
		assert_int_equal(r, narrow_cases[i].r);
		if (r < 0) {
			assert_int_equal(err.kind, SBX_ERR_ESCALATION);
			assert_int_equal(sbx_error_exit_code(&err), 125);
			assert_non_null(strstr(err.msg, sbx_limit_table[narrow_cases[i].l].name));
			assert_non_null(strstr(err.msg, "only lower"));
			continue;
		}
		assert_true(out.set & bit);
		assert_int_equal(out.v[narrow_cases[i].l], narrow_cases[i].want);
		assert_int_equal(!!(own & bit), narrow_cases[i].own);
	}
}

/* The property: whatever a child asks, an accepted result is never above its parent. */
static void test_narrow_never_raises(void **state)
{
	static const uint64_t vals[] = {1, 10, 1000, 4 * M, G};

	(void)state;
	for (int l = 0; l < SBX_LIMIT_COUNT; l++)
		for (size_t p = 0; p < 5; p++)
			for (size_t c = 0; c < 5; c++) {
				struct sbx_limits parent = {.set = SBX_LIMIT_BIT(l)}, asked = {0},
				                  out;
				unsigned own;

				parent.v[l] = vals[p];
				asked.set = SBX_LIMIT_BIT(l);
				asked.v[l] = vals[c];
				if (sbx_limits_narrow(&parent, &asked, &out, &own, NULL) == 0)
					assert_true(out.v[l] <= parent.v[l]);
				else
					assert_true(vals[c] > vals[p]);
			}
}

static void test_tmpfs_size(void **state)
{
	struct sbx_limits lim = {0};

	(void)state;
	/* an eighth of RAM */
	assert_int_equal(sbx_limits_tmpfs_size(NULL, 16 * G), 2 * G);
	assert_int_equal(sbx_limits_tmpfs_size(&lim, 16 * G), 2 * G);
	/* at least 64M, even on a small machine */
	assert_int_equal(sbx_limits_tmpfs_size(&lim, 256 * M), 64 * M);
	/* unknown RAM: 1G */
	assert_int_equal(sbx_limits_tmpfs_size(&lim, 0), G);
	/* whole pages */
	assert_int_equal(sbx_limits_tmpfs_size(&lim, 8 * G + 8 * 1000) % 4096, 0);
	/* never above the memory limit */
	assert_int_equal(sbx_limits_set(&lim, "memory", "512M", NULL), 0);
	assert_int_equal(sbx_limits_tmpfs_size(&lim, 16 * G), 512 * M);
	/* tmpfs= wins */
	assert_int_equal(sbx_limits_set(&lim, "tmpfs", "1G", NULL), 0);
	assert_int_equal(sbx_limits_tmpfs_size(&lim, 16 * G), G);
	/* inodes: one per page, at least 1024 */
	assert_int_equal(sbx_limits_tmpfs_inodes(64 * M), 16384);
	assert_int_equal(sbx_limits_tmpfs_inodes(64 * K), 1024);
}

static void test_ucount_shares(void **state)
{
	(void)state;
	/* the reported case: 128 inotify instances; the sandbox gets 32 */
	assert_string_equal(sbx_ucount_shares[0].name, "max_inotify_instances");
	assert_int_equal(sbx_ucount_share_of(0, 128), 32);
	assert_int_equal(sbx_ucount_share_of(0, 1), 1);  /* never 0: that forbids it */
	assert_int_equal(sbx_ucount_share_of(0, 0), 0);  /* 0 stays the caller's 0: left */
	assert_int_equal(sbx_ucount_share_of(0, -1), 0); /* absent */
	assert_int_equal(sbx_ucount_share_of(SBX_N_UCOUNTS, 128), 0);
	for (size_t i = 0; i < SBX_N_UCOUNTS; i++) {
		assert_true(sbx_ucount_shares[i].divisor >= 2);
		assert_true(sbx_ucount_share_of(i, 1000) < 1000);
		assert_int_equal(strncmp(sbx_ucount_shares[i].name, "max_", 4), 0);
	}
}

/* Sandboxes running at once: each a share of what those before it left. */
static void test_ucount_shares_at_rank(void **state)
{
	static const struct {
		size_t i;
		long long host;
		unsigned k;
		uint64_t want;
	} cases[] = {
	    {0, 128, 0, 32},   /* the first: as sbx_ucount_share_of */
	    {0, 128, 1, 24},   /* 96 left: a quarter */
	    {0, 128, 2, 18},   /* 72 left */
	    {0, 128, 3, 13},   /* 54 left */
	    {1, 1000, 1, 250}, /* watches: half of the half left */
	    {0, 128, 40, 2},   /* never below a 64th */
	    {1, 192536, 9, 3008},
	    {0, 4, 3, 1},    /* nor 0 */
	    {4, 128, 3, 32}, /* user namespaces: a quarter whatever runs (not ranked) */
	    {5, 96365, 20, 24091},
	    {0, 0, 2, 0},  /* 0 stays the caller's 0 */
	    {0, -1, 2, 0}, /* absent */
	    {SBX_N_UCOUNTS, 128, 1, 0},
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		assert_int_equal(sbx_ucount_share_at(cases[c].i, cases[c].host, cases[c].k),
		                 cases[c].want);
	/* the reported case: four sandboxes at once leave the caller 41 of 128 inotify
	 * instances, where four quarters left it none; of every ranked count they leave some */
	for (size_t i = 0; i < SBX_N_UCOUNTS; i++) {
		uint64_t sum = 0;

		if (!sbx_ucount_shares[i].ranked)
			continue;
		for (unsigned k = 0; k < 4; k++)
			sum += sbx_ucount_share_at(i, 128, k);
		assert_true(sum < 128);
		if (i == 0)
			assert_int_equal(sum, 128 - 41);
	}
}

/* The --mount form takes a tmpfs's size; a bind has none. */
static void test_mount_size(void **state)
{
	struct sbx_mount m;
	struct sbx_error err;

	(void)state;
	assert_int_equal(sbx_mount_parse("type=tmpfs,target=/scratch,size=64M", "/", &m, &err), 0);
	assert_int_equal(m.size, 64 * M);
	sbx_mount_clear(&m);
	assert_int_equal(sbx_mount_parse("type=tmpfs,target=/scratch,tmpfs-size=1G", "/", &m, &err),
	                 0);
	assert_int_equal(m.size, G);
	sbx_mount_clear(&m);
	assert_int_equal(sbx_mount_parse("type=tmpfs,target=/scratch", "/", &m, &err), 0);
	assert_int_equal(m.size, 0);
	sbx_mount_clear(&m);
	assert_true(sbx_mount_parse("type=tmpfs,target=/scratch,size=huge", "/", &m, &err) < 0);
	assert_non_null(strstr(err.msg, "size"));
	assert_true(sbx_mount_parse("type=bind,source=/a,target=/a,size=1M", "/", &m, &err) < 0);
	assert_non_null(strstr(err.msg, "only a tmpfs has a size"));
}

/* Version 5 carries the limits; a spec without any is still version 3's or 4's bytes. */
static void test_codec_limits(void **state)
{
	struct sbx_nest *n = sbx_nest_new(), *back = NULL;
	unsigned char *a = NULL, *b = NULL;
	size_t alen, blen;

	(void)state;
	assert_non_null(n);
	n->profile = strdup("p");
	n->depth = 1;
	assert_int_equal(sbx_nest_encode(n, &a, &alen, NULL), 0);
	assert_int_equal(a[8], 3);
	free(a);
	assert_int_equal(sbx_limits_set(&n->limits, "memory", "512M", NULL), 0);
	assert_int_equal(sbx_limits_set(&n->limits, "timeout", "30d", NULL), 0);
	assert_int_equal(sbx_limits_set(&n->limits, "fsize", "1048576T", NULL), 0);
	assert_int_equal(sbx_nest_encode(n, &a, &alen, NULL), 0);
	assert_int_equal(a[8], 5);
	assert_int_equal(sbx_nest_decode(a, alen, &back, NULL), 0);
	assert_int_equal(back->limits.set, n->limits.set);
	assert_memory_equal(back->limits.v, n->limits.v, sizeof(n->limits.v));
	assert_string_equal(back->sandbox_id, "");
	assert_int_equal(sbx_nest_encode(back, &b, &blen, NULL), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	/* every strict prefix is refused */
	for (size_t cut = 0; cut < alen; cut++) {
		struct sbx_nest *out = NULL;

		assert_int_equal(sbx_nest_decode(a, cut, &out, NULL), -EBADMSG);
		assert_null(out);
	}
	/* a value out of range is refused both ways */
	back->limits.v[SBX_LIMIT_MEMORY] = 1;
	free(b);
	b = NULL;
	assert_int_equal(sbx_nest_encode(back, &b, &blen, NULL), -EBADMSG);
	sbx_nest_free(back);
	/* with an id too */
	memcpy(n->sandbox_id, "0123456789abcdef0123456789abcdef", SBX_NEST_ID_LEN + 1);
	free(a);
	assert_int_equal(sbx_nest_encode(n, &a, &alen, NULL), 0);
	assert_int_equal(a[8], 5);
	back = NULL;
	assert_int_equal(sbx_nest_decode(a, alen, &back, NULL), 0);
	assert_string_equal(back->sandbox_id, n->sandbox_id);
	assert_int_equal(back->limits.v[SBX_LIMIT_TIMEOUT], 30ull * 86400 * 1000);
	sbx_nest_free(back);
	sbx_nest_free(n);
	free(a);
	free(b);
}

/* The plan: every tmpfs has a size (an explicit one kept, the rest the default), the limits
 * and the per-user shares are carried, and as root the worker's range is the slot's. */
static void test_plan_sizes_and_ranges(void **state)
{
	static char *env[] = {"PATH=/usr/bin", NULL};
	struct sbx_host h = {.uid = 1000,
	                     .gid = 1000,
	                     .euid = 1000,
	                     .environ = env,
	                     .cwd = "/w",
	                     .mem_total = 16 * G};
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_plan *plan = NULL;
	struct sbx_mount m = {0};
	size_t n_tmpfs = 0;

	(void)state;
	assert_non_null(spec);
	for (size_t i = 0; i < SBX_N_UCOUNTS; i++)
		h.ucount[i] = i == 0 ? 128 : -1;
	assert_int_equal(sbx_mount_parse("type=tmpfs,target=/scratch,size=1M", "/", &m, NULL), 0);
	assert_int_equal(sbx_spec_add_mount(spec, &m, false, NULL), 0);
	sbx_mount_clear(&m);
	assert_int_equal(sbx_limits_set(&spec->resources, "pids", "64", NULL), 0);
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	{
		struct sbx_error err = {0};

		if (sbx_plan_build(spec, &h, &plan, &err) < 0)
			fail_msg("%s", err.msg);
	}
	for (size_t i = 0; i < plan->n_ops; i++) {
		if (plan->ops[i].kind != SBX_PLAN_TMPFS)
			continue;
		n_tmpfs++;
		if (!strcmp(plan->ops[i].target, "/scratch"))
			assert_int_equal(plan->ops[i].size, M);
		else
			assert_int_equal(plan->ops[i].size, 2 * G); /* /tmp, /dev, /dev/shm */
	}
	assert_true(n_tmpfs >= 4);
	assert_int_equal(plan->tmpfs_size, 2 * G);
	assert_int_equal(plan->resources.v[SBX_LIMIT_PIDS], 64);
	assert_int_equal(plan->resources_own, SBX_LIMIT_BIT(SBX_LIMIT_PIDS));
	assert_int_equal(plan->userns_max[0], 32);
	assert_int_equal(plan->userns_max[1], 0); /* absent on the host: left alone */
	sbx_plan_free(plan);
	/* as root: the slot's range, or the default without one */
	h.uid = h.gid = h.euid = 0;
	h.root_map_base = SBX_ROOT_MAP_BASE - 3 * SBX_ROOT_MAP_COUNT;
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	assert_int_equal(plan->outer_uid, SBX_ROOT_MAP_BASE - 3 * SBX_ROOT_MAP_COUNT);
	assert_int_equal(plan->outer_gid, plan->outer_uid);
	sbx_plan_free(plan);
	h.root_map_base = 0;
	assert_int_equal(sbx_plan_build(spec, &h, &plan, NULL), 0);
	assert_int_equal(plan->outer_uid, SBX_ROOT_MAP_BASE);
	sbx_plan_free(plan);
	sbx_spec_free(spec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_table),
	    cmocka_unit_test(test_arg_form),
	    cmocka_unit_test(test_narrow_table),
	    cmocka_unit_test(test_narrow_never_raises),
	    cmocka_unit_test(test_tmpfs_size),
	    cmocka_unit_test(test_ucount_shares),
	    cmocka_unit_test(test_ucount_shares_at_rank),
	    cmocka_unit_test(test_mount_size),
	    cmocka_unit_test(test_codec_limits),
	    cmocka_unit_test(test_plan_sizes_and_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
