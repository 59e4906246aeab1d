/* SPDX-License-Identifier: MIT */
/*
 * Everyday use, as a new user meets it: a writable private home with ~/.gitconfig, a name for
 * the worker's uid, Docker's habits (-w, -e, --read-only, --network, --tmpfs), quiet output,
 * and errors that say what was meant. As root and as a user (as-user.sh).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return s;
}

/* A shell command on the host, outside any sandbox. */
static void host_sh(struct it_run *r, const char *script)
{
	const char *argv[] = {"/bin/sh", "-c", script, NULL};

	it_exec(r, argv);
}

/* A home of the test's own with a ~/.gitconfig and a secret, and a project; cd there. */
static const char *setup_home(const char **proj)
{
	const char *t = it_tmpdir();
	char *home = it_path(t, "home");

	it_write_file(it_path(home, ".gitconfig"), "[user]\n\tname = Ada Test\n\temail = a@t\n");
	it_write_file(it_path(home, "secret"), "s3cret\n");
	it_write_file(it_path(t, "proj/file"), "in project\n");
	setenv("HOME", home, 1);
	/* the shipped profiles by name, from the tests' root-owned copy (as-user.sh) */
	if (getenv("SBX_SOURCE_DIR"))
		setenv("SBX_PROFILE_PATH", it_path(getenv("SBX_SOURCE_DIR"), "profiles"), 1);
	*proj = it_path(t, "proj");
	IT_EXPECT_INT(chdir(*proj), 0);
	return home;
}

/* The default profile: $HOME is a private, writable, sized tmpfs holding ~/.gitconfig
 * read-only and nothing else of the caller's; what is written there stays there. */
static void test_home_default(void)
{
	const char *proj, *home = setup_home(&proj);
	struct it_run r;

	it_sbxv(&r, "run", "--", "/bin/sh", "-c",
	        "echo home=$HOME; touch ~/new && echo wrote; mkdir -p ~/.cache/x && echo cache;"
	        "cat ~/secret 2>/dev/null || echo no-secret; cat ~/.gitconfig | head -1;"
	        "echo x >> ~/.gitconfig 2>/dev/null || echo gitconfig-ro;"
	        "stat -f -c 'blocks=%b bsize=%S' ~; stat -c 'mode=%a' ~",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("home=%s\n", home));
	IT_EXPECT_CONTAINS(r.out, "wrote\ncache\nno-secret\n[user]\ngitconfig-ro\n");
	IT_EXPECT_CONTAINS(r.out, "mode=700\n");
	{
		/* sized: at most SBX_HOME_SIZE_CAP (4 GiB) */
		unsigned long long blocks = 0, bsize = 0;
		const char *b = strstr(r.out, "blocks=");

		IT_EXPECT(b && sscanf(b, "blocks=%llu bsize=%llu", &blocks, &bsize) == 2);
		IT_EXPECT(blocks > 0 && blocks * bsize <= (4ull << 30));
	}
	/* nothing reached the host's home */
	IT_EXPECT(access(it_path(home, "new"), F_OK) < 0);
	/* (sbx's own ~/.cache/sbx may be there: the records of `sbx ps` where there is no
	 * runtime directory; the worker's ~/.cache/x is not) */
	IT_EXPECT(access(it_path(home, ".cache/x"), F_OK) < 0);
	/* the dry run says what the home is */
	it_sbxv(&r, "run", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r.out, fmt(" %s  (home (a private tmpfs))", home));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.gitconfig  (home)", home));
}

/* git commit works with no flag: the home is writable, ~/.gitconfig says who commits. */
static void test_git_commit(void)
{
	const char *proj;
	struct it_run r;

	setup_home(&proj);
	if (access("/usr/bin/git", X_OK) < 0)
		it_skip("git is not installed");
	/* a repository made outside (sbx guards .git; a fresh `git init` inside is refused
	 * where the supervisor protects the name, see sbx-profile(5)) */
	host_sh(&r, "git init -q . 2>&1");
	IT_EXPECT_INT(r.status, 0);
	it_sbxv(&r, "run", "--", "/bin/sh", "-c",
	        "echo hi > a && git add a && git commit -qm first && git log --format='%an'", NULL);
	if (r.status != 0)
		fprintf(stderr, "%s%s", r.out, r.err);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "Ada Test\n");
}

