/* SPDX-License-Identifier: MIT */
/* `sbx run` option parsing and planning. The input is argv, NUL-separated. Properties:
 * the parser never exits or crashes; a spec it accepts plans; every sandbox path that
 * resolves lands inside the source of the operation that decided it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbx/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sbx_host_entry entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
    {"/bin", SBX_HOST_SYMLINK, "usr/bin"},
    {"/etc/passwd", SBX_HOST_FILE, NULL},
};
static char *env[] = {"PATH=/usr/bin", "HOME=/home/u", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[130];
	int argc = 0;
	struct sbx_cli_run run;
	struct sbx_plan *plan = NULL;
	struct sbx_host host = {.uid = 1000,
	                        .gid = 1000,
	                        .euid = 1000,
	                        .entries = entries,
	                        .n_entries = 3,
	                        .environ = env,
	                        .cwd = "/home/u/p"};

	if (size > 16384)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "run";
	for (char *p = buf; p < buf + size && argc < 128; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	if (sbx_cli_parse_run(argc, argv, "/home/u/p", &run, NULL) == 0 && run.spec && !run.help) {
		if (sbx_plan_build(run.spec, &host, &plan, NULL) == 0) {
			for (int i = 1; i < argc; i++) {
				char out[SBX_PATH_MAX];
				size_t op;

				if (argv[i][0] != '/' || sbx_plan_resolve(plan, argv[i], &op, out,
				                                          sizeof(out), NULL) < 0)
					continue;
				if (plan->ops[op].kind != SBX_PLAN_BIND &&
				    plan->ops[op].kind != SBX_PLAN_MIRROR)
					abort();
				if (!sbx_path_covers(plan->ops[op].source, out))
					abort();
			}
			sbx_plan_free(plan);
		}
	}
	sbx_cli_run_clear(&run);
	free(buf);
	return 0;
}
