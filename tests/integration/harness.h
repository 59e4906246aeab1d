/* SPDX-License-Identifier: MIT */
#ifndef SBX_IT_HARNESS_H
#define SBX_IT_HARNESS_H

/*
 * Integration test harness. Each case runs in its own forked child (as the Landlock
 * selftests' TEST_F_FORK); a case passes by returning normally, fails through IT_EXPECT*,
 * and skips with it_skip() only where the kernel lacks a feature, saying which.
 * The binary under test is $SBX (set by CTest), and every case may start real sandboxes.
 * The summary line is "N passed, N failed, N skipped"; the exit status is 1 if any failed,
 * 77 if every case skipped, else 0.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct it_case {
	const char *name;
	void (*fn)(void);
};

#define IT_CASE(fn)                                                                                \
	{                                                                                          \
#fn, fn                                                                            \
	}

/* Run every case; argv[1], if given, is a substring filter on names. */
int it_main(int argc, char **argv, const struct it_case *cases, size_t n);

/* Fail the current case with a message (never returns). */
__attribute__((noreturn, format(printf, 3, 4))) void it_fail(const char *file, int line,
                                                             const char *fmt, ...);
/* Skip the current case: the kernel or system lacks `why` (never returns). */
__attribute__((noreturn, format(printf, 1, 2))) void it_skip(const char *fmt, ...);

#define IT_EXPECT(cond)                                                                            \
	do {                                                                                       \
		if (!(cond))                                                                       \
			it_fail(__FILE__, __LINE__, "expected: %s", #cond);                        \
	} while (0)

#define IT_EXPECT_INT(got, want)                                                                   \
	do {                                                                                       \
		long long _g = (long long)(got), _w = (long long)(want);                           \
		if (_g != _w)                                                                      \
			it_fail(__FILE__, __LINE__, "%s is %lld, expected %lld", #got, _g, _w);    \
	} while (0)

#define IT_EXPECT_CONTAINS(hay, needle)                                                            \
	do {                                                                                       \
		const char *_h = (hay), *_n = (needle);                                            \
		if (!_h || !strstr(_h, _n))                                                        \
			it_fail(__FILE__, __LINE__, "%s does not contain \"%s\"; it is:\n%s",      \
			        #hay, _n, _h ? _h : "(null)");                                     \
	} while (0)

#define IT_EXPECT_NOT_CONTAINS(hay, needle)                                                        \
	do {                                                                                       \
		const char *_h = (hay), *_n = (needle);                                            \
		if (_h && strstr(_h, _n))                                                          \
			it_fail(__FILE__, __LINE__, "%s contains \"%s\"; it is:\n%s", #hay, _n,    \
			        _h);                                                               \
	} while (0)

/* The result of running a process: exit status as a shell reports it (128+N for signal N). */
struct it_run {
	int status;
	char out[65536];
	char err[65536];
};

/* Run argv (argv[0] is a path; NULL-terminated) with stdin /dev/null, capturing its output
 * (truncated at 64 KiB) and its status. */
void it_exec(struct it_run *r, const char *const *argv);

/* Run $SBX with the NULL-terminated arguments (argv[0] is not sbx: the list starts with the
 * subcommand). stdin is /dev/null. Output is captured (truncated at 64 KiB). */
void it_sbx(struct it_run *r, const char *const *args);

/* Convenience: it_sbx with a variadic NULL-terminated list. */
void it_sbxv(struct it_run *r, ...) __attribute__((sentinel));

/* Run a shell command line inside a default sandbox with the given extra sbx options before
 * "--": it_sh(&r, "echo hi", "-v", "/x", NULL). */
void it_sh(struct it_run *r, const char *script, ...) __attribute__((sentinel));

/* A fresh directory for this case, owned by the user running the test, under $TMPDIR (or
 * /tmp); removed by the harness after the case. */
const char *it_tmpdir(void);

/* DIR/NAME, allocated; a case is a short-lived child, so nothing needs freeing. */
char *it_path(const char *dir, const char *name);

/* A process's name (its comm) and parent, from /proc/PID/stat; false if it cannot be read. */
bool it_proc_stat(pid_t pid, char *comm, size_t size, pid_t *ppid);

/* Write a file (mode 0644), creating parents. */
void it_write_file(const char *path, const char *content);

/*
 * Run `sbx run OPTS... -- CMD...` (both NULL-terminated lists; OPTS replace the default
 * workspace, as any -v does). The test binary itself is a probe program: a CMD of
 * {"@probe", "--probe", OP, ARG..., OP, ARG..., NULL} runs it inside the sandbox, where it
 * performs each operation and prints one line per operation, "OP PATH => RESULT", RESULT
 * being "ok" or the errno name (EACCES, EROFS, ...). The directory holding the test binary
 * is mounted read-only so that it can run there.
 */
void it_run_in(struct it_run *r, const char *const *opts, const char *const *cmd);

/* Probe operations: read write create unlink mkdir rmdir chmod truncate stat ls PATH;
 * rename link OLD NEW; symlink TEXT PATH; remount-rw umount setattr-rw open-tree
 * open-tree-rw exec mmap-exec PATH; tcp-connect tcp-bind PORT (127.0.0.1); nested (enter a nested
 * user+mount namespace); tiocsti; fds; kill PID; kill0 PID (signal 0); ptrace PID; abstract-connect
 * NAME (a unix socket at @NAME); sleep N. */
/*
 * The probe's answer for one operation, as it printed it ("OP PATH => RESULT"), must be want
 * ("ok" or an errno name such as "EROFS"): a denial for another reason (the path missing, the
 * sandbox not started) fails, where "cmd && echo MARK" with a check that MARK is absent would
 * pass on any failure. Fails the case when the probe printed no line for OP PATH.
 */
#define IT_EXPECT_PROBE(out, op, path, want)                                                       \
	it_expect_probe(__FILE__, __LINE__, out, op, path, want)
void it_expect_probe(const char *file, int line, const char *out, const char *op, const char *path,
                     const char *want);

const char *it_self(void);
const char *it_self_dir(void);

/* Path of the sbx binary. */
const char *it_sbx_path(void);

/* True when the test runs as root. */
bool it_is_root(void);

/* "ok" for r >= 0, else errno's name (EACCES), for a probe's line. */
const char *it_errno_word(int r);
/* CLOCK_MONOTONIC in ms. */
long long it_mono_ms(void);
/* dir/name in one of 8 rotating static buffers (no free). */
char *it_at(const char *dir, const char *name);

#endif
