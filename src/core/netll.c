/* SPDX-License-Identifier: MIT */
/* The landlock backend's connect(2) gate (include/sbx/netll.h). Pure. */
#include "sbx/netll.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sbx/net.h"

static bool port_listed(unsigned port, const unsigned *ports, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ports[i] && ports[i] == port)
			return true;
	return false;
}

static void say(char *what, size_t size, const struct sbx_net_addr *a, unsigned port)
{
	char text[64];

	if (!what || !size)
		return;
	sbx_net_addr_fmt(a, text, sizeof(text));
	snprintf(what, size, "%s%s%s:%u", a->family == AF_INET6 ? "[" : "", text,
	         a->family == AF_INET6 ? "]" : "", port);
}

enum sbx_netll_verdict sbx_netll_decide(const struct sbx_netll_sock *sock, const void *sa,
                                        size_t len, const unsigned *ports, size_t n_ports,
                                        bool ipv6_loopback, char *what, size_t what_size)
{
	static const uint8_t loop6[16] = {[15] = 1};
	static const uint8_t mapped_loop4[16] = {[10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1};
	struct sbx_net_addr a = {0};
	sa_family_t family = AF_UNSPEC;
	unsigned port;

	if (what && what_size)
		what[0] = '\0';
	if (len >= sizeof(family))
		memcpy(&family, sa, sizeof(family));
	if (what && what_size && family != AF_INET && family != AF_INET6)
		snprintf(what, what_size, "%s",
		         family == AF_UNSPEC ? "AF_UNSPEC (a disconnect)"
		         : family == AF_UNIX ? "an AF_UNIX address"
		                             : "an address of another family");
	if (!sock || (sock->domain != AF_INET && sock->domain != AF_INET6) ||
	    sock->type != SOCK_STREAM || sock->protocol != IPPROTO_TCP)
		return SBX_NETLL_NOT_TCP;
	if (family != sock->domain)
		return SBX_NETLL_FAMILY;
	if (family == AF_INET) {
		struct sockaddr_in in;

		if (len < sizeof(in))
			return SBX_NETLL_SHORT;
		memcpy(&in, sa, sizeof(in));
		a.family = AF_INET;
		memcpy(a.a, &in.sin_addr, 4);
		port = ntohs(in.sin_port);
		say(what, what_size, &a, port);
		if (a.a[0] != 127 || a.a[1] != 0 || a.a[2] != 0 || a.a[3] != 1)
			return SBX_NETLL_NOT_LOOPBACK;
	} else {
		struct sockaddr_in6 in6;

		if (len < sizeof(in6))
			return SBX_NETLL_SHORT;
		memcpy(&in6, sa, sizeof(in6));
		a.family = AF_INET6;
		memcpy(a.a, &in6.sin6_addr, 16);
		port = ntohs(in6.sin6_port);
		say(what, what_size, &a, port);
		/* ::1 only where the proxy listens there; 127.0.0.1 as an IPv4-mapped address
		 * is the IPv4 listener itself */
		if (!(ipv6_loopback && memcmp(a.a, loop6, 16) == 0) &&
		    memcmp(a.a, mapped_loop4, 16) != 0)
			return SBX_NETLL_NOT_LOOPBACK;
	}
	if (!port_listed(port, ports, n_ports))
		return SBX_NETLL_NOT_PROXY;
	return SBX_NETLL_ALLOW;
}

const char *sbx_netll_verdict_name(enum sbx_netll_verdict v)
{
	switch (v) {
	case SBX_NETLL_ALLOW:
		return "allowed";
	case SBX_NETLL_NOT_TCP:
		return "not a TCP socket";
	case SBX_NETLL_FAMILY:
		return "not an address of the socket's family";
	case SBX_NETLL_SHORT:
		return "a truncated address";
	case SBX_NETLL_NOT_LOOPBACK:
		return "not sbx's proxy";
	case SBX_NETLL_NOT_PROXY:
		return "a loopback port that is not sbx's proxy";
	}
	return "refused";
}

size_t sbx_netll_refusal_text(enum sbx_netll_verdict v, const char *what, unsigned http_port,
                              unsigned socks_port, char *out, size_t size)
{
	int n =
	    snprintf(out, size,
	             "sbx: network: refused connect() to %s (%s): under the landlock backend "
	             "the sandbox reaches only sbx's proxy, 127.0.0.1:%u (HTTP, in "
	             "HTTP_PROXY and HTTPS_PROXY) and 127.0.0.1:%u (SOCKS5, in ALL_PROXY); "
	             "to allow a host: --net allow:HOST, and reach it through the proxy",
	             what && *what ? what : "?", sbx_netll_verdict_name(v), http_port, socks_port);

	return n < 0 ? 0 : (size_t)n;
}
