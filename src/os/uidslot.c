/* SPDX-License-Identifier: MIT */
#include "os/uidslot.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sbx/plan.h"

unsigned sbx_uidslot_take(int *fd)
{
	/* start where this pid points, so that concurrent starts rarely try the same names */
	unsigned start = (unsigned)getpid() % SBX_ROOT_SLOTS;

	*fd = -1;
	for (unsigned i = 0; i < SBX_ROOT_SLOTS; i++) {
		unsigned k = (start + i) % SBX_ROOT_SLOTS;
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int n;

		if (s < 0)
			return 0;
		/* abstract: sun_path[0] is NUL, the name is what follows, not NUL-terminated */
		n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "sbx/root-ids/%u", k);
		if (bind(s, (struct sockaddr *)&sa,
		         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) ==
		    0) {
			*fd = s;
			/* ranges go down from the default (which is slot 0), staying below 2^31:
			 * some tools take larger ids for negative ones */
			return SBX_ROOT_MAP_BASE - k * SBX_ROOT_MAP_COUNT;
		}
		close(s);
		if (errno != EADDRINUSE)
			return 0;
	}
	return 0;
}
