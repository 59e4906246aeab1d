/* SPDX-License-Identifier: MIT */
/*
 * What this kernel and system allow, for `sbx doctor`: facts only, gathered without
 * privilege and without changing anything (each probe is a call that fails harmlessly).
 */
#include "os/sysprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sbx/probe.h"
#include "os/landlock.h"
#include "os/userns.h"

#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif

/* The first line of a file, or "" (and false) if it cannot be read. */
static bool read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return n >= 0;
}

static long read_num(const char *path, bool *ok)
{
	char buf[64];

	*ok = read_line(path, buf, sizeof(buf)) && buf[0];
	return *ok ? strtol(buf, NULL, 10) : -1;
}

/* A field of /proc/self/status ("Seccomp:"), or -1. */
static long status_field(const char *name)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, strlen(name)) == 0) {
			v = strtol(line + strlen(name), NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static bool file_contains(const char *path, const char *needle)
{
	char buf[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Like file_contains, over the whole file (/proc/cpuinfo is longer than one read). */
static bool file_contains_all(const char *path, const char *needle)
{
	char line[4096];
	FILE *fp = fopen(path, "re");
	bool found = false;

	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp))
		found = strstr(line, needle) != NULL;
	fclose(fp);
	return found;
}

/* The engine a cgroup file's paths name, or "". */
static void cgroup_engine(const char *path, char *out, size_t size)
{
	static const char *const engines[] = {"kubepods", "docker", "containerd", "libpod", "lxc"};

	for (size_t i = 0; !out[0] && i < sizeof(engines) / sizeof(engines[0]); i++)
		if (file_contains(path, engines[i]))
			snprintf(out, size, "%s", engines[i]);
}

static void gather_container(struct sbx_container_facts *c)
{
	char buf[8192], comm[64];
	int fd;
	ssize_t n;

	memset(c, 0, sizeof(*c));
	c->dockerenv = access("/.dockerenv", F_OK) == 0;
	c->containerenv = access("/run/.containerenv", F_OK) == 0;
	c->k8s_secrets = access("/var/run/secrets/kubernetes.io", F_OK) == 0;
	/* container= in pid 1's environment: readable by root, or by the same user */
	fd = open("/proc/1/environ", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	c->pid1_environ_readable = n >= 0;
	for (ssize_t i = 0; n > 0 && i < n;) {
		buf[n] = '\0';
		if (strncmp(buf + i, "container=", 10) == 0) {
			snprintf(c->pid1_container, sizeof(c->pid1_container), "%s", buf + i + 10);
			break;
		}
		i += (ssize_t)strlen(buf + i) + 1;
	}
	cgroup_engine("/proc/1/cgroup", c->cgroup_engine, sizeof(c->cgroup_engine));
	cgroup_engine("/proc/self/cgroup", c->cgroup_engine, sizeof(c->cgroup_engine));
	c->kthreadd_visible =
	    read_line("/proc/2/comm", comm, sizeof(comm)) && strcmp(comm, "kthreadd") == 0;
	/* the type of / from our mountinfo: the line whose mount point is "/" */
	{
		FILE *fp = fopen("/proc/self/mountinfo", "re");
		char line[4096];

		while (fp && fgets(line, sizeof(line), fp)) {
			char root[512], point[512], fstype[32];
			const char *dash = strstr(line, " - ");

			if (!dash || sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2 ||
			    strcmp(point, "/") != 0 || sscanf(dash + 3, "%31s", fstype) != 1)
				continue;
			snprintf(c->root_fs, sizeof(c->root_fs), "%s", fstype);
		}
		if (fp)
			fclose(fp);
	}
}

void sbx_probe_origin(struct sbx_origin_facts *f)
{
	const char *sbx = getenv("SBX");

	f->sbx_env = sbx && strcmp(sbx, "1") == 0;
	f->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	f->seccomp_mode = (int)status_field("Seccomp:");
}

void sbx_probe_system(struct sbx_system_facts *f)
{
	struct sbx_container_facts c;
	struct utsname u;
	char buf[1024];
	bool ok;

	memset(f, 0, sizeof(*f));
	if (uname(&u) == 0)
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	f->euid = geteuid();

	f->userns_errno = -sbx_userns_probe();
	f->max_user_namespaces = read_num("/proc/sys/user/max_user_namespaces", &ok);
	f->proc_sys_readable = ok;
	f->apparmor_restrict =
	    read_num("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", &ok);
	f->unprivileged_userns_clone = read_num("/proc/sys/kernel/unprivileged_userns_clone", &ok);
	f->seccomp_mode = status_field("Seccomp:");
	f->nnp = status_field("NoNewPrivs:");

	f->landlock_abi = sbx_landlock_abi();
	f->seccomp_user_notif =
	    file_contains("/proc/sys/kernel/seccomp/actions_avail", "user_notif");
	f->seccomp_actions_known =
	    read_line("/proc/sys/kernel/seccomp/actions_avail", buf, sizeof(buf));

	/* The new mount API: with bad arguments, a kernel that has the call says EBADF or
	 * EINVAL, one without it ENOSYS. */
	f->mount_api = syscall(__NR_mount_setattr, -1, "", 0, NULL, 0) < 0 && errno != ENOSYS &&
	               syscall(__NR_open_tree, -1, "", 0) < 0 && errno != ENOSYS;

	f->cgroup2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
	if (read_line("/proc/self/cgroup", buf, sizeof(buf)) && strncmp(buf, "0::", 3) == 0) {
		snprintf(f->cgroup, sizeof(f->cgroup), "%.*s", (int)sizeof(f->cgroup) - 1, buf + 3);
		snprintf(buf, sizeof(buf), "/sys/fs/cgroup%s/cgroup.subtree_control",
		         strcmp(f->cgroup, "/") == 0 ? "" : f->cgroup);
		f->cgroup_delegated = f->cgroup2 && access(buf, W_OK) == 0;
	}

	gather_container(&c);
	sbx_container_decide(&c, f->container, sizeof(f->container), f->container_note,
	                     sizeof(f->container_note));
	f->hypervisor = file_contains_all("/proc/cpuinfo", " hypervisor");
	f->wsl = file_contains("/proc/sys/kernel/osrelease", "microsoft") ||
	         file_contains("/proc/sys/kernel/osrelease", "WSL");
}
