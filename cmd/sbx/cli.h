/* SPDX-License-Identifier: MIT */
#ifndef SBX_CLI_H
#define SBX_CLI_H

/*
 * The command line. Parsers here never print and never exit, so that tests can call them;
 * only the cmd_* entry points print, and only main() exits.
 */

#include <stdbool.h>
#include <stdio.h>

#include "sbx/error.h"
#include "sbx/finish.h"
#include "sbx/globwalk.h"
#include "sbx/nest.h"
#include "sbx/plan.h"
#include "sbx/probe.h"
#include "sbx/profile.h"
#include "sbx/registry.h"
#include "sbx/spec.h"
#include "os/gitguard.h"
#include "os/globwalk.h"
#include "os/launch.h"

struct option;

/* The value of --workspace in `sbx run`'s option table (the first pass reads it). */
#define SBX_CLI_OPT_WORKSPACE 0x1f0

struct sbx_cli_run {
	struct sbx_spec *spec; /* owned */
	char **argv;           /* the worker's command: borrowed from the caller's argv */
	int argc;
	bool dry_run;
	bool json;
	bool help;
	bool verbose;                 /* --verbose: the supervisor's decisions on stderr (-v is
	                                 --volume), and every note */
	bool quiet;                   /* -q, --quiet: no notes (warnings and errors stay) */
	bool home_given;              /* --home was given */
	struct sbx_profile *profile;  /* owned; NULL without --profile */
	enum sbx_backend_ask backend; /* --backend (finish.h) */
	enum sbx_tty_ask tty;         /* -t, --no-tty (plan.h) */
	/* nesting (nest.c): --restrict, --allow-read, --allow-write, and -v/--mount as grants */
	struct sbx_nest_request req; /* owned grants */
	bool net_given;              /* --net was given */
	bool net_list_given;         /* the last --net was allow:..., which a next one adds to */
	char *net_learn_out;         /* --net-learn-out FILE (owned) */
	bool net_chained; /* nested, a list of its own under the parent's: its proxy dials through
	                     the parent's */
	bool nest_flags;  /* --restrict, --allow-read or --allow-write was given */
	struct sbx_nest *nest_child; /* nested: the effective spec asked for (owned) */
	char *nest_tmpdir; /* nested, landlock backend: the temporary directory sbx made (owned;
	                      removed after the run, nest.c) */
	struct sbx_globwalk_stats walk; /* the walk for hide globs (top-level or nested) */
};

void sbx_cli_run_clear(struct sbx_cli_run *run);

/* Parse `sbx run` options (argv[0] is "run"). cwd is the caller's working directory. */
int sbx_cli_parse_run(int argc, char **argv, const char *cwd, struct sbx_cli_run *out,
                      struct sbx_error *err);

/* Print an error as one line (profile errors also get their source line and a caret). */
void sbx_cli_report(FILE *f, const struct sbx_error *err);

/* Print a plan for --dry-run, as text or JSON. */
void sbx_cli_print_plan(FILE *f, const struct sbx_plan *plan, char *const *argv, bool json);

/* A JSON string (quotes included): control bytes and ill-formed UTF-8 escaped (sbx_escape's
 * SBX_ESCAPE_JSON). Also a valid YAML double-quoted string. */
void sbx_json_string(FILE *f, const char *s);

/*
 * Every path, name, argument or message that reaches a terminal goes through this: s with
 * its control bytes and ill-formed UTF-8 escaped as \xNN (sbx_escape's SBX_ESCAPE_TEXT), or
 * s itself when nothing needs escaping. The result lives until 8 more calls have been made,
 * so that one printf can escape several arguments: printf("%s -> %s", sbx_cli_esc(a),
 * sbx_cli_esc(b)).
 */
const char *sbx_cli_esc(const char *s);

/* The network mode as a profile spells it: none, host, learn, {allow: [...], deny: [...]}
 * (net_cli.c). */
void sbx_cli_net_yaml(FILE *f, enum sbx_net_mode mode, const struct sbx_netpolicy *p);

/* sbx run's network (net_cli.c): the proxy's variables in the spec and the host's resolver
 * sockets hidden (top: not a nested run); the proxy for a plan with its own network
 * namespace (*out NULL otherwise); after the run, stopped, with what learning found (stderr,
 * --net-learn-out) and, under --net none, a note when refused lookups preceded a failure. */
struct sbx_netproxy;
struct sbx_audit;
int sbx_cli_net_spec(struct sbx_spec *spec, bool top, struct sbx_error *err);
int sbx_cli_net_plan_env(struct sbx_plan *plan, struct sbx_error *err);
/* A sub-worker that keeps its landlock-backend parent's list: the parent's proxy variables,
 * as the environment has them (the ports are the kernel's picks). */
