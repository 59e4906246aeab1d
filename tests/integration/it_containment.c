/* SPDX-License-Identifier: MIT */
/*
 * Containment: a worker tries to get out, and must fail. Each case builds its own host
 * tree under a fresh temporary directory and starts real sandboxes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <poll.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "harness.h"

/* A host tree: DIR/secret/key, DIR/ws/file (workspace), DIR/ro/file and DIR/ro/dir/. */
static const char *make_tree(void)
{
	const char *t = it_tmpdir();

	it_write_file(it_path(t, "secret/key"), "host secret\n");
	it_write_file(it_path(t, "ws/file"), "workspace\n");
	it_write_file(it_path(t, "ro/file"), "read-only\n");
	it_write_file(it_path(t, "ro/dir/inner"), "inner\n");
	return t;
}

static void test_secret_outside_mounts_is_absent(void)
{
	const char *t = make_tree();
	/* no home: a host path outside the mounts (it_everyday.c: the home has nothing of the
	 * caller's but ~/.gitconfig) */
	const char *opts[] = {"-v", it_path(t, "ws"), "--home", "none", NULL};
	const char *cmd[] = {"@probe", "--probe",
	                     "read",   it_path(t, "secret/key"),
	                     "ls",     it_path(t, "secret"),
	                     "stat",   it_path(t, "secret"),
	                     "read",   it_path(t, "ws/file"),
	                     "ls",     "/root",
	                     "ls",     "/home",
	                     NULL};
	struct it_run r;

	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "read ");
	IT_EXPECT_CONTAINS(r.out, "secret/key => ENOENT");
	IT_EXPECT_CONTAINS(r.out, "secret => ENOENT\nstat");
	IT_EXPECT_CONTAINS(r.out, "ws/file => ok");
	IT_EXPECT_CONTAINS(r.out, "ls /root => ENOENT");
}

static void expect_all_refused(const char *out, const char *const *ops)
{
	for (; *ops; ops++) {
		char want[512];

		snprintf(want, sizeof(want), "%s => ok", *ops);
		IT_EXPECT_NOT_CONTAINS(out, want);
	}
}

static void run_readonly_ops(const char *ro, const char *const *opts)
{
	const char *cmd[] = {"@probe",
	                     "--probe",
	                     "create",
	                     it_path(ro, "new"),
	                     "write",
	                     it_path(ro, "file"),
	                     "unlink",
	                     it_path(ro, "file"),
	                     "rename",
	                     it_path(ro, "file"),
	                     it_path(ro, "moved"),
	                     "chmod",
	                     it_path(ro, "file"),
	                     "truncate",
	                     it_path(ro, "file"),
	                     "link",
	                     it_path(ro, "file"),
	                     it_path(ro, "hard"),
	                     "mkdir",
	                     it_path(ro, "newdir"),
	                     "rmdir",
	                     it_path(ro, "dir"),
	                     "symlink",
	                     "/etc",
	                     it_path(ro, "sym"),
	                     "read",
	                     it_path(ro, "file"),
	                     NULL};
	static const char *const ops[] = {"create", "write",    "unlink", "rename",
	                                  "chmod",  "truncate", "link",   "mkdir",
	                                  "rmdir",  "symlink",  NULL};
	struct it_run r;
	FILE *f;
	char buf[64] = "";

	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "file => ok"); /* the read at the end */
	expect_all_refused(r.out, ops);
	IT_EXPECT_CONTAINS(r.out, "create ");
	IT_EXPECT_CONTAINS(r.out, "new => EROFS");
	IT_EXPECT_CONTAINS(r.out, "truncate ");
	f = fopen(it_path(ro, "file"), "r");
	IT_EXPECT(f != NULL);
	IT_EXPECT(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	IT_EXPECT(strstr(buf, "read-only") || strstr(buf, "sub"));
	IT_EXPECT(access(it_path(ro, "new"), F_OK) < 0);
}

static void test_readonly_refuses_every_write(void)
{
	const char *t = make_tree();
	char vol[4200];
	const char *opts[] = {"-v", vol, NULL};

	snprintf(vol, sizeof(vol), "%s:ro", it_path(t, "ro"));
	run_readonly_ops(it_path(t, "ro"), opts);
}

/* Enter a private mount namespace (as a user, with a user namespace mapping our own ids,
 * so that sbx still runs unprivileged) and mount a tmpfs on DIR/ro/sub. */
