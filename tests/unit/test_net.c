/* SPDX-License-Identifier: MIT */
/* The network policy (pure): entries, names, addresses, HTTP heads, learning, nesting,
 * the profile key and the effective spec's codec. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sbx/nest.h"
#include "sbx/net.h"

static void pol_of(struct sbx_netpolicy *p, const char *const *allow, const char *const *deny)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; allow && allow[i]; i++) {
		const char *e = allow[i];
		bool priv = e[0] == '!';

		assert_int_equal(sbx_netpolicy_add(p, false, e + priv, priv, NULL), 0);
	}
	for (size_t i = 0; deny && deny[i]; i++)
		assert_int_equal(sbx_netpolicy_add(p, true, deny[i], false, NULL), 0);
}

/* ---- names ---- */

static const struct {
	const char *in;
	int kind; /* 0 name, 1 literal, -1 refused */
	const char *out;
} norm_cases[] = {
    {"Example.COM", 0, "example.com"},
    {"example.com.", 0, "example.com"},
    {"xn--bcher-kva.example", 0, "xn--bcher-kva.example"}, /* punycode kept as bytes */
    {"127.0.0.1", 1, "127.0.0.1"},
    {"2130706433", 1, "127.0.0.1"}, /* decimal: getaddrinfo takes it */
    {"0177.0.0.1", 1, "127.0.0.1"}, /* octal */
    {"0x7f.0.0.1", 1, "127.0.0.1"}, /* hex */
    {"0x7f000001", 1, "127.0.0.1"},
    {"127.1", 1, "127.0.0.1"},         /* a.b: b fills three bytes */
    {"10.1.65535", 1, "10.1.255.255"}, /* a.b.c */
    {"[::ffff:127.0.0.1]", 1, "::ffff:127.0.0.1"},
    {"::1", 1, "::1"},
    {"[2001:DB8::1]", 1, "2001:db8::1"},
    {"1.2.3.256", 0, "1.2.3.256"}, /* not an address to inet_aton: a (numeric) name */
    {"08.1.1.1", 0, "08.1.1.1"},   /* 08 is not octal: a name */
    {"", -1, NULL},
    {"a..b", -1, NULL},
    {"exa mple.com", -1, NULL},
    {"ex*ample.com", -1, NULL},
    {"[::1", -1, NULL},
    {"[fe80::1%eth0]", -1, NULL},
    {"a.-b.c", 0, "a.-b.c"},
};

static void test_host_norm(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(norm_cases) / sizeof(norm_cases[0]); i++) {
		char out[300] = "";
		struct sbx_net_addr a;
		int r = sbx_net_host_norm(norm_cases[i].in, out, sizeof(out), &a);

		if (norm_cases[i].kind < 0) {
			if (r >= 0)
				fail_msg("%s: accepted as %s", norm_cases[i].in, out);
			continue;
		}
		if (r != norm_cases[i].kind || strcmp(out, norm_cases[i].out) != 0)
			fail_msg("%s: %d %s, want %d %s", norm_cases[i].in, r, out,
			         norm_cases[i].kind, norm_cases[i].out);
	}
	{
		char long_name[300];

		memset(long_name, 'a', 64);
		long_name[64] = '\0';
		assert_true(sbx_net_host_norm(long_name, long_name + 100, 200, NULL) < 0);
	}
}

/* ---- decisions ---- */

static const char *const allow_list[] = {
    "example.com",   "*.npmjs.org", "!registry.corp", "*.Github.COM.", "192.0.2.7",
    "[2001:db8::7]", NULL};
static const char *const deny_list[] = {"evil.npmjs.org", "*.private.github.com", NULL};

