/* SPDX-License-Identifier: MIT */
/*
 * A running sandbox's record (include/sbx/registry.h): what sbx run writes reads back the
 * same, whatever bytes the command holds; arguments and specs beyond the caps are cut or left
 * out, and said so; and the parser refuses whole every malformed, duplicated, oversized or
 * truncated record (a table), so that a planted file is skipped, never half-believed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/registry.h"

#define ID     "0123456789abcdef0123456789abcdef"
#define PARENT "fedcba9876543210fedcba9876543210"
#define DIGEST "b85446bb5c4e8c426c738c619877871a4b1fd1b2d834dfb1ab57968bb0fbb8d2"

/* A well-formed record's lines, before the ones a case adds. */
#define HEAD                                                                                       \
	"sbx-sandbox 1\nid " ID "\nsbx_pid 10\nsbx_start 5\npid 11\npid_start 6\nuid 1000\n"       \
	"start_ms 1795864078907\ndepth 1\nbackend namespaces\nprofile ci-job\n"

static void sample(struct sbx_reg *r, char **argv, size_t n)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->id, ID, sizeof(ID));
	memcpy(r->parent, PARENT, sizeof(PARENT));
	memcpy(r->digest, DIGEST, sizeof(DIGEST));
	r->sbx_pid = 4194304;
	r->sbx_start = UINT64_MAX;
	r->pid = 1;
	r->pid_start = 0;
	r->uid = 4294967294u;
	r->start_ms = 1795864078907u;
	r->depth = 16;
	r->backend = 1;
	r->profile = (char *)"claude agent%\n";
	r->argv = argv;
	r->n_argv = n;
}

static void test_round_trip(void **state)
{
	char any[256];
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)"echo 'a b' %41 \t\x7f\x01\xff;", any,
	                (char *)""};
	unsigned char spec[300];
	struct sbx_reg in, out;
	char *text = NULL;
	size_t len;

	(void)state;
	/* every byte but NUL */
	for (int i = 0; i < 255; i++)
		any[i] = (char)(i + 1);
	any[255] = '\0';
	for (size_t i = 0; i < sizeof(spec); i++)
		spec[i] = (unsigned char)i;
	sample(&in, argv, 5);
	in.spec = spec;
	in.spec_len = sizeof(spec);
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), 0);
	assert_int_equal(strlen(text), len);
	assert_int_equal(sbx_reg_parse(text, len, &out, NULL), 0);
	assert_string_equal(out.id, ID);
	assert_string_equal(out.parent, PARENT);
	assert_string_equal(out.digest, DIGEST);
	assert_int_equal(out.sbx_pid, 4194304);
	assert_true(out.sbx_start == UINT64_MAX);
	assert_int_equal(out.pid, 1);
	assert_int_equal(out.uid, 4294967294u);
	assert_true(out.start_ms == 1795864078907u);
	assert_int_equal(out.depth, 16);
	assert_int_equal(out.backend, 1);
	assert_string_equal(out.profile, "claude agent%\n");
	assert_int_equal(out.n_argv, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(out.argv[i], argv[i]);
	assert_false(out.argv_cut);
	assert_int_equal(out.spec_len, sizeof(spec));
	assert_memory_equal(out.spec, spec, sizeof(spec));
	/* the text is lines of printable words: no raw control byte, space or DEL in a value */
	for (const char *p = text; *p; p++)
		assert_true(*p == '\n' || ((unsigned char)*p >= 0x20 && *p != 0x7f));
	sbx_reg_clear(&out);
	free(text);
}

