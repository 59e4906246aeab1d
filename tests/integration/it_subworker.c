/* SPDX-License-Identifier: MIT */
/*
 * Sub-workers under any parent (docs/design.md, Nesting and The supervisor): `sbx run --restrict
 * SRC -- tool` inside a sandbox whose profile forbids nesting (the default one,
 * restricted-agent, claude-agent) runs on the landlock backend, a stacked Landlock layer and
 * seccomp filter in the parent's mount namespace, and narrows as a namespaced child would.
 * Under a supervised parent (protected names watched: git's absent names, a fresh project's
 * .git), the sub-worker's calls reach the parent's supervisor, which serves them through a
 * sub-performer that holds the sub-worker's Landlock domain: it may create in SRC, never
 * beside it, never a protected name, and a process of its own that stacks one more layer is
 * served with that layer too.
 *
 * The test binary is the tool inside (`--sub OP ARG...`, one line "OP PATH => RESULT" per
 * operation, as the harness's probe prints).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* ---- inside: the tool ---- */

static const char *res(int r)
{
	if (r >= 0)
		return "ok";
	return strerrorname_np(errno) ? strerrorname_np(errno) : "error";
}

static int create_file(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* One more Landlock layer of the tool's own: files and directories may be made, written and
 * removed beneath DIR only. */
static int layer(const char *dir)
{
	struct landlock_ruleset_attr attr = {
	    .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_FILE |
	                         LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_MAKE_DIR |
	                         LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	struct landlock_path_beneath_attr pb = {.allowed_access = attr.handled_access_fs};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0), r = -1;

	if (rs < 0)
		return -1;
	pb.parent_fd = open(dir, O_PATH | O_CLOEXEC);
	if (pb.parent_fd >= 0 &&
	    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0 &&
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
		r = (int)syscall(SYS_landlock_restrict_self, rs, 0);
	if (pb.parent_fd >= 0)
		close(pb.parent_fd);
	close(rs);
	return r;
}

/* Two threads: one flips what the path names (the bytes of the path in memory between
 * DIR/sub/.gix and DIR/./.git, or a symlink DIR/p between "sub" and "."), the other creates
 * through it, n times; prints how many creates succeeded. */
static volatile int stop_flag;
static char race_buf[4096];
static const char *race_dir;

static void *flip_link(void *arg)
{
	char tmp[4200], p[4200];

	(void)arg;
	snprintf(tmp, sizeof(tmp), "%s/p.tmp", race_dir);
	snprintf(p, sizeof(p), "%s/p", race_dir);
	for (unsigned i = 0; !stop_flag; i++) {
		unlink(tmp);
		if (symlink(i % 2 ? "." : "sub", tmp) == 0)
			rename(tmp, p);
	}
	return NULL;
}

static void *flip_memory(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !stop_flag; i++)
		memcpy(race_buf + strlen(race_dir), i % 2 ? "/sub/.gix" : "/./.git\0", 9);
	return NULL;
}

static void race(const char *dir, int n, bool memory)
{
	pthread_t th;
	int made = 0;
	char target[4200], sub[4200];

	snprintf(target, sizeof(target), "%s/p/.git", dir);
	snprintf(sub, sizeof(sub), memory ? "%s/sub/.gix" : "%s/sub/.git", dir);
	race_dir = dir;
	snprintf(race_buf, sizeof(race_buf), "%s/sub/.gix", dir);
	stop_flag = 0;
	pthread_create(&th, NULL, memory ? flip_memory : flip_link, NULL);
	for (int i = 0; i < n; i++) {
		int fd = open(memory ? race_buf : target, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

		if (fd >= 0) {
			made++;
			close(fd);
			unlink(sub);
		}
		if (mkdir(memory ? race_buf : target, 0755) == 0) {
			made++;
			rmdir(sub);
		}
	}
	stop_flag = 1;
	pthread_join(th, NULL);
	printf("race %s => made %d\n", memory ? "memory" : "link", made);
}

static int sub_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < argc; i++) {
		const char *op = argv[i], *a = i + 1 < argc ? argv[i + 1] : "",
		           *b = i + 2 < argc ? argv[i + 2] : "";

		if (!strcmp(op, "create")) {
			printf("create %s => %s\n", a, res(create_file(a)));
			i += 1;
		} else if (!strcmp(op, "mkdir")) {
			printf("mkdir %s => %s\n", a, res(mkdir(a, 0755)));
			i += 1;
		} else if (!strcmp(op, "read")) {
			int fd = open(a, O_RDONLY | O_CLOEXEC);

			printf("read %s => %s\n", a, res(fd));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "write")) {
			int fd = open(a, O_WRONLY | O_CLOEXEC);

			printf("write %s => %s\n", a, res(fd));
			if (fd >= 0)
				close(fd);
			i += 1;
		} else if (!strcmp(op, "rename")) {
			printf("rename %s => %s\n", b, res(rename(a, b)));
			i += 2;
		} else if (!strcmp(op, "symlink")) {
			printf("symlink %s => %s\n", b, res(symlink(a, b)));
			i += 2;
		} else if (!strcmp(op, "layer")) {
			printf("layer %s => %s\n", a, res(layer(a)));
			i += 1;
		} else if (!strcmp(op, "layer-hold")) {
			/* a layer, held until FILE exists (at most 60 s) */
			struct stat st;
			int r = layer(a);

			printf("layer-hold %s => %s\n", a, res(r));
			for (int k = 0; k < 6000 && stat(b, &st) < 0; k++)
				usleep(10000);
			i += 2;
		} else if (!strcmp(op, "orphan-create")) {
			/* this process a child subreaper; a child stacks a layer (DIR), forks a
			 * grandchild and exits; the grandchild, adopted here, creates PATH */
			pid_t me = getpid(), c;

			if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
				printf("orphan-create %s => %s\n", b, res(-1));
				i += 2;
				continue;
			}
			c = fork();
			if (c == 0) {
				if (layer(a) < 0 || fork() != 0)
					_exit(0);
				for (int k = 0; k < 6000 && getppid() != me; k++)
					usleep(10000);
				printf("orphan-create %s => %s\n", b, res(create_file(b)));
				_exit(0);
			}
			while (c > 0 && wait(NULL) > 0)
				;
			i += 2;
		} else if (!strcmp(op, "race-link") || !strcmp(op, "race-memory")) {
			race(a, atoi(b), !strcmp(op, "race-memory"));
			i += 2;
		} else if (!strcmp(op, "churn")) {
			/* N children one after the other, each stacks a layer (DIR) and exits */
			int n = atoi(a), bad = 0;

			for (int k = 0; k < n; k++) {
				pid_t pid = fork();
				int st = 0;

				if (pid == 0)
					_exit(layer(b) < 0);
				if (pid < 0 || waitpid(pid, &st, 0) < 0 || st != 0)
					bad++;
			}
			printf("churn %s => %s\n", b, bad ? "failed" : "ok");
			i += 2;
		} else if (!strcmp(op, "fork-create")) {
			/* a descendant: served with its parent's domain */
			pid_t pid = fork();

			if (pid == 0) {
				printf("fork-create %s => %s\n", a, res(create_file(a)));
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
			i += 1;
		} else {
			printf("%s => unknown\n", op);
			return 2;
		}
	}
	return 0;
}

