/* SPDX-License-Identifier: MIT */
/*
 * Nesting on the command line: finding the caller's effective spec (SBX_SPEC_FD), handing a
 * nested `sbx run`'s flags and profile to core (sbx_nest_plan, which narrows; the glob walk
 * is this side's), and `sbx status`.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/finish.h"
#include "sbx/globwalk.h"
#include "sbx/landlock.h"
#include "sbx/nest.h"
#include "sbx/policy.h"
#include "sbx/probe.h"
#include "os/fs.h"
#include "os/globwalk.h"
#include "os/guard.h"
#include "os/memfd.h"
#include "os/probe.h"
#include "os/sysprobe.h"

int sbx_cli_nest_load(struct sbx_nest **out, struct sbx_error *err)
{
	const char *v = getenv(SBX_SPEC_FD_ENV);
	_cleanup_free_ unsigned char *buf = NULL;
	size_t len = 0;
	char *end = NULL;
	long fd;
	int r;

	*out = NULL;
	if (!v)
		return 0;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || !*v || *end || fd < 0 || fd > INT_MAX) {
		r = sbx_error_set(err, SBX_ERR_SETUP, EBADF,
		                  "%s='%.32s' is not a file descriptor number", SBX_SPEC_FD_ENV, v);
		goto bad;
	}
	r = sbx_memfd_read_spec((int)fd, &buf, &len, err);
	if (r >= 0)
		r = sbx_nest_decode(buf, len, out, err);
	if (r >= 0)
		return 1;
	sbx_error_wrap(err, "%s=%s", SBX_SPEC_FD_ENV, v);
bad:
	/* Fail closed: a process that says it is sandboxed but cannot show its spec gets no
	 * sandbox at all rather than a guess. */
	sbx_error_hint(err, "sbx sets %s for the workers it starts; outside a sandbox, unset it",
	               SBX_SPEC_FD_ENV);
	return r;
}

/* The child's hide globs, matched by one walk of what this process sees (no cache). */
static int walk_globs(void *ctx, const struct sbx_spec *view, struct sbx_globwalk_matches *out,
                      struct sbx_error *err)
{
	return sbx_globwalk_run(view, NULL, out, ctx, err);
}

#define SBX_SWAP_PTR(a, b)                                                                         \
	do {                                                                                       \
		char *_t = (a);                                                                    \
		(a) = (b);                                                                         \
		(b) = _t;                                                                          \
	} while (0)

/*
 * A landlock child's own temporary directory (sbx_nest_tmp_base): made here in its parent's
 * private /tmp (never the host's), removed after the run (sbx_cli_run_clear); --dry-run makes
 * nothing and shows where it would be. Where none can be made the child has none, as under
 * the landlock backend.
 */
static int nest_tmpdir(const struct sbx_nest *parent, struct sbx_cli_run *run,
                       struct sbx_nest_planned *np, struct sbx_error *err)
{
	char base[PATH_MAX], dir[PATH_MAX + 32];

	if (sbx_nest_tmp_base(parent, getenv("TMPDIR"), base, sizeof(base)) < 0 ||
	    snprintf(dir, sizeof(dir), "%s/" SBX_NEST_TMP_PREFIX "XXXXXX", base) >=
	        (int)sizeof(dir))
		return 0;
	if (!run->dry_run) {
		if (!mkdtemp(dir))
			return 0; /* a full or read-only /tmp: none */
		run->nest_tmpdir = strdup(dir);
		if (!run->nest_tmpdir) {
			(void)rmdir(dir);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
	}
	return sbx_nest_add_tmp(np, dir, !run->dry_run, err);
}

int sbx_cli_nest_plan(const struct sbx_nest *parent, struct sbx_cli_run *run, struct sbx_host *host,
                      struct sbx_plan **plan, struct sbx_error *err)
{
	const struct sbx_nest_ask ask = {
	    .spec = run->spec,
	    .req = &run->req,
	    .profile = run->profile != NULL,
	    .net_given = run->net_given,
	    .backend = run->backend,
	    .walk = walk_globs,
	    .walk_ctx = &run->walk,
	};
	struct sbx_nest_planned np;
	int r = sbx_nest_plan(parent, &ask, host, &np, err);

