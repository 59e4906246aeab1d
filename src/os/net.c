/* SPDX-License-Identifier: MIT */
#include "os/net.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sbx/cleanup.h"

int sbx_net_loopback_up(struct sbx_error *err)
{
	_cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;

	if (s < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot open a socket: %s",
		                     strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name) - 1);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot read the loopback interface's flags: %s",
		                     strerror(errno));
	if ((ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING))
		return 0; /* up already (sbx's filter builder brought it up from outside) */
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot bring the loopback interface up: %s", strerror(errno));
	return 0;
}
