/* SPDX-License-Identifier: MIT */
#ifndef SBX_SECCOMP_CLI_H
#define SBX_SECCOMP_CLI_H

/* The seccomp options of `sbx run` and their --dry-run section (cmd/sbx/seccomp.c). */

#include <stdbool.h>
#include <stdio.h>

#include "sbx/error.h"
#include "sbx/seccomp.h"

#define SBX_CLI_SECCOMP_USAGE                                                                      \
	"Seccomp (see sbx-seccomp(7)):\n"                                                          \
	"      --seccomp-allow GROUP|CALL\n"                                                       \
	"                           allow a denied group (@debug) or call (ptrace)\n"              \
	"      --seccomp-deny GROUP|CALL\n"                                                        \
	"                           deny a group or call too; a deny always wins\n"                \
	"      --seccomp-errno E    what denials answer: EPERM (default), EACCES, ... or 1-4095\n" \
	"      --seccomp-log        deny nothing, log what would be denied (dmesg/audit)\n"

enum sbx_cli_seccomp_opt {
	SBX_CLI_SECCOMP_ALLOW = 0x200,
	SBX_CLI_SECCOMP_DENY,
	SBX_CLI_SECCOMP_ERRNO,
	SBX_CLI_SECCOMP_LOG,
};

#define SBX_CLI_SECCOMP_OPTIONS                                                                    \
	{"seccomp-allow", required_argument, NULL, SBX_CLI_SECCOMP_ALLOW},                         \
	    {"seccomp-deny", required_argument, NULL, SBX_CLI_SECCOMP_DENY},                       \
	    {"seccomp-errno", required_argument, NULL, SBX_CLI_SECCOMP_ERRNO},                     \
	{                                                                                          \
		"seccomp-log", no_argument, NULL, SBX_CLI_SECCOMP_LOG                              \
	}

/* Apply one seccomp option to the spec's configuration. */
int sbx_cli_seccomp_option(struct sbx_seccomp_conf *conf, enum sbx_cli_seccomp_opt opt,
                           const char *arg, struct sbx_error *err);

/* The seccomp section of --dry-run: the plan's resolved rules (and the configuration they
 * were resolved from), as text lines or a JSON value (no key). */
void sbx_cli_print_seccomp(FILE *f, const struct sbx_seccomp_conf *conf,
                           const struct sbx_seccomp_rules *rules, bool json);

#endif
