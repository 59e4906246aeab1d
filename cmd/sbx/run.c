/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/audit.h"
#include "sbx/cleanup.h"
#include "sbx/trace.h"
#include "sbx/finish.h"
#include "sbx/globwalk.h"
#include "sbx/landlock.h"
#include "sbx/nest.h"
#include "sbx/path.h"
#include "sbx/policy.h"
#include "sbx/probe.h"
#include "seccomp_cli.h"
#include "os/fs.h"
#include "os/gitguard.h"
#include "os/globwalk.h"
#include "os/guard.h"
#include "os/landlock.h"
#include "os/broker.h"
#include "os/fd.h"
#include "os/launch.h"
#include "os/netproxy.h"
#include "os/probe.h"
#include "os/state.h"
#include "os/supervisor.h"
#include "os/uidslot.h"
#include "os/userns.h"

const char sbx_run_usage[] =
    "Usage: sbx run [OPTIONS] [--] CMD [ARG...]\n"
    "\n"
    "Run CMD in a sandbox. Without a profile the built-in 'default' one is used: the\n"
    "system directories read-only, the workspace read-write at its own path, a private\n"
    "/tmp, a private $HOME (with your ~/.gitconfig read-only), a fresh /proc, a minimal\n"
    "/dev, and no network but loopback.\n"
    "\n"
    "Mounts:\n"
    "  -p, --profile NAME|FILE  load a profile (see sbx-profile(5)); the flags below add\n"
    "                           to it, and a flag naming one of its targets replaces it\n"
    "      --workspace DIR      the workspace: ${WORKSPACE} in profiles, mounted\n"
    "                           read-write by the default (default: the current directory)\n"
    "      --root DIR           host DIR is seen at /\n"
    "  -v, --volume SRC[:DST][:ro|rw]\n"
    "                           bind mount; DST defaults to SRC (same path inside)\n"
    "      --mount type=bind,source=SRC,target=DST[,readonly]\n"
    "      --mount type=tmpfs,target=DST\n"
    "                           Docker's long form\n"
    "      --tmpfs PATH[:size=N] a private tmpfs at PATH (N in bytes, or with K, M, G)\n"
    "      --home tmpfs|empty|DIR|none\n"
    "                           the worker's $HOME: a private tmpfs with your\n"
    "                           ~/.gitconfig read-only (the default's), a private empty\n"
    "                           one, DIR read-write, or nothing (a profile's default)\n"
    "      --device PATH        bind a host device node with device access\n"
    "      --hide PATH|GLOB     make matching paths inaccessible (a file cannot be opened,\n"
    "                           a directory is empty and read-only); a glob is matched by\n"
    "                           one walk at launch; relative: from the current directory\n"
    "      --unhide PATH|GLOB   give back what the profile's hide: (or --hide) would hide\n"
    "                           there (never what a policy or a parent sandbox hides)\n"
    "      --hide-later         hide globs hold for files created after launch too:\n"
    "                           the supervisor decides every open for reading\n"
    "      --readonly, --read-only\n"
    "                           no writes anywhere (the private /tmp and /dev/shm stay)\n"
    "      --no-system-mounts   do not mount /usr, /bin, /lib*, and /etc's essentials\n"
    "  -v, --mount or --root replace the default's workspace mount: only what they name\n"
    "  is visible (the working directory is then / unless -w names one).\n"
    "\n"
    "Nested (inside an sbx sandbox; paths are the sandbox's, and access can only narrow):\n"
    "      --restrict PATH      keep only PATH, with the parent's rights there\n"
    "      --allow-read PATH    keep only PATH, read-only\n"
    "      --allow-write PATH   keep only PATH, writable where the parent can write\n"
    "  With none of these the sub-worker inherits its parent's view; -v PATH[:ro|rw]\n"
    "  and --profile may only narrow it too.\n"
    "\n"
    "Process:\n"
    "  -w, --workdir DIR        working directory inside, as Docker's -w (default: the\n"
    "                           workspace if visible, else /); --chdir DIR is the same\n"
    "  -e, --env NAME[=VALUE]   pass NAME from the caller, or set it\n"
    "      --net none|host      loopback only (default), or the host's network\n"
    "      --network none|host  the same, Docker's spelling\n"
    "      --net allow:NAME,... only these names (NAME, *.NAME), through sbx's proxy\n"
    "                           and resolver; everything else refused at once (the\n"
    "                           landlock backend: the proxy on the host's loopback, no\n"
    "                           resolver inside; tools must use HTTP_PROXY/ALL_PROXY)\n"
    "      --net learn          everything through the proxy; print the allowlist used\n"
    "      --net-learn-out FILE with --net learn, write that allowlist to FILE\n"
    "      --backend auto|namespaces|landlock\n"
    "                           namespaces (a mount namespace plus Landlock), or Landlock\n"
    "                           alone in the caller's mount namespace; auto (default)\n"
    "                           takes landlock where user namespaces are off by\n"
    "                           configuration, and refuses on a passing shortage (a\n"
    "                           used-up namespace quota, memory)\n"
    "      --best-effort        run even where the kernel or backend cannot enforce all of\n"
    "                           the profile, with a warning naming what is missing\n"
    "      --allow-nesting      let the worker start sub-sandboxes (sbx run inside) in\n"
    "                           namespaces of their own: the filter then allows namespaces\n"
    "                           and mounts; without it they narrow on the landlock backend\n"
    "  -t, --tty                give the worker a pseudo-terminal of its own (the default\n"
    "                           when stdin and stdout are terminals and sbx runs in the\n"
    "                           foreground): job control, /dev/tty, Ctrl-C to its\n"
    "                           foreground job\n"
    "      --no-tty             never: the worker gets sbx's descriptors as they are\n"
    "\n"
    "Limits (sbx(1), LIMITS; profile key limits:; a nested sandbox may only lower them):\n"
    "      --limit NAME=VALUE   memory=512M, pids=256, cpu=1.5 (CPUs, or 150%),\n"
    "                           nofile=1024, fsize=1G, timeout=30s|5m|1h, tmpfs=256M (the\n"
    "                           size of each tmpfs sbx makes; default an eighth of RAM)\n"
    "                           memory, pids and cpu need a cgroup (sbx doctor says if this\n"
    "                           host has one; without, refused or, with --best-effort, a\n"
    "                           warning); timeout kills the whole sandbox, exit 124; the\n"
    "                           memory limit's kill exits 137\n"
    "\n"
    "Approvals and the audit log (sbx(1), APPROVALS; profile keys approvals:, approve:, audit:):\n"
    "      --approve tty|deny|allow|cmd:PROGRAM|socket:PATH\n"
    "                           who answers a mount's \"ask\" approvals: a prompt on the\n"
    "                           caller's terminal (the default where there is one), always\n"
    "                           deny (the default without one), always allow (logged\n"
    "                           only), a program (one JSON request on stdin, exit 0\n"
    "                           allows) or a broker's socket (JSON Lines)\n"
    "      --approve-timeout SECONDS\n"
    "                           an unanswered request is denied after this long (default\n"
    "                           60, 1 to 3600)\n"
    "      --audit-log FILE     append one JSON line per start, supervised decision and end\n"
    "      --label TEXT         a label for the audit log's records, such as a task id (at\n"
    "                           most 256 bytes)\n"
    "      --verbose            show the supervisor's decisions live on stderr, and\n"
    "                           every note (optional mounts skipped, ...)\n"
    "  -q, --quiet              no notes (warnings and errors stay)\n"
    "  Approvals catch mistakes, not adversaries: \"deny\" is a kernel rule (Landlock),\n"
    "  \"ask\" a question the supervisor puts before the call is made.\n"
    "\n" SBX_CLI_SECCOMP_USAGE "\n"
    "Other:\n"
    "      --dry-run            print the plan and run nothing (no privilege needed),\n"
    "                           with what the kernel does not keep of it (limits); memory,\n"
    "                           pids and cpu are tried as the run would (a cgroup made and\n"
    "                           removed), and refused or warned of the same way\n"
    "      --json               with --dry-run: print the plan as JSON\n"
    "  -h, --help               show this help\n"
    "\n"
    "Where a writable mount shows a git repository, .git cannot be renamed and the files\n"
    "git reads to find hooks and config are read-only; in every writable mount of a host\n"
    "directory no new repository (.git, HEAD) is made: git init and clone there fail, in\n"
    "/tmp they work (profile key protect_git; sbx-profile(5)).\n"
    "\n"
    "Exit status: CMD's own; 128+N if CMD was killed by signal N; 125 if sbx failed or\n"
    "refused; 126 if CMD cannot be executed; 127 if CMD was not found.\n"
    "See sbx(1).\n";

enum {
	OPT_ROOT = 0x100,
	OPT_MOUNT,
	OPT_READONLY,
	OPT_CHDIR,
	OPT_ENV,
	OPT_NET,
	OPT_NET_LEARN_OUT,
	OPT_DEVICE,
	OPT_DRY_RUN,
	OPT_JSON,
	OPT_NO_SYSTEM_MOUNTS,
	OPT_BACKEND,
	OPT_BEST_EFFORT,
	OPT_HIDE,
	OPT_UNHIDE,
	OPT_HIDE_LATER,
	OPT_ALLOW_NESTING,
	OPT_RESTRICT,
	OPT_ALLOW_READ,
	OPT_ALLOW_WRITE,
	OPT_APPROVE,
	OPT_APPROVE_TIMEOUT,
	OPT_AUDIT_LOG,
	OPT_LABEL,
	OPT_VERBOSE,
	OPT_LIMIT,
	OPT_TMPFS,
	OPT_HOME,
	OPT_WORKSPACE = SBX_CLI_OPT_WORKSPACE,
	OPT_NO_TTY,
};

