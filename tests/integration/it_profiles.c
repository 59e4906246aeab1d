/* SPDX-License-Identifier: MIT */
/*
 * Profiles as people use them: `sbx profiles validate|list|show`, `sbx check`, `sbx resolve`,
 * `sbx run --profile X --dry-run` on every shipped profile, bad profiles that run nothing,
 * and real runs of every shipped profile (the real Claude Code agent too, when installed).
 *
 * Every case gets a workspace and a fake home in its own directory, and finds the shipped
 * profiles through SBX_PROFILE_PATH (the binary under test may be a copy outside the build).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static const char *const shipped[] = {"claude-agent", "restricted-agent", "code-reviewer", "ci-job",
                                      "no-secrets"};

static char ws[4096], home[4096];

static const char *src_dir(void)
{
	const char *s = getenv("SBX_SOURCE_DIR");

	if (!s || !*s)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	return s;
}

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, f);
	n = vasprintf(&p, f, ap);
	va_end(ap);
	if (n < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

/* A workspace with a git repository's hooks and config and a secret, and a home with an
 * agent's configuration and session state. */
static const char *ws_name = "ws"; /* the workspace's folder name under the case's tmpdir */

static void setup(void)
{
	const char *t = it_tmpdir();

	snprintf(ws, sizeof(ws), "%s/%s", t, ws_name);
	snprintf(home, sizeof(home), "%s/home", t);
	it_write_file(it_path(ws, "file.txt"), "hello\n");
	it_write_file(it_path(ws, ".env"), "API_KEY=secret-value\n");
	it_write_file(it_path(ws, ".git/hooks/README"), "hooks\n");
	it_write_file(it_path(ws, ".git/config"), "[core]\n");
	it_write_file(it_path(home, ".claude/settings.json"), "{\"model\": \"x\"}\n");
	it_write_file(it_path(home, ".claude/CLAUDE.md"), "be careful\n");
	it_write_file(it_path(home, ".claude/projects/old.jsonl"), "{}\n");
	it_write_file(it_path(home, ".claude.json"), "{\"firstStartTime\": \"x\"}\n");
	it_write_file(it_path(home, ".ssh/id_rsa"), "PRIVATE\n");
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	setenv("SBX_PROFILE_PATH", fmt("%s/profiles", src_dir()), 1);
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Real runs need a working launcher: a failure here is a failure, never a skip. */
static void need_launcher(void)
{
	struct it_run r;

	it_sbxv(&r, "run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
}

static void test_validate_shipped(void)
{
	struct it_run r;

	setup();
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		char *file = fmt("%s/profiles/", src_dir());
		char *full;

		if (asprintf(&full, "%s%s.yaml", file, shipped[i]) < 0)
			it_fail(__FILE__, __LINE__, "out of memory");
		it_sbxv(&r, "profiles", "validate", full, NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("%s: ok", full));
	}
}

/* A bad profile: exit 125, FILE:LINE:COL: message, the source line and a caret. */
static void test_validate_bad(void)
{
	static const struct {
		const char *fixture, *at, *source, *caret;
	} cases[] = {
	    {"unknown-key", "unknown-key.yaml:4:5: unknown key 'redonly' in a mount",
	     "\n    redonly: true\n", "\n    ^\n"},
	    {"tab", "tab.yaml:4:1: a tab character", "\n\\x09readonly: true\n", "\n^\n"},
	    {"alias-bomb",
	     "alias-bomb.yaml:2:4: YAML anchors ('&') and aliases ('*') are not allowed",
	     "\na: &a [x", "\n   ^\n"},
	    {"unsupported-version", "unsupported-version.yaml:1:10: unsupported version '2'",
	     "\nversion: 2\n", "\n         ^\n"},
	    {"cycle-a", "cycle-b.yaml:2:10: 'extends' makes a cycle:", "\nextends: cycle-a\n",
	     "\n         ^\n"},
	    {"stat-alone",
	     "no-stat.yaml:3:5: policy 'no-stat' on /srv cannot be enforced by the kernel",
	     "\n  - name: no-stat\n", "\n    ^\n"},
	    /* the line is echoed escaped: no byte of ill-formed UTF-8 reaches the terminal, and
	     * the caret stands under the escaped byte */
	    {"invalid-utf8", "invalid-utf8.yaml:2:17: invalid UTF-8",
	     "\ndescription: caf\\xc3 au lait\n", "\n                ^\n"},
	    {"empty", "empty.yaml:1:1: the file is empty", "", ""},
	};
	struct it_run r;

	setup();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *file;

		if (asprintf(&file, "%s/tests/fixtures/profiles/bad/%s.yaml", src_dir(),
		             cases[i].fixture) < 0)
			it_fail(__FILE__, __LINE__, "out of memory");
		it_sbxv(&r, "profiles", "validate", file, NULL);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, cases[i].at);
		IT_EXPECT_CONTAINS(r.err, cases[i].source);
		IT_EXPECT_CONTAINS(r.err, cases[i].caret);
		IT_EXPECT_NOT_CONTAINS(r.out, ": ok");
	}
	/* one bad file among good ones still fails the whole command */
	it_sbxv(&r, "profiles", "validate", fmt("%s/profiles/ci-job.yaml", src_dir()),
	        fmt("%s/tests/fixtures/profiles/bad/tab.yaml", src_dir()), NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.out, "ci-job.yaml: ok");
}

