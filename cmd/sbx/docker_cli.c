/* SPDX-License-Identifier: MIT */
/* Docker's spellings where the meaning is the same (cli.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/path.h"

int sbx_cli_parse_tmpfs(struct sbx_spec *spec, const char *arg, const char *cwd,
                        struct sbx_error *err)
{
	char path[SBX_PATH_MAX_INPUT], opts[256];
	_cleanup_free_ char *target = NULL;
	struct sbx_mount m = {.kind = SBX_MOUNT_TMPFS, .origin = SBX_ORIGIN_FLAG};
	size_t plen = strcspn(arg, ":");
	char *save = NULL;
	int r;

	if (plen == 0 || plen >= sizeof(path) ||
	    (arg[plen] && strlen(arg + plen + 1) >= sizeof(opts))) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "--tmpfs '%.64s' names no path, or is too long", arg);
		sbx_error_hint(err, "e.g. --tmpfs /run or --tmpfs /cache:size=512M");
		return r;
	}
	memcpy(path, arg, plen);
	path[plen] = '\0';
	snprintf(opts, sizeof(opts), "%s", arg[plen] ? arg + plen + 1 : "");
	r = sbx_path_absolute(path, cwd, &target, err);
	if (r < 0)
		return r;
	for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (strncmp(o, "size=", 5) == 0) {
			char num[64];
			size_t n = strlen(o + 5);

			snprintf(num, sizeof(num), "%s", o + 5);
			if (n && n < sizeof(num))
				num[n - 1] = (char)toupper((unsigned char)num[n - 1]);
			r = sbx_size_parse(num, &m.size, err);
			if (r < 0) {
				sbx_error_wrap(err, "--tmpfs '%s'", arg);
				return r;
			}
		} else if (strcmp(o, "ro") == 0 || strcmp(o, "readonly") == 0) {
			m.readonly = true;
		} else if (strcmp(o, "rw") == 0 || strcmp(o, "nosuid") == 0 ||
		           strcmp(o, "nodev") == 0) {
			/* every tmpfs of sbx's is nosuid and nodev already */
		} else if (strcmp(o, "noexec") == 0) {
			m.noexec = true;
		} else {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "--tmpfs '%s': the option '%s' is not supported", arg, o);
			sbx_error_hint(err, "the options are size=N (K, M, G), ro, rw, noexec");
			return r;
		}
	}
	/* an addition, as Docker's: the workspace stays */
	m.target = target;
	return sbx_spec_add_mount(spec, &m, true, err);
}
