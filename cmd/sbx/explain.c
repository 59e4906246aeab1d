/* SPDX-License-Identifier: MIT */
/*
 * sbx explain [LOG]: why was this denied? The last denials of an audit log (sbx(1), AUDIT LOG),
 * each with the rule that decided it, who decided, and the narrowest profile change that would
 * have allowed it (sbx_explain_fix, core). Only the log's last SBX_EXPLAIN_TAIL bytes are read,
 * so that a log of any size answers at once; every string printed is escaped (a path in the
 * log is the worker's choice).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/audit.h"
#include "sbx/cleanup.h"
#include "sbx/explain.h"
#include "sbx/spec.h"

#define SBX_EXPLAIN_TAIL   (1u << 20) /* bytes of the log read: its end */
#define SBX_EXPLAIN_N_MAX  10000u
#define SBX_EXPLAIN_N_DEF  20u
#define SBX_EXPLAIN_ID_MAX 256u /* sandboxes remembered from start records */

static const char sbx_explain_usage[] =
    "Usage: sbx explain [-n N] [-p PROFILE] [LOG]\n"
    "\n"
    "List the last denials in an audit log (sbx run --audit-log, profile key audit:), each\n"
    "with the operation, the path, the command, the rule that decided, who decided (policy,\n"
    "broker, person, timeout, rate_limit, no_broker, grant), and the narrowest profile\n"
    "change that would allow it. The last 1 MiB of the log is read.\n"
    "\n"
    "  -n, --count N          the last N denials (default 20)\n"
    "  -p, --profile NAME|FILE\n"
    "                         the log named by the profile's audit: key\n"
    "  -h, --help             show this help\n"
    "\n"
    "LOG defaults to the profile's audit: (with -p), else $SBX_AUDIT_LOG.\n"
    "See sbx(1), AUDIT LOG.\n";

