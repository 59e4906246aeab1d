/* SPDX-License-Identifier: MIT */
/*
 * The supervisor (docs/design.md, The supervisor; seccomp_unotify(2)). Three parties:
 *
 *   the worker     after its main filter, a second filter (the listener filter) returns
 *                  SECCOMP_RET_USER_NOTIF for the calls plan->sup.families names, and
 *                  always for landlock_restrict_self (landlocked); its listener fd goes to sbx over
 * a socket pair and is closed before exec; the performer  forked by the worker just before the
 * listener filter: the worker's ids, mount namespace, Landlock domain and main filter, no
 * capability, not dumpable, not under the listener filter. It resolves what a call names and
 *                  performs the call on a directory fd and a final name, on sbx's word;
 *   sbx            the listener: it copies the call's arguments, checks the notification is
 *                  still valid after every read of the caller's memory, asks the performer
 *                  to resolve, asks core (sbx_sup_decide) and answers the kernel.
 *
 * Every answer to a caller with the worker's rights is performed, never CONTINUE: the
 * caller stopped because some protection needs its path, and it can change the path (its
 * memory, a symlink, a parent's name) between a check and a kernel call that resolves it
 * again. A caller narrower than the worker (a sub-sandbox, a process with a filter or a
 * Landlock domain of its own, or a descendant of one) is never performed for: the
 * performer's rights are wider than its own. The performer never goes through another
 * process's /proc/PID (proc_check): the kernel's ptrace checks there are made against it.
 */
#include "os/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "os/askq.h"
#include "os/audit.h"
#include "os/broker.h"
#include "os/netproxy.h"
#include "os/kapi.h"
#include "sbx/audit.h"
#include "sbx/cleanup.h"
#include "sbx/finish.h"
#include "sbx/escape.h"
#include "sbx/sup_pending.h"
#include "sbx/trace.h"
#include "sbx/netll.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef FS_IOC32_SETFLAGS
#define FS_IOC32_SETFLAGS _IOW('f', 2, int)
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef EXFAT_SUPER_MAGIC
#define EXFAT_SUPER_MAGIC 0x2011BAB0
#endif
#define SBX_O_TMPFILE_BIT 020000000 /* the kernel's __O_TMPFILE, without O_DIRECTORY */

#if defined(__x86_64__)
#define SUP_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SUP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define SUP_AUDIT_ARCH 0
#endif

#define P_PATH         4096 /* PATH_MAX: the kernel refuses longer names itself */
#define P_NAME         256
#define P_GUARDS       64   /* components of one protected path */
#define MAX_LINKS      40   /* as the kernel's MAXSYMLINKS */
#define PERF_WAIT_S    30   /* a performer that does not answer in this long is lost */
#define MAX_RETRY      8    /* a caller racing its own call is answered after this many tries */
#define MAX_LANDLOCKED 4096 /* thread groups that gave themselves a Landlock domain */
#define MAX_ADOPTERS   64   /* parents given a child by clone(CLONE_PARENT) of such a group */
#define MAX_ANCESTRY   4096 /* PPid steps from a caller up to the worker */
#define MAX_SUBS       SBX_SUP_MAX_SUBS /* sub-performers: Landlock domains of the worker's */
#define MAX_SUBREAPERS 256              /* thread groups that made themselves child subreapers */
#define MAX_WAITS      64  /* opens of a FIFO waiting for their other end (perform_fifo) */
#define SUP_CONNECT_S  5   /* a worker's blocking connect to the proxy, made by sbx, at most */
#define MAX_KEPT       256 /* calls kept while their question is pending (questions_*) */

/* ---- the calls, as sbx and the performer see them ---- */

enum call_kind {
	C_OPEN = 0,
	C_MKDIR,
	C_MKNOD,
	C_SYMLINK,
	C_LINK,
	C_RENAME,
	C_TRUNCATE,
	C_UNLINK,
	C_CHMOD,
	C_CHOWN,
	C_UTIMES,
	C_RMXATTR, /* removexattr and its kin: the attribute's name in `text` */
	C_IOCTL,   /* ioctl FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR: inode flags */
	C_BIND,    /* bind: an AF_UNIX pathname makes a name (decode_bind) */
	C_CONNECT, /* connect: the landlock backend's allowlist (serve_connect) */
	C_FALLOC,  /* fallocate: its mode in `flags`, offset in `dev`, length in `length` */
};

/* One row per system call the listener filter may send: what family it is in, and where its
 * arguments are. Arguments: -1 none; dirfd -2: AT_FDCWD implied. */
enum time_kind { T_NONE = 0, T_UTIMBUF, T_TIMEVAL, T_TIMESPEC };
struct call_row {
	int nr;
	const char *name;
	enum call_kind kind;
	unsigned family; /* SBX_SUP_F_*; for open, decided on the flags */
	signed char dirfd, path, dirfd2, path2, flags, mode, text, fd, uid, gid, dev, len, times;
	signed char ioc, ioc_arg; /* ioctl's request and its argument; bind's address */
	unsigned char time_kind;
	bool follow;     /* follows a symlink at the final component (unless a flag says no) */
	int fixed_flags; /* creat: O_CREAT|O_WRONLY|O_TRUNC; rmdir: AT_REMOVEDIR */
	bool flags_at;   /* `flags` holds AT_ flags (fchownat, utimensat, linkat, fchmodat2) */
};

#define ROW(n, k, f) .nr = __NR_##n, .name = #n, .kind = (k), .family = (f)
#define NO                                                                                         \
	.dirfd = -2, .path = -1, .dirfd2 = -1, .path2 = -1, .flags = -1, .mode = -1, .text = -1,   \
	.fd = -1, .uid = -1, .gid = -1, .dev = -1, .len = -1, .times = -1, .ioc = -1,              \
	.ioc_arg = -1

/* NO sets every argument to "none" and a row overrides what it has: GCC's override-init
 * warning is exactly what this table does on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const struct call_row calls[] = {
#ifdef __NR_open
    {ROW(open, C_OPEN, 0), NO, .path = 0, .flags = 1, .mode = 2, .follow = true},
#endif
#ifdef __NR_creat
    {ROW(creat, C_OPEN, SBX_SUP_F_CREATE), NO, .path = 0, .mode = 1, .follow = true,
     .fixed_flags = O_CREAT | O_WRONLY | O_TRUNC},
#endif
    {ROW(openat, C_OPEN, 0), NO, .dirfd = 0, .path = 1, .flags = 2, .mode = 3, .follow = true},
#ifdef __NR_mkdir
    {ROW(mkdir, C_MKDIR, SBX_SUP_F_CREATE), NO, .path = 0, .mode = 1},
#endif
    {ROW(mkdirat, C_MKDIR, SBX_SUP_F_CREATE), NO, .dirfd = 0, .path = 1, .mode = 2},
#ifdef __NR_mknod
    {ROW(mknod, C_MKNOD, SBX_SUP_F_CREATE), NO, .path = 0, .mode = 1, .dev = 2},
#endif
    {ROW(mknodat, C_MKNOD, SBX_SUP_F_CREATE), NO, .dirfd = 0, .path = 1, .mode = 2, .dev = 3},
#ifdef __NR_symlink
    {ROW(symlink, C_SYMLINK, SBX_SUP_F_CREATE), NO, .text = 0, .path = 1},
#endif
    {ROW(symlinkat, C_SYMLINK, SBX_SUP_F_CREATE), NO, .text = 0, .dirfd = 1, .path = 2},
#ifdef __NR_link
    {ROW(link, C_LINK, SBX_SUP_F_CREATE), NO, .path = 0, .dirfd2 = -2, .path2 = 1},
#endif
    {ROW(linkat, C_LINK, SBX_SUP_F_CREATE), NO, .dirfd = 0, .path = 1, .dirfd2 = 2, .path2 = 3,
     .flags = 4, .flags_at = true},
#ifdef __NR_rename
    {ROW(rename, C_RENAME, SBX_SUP_F_CREATE), NO, .path = 0, .dirfd2 = -2, .path2 = 1},
#endif
#ifdef __NR_renameat
    {ROW(renameat, C_RENAME, SBX_SUP_F_CREATE), NO, .dirfd = 0, .path = 1, .dirfd2 = 2, .path2 = 3},
#endif
    {ROW(renameat2, C_RENAME, SBX_SUP_F_CREATE), NO, .dirfd = 0, .path = 1, .dirfd2 = 2, .path2 = 3,
     .flags = 4},
    {ROW(truncate, C_TRUNCATE, SBX_SUP_F_WRITE), NO, .path = 0, .len = 1, .follow = true},
    /* and on a descriptor opened for writing (an outside attack: overwrite: ask asked for
     * O_TRUNC and truncate(2), while truncate(1)'s ftruncate emptied the file unasked) */
    {ROW(ftruncate, C_TRUNCATE, SBX_SUP_F_WRITE), NO, .dirfd = -1, .fd = 0, .len = 1},
    /* fallocate's punch, collapse, zero and insert change what a file holds, which Landlock's
     * truncate right does not cover (an outside attack cut a file short under overwrite:
     * deny with FALLOC_FL_COLLAPSE_RANGE) */
    {ROW(fallocate, C_FALLOC, SBX_SUP_F_WRITE), NO, .dirfd = -1, .fd = 0, .flags = 1, .dev = 2,
     .len = 3},
#ifdef __NR_unlink
    {ROW(unlink, C_UNLINK, SBX_SUP_F_DELETE), NO, .path = 0},
#endif
    {ROW(unlinkat, C_UNLINK, SBX_SUP_F_DELETE), NO, .dirfd = 0, .path = 1, .flags = 2},
#ifdef __NR_rmdir
    {ROW(rmdir, C_UNLINK, SBX_SUP_F_DELETE), NO, .path = 0, .fixed_flags = AT_REMOVEDIR},
#endif
#ifdef __NR_chmod
    {ROW(chmod, C_CHMOD, SBX_SUP_F_META), NO, .path = 0, .mode = 1, .follow = true},
#endif
    {ROW(fchmod, C_CHMOD, SBX_SUP_F_META), NO, .dirfd = -1, .fd = 0, .mode = 1},
    {ROW(fchmodat, C_CHMOD, SBX_SUP_F_META), NO, .dirfd = 0, .path = 1, .mode = 2, .follow = true},
    {ROW(fchmodat2, C_CHMOD, SBX_SUP_F_META), NO, .dirfd = 0, .path = 1, .mode = 2, .flags = 3,
     .follow = true, .flags_at = true},
#ifdef __NR_chown
    {ROW(chown, C_CHOWN, SBX_SUP_F_META), NO, .path = 0, .uid = 1, .gid = 2, .follow = true},
#endif
#ifdef __NR_lchown
    {ROW(lchown, C_CHOWN, SBX_SUP_F_META), NO, .path = 0, .uid = 1, .gid = 2},
#endif
    {ROW(fchown, C_CHOWN, SBX_SUP_F_META), NO, .dirfd = -1, .fd = 0, .uid = 1, .gid = 2},
    {ROW(fchownat, C_CHOWN, SBX_SUP_F_META), NO, .dirfd = 0, .path = 1, .uid = 2, .gid = 3,
     .flags = 4, .follow = true, .flags_at = true},
#ifdef __NR_utime
    {ROW(utime, C_UTIMES, SBX_SUP_F_META), NO, .path = 0, .times = 1, .time_kind = T_UTIMBUF,
     .follow = true},
#endif
#ifdef __NR_utimes
    {ROW(utimes, C_UTIMES, SBX_SUP_F_META), NO, .path = 0, .times = 1, .time_kind = T_TIMEVAL,
     .follow = true},
#endif
#ifdef __NR_futimesat
    {ROW(futimesat, C_UTIMES, SBX_SUP_F_META), NO, .dirfd = 0, .path = 1, .times = 2,
     .time_kind = T_TIMEVAL, .follow = true},
#endif
    {ROW(utimensat, C_UTIMES, SBX_SUP_F_META), NO, .dirfd = 0, .path = 1, .times = 2, .flags = 3,
     .time_kind = T_TIMESPEC, .follow = true, .flags_at = true},
    /* removing an attribute takes a POSIX ACL away: decided as chmod is */
    {ROW(removexattr, C_RMXATTR, SBX_SUP_F_META), NO, .path = 0, .text = 1, .follow = true},
    {ROW(lremovexattr, C_RMXATTR, SBX_SUP_F_META), NO, .path = 0, .text = 1},
    {ROW(fremovexattr, C_RMXATTR, SBX_SUP_F_META), NO, .dirfd = -1, .fd = 0, .text = 1},
    {ROW(removexattrat, C_RMXATTR, SBX_SUP_F_META), NO, .dirfd = 0, .path = 1, .flags = 2,
     .text = 3, .follow = true, .flags_at = true},
    /* the inode flags (immutable, append-only...): only the set requests stop (ioctl_test) */
    {ROW(ioctl, C_IOCTL, SBX_SUP_F_META), NO, .dirfd = -1, .fd = 0, .ioc = 1, .ioc_arg = 2},
    /* a socket's name: every bind stops (the address is in the caller's memory, which it can
     * change after a check), and is performed with the copied address */
    {ROW(bind, C_BIND, SBX_SUP_F_CREATE), NO, .fd = 0, .ioc_arg = 1, .len = 2},
    /* served before decode (serve_connect): the address is checked and connected by sbx */
    {ROW(connect, C_CONNECT, SBX_SUP_F_CONNECT), NO, .fd = 0, .ioc_arg = 1, .len = 2},
};

#pragma GCC diagnostic pop

static const struct call_row *call_row(int nr)
{
	for (size_t i = 0; i < SBX_ARRAY_SIZE(calls); i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

/* ---- the listener filter ---- */

/*
 * Raw classic BPF, as short as it can be: the arch and x32 checks only let other programs
 * through (the main filter, installed before, kills them: the kernel takes the most
 * restrictive action of all filters, so its KILL or ERRNO wins over USER_NOTIF), then one
 * compare per supervised call, and for open and openat a test of the flag bits in the low
 * 32 bits of the flags argument (the kernel reads them as int).
 */
#define SUP_FILTER_MAX 200

struct bpf_buf {
	struct sock_filter insn[SUP_FILTER_MAX];
	size_t n;
	bool overflow;
};

static size_t emit(struct bpf_buf *b, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (b->n >= SUP_FILTER_MAX) {
		b->overflow = true;
		return b->n;
	}
	b->insn[b->n] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
	return b->n++;
}

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

/* The open flags' test: NOTIFY when the families want this open, ALLOW otherwise. Returns
 * nothing: emits a self-contained block (falls into nothing). */
static void emit_open_test(struct bpf_buf *b, int flags_arg, unsigned fam)
{
	const uint32_t writes = O_WRONLY | O_RDWR | O_TRUNC | O_APPEND;

	emit(b, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(flags_arg), 0, 0);
	/* CREATE: O_CREAT or O_TMPFILE */
	if (fam & SBX_SUP_F_CREATE) {
		emit(b, BPF_JMP | BPF_JSET | BPF_K, O_CREAT | SBX_O_TMPFILE_BIT, 0, 1);
		emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	}
	/* O_PATH (without O_CREAT or O_TMPFILE, sent above where creation is watched): the
	 * kernel drops every other flag; the fd reads and writes nothing. Reopening it through
	 * /proc/self/fd/N is an open of its own, sent and decided on the object it names. */
	emit(b, BPF_JMP | BPF_JSET | BPF_K, O_PATH, 0, 1);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	if (fam & SBX_SUP_F_READ) {
		/* every other open: reading or writing (WRITE opens are stricter than READ's
		 * decisions only where WRITE is in the families; core decides) */
		if (!(fam & SBX_SUP_F_WRITE) && !(fam & SBX_SUP_F_CREATE)) {
			emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
			return;
		}
		if (!(fam & SBX_SUP_F_WRITE)) {
			/* reads only: an open without read access (O_WRONLY, without O_CREAT)
			 * passes; O_RDWR, and O_RDONLY with O_APPEND or O_TRUNC, read as much as
			 * O_RDONLY and are sent */
			emit(b, BPF_ALU | BPF_AND | BPF_K, O_ACCMODE, 0, 0);
			emit(b, BPF_JMP | BPF_JEQ | BPF_K, O_WRONLY, 1, 0);
			emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
			emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
			return;
		}
		emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
		return;
	}
	if (fam & SBX_SUP_F_WRITE) {
		emit(b, BPF_JMP | BPF_JSET | BPF_K, writes, 0, 1);
		emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	}
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
}

/* ioctl: only the requests that set inode flags stop; every other ioctl passes. The kernel
 * reads the request as an unsigned int: its low 32 bits. */
static void emit_ioctl_test(struct bpf_buf *b, int req_arg)
{
	emit(b, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(req_arg), 0, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)FS_IOC_SETFLAGS, 3, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)FS_IOC32_SETFLAGS, 2, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)FS_IOC_FSSETXATTR, 1, 0);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
}

/*
 * Always, like landlock_restrict_self: the calls that make a process differ from the worker
 * in what sbx would otherwise read from /proc at every call (diverged): a seccomp filter of
 * its own (seccomp SET_MODE_FILTER or STRICT, prctl PR_SET_SECCOMP), other namespaces
 * (unshare, setns, clone with a CLONE_NEW* flag, clone3, whose flags seccomp cannot read and
 * which the main filter answers ENOSYS unless a profile allows it), another umask. A call
 * whose arguments do not match goes on with the accumulator reloaded with its number, so
 * that a later test of the same call still sees it.
 */
#define SUP_CLONE_NEW                                                                              \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |             \
	 CLONE_NEWPID | CLONE_NEWNET)
static void emit_diverge_tests(struct bpf_buf *b)
{
	static const int always[] = {__NR_unshare, __NR_setns, __NR_umask,
#ifdef __NR_clone3
	                             __NR_clone3
#endif
	};

	for (size_t i = 0; i < SBX_ARRAY_SIZE(always); i++) {
		emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)always[i], 0, 1);
		emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	}
	/* seccomp(op): SECCOMP_SET_MODE_STRICT is 0, SECCOMP_SET_MODE_FILTER 1 */
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 4);
	emit(b, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(0), 0, 0);
	emit(b, BPF_JMP | BPF_JGE | BPF_K, 2, 1, 0);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 4);
	emit(b, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(0), 0, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	/* clone(flags, ...): the flags are its first argument on x86-64 and arm64 alike; a
	 * CLONE_PARENT stops too, for the child's domain (serve_clone_parent) */
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4);
	emit(b, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(0), 0, 0);
	emit(b, BPF_JMP | BPF_JSET | BPF_K, SUP_CLONE_NEW | CLONE_PARENT, 0, 1);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
}

static int build_filter(unsigned fam, struct bpf_buf *b, struct sbx_error *err)
{
	size_t jumps[SBX_ARRAY_SIZE(calls)];
	const struct call_row *rows[SBX_ARRAY_SIZE(calls)];
	size_t n = 0;

	if (SUP_AUDIT_ARCH == 0)
		return sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
		                     "the supervisor is not built for this architecture");
	memset(b, 0, sizeof(*b));
	emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, SUP_AUDIT_ARCH, 1, 0);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0); /* the main filter kills it */
	emit(b, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
#if defined(__x86_64__)
	emit(b, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1); /* x32: killed by the main filter */
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
#endif
	/* always: a process that gives itself a Landlock domain is narrower from then on
	 * (landlocked), and Landlock has no query sbx could ask later */
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_restrict_self, 0, 1);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	emit_diverge_tests(b);
	/* always: a child subreaper adopts orphans, whose PPid line to the process that gave
	 * them their Landlock domain then skips it (sub_lookup); no other prctl stops */
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 4);
	emit(b, BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(0), 0, 0);
	emit(b, BPF_JMP | BPF_JEQ | BPF_K, PR_SET_CHILD_SUBREAPER, 0, 1);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	for (size_t i = 0; i < SBX_ARRAY_SIZE(calls); i++) {
		const struct call_row *r = &calls[i];
		bool want = r->kind == C_OPEN && r->family == 0
		                ? (fam & (SBX_SUP_F_CREATE | SBX_SUP_F_WRITE | SBX_SUP_F_READ)) != 0
		                : (fam & r->family) != 0;

		if (!want)
			continue;
		rows[n] = r;
		jumps[n++] = emit(b, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r->nr, 0, 0);
	}
	emit(b, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	for (size_t i = 0; i < n; i++) {
		size_t at = b->n;

		if (at - jumps[i] - 1 > 255)
			b->overflow = true;
		else
			b->insn[jumps[i]].jt = (uint8_t)(at - jumps[i] - 1);
		if (rows[i]->kind == C_OPEN && rows[i]->family == 0)
			emit_open_test(b, rows[i]->flags, fam);
		else if (rows[i]->kind == C_IOCTL)
			emit_ioctl_test(b, rows[i]->ioc);
		else
			emit(b, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF, 0, 0);
	}
	if (b->overflow)
		return sbx_error_set(err, SBX_ERR_SETUP, E2BIG,
		                     "the supervisor's filter is too long (internal)");
	return 0;
}

static int sup_seccomp(unsigned op, unsigned flags, void *arg)
{
	return (int)syscall(SYS_seccomp, op, flags, arg);
}

/* ---- messages between sbx, the worker and the performer ---- */

static int send_iov(int sock, struct iovec *iov, size_t niov, const int *fds, size_t nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = niov};
	size_t len = 0;
	ssize_t n;

	for (size_t i = 0; i < niov; i++)
		len += iov[i].iov_len;
	if (nfds > 4)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EPIPE;
}

static int send_fds(int sock, const void *buf, size_t len, const int *fds, size_t nfds)
{
	struct iovec iov = {(void *)(uintptr_t)buf, len};

	return send_iov(sock, &iov, 1, fds, nfds);
}

/* Receive one message and at most *nfds fds (close-on-exec); extra fds are closed. Returns
 * its length, 0 at EOF, or -errno. `pid` (may be NULL) gets the sender's pid as the kernel
 * translated it, where SO_PASSCRED is on. */
static ssize_t recv_fds(int sock, void *buf, size_t len, int *fds, size_t *nfds, pid_t *pid)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = u.buf,
	                   .msg_controllen = sizeof(u.buf)};
	size_t want = nfds ? *nfds : 0, got = 0;
	ssize_t n;

	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *in = (int *)CMSG_DATA(c);

			for (size_t i = 0; i < k; i++) {
				if (got < want)
					fds[got++] = in[i];
				else
					close(in[i]);
			}
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS && pid) {
			struct ucred cr;

			memcpy(&cr, CMSG_DATA(c), sizeof(cr));
			*pid = cr.pid;
		}
	}
	if (nfds)
		*nfds = got;
	if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && n > 0) {
		for (size_t i = 0; i < got; i++)
			close(fds[i]);
		if (nfds)
			*nfds = 0;
		return -EMSGSIZE;
	}
	return n;
}

enum p_kind { P_HELLO = 1, P_RESOLVE, P_PERFORM, P_GUARD, P_GUARD_ADD, P_SUB };

/* sbx -> performer */
struct p_req {
	uint32_t kind;
	uint32_t call;     /* enum call_kind */
	int32_t tgid, tid; /* the caller in the performer's pid namespace: its /proc/self */
	uint32_t nsides;   /* 1, or 2 (link, rename) */
	uint32_t follow[2];
	uint32_t has_dirfd[2]; /* an fd came for the side (its path is relative) */
	uint32_t fd_based;     /* the object is an fd that came (fchmod, utimensat(fd, NULL)) */
	uint32_t empty[2];     /* AT_EMPTY_PATH with an empty path: the side is its dirfd */
	int32_t flags;
	uint32_t mode, umask, uid, gid;
	uint64_t dev;
	int64_t length;
	uint32_t times_null;
	struct timespec ts[2];
	/* P_RESOLVE: decide here and perform at once where the answer needs no broker */
	uint32_t fast;
	char call_name[24];
	/* P_GUARD: which protected path (path[0]), the performer fills its tables as sbx does;
	 * P_GUARD_ADD: one entry of sbx's tables (path[0]: the name) */
	uint64_t g_ino;
	uint32_t g_index, g_depth, g_final, g_pinned;
	uint32_t ioc;      /* ioctl's request (C_IOCTL) */
	uint32_t has_sock; /* C_BIND with a path: the socket's fd came after the side's */
	uint32_t salen;
	struct sockaddr_storage sa;
	uint32_t ioc_flags;
	struct fsxattr fsx;
	/* P_RESOLVE, P_PERFORM: sbx has room for one more open of a FIFO that waits for its
	 * other end (perform_fifo); without it such an open fails with EAGAIN */
	uint32_t may_wait;
	/* last, and sent only as far as they go (p_req_len) */
	char path[2][P_PATH];
	char text[P_PATH]; /* symlink's target; removexattr's name */
};

/* How much of a request is sent: up to the end of its last string in use. */
static size_t p_req_len(const struct p_req *q)
{
	if (q->text[0])
		return offsetof(struct p_req, text) + strnlen(q->text, P_PATH - 1) + 1;
	if (q->path[1][0])
		return offsetof(struct p_req, path[1]) + strnlen(q->path[1], P_PATH - 1) + 1;
	return offsetof(struct p_req, path[0]) + strnlen(q->path[0], P_PATH - 1) + 1;
}

struct p_target {
	int32_t err;     /* 0: resolved */
	uint32_t exists; /* the final name exists */
	uint32_t is_dir;
	uint32_t casefold;
	uint32_t is_object; /* the final is an object without a (dir, name): a magic link */
	uint32_t ftype;     /* S_IFMT of what exists */
	uint32_t git_other; /* the directory holds what the name would complete a git dir with
	                       (HEAD for objects and commondir; objects or commondir for HEAD) */
	uint64_t dev, ino;  /* the directory holding `name` */
	uint64_t size;
	char name[P_NAME];
	char path[P_PATH]; /* last: sent only as far as it goes (p_target_len) */
};

static size_t p_target_len(const struct p_target *t)
{
	return offsetof(struct p_target, path) + strnlen(t->path, P_PATH - 1) + 1;
}

/* performer -> sbx */
struct p_reply {
	int32_t result;            /* 0 or -errno; P_RETRY: the name changed under the call; P_WAIT,
	                              P_WAIT_FULL: an open of a FIFO (perform_fifo) */
	uint32_t has_fd;           /* fds that came with it: 0, 1, or 2 (P_WAIT) */
	uint64_t new_dev, new_ino; /* mkdir: the new directory */
	int32_t pid;               /* P_HELLO: the performer's pid, in its namespace */
	uint32_t performed;        /* P_RESOLVE with fast: decided and performed (result) */
	uint32_t need_ids;         /* the path goes through /proc: ask again with tgid, tid */
	uint32_t n_guard;
	uint32_t len_t[2]; /* on the wire: t[i] as far as its path goes (p_target_len) */
	struct {
		uint64_t dev, ino;
		uint32_t exists;
		uint32_t depth;
		uint32_t mount_root; /* cannot be moved or removed anyway (EBUSY) */
	} guard[P_GUARDS];
	struct p_target t[2];
};
#define P_RETRY     1
#define P_WAIT      2 /* the open waits in a waiter: its socket and its pidfd came */
#define P_WAIT_FULL 3 /* it would wait, and MAX_WAITS already do */

/* A reply on the wire: its fixed part, its guards, each target as far as its path goes;
 * fds[0] and fds[1] where >= 0 (the second only with the first). */
static int send_reply(int sock, struct p_reply *r, const int *fds)
{
	size_t nfds = fds[0] < 0 ? 0 : fds[1] < 0 ? 1 : 2;
	struct iovec iov[4];

	if (r->n_guard > P_GUARDS)
		r->n_guard = P_GUARDS;
	r->len_t[0] = (uint32_t)p_target_len(&r->t[0]);
	r->len_t[1] = (uint32_t)p_target_len(&r->t[1]);
	iov[0] = (struct iovec){r, offsetof(struct p_reply, guard)};
	iov[1] = (struct iovec){r->guard, r->n_guard * sizeof(r->guard[0])};
	iov[2] = (struct iovec){&r->t[0], r->len_t[0]};
	iov[3] = (struct iovec){&r->t[1], r->len_t[1]};
	r->has_fd = (uint32_t)nfds;
	return send_iov(sock, iov, 4, fds, nfds);
}

/* The reply from `len` bytes of buf; false where they do not make one. */
static bool unpack_reply(const char *buf, size_t len, struct p_reply *r)
{
	const size_t head = offsetof(struct p_reply, guard), tmin = offsetof(struct p_target, path);
	size_t at = head;

	if (len < head)
		return false;
	memcpy(r, buf, head);
	if (r->n_guard > P_GUARDS || len - at < r->n_guard * sizeof(r->guard[0]))
		return false;
	memcpy(r->guard, buf + at, r->n_guard * sizeof(r->guard[0]));
	at += r->n_guard * sizeof(r->guard[0]);
	for (int i = 0; i < 2; i++) {
		size_t n = r->len_t[i];

		if (n <= tmin || n > sizeof(r->t[i]) || len - at < n)
			return false;
		memset(&r->t[i], 0, sizeof(r->t[i]));
		memcpy(&r->t[i], buf + at, n);
		r->t[i].path[P_PATH - 1] = '\0';
		r->t[i].name[P_NAME - 1] = '\0';
		at += n;
	}
	return at == len;
}

/* walk's answer where a path enters procfs and sbx did not say who the caller is there (its
 * tgid and tid: caller_open did not read them); never an errno */
#define P_NEED_IDS (-4096)

/* Shared by sbx and the performer (defined with sbx's side, below). */
static enum sbx_sup_op op_for(uint32_t kind, int flags, uint64_t length, const struct p_target *t,
                              const struct p_target *t2);
/* What the call's flags say beyond its op: an open's read access (O_RDWR reads as much as
 * O_RDONLY; O_PATH reads nothing), renameat2's way of renaming. Both the performer (its fast
 * path) and sbx fill a request so, and must decide the same. */
