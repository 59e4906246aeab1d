/* SPDX-License-Identifier: MIT */
/* sbx profiles list --json and sbx profiles show --json: the same facts as the text forms, as
 * one versioned JSON object each (sbx-json(7)), for tools. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sbx/policy.h"
#include "sbx/profile.h"

static void str_or_null(FILE *f, const char *s)
{
	if (s)
		sbx_json_string(f, s);
	else
		fputs("null", f);
}

static void str_array(FILE *f, char *const *a, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, a[i]);
	}
	fputc(']', f);
}

void sbx_cli_profiles_list_json(FILE *f, const struct sbx_cli_profile_json_entry *e, size_t n,
                                char *const *search, size_t n_search)
{
	fprintf(f, "{\"version\":%d,\"search\":", SBX_CLI_PROFILES_JSON_VERSION);
	str_array(f, search, n_search);
	fputs(",\"profiles\":[", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		sbx_json_string(f, e[i].name);
		fputs(",\"file\":", f);
		sbx_json_string(f, e[i].file);
		fprintf(f, ",\"shadowed\":%s,\"valid\":%s,\"description\":",
		        e[i].shadowed ? "true" : "false", e[i].error ? "false" : "true");
		str_or_null(f, e[i].description);
		fputs(",\"error\":", f);
		str_or_null(f, e[i].error);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

static void mount_json(FILE *f, const struct sbx_mount *m)
{
	static const char *const classes[SBX_AC_COUNT] = {"write", "overwrite", "delete", "rename"};
	static const char *const words[] = {"allow", "ask", "deny"};

	fputs("{\"source\":", f);
	sbx_json_string(f, m->source);
	fputs(",\"target\":", f);
	sbx_json_string(f, m->target);
	fprintf(f, ",\"readonly\":%s,\"optional\":%s,\"policy\":", m->readonly ? "true" : "false",
	        m->optional ? "true" : "false");
	str_or_null(f, m->policy);
	fputs(",\"approvals\":{", f);
	for (size_t c = 0; c < SBX_AC_COUNT; c++)
		fprintf(f, "%s\"%s\":\"%s\"", c ? "," : "", classes[c],
		        (unsigned)m->approvals.op[c] < 3 ? words[m->approvals.op[c]] : "deny");
	fputs("},\"suffixes\":", f);
	str_array(f, m->suffixes, m->n_suffixes);
	fprintf(f, ",\"max_file_bytes\":%llu}", (unsigned long long)m->max_file_bytes);
}

void sbx_cli_profile_show_json(FILE *f, const struct sbx_profile *p, const struct sbx_spec *s)
{
	const struct sbx_policy_set *ps = &p->policies;
	bool any;

	fprintf(f, "{\"version\":%d,\"name\":", SBX_CLI_PROFILES_JSON_VERSION);
	sbx_json_string(f, p->name);
	fputs(",\"file\":", f);
	str_or_null(f, p->file);
	fputs(",\"description\":", f);
	str_or_null(f, p->description);
	fputs(",\"chain\":", f);
	str_array(f, p->chain, p->n_chain);
	fputs(",\"base_policy\":", f);
	str_or_null(f, ps->base ? ps->base->name : NULL);
	fputs(",\"root\":", f);
	str_or_null(f, s->root);
	fprintf(f,
	        ",\"readonly\":%s,\"system_mounts\":\"%s\",\"network\":\"%s\",\"nesting\":%s,"
	        "\"best_effort\":%s,\"protect_git\":%s,\"hide_later\":%s,\"approve\":",
	        s->readonly ? "true" : "false",
	        s->system_mounts == SBX_SYSMOUNTS_NONE ? "none" : "default",
	        s->net == SBX_NET_HOST ? "host" : "none", s->nesting ? "true" : "false",
	        s->best_effort ? "true" : "false", s->protect_git ? "true" : "false",
	        s->hide_later ? "true" : "false");
	str_or_null(f, s->approve);
	fputs(",\"audit\":", f);
	str_or_null(f, s->audit_log);
	fputs(",\"mounts\":[", f);
	any = false;
	for (size_t i = 0; i < s->n_mounts; i++) {
		if (s->mounts[i].kind != SBX_MOUNT_BIND)
			continue;
		if (any)
			fputc(',', f);
		any = true;
		mount_json(f, &s->mounts[i]);
	}
	for (int kind = SBX_MOUNT_TMPFS; kind <= SBX_MOUNT_DEVICE; kind++) {
		fputs(kind == SBX_MOUNT_TMPFS ? "],\"tmpfs\":[" : "],\"devices\":[", f);
		any = false;
		for (size_t i = 0; i < s->n_mounts; i++) {
			if ((int)s->mounts[i].kind != kind)
				continue;
			if (any)
				fputc(',', f);
			any = true;
			sbx_json_string(f, s->mounts[i].target);
		}
	}
	fputs("],\"hide\":", f);
	str_array(f, s->hide, s->n_hide);
	fputs(",\"hide_globs\":", f);
	str_array(f, s->hide_globs, s->n_hide_globs);
	fputs(",\"unhide\":", f);
	str_array(f, s->unhide, s->n_unhide);
	fputs(",\"env\":{\"pass\":[", f);
	any = false;
	for (size_t i = 0; i < s->n_env; i++) {
		if (s->env[i].value)
			continue;
		if (any)
			fputc(',', f);
		any = true;
		sbx_json_string(f, s->env[i].name);
	}
	fputs("],\"set\":{", f);
	any = false;
	for (size_t i = 0; i < s->n_env; i++) {
		if (!s->env[i].value)
			continue;
		if (any)
			fputc(',', f);
		any = true;
		sbx_json_string(f, s->env[i].name);
		fputc(':', f);
		sbx_json_string(f, s->env[i].value);
	}
	fputs("}},\"policies\":[", f);
	for (size_t i = 0; i < ps->n; i++) {
		const struct sbx_policy *pol = ps->items[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		sbx_json_string(f, pol->name);
		fputs(",\"file\":", f);
		str_or_null(f, pol->file);
		fprintf(f, ",\"base\":%s,\"rules\":[", pol == ps->base ? "true" : "false");
		for (size_t j = 0; j < pol->n_rules; j++) {
			const struct sbx_rule *r = &pol->rules[j];
			char ops[64];

			fputs(j ? ",{\"name\":" : "{\"name\":", f);
			str_or_null(f, r->name);
			fprintf(f, ",\"verdict\":\"%s\",\"ops\":", r->allow ? "allow" : "deny");
			sbx_json_string(f, sbx_ops_format(r->ops, ops, sizeof(ops)));
			fputs(",\"paths\":", f);
			str_array(f, r->paths, r->n_paths);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}