int sbx_cli_net_plan_env_inherited(struct sbx_plan *plan, struct sbx_error *err);
/* The landlock backend's allowlist, before the launch: the proxy listens on the host's
 * loopback; its ports go into the worker's variables, Landlock's TCP rules and the
 * supervisor (which must be there: refused otherwise). Nothing for any other plan. */
struct sbx_supervisor;
int sbx_cli_net_host(struct sbx_plan *plan, struct sbx_netproxy *p, struct sbx_supervisor *sup,
                     struct sbx_error *err);
/* --dry-run of such a plan: the variables with PORT where the kernel's pick will be. */
int sbx_cli_net_host_dry(struct sbx_plan *plan, struct sbx_error *err);
int sbx_cli_net_open(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                     struct sbx_audit *audit, struct sbx_netproxy **out, struct sbx_error *err);
void sbx_cli_net_close(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                       struct sbx_netproxy *p, bool ran, int status);

/* Subcommands: each returns the process exit status. */
int sbx_cmd_run(int argc, char **argv);
int sbx_cmd_check(int argc, char **argv);
int sbx_cmd_resolve(int argc, char **argv);
int sbx_cmd_profiles(int argc, char **argv);
int sbx_cmd_doctor(int argc, char **argv);
int sbx_cmd_status(int argc, char **argv);
int sbx_cmd_explain(int argc, char **argv);
int sbx_cmd_complete(int argc, char **argv);
int sbx_cmd_connect(int argc, char **argv);

/* ---- nesting (nest.c) ---- */

/* The caller's effective spec from SBX_SPEC_FD: 1 and *out if there is one (nested), 0 if
 * SBX_SPEC_FD is unset, or -errno if it is set but names no valid sealed spec (refuse). */
int sbx_cli_nest_load(struct sbx_nest **out, struct sbx_error *err);

/* Plan a nested run inside parent (sbx_nest_plan, with the glob walk): replace run->spec by
 * the child's, keep the narrowed effective spec in run->nest_child and the backend in
 * run->backend (for sbx_plan_finish), and build its plan (host is adjusted: nested, system
 * mounts filtered). */
int sbx_cli_nest_plan(const struct sbx_nest *parent, struct sbx_cli_run *run, struct sbx_host *host,
                      struct sbx_plan **plan, struct sbx_error *err);

/* No SBX_SPEC_FD: gather where this sbx runs and decide (sbx_origin_decide): -errno with err
 * to refuse (SBX=1 without a spec), else 0 with *parent_unknown set when something already
 * confines this process. */
int sbx_cli_origin(bool *parent_unknown, struct sbx_error *err);

/* The parent of the sandbox an effective spec describes, in words (json: one word). */
const char *sbx_cli_parent_words(const struct sbx_nest *n, bool json);

/* ---- the audit log (audit_cli.c) ---- */

struct sbx_audit;

struct sbx_cli_audit {
	char id[SBX_NEST_ID_LEN + 1]; /* this sandbox's id; "" before sbx_cli_audit_begin */
	char digest[65];              /* its effective spec's sha256, hex; "" when none */
	struct sbx_audit *log;        /* NULL: no audit log (plan->sup.audit_log unset) */
	uint64_t start_ms;            /* CLOCK_REALTIME */
	uint64_t start_mono;          /* CLOCK_MONOTONIC, for the duration */
};

/* The supervisor's counts for the end record (its session's n_asked, n_allowed, n_denied). */
struct sbx_cli_audit_counts {
	uint64_t asked, allowed, denied;
	const char *killed; /* NULL, or "supervisor lost": the supervisor ended the sandbox */
};

/*
 * Before a launch: give the plan's effective spec this sandbox's id (a nested sbx reads it as
 * its parent's), and where plan->sup.audit_log is set open the log (its keeper forked) and
 * write the start record. Called again for a plan finished again (the landlock fallback): the
 * id is kept, the log stays open. A log that cannot be opened or written refuses the run.
 */
int sbx_cli_audit_begin(struct sbx_plan *plan, const struct sbx_nest *parent, char *const *argv,
                        struct sbx_cli_audit *a, struct sbx_error *err);
/* After it: the end record (launched: sbx_launch's result; status: what sbx exits with) and
 * the keeper released. counts may be NULL. No-op without a log. */
void sbx_cli_audit_end(struct sbx_cli_audit *a, int launched, int status,
                       const struct sbx_cli_audit_counts *counts);

struct sbx_broker;
/* The broker for plan->sup.approve (os/broker.h), opened before the launch so that a tty, a
 * socket or a program that is not there refuses the run now, or NULL where no mount asks. */
int sbx_cli_broker_open(const struct sbx_plan *plan, struct sbx_broker **out,
                        struct sbx_error *err);

