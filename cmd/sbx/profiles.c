/* SPDX-License-Identifier: MIT */
/* sbx profiles list | show NAME | validate FILE... */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/policy.h"
#include "sbx/profile.h"

static const char profiles_usage[] =
    "Usage: sbx profiles list [--json]\n"
    "       sbx profiles show [--workspace DIR] [--json] NAME|FILE\n"
    "       sbx profiles validate NAME|FILE...\n"
    "\n"
    "list      the profiles sbx finds on its search path, the first of each name winning\n"
    "show      one profile's effective form, after 'extends' and variables, and what this\n"
    "          version enforces it with\n"
    "--json    list and show: one JSON object, versioned (sbx-json(7))\n"
    "validate  load each profile (a FILE, or a NAME on the search path) strictly, as\n"
    "          'sbx run --profile' would; exit 125 if any is invalid or cannot be enforced\n"
    "          by this version\n"
    "\n"
    "The search path: $SBX_PROFILE_PATH, $XDG_CONFIG_HOME/sbx/profiles (or\n"
    "~/.config/sbx/profiles), /etc/sbx/profiles and " SBX_DATADIR "/profiles. See\n"
    "sbx-profile(5).\n";

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What --json prints, gathered as the text is printed (the strings are copies). */
struct list_json {
	struct sbx_cli_profile_json_entry *items;
	size_t n;
};

static void list_json_add(struct list_json *lj, const char *name, const char *file,
                          const char *desc, const char *error, bool shadowed)
{
	struct sbx_cli_profile_json_entry *grown = realloc(lj->items, (lj->n + 1) * sizeof(*grown));

	if (!grown)
		return;
	lj->items = grown;
	lj->items[lj->n++] = (struct sbx_cli_profile_json_entry){
	    strdup(name), strdup(file), desc ? strdup(desc) : NULL, error ? strdup(error) : NULL,
	    shadowed};
}

static void list_json_clear(struct list_json *lj)
{
	for (size_t i = 0; i < lj->n; i++) {
		free(lj->items[i].name);
		free(lj->items[i].file);
		free(lj->items[i].description);
		free(lj->items[i].error);
	}
	free(lj->items);
}

