/* SPDX-License-Identifier: MIT */
/*
 * The seccomp tables' invariants, the resolution of configurations, and the compiled program
 * run through a small classic-BPF interpreter (so the prologue sbx writes by hand is checked
 * without loading anything).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "sbx/plan.h"
#include "sbx/seccomp.h"
#include "sbx/spec.h"
#include "os/seccomp.h"

/* Core resolves a configuration (what is denied); the os module builds the BPF program from
 * the resolved rules, as the launcher does with a plan's. */
static int build_conf(const struct sbx_seccomp_conf *conf, struct sbx_seccomp_prog *p,
                      struct sbx_error *err)
{
	struct sbx_seccomp_rules rules;
	int r = sbx_seccomp_resolve(conf, &rules, err);

	if (r < 0)
		return r;
	r = sbx_seccomp_build(&rules, p, err);
	sbx_seccomp_rules_clear(&rules);
	return r;
}

/* ---- tables ---- */

static void test_known_calls_sorted_unique(void **state)
{
	(void)state;
	assert_true(sbx_seccomp_n_known_calls > 300);
	for (size_t i = 1; i < sbx_seccomp_n_known_calls; i++)
		if (strcmp(sbx_seccomp_known_calls[i - 1], sbx_seccomp_known_calls[i]) >= 0)
			fail_msg("known calls out of order or duplicated: %s, %s",
			         sbx_seccomp_known_calls[i - 1], sbx_seccomp_known_calls[i]);
	for (size_t i = 0; i < sbx_seccomp_n_known_calls; i++)
		assert_ptr_equal(sbx_seccomp_call_find(sbx_seccomp_known_calls[i]),
		                 sbx_seccomp_known_calls[i]);
	assert_null(sbx_seccomp_call_find("nosuchcall"));
	assert_null(sbx_seccomp_call_find(""));
}

/* Every known call has a number on x86_64, no two share one, all lie at or below the ceiling,
 * and every call libseccomp numbers at or below the ceiling is known: the list is complete,
 * so nothing under the ceiling escapes classification. */
static void test_known_calls_match_libseccomp(void **state)
{
	long max = sbx_seccomp_known_max();
	char *seen;

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	seen = calloc((size_t)max + 1, 1);
	assert_non_null(seen);
	for (size_t i = 0; i < sbx_seccomp_n_known_calls; i++) {
		const char *name = sbx_seccomp_known_calls[i];
		int nr = sbx_seccomp_call_number(name);

		if (nr < 0)
			fail_msg("known call %s has no x86_64 number (%d)", name, nr);
		if (nr > max)
			fail_msg("known call %s is %d, above the ceiling %ld", name, nr, max);
		if (seen[nr])
			fail_msg("two known calls share number %d (%s)", nr, name);
		seen[nr] = 1;
		/* libseccomp, where it knows the call, agrees with sbx's own numbers */
		{
			int lib = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);

			if (lib != __NR_SCMP_ERROR && lib != nr)
				fail_msg("%s: libseccomp says %d, sbx %d", name, lib, nr);
		}
	}
	for (int nr = 0; nr <= max; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);

		if (name && !sbx_seccomp_call_find(name))
			fail_msg("libseccomp knows x86_64 call %d %s, sbx's list does not", nr,
			         name);
		free(name);
	}
	free(seen);
}

/* An entry's comparisons: in use ones first, each well formed; a NOT_IN32 one alone; no two
 * on one argument (libseccomp refuses that in one rule). */
static void check_entry(const char *group, const struct sbx_seccomp_entry *en)
{
	size_t n = sbx_seccomp_entry_n_cmp(en);

	for (size_t c = n; c < SBX_SECCOMP_CMP_MAX; c++)
		if (en->cmp[c].op != SBX_SECCOMP_ALWAYS)
			fail_msg("%s: %s has a comparison after an empty one", group, en->call);
	for (size_t c = 0; c < n; c++) {
		const struct sbx_seccomp_cmp *cmp = &en->cmp[c];

		assert_true(cmp->arg < 6);
		assert_non_null(cmp->what);
		assert_true(strlen(cmp->what) > 0);
		for (size_t d = 0; d < c; d++)
			if (en->cmp[d].arg == cmp->arg)
				fail_msg("%s: %s compares argument %u twice", group, en->call,
				         cmp->arg);
		switch (cmp->op) {
		case SBX_SECCOMP_MASKED_EQ:
			assert_true(cmp->mask != 0);
			assert_int_equal(cmp->value & ~cmp->mask, 0);
			break;
		case SBX_SECCOMP_NOT_IN32:
			if (n != 1)
				fail_msg("%s: %s: NOT_IN32 must stand alone", group, en->call);
			assert_true(cmp->n_set >= 1 && cmp->n_set <= SBX_SECCOMP_SET_MAX);
			break;
		default:
			fail_msg("%s: %s has an unknown comparison", group, en->call);
		}
	}
}

static void test_groups_well_formed(void **state)
{
	(void)state;
	assert_true(sbx_seccomp_n_groups >= 15);
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++) {
		const struct sbx_seccomp_group *grp = &sbx_seccomp_groups[g];

		assert_int_equal(grp->name[0], '@');
		assert_true(strlen(grp->help) > 10);
		assert_true(grp->n_entries > 0);
		assert_ptr_equal(sbx_seccomp_group_find(grp->name), grp);
		if (g > 0 && strcmp(sbx_seccomp_groups[g - 1].name, grp->name) >= 0)
			fail_msg("groups out of order or duplicated: %s, %s",
			         sbx_seccomp_groups[g - 1].name, grp->name);
		for (size_t e = 0; e < grp->n_entries; e++) {
			const struct sbx_seccomp_entry *en = &grp->entries[e];

			if (!sbx_seccomp_call_find(en->call))
				fail_msg("%s: %s is not a known call", grp->name, en->call);
			/* every name libseccomp knows (or sbx numbers itself) */
			if (sbx_seccomp_call_number(en->call) < 0 &&
			    seccomp_syscall_resolve_name(en->call) == __NR_SCMP_ERROR)
				fail_msg("%s: neither libseccomp nor sbx numbers %s", grp->name,
				         en->call);
			check_entry(grp->name, en);
		}
		/* a locked group is never lifted by nesting or the backend */
		if (grp->locked)
			assert_false(grp->nesting || grp->same_ns);
	}
	assert_null(sbx_seccomp_group_find("@nosuch"));
}