/* ---- the running sandboxes (fleet.c): sbx ps, inspect, kill ---- */

struct sbx_cli_fleet {
	int dirfd;           /* the caller's runtime directory; -1: not recorded */
	char path[4096];     /* its path, for messages */
	struct sbx_reg *rec; /* owned: the record, its pid filled at the launch's start */
	bool written;        /* the record is in the directory */
};

/* Before a launch (after sbx_cli_audit_begin, which gives the id and digest): prepare this
 * sandbox's record and hook it to the launch (os/launch.h), which writes it once sbx's child
 * exists. Nested (parent set), nothing is recorded: the host's runtime directory is hidden
 * from every sandbox. A directory sbx cannot use leaves the sandbox unlisted, with a note. */
void sbx_cli_fleet_begin(const struct sbx_plan *plan, const struct sbx_nest *parent,
                         char *const *argv, const struct sbx_cli_audit *audit,
                         struct sbx_cli_fleet *f);
/* After it: the record removed. f starts as {.dirfd = -1}; a second call is a no-op. */
void sbx_cli_fleet_end(struct sbx_cli_fleet *f);

int sbx_cmd_ps(int argc, char **argv);
int sbx_cmd_inspect(int argc, char **argv);
int sbx_cmd_kill(int argc, char **argv);

/* ---- guards (guard_cli.c) ---- */

struct sbx_gitguard;

/* Survey git's control surface (guard.h), plan again with its guards if it added any, and
 * drop the guards the host lacks. */
int sbx_cli_guard_plan(struct sbx_spec *spec, const struct sbx_host *host, struct sbx_plan **plan,
                       struct sbx_gitguard *git, struct sbx_error *err);
/* What of git's control surface cannot be guarded, as the lines sbx_plan_finish adds to the
 * plan's limits (in->git_warning, in->git_repos; escaped into lines, which must outlive in). */
struct sbx_cli_git_lines {
	char text[2][8192];
};
struct sbx_finish_in;
void sbx_cli_guard_lines(const struct sbx_gitguard *git, struct sbx_cli_git_lines *lines,
                         struct sbx_finish_in *in);
/* The one line at launch naming what of git's control surface cannot be guarded (again: a
 * fallback to the landlock backend in the same launch, which only adds its note). */
void sbx_cli_guard_warn(FILE *f, const struct sbx_plan *plan, const struct sbx_gitguard *git,
                        bool again);
/* After the run: name what appeared in git's control surface. */
void sbx_cli_guard_after(FILE *f, const struct sbx_gitguard *git);

/* Nested: a note for each unhide entry that names what the parent hides, which stays hidden
 * (the parent's masks and Landlock layer are beyond any child). */
void sbx_cli_nest_unhide_notes(FILE *f, const struct sbx_nest *parent, const struct sbx_spec *spec);

/* ---- profiles (profile_cli.c) ---- */

/* Host facts for the profile loader: variables and the search path. */
struct sbx_cli_profile_env {
	char **search;
	char *home, *user, *workspace;
	struct sbx_profile_opts opts; /* points into the fields above */
};
int sbx_cli_profile_env_init(struct sbx_cli_profile_env *e, const char *workspace,
                             struct sbx_error *err);
void sbx_cli_profile_env_clear(struct sbx_cli_profile_env *e);

/* Load a profile (name or file) into spec, with this host's variables and search path. */
int sbx_cli_load_profile(const char *arg, const char *workspace, struct sbx_spec *spec,
                         struct sbx_profile **out, struct sbx_error *err);

/* The first pass of `sbx run` over its options: load --profile before any other flag. */
int sbx_cli_run_prepass(int argc, char **argv, const struct option *options, const char *optstring,
                        const char *cwd, struct sbx_spec *spec, struct sbx_profile **profile,
                        struct sbx_error *err);

/* How many notes sbx prints (report.c; each command sets it from -q and --verbose): none,
 * at most one short line each where what the user must do changes (the default), or every
 * note in full. Warnings and errors are printed whatever it says. */
enum sbx_cli_notes { SBX_NOTES_QUIET = -1, SBX_NOTES_SHORT = 0, SBX_NOTES_ALL = 1 };
extern enum sbx_cli_notes sbx_cli_notes;

/* Print the loader's notes and masks that hide nothing yet, as "sbx: note: ..." lines, as
 * sbx_cli_notes says (optional mounts skipped: --verbose only). */
void sbx_cli_print_notes(FILE *f, const struct sbx_profile *p, const struct sbx_plan *plan);

/* A profile (or the default, when profile is NULL) as a plan, for check and resolve. */
struct sbx_cli_view {
	struct sbx_spec *spec;
	struct sbx_profile *profile;
	struct sbx_host host;
	struct sbx_plan *plan;
};
int sbx_cli_build_view(const char *profile, const char *workspace, bool compile,
                       struct sbx_cli_view *v, struct sbx_error *err);
