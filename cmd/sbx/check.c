/* SPDX-License-Identifier: MIT */
/* sbx check and sbx resolve: ask what core decided, without running anything. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/path.h"
#include "sbx/policy.h"

static const char check_usage[] =
    "Usage: sbx check [--profile P] [--workspace DIR] [--json] OP[,OP...] PATH...\n"
    "\n"
    "Print allow, ask or deny for each operation on each sandbox path, and what decided\n"
    "it (sbx-profile(5), POLICIES: unmounted, readonly, protected (absent at launch, not to\n"
    "be created), the mount's approvals (deny; ask: the run's broker answers), the mount's\n"
    "policy, the base policy).\n"
    "OP is read, list, stat, write, create, delete, execute, rename or all.\n"
    "Without --profile the built-in default profile is asked.\n"
    "\n"
    "  -p, --profile NAME|FILE  the profile to ask\n"
    "      --workspace DIR      the value of ${WORKSPACE} (default: the current directory)\n"
    "      --json               one JSON object, versioned (sbx-json(7))\n"
    "      --verbose            every note (optional mounts skipped, ...)\n"
    "  -q, --quiet              no notes\n"
    "  -h, --help               show this help\n"
    "A relative PATH is taken from the current directory, as -v takes it.\n"
    "\n"
    "Exit status: 0 if every operation is allowed, 1 if any is denied or asks, 125 on\n"
    "error.\n";

static const char resolve_usage[] =
    "Usage: sbx resolve [--profile P] [--workspace DIR] [--json] PATH...\n"
    "\n"
    "Print the host path behind each sandbox path, or why it has none.\n"
    "\n"
    "  -p, --profile NAME|FILE  the profile to ask\n"
    "      --workspace DIR      the value of ${WORKSPACE} (default: the current directory)\n"
    "      --json               one JSON object, versioned (sbx-json(7))\n"
    "      --verbose            every note (optional mounts skipped, ...)\n"
    "  -q, --quiet              no notes\n"
    "  -h, --help               show this help\n"
    "A relative PATH is taken from the current directory, as -v takes it.\n"
    "\n"
    "Exit status: 0 if every path has a host path, 1 otherwise, 125 on error.\n";

enum { ASK_WORKSPACE = 0x100, ASK_VERBOSE };

static const struct option ask_options[] = {
    {"profile", required_argument, NULL, 'p'},
    {"workspace", required_argument, NULL, ASK_WORKSPACE},
    {"json", no_argument, NULL, 'j'},
    {"verbose", no_argument, NULL, ASK_VERBOSE},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct ask {
	const char *profile;
	char *workspace;
	bool help;
	bool json;      /* --json: one object (sbx-json(7)) */
	int first;      /* index of the first positional argument */
	char *abs[256]; /* relative paths made absolute (owned; argv points at them) */
	size_t n_abs;
};

static void ask_clear(struct ask *a)
{
	free(a->workspace);
	for (size_t i = 0; i < a->n_abs; i++)
		free(a->abs[i]);
	memset(a, 0, sizeof(*a));
}

static int parse_ask(int argc, char **argv, struct ask *a, struct sbx_error *err)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	int c, r;

	memset(a, 0, sizeof(*a));
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:p:hq", ask_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			a->profile = optarg;
			break;
		case 'q':
			sbx_cli_notes = SBX_NOTES_QUIET;
			break;
		case ASK_VERBOSE:
			sbx_cli_notes = SBX_NOTES_ALL;
			break;
		case ASK_WORKSPACE:
			free(a->workspace);
			a->workspace = NULL;
			if (!cwd)
				return sbx_error_set(err, SBX_ERR_SETUP, errno,
				                     "cannot read the current directory");
			r = sbx_path_absolute(optarg, cwd, &a->workspace, err);
			if (r < 0)
				return r;
			break;
		case 'h':
			a->help = true;
			break;
		case 'j':
			a->json = true;
			break;
		default:
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  c == ':' ? "option '%s' needs a value"
			                           : "unknown option '%s' for sbx %s",
			                  argv[optind - 1], argv[0]);
			if (c == ':')
				sbx_error_hint(err, "see 'sbx %s --help'", argv[0]);
			else
				sbx_cli_hint_option(err, argv[optind - 1], ask_options, argv[0]);
			return r;
		}
	}
	a->first = optind;
	return 0;
}

