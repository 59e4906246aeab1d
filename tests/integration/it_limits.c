/* SPDX-License-Identifier: MIT */
/*
 * Limits (sbx(1), LIMITS; include/sbx/limits.h): a fork loop stops at pids, a memory hog ends
 * the whole sandbox with its line and 137, a timeout exits 124 and leaves no process, an
 * inotify exhaustion inside leaves the caller's instances to the host and to a second sandbox,
 * every tmpfs has its size, a child cannot raise a limit, a killed sbx's cgroup is swept. As
 * root (a cgroup: v2 where delegated, else v1 per controller) and as a user (on a host whose
 * controllers are on v1 a user gets no cgroup: memory and cpu are refused, or warned with
 * --best-effort; pids holds through RLIMIT_NPROC in the sandbox's user namespace).
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define SBX_IT_N(a) (sizeof(a) / sizeof((a)[0]))

/* Can this caller have a cgroup with the memory controller? Root on these hosts can (v1 or
 * v2); a user only in a delegated v2 subtree: what `sbx doctor` finds, asked the same way. */
static bool have_cgroup(void)
{
	struct it_run r;

	it_sbxv(&r, "doctor", NULL);
	return strstr(r.out, "ok   limits           memory, pids, cpu") != NULL;
}

/* A bounded fork loop: forks (each child waits on a pipe) until fork fails or 200 are up,
 * prints "N ERRNO", then lets them all go. */
static const char fork_loop[] = "import os, errno\n"
                                "r, w = os.pipe()\n"
                                "n, e = 0, 'none'\n"
                                "while n < 200:\n"
                                "    try:\n"
                                "        pid = os.fork()\n"
                                "    except OSError as x:\n"
                                "        e = errno.errorcode[x.errno]\n"
                                "        break\n"
                                "    if pid == 0:\n"
                                "        os.close(w)\n"
                                "        os.read(r, 1)\n"
                                "        os._exit(0)\n"
                                "    n += 1\n"
                                "print(n, e, flush=True)\n"
                                "os.close(w)\n"
                                "while True:\n"
                                "    try:\n"
                                "        os.wait()\n"
                                "    except ChildProcessError:\n"
                                "        break\n";

static void fork_loop_stops(const char *backend)
{
	struct it_run r;

	it_sbxv(&r, "run", "--backend", backend, "--limit", "pids=16", "--", "python3", "-c",
	        fork_loop, NULL);
	if (!strcmp(backend, "landlock") && !have_cgroup()) {
		/* no pid namespace and no cgroup: nothing can count the sandbox's tasks */
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "cannot enforce limit pids");
		IT_EXPECT_CONTAINS(r.err, "--best-effort");
		return;
	}
	IT_EXPECT_INT(r.status, 0);
	/* python itself is one task of the 16: at most 15 children, and the loop stopped at the
	 * limit (EAGAIN), not at its own bound of 200 */
	IT_EXPECT_CONTAINS(r.out, " EAGAIN");
	IT_EXPECT(atoi(r.out) >= 8 && atoi(r.out) <= 15);
	/* the host could still fork: we are here */
}

static void test_pids_fork_loop_stops(void)
{
	fork_loop_stops("namespaces");
}

static void test_pids_fork_loop_stops_landlock(void)
{
	fork_loop_stops("landlock");
}

/* A memory hog under sh: the hog is what the oom killer picks, and sh must go with it. */
static const char hog[] = "python3 -c 'x = []\nwhile True: x.append(bytearray(1 << 20))'; "
                          "echo survived";

