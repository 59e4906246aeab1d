/* SPDX-License-Identifier: MIT */
/* File descriptors across fork and exec: pipes, close-on-exec, handing one on at a number. */
#include "os/fd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int sbx_fd_cloexec_from(int from, struct sbx_error *err)
{
	DIR *d;
	struct dirent *de;

	if (syscall(SYS_close_range, (unsigned)from, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	/* Kernels before 5.11: walk /proc/self/fd. */
	d = opendir("/proc/self/fd");
	if (!d)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot list open file descriptors: %s", strerror(errno));
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (fd >= from && fd != dirfd(d))
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	closedir(d);
	return 0;
}

int sbx_fd_pipe(int fds[2], const char *what, struct sbx_error *err)
{
	int r;

	if (pipe2(fds, O_CLOEXEC) == 0)
		return 0;
	r = sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot make the pipe %s: %s", what,
	                  strerror(errno));
	return r;
}

int sbx_fd_pass(int fd, int number, struct sbx_error *err)
{
	if (fd == number) {
		if (fcntl(fd, F_SETFD, 0) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno, "fcntl: %s",
			                     strerror(errno));
		return 0;
	}
	/* dup2 leaves the new descriptor without FD_CLOEXEC: it survives exec. */
	if (dup2(fd, number) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot hand the spec memfd to the worker as fd %d: %s",
		                     number, strerror(errno));
	return 0;
}

int sbx_fd_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sbx_fd_socket_info(int fd, int *domain, int *type, bool *listening, bool *connected)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);

	struct stat st;
	int acc = 0;
	socklen_t l = sizeof(int);

	if (fstat(fd, &st) < 0)
		return errno == EBADF ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, domain, &l) < 0)
		return -errno;
	l = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, type, &l) < 0)
		return -errno;
	l = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0)
		acc = 0;
	*listening = acc != 0;
	*connected = getpeername(fd, (struct sockaddr *)&peer, &pl) == 0;
	return 1;
}

int sbx_fd_unix_autobind(int fd)
{
	struct sockaddr_storage self;
	socklen_t sl = sizeof(self);
	sa_family_t family = AF_UNIX;

	if (getsockname(fd, (struct sockaddr *)&self, &sl) < 0)
		return -errno;
	if (sl > sizeof(sa_family_t))
		return 0; /* bound already (a name, or an abstract one) */
	/* an address of the family alone: the kernel picks an abstract name of its own */
	return bind(fd, (struct sockaddr *)&family, sizeof(family)) < 0 ? -errno : 0;
}
