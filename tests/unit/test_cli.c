/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int parse(struct sbx_cli_run *run, struct sbx_error *err, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;

	argv[argc++] = "run";
	va_start(ap, err);
	while (argc < 63 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return sbx_cli_parse_run(argc, argv, "/home/u/proj", run, err);
}

static void test_defaults(void **state)
{
	struct sbx_cli_run run;

	(void)state;
	assert_int_equal(parse(&run, NULL, "--", "ls", "-l", NULL), 0);
	assert_int_equal(run.argc, 2);
	assert_string_equal(run.argv[0], "ls");
	assert_string_equal(run.argv[1], "-l");
	assert_string_equal(run.spec->workspace, "/home/u/proj");
	assert_int_equal(run.spec->n_mounts, 2); /* the default's workspace, and its home */
	assert_string_equal(run.spec->mounts[1].target, "/home/u");
	assert_int_equal(run.spec->mounts[1].kind, SBX_MOUNT_TMPFS);
	assert_int_equal(run.spec->mounts[1].origin, SBX_ORIGIN_HOME);
	assert_true(run.spec->mounts[1].size > 0); /* every tmpfs has a size */
	assert_int_equal(run.spec->net, SBX_NET_NONE);
	assert_false(run.dry_run);
	sbx_cli_run_clear(&run);
}

static void test_options_fill_the_spec(void **state)
{
	struct sbx_cli_run run;

	(void)state;
	assert_int_equal(parse(&run, NULL, "-v", "/data:/d:ro", "--mount",
	                       "type=tmpfs,target=/scratch", "--root", "rootdir", "--readonly",
	                       "--chdir", "/d", "--env", "A=1", "--env", "B", "--net", "host",
	                       "--device", "/dev/nvidia0", "--workspace", "../ws", "--dry-run",
	                       "--json", "--no-system-mounts", "cmd", "--not-ours", NULL),
	                 0);
	assert_true(run.dry_run);
	assert_true(run.json);
	assert_int_equal(run.argc, 2);
	assert_string_equal(run.argv[1], "--not-ours"); /* CMD's options are left alone */
	assert_string_equal(run.spec->root, "/home/u/proj/rootdir");
	assert_string_equal(run.spec->workspace, "/home/u/ws");
	assert_string_equal(run.spec->chdir, "/d");
	assert_true(run.spec->readonly);
	assert_int_equal(run.spec->net, SBX_NET_HOST);
	assert_int_equal(run.spec->system_mounts, SBX_SYSMOUNTS_NONE);
	assert_int_equal(run.spec->n_mounts, 3); /* explicit: no default workspace; --root: no
	                                            home */
	assert_int_equal(run.spec->mounts[2].kind, SBX_MOUNT_DEVICE);
	assert_true(run.spec->mounts[0].readonly);
	assert_true(run.spec->mounts[1].readonly); /* --readonly reaches every mount */
	assert_int_equal(run.spec->n_env, 2);
	sbx_cli_run_clear(&run);
}

static const struct {
	const char *a, *b, *c;
	const char *msg;
} bad[] = {
    {"--bogus", "--", "x", "unknown option '--bogus'"},
    {"--home", "", "x", "is not tmpfs, empty, none or an absolute directory"},
    {"--home", "/", "x", "would give the sandbox the whole host"},
    {"--tmpfs", "/c:mode=1777", "x", "the option 'mode=1777' is not supported"},
    {"--tmpfs", "/c:size=lots", "x", "--tmpfs '/c:size=lots'"},
    {"-w", "", "x", "-w needs a directory"},
    {"--net", "bridge", "x", "--net 'bridge' is not a network mode"},
    {"--net", "allow:a b", "x", "not a host name"},
    {"--device", "/etc/passwd", "x", "not a path under /dev"},
    {"--json", "--", "x", "--json goes with --dry-run"},
    {"-v", "/a:b", "x", "not an absolute path"},
    {"--env", "9x=1", "x", "is not valid"},
    {"--", NULL, NULL, "needs a command"},
    {"--approve", "mail", "x", "--approve: unknown approval broker 'mail'"},
    {"--approve", "cmd:bin/ask", "x", "names a relative path"},
    {"--approve", "socket:rel.sock", "x", "is not an absolute socket path"},
    {"--approve-timeout", "0", "x", "is not a number of seconds from 1 to 3600"},
    {"--approve-timeout", "3601", "x", "is not a number of seconds from 1 to 3600"},
    {"--approve-timeout", "99999999999999999999", "x", "from 1 to 3600"},
    {"--approve-timeout", "1m", "x", "from 1 to 3600"},
    {"--approve-timeout", "", "x", "from 1 to 3600"},
    {"--label", "a\nb", "x", "--label: the label 'a"},
    {"--label", "\x1b[31mred", "x", "holds a control character"},
    {"--audit-log", "", "x", "--audit-log needs a file"},
    {"--root", NULL, NULL, "needs a value"},
};

static void test_refusals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sbx_cli_run run;
		struct sbx_error err = {0};

		assert_true(parse(&run, &err, bad[i].a, bad[i].b, bad[i].c, NULL) < 0);
		assert_non_null(strstr(err.msg, bad[i].msg));
		assert_int_equal(sbx_error_exit_code(&err), 125);
		assert_null(run.spec);
	}
}