static void memory_hog(const char *backend)
{
	struct it_run r;

	it_sbxv(&r, "run", "--backend", backend, "--limit", "memory=64M", "--", "sh", "-c", hog,
	        NULL);
	if (!have_cgroup()) {
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "sbx: cannot enforce limit memory");
		IT_EXPECT_CONTAINS(r.err, "--best-effort");
		IT_EXPECT_NOT_CONTAINS(r.out, "survived");
		/* with --best-effort it runs, with one warning line (not the hog: that would
		 * take the machine's memory) */
		it_sbxv(&r, "run", "--backend", backend, "--best-effort", "--limit", "memory=64M",
		        "--", "echo", "ran", NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "ran");
		IT_EXPECT_CONTAINS(r.err, "sbx: warning: cannot enforce limit memory");
		IT_EXPECT_CONTAINS(r.err, "running without it (--best-effort)");
		IT_EXPECT(strchr(r.err, '\n') == r.err + strlen(r.err) - 1); /* one line */
		return;
	}
	IT_EXPECT_INT(r.status, 137);
	IT_EXPECT_CONTAINS(r.err, "sbx: killed: memory limit 64M reached\n");
	/* the whole sandbox went, not the hog alone */
	IT_EXPECT_NOT_CONTAINS(r.out, "survived");
	/* another SIGKILL is not the memory limit's */
	it_sbxv(&r, "run", "--backend", backend, "--limit", "memory=64M", "--", "sh", "-c",
	        "kill -9 $$", NULL);
	IT_EXPECT_INT(r.status, 137);
	IT_EXPECT_NOT_CONTAINS(r.err, "memory limit");
}

static void test_memory_hog_killed(void)
{
	memory_hog("namespaces");
}

static void test_memory_hog_killed_landlock(void)
{
	memory_hog("landlock");
}

/* Every process whose command line holds `marker` (NUL-separated args joined): each is waited
 * for through a pidfd, up to 10 s, and the case fails if one is still alive then. */
static int wait_gone(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int alive = 0;

	IT_EXPECT(d != NULL);
	while ((e = readdir(d))) {
		char path[300], buf[4096];
		int fd, pfd;
		ssize_t n;
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[n] = '\0';
		if (!strstr(buf, marker))
			continue;
		pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pfd < 0)
			continue; /* gone already */
		{
			struct pollfd p = {pfd, POLLIN, 0};

			if (poll(&p, 1, 10000) != 1)
				alive++;
		}
		close(pfd);
	}
	closedir(d);
	return alive;
}

static void timeout_kills_all(const char *backend)
{
	char marker[64], script[512];
	struct it_run r;
	bool whole = strcmp(backend, "landlock") != 0 || have_cgroup();

	/* a unique argument to find what the sandbox started; a setsid grandchild escapes a
	 * process group, so it is asked only where a pid namespace or a cgroup holds it (the
	 * landlock backend without a cgroup is the subreaper's, issue 15 item 5) */
	snprintf(marker, sizeof(marker), "%d.%ld", (int)getpid() % 1000 + 100,
	         (long)time(NULL) % 97);
	snprintf(script, sizeof(script), "sleep %s & %s sleep %s & sleep %s; echo after", marker,
	         whole ? "setsid" : "", marker, marker);
	it_sbxv(&r, "run", "--backend", backend, "--limit", "timeout=1s", "--", "sh", "-c", script,
	        NULL);
	IT_EXPECT_INT(r.status, 124);
	IT_EXPECT_CONTAINS(r.err, "sbx: killed: timeout 1s reached\n");
	IT_EXPECT_NOT_CONTAINS(r.out, "after");
	IT_EXPECT_INT(wait_gone(marker), 0);
}

static void test_timeout_exits_124_leaves_nothing(void)
{
	timeout_kills_all("namespaces");
}

static void test_timeout_exits_124_leaves_nothing_landlock(void)
{
	timeout_kills_all("landlock");
}

/* A sandbox that ends before its timeout keeps its own status. */
static void test_timeout_not_reached(void)
{
	struct it_run r;

	it_sbxv(&r, "run", "--limit", "timeout=1h", "--", "sh", "-c", "exit 3", NULL);
	IT_EXPECT_INT(r.status, 3);
	IT_EXPECT_NOT_CONTAINS(r.err, "killed");
}

