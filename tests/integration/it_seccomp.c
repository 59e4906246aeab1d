/* SPDX-License-Identifier: MIT */
/*
 * Containment of kernel surfaces by the default seccomp filter (sbx-seccomp(7), issue 5).
 *
 * This binary runs itself: `--exec ...` loads the filter exactly as the launcher will
 * (sbx_keyring_new_session, sbx_seccomp_load after no_new_privs) and execs; `--probe` makes
 * each system call of the table in a child of its own and prints what it answered. The
 * table says what each call must answer: with a distinctive errno configured (1234), a
 * denial can only have come from the filter, never from the kernel.
 */
#include <linux/keyctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "os/keyring.h"
#include "sbx/seccomp.h"
#include "seccomp_helpers.h"
#include "harness.h"
#include "os/seccomp.h"

#define MARK    1234 /* --errno for the runs whose denials must be the filter's */
#define SIGSYS_ 31

enum expect {
	X_DENY,    /* the configured errno */
	X_ENOSYS,  /* ENOSYS, whatever errno is configured */
	X_ALLOWED, /* reaches the kernel: anything but the marker errno or a signal */
};

static const struct {
	const char *check;
	enum expect def;     /* the default filter */
	enum expect nesting; /* with nesting allowed */
} table[] = {
    {"getpid", X_ALLOWED, X_ALLOWED},
    {"getppid", X_ALLOWED, X_ALLOWED},
    /* @module, @reboot, @swap, @clock */
    {"init_module", X_DENY, X_DENY},
    {"finit_module", X_DENY, X_DENY},
    {"delete_module", X_DENY, X_DENY},
    {"reboot", X_DENY, X_DENY},
    {"kexec_load", X_DENY, X_DENY},
    {"kexec_file_load", X_DENY, X_DENY},
    {"swapon", X_DENY, X_DENY},
    {"swapoff", X_DENY, X_DENY},
    {"clock_settime", X_DENY, X_DENY},
    {"settimeofday", X_DENY, X_DENY},
    {"adjtimex", X_DENY, X_DENY},
    /* @keyring, @bpf, @perf, @debug, @userfaultfd */
    {"add_key", X_DENY, X_DENY},
    {"keyctl", X_DENY, X_DENY},
    {"request_key", X_DENY, X_DENY},
    {"bpf", X_DENY, X_DENY},
    {"perf_event_open", X_DENY, X_DENY},
    {"ptrace", X_DENY, X_DENY},
    {"process_vm_readv", X_DENY, X_DENY},
    {"process_vm_writev", X_DENY, X_DENY},
    {"kcmp", X_DENY, X_DENY},
    {"pidfd_getfd", X_DENY, X_DENY},
    {"userfaultfd", X_DENY, X_DENY},
    /* @io-uring, @clone3: ENOSYS so that programs fall back */
    {"io_uring_setup", X_ENOSYS, X_ENOSYS},
    {"io_uring_enter", X_ENOSYS, X_ENOSYS},
    {"io_uring_register", X_ENOSYS, X_ENOSYS},
    {"clone3", X_ENOSYS, X_ENOSYS},
    /* @namespaces */
    {"clone_fork", X_ALLOWED, X_ALLOWED},
    {"clone_newuser", X_DENY, X_ALLOWED},
    {"clone_newns", X_DENY, X_ALLOWED},
    {"clone_newnet", X_DENY, X_ALLOWED},
    {"clone_newpid", X_DENY, X_ALLOWED},
    {"clone_newuser_hi", X_DENY, X_ALLOWED},
    {"unshare_newuser", X_DENY, X_ALLOWED},
    {"unshare_newns", X_DENY, X_ALLOWED},
    {"unshare_newnet", X_DENY, X_ALLOWED},
    {"unshare_newpid", X_DENY, X_ALLOWED},
    {"unshare_newuts", X_DENY, X_ALLOWED},
    {"unshare_newipc", X_DENY, X_ALLOWED},
    {"unshare_newcgroup", X_DENY, X_ALLOWED},
    {"unshare_newtime", X_DENY, X_ALLOWED},
    {"unshare_files", X_ALLOWED, X_ALLOWED},
    {"setns", X_DENY, X_ALLOWED},
    /* @mount */
    {"mount", X_DENY, X_ALLOWED},
    {"umount2", X_DENY, X_ALLOWED},
    {"pivot_root", X_DENY, X_ALLOWED},
    {"chroot", X_DENY, X_ALLOWED},
    {"open_tree", X_DENY, X_ALLOWED},
    {"move_mount", X_DENY, X_ALLOWED},
    {"fsopen", X_DENY, X_ALLOWED},
    {"fsconfig", X_DENY, X_ALLOWED},
    {"fsmount", X_DENY, X_ALLOWED},
    {"fspick", X_DENY, X_ALLOWED},
    {"mount_setattr", X_DENY, X_ALLOWED},
    {"open_tree_attr", X_DENY, X_ALLOWED},
    {"statmount", X_ALLOWED, X_ALLOWED},
    /* @tty-inject: the command compared on its low 32 bits */
    {"ioctl_tiocsti", X_DENY, X_DENY},
    {"ioctl_tiocsti_hi", X_DENY, X_DENY},
    {"ioctl_tioclinux", X_DENY, X_DENY},
    {"ioctl_tiocsetd", X_DENY, X_DENY},
    {"ioctl_tiocsetd_hi", X_DENY, X_DENY},
    {"ioctl_tiocgetd", X_ALLOWED, X_ALLOWED},
    {"ioctl_fionread", X_ALLOWED, X_ALLOWED},
    /* @vsock; other families stay (no network is the network namespace's job) */
    {"socket_vsock", X_DENY, X_DENY},
    {"socket_vsock_hi", X_DENY, X_DENY},
    {"socketpair_vsock", X_DENY, X_DENY},
    {"socket_unix", X_ALLOWED, X_ALLOWED},
    {"socketpair_unix", X_ALLOWED, X_ALLOWED},
    {"socket_inet", X_ALLOWED, X_ALLOWED},
    /* @personality */
    {"personality_query", X_ALLOWED, X_ALLOWED},
    {"personality_linux", X_ALLOWED, X_ALLOWED},
    {"personality_linux32", X_ALLOWED, X_ALLOWED},
    {"personality_linux_hi", X_ALLOWED, X_ALLOWED},
    {"personality_norandom", X_DENY, X_DENY},
    {"personality_readexec", X_DENY, X_DENY},
    /* @cpu-emulation, @raw-io, @privileged, @obsolete */
    {"modify_ldt", X_DENY, X_DENY},
    {"ioperm", X_DENY, X_DENY},
    {"iopl", X_DENY, X_DENY},
    {"acct", X_DENY, X_DENY},
    {"open_by_handle_at", X_DENY, X_DENY},
    {"quotactl", X_DENY, X_DENY},
    {"syslog", X_DENY, X_DENY},
    {"vhangup", X_DENY, X_DENY},
    {"sysctl", X_ENOSYS, X_ENOSYS},
    {"uselib", X_ENOSYS, X_ENOSYS},
    /* newer than the filter knows */
    {"unknown_470", X_ENOSYS, X_ENOSYS},
    {"unknown_1000", X_ENOSYS, X_ENOSYS},
};

