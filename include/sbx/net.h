/* SPDX-License-Identifier: MIT */
#ifndef SBX_NET_H
#define SBX_NET_H

/*
 * The network policy (SPEC section 11; sbx-profile(5), NETWORK): what the proxy and the
 * resolver sbx serves inside an allowlisted sandbox decide. Pure: names, addresses and HTTP
 * request heads in, verdicts out; src/os/proxy.c and src/os/dns.c apply them.
 *
 * Ownership: a struct sbx_netpolicy owns its rules and their names; sbx_netpolicy_clear
 * releases them (and accepts a zeroed policy).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"

#define SBX_NET_MAX_RULES 512 /* allow + deny entries */
#define SBX_NET_NAME_MAX  253 /* bytes in a DNS name, without the trailing dot */
#define SBX_NET_LABEL_MAX 63
#define SBX_NET_ADDR_MAX  16 /* addresses one name may resolve to that sbx keeps */
/* The ports the proxy and the resolver listen on inside the sandbox's network namespace (it
 * is the sandbox's own: nothing else listens there). */
#define SBX_NET_HTTP_PORT  3128u
#define SBX_NET_SOCKS_PORT 1080u
#define SBX_NET_DNS_PORT   53u

/* The sandbox's /etc/resolv.conf where sbx's resolver answers in it (every mode but host):
 * a file of sbx's own in place of the host's (plan->etc_resolv, SBX_PLAN_F_DATA). */
#define SBX_NET_RESOLV_CONF                                                                        \
	"# sbx: the sandbox's resolver (sbx(1), NETWORK)\n"                                        \
	"nameserver 127.0.0.1\n"                                                                   \
	"options timeout:2 attempts:1\n"

enum sbx_net_mode {
	SBX_NET_NONE = 0, /* a new network namespace with loopback up */
	SBX_NET_HOST,     /* the host's network namespace */
	SBX_NET_ALLOW,    /* a new network namespace; sbx's proxy and resolver, an allowlist */
	SBX_NET_LEARN,    /* as ALLOW, but everything allowed and recorded */
	SBX_NET_MODE_MAX_,
};

/* "none", "host", "allowlist", "learn" */
const char *sbx_net_mode_name(enum sbx_net_mode m);

struct sbx_net_rule {
	char *name;         /* lower case, no trailing dot; for a wildcard, the part after "*."; an
	                       IP literal in its canonical form (dotted quad, RFC 5952 IPv6) */
	bool wildcard;      /* "*.NAME": every name strictly beneath NAME, never NAME itself */
	bool allow_private; /* the answer may hold private, loopback, ... addresses */
	bool literal;       /* name is an IP address */
};

struct sbx_netpolicy {
	struct sbx_net_rule *allow;
	size_t n_allow;
	struct sbx_net_rule *deny;
	size_t n_deny;
};

void sbx_netpolicy_clear(struct sbx_netpolicy *p);
int sbx_netpolicy_copy(struct sbx_netpolicy *dst, const struct sbx_netpolicy *src,
                       struct sbx_error *err);
/*
 * Add an entry as the profile or the flag spells it: NAME, "*.NAME" or an IP literal
 * (IPv6 in brackets or not). Checked: DNS name syntax (letters, digits, '-', '_', labels of
 * 1 to 63 bytes, at most 253 bytes; xn-- labels are kept as the bytes they are), no other
 * '*'. A repeat merges (allow_private ORed). Errors are SBX_ERR_USAGE naming the entry.
 */
int sbx_netpolicy_add(struct sbx_netpolicy *p, bool deny, const char *entry, bool allow_private,
                      struct sbx_error *err);

/* --net VALUE: none, host, learn, allow:NAME[,NAME...] (entries added to *p). */
int sbx_net_parse_flag(const char *arg, enum sbx_net_mode *mode, struct sbx_netpolicy *p,
                       struct sbx_error *err);

/* ---- names and addresses ---- */

/*
 * Normalise a host as a request names it: lower case, one trailing dot dropped, brackets
 * around an IPv6 literal dropped, and every spelling of an IPv4 address that inet_aton(3)
 * and so getaddrinfo(3) accept (2130706433, 0177.0.0.1, 0x7f.1, 127.1) turned into its
 * dotted quad. Returns 0 (a name), 1 (an IP literal: *addr filled) or -EINVAL (not a
 * host name sbx would look up: empty, too long, a byte outside [a-z0-9._-]).
 */
struct sbx_net_addr {
	int family; /* AF_INET (2) or AF_INET6 (10) */
	uint8_t a[16];
};
int sbx_net_host_norm(const char *in, char *out, size_t size, struct sbx_net_addr *addr);

/* Format an address: dotted quad, or RFC 5952 IPv6. size >= 46. */
void sbx_net_addr_fmt(const struct sbx_net_addr *a, char *out, size_t size);

/* Why an address is not public, or NULL when it is: "loopback", "private (RFC 1918)",
 * "CGNAT (100.64.0.0/10)", "link-local", "unique-local (fc00::/7)", "IPv4-mapped",
 * "IPv4-compatible", "NAT64 (64:ff9b::/96)", "this network (0.0.0.0/8)", "multicast",
 * "broadcast", "unspecified", "reserved", "documentation", "6to4", "Teredo". */
const char *sbx_net_addr_private(const struct sbx_net_addr *a);

/* ---- decisions ---- */

