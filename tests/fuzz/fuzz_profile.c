/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the profile loader, and what a loaded profile feeds: compile, plan, decisions, globs.
 * Built as the other targets in tests/fuzz are: a libFuzzer binary with -DSBX_FUZZ=ON, and
 * always a replayer of tests/fuzz/corpus/profile (replay_main.c) that CTest runs.
 *
 * The input is loaded as if it were the file good/fuzz.yaml of the test fixtures, so that
 * `extends: base` and the policies `all` and `ro` resolve and the fuzzer reaches past them.
 * Properties checked: nothing crashes or leaks (ASan), a failure always carries a message,
 * a located failure a line and a column, and a profile that compiles builds a plan whose
 * decisions are well formed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_files.h"
#include "sbx/plan.h"
#include "sbx/policy.h"
#include "sbx/profile.h"
#include "sbx/spec.h"

#define FUZZ_FILE SBX_SOURCE_DIR "/tests/fixtures/profiles/good/fuzz.yaml"

static bool fake_exists(const char *path, void *ctx)
{
	(void)ctx;
	return !strstr(path, "missing");
}

static char *const fake_environ[] = {"HOME=/home/u", "XDG_CACHE_HOME=/var/cache/u", NULL};

static struct sbx_host_entry host_entries[] = {
    {"/usr", SBX_HOST_DIR, NULL},
    {"/bin", SBX_HOST_SYMLINK, "usr/bin"},
    {"/etc/passwd", SBX_HOST_FILE, NULL},
};

static const char *const probe[] = {
    "/",      "/home/u/ws/a.c",   "/home/u/.claude/settings.json", "/etc/passwd", "/bin/sh",
    "/tmp/x", "/srv/cache/y/.env"};

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_profile: property violated: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sbx_profile_opts opts = {
	    .vars = {.home = "/home/u",
	             .workspace = "/home/u/ws",
	             .user = "u",
	             .uid = 1000,
	             .environ = fake_environ},
	    .exists = fake_exists,
	    /* the fixtures' base profile and policies, read from the source tree */
	    .is_file = test_is_file,
	    .resolve = test_resolve,
	    .read = test_read_file,
	};
	struct sbx_host host = {.uid = 1000,
	                        .gid = 1000,
	                        .euid = 1000,
	                        .entries = host_entries,
	                        .n_entries = 3,
	                        .environ = fake_environ,
	                        .cwd = "/home/u/ws"};
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_profile *p = NULL;
	struct sbx_plan *plan = NULL;
	struct sbx_error err = {0};
	int r;

	if (!spec)
		return 0;
	sbx_spec_set_str(&spec->workspace, "/home/u/ws", NULL);
	r = sbx_profile_load_buffer((const char *)data, size, FUZZ_FILE, &opts, spec, &p, &err);
	if (r < 0) {
		check(err.msg[0] != '\0', "a failure has a message");
		check(!err.file[0] || (err.line > 0 && err.column > 0),
		      "a located failure has a line and a column");
		check(p == NULL, "no profile on failure");
		goto out;
	}
	/* Globs of every rule against a few texts. */
	for (size_t i = 0; i < p->policies.n; i++)
		for (size_t j = 0; j < p->policies.items[i]->n_rules; j++)
			for (size_t k = 0; k < p->policies.items[i]->rules[j].n_paths; k++)
				for (size_t t = 0; t < sizeof(probe) / sizeof(probe[0]); t++)
					(void)sbx_glob_match(
					    p->policies.items[i]->rules[j].paths[k], probe[t] + 1);
	{
		struct sbx_policy_view v = {NULL, spec, &p->policies, NULL};

		if (sbx_spec_finish(spec, &err) < 0 || sbx_plan_build(spec, &host, &plan, &err) < 0)
			goto out;
		v.plan = plan;
		for (size_t t = 0; t < sizeof(probe) / sizeof(probe[0]); t++) {
			for (unsigned op = 1; op <= SBX_OP_EXECUTE; op <<= 1) {
				struct sbx_decision d;

				if (sbx_policy_decide(&v, op, probe[t], &d, &err) < 0)
					continue;
				check(d.allow == (d.by == SBX_BY_ALLOWED),
				      "allowed exactly when nothing denied");
			}
		}
	}
	if (sbx_policy_compile(spec, &p->policies, &err) < 0)
		check(err.msg[0] != '\0', "a refusal has a message");
out:
	sbx_plan_free(plan);
	sbx_profile_free(p);
	sbx_spec_free(spec);
	return 0;
}