/* The result line of `check` in probe output: "errno N", "ok", "signal N". */
static const char *result_of(const char *out, const char *check, char *buf, size_t size)
{
	size_t n = strlen(check);

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, check, n) == 0 && l[n] == ' ') {
			const char *end = strchr(l, '\n');
			size_t len = end ? (size_t)(end - l - n - 1) : strlen(l + n + 1);

			snprintf(buf, size, "%.*s", (int)len, l + n + 1);
			return buf;
		}
	}
	it_fail(__FILE__, __LINE__, "no result for check '%s' in:\n%s", check, out);
}

/* out is a run whose filter answers errnum. An allowed call must reach the kernel: in a run
 * whose filter answers MARK (an errno no kernel call returns) it must not answer MARK; in an
 * EPERM run, where the filter's answer looks like the kernel's, it must answer exactly what
 * the same call answered in the MARK run (baseline) of the same launcher. */
static void expect_result(const char *out, const char *check, enum expect x, int errnum,
                          const char *baseline, const char *how)
{
	char buf[64], want[64], base[64];
	const char *got = result_of(out, check, buf, sizeof(buf));

	switch (x) {
	case X_DENY:
		snprintf(want, sizeof(want), "errno %d", errnum);
		break;
	case X_ENOSYS:
		snprintf(want, sizeof(want), "errno %d", ENOSYS);
		break;
	case X_ALLOWED:
		snprintf(want, sizeof(want), "errno %d", MARK);
		if (strcmp(got, want) == 0 || strncmp(got, "signal", 6) == 0 ||
		    strncmp(got, "error", 5) == 0)
			it_fail(__FILE__, __LINE__,
			        "%s: %s answered '%s'; it must reach the kernel", how, check, got);
		if (errnum == MARK)
			return;
		if (!baseline)
			it_fail(__FILE__, __LINE__, "%s: no MARK run to compare %s with", how,
			        check);
		result_of(baseline, check, base, sizeof(base));
		if (strcmp(got, base) != 0)
			it_fail(__FILE__, __LINE__,
			        "%s: %s answered '%s', but '%s' where the filter answers %d: the "
			        "filter, not the kernel, answered it",
			        how, check, got, base, MARK);
		return;
	}
	if (strcmp(got, want) != 0)
		it_fail(__FILE__, __LINE__, "%s: %s answered '%s', expected '%s'", how, check, got,
		        want);
}