enum sbx_net_verdict {
	SBX_NETV_ALLOW = 0,
	SBX_NETV_DENYLIST,    /* a deny entry matches */
	SBX_NETV_NOT_LISTED,  /* no allow entry matches */
	SBX_NETV_LITERAL,     /* an IP literal not listed */
	SBX_NETV_PRIVATE,     /* an answer holds a non-public address (vetting) */
	SBX_NETV_BAD_REQUEST, /* a request sbx refuses to read (mismatch, malformed) */
};

struct sbx_net_decision {
	enum sbx_net_verdict verdict;
	const struct sbx_net_rule *rule; /* the entry that decided, or NULL */
	bool allow_private;              /* the allowing entry lets private answers through */
	bool literal;                    /* the host is an IP literal (*addr) */
	struct sbx_net_addr addr;
	char host[SBX_NET_NAME_MAX + 3]; /* normalised */
};

/* Decide a host (as a request or a query names it) under mode and p. LEARN allows all; HOST
 * and NONE are never asked. */
void sbx_netpolicy_decide(const struct sbx_netpolicy *p, enum sbx_net_mode mode, const char *host,
                          struct sbx_net_decision *d);

/* Vet a resolved answer for an allowed name: SBX_NETV_ALLOW, or SBX_NETV_PRIVATE with *bad
 * the first address refused (the whole answer is refused). allow_private passes all but the
 * unspecified address. n 0 is refused (NOT_LISTED is never returned). */
enum sbx_net_verdict sbx_net_vet(const struct sbx_net_addr *addrs, size_t n, bool allow_private,
                                 size_t *bad);

/* A verdict's X-Proxy-Error value ("blocked-by-allowlist", "blocked-by-denylist",
 * "blocked-private-address", "blocked-ip-literal", "bad-request"). */
const char *sbx_net_verdict_reason(enum sbx_net_verdict v);

/* May a socket of this family (AF_*) and type (SOCK_*) be the worker's standard input,
 * output or error under this network? NULL if it may; else what it would let the worker do,
 * for the refusal (static text). Under --net host anything may; elsewhere only a unix
 * stream or seqpacket socket that is connected (it cannot be aimed elsewhere then) or
 * listening (it only takes what the caller's peers send); an unconnected one would bind and
 * listen in the host's abstract namespace, and a datagram one sends where it names. */
const char *sbx_net_stdio_socket(enum sbx_net_mode mode, int domain, int type, bool listening,
                                 bool connected);

/*
 * One line naming the refusal, the rule and the flag that would allow it (the 403's body,
 * the stderr line): "sbx: network: refused HOST: ...; to allow it: --net allow:HOST".
 */
size_t sbx_net_refusal_text(const struct sbx_net_decision *d, const char *addr_text, char *out,
                            size_t size);

/* ---- HTTP ---- */

#define SBX_HTTP_HEAD_MAX 16384 /* a request head (line and headers), bytes */

struct sbx_http_req {
	char method[16];
	bool connect;                    /* CONNECT host:port */
	char host[SBX_NET_NAME_MAX + 3]; /* as the target names it (brackets dropped) */
	unsigned port;
	char path[4096]; /* origin-form for forwarding ("/..."); "" for CONNECT */
	size_t head_len; /* bytes of the head, through the blank line */
	size_t line_len; /* bytes of the request line, through its LF */
	char version[9]; /* "HTTP/1.1" */
};

/*
 * Parse a request head (buf holds at least the head: through "\r\n\r\n"). CONNECT takes
 * host:port; any other method an absolute URI http://host[:port]/path, whose host must be
 * the Host header's (case-insensitively, port included where either names one): a request
 * whose Host names another host is refused (-EPERM, *why set), so that what is decided is
 * what is reached. Returns 0, -EAGAIN (no end of head yet, and fewer than
 * SBX_HTTP_HEAD_MAX bytes), -E2BIG, -EINVAL (malformed; *why), -EPERM.
 */
int sbx_http_parse(const char *buf, size_t len, struct sbx_http_req *req, const char **why);

/* ---- learning ---- */

/*
 * The allowlist a learning run needed, as a profile's key (`network:` block, one entry a
 * line, sorted, unique) written into out. hosts: the names (and literals) the run reached
 * or asked for; privates[i]: that host's answer held a non-public address (the entry gets
 * allow-private). Returns the text's length (>= size: cut).
 */
size_t sbx_net_learn_text(char *const *hosts, const bool *privates, size_t n, char *out,
                          size_t size);

/* ---- nesting ---- */

/*
 * May a child sandbox with (cmode, c) start inside a parent with (pmode, p)? Narrowing only:
 * NONE under anything; HOST only under HOST; LEARN only under HOST or LEARN; an allowlist
 * under HOST or LEARN, or under an allowlist when each child allow entry is covered by a
 * parent allow entry (a name by an equal name or a parent wildcard; a wildcard by a parent
 * wildcard at or above it; private only where the parent's entry allows it) and every
 * parent deny entry is in the child's too. Returns 0 or -EPERM with err naming the entry.
 */
int sbx_netpolicy_narrows(enum sbx_net_mode pmode, const struct sbx_netpolicy *p,
                          enum sbx_net_mode cmode, const struct sbx_netpolicy *c,
                          struct sbx_error *err);

/* Format an entry as the profile spells it ("*.example.com", "10.0.0.1"). */
void sbx_net_rule_fmt(const struct sbx_net_rule *r, char *out, size_t size);

#endif
