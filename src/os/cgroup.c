/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's cgroup (os/cgroup.h). Every path here is under a cgroup file system's mount,
 * found in /proc/self/mountinfo, and beneath the caller's own cgroup there: sbx never touches
 * a cgroup that is not its caller's, and names what it makes so that it can tell its own.
 */
#include "os/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbx/cleanup.h"

#define CG_PERIOD_US 100000u /* cpu: the quota's period, as systemd's CPUQuota= uses */

/* The controllers of the cgroup limits, in the order of enum sbx_limit. */
static const struct {
	enum sbx_limit limit;
	const char *ctrl;
} controllers[] = {
    {SBX_LIMIT_MEMORY, "memory"},
    {SBX_LIMIT_PIDS, "pids"},
    {SBX_LIMIT_CPU, "cpu"},
};

/* A message that may be cut (why, how): its size is the caller's. */
__attribute__((format(printf, 3, 4))) static void say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* dir/file into out; -ENAMETOOLONG rather than a cut path. */
static int join(char *out, size_t size, const char *dir, const char *file)
{
	int n = snprintf(out, size, "%s/%s", dir, file);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int read_file(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < size) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (int)got;
}

static int write_file(const char *path, const char *s)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		return -errno;
	return 0;
}

static int write_at(const char *dir, const char *file, const char *s)
{
	char path[1024];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	return write_file(path, s);
}

static bool has_token(const char *list, const char *tok, char sep)
{
	size_t n = strlen(tok);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);

		while (len && (p[len - 1] == '\n' || p[len - 1] == ' '))
			len--;
		if (len == n && strncmp(p, tok, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* The caller's cgroup in the hierarchy of `ctrl` (NULL: the v2 one), from /proc/self/cgroup. */
static int own_cgroup(const char *ctrl, char *out, size_t size)
{
	char buf[4096];
	int r = read_file("/proc/self/cgroup", buf, sizeof(buf));

	if (r < 0)
		return r;
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		if (ctrl ? has_token(c1 + 1, ctrl, ',') : (strcmp(line, "0:") == 0 && !c1[1])) {
			snprintf(out, size, "%s", strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
			return 0;
		}
	}
	return -ENOENT;
}

/* The mount point of the hierarchy of `ctrl` (NULL: cgroup2), from /proc/self/mountinfo. */
static int find_mount(const char *ctrl, char *out, size_t size)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char root[1024], point[1024], fstype[64], super[1024];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", root, point) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2)
			continue;
		if (ctrl ? strcmp(fstype, "cgroup") == 0 && has_token(super, ctrl, ',')
		         : strcmp(fstype, "cgroup2") == 0) {
			/* a mount of a subtree (root not "/") is a container's view: its paths in
			 * /proc/self/cgroup are then relative to it already */
			snprintf(out, size, "%s", point);
			return 0;
		}
	}
	return -ENOENT;
}

/* The caller's own cgroup directory in the hierarchy of ctrl (NULL: v2). */
static int own_dir(const char *ctrl, char *out, size_t size)
{
	char mnt[1024], own[1024];
	int r = find_mount(ctrl, mnt, sizeof(mnt));

	if (r >= 0)
		r = own_cgroup(ctrl, own, sizeof(own));
	if (r < 0)
		return r;
	if ((size_t)snprintf(out, size, "%s%s", mnt, own) >= size)
		return -ENAMETOOLONG;
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* SIGKILL every process listed in dir/cgroup.procs; returns how many were listed. */
static int kill_listed(const char *dir)
{
	char path[1024], buf[16384];
	int n = 0;

	if (join(path, sizeof(path), dir, "cgroup.procs") < 0 ||
	    read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	for (char *p = buf; *p;) {
		char *end;
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0 && pid != getpid()) {
			kill((pid_t)pid, SIGKILL);
			n++;
		}
		p = end;
		while (*p == '\n')
			p++;
	}
	return n;
}

static bool is_empty(const char *dir)
{
	char path[1024], buf[64];

	if (join(path, sizeof(path), dir, "cgroup.procs") < 0)
		return true;
	return read_file(path, buf, sizeof(buf)) <= 0 || buf[0] == '\0';
}

/* Kill everything in dir and wait for it to go (at most ~2 s: the killed must only exit),
 * then remove it. */
static void empty_and_remove(const char *dir, bool v2)
{
	for (int i = 0; i < 2000; i++) {
		if (v2 && i == 0 && write_at(dir, "cgroup.kill", "1") == 0) {
			/* the kernel kills them all, forks racing included */
		} else if (!kill_listed(dir) && is_empty(dir)) {
			break;
		}
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		sleep_ms(1);
	}
	(void)rmdir(dir);
}

/* Directories named sbx-PID-... beside where sbx makes its own, whose sbx has ended: a sandbox
 * whose sbx was killed. What is still in one belonged to that sandbox: it is killed. */
static void sweep(const char *parent, bool v2)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid;
		char path[1024];

		if (strncmp(e->d_name, "sbx-", 4) != 0)
			continue;
		pid = strtol(e->d_name + 4, &end, 10);
		if (end == e->d_name + 4 || *end != '-' || pid <= 0 || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* its sbx lives (or is not ours to ask): its own */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) >=
		    sizeof(path))
			continue;
		/* Only an empty one is removed, nothing in it is killed: the pid in its name is
		 * the pid in the pid namespace of the sbx that made it, which may not be this
		 * one's (a live sandbox started from another pid namespace would be killed).
		 * What a dead sbx leaves ends without this: init's pid namespace dies with it,
		 * and the landlock backend's reaper kills all when sbx's pidfd says it died. */
		(void)rmdir(path);
	}
	closedir(d);
}