static bool memcmp_cmps(const struct sbx_seccomp_entry *a, const struct sbx_seccomp_entry *b)
{
	for (size_t c = 0; c < SBX_SECCOMP_CMP_MAX; c++)
		if (a->cmp[c].op != b->cmp[c].op || a->cmp[c].arg != b->cmp[c].arg ||
		    a->cmp[c].mask != b->cmp[c].mask || a->cmp[c].value != b->cmp[c].value)
			return false;
	return true;
}

/* A call belongs to one group; within it, no entry repeats and no call is both unconditional
 * and conditional (libseccomp would let the unconditional rule swallow the others). */
static void test_no_duplicates(void **state)
{
	(void)state;
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++)
		for (size_t e = 0; e < sbx_seccomp_groups[g].n_entries; e++) {
			const struct sbx_seccomp_entry *a = &sbx_seccomp_groups[g].entries[e];

			for (size_t h = 0; h < sbx_seccomp_n_groups; h++)
				for (size_t f = 0; f < sbx_seccomp_groups[h].n_entries; f++) {
					const struct sbx_seccomp_entry *b =
					    &sbx_seccomp_groups[h].entries[f];

					if (a == b || strcmp(a->call, b->call) != 0)
						continue;
					if (g != h)
						fail_msg("%s is in %s and %s", a->call,
						         sbx_seccomp_groups[g].name,
						         sbx_seccomp_groups[h].name);
					if (a->cmp[0].op == SBX_SECCOMP_ALWAYS ||
					    b->cmp[0].op == SBX_SECCOMP_ALWAYS)
						fail_msg("%s: unconditional and repeated in %s",
						         a->call, sbx_seccomp_groups[g].name);
					if (memcmp_cmps(a, b))
						fail_msg("%s: the same condition twice in %s",
						         a->call, sbx_seccomp_groups[g].name);
				}
		}
}

/* What sbx-seccomp(7) names is in the default filter, with its action. */
static void test_spec_names_are_denied(void **state)
{
	static const struct {
		const char *call;
		int errnum;
	} must[] = {
	    {"init_module", EPERM},
	    {"finit_module", EPERM},
	    {"kexec_load", EPERM},
	    {"reboot", EPERM},
	    {"swapon", EPERM},
	    {"clock_settime", EPERM},
	    {"keyctl", EPERM},
	    {"bpf", EPERM},
	    {"perf_event_open", EPERM},
	    {"userfaultfd", EPERM},
	    {"io_uring_setup", ENOSYS},
	    {"io_uring_enter", ENOSYS},
	    {"ptrace", EPERM},
	    {"process_vm_readv", EPERM},
	    {"open_by_handle_at", EPERM},
	    {"clone3", ENOSYS},
	    {"setns", EPERM},
	    {"mount", EPERM},
	    {"umount2", EPERM},
	    {"pivot_root", EPERM},
	    {"open_tree", EPERM},
	    {"move_mount", EPERM},
	    {"fsopen", EPERM},
	    {"fsmount", EPERM},
	    {"fsconfig", EPERM},
	    {"fspick", EPERM},
	    {"mount_setattr", EPERM},
	};
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_rules rules;

	(void)state;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		bool found = false;

		for (size_t r = 0; r < rules.n_rules; r++)
			if (strcmp(rules.rules[r].call, must[i].call) == 0 && !rules.rules[r].cmp) {
				assert_int_equal(rules.rules[r].errnum, must[i].errnum);
				found = true;
			}
		if (!found)
			fail_msg("%s is not denied by the default filter", must[i].call);
	}
	sbx_seccomp_rules_clear(&rules);
}

/* ---- resolution ---- */

static size_t count_rules(const struct sbx_seccomp_rules *r, const char *call)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_rules; i++)
		if (strcmp(r->rules[i].call, call) == 0)
			n++;
	return n;
}

static const struct sbx_seccomp_rule *find_rule(const struct sbx_seccomp_rules *r, const char *call)
{
	for (size_t i = 0; i < r->n_rules; i++)
		if (strcmp(r->rules[i].call, call) == 0)
			return &r->rules[i];
	return NULL;
}

static size_t group_index(const char *name)
{
	return (size_t)(sbx_seccomp_group_find(name) - sbx_seccomp_groups);
}

static void test_resolve_default(void **state)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_rules rules;
	size_t total = 0;

	(void)state;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++) {
		/* the namespaces backend: same_ns groups are held by the worker's namespaces */
		if (sbx_seccomp_groups[g].same_ns) {
			assert_int_equal(rules.group_state[g], SBX_SECCOMP_GROUP_OWN_NS);
			continue;
		}
		assert_int_equal(rules.group_state[g], SBX_SECCOMP_GROUP_DENIED);
		total += sbx_seccomp_groups[g].n_entries;
	}
	assert_int_equal(rules.n_rules, total);
	assert_int_equal(rules.deny_errno, EPERM);
	assert_false(rules.log);
	assert_int_equal(count_rules(&rules, "clone"), 7);
	assert_int_equal(count_rules(&rules, "unshare"), 8);
	/* TIOCSTI, TIOCLINUX, TIOCSETD */
	assert_int_equal(count_rules(&rules, "ioctl"), 3);
	assert_null(find_rule(&rules, "read"));
	sbx_seccomp_rules_clear(&rules);
}

static void test_resolve_nesting(void **state)
{
	struct sbx_seccomp_conf conf = {.nesting = true};
	struct sbx_seccomp_rules rules;

	(void)state;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_int_equal(rules.group_state[group_index("@mount")], SBX_SECCOMP_GROUP_NESTING);
	assert_int_equal(rules.group_state[group_index("@namespaces")], SBX_SECCOMP_GROUP_NESTING);
	assert_int_equal(rules.group_state[group_index("@debug")], SBX_SECCOMP_GROUP_DENIED);
	assert_null(find_rule(&rules, "mount"));
	assert_null(find_rule(&rules, "setns"));
	assert_null(find_rule(&rules, "clone"));
	/* clone3 stays ENOSYS: nesting does not need it */
	assert_int_equal(find_rule(&rules, "clone3")->errnum, ENOSYS);
	sbx_seccomp_rules_clear(&rules);

	/* nesting, yet the profile denies @mount again: the deny wins */
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "@mount", NULL), 0);
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_non_null(find_rule(&rules, "mount"));
	assert_null(find_rule(&rules, "setns"));
	sbx_seccomp_rules_clear(&rules);
	sbx_seccomp_conf_clear(&conf);
}