/* The seed's examples. */
static void test_check_seed_examples(void)
{
	struct it_run r;
	char *settings;

	setup();
	settings = it_path(home, ".claude/settings.json");
	it_sbxv(&r, "check", "--profile", "claude-agent", "write", settings, NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out,
	                   fmt("deny  write   %s  policy config-readonly/deny-write", settings));
	IT_EXPECT_CONTAINS(r.out, fmt("(profile mount %s/.claude)", home));

	it_sbxv(&r, "check", "--profile", "claude-agent", "read", it_path(ws, "file.txt"), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "allow read");
	IT_EXPECT_CONTAINS(r.out, "policy workspace-rw/allow-all");

	/* /etc/passwd: a system mount covers it, and check says which */
	it_sbxv(&r, "check", "--profile", "claude-agent", "read,write", "/etc/passwd", NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "allow read    /etc/passwd  system mount /etc/passwd");
	IT_EXPECT_CONTAINS(r.out, "deny  write   /etc/passwd  readonly: system mount /etc/passwd");
	/* ... and with the system mounts off, it is unmounted */
	it_write_file(it_path(ws, "nosys.yaml"), "version: 1\nsystem_mounts: none\nmounts:\n"
	                                         "  - path: ${WORKSPACE}\n");
	it_sbxv(&r, "check", "--profile", it_path(ws, "nosys.yaml"), "read", "/etc/passwd", NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out,
	                   "deny  read    /etc/passwd  unmounted: no mount covers /etc/passwd");

	it_sbxv(&r, "check", "--profile", "ci-job", "read", "/etc/shadow", NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "unmounted");
	/* ci-job's $HOME is a private tmpfs: what is there is the job's own, none of the host */
	it_sbxv(&r, "check", "--profile", "ci-job", "read,write", it_path(home, ".ssh/id_rsa"),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("  home %s\n", home));

	it_sbxv(&r, "check", "--profile", "code-reviewer", "read,write", it_path(ws, "file.txt"),
	        NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "allow read");
	IT_EXPECT_CONTAINS(r.out, "deny  write");
	IT_EXPECT_CONTAINS(r.out, fmt("readonly: profile mount %s is read-only", ws));

	it_sbxv(&r, "check", "--profile", "claude-agent", "write",
	        it_path(home, ".claude/projects/new.jsonl"), NULL);
	IT_EXPECT_INT(r.status, 0);

	it_sbxv(&r, "check", "--profile", "claude-agent", "fly", "/x", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "unknown operation 'fly'");
	it_sbxv(&r, "check", "--profile", "no-such-profile", "read", "/x", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "profile 'no-such-profile' not found");
}

static void test_resolve(void)
{
	struct it_run r;

	setup();
	it_sbxv(&r, "resolve", "--profile", "ci-job", it_path(ws, "file.txt"), "/etc/passwd",
	        "/etc/shadow", it_path(home, ".ssh/id_rsa"), NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, fmt("%s/file.txt -> ", ws));
	IT_EXPECT_CONTAINS(r.out, "/etc/passwd -> /etc/passwd  (system /etc/passwd, read-only)");
	IT_EXPECT_CONTAINS(r.out, "/etc/shadow: /etc/shadow is not in the sandbox");
	/* ci-job's home is a private tmpfs: no host path behind it */
	IT_EXPECT_CONTAINS(r.out, "lies in a tmpfs made by sbx");

	/* restricted-agent hides .env (at any depth): it resolves to a mask, not to the secret */
	it_sbxv(&r, "resolve", "--profile", "restricted-agent", it_path(ws, ".env"),
	        it_path(ws, "sub/.env"), NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.env: hidden by the glob %s/**/.env (a mask made by sbx "
	                              "at launch)",
	                              ws, ws));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/sub/.env: hidden by the glob", ws));
	it_sbxv(&r, "resolve", "--profile", "restricted-agent", "--workspace", ws,
	        it_path(ws, ".env"), NULL);
	IT_EXPECT_NOT_CONTAINS(r.out, "->");
	it_sbxv(&r, "resolve", it_path(ws, "file.txt"), NULL); /* the default profile */
	IT_EXPECT_INT(r.status, 0);
}