static const struct option run_options[] = {
    {"profile", required_argument, NULL, 'p'},
    {"workspace", required_argument, NULL, OPT_WORKSPACE},
    {"workdir", required_argument, NULL, 'w'},
    {"root", required_argument, NULL, OPT_ROOT},
    {"volume", required_argument, NULL, 'v'},
    {"mount", required_argument, NULL, OPT_MOUNT},
    {"readonly", no_argument, NULL, OPT_READONLY},
    {"read-only", no_argument, NULL, OPT_READONLY},
    {"chdir", required_argument, NULL, OPT_CHDIR},
    {"env", required_argument, NULL, 'e'},
    {"net", required_argument, NULL, OPT_NET},
    {"network", required_argument, NULL, OPT_NET},
    {"tmpfs", required_argument, NULL, OPT_TMPFS},
    {"home", required_argument, NULL, OPT_HOME},
    {"quiet", no_argument, NULL, 'q'},
    {"net-learn-out", required_argument, NULL, OPT_NET_LEARN_OUT},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"json", no_argument, NULL, OPT_JSON},
    {"no-system-mounts", no_argument, NULL, OPT_NO_SYSTEM_MOUNTS},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"best-effort", no_argument, NULL, OPT_BEST_EFFORT},
    {"hide", required_argument, NULL, OPT_HIDE},
    {"unhide", required_argument, NULL, OPT_UNHIDE},
    {"hide-later", no_argument, NULL, OPT_HIDE_LATER},
    {"allow-nesting", no_argument, NULL, OPT_ALLOW_NESTING},
    {"restrict", required_argument, NULL, OPT_RESTRICT},
    {"allow-read", required_argument, NULL, OPT_ALLOW_READ},
    {"allow-write", required_argument, NULL, OPT_ALLOW_WRITE},
    {"approve", required_argument, NULL, OPT_APPROVE},
    {"approve-timeout", required_argument, NULL, OPT_APPROVE_TIMEOUT},
    {"audit-log", required_argument, NULL, OPT_AUDIT_LOG},
    {"label", required_argument, NULL, OPT_LABEL},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"tty", no_argument, NULL, 't'},
    {"no-tty", no_argument, NULL, OPT_NO_TTY},
    {"help", no_argument, NULL, 'h'},
    SBX_CLI_SECCOMP_OPTIONS,
    {NULL, 0, NULL, 0},
};

void sbx_cli_run_clear(struct sbx_cli_run *run)
{
	sbx_spec_free(run->spec);
	sbx_profile_free(run->profile);
	sbx_nest_request_clear(&run->req);
	sbx_nest_free(run->nest_child);
	run->nest_child = NULL;
	if (run->nest_tmpdir) /* a landlock child's temporary directory (nest.c), after its run */
		(void)sbx_fs_remove_tree(run->nest_tmpdir);
	free(run->nest_tmpdir);
	free(run->net_learn_out);
	memset(run, 0, sizeof(*run));
}

static int add_parsed_mount(struct sbx_spec *spec, struct sbx_mount *m, struct sbx_error *err)
{
	int r = sbx_spec_add_mount(spec, m, true, err);

	sbx_mount_clear(m);
	return r;
}

static int parse_env(struct sbx_spec *spec, const char *arg, struct sbx_error *err)
{
	const char *eq = strchr(arg, '=');
	char name[256];

	if (!eq)
		return sbx_spec_add_env(spec, arg, NULL, err);
	if ((size_t)(eq - arg) >= sizeof(name))
		return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
		                     "--env '%.40s...': the name is longer than 255 bytes", arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	return sbx_spec_add_env(spec, name, eq + 1, err);
}

/* --approve-timeout SECONDS: 1 to SBX_APPROVE_TIMEOUT_MAX, plain digits */
static int parse_timeout(struct sbx_spec *spec, const char *arg, struct sbx_error *err)
{
	unsigned long v = 0;
	int r;

	for (const char *p = arg; *p; p++) {
		if (*p < '0' || *p > '9' || v > SBX_APPROVE_TIMEOUT_MAX) {
			v = 0;
			break;
		}
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < 1 || v > SBX_APPROVE_TIMEOUT_MAX) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "--approve-timeout '%s' is not a number of seconds from 1 to %u",
		                  arg, SBX_APPROVE_TIMEOUT_MAX);
		sbx_error_hint(err, "e.g. --approve-timeout 120; an unanswered request is denied "
		                    "then");
		return r;
	}
	spec->approve_timeout_ms = (unsigned)v * 1000u;
	return 0;
}

static int parse_one(struct sbx_spec *spec, struct sbx_cli_run *out, int c, const char *arg,
                     const char *cwd, struct sbx_error *err)
{
	struct sbx_mount m;
	int r;

	switch (c) {
	case OPT_WORKSPACE: {
		_cleanup_free_ char *ws = NULL;

		r = sbx_path_absolute(arg, cwd, &ws, err);
		if (r < 0)
			return r;
		return sbx_spec_set_str(&spec->workspace, ws, err);
	}
	case OPT_ROOT: {
		_cleanup_free_ char *root = NULL;

		r = sbx_path_absolute(arg, cwd, &root, err);
		if (r < 0)
			return r;
		spec->explicit_mounts = true;
		return sbx_spec_set_str(&spec->root, root, err);
	}
	case 'v':
	case OPT_MOUNT: {
		char what[SBX_PATH_MAX + 16];
		size_t alen = strlen(arg);

		r = c == 'v' ? sbx_volume_parse(arg, cwd, &m, err)
		             : sbx_mount_parse(arg, cwd, &m, err);
		if (r < 0)
			return r;
		spec->explicit_mounts = true;
		/* Nested, it is a grant on the target (nest.c checks source == target): ro
		 * asks read, an explicit rw asks write, neither keeps the parent's rights. */
		snprintf(what, sizeof(what), "%s %s", c == 'v' ? "-v" : "--mount", arg);
		r = sbx_nest_request_add(
		    &out->req,
		    m.readonly                                                 ? SBX_GRANT_READ
		    : alen > 3 && strcmp(arg + alen - 3, ":rw") == 0           ? SBX_GRANT_WRITE
		    : strstr(arg, "readonly=false") || strstr(arg, "ro=false") ? SBX_GRANT_WRITE
		                                                               : SBX_GRANT_RESTRICT,
		    m.target, false, what, err);
		if (r < 0) {
			sbx_mount_clear(&m);
			return r;
		}
		return add_parsed_mount(spec, &m, err);
	}
	case OPT_RESTRICT:
	case OPT_ALLOW_READ:
	case OPT_ALLOW_WRITE: {
		static const char *const names[] = {"--restrict", "--allow-read", "--allow-write"};
		static const unsigned kinds[] = {SBX_GRANT_RESTRICT, SBX_GRANT_READ,
		                                 SBX_GRANT_WRITE};
		char what[SBX_PATH_MAX + 16];
		_cleanup_free_ char *abs = NULL;

		/* relative: the caller's directory's, as -v takes it (inside a sandbox the
		 * same path as outside) */
		if (arg[0] != '/' && *arg) {
			r = sbx_path_absolute(arg, cwd, &abs, err);
			if (r < 0)
				return r;
			arg = abs;
		}
		snprintf(what, sizeof(what), "%s %s", names[c - OPT_RESTRICT], arg);
		out->nest_flags = true;
		spec->explicit_mounts = true;
		return sbx_nest_request_add(&out->req, kinds[c - OPT_RESTRICT], arg, false, what,
		                            err);
	}
	case OPT_DEVICE: {
		_cleanup_free_ char *dev = NULL;

		r = sbx_path_absolute(arg, cwd, &dev, err);
		if (r < 0)
			return r;
		if (!sbx_path_covers("/dev", dev) || strcmp(dev, "/dev") == 0) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "--device '%s' is not a path under /dev", arg);
			sbx_error_hint(err, "name a device node such as /dev/nvidia0 or /dev/dri/"
			                    "renderD128");
			return r;
		}
		m = (struct sbx_mount){.kind = SBX_MOUNT_DEVICE,
		                       .source = dev,
		                       .target = dev,
		                       .origin = SBX_ORIGIN_FLAG};
		return sbx_spec_add_mount(spec, &m, true, err);
	}
	case OPT_READONLY:
		spec->readonly = true;
		return 0;
	case OPT_ALLOW_NESTING:
		spec->nesting = true;
		return 0;
	case OPT_NO_SYSTEM_MOUNTS:
		spec->system_mounts = SBX_SYSMOUNTS_NONE;
		return 0;
	case 'w':
	case OPT_CHDIR: {
		_cleanup_free_ char *dir = NULL;

		/* relative: to the current directory, which is visible at its own path */
		if (!*arg)
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "-w needs a directory");
		r = sbx_path_absolute(arg, cwd, &dir, err);
		if (r < 0)
			return r;
		return sbx_spec_set_str(&spec->chdir, dir, err);
	}
	case 'e':
		return parse_env(spec, arg, err);
	case OPT_TMPFS:
		return sbx_cli_parse_tmpfs(spec, arg, cwd, err);
	case OPT_HOME:
		out->home_given = true;
		r = sbx_spec_set_home(spec, arg, cwd, err);
		if (r < 0)
			sbx_error_wrap(err, "--home");
		return r;
	case 'q':
		out->quiet = true;
		return 0;
	case OPT_NET:
		out->net_given = true;
		/* --net allow:A --net allow:B adds; any other value replaces */
		if (strncmp(arg, "allow:", 6) != 0 || spec->net != SBX_NET_ALLOW ||
		    !out->net_list_given)
			sbx_netpolicy_clear(&spec->netpol);
		out->net_list_given = strncmp(arg, "allow:", 6) == 0;
		return sbx_net_parse_flag(arg, &spec->net, &spec->netpol, err);
	case OPT_NET_LEARN_OUT:
		free(out->net_learn_out);
		out->net_learn_out = strdup(arg);
		if (!out->net_learn_out)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		return 0;
	case OPT_BACKEND:
		if (strcmp(arg, "auto") == 0)
			out->backend = SBX_ASK_AUTO;
		else if (strcmp(arg, "namespaces") == 0)
			out->backend = SBX_ASK_NAMESPACES;
		else if (strcmp(arg, "landlock") == 0)
			out->backend = SBX_ASK_LANDLOCK;
		else {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "--backend '%s' is unknown",
			                  arg);
			sbx_error_hint(err, "use auto, namespaces or landlock");
			return r;
		}
		return 0;
	case OPT_BEST_EFFORT:
		spec->best_effort = true;
		return 0;
	case OPT_HIDE_LATER:
		spec->hide_later = true;
		return 0;
	case OPT_HIDE:
	case OPT_UNHIDE: {
		_cleanup_free_ char *abs = NULL;

		/* relative: from the current directory, as -v takes it ('**' + '/.env' is
		 * every .env beneath it) */
		if (!*arg) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "%s needs a path or glob",
			                  c == OPT_HIDE ? "--hide" : "--unhide");
			sbx_error_hint(err, "e.g. --hide '**/.env'");
			return r;
		}
		if (sbx_path_backtracks(arg)) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "%s '%s': a '..' after a name, which the kernel would "
			                  "resolve first (a symbolic link there leads elsewhere)",
			                  c == OPT_HIDE ? "--hide" : "--unhide", arg);
			sbx_error_hint(err, "write the path without '..'");
			return r;
		}
		bool glob = !sbx_glob_is_literal(arg);
		char raw[SBX_PATH_MAX + 1], q[2 * SBX_PATH_MAX + 2];
		struct stat st;
		int n = arg[0] == '/' ? snprintf(raw, sizeof(raw), "%s", arg)
		                      : snprintf(raw, sizeof(raw), "%s%s%s", cwd,
		                                 strcmp(cwd, "/") ? "/" : "", arg);

		if (n < 0 || (size_t)n >= sizeof(raw))
			return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
			                     "%s: the path '%s' is too long",
			                     c == OPT_HIDE ? "--hide" : "--unhide", arg);
		/* a path that exists as written is that path too, whatever characters its name
		 * holds ("$PWD/.env" in a folder "proj [v1]"): hidden as well as the glob (a
		 * worker could plant a file named like the glob: the glob must still hold), given
		 * back alone (unhide gives back the least it can) */
		if (glob && lstat(raw, &st) == 0) {
			if (c == OPT_UNHIDE) {
				sbx_glob_quote(raw, q, sizeof(q));
				return sbx_spec_add_unhide(spec, q, err);
			}
			r = sbx_spec_add_hide(spec, raw, err);
			if (r < 0)
				return r;
		} else if (!glob) {
			if (c == OPT_HIDE)
				return sbx_spec_add_hide(spec, raw, err);
			/* unhide is matched as a glob: the path quoted matches itself alone */
			sbx_glob_quote(raw, q, sizeof(q));
			return sbx_spec_add_unhide(spec, q, err);
		}
		if (arg[0] != '/') {
			/* in a glob the current directory matches itself: quoted */
			size_t k = sbx_glob_quote(cwd, q, sizeof(q));

			if (asprintf(&abs, "%.*s%s%s", (int)k, q, strcmp(cwd, "/") ? "/" : "",
			             arg) < 0)
				return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
			arg = abs;
		}
		if (c == OPT_UNHIDE)
			return sbx_spec_add_unhide(spec, arg, err);
		return sbx_spec_add_hide_glob(spec, arg, err);
	}
	case OPT_APPROVE:
		r = sbx_spec_set_approve(spec, arg, err);
		if (r < 0)
			sbx_error_wrap(err, "--approve");
		return r;
	case OPT_APPROVE_TIMEOUT:
		return parse_timeout(spec, arg, err);
	case OPT_AUDIT_LOG: {
		_cleanup_free_ char *file = NULL;

		if (!*arg)
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "--audit-log needs a file");
		r = sbx_path_absolute(arg, cwd, &file, err);
		if (r < 0)
			return r;
		return sbx_spec_set_str(&spec->audit_log, file, err);
	}
	case OPT_LABEL:
		r = sbx_spec_set_label(spec, arg, err);
		if (r < 0)
			sbx_error_wrap(err, "--label");
		return r;
	case OPT_VERBOSE:
		out->verbose = true;
		return 0;
	case OPT_LIMIT:
		return sbx_limits_set_arg(&spec->resources, arg, err);
	case 't':
		out->tty = SBX_TTY_ALWAYS;
		return 0;
	case OPT_NO_TTY:
		out->tty = SBX_TTY_NEVER;
		return 0;
	case OPT_DRY_RUN:
		out->dry_run = true;
		return 0;
	case OPT_JSON:
		out->json = true;
		return 0;
	case 'h':
		out->help = true;
		return 0;
	case 'p': /* loaded by the first pass (sbx_cli_run_prepass) */
		return 0;
	case SBX_CLI_SECCOMP_ALLOW:
	case SBX_CLI_SECCOMP_DENY:
	case SBX_CLI_SECCOMP_ERRNO:
	case SBX_CLI_SECCOMP_LOG:
		return sbx_cli_seccomp_option(&spec->seccomp, c, arg, err);
	default:
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "internal: unhandled option %d",
		                     c);
	}
}

