/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_NETPROXY_PRIV_H
#define SBX_OS_NETPROXY_PRIV_H

/* What init sends sbx (src/os/netns.c -> src/os/netproxy.c): one byte a socket, its role. */
enum {
	SBX_NETNS_DNS_UDP = 1,
	SBX_NETNS_DNS_TCP,
	SBX_NETNS_HTTP,
	SBX_NETNS_SOCKS,
};
#define SBX_NETNS_MAX_FDS 8

#endif