static int cmd_list(bool json)
{
	struct sbx_cli_profile_env e;
	struct sbx_error err = {0};
	struct list_json lj = {0};
	/* --json: the text goes nowhere, the entries are gathered */
	FILE *out = json ? fopen("/dev/null", "we") : stdout;
	char **seen = NULL;
	size_t n_seen = 0;
	int r = sbx_cli_profile_env_init(&e, NULL, &err);

	if (r < 0 || !out) {
		if (out && out != stdout)
			fclose(out);
		sbx_cli_report(stderr, &err);
		return r < 0 ? sbx_error_exit_code(&err) : 125;
	}
	for (size_t d = 0; d < e.opts.n_search; d++) {
		DIR *dir = opendir(e.search[d]);
		char **names = NULL;
		size_t n = 0;
		struct dirent *de;

		fprintf(out, "%s:%s\n", sbx_cli_esc(e.search[d]), dir ? "" : " (none)");
		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			char **grown;

			if (len <= 5 || strcmp(de->d_name + len - 5, ".yaml") != 0 ||
			    de->d_name[0] == '.')
				continue;
			grown = realloc(names, (n + 1) * sizeof(*names));
			if (!grown)
				break;
			names = grown;
			names[n] = strndup(de->d_name, len - 5);
			if (names[n])
				n++;
		}
		closedir(dir);
		if (n)
			qsort(names, n, sizeof(*names), cmp_str);
		for (size_t i = 0; i < n; i++) {
			_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
			_cleanup_profile_ struct sbx_profile *p = NULL;
			_cleanup_free_ char *file = NULL;
			struct sbx_error le = {0};
			bool shadowed = false;
			char **grown;

			for (size_t j = 0; j < n_seen; j++)
				shadowed |= strcmp(seen[j], names[i]) == 0;
			if (asprintf(&file, "%s/%s.yaml", e.search[d], names[i]) < 0 || !spec) {
				free(names[i]);
				continue;
			}
			if (shadowed) {
				fprintf(out, "  %-20s (shadowed by an earlier folder)\n",
				        sbx_cli_esc(names[i]));
				list_json_add(&lj, names[i], file, NULL, NULL, true);
				free(names[i]);
				continue;
			}
			if (sbx_profile_load(file, &e.opts, spec, &p, &le) < 0) {
				char why[SBX_ERROR_MSG_MAX + SBX_ERROR_FILE_MAX + 64];

				fprintf(out, "  %-20s INVALID: %s%s%d:%d: %s\n",
				        sbx_cli_esc(names[i]), sbx_cli_esc(le.file),
				        le.file[0] ? ":" : "", le.line, le.column,
				        sbx_cli_esc(le.msg));
				snprintf(why, sizeof(why), "%s%s%d:%d: %s", le.file,
				         le.file[0] ? ":" : "", le.line, le.column, le.msg);
				list_json_add(&lj, names[i], file, NULL, why, false);
			} else {
				char first[256];

				snprintf(first, sizeof(first), "%.*s",
				         p->description ? (int)strcspn(p->description, "\n") : 0,
				         p->description ? p->description : "");
				fprintf(out, "  %-20s %s\n", sbx_cli_esc(names[i]),
				        sbx_cli_esc(first));
				list_json_add(&lj, names[i], file, p->description ? first : NULL,
				              NULL, false);
			}
			grown = realloc(seen, (n_seen + 1) * sizeof(*seen));
			if (grown) {
				seen = grown;
				seen[n_seen++] = names[i];
			} else {
				free(names[i]);
			}
		}
		free(names);
	}
	for (size_t j = 0; j < n_seen; j++)
		free(seen[j]);
	free(seen);
	if (json) {
		fclose(out);
		sbx_cli_profiles_list_json(stdout, lj.items, lj.n, e.search, e.opts.n_search);
	}
	list_json_clear(&lj);
	sbx_cli_profile_env_clear(&e);
	return fflush(stdout) == 0 ? 0 : 125;
}

/* A YAML double-quoted string: a JSON string is one, escapes included. */
static void yq(FILE *f, const char *s)
{
	sbx_json_string(f, s);
}

/* A mount's approvals and read caps, as the profile keys say them. */
static void print_mount_supervision(FILE *f, const struct sbx_mount *m)
{
	static const char *const classes[SBX_AC_COUNT] = {"write", "overwrite", "delete", "rename"};
	static const char *const words[] = {"allow", "ask", "deny"};
	bool any = false;

	for (size_t c = 0; c < SBX_AC_COUNT; c++) {
		if (m->approvals.op[c] == SBX_APPROVE_ALLOW)
			continue;
		fprintf(f, "%s%s: %s", any ? ", " : "    approvals: {", classes[c],
		        words[m->approvals.op[c]]);
		any = true;
	}
	if (any)
		fputs("}\n", f);
	if (m->n_suffixes)
		fputs("    suffixes:\n", f);
	for (size_t i = 0; i < m->n_suffixes; i++) {
		fputs("      - ", f);
		yq(f, m->suffixes[i]);
		fputc('\n', f);
	}
	if (m->max_file_bytes)
		fprintf(f, "    max_file_bytes: %llu\n", (unsigned long long)m->max_file_bytes);
}