/* sbx started with pipes on stdin and stdout; returns its pid. */
static pid_t spawn_sbx(const char *const *args, int *in, int *out)
{
	int pin[2], pout[2];
	char *argv[64];
	size_t n = 0;
	pid_t pid;

	IT_EXPECT(pipe2(pin, O_CLOEXEC) == 0 && pipe2(pout, O_CLOEXEC) == 0);
	argv[n++] = (char *)(uintptr_t)it_sbx_path();
	for (; *args && n < 63; args++)
		argv[n++] = (char *)(uintptr_t)*args;
	argv[n] = NULL;
	pid = fork();
	IT_EXPECT(pid >= 0);
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	*in = pin[1];
	*out = pout[0];
	return pid;
}

/* One line from fd (blocking: sbx writes it or closes the pipe). */
static void read_line(int fd, char *buf, size_t size)
{
	size_t got = 0;

	while (got + 1 < size) {
		ssize_t n = read(fd, buf + got, 1);

		if (n <= 0 || buf[got] == '\n')
			break;
		got++;
	}
	buf[got] = '\0';
}

/* inotify_init1 until it fails; prints "N ERRNO"; holds them until stdin closes with "hold". */
static const char inotify_loop[] =
    "import ctypes, os, sys, errno\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "n = 0\n"
    "while n < 100000 and libc.inotify_init1(0) >= 0:\n"
    "    n += 1\n"
    "print(n, errno.errorcode.get(ctypes.get_errno(), '?'), flush=True)\n"
    "if len(sys.argv) > 1: sys.stdin.read()\n";

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? atol(buf) : -1;
}