static void host_submount(const char *dir)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int fd;

	if (it_is_root()) {
		IT_EXPECT_INT(unshare(CLONE_NEWNS), 0);
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			it_skip("unprivileged user namespaces are not available (%s)",
			        strerror(errno));
		fd = open("/proc/self/setgroups", O_WRONLY);
		IT_EXPECT(fd >= 0 && write(fd, "deny", 4) == 4);
		close(fd);
		snprintf(map, sizeof(map), "%u %u 1", uid, uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		IT_EXPECT(fd >= 0 && write(fd, map, strlen(map)) == (ssize_t)strlen(map));
		close(fd);
		snprintf(map, sizeof(map), "%u %u 1", gid, gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		IT_EXPECT(fd >= 0 && write(fd, map, strlen(map)) == (ssize_t)strlen(map));
		close(fd);
	}
	IT_EXPECT_INT(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	IT_EXPECT_INT(mount("tmpfs", dir, "tmpfs", 0, "mode=0755"), 0);
	it_write_file(it_path(dir, "file"), "sub\n");
	mkdir(it_path(dir, "dir"), 0755);
}

static void test_readonly_covers_host_submounts(void)
{
	const char *t = make_tree();
	const char *sub = it_path(t, "ro/sub");
	char vol[4200];
	const char *opts[] = {"-v", vol, NULL};

	mkdir(sub, 0755);
	host_submount(sub);
	snprintf(vol, sizeof(vol), "%s:ro", it_path(t, "ro"));
	run_readonly_ops(sub, opts);
}

static void test_readonly_cannot_be_undone(void)
{
	const char *t = make_tree();
	const char *ro = it_path(t, "ro");
	char vol[4200];
	const char *opts[] = {"-v", vol, "-v", it_path(t, "ws"), NULL};
	const char *cmd[] = {"@probe",
	                     "--probe",
	                     "remount-rw",
	                     ro,
	                     "setattr-rw",
	                     ro,
	                     "open-tree-rw",
	                     ro,
	                     "umount",
	                     ro,
	                     "umount",
	                     "/proc/sys",
	                     "nested",
	                     "remount-rw",
	                     ro,
	                     "setattr-rw",
	                     ro,
	                     "open-tree-rw",
	                     ro,
	                     "umount",
	                     ro,
	                     "umount",
	                     "/proc/sys",
	                     "umount",
	                     it_path(t, "ws"),
	                     "write",
	                     it_path(ro, "file"),
	                     "create",
	                     it_path(ro, "new"),
	                     "ls",
	                     it_path(t, "ws"),
	                     NULL};
	static const char *const ops[] = {
	    "remount-rw", "setattr-rw", "open-tree-rw", "umount", "write", "create", NULL};
	struct it_run r;

	snprintf(vol, sizeof(vol), "%s:ro", ro);
	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	/* Whether a nested user namespace may be made is seccomp's business; either way,
	 * nothing below may succeed. */
	IT_EXPECT_CONTAINS(r.out, "nested => ");
	expect_all_refused(r.out, ops);
	IT_EXPECT_CONTAINS(r.out, "ws => ok 1"); /* the workspace is still the workspace */
	IT_EXPECT(access(it_path(ro, "new"), F_OK) < 0);
}

static void test_planted_symlinks_do_not_redirect(void)
{
	const char *t = make_tree();
	const char *ws = it_path(t, "ws");
	char vol[4200];
	struct it_run r;

	/* An earlier worker with write access planted symlinks in the workspace. */
	IT_EXPECT_INT(symlink(it_path(t, "secret"), it_path(ws, "dotgit")), 0);
	IT_EXPECT_INT(symlink(it_path(t, "secret"), it_path(ws, "sub")), 0);

	/* 1. As a mount source: refused, never followed to the secret. */
	snprintf(vol, sizeof(vol), "%s:ro", it_path(ws, "dotgit"));
	it_sbxv(&r, "run", "-v", ws, "-v", vol, "--", "/bin/cat", it_path(ws, "dotgit/key"), NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "symlink");
	IT_EXPECT_NOT_CONTAINS(r.out, "host secret");

	/* 2. As a mount target inside a writable mount: refused, nothing mounted over the
	 * secret and nothing created there. */
	snprintf(vol, sizeof(vol), "%s:%s", it_path(t, "ro"), it_path(ws, "sub/inner"));
	it_sbxv(&r, "run", "-v", ws, "-v", vol, "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "symlink");
	IT_EXPECT(access(it_path(t, "secret/inner"), F_OK) < 0);

	/* 3. As the workspace path itself. */
	it_sbxv(&r, "run", "-v", it_path(ws, "sub"), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
}

/* ---- a digest of a host tree: names, types, modes, sizes, mtimes and contents ---- */
static uint64_t tree_hash;

static int hash_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	uint64_t h = tree_hash ^ 1469598103934665603ULL;
	char buf[4096];

	(void)flag;
	(void)ftw;
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ st->st_mode) * 1099511628211ULL;
	h = (h ^ (uint64_t)st->st_size) * 1099511628211ULL;
	h = (h ^ (uint64_t)st->st_mtim.tv_sec) * 1099511628211ULL;
	h = (h ^ (uint64_t)st->st_mtim.tv_nsec) * 1099511628211ULL;
	if (S_ISREG(st->st_mode)) {
		int fd = open(path, O_RDONLY);
		ssize_t n;

		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			for (ssize_t i = 0; i < n; i++)
				h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
		if (fd >= 0)
			close(fd);
	}
	tree_hash = h;
	return 0;
}

static uint64_t hash_tree(const char *dir)
{
	tree_hash = 0;
	IT_EXPECT_INT(nftw(dir, hash_one, 32, FTW_PHYS), 0);
	return tree_hash;
}

static void test_host_tree_unchanged(void)
{
	const char *t = make_tree();
	char vol1[4200], vol2[4200], vol3[4200];
	uint64_t before, after;
	struct it_run r;

	IT_EXPECT_INT(mkdir(it_path(t, "ws/deep"), 0755), 0);
	before = hash_tree(t);
	/* Mounts nested in each other, a read-only one inside a writable one, the root mode,
	 * and a worker that writes nothing. */
	snprintf(vol1, sizeof(vol1), "%s:%s:ro", it_path(t, "ro"), it_path(t, "ws/deep"));
	snprintf(vol2, sizeof(vol2), "%s:/cache:ro", it_path(t, "ro"));
	snprintf(vol3, sizeof(vol3), "%s:/a/b/c", it_path(t, "ro/dir"));
	it_sbxv(&r, "run", "-v", it_path(t, "ws"), "-v", vol1, "-v", vol2, "-v", vol3, "--",
	        "/bin/sh", "-c", "ls -R / >/dev/null 2>&1; cat /cache/file", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "read-only");
	it_sbxv(&r, "run", "--root", it_path(t, "ws"), "-v", vol2, "--", "/bin/sh", "-c",
	        "cat /file /cache/file", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "workspace");
	/* A target missing under a host directory is refused, not created. */
	snprintf(vol1, sizeof(vol1), "%s:%s", it_path(t, "ro"), it_path(t, "ws/missing"));
	it_sbxv(&r, "run", "-v", it_path(t, "ws"), "-v", vol1, "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "never creates anything on the host");
	after = hash_tree(t);
	IT_EXPECT(before == after);
	IT_EXPECT(access(it_path(t, "ws/missing"), F_OK) < 0);
}

static void test_no_caps_nnp_fds_env_cwd(void)
{
	const char *t = make_tree();
	int leak = open("/dev/null", O_RDONLY); /* not close-on-exec: sbx must not pass it */
	struct it_run r;

	IT_EXPECT(leak >= 3);
	setenv("SBX_IT_SECRET_TOKEN", "hunter2", 1);
	setenv("PASSME", "passed", 1);
	IT_EXPECT_INT(chdir(it_path(t, "secret")), 0);
	it_sbxv(&r, "run", "-v", it_path(t, "ws"), "--env", "PASSME", "--env", "SETME=set", "--",
	        "/bin/sh", "-c",
	        "grep -E '^(Cap|NoNewPrivs)' /proc/self/status; ls /proc/self/fd | tr '\\n' ' ';"
	        " echo; env; echo cwd=$(pwd)",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "CapInh:\t0000000000000000");
	IT_EXPECT_CONTAINS(r.out, "CapPrm:\t0000000000000000");
	IT_EXPECT_CONTAINS(r.out, "CapEff:\t0000000000000000");
	IT_EXPECT_CONTAINS(r.out, "CapBnd:\t0000000000000000");
	IT_EXPECT_CONTAINS(r.out, "CapAmb:\t0000000000000000");
	IT_EXPECT_CONTAINS(r.out, "NoNewPrivs:\t1");
	/* 3 is the sealed spec memfd (SBX_SPEC_FD, docs/design.md, Enforcement order), 4 ls's own
	 * directory fd; nothing else beyond 0-2 */
	IT_EXPECT_CONTAINS(r.out, "\n0 1 2 3 4 \n");
	IT_EXPECT_CONTAINS(r.out, "SBX_SPEC_FD=3");
	IT_EXPECT_NOT_CONTAINS(r.out, "hunter2");
	IT_EXPECT_CONTAINS(r.out, "PASSME=passed");
	IT_EXPECT_CONTAINS(r.out, "SETME=set");
	IT_EXPECT_CONTAINS(r.out, "SBX=1");
	IT_EXPECT_CONTAINS(r.out, "SBX_PROFILE=default");
	IT_EXPECT_CONTAINS(r.out, "cwd=/\n"); /* the caller's cwd is not mounted: not leaked */
	IT_EXPECT_NOT_CONTAINS(r.out, "secret");
}

static void test_tiocsti_cannot_reach_caller_terminal(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	char *name;
	pid_t pid;
	int status, slave;
	char buf[4096];
	ssize_t n;
	size_t len = 0;

	if (master < 0)
		it_skip("no pseudo-terminals here: %s", strerror(errno));
	IT_EXPECT_INT(grantpt(master), 0);
	IT_EXPECT_INT(unlockpt(master), 0);
	name = ptsname(master);
	IT_EXPECT(name != NULL);
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		/* The caller: a session whose controlling terminal is the pty. */
		char self[4200];

		setsid();
		slave = open(name, O_RDWR);
		if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
			_exit(90);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		snprintf(self, sizeof(self), "%s:ro", it_self_dir());
		execl(it_sbx_path(), "sbx", "run", "-v", self, "--", it_self(), "--probe",
		      "tiocsti", (char *)NULL);
		_exit(91);
	}
	/* Read what the pty shows until the child is gone. */
	for (;;) {
		struct pollfd p = {master, POLLIN, 0};

		if (poll(&p, 1, 5000) <= 0)
			break;
		n = read(master, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "tiocsti =>") && strchr(strstr(buf, "tiocsti =>"), '\n'))
			break;
	}
	IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
	IT_EXPECT(WIFEXITED(status));
	IT_EXPECT_INT(WEXITSTATUS(status), 0);
	IT_EXPECT_CONTAINS(buf, "tiocsti => EPERM");
	/* Nothing was pushed into the caller's input queue. */
	{
		int pending = -1;

		slave = open(name, O_RDWR | O_NOCTTY);
		if (slave >= 0) {
			IT_EXPECT_INT(ioctl(slave, FIONREAD, &pending), 0);
			IT_EXPECT_INT(pending, 0);
			close(slave);
		}
	}
	close(master);
}

static void test_proc_kernel_knobs_are_readonly(void)
{
	struct it_run r;
	const char *opts[] = {NULL};
	const char *cmd[] = {"@probe", "--probe",
	                     "write",  "/proc/sys/kernel/hostname",
	                     "write",  "/proc/sysrq-trigger",
	                     "write",  "/proc/sys/vm/drop_caches",
	                     "create", "/proc/sys/x",
	                     "read",   "/proc/keys",
	                     "write",  "/proc/1/exe",
	                     NULL};

	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "hostname => ok");
	IT_EXPECT_NOT_CONTAINS(r.out, "sysrq-trigger => ok");
	IT_EXPECT_NOT_CONTAINS(r.out, "drop_caches => ok");
	IT_EXPECT_NOT_CONTAINS(r.out, "exe => ok");
	if (access("/proc/keys", F_OK) < 0)
		it_skip("this kernel has no /proc/keys to mask");
	IT_EXPECT_CONTAINS(r.out, "read /proc/keys => EACCES"); /* a masked file: not opened */
	/* Masked entries: a file that cannot be opened at all, an empty read-only directory. */
	it_sbxv(&r, "run", "--", "/bin/sh", "-c",
	        "cat /proc/keys 2>/dev/null || echo keys-refused; "
	        "cat /proc/timer_list 2>/dev/null || echo timer-refused; "
	        "ls -A /proc/acpi | wc -l; (: > /proc/keys) 2>/dev/null || echo refused",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "keys-refused\ntimer-refused\n0\nrefused\n");
}

