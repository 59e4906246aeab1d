/* SPDX-License-Identifier: MIT */
/*
 * The sandboxes a caller can see (sbx ps, inspect, kill; src/os/registry.c): a running sandbox
 * is listed with its id, pid, backend, profile, command and digest (JSON checked by the tests'
 * own checker), inspected with its effective spec, and ended by sbx kill; its record is gone
 * once it ends; a record whose sandbox died without cleaning is swept; planted files (garbage,
 * a symlink, a fifo, a record naming pid 1 or a pid reused) are skipped, never signalled; a
 * runtime directory that is not the caller's private one is refused; and no worker can list
 * or read the records, under either backend. As root and as the user.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../json_check.h"
#include "harness.h"

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, f);
	n = vasprintf(&p, f, ap);
	va_end(ap);
	if (n < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

static char xdg[4096], reg[4200];

/* Every case keeps its records in a runtime directory of its own: XDG_RUNTIME_DIR is a
 * private directory of the case's, so that the cases (and other tests) never see each
 * other's sandboxes. */
static void setup(void)
{
	snprintf(xdg, sizeof(xdg), "%s/run", it_tmpdir());
	snprintf(reg, sizeof(reg), "%s/sbx", xdg);
	if (mkdir(xdg, 0700) < 0)
		it_fail(__FILE__, __LINE__, "mkdir %s: %s", xdg, strerror(errno));
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	/* the shipped profiles, from the (staged) source tree */
	if (!getenv("SBX_SOURCE_DIR"))
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	setenv("SBX_PROFILE_PATH", it_path(getenv("SBX_SOURCE_DIR"), "profiles"), 1);
	if (chdir(it_tmpdir()) < 0)
		it_fail(__FILE__, __LINE__, "chdir: %s", strerror(errno));
}

/* A sandbox running in the background: sbx's pid, and its stdout. */
struct bg {
	pid_t sbx;
	int out;
};

