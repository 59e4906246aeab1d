/* SPDX-License-Identifier: MIT */
/* The effective-spec codec (src/core/nest_codec.c), version 3 (per-operation rights, rule entries,
 * Landlock scopes, an unknown parent).
 * Properties: whatever decode accepts encodes back to the very same bytes; anything it refuses
 * is refused with -EBADMSG and nothing allocated; a decoded spec narrowed with no request, or
 * with --readonly, is never wider than it, per operation, at any entry or beneath one. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/nest.h"
#include "sbx/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_nest *n = NULL, *child = NULL;
	unsigned char *again = NULL;
	size_t len = 0;
	int r = sbx_nest_decode(data, size, &n, NULL);

	if (r < 0) {
		if (r != -EBADMSG || n)
			abort();
		return 0;
	}
	if (sbx_nest_encode(n, &again, &len, NULL) < 0 || len != size ||
	    memcmp(again, data, size) != 0)
		abort();
	free(again);
	if (n->depth < SBX_NEST_MAX_DEPTH) {
		struct sbx_nest_request req = {0};

		for (int ro = 0; ro < 2; ro++) {
			req.readonly = ro;
			if (sbx_spec_narrow(n, &req, &child, NULL) < 0)
				abort();
			for (size_t i = 0; i < n->n_mounts; i++) {
				char sub[SBX_PATH_MAX + 4];
				const char *t = n->mounts[i].target;

				snprintf(sub, sizeof(sub), "%s/x", strcmp(t, "/") ? t : "");
				if ((sbx_nest_rights(child, t) & ~sbx_nest_rights(n, t)) ||
				    (sbx_nest_rights(child, sub) & ~sbx_nest_rights(n, sub)) ||
				    (ro && (sbx_nest_rights(child, sub) & SBX_OP_MODIFY)))
					abort();
			}
			sbx_nest_free(child);
			child = NULL;
		}
	}
	sbx_nest_free(n);
	return 0;
}