/* As root, the system mounts are not id-mapped: the worker (uid 0, or 65533 with nesting,
 * inside) must not own root's files there, or it could read a 0600 key under /etc/ssl. The
 * key is made for the test in /etc/ssl/private when it exists (root only), then removed. */
static void test_root_files_in_system_mounts_stay_roots(void)
{
	const char *dir = "/etc/ssl/private", *key = "/etc/ssl/private/sbx-it-key.pem";
	struct it_run r;
	struct stat st;

	if (geteuid() != 0) {
		/* An ordinary user's sandbox maps only the user: root's files there belong to the
		 * overflow uid, never to the worker, which stays the caller. */
		char want[64];

		it_sh(&r, "id -u; stat -c %u /usr/bin /usr/lib", NULL);
		IT_EXPECT_INT(r.status, 0);
		snprintf(want, sizeof(want), "%u\n65534\n65534\n", (unsigned)geteuid());
		IT_EXPECT_CONTAINS(r.out, want);
		return;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		it_sh(&r, "stat -c %u /usr/bin", NULL);
		IT_EXPECT_CONTAINS(r.out, "65534");
		return;
	}
	it_write_file(key, "-----BEGIN PRIVATE KEY-----\nsecret\n");
	IT_EXPECT(chmod(key, 0600) == 0 && chown(key, 0, 0) == 0);
	for (int nesting = 0; nesting < 2; nesting++) {
		const char *opts[] = {nesting ? "--allow-nesting" : "--net",
		                      nesting ? NULL : "none", NULL};

		char script[256];

		snprintf(script, sizeof(script), "id -u; stat -c %%u %s; cat %s; echo end", dir,
		         key);
		it_run_in(&r, opts, (const char *const[]){"/bin/sh", "-c", script, NULL});
		IT_EXPECT_CONTAINS(r.out, "65534\n");
		IT_EXPECT_NOT_CONTAINS(r.out, "secret");
		IT_EXPECT_CONTAINS(r.out, "end");
	}
	unlink(key);
}

/* Set by the _nesting case: root's worker is then uid 65533 inside, 0 and it swapped. */
static bool with_nesting;

static void test_worker_is_never_kernel_root(void)
{
	const char *t = make_tree();
	char ready[4200], line[256];
	struct it_run r;
	pid_t pid;
	int status;

	snprintf(ready, sizeof(ready), "%s", it_path(t, "ws/ready"));
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		char script[4400];

		snprintf(script, sizeof(script), "echo $$ > %s; exec sleep 20", ready);
		if (with_nesting)
			execl(it_sbx_path(), "sbx", "run", "--allow-nesting", "-v",
			      it_path(t, "ws"), "--", "/bin/sh", "-c", script, (char *)NULL);
		else
			execl(it_sbx_path(), "sbx", "run", "-v", it_path(t, "ws"), "--", "/bin/sh",
			      "-c", script, (char *)NULL);
		_exit(99);
	}
	for (int i = 0; i < 200 && access(ready, F_OK) < 0; i++)
		usleep(20000);
	IT_EXPECT(access(ready, F_OK) == 0);
	usleep(50000);
	/* Every process of the sandbox, seen from the host: none has kernel uid 0. */
	{
		char cmd[128];
		FILE *f;
		int seen = 0;

		snprintf(cmd, sizeof(cmd),
		         "ps -o uid=,pid= --ppid $(ps -o pid= --ppid %d) 2>/dev/null; "
		         "ps -o uid=,pid= --ppid %d",
		         (int)pid, (int)pid);
		f = popen(cmd, "r");
		IT_EXPECT(f != NULL);
		while (fgets(line, sizeof(line), f)) {
			unsigned uid = (unsigned)strtoul(line, NULL, 10);

			seen++;
			IT_EXPECT(uid != 0);
			if (!it_is_root())
				IT_EXPECT_INT(uid, getuid());
		}
		pclose(f);
		IT_EXPECT(seen >= 2); /* init and the worker */
	}
	kill(pid, SIGTERM);
	IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
	(void)r;
}

