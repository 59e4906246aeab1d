/* SPDX-License-Identifier: MIT */
/*
 * Load and faults: many sandboxes at once, sbx killed at random moments, workers killed by
 * every signal, escaping grandchildren, and setup errors. Afterwards the host's mount table
 * is as it was, and no process, zombie, temporary file or descriptor is left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* The host's mount table, without the per-mount ids that a remount would renumber. */
static char *mount_table(void)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char *buf = calloc(1, 1 << 20);
	size_t n = 0;

	IT_EXPECT(f != NULL && buf != NULL);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of dir starting with prefix, but the test harness's own (sbx-it*), which the
 * other test binaries running beside this one make and remove. */
static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 &&
		    strncmp(de->d_name, "sbx-it", 6) != 0)
			n++;
	if (d)
		closedir(d);
	return n;
}

static int count_fds(void)
{
	return count_entries("/proc/self/fd", "");
}

/* Our descendants that are still there (we are their subreaper), reaping zombies first. */
static int living_descendants(void)
{
	char path[64], line[4096];
	int n = 0;
	FILE *f;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f))
		for (char *p = line; *p;) {
			if (strtol(p, &p, 10) > 0)
				n++;
			while (*p == ' ' || *p == '\n')
				p++;
		}
	if (f)
		fclose(f);
	return n;
}

static void expect_nothing_left(const char *mounts_before, int fds_before, int tmp_before)
{
	char *after;
	int left = 0;

	/* The kernel tears a pid namespace down asynchronously after its init dies. */
	for (int i = 0; i < 300 && (left = living_descendants()) > 0; i++)
		usleep(10000);
	IT_EXPECT_INT(left, 0);
	after = mount_table();
	if (strcmp(mounts_before, after) != 0)
		it_fail(__FILE__, __LINE__,
		        "the host's mount table changed:\nbefore:\n%s\nafter:\n%s", mounts_before,
		        after);
	IT_EXPECT_INT(count_fds(), fds_before);
	IT_EXPECT_INT(count_entries("/tmp", "sbx"), tmp_before);
	free(after);
}

static pid_t spawn_sbx(const char *const *args)
{
	pid_t pid = fork();

	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		char *argv[32];
		int n = 0;

		argv[n++] = strdup(it_sbx_path());
		for (; args[n - 1] && n < 31; n++)
			argv[n] = strdup(args[n - 1]);
		argv[n] = NULL;
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execv(argv[0], argv);
		_exit(99);
	}
	return pid;
}

/* 200 sandboxes at once, 10 rounds: each exits with its own status. SBX_IT_LOAD_ROUNDS
 * lowers the rounds for the sanitizer pass (scripts/test.sh), where every launch is several
 * times dearer; the full load runs in the plain pass. */
static void test_load_200_at_once(void)
{
	enum { AT_ONCE = 200 };
	const char *env = getenv("SBX_IT_LOAD_ROUNDS");
	int ROUNDS = env && atoi(env) > 0 ? atoi(env) : 10;
	char *before;
	int fds, tmp;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	before = mount_table();
	fds = count_fds();
	tmp = count_entries("/tmp", "sbx");
	for (int round = 0; round < ROUNDS; round++) {
		pid_t pids[AT_ONCE];

		for (int i = 0; i < AT_ONCE; i++) {
			char code[16];
			const char *args[] = {"run", "--", "/bin/sh", "-c", "exit $0", code, NULL};

			snprintf(code, sizeof(code), "%d", (round * AT_ONCE + i) % 100);
			pids[i] = spawn_sbx(args);
		}
		for (int i = 0; i < AT_ONCE; i++) {
			int status;

			IT_EXPECT_INT(waitpid(pids[i], &status, 0), pids[i]);
			IT_EXPECT(WIFEXITED(status));
			IT_EXPECT_INT(WEXITSTATUS(status), (round * AT_ONCE + i) % 100);
		}
	}
	expect_nothing_left(before, fds, tmp);
}