/* Docker's habits: -w is the working directory, -e an environment entry, --read-only,
 * --network and --tmpfs PATH:size=N mean what they mean there; --home chooses the home. */
static void test_docker_habits(void **state)
{
	struct sbx_cli_run run;
	const struct sbx_mount *m;

	(void)state;
	assert_int_equal(parse(&run, NULL, "-v", "/data:/app", "-w", "/app", "-e", "A=1", "-e", "B",
	                       "--read-only", "--network", "host", "--tmpfs",
	                       "/cache:size=64m,noexec", "-q", "--", "make", NULL),
	                 0);
	assert_string_equal(run.spec->chdir, "/app");
	assert_string_equal(run.spec->workspace, "/home/u/proj"); /* -w is not the workspace */
	assert_int_equal(run.spec->n_env, 3);                     /* A, B and the home's HOME */
	assert_string_equal(run.spec->env[0].name, "A");
	assert_string_equal(run.spec->env[0].value, "1");
	assert_null(run.spec->env[1].value);
	assert_true(run.spec->readonly);
	assert_true(run.quiet);
	assert_int_equal(run.spec->net, SBX_NET_HOST);
	m = sbx_spec_find_target(run.spec, "/cache");
	assert_non_null(m);
	assert_int_equal(m->kind, SBX_MOUNT_TMPFS);
	assert_int_equal(m->size, 64ull << 20);
	assert_true(m->noexec);
	assert_true(m->readonly); /* --read-only reaches it */
	/* -v replaced the workspace; the home stays (it shows nothing of the host's) */
	assert_null(sbx_spec_find_target(run.spec, "/home/u/proj"));
	assert_non_null(sbx_spec_find_target(run.spec, "/home/u"));
	sbx_cli_run_clear(&run);

	/* a relative -w is the caller's directory's; --chdir is the same option */
	assert_int_equal(parse(&run, NULL, "-w", "sub", "--", "ls", NULL), 0);
	assert_string_equal(run.spec->chdir, "/home/u/proj/sub");
	sbx_cli_run_clear(&run);
	assert_int_equal(parse(&run, NULL, "--chdir", "/tmp", "--", "ls", NULL), 0);
	assert_string_equal(run.spec->chdir, "/tmp");
	sbx_cli_run_clear(&run);

	/* --home: none, empty, a directory */
	assert_int_equal(parse(&run, NULL, "--home", "none", "--", "ls", NULL), 0);
	assert_null(sbx_spec_find_target(run.spec, "/home/u"));
	assert_int_equal(run.spec->n_mounts, 1);
	sbx_cli_run_clear(&run);
	assert_int_equal(parse(&run, NULL, "--home", "empty", "--", "ls", NULL), 0);
	m = sbx_spec_find_target(run.spec, "/home/u");
	assert_non_null(m);
	assert_int_equal(m->kind, SBX_MOUNT_TMPFS);
	sbx_cli_run_clear(&run);
	assert_int_equal(parse(&run, NULL, "--home", "h", "--", "ls", NULL), 0);
	m = sbx_spec_find_target(run.spec, "/home/u/proj/h");
	assert_non_null(m);
	assert_int_equal(m->kind, SBX_MOUNT_BIND);
	assert_false(m->readonly);
	assert_null(sbx_spec_find_target(run.spec, "/home/u"));
	assert_string_equal(run.spec->env[run.spec->n_env - 1].value, "/home/u/proj/h");
	sbx_cli_run_clear(&run);
	/* the workspace is the home: the workspace mount shows it, no tmpfs over it */
	assert_int_equal(parse(&run, NULL, "--workspace", "/home/u", "--", "ls", NULL), 0);
	assert_int_equal(run.spec->n_mounts, 1);
	assert_int_equal(run.spec->mounts[0].kind, SBX_MOUNT_BIND);
	sbx_cli_run_clear(&run);
}

