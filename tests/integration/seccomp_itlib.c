/* SPDX-License-Identifier: MIT */
#include "seccomp_itlib.h"

#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

const char *sc_self(void)
{
	static char path[4096];

	if (!path[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

		if (n <= 0)
			it_fail(__FILE__, __LINE__, "readlink /proc/self/exe: %s", strerror(errno));
		path[n] = '\0';
	}
	return path;
}

const char *sc_self_dir(void)
{
	static char dir[4096];

	if (!dir[0]) {
		char copy[4096];

		snprintf(copy, sizeof(copy), "%s", sc_self());
		snprintf(dir, sizeof(dir), "%s", dirname(copy));
	}
	return dir;
}

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

void sc_run(struct it_run *r, const char *const *argv)
{
	int out[2], err[2], status;
	size_t olen = 0, elen = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		it_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		char *const *av;

		/* execv's prototype predates const; it does not write to the strings. */
		memcpy(&av, &argv, sizeof(av));
		execv(argv[0], av);
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

bool sc_sbx_run_available(void)
{
	static struct it_run r;

	it_sbxv(&r, "run", "--", "/bin/true", NULL);
	if (r.status == 0)
		return true;
	if (r.status == 125 && strstr(r.err, "launch is being written"))
		return false;
	it_fail(__FILE__, __LINE__, "sbx run -- /bin/true exited %d:\n%s", r.status, r.err);
}