/* SIGKILL of sbx at random moments, from before setup to well into the run. */
static void test_sigkill_at_random_moments(void)
{
	const char *t = it_tmpdir();
	char *marker = it_path(t, "worker-wrote");
	char script[4400];
	char *before;
	int fds, tmp;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	before = mount_table();
	fds = count_fds();
	tmp = count_entries("/tmp", "sbx");
	snprintf(script, sizeof(script), "sleep 0.2; touch %s; sleep 30", marker);
	for (int i = 0; i < 40; i++) {
		const char *args[] = {"run", "-v", t, "--", "/bin/sh", "-c", script, NULL};
		pid_t pid = spawn_sbx(args);
		int status;

		usleep((useconds_t)(rand() % 30000)); /* 0-30 ms: setup, exec, or the run */
		kill(pid, SIGKILL);
		IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
		IT_EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}
	expect_nothing_left(before, fds, tmp);
	/* and nothing of any sandbox went on to write after its sbx died */
	usleep(400000);
	IT_EXPECT(access(marker, F_OK) < 0);
}

static void test_worker_killed_by_each_signal(void)
{
	static const int sigs[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGABRT, SIGFPE,
	                           SIGKILL, SIGSEGV, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1,
	                           SIGUSR2, SIGBUS,  SIGSYS,  SIGTRAP, SIGXCPU, SIGXFSZ};
	struct it_run r;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char script[64];

		snprintf(script, sizeof(script), "kill -%d $$", sigs[i]);
		it_sbxv(&r, "run", "--", "/bin/sh", "-c", script, NULL);
		IT_EXPECT_INT(r.status, 128 + sigs[i]);
	}
}

/* A grandchild that ignores SIGTERM and leaves for its own session still dies with the
 * sandbox when the worker ends. */
static void test_escaping_grandchild_dies(void)
{
	const char *t = it_tmpdir();
	char script[4400], look[128], secs[32];
	struct it_run r;
	FILE *f;
	char line[64] = "";

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* A command line no other process has, not even this test's other variant running
	 * beside it: 61.<our pid> seconds. */
	snprintf(secs, sizeof(secs), "61.%d", (int)getpid());
	snprintf(look, sizeof(look), "pgrep -f '^sleep %s$' >/dev/null", secs);
	snprintf(script, sizeof(script),
	         "setsid sh -c 'trap \"\" TERM HUP; echo $$ > %s/gc; exec sleep %s' "
	         "</dev/null >/dev/null 2>&1 & sleep 0.3; exit 0",
	         t, secs);
	it_sbxv(&r, "run", "-v", t, "--", "/bin/sh", "-c", script, NULL);
	IT_EXPECT_INT(r.status, 0);
	f = fopen(it_path(t, "gc"), "r");
	IT_EXPECT(f != NULL);
	IT_EXPECT(fgets(line, sizeof(line), f) != NULL);
	fclose(f);
	/* Its pid is the sandbox's; from here, look for its command line anywhere. */
	for (int i = 0; i < 300 && system(look) == 0; i++)
		usleep(10000);
	IT_EXPECT(system(look) != 0);
	IT_EXPECT_INT(living_descendants(), 0);
}

/* When sbx has returned, no process of the sandbox holds anything of the caller's: processes
 * the worker left behind (one in a session of its own) that hold sbx's stdout are gone, and so
 * is init's copy (sbx returns the worker's status while init's namespaces are still being
 * torn down, once init has killed and reaped the rest and let go of the caller's
 * descriptors). The pipe's end of file is there at once, without waiting. Both backends. */
