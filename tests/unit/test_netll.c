/* SPDX-License-Identifier: MIT */
/* The landlock backend's connect(2) gate (pure): which addresses reach sbx's proxy. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sbx/netll.h"

#define HTTP  40001u
#define SOCKS 40002u

static const unsigned ports[] = {HTTP, SOCKS};

static const struct sbx_netll_sock tcp4 = {AF_INET, SOCK_STREAM, IPPROTO_TCP};
static const struct sbx_netll_sock tcp6 = {AF_INET6, SOCK_STREAM, IPPROTO_TCP};
static const struct sbx_netll_sock udp4 = {AF_INET, SOCK_DGRAM, IPPROTO_UDP};
static const struct sbx_netll_sock mptcp4 = {AF_INET, SOCK_STREAM, 262};
static const struct sbx_netll_sock unix_stream = {AF_UNIX, SOCK_STREAM, 0};

static const struct {
	const struct sbx_netll_sock *sock;
	int family; /* of the address */
	const char *addr;
	unsigned port;
	size_t cut; /* bytes taken off the address's length */
	bool ipv6_loopback;
	enum sbx_netll_verdict want;
	const char *what;
} cases[] = {
    /* the proxy's ports on 127.0.0.1 */
    {&tcp4, AF_INET, "127.0.0.1", HTTP, 0, false, SBX_NETLL_ALLOW, "127.0.0.1:40001"},
    {&tcp4, AF_INET, "127.0.0.1", SOCKS, 0, false, SBX_NETLL_ALLOW, "127.0.0.1:40002"},
    /* another loopback port: a host service */
    {&tcp4, AF_INET, "127.0.0.1", 22, 0, false, SBX_NETLL_NOT_PROXY, "127.0.0.1:22"},
    {&tcp4, AF_INET, "127.0.0.1", 0, 0, false, SBX_NETLL_NOT_PROXY, "127.0.0.1:0"},
    /* the proxy's port elsewhere: Landlock's TCP rules alone would let these through */
    {&tcp4, AF_INET, "10.0.0.1", HTTP, 0, false, SBX_NETLL_NOT_LOOPBACK, "10.0.0.1:40001"},
    {&tcp4, AF_INET, "127.0.0.2", HTTP, 0, false, SBX_NETLL_NOT_LOOPBACK, "127.0.0.2:40001"},
    {&tcp4, AF_INET, "0.0.0.0", HTTP, 0, false, SBX_NETLL_NOT_LOOPBACK, "0.0.0.0:40001"},
    {&tcp4, AF_INET, "93.184.216.34", 443, 0, false, SBX_NETLL_NOT_LOOPBACK, "93.184.216.34:443"},
    /* a truncated address */
    {&tcp4, AF_INET, "127.0.0.1", HTTP, 1, false, SBX_NETLL_SHORT, ""},
    /* IPv6: ::1 only where the proxy listens there; the mapped 127.0.0.1 always */
    {&tcp6, AF_INET6, "::1", HTTP, 0, true, SBX_NETLL_ALLOW, "[::1]:40001"},
    {&tcp6, AF_INET6, "::1", HTTP, 0, false, SBX_NETLL_NOT_LOOPBACK, "[::1]:40001"},
    {&tcp6, AF_INET6, "::ffff:127.0.0.1", SOCKS, 0, false, SBX_NETLL_ALLOW, NULL},
    {&tcp6, AF_INET6, "::ffff:10.0.0.1", HTTP, 0, false, SBX_NETLL_NOT_LOOPBACK, NULL},
    {&tcp6, AF_INET6, "::", HTTP, 0, true, SBX_NETLL_NOT_LOOPBACK, "[::]:40001"},
    {&tcp6, AF_INET6, "2001:db8::1", HTTP, 0, true, SBX_NETLL_NOT_LOOPBACK, NULL},
    {&tcp6, AF_INET6, "::1", 80, 0, true, SBX_NETLL_NOT_PROXY, "[::1]:80"},
    {&tcp6, AF_INET6, "::1", HTTP, 1, true, SBX_NETLL_SHORT, ""},
    /* the family must be the socket's */
    {&tcp6, AF_INET, "127.0.0.1", HTTP, 0, true, SBX_NETLL_FAMILY, ""},
    {&tcp4, AF_UNSPEC, NULL, 0, 0, false, SBX_NETLL_FAMILY, "AF_UNSPEC (a disconnect)"},
    {&tcp4, AF_UNIX, NULL, 0, 0, false, SBX_NETLL_FAMILY, "an AF_UNIX address"},
    /* only TCP sockets: UDP, MPTCP, unix */
    {&udp4, AF_INET, "127.0.0.1", HTTP, 0, false, SBX_NETLL_NOT_TCP, ""},
    {&mptcp4, AF_INET, "127.0.0.1", HTTP, 0, false, SBX_NETLL_NOT_TCP, ""},
    {&unix_stream, AF_UNIX, NULL, 0, 0, false, SBX_NETLL_NOT_TCP, "an AF_UNIX address"},
    {NULL, AF_INET, "127.0.0.1", HTTP, 0, false, SBX_NETLL_NOT_TCP, ""},
};