static void test_worker_is_never_kernel_root_nesting(void)
{
	with_nesting = true;
	test_worker_is_never_kernel_root();
}

/* ---- no set-uid, set-gid or file-capability file leaves a sandbox (issue 11) ---- */

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

/* Copy a host program into the workspace, as a worker's cp would. */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	say(to, in >= 0 && out >= 0 ? 0 : -1);
	close(in);
	close(out);
}

/* A v2 file capability: cap_setuid in the permitted set, effective. */
static const unsigned char cap_setuid_v2[20] = {0x01, 0x00, 0x00, 0x02, 0x80};

/* In the sandbox: every way to put a set-uid or set-gid bit in a mode, every way to write
 * security.capability (directly, and as root of a nested user namespace where nesting lets
 * one be made), each printed "NAME => ok|MARK|ERRNO". */
static int suid_probe(const char *dir)
{
	int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	struct open_how how = {.flags = O_CREAT | O_WRONLY | O_CLOEXEC, .mode = 04755};
	char path[4200];
	uid_t outer = getuid();

	if (d < 0 || chdir(dir) < 0)
		return 2;
	copy_file("/usr/bin/id", "rid");
	copy_file("/usr/bin/python3", "py");
	say("chmod_suid", chmod("rid", 04755));
	say("chmod_sgid", chmod("rid", 02755));
	say("chmod_plain", chmod("rid", 0700));
	fd = open("rid", O_RDONLY | O_CLOEXEC);
	say("fchmod_suid", fchmod(fd, 04711));
	close(fd);
	say("fchmodat_suid", fchmodat(d, "rid", 04755, 0));
	say("fchmodat2_suid", syscall(452, d, "rid", 06755, 0));
	fd = open("f_open", O_CREAT | O_WRONLY | O_CLOEXEC, 04755);
	say("open_creat_suid", fd);
	close(fd);
	fd = openat(d, "f_openat", O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 02755);
	say("openat_creat_sgid", fd);
	close(fd);
	fd = creat("f_creat", 04755);
	say("creat_suid", fd);
	close(fd);
	fd = open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 04755);
	say("open_tmpfile_suid", fd);
	if (fd >= 0) { /* make it visible, as a worker would */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		say("link_tmpfile", linkat(AT_FDCWD, path, d, "f_tmpfile", AT_SYMLINK_FOLLOW));
		close(fd);
	}
	fd = (int)syscall(SYS_openat2, d, "f_openat2", &how, sizeof(how));
	say("openat2_creat_suid", fd);
	if (fd >= 0)
		close(fd);
	say("mkdir_sgid", mkdir("d_mkdir", 02755));
	say("mkdirat_sgid", mkdirat(d, "d_mkdirat", 02775));
	say("mknod_suid", mknod("f_mknod", S_IFREG | 04755, 0));
	say("mknodat_sgid", mknodat(d, "f_mknodat", S_IFREG | 02755, 0));
	say("mkdir_plain", mkdir("d_plain", 0755));
	fd = open("f_plain", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	say("open_creat_plain", fd);
	say("setxattr_user", setxattr("f_plain", "user.sbx", "1", 1, 0));
	say("lsetxattr_user", lsetxattr("f_plain", "user.sbx", "1", 1, 0));
	say("fsetxattr_user", fsetxattr(fd, "user.sbx", "1", 1, 0));
	close(fd);
	say("setxattrat_user", syscall(463, d, "f_plain", 0, "user.sbx", NULL, 0));
	say("setxattr_cap",
	    setxattr("py", "security.capability", cap_setuid_v2, sizeof(cap_setuid_v2), 0));
	/* The nesting route: root of a user namespace of its own writes the capability, which
	 * the id-mapped workspace would store for host root. */
	if (unshare(CLONE_NEWUSER) < 0) {
		say("userns", -1);
	} else {
		char map[64];
		int m = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC);

		snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)outer);
		say("userns_map", m >= 0 && write(m, map, strlen(map)) > 0 ? 0 : -1);
		close(m);
		say("setxattr_cap_userns",
		    setxattr("py", "security.capability", cap_setuid_v2, sizeof(cap_setuid_v2), 0));
		say("fsetxattr_cap_userns",
		    (fd = open("py", O_RDONLY | O_CLOEXEC)) < 0
		        ? -1
		        : fsetxattr(fd, "security.capability", cap_setuid_v2, sizeof(cap_setuid_v2),
		                    0));
		close(fd);
	}
	return 0;
}

static int nftw_check(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char value[64];

	(void)type;
	(void)ftw;
	if (st->st_mode & (S_ISUID | S_ISGID))
		it_fail(__FILE__, __LINE__, "%s left the sandbox with mode %o", path,
		        (unsigned)st->st_mode);
	if (lgetxattr(path, "security.capability", value, sizeof(value)) >= 0)
		it_fail(__FILE__, __LINE__, "%s left the sandbox with a file capability", path);
	IT_EXPECT(errno == ENODATA || errno == ENOTSUP);
	return 0;
}

/* As root: an ordinary user (sbx-test) runs what the worker left and gains nothing. */
static void run_as_test_user(struct it_run *r, const char *prog, const char *arg1, const char *arg2)
{
	const char *argv[] = {"/usr/bin/setpriv",
	                      "--reuid=sbx-test",
	                      "--regid=sbx-test",
	                      "--clear-groups",
	                      prog,
	                      arg1,
	                      arg2,
	                      NULL};

	it_exec(r, argv);
}

