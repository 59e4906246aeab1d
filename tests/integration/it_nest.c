/* SPDX-License-Identifier: MIT */
/*
 * Nested sandboxes (docs/design.md, Nesting): sbx run inside sbx run. The outer sandbox mounts the
 * directory of the sbx binary read-only so the worker can start it again.
 *
 * As root, a sandbox that allows nesting runs its worker as SBX_ROOT_NEST_ID (never uid 0,
 * which the kernel would not let it map into a nested user namespace without CAP_SETFCAP), so
 * every case runs as root and as an ordinary user alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "harness.h"
#include "sbx/nest.h"
#include "sbx/policy.h"
#include "os/landlock.h"
#include "os/memfd.h"

static const char *sbx_dir_ro(void)
{
	static char buf[4200];
	char copy[4096];

	snprintf(copy, sizeof(copy), "%s", it_sbx_path());
	snprintf(buf, sizeof(buf), "%s:ro", dirname(copy));
	return buf;
}

/* The directory of the sbx binary. */
static const char *sbx_dir(void)
{
	static char buf[4200];
	const char *ro = sbx_dir_ro();
	size_t n = strlen(ro) - 3; /* ":ro" */

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, ro, n);
	buf[n] = '\0';
	return buf;
}

/* t/src/a.c, t/secrets/key, t/out/ */
static const char *make_tree(void)
{
	const char *t = it_tmpdir();

	it_write_file(it_path(t, "src/a.c"), "int main;\n");
	it_write_file(it_path(t, "secrets/key"), "hunter2\n");
	it_write_file(it_path(t, "out/.keep"), "");
	return t;
}

/*
 * The parent's backend. The *_landlock cases run the same bodies with the parent under the
 * landlock backend (--backend landlock --net host: no namespaces, a Landlock domain, which
 * forbids mounting): the nested sandbox then stacks a Landlock layer of its own in the same
 * mount namespace, and what it may not touch is denied (EACCES) rather than absent.
 */
static bool ll_parent;

static const char *const *parent_opts(const char *const *own)
{
	static const char *buf[64];
	size_t n = 0;

	if (ll_parent) {
		buf[n++] = "--backend";
		buf[n++] = "landlock";
		buf[n++] = "--net";
		buf[n++] = "host";
	}
	for (; *own && n < 63; own++)
		buf[n++] = *own;
	buf[n] = NULL;
	return buf;
}

/* The same case with the parent under the landlock backend: NAME_landlock. */
#define LANDLOCK_VARIANT(name)                                                                     \
	static void name##_landlock(void)                                                          \
	{                                                                                          \
		ll_parent = true;                                                                  \
		name();                                                                            \
	}

/* What a denied access gives: the namespaces backend's errno, or Landlock's EACCES. */
static const char *denied(const char *ns_errno)
{
	return ll_parent ? "EACCES" : ns_errno;
}

/* The promise, in a claude-agent-like parent (workspace parts rw, secrets visible). */
static void test_restrict_readonly_sees_src_only(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(),          "-v",
	                      it_path(t, "src"), "-v", it_path(t, "secrets"), "-v",
	                      it_path(t, "out"), NULL};
	const char *cmd[] = {it_sbx_path(), "run",
	                     "--restrict",  it_path(t, "src"),
	                     "--readonly",  "--allow-read",
	                     it_self_dir(), "--",
	                     "@probe",      "--probe",
	                     "read",        it_path(t, "src/a.c"),
	                     "write",       it_path(t, "src/a.c"),
	                     "create",      it_path(t, "src/new"),
	                     "read",        it_path(t, "secrets/key"),
	                     "ls",          it_path(t, "out"),
	                     "create",      it_path(t, "out/x"),
	                     NULL};
	struct it_run r;
	char line[4300];

	it_run_in(&r, parent_opts(opts), cmd);
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "read %s/src/a.c => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "write %s/src/a.c => %s", t, denied("EROFS"));
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/src/new => %s", t, denied("EROFS"));
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "read %s/secrets/key => %s", t, denied("ENOENT"));
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "ls %s/out => %s", t, denied("ENOENT"));
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/out/x => %s", t, denied("ENOENT"));
	IT_EXPECT_CONTAINS(r.out, line);
}

LANDLOCK_VARIANT(test_restrict_readonly_sees_src_only)

/* What the parent denies, the child cannot get: write where the parent is read-only, a
 * path the parent does not see, --net host under none, nesting under nesting: false. */
static void test_escalations_refused(void)
{
	const char *t = make_tree();
	const char *opts[] = {
	    "--allow-nesting", "-v", sbx_dir_ro(), "-v", it_path(t, "src") /* :ro below */, NULL};
	char *ro = it_path(t, "src:ro");
	struct it_run r;

	opts[4] = ro;
	{
		const char *cmd[] = {it_sbx_path(), "run", "--allow-write", it_path(t, "src"), "--",
		                     "true",        NULL};
		char msg[4300];

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 125);
		snprintf(msg, sizeof(msg),
		         "cannot grant write on %s/src (--allow-write %s/src): "
		         "the parent sandbox has %s/src read-only; child sandboxes can only narrow "
		         "access (parent: read ",
		         t, t, t);
		IT_EXPECT_CONTAINS(r.err, msg);
		IT_EXPECT_CONTAINS(r.err, "use --allow-read");
	}
	{
		const char *cmd[] = {
		    it_sbx_path(), "run", "--allow-read", it_path(t, "secrets"), "--",
		    "true",        NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "the parent sandbox does not see");
		IT_EXPECT_CONTAINS(r.err, "name a path the parent sandbox sees");
	}
	{
		const char *cmd[] = {it_sbx_path(), "run",  "-v", it_path(t, "src:rw"),
		                     "--",          "true", NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "cannot grant write on");
	}
	{
		const char *cmd[] = {it_sbx_path(), "run", "--net", "host", "--", "true", NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "cannot grant the host's network (--net host)");
	}
	{
		const char *cmd[] = {it_sbx_path(), "run",  "-v", it_path(t, "src:/elsewhere"),
		                     "--",          "true", NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "at the same paths");
	}
	{
		/* nesting: false in the parent's profile */
		char *prof = it_path(t, "nonest.yaml");
		char yaml[8192];
		const char *o2[] = {"-p", prof, "-v", sbx_dir_ro(), NULL};
		const char *cmd[] = {it_sbx_path(), "run", "--", "true", NULL};

		snprintf(yaml, sizeof(yaml),
		         "version: 1\nname: nonest\nnesting: false\nmounts:\n  - path: %s/src\n",
		         t);
		it_write_file(prof, yaml);
		/* a sub-worker still narrows there, on the landlock backend; namespaces it
		 * cannot have */
		it_run_in(&r, o2, cmd);
		IT_EXPECT_INT(r.status, 0);
		{
			const char *ns[] = {it_sbx_path(), "run",  "--backend", "namespaces",
			                    "--",          "true", NULL};

			it_run_in(&r, o2, ns);
			IT_EXPECT_INT(r.status, 125);
			IT_EXPECT_CONTAINS(r.err, "forbids nesting (nesting: false)");
			IT_EXPECT_CONTAINS(r.err, "drop --backend namespaces");
		}
	}
	/* outside any sandbox the nested flags are refused too */
	it_sbxv(&r, "run", "--restrict", "/src", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "does not run inside one");
}

