/* SPDX-License-Identifier: MIT */
/*
 * `sbx run` as people use it: exit statuses, signals, dying with sbx, the mount model
 * (same paths, root mode, longest target, tmpfs, devices), network modes, --chdir, --env,
 * --readonly, and --dry-run without privilege.
 */
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#include <stdarg.h>

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

static void test_exit_statuses(void)
{
	static const struct {
		const char *script;
		int status;
	} cases[] = {
	    {"exit 0", 0},
	    {"exit 7", 7},
	    {"exit 255", 255},
	    {"kill -TERM $$", 128 + SIGTERM},
	    {"kill -KILL $$", 128 + SIGKILL},
	    {"kill -SEGV $$", 128 + SIGSEGV},
	};
	struct it_run r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		it_sbxv(&r, "run", "--", "/bin/sh", "-c", cases[i].script, NULL);
		IT_EXPECT_INT(r.status, cases[i].status);
	}
	it_sbxv(&r, "run", "--", "no-such-command-sbx", NULL);
	IT_EXPECT_INT(r.status, 127);
	IT_EXPECT_CONTAINS(r.err, "no-such-command-sbx: command not found in the sandbox");
	it_sbxv(&r, "run", "--", "/etc/passwd", NULL);
	IT_EXPECT_INT(r.status, 126);
	IT_EXPECT_CONTAINS(r.err, "/etc/passwd: cannot execute");
	it_sbxv(&r, "run", "--bogus", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "unknown option '--bogus'");
	it_sbxv(&r, "run", "-v", "/nonexistent/sbx-source", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "mount source /nonexistent/sbx-source does not exist");
	it_sbxv(&r, "run", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "needs a command");
}

/* Start `sbx run -v DIR -- sh -c SCRIPT` in the background; wait for DIR/ready. */
static pid_t start_background(const char *dir, const char *script)
{
	char *ready = it_path(dir, "ready");
	pid_t pid = fork();

	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(devnull, 0);
		dup2(devnull, 1);
		execl(it_sbx_path(), "sbx", "run", "-v", dir, "--", "/bin/sh", "-c", script,
		      (char *)NULL);
		_exit(99);
	}
	for (int i = 0; i < 500 && access(ready, F_OK) < 0; i++)
		usleep(10000);
	IT_EXPECT(access(ready, F_OK) == 0);
	return pid;
}

static void test_signals_reach_the_worker(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2};
	const char *t = it_tmpdir();

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char script[1024], got[64] = "";
		int status;
		pid_t pid;
		FILE *f;

		unlink(it_path(t, "ready"));
		snprintf(script, sizeof(script),
		         "trap 'echo %d > %s/got; exit 3' %d; touch %s/ready; "
		         "while :; do sleep 0.05; done",
		         sigs[i], t, sigs[i], t);
		pid = start_background(t, script);
		IT_EXPECT_INT(kill(pid, sigs[i]), 0);
		IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
		IT_EXPECT(WIFEXITED(status));
		IT_EXPECT_INT(WEXITSTATUS(status), 3);
		f = fopen(it_path(t, "got"), "r");
		IT_EXPECT(f != NULL);
		IT_EXPECT(fgets(got, sizeof(got), f) != NULL);
		fclose(f);
		IT_EXPECT_INT(atoi(got), sigs[i]);
	}
}

static bool process_gone(pid_t pid)
{
	char path[64], state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fscanf(f, "%*d %*s %c", &state) != 1)
		state = '?';
	fclose(f);
	return state == 'Z' || state == 'X';
}

static void test_worker_dies_with_sbx(void)
{
	const char *t = it_tmpdir();
	pid_t pid, kids[8];
	int n = 0, status;
	char path[64], line[256];
	FILE *f;

	/* Orphans come to us, so that we can see them die rather than lose sight of them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	{
		char script[4300];

		snprintf(script, sizeof(script), "sleep 60 & touch %s/ready; sleep 60; wait", t);
		pid = start_background(t, script);
	}
	/* sbx's child is the sandbox's init; its children are the worker and its own. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	IT_EXPECT(f != NULL);
	IT_EXPECT(fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	kids[n++] = (pid_t)atoi(line);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)kids[0], (int)kids[0]);
	f = fopen(path, "r");
	if (f) {
		for (char *p = fgets(line, sizeof(line), f) ? line : NULL; p && *p && n < 8;) {
			kids[n++] = (pid_t)strtol(p, &p, 10);
			while (*p == ' ')
				p++;
			if (*p == '\n')
				break;
		}
		fclose(f);
	}
	IT_EXPECT(n >= 2);
	IT_EXPECT_INT(kill(pid, SIGKILL), 0);
	IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
	for (int i = 0; i < 300; i++) {
		bool all = true;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		for (int k = 0; k < n; k++)
			all = all && process_gone(kids[k]);
		if (all)
			return;
		usleep(10000);
	}
	it_fail(__FILE__, __LINE__, "the sandbox outlived sbx by 3 seconds");
}

static void test_dev_proc_tmp(void)
{
	struct it_run r;

	it_sbxv(&r, "run", "--", "/bin/sh", "-c",
	        "ls /dev | tr '\\n' ' '; echo; test -c /dev/null && echo x > /dev/null && "
	        "head -c 4 /dev/zero | wc -c; test -d /dev/pts && test -c /dev/pts/ptmx && "
	        "echo pts; test -d /dev/shm && touch /dev/shm/x && echo shm; touch /tmp/t && "
	        "echo tmp; echo self=$(cut -d' ' -f1 /proc/self/stat) "
	        "procs=$(ls /proc | grep -c '^[0-9]'); "
	        "touch /newfile 2>/dev/null || echo root-sealed; "
	        "touch /dev/newdev 2>/dev/null || echo dev-sealed",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "full null ptmx pts random shm stderr stdin stdout tty urandom "
	                          "zero");
	IT_EXPECT_CONTAINS(r.out, "\n4\npts\nshm\ntmp\n");
	/* A fresh /proc of the sandbox's pid namespace holds sbx's init, the shell and what it
	 * runs (cut, ls, grep): a handful of low pids. The host's /proc would show every process
	 * of the machine, and pids far above the sandbox's own. */
	{
		const char *s = strstr(r.out, "self=");
		int self = -1, procs = -1;

		IT_EXPECT(s && sscanf(s, "self=%d procs=%d", &self, &procs) == 2);
		if (self < 2 || self > 16 || procs < 2 || procs > 16)
			it_fail(__FILE__, __LINE__,
			        "/proc is not the sandbox's own: cut was pid %d and %d "
			        "processes are listed",
			        self, procs);
	}
	IT_EXPECT_CONTAINS(r.out, "root-sealed\ndev-sealed\n");
}