static void test_nothing_holds_output_after_return(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};

	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		for (int round = 0; round < 10; round++) {
			int pfd[2], status;
			char buf[256];
			pid_t pid;
			struct pollfd p;

			IT_EXPECT_INT(pipe2(pfd, O_CLOEXEC), 0);
			pid = fork();
			IT_EXPECT(pid >= 0);
			if (pid == 0) {
				dup2(pfd[1], 1);
				execl(it_sbx_path(), "sbx", "run", "--backend", backends[b], "--",
				      "/bin/sh", "-c",
				      "sleep 1000 & sleep 1000 & setsid sleep 1000 & echo started; "
				      "exit 0",
				      (char *)NULL);
				_exit(99);
			}
			close(pfd[1]);
			IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
			IT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			/* everything written is there, and then the end: no writer is left */
			fcntl(pfd[0], F_SETFL, O_NONBLOCK);
			for (;;) {
				ssize_t n = read(pfd[0], buf, sizeof(buf));

				if (n > 0)
					continue;
				if (n < 0 && errno == EAGAIN) {
					p = (struct pollfd){pfd[0], POLLIN, 0};
					IT_EXPECT(poll(&p, 1, 0) == 1 && (p.revents & POLLHUP));
					it_fail(__FILE__, __LINE__,
					        "%s: the sandbox's stdout still had a writer after "
					        "sbx returned",
					        backends[b]);
				}
				IT_EXPECT_INT((int)n, 0);
				break;
			}
			close(pfd[0]);
		}
	}
	IT_EXPECT_INT(living_descendants(), 0);
}

/* A caller that reaps orphans (a subreaper: a container's init, a CI runner) is left no
 * process of sbx's when sbx returns: sbx reaps the sandbox's init before it exits, also when
 * it returned the worker's status before init's end. Both backends, a worker that exits at
 * once and one that leaves children behind. */
static void test_no_zombie_for_the_callers_reaper(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};

	IT_EXPECT_INT(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		for (int round = 0; round < 10; round++) {
			int status;
			pid_t pid = fork();

			IT_EXPECT(pid >= 0);
			if (pid == 0) {
				execl(it_sbx_path(), "sbx", "run", "-q", "--backend", backends[b],
				      "--", "/bin/sh", "-c",
				      round % 2 ? "sleep 100 & exit 0" : "true", (char *)NULL);
				_exit(99);
			}
			IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
			IT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			/* not even a live child: nothing of sbx's was handed to us */
			errno = 0;
			if (waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD)
				it_fail(__FILE__, __LINE__,
				        "%s: a process of sbx's was left to the caller's reaper",
				        backends[b]);
		}
	}
}

/* Run sbx (argv[0] is its name) with one resource limit set to limit, stdin and stdout on
 * /dev/null, no descriptor but 0-2, SIGXFSZ at its default; its stderr into out. Returns
 * the wait status. */