/* The child cannot signal or ptrace its parent's processes, nor read their environ. */
static void test_cannot_signal_or_ptrace_parent(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(), "-v", it_path(t, "src"), NULL};
	char script[8192];
	struct it_run r;

	snprintf(script, sizeof(script),
	         "sleep 60 & p=$!; echo parent-sleeper=$p; "
	         "%s run --restrict %s/src --allow-read %s -- %s --probe kill $p ptrace $p read "
	         "/proc/$p/environ "
	         "ls /proc/$p; echo nested=$?; kill -0 $p && echo sleeper-alive; kill $p",
	         it_sbx_path(), t, it_self_dir(), it_self());
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "nested=0");
	/* namespaces: the parent's processes are not in the child's pid namespace; Landlock: a
	 * domain may not signal or ptrace a process outside it (signal scope, ABI 6) */
	IT_EXPECT_CONTAINS(r.out, ll_parent ? "=> EPERM" : "=> ESRCH"); /* kill */
	IT_EXPECT_NOT_CONTAINS(r.out, "kill 3 => ok");
	IT_EXPECT_NOT_CONTAINS(r.out, "ptrace 3 => ok");
	IT_EXPECT_NOT_CONTAINS(r.out, "/environ => ok");
	IT_EXPECT_CONTAINS(r.out, ll_parent ? "/environ => EACCES" : "/environ => ENOENT");
	IT_EXPECT_CONTAINS(r.out, "sleeper-alive");
}

LANDLOCK_VARIANT(test_cannot_signal_or_ptrace_parent)

/* No secret of the parent reaches the child: not its environment, not its open files. */
static void test_no_parent_secrets_in_env_or_fds(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting",      "-v", sbx_dir_ro(),          "-v",
	                      it_path(t, "src"),      "-v", it_path(t, "secrets"), "--env",
	                      "SBX_IT_TOKEN=hunter2", NULL};
	char script[8192];
	struct it_run r;

	snprintf(script, sizeof(script),
	         "exec 7<%s/secrets/key; echo outer-env=$SBX_IT_TOKEN; "
	         "%s run --restrict %s/src --allow-read %s -- /bin/sh -c '%s --probe fds; env; cat "
	         "/proc/self/environ "
	         "| tr \"\\0\" \"\\n\"; cat <&7; echo fd7=$?'; echo nested=$?",
	         t, it_sbx_path(), t, it_self_dir(), it_self());
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_CONTAINS(r.out, "outer-env=hunter2");
	IT_EXPECT_CONTAINS(r.out, "nested=0");
	/* the probe's fds: stdio, the spec memfd; the shell's fd 7 did not come through */
	IT_EXPECT_CONTAINS(r.out, "fds => 0 1 2 3\n");
	IT_EXPECT_CONTAINS(r.out, "SBX_SPEC_FD=3");
	/* the secret shows once: the outer shell's own echo, never the child's env or fd 7 */
	IT_EXPECT(strstr(r.out, "hunter2") && !strstr(strstr(r.out, "hunter2") + 1, "hunter2"));
	IT_EXPECT_NOT_CONTAINS(r.out, "SBX_IT_TOKEN");
	IT_EXPECT_NOT_CONTAINS(r.out, "fd7=0");
}

LANDLOCK_VARIANT(test_no_parent_secrets_in_env_or_fds)