static void test_dry_run_every_shipped_profile(void)
{
	struct it_run r;

	setup();
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		it_sbxv(&r, "run", "--profile", shipped[i], "--dry-run", "--", "/bin/true", NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("profile:    %s\n", shipped[i]));
		IT_EXPECT_CONTAINS(r.out, "SBX_PROFILE=");
		it_sbxv(&r, "run", "-p", shipped[i], "--dry-run", "--json", "--", "/bin/true",
		        NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("{\"profile\":\"%s\"", shipped[i]));
	}
	/* what the policies compile to is visible in the plan */
	it_sbxv(&r, "run", "-p", "restricted-agent", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r.out, fmt("mask                     %s/.env  (hide)", ws));
	it_sbxv(&r, "run", "-p", "claude-agent", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r.out, fmt("/.claude <- %s/.claude  (profile)", home));
	IT_EXPECT_CONTAINS(r.out, "ro,");
}

/* A bad or unenforceable profile runs nothing, with or without --dry-run. */
static void test_refusals_run_nothing(void)
{
	static const char *const fixtures[] = {"stat-alone", "unknown-key", "alias-bomb",
	                                       "not-supported"};
	struct it_run r;

	setup();
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char *file;

		if (asprintf(&file, "%s/tests/fixtures/profiles/bad/%s.yaml", src_dir(),
		             fixtures[i]) < 0)
			it_fail(__FILE__, __LINE__, "out of memory");
		it_sbxv(&r, "run", "--profile", file, "--", "/bin/sh", "-c",
		        fmt("touch %s/ran", ws), NULL);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT(!exists(it_path(ws, "ran")));
		it_sbxv(&r, "run", "--profile", file, "--dry-run", "--", "/bin/true", NULL);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_INT(strlen(r.out), 0);
	}
	it_sbxv(&r, "run", "--profile",
	        fmt("%s/tests/fixtures/profiles/bad/stat-alone.yaml", src_dir()), "--", "/bin/true",
	        NULL);
	IT_EXPECT_CONTAINS(r.err, "Landlock cannot deny stat(2) apart from everything else");
	it_sbxv(&r, "run", "-p", "a", "-p", "b", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "--profile is given twice");
}

/* With a profile, flags add to it, and a flag naming one of its targets replaces it. */
static void test_flags_with_a_profile(void)
{
	struct it_run r;

	setup();
	{
		char vol[8300];

		snprintf(vol, sizeof(vol), "%s:%s:ro", ws, ws);
		it_sbxv(&r, "run", "-p", "restricted-agent", "-v", vol, "--dry-run", "--",
		        "/bin/true", NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("%s <- %s  (flag)", ws, ws));
		IT_EXPECT(strstr(r.out, fmt("  bind      ro,idmap       %s <-", ws)) ||
		          strstr(r.out, fmt("  bind      ro             %s <-", ws)));
		IT_EXPECT_CONTAINS(r.out, "(flag)");
		/* the other profile mounts stay */
		IT_EXPECT_CONTAINS(r.out, "/.git/hooks");
	}
	/* a flag adds a mount the profile does not have */
	it_sbxv(&r, "run", "-p", "ci-job", "-v", fmt("%s/.ssh", home), "--dry-run", "--",
	        "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.ssh <- ", home));
	/* the workspace given after -p still sets ${WORKSPACE} */
	it_write_file(it_path(home, "other/f"), "f\n");
	it_sbxv(&r, "run", "-p", "ci-job", "--workspace", it_path(home, "other"), "--dry-run", "--",
	        "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("cwd:        %s/other\n", home));
	/* ci-job's home is an empty tmpfs at $HOME; a workspace that is $HOME itself is what
	 * the caller named: shown as the workspace, no tmpfs over it */
	it_sbxv(&r, "run", "-p", "ci-job", "--workspace", home, "--dry-run", "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(!strstr(r.out, fmt(" %s  (home (a private tmpfs))", home)));
	it_sbxv(&r, "run", "-p", "ci-job", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt(" %s  (home (a private tmpfs))", home));
	IT_EXPECT(!strstr(r.out, ".gitconfig")); /* home: empty */
}

static void test_profiles_list_and_show(void)
{
	struct it_run r;

	setup();
	it_sbxv(&r, "profiles", "list", NULL);
	IT_EXPECT_INT(r.status, 0);
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++)
		IT_EXPECT_CONTAINS(r.out, fmt("  %s ", shipped[i]));
	IT_EXPECT_CONTAINS(r.out, "Claude Code on the workspace");
	it_sbxv(&r, "profiles", "show", "claude-agent", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("  - source: \"%s/.claude\"", home));
	IT_EXPECT_CONTAINS(r.out, "    policy: \"config-readonly\"");
	IT_EXPECT_CONTAINS(r.out, fmt("#   config-readonly on %s/.claude: allows", home));
	IT_EXPECT_CONTAINS(r.out, "a read-only mount");
	it_sbxv(&r, "profiles", "show", "nope", NULL);
	IT_EXPECT_INT(r.status, 125);
}