static const struct option explain_options[] = {
    {"count", required_argument, NULL, 'n'},
    {"profile", required_argument, NULL, 'p'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* What a start record said about its sandbox: the command, for the denials that follow. */
struct started {
	char id[SBX_SANDBOX_ID_LEN + 1];
	char *argv;
};

struct denial {
	char *time, *sandbox, *label, *pid, *comm, *op, *call, *path, *path2, *rule, *decider,
	    *error;
	unsigned long long repeated; /* a folded record: it stands for this many */
};

static void denial_clear(struct denial *d)
{
	free(d->time);
	free(d->sandbox);
	free(d->label);
	free(d->pid);
	free(d->comm);
	free(d->op);
	free(d->call);
	free(d->path);
	free(d->path2);
	free(d->rule);
	free(d->decider);
	free(d->error);
	memset(d, 0, sizeof(*d));
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static const char * or (const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* The log's last SBX_EXPLAIN_TAIL bytes, from the first whole line in them. */
static int read_tail(const char *path, char **out, size_t *len, bool *cut, struct sbx_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	off_t from;
	size_t want, got = 0;
	char *buf;
	int r;

	if (fd < 0 || fstat(fd, &st) < 0) {
		r = sbx_error_set(err, SBX_ERR_USAGE, errno, "cannot read the audit log %s: %s",
		                  path, strerror(errno));
		sbx_error_hint(err, "name the file given to sbx run --audit-log (or audit: in the "
		                    "profile)");
		return r;
	}
	if (!S_ISREG(st.st_mode))
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "the audit log %s is not a regular file", path);
	from = st.st_size > (off_t)SBX_EXPLAIN_TAIL ? st.st_size - (off_t)SBX_EXPLAIN_TAIL : 0;
	want = (size_t)(st.st_size - from);
	buf = malloc(want + 1);
	if (!buf)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	while (got < want) {
		ssize_t n = pread(fd, buf + got, want - got, from + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*cut = from > 0;
	if (*cut) {
		/* the first line is most likely a record's tail: start after it */
		char *nl = memchr(buf, '\n', got);
		size_t skip = nl ? (size_t)(nl - buf) + 1 : got;

		memmove(buf, buf + skip, got - skip + 1);
		got -= skip;
	}
	*out = buf;
	*len = got;
	return 0;
}

static const char *command_of(const struct started *s, size_t n, const char *sandbox)
{
	for (size_t i = n; sandbox && i-- > 0;)
		if (strcmp(s[i].id, sandbox) == 0)
			return s[i].argv;
	return NULL;
}

static void print_denial(FILE *f, const struct denial *d, const struct started *s, size_t n_s)
{
	const char *cmd = command_of(s, n_s, d->sandbox);
	char fix[2048];

	sbx_explain_fix(d->rule, d->decider, d->path, fix, sizeof(fix));
	fprintf(f, "%s  %s %s", sbx_cli_esc(or (d->time, "?")), sbx_cli_esc(or (d->op, "?")),
	        sbx_cli_esc(or (d->path, "?")));
	if (d->path2)
		fprintf(f, " -> %s", sbx_cli_esc(d->path2));
	fprintf(f, " (%s): %s\n", sbx_cli_esc(or (d->call, "?")),
	        sbx_cli_esc(or (d->error, "denied")));
	fprintf(f, "  by:         %s[%s]", sbx_cli_esc(or (d->comm, "?")),
	        sbx_cli_esc(or (d->pid, "?")));
	if (d->sandbox)
		fprintf(f, " in sandbox %.8s", sbx_cli_esc(d->sandbox));
	if (d->label)
		fprintf(f, " (label %s)", sbx_cli_esc(d->label));
	if (cmd)
		fprintf(f, ", started as: %s", sbx_cli_esc(cmd));
	fprintf(f, "\n  rule:       %s\n", sbx_cli_esc(or (d->rule, "(none recorded)")));
	fprintf(f, "  decided by: %s\n", sbx_cli_esc(or (d->decider, "?")));
	if (d->repeated)
		fprintf(f, "  repeated:   %llu like it (this is the last of them)\n", d->repeated);
	fprintf(f, "  to allow:   %s\n", sbx_cli_esc(fix));
}

static int log_from_profile(const char *name, char **out, struct sbx_error *err)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	char cwd[4096];
	int r;

	if (!spec)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	if (!getcwd(cwd, sizeof(cwd)))
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "getcwd: %s", strerror(errno));
	r = sbx_cli_load_profile(name, cwd, spec, &p, err);
	sbx_profile_free(p);
	if (r < 0)
		return r;
	if (!spec->audit_log) {
		r = sbx_error_set(err, SBX_ERR_USAGE, ENOENT, "the profile %s has no audit: key",
		                  name);
		sbx_error_hint(err, "name the log: sbx explain FILE");
		return r;
	}
	*out = TAKE_PTR(spec->audit_log);
	return 0;
}

int sbx_cmd_explain(int argc, char **argv)
{
	struct sbx_error err = {0};
	_cleanup_free_ char *text = NULL, *from_profile = NULL;
	_cleanup_free_ struct sbx_jsonl *j = malloc(sizeof(*j));
	struct denial *ring = NULL;
	struct started started[SBX_EXPLAIN_ID_MAX];
	size_t n_started = 0, started_at = 0, len = 0, n_ring = 0, head = 0, records = 0, bad = 0,
	       denials = 0;
	unsigned long long suppressed = 0;
	unsigned long count = SBX_EXPLAIN_N_DEF;
	const char *log, *profile = NULL;
	bool cut = false;
	int c, r, status = 125;

	memset(started, 0, sizeof(started));
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:n:p:h", explain_options, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'n':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || count == 0 || count > SBX_EXPLAIN_N_MAX) {
				r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
				                  "-n '%s': a count from 1 to %u is needed", optarg,
				                  SBX_EXPLAIN_N_MAX);
				goto fail;
			}
			break;
		case 'p':
			profile = optarg;
			break;
		case 'h':
			fputs(sbx_explain_usage, stdout);
			return 0;
		default:
			r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
			                  c == ':' ? "option '%s' needs a value"
			                           : "unknown option '%s' for sbx explain",
			                  argv[optind - 1] ? argv[optind - 1] : "?");
			sbx_error_hint(&err, "see 'sbx explain --help'");
			goto fail;
		}
	}
	if (argc - optind > 1) {
		r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL, "sbx explain reads one log");
		sbx_error_hint(&err, "see 'sbx explain --help'");
		goto fail;
	}
	if (argc - optind == 1) {
		log = argv[optind];
	} else if (profile) {
		r = log_from_profile(profile, &from_profile, &err);
		if (r < 0)
			goto fail;
		log = from_profile;
	} else {
		log = getenv("SBX_AUDIT_LOG");
		if (!log || !*log) {
			r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
			                  "sbx explain needs an audit log to read");
			sbx_error_hint(&err, "name it (sbx explain FILE), take a profile's audit: "
			                     "(-p PROFILE), or set SBX_AUDIT_LOG");
			goto fail;
		}
	}
	if (!j) {
		r = sbx_error_set(&err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		goto fail;
	}
	r = read_tail(log, &text, &len, &cut, &err);
	if (r < 0)
		goto fail;
	ring = calloc(count, sizeof(*ring));
	if (!ring) {
		r = sbx_error_set(&err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		goto fail;
	}
	for (char *line = text, *next; line < text + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		const char *type, *answer;
		size_t n = nl ? (size_t)(nl - line) : (size_t)(text + len - line);

		next = line + n + 1;
		if (n == 0)
			continue;
		if (sbx_jsonl_parse(line, n, j) < 0 || !(type = sbx_jsonl_get(j, "type"))) {
			bad++;
			continue;
		}
		records++;
		if (strcmp(type, "start") == 0) {
			const char *id = sbx_jsonl_get(j, "sandbox");
			struct started *s = &started[started_at];

			if (!id || strlen(id) != SBX_SANDBOX_ID_LEN)
				continue;
			free(s->argv);
			memcpy(s->id, id, SBX_SANDBOX_ID_LEN + 1);
			s->argv = dup_or_null(sbx_jsonl_get(j, "argv"));
			started_at = (started_at + 1) % SBX_EXPLAIN_ID_MAX;
			if (n_started < SBX_EXPLAIN_ID_MAX)
				n_started++;
			continue;
		}
		if (strcmp(type, "suppressed") == 0) {
			const char *n_dropped = sbx_jsonl_get(j, "count");

			if (n_dropped)
				suppressed += strtoull(n_dropped, NULL, 10);
			continue;
		}
		answer = sbx_jsonl_get(j, "answer");
		if (strcmp(type, "decision") != 0 || !answer || strcmp(answer, "deny") != 0)
			continue;
		{
			struct denial *d = &ring[head];

			denial_clear(d);
			d->time = dup_or_null(sbx_jsonl_get(j, "time"));
			d->sandbox = dup_or_null(sbx_jsonl_get(j, "sandbox"));
			d->label = dup_or_null(sbx_jsonl_get(j, "label"));
			d->pid = dup_or_null(sbx_jsonl_get(j, "pid"));
			d->comm = dup_or_null(sbx_jsonl_get(j, "comm"));
			d->op = dup_or_null(sbx_jsonl_get(j, "op"));
			d->call = dup_or_null(sbx_jsonl_get(j, "call"));
			d->path =
			    dup_or_null(sbx_jsonl_get(j, "resolved") ? sbx_jsonl_get(j, "resolved")
			                                             : sbx_jsonl_get(j, "path"));
			d->path2 = dup_or_null(sbx_jsonl_get(j, "path2"));
			d->rule = dup_or_null(sbx_jsonl_get(j, "rule"));
			d->decider = dup_or_null(sbx_jsonl_get(j, "decider"));
			d->error = dup_or_null(sbx_jsonl_get(j, "error"));
			d->repeated = sbx_jsonl_get(j, "repeated")
			                  ? strtoull(sbx_jsonl_get(j, "repeated"), NULL, 10)
			                  : 0;
			head = (head + 1) % count;
			if (n_ring < count)
				n_ring++;
			denials++;
		}
	}
	/* (head - n_ring) is the oldest kept: print oldest first, the latest last */
	for (size_t i = 0; i < n_ring; i++) {
		if (i)
			fputc('\n', stdout);
		print_denial(stdout, &ring[(head + count - n_ring + i) % count], started,
		             n_started);
	}
	fprintf(stdout, "%s%zu denial%s shown of %zu in %zu record%s of %s%s", n_ring ? "\n" : "",
	        n_ring, n_ring == 1 ? "" : "s", denials, records, records == 1 ? "" : "s",
	        cut ? "the last 1 MiB of " : "", sbx_cli_esc(log));
	if (bad)
		fprintf(stdout, "; %zu malformed line%s skipped", bad, bad == 1 ? "" : "s");
	if (suppressed)
		fprintf(stdout, "; %llu decisions not recorded (more than %u records a second)",
		        suppressed, SBX_AUDIT_RATE_MAX);
	fputc('\n', stdout);
	status = fflush(stdout) == 0 ? 0 : 125;
	goto out;
fail:
	sbx_cli_report(stderr, &err);
	status = sbx_error_exit_code(&err);
out:
	for (size_t i = 0; ring && i < count; i++)
		denial_clear(&ring[i]);
	free(ring);
	for (size_t i = 0; i < SBX_EXPLAIN_ID_MAX; i++)
		free(started[i].argv);
	return status;
}