/* A worker that forges a wider spec, or drops it, gains nothing: the kernel holds. */
static void test_forged_or_dropped_spec_gains_nothing(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting",    "-v", sbx_dir_ro(), "-v",
	                      it_path(t, "src:ro"), NULL};
	struct it_run r;
	char line[4300];

	{
		/* forged: claims src writable and secrets visible */
		const char *cmd[] = {"@probe",
		                     "--forge",
		                     it_path(t, "src"),
		                     it_path(t, "secrets"),
		                     it_sbx_path(),
		                     "run",
		                     "--allow-write",
		                     it_path(t, "src"),
		                     "--allow-read",
		                     it_path(t, "secrets"),
		                     "--allow-read",
		                     it_self_dir(),
		                     "--",
		                     "@probe",
		                     "--probe",
		                     "write",
		                     it_path(t, "src/a.c"),
		                     "read",
		                     it_path(t, "secrets/key"),
		                     NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		IT_EXPECT_INT(r.status, 0);
		snprintf(line, sizeof(line), "write %s/src/a.c => %s", t, denied("EROFS"));
		IT_EXPECT_CONTAINS(r.out, line);
		snprintf(line, sizeof(line), "read %s/secrets/key => %s", t, denied("ENOENT"));
		IT_EXPECT_CONTAINS(r.out, line);
	}
	{
		/* dropped: no SBX_SPEC_FD, but SBX=1 says this is sbx's worker: refused */
		const char *cmd[] = {"/usr/bin/env", "-u", "SBX_SPEC_FD", it_sbx_path(),
		                     "run",          "--", "true",        NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "runs inside an sbx sandbox (SBX=1) whose effective spec "
		                          "is gone");
	}
	{
		/* dropped with SBX too: confined (no_new_privs, seccomp), so its parent is unknown,
		 * never "top-level"; and the parent's layers still hold */
		const char *cmd[] = {"/usr/bin/env",
		                     "-u",
		                     "SBX_SPEC_FD",
		                     "-u",
		                     "SBX",
		                     it_sbx_path(),
		                     "run",
		                     "-v",
		                     sbx_dir_ro(),
		                     "-v",
		                     it_path(t, "src:rw"),
		                     "--",
		                     "@probe",
		                     "--probe",
		                     "write",
		                     it_path(t, "src/a.c"),
		                     "setattr-rw",
		                     it_path(t, "src"),
		                     NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		snprintf(line, sizeof(line), "write %s/src/a.c => ok", t);
		IT_EXPECT_NOT_CONTAINS(r.out, line);
		if (!ll_parent) {
			IT_EXPECT_INT(r.status, 0);
			snprintf(line, sizeof(line), "write %s/src/a.c => EROFS", t);
			IT_EXPECT_CONTAINS(r.out, line);
		}
	}
	{
		/* garbage: SBX_SPEC_FD naming stdin is refused, not ignored */
		const char *cmd[] = {"/usr/bin/env", "SBX_SPEC_FD=0", it_sbx_path(), "run",
		                     "--",           "true",          NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "SBX_SPEC_FD=0");
		IT_EXPECT_CONTAINS(r.err, "not a sealed memfd");
	}
	/* and the real memfd cannot be written, grown or resealed from inside */
	{
		const char *cmd[] = {"/bin/sh", "-c",
		                     "echo x >> /proc/self/fd/3; echo append=$?; echo x > "
		                     "/proc/self/fd/3; echo trunc=$?",
		                     NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		IT_EXPECT_NOT_CONTAINS(r.out, "append=0");
		IT_EXPECT_NOT_CONTAINS(r.out, "trunc=0");
	}
}

LANDLOCK_VARIANT(test_forged_or_dropped_spec_gains_nothing)

/* Nesting 8 deep, inheriting all the way; the deepest one knows its depth. */
static void test_eight_deep(void)
{
	const char *t = make_tree();
	char *script = it_path(t, "src/nest.sh");
	char body[8192];
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(), "-v", it_path(t, "src"), NULL};
	const char *cmd[] = {"/bin/sh", script, "1", NULL};
	struct it_run r;

	snprintf(body, sizeof(body),
	         "if [ \"$1\" -lt 8 ]; then exec %s run -- /bin/sh %s $(($1 + 1)); fi\n"
	         "exec %s status\n",
	         it_sbx_path(), script, it_sbx_path());
	it_write_file(script, body);
	it_run_in(&r, parent_opts(opts), cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "depth:    8\n");
	/* depth 2 is served by the outer supervisor (src/.git is watched in this fresh tree),
	 * so it keeps its Landlock file layer, which forbids mounting: from depth 3 on, the
	 * landlock backend */
	IT_EXPECT_CONTAINS(r.out, "backend:  landlock\n");
}

LANDLOCK_VARIANT(test_eight_deep)

/*
 * Inside restricted-agent ("no sub-sandboxes"), a worker that drops its spec fd gets no sandbox
 * that calls itself top-level: with SBX=1 still set sbx refuses (run and status); with SBX
 * gone too, the confinement it finds (no_new_privs, seccomp) makes the new sandbox's parent
 * "unknown" in its effective spec, sbx status and --dry-run, and the parent's layers still
 * hold. A SBX_SPEC_FD that names no valid sealed spec (a regular file, a closed fd, a sealed
 * memfd of garbage, not a number) is refused, never taken for top-level.
 */
static void test_dropped_spec_in_restricted_agent(void)
{
	const char *t = it_tmpdir(), *srcdir = getenv("SBX_SOURCE_DIR");
	char *ws = it_path(t, "ws"), script[16384], prof[4200], line[4300];
	const char *opts[] = {"-p", "restricted-agent", "-v", sbx_dir_ro(), NULL};
	const char *drop = "/usr/bin/env -u SBX_SPEC_FD -u SBX";
	struct it_run r;

	if (!srcdir || !*srcdir)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	it_write_file(it_path(ws, "a.c"), "int main;\n");
	it_write_file(it_path(ws, ".git/hooks/pre-commit"), "#!/bin/sh\n");
	it_write_file(it_path(ws, "plain"), "not a spec\n");
	snprintf(prof, sizeof(prof), "%s/profiles", srcdir);
	setenv("SBX_PROFILE_PATH", prof, 1);
	setenv("HOME", t, 1);
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	snprintf(script, sizeof(script),
	         "S=%s; /usr/bin/env -u SBX_SPEC_FD $S run -- true; echo refused=$?; "
	         "/usr/bin/env -u SBX_SPEC_FD $S status; echo status-refused=$?; "
	         "%s $S run -v %s -v %s -- /bin/sh -c '$0 status; $0 status --json' $S; "
	         "echo nested=$?; %s $S run --dry-run -- true; %s $S run --dry-run --json -- true; "
	         "%s $S run -v %s -v %s -- %s --probe write %s/.git/hooks/pre-commit write %s/a.c; "
	         "%s $S status; echo outer-status=$?; "
	         "SBX_SPEC_FD=5 $S run -- true 5<%s; echo file=$?; "
	         "SBX_SPEC_FD=9 $S run -- true; echo closed=$?; "
	         "SBX_SPEC_FD=x $S run -- true; echo nan=$?; "
	         "%s --sealed-garbage $S run -- true; echo garbage=$?",
	         it_sbx_path(), drop, sbx_dir_ro(), it_self_dir(), drop, drop, drop, it_self_dir(),
	         ws, it_self(), ws, ws, drop, it_path(ws, "plain"), it_self());
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	/* SBX=1 without its spec: refused, run and status alike, in one line each */
	IT_EXPECT_CONTAINS(r.out, "refused=125\n");
	IT_EXPECT_CONTAINS(r.out, "status-refused=125\n");
	IT_EXPECT_CONTAINS(r.err, "sbx: this process runs inside an sbx sandbox (SBX=1) whose "
	                          "effective spec is gone (SBX_SPEC_FD is not set)");
	/* SBX gone too: it runs, and says its parent is unknown, never "started from outside" */
	IT_EXPECT_CONTAINS(r.out, "nested=0\n");
	IT_EXPECT_CONTAINS(r.out, "depth:    1 (counted from a parent that sbx does not know)\n");
	IT_EXPECT_CONTAINS(r.out, "parent:   unknown: this sandbox's sbx was started confined");
	IT_EXPECT_CONTAINS(r.out, "\"parent\":\"unknown\",\"parent_unknown\":true");
	IT_EXPECT_CONTAINS(r.out, "parent:     unknown: this sandbox's sbx was started confined");
	IT_EXPECT_CONTAINS(r.out, "\"parent\":\"unknown\",\"parent_unknown\":true,\"depth\":1");
	IT_EXPECT_NOT_CONTAINS(r.out, "started from outside");
	IT_EXPECT_NOT_CONTAINS(r.out, "\"parent\":\"none\"");
	/* no right widened: the parent's read-only hooks stay read-only */
	snprintf(line, sizeof(line), "write %s/.git/hooks/pre-commit => ok", ws);
	IT_EXPECT_NOT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "write %s/.git/hooks/pre-commit => E", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "write %s/a.c => ok", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	/* sbx status without any spec, confined: says so, exit 1 */
	IT_EXPECT_CONTAINS(r.out,
	                   "not inside an sbx sandbox that sbx can identify (no "
	                   "SBX_SPEC_FD), but confined by no_new_privs and a seccomp filter");
	IT_EXPECT_CONTAINS(r.out, "outer-status=1\n");
	/* a SBX_SPEC_FD that names no valid sealed spec: refused */
	IT_EXPECT_CONTAINS(r.out, "file=125\n");
	IT_EXPECT_CONTAINS(r.err, "SBX_SPEC_FD=5: fd 5 is not a sealed memfd");
	IT_EXPECT_CONTAINS(r.out, "closed=125\n");
	IT_EXPECT_CONTAINS(r.err, "SBX_SPEC_FD=9: fd 9 is not open");
	IT_EXPECT_CONTAINS(r.out, "nan=125\n");
	IT_EXPECT_CONTAINS(r.err, "SBX_SPEC_FD='x' is not a file descriptor number");
	IT_EXPECT_CONTAINS(r.out, "garbage=125\n");
	IT_EXPECT_CONTAINS(r.err, "is not an sbx spec (bad magic)");
}

/* An abstract unix socket at @NAME, listening in the test's (the host's) network namespace. */
static int listen_abstract(const char *name)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(name);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	IT_EXPECT(fd >= 0 && n < sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path + 1, name, n);
	IT_EXPECT_INT(bind(fd, (struct sockaddr *)&sa,
	                   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)),
	              0);
	IT_EXPECT_INT(listen(fd, 8), 0);
	return fd;
}