int sbx_cli_parse_run(int argc, char **argv, const char *cwd, struct sbx_cli_run *out,
                      struct sbx_error *err)
{
	_cleanup_spec_ struct sbx_spec *spec = sbx_spec_new();
	int c, r;

	memset(out, 0, sizeof(*out));
	if (!spec)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_spec_set_str(&spec->workspace, cwd, err);
	if (r < 0)
		return r;
	/* Nested, the built-in default's workspace mount means nothing: the sub-worker inherits
	 * its parent's view instead (nest.c). */
	if (getenv(SBX_SPEC_FD_ENV))
		spec->explicit_mounts = true;
	r = sbx_cli_run_prepass(argc, argv, run_options, "+:p:w:v:e:hqt", cwd, spec, &out->profile,
	                        err);
	if (r < 0)
		return r;

	/* '+': stop at the first non-option, so CMD's own options are left alone.
	 * ':': report a missing argument as ':' rather than '?'. getopt prints nothing. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:p:w:v:e:hqt", run_options, NULL)) != -1) {
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  c == ':' ? "option '%s' needs a value"
			                           : "unknown option '%s' for sbx run",
			                  bad ? bad : "?");
			if (c == '?' && bad)
				sbx_cli_hint_option(err, bad, run_options, "run");
			else
				sbx_error_hint(err, "see 'sbx run --help'");
			return r;
		}
		r = parse_one(spec, out, c, optarg, cwd, err);
		if (r < 0)
			return r;
	}
	if (out->help) {
		out->spec = TAKE_PTR(spec);
		return 0;
	}
	if (optind >= argc) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "sbx run needs a command to run");
		sbx_error_hint(err, "e.g. sbx run -- sh -c 'ls'; see 'sbx run --help'");
		return r;
	}
	if (out->json && !out->dry_run)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "--json goes with --dry-run; add --dry-run or drop --json");
	if (argc - optind > SBX_MAX_ARGS)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "the command has more than %d arguments", SBX_MAX_ARGS);
	/* The home's host facts (the caller's $HOME, ~/.gitconfig, the memory for its size). */
	r = sbx_cli_home_facts(spec, out->home_given, err);
	if (r < 0)
		return r;
	/* What hide: and --hide hide, unhide: and --unhide give back; never what a policy
	 * hides (compiled below). */
	sbx_spec_drop_unhidden(spec);
	/* A profile's policies become mounts, read-only flags and masks, or the run is
	 * refused: no rule may go unenforced. */
	if (out->profile) {
		r = sbx_policy_compile(spec, &out->profile->policies, err);
		if (r < 0)
			return r;
	}
	r = sbx_spec_finish(spec, err);
	if (r < 0)
		return r;
	out->argv = argv + optind;
	out->argc = argc - optind;
	out->spec = TAKE_PTR(spec);
	return 0;
}

static void print_landlock(FILE *f, const struct sbx_ll_plan *ll, bool proxy, bool json);

/* A socket on fd 0, 1 or 2 that the worker could aim at the network (sbx_net_stdio_socket):
 * refused, naming the fd, what it is, and what to do instead. */
static int stdio_sockets(const struct sbx_plan *plan, struct sbx_error *err)
{
	static const char *const names[] = {"standard input", "standard output", "standard error"};

	if (plan->tty == SBX_TTY_ALWAYS) /* the worker gets a terminal of its own */
		return 0;
	for (int fd = 0; fd < 3; fd++) {
		int domain = 0, type = 0, r;
		bool listening = false, connected = false;
		const char *why;

		r = sbx_fd_socket_info(fd, &domain, &type, &listening, &connected);
		if (r < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, -r,
			                     "cannot tell what %s (fd %d) is a socket of",
			                     names[fd], fd);
		if (r == 0)
			continue;
		why = sbx_net_stdio_socket(plan->net, domain, type, listening, connected);
		/* a connected unix socket passes, but one without a name of its own could still
		 * be bound to an abstract name of the host's (squatting a service's name): it
		 * gets a name the kernel picks first */
		if (!why && domain == AF_UNIX && plan->net != SBX_NET_HOST &&
		    (r = sbx_fd_unix_autobind(fd)) < 0)
			why = "it cannot be given a name of its own, and would bind one in the "
			      "host's "
			      "abstract namespace";
		if (!why)
			continue;
		r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EPERM,
		                  "%s (fd %d) is %s socket (family %d, type %d%s): %s; the "
		                  "worker would get it as it is, and --net %s allows no such way "
		                  "out",
		                  names[fd], fd,
		                  domain == AF_INET    ? "an IPv4"
		                  : domain == AF_INET6 ? "an IPv6"
		                  : domain == AF_UNIX  ? "a unix"
		                                       : "a network",
		                  domain, type & 0xf, listening ? ", listening" : "", why,
		                  sbx_net_mode_name(plan->net));
		sbx_error_hint(err,
		               "standard input, output and error may be files, pipes, terminals "
		               "or connected or listening unix stream sockets: give sbx a pipe "
		               "there instead (e.g. `... | sbx run ... | ...`), or a terminal "
		               "with -t; or run with --net host, which lets the worker reach the "
		               "network anyway");
		return r;
	}
	return 0;
}
static void print_sup(FILE *f, const struct sbx_sup_plan *sup, bool json);

static const char *flag_words(const struct sbx_plan_op *o, char *buf, size_t size)
{
	unsigned flags = o->flags;
	char sz[32] = "";

	if (o->size) {
		uint64_t v = o->size;
		const char *unit = "";

		if (v % (1ull << 30) == 0)
			v >>= 30, unit = "G";
		else if (v % (1ull << 20) == 0)
			v >>= 20, unit = "M";
		else if (v % (1ull << 10) == 0)
			v >>= 10, unit = "K";
		snprintf(sz, sizeof(sz), ",size=%llu%s", (unsigned long long)v, unit);
	}
	snprintf(buf, size, "%s%s%s%s%s%s%s%s", flags & SBX_PLAN_F_READONLY ? "ro" : "rw",
	         flags & SBX_PLAN_F_NOEXEC ? ",noexec" : "",
	         flags & SBX_PLAN_F_DEVICE ? ",dev" : "", flags & SBX_PLAN_F_IDMAP ? ",idmap" : "",
	         flags & SBX_PLAN_F_OPTIONAL ? ",optional" : "",
	         flags & SBX_PLAN_F_OWNER ? ",owner" : "",
	         flags & SBX_PLAN_F_DATA ? ",generated" : "", sz);
	return buf;
}