static void test_inotify_exhaustion_leaves_host_and_second_sandbox(void)
{
	const char *const a_args[] = {"run", "--", "python3", "-c", inotify_loop, "hold", NULL};
	long host_max = read_long("/proc/sys/user/max_inotify_instances");
	char line[256];
	struct it_run r;
	int in, out, fd, st;
	pid_t a;

	if (host_max < 8)
		it_skip("/proc/sys/user/max_inotify_instances is %ld", host_max);
	/* sandbox A takes every instance it can, and holds them */
	a = spawn_sbx(a_args, &in, &out);
	read_line(out, line, sizeof(line));
	IT_EXPECT_CONTAINS(line, " EMFILE");
	/* its share: a quarter of the caller's, less where other sandboxes of the caller run
	 * (test_concurrent_sandboxes_leave_the_caller_some) */
	IT_EXPECT(atol(line) >= 1 && atol(line) <= host_max / 4);
	/* the caller's own are still usable on the host ... */
	fd = inotify_init1(IN_CLOEXEC);
	IT_EXPECT(fd >= 0);
	IT_EXPECT(inotify_add_watch(fd, it_tmpdir(), IN_CREATE) >= 0);
	close(fd);
	/* ... and in a second sandbox, while A holds its share */
	it_sbxv(&r, "run", "--", "python3", "-c", inotify_loop, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(atol(r.out) >= 1);
	close(in);
	IT_EXPECT(waitpid(a, &st, 0) == a);
	IT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(out);
}

/* Sandboxes of one caller running at once (issue 15, F9): each gets a quarter of what those
 * before it left (os/shareslot.h), so five that each take every inotify instance they can
 * leave the caller some, where five quarters left it none. */
static void test_concurrent_sandboxes_leave_the_caller_some(void)
{
	enum { N = 5 };
	const char *const args[] = {"run", "--", "python3", "-c", inotify_loop, "hold", NULL};
	long host_max = read_long("/proc/sys/user/max_inotify_instances"), left, bound = 0;
	long sum = 0;
	int in[N], out[N], fd, st;
	pid_t pid[N];

	if (host_max < 16)
		it_skip("/proc/sys/user/max_inotify_instances is %ld", host_max);
	/* the most N sandboxes at once can have: the N lowest ranks' shares */
	left = host_max;
	for (int k = 0; k < N; k++) {
		bound += left / 4 ? left / 4 : 1;
		left -= left / 4;
	}
	for (int i = 0; i < N; i++) {
		char line[256];

		pid[i] = spawn_sbx(args, &in[i], &out[i]);
		read_line(out[i], line, sizeof(line));
		IT_EXPECT_CONTAINS(line, " EMFILE");
		/* each has some, none more than a quarter */
		IT_EXPECT(atol(line) >= 1 && atol(line) <= host_max / 4);
		sum += atol(line);
	}
	IT_EXPECT(sum <= bound);
	/* while all five hold theirs, the caller's are still usable */
	fd = inotify_init1(IN_CLOEXEC);
	IT_EXPECT(fd >= 0);
	close(fd);
	for (int i = 0; i < N; i++) {
		close(in[i]);
		IT_EXPECT(waitpid(pid[i], &st, 0) == pid[i]);
		IT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(out[i]);
	}
}

/* A tmpfs's size holds: a write beyond it fails with ENOSPC. */
static const char fill[] = "import os, sys, errno\n"
                           "try:\n"
                           "    with open(sys.argv[1], 'wb') as f:\n"
                           "        f.write(b'x' * (3 << 20))\n"
                           "    print('wrote')\n"
                           "except OSError as e:\n"
                           "    print(errno.errorcode[e.errno])\n"
                           "s = os.statvfs(os.path.dirname(sys.argv[1]))\n"
                           "print('size', s.f_blocks * s.f_frsize)\n";

static void test_tmpfs_size_holds(void)
{
	struct sysinfo si;
	unsigned long long dflt;
	char want[64];
	struct it_run r;

	/* --mount type=tmpfs,size= */
	it_sbxv(&r, "run", "--mount", "type=tmpfs,target=/scratch,size=1M", "--", "python3", "-c",
	        fill, "/scratch/f", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ENOSPC");
	IT_EXPECT_CONTAINS(r.out, "size 1048576\n");
	/* --limit tmpfs= sizes the private /tmp and /dev/shm */
	it_sbxv(&r, "run", "-v", it_tmpdir(), "--limit", "tmpfs=2M", "--", "python3", "-c", fill,
	        "/dev/shm/f", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ENOSPC");
	IT_EXPECT_CONTAINS(r.out, "size 2097152\n");
	it_sbxv(&r, "run", "-v", it_tmpdir(), "--limit", "tmpfs=2M", "--", "python3", "-c", fill,
	        "/tmp/f", NULL);
	IT_EXPECT_CONTAINS(r.out, "ENOSPC");
	/* the default: an eighth of RAM (at least 64M), whole pages */
	IT_EXPECT(sysinfo(&si) == 0);
	dflt = (unsigned long long)si.totalram * si.mem_unit / 8;
	if (dflt < (64ull << 20))
		dflt = 64ull << 20;
	dflt &= ~4095ull;
	snprintf(want, sizeof(want), "size %llu\n", dflt);
	it_sbxv(&r, "run", "-v", it_tmpdir(), "--", "python3", "-c",
	        "import os; s = os.statvfs('/dev/shm'); print('size', s.f_blocks * s.f_frsize)",
	        NULL);
	IT_EXPECT_CONTAINS(r.out, want);
	/* a memory limit caps it (where there is one to set) */
	if (have_cgroup()) {
		it_sbxv(&r, "run", "-v", it_tmpdir(), "--limit", "memory=64M", "--", "python3",
		        "-c",
		        "import os; s = os.statvfs('/tmp'); print('size', s.f_blocks * s.f_frsize)",
		        NULL);
		IT_EXPECT_CONTAINS(r.out, "size 67108864\n");
	}
}

/* nofile and fsize are rlimits, under both backends. */
static void test_rlimits(void)
{
	static const char *const backends[] = {"namespaces", "landlock"};
	struct it_run r;

	for (size_t i = 0; i < 2; i++) {
		it_sbxv(&r, "run", "--backend", backends[i], "-v", it_tmpdir(), "--limit",
		        "nofile=64", "--limit", "fsize=1M", "--", "python3", "-c",
		        "import resource, os, errno, sys\n"
		        "print('nofile', resource.getrlimit(resource.RLIMIT_NOFILE))\n"
		        "try:\n"
		        "    open(sys.argv[1], 'wb').write(b'x' * (2 << 20))\n"
		        "except OSError as e: print(errno.errorcode[e.errno])\n",
		        it_path(it_tmpdir(), "big"), NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "nofile (64, 64)");
		IT_EXPECT_CONTAINS(r.out, "EFBIG");
	}
	/* a bad value names the key, the value and what is allowed; nothing runs */
	it_sbxv(&r, "run", "--limit", "memory=lots", "--", "echo", "ran", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "limit memory: 'lots' is not a size from 4M");
	IT_EXPECT_NOT_CONTAINS(r.out, "ran");
}

static const char *sbx_dir_ro(void)
{
	static char buf[4200];
	char copy[4096], *slash;

	snprintf(copy, sizeof(copy), "%s", it_sbx_path());
	slash = strrchr(copy, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, sizeof(buf), "%s:ro", copy);
	return buf;
}

/* A child may only lower a limit: asking more is refused (125), lowering holds. */
static void test_child_cannot_raise_limit(void)
{
	struct it_run r;

	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--limit", "nofile=256",
	        "--limit", "timeout=1h", "--", it_sbx_path(), "run", "--limit", "nofile=1024", "--",
	        "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "cannot raise limit nofile to 1024: the parent sandbox's is 256");
	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--limit", "timeout=1h", "--",
	        it_sbx_path(), "run", "--limit", "timeout=2h", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "cannot raise limit timeout to 2h: the parent sandbox's is 1h");
	/* lowering holds, and what is not asked is inherited */
	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--limit", "nofile=256", "--",
	        it_sbx_path(), "run", "--limit", "fsize=1M", "--", "sh", "-c",
	        "ulimit -n; ulimit -f", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "256\n2048\n");
	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--limit", "nofile=256", "--",
	        it_sbx_path(), "run", "--limit", "nofile=100", "--", "sh", "-c", "ulimit -n", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "100\n");
	/* the nested sbx says it: --dry-run shows the parent's limits as inherited */
	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--limit", "nofile=256", "--",
	        it_sbx_path(), "run", "--dry-run", "--", "true", NULL);
	IT_EXPECT_CONTAINS(r.out, "resources:  nofile 256 (the parent's)");
}

