/* SPDX-License-Identifier: MIT */
/*
 * What the supervisor works with, around a launch: the audit log (sbx(1), AUDIT LOG) — the
 * sandbox's id in its effective spec, the start record before the launch, the end record
 * after it; the decisions between are the supervisor's (src/os/supervisor.c writes them with
 * sbx_audit_write) — and the broker that answers its questions (sbx(1), APPROVALS).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/audit.h"
#include "sbx/cleanup.h"
#include "sbx/nest.h"
#include "sbx/path.h"
#include "os/audit.h"
#include "os/broker.h"

static uint64_t clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Where the sandbox shows the host file `path`: its sandbox path in `inside` and whether that
 * mount is writable (a writable one found first wins), as the plan resolves it (the mount
 * that decides its sandbox path, as sbx resolve finds it). False where no mount shows it.
 * Landlock may still deny access; the warnings err on the side of saying. */
static bool shown_inside(const struct sbx_plan *plan, const char *path, char *inside, size_t size,
                         bool *writable)
{
	_cleanup_free_ char *real = realpath(path, NULL);
	bool found = false;

	*writable = false;
	for (size_t i = 0; real && i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];
		char in[SBX_PATH_MAX], host[SBX_PATH_MAX];
		size_t at, n;
		bool w;

		if ((o->kind != SBX_PLAN_BIND && o->kind != SBX_PLAN_MIRROR) || !o->source ||
		    !sbx_path_covers(o->source, real))
			continue;
		n = strlen(o->source);
		if (snprintf(in, sizeof(in), "%s%s",
		             strcmp(o->target, "/") == 0 && real[n] ? "" : o->target,
		             strcmp(o->source, "/") == 0 ? real : real + n) >= (int)sizeof(in))
			continue;
		if (sbx_plan_resolve(plan, in, &at, host, sizeof(host), NULL) < 0 ||
		    at >= plan->n_ops ||
		    (plan->ops[at].kind != SBX_PLAN_BIND &&
		     plan->ops[at].kind != SBX_PLAN_MIRROR) ||
		    strcmp(host, real) != 0)
			continue;
		w = !(plan->ops[at].flags & SBX_PLAN_F_READONLY);
		if (!found || (w && !*writable)) {
			snprintf(inside, size, "%s", in);
			*writable = w;
		}
		found = true;
		if (w)
			break;
	}
	return found;
}

/* A log the worker can write is a log it can rewrite; a log it can read shows it other runs'
 * records (their command lines, labels): say so where a mount of the plan shows the log. */
static void warn_if_shown(const struct sbx_plan *plan, const char *log)
{
	char inside[SBX_PATH_MAX];
	bool writable;

	/* sbx's own standard descriptors are the worker's where it has no pty (--no-tty, output
	 * redirected): a log that is one of them takes the worker's lines between sbx's
	 * records (an outside attack wrote a forged end record so) */
	{
		struct stat lg, fd;

		if (stat(log, &lg) == 0)
			for (int i = 0; i < 3; i++)
				if (fstat(i, &fd) == 0 && fd.st_dev == lg.st_dev &&
				    fd.st_ino == lg.st_ino) {
					fprintf(
					    stderr,
					    "sbx: warning: the audit log %s is sbx's standard %s, "
					    "which the worker may write: it can put lines of its "
					    "own between the records; name another file\n",
					    sbx_cli_esc(log),
					    i == 0   ? "input"
					    : i == 1 ? "output"
					             : "error");
					break;
				}
	}
	if (!shown_inside(plan, log, inside, sizeof(inside), &writable))
		return;
	if (writable)
		fprintf(stderr,
		        "sbx: warning: the audit log %s is writable inside the sandbox (at %s): "
		        "the worker can change what it records; keep the log outside the "
		        "sandbox's writable mounts\n",
		        sbx_cli_esc(log), sbx_cli_esc(inside));
	else
		fprintf(stderr,
		        "sbx: warning: the audit log %s is readable inside the sandbox (at %s): "
		        "the worker can read every run's records in it (command lines, labels); "
		        "keep the log outside the sandbox's mounts\n",
		        sbx_cli_esc(log), sbx_cli_esc(inside));
}

int sbx_cli_audit_begin(struct sbx_plan *plan, const struct sbx_nest *parent, char *const *argv,
                        struct sbx_cli_audit *out, struct sbx_error *err)
{
	_cleanup_nest_ struct sbx_nest *eff = NULL;
	const char *parent_id = parent && parent->sandbox_id[0] ? parent->sandbox_id : NULL;
	char digest[65], record[SBX_AUDIT_LINE_MAX];
	struct sbx_audit_ids ids;
	int r;