static void test_home_modes(void)
{
	const char *proj, *home = setup_home(&proj);
	const char *t = it_tmpdir();
	char *dir = it_path(t, "h2");
	struct it_run r;

	/* none: nothing at $HOME */
	it_sbxv(&r, "run", "--home", "none", "--", "/bin/sh", "-c", "ls -A ~ || echo no-home",
	        NULL);
	IT_EXPECT_CONTAINS(r.out, "no-home\n");
	/* empty: a private home with nothing of the caller's */
	it_sbxv(&r, "run", "--home", "empty", "--", "/bin/sh", "-c",
	        "ls -A ~; touch ~/f && echo wrote", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "wrote\n");
	IT_EXPECT_NOT_CONTAINS(r.out, ".gitconfig");
	/* DIR: that directory, read-write, as $HOME; what is written stays */
	IT_EXPECT_INT(mkdir(dir, 0700), 0);
	it_sbxv(&r, "run", "--home", dir, "--", "/bin/sh", "-c", "echo $HOME; touch ~/kept", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("%s\n", dir));
	IT_EXPECT(access(it_path(dir, "kept"), F_OK) == 0);
	/* --readonly reaches the home too */
	it_sbxv(&r, "run", "--readonly", "--", "/bin/sh", "-c", "touch ~/f || echo home-ro", NULL);
	IT_EXPECT_CONTAINS(r.out, "home-ro\n");
	/* the shipped profiles say what they do: code-reviewer has none, ci-job an empty one,
	 * claude-agent a tmpfs under its ~/.claude mounts */
	it_sbxv(&r, "run", "-p", "code-reviewer", "--", "/bin/sh", "-c", "ls ~ || echo no-home",
	        NULL);
	IT_EXPECT_CONTAINS(r.out, "no-home\n");
	it_sbxv(&r, "run", "-p", "ci-job", "--", "/bin/sh", "-c",
	        "touch ~/f && echo wrote; ls -A ~", NULL);
	if (r.status != 0)
		fprintf(stderr, "%s", r.err);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "wrote\nf\n");
	IT_EXPECT_NOT_CONTAINS(r.out, ".gitconfig");
	/* claude-agent's home does not let the agent make the settings it would read: an absent
	 * ~/.claude.json is refused (the supervisor), a cache is the run's own */
	IT_EXPECT_INT(mkdir(it_path(home, ".claude"), 0700), 0);
	it_sbxv(&r, "run", "-p", "claude-agent", "--", "/bin/sh", "-c",
	        "echo {} > ~/.claude.json || echo refused; mkdir -p ~/.npm/_cacache && echo cache",
	        NULL);
	IT_EXPECT_CONTAINS(r.out, "refused\ncache\n");
	IT_EXPECT(access(it_path(home, ".claude.json"), F_OK) < 0);
	it_sbxv(&r, "run", "-p", "restricted-agent", "--", "/bin/sh", "-c",
	        "touch ~/f && echo wrote; cat ~/secret || echo no-secret", NULL);
	IT_EXPECT_CONTAINS(r.out, "wrote\nno-secret\n");
}

/* The worker has a name: whoami, id -un, getpass, $USER and $LOGNAME agree; the host's
 * /etc/passwd is never written. */