/* --dry-run says what the run would do with memory, pids and cpu (issue 15, F6): the same
 * refusal and 125 where no cgroup can hold them, the same warning with --best-effort, and how
 * each limit holds (cgroup v1 or v2, RLIMIT_NPROC, none), in the text and in the JSON. */
static void test_dry_run_limits_as_the_run(void)
{
	static const char *const asks[][2] = {
	    {"memory=64M", "memory"}, {"cpu=1", "cpu"}, {"pids=16", "pids"}};
	bool cg = have_cgroup();
	struct it_run r, dry;

	for (size_t i = 0; i < SBX_IT_N(asks); i++) {
		char want[64];

		it_sbxv(&r, "run", "--limit", asks[i][0], "--", "true", NULL);
		it_sbxv(&dry, "run", "--dry-run", "--limit", asks[i][0], "--", "true", NULL);
		/* the dry run's status is the run's */
		IT_EXPECT_INT(dry.status, r.status);
		if (cg || !strcmp(asks[i][1], "pids")) {
			IT_EXPECT_INT(dry.status, 0);
			snprintf(want, sizeof(want), "resources:  %s ", asks[i][1]);
			IT_EXPECT_CONTAINS(dry.out, want);
			IT_EXPECT_CONTAINS(dry.out, cg ? " (cgroup v" : " (RLIMIT_NPROC)");
			continue;
		}
		/* the run's refusal, word for word, and no plan on stdout */
		IT_EXPECT_INT(dry.status, 125);
		snprintf(want, sizeof(want), "sbx: cannot enforce limit %s", asks[i][1]);
		IT_EXPECT_CONTAINS(dry.err, want);
		IT_EXPECT_CONTAINS(r.err, want);
		IT_EXPECT(!strcmp(dry.err, r.err));
		IT_EXPECT_INT((int)strlen(dry.out), 0);
	}
	/* --best-effort: the run's warning, and the plan says what is not enforced */
	it_sbxv(&dry, "run", "--dry-run", "--best-effort", "--limit", "memory=64M", "--", "true",
	        NULL);
	IT_EXPECT_INT(dry.status, 0);
	if (cg) {
		IT_EXPECT_CONTAINS(dry.out, "resources:  memory 64M (cgroup v");
		IT_EXPECT_INT((int)strlen(dry.err), 0);
	} else {
		IT_EXPECT_CONTAINS(dry.out, "resources:  memory 64M (not enforced: --best-effort)");
		IT_EXPECT_CONTAINS(dry.err, "sbx: warning: cannot enforce limit memory");
		IT_EXPECT_CONTAINS(dry.err, "running without it (--best-effort)");
	}
	it_sbxv(&dry, "run", "--dry-run", "--json", "--best-effort", "--limit", "memory=64M",
	        "--limit", "nofile=64", "--", "true", NULL);
	IT_EXPECT_INT(dry.status, 0);
	IT_EXPECT_CONTAINS(dry.out, cg ? "\"memory\":{\"value\":67108864,\"text\":\"64M\","
	                                 "\"own\":true,\"held_by\":\"cgroup v"
	                               : "\"memory\":{\"value\":67108864,\"text\":\"64M\","
	                                 "\"own\":true,\"held_by\":\"none\"}");
	IT_EXPECT_CONTAINS(dry.out, "\"held_by\":\"rlimit\"");
	if (!cg)
		IT_EXPECT_CONTAINS(dry.out, "\"not_enforced\":\"cannot enforce limit memory");
}

