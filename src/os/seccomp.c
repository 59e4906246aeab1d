/* SPDX-License-Identifier: MIT */
#include "os/seccomp.h"

#include "sbx/seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx/cleanup.h"

/*
 * How the filter is made.
 *
 * libseccomp builds the rules: default ALLOW, one rule per resolved entry, the native
 * architecture only (so every other architecture the kernel runs, i386 on x86_64, takes the
 * bad-architecture action: kill), and a binary tree of syscall numbers (CTL_OPTIMIZE 2).
 *
 * libseccomp 2.5 cannot say two things we need, so sbx exports its program and puts a short
 * hand-written prologue in front of it (classic BPF jumps are relative, so the exported code
 * is unchanged by what comes before it):
 *
 *  - "every call numbered above the last one sbx has classified answers ENOSYS". A default
 *    action of ENOSYS plus an allowlist of some 350 calls would say it too, but would make the
 *    filter's correctness depend on a list nobody can review at a glance, and every program
 *    that uses a call the list forgot would break with a misleading ENOSYS. A deny list with a
 *    ceiling keeps the list short and still leaves a call added by a later kernel unreachable
 *    until someone has classified it (runc's patchbpf does the same for the same reason).
 *  - "personality's argument is one of three values", "prlimit64's pid is not 0": libseccomp
 *    refuses two comparisons of one argument in one rule, and an ALLOW rule under a default
 *    of ALLOW. Each such NOT_IN32 comparison stands alone in its entry; comparisons ANDed in
 *    one entry ("O_CREAT and S_ISUID") are libseccomp's, which ANDs a rule's comparisons.
 *
 * The prologue also kills x32 calls explicitly (the x86_64 audit arch with __X32_SYSCALL_BIT
 * set in the number) rather than relying on libseccomp's handling of them.
 *
 * The prologue uses only loads of nr/arch, jumps against constants and returns, so the
 * kernel's per-syscall action cache (Linux 5.11+) still proves every call without a rule
 * "always allowed" and skips the filter for it. Only calls with a rule run the program.
 *
 * The program is installed with seccomp(2) directly, not seccomp_load(), because it is no
 * longer libseccomp's program.
 */

#if defined(__x86_64__)
#define SBX_AUDIT_ARCH AUDIT_ARCH_X86_64
#define SBX_X32_BIT    0x40000000u
#elif defined(__aarch64__)
#define SBX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
/* Elsewhere sbx refuses to build a filter rather than guess at the ABI (fail closed). */
#define SBX_AUDIT_ARCH       0
#define SBX_ARCH_UNSUPPORTED 1
#endif

/* The last call classified in sbx_seccomp_known_calls: file_setattr (469) on x86_64 and on
 * every architecture that uses the unified numbers from 424 on. Raise it only together with
 * that list. */
#define SBX_KNOWN_MAX 469

/* Calls sbx has classified that this libseccomp may not know by name: their numbers, the
 * same on every architecture since Linux 5.1 unified new numbers. */
static const struct {
	const char *name;
	int nr;
} newer_calls[] = {
    {"cachestat", 451},         {"fchmodat2", 452},        {"map_shadow_stack", 453},
    {"futex_wake", 454},        {"futex_wait", 455},       {"futex_requeue", 456},
    {"statmount", 457},         {"listmount", 458},        {"lsm_get_self_attr", 459},
    {"lsm_set_self_attr", 460}, {"lsm_list_modules", 461}, {"mseal", 462},
    {"setxattrat", 463},        {"getxattrat", 464},       {"listxattrat", 465},
    {"removexattrat", 466},     {"open_tree_attr", 467},   {"file_getattr", 468},
    {"file_setattr", 469},
};

long sbx_seccomp_known_max(void)
{
	return SBX_KNOWN_MAX;
}

void sbx_seccomp_prog_clear(struct sbx_seccomp_prog *prog)
{
	if (!prog)
		return;
	free(prog->insns);
	prog->insns = NULL;
	prog->len = 0;
}

static void ctx_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

/* The native number of a call: >= 0; -1 if it does not exist on this architecture (nothing to
 * deny); -2 if neither libseccomp nor sbx can number it (fail closed). */
