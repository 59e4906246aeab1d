/* SPDX-License-Identifier: MIT */
/*
 * hide_later (sbx(1) --hide-later; sbx-profile(5) HIDE GLOBS): a file that a hide glob
 * matches and that appears after launch (the user writes a .env while the agent works) cannot
 * be read in the sandbox, nor moved or linked to another name and read there, nor read through
 * a symbolic link, another view of its folder, or a sub-worker. Without the flag it can (the
 * launch's walk found nothing), which the first case shows, so that the others prove the
 * flag, not an accident.
 *
 * The file is written by the test, outside the sandbox, while the worker waits for it: the
 * worker makes `ready`, the test's helper then writes `.env` and makes `go` (each side waits
 * for the other's file, with an upper bound). Under both backends, as root and as the user.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define WAIT_MS 60000 /* every wait's upper bound */
#define SECRET  "SECRET-made-after-launch"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *make_ws(void)
{
	char *ws = it_path(it_tmpdir(), "ws");

	it_write_file(it_path(ws, "keep"), "kept\n");
	return ws;
}

/* The host's part: once the worker is up (ws/ready), write ws/.env, then say go. */
static pid_t writer(const char *ws)
{
	pid_t pid = fork();

	if (pid < 0)
		it_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
	if (pid == 0) {
		long long end = now_ms() + WAIT_MS;
		struct timespec tick = {0, 5000000};
		struct stat st;

		while (stat(it_path(ws, "ready"), &st) < 0 && now_ms() < end)
			nanosleep(&tick, NULL);
		it_write_file(it_path(ws, ".env"), SECRET "\n");
		it_write_file(it_path(ws, "go"), "");
		_exit(0);
	}
	return pid;
}

/* What the worker does before the file is made (prepare), and after (then): the attack's
 * ways to it other than by its name. */
static const char *prepare = "", *then = "";

/* The worker's part: wait for the file, then try every way to it. */
static const char script_fmt[] =
    "cd %s; %s : > ready; i=0; while [ ! -e go ] && [ $i -lt 12000 ]; do sleep 0.005; "
    "i=$((i+1)); done; [ -e go ] || { echo never-went; exit 3; }; %s "
    "cat .env; echo read=$?; "
    "ln -s .env z; cat z; echo symlink=$?; "
    "ln .env y 2>/dev/null; echo link=$?; cat y 2>/dev/null; "
    "mv .env x 2>/dev/null; echo move=$?; cat x 2>/dev/null; "
    "%s "
    "%s run -- cat .env; echo sub=$?; "
    "cat keep; echo keep=$?";

static bool exact; /* the next run_case hides WS/.env by its path, not by a glob */

static void run_case(const char *backend, bool later, bool unhide, bool view, struct it_run *r)
{
	char *ws = make_ws();
	char script[8192], viewcmd[512] = "";
	const char *opts[16];
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};
	size_t n = 0;
	char *unhide_arg = it_path(ws, ".env");
	char *view_arg = NULL;
	pid_t w;
	int st;

	opts[n++] = "-v";
	opts[n++] = ws;
	if (view) {
		if (asprintf(&view_arg, "%s:/view:ro", ws) < 0)
			it_fail(__FILE__, __LINE__, "asprintf");
		opts[n++] = "-v";
		opts[n++] = view_arg;
		snprintf(viewcmd, sizeof(viewcmd), "cat /view/.env; echo view=$?;");
	}
	opts[n++] = "--backend";
	opts[n++] = backend;
	opts[n++] = "--hide";
	opts[n++] = exact ? unhide_arg : "**/.env";
	if (later)
		opts[n++] = "--hide-later";
	if (unhide) {
		opts[n++] = "--unhide";
		opts[n++] = unhide_arg;
	}
	opts[n] = NULL;
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s: %s", ws, strerror(errno));
	snprintf(script, sizeof(script), script_fmt, ws, prepare, then, viewcmd, it_sbx_path());
	w = writer(ws);
	it_run_in(r, opts, cmd);
	kill(w, SIGKILL);
	waitpid(w, &st, 0);
	IT_EXPECT_NOT_CONTAINS(r->out, "never-went");
	IT_EXPECT_CONTAINS(r->out, "kept\nkeep=0\n");
}

/* Without the flag the file made later is read (the documented default). */
static void without(const char *backend)
{
	struct it_run r;

	run_case(backend, false, false, false, &r);
	IT_EXPECT_CONTAINS(r.out, SECRET "\nread=0\n");
}

/* With it: not by its name, a symlink, a hard link, a move, a sub-worker. */
static void later(const char *backend)
{
	struct it_run r;

	run_case(backend, true, false, false, &r);
	IT_EXPECT_NOT_CONTAINS(r.out, SECRET);
	IT_EXPECT_CONTAINS(r.out, "read=1\n");
	IT_EXPECT_CONTAINS(r.out, "symlink=1\n");
	IT_EXPECT_CONTAINS(r.out, "link=1\n");
	IT_EXPECT_CONTAINS(r.out, "move=1\n");
	IT_EXPECT_CONTAINS(r.out, "sub=1\n");
	IT_EXPECT_CONTAINS(r.err, "hide: ");
	IT_EXPECT_CONTAINS(r.err, "/**/.env (matches ");
	IT_EXPECT_NOT_CONTAINS(r.err, "would not be hidden");
}