/* v2: can children of `parent` have the controllers of `want`? Enables them where allowed;
 * where sbx's own process sits in parent alone (a delegated scope it was started in), it first
 * moves into a leaf of its own (the rule: no process in a cgroup that gives controllers to
 * its children), which then is its home. */
static unsigned v2_enable(const char *parent, unsigned want, char *home, size_t home_size,
                          char *why, size_t why_size)
{
	char path[1024], ctl[256], sub[256], add[64];
	unsigned got = 0;

	if (join(path, sizeof(path), parent, "cgroup.controllers") < 0 ||
	    read_file(path, ctl, sizeof(ctl)) < 0) {
		say(why, why_size, "cgroup v2: cannot read %s", path);
		return 0;
	}
	if (join(path, sizeof(path), parent, "cgroup.subtree_control") < 0 ||
	    read_file(path, sub, sizeof(sub)) < 0)
		sub[0] = '\0';
	for (size_t i = 0; i < SBX_ARRAY_SIZE(controllers); i++) {
		const char *c = controllers[i].ctrl;
		int r;

		if (!(want & SBX_LIMIT_BIT(controllers[i].limit)))
			continue;
		if (has_token(sub, c, ' ')) {
			got |= SBX_LIMIT_BIT(controllers[i].limit);
			continue;
		}
		if (!has_token(ctl, c, ' ')) {
			say(why, why_size,
			    "cgroup v2: the %s controller is not available in %s (cgroup2 is "
			    "mounted without it: the host keeps it on cgroup v1, or it was not "
			    "delegated)",
			    c, parent);
			continue;
		}
		snprintf(add, sizeof(add), "+%s", c);
		r = write_file(path, add);
		if (r == -EBUSY && home[0] == '\0') {
			/* sbx is in parent: into a leaf of its own first */
			char leaf[1024];

			snprintf(leaf, sizeof(leaf), "%.500s/sbx-%d-self", parent, (int)getpid());
			if ((mkdir(leaf, 0755) == 0 || errno == EEXIST) &&
			    write_at(leaf, "cgroup.procs", "0") == 0) {
				snprintf(home, home_size, "%s", leaf);
				r = write_file(path, add);
			}
		}
		if (r < 0) {
			say(why, why_size, "cgroup v2: cannot enable the %s controller in %s: %s",
			    c, path, strerror(-r));
			continue;
		}
		got |= SBX_LIMIT_BIT(controllers[i].limit);
	}
	return got;
}

static int set_limits_v2(const char *dir, unsigned want, const struct sbx_limits *lim)
{
	char v[64];
	int r = 0;

	if (want & SBX_LIMIT_BIT(SBX_LIMIT_MEMORY)) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)lim->v[SBX_LIMIT_MEMORY]);
		r = write_at(dir, "memory.max", v);
		/* the limit is of memory, not of memory plus swap: no swapping around it */
		if (r >= 0 && (r = write_at(dir, "memory.swap.max", "0")) == -ENOENT)
			r = 0;
		/* an oom kill takes the whole sandbox, not one process of it */
		if (r >= 0)
			r = write_at(dir, "memory.oom.group", "1");
	}
	if (r >= 0 && (want & SBX_LIMIT_BIT(SBX_LIMIT_PIDS))) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)lim->v[SBX_LIMIT_PIDS]);
		r = write_at(dir, "pids.max", v);
	}
	if (r >= 0 && (want & SBX_LIMIT_BIT(SBX_LIMIT_CPU))) {
		snprintf(v, sizeof(v), "%llu %u",
		         (unsigned long long)lim->v[SBX_LIMIT_CPU] * (CG_PERIOD_US / 1000),
		         CG_PERIOD_US);
		r = write_at(dir, "cpu.max", v);
	}
	return r;
}