	if (r >= 0 && np.backend == SBX_ASK_LANDLOCK)
		r = nest_tmpdir(parent, run, &np, err);
	if (r >= 0)
		r = sbx_plan_build(np.spec, host, plan, err);
	/* guards the host lacks dropped (src/os/guard.c says which) */
	if (r >= 0)
		sbx_plan_prune_guards(*plan, sbx_guard_bindable, NULL);
	if (r < 0) {
		sbx_nest_planned_clear(&np);
		return r;
	}
	/* The run's own settings, which no narrowing touches, go with it: the broker, its
	 * timeout, the audit log and the label (the nested spec is built from mounts). */
	np.spec->approve_timeout_ms = run->spec->approve_timeout_ms;
	SBX_SWAP_PTR(np.spec->approve, run->spec->approve);
	SBX_SWAP_PTR(np.spec->audit_log, run->spec->audit_log);
	SBX_SWAP_PTR(np.spec->label, run->spec->label);
	sbx_spec_free(run->spec);
	run->spec = TAKE_PTR(np.spec);
	run->nest_child = TAKE_PTR(np.child);
	run->backend = np.backend;
	(*plan)->backend_why = np.backend_why;
	return 0;
}

void sbx_cli_nest_unhide_notes(FILE *f, const struct sbx_nest *parent, const struct sbx_spec *spec)
{
	for (size_t i = 0; sbx_cli_notes != SBX_NOTES_QUIET && i < spec->n_unhide; i++)
		for (size_t j = 0; j < parent->n_mounts; j++) {
			const struct sbx_nest_mount *m = &parent->mounts[j];

			if (m->kind != SBX_NEST_HIDDEN ||
			    !(sbx_glob_match(spec->unhide[i], m->target) ||
			      sbx_path_covers(m->target, spec->unhide[i])))
				continue;
			fprintf(f,
			        "sbx: note: unhide %s: the parent sandbox hides %s, and a nested "
			        "sandbox cannot give it back (it stays hidden)\n",
			        sbx_cli_esc(spec->unhide[i]), sbx_cli_esc(m->target));
			break;
		}
}

int sbx_cli_origin(bool *parent_unknown, struct sbx_error *err)
{
	struct sbx_origin_facts f;
	int r;

	sbx_probe_origin(&f);
	r = sbx_origin_decide(&f, err);
	if (r < 0)
		return r;
	*parent_unknown = r == SBX_ORIGIN_UNKNOWN;
	return 0;
}

const char *sbx_cli_parent_words(const struct sbx_nest *n, bool json)
{
	if (n->depth > 1)
		return json ? "sbx"
		       : n->parent_unknown
		           ? "an sbx sandbox, itself below a parent that sbx does not know"
		           : "an sbx sandbox";
	if (n->parent_unknown)
		return json ? "unknown"
		            : "unknown: this sandbox's sbx was started confined (no_new_privs or a "
		              "seccomp filter) without SBX_SPEC_FD, in a container or by a worker "
		              "that dropped its spec";
	return json ? "none" : "none, started from outside any sandbox";
}

/* ---- sbx status ---- */

static const char status_usage[] =
    "Usage: sbx status [--json]\n"
    "\n"
    "Inside an sbx sandbox: the effective spec this process runs under (mounts and their\n"
    "rights, network, depth and parent, backend, the worker's real ids, Landlock scopes).\n"
    "Outside: says so (and whether something else confines this process), and exits 1.\n"
    "With SBX=1 but no SBX_SPEC_FD (a worker that dropped its spec): refuses, exit 125.\n";

/* The worker's ids as the kernel has them: under the landlock backend its caller's own (no
 * user namespace, nothing id-mapped), under the namespaces backend those of the sandbox's
 * user namespace, and what they are outside it. */
static void print_identity(FILE *f, const struct sbx_nest *n, bool json)
{
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid(), ou = 0, og = 0;
	bool whole = false, gwhole = false, own = n->backend == SBX_BACKEND_NAMESPACES;
	bool known = sbx_probe_outer_id(false, uid, &ou, &whole) == 0 &&
	             sbx_probe_outer_id(true, gid, &og, &gwhole) == 0;

	whole = whole && gwhole && known;
	if (json) {
		fprintf(f, ",\"identity\":{\"uid\":%u,\"gid\":%u", uid, gid);
		if (known)
			fprintf(f, ",\"outer_uid\":%u,\"outer_gid\":%u", ou, og);
		fprintf(f, ",\"own_user_namespace\":%s,\"kernel_ids\":%s}", own ? "true" : "false",
		        whole ? "true" : "false");
		return;
	}
	if (own) {
		fprintf(f, "identity: uid %u gid %u in the sandbox's user namespace", uid, gid);
		if (known)
			fprintf(f, " = uid %u gid %u outside it", ou, og);
		fputc('\n', f);
		return;
	}
	fprintf(f,
	        "identity: uid %u gid %u, the caller's own (the landlock backend makes no user "
	        "namespace and id-maps no bind)",
	        uid, gid);
	if (whole)
		fprintf(f, ": kernel ids%s", uid == 0 ? ", uid 0 without capabilities" : "");
	else if (known)
		fprintf(f, " = uid %u gid %u in the parent user namespace", ou, og);
	fputc('\n', f);
}

static void print_status(FILE *f, const struct sbx_nest *n, bool json)
{
	char ops[128];

	if (json) {
		fputs("{\"sandboxed\":true,\"profile\":", f);
		sbx_json_string(f, n->profile);
		fprintf(f, ",\"parent\":\"%s\",\"parent_unknown\":%s",
		        sbx_cli_parent_words(n, true), n->parent_unknown ? "true" : "false");
		/* the audit log's "sandbox" for this sandbox (hex digits, checked by the codec) */
		if (n->sandbox_id[0])
			fprintf(f, ",\"sandbox\":\"%s\"", n->sandbox_id);
		else
			fputs(",\"sandbox\":null", f);
		fprintf(f,
		        ",\"depth\":%u,\"backend\":\"%s\",\"network\":\"%s\",\"nesting\":%s,"
		        "\"landlock\":%s,\"scoped\":[%s%s%s]",
		        n->depth, sbx_backend_name(n->backend), sbx_net_mode_name(n->net),
		        n->nesting ? "true" : "false", n->landlocked ? "true" : "false",
		        n->scoped & SBX_LL_SCOPE_ABSTRACT_UNIX ? "\"abstract_unix\"" : "",
		        n->scoped == (SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL) ? "," : "",
		        n->scoped & SBX_LL_SCOPE_SIGNAL ? "\"signal\"" : "");
		print_identity(f, n, true);
		fputs(",\"limits\":{", f);
		for (int l = 0, k = 0; l < SBX_LIMIT_COUNT; l++)
			if (n->limits.set & SBX_LIMIT_BIT(l))
				fprintf(f, "%s\"%s\":%llu", k++ ? "," : "", sbx_limit_table[l].name,
				        (unsigned long long)n->limits.v[l]);
		fputc('}', f);
		fputs(",\"mounts\":[", f);
		for (size_t i = 0; i < n->n_mounts; i++) {
			const struct sbx_nest_mount *m = &n->mounts[i];

			fputs(i ? ",{\"target\":" : "{\"target\":", f);
			sbx_json_string(f, m->target);
			fprintf(f, ",\"kind\":\"%s\",\"system\":%s,\"readonly\":%s,\"rights\":",
			        sbx_nest_kind_name(m->kind),
			        m->flags & SBX_NEST_F_SYSTEM ? "true" : "false",
			        m->rights & SBX_OP_MODIFY ? "false" : "true");
			sbx_json_string(f, sbx_ops_format(m->rights, ops, sizeof(ops)));
			fputc('}', f);
		}
		fputs("]}\n", f);
		return;
	}
	fprintf(f, "profile:  %s\n", sbx_cli_esc(n->profile));
	if (n->sandbox_id[0])
		fprintf(f, "sandbox:  %s (its id in the audit log)\n", n->sandbox_id);
	fprintf(f, "depth:    %u%s\n", n->depth,
	        n->parent_unknown ? " (counted from a parent that sbx does not know)" : "");
	fprintf(f, "backend:  %s\n", sbx_backend_name(n->backend));
	print_identity(f, n, false);
	if (n->net >= SBX_NET_ALLOW) {
		fputs("network:  ", f);
		sbx_cli_net_yaml(f, n->net, &n->netpol);
		fputc('\n', f);
	} else
		fprintf(f, "network:  %s\n",
		        n->net == SBX_NET_HOST ? "host"
		        : n->backend == SBX_BACKEND_LANDLOCK
		            ? "none (no loopback either: the landlock "
		              "backend has no network namespace)"
		            : "none (loopback only)");
	fprintf(f, "nesting:  %s\n", n->nesting ? "allowed" : "forbidden");
	fputs("limits:  ", f);
	for (int l = 0, k = 0; l < SBX_LIMIT_COUNT; l++) {
		char v[32];

		if (n->limits.set & SBX_LIMIT_BIT(l))
			fprintf(f, "%s %s %s", k++ ? "," : "", sbx_limit_table[l].name,
			        sbx_limit_format(l, n->limits.v[l], v, sizeof(v)));
	}
	fputs(n->limits.set ? " (a nested sandbox may only lower them)\n" : " none\n", f);
	fprintf(f, "parent:   %s\n", sbx_cli_parent_words(n, false));
	if (n->landlocked)
		fputs("landlock: a Landlock domain holds this worker: nested sandboxes use the "
		      "landlock backend\n",
		      f);
	if (n->scoped)
		fprintf(f, "scopes:   %s%s%s: nothing here reaches outside the sandbox that way\n",
		        n->scoped & SBX_LL_SCOPE_ABSTRACT_UNIX ? "abstract unix sockets" : "",
		        n->scoped == (SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL) ? ", " : "",
		        n->scoped & SBX_LL_SCOPE_SIGNAL ? "signals" : "");
	else
		fputs(
		    "scopes:   none (this kernel's Landlock has no scopes): abstract unix sockets "
		    "and signals outside the sandbox are not restricted by Landlock\n",
		    f);
	fputs("mounts:\n", f);
	for (size_t i = 0; i < n->n_mounts; i++) {
		const struct sbx_nest_mount *m = &n->mounts[i];

		fprintf(f, "  %-3s %-8s %s%s  (%s)\n",
		        m->kind == SBX_NEST_HIDDEN  ? "-"
		        : m->rights & SBX_OP_MODIFY ? "rw"
		                                    : "ro",
		        sbx_nest_kind_name(m->kind), sbx_cli_esc(m->target),
		        m->flags & SBX_NEST_F_SYSTEM ? " [system]" : "",
		        m->rights ? sbx_ops_format(m->rights, ops, sizeof(ops)) : "nothing");
	}
	if (n->backend == SBX_BACKEND_LANDLOCK)
		fputs("/proc, /dev and /tmp are the caller's, limited by Landlock.\n", f);
	else
		fputs("/proc, /dev and /tmp are the sandbox's own.\n", f);
}

int sbx_cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	_cleanup_nest_ struct sbx_nest *n = NULL;
	struct sbx_error err = {0};
	bool json = false;
	int c, r;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			fputs(status_usage, stdout);
			return 0;
		} else {
			fprintf(stderr,
			        "sbx: unknown option '%s' for sbx status; see 'sbx status "
			        "--help'\n",
			        sbx_cli_esc(argv[optind - 1]));
			return 125;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbx: sbx status takes no arguments; see 'sbx status --help'\n");
		return 125;
	}
	r = sbx_cli_nest_load(&n, &err);
	if (r < 0) {
		sbx_cli_report(stderr, &err);
		return sbx_error_exit_code(&err);
	}
	if (r == 0) {
		struct sbx_origin_facts f;

		/* SBX=1 without its spec: an sbx worker that dropped SBX_SPEC_FD. */
		sbx_probe_origin(&f);
		if (sbx_origin_decide(&f, &err) < 0) {
			sbx_cli_report(stderr, &err);
			return sbx_error_exit_code(&err);
		}
		if (json)
			printf("{\"sandboxed\":false,\"confined\":%s}\n",
			       *sbx_origin_evidence(&f) ? "true" : "false");
		else if (*sbx_origin_evidence(&f))
			printf(
			    "not inside an sbx sandbox that sbx can identify (no SBX_SPEC_FD), but "
			    "confined by %s: a container, or a sandbox whose worker dropped its "
			    "spec\n",
			    sbx_origin_evidence(&f));
		else
			puts("not inside an sbx sandbox");
		return 1;
	}
	print_status(stdout, n, json);
	return fflush(stdout) == 0 ? 0 : 125;
}