/* ---- real runs ---- */

static void test_run_code_reviewer(void)
{
	struct it_run r;

	setup();
	need_launcher();
	it_sbxv(&r, "run", "-p", "code-reviewer", "--", "/bin/sh", "-c",
	        fmt("cat %s/file.txt; touch new 2>/dev/null && echo WROTE || echo DENIED; "
	            "echo tmp > /tmp/t && cat /tmp/t; ls ~/.ssh 2>/dev/null || echo NOHOME",
	            ws),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "hello\nDENIED\ntmp\nNOHOME\n");
	IT_EXPECT(!exists(it_path(ws, "new")));
}

static void test_run_restricted_agent(void)
{
	const char *probe[] = {"@probe", "--probe",
	                       "read",   ".env",
	                       "write",  ".env",
	                       "write",  ".git/hooks/pre-commit",
	                       "create", ".git/hooks/post-checkout",
	                       "write",  ".git/config",
	                       "create", "out.txt",
	                       NULL};
	const char *opts[] = {"-p", "restricted-agent", NULL};
	struct it_run r;

	setup();
	need_launcher();
	it_write_file(it_path(ws, ".git/hooks/pre-commit"), "#!/bin/sh\n");
	it_run_in(&r, opts, probe);
	IT_EXPECT_INT(r.status, 0);
	/* the secret cannot be opened at all; git's hooks and config are read-only mounts */
	IT_EXPECT_PROBE(r.out, "read", ".env", "EACCES");
	IT_EXPECT_PROBE(r.out, "write", ".env", "EACCES");
	IT_EXPECT_PROBE(r.out, "write", ".git/hooks/pre-commit", "EROFS");
	IT_EXPECT_PROBE(r.out, "create", ".git/hooks/post-checkout", "EROFS");
	IT_EXPECT_PROBE(r.out, "write", ".git/config", "EROFS");
	IT_EXPECT_PROBE(r.out, "create", "out.txt", "ok");
	IT_EXPECT(!exists(it_path(ws, ".git/hooks/post-checkout")));
	IT_EXPECT_CONTAINS(slurp(it_path(ws, ".env")), "secret-value");
	IT_EXPECT_CONTAINS(slurp(it_path(ws, ".git/config")), "[core]\n");
	it_sbxv(&r, "run", "-p", "restricted-agent", "--", "/bin/sh", "-c",
	        "ls ~/.ssh 2>/dev/null || echo NOHOME", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "NOHOME\n");
}

static void test_run_ci_job(void)
{
	struct it_run r;

	setup();
	need_launcher();
	it_sbxv(&r, "run", "-p", "ci-job", "--", "/bin/sh", "-c",
	        "echo \"home:[$(ls -A ~)]\"; mkdir -p ~/.cache/x && echo cached; echo $CI; "
	        "echo built > out.txt && cat out.txt; cat /sys/class/net/*/address 2>/dev/null | "
	        "wc -l",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "home:[]\ncached\ntrue\nbuilt\n");
	IT_EXPECT_CONTAINS(slurp(it_path(ws, "out.txt")), "built");
	IT_EXPECT(!exists(it_path(home, ".cache/x"))); /* the home it wrote was private */
}