static int set_limit_v1(const char *dir, enum sbx_limit l, const struct sbx_limits *lim)
{
	char v[64];
	int r;

	switch (l) {
	case SBX_LIMIT_MEMORY:
		snprintf(v, sizeof(v), "%llu", (unsigned long long)lim->v[l]);
		r = write_at(dir, "memory.limit_in_bytes", v);
		/* memory plus swap at the same: no swapping around the limit (absent without
		 * swap accounting) */
		if (r >= 0 && (r = write_at(dir, "memory.memsw.limit_in_bytes", v)) == -ENOENT)
			r = 0;
		return r;
	case SBX_LIMIT_PIDS:
		snprintf(v, sizeof(v), "%llu", (unsigned long long)lim->v[l]);
		return write_at(dir, "pids.max", v);
	case SBX_LIMIT_CPU:
		snprintf(v, sizeof(v), "%u", CG_PERIOD_US);
		r = write_at(dir, "cpu.cfs_period_us", v);
		snprintf(v, sizeof(v), "%llu",
		         (unsigned long long)lim->v[l] * (CG_PERIOD_US / 1000));
		return r < 0 ? r : write_at(dir, "cpu.cfs_quota_us", v);
	default:
		return -EINVAL;
	}
}

/* v1: an eventfd the memory controller signals on oom (cgroup-v1/memory.rst, 10. OOM
 * Control). */
static int v1_oom_eventfd(const char *dir)
{
	char path[1024], line[64];
	_cleanup_close_ int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	_cleanup_close_ int ofd = -1;

	if (efd < 0)
		return -errno;
	if (join(path, sizeof(path), dir, "memory.oom_control") < 0)
		return -ENAMETOOLONG;
	ofd = open(path, O_RDONLY | O_CLOEXEC);
	if (ofd < 0)
		return -errno;
	snprintf(line, sizeof(line), "%d %d", efd, ofd);
	if (write_at(dir, "cgroup.event_control", line) < 0)
		return -errno;
	return TAKE_FD(efd);
}

static struct sbx_cgroup *cg_new(const char *id)
{
	struct sbx_cgroup *cg = calloc(1, sizeof(*cg));

	if (!cg)
		return NULL;
	cg->oom_fd = -1;
	cg->memory_dir = -1;
	snprintf(cg->name, sizeof(cg->name), "sbx-%d-%.16s", (int)getpid(), id && *id ? id : "x");
	return cg;
}

static int try_v2(struct sbx_cgroup *cg, unsigned want, const struct sbx_limits *lim, char *why,
                  size_t why_size)
{
	char parent[1024], home[1024] = "", dir[1024];
	unsigned got;

	if (own_dir(NULL, parent, sizeof(parent)) < 0) {
		say(why, why_size, "cgroup v2: not mounted");
		return 0;
	}
	sweep(parent, true);
	/* with no controller wanted, a bare cgroup: to end the sandbox whole */
	got = want ? v2_enable(parent, want, home, sizeof(home), why, why_size) : 0;
	if (want && !got)
		return 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", parent, cg->name) >= sizeof(cg->dir[0]))
		return 0;
	if (mkdir(dir, 0755) < 0) {
		say(why, why_size, "cgroup v2: cannot make a cgroup in %s: %s", parent,
		    strerror(errno));
		return 0;
	}
	if (set_limits_v2(dir, got, lim) < 0) {
		say(why, why_size, "cgroup v2: cannot set the limits in %s: %s", dir,
		    strerror(errno));
		rmdir(dir);
		return 0;
	}
	cg->version = 2;
	cg->n_dirs = 1;
	snprintf(cg->dir[0], sizeof(cg->dir[0]), "%s", dir);
	snprintf(cg->home[0], sizeof(cg->home[0]), "%s", home[0] ? home : parent);
	if (got & SBX_LIMIT_BIT(SBX_LIMIT_MEMORY))
		cg->memory_dir = 0;
	return (int)got;
}