static void test_caps(void **state)
{
	char **argv = calloc(SBX_REG_ARGS_MAX + 10, sizeof(*argv));
	char *longarg = malloc(SBX_REG_ARG_MAX + 100);
	unsigned char *spec = calloc(1, SBX_REG_SPEC_MAX + 1);
	struct sbx_reg in, out;
	char *text = NULL;
	size_t len;

	(void)state;
	assert_non_null(argv);
	assert_non_null(longarg);
	assert_non_null(spec);
	memset(longarg, 'x', SBX_REG_ARG_MAX + 99);
	longarg[SBX_REG_ARG_MAX + 99] = '\0';
	for (size_t i = 0; i < SBX_REG_ARGS_MAX + 10; i++)
		argv[i] = (char *)"a";
	/* too many arguments: the first SBX_REG_ARGS_MAX kept, marked cut */
	sample(&in, argv, SBX_REG_ARGS_MAX + 10);
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), 0);
	assert_int_equal(sbx_reg_parse(text, len, &out, NULL), 0);
	assert_int_equal(out.n_argv, SBX_REG_ARGS_MAX);
	assert_true(out.argv_cut);
	sbx_reg_clear(&out);
	free(text);
	/* one argument too long: cut at the cap, marked */
	argv[0] = longarg;
	sample(&in, argv, 1);
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), 0);
	assert_int_equal(sbx_reg_parse(text, len, &out, NULL), 0);
	assert_int_equal(strlen(out.argv[0]), SBX_REG_ARG_MAX);
	assert_true(out.argv_cut);
	sbx_reg_clear(&out);
	free(text);
	/* a spec over its cap is left out, not cut (a cut spec would not decode) */
	sample(&in, argv, 0);
	in.spec = spec;
	in.spec_len = SBX_REG_SPEC_MAX + 1;
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), 0);
	assert_int_equal(sbx_reg_parse(text, len, &out, NULL), 0);
	assert_null(out.spec);
	sbx_reg_clear(&out);
	free(text);
	/* a spec at its cap is kept */
	in.spec_len = SBX_REG_SPEC_MAX;
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), 0);
	assert_true(len <= SBX_REG_FILE_MAX);
	assert_int_equal(sbx_reg_parse(text, len, &out, NULL), 0);
	assert_int_equal(out.spec_len, SBX_REG_SPEC_MAX);
	sbx_reg_clear(&out);
	free(text);
	/* a record without an id or with a bad backend is not written */
	sample(&in, argv, 0);
	in.id[3] = 'G';
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), -EINVAL);
	assert_null(text);
	sample(&in, argv, 0);
	in.backend = 7;
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), -EINVAL);
	free(spec);
	free(longarg);
	free(argv);
}

static const struct {
	const char *name;
	const char *text;
} bad[] = {
    {"empty", ""},
    {"no final newline", HEAD "arg x"},
    {"version not first", "id " ID "\nsbx-sandbox 1\n"},
    {"a later version", "sbx-sandbox 2\n"},
    {"version twice", HEAD "sbx-sandbox 1\n"},
    {"an unknown key", HEAD "color red\n"},
    {"a key without a value", HEAD "arg\n"},
    {"an empty line", HEAD "\n"},
    {"id twice", HEAD "id " ID "\n"},
    {"upper-case id", "sbx-sandbox 1\nid 0123456789ABCDEF0123456789abcdef\n"},
    {"short id", "sbx-sandbox 1\nid 0123\n"},
    {"long id", "sbx-sandbox 1\nid " ID "0\n"},
    {"bad parent", HEAD "parent zz\n"},
    {"bad digest", HEAD "digest " ID "\n"},
    {"pid 0", "sbx-sandbox 1\nid " ID "\nsbx_pid 0\n"},
    {"pid beyond pid_max", "sbx-sandbox 1\nid " ID "\nsbx_pid 4194305\n"},
    {"negative pid", "sbx-sandbox 1\nid " ID "\nsbx_pid -1\n"},
    {"pid with a sign", "sbx-sandbox 1\nid " ID "\nsbx_pid +5\n"},
    {"pid with leading zeros", "sbx-sandbox 1\nid " ID "\nsbx_pid 007\n"},
    {"pid with trailing junk", "sbx-sandbox 1\nid " ID "\nsbx_pid 7x\n"},
    {"two spaces", "sbx-sandbox 1\nid " ID "\nsbx_pid  7\n"},
    {"start time overflow", "sbx-sandbox 1\nid " ID "\nsbx_start 18446744073709551616\n"},
    {"uid -1", "sbx-sandbox 1\nid " ID "\nuid 4294967295\n"},
    {"depth 0", "sbx-sandbox 1\nid " ID "\ndepth 0\n"},
    {"depth too deep", "sbx-sandbox 1\nid " ID "\ndepth 17\n"},
    {"unknown backend", "sbx-sandbox 1\nid " ID "\nbackend chroot\n"},
    {"raw space in text", HEAD "arg a b\n"},
    {"raw tab in text", HEAD "arg a\tb\n"},
    {"raw DEL in text", HEAD "arg a\x7f\n"},
    {"raw CR", HEAD "arg a\r\n"},
    {"NUL byte", HEAD "arg a\0b\n"},
    {"escaped NUL", HEAD "arg a%00b\n"},
    {"escape of a plain byte", HEAD "arg %61\n"},
    {"short escape", HEAD "arg %4\n"},
    {"bad escape", HEAD "arg %zz\n"},
    {"upper-case escape", HEAD "arg %2A\n"},
    {"argv_cut other than 1", HEAD "argv_cut yes\n"},
    {"spec of odd length", HEAD "spec abc\n"},
    {"spec not hex", HEAD "spec zz\n"},
    {"spec empty", HEAD "spec \n"},
    {"missing pid", "sbx-sandbox 1\nid " ID "\nsbx_pid 10\nsbx_start 5\npid_start 6\nuid 1\n"
                    "start_ms 1\ndepth 1\nbackend landlock\nprofile x\n"},
    {"missing profile", "sbx-sandbox 1\nid " ID "\nsbx_pid 10\nsbx_start 5\npid 11\n"
                        "pid_start 6\nuid 1\nstart_ms 1\ndepth 1\nbackend landlock\n"},
};

