/* SPDX-License-Identifier: MIT */
/*
 * The sandboxes a caller can see (sbx(1), SANDBOXES YOU CAN SEE): the record `sbx run` keeps
 * in the caller's runtime directory while its sandbox runs, and sbx ps, sbx inspect and
 * sbx kill, which read those records and never trust them (os/registry.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/nest.h"
#include "sbx/policy.h"
#include "sbx/registry.h"
#include "os/launch.h"
#include "os/registry.h"

extern char **environ;

#define FLEET_JSON_VERSION 1 /* sbx-json(7): "version" of ps and inspect */

/* ---- the record of a running sandbox, kept by sbx run ---- */

/* A record that cannot be written for want of room (a full or read-only file system, a
 * quota) leaves the sandbox unlisted without a word, as the glob cache is skipped: the
 * launch is not the place to report the disk. A directory that fails its checks (someone
 * else's, a symlink, group-writable) is said, each time. */
static void unlisted(const struct sbx_error *err)
{
	if (err->errnum == ENOSPC || err->errnum == EDQUOT || err->errnum == EROFS)
		return;
	fprintf(stderr, "sbx: note: this sandbox is not listed by sbx ps: %s%s%s\n",
	        sbx_cli_esc(err->msg), err->hint[0] ? "; " : "", sbx_cli_esc(err->hint));
}

static void on_start(pid_t child, void *arg)
{
	struct sbx_cli_fleet *f = arg;
	struct sbx_proc_facts facts;
	struct sbx_error err = {0};
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (f->dirfd < 0 || !f->rec)
		return;
	f->rec->pid = child;
	if (sbx_registry_proc(child, &facts) < 0) {
		/* already gone: nothing to list */
		sbx_cli_fleet_end(f);
		return;
	}
	f->rec->pid_start = facts.start;
	if (sbx_reg_format(f->rec, &text, &len, &err) < 0 ||
	    sbx_registry_put(f->dirfd, f->rec->id, text, len, &err) < 0) {
		sbx_error_wrap(&err, "%s", f->path);
		unlisted(&err);
		return;
	}
	f->written = true;
}

void sbx_cli_fleet_begin(const struct sbx_plan *plan, const struct sbx_nest *parent,
                         char *const *argv, const struct sbx_cli_audit *audit,
                         struct sbx_cli_fleet *f)
{
	_cleanup_nest_ struct sbx_nest *eff = NULL;
	struct sbx_error err = {0};
	struct sbx_reg *rec;
	struct timespec ts;
	size_t n = 0;

	sbx_launch_on_start(NULL, NULL);
	/* A nested sbx can write nothing of the host's: its runtime directory is hidden. The
	 * outermost sandbox's record stands for everything inside it. */
	if (parent || !sbx_reg_id_valid(audit->id))
		return;
	if (f->dirfd < 0 &&
	    sbx_registry_open_own(environ, true, &f->dirfd, f->path, sizeof(f->path), &err) < 0) {
		unlisted(&err);
		return;
	}
	/* a second launch (the landlock fallback) writes a new record in place of the first */
	if (f->rec) {
		sbx_reg_clear(f->rec);
	} else {
		f->rec = calloc(1, sizeof(*f->rec));
		if (!f->rec)
			return;
	}
	rec = f->rec;
	snprintf(rec->id, sizeof(rec->id), "%s", audit->id);
	if (strlen(audit->digest) == SBX_REG_DIGEST_LEN)
		snprintf(rec->digest, sizeof(rec->digest), "%s", audit->digest);
	rec->sbx_pid = getpid();
	if (sbx_registry_self_start(&rec->sbx_start) < 0)
		return;
	rec->uid = getuid();
	clock_gettime(CLOCK_REALTIME, &ts);
	rec->start_ms = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	rec->depth = 1;
	if (plan->spec_blob && sbx_nest_decode(plan->spec_blob, plan->spec_len, &eff, NULL) >= 0)
		rec->depth = eff->depth ? eff->depth : 1;
	rec->backend = plan->backend_landlock ? SBX_BACKEND_LANDLOCK : SBX_BACKEND_NAMESPACES;
	rec->profile = strdup(plan->profile ? plan->profile : "");
	while (argv && argv[n])
		n++;
	rec->argv = calloc(n ? n : 1, sizeof(*rec->argv));
	for (size_t i = 0; rec->argv && i < n; i++)
		if ((rec->argv[i] = strdup(argv[i])))
			rec->n_argv++;
	if (plan->spec_blob && plan->spec_len <= SBX_REG_SPEC_MAX &&
	    (rec->spec = malloc(plan->spec_len))) {
		memcpy(rec->spec, plan->spec_blob, plan->spec_len);
		rec->spec_len = plan->spec_len;
	}
	if (!rec->profile || !rec->argv)
		return;
	sbx_launch_on_start(on_start, f);
}