static void test_resolve_allow_deny(void **state)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_rules rules;
	const struct sbx_seccomp_rule *r;

	(void)state;
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "ptrace", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "@keyring", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "getppid", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "ioctl", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "getppid", NULL), 0); /* no duplicate */
	assert_int_equal(conf.n_deny, 2);
	assert_int_equal(sbx_seccomp_conf_set_errno(&conf, "EACCES", NULL), 0);
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_null(find_rule(&rules, "ptrace"));
	assert_non_null(find_rule(&rules, "kcmp"));
	assert_null(find_rule(&rules, "keyctl"));
	assert_int_equal(rules.group_state[group_index("@keyring")], SBX_SECCOMP_GROUP_ALLOWED);
	r = find_rule(&rules, "getppid");
	assert_non_null(r);
	assert_null(r->group);
	assert_int_equal(r->errnum, EACCES);
	/* ioctl denied outright replaces the TIOCSTI/TIOCLINUX/TIOCSETD conditions */
	assert_int_equal(count_rules(&rules, "ioctl"), 1);
	assert_null(find_rule(&rules, "ioctl")->cmp);
	/* ENOSYS rules keep ENOSYS */
	assert_int_equal(find_rule(&rules, "io_uring_setup")->errnum, ENOSYS);
	assert_int_equal(find_rule(&rules, "bpf")->errnum, EACCES);
	sbx_seccomp_rules_clear(&rules);

	/* a deny of the group wins over the allow of its member */
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "@debug", NULL), 0);
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_non_null(find_rule(&rules, "ptrace"));
	sbx_seccomp_rules_clear(&rules);
	sbx_seccomp_conf_clear(&conf);
}

static void test_resolve_refusals(void **state)
{
	static const struct {
		const char *allow, *deny;
		bool nesting;
		const char *says;
	} cases[] = {
	    {"clone3", NULL, false, "clone3"},
	    {"@clone3", NULL, false, "clone3"},
	    {"ioctl", NULL, false, "@tty-inject"},
	    {"clone", NULL, false, "@namespaces"},
	    {"personality", NULL, false, "@personality"},
	    {NULL, "execve", false, "execve"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_seccomp_conf conf = {.nesting = cases[i].nesting};
		struct sbx_seccomp_rules rules;
		struct sbx_error err = {0};

		if (cases[i].allow)
			assert_int_equal(sbx_seccomp_conf_allow(&conf, cases[i].allow, NULL), 0);
		if (cases[i].deny)
			assert_int_equal(sbx_seccomp_conf_deny(&conf, cases[i].deny, NULL), 0);
		assert_true(sbx_seccomp_resolve(&conf, &rules, &err) < 0);
		assert_int_equal(err.kind, SBX_ERR_USAGE);
		if (!strstr(err.msg, cases[i].says))
			fail_msg("case %zu: '%s' does not name %s", i, err.msg, cases[i].says);
		assert_true(err.hint[0] != '\0');
		assert_null(rules.rules);
		sbx_seccomp_conf_clear(&conf);
	}
	/* clone3 with namespaces allowed is coherent */
	{
		struct sbx_seccomp_conf conf = {.nesting = true};
		struct sbx_seccomp_rules rules;

		assert_int_equal(sbx_seccomp_conf_allow(&conf, "@clone3", NULL), 0);
		assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
		assert_null(find_rule(&rules, "clone3"));
		sbx_seccomp_rules_clear(&rules);
		sbx_seccomp_conf_clear(&conf);
	}
}

static void test_setters_validate(void **state)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_error err = {0};

	(void)state;
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "@nosuch", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "@nosuch"));
	assert_non_null(strstr(err.hint, "@debug"));
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "nosuchcall", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "nosuchcall"));
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "", &err), -EINVAL);
	assert_int_equal(sbx_seccomp_conf_allow(&conf, NULL, &err), -EINVAL);
	assert_int_equal(conf.n_allow + conf.n_deny, 0);

	assert_int_equal(sbx_seccomp_conf_set_errno(&conf, "EPERM", NULL), 0);
	assert_int_equal(conf.deny_errno, EPERM);
	assert_int_equal(sbx_seccomp_conf_set_errno(&conf, "4095", NULL), 0);
	assert_int_equal(conf.deny_errno, 4095);
	assert_int_equal(sbx_seccomp_conf_set_errno(&conf, "13", NULL), 0);
	assert_int_equal(conf.deny_errno, 13);
	for (const char *bad[] = {"0", "4096", "-1", "12x", "EWHAT", "", NULL}, **b = bad; *b; b++)
		if (sbx_seccomp_conf_set_errno(&conf, *b, &err) != -EINVAL)
			fail_msg("errno '%s' accepted", *b);
	assert_int_equal(conf.deny_errno, 13);

	/* the cap on entries */
	for (size_t i = 0; i < SBX_SECCOMP_MAX_NAMES; i++)
		assert_int_equal(
		    sbx_seccomp_conf_deny(
		        &conf, sbx_seccomp_known_calls[i % sbx_seccomp_n_known_calls], NULL),
		    0);
	assert_int_equal(conf.n_deny, sbx_seccomp_n_known_calls < SBX_SECCOMP_MAX_NAMES
	                                  ? sbx_seccomp_n_known_calls
	                                  : SBX_SECCOMP_MAX_NAMES);
	sbx_seccomp_conf_clear(&conf);
	assert_null(conf.deny);
}