static void print_effect(FILE *f, const struct sbx_policy *p, const char *scope, bool base)
{
	struct sbx_policy_effect eff;
	struct sbx_error err = {0};
	char ops[64];

	if (sbx_policy_compile_one(p, scope, base, &eff, &err) < 0) {
		fprintf(f, "#   %s on %s: CANNOT BE ENFORCED by the kernel: %s\n",
		        sbx_cli_esc(p->name), sbx_cli_esc(scope), sbx_cli_esc(err.msg));
		return;
	}
	if (eff.hide_scope)
		fprintf(f, "#   %s on %s: everything denied: %s is masked\n", sbx_cli_esc(p->name),
		        sbx_cli_esc(scope), sbx_cli_esc(scope));
	else
		fprintf(f, "#   %s on %s: allows %s: %s%s%s\n", sbx_cli_esc(p->name),
		        sbx_cli_esc(scope), sbx_ops_format(eff.allowed, ops, sizeof(ops)),
		        eff.readonly ? (base ? "the whole sandbox read-only" : "a read-only mount")
		                     : "read-write",
		        eff.noexec ? ", noexec" : "",
		        (eff.allowed & SBX_OP_MODIFY) &&
		                (eff.allowed & SBX_OP_MODIFY) != SBX_OP_MODIFY
		            ? ", and per operation by Landlock (see sbx run --dry-run)"
		            : "");
	for (size_t i = 0; i < eff.n_hide; i++)
		fprintf(f, "#     %s is masked\n", sbx_cli_esc(eff.hide[i]));
	sbx_policy_effect_clear(&eff);
}

