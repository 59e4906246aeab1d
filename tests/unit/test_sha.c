/* SPDX-License-Identifier: MIT */
/* SHA-1 and SHA-256 (include/sbx/sha.h) against FIPS 180-4's examples and git's object names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sbx/sha.h"

static void hex(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* The message fed in pieces of `step` bytes: each split of the 64-byte block must agree. */
static void check(int bits, const char *msg, size_t len, size_t repeat, size_t step,
                  const char *want)
{
	struct sbx_sha c;
	unsigned char d[32];
	char got[65];

	sbx_sha_init(&c, bits);
	for (size_t r = 0; r < repeat; r++)
		for (size_t off = 0; off < len; off += step)
			sbx_sha_update(&c, msg + off, len - off < step ? len - off : step);
	sbx_sha_final(&c, d);
	hex(d, bits == 256 ? 32 : 20, got);
	assert_string_equal(got, want);
}

static void test_vectors(void **state)
{
	static const struct {
		int bits;
		const char *msg;
		size_t repeat;
		const char *want;
	} cases[] = {
	    {160, "", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
	    {160, "abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"},
	    {160, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	     "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
	    {160, "a", 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"},
	    {256, "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	    {256, "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	    {256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	    {256, "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
	    /* git's name for a blob holding "hello\n": "blob 6\0hello\n" */
	    {160, "blob 6\0hello\n", 1, "ce013625030ba8dba906f756967f9e9ca394464a"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len =
		    cases[i].msg[0] == 'b' && cases[i].msg[1] == 'l' ? 13 : strlen(cases[i].msg);

		for (size_t step = 1; step <= 65; step += 16)
			check(cases[i].bits, cases[i].msg, len, cases[i].repeat,
			      cases[i].repeat > 1 ? 1 : step, cases[i].want);
	}
}

/* SipHash-2-4 against its paper's vectors: key 00..0f, messages 00.. of each length. */
static void test_siphash(void **state)
{
	static const struct {
		size_t len;
		uint64_t want;
	} v[] = {
	    {0, 0x726fdb47dd0e0e31ull},
	    {15, 0xa129ca6149be45e5ull},
	};
	unsigned char key[16], msg[64];

	(void)state;
	for (int i = 0; i < 16; i++)
		key[i] = (unsigned char)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (unsigned char)i;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(sbx_siphash(key, msg, v[i].len), v[i].want);
	/* the key counts */
	key[0] ^= 1;
	assert_int_not_equal(sbx_siphash(key, msg, 15), 0xa129ca6149be45e5ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_siphash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