/* Relative sandbox paths from argv[from] on are the caller's directory's, as -v takes them:
 * made absolute in place (the copies are a's). */
static int abs_paths(struct ask *a, int argc, char **argv, int from, struct sbx_error *err)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);

	for (int i = from; i < argc; i++) {
		char *abs = NULL;
		int r;

		if (argv[i][0] == '/' || !*argv[i])
			continue;
		if (!cwd)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot read the current directory");
		if (a->n_abs >= SBX_ARRAY_SIZE(a->abs))
			return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
			                     "more than %zu relative paths: name them absolute",
			                     SBX_ARRAY_SIZE(a->abs));
		r = sbx_path_absolute(argv[i], cwd, &abs, err);
		if (r < 0)
			return r;
		a->abs[a->n_abs++] = abs;
		argv[i] = abs;
	}
	return 0;
}

static int parse_ops(const char *arg, unsigned *ops, bool *rename, struct sbx_error *err)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;
	int r;

	*ops = 0;
	*rename = false;
	if (!copy)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned op = sbx_op_parse(t);

		if (!op) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "unknown operation '%s'", t);
			sbx_error_hint(err, "the operations are read, list, stat, write, create, "
			                    "delete, execute, rename and all");
			return r;
		}
		*ops |= op;
		/* rename is create and delete, and the rename class of a mount's approvals */
		*rename |= strcmp(t, "rename") == 0;
	}
	if (!*ops)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "no operation given");
	return 0;
}

/* What a run answers a question, by its broker (sbx(1), APPROVALS). */
static const char *who_answers(const char *approve)
{
	if (!approve)
		return "a run asks at its terminal, and denies where sbx has none (no broker: "
		       "give --approve cmd:PROGRAM or socket:PATH)";
	if (strcmp(approve, "deny") == 0)
		return "the run's broker is deny: denied";
	if (strcmp(approve, "allow") == 0)
		return "the run's broker is allow: allowed and logged";
	if (strcmp(approve, "tty") == 0)
		return "a run asks at its terminal (--approve tty)";
	return "a run asks its broker (--approve); no answer in time is a denial";
}

/* The "version" of sbx check --json and sbx resolve --json (sbx-json(7)): raised when a
 * member changes meaning or goes; new members may be added within a version. */
#define ASK_JSON_VERSION 1

static const char *const decider_words[] = {
    [SBX_BY_ALLOWED] = "allowed",     [SBX_BY_UNMOUNTED] = "unmounted",
    [SBX_BY_HIDDEN] = "hidden",       [SBX_BY_READONLY] = "readonly",
    [SBX_BY_POLICY] = "policy",       [SBX_BY_BASE_POLICY] = "base_policy",
    [SBX_BY_PROTECTED] = "protected", [SBX_BY_APPROVAL] = "approval",
    [SBX_BY_CAPS] = "read_caps",
};

static void json_or_null(const char *s)
{
	if (s && *s)
		sbx_json_string(stdout, s);
	else
		fputs("null", stdout);
}

/* The head both print: version, profile, workspace. */
static void json_head(const struct sbx_cli_view *v)
{
	printf("{\"version\":%d,\"profile\":", ASK_JSON_VERSION);
	json_or_null(v->profile ? v->profile->name : NULL);
	fputs(",\"workspace\":", stdout);
	json_or_null(v->spec->workspace);
}

