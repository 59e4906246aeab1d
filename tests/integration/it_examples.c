/* SPDX-License-Identifier: MIT */
/*
 * examples/ (issue 17, item 3), tested as far as this machine allows, as root and as the user:
 * - the GitHub Actions workflow and the GitLab CI job: every sbx command line they hold runs
 *   here against a tiny project (its tests run, write the workspace, and cannot read the
 *   caller's $HOME), and each file parses as YAML where python3 has its yaml module;
 * - the Kubernetes Job and the Dockerfile: the same command in both, run with user
 *   namespaces off (a user namespace of the test's own with user.max_user_namespaces = 0,
 *   the suite's simulation of an ordinary pod), where sbx takes the landlock backend;
 * - Claude Code: the real CLI (`claude`) runs under claude-agent (--version and --help: no
 *   login here), through the sbx-claude wrapper with its settings, and sbx-subworker inside a
 *   claude-agent sandbox starts a narrower sub-worker (writes where it keeps, not elsewhere,
 *   nothing with --read-only).
 * Not tested here: a real runner, cluster or image build (no Docker daemon), and a logged-in
 * Claude Code session whose sub-agent calls the wrapper itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../json_check.h"
#include "harness.h"

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, f);
	n = vasprintf(&p, f, ap);
	va_end(ap);
	if (n < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	if (!f || !buf)
		it_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char *examples(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	static char dir[4096];

	if (!src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	snprintf(dir, sizeof(dir), "%s/examples", src);
	if (access(dir, R_OK) < 0)
		it_fail(__FILE__, __LINE__, "%s: %s", dir, strerror(errno));
	return dir;
}

static char proj[4096], home[4096], bin[4096];

/* A tiny project whose `make test` runs its tests: they check what CI sets, write the
 * workspace, and must not read the caller's $HOME (ci-job: an empty private one, or denied
 * under the landlock backend). A $HOME of the case's own, with a secret in it. A folder
 * where `sbx` is the sbx under test, first on PATH. */
static void setup(void)
{
	snprintf(proj, sizeof(proj), "%s/project", it_tmpdir());
	snprintf(home, sizeof(home), "%s/home", it_tmpdir());
	snprintf(bin, sizeof(bin), "%s/bin", it_tmpdir());
	it_write_file(fmt("%s/Makefile", proj), "deps:\n\t@echo nothing to fetch\n"
	                                        "test:\n\tsh ./run-tests.sh\n");
	it_write_file(fmt("%s/run-tests.sh", proj),
	              "set -e\n"
	              "[ \"$CI\" = true ]\n"
	              "if cat \"$HOME/secret\" 2>/dev/null; then echo LEAKED; exit 1; fi\n"
	              "echo ok > tests-ran\n"
	              "echo '1 test passed'\n");
	it_write_file(fmt("%s/secret", home), "token\n");
	it_write_file(fmt("%s/.claude/CLAUDE.md", home), "\n");
	if (mkdir(bin, 0755) < 0 || symlink(it_sbx_path(), fmt("%s/sbx", bin)) < 0)
		it_fail(__FILE__, __LINE__, "%s: %s", bin, strerror(errno));
	setenv("HOME", home, 1);
	setenv("PATH", fmt("%s:/usr/local/bin:/usr/bin:/bin", bin), 1);
	setenv("SBX_PROFILE_PATH", fmt("%s/profiles", getenv("SBX_SOURCE_DIR")), 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_CACHE_HOME");
	if (chdir(proj) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", proj, strerror(errno));
}

/* The lines of a file that start (after blanks and `prefix`) with "sbx ", in order. */
static size_t sbx_lines(const char *text, const char *prefix, char **out, size_t max)
{
	size_t n = 0;

	for (const char *l = text; l && *l && n < max;) {
		const char *end = strchr(l, '\n');
		const char *p = l;
		size_t plen = strlen(prefix);

		while (*p == ' ')
			p++;
		if (*p != '#' && strncmp(p, prefix, plen) == 0 && strncmp(p + plen, "sbx ", 4) == 0)
			out[n++] =
			    strndup(p + plen, end ? (size_t)(end - p - plen) : strlen(p + plen));
		l = end ? end + 1 : NULL;
	}
	return n;
}

/* Parse a YAML file with python3's yaml module, where there is one: 0 parsed, 1 not, 77 no
 * python3 or no yaml module (then the command lines are the test). */
static int yaml_parse(const char *file)
{
	struct it_run r;

	it_exec(&r,
	        (const char *const[]){"/bin/sh", "-c",
	                              "command -v python3 >/dev/null && python3 -c 'import "
	                              "yaml' 2>/dev/null || exit 77; python3 -c 'import sys, "
	                              "yaml; list(yaml.safe_load_all(open(sys.argv[1])))' \"$0\"",
	                              file, NULL});
	if (r.status == 77)
		fprintf(stderr, "  (python3's yaml module is not here: %s is not parsed)\n", file);
	else if (r.status != 0)
		it_fail(__FILE__, __LINE__, "%s does not parse as YAML: %s", file, r.err);
	return r.status;
}

/* Run each line with /bin/sh in the project, with the CI's variables set. */
static void run_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct it_run r;

		unlink(fmt("%s/tests-ran", proj));
		it_exec(&r, (const char *const[]){"/bin/sh", "-c", lines[i], NULL});
		if (r.status != 0)
			it_fail(__FILE__, __LINE__, "`%s` exited %d:\n%s%s", lines[i], r.status,
			        r.out, r.err);
		IT_EXPECT_NOT_CONTAINS(r.out, "LEAKED");
		if (strstr(lines[i], "sbx run ")) {
			IT_EXPECT_CONTAINS(r.out, "1 test passed");
			IT_EXPECT(access(fmt("%s/tests-ran", proj), F_OK) == 0);
		}
	}
}