/* ---- outside ---- */

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The shipped profiles, as the user has them; HOME a fresh one; run from ws. */
static void shipped_profiles(const char *t, const char *ws)
{
	const char *srcdir = getenv("SBX_SOURCE_DIR");
	char prof[4200];

	if (!srcdir || !*srcdir)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	snprintf(prof, sizeof(prof), "%s/profiles", srcdir);
	setenv("SBX_PROFILE_PATH", prof, 1);
	it_write_file(it_path(t, "home/.claude/settings.json"), "{}\n");
	setenv("HOME", it_path(t, "home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
}

/* ws/src/a.c, ws/secrets/key, ws/out/ (a fresh project: no .git) */
static char *make_ws(const char *t)
{
	char *ws = it_path(t, "ws");

	it_write_file(it_path(ws, "src/a.c"), "int main;\n");
	it_write_file(it_path(ws, "src/deep/.keep"), "");
	it_write_file(it_path(ws, "src/only/.keep"), "");
	it_write_file(it_path(ws, "secrets/key"), "hunter2\n");
	it_write_file(it_path(ws, "out/.keep"), "");
	return ws;
}

/* `sbx run -v ws? PARENT_OPTS -- /bin/sh -c SCRIPT` */
static void run_parent(struct it_run *r, const char *const *opts, const char *script)
{
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};

	it_run_in(r, opts, cmd);
}

/* The sub-worker's narrowing under a parent that forbids nesting: --restrict SRC may create
 * and rename in SRC (through the parent's supervisor, which watches git's absent names), not
 * beside it; the parent's secrets stay out of reach; --readonly writes nothing; widening is
 * refused with 125; --dry-run says which backend and why. */
static void narrows_under(const char *const *opts, const char *ws)
{
	char script[16384];
	struct it_run r;
	const char *sbx = it_sbx_path(), *self = it_self(), *dir = it_self_dir();

	snprintf(script, sizeof(script),
	         "%s run --restrict %s/src --allow-read %s -- %s --sub create %s/src/new rename "
	         "%s/src/new %s/src/renamed mkdir %s/src/d create %s/out/x read %s/secrets/key "
	         "write %s/secrets/key mkdir %s/.git fork-create %s/src/kid; echo rw=$?; "
	         "%s run --restrict %s/src --readonly --allow-read %s -- %s --sub read %s/src/a.c "
	         "write %s/src/a.c create %s/src/ro; echo ro=$?; "
	         "%s run --allow-write /etc -- true; echo widen=$?; "
	         "%s run --backend namespaces --restrict %s/src -- true; echo ns=$?; "
	         "%s run --dry-run --restrict %s/src -- true; echo dry=$?",
	         sbx, ws, dir, self, ws, ws, ws, ws, ws, ws, ws, ws, ws, sbx, ws, dir, self, ws, ws,
	         ws, sbx, sbx, ws, sbx, ws);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "rw=0");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/new"), "ok");
	IT_EXPECT_PROBE(r.out, "rename", it_path(ws, "src/renamed"), "ok");
	IT_EXPECT_PROBE(r.out, "mkdir", it_path(ws, "src/d"), "ok");
	IT_EXPECT_PROBE(r.out, "fork-create", it_path(ws, "src/kid"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "out/x"), "EACCES");
	IT_EXPECT_PROBE(r.out, "read", it_path(ws, "secrets/key"), "EACCES");
	IT_EXPECT_PROBE(r.out, "write", it_path(ws, "secrets/key"), "EACCES");
	IT_EXPECT_PROBE(r.out, "mkdir", it_path(ws, ".git"), "EACCES");
	IT_EXPECT(exists(it_path(ws, "src/renamed")));
	IT_EXPECT(exists(it_path(ws, "src/d")));
	IT_EXPECT(exists(it_path(ws, "src/kid")));
	IT_EXPECT(!exists(it_path(ws, "out/x")));
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT_CONTAINS(r.out, "ro=0");
	IT_EXPECT_PROBE(r.out, "read", it_path(ws, "src/a.c"), "ok");
	IT_EXPECT_PROBE(r.out, "write", it_path(ws, "src/a.c"), "EACCES");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/ro"), "EACCES");
	IT_EXPECT(!exists(it_path(ws, "src/ro")));
	IT_EXPECT_CONTAINS(r.out, "widen=125");
	IT_EXPECT_CONTAINS(r.err, "cannot grant write on /etc");
	IT_EXPECT_CONTAINS(r.out, "ns=125");
	IT_EXPECT_CONTAINS(r.err, "cannot start a nested sandbox with --backend namespaces: the "
	                          "parent sandbox forbids nesting (nesting: false)");
	IT_EXPECT_CONTAINS(r.out, "dry=0");
	IT_EXPECT_CONTAINS(r.out, "backend:    landlock (no namespaces");
	IT_EXPECT_CONTAINS(r.out, "why: the parent sandbox forbids nesting (nesting: false)");
}