int sbx_seccomp_call_number(const char *call)
{
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_NATIVE, call);

	if (nr >= 0)
		return nr;
	if (nr != __NR_SCMP_ERROR)
		return -1; /* a pseudo number: libseccomp knows the call, but not here */
	for (size_t i = 0; i < SBX_ARRAY_SIZE(newer_calls); i++)
		if (strcmp(newer_calls[i].name, call) == 0)
			return newer_calls[i].nr;
	return -2;
}

static uint32_t deny_action(const struct sbx_seccomp_rules *rules, int errnum)
{
	if (rules->log)
		return SCMP_ACT_LOG;
	return SCMP_ACT_ERRNO((uint16_t)errnum);
}

/* A rule's action: a locked rule (set-uid files, file capabilities) is enforced even in log
 * mode, which exists to find what a program needs, never to let such a file out. */
static uint32_t rule_action(const struct sbx_seccomp_rules *rules, const struct sbx_seccomp_rule *r)
{
	if (r->locked)
		return SCMP_ACT_ERRNO((uint16_t)r->errnum);
	return deny_action(rules, r->errnum);
}

/* ---- the prologue: a tiny assembler with forward labels ---- */

enum { L_NONE = -1, L_END = 0, L_ENOSYS, L_KILL, L_N_FIXED };
#define PRO_MAX 160

struct pro {
	struct sock_filter insn[PRO_MAX];
	int jt[PRO_MAX], jf[PRO_MAX]; /* label ids, or L_NONE: fall through */
	size_t n;
	int label_at[PRO_MAX]; /* instruction index of each label, -1 until placed */
	int n_labels;
};

static int pro_label(struct pro *p)
{
	p->label_at[p->n_labels] = -1;
	return p->n_labels++;
}

static void pro_place(struct pro *p, int label)
{
	p->label_at[label] = (int)p->n;
}

static void pro_emit(struct pro *p, uint16_t code, uint32_t k, int jt, int jf)
{
	if (p->n >= PRO_MAX)
		return; /* caught by pro_finish */
	p->insn[p->n] = (struct sock_filter)BPF_STMT(code, k);
	p->jt[p->n] = jt;
	p->jf[p->n] = jf;
	p->n++;
}

static int pro_finish(struct pro *p, struct sbx_error *err)
{
	if (p->n >= PRO_MAX)
		return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
		                     "seccomp: the filter prologue is too long (internal)");
	for (size_t i = 0; i < p->n; i++) {
		int labels[2] = {p->jt[i], p->jf[i]};
		uint8_t *fields[2] = {&p->insn[i].jt, &p->insn[i].jf};

		for (int j = 0; j < 2; j++) {
			int at;

			if (labels[j] == L_NONE)
				continue;
			at = p->label_at[labels[j]];
			if (at <= (int)i || at - (int)i - 1 > 255)
				return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
				                     "seccomp: bad jump in the filter prologue "
				                     "(internal)");
			if (p->insn[i].code == (BPF_JMP | BPF_JA))
				p->insn[i].k = (uint32_t)(at - (int)i - 1); /* JA jumps by k */
			else
				*fields[j] = (uint8_t)(at - (int)i - 1);
		}
	}
	return 0;
}

#define SECCOMP_NR   offsetof(struct seccomp_data, nr)
#define SECCOMP_ARCH offsetof(struct seccomp_data, arch)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SECCOMP_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define SECCOMP_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

static int build_prologue(const struct sbx_seccomp_rules *rules, struct pro *p,
                          struct sbx_error *err)
{
	const uint32_t enosys = deny_action(rules, ENOSYS);

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < L_N_FIXED; i++)
		pro_label(p);

	/* Another architecture: libseccomp's program kills it. */
	pro_emit(p, BPF_LD | BPF_W | BPF_ABS, SECCOMP_ARCH, L_NONE, L_NONE);
	pro_emit(p, BPF_JMP | BPF_JEQ | BPF_K, SBX_AUDIT_ARCH, L_NONE, L_END);
	pro_emit(p, BPF_LD | BPF_W | BPF_ABS, SECCOMP_NR, L_NONE, L_NONE);
	/* A negative number (-1 is what ptrace uses to skip a call): the kernel answers ENOSYS
	 * anyway; say so before the x32 test, which would otherwise catch it. */
	pro_emit(p, BPF_JMP | BPF_JGE | BPF_K, 0x80000000u, L_ENOSYS, L_NONE);