static void test_run_claude_agent(void)
{
	char before_settings[4096], before_json[4096];
	char *settings, *json, *hooks, *state;
	const char *opts[] = {"-p", "claude-agent", NULL};
	struct it_run r;

	setup();
	need_launcher();
	settings = it_path(home, ".claude/settings.json");
	json = it_path(home, ".claude.json");
	hooks = it_path(home, ".claude/hooks");
	state = it_path(home, ".claude/projects/t.jsonl");
	snprintf(before_settings, sizeof(before_settings), "%s", slurp(settings));
	snprintf(before_json, sizeof(before_json), "%s", slurp(json));
	{
		const char *probe[] = {
		    "@probe", "--probe", "write",  settings,   "write",
		    json,     "mkdir",   hooks,    "create",   ".git/hooks/pre-commit",
		    "create", state,     "create", "work.txt", NULL};

		it_run_in(&r, opts, probe);
	}
	IT_EXPECT_INT(r.status, 0);
	/* the agent's own settings, its hooks folder and git's hooks are read-only mounts */
	IT_EXPECT_PROBE(r.out, "write", settings, "EROFS");
	IT_EXPECT_PROBE(r.out, "write", json, "EROFS");
	IT_EXPECT_PROBE(r.out, "mkdir", hooks, "EROFS");
	IT_EXPECT_PROBE(r.out, "create", ".git/hooks/pre-commit", "EROFS");
	/* its session state and the workspace are writable */
	IT_EXPECT_PROBE(r.out, "create", state, "ok");
	IT_EXPECT_PROBE(r.out, "create", "work.txt", "ok");
	IT_EXPECT_CONTAINS(slurp(settings), before_settings);
	IT_EXPECT_CONTAINS(slurp(json), before_json);
	IT_EXPECT(exists(state));
	IT_EXPECT(!exists(hooks));
	it_sbxv(&r, "run", "-p", "claude-agent", "--", "/bin/sh", "-c",
	        "cat ~/.claude/CLAUDE.md; ls ~/.ssh 2>/dev/null || echo NOSSH", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "be careful\nNOSSH\n");
}

/* claude-agent in a project without .claude/ or .mcp.json (attack A): a mount cannot make
 * read-only what does not exist, so the supervisor refuses their creation (a SessionStart
 * hook in .claude/settings.json would run at the user's next session, outside any sandbox),
 * and says so. Where they exist, they are read-only. */