/* The default profile: the workspace read-write, git's absent names watched. The sub-worker
 * finds sbx: where no mount shows the binary (a build tree), it is a system entry of its own,
 * read-only at its path. */
static void test_default_parent(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-v", ws, NULL};
	char dir[4096];
	struct it_run r;

	narrows_under(opts, ws);
	snprintf(dir, sizeof(dir), "%s", it_sbx_path());
	*strrchr(dir, '/') = '\0';
	if (strcmp(dir, it_self_dir()) != 0) {
		char line[8300];

		it_sbxv(&r, "run", "-v", ws, "--dry-run", "--", "true", NULL);
		IT_EXPECT_INT(r.status, 0);
		snprintf(line, sizeof(line),
		         "bind      ro             %s <- %s  (system: sbx itself", it_sbx_path(),
		         it_sbx_path());
		IT_EXPECT_CONTAINS(r.out, line);
	}
}

static void test_restricted_agent_parent(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-p", "restricted-agent", NULL};

	shipped_profiles(t, ws);
	narrows_under(opts, ws);
}

/*
 * claude-agent in a fresh project (no .git: its creation is watched, so every creation is
 * supervised): a `--restrict src` sub-worker creates and renames in src, creates nothing
 * beside it, never WS/.git (directly, through a symlink it made, by a rename); its own child
 * is narrower still; a process of it that stacks one more Landlock layer is served with that
 * layer too, and so are its children.
 */