static void req_flags(struct sbx_sup_req *req, uint32_t kind, int flags)
{
	if (kind == C_OPEN)
		req->reads = !(flags & O_PATH) && (flags & O_ACCMODE) != O_WRONLY;
	if (kind == C_RENAME) {
		req->exchange = (flags & RENAME_EXCHANGE) != 0;
		req->noreplace = (flags & RENAME_NOREPLACE) != 0;
		req->whiteout = (flags & RENAME_WHITEOUT) != 0;
	}
}

static void fill_target(struct sbx_sup_target *out, const struct p_target *t);

/*
 * The file systems of the tmpfs mounts sbx made for this sandbox (its /tmp, home, --tmpfs,
 * the scaffold at /): what is made there is gone after the run, and a ".git" or HEAD may be
 * made there (no_new_git). Learnt by the worker before it execs, from the plan's tmpfs
 * targets, each kept only if it is a tmpfs mount's root there; the performer inherits the
 * table and sbx gets it with the listener. Every other device is the host's (fail closed).
 */
#define MAX_PRIVATE_DEVS 32
static uint64_t private_devs[MAX_PRIVATE_DEVS];
static uint32_t n_private_devs;

/* worker -> sbx, once, with the listener fd */
struct listen_msg {
	char tag; /* 'L' */
	uint32_t n_devs;
	uint64_t devs[MAX_PRIVATE_DEVS];
};

static bool on_private_fs(uint64_t dev)
{
	for (uint32_t i = 0; i < n_private_devs && i < MAX_PRIVATE_DEVS; i++)
		if (private_devs[i] == dev)
			return true;
	return false;
}

static void private_add(const char *path)
{
	struct statx sx;
	struct statfs fs;

	if (n_private_devs >= MAX_PRIVATE_DEVS ||
	    statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) < 0 ||
	    !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) || !S_ISDIR(sx.stx_mode) ||
	    statfs(path, &fs) < 0 || fs.f_type != TMPFS_MAGIC)
		return;
	private_devs[n_private_devs++] = makedev(sx.stx_dev_major, sx.stx_dev_minor);
}

/* In the worker, after the build and before anything of the caller's runs. */
static void private_learn(const struct sbx_plan *plan)
{
	n_private_devs = 0;
	if (plan->backend_landlock) /* no mounts: every tmpfs of the plan is the host's dir */
		return;
	private_add("/");
	for (size_t i = 0; i < plan->n_ops; i++)
		if (plan->ops[i].kind == SBX_PLAN_TMPFS && plan->ops[i].target)
			private_add(plan->ops[i].target);
}
static bool pinned_in(const struct sbx_sup_guards *pinned, const struct sbx_sup_plan *sp,
                      const struct sbx_sup_req *req, struct sbx_sup_verdict *v);
static void guard_mkdir_in(struct sbx_sup_guards *guards, const struct sbx_sup_guards *pinned,
                           const struct sbx_sup_plan *sp, const struct sbx_sup_req *req,
                           uint64_t dev, uint64_t ino);
static void guards_finals_first(struct sbx_sup_guards *set);
struct p_reply;
static int guards_apply(struct sbx_sup_guards *guards, struct sbx_sup_guards *pinned,
                        const char *path, size_t index, const struct p_reply *rep,
                        struct sbx_error *err);

/* ---- the performer ---- */

struct slot {
	int dir; /* O_PATH directory holding name; -1: none */
	int obj; /* the object itself, where it has no (dir, name) (a magic link, an fd) */
	char name[P_NAME + 1];
	bool trailing_slash;
	bool empty; /* AT_EMPTY_PATH: obj is the caller's fd itself */
	bool exists;
	mode_t ftype;
	dev_t obj_dev; /* what the final name held when it was decided on */
	ino_t obj_ino;
};

/* A bounded copy that truncates (names are checked against P_NAME where they are made). */
static void set_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void slot_clear(struct slot *s)
{
	if (s->dir >= 0)
		close(s->dir);
	if (s->obj >= 0)
		close(s->obj);
	memset(s, 0, sizeof(*s));
	s->dir = s->obj = -1;
}

static bool is_proc_root(int dir)
{
	struct statfs sf;
	struct stat st;

	return fstatfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC && fstat(dir, &st) == 0 &&
	       st.st_ino == 1;
}