/* A nested sandbox lowers pids (issue 15, F7): with a user namespace of its own (the parent
 * allows nesting) RLIMIT_NPROC holds it; without one (the landlock backend inside a parent that
 * forbids nesting) it is refused with a line that says why and what to do, and
 * --best-effort runs it with one warning, as its hint says. */
static void test_nested_pids(void)
{
	char restrict_dir[4200];
	struct it_run r;

	snprintf(restrict_dir, sizeof(restrict_dir), "%s:ro", it_tmpdir());
	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--", it_sbx_path(), "run",
	        "--limit", "pids=16", "--", "python3", "-c", fork_loop, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, " EAGAIN");
	IT_EXPECT(atoi(r.out) >= 8 && atoi(r.out) <= 15);
	/* a parent that forbids nesting: the sub-worker is on the landlock backend */
	it_sbxv(&r, "run", "-v", sbx_dir_ro(), "-v", restrict_dir, "--", it_sbx_path(), "run",
	        "--restrict", it_tmpdir(), "--limit", "pids=16", "--", "echo", "ran", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_NOT_CONTAINS(r.out, "ran");
	IT_EXPECT_CONTAINS(r.err, "sbx: cannot enforce limit pids in a nested sandbox");
	IT_EXPECT_CONTAINS(r.err, "no user namespace of its own");
	IT_EXPECT_CONTAINS(r.err, "--allow-nesting");
	IT_EXPECT_CONTAINS(r.err, "--best-effort");
	IT_EXPECT_NOT_CONTAINS(r.err, "run sbx as root");
	it_sbxv(&r, "run", "-v", sbx_dir_ro(), "-v", restrict_dir, "--", it_sbx_path(), "run",
	        "--best-effort", "--restrict", it_tmpdir(), "--limit", "pids=16", "--", "echo",
	        "ran", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ran");
	IT_EXPECT_CONTAINS(r.err, "sbx: warning: cannot enforce limit pids in a nested sandbox");
	IT_EXPECT_CONTAINS(r.err, "running without it (--best-effort)");
	/* its dry run says the same */
	it_sbxv(&r, "run", "-v", sbx_dir_ro(), "-v", restrict_dir, "--", it_sbx_path(), "run",
	        "--dry-run", "--restrict", it_tmpdir(), "--limit", "pids=16", "--", "echo", "ran",
	        NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "sbx: cannot enforce limit pids in a nested sandbox");
}

/* A sandbox nested in one that allows nesting gets its share of the parent's per-user counts
 * (its parent's /proc/sys is read-only: its init writes through a procfs of its own; before,
 * it skipped the read-only file and the nested sandbox could take the parent's whole share:
 * an outside attack). */
static void test_nested_inotify_share(void)
{
	struct it_run r;
	char script[4400];

	snprintf(script, sizeof(script),
	         "cat /proc/sys/user/max_inotify_instances; %s run -q -- cat "
	         "/proc/sys/user/max_inotify_instances",
	         it_sbx_path());
	it_sbxv(&r, "run", "--allow-nesting", "-v", sbx_dir_ro(), "--", "/bin/sh", "-c", script,
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	{
		long parent = -1, nested = -1;

		if (sscanf(r.out, "%ld %ld", &parent, &nested) != 2)
			it_fail(__FILE__, __LINE__, "no two counts: %s%s", r.out, r.err);
		if (!(nested > 0 && nested < parent))
			it_fail(__FILE__, __LINE__, "nested %ld, parent %ld", nested, parent);
	}
}

/* A killed sbx leaves its cgroup; the next sbx beside it removes it (root: a cgroup here). */
static void test_killed_sbx_cgroup_swept(void)
{
	const char *const args[] = {
	    "run", "--limit", "memory=64M", "--", "sh", "-c", "echo ready; read x; exit 0", NULL};
	char line[64], name[64], dir[4200] = "";
	struct it_run r;
	int in, out, st;
	pid_t pid;
	FILE *f;

	if (!have_cgroup())
		it_skip("no cgroup for this user (refused instead: test_memory_hog_killed)");
	pid = spawn_sbx(args, &in, &out);
	read_line(out, line, sizeof(line));
	IT_EXPECT_CONTAINS(line, "ready");
	/* where sbx made it: beside the caller's own memory cgroup */
	f = fopen("/proc/self/cgroup", "re");
	IT_EXPECT(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, ":memory:");

		if (c) {
			c[strcspn(c, "\n")] = '\0';
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", c + 8);
		}
	}
	fclose(f);
	if (!dir[0]) {
		char own[2048] = "";

		f = fopen("/proc/self/cgroup", "re");
		while (f && fgets(own, sizeof(own), f))
			if (!strncmp(own, "0::", 3)) {
				own[strcspn(own, "\n")] = '\0';
				snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", own + 3);
			}
		if (f)
			fclose(f);
	}
	snprintf(name, sizeof(name), "sbx-%d-", (int)pid);
	char full[4096] = "";
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		bool found = false;

		IT_EXPECT(d != NULL);
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, name, strlen(name))) {
				found = true;
				snprintf(full, sizeof(full), "%s/%s", dir, e->d_name);
			}
		closedir(d);
		IT_EXPECT(found);
	}
	kill(pid, SIGKILL);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	close(in);
	close(out);
	/* the sandbox ends with its sbx (init's parent-death signal, its pid namespace), a
	 * moment later: the sweep removes only an empty cgroup, so wait until it is (bounded) */
	for (int i = 0; i < 1000; i++) {
		char procs[4096] = "";
		int fd = open(it_path(full, "cgroup.procs"), O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, procs, sizeof(procs) - 1) : 0;

		if (fd >= 0)
			close(fd);
		if (fd < 0 || n <= 0)
			break;
		usleep(10000);
	}
	it_sbxv(&r, "run", "--limit", "memory=64M", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	{
		DIR *d = opendir(dir);
		struct dirent *e;

		IT_EXPECT(d != NULL);
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, name, strlen(name)))
				it_fail(__FILE__, __LINE__, "%s/%s is still there", dir, e->d_name);
		closedir(d);
	}
}

