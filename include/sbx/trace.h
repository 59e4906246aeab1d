/* SPDX-License-Identifier: MIT */
#ifndef SBX_TRACE_H
#define SBX_TRACE_H

/*
 * Launch phase marks (bench/phases.sh, bench/README.md "Where a launch's time goes"). In a
 * build configured with -DSBX_LAUNCH_TRACE=ON each SBX_TRACE("name") writes one line,
 * "sbx-trace SECONDS.NANOSECONDS name", CLOCK_MONOTONIC, to standard error with one write(2),
 * from whichever process of the launch reaches it (sbx, init, the worker); the clock is the
 * machine's, so lines from all of them fall on one time line. In every other build it is
 * nothing at all: no call, no branch, no string.
 */
#ifdef SBX_LAUNCH_TRACE
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline void sbx_trace_mark(const char *what)
{
	struct timespec ts;
	char line[160];
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "sbx-trace %lld.%09ld %s\n", (long long)ts.tv_sec,
	             ts.tv_nsec, what);
	if (n > 0 && (size_t)n < sizeof(line) && write(2, line, (size_t)n) < 0)
		return;
}
#define SBX_TRACE(what) sbx_trace_mark(what)
#else
#define SBX_TRACE(what) ((void)0)
#endif

#endif
