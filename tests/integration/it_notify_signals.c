/* SPDX-License-Identifier: MIT */
/*
 * A supervised call that waits for a person (or a broker) must not be restarted by every
 * signal the caller gets. Without SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV a signal pulls the
 * waiting call back out of the kernel; with SA_RESTART it comes straight back as a new
 * notification, and sbx asks the broker again: a Go program (whose runtime sends SIGURG to
 * its threads for preemption) would ask the same question over and over (a restart storm).
 * With the flag, once sbx has received the notification only a fatal signal interrupts it.
 *
 * The broker here is a script that counts its questions in a file, waits 0.4 s and allows;
 * after 12 questions it refuses at once, so that a storm ends the test with a failure rather
 * than a hang. A thread signals the caller every 2 ms while each mkdir waits for its answer:
 * each of N mkdirs (each in a scope of its own, so that no grant answers the next) must be
 * asked exactly once. As root and as the user.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define N_CALLS 3

static volatile sig_atomic_t got;
static volatile int stop_flag;
static volatile int sent;
static pid_t caller_tid;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void *pester(void *arg)
{
	struct timespec ts = {0, 2 * 1000 * 1000};

	(void)arg;
	while (!stop_flag) {
		if (syscall(SYS_tgkill, getpid(), caller_tid, SIGUSR1) == 0)
			sent++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Inside the sandbox: N mkdirs while a thread signals the caller; prints each result and how
 * many signals were sent meanwhile (so that the test knows the calls did wait under fire;
 * fewer arrive: a signal sent while one is pending is merged with it). */
static int in_main(void)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART; /* as Go's runtime installs its handlers */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		return 2;
	caller_tid = (pid_t)syscall(SYS_gettid);
	if (pthread_create(&t, NULL, pester, NULL) != 0)
		return 2;
	for (int i = 0; i < N_CALLS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d%d", i);
		printf("mkdir %s => %s\n", name, mkdir(name, 0755) == 0 ? "ok" : strerror(errno));
		fflush(stdout);
	}
	stop_flag = 1;
	pthread_join(t, NULL);
	printf("signals %d (handled %d)\n", (int)sent, (int)got);
	return 0;
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A workspace WS under DIR whose mount asks (`approvals: {CLASS: ask}`, plus `extra` lines
 * of YAML), and a cmd: broker that counts its questions in DIR/count, allows the first
 * `allow_first` (0: all, up to 12), waits `wait` (a sleep(1) argument, or NULL) and refuses
 * the rest. Returns the --approve value; *prof the profile. */
static char *asking(const char *dir, const char *cls, const char *extra, int allow_first,
                    const char *wait, char **prof)
{
	char *ws = it_path(dir, "ws"), *broker = it_path(dir, "broker.sh");
	char *count = it_path(dir, "count"), *approve, *script, *yaml;

	IT_EXPECT(asprintf(&script,
	                   "#!/bin/sh\ncat >/dev/null\necho q >> '%s'\n"
	                   "[ \"$(wc -l < '%s')\" -gt %d ] && exit 1\n%s%s%sexit 0\n",
	                   count, count, allow_first ? allow_first : 12, wait ? "sleep " : "",
	                   wait ? wait : "", wait ? "\n" : "") > 0);
	it_write_file(broker, script);
	IT_EXPECT_INT(chmod(broker, 0755), 0);
	it_write_file(it_path(ws, "keep"), "k\n");
	IT_EXPECT(asprintf(&yaml,
	                   "version: 1\nname: ask\nprotect_git: false\nmounts:\n"
	                   "  - path: %s\n    approvals: {%s: ask}\n%s",
	                   ws, cls, extra ? extra : "") > 0);
	*prof = it_path(dir, "ask.yaml");
	it_write_file(*prof, yaml);
	IT_EXPECT(asprintf(&approve, "cmd:%s", broker) > 0);
	return approve;
}

