/* SPDX-License-Identifier: MIT */
#ifndef SBX_CLI_H
#define SBX_CLI_H

/*
 * The command line. Parsers here never print and never exit, so that tests can call them;
 * only the cmd_* entry points print, and only main() exits.
 */

#include <stdbool.h>
#include <stdio.h>

#include "sbx/error.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

struct sbx_cli_run {
	struct sbx_spec *spec; /* owned */
	char **argv;           /* the worker's command: borrowed from the caller's argv */
	int argc;
	bool dry_run;
	bool json;
	bool help;
};

void sbx_cli_run_clear(struct sbx_cli_run *run);

/* Parse `sbx run` options (argv[0] is "run"). cwd is the caller's working directory. */
int sbx_cli_parse_run(int argc, char **argv, const char *cwd, struct sbx_cli_run *out,
                      struct sbx_error *err);

/* Print an error as one line (profile errors also get their source line and a caret). */
void sbx_cli_report(FILE *f, const struct sbx_error *err);

/* Print a plan for --dry-run, as text or JSON. */
void sbx_cli_print_plan(FILE *f, const struct sbx_plan *plan, char *const *argv, bool json);

/* JSON string output with escaping. */
void sbx_json_string(FILE *f, const char *s);

/* Subcommands: each returns the process exit status. */
int sbx_cmd_run(int argc, char **argv);

extern const char sbx_run_usage[];

#endif
