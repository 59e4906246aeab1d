/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

#include "cli.h"
#include "sbx/trace.h"
#include "sbx/landlock.h"
#include "sbx/suggest.h"
#include "os/landlock.h"
#include "os/launch.h"
#include "sbx_commit.h"

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
    {"ps", sbx_cmd_ps, "the running sandboxes you can see"},
    {"inspect", sbx_cmd_inspect, "one running sandbox: its record, effective spec and mounts"},
    {"kill", sbx_cmd_kill, "signal a running sandbox (default SIGTERM)"},
    {"complete", sbx_cmd_complete, "names for shell completion (profiles, seccomp groups)"},
    {"connect", sbx_cmd_connect, "inside a sandbox: relay stdin/stdout to HOST PORT via its proxy"},
};

static void usage(FILE *f)
{
	fputs("Usage: sbx COMMAND [OPTIONS]\n\nCommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nOptions:\n  -h, --help     show this help\n  --version      print the version\n"
	      "\nRun 'sbx help COMMAND' (or 'sbx COMMAND --help') for a command's options.\n"
	      "See sbx(1) and sbx-profile(5).\n",
	      f);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

static int unknown(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0]) + 1];
	const char *best;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[i] = commands[i].name;
	names[sizeof(commands) / sizeof(commands[0])] = "help";
	best = sbx_suggest(name, names, sizeof(names) / sizeof(names[0]));
	fprintf(stderr, "sbx: unknown command '%s'", sbx_cli_esc(name));
	if (best) {
		fprintf(stderr, "; did you mean '%s'?", best);
	} else {
		fputs("; the commands are:", stderr);
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			fprintf(stderr, " %s", commands[i].name);
	}
	fputs("; see 'sbx --help'\n", stderr);
	return 125;
}

/* The version, and what it was built with and knows: the commit, libseccomp's version (the
 * filter is compiled by it), the newest Landlock ABI sbx knows and this kernel's. */
static int version(void)
{
	const struct scmp_version *sv = seccomp_version();
	int abi = sbx_landlock_abi();

	printf("sbx %s (commit %s)\n", SBX_VERSION, SBX_COMMIT);
	printf("libseccomp %u.%u.%u\n", sv ? sv->major : 0, sv ? sv->minor : 0, sv ? sv->micro : 0);
	printf("landlock: sbx knows ABI %d; this kernel has ",
	       sbx_ll_abi_steps[sbx_ll_n_abi_steps - 1].abi);
	if (abi > 0)
		printf("ABI %d\n", abi);
	else
		printf("none\n");
	return fflush(stdout) == 0 ? 0 : 125;
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
	SBX_TRACE("main");
	ensure_stdio();
	sbx_launch_guard_xfsz();
	if (argc < 2) {
		usage(stderr);
		return 125;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		/* sbx help COMMAND: the command's own --help */
		const struct command *c = find(argv[2]);
		char *help_argv[] = {argv[2], "--help", NULL};

		if (!c)
			return unknown(argv[2]);
		return c->fn(2, help_argv);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)
		return version();
	{
		const struct command *c = find(argv[1]);

		if (c)
			return c->fn(argc - 1, argv + 1);
	}
	return unknown(argv[1]);
}