#ifdef SBX_X32_BIT
	/* x32: the x86_64 audit arch with __X32_SYSCALL_BIT in the number. A foreign ABI. */
	pro_emit(p, BPF_JMP | BPF_JGE | BPF_K, SBX_X32_BIT, L_KILL, L_NONE);
#endif
	pro_emit(p, BPF_JMP | BPF_JGT | BPF_K, SBX_KNOWN_MAX, L_ENOSYS, L_NONE);

	/* NOT_IN32 rules: the call passes on (to the next block, then libseccomp's program)
	 * only with an argument whose low 32 bits are in the set. A is reloaded with nr before
	 * each block, so that two blocks of one call (two tables) are both tested. */
	for (size_t i = 0; i < rules->n_rules; i++) {
		const struct sbx_seccomp_rule *r = &rules->rules[i];
		int nr, next;

		if (!r->cmp || r->cmp[0].op != SBX_SECCOMP_NOT_IN32)
			continue;
		if (r->n_cmp != 1)
			return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
			                     "seccomp: '%s': a NOT_IN32 comparison must stand "
			                     "alone (internal)",
			                     r->call);
		nr = sbx_seccomp_call_number(r->call);
		if (nr == -1)
			continue;
		if (nr < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOSYS,
			                     "seccomp: no system call number for '%s'", r->call);
		if (p->n_labels >= PRO_MAX)
			return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
			                     "seccomp: too many argument sets (internal)");
		next = pro_label(p);
		pro_emit(p, BPF_LD | BPF_W | BPF_ABS, SECCOMP_NR, L_NONE, L_NONE);
		pro_emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, L_NONE, next);
		pro_emit(p, BPF_LD | BPF_W | BPF_ABS, (uint32_t)SECCOMP_ARG_LO(r->cmp->arg), L_NONE,
		         L_NONE);
		for (unsigned k = 0; k < r->cmp->n_set; k++)
			pro_emit(p, BPF_JMP | BPF_JEQ | BPF_K, r->cmp->set[k], next, L_NONE);
		pro_emit(p, BPF_RET | BPF_K, rule_action(rules, r), L_NONE, L_NONE);
		pro_place(p, next);
	}
	/* Everything else goes on to libseccomp's program, which loads what it needs itself. */
	pro_emit(p, BPF_JMP | BPF_JA, 0, L_END, L_NONE);
	pro_place(p, L_ENOSYS);
	pro_emit(p, BPF_RET | BPF_K, enosys, L_NONE, L_NONE);
	pro_place(p, L_KILL);
	pro_emit(p, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, L_NONE, L_NONE);
	pro_place(p, L_END);
	return pro_finish(p, err);
}

