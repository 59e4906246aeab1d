/* SPDX-License-Identifier: MIT */
/*
 * Per-operation rights enforced by the kernel (issue 4), tested differentially: for shipped
 * and generated profiles, a table of (operation, path) pairs in which `sbx check`'s verdict
 * is compared with what the kernel does inside the sandbox (the probe). The kernel never
 * allows what check denies, and agrees exactly wherever --dry-run reports the compile of
 * that path exact.
 */
#include "harness.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static char ws[4096], home[4096];

static const char *src_dir(void)
{
	const char *s = getenv("SBX_SOURCE_DIR");

	return s ? s : SBX_SOURCE_DIR;
}

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	char *s;
	va_list ap;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	va_end(ap);
	return s;
}

static void copy_true(const char *dst)
{
	char buf[65536];
	int in = open("/bin/true", O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n;

	IT_EXPECT(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		IT_EXPECT(write(out, buf, (size_t)n) == n);
	close(in);
	close(out);
}

/* The workspace's files, afresh (each sandbox run changes them). */
static void populate(void)
{
	int r = system(fmt("rm -rf '%s'/* '%s'/.[!.]*", ws, ws));

	(void)r;
	for (int sub = 0; sub < 2; sub++) {
		const char *d = sub ? fmt("%s/sub", ws) : ws;

		it_write_file(fmt("%s/r.txt", d), "r\n");
		it_write_file(fmt("%s/w.txt", d), "w\n");
		it_write_file(fmt("%s/u.txt", d), "u\n");
		it_write_file(fmt("%s/rn-a", d), "a\n");
		it_write_file(fmt("%s/l/one", d), "1\n");
		copy_true(fmt("%s/x.bin", d));
	}
	it_write_file(fmt("%s/out/keep", ws), "k\n");
	/* a secret at the top, which restricted-agent hides (denied under the landlock backend,
	 * masked under the namespaces one) */
	it_write_file(fmt("%s/.env", ws), "TOKEN=secret\n");
}

static void setup(void)
{
	const char *t;

	/* The case's directory, and so the workspace, lives outside /tmp (in /var/tmp), so
	 * that the private /tmp's rights, which would reach a workspace beneath it, play no
	 * part in what is exact. The harness removes it after the case. */
	setenv("TMPDIR", "/var/tmp", 1);
	t = it_tmpdir();
	snprintf(ws, sizeof(ws), "%s/ws", t);
	if (mkdir(ws, 0755) < 0)
		it_fail(__FILE__, __LINE__, "mkdir %s: %s", ws, strerror(errno));
	snprintf(home, sizeof(home), "%s/home", t);
	populate();
	it_write_file(fmt("%s/.claude/settings.json", home), "{}\n");
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	setenv("SBX_PROFILE_PATH", fmt("%s/profiles", src_dir()), 1);
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
}

/* One pair: the probe's operation and the operation `sbx check` decides. */
struct pair {
	const char *probe, *check, *rel, *rel2;
};
static const struct pair pairs[] = {
    {"read-size", "read", "r.txt", NULL},       {"write", "write", "w.txt", NULL},
    {"create", "create", "c-new", NULL},        {"unlink", "delete", "u.txt", NULL},
    {"mkdir", "create", "m-new", NULL},         {"ls", "list", "l", NULL},
    {"exec", "execute", "x.bin", NULL},         {"rename", "rename", "rn-a", "rn-b"},
    {"read-size", "read", "sub/r.txt", NULL},   {"write", "write", "sub/w.txt", NULL},
    {"create", "create", "sub/c-new", NULL},    {"unlink", "delete", "sub/u.txt", NULL},
    {"mkdir", "create", "sub/m-new", NULL},     {"ls", "list", "sub/l", NULL},
    {"exec", "execute", "sub/x.bin", NULL},     {"rename", "rename", "sub/rn-a", "sub/rn-b"},
    {"create", "create", "out/c-new", NULL},    {"exec", "execute", "/usr/bin/true", NULL},
    {"read-size", "read", "/etc/passwd", NULL}, {"write", "write", "/etc/passwd", NULL},
    {"create", "create", "/usr/c-new", NULL},   {"read-size", "read", ".env", NULL},
    {"write", "write", ".env", NULL},           {"unlink", "delete", ".env", NULL},
};
#define N_PAIRS (sizeof(pairs) / sizeof(pairs[0]))

static const char *abs_path(const char *rel)
{
	return rel[0] == '/' ? rel : fmt("%s/%s", ws, rel);
}

/* check's verdict: a rename is a delete of the old name and a create of the new one. */
static bool check_allows(const char *const *prof, const struct pair *p)
{
	struct it_run r;
	const char *args[16];
	size_t n = 0;

	args[n++] = "check";
	for (; prof && *prof; prof++)
		args[n++] = *prof;
	args[n++] = "--workspace";
	args[n++] = ws;
	if (p->rel2) {
		args[n++] = "delete";
		args[n++] = abs_path(p->rel);
		args[n] = NULL;
		it_sbx(&r, args);
		if (r.status != 0)
			return false;
		n -= 2;
		args[n++] = "create";
		args[n++] = abs_path(p->rel2);
	} else {
		args[n++] = p->check;
		args[n++] = abs_path(p->rel);
	}
	args[n] = NULL;
	it_sbx(&r, args);
	if (r.status != 0 && r.status != 1)
		it_fail(__FILE__, __LINE__, "sbx check failed (%d): %s", r.status, r.err);
	return r.status == 0;
}

/* Is the compile exact for this path: no inexact note about it or a path above it? */
static bool exact_for(const char *json, const char *path)
{
	const char *in = strstr(json, "\"inexact\":[");

	if (!in)
		it_fail(__FILE__, __LINE__, "no inexact list in --dry-run --json: %s", json);
	in += strlen("\"inexact\":[");
	while (*in == '"') {
		const char *colon = strstr(in, ": ");
		const char *end = strchr(in + 1, '"');
		char note_path[4096];

		if (!colon || !end)
			break;
		snprintf(note_path, sizeof(note_path), "%.*s", (int)(colon - in - 1), in + 1);
		if (strncmp(path, note_path, strlen(note_path)) == 0 &&
		    (path[strlen(note_path)] == '/' || path[strlen(note_path)] == '\0' ||
		     strcmp(note_path, "/") == 0))
			return false;
		in = end + 1;
		while (*in == ',')
			in++;
	}
	return true;
}

/*
 * Run the table under a profile (prof: "--profile", P, or NULL for the default) and extra
 * run options (a backend). Returns how many pairs were compared exactly.
 */
static unsigned differential(const char *const *prof, const char *const *extra)
{
	const char *opts[32], *cmd[4 + 3 * N_PAIRS];
	bool allow[N_PAIRS];
	struct it_run r;
	size_t n = 0, c = 0;
	unsigned exact = 0;
	char *json;

	for (const char *const *p = prof; p && *p; p++)
		opts[n++] = *p;
	opts[n++] = "--workspace";
	opts[n++] = ws;
	for (const char *const *p = extra; p && *p; p++)
		opts[n++] = *p;
	if (!prof) { /* the default profile's workspace, which -v would replace */
		opts[n++] = "-v";
		opts[n++] = ws;
	}
	opts[n++] = "--dry-run";
	opts[n++] = "--json";
	opts[n] = NULL;
	/* The tree first: what the plan compiles (hidden paths, carving) depends on it. */
	populate();
	cmd[c++] = "/bin/true";
	cmd[c] = NULL;
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	/* Landlock is on: with file rules, or only its scopes where the sandbox may nest and
	 * its mounts enforce every right (a domain handling file rights would forbid nested
	 * mounts); off only on a kernel without scopes. */
	if (syscall(444 /* landlock_create_ruleset */, NULL, 0, 1 /* VERSION */) >= 6)
		IT_EXPECT_CONTAINS(r.out, "\"landlock\":{\"enabled\":true");
	json = strdup(r.out);
	n -= 2;
	opts[n] = NULL;

	for (size_t i = 0; i < N_PAIRS; i++)
		allow[i] = check_allows(prof, &pairs[i]);
	populate();
	c = 0;
	cmd[c++] = "@probe";
	cmd[c++] = "--probe";
	for (size_t i = 0; i < N_PAIRS; i++) {
		cmd[c++] = pairs[i].probe;
		cmd[c++] = abs_path(pairs[i].rel);
		if (pairs[i].rel2)
			cmd[c++] = abs_path(pairs[i].rel2);
	}
	cmd[c] = NULL;
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	for (size_t i = 0; i < N_PAIRS; i++) {
		const char *path = abs_path(pairs[i].rel);
		char *line = fmt("%s %s => ", pairs[i].probe, path);
		const char *at = strstr(r.out, line);
		bool ok, is_exact;

		if (!at)
			it_fail(__FILE__, __LINE__, "no probe result for '%s' in:\n%s%s", line,
			        r.out, r.err);
		ok = strncmp(at + strlen(line), "ok", 2) == 0;
		is_exact = exact_for(json, path) &&
		           (!pairs[i].rel2 || exact_for(json, abs_path(pairs[i].rel2)));
		if (ok && !allow[i])
			it_fail(__FILE__, __LINE__,
			        "the kernel allows %s %s, which sbx check denies (profile %s)",
			        pairs[i].probe, path, prof ? prof[1] : "default");
		if (is_exact && ok != allow[i])
			it_fail(
			    __FILE__, __LINE__,
			    "exact compile, yet check says %s and the kernel says %.40s for %s %s "
			    "(profile %s)",
			    allow[i] ? "allow" : "deny", at + strlen(line), pairs[i].probe, path,
			    prof ? prof[1] : "default");
		exact += is_exact;
	}
	free(json);
	return exact;
}

/* A generated profile: the workspace with a policy of the given rules. */
static const char *gen_profile(const char *name, const char *rules)
{
	const char *dir = fmt("%s/gen", it_tmpdir());

	it_write_file(fmt("%s/%s.yaml", dir, name),
	              fmt("version: 1\nmounts:\n  - path: ${WORKSPACE}\n    policy: %s\n", name));
	it_write_file(fmt("%s/policies/%s.yaml", dir, name), fmt("version: 1\nrules:\n%s", rules));
	return fmt("%s/%s.yaml", dir, name);
}

static const char *const generated[][2] = {
    {"create-not-delete", "  - {name: a, paths: [\"**\"], operations: [read, list, stat, write, "
                          "create, execute], decision: allow}\n"},
    {"write-not-exec", "  - {name: a, paths: [\"**\"], operations: [read, list, stat, write, "
                       "create, delete], decision: allow}\n"},
    {"delete-not-create", "  - {name: a, paths: [\"**\"], operations: [read, list, stat, delete, "
                          "execute], decision: allow}\n"},
    {"read-not-list", "  - {name: a, paths: [\"**\"], operations: [read, stat, execute], "
                      "decision: allow}\n"},
    {"out-writable", "  - {name: a, paths: [\"**\"], operations: [read, list, stat, execute], "
                     "decision: allow}\n  - {name: o, paths: [\"out/**\"], operations: [write, "
                     "create, delete], decision: allow}\n"},
    {"sub-no-write", "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n  - "
                     "{name: d, paths: [\"sub/**\"], operations: [write], decision: deny}\n"},
    {"glob-no-read", "  - {name: a, paths: [\"**\"], operations: [all], decision: allow}\n  - "
                     "{name: d, paths: [\"**/*.txt\"], operations: [read], decision: deny}\n"},
};

static void run_all(const char *const *extra)
{
	static const char *const shipped[] = {"code-reviewer", "restricted-agent", "claude-agent",
	                                      "ci-job", "no-secrets"};
	unsigned exact = 0;

	setup();
	exact += differential(NULL, extra);
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		/* claude-agent with the host's network, for both: this compares its files (its
		 * allowlist under each backend is it_net's) */
		const char *prof[] = {"--profile", shipped[i], NULL};
		const char *more[8];
		size_t m = 0;

		for (const char *const *e = extra; e && *e && m < 5; e++)
			more[m++] = *e;
		if (!strcmp(shipped[i], "claude-agent")) {
			more[m++] = "--net";
			more[m++] = "host";
		}
		more[m] = NULL;
		exact += differential(prof, more);
	}
	for (size_t i = 0; i < sizeof(generated) / sizeof(generated[0]); i++) {
		const char *prof[] = {"--profile", gen_profile(generated[i][0], generated[i][1]),
		                      NULL};

		exact += differential(prof, extra);
	}
	/* most pairs compile exactly: the comparison is not vacuous */
	printf("    %u pairs compared exactly\n", exact);
	IT_EXPECT(exact >= 100);
}

static void test_differential_namespaces(void)
{
	run_all((const char *const[]){"--backend", "namespaces", NULL});
}

/* The same table under the landlock backend, every shipped profile included and nothing
 * accepted as best-effort: hidden paths are denied rather than masked, a private tmpfs
 * denies the host's directory, --net none denies every socket but AF_UNIX. */
static void test_differential_landlock(void)
{
	run_all((const char *const[]){"--backend", "landlock", NULL});
}

/* Simulate a host without user namespaces, as inside a container: in a user namespace of our
 * own, user.max_user_namespaces is 0, and sbx itself must find that out. */
static void no_user_namespaces(void)
{
	int fd;

	if (unshare(CLONE_NEWUSER) < 0)
		it_skip("cannot make a user namespace to test in: %s", strerror(errno));
	fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		it_skip("cannot lower user.max_user_namespaces in a user namespace here");
	close(fd);
}

static void test_auto_picks_landlock_without_user_namespaces(void)
{
	const char *opts[8];
	struct it_run r;

	setup();
	no_user_namespaces();
	opts[0] = "--dry-run";
	opts[1] = "--net";
	opts[2] = "host";
	opts[3] = NULL;
	it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "backend:    landlock");
	IT_EXPECT_CONTAINS(r.out, "landlock backend gives up:");
	IT_EXPECT_CONTAINS(r.out, "no pid, ipc, uts or mount namespace");
	IT_EXPECT_CONTAINS(r.out, "no private /tmp");
	/* and it runs, enforced: the workspace is granted, the rest of the host denied */
	opts[0] = "-v";
	opts[1] = ws;
	opts[4] = NULL;
	opts[3] = "host";
	opts[2] = "--net";
	it_run_in(&r, opts,
	          (const char *const[]){"@probe", "--probe", "write", fmt("%s/w.txt", ws), "read",
	                                "/etc/shadow", "read",
	                                fmt("%s/.claude/settings.json", home), "create",
	                                "/var/tmp/sbx-it-outside", "ls", "/root", "create",
	                                "/tmp/sbx-it-shared", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/w.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, "read /etc/shadow => EACCES");
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/.claude/settings.json => EACCES", home));
	IT_EXPECT_CONTAINS(r.out, "create /var/tmp/sbx-it-outside => EACCES");
	IT_EXPECT_CONTAINS(r.out, "ls /root => EACCES");
	IT_EXPECT_CONTAINS(r.out, "create /tmp/sbx-it-shared => EACCES");
	/* --net none is compiled stricter, not refused: no loopback either. seccomp denies
	 * every socket but AF_UNIX (UDP, raw, packet), Landlock TCP bind and connect. */
	it_run_in(&r, (const char *const[]){"-v", ws, NULL},
	          (const char *const[]){"@probe", "--probe", "tcp-connect", "9", "tcp-bind", "0",
	                                "udp-send", "9", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "NOT ENFORCED");
	IT_EXPECT_CONTAINS(r.out, "tcp-connect 9 => EPERM");
	IT_EXPECT_CONTAINS(r.out, "tcp-bind 0 => EPERM");
	IT_EXPECT_CONTAINS(r.out, "udp-send 9 => EPERM");
	it_run_in(&r, (const char *const[]){"-v", ws, "--dry-run", NULL},
	          (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, "STRICTER: --net none: no loopback either");
	IT_EXPECT_CONTAINS(r.out, "socket[not AF_UNIX]");
}

/* What the landlock backend cannot give is refused, with what to do. */
static void test_landlock_backend_refusals(void)
{
	struct it_run r;
	const char *vol;

	setup();
	vol = fmt("%s:/elsewhere", ws);
	it_sbxv(&r, "run", "--backend", "landlock", "--net", "host", "-v", vol, "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, fmt("cannot show %s at /elsewhere", ws));
	IT_EXPECT_CONTAINS(r.err, fmt("mount it at its own path (-v %s)", ws));
	it_sbxv(&r, "run", "--backend", "landlock", "--best-effort", "--root", ws, "--",
	        "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "root mode needs a mount namespace");
	it_sbxv(&r, "run", "--backend", "sideways", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "use auto, namespaces or landlock");
}

/* Per-operation rights hold under the landlock backend too. */
static void test_landlock_backend_per_operation(void)
{
	const char *opts[8];
	struct it_run r;

	setup();
	opts[0] = "--profile";
	opts[1] = gen_profile("cnd", generated[0][1]);
	opts[2] = "--backend";
	opts[3] = "landlock";
	opts[4] = "--net";
	opts[5] = "host";
	opts[6] = NULL;
	it_run_in(&r, opts,
	          (const char *const[]){"@probe", "--probe", "create", fmt("%s/new", ws), "unlink",
	                                fmt("%s/u.txt", ws), "exec", fmt("%s/x.bin", ws), NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/new => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/u.txt => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("exec %s/x.bin => ok", ws));
	opts[1] = gen_profile("wne", generated[1][1]);
	it_run_in(&r, opts,
	          (const char *const[]){"@probe", "--probe", "unlink", fmt("%s/u.txt", ws), "exec",
	                                fmt("%s/x.bin", ws), NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/u.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("exec %s/x.bin => EACCES", ws));
}

static void test_create_allowed_delete_denied(void)
{
	const char *prof;
	const char *opts[8];
	struct it_run r;

	setup();
	prof = gen_profile("cnd", generated[0][1]);
	opts[0] = "--profile";
	opts[1] = prof;
	opts[2] = NULL;
	it_run_in(&r, opts,
	          (const char *const[]){"@probe", "--probe", "create", fmt("%s/new", ws), "unlink",
	                                fmt("%s/u.txt", ws), "unlink", fmt("%s/new", ws), "rmdir",
	                                fmt("%s/l", ws), "rename", fmt("%s/rn-a", ws),
	                                fmt("%s/rn-b", ws), "write", fmt("%s/w.txt", ws), NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/new => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/u.txt => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/new => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("rename %s/rn-a => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/w.txt => ok", ws));
	IT_EXPECT(access(fmt("%s/u.txt", ws), F_OK) == 0);
	IT_EXPECT(access(fmt("%s/new", ws), F_OK) == 0);
}

static void test_write_allowed_execute_denied(void)
{
	const char *opts[4];
	struct it_run r;

	setup();
	opts[0] = "--profile";
	opts[1] = gen_profile("wne", generated[1][1]);
	opts[2] = NULL;
	it_run_in(&r, opts,
	          (const char *const[]){"@probe", "--probe", "write", fmt("%s/x.bin", ws), "exec",
	                                fmt("%s/sub/x.bin", ws), "exec", "/usr/bin/true", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/x.bin => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("exec %s/sub/x.bin => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, "exec /usr/bin/true => ok");
	/* and a program copied there cannot be run through the shell either */
	it_run_in(&r, opts,
	          (const char *const[]){"/bin/sh", "-c",
	                                fmt("cp /bin/true %s/t2 && %s/t2; echo $?", ws, ws), NULL});
	IT_EXPECT_CONTAINS(r.out, "126\n");
}

/* --dry-run shows the rules and says what is inexact, and why. */
static void test_dry_run_lists_rules(void)
{
	const char *opts[6];
	struct it_run r;

	setup();
	opts[0] = "--profile";
	opts[1] = gen_profile("sub-no-write", generated[5][1]);
	opts[2] = "--dry-run";
	opts[3] = NULL;
	it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "landlock rules (everything else denied):");
	IT_EXPECT_CONTAINS(r.out, fmt("  %s ", ws));
	IT_EXPECT_CONTAINS(r.out, "landlock compile: INEXACT (stricter than the policies):");
	IT_EXPECT_CONTAINS(r.out, "Landlock cannot take rights back beneath a grant");
	opts[3] = "--json";
	opts[4] = NULL;
	it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, "\"exact\":false");
	IT_EXPECT_CONTAINS(r.out, "\"access\":\"execute,read_file,read_dir");
}

/* Signals are scoped (ABI 6): the worker cannot signal sbx's init, outside its domain, even
 * as uid 0 of its namespace. */
static void test_signals_scoped(void)
{
	struct it_run r;

	it_sh(&r, "kill -0 1 2>/dev/null; echo kill-init=$?; kill -0 $$ && echo self-ok", NULL);
	IT_EXPECT_CONTAINS(r.out, "self-ok");
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "kill-init=1");
}

/* A host service on a unix socket bound to a path (a container engine's, a session bus) is
 * in the caller's mount namespace and beyond Landlock: under the landlock backend no new unix
 * socket can be made, whatever the network, while socketpair(2) still works. Under the
 * namespaces backend the socket is simply not there. */
static void test_landlock_backend_unix_sockets(void)
{
	struct it_run r;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const char *sock = fmt("%s/host-svc.sock", it_tmpdir());

	setup();
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	IT_EXPECT(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	          listen(fd, 1) == 0);
	chmod(sock, 0777);
	/* the probe itself can reach it from outside: the test means something */
	it_exec(&r, (const char *const[]){it_self(), "--probe", "unix-connect", sock, NULL});
	IT_EXPECT_CONTAINS(r.out, fmt("unix-connect %s => ok", sock));
	it_run_in(&r,
	          (const char *const[]){"--backend", "landlock", "--net", "host", "-v", ws, NULL},
	          (const char *const[]){"@probe", "--probe", "unix-connect", sock, NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("unix-connect %s => EPERM", sock));
	it_run_in(&r,
	          (const char *const[]){"--backend", "landlock", "--net", "host", "-v", ws, NULL},
	          (const char *const[]){"/usr/bin/python3", "-c",
	                                "import socket; a, b = socket.socketpair(); a.send(b'x'); "
	                                "print('pair', b.recv(1).decode())",
	                                NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "pair x");
	it_run_in(&r,
	          (const char *const[]){"--backend", "landlock", "--net", "host", "-v", ws,
	                                "--dry-run", NULL},
	          (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, "socket[AF_UNIX]");
	it_run_in(&r,
	          (const char *const[]){"--backend", "namespaces", "--net", "host", "-v", ws, NULL},
	          (const char *const[]){"@probe", "--probe", "unix-connect", sock, NULL});
	IT_EXPECT_CONTAINS(r.out, fmt("unix-connect %s => ENOENT", sock));
	close(fd);
	unlink(sock);
}

/*
 * The landlock backend makes no user namespace: --dry-run (text and JSON) and sbx status say
 * the worker has the caller's own ids (kernel uid 0 as root), maps nothing and id-maps no
 * bind, and `id` inside agrees; with nesting allowed too (root's namespaces sandbox would swap
 * in uid 65533 there).
 */
static void test_landlock_backend_identity(void)
{
	char *dir = strdup(it_sbx_path()), *slash;
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	struct it_run r;

	setup();
	IT_EXPECT(dir && (slash = strrchr(dir, '/')) != NULL);
	*slash = '\0';
	for (int nest = 0; nest < 2; nest++) {
		const char *opts[12] = {"--backend",
		                        "landlock",
		                        "--net",
		                        "host",
		                        "-v",
		                        ws,
		                        "-v",
		                        fmt("%s:ro", dir),
		                        nest ? "--allow-nesting" : NULL};
		size_t n = nest ? 9 : 8;

		opts[n] = "--dry-run";
		it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(
		    r.out, fmt("identity:   uid %u gid %u, the caller's own (no user "
		               "namespace: the landlock backend maps nothing, binds are not "
		               "id-mapped)",
		               uid, gid));
		IT_EXPECT_NOT_CONTAINS(r.out, "2147418112");
		IT_EXPECT_NOT_CONTAINS(r.out, ",idmap");
		opts[n + 1] = "--json";
		it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("\"identity\":{\"uid\":%u,\"gid\":%u,\"host_uid\":%u,"
		                              "\"host_gid\":%u,\"count\":0,\"idmap_binds\":false,"
		                              "\"root_swap\":false,\"user_namespace\":false}",
		                              uid, gid, uid, gid));
		IT_EXPECT_NOT_CONTAINS(r.out, "\"idmap\":true");
		opts[n] = NULL;
		opts[n + 1] = NULL;
		it_run_in(
		    &r, opts,
		    (const char *const[]){"/bin/sh", "-c",
		                          fmt("echo id=$(id -u):$(id -g); %s status; %s status "
		                              "--json",
		                              it_sbx_path(), it_sbx_path()),
		                          NULL});
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("id=%u:%u\n", uid, gid));
		IT_EXPECT_CONTAINS(r.out,
		                   fmt("identity: uid %u gid %u, the caller's own (the landlock "
		                       "backend makes no user namespace and id-maps no bind): "
		                       "kernel ids",
		                       uid, gid));
		IT_EXPECT_CONTAINS(r.out,
		                   fmt("\"identity\":{\"uid\":%u,\"gid\":%u,\"outer_uid\":%u,"
		                       "\"outer_gid\":%u,\"own_user_namespace\":false,"
		                       "\"kernel_ids\":true}",
		                       uid, gid, uid, gid));
	}
}

/* Under the landlock backend, a read-only mount beneath a writable one: Landlock cannot give
 * it less than its parent, so the parent's rule loses writing, and sbx gives it back entry
 * by entry; only new entries at the top are refused (stricter, and said so). */
static void test_landlock_backend_nested_readonly(void)
{
	struct it_run r;
	const char *ro = fmt("%s/l:ro", ws);

	setup();
	ro = fmt("%s/l:ro", ws);
	it_run_in(&r,
	          (const char *const[]){"--backend", "landlock", "--net", "host", "-v", ws, "-v",
	                                ro, NULL},
	          (const char *const[]){"@probe", "--probe", "write", fmt("%s/w.txt", ws), "write",
	                                fmt("%s/sub/w.txt", ws), "create", fmt("%s/sub/c-new", ws),
	                                "write", fmt("%s/l/one", ws), "create", fmt("%s/l/new", ws),
	                                "create", fmt("%s/top-new", ws), NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/w.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/sub/w.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/sub/c-new => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/l/one => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/l/new => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/top-new => EACCES", ws)); /* stricter */
	it_run_in(&r,
	          (const char *const[]){"--backend", "landlock", "--net", "host", "-v", ws, "-v",
	                                ro, "--dry-run", NULL},
	          (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, "carved: its own rights");
	IT_EXPECT_CONTAINS(r.out, "entries created later directly in it");
}

/* Every shipped profile runs under the landlock backend without --best-effort, its rules
 * enforced: what cannot be exact is stricter, and --dry-run says so. */
static void test_landlock_backend_shipped_profiles(void)
{
	static const char *const shipped[] = {"code-reviewer", "restricted-agent", "claude-agent",
	                                      "ci-job", "no-secrets"};
	const char *opts[8];
	struct it_run r;

	setup();
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		opts[0] = "--profile";
		opts[1] = shipped[i];
		opts[2] = "--backend";
		opts[3] = "landlock";
		/* claude-agent with its allowlist: the proxy on the host's loopback (sbx(1),
		 * NETWORK) */
		opts[4] = NULL;
		it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
		if (r.status != 0)
			it_fail(__FILE__, __LINE__, "profile %s under --backend landlock: %d: %s",
			        shipped[i], r.status, r.err);
		IT_EXPECT_NOT_CONTAINS(r.err, "NOT ENFORCED");
	}
	/* what its allowlist gives up here, said */
	opts[1] = "claude-agent";
	opts[4] = "--dry-run";
	opts[5] = NULL;
	it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "--net allowlist: no resolver inside");
	opts[4] = NULL;
	/* restricted-agent: the secret is denied, not masked; its neighbours keep their rights;
	 * a file created later at the top cannot be read (stricter) */
	opts[1] = "restricted-agent";
	it_run_in(&r, opts,
	          (const char *const[]){"@probe",
	                                "--probe",
	                                "read",
	                                fmt("%s/.env", ws),
	                                "write",
	                                fmt("%s/.env", ws),
	                                "unlink",
	                                fmt("%s/.env", ws),
	                                "rename",
	                                fmt("%s/.env", ws),
	                                fmt("%s/sub/stolen", ws),
	                                "link",
	                                fmt("%s/.env", ws),
	                                fmt("%s/sub/linked", ws),
	                                "read",
	                                fmt("%s/r.txt", ws),
	                                "write",
	                                fmt("%s/w.txt", ws),
	                                "create",
	                                fmt("%s/sub/c-new", ws),
	                                "unlink",
	                                fmt("%s/sub/u.txt", ws),
	                                "ls",
	                                ws,
	                                "create",
	                                fmt("%s/top-new", ws),
	                                "link",
	                                fmt("%s/.env", ws),
	                                fmt("%s/env-again", ws),
	                                NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/.env => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/.env => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/.env => EACCES", ws));
	IT_EXPECT_NOT_CONTAINS(r.out, fmt("rename %s/.env => ok", ws));
	IT_EXPECT_NOT_CONTAINS(r.out, fmt("link %s/.env => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/r.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/w.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/sub/c-new => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/sub/u.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("ls %s => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/top-new => EACCES", ws)); /* made, not writable */
	/* a hard link beside it would not be hidden at the next launch: none at all */
	IT_EXPECT_CONTAINS(r.out, fmt("link %s/.env => EPERM", ws));
	IT_EXPECT(access(fmt("%s/env-again", ws), F_OK) != 0);
	IT_EXPECT(access(fmt("%s/.env", ws), F_OK) == 0);
	opts[4] = "--dry-run";
	opts[5] = NULL;
	it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.env", ws));
	IT_EXPECT_CONTAINS(r.out, "(hidden: denied, not masked)");
	IT_EXPECT_CONTAINS(r.out, fmt("%s: stricter: carved into", ws));
	IT_EXPECT_CONTAINS(r.out, "STRICTER: hiding");
	/* ci-job: $HOME is a private tmpfs elsewhere; here the host's is denied, and nothing
	 * is made in it; no network at all */
	opts[1] = "ci-job";
	opts[4] = NULL;
	/* a host service on a unix socket bound to a path, which Landlock does not guard */
	{
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/svc.sock", it_tmpdir());
		IT_EXPECT(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
		          listen(fd, 1) == 0);
		chmod(sa.sun_path, 0777);
	}
	it_run_in(&r, opts,
	          (const char *const[]){"@probe", "--probe", "read",
	                                fmt("%s/.claude/settings.json", home), "create",
	                                fmt("%s/new", home), "ls", home, "write",
	                                fmt("%s/w.txt", ws), "udp-send", "9", "tcp-connect", "9",
	                                "unix-connect", fmt("%s/svc.sock", it_tmpdir()), NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/.claude/settings.json => EACCES", home));
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/new => EACCES", home));
	IT_EXPECT_CONTAINS(r.out, fmt("ls %s => EACCES", home));
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/w.txt => ok", ws));
	IT_EXPECT_CONTAINS(r.out, "udp-send 9 => EPERM");
	IT_EXPECT_CONTAINS(r.out, "tcp-connect 9 => EPERM");
	IT_EXPECT_CONTAINS(r.out, fmt("unix-connect %s/svc.sock => EPERM", it_tmpdir()));
	IT_EXPECT(access(fmt("%s/new", home), F_OK) != 0);
	opts[4] = "--dry-run";
	opts[5] = NULL;
	it_run_in(&r, opts, (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out,
	                   fmt("%s: stricter: a private tmpfs needs a mount namespace", home));
}

/* sbx doctor explains this machine: the Landlock ABI the kernel reports, and the backend. */
static void test_doctor(void)
{
	struct it_run r;
	long abi = syscall(444 /* landlock_create_ruleset */, NULL, 0, 1 /* VERSION */);

	it_sbxv(&r, "doctor", NULL);
	IT_EXPECT(r.status == 0 || r.status == 1);
	IT_EXPECT_CONTAINS(r.out, "user namespaces");
	IT_EXPECT_CONTAINS(r.out, "seccomp notify");
	IT_EXPECT_CONTAINS(r.out, "mount API");
	IT_EXPECT_CONTAINS(r.out, "cgroup v2");
	if (abi >= 1)
		IT_EXPECT_CONTAINS(r.out, fmt("Landlock         ABI %ld", abi));
	else
		IT_EXPECT_CONTAINS(r.out, "fix: boot with 'landlock' in lsm=");
	IT_EXPECT_CONTAINS(r.out, "backend: namespaces");
	/* A machine that shows its kernel threads and whose / is no overlay is no container,
	 * whatever files an image left behind (this project's VMs keep /.dockerenv). */
	{
		char comm[32] = "";
		FILE *f = fopen("/proc/2/comm", "re");

		if (f && fgets(comm, sizeof(comm), f) && strncmp(comm, "kthreadd", 8) == 0 &&
		    !getenv("container") &&
		    system("grep -q ' / / .* - overlay ' /proc/self/mountinfo") != 0) {
			IT_EXPECT_CONTAINS(r.out, "ok   container        none detected");
			if (access("/.dockerenv", F_OK) == 0)
				IT_EXPECT_CONTAINS(r.out, "/.dockerenv is set aside");
		}
		if (f)
			fclose(f);
	}
	it_sbxv(&r, "doctor", "extra", NULL);
	IT_EXPECT_INT(r.status, 125);
	/* without user namespaces it says why, with the fix, and that it falls back */
	no_user_namespaces();
	it_sbxv(&r, "doctor", NULL);
	IT_EXPECT_CONTAINS(r.out, "--   user namespaces");
	IT_EXPECT_CONTAINS(r.out, "user.max_user_namespaces is 0");
	IT_EXPECT_CONTAINS(r.out, "fix: allow them with 'sysctl -w user.max_user_namespaces");
	IT_EXPECT_CONTAINS(r.out, "backend: landlock (no user namespaces here)");
}

/* Hide globs: one walk at launch masks every match read-only; the cache is revalidated by
 * directory change times, so a secret added on the host is hidden at the next launch. */
static void test_hide_globs(void)
{
	const char *glob, *cache;
	struct it_run r;

	setup();
	it_write_file(fmt("%s/.env", ws), "TOP=secret\n");
	it_write_file(fmt("%s/sub/deep/.env", ws), "DEEP=secret\n");
	cache = fmt("%s/cache", it_tmpdir());
	setenv("XDG_CACHE_HOME", cache, 1);
	glob = fmt("%s/**/.env", ws);
	it_run_in(&r, (const char *const[]){"-v", ws, "--hide", glob, NULL},
	          (const char *const[]){"@probe", "--probe", "read", fmt("%s/.env", ws), "read",
	                                fmt("%s/sub/deep/.env", ws), "write", fmt("%s/.env", ws),
	                                "unlink", fmt("%s/sub/deep/.env", ws), "read",
	                                fmt("%s/r.txt", ws), NULL});
	IT_EXPECT_INT(r.status, 0);
	/* a mask of mode 0000: it cannot be opened, for reading or for writing */
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/.env => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/sub/deep/.env => EACCES", ws));
	IT_EXPECT_NOT_CONTAINS(r.out, "secret");
	IT_EXPECT_CONTAINS(r.out, fmt("write %s/.env => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("unlink %s/sub/deep/.env => EBUSY", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("read %s/r.txt => ok", ws));
	it_run_in(&r, (const char *const[]){"-v", ws, "--hide", glob, NULL},
	          (const char *const[]){"/bin/sh", "-c",
	                                fmt("cat %s/.env %s/sub/deep/.env; echo done", ws, ws),
	                                NULL});
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "secret");
	/* the first launch walked and cached; the second revalidates */
	it_run_in(&r, (const char *const[]){"-v", ws, "--hide", glob, "--dry-run", NULL},
	          (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, "(cache revalidated)");
	IT_EXPECT_CONTAINS(r.out, fmt("mask                     %s/sub/deep/.env", ws));
	/* a secret the host adds later changes its directory: walked again, hidden */
	it_write_file(fmt("%s/l/.env", ws), "LATE=secret\n");
	it_run_in(&r, (const char *const[]){"-v", ws, "--hide", glob, "--dry-run", NULL},
	          (const char *const[]){"/bin/true", NULL});
	IT_EXPECT_CONTAINS(r.out, "(walked, cached)");
	IT_EXPECT_CONTAINS(r.out, fmt("mask                     %s/l/.env", ws));
	/* check agrees: every match is hidden */
	it_sbxv(&r, "check", "--workspace", ws, "read", fmt("%s/l/.env", ws), NULL);
	IT_EXPECT_INT(r.status, 0); /* check knows no --hide: the default profile allows */
	/* the cache is sbx's own, private */
	IT_EXPECT(access(fmt("%s/sbx", cache), F_OK) == 0);
	{
		struct stat st;

		IT_EXPECT_INT(stat(fmt("%s/sbx", cache), &st), 0);
		IT_EXPECT_INT(st.st_mode & 077, 0);
	}
}

/* A profile's hide globs: validated, and check answers "hidden" for what they match. */
static void test_hide_glob_profile(void)
{
	const char *file;
	struct it_run r;

	setup();
	file = fmt("%s/globby.yaml", it_tmpdir());
	it_write_file(fmt("%s/.env", ws), "X=secret\n");
	it_write_file(file, "version: 1\nmounts:\n  - path: ${WORKSPACE}\nhide:\n  - "
	                    "${WORKSPACE}/**/.env\n");
	it_sbxv(&r, "profiles", "validate", file, NULL);
	IT_EXPECT_INT(r.status, 0);
	it_sbxv(&r, "check", "--profile", file, "--workspace", ws, "read", fmt("%s/sub/.env", ws),
	        NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "hidden");
	it_sbxv(&r, "run", "--profile", file, "--workspace", ws, "--", "/bin/cat",
	        fmt("%s/.env", ws), NULL);
	IT_EXPECT_INT(r.status, 1); /* cat: Permission denied */
	IT_EXPECT_CONTAINS(r.err, "Permission denied");
	IT_EXPECT_NOT_CONTAINS(r.out, "secret");
}

/*
 * Hiding and symbolic links, both backends. The kernel follows a link; sbx's walk and masks
 * never do: a glob whose literal folder is a link, and an exact path through one, are
 * refused (they would hide nothing while `sbx check` said hidden); a hidden link cannot be
 * read through (masked, or under the landlock backend what it names is hidden too); a ".."
 * after a name is refused.
 */
static void test_hide_and_links(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};
	struct it_run r;

	setup();
	it_write_file(fmt("%s/config2/x.key", ws), "KEY=secret\n");
	it_write_file(fmt("%s/config2/sub/y.key", ws), "KEY=secret\n");
	it_write_file(fmt("%s/real/.env", ws), "ENV=secret\n");
	IT_EXPECT_INT(symlink("config2", fmt("%s/config", ws)), 0);
	IT_EXPECT_INT(symlink("real/.env", fmt("%s/link.env", ws)), 0);
	IT_EXPECT_INT(symlink("real", fmt("%s/lnk", ws)), 0);
	IT_EXPECT_INT(symlink("/etc/hosts", fmt("%s/sys.env", ws)), 0);
	IT_EXPECT_INT(symlink("link.env", fmt("%s/chain.env", ws)), 0);
	IT_EXPECT_INT(symlink(".", fmt("%s/dot.env", ws)), 0);
	IT_EXPECT_INT(symlink("/proc/self/cwd/real/.env", fmt("%s/proc.env", ws)), 0);
	IT_EXPECT_INT(link(fmt("%s/r.txt", ws), fmt("%s/hard.env", ws)), 0);
	it_write_file(fmt("%s/p [v1]/config2/x.key", ws), "KEY=secret\n");
	IT_EXPECT_INT(symlink("config2", fmt("%s/p [v1]/config", ws)), 0);
	for (size_t b = 0; b < 2; b++) {
		const char *be = backends[b];

		/* the glob's folder is the link, or passes through it */
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/config/*.key", ws), NULL},
		          (const char *const[]){"/bin/cat", fmt("%s/config/x.key", ws), NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		IT_EXPECT_CONTAINS(r.err, fmt("passes through %s/config, a symbolic link", ws));
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/config/sub/*.key", ws), "--hide",
		                                fmt("%s/**/.npmrc", ws), NULL},
		          (const char *const[]){"/bin/cat", fmt("%s/config/sub/y.key", ws), NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		IT_EXPECT_CONTAINS(r.err, "symbolic link");
		/* the same beneath a folder whose name the glob quotes */
		it_run_in(
		    &r,
		    (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                          fmt("%s/p \\[v1]/config/*.key", ws), NULL},
		    (const char *const[]){"/bin/cat", fmt("%s/p [v1]/config/x.key", ws), NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		IT_EXPECT_CONTAINS(r.err,
		                   fmt("passes through %s/p [v1]/config, a symbolic link", ws));
		/* an exact path through a link */
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/lnk/.env", ws), NULL},
		          (const char *const[]){"/bin/cat", fmt("%s/lnk/.env", ws), NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		/* a hidden link cannot be read through, nor what it leads to (what the host
		 * writes to the hidden name lands there) */
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/link.env", ws), NULL},
		          (const char *const[]){
		              "/bin/sh", "-c",
		              fmt("cat %s/link.env %s/real/.env; echo done", ws, ws), NULL});
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "done");
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		/* one that leads to what only a read-only mount shows is refused, not hidden */
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/sys.env", ws), NULL},
		          (const char *const[]){"/bin/true", NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "which the sandbox shows read-only");
		/* what sbx cannot follow safely to hide what the host writes there: a link to a
		 * link, to a folder, through /proc; a file with another hard link */
		{
			const char *const bad[] = {"chain.env", "dot.env", "proc.env", "hard.env"};

			for (size_t k = 0; k < 4; k++) {
				it_run_in(&r,
				          (const char *const[]){"--backend", be, "-v", ws, "--hide",
				                                fmt("%s/%s", ws, bad[k]), NULL},
				          (const char *const[]){"/bin/true", NULL});
				IT_EXPECT_INT(r.status, 125);
				IT_EXPECT_CONTAINS(r.err,
				                   "sbx cannot hide what the host writes to it");
			}
		}
		/* a ".." after a name: the kernel would have followed lnk */
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/lnk/../x", ws), NULL},
		          (const char *const[]){"/bin/true", NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "a '..' after a name");
	}
	/* a profile's entry too */
	it_write_file(fmt("%s/dots.yaml", it_tmpdir()),
	              "version: 1\nmounts:\n  - path: ${WORKSPACE}\nhide:\n  - "
	              "${WORKSPACE}/lnk/../.env\n");
	it_sbxv(&r, "profiles", "validate", fmt("%s/dots.yaml", it_tmpdir()), NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "a '..' after a name");
}

/* A path hidden by a name its folders give (an exact path, config/\*.key): those folders
 * cannot be renamed in one run to unhide it in the next (namespaces: pinned, EBUSY;
 * landlock: carved, EACCES). One matched by its last name anywhere (a ** folder, then .env)
 * needs no pin: renamed, it is hidden again at the next launch. */
static void test_hide_folders_kept(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};
	struct it_run r;

	setup();
	it_write_file(fmt("%s/config/x.key", ws), "KEY=secret\n");
	it_write_file(fmt("%s/a/b/.env", ws), "ENV=secret\n");
	for (size_t b = 0; b < 2; b++) {
		const char *be = backends[b];
		const char *const hides[] = {fmt("%s/config/x.key", ws),
		                             fmt("%s/config/*.key", ws)};

		for (size_t h = 0; h < 2; h++) {
			it_run_in(&r,
			          (const char *const[]){"--backend", be, "-v", ws, "--hide",
			                                hides[h], NULL},
			          (const char *const[]){
			              "/bin/sh", "-c",
			              "mv config cfg || mv config/.. up; echo done", NULL});
			IT_EXPECT_INT(r.status, 0);
			IT_EXPECT_CONTAINS(r.out, "done");
			IT_EXPECT(access(fmt("%s/config/x.key", ws), F_OK) == 0);
		}
		it_run_in(
		    &r,
		    (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                          fmt("%s/**/.env", ws), NULL},
		    (const char *const[]){"/bin/sh", "-c", "mv a a2 || mv a2 a; echo done", NULL});
		IT_EXPECT_INT(r.status, 0);
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", ws, "--hide",
		                                fmt("%s/**/.env", ws), NULL},
		          (const char *const[]){"/bin/sh", "-c",
		                                "cat a/b/.env a2/b/.env; echo done", NULL});
		IT_EXPECT_CONTAINS(r.out, "done");
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
	}
}

/* Another process renames a folder above a hidden file back and forth while sandboxes
 * launch (a sandbox beside them could): each launch hides it or is refused, none shows it.
 * Every run must hold, however the renames fall: no timing is assumed. */
static void test_hide_concurrent_mover(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};
	struct it_run r;
	pid_t mover;
	int shown = 0;

	setup();
	it_write_file(fmt("%s/a/.env", ws), "ENV=secret\n");
	mover = fork();
	IT_EXPECT(mover >= 0);
	if (mover == 0) {
		const char *a = fmt("%s/a", ws), *b = fmt("%s/b", ws);

		for (;;) {
			if (rename(a, b) < 0 || rename(b, a) < 0)
				_exit(1);
		}
	}
	for (int i = 0; i < 24; i++) {
		it_run_in(&r,
		          (const char *const[]){"--backend", backends[i % 2], "-v", ws, "--hide",
		                                fmt("%s/**/.env", ws), NULL},
		          (const char *const[]){"/bin/sh", "-c",
		                                "cat a/.env b/.env 2>/dev/null; echo end", NULL});
		shown += strstr(r.out, "secret") != NULL;
		IT_EXPECT(r.status == 0 || r.status == 125);
	}
	kill(mover, SIGKILL);
	waitpid(mover, NULL, 0);
	IT_EXPECT_INT(shown, 0);
}

/* A mount source that is a symbolic link (claude-agent's optional .claude and .mcp.json, a
 * -v of a planted link): refused under both backends, never followed to what it names. */
static void test_mount_source_links(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};
	const char *sec = fmt("%s/elsewhere", it_tmpdir());
	struct it_run r;

	setup();
	it_write_file(fmt("%s/id", sec), "ID=secret\n");
	IT_EXPECT_INT(symlink(sec, fmt("%s/.claude", ws)), 0);
	IT_EXPECT_INT(symlink(fmt("%s/id", sec), fmt("%s/.mcp.json", ws)), 0);
	IT_EXPECT_INT(symlink(sec, fmt("%s/outl", ws)), 0);
	for (size_t b = 0; b < 2; b++) {
		const char *be = backends[b];

		it_run_in(
		    &r, (const char *const[]){"--backend", be, "--profile", "claude-agent", NULL},
		    (const char *const[]){"/bin/sh", "-c",
		                          fmt("cat .mcp.json .claude/id %s/id; echo done", sec),
		                          NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		IT_EXPECT_CONTAINS(r.err, "passes through a symlink");
		it_run_in(&r,
		          (const char *const[]){"--backend", be, "-v", fmt("%s/outl", ws), NULL},
		          (const char *const[]){"/bin/sh", "-c",
		                                fmt("echo hi >%s/outl/planted", ws), NULL});
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT(access(fmt("%s/planted", sec), F_OK) != 0);
	}
}

/* ---- the landlock backend reaches no further than the worker's files (issue 11) ---- */

#define MARK 1234 /* --seccomp-errno: a denial only the filter can have made */

static void say(const char *what, long r)
{
	if (r >= 0)
		printf("%s => ok\n", what);
	else if (errno == MARK)
		printf("%s => MARK\n", what);
	else
		printf("%s => %s\n", what, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
}

static long send_pair(int domain_type, const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int sv[2];
	long r;

	if (socketpair(AF_UNIX, domain_type, 0, sv) < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	r = sendto(sv[0], "x", 1, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(a));
	close(sv[0]);
	close(sv[1]);
	return r;
}

/* In the sandbox: PID is a host process of the same uid, KEY a System V IPC key the host
 * made, SOCK a host datagram socket bound to a path. Each attempt prints its answer. */
static int reach_probe(pid_t pid, key_t key, const char *sock)
{
	struct rlimit zero = {0, 0}, own;
	struct sched_param sp = {0};
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t prio;
		uint64_t runtime, deadline, period;
	} attr = {.size = 48, .policy = SCHED_IDLE};
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	say("prlimit_other", prlimit(pid, RLIMIT_NOFILE, &zero, NULL));
	say("setpriority_other", setpriority(PRIO_PROCESS, (id_t)pid, 19));
	say("sched_setscheduler_other", sched_setscheduler(pid, SCHED_IDLE, &sp));
	say("sched_setparam_other", sched_setparam(pid, &sp));
	say("sched_setattr_other", syscall(SYS_sched_setattr, pid, &attr, 0));
	say("sched_setaffinity_other", sched_setaffinity(pid, sizeof(cpus), &cpus));
	say("ioprio_set_other", syscall(SYS_ioprio_set, 1 /* PROCESS */, pid, 3 << 13 /* IDLE */));
	/* every process of the uid, with a priority the kernel refuses (EINVAL) anyway */
	say("ioprio_set_user", syscall(SYS_ioprio_set, 3 /* USER */, 0, 7 << 13));
	/* the worker's own limits and priority still work */
	say("getrlimit_own", getrlimit(RLIMIT_NOFILE, &own));
	own.rlim_cur = own.rlim_cur > 64 ? 64 : own.rlim_cur;
	say("setrlimit_own", setrlimit(RLIMIT_NOFILE, &own));
	errno = 0;
	say("nice_own", nice(1) == -1 && errno ? -1 : 0);
	say("sched_setaffinity_own", sched_setaffinity(0, sizeof(cpus), &cpus));
	/* System V IPC of the host */
	say("shmget", shmget(key, 0, 0));
	say("msgget", msgget(key, 0));
	/* datagrams to a host socket bound to a path */
	say("socketpair_dgram", send_pair(SOCK_DGRAM | SOCK_CLOEXEC, sock));
	say("socketpair_raw", send_pair(SOCK_RAW, sock));
	say("socketpair_stream", send_pair(SOCK_STREAM, sock));
	say("socketpair_seqpacket", send_pair(SOCK_SEQPACKET, sock));
	return 0;
}

struct host_state {
	struct rlimit nofile;
	int nice, policy;
};

static void host_state(pid_t pid, struct host_state *s)
{
	IT_EXPECT(prlimit(pid, RLIMIT_NOFILE, NULL, &s->nofile) == 0);
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, (id_t)pid);
	IT_EXPECT(errno == 0);
	s->policy = sched_getscheduler(pid);
	IT_EXPECT(s->policy >= 0);
}

static void expect_line(const char *out, const char *what, const char *answer)
{
	char line[128];

	snprintf(line, sizeof(line), "%s => %s\n", what, answer);
	IT_EXPECT_CONTAINS(out, line);
}

static void test_landlock_backend_reaches_no_host_process_ipc_or_socket(void)
{
	const char *dir = it_tmpdir(), *sock = it_path(dir, "dg.sock");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct host_state before, after;
	key_t key = (key_t)(0x5b000000 | (getpid() & 0xffffff));
	int pipefd[2], shm, msq, s;
	char pidarg[32], keyarg[32], buf[8];
	struct it_run *r = calloc(1, sizeof(*r));
	pid_t child;

	IT_EXPECT(r != NULL && pipe(pipefd) == 0);
	/* a host process of the same uid, outside any sandbox: it waits for its pipe */
	child = fork();
	IT_EXPECT(child >= 0);
	if (child == 0) {
		close(pipefd[1]);
		_exit(read(pipefd[0], buf, 1) < 0);
	}
	close(pipefd[0]);
	shm = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	msq = msgget(key, IPC_CREAT | IPC_EXCL | 0600);
	IT_EXPECT(shm >= 0 && msq >= 0);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	IT_EXPECT(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0);
	host_state(child, &before);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)child);
	snprintf(keyarg, sizeof(keyarg), "%d", (int)key);

	it_run_in(r,
	          (const char *const[]){"--backend", "landlock", "--seccomp-errno", "1234", NULL},
	          (const char *const[]){it_self(), "--reach-probe", pidarg, keyarg, sock, NULL});
	printf("%s", r->out);
	host_state(child, &after);
	/* the host side first: nothing changed, nothing arrived */
	IT_EXPECT_INT(after.nofile.rlim_cur, before.nofile.rlim_cur);
	IT_EXPECT_INT(after.nofile.rlim_max, before.nofile.rlim_max);
	IT_EXPECT_INT(after.nice, before.nice);
	IT_EXPECT_INT(after.policy, before.policy);
	IT_EXPECT(recv(s, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EAGAIN);
	IT_EXPECT_INT(r->status, 0);
	for (const char *const *w =
	         (const char *const[]){"prlimit_other", "setpriority_other",
	                               "sched_setscheduler_other", "sched_setparam_other",
	                               "sched_setattr_other", "sched_setaffinity_other",
	                               "ioprio_set_other", "ioprio_set_user", "shmget", "msgget",
	                               "socketpair_dgram", "socketpair_raw", NULL};
	     *w; w++)
		expect_line(r->out, *w, "MARK");
	for (const char *const *w =
	         (const char *const[]){"getrlimit_own", "setrlimit_own", "nice_own",
	                               "sched_setaffinity_own", "socketpair_seqpacket", NULL};
	     *w; w++)
		expect_line(r->out, *w, "ok");
	/* a stream pair refuses an address (the kernel's EISCONN) */
	expect_line(r->out, "socketpair_stream", "EISCONN");

	/* a profile that asks for System V IPC gets it; the rest stays */
	it_run_in(r,
	          (const char *const[]){"--backend", "landlock", "--seccomp-errno", "1234",
	                                "--seccomp-allow", "@sysvipc", NULL},
	          (const char *const[]){it_self(), "--reach-probe", pidarg, keyarg, sock, NULL});
	expect_line(r->out, "shmget", "ok");
	expect_line(r->out, "prlimit_other", "MARK");
	/* the namespaces backend: an IPC namespace of its own, the host's pids out of sight */
	it_run_in(r, (const char *const[]){"--seccomp-errno", "1234", NULL},
	          (const char *const[]){it_self(), "--reach-probe", pidarg, keyarg, sock, NULL});
	expect_line(r->out, "shmget", "ENOENT");
	expect_line(r->out, "msgget", "ENOENT");
	host_state(child, &after);
	IT_EXPECT_INT(after.nofile.rlim_cur, before.nofile.rlim_cur);
	IT_EXPECT_INT(after.nice, before.nice);

	/* --dry-run says so, in text and JSON */
	it_sbxv(r, "run", "--backend", "landlock", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r->out, "@sysvipc         denied");
	IT_EXPECT_CONTAINS(r->out, "other processes  denied");
	IT_EXPECT_CONTAINS(r->out, "prlimit64[pid is not 0]");
	IT_EXPECT_CONTAINS(r->out, "socketpair[SOCK_DGRAM|SOCK_RAW]");
	it_sbxv(r, "run", "--backend", "landlock", "--dry-run", "--json", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r->out, "{\"name\":\"@sysvipc\",\"state\":\"denied\"");
	IT_EXPECT_CONTAINS(r->out, "{\"name\":\"other processes\",\"rules\":[");
	it_sbxv(r, "run", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r->out, "@sysvipc         allowed (own namespace)");
	IT_EXPECT_NOT_CONTAINS(r->out, "other processes");

	shmctl(shm, IPC_RMID, NULL);
	msgctl(msq, IPC_RMID, NULL);
	close(pipefd[1]);
	IT_EXPECT_INT(waitpid(child, NULL, 0), child);
}

/* As root the landlock backend's worker is host uid 0, the owner of every root-owned file of
 * the machine, and Landlock has no right for modes or owners: chmod and chown are denied
 * there, by path and by fd, even on a file outside every grant. An ordinary user keeps them
 * in the workspace (the rule is root's). */
static void test_landlock_backend_root_changes_no_mode_or_owner(void)
{
	const char *dir = it_tmpdir();
	char *outside = it_path(dir, "outside/key"), *wsdir = it_path(dir, "wsdir");
	char script[8400];
	struct stat st;
	struct it_run r;

	it_write_file(outside, "secret\n");
	IT_EXPECT(chmod(outside, 0600) == 0);
	it_write_file(it_path(wsdir, "tool"), "#!/bin/sh\n");
	snprintf(script, sizeof(script),
	         "chmod 0666 %s 2>/dev/null; echo outside=$?; chown 0:1 %s 2>/dev/null; "
	         "echo chown=$?; chmod +x tool 2>/dev/null; echo wsdir=$?; exec 3<tool; "
	         "python3 -c 'import os\ntry:\n os.fchmod(3, 0o755); print(\"fchmod=0\")\n"
	         "except OSError as e: print(\"fchmod=\" + str(e.errno))'",
	         outside, outside);
	it_sh(&r, script, "--backend", "landlock", "-v", wsdir, "--chdir", wsdir, NULL);
	IT_EXPECT_INT(r.status, 0);
	if (it_is_root()) {
		IT_EXPECT_CONTAINS(r.out, "outside=1\nchown=1\nwsdir=1\nfchmod=1\n");
		IT_EXPECT(stat(outside, &st) == 0);
		IT_EXPECT_INT(st.st_mode & 07777, 0600);
		IT_EXPECT_INT(st.st_gid, 0);
	} else {
		IT_EXPECT_CONTAINS(r.out, "wsdir=0\nfchmod=0\n");
	}
	it_sbxv(&r, "run", "--backend", "landlock", "-v", wsdir, "--dry-run", "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	if (it_is_root())
		IT_EXPECT_CONTAINS(r.out, "root's files     denied (locked)   chmod chown fchmod");
	else
		IT_EXPECT_NOT_CONTAINS(r.out, "root's files");
}

/*
 * Outside attack B, under the landlock backend: log mode keeps the rules that stand in for
 * the namespaces this backend lacks (a unix socket, System V and POSIX IPC, other processes);
 * POSIX message queues are denied (mq_open made a host queue even while answering EACCES);
 * @keyring cannot be allowed (the caller's user keyring is the worker's too); as root,
 * removing an extended attribute (a POSIX ACL) of a host file is denied.
 */
static void test_landlock_backend_ipc_keyring_and_log_mode(void)
{
	const char *dir = it_tmpdir();
	char *f = it_path(dir, "acl-file"), *script;
	struct it_run r;

	it_write_file(f, "x\n");
	if (asprintf(
	        &script,
	        "import ctypes, os, socket\n"
	        "libc = ctypes.CDLL(None, use_errno=True)\n"
	        "def res(ok):\n"
	        "    return 'ok' if ok else os.strerror(ctypes.get_errno())\n"
	        "try:\n"
	        "    socket.socket(socket.AF_UNIX); print('unix ok')\n"
	        "except OSError as e: print('unix', e.errno)\n"
	        "print('mq_open', res(libc.mq_open(b'/sbx-it-q', os.O_CREAT | os.O_RDWR, 0o600, "
	        "None) >= 0))\n"
	        "print('msgget', res(libc.msgget(0, 0o1600) >= 0))\n"
	        "print('keyctl', res(libc.syscall(250, 0, -4, 0) >= 0))\n"
	        "try:\n"
	        "    os.removexattr('%s', 'user.x'); print('removexattr ok')\n"
	        "except OSError as e: print('removexattr', e.errno)\n",
	        f) < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	{
		const char *opts[] = {"--backend",       "landlock", "--seccomp-log",
		                      "--seccomp-errno", "1234",     NULL};
		const char *cmd[] = {"/usr/bin/python3", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "unix 1234\n");
	IT_EXPECT_CONTAINS(r.out, "mq_open Unknown error 1234\n");
	IT_EXPECT_CONTAINS(r.out, "msgget Unknown error 1234\n");
	/* the caller's user keyring (KEYCTL_GET_KEYRING_ID of KEY_SPEC_USER_KEYRING): log mode
	 * keeps @keyring denied too */
	IT_EXPECT_CONTAINS(r.out, "keyctl Unknown error 1234\n");
	/* root owns the host's files there: removing an attribute is denied (it would take a
	 * POSIX ACL away); a user's own file outside the writable mounts is refused by the
	 * supervisor (EACCES), as chmod is */
	IT_EXPECT_CONTAINS(r.out, it_is_root() ? "removexattr 1234\n" : "removexattr 13\n");
	/* no queue was left on the host: removing it finds nothing (the raw call takes the
	 * name without its slash) */
	errno = 0;
	IT_EXPECT(syscall(SYS_mq_unlink, "sbx-it-q") < 0 && errno == ENOENT);
	it_sbxv(&r, "run", "--backend", "landlock", "--seccomp-allow", "@keyring", "--",
	        "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "cannot allow '@keyring' under the landlock backend");
	it_sbxv(&r, "run", "--backend", "landlock", "--seccomp-allow", "keyctl", "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r.status, 125);
	/* the dry run says what that backend does: no loopback, nothing mounted */
	it_sbxv(&r, "run", "--backend", "landlock", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "network:    none (no loopback either");
	IT_EXPECT_CONTAINS(r.out, "operations (none run: the landlock backend mounts nothing");
	/* the namespaces backend keeps its own keyrings: allowed there */
	it_sbxv(&r, "run", "--seccomp-allow", "@keyring", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_create_allowed_delete_denied),
	    IT_CASE(test_write_allowed_execute_denied),
	    IT_CASE(test_dry_run_lists_rules),
	    IT_CASE(test_signals_scoped),
	    IT_CASE(test_differential_namespaces),
	    IT_CASE(test_differential_landlock),
	    IT_CASE(test_auto_picks_landlock_without_user_namespaces),
	    IT_CASE(test_landlock_backend_refusals),
	    IT_CASE(test_landlock_backend_per_operation),
	    IT_CASE(test_landlock_backend_nested_readonly),
	    IT_CASE(test_landlock_backend_unix_sockets),
	    IT_CASE(test_landlock_backend_identity),
	    IT_CASE(test_landlock_backend_shipped_profiles),
	    IT_CASE(test_doctor),
	    IT_CASE(test_hide_globs),
	    IT_CASE(test_hide_glob_profile),
	    IT_CASE(test_hide_and_links),
	    IT_CASE(test_mount_source_links),
	    IT_CASE(test_hide_folders_kept),
	    IT_CASE(test_hide_concurrent_mover),
	    IT_CASE(test_landlock_backend_reaches_no_host_process_ipc_or_socket),
	    IT_CASE(test_landlock_backend_root_changes_no_mode_or_owner),
	    IT_CASE(test_landlock_backend_ipc_keyring_and_log_mode),
	};

	if (argc == 5 && strcmp(argv[1], "--reach-probe") == 0)
		return reach_probe((pid_t)atoi(argv[2]), (key_t)atoi(argv[3]), argv[4]);

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