/* Start `sbx run OPTS -- sh -c 'echo ready; exec sleep 120'` and wait for "ready". */
static void start_bg(struct bg *b, const char *backend, const char *const *opts)
{
	int p[2];
	char buf[64];
	size_t got = 0;

	if (pipe(p) < 0)
		it_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
	b->sbx = fork();
	if (b->sbx < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (b->sbx == 0) {
		const char *argv[32] = {"sbx", "run", "--backend", backend};
		size_t n = 4;
		int devnull = open("/dev/null", O_RDONLY);
		char *const *av;

		for (size_t i = 0; opts && opts[i] && n < 24; i++)
			argv[n++] = opts[i];
		argv[n++] = "--";
		argv[n++] = "sh";
		argv[n++] = "-c";
		argv[n++] = "echo ready; exec sleep 120";
		argv[n] = NULL;
		dup2(devnull, 0);
		dup2(p[1], 1);
		close(p[0]);
		memcpy(&av, &(const char *const *){argv}, sizeof(av));
		execv(it_sbx_path(), av);
		_exit(99);
	}
	close(p[1]);
	b->out = p[0];
	while (got < 6) {
		ssize_t n = read(b->out, buf + got, sizeof(buf) - 1 - got);

		if (n <= 0)
			it_fail(__FILE__, __LINE__, "the sandbox ended before it was ready");
		got += (size_t)n;
	}
	buf[got] = '\0';
	IT_EXPECT_CONTAINS(buf, "ready");
}

/* Its exit status, as a shell gives it. */
static int wait_bg(struct bg *b)
{
	int st;

	if (waitpid(b->sbx, &st, 0) < 0)
		it_fail(__FILE__, __LINE__, "waitpid: %s", strerror(errno));
	close(b->out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void stop_bg(struct bg *b)
{
	kill(b->sbx, SIGTERM);
	wait_bg(b);
}

/* The number of files in the runtime directory (-1: none there). */
static int count_records(void)
{
	DIR *d = opendir(reg);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The object of sbx ps --json whose sbx_pid is sbx's (root sees every user's sandboxes,
 * other tests' included), or NULL. */
static char *obj_of(const char *ps, pid_t sbx)
{
	const char *at = strstr(ps, fmt("\"sbx_pid\":%d,", (int)sbx));
	const char *open, *close;

	if (!at)
		return NULL;
	/* records hold no nested object: the braces around it are its own */
	for (open = at; open > ps && *open != '{'; open--)
		;
	close = strchr(at, '}');
	return close ? strndup(open, (size_t)(close - open + 1)) : NULL;
}

/* sbx ps --json, once it lists (or no longer lists) the sandbox that sbx started: the
 * landlock backend's worker may print before sbx has written its record (they run at once),
 * so wait for it, with a generous bound. */
static void ps_until(struct it_run *r, pid_t sbx, bool listed)
{
	for (int i = 0; i < 5000; i++) {
		char *o;

		it_sbxv(r, "ps", "--json", NULL);
		IT_EXPECT_INT(r->status, 0);
		if (!json_valid(r->out))
			it_fail(__FILE__, __LINE__, "sbx ps --json is not valid JSON: %s", r->out);
		o = obj_of(r->out, sbx);
		free(o);
		if (!o != listed)
			return;
		usleep(2000);
	}
	it_fail(__FILE__, __LINE__, "sbx ps %s sbx %d: %s", listed ? "never listed" : "still lists",
	        (int)sbx, r->out);
}

/* A member of the object of sandbox started by sbx (a string's text, or the raw text). */
static char *member(const char *ps, pid_t sbx, const char *key)
{
	char *obj = obj_of(ps, sbx);
	char *val = calloc(1, 65536);

	if (!obj || !val)
		it_fail(__FILE__, __LINE__, "no sandbox of sbx %d in %s", (int)sbx, ps);
	if (!json_get(obj, key, val, 65536))
		it_fail(__FILE__, __LINE__, "no \"%s\" in %s", key, obj);
	return val;
}

static void check_lifecycle(const char *backend)
{
	struct it_run r;
	struct bg b;
	char *id, *pid, *json;

	setup();
	start_bg(&b, backend, (const char *const[]){"--profile", "ci-job", NULL});
	ps_until(&r, b.sbx, true);
	json = strdup(r.out);
	id = member(json, b.sbx, "id");
	pid = member(json, b.sbx, "pid");
	IT_EXPECT_INT(strlen(id), 32);
	IT_EXPECT_CONTAINS(json, "\"version\":1");
	IT_EXPECT_CONTAINS(member(json, b.sbx, "backend"), backend);
	IT_EXPECT_CONTAINS(member(json, b.sbx, "profile"), "ci-job");
	IT_EXPECT_CONTAINS(member(json, b.sbx, "command"),
	                   "[\"sh\",\"-c\",\"echo ready; exec sleep 120\"]");
	IT_EXPECT_INT(atoi(member(json, b.sbx, "sbx_pid")), b.sbx);
	IT_EXPECT_INT(atoi(member(json, b.sbx, "uid")), geteuid());
	IT_EXPECT_INT(atoi(member(json, b.sbx, "depth")), 1);
	IT_EXPECT_CONTAINS(member(json, b.sbx, "parent"), "null");
	IT_EXPECT_INT(strlen(member(json, b.sbx, "digest")), 64);
	/* the pid is sbx's child */
	{
		char path[64], stat[512];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%s/stat", pid);
		f = fopen(path, "re");
		IT_EXPECT(f != NULL);
		IT_EXPECT(fgets(stat, sizeof(stat), f) != NULL);
		fclose(f);
		IT_EXPECT_CONTAINS(strrchr(stat, ')'), fmt(" %d ", b.sbx));
	}
	/* the record: one file named by the id, mode 0600, in a directory of mode 0700 */
	{
		struct stat st;

		IT_EXPECT_INT(stat(reg, &st), 0);
		IT_EXPECT_INT(st.st_mode & 07777, 0700);
		IT_EXPECT_INT(stat(fmt("%s/%s", reg, id), &st), 0);
		IT_EXPECT_INT(st.st_mode & 07777, 0600);
		IT_EXPECT_INT(st.st_uid, geteuid());
		IT_EXPECT_INT(count_records(), 1);
	}
	/* the text form */
	it_sbxv(&r, "ps", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ID ");
	IT_EXPECT_CONTAINS(r.out, fmt("%.12s %-7s", id, pid));
	IT_EXPECT_CONTAINS(r.out, "ci-job");
	IT_EXPECT_CONTAINS(r.out, "sh -c echo ready; exec sleep 120");
	/* inspect, by a prefix: the record and the effective spec with its mounts */
	it_sbxv(&r, "inspect", "--json", fmt("%.8s", id), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(json_valid(r.out));
	IT_EXPECT_CONTAINS(r.out, fmt("\"id\":\"%s\"", id));
	IT_EXPECT_CONTAINS(
	    r.out, fmt("\"spec\":{\"profile\":\"ci-job\",\"depth\":1,\"backend\":\"%s\"", backend));
	IT_EXPECT_CONTAINS(r.out, "\"mounts\":[{\"target\":");
	IT_EXPECT_CONTAINS(r.out, fmt("{\"target\":\"%s\",\"kind\":\"bind\"", it_tmpdir()));
	it_sbxv(&r, "inspect", id, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("sandbox:  %s", id));
	IT_EXPECT_CONTAINS(r.out, "mounts:\n");
	/* an id no sandbox has, one too short, one not hex */
	it_sbxv(&r, "inspect", "ffffffffffffffffffffffffffffffff", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "no running sandbox");
	it_sbxv(&r, "kill", "abc", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "is not a sandbox id");
	it_sbxv(&r, "kill", "--signal", "NOPE", id, NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "unknown signal 'NOPE'");
	/* kill: SIGTERM reaches the worker, the sandbox ends, its record goes */
	it_sbxv(&r, "kill", id, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("to sandbox %s, pid %s", id, pid));
	IT_EXPECT_INT(wait_bg(&b), 128 + SIGTERM);
	IT_EXPECT_INT(count_records(), 0);
	ps_until(&r, b.sbx, false);
	/* SIGKILL ends it too */
	start_bg(&b, backend, NULL);
	ps_until(&r, b.sbx, true);
	id = member(r.out, b.sbx, "id");
	it_sbxv(&r, "kill", "-s", "KILL", id, NULL);
	IT_EXPECT_INT(r.status, 0);
	/* SIGKILL ends the whole sandbox at once (the namespaces backend's pid namespace; under
	 * the landlock backend the reaper, asked to end, kills every process of it), the
	 * supervisor's performer with it: sbx says the supervisor was lost (125) when it sees
	 * that first */
	{
		int st = wait_bg(&b);

		IT_EXPECT(st == 128 + SIGKILL || st == 125);
	}
	IT_EXPECT_INT(count_records(), 0);
	/* a sandbox that ends by itself leaves no record either */
	it_sbxv(&r, "run", "--backend", backend, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_INT(count_records(), 0);
}

/* A record planted in the caller's own directory: a line for each field. */
static void plant(const char *name, long sbx_pid, unsigned long long sbx_start, long pid,
                  unsigned long long pid_start)
{
	char *path = fmt("%s/%s", reg, name);
	FILE *f = fopen(path, "we");

	if (!f)
		it_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
	fprintf(f,
	        "sbx-sandbox 1\nid %s\nsbx_pid %ld\nsbx_start %llu\npid %ld\npid_start %llu\n"
	        "uid %u\nstart_ms 1\ndepth 1\nbackend namespaces\nprofile planted\n",
	        name, sbx_pid, sbx_start, pid, pid_start, (unsigned)geteuid());
	fclose(f);
	chmod(path, 0600);
}

static unsigned long long start_of(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long start = 0;
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, sizeof(buf), f))
		it_fail(__FILE__, __LINE__, "%s: %s", path, strerror(errno));
	fclose(f);
	p = strrchr(buf, ')');
	IT_EXPECT(p && sscanf(p + 1,
	                      " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
	                      "%*d %*d %*d %*d %*d %llu",
	                      &start) == 1);
	return start;
}

/* A count of sbx ps --json: exactly n for a user, at least n for root, who reads every
 * registry of the machine. */
static void expect_count(const char *ps, const char *key, long n)
{
	char v[64];

	IT_EXPECT(json_get(ps, key, v, sizeof(v)));
	if (it_is_root())
		IT_EXPECT(atol(v) >= n);
	else
		IT_EXPECT_INT(atol(v), n);
}

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define ID_C "cccccccccccccccccccccccccccccccc"
#define ID_D "dddddddddddddddddddddddddddddddd"

/* Files sbx did not write: skipped or swept, never believed, and sbx kill cannot be aimed
 * by one at a process that is not that sandbox's. */
static void test_planted_and_stale(void)
{
	struct it_run r;
	pid_t victim, dead;
	int st;

	setup();
	IT_EXPECT_INT(mkdir(reg, 0700), 0);
	/* a process of the caller's that no sandbox holds */
	victim = fork();
	if (victim == 0) {
		pause();
		_exit(0);
	}
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, &st, 0);
	/* A: names pid 1 with its true start time, as the child of this test (a real
	 * process with the right start time, whose parent is not the sbx named) */
	plant(ID_A, getpid(), start_of(getpid()), 1, start_of(1));
	/* B: the victim with a start time that is not its own (a pid reused since) */
	plant(ID_B, getpid(), start_of(getpid()), victim, start_of(victim) + 1);
	/* C: an sbx that is gone */
	plant(ID_C, dead, 1, victim, start_of(victim));
	/* garbage, a symlink to a good record, a fifo, a file with a name that is no id */
	it_write_file(fmt("%s/%s", reg, ID_D), "sbx-sandbox 1\nid " ID_D "\npid 1\n");
	chmod(fmt("%s/%s", reg, ID_D), 0600);
	IT_EXPECT_INT(
	    symlink(fmt("%s/%s", reg, ID_B), fmt("%s/%s", reg, "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")),
	    0);
	IT_EXPECT_INT(mkfifo(fmt("%s/%s", reg, "ffffffffffffffffffffffffffffffff"), 0600), 0);
	it_write_file(fmt("%s/notes.txt", reg), "hello\n");
	/* records being written (".ID.PID.START"): one whose writer died before its rename
	 * (SIGKILL) is swept, one whose writer lives is left to it, and other dot files alone */
	it_write_file(fmt("%s/." ID_A ".%d.%llu", reg, (int)dead, 1ULL), "sbx-sandbox 1\n");
	it_write_file(fmt("%s/." ID_B ".%d.%llu", reg, (int)getpid(), start_of(getpid())), "");
	it_write_file(fmt("%s/.hidden", reg), "");
	it_sbxv(&r, "ps", "--json", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(json_valid(r.out));
	IT_EXPECT_NOT_CONTAINS(r.out, "\"profile\":\"planted\""); /* other sandboxes may run */
	/* D, the symlink, the fifo, notes.txt; A, B and C are stale (root also reads, and
	 * sweeps, what other tests left in /run/sbx: at least, there) */
	expect_count(r.out, "skipped", 4);
	expect_count(r.out, "swept", 3);
	IT_EXPECT(access(fmt("%s/%s", reg, ID_A), F_OK) < 0);
	IT_EXPECT(access(fmt("%s/%s", reg, ID_C), F_OK) < 0);
	IT_EXPECT(access(fmt("%s/%s", reg, ID_D), F_OK) == 0); /* not a record: left alone */
	IT_EXPECT(access(fmt("%s/." ID_A ".%d.%llu", reg, (int)dead, 1ULL), F_OK) < 0);
	IT_EXPECT(
	    access(fmt("%s/." ID_B ".%d.%llu", reg, (int)getpid(), start_of(getpid())), F_OK) == 0);
	IT_EXPECT(access(fmt("%s/.hidden", reg), F_OK) == 0);
	/* sbx kill finds none of them, and the victim and pid 1 live on */
	plant(ID_A, getpid(), start_of(getpid()), 1, start_of(1));
	plant(ID_B, getpid(), start_of(getpid()), victim, start_of(victim) + 1);
	it_sbxv(&r, "kill", "-s", "KILL", ID_A, NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "no running sandbox");
	it_sbxv(&r, "kill", "-s", "KILL", ID_B, NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_INT(waitpid(victim, &st, WNOHANG), 0);
	IT_EXPECT_INT(kill(victim, 0), 0);
	kill(victim, SIGKILL);
	waitpid(victim, &st, 0);
	/* a record of a file larger than any record can be is skipped, not read whole */
	{
		char *big = calloc(1, (1u << 20) + 2);

		memset(big, 'a', (1u << 20) + 1);
		it_write_file(fmt("%s/%s", reg, ID_C), big);
		chmod(fmt("%s/%s", reg, ID_C), 0600);
		free(big);
		it_sbxv(&r, "ps", "--json", NULL);
		IT_EXPECT_INT(r.status, 0);
		expect_count(r.out, "skipped", 5);
	}
}

/* A runtime directory that is not the caller's private one is neither read nor written:
 * sbx ps refuses, sbx run runs unlisted and says so. */
static void test_directory_checked(void)
{
	struct it_run r;

	setup();
	IT_EXPECT_INT(mkdir(reg, 0755), 0);
	it_sbxv(&r, "ps", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, fmt("the runtime directory %s is owned by uid %u with mode 0755",
	                              reg, (unsigned)geteuid()));
	it_sbxv(&r, "run", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "this sandbox is not listed by sbx ps");
	IT_EXPECT_INT(count_records(), 0);
	/* a symlink in its place, to a private directory, is not followed */
	IT_EXPECT_INT(rmdir(reg), 0);
	IT_EXPECT_INT(mkdir(fmt("%s/elsewhere", it_tmpdir()), 0700), 0);
	IT_EXPECT_INT(symlink(fmt("%s/elsewhere", it_tmpdir()), reg), 0);
	it_sbxv(&r, "ps", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "without following a symlink");
	it_sbxv(&r, "run", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "this sandbox is not listed by sbx ps");
	IT_EXPECT_INT(count_records(), 0);
	/* XDG_RUNTIME_DIR that is not the caller's own is passed over for the next place */
	if (!it_is_root()) {
		setenv("XDG_RUNTIME_DIR", "/", 1);
		it_sbxv(&r, "ps", NULL);
		IT_EXPECT_INT(r.status, 0);
	}
}

/* No worker can list or read the records, even where a mount shows the runtime directory:
 * masked under the namespaces backend, denied under the landlock backend. */
static void check_hidden(const char *backend)
{
	struct it_run r;
	struct bg b;
	char *id, *script;

	setup();
	start_bg(&b, backend, NULL);
	ps_until(&r, b.sbx, true);
	id = member(r.out, b.sbx, "id");
	IT_EXPECT(access(fmt("%s/%s", reg, id), R_OK) == 0);
	/* the parent of the runtime directory, mounted read-write; and the case's directory */
	script = fmt("ls -A %s/sbx; echo ls=$?; cat %s/sbx/%s; echo cat=$?; "
	             "echo forged > %s/sbx/%s; echo write=$?; true",
	             xdg, xdg, id, xdg, "00000000000000000000000000000000");
	it_sbxv(&r, "run", "--backend", backend, "-v", fmt("%s:rw", xdg), "--", "sh", "-c", script,
	        NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d: %s%s", r.status, r.out, r.err);
	IT_EXPECT_NOT_CONTAINS(r.out, id);
	IT_EXPECT_NOT_CONTAINS(r.out, "sbx-sandbox");
	IT_EXPECT_NOT_CONTAINS(r.out, "cat=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "write=0");
	IT_EXPECT(access(fmt("%s/00000000000000000000000000000000", reg), F_OK) < 0);
	/* and the default view, where the workspace is the case's directory (above it) */
	script = fmt("cat %s/%s; echo cat=$?", reg, id);
	it_sbxv(&r, "run", "--backend", backend, "--", "sh", "-c", script, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "sbx-sandbox");
	IT_EXPECT_NOT_CONTAINS(r.out, "cat=0");
	/* inside, sbx ps says why it lists nothing */
	{
		char *dir = strdup(it_sbx_path());

		*strrchr(dir, '/') = '\0';
		it_sbxv(&r, "run", "--backend", backend, "-v", fmt("%s:ro", dir), "--",
		        it_sbx_path(), "ps", NULL);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d: %s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.err, "sbx ps inside a sandbox sees no sandbox");
	stop_bg(&b);
}

/* Without XDG_RUNTIME_DIR: root's records are in /run/sbx, a user's (without /run/user/UID)
 * in run-BOOT of sbx's cache directory, hidden with the cache; and the caller's /tmp, which
 * the landlock backend shows where a mount holds it, stays usable (a directory of sbx's
 * there would have cost the worker /tmp itself). */
static void check_fallback(const char *backend)
{
	char boot[64] = "", *dir, *cache, *id;
	struct it_run r;
	struct bg b;
	FILE *f;

	setup();
	unsetenv("XDG_RUNTIME_DIR");
	cache = fmt("%s/cache", it_tmpdir());
	setenv("XDG_CACHE_HOME", cache, 1);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	IT_EXPECT(f && fgets(boot, sizeof(boot), f));
	fclose(f);
	{
		char *w = boot;

		for (char *p = boot; *p; p++)
			if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
				*w++ = *p;
		*w = '\0';
	}
	if (it_is_root())
		dir = strdup("/run/sbx");
	else if (access(fmt("/run/user/%u", (unsigned)geteuid()), F_OK) == 0)
		it_skip("/run/user/%u exists: the user's records go there", (unsigned)geteuid());
	else
		dir = fmt("%s/sbx/run-%s", cache, boot);
	start_bg(&b, backend, NULL);
	ps_until(&r, b.sbx, true);
	id = member(r.out, b.sbx, "id");
	IT_EXPECT(access(fmt("%s/%s", dir, id), F_OK) == 0);
	if (!it_is_root()) {
		struct stat st;

		IT_EXPECT_INT(stat(fmt("%s/sbx", cache), &st), 0);
		IT_EXPECT_INT(st.st_mode & 07777, 0700);
		/* hidden with the cache, however it is mounted */
		it_sbxv(&r, "run", "--backend", backend, "-v", fmt("%s:rw", cache), "--", "sh",
		        "-c", fmt("cat %s/%s; echo cat=$?; ls %s/sbx; echo ls=$?", dir, id, cache),
		        NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_NOT_CONTAINS(r.out, "sbx-sandbox");
		IT_EXPECT_NOT_CONTAINS(r.out, "cat=0");
		IT_EXPECT_NOT_CONTAINS(r.out, "run-");
	}
	/* the caller's /tmp, shown whole: listed and written as before, where no directory of
	 * sbx's own state is in it (this case's cache is, so it goes for this run; the
	 * runtime directory must not be: a user's was /tmp/sbx-UID once, which cost /tmp; the
	 * staged profile folder is in /tmp too) */
	unsetenv("XDG_CACHE_HOME");
	unsetenv("SBX_PROFILE_PATH");
	/* git's guard off: the caller's /tmp holds other cases' repositories, some with configs
	 * sbx refuses to launch beside (a folder of projects, sbx-profile(5)) */
	it_write_file(it_path(it_tmpdir(), "nogit.yaml"), "version: 1\nname: nogit\n"
	                                                  "protect_git: false\n");
	it_sbxv(
	    &r, "run", "--backend", backend, "-p", it_path(it_tmpdir(), "nogit.yaml"), "-v", "/tmp",
	    "--", "sh", "-c",
	    fmt("ls /tmp >/dev/null && echo listed; echo x > %s/tmp-ok && echo wrote", it_tmpdir()),
	    NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "/tmp: status %d: %s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.out, "listed");
	IT_EXPECT_CONTAINS(r.out, "wrote");
	stop_bg(&b);
	IT_EXPECT(access(fmt("%s/%s", dir, id), F_OK) < 0);
}

static void test_fallback_namespaces(void)
{
	check_fallback("namespaces");
}
static void test_fallback_landlock(void)
{
	check_fallback("landlock");
}

static void test_lifecycle_namespaces(void)
{
	check_lifecycle("namespaces");
}
static void test_lifecycle_landlock(void)
{
	check_lifecycle("landlock");
}
static void test_hidden_namespaces(void)
{
	check_hidden("namespaces");
}
static void test_hidden_landlock(void)
{
	check_hidden("landlock");
}

/* Root sees every user's sandboxes; a user sees only their own. */
static void test_root_sees_all(void)
{
	struct it_run r;

	setup();
	it_sbxv(&r, "ps", "--json", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(json_valid(r.out));
	if (!it_is_root()) {
		/* a user's ps reads only the caller's directory: no other directory is named */
		IT_EXPECT_CONTAINS(r.out, "\"sandboxes\":[]");
		return;
	}
	/* root's ps lists a sandbox of another user's that runs from /run/user/UID/sbx (made
	 * here for a uid no one uses, one of this process's own, so that runs of this test from
	 * other trees at the same time do not meet; removed after) */
	{
		unsigned uid = 200000u + (unsigned)getpid();
		struct stat st;
		bool made_run_user = mkdir("/run/user", 0755) == 0;
		char *user = fmt("/run/user/%u", uid);
		char *dir = fmt("%s/sbx", user);
		char *path = fmt("%s/%s", dir, ID_A);
		FILE *f;

		if (lstat(user, &st) == 0)
			it_skip("%s exists on this machine already", user);
		IT_EXPECT_INT(mkdir(user, 0700), 0);
		IT_EXPECT_INT(mkdir(dir, 0700), 0);
		IT_EXPECT_INT(chown(user, uid, uid), 0);
		IT_EXPECT_INT(chown(dir, uid, uid), 0);
		/* a record naming this test's own process and its child: root's kill must refuse
		 * it (the processes are root's, the directory the test uid's) */
		{
			pid_t child = fork();
			int st2;

			if (child == 0) {
				pause();
				_exit(0);
			}
			f = fopen(path, "we");
			IT_EXPECT(f != NULL);
			fprintf(f,
			        "sbx-sandbox 1\nid %s\nsbx_pid %d\nsbx_start %llu\npid %d\n"
			        "pid_start %llu\nuid %u\nstart_ms 1\ndepth 1\nbackend landlock\n"
			        "profile planted\n",
			        ID_A, (int)getpid(), start_of(getpid()), (int)child,
			        start_of(child), uid);
			fclose(f);
			IT_EXPECT_INT(chown(path, uid, uid), 0);
			chmod(path, 0600);
			it_sbxv(&r, "ps", "--json", NULL);
			IT_EXPECT_CONTAINS(r.out, fmt("\"id\":\"%s\"", ID_A));
			IT_EXPECT_CONTAINS(r.out, fmt("\"uid\":%u", uid));
			it_sbxv(&r, "kill", "-s", "KILL", ID_A, NULL);
			IT_EXPECT_INT(r.status, 125);
			IT_EXPECT_CONTAINS(r.err, fmt("which is not a process of uid %u's", uid));
			IT_EXPECT_INT(waitpid(child, &st2, WNOHANG), 0);
			kill(child, SIGKILL);
			waitpid(child, &st2, 0);
		}
		unlink(path);
		rmdir(dir);
		rmdir(user);
		if (made_run_user)
			rmdir("/run/user");
	}
}

/* The stable interface for launchers (sbx-json(7)): sbx check --json and sbx resolve --json,
 * valid JSON by the tests' own checker, versioned, one member per decision or path, with the
 * text forms' exit statuses. */
static void test_json_check_resolve(void)
{
	const char *ws;
	struct it_run r;
	char v[4096];

	setup();
	ws = it_tmpdir();
	it_sbxv(&r, "check", "--json", "--profile", "ci-job", "--workspace", ws, "read,write",
	        "/etc/passwd", fmt("%s/src/a.c", ws), "/nowhere", NULL);
	IT_EXPECT_INT(r.status, 1); /* a denial: as the text form */
	if (!json_valid(r.out))
		it_fail(__FILE__, __LINE__, "not valid JSON: %s", r.out);
	IT_EXPECT(json_get(r.out, "version", v, sizeof(v)));
	IT_EXPECT_INT(atoi(v), 1);
	IT_EXPECT(json_get(r.out, "profile", v, sizeof(v)));
	IT_EXPECT_CONTAINS(v, "ci-job");
	IT_EXPECT(json_get(r.out, "workspace", v, sizeof(v)));
	IT_EXPECT_INT(strcmp(v, ws), 0);
	IT_EXPECT(json_get(r.out, "allowed", v, sizeof(v)));
	IT_EXPECT_CONTAINS(v, "false");
	IT_EXPECT_CONTAINS(r.out, "{\"path\":\"/etc/passwd\",\"resolved\":\"/etc/passwd\",\"op\":"
	                          "\"read\",\"verdict\":\"allow\",\"by\":\"allowed\"");
	IT_EXPECT_CONTAINS(r.out, "\"op\":\"write\",\"verdict\":\"deny\",\"by\":\"readonly\"");
	IT_EXPECT_CONTAINS(r.out, fmt("{\"path\":\"%s/src/a.c\",\"resolved\":\"%s/src/a.c\",\"op\":"
	                              "\"write\",\"verdict\":\"allow\"",
	                              ws, ws));
	IT_EXPECT_CONTAINS(r.out, "\"path\":\"/nowhere\",\"resolved\":\"/nowhere\",\"op\":\"read\","
	                          "\"verdict\":\"deny\",\"by\":\"unmounted\",\"mount\":null");
	/* every decision allowed: exit 0, "allowed":true */
	it_sbxv(&r, "check", "--json", "--profile", "ci-job", "--workspace", ws, "read",
	        "/etc/passwd", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(json_valid(r.out));
	IT_EXPECT_CONTAINS(r.out, "\"allowed\":true}");
	/* a path with a newline and a byte that is not UTF-8 stays valid JSON */
	it_sbxv(&r, "check", "--json", "read", "/tmp/a\nb\xff", NULL);
	IT_EXPECT(json_valid(r.out));
	/* resolve */
	it_sbxv(&r, "resolve", "--json", "--profile", "ci-job", "--workspace", ws, "/etc/passwd",
	        "/nowhere", NULL);
	IT_EXPECT_INT(r.status, 1);
	if (!json_valid(r.out))
		it_fail(__FILE__, __LINE__, "not valid JSON: %s", r.out);
	IT_EXPECT_CONTAINS(r.out, "{\"version\":1,\"profile\":\"ci-job\"");
	IT_EXPECT_CONTAINS(r.out, "{\"path\":\"/etc/passwd\",\"host\":\"/etc/passwd\",\"mount\":"
	                          "\"/etc/passwd\",\"why\":\"system\",\"readonly\":true,"
	                          "\"hidden_by_glob\":null,\"reason\":null}");
	IT_EXPECT_CONTAINS(r.out,
	                   "{\"path\":\"/nowhere\",\"host\":null,\"mount\":null,\"why\":null,"
	                   "\"readonly\":null,\"hidden_by_glob\":null,\"reason\":\"");
	IT_EXPECT_CONTAINS(r.out, "\"resolved\":false}");
	it_sbxv(&r, "resolve", "--json", "--profile", "ci-job", "--workspace", ws, ws, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(json_valid(r.out));
	IT_EXPECT_CONTAINS(r.out, "\"readonly\":false");
	IT_EXPECT_CONTAINS(r.out, "\"resolved\":true}");
	/* a hide glob's match */
	it_write_file(fmt("%s/p.yaml", ws),
	              "version: 1\nname: p\nhide:\n  - \"${WORKSPACE}/**/.env\"\n");
	it_sbxv(&r, "resolve", "--json", "--profile", fmt("%s/p.yaml", ws), "--workspace", ws,
	        fmt("%s/x/.env", ws), NULL);
	IT_EXPECT(json_valid(r.out));
	IT_EXPECT_CONTAINS(r.out, fmt("\"hidden_by_glob\":\"%s/**/.env\"", ws));
	/* errors stay on stderr, with exit 125 and no half object on stdout */
	it_sbxv(&r, "check", "--json", "frobnicate", "/x", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_INT(strlen(r.out), 0);
}

static void test_json_profiles(void)
{
	struct it_run r;
	char v[65536];

	setup();
	it_sbxv(&r, "profiles", "list", "--json", NULL);
	IT_EXPECT_INT(r.status, 0);
	if (!json_valid(r.out))
		it_fail(__FILE__, __LINE__, "not valid JSON: %s", r.out);
	IT_EXPECT(json_get(r.out, "version", v, sizeof(v)));
	IT_EXPECT_INT(atoi(v), 1);
	IT_EXPECT(json_get(r.out, "search", v, sizeof(v)));
	IT_EXPECT_CONTAINS(v, getenv("SBX_PROFILE_PATH"));
	IT_EXPECT_CONTAINS(r.out,
	                   fmt("{\"name\":\"ci-job\",\"file\":\"%s/ci-job.yaml\",\"shadowed\":"
	                       "false,\"valid\":true,\"description\":\"",
	                       getenv("SBX_PROFILE_PATH")));
	IT_EXPECT_CONTAINS(r.out, "\"name\":\"claude-agent\"");
	it_sbxv(&r, "profiles", "list", "--json", "extra", NULL);
	IT_EXPECT_INT(r.status, 125);
	it_sbxv(&r, "profiles", "show", "--json", "ci-job", NULL);
	IT_EXPECT_INT(r.status, 0);
	if (!json_valid(r.out))
		it_fail(__FILE__, __LINE__, "not valid JSON: %s", r.out);
	IT_EXPECT(json_get(r.out, "name", v, sizeof(v)));
	IT_EXPECT_INT(strcmp(v, "ci-job"), 0);
	IT_EXPECT(json_get(r.out, "network", v, sizeof(v)));
	IT_EXPECT_INT(strcmp(v, "none"), 0);
	IT_EXPECT(json_get(r.out, "mounts", v, sizeof(v)));
	IT_EXPECT_CONTAINS(v, fmt("\"target\":\"%s\"", it_tmpdir()));
	IT_EXPECT(json_get(r.out, "policies", v, sizeof(v)));
	IT_EXPECT_CONTAINS(v, "\"rules\":[");
	it_sbxv(&r, "profiles", "show", "--json", "no-such-profile", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_INT(strlen(r.out), 0);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_lifecycle_namespaces), IT_CASE(test_lifecycle_landlock),
	    IT_CASE(test_planted_and_stale),    IT_CASE(test_directory_checked),
	    IT_CASE(test_hidden_namespaces),    IT_CASE(test_hidden_landlock),
	    IT_CASE(test_root_sees_all),        IT_CASE(test_json_check_resolve),
	    IT_CASE(test_json_profiles),        IT_CASE(test_fallback_namespaces),
	    IT_CASE(test_fallback_landlock),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
