/* SPDX-License-Identifier: MIT */
/* The effective-spec codec (src/core/nest.c). Properties: whatever decode accepts encodes
 * back to the very same bytes; anything it refuses is refused with -EBADMSG and nothing
 * allocated; a decoded spec narrowed with no request is the same spec one level deeper. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/nest.h"

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

		if (sbx_spec_narrow(n, &req, &child, NULL) < 0)
			abort();
		for (size_t i = 0; i < n->n_mounts; i++)
			if (sbx_nest_rights(child, n->mounts[i].target) &
			    ~sbx_nest_rights(n, n->mounts[i].target))
				abort();
		sbx_nest_free(child);
	}
	sbx_nest_free(n);
	return 0;
}