void sbx_cli_fleet_end(struct sbx_cli_fleet *f)
{
	if (!f->rec && f->dirfd < 0)
		return;
	sbx_launch_on_start(NULL, NULL);
	if (f->written && f->rec)
		sbx_registry_remove(f->dirfd, f->rec->id);
	f->written = false;
	if (f->rec) {
		sbx_reg_clear(f->rec);
		free(f->rec);
		f->rec = NULL;
	}
	if (f->dirfd >= 0)
		close(f->dirfd);
	f->dirfd = -1;
}

/* ---- sbx ps, inspect, kill ---- */

static const char ps_usage[] =
    "Usage: sbx ps [--json]\n"
    "\n"
    "The running sandboxes of the caller (root: of every user), from the records sbx run\n"
    "keeps in the runtime directory ($XDG_RUNTIME_DIR/sbx, /run/sbx for root, else\n"
    "/run/user/UID/sbx or ~/.cache/sbx/run-BOOT). Records of sandboxes that died without\n"
    "cleaning\n"
    "are removed. A nested sandbox has no record of its own: it runs inside the top-level\n"
    "sandbox listed here, and ends with it.\n"
    "\n"
    "      --json   one JSON object (sbx-json(7))\n"
    "  -h, --help   show this help\n";

static const char inspect_usage[] =
    "Usage: sbx inspect [--json] ID\n"
    "\n"
    "One running sandbox: its record and its effective spec (mounts and rights), as sbx\n"
    "status prints it inside. ID is a sandbox id from sbx ps, or a unique prefix of one.\n"
    "\n"
    "      --json   one JSON object (sbx-json(7))\n"
    "  -h, --help   show this help\n";

static const char kill_usage[] =
    "Usage: sbx kill [--signal SIG] ID\n"
    "\n"
    "Signal a running sandbox: sbx's child, that is the sandbox's init under the namespaces\n"
    "backend (SIGKILL ends its whole pid namespace; another signal is passed on to the\n"
    "worker, whose end ends the sandbox), the worker under the landlock backend. sbx checks\n"
    "first that the pid is still that sandbox's (its start time and parent), so that a stale\n"
    "or planted record cannot aim the signal at another process.\n"
    "\n"
    "  -s, --signal SIG  TERM (the default), KILL, INT, HUP, QUIT, USR1, USR2 or a number\n"
    "  -h, --help        show this help\n";

struct fleet_opts {
	bool json, help;
	int sig;
	const char *id;
};

static int parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {{"TERM", SIGTERM}, {"KILL", SIGKILL}, {"INT", SIGINT},
	             {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},
	             {"USR2", SIGUSR2}, {"CONT", SIGCONT}, {"STOP", SIGSTOP}};
	char *end;
	long n;

	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(s, names[i].name) == 0)
			return names[i].sig;
	errno = 0;
	n = strtol(s, &end, 10);
	if (!*s || *end || errno || n < 1 || n >= NSIG)
		return -1;
	return (int)n;
}

