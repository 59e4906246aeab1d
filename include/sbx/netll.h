/* SPDX-License-Identifier: MIT */
#ifndef SBX_NETLL_H
#define SBX_NETLL_H

/*
 * The network allowlist under the landlock backend (sbx(1), NETWORK): no network namespace,
 * so sbx's proxy listens on the host's loopback, on ports the kernel chose, and every
 * connect(2) of the worker stops at sbx's supervisor (seccomp user notification), which
 * asks here whether the address it copied is one of the proxy's, and performs the connect
 * itself on its copy of the socket. Pure.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBX_NETLL_MAX_PORTS 4 /* the proxy's ports: HTTP, SOCKS5 */

enum sbx_netll_verdict {
	SBX_NETLL_ALLOW = 0,
	SBX_NETLL_NOT_TCP,      /* the socket is not a TCP socket of AF_INET or AF_INET6 */
	SBX_NETLL_FAMILY,       /* the address's family is not the socket's (AF_UNSPEC too) */
	SBX_NETLL_SHORT,        /* the address is shorter than its family's */
	SBX_NETLL_NOT_LOOPBACK, /* not 127.0.0.1 (or ::1, ::ffff:127.0.0.1) */
	SBX_NETLL_NOT_PROXY,    /* loopback, on a port that is not the proxy's */
};

/* The sockets of the socket a connect names, as SO_DOMAIN, SO_TYPE and SO_PROTOCOL say. */
struct sbx_netll_sock {
	int domain, type, protocol;
};

/*
 * May the worker's connect(sock, sa, len) go ahead? Only a TCP socket (AF_INET or AF_INET6,
 * SOCK_STREAM, IPPROTO_TCP) to 127.0.0.1:PORT (an AF_INET6 socket: ::1 or ::ffff:127.0.0.1
 * where ipv6_loopback says the proxy listens on ::1, the mapped address always), PORT one of
 * ports[0..n_ports). sa holds len bytes of the caller's address as copied (struct sockaddr_in
 * or sockaddr_in6 in network order). what (may be NULL) gets the address as text
 * ("10.0.0.1:443", "[::1]:22", "AF_UNSPEC").
 */
enum sbx_netll_verdict sbx_netll_decide(const struct sbx_netll_sock *sock, const void *sa,
                                        size_t len, const unsigned *ports, size_t n_ports,
                                        bool ipv6_loopback, char *what, size_t what_size);

/* "not a TCP socket", "not loopback", ... for the refusal's line. */
const char *sbx_netll_verdict_name(enum sbx_netll_verdict v);

/*
 * The refusal's line for stderr: what was asked, what is allowed, and what to do:
 * "sbx: network: refused connect() to 10.0.0.1:443 (not loopback): under the landlock
 * backend the sandbox reaches only sbx's proxy, 127.0.0.1:H (HTTP) and 127.0.0.1:S (SOCKS5),
 * which HTTP_PROXY and ALL_PROXY name; to allow a host: --net allow:HOST". Returns what
 * snprintf does.
 */
size_t sbx_netll_refusal_text(enum sbx_netll_verdict v, const char *what, unsigned http_port,
                              unsigned socks_port, char *out, size_t size);

#endif