/* cpu: the cgroup's quota is the fraction asked (v1 cfs quota and period, v2 cpu.max). */
static void test_cpu_quota(void)
{
	const char *const args[] = {
	    "run", "--limit", "cpu=50%", "--", "sh", "-c", "echo ready; read x; exit 0", NULL};
	char line[512], dir[4200] = "", name[64], file[4400], buf[64] = "";
	struct it_run r;
	int in, out, st, fd;
	bool v2 = false;
	pid_t pid;
	FILE *f;

	if (!have_cgroup()) {
		it_sbxv(&r, "run", "--limit", "cpu=0.5", "--", "true", NULL);
		IT_EXPECT_INT(r.status, 125);
		IT_EXPECT_CONTAINS(r.err, "cannot enforce limit cpu");
		return;
	}
	f = fopen("/proc/self/cgroup", "re");
	IT_EXPECT(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (!strcmp(c1 + 1, "cpu") || !strncmp(c1 + 1, "cpu,", 4))
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/%s%s", c1 + 1, c2 + 1);
	}
	fclose(f);
	if (!dir[0]) {
		/* cgroup v2: the caller's own, where sbx made it */
		f = fopen("/proc/self/cgroup", "re");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", line + 3);
			}
		if (f)
			fclose(f);
		v2 = true;
	}
	pid = spawn_sbx(args, &in, &out);
	read_line(out, line, sizeof(line));
	IT_EXPECT_CONTAINS(line, "ready");
	snprintf(name, sizeof(name), "sbx-%d-", (int)pid);
	{
		DIR *d = opendir(dir);
		struct dirent *e;

		IT_EXPECT(d != NULL);
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, name, strlen(name)))
				snprintf(file, sizeof(file), "%s/%s/%s", dir, e->d_name,
				         v2 ? "cpu.max" : "cpu.cfs_quota_us");
		closedir(d);
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	IT_EXPECT(fd >= 0);
	IT_EXPECT(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	IT_EXPECT_CONTAINS(buf, v2 ? "50000 100000" : "50000");
	close(in);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	IT_EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(out);
}