static void test_conf_copy_and_plan(void **state)
{
	struct sbx_spec *spec = sbx_spec_new();
	struct sbx_host host = {.uid = 1000, .gid = 1000, .euid = 1000, .cwd = (char *)"/w"};
	struct sbx_plan *plan = NULL;
	struct sbx_error err = {0};

	(void)state;
	assert_non_null(spec);
	assert_int_equal(sbx_spec_set_str(&spec->workspace, "/w", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_allow(&spec->seccomp, "@debug", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_deny(&spec->seccomp, "getppid", NULL), 0);
	spec->seccomp.log = true;
	spec->seccomp.deny_errno = EACCES;
	assert_int_equal(sbx_spec_finish(spec, NULL), 0);
	assert_int_equal(sbx_plan_build(spec, &host, &plan, &err), 0);
	assert_int_equal(plan->seccomp.n_allow, 1);
	assert_string_equal(plan->seccomp.allow[0], "@debug");
	assert_ptr_not_equal(plan->seccomp.allow[0], spec->seccomp.allow[0]);
	assert_string_equal(plan->seccomp.deny[0], "getppid");
	assert_true(plan->seccomp.log);
	assert_int_equal(plan->seccomp.deny_errno, EACCES);
	sbx_plan_free(plan);
	plan = NULL;

	/* an incoherent configuration stops the plan: clone3 allowed while namespaces are
	 * denied (a profile with `nesting: false`) */
	spec->nesting = false;
	assert_int_equal(sbx_seccomp_conf_allow(&spec->seccomp, "clone3", NULL), 0);
	assert_true(sbx_plan_build(spec, &host, &plan, &err) < 0);
	assert_null(plan);
	assert_non_null(strstr(err.msg, "clone3"));
	sbx_spec_free(spec);
}

/* ---- the compiled program, interpreted ---- */

static uint32_t bpf_run(const struct sbx_seccomp_prog *p, const struct seccomp_data *d)
{
	uint32_t a = 0;
	size_t pc = 0;

	while (pc < p->len) {
		const struct sock_filter *in = &p->insns[pc];
		uint32_t k = in->k;

		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(k + 4 <= sizeof(*d) && k % 4 == 0);
			memcpy(&a, (const char *)d + k, 4);
			pc++;
			break;
		case BPF_JMP | BPF_JA:
			pc += 1 + k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += 1 + (a == k ? in->jt : in->jf);
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += 1 + (a > k ? in->jt : in->jf);
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += 1 + (a >= k ? in->jt : in->jf);
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += 1 + ((a & k) ? in->jt : in->jf);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= k;
			pc++;
			break;
		case BPF_RET | BPF_K:
			return k;
		case BPF_LD | BPF_IMM:
			a = k;
			pc++;
			break;
		default:
			fail_msg("instruction %zu: opcode 0x%x not interpreted", pc, in->code);
		}
	}
	fail_msg("fell off the end of the program");
	return 0;
}

static uint32_t verdict(const struct sbx_seccomp_prog *p, uint32_t arch, uint32_t nr, uint64_t a0,
                        uint64_t a1)
{
	struct seccomp_data d = {.nr = (int)nr, .arch = arch, .args = {a0, a1}};

	return bpf_run(p, &d);
}

/* x86_64, up to four arguments, the call by name. */
static uint32_t verdict4(const struct sbx_seccomp_prog *p, const char *call, uint64_t a0,
                         uint64_t a1, uint64_t a2, uint64_t a3)
{
	int nr = sbx_seccomp_call_number(call);
	struct seccomp_data d = {.nr = nr, .arch = AUDIT_ARCH_X86_64, .args = {a0, a1, a2, a3}};

	if (nr < 0)
		fail_msg("no number for %s", call);
	return bpf_run(p, &d);
}

#define ALLOW  SECCOMP_RET_ALLOW
#define KILL   SECCOMP_RET_KILL_PROCESS
#define ERR(e) (SECCOMP_RET_ERRNO | (e))
#define X86_64 AUDIT_ARCH_X86_64

static void test_program_verdicts(void **state)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_prog p = {0};
	struct sbx_error err = {0};
	int nr_personality, nr_ioctl, nr_clone, nr_socket;

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	nr_personality = sbx_seccomp_call_number("personality");
	nr_ioctl = sbx_seccomp_call_number("ioctl");
	nr_clone = sbx_seccomp_call_number("clone");
	nr_socket = sbx_seccomp_call_number("socket");
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	assert_true(p.len > 10 && p.len < BPF_MAXINSNS);

	assert_int_equal(verdict(&p, X86_64, 39 /* getpid */, 0, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, 175 /* init_module */, 0, 0), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, 435 /* clone3 */, 0, 0), ERR(ENOSYS));
	assert_int_equal(verdict(&p, X86_64, 467 /* open_tree_attr */, 0, 0), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, 469, 0, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, 470, 0, 0), ERR(ENOSYS));
	assert_int_equal(verdict(&p, X86_64, 0x3fffffff, 0, 0), ERR(ENOSYS));
	assert_int_equal(verdict(&p, X86_64, 0xffffffff /* -1 */, 0, 0), ERR(ENOSYS));
	/* x32 and i386 */
	assert_int_equal(verdict(&p, X86_64, 0x40000000 | 39, 0, 0), KILL);
	assert_int_equal(verdict(&p, X86_64, 0x7fffffff, 0, 0), KILL);
	assert_int_equal(verdict(&p, AUDIT_ARCH_I386, 20, 0, 0), KILL);
	assert_int_equal(verdict(&p, AUDIT_ARCH_I386, 1000, 0, 0), KILL);
	/* personality: low 32 bits in {0, 8, 0xffffffff} */
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 8, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0xffffffffu, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 1ull << 32, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0x0040000, 0), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0x0400008, 0), ERR(EPERM));
	/* ioctl: the low 32 bits of the command */
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, TIOCSTI), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, TIOCSTI | 1ull << 32),
	                 ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, TIOCLINUX), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, TIOCSETD), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, TIOCSETD | 1ull << 32),
	                 ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, TIOCGETD), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_ioctl, 0, FIONREAD), ALLOW);
	/* clone: namespace flags only */
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_clone, 0x11 /* SIGCHLD */, 0), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_clone, CLONE_NEWUSER | 0x11, 0),
	                 ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_clone, CLONE_NEWNET, 0), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_VSOCK, 1), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX, 1), ALLOW);
	sbx_seccomp_prog_clear(&p);

	/* log mode: denials become LOG, the foreign-arch kill stays */
	conf.log = true;
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	assert_int_equal(verdict(&p, X86_64, 175, 0, 0), SECCOMP_RET_LOG);
	assert_int_equal(verdict(&p, X86_64, 470, 0, 0), SECCOMP_RET_LOG);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0x0040000, 0),
	                 SECCOMP_RET_LOG);
	assert_int_equal(verdict(&p, X86_64, 0x40000000 | 39, 0, 0), KILL);
	assert_int_equal(verdict(&p, AUDIT_ARCH_I386, 20, 0, 0), KILL);
	sbx_seccomp_prog_clear(&p);

	/* @personality allowed: no argument check left */
	conf.log = false;
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "@personality", NULL), 0);
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0x0040000, 0), ALLOW);
	sbx_seccomp_prog_clear(&p);
	sbx_seccomp_conf_clear(&conf);
}