static bool on_proc(int dir)
{
	struct statfs sf;

	return fstatfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* Does this directory compare names folded? Unknown counts as yes (the guard then matches
 * more names, never fewer). */
static bool dir_casefold(int dir)
{
	struct statfs sf;
	long flags = 0;
	int fd;

	if (fstatfs(dir, &sf) < 0)
		return true;
	switch ((unsigned long)sf.f_type) {
	case MSDOS_SUPER_MAGIC:
	case EXFAT_SUPER_MAGIC:
	case 0x5346544e: /* ntfs */
	case 0xFF534D42: /* cifs */
	case 0xFE534D42: /* smb2 */
	case 0x482b:     /* hfsplus */
		return true;
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
		return false;
	default:
		break;
	}
	fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return true;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		flags = (errno == ENOTTY || errno == EOPNOTSUPP || errno == EINVAL)
		            ? 0
		            : FS_CASEFOLD_FL;
	close(fd);
	return (flags & FS_CASEFOLD_FL) != 0;
}

/* The caller's root: the performer's own "/", or the root fd sbx sent for a caller in another
 * mount namespace (its /proc/PID/root). */
static int open_root(int root)
{
	return root >= 0 ? fcntl(root, F_DUPFD_CLOEXEC, 3)
	                 : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static bool same_inode(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int fd_path(int fd, char *out, size_t size);

/*
 * May the performer go through this fd for the caller? Not where it is in another process's
 * /proc/PID: the kernel's ptrace check for /proc/PID/environ, mem, maps, root, fd... is made
 * against the performer, which passes it for its own entries (and for every process with its
 * ids), so /proc/<performer>/environ would hand the caller what it could never read itself.
 * Only the caller's own /proc/TGID (and its threads', /proc/TID) is gone through; procfs
 * elsewhere than at /proc in the performer's view is refused (fail closed).
 */
static int proc_check(int fd, pid_t tgid)
{
	struct statfs sf;
	char p[P_PATH], task[64];
	const char *c;
	char *end;
	long pid;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	if (sf.f_type != PROC_SUPER_MAGIC)
		return 0;
	if (tgid <= 0)
		return P_NEED_IDS;
	if (fd_path(fd, p, sizeof(p)) < 0)
		return -EACCES;
	if (strcmp(p, "/proc") == 0)
		return 0;
	if (strncmp(p, "/proc/", 6) != 0)
		return -EACCES;
	c = p + 6;
	if (*c < '0' || *c > '9')
		return 0; /* /proc/sys, /proc/cpuinfo: no process's */
	pid = strtol(c, &end, 10);
	if (*end != '\0' && *end != '/')
		return 0;
	if (pid == tgid)
		return 0;
	/* one of the caller's threads, by its own number */
	snprintf(task, sizeof(task), "/proc/%d/task/%ld", (int)tgid, pid);
	return faccessat(AT_FDCWD, task, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -EACCES;
}

/* A numeric name in the proc root: the caller's own pid, or one of its threads. */
static int proc_name_check(int cur, const char *comp, pid_t tgid)
{
	char task[64];
	char *end;
	long pid;

	if (comp[0] < '0' || comp[0] > '9' || !is_proc_root(cur))
		return 0;
	pid = strtol(comp, &end, 10);
	if (*end || pid == tgid)
		return 0;
	snprintf(task, sizeof(task), "%d/task/%ld", (int)tgid, pid);
	return faccessat(cur, task, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -EACCES;
}

/*
 * Walk `path` the way the kernel would for the caller, component by component (openat2 is
 * ENOSYS under the main filter), with O_PATH|O_NOFOLLOW opens: every symlink is read and
 * resolved here, at most MAX_LINKS; a symlink in procfs (a magic link: /proc/PID/fd/N, cwd,
 * root) is followed by the kernel, as the caller's own call would; /proc/self and
 * /proc/thread-self name the caller, not the performer. `follow`: a symlink at the final
 * component is followed too. On success the slot holds the directory and the final name.
 */
static int walk(int root, int start, const char *path, bool follow, pid_t tgid, pid_t tid,
                struct slot *out)
{
	_cleanup_close_ int cur = -1;
	char buf[2 * P_PATH + 2], tmp[2 * P_PATH + 2];
	char *rest;
	int links = 0;

	if (strlen(path) >= P_PATH)
		return -ENAMETOOLONG;
	if (!*path)
		return -ENOENT;
	snprintf(buf, sizeof(buf), "%s", path);
	rest = buf;
	cur = path[0] == '/' || start < 0 ? open_root(root) : fcntl(start, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return -errno;
	for (;;) {
		char comp[P_NAME + 16];
		size_t len;
		bool last, slash;
		int nfd;
		struct stat st;

		if (*rest == '/') {
			close(cur);
			cur = open_root(root);
			if (cur < 0)
				return -errno;
			while (*rest == '/')
				rest++;
		}
		len = strcspn(rest, "/");
		if (len > P_NAME - 1)
			return -ENAMETOOLONG;
		memcpy(comp, rest, len);
		comp[len] = '\0';
		rest += len;
		slash = *rest == '/';
		while (*rest == '/')
			rest++;
		last = *rest == '\0';
		if (len == 0) /* "/" itself: the final is the directory */
			snprintf(comp, sizeof(comp), ".");
		{
			/* never through another process's /proc/PID (proc_check) */
			int e = proc_check(cur, tgid);

			if (e == 0)
				e = proc_name_check(cur, comp, tgid);
			if (e < 0)
				return e;
		}
		if ((strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0) &&
		    is_proc_root(cur)) {
			int n = comp[0] == 's'
			            ? snprintf(tmp, sizeof(tmp), "%d/%s", (int)tgid, rest)
			            : snprintf(tmp, sizeof(tmp), "%d/task/%d/%s", (int)tgid,
			                       (int)tid, rest);

			/* never a shorter path than asked: that would name another file */
			if (n < 0 || (size_t)n >= P_PATH)
				return -ENAMETOOLONG;
			if (slash && !*rest)
				strcat(tmp, "/");
			memcpy(buf, tmp, sizeof(buf));
			rest = buf;
			continue;
		}
		if (last && strcmp(comp, "..") == 0) {
			/* the final is the parent directory itself, named "." in it: what a
			 * call on "x/.." acts on, and the path it is decided on */
			int up = root >= 0 && same_inode(cur, root)
			             ? fcntl(cur, F_DUPFD_CLOEXEC, 3)
			             : openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);

			if (up < 0)
				return -errno;
			close(cur);
			out->dir = up;
			set_str(out->name, sizeof(out->name), ".");
			out->trailing_slash = slash;
			return 0;
		}
		if (last && !(follow || slash)) {
			out->dir = TAKE_FD(cur);
			set_str(out->name, sizeof(out->name), comp);
			out->trailing_slash = slash;
			return 0;
		}
		if (strcmp(comp, ".") == 0 && !last)
			continue;
		if (strcmp(comp, "..") == 0 && root >= 0 && same_inode(cur, root)) {
			/* the caller's root: ".." stays there, as the kernel keeps it */
			if (!last)
				continue;
			snprintf(comp, sizeof(comp), ".");
		}
		nfd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			if (errno == ENOENT && last) {
				/* absent: the final name is where it would be made */
				out->dir = TAKE_FD(cur);
				set_str(out->name, sizeof(out->name), comp);
				out->trailing_slash = slash;
				return 0;
			}
			return -errno;
		}
		if (fstat(nfd, &st) < 0) {
			int e = -errno;

			close(nfd);
			return e;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[P_PATH];
			ssize_t tl;

			if (++links > MAX_LINKS) {
				close(nfd);
				return -ELOOP;
			}
			if (on_proc(cur)) {
				/* a magic link: the kernel jumps, in the performer, to the object
				 * the caller's own call would reach */
				int obj = openat(cur, comp, O_PATH | O_CLOEXEC);

				close(nfd);
				if (obj < 0)
					return -errno;
				if (fstat(obj, &st) < 0) {
					int e = -errno;

					close(obj);
					return e;
				}
				if (last && !S_ISDIR(st.st_mode)) {
					int e = proc_check(obj, tgid);

					if (e < 0) {
						close(obj);
						return e;
					}
					out->obj = obj;
					out->dir = TAKE_FD(cur);
					set_str(out->name, sizeof(out->name), comp);
					return 0;
				}
				if (!S_ISDIR(st.st_mode)) {
					close(obj);
					return -ENOTDIR;
				}
				close(cur);
				cur = obj;
				if (last) {
					/* the final is that directory: name it "." in itself */
					int e = proc_check(cur, tgid);

					if (e < 0)
						return e;
					out->dir = TAKE_FD(cur);
					set_str(out->name, sizeof(out->name), ".");
					return 0;
				}
				continue;
			}
			tl = readlinkat(nfd, "", target, sizeof(target));
			close(nfd);
			if (tl < 0)
				return -errno;
			if ((size_t)tl >= sizeof(target))
				return -ENAMETOOLONG;
			target[tl] = '\0';
			if (strlen(target) + 2 + strlen(rest) >= P_PATH)
				return -ENAMETOOLONG;
			snprintf(tmp, sizeof(tmp), "%s%s%s", target,
			         (slash || !last) && *rest ? "/" : (slash ? "/" : ""), rest);
			memcpy(buf, tmp, sizeof(buf));
			rest = buf;
			if (!*rest)
				return -ENOENT;
			continue;
		}
		if (last) {
			close(nfd);
			if (slash && !S_ISDIR(st.st_mode))
				return -ENOTDIR;
			out->dir = TAKE_FD(cur);
			set_str(out->name, sizeof(out->name), comp);
			out->trailing_slash = slash;
			return 0;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(nfd);
			return -ENOTDIR;
		}
		close(cur);
		cur = nfd;
	}
}

/* The directory's absolute path in the performer's (the worker's) view. */
static int fd_path(int fd, char *out, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

/* A directory's path, as fd_path gives it, without going through procfs: getcwd from inside
 * it (the performer's working directory is its root otherwise: nothing it does is relative
 * to it). Where getcwd cannot say (a directory removed, or out of the performer's root),
 * fd_path says what it says. */
static int dir_path(int dir, char *out, size_t size)
{
	bool ok = fchdir(dir) == 0 && getcwd(out, size) && out[0] == '/';

	if (chdir("/") < 0)
		_exit(1); /* nowhere to be: sbx loses its performer and ends the sandbox */
	return ok ? 0 : fd_path(dir, out, size);
}

/* A name whose ASCII letters spell "head" or ".git" in another case, or with other bytes,
 * trailing dots or spaces: the directory's folding decides (src/core/supervise.c). */
static bool may_fold_to_repo_name(const char *name)
{
	char ascii[8];
	size_t n = 0, end = strlen(name);

	if (strcmp(name, "HEAD") == 0)
		return false;
	while (end > 0 && (name[end - 1] == '.' || name[end - 1] == ' '))
		end--;
	for (size_t i = 0; i < end; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= 0x80)
			continue;
		if (n + 1 >= sizeof(ascii))
			return false;
		ascii[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	ascii[n] = '\0';
	return strcmp(ascii, "head") == 0 || strcmp(ascii, ".git") == 0;
}

/* Does `dir` hold what a name made there would complete a git dir with (HEAD beside objects/
 * and refs/, or commondir)? Asked only for those names, in any case (no_new_git). */
static bool git_other(int dir, const char *name)
{
	static const char *const head[] = {"HEAD", NULL};
	static const char *const store[] = {"objects", "commondir", NULL};
	char bare[16];
	size_t n = strlen(name);
	const char *const *look;

	while (n > 0 && (name[n - 1] == '.' || name[n - 1] == ' '))
		n--; /* vfat drops them */
	if (n >= sizeof(bare))
		return false;
	memcpy(bare, name, n);
	bare[n] = '\0';
	look = strcasecmp(bare, "HEAD") == 0                                            ? store
	       : strcasecmp(bare, "objects") == 0 || strcasecmp(bare, "commondir") == 0 ? head
	                                                                                : NULL;

	for (; look && *look; look++)
		if (faccessat(dir, *look, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	return false;
}

static void describe(struct slot *s, struct p_target *t,
                     const struct sbx_sup_guards *const *watched)
{
	struct stat st;
	char dir[P_PATH];

	memset(t, 0, sizeof(*t));
	if (s->obj >= 0) {
		static const char deleted[] = " (deleted)";
		size_t n;
		int e;

		t->is_object = 1;
		t->exists = 1;
		memset(&st, 0, sizeof(st));
		if (fstat(s->obj, &st) == 0) {
			t->ftype = st.st_mode & S_IFMT;
			t->is_dir = S_ISDIR(st.st_mode);
			t->size = (uint64_t)st.st_size;
		}
		/* An object sbx cannot name (its path grew past PATH_MAX by renames above it)
		 * is not decided on: a pipe, a socket, an anonymous inode are named too
		 * ("pipe:[N]"), and only they are served without a decision. */
		if ((e = fd_path(s->obj, t->path, sizeof(t->path))) < 0) {
			t->err = e == -ENAMETOOLONG ? -ENAMETOOLONG : -EACCES;
			snprintf(t->path, sizeof(t->path), "?");
			return;
		}
		/* A file whose name is gone (unlinked while the caller held an fd on it, or
		 * replaced by a rename) is decided on the name it had: the kernel appends
		 * " (deleted)" to it. Only where it has no name left: a name can end so
		 * itself (an outside attack renamed a capped file "x.py (deleted)" and read it
		 * as x.py through /proc/self/fd); where the file has other names, the one
		 * shown may be gone, and it is not decided on. */
		n = strlen(t->path);
		if (t->path[0] == '/' && n > sizeof(deleted) - 1 &&
		    strcmp(t->path + n - (sizeof(deleted) - 1), deleted) == 0) {
			struct stat now;

			if (st.st_nlink == 0 && st.st_ino) {
				t->path[n - (sizeof(deleted) - 1)] = '\0';
			} else if (lstat(t->path, &now) < 0 || now.st_dev != st.st_dev ||
			           now.st_ino != st.st_ino) {
				t->err = -EACCES;
				return;
			}
		}
		set_str(t->name, sizeof(t->name),
		        strrchr(t->path, '/') ? strrchr(t->path, '/') + 1 : t->path);
		return;
	}
	if (fstat(s->dir, &st) < 0) {
		t->err = -errno;
		return;
	}
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	set_str(t->name, sizeof(t->name), s->name);
	if (fstatat(s->dir, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		t->exists = 1;
		t->ftype = st.st_mode & S_IFMT;
		t->is_dir = S_ISDIR(st.st_mode);
		t->size = (uint64_t)st.st_size;
		s->exists = true;
		s->ftype = st.st_mode & S_IFMT;
		s->obj_dev = st.st_dev;
		s->obj_ino = st.st_ino;
	} else if (errno != ENOENT) {
		t->err = -errno;
		return;
	}
	/* folding matters only where a name is watched: asked there alone */
	for (int w = 0; watched && w < 2 && !t->casefold; w++)
		for (size_t i = 0; i < watched[w]->n; i++)
			if (watched[w]->g[i].dev == t->dev && watched[w]->g[i].ino == t->ino) {
				t->casefold = dir_casefold(s->dir);
				break;
			}
	/* and where a folded name could be a repository's (no_new_git: "head", ".GIT") */
	if (!t->casefold && may_fold_to_repo_name(s->name))
		t->casefold = dir_casefold(s->dir);
	t->git_other = git_other(s->dir, s->name);
	if (dir_path(s->dir, dir, sizeof(dir)) < 0) {
		t->err = -EACCES; /* a directory sbx cannot name is not decided on */
		return;
	}
	if (strcmp(s->name, ".") == 0 || strcmp(s->name, "..") == 0)
		snprintf(t->path, sizeof(t->path), "%s", dir);
	else if (snprintf(t->path, sizeof(t->path), "%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
	                  s->name) >= (int)sizeof(t->path))
		t->err = -ENAMETOOLONG;
}

/* A waiting FIFO open's decision, kept until its result is known (fifo_start, fifo_report):
 * the request's strings copied, its views dropped (the audit log does not name them). */
struct fifo_note {
	struct sbx_sup_req req;
	struct sbx_sup_verdict v;
	char comm[32], path[P_PATH], name[P_NAME], asked[P_PATH];
	uint64_t t0, batch_uses;
};

/* The other views of a request's targets (views_fill), kept where the request is decided. */
#define SUP_VIEWS 16
struct views {
	char buf[2][SUP_VIEWS][SBX_PATH_MAX];
	const char *ptr[2][SUP_VIEWS];
};

struct performer {
	int sock;
	const struct sbx_plan *plan;   /* the launch's plan: the views of a path (hide globs) */
	const struct sbx_sup_plan *sp; /* the plan, in the performer's copy of sbx's memory */
	struct sbx_sup_guards guards;  /* copies of sbx's tables, kept the same way */
	struct sbx_sup_guards pinned;
	struct p_req req;
	struct slot side[2];
	int fd_obj;    /* fd-based call: the caller's fd */
	int bind_sock; /* C_BIND with a path: the caller's socket */
	int waiter;    /* P_WAIT: the waiter's pidfd, sent with its socket */
	bool resolved;
	bool probe_create; /* its Landlock domain may let it make a file it may not open (the
	                      landlock backend's carved directories; a sub-performer's layer):
	                      every create is asked of the kernel first (create_allowed) */
	struct p_target
	    last; /* the object as resolved: a mkdir on sbx's word is watched here too */
	struct views views;
};

static void perf_reset(struct performer *p)
{
	slot_clear(&p->side[0]);
	slot_clear(&p->side[1]);
	if (p->fd_obj >= 0)
		close(p->fd_obj);
	p->fd_obj = -1;
	if (p->bind_sock >= 0)
		close(p->bind_sock);
	p->bind_sock = -1;
	p->resolved = false;
}

static bool follows_final(const struct p_req *q, int side)
{
	return q->follow[side] != 0;
}

static void perf_resolve(struct performer *p, const int *fds, size_t nfds, struct p_reply *r)
{
	const struct p_req *q = &p->req;
	const struct sbx_sup_guards *const watched[2] = {&p->guards, &p->pinned};
	size_t k = 0;
	int root = -1; /* the performer's own "/": it serves callers in the worker's mount ns */

	for (uint32_t i = 0; i < q->nsides && i < 2; i++) {
		int dfd = q->has_dirfd[i] && k < nfds ? fds[k++] : -1;
		int e;

		if (q->empty[i]) {
			/* AT_EMPTY_PATH with "": the side is the fd itself */
			p->side[i].obj = dfd;
			p->side[i].empty = true;
			describe(&p->side[i], &r->t[i], NULL);
			continue;
		}
		e = walk(root, dfd, q->path[i], follows_final(q, (int)i), q->tgid, q->tid,
		         &p->side[i]);
		if (dfd >= 0)
			close(dfd);
		if (e == P_NEED_IDS) {
			r->need_ids = 1;
			e = -EACCES; /* never performed, never answered so */
		}
		if (e < 0) {
			r->t[i].err = e;
			continue;
		}
		describe(&p->side[i], &r->t[i], watched);
	}
	if (q->has_sock) {
		p->bind_sock = k < nfds ? fds[k++] : -1;
		if (p->bind_sock < 0)
			r->t[0].err = -EBADF;
	}
	if (q->fd_based) {
		p->fd_obj = k < nfds ? fds[k++] : -1;
		if (p->fd_obj < 0) {
			r->t[0].err = -EBADF;
		} else {
			struct slot s = {.dir = -1, .obj = p->fd_obj};

			describe(&s, &r->t[0], NULL);
		}
	}
	while (k < nfds)
		close(fds[k++]);
	p->resolved = true;
}

static int reopen_obj(int obj, int flags, mode_t mode)
{
	char link[64];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
	return open(link, flags, mode);
}

/* chmod, chown, utimes on what the side resolved, never through a symlink the caller did not
 * ask to follow (a symlink that appeared since is refused: ELOOP). */
static int perform_meta(struct performer *p)
{
	const struct p_req *q = &p->req;
	struct slot *s = &p->side[0];
	const struct timespec *ts = q->times_null ? NULL : q->ts;
	_cleanup_close_ int obj = -1;
	bool nofollow_link = false;
	struct stat st;

	if (q->fd_based) {
		switch (q->call) {
		case C_CHMOD:
			return fchmod(p->fd_obj, q->mode) < 0 ? -errno : 0;
		case C_CHOWN:
			return fchown(p->fd_obj, q->uid, q->gid) < 0 ? -errno : 0;
		case C_RMXATTR:
			return fremovexattr(p->fd_obj, q->text) < 0 ? -errno : 0;
		case C_IOCTL: {
			unsigned int flags = q->ioc_flags;
			struct fsxattr fsx = q->fsx;

			if (q->ioc == (uint32_t)FS_IOC_FSSETXATTR)
				return ioctl(p->fd_obj, FS_IOC_FSSETXATTR, &fsx) < 0 ? -errno : 0;
			return ioctl(p->fd_obj, q->ioc, &flags) < 0 ? -errno : 0;
		}
		default:
			return futimens(p->fd_obj, ts) < 0 ? -errno : 0;
		}
	}
	if (s->obj >= 0)
		obj = fcntl(s->obj, F_DUPFD_CLOEXEC, 3);
	else
		obj = openat(s->dir, s->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (obj < 0)
		return -errno;
	if (fstat(obj, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		/* the caller asked not to follow it (lchown, AT_SYMLINK_NOFOLLOW); a symlink that
		 * replaced a followed name since resolving is refused */
		if (follows_final(q, 0))
			return -ELOOP;
		nofollow_link = true;
	}
	switch (q->call) {
	case C_CHMOD:
		if (nofollow_link)
			return -EOPNOTSUPP;
		if (syscall(__NR_fchmodat2, obj, "", q->mode, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != ENOSYS && errno != EINVAL)
			return -errno;
		{
			char link[64];

			snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
			return chmod(link, q->mode) < 0 ? -errno : 0;
		}
	case C_CHOWN:
		return fchownat(obj, "", q->uid, q->gid, AT_EMPTY_PATH) < 0 ? -errno : 0;
	case C_RMXATTR: {
		char link[64];

		/* a symlink's own attributes: a user's cannot be there (the kernel's EPERM),
		 * and the performer has no capability for the others */
		if (nofollow_link)
			return -EPERM;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", obj);
		return removexattr(link, q->text) < 0 ? -errno : 0;
	}
	default:
		return utimensat(obj, "", ts,
		                 AT_EMPTY_PATH | (nofollow_link ? AT_SYMLINK_NOFOLLOW : 0)) < 0
		           ? -errno
		           : 0;
	}
}

/* Would the caller's open of a FIFO wait for the other end (outside a sandbox)? O_RDWR never
 * waits on Linux; O_NONBLOCK does not wait (a writer fails with ENXIO, as the kernel says). */
static bool fifo_waits(int flags)
{
	int acc = flags & O_ACCMODE;

	return !(flags & (O_NONBLOCK | O_PATH)) && (acc == O_RDONLY || acc == O_WRONLY);
}

/* Close every fd but a and b (the waiter keeps only what it needs). */
static void close_all_but(int a, int b)
{
	unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a);
	const unsigned range[3][2] = {{0, lo - 1}, {lo + 1, hi - 1}, {hi + 1, ~0U}};

	for (int i = 0; i < 3; i++) {
		if ((i == 0 && lo == 0) || range[i][0] > range[i][1])
			continue;
		if (syscall(SYS_close_range, range[i][0], range[i][1], 0) < 0)
			for (unsigned fd = range[i][0]; fd <= range[i][1] && fd < 1024; fd++)
				close((int)fd);
	}
}

/*
 * An open of a FIFO that waits for its other end (a writer for a reader, a reader for a
 * writer), as the kernel makes it wait outside a sandbox, without making the performer wait:
 * it serves every call of the sandbox. `obj` is the FIFO decided on (O_PATH, its identity
 * checked; taken). A waiter, a child of this performer with its rights exactly, opens that
 * same inode again (/proc/self/fd: no name is resolved again) in blocking mode, sends the fd
 * (or the errno) on a socket of its own, closes its copy and exits; this performer returns
 * P_WAIT with that socket and the waiter's pidfd. sbx answers the caller once the waiter has
 * exited (fifo_done), serving other calls in the meantime, and kills the waiter if the caller
 * goes first. No process but the caller may hold the opened file when the caller gets it: a
 * writer's file still open elsewhere after the caller closed its own would let the next
 * reader in, and then give it end of file. sbx bounds the waits (MAX_WAITS, q->may_wait):
 * past it, a writer whose reader is there already is opened here (its file's copy closed
 * at once after the reply), any other open is P_WAIT_FULL.
 */
static int perform_fifo(struct performer *p, int obj, int *fd_out)
{
	const struct p_req *q = &p->req;
	int flags = (q->flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_TRUNC | O_CLOEXEC)) |
	            O_CLOEXEC | O_NOCTTY;
	int sv[2], fd, pidfd;
	pid_t pid;

	if (!q->may_wait) {
		fd = (flags & O_ACCMODE) == O_WRONLY ? reopen_obj(obj, flags | O_NONBLOCK, 0) : -1;
		close(obj);
		if (fd < 0)
			return P_WAIT_FULL;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		*fd_out = fd;
		return 0;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		int e = errno;

		close(obj);
		return -e;
	}
	pid = fork();
	if (pid == 0) {
		int32_t res;

		prctl(PR_SET_NAME, "sbx-fifowait", 0, 0, 0);
		close_all_but(obj, sv[1]);
		fd = reopen_obj(obj, flags, 0);
		res = fd < 0 ? -errno : 0;
		(void)send_fds(sv[1], &res, sizeof(res), &fd, fd >= 0 ? 1 : 0);
		_exit(0); /* its copy closed: sbx answers only after this */
	}
	close(obj);
	close(sv[1]);
	pidfd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	if (pidfd < 0) {
		int e = pid < 0 ? errno : EAGAIN;

		if (pid > 0)
			kill(pid, SIGKILL);
		close(sv[0]);
		return -e;
	}
	*fd_out = sv[0];
	p->waiter = pidfd;
	return P_WAIT;
}

/*
 * Landlock decides the open of a new file only after the kernel made it: in a directory whose
 * rule lets the performer make files but not open them (the landlock backend carves the
 * directories above a hidden path: sbx(1), BACKENDS), openat(O_CREAT) would leave an empty
 * file behind its EACCES, a denied call with an effect. So the kernel is asked first, with a
 * file of no name in that directory (O_TMPFILE, opened as the caller's open would be: the
 * same Landlock check on the same directory's rights, and nothing left when it is closed).
 * O_TMPFILE needs write access: a create for reading only is asked with O_RDWR (a directory
 * that grants reading new files but not writing them is none sbx compiles). Where the file
 * system has no O_TMPFILE (vfat, NFS, ...), the create goes on as before (sbx(1), SECURITY
 * NOTES). 0, or the errno to answer without making anything.
 */
static int create_allowed(const struct performer *p, const struct slot *s, int flags)
{
	int acc = (flags & O_ACCMODE) == O_WRONLY ? O_WRONLY : O_RDWR;
	int fd;

	if (!p->probe_create)
		return 0;
	fd = openat(s->dir, ".", O_TMPFILE | acc | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EACCES || errno == EPERM ? -errno : 0;
}

/*
 * A FIFO on a read-only mount, opened to write: the kernel lets it be (a mount's read-only
 * flag keeps the file system's contents, and a FIFO's data is in no file system), and a host
 * process reading the FIFO (a read-only .git/hooks inside a writable workspace) would get
 * what the worker writes. sbx's read-only mount refuses it as it refuses writing a file
 * there: EROFS. `obj` is the object (O_PATH or not); 0 where it is no such FIFO.
 */
static int fifo_read_only(int obj, int flags)
{
	struct stat st;
	struct statvfs sv;

	if ((flags & O_ACCMODE) == O_RDONLY || (flags & O_PATH))
		return 0;
	if (fstat(obj, &st) < 0)
		return -errno;
	if (!S_ISFIFO(st.st_mode))
		return 0;
	if (fstatvfs(obj, &sv) < 0)
		return -errno;
	return (sv.f_flag & ST_RDONLY) ? -EROFS : 0;
}

static int perform_open(struct performer *p, int *fd_out)
{
	const struct p_req *q = &p->req;
	struct slot *s = &p->side[0];
	int flags = q->flags & ~O_CLOEXEC;
	int fd, e;

	flags |= O_CLOEXEC | O_NOCTTY;
	if (s->obj >= 0 && (e = fifo_read_only(s->obj, q->flags)) < 0)
		return e;
	if (s->obj < 0 && s->exists && s->ftype == S_IFIFO && (q->flags & O_ACCMODE) != O_RDONLY) {
		/* the FIFO decided on (the mount over its name, if one is): checked before any
		 * open, which a reader would see */
		struct stat st;

		fd = openat(s->dir, s->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT || errno == ELOOP ? P_RETRY : -errno;
		e = fstat(fd, &st) < 0 ? -errno
		    : st.st_dev != s->obj_dev || st.st_ino != s->obj_ino
		        ? P_RETRY
		        : fifo_read_only(fd, q->flags);
		close(fd);
		if (e != 0)
			return e;
	}
	if (s->obj >= 0 && fifo_waits(q->flags)) {
		/* a FIFO or a pipe through a magic link: it would wait too */
		struct stat st;

		if (fstat(s->obj, &st) == 0 && S_ISFIFO(st.st_mode)) {
			fd = fcntl(s->obj, F_DUPFD_CLOEXEC, 3);
			return fd < 0 ? -errno : perform_fifo(p, fd, fd_out);
		}
	}
	if (s->exists && s->ftype == S_IFIFO && fifo_waits(q->flags) &&
	    !((q->flags & O_CREAT) && (q->flags & O_EXCL)) && !s->trailing_slash) {
		/* the FIFO decided on, held by its inode from here on */
		struct stat st;

		fd = openat(s->dir, s->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT || errno == ELOOP ? P_RETRY : -errno;
		if (fstat(fd, &st) < 0 || st.st_dev != s->obj_dev || st.st_ino != s->obj_ino ||
		    !S_ISFIFO(st.st_mode)) {
			close(fd);
			return P_RETRY;
		}
		return perform_fifo(p, fd, fd_out);
	}
	if (s->obj >= 0) {
		/* a magic link (/dev/stdout): the object the caller's call reaches, reopened */
		fd = reopen_obj(s->obj, flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW), 0);
		if (fd < 0)
			return -errno;
		*fd_out = fd;
		return 0;
	}
	if (flags & SBX_O_TMPFILE_BIT) {
		fd = openat(s->dir, s->name, flags, q->mode & ~q->umask & 07777);
		if (fd < 0)
			return -errno;
		*fd_out = fd;
		return 0;
	}
	/* "name/" with O_CREAT: the kernel's EISDIR, never a file named "name" */
	if (s->trailing_slash && (flags & O_CREAT))
		return -EISDIR;
	/* The final was resolved here: never through a symlink now. */
	flags |= O_NOFOLLOW;
	if (flags & O_CREAT) {
		if (!s->exists)
			flags |= O_EXCL; /* decided absent: made now, or asked again */
		else if (!(q->flags & O_EXCL))
			flags &= ~O_CREAT; /* decided present: opened, never made */
	}
	if ((flags & O_CREAT) && !s->exists && (e = create_allowed(p, s, flags)) < 0)
		return e;
	/* A FIFO or device would block the performer, which serves every call: opened without
	 * blocking, then given the caller's blocking mode back. */
	if (s->exists && s->ftype != S_IFREG && s->ftype != S_IFDIR)
		flags |= O_NONBLOCK;
	fd = openat(s->dir, s->name, flags, q->mode & ~q->umask & 07777);
	if (fd < 0) {
		if (errno == EEXIST && !(q->flags & O_EXCL) && !s->exists)
			return P_RETRY;
		if (errno == ENOENT && s->exists && (q->flags & O_CREAT))
			return P_RETRY;
		if (errno == ELOOP && !(q->flags & O_NOFOLLOW))
			return P_RETRY; /* a symlink appeared where a name was resolved */
		return -errno;
	}
	if (s->exists) {
		/* the file decided on (its size for read caps, its kind), not one renamed over
		 * its name since: asked again */
		struct stat st;

		if (fstat(fd, &st) < 0 || st.st_dev != s->obj_dev || st.st_ino != s->obj_ino) {
			close(fd);
			return P_RETRY;
		}
	}
	if ((flags & O_NONBLOCK) && !(q->flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*fd_out = fd;
	return 0;
}

/*
 * bind(2): a pathname is made in the directory that was resolved and decided, under its final
 * name, from there (bind takes no dirfd: the performer goes into that directory for the call,
 * and back), with the caller's umask; the kernel makes the name only where none is, without
 * following a symlink. So getsockname(2) gives the final name, not the path the caller gave.
 * Any other address is bound as copied, so that the caller cannot change it after sbx looked.
 */
static int perform_bind(struct performer *p)
{
	const struct p_req *q = &p->req;
	struct slot *a = &p->side[0];
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	_cleanup_close_ int here = -1;
	size_t n;
	int r, e;

	if (q->fd_based)
		return bind(p->fd_obj, (const struct sockaddr *)&q->sa, q->salen) < 0 ? -errno : 0;
	if (a->obj >= 0)
		return -EADDRINUSE; /* a magic link's object: it exists */
	if (a->trailing_slash)
		return -ENOENT; /* as mknod("name/") */
	n = strlen(a->name);
	if (n >= sizeof(un.sun_path))
		return -ENAMETOOLONG;
	memcpy(un.sun_path, a->name, n + 1);
	here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (here < 0 || fchdir(a->dir) < 0)
		return -errno;
	umask(q->umask);
	r = bind(p->bind_sock, (const struct sockaddr *)&un,
	         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1));
	e = errno;
	umask(0);
	if (fchdir(here) < 0)
		_exit(1); /* nowhere to be: sbx loses its performer and ends the sandbox */
	return r < 0 ? -e : 0;
}

static int perform(struct performer *p, struct p_reply *r, int *fd_out)
{
	const struct p_req *q = &p->req;
	struct slot *a = &p->side[0], *b = &p->side[1];
	mode_t mode = q->mode & ~q->umask;

	if (!p->resolved)
		return -EINVAL;
	switch (q->call) {
	case C_OPEN:
		return perform_open(p, fd_out);
	case C_MKDIR:
		if (a->obj >= 0)
			return -EEXIST;
		if (mkdirat(a->dir, a->name, mode & 07777) < 0)
			return -errno;
		{
			struct stat st;

			if (fstatat(a->dir, a->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
				r->new_dev = st.st_dev;
				r->new_ino = st.st_ino;
			}
		}
		return 0;
	case C_MKNOD:
		if (a->obj >= 0)
			return -EEXIST;
		return mknodat(a->dir, a->name, (q->mode & S_IFMT) | (mode & 07777), q->dev) < 0
		           ? -errno
		           : 0;
	case C_SYMLINK:
		if (a->obj >= 0)
			return -EEXIST;
		return symlinkat(q->text, a->dir, a->name) < 0 ? -errno : 0;
	case C_LINK:
		if (b->obj >= 0)
			return -EEXIST;
		if (a->obj >= 0 && a->empty) /* AT_EMPTY_PATH: the kernel's own rules */
			return linkat(a->obj, "", b->dir, b->name, AT_EMPTY_PATH) < 0 ? -errno : 0;
		if (a->obj >= 0) {
			/* a magic link followed (an O_TMPFILE file made visible through
			 * /proc/self/fd/N): the same route, on the object resolved */
			char link[64];

			snprintf(link, sizeof(link), "/proc/self/fd/%d", a->obj);
			return linkat(AT_FDCWD, link, b->dir, b->name, AT_SYMLINK_FOLLOW) < 0
			           ? -errno
			           : 0;
		}
		/* AT_SYMLINK_FOLLOW was done by resolving: the old name is no symlink now */
		return linkat(a->dir, a->name, b->dir, b->name, 0) < 0 ? -errno : 0;
	case C_RENAME: {
		unsigned flags = (unsigned)q->flags;

		if (a->obj >= 0 || b->obj >= 0)
			return -EXDEV;
		if (!(flags & RENAME_EXCHANGE) && !b->exists)
			flags |= RENAME_NOREPLACE; /* decided absent */
		if (syscall(SYS_renameat2, a->dir, a->name, b->dir, b->name, flags) < 0) {
			if (errno == EEXIST && !(q->flags & RENAME_NOREPLACE) && !b->exists)
				return P_RETRY;
			return -errno;
		}
		return 0;
	}
	case C_FALLOC:
		return fallocate(p->fd_obj, q->flags, (off_t)q->dev, (off_t)q->length) < 0 ? -errno
		                                                                           : 0;
	case C_TRUNCATE: {
		_cleanup_close_ int fd = -1;

		/* ftruncate: on the caller's own descriptor, opened for writing */
		if (q->fd_based)
			return ftruncate(p->fd_obj, q->length) < 0 ? -errno : 0;
		fd = a->obj >= 0
		         ? reopen_obj(a->obj, O_WRONLY | O_CLOEXEC | O_NONBLOCK, 0)
		         : openat(a->dir, a->name,
		                  O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return errno == ELOOP ? P_RETRY : -errno;
		return ftruncate(fd, q->length) < 0 ? -errno : 0;
	}
	case C_UNLINK:
		if (a->obj >= 0)
			return -EPERM;
		return unlinkat(a->dir, a->name, q->flags & AT_REMOVEDIR) < 0 ? -errno : 0;
	case C_CHMOD:
	case C_CHOWN:
	case C_UTIMES:
	case C_RMXATTR:
	case C_IOCTL:
		return perform_meta(p);
	case C_BIND:
		return perform_bind(p);
	default:
		return -ENOSYS;
	}
}

/* The protected path's components, from "/": which exist, each with its directory. */
static void perf_guard(const char *path, struct p_reply *r)
{
	_cleanup_close_ int cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char comp[P_NAME];
	uint32_t depth = 0;

	r->n_guard = 0;
	if (cur < 0) {
		r->result = -errno;
		return;
	}
	while (*path && r->n_guard < P_GUARDS) {
		size_t len;
		struct stat st;
		struct slot s = {.dir = -1, .obj = -1};
		int nfd, e;

		while (*path == '/')
			path++;
		len = strcspn(path, "/");
		if (!len)
			break;
		if (len >= sizeof(comp)) {
			r->result = -ENAMETOOLONG;
			return;
		}
		memcpy(comp, path, len);
		comp[len] = '\0';
		path += len;
		if (fstat(cur, &st) < 0) {
			r->result = -errno;
			return;
		}
		r->guard[r->n_guard].dev = st.st_dev;
		r->guard[r->n_guard].ino = st.st_ino;
		r->guard[r->n_guard].depth = depth++;
		/* a protected path that is itself a symbolic link (a linked .git/hooks, a link on
		 * the way to a hooks folder a config names): its name is watched as if absent,
		 * so that, removed, it is not made or renamed over again (a mount cannot hold a
		 * link) */
		while (*path == '/')
			path++;
		if (!*path) {
			struct stat ls;

			if (fstatat(cur, comp, &ls, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(ls.st_mode)) {
				r->guard[r->n_guard++].exists = 0;
				break;
			}
		}
		/* the next directory as the kernel would reach it (symlinks followed) */
		e = walk(-1, cur, comp, true, getpid(), getpid(), &s);
		if (e < 0) {
			r->guard[r->n_guard++].exists = 0;
			break;
		}
		nfd = s.obj >= 0 ? fcntl(s.obj, F_DUPFD_CLOEXEC, 3)
		                 : openat(s.dir, s.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd >= 0 && s.dir >= 0 && s.obj < 0) {
			/* a symlink was followed to another directory: the guard is there */
			struct stat ds;

			if (fstat(s.dir, &ds) == 0) {
				r->guard[r->n_guard].dev = ds.st_dev;
				r->guard[r->n_guard].ino = ds.st_ino;
			}
		}
		slot_clear(&s);
		r->guard[r->n_guard].exists = nfd >= 0;
		r->n_guard++;
		if (nfd < 0)
			break;
		if (fstat(nfd, &st) < 0 || !S_ISDIR(st.st_mode)) {
			close(nfd);
			break;
		}
		{
			struct statx sx;

			if (statx(nfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 &&
			    (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
				r->guard[r->n_guard - 1].mount_root =
				    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
		}
		close(cur);
		cur = nfd;
	}
	r->result = 0;
}

/* The other views of each target's host file, where hide globs or read caps are decided on
 * them: sbx and the performer compute the same from the same plan, so that they decide
 * alike. */
static void views_fill(const struct sbx_plan *plan, const struct sbx_sup_plan *sp,
                       struct sbx_sup_req *req, struct views *v)
{
	struct sbx_sup_target *t[2] = {&req->t, &req->t2};
	bool caps = false;

	/* and where read caps are: they hold at every view of a file too */
	for (size_t i = 0; i < sp->n_areas && !caps; i++)
		caps = sp->areas[i].n_suffixes || sp->areas[i].max_file_bytes;
	if (!sp->n_hide_globs && !(sp->hide_later && sp->n_hide_exact) && !caps)
		return;
	for (int i = 0; i < 2; i++) {
		if (!t[i]->path || t[i]->path[0] != '/')
			continue;
		t[i]->n_views = sbx_sup_views(plan, t[i]->path, v->buf[i], SUP_VIEWS);
		if (t[i]->n_views > SUP_VIEWS) {
			t[i]->views_lost = true;
			t[i]->n_views = SUP_VIEWS;
		}
		for (size_t k = 0; k < t[i]->n_views; k++)
			v->ptr[i][k] = v->buf[i][k];
		t[i]->views = v->ptr[i];
	}
}

/*
 * The common case in one exchange: the performer decides as sbx would (core's
 * sbx_sup_decide on the same plan and copies of the same tables, without the session, which
 * only ever matters for an `ask`) and performs at once where the answer is to perform. Any
 * other answer (a denial, an ask) is left to sbx, which decides again itself and, for an
 * ask, sends P_PERFORM on the broker's word. sbx checks that its own decision agrees with
 * what was performed, and ends the sandbox if it ever did not.
 */
static void perf_fast(struct performer *p, struct p_reply *r, int *fd_out)
{
	const struct p_req *q = &p->req;
	struct sbx_sup_req req;
	struct sbx_sup_verdict v;
	int res;

	for (uint32_t i = 0; i < (q->fd_based ? 1u : q->nsides); i++)
		if (r->t[i].err < 0)
			return;
	memset(&req, 0, sizeof(req));
	req.call = q->call_name;
	req.op = op_for(q->call, q->flags, q->length, &r->t[0], &r->t[1]);
	req_flags(&req, q->call, q->flags);
	fill_target(&req.t, &r->t[0]);
	if (q->nsides == 2)
		fill_target(&req.t2, &r->t[1]);
	views_fill(p->plan, p->sp, &req, &p->views);
	if (!(r->t[0].is_object && r->t[0].path[0] != '/')) {
		if (pinned_in(&p->pinned, p->sp, &req, &v))
			return;
		sbx_sup_decide(p->sp, &p->guards, NULL, &req, &v);
		if (v.answer != SBX_SUP_PERFORM && v.answer != SBX_SUP_CONTINUE)
			return;
	}
	res = perform(p, r, fd_out);
	r->result = res;
	r->performed = 1;
	if (res == 0 && q->call == C_MKDIR)
		guard_mkdir_in(&p->guards, &p->pinned, p->sp, &req, r->new_dev, r->new_ino);
	perf_reset(p);
}

/*
 * P_SUB: a sub-performer for a caller that restricted itself with Landlock (serve_landlock,
 * sub_make): a child of this performer that stacks the caller's ruleset (fds[1]) on what this
 * performer holds, so that it holds the caller's Landlock domain exactly, with this
 * performer's tables, and then serves sbx on a socket of its own (fds[0]). Double-forked as
 * the performer is. Returns 1 in the sub-performer (its socket in *sock; r is its hello, which
 * the loop sends there with *self_pidfd, a pidfd of the sub-performer itself, by which sbx
 * ends it with its sub-sandbox), 0 here with r->result; a ruleset the kernel refuses ends the
 * child before its hello, which sbx reads as no sub-performer.
 */
static int perf_sub(struct performer *p, int *sock, int *fds, size_t *nfds, struct p_reply *r,
                    int *self_pidfd)
{
	pid_t mid;
	int st = 1 << 8;

	if (*nfds != 2) {
		r->result = -EINVAL;
		return 0;
	}
	mid = fork();
	if (mid < 0) {
		r->result = -errno;
		return 0;
	}
	if (mid == 0) {
		pid_t sub = fork();

		if (sub != 0)
			_exit(sub < 0 ? 1 : 0);
		close(*sock);
		if (syscall(__NR_landlock_restrict_self, fds[1], 0) < 0)
			_exit(1);
		close(fds[1]);
		*sock = fds[0];
		*nfds = 0;
		perf_reset(p);
		p->probe_create = true; /* its layer may be carved (create_allowed) */
		/* its name in ps(1) and /proc: told apart from the worker's own performer */
		prctl(PR_SET_NAME, "sbx-subperf", 0, 0, 0);
		memset(r, 0, sizeof(*r));
		r->pid = getpid();
		/* a pidfd of itself for sbx, which ends it with its sub-sandbox (sub_drop) */
		*self_pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		return 1;
	}
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	r->result = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EAGAIN;
	return 0;
}

/*
 * Can a directory let a file be made that cannot then be opened (create_allowed)? Rights add
 * up along the path, so only if some rule grants MAKE_REG without both reading and writing
 * files (the landlock backend's carved directories; a handled right that no rule grants
 * is denied): every other plan makes no probe, and costs nothing.
 */
static bool makes_unopenable(const struct sbx_ll_plan *ll)
{
	uint64_t need = (SBX_LL_FS_READ_FILE | SBX_LL_FS_WRITE_FILE) & ll->handled_fs;

	if (!ll->enabled || !(ll->handled_fs & SBX_LL_FS_MAKE_REG))
		return false;
	for (size_t i = 0; i < ll->n_rules; i++) {
		const struct sbx_ll_rule *r = &ll->rules[i];

		if (!r->hidden && (r->access & SBX_LL_FS_MAKE_REG) && (r->access & need) != need)
			return true;
	}
	return false;
}

__attribute__((noreturn)) static void performer_main(int sock, const struct sbx_plan *plan,
                                                     const struct sbx_sup_plan *sp)
{
	static struct performer p;
	static struct p_reply r;
	static const int ignored[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGPIPE, SIGTSTP,
	                              SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM};

	memset(&p, 0, sizeof(p));
	p.sock = sock;
	p.plan = plan;
	p.sp = sp;
	p.fd_obj = -1;
	p.bind_sock = -1;
	p.waiter = -1;
	p.probe_create = plan->backend_landlock && makes_unopenable(&plan->landlock);
	p.side[0].dir = p.side[0].obj = p.side[1].dir = p.side[1].obj = -1;
	for (size_t i = 0; i < SBX_ARRAY_SIZE(ignored); i++)
		signal(ignored[i], SIG_IGN);
	/* The performer answers sbx alone: not in the worker's process group (a `kill 0` there
	 * must not end it), not dumpable (the worker, same uid, cannot ptrace it or take its
	 * fds through /proc), umask 0 (the caller's is applied to each mode). */
	setpgid(0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	umask(0);
	memset(&r, 0, sizeof(r));
	r.pid = getpid();
	if (send_reply(sock, &r, (const int[2]){-1, -1}) < 0)
		_exit(1);
	for (;;) {
		/* every message into its own buffer: a P_PERFORM must not overwrite the request
		 * it performs (kept from its P_RESOLVE) */
		static struct p_req in;
		int fds[4], out_fd = -1;
		size_t nfds = 4;
		ssize_t n;

		/* the waiters that ended (perform_fifo): never more zombies than waits */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = recv_fds(sock, &in, sizeof(in), fds, &nfds, NULL);
		if (n <= 0)
			_exit(0); /* sbx is gone: nobody to serve */
		/* what was not sent is nothing, not the last request's */
		memset((char *)&in + n, 0, sizeof(in) - (size_t)n);
		in.path[0][P_PATH - 1] = in.path[1][P_PATH - 1] = '\0';
		in.text[P_PATH - 1] = '\0';
		in.call_name[sizeof(in.call_name) - 1] = '\0';
		memset(&r, 0, sizeof(r));
		switch (in.kind) {
		case P_RESOLVE:
			perf_reset(&p);
			p.req = in;
			perf_resolve(&p, fds, nfds, &r);
			p.last = r.t[0];
			nfds = 0;
			if (p.req.fast)
				perf_fast(&p, &r, &out_fd);
			break;
		case P_GUARD_ADD:
			r.result = sbx_sup_guards_add(in.g_pinned ? &p.pinned : &p.guards, in.dev,
			                              in.g_ino, in.path[0], in.g_index, in.g_depth,
			                              in.g_final, NULL);
			guards_finals_first(&p.guards);
			break;
		case P_PERFORM:
			p.req.may_wait = in.may_wait;
			r.result = perform(&p, &r, &out_fd);
			if (r.result == 0 && p.req.call == C_MKDIR) {
				/* the same table as sbx's: it adds the same entry on this result */
				struct sbx_sup_req mk = {.op = SBX_SUP_OP_CREATE, .call = "mkdir"};

				fill_target(&mk.t, &p.last);
				guard_mkdir_in(&p.guards, &p.pinned, p.sp, &mk, r.new_dev,
				               r.new_ino);
			}
			perf_reset(&p);
			break;
		case P_GUARD:
			/* and into its own tables, as sbx puts the reply into its own: where
			 * that fails (a table full), it fails in sbx too, which ends the launch */
			perf_guard(in.path[0], &r);
			(void)guards_apply(&p.guards, &p.pinned, in.path[0], in.g_index, &r, NULL);
			break;
		case P_SUB:
			(void)perf_sub(&p, &sock, fds, &nfds, &r, &out_fd);
			break;
		default:
			r.result = -EINVAL;
		}
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		if (send_reply(sock, &r, (const int[2]){out_fd, out_fd >= 0 ? p.waiter : -1}) < 0)
			_exit(1);
		if (out_fd >= 0)
			close(out_fd);
		if (p.waiter >= 0)
			close(p.waiter);
		p.waiter = -1;
	}
}

/* ---- sbx's side ---- */

/* Whether the callers of one mount namespace and root can reach a directory that holds a
 * protected name (reaches_guard), for one state of the table. */
#define REACH_CACHE 16
struct reach {
	uint64_t mnt, root_dev, root_ino, gen;
	bool valid, reaches;
};

struct sbx_supervisor {
	const struct sbx_plan *plan;
	const struct sbx_sup_plan *sp;
	struct sbx_broker *broker;
	struct sbx_audit *audit;
	bool verbose;
	sbx_sup_event_fn on_event;
	void *event_ctx;

	int chan[2];        /* [0] sbx, [1] the worker: the listener fd one way, sbx's word back */
	int perf[2];        /* [0] sbx, [1] the performer */
	int notify;         /* the listener fd, once the worker sent it */
	struct views views; /* the current request's other views (views_fill) */
	bool started;
	pid_t worker, performer;
	uint64_t worker_mnt, worker_user;
	long worker_filters;
	mode_t worker_umask;
	/* Some process under the listener filter may differ from the worker in what
	 * caller_open reads (another umask, a filter, namespaces: emit_diverge_tests): from
	 * then on every caller's /proc is read. Until then no caller can differ, and none is. */
	bool diverged;

	struct sbx_sup_guards guards;
	uint64_t guards_gen; /* counts additions to `guards`: a cached reach is of one table */
	struct reach reach[REACH_CACHE];
	unsigned reach_next;
	/* The directories that exist at launch on the way to a protected path: none may be
	 * moved away or replaced (then made again without its watch). Checked for renames and
	 * deletions only; chmod or utimes of a workspace must keep working. */
	struct sbx_sup_guards pinned;
	int worker_pidfd;
	struct sbx_sup_session session;
	const char *sandbox_id; /* for the broker's requests; "" until set */
	uint64_t ask_id;
	struct sbx_broker_cancel cancel;  /* fd -1: none */
	struct sbx_audit_fold fold;       /* the decision records' bounds (sbx/audit.h) */
	char pending[SBX_AUDIT_LINE_MAX]; /* the folded record not yet written */
	uint64_t batch_uses; /* the grant that answered the call being served: its uses */
	bool lost;
	struct seccomp_notif *notif;
	struct seccomp_notif_resp *resp;
	size_t notif_size, resp_size;
	struct p_req req;   /* scratch, large */
	struct p_reply rep; /* scratch, large */
	/* The thread groups (sbx's pids) that called landlock_restrict_self: they and their
	 * descendants are narrower. Past MAX_LANDLOCKED every caller is (fail closed). */
	pid_t landlocked[MAX_LANDLOCKED];
	unsigned long long
	    landlocked_start[MAX_LANDLOCKED]; /* its start time (landlocked_reclaim) */
	size_t n_landlocked;
	bool landlocked_full;
	/* Sub-performers (sub_make): one per thread group of the worker's namespaces that
	 * restricted itself with Landlock, holding its domain; tgid 0: a free slot. */
	struct sub_perf {
		pid_t tgid;
		int pidfd, sock;
		int self; /* the sub-performer's own pidfd (-1: none): ended with the slot */
		/* a slot kept free for the first domain stacked on this one (sub_room) */
		bool spare;
	} subs[MAX_SUBS];
	size_t n_subs;
	size_t n_spares; /* slots kept free: n_subs + n_spares <= MAX_SUBS */
	/* What ends while nothing is asked: the recorded processes of the sub-performers
	 * (their slots are dropped at once, and the sub-performers ended). epoll, one entry
	 * in sbx's poll loop (sbx_supervisor_pollfd); -1 before the start. */
	int ep;
	/* Opens of a FIFO that wait for their other end (perform_fifo): each in a waiter of
	 * the performer that served it, answered when the waiter sends the fd (fifo_done),
	 * dropped with the waiter killed when the caller's thread ends first; sock -1: free. */
	struct fifo_wait {
		uint64_t id; /* the notification, answered later */
		pid_t tid;
		int sock;   /* the waiter's answer comes here */
		int waiter; /* the waiter's pidfd, watched: its exit brings the answer */
		int caller; /* the calling thread's pidfd */
		bool cloexec;
		struct fifo_note *note; /* its decision, recorded with the result (NULL: none) */
	} waits[MAX_WAITS];
	size_t n_waits;
	int extra_fd; /* a reply's second fd (P_WAIT: the waiter's pidfd); -1: none */
	int via; /* the performer perf_call talks to: -1 the worker's own, else a sub's socket */
	/* Child subreapers adopt orphans, whose line up to their domain's record may then skip
	 * a record (sub_lookup): those that ever said so, fail closed past the cap. */
	pid_t subreapers[MAX_SUBREAPERS];
	size_t n_subreapers;
	bool subreapers_full;
	/* clone(CLONE_PARENT) (or clone3, whose flags sbx cannot trust) by a thread group that
	 * restricted itself: the child's parent is its maker's parent, so its PPid line skips
	 * the record of its domain. That parent's children started since (its `since`, clock
	 * ticks after boot, as /proc/PID/stat's start times) are of unknown domain
	 * (serve_clone_parent, adopted); past MAX_ADOPTERS live ones, every caller is. */
	struct adopter {
		pid_t pid;
		unsigned long long start, since;
	} adopters[MAX_ADOPTERS];
	size_t n_adopters;
	/* Questions pending (os/askq.h): the broker's thread asks them one at a time while
	 * this loop serves every other call; each question keeps the calls that wait for its
	 * answer (the one that asked, and those that joined it: sbx_sup_qkey_joins), answered
	 * when it comes (questions_answer). id 0: a free slot; q -1: a free kept call. */
	struct sbx_askq *askq;
	struct question {
		uint64_t id;
		struct sbx_sup_qkey key;
		struct req_copy *rc; /* the request asked: its answer is recorded for it */
		size_t n_kept;
		int prov1; /* a provisional file's held question: its slot + 1; 0: none */
	} qs[SBX_SUP_PENDING_MAX];
	/* Provisional files (include/sbx/sup_pending.h): made without a question, asked for
	 * when their time is up unless a rename or unlink ended them first. */
	struct prov {
		bool used, made;
		int dfd;                  /* its directory, opened by sbx on the host's side */
		int procdir;              /* its creator's /proc entry, for the question */
		uint64_t ddev, dino;      /* the directory's identity (the sandbox's view) */
		uint64_t fdev, fino;      /* the file's */
		uint64_t due_ms;          /* monotonic: its question is asked then */
		uint64_t qid;             /* its question once asked; 0: held */
		uint64_t t0;              /* the create's time, for the latency */
		struct req_copy *rc;      /* the create as it asked */
		struct sbx_sup_verdict v; /* its verdict as it asked (ASK) */
		char name[P_NAME];
	} prov[SBX_SUP_PROVISIONAL_MAX];
	size_t n_prov;
	int prov_timer; /* timerfd: the next due (-1 before the first) */
	int prov_next;  /* the slot reserved for the create being served; -1: none */
	int prov_hit;   /* the slot the call being served names at t; -1: none */
	struct kept {
		int q;
		bool first;  /* the call that asked (the others joined) */
		pid_t tid;   /* its thread: a thread has one call at a time */
		int pidfd;   /* the thread's, watched: its end frees the call */
		uint64_t t0; /* when it came, for the latency */
		struct seccomp_notif *notif;
	} kept[MAX_KEPT];
	size_t n_kept;
	/* The landlock backend's allowlist (serve_connect): the proxy and its ports. */
	struct sbx_netproxy *proxy;
	unsigned net_ports[SBX_NETLL_MAX_PORTS];
	size_t n_net_ports;
};

void sbx_supervisor_set_cancel(struct sbx_supervisor *s, const struct sbx_broker_cancel *c)
{
	s->cancel = *c;
}

void sbx_supervisor_on_event(struct sbx_supervisor *s, sbx_sup_event_fn fn, void *ctx)
{
	s->on_event = fn;
	s->event_ctx = ctx;
}

void sbx_supervisor_set_net(struct sbx_supervisor *s, struct sbx_netproxy *proxy,
                            unsigned http_port, unsigned socks_port)
{
	s->proxy = proxy;
	s->net_ports[0] = http_port;
	s->net_ports[1] = socks_port;
	s->n_net_ports = 2;
}

void sbx_supervisor_set_id(struct sbx_supervisor *s, const char *sandbox_id)
{
	s->sandbox_id = sandbox_id;
}

void sbx_supervisor_counts(const struct sbx_supervisor *s, uint64_t *asked, uint64_t *allowed,
                           uint64_t *denied, const char **killed)
{
	/* the questions put to a broker and its answers (sbx(1), AUDIT LOG), not every decision:
	 * a timeout, a broker's failure or a malformed answer is a denial */
	*asked = s->session.n_asked;
	*allowed = s->session.n_allowed;
	*denied = s->session.n_denied;
	*killed = s->lost ? "supervisor lost" : NULL;
}

int sbx_supervisor_new(const struct sbx_plan *plan, struct sbx_broker *broker,
                       struct sbx_audit *audit, bool verbose, struct sbx_supervisor **out,
                       struct sbx_error *err)
{
	struct sbx_supervisor *s = calloc(1, sizeof(*s));
	struct utsname u;
	int major = 0, minor = 0;

	if (!s)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	s->plan = plan;
	s->sp = &plan->sup;
	s->broker = broker;
	s->audit = audit;
	s->verbose = verbose;
	s->sandbox_id = "";
	s->chan[0] = s->chan[1] = s->perf[0] = s->perf[1] = s->notify = s->worker_pidfd = -1;
	s->ep = s->extra_fd = -1;
	for (size_t i = 0; i < MAX_WAITS; i++)
		s->waits[i] = (struct fifo_wait){0, 0, -1, -1, -1, false, NULL};
	s->cancel.fd = -1;
	s->via = -1;
	for (size_t i = 0; i < MAX_KEPT; i++)
		s->kept[i] = (struct kept){.q = -1, .pidfd = -1};
	for (size_t i = 0; i < SBX_SUP_PROVISIONAL_MAX; i++)
		s->prov[i].dfd = s->prov[i].procdir = -1;
	s->prov_timer = s->prov_next = s->prov_hit = -1;
	/* The listener filter's flags need Linux 5.19 (WAIT_KILLABLE_RECV): refused before
	 * anything starts, so that --best-effort can still run without the supervisor. The
	 * kernel's own answer comes when the worker installs it. */
	if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	    (major < 5 || (major == 5 && minor < 19))) {
		free(s);
		sbx_error_set(err, SBX_ERR_UNSUPPORTED, ENOSYS,
		              "the supervisor needs Linux 5.19 or later (seccomp user notification "
		              "with WAIT_KILLABLE_RECV); this kernel is %s",
		              u.release);
		sbx_error_hint(err, "upgrade the kernel, or pass --best-effort to run without the "
		                    "supervisor (its protections then do not hold)");
		return -ENOSYS;
	}
	*out = s;
	return 0;
}

static void fifo_end(struct sbx_supervisor *s, int k);
static void questions_end(struct sbx_supervisor *s);

void sbx_supervisor_free(struct sbx_supervisor *s)
{
	if (!s)
		return;
	questions_end(s);
	for (int i = 0; i < 2; i++) {
		sbx_closep(&s->chan[i]);
		sbx_closep(&s->perf[i]);
	}
	sbx_closep(&s->notify);
	for (size_t i = 0; i < MAX_SUBS; i++)
		if (s->subs[i].tgid) {
			sbx_closep(&s->subs[i].sock);
			sbx_closep(&s->subs[i].pidfd);
			sbx_closep(&s->subs[i].self);
		}
	for (size_t i = 0; i < MAX_WAITS; i++) {
		free(s->waits[i].note); /* recorded by sbx_supervisor_flush, or never */
		s->waits[i].note = NULL;
		if (s->waits[i].sock >= 0)
			fifo_end(s, (int)i);
	}
	sbx_closep(&s->extra_fd);
	sbx_closep(&s->ep);
	sbx_sup_guards_clear(&s->guards);
	sbx_sup_guards_clear(&s->pinned);
	sbx_closep(&s->worker_pidfd);
	sbx_sup_session_clear(&s->session);
	free(s->notif);
	free(s->resp);
	free(s);
}

int sbx_supervisor_prepare(struct sbx_supervisor *s, struct sbx_error *err)
{
	int one = 1;

	/* SEQPACKET: one message each way, whole or not at all; close-on-exec everywhere */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->chan) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->perf) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the supervisor's sockets: %s", strerror(errno));
	/* the kernel tells sbx who sent what, in sbx's pid namespace */
	if (setsockopt(s->chan[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    setsockopt(s->perf[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "SO_PASSCRED: %s", strerror(errno));
	return 0;
}

void sbx_supervisor_parent_close(struct sbx_supervisor *s)
{
	sbx_closep(&s->chan[1]);
	sbx_closep(&s->perf[1]);
	s->chan[1] = s->perf[1] = -1;
}

void sbx_supervisor_child_close(struct sbx_supervisor *s)
{
	for (int i = 0; i < 2; i++) {
		sbx_closep(&s->chan[i]);
		sbx_closep(&s->perf[i]);
		s->chan[i] = s->perf[i] = -1;
	}
}

/* ---- the worker's part ---- */

/* fork(2) without glibc's handlers: the worker may be a vfork child, sharing init's memory */
static pid_t raw_fork(unsigned long flags)
{
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

/* The performer's start, in the child: nothing of the worker's but its socket to sbx. */
__attribute__((noreturn)) static void performer_child(struct sbx_supervisor *s)
{
	int sock = s->perf[1];

	if (sock != 3) {
		if (dup2(sock, 3) < 0)
			_exit(1);
		sock = 3;
	}
	if (syscall(SYS_close_range, 4, ~0U, 0) < 0)
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	for (int fd = 0; fd < 3; fd++)
		close(fd);
	fcntl(sock, F_SETFD, FD_CLOEXEC);
	performer_main(sock, s->plan, s->sp);
}

int sbx_supervisor_arm(struct sbx_supervisor *s, struct sbx_error *err)
{
	struct bpf_buf b;
	struct sock_fprog prog;
	pid_t perf;
	int listener, r;
	char go;

	r = build_filter(s->sp->families, &b, err);
	if (r < 0)
		return r;
	private_learn(s->plan);
	SBX_TRACE("worker: listener filter built");
	sbx_closep(&s->chan[0]);
	sbx_closep(&s->perf[0]);
	s->chan[0] = s->perf[0] = -1;

	/* The performer: after Landlock and the main filter (the worker's rights exactly),
	 * before the listener filter (its own calls are never sent to sbx). */
	/* The worker's sibling, not its child (CLONE_PARENT): the worker must not have a child
	 * it did not make (a program that waits for every child of its own would wait for the
	 * performer forever); the performer is init's (or, under the landlock backend, the
	 * host's reaper's), which reaps it, and ends when sbx's end of its socket closes. One
	 * raw clone: the worker may be a vfork child, whose glibc fork would write init's
	 * memory. Where a filter above sbx refuses CLONE_PARENT, a child that makes the
	 * performer and ends, as before. */
	perf = raw_fork(CLONE_PARENT);
	if (perf < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSYS)) {
		int st;

		perf = raw_fork(0);
		if (perf == 0) {
			pid_t p = raw_fork(0);

			if (p != 0)
				_exit(p < 0 ? 1 : 0);
			performer_child(s);
		}
		while (perf > 0 && waitpid(perf, &st, 0) < 0)
			if (errno != EINTR)
				return sbx_error_set(err, SBX_ERR_SETUP, errno,
				                     "cannot start the supervisor's performer: %s",
				                     strerror(errno));
		if (perf > 0 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
			return sbx_error_set(err, SBX_ERR_SETUP, EAGAIN,
			                     "cannot start the supervisor's performer");
	}
	if (perf < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot start the supervisor's performer: %s",
		                     strerror(errno));
	if (perf == 0)
		performer_child(s);
	sbx_closep(&s->perf[1]);
	s->perf[1] = -1;
	SBX_TRACE("worker: performer forked");

	prog.len = (unsigned short)b.n;
	prog.filter = b.insn;
	listener = sup_seccomp(
	    SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (listener < 0) {
		int e = errno;

		if (e == EBUSY) {
			sbx_error_set(err, SBX_ERR_SETUP, e,
			              "the supervisor cannot listen here: a seccomp filter above "
			              "sbx already has a listener (a supervised parent sandbox?)");
			sbx_error_hint(err, "run without what needs supervision, or pass "
			                    "--best-effort");
			return -e;
		}
		sbx_error_set(err, SBX_ERR_SETUP, e,
		              "the supervisor's filter cannot be installed: %s (seccomp user "
		              "notification with WAIT_KILLABLE_RECV needs Linux 5.19 or later)",
		              strerror(e));
		sbx_error_hint(err, "upgrade the kernel, or pass --best-effort to run without the "
		                    "supervisor");
		return -e;
	}
	SBX_TRACE("worker: listener installed");
	/* to sbx, which is outside everything; then no copy of it stays here */
	{
		struct listen_msg m = {'L', n_private_devs, {0}};

		memcpy(m.devs, private_devs, sizeof(m.devs));
		r = send_fds(s->chan[1], &m, sizeof(m), &listener, 1);
	}
	close(listener);
	if (r < 0) {
		return sbx_error_set(err, SBX_ERR_SETUP, -r,
		                     "cannot hand the supervisor its listener: %s", strerror(-r));
	}
	/* sbx learns what the worker is (its pidfd, filters, umask and namespaces) before the
	 * worker runs on: EOF means sbx refused (it has the report) or is gone. The table of
	 * protected names is filled after the word, before sbx serves the first call: every
	 * call the filter sends waits in the listener till then. */
	do
		r = (int)read(s->chan[1], &go, 1);
	while (r < 0 && errno == EINTR);
	sbx_closep(&s->chan[1]);
	s->chan[1] = -1;
	if (r != 1 || go != 'g') {
		return sbx_error_set(err, SBX_ERR_SETUP, EPIPE,
		                     "the supervisor did not start the sandbox");
	}
	return 0;
}

/* ---- sbx: starting ---- */

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* An exchange with the performer (a request, then its reply), bounded in time: a
 * performer that does not answer (the worker stopped it) is lost. */
static int perf_send(struct sbx_supervisor *s, const struct p_req *q, const int *fds, size_t nfds)
{
	int sock = s->via >= 0 ? s->via : s->perf[0]; /* a sub-performer (sub_make) */

	return send_fds(sock, q, p_req_len(q), fds, nfds) < 0 ? -EPIPE : 0;
}

static int perf_recv(struct sbx_supervisor *s, int *fd_out)
{
	static char wire[sizeof(struct p_reply)];
	int sock = s->via >= 0 ? s->via : s->perf[0];
	struct pollfd p = {sock, POLLIN, 0};
	int got[4], r;
	size_t n = 4;
	ssize_t len;

	do
		r = poll(&p, 1, PERF_WAIT_S * 1000);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -ETIMEDOUT;
	len = recv_fds(sock, wire, sizeof(wire), got, &n, NULL);
	if (len <= 0)
		return -EPIPE;
	if (!unpack_reply(wire, (size_t)len, &s->rep)) {
		for (size_t i = 0; i < n; i++)
			close(got[i]);
		return -EPIPE;
	}
	sbx_closep(&s->extra_fd);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 && fd_out && s->rep.has_fd)
			*fd_out = got[i];
		else if (i == 1 && fd_out && s->rep.has_fd == 2)
			s->extra_fd = got[i];
		else
			close(got[i]);
	}
	return 0;
}

static int perf_call(struct sbx_supervisor *s, const struct p_req *q, const int *fds, size_t nfds,
                     int *fd_out)
{
	int r = perf_send(s, q, fds, nfds);

	return r < 0 ? r : perf_recv(s, fd_out);
}

/* The n-th component (0: the first below "/") of path into out; false if none. */
static bool component(const char *path, size_t n, char *out, size_t size)
{
	const char *c = path;
	size_t len = 0;

	for (size_t k = 0;; k++) {
		while (*c == '/')
			c++;
		len = strcspn(c, "/");
		if (!len)
			return false;
		if (k == n)
			break;
		c += len;
	}
	if (len >= size)
		return false;
	memcpy(out, c, len);
	out[len] = '\0';
	return true;
}

static size_t components(const char *path)
{
	size_t n = 0;

	while (*path) {
		while (*path == '/')
			path++;
		if (*path) {
			n++;
			path += strcspn(path, "/");
		}
	}
	return n;
}

/* A name can be watched as a protected path itself and as a directory on the way to a
 * longer one (.git and .git/hooks): the final watch must be the one found first
 * (sbx_sup_guards_find returns the first match), so finals go first. */
static int guard_cmp(const void *a, const void *b)
{
	const struct sbx_sup_guard *x = a, *y = b;

	return (int)y->final - (int)x->final;
}

static void guards_finals_first(struct sbx_sup_guards *set)
{
	if (set->n > 1)
		qsort(set->g, set->n, sizeof(set->g[0]), guard_cmp);
}

/*
 * A protected path's nearest existing ancestor and the next component: that name is watched
 * (sbx_sup_guards, depth = the component's index below "/"). Every directory that exists on
 * the way is pinned: it cannot be moved away or replaced and made again without its watch.
 * A protected path that exists whole is the mounts' and Landlock's to protect.
 */
/* A P_GUARD reply for protected path `index` into the tables: the directories on its way
 * that exist (pinned) and the first absent name with what follows (guards). sbx and the
 * performer each apply the same replies in the same order, so their tables are the same. */
static int guards_apply(struct sbx_sup_guards *guards, struct sbx_sup_guards *pinned,
                        const char *path, size_t index, const struct p_reply *rep,
                        struct sbx_error *err)
{
	size_t ncomp = components(path);

	if (rep->result < 0 || rep->n_guard == 0 || rep->n_guard > P_GUARDS ||
	    rep->guard[rep->n_guard - 1].exists)
		return 0;
	for (uint32_t g = 0; g < rep->n_guard; g++) {
		char comp[P_NAME];
		bool missing = !rep->guard[g].exists;
		int r;

		if (!component(path, rep->guard[g].depth, comp, sizeof(comp)))
			break;
		if (!missing && rep->guard[g].mount_root)
			continue; /* a mount point: the kernel refuses to move it (EBUSY) */
		r = sbx_sup_guards_add(missing ? guards : pinned, rep->guard[g].dev,
		                       rep->guard[g].ino, comp, index, rep->guard[g].depth,
		                       rep->guard[g].depth + 1 == ncomp, err);
		if (r < 0)
			return r;
	}
	guards_finals_first(guards);
	return 0;
}

/* The tables, from the performer's view of each protected path. The requests go out a
 * window at a time before their replies are read: a launch waits for one exchange a window,
 * not one a path. The performer puts each reply into its own tables too. */
#define GUARD_WINDOW 8
static int fill_guards(struct sbx_supervisor *s, struct sbx_error *err)
{
	for (size_t base = 0; base < s->sp->n_protected; base += GUARD_WINDOW) {
		size_t end = base + GUARD_WINDOW < s->sp->n_protected ? base + GUARD_WINDOW
		                                                      : s->sp->n_protected;
		bool sent[GUARD_WINDOW] = {false};

		for (size_t i = base; i < end; i++) {
			const char *path = s->sp->protected_paths[i].path;

			memset(&s->req, 0, sizeof(s->req));
			s->req.kind = P_GUARD;
			s->req.g_index = (uint32_t)i;
			if (!path || path[0] != '/' ||
			    snprintf(s->req.path[0], P_PATH, "%s", path) >= P_PATH)
				continue;
			if (perf_send(s, &s->req, NULL, 0) < 0)
				return -EPIPE; /* gone: start() says so */
			sent[i - base] = true;
		}
		for (size_t i = base; i < end; i++) {
			int r;

			if (!sent[i - base])
				continue;
			r = perf_recv(s, NULL);
			if (r < 0)
				return -EPIPE; /* gone or stopped: start() says so */
			r = guards_apply(&s->guards, &s->pinned, s->sp->protected_paths[i].path, i,
			                 &s->rep, err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static long status_field(const char *status, const char *key)
{
	const char *p = strstr(status, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int read_at(int dir, const char *name, char *buf, size_t size)
{
	_cleanup_close_ int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static uint64_t ns_ino(int procdir, const char *ns)
{
	struct stat st;

	return fstatat(procdir, ns, &st, 0) == 0 ? (uint64_t)st.st_ino : 0;
}

static int nspid_depth(const char *status)
{
	const char *p = strstr(status, "\nNSpid:");
	int n = 0;

	if (!p)
		return 1;
	p += 7;
	while (*p && *p != '\n') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p >= '0' && *p <= '9') {
			n++;
			while (*p >= '0' && *p <= '9')
				p++;
		} else if (*p && *p != '\n') {
			p++;
		}
	}
	return n ? n : 1;
}

/* The idx-th (0-based) number of a NSpid/NStgid line. */
static long ns_field(const char *status, const char *key, int idx)
{
	const char *p = strstr(status, key);

	if (!p)
		return -1;
	p += strlen(key);
	for (int i = 0;; i++) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			return -1;
		if (i == idx)
			return v;
		p = end;
	}
}

#define START_LOST 1 /* the performer gone after the worker was let go */

/* The worker sent its listener fd: learn its baseline, let it go, fill the guard table.
 * Returns 0, START_LOST, or a negative errno with err set. */
static int start(struct sbx_supervisor *s, struct sbx_error *err)
{
	int fds[1];
	size_t n = 1;
	char path[64], status[4096];
	struct listen_msg m = {0};
	pid_t worker = 0, perf = 0;
	ssize_t len = recv_fds(s->chan[0], &m, sizeof(m), fds, &n, &worker);
	_cleanup_close_ int procdir = -1;
	__u64 sync_flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	int r;

	if (len <= 0 || n != 1) {
		/* the worker failed before (its report is on the error pipe) */
		if (n == 1)
			close(fds[0]);
		sbx_closep(&s->chan[0]);
		s->chan[0] = -1;
		return 0;
	}
	s->notify = fds[0];
	s->worker = worker;
	/* what the worker learnt before it ran anything of the caller's (private_learn) */
	if ((size_t)len != sizeof(m) || m.tag != 'L' || m.n_devs > MAX_PRIVATE_DEVS)
		return sbx_error_set(err, SBX_ERR_SETUP, EPROTO,
		                     "the supervisor got a malformed word from the worker");
	memcpy(private_devs, m.devs, sizeof(private_devs));
	n_private_devs = m.n_devs;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "the supervisor's epoll: %s",
		                     strerror(errno));
	{
		/* the kernel's sizes: a newer kernel's structs may be larger than ours */
		struct seccomp_notif_sizes sizes;

		if (sup_seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "the supervisor cannot size its notifications: %s",
			                     strerror(errno));
		s->notif_size = sizes.seccomp_notif > sizeof(*s->notif) ? sizes.seccomp_notif
		                                                        : sizeof(*s->notif);
		s->resp_size = sizes.seccomp_notif_resp > sizeof(*s->resp)
		                   ? sizes.seccomp_notif_resp
		                   : sizeof(*s->resp);
		s->notif = calloc(1, s->notif_size);
		s->resp = calloc(1, s->resp_size);
		if (!s->notif || !s->resp)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	/* the worker cannot end before sbx's word (it waits for it), so its pid is its own */
	s->worker_pidfd = (int)syscall(SYS_pidfd_open, worker, 0);
	if (s->worker_pidfd < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "the supervisor cannot watch the worker: %s", strerror(errno));
	/* the kernel's synchronous wake-up: the worker's and sbx's CPUs hand over directly
	 * (6.6+); older kernels say EINVAL, which changes only the cost */
	if (ioctl(s->notify, SECCOMP_IOCTL_NOTIF_SET_FLAGS, sync_flags) < 0 && errno != EINVAL)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "the supervisor's listener: %s",
		                     strerror(errno));
	/* what a caller with the worker's rights looks like */
	snprintf(path, sizeof(path), "/proc/%d", (int)worker);
	procdir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (procdir < 0 || read_at(procdir, "status", status, sizeof(status)) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "the supervisor cannot read the worker's status");
	s->worker_filters = status_field(status, "Seccomp_filters:");
	s->worker_umask =
	    (mode_t)strtol(strstr(status, "Umask:") ? strstr(status, "Umask:") + 6 : "-1", NULL, 8);
	s->worker_mnt = ns_ino(procdir, "ns/mnt");
	s->worker_user = ns_ino(procdir, "ns/user");
	if (s->worker_filters < 1 || !s->worker_mnt || !s->worker_user || s->worker_umask > 0777)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "the supervisor cannot learn the worker's namespaces and "
		                     "filters");
	/* The worker may go on now: what it is was read while it waited, and no call of its
	 * that the filter sends is served before the table below is whole (this function
	 * returns first; a failure ends the sandbox). Its exec no longer waits for the
	 * performer's hello and the table's exchange. */
	if (write(s->chan[0], "g", 1) != 1)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot start the supervised worker: %s", strerror(errno));
	sbx_closep(&s->chan[0]);
	s->chan[0] = -1;
	/* the performer said hello first, before anything else could be sent; the worker runs
	 * meanwhile, and may have killed or stopped it: then it is lost, as later */
	{
		static char wire[sizeof(struct p_reply)];
		struct pollfd p = {s->perf[0], POLLIN, 0};
		ssize_t got;

		n = 0;
		if (poll(&p, 1, PERF_WAIT_S * 1000) <= 0 ||
		    (got = recv_fds(s->perf[0], wire, sizeof(wire), NULL, &n, &perf)) <= 0 ||
		    !unpack_reply(wire, (size_t)got, &s->rep))
			return START_LOST;
		s->performer = perf;
	}
	r = fill_guards(s, err);
	if (r == -EPIPE)
		return START_LOST;
	if (r < 0)
		return r;
	s->started = true;
	return 0;
}

void sbx_supervisor_pollfd(const struct sbx_supervisor *s, struct pollfd *p)
{
	p[0] = (struct pollfd){s->chan[0], POLLIN, 0};
	p[1] = (struct pollfd){s->notify, POLLIN, 0};
	p[2] = (struct pollfd){s->started ? s->perf[0] : -1, POLLIN, 0};
	p[3] = (struct pollfd){s->started ? s->ep : -1, POLLIN, 0};
}

/* ---- sbx: one notification ---- */

struct caller {
	pid_t pid;   /* the thread, in sbx's pid namespace */
	pid_t tgid;  /* its thread group, in sbx's pid namespace: a once-grant's holder */
	int procdir; /* /proc/PID, checked valid */
	int pidfd;
	mode_t umask;
	bool narrower;
	bool other_ns;         /* another mount or user namespace */
	pid_t tgid_ns, tid_ns; /* its own /proc/self */
	char comm[32];
	bool ids; /* tgid, tgid_ns, tid_ns and comm are read (caller_ids); procdir is open */
};

static int notif_valid(struct sbx_supervisor *s)
{
	__u64 id = s->notif->id;

	return ioctl(s->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 ? 0 : -ENOENT;
}

/* A NUL-terminated string from the caller's memory, page by page (a string that ends near
 * an unmapped page must not fail), at most P_PATH bytes. */
static int read_string(pid_t pid, uint64_t addr, char *out, size_t size)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < size) {
		size_t page = 4096 - ((addr + got) & 4095);
		size_t want = page < size - got ? page : size - got;
		struct iovec local = {out + got, want};
		struct iovec remote = {(void *)(uintptr_t)(addr + got), want};
		ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		void *nul;

		if (n <= 0)
			return n < 0 && errno != EFAULT ? -errno : -EFAULT;
		nul = memchr(out + got, '\0', (size_t)n);
		if (nul)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int read_mem(pid_t pid, uint64_t addr, void *out, size_t size)
{
	struct iovec local = {out, size};
	struct iovec remote = {(void *)(uintptr_t)addr, size};
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return errno == EFAULT ? -EFAULT : -errno;
	return (size_t)n == size ? 0 : -EFAULT;
}

static void respond(struct sbx_supervisor *s, int error, bool cont);
static void report(struct sbx_supervisor *s, const struct sbx_sup_req *req,
                   const struct sbx_sup_verdict *v, const char *asked, int errnum, uint64_t t0,
                   bool noteworthy);

static bool landlocked_in(const struct sbx_supervisor *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_landlocked; i++)
		if (s->landlocked[i] == pid)
			return true;
	return false;
}

static unsigned long long start_time(pid_t pid);
static bool subreaper_in(const struct sbx_supervisor *s, pid_t pid);

/* May `child`, a child of `parent`, have been made by clone(CLONE_PARENT) in a thread group
 * that restricted itself (serve_clone_parent)? Then its domain is not its line's: it started
 * after such a clone stopped here (or its start time cannot be read). */
static bool adopted(const struct sbx_supervisor *s, pid_t parent, pid_t child)
{
	for (size_t i = 0; i < s->n_adopters; i++) {
		if (s->adopters[i].pid == parent) {
			unsigned long long st = start_time(child);

			return !st || st >= s->adopters[i].since;
		}
	}
	return false;
}

/* A process's parent (sbx's pids), from /proc/PID/stat; -1 when it cannot be read. */
static pid_t parent_of(pid_t pid)
{
	char path[64], stat[1024];
	const char *p;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, stat, sizeof(stat) - 1);
	if (n <= 0)
		return -1;
	stat[n] = '\0';
	p = strrchr(stat, ')'); /* the name may hold anything, but not after its last ')' */
	if (!p || strlen(p) < 5)
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10); /* ") S PPID" */
}

/*
 * Does the caller (or an ancestor of it) hold a Landlock domain of its own? Only asked once
 * some process called landlock_restrict_self, so ordinary runs pay nothing. The walk goes up
 * PPid to the worker: a caller whose line does not reach the worker (an orphan, reparented to
 * the sandbox's init: its landlocked parent may be gone) is narrower too, as is one whose
 * line cannot be read, one below a child subreaper (which adopts such orphans; the worker
 * too, if it made itself one) and one its parent may have been given by clone(CLONE_PARENT)
 * in a landlocked process (adopted). A pid reused after a landlocked process ended makes an
 * unrelated process narrower: that fails closed.
 */
static bool landlocked(const struct sbx_supervisor *s, pid_t tgid)
{
	pid_t p = tgid;

	if (s->landlocked_full)
		return true;
	if (s->n_landlocked == 0)
		return false;
	for (int i = 0; i < MAX_ANCESTRY; i++) {
		pid_t pp;

		if (p <= 1 || landlocked_in(s, p))
			return true;
		/* a child subreaper on the way (the worker too) may have adopted the caller, an
		 * orphan of a process that restricted itself and ended: its line skips that
		 * record (as in sub_lookup) */
		if (p != tgid && subreaper_in(s, p))
			return true;
		if (p == s->worker)
			return false;
		pp = parent_of(p);
		if (adopted(s, pp, p))
			return true;
		p = pp;
	}
	return true;
}

/* ---- sub-performers: the Landlock domains of the worker's own processes ---- */

/*
 * A process of the worker that restricted itself with Landlock (a landlock-backend sub-worker,
 * a tool that sandboxes itself) is narrower than the worker: the performer, with the worker's
 * rights, must never act for it. Instead, when its landlock_restrict_self stops here, sbx takes
 * a copy of its ruleset (pidfd_getfd) and, before answering, has the performer that holds the
 * caller's domain so far (the worker's own, or an ancestor's sub-performer) fork a child that
 * stacks that ruleset: a sub-performer, which holds the caller's Landlock domain from then on
 * (rules added to the ruleset later only widen it, and the caller's are then wider than the
 * copy's). Its calls, and its descendants', are resolved, decided (the same tables) and
 * performed there. Its own seccomp filters stop a call before the supervisor sees it.
 *
 * The domain is known exactly only along a line of processes sbx can follow: a caller is
 * served by the sub-performer of the nearest recorded process on its PPid line up to the
 * worker, and by none (today's answer: narrower, denied where it could reach a protected name)
 * where that record has no sub-performer (made by one thread of many, in other namespaces,
 * refused by the kernel, past MAX_SUBS), where its process exited (its pid may be another's),
 * or where the line passes a child subreaper (an orphan adopted there may hold layers of a
 * process that is gone: more layers than recorded). A ruleset fd number the caller's fd table
 * changes between the copy and the kernel's call (a CLONE_FILES sibling) can only concern a
 * layer the caller chose for itself: every layer sbx gives a sub-worker is applied by sbx's
 * own single-threaded launcher.
 */
static bool subreaper_in(const struct sbx_supervisor *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_subreapers; i++)
		if (s->subreapers[i] == pid)
			return true;
	return false;
}

/* What the epoll set holds: the kind in the high half of its data, a slot in the low. */
enum ep_kind { EP_SUB = 1, EP_WAIT, EP_WAIT_CALLER, EP_ANSWER, EP_KEPT_CALLER, EP_PROV };

static int ep_add(struct sbx_supervisor *s, int fd, enum ep_kind kind, int k)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = (uint64_t)kind << 32 | (uint32_t)k};

	return epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void ep_del(struct sbx_supervisor *s, int fd)
{
	if (s->ep >= 0 && fd >= 0)
		(void)epoll_ctl(s->ep, EPOLL_CTL_DEL, fd, NULL);
}

/* A slot's end: the sub-performer is killed (it also ends at EOF, but one stopped from
 * inside would not see it), its socket and pidfds closed. */
static void sub_end(struct sbx_supervisor *s, int k)
{
	ep_del(s, s->subs[k].pidfd);
	if (s->subs[k].self >= 0)
		(void)syscall(SYS_pidfd_send_signal, s->subs[k].self, SIGKILL, NULL, 0);
	sbx_closep(&s->subs[k].sock);
	sbx_closep(&s->subs[k].pidfd);
	sbx_closep(&s->subs[k].self);
}

static void sub_drop(struct sbx_supervisor *s, int k)
{
	sub_end(s, k);
	if (s->subs[k].spare)
		s->n_spares--;
	s->subs[k] = (struct sub_perf){0, -1, -1, -1, false};
	s->n_subs--;
}

/* The live slot recorded for tgid, or -1; a slot whose process exited is dropped. */
static int sub_find(struct sbx_supervisor *s, pid_t tgid)
{
	for (int k = 0; k < MAX_SUBS; k++) {
		struct pollfd p = {s->subs[k].pidfd, POLLIN, 0};

		if (!s->subs[k].tgid || s->subs[k].tgid != tgid)
			continue;
		if (poll(&p, 1, 0) != 0) {
			sub_drop(s, k); /* exited (or unknown): its pid may be another's now */
			return -1;
		}
		return k;
	}
	return -1;
}

/* Drop the slots of processes that exited; a free slot's index, or -1. */
static int sub_free_slot(struct sbx_supervisor *s)
{
	int free_k = -1;

	for (int k = 0; k < MAX_SUBS; k++) {
		if (s->subs[k].tgid)
			(void)sub_find(s, s->subs[k].tgid);
		if (!s->subs[k].tgid && free_k < 0)
			free_k = k;
	}
	return free_k;
}

/*
 * Whose rights a process of the worker's namespaces holds, following its PPid line from tgid
 * itself: a sub-performer's slot (the nearest recorded process, alive, with one), -1 the
 * worker's (no record up to the worker), -2 unknown (a record without a sub-performer, an
 * orphan, a child subreaper on the way, a table past its cap).
 */
static int sub_lookup(struct sbx_supervisor *s, pid_t tgid)
{
	pid_t p = tgid;

	if (s->landlocked_full || s->subreapers_full)
		return -2;
	for (int i = 0; i < MAX_ANCESTRY; i++) {
		if (p <= 1)
			return -2;
		/* a recorded process first: sbx's own reaper (a sub-worker on the landlock
		 * backend) holds its sandbox's layer and adopts only what lies below it */
		if (landlocked_in(s, p)) {
			int k = sub_find(s, p);

			return k >= 0 ? k : -2;
		}
		if (p != tgid && subreaper_in(s, p))
			return -2;
		if (p == s->worker)
			return -1;
		{
			pid_t pp = parent_of(p);

			if (adopted(s, pp, p))
				return -2;
			p = pp;
		}
	}
	return -2;
}

/* A process's start time (clock ticks after boot, /proc/PID/stat field 22), 0 if it is gone:
 * with its pid, it names one process for as long as the machine runs. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], stat[1024];
	const char *p;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	p = strrchr(stat, ')'); /* field 3 follows the name's last ')' */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/*
 * The table of thread groups that restricted themselves is full: drop those that exited. A
 * pid leaves every live process's PPid line when its process ends (its orphans are adopted
 * elsewhere), so a record of a process that is gone can only ever name an unrelated process
 * that reuses its pid. A long session that starts thousands of sub-workers keeps working;
 * only MAX_LANDLOCKED live ones make every caller narrower (fail closed).
 */
static void landlocked_reclaim(struct sbx_supervisor *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n_landlocked; i++) {
		unsigned long long st = start_time(s->landlocked[i]);

		if (st && st == s->landlocked_start[i]) {
			s->landlocked[k] = s->landlocked[i];
			s->landlocked_start[k++] = st;
		}
	}
	s->n_landlocked = k;
}

/* Is the ruleset fd a copy of a Landlock ruleset? */
static bool is_ruleset(int fd)
{
	char link[64], target[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[landlock-ruleset]") == 0 ||
	       strcmp(target, "anon_inode:landlock-ruleset") == 0;
}

/*
 * The sub-performer for tgid's landlock_restrict_self (the notification being served), made
 * before the answer: forked by the performer that holds its domain so far (`from`, a slot or
 * -1 the worker's), stacking a copy of the ruleset. 0, or -errno: none (the slot recorded for
 * tgid, if any, is dropped by the caller).
 */
static int sub_make(struct sbx_supervisor *s, pid_t tgid, int from, int slot)
{
	static struct p_req sq;
	_cleanup_close_ int pidfd = -1, copy = -1, pair0 = -1, pair1 = -1, self = -1;
	int pair[2], fds[2], r;
	bool spare;
	size_t n0 = 1;
	struct pollfd pf;
	ssize_t len;

	/* only the ruleset, and the logging flags (Landlock ABI 7), which change no access */
	if ((int)s->notif->data.args[0] < 0 || (s->notif->data.args[1] & ~7ull))
		return -EINVAL;
	pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0 || notif_valid(s) < 0)
		return -ESRCH;
	copy = (int)syscall(SYS_pidfd_getfd, pidfd, (int)s->notif->data.args[0], 0);
	if (copy < 0 || notif_valid(s) < 0 || !is_ruleset(copy))
		return -EBADF;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return -errno;
	pair0 = pair[0];
	pair1 = pair[1];
	memset(&sq, 0, offsetof(struct p_req, path));
	sq.kind = P_SUB;
	fds[0] = pair1;
	fds[1] = copy;
	s->via = from >= 0 ? s->subs[from].sock : -1;
	r = perf_call(s, &sq, fds, 2, NULL);
	s->via = -1;
	if (r < 0 || s->rep.result < 0)
		return r < 0 ? r : s->rep.result;
	sbx_closep(&pair1);
	pair1 = -1;
	/* its hello: EOF where the kernel refused the ruleset (the caller's call fails too) */
	pf = (struct pollfd){pair0, POLLIN, 0};
	if (poll(&pf, 1, PERF_WAIT_S * 1000) <= 0)
		return -ETIMEDOUT;
	{
		static char wire[sizeof(struct p_reply)]; /* packed, as every reply (send_reply) */

		len = recv_fds(pair0, wire, sizeof(wire), &self, &n0, NULL);
		if (n0 == 0)
			self = -1;
		if (len <= 0 || !unpack_reply(wire, (size_t)len, &s->rep))
			return -EPIPE;
	}
	if (slot >= 0) {
		sub_end(s, slot); /* the narrower one replaces it, and keeps its spare */
		spare = s->subs[slot].spare;
		s->n_subs--;
		if (spare)
			s->n_spares--; /* counted again below */
	} else if (from >= 0 && s->subs[from].tgid && s->subs[from].spare) {
		/* the slot its parent domain kept for it (sub_room) */
		s->subs[from].spare = false;
		s->n_spares--;
		slot = sub_free_slot(s);
		spare = false;
	} else {
		slot = s->n_subs + s->n_spares + 2 <= MAX_SUBS ? sub_free_slot(s) : -1;
		spare = true; /* and one kept for the domain stacked on it next */
	}
	if (slot < 0)
		return -EAGAIN;
	/* watched from now on: the slot goes (and its sub-performer ends) as soon as the
	 * process that holds the domain ends, not when the table is full */
	s->subs[slot] = (struct sub_perf){tgid, pidfd, pair0, self, spare};
	s->n_subs++;
	if (spare)
		s->n_spares++;
	pidfd = pair0 = self = -1;
	if (ep_add(s, s->subs[slot].pidfd, EP_SUB, slot) < 0) {
		sub_drop(s, slot);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Is there room for a new domain stacked on `from` (a slot, or -1 the worker's)? A landlock
 * sub-worker holds two (its reaper's layer, then its worker's, stacked on it), and one that
 * got its first must get its second, or fewer than MAX_SUBS / 2 run when many start at once
 * (each refused its second while holding its first): so every domain that does not take a
 * spare keeps one for the first domain stacked on it, and needs two free slots. Slots of
 * processes that exited are dropped first where that makes room.
 */
static bool sub_room(struct sbx_supervisor *s, int from)
{
	for (int pass = 0; pass < 2; pass++) {
		if (from >= 0 && s->subs[from].tgid && s->subs[from].spare)
			return true;
		if (s->n_subs + s->n_spares + 2 <= MAX_SUBS)
			return true;
		if (pass == 0)
			(void)sub_free_slot(s); /* drops the exited */
	}
	return false;
}

/*
 * landlock_restrict_self: the caller restricts only itself, and the kernel's answer is its
 * answer, so it is CONTINUEd; from then on its thread group and its descendants are narrower
 * (never performed for by the performer). Recorded before the answer: the restriction cannot
 * take effect before sbx knows of it. A single-threaded caller in the worker's namespaces also
 * gets a sub-performer that holds its new domain (sub_make); past MAX_SUBS live ones its call
 * is refused (EAGAIN), said on sbx's stderr and in the audit log.
 */
static void serve_landlock(struct sbx_supervisor *s)
{
	char path[64], status[4096];
	_cleanup_close_ int procdir = -1;
	pid_t tgid;
	uint64_t t0 = now_us();

	snprintf(path, sizeof(path), "/proc/%d", (int)s->notif->pid);
	procdir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (notif_valid(s) < 0)
		return; /* gone */
	if (procdir < 0 || read_at(procdir, "status", status, sizeof(status)) < 0 ||
	    (tgid = (pid_t)status_field(status, "\nTgid:")) <= 0) {
		s->landlocked_full = true; /* unknown caller: everyone is narrower */
	} else {
		/* the domain it holds so far, before it is recorded */
		bool same_ns = ns_ino(procdir, "ns/mnt") == s->worker_mnt &&
		               ns_ino(procdir, "ns/user") == s->worker_user;
		bool one_thread = status_field(status, "\nThreads:") == 1;
		int slot = sub_find(s, tgid);
		int from = same_ns && one_thread ? sub_lookup(s, tgid) : -2;

		if (from != -2 && slot < 0 && !sub_room(s, from)) {
			const char *nm = strstr(status, "Name:");
			char comm[32] = "?";
			struct sbx_sup_req req = {.call = "landlock_restrict_self",
			                          .op = SBX_SUP_OP_METADATA,
			                          .pid = tgid,
			                          .comm = comm,
			                          .t = {.path = "(a Landlock domain)"}};
			struct sbx_sup_verdict v = {.answer = SBX_SUP_DENY,
			                            .errnum = EAGAIN,
			                            .decider = SBX_SUP_BY_POLICY,
			                            .asked = SBX_AC_COUNT};

			if (nm) {
				nm += 5;
				while (*nm == '\t' || *nm == ' ')
					nm++;
				snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(nm, "\n"), nm);
			}
			snprintf(
			    v.rule, sizeof(v.rule),
			    "sub-performers: at most %d processes of the sandbox may hold a "
			    "Landlock domain of their own at once (a sub-worker holds two, and a "
			    "tool that restricts itself keeps room for a second), so %d "
			    "sub-workers; all are taken; let a sub-worker end first, or start "
			    "fewer at once",
			    MAX_SUBS, MAX_SUBS / 2);
			if (notif_valid(s) == 0) {
				respond(s, EAGAIN, false);
				report(s, &req, &v, "", EAGAIN, t0, true);
			}
			return;
		}
		if (!landlocked_in(s, tgid)) {
			unsigned long long st = start_time(tgid);

			if (s->n_landlocked == MAX_LANDLOCKED)
				landlocked_reclaim(s);
			if (s->n_landlocked < MAX_LANDLOCKED && st) {
				s->landlocked_start[s->n_landlocked] = st;
				s->landlocked[s->n_landlocked++] = tgid;
			} else {
				s->landlocked_full = true;
			}
		}
		if (from == -2 || sub_make(s, tgid, from, slot) < 0) {
			slot = sub_find(s, tgid);
			if (slot >= 0)
				sub_drop(s, slot); /* its domain is not known exactly any more */
		}
	}
	if (notif_valid(s) < 0)
		return;
	respond(s, 0, true);
}

/* Clock ticks since boot now, as /proc/PID/stat counts a start time (rounded down). */
static unsigned long long boot_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
	       (unsigned long long)ts.tv_nsec / (1000000000ull / (unsigned long long)hz);
}

/*
 * clone(CLONE_PARENT), or clone3 (its flags are in memory the caller can change after a
 * read), by a thread group that restricted itself with Landlock: its child gets its domain
 * but its parent's parent, so the child's PPid line would not pass the record of that domain
 * and the child would be served with wider rights (the worker's, or an ancestor's
 * sub-performer's). Recorded before the answer, so before the child exists: from now on the
 * children of that parent are of unknown domain (adopted: narrower, never performed for), as
 * its children forked later are too, since sbx cannot tell them apart (fail closed). Anything
 * that cannot be read or recorded makes every caller narrower. Then CONTINUEd (or served as
 * the diverging call it also is).
 */
static void serve_clone_parent(struct sbx_supervisor *s)
{
	char path[64], status[4096];
	_cleanup_close_ int procdir = -1;
	pid_t tgid, parent;
	unsigned long long since;
	size_t i;

	if (s->landlocked_full || s->n_landlocked == 0)
		return; /* nobody restricted itself, or everyone is narrower already */
	since = boot_ticks();
	snprintf(path, sizeof(path), "/proc/%d", (int)s->notif->pid);
	procdir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (notif_valid(s) < 0)
		return; /* gone: no child will be */
	if (procdir < 0 || read_at(procdir, "status", status, sizeof(status)) < 0 ||
	    notif_valid(s) < 0 || (tgid = (pid_t)status_field(status, "\nTgid:")) <= 0 ||
	    (parent = (pid_t)status_field(status, "\nPPid:")) < 0 || !since) {
		s->landlocked_full = true;
		return;
	}
	if (!landlocked_in(s, tgid) || parent <= 1)
		return; /* its child's line passes the same record; or reaches no worker at all */
	for (i = 0; i < s->n_adopters && s->adopters[i].pid != parent; i++)
		;
	if (i < s->n_adopters) {
		/* the earliest stands (a later one's children are later still) */
		if (start_time(parent) == s->adopters[i].start)
			return;
	} else if (s->n_adopters == MAX_ADOPTERS) {
		/* drop those whose process ended (its pid may be another's now) */
		size_t k = 0;

		for (size_t j = 0; j < s->n_adopters; j++)
			if (start_time(s->adopters[j].pid) == s->adopters[j].start)
				s->adopters[k++] = s->adopters[j];
		s->n_adopters = k;
		if (k == MAX_ADOPTERS) {
			s->landlocked_full = true;
			return;
		}
		i = s->n_adopters++;
	} else {
		i = s->n_adopters++;
	}
	s->adopters[i] = (struct adopter){parent, start_time(parent), since};
	if (!s->adopters[i].start)
		s->landlocked_full = true; /* its parent is gone, or cannot be read */
}

/* prctl(PR_SET_CHILD_SUBREAPER): recorded before the answer (sub_lookup), then CONTINUEd. */
static void serve_subreaper(struct sbx_supervisor *s)
{
	char path[64], status[4096];
	_cleanup_close_ int procdir = -1;
	pid_t tgid;

	snprintf(path, sizeof(path), "/proc/%d", (int)s->notif->pid);
	procdir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (notif_valid(s) < 0)
		return;
	if (procdir < 0 || read_at(procdir, "status", status, sizeof(status)) < 0 ||
	    (tgid = (pid_t)status_field(status, "\nTgid:")) <= 0)
		s->subreapers_full = true;
	else if (!subreaper_in(s, tgid) && s->n_subreapers < MAX_SUBREAPERS)
		s->subreapers[s->n_subreapers++] = tgid;
	else if (!subreaper_in(s, tgid))
		s->subreapers_full = true;
	if (notif_valid(s) == 0)
		respond(s, 0, true);
}

/* A narrower caller in the worker's namespaces whose Landlock domain a sub-performer holds is
 * served as a caller with the worker's rights, by that sub-performer (s->via). */
static void sub_serve(struct sbx_supervisor *s, struct caller *c)
{
	int k;

	if (!c->narrower || c->other_ns || !s->n_subs || c->tgid <= 0)
		return;
	k = sub_lookup(s, c->tgid);
	if (k < 0)
		return;
	s->via = s->subs[k].sock;
	c->narrower = false;
}

/* The guards' table grew (a directory made on the way): every performer gets it, so that
 * each decides as sbx does (perf_fast) and folds names where sbx does. A sub-performer that
 * does not take it is dropped (its callers are then denied as narrower). */
static void subs_sync_guards(struct sbx_supervisor *s)
{
	static struct p_req gq;
	int via = s->via;

	if (!s->n_subs)
		return;
	for (int k = -1; k < MAX_SUBS; k++) {
		if (k >= 0 && !s->subs[k].tgid)
			continue;
		s->via = k >= 0 ? s->subs[k].sock : -1;
		for (size_t i = 0; i < s->guards.n; i++) {
			const struct sbx_sup_guard *g = &s->guards.g[i];

			memset(&gq, 0, offsetof(struct p_req, path));
			gq.kind = P_GUARD_ADD;
			gq.dev = g->dev;
			gq.g_ino = g->ino;
			gq.g_index = (uint32_t)g->protected_index;
			gq.g_depth = (uint32_t)g->depth;
			gq.g_final = g->final;
			snprintf(gq.path[0], P_PATH, "%s", g->name);
			if (perf_call(s, &gq, NULL, 0, NULL) < 0 || s->rep.result < 0) {
				if (k >= 0)
					sub_drop(s, k);
				break; /* the worker's own performer: lost at its next call */
			}
		}
	}
	s->via = via;
}

/* The caller's /proc/PID, checked valid: the task was alive after it was opened, so the
 * directory is the caller's. */
static int caller_procdir(struct sbx_supervisor *s, struct caller *c)
{
	char path[64];

	if (c->procdir >= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d", (int)c->pid);
	c->procdir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (notif_valid(s) < 0)
		return -ENOENT;
	return c->procdir < 0 ? -ESRCH : 0;
}

/* Who the caller is, from its /proc/PID/status: its thread group, command name, its own
 * /proc/self; and, from `status` for caller_open, its umask and whether it is narrower. */
static int caller_ids(struct sbx_supervisor *s, struct caller *c, char *status, size_t size)
{
	char own[4096];
	int depth, r = caller_procdir(s, c);

	if (r < 0)
		return r;
	if (!status) {
		status = own;
		size = sizeof(own);
	}
	if (read_at(c->procdir, "status", status, size) < 0)
		return -ESRCH;
	{
		const char *nm = strstr(status, "Name:");

		if (nm) {
			nm += 5;
			while (*nm == '\t' || *nm == ' ')
				nm++;
			snprintf(c->comm, sizeof(c->comm), "%.*s", (int)strcspn(nm, "\n"), nm);
		}
	}
	c->tgid = (pid_t)status_field(status, "\nTgid:");
	depth = nspid_depth(status);
	/* /proc/self in the caller's /proc: its pid in its own pid namespace */
	c->tid_ns = (pid_t)ns_field(status, "\nNSpid:", depth - 1);
	c->tgid_ns = (pid_t)ns_field(status, "\nNStgid:", depth - 1);
	c->ids = true;
	return notif_valid(s);
}

/*
 * The caller as far as the call needs it. Until some process under the filter diverged
 * (another umask, a filter, namespaces, a Landlock domain: each such call stops in sbx
 * first, serve_diverge, serve_landlock), every caller has the worker's umask and is not
 * narrower, and nothing of /proc is read: its ids are read later where a record, a
 * question or a grant needs them (caller_ids), and the performer asks for them where a
 * path goes through /proc (need_ids). `full`: read everything now.
 */
static int caller_open(struct sbx_supervisor *s, struct caller *c, bool full)
{
	char status[4096];
	int r;

	c->pid = (pid_t)s->notif->pid;
	c->ids = false;
	if (!full && !s->diverged) {
		c->umask = s->worker_umask;
		c->narrower = c->other_ns = false;
		c->tgid = c->tgid_ns = c->tid_ns = 0;
		snprintf(c->comm, sizeof(c->comm), "?");
		return 0; /* nothing read: what is read next is checked valid after */
	}
	r = caller_ids(s, c, status, sizeof(status));
	if (r < 0)
		return r;
	c->umask = (mode_t)strtol(strstr(status, "Umask:") ? strstr(status, "Umask:") + 6 : "022",
	                          NULL, 8);
	/*
	 * Narrower than the worker: more seccomp filters (every sub-sandbox stacks its own
	 * before its worker execs), or another mount or user namespace (a nested sbx's init,
	 * with capabilities over mounts of its own that the performer does not have). It is
	 * never performed for: the performer's rights are not its own.
	 */
	c->other_ns = ns_ino(c->procdir, "ns/mnt") != s->worker_mnt ||
	              ns_ino(c->procdir, "ns/user") != s->worker_user;
	c->narrower = c->other_ns ||
	              status_field(status, "Seccomp_filters:") != s->worker_filters ||
	              landlocked(s, c->tgid);
	return notif_valid(s);
}

/* A call that makes its process diverge from the worker (emit_diverge_tests): recorded
 * before it is let through, so that it cannot take effect before sbx knows of it; sbx
 * serves one notification at a time, so no call of another thread is being decided on the
 * old state while this one proceeds. A umask that is the worker's changes nothing. */
static void serve_diverge(struct sbx_supervisor *s)
{
	const struct seccomp_data *d = &s->notif->data;

	if (d->nr != __NR_umask || ((mode_t)d->args[0] & 0777) != s->worker_umask)
		s->diverged = true;
	if (notif_valid(s) < 0)
		return;
	respond(s, 0, true);
}

/* Closed and forgotten: a retry (goto again) opens them again, never a stale number. */
static void caller_close(struct caller *c)
{
	sbx_closep(&c->procdir);
	sbx_closep(&c->pidfd);
	c->procdir = c->pidfd = -1;
}

/* The caller's fd (a dirfd, an fd-based call's object), or its cwd for AT_FDCWD. */
static int caller_fd(struct sbx_supervisor *s, struct caller *c, int fd)
{
	int r;

	if (fd != AT_FDCWD && c->pidfd < 0) {
		/* only where an fd is taken; valid after it is opened, so it is the caller's */
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, PIDFD_THREAD);
		if (c->pidfd < 0)
			c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
		if (c->pidfd < 0)
			return -ESRCH;
		if (notif_valid(s) < 0)
			return -ENOENT;
	}
	if (fd == AT_FDCWD && c->procdir >= 0) {
		r = openat(c->procdir, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else if (fd == AT_FDCWD) {
		/* valid after it is opened (below), so the cwd was the caller's */
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/cwd", (int)c->pid);
		r = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		r = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0);
	}
	if (r < 0)
		return errno == EBADF || errno == ESRCH ? -EBADF : -errno;
	if (notif_valid(s) < 0) {
		close(r);
		return -ENOENT;
	}
	return r;
}

/* What the caller asked, decoded; strings copied. */
struct asked {
	const struct call_row *row;
	int dirfd[2];
	bool has_path[2];
	int flags;
	bool fd_based;
	int fd;
	char text[P_PATH];
};

/* bind's address, copied: an AF_UNIX pathname is the side to resolve (its directory, from the
 * caller's cwd, and its final name, not followed), with the socket's fd after it; any other
 * address leaves the socket as the call's object, bound as copied. */
static int decode_bind(struct caller *c, uint64_t addr, uint64_t len, struct asked *a,
                       struct p_req *q)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&q->sa;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	int r;

	if ((int)(uint32_t)len < 0 || (uint32_t)len > sizeof(q->sa))
		return -EINVAL; /* as the kernel says */
	q->salen = (uint32_t)len;
	if (q->salen) {
		r = read_mem(c->pid, addr, &q->sa, q->salen);
		if (r < 0)
			return r;
	}
	if (q->sa.ss_family == AF_UNIX && q->salen > sizeof(struct sockaddr_un))
		return -EINVAL; /* as the kernel says */
	if (q->salen > off && q->sa.ss_family == AF_UNIX && un->sun_path[0]) {
		size_t n = strnlen(un->sun_path, q->salen - off);

		memcpy(q->path[0], un->sun_path, n);
		q->path[0][n] = '\0';
		q->nsides = 1;
		q->follow[0] = 0;
		q->has_sock = 1;
		a->has_path[0] = true;
		a->fd_based = false; /* the socket (a->fd) comes after the side's dirfd */
		q->fd_based = 0;
		return 0;
	}
	return 0; /* the socket is the object (decode's fd-based row) */
}

static int decode(struct sbx_supervisor *s, struct caller *c, struct asked *a, struct p_req *q)
{
	const struct seccomp_data *d = &s->notif->data;
	const struct call_row *row = call_row(d->nr);
	int r;

#define ARG(i) (d->args[(i)])
	if (!row || d->arch != SUP_AUDIT_ARCH)
		return -ENOSYS;
	memset(a, 0, sizeof(*a));
	memset(q, 0, sizeof(*q));
	a->row = row;
	q->kind = P_RESOLVE;
	q->call = row->kind;
	q->tgid = c->tgid_ns;
	q->tid = c->tid_ns;
	q->umask = c->umask;
	a->flags = row->flags >= 0 ? (int)(uint32_t)ARG(row->flags) : row->fixed_flags;
	q->flags = a->flags;
	q->mode = row->mode >= 0 ? (uint32_t)ARG(row->mode) : 0;
	if (row->kind == C_OPEN && !(a->flags & (O_CREAT | SBX_O_TMPFILE_BIT)))
		q->mode = 0;
	q->dev = row->dev >= 0 ? ARG(row->dev) : 0;
	q->uid = row->uid >= 0 ? (uint32_t)ARG(row->uid) : (uint32_t)-1;
	q->gid = row->gid >= 0 ? (uint32_t)ARG(row->gid) : (uint32_t)-1;
	q->length = row->len >= 0 ? (int64_t)ARG(row->len) : 0;
	a->dirfd[0] = row->dirfd >= 0 ? (int)(uint32_t)ARG(row->dirfd) : AT_FDCWD;
	a->dirfd[1] = row->dirfd2 >= 0 ? (int)(uint32_t)ARG(row->dirfd2) : AT_FDCWD;
	q->nsides = row->path2 >= 0 ? 2 : 1;
	if (row->flags_at &&
	    (a->flags & ~(AT_SYMLINK_NOFOLLOW | AT_SYMLINK_FOLLOW | AT_EMPTY_PATH | AT_REMOVEDIR)))
		return -EINVAL;
	/* renameat2: a way of renaming this file does not know is not decided */
	if (row->kind == C_RENAME &&
	    (a->flags & ~(RENAME_EXCHANGE | RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	/* follows the final symlink? */
	switch (row->kind) {
	case C_OPEN:
		q->follow[0] =
		    !(a->flags & O_NOFOLLOW) && !((a->flags & O_CREAT) && (a->flags & O_EXCL));
		break;
	case C_LINK:
		q->follow[0] = row->flags >= 0 && (a->flags & AT_SYMLINK_FOLLOW);
		break;
	default:
		q->follow[0] = row->follow && !(row->flags_at && (a->flags & AT_SYMLINK_NOFOLLOW));
	}
	/* the path arguments */
	if (row->fd >= 0) {
		a->fd_based = true;
		a->fd = (int)(uint32_t)ARG(row->fd);
		q->fd_based = 1;
		q->nsides = 0;
	} else if (row->kind == C_UTIMES && ARG(row->path) == 0) {
		/* utimensat(fd, NULL, ...), futimesat(fd, NULL, ...): the fd is the object */
		a->fd_based = true;
		a->fd = a->dirfd[0];
		q->fd_based = 1;
		q->nsides = 0;
	}
	if (row->kind == C_BIND) {
		r = decode_bind(c, ARG(row->ioc_arg), ARG(row->len), a, q);
		if (r < 0)
			return r;
		return notif_valid(s);
	}
	for (uint32_t i = 0; i < q->nsides; i++) {
		r = read_string(c->pid, ARG(i == 0 ? row->path : row->path2), q->path[i], P_PATH);
		if (r < 0)
			return r;
		a->has_path[i] = true;
		if (!q->path[i][0]) {
			if (row->flags_at && (a->flags & AT_EMPTY_PATH))
				q->empty[i] = 1;
			else
				return -ENOENT;
		}
	}
	if (row->text >= 0) {
		r = read_string(c->pid, ARG(row->text), q->text, P_PATH);
		if (r < 0)
			return r;
		if (!q->text[0])
			return -ENOENT;
	}
	if (row->ioc >= 0) {
		q->ioc = (uint32_t)ARG(row->ioc);
		if (q->ioc == (uint32_t)FS_IOC_FSSETXATTR)
			r = read_mem(c->pid, ARG(row->ioc_arg), &q->fsx, sizeof(q->fsx));
		else
			r = read_mem(c->pid, ARG(row->ioc_arg), &q->ioc_flags,
			             sizeof(q->ioc_flags));
		if (r < 0)
			return r;
	}
	q->times_null = 1;
	if (row->times >= 0 && ARG(row->times)) {
		q->times_null = 0;
		if (row->time_kind == T_TIMESPEC) {
			r = read_mem(c->pid, ARG(row->times), q->ts, sizeof(q->ts));
		} else if (row->time_kind == T_TIMEVAL) {
			struct timeval tv[2];

			r = read_mem(c->pid, ARG(row->times), tv, sizeof(tv));
			for (int i = 0; r == 0 && i < 2; i++) {
				if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
					return -EINVAL;
				q->ts[i].tv_sec = tv[i].tv_sec;
				q->ts[i].tv_nsec = tv[i].tv_usec * 1000;
			}
		} else {
			struct {
				long actime, modtime;
			} ub = {0, 0};

			r = read_mem(c->pid, ARG(row->times), &ub, sizeof(ub));
			q->ts[0].tv_sec = ub.actime;
			q->ts[1].tv_sec = ub.modtime;
		}
		if (r < 0)
			return r;
	}
#undef ARG
	/* every read of the caller's memory is checked: the task the pid named then may be
	 * gone, and its pid another's */
	return notif_valid(s);
}

static enum sbx_sup_op op_for(uint32_t kind, int flags, uint64_t length, const struct p_target *t,
                              const struct p_target *t2)
{
	switch (kind) {
	case C_OPEN:
		if (flags & SBX_O_TMPFILE_BIT)
			return SBX_SUP_OP_CREATE;
		if ((flags & O_CREAT) && !t->exists)
			return SBX_SUP_OP_CREATE;
		if (flags & O_TRUNC)
			return SBX_SUP_OP_OVERWRITE;
		if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_APPEND))
			return SBX_SUP_OP_WRITE;
		return SBX_SUP_OP_READ;
	case C_MKDIR:
	case C_MKNOD:
	case C_SYMLINK:
	case C_BIND:
		return SBX_SUP_OP_CREATE;
	case C_LINK:
		return t2->exists ? SBX_SUP_OP_OVERWRITE : SBX_SUP_OP_CREATE;
	case C_RENAME:
		return SBX_SUP_OP_RENAME;
	case C_FALLOC:
		/* space made (or unshared) loses nothing; a hole punched, a range zeroed,
		 * collapsed or shifted changes what the file holds, and so may a mode sbx does not
		 * know (FALLOC_FL_WRITE_ZEROES, newer ones): an overwrite */
		return flags & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_UNSHARE_RANGE)
		           ? SBX_SUP_OP_OVERWRITE
		           : SBX_SUP_OP_WRITE;
	case C_TRUNCATE:
		/* a file made longer loses nothing: a write (a new file's ftruncate to its size,
		 * a temporary file's); one cut short loses content: an overwrite */
		return t->exists && length >= t->size ? SBX_SUP_OP_WRITE : SBX_SUP_OP_OVERWRITE;
	case C_UNLINK:
		return SBX_SUP_OP_DELETE;
	default:
		return SBX_SUP_OP_METADATA;
	}
}

static void fill_target(struct sbx_sup_target *out, const struct p_target *t)
{
	out->path = t->path;
	out->name = t->name;
	out->dev = t->dev;
	out->ino = t->ino;
	out->exists = t->exists;
	out->is_dir = t->is_dir;
	out->casefold = t->casefold;
	out->ftype = t->ftype;
	out->git_other = t->git_other;
	out->private_fs = on_private_fs(t->dev);
	out->size = t->size;
}

/*
 * A narrower caller (a sub-sandbox) is resolved here, from sbx, in its own root and cwd
 * (openat2 beneath them, no magic link), never by the performer: it is only asked whether
 * a protected name is at stake. Its call is then CONTINUEd (its own Landlock domain and
 * mounts bound it) or denied. CONTINUE leaves a time-of-check window (the caller can change
 * the path between this check and the kernel's resolution), which is why a narrower caller
 * may create only where it cannot reach any directory that holds a protected name
 * (reaches_guard).
 */
static int resolve_narrower(struct caller *c, int dirfd, const char *path, struct p_target *t)
{
	_cleanup_close_ int root = openat(c->procdir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int dir = -1;
	char parent[P_PATH];
	const char *slash;
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC};
	struct stat st;
	size_t len = strlen(path);

	memset(t, 0, sizeof(*t));
	if (root < 0)
		return -ESRCH;
	while (len > 1 && path[len - 1] == '/')
		len--;
	slash = memrchr(path, '/', len);
	if (slash) {
		snprintf(parent, sizeof(parent), "%.*s",
		         (int)(slash - path) ? (int)(slash - path) : 1, path);
		snprintf(t->name, sizeof(t->name), "%.*s", (int)(len - (size_t)(slash - path) - 1),
		         slash + 1);
	} else {
		snprintf(parent, sizeof(parent), ".");
		snprintf(t->name, sizeof(t->name), "%.*s", (int)len, path);
	}
	if (path[0] == '/') {
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		dir = (int)syscall(SYS_openat2, root, parent, &how, sizeof(how));
	} else {
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
		dir = (int)syscall(SYS_openat2, dirfd, parent, &how, sizeof(how));
		if (dir < 0 && errno == EXDEV) {
			/* ".." above the directory, or an absolute symlink: the directory's path
			 * in the caller's root (how the kernel names it from there) and the rest,
			 * resolved in that root */
			char base[P_PATH], full[2 * P_PATH];

			if (fd_path(dirfd, base, sizeof(base)) < 0 || base[0] != '/' ||
			    strstr(base, " (deleted)") ||
			    (size_t)snprintf(full, sizeof(full), "%s/%s", base, parent) >= P_PATH)
				return -EACCES;
			how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
			dir = (int)syscall(SYS_openat2, root, full, &how, sizeof(how));
		}
	}
	if (dir < 0)
		return errno == EXDEV ? -EACCES : -errno;
	if (fstat(dir, &st) < 0)
		return -errno;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->casefold = dir_casefold(dir);
	if (fstatat(dir, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		t->exists = 1;
		t->is_dir = S_ISDIR(st.st_mode);
		t->size = (uint64_t)st.st_size;
	}
	/* the directory as sbx sees it: the caller's own view where its root is sbx's, and a
	 * path in its mount namespace otherwise (its areas are best effort: it is never
	 * performed for, and the kernel bounds what it CONTINUEs) */
	if (fd_path(dir, parent, sizeof(parent)) < 0)
		return -ENAMETOOLONG;
	{
		/* a copy: t->name and t->path are one object to the compiler (-Wrestrict) */
		char name[sizeof(t->name)];

		memcpy(name, t->name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		if (snprintf(t->path, sizeof(t->path), "%s%s%s", parent,
		             strcmp(parent, "/") ? "/" : "", name) >= (int)sizeof(t->path))
			return -ENAMETOOLONG;
	}
	return 0;
}

static void respond_id(struct sbx_supervisor *s, uint64_t id, int error, bool cont)
{
	memset(s->resp, 0, s->resp_size);
	s->resp->id = id;
	s->resp->error = cont ? 0 : -error;
	s->resp->val = 0;
	s->resp->flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	/* ENOENT: the caller is gone (killed, or its call interrupted), nothing to answer */
	(void)ioctl(s->notify, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
}

static void respond(struct sbx_supervisor *s, int error, bool cont)
{
	respond_id(s, s->notif->id, error, cont);
}

/* A success whose value is val (an fd added before with ADDFD, without SEND). */
static void respond_val_id(struct sbx_supervisor *s, uint64_t id, int64_t val)
{
	memset(s->resp, 0, s->resp_size);
	s->resp->id = id;
	s->resp->val = val;
	(void)ioctl(s->notify, SECCOMP_IOCTL_NOTIF_SEND, s->resp);
}

/* An opened file into the caller, atomically with the answer; its O_CLOEXEC as it asked;
 * never SETFD (it would silently replace one of the caller's fds). */
static int respond_fd_id(struct sbx_supervisor *s, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd add = {
	    .id = id,
	    .flags = SECCOMP_ADDFD_FLAG_SEND,
	    .srcfd = (__u32)fd,
	    .newfd = 0,
	    .newfd_flags = cloexec ? O_CLOEXEC : 0,
	};

	if (ioctl(s->notify, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0)
		return -errno;
	return 0;
}

static int respond_fd(struct sbx_supervisor *s, int fd, bool cloexec)
{
	return respond_fd_id(s, s->notif->id, fd, cloexec);
}

/* ---- opens of a FIFO that wait for their other end (perform_fifo) ---- */

/* The waiting open's decision record, with its result (errnum: 0, or the errno the caller
 * got; EINTR where the wait ended without an answer, its caller killed or the sandbox
 * ending) and the time the decision and the wait took: written once the result is known
 * (sbx(1), AUDIT LOG), never when the wait starts. */
static void fifo_report(struct sbx_supervisor *s, int k, int errnum)
{
	struct fifo_note *n = s->waits[k].note;
	uint64_t uses = s->batch_uses;

	if (!n)
		return;
	s->waits[k].note = NULL;
	s->batch_uses = n->batch_uses;
	report(s, &n->req, &n->v, n->asked, errnum, n->t0, n->v.rule[0] != '\0');
	s->batch_uses = uses;
	free(n);
}

static void fifo_end(struct sbx_supervisor *s, int k)
{
	struct fifo_wait *w = &s->waits[k];

	fifo_report(s, k, EINTR); /* none yet: no answer came */
	ep_del(s, w->waiter);
	ep_del(s, w->caller);
	if (w->waiter >= 0)
		(void)syscall(SYS_pidfd_send_signal, w->waiter, SIGKILL, NULL, 0);
	sbx_closep(&w->sock);
	sbx_closep(&w->waiter);
	sbx_closep(&w->caller);
	free(w->note);
	*w = (struct fifo_wait){0, 0, -1, -1, -1, false, NULL};
	s->n_waits--;
}

/*
 * The notification being served waits in a waiter (P_WAIT: its socket `sock`, its pidfd in
 * s->extra_fd; both taken): recorded, watched with the calling thread's pidfd, answered
 * later. 0, or -errno where it cannot be watched (the waiter is killed; the caller's answer
 * is the caller's to give).
 */
static int fifo_start(struct sbx_supervisor *s, int sock, bool cloexec, struct fifo_note *note)
{
	int waiter = s->extra_fd, caller, k;

	s->extra_fd = -1;
	for (k = 0; k < MAX_WAITS && s->waits[k].sock >= 0; k++)
		;
	caller = (int)syscall(SYS_pidfd_open, s->notif->pid, PIDFD_THREAD);
	if (caller < 0)
		caller = (int)syscall(SYS_pidfd_open, s->notif->pid, 0);
	if (k == MAX_WAITS || waiter < 0 || caller < 0 || notif_valid(s) < 0) {
		if (waiter >= 0)
			(void)syscall(SYS_pidfd_send_signal, waiter, SIGKILL, NULL, 0);
		sbx_closep(&waiter);
		sbx_closep(&caller);
		close(sock);
		return k == MAX_WAITS ? -EAGAIN : -ESRCH;
	}
	s->waits[k] =
	    (struct fifo_wait){s->notif->id, s->notif->pid, sock, waiter, caller, cloexec, NULL};
	s->n_waits++;
	if (ep_add(s, waiter, EP_WAIT, k) < 0 || ep_add(s, caller, EP_WAIT_CALLER, k) < 0) {
		fifo_end(s, k);
		return -ENOMEM;
	}
	s->waits[k].note = note;
	return 0;
}

/*
 * The waiter has exited (its answer, if any, waits on its socket; killed from inside the
 * sandbox, it left none: EINTR): the caller gets the fd or the errno now. The fd goes in
 * first, sbx's copy is closed, and only then is the call answered: when the caller runs
 * again, nothing but the caller holds the opened file (perform_fifo).
 */
static void fifo_done(struct sbx_supervisor *s, int k)
{
	struct fifo_wait *w = &s->waits[k];
	int32_t res = -EINTR;
	int fd = -1;
	size_t n = 1;
	ssize_t len = recv_fds(w->sock, &res, sizeof(res), &fd, &n, NULL);

	if (len != (ssize_t)sizeof(res))
		res = -EINTR;
	if (res == 0 && n == 1) {
		struct seccomp_notif_addfd add = {
		    .id = w->id,
		    .srcfd = (__u32)fd,
		    .newfd_flags = w->cloexec ? O_CLOEXEC : 0,
		};
		int nfd = ioctl(s->notify, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		int e = errno;

		close(fd);
		n = 0;
		if (nfd >= 0) {
			respond_val_id(s, w->id, nfd);
			fifo_report(s, k, 0);
		} else if (e != ENOENT) {
			respond_id(s, w->id, e, false);
			fifo_report(s, k, e);
		}
	} else {
		respond_id(s, w->id, res < 0 ? -res : EIO, false);
		fifo_report(s, k, res < 0 ? -res : EIO);
	}
	if (n == 1)
		close(fd);
	fifo_end(s, k);
}

/* Waits whose notification is gone (its thread ended without sbx's pidfd seeing it: a
 * sibling thread's execve takes over the waiting leader's id and pid): ended, their waiter
 * killed, so that it holds no slot and no reader pairs with a writer nobody has. Swept at
 * every supervised call while any wait stands. */
static void fifo_sweep(struct sbx_supervisor *s)
{
	for (int k = 0; s->n_waits && k < MAX_WAITS; k++) {
		__u64 id = s->waits[k].id;

		if (s->waits[k].sock >= 0 &&
		    ioctl(s->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0 && errno == ENOENT)
			fifo_end(s, k);
	}
}

/* The calling thread issued another call: the one that waited is over (killed; a thread
 * has one call at a time). */
static void fifo_stale(struct sbx_supervisor *s, pid_t tid)
{
	for (int k = 0; s->n_waits && k < MAX_WAITS; k++)
		if (s->waits[k].sock >= 0 && s->waits[k].tid == tid)
			fifo_end(s, k);
}

static uint64_t realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The host path behind a resolved sandbox path, through the plan (a bind or mirror mount;
 * NULL in a tmpfs, /proc, /dev or where nothing covers it). */
static const char *host_path_of(const struct sbx_supervisor *s, const char *path, char *host,
                                size_t size)
{
	size_t at;

	if (!path || path[0] != '/' || sbx_plan_resolve(s->plan, path, &at, host, size, NULL) < 0)
		return NULL;
	return host;
}

/* A decision record (standing for `decisions` decisions) to the log, within the rate cap:
 * beyond it the decisions are counted, and said in a "suppressed" record before the next
 * record admitted. A record that cannot be written is lost, not the call: the end record's
 * counts still hold it. */
static void audit_emit(struct sbx_supervisor *s, const char *record, uint64_t decisions,
                       uint64_t now_ms)
{
	uint64_t said;

	if (!record[0] || !sbx_audit_rate(&s->fold, now_ms, decisions, strlen(record), &said))
		return;
	if (said) {
		char line[512];

		if (sbx_audit_fmt_suppressed(line, sizeof(line), sbx_audit_ids(s->audit),
		                             realtime_ms(), said) < sizeof(line))
			(void)sbx_audit_write(s->audit, line);
	}
	(void)sbx_audit_write(s->audit, record);
}

bool sbx_supervisor_asks_tty(const struct sbx_supervisor *s)
{
	return s && s->askq && s->broker && strcmp(sbx_broker_kind(s->broker), "tty") == 0 &&
	       sbx_askq_busy(s->askq);
}

void sbx_supervisor_flush(struct sbx_supervisor *s)
{
	uint64_t n, now = now_us() / 1000;

	if (!s)
		return;
	questions_end(s); /* the end record's counts hold them */
	/* the waits that still stand end with the sandbox: recorded now, before its end */
	for (int k = 0; s->n_waits && k < MAX_WAITS; k++)
		fifo_report(s, k, EINTR);
	if (!s->audit)
		return;
	n = sbx_audit_fold_end(&s->fold);
	if (n)
		audit_emit(s, s->pending, n, now);
	n = sbx_audit_rate_end(&s->fold);
	if (n) {
		char line[512];

		if (sbx_audit_fmt_suppressed(line, sizeof(line), sbx_audit_ids(s->audit),
		                             realtime_ms(), n) < sizeof(line))
			(void)sbx_audit_write(s->audit, line);
	}
}

/* Count it, record it in the audit log where it is noteworthy (folded and capped:
 * sbx_audit_fold), tell cmd/sbx. */
static void report(struct sbx_supervisor *s, const struct sbx_sup_req *req,
                   const struct sbx_sup_verdict *v, const char *asked, int errnum, uint64_t t0,
                   bool noteworthy)
{
	struct sbx_sup_event ev = {req, v, asked, errnum, now_us() - t0, noteworthy};

	if (s->audit && noteworthy) {
		static char record[SBX_AUDIT_LINE_MAX], host[SBX_PATH_MAX];
		uint64_t now = now_us() / 1000, repeated, flush;
		enum sbx_audit_fold_act act =
		    sbx_audit_fold(&s->fold, req, v, errnum, now, &repeated, &flush);
		struct sbx_audit_decision d = {
		    .time_ms = realtime_ms(),
		    .req = req,
		    .verdict = v,
		    .asked_path = asked,
		    .host_path = host_path_of(s, req->t.path, host, sizeof(host)),
		    .errnum = errnum,
		    .latency_us = ev.latency_us,
		    .batch_uses = s->batch_uses,
		    .repeated = repeated,
		};

		if (flush)
			audit_emit(s, s->pending, flush, now);
		if (act == SBX_AUDIT_FOLD_KEEP) {
			if (sbx_audit_fmt_decision(s->pending, sizeof(s->pending),
			                           sbx_audit_ids(s->audit),
			                           &d) >= sizeof(s->pending))
				s->pending[0] = '\0';
		} else if (sbx_audit_fmt_decision(record, sizeof(record), sbx_audit_ids(s->audit),
		                                  &d) < sizeof(record)) {
			audit_emit(s, record, act == SBX_AUDIT_FOLD_WRITE ? repeated : 1, now);
		}
	}
	if (s->on_event)
		s->on_event(s->event_ctx, &ev);
}

/* The caller's command line, for the broker: NUL-separated into argv (bounded). */
static void read_cmdline(int procdir, char *buf, size_t size, char **argv, size_t max)
{
	size_t n = 0;
	_cleanup_close_ int fd = openat(procdir, "cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (len > 0) {
		buf[len] = '\0';
		for (char *p = buf; p < buf + len && n + 1 < max; p += strlen(p) + 1)
			argv[n++] = p;
	}
	argv[n] = NULL;
}

/* The request line and the terminal's prompt of question `id` (-ENAMETOOLONG: the request
 * does not fit a line). */
/* A path for the prompt, escaped for the terminal; one too long for `size` keeps its end,
 * where the file's own name is, after "...". */
static void prompt_path(char *out, size_t size, const char *path)
{
	size_t len = strlen(path), tail = (size - 8) / 4; /* an escape takes 4 bytes at most */

	if (sbx_escape(NULL, 0, path, SBX_ESCAPE_TEXT) < size || len <= tail) {
		sbx_escape(out, size, path, SBX_ESCAPE_TEXT);
		return;
	}
	memcpy(out, "...", 4);
	sbx_escape(out + 3, size - 3, path + len - tail, SBX_ESCAPE_TEXT);
}

static int ask_format(struct sbx_supervisor *s, int procdir, const struct sbx_sup_req *req,
                      const struct sbx_sup_verdict *v, uint64_t id, unsigned timeout,
                      bool provisional, char *json, size_t json_size, char *prompt,
                      size_t prompt_size)
{
	static char cmdbuf[4096], host[SBX_PATH_MAX];
	char scope[SBX_SUP_SCOPE_MAX], what[512], who[64];
	char *argv[64];
	struct sbx_sup_ask ask;

	if (sbx_sup_scope(s->sp, req, scope, sizeof(scope)) < 0)
		snprintf(scope, sizeof(scope), "%s", req->t.path);
	read_cmdline(procdir, cmdbuf, sizeof(cmdbuf), argv, SBX_ARRAY_SIZE(argv));
	ask = (struct sbx_sup_ask){
	    .id = id,
	    .sandbox_id = s->sandbox_id,
	    .label = s->sp->label,
	    .req = req,
	    .verdict = v,
	    .scope = scope,
	    .host_path = host_path_of(s, req->t.path, host, sizeof(host)),
	    .cmdline = argv,
	    .deadline_ms = realtime_ms() + timeout,
	    .provisional = provisional,
	};
	if (sbx_sup_ask_json(json, json_size, &ask) >= json_size)
		return -ENAMETOOLONG;
	/* names from the worker: escaped for the terminal, their ends kept where long */
	prompt_path(what, sizeof(what), req->t.path);
	sbx_escape(who, sizeof(who), req->comm ? req->comm : "?", SBX_ESCAPE_TEXT);
	if (req->t2.path && req->op == SBX_SUP_OP_RENAME && req->exchange) {
		/* both names are replaced: the person is asked about both (an outside attack's
		 * exchange asked "rename junk?" and replaced the file beside it) */
		char with[512];

		prompt_path(with, sizeof(with), req->t2.path);
		snprintf(prompt, prompt_size,
		         "sbx: exchange %s and %s (each replaces the other) by %s[%d]? "
		         "[y/N/a(lways)] ",
		         what, with, who, req->pid);
	} else if (req->t2.path && v && v->asked == SBX_AC_OVERWRITE &&
	           req->op == SBX_SUP_OP_RENAME) {
		/* an editor's save: the file it replaces is what the person is asked about */
		char onto[512];

		prompt_path(onto, sizeof(onto), req->t2.path);
		snprintf(prompt, prompt_size,
		         "sbx: overwrite %s (a rename of %s over it) by %s[%d]? [y/N/a(lways)] ",
		         onto, what, who, req->pid);
	} else if (provisional)
		snprintf(prompt, prompt_size,
		         "sbx: keep %s, made by %s[%d] a moment ago (no: it is removed)? "
		         "[y/N/a(lways)] ",
		         what, who, req->pid);
	else
		snprintf(prompt, prompt_size, "sbx: %s %s by %s[%d]? [y/N/a(lways)] ",
		         sbx_sup_op_name(req->op), what, who, req->pid);
	return 0;
}

/* The broker's answer to the call that asked (it is recorded already): a call that no grant
 * answers (none could be kept) is answered as the broker said; who decided is the broker. */
static void ask_apply(const struct sbx_broker_answer *ans, struct sbx_sup_verdict *v)
{
	if (v->answer == SBX_SUP_ASK) {
		v->answer = ans->allow ? SBX_SUP_PERFORM : SBX_SUP_DENY;
		v->errnum = ans->allow ? 0 : EACCES;
	}
	if (v->decider == SBX_SUP_BY_GRANT || v->answer == SBX_SUP_DENY)
		v->decider = ans->decider;
}

/*
 * An `ask` of a broker that answers at once (`allow`, `deny`: the policy, log only), or where
 * no broker is: answered now, within the session's limits; the answer recorded as a grant
 * exactly as narrow as the request, and the request decided again with it.
 */
static void ask_broker(struct sbx_supervisor *s, int procdir, const struct sbx_sup_req *req,
                       struct sbx_sup_verdict *v)
{
	static char json[SBX_AUDIT_LINE_MAX];
	char prompt[2048];
	unsigned timeout = s->sp->timeout_ms ? s->sp->timeout_ms : SBX_SUP_TIMEOUT_MS;
	struct sbx_broker_answer ans;

	if (!s->broker || !sbx_sup_session_admit(&s->session, req->now_ms)) {
		if (s->broker) {
			sbx_sup_refuse_capped(&s->session, v);
		} else {
			v->answer = SBX_SUP_DENY;
			v->errnum = EACCES;
			v->decider = SBX_SUP_BY_NO_BROKER;
		}
		return;
	}
	if (ask_format(s, procdir, req, v, ++s->ask_id, timeout, false, json, sizeof(json), prompt,
	               sizeof(prompt)) < 0) {
		memset(&ans, 0, sizeof(ans));
		ans.decider = SBX_SUP_BY_POLICY;
	} else {
		sbx_broker_ask(s->broker, json, prompt, timeout, &s->cancel, &ans);
	}
	(void)sbx_sup_session_record(&s->session, s->sp, req, ans.allow, ans.remember, NULL);
	sbx_sup_decide(s->sp, &s->guards, &s->session, req, v);
	ask_apply(&ans, v);
}

/* ---- questions pending: the call kept, the broker asked by its thread (os/askq.h) ---- */

/* A request as asked, owning its strings: its answer is recorded for it when it comes,
 * whatever became of the call that asked. */
struct req_copy {
	struct sbx_sup_req req;
	char path[P_PATH], name[P_NAME], path2[P_PATH], name2[P_NAME], comm[32];
};

static struct req_copy *req_copy(const struct sbx_sup_req *req)
{
	struct req_copy *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return NULL;
	rc->req = *req;
	rc->req.t.views = rc->req.t2.views = NULL;
	rc->req.t.n_views = rc->req.t2.n_views = 0;
	snprintf(rc->comm, sizeof(rc->comm), "%s", req->comm ? req->comm : "");
	rc->req.comm = rc->comm;
	if (req->t.path) {
		snprintf(rc->path, sizeof(rc->path), "%s", req->t.path);
		rc->req.t.path = rc->path;
	}
	if (req->t.name) {
		snprintf(rc->name, sizeof(rc->name), "%s", req->t.name);
		rc->req.t.name = rc->name;
	}
	if (req->t2.path) {
		snprintf(rc->path2, sizeof(rc->path2), "%s", req->t2.path);
		rc->req.t2.path = rc->path2;
	}
	if (req->t2.name) {
		snprintf(rc->name2, sizeof(rc->name2), "%s", req->t2.name);
		rc->req.t2.name = rc->name2;
	}
	return rc;
}

/* The answer a re-served call that asked brings with it (serve_call). */
struct prior {
	const struct sbx_sup_qkey *key;
	const struct sbx_broker_answer *ans;
};

/* Question q is over (answered, or nobody waits for it): its slot is free. */
static void question_free(struct sbx_supervisor *s, int q)
{
	free(s->qs[q].rc);
	s->qs[q] = (struct question){0};
}

static void kept_free(struct sbx_supervisor *s, int k)
{
	struct kept *w = &s->kept[k];

	ep_del(s, w->pidfd);
	sbx_closep(&w->pidfd);
	free(w->notif);
	*w = (struct kept){.q = -1, .pidfd = -1};
	s->n_kept--;
}

/* Kept call k will never be answered (its thread ended, or issued another call): dropped,
 * nothing performed; a question nobody waits for any more is cancelled at the broker (a cmd
 * broker killed, a prompt withdrawn) and its slot freed now. */
static void kept_drop(struct sbx_supervisor *s, int k)
{
	int q = s->kept[k].q;

	kept_free(s, k);
	if (q < 0 || !s->qs[q].id || --s->qs[q].n_kept)
		return;
	sbx_askq_cancel(s->askq, s->qs[q].id);
	sbx_sup_session_release(&s->session);
	question_free(s, q);
}

/* The calling thread issued another call: the one it kept is over (killed). */
static void kept_stale(struct sbx_supervisor *s, pid_t tid)
{
	for (int k = 0; s->n_kept && k < MAX_KEPT; k++)
		if (s->kept[k].q >= 0 && s->kept[k].tid == tid)
			kept_drop(s, k);
}

/* Keep the notification being served for question q: 0, or -EAGAIN past MAX_KEPT. */
static int kept_add(struct sbx_supervisor *s, int q, bool first, uint64_t t0)
{
	struct kept *w;
	int k;

	for (k = 0; k < MAX_KEPT && s->kept[k].q != -1; k++)
		;
	if (k == MAX_KEPT)
		return -EAGAIN;
	w = &s->kept[k];
	w->notif = malloc(s->notif_size);
	if (!w->notif)
		return -ENOMEM;
	memcpy(w->notif, s->notif, s->notif_size);
	w->q = q;
	w->first = first;
	w->tid = (pid_t)s->notif->pid;
	w->t0 = t0;
	w->pidfd = (int)syscall(SYS_pidfd_open, s->notif->pid, PIDFD_THREAD);
	if (w->pidfd < 0)
		w->pidfd = (int)syscall(SYS_pidfd_open, s->notif->pid, 0);
	s->n_kept++;
	s->qs[q].n_kept++;
	/* unwatched (no pidfd): dropped when its thread calls again or the answer comes */
	if (w->pidfd >= 0 && ep_add(s, w->pidfd, EP_KEPT_CALLER, k) < 0)
		sbx_closep(&w->pidfd);
	return 0;
}

/* The broker's thread, started at the first question. */
static int askq_start(struct sbx_supervisor *s)
{
	if (s->askq)
		return 0;
	if (sbx_askq_new(s->broker, &s->askq, NULL) < 0)
		return -ENOMEM;
	if (ep_add(s, sbx_askq_fd(s->askq), EP_ANSWER, 0) < 0) {
		sbx_askq_free(s->askq);
		s->askq = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * An `ask` of a broker that thinks (tty, cmd:, socket:), for the notification being served:
 * a call that joins a question pending waits for its answer; past the caps (questions
 * pending, a minute's questions, calls kept) it is denied at once (v: DENY, the rule naming
 * the cap); otherwise the question is queued for the broker's thread. Returns 1 when the
 * call is kept (answered later: questions_answer), 0 with v decided.
 */
static int ask_async(struct sbx_supervisor *s, int procdir, const struct sbx_sup_req *req,
                     struct sbx_sup_verdict *v, uint64_t t0)
{
	static char json[SBX_AUDIT_LINE_MAX];
	static struct sbx_sup_qkey key;
	char prompt[2048];
	unsigned timeout = s->sp->timeout_ms ? s->sp->timeout_ms : SBX_SUP_TIMEOUT_MS;
	bool keyed = sbx_sup_qkey_of(s->sp, req, v, &key) == 0;
	int q;

	for (q = 0; keyed && q < SBX_SUP_PENDING_MAX; q++) {
		if (!s->qs[q].id || !sbx_sup_qkey_joins(&s->qs[q].key, &key))
			continue;
		if (kept_add(s, q, false, t0) == 0)
			return 1;
		goto full;
	}
	if (s->n_kept >= MAX_KEPT)
		goto full;
	if (!sbx_sup_session_admit(&s->session, req->now_ms)) {
		sbx_sup_refuse_capped(&s->session, v);
		return 0;
	}
	for (q = 0; q < SBX_SUP_PENDING_MAX && s->qs[q].id; q++)
		;
	if (q == SBX_SUP_PENDING_MAX || askq_start(s) < 0)
		goto fail;
	s->qs[q].id = ++s->ask_id;
	s->qs[q].key = key;
	if (!keyed)
		s->qs[q].key.scope[0] = '\0'; /* joins nothing */
	s->qs[q].rc = req_copy(req);
	if (!s->qs[q].rc ||
	    ask_format(s, procdir, req, v, s->qs[q].id, timeout, false, json, sizeof(json), prompt,
	               sizeof(prompt)) < 0 ||
	    sbx_askq_put(s->askq, s->qs[q].id, json, prompt, now_us() / 1000 + timeout) < 0) {
		question_free(s, q);
		goto fail;
	}
	if (kept_add(s, q, true, t0) < 0) {
		sbx_askq_cancel(s->askq, s->qs[q].id);
		question_free(s, q);
		goto fail;
	}
	return 1;
fail:
	/* admitted, never asked: a refusal */
	(void)sbx_sup_session_record(&s->session, s->sp, req, false, SBX_SUP_REMEMBER_ONCE, NULL);
	v->answer = SBX_SUP_DENY;
	v->errnum = EACCES;
	v->decider = SBX_SUP_BY_POLICY;
	return 0;
full:
	v->answer = SBX_SUP_DENY;
	v->errnum = EACCES;
	v->decider = SBX_SUP_BY_RATE_LIMIT;
	snprintf(v->rule, sizeof(v->rule),
	         "approvals: at most %d calls may wait for the answers to the questions pending, "
	         "and %d do: denied without asking; answer the questions pending",
	         MAX_KEPT, MAX_KEPT);
	return 0;
}

/* ---- provisional files: an editor's save is one question (sbx/sup_pending.h) ---- */

/* Is slot k's file still at its name (the same inode)? */
static bool prov_there(const struct prov *p)
{
	struct stat st;

	return p->dfd >= 0 &&
	       fstatat(p->dfd, p->name, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) == 0 &&
	       (uint64_t)st.st_dev == p->fdev && (uint64_t)st.st_ino == p->fino;
}

/* Slot k is over (its file replaced a file, was renamed, removed, or answered for): a held
 * question never asked is dropped, one asked is withdrawn. */
static void prov_free(struct sbx_supervisor *s, int k)
{
	struct prov *p = &s->prov[k];

	if (p->qid) {
		for (int q = 0; q < SBX_SUP_PENDING_MAX; q++)
			if (s->qs[q].id == p->qid) {
				sbx_askq_cancel(s->askq, p->qid);
				sbx_sup_session_release(&s->session);
				question_free(s, q);
			}
	}
	if (p->made)
		s->n_prov--;
	sbx_closep(&p->dfd);
	sbx_closep(&p->procdir);
	free(p->rc);
	*p = (struct prov){.dfd = -1, .procdir = -1};
}

/* The timer at the next held question's time (nothing held: disarmed). */
static void prov_arm(struct sbx_supervisor *s)
{
	struct itimerspec its = {0};
	uint64_t next = 0, now = now_us() / 1000;

	for (int k = 0; k < SBX_SUP_PROVISIONAL_MAX; k++)
		if (s->prov[k].made && !s->prov[k].qid && (!next || s->prov[k].due_ms < next))
			next = s->prov[k].due_ms;
	if (s->prov_timer < 0) {
		if (!next)
			return;
		s->prov_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (s->prov_timer < 0 || ep_add(s, s->prov_timer, EP_PROV, 0) < 0)
			return; /* asked at the latest at the sandbox's end (questions_end) */
	}
	if (next) {
		uint64_t in = next > now ? next - now : 1;

		its.it_value.tv_sec = (time_t)(in / 1000);
		its.it_value.tv_nsec = (long)(in % 1000) * 1000000L;
	}
	(void)timerfd_settime(s->prov_timer, 0, &its, NULL);
}

/* The slot t names (its directory, name and inode: still that file), or -1. */
static int prov_find(struct sbx_supervisor *s, const struct sbx_sup_target *t)
{
	for (int k = 0; s->n_prov && k < SBX_SUP_PROVISIONAL_MAX; k++) {
		const struct prov *p = &s->prov[k];

		if (p->made && t->name && t->dev == p->ddev && t->ino == p->dino &&
		    strcmp(t->name, p->name) == 0 && prov_there(p))
			return k;
	}
	return -1;
}

/*
 * A create that asks (v: ASK) made provisional where it may be (core's
 * sbx_sup_provisional_ok, a broker that thinks, a free slot, and a directory sbx can hold
 * on the host's side, checked to be the one the performer resolved): v becomes PERFORM and
 * the slot is reserved (s->prov_next) until the performer has made the file. 0, or -1 (asked
 * as any create).
 */
static int prov_start(struct sbx_supervisor *s, int procdir, const struct sbx_sup_req *req,
                      struct sbx_sup_verdict *v)
{
	static char parent[P_PATH], host[SBX_PATH_MAX];
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	                       .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	struct stat st;
	struct prov *p;
	char *slash;
	int k, dfd;

	if (!s->broker || !sbx_broker_thinks(s->broker) || !sbx_sup_provisional_ok(s->sp, req, v) ||
	    strlen(req->t.name) >= P_NAME ||
	    !sbx_sup_session_room(&s->session, now_us() / 1000, s->n_prov + 1))
		return -1;
	for (k = 0; k < SBX_SUP_PROVISIONAL_MAX && s->prov[k].used; k++)
		;
	if (k == SBX_SUP_PROVISIONAL_MAX)
		return -1;
	snprintf(parent, sizeof(parent), "%s", req->t.path);
	slash = strrchr(parent, '/');
	if (!slash)
		return -1;
	slash[slash == parent ? 1 : 0] = '\0';
	if (!host_path_of(s, parent, host, sizeof(host)))
		return -1;
	dfd = (int)syscall(SYS_openat2, AT_FDCWD, host, &how, sizeof(how));
	if (dfd < 0)
		return -1;
	if (fstat(dfd, &st) < 0 || (uint64_t)st.st_dev != req->t.dev ||
	    (uint64_t)st.st_ino != req->t.ino) {
		close(dfd);
		return -1;
	}
	p = &s->prov[k];
	*p = (struct prov){.used = true, .dfd = dfd, .procdir = -1};
	p->rc = req_copy(req);
	p->procdir = procdir >= 0 ? fcntl(procdir, F_DUPFD_CLOEXEC, 3) : -1;
	if (!p->rc) {
		prov_free(s, k);
		return -1;
	}
	p->ddev = req->t.dev;
	p->dino = req->t.ino;
	p->v = *v;
	p->t0 = now_us();
	snprintf(p->name, sizeof(p->name), "%s", req->t.name);
	s->prov_next = k;
	sbx_sup_provisional_verdict(v);
	return 0;
}

/* The performer made slot k's file (fd: the caller's, about to be handed over), or not. */
static void prov_made(struct sbx_supervisor *s, int k, int r, int fd)
{
	struct prov *p = &s->prov[k];
	struct stat st;

	if (r != 0 || fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		prov_free(s, k);
		return;
	}
	p->fdev = (uint64_t)st.st_dev;
	p->fino = (uint64_t)st.st_ino;
	if (!prov_there(p)) {
		/* sbx's view of the directory is not the performer's: held nowhere, so asked
		 * now rather than never (the question comes at once: due now) */
		p->fdev = p->fino = 0;
	}
	p->made = true;
	s->n_prov++;
	p->due_ms = now_us() / 1000 + (p->fino ? SBX_SUP_PROVISIONAL_MS : 0);
	prov_arm(s);
}

/* Ask slot k's held question now (its time is up, or the sandbox ends): 0, or -EAGAIN past
 * the caps (asked again a second later), -1 when it cannot be asked (removed: refused). */
static int prov_ask(struct sbx_supervisor *s, int k, bool force)
{
	static char json[SBX_AUDIT_LINE_MAX];
	struct prov *p = &s->prov[k];
	char prompt[2048];
	unsigned timeout = s->sp->timeout_ms ? s->sp->timeout_ms : SBX_SUP_TIMEOUT_MS;
	int q;

	if (!sbx_sup_session_admit(&s->session, now_us() / 1000)) {
		if (!force)
			return -EAGAIN;
		s->session.pending++; /* the end: asked all the same, released by its answer */
		s->session.n_asked++;
	}
	for (q = 0; q < SBX_SUP_PENDING_MAX && s->qs[q].id; q++)
		;
	if (q == SBX_SUP_PENDING_MAX || askq_start(s) < 0)
		goto fail;
	s->qs[q].id = ++s->ask_id;
	s->qs[q].prov1 = k + 1;
	s->qs[q].rc = req_copy(&p->rc->req);
	if (!s->qs[q].rc ||
	    ask_format(s, p->procdir, &p->rc->req, &p->v, s->qs[q].id, timeout, true, json,
	               sizeof(json), prompt, sizeof(prompt)) < 0 ||
	    sbx_askq_put(s->askq, s->qs[q].id, json, prompt, now_us() / 1000 + timeout) < 0) {
		question_free(s, q);
		goto fail;
	}
	p->qid = s->qs[q].id;
	return 0;
fail:
	sbx_sup_session_release(&s->session);
	return -1;
}

/* Slot k's file is refused (by the broker, or it could not be asked): removed, if it is
 * still that file at that name, and said. */
static void prov_refused(struct sbx_supervisor *s, int k, enum sbx_sup_decider by, const char *why)
{
	struct prov *p = &s->prov[k];
	struct sbx_sup_verdict v = p->v;
	bool gone = prov_there(p) && unlinkat(p->dfd, p->name, 0) == 0;

	v.answer = SBX_SUP_DENY;
	v.errnum = EACCES;
	v.decider = by;
	snprintf(v.rule + strnlen(v.rule, 256), sizeof(v.rule) - strnlen(v.rule, 256),
	         ": the provisional file %s (%s)", gone ? "was removed" : "is gone", why);
	p->rc->req.now_ms = now_us() / 1000;
	report(s, &p->rc->req, &v, p->rc->req.t.path, EACCES, p->t0, true);
}

/* The held questions whose time is up: asked (a file gone meanwhile is forgotten). */
static void prov_due(struct sbx_supervisor *s)
{
	uint64_t now = now_us() / 1000;

	for (int k = 0; s->n_prov && k < SBX_SUP_PROVISIONAL_MAX; k++) {
		struct prov *p = &s->prov[k];
		int r;

		if (!p->made || p->qid || p->due_ms > now)
			continue;
		if (p->fino && !prov_there(p)) {
			prov_free(s, k); /* unlinked or moved where sbx did not see */
			continue;
		}
		r = prov_ask(s, k, false);
		if (r == -EAGAIN) {
			p->due_ms = now + 1000;
		} else if (r < 0) {
			prov_refused(s, k, SBX_SUP_BY_POLICY, "its question could not be asked");
			prov_free(s, k);
		}
	}
	prov_arm(s);
}

/* The broker answered slot k's question: kept, or removed. */
static void prov_answered(struct sbx_supervisor *s, int k, const struct sbx_broker_answer *ans)
{
	struct prov *p = &s->prov[k];

	p->qid = 0; /* its question is being freed by the caller */
	if (!ans->allow) {
		prov_refused(s, k, ans->decider, "refused");
	} else {
		struct sbx_sup_verdict v = p->v;

		v.answer = SBX_SUP_PERFORM;
		v.decider = ans->decider;
		p->rc->req.now_ms = now_us() / 1000;
		report(s, &p->rc->req, &v, p->rc->req.t.path, 0, p->t0, true);
	}
	prov_free(s, k);
}

/* The call being served is over (result r): the slot it reserved is made or freed, the slot
 * it named is ended by a rename or unlink performed. */
static void prov_after(struct sbx_supervisor *s, const struct asked *a, int r, int fd)
{
	int k;

	if (s->prov_next >= 0) {
		k = s->prov_next;
		s->prov_next = -1;
		prov_made(s, k, r, fd);
	}
	if (s->prov_hit >= 0) {
		k = s->prov_hit;
		s->prov_hit = -1;
		if (r == 0 && (a->row->kind == C_RENAME || a->row->kind == C_UNLINK))
			prov_free(s, k);
	}
}

/* A call served again from the start (or lost): what it reserved is not its any more. */
static void prov_forget_call(struct sbx_supervisor *s)
{
	if (s->prov_next >= 0)
		prov_free(s, s->prov_next);
	s->prov_next = s->prov_hit = -1;
}

static bool same_name(const char *a, const char *b, bool casefold)
{
	char fa[P_NAME], fb[P_NAME];

	if (!casefold)
		return strcmp(a, b) == 0;
	if (sbx_sup_fold(a, fa, sizeof(fa)) < 0 || sbx_sup_fold(b, fb, sizeof(fb)) < 0)
		return true;
	return strcmp(fa, fb) == 0;
}

/* mkdir of a name on the way to protected paths: the new directory is watched for the next
 * component of each of them. */
static void guard_mkdir_in(struct sbx_sup_guards *guards, const struct sbx_sup_guards *pinned,
                           const struct sbx_sup_plan *sp, const struct sbx_sup_req *req,
                           uint64_t dev, uint64_t ino)
{
	size_t n = guards->n;

	if (!dev)
		return;
	for (size_t i = 0; i < n + pinned->n; i++) {
		/* a watched name, or a pinned one made again after it was removed */
		const struct sbx_sup_guard g = i < n ? guards->g[i] : pinned->g[i - n];
		const char *path;
		char comp[P_NAME];

		if (g.final || g.dev != req->t.dev || g.ino != req->t.ino ||
		    !same_name(g.name, req->t.name, req->t.casefold))
			continue;
		path = sp->protected_paths[g.protected_index].path;
		if (!component(path, g.depth + 1, comp, sizeof(comp)))
			continue;
		/* out of room: the table stays as it is, and the new directory's next name is
		 * not watched; sbx_sup_guards_add caps the table (SBX_SUP_GUARDS_MAX) */
		(void)sbx_sup_guards_add(guards, dev, ino, comp, g.protected_index, g.depth + 1,
		                         g.depth + 2 == components(path), NULL);
	}
	guards_finals_first(guards);
}

static void guard_mkdir(struct sbx_supervisor *s, const struct sbx_sup_req *req, uint64_t dev,
                        uint64_t ino)
{
	size_t n = s->guards.n;

	guard_mkdir_in(&s->guards, &s->pinned, s->sp, req, dev, ino);
	if (s->guards.n != n) {
		s->guards_gen++; /* a new directory holds a protected name: reach anew */
		subs_sync_guards(s);
	}
}

/* A directory that existed on the way to a protected path at launch, moved away, replaced,
 * or (once removed) made again as anything but a directory: refused. Made again as a
 * directory, it is watched as a directory on the way (guard_mkdir). */
/* A denial sbx decides itself (EACCES, by policy, no class asked); the caller writes the rule. */
static void policy_denial(struct sbx_sup_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->answer = SBX_SUP_DENY;
	v->errnum = EACCES;
	v->decider = SBX_SUP_BY_POLICY;
	v->asked = SBX_AC_COUNT;
}

static bool pinned_in(const struct sbx_sup_guards *pinned, const struct sbx_sup_plan *sp,
                      const struct sbx_sup_req *req, struct sbx_sup_verdict *v)
{
	const struct sbx_sup_guard *g = NULL;

	if (!pinned->n)
		return false;
	if (req->t.path && req->op != SBX_SUP_OP_READ && req->op != SBX_SUP_OP_METADATA &&
	    req->op != SBX_SUP_OP_WRITE && !(req->op == SBX_SUP_OP_CREATE && req->t2.path)) {
		g = sbx_sup_guards_find(pinned, req->t.dev, req->t.ino, req->t.name,
		                        req->t.casefold);
		if (g && req->op == SBX_SUP_OP_CREATE && req->call &&
		    (strcmp(req->call, "mkdir") == 0 || strcmp(req->call, "mkdirat") == 0))
			g = NULL;
	}
	if (!g && req->t2.path)
		g = sbx_sup_guards_find(pinned, req->t2.dev, req->t2.ino, req->t2.name,
		                        req->t2.casefold);
	if (!g)
		return false;
	policy_denial(v);
	snprintf(v->rule, sizeof(v->rule),
	         "protected: %s (a directory on the way to it cannot be moved, replaced or made "
	         "as anything else)",
	         sp->protected_paths[g->protected_index].path);
	return true;
}

static bool pinned(struct sbx_supervisor *s, const struct sbx_sup_req *req,
                   struct sbx_sup_verdict *v)
{
	return pinned_in(&s->pinned, s->sp, req, v);
}

/* A provisional file (sup_pending.h) is renamed only plainly, to end its question or to be
 * asked under its new name: exchanged with another (RENAME_EXCHANGE), replaced by a whiteout
 * (RENAME_WHITEOUT), or itself the new name of a rename or link, its held question would no
 * longer name what is there. Refused: an editor's save does none of these. */
static bool prov_misused(const struct sbx_sup_req *req, bool onto, struct sbx_sup_verdict *v)
{
	if (!onto && !(req->t_provisional && (req->exchange || req->whiteout)))
		return false;
	policy_denial(v);
	snprintf(v->rule, sizeof(v->rule),
	         "provisional: %s is a file made without its question yet (an editor's save): "
	         "it is renamed plainly or not at all",
	         onto ? req->t2.path : req->t.path);
	return true;
}

/* Answer with a verdict that is no PERFORM, and report it. */
static void answer_plain(struct sbx_supervisor *s, const struct sbx_sup_req *req,
                         struct sbx_sup_verdict *v, const char *asked, uint64_t t0)
{
	if (v->answer == SBX_SUP_DENY) {
		int e = v->errnum ? v->errnum : EACCES;

		respond(s, e, false);
		report(s, req, v, asked, e, t0, true);
		return;
	}
	/* CONTINUE: only ever for a narrower caller (serve) */
	respond(s, 0, true);
	report(s, req, v, asked, 0, t0, v->rule[0] != '\0');
}

/* A copy of a decision that waits for its result (a FIFO's open), or NULL. */
static struct fifo_note *fifo_note(const struct sbx_supervisor *s, const struct sbx_sup_req *req,
                                   const struct sbx_sup_verdict *v, const char *asked, uint64_t t0)
{
	struct fifo_note *n = malloc(sizeof(*n));

	if (!n)
		return NULL;
	n->req = *req;
	n->v = *v;
	n->t0 = t0;
	n->batch_uses = s->batch_uses;
	snprintf(n->comm, sizeof(n->comm), "%s", req->comm ? req->comm : "?");
	snprintf(n->path, sizeof(n->path), "%s", req->t.path ? req->t.path : "");
	snprintf(n->name, sizeof(n->name), "%s", req->t.name ? req->t.name : "");
	snprintf(n->asked, sizeof(n->asked), "%s", asked ? asked : "");
	n->req.comm = n->comm;
	n->req.t.path = req->t.path ? n->path : NULL;
	n->req.t.name = req->t.name ? n->name : NULL;
	n->req.t.views = n->req.t2.views = NULL;
	n->req.t.n_views = n->req.t2.n_views = 0;
	n->req.t2.path = n->req.t2.name = NULL; /* an open has one side */
	return n;
}

/* PERFORM what the performer resolved; returns P_RETRY when the caller changed the names
 * under its own call (asked again from the start), -EPIPE when the performer is lost. */
/* Answer with what the performer did (result, and the opened fd). Returns P_RETRY when the
 * caller changed the names under its own call (asked again from the start). */
static int answer_performed(struct sbx_supervisor *s, const struct asked *a,
                            const struct sbx_sup_req *req, struct sbx_sup_verdict *v,
                            const char *asked, uint64_t t0, bool last_try, int r, int fd)
{
	if (s->prov_next >= 0 || s->prov_hit >= 0)
		prov_after(s, a, r, fd);
	if (r == P_RETRY) {
		if (fd >= 0)
			close(fd);
		if (!last_try)
			return P_RETRY;
		r = -EAGAIN;
	}
	if (r == P_WAIT_FULL) {
		/* the cap: said as a refusal, with what to do */
		v->answer = SBX_SUP_DENY;
		v->errnum = EAGAIN;
		v->decider = SBX_SUP_BY_POLICY;
		snprintf(v->rule, sizeof(v->rule),
		         "FIFO opens: at most %d opens of a FIFO may wait for their other end at "
		         "once, and %d do; open the other ends first, or use O_NONBLOCK",
		         MAX_WAITS, MAX_WAITS);
		if (fd >= 0)
			close(fd);
		respond(s, EAGAIN, false);
		report(s, req, v, asked, EAGAIN, t0, true);
		return 0;
	}
	if (r == P_WAIT) {
		/* answered when the other end comes (fifo_done); decided and performed now, and
		 * recorded with the result (fifo_report) */
		struct fifo_note *note;

		v->answer = SBX_SUP_PERFORM;
		note = fd >= 0 ? fifo_note(s, req, v, asked, t0) : NULL;
		r = fd >= 0 ? fifo_start(s, fd, (a->flags & O_CLOEXEC) != 0, note) : -EIO;
		if (r < 0) {
			free(note);
			r = r == -EAGAIN ? EAGAIN : ENXIO;
			if (notif_valid(s) == 0)
				respond(s, r, false);
			else
				r = EINTR; /* its caller ended first: no answer came */
			report(s, req, v, asked, r, t0, v->rule[0] != '\0');
		} else if (!note) {
			/* no memory to keep it: recorded as it starts */
			report(s, req, v, asked, 0, t0, v->rule[0] != '\0');
		}
		return 0;
	}
	if (r == 0 && fd >= 0) {
		r = respond_fd(s, fd, (a->flags & O_CLOEXEC) != 0);
		close(fd);
		if (r == -ENOENT)
			return 0; /* the caller is gone: the fd was not added */
		if (r < 0)
			respond(s, -r, false);
	} else {
		if (fd >= 0)
			close(fd);
		if (r == 0 && a->row->kind == C_MKDIR)
			guard_mkdir(s, req, s->rep.new_dev, s->rep.new_ino);
		respond(s, r < 0 ? -r : 0, false);
	}
	v->answer = SBX_SUP_PERFORM;
	report(s, req, v, asked, r < 0 ? -r : 0, t0, v->rule[0] != '\0');
	return 0;
}

/* PERFORM what the performer resolved and kept; -EPIPE when the performer is lost. */
static int answer_perform(struct sbx_supervisor *s, const struct asked *a,
                          const struct sbx_sup_req *req, struct sbx_sup_verdict *v,
                          const char *asked, uint64_t t0, bool last_try)
{
	int fd = -1;

	memset(&s->req, 0, offsetof(struct p_req, path));
	s->req.kind = P_PERFORM;
	s->req.may_wait = s->n_waits < MAX_WAITS;
	if (perf_call(s, &s->req, NULL, 0, &fd) < 0)
		return -EPIPE;
	return answer_performed(s, a, req, v, asked, t0, last_try, s->rep.result, fd);
}

/* The sandbox path of the directory that holds guard g: the first g->depth components of
 * its protected path (a directory on the way is made by the performer at that path and can
 * be neither moved nor removed while watched). */
static int guard_dir_path(const struct sbx_sup_plan *sp, const struct sbx_sup_guard *g, char *out,
                          size_t size)
{
	const char *path = g->protected_index < sp->n_protected
	                       ? sp->protected_paths[g->protected_index].path
	                       : NULL;
	size_t len = 1;

	if (!path || path[0] != '/')
		return -EINVAL;
	out[0] = '/';
	out[1] = '\0';
	for (size_t k = 0; k < g->depth; k++) {
		char comp[P_NAME];
		int n;

		if (!component(path, k, comp, sizeof(comp)))
			return -EINVAL;
		n = snprintf(out + len, size - len, "%s%s", len > 1 ? "/" : "", comp);
		if (n < 0 || (size_t)n >= size - len)
			return -ENAMETOOLONG;
		len += (size_t)n;
	}
	return 0;
}

/*
 * Can a caller in namespaces of its own (a sub-sandbox) reach a directory that holds a
 * protected name? Its calls are CONTINUEd (never performed: the performer's rights are wider
 * than its own), and the kernel resolves a CONTINUEd path again after the check, so a caller
 * that can reach such a directory could aim a create at the protected name once checked.
 * Sandbox paths are the same in the worker and in every sub-sandbox (a nested sbx narrows,
 * it cannot remap): each directory's path is resolved in the caller's root, from sbx (not
 * under the worker's filter), beneath that root and without magic links; where it resolves to
 * the same directory, the caller reaches it. Where it does not resolve, or resolves to
 * something else (a directory of the child's own scaffold, as for a --restrict to a subtree),
 * or lies on a read-only mount there (a --readonly child), the directory is out of its reach: ".."
 * at a bind mount's root climbs into the child's scaffold, and its own Landlock layer bounds a
 * descriptor passed to it. Anything that cannot be learnt is reach (fail closed). One resolution
 * per mount namespace and root, while the table stays as it is.
 */
static bool reaches_guard(struct sbx_supervisor *s, const struct caller *c)
{
	_cleanup_close_ int root = openat(c->procdir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	uint64_t mnt = ns_ino(c->procdir, "ns/mnt");
	struct stat rst;
	struct reach *e;
	bool reaches = false;

	if (root < 0 || !mnt || fstat(root, &rst) < 0)
		return true;
	for (size_t i = 0; i < REACH_CACHE; i++) {
		e = &s->reach[i];
		if (e->valid && e->gen == s->guards_gen && e->mnt == mnt &&
		    e->root_dev == (uint64_t)rst.st_dev && e->root_ino == (uint64_t)rst.st_ino)
			return e->reaches;
	}
	for (size_t i = 0; i < s->guards.n && !reaches; i++) {
		const struct sbx_sup_guard *g = &s->guards.g[i];
		struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
		char path[P_PATH];
		bool seen = false;
		struct stat st;
		struct statvfs vfs;
		int fd = -1;

		for (size_t j = 0; j < i && !seen; j++)
			seen = s->guards.g[j].dev == g->dev && s->guards.g[j].ino == g->ino;
		if (seen)
			continue;
		if (guard_dir_path(s->sp, g, path, sizeof(path)) < 0) {
			reaches = true;
			break;
		}
		/* EAGAIN: a rename raced a ".." (RESOLVE_IN_ROOT); asked again, then reach */
		for (int tries = 0; tries < 8; tries++) {
			fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
			if (fd >= 0 || errno != EAGAIN)
				break;
		}
		if (fd < 0) {
			/* not there, or not a directory there: out of reach by this path */
			if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP &&
			    errno != EACCES && errno != EXDEV)
				reaches = true;
			continue;
		}
		/* the same directory, writable there: a read-only mount in the caller's root
		 * (a --readonly child's) takes no new name, and one a less privileged user
		 * namespace inherited stays so (MNT_LOCK_READONLY) */
		if (fstat(fd, &st) < 0 || fstatvfs(fd, &vfs) < 0 ||
		    ((uint64_t)st.st_dev == g->dev && (uint64_t)st.st_ino == g->ino &&
		     !(vfs.f_flag & ST_RDONLY)))
			reaches = true;
		close(fd);
	}
	e = &s->reach[s->reach_next++ % REACH_CACHE];
	*e = (struct reach){.mnt = mnt,
	                    .root_dev = (uint64_t)rst.st_dev,
	                    .root_ino = (uint64_t)rst.st_ino,
	                    .gen = s->guards_gen,
	                    .valid = true,
	                    .reaches = reaches};
	return reaches;
}

/*
 * One notification, start to end. Every path out answers the kernel: with the performer's
 * result, an errno, or (for a narrower caller only) CONTINUE; or not at all where the caller
 * is gone. A path that cannot be resolved is denied with the resolver's errno, never let
 * through. Returns -EPIPE when the performer is lost.
 */
/* The caller's ids into the request, where caller_open did not read them. */
static int caller_fill(struct sbx_supervisor *s, struct caller *c, struct sbx_sup_req *req)
{
	int r = c->ids ? 0 : caller_ids(s, c, NULL, 0);

	if (r >= 0)
		req->pid = c->tgid > 0 ? c->tgid : c->pid;
	return r;
}

/* The calls serve_diverge records (emit_diverge_tests, arguments and all: another test of
 * prctl or clone may send other calls of theirs, which are not these). */
static bool diverge_call(const struct seccomp_notif *n)
{
	const struct seccomp_data *d = &n->data;
	int nr = d->nr;

	if (d->arch != SUP_AUDIT_ARCH)
		return false;
#ifdef __NR_clone3
	if (nr == __NR_clone3)
		return true;
#endif
	return nr == __NR_unshare || nr == __NR_setns || nr == __NR_umask ||
	       (nr == __NR_seccomp && (uint32_t)d->args[0] < 2) ||
	       (nr == __NR_prctl && (uint32_t)d->args[0] == PR_SET_SECCOMP) ||
	       (nr == __NR_clone && ((uint32_t)d->args[0] & SUP_CLONE_NEW));
}

/* clone with CLONE_PARENT, or clone3 (serve_clone_parent). */
static bool clone_parent_call(const struct seccomp_notif *n)
{
	const struct seccomp_data *d = &n->data;

	if (d->arch != SUP_AUDIT_ARCH)
		return false;
#ifdef __NR_clone3
	if ((int)d->nr == __NR_clone3)
		return true;
#endif
	return (int)d->nr == __NR_clone && ((uint32_t)d->args[0] & CLONE_PARENT);
}

static void ep_serve(struct sbx_supervisor *s);

/*
 * connect(2) under the landlock backend's allowlist (include/sbx/netll.h): the address is
 * copied (the notification still valid after the read, so it is the caller's), the socket
 * taken with pidfd_getfd, core decides on what was copied, and sbx connects its copy of the
 * socket (one open file with the caller's: the connection is the caller's), never CONTINUE,
 * which would let the kernel read the address again after the check. Whatever the caller
 * is (a sub-worker too, whose own filters stop their connects first): only the proxy's
 * ports on loopback are ever reached, and the proxy is told the connection's local port
 * first, so that it serves this connection and no other process's of the host. The
 * answer is the connect's own: 0, EINPROGRESS for a non-blocking socket, ECONNREFUSED, ...
 */
static void serve_connect(struct sbx_supervisor *s)
{
	const struct seccomp_data *d = &s->notif->data;
	struct sockaddr_storage sa, self;
	struct sbx_netll_sock sk = {-1, -1, -1};
	socklen_t ol = sizeof(int), sl = sizeof(self);
	/* the kernel reads addrlen as an int: its low 32 bits, and only those are copied */
	uint32_t len = (uint32_t)d->args[2];
	_cleanup_close_ int pidfd = -1, sock = -1;
	enum sbx_netll_verdict v;
	char what[128], line[1024];
	unsigned port = 0;
	int r, e;

	memset(&sa, 0, sizeof(sa));
	if ((int)len < 0 || len > sizeof(sa)) {
		respond(s, EINVAL, false); /* as the kernel says */
		return;
	}
	if (len && (r = read_mem(s->notif->pid, d->args[1], &sa, (size_t)len)) < 0) {
		if (notif_valid(s) == 0)
			respond(s, -r, false);
		return;
	}
	if (notif_valid(s) < 0)
		return;
	pidfd = (int)syscall(SYS_pidfd_open, s->notif->pid, PIDFD_THREAD);
	if (pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, s->notif->pid, 0);
	if (pidfd < 0 || notif_valid(s) < 0)
		return; /* gone */
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)d->args[0], 0);
	if (sock < 0) {
		e = errno == ESRCH ? 0 : errno == EBADF ? EBADF : errno;
		if (e && notif_valid(s) == 0)
			respond(s, e, false);
		return;
	}
	if (notif_valid(s) < 0)
		return;
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &sk.domain, &ol) < 0) {
		respond(s, errno == ENOTSOCK ? ENOTSOCK : EACCES, false);
		return;
	}
	ol = sizeof(int);
	(void)getsockopt(sock, SOL_SOCKET, SO_TYPE, &sk.type, &ol);
	ol = sizeof(int);
	(void)getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &sk.protocol, &ol);
	v = sbx_netll_decide(&sk, &sa, (size_t)len, s->net_ports, s->n_net_ports, false, what,
	                     sizeof(what));
	if (v != SBX_NETLL_ALLOW) {
		sbx_netll_refusal_text(v, what, s->net_ports[0], s->net_ports[1], line,
		                       sizeof(line));
		sbx_netproxy_gate_refused(s->proxy, what, line);
		respond(s, EACCES, false);
		return;
	}
	/* the local port, known before the connect: bound here where the socket has none
	 * (Landlock lets the worker bind no TCP port), on the address it connects to */
	if (getsockname(sock, (struct sockaddr *)&self, &sl) == 0)
		port = self.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&self)->sin_port)
		       : self.ss_family == AF_INET6
		           ? ntohs(((struct sockaddr_in6 *)&self)->sin6_port)
		           : 0;
	if (!port) {
		struct sockaddr_storage b = sa;

		if (b.ss_family == AF_INET)
			((struct sockaddr_in *)&b)->sin_port = 0;
		else
			((struct sockaddr_in6 *)&b)->sin6_port = 0;
		sl = sizeof(self);
		if (bind(sock, (struct sockaddr *)&b, (socklen_t)len) < 0 ||
		    getsockname(sock, (struct sockaddr *)&self, &sl) < 0) {
			respond(s, errno, false);
			return;
		}
		port = self.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&self)->sin_port)
		                                 : ntohs(((struct sockaddr_in6 *)&self)->sin6_port);
	}
	sbx_netproxy_expect(s->proxy, port, true);
	/* A blocking socket blocks sbx here: on loopback, to a listener whose queue the
	 * proxy's thread drains, the handshake is done within the call. Bounded all the same
	 * (a full queue would have sbx wait for SYN retries): at most SUP_CONNECT_S, after
	 * which the answer is EINPROGRESS, as a blocking connect's with SO_SNDTIMEO; the
	 * socket's own timeout is given back. */
	{
		struct timeval own = {0}, bound = {SUP_CONNECT_S, 0};
		socklen_t tl = sizeof(own);
		bool set = getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &own, &tl) == 0 &&
		           (own.tv_sec >= SUP_CONNECT_S || (!own.tv_sec && !own.tv_usec)) &&
		           setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof(bound)) == 0;

		r = connect(sock, (struct sockaddr *)&sa, (socklen_t)len);
		e = r < 0 ? errno : 0;
		if (set)
			(void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &own, sizeof(own));
	}
	/* no new connection from this call (EALREADY, EISCONN: an earlier call's, told then),
	 * or none at all: the port is not expected any more */
	if (e && e != EINPROGRESS)
		sbx_netproxy_expect(s->proxy, port, false);
	respond(s, e, false);
}

static int serve_call(struct sbx_supervisor *s, uint64_t t0, const struct prior *pr);

static int serve(struct sbx_supervisor *s)
{
	uint64_t t0;

	memset(s->notif, 0, s->notif_size);
	if (ioctl(s->notify, SECCOMP_IOCTL_NOTIF_RECV, s->notif) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : -errno;
	t0 = now_us();
	if (s->n_kept)
		kept_stale(s, (pid_t)s->notif->pid);
	if (s->n_waits)
		fifo_stale(s, (pid_t)s->notif->pid);
	if (s->n_waits)
		fifo_sweep(s);
	if (s->n_waits >= MAX_WAITS)
		ep_serve(s); /* a wait whose caller ended since the poll is no wait */
	if (s->notif->data.nr == __NR_landlock_restrict_self &&
	    s->notif->data.arch == SUP_AUDIT_ARCH) {
		/* for good, whatever the table of restricted processes keeps (caller_open) */
		s->diverged = true;
		serve_landlock(s);
		return 0;
	}
	if (clone_parent_call(s->notif)) {
		serve_clone_parent(s);
		if (!diverge_call(s->notif)) {
			if (notif_valid(s) == 0)
				respond(s, 0, true);
			return 0;
		}
	}
	if (diverge_call(s->notif)) {
		serve_diverge(s);
		return 0;
	}
	if (s->notif->data.nr == __NR_prctl && s->notif->data.arch == SUP_AUDIT_ARCH) {
		serve_subreaper(s);
		return 0;
	}
	if (s->notif->data.nr == __NR_connect && s->notif->data.arch == SUP_AUDIT_ARCH) {
		serve_connect(s);
		return 0;
	}
	return serve_call(s, t0, NULL);
}

/*
 * The notification in s->notif, a call of the file families: resolved, decided, performed or
 * denied, or kept while its question is pending (answered later: questions_answer, which
 * serves it again from the start with `pr`, the broker's answer to it; NULL otherwise).
 */
static int serve_call(struct sbx_supervisor *s, uint64_t t0, const struct prior *pr)
{
	static struct p_target t[2];
	struct caller c = {.procdir = -1, .pidfd = -1};
	struct asked a;
	struct p_req *q = &s->req;
	struct sbx_sup_req req;
	struct sbx_sup_verdict v;
	int fds[4], side_fd[2], nfds = 0, r, tries = 0, fast_fd = -1;
	char asked[P_PATH];
	bool full = s->audit || s->verbose; /* every decision is shown with its caller */
	bool answered;                      /* pr answers this very call */
	bool prov_onto;                     /* t2 names a provisional file */

again:
	answered = false;
	prov_onto = false;
	prov_forget_call(s);
	s->via = -1;
	s->batch_uses = 0;
	memset(&req, 0, sizeof(req));
	memset(&v, 0, sizeof(v));
	memset(t, 0, sizeof(t));
	asked[0] = '\0';
	side_fd[0] = side_fd[1] = -1;
	nfds = 0;
	r = caller_open(s, &c, full);
	if (r == -ENOENT)
		goto out; /* gone */
	if (r < 0) {
		respond(s, -r, false);
		goto out;
	}
	sub_serve(s, &c);
	r = decode(s, &c, &a, q);
	if (r < 0) {
		if (r != -ENOENT || notif_valid(s) == 0)
			respond(s, -r, false);
		goto out;
	}
	snprintf(asked, sizeof(asked), "%s", a.fd_based ? "" : q->path[0]);
	/* the fds: each side's dirfd where its path is relative, the object of an fd call */
	for (uint32_t i = 0; i < q->nsides && r >= 0; i++) {
		if (q->path[i][0] == '/')
			continue;
		r = caller_fd(s, &c, a.dirfd[i]);
		if (r >= 0) {
			side_fd[i] = fds[nfds++] = r;
			q->has_dirfd[i] = 1;
		}
	}
	if (r >= 0 && a.fd_based) {
		r = a.fd == AT_FDCWD ? -EFAULT : caller_fd(s, &c, a.fd);
		if (r >= 0)
			fds[nfds++] = r;
	}
	if (r >= 0 && q->has_sock && !c.narrower) {
		r = a.fd == AT_FDCWD ? -EBADF : caller_fd(s, &c, a.fd);
		if (r >= 0)
			fds[nfds++] = r;
	}
	if (r < 0) {
		if (r != -ENOENT || notif_valid(s) == 0)
			respond(s, -r, false);
		goto out;
	}
	req.call = a.row->name;
	req.pid = c.tgid > 0 ? c.tgid : c.pid;
	req.comm = c.comm;
	req.narrower = c.narrower;
	req.own_namespaces = c.narrower && c.other_ns;
	req.now_ms = t0 / 1000;

	if (c.narrower && a.row->kind == C_BIND && a.fd_based) {
		/* a narrower caller's bind with no pathname: CONTINUEd for a sub-sandbox (the
		 * named gap: it could change the address into a protected name after this), and
		 * refused to a process of the worker's that only narrowed itself while protected
		 * names are watched, as its creations are (core's rule) */
		if (!c.other_ns && (s->guards.n || s->sp->no_new_git))
			respond(s, EACCES, false);
		else
			respond(s, 0, true);
		goto out;
	}
	if (c.narrower) {
		for (uint32_t i = 0; i < q->nsides && r >= 0; i++)
			r = q->empty[i] ? -EACCES
			                : resolve_narrower(&c, side_fd[i], q->path[i], &t[i]);
		if (r >= 0 && a.fd_based)
			r = -EACCES; /* an fd's metadata, for a sub-sandbox: not decided here */
		if (r < 0) {
			respond(s, -r, false);
			goto out;
		}
	} else {
		/* RESOLVE: the performer, with the worker's rights, in the worker's view; it
		 * performs at once where it decides so (perf_fast) */
		/* while files are provisional, a call with two names is decided by sbx alone:
		 * the performer knows nothing of them (prov_misused) */
		q->fast = !(s->n_prov && q->nsides == 2);
		q->may_wait = s->n_waits < MAX_WAITS;
		snprintf(q->call_name, sizeof(q->call_name), "%s", a.row->name);
		r = perf_call(s, q, fds, (size_t)nfds, &fast_fd);
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		nfds = 0;
		if (r < 0) {
			caller_close(&c);
			return -EPIPE; /* the caller is answered by the sandbox's end */
		}
		if (s->rep.need_ids && !c.ids && !s->rep.performed) {
			/* the path goes through /proc: again, knowing who the caller is there */
			if (fast_fd >= 0)
				close(fast_fd);
			fast_fd = -1;
			caller_close(&c);
			full = true;
			goto again;
		}
		for (uint32_t i = 0; i < (q->fd_based ? 1u : q->nsides); i++) {
			if (s->rep.t[i].err < 0) {
				respond(s, -s->rep.t[i].err, false);
				goto out;
			}
		}
		t[0] = s->rep.t[0];
		t[1] = s->rep.t[1];
	}
	req.op = op_for(a.row->kind, a.flags, q->length, &t[0], &t[1]);
	req_flags(&req, a.row->kind, a.flags);
	req.excl = a.row->kind == C_OPEN && (a.flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) &&
	           !(a.flags & SBX_O_TMPFILE_BIT);
	fill_target(&req.t, &t[0]);
	if (q->nsides == 2)
		fill_target(&req.t2, &t[1]);
	views_fill(s->plan, s->sp, &req, &s->views);
	if (!c.narrower && s->n_prov && !a.fd_based && (s->prov_hit = prov_find(s, &req.t)) >= 0)
		req.t_provisional = true; /* its sides ask nothing: sbx/sup_pending.h */
	/* a provisional file exchanged, whited out, or the new name of a call: its held
	 * question would no longer name what is there (refused, prov_misused) */
	prov_onto = s->n_prov && req.t2.path && prov_find(s, &req.t2) >= 0;

	if (!c.narrower && s->rep.performed) {
		/* the performer decided and performed: sbx decides the same, or the two disagree
		 * and nothing can be trusted any more (the sandbox ends) */
		if (!(t[0].is_object && t[0].path[0] != '/') && !pinned(s, &req, &v) &&
		    !prov_misused(&req, prov_onto, &v))
			sbx_sup_decide(s->sp, &s->guards, &s->session, &req, &v);
		if (!(t[0].is_object && t[0].path[0] != '/') && v.answer != SBX_SUP_PERFORM &&
		    v.answer != SBX_SUP_CONTINUE) {
			if (fast_fd >= 0)
				close(fast_fd);
			caller_close(&c);
			return -EPIPE;
		}
		r = answer_performed(s, &a, &req, &v, asked, t0, tries + 1 >= MAX_RETRY,
		                     s->rep.result, fast_fd);
		fast_fd = -1;
	} else if (!c.narrower && t[0].is_object && t[0].path[0] != '/') {
		/* a pipe, a socket, an anonymous inode reached through a magic link
		 * (/dev/stdout): no name in any file system, nothing a rule can name */
		r = answer_perform(s, &a, &req, &v, asked, t0, tries + 1 >= MAX_RETRY);
	} else {
		/*
		 * A narrower caller is CONTINUEd or denied, and a CONTINUEd path is resolved
		 * again by the kernel after this check. While protected names are watched, core
		 * denies its creations unless every directory that holds one is out of its
		 * reach: only a caller in namespaces of its own (a sub-sandbox, possible only
		 * where the profile allows nesting) can be, a process of the worker that only
		 * gave itself a filter sees what the worker sees.
		 */
		if (c.other_ns && s->guards.n)
			req.guards_out_of_reach = !reaches_guard(s, &c);
		/* a once-grant is one thread group's: who asks must be known */
		if (s->session.n_grants && (r = caller_fill(s, &c, &req)) < 0)
			goto unknown;
		if (!pinned(s, &req, &v) && !prov_misused(&req, prov_onto, &v))
			sbx_sup_decide(s->sp, &s->guards, &s->session, &req, &v);
		/* a question and a denial name the caller, and so does an answer brought */
		if ((v.answer == SBX_SUP_ASK || v.answer == SBX_SUP_DENY || pr) &&
		    (r = caller_fill(s, &c, &req)) < 0)
			goto unknown;
		if (pr && (v.decider == SBX_SUP_BY_GRANT || v.answer == SBX_SUP_ASK)) {
			/* the call that asked, served again with its answer: the answer is
			 * its own only while it still asks the same question (the worker may
			 * have changed the names meanwhile: then it is asked anew) */
			static struct sbx_sup_verdict as_asked;
			static struct sbx_sup_qkey now;

			as_asked = v;
			if (v.answer != SBX_SUP_ASK) {
				/* decided by the grant the answer made: as it was asked */
				struct sbx_sup_session none = {0};

				sbx_sup_decide(s->sp, &s->guards, &none, &req, &as_asked);
			}
			answered = sbx_sup_qkey_of(s->sp, &req, &as_asked, &now) == 0 &&
			           sbx_sup_qkey_joins(pr->key, &now);
		}
		if (answered) {
			ask_apply(pr->ans, &v);
		} else if (v.decider == SBX_SUP_BY_GRANT) {
			/* a grant answered: its batch goes on from this call (last_ms) */
			const struct sbx_sup_grant *g =
			    sbx_sup_session_find(&s->session, s->sp, &req, true);

			s->batch_uses = g ? g->uses : 0;
		}
		if (v.answer == SBX_SUP_ASK && !answered && !c.narrower)
			(void)prov_start(s, c.procdir, &req, &v); /* then PERFORM */
		if (v.answer == SBX_SUP_ASK && s->broker && sbx_broker_thinks(s->broker)) {
			if (ask_async(s, c.procdir, &req, &v, t0) == 1)
				goto out; /* kept: answered with the answer */
		} else if (v.answer == SBX_SUP_ASK) {
			ask_broker(s, c.procdir, &req, &v);
		}
		if (v.answer == SBX_SUP_PERFORM || v.answer == SBX_SUP_CONTINUE) {
			if (c.narrower) {
				/* never performed for a narrower caller: its own bounds hold */
				v.answer = SBX_SUP_CONTINUE;
				answer_plain(s, &req, &v, asked, t0);
				goto out;
			}
			/* PERFORM, and CONTINUE too: for a caller with the worker's rights a
			 * CONTINUE would let the kernel resolve the path again after the
			 * check, so every call that stopped is performed */
			r = answer_perform(s, &a, &req, &v, asked, t0, tries + 1 >= MAX_RETRY);
		} else {
			answer_plain(s, &req, &v, asked, t0);
			goto out;
		}
	}
	if (r == -EPIPE) {
		caller_close(&c);
		return -EPIPE;
	}
	if (r == P_RETRY) {
		caller_close(&c);
		tries++;
		goto again;
	}
	goto out;
unknown:
	if (r != -ENOENT)
		respond(s, -r, false);
out:
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (fast_fd >= 0)
		close(fast_fd);
	caller_close(&c);
	return 0;
}

/*
 * The broker's answers: each recorded (a grant as narrow as the request asked, or a refusal
 * remembered the same way), then the calls kept for it served again from the start, the one
 * that asked first: each is checked valid (its caller may have gone), resolved, decided
 * (by the grant: PERFORM to the performer, or DENY) and answered, as if it came now. A call
 * that no longer asks the same question is asked anew. -EPIPE: the performer is lost.
 */
static int question_answered(struct sbx_supervisor *s, int q, const struct sbx_broker_answer *ans)
{
	static struct sbx_sup_qkey key;
	int order[MAX_KEPT];
	size_t n = 0;

	s->qs[q].rc->req.now_ms = now_us() / 1000;
	(void)sbx_sup_session_record(&s->session, s->sp, &s->qs[q].rc->req, ans->allow,
	                             ans->remember, NULL);
	if (s->qs[q].prov1)
		prov_answered(s, s->qs[q].prov1 - 1, ans);
	key = s->qs[q].key;
	for (int k = 0; k < MAX_KEPT; k++)
		if (s->kept[k].q == q && s->kept[k].first)
			order[n++] = k;
	for (int k = 0; k < MAX_KEPT; k++)
		if (s->kept[k].q == q && !s->kept[k].first)
			order[n++] = k;
	/* free before the calls are served: one that asks again asks anew */
	for (size_t i = 0; i < n; i++)
		s->kept[order[i]].q = -2;
	question_free(s, q);
	for (size_t i = 0; i < n; i++) {
		struct kept *w = &s->kept[order[i]];
		const struct prior pr = {&key, ans};
		bool first = w->first;
		uint64_t t0 = w->t0;
		int r;

		memcpy(s->notif, w->notif, s->notif_size);
		kept_free(s, order[i]);
		if (notif_valid(s) < 0)
			continue; /* its caller is gone: nothing is performed */
		s->via = -1;
		r = serve_call(s, t0, first ? &pr : NULL);
		s->via = -1;
		if (r == -EPIPE) {
			/* the rest are answered by the sandbox's end */
			for (size_t j = i + 1; j < n; j++)
				kept_free(s, order[j]);
			return -EPIPE;
		}
	}
	return 0;
}

static int questions_answer(struct sbx_supervisor *s)
{
	struct sbx_broker_answer ans;
	uint64_t id;

	while (s->askq && sbx_askq_take(s->askq, &id, &ans) == 1) {
		int q;

		for (q = 0; q < SBX_SUP_PENDING_MAX && s->qs[q].id != id; q++)
			;
		if (q < SBX_SUP_PENDING_MAX && question_answered(s, q, &ans) == -EPIPE)
			return -EPIPE;
	}
	return 0;
}

/* sbx was told to end (SIGTERM, SIGINT, SIGHUP, SIGQUIT): every question pending is denied
 * now (decider cancelled), before the signal reaches the worker, and the broker told to stop
 * (its late answers find no question). */
static int questions_cancel(struct sbx_supervisor *s)
{
	struct sbx_broker_answer ans = {.allow = false, .decider = SBX_SUP_BY_CANCELLED};

	snprintf(ans.reason, sizeof(ans.reason), "sbx was told to end while it asked: denied");
	sbx_askq_cancel_all(s->askq);
	for (int q = 0; q < SBX_SUP_PENDING_MAX; q++)
		if (s->qs[q].id && question_answered(s, q, &ans) == -EPIPE)
			return -EPIPE;
	return 0;
}

/*
 * The sandbox has ended with provisional files still held: each is asked for now (its creator
 * is gone, the question is what it would have been), and sbx waits for the answers here,
 * each within the timeout, a SIGTERM or ^C denying what is left; a refusal removes the file.
 */
static void prov_finish(struct sbx_supervisor *s)
{
	static const int end_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
	unsigned timeout = s->sp->timeout_ms ? s->sp->timeout_ms : SBX_SUP_TIMEOUT_MS;
	sigset_t blocked, ends;
	_cleanup_close_ int sigfd = -1;
	uint64_t end;
	size_t waiting = 0;

	for (int k = 0; k < SBX_SUP_PROVISIONAL_MAX; k++) {
		struct prov *p = &s->prov[k];

		if (!p->made)
			continue;
		if (p->fino && !prov_there(p))
			prov_free(s, k);
		else if (!p->qid && prov_ask(s, k, true) < 0) {
			prov_refused(s, k, SBX_SUP_BY_POLICY, "its question could not be asked");
			prov_free(s, k);
		}
	}
	for (int k = 0; k < SBX_SUP_PROVISIONAL_MAX; k++)
		waiting += s->prov[k].qid != 0;
	if (!waiting || !s->askq)
		return;
	/* sbx's loop and its signalfd are gone: the signals that end sbx, where they are
	 * blocked (taken by a signalfd), cancel the questions here */
	sigemptyset(&ends);
	if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) == 0)
		for (size_t i = 0; i < SBX_ARRAY_SIZE(end_sigs); i++)
			if (sigismember(&blocked, end_sigs[i]) == 1)
				sigaddset(&ends, end_sigs[i]);
	sigfd = signalfd(-1, &ends, SFD_CLOEXEC | SFD_NONBLOCK);
	/* one at a time, each within its timeout, and a margin */
	end = now_us() / 1000 + (uint64_t)timeout * (waiting + 1) + 1000;
	while (waiting && s->askq) {
		struct pollfd p[2] = {{sbx_askq_fd(s->askq), POLLIN, 0}, {sigfd, POLLIN, 0}};
		uint64_t now = now_us() / 1000;

		if (now >= end) {
			sbx_askq_cancel_all(s->askq);
			end = now + 5000; /* the cancelled answers come back at once */
		}
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			break;
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
			sbx_askq_cancel_all(s->askq);
		}
		(void)questions_answer(s);
		waiting = 0;
		for (int k = 0; k < SBX_SUP_PROVISIONAL_MAX; k++)
			waiting += s->prov[k].qid != 0;
	}
}

/*
 * sbx ends (the sandbox is over, or ending): the calls still kept for a question are
 * answered EACCES (ignored where their caller is gone) and their questions withdrawn (the
 * broker told to stop, a cmd broker's group killed) and counted as denied; the provisional
 * files still held are asked for (prov_finish); then the broker's thread is joined.
 */
static void questions_end(struct sbx_supervisor *s)
{
	for (int k = 0; k < MAX_KEPT; k++) {
		if (s->kept[k].q == -1)
			continue;
		if (s->notify >= 0 && s->kept[k].notif)
			respond_id(s, s->kept[k].notif->id, EACCES, false);
		kept_free(s, k);
	}
	for (int q = 0; q < SBX_SUP_PENDING_MAX; q++)
		if (s->qs[q].id && !s->qs[q].prov1) {
			sbx_askq_cancel(s->askq, s->qs[q].id);
			sbx_sup_session_release(&s->session);
			question_free(s, q);
		}
	if (s->n_prov)
		prov_finish(s);
	sbx_askq_free(s->askq);
	s->askq = NULL;
	for (int k = 0; k < SBX_SUP_PROVISIONAL_MAX; k++)
		if (s->prov[k].used)
			prov_free(s, k); /* withdraws a question still pending */
	for (int q = 0; q < SBX_SUP_PENDING_MAX; q++)
		if (s->qs[q].id) {
			sbx_sup_session_release(&s->session);
			question_free(s, q);
		}
	sbx_closep(&s->prov_timer);
}

/* What happened while nothing was asked: a sub-performer's process ended (its slot goes
 * now), a FIFO's waiter answered, the caller of a waiting open ended. */
static void ep_serve(struct sbx_supervisor *s)
{
	struct epoll_event ev[16];
	int n = epoll_wait(s->ep, ev, 16, 0);

	for (int i = 0; i < n; i++) {
		enum ep_kind kind = (enum ep_kind)(ev[i].data.u64 >> 32);
		int k = (int)(uint32_t)ev[i].data.u64;

		if (kind == EP_SUB && k >= 0 && k < MAX_SUBS && s->subs[k].tgid)
			sub_drop(s, k);
		else if (kind == EP_WAIT && k >= 0 && k < MAX_WAITS && s->waits[k].sock >= 0)
			fifo_done(s, k);
		else if (kind == EP_WAIT_CALLER && k >= 0 && k < MAX_WAITS && s->waits[k].sock >= 0)
			fifo_end(s, k); /* the caller is gone: nobody to answer */
		else if (kind == EP_KEPT_CALLER && k >= 0 && k < MAX_KEPT && s->kept[k].q >= 0)
			kept_drop(s, k); /* its question's slot is free if nobody else waits */
		else if (kind == EP_PROV) {
			uint64_t ticks;

			if (read(s->prov_timer, &ticks, sizeof(ticks)) < 0)
				ticks = 0; /* prov_due looks at the clock itself */
		}
		/* EP_ANSWER: taken by questions_answer, outside any call being served */
	}
}

/* Has the worker ended (exited, or killed)? Then the performer's end is the sandbox's end
 * (init takes the pid namespace with it), not a loss. */
static bool worker_ended(const struct sbx_supervisor *s)
{
	struct pollfd p = {s->worker_pidfd, POLLIN, 0};

	return s->worker_pidfd < 0 || (poll(&p, 1, 0) > 0 && (p.revents & POLLIN));
}

int sbx_supervisor_handle(struct sbx_supervisor *s, const struct pollfd *p, struct sbx_error *err)
{
	if (p[0].fd >= 0 && p[0].revents) {
		int r = start(s, err);

		if (r < 0)
			return r;
		if (r == START_LOST)
			goto lost;
	}
	/* first what ended: a wait or a slot freed is free for the calls that follow */
	if (p[3].fd >= 0 && p[3].revents)
		ep_serve(s);
	if (s->n_prov)
		prov_due(s);
	if (s->askq) {
		/* sbx told to end (SIGTERM, SIGINT, ...): the questions pending are denied at
		 * once (decider cancelled), as sbx_broker_ask's own cancel says */
		struct pollfd cp = {s->cancel.fd, POLLIN, 0};

		if (s->session.pending && s->cancel.fd >= 0 && s->cancel.fn &&
		    poll(&cp, 1, 0) > 0 && s->cancel.fn(s->cancel.ctx) &&
		    questions_cancel(s) == -EPIPE)
			goto lost;
		if (questions_answer(s) == -EPIPE)
			goto lost;
	}
	if (p[1].fd >= 0 && (p[1].revents & POLLIN)) {
		int r = serve(s);

		s->via = -1;
		if (r == -EPIPE)
			goto lost;
	} else if (p[1].fd >= 0 && (p[1].revents & (POLLHUP | POLLERR))) {
		/* every process under the filter is gone */
		sbx_closep(&s->notify);
		s->notify = -1;
	}
	if (p[2].fd >= 0 && p[2].revents)
		goto lost; /* the performer never speaks unasked: this is its end */
	return 0;
lost:
	sbx_closep(&s->perf[0]);
	s->perf[0] = -1;
	s->started = false;
	if (worker_ended(s))
		return 0;
	s->lost = true;
	sbx_error_set(err, SBX_ERR_SETUP, EPIPE,
	              "the supervisor lost its performer (it was killed or stopped from inside "
	              "the sandbox): the sandbox was ended, as nothing could answer its "
	              "supervised calls any more");
	return 1;
}

/* ---- probing ---- */

int sbx_sup_probe_listener(void)
{
	char status[4096];
	pid_t pid;
	int st, fd;
	ssize_t n;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, status, sizeof(status) - 1);
		close(fd);
		if (n > 0) {
			status[n] = '\0';
			if (status_field(status, "Seccomp:") == 0)
				return 0;
		}
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
		struct sock_fprog prog = {1, allow};
		int r;

		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		r = sup_seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		_exit(r >= 0 ? 0 : errno == EBUSY ? 1 : 2);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st))
		return -ENOSYS;
	return WEXITSTATUS(st) == 0 ? 0 : WEXITSTATUS(st) == 1 ? -EBUSY : -ENOSYS;
}
