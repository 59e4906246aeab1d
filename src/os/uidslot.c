/* SPDX-License-Identifier: MIT */
#include "os/uidslot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx/plan.h"

/* A directory of root's, made if missing, that only root can write: opened without following
 * a symlink and checked (owner 0, no write for group or others), or -1. */
static int root_dir_at(int at, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return fd;
}

unsigned sbx_uidslot_take(int *fd)
{
	/* start where this pid points, so that concurrent starts rarely try the same slots */
	unsigned start = (unsigned)getpid() % SBX_ROOT_SLOTS;
	int run, sbx, ids;

	*fd = -1;
	run = open("/run", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run < 0)
		return 0;
	sbx = root_dir_at(run, "sbx");
	close(run);
	if (sbx < 0)
		return 0;
	ids = root_dir_at(sbx, "root-ids");
	close(sbx);
	if (ids < 0)
		return 0;
	for (unsigned i = 0; i < SBX_ROOT_SLOTS; i++) {
		unsigned k = (start + i) % SBX_ROOT_SLOTS;
		char name[16];
		int s;

		snprintf(name, sizeof(name), "%u", k);
		s = openat(ids, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (s < 0)
			break;
		if (flock(s, LOCK_EX | LOCK_NB) == 0) {
			close(ids);
			*fd = s;
			/* ranges go down from the default (which is slot 0), staying below 2^31:
			 * some tools take larger ids for negative ones */
			return SBX_ROOT_MAP_BASE - k * SBX_ROOT_MAP_COUNT;
		}
		close(s);
		if (errno != EWOULDBLOCK)
			break;
	}
	close(ids);
	return 0;
}
