/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IT_EXIT_SKIP    77
#define IT_CASE_TIMEOUT 120

static char case_tmpdir[4096];

const char *it_sbx_path(void)
{
	const char *p = getenv("SBX");

	return p && *p ? p : "sbx";
}

bool it_is_root(void)
{
	return geteuid() == 0;
}

void it_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	_exit(1);
}

void it_skip(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    skipped: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	_exit(IT_EXIT_SKIP);
}

const char *it_tmpdir(void)
{
	if (!case_tmpdir[0]) {
		const char *base = getenv("TMPDIR");

		snprintf(case_tmpdir, sizeof(case_tmpdir), "%s/sbx-it.XXXXXX",
		         base && *base ? base : "/tmp");
		if (!mkdtemp(case_tmpdir))
			it_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		chmod(case_tmpdir, 0755);
	}
	return case_tmpdir;
}

static void mkparents(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
}

void it_write_file(const char *path, const char *content)
{
	FILE *f;

	mkparents(path);
	f = fopen(path, "w");
	if (!f)
		it_fail(__FILE__, __LINE__, "cannot write %s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
}

/* Read what is there into buf (kept NUL-terminated, excess discarded); false at EOF. */
static bool drain(int fd, char *buf, size_t size, size_t *len)
{
	char junk[4096];
	ssize_t n;

	if (*len + 1 < size)
		n = read(fd, buf + *len, size - 1 - *len);
	else
		n = read(fd, junk, sizeof(junk));
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	if (*len + 1 < size) {
		*len += (size_t)n;
		buf[*len] = '\0';
	}
	return true;
}

void it_sbx(struct it_run *r, const char *const *args)
{
	int out[2], err[2];
	size_t olen = 0, elen = 0;
	int n = 0, status;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		it_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
	while (args[n])
		n++;
	pid = fork();
	if (pid < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (pid == 0) {
		char **argv = calloc((size_t)n + 2, sizeof(*argv));
		int devnull = open("/dev/null", O_RDONLY);

		argv[0] = strdup(it_sbx_path());
		for (int i = 0; i < n; i++)
			argv[i + 1] = strdup(args[i]);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	{
		struct pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
		char *bufs[2] = {r->out, r->err};
		size_t *lens[2] = {&olen, &elen};

		while (p[0].fd >= 0 || p[1].fd >= 0) {
			if (poll(p, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < 2; i++) {
				if (p[i].fd < 0 || !p[i].revents)
					continue;
				if (!drain(p[i].fd, bufs[i], sizeof(r->out), lens[i])) {
					close(p[i].fd);
					p[i].fd = -1;
				}
			}
		}
	}
	if (waitpid(pid, &status, 0) < 0)
		it_fail(__FILE__, __LINE__, "waitpid: %s", strerror(errno));
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void it_sbxv(struct it_run *r, ...)
{
	const char *args[256];
	size_t n = 0;
	va_list ap;

	va_start(ap, r);
	while (n + 1 < sizeof(args) / sizeof(args[0]) && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	it_sbx(r, args);
}

void it_sh(struct it_run *r, const char *script, ...)
{
	const char *args[256];
	size_t n = 0;
	va_list ap;

	args[n++] = "run";
	va_start(ap, script);
	while (n + 5 < sizeof(args) / sizeof(args[0]) && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n++] = "--";
	args[n++] = "/bin/sh";
	args[n++] = "-c";
	args[n++] = script;
	args[n] = NULL;
	it_sbx(r, args);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		chmod(path, 0700);
	remove(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int it_main(int argc, char **argv, const struct it_case *cases, size_t n)
{
	unsigned passed = 0, failed = 0, skipped = 0;
	const char *filter = argc > 1 ? argv[1] : NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# %s as uid %u, sbx = %s\n", argv[0], (unsigned)geteuid(), it_sbx_path());
	for (size_t i = 0; i < n; i++) {
		int status;
		pid_t pid;
		time_t start = time(NULL);

		if (filter && !strstr(cases[i].name, filter))
			continue;
		snprintf(case_tmpdir, sizeof(case_tmpdir), "%s", "");
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			setpgid(0, 0);
			alarm(IT_CASE_TIMEOUT);
			cases[i].fn();
			fflush(stdout);
			if (case_tmpdir[0])
				remove_tree(case_tmpdir);
			_exit(0);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		/* A case's own leftovers (a sandbox it started) go with it. */
		kill(-pid, SIGKILL);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok      %s (%lds)\n", cases[i].name, (long)(time(NULL) - start));
			passed++;
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == IT_EXIT_SKIP) {
			printf("skip    %s\n", cases[i].name);
			skipped++;
		} else {
			printf("FAILED  %s (%s %d)\n", cases[i].name,
			       WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			failed++;
		}
	}
	printf("%u passed, %u failed, %u skipped\n", passed, failed, skipped);
	if (failed)
		return 1;
	if (passed == 0 && skipped > 0)
		return IT_EXIT_SKIP;
	return 0;
}