static void test_claude_agent_absent_settings_named(void)
{
	struct it_run r;

	setup();
	need_launcher();
	IT_EXPECT(rmdir(it_path(ws, ".claude")) == 0 || errno == ENOENT);
	it_sbxv(&r, "run", "-p", "claude-agent", "--", "/bin/sh", "-c",
	        "mkdir .claude; echo '{}' > .mcp.json; mkdir ok && echo MADE", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "MADE");
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: supervisor: denied create %s/.claude (mkdir", ws));
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: supervisor: denied create %s/.mcp.json (open", ws));
	IT_EXPECT_NOT_CONTAINS(r.err, "appeared during the run");
	IT_EXPECT(!exists(it_path(ws, ".claude")));
	IT_EXPECT(!exists(it_path(ws, ".mcp.json")));
	/* made outside the sandbox, as the refusal says */
	IT_EXPECT_INT(mkdir(it_path(ws, ".claude"), 0755), 0);
	it_write_file(it_path(ws, ".claude/settings.json"), "{}");
	it_write_file(it_path(ws, ".mcp.json"), "{}");
	/* now they exist: the next launch makes them read-only */
	{
		const char *opts[] = {"-p", "claude-agent", NULL};
		const char *probe[] = {"@probe", "--probe",   "write", ".claude/settings.json",
		                       "write",  ".mcp.json", NULL};

		it_run_in(&r, opts, probe);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "write", ".claude/settings.json", "EROFS");
	IT_EXPECT_PROBE(r.out, "write", ".mcp.json", "EROFS");
	IT_EXPECT_NOT_CONTAINS(r.err, "appeared during the run");
}

/* A policy that denies execute over a whole mount compiles to a noexec mount. */
static void test_run_policy_noexec(void)
{
	struct it_run r;

	setup();
	need_launcher();
	it_write_file(
	    it_path(ws, "policies/no-exec.yaml"),
	    "version: 1\nrules:\n  - {name: rw, paths: [\"**\"], operations: [read, list, "
	    "stat, write, create, delete], decision: allow}\n");
	it_write_file(it_path(ws, "p.yaml"), "version: 1\nmounts:\n  - path: ${WORKSPACE}\n"
	                                     "    policy: no-exec\n");
	it_write_file(it_path(ws, "run.sh"), "#!/bin/sh\necho RAN\n");
	chmod(it_path(ws, "run.sh"), 0755);
	it_sbxv(&r, "check", "--profile", it_path(ws, "p.yaml"), "execute", it_path(ws, "run.sh"),
	        NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "policy no-exec/no rule allows execute");
	it_sbxv(&r, "run", "--profile", it_path(ws, "p.yaml"), "--", it_path(ws, "run.sh"), NULL);
	IT_EXPECT_INT(r.status, 126);
	IT_EXPECT_NOT_CONTAINS(r.out, "RAN");
	it_sbxv(&r, "run", "--profile", it_path(ws, "p.yaml"), "--", "/bin/sh", "-c",
	        "echo w > written && cat written", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "w\n");
}

/* The real agent, which scripts/setup.sh installs (npm install -g @anthropic-ai/claude-code):
 * missing, the case fails rather than skip, since nothing of the kernel is lacking. */
static void test_run_real_claude(void)
{
	char before[4096];
	struct it_run r;

	setup();
	need_launcher();
	if (!exists("/usr/bin/claude") && !exists("/usr/local/bin/claude"))
		it_fail(
		    __FILE__, __LINE__,
		    "Claude Code is not installed: scripts/setup.sh installs it (npm install -g "
		    "@anthropic-ai/claude-code)");
	snprintf(before, sizeof(before), "%s", slurp(it_path(home, ".claude.json")));
	it_sbxv(&r, "run", "-p", "claude-agent", "--", "claude", "--version", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "(Claude Code)");
	/* A prompt without a login: the agent starts, writes its transcript, and fails to
	 * reach its API; its rules (~/.claude.json) are unchanged. */
	it_sbxv(&r, "run", "-p", "claude-agent", "--", "timeout", "60", "claude", "-p", "hi", NULL);
	IT_EXPECT(r.status != 125 && r.status != 126 && r.status != 127);
	IT_EXPECT_CONTAINS(slurp(it_path(home, ".claude.json")), before);
	{
		char *dir = it_path(home, ".claude/projects");
		char *cmd = fmt("ls -R %s | grep -c jsonl", dir);
		FILE *p = popen(cmd, "r");
		int n = 0;

		IT_EXPECT(p != NULL);
		IT_EXPECT(fscanf(p, "%d", &n) == 1);
		pclose(p);
		/* old.jsonl, and the transcript of the run inside the sandbox */
		IT_EXPECT(n >= 2);
	}
}

/*
 * restricted-agent and claude-agent keep their word: the secret files (no-secrets.yaml's
 * list) are hidden at any depth, not only at the workspace's top, under both backends;
 * committed templates, public keys and certificates stay readable; --unhide gives one file
 * back; check agrees.
 */
static void secrets_at_any_depth(const char *backend)
{
	static const char *const profiles[] = {"restricted-agent", "claude-agent"};
	/* the last, in a folder that the .env.* glob hides whole (attack B: check said allow) */
	static const char *const hidden[] = {
	    ".env",        "sub/.env",  "sub/deep/.env.local",  "pkg/.npmrc",
	    "pkg/.pypirc", ".netrc",    "sub/.git-credentials", "keys/id_ed25519",
	    "keys/id_rsa", "a/.env.d/x"};
	static const char *const kept[] = {".env.example", "sub/.env.template",
	                                   "keys/id_ed25519.pub", "certs/ca.pem", "file.txt"};
	struct it_run r;

	setup();
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		it_write_file(it_path(ws, hidden[i]), "secret-value\n");
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		it_write_file(it_path(ws, kept[i]), "public\n");
	for (size_t p = 0; p < sizeof(profiles) / sizeof(profiles[0]); p++) {
		const char *cmd[64];
		size_t c = 0;
		char *npmrc = it_path(ws, "pkg/.npmrc");

		cmd[c++] = "@probe";
		cmd[c++] = "--probe";
		for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
			cmd[c++] = "read";
			cmd[c++] = it_path(ws, hidden[i]);
		}
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
			cmd[c++] = "read";
			cmd[c++] = it_path(ws, kept[i]);
		}
		cmd[c] = NULL;
		{
			/* the files are what this compares: the landlock variant gives
			 * claude-agent the host's network (its allowlist is it_net's) */
			const char *opts[] = {
			    "-p",    profiles[p], "--backend",
			    backend, "--net",     strcmp(backend, "landlock") ? "none" : "host",
			    NULL};

			it_run_in(&r, opts, cmd);
		}
		IT_EXPECT_INT(r.status, 0);
		/* a hidden file cannot be opened; what lies in a hidden folder is absent (an
		 * empty folder) under namespaces, denied under landlock */
		for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
			IT_EXPECT_CONTAINS(r.out, fmt("read %s/%s => %s", ws, hidden[i],
			                              strstr(hidden[i], ".env.d/") &&
			                                      !strcmp(backend, "namespaces")
			                                  ? "ENOENT"
			                                  : "EACCES"));
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
			IT_EXPECT_CONTAINS(r.out, fmt("read %s/%s => ok", ws, kept[i]));
		/* one given back, for one run */
		{
			const char *opts[] = {
			    "-p",        profiles[p],
			    "--backend", backend,
			    "--unhide",  npmrc,
			    "--net",     strcmp(backend, "landlock") ? "none" : "host",
			    NULL};

			it_run_in(&r, opts, cmd);
		}
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, fmt("read %s => ok", npmrc));
		IT_EXPECT_CONTAINS(r.out, fmt("read %s/sub/deep/.env.local => EACCES", ws));
		/* check says what the kernel does */
		it_sbxv(&r, "check", "-p", profiles[p], "read", it_path(ws, "sub/deep/.env.local"),
		        NULL);
		IT_EXPECT_INT(r.status, 1);
		IT_EXPECT_CONTAINS(r.out, "hidden: hide glob");
		it_sbxv(&r, "check", "-p", profiles[p], "read", it_path(ws, "a/.env.d/x"), NULL);
		IT_EXPECT_INT(r.status, 1);
		IT_EXPECT_CONTAINS(r.out, "hidden: hide glob");
		it_sbxv(&r, "check", "-p", profiles[p], "read", it_path(ws, "sub/.env.template"),
		        NULL);
		IT_EXPECT_INT(r.status, 0);
	}
}