void sbx_cli_print_plan(FILE *f, const struct sbx_plan *plan, char *const *argv, bool json)
{
	_cleanup_nest_ struct sbx_nest *spec = NULL;
	char fl[64];

	/* where the sandbox stands: its effective spec knows */
	if (plan->spec_blob)
		(void)sbx_nest_decode(plan->spec_blob, plan->spec_len, &spec, NULL);
	if (!json) {
		fprintf(f, "profile:    %s\n", sbx_cli_esc(plan->profile));
		if (spec)
			fprintf(f, "parent:     %s; depth %u\n", sbx_cli_parent_words(spec, false),
			        spec->depth);
		if (plan->backend_landlock)
			fprintf(f, "backend:    landlock (no namespaces: Landlock alone, in the "
			           "caller's mount namespace)\n");
		if (plan->backend_landlock && plan->backend_why)
			fprintf(f,
			        "            why: %s; this sub-worker is a stacked Landlock layer "
			        "and seccomp filter in the parent's mount namespace, narrowed as a "
			        "namespaced one would be\n",
			        plan->backend_why);
		else if (!plan->backend_landlock)
			fprintf(f,
			        "backend:    namespaces (user, mount, pid, ipc, uts, cgroup%s)\n",
			        plan->new_net ? ", net" : "");
		fprintf(f, "terminal:   %s\n",
		        plan->tty == SBX_TTY_ALWAYS ? "a pseudo-terminal of its own (-t)"
		        : plan->tty == SBX_TTY_NEVER
		            ? "sbx's descriptors as they are (--no-tty)"
		            : "a pseudo-terminal of its own when stdin and stdout are terminals "
		              "and sbx is in the foreground, else sbx's descriptors as they are");
		if (plan->net >= SBX_NET_ALLOW) {
			fputs("network:    ", f);
			sbx_cli_net_yaml(f, plan->net, &plan->netpol);
			if (plan->backend_landlock && plan->new_net)
				fputs(" (sbx's proxy on the host's loopback, on ports picked at "
				      "launch, which the proxy variables name; no resolver inside; "
				      "every connect(2) made by sbx's supervisor, to the proxy "
				      "only)\n",
				      f);
			else
				fprintf(f,
				        "%s (sbx's proxy and resolver on the sandbox's loopback; "
				        "nothing else leaves it)\n",
				        plan->new_net ? "" : ", the parent's proxy");
		} else
			fprintf(f, "network:    %s\n",
			        !plan->new_net ? "host"
			        : plan->backend_landlock
			            ? "none (no loopback either: the landlock "
			              "backend has no network namespace of its own)"
			            : "none (loopback only; sbx's resolver refuses "
			              "every name)");
		if (plan->map_count == 0)
			fprintf(f,
			        "identity:   uid %u gid %u, the caller's own (no user namespace: "
			        "the landlock backend maps nothing, binds are not id-mapped)%s\n",
			        plan->inner_uid, plan->inner_gid,
			        plan->inner_uid == 0
			            ? "; uid 0 without capabilities owns root's "
			              "files, whose metadata (chmod, utimes) Landlock "
			              "does not control"
			            : "");
		else
			fprintf(
			    f,
			    "identity:   uid %u gid %u inside = host uid %u gid %u (%u id%s)%s%s\n",
			    plan->inner_uid, plan->inner_gid, plan->outer_uid, plan->outer_gid,
			    plan->map_count, plan->map_count == 1 ? "" : "s",
			    plan->idmap_binds ? ", binds id-mapped" : "",
			    plan->root_swap ? "; 0 and the worker's id swapped (nesting): the "
			                      "host root's files are the worker's"
			    : plan->map_count > 1
			        ? "; the run takes a host range of its own at launch "
			          "(/run/sbx/root-ids), which can differ from the one shown"
			        : "");
		fprintf(f, "cwd:        %s\n", sbx_cli_esc(plan->cwd));
		fprintf(f, plan->backend_landlock
		               ? "operations (none run: the landlock backend mounts nothing; the "
		                 "rules below grant what these would show):\n"
		               : "operations (in order):\n");
		for (size_t i = 0; i < plan->n_ops; i++) {
			const struct sbx_plan_op *o = &plan->ops[i];

			fprintf(f, "  %-9s %-14s %s", sbx_plan_kind_name(o->kind),
			        o->kind == SBX_PLAN_BIND || o->kind == SBX_PLAN_MIRROR ||
			                o->kind == SBX_PLAN_TMPFS
			            ? flag_words(o, fl, sizeof(fl))
			            : "",
			        sbx_cli_esc(o->target));
			if (o->source)
				fprintf(f, o->kind == SBX_PLAN_SYMLINK ? " -> %s" : " <- %s",
				        sbx_cli_esc(o->source));
			fprintf(f, "  (%s)\n", sbx_cli_esc(o->why));
		}
		sbx_cli_print_seccomp(f, &plan->seccomp, &plan->seccomp_rules, false);
		print_landlock(f, &plan->landlock,
		               plan->backend_landlock && plan->net >= SBX_NET_ALLOW, false);
		print_sup(f, &plan->sup, false);
		sbx_cli_print_resources(f, plan, false);
		if (plan->n_limits)
			fprintf(f, "limits (what the kernel does not keep of the profile):\n");
		for (size_t i = 0; i < plan->n_limits; i++)
			fprintf(f, "  %s\n", plan->limits[i]);
		fprintf(f, "environment:\n");
		for (size_t i = 0; i < plan->n_env; i++)
			fprintf(f, "  %s\n", sbx_cli_esc(plan->envp[i]));
		fprintf(f, "command:   ");
		for (char *const *a = argv; a && *a; a++)
			fprintf(f, " %s", sbx_cli_esc(*a));
		fputc('\n', f);
		return;
	}

	fputs("{\"profile\":", f);
	sbx_json_string(f, plan->profile);
	if (spec)
		fprintf(f, ",\"parent\":\"%s\",\"parent_unknown\":%s,\"depth\":%u",
		        sbx_cli_parent_words(spec, true), spec->parent_unknown ? "true" : "false",
		        spec->depth);
	if (plan->backend_landlock && plan->backend_why) {
		fputs(",\"backend\":\"landlock\",\"backend_why\":", f);
		sbx_json_string(f, plan->backend_why);
		fputs(",\"namespaces\":[]", f);
	} else if (plan->backend_landlock)
		fputs(",\"backend\":\"landlock\",\"namespaces\":[]", f);
	else
		fprintf(f,
		        ",\"backend\":\"namespaces\",\"namespaces\":[\"user\",\"mount\","
		        "\"pid\",\"ipc\",\"uts\",\"cgroup\"%s]",
		        plan->new_net ? ",\"net\"" : "");
	fprintf(f, ",\"network\":\"%s\"",
	        plan->net >= SBX_NET_ALLOW ? sbx_net_mode_name(plan->net)
	        : plan->new_net            ? "none"
	                                   : "host");
	if (plan->net >= SBX_NET_ALLOW) {
		fputs(",\"network_allow\":[", f);
		for (size_t i = 0; i < plan->netpol.n_allow; i++) {
			char e[SBX_NET_NAME_MAX + 8];

			sbx_net_rule_fmt(&plan->netpol.allow[i], e, sizeof(e));
			fputs(i ? "," : "", f);
			sbx_json_string(f, e);
		}
		fputs("],\"network_deny\":[", f);
		for (size_t i = 0; i < plan->netpol.n_deny; i++) {
			char e[SBX_NET_NAME_MAX + 8];

			sbx_net_rule_fmt(&plan->netpol.deny[i], e, sizeof(e));
			fputs(i ? "," : "", f);
			sbx_json_string(f, e);
		}
		fputs("]", f);
	}
	fprintf(f, ",\"tty\":\"%s\"",
	        plan->tty == SBX_TTY_ALWAYS  ? "always"
	        : plan->tty == SBX_TTY_NEVER ? "never"
	                                     : "auto");
	fprintf(f,
	        ",\"identity\":{\"uid\":%u,\"gid\":%u,\"host_uid\":%u,\"host_gid\":%u,"
	        "\"count\":%u,\"idmap_binds\":%s,\"root_swap\":%s,\"user_namespace\":%s}",
	        plan->inner_uid, plan->inner_gid, plan->outer_uid, plan->outer_gid, plan->map_count,
	        plan->idmap_binds ? "true" : "false", plan->root_swap ? "true" : "false",
	        plan->map_count ? "true" : "false");
	fputs(",\"cwd\":", f);
	sbx_json_string(f, plan->cwd);
	fputs(",\"operations\":[", f);
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct sbx_plan_op *o = &plan->ops[i];

		fprintf(f, "%s{\"op\":\"%s\",\"target\":", i ? "," : "",
		        sbx_plan_kind_name(o->kind));
		sbx_json_string(f, o->target);
		if (o->source) {
			fputs(o->kind == SBX_PLAN_SYMLINK ? ",\"link\":" : ",\"source\":", f);
			sbx_json_string(f, o->source);
		}
		fprintf(f,
		        ",\"readonly\":%s,\"noexec\":%s,\"device\":%s,\"idmap\":%s,"
		        "\"optional\":%s",
		        o->flags & SBX_PLAN_F_READONLY ? "true" : "false",
		        o->flags & SBX_PLAN_F_NOEXEC ? "true" : "false",
		        o->flags & SBX_PLAN_F_DEVICE ? "true" : "false",
		        o->flags & SBX_PLAN_F_IDMAP ? "true" : "false",
		        o->flags & SBX_PLAN_F_OPTIONAL ? "true" : "false");
		if (o->size)
			fprintf(f, ",\"size\":%llu", (unsigned long long)o->size);
		if (o->flags & SBX_PLAN_F_DATA)
			fputs(",\"generated\":true", f);
		fputs(",\"why\":", f);
		sbx_json_string(f, o->why);
		fputc('}', f);
	}
	fputs("],\"seccomp\":", f);
	sbx_cli_print_seccomp(f, &plan->seccomp, &plan->seccomp_rules, true);
	print_landlock(f, &plan->landlock, plan->backend_landlock && plan->net >= SBX_NET_ALLOW,
	               true);
	print_sup(f, &plan->sup, true);
	sbx_cli_print_resources(f, plan, true);
	fputs(",\"limits\":[", f);
	for (size_t i = 0; i < plan->n_limits; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, plan->limits[i]);
	}
	fputs("],\"env\":[", f);
	for (size_t i = 0; i < plan->n_env; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, plan->envp[i]);
	}
	fputs("],\"argv\":[", f);
	for (char *const *a = argv; a && *a; a++) {
		if (a != argv)
			fputc(',', f);
		sbx_json_string(f, *a);
	}
	fputs("]}\n", f);
}