static int add_rules(scmp_filter_ctx ctx, const struct sbx_seccomp_rules *rules,
                     struct sbx_error *err)
{
	for (size_t i = 0; i < rules->n_rules; i++) {
		const struct sbx_seccomp_rule *r = &rules->rules[i];
		struct scmp_arg_cmp cmps[SBX_SECCOMP_CMP_MAX];
		int nr = sbx_seccomp_call_number(r->call);
		int rc;

		if (nr == -1)
			continue; /* the call does not exist on this architecture */
		if (nr < 0) {
			int e =
			    sbx_error_set(err, SBX_ERR_SETUP, ENOSYS,
			                  "seccomp: cannot build the filter: neither libseccomp "
			                  "%u.%u.%u nor sbx knows the number of '%s' (%s)",
			                  seccomp_version()->major, seccomp_version()->minor,
			                  seccomp_version()->micro, r->call,
			                  r->group ? r->group : "denied by name");
			sbx_error_hint(err,
			               "rebuild sbx against a newer libseccomp, or allow "
			               "'%s' if the worker may use it",
			               r->call);
			return e;
		}
		if (r->cmp && r->cmp[0].op == SBX_SECCOMP_NOT_IN32)
			continue; /* in the prologue */
		/* libseccomp ANDs the comparisons of one rule (each on its own argument). */
		for (size_t c = 0; c < r->n_cmp; c++) {
			if (r->cmp[c].op != SBX_SECCOMP_MASKED_EQ)
				return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
				                     "seccomp: '%s': comparison %zu cannot be "
				                     "compiled (internal)",
				                     r->call, c);
			cmps[c] = SCMP_CMP(r->cmp[c].arg, SCMP_CMP_MASKED_EQ, r->cmp[c].mask,
			                   r->cmp[c].value);
		}
		rc = seccomp_rule_add_array(ctx, rule_action(rules, r), nr, (unsigned)r->n_cmp,
		                            r->n_cmp ? cmps : NULL);
		if (rc < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, -rc,
			                     "seccomp: cannot add the rule for '%s'%s%s (%s): %s",
			                     r->call, r->cmp ? " with " : "",
			                     r->cmp ? r->cmp->what : "",
			                     r->group ? r->group : "by name", strerror(-rc));
	}
	return 0;
}

/* libseccomp 2.5 exports to a file descriptor only: a memfd stands in for memory. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **out, size_t *len,
                      struct sbx_error *err)
{
	_cleanup_close_ int fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
	_cleanup_free_ struct sock_filter *buf = NULL;
	struct rlimit fsize;
	struct stat st;
	size_t got = 0;
	int rc;

	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "seccomp: memfd_create: %s",
		                     strerror(errno));
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -rc, "seccomp: exporting the filter: %s",
		                     strerror(-rc));
	if (fstat(fd, &st) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "seccomp: fstat: %s",
		                     strerror(errno));
	/* libseccomp 2.5 writes the program once and does not check for a short write: under
	 * a file size limit (ulimit -f) the memfd holds a truncated program, which must never
	 * pass for the filter. A write that the limit cut ends exactly at the limit. */
	if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
	    (unsigned long long)st.st_size >= (unsigned long long)fsize.rlim_cur) {
		rc = sbx_error_set(err, SBX_ERR_SETUP, EFBIG,
		                   "seccomp: the compiled filter does not fit under the file size "
		                   "limit of %llu bytes, which cut it short",
		                   (unsigned long long)fsize.rlim_cur);
		sbx_error_hint(err, "raise the file size limit (ulimit -f) so that sbx can "
		                    "build its filter");
		return rc;
	}
	if (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
	    st.st_size > (off_t)(BPF_MAXINSNS * sizeof(struct sock_filter)))
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "seccomp: libseccomp exported %lld bytes, not a program",
		                     (long long)st.st_size);
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, (char *)buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sbx_error_set(err, SBX_ERR_SETUP, n < 0 ? errno : EIO,
			                     "seccomp: reading the exported filter failed");
		got += (size_t)n;
	}
	*len = got / sizeof(struct sock_filter);
	*out = TAKE_PTR(buf);
	return 0;
}

int sbx_seccomp_build(const struct sbx_seccomp_rules *rules, struct sbx_seccomp_prog *out,
                      struct sbx_error *err)
{
	_cleanup_(ctx_releasep) scmp_filter_ctx ctx = NULL;
	_cleanup_free_ struct sock_filter *body = NULL;
	struct sock_filter *prog;
	struct pro pro;
	size_t n_body = 0;
	int r;

