/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_SECCOMP_H
#define SBX_OS_SECCOMP_H

/* The seccomp filter built and installed (src/os/seccomp.c, libseccomp); what it denies is
 * core's resolution (sbx/seccomp.h). */

#include <stddef.h>

#include "sbx/error.h"
#include "sbx/seccomp.h"

struct sock_filter;

/* A compiled filter program; owned, release with sbx_seccomp_prog_clear. */
struct sbx_seccomp_prog {
	struct sock_filter *insns;
	size_t len;
};
void sbx_seccomp_prog_clear(struct sbx_seccomp_prog *prog);

/* Compile resolved rules (sbx_seccomp_resolve: core decides what is denied, this only
 * builds it) into a BPF program for this architecture (libseccomp plus sbx's prologue).
 * Touches no process state: the launcher can call it before clone, so that a filter which
 * cannot be built is reported before anything is set up. */
int sbx_seccomp_build(const struct sbx_seccomp_rules *rules, struct sbx_seccomp_prog *out,
                      struct sbx_error *err);

/* Install a compiled program on the calling thread group. Requires no_new_privs already set
 * (refuses otherwise). Call it last, right before execve. */
int sbx_seccomp_install(const struct sbx_seccomp_prog *prog, struct sbx_error *err);

/* sbx_seccomp_build + sbx_seccomp_install. */
int sbx_seccomp_load(const struct sbx_seccomp_rules *rules, struct sbx_error *err);

/* Write the compiled program (raw struct sock_filter array) to fd: what bwrap --seccomp FD
 * reads. */
int sbx_seccomp_export(const struct sbx_seccomp_rules *rules, int fd, struct sbx_error *err);

/* Highest syscall number sbx has classified on this architecture; above it: ENOSYS. */
long sbx_seccomp_known_max(void);

/* The native number of a known call (libseccomp's table, completed by sbx's for calls newer
 * than libseccomp); -1 if the call does not exist on this architecture; -2 if unknown. */
int sbx_seccomp_call_number(const char *call);

#endif