/* The landlock backend's allowlist: TCP sockets of AF_INET and AF_INET6 only; MPTCP, UDP,
 * raw, packet, unix, TCP Fast Open and listen denied; connect left to the supervisor;
 * --net none's table wins where both are set. */
static void test_tcp_only(void **state)
{
	struct sbx_seccomp_conf conf = {.tcp_only = true, .no_unix_sockets = true}, copy;
	struct sbx_seccomp_prog p = {0};
	struct sbx_seccomp_rules rules;
	struct sbx_error err = {0};
	const uint64_t stream_nb = SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC;

	(void)state;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_string_equal(find_rule(&rules, "listen")->group, sbx_seccomp_tcp_only_group);
	assert_null(find_rule(&rules, "connect"));
	sbx_seccomp_rules_clear(&rules);
	assert_int_equal(sbx_seccomp_conf_copy(&copy, &conf, NULL), 0);
	assert_true(copy.tcp_only);
	sbx_seccomp_conf_clear(&copy);
#if defined(__x86_64__)
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	/* TCP, however spelled */
	assert_int_equal(verdict4(&p, "socket", AF_INET, SOCK_STREAM, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "socket", AF_INET6, SOCK_STREAM, IPPROTO_TCP, 0), ALLOW);
	assert_int_equal(verdict4(&p, "socket", AF_INET, stream_nb, IPPROTO_TCP, 0), ALLOW);
	assert_int_equal(verdict4(&p, "socket", AF_INET | 1ull << 32, SOCK_STREAM, 0, 0), ALLOW);
	/* nothing else */
	assert_int_equal(verdict4(&p, "socket", AF_INET, SOCK_STREAM, 262 /* MPTCP */, 0),
	                 ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_INET6, SOCK_STREAM, 132 /* SCTP */, 0),
	                 ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_INET, SOCK_DGRAM, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_INET, SOCK_RAW, 1, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_INET, SOCK_SEQPACKET, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_PACKET, SOCK_RAW, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_UNIX, SOCK_STREAM, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_NETLINK, SOCK_RAW, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_STREAM, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "socketpair", AF_INET, SOCK_STREAM, 0, 0), ERR(EPERM));
	/* TCP Fast Open connects without connect(2) */
	assert_int_equal(verdict4(&p, "sendto", 3, 0, 1, MSG_FASTOPEN), ERR(EPERM));
	assert_int_equal(verdict4(&p, "sendto", 3, 0, 1, MSG_NOSIGNAL), ALLOW);
	assert_int_equal(verdict4(&p, "sendmsg", 3, 0, MSG_FASTOPEN | MSG_DONTWAIT, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "sendmsg", 3, 0, MSG_DONTWAIT, 0), ALLOW);
	assert_int_equal(verdict4(&p, "sendmmsg", 3, 0, 1, MSG_FASTOPEN), ERR(EPERM));
	assert_int_equal(verdict4(&p, "listen", 3, 1, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "setsockopt", 3, IPPROTO_TCP, 30 /* FASTOPEN_CONNECT */, 0),
	                 ERR(EOPNOTSUPP));
	assert_int_equal(verdict4(&p, "setsockopt", 3, IPPROTO_TCP, 1 /* TCP_NODELAY */, 0), ALLOW);
	assert_int_equal(verdict4(&p, "setsockopt", 3, SOL_SOCKET, 30, 0), ALLOW);
	/* the supervisor's listener filter sends connect; this filter lets it through */
	assert_int_equal(verdict4(&p, "connect", 3, 0, 16, 0), ALLOW);
	sbx_seccomp_prog_clear(&p);
#endif
	/* --net none wins */
	conf.no_network = true;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_string_equal(find_rule(&rules, "connect")->group, sbx_seccomp_no_network_group);
	assert_null(find_rule(&rules, "listen"));
	sbx_seccomp_rules_clear(&rules);
}

/* The landlock backend's --net none and carving: every socket but AF_UNIX, connect, and hard
 * links denied; nothing of it without the flags; copied with the configuration. */
static void test_no_network_no_hardlinks(void **state)
{
	struct sbx_seccomp_conf conf = {.no_network = true, .no_hardlinks = true}, copy;
	struct sbx_seccomp_prog p = {0};
	struct sbx_seccomp_rules rules;
	struct sbx_error err = {0};
	int nr_socket = sbx_seccomp_call_number("socket");
	int nr_connect = sbx_seccomp_call_number("connect");
	int nr_linkat = sbx_seccomp_call_number("linkat");

	(void)state;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_string_equal(find_rule(&rules, "connect")->group, sbx_seccomp_no_network_group);
	assert_string_equal(find_rule(&rules, "link")->group, sbx_seccomp_no_hardlinks_group);
	assert_non_null(find_rule(&rules, "linkat"));
	sbx_seccomp_rules_clear(&rules);
	assert_int_equal(sbx_seccomp_conf_copy(&copy, &conf, NULL), 0);
	assert_true(copy.no_network && copy.no_hardlinks);
	sbx_seccomp_conf_clear(&copy);
#if defined(__x86_64__)
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX, 1), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_INET, 2), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_INET6, 2), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_PACKET, 3), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX | 1ull << 32, 1), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_VSOCK, 1), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_connect, 3, 0), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_linkat, 3, 0), ERR(EPERM));
	sbx_seccomp_prog_clear(&p);