static int parse_fleet(int argc, char **argv, bool want_id, bool want_sig, struct fleet_opts *o)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"signal", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->sig = SIGTERM;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:s:h", opts, NULL)) != -1) {
		if (c == 'h') {
			o->help = true;
		} else if (c == 'j' && !want_sig) {
			o->json = true;
		} else if (c == 's' && want_sig) {
			o->sig = parse_signal(optarg);
			if (o->sig < 0) {
				fprintf(
				    stderr,
				    "sbx: unknown signal '%s' for sbx kill; the signals are TERM, "
				    "KILL, INT, HUP, QUIT, USR1, USR2, CONT, STOP or a number "
				    "below %d\n",
				    sbx_cli_esc(optarg), NSIG);
				return -1;
			}
		} else {
			fprintf(stderr, "sbx: %s '%s' for sbx %s; see 'sbx %s --help'\n",
			        c == ':' ? "option needs a value:" : "unknown option",
			        sbx_cli_esc(argv[optind - 1]), argv[0], argv[0]);
			return -1;
		}
	}
	if (o->help)
		return 0;
	if (want_id && optind + 1 == argc) {
		o->id = argv[optind];
		return 0;
	}
	if (!want_id && optind == argc)
		return 0;
	fprintf(stderr, "sbx: sbx %s %s; see 'sbx %s --help'\n", argv[0],
	        want_id ? "takes one sandbox id (see sbx ps)" : "takes no arguments", argv[0]);
	return -1;
}

static void iso_time(uint64_t ms, char *buf, size_t size, bool utc)
{
	time_t t = (time_t)(ms / 1000u);
	struct tm tm;

	if (utc) {
		gmtime_r(&t, &tm);
		snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900,
		         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		         (unsigned)(ms % 1000u));
	} else {
		localtime_r(&t, &tm);
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	}
}

static const char *backend_word(unsigned b)
{
	return b == SBX_BACKEND_LANDLOCK ? "landlock" : "namespaces";
}

/* The record's members (no braces), as sbx-json(7) describes a sandbox. */
static void json_record(FILE *f, const struct sbx_registry_entry *e)
{
	const struct sbx_reg *r = &e->rec;
	char when[64];

	iso_time(r->start_ms, when, sizeof(when), true);
	fprintf(f, "\"id\":\"%s\",\"pid\":%lld,\"sbx_pid\":%lld,\"uid\":%u,\"profile\":", r->id,
	        (long long)r->pid, (long long)r->sbx_pid, (unsigned)e->owner);
	sbx_json_string(f, r->profile);
	fprintf(f, ",\"backend\":\"%s\",\"command\":[", backend_word(r->backend));
	for (size_t i = 0; i < r->n_argv; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, r->argv[i]);
	}
	fprintf(f, "],\"command_cut\":%s,\"started\":\"%s\",\"started_ms\":%llu,\"depth\":%llu,",
	        r->argv_cut ? "true" : "false", when, (unsigned long long)r->start_ms,
	        (unsigned long long)r->depth);
	if (r->parent[0])
		fprintf(f, "\"parent\":\"%s\",", r->parent);
	else
		fputs("\"parent\":null,", f);
	if (r->digest[0])
		fprintf(f, "\"digest\":\"%s\"", r->digest);
	else
		fputs("\"digest\":null", f);
}

static void print_command(FILE *f, const struct sbx_reg *r, size_t max)
{
	size_t used = 0;

	for (size_t i = 0; i < r->n_argv && used < max; i++) {
		const char *a = sbx_cli_esc(r->argv[i]);

		used += (size_t)fprintf(f, "%s%s", i ? " " : "", a);
	}
	if (r->argv_cut)
		fputs(" ...", f);
}

/* Inside a sandbox the host's records are hidden: say so rather than list nothing. */
static bool nested_note(const char *cmd)
{
	const char *sbx = getenv("SBX");

	if (!getenv(SBX_SPEC_FD_ENV) && !(sbx && strcmp(sbx, "1") == 0))
		return false;
	fprintf(stderr,
	        "sbx: note: sbx %s inside a sandbox sees no sandbox: the host's runtime "
	        "directory is hidden from every sandbox, and a nested sandbox has no record of "
	        "its own (run sbx %s on the host: the top-level sandbox stands for those inside "
	        "it)\n",
	        cmd, cmd);
	return true;
}

