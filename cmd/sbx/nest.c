/* SPDX-License-Identifier: MIT */
/*
 * Nesting on the command line: finding the caller's effective spec (SBX_SPEC_FD), turning a
 * nested `sbx run`'s flags into a narrowing request, and `sbx status`.
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
#include "sbx/landlock.h"
#include "sbx/guard.h"
#include "sbx/globwalk.h"
#include "sbx/nest.h"
#include "sbx/policy.h"
#include "sbx/probe.h"
#include "sbx/specfd.h"

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

int sbx_cli_nest_request(const struct sbx_cli_run *run, struct sbx_nest_request *req,
                         struct sbx_error *err)
{
	const struct sbx_spec *spec = run->spec;
	int r;

	*req = run->req;
	req->readonly = spec->readonly;
	req->no_system = spec->system_mounts == SBX_SYSMOUNTS_NONE;
	req->net_given = run->net_given || run->profile;
	req->net = spec->net;
	/* A nested sandbox inherits its parent's nesting unless a profile it names says
	 * `nesting: false` (the default of a fresh spec is not a request). */
	req->no_nesting = run->profile && !spec->nesting;
	if (spec->root && !run->profile) {
		r = sbx_error_set(
		    err, SBX_ERR_ESCALATION, EPERM,
		    "--root %s: a nested sandbox sees its parent's paths, at the same "
		    "paths",
		    spec->root);
		sbx_error_hint(err, "use --restrict PATH to keep parts of the parent's view");
		return r;
	}
	if (spec->root && strcmp(spec->root, "/") != 0) {
		r = sbx_error_set(err, SBX_ERR_ESCALATION, EPERM,
		                  "profile '%s' has root %s: a nested sandbox sees its parent's "
		                  "paths, at the same paths",
		                  spec->profile, spec->root);
		sbx_error_hint(err, "run the sub-worker without --profile, or with one whose "
		                    "mounts name paths the parent sandbox sees");
		return r;
	}
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];
		char what[SBX_PATH_MAX + 64];
		unsigned kind;

		if (m->origin == SBX_ORIGIN_DEFAULT)
			continue;
		if (m->kind == SBX_MOUNT_TMPFS) {
			r = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			    "a tmpfs at %s: nested sandboxes do not make tmpfs mounts "
			    "in this version",
			    m->target);
			sbx_error_hint(err, "use the private /tmp every sandbox has");
			return r;
		}
		if (strcmp(m->source, m->target) != 0) {
			r = sbx_error_set(
			    err, SBX_ERR_ESCALATION, EPERM,
			    "cannot mount %s at %s: a nested sandbox sees its parent's "
			    "paths at the same paths",
			    m->source, m->target);
			sbx_error_hint(err, "use -v %s or --restrict %s", m->source, m->source);
			return r;
		}
		if (m->origin != SBX_ORIGIN_PROFILE)
			continue; /* flags were recorded as they were parsed (run.c) */
		/* A nested profile must fit inside the parent: its writable mounts need write
		 * there, its read-only ones read. */
		kind = m->readonly ? SBX_GRANT_READ : SBX_GRANT_WRITE;
		snprintf(what, sizeof(what), "profile %s, mount %s", spec->profile, m->target);
		r = sbx_nest_request_add(req, kind, m->target, m->optional, what, err);
		if (r < 0)
			return r;
		req->grants[req->n_grants - 1].noexec = m->noexec;
	}
	req->profile = run->profile ? spec->profile : NULL;
	req->hide = spec->hide;
	req->n_hide = spec->n_hide;
	return 0;
}

/*
 * The child's hide globs (--hide, a nested profile's hide: and policy globs) become exact
 * paths by one walk of what this process sees, under either backend: the child masks them in
 * its own mount namespace, or denies them in its Landlock layer. The walk covers every entry
 * of the child's effective spec it may read, at its own path: the binds, and the entries
 * whose rights only a Landlock layer carries (a landlocked parent's carved directories), which
 * the child's spec has no mount for. Never with the cache: a cache this sandbox could reach
 * is one a sub-worker could forge.
 */
static int nest_walk(const struct sbx_nest *child, struct sbx_cli_run *run, struct sbx_spec *spec,
                     struct sbx_error *err)
{
	_cleanup_spec_ struct sbx_spec *view = sbx_spec_new();
	int r = view ? 0 : sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");