/*
 * claude-agent's shape: nesting allowed, every right enforced by the mounts, the host's
 * network. Its worker runs under a Landlock domain with the scopes only: it can neither
 * connect to an abstract unix socket of the host's network namespace (X11, D-Bus, @anything)
 * nor signal a process outside its sandbox (sbx's init, pid 1; under the landlock backend,
 * this test), and a nested sbx run under it still builds its namespaces, since a domain that
 * handles no file right does not forbid mounting. The nested worker is held by the scopes too,
 * and by a file layer of its own: the parent's supervisor serves it.
 */
static void test_scopes_in_a_nesting_parent(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting", "--net", "host", "-v", sbx_dir_ro(), "-v",
	                      it_path(t, "src"), NULL};
	char name[64], script[8192], line[256];
	struct it_run r;
	int fd;

	if (sbx_landlock_abi() < 6)
		it_skip("Landlock ABI %d has no scopes (ABI 6, Linux 6.12)", sbx_landlock_abi());
	snprintf(name, sizeof(name), "sbx-it-scope-%d", (int)getpid());
	fd = listen_abstract(name);
	/* from outside the probe reaches it: the test means something */
	it_exec(&r, (const char *const[]){it_self(), "--probe", "abstract-connect", name, NULL});
	snprintf(line, sizeof(line), "abstract-connect %s => ok", name);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(script, sizeof(script),
	         "%s --probe abstract-connect %s kill0 1 kill0 %d; %s status; "
	         "%s run --restrict %s/src --allow-read %s --allow-read %s -- /bin/sh -c '%s "
	         "status; %s --probe abstract-connect %s'; echo nested=$?",
	         it_self(), name, (int)getpid(), it_sbx_path(), it_sbx_path(), t, it_self_dir(),
	         sbx_dir(), it_sbx_path(), it_self(), name);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	close(fd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "nested=0");
	/* the parent's worker and the nested one: both refused by the abstract-unix scope */
	snprintf(line, sizeof(line), "abstract-connect %s => ok", name);
	IT_EXPECT_NOT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "abstract-connect %s => EPERM", name);
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT_CONTAINS(strstr(r.out, line) + 1, line);
	/* signals: sbx's init is outside the worker's domain; so is this test, which only the
	 * landlock backend's worker can name (the namespaces backend has a pid namespace) */
	if (ll_parent) {
		snprintf(line, sizeof(line), "kill0 %d => EPERM", (int)getpid());
		IT_EXPECT_CONTAINS(r.out, line);
	} else {
		IT_EXPECT_CONTAINS(r.out, "kill0 1 => EPERM");
		snprintf(line, sizeof(line), "kill0 %d => ESRCH", (int)getpid());
		IT_EXPECT_CONTAINS(r.out, line);
	}
	/* status says so, at both depths; the nested sandbox kept the namespaces backend */
	IT_EXPECT_CONTAINS(r.out, "scopes:   abstract unix sockets, signals");
	IT_EXPECT_NOT_CONTAINS(r.out, "scopes:   none");
	IT_EXPECT_CONTAINS(r.out, ll_parent ? "depth:    2\nbackend:  landlock\n"
	                                    : "depth:    2\nbackend:  namespaces\n");
	if (!ll_parent) {
		/* the parent holds the scopes only; the nested sandbox, served by the parent's
		 * supervisor, keeps its file layer (it bounds descriptors from outside its root,
		 * with which it could race the supervisor's check) */
		const char *nested = strstr(r.out, "depth:    2\n");

		IT_EXPECT(nested != NULL);
		IT_EXPECT_NOT_CONTAINS(strndup(r.out, (size_t)(nested - r.out)),
		                       "landlock: a Landlock domain holds this worker");
		IT_EXPECT_CONTAINS(nested, "landlock: a Landlock domain holds this worker");
	}
}

LANDLOCK_VARIANT(test_scopes_in_a_nesting_parent)

/* --dry-run says the scopes are on for claude-agent (its file layer too: it forbids nesting)
 * and for a profile that extends it with nesting (the mounts enforce every right, a
 * scopes-only layer): never "landlock: none" on a kernel with scopes. */
