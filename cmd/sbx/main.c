/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "os/launch.h"

/* The commands table, as crun's src/crun.c: one entry per subcommand. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
    {"run", sbx_cmd_run, "run a command in a sandbox"},
    {"check", sbx_cmd_check, "allow or deny: operations on sandbox paths, and why"},
    {"resolve", sbx_cmd_resolve, "the host path behind sandbox paths"},
    {"profiles", sbx_cmd_profiles, "list, show or validate profiles"},
    {"doctor", sbx_cmd_doctor, "what this kernel allows, and which backend sbx will use"},
    {"status", sbx_cmd_status, "inside a sandbox: the effective spec it runs under"},
    {"explain", sbx_cmd_explain, "the last denials in an audit log, and what would allow each"},
    {"connect", sbx_cmd_connect, "inside a sandbox: relay stdin/stdout to HOST PORT via its proxy"},
};

static void usage(FILE *f)
{
	fputs("Usage: sbx COMMAND [OPTIONS]\n\nCommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nOptions:\n  -h, --help     show this help\n  --version      print the version\n"
	      "\nRun 'sbx COMMAND --help' for a command's options. See sbx(1).\n",
	      f);
}

/* A caller may start us with 0, 1 or 2 closed; the pipes and files sbx opens would then take
 * those numbers and the worker would write its output into them. Fill the gaps first. */
static void ensure_stdio(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(125);
}

int main(int argc, char **argv)
{
	ensure_stdio();
	sbx_launch_guard_xfsz();
	if (argc < 2) {
		usage(stderr);
		return 125;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("sbx %s\n", SBX_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "sbx: unknown command '%s'; the commands are:", sbx_cli_esc(argv[1]));
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, " %s", commands[i].name);
	fputs("; see 'sbx --help'\n", stderr);
	return 125;
}
