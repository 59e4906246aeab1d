/* SPDX-License-Identifier: MIT */
/*
 * The raw floor of a sandbox launch (bench/launch.sh, bench/README.md): clone the seven
 * namespaces sbx makes (user, mount, pid, ipc, uts, cgroup, net), map the caller's ids to 0
 * inside (the child writes its own maps, as an unprivileged process may for its own ids),
 * exec /bin/true, wait. No mounts, no filter, no checks: what any launcher pays at least.
 * Built static by launch.sh (cc -O2 -static), as sbx is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[64 * 1024];
static unsigned uid, gid;

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		_exit(120);
	close(fd);
}

static int child(void *arg)
{
	char line[64];

	(void)arg;
	snprintf(line, sizeof(line), "0 %u 1\n", uid);
	put("/proc/self/uid_map", line);
	put("/proc/self/setgroups", "deny");
	snprintf(line, sizeof(line), "0 %u 1\n", gid);
	put("/proc/self/gid_map", line);
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

int main(void)
{
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
	            CLONE_NEWCGROUP | CLONE_NEWNET | SIGCHLD;
	pid_t pid;
	int status;

	uid = getuid();
	gid = getgid();
	pid = clone(child, stack + sizeof(stack), flags, NULL);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