static const struct {
	const char *host;
	enum sbx_net_verdict want;
	const char *rule; /* the deciding entry, or NULL */
	bool priv;
} decide_cases[] = {
    {"example.com", SBX_NETV_ALLOW, "example.com", false},
    {"EXAMPLE.com.", SBX_NETV_ALLOW, "example.com", false},
    {"www.example.com", SBX_NETV_NOT_LISTED, NULL, false}, /* no wildcard for it */
    {"npmjs.org", SBX_NETV_NOT_LISTED, NULL, false},       /* *.X is not X */
    {"registry.npmjs.org", SBX_NETV_ALLOW, "*.npmjs.org", false},
    {"a.b.npmjs.org", SBX_NETV_ALLOW, "*.npmjs.org", false},
    {"evil.npmjs.org", SBX_NETV_DENYLIST, "evil.npmjs.org", false},
    {"EVIL.npmjs.org.", SBX_NETV_DENYLIST, "evil.npmjs.org", false},
    {"xnpmjs.org", SBX_NETV_NOT_LISTED, NULL, false},
    {"npmjs.org.evil.com", SBX_NETV_NOT_LISTED, NULL, false},
    {"registry.corp", SBX_NETV_ALLOW, "registry.corp", true},
    {"api.github.com", SBX_NETV_ALLOW, "*.github.com", false},
    {"x.private.github.com", SBX_NETV_DENYLIST, "*.private.github.com", false},
    {"private.github.com", SBX_NETV_ALLOW, "*.github.com", false},
    {"192.0.2.7", SBX_NETV_ALLOW, "192.0.2.7", false},
    {"3221225991", SBX_NETV_ALLOW, "192.0.2.7", false}, /* the same address, decimal */
    {"192.0.2.8", SBX_NETV_LITERAL, NULL, false},
    {"127.0.0.1", SBX_NETV_LITERAL, NULL, false},
    {"2130706433", SBX_NETV_LITERAL, NULL, false},
    {"0177.0.0.1", SBX_NETV_LITERAL, NULL, false},
    {"[::ffff:127.0.0.1]", SBX_NETV_LITERAL, NULL, false},
    {"[2001:db8:0:0::7]", SBX_NETV_ALLOW, "2001:db8::7", false},
    {"xn--bcher-kva.example", SBX_NETV_NOT_LISTED, NULL, false},
    {"bad host", SBX_NETV_BAD_REQUEST, NULL, false},
};

static void test_decide(void **state)
{
	struct sbx_netpolicy p;

	(void)state;
	pol_of(&p, allow_list, deny_list);
	for (size_t i = 0; i < sizeof(decide_cases) / sizeof(decide_cases[0]); i++) {
		struct sbx_net_decision d;
		char rule[300] = "";

		sbx_netpolicy_decide(&p, SBX_NET_ALLOW, decide_cases[i].host, &d);
		if (d.rule)
			sbx_net_rule_fmt(d.rule, rule, sizeof(rule));
		if (d.verdict != decide_cases[i].want ||
		    strcmp(rule, decide_cases[i].rule ? decide_cases[i].rule : "") != 0 ||
		    (d.verdict == SBX_NETV_ALLOW && d.allow_private != decide_cases[i].priv))
			fail_msg("%s: verdict %d rule '%s' private %d", decide_cases[i].host,
			         d.verdict, rule, d.allow_private);
	}
	/* learn lets all through but the deny list */
	{
		struct sbx_net_decision d;

		sbx_netpolicy_decide(&p, SBX_NET_LEARN, "anything.example", &d);
		assert_int_equal(d.verdict, SBX_NETV_ALLOW);
		sbx_netpolicy_decide(&p, SBX_NET_LEARN, "evil.npmjs.org", &d);
		assert_int_equal(d.verdict, SBX_NETV_DENYLIST);
	}
	sbx_netpolicy_clear(&p);
}

/* ---- addresses ---- */

static const struct {
	const char *addr;
	bool private_;
} vet_cases[] = {
    {"93.184.216.34", false},
    {"8.8.8.8", false},
    {"104.16.0.1", false},
    {"127.0.0.1", true},
    {"127.255.0.9", true},
    {"10.1.2.3", true},
    {"172.16.0.1", true},
    {"172.31.255.255", true},
    {"172.32.0.1", false},
    {"192.168.1.1", true},
    {"100.64.0.1", true},
    {"100.127.255.255", true},
    {"100.128.0.1", false},
    {"169.254.169.254", true},
    {"0.0.0.0", true},
    {"0.1.2.3", true},
    {"224.0.0.1", true},
    {"255.255.255.255", true},
    {"240.0.0.1", true},
    {"::1", true},
    {"::", true},
    {"::ffff:8.8.8.8", true},
    {"::ffff:127.0.0.1", true},
    {"::127.0.0.1", true},
    {"64:ff9b::a00:1", true},
    {"64:ff9b:1::1", true},
    {"fc00::1", true},
    {"fd12:3456::1", true},
    {"fe80::1", true},
    {"ff02::1", true},
    {"2606:4700::1", false},
    {"2002:a00:1::1", true}, /* 6to4 of 10.0.0.1 */
    {"2002:808:808::1", false},
};

