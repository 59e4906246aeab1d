/* SPDX-License-Identifier: MIT */
/*
 * The profile key `network:` (sbx-profile(5), NETWORK): none, host, learn, or
 * {allow: [NAME, "*.NAME", {name: NAME, allow-private: true}], deny: [NAME, ...]}.
 */
#include <errno.h>
#include <string.h>

#include "profile_priv.h"
#include "sbx/net.h"
#include "sbx/spec.h"

static int net_entry(struct loader *l, const struct sbx_ynode *n, bool deny,
                     struct sbx_netpolicy *p)
{
	const char *name = NULL;
	bool priv = false;
	const struct sbx_ynode *name_node = n;
	int r;

	if (n->kind == SBX_Y_SCALAR) {
		name = n->value;
	} else if (n->kind == SBX_Y_MAP && !deny) {
		for (size_t i = 0; i + 1 < n->n_kids; i += 2) {
			const struct sbx_ynode *k = n->kids[i], *v = n->kids[i + 1];

			if (strcmp(k->value, "name") == 0 && v->kind == SBX_Y_SCALAR) {
				name = v->value;
				name_node = v;
			} else if (strcmp(k->value, "allow-private") == 0 &&
			           v->kind == SBX_Y_SCALAR && v->plain &&
			           (strcmp(v->value, "true") == 0 ||
			            strcmp(v->value, "false") == 0)) {
				priv = strcmp(v->value, "true") == 0;
			} else {
				r = sbx_prof_fail(
				    l, k, EINVAL,
				    "'%s' is not a key of a network entry (name: NAME, "
				    "allow-private: true|false)",
				    k->value);
				return r;
			}
		}
		if (!name)
			return sbx_prof_fail(l, n, EINVAL, "this network entry has no 'name'");
	} else {
		return sbx_prof_fail(
		    l, n, EINVAL, "a network %s entry is a name%s, not %s", deny ? "deny" : "allow",
		    deny ? "" : " or {name: NAME, allow-private: true}", sbx_ynode_type_name(n));
	}
	r = sbx_netpolicy_add(p, deny, name, priv, l->err);
	if (r < 0)
		return sbx_prof_locate(l, name_node, r);
	return 0;
}

int sbx_prof_network(struct loader *l, const struct sbx_ynode *k, const struct sbx_ynode *v)
{
	struct sbx_netpolicy p = {0};
	int r = 0;

	(void)k;
	if (v->kind == SBX_Y_SCALAR) {
		static const struct {
			const char *name;
			enum sbx_net_mode mode;
		} modes[] = {
		    {"none", SBX_NET_NONE}, {"host", SBX_NET_HOST}, {"learn", SBX_NET_LEARN}};

		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (strcmp(v->value, modes[i].name) == 0) {
				l->spec->net = modes[i].mode;
				sbx_netpolicy_clear(&l->spec->netpol);
				return 0;
			}
	}
	if (v->kind != SBX_Y_MAP) {
		r = sbx_prof_fail(l, v, EINVAL,
		                  "'network' is none, host, learn or {allow: [...], deny: [...]}, "
		                  "not %s%s%s",
		                  v->kind == SBX_Y_SCALAR ? "'" : "",
		                  v->kind == SBX_Y_SCALAR ? v->value : sbx_ynode_type_name(v),
		                  v->kind == SBX_Y_SCALAR ? "'" : "");
		sbx_error_hint(l->err,
		               "e.g. network: {allow: [registry.npmjs.org, \"*.github.com\"]}");
		return r;
	}
	for (size_t i = 0; r >= 0 && i + 1 < v->n_kids; i += 2) {
		const struct sbx_ynode *mk = v->kids[i], *mv = v->kids[i + 1];
		bool deny = strcmp(mk->value, "deny") == 0;

		if (!deny && strcmp(mk->value, "allow") != 0) {
			r = sbx_prof_fail(l, mk, EINVAL,
			                  "'%s' is not a key of 'network' (allow, deny)",
			                  mk->value);
			break;
		}
		if (mv->kind != SBX_Y_SEQ) {
			r = sbx_prof_fail(l, mv, EINVAL, "'network: %s' is a list, not %s",
			                  mk->value, sbx_ynode_type_name(mv));
			break;
		}
		for (size_t j = 0; r >= 0 && j < mv->n_kids; j++)
			r = net_entry(l, mv->kids[j], deny, &p);
	}
	if (r < 0) {
		sbx_netpolicy_clear(&p);
		return r;
	}
	sbx_netpolicy_clear(&l->spec->netpol);
	l->spec->netpol = p;
	l->spec->net = SBX_NET_ALLOW;
	return 0;
}
