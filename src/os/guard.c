/* SPDX-License-Identifier: MIT */
/* Guards the host has (src/os/guard.h). */

#include "os/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/fs.h"

/* What the launcher will bind: a directory or a file, reached without any symlink (it opens
 * sources the same way, src/os/mounts.c). */
bool sbx_guard_bindable(void *ctx, const char *path)
{
	int fd = sbx_openat2(AT_FDCWD, path, O_PATH | O_CLOEXEC | O_NOFOLLOW,
	                     RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	struct stat st;
	bool ok;

	(void)ctx;
	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
	close(fd);
	return ok;
}