static void test_claude_agent_parent(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-p", "claude-agent", NULL};
	const char *sbx = it_sbx_path(), *self = it_self(), *dir = it_self_dir();
	char script[16384];
	struct it_run r;

	shipped_profiles(t, ws);
	snprintf(script, sizeof(script),
	         "%s run --restrict %s/src --allow-read %s -- /bin/sh -c '"
	         "%s --sub create %s/src/a rename %s/src/a %s/src/b mkdir %s/src/d create %s/c "
	         "mkdir %s/.git create %s/.git symlink %s/.git %s/src/l create %s/src/l "
	         "rename %s/src/d %s/.git; "
	         "%s run --restrict %s/src/deep --allow-read %s -- %s --sub create %s/src/deep/x "
	         "create %s/src/y; echo depth2=$?; "
	         "%s --sub layer %s/src/only create %s/src/z create %s/src/only/z "
	         "fork-create %s/src/z2 fork-create %s/src/only/z2; "
	         "%s --sub orphan-create %s/src/only %s/src/o'; echo sub=$?",
	         sbx, ws, dir, self, ws, ws, ws, ws, ws, ws, ws, ws, ws, ws, ws, ws, sbx, ws, dir,
	         self, ws, ws, self, ws, ws, ws, ws, ws, self, ws, ws);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "sub=0");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/a"), "ok");
	IT_EXPECT_PROBE(r.out, "rename", it_path(ws, "src/b"), "ok");
	IT_EXPECT_PROBE(r.out, "mkdir", it_path(ws, "src/d"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "c"), "EACCES");
	IT_EXPECT_PROBE(r.out, "mkdir", it_path(ws, ".git"), "EACCES");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, ".git"), "EACCES");
	IT_EXPECT_PROBE(r.out, "symlink", it_path(ws, "src/l"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/l"), "EACCES");
	IT_EXPECT_PROBE(r.out, "rename", it_path(ws, ".git"), "EACCES");
	IT_EXPECT(exists(it_path(ws, "src/b")));
	IT_EXPECT(!exists(it_path(ws, "c")));
	IT_EXPECT(!exists(it_path(ws, ".git")));
	/* depth 2: its own --restrict holds */
	IT_EXPECT_CONTAINS(r.out, "depth2=0");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/deep/x"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/y"), "EACCES");
	IT_EXPECT(!exists(it_path(ws, "src/y")));
	/* one more layer of the tool's own: performed for with it, never without */
	IT_EXPECT_PROBE(r.out, "layer", it_path(ws, "src/only"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/z"), "EACCES");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/only/z"), "ok");
	IT_EXPECT_PROBE(r.out, "fork-create", it_path(ws, "src/z2"), "EACCES");
	IT_EXPECT_PROBE(r.out, "fork-create", it_path(ws, "src/only/z2"), "ok");
	IT_EXPECT(!exists(it_path(ws, "src/z")));
	IT_EXPECT(!exists(it_path(ws, "src/z2")));
	/* an orphan of a layered process, adopted by a child subreaper on its line: its
	 * layers are not known any more, and it is refused rather than served without them */
	IT_EXPECT_PROBE(r.out, "orphan-create", it_path(ws, "src/o"), "EACCES");
	IT_EXPECT(!exists(it_path(ws, "src/o")));
}

