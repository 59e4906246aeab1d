/* SPDX-License-Identifier: MIT */
/* SHA-1 and SHA-256 as FIPS 180-4 gives them (include/sbx/sha.h). */
#include "sbx/sha.h"

#include <string.h>

static uint32_t rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

static uint32_t ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static uint32_t be32_at(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void block1(uint32_t h[5], const unsigned char *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int t = 0; t < 16; t++)
		w[t] = be32_at(p + 4 * t);
	for (int t = 16; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	for (int t = 0; t < 80; t++) {
		uint32_t f, k, tmp;

		if (t < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (t < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		tmp = rol(a, 5) + f + e + k + w[t];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = tmp;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

static const uint32_t k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void block256(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = be32_at(p + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t s1 = ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + k256[t] + w[t];
		uint32_t s0 = ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

void sbx_sha_init(struct sbx_sha *c, int bits)
{
	static const uint32_t iv1[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
	static const uint32_t iv256[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memset(c, 0, sizeof(*c));
	c->bits = bits == 256 ? 256 : 160;
	if (c->bits == 256)
		memcpy(c->h, iv256, sizeof(iv256));
	else
		memcpy(c->h, iv1, sizeof(iv1));
}

static void block(struct sbx_sha *c, const unsigned char *p)
{
	if (c->bits == 256)
		block256(c->h, p);
	else
		block1(c->h, p);
}

void sbx_sha_update(struct sbx_sha *c, const void *data, size_t n)
{
	const unsigned char *p = data;

	c->len += n;
	if (c->fill) {
		size_t take = 64 - c->fill < n ? 64 - c->fill : n;

		memcpy(c->buf + c->fill, p, take);
		c->fill += take;
		p += take;
		n -= take;
		if (c->fill < 64)
			return;
		block(c, c->buf);
		c->fill = 0;
	}
	for (; n >= 64; p += 64, n -= 64)
		block(c, p);
	memcpy(c->buf, p, n);
	c->fill = n;
}

void sbx_sha_final(struct sbx_sha *c, unsigned char *out)
{
	uint64_t bits = c->len * 8;
	int words = c->bits == 256 ? 8 : 5;

	c->buf[c->fill++] = 0x80;
	if (c->fill > 56) {
		memset(c->buf + c->fill, 0, 64 - c->fill);
		block(c, c->buf);
		c->fill = 0;
	}
	memset(c->buf + c->fill, 0, 56 - c->fill);
	for (int i = 0; i < 8; i++)
		c->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	block(c, c->buf);
	for (int i = 0; i < words; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}

void sbx_sha256_hex(const void *data, size_t len, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[32];
	struct sbx_sha c;

	sbx_sha_init(&c, 256);
	sbx_sha_update(&c, data, len);
	sbx_sha_final(&c, d);
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 0xf];
	}
	out[64] = '\0';
}

/* SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit hash. */
static uint64_t rotl64(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl64(v[1], 13) ^ v[0];
	v[0] = rotl64(v[0], 32);
	v[2] += v[3];
	v[3] = rotl64(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = rotl64(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = rotl64(v[1], 17) ^ v[2];
	v[2] = rotl64(v[2], 32);
}

static uint64_t le64(const unsigned char *p, size_t n)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)p[i] << (8 * i);
	return x;
}

uint64_t sbx_siphash(const unsigned char key[16], const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t k0 = le64(key, 8), k1 = le64(key + 8, 8), m;
	uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
	                 k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		m = le64(p + i, 8);
		v[3] ^= m;
		sip_round(v);
		sip_round(v);
		v[0] ^= m;
	}
	m = le64(p + i, len - i) | ((uint64_t)(len & 0xff) << 56);
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}