static void test_same_paths_and_longest_target(void)
{
	const char *t = it_tmpdir();
	char v1[4200], v2[4200];
	struct it_run r;

	it_write_file(it_path(t, "a/file"), "from a\n");
	it_write_file(it_path(t, "a/sub/file"), "a's sub, hidden\n");
	it_write_file(it_path(t, "b/file"), "from b\n");
	snprintf(v1, sizeof(v1), "%s:/data", it_path(t, "a"));
	snprintf(v2, sizeof(v2), "%s:/data/sub:ro", it_path(t, "b"));
	it_sbxv(&r, "run", "-v", v1, "-v", v2, "-v", it_path(t, "a"), "--", "/bin/sh", "-c",
	        "cat /data/file /data/sub/file; cat $0/a/file; echo x > /data/sub/new || echo ro",
	        t, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "from a\nfrom b\nfrom a\nro\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "hidden");
}

static void test_root_mode(void)
{
	const char *t = it_tmpdir();
	char cache[4200];
	struct it_run r;

	/* The mount-model seed's example: DIR seen at /, a cache overlaid at /cache. */
	it_write_file(it_path(t, "project/src/app.ts"), "app\n");
	it_write_file(it_path(t, "project/README.md"), "readme\n");
	it_write_file(it_path(t, "cache/npm/pkg"), "pkg\n");
	snprintf(cache, sizeof(cache), "%s:/cache:ro", it_path(t, "cache"));
	it_sbxv(&r, "run", "--root", it_path(t, "project"), "-v", cache, "--", "/bin/sh", "-c",
	        "cat /src/app.ts /README.md /cache/npm/pkg; echo more >> /src/app.ts && "
	        "echo wrote; echo x > /cache/new || echo cache-ro; ls -d /usr >/dev/null && "
	        "echo system",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "app\nreadme\npkg\nwrote\ncache-ro\nsystem\n");
	/* the write went through to the host; nothing else appeared there */
	IT_EXPECT(access(it_path(t, "project/cache"), F_OK) < 0);
	IT_EXPECT(access(it_path(t, "project/usr"), F_OK) < 0);
	{
		FILE *f = fopen(it_path(t, "project/src/app.ts"), "r");
		char buf[64] = "";

		IT_EXPECT(f && fread(buf, 1, sizeof(buf) - 1, f) > 0);
		fclose(f);
		IT_EXPECT_CONTAINS(buf, "app\nmore\n");
	}
	/* read-only root */
	it_sbxv(&r, "run", "--root", it_path(t, "project"), "--readonly", "--", "/bin/sh", "-c",
	        "echo x >> /src/app.ts || echo refused", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "refused");
}

static void test_tmpfs_mounts(void)
{
	struct it_run r;

	it_sbxv(&r, "run", "--mount", "type=tmpfs,target=/scratch", "--mount",
	        "type=tmpfs,target=/empty,readonly", "--", "/bin/sh", "-c",
	        "echo hi > /scratch/f && cat /scratch/f; touch /empty/f || echo empty-ro", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "hi\n");
	IT_EXPECT_CONTAINS(r.out, "empty-ro\n");
}

static void test_default_workspace_and_chdir(void)
{
	const char *t = it_tmpdir();
	struct it_run r;

	it_write_file(it_path(t, "proj/file"), "in project\n");
	IT_EXPECT_INT(chdir(it_path(t, "proj")), 0);
	it_sbxv(&r, "run", "--", "/bin/sh", "-c", "pwd; cat file; echo w > written; ls $HOME",
	        NULL);
	IT_EXPECT_INT(r.status, 0); /* the home is there: a private tmpfs (it_everyday.c) */
	IT_EXPECT_CONTAINS(r.out, it_path(t, "proj\nin project\n"));
	IT_EXPECT(access(it_path(t, "proj/written"), F_OK) == 0);
	/* --workspace names the workspace; --chdir the directory inside */
	IT_EXPECT_INT(chdir("/"), 0);
	it_sbxv(&r, "run", "--workspace", it_path(t, "proj"), "--chdir", "/tmp", "--", "/bin/sh",
	        "-c", "pwd; cat $0/file", it_path(t, "proj"), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "/tmp\nin project\n");
	/* explicit -v replaces the default workspace */
	IT_EXPECT_INT(chdir(it_path(t, "proj")), 0);
	it_sbxv(&r, "run", "-v", "/usr/share/doc:ro", "--", "/bin/sh", "-c", "pwd; ls file", NULL);
	IT_EXPECT(r.status != 0);
	IT_EXPECT_CONTAINS(r.out, "/\n");
	/* ... and says so in one line, since the working directory falls back to / */
	IT_EXPECT_CONTAINS(r.err, "the working directory is /; name one with -w DIR\n");
	/* --readonly: no writes to the workspace, while /tmp stays scratch */
	it_sbxv(&r, "run", "--readonly", "--", "/bin/sh", "-c",
	        "echo x > file2 || echo ws-ro; echo y > /tmp/s && echo tmp-ok", NULL);
	IT_EXPECT_CONTAINS(r.out, "ws-ro\ntmp-ok\n");
	IT_EXPECT(access(it_path(t, "proj/file2"), F_OK) < 0);
}

static void test_network_modes(void)
{
	struct it_run r;
	const char *py = "import socket\n"
	                 "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
	                 "c = socket.create_connection(s.getsockname()); a, _ = s.accept()\n"
	                 "c.sendall(b'loop'); print(a.recv(4).decode())\n";

	if (access("/usr/bin/python3", X_OK) < 0)
		it_fail(__FILE__, __LINE__, "no /usr/bin/python3: scripts/setup.sh installs it");
	it_sbxv(&r, "run", "--", "/bin/sh", "-c", "cat /proc/net/dev | tail -n +3 | cut -d: -f1",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "lo\n");
	{
		/* only loopback: exactly one interface line */
		int lines = 0;
		for (const char *p = r.out; *p; p++)
			lines += *p == '\n';
		IT_EXPECT_INT(lines, 1);
	}
	it_sbxv(&r, "run", "--", "/usr/bin/python3", "-c", py, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "loop\n");
	it_sbxv(&r, "run", "--net", "host", "--", "/bin/sh", "-c",
	        "cat /proc/net/dev | tail -n +3 | wc -l", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(atoi(r.out) >= 1);
	{
		FILE *f = fopen("/proc/net/dev", "r");
		char line[512];
		int host_lines = -2;

		while (f && fgets(line, sizeof(line), f))
			host_lines++;
		if (f)
			fclose(f);
		IT_EXPECT_INT(atoi(r.out), host_lines);
	}
	it_sbxv(&r, "run", "--net", "bridge", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "--net none");
}

static void test_devices(void)
{
	const char *node = "/dev/sbx-it-null";
	struct it_run r;

	if (!it_is_root()) {
		/* Without privilege we cannot make a node; check one is bound as a device. */
		if (access("/dev/net/tun", F_OK) < 0)
			it_skip("no /dev/net/tun to bind as a user");
		it_sbxv(&r, "run", "--device", "/dev/net/tun", "--", "/bin/sh", "-c",
		        "test -c /dev/net/tun && echo char", NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "char\n");
		it_sbxv(&r, "run", "--", "/bin/sh", "-c", "test -e /dev/net/tun || echo absent",
		        NULL);
		IT_EXPECT_CONTAINS(r.out, "absent\n");
		return;
	}
	unlink(node);
	IT_EXPECT_INT(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	chmod(node, 0666);
	it_sbxv(&r, "run", "--device", node, "--", "/bin/sh", "-c",
	        "echo x > /dev/sbx-it-null && echo usable", NULL);
	unlink(node);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "usable\n");
	it_sbxv(&r, "run", "--device", "/etc/passwd", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "not a path under /dev");
}

static void test_dry_run_needs_no_namespace(void)
{
	struct it_run r;
	int fd;

	/* A user namespace in which no further user namespace may be made. */
	if (unshare(CLONE_NEWUSER) < 0)
		it_skip("cannot make a user namespace to test in: %s", strerror(errno));
	fd = open("/proc/sys/user/max_user_namespaces", O_WRONLY);
	if (fd < 0 || write(fd, "0", 1) != 1)
		it_skip("cannot lower user.max_user_namespaces in a user namespace here");
	close(fd);
	it_sbxv(&r, "run", "--backend", "namespaces", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "operations (in order):");
	it_sbxv(&r, "run", "--backend", "namespaces", "--dry-run", "--json", "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"operations\":[");
	/* and the real thing explains itself in one line */
	it_sbxv(&r, "run", "--backend", "namespaces", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "user.max_user_namespaces is 0");
	IT_EXPECT_CONTAINS(r.err, "sysctl -w user.max_user_namespaces");
	/* auto falls back to the landlock backend, where --net none (the default) is compiled
	 * stricter rather than refused, and --dry-run says so */
	it_sbxv(&r, "run", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "backend:    landlock");
	IT_EXPECT_CONTAINS(r.out, "STRICTER: --net none");
	/* and says why it chose that backend when that one refuses */
	it_sbxv(&r, "run", "--dry-run", "--root", "/", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "user.max_user_namespaces is 0, so sbx chose the landlock "
	                          "backend");
}

static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * --backend auto falls back to the landlock backend only where namespaces are off by
 * configuration. A quota used up by other processes is a passing shortage: the kernel says
 * ENOSPC as it does for user.max_user_namespaces = 0, and sbx must tell the two apart by the
 * sysctl and refuse. The limit is per user namespace: in one of our own (with our ids mapped,
 * so that namespaces can be made in it) the limit is lowered to 1 and a child holds that one;
 * then the same namespace with the limit at 0 is "off", and falls back.
 */
static void test_auto_refuses_on_a_used_up_quota(void)
{
	char map[64], c = 0;
	int ready[2], hold[2];
	unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
	struct it_run r;
	pid_t holder;

	if (unshare(CLONE_NEWUSER) < 0)
		it_skip("cannot make a user namespace to test in: %s", strerror(errno));
	snprintf(map, sizeof(map), "%u %u 1", uid, uid);
	IT_EXPECT_INT(write_proc("/proc/self/uid_map", map), 0);
	IT_EXPECT_INT(write_proc("/proc/self/setgroups", "deny"), 0);
	snprintf(map, sizeof(map), "%u %u 1", gid, gid);
	IT_EXPECT_INT(write_proc("/proc/self/gid_map", map), 0);
	if (write_proc("/proc/sys/user/max_user_namespaces", "1") < 0)
		it_skip("cannot lower user.max_user_namespaces in a user namespace here");
	IT_EXPECT_INT(pipe2(ready, O_CLOEXEC), 0);
	IT_EXPECT_INT(pipe2(hold, O_CLOEXEC), 0);
	holder = fork();
	IT_EXPECT(holder >= 0);
	if (holder == 0) {
		/* the one namespace the quota allows, held until the test closes the pipe */
		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	IT_EXPECT_INT(read(ready[0], &c, 1), 1);
	/* the quota is used up: nothing more can be made, and that is not "off" */
	IT_EXPECT_INT(unshare(CLONE_NEWUSER), -1);
	IT_EXPECT_INT(errno, ENOSPC);

	it_sbxv(&r, "run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "a namespace quota is used up (ENOSPC; user.max_user_namespaces "
	                          "is 1 and not 0");
	IT_EXPECT_CONTAINS(r.err, "end other sandboxes or containers of this user");
	IT_EXPECT_NOT_CONTAINS(r.err, "running with the landlock backend");
	/* one line */
	IT_EXPECT(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
	it_sbxv(&r, "run", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "a namespace quota is used up");
	IT_EXPECT_NOT_CONTAINS(r.out, "backend:    landlock");
	/* asked for by name, the landlock backend still runs */
	it_sbxv(&r, "run", "--backend", "landlock", "--net", "host", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);

	/* the same namespace, off by configuration: auto falls back, and says why */
	IT_EXPECT_INT(write_proc("/proc/sys/user/max_user_namespaces", "0"), 0);
	it_sbxv(&r, "run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "user.max_user_namespaces is 0; running with the landlock "
	                          "backend");
	close(hold[1]);
	IT_EXPECT_INT(waitpid(holder, NULL, 0), holder);
}

static void test_a_thousand_mounts(void)
{
	const char *t = it_tmpdir();
	const char **args = calloc(2100, sizeof(*args));
	struct it_run r;
	size_t n = 0;

	IT_EXPECT(args != NULL);
	args[n++] = "run";
	for (int i = 0; i < 1000; i++) {
		char name[32];
		char *dir, *vol;

		snprintf(name, sizeof(name), "d%04d", i);
		dir = it_path(t, name);
		IT_EXPECT_INT(mkdir(dir, 0755), 0);
		if (asprintf(&vol, "%s:/m/%s:ro", dir, name) < 0)
			it_fail(__FILE__, __LINE__, "oom");
		args[n++] = "-v";
		args[n++] = vol;
	}
	args[n++] = "--";
	args[n++] = "/bin/sh";
	args[n++] = "-c";
	args[n++] = "ls /m | wc -l; grep -c ' /m/' /proc/self/mountinfo";
	args[n] = NULL;
	it_sbx(&r, args);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "1000\n1000\n");
}

static long read_counter(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static void test_job_control_stops_and_continues(void)
{
	const char *t = it_tmpdir();
	char script[4400], state[256] = "";
	char *counter = it_path(t, "n");
	long a, b, c;
	int status;
	pid_t pid;
	FILE *f;

	snprintf(script, sizeof(script),
	         "i=0; touch %s/ready; while :; do i=$((i+1)); echo $i > %s.new; mv %s.new %s; "
	         "sleep 0.02; done",
	         t, counter, counter, counter);
	pid = start_background(t, script);
	for (int i = 0; i < 500 && read_counter(counter) < 1; i++)
		usleep(10000);
	IT_EXPECT(read_counter(counter) >= 1);
	IT_EXPECT_INT(kill(pid, SIGTSTP), 0); /* what ^Z sends */
	/* Poll rather than sleep a fixed time: the machine may be loaded. */
	for (int i = 0; i < 250 && !strstr(state, "T (stopped)"); i++) {
		char path[64];

		usleep(20000);
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		f = fopen(path, "r");
		while (f && fgets(state, sizeof(state), f) && strncmp(state, "State:", 6) != 0)
			;
		if (f)
			fclose(f);
	}
	IT_EXPECT_CONTAINS(state, "T (stopped)");
	/* the worker stops too: the counter settles, then stays */
	a = read_counter(counter);
	for (int i = 0; i < 25; i++) {
		usleep(200000);
		b = read_counter(counter);
		if (b == a)
			break;
		a = b;
	}
	usleep(300000);
	b = read_counter(counter);
	IT_EXPECT(a > 0);
	IT_EXPECT_INT(b, a);
	IT_EXPECT_INT(kill(pid, SIGCONT), 0);
	c = b;
	for (int i = 0; i < 250 && c <= b; i++) {
		usleep(20000);
		c = read_counter(counter);
	}
	IT_EXPECT(c > b); /* and runs again */
	IT_EXPECT_INT(kill(pid, SIGTERM), 0);
	IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
}

static void test_root_mode_with_its_own_etc(void)
{
	const char *t = it_tmpdir();
	struct it_run r;

	/* A project with an etc/ of its own: system /etc files give way rather than being
	 * mounted into it (which would mean creating files on the host). */
	it_write_file(it_path(t, "proj/etc/app.conf"), "conf\n");
	it_sbxv(&r, "run", "--root", it_path(t, "proj"), "--", "/bin/sh", "-c",
	        "cat /etc/app.conf; ls /etc | wc -l", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "conf\n1\n");
	IT_EXPECT(access(it_path(t, "proj/etc/passwd"), F_OK) < 0);
}

static void test_exec_errors_name_the_cause(void)
{
	struct it_run r;

	/* the loader (/lib64 -> usr/lib64) is not mounted: found, but cannot start */
	it_sbxv(&r, "run", "--no-system-mounts", "-v", "/usr:ro", "--", "/usr/bin/true", NULL);
	IT_EXPECT_INT(r.status, 127);
	IT_EXPECT_CONTAINS(r.err, "dynamic loader or #! interpreter is not in the sandbox");
	it_sbxv(&r, "run", "--device", "/dev/shm", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "--device /dev/shm is not a device node");
}

/* No byte of what sbx prints may be one a terminal acts on. */
static void expect_no_control_bytes(const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			it_fail(__FILE__, __LINE__, "%s holds the byte 0x%02x at %zu:\n%s", what,
			        *p, (size_t)((const char *)p - s), s);
}

/*
 * A worker names a directory "x<ESC>]52;c;...<BEL><ESC>]0;PWNED<BEL>" (a clipboard write and a
 * window title, OSC 52 and OSC 0) and another "y<newline>z", each holding a .env. The next
 * `sbx run --hide DIR/.../.env` launches, hides both (EACCES), and nothing sbx prints about
 * them (the plan, JSON, check, resolve, an error, a note) carries a control byte. Under both
 * backends.
 */
static void planted_names(const char *backend)
{
	static const char osc[] = "x\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07";
	const char *t = it_tmpdir();
	char *ws = it_path(t, "ws"), *dir = it_path(ws, osc), *nl = it_path(ws, "y\nz");
	char *env = it_path(dir, ".env"), *nlenv = it_path(nl, ".env");
	char *glob = it_path(ws, "**/.env");
	struct it_run r;

	it_write_file(it_path(ws, "keep"), "k\n");
	{
		/* the worker plants them */
		const char *opts[] = {"-v", ws, NULL};
		const char *cmd[] = {"@probe", "--probe", "mkdir",  dir,   "create", env,
		                     "mkdir",  nl,        "create", nlenv, NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT(access(env, F_OK) == 0 && access(nlenv, F_OK) == 0);
	}
	{
		const char *opts[] = {"--backend", backend,  "--net", "host", "-v",
		                      ws,          "--hide", glob,    NULL};
		const char *cmd[] = {"@probe", "--probe", "read", env,    "write",
		                     env,      "read",    nlenv,  "read", it_path(ws, "keep"),
		                     NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		expect_no_control_bytes("sbx's stderr", r.err);
		/* the worker's own output is its own: it names the files as they are */
		IT_EXPECT_CONTAINS(r.out, fmt("read %s => EACCES", env));
		IT_EXPECT_CONTAINS(r.out, fmt("write %s => EACCES", env));
		IT_EXPECT_CONTAINS(r.out, fmt("read %s => EACCES", nlenv));
		IT_EXPECT_CONTAINS(r.out, fmt("read %s/keep => ok", ws));
	}
	/* the plan, as text and JSON */
	it_sbxv(&r, "run", "--backend", backend, "--net", "host", "-v", ws, "--hide", glob, "--env",
	        "TITLE=\x1b]0;PWNED\x07", "--dry-run", "--", "/bin/true", osc, NULL);
	IT_EXPECT_INT(r.status, 0);
	expect_no_control_bytes("--dry-run", r.out);
	expect_no_control_bytes("--dry-run's stderr", r.err);
	IT_EXPECT_CONTAINS(r.out, "/x\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED\\x07/.env");
	IT_EXPECT_CONTAINS(r.out, "/y\\x0az/.env");
	IT_EXPECT_CONTAINS(r.out, "TITLE=\\x1b]0;PWNED\\x07");
	it_sbxv(&r, "run", "--backend", backend, "--net", "host", "-v", ws, "--hide", glob,
	        "--dry-run", "--json", "--", "/bin/true", osc, NULL);
	IT_EXPECT_INT(r.status, 0);
	expect_no_control_bytes("--dry-run --json", r.out);
	IT_EXPECT_CONTAINS(r.out, "/x\\u001b]52;c;cHduZWQ=\\u0007\\u001b]0;PWNED\\u0007/.env\"");
	IT_EXPECT_CONTAINS(r.out, "/y\\nz/.env\"");
	/* sbx status inside, which lists the hidden paths */
	{
		char sbxdir[4096], *slash;
		const char *cmd[] = {it_sbx_path(), "status", NULL};
		const char *jcmd[] = {it_sbx_path(), "status", "--json", NULL};

		snprintf(sbxdir, sizeof(sbxdir), "%s", it_sbx_path());
		slash = strrchr(sbxdir, '/');
		if (slash)
			*slash = '\0';
		const char *opts[] = {"--backend", backend, "--net", "host",
		                      "-v",        ws,      "-v",    fmt("%s:ro", sbxdir),
		                      "--hide",    glob,    NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		expect_no_control_bytes("status", r.out);
		IT_EXPECT_CONTAINS(r.out, "/x\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED\\x07/.env");
		it_run_in(&r, opts, jcmd);
		IT_EXPECT_INT(r.status, 0);
		expect_no_control_bytes("status --json", r.out);
		IT_EXPECT_CONTAINS(r.out, "/y\\nz/.env\"");
	}
	/* check and resolve, and an error naming the path */
	it_sbxv(&r, "check", "read", env, NULL);
	expect_no_control_bytes("check", r.out);
	expect_no_control_bytes("check's stderr", r.err);
	IT_EXPECT_CONTAINS(r.out, "/x\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED\\x07/.env");
	it_sbxv(&r, "resolve", env, nlenv, NULL);
	expect_no_control_bytes("resolve", r.out);
	IT_EXPECT_CONTAINS(r.out, "/y\\x0az/.env");
	it_sbxv(&r, "run", "-v", it_path(dir, "missing"), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	expect_no_control_bytes("an error", r.err);
	IT_EXPECT_CONTAINS(r.err, "\\x1b]0;PWNED\\x07/missing");
	it_sbxv(&r, "run", "--net", osc, "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	expect_no_control_bytes("a usage error", r.err);
}

static void test_planted_names_are_escaped_and_hidden(void)
{
	planted_names("namespaces");
}

static void test_planted_names_are_escaped_and_hidden_landlock(void)
{
	planted_names("landlock");
}

/* A hide glob under --root is walked in the root too (it was walked in bind mounts only). */
/*
 * The early namespaces (os/launch.h) are an optimisation only: where a step of them cannot be
 * taken, the launch clones as before and the sandbox is the same. Each case stops one step
 * with a seccomp filter on this process, which sbx inherits (EPERM): the early child's proof of
 * its capabilities (an unshare of a uts namespace, as under AppArmor's restriction), the
 * vfork child's setns, and its clone of init (after init's go byte is in the pipe, which sbx
 * must take back for the init that clone then makes).
 */
static void early_step_denied(int nr, unsigned arg, uint64_t mask)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	struct it_run r;

	IT_EXPECT(f != NULL);
	if (mask)
		IT_EXPECT_INT(seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 1,
		                               SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, mask)),
		              0);
	else
		IT_EXPECT_INT(seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 0), 0);
	IT_EXPECT_INT(seccomp_load(f), 0);
	seccomp_release(f);
	it_sbxv(&r, "run", "--", "/bin/sh", "-c",
	        "id -u; cat /proc/self/uid_map; cat /proc/net/if_inet6; echo pid $$", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "pid 2\n");
	IT_EXPECT_CONTAINS(r.out, " lo\n"); /* loopback up */
	if (it_is_root())
		IT_EXPECT_CONTAINS(r.out, "0\n"); /* root inside, a range outside */
	/* and with --net host (a user namespace only, early) */
	it_sbxv(&r, "run", "--net", "host", "--", "/bin/sh", "-c", "echo pid $$", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "pid 2\n");
}

static void test_early_namespaces_fall_back_proof(void)
{
	early_step_denied(SCMP_SYS(unshare), 0, CLONE_NEWUTS);
}

static void test_early_namespaces_fall_back_setns(void)
{
	early_step_denied(SCMP_SYS(setns), 0, 0);
}

static void test_early_namespaces_fall_back_clone(void)
{
	early_step_denied(SCMP_SYS(clone), 0, CLONE_PARENT);
}

/* The early namespaces follow the plan's network however it was asked for: one made before
 * the profile was read is left unused where the profile (or the last --net) asks for the
 * host's, and one is made at clone where the options said host and then none. */
static void test_early_namespaces_follow_the_network(void)
{
	const char *t = it_tmpdir();
	static const char *const hosts[][2] = {{"--net", "host"},
	                                       {"--network", "host"},
	                                       {"--net=host", NULL},
	                                       {"--network=host", NULL}};
	char host_ns[64] = "";
	struct it_run r;
	ssize_t n = readlink("/proc/self/ns/net", host_ns, sizeof(host_ns) - 1);

	IT_EXPECT(n > 0);
	it_write_file(it_path(t, "hostnet.yaml"), "version: 1\nnetwork: host\n");
	/* the profile asks for the host's network, which nothing on the command line says */
	it_sbxv(&r, "run", "--profile", it_path(t, "hostnet.yaml"), "--", "readlink",
	        "/proc/self/ns/net", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, host_ns);
	/* ... and the last --net outweighs it: a namespace of its own */
	it_sbxv(&r, "run", "--profile", it_path(t, "hostnet.yaml"), "--net", "none", "--",
	        "readlink", "/proc/self/ns/net", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(strstr(r.out, "net:[") && !strstr(r.out, host_ns));
	/* every spelling of host; each then followed by --net none is none (made at clone, as
	 * the early child did not, with loopback up) */
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		for (int then_none = 0; then_none < 2; then_none++) {
			const char *argv[16] = {"run"};
			size_t k = 1;

			for (size_t j = 0; j < 2 && hosts[i][j]; j++)
				argv[k++] = hosts[i][j];
			if (then_none) {
				argv[k++] = "--net";
				argv[k++] = "none";
			}
			argv[k++] = "--";
			argv[k++] = "/bin/sh";
			argv[k++] = "-c";
			argv[k++] =
			    "readlink /proc/self/ns/net; tail -n +3 /proc/net/dev | cut -d: -f1; "
			    "cat /proc/net/if_inet6 2>/dev/null | grep -c '^0*1 .* lo$'";
			argv[k] = NULL;
			it_sbx(&r, argv);
			IT_EXPECT_INT(r.status, 0);
			if (then_none)
				IT_EXPECT_NOT_CONTAINS(r.out, host_ns);
			else
				IT_EXPECT_CONTAINS(r.out, host_ns);
			if (then_none) {
				/* the namespace's line, loopback's alone, and loopback up (::1 is
				 * on it; where the host has IPv6) */
				int lines = 0;

				for (const char *c = r.out; *c; c++)
					lines += *c == '\n';
				IT_EXPECT_INT(lines, 3);
				IT_EXPECT_CONTAINS(r.out, " lo\n");
				if (access("/proc/net/if_inet6", R_OK) == 0)
					IT_EXPECT_CONTAINS(r.out, " lo\n1\n");
			}
		}
	}
}

/* The sandbox's /etc/resolv.conf names sbx's resolver where it has one (a file sbx writes in
 * its sealed scaffold, or binds from a tmpfs of its own over a --root's): read-only whoever
 * the worker is; under --net host, the host's. */
static void test_resolv_conf(void)
{
	const char *t = it_tmpdir();
	const char *probe =
	    "cat /etc/resolv.conf; echo x >>/etc/resolv.conf && echo WROTE; "
	    "chmod 666 /etc/resolv.conf 2>/dev/null && echo CHMOD; "
	    "mv /etc/resolv.conf /etc/r 2>/dev/null && echo MOVED; "
	    "rm -f /etc/resolv.conf 2>/dev/null; test -e /etc/resolv.conf && echo KEPT";
	char host[4096] = "";
	struct it_run r;
	FILE *f = fopen("/etc/resolv.conf", "r");

	if (!f)
		it_fail(__FILE__, __LINE__, "this host has no /etc/resolv.conf to replace");
	IT_EXPECT(fread(host, 1, sizeof(host) - 1, f) > 0);
	fclose(f);
	for (int allow = 0; allow < 2; allow++) {
		it_sbxv(&r, "run", "--net", allow ? "allow:example.test" : "none", "--", "/bin/sh",
		        "-c", probe, NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out,
		                   "# sbx: the sandbox's resolver (sbx(1), NETWORK)\n"
		                   "nameserver 127.0.0.1\noptions timeout:2 attempts:1\nKEPT\n");
		IT_EXPECT_NOT_CONTAINS(r.out, "WROTE");
		IT_EXPECT_NOT_CONTAINS(r.out, "CHMOD");
		IT_EXPECT_NOT_CONTAINS(r.out, "MOVED");
	}
	it_sbxv(&r, "run", "--net", "host", "--", "cat", "/etc/resolv.conf", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(strcmp(r.out, host) == 0);
	/* hidden, it cannot be opened: no file of sbx's shows through the mask (an attack's
	 * finding: sbx's resolver file was bound over it) */
	it_sbxv(&r, "run", "--hide", "/etc/resolv.conf", "--", "/bin/sh", "-c",
	        "cat /etc/resolv.conf || echo DENIED", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "DENIED\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "nameserver");
	/* a file the user mounts there is theirs */
	it_write_file(it_path(t, "mine.conf"), "nameserver 192.0.2.7\n");
	it_sbxv(&r, "run", "-v", fmt("%s:/etc/resolv.conf:ro", it_path(t, "mine.conf")), "--",
	        "cat", "/etc/resolv.conf", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(strcmp(r.out, "nameserver 192.0.2.7\n") == 0);
	/* the landlock backend has no resolver of sbx's: its plan says the host's file */
	it_sbxv(&r, "run", "--backend", "landlock", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "naming sbx's resolver");
	/* a --root's own /etc/resolv.conf: sbx's file bound over it, read-only; the root's
	 * file untouched */
	it_write_file(it_path(t, "root/etc/resolv.conf"), "nameserver 192.0.2.1\n");
	it_sbxv(&r, "run", "--root", it_path(t, "root"), "-v", "/usr:ro", "--", "/usr/bin/sh", "-c",
	        probe, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "nameserver 127.0.0.1\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "192.0.2.1");
	IT_EXPECT_NOT_CONTAINS(r.out, "WROTE");
	IT_EXPECT_NOT_CONTAINS(r.out, "CHMOD");
	{
		char kept[64] = "";
		FILE *rf = fopen(it_path(t, "root/etc/resolv.conf"), "r");

		IT_EXPECT(rf != NULL);
		if (rf) {
			IT_EXPECT(fread(kept, 1, sizeof(kept) - 1, rf) > 0);
			fclose(rf);
		}
		IT_EXPECT(strcmp(kept, "nameserver 192.0.2.1\n") == 0);
	}
}

/* sbx's own binary and a --device may sit beneath a directory only their owner may search (a
 * 0750 home, a 0700 /dev subdirectory): as root, sbx clones those sources itself, init (an
 * unprivileged id on the host) only the system mounts' (an attack's finding: a root launch
 * from such a directory was refused, "cannot open mount source ... Permission denied"). */
static void test_sources_beneath_private_dirs(void)
{
	const char *t = it_tmpdir();
	const char *dir = it_path(t, "priv");
	const char *copy = it_path(dir, "sbx");
	char cmd[8192];
	struct it_run r;

	IT_EXPECT_INT(mkdir(dir, 0700), 0);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 700 '%s'", it_sbx_path(), copy, copy);
	IT_EXPECT_INT(system(cmd), 0);
	{
		const char *argv[] = {copy, "run", "--", "/bin/sh", "-c", "echo ran", NULL};

		it_exec(&r, argv);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ran\n");
	if (geteuid() != 0)
		return; /* a device node to bind needs root to make */
	{
		/* --device takes a path under /dev: a directory of the test's own there, removed
		 * at the end */
		char ddir[] = "/dev/sbx-it.XXXXXX";
		char node[64];

		IT_EXPECT(mkdtemp(ddir) != NULL);
		snprintf(node, sizeof(node), "%s/null", ddir);
		IT_EXPECT_INT(chmod(ddir, 0700), 0);
		IT_EXPECT_INT(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
		IT_EXPECT_INT(chmod(node, 0666), 0);
		it_sbxv(&r, "run", "--device", node, "--", "/bin/sh", "-c",
		        fmt("echo x >'%s' && echo wrote", node), NULL);
		unlink(node);
		rmdir(ddir);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "wrote\n");
	}
}

static void test_hide_glob_in_root(void)
{
	const char *t = it_tmpdir();
	struct it_run r;

	it_write_file(it_path(t, "proj/a/.env"), "TOKEN=root-secret\n");
	it_write_file(it_path(t, "proj/a/file"), "visible\n");
	it_sbxv(&r, "run", "--root", it_path(t, "proj"), "--hide", "/**/.env", "--", "/bin/sh",
	        "-c", "cat /a/.env 2>/dev/null || echo denied; cat /a/file", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "denied\nvisible\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "root-secret");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_exit_statuses),
	    IT_CASE(test_signals_reach_the_worker),
	    IT_CASE(test_worker_dies_with_sbx),
	    IT_CASE(test_dev_proc_tmp),
	    IT_CASE(test_same_paths_and_longest_target),
	    IT_CASE(test_root_mode),
	    IT_CASE(test_tmpfs_mounts),
	    IT_CASE(test_default_workspace_and_chdir),
	    IT_CASE(test_network_modes),
	    IT_CASE(test_devices),
	    IT_CASE(test_dry_run_needs_no_namespace),
	    IT_CASE(test_auto_refuses_on_a_used_up_quota),
	    IT_CASE(test_a_thousand_mounts),
	    IT_CASE(test_job_control_stops_and_continues),
	    IT_CASE(test_root_mode_with_its_own_etc),
	    IT_CASE(test_exec_errors_name_the_cause),
	    IT_CASE(test_planted_names_are_escaped_and_hidden),
	    IT_CASE(test_planted_names_are_escaped_and_hidden_landlock),
	    IT_CASE(test_hide_glob_in_root),
	    IT_CASE(test_early_namespaces_fall_back_proof),
	    IT_CASE(test_early_namespaces_fall_back_setns),
	    IT_CASE(test_early_namespaces_follow_the_network),
	    IT_CASE(test_resolv_conf),
	    IT_CASE(test_sources_beneath_private_dirs),
	    IT_CASE(test_early_namespaces_fall_back_clone),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