static size_t make_addr(int family, const char *addr, unsigned port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)family;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		assert_int_equal(inet_pton(AF_INET, addr, &in->sin_addr), 1);
		in->sin_port = htons((uint16_t)port);
		return sizeof(*in);
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		assert_int_equal(inet_pton(AF_INET6, addr, &in6->sin6_addr), 1);
		in6->sin6_port = htons((uint16_t)port);
		return sizeof(*in6);
	}
	if (family == AF_UNIX) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;

		snprintf(un->sun_path, sizeof(un->sun_path), "/run/docker.sock");
		return sizeof(*un);
	}
	return sizeof(sa_family_t);
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sockaddr_storage ss;
		size_t len = make_addr(cases[i].family, cases[i].addr, cases[i].port, &ss);
		char what[96];
		enum sbx_netll_verdict v =
		    sbx_netll_decide(cases[i].sock, &ss, len - cases[i].cut, ports, 2,
		                     cases[i].ipv6_loopback, what, sizeof(what));

		if (v != cases[i].want)
			fail_msg("case %zu (%s port %u): %s, want %s", i,
			         cases[i].addr ? cases[i].addr : "-", cases[i].port,
			         sbx_netll_verdict_name(v), sbx_netll_verdict_name(cases[i].want));
		if (cases[i].what)
			assert_string_equal(what, cases[i].what);
	}
}

/* No port at all (a proxy that could not listen): nothing is allowed; an empty slot (0) is
 * no port. */
static void test_no_ports(void **state)
{
	struct sockaddr_storage ss;
	size_t len = make_addr(AF_INET, "127.0.0.1", 0, &ss);
	const unsigned zero[] = {0, 0};

	(void)state;
	assert_int_equal(sbx_netll_decide(&tcp4, &ss, len, NULL, 0, false, NULL, 0),
	                 SBX_NETLL_NOT_PROXY);
	assert_int_equal(sbx_netll_decide(&tcp4, &ss, len, zero, 2, false, NULL, 0),
	                 SBX_NETLL_NOT_PROXY);
	/* an empty address */
	assert_int_equal(sbx_netll_decide(&tcp4, &ss, 0, ports, 2, false, NULL, 0),
	                 SBX_NETLL_FAMILY);
}

static void test_refusal_text(void **state)
{
	char line[512];

	(void)state;
	sbx_netll_refusal_text(SBX_NETLL_NOT_LOOPBACK, "10.0.0.1:443", HTTP, SOCKS, line,
	                       sizeof(line));
	assert_non_null(strstr(line, "refused connect() to 10.0.0.1:443 (not sbx's proxy)"));
	assert_non_null(strstr(line, "127.0.0.1:40001 (HTTP"));
	assert_non_null(strstr(line, "127.0.0.1:40002 (SOCKS5"));
	assert_non_null(strstr(line, "--net allow:HOST"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_no_ports),
	    cmocka_unit_test(test_refusal_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