static void test_github_actions(void)
{
	const char *file;
	char *lines[16];
	size_t n;

	setup();
	file = fmt("%s/github-actions/sbx-tests.yml", examples());
	yaml_parse(file);
	n = sbx_lines(slurp(file), "", lines, 16);
	IT_EXPECT_INT(n, 2); /* sbx doctor; sbx run ... */
	IT_EXPECT_CONTAINS(lines[1], "sbx run --profile ci-job");
	setenv("GITHUB_WORKSPACE", proj, 1);
	setenv("GITHUB_ACTIONS", "true", 1);
	run_lines(lines, n);
}

static void test_gitlab_ci(void)
{
	const char *file;
	char *lines[16];
	size_t n;

	setup();
	file = fmt("%s/gitlab-ci/.gitlab-ci.yml", examples());
	yaml_parse(file);
	n = sbx_lines(slurp(file), "- ", lines, 16);
	IT_EXPECT_INT(n, 2);
	IT_EXPECT_CONTAINS(lines[1], "sbx run --profile ci-job");
	setenv("CI_PROJECT_DIR", proj, 1);
	run_lines(lines, n);
}

/* The words of a flow sequence of double-quoted strings without escapes: ["a", "b"] */
static size_t words(const char *line, const char **out, size_t at, size_t max)
{
	const char *p = strchr(line, '[');

	while (p && at < max) {
		const char *q = strchr(p, '"'), *e;

		if (!q || (strchr(p, ']') && strchr(p, ']') < q))
			break;
		e = strchr(q + 1, '"');
		if (!e)
			it_fail(__FILE__, __LINE__, "unterminated string in %s", line);
		out[at++] = strndup(q + 1, (size_t)(e - q - 1));
		p = e + 1;
	}
	return at;
}

static const char *line_of(const char *text, const char *key)
{
	const char *l = strstr(text, key);

	if (!l)
		it_fail(__FILE__, __LINE__, "no \"%s\" in the file", key);
	return strndup(l, strcspn(l, "\n"));
}

/* user.max_user_namespaces = 0 in a user namespace of our own (as it_landlock), where our
 * own uid and gid are mapped, as a pod's are: sbx finds user namespaces off, as in an ordinary
 * pod. Mapped, because GNU make's posix_spawn resets its ids, and an unmapped id cannot be set
 * (EINVAL). Root maps itself to 0; a user maps itself to the overflow id (65534), the one
 * root's files show as in the namespace: a pod's image files are root's, which sbx trusts
 * (a profile in a folder someone else owns is refused), and an unprivileged process cannot
 * map root in, so here the caller and the owner of / look alike instead. */
static void write_proc(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		it_skip("cannot write %s in a user namespace here: %s", file, strerror(errno));
	close(fd);
}

static void no_user_namespaces(void)
{
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	unsigned in = uid == 0 ? 0 : 65534;

	if (unshare(CLONE_NEWUSER) < 0)
		it_skip("cannot make a user namespace to test in: %s", strerror(errno));
	write_proc("/proc/self/uid_map", fmt("%u %u 1\n", in, uid));
	write_proc("/proc/self/setgroups", "deny");
	write_proc("/proc/self/gid_map", fmt("%u %u 1\n", uid == 0 ? 0 : 65534, gid));
	write_proc("/proc/sys/user/max_user_namespaces", "0");
}