static void print_landlock(FILE *f, const struct sbx_ll_plan *ll, bool proxy, bool json)
{
	char ops[128], acc[512];

	if (!json) {
		if (!ll->enabled) {
			fprintf(f, "landlock:   none%s%s%s\n", ll->off ? " (" : "",
			        ll->off ? sbx_cli_esc(ll->off) : "", ll->off ? ")" : "");
			return;
		}
		fprintf(f, "landlock:   ABI %d; tcp %s; scopes %s%s%s\n", ll->abi,
		        !ll->handled_net ? "not restricted"
		        : ll->n_connect_ports || proxy
		            ? "bind denied, connect only to sbx's proxy ports (chosen at launch)"
		            : "bind and connect denied",
		        ll->scoped & SBX_LL_SCOPE_ABSTRACT_UNIX ? "abstract-unix " : "",
		        ll->scoped & SBX_LL_SCOPE_SIGNAL ? "signal" : "", ll->scoped ? "" : "none");
		if (!ll->handled_fs) {
			fprintf(f, "landlock files: not handled (scopes only): the mounts enforce "
			           "every right, and nested sandboxes can still mount\n");
			return;
		}
		fprintf(f, "landlock rules (everything else denied):\n");
		for (size_t i = 0; i < ll->n_rules; i++)
			fprintf(f, "  %-28s %-34s (%s)\n", sbx_cli_esc(ll->rules[i].path),
			        sbx_ops_format(ll->rules[i].ops, ops, sizeof(ops)),
			        sbx_cli_esc(ll->rules[i].why));
		fprintf(f, "landlock compile: %s\n",
		        ll->n_inexact ? "INEXACT (stricter than the policies):" : "exact");
		for (size_t i = 0; i < ll->n_inexact; i++)
			fprintf(f, "  %s\n", sbx_cli_esc(ll->inexact[i]));
		if (ll->lost) {
			fprintf(f, "landlock backend gives up:\n");
			for (const char *l = ll->lost; *l;
			     l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
				char line[2048];

				snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
				fprintf(f, "  %s\n", sbx_cli_esc(line));
			}
		}
		return;
	}
	fprintf(f,
	        ",\"landlock\":{\"enabled\":%s,\"abi\":%d,\"files\":%s,\"exact\":%s,"
	        "\"tcp_denied\":%s,\"scoped\":[%s%s%s],\"rules\":[",
	        ll->enabled ? "true" : "false", ll->abi,
	        ll->enabled && ll->handled_fs ? "true" : "false", ll->n_inexact ? "false" : "true",
	        ll->handled_net ? "true" : "false",
	        ll->scoped & SBX_LL_SCOPE_ABSTRACT_UNIX ? "\"abstract_unix\"" : "",
	        (ll->scoped & SBX_LL_SCOPE_ABSTRACT_UNIX) && (ll->scoped & SBX_LL_SCOPE_SIGNAL)
	            ? ","
	            : "",
	        ll->scoped & SBX_LL_SCOPE_SIGNAL ? "\"signal\"" : "");
	for (size_t i = 0; ll->enabled && i < ll->n_rules; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		sbx_json_string(f, ll->rules[i].path);
		fputs(",\"ops\":", f);
		sbx_json_string(f, sbx_ops_format(ll->rules[i].ops, ops, sizeof(ops)));
		fputs(",\"access\":", f);
		sbx_json_string(f, sbx_ll_fs_format(ll->rules[i].access, acc, sizeof(acc)));
		fputs(",\"why\":", f);
		sbx_json_string(f, ll->rules[i].why);
		if (ll->rules[i].hidden)
			fputs(",\"hidden\":true", f);
		fputc('}', f);
	}
	fputs("],\"inexact\":[", f);
	for (size_t i = 0; i < ll->n_inexact; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, ll->inexact[i]);
	}
	if (ll->off) {
		fputs("],\"off\":", f);
		sbx_json_string(f, ll->off);
		fputs(",\"gives_up\":[", f);
	} else {
		fputs("],\"gives_up\":[", f);
	}
	for (const char *l = ll->lost ? ll->lost : ""; *l;) {
		size_t n = strcspn(l, "\n");
		char line[1024];

		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		if (l != ll->lost)
			fputc(',', f);
		sbx_json_string(f, line);
		l += n + (l[n] != 0);
	}
	fputs("]}", f);
}

/* The supervisor's plan (plan->sup): what the worker's listener filter sends to sbx. */
static const char *const approval_words[] = {"allow", "ask", "deny"};
static const char *const class_words[SBX_AC_COUNT] = {"write", "overwrite", "delete", "rename"};
static const struct {
	unsigned bit;
	const char *name;
} family_words[] = {
    {SBX_SUP_F_CREATE, "create"}, {SBX_SUP_F_WRITE, "write"}, {SBX_SUP_F_DELETE, "delete"},
    {SBX_SUP_F_META, "metadata"}, {SBX_SUP_F_READ, "read"},
};

static bool area_says_something(const struct sbx_sup_area *a)
{
	for (size_t c = 0; c < SBX_AC_COUNT; c++)
		if (a->approvals.op[c] != SBX_APPROVE_ALLOW)
			return true;
	return a->n_suffixes || a->max_file_bytes;
}

static bool wants_areas(const struct sbx_sup_plan *sup)
{
	for (size_t i = 0; i < sup->n_areas; i++)
		if (area_says_something(&sup->areas[i]))
			return true;
	return false;
}

static void print_sup_text(FILE *f, const struct sbx_sup_plan *sup)
{
	bool areas = false;

	fprintf(f, "supervisor: %s", sup->enabled ? "on, for" : "off");
	for (size_t i = 0, n = 0; sup->enabled && i < SBX_ARRAY_SIZE(family_words); i++)
		if (sup->families & family_words[i].bit)
			fprintf(f, "%s %s", n++ ? "," : "", family_words[i].name);
	if (sup->enabled)
		fputs(" calls", f);
	else if (sup->n_protected || sup->meta_writable_only || sup->n_hide_globs ||
	         wants_areas(sup))
		fputs(" (it cannot be installed here: an ask is a denial, and what it would "
		      "protect below is not protected)",
		      f);
	else
		fputs(" (nothing to supervise)", f);
	fprintf(f, "; broker %s; timeout %u s; audit log %s%s%s\n",
	        sup->approve ? sbx_cli_esc(sup->approve)
	                     : "tty where the caller has a terminal, deny otherwise",
	        sup->timeout_ms / 1000, sup->audit_log ? sbx_cli_esc(sup->audit_log) : "none",
	        sup->label ? ", label " : "", sup->label ? sbx_cli_esc(sup->label) : "");
	if (sup->n_protected)
		fprintf(f, "supervisor protects (absent at launch, not to be created):\n");
	for (size_t i = 0; i < sup->n_protected; i++)
		fprintf(f, "  %-28s (%s; %s)\n", sbx_cli_esc(sup->protected_paths[i].path),
		        sup->protected_paths[i].why, sup->protected_paths[i].fix);
	if (sup->meta_writable_only && sup->enabled)
		fprintf(f, "supervisor refuses: chmod, chown, utimes, removing extended attributes "
		           "and setting inode flags (chattr) outside the writable mounts (the "
		           "landlock backend: Landlock has no right for them)\n");
	else if (sup->meta_writable_only)
		fprintf(
		    f,
		    "not held: chmod, utimes and extended attributes outside the writable "
		    "mounts (the landlock backend: Landlock has no right for them, and no "
		    "supervisor can be installed here; a parent's does not watch them); "
		    "set-id bits and write for others stay denied by seccomp (as root, chmod and "
		    "chown too)\n");
	for (size_t i = 0; i < sup->n_areas; i++) {
		const struct sbx_sup_area *a = &sup->areas[i];
		const char *sep = " ";

		if (!area_says_something(a))
			continue;
		if (!areas)
			fprintf(f, "supervisor approvals and read caps:\n");
		areas = true;
		fprintf(f, "  %-28s", sbx_cli_esc(a->target));
		for (size_t c = 0; c < SBX_AC_COUNT; c++) {
			if (a->approvals.op[c] == SBX_APPROVE_ALLOW)
				continue;
			fprintf(f, "%s%s %s", sep, class_words[c],
			        approval_words[a->approvals.op[c]]);
			sep = ", ";
		}
		if (a->n_suffixes) {
			fprintf(f, "%sreads only names ending", sep);
			for (size_t k = 0; k < a->n_suffixes; k++)
				fprintf(f, " %s", sbx_cli_esc(a->suffixes[k]));
			sep = ", ";
		}
		if (a->max_file_bytes)
			fprintf(f, "%sreads files of at most %llu bytes", sep,
			        (unsigned long long)a->max_file_bytes);
		fputc('\n', f);
	}
	if (sup->hide_later)
		fprintf(f,
		        "supervisor refuses opening for reading, moving and linking what a hide "
		        "glob or path matches, files created after launch included (%zu "
		        "entr%s; "
		        "hide_later, which turns nesting off: sub-sandboxes run on the landlock "
		        "backend, served by the supervisor)\n",
		        sup->n_hide_globs + sup->n_hide_exact,
		        sup->n_hide_globs + sup->n_hide_exact == 1 ? "y" : "ies");
	else if (sup->n_hide_globs && (sup->families & SBX_SUP_F_READ))
		fprintf(
		    f,
		    "supervisor refuses opening what a hide glob matches where a mount has read "
		    "caps (%zu glob%s; elsewhere only what the launch's walk found is hidden)\n",
		    sup->n_hide_globs, sup->n_hide_globs == 1 ? "" : "s");
}

static void json_str_or_null(FILE *f, const char *s)
{
	if (s)
		sbx_json_string(f, s);
	else
		fputs("null", f);
}

