/* SPDX-License-Identifier: MIT */
#include "os/shareslot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx/cleanup.h"

unsigned sbx_shareslot_take(int dirfd, int *fd)
{
	_cleanup_close_ int dir = -1;

	*fd = -1;
	/* inside the caller's own 0700 runtime directory: no one else can have put anything
	 * there; a symlink is not followed all the same */
	dir = openat(dirfd, ".shares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0 && errno == ENOENT && (mkdirat(dirfd, ".shares", 0700) == 0 || errno == EEXIST))
		dir = openat(dirfd, ".shares", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return SBX_SHARE_SLOTS - 1;
	for (unsigned k = 0; k < SBX_SHARE_SLOTS; k++) {
		char name[16];
		int s, e;

		snprintf(name, sizeof(name), "%u", k);
		s = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (s < 0)
			break;
		if (flock(s, LOCK_EX | LOCK_NB) == 0) {
			*fd = s;
			return k;
		}
		e = errno;
		close(s);
		if (e != EWOULDBLOCK)
			break;
	}
	return SBX_SHARE_SLOTS - 1;
}