	/* unhide gives back only what this child hides anew: the parent's masks and Landlock
	 * layer are beyond it (sbx_cli_nest_unhide_notes says so) */
	for (size_t i = 0; r >= 0 && i < run->spec->n_unhide; i++)
		r = sbx_spec_add_unhide(spec, run->spec->unhide[i], err);
	if (r < 0 || run->spec->n_hide_globs == 0)
		return r;
	for (size_t i = 0; r >= 0 && i < child->n_mounts; i++) {
		const struct sbx_nest_mount *e = &child->mounts[i];
		struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
		                      .source = e->target,
		                      .target = e->target,
		                      .readonly = true,
		                      .origin = SBX_ORIGIN_FLAG};

		if ((e->kind != SBX_NEST_BIND && e->kind != SBX_NEST_RULE) ||
		    (e->flags & SBX_NEST_F_SYSTEM) || !(e->rights & (SBX_OP_READ | SBX_OP_LIST)))
			continue;
		r = strcmp(e->target, "/") == 0 ? sbx_spec_set_str(&view->root, "/", err)
		                                : sbx_spec_add_mount(view, &m, true, err);
	}
	for (size_t i = 0; r >= 0 && i < run->spec->n_hide_globs; i++)
		r = run->spec->hide_glob_firm[i]
		        ? sbx_spec_add_firm_hide_glob(view, run->spec->hide_globs[i], err)
		        : sbx_spec_add_hide_glob(view, run->spec->hide_globs[i], err);
	for (size_t i = 0; r >= 0 && i < run->spec->n_unhide; i++)
		r = sbx_spec_add_unhide(view, run->spec->unhide[i], err);
	if (r >= 0)
		r = sbx_globwalk_apply(view, NULL, &run->walk, err);
	for (size_t i = 0; r >= 0 && i < view->n_hide; i++)
		r = sbx_spec_add_hide(spec, view->hide[i], err);
	/* the child keeps its globs, for what it reports (--dry-run) */
	for (size_t i = 0; r >= 0 && i < view->n_hide_globs; i++)
		r = view->hide_glob_firm[i]
		        ? sbx_spec_add_firm_hide_glob(spec, view->hide_globs[i], err)
		        : sbx_spec_add_hide_glob(spec, view->hide_globs[i], err);
	return r;
}

/* The spec, plan and host for a nested run: the parent narrowed by the request. */
int sbx_cli_nest_plan(const struct sbx_nest *parent, struct sbx_cli_run *run, struct sbx_host *host,
                      struct sbx_plan **plan, struct sbx_error *err)
{
	struct sbx_nest_request req;
	_cleanup_nest_ struct sbx_nest *child = NULL;
	_cleanup_spec_ struct sbx_spec *spec = NULL;
	int r;