int sbx_cmd_ps(int argc, char **argv)
{
	struct sbx_registry_list l;
	struct sbx_error err = {0};
	struct fleet_opts o;

	if (parse_fleet(argc, argv, false, false, &o) < 0)
		return 125;
	if (o.help) {
		fputs(ps_usage, stdout);
		return 0;
	}
	if (nested_note("ps")) {
		if (o.json)
			printf("{\"version\":%d,\"sandboxes\":[],\"skipped\":0,\"swept\":0}\n",
			       FLEET_JSON_VERSION);
		return fflush(stdout) == 0 ? 0 : 125;
	}
	if (sbx_registry_list(environ, geteuid() == 0, &l, &err) < 0) {
		sbx_cli_report(stderr, &err);
		return sbx_error_exit_code(&err);
	}
	if (o.json) {
		printf("{\"version\":%d,\"sandboxes\":[", FLEET_JSON_VERSION);
		for (size_t i = 0; i < l.n; i++) {
			fputs(i ? ",{" : "{", stdout);
			json_record(stdout, &l.items[i]);
			fputc('}', stdout);
		}
		printf("],\"skipped\":%zu,\"swept\":%zu}\n", l.skipped, l.swept);
	} else {
		printf("%-12s %-7s %-6s %-10s %-5s %-16s %-19s %-12s %s\n", "ID", "PID", "UID",
		       "BACKEND", "DEPTH", "PROFILE", "STARTED", "DIGEST", "COMMAND");
		for (size_t i = 0; i < l.n; i++) {
			const struct sbx_reg *r = &l.items[i].rec;
			char when[64];

			iso_time(r->start_ms, when, sizeof(when), false);
			printf("%.12s %-7lld %-6u %-10s %-5llu %-16s %-19s %-12.12s ", r->id,
			       (long long)r->pid, (unsigned)l.items[i].owner,
			       backend_word(r->backend), (unsigned long long)r->depth,
			       r->profile[0] ? sbx_cli_esc(r->profile) : "-", when,
			       r->digest[0] ? r->digest : "-");
			print_command(stdout, r, 200);
			putchar('\n');
		}
		if (l.skipped)
			fprintf(
			    stderr,
			    "sbx: note: %zu file%s in the runtime director%s %s not a sandbox's "
			    "record, and %s ignored\n",
			    l.skipped, l.skipped == 1 ? "" : "s", geteuid() ? "y" : "ies",
			    l.skipped == 1 ? "is" : "are", l.skipped == 1 ? "was" : "were");
	}
	sbx_registry_list_clear(&l);
	return fflush(stdout) == 0 ? 0 : 125;
}

/* The one live record whose id starts with prefix; 125 with a message otherwise. */
static int find(const char *prefix, struct sbx_registry_list *l, size_t *at)
{
	struct sbx_error err = {0};
	size_t n = strlen(prefix), found = 0;
	bool hex = n >= 4 && n <= SBX_REG_ID_LEN;

	for (size_t i = 0; hex && i < n; i++)
		hex = (prefix[i] >= '0' && prefix[i] <= '9') ||
		      (prefix[i] >= 'a' && prefix[i] <= 'f');
	if (!hex) {
		fprintf(stderr,
		        "sbx: '%s' is not a sandbox id: an id is 32 lower-case hex digits, and a "
		        "unique prefix of at least 4 of them will do; see 'sbx ps'\n",
		        sbx_cli_esc(prefix));
		return 125;
	}
	if (sbx_registry_list(environ, geteuid() == 0, l, &err) < 0) {
		sbx_cli_report(stderr, &err);
		return sbx_error_exit_code(&err);
	}
	for (size_t i = 0; i < l->n; i++)
		if (strncmp(l->items[i].rec.id, prefix, n) == 0) {
			*at = i;
			found++;
		}
	if (found == 1)
		return 0;
	if (found == 0)
		fprintf(stderr,
		        "sbx: no running sandbox%s has the id %s; see 'sbx ps' for the sandboxes "
		        "you can see\n",
		        geteuid() == 0 ? "" : " of yours", prefix);
	else
		fprintf(stderr,
		        "sbx: %zu running sandboxes have ids that start with %s; give more of the "
		        "id (see 'sbx ps')\n",
		        found, prefix);
	sbx_registry_list_clear(l);
	return 125;
}

