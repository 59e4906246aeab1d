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

static void test_size(void **state)
{
	static const struct {
		size_t used, budget, want;
	} cases[] = {
	    {0, 16 * M, SBX_NETPIPE_MAX},
	    {16 * M - 512 * K, 16 * M, 256 * K}, /* exactly two full pipes left */
	    {16 * M - 511 * K, 16 * M, 128 * K}, /* one byte short: halved */
	    {16 * M - 256 * K, 16 * M, 128 * K},
	    {16 * M - 16 * K, 16 * M, 8 * K},
	    {16 * M - 8 * K, 16 * M, 4 * K},
	    {16 * M - 4 * K, 16 * M, 4 * K}, /* less than two pages: one page regardless */
	    {16 * M, 16 * M, 4 * K},
	    {32 * M, 16 * M, 4 * K}, /* past the budget (the floor pages): never a wrap */
	    {0, 0, 4 * K},
	    {0, 1 * M, 256 * K},
	    {0, 300 * K, 128 * K},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(sbx_netpipe_size(cases[i].used, cases[i].budget, 4 * K),
		                 cases[i].want);
}

/* Tunnels opened one after another never take the pipes past the budget, but by the
 * one-page floor of those opened after it is spent. */
static void test_fill(void **state)
{
	size_t used = 0, budget = sbx_netpipe_budget(16384, 4 * K), full = 0;

	(void)state;
	for (int t = 0; t < 1024; t++) {
		size_t s = sbx_netpipe_size(used, budget, 4 * K);

		if (s == SBX_NETPIPE_MAX)
			full++;
		used += 2 * s;
		assert_true(used <= budget + (size_t)(t + 1) * 2 * 4 * K);
	}
	assert_int_equal(full, budget / (2 * SBX_NETPIPE_MAX));
	assert_true(used <= budget + 1024 * 2 * 4 * K);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_size),
	    cmocka_unit_test(test_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