static unsigned try_v1(struct sbx_cgroup *cg, unsigned want, const struct sbx_limits *lim,
                       char *why, size_t why_size)
{
	unsigned got = 0;

	for (size_t i = 0; i < SBX_ARRAY_SIZE(controllers); i++) {
		enum sbx_limit l = controllers[i].limit;
		char parent[1024], dir[1024];
		int r;

		/* with no controller wanted, a bare cgroup in the first hierarchy there is */
		if (!(want & SBX_LIMIT_BIT(l)) && (want || cg->n_dirs))
			continue;
		if (own_dir(controllers[i].ctrl, parent, sizeof(parent)) < 0) {
			say(why, why_size, "cgroup v1: no %s hierarchy is mounted",
			    controllers[i].ctrl);
			continue;
		}
		if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", parent, cg->name) >=
		    sizeof(cg->dir[0]))
			continue;
		sweep(parent, false);
		if (mkdir(dir, 0755) < 0) {
			say(why, why_size, "cgroup v1: cannot make a cgroup in %s: %s", parent,
			    strerror(errno));
			continue;
		}
		r = want ? set_limit_v1(dir, l, lim) : 0;
		if (r < 0) {
			say(why, why_size, "cgroup v1: cannot set the %s limit in %s: %s",
			    controllers[i].ctrl, dir, strerror(-r));
			rmdir(dir);
			continue;
		}
		/* v1 has no oom.group: the kernel's oom killer would take one process and let the
		 * rest run on (a shell would print its next line). With the killer off, a task
		 * that hits the limit waits (killable) and the event wakes sbx, which kills the
		 * whole sandbox at once (sbx_cgroup_on_oom). */
		if (l == SBX_LIMIT_MEMORY && want && r >= 0)
			r = write_at(dir, "memory.oom_control", "1");
		if (r < 0) {
			say(why, why_size, "cgroup v1: cannot take over the oom kills in %s: %s",
			    dir, strerror(-r));
			rmdir(dir);
			continue;
		}
		if (l == SBX_LIMIT_MEMORY && want) {
			int fd = v1_oom_eventfd(dir);

			if (fd < 0) {
				say(why, why_size,
				    "cgroup v1: cannot watch the memory controller's oom kills "
				    "in %s: %s",
				    dir, strerror(-fd));
				rmdir(dir);
				continue;
			}
			cg->oom_fd = fd;
			cg->memory_dir = (int)cg->n_dirs;
		}
		snprintf(cg->dir[cg->n_dirs], sizeof(cg->dir[0]), "%s", dir);
		snprintf(cg->home[cg->n_dirs], sizeof(cg->home[0]), "%s", parent);
		cg->n_dirs++;
		got |= want & SBX_LIMIT_BIT(l);
	}
	if (cg->n_dirs)
		cg->version = 1;
	return got;
}

int sbx_cgroup_create(unsigned want, const struct sbx_limits *lim, const char *id,
                      struct sbx_cgroup **out, unsigned *got_out, struct sbx_error *err)
{
	struct sbx_cgroup *cg = cg_new(id);
	char why2[512] = "", why1[512] = "", missing[64] = "";
	unsigned got;
	int r;

	*out = NULL;
	*got_out = 0;
	if (!cg)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	want &= SBX_LIMITS_CGROUP;
	/* v2 first, where it can give all that is wanted; else v1, per controller */
	got = (unsigned)try_v2(cg, want, lim, why2, sizeof(why2));
	if (got != want && cg->n_dirs) {
		sbx_cgroup_destroy(cg);
		cg = cg_new(id);
		if (!cg)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		got = 0;
	}
	if (!cg->n_dirs)
		got = try_v1(cg, want, lim, why1, sizeof(why1));
	cg->enforces = got;
	cg->memory = lim->v[SBX_LIMIT_MEMORY];
	*got_out = got;
	if (got == want && cg->n_dirs) {
		*out = cg;
		return 0;
	}
	if (!want) {
		/* a bare cgroup: none to be had */
		sbx_cgroup_destroy(cg);
		return sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP, "sbx can have no cgroup here (%s%s%s)",
		    why2[0] ? why2 : "cgroup v2: unavailable", why1[0] ? "; " : "", why1);
	}
	for (int l = 0; l < SBX_LIMIT_COUNT; l++)
		if ((want & ~got) & SBX_LIMIT_BIT(l))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
			         "%s%s", missing[0] ? ", " : "", sbx_limit_table[l].name);
	r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
	                  "cannot enforce limit %s: sbx can have no cgroup with its controller "
	                  "here (%s%s%s)",
	                  missing, why2[0] ? why2 : "cgroup v2: unavailable", why1[0] ? "; " : "",
	                  why1);
	sbx_error_hint(err,
	               "run sbx as root, or inside a delegated cgroup (systemd-run --user --scope "
	               "-p Delegate=yes sbx run ...); or drop the limit; or pass --best-effort to "
	               "run without it (sbx doctor says what this host can enforce)");
	if (got)
		*out = cg;
	else
		sbx_cgroup_destroy(cg);
	return r;
}