/* One decision of sbx check --json. */
static void json_decision(bool *first, const char *asked, const char *op, const char *verdict,
                          const struct sbx_decision *d, const char *ask, const char *reason)
{
	fputs(*first ? "{\"path\":" : ",{\"path\":", stdout);
	*first = false;
	sbx_json_string(stdout, asked);
	fputs(",\"resolved\":", stdout);
	json_or_null(d->path);
	printf(",\"op\":\"%s\",\"verdict\":\"%s\",\"by\":\"%s\",\"mount\":", op, verdict,
	       (size_t)d->by < sizeof(decider_words) / sizeof(decider_words[0]) &&
	               decider_words[d->by]
	           ? decider_words[d->by]
	           : "unknown");
	json_or_null(d->mount);
	fputs(",\"mount_kind\":", stdout);
	json_or_null(d->mount[0] ? d->mount_what : NULL);
	fputs(",\"policy\":", stdout);
	json_or_null(d->policy);
	fputs(",\"ask\":", stdout);
	json_or_null(ask);
	fputs(",\"reason\":", stdout);
	json_or_null(reason);
	fputc('}', stdout);
}

int sbx_cmd_check(int argc, char **argv)
{
	struct sbx_cli_view v = {0};
	struct sbx_error err = {0};
	struct ask a;
	unsigned ops = 0;
	bool all_allowed = true, rename = false, first = true;
	int status = 125, r;

	r = parse_ask(argc, argv, &a, &err);
	if (r < 0)
		goto fail;
	if (a.help) {
		fputs(check_usage, stdout);
		status = 0;
		goto out;
	}
	if (argc - a.first < 2) {
		r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
		                  "sbx check needs an operation and at least one path");
		sbx_error_hint(&err, "e.g. sbx check --profile claude-agent write "
		                     "~/.claude/settings.json");
		goto fail;
	}
	r = parse_ops(argv[a.first], &ops, &rename, &err);
	if (r >= 0)
		r = abs_paths(&a, argc, argv, a.first + 1, &err);
	if (r < 0)
		goto fail;
	/* Decisions are about what the profile means: its policies, uncompiled. */
	r = sbx_cli_build_view(a.profile, a.workspace, false, &v, &err);
	if (r < 0)
		goto fail;
	sbx_cli_print_notes(stderr, v.profile, NULL);
	if (a.json) {
		json_head(&v);
		fputs(",\"decisions\":[", stdout);
	}
	for (int i = a.first + 1; i < argc; i++) {
		for (unsigned bit = 1; bit <= SBX_OP_EXECUTE; bit <<= 1) {
			struct sbx_policy_view pv = {
			    v.plan, v.spec, v.profile ? &v.profile->policies : NULL, &v.plan->sup};
			struct sbx_decision d;
			char why[SBX_PATH_MAX * 2 + 512];

			if (!(ops & bit))
				continue;
			r = sbx_policy_decide(&pv, bit, argv[i], &d, &err);
			if (r < 0)
				goto fail;
			all_allowed &= d.allow && !d.ask;
			if (a.json) {
				char ans[SBX_PATH_MAX + 512];

				if (d.allow && d.ask)
					snprintf(ans, sizeof(ans), "approvals: %s ask (%s %s); %s",
					         d.ask, d.mount_what ? d.mount_what : "mount",
					         d.mount, who_answers(v.plan->sup.approve));
				json_decision(
				    &first, argv[i], sbx_op_name(bit),
				    d.allow ? (d.ask ? "ask" : "allow") : "deny", &d, d.ask,
				    d.allow && d.ask ? ans
				                     : sbx_decision_format(&d, why, sizeof(why)));
				if (bit == SBX_OP_EXECUTE &&
				    sbx_policy_exec_note(&pv, &d, why, sizeof(why)))
					fprintf(stderr, "sbx: note: %s\n", sbx_cli_esc(why));
				continue;
			}
			if (d.allow && d.ask) {
				/* a question, not an answer: who will answer it in a run */
				printf("ask   %-7s %s  approvals: %s ask (%s %s); %s\n",
				       sbx_op_name(bit), sbx_cli_esc(argv[i]), d.ask,
				       d.mount_what ? d.mount_what : "mount", sbx_cli_esc(d.mount),
				       who_answers(v.plan->sup.approve));
				continue;
			}
			printf("%-5s %-7s %s  %s\n", d.allow ? "allow" : "deny", sbx_op_name(bit),
			       sbx_cli_esc(argv[i]),
			       sbx_cli_esc(sbx_decision_format(&d, why, sizeof(why))));
			/* what a denial of execute holds: execve only, or a loader's mmap too */
			if (bit == SBX_OP_EXECUTE &&
			    sbx_policy_exec_note(&pv, &d, why, sizeof(why)))
				fprintf(stderr, "sbx: note: %s\n", sbx_cli_esc(why));
		}
		if (rename) {
			/* the old name's side of a rename: its delete, and the rename class of the
			 * mount's approvals (a run asks or denies it as sbx check says here) */
			struct sbx_policy_view pv = {
			    v.plan, v.spec, v.profile ? &v.profile->policies : NULL, &v.plan->sup};
			struct sbx_decision d;

			r = sbx_policy_decide(&pv, SBX_OP_DELETE, argv[i], &d, &err);
			if (r < 0)
				goto fail;
			if (a.json && d.allow && d.rename != SBX_APPROVE_ALLOW) {
				all_allowed = false;
				json_decision(&first, argv[i], "rename",
				              d.rename == SBX_APPROVE_ASK ? "ask" : "deny", &d,
				              d.rename == SBX_APPROVE_ASK ? "rename" : NULL,
				              d.rename == SBX_APPROVE_ASK
				                  ? "approvals: rename ask"
				                  : "approvals: rename deny");
			} else if (d.allow && d.rename == SBX_APPROVE_ASK) {
				all_allowed = false;
				printf("ask   %-7s %s  approvals: rename ask (%s %s); %s\n",
				       "rename", sbx_cli_esc(argv[i]),
				       d.mount_what ? d.mount_what : "mount", sbx_cli_esc(d.mount),
				       who_answers(v.plan->sup.approve));
			} else if (d.allow && d.rename == SBX_APPROVE_DENY) {
				all_allowed = false;
				printf("deny  %-7s %s  approvals: rename deny (%s %s)\n", "rename",
				       sbx_cli_esc(argv[i]), d.mount_what ? d.mount_what : "mount",
				       sbx_cli_esc(d.mount));
			}
		}
	}
	if (a.json)
		printf("],\"allowed\":%s}\n", all_allowed ? "true" : "false");
	status = all_allowed ? 0 : 1;
	if (fflush(stdout) != 0)
		status = 125;
	/* The answer is what the profile means; say if this version cannot run it. */
	if (a.profile && sbx_cli_check_enforceable(a.profile, v.spec->workspace, &err) < 0) {
		fputs("sbx: note: this profile cannot run in this version:\n", stderr);
		sbx_cli_report(stderr, &err);
	}
	goto out;