/* --unhide gives it back, as it does at launch. */
static void given_back(const char *backend)
{
	struct it_run r;

	run_case(backend, true, true, false, &r);
	IT_EXPECT_CONTAINS(r.out, SECRET "\nread=0\n");
}

/* The attack's ways around the name: an fd held on the file and its name unlinked, the
 * hidden name made beforehand by the worker (a file it holds open, a symlink, a FIFO, a hard
 * link), and (namespaces: a rename into another folder) a path grown past PATH_MAX. */
static const char around_prepare[] =
    ": > held; exec 4<held; mv held .env 2>/dev/null; echo premove=$?; "
    "ln -s tgt .env 2>/dev/null; echo presym=$?; mkfifo .env 2>/dev/null; echo prefifo=$?; "
    ": > lk; ln lk .env 2>/dev/null; echo prelink=$?; rm -f lk held; ";
static const char around_then[] =
    "cat <&4; cat tgt 2>/dev/null; "
    "python3 -c 'import os\n"
    "fd = os.open(\".env\", os.O_WRONLY)\n"
    "os.unlink(\".env\")\n"
    "try:\n"
    "    print(os.read(os.open(\"/proc/self/fd/%d\" % fd, os.O_RDONLY), 100))\n"
    "except OSError as e:\n"
    "    print(\"unlinked\", e.errno)' ; ";

static void around(const char *backend)
{
	struct it_run r;

	prepare = around_prepare;
	then = around_then;
	run_case(backend, true, false, false, &r);
	prepare = then = "";
	IT_EXPECT_NOT_CONTAINS(r.out, SECRET);
	IT_EXPECT_CONTAINS(r.out, "premove=1\n");
	IT_EXPECT_CONTAINS(r.out, "presym=1\n");
	IT_EXPECT_CONTAINS(r.out, "prefifo=1\n");
	IT_EXPECT_CONTAINS(r.out, "prelink=1\n");
	IT_EXPECT_CONTAINS(r.out, "unlinked 13\n");
	IT_EXPECT_CONTAINS(r.err, "a hidden name is not made in the sandbox");
}

/* A worker's script (run in a fresh workspace) under --hide-later with one exact path to hide,
 * absent at launch (relative to the workspace). */
static void exact_case(struct it_run *r, const char *path, const char *script)
{
	char *ws = make_ws();
	const char *opts[] = {"-v", ws, "--hide", it_path(ws, path), "--hide-later", NULL};
	char full[1024];
	const char *cmd[] = {"/bin/sh", "-c", full, NULL};

	snprintf(full, sizeof(full), "cd %s; %s", ws, script);
	it_run_in(r, opts, cmd);
}

/* A folder above an exact path absent at launch is not moved away with it. */
static void test_exact_folder_moved(void)
{
	struct it_run r;

	exact_case(&r, "config/prod.key",
	           "mkdir config; echo SECRET-X > config/prod.key; cat config/prod.key; "
	           "mv config c2 2>/dev/null; echo moved=$?; cat c2/prod.key 2>/dev/null");
	IT_EXPECT_NOT_CONTAINS(r.out, "SECRET-X");
	IT_EXPECT_CONTAINS(r.out, "moved=1\n");
	IT_EXPECT_CONTAINS(r.err, "a folder that holds an exact path to hide is not moved");
}

/* A folder on the way to an exact path absent at launch is not made a symbolic link (the
 * host's `mkdir -p conf; echo ... > conf/secret.txt` would write through it to out/). */
static void test_exact_folder_symlinked(void)
{
	struct it_run r;

	exact_case(&r, "conf/secret.txt",
	           "mkdir out; ln -s out conf 2>/dev/null; echo sym=$?; : > f; "
	           "mv f conf 2>/dev/null; echo moved=$?; mkdir conf; echo dir=$?");
	IT_EXPECT_CONTAINS(r.out, "sym=1\n");
	IT_EXPECT_CONTAINS(r.out, "moved=1\n");
	IT_EXPECT_CONTAINS(r.out, "dir=0\n"); /* a real folder is fine */
	IT_EXPECT_CONTAINS(r.err, "not made a symbolic link");
}

/* Nothing is moved, linked or swapped onto the way to an exact path absent at launch: a
 * folder renamed over it (holding a symbolic link where the path goes on) would send the
 * host's later write where the worker chose. */
static void test_exact_way_renamed_onto(void)
{
	struct it_run r;

	exact_case(&r, "a/b/.env",
	           "mkdir -p y out; ln -s ../out y/b; mv y a 2>/dev/null; echo onto=$?; "
	           "mkdir -p a/x; mv a/x a/b 2>/dev/null; echo inner=$?; mkdir a/b; echo dir=$?");
	IT_EXPECT_CONTAINS(r.out, "onto=1\n");
	IT_EXPECT_CONTAINS(r.out, "inner=1\n");
	IT_EXPECT_CONTAINS(r.out, "dir=0\n");
	IT_EXPECT_CONTAINS(r.err, "nothing is moved or linked onto the way");
}

