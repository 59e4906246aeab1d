/* SPDX-License-Identifier: MIT */
/* The seccomp part of `sbx run`: its options and its section of --dry-run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "seccomp_cli.h"
#include "sbx/cleanup.h"
#include "sbx/seccomp.h"

int sbx_cli_seccomp_option(struct sbx_seccomp_conf *conf, enum sbx_cli_seccomp_opt opt,
                           const char *arg, struct sbx_error *err)
{
	int r;

	switch (opt) {
	case SBX_CLI_SECCOMP_ALLOW:
		r = sbx_seccomp_conf_allow(conf, arg, err);
		break;
	case SBX_CLI_SECCOMP_DENY:
		r = sbx_seccomp_conf_deny(conf, arg, err);
		break;
	case SBX_CLI_SECCOMP_ERRNO:
		r = sbx_seccomp_conf_set_errno(conf, arg, err);
		break;
	case SBX_CLI_SECCOMP_LOG:
		conf->log = true;
		return 0;
	default:
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "internal: seccomp option %d",
		                     (int)opt);
	}
	if (r < 0)
		sbx_error_wrap(err, "--seccomp-%s",
		               opt == SBX_CLI_SECCOMP_ALLOW  ? "allow"
		               : opt == SBX_CLI_SECCOMP_DENY ? "deny"
		                                             : "errno");
	return r;
}

static void errno_words(char *buf, size_t size, int e)
{
	const char *name = sbx_seccomp_errno_name(e);

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "errno %d", e);
}

static const char *state_word(enum sbx_seccomp_group_state s)
{
	switch (s) {
	case SBX_SECCOMP_GROUP_DENIED:
		return "denied";
	case SBX_SECCOMP_GROUP_ALLOWED:
		return "allowed";
	case SBX_SECCOMP_GROUP_NESTING:
		return "allowed (nesting)";
	case SBX_SECCOMP_GROUP_OWN_NS:
		return "allowed (own namespace)";
	}
	return "?";
}

/* A rule's condition in words: its comparisons joined by `and` ("O_CREAT&S_ISUID"). */
static void print_condition(FILE *f, const struct sbx_seccomp_rule *r, const char *and, bool json)
{
	char buf[256];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < r->n_cmp && len < sizeof(buf); c++) {
		int w =
		    snprintf(buf + len, sizeof(buf) - len, "%s%s", c ? and : "", r->cmp[c].what);

		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (json)
		sbx_json_string(f, buf);
	else
		fputs(buf, f);
}

/* The rules of `group` (NULL: the calls denied by name). Text: "clone[CLONE_NEWNS|...] setns
 * open[O_CREAT&S_ISUID|...]": | between the conditions of one call, & within one. */
static void print_calls(FILE *f, const struct sbx_seccomp_rules *rules, const char *group,
                        bool json)
{
	const struct sbx_seccomp_rule *prev = NULL;
	bool open = false;

	for (size_t i = 0; i < rules->n_rules; i++) {
		const struct sbx_seccomp_rule *r = &rules->rules[i];

		if (group ? !r->group || strcmp(r->group, group) != 0 : r->group != NULL)
			continue;
		if (json) {
			fputs(prev ? ",{\"call\":" : "{\"call\":", f);
			sbx_json_string(f, r->call);
			if (r->cmp) {
				fputs(",\"when\":", f);
				print_condition(f, r, " and ", true);
			}
			fprintf(f, ",\"errno\":%d%s}", r->errnum,
			        r->locked ? ",\"locked\":true" : "");
		} else if (r->cmp && prev && prev->cmp && strcmp(prev->call, r->call) == 0) {
			fputc('|', f);
			print_condition(f, r, "&", false);
		} else {
			if (open)
				fputc(']', f);
			fprintf(f, "%s%s", prev ? " " : "", r->call);
			if (r->cmp) {
				fputc('[', f);
				print_condition(f, r, "&", false);
			}
			open = r->cmp != NULL;
		}
		prev = r;
	}
	if (open)
		fputc(']', f);
}

