/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_AUDIT_H
#define SBX_OS_AUDIT_H

/*
 * The audit log's writer (sbx(1), AUDIT LOG): one record (include/sbx/audit.h) per write(2)
 * on an O_APPEND descriptor. A keeper process, forked at open and outside the sandbox, holds a
 * pipe from sbx: if sbx ends without sbx_audit_finish (SIGKILL), the keeper writes the end
 * record ("killed": "sbx killed") itself, so that every start has an end.
 */

#include <stdint.h>

#include "sbx/audit.h"
#include "sbx/error.h"

struct sbx_audit;

/* Open (create 0600, append, no symlink followed at the last component) the log at path and
 * fork the keeper. ids are copied. Returns 0 or -errno with a line naming the path. */
int sbx_audit_open(const char *path, const struct sbx_audit_ids *ids, uint64_t start_ms,
                   struct sbx_audit **out, struct sbx_error *err);
/* Write one formatted record (a newline is added). Returns 0 or -errno; never blocks long. */
int sbx_audit_write(struct sbx_audit *a, const char *record);
const struct sbx_audit_ids *sbx_audit_ids(const struct sbx_audit *a);
/* Write the end record, release the keeper, close. Accepts NULL. */
void sbx_audit_finish(struct sbx_audit *a, const struct sbx_audit_end *end);

/* A new sandbox id: 32 hex digits from getrandom(2). */
int sbx_audit_new_id(char out[SBX_SANDBOX_ID_LEN + 1]);

#endif
