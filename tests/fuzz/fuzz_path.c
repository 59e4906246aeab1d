/* SPDX-License-Identifier: MIT */
/* The path normaliser and the prefix helpers. Properties: the output is absolute and
 * normal (no "//", "/./", "/../", no trailing '/'), normalising it again changes nothing,
 * and a path is always covered by "/" and by itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[SBX_PATH_MAX_INPUT + 16], out[SBX_PATH_MAX], again[SBX_PATH_MAX];
	char *abs = NULL;
	int r;

	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	r = sbx_path_normalize(in, out, sizeof(out), NULL);
	if (r >= 0) {
		size_t n = strlen(out);

		if ((size_t)r != n || out[0] != '/' || strstr(out, "//") || strstr(out, "/./") ||
		    strstr(out, "/../") || (n > 1 && out[n - 1] == '/') ||
		    (n >= 3 && strcmp(out + n - 3, "/..") == 0) ||
		    (n >= 2 && strcmp(out + n - 2, "/.") == 0))
			abort();
		if (sbx_path_normalize(out, again, sizeof(again), NULL) != r ||
		    strcmp(out, again) != 0)
			abort();
		if (!sbx_path_covers("/", out) || !sbx_path_covers(out, out))
			abort();
		if (*sbx_path_rest(out, out) != '\0')
			abort();
	}
	if (sbx_path_absolute(in, "/base/dir", &abs, NULL) == 0) {
		if (abs[0] != '/')
			abort();
		free(abs);
	}
	return 0;
}