static void test_name(void)
{
	const char *proj;
	struct it_run r, before, after;
	const char *script = "whoami; id -un; echo user=$USER logname=$LOGNAME;"
	                     "python3 -c 'import getpass; print(\"py=\" + getpass.getuser())';"
	                     "echo x >> /etc/passwd 2>/dev/null || echo passwd-ro;"
	                     "grep -c '^root:' /etc/passwd";
	char want[256];
	const char *me = it_is_root() ? "root" : getenv("USER");

	setup_home(&proj);
	host_sh(&before, "stat -c '%Y %s' /etc/passwd /etc/group; sha256sum /etc/passwd");
	it_sbxv(&r, "run", "--", "/bin/sh", "-c", script, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(me != NULL);
	snprintf(want, sizeof(want), "%s\n%s\nuser=%s logname=%s\npy=%s\npasswd-ro\n1\n", me, me,
	         me, me, me);
	IT_EXPECT_CONTAINS(r.out, want);
	/* as root with nesting the worker is uid 65533: named, with the host's entries kept */
	if (it_is_root()) {
		it_sbxv(&r, "run", "--allow-nesting", "--", "/bin/sh", "-c", script, NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "sbx\nsbx\nuser=sbx logname=sbx\npy=sbx\npasswd-ro\n1\n");
		it_sbxv(&r, "run", "--allow-nesting", "--", "/bin/sh", "-c",
		        "id; grep '^sbx:' /etc/passwd /etc/group", NULL);
		IT_EXPECT_CONTAINS(r.out, "uid=65533(sbx) gid=65533(sbx)");
		IT_EXPECT_CONTAINS(r.out, "/etc/group:sbx:x:65533:");
		it_sbxv(&r, "run", "--allow-nesting", "--dry-run", "--", "true", NULL);
		IT_EXPECT_CONTAINS(r.out, "ro,generated   /etc/passwd <- /etc/passwd");
	}
	host_sh(&after, "stat -c '%Y %s' /etc/passwd /etc/group; sha256sum /etc/passwd");
	IT_EXPECT(strcmp(before.out, after.out) == 0);
}

/* Docker's habits: -v "$PWD:/app" -w /app runs in /app; -e; --read-only; --network;
 * --tmpfs with a size; a working directory that does not exist inside is refused. */
static void test_docker_habits(void)
{
	const char *proj;
	struct it_run r;

	setup_home(&proj);
	setenv("SBX_IT_PASSED", "from-caller", 1);
	it_sbxv(&r, "run", "-v", fmt("%s:/app", proj), "-w", "/app", "-e", "A=1", "-e",
	        "SBX_IT_PASSED", "--network", "none", "--", "/bin/sh", "-c",
	        "pwd; cat file; echo A=$A P=$SBX_IT_PASSED", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "/app\nin project\nA=1 P=from-caller\n");
	IT_EXPECT_NOT_CONTAINS(r.err, "sbx:"); /* -w named the directory: nothing to say */
	/* --chdir stays an alias; a relative -w is the caller's */
	it_sbxv(&r, "run", "--chdir", "/tmp", "--", "/bin/pwd", NULL);
	IT_EXPECT_CONTAINS(r.out, "/tmp\n");
	IT_EXPECT_INT(mkdir("sub", 0755), 0);
	it_sbxv(&r, "run", "-w", "sub", "--", "/bin/pwd", NULL);
	IT_EXPECT_CONTAINS(r.out, fmt("%s/sub\n", proj));
	/* --read-only */
	it_sbxv(&r, "run", "--read-only", "--", "/bin/sh", "-c", "touch x || echo ro", NULL);
	IT_EXPECT_CONTAINS(r.out, "ro\n");
	/* --tmpfs PATH:size=N: a private tmpfs of that size */
	it_sbxv(&r, "run", "--tmpfs", "/scratch:size=1m", "--", "/bin/sh", "-c",
	        "head -c 2097152 /dev/zero > /scratch/f || echo full; cat file", NULL);
	IT_EXPECT_CONTAINS(r.out, "full\nin project\n"); /* the workspace stays */
	/* a working directory that does not exist inside: refused, named */
	it_sbxv(&r, "run", "-w", "/nowhere", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "the working directory /nowhere does not exist inside");
	it_sbxv(&r, "run", "-w", fmt("%s/missing", proj), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, fmt("working directory %s/missing", proj));
	/* -v without the workspace: the fallback to / is said in one line */
	it_sbxv(&r, "run", "-v", "/usr/share:ro", "--", "/bin/pwd", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "/\n");
	IT_EXPECT_CONTAINS(r.err, "the working directory is /; name one with -w DIR\n");
	IT_EXPECT(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
	it_sbxv(&r, "run", "-q", "-v", "/usr/share:ro", "--", "/bin/pwd", NULL);
	IT_EXPECT_INT((int)strlen(r.err), 0);
}

/* Quiet by default: claude-agent on a host with none of its optional paths says nothing;
 * --verbose names them; -q silences notes. */
static void test_quiet(void)
{
	const char *proj, *home = setup_home(&proj);
	struct it_run r;

	IT_EXPECT_INT(mkdir(it_path(home, ".claude"), 0700), 0);
	it_sbxv(&r, "run", "-p", "claude-agent", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "optional mount");
	IT_EXPECT(strchr(r.err, '\n') == NULL || strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
	it_sbxv(&r, "run", "-p", "claude-agent", "--verbose", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r.err, "optional mounts skipped, not on this host:");
	it_sbxv(&r, "check", "-p", "claude-agent", "read", "file", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_INT((int)strlen(r.err), 0);
	IT_EXPECT_CONTAINS(r.out, fmt("allow read    %s/file", proj)); /* a relative path */
	it_sbxv(&r, "resolve", "-p", "claude-agent", "--verbose", "file", NULL);
	IT_EXPECT_CONTAINS(r.out, fmt("%s/file -> ", proj));
	it_sbxv(&r, "run", "-p", "claude-agent", "-q", "--verbose", "--", "/bin/true", NULL);
	IT_EXPECT_NOT_CONTAINS(r.err, "note");
}

/* Errors say what was meant, and no hint that does not apply. */
static void test_errors_and_help(void)
{
	const char *proj;
	struct it_run r;

	setup_home(&proj);
	it_sbxv(&r, "run", "--workspce", ".", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "did you mean '--workspace'?");
	it_sbxv(&r, "run", "--rm", "--", "true", NULL);
	IT_EXPECT_CONTAINS(r.err, "drop --rm");
	it_sbxv(&r, "rnu", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "did you mean 'run'?");
	it_sbxv(&r, "run", "-p", "claud-agent", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "did you mean 'claude-agent'?");
	it_sbxv(&r, "check", "--profle", "x", "read", "/", NULL);
	IT_EXPECT_CONTAINS(r.err, "did you mean '--profile'?");
	/* a -v source or a device that is not there: no "mark the mount optional" */
	it_sbxv(&r, "run", "-v", "/no/such/dir", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "/no/such/dir does not exist");
	IT_EXPECT_NOT_CONTAINS(r.err, "optional");
	it_sbxv(&r, "run", "--device", "/dev/no-such-gpu", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_NOT_CONTAINS(r.err, "optional");
	/* help and version */
	it_sbxv(&r, "help", "run", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "Usage: sbx run");
	IT_EXPECT_CONTAINS(r.out, "-w, --workdir DIR");
	it_sbxv(&r, "help", "profiles", NULL);
	IT_EXPECT_CONTAINS(r.out, "sbx profiles validate NAME|FILE");
	it_sbxv(&r, "--version", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "(commit ");
	IT_EXPECT_CONTAINS(r.out, "libseccomp ");
	IT_EXPECT_CONTAINS(r.out, "landlock: sbx knows ABI ");
	/* profiles validate NAME as well as FILE */
	it_sbxv(&r, "profiles", "validate", "ci-job", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ci-job (");
	IT_EXPECT_CONTAINS(r.out, "ci-job.yaml): ok\n");
	it_sbxv(&r, "profiles", "validate", "ci-jbo", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "did you mean 'ci-job'?");
	/* relative paths for --hide and --restrict as for -v */
	it_write_file(it_path(proj, ".env"), "SECRET=1\n");
	it_sbxv(&r, "run", "--hide", ".env", "--", "/bin/sh", "-c", "cat .env || echo hidden",
	        NULL);
	IT_EXPECT_CONTAINS(r.out, "hidden\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "SECRET");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_home_default),    IT_CASE(test_git_commit),
	    IT_CASE(test_home_modes),      IT_CASE(test_name),
	    IT_CASE(test_docker_habits),   IT_CASE(test_quiet),
	    IT_CASE(test_errors_and_help),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