/* As root, two sandboxes at once run as distinct host id ranges (no shared per-user pool). */
static void test_root_sandboxes_have_distinct_ids(void)
{
	const char *const args[] = {"run", "--", "sh", "-c", "cat /proc/self/uid_map; read x",
	                            NULL};
	char a[128], b[128];
	int in, out, st;
	pid_t pid;
	struct it_run r;

	if (!it_is_root())
		it_skip("root only: a user's sandboxes are its own uid");
	pid = spawn_sbx(args, &in, &out);
	read_line(out, a, sizeof(a));
	it_sbxv(&r, "run", "--", "cat", "/proc/self/uid_map", NULL);
	r.out[strcspn(r.out, "\n")] = '\0';
	snprintf(b, sizeof(b), "%.120s", r.out);
	close(in);
	IT_EXPECT(waitpid(pid, &st, 0) == pid);
	close(out);
	IT_EXPECT(a[0] && b[0]);
	if (!strcmp(a, b))
		it_fail(__FILE__, __LINE__, "both sandboxes map '%s'", a);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_pids_fork_loop_stops),
	    IT_CASE(test_pids_fork_loop_stops_landlock),
	    IT_CASE(test_memory_hog_killed),
	    IT_CASE(test_memory_hog_killed_landlock),
	    IT_CASE(test_timeout_exits_124_leaves_nothing),
	    IT_CASE(test_timeout_exits_124_leaves_nothing_landlock),
	    IT_CASE(test_timeout_not_reached),
	    IT_CASE(test_inotify_exhaustion_leaves_host_and_second_sandbox),
	    IT_CASE(test_concurrent_sandboxes_leave_the_caller_some),
	    IT_CASE(test_tmpfs_size_holds),
	    IT_CASE(test_rlimits),
	    IT_CASE(test_child_cannot_raise_limit),
	    IT_CASE(test_dry_run_limits_as_the_run),
	    IT_CASE(test_nested_pids),
	    IT_CASE(test_nested_inotify_share),
	    IT_CASE(test_killed_sbx_cgroup_swept),
	    IT_CASE(test_cpu_quota),
	    IT_CASE(test_root_sandboxes_have_distinct_ids),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