static int run_sbx_limited(int resource, rlim_t limit, const char *const *argv, char *out,
                           size_t size)
{
	int pfd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	IT_EXPECT_INT(pipe(pfd), 0);
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {limit, limit};
		int devnull = open("/dev/null", O_RDWR);

		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(pfd[1], 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		signal(SIGXFSZ, SIG_DFL);
		setrlimit(resource, &rl);
		{
			char *a[16];
			size_t k = 0;

			for (; argv[k] && k < 15; k++)
				a[k] = strdup(argv[k]);
			a[k] = NULL;
			execv(it_sbx_path(), a);
		}
		_exit(99);
	}
	close(pfd[1]);
	while (len + 1 < size && (n = read(pfd[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pfd[0]);
	IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_setup_errors_leave_nothing(void)
{
	const char *t = it_tmpdir();
	char *before = mount_table();
	int fds = count_fds(), tmp = count_entries("/tmp", "sbx");
	char vol[4400];
	struct it_run r;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* a missing mount source */
	it_sbxv(&r, "run", "-v", it_path(t, "missing"), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "does not exist");
	/* a dangling symlink as source */
	IT_EXPECT_INT(symlink(it_path(t, "nowhere"), it_path(t, "dangling")), 0);
	it_sbxv(&r, "run", "-v", it_path(t, "dangling"), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "symlink");
	/* a target beneath a file */
	it_write_file(it_path(t, "ws/file"), "x");
	snprintf(vol, sizeof(vol), "%s:%s", it_path(t, "ws"), it_path(t, "ws/file/below"));
	it_sbxv(&r, "run", "-v", it_path(t, "ws"), "-v", vol, "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "beneath a file");
	/* EMFILE: sbx with almost no descriptors to spare fails cleanly, and says what to do */
	{
		const char *const argv[] = {"sbx", "run", "--", "/bin/true", NULL};
		char out[2048];
		int status = run_sbx_limited(RLIMIT_NOFILE, 6, argv, out, sizeof(out));

		IT_EXPECT(WIFEXITED(status));
		IT_EXPECT_INT(WEXITSTATUS(status), 125);
		IT_EXPECT_CONTAINS(out, "Too many open files");
		IT_EXPECT_CONTAINS(out, "ulimit -n");
	}
	expect_nothing_left(before, fds, tmp);
}

/* A small tmpfs at dir, in a mount namespace of this case's own (a user namespace too when
 * not root), so that the host never sees it. */
static void private_small_tmpfs(const char *dir, const char *opts)
{
	if (!it_is_root()) {
		char map[64];
		unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();

		IT_EXPECT_INT(unshare(CLONE_NEWUSER | CLONE_NEWNS), 0);
		it_write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "%u %u 1", uid, uid);
		it_write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "%u %u 1", gid, gid);
		it_write_file("/proc/self/gid_map", map);
	} else {
		IT_EXPECT_INT(unshare(CLONE_NEWNS), 0);
	}
	IT_EXPECT_INT(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	IT_EXPECT_INT(mkdir(dir, 0755), 0);
	IT_EXPECT_INT(mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts), 0);
}

/* Fill dir's file system: one file until its blocks run out, then empty files until its
 * inodes do. */
static void fill_up(const char *dir)
{
	static char block[4096];
	char *name = it_path(dir, "filler");
	int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ssize_t n;

	IT_EXPECT(fd >= 0);
	while ((n = write(fd, block, sizeof(block))) > 0)
		;
	IT_EXPECT_INT(n < 0 ? errno : 0, ENOSPC);
	close(fd);
	for (int i = 0;; i++) {
		char leaf[32];

		snprintf(leaf, sizeof(leaf), "inode-%d", i);
		fd = open(it_path(dir, leaf), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			IT_EXPECT_INT(errno, ENOSPC);
			break;
		}
		close(fd);
	}
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A worker that fills a small tmpfs gets ENOSPC like anywhere else; the sandbox exits with
 * the worker's own status and leaves nothing behind. */
static void test_worker_fills_a_tmpfs(void)
{
	const char *t = it_tmpdir();
	char *small = it_path(t, "small"), script[4400], *before;
	struct stat st;
	struct it_run r;
	int fds, tmp;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	private_small_tmpfs(small, "size=64k,nr_inodes=32,mode=0777");
	before = mount_table();
	fds = count_fds();
	tmp = count_entries("/tmp", "sbx");
	snprintf(script, sizeof(script), "head -c 1048576 /dev/zero > %s/fill; exit $?", small);
	it_sbxv(&r, "run", "-q", "-v", small, "--", "/bin/sh", "-c", script, NULL);
	IT_EXPECT_INT(r.status, 1); /* head's own status */
	IT_EXPECT_CONTAINS(r.err, "No space left on device");
	IT_EXPECT_NOT_CONTAINS(r.err, "sbx:");
	IT_EXPECT_INT(stat(it_path(small, "fill"), &st), 0);
	IT_EXPECT(st.st_size > 0 && st.st_size <= 65536);
	expect_nothing_left(before, fds, tmp);
	IT_EXPECT_INT(umount2(small, MNT_DETACH), 0);
}

/* The glob-walk cache is an optimisation: on a full file system (no blocks, or no inodes
 * even for its directory) a launch still hides what it must and runs, says nothing, and
 * leaves no half-written cache file. */
static void test_full_cache_still_launches(void)
{
	static const char *const opts[] = {"size=64k,nr_inodes=1024", "size=1m,nr_inodes=4"};
	const char *t = it_tmpdir();
	char *ws = it_path(t, "ws"), hide[4400], script[4400];
	struct it_run r;

	it_write_file(it_path(ws, "a"), "content-a");
	it_write_file(it_path(ws, "sub/.env"), "SECRET=1");
	snprintf(hide, sizeof(hide), "%s/**/.env", ws);
	snprintf(script, sizeof(script), "! grep -q SECRET %s/sub/.env && cat %s/a", ws, ws);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char leaf[16], *cache, *before;
		int fds, tmp;
		pid_t pid;
		int status;

		snprintf(leaf, sizeof(leaf), "cache%zu", i);
		cache = it_path(t, leaf);
		/* each in a child: a mount namespace (and user namespace) of its own */
		pid = fork();
		IT_EXPECT(pid >= 0);
		if (pid == 0) {
			prctl(PR_SET_CHILD_SUBREAPER, 1);
			private_small_tmpfs(cache, opts[i]);
			if (i == 0)
				IT_EXPECT_INT(mkdir(it_path(cache, "sbx"), 0700), 0);
			fill_up(cache);
			before = mount_table();
			fds = count_fds();
			tmp = count_entries("/tmp", "sbx");
			setenv("XDG_CACHE_HOME", cache, 1);
			for (int round = 0; round < 2; round++) {
				it_sbxv(&r, "run", "-q", "-v", ws, "--hide", hide, "--", "/bin/sh",
				        "-c", script, NULL);
				IT_EXPECT_INT(r.status, 0);
				IT_EXPECT_CONTAINS(r.out, "content-a");
				IT_EXPECT_NOT_CONTAINS(r.err, "sbx:");
			}
			/* no cache file, whole or half-written */
			if (i == 0)
				IT_EXPECT_INT(count_entries(it_path(cache, "sbx"), "globwalk"), 0);
			else
				IT_EXPECT(access(it_path(cache, "sbx"), F_OK) < 0);
			expect_nothing_left(before, fds, tmp);
			IT_EXPECT_INT(umount2(cache, MNT_DETACH), 0);
			_exit(0);
		}
		IT_EXPECT_INT(waitpid(pid, &status, 0), pid);
		IT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

/* sbx under a file size limit (ulimit -f) smaller than its own memfd writes: one clear line
 * and 125, never a silent death by SIGXFSZ nor a truncated seccomp filter; with a limit that
 * fits, the worker runs under the caller's limit and SIGXFSZ disposition. */
static void test_file_size_limit(void)
{
	static const struct {
		rlim_t limit;
		const char *script;
		int status;
		const char *says;
	} cases[] = {
	    {0, "exit 0", 125, "ulimit -f"},
	    {512, "exit 0", 125, "ulimit -f"},
	    {1024, "exit 0", 125, "ulimit -f"},
	    {1 << 20, "test \"$(ulimit -f)\" = 2048", 0, NULL},
	    {1 << 20, "exec head -c 2000000 /dev/zero > /tmp/big", 128 + SIGXFSZ, NULL},
	};
	char *before = mount_table();
	int fds = count_fds(), tmp = count_entries("/tmp", "sbx");

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const argv[] = {"sbx", "run",           "--", "/bin/sh",
		                            "-c",  cases[i].script, NULL};
		char out[2048];
		int status = run_sbx_limited(RLIMIT_FSIZE, cases[i].limit, argv, out, sizeof(out));

		if (!WIFEXITED(status))
			it_fail(__FILE__, __LINE__,
			        "limit %lu: sbx was killed by signal %d; it said: %s",
			        (unsigned long)cases[i].limit, WTERMSIG(status), out);
		IT_EXPECT_INT(WEXITSTATUS(status), cases[i].status);
		if (cases[i].says) {
			IT_EXPECT_CONTAINS(out, cases[i].says);
			IT_EXPECT_INT(count_lines(out), 1);
		} else {
			IT_EXPECT_NOT_CONTAINS(out, "sbx:");
		}
	}
	expect_nothing_left(before, fds, tmp);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_load_200_at_once),
	    IT_CASE(test_sigkill_at_random_moments),
	    IT_CASE(test_worker_killed_by_each_signal),
	    IT_CASE(test_escaping_grandchild_dies),
	    IT_CASE(test_nothing_holds_output_after_return),
	    IT_CASE(test_no_zombie_for_the_callers_reaper),
	    IT_CASE(test_setup_errors_leave_nothing),
	    IT_CASE(test_worker_fills_a_tmpfs),
	    IT_CASE(test_full_cache_still_launches),
	    IT_CASE(test_file_size_limit),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