static void print_sup(FILE *f, const struct sbx_sup_plan *sup, bool json)
{
	if (!json) {
		print_sup_text(f, sup);
		return;
	}
	fprintf(f, ",\"supervisor\":{\"enabled\":%s,\"families\":[",
	        sup->enabled ? "true" : "false");
	for (size_t i = 0, n = 0; i < SBX_ARRAY_SIZE(family_words); i++)
		if (sup->families & family_words[i].bit)
			fprintf(f, "%s\"%s\"", n++ ? "," : "", family_words[i].name);
	fputs("],\"protected\":[", f);
	for (size_t i = 0; i < sup->n_protected; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", f);
		sbx_json_string(f, sup->protected_paths[i].path);
		fputs(",\"why\":", f);
		sbx_json_string(f, sup->protected_paths[i].why);
		fputs(",\"fix\":", f);
		sbx_json_string(f, sup->protected_paths[i].fix);
		fputc('}', f);
	}
	fputs("],\"areas\":[", f);
	for (size_t i = 0; i < sup->n_areas; i++) {
		const struct sbx_sup_area *a = &sup->areas[i];

		fputs(i ? ",{\"target\":" : "{\"target\":", f);
		sbx_json_string(f, a->target);
		fprintf(f, ",\"writable\":%s,\"approvals\":{", a->writable ? "true" : "false");
		for (size_t c = 0; c < SBX_AC_COUNT; c++)
			fprintf(f, "%s\"%s\":\"%s\"", c ? "," : "", class_words[c],
			        approval_words[a->approvals.op[c]]);
		fputs("},\"suffixes\":[", f);
		for (size_t k = 0; k < a->n_suffixes; k++) {
			if (k)
				fputc(',', f);
			sbx_json_string(f, a->suffixes[k]);
		}
		fprintf(f, "],\"max_file_bytes\":%llu}", (unsigned long long)a->max_file_bytes);
	}
	fprintf(f, "],\"meta_writable_only\":%s,\"hide_later\":%s,\"hide_globs\":[",
	        sup->meta_writable_only ? "true" : "false", sup->hide_later ? "true" : "false");
	for (size_t i = 0; i < sup->n_hide_globs; i++) {
		if (i)
			fputc(',', f);
		sbx_json_string(f, sup->hide_globs[i]);
	}
	fputs("],\"approve\":", f);
	json_str_or_null(f, sup->approve);
	fprintf(f, ",\"timeout_ms\":%u,\"audit_log\":", sup->timeout_ms);
	json_str_or_null(f, sup->audit_log);
	fputs(",\"label\":", f);
	json_str_or_null(f, sup->label);
	fputc('}', f);
}

extern char **environ;

/*
 * sbx's own state first: its cache directory is made if missing, and wherever a mount shows it
 * (src/os/state.c finds where) the spec hides it, pinned, before any worker runs. Then hide
 * globs: one walk of the host (src/os/globwalk.c), cached there ($XDG_CACHE_HOME/sbx or
 * ~/.cache/sbx) when sbx can trust the directory, whose matches the spec hides.
 */
static int run_globwalk(struct sbx_cli_run *run, const struct sbx_host *host, struct sbx_error *err)
{
	_cleanup_free_ char *dir = NULL;
	struct sbx_globwalk_matches found = {0};
	struct sbx_state_pins pins = {0};
	int r = sbx_state_guard(run->spec, host, true, &pins, &dir, err);

	if (r >= 0)
		r = sbx_spec_add_pins(run->spec, pins.paths, pins.n, err);
	sbx_state_pins_clear(&pins);
	if (r < 0 || run->spec->n_hide_globs == 0)
		return r;
	r = sbx_globwalk_run(run->spec, dir, &found, &run->walk, err);
	if (r >= 0)
		r = sbx_spec_add_hides(run->spec, found.paths, found.n, err);
	sbx_globwalk_matches_clear(&found);
	return r;
}

/* One view of a hidden link's target (hide_link_targets). */
struct link_views {
	struct sbx_spec *spec;
	const char *link, *target;
	bool added;
	struct sbx_error *err;
};

static int link_view(void *ctx, const char *view, bool readonly)
{
	struct link_views *v = ctx;
	int r;

	if (readonly) {
		r = sbx_error_set(v->err, SBX_ERR_USAGE, EPERM,
		                  "the hidden path %s is a symbolic link to %s, which the sandbox "
		                  "shows read-only at %s: a secret written through the link would "
		                  "be readable there, and hiding it could take what the sandbox "
		                  "needs",
		                  v->link, v->target, view);
		sbx_error_hint(v->err, "remove the link (a sandbox may have planted it), or hide "
		                       "its target yourself with --hide");
		return r;
	}
	r = sbx_spec_add_hide(v->spec, view, v->err);
	v->added = v->added || r >= 0;
	return r;
}

/*
 * A hidden path that is a symbolic link: masking (or denying) the link keeps it from being
 * read through, but what the host writes to the hidden name goes where the link leads (a
 * worker's `ln -s notes.txt .env` in one run; the user's `.env` written later; notes.txt
 * read in the next). So what it leads to on the host is hidden too, at every view the
 * sandbox has of it; one that only a read-only mount shows (a system file, a :ro mount) is
 * refused rather than hidden. Not visible at all: nothing to hide. The plan is built again
 * with what was added.
 */
static int hide_link_targets(struct sbx_cli_run *run, const struct sbx_host *host,
                             struct sbx_plan **plan, struct sbx_error *err)
{
	struct link_views v = {.spec = run->spec, .err = err};
	size_t n = run->spec->n_hide;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n; i++) {
		char dir[SBX_PATH_MAX], hp[SBX_PATH_MAX], full[2 * SBX_PATH_MAX];
		char target[SBX_PATH_MAX];
		const char *name = strrchr(run->spec->hide[i], '/'), *why = NULL;
		size_t op;

		/* its folder's host path (the path itself resolves to its own mask) */
		snprintf(dir, sizeof(dir), "%.*s",
		         name == run->spec->hide[i] ? 1 : (int)(name - run->spec->hide[i]),
		         run->spec->hide[i]);
		if (sbx_plan_resolve(*plan, dir, &op, hp, sizeof(hp), NULL) < 0)
			continue;
		snprintf(full, sizeof(full), "%s/%s", strcmp(hp, "/") ? hp : "", name + 1);
		r = sbx_fs_hidden_name(full, target, sizeof(target), &why);
		if (r < 0 && why) {
			r = sbx_error_set(err, SBX_ERR_USAGE, -r,
			                  "the hidden path %s is %s; sbx cannot hide what the host "
			                  "writes to it",
			                  run->spec->hide[i], why);
			sbx_error_hint(err,
			               "remove it or its other names (a sandbox may have made "
			               "them), or, if it holds no secret (a package's file hard-"
			               "linked from a store), give it back with --unhide PATH");
			break;
		}
		if (r <= 0) {
			r = 0;
			continue;
		}
		v.link = run->spec->hide[i];
		v.target = target;
		r = sbx_plan_host_views(*plan, target, link_view, &v);
	}
	if (r >= 0 && v.added) {
		sbx_plan_free(*plan);
		*plan = NULL;
		r = sbx_plan_build(run->spec, host, plan, err);
	}
	return r < 0 ? r : 0;
}

/*
 * Finish the plan (sbx_plan_finish, core) with this host's facts: the Landlock ABI, whether sbx
 * runs as root, and what is known of user namespaces. With --backend auto a dry run or a
 * nested sandbox probes them now (`probe`), to say or to choose the backend before anything
 * runs; a launch just tries the namespaces backend, which spares every launch a probe
 * process, and finishes again with its error (`failed`) if they are off by configuration.
 * What Landlock cannot keep on this kernel (--best-effort) is said on stderr.
 */
static int finish(struct sbx_cli_run *run, const struct sbx_host *host, struct sbx_plan *plan,
                  const struct sbx_gitguard *git, bool parent_unknown, bool probe,
                  const struct sbx_error *failed, struct sbx_error *err)
{
	struct sbx_finish_facts facts = {
	    .landlock_abi = sbx_landlock_abi(),
	    .root = host->euid == 0,
	    .ll_host = &sbx_landlock_host,
	    /* can the worker get the supervisor's listener? A throwaway child only where sbx
	     * is itself under a filter (nested under a supervised parent: -EBUSY) */
	    .sup_listener = sbx_sup_probe_listener(),
	};
	struct sbx_finish_in in = {
	    .spec = run->spec,
	    .policies = run->profile ? &run->profile->policies : NULL,
	    .backend = run->backend,
	    .child = run->nest_child,
	    .parent_unknown = parent_unknown,
	};
	struct sbx_cli_git_lines lines;
	char warn[2048];
	int r;

	if (failed) {
		facts.userns = SBX_USERNS_UNAVAILABLE;
		facts.userns_why = *failed;
	} else if (run->backend == SBX_ASK_AUTO && probe) {
		r = sbx_userns_probe();
		facts.userns = r < 0 ? SBX_USERNS_UNAVAILABLE : SBX_USERNS_AVAILABLE;
		if (r < 0)
			sbx_userns_explain(-r, false, &facts.userns_why);
	}
	sbx_cli_guard_lines(git, &lines, &in);
	r = sbx_plan_finish(&in, &facts, plan, warn, sizeof(warn), err);
	for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(stderr, "sbx: warning: Landlock %s\n", sbx_cli_esc(line));
	return r;
}

/* With --best-effort, say what the landlock backend does not enforce. */
static void warn_not_enforced(const struct sbx_cli_run *run, const struct sbx_plan *plan)
{
	if (!plan->backend_landlock || !run->spec->best_effort || !plan->landlock.lost)
		return;
	for (const char *l = strstr(plan->landlock.lost, "NOT ENFORCED: "); l;
	     l = strstr(l + 1, "NOT ENFORCED: ")) {
		char line[2048];

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
		fprintf(stderr, "sbx: warning: landlock backend: %s\n", sbx_cli_esc(line));
	}
}

/* The stderr lines of decisions are bounded as the audit log's records are (sbx/audit.h):
 * a run of like decisions is one line and then "N more like it", at most
 * SBX_AUDIT_RATE_MAX lines a second. One supervisor per sbx: static. */
static struct sbx_audit_fold print_fold;
static char print_pending[16384];

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One line (without "sbx: supervisor: "), standing for `decisions` decisions, within the
 * rate cap; `more` > 0: it is the last of that many folded ones. */