#endif
	/* without the flags: none of it */
	conf.no_network = conf.no_hardlinks = false;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_null(find_rule(&rules, "connect"));
	assert_null(find_rule(&rules, "linkat"));
	sbx_seccomp_rules_clear(&rules);
}

/* The landlock backend, any network: socket(AF_UNIX) denied (a unix socket bound to a path
 * is beyond Landlock), socketpair and other families untouched; with --net none as well,
 * every socket is denied; copied with the configuration. */
static void test_no_unix_sockets(void **state)
{
	struct sbx_seccomp_conf conf = {.no_unix_sockets = true}, copy;
	struct sbx_seccomp_prog p = {0};
	struct sbx_seccomp_rules rules;
	struct sbx_error err = {0};
	int nr_socket = sbx_seccomp_call_number("socket");
	int nr_socketpair = sbx_seccomp_call_number("socketpair");
	const struct sbx_seccomp_rule *rule;

	(void)state;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	rule = find_rule(&rules, "socket");
	assert_non_null(rule);
	sbx_seccomp_rules_clear(&rules);
	assert_int_equal(sbx_seccomp_conf_copy(&copy, &conf, NULL), 0);
	assert_true(copy.no_unix_sockets);
	sbx_seccomp_conf_clear(&copy);
#if defined(__x86_64__)
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX, 1), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX | 1ull << 32, 1),
	                 ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_INET, 1), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socketpair, AF_UNIX, 1), ALLOW);
	sbx_seccomp_prog_clear(&p);
	conf.no_network = true;
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX, 1), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_INET, 1), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socketpair, AF_UNIX, 1), ALLOW);
	sbx_seccomp_prog_clear(&p);
#endif
	/* not without the flag */
	conf.no_unix_sockets = conf.no_network = false;
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	for (size_t i = 0; i < rules.n_rules; i++)
		if (strcmp(rules.rules[i].call, "socket") == 0)
			assert_true(strcmp(rules.rules[i].group, sbx_seccomp_no_unix_group) != 0);
	sbx_seccomp_rules_clear(&rules);
}

/* Set-uid and set-gid bits never reach a mode, whatever else the configuration says: every
 * call that takes a mode, each with its argument position, and what stays allowed. */
static void check_suid_verdicts(const struct sbx_seccomp_prog *p, uint32_t deny)
{
	const uint64_t HI = 1ull << 32, TMPFILE = 020000000 | O_DIRECTORY;
	static const struct {
		const char *call;
		unsigned mode_arg;
	} modes[] = {
	    {"chmod", 1}, {"fchmod", 1},  {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1},
	    {"mkdir", 1}, {"mkdirat", 2}, {"mknod", 1},    {"mknodat", 2},
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		uint64_t a[4] = {AT_FDCWD, 0, 0, 0};
		const char *c = modes[i].call;
		unsigned m = modes[i].mode_arg;
		uint64_t base = strncmp(c, "mknod", 5) == 0 ? S_IFREG : 0;

		a[m] = base | 0755;
		if (verdict4(p, c, a[0], a[1], a[2], a[3]) != ALLOW)
			fail_msg("%s 0755 is not allowed", c);
		a[m] = base | 01775; /* the sticky bit is no privilege */
		if (verdict4(p, c, a[0], a[1], a[2], a[3]) != ALLOW)
			fail_msg("%s 01775 is not allowed", c);
		/* write for others: only chmod's mode is final (a creation's is masked by the
		 * umask), so only the chmod family denies it */
		a[m] = base | 0777;
		if (verdict4(p, c, a[0], a[1], a[2], a[3]) != (strstr(c, "chmod") ? deny : ALLOW))
			fail_msg("%s 0777: write for others %s", c,
			         strstr(c, "chmod") ? "not denied" : "denied at creation");
		a[m] = HI | base | 0755;
		if (verdict4(p, c, a[0], a[1], a[2], a[3]) != ALLOW)
			fail_msg("%s 0755 with a high bit is not allowed", c);
		for (uint64_t bit = S_ISGID; bit <= S_ISUID; bit <<= 1) {
			a[m] = base | bit | 0755;
			if (verdict4(p, c, a[0], a[1], a[2], a[3]) != deny)
				fail_msg("%s %llo is not denied", c, (unsigned long long)a[m]);
			a[m] = HI | base | bit | 0755;
			if (verdict4(p, c, a[0], a[1], a[2], a[3]) != deny)
				fail_msg("%s %llo (high bit) is not denied", c,
				         (unsigned long long)a[m]);
		}
	}
	/* open(path, flags, mode) and openat(dirfd, path, flags, mode): a mode counts only
	 * when the call creates (O_CREAT, or O_TMPFILE, which lacks O_CREAT) */
	for (int at = 0; at < 2; at++) {
		const char *c = at ? "openat" : "open";
		uint64_t a[4] = {AT_FDCWD, 0, 0, 0};
		unsigned fl = at ? 2 : 1, mo = at ? 3 : 2;
		const uint64_t creating[] = {O_CREAT | O_WRONLY, O_CREAT | O_EXCL | O_RDWR,
		                             TMPFILE | O_RDWR, HI | O_CREAT};

		a[fl] = O_RDONLY;
		a[mo] = 04755; /* ignored by the kernel without O_CREAT */
		assert_int_equal(verdict4(p, c, a[0], a[1], a[2], a[3]), ALLOW);
		a[fl] = O_WRONLY | O_TRUNC;
		assert_int_equal(verdict4(p, c, a[0], a[1], a[2], a[3]), ALLOW);
		for (size_t k = 0; k < sizeof(creating) / sizeof(creating[0]); k++) {
			a[fl] = creating[k];
			a[mo] = 0644;
			assert_int_equal(verdict4(p, c, a[0], a[1], a[2], a[3]), ALLOW);
			a[mo] = 04755;
			assert_int_equal(verdict4(p, c, a[0], a[1], a[2], a[3]), deny);
			a[mo] = 02755 | HI;
			assert_int_equal(verdict4(p, c, a[0], a[1], a[2], a[3]), deny);
		}
	}
	/* openat2's mode is behind a pointer: ENOSYS, always */
	assert_int_equal(verdict4(p, "openat2", AT_FDCWD, 0, 0, 24), ERR(ENOSYS));
	/* extended attributes: written never (EOPNOTSUPP, whatever errno is configured, so
	 * that cp -a and tar go on), removed and read still */
	assert_int_equal(verdict4(p, "setxattr", 0, 0, 0, 0), ERR(EOPNOTSUPP));
	assert_int_equal(verdict4(p, "lsetxattr", 0, 0, 0, 0), ERR(EOPNOTSUPP));
	assert_int_equal(verdict4(p, "fsetxattr", 3, 0, 0, 0), ERR(EOPNOTSUPP));
	assert_int_equal(verdict4(p, "setxattrat", AT_FDCWD, 0, 0, 0), ERR(EOPNOTSUPP));
	assert_int_equal(verdict4(p, "removexattr", 0, 0, 0, 0), ALLOW);
	assert_int_equal(verdict4(p, "fremovexattr", 3, 0, 0, 0), ALLOW);
	assert_int_equal(verdict4(p, "getxattr", 0, 0, 0, 0), ALLOW);
}

