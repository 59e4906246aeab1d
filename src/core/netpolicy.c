/* SPDX-License-Identifier: MIT */
/*
 * The network policy (include/sbx/net.h): entries, name matching, address vetting, the HTTP
 * request check, learning's summary and nested narrowing. Pure.
 */
#include "sbx/net.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <strings.h>

#include "sbx/cleanup.h"

const char *sbx_net_mode_name(enum sbx_net_mode m)
{
	switch (m) {
	case SBX_NET_NONE:
		return "none";
	case SBX_NET_HOST:
		return "host";
	case SBX_NET_ALLOW:
		return "allowlist";
	case SBX_NET_LEARN:
		return "learn";
	default:
		return "?";
	}
}

void sbx_netpolicy_clear(struct sbx_netpolicy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_allow; i++)
		free(p->allow[i].name);
	for (size_t i = 0; i < p->n_deny; i++)
		free(p->deny[i].name);
	free(p->allow);
	free(p->deny);
	memset(p, 0, sizeof(*p));
}

/* ---- addresses ---- */

/* One part of an inet_aton(3) spelling: decimal, 0-prefixed octal, 0x-prefixed hex. */
static bool aton_part(const char *s, size_t n, unsigned long long *out)
{
	unsigned base = 10;
	unsigned long long v = 0;
	size_t i = 0;

	if (n == 0)
		return false;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
		if (n == 2) /* "0x" alone is 0 to glibc */
			return *out = 0, true;
	} else if (s[0] == '0' && n > 1) {
		base = 8;
		i = 1;
	}
	for (; i < n; i++) {
		int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && isxdigit((unsigned char)s[i]))
			d = tolower((unsigned char)s[i]) - 'a' + 10;
		else
			return false;
		if (d >= (int)base)
			return false;
		v = v * base + (unsigned)d;
		if (v > 0xffffffffull)
			return false;
	}
	*out = v;
	return true;
}

/* inet_aton's forms: a, a.b, a.b.c, a.b.c.d; the last part fills the remaining bytes. */
static bool parse_aton(const char *s, uint8_t out[4])
{
	unsigned long long part[4];
	size_t np = 0;
	const char *p = s;
	uint32_t v;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);

		if (np == 4 || !aton_part(p, n, &part[np]))
			return false;
		np++;
		if (!dot)
			break;
		p = dot + 1;
	}
	for (size_t i = 0; i + 1 < np; i++)
		if (part[i] > 0xff)
			return false;
	switch (np) {
	case 1:
		v = (uint32_t)part[0];
		break;
	case 2:
		if (part[1] > 0xffffff)
			return false;
		v = (uint32_t)(part[0] << 24 | part[1]);
		break;
	case 3:
		if (part[2] > 0xffff)
			return false;
		v = (uint32_t)(part[0] << 24 | part[1] << 16 | part[2]);
		break;
	default:
		if (part[3] > 0xff)
			return false;
		v = (uint32_t)(part[0] << 24 | part[1] << 16 | part[2] << 8 | part[3]);
	}
	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
	return true;
}

void sbx_net_addr_fmt(const struct sbx_net_addr *a, char *out, size_t size)
{
	if (!inet_ntop(a->family == AF_INET6 ? AF_INET6 : AF_INET, a->a, out, (socklen_t)size))
		snprintf(out, size, "?");
}

int sbx_net_host_norm(const char *in, char *out, size_t size, struct sbx_net_addr *addr)
{
	char buf[SBX_NET_NAME_MAX + 3];
	size_t n = in ? strlen(in) : 0;
	struct sbx_net_addr a = {0};

	if (n == 0 || n > SBX_NET_NAME_MAX + 2 || size < 64)
		return -EINVAL;
	if (in[0] == '[') {
		if (in[n - 1] != ']' || n < 3)
			return -EINVAL;
		memcpy(buf, in + 1, n - 2);
		buf[n - 2] = '\0';
		if (inet_pton(AF_INET6, buf, a.a) != 1)
			return -EINVAL;
		a.family = AF_INET6;
		goto literal;
	}
	memcpy(buf, in, n + 1);
	if (strchr(buf, ':')) {
		if (inet_pton(AF_INET6, buf, a.a) != 1)
			return -EINVAL;
		a.family = AF_INET6;
		goto literal;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
	if (n > 1 && buf[n - 1] == '.')
		buf[--n] = '\0';
	if (n > SBX_NET_NAME_MAX)
		return -EINVAL;
	/* every spelling getaddrinfo takes for an address is one (AI_NUMERICHOST or not) */
	if (parse_aton(buf, a.a)) {
		a.family = AF_INET;
		goto literal;
	}
	{
		size_t label = 0;

		for (size_t i = 0; i < n; i++) {
			char c = buf[i];

			if (c == '.') {
				if (label == 0)
					return -EINVAL;
				label = 0;
				continue;
			}
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			      c == '_'))
				return -EINVAL;
			if (++label > SBX_NET_LABEL_MAX)
				return -EINVAL;
		}
		if (label == 0)
			return -EINVAL;
	}
	snprintf(out, size, "%s", buf);
	return 0;