static void show(FILE *f, const struct sbx_profile *p, const struct sbx_spec *s)
{
	const struct sbx_policy_set *ps = &p->policies;
	bool any;

	fprintf(f, "# The effective profile '%s', after 'extends' and variables.\n",
	        sbx_cli_esc(p->name));
	for (size_t i = 0; i < p->n_chain; i++)
		fprintf(f, "# %s %s\n", i == 0 ? "from:" : "then:", sbx_cli_esc(p->chain[i]));
	fprintf(f, "version: %d\nname: ", SBX_PROFILE_VERSION);
	yq(f, p->name);
	fputc('\n', f);
	if (p->description) {
		fputs("description: ", f);
		yq(f, p->description);
		fputc('\n', f);
	}
	if (ps->base) {
		fputs("base_policy: ", f);
		yq(f, ps->base->name);
		fputc('\n', f);
	}
	if (s->root) {
		fputs("root: ", f);
		yq(f, s->root);
		fputc('\n', f);
	}
	fprintf(f, "readonly: %s\n", s->readonly ? "true" : "false");
	fprintf(f, "system_mounts: %s\n",
	        s->system_mounts == SBX_SYSMOUNTS_NONE ? "none" : "default");
	fputs("network: ", f);
	sbx_cli_net_yaml(f, s->net, &s->netpol);
	fputc('\n', f);
	fprintf(f, "nesting: %s\n", s->nesting ? "true" : "false");
	fprintf(f, "best_effort: %s\n", s->best_effort ? "true" : "false");
	fprintf(f, "protect_git: %s\n", s->protect_git ? "true" : "false");
	if (s->hide_later)
		fputs("hide_later: true\n", f);
	if (s->resources.set) {
		char v[32];

		fputs("limits:\n", f);
		for (int l = 0; l < SBX_LIMIT_COUNT; l++)
			if (s->resources.set & SBX_LIMIT_BIT(l))
				fprintf(f, "  %s: %s\n", sbx_limit_table[l].name,
				        sbx_limit_format(l, s->resources.v[l], v, sizeof(v)));
	}
	fputs("home: ", f);
	if (s->home == SBX_HOME_DIR)
		yq(f, s->home_dir);
	else
		fputs(sbx_home_name(s->home == SBX_HOME_UNSET ? SBX_HOME_NONE : s->home), f);
	fputc('\n', f);
	if (s->approve) {
		fputs("approve: ", f);
		yq(f, s->approve);
		fputc('\n', f);
	}
	if (s->audit_log) {
		fputs("audit: ", f);
		yq(f, s->audit_log);
		fputc('\n', f);
	}
	any = false;
	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct sbx_mount *m = &s->mounts[i];

		if (m->kind != SBX_MOUNT_BIND)
			continue;
		if (!any)
			fputs("mounts:\n", f);
		any = true;
		fputs("  - source: ", f);
		yq(f, m->source);
		fputs("\n    target: ", f);
		yq(f, m->target);
		fprintf(f, "\n    readonly: %s\n", m->readonly ? "true" : "false");
		if (m->optional)
			fputs("    optional: true\n", f);
		if (m->policy) {
			fputs("    policy: ", f);
			yq(f, m->policy);
			fputc('\n', f);
		}
		print_mount_supervision(f, m);
	}
	for (int kind = SBX_MOUNT_TMPFS; kind <= SBX_MOUNT_DEVICE; kind++) {
		any = false;
		for (size_t i = 0; i < s->n_mounts; i++) {
			if ((int)s->mounts[i].kind != kind)
				continue;
			if (!any)
				fputs(kind == SBX_MOUNT_TMPFS ? "tmpfs:\n" : "devices:\n", f);
			any = true;
			if (s->mounts[i].size) {
				char v[32];

				fputs("  - {path: ", f);
				yq(f, s->mounts[i].target);
				fprintf(f, ", size: %s}\n",
				        sbx_limit_format(SBX_LIMIT_TMPFS, s->mounts[i].size, v,
				                         sizeof(v)));
				continue;
			}
			fputs("  - ", f);
			yq(f, s->mounts[i].target);
			fputc('\n', f);
		}
	}
	if (s->n_hide || s->n_hide_globs)
		fputs("hide:\n", f);
	for (size_t i = 0; i < s->n_hide; i++) {
		fputs("  - ", f);
		yq(f, s->hide[i]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->n_hide_globs; i++) {
		fputs("  - ", f);
		yq(f, s->hide_globs[i]);
		fputc('\n', f);
	}
	if (s->n_unhide)
		fputs("unhide:\n", f);
	for (size_t i = 0; i < s->n_unhide; i++) {
		fputs("  - ", f);
		yq(f, s->unhide[i]);
		fputc('\n', f);
	}
	if (s->n_env) {
		bool pass = false, set = false;

		fputs("env:\n", f);
		for (size_t i = 0; i < s->n_env; i++) {
			if (s->env[i].value)
				continue;
			if (!pass)
				fputs("  pass:\n", f);
			pass = true;
			fputs("    - ", f);
			yq(f, s->env[i].name);
			fputc('\n', f);
		}
		for (size_t i = 0; i < s->n_env; i++) {
			if (!s->env[i].value)
				continue;
			if (!set)
				fputs("  set:\n", f);
			set = true;
			fputs("    ", f);
			yq(f, s->env[i].name);
			fputs(": ", f);
			yq(f, s->env[i].value);
			fputc('\n', f);
		}
	}
	fputs("#\n# Policies:\n", f);
	for (size_t i = 0; i < ps->n; i++) {
		const struct sbx_policy *pol = ps->items[i];
		char ops[64];

		fprintf(f, "#   %s (%s)%s\n", sbx_cli_esc(pol->name), sbx_cli_esc(pol->file),
		        pol == ps->base ? " [base policy]" : "");
		for (size_t j = 0; j < pol->n_rules; j++) {
			const struct sbx_rule *r = &pol->rules[j];

			fprintf(f, "#     %-16s %-5s %s on", sbx_cli_esc(r->name),
			        r->allow ? "allow" : "deny",
			        sbx_ops_format(r->ops, ops, sizeof(ops)));
			for (size_t k = 0; k < r->n_paths; k++)
				fprintf(f, " %s", sbx_cli_esc(r->paths[k]));
			fputc('\n', f);
		}
	}
	fputs("#\n# Enforced by this version as:\n", f);
	if (ps->base)
		print_effect(f, ps->base, "/", true);
	for (size_t i = 0; i < s->n_mounts; i++) {
		const struct sbx_policy *pol = sbx_policy_set_find(ps, s->mounts[i].policy);

		if (pol)
			print_effect(f, pol, s->mounts[i].target, false);
	}
	for (size_t i = 0; i < s->n_hide; i++)
		fprintf(f,
		        "#   hide %s: masked (a file that cannot be opened, or an empty read-only "
		        "directory)\n",
		        sbx_cli_esc(s->hide[i]));
	for (size_t i = 0; i < s->n_hide_globs; i++)
		fprintf(f, "#   hide %s: each match at launch, masked as above (one walk%s)\n",
		        sbx_cli_esc(s->hide_globs[i]),
		        s->n_unhide ? "; what unhide: names is given back" : "");
}

