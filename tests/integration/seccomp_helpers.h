/* SPDX-License-Identifier: MIT */
#ifndef SBX_IT_SECCOMP_HELPERS_H
#define SBX_IT_SECCOMP_HELPERS_H

/*
 * Test helpers for the seccomp filter, linked into the seccomp integration tests (which run
 * themselves in these modes, so that a copy of the test binary is all a test needs) and into
 * the stand-alone sbx-seccomp-exec.
 *
 * exec mode:  [--nesting] [--log] [--allow NAME] [--deny NAME] [--errno E]
 *             [--export FILE] [--] CMD [ARG...]
 *   sets no_new_privs, joins a fresh session keyring, loads the filter that sbx would load
 *   for that configuration, and execs CMD. With --export, writes the compiled program to FILE
 *   ("-" for stdout) and exits instead. Exit 125 when the filter cannot be built or loaded.
 *
 * probe mode: [NAME...]
 *   performs each named check (all when none is named), each in a forked child of its own, and
 *   prints one line per check: "NAME ok", "NAME errno N" or "NAME signal N". The checks only
 *   use arguments that the kernel would refuse or that change nothing, so that a filter which
 *   fails to deny does no harm even as root.
 */

int seccomp_exec_main(int argc, char **argv);
int seccomp_probe_main(int argc, char **argv);

#endif