literal:
	sbx_net_addr_fmt(&a, out, size);
	if (addr)
		*addr = a;
	return 1;
}

static bool v4_in(const uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2, unsigned bits)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	uint32_t y = (uint32_t)b0 << 24 | (uint32_t)b1 << 16 | (uint32_t)b2 << 8;
	uint32_t mask = bits ? ~0u << (32 - bits) : 0;

	return (x & mask) == (y & mask);
}

static const char *v4_private(const uint8_t *a)
{
	if (v4_in(a, 0, 0, 0, 8))
		return a[0] | a[1] | a[2] | a[3] ? "this network (0.0.0.0/8)" : "unspecified";
	if (v4_in(a, 127, 0, 0, 8))
		return "loopback";
	if (v4_in(a, 10, 0, 0, 8) || v4_in(a, 172, 16, 0, 12) || v4_in(a, 192, 168, 0, 16))
		return "private (RFC 1918)";
	if (v4_in(a, 100, 64, 0, 10))
		return "CGNAT (100.64.0.0/10)";
	if (v4_in(a, 169, 254, 0, 16))
		return "link-local";
	if (v4_in(a, 192, 0, 0, 24))
		return "reserved (192.0.0.0/24)";
	if (v4_in(a, 198, 18, 0, 15))
		return "reserved (198.18.0.0/15)";
	if (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255)
		return "broadcast";
	if (v4_in(a, 224, 0, 0, 4))
		return "multicast";
	if (v4_in(a, 240, 0, 0, 4))
		return "reserved (240.0.0.0/4)";
	return NULL;
}

const char *sbx_net_addr_private(const struct sbx_net_addr *ad)
{
	static const uint8_t zero[16] = {0};
	const uint8_t *a = ad->a;

	if (ad->family == AF_INET)
		return v4_private(a);
	if (memcmp(a, zero, 16) == 0)
		return "unspecified";
	if (memcmp(a, zero, 15) == 0 && a[15] == 1)
		return "loopback";
	if (memcmp(a, zero, 10) == 0 && a[10] == 0xff && a[11] == 0xff)
		return "IPv4-mapped";
	if (memcmp(a, zero, 12) == 0)
		return "IPv4-compatible";
	if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b)
		return "NAT64 (64:ff9b::/96)"; /* 64:ff9b::/96 and the local 64:ff9b:1::/48 */
	if ((a[0] & 0xfe) == 0xfc)
		return "unique-local (fc00::/7)";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "site-local (fec0::/10)";
	if (a[0] == 0xff)
		return "multicast";
	if (a[0] == 0x01 && a[1] == 0x00 && memcmp(a + 2, zero, 6) == 0)
		return "discard (100::/64)";
	/* 6to4 carries an IPv4 address a relay would reach */
	if (a[0] == 0x20 && a[1] == 0x02 && v4_private(a + 2))
		return "6to4 of a private IPv4 address";
	return NULL;
}

enum sbx_net_verdict sbx_net_vet(const struct sbx_net_addr *addrs, size_t n, bool allow_private,
                                 size_t *bad)
{
	if (n == 0) {
		if (bad)
			*bad = 0;
		return SBX_NETV_PRIVATE;
	}
	for (size_t i = 0; i < n; i++) {
		const char *why = sbx_net_addr_private(&addrs[i]);

		if (why && (!allow_private || strcmp(why, "unspecified") == 0)) {
			if (bad)
				*bad = i;
			return SBX_NETV_PRIVATE;
		}
	}
	return SBX_NETV_ALLOW;
}

