/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_MEMFD_H
#define SBX_OS_MEMFD_H

/* The sealed memfd that carries a worker's effective spec (src/os/memfd.c). */

#include <stddef.h>

#include "sbx/error.h"

/* A memfd holding data, sealed with F_SEAL_WRITE|GROW|SHRINK|SEAL; close-on-exec. Returns
 * the fd (the caller owns it). */
int sbx_memfd_sealed(const void *data, size_t len, struct sbx_error *err);

/* Read a spec memfd whole, after checking it is a regular file carrying all four seals and
 * at most SBX_NEST_CODEC_MAX bytes. *out is allocated (caller frees). */
int sbx_memfd_read_spec(int fd, unsigned char **out, size_t *len, struct sbx_error *err);

#endif