static void test_suid_and_xattr_verdicts(void **state)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_prog p = {0};
	struct sbx_error err = {0};

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	check_suid_verdicts(&p, ERR(EPERM));
	sbx_seccomp_prog_clear(&p);
	/* nesting, the landlock backend's flags, another errno: the same, with that errno */
	conf.nesting = conf.same_ns = conf.no_unix_sockets = conf.no_network = true;
	assert_int_equal(sbx_seccomp_conf_set_errno(&conf, "EACCES", NULL), 0);
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	check_suid_verdicts(&p, ERR(EACCES));
	sbx_seccomp_prog_clear(&p);
	/* log mode lifts every other denial, never these */
	conf.log = true;
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	check_suid_verdicts(&p, ERR(EACCES));
	assert_int_equal(verdict4(&p, "init_module", 0, 0, 0, 0), SECCOMP_RET_LOG);
	sbx_seccomp_prog_clear(&p);
	/* denying chmod outright keeps it denied in log mode too (its rule is locked) */
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "chmod", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "@suid", NULL), 0);
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	assert_int_equal(verdict4(&p, "chmod", 0, 0644, 0, 0), ERR(EACCES));
	assert_int_equal(verdict4(&p, "fchmod", 3, 04755, 0, 0), ERR(EACCES));
	assert_int_equal(verdict4(&p, "fchmod", 3, 0644, 0, 0), ALLOW);
	sbx_seccomp_prog_clear(&p);
	sbx_seccomp_conf_clear(&conf);
}

/* No configuration opens a locked group: not the group, not one of its calls, not through a
 * profile's list (the same setter), not by building the configuration by hand. */
static void test_locked_groups_cannot_be_allowed(void **state)
{
	static const char *const names[] = {
	    "@io-uring", "io_uring_setup", "@suid",     "@setxattr", "chmod",
	    "fchmodat2", "openat",         "openat2",   "mknod",     "setxattr",
	    "fsetxattr", "setxattrat",     "lsetxattr", "creat"};
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_rules rules;
	size_t n_locked = 0;

	(void)state;
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++)
		n_locked += sbx_seccomp_groups[g].locked;
	assert_int_equal(n_locked, 3);
	assert_true(sbx_seccomp_group_find("@io-uring")->locked);
	assert_true(sbx_seccomp_group_find("@suid")->locked);
	assert_true(sbx_seccomp_group_find("@setxattr")->locked);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sbx_error err = {0};

		if (sbx_seccomp_conf_allow(&conf, names[i], &err) >= 0)
			fail_msg("allowing %s was accepted", names[i]);
		assert_int_equal(err.kind, SBX_ERR_USAGE);
		assert_non_null(strstr(err.msg, "locked"));
		assert_non_null(strstr(err.msg, names[i]));
		assert_true(err.hint[0] != '\0');
	}
	assert_int_equal(conf.n_allow, 0);
	/* a configuration made without the setter is refused when resolved */
	{
		char *allow[] = {(char *)"chmod"};
		struct sbx_seccomp_conf forged = {.allow = allow, .n_allow = 1};
		struct sbx_error err = {0};

		assert_true(sbx_seccomp_resolve(&forged, &rules, &err) < 0);
		assert_non_null(strstr(err.msg, "@suid"));
	}
	/* removexattr and plain open are no part of them */
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "removexattr", NULL), 0);
	assert_int_equal(sbx_seccomp_conf_deny(&conf, "@suid", NULL), 0); /* denying is fine */
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_int_equal(rules.group_state[group_index("@suid")], SBX_SECCOMP_GROUP_DENIED);
	assert_int_equal(count_rules(&rules, "open"), 4);
	assert_int_equal(count_rules(&rules, "openat"), 4);
	assert_true(find_rule(&rules, "open")->locked);
	assert_int_equal(find_rule(&rules, "open")->n_cmp, 2);
	assert_int_equal(find_rule(&rules, "chmod")->n_cmp, 1);
	assert_true(find_rule(&rules, "setxattr")->locked);
	assert_null(find_rule(&rules, "setxattr")->cmp);
	assert_false(find_rule(&rules, "bpf")->locked);
	sbx_seccomp_rules_clear(&rules);
	sbx_seccomp_conf_clear(&conf);
}

/* The landlock backend (same_ns): calls naming another process, and System V IPC unless
 * allowed; datagram socketpairs; none of it on the namespaces backend. */