/* claude-agent in an ordinary git repository: names git reads that are absent
 * (.git/commondir) are watched. A sub-worker restricted to .git itself (beside them) makes
 * objects, and never a watched name. */
static void test_claude_agent_git_repo(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-p", "claude-agent", NULL};
	const char *sbx = it_sbx_path(), *self = it_self(), *dir = it_self_dir();
	char script[16384];
	struct it_run r;

	shipped_profiles(t, ws);
	{
		const char *git[] = {"/usr/bin/git", "init", "-q", ws, NULL};

		it_exec(&r, git);
		if (r.status != 0)
			it_fail(__FILE__, __LINE__, "git init: %s", r.err);
	}
	snprintf(script, sizeof(script),
	         "%s run --restrict %s/.git --allow-read %s -- %s --sub create %s/.git/objects/x "
	         "create %s/.git/commondir; echo sub=$?",
	         sbx, ws, dir, self, ws, ws);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "sub=0");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, ".git/objects/x"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, ".git/commondir"), "EACCES");
	IT_EXPECT(exists(it_path(ws, ".git/objects/x")));
	IT_EXPECT(!exists(it_path(ws, ".git/commondir")));
}

/* A landlock sub-worker has no mount namespace for a private /tmp: it gets a directory of its
 * own in its parent's private /tmp (TMPDIR), never the parent's files there, and the directory
 * goes with the run; its own landlock child gets one inside it. */
static void test_tmpdir(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-v", ws, NULL};
	const char *sbx = it_sbx_path(), *self = it_self(), *dir = it_self_dir();
	char script[16384];
	struct it_run r;

	snprintf(script, sizeof(script),
	         "echo parent > /tmp/parent-file; "
	         "%s run --restrict %s/src --allow-read %s -- /bin/sh -c '"
	         "echo \"tmpdir=$TMPDIR\"; %s --sub create \"$TMPDIR/a\" mkdir \"$TMPDIR/d\" "
	         "create \"$TMPDIR/d/b\" read /tmp/parent-file create /tmp/x; "
	         "%s run --restrict %s/src --allow-read %s -- /bin/sh -c "
	         "\"echo tmpdir2=\\$TMPDIR; %s --sub create \\$TMPDIR/c\"'; echo sub=$?; "
	         "ls /tmp | grep -c sbx-sub; echo left=$?",
	         sbx, ws, dir, self, sbx, ws, dir, self);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "sub=0");
	IT_EXPECT_CONTAINS(r.out, "tmpdir=/tmp/sbx-sub.");
	IT_EXPECT_CONTAINS(r.out, "tmpdir2=/tmp/sbx-sub.");
	IT_EXPECT_CONTAINS(r.out, "/sbx-sub.");
	IT_EXPECT(strstr(r.out, "/a => ok\n"));
	IT_EXPECT(strstr(r.out, "/d => ok\n"));
	IT_EXPECT(strstr(r.out, "/d/b => ok\n"));
	IT_EXPECT(strstr(r.out, "/c => ok\n"));
	IT_EXPECT_PROBE(r.out, "read", "/tmp/parent-file", "EACCES");
	IT_EXPECT_PROBE(r.out, "create", "/tmp/x", "EACCES");
	/* removed after the run: nothing of the sub-workers' left in the parent's /tmp */
	IT_EXPECT_CONTAINS(r.out, "\n0\nleft=1");
}

