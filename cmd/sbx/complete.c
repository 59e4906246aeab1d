/* SPDX-License-Identifier: MIT */
/*
 * sbx complete WHAT: the names shell completions offer (completions/), one a line:
 * profiles (every name on the search path, as --profile takes it), seccomp-groups (the
 * filter's groups, as --seccomp-allow and --seccomp-deny take them), commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbx/seccomp.h"

static const char complete_usage[] =
    "Usage: sbx complete profiles|seccomp-groups|commands\n"
    "\n"
    "Print the names shell completion offers, one a line: the profiles on the search path,\n"
    "the seccomp filter's groups, or sbx's commands. The bash, zsh and fish completions\n"
    "that 'cmake --install' installs call it.\n";

int sbx_cmd_complete(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(complete_usage, argc == 2 ? stdout : stderr);
		return argc == 2 ? 0 : 125;
	}
	if (strcmp(argv[1], "profiles") == 0) {
		char **names = NULL;
		size_t n = 0;

		if (sbx_cli_profile_names(&names, &n) < 0)
			return 125;
		for (size_t i = 0; i < n; i++) {
			printf("%s\n", sbx_cli_esc(names[i]));
			free(names[i]);
		}
		free(names);
	} else if (strcmp(argv[1], "seccomp-groups") == 0) {
		for (size_t i = 0; i < sbx_seccomp_n_groups; i++)
			printf("%s\n", sbx_seccomp_groups[i].name);
	} else if (strcmp(argv[1], "commands") == 0) {
		fputs("run\ncheck\nresolve\nprofiles\ndoctor\nstatus\nexplain\nhelp\ncomplete\n",
		      stdout);
	} else {
		fprintf(stderr,
		        "sbx: sbx complete '%s' is unknown; it completes profiles, seccomp-groups "
		        "or commands\n",
		        sbx_cli_esc(argv[1]));
		return 125;
	}
	return fflush(stdout) == 0 ? 0 : 125;
}