/* The supervisor's flags fill the spec (finish copies them into plan->sup). */
static void test_supervisor_flags(void **state)
{
	char label[SBX_LABEL_MAX + 1];
	struct sbx_cli_run run;

	(void)state;
	memset(label, 'l', SBX_LABEL_MAX);
	label[SBX_LABEL_MAX] = '\0';
	assert_int_equal(parse(&run, NULL, "--approve", "socket:/run/user/1000/b.sock",
	                       "--approve-timeout", "3600", "--audit-log", "logs/a.jsonl",
	                       "--label", label, "--verbose", "cmd", NULL),
	                 0);
	assert_string_equal(run.spec->approve, "socket:/run/user/1000/b.sock");
	assert_int_equal(run.spec->approve_timeout_ms, 3600000u);
	assert_string_equal(run.spec->audit_log, "/home/u/proj/logs/a.jsonl");
	assert_string_equal(run.spec->label, label);
	assert_true(run.verbose);
	sbx_cli_run_clear(&run);
	/* defaults: none of them, the timeout left to the plan (60 s) */
	assert_int_equal(parse(&run, NULL, "--approve", "cmd:/usr/bin/ok", "--approve", "deny",
	                       "--approve-timeout", "1", "cmd", NULL),
	                 0);
	assert_string_equal(run.spec->approve, "deny"); /* the last one */
	assert_int_equal(run.spec->approve_timeout_ms, 1000u);
	assert_null(run.spec->audit_log);
	assert_null(run.spec->label);
	assert_false(run.verbose);
	sbx_cli_run_clear(&run);
	assert_int_equal(parse(&run, NULL, "cmd", NULL), 0);
	assert_null(run.spec->approve);
	assert_int_equal(run.spec->approve_timeout_ms, 0);
	sbx_cli_run_clear(&run);
	/* a label one byte too long */
	{
		char longer[SBX_LABEL_MAX + 2];
		struct sbx_error err = {0};

		memset(longer, 'l', SBX_LABEL_MAX + 1);
		longer[SBX_LABEL_MAX + 1] = '\0';
		assert_true(parse(&run, &err, "--label", longer, "cmd", NULL) < 0);
		assert_non_null(strstr(err.msg, "longer than 256 bytes"));
	}
	assert_non_null(strstr(sbx_run_usage, "--approve-timeout"));
	assert_non_null(strstr(sbx_run_usage, "--audit-log"));
}

static void test_help(void **state)
{
	struct sbx_cli_run run;

	(void)state;
	assert_int_equal(parse(&run, NULL, "--help", NULL), 0);
	assert_true(run.help);
	sbx_cli_run_clear(&run);
	assert_non_null(strstr(sbx_run_usage, "--dry-run"));
}

/* The CLI's helpers: sbx_cli_esc and sbx_json_string. */
static void test_cli_helpers(void **state)
{
	char buf[256];
	FILE *f;
	const char *plain = "/plain/path";

	(void)state;
	/* nothing to escape: the string itself */
	assert_ptr_equal(sbx_cli_esc(plain), plain);
	assert_string_equal(sbx_cli_esc("a\x1b]0;T\x07"), "a\\x1b]0;T\\x07");
	assert_string_equal(sbx_cli_esc(NULL), "(null)");
	/* several in one printf: each has a buffer of its own */
	snprintf(buf, sizeof(buf), "%s|%s|%s", sbx_cli_esc("\x01"), sbx_cli_esc("\x02"),
	         sbx_cli_esc("\x03"));
	assert_string_equal(buf, "\\x01|\\x02|\\x03");
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	sbx_json_string(f, "q\"\\\n\x1b\x7f\xc2\x9b\xff");
	fclose(f);
	assert_string_equal(buf, "\"q\\\"\\\\\\n\\u001b\\u007f\\u009b\\ufffd\"");
}

int main(void)
{
	/* The parser reads the environment it runs in (SBX_SPEC_FD says "nested", HOME and USER
	 * expand in profiles): the test gives it a fixed one, so that it answers the same run
	 * from a shell, from CI, or inside an sbx sandbox (sbx's own suite under ci-job). */
	clearenv();
	setenv("HOME", "/home/u", 1);
	setenv("USER", "u", 1);
	setenv("PATH", "/usr/bin:/bin", 1);

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),      cmocka_unit_test(test_options_fill_the_spec),
	    cmocka_unit_test(test_refusals),      cmocka_unit_test(test_help),
	    cmocka_unit_test(test_cli_helpers),   cmocka_unit_test(test_supervisor_flags),
	    cmocka_unit_test(test_docker_habits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
