/* SPDX-License-Identifier: MIT */
#ifndef SBX_IT_SECCOMP_ITLIB_H
#define SBX_IT_SECCOMP_ITLIB_H

#include <stdbool.h>

#include "harness.h"

/* Run argv (argv[0] a path), stdin /dev/null, capturing output as it_sbx does. */
void sc_run(struct it_run *r, const char *const *argv);

/* This test binary's own path (it runs itself in --exec and --probe modes). */
const char *sc_self(void);

/* The directory holding sc_self(), for binding it into a sandbox. */
const char *sc_self_dir(void);

/* Whether `sbx run` works yet. Returns false only when sbx answers that the launcher is not
 * written yet (the caller then skips with the reason "sbx run not available"); any other
 * failure of `sbx run -- /bin/true` fails the case. */
bool sc_sbx_run_available(void);

#endif
