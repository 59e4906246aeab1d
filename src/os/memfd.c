/* SPDX-License-Identifier: MIT */
/*
 * The sealed memfd that carries a worker's effective spec (docs/design.md, Nesting). Sealed against
 * write, grow, shrink and further seals before any worker exists, so that nothing inside
 * can change what it says; a worker may still close it or put another file at its number,
 * which is why nothing in sbx trusts it for more than messages (see src/core/nest.c).
 */
#include "os/memfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx/cleanup.h"
#include "sbx/nest.h"

#define SPEC_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

int sbx_memfd_sealed(const void *data, size_t len, struct sbx_error *err)
{
	_cleanup_close_ int fd = memfd_create("sbx-spec", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t off = 0;

	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot create the memfd for the worker's spec: %s",
		                     strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, (const char *)data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			int r = sbx_error_set(err, SBX_ERR_SETUP, e,
			                      "cannot write the worker's spec (%zu bytes) into its "
			                      "memfd: %s",
			                      len, strerror(e));

			if (e == EFBIG)
				sbx_error_hint(err,
				               "the file size limit (ulimit -f) is smaller than "
				               "that; raise it");
			return r;
		}
		off += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, SPEC_SEALS) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot seal the memfd of the worker's spec: %s",
		                     strerror(errno));
	return TAKE_FD(fd);
}

int sbx_memfd_read_spec(int fd, unsigned char **out, size_t *len, struct sbx_error *err)
{
	_cleanup_free_ unsigned char *buf = NULL;
	struct stat st;
	int seals;
	size_t off = 0;

	if (fstat(fd, &st) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "fd %d is not open: %s", fd,
		                     strerror(errno));
	seals = fcntl(fd, F_GET_SEALS);
	if (!S_ISREG(st.st_mode) || seals < 0 || (seals & SPEC_SEALS) != SPEC_SEALS)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADF,
		                     "fd %d is not a sealed memfd (seals %s)", fd,
		                     seals < 0 ? "unsupported" : "incomplete");
	if (st.st_size <= 0 || (unsigned long long)st.st_size > SBX_NEST_CODEC_MAX)
		return sbx_error_set(err, SBX_ERR_SETUP, EBADMSG,
		                     "the memfd at fd %d holds %lld bytes: not between 1 and %u",
		                     fd, (long long)st.st_size, SBX_NEST_CODEC_MAX);
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	while (off < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + off, (size_t)st.st_size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sbx_error_set(err, SBX_ERR_SETUP, n < 0 ? errno : EIO,
			                     "cannot read the memfd at fd %d: %s", fd,
			                     strerror(n < 0 ? errno : EIO));
		off += (size_t)n;
	}
	*out = TAKE_PTR(buf);
	*len = off;
	return 0;
}
