/* SPDX-License-Identifier: MIT */
/*
 * Limits on the command line (include/sbx/limits.h, src/os/cgroup.h): the sandbox's cgroup made
 * or refused before the launch, the lines after it (killed by the memory limit, the timeout),
 * and what --dry-run and `sbx doctor` say about them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "os/cgroup.h"
#include "os/launch.h"
#include "os/registry.h"
#include "os/shareslot.h"

extern char **environ;

/* The cgroup limits this launch must hold itself, less what an rlimit holds as well: pids in a
 * user namespace of its own is RLIMIT_NPROC's (src/os/limits.c). */
static unsigned cgroup_wanted(const struct sbx_plan *plan, unsigned *rlimit_ok)
{
	unsigned want = plan->resources_own & SBX_LIMITS_CGROUP;

	*rlimit_ok = plan->map_count ? SBX_LIMIT_BIT(SBX_LIMIT_PIDS) : 0;
	return want;
}

/* A nested sandbox has no cgroup of its own (none is delegated into a sandbox: the parent's
 * holds it) and, on the landlock backend, no user namespace of its own either, where
 * RLIMIT_NPROC would count its own tasks: it would count every task of its uid in the
 * parent's. The refusal says so, rather than the top level's "run as root". */
static void nested_refusal(const struct sbx_plan *plan, unsigned missing, struct sbx_error *err)
{
	char names[64] = "";
	bool pids = missing & SBX_LIMIT_BIT(SBX_LIMIT_PIDS);

	for (int l = 0; l < SBX_LIMIT_COUNT; l++)
		if (missing & SBX_LIMIT_BIT(l))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			         names[0] ? ", " : "", sbx_limit_table[l].name);
	sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
	              "cannot enforce limit %s in a nested sandbox: it has no cgroup of its own "
	              "(none is delegated into a sandbox; the parent's holds it)%s%s%s",
	              names,
	              pids ? " and no user namespace of its own, in which RLIMIT_NPROC "
	                     "would count its tasks alone ("
	                   : "",
	              pids ? (plan->backend_why ? plan->backend_why : "the landlock backend") : "",
	              pids ? ")" : "");
	sbx_error_hint(err,
	               "%sset the limit on the parent sandbox (it holds every sandbox "
	               "started inside it); or drop it; or pass --best-effort to run "
	               "without it",
	               pids && missing == SBX_LIMIT_BIT(SBX_LIMIT_PIDS)
	                   ? "start the parent sandbox with --allow-nesting (a nested sandbox "
	                     "then has a user namespace of its own, where pids holds); or "
	                   : "");
}

/*
 * The cgroup this plan needs, made (*cg, NULL: none), or the refusal: what sbx run does and
 * what --dry-run says it would do. *held: the limits of SBX_LIMITS_CGROUP that hold (by the
 * cgroup, or pids by RLIMIT_NPROC); with --best-effort what does not is warned of on stderr
 * and *why_not says why.
 */
static int limits_cgroup(const struct sbx_cli_run *run, const struct sbx_plan *plan, const char *id,
                         struct sbx_cgroup **cg, unsigned *held, char *why_not, size_t why_size,
                         struct sbx_error *err)
{
	unsigned rlimit_ok, want = cgroup_wanted(plan, &rlimit_ok), got = 0;
	struct sbx_error why = {0};
	int r;

	*cg = NULL;
	*held = 0;
	if (why_size)
		why_not[0] = '\0';
	/* The landlock backend has no pid namespace: a cgroup ends all it started, wherever
	 * sbx can have one, limits or not (nothing is refused for want of it). */
	if (!want && !plan->backend_landlock)
		return 0;
	r = sbx_cgroup_create(want, &plan->resources, id, cg, &got, &why);
	*held = (got | rlimit_ok) & want;
	if (r >= 0 || !want || !(want & ~got & ~rlimit_ok))
		return 0; /* no limit asked (only the end path goes without), or an rlimit holds
		             what is missing */
	if (run->nest_child && why.kind == SBX_ERR_UNSUPPORTED)
		nested_refusal(plan, want & ~got & ~rlimit_ok, &why);
	if (why.kind == SBX_ERR_UNSUPPORTED && run->spec->best_effort) {
		fprintf(stderr, "sbx: warning: %s; running without it (--best-effort)%s\n",
		        sbx_cli_esc(why.msg),
		        rlimit_ok & want & ~got ? "; pids holds through RLIMIT_NPROC in the "
		                                  "sandbox's user namespace"
		                                : "");
		snprintf(why_not, why_size, "%s", why.msg);
		return 0;
	}
	sbx_cgroup_destroy(*cg);
	*cg = NULL;
	if (err)
		*err = why;
	return r;
}