static void test_secrets_hidden_at_any_depth(void)
{
	secrets_at_any_depth("namespaces");
}

static void test_secrets_hidden_at_any_depth_landlock(void)
{
	secrets_at_any_depth("landlock");
}

/*
 * A mount's `deny` approvals are kernel rules (Landlock), whatever the supervisor: the probe
 * meets EACCES, and sbx check says the same with the rule. delete: deny takes the right to
 * remove entries (a rename away too: Landlock has one right for both); overwrite: deny the
 * right to truncate. Under both backends.
 */
static void approvals_deny(const char *backend)
{
	const char *cmd[] = {"@probe",   "--probe", "unlink", NULL, "rename", NULL, NULL,
	                     "truncate", NULL,      "write",  NULL, "create", NULL, NULL};
	const char *opts[] = {"-p", NULL, "--backend", backend, NULL};
	char *file, *fresh;
	struct it_run r;

	setup();
	need_launcher();
	/* in a folder of the workspace: under the landlock backend the workspace's top, which
	 * holds .git, takes no new entries and loses none (carved around .git) */
	file = it_path(ws, "sub/file.txt");
	fresh = it_path(ws, "sub/fresh.txt");
	it_write_file(file, "hello\n");
	it_write_file(it_path(ws, "sub/keep.txt"), "keep\n");
	it_write_file(it_path(ws, "ap.yaml"), "version: 1\nmounts:\n  - path: ${WORKSPACE}\n"
	                                      "    approvals: {delete: deny, overwrite: deny}\n");
	opts[1] = it_path(ws, "ap.yaml");
	cmd[3] = it_path(ws, "sub/keep.txt");
	cmd[5] = file;
	cmd[6] = fresh;
	cmd[8] = file;
	cmd[10] = file;
	cmd[12] = it_path(ws, "sub/new.txt");
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "unlink", cmd[3], "EACCES");
	IT_EXPECT_PROBE(r.out, "rename", file, "EACCES");
	IT_EXPECT_PROBE(r.out, "truncate", file, "EACCES");
	IT_EXPECT_PROBE(r.out, "write", file, "ok");
	IT_EXPECT_PROBE(r.out, "create", cmd[12], "ok");
	IT_EXPECT(exists(cmd[3]) && exists(file) && !exists(fresh));
	it_sbxv(&r, "check", "-p", opts[1], "delete", cmd[3], NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, "approvals: delete deny");
	/* --dry-run says it, as text and as JSON */
	it_sbxv(&r, "run", "-p", opts[1], "--backend", backend, "--label", "t-1", "--dry-run", "--",
	        "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("supervisor approvals and read caps:\n  %-28s overwrite "
	                              "deny, delete deny\n",
	                              ws));
	IT_EXPECT_CONTAINS(r.out, "label t-1");
	it_sbxv(&r, "run", "-p", opts[1], "--backend", backend, "--dry-run", "--json", "--", "true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"approvals\":{\"write\":\"allow\",\"overwrite\":\"deny\","
	                          "\"delete\":\"deny\",\"rename\":\"allow\"}");
	/* the same profile without approvals: the probe can fail */
	it_write_file(it_path(ws, "ap.yaml"), "version: 1\nmounts:\n  - path: ${WORKSPACE}\n");
	unlink(cmd[12]);
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "unlink", cmd[3], "ok");
	IT_EXPECT_PROBE(r.out, "rename", file, "ok");
}