static void print_text(FILE *f, const struct sbx_seccomp_conf *conf,
                       const struct sbx_seccomp_rules *rules)
{
	char e[32];
	bool any = false;

	errno_words(e, sizeof(e), rules->deny_errno);
	if (rules->log)
		fprintf(f, "seccomp:    LOG MODE: nothing is denied; what would be is logged "
		           "(dmesg / audit)\n");
	else
		fprintf(f,
		        "seccomp:    denials answer %s (ENOSYS where marked); calls newer "
		        "than sbx knows: ENOSYS\n",
		        e);
	fprintf(f, "            foreign architectures (i386, x32): killed\n");
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++) {
		const struct sbx_seccomp_group *grp = &sbx_seccomp_groups[g];
		enum sbx_seccomp_group_state st = rules->group_state[g];
		bool enosys = grp->entries[0].action == SBX_SECCOMP_ENOSYS;
		fprintf(f, "  %-16s %-18s", grp->name,
		        st != SBX_SECCOMP_GROUP_DENIED ? state_word(st)
		        : grp->locked                  ? "denied (locked)"
		        : enosys                       ? "denied (ENOSYS)"
		                                       : "denied");
		if (st == SBX_SECCOMP_GROUP_DENIED)
			print_calls(f, rules, grp->name, false);
		fputc('\n', f);
	}
	if (conf->no_hardlinks) {
		fprintf(f, "  %-16s %-18s", sbx_seccomp_no_hardlinks_group, "denied");
		print_calls(f, rules, sbx_seccomp_no_hardlinks_group, false);
		fputc('\n', f);
	}
	if (conf->no_unix_sockets) {
		fprintf(f, "  %-16s %-18s", sbx_seccomp_no_unix_group, "denied");
		print_calls(f, rules, sbx_seccomp_no_unix_group, false);
		fputc('\n', f);
	}
	if (conf->no_network) {
		fprintf(f, "  %-16s %-18s", sbx_seccomp_no_network_group, "denied");
		print_calls(f, rules, sbx_seccomp_no_network_group, false);
		fputc('\n', f);
	}
	if (conf->tcp_only && !conf->no_network) {
		fprintf(f, "  %-16s %-18s", sbx_seccomp_tcp_only_group, "denied");
		print_calls(f, rules, sbx_seccomp_tcp_only_group, false);
		fputc('\n', f);
	}
	if (conf->same_ns) {
		fprintf(f, "  %-16s %-18s", sbx_seccomp_processes_group, "denied");
		print_calls(f, rules, sbx_seccomp_processes_group, false);
		fputc('\n', f);
	}
	if (conf->host_root) {
		fprintf(f, "  %-16s %-18s", sbx_seccomp_host_root_group, "denied (locked)");
		print_calls(f, rules, sbx_seccomp_host_root_group, false);
		fputc('\n', f);
	}
	for (size_t i = 0; i < rules->n_rules; i++)
		if (!rules->rules[i].group)
			any = true;
	if (any) {
		fprintf(f, "  %-16s %-18s", "denied by name", e);
		print_calls(f, rules, NULL, false);
		fputc('\n', f);
	}
	if (conf->n_allow) {
		fprintf(f, "  %-16s %-18s", "allowed by name", "");
		for (size_t i = 0; i < conf->n_allow; i++)
			fprintf(f, "%s%s", i ? " " : "", sbx_cli_esc(conf->allow[i]));
		fputc('\n', f);
	}
}

static void print_json(FILE *f, const struct sbx_seccomp_conf *conf,
                       const struct sbx_seccomp_rules *rules)
{
	fprintf(f,
	        "{\"mode\":\"%s\",\"errno\":%d,\"newer_calls\":\"ENOSYS\","
	        "\"foreign_arches\":\"kill\",\"nesting\":%s,\"groups\":[",
	        rules->log ? "log" : "enforce", rules->deny_errno,
	        conf->nesting ? "true" : "false");
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++) {
		fputs(g ? ",{\"name\":" : "{\"name\":", f);
		sbx_json_string(f, sbx_seccomp_groups[g].name);
		fprintf(f, ",\"state\":\"%s\",\"locked\":%s,\"rules\":[",
		        state_word(rules->group_state[g]),
		        sbx_seccomp_groups[g].locked ? "true" : "false");
		print_calls(f, rules, sbx_seccomp_groups[g].name, true);
		fputs("]}", f);
	}
	/* the landlock backend's own rules */
	fputs("],\"backend_groups\":[", f);
	{
		const struct {
			bool on;
			const char *name;
		} extra[] = {{conf->no_unix_sockets, sbx_seccomp_no_unix_group},
		             {conf->no_network, sbx_seccomp_no_network_group},
		             {conf->tcp_only && !conf->no_network, sbx_seccomp_tcp_only_group},
		             {conf->same_ns, sbx_seccomp_processes_group},
		             {conf->host_root, sbx_seccomp_host_root_group},
		             {conf->no_hardlinks, sbx_seccomp_no_hardlinks_group}};
		bool first = true;

		for (size_t i = 0; i < SBX_ARRAY_SIZE(extra); i++) {
			if (!extra[i].on)
				continue;
			fputs(first ? "{\"name\":" : ",{\"name\":", f);
			first = false;
			sbx_json_string(f, extra[i].name);
			fputs(",\"rules\":[", f);
			print_calls(f, rules, extra[i].name, true);
			fputs("]}", f);
		}
	}
	fputs("],\"denied_by_name\":[", f);
	print_calls(f, rules, NULL, true);
	fputs("],\"allowed_by_name\":[", f);
	for (size_t i = 0; i < conf->n_allow; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, conf->allow[i]);
	}
	fputs("]}", f);
}

void sbx_cli_print_seccomp(FILE *f, const struct sbx_seccomp_conf *conf,
                           const struct sbx_seccomp_rules *rules, bool json)
{
	/* The plan's rules, which the launcher builds the filter from; a finished plan always
	 * has them (sbx_plan_finish). */
	if (!rules->group_state) {
		if (json)
			fputs("null", f);
		else
			fputs("seccomp:    not resolved\n", f);
		return;
	}
	if (json)
		print_json(f, conf, rules);
	else
		print_text(f, conf, rules);
}