static void print_spec_json(FILE *f, const struct sbx_nest *n)
{
	char ops[128];

	fputs("{\"profile\":", f);
	sbx_json_string(f, n->profile);
	fprintf(f,
	        ",\"depth\":%u,\"backend\":\"%s\",\"network\":\"%s\",\"nesting\":%s,"
	        "\"landlock\":%s,\"mounts\":[",
	        n->depth, sbx_backend_name(n->backend), n->net == SBX_NET_HOST ? "host" : "none",
	        n->nesting ? "true" : "false", n->landlocked ? "true" : "false");
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
	fputs("]}", f);
}

static void print_spec_text(FILE *f, const struct sbx_nest *n)
{
	char ops[128];

	fprintf(f, "network:  %s\n", n->net == SBX_NET_HOST ? "host" : "none");
	fprintf(f, "nesting:  %s\n", n->nesting ? "allowed" : "forbidden");
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
}

int sbx_cmd_inspect(int argc, char **argv)
{
	struct sbx_registry_list l = {0};
	_cleanup_nest_ struct sbx_nest *spec = NULL;
	const struct sbx_reg *r;
	struct fleet_opts o;
	size_t at = 0;
	int status;

	if (parse_fleet(argc, argv, true, false, &o) < 0)
		return 125;
	if (o.help) {
		fputs(inspect_usage, stdout);
		return 0;
	}
	if (nested_note("inspect"))
		return 125;
	status = find(o.id, &l, &at);
	if (status)
		return status;
	r = &l.items[at].rec;
	/* the spec is the record's: decoded by the codec, which refuses what it did not write */
	if (r->spec && sbx_nest_decode(r->spec, r->spec_len, &spec, NULL) < 0)
		spec = NULL;
	if (o.json) {
		printf("{\"version\":%d,\"sandbox\":{", FLEET_JSON_VERSION);
		json_record(stdout, &l.items[at]);
		fputs("},\"spec\":", stdout);
		if (spec)
			print_spec_json(stdout, spec);
		else
			fputs("null", stdout);
		fputs("}\n", stdout);
	} else {
		char when[64];

		iso_time(r->start_ms, when, sizeof(when), false);
		printf("sandbox:  %s\n", r->id);
		printf("pid:      %lld (sbx's child: %s), sbx %lld\n", (long long)r->pid,
		       r->backend == SBX_BACKEND_LANDLOCK ? "the worker" : "the sandbox's init",
		       (long long)r->sbx_pid);
		printf("uid:      %u\n", (unsigned)l.items[at].owner);
		printf("profile:  %s\n", r->profile[0] ? sbx_cli_esc(r->profile) : "(none)");
		printf("backend:  %s\n", backend_word(r->backend));
		printf("depth:    %llu\n", (unsigned long long)r->depth);
		printf("started:  %s\n", when);
		printf("digest:   %s\n", r->digest[0] ? r->digest : "(none)");
		fputs("command: ", stdout);
		for (size_t i = 0; i < r->n_argv; i++)
			printf(" %s", sbx_cli_esc(r->argv[i]));
		puts(r->argv_cut ? " ... (cut)" : "");
		if (spec)
			print_spec_text(stdout, spec);
		else
			puts("spec:     not recorded (too large to keep, or unreadable)");
	}
	sbx_registry_list_clear(&l);
	return fflush(stdout) == 0 ? 0 : 125;
}

int sbx_cmd_kill(int argc, char **argv)
{
	struct sbx_registry_list l = {0};
	struct sbx_error err = {0};
	struct fleet_opts o;
	size_t at = 0;
	int status;

	if (parse_fleet(argc, argv, true, true, &o) < 0)
		return 125;
	if (o.help) {
		fputs(kill_usage, stdout);
		return 0;
	}
	if (nested_note("kill"))
		return 125;
	status = find(o.id, &l, &at);
	if (status)
		return status;
	if (sbx_registry_signal(&l.items[at].rec, l.items[at].owner, o.sig, &err) < 0) {
		sbx_cli_report(stderr, &err);
		status = sbx_error_exit_code(&err);
	} else {
		printf("sent signal %d (%s) to sandbox %s, pid %lld\n", o.sig, strsignal(o.sig),
		       l.items[at].rec.id, (long long)l.items[at].rec.pid);
		status = fflush(stdout) == 0 ? 0 : 125;
	}
	sbx_registry_list_clear(&l);
	return status;
}