/* Depth 3 under the default profile: a landlock child of a landlock child of a landlock
 * child, each narrower, each served with its own domain. */
static void test_depth_three(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-v", ws, NULL};
	const char *sbx = it_sbx_path(), *self = it_self(), *dir = it_self_dir();
	char script[16384];
	struct it_run r;

	it_write_file(it_path(ws, "src/deep/er/.keep"), "");
	snprintf(
	    script, sizeof(script),
	    "%s run --restrict %s/src --allow-read %s -- %s run --restrict %s/src/deep "
	    "--allow-read %s -- %s run --restrict %s/src/deep/er --allow-read %s -- "
	    "%s --sub create %s/src/deep/er/x create %s/src/deep/y create %s/src/z; echo d3=$?",
	    sbx, ws, dir, sbx, ws, dir, sbx, ws, dir, self, ws, ws, ws);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "d3=0");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/deep/er/x"), "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/deep/y"), "EACCES");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/z"), "EACCES");
	IT_EXPECT(exists(it_path(ws, "src/deep/er/x")));
	IT_EXPECT(!exists(it_path(ws, "src/deep/y")));
	IT_EXPECT(!exists(it_path(ws, "src/z")));
}

/* A sub-worker that can write beside a protected name (restricted to a fresh workspace's top)
 * races its own calls: a thread flips the path in memory between "sub/.gix" and "./.git", or
 * a symlink on the way between "sub" and "."; the sub-performer creates what it decided on, a
 * directory and a name, so sub/.gix is made and WS/.git never is, nor sub/.git (no new .git
 * where the host keeps it: it_supervise's racer, for a sub-worker). */
static void test_race(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-p", "claude-agent", NULL};
	char script[16384];
	struct it_run r;

	shipped_profiles(t, ws);
	it_write_file(it_path(ws, "sub/.keep"), "");
	IT_EXPECT_INT(symlink("sub", it_path(ws, "p")), 0);
	snprintf(script, sizeof(script),
	         "%s run --restrict %s --allow-read %s -- %s --sub race-link %s 2000 race-memory "
	         "%s 2000; echo race=$?",
	         it_sbx_path(), ws, it_self_dir(), it_self(), ws, ws);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "race=0");
	IT_EXPECT_CONTAINS(r.out, "race link => made ");
	IT_EXPECT_CONTAINS(r.out, "race memory => made ");
	/* the test can fail: the sub-worker made something in sub at all */
	IT_EXPECT_NOT_CONTAINS(r.out, "race memory => made 0\n");
	IT_EXPECT(!exists(it_path(ws, ".git")));
	IT_EXPECT(!exists(it_path(ws, "sub/.git")));
}

/* Thousands of processes that restricted themselves and exited (sub-workers started one
 * after the other in a long session) do not fill the supervisor's table for good: the
 * worker's own creations are still served. */
static void test_churn(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-v", ws, NULL};
	const char *cmd[] = {
	    it_self(), "--sub", "churn", "4200", ws, "create", it_path(ws, "src/after"), NULL};
	struct it_run r;

	it_run_in(&r, opts, cmd);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "churn", ws, "ok");
	IT_EXPECT_PROBE(r.out, "create", it_path(ws, "src/after"), "ok");
	IT_EXPECT(exists(it_path(ws, "src/after")));
}

/* At most 64 sub-performers at once, and each process that restricts itself keeps room for
 * one more layer stacked on its own (a sub-worker's worker on its reaper's): the 33rd process
 * of the sandbox that holds a Landlock domain of its own is refused one (EAGAIN), with a line
 * that says why. */