/* ---- entries ---- */

static int rule_from(const char *entry, bool allow_private, struct sbx_net_rule *out,
                     struct sbx_error *err)
{
	char norm[SBX_NET_NAME_MAX + 3];
	bool wildcard = false;
	const char *name = entry;
	int r;

	if (entry[0] == '*') {
		if (entry[1] != '.')
			goto bad;
		wildcard = true;
		name = entry + 2;
	}
	r = sbx_net_host_norm(name, norm, sizeof(norm), NULL);
	if (r < 0 || (wildcard && r == 1))
		goto bad;
	out->name = strdup(norm);
	if (!out->name)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	out->wildcard = wildcard;
	out->literal = r == 1;
	out->allow_private = allow_private;
	return 0;
bad:
	r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
	                  "network entry '%.300s' is not a host name, '*.' and a name, or an IP "
	                  "address",
	                  entry);
	sbx_error_hint(err, "write example.com, \"*.example.com\" (its subdomains), 192.0.2.1 "
	                    "or [2001:db8::1]; names are letters, digits, '-' and '_'");
	return r;
}

static bool rule_same(const struct sbx_net_rule *a, const struct sbx_net_rule *b)
{
	return a->wildcard == b->wildcard && strcmp(a->name, b->name) == 0;
}

int sbx_netpolicy_add(struct sbx_netpolicy *p, bool deny, const char *entry, bool allow_private,
                      struct sbx_error *err)
{
	struct sbx_net_rule rule = {0}, **arr = deny ? &p->deny : &p->allow, *grown;
	size_t *n = deny ? &p->n_deny : &p->n_allow;
	int r;

	if (!entry)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "empty network entry");
	r = rule_from(entry, allow_private && !deny, &rule, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < *n; i++)
		if (rule_same(&(*arr)[i], &rule)) {
			(*arr)[i].allow_private |= rule.allow_private;
			free(rule.name);
			return 0;
		}
	if (p->n_allow + p->n_deny >= SBX_NET_MAX_RULES) {
		free(rule.name);
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many network entries: at most %u", SBX_NET_MAX_RULES);
	}
	grown = realloc(*arr, (*n + 1) * sizeof(*grown));
	if (!grown) {
		free(rule.name);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	*arr = grown;
	grown[(*n)++] = rule;
	return 0;
}

int sbx_netpolicy_copy(struct sbx_netpolicy *dst, const struct sbx_netpolicy *src,
                       struct sbx_error *err)
{
	struct sbx_netpolicy out = {0};
	char e[SBX_NET_NAME_MAX + 8];
	int r = 0;

	for (size_t i = 0; r >= 0 && i < src->n_allow; i++) {
		sbx_net_rule_fmt(&src->allow[i], e, sizeof(e));
		r = sbx_netpolicy_add(&out, false, e, src->allow[i].allow_private, err);
	}
	for (size_t i = 0; r >= 0 && i < src->n_deny; i++) {
		sbx_net_rule_fmt(&src->deny[i], e, sizeof(e));
		r = sbx_netpolicy_add(&out, true, e, false, err);
	}
	if (r < 0) {
		sbx_netpolicy_clear(&out);
		return r;
	}
	sbx_netpolicy_clear(dst);
	*dst = out;
	return 0;
}

void sbx_net_rule_fmt(const struct sbx_net_rule *r, char *out, size_t size)
{
	snprintf(out, size, "%s%s", r->wildcard ? "*." : "", r->name);
}

int sbx_net_parse_flag(const char *arg, enum sbx_net_mode *mode, struct sbx_netpolicy *p,
                       struct sbx_error *err)
{
	static const struct {
		const char *name;
		enum sbx_net_mode mode;
	} modes[] = {{"none", SBX_NET_NONE}, {"host", SBX_NET_HOST}, {"learn", SBX_NET_LEARN}};
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;
	int r;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(arg, modes[i].name) == 0) {
			*mode = modes[i].mode;
			sbx_netpolicy_clear(p);
			return 0;
		}
	if (strncmp(arg, "allow:", 6) != 0 || !arg[6]) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "--net '%.300s' is not a network mode", arg);
		sbx_error_hint(err,
		               "use --net none (loopback only, the default), host, learn, or "
		               "allow:NAME[,NAME...] (e.g. allow:registry.npmjs.org,*.github.com)");
		return r;
	}
	copy = strdup(arg + 6);
	if (!copy)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		r = sbx_netpolicy_add(p, false, tok, false, err);
		if (r < 0) {
			sbx_error_wrap(err, "--net");
			return r;
		}
	}
	*mode = SBX_NET_ALLOW;
	return 0;
}