static void test_scopes_dry_run_claude_agent(void)
{
	const char *t = it_tmpdir(), *srcdir = getenv("SBX_SOURCE_DIR");
	char prof[4200];
	struct it_run r;

	if (sbx_landlock_abi() < 6)
		it_skip("Landlock ABI %d has no scopes (ABI 6, Linux 6.12)", sbx_landlock_abi());
	if (!srcdir || !*srcdir)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	snprintf(prof, sizeof(prof), "%s/profiles", srcdir);
	setenv("SBX_PROFILE_PATH", prof, 1);
	it_write_file(it_path(t, "home/.claude/settings.json"), "{}\n");
	it_write_file(it_path(t, "ws/a.c"), "int main;\n");
	setenv("HOME", it_path(t, "home"), 1);
	if (chdir(it_path(t, "ws")) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s/ws: %s", t, strerror(errno));
	it_sbxv(&r, "run", "--profile", "claude-agent", "--backend", "namespaces", "--dry-run",
	        "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "landlock:   none");
	IT_EXPECT_CONTAINS(r.out, "scopes abstract-unix signal\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "landlock files: not handled (scopes only)");
	it_sbxv(&r, "run", "--profile", "claude-agent", "--backend", "namespaces", "--dry-run",
	        "--json", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"files\":true,");
	IT_EXPECT_CONTAINS(r.out, "\"scoped\":[\"abstract_unix\",\"signal\"]");
	it_write_file(it_path(t, "nest.yaml"),
	              "version: 1\nextends: claude-agent\nname: nest\nnesting: true\n");
	it_sbxv(&r, "run", "--profile", it_path(t, "nest.yaml"), "--backend", "namespaces",
	        "--dry-run", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "landlock:   none");
	IT_EXPECT_CONTAINS(r.out, "scopes abstract-unix signal\n");
	IT_EXPECT_CONTAINS(r.out, "landlock files: not handled (scopes only)");
	it_sbxv(&r, "run", "--profile", it_path(t, "nest.yaml"), "--backend", "namespaces",
	        "--dry-run", "--json", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"landlock\":{\"enabled\":true,");
	IT_EXPECT_CONTAINS(r.out, "\"files\":false,");
	IT_EXPECT_CONTAINS(r.out, "\"scoped\":[\"abstract_unix\",\"signal\"]");
}

/*
 * Identity, as root and as a user: the worker is never kernel uid 0 (root's sandbox with
 * nesting runs it as SBX_ROOT_NEST_ID, with 0 and that id swapped in its map), the caller's
 * own files are the worker's, and what the worker and a nested child write is the caller's on
 * the host.
 */
static void test_identity_and_ownership(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(), "-v", it_path(t, "out"), NULL};
	unsigned want = it_is_root() ? SBX_ROOT_NEST_ID : (unsigned)getuid();
	char script[8192], line[4300];
	struct it_run r;
	struct stat st;
	bool worker_line = false;

	/* a child restricted to a subtree that holds no protected name (out/.git is watched in
	 * this fresh tree, and a child that can write beside it may not create) */
	it_write_file(it_path(t, "out/child/.keep"), "");
	snprintf(
	    script, sizeof(script),
	    "echo uid=$(id -u) gid=$(id -g); echo HOME=$HOME; cat /proc/self/uid_map; "
	    "echo owner=$(stat -c %%u %s/out); echo x > %s/out/by-parent && echo parent-wrote; "
	    "%s run --restrict %s/out/child -- /bin/sh -c 'echo child-uid=$(id -u); echo y > "
	    "%s/out/child/by-child && echo child-wrote'",
	    t, t, it_sbx_path(), t, t);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "uid=%u gid=%u\n", want, it_is_root() ? want : getgid());
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT_NOT_CONTAINS(r.out, "HOME=\n");
	snprintf(line, sizeof(line), "owner=%u\n", want);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "child-uid=%u\n", want);
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT_CONTAINS(r.out, "parent-wrote");
	IT_EXPECT_CONTAINS(r.out, "child-wrote");
	/* /proc/self/uid_map: no extent reaches kernel uid 0 (bar an ordinary user's own) */
	for (const char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned in, out, count;

		if (sscanf(l, " %u %u %u", &in, &out, &count) != 3)
			continue;
		IT_EXPECT(out != 0 && out + count > out);
		if (in <= want && want - in < count) {
			unsigned host = out + (want - in);

			worker_line = true;
			/* as root, the sandbox's own range (os/uidslot.h): one of the 1024 below
			 * SBX_ROOT_MAP_BASE, each SBX_ROOT_MAP_COUNT ids */
			if (it_is_root())
				IT_EXPECT(host <= SBX_ROOT_MAP_BASE &&
				          (SBX_ROOT_MAP_BASE - host) % SBX_ROOT_MAP_COUNT == 0 &&
				          (SBX_ROOT_MAP_BASE - host) / SBX_ROOT_MAP_COUNT < 1024);
			else
				IT_EXPECT_INT(host, getuid());
		}
	}
	IT_EXPECT(worker_line);
	/* on the host, both files are the caller's */
	IT_EXPECT_INT(stat(it_path(t, "out/by-parent"), &st), 0);
	IT_EXPECT_INT(st.st_uid, getuid());
	IT_EXPECT_INT(stat(it_path(t, "out/child/by-child"), &st), 0);
	IT_EXPECT_INT(st.st_uid, getuid());
	IT_EXPECT_INT(st.st_gid, getgid());
}

/*
 * The "done when", with the shipped profile: `sbx run -p claude-agent` (a throwaway
 * HOME and workspace), and inside it a sub-worker with `--restrict SRC --readonly` sees SRC,
 * not the secret beside it nor the one outside the workspace, and cannot write; asking for
 * write where the parent is read-only is refused with exit 125, naming the request, the
 * parent's boundaries and an alternative.
 */
static void test_claude_agent_parent(void)
{
	const char *t = it_tmpdir(), *srcdir = getenv("SBX_SOURCE_DIR");
	char *ws = it_path(t, "ws"), *home = it_path(t, "home");
	const char *opts[] = {"-p", "claude-agent", "-v", sbx_dir_ro(), NULL};
	char script[16384], line[8192], prof[4200];
	struct it_run r;

	if (!srcdir || !*srcdir)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	it_write_file(it_path(ws, "src/a.c"), "int main;\n");
	it_write_file(it_path(ws, "secrets/key"), "hunter2\n");
	it_write_file(it_path(t, "outside/key"), "hunter3\n");
	it_write_file(it_path(home, ".claude/settings.json"), "{}\n");
	snprintf(prof, sizeof(prof), "%s/profiles", srcdir);
	setenv("SBX_PROFILE_PATH", prof, 1);
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	snprintf(
	    script, sizeof(script),
	    "cat %s/secrets/key >/dev/null && echo parent-sees-secret; "
	    "%s run --restrict %s/src --readonly --allow-read %s -- %s --probe read %s/src/a.c "
	    "ls %s/src write %s/src/a.c create %s/src/new read %s/secrets/key read "
	    "%s/outside/key; echo nested=$?; "
	    "%s run --allow-write %s/.claude -- true; echo refused=$?",
	    ws, it_sbx_path(), ws, it_self_dir(), it_self(), ws, ws, ws, ws, ws, t, it_sbx_path(),
	    home);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "parent-sees-secret");
	IT_EXPECT_CONTAINS(r.out, "nested=0");
	snprintf(line, sizeof(line), "read %s/src/a.c => ok", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "ls %s/src => ok", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	/* claude-agent forbids nesting: the sub-worker is a stacked Landlock layer in the
	 * parent's mount namespace, which denies (EACCES) what it may not touch */
	snprintf(line, sizeof(line), "write %s/src/a.c => EACCES", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/src/new => EACCES", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "read %s/secrets/key => EACCES", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "read %s/outside/key => %s", t, denied("ENOENT"));
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT_CONTAINS(r.out, "refused=125");
	snprintf(line, sizeof(line),
	         "cannot grant write on %s/.claude (--allow-write %s/.claude): the parent sandbox "
	         "has %s/.claude read-only; child sandboxes can only narrow access (parent: read ",
	         home, home, home);
	IT_EXPECT_CONTAINS(r.err, line);
	/* the parent writes its home (claude-agent's home: tmpfs, which the landlock backend
	 * denies) and the workspace */
	if (ll_parent)
		snprintf(line, sizeof(line), "write %s)", ws);
	else
		snprintf(line, sizeof(line), "write %s, %s)", home, ws);
	IT_EXPECT_CONTAINS(r.err, line);
	snprintf(line, sizeof(line), "use --allow-read %s/.claude", home);
	IT_EXPECT_CONTAINS(r.err, line);
	IT_EXPECT(access(it_path(ws, "src/new"), F_OK) < 0);
}

LANDLOCK_VARIANT(test_claude_agent_parent)

/*
 * A namespaces parent whose policies need Landlock (a mount where nothing may be deleted) runs
 * in a Landlock domain, which forbids mounting: its nested sandbox takes the landlock backend,
 * narrows with a stacked layer, and the parent's per-operation rights reach it (no delete).
 */
static void test_landlocked_parent(void)
{
	const char *t = make_tree();
	char *prof = it_path(t, "keep.yaml"), yaml[8192], script[8192], line[4300];
	const char *opts[] = {"-p", prof, "-v", sbx_dir_ro(), NULL};
	struct it_run r;

	it_write_file(it_path(t, "policies/nodelete.yaml"),
	              "version: 1\nname: nodelete\nrules:\n  - name: most\n    paths: [\"**\"]\n"
	              "    operations: [read, list, stat, write, create, execute]\n"
	              "    decision: allow\n");
	it_write_file(it_path(t, "src/old"), "x\n");
	it_write_file(it_path(t, "src/hidden"), "HIDDEN-CONTENT\n");
	snprintf(yaml, sizeof(yaml),
	         "version: 1\nname: keep\nnesting: true\nhide: [%s/src/hidden]\nmounts:\n"
	         "  - path: %s/src\n    policy: nodelete\n  - path: %s/secrets\n"
	         "    readonly: true\n",
	         t, t, t);
	it_write_file(prof, yaml);
	snprintf(
	    script, sizeof(script),
	    "%s status; %s run --restrict %s/src --allow-read %s --allow-read %s -- /bin/sh -c "
	    "'%s status; %s "
	    "--probe read %s/src/a.c write %s/src/a.c unlink %s/src/old read %s/secrets/key; "
	    "cat %s/src/hidden || echo hidden-denied'; echo nested=$?",
	    it_sbx_path(), it_sbx_path(), t, it_self_dir(), sbx_dir(), it_sbx_path(), it_self(), t,
	    t, t, t, t);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "landlock: a Landlock domain holds this worker");
	IT_EXPECT_CONTAINS(r.out, "depth:    2\nbackend:  landlock\n");
	/* the parent's per-operation rights travel in its effective spec, to the child's */
	snprintf(line, sizeof(line), "rw  bind     %s/src  (read,list,stat,write,create,execute)\n",
	         t);
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT(strstr(r.out, line) && strstr(strstr(r.out, line) + 1, line));
	IT_EXPECT_CONTAINS(r.out, "nested=0");
	snprintf(line, sizeof(line), "read %s/src/a.c => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "write %s/src/a.c => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "unlink %s/src/old => EACCES", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "read %s/secrets/key => EACCES", t);
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT_INT(access(it_path(t, "src/old"), F_OK), 0);
	/* the parent's hidden path stays hidden for the child, and its spec says so */
	IT_EXPECT_NOT_CONTAINS(r.out, "HIDDEN-CONTENT");
	IT_EXPECT_CONTAINS(r.out, "hidden-denied\nnested=0");
	snprintf(line, sizeof(line), "-   hidden   %s/src/hidden  (nothing)", t);
	IT_EXPECT(strstr(r.out, line) && strstr(strstr(r.out, line) + 1, line));
}