/* Run the probe under sbx-seccomp-exec with the given options (NULL-terminated). */
static void probe_under(struct it_run *r, const char *opt1, const char *opt2, const char *opt3,
                        const char *opt4)
{
	const char *argv[16];
	size_t n = 0;

	argv[n++] = it_self();
	argv[n++] = "--exec";
	for (const char *o[] = {opt1, opt2, opt3, opt4}, **p = o; p < o + 4 && *p; p++)
		argv[n++] = *p;
	argv[n++] = "--";
	argv[n++] = it_self();
	argv[n++] = "--probe";
	argv[n] = NULL;
	it_exec(r, argv);
	if (r->status != 0)
		it_fail(__FILE__, __LINE__, "probe under the filter exited %d:\n%s%s", r->status,
		        r->out, r->err);
}

/* baseline: a run of the same launcher whose filter answers MARK, for errnum != MARK. */
static void check_table(const struct it_run *r, bool nesting, int errnum,
                        const struct it_run *baseline, const char *how)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		expect_result(r->out, table[i].check, nesting ? table[i].nesting : table[i].def,
		              errnum, baseline ? baseline->out : NULL, how);
}

static void denials_answer_the_configured_errno(void)
{
	static struct it_run r;

	probe_under(&r, "--errno", "1234", NULL, NULL);
	check_table(&r, false, MARK, NULL, "default filter, --errno 1234");
}

static void denials_answer_eperm_by_default(void)
{
	static struct it_run r, mark;

	probe_under(&mark, "--errno", "1234", NULL, NULL);
	probe_under(&r, NULL, NULL, NULL, NULL);
	check_table(&r, false, EPERM, &mark, "default filter");
}

static void nesting_lifts_namespaces_and_mounts_only(void)
{
	static struct it_run r;

	probe_under(&r, "--nesting", "--errno", "1234", NULL);
	check_table(&r, true, MARK, NULL, "nesting, --errno 1234");
}

static void log_mode_denies_nothing_but_foreign_arches(void)
{
	static struct it_run r;
	char buf[64];

	probe_under(&r, "--log", "--errno", "1234", NULL);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].def == X_DENY)
			expect_result(r.out, table[i].check, X_ALLOWED, MARK, NULL, "log mode");
	/* ENOSYS rules are logged too: the kernel answers clone3(NULL, 0) with EINVAL. */
	IT_EXPECT_NOT_CONTAINS(result_of(r.out, "clone3", buf, sizeof(buf)), "errno 38");
	/* ... but io_uring is locked: it would bypass @suid and @setxattr */
	IT_EXPECT_CONTAINS(result_of(r.out, "io_uring_setup", buf, sizeof(buf)), "errno 38");
	IT_EXPECT_CONTAINS(result_of(r.out, "x32_getpid", buf, sizeof(buf)), "signal 31");
}