int sbx_cgroup_enter(struct sbx_cgroup *cg, struct sbx_error *err)
{
	for (size_t i = 0; cg && i < cg->n_dirs; i++) {
		int r = write_at(cg->dir[i], "cgroup.procs", "0");

		if (r < 0) {
			sbx_cgroup_leave(cg);
			return sbx_error_set(err, SBX_ERR_SETUP, -r,
			                     "cannot move into the sandbox's cgroup %s: %s",
			                     cg->dir[i], strerror(-r));
		}
	}
	return 0;
}

void sbx_cgroup_leave(struct sbx_cgroup *cg)
{
	for (size_t i = 0; cg && i < cg->n_dirs; i++)
		(void)write_at(cg->home[i], "cgroup.procs", "0");
}

void sbx_cgroup_kill(struct sbx_cgroup *cg)
{
	if (!cg || !cg->n_dirs)
		return;
	if (cg->version == 2 && write_at(cg->dir[0], "cgroup.kill", "1") == 0)
		return;
	/* v1 (or a v2 before 5.14): each listed process; what it forked meanwhile is listed next
	 * round, and a killed process forks no more */
	for (int round = 0; round < 64; round++) {
		int n = 0;

		for (size_t i = 0; i < cg->n_dirs; i++)
			n += kill_listed(cg->dir[i]);
		if (!n)
			return;
	}
}

int sbx_cgroup_oom_fd(const struct sbx_cgroup *cg)
{
	return cg ? cg->oom_fd : -1;
}

void sbx_cgroup_on_oom(struct sbx_cgroup *cg)
{
	uint64_t n;

	if (!cg || cg->oom_fd < 0 || read(cg->oom_fd, &n, sizeof(n)) != sizeof(n))
		return; /* nothing to read: not an oom event */
	/* v1, its oom killer off (try_v1): a task hit the limit and waits; the whole sandbox
	 * goes, and that is the memory limit's kill */
	cg->oom_killed = true;
	sbx_cgroup_kill(cg);
}

bool sbx_cgroup_oom_seen(struct sbx_cgroup *cg)
{
	char path[1024], buf[1024];
	const char *p;

	if (!cg || cg->memory_dir < 0)
		return false;
	snprintf(path, sizeof(path), "%s/%s", cg->dir[cg->memory_dir],
	         cg->version == 2 ? "memory.events" : "memory.oom_control");
	if (read_file(path, buf, sizeof(buf)) < 0)
		return cg->oom_killed;
	for (p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "oom_kill ", 9) == 0 && strtoull(p + 9, NULL, 10) > 0)
			cg->oom_killed = true;
	return cg->oom_killed;
}

void sbx_cgroup_destroy(struct sbx_cgroup *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->n_dirs; i++)
		empty_and_remove(cg->dir[i], cg->version == 2);
	if (cg->oom_fd >= 0)
		close(cg->oom_fd);
	free(cg);
}

void sbx_cgroup_probe(struct sbx_cgroup_facts *f)
{
	struct sbx_limits lim = {.set = SBX_LIMITS_CGROUP};
	struct sbx_cgroup *cg = NULL;
	struct sbx_error err = {0};
	unsigned got = 0;

	memset(f, 0, sizeof(*f));
	/* values that any host takes; nothing joins the cgroup, which is removed at once */
	lim.v[SBX_LIMIT_MEMORY] = 1ull << 30;
	lim.v[SBX_LIMIT_PIDS] = 1024;
	lim.v[SBX_LIMIT_CPU] = 1000;
	if (sbx_cgroup_create(SBX_LIMITS_CGROUP, &lim, "probe", &cg, &got, &err) < 0)
		say(f->why_not, sizeof(f->why_not), "%s", err.msg);
	f->can = got;
	if (cg) {
		f->version = cg->version;
		say(f->how, sizeof(f->how), "cgroup v%d beneath %s", cg->version, cg->home[0]);
	}
	sbx_cgroup_destroy(cg);
}
