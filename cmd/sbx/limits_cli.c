/* SPDX-License-Identifier: MIT */
/*
 * Limits on the command line (include/sbx/limits.h, src/os/cgroup.h): the sandbox's cgroup made
 * or refused before the launch, the lines after it (killed by the memory limit, the timeout),
 * and what --dry-run and `sbx doctor` say about them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "os/cgroup.h"
#include "os/launch.h"

/* The cgroup limits this launch must hold itself, less what an rlimit holds as well: pids in a
 * user namespace of its own is RLIMIT_NPROC's (src/os/limits.c). */
static unsigned cgroup_wanted(const struct sbx_plan *plan, unsigned *rlimit_ok)
{
	unsigned want = plan->resources_own & SBX_LIMITS_CGROUP;

	*rlimit_ok = plan->map_count ? SBX_LIMIT_BIT(SBX_LIMIT_PIDS) : 0;
	return want;
}

int sbx_cli_limits_begin(const struct sbx_cli_run *run, const struct sbx_plan *plan, const char *id,
                         struct sbx_cli_limits *out, struct sbx_error *err)
{
	unsigned rlimit_ok, want = cgroup_wanted(plan, &rlimit_ok), got = 0;
	int r = 0;

	sbx_cli_limits_end(out, 0); /* a second launch (the landlock fallback) starts afresh */
	memset(out, 0, sizeof(*out));
	if (plan->resources_own & SBX_LIMIT_BIT(SBX_LIMIT_TIMEOUT))
		out->launch.timeout_ms = plan->resources.v[SBX_LIMIT_TIMEOUT];
	/* The landlock backend has no pid namespace: a cgroup ends all it started, wherever
	 * sbx can have one, limits or not (nothing is refused for want of it). */
	if (want || plan->backend_landlock) {
		struct sbx_error why = {0};

		r = sbx_cgroup_create(want, &plan->resources, id, &out->cg, &got, &why);
		if (r < 0 && !want) {
			r = 0; /* no limit asked: only the end path goes without */
		} else if (r < 0 && !(want & ~got & ~rlimit_ok)) {
			r = 0; /* what is missing an rlimit holds */
		} else if (r < 0 && why.kind == SBX_ERR_UNSUPPORTED && run->spec->best_effort) {
			fprintf(stderr, "sbx: warning: %s; running without it (--best-effort)\n",
			        sbx_cli_esc(why.msg));
			r = 0;
		} else if (r < 0) {
			if (err)
				*err = why;
			return r;
		}
		out->memory = plan->resources.v[SBX_LIMIT_MEMORY];
	}
	out->launch.cg = out->cg;
	sbx_launch_set_limits(&out->launch);
	return 0;
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
	char v[32];
	bool any = false;

	if (json) {
		fputs(",\"resources\":{", f);
		for (int l = 0; l < SBX_LIMIT_COUNT; l++) {
			if (!(lim->set & SBX_LIMIT_BIT(l)))
				continue;
			fprintf(f, "%s\"%s\":{\"value\":%llu,\"text\":\"%s\",\"own\":%s}",
			        any ? "," : "", sbx_limit_table[l].name,
			        (unsigned long long)lim->v[l],
			        sbx_limit_format(l, lim->v[l], v, sizeof(v)),
			        plan->resources_own & SBX_LIMIT_BIT(l) ? "true" : "false");
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
		fprintf(f, "%s %s %s%s", any ? "," : "", sbx_limit_table[l].name,
		        sbx_limit_format(l, lim->v[l], v, sizeof(v)),
		        plan->resources_own & SBX_LIMIT_BIT(l) ? ""
		        : (SBX_LIMITS_CGROUP | SBX_LIMIT_BIT(SBX_LIMIT_TIMEOUT)) & SBX_LIMIT_BIT(l)
		            ? " (the parent's, held by it)"
		            : " (the parent's)");
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