static void allow_and_deny_by_name(void)
{
	static struct it_run r;
	char buf[64];

	{
		const char *argv[] = {it_self(), "--exec",  "--errno",  "1234",   "--allow",
		                      "@debug",  "--allow", "@keyring", "--deny", "getppid",
		                      "--",      it_self(), "--probe",  NULL};

		it_exec(&r, argv);
		IT_EXPECT_INT(r.status, 0);
	}
	expect_result(r.out, "ptrace", X_ALLOWED, MARK, NULL, "--allow @debug");
	expect_result(r.out, "kcmp", X_ALLOWED, MARK, NULL, "--allow @debug");
	expect_result(r.out, "keyctl", X_ALLOWED, MARK, NULL, "--allow @keyring");
	expect_result(r.out, "getppid", X_DENY, MARK, NULL, "--deny getppid");
	expect_result(r.out, "bpf", X_DENY, MARK, NULL, "other groups stay");
	IT_EXPECT_CONTAINS(result_of(r.out, "getpid", buf, sizeof(buf)), "ok");
}

static void deny_wins_over_allow(void)
{
	static struct it_run r;
	const char *argv[] = {it_self(), "--exec",  "--errno", "1234",    "--allow",
	                      "ptrace",  "--deny",  "@debug",  "--allow", "@debug",
	                      "--",      it_self(), "--probe", "ptrace",  "process_vm_readv",
	                      NULL};

	it_exec(&r, argv);
	IT_EXPECT_INT(r.status, 0);
	expect_result(r.out, "ptrace", X_DENY, MARK, NULL, "--deny @debug with --allow ptrace");
	expect_result(r.out, "process_vm_readv", X_DENY, MARK, NULL,
	              "--deny @debug, --allow @debug");
}

static void incoherent_configurations_are_refused(void)
{
	static const struct {
		const char *opt, *val, *says;
	} cases[] = {
	    {"--allow", "clone3", "clone3"},
	    {"--allow", "@clone3", "clone3"},
	    {"--allow", "ioctl", "@tty-inject"},
	    {"--allow", "personality", "@personality"},
	    {"--deny", "execve", "execve"},
	    {"--allow", "@suid", "locked"},
	    {"--allow", "@io-uring", "locked"},
	    {"--allow", "@setxattr", "locked"},
	    {"--allow", "chmod", "@suid"},
	    {"--allow", "openat2", "@suid"},
	    {"--allow", "fsetxattr", "@setxattr"},
	    {"--allow", "@nosuch", "no such group"},
	    {"--deny", "nosuchcall", "not a system call"},
	    {"--errno", "0", "errno"},
	    {"--errno", "4096", "errno"},
	};
	static struct it_run r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = {it_self(), "--exec",    cases[i].opt, cases[i].val,
		                      "--",      "/bin/true", NULL};

		it_exec(&r, argv);
		if (r.status != 125)
			it_fail(__FILE__, __LINE__, "%s %s: exit %d, expected 125 (refused)",
			        cases[i].opt, cases[i].val, r.status);
		IT_EXPECT_CONTAINS(r.err, cases[i].says);
	}
	/* clone3 may be allowed once namespaces are. */
	{
		const char *argv[] = {it_self(), "--exec",  "--nesting", "--allow", "@clone3",
		                      "--",      it_self(), "--probe",   "clone3",  NULL};

		it_exec(&r, argv);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_NOT_CONTAINS(r.out, "errno 38");
	}
}

/* i386 calls through int $0x80 are killed, where the kernel runs them at all. */
static void i386_calls_are_killed(void)
{
	static struct it_run r;
	const char *bare[] = {it_self(), "--probe", "i386_getpid", NULL};
	const char *filtered[] = {it_self(), "--exec",      "--", it_self(),
	                          "--probe", "i386_getpid", NULL};

#if !defined(__x86_64__)
	it_skip("i386 calls exist only on x86_64 hosts");
#endif
	it_exec(&r, bare);
	if (!strstr(r.out, "i386_getpid ok"))
		it_skip("this kernel cannot run i386 calls: int $0x80 getpid without the filter "
		        "gives '%.*s' (IA32 emulation off or not offered by the hypervisor)",
		        (int)strcspn(r.out, "\n"), r.out);
	it_exec(&r, filtered);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "i386_getpid signal 31");
}