	memset(out, 0, sizeof(*out));
#ifdef SBX_ARCH_UNSUPPORTED
	return sbx_error_set(err, SBX_ERR_UNSUPPORTED, ENOTSUP,
	                     "seccomp: sbx's filter knows x86_64 and aarch64 only, not this "
	                     "architecture");
#endif
	/* Resolved by core (the plan's rules): an unresolved set would deny nothing. */
	if (!rules || !rules->group_state)
		return sbx_error_set(
		    err, SBX_ERR_SETUP, EINVAL,
		    "seccomp: no resolved rules to build a filter from (internal)");

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM,
		                     "seccomp: libseccomp cannot create a filter context");
	/* Foreign architectures (only the native one is in the context) are killed, even in
	 * log mode: no worker of this architecture makes them, and log mode would otherwise
	 * leave them wholly unfiltered. */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, -r, "seccomp: setting attributes: %s",
		                     strerror(-r));
	/* A binary tree of syscall numbers instead of a linear list. Only speed depends on it,
	 * so a libseccomp without it (before 2.5) still builds a correct, slower filter. */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);

	r = add_rules(ctx, rules, err);
	if (r < 0)
		return r;
	r = export_bpf(ctx, &body, &n_body, err);
	if (r < 0)
		return r;
	r = build_prologue(rules, &pro, err);
	if (r < 0)
		return r;
	if (pro.n + n_body > BPF_MAXINSNS)
		return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
		                     "seccomp: the filter has %zu instructions, more than the "
		                     "kernel's %d",
		                     pro.n + n_body, BPF_MAXINSNS);
	prog = calloc(pro.n + n_body, sizeof(*prog));
	if (!prog)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	memcpy(prog, pro.insn, pro.n * sizeof(*prog));
	memcpy(prog + pro.n, body, n_body * sizeof(*prog));
	out->insns = prog;
	out->len = pro.n + n_body;
	return 0;
}

int sbx_seccomp_install(const struct sbx_seccomp_prog *prog, struct sbx_error *err)
{
	struct sock_fprog fprog;
	long rc;
	int r;

	if (!prog || !prog->insns || prog->len == 0 || prog->len > BPF_MAXINSNS)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "seccomp: no compiled filter to install (internal)");
	/* The launcher sets no_new_privs before this step (STYLE.md's order). Check rather
	 * than set it: a missing step is a bug to report, not to paper over. */
	r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (r != 1) {
		r = sbx_error_set(err, SBX_ERR_SETUP, r < 0 ? errno : EPERM,
		                  "seccomp: no_new_privs is not set, so the filter is not "
		                  "installed");
		sbx_error_hint(err, "set PR_SET_NO_NEW_PRIVS before sbx_seccomp_install "
		                    "(internal ordering error)");
		return r;
	}
	fprog.len = (unsigned short)prog->len;
	fprog.filter = prog->insns;
	/* TSYNC: every thread gets the filter, or none does. */
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog);
	if (rc != 0) {
		int e = rc > 0 ? EBUSY : errno;

		r = sbx_error_set(err, SBX_ERR_SETUP, e, "seccomp: installing the filter: %s",
		                  rc > 0 ? "another thread could not be synchronised"
		                         : strerror(e));
		if (e == EINVAL || e == ENOSYS)
			sbx_error_hint(err,
			               "this kernel lacks seccomp filters "
			               "(CONFIG_SECCOMP_FILTER); sbx will not run without one");
		else if (e == ENOMEM)
			sbx_error_hint(err, "the filters stacked by parent sandboxes are too long "
			                    "together; nest less deeply");
		return r;
	}
	return 0;
}

int sbx_seccomp_load(const struct sbx_seccomp_rules *rules, struct sbx_error *err)
{
	struct sbx_seccomp_prog prog = {0};
	int r = sbx_seccomp_build(rules, &prog, err);

	if (r >= 0)
		r = sbx_seccomp_install(&prog, err);
	sbx_seccomp_prog_clear(&prog);
	return r;
}

int sbx_seccomp_export(const struct sbx_seccomp_rules *rules, int fd, struct sbx_error *err)
{
	struct sbx_seccomp_prog prog = {0};
	size_t len, done = 0;
	int r = sbx_seccomp_build(rules, &prog, err);

	if (r < 0)
		return r;
	len = prog.len * sizeof(*prog.insns);
	while (done < len) {
		ssize_t n = write(fd, (const char *)prog.insns + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "seccomp: writing the filter: %s", strerror(errno));
			break;
		}
		done += (size_t)n;
	}
	sbx_seccomp_prog_clear(&prog);
	return r < 0 ? r : 0;
}