static void test_pod_without_user_namespaces(void)
{
	const char *job_argv[32] = {0}, *img_argv[32] = {0};
	char *job, *img;
	size_t nj, ni;
	struct it_run r;

	setup();
	job = slurp(fmt("%s/kubernetes/job.yaml", examples()));
	img = slurp(fmt("%s/kubernetes/Dockerfile", examples()));
	yaml_parse(fmt("%s/kubernetes/job.yaml", examples()));
	/* the container's command and args, the image's ENTRYPOINT and CMD: the same */
	nj = words(line_of(job, "command: [\"sbx\""), job_argv, 0, 30);
	nj = words(line_of(job, "args: [\"make\""), job_argv, nj, 30);
	ni = words(line_of(img, "ENTRYPOINT ["), img_argv, 0, 30);
	ni = words(line_of(img, "CMD ["), img_argv, ni, 30);
	IT_EXPECT_INT(nj, ni);
	for (size_t i = 0; i < nj; i++)
		IT_EXPECT_INT(strcmp(job_argv[i], img_argv[i]), 0);
	IT_EXPECT_INT(strcmp(job_argv[0], "sbx"), 0);
	IT_EXPECT_CONTAINS(job, "allowPrivilegeEscalation: false");
	IT_EXPECT_CONTAINS(job, "drop: [\"ALL\"]");
	/* the pod's /workspace is the project here */
	job_argv[0] = it_sbx_path();
	for (size_t i = 0; i < nj; i++)
		if (strcmp(job_argv[i], "/workspace") == 0)
			job_argv[i] = proj;
	no_user_namespaces();
	it_exec(&r, job_argv);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "the pod's command exited %d:\n%s%s", r.status, r.out,
		        r.err);
	IT_EXPECT_CONTAINS(r.err, "running with the landlock backend");
	IT_EXPECT_CONTAINS(r.out, "1 test passed");
	IT_EXPECT_NOT_CONTAINS(r.out, "LEAKED");
	IT_EXPECT(access(fmt("%s/tests-ran", proj), F_OK) == 0);
}

static void test_claude_code(void)
{
	const char *cc;
	char *sbxdir;
	struct it_run r;

	setup();
	if (access("/usr/bin/claude", X_OK) < 0 && system("command -v claude >/dev/null") != 0)
		it_fail(__FILE__, __LINE__,
		        "claude is not installed (scripts/setup.sh installs it)");
	cc = fmt("%s/claude-code", examples());
	/* the settings are JSON; the sub-agent says how it starts sub-workers */
	IT_EXPECT(json_valid(slurp(fmt("%s/settings.json", cc))));
	IT_EXPECT_CONTAINS(slurp(fmt("%s/settings.json", cc)), "Bash(sbx-subworker:*)");
	IT_EXPECT_CONTAINS(slurp(fmt("%s/agents/test-runner.md", cc)), "name: test-runner\n");
	IT_EXPECT_CONTAINS(slurp(fmt("%s/agents/test-runner.md", cc)), "sbx-subworker");
	/* the real CLI under claude-agent, as far as no login allows */
	it_sbxv(&r, "run", "--profile", "claude-agent", "--", "claude", "--version", NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "claude --version exited %d: %s%s", r.status, r.out,
		        r.err);
	IT_EXPECT_CONTAINS(r.out, "(Claude Code)");
	it_sbxv(&r, "run", "--profile", "claude-agent", "--", "claude", "--help", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "--settings");
	IT_EXPECT_CONTAINS(r.out, "--agents");
	/* through the wrapper, with its settings */
	setenv("SBX_BIN", it_sbx_path(), 1);
	it_exec(&r, (const char *const[]){fmt("%s/sbx-claude", cc), "--version", NULL});
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "sbx-claude --version exited %d: %s%s", r.status, r.out,
		        r.err);
	IT_EXPECT_CONTAINS(r.out, "(Claude Code)");
	/* the wrapper's view: sbx-subworker and sbx on the PATH inside, settings readable */
	sbxdir = strdup(it_sbx_path());
	*strrchr(sbxdir, '/') = '\0';
	it_sbxv(&r, "run", "--profile", "claude-agent", "-v", fmt("%s:ro", cc), "-v",
	        fmt("%s:ro", sbxdir), "--env", fmt("SBX_BIN=%s", it_sbx_path()), "--", "sh", "-c",
	        fmt("mkdir -p sub && cd %s && "
	            /* kept: writable */
	            "%s/sbx-subworker --dir sub -- sh -c 'echo hi > f && echo wrote-kept'; "
	            /* outside what it keeps: not there (its own /tmp is private) */
	            "%s/sbx-subworker --dir sub -- sh -c 'echo x > %s/outside'; "
	            /* --read-only: nothing written */
	            "%s/sbx-subworker --read-only -- sh -c 'echo x > ro-file' 2>/dev/null"
	            " || echo refused-ro; "
	            /* a folder the agent does not see: sbx refuses, 125 */
	            "%s/sbx-subworker --dir /root/.ssh -- true 2>/dev/null; echo nowhere=$?",
	            proj, cc, cc, proj, cc, cc),
	        NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "the sub-workers exited %d: %s%s", r.status, r.out,
		        r.err);
	IT_EXPECT_CONTAINS(r.out, "wrote-kept");
	IT_EXPECT_CONTAINS(r.out, "refused-ro");
	IT_EXPECT_CONTAINS(r.out, "nowhere=125");
	IT_EXPECT(access(fmt("%s/sub/f", proj), F_OK) == 0);
	IT_EXPECT(access(fmt("%s/outside", proj), F_OK) < 0);
	IT_EXPECT(access(fmt("%s/ro-file", proj), F_OK) < 0);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_github_actions),
	    IT_CASE(test_gitlab_ci),
	    IT_CASE(test_pod_without_user_namespaces),
	    IT_CASE(test_claude_code),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
