/* SPDX-License-Identifier: MIT */
#ifndef SBX_CLEANUP_H
#define SBX_CLEANUP_H

/*
 * Scope-bound resources, after systemd's alloc-util.h and fd-util.h: a variable declared
 * with one of these attributes is released when it leaves scope; TAKE_PTR and TAKE_FD hand
 * ownership on. Every destructor accepts NULL and -1. (A child process that must not outlive
 * its scope is os/proc.h's _cleanup_pid_: killing and reaping are kernel calls, which core
 * never makes.)
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void sbx_freep(void *p)
{
	free(*(void **)p);
}

static inline void sbx_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

/* Both ends of a pipe or a socket pair (int fds[2]); an end handed on with TAKE_FD is -1. */
static inline void sbx_close_pairp(int (*pair)[2])
{
	sbx_closep(&(*pair)[0]);
	sbx_closep(&(*pair)[1]);
}

static inline void sbx_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(x)         __attribute__((cleanup(x)))
#define _cleanup_free_       _cleanup_(sbx_freep)
#define _cleanup_close_      _cleanup_(sbx_closep)
#define _cleanup_close_pair_ _cleanup_(sbx_close_pairp)
#define _cleanup_fclose_     _cleanup_(sbx_fclosep)

#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p = (p);                                                            \
		(p) = NULL;                                                                        \
		_p;                                                                                \
	})

#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_fd;                                                                               \
	})

#define SBX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