static void test_cap(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-v", ws, NULL};
	char script[16384];
	struct it_run r;
	const char *p;
	int ok = 0, again = 0;

	snprintf(
	    script, sizeof(script),
	    ": >/tmp/log; i=0; while [ $i -lt 33 ]; do %s --sub layer-hold %s/src %s/go >>/tmp/log "
	    "& "
	    "i=$((i+1)); done; n=0; while [ \"$(grep -c . /tmp/log)\" -lt 33 ] && "
	    "[ $n -lt 6000 ]; do sleep 0.01; n=$((n+1)); done; touch %s/go; wait; cat /tmp/log",
	    it_self(), ws, ws, ws);
	run_parent(&r, opts, script);
	IT_EXPECT_INT(r.status, 0);
	for (p = r.out; (p = strstr(p, "layer-hold ")); p++) {
		const char *res = strstr(p, " => ");

		ok += res && !strncmp(res, " => ok\n", 7);
		again += res && !strncmp(res, " => EAGAIN\n", 11);
	}
	IT_EXPECT_INT(ok, 32);
	IT_EXPECT_INT(again, 1);
	IT_EXPECT_CONTAINS(r.err, "sub-performers: at most 64 processes of the sandbox may hold");
}

/* A tool in a --readonly sub-sub-worker that kills its reaper and leaves a setsid child behind
 * (attack of 2026-11-28): the reaper holds the sandbox's layer, and the worker one more that
 * scopes signals, so the kill is refused (EPERM) and the child stays the reaper's, served with
 * the inner, read-only rights: nothing is created or appended outside. Without the scope the
 * orphan went to the outer sub-worker's reaper and was served with its read-write rights. */
static void test_reaper_kept(void)
{
	const char *t = it_tmpdir();
	char *ws = make_ws(t);
	const char *opts[] = {"-v", ws, NULL};
	const char *sbx = it_sbx_path();
	char script[16384];
	struct it_run r;

	if (syscall(__NR_landlock_create_ruleset, NULL, 0, 1u /* VERSION */) < 6)
		it_skip(
		    "Landlock has no signal scope here (ABI < 6): a worker can kill its reaper");
	char body[8192];

	snprintf(body, sizeof(body),
	         "setsid sh -c 'echo planted > %s/src/escaped; echo appended >> %s/src/a.c;"
	         " touch \"$TMPDIR/done\"' </dev/null >/dev/null 2>&1 &\n"
	         "kill -9 $PPID; echo kill=$?\n"
	         "i=0; while [ ! -e \"$TMPDIR/done\" ] && [ $i -lt 600 ]; do sleep 0.1; "
	         "i=$((i+1)); done; echo waited=$i\n",
	         ws, ws);
	it_write_file(it_path(ws, "src/inner/t.sh"), body);
	snprintf(script, sizeof(script),
	         "%s run --restrict %s/src --allow-read %s -- %s run --restrict %s/src/inner "
	         "--readonly --allow-read %s -- sh %s/src/inner/t.sh; echo inner=$?",
	         sbx, ws, it_self_dir(), sbx, ws, it_self_dir(), ws);
	run_parent(&r, opts, script);
	IT_EXPECT_CONTAINS(r.out, "kill=1");
	IT_EXPECT_CONTAINS(r.out, "inner=0");
	IT_EXPECT(!exists(it_path(ws, "src/escaped")));
	{
		char buf[64] = "";
		int fd = open(it_path(ws, "src/a.c"), O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		if (fd >= 0)
			close(fd);
		IT_EXPECT(n >= 0 && strcmp(buf, "int main;\n") == 0);
	}
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_default_parent),
	    IT_CASE(test_restricted_agent_parent),
	    IT_CASE(test_claude_agent_parent),
	    IT_CASE(test_claude_agent_git_repo),
	    IT_CASE(test_depth_three),
	    IT_CASE(test_tmpdir),
	    IT_CASE(test_cap),
	    IT_CASE(test_race),
	    IT_CASE(test_churn),
	    IT_CASE(test_reaper_kept),
	};

	if (argc > 1 && strcmp(argv[1], "--sub") == 0)
		return sub_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