/* ---- decisions ---- */

static bool rule_matches(const struct sbx_net_rule *r, const char *host, bool literal)
{
	size_t hn, rn;

	if (r->literal != literal)
		return false;
	if (!r->wildcard)
		return strcmp(r->name, host) == 0;
	hn = strlen(host);
	rn = strlen(r->name);
	return hn > rn + 1 && host[hn - rn - 1] == '.' && strcmp(host + hn - rn, r->name) == 0;
}

/* The most specific entry: an exact one, else the longest wildcard. */
static const struct sbx_net_rule *best_match(const struct sbx_net_rule *rules, size_t n,
                                             const char *host, bool literal)
{
	const struct sbx_net_rule *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct sbx_net_rule *r = &rules[i];

		if (!rule_matches(r, host, literal))
			continue;
		if (!r->wildcard)
			return r;
		if (!best || strlen(r->name) > strlen(best->name))
			best = r;
	}
	return best;
}

void sbx_netpolicy_decide(const struct sbx_netpolicy *p, enum sbx_net_mode mode, const char *host,
                          struct sbx_net_decision *d)
{
	const struct sbx_net_rule *r;
	int kind;

	memset(d, 0, sizeof(*d));
	kind = sbx_net_host_norm(host, d->host, sizeof(d->host), &d->addr);
	if (kind < 0) {
		snprintf(d->host, sizeof(d->host), "%.*s", (int)sizeof(d->host) - 1,
		         host ? host : "");
		d->verdict = SBX_NETV_BAD_REQUEST;
		return;
	}
	d->literal = kind == 1;
	r = best_match(p->deny, p->n_deny, d->host, d->literal);
	if (r) {
		d->rule = r;
		d->verdict = SBX_NETV_DENYLIST;
		return;
	}
	if (mode == SBX_NET_LEARN || mode == SBX_NET_HOST) {
		d->verdict = SBX_NETV_ALLOW;
		d->allow_private = true;
		return;
	}
	r = best_match(p->allow, p->n_allow, d->host, d->literal);
	if (!r) {
		d->verdict = d->literal ? SBX_NETV_LITERAL : SBX_NETV_NOT_LISTED;
		return;
	}
	d->rule = r;
	d->allow_private = r->allow_private;
	d->verdict = SBX_NETV_ALLOW;
}

const char *sbx_net_verdict_reason(enum sbx_net_verdict v)
{
	switch (v) {
	case SBX_NETV_ALLOW:
		return "allowed";
	case SBX_NETV_DENYLIST:
		return "blocked-by-denylist";
	case SBX_NETV_NOT_LISTED:
		return "blocked-by-allowlist";
	case SBX_NETV_LITERAL:
		return "blocked-ip-literal";
	case SBX_NETV_PRIVATE:
		return "blocked-private-address";
	default:
		return "bad-request";
	}
}

size_t sbx_net_refusal_text(const struct sbx_net_decision *d, const char *addr_text, char *out,
                            size_t size)
{
	char rule[SBX_NET_NAME_MAX + 8] = "";
	const char *h = d->host;
	bool v6 = d->literal && d->addr.family == AF_INET6;
	int n;

	if (d->rule)
		sbx_net_rule_fmt(d->rule, rule, sizeof(rule));
	switch (d->verdict) {
	case SBX_NETV_DENYLIST:
		n = snprintf(out, size,
		             "sbx: network: refused %s: the deny entry '%s' matches it (a deny "
		             "entry always wins); to allow it: remove '%s' from the profile's "
		             "network: deny list",
		             h, rule, rule);
		break;
	case SBX_NETV_LITERAL:
		n = snprintf(out, size,
		             "sbx: network: refused %s: an IP address is reached only if the "
		             "allowlist names it; to allow it: --net allow:%s%s%s (or network: "
		             "{allow: [\"%s\"]})",
		             h, v6 ? "[" : "", h, v6 ? "]" : "", h);
		break;
	case SBX_NETV_PRIVATE:
		n = snprintf(
		    out, size,
		    "sbx: network: refused %s: it resolves to %s, a non-public address; to "
		    "allow it: network: {allow: [{name: %s, allow-private: true}]}",
		    h, addr_text && *addr_text ? addr_text : "no usable address", h);
		break;
	case SBX_NETV_NOT_LISTED:
		n = snprintf(
		    out, size,
		    "sbx: network: refused %s: not in the sandbox's allowlist; to allow it: "
		    "--net allow:%s (or network: {allow: [%s]} in the profile)",
		    h, h, h);
		break;
	default:
		n = snprintf(out, size, "sbx: network: refused a malformed request (%.200s)", h);
	}
	return n < 0 ? 0 : (size_t)n;
}

