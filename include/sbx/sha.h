/* SPDX-License-Identifier: MIT */
#ifndef SBX_SHA_H
#define SBX_SHA_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-1 and SHA-256 (FIPS 180-4), the hashes git names objects by: sbx checks after a run that a
 * file the index calls clean still hashes to the object the index names (src/os/gitguard.c).
 * Not for anything secret. Pure: no allocation, no system call.
 */
struct sbx_sha {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	unsigned char buf[64];
	size_t fill;
	int bits; /* 160 or 256 */
};

void sbx_sha_init(struct sbx_sha *c, int bits);
void sbx_sha_update(struct sbx_sha *c, const void *data, size_t n);
/* out: 20 bytes (SHA-1) or 32 (SHA-256) */
void sbx_sha_final(struct sbx_sha *c, unsigned char *out);

/* SHA-256 of data, as 64 lowercase hex digits and a NUL (the audit log's spec digest). */
void sbx_sha256_hex(const void *data, size_t len, char out[65]);

/* SipHash-2-4 of data under a 16-byte key: a 64-bit digest that one who does not know the
 * key cannot aim at (gitguard's record of the index entries at launch). */
uint64_t sbx_siphash(const unsigned char key[16], const void *data, size_t len);

#endif
