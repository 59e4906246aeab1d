/* SPDX-License-Identifier: MIT */
/* The network proxy's pipe sizes (include/sbx/netpipe.h): the budget from the kernel's soft
 * limit, and each new tunnel's size against what the budget has left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sbx/netpipe.h"

#define K ((size_t)1 << 10)
#define M ((size_t)1 << 20)

static void test_budget(void **state)
{
	static const struct {
		unsigned long soft;
		size_t page, want;
	} cases[] = {
	    {16384, 4 * K, 16 * M},                 /* the kernel's default: 64 MiB, a quarter */
	    {0, 4 * K, SBX_NETPIPE_BUDGET},         /* no soft limit */
	    {1024, 4 * K, 1 * M},                   /* a small pool: a quarter of it */
	    {1ul << 30, 4 * K, SBX_NETPIPE_BUDGET}, /* a large one: the cap */
	    {(unsigned long)-1, 4 * K, SBX_NETPIPE_BUDGET}, /* no overflow */
	    {16384, 64 * K, SBX_NETPIPE_BUDGET},            /* 64 KiB pages */
	    {3, 4 * K, 3 * K},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(sbx_netpipe_budget(cases[i].soft, cases[i].page), cases[i].want);
}

static void test_grow(void **state)
{
	static const struct {
		size_t cur, used, budget, want;
	} cases[] = {
	    {4 * K, 0, 16 * M, SBX_NETPIPE_MAX}, /* straight to the most */
	    {64 * K, 0, 16 * M, SBX_NETPIPE_MAX},
	    {SBX_NETPIPE_MAX, 0, 16 * M, SBX_NETPIPE_MAX}, /* at the most: stays */
	    {4 * K, 16 * M - 252 * K, 16 * M, 256 * K},    /* the growth just fits */
	    {4 * K, 16 * M - 251 * K, 16 * M, 128 * K},    /* a kilobyte short: the next size */
	    {4 * K, 16 * M - 60 * K, 16 * M, 64 * K},
	    {4 * K, 16 * M - 4 * K, 16 * M, 8 * K},
	    {4 * K, 16 * M - 3 * K, 16 * M, 4 * K}, /* nothing fits: stays */
	    {4 * K, 16 * M, 16 * M, 4 * K},
	    {4 * K, 32 * M, 16 * M, 4 * K}, /* past the budget (the first pages): no wrap */
	    {128 * K, 16 * M - 128 * K, 16 * M, 256 * K},
	    {128 * K, 16 * M - 127 * K, 16 * M, 128 * K},
	    {4 * K, 0, 0, 4 * K},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(sbx_netpipe_grow(cases[i].cur, cases[i].used, cases[i].budget),
		                 cases[i].want);
}

/* 1024 connections, each pipe starting at a page and then filling: the pipes never pass
 * the budget but by those first pages, and the first ones grow to the full size. */
static void test_fill(void **state)
{
	size_t used = 2048 * 4 * K, budget = sbx_netpipe_budget(16384, 4 * K), full = 0;

	(void)state;
	for (int t = 0; t < 2048; t++) {
		size_t s = sbx_netpipe_grow(4 * K, used, budget);

		full += s == SBX_NETPIPE_MAX;
		used += s - 4 * K;
		assert_true(used <= budget);
	}
	assert_int_equal(full, (budget - 2048 * 4 * K) / (SBX_NETPIPE_MAX - 4 * K));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_grow),
	    cmocka_unit_test(test_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