	/* A fallback to the landlock backend finishes a new plan: it gets the same id, and the
	 * log opened for the first one goes on. */
	if (!out->id[0]) {
		r = sbx_audit_new_id(out->id);
		if (r < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, -r,
			                     "cannot make the sandbox's id: getrandom: %s",
			                     strerror(-r));
	}
	/* The digest is of the spec as the profile and flags made it, before the id goes in:
	 * the same spec gives the same digest in every run. */
	if (plan->spec_blob)
		sbx_sha256_hex(plan->spec_blob, plan->spec_len, digest);
	else
		digest[0] = '\0';
	snprintf(out->digest, sizeof(out->digest), "%s", digest);
	r = plan->spec_blob ? sbx_nest_blob_set_id(&plan->spec_blob, &plan->spec_len, out->id, err)
	                    : 0;
	if (r < 0 || !plan->sup.audit_log || out->log)
		return r;

	r = plan->spec_blob ? sbx_nest_decode(plan->spec_blob, plan->spec_len, &eff, err) : 0;
	if (r < 0)
		return r;
	ids = (struct sbx_audit_ids){
	    .sandbox = out->id, .parent = parent_id, .label = plan->sup.label};
	out->start_ms = clock_ms(CLOCK_REALTIME);
	out->start_mono = clock_ms(CLOCK_MONOTONIC);
	r = sbx_audit_open(plan->sup.audit_log, &ids, out->start_ms, &out->log, err);
	if (r < 0)
		return r;
	warn_if_shown(plan, plan->sup.audit_log);
	{
		struct sbx_audit_start s = {
		    .time_ms = out->start_ms,
		    .version = SBX_VERSION,
		    .profile = plan->profile,
		    .digest = digest,
		    .argv = argv,
		    .uid = (unsigned)getuid(),
		    .pid = (int)getpid(),
		    .depth = eff ? eff->depth : 1,
		    .backend = plan->backend_landlock ? "landlock" : "namespaces",
		    .supervised = plan->sup.enabled,
		};

		sbx_audit_fmt_start(record, sizeof(record), sbx_audit_ids(out->log), &s);
	}
	r = sbx_audit_write(out->log, record);
	if (r < 0) {
		sbx_audit_finish(out->log, NULL);
		out->log = NULL;
		r = sbx_error_set(err, SBX_ERR_SETUP, -r,
		                  "--audit-log %s: cannot write the start record: %s",
		                  plan->sup.audit_log, strerror(-r));
		sbx_error_hint(err, "the run is refused rather than left out of the log; free "
		                    "space or choose another file");
		return r;
	}
	return 0;
}

void sbx_cli_audit_end(struct sbx_cli_audit *a, int launched, int status,
                       const struct sbx_cli_audit_counts *counts)
{
	struct sbx_audit_end end = {.status = status};
	struct rusage ru;

	if (!a->log)
		return;
	end.time_ms = clock_ms(CLOCK_REALTIME);
	end.duration_ms = clock_ms(CLOCK_MONOTONIC) - a->start_mono;
	/* The worker's status comes back as a shell gives it: 128+N for signal N (a worker
	 * that exits 128+N itself reads the same, as it does for sbx's own exit status). */
	if (launched >= 0 && status > 128 && status < 128 + 65) {
		end.status = -1;
		end.signal = status - 128;
	}
	/* The largest resident set of sbx's reaped children: the sandbox (its init, or the
	 * landlock backend's worker, counts its own children in) */
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0 && ru.ru_maxrss > 0)
		end.peak_rss_kb = (uint64_t)ru.ru_maxrss;
	if (counts) {
		end.asked = counts->asked;
		end.allowed = counts->allowed;
		end.denied = counts->denied;
		end.killed = counts->killed;
	}
	sbx_audit_finish(a->log, &end);
	a->log = NULL;
}

/* Does any area of the plan ask? */
static bool plan_asks(const struct sbx_plan *plan)
{
	for (size_t i = 0; plan->sup.enabled && i < plan->sup.n_areas; i++)
		for (int c = 0; c < SBX_AC_COUNT; c++)
			if (plan->sup.areas[i].approvals.op[c] == SBX_APPROVE_ASK)
				return true;
	return false;
}

int sbx_cli_broker_open(const struct sbx_plan *plan, struct sbx_broker **out, struct sbx_error *err)
{
	const char *spec = plan->sup.approve;
	char inside[SBX_PATH_MAX];
	bool writable;
	int r;

	*out = NULL;
	if (!plan_asks(plan))
		return 0;
	r = sbx_broker_open(spec, out, err);
	/* a broker's socket the worker can reach is a broker the worker can send requests to,
	 * and answers it can take */
	if (r >= 0 && spec && strncmp(spec, "socket:", 7) == 0 &&
	    shown_inside(plan, spec + 7, inside, sizeof(inside), &writable))
		fprintf(stderr,
		        "sbx: warning: the broker's socket %s is reachable inside the sandbox (at "
		        "%s): the worker can connect to it and send requests of its own; keep the "
		        "socket outside the sandbox's mounts\n",
		        sbx_cli_esc(spec + 7), sbx_cli_esc(inside));
	return r;
}