fail:
	sbx_cli_report(stderr, &err);
	status = sbx_error_exit_code(&err);
out:
	ask_clear(&a);
	sbx_cli_view_clear(&v);
	return status;
}

int sbx_cmd_resolve(int argc, char **argv)
{
	struct sbx_cli_view v = {0};
	struct sbx_error err = {0};
	struct ask a;
	bool all = true;
	int status = 125, r;

	r = parse_ask(argc, argv, &a, &err);
	if (r < 0)
		goto fail;
	if (a.help) {
		fputs(resolve_usage, stdout);
		status = 0;
		goto out;
	}
	if (argc - a.first < 1) {
		r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
		                  "sbx resolve needs at least one path");
		sbx_error_hint(&err, "e.g. sbx resolve --profile ci-job /etc/passwd");
		goto fail;
	}
	r = abs_paths(&a, argc, argv, a.first, &err);
	if (r < 0)
		goto fail;
	/* Resolution is about what the sandbox will hold: the compiled profile, masks
	 * included. A profile this version cannot enforce is resolved as written. */
	r = sbx_cli_build_view(a.profile, a.workspace, true, &v, &err);
	if (r < 0 && err.kind == SBX_ERR_UNSUPPORTED) {
		fputs("sbx: note: this profile cannot run in this version:\n", stderr);
		sbx_cli_report(stderr, &err);
		sbx_cli_view_clear(&v);
		r = sbx_cli_build_view(a.profile, a.workspace, false, &v, &err);
	}
	if (r < 0)
		goto fail;
	if (a.json) {
		json_head(&v);
		fputs(",\"paths\":[", stdout);
	}
	for (int i = a.first; i < argc; i++) {
		struct sbx_error e = {0};
		char host[SBX_PATH_MAX], norm[SBX_PATH_MAX];
		const char *glob = NULL;
		size_t op = SIZE_MAX;

		/* what a hide glob matches is masked at launch (the walk), whatever lies there */
		for (size_t g = 0; argv[i][0] == '/' &&
		                   sbx_path_normalize(argv[i], norm, sizeof(norm), NULL) >= 0 &&
		                   !glob && g < v.spec->n_hide_globs;
		     g++)
			if (sbx_glob_match(v.spec->hide_globs[g], norm) &&
			    (v.spec->hide_glob_firm[g] || !sbx_spec_unhidden(v.spec, norm)))
				glob = v.spec->hide_globs[g];
		if (a.json && i > a.first)
			fputc(',', stdout);
		if (glob && a.json) {
			all = false;
			fputs("{\"path\":", stdout);
			sbx_json_string(stdout, argv[i]);
			fputs(",\"host\":null,\"mount\":null,\"why\":null,\"readonly\":null,"
			      "\"hidden_by_glob\":",
			      stdout);
			sbx_json_string(stdout, glob);
			fputs(",\"reason\":\"hidden by a glob (a mask made by sbx at launch)\"}",
			      stdout);
			continue;
		}
		if (glob) {
			all = false;
			printf("%s: hidden by the glob %s (a mask made by sbx at launch)\n",
			       sbx_cli_esc(argv[i]), sbx_cli_esc(glob));
			continue;
		}
		r = sbx_plan_resolve(v.plan, argv[i], &op, host, sizeof(host), &e);
		if (a.json && (r == 0 || r == -ENOENT)) {
			const struct sbx_plan_op *o = r == 0 ? &v.plan->ops[op] : NULL;

			all &= r == 0;
			fputs("{\"path\":", stdout);
			sbx_json_string(stdout, argv[i]);
			fputs(",\"host\":", stdout);
			json_or_null(o ? host : NULL);
			fputs(",\"mount\":", stdout);
			json_or_null(o ? o->target : NULL);
			fputs(",\"why\":", stdout);
			json_or_null(o ? o->why : NULL);
			printf(",\"readonly\":%s,\"hidden_by_glob\":null,\"reason\":",
			       !o                               ? "null"
			       : o->flags & SBX_PLAN_F_READONLY ? "true"
			                                        : "false");
			json_or_null(o ? NULL : e.msg);
			fputc('}', stdout);
		} else if (r == 0) {
			const struct sbx_plan_op *o = &v.plan->ops[op];

			printf("%s -> %s  (%s %s, %s)\n", sbx_cli_esc(argv[i]), sbx_cli_esc(host),
			       sbx_cli_esc(o->why), sbx_cli_esc(o->target),
			       o->flags & SBX_PLAN_F_READONLY ? "read-only" : "read-write");
		} else if (r == -ENOENT) {
			all = false;
			printf("%s: %s\n", sbx_cli_esc(argv[i]), sbx_cli_esc(e.msg));
		} else {
			err = e;
			goto fail;
		}
	}
	if (a.json)
		printf("],\"resolved\":%s}\n", all ? "true" : "false");
	status = all ? 0 : 1;
	if (fflush(stdout) != 0)
		status = 125;
	goto out;
fail:
	sbx_cli_report(stderr, &err);
	status = sbx_error_exit_code(&err);
out:
	ask_clear(&a);
	sbx_cli_view_clear(&v);
	return status;
}