int sbx_cli_limits_begin(const struct sbx_cli_run *run, const struct sbx_plan *plan, const char *id,
                         struct sbx_cli_limits *out, struct sbx_error *err)
{
	unsigned held;
	int r;

	sbx_cli_limits_end(out, 0); /* a second launch (the landlock fallback) starts afresh */
	memset(out, 0, sizeof(*out));
	if (plan->resources_own & SBX_LIMIT_BIT(SBX_LIMIT_TIMEOUT))
		out->launch.timeout_ms = plan->resources.v[SBX_LIMIT_TIMEOUT];
	r = limits_cgroup(run, plan, id, &out->cg, &held, NULL, 0, err);
	if (r < 0)
		return r;
	out->memory = plan->resources.v[SBX_LIMIT_MEMORY];
	out->launch.cg = out->cg;
	sbx_launch_set_limits(&out->launch);
	return 0;
}

/* What --dry-run found (sbx_cli_limits_dry), for sbx_cli_print_resources: one plan a run. */
static struct {
	bool probed;
	unsigned held;               /* SBX_LIMITS_CGROUP bits that hold */
	unsigned by_cg;              /* those the cgroup holds */
	int version;                 /* the cgroup's, 0: none */
	char why[SBX_ERROR_MSG_MAX]; /* with --best-effort, why some do not */
} dry;

int sbx_cli_limits_dry(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                       struct sbx_error *err)
{
	struct sbx_cgroup *cg = NULL;
	int r;

	memset(&dry, 0, sizeof(dry));
	/* only where a limit asks for a cgroup: a dry run with none touches nothing */
	if (!(plan->resources_own & SBX_LIMITS_CGROUP))
		return 0;
	r = limits_cgroup(run, plan, "dryrun", &cg, &dry.held, dry.why, sizeof(dry.why), err);
	if (r < 0)
		return r;
	dry.probed = true;
	dry.version = cg ? cg->version : 0;
	dry.by_cg = cg ? cg->enforces : 0;
	/* nothing joined it: removed at once */
	sbx_cgroup_destroy(cg);
	return 0;
}

/* How a limit of the plan holds, for --dry-run: "cgroup v1", "RLIMIT_NPROC", ... or "none"
 * (--best-effort, where nothing can hold it). */
static const char *held_by(const struct sbx_plan *plan, int l, char *buf, size_t size)
{
	if (!(plan->resources_own & SBX_LIMIT_BIT(l)))
		return "parent";
	if (!(SBX_LIMITS_CGROUP & SBX_LIMIT_BIT(l)))
		return l == SBX_LIMIT_TIMEOUT ? "sbx" : l == SBX_LIMIT_TMPFS ? "tmpfs" : "rlimit";
	if (!dry.probed)
		return "cgroup";
	if (!(dry.held & SBX_LIMIT_BIT(l)))
		return "none";
	if (dry.by_cg & SBX_LIMIT_BIT(l)) {
		snprintf(buf, size, "cgroup v%d", dry.version);
		return buf;
	}
	return "RLIMIT_NPROC";
}

static int held_rank = -1; /* the rank's lock, held until sbx exits (close-on-exec) */

void sbx_cli_share_release(void)
{
	if (held_rank >= 0)
		close(held_rank);
	held_rank = -1;
}

unsigned sbx_cli_share_rank(struct sbx_cli_fleet *fleet)
{
	int *held = &held_rank;
	struct sbx_error e = {0};

	if (*held >= 0)
		return 0; /* taken (a second launch of this sbx) */
	/* the runtime directory `sbx ps` lists, opened once for both */
	if (fleet->dirfd < 0 && sbx_registry_open_own(environ, true, &fleet->dirfd, fleet->path,
	                                              sizeof(fleet->path), &e) < 0) {
		fleet->dirfd = -1;
		return 0; /* none: rank 0, as if alone (sbx_cli_fleet_begin says it is unlisted) */
	}
	return sbx_shareslot_take(fleet->dirfd, held);
}

int sbx_cli_limits_end(struct sbx_cli_limits *l, int status)
{
	char v[32];

	if (l->launch.timed_out) {
		fprintf(stderr, "sbx: killed: timeout %s reached\n",
		        sbx_limit_format(SBX_LIMIT_TIMEOUT, l->launch.timeout_ms, v, sizeof(v)));
		status = 124;
	} else if (l->cg && sbx_cgroup_oom_seen(l->cg)) {
		/* the cgroup's oom_kill count tells the memory limit's kill from any other
		 * SIGKILL; the whole sandbox went with it (memory.oom.group, or sbx on v1) */
		fprintf(stderr, "sbx: killed: memory limit %s reached\n",
		        sbx_limit_format(SBX_LIMIT_MEMORY, l->memory, v, sizeof(v)));
		status = 137;
	}
	sbx_launch_set_limits(NULL);
	sbx_cgroup_destroy(l->cg);
	memset(l, 0, sizeof(*l));
	return status;
}