/* A file the worker planted with a glob's very name does not turn the glob into that one
 * path: both are hidden. */
static void test_planted_glob_name(void)
{
	struct it_run r;
	char *ws = make_ws();
	const char *opts[] = {"-v", ws, "--hide", "*.key", NULL};
	const char *cmd[] = {"/bin/sh", "-c", "cat a.key '*.key'", NULL};

	it_write_file(it_path(ws, "a.key"), "SECRET-A\n");
	it_write_file(it_path(ws, "*.key"), "SECRET-PLANTED\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir: %s", strerror(errno));
	it_run_in(&r, opts, cmd);
	IT_EXPECT_NOT_CONTAINS(r.out, "SECRET");
}

/* --hide and --unhide with an absolute path that exists, in a folder whose name holds glob
 * characters: that path, not a glob that no longer matches it. */
static void test_bracket_paths(void)
{
	struct it_run r;
	char *ws = it_path(it_tmpdir(), "p [1]");
	char *file = it_path(ws, "secret.txt");
	const char *hide[] = {"-v", ws, "--hide", file, NULL};
	const char *back[] = {"-v", ws, "--hide", "**/*.txt", "--unhide", file, NULL};
	const char *cmd[] = {"/bin/cat", file, NULL};

	it_write_file(file, "TOPSECRET\n");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir: %s", strerror(errno));
	it_run_in(&r, hide, cmd);
	IT_EXPECT_NOT_CONTAINS(r.out, "TOPSECRET");
	it_run_in(&r, back, cmd);
	IT_EXPECT_CONTAINS(r.out, "TOPSECRET");
}

/* A sub-sandbox that asks --hide-later under a parent that supervises (so it can have no
 * listener of its own) is refused, not run without it. */
static void test_nested_refused(void)
{
	struct it_run r;
	char *ws = make_ws();
	char script[1024];
	const char *opts[] = {"-v", ws, NULL};
	const char *cmd[] = {"/bin/sh", "-c", script, NULL};

	snprintf(script, sizeof(script),
	         "cd %s; %s run --hide-later --hide '**/.env' -- true; echo child=$?", ws,
	         it_sbx_path());
	it_run_in(&r, opts, cmd);
	IT_EXPECT_CONTAINS(r.out, "child=125\n");
	IT_EXPECT_CONTAINS(r.err, "hide_later needs sbx's supervisor");
}

/* An exact path absent at launch (nothing to mask) is held too. */
static void exact_path(const char *backend)
{
	struct it_run r;

	exact = true;
	run_case(backend, true, false, false, &r);
	exact = false;
	IT_EXPECT_NOT_CONTAINS(r.out, SECRET);
	IT_EXPECT_CONTAINS(r.out, "read=1\n");
	IT_EXPECT_CONTAINS(r.out, "move=1\n");
	IT_EXPECT_CONTAINS(r.err, "hide: an exact path to hide");
}

/* Another view of the folder (namespaces: a second mount) hides it too. */
static void test_other_view(void)
{
	struct it_run r;

	run_case("namespaces", true, false, true, &r);
	IT_EXPECT_NOT_CONTAINS(r.out, SECRET);
	IT_EXPECT_CONTAINS(r.out, "view=1\n");
}

/* A dry run says what holds, and that nesting is off. */
static void test_dry_run(void)
{
	struct it_run r;

	it_sbxv(&r, "run", "--hide", "**/.env", "--hide-later", "--dry-run", "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "files created after launch included");
	IT_EXPECT_CONTAINS(r.out, "nesting off");
}

#define BOTH_BACKENDS(name)                                                                        \
	static void test_##name##_namespaces(void)                                                 \
	{                                                                                          \
		name("namespaces");                                                                \
	}                                                                                          \
	static void test_##name##_landlock(void)                                                   \
	{                                                                                          \
		name("landlock");                                                                  \
	}

BOTH_BACKENDS(without)
BOTH_BACKENDS(later)
BOTH_BACKENDS(given_back)
BOTH_BACKENDS(exact_path)
BOTH_BACKENDS(around)

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_without_namespaces),
	    IT_CASE(test_without_landlock),
	    IT_CASE(test_later_namespaces),
	    IT_CASE(test_later_landlock),
	    IT_CASE(test_given_back_namespaces),
	    IT_CASE(test_given_back_landlock),
	    IT_CASE(test_exact_path_namespaces),
	    IT_CASE(test_exact_path_landlock),
	    IT_CASE(test_around_namespaces),
	    IT_CASE(test_around_landlock),
	    IT_CASE(test_exact_folder_moved),
	    IT_CASE(test_nested_refused),
	    IT_CASE(test_exact_folder_symlinked),
	    IT_CASE(test_exact_way_renamed_onto),
	    IT_CASE(test_planted_glob_name),
	    IT_CASE(test_bracket_paths),
	    IT_CASE(test_other_view),
	    IT_CASE(test_dry_run),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
