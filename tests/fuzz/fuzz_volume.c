/* SPDX-License-Identifier: MIT */
/* -v and --mount parsers. Property: on success the source (if any) and target are
 * absolute and normal; on failure nothing is allocated and the message is not empty. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/path.h"
#include "sbx/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int r, struct sbx_mount *m, const struct sbx_error *err)
{
	char norm[SBX_PATH_MAX];

	if (r < 0) {
		if (!err->msg[0] || m->source || m->target)
			abort();
		return;
	}
	if (!m->target || sbx_path_normalize(m->target, norm, sizeof(norm), NULL) < 0 ||
	    strcmp(norm, m->target) != 0)
		abort();
	if (m->source && (sbx_path_normalize(m->source, norm, sizeof(norm), NULL) < 0 ||
	                  strcmp(norm, m->source) != 0))
		abort();
	sbx_mount_clear(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[8192];
	struct sbx_mount m;
	struct sbx_error err;
	int r;

	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	memset(&err, 0, sizeof(err));
	r = sbx_volume_parse(in, "/cwd", &m, &err);
	check(r, &m, &err);
	memset(&err, 0, sizeof(err));
	r = sbx_mount_parse(in, "/cwd", &m, &err);
	check(r, &m, &err);
	return 0;
}