static void test_signals_do_not_restart_a_question(void)
{
	struct it_run r;
	const char *dir = it_tmpdir();
	char *ws = it_path(dir, "ws"), *count = it_path(dir, "count"), *prof;
	char *approve = asking(dir, "write", NULL, 0, "0.4", &prof);
	int signals = 0;
	const char *p;

	{
		const char *opts[] = {"-p", prof, "--workspace", ws, "--approve", approve, NULL};
		const char *cmd[] = {it_self(), "--in", NULL};

		it_run_in(&r, opts, cmd);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	for (int i = 0; i < N_CALLS; i++) {
		char line[64];

		snprintf(line, sizeof(line), "mkdir d%d => ok\n", i);
		IT_EXPECT_CONTAINS(r.out, line);
	}
	/* the calls waited under fire: the test can fail */
	p = strstr(r.out, "signals ");
	IT_EXPECT(p && sscanf(p, "signals %d", &signals) == 1);
	IT_EXPECT(signals >= 50);
	/* one question a call, not one a signal */
	IT_EXPECT_INT(count_lines(count), N_CALLS);
}

/* A Go program (its runtime signals its own threads) under the same broker: each os.Mkdir is
 * asked once and succeeds. */
static void test_go_program(void)
{
	struct it_run r;
	const char *dir = it_tmpdir();
	char *ws = it_path(dir, "ws"), *count = it_path(dir, "count"), *prof;
	char *src = it_path(dir, "go/main.go"), *bin = it_path(dir, "go/prog");
	char *approve, *extra, *build;
	static const char prog[] =
	    "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"runtime\"\n)\n\n"
	    "func main() {\n\truntime.GOMAXPROCS(4)\n\tstop := make(chan bool)\n"
	    "\tfor g := 0; g < 3; g++ {\n\t\tgo func() {\n\t\t\tx := 0\n\t\t\tfor {\n"
	    "\t\t\t\tselect {\n\t\t\t\tcase <-stop:\n\t\t\t\t\treturn\n\t\t\t\tdefault:\n"
	    "\t\t\t\t\tx++\n\t\t\t\t}\n\t\t\t}\n\t\t}()\n\t}\n"
	    "\tfor i := 0; i < 3; i++ {\n\t\tname := fmt.Sprintf(\"g%d\", i)\n"
	    "\t\tif err := os.Mkdir(name, 0755); err != nil {\n"
	    "\t\t\tfmt.Println(\"mkdir\", name, \"=>\", err)\n\t\t} else {\n"
	    "\t\t\tfmt.Println(\"mkdir\", name, \"=> ok\")\n\t\t}\n\t}\n\tclose(stop)\n}\n";

	if (system("command -v go >/dev/null 2>&1") != 0)
		it_skip("no Go toolchain (scripts/setup.sh installs golang-go)");
	it_write_file(src, prog);
	IT_EXPECT(asprintf(&build,
	                   "cd '%s/go' && HOME='%s' GOCACHE='%s/gocache' GOPATH='%s/gopath' "
	                   "GO111MODULE=off GOFLAGS= CGO_ENABLED=0 go build -o prog main.go",
	                   dir, dir, dir, dir) > 0);
	if (system(build) != 0)
		it_fail(__FILE__, __LINE__, "go build failed: %s", build);
	IT_EXPECT(asprintf(&extra, "  - path: %s/go\n    readonly: true\n", dir) > 0);
	approve = asking(dir, "write", extra, 0, "0.4", &prof);
	{
		const char *argv[] = {"run",       "-p",    prof, "--workspace", ws,
		                      "--approve", approve, "--", bin,           NULL};

		it_sbx(&r, argv);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.out, "mkdir g0 => ok\n");
	IT_EXPECT_CONTAINS(r.out, "mkdir g1 => ok\n");
	IT_EXPECT_CONTAINS(r.out, "mkdir g2 => ok\n");
	IT_EXPECT_INT(count_lines(count), 3);
}

/* A batch is asked once: `rm -rf build` of 1 000 files in 10 folders under `delete: ask` is
 * one question, answered for build/ (the first component below the mount), and empties it;
 * a file beside build/ is not covered by that answer: it is asked again, and refused. */
static void test_rm_rf_1000_files_asked_once(void)
{
	struct it_run r;
	const char *dir = it_tmpdir();
	char *ws = it_path(dir, "ws"), *count = it_path(dir, "count"), *prof, *approve;

	for (int d = 0; d < 10; d++)
		for (int f = 0; f < 100; f++) {
			char name[64];

			snprintf(name, sizeof(name), "build/d%d/f%d", d, f);
			it_write_file(it_path(ws, name), "x\n");
		}
	/* yes to the first question, no to any other */
	approve = asking(dir, "delete", NULL, 1, NULL, &prof);
	{
		const char *argv[] = {"run",
		                      "-p",
		                      prof,
		                      "--workspace",
		                      ws,
		                      "--approve",
		                      approve,
		                      "--",
		                      "sh",
		                      "-c",
		                      "rm -rf build; echo rm=$?; rm -f keep; echo keep=$?",
		                      NULL};

		it_sbx(&r, argv);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.out, "rm=0\n");
	IT_EXPECT_CONTAINS(r.out, "keep=1\n");
	IT_EXPECT(access(it_path(ws, "build"), F_OK) < 0 && errno == ENOENT);
	IT_EXPECT(access(it_path(ws, "keep"), F_OK) == 0);
	/* 1 000 deletes and 11 rmdirs, one question; keep's, a second */
	IT_EXPECT_INT(count_lines(count), 2);
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_signals_do_not_restart_a_question),
	    IT_CASE(test_go_program),
	    IT_CASE(test_rm_rf_1000_files_asked_once),
	};

	if (argc > 1 && strcmp(argv[1], "--in") == 0)
		return in_main();
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