static void test_same_ns_processes_and_ipc(void **state)
{
	struct sbx_seccomp_conf conf = {.same_ns = true, .no_unix_sockets = true};
	struct sbx_seccomp_prog p = {0};
	struct sbx_seccomp_rules rules;
	struct sbx_error err = {0};
	const uint64_t HI = 1ull << 32;
	static const char *const by_pid[] = {
	    "prlimit64",          "sched_setaffinity", "sched_setattr", "sched_setparam",
	    "sched_setscheduler", "migrate_pages",     "move_pages"};
	static const char *const ipc[] = {"shmget", "shmat",  "shmctl",    "msgget",
	                                  "msgsnd", "msgrcv", "msgctl",    "semget",
	                                  "semop",  "semctl", "semtimedop"};

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_int_equal(rules.group_state[group_index("@sysvipc")], SBX_SECCOMP_GROUP_DENIED);
	assert_string_equal(find_rule(&rules, "prlimit64")->group, sbx_seccomp_processes_group);
	sbx_seccomp_rules_clear(&rules);
	if (build_conf(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	for (size_t i = 0; i < sizeof(by_pid) / sizeof(by_pid[0]); i++) {
		assert_int_equal(verdict4(&p, by_pid[i], 0, 7, 0, 0), ALLOW);
		assert_int_equal(verdict4(&p, by_pid[i], HI, 7, 0, 0), ALLOW); /* pid_t is int */
		assert_int_equal(verdict4(&p, by_pid[i], 1, 7, 0, 0), ERR(EPERM));
		assert_int_equal(verdict4(&p, by_pid[i], 4242, 7, 0, 0), ERR(EPERM));
		assert_int_equal(verdict4(&p, by_pid[i], (uint32_t)-1, 7, 0, 0), ERR(EPERM));
	}
	assert_int_equal(verdict4(&p, "setpriority", PRIO_PROCESS, 0, 19, 0), ALLOW);
	assert_int_equal(verdict4(&p, "setpriority", PRIO_PGRP, 0, 19, 0), ALLOW);
	assert_int_equal(verdict4(&p, "setpriority", PRIO_PROCESS, 1, 19, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "setpriority", PRIO_PGRP, 77, 19, 0), ERR(EPERM));
	/* PRIO_USER with who 0 is every process of the caller's uid */
	assert_int_equal(verdict4(&p, "setpriority", PRIO_USER, 0, 19, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "setpriority", PRIO_USER | HI, 0, 19, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "getpriority", PRIO_USER, 0, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "ioprio_set", 1 /* PROCESS */, 0, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "ioprio_set", 1, 55, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "ioprio_set", 3 /* USER */, 0, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "sched_getaffinity", 1, 0, 0, 0), ALLOW);
	for (size_t i = 0; i < sizeof(ipc) / sizeof(ipc[0]); i++)
		if (verdict4(&p, ipc[i], 0, 0, 0, 0) != ERR(EPERM))
			fail_msg("%s is not denied", ipc[i]);
	assert_int_equal(verdict4(&p, "shmdt", 0, 0, 0, 0), ALLOW);
	/* socketpair: datagram pairs (SOCK_RAW is one for AF_UNIX) whatever the flags */
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_DGRAM, 0, 0), ERR(EPERM));
	assert_int_equal(
	    verdict4(&p, "socketpair", AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, 0),
	    ERR(EPERM));
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_DGRAM | HI, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_RAW, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0),
	                 ALLOW);
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_SEQPACKET, 0, 0), ALLOW);
	/* without --net none, other families' pairs are the kernel's business */
	assert_int_equal(verdict4(&p, "socketpair", AF_INET, SOCK_STREAM, 0, 0), ALLOW);
	sbx_seccomp_prog_clear(&p);

	/* --net none as well: pairs of AF_UNIX only */
	conf.no_network = true;
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	assert_int_equal(verdict4(&p, "socketpair", AF_INET, SOCK_STREAM, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socketpair", 30 /* AF_TIPC */, 4, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_STREAM, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_DGRAM, 0, 0), ERR(EPERM));
	/* both NOT_IN32 blocks and libseccomp's rules still apply to the other calls */
	assert_int_equal(verdict4(&p, "prlimit64", 9, 7, 0, 0), ERR(EPERM));
	assert_int_equal(verdict4(&p, "socket", AF_INET, 1, 0, 0), ERR(EPERM));
	sbx_seccomp_prog_clear(&p);

	/* the profile asks for System V IPC: allowed, the rest stays */
	assert_int_equal(sbx_seccomp_conf_allow(&conf, "@sysvipc", NULL), 0);
	assert_int_equal(sbx_seccomp_resolve(&conf, &rules, NULL), 0);
	assert_int_equal(rules.group_state[group_index("@sysvipc")], SBX_SECCOMP_GROUP_ALLOWED);
	sbx_seccomp_rules_clear(&rules);
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	assert_int_equal(verdict4(&p, "shmget", 0, 4096, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "prlimit64", 9, 7, 0, 0), ERR(EPERM));
	sbx_seccomp_prog_clear(&p);
	sbx_seccomp_conf_clear(&conf);

	/* the namespaces backend: none of it */
	conf = (struct sbx_seccomp_conf){0};
	assert_int_equal(build_conf(&conf, &p, NULL), 0);
	assert_int_equal(verdict4(&p, "prlimit64", 1, 7, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "setpriority", PRIO_USER, 0, 19, 0), ALLOW);
	assert_int_equal(verdict4(&p, "shmget", 0, 4096, 0, 0), ALLOW);
	assert_int_equal(verdict4(&p, "socketpair", AF_UNIX, SOCK_DGRAM, 0, 0), ALLOW);
	sbx_seccomp_prog_clear(&p);
	assert_int_equal(
	    sbx_seccomp_conf_copy(&conf, &(struct sbx_seccomp_conf){.same_ns = true}, NULL), 0);
	assert_true(conf.same_ns);
	sbx_seccomp_conf_clear(&conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_known_calls_sorted_unique),
	    cmocka_unit_test(test_known_calls_match_libseccomp),
	    cmocka_unit_test(test_groups_well_formed),
	    cmocka_unit_test(test_no_duplicates),
	    cmocka_unit_test(test_spec_names_are_denied),
	    cmocka_unit_test(test_resolve_default),
	    cmocka_unit_test(test_resolve_nesting),
	    cmocka_unit_test(test_resolve_allow_deny),
	    cmocka_unit_test(test_resolve_refusals),
	    cmocka_unit_test(test_setters_validate),
	    cmocka_unit_test(test_conf_copy_and_plan),
	    cmocka_unit_test(test_program_verdicts),
	    cmocka_unit_test(test_no_network_no_hardlinks),
	    cmocka_unit_test(test_tcp_only),
	    cmocka_unit_test(test_no_unix_sockets),
	    cmocka_unit_test(test_suid_and_xattr_verdicts),
	    cmocka_unit_test(test_locked_groups_cannot_be_allowed),
	    cmocka_unit_test(test_same_ns_processes_and_ipc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