/* x32 calls (__X32_SYSCALL_BIT) are killed by the filter before the kernel looks at them, so
 * the verdict holds whether or not this kernel has CONFIG_X86_X32_ABI. */
static void x32_calls_are_killed(void)
{
	static struct it_run r;
	const char *bare[] = {it_self(), "--probe", "x32_getpid", NULL};
	const char *filtered[] = {it_self(), "--exec",     "--", it_self(),
	                          "--probe", "x32_getpid", NULL};

#if !defined(__x86_64__)
	it_skip("x32 calls exist only on x86_64 hosts");
#endif
	it_exec(&r, bare);
	printf("    note: without the filter this kernel answers x32 getpid with '%.*s'%s\n",
	       (int)strcspn(r.out, "\n"), r.out,
	       strstr(r.out, "errno 38") ? " (no CONFIG_X86_X32_ABI)" : "");
	it_exec(&r, filtered);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "x32_getpid signal 31");
}

static long session_keyring(void)
{
	return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 1, 0, 0);
}

static void worker_session_keyring_is_not_the_callers(void)
{
	struct sbx_error err = {0};
	long before = session_keyring(), after;
	int r;

	if (before < 0 && errno == ENOSYS)
		it_skip("this kernel has no keyrings (CONFIG_KEYS)");
	IT_EXPECT(before > 0);
	r = sbx_keyring_new_session(&err);
	if (r < 0)
		it_fail(__FILE__, __LINE__, "sbx_keyring_new_session: %s", err.msg);
	IT_EXPECT_INT(r, 0);
	after = session_keyring();
	IT_EXPECT(after > 0);
	if (after == before)
		it_fail(__FILE__, __LINE__, "session keyring %ld unchanged", after);
}

static void filter_refuses_without_no_new_privs(void)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_rules rules = {0};
	struct sbx_error err = {0};
	int r;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		it_fail(__FILE__, __LINE__, "the test itself runs with no_new_privs");
	IT_EXPECT_INT(sbx_seccomp_resolve(&conf, &rules, &err), 0);
	r = sbx_seccomp_load(&rules, &err);
	sbx_seccomp_rules_clear(&rules);
	IT_EXPECT(r < 0);
	IT_EXPECT_CONTAINS(err.msg, "no_new_privs");
	/* and nothing was installed */
	{
		FILE *f = fopen("/proc/self/status", "r");
		char line[256];
		bool seen = false;

		IT_EXPECT(f != NULL);
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "Seccomp:", 8) == 0) {
				IT_EXPECT_CONTAINS(line, "\t0");
				seen = true;
			}
		fclose(f);
		IT_EXPECT(seen);
	}
}

static void dry_run_lists_effective_groups_and_calls(void)
{
	static struct it_run r;

	it_sbxv(&r, "run", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "seccomp:");
	IT_EXPECT_CONTAINS(r.out, "@module");
	IT_EXPECT_CONTAINS(r.out, "init_module");
	IT_EXPECT_CONTAINS(r.out, "clone3");
	IT_EXPECT_CONTAINS(r.out, "ENOSYS");

	it_sbxv(&r, "run", "--dry-run", "--seccomp-allow", "@debug", "--seccomp-deny", "getppid",
	        "--seccomp-errno", "EACCES", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "@debug");
	IT_EXPECT_CONTAINS(r.out, "allowed");
	IT_EXPECT_CONTAINS(r.out, "getppid");
	IT_EXPECT_CONTAINS(r.out, "EACCES");
	IT_EXPECT_NOT_CONTAINS(r.out, "ptrace");

	it_sbxv(&r, "run", "--dry-run", "--json", "--seccomp-log", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"seccomp\":{\"mode\":\"log\"");
	IT_EXPECT_CONTAINS(r.out, "\"name\":\"@namespaces\"");
}

static void cli_refuses_unknown_names(void)
{
	static struct it_run r;

	it_sbxv(&r, "run", "--dry-run", "--seccomp-allow", "@nosuch", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "@nosuch");
	IT_EXPECT_CONTAINS(r.err, "@debug"); /* the hint lists the groups */
	it_sbxv(&r, "run", "--dry-run", "--seccomp-allow", "clone3", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "clone3");
}