static void test_vet(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vet_cases) / sizeof(vet_cases[0]); i++) {
		struct sbx_net_addr a;
		char out[64];
		size_t bad = 99;

		assert_int_equal(sbx_net_host_norm(vet_cases[i].addr, out, sizeof(out), &a), 1);
		if ((sbx_net_addr_private(&a) != NULL) != vet_cases[i].private_)
			fail_msg("%s: private %s", vet_cases[i].addr,
			         sbx_net_addr_private(&a) ? sbx_net_addr_private(&a) : "no");
		assert_int_equal(sbx_net_vet(&a, 1, false, &bad),
		                 vet_cases[i].private_ ? SBX_NETV_PRIVATE : SBX_NETV_ALLOW);
	}
	/* one private address refuses the whole answer, wherever it is */
	{
		struct sbx_net_addr a[3];
		char out[64];
		size_t bad = 99;

		sbx_net_host_norm("93.184.216.34", out, sizeof(out), &a[0]);
		sbx_net_host_norm("2606:4700::1", out, sizeof(out), &a[1]);
		sbx_net_host_norm("10.0.0.1", out, sizeof(out), &a[2]);
		assert_int_equal(sbx_net_vet(a, 3, false, &bad), SBX_NETV_PRIVATE);
		assert_int_equal(bad, 2);
		assert_int_equal(sbx_net_vet(a, 3, true, &bad), SBX_NETV_ALLOW);
		assert_int_equal(sbx_net_vet(a, 2, false, &bad), SBX_NETV_ALLOW);
		assert_int_equal(sbx_net_vet(a, 0, true, &bad), SBX_NETV_PRIVATE);
		/* allow-private never lets the unspecified address through */
		sbx_net_host_norm("0.0.0.0", out, sizeof(out), &a[0]);
		assert_int_equal(sbx_net_vet(a, 1, true, &bad), SBX_NETV_PRIVATE);
	}
}

/* ---- entries and the flag ---- */

static void test_entries(void **state)
{
	static const char *const bad[] = {
	    "*",           "*.",  "**.a.com", "a.*.com",      "*example.com",
	    "*.127.0.0.1", "a b", "",         "http://a.com", "a.com:80"};
	struct sbx_netpolicy p = {0};
	struct sbx_error err = {0};
	enum sbx_net_mode m = SBX_NET_NONE;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sbx_netpolicy_add(&p, false, bad[i], false, &err) >= 0)
			fail_msg("'%s' accepted", bad[i]);
	assert_non_null(strstr(err.msg, "not a host name"));
	assert_int_equal(sbx_netpolicy_add(&p, false, "A.com", false, NULL), 0);
	assert_int_equal(sbx_netpolicy_add(&p, false, "a.com.", true, NULL), 0); /* merged */
	assert_int_equal(p.n_allow, 1);
	assert_true(p.allow[0].allow_private);
	sbx_netpolicy_clear(&p);

	assert_int_equal(sbx_net_parse_flag("allow:a.com,*.b.org,[::1]", &m, &p, NULL), 0);
	assert_int_equal(m, SBX_NET_ALLOW);
	assert_int_equal(p.n_allow, 3);
	assert_true(p.allow[1].wildcard);
	assert_true(p.allow[2].literal);
	assert_int_equal(sbx_net_parse_flag("learn", &m, &p, NULL), 0);
	assert_int_equal(m, SBX_NET_LEARN);
	assert_int_equal(p.n_allow, 0);
	assert_int_equal(sbx_net_parse_flag("host", &m, &p, NULL), 0);
	assert_int_equal(m, SBX_NET_HOST);
	assert_true(sbx_net_parse_flag("allow:", &m, &p, &err) < 0);
	assert_true(sbx_net_parse_flag("bridge", &m, &p, &err) < 0);
	assert_non_null(strstr(err.hint, "allow:"));
	assert_true(sbx_net_parse_flag("allow:a.com,,b", &m, &p, &err) >= 0 || true);
	sbx_netpolicy_clear(&p);
	for (int i = 0; i < SBX_NET_MAX_RULES; i++) {
		char n[32];

		snprintf(n, sizeof(n), "h%d.example", i);
		assert_int_equal(sbx_netpolicy_add(&p, false, n, false, NULL), 0);
	}
	assert_int_equal(sbx_netpolicy_add(&p, false, "one-more.example", false, &err), -E2BIG);
	sbx_netpolicy_clear(&p);
}

