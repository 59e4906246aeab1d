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
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "sbx/plan.h"
#include "sbx/seccomp.h"
#include "sbx/spec.h"

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
			switch (en->cmp.op) {
			case SBX_SECCOMP_ALWAYS:
				break;
			case SBX_SECCOMP_MASKED_EQ:
				assert_true(en->cmp.arg < 6);
				assert_true(en->cmp.mask != 0);
				assert_int_equal(en->cmp.value & ~en->cmp.mask, 0);
				assert_non_null(en->cmp.what);
				break;
			case SBX_SECCOMP_NOT_IN32:
				assert_true(en->cmp.arg < 6);
				assert_true(en->cmp.n_set >= 1 &&
				            en->cmp.n_set <= SBX_SECCOMP_SET_MAX);
				assert_non_null(en->cmp.what);
				break;
			default:
				fail_msg("%s: %s has an unknown comparison", grp->name, en->call);
			}
		}
	}
	assert_null(sbx_seccomp_group_find("@nosuch"));
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
					if (a->cmp.op == SBX_SECCOMP_ALWAYS ||
					    b->cmp.op == SBX_SECCOMP_ALWAYS)
						fail_msg("%s: unconditional and repeated in %s",
						         a->call, sbx_seccomp_groups[g].name);
					if (a->cmp.op == b->cmp.op && a->cmp.arg == b->cmp.arg &&
					    a->cmp.mask == b->cmp.mask &&
					    a->cmp.value == b->cmp.value)
						fail_msg("%s: the same condition twice in %s",
						         a->call, sbx_seccomp_groups[g].name);
				}
		}
}

/* What SPEC section 8 names is in the default filter, with its action. */
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
	if (sbx_seccomp_build(&conf, &p, &err) < 0)
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
	assert_int_equal(sbx_seccomp_build(&conf, &p, NULL), 0);
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
	assert_int_equal(sbx_seccomp_build(&conf, &p, NULL), 0);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_personality, 0x0040000, 0), ALLOW);
	sbx_seccomp_prog_clear(&p);
	sbx_seccomp_conf_clear(&conf);
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
	if (sbx_seccomp_build(&conf, &p, &err) < 0)
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
	if (sbx_seccomp_build(&conf, &p, &err) < 0)
		fail_msg("build: %s", err.msg);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX, 1), ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_UNIX | 1ull << 32, 1),
	                 ERR(EPERM));
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socket, AF_INET, 1), ALLOW);
	assert_int_equal(verdict(&p, X86_64, (uint32_t)nr_socketpair, AF_UNIX, 1), ALLOW);
	sbx_seccomp_prog_clear(&p);
	conf.no_network = true;
	if (sbx_seccomp_build(&conf, &p, &err) < 0)
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
	    cmocka_unit_test(test_no_unix_sockets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