static void test_approvals_deny(void)
{
	approvals_deny("namespaces");
}

static void test_approvals_deny_landlock(void)
{
	approvals_deny("landlock");
}

/* sbx check answers deny for what the supervisor keeps from being created: claude-agent's
 * .claude in a project that has none, and a fresh project's .git. */
static void test_check_protected(void)
{
	struct it_run r;

	setup();
	IT_EXPECT(rmdir(it_path(ws, ".claude")) == 0 || errno == ENOENT);
	it_sbxv(&r, "check", "-p", "claude-agent", "create,write",
	        it_path(ws, ".claude/settings.json"), NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, fmt("protected: %s/.claude does not exist at launch", ws));
	IT_EXPECT_CONTAINS(r.out, "create .claude/ before the run");
	/* a fresh project: no .git at all */
	IT_EXPECT(system(fmt("rm -rf '%s/.git'", ws)) == 0);
	it_sbxv(&r, "check", "-p", "claude-agent", "create", it_path(ws, ".git/hooks/pre-commit"),
	        NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, fmt("protected: %s/.git does not exist at launch", ws));
	IT_EXPECT_CONTAINS(r.out, "run `git init` outside the sandbox");
	it_sbxv(&r, "check", "-p", "claude-agent", "create", it_path(ws, "src.c"), NULL);
	IT_EXPECT_INT(r.status, 0);
}

/* A workspace whose path holds glob characters ("proj [v1]"): ${WORKSPACE} in the shipped
 * hide globs and policies matches it as itself (it was read as a character class, and the
 * secrets were not hidden at all; claude-agent could not write its workspace). */
static void bracket_workspace(const char *backend)
{
	static const char *const profiles[] = {"no-secrets", "claude-agent"};
	struct it_run r;

	ws_name = "proj [v1] *?";
	setup();
	it_write_file(it_path(ws, "sub/.env"), "API_KEY=deep-secret\n");
	/* written in src/, beside the hidden names: under the landlock backend a folder that
	 * holds one (sub/) is carved, and a file made there could not be opened */
	it_write_file(it_path(ws, "src/a.c"), "int a;\n");
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		const char *args[] = {
		    "run",       "-q",        "--profile",
		    profiles[i], "--backend", backend,
		    "--net",     "host",      "--",
		    "/bin/sh",   "-c",        "cat .env sub/.env; touch src/made && echo made",
		    NULL};
		const char *check[] = {"check", "--profile",         profiles[i],
		                       "read",  it_path(ws, ".env"), NULL};

		it_sbx(&r, args);
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		IT_EXPECT_CONTAINS(r.out, "made\n");
		it_sbx(&r, check);
		IT_EXPECT_CONTAINS(r.out, "deny");
	}
}

static void test_bracket_workspace(void)
{
	bracket_workspace("namespaces");
}

static void test_bracket_workspace_landlock(void)
{
	bracket_workspace("landlock");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_validate_shipped),
	    IT_CASE(test_validate_bad),
	    IT_CASE(test_check_seed_examples),
	    IT_CASE(test_resolve),
	    IT_CASE(test_dry_run_every_shipped_profile),
	    IT_CASE(test_refusals_run_nothing),
	    IT_CASE(test_flags_with_a_profile),
	    IT_CASE(test_profiles_list_and_show),
	    IT_CASE(test_run_code_reviewer),
	    IT_CASE(test_run_restricted_agent),
	    IT_CASE(test_run_ci_job),
	    IT_CASE(test_run_claude_agent),
	    IT_CASE(test_claude_agent_absent_settings_named),
	    IT_CASE(test_run_policy_noexec),
	    IT_CASE(test_run_real_claude),
	    IT_CASE(test_secrets_hidden_at_any_depth),
	    IT_CASE(test_bracket_workspace),
	    IT_CASE(test_bracket_workspace_landlock),
	    IT_CASE(test_secrets_hidden_at_any_depth_landlock),
	    IT_CASE(test_approvals_deny),
	    IT_CASE(test_approvals_deny_landlock),
	    IT_CASE(test_check_protected),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
