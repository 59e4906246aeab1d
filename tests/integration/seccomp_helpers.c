/* SPDX-License-Identifier: MIT */
#include "seccomp_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/keyring.h"
#include "sbx/seccomp.h"
#include "os/seccomp.h"

/* ---- exec mode ---- */

static int usage_fail(const char *msg, const char *arg)
{
	fprintf(stderr, "sbx-seccomp-exec: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "usage: sbx-seccomp-exec [--nesting] [--log] [--allow NAME] [--deny NAME] "
	                "[--errno E] [--export FILE] [--] CMD [ARG...]\n");
	return 125;
}

static void report(const struct sbx_error *err)
{
	fprintf(stderr, "sbx-seccomp-exec: %s\n", err->msg);
	if (err->hint[0])
		fprintf(stderr, "  hint: %s\n", err->hint);
}

int seccomp_exec_main(int argc, char **argv)
{
	struct sbx_seccomp_conf conf = {0};
	struct sbx_seccomp_rules rules = {0};
	struct sbx_error err = {0};
	const char *export = NULL;
	int i, r = 0;

	for (i = 1; i < argc && r >= 0; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-')
			break;
		if (strcmp(a, "--nesting") == 0) {
			conf.nesting = true;
		} else if (strcmp(a, "--log") == 0) {
			conf.log = true;
		} else if (i + 1 >= argc) {
			return usage_fail("option needs a value", a);
		} else if (strcmp(a, "--allow") == 0) {
			r = sbx_seccomp_conf_allow(&conf, argv[++i], &err);
		} else if (strcmp(a, "--deny") == 0) {
			r = sbx_seccomp_conf_deny(&conf, argv[++i], &err);
		} else if (strcmp(a, "--errno") == 0) {
			r = sbx_seccomp_conf_set_errno(&conf, argv[++i], &err);
		} else if (strcmp(a, "--export") == 0) {
			export = argv[++i];
		} else {
			return usage_fail("unknown option", a);
		}
	}
	/* core resolves what is denied, as for a plan; the os module builds and loads it */
	if (r >= 0)
		r = sbx_seccomp_resolve(&conf, &rules, &err);
	sbx_seccomp_conf_clear(&conf);
	if (r < 0) {
		report(&err);
		return 125;
	}
	if (export) {
		int fd = strcmp(export, "-") == 0
		             ? STDOUT_FILENO
		             : open(export, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			sbx_seccomp_rules_clear(&rules);
			return usage_fail("cannot open", export);
		}
		r = sbx_seccomp_export(&rules, fd, &err);
		sbx_seccomp_rules_clear(&rules);
		if (r < 0) {
			report(&err);
			return 125;
		}
		return 0;
	}
	if (i >= argc) {
		sbx_seccomp_rules_clear(&rules);
		return usage_fail("no command", NULL);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("sbx-seccomp-exec: PR_SET_NO_NEW_PRIVS");
		sbx_seccomp_rules_clear(&rules);
		return 125;
	}
	/* The launcher's order: keyring, then the filter (which denies keyctl), then exec. */
	if (sbx_keyring_new_session(&err) < 0 || sbx_seccomp_load(&rules, &err) < 0) {
		report(&err);
		sbx_seccomp_rules_clear(&rules);
		return 125;
	}
	sbx_seccomp_rules_clear(&rules);
	execvp(argv[i], argv + i);
	fprintf(stderr, "sbx-seccomp-exec: exec %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* ---- probe mode ---- */

/* Each check returns the raw result of one system call: >= 0, or -errno. */
typedef long (*check_fn)(void);

static long sys(long nr, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(nr, a, b, c, d, e, f);

	return r < 0 ? -errno : r;
}

#define PTRACE_PEEKUSER_ 3          /* <sys/ptrace.h> clashes with <linux/...> headers */
#define HI               (1L << 32) /* garbage in the upper half of a 32-bit argument */

static long c_getpid(void)
{
	return sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
}
static long c_init_module(void)
{
	return sys(SYS_init_module, 0, 0, (long)"", 0, 0, 0);
}
static long c_finit_module(void)
{
	return sys(SYS_finit_module, -1, (long)"", 0, 0, 0, 0);
}
static long c_delete_module(void)
{
	return sys(SYS_delete_module, (long)"sbx_no_such_module", O_NONBLOCK, 0, 0, 0, 0);
}
/* Bad magic: refused by the kernel even with CAP_SYS_BOOT. */
static long c_reboot(void)
{
	return sys(SYS_reboot, 0, 0, 0, 0, 0, 0);
}
/* Invalid flags: EINVAL from the kernel, never an unload. */
static long c_kexec_load(void)
{
	return sys(SYS_kexec_load, 0, 0, 0, 0x7fff0000L, 0, 0);
}
static long c_kexec_file_load(void)
{
	return sys(SYS_kexec_file_load, -1, -1, 0, 0, 0x7fff0000L, 0);
}
static long c_swapon(void)
{
	return sys(SYS_swapon, (long)"/nonexistent/sbx", 0, 0, 0, 0, 0);
}
static long c_swapoff(void)
{
	return sys(SYS_swapoff, (long)"/nonexistent/sbx", 0, 0, 0, 0, 0);
}
/* Setting CLOCK_MONOTONIC is always EINVAL. */
static long c_clock_settime(void)
{
	struct timespec ts = {0, 0};

	return sys(SYS_clock_settime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0, 0);
}
static long c_settimeofday(void)
{
	return sys(SYS_settimeofday, 0, 0, 0, 0, 0, 0); /* NULL, NULL: a no-op */
}
static long c_adjtimex(void)
{
	return sys(SYS_adjtimex, 0, 0, 0, 0, 0, 0); /* NULL: EFAULT */
}
static long c_add_key(void)
{
	return sys(SYS_add_key, (long)"sbx-no-such-type", (long)"d", 0, 0, KEY_SPEC_PROCESS_KEYRING,
	           0);
}
static long c_keyctl(void)
{
	return sys(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0, 0, 0);
}
static long c_request_key(void)
{
	return sys(SYS_request_key, (long)"user", (long)"sbx-no-such-key", 0, 0, 0, 0);
}
static long c_bpf(void)
{
	return sys(SYS_bpf, -1, 0, 0, 0, 0, 0);
}
static long c_perf_event_open(void)
{
	return sys(SYS_perf_event_open, 0, 0, -1, -1, 0, 0);
}
/* PEEKUSER on ourselves: ESRCH (we are not traced), nothing attached. */
static long c_ptrace(void)
{
	return sys(SYS_ptrace, PTRACE_PEEKUSER_, getpid(), 0, 0, 0, 0);
}
static long c_process_vm_readv(void)
{
	return sys(SYS_process_vm_readv, getpid(), 0, 0, 0, 0, 0);
}
static long c_process_vm_writev(void)
{
	return sys(SYS_process_vm_writev, getpid(), 0, 0, 0, 0, 0);
}
static long c_kcmp(void)
{
	return sys(SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, 0, 0, 0);
}
static long c_pidfd_getfd(void)
{
	return sys(SYS_pidfd_getfd, -1, 0, 0, 0, 0, 0);
}
static long c_userfaultfd(void)
{
	return sys(SYS_userfaultfd, O_CLOEXEC, 0, 0, 0, 0, 0);
}
static long c_io_uring_setup(void)
{
	return sys(SYS_io_uring_setup, 0, 0, 0, 0, 0, 0);
}
static long c_io_uring_enter(void)
{
	return sys(SYS_io_uring_enter, -1, 0, 0, 0, 0, 0);
}
static long c_io_uring_register(void)
{
	return sys(SYS_io_uring_register, -1, 0, 0, 0, 0, 0);
}
static long c_clone3(void)
{
	return sys(SYS_clone3, 0, 0, 0, 0, 0, 0); /* NULL, 0: EINVAL from the kernel */
}

/* clone: a child that exits at once; the parent reaps it. */
static long do_clone(unsigned long flags)
{
	long r = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	if (r < 0)
		return -errno;
	waitpid((pid_t)r, NULL, 0);
	return 0;
}
static long c_clone_fork(void)
{
	return do_clone(0);
}
static long c_clone_newuser(void)
{
	return do_clone(CLONE_NEWUSER);
}
static long c_clone_newns(void)
{
	return do_clone(CLONE_NEWNS);
}
static long c_clone_newnet(void)
{
	return do_clone(CLONE_NEWNET);
}
static long c_clone_newpid(void)
{
	return do_clone(CLONE_NEWPID);
}
/* The kernel reads the low 32 bits of clone's flags: bit 32 must not hide CLONE_NEWUSER. */
static long c_clone_newuser_hi(void)
{
	return do_clone((unsigned long)HI | CLONE_NEWUSER);
}
static long c_unshare_newuser(void)
{
	return sys(SYS_unshare, CLONE_NEWUSER, 0, 0, 0, 0, 0);
}
static long c_unshare_newns(void)
{
	return sys(SYS_unshare, CLONE_NEWNS, 0, 0, 0, 0, 0);
}
static long c_unshare_newnet(void)
{
	return sys(SYS_unshare, CLONE_NEWNET, 0, 0, 0, 0, 0);
}
static long c_unshare_newpid(void)
{
	return sys(SYS_unshare, CLONE_NEWPID, 0, 0, 0, 0, 0);
}
static long c_unshare_newuts(void)
{
	return sys(SYS_unshare, CLONE_NEWUTS, 0, 0, 0, 0, 0);
}
static long c_unshare_newipc(void)
{
	return sys(SYS_unshare, CLONE_NEWIPC, 0, 0, 0, 0, 0);
}
static long c_unshare_newcgroup(void)
{
	return sys(SYS_unshare, CLONE_NEWCGROUP, 0, 0, 0, 0, 0);
}
static long c_unshare_newtime(void)
{
	return sys(SYS_unshare, CLONE_NEWTIME, 0, 0, 0, 0, 0);
}
static long c_unshare_files(void)
{
	return sys(SYS_unshare, CLONE_FILES, 0, 0, 0, 0, 0);
}
static long c_setns(void)
{
	return sys(SYS_setns, -1, 0, 0, 0, 0, 0);
}
static long c_mount(void)
{
	return sys(SYS_mount, (long)"none", (long)"/nonexistent/sbx", (long)"tmpfs", 0, 0, 0);
}
static long c_umount2(void)
{
	return sys(SYS_umount2, (long)"/nonexistent/sbx", 0, 0, 0, 0, 0);
}
static long c_pivot_root(void)
{
	return sys(SYS_pivot_root, (long)"/nonexistent/sbx", (long)"/nonexistent/sbx", 0, 0, 0, 0);
}
static long c_chroot(void)
{
	return sys(SYS_chroot, (long)"/nonexistent/sbx", 0, 0, 0, 0, 0);
}
static long c_open_tree(void)
{
	return sys(SYS_open_tree, -1, (long)"", 0, 0, 0, 0);
}
static long c_move_mount(void)
{
	return sys(SYS_move_mount, -1, (long)"", -1, (long)"", 0, 0);
}
static long c_fsopen(void)
{
	return sys(SYS_fsopen, (long)"sbx-no-such-fs", 0, 0, 0, 0, 0);
}
static long c_fsconfig(void)
{
	return sys(SYS_fsconfig, -1, 0, 0, 0, 0, 0);
}
static long c_fsmount(void)
{
	return sys(SYS_fsmount, -1, 0, 0, 0, 0, 0);
}
static long c_fspick(void)
{
	return sys(SYS_fspick, -1, (long)"", 0, 0, 0, 0);
}
static long c_mount_setattr(void)
{
	return sys(SYS_mount_setattr, -1, (long)"", 0, 0, 0, 0);
}
static long c_open_tree_attr(void) /* 467: newer than these headers and libseccomp 2.5.4 */
{
	return sys(467, -1, (long)"", 0, 0, 0, 0);
}
/* fd -1: the kernel would say EBADF; the filter decides on the command before that. */
static long c_ioctl_tiocsti(void)
{
	return sys(SYS_ioctl, -1, TIOCSTI, (long)"x", 0, 0, 0);
}
static long c_ioctl_tiocsti_hi(void)
{
	return sys(SYS_ioctl, -1, HI | TIOCSTI, (long)"x", 0, 0, 0);
}
static long c_ioctl_tioclinux(void)
{
	return sys(SYS_ioctl, -1, TIOCLINUX, 0, 0, 0, 0);
}
static long c_ioctl_tiocsetd(void)
{
	int ldisc = 0; /* N_TTY */

	return sys(SYS_ioctl, -1, TIOCSETD, (long)&ldisc, 0, 0, 0);
}
static long c_ioctl_tiocsetd_hi(void)
{
	int ldisc = 0;

	return sys(SYS_ioctl, -1, HI | TIOCSETD, (long)&ldisc, 0, 0, 0);
}
static long c_ioctl_tiocgetd(void)
{
	int ldisc;

	return sys(SYS_ioctl, -1, TIOCGETD, (long)&ldisc, 0, 0, 0);
}
static long c_ioctl_fionread(void)
{
	int n;

	return sys(SYS_ioctl, -1, FIONREAD, (long)&n, 0, 0, 0);
}
static long c_socket_vsock(void)
{
	long r = sys(SYS_socket, AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_socket_vsock_hi(void)
{
	long r = sys(SYS_socket, HI | AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_socketpair_vsock(void)
{
	int sv[2];

	return sys(SYS_socketpair, AF_VSOCK, SOCK_STREAM, 0, (long)sv, 0, 0);
}
static long c_socket_unix(void)
{
	long r = sys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_socketpair_unix(void)
{
	int sv[2];

	return sys(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (long)sv, 0, 0);
}
static long c_socket_inet(void)
{
	long r = sys(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_personality_query(void)
{
	long r = sys(SYS_personality, 0xffffffffL, 0, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_personality_linux(void)
{
	long r = sys(SYS_personality, PER_LINUX, 0, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_personality_linux32(void)
{
	long r = sys(SYS_personality, PER_LINUX32, 0, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_personality_norandom(void)
{
	long r = sys(SYS_personality, ADDR_NO_RANDOMIZE, 0, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_personality_readexec(void)
{
	long r = sys(SYS_personality, READ_IMPLIES_EXEC, 0, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
/* Upper half set, low half PER_LINUX: the kernel sees PER_LINUX, so must the filter. */
static long c_personality_linux_hi(void)
{
	long r = sys(SYS_personality, HI, 0, 0, 0, 0, 0);

	return r >= 0 ? 0 : r;
}
static long c_modify_ldt(void)
{
	char buf[16];

	return sys(SYS_modify_ldt, 0, (long)buf, sizeof(buf), 0, 0, 0);
}
static long c_ioperm(void)
{
	return sys(SYS_ioperm, 0x80, 1, 0, 0, 0, 0); /* turn_on 0: drop access */
}
static long c_iopl(void)
{
	return sys(SYS_iopl, 0, 0, 0, 0, 0, 0);
}
static long c_acct(void)
{
	return sys(SYS_acct, (long)"/nonexistent/sbx", 0, 0, 0, 0, 0);
}
static long c_open_by_handle_at(void)
{
	return sys(SYS_open_by_handle_at, -1, 0, 0, 0, 0, 0);
}
static long c_quotactl(void)
{
	return sys(SYS_quotactl, 0, 0, 0, 0, 0, 0);
}
static long c_syslog(void)
{
	return sys(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, 0, 0, 0, 0, 0);
}
/* After setsid() there is no controlling terminal: a vhangup the filter let through would
 * hang up nothing. */
static long c_vhangup(void)
{
	return sys(SYS_vhangup, 0, 0, 0, 0, 0, 0);
}
static long c_sysctl(void)
{
	return sys(SYS__sysctl, 0, 0, 0, 0, 0, 0);
}
static long c_uselib(void)
{
	return sys(SYS_uselib, (long)"/nonexistent/sbx", 0, 0, 0, 0, 0);
}
static long c_getppid(void)
{
	long r = sys(SYS_getppid, 0, 0, 0, 0, 0, 0);

	return r > 0 ? 0 : r < 0 ? r : -EIO;
}
/* Beyond the last call sbx has classified, and beyond any kernel's table today. */
static long c_unknown_470(void)
{
	return sys(470, 0, 0, 0, 0, 0, 0);
}
static long c_unknown_1000(void)
{
	return sys(1000, 0, 0, 0, 0, 0, 0);
}
static long c_statmount(void)
{
	return sys(457, 0, 0, 0, 0, 0, 0); /* NULL request: EFAULT from the kernel */
}
/* i386 getpid (20) through int $0x80 from this 64-bit process. */
static long c_i386_getpid(void)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory", "rcx", "r11");
	return r < 0 && r > -4096 ? r : 0;
#else
	return -ENOTSUP;
#endif
}
/* x32 getpid: the x86_64 getpid number (39) with __X32_SYSCALL_BIT. */
static long c_x32_getpid(void)
{
#if defined(__x86_64__)
	return sys(0x40000000L | 39, 0, 0, 0, 0, 0, 0) >= 0 ? 0 : -errno;
#else
	return -ENOTSUP;
#endif
}

static const struct {
	const char *name;
	check_fn fn;
} checks[] = {
#define C(n)                                                                                       \
	{                                                                                          \
#n, c_##n                                                                          \
	}
    C(getpid),
    C(getppid),
    C(init_module),
    C(finit_module),
    C(delete_module),
    C(reboot),
    C(kexec_load),
    C(kexec_file_load),
    C(swapon),
    C(swapoff),
    C(clock_settime),
    C(settimeofday),
    C(adjtimex),
    C(add_key),
    C(keyctl),
    C(request_key),
    C(bpf),
    C(perf_event_open),
    C(ptrace),
    C(process_vm_readv),
    C(process_vm_writev),
    C(kcmp),
    C(pidfd_getfd),
    C(userfaultfd),
    C(io_uring_setup),
    C(io_uring_enter),
    C(io_uring_register),
    C(clone3),
    C(clone_fork),
    C(clone_newuser),
    C(clone_newns),
    C(clone_newnet),
    C(clone_newpid),
    C(clone_newuser_hi),
    C(unshare_newuser),
    C(unshare_newns),
    C(unshare_newnet),
    C(unshare_newpid),
    C(unshare_newuts),
    C(unshare_newipc),
    C(unshare_newcgroup),
    C(unshare_newtime),
    C(unshare_files),
    C(setns),
    C(mount),
    C(umount2),
    C(pivot_root),
    C(chroot),
    C(open_tree),
    C(move_mount),
    C(fsopen),
    C(fsconfig),
    C(fsmount),
    C(fspick),
    C(mount_setattr),
    C(open_tree_attr),
    C(ioctl_tiocsti),
    C(ioctl_tiocsti_hi),
    C(ioctl_tioclinux),
    C(ioctl_tiocsetd),
    C(ioctl_tiocsetd_hi),
    C(ioctl_tiocgetd),
    C(ioctl_fionread),
    C(socket_vsock),
    C(socket_vsock_hi),
    C(socketpair_vsock),
    C(socket_unix),
    C(socketpair_unix),
    C(socket_inet),
    C(personality_query),
    C(personality_linux),
    C(personality_linux32),
    C(personality_norandom),
    C(personality_readexec),
    C(personality_linux_hi),
    C(modify_ldt),
    C(ioperm),
    C(iopl),
    C(acct),
    C(open_by_handle_at),
    C(quotactl),
    C(syslog),
    C(vhangup),
    C(sysctl),
    C(uselib),
    C(unknown_470),
    C(unknown_1000),
    C(statmount),
    C(i386_getpid),
    C(x32_getpid),
#undef C
};

static void run_check(size_t i)
{
	int pfd[2], status;
	long result = 0;
	pid_t pid;

	if (pipe(pfd) < 0) {
		printf("%s error pipe\n", checks[i].name);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("%s error fork\n", checks[i].name);
		return;
	}
	if (pid == 0) {
		long r;

		close(pfd[0]);
		setsid();
		r = checks[i].fn();
		if (write(pfd[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &result, sizeof(result)) != (ssize_t)sizeof(result))
		result = LONG_MIN;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		printf("%s signal %d\n", checks[i].name, WTERMSIG(status));
	else if (result == LONG_MIN)
		printf("%s error no-result\n", checks[i].name);
	else if (result < 0)
		printf("%s errno %ld\n", checks[i].name, -result);
	else
		printf("%s ok\n", checks[i].name);
}

int seccomp_probe_main(int argc, char **argv)
{
	int bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc <= 1) {
		for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			run_check(i);
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		size_t i;

		for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			if (strcmp(checks[i].name, argv[a]) == 0)
				break;
		if (i == sizeof(checks) / sizeof(checks[0])) {
			printf("%s error unknown-check\n", argv[a]);
			bad = 1;
			continue;
		}
		run_check(i);
	}
	return bad;
}