static int cmd_show(int argc, char **argv)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	_cleanup_profile_ struct sbx_profile *p = NULL;
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	const char *ws = NULL, *name = NULL;
	struct sbx_error err = {0};
	bool json = false;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if ((strcmp(argv[i], "-w") == 0 || strcmp(argv[i], "--workspace") == 0) &&
		         i + 1 < argc)
			ws = argv[++i];
		else if (!name && argv[i][0] != '-')
			name = argv[i];
		else {
			sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
			              "unexpected argument '%s' for sbx profiles show", argv[i]);
			sbx_error_hint(&err,
			               "sbx profiles show [--workspace DIR] [--json] NAME|FILE");
			goto fail;
		}
	}
	if (!name) {
		sbx_error_set(&err, SBX_ERR_USAGE, EINVAL, "sbx profiles show needs a profile");
		sbx_error_hint(&err, "see 'sbx profiles list'");
		goto fail;
	}
	if (!spec || !cwd) {
		sbx_error_set(&err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		goto fail;
	}
	{
		_cleanup_free_ char *abs = NULL;

		r = sbx_path_absolute(ws ? ws : cwd, cwd, &abs, &err);
		if (r >= 0)
			r = sbx_spec_set_str(&spec->workspace, abs, &err);
		if (r >= 0)
			r = sbx_cli_load_profile(name, abs, spec, &p, &err);
		if (r < 0)
			goto fail;
		sbx_spec_drop_unhidden(spec);
	}
	sbx_cli_print_notes(stderr, p, NULL);
	if (json)
		sbx_cli_profile_show_json(stdout, p, spec);
	else
		show(stdout, p, spec);
	return fflush(stdout) == 0 ? 0 : 125;
fail:
	sbx_cli_report(stderr, &err);
	return sbx_error_exit_code(&err);
}

static int cmd_validate(int argc, char **argv)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	int bad = 0;

	if (argc < 2) {
		fputs("sbx: sbx profiles validate needs at least one file or name; see 'sbx "
		      "profiles --help'\n",
		      stderr);
		return 125;
	}
	for (int i = 1; i < argc; i++) {
		_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
		_cleanup_profile_ struct sbx_profile *p = NULL;
		struct sbx_error err = {0};
		int r =
		    spec && cwd ? 0 : sbx_error_set(&err, SBX_ERR_SETUP, ENOMEM, "out of memory");

		/* FILE (a '/' or .yaml) as it is, NAME on the search path, as --profile takes
		 * them */
		if (r >= 0)
			r = sbx_spec_set_str(&spec->workspace, cwd, &err);
		if (r >= 0)
			r = sbx_cli_load_profile(argv[i], cwd, spec, &p, &err);
		if (r >= 0) {
			sbx_spec_drop_unhidden(spec);
			r = sbx_policy_compile(spec, &p->policies, &err);
		}
		if (r >= 0)
			r = sbx_spec_finish(spec, &err);
		if (r < 0) {
			sbx_cli_report(stderr, &err);
			bad++;
			continue;
		}
		if (sbx_profile_arg_is_file(argv[i]))
			printf("%s: ok\n", sbx_cli_esc(argv[i]));
		else
			printf("%s (%s): ok\n", sbx_cli_esc(argv[i]), sbx_cli_esc(p->file));
	}
	if (fflush(stdout) != 0)
		return 125;
	return bad ? 125 : 0;
}

int sbx_cmd_profiles(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "list") == 0) {
		bool json = argc == 3 && strcmp(argv[2], "--json") == 0;

		if (argc > 2 && !json) {
			fputs("sbx: sbx profiles list takes no arguments but --json\n", stderr);
			return 125;
		}
		return cmd_list(json);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(profiles_usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "show") == 0)
		return cmd_show(argc - 1, argv + 1);
	if (strcmp(argv[1], "validate") == 0)
		return cmd_validate(argc - 1, argv + 1);
	fprintf(stderr,
	        "sbx: unknown 'sbx profiles' command '%s'; the commands are list, show "
	        "and validate\n",
	        sbx_cli_esc(argv[1]));
	return 125;
}
