/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_FD_H
#define SBX_OS_FD_H

/* File descriptors across fork and exec (src/os/fd.c). */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/error.h"

/* pipe2(O_CLOEXEC), with an error that names what the pipe is for. */
int sbx_fd_pipe(int fds[2], const char *what, struct sbx_error *err);

/* Mark every fd >= from close-on-exec. */
int sbx_fd_cloexec_from(int from, struct sbx_error *err);

/* Make fd available as `number` across exec (dup2, or clear FD_CLOEXEC if equal). */
int sbx_fd_pass(int fd, int number, struct sbx_error *err);

/* read(2) all of len bytes, again after EINTR and short reads: 0, or -errno (-EPIPE for an
 * end of file before len bytes). */
int sbx_fd_read_all(int fd, void *buf, size_t len);

/* Is fd a socket? 1 with its family, type, whether it listens and whether it is connected
 * (it has a peer); 0 if it is not one (or not open); -errno where it cannot be asked. */
int sbx_fd_socket_info(int fd, int *domain, int *type, bool *listening, bool *connected);

/* A unix socket without a name of its own gets one the kernel picks (autobind), so that it
 * can no longer be bound to a name (a connected socket can: an abstract name of the host's
 * squatted). 0, or -errno. */
int sbx_fd_unix_autobind(int fd);

#endif