/* The locked groups: no flag or profile opens them, log mode does not lift them, and
 * --dry-run shows them with their conditions. */
static void locked_groups_hold(void)
{
	static struct it_run r;
	const char *prof = it_path(it_tmpdir(), "open.yaml");

	it_sbxv(&r, "run", "--dry-run", "--seccomp-allow", "chmod", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "locked seccomp group @suid");
	it_write_file(prof, "version: 1\nname: open\nseccomp:\n  allow: [\"@setxattr\"]\n");
	it_sbxv(&r, "run", "--dry-run", "-p", prof, "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "open.yaml:4:");
	IT_EXPECT_CONTAINS(r.err, "locked");
	/* log mode: everything else is logged, not denied; set-uid bits still are */
	it_sbxv(&r, "run", "-v", it_tmpdir(), "--seccomp-log", "--", "/bin/sh", "-c",
	        "cd \"$1\" && touch f && chmod u+s f; echo rc=$?; stat -c %a f", "sh", it_tmpdir(),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "rc=1\n644\n");
	it_sbxv(&r, "run", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r.out, "@suid            denied (locked)");
	IT_EXPECT_CONTAINS(r.out, "open[O_CREAT&S_ISUID|O_CREAT&S_ISGID|O_TMPFILE&S_ISUID");
	IT_EXPECT_CONTAINS(r.out, "@setxattr        denied (locked)");
	it_sbxv(&r, "run", "--dry-run", "--json", "--", "/bin/true", NULL);
	IT_EXPECT_CONTAINS(r.out, "{\"call\":\"open\",\"when\":\"O_CREAT and S_ISUID\","
	                          "\"errno\":1,\"locked\":true}");
	IT_EXPECT_CONTAINS(r.out, "{\"call\":\"setxattr\",\"errno\":95,\"locked\":true}");
	IT_EXPECT_CONTAINS(r.out, "\"name\":\"@suid\",\"state\":\"denied\",\"locked\":true");
}

/* The same table inside a real sandbox: the launcher's filter, not the helper's. */
static void denials_inside_sbx_run(void)
{
	static struct it_run r, mark;
	char vol[4200];

	snprintf(vol, sizeof(vol), "%s:%s:ro", it_self_dir(), it_self_dir());
	it_sbxv(&r, "run", "-v", vol, "--seccomp-errno", "1234", "--", it_self(), "--probe", NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "sbx run probe exited %d:\n%s%s", r.status, r.out,
		        r.err);
	check_table(&r, false, MARK, NULL, "sbx run --seccomp-errno 1234");
	mark = r;
	it_sbxv(&r, "run", "-v", vol, "--", it_self(), "--probe", NULL);
	IT_EXPECT_INT(r.status, 0);
	check_table(&r, false, EPERM, &mark, "sbx run");
	IT_EXPECT_CONTAINS(r.out, "x32_getpid signal 31");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(denials_answer_the_configured_errno),
	    IT_CASE(denials_answer_eperm_by_default),
	    IT_CASE(nesting_lifts_namespaces_and_mounts_only),
	    IT_CASE(log_mode_denies_nothing_but_foreign_arches),
	    IT_CASE(allow_and_deny_by_name),
	    IT_CASE(deny_wins_over_allow),
	    IT_CASE(incoherent_configurations_are_refused),
	    IT_CASE(i386_calls_are_killed),
	    IT_CASE(x32_calls_are_killed),
	    IT_CASE(worker_session_keyring_is_not_the_callers),
	    IT_CASE(filter_refuses_without_no_new_privs),
	    IT_CASE(dry_run_lists_effective_groups_and_calls),
	    IT_CASE(cli_refuses_unknown_names),
	    IT_CASE(denials_inside_sbx_run),
	    IT_CASE(locked_groups_hold),
	};

	if (argc > 1 && strcmp(argv[1], "--exec") == 0)
		return seccomp_exec_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "--probe") == 0)
		return seccomp_probe_main(argc - 1, argv + 1);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