void sbx_cli_print_resources(FILE *f, const struct sbx_plan *plan, bool json)
{
	const struct sbx_limits *lim = &plan->resources;
	char v[32], by[32];
	bool any = false;

	if (json) {
		fputs(",\"resources\":{", f);
		for (int l = 0; l < SBX_LIMIT_COUNT; l++) {
			if (!(lim->set & SBX_LIMIT_BIT(l)))
				continue;
			fprintf(f,
			        "%s\"%s\":{\"value\":%llu,\"text\":\"%s\",\"own\":%s,"
			        "\"held_by\":\"%s\"}",
			        any ? "," : "", sbx_limit_table[l].name,
			        (unsigned long long)lim->v[l],
			        sbx_limit_format(l, lim->v[l], v, sizeof(v)),
			        plan->resources_own & SBX_LIMIT_BIT(l) ? "true" : "false",
			        held_by(plan, l, by, sizeof(by)));
			any = true;
		}
		if (dry.why[0]) {
			fprintf(f, "%s\"not_enforced\":", any ? "," : "");
			sbx_json_string(f, dry.why);
			any = true;
		}
		fprintf(f, "%s\"tmpfs_size\":%llu}", any ? "," : "",
		        (unsigned long long)plan->tmpfs_size);
		return;
	}
	fprintf(f, "resources: ");
	for (int l = 0; l < SBX_LIMIT_COUNT; l++) {
		if (!(lim->set & SBX_LIMIT_BIT(l)))
			continue;
		const char *how = held_by(plan, l, by, sizeof(by));
		char note[64] = "";

		/* a cgroup limit of its own: how the probe found it holds */
		if (dry.probed && (SBX_LIMITS_CGROUP & plan->resources_own & SBX_LIMIT_BIT(l)))
			snprintf(note, sizeof(note), " (%s)",
			         strcmp(how, "none") == 0 ? "not enforced: --best-effort" : how);
		fprintf(f, "%s %s %s%s%s", any ? "," : "", sbx_limit_table[l].name,
		        sbx_limit_format(l, lim->v[l], v, sizeof(v)),
		        plan->resources_own & SBX_LIMIT_BIT(l) ? ""
		        : (SBX_LIMITS_CGROUP | SBX_LIMIT_BIT(SBX_LIMIT_TIMEOUT)) & SBX_LIMIT_BIT(l)
		            ? " (the parent's, held by it)"
		            : " (the parent's)",
		        note);
		any = true;
	}
	if (!any)
		fprintf(f, " no limits");
	fputc('\n', f);
	fprintf(f, "tmpfs size: %s for each tmpfs sbx makes that names none (%s)\n",
	        sbx_limit_format(SBX_LIMIT_TMPFS, plan->tmpfs_size, v, sizeof(v)),
	        lim->set & SBX_LIMIT_BIT(SBX_LIMIT_TMPFS)
	            ? "limits: tmpfs"
	            : "default: an eighth of RAM, at most the memory limit");
}

void sbx_cli_doctor_limits(void)
{
	struct sbx_cgroup_facts f;
	char names[64] = "";

	sbx_cgroup_probe(&f);
	for (int l = 0; l < SBX_LIMIT_COUNT; l++)
		if (f.can & SBX_LIMIT_BIT(l))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			         names[0] ? ", " : "", sbx_limit_table[l].name);
	printf("%-4s %-16s %s%s%s\n", f.can == SBX_LIMITS_CGROUP ? "ok" : "--", "limits",
	       f.can ? names : "memory, pids and cpu cannot be enforced", f.can ? " through " : "",
	       f.can ? sbx_cli_esc(f.how) : "");
	if (f.can != SBX_LIMITS_CGROUP) {
		printf("     %-16s why: %s\n", "", sbx_cli_esc(f.why_not));
		printf("     %-16s fix: run sbx as root, or in a delegated scope ('systemd-run "
		       "--user --scope -p Delegate=yes sbx run ...'); until then a profile with "
		       "those limits is refused (or warned with --best-effort); pids still holds "
		       "in the namespaces backend (RLIMIT_NPROC in the sandbox's user namespace)\n",
		       "");
	}
	printf("%-4s %-16s nofile, fsize (rlimits), timeout (sbx's timer), tmpfs sizes: always\n",
	       "ok", "limits");
}