static void suid_case(const char *name, const char *const *variant)
{
	const char *w = it_path(it_tmpdir(), name);
	const char *opts[32];
	const char *cmd[] = {it_self(), "--suid-probe", w, NULL};
	static const char *const filtered[] = {
	    "chmod_suid",        "chmod_sgid",      "fchmod_suid",       "fchmodat_suid",
	    "fchmodat2_suid",    "open_creat_suid", "openat_creat_sgid", "creat_suid",
	    "open_tmpfile_suid", "mkdir_sgid",      "mkdirat_sgid",      "mknod_suid",
	    "mknodat_sgid",
	};
	/* xattr writers answer EOPNOTSUPP whatever errno is configured (cp -a goes on) */
	static const char *const unsupported[] = {
	    "setxattr_user", "lsetxattr_user", "fsetxattr_user", "setxattrat_user", "setxattr_cap"};
	static struct it_run r;
	char line[128];
	size_t n = 0;
	bool landlock = false;

	IT_EXPECT(mkdir(w, 0755) == 0);
	IT_EXPECT(chmod(it_tmpdir(), 0755) == 0);
	for (; *variant; variant++) {
		landlock |= strcmp(*variant, "landlock") == 0;
		opts[n++] = *variant;
	}
	opts[n++] = "-v";
	opts[n++] = w;
	opts[n++] = "--seccomp-errno";
	opts[n++] = "1234";
	opts[n] = NULL;
	it_run_in(&r, opts, cmd);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "%s: the probe exited %d:\n%s%s", name, r.status, r.out,
		        r.err);
	printf("    %s:\n%s", name, r.out);
	for (size_t i = 0; i < sizeof(filtered) / sizeof(filtered[0]); i++) {
		snprintf(line, sizeof(line), "%s => MARK\n", filtered[i]);
		IT_EXPECT_CONTAINS(r.out, line);
	}
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		snprintf(line, sizeof(line), "%s => EOPNOTSUPP\n", unsupported[i]);
		IT_EXPECT_CONTAINS(r.out, line);
	}
	IT_EXPECT_CONTAINS(r.out, "openat2_creat_suid => ENOSYS\n");
	/* A plain mode is allowed, but for root on the landlock backend, where the worker owns
	 * every root-owned file of the machine and chmod is denied outright (sbx-seccomp(7)). */
	IT_EXPECT_CONTAINS(r.out, landlock && it_is_root() ? "chmod_plain => MARK\n"
	                                                   : "chmod_plain => ok\n");
	IT_EXPECT_CONTAINS(r.out, "mkdir_plain => ok\n");
	IT_EXPECT_CONTAINS(r.out, "open_creat_plain => ok\n");
	/* where nesting lets the worker make a user namespace, its root is filtered too */
	if (strstr(r.out, "userns_map => ok")) {
		IT_EXPECT_CONTAINS(r.out, "setxattr_cap_userns => EOPNOTSUPP\n");
		IT_EXPECT_CONTAINS(r.out, "fsetxattr_cap_userns => EOPNOTSUPP\n");
	}
	/* on the host: no set-uid or set-gid bit, no security.capability anywhere */
	IT_EXPECT(nftw(w, nftw_check, 16, FTW_PHYS) == 0);
	if (it_is_root()) {
		run_as_test_user(&r, it_path(w, "rid"), "-u", NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT(strtol(r.out, NULL, 10) > 0); /* sbx-test's euid, never 0 */
		run_as_test_user(&r, it_path(w, "py"), "-c",
		                 "import os\ntry:\n os.setuid(0); print('ROOT')\nexcept OSError:"
		                 " print('refused')");
		IT_EXPECT_CONTAINS(r.out, "refused");
		IT_EXPECT_NOT_CONTAINS(r.out, "ROOT");
	}
}

static void test_no_setuid_or_capability_file_leaves(void)
{
	suid_case("default", (const char *const[]){NULL});
	suid_case("nesting", (const char *const[]){"--allow-nesting", NULL});
	suid_case("landlock", (const char *const[]){"--backend", "landlock", NULL});
	suid_case("landlock_nesting",
	          (const char *const[]){"--backend", "landlock", "--allow-nesting", NULL});
}

static void test_no_setuid_or_capability_file_leaves_profiles(void)
{
	static const char *const profiles[] = {"ci-job", "restricted-agent", "claude-agent"};
	const char *src = getenv("SBX_SOURCE_DIR");
	const char *home = it_path(it_tmpdir(), "home");

	if (!src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	/* the shipped profiles from the source tree, and a home of the case's own */
	setenv("SBX_PROFILE_PATH", it_path(src, "profiles"), 1);
	it_write_file(it_path(home, ".claude/settings.json"), "{}\n");
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		char *ws = it_path(it_tmpdir(), profiles[i]);
		const char *opts[] = {"-p", profiles[i], "--workspace", ws, NULL};

		suid_case(profiles[i], opts);
	}
}

/*
 * A hidden file cannot be opened, for reading or for writing (EACCES), under both backends,
 * so that what `sbx check` says (deny) does not depend on the backend; a hidden directory is
 * an empty read-only directory under the namespaces backend, and denied under the landlock
 * one. The file's content never shows, and the host keeps it unchanged.
 */
static void hidden_is_denied(const char *backend)
{
	const char *t = make_tree();
	bool ns = strcmp(backend, "namespaces") == 0;
	char *key = it_path(t, "ws/.env"), *dir = it_path(t, "ws/secrets");
	char line[4300];
	struct it_run r;

	it_write_file(key, "TOKEN=host-secret\n");
	chmod(key, 0666); /* even a file anyone may write on the host */
	it_write_file(it_path(t, "ws/secrets/inner"), "inner-secret\n");
	{
		const char *opts[] = {
		    "--backend", backend, "--net",  "host", "-v", it_path(t, "ws"),
		    "--hide",    key,     "--hide", dir,    NULL};
		const char *cmd[] = {"@probe",   "--probe",
		                     "read",     key,
		                     "write",    key,
		                     "truncate", key,
		                     "read",     it_path(t, "ws/secrets/inner"),
		                     "create",   it_path(t, "ws/secrets/new"),
		                     "read",     it_path(t, "ws/file"),
		                     NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "read %s => EACCES", key);
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "write %s => EACCES", key);
	IT_EXPECT_CONTAINS(r.out, line);
	/* EROFS (the read-only mask) or EACCES (a Landlock layer): either is denied */
	snprintf(line, sizeof(line), "truncate %s => E", key);
	IT_EXPECT_CONTAINS(r.out, line);
	/* the hidden directory: empty under the namespaces backend, denied under landlock */
	snprintf(line, sizeof(line), "read %s/ws/secrets/inner => %s", t, ns ? "ENOENT" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/ws/secrets/new => %s", t, ns ? "EROFS" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "read %s/ws/file => ok", t);
	IT_EXPECT_CONTAINS(r.out, line);
	/* cat, as a person would try it */
	{
		const char *opts[] = {"--backend",      backend,  "--net", "host", "-v",
		                      it_path(t, "ws"), "--hide", key,     NULL};
		const char *cmd[] = {"/bin/cat", key, NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 1);
		IT_EXPECT_CONTAINS(r.err, "Permission denied");
		IT_EXPECT_NOT_CONTAINS(r.out, "host-secret");
	}
	/* the host's file is untouched */
	{
		FILE *f = fopen(key, "r");
		char buf[64] = "";

		IT_EXPECT(f != NULL);
		IT_EXPECT(fgets(buf, sizeof(buf), f) != NULL);
		fclose(f);
		IT_EXPECT_CONTAINS(buf, "TOKEN=host-secret");
	}
}

static void test_hidden_file_cannot_be_opened(void)
{
	hidden_is_denied("namespaces");
}

/* A hidden file stays hidden at every other view of it: the workspace mounted a second time
 * elsewhere (-v WS:/app) or made the root (--root WS) shows the same host file at
 * /app/.env and /.env, each masked too (before: readable there; an outside attack). The
 * namespaces backend (the landlock one refuses both forms). */
static void test_hidden_at_every_view(void)
{
	const char *t = make_tree();
	char *ws = it_path(t, "ws"), *key = it_path(t, "ws/.env");
	char app[4200], dotenv[4300];
	struct it_run r;

	it_write_file(key, "TOKEN=host-secret\n");
	snprintf(app, sizeof(app), "%s:/app", ws);
	it_sbxv(&r, "run", "-q", "--net", "host", "-v", ws, "-v", app, "--hide", key, "--",
	        "/bin/sh", "-c", "cat /app/.env; cat .env; echo end", NULL);
	IT_EXPECT_CONTAINS(r.out, "end");
	IT_EXPECT_NOT_CONTAINS(r.out, "host-secret");
	snprintf(dotenv, sizeof(dotenv), "%s", "/.env");
	it_sbxv(&r, "run", "-q", "--net", "host", "--root", ws, "--hide", key, "--", "/bin/cat",
	        dotenv, NULL);
	IT_EXPECT_NOT_CONTAINS(r.out, "host-secret");
	IT_EXPECT_CONTAINS(r.err, "Permission denied");
}

static void test_hidden_file_cannot_be_opened_landlock(void)
{
	hidden_is_denied("landlock");
}

/* ---- sbx's own state: the glob cache ---- */

static char *cat(const char *a, const char *b)
{
	return it_path(a, b);
}

/* The text of the one cache file in dir (NULL if none). */
static char *cache_file(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "globwalk-", 9))
			found = cat(dir, e->d_name);
	if (d)
		closedir(d);
	return found;
}