static void test_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* "NUL byte" holds a NUL: its length is the array's, not strlen's */
		size_t len = strcmp(bad[i].name, "NUL byte") == 0 ? sizeof(HEAD "arg a\0b\n") - 1
		                                                  : strlen(bad[i].text);
		struct sbx_error err = {0};
		struct sbx_reg out;
		int r = sbx_reg_parse(bad[i].text, len, &out, &err);

		if (r != -EBADMSG) {
			print_error("%s: parsed (%d), expected a refusal\n", bad[i].name, r);
			fail();
		}
		assert_string_not_equal(err.msg, "");
		/* left cleared: nothing half-parsed reaches the caller */
		assert_null(out.profile);
		assert_null(out.argv);
		assert_null(out.spec);
		assert_int_equal(out.pid, 0);
	}
	/* and the head itself parses: the table's refusals are the lines they add */
	{
		struct sbx_reg out;

		assert_int_equal(sbx_reg_parse(HEAD, strlen(HEAD), &out, NULL), 0);
		assert_string_equal(out.profile, "ci-job");
		sbx_reg_clear(&out);
	}
}

/* Every prefix of a good record that ends on a line is refused or parses; every other is
 * refused (cut short). And an oversized buffer is refused before it is read. */
static void test_truncated(void **state)
{
	char *argv[] = {(char *)"make", (char *)"test"};
	struct sbx_reg in, out;
	char *text = NULL;
	size_t len;

	(void)state;
	sample(&in, argv, 2);
	assert_int_equal(sbx_reg_format(&in, &text, &len, NULL), 0);
	for (size_t n = 0; n < len; n++) {
		int r = sbx_reg_parse(text, n, &out, NULL);

		if (n == 0 || text[n - 1] != '\n')
			assert_int_equal(r, -EBADMSG);
		if (r == 0)
			sbx_reg_clear(&out);
	}
	assert_int_equal(sbx_reg_parse(text, SBX_REG_FILE_MAX + 1, &out, NULL), -EBADMSG);
	free(text);
}

static void test_id_valid(void **state)
{
	(void)state;
	assert_true(sbx_reg_id_valid(ID));
	assert_false(sbx_reg_id_valid(""));
	assert_false(sbx_reg_id_valid(ID "0"));
	assert_false(sbx_reg_id_valid("0123456789abcdef0123456789abcdeF"));
	assert_false(sbx_reg_id_valid("../../etc/passwd"));
	assert_false(sbx_reg_id_valid(".0123456789abcdef0123456789abcde"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip), cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_malformed),  cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_id_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
