/* SPDX-License-Identifier: MIT */
#include "os/shareslot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

unsigned sbx_shareslot_take(int dirfd, int *fd)
{
	*fd = -1;
	/* inside the caller's own 0700 runtime directory: no one else can have put anything
	 * there; a symlink is not followed all the same. Two system calls for a free rank. */
	for (unsigned k = 0; k < SBX_SHARE_SLOTS; k++) {
		char name[32];
		int s, e;

		snprintf(name, sizeof(name), ".share-%u", k);
		s = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
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