	if (!parent->nesting) {
		r = sbx_error_set(
		    err, SBX_ERR_ESCALATION, EPERM,
		    "cannot start a nested sandbox: the parent sandbox (profile '%s') "
		    "forbids nesting (nesting: false)",
		    parent->profile);
		sbx_error_hint(err, "run the sub-worker as a plain process (it inherits the "
		                    "parent's limits), or give the parent a profile with nesting: "
		                    "true");
		return r;
	}
	r = sbx_cli_nest_request(run, &req, err);
	if (r >= 0)
		r = sbx_spec_narrow(parent, &req, &child, err);
	/* the request borrowed the run's grants; they stay the run's */
	run->req = req;
	run->req.hide = NULL;
	run->req.n_hide = 0;
	run->req.profile = NULL;
	if (r < 0)
		return r;
	if (parent->backend == SBX_BACKEND_LANDLOCK || parent->landlocked) {
		/* A Landlock domain forbids every mount (and the landlock backend's worker has no
		 * namespaces to build in): the child stacks its own Landlock layer and seccomp
		 * filter in the parent's mount namespace, where paths are the same. */
		if (run->backend == SBX_ASK_NAMESPACES) {
			r = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			    "cannot start a nested sandbox with --backend namespaces: "
			    "the parent sandbox runs under Landlock (%s), which forbids "
			    "mounting",
			    parent->backend == SBX_BACKEND_LANDLOCK
			        ? "the landlock backend"
			        : "a Landlock domain for its per-operation rights");
			sbx_error_hint(err,
			               "drop --backend namespaces: the nested sandbox then uses "
			               "the landlock backend, a stacked Landlock layer");
			return r;
		}
		run->backend = SBX_ASK_LANDLOCK;
	} else if (host->euid == 0) {
		/* Since Linux 5.12 (verify_root_map in kernel/user_namespace.c) a process may map
		 * uid 0 of its namespace into a new user namespace only with CAP_SETFCAP there. A
		 * sandbox that root starts with nesting runs its worker as SBX_ROOT_NEST_ID for
		 * that reason (plan.h); a uid 0 here is some other sandbox's worker. */
		r = sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, EPERM,
		    "cannot start a nested sandbox as uid 0: this process is uid 0 "
		    "without capabilities inside its sandbox, and the kernel maps uid "
		    "0 into a new user namespace only for a process with CAP_SETFCAP");
		sbx_error_hint(err,
		               "start the outer sandbox with nesting allowed (--allow-nesting "
		               "or nesting: true): as root its worker then runs as uid %u",
		               SBX_ROOT_NEST_ID);
		return r;
	}
	r = sbx_nest_to_spec(child, host->cwd, &spec, err);
	if (r < 0)
		return r;
	/* A nested profile's policies stay attached to its mounts, so that the child's Landlock
	 * layer compiles them (sbx_plan_finish): they can only take rights away. */
	for (size_t i = 0; r >= 0 && i < spec->n_mounts; i++) {
		const struct sbx_mount *asked =
		    sbx_spec_find_target(run->spec, spec->mounts[i].target);

		if (run->profile && asked && asked->policy)
			r = sbx_spec_set_str(&spec->mounts[i].policy, asked->policy, err);
	}
	if (r < 0)
		return r;
	if (r >= 0)
		r = nest_walk(child, run, spec, err);
	if (r < 0)
		return r;
	if (run->backend == SBX_ASK_LANDLOCK) {
		/* What the parent hides stays hidden for a child in its mount namespace (the
		 * parent's masks, which Landlock forbids it to unmount), or is as unenforced as it
		 * was for the parent: only what the child hides anew asks the landlock backend
		 * for hiding (sbx_ll_backend_check). */
		size_t k = 0;

		for (size_t i = 0; i < spec->n_hide; i++) {
			const struct sbx_nest_mount *m = sbx_nest_lookup(parent, spec->hide[i]);

			if (m && m->kind == SBX_NEST_HIDDEN && !strcmp(m->target, spec->hide[i]))
				free(spec->hide[i]);
			else
				spec->hide[k++] = spec->hide[i];
		}
		spec->n_hide = k;
	}
	if (run->spec->chdir)
		r = sbx_spec_set_str(&spec->chdir, run->spec->chdir, err);
	for (size_t i = 0; r >= 0 && i < run->spec->n_env; i++)
		r = sbx_spec_add_env(spec, run->spec->env[i].name, run->spec->env[i].value, err);
	if (r < 0)
		return r;
	/* Only the system mounts the parent has, taken from its view. */
	for (size_t i = 0; i < host->n_entries; i++)
		if (!sbx_nest_system_allowed(child, host->entries[i].path))
			host->entries[i].kind = SBX_HOST_ABSENT;
	host->nested = true;
	/* The guards the child's own policies ask for (a noexec subtree) only narrow it. */
	for (size_t i = 0; r >= 0 && i < run->spec->n_guards; i++)
		r = sbx_spec_add_guard(spec, run->spec->guards[i].path,
		                       run->spec->guards[i].readonly, run->spec->guards[i].noexec,
		                       run->spec->guards[i].why, err);
	if (r >= 0)
		r = sbx_plan_build(spec, host, plan, err);
	if (r >= 0)
		r = sbx_guards_prune(*plan, err);
	if (r < 0)
		return r;
	sbx_spec_free(run->spec);
	run->spec = TAKE_PTR(spec);
	run->nest_child = TAKE_PTR(child);
	return 0;
}

void sbx_cli_nest_unhide_notes(FILE *f, const struct sbx_nest *parent, const struct sbx_spec *spec)
{
	for (size_t i = 0; i < spec->n_unhide; i++)
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
		fprintf(f,
		        ",\"depth\":%u,\"backend\":\"%s\",\"network\":\"%s\",\"nesting\":%s,"
		        "\"landlock\":%s,\"scoped\":[%s%s%s]",
		        n->depth, sbx_backend_name(n->backend),
		        n->net == SBX_NET_HOST ? "host" : "none", n->nesting ? "true" : "false",
		        n->landlocked ? "true" : "false",
		        n->scoped & SBX_LL_SCOPE_ABSTRACT_UNIX ? "\"abstract_unix\"" : "",
		        n->scoped == (SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL) ? "," : "",
		        n->scoped & SBX_LL_SCOPE_SIGNAL ? "\"signal\"" : "");
		print_identity(f, n, true);
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
	fprintf(f, "depth:    %u%s\n", n->depth,
	        n->parent_unknown ? " (counted from a parent that sbx does not know)" : "");
	fprintf(f, "backend:  %s\n", sbx_backend_name(n->backend));
	print_identity(f, n, false);
	fprintf(f, "network:  %s\n", n->net == SBX_NET_HOST ? "host" : "none (loopback only)");
	fprintf(f, "nesting:  %s\n", n->nesting ? "allowed" : "forbidden");
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