static void print_line(const char *body, uint64_t more, uint64_t decisions, uint64_t now)
{
	char line[16384 + 128];
	uint64_t said;
	int n;

	if (!body[0] || !sbx_audit_rate(&print_fold, now, decisions, strlen(body), &said))
		return;
	if (said)
		fprintf(stderr,
		        "sbx: supervisor: %llu more decisions not shown (at most %u lines and %u "
		        "KiB a second, %llu MiB in all)\n",
		        (unsigned long long)said, SBX_AUDIT_RATE_MAX, SBX_AUDIT_BYTES_PER_SEC >> 10,
		        SBX_AUDIT_BYTES_MAX >> 20);
	if (more)
		n = snprintf(line, sizeof(line), "sbx: supervisor: %llu more like it, the last: %s",
		             (unsigned long long)more, body);
	else
		n = snprintf(line, sizeof(line), "sbx: supervisor: %s", body);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) /* cut, but still a line */
		memcpy(line + sizeof(line) - 5, "...\n", 5);
	/* one write: the worker writes to the same stderr meanwhile */
	fputs(line, stderr);
}

/* At the end: the folded line still pending, and the lines the cap dropped. */
static void print_flush(void)
{
	uint64_t n = sbx_audit_fold_end(&print_fold), now = mono_ms();

	if (n)
		print_line(print_pending, n, n, now);
	n = sbx_audit_rate_end(&print_fold);
	if (n)
		fprintf(stderr,
		        "sbx: supervisor: %llu more decisions not shown (at most %u lines a "
		        "second)\n",
		        (unsigned long long)n, SBX_AUDIT_RATE_MAX);
}

/* One supervised decision on stderr (os modules do not print): denials always, every
 * decision with --verbose; folded and capped (print_line). */
static void print_decision(void *ctx, const struct sbx_sup_event *ev)
{
	const struct sbx_sup_req *q = ev->req;
	const struct sbx_sup_verdict *v = ev->verdict;
	const char *answer = v->answer == SBX_SUP_DENY       ? "denied"
	                     : v->answer == SBX_SUP_CONTINUE ? "continued"
	                     : ev->errnum                    ? "performed, failed"
	                                                     : "performed";
	const char *err = ev->errnum && sbx_errno_name(ev->errnum) ? sbx_errno_name(ev->errnum)
	                  : ev->errnum                             ? "error"
	                                                           : NULL;
	char line[16384];
	uint64_t now = mono_ms(), repeated, flush;
	enum sbx_audit_fold_act act;
	int n;

	if (!ctx && v->answer != SBX_SUP_DENY)
		return;
	act = sbx_audit_fold(&print_fold, q, v, ev->errnum, now, &repeated, &flush);
	if (flush)
		print_line(print_pending, flush, flush, now);
	n = snprintf(line, sizeof(line), "%s %s %s%s%s (%s by %s[%d]%s%s, %s, %llu us)%s%s\n",
	             answer, sbx_sup_op_name(q->op),
	             sbx_cli_esc(q->t.path        ? q->t.path
	                         : ev->asked_path ? ev->asked_path
	                                          : "?"),
	             q->t2.path ? " -> " : "", q->t2.path ? sbx_cli_esc(q->t2.path) : "",
	             q->call ? q->call : "?", sbx_cli_esc(q->comm ? q->comm : "?"), q->pid,
	             err ? ": " : "", err ? err : "", sbx_sup_decider_name(v->decider),
	             (unsigned long long)ev->latency_us, v->rule[0] ? ": " : "",
	             v->rule[0] ? sbx_cli_esc(v->rule) : "");
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) /* cut, but still a line */
		memcpy(line + sizeof(line) - 5, "...\n", 5);
	if (act == SBX_AUDIT_FOLD_KEEP)
		memcpy(print_pending, line, sizeof(line));
	else if (act == SBX_AUDIT_FOLD_WRITE)
		print_line(line, repeated, repeated, now);
	else
		print_line(line, 0, 1, now);
}

/* The supervisor for a plan that needs one (plan->sup.enabled), with its broker (NULL where
 * no approval asks) and the audit log (both borrowed); *out stays NULL otherwise. Where the kernel
 * cannot supervise, refused, or with --best-effort a warning and none. */
static int make_supervisor(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                           struct sbx_audit *audit, const char *id, struct sbx_broker *broker,
                           struct sbx_supervisor **out, struct sbx_error *err)
{
	int r;

	*out = NULL;
	if (!plan->sup.enabled)
		return 0;
	r = sbx_supervisor_new(plan, broker, audit, run->verbose, out, err);
	if (r >= 0)
		sbx_supervisor_set_id(*out, id);
	/* the landlock backend's allowlist has no way but the supervisor to check an
	 * address: never without it */
	if (r < 0 && err->kind == SBX_ERR_UNSUPPORTED && run->spec->best_effort &&
	    !(plan->sup.families & SBX_SUP_F_CONNECT)) {
		fprintf(stderr,
		        "sbx: warning: %s; running without the supervisor (--best-effort): "
		        "protected paths absent at launch, approvals and the landlock "
		        "backend's metadata rules do not hold\n",
		        sbx_cli_esc(err->msg));
		memset(err, 0, sizeof(*err));
		return 0;
	}
	if (r < 0)
		return r;
	/* ctx: non-NULL with --verbose */
	sbx_supervisor_on_event(*out, print_decision, run->verbose ? (void *)1 : NULL);
	return 0;
}

/*
 * A nested run whose network is an allowlist or learn, under a parent with one: with the
 * parent's very list it shares the parent's namespace, proxy and resolver; with a narrower
 * one (sbx_spec_narrow refused a wider) it gets a namespace and a proxy of its own, whose
 * every dial goes through the parent's proxy, the only way out of the parent's namespace.
 */
static int nested_net(const struct sbx_nest *parent, struct sbx_cli_run *run, struct sbx_plan *plan,
                      struct sbx_error *err)
{
	const struct sbx_netpolicy *a = &parent->netpol, *b = &run->spec->netpol;
	bool same = a->n_allow == b->n_allow && a->n_deny == b->n_deny;

	if (plan->net < SBX_NET_ALLOW)
		return 0;
	if (parent->net < SBX_NET_ALLOW) /* under host: a namespace and a proxy of its own */
		return sbx_cli_net_plan_env(plan, err);
	for (size_t i = 0; same && i < a->n_allow; i++)
		same = !strcmp(a->allow[i].name, b->allow[i].name) &&
		       a->allow[i].wildcard == b->allow[i].wildcard &&
		       a->allow[i].allow_private == b->allow[i].allow_private;
	for (size_t i = 0; same && i < a->n_deny; i++)
		same = !strcmp(a->deny[i].name, b->deny[i].name) &&
		       a->deny[i].wildcard == b->deny[i].wildcard;
	if (parent->backend == SBX_BACKEND_LANDLOCK) {
		/* the parent's proxy is on the host's loopback, its connects checked by the
		 * parent's supervisor: the very list keeps them (and the variables that name
		 * its ports); a narrower one would need a proxy of its own, which the finish
		 * refuses (new_net stays) */
		if (!same || plan->net != parent->net)
			return 0;
		plan->new_net = false;
		return sbx_cli_net_plan_env_inherited(plan, err);
	}
	if (same && plan->net == parent->net)
		plan->new_net = false; /* the parent's namespace, proxy and resolver */
	else
		run->net_chained = true;
	return sbx_cli_net_plan_env(plan, err);
}

/* The options before the command (up to "--"; a command after no "--" is glanced at too,
 * which only costs the early namespaces), glanced at for sbx_launch_prestart: false where they ask
 * for help, a dry run or a backend (getopt's abbreviations of them pass: the parse ends what they
 * made). */
static bool early_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "--dry-run") == 0 || strncmp(argv[i], "--backend", 9) == 0)
			return false;
	return true;
}

/* --net host (or --network host) among the options: no network namespace made early (a
 * profile that asks for the host's network leaves the one made unused). The last one
 * counts, as in the parse. */
static bool early_net_host(int argc, char **argv)
{
	bool host = false;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *v = NULL;

		if ((strcmp(a, "--net") == 0 || strcmp(a, "--network") == 0) && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(a, "--net=", 6) == 0)
			v = a + 6;
		else if (strncmp(a, "--network=", 10) == 0)
			v = a + 10;
		if (v)
			host = strcmp(v, "host") == 0;
	}
	return host;
}

struct early_args {
	int argc;
	char **argv;
	bool started; /* the early child started, and reads the per-user counts */
};

/* sbx_probe_host_then's before: true where the early child started, which reads the
 * per-user counts for the plan (filled in before it is built: counts_in). */
static bool early_start_here(void *arg)
{
	struct early_args *ea = arg;

	ea->started = !getenv(SBX_SPEC_FD_ENV) && early_wanted(ea->argc, ea->argv) &&
	              sbx_launch_prestart(!early_net_host(ea->argc, ea->argv));
	return ea->started;
}

/* The per-user counts the probe left to the early child: its, or read now. */
static void counts_in(struct sbx_host *host, bool from_child)
{
	if (from_child && !sbx_launch_prestart_ucounts(host->ucount))
		sbx_probe_ucounts(host);
}