/* ---- HTTP ---- */

/* Find the end of the head; returns its length through the blank line, or 0. */
static size_t head_end(const char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Split "host[:port]" (IPv6 in brackets); port 0 when absent. */
static int split_authority(const char *s, size_t n, char *host, size_t hsize, unsigned *port)
{
	size_t hlen = n;
	const char *colon = NULL;

	*port = 0;
	if (n == 0 || memchr(s, '@', n))
		return -EINVAL;
	if (s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (!close)
			return -EINVAL;
		hlen = (size_t)(close - s) + 1;
		if (hlen < n) {
			if (s[hlen] != ':')
				return -EINVAL;
			colon = s + hlen;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon)
			hlen = (size_t)(colon - s);
	}
	if (colon) {
		unsigned long v = 0;
		size_t pn = n - (size_t)(colon - s) - 1;

		if (pn == 0 || pn > 5)
			return -EINVAL;
		for (size_t i = 1; i <= pn; i++) {
			if (colon[i] < '0' || colon[i] > '9')
				return -EINVAL;
			v = v * 10 + (unsigned)(colon[i] - '0');
		}
		if (v == 0 || v > 65535)
			return -EINVAL;
		*port = (unsigned)v;
	}
	if (hlen == 0 || hlen >= hsize)
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	return 0;
}

/* Two hosts the same, after normalisation. */
static bool same_host(const char *a, const char *b)
{
	char na[SBX_NET_NAME_MAX + 3], nb[SBX_NET_NAME_MAX + 3];

	return sbx_net_host_norm(a, na, sizeof(na), NULL) >= 0 &&
	       sbx_net_host_norm(b, nb, sizeof(nb), NULL) >= 0 && strcmp(na, nb) == 0;
}

int sbx_http_parse(const char *buf, size_t len, struct sbx_http_req *req, const char **why)
{
	size_t end = head_end(buf, len < SBX_HTTP_HEAD_MAX ? len : SBX_HTTP_HEAD_MAX);
	const char *line_end, *sp1, *sp2, *p;
	char host_hdr[SBX_NET_NAME_MAX + 16] = "";
	unsigned host_port = 0;
	int n_host = 0;

	*why = "malformed request";
	memset(req, 0, sizeof(*req));
	if (!end)
		return len >= SBX_HTTP_HEAD_MAX ? (*why = "request head too long", -E2BIG)
		                                : -EAGAIN;
	req->head_len = end;
	line_end = memchr(buf, '\n', end);
	req->line_len = (size_t)(line_end - buf) + 1;
	sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
	if (!sp1 || sp1 == buf || (size_t)(sp1 - buf) >= sizeof(req->method))
		return -EINVAL;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1)
		return -EINVAL;
	memcpy(req->method, buf, (size_t)(sp1 - buf));
	for (p = buf; p < sp1; p++)
		if (*p < 'A' || *p > 'Z')
			return -EINVAL;
	{
		size_t vn = (size_t)(line_end - sp2 - 1);

		if (vn && sp2[vn] == '\r')
			vn--;
		if (vn != 8 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
		    (sp2[8] != '0' && sp2[8] != '1'))
			return *why = "not HTTP/1.0 or HTTP/1.1", -EINVAL;
		memcpy(req->version, sp2 + 1, 8);
	}
	/* the headers: one Host at most, no byte below space but tab */
	for (p = line_end + 1; p < buf + end;) {
		const char *nl = memchr(p, '\n', (size_t)(buf + end - p));
		size_t ln = (size_t)(nl - p);

		if (ln && p[ln - 1] == '\r')
			ln--;
		if (ln == 0)
			break;
		for (size_t i = 0; i < ln; i++)
			if (((unsigned char)p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)
				return *why = "control byte in a header", -EINVAL;
		if (ln > 5 && strncasecmp(p, "host:", 5) == 0) {
			const char *v = p + 5, *ve = p + ln;

			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			if (++n_host > 1)
				return *why = "more than one Host header", -EPERM;
			if ((size_t)(ve - v) >= sizeof(host_hdr) ||
			    split_authority(v, (size_t)(ve - v), host_hdr, sizeof(host_hdr),
			                    &host_port) < 0)
				return *why = "malformed Host header", -EINVAL;
		}
		p = nl + 1;
	}
	{
		const char *t = sp1 + 1;
		size_t tn = (size_t)(sp2 - t);

		if (strcmp(req->method, "CONNECT") == 0) {
			req->connect = true;
			if (split_authority(t, tn, req->host, sizeof(req->host), &req->port) < 0 ||
			    req->port == 0)
				return *why = "CONNECT needs host:port", -EINVAL;
			return 0;
		}
		if (tn < 8 || strncasecmp(t, "http://", 7) != 0) {
			*why = tn >= 8 && strncasecmp(t, "https://", 8) == 0
			           ? "an https:// URI is sent with CONNECT, not forwarded"
			           : "a proxy request names an absolute http:// URI";
			return -EINVAL;
		}
		t += 7;
		tn -= 7;
		{
			size_t an = 0;

			while (an < tn && t[an] != '/' && t[an] != '?' && t[an] != '#')
				an++;
			if (split_authority(t, an, req->host, sizeof(req->host), &req->port) < 0)
				return *why = "malformed host in the URI", -EINVAL;
			if (req->port == 0)
				req->port = 80;
			if (tn - an + 2 > sizeof(req->path))
				return *why = "URI too long", -E2BIG;
			if (an == tn || t[an] != '/')
				snprintf(req->path, sizeof(req->path), "/%.*s", (int)(tn - an),
				         t + an);
			else
				snprintf(req->path, sizeof(req->path), "%.*s", (int)(tn - an),
				         t + an);
		}
	}
	if (n_host) {
		unsigned hp = host_port ? host_port : 80;

		if (!same_host(host_hdr, req->host) || hp != req->port)
			return *why = "the Host header names another host than the URI", -EPERM;
	} else if (strcmp(req->version, "HTTP/1.1") == 0) {
		return *why = "an HTTP/1.1 request without a Host header", -EINVAL;
	}
	return 0;
}

/* ---- learning ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t sbx_net_learn_text(char *const *hosts, const bool *privates, size_t n, char *out,
                          size_t size)
{
	_cleanup_free_ size_t *order = calloc(n ? n : 1, sizeof(*order));
	_cleanup_free_ char **sorted = calloc(n ? n : 1, sizeof(*sorted));
	size_t len = 0, m = 0;

#define EMIT(...)                                                                                  \
	do {                                                                                       \
		int k_ = snprintf(out + (len < size ? len : size), len < size ? size - len : 0,    \
		                  __VA_ARGS__);                                                    \
		if (k_ > 0)                                                                        \
			len += (size_t)k_;                                                         \
	} while (0)

	if (size)
		out[0] = '\0';
	if (!order || !sorted)
		return 0;
	for (size_t i = 0; i < n; i++)
		sorted[i] = hosts[i];
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	if (n == 0) {
		EMIT("network: none\n");
		return len;
	}
	EMIT("network:\n  allow:\n");
	for (size_t i = 0; i < n; i++) {
		bool priv = false;

		if (i && strcmp(sorted[i], sorted[i - 1]) == 0)
			continue;
		for (size_t j = 0; j < n; j++)
			if (strcmp(hosts[j], sorted[i]) == 0 && privates && privates[j])
				priv = true;
		m++;
		if (priv)
			EMIT("    - {name: \"%s\", allow-private: true}\n", sorted[i]);
		else
			EMIT("    - \"%s\"\n", sorted[i]);
	}
	(void)m;
#undef EMIT
	return len;
}

/* ---- nesting ---- */

/* Is the child's entry c covered by the parent's entry p? */
static bool covers(const struct sbx_net_rule *p, const struct sbx_net_rule *c)
{
	if (c->allow_private && !p->allow_private)
		return false;
	if (p->literal || c->literal)
		return p->literal && c->literal && strcmp(p->name, c->name) == 0;
	if (!p->wildcard)
		return !c->wildcard && strcmp(p->name, c->name) == 0;
	/* *.P covers c when c's name is strictly beneath P, or c is *.P itself */
	if (c->wildcard && strcmp(c->name, p->name) == 0)
		return true;
	return rule_matches(p, c->name, false);
}

int sbx_netpolicy_narrows(enum sbx_net_mode pmode, const struct sbx_netpolicy *p,
                          enum sbx_net_mode cmode, const struct sbx_netpolicy *c,
                          struct sbx_error *err)
{
	char e[SBX_NET_NAME_MAX + 8];
	int r;

	if (cmode == SBX_NET_NONE || pmode == SBX_NET_HOST)
		return 0;
	if (cmode == SBX_NET_HOST || (cmode == SBX_NET_LEARN && pmode != SBX_NET_LEARN) ||
	    pmode == SBX_NET_NONE) {
		r = sbx_error_set(
		    err, SBX_ERR_ESCALATION, EPERM,
		    "cannot give a sub-sandbox the network mode '%s': its parent's is "
		    "'%s', and child sandboxes can only narrow access",
		    sbx_net_mode_name(cmode), sbx_net_mode_name(pmode));
		sbx_error_hint(err, "ask for --net none or for entries of the parent's allowlist");
		return r;
	}
	if (pmode == SBX_NET_LEARN)
		return 0;
	/* both allowlists */
	for (size_t i = 0; i < c->n_allow; i++) {
		bool ok = false;

		for (size_t j = 0; !ok && j < p->n_allow; j++)
			ok = covers(&p->allow[j], &c->allow[i]);
		if (!ok) {
			sbx_net_rule_fmt(&c->allow[i], e, sizeof(e));
			r = sbx_error_set(
			    err, SBX_ERR_ESCALATION, EPERM,
			    "cannot allow '%s'%s in a sub-sandbox: the parent's allowlist "
			    "does not%s, and child sandboxes can only narrow access",
			    e, c->allow[i].allow_private ? " with private addresses" : "",
			    c->allow[i].allow_private ? " allow it so" : " cover it");
			sbx_error_hint(err, "name only entries the parent allows (see "
			                    "`sbx check` inside the sandbox)");
			return r;
		}
	}
	for (size_t j = 0; j < p->n_deny; j++) {
		bool ok = false;

		for (size_t i = 0; !ok && i < c->n_deny; i++)
			ok = rule_same(&p->deny[j], &c->deny[i]);
		if (!ok) {
			sbx_net_rule_fmt(&p->deny[j], e, sizeof(e));
			r = sbx_error_set(
			    err, SBX_ERR_ESCALATION, EPERM,
			    "a sub-sandbox's network policy drops the parent's deny entry "
			    "'%s'; child sandboxes can only narrow access",
			    e);
			sbx_error_hint(err, "keep the parent's deny entries");
			return r;
		}
	}
	return 0;
}

const char *sbx_net_stdio_socket(enum sbx_net_mode mode, int domain, int type, bool listening,
                                 bool connected)
{
	type &= 0xf; /* SOCK_TYPE_MASK: SOCK_NONBLOCK and SOCK_CLOEXEC are not the type */
	if (mode == SBX_NET_HOST)
		return NULL;
	if (domain == AF_UNIX && type != SOCK_STREAM && type != SOCK_SEQPACKET)
		return "a unix datagram socket sends to any socket path it names";
	if (domain == AF_UNIX)
		return connected || listening
		           ? NULL
		           : "an unconnected unix socket binds and listens in the host's abstract "
		             "namespace (a host service's name)";
	if (listening)
		return "it accepts connections from the network";
	if (type == SOCK_STREAM || type == SOCK_SEQPACKET)
		return "it can be disconnected (connect(2) with AF_UNSPEC) and connected to any "
		       "address";
	return "it sends to any address it names";
}