/*
 * The child's own Landlock layer holds the per-operation rights its effective spec carries:
 * a worker whose spec says "no delete on SRC" (here it narrows its own, which it may) starts
 * a child that cannot delete there, though the worker itself can.
 */
static void test_child_layer_holds_carried_rights(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(), "-v", it_path(t, "src"), NULL};
	char rights[16], line[4300];
	struct it_run r;

	/* the child is restricted to a subtree that holds no protected name (src/.git is
	 * watched in this fresh tree, and a child that can write beside it may not create) */
	it_write_file(it_path(t, "src/lib/a.c"), "x\n");
	it_write_file(it_path(t, "src/lib/old"), "x\n");
	it_write_file(it_path(t, "src/old2"), "x\n");
	snprintf(rights, sizeof(rights), "%u", SBX_OP_ALL & ~SBX_OP_DELETE);
	{
		const char *cmd[] = {"@probe",
		                     "--forge-rights",
		                     it_path(t, "src"),
		                     rights,
		                     it_sbx_path(),
		                     "run",
		                     "--restrict",
		                     it_path(t, "src/lib"),
		                     "--allow-read",
		                     it_self_dir(),
		                     "--",
		                     "@probe",
		                     "--probe",
		                     "write",
		                     it_path(t, "src/lib/a.c"),
		                     "create",
		                     it_path(t, "src/lib/new"),
		                     "unlink",
		                     it_path(t, "src/lib/old"),
		                     NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "write %s/src/lib/a.c => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/src/lib/new => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "unlink %s/src/lib/old => EACCES", t);
	IT_EXPECT_CONTAINS(r.out, line);
	/* while the worker itself may delete there */
	{
		const char *cmd[] = {"@probe", "--probe", "unlink", it_path(t, "src/old2"), NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		snprintf(line, sizeof(line), "unlink %s/src/old2 => ok", t);
		IT_EXPECT_CONTAINS(r.out, line);
	}
}

/* A nested --profile's policies reach the child's Landlock layer: they only take away. */
static void test_nested_profile_policy(void)
{
	const char *t = make_tree();
	char *prof = it_path(t, "out/keep.yaml"), yaml[8192], line[4300];
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(),         "-v",
	                      it_path(t, "src"), "-v", it_path(t, "out:ro"), NULL};
	struct it_run r;

	it_write_file(it_path(t, "out/policies/nodelete.yaml"),
	              "version: 1\nname: nodelete\nrules:\n  - name: most\n    paths: [\"**\"]\n"
	              "    operations: [read, list, stat, write, create, execute]\n"
	              "    decision: allow\n");
	it_write_file(it_path(t, "src/old"), "x\n");
	snprintf(yaml, sizeof(yaml),
	         "version: 1\nname: keep\nmounts:\n  - path: %s/src\n    policy: nodelete\n"
	         "  - path: %s\n    readonly: true\n",
	         t, it_self_dir());
	it_write_file(prof, yaml);
	{
		const char *cmd[] = {it_sbx_path(),
		                     "run",
		                     "-p",
		                     prof,
		                     "--",
		                     "@probe",
		                     "--probe",
		                     "write",
		                     it_path(t, "src/a.c"),
		                     "unlink",
		                     it_path(t, "src/old"),
		                     NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "write %s/src/a.c => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "unlink %s/src/old => EACCES", t);
	IT_EXPECT_CONTAINS(r.out, line);
}

/* A nested --profile that hides something its parent shows: hidden in the child (masked
 * under a namespaces parent, denied by the child's carved Landlock layer under a landlock
 * one), while the rest of the mount stays readable and the parent still reads it. */
static void test_nested_profile_hides_anew(void)
{
	const char *t = make_tree();
	char *prof = it_path(t, "out/hider.yaml"), yaml[8192], line[4300];
	const char *opts[] = {"--allow-nesting", "-v", sbx_dir_ro(),         "-v",
	                      it_path(t, "src"), "-v", it_path(t, "out:ro"), NULL};
	struct it_run r;

	it_write_file(it_path(t, "src/.env"), "TOKEN=hunter3\n");
	snprintf(yaml, sizeof(yaml),
	         "version: 1\nname: hider\nmounts:\n  - path: %s/src\n  - path: %s\n"
	         "    readonly: true\nhide: [%s/src/.env]\n",
	         t, it_self_dir(), t);
	it_write_file(prof, yaml);
	{
		const char *cmd[] = {it_sbx_path(),
		                     "run",
		                     "-p",
		                     prof,
		                     "--",
		                     "@probe",
		                     "--probe",
		                     "read",
		                     it_path(t, "src/a.c"),
		                     "read",
		                     it_path(t, "src/.env"),
		                     NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "hunter3");
	snprintf(line, sizeof(line), "read %s/src/a.c => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	/* masked by a file of mode 0000, or denied by Landlock: EACCES either way */
	snprintf(line, sizeof(line), "read %s/src/.env => EACCES", t);
	IT_EXPECT_CONTAINS(r.out, line);
	{
		const char *cmd[] = {"/bin/cat", it_path(t, "src/.env"), NULL};

		it_run_in(&r, parent_opts(opts), cmd);
		IT_EXPECT_CONTAINS(r.out, "hunter3");
	}
}

LANDLOCK_VARIANT(test_nested_profile_hides_anew)

/*
 * Hide globs in a nested run (--hide GLOB, and a nested profile's hide: glob) are walked in
 * the nested run too, under every kind of parent: the matches are masked in the child's own
 * mount namespace, or denied by its stacked Landlock layer (a parent on the landlock backend,
 * or one a Landlock domain holds). The parent still reads them. The walk uses no cache.
 */
static void nested_hide_globs(bool landlocked_parent)
{
	const char *t = make_tree();
	char *prof = it_path(t, "out/globber.yaml"), *keep = it_path(t, "keep.yaml");
	char yaml[8192], script[16384], line[4300];
	/* the parent hides a file of its own in src: under Landlock its src is then carved,
	 * and the child's walk and layer must still reach and deny what lies beneath */
	const char *ns_opts[] = {"--allow-nesting",         "-v", sbx_dir_ro(),         "-v",
	                         it_path(t, "src"),         "-v", it_path(t, "out:ro"), "--hide",
	                         it_path(t, "src/.parent"), NULL};
	const char *ll_opts[] = {"-p", keep, "-v", sbx_dir_ro(), NULL};
	struct it_run r;

	it_write_file(it_path(t, "src/.env"), "TOKEN=top\n");
	it_write_file(it_path(t, "src/sub/deep/.env"), "TOKEN=deep\n");
	it_write_file(it_path(t, "src/.parent"), "PARENT=secret\n");
	snprintf(yaml, sizeof(yaml),
	         "version: 1\nname: globber\nmounts:\n  - path: %s/src\n    readonly: true\n"
	         "  - path: %s\n    readonly: true\nhide: [\"%s/src/**/.env\"]\n",
	         t, it_self_dir(), t);
	it_write_file(prof, yaml);
	/* a parent whose per-operation rights need a Landlock domain: nested runs then take
	 * the landlock backend although the parent has namespaces */
	it_write_file(it_path(t, "policies/nodelete.yaml"),
	              "version: 1\nname: nodelete\nrules:\n  - name: most\n    paths: [\"**\"]\n"
	              "    operations: [read, list, stat, write, create, execute]\n"
	              "    decision: allow\n");
	snprintf(yaml, sizeof(yaml),
	         "version: 1\nname: keep\nnesting: true\nhide: [%s/src/.parent]\nmounts:\n"
	         "  - path: %s/src\n    policy: nodelete\n  - path: %s/out\n    readonly: true\n",
	         t, t, t);
	it_write_file(keep, yaml);
	snprintf(script, sizeof(script),
	         "%s status | grep '^backend'; "
	         "%s run --hide '%s/src/**/.env' -- %s --probe read %s/src/.env read "
	         "%s/src/sub/deep/.env read %s/src/a.c; echo flag=$?; "
	         "%s run -p %s -- %s --probe read %s/src/.env read %s/src/sub/deep/.env; "
	         "echo profile=$?; "
	         "%s run --hide '%s/src/**/.env' --dry-run -- /bin/true | grep '^glob walk'; "
	         "cat %s/src/sub/deep/.env",
	         it_sbx_path(), it_sbx_path(), t, it_self(), t, t, t, it_sbx_path(), prof,
	         it_self(), t, t, it_sbx_path(), t, t);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, landlocked_parent ? ll_opts : parent_opts(ns_opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "flag=0\n");
	IT_EXPECT_CONTAINS(r.out, "profile=0\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "TOKEN=top");
	snprintf(line, sizeof(line),
	         "read %s/src/.env => EACCES\nread %s/src/sub/deep/.env => "
	         "EACCES\nread %s/src/a.c => ok\n",
	         t, t, t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line),
	         "read %s/src/.env => EACCES\nread %s/src/sub/deep/.env => "
	         "EACCES\nprofile=0\n",
	         t, t);
	IT_EXPECT_CONTAINS(r.out, line);
	/* walked without the cache (a carved parent's entries may be walked twice: a match
	 * can count twice) */
	IT_EXPECT_CONTAINS(r.out, "(no cache)");
	/* the parent itself still reads what only its children hide */
	IT_EXPECT_CONTAINS(r.out, "TOKEN=deep\n");
	if (landlocked_parent)
		IT_EXPECT_CONTAINS(r.out, "backend:  namespaces\n");
}

static void test_nested_hide_globs(void)
{
	nested_hide_globs(false);
}

LANDLOCK_VARIANT(test_nested_hide_globs)

static void test_nested_hide_globs_landlocked_parent(void)
{
	nested_hide_globs(true);
}

/*
 * --unhide in a nested run gives back only what the child hides itself: what the parent hides
 * (a claude-agent-like parent hiding .env at any depth) stays hidden, with a note, so that a
 * child can never see more than its parent; a glob the child hides anew it may narrow.
 */
static void test_nested_unhide_cannot_widen(void)
{
	const char *t = make_tree();
	char script[16384], line[4300];
	const char *opts[] = {
	    "--allow-nesting",         "-v", sbx_dir_ro(), "-v", it_path(t, "src"), "--hide",
	    it_path(t, "src/**/.env"), NULL};
	struct it_run r;

	it_write_file(it_path(t, "src/.env"), "TOKEN=top\n");
	it_write_file(it_path(t, "src/sub/.env"), "TOKEN=sub\n");
	it_write_file(it_path(t, "src/a/x.key"), "KEY=a\n");
	it_write_file(it_path(t, "src/b/x.key"), "KEY=b\n");
	snprintf(script, sizeof(script),
	         "%s run --unhide %s/src/.env --unhide '%s/src/**/.env' -- %s --probe read "
	         "%s/src/.env read %s/src/sub/.env; echo first=$?; "
	         "%s run --hide '%s/src/**/*.key' --unhide %s/src/a/x.key -- %s --probe read "
	         "%s/src/a/x.key read %s/src/b/x.key; echo second=$?",
	         it_sbx_path(), t, t, it_self(), t, t, it_sbx_path(), t, t, it_self(), t, t);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, parent_opts(opts), cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "first=0\n");
	IT_EXPECT_CONTAINS(r.out, "second=0\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "TOKEN=");
	snprintf(line, sizeof(line), "read %s/src/.env => EACCES\nread %s/src/sub/.env => EACCES\n",
	         t, t);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line),
	         "sbx: note: unhide %s/src/.env: the parent sandbox hides %s/src/.env, and a "
	         "nested sandbox cannot give it back",
	         t, t);
	IT_EXPECT_CONTAINS(r.err, line);
	snprintf(line, sizeof(line), "read %s/src/a/x.key => ok\nread %s/src/b/x.key => EACCES\n",
	         t, t);
	IT_EXPECT_CONTAINS(r.out, line);
}

LANDLOCK_VARIANT(test_nested_unhide_cannot_widen)

static void test_status(void)
{
	const char *t = make_tree();
	const char *opts[] = {"--allow-nesting",    "-v", sbx_dir_ro(),      "-v",
	                      it_path(t, "src:ro"), "-v", it_path(t, "out"), NULL};
	const char *cmd[] = {it_sbx_path(), "status", "--json", NULL};
	char frag[4300];
	struct it_run r;

	it_sbxv(&r, "status", NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "not inside an sbx sandbox");
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"sandboxed\":true");
	IT_EXPECT_CONTAINS(r.out, "\"depth\":1");
	IT_EXPECT_CONTAINS(r.out, "\"backend\":\"namespaces\"");
	snprintf(frag, sizeof(frag),
	         "{\"target\":\"%s/src\",\"kind\":\"bind\",\"system\":false,"
	         "\"readonly\":true",
	         t);
	IT_EXPECT_CONTAINS(r.out, frag);
	snprintf(frag, sizeof(frag),
	         "{\"target\":\"%s/out\",\"kind\":\"bind\",\"system\":false,"
	         "\"readonly\":false",
	         t);
	IT_EXPECT_CONTAINS(r.out, frag);
	IT_EXPECT_CONTAINS(r.out, "{\"target\":\"/usr\",\"kind\":\"bind\",\"system\":true");
}

/*
 * --forge SRC SECRETS CMD...: read the real spec from SBX_SPEC_FD, widen it (SRC writable,
 * SECRETS visible and writable), seal it into a new memfd, point SBX_SPEC_FD at it and exec
 * CMD (it_run_in has already put this binary's path for each "@probe").
 */
static int forge_main(int argc, char **argv)
{
	struct sbx_nest *n = NULL;
	unsigned char *buf = NULL, *out = NULL;
	size_t len = 0, olen = 0;
	char num[16];
	int fd;

	if (argc < 4 || sbx_memfd_read_spec(atoi(getenv("SBX_SPEC_FD")), &buf, &len, NULL) < 0 ||
	    sbx_nest_decode(buf, len, &n, NULL) < 0)
		return 2;
	if (sbx_nest_put(n, argv[0], SBX_NEST_BIND, SBX_OP_ALL, 0, NULL) < 0 ||
	    sbx_nest_put(n, argv[1], SBX_NEST_BIND, SBX_OP_ALL, 0, NULL) < 0 ||
	    sbx_nest_encode(n, &out, &olen, NULL) < 0)
		return 2;
	fd = sbx_memfd_sealed(out, olen, NULL);
	if (fd < 0 || fcntl(fd, F_SETFD, 0) < 0)
		return 2;
	snprintf(num, sizeof(num), "%d", fd);
	setenv("SBX_SPEC_FD", num, 1);
	execv(argv[2], argv + 2);
	return 127;
}

/* --forge-rights PATH RIGHTS CMD...: like --forge, but set PATH's rights to RIGHTS. */
static int forge_rights_main(int argc, char **argv)
{
	struct sbx_nest *n = NULL;
	unsigned char *buf = NULL, *out = NULL;
	size_t len = 0, olen = 0;
	char num[16];
	int fd;

	if (argc < 3 || sbx_memfd_read_spec(atoi(getenv("SBX_SPEC_FD")), &buf, &len, NULL) < 0 ||
	    sbx_nest_decode(buf, len, &n, NULL) < 0)
		return 2;
	if (sbx_nest_put(n, argv[0], SBX_NEST_BIND, (unsigned)atoi(argv[1]), 0, NULL) < 0 ||
	    sbx_nest_encode(n, &out, &olen, NULL) < 0)
		return 2;
	fd = sbx_memfd_sealed(out, olen, NULL);
	if (fd < 0 || fcntl(fd, F_SETFD, 0) < 0)
		return 2;
	snprintf(num, sizeof(num), "%d", fd);
	setenv("SBX_SPEC_FD", num, 1);
	execv(argv[2], argv + 2);
	return 127;
}

/* --sealed-garbage CMD...: SBX_SPEC_FD names a sealed memfd that holds no spec. */
static int sealed_garbage_main(char **argv)
{
	static const char junk[] = "this is not an effective spec, though sealed like one";
	char num[16];
	int fd = sbx_memfd_sealed(junk, sizeof(junk), NULL);

	if (fd < 0 || fcntl(fd, F_SETFD, 0) < 0 || !argv[0])
		return 2;
	snprintf(num, sizeof(num), "%d", fd);
	setenv("SBX_SPEC_FD", num, 1);
	execv(argv[0], argv);
	return 127;
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_restrict_readonly_sees_src_only),
	    IT_CASE(test_escalations_refused),
	    IT_CASE(test_cannot_signal_or_ptrace_parent),
	    IT_CASE(test_no_parent_secrets_in_env_or_fds),
	    IT_CASE(test_forged_or_dropped_spec_gains_nothing),
	    IT_CASE(test_eight_deep),
	    IT_CASE(test_status),
	    IT_CASE(test_identity_and_ownership),
	    IT_CASE(test_restrict_readonly_sees_src_only_landlock),
	    IT_CASE(test_cannot_signal_or_ptrace_parent_landlock),
	    IT_CASE(test_no_parent_secrets_in_env_or_fds_landlock),
	    IT_CASE(test_forged_or_dropped_spec_gains_nothing_landlock),
	    IT_CASE(test_eight_deep_landlock),
	    IT_CASE(test_claude_agent_parent),
	    IT_CASE(test_claude_agent_parent_landlock),
	    IT_CASE(test_landlocked_parent),
	    IT_CASE(test_child_layer_holds_carried_rights),
	    IT_CASE(test_nested_profile_policy),
	    IT_CASE(test_nested_profile_hides_anew),
	    IT_CASE(test_nested_profile_hides_anew_landlock),
	    IT_CASE(test_scopes_in_a_nesting_parent),
	    IT_CASE(test_scopes_in_a_nesting_parent_landlock),
	    IT_CASE(test_scopes_dry_run_claude_agent),
	    IT_CASE(test_dropped_spec_in_restricted_agent),
	    IT_CASE(test_nested_hide_globs),
	    IT_CASE(test_nested_hide_globs_landlock),
	    IT_CASE(test_nested_hide_globs_landlocked_parent),
	    IT_CASE(test_nested_unhide_cannot_widen),
	    IT_CASE(test_nested_unhide_cannot_widen_landlock),
	};

	if (argc > 1 && strcmp(argv[1], "--forge") == 0)
		return forge_main(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "--sealed-garbage") == 0)
		return sealed_garbage_main(argv + 2);
	if (argc > 1 && strcmp(argv[1], "--forge-rights") == 0)
		return forge_rights_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