/* `sbx run --dry-run` with the glob: how the walk went ("walked, cached", ...). */
static void dry_walk(struct it_run *r, const char *ws, const char *vol)
{
	it_sbxv(r, "run", "-v", vol, "--hide", cat(ws, "**/.env"), "--dry-run", "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r->status, 0);
}

/* The cache directory does not exist yet: sbx makes it (the caller's, 0700) before a worker
 * that sees ~ runs, and hides it there, so that no worker makes it first and plants a cache
 * in it; nor can the worker move ~/.cache away or remove the directory. Both backends. */
static void cache_made_first(const char *backend)
{
	const char *t = it_tmpdir();
	bool ns = strcmp(backend, "namespaces") == 0;
	char *home = cat(t, "home"), *ws = cat(home, "proj"), *cache = cat(home, ".cache/sbx");
	char line[4300];
	struct stat st;
	struct it_run r;

	it_write_file(cat(ws, "sub/.env"), "TOKEN=sub\n");
	setenv("XDG_CACHE_HOME", cat(home, ".cache"), 1);
	/* a launch that neither walks nor shows where it would be writes nothing */
	it_sbxv(&r, "run", "--backend", backend, "--net", "host", "-v", ws, "--", "/bin/true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(access(cat(home, ".cache"), F_OK) < 0);
	{
		const char *opts[] = {"--backend", backend, "--net", "host", "-v", home, NULL};
		const char *cmd[] = {"@probe",
		                     "--probe",
		                     "ls",
		                     cache,
		                     "create",
		                     cat(cache, "x"),
		                     "create",
		                     cat(cache, "globwalk-0000000000000000"),
		                     "rename",
		                     cat(home, ".cache"),
		                     cat(home, "moved"),
		                     "rmdir",
		                     cache,
		                     "read",
		                     cat(ws, "sub/.env"),
		                     NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "ls %s => %s", cache, ns ? "ok 0" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/x => %s", cache, ns ? "EROFS" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "rename %s/.cache => %s", home, ns ? "EBUSY" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "rmdir %s => %s", cache, ns ? "EBUSY" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "read %s/sub/.env => ok", ws);
	IT_EXPECT_CONTAINS(r.out, line);
	/* sbx made it before the worker ran: the caller's, private, and nothing planted */
	IT_EXPECT_INT(stat(cache, &st), 0);
	IT_EXPECT(S_ISDIR(st.st_mode));
	IT_EXPECT_INT(st.st_uid, geteuid());
	IT_EXPECT_INT(st.st_mode & 0777, 0700);
	IT_EXPECT(cache_file(cache) == NULL);
	IT_EXPECT_INT(access(cat(home, ".cache"), F_OK), 0);
}

static void test_cache_made_first(void)
{
	cache_made_first("namespaces");
}

static void test_cache_made_first_landlock(void)
{
	cache_made_first("landlock");
}

/*
 * The poisoning: a sandbox that sees the cache's directory (-v of a parent, the directory
 * itself, or a path that reaches it through a symlink) can neither read, write nor create
 * anything there, and the next launch still hides every .env (its cache revalidated). Both
 * backends.
 */
static void cache_out_of_reach(const char *backend)
{
	const char *t = it_tmpdir();
	bool ns = strcmp(backend, "namespaces") == 0;
	char *home = cat(t, "home"), *ws = cat(home, "proj"), *cache = cat(home, ".cache/sbx");
	char *real = cat(t, "real"), *link = cat(t, "link");
	char line[4300];
	struct it_run r;

	it_write_file(cat(ws, ".env"), "TOKEN=top\n");
	it_write_file(cat(ws, "sub/.env"), "TOKEN=sub\n");
	setenv("XDG_CACHE_HOME", cat(home, ".cache"), 1);
	/* The reproduction: a launch that sees only the project caches its walk; a
	 * sandbox with -v ~/.cache deletes the matches from the cache file; the next launch
	 * must still hide both (before the fix: "0 matches, cache revalidated"). */
	dry_walk(&r, ws, ws);
	IT_EXPECT_CONTAINS(r.out, "(walked, cached)");
	{
		char *script;

		if (asprintf(&script,
		             "for f in %s/globwalk-*; do sed -i '/^M /d' \"$f\"; done 2>/dev/null; "
		             "echo planted > %s/globwalk-planted 2>/dev/null; true",
		             cache, cache) < 0)
			it_fail(__FILE__, __LINE__, "out of memory");
		const char *opts[] = {"--backend",         backend, "--net", "host", "-v",
		                      cat(home, ".cache"), NULL};
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
	}
	dry_walk(&r, ws, ws);
	IT_EXPECT_CONTAINS(r.out, "2 matches");
	IT_EXPECT_CONTAINS(r.out, "(cache revalidated)");
	IT_EXPECT(access(cat(cache, "globwalk-planted"), F_OK) < 0);

	/* a launch with the glob walks and caches; a sandbox that sees ~ cannot touch it */
	dry_walk(&r, ws, home);
	IT_EXPECT_CONTAINS(r.out, "2 matches");
	IT_EXPECT_CONTAINS(r.out, "(walked, cached)");
	IT_EXPECT(cache_file(cache) != NULL);
	{
		char *file = cache_file(cache);
		const char *opts[] = {"--backend", backend, "--net", "host", "-v", home, NULL};
		const char *cmd[] = {"@probe", "--probe", "read", file,     "write",
		                     file,     "unlink",  file,   "create", cat(cache, "planted"),
		                     NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_NOT_CONTAINS(r.out, "=> ok");
	}
	/* ... nor one that mounts the directory itself, or reaches it by another name */
	{
		const char *opts[] = {"--backend", backend, "--net", "host", "-v", cache, NULL};
		const char *cmd[] = {
		    "@probe", "--probe", "ls", cache, "create", cat(cache, "planted"), NULL};

		it_run_in(&r, opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		snprintf(line, sizeof(line), "ls %s => %s", cache, ns ? "ok 0" : "EACCES");
		IT_EXPECT_CONTAINS(r.out, line);
		snprintf(line, sizeof(line), "create %s/planted => %s", cache,
		         ns ? "EROFS" : "EACCES");
		IT_EXPECT_CONTAINS(r.out, line);
	}
	/* the next launch still hides both, from the cache it trusts */
	dry_walk(&r, ws, home);
	IT_EXPECT_CONTAINS(r.out, "2 matches");
	IT_EXPECT_CONTAINS(r.out, "(cache revalidated)");
	snprintf(line, sizeof(line), "mask                     %s/sub/.env", ws);
	IT_EXPECT_CONTAINS(r.out, line);

	/* the cache reached through a symlink: t/link -> t/real, the cache in t/real/cache */
	IT_EXPECT_INT(mkdir(real, 0755), 0);
	IT_EXPECT_INT(symlink(real, link), 0);
	setenv("XDG_CACHE_HOME", cat(link, "cache"), 1);
	{
		const char *opts[] = {"--backend", backend, "--net", "host", "-v", real, NULL};
		const char *cmd[] = {"@probe", "--probe",
		                     "ls",     cat(real, "cache/sbx"),
		                     "create", cat(real, "cache/sbx/planted"),
		                     NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	snprintf(line, sizeof(line), "ls %s/cache/sbx => %s", real, ns ? "ok 0" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	snprintf(line, sizeof(line), "create %s/cache/sbx/planted => %s", real,
	         ns ? "EROFS" : "EACCES");
	IT_EXPECT_CONTAINS(r.out, line);
	IT_EXPECT(access(cat(real, "cache/sbx/planted"), F_OK) < 0);
}

static void test_cache_out_of_reach(void)
{
	cache_out_of_reach("namespaces");
}

static void test_cache_out_of_reach_landlock(void)
{
	cache_out_of_reach("landlock");
}

/* Replace the cache file by a copy of itself made otherwise; the next launch must walk. */
static void plant(const char *file, const char *how)
{
	char *copy = cat(it_tmpdir(), "copy");
	char buf[65536];
	size_t n;
	FILE *in = fopen(file, "r"), *out = fopen(copy, "w");

	IT_EXPECT(in && out);
	n = fread(buf, 1, sizeof(buf), in);
	IT_EXPECT(fwrite(buf, 1, n, out) == n);
	fclose(in);
	fclose(out);
	if (!strcmp(how, "group-readable")) {
		IT_EXPECT_INT(rename(copy, file), 0);
		IT_EXPECT_INT(chmod(file, 0640), 0);
	} else if (!strcmp(how, "symlink")) {
		IT_EXPECT_INT(unlink(file), 0);
		IT_EXPECT_INT(symlink(copy, file), 0);
	} else if (!strcmp(how, "hard link")) {
		IT_EXPECT_INT(chmod(copy, 0600), 0);
		IT_EXPECT_INT(unlink(file), 0);
		IT_EXPECT_INT(link(copy, file), 0);
	} else if (!strcmp(how, "another's")) {
		IT_EXPECT_INT(chmod(copy, 0600), 0);
		IT_EXPECT_INT(rename(copy, file), 0);
		IT_EXPECT_INT(chown(file, 65534, 65534), 0);
	}
}

/* A cache sbx cannot trust is not used, however it got there: its directory or file
 * readable by others, a symlink, a hard link, another user's file (root only), or a file
 * for other globs; the launch walks and still hides everything. */
static void test_untrusted_cache_is_not_used(void)
{
	const char *t = it_tmpdir();
	char *ws = cat(t, "ws"), *cache = cat(t, "cache/sbx");
	static const char *const hows[] = {"group-readable", "symlink", "hard link", "another's"};
	struct it_run r;

	it_write_file(cat(ws, ".env"), "TOKEN=top\n");
	it_write_file(cat(ws, "sub/.env"), "TOKEN=sub\n");
	setenv("XDG_CACHE_HOME", cat(t, "cache"), 1);
	for (size_t i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		char *file;

		if (!strcmp(hows[i], "another's") && geteuid() != 0)
			continue; /* only root can give a file away */
		dry_walk(&r, ws, ws);
		IT_EXPECT_CONTAINS(r.out, "(walked, cached)");
		dry_walk(&r, ws, ws);
		IT_EXPECT_CONTAINS(r.out, "(cache revalidated)");
		file = cache_file(cache);
		plant(file, hows[i]);
		dry_walk(&r, ws, ws);
		if (!strstr(r.out, "(walked, cached)"))
			it_fail(__FILE__, __LINE__, "a %s cache file was trusted:\n%s", hows[i],
			        r.out);
		IT_EXPECT_CONTAINS(r.out, "2 matches");
		unlink(file);
		unlink(cat(it_tmpdir(), "copy"));
	}
	/* a directory others may read: no cache at all, and still both hidden */
	IT_EXPECT_INT(chmod(cache, 0755), 0);
	dry_walk(&r, ws, ws);
	IT_EXPECT_CONTAINS(r.out, "(no cache)");
	IT_EXPECT_CONTAINS(r.out, "2 matches");
	IT_EXPECT_INT(chmod(cache, 0700), 0);
	/* a cache for other globs under this name: its key lines differ */
	dry_walk(&r, ws, ws);
	{
		char *file = cache_file(cache), buf[65536];
		FILE *f = fopen(file, "r+");
		size_t n;
		char *g;

		IT_EXPECT(f != NULL);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		g = strstr(buf, "/.env\n");
		IT_EXPECT(g != NULL);
		memcpy(g, "/.enx", 5); /* the same length: only the key differs */
		/* and no match: what a forger would write */
		*strstr(buf, "\nM ") = '\0';
		strcat(buf, "\nend\n");
		rewind(f);
		IT_EXPECT(ftruncate(fileno(f), 0) == 0);
		fputs(buf, f);
		fclose(f);
	}
	dry_walk(&r, ws, ws);
	IT_EXPECT_CONTAINS(r.out, "(walked, cached)");
	IT_EXPECT_CONTAINS(r.out, "2 matches");
}

/*
 * A sandbox that sees the caller's home cannot plant a profile where sbx looks for them of its
 * own accord (~/.config/sbx/profiles, before /etc/sbx and the shipped ones): a profile named
 * like a shipped one would choose the next sandbox's mounts (attack: restricted-agent.yaml
 * planted with the whole disk writable and network: host). sbx makes ~/.config/sbx first
 * when a mount shows where it would be, and hides it; the next launch of the name finds the
 * shipped profile.
 */
static void planted_profile(const char *backend)
{
	const char *t = it_tmpdir();
	char *home = cat(t, "home"), *ws = cat(home, "proj"), *outside = cat(t, "outside");
	char *dir = cat(home, ".config/sbx/profiles"), *planted, *script;
	struct it_run r;

	it_write_file(cat(ws, "file"), "x\n");
	IT_EXPECT(mkdir(outside, 0755) == 0);
	IT_EXPECT(mkdir(cat(home, ".config"), 0755) == 0); /* as in most homes */
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_CACHE_HOME");
	planted = cat(dir, "restricted-agent.yaml");
	if (asprintf(&script,
	             "mkdir -p %s 2>/dev/null; printf 'version: 1\\nmounts:\\n  - path: %s\\n' "
	             "> %s 2>/dev/null; test -s %s && echo planted || echo refused",
	             dir, outside, planted, planted) < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	{
		const char *opts[] = {"--backend", backend, "-v", home, "--chdir", ws, NULL};
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "refused\n");
	IT_EXPECT(access(planted, F_OK) < 0);
	/* Re-verification: the sandboxed run's own environment must not decide which profile
	 * folders are guarded, since a later run with another environment reads others: with
	 * XDG_CONFIG_HOME and SBX_PROFILE_PATH naming other folders, ~/.config/sbx stays out of
	 * reach, and so does each SBX_PROFILE_PATH folder. */
	setenv("XDG_CONFIG_HOME", cat(home, "xdg"), 1);
	setenv("SBX_PROFILE_PATH", cat(home, "myprof"), 1);
	IT_EXPECT(mkdir(cat(home, "myprof"), 0700) == 0);
	{
		char *script2;
		const char *opts[] = {"--backend", backend, "-v", home, "--chdir", ws, NULL};
		const char *cmd[] = {"/bin/sh", "-c", NULL, NULL};

		if (asprintf(&script2,
		             "%s; printf 'version: 1\n' > %s/restricted-agent.yaml 2>/dev/null && "
		             "echo planted-spp || echo refused-spp",
		             script, cat(home, "myprof")) < 0)
			it_fail(__FILE__, __LINE__, "out of memory");
		cmd[2] = script2;
		it_run_in(&r, opts, cmd);
	}
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("SBX_PROFILE_PATH");
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "refused\nrefused-spp\n");
	IT_EXPECT(access(planted, F_OK) < 0);
	IT_EXPECT(access(cat(home, "myprof/restricted-agent.yaml"), F_OK) < 0);
	/* The caller's own profiles there still load (sbx hides the folder from sandboxes,
	 * not from itself). */
	it_write_file(cat(dir, "mine.yaml"), "version: 1\nmounts:\n  - path: ${WORKSPACE}\n");
	{
		const char *opts[] = {"--backend", backend, "-p", "mine", "--workspace", ws, NULL};
		const char *cmd[] = {"@probe", "--probe", "read", cat(ws, "file"), NULL};

		it_run_in(&r, opts, cmd);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "the caller's own profile did not run (%d): %s",
		        r.status, r.err);
	IT_EXPECT_PROBE(r.out, "read", cat(ws, "file"), "ok");
	/* With the shipped profiles on the search path, the name finds the shipped profile: the
	 * outside stays out of reach. */
	setenv("SBX_PROFILE_PATH", it_path(getenv("SBX_SOURCE_DIR"), "profiles"), 1);
	{
		const char *opts[] = {"--backend",   backend, "-p", "restricted-agent",
		                      "--workspace", ws,      NULL};
		const char *cmd[] = {"@probe", "--probe", "create", cat(outside, "x"), NULL};

		it_run_in(&r, opts, cmd);
	}
	unsetenv("SBX_PROFILE_PATH");
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "the shipped profile did not run (%d): %s", r.status,
		        r.err);
	IT_EXPECT_NOT_CONTAINS(r.out, "=> ok");
	IT_EXPECT(access(cat(outside, "x"), F_OK) < 0);
}

static void test_planted_profile_not_found(void)
{
	planted_profile("namespaces");
}

static void test_planted_profile_not_found_landlock(void)
{
	planted_profile("landlock");
}

/*
 * What the glob walk cannot look into is hidden whole, never skipped (attack A): a folder the
 * caller cannot list (a worker made it mode 0311 in an earlier run, and owns it, so it can
 * chmod it back), and a folder whose entries' paths are longer than PATH_MAX (reached by
 * relative opens, step by step). The secrets beneath stay unreadable.
 */
static void walk_fails_closed(const char *backend)
{
	const char *t = it_tmpdir();
	char *ws = cat(t, "ws"), *deep, *glob, *script;
	char name[201];
	struct it_run r;
	int fd;

	it_write_file(cat(ws, "sub/.env"), "TOKEN=unlisted\n");
	IT_EXPECT(chmod(cat(ws, "sub"), 0311) == 0);
	/* a chain of 24 folders of 200 bytes: about 4.8 KiB below the workspace */
	memset(name, 'd', 200);
	name[200] = '\0';
	fd = open(ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
	IT_EXPECT(fd >= 0);
	for (int i = 0; i < 24; i++) {
		int next;

		IT_EXPECT(mkdirat(fd, name, 0755) == 0);
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		IT_EXPECT(next >= 0);
		close(fd);
		fd = next;
	}
	{
		int f = openat(fd, ".env", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		IT_EXPECT(f >= 0 && write(f, "TOKEN=deep\n", 11) == 11);
		close(f);
	}
	close(fd);
	deep = name;
	if (asprintf(&glob, "%s/**/.env", ws) < 0 ||
	    asprintf(
	        &script,
	        "cat sub/.env 2>/dev/null; chmod 755 sub 2>/dev/null; cat sub/.env 2>/dev/null; "
	        "for i in $(seq 24); do cd %s || break; done; cat .env 2>/dev/null; echo end",
	        deep) < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	{
		const char *opts[] = {"--backend", backend,  "-v", ws,  "--chdir",
		                      ws,          "--hide", glob, NULL};
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	chmod(cat(ws, "sub"), 0755); /* for the harness's cleanup */
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "end\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "TOKEN=");
}

static void test_walk_hides_what_it_cannot_look_into(void)
{
	walk_fails_closed("namespaces");
}

static void test_walk_hides_what_it_cannot_look_into_landlock(void)
{
	walk_fails_closed("landlock");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_secret_outside_mounts_is_absent),
	    IT_CASE(test_readonly_refuses_every_write),
	    IT_CASE(test_readonly_covers_host_submounts),
	    IT_CASE(test_readonly_cannot_be_undone),
	    IT_CASE(test_planted_symlinks_do_not_redirect),
	    IT_CASE(test_host_tree_unchanged),
	    IT_CASE(test_no_caps_nnp_fds_env_cwd),
	    IT_CASE(test_tiocsti_cannot_reach_caller_terminal),
	    IT_CASE(test_proc_kernel_knobs_are_readonly),
	    IT_CASE(test_root_files_in_system_mounts_stay_roots),
	    IT_CASE(test_worker_is_never_kernel_root),
	    IT_CASE(test_worker_is_never_kernel_root_nesting),
	    IT_CASE(test_no_setuid_or_capability_file_leaves),
	    IT_CASE(test_no_setuid_or_capability_file_leaves_profiles),
	    IT_CASE(test_hidden_file_cannot_be_opened),
	    IT_CASE(test_hidden_file_cannot_be_opened_landlock),
	    IT_CASE(test_hidden_at_every_view),
	    IT_CASE(test_cache_made_first),
	    IT_CASE(test_cache_made_first_landlock),
	    IT_CASE(test_cache_out_of_reach),
	    IT_CASE(test_cache_out_of_reach_landlock),
	    IT_CASE(test_untrusted_cache_is_not_used),
	    IT_CASE(test_planted_profile_not_found),
	    IT_CASE(test_planted_profile_not_found_landlock),
	    IT_CASE(test_walk_hides_what_it_cannot_look_into),
	    IT_CASE(test_walk_hides_what_it_cannot_look_into_landlock),
	};

	if (argc == 3 && strcmp(argv[1], "--suid-probe") == 0)
		return suid_probe(argv[2]);

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
