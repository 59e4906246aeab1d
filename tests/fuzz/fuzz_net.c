/* SPDX-License-Identifier: MIT */
/* The network policy's parsers (include/sbx/net.h): an HTTP request head, a host as a request
 * names it, an allowlist entry and a --net value. Properties: a parsed head's lengths lie in
 * the input and its host normalises; a normalised host normalises to itself, and a literal's
 * text parses back to the same address; an entry added formats to text that adds the same
 * entry; the verdict of any host under any list is one of the verdicts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[SBX_HTTP_HEAD_MAX + 16];
	struct sbx_http_req req;
	const char *why = NULL;
	char out[SBX_NET_NAME_MAX + 64], again[SBX_NET_NAME_MAX + 64];
	struct sbx_net_addr a, b;
	int r;

	if (size >= sizeof(in))
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	r = sbx_http_parse(in, size, &req, &why);
	if (r == 0) {
		if (req.head_len > size || req.line_len > req.head_len || !req.port ||
		    req.port > 65535)
			abort();
		if (!req.connect && req.path[0] != '/')
			abort();
	}
	r = sbx_net_host_norm(in, out, sizeof(out), &a);
	if (r >= 0) {
		int r2 = sbx_net_host_norm(out, again, sizeof(again), &b);

		if (r2 != r || strcmp(out, again) != 0)
			abort();
		if (r == 1 && (a.family != b.family || memcmp(a.a, b.a, 16) != 0))
			abort();
	}
	{
		struct sbx_netpolicy p = {0}, q = {0};
		struct sbx_net_decision d;
		enum sbx_net_mode m;

		if (sbx_netpolicy_add(&p, size & 1, in, size & 2, NULL) == 0) {
			char e[SBX_NET_NAME_MAX + 8];
			const struct sbx_net_rule *rule = size & 1 ? &p.deny[0] : &p.allow[0];

			sbx_net_rule_fmt(rule, e, sizeof(e));
			if (sbx_netpolicy_add(&q, size & 1, e, size & 2, NULL) != 0)
				abort();
			sbx_netpolicy_decide(&p, SBX_NET_ALLOW, in, &d);
			if (d.verdict > SBX_NETV_BAD_REQUEST)
				abort();
			if (sbx_netpolicy_narrows(SBX_NET_ALLOW, &p, SBX_NET_ALLOW, &p, NULL) != 0)
				abort();
		}
		sbx_netpolicy_clear(&p);
		sbx_netpolicy_clear(&q);
		if (sbx_net_parse_flag(in, &m, &p, NULL) == 0 && m >= SBX_NET_MODE_MAX_)
			abort();
		sbx_netpolicy_clear(&p);
	}
	return 0;
}