void sbx_cli_view_clear(struct sbx_cli_view *v);

/* 0 if this version can enforce the profile, else the refusal in err. */
int sbx_cli_check_enforceable(const char *profile, const char *workspace, struct sbx_error *err);

/* ---- profiles as JSON (profiles_json.c; sbx-json(7)) ---- */

#define SBX_CLI_PROFILES_JSON_VERSION 1

/* One profile file that sbx profiles list found (the strings are the list's). */
struct sbx_cli_profile_json_entry {
	char *name, *file;
	char *description; /* its first line, or NULL */
	char *error;       /* NULL: valid; else why it is not */
	bool shadowed;     /* an earlier folder has one of this name (not loaded) */
};
void sbx_cli_profiles_list_json(FILE *f, const struct sbx_cli_profile_json_entry *e, size_t n,
                                char *const *search, size_t n_search);
void sbx_cli_profile_show_json(FILE *f, const struct sbx_profile *p, const struct sbx_spec *s);

extern const char sbx_run_usage[];

/* Limits (limits_cli.c): the sandbox's cgroup, made before the launch (refused, or a warning
 * with --best-effort, where the host cannot have one), and the launcher's limits. */
struct sbx_cli_limits {
	struct sbx_cgroup *cg; /* owned; NULL: none */
	struct sbx_launch_limits launch;
	uint64_t memory; /* for the line */
};
/* Before sbx_launch: the cgroup and the timeout for this plan; refuses (125) memory, pids or
 * cpu that no cgroup can hold unless --best-effort. Calls sbx_launch_set_limits. */
int sbx_cli_limits_begin(const struct sbx_cli_run *run, const struct sbx_plan *plan, const char *id,
                         struct sbx_cli_limits *out, struct sbx_error *err);
/* Before the plan, top-level: this sandbox's rank among the caller's sandboxes running at
 * once (os/shareslot.h), held until sbx exits, for host->share_rank: the plan gives it a
 * share of the per-user counts of what those before it left. Opens fleet's runtime
 * directory, which sbx_cli_fleet_begin then uses; 0 where there is none. */
unsigned sbx_cli_share_rank(struct sbx_cli_fleet *fleet);
/* Let go of the rank: the landlock backend has no user namespace to carry a share, and its
 * rank would only shrink the shares of the sandboxes started after it. */
void sbx_cli_share_release(void);
/* After it: the line for a timeout (124) or the memory limit's kill (137), the status to exit
 * with; the cgroup emptied and removed. Safe to call twice, and on a zeroed struct. */
int sbx_cli_limits_end(struct sbx_cli_limits *l, int status);
/* --dry-run: what sbx_cli_limits_begin would decide, found the same way (a cgroup made and
 * removed at once, only where memory, pids or cpu is asked): the same refusal (125), or with
 * --best-effort the same warning; sbx_cli_print_resources then says how each limit holds. */
int sbx_cli_limits_dry(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                       struct sbx_error *err);
/* --dry-run: the limits and the tmpfs size. */
void sbx_cli_print_resources(FILE *f, const struct sbx_plan *plan, bool json);
/* sbx doctor: which limits this host can enforce, and why not. */
void sbx_cli_doctor_limits(void);

/* --tmpfs PATH[:size=N,ro,noexec] (docker_cli.c): a tmpfs mount in spec. */
int sbx_cli_parse_tmpfs(struct sbx_spec *spec, const char *arg, const char *cwd,
                        struct sbx_error *err);

/* ---- did you mean (suggest_cli.c) ---- */

/* The hint for an unknown option `bad` of `sbx cmd`: what Docker's flag means here, or the
 * nearest of opts, or where the help is. */
void sbx_cli_hint_option(struct sbx_error *err, const char *bad, const struct option *opts,
                         const char *cmd);
/* The profile names on the search path, each once (the caller frees each and the array). */
int sbx_cli_profile_names(char ***out, size_t *n);
/* A profile name not found: "did you mean" the nearest name on the search path, if any. */
void sbx_cli_hint_profile(struct sbx_error *err, const char *name);

/* ---- the home (home_cli.c) ---- */

/* Fill the spec's home facts from this host (src/core/home.c): the caller's $HOME, its
 * ~/.gitconfig where it is a regular file (a symlink is left out: a sandbox that could write
 * the home could have planted it), the tmpfs's size from the machine's memory. Nested
 * (SBX_SPEC_FD set), the parent's home stays: none is made unless `given`. */
int sbx_cli_home_facts(struct sbx_spec *spec, bool given, struct sbx_error *err);

#endif
