/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_NETPROXY_H
#define SBX_OS_NETPROXY_H

/*
 * sbx's network proxy and resolver (sbx(1), NETWORK; include/sbx/net.h decides). The sandbox
 * has its own network namespace with loopback only; its init makes the listening sockets
 * there (sbx_netns_sockets) and hands them to sbx over a socket pair; one thread of sbx
 * serves them all from outside with one epoll loop: an HTTP proxy (CONNECT, and plain HTTP
 * with an absolute URI), a SOCKS5 proxy (CONNECT by name and by address, no
 * authentication) and a DNS responder (A and AAAA of allowed names, REFUSED for all else).
 * Names are resolved once, on the host, by sbx's own queries to the host's resolver (no
 * blocking call: the queries are sockets of the same loop), every answer is vetted, and
 * the address checked is the one dialled. Under --net none the responder alone runs and
 * refuses everything at once.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/audit.h"
#include "sbx/error.h"
#include "sbx/net.h"

#define SBX_NETPROXY_MAX_CONNS    1024u /* client connections at once; beyond, refused */
#define SBX_NETPROXY_MAX_NAMES    4096u /* names resolved in one run */
#define SBX_NETPROXY_HEAD_TIMEOUT 30000u
#define SBX_NETPROXY_DIAL_TIMEOUT 15000u
#define SBX_NETPROXY_AUDIT_MAX    20000u /* network records a run; beyond, one count at the end */
#define SBX_NETPROXY_SOCKBUF      (256 * 1024) /* a socket's buffers, each way, at most */
/* What the proxy's sockets may ask for, all together: a connection's buffers are sized so
 * that the sum stays under this (the kernel counts up to twice what is set), down to
 * SBX_NETPROXY_SOCKBUF_MIN each past it; a worker that opens many connections and reads
 * none pins at most about that much of the host's memory, not a megabyte a connection. */
#define SBX_NETPROXY_SOCK_BUDGET  (32u * 1024 * 1024)
#define SBX_NETPROXY_SOCKBUF_MIN  4096
#define SBX_NETPROXY_IDLE_TIMEOUT 3600000u /* a relay with no byte either way for an hour */
#define SBX_NETPROXY_DNS_TIMEOUT  2500u    /* one query to the host's resolver */
/* The environment variable naming the upstream resolver (IP or IP:PORT) instead of the
 * host's /etc/resolv.conf. For tests only (tests/integration/it_net.c), which stand a test
 * DNS server in for the internet's. */
#define SBX_NETPROXY_RESOLVER_ENV "SBX_TEST_NET_RESOLVER"

struct sbx_netproxy;

/* One decision, for the caller's messages (cmd/sbx prints; the proxy never does). */
struct sbx_net_event {
	const char *via; /* "http", "connect", "socks5", "dns" */
	const struct sbx_net_decision *d;
	unsigned port; /* 0 for a lookup */
	const char *addr;
	bool allowed;
	bool first_refusal; /* the first refusal of this host in this run */
	const char *text;   /* the refusal's line (sbx_net_refusal_text), or NULL */
};

struct sbx_netproxy_conf {
	enum sbx_net_mode mode; /* NONE: the refusing resolver alone; ALLOW, LEARN */
	const struct sbx_netpolicy *policy;
	const char *upstream; /* IP[:PORT] to resolve with; NULL: the host's /etc/resolv.conf */
	const char *upstream_proxy; /* a nested sandbox's: the parent's HTTP proxy (IP:PORT),
	                               which every dial goes through; NULL: dial directly */
	void (*on_event)(void *ctx, const struct sbx_net_event *ev);
	void *ctx;
	struct sbx_audit *audit; /* NULL: none */
};

int sbx_netproxy_new(const struct sbx_netproxy_conf *conf, struct sbx_netproxy **out,
                     struct sbx_error *err);
/* Before clone: the socket pair; *child_fd is init's end (sbx keeps the other). */
int sbx_netproxy_prepare(struct sbx_netproxy *p, int *child_fd, struct sbx_error *err);
/* sbx's end of the pair (for init to close). */
int sbx_netproxy_parent_fd(const struct sbx_netproxy *p);
/* After clone (in sbx, init's end closed): start the loop's thread, which takes the
 * listening sockets from init when it sends them; inline_mode: no thread, sbx's own loop
 * polls sbx_netproxy_pollfd and calls sbx_netproxy_service (the resolver of --net none,
 * where nothing else can keep sbx's loop from answering). */
int sbx_netproxy_start(struct sbx_netproxy *p, bool inline_mode, struct sbx_error *err);
/* Inline mode: the descriptor to poll for input (-1 otherwise), and one round of serving
 * what came, without waiting. */
int sbx_netproxy_pollfd(const struct sbx_netproxy *p);
void sbx_netproxy_service(struct sbx_netproxy *p);
/* Stop the thread and close everything (the sandbox has ended). */
void sbx_netproxy_stop(struct sbx_netproxy *p);
/* After stop: what the run did. learned: the names (and addresses) reached or asked for,
 * with whether their answer held a non-public address; the arrays are the proxy's. */
void sbx_netproxy_learned(const struct sbx_netproxy *p, char *const **hosts, const bool **privates,
                          size_t *n);
unsigned sbx_netproxy_refused_lookups(const struct sbx_netproxy *p);
void sbx_netproxy_free(struct sbx_netproxy *p);

/* ---- the landlock backend: no network namespace (sbx(1), NETWORK) ---- */

#define SBX_NETPROXY_MAX_EXPECT 1024u /* connects of the worker told and not yet accepted */

/*
 * Before the launch: listen on the host's 127.0.0.1 for HTTP and SOCKS5, on ports the kernel
 * picks (*http_port, *socks_port); no resolver (the worker has no UDP). From then on the proxy
 * serves only connections whose local port sbx_netproxy_expect named: any other process of
 * the host that connects is closed at accept (and counted, and said in the audit log).
 */
int sbx_netproxy_listen_host(struct sbx_netproxy *p, unsigned *http_port, unsigned *socks_port,
                             struct sbx_error *err);
/* The supervisor, before it connects the worker's socket from 127.0.0.1:local_port to the
 * proxy (on), or after that connect failed (off). Thread-safe. */
void sbx_netproxy_expect(struct sbx_netproxy *p, unsigned local_port, bool on);
/* A connect(2) of the worker the supervisor refused (include/sbx/netll.h): what it named,
 * and the line for stderr; to the audit log and on_event (via "connect()", each address's
 * first refusal marked). Thread-safe; accepts NULL. */
void sbx_netproxy_gate_refused(struct sbx_netproxy *p, const char *what, const char *text);
/* Connections from the host that were not the sandbox's, refused at accept. */
unsigned sbx_netproxy_strangers(const struct sbx_netproxy *p);

/* ---- in init, in the sandbox's network namespace (src/os/netns.c) ---- */

/*
 * Make the listening sockets (127.0.0.1 and, where the namespace has it, ::1: DNS on port 53,
 * UDP and TCP; with `proxy` the HTTP and SOCKS5 ports too) and send them over fd, which is
 * then closed. Then bind a file of sbx's own (a tmpfs of the sandbox's mount namespace,
 * never the host's) over /etc/resolv.conf: `nameserver 127.0.0.1`.
 */
int sbx_netns_sockets(int fd, bool proxy, struct sbx_error *err);
int sbx_netns_resolv_conf(struct sbx_error *err);

#endif