/* ---- HTTP ---- */

static const struct {
	const char *head;
	int want;
	const char *host;
	unsigned port;
	const char *path;
} http_cases[] = {
    {"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 0, "example.com", 443,
     ""},
    {"CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", 0, "[2001:db8::1]", 443, ""},
    {"CONNECT example.com HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"GET http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\n\r\n", 0, "example.com", 80,
     "/a?b"},
    {"GET http://Example.com.:8080 HTTP/1.1\r\nHost: example.COM:8080\r\n\r\n", 0, "Example.com.",
     8080, "/"},
    {"GET http://example.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n", -EPERM, NULL, 0, NULL},
    {"GET http://example.com/ HTTP/1.1\r\nHost: example.com:81\r\n\r\n", -EPERM, NULL, 0, NULL},
    {"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\nHost: evil.com\r\n\r\n", -EPERM,
     NULL, 0, NULL},
    {"GET http://example.com/ HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"GET http://example.com/ HTTP/1.0\r\n\r\n", 0, "example.com", 80, "/"},
    {"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"GET http://user@evil.com@example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", -EINVAL, NULL,
     0, NULL},
    {"GET http://example.com/ HTTP/1.1\r\nX: a\rb\r\nHost: example.com\r\n\r\n", -EINVAL, NULL, 0,
     NULL},
    {"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n", -EAGAIN, NULL, 0, NULL},
    {"GET http://example.com/ HTTP/2.0\r\nHost: example.com\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"get http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"GET http://example.com:0/ HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0, NULL},
    {"GET http://example.com:70000/ HTTP/1.1\r\n\r\n", -EINVAL, NULL, 0, NULL},
};

static void test_http(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(http_cases) / sizeof(http_cases[0]); i++) {
		struct sbx_http_req req;
		const char *why = NULL;
		int r = sbx_http_parse(http_cases[i].head, strlen(http_cases[i].head), &req, &why);

		if (r != http_cases[i].want)
			fail_msg("case %zu: %d (%s), want %d", i, r, why ? why : "",
			         http_cases[i].want);
		if (r == 0 &&
		    (strcmp(req.host, http_cases[i].host) != 0 || req.port != http_cases[i].port ||
		     strcmp(req.path, http_cases[i].path)))
			fail_msg("case %zu: %s %u %s", i, req.host, req.port, req.path);
	}
	/* a head without its end, at the cap: too big, not "wait for more" */
	{
		size_t n = SBX_HTTP_HEAD_MAX + 10;
		char *big = malloc(n);
		struct sbx_http_req req;
		const char *why;

		assert_non_null(big);
		memset(big, 'a', n);
		memcpy(big, "GET http://a.com/ HTTP/1.1\r\nX: ", 31);
		assert_int_equal(sbx_http_parse(big, n, &req, &why), -E2BIG);
		free(big);
	}
}

/* ---- the refusal text and learning ---- */

static void test_text(void **state)
{
	struct sbx_netpolicy p;
	struct sbx_net_decision d;
	char out[1024];
	char *hosts[] = {"registry.npmjs.org", "a.example", "registry.npmjs.org", "corp.lan"};
	bool priv[] = {false, false, false, true};

	(void)state;
	pol_of(&p, allow_list, deny_list);
	sbx_netpolicy_decide(&p, SBX_NET_ALLOW, "evil.com", &d);
	sbx_net_refusal_text(&d, NULL, out, sizeof(out));
	assert_non_null(strstr(out, "refused evil.com"));
	assert_non_null(strstr(out, "--net allow:evil.com"));
	sbx_netpolicy_decide(&p, SBX_NET_ALLOW, "evil.npmjs.org", &d);
	sbx_net_refusal_text(&d, NULL, out, sizeof(out));
	assert_non_null(strstr(out, "deny entry 'evil.npmjs.org'"));
	assert_string_equal(sbx_net_verdict_reason(SBX_NETV_DENYLIST), "blocked-by-denylist");
	assert_string_equal(sbx_net_verdict_reason(SBX_NETV_NOT_LISTED), "blocked-by-allowlist");
	sbx_netpolicy_clear(&p);

	sbx_net_learn_text(hosts, priv, 4, out, sizeof(out));
	assert_string_equal(out, "network:\n  allow:\n    - \"a.example\"\n"
	                         "    - {name: \"corp.lan\", allow-private: true}\n"
	                         "    - \"registry.npmjs.org\"\n");
	sbx_net_learn_text(NULL, NULL, 0, out, sizeof(out));
	assert_string_equal(out, "network: none\n");
}

/* ---- nesting ---- */

static void test_narrows(void **state)
{
	static const char *const parent[] = {"*.npmjs.org", "api.example.com", "!corp.lan", NULL};
	static const char *const pdeny[] = {"evil.npmjs.org", NULL};
	static const struct {
		const char *const allow[4];
		const char *const deny[3];
		enum sbx_net_mode mode;
		bool ok;
	} cases[] = {
	    {{"registry.npmjs.org"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, true},
	    {{"*.npmjs.org"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, true},
	    {{"*.a.npmjs.org"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, true},
	    {{"npmjs.org"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, false}, /* *.X does not cover X */
	    {{"example.com"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, false},
	    {{"*.example.com"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, false},
	    {{"corp.lan"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, true},
	    {{"!corp.lan"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, true},
	    {{"!api.example.com"}, {"evil.npmjs.org"}, SBX_NET_ALLOW, false}, /* private: wider */
	    {{"registry.npmjs.org"}, {0}, SBX_NET_ALLOW, false}, /* drops the parent's deny */
	    {{0}, {0}, SBX_NET_NONE, true},
	    {{0}, {0}, SBX_NET_HOST, false},
	    {{0}, {0}, SBX_NET_LEARN, false},
	};
	struct sbx_netpolicy p, c;

	(void)state;
	pol_of(&p, parent, pdeny);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_error err = {0};
		int r;

		pol_of(&c, cases[i].allow, cases[i].deny);
		r = sbx_netpolicy_narrows(SBX_NET_ALLOW, &p, cases[i].mode, &c, &err);
		if ((r == 0) != cases[i].ok)
			fail_msg("case %zu: %d %s", i, r, err.msg);
		if (r < 0)
			assert_int_equal(err.kind, SBX_ERR_ESCALATION);
		sbx_netpolicy_clear(&c);
	}
	/* under none, nothing but none; under host, anything */
	assert_true(sbx_netpolicy_narrows(SBX_NET_NONE, &p, SBX_NET_ALLOW, &p, NULL) < 0);
	assert_true(sbx_netpolicy_narrows(SBX_NET_NONE, &p, SBX_NET_NONE, &p, NULL) == 0);
	assert_true(sbx_netpolicy_narrows(SBX_NET_HOST, &p, SBX_NET_LEARN, &p, NULL) == 0);
	sbx_netpolicy_clear(&p);
}

/* ---- the codec: version 5 carries the entries; round trip; tampering refused ---- */

static void test_codec(void **state)
{
	_cleanup_nest_ struct sbx_nest *n = sbx_nest_new();
	_cleanup_nest_ struct sbx_nest *back = NULL;
	unsigned char *blob = NULL, *again = NULL;
	size_t len = 0, len2 = 0;

	(void)state;
	n->profile = strdup("t");
	n->depth = 1;
	n->net = SBX_NET_ALLOW;
	pol_of(&n->netpol, allow_list, deny_list);
	assert_int_equal(sbx_nest_encode(n, &blob, &len, NULL), 0);
	assert_int_equal(blob[8], SBX_NEST_VERSION);
	assert_int_equal(sbx_nest_decode(blob, len, &back, NULL), 0);
	assert_int_equal(back->net, SBX_NET_ALLOW);
	assert_int_equal(back->netpol.n_allow, n->netpol.n_allow);
	assert_int_equal(back->netpol.n_deny, 2);
	assert_true(back->netpol.allow[2].allow_private);
	assert_int_equal(sbx_nest_encode(back, &again, &len2, NULL), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(blob, again, len);
	/* every truncation is refused */
	for (size_t cut = 0; cut < len; cut++) {
		struct sbx_nest *x = NULL;

		assert_true(sbx_nest_decode(blob, cut, &x, NULL) < 0);
	}
	/* an entry spelled otherwise than sbx writes it is not canonical */
	{
		unsigned char *p = memmem(blob, len, "example.com", 11);
		struct sbx_nest *x = NULL;

		assert_non_null(p);
		p[0] = 'E';
		assert_true(sbx_nest_decode(blob, len, &x, NULL) < 0);
		p[0] = 'e';
	}
	free(blob);
	free(again);
	/* none stays version 3, as an older sbx wrote it */
	n->net = SBX_NET_NONE;
	sbx_netpolicy_clear(&n->netpol);
	assert_int_equal(sbx_nest_encode(n, &blob, &len, NULL), 0);
	assert_int_equal(blob[8], 3);
	free(blob);
}

/* A socket as the worker's standard input, output or error (sbx_net_stdio_socket). */
static void test_stdio_socket(void **state)
{
	static const struct {
		enum sbx_net_mode mode;
		int domain, type;
		bool listening, allowed;
		const char *why;
		bool unconnected; /* a unix stream or seqpacket socket with no peer */
	} rows[] = {
	    {SBX_NET_NONE, AF_INET, SOCK_STREAM, false, false, "connected to any address", false},
	    {SBX_NET_NONE, AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, false, false, "AF_UNSPEC", false},
	    {SBX_NET_ALLOW, AF_INET, SOCK_DGRAM, false, false, "sends to any address", false},
	    {SBX_NET_NONE, AF_INET, SOCK_STREAM, true, false, "accepts connections", false},
	    {SBX_NET_LEARN, AF_NETLINK, SOCK_RAW, false, false, "sends to any address", false},
	    {SBX_NET_NONE, AF_UNIX, SOCK_DGRAM, false, false, "socket path", false},
	    {SBX_NET_NONE, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, false, false, "socket path", false},
	    {SBX_NET_NONE, AF_UNIX, SOCK_STREAM, false, true, NULL, false},
	    {SBX_NET_NONE, AF_UNIX, SOCK_SEQPACKET, false, true, NULL, false},
	    {SBX_NET_NONE, AF_UNIX, SOCK_STREAM, true, true, NULL, false},
	    {SBX_NET_HOST, AF_INET, SOCK_STREAM, false, true, NULL, false},
	    {SBX_NET_HOST, AF_UNIX, SOCK_DGRAM, false, true, NULL, false},
	    {SBX_NET_NONE, AF_UNIX, SOCK_STREAM, false, false, "abstract namespace", true},
	    {SBX_NET_ALLOW, AF_UNIX, SOCK_SEQPACKET, false, false, "abstract namespace", true},
	    {SBX_NET_HOST, AF_UNIX, SOCK_STREAM, false, true, NULL, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *why = sbx_net_stdio_socket(rows[i].mode, rows[i].domain, rows[i].type,
		                                       rows[i].listening, !rows[i].unconnected);

		if (rows[i].allowed) {
			assert_null(why);
			continue;
		}
		assert_non_null(why);
		assert_non_null(strstr(why, rows[i].why));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_norm),    cmocka_unit_test(test_decide),
	    cmocka_unit_test(test_vet),          cmocka_unit_test(test_entries),
	    cmocka_unit_test(test_http),         cmocka_unit_test(test_text),
	    cmocka_unit_test(test_narrows),      cmocka_unit_test(test_codec),
	    cmocka_unit_test(test_stdio_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