int sbx_cmd_run(int argc, char **argv)
{
	struct sbx_supervisor *sup = NULL;
	struct sbx_netproxy *net = NULL;
	struct sbx_cli_run run = {0};
	_cleanup_plan_ struct sbx_plan *plan = NULL;
	struct sbx_host host = {0};
	struct sbx_error err = {0};
	struct sbx_gitguard git = {0};
	_cleanup_nest_ struct sbx_nest *parent = NULL;
	struct sbx_cli_audit audit = {0};
	struct sbx_cli_fleet fleet = {.dirfd = -1};
	struct sbx_broker *broker = NULL;
	struct sbx_cli_audit_counts counts = {0};
	struct sbx_cli_limits lims = {0};
	_cleanup_close_ int root_ids_fd = -1;
	bool parent_unknown = false, counts_from_child = false;
	int status = 125;
	int r;

	/* A top-level launch of the namespaces backend: its namespaces made beside the planning
	 * (os/launch.h), from the start of the host's probe, whose per-user counts their child
	 * reads before it makes them (sbx reading /proc/sys/user while a network namespace's
	 * sysctls are registered would be held up); the options glanced at only to leave out
	 * what surely makes none (--help, --dry-run, --backend: the parse below decides, and ends
	 * the children of a launch that makes none) and to leave the network out for --net host. */
	{
		struct early_args ea = {argc, argv, false};

		r = sbx_probe_host_then(&host, environ, early_start_here, &ea, &err);
		counts_from_child = ea.started;
	}
	if (r < 0)
		goto fail;
	SBX_TRACE("host probed");
	r = sbx_cli_parse_run(argc, argv, host.cwd, &run, &err);
	if (r < 0 || run.help || run.dry_run || run.nest_flags || getenv(SBX_SPEC_FD_ENV) ||
	    run.backend == SBX_ASK_LANDLOCK)
		sbx_launch_prestart_end();
	SBX_TRACE("options and profile parsed");
	sbx_cli_notes = run.quiet ? SBX_NOTES_QUIET : run.verbose ? SBX_NOTES_ALL : SBX_NOTES_SHORT;
	if (r >= 0 && run.help) {
		fputs(sbx_run_usage, stdout);
		status = 0;
		goto out;
	}
	/* No spec: outside any sandbox, or inside one that sbx cannot identify: refused where
	 * SBX=1 says it is sbx's own worker (before any complaint about the flags, which would
	 * be judged as a top-level launch's), marked "parent unknown" where something else
	 * confines it. */
	if (!getenv(SBX_SPEC_FD_ENV)) {
		struct sbx_error why = {0};

		if (sbx_cli_origin(&parent_unknown, &why) < 0) {
			err = why;
			goto fail;
		}
	}
	if (r < 0)
		goto fail;
	/* Inside a sandbox (SBX_SPEC_FD), the sub-worker's spec is its parent's, narrowed. */
	r = sbx_cli_nest_load(&parent, &err);
	if (r < 0)
		goto fail;
	if (parent) {
		r = sbx_cli_nest_plan(parent, &run, &host, &plan, &err);
		if (r >= 0)
			sbx_cli_nest_unhide_notes(stderr, parent, run.spec);
		if (r >= 0)
			r = nested_net(parent, &run, plan, &err);
	} else if (run.nest_flags) {
		r = sbx_error_set(&err, SBX_ERR_USAGE, EINVAL,
		                  "--restrict, --allow-read and --allow-write narrow a parent "
		                  "sandbox, and this sbx does not run inside one");
		sbx_error_hint(&err, "outside a sandbox, choose what is visible with -v PATH[:ro]");
	} else {
		/* As root, a host id range of this sandbox's own (os/uidslot.h); held by
		 * root_ids_fd, which closes with sbx. */
		if (host.euid == 0 && !run.dry_run) {
			host.root_map_base = sbx_uidslot_take(&root_ids_fd);
			if (!host.root_map_base)
				fprintf(stderr,
				        "sbx: warning: no host id range of this sandbox's own "
				        "(/run/sbx/root-ids: all %u held, or not root's): it "
				        "shares the "
				        "per-user kernel counts of other root-started sandboxes\n",
				        SBX_ROOT_SLOTS);
		}
		/* Its rank among the caller's sandboxes running at once: the share of the
		 * per-user counts it plans with (os/shareslot.h). */
		if (!run.dry_run)
			host.share_rank = sbx_cli_share_rank(&fleet);
		/* The proxy's variables; the host's resolver sockets hidden. */
		r = sbx_cli_net_spec(run.spec, true, &err);
		/* Hide globs become exact paths to mask: one walk, cached. */
		if (r >= 0)
			r = run_globwalk(&run, &host, &err);
		SBX_TRACE("network spec, hide globs");
		counts_in(&host, counts_from_child);
		if (r >= 0)
			r = sbx_plan_build(run.spec, &host, &plan, &err);
		if (r >= 0 && run.spec->n_hide)
			r = hide_link_targets(&run, &host, &plan, &err);
		SBX_TRACE("plan built");
		/* git's control surface guarded; guards the host lacks dropped */
		if (r >= 0)
			r = sbx_cli_guard_plan(run.spec, &host, &plan, &git, &err);
		SBX_TRACE("git surveyed");
	}
	if (r < 0)
		goto fail;
	r = finish(&run, &host, plan, &git, parent_unknown, run.dry_run || parent, NULL, &err);
	if (r < 0)
		goto fail;
	SBX_TRACE("plan finished");
	if (plan->backend_landlock)
		sbx_cli_share_release();
	plan->tty = run.tty;
	warn_not_enforced(&run, plan);
	sbx_cli_print_notes(stderr, run.profile, plan);
	if (plan->cwd_fallback && sbx_cli_notes != SBX_NOTES_QUIET && !parent)
		fprintf(stderr,
		        "sbx: note: no mount shows the workspace %s (-v, --mount or --root replace "
		        "it): the working directory is /; name one with -w DIR\n",
		        sbx_cli_esc(run.spec->workspace));
	if (!run.dry_run)
		sbx_cli_guard_warn(stderr, plan, &git, false);
	if (run.dry_run) {
		/* the limits' cgroup as the run would have it, or its refusal (limits_cli.c) */
		r = sbx_cli_limits_dry(&run, plan, &err);
		if (r >= 0)
			r = sbx_cli_net_host_dry(plan, &err);
		if (r < 0)
			goto fail;
		sbx_cli_print_plan(stdout, plan, run.argv, run.json);
		if (!run.json && run.spec->n_hide_globs)
			printf("glob walk:  %zu globs, %zu directories, %zu entries, %zu matches, "
			       "%.1f ms, cpu %.1f ms (%s)\n",
			       run.spec->n_hide_globs, run.walk.dirs, run.walk.entries,
			       run.walk.matches, run.walk.ms, run.walk.cpu_ms,
			       !run.walk.cache_used ? "no cache"
			       : run.walk.cache_hit ? "cache revalidated"
			                            : "walked, cached");
		status = fflush(stdout) == 0 ? 0 : 125;
		goto out;
	}
	/* Standard input, output and error pass to the worker as they are (without -t): a
	 * socket of the network there would be the worker's way out, whatever --net says. */
	r = stdio_sockets(plan, &err);
	/* Who answers the supervisor's questions, and the audit log with its start record (the
	 * sandbox's id goes in its spec); the supervisor takes both. */
	if (r >= 0)
		r = sbx_cli_broker_open(plan, &broker, &err);
	if (r >= 0)
		r = sbx_cli_audit_begin(plan, parent, run.argv, &audit, &err);
	if (r >= 0)
		r = make_supervisor(&run, plan, audit.log, audit.id, broker, &sup, &err);
	/* the cgroup (memory, pids, cpu) and the timeout, or a refusal */
	if (r >= 0)
		r = sbx_cli_limits_begin(&run, plan, audit.id, &lims, &err);
	/* the sandbox's proxy and resolver, served by sbx (src/os/netproxy.c) */
	if (r >= 0)
		r = sbx_cli_net_open(&run, plan, audit.log, &net, &err);
	/* the landlock backend's allowlist: the proxy on the host's loopback, its ports */
	if (r >= 0)
		r = sbx_cli_net_host(plan, net, sup, &err);
	if (r < 0)
		goto fail;
	sbx_launch_net(net);
	SBX_TRACE("supervisor, audit, limits, network ready");
	sbx_cli_fleet_begin(plan, parent, run.argv, &audit, &fleet); /* sbx ps */
	SBX_TRACE("sbx ps record written");
	r = sbx_launch(plan, run.argv, sup, &status, &err);
	SBX_TRACE("worker reaped");
	if (r < 0 && err.kind == SBX_ERR_UNSUPPORTED && run.backend == SBX_ASK_AUTO &&
	    !plan->backend_landlock && !parent) {
		/* Namespaces are off here by configuration (sbx_userns_decide: a passing shortage
		 * is a SETUP error, refused as is), and nothing ran: the landlock backend. */
		struct sbx_error first = err;

		sbx_plan_free(plan);
		plan = NULL;
		r = sbx_plan_build(run.spec, &host, &plan, &err);
		if (r >= 0)
			sbx_plan_prune_guards(plan, sbx_guard_bindable, NULL);
		if (r >= 0)
			r = finish(&run, &host, plan, &git, parent_unknown, false, &first, &err);
		if (r >= 0) {
			if (sbx_cli_notes != SBX_NOTES_QUIET)
				fprintf(stderr,
				        "sbx: note: %s; running with the landlock backend\n",
				        sbx_cli_esc(first.msg));
			warn_not_enforced(&run, plan);
			sbx_cli_guard_warn(stderr, plan, &git, true);
			r = sbx_cli_audit_begin(plan, parent, run.argv, &audit, &err);
			sbx_supervisor_free(sup);
			sup = NULL;
			if (r >= 0)
				r = make_supervisor(&run, plan, audit.log, audit.id, broker, &sup,
				                    &err);
			if (r >= 0)
				r = sbx_cli_limits_begin(&run, plan, audit.id, &lims, &err);
			/* the proxy made for the namespaces backend, on the host's loopback now */
			if (r >= 0)
				r = sbx_cli_net_host(plan, net, sup, &err);
		}
		if (r >= 0) {
			sbx_cli_fleet_begin(plan, parent, run.argv, &audit, &fleet);
			plan->tty = run.tty;
			r = sbx_launch(plan, run.argv, sup, &status, &err);
		}
	}
	/* the line of a limit that ended the sandbox (124, 137); the cgroup removed */
	if (r >= 0)
		status = sbx_cli_limits_end(&lims, status);
	sbx_cli_fleet_end(&fleet);
	/* Every start gets an end: the status, or sbx's own when the launch failed; the counts
	 * are the supervisor's, and "supervisor lost" where it ended the sandbox */
	if (sup) {
		/* the folded record still pending, the records the cap dropped */
		sbx_supervisor_flush(sup);
		print_flush();
		sbx_supervisor_counts(sup, &counts.asked, &counts.allowed, &counts.denied,
		                      &counts.killed);
	}
	sbx_launch_net(NULL);
	sbx_cli_net_close(&run, plan, net, r >= 0, status);
	net = NULL;
	sbx_cli_audit_end(&audit, r, r < 0 ? sbx_error_exit_code(&err) : status, &counts);
	if (r < 0)
		goto fail;
	/* The worker ran: name what appeared in git's control surface meanwhile. */
	sbx_cli_guard_after(stderr, &git);
	goto out;
fail:
	sbx_cli_report(stderr, &err);
	status = sbx_error_exit_code(&err);
out:
	sbx_launch_prestart_end();
	sbx_cli_limits_end(&lims, 0);
	sbx_cli_audit_end(&audit, -1, status, NULL); /* a refusal after the start record */
	sbx_cli_fleet_end(&fleet);
	sbx_supervisor_free(sup);
	sbx_netproxy_free(net);
	sbx_broker_close(broker);
	sbx_gitguard_clear(&git);
	sbx_cli_run_clear(&run);
	sbx_probe_host_clear(&host);
	/* init's end, which the kernel's teardown of the sandbox's namespaces made long, has
	 * run beside the work above: reaped now, so that no zombie of it is left */
	sbx_launch_reap();
	SBX_TRACE("sbx exits");
	return status;
}
