/* SPDX-License-Identifier: MIT */
#include "sbx/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ioprio.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "sbx/cleanup.h"

/*
 * The groups of the default filter (sbx-seccomp(7)). Every group is denied by default; a
 * configuration allows some back. A group holds what a worker never needs and what sandbox
 * escapes go through. Calls a worker does need but that want an argument check (clone, ioctl,
 * socket, personality) are denied only under the condition that makes them dangerous.
 *
 * Not here, on purpose: the setuid family (harmless without capabilities, and programs drop
 * privileges with it), seccomp and landlock_* (a nested sbx stacks its own), socket families
 * other than AF_VSOCK ("no network" is the network namespace's job), statmount and listmount
 * (a read-only view of the worker's own mount namespace, as /proc/self/mountinfo),
 * name_to_handle_at (its dangerous half is open_by_handle_at).
 */

#define E(name)                                                                                    \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_DENY                                           \
	}
#define ENOSYS_(name)                                                                              \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_ENOSYS                                         \
	}
#define ENOTSUP_(name)                                                                             \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_ENOTSUP                                        \
	}
/* A comparison: denied when every bit of `bits` is set in argument `a`. */
#define BITS_(a, bits, words)                                                                      \
	{                                                                                          \
		.op = SBX_SECCOMP_MASKED_EQ, .arg = a, .mask = (bits), .value = (bits),            \
		.what = words                                                                      \
	}
/* Denied when the bits of `flag` are set in argument `a`: clone/unshare namespace flags. The
 * kernel reads clone's flags as their low 32 bits; a 64-bit mask with no high bits compares
 * exactly that. */
#define FLAG(name, a, flag)                                                                        \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_DENY, .cmp = { BITS_(a, flag, #flag) }         \
	}
/* Denied when the bits of `flag` are set in argument `fa` and those of `bit` in `ma`. */
#define FLAG2(name, fa, flag, flag_words, ma, bit)                                                 \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_DENY,                                          \
		.cmp = { BITS_(fa, flag, flag_words),                                              \
			 BITS_(ma, bit, #bit) }                                                    \
	}
/* Denied when the low 32 bits of argument `a` equal `v`: ioctl's request and socket's domain
 * are int in the kernel, whatever the register's upper half holds (CVE-2019-10063: a filter
 * comparing 64 bits let TIOCSTI | 1 << 32 through). */
#define EQ32(name, a, v)                                                                           \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_DENY,                                          \
		.cmp = { {.op = SBX_SECCOMP_MASKED_EQ,                                             \
			  .arg = a,                                                                \
			  .mask = 0xffffffffu,                                                     \
			  .value = (v),                                                            \
			  .what = #v} }                                                            \
	}
/* Denied when argument `a`, a socket type, is `type` once SOCK_NONBLOCK and SOCK_CLOEXEC are
 * masked off (the kernel's SOCK_TYPE_MASK). */
#define SOCKTYPE(name, a, type)                                                                    \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_DENY,                                          \
		.cmp = { {.op = SBX_SECCOMP_MASKED_EQ,                                             \
			  .arg = a,                                                                \
			  .mask = 0xf,                                                             \
			  .value = (type),                                                         \
			  .what = #type} }                                                         \
	}
/* Denied when the low 32 bits of argument `a` (a pid_t or an id the kernel reads as int) are
 * not 0, that is, when the call names a process other than the caller. */
#define NOT0(name, a, words)                                                                       \
	{                                                                                          \
		.call = name, .action = SBX_SECCOMP_DENY,                                          \
		.cmp =                                                                             \
		{ {.op = SBX_SECCOMP_NOT_IN32, .arg = a, .set = {0}, .n_set = 1, .what = words} }  \
	}

size_t sbx_seccomp_entry_n_cmp(const struct sbx_seccomp_entry *entry)
{
	size_t n = 0;

	while (n < SBX_SECCOMP_CMP_MAX && entry->cmp[n].op != SBX_SECCOMP_ALWAYS)
		n++;
	return n;
}

static const struct sbx_seccomp_entry g_bpf[] = {E("bpf")};
static const struct sbx_seccomp_entry g_clock[] = {
    E("adjtimex"),
    E("clock_adjtime"),
    E("clock_settime"),
    E("settimeofday"),
};
/* clone3 passes its flags in memory, which seccomp cannot read: no namespace check is
 * possible, so it answers ENOSYS and glibc (2.34+) falls back to clone, whose flags we see. */
static const struct sbx_seccomp_entry g_clone3[] = {ENOSYS_("clone3")};
static const struct sbx_seccomp_entry g_cpu_emulation[] = {E("modify_ldt")};
static const struct sbx_seccomp_entry g_debug[] = {
    E("kcmp"), E("pidfd_getfd"), E("process_vm_readv"), E("process_vm_writev"), E("ptrace"),
};
/* Locked: what io_uring submits (IORING_OP_OPENAT with a mode, IORING_OP_SETXATTR) never
 * meets the filter, so opening it would open @suid and @setxattr too. */
static const struct sbx_seccomp_entry g_io_uring[] = {
    ENOSYS_("io_uring_enter"),
    ENOSYS_("io_uring_register"),
    ENOSYS_("io_uring_setup"),
};
static const struct sbx_seccomp_entry g_keyring[] = {
    E("add_key"),
    E("keyctl"),
    E("request_key"),
};
static const struct sbx_seccomp_entry g_module[] = {
    E("delete_module"),
    E("finit_module"),
    E("init_module"),
};
static const struct sbx_seccomp_entry g_mount[] = {
    E("chroot"),    E("fsconfig"),       E("fsmount"),       E("fsopen"),
    E("fspick"),    E("mount"),          E("mount_setattr"), E("move_mount"),
    E("open_tree"), E("open_tree_attr"), E("pivot_root"),    E("umount2"),
};
/* CLONE_NEWTIME (0x80) is checked on unshare only: in clone's flags those bits are the exit
 * signal (CSIGNAL), and clone cannot create a time namespace. */
static const struct sbx_seccomp_entry g_namespaces[] = {
    FLAG("clone", 0, CLONE_NEWNS),     FLAG("clone", 0, CLONE_NEWCGROUP),
    FLAG("clone", 0, CLONE_NEWUTS),    FLAG("clone", 0, CLONE_NEWIPC),
    FLAG("clone", 0, CLONE_NEWUSER),   FLAG("clone", 0, CLONE_NEWPID),
    FLAG("clone", 0, CLONE_NEWNET),    E("setns"),
    FLAG("unshare", 0, CLONE_NEWNS),   FLAG("unshare", 0, CLONE_NEWCGROUP),
    FLAG("unshare", 0, CLONE_NEWUTS),  FLAG("unshare", 0, CLONE_NEWIPC),
    FLAG("unshare", 0, CLONE_NEWUSER), FLAG("unshare", 0, CLONE_NEWPID),
    FLAG("unshare", 0, CLONE_NEWNET),  FLAG("unshare", 0, CLONE_NEWTIME),
};
/* Removed or never implemented on x86_64: the kernel answers ENOSYS for most already, and a
 * program that still tries them must cope with their absence. */
static const struct sbx_seccomp_entry g_obsolete[] = {
    ENOSYS_("_sysctl"),         ENOSYS_("afs_syscall"), ENOSYS_("create_module"),
    ENOSYS_("get_kernel_syms"), ENOSYS_("getpmsg"),     ENOSYS_("lookup_dcookie"),
    ENOSYS_("nfsservctl"),      ENOSYS_("putpmsg"),     ENOSYS_("query_module"),
    ENOSYS_("security"),        ENOSYS_("sysfs"),       ENOSYS_("tuxcall"),
    ENOSYS_("uselib"),          ENOSYS_("ustat"),       ENOSYS_("vserver"),
};
static const struct sbx_seccomp_entry g_perf[] = {E("perf_event_open")};
/* PER_LINUX and PER_LINUX32 (linux32/setarch i686 builds) and the 0xffffffff query; every
 * other persona sets flags such as ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC or MMAP_PAGE_ZERO
 * that weaken the worker's own address space. The kernel reads the argument as unsigned int. */
static const struct sbx_seccomp_entry g_personality[] = {
    {.call = "personality",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 0,
              .set = {0x0000 /* PER_LINUX */, 0x0008 /* PER_LINUX32 */, 0xffffffffu /* query */},
              .n_set = 3,
              .what = "not PER_LINUX, PER_LINUX32 or the 0xffffffff query"}}},
};
/* The landlock backend's --net none (no network namespace): UDP, raw and packet sockets are
 * beyond Landlock's TCP rules, so every family but AF_UNIX is denied, and connect(2) itself;
 * no loopback either. The AF_UNIX sockets left are the datagram-free pairs of g_no_unix;
 * io_uring is denied (@io-uring); inherited sockets are closed before exec (only 0, 1, 2 and
 * the spec memfd pass). */
static const struct sbx_seccomp_entry g_no_network[] = {
    {.call = "socket",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 0,
              .set = {AF_UNIX},
              .n_set = 1,
              .what = "not AF_UNIX"}}},
    /* socketpair makes pairs of a few other families too (AF_TIPC's reach the host's
     * network namespace, and ask for a module): AF_UNIX only. */
    {.call = "socketpair",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 0,
              .set = {AF_UNIX},
              .n_set = 1,
              .what = "not AF_UNIX"}}},
    /* What is left is AF_UNIX, whose sockets bound to a path Landlock does not guard (ABI
     * 7): a host service listening on one (a container engine's, say) is network enough.
     * socketpair needs no connect; abstract sockets are scoped by Landlock anyway. */
    E("connect"),
};
const char *const sbx_seccomp_no_network_group = "--net none";
/* The landlock backend's network allowlist (sbx(1), NETWORK): sbx's proxy listens on the
 * host's loopback, and the worker may make TCP sockets to reach it, nothing else: AF_INET or
 * AF_INET6, SOCK_STREAM (SOCK_NONBLOCK and SOCK_CLOEXEC aside), protocol 0 or IPPROTO_TCP.
 * MPTCP (IPPROTO_MPTCP, 262), SCTP, UDP, raw and packet sockets are beyond Landlock's TCP
 * rules and stay denied; connect(2) stops at the supervisor, which checks the address and
 * connects on its own copy of the socket (src/os/supervisor.c, serve_connect). TCP Fast
 * Open's sendto(2) and sendmsg(2) with MSG_FASTOPEN connect without connect(2) (and without
 * Landlock's socket_connect hook: checked on Linux 6.18): denied, and so is
 * TCP_FASTOPEN_CONNECT. listen(2) would bind an unbound socket to a port
 * of every address of the host (Landlock's bind rule sees no bind): denied. */
static const struct sbx_seccomp_entry g_tcp_only[] = {
    {.call = "socket",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 0,
              .set = {AF_INET, AF_INET6},
              .n_set = 2,
              .what = "not AF_INET or AF_INET6"}}},
    {.call = "socket",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 1,
              .set = {SOCK_STREAM, SOCK_STREAM | SOCK_NONBLOCK, SOCK_STREAM | SOCK_CLOEXEC,
                      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC},
              .n_set = 4,
              .what = "not SOCK_STREAM"}}},
    {.call = "socket",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 2,
              .set = {0, IPPROTO_TCP},
              .n_set = 2,
              .what = "not IPPROTO_TCP (MPTCP, SCTP, ...)"}}},
    {.call = "socketpair",
     .action = SBX_SECCOMP_DENY,
     .cmp = {{.op = SBX_SECCOMP_NOT_IN32,
              .arg = 0,
              .set = {AF_UNIX},
              .n_set = 1,
              .what = "not AF_UNIX"}}},
    {.call = "sendto", .action = SBX_SECCOMP_DENY, .cmp = {BITS_(3, MSG_FASTOPEN, "MSG_FASTOPEN")}},
    {.call = "sendmsg",
     .action = SBX_SECCOMP_DENY,
     .cmp = {BITS_(2, MSG_FASTOPEN, "MSG_FASTOPEN")}},
    {.call = "sendmmsg",
     .action = SBX_SECCOMP_DENY,
     .cmp = {BITS_(3, MSG_FASTOPEN, "MSG_FASTOPEN")}},
    /* TCP_FASTOPEN_CONNECT defers a connect's SYN to the first send, and the kernel hands
     * that send's address to its Fast Open path (tcp_sendmsg_fastopen). Linux 6.18 keeps
     * the connect's address there (a send to another address, or an AF_UNSPEC one, still
     * reached the first), but nothing is left to that: off, as "not supported", and a
     * client connects as usual */
    {.call = "setsockopt",
     .action = SBX_SECCOMP_ENOTSUP,
     .cmp = {{.op = SBX_SECCOMP_MASKED_EQ,
              .arg = 1,
              .mask = 0xffffffffu,
              .value = IPPROTO_TCP,
              .what = "IPPROTO_TCP"},
             {.op = SBX_SECCOMP_MASKED_EQ,
              .arg = 2,
              .mask = 0xffffffffu,
              .value = 30 /* TCP_FASTOPEN_CONNECT */,
              .what = "TCP_FASTOPEN_CONNECT"}}},
    E("listen"),
};
const char *const sbx_seccomp_tcp_only_group = "--net allowlist";
/* The landlock backend carving around hidden paths: a same-directory hard link needs only
 * the right to make a file there, which a directory on a carved chain keeps. */
static const struct sbx_seccomp_entry g_no_hardlinks[] = {E("link"), E("linkat")};
const char *const sbx_seccomp_no_hardlinks_group = "hidden paths";
/* The landlock backend, whatever the network: a unix socket bound to a path is reachable
 * by its path in the caller's mount namespace (Landlock ABI 7 guards neither connect(2) nor
 * sendto(2) to it): /run/docker.sock, a session bus or syslog's /dev/log would let the
 * worker act outside. No new AF_UNIX socket, and no datagram pair from socketpair(2): a
 * datagram socket, connected or not, sends to any path given to sendto(2) or sendmsg(2), and
 * connect(2) on it names a path too. The kernel (net/unix/af_unix.c) makes SOCK_RAW pairs
 * datagram pairs, so both types are denied; the type is compared under SOCK_TYPE_MASK (0xf),
 * so SOCK_NONBLOCK and SOCK_CLOEXEC do not hide it. Stream and seqpacket pairs stay: they are
 * born connected, connect(2) on them fails with EISCONN, a stream socket refuses sendmsg(2)
 * with an address (EISCONN or EOPNOTSUPP) and a seqpacket socket drops the address
 * (unix_seqpacket_sendmsg clears msg_namelen). */
static const struct sbx_seccomp_entry g_no_unix[] = {
    EQ32("socket", 0, AF_UNIX),
    SOCKTYPE("socketpair", 1, SOCK_DGRAM),
    SOCKTYPE("socketpair", 1, SOCK_RAW),
};
const char *const sbx_seccomp_no_unix_group = "unix sockets";

/* The landlock backend: no pid namespace, so every process of the caller's uid (as root,
 * every root process, pid 1 included) is in reach of the calls that name a process by id and
 * that the kernel allows between processes of one uid. Landlock scopes signals (kill and its
 * kin) and ptrace_may_access, which also guards process_vm_*, process_madvise, kcmp,
 * pidfd_getfd, get_robust_list, migrate_pages and move_pages; the rest are denied here when
 * they name another process (an id other than 0, "the caller"). PRIO_USER and
 * IOPRIO_WHO_USER name every process of a uid, the caller's own when the id is 0: denied
 * outright. PRIO_PGRP and IOPRIO_WHO_PGRP with 0 name the caller's process group, which is
 * the worker's own (it runs in a session of its own). migrate_pages and move_pages are listed
 * although Landlock covers them: a process id is all it takes. glibc's getrlimit and setrlimit
 * call prlimit64 with pid 0, nice(3) setpriority(PRIO_PROCESS, 0). */
static const struct sbx_seccomp_entry g_processes[] = {
    NOT0("ioprio_set", 1, "who is not 0"),
    EQ32("ioprio_set", 0, IOPRIO_WHO_USER),
    NOT0("migrate_pages", 0, "pid is not 0"),
    NOT0("move_pages", 0, "pid is not 0"),
    NOT0("prlimit64", 0, "pid is not 0"),
    NOT0("sched_setaffinity", 0, "pid is not 0"),
    NOT0("sched_setattr", 0, "pid is not 0"),
    NOT0("sched_setparam", 0, "pid is not 0"),
    NOT0("sched_setscheduler", 0, "pid is not 0"),
    NOT0("setpriority", 1, "who is not 0"),
    EQ32("setpriority", 0, PRIO_USER),
};
const char *const sbx_seccomp_processes_group = "other processes";
/* The landlock backend as root: the worker is host uid 0 in the caller's namespaces, the
 * owner of every root-owned file on the machine, and Landlock (ABI 7) governs neither modes
 * nor ownership. chmod 0666 /etc/shadow needs no capability, only ownership; fchmod on a file
 * a read grant lets it open (/usr/bin/python3) would make a system binary writable by all;
 * chown to a group of its own takes a file from its group. Every call that changes a mode or
 * an owner is denied, by path and by fd; no configuration and no log mode lifts it. The
 * namespaces backend keeps them: there root's files outside the workspace are nobody's, and
 * read-only mounts refuse the rest. (A supervisor that performs the call where Landlock lets
 * the worker write could allow them again.) */
static const struct sbx_seccomp_entry g_host_root[] = {
    E("chmod"),
    E("chown"),
    E("fchmod"),
    E("fchmodat"),
    E("fchmodat2"),
    E("fchown"),
    E("fchownat"),
    E("lchown"),
    /* Removing an attribute takes a POSIX ACL away (the group's bits then become its
     * rights) or a program's data; the inode flags (sync, noatime, nodump, project) are the
     * owner's to set too. Writing attributes is denied everywhere (@setxattr). */
    E("fremovexattr"),
    E("lremovexattr"),
    E("removexattr"),
    E("removexattrat"),
    EQ32("ioctl", 1, 0x40086602 /* FS_IOC_SETFLAGS */),
    EQ32("ioctl", 1, 0x40046602 /* FS_IOC32_SETFLAGS */),
    EQ32("ioctl", 1, 0x401c5820 /* FS_IOC_FSSETXATTR */),
};
const char *const sbx_seccomp_host_root_group = "root's files";

static const struct sbx_seccomp_entry g_privileged[] = {
    E("acct"), E("open_by_handle_at"), E("quotactl"), E("quotactl_fd"), E("syslog"), E("vhangup"),
};
static const struct sbx_seccomp_entry g_raw_io[] = {E("ioperm"), E("iopl")};
static const struct sbx_seccomp_entry g_reboot[] = {
    E("kexec_file_load"),
    E("kexec_load"),
    E("reboot"),
};
/* Writing extended attributes: among them security.capability, a file capability. Where
 * nesting is allowed, a user namespace's root writes one on the id-mapped workspace bind,
 * and the kernel stores it for the root id the bind maps that root to: host root, when sbx
 * runs as root. seccomp cannot read the attribute's name, so every writer is denied in every
 * sandbox; reading, listing and removing attributes stay. The answer is EOPNOTSUPP, as from a
 * file system without extended attributes: cp -a (which writes even a trivial ACL as
 * system.posix_acl_access, then falls back to chmod on that answer only), tar --xattrs and
 * shutil.copy2 go on without them; EPERM would fail cp -a on every file. io_uring's SETXATTR
 * operations are closed with io_uring itself (@io-uring). */
static const struct sbx_seccomp_entry g_setxattr[] = {
    ENOTSUP_("fsetxattr"),
    ENOTSUP_("lsetxattr"),
    ENOTSUP_("setxattr"),
    ENOTSUP_("setxattrat"),
};
/* Set-user-ID and set-group-ID files, as systemd's RestrictSUIDSGID=: the workspace bind is
 * id-mapped, so what the worker makes there is owned by the caller (host root, when sbx runs
 * as root), and under the landlock backend the worker is the caller. Every way to put either
 * bit in a mode is denied: chmod and its kin, and making a file with a mode (open, openat and
 * creat with O_CREAT or O_TMPFILE, which takes a mode without O_CREAT; mkdir; mknod, which
 * makes regular files too). The kernel reads a mode as umode_t and the flags as int; the
 * comparisons test single bits, so the upper half of a register cannot hide them. openat2
 * keeps its mode behind a pointer seccomp cannot read: ENOSYS, so that programs fall back to
 * openat (glibc never calls it for open(3); sbx walks the path with openat itself). */
#define SBX_O_TMPFILE_BIT 020000000 /* the kernel's __O_TMPFILE, without O_DIRECTORY */
#define SUID_OPEN(name, fa, ma)                                                                    \
	FLAG2(name, fa, O_CREAT, "O_CREAT", ma, S_ISUID),                                          \
	    FLAG2(name, fa, O_CREAT, "O_CREAT", ma, S_ISGID),                                      \
	    FLAG2(name, fa, SBX_O_TMPFILE_BIT, "O_TMPFILE", ma, S_ISUID),                          \
	    FLAG2(name, fa, SBX_O_TMPFILE_BIT, "O_TMPFILE", ma, S_ISGID)
#define SUID_MODE(name, ma) FLAG(name, ma, S_ISUID), FLAG(name, ma, S_ISGID)
static const struct sbx_seccomp_entry g_suid[] = {
    SUID_MODE("chmod", 1),
    SUID_MODE("creat", 1),
    SUID_MODE("fchmod", 1),
    SUID_MODE("fchmodat", 2),
    SUID_MODE("fchmodat2", 2),
    SUID_MODE("mkdir", 1),
    SUID_MODE("mkdirat", 2),
    SUID_MODE("mknod", 1),
    SUID_MODE("mknodat", 2),
    SUID_OPEN("open", 1, 2),
    SUID_OPEN("openat", 2, 3),
    ENOSYS_("openat2"),
    /* and write for others (S_IWOTH) in a chmod: a sandbox that makes the user's .git (or
     * any directory of theirs) writable by every local user lets any of them plant a config
     * or a hook that runs as that user after the sandbox ends. A mode given at creation is
     * masked by the umask afterwards, so only chmod's final mode can be judged here. */
    FLAG("chmod", 1, S_IWOTH),
    FLAG("fchmod", 1, S_IWOTH),
    FLAG("fchmodat", 2, S_IWOTH),
    FLAG("fchmodat2", 2, S_IWOTH),
};
static const struct sbx_seccomp_entry g_swap[] = {E("swapoff"), E("swapon")};
/* System V IPC objects live in the IPC namespace, not in the file system: Landlock cannot see
 * them. The namespaces backend gives the worker an IPC namespace of its own; the landlock
 * backend shares the caller's, whose segments, queues and semaphores the worker could read and
 * write with the caller's uid. (x86_64 and aarch64 have no multiplexed ipc(2).) shmdt stays: it
 * only unmaps what the caller attached. */
static const struct sbx_seccomp_entry g_sysvipc[] = {
    E("msgctl"), E("msgget"), E("msgrcv"), E("msgsnd"),     E("semctl"), E("semget"),
    E("semop"),  E("shmat"),  E("shmctl"), E("semtimedop"), E("shmget"),
};
/* POSIX message queues live in the IPC namespace too (an mqueue filesystem of its own): under
 * the landlock backend a worker could create queues the host keeps after the run (up to
 * fs.mqueue.queues_max for every user: mq_open creates the queue even when it then answers
 * EACCES), and remove the caller's. */
static const struct sbx_seccomp_entry g_mqueue[] = {
    E("mq_getsetattr"),   E("mq_notify"),    E("mq_open"),
    E("mq_timedreceive"), E("mq_timedsend"), E("mq_unlink"),
};
static const struct sbx_seccomp_entry g_tty_inject[] = {
    EQ32("ioctl", 1, TIOCSTI),
    EQ32("ioctl", 1, TIOCLINUX),
    /* A line discipline change: n_hdlc, n_gsm and the like are rarely used kernel code,
     * loaded on demand where dev.tty.ldisc_autoload is 1, and a source of escapes
     * (CVE-2017-2636, CVE-2023-6546). No worker needs it; TIOCGETD (reading it) stays. */
    EQ32("ioctl", 1, TIOCSETD),
};
static const struct sbx_seccomp_entry g_userfaultfd[] = {E("userfaultfd")};
static const struct sbx_seccomp_entry g_vsock[] = {
    EQ32("socket", 0, AF_VSOCK),
    EQ32("socketpair", 0, AF_VSOCK),
};

#define GROUP(n, tbl, nest, h)                                                                     \
	{                                                                                          \
		.name = n, .help = h, .entries = tbl, .n_entries = SBX_ARRAY_SIZE(tbl),            \
		.nesting = nest                                                                    \
	}
#define LOCKED_GROUP(n, tbl, h)                                                                    \
	{                                                                                          \
		.name = n, .help = h, .entries = tbl, .n_entries = SBX_ARRAY_SIZE(tbl),            \
		.locked = true                                                                     \
	}
#define SAME_NS_GROUP(n, tbl, h)                                                                   \
	{                                                                                          \
		.name = n, .help = h, .entries = tbl, .n_entries = SBX_ARRAY_SIZE(tbl),            \
		.same_ns = true                                                                    \
	}

/* Sorted by name: --dry-run and the manual list them in this order. man/sbx-seccomp.7 says
 * the same in more words; keep them together. */
const struct sbx_seccomp_group sbx_seccomp_groups[] = {
    GROUP("@bpf", g_bpf, false, "loading eBPF programs and maps"),
    GROUP("@clock", g_clock, false, "setting or slewing the system clock"),
    GROUP("@clone3", g_clone3, false,
          "clone3, whose flags seccomp cannot read (ENOSYS: glibc falls back to clone)"),
    GROUP("@cpu-emulation", g_cpu_emulation, false, "per-process LDT segments (modify_ldt)"),
    GROUP("@debug", g_debug, false,
          "ptrace and reading or writing other processes' memory and files"),
    LOCKED_GROUP("@io-uring", g_io_uring,
                 "io_uring, which bypasses the filter for what it submits (ENOSYS: programs "
                 "fall back) (locked: its opens and SETXATTR would bypass @suid and "
                 "@setxattr)"),
    GROUP("@keyring", g_keyring, false, "the kernel's key retention service"),
    GROUP("@module", g_module, false, "loading and unloading kernel modules"),
    GROUP("@mount", g_mount, true,
          "mounting, the new mount API, pivot_root and chroot (allowed with nesting)"),
    SAME_NS_GROUP("@mqueue", g_mqueue,
                  "POSIX message queues (denied under the landlock backend, which shares the "
                  "caller's IPC namespace)"),
    GROUP("@namespaces", g_namespaces, true,
          "creating or joining namespaces: clone and unshare with CLONE_NEW* flags, setns "
          "(allowed with nesting)"),
    GROUP("@obsolete", g_obsolete, false,
          "calls removed from or never implemented by Linux "
          "(ENOSYS)"),
    GROUP("@perf", g_perf, false, "performance counters and tracing (perf_event_open)"),
    GROUP("@personality", g_personality, false,
          "execution domains other than PER_LINUX and PER_LINUX32"),
    GROUP("@privileged", g_privileged, false,
          "administration: process accounting, quotas, the kernel log, file handles"),
    GROUP("@raw-io", g_raw_io, false, "raw I/O port access"),
    GROUP("@reboot", g_reboot, false, "rebooting and loading a new kernel"),
    LOCKED_GROUP("@setxattr", g_setxattr,
                 "writing extended attributes, security.capability (file capabilities) "
                 "among them (EOPNOTSUPP) (locked: always denied)"),
    LOCKED_GROUP("@suid", g_suid,
                 "set-user-ID and set-group-ID bits in any mode: chmod, creating files and "
                 "directories; write for others in a chmod; openat2 (ENOSYS) (locked: always "
                 "denied)"),
    GROUP("@swap", g_swap, false, "enabling and disabling swap"),
    SAME_NS_GROUP("@sysvipc", g_sysvipc,
                  "System V IPC: shared memory, message queues, semaphores (denied under the "
                  "landlock backend, which shares the caller's IPC namespace)"),
    GROUP("@tty-inject", g_tty_inject, false,
          "pushing input into a terminal or changing its line discipline: ioctl TIOCSTI, "
          "TIOCLINUX and TIOCSETD"),
    GROUP("@userfaultfd", g_userfaultfd, false, "user-space page fault handling"),
    GROUP("@vsock", g_vsock, false, "AF_VSOCK sockets, which reach the hypervisor host"),
};
const size_t sbx_seccomp_n_groups = SBX_ARRAY_SIZE(sbx_seccomp_groups);

const struct sbx_seccomp_group *sbx_seccomp_group_find(const char *name)
{
	for (size_t i = 0; name && i < sbx_seccomp_n_groups; i++)
		if (strcmp(sbx_seccomp_groups[i].name, name) == 0)
			return &sbx_seccomp_groups[i];
	return NULL;
}

/* ---- configuration ---- */

void sbx_seccomp_conf_clear(struct sbx_seccomp_conf *conf)
{
	if (!conf)
		return;
	for (size_t i = 0; i < conf->n_allow; i++)
		free(conf->allow[i]);
	free(conf->allow);
	for (size_t i = 0; i < conf->n_deny; i++)
		free(conf->deny[i]);
	free(conf->deny);
	memset(conf, 0, sizeof(*conf));
}

static int push_name(char ***list, size_t *n, const char *name, struct sbx_error *err)
{
	char **grown;
	char *copy;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*list)[i], name) == 0)
			return 0;
	copy = strdup(name);
	grown = copy ? realloc(*list, (*n + 1) * sizeof(**list)) : NULL;
	if (!grown) {
		free(copy);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	*list = grown;
	(*list)[(*n)++] = copy;
	return 0;
}

int sbx_seccomp_conf_copy(struct sbx_seccomp_conf *dst, const struct sbx_seccomp_conf *src,
                          struct sbx_error *err)
{
	struct sbx_seccomp_conf c = {.deny_errno = src->deny_errno,
	                             .log = src->log,
	                             .nesting = src->nesting,
	                             .no_network = src->no_network,
	                             .tcp_only = src->tcp_only,
	                             .no_hardlinks = src->no_hardlinks,
	                             .no_unix_sockets = src->no_unix_sockets,
	                             .same_ns = src->same_ns,
	                             .host_root = src->host_root};
	int r;

	for (size_t i = 0; i < src->n_allow; i++)
		if ((r = push_name(&c.allow, &c.n_allow, src->allow[i], err)) < 0)
			goto fail;
	for (size_t i = 0; i < src->n_deny; i++)
		if ((r = push_name(&c.deny, &c.n_deny, src->deny[i], err)) < 0)
			goto fail;
	*dst = c;
	return 0;
fail:
	sbx_seccomp_conf_clear(&c);
	return r;
}

/* Name a group or call for a message; the whole list of groups goes in the hint. */
static int unknown_name(const char *verb, const char *name, struct sbx_error *err)
{
	char groups[SBX_ERROR_HINT_MAX];
	size_t len = 0;
	int r;

	if (name[0] == '@')
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "cannot %s seccomp group '%.64s': there is no such group", verb,
		                  name);
	else
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "cannot %s '%.64s': it is not a system call sbx knows", verb,
		                  name);
	groups[0] = '\0';
	for (size_t i = 0; i < sbx_seccomp_n_groups && len + 32 < sizeof(groups); i++)
		len += (size_t)snprintf(groups + len, sizeof(groups) - len, "%s%s", i ? " " : "",
		                        sbx_seccomp_groups[i].name);
	sbx_error_hint(err,
	               "name a group (%s) or an x86_64 system call such as ptrace; see "
	               "sbx-seccomp(7)",
	               groups);
	return r;
}

static int check_name(const char *verb, const char *name, struct sbx_error *err)
{
	if (!name || !*name || strlen(name) > SBX_SECCOMP_NAME_MAX)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "cannot %s an empty or over-long seccomp name", verb);
	if (name[0] == '@' ? !sbx_seccomp_group_find(name) : !sbx_seccomp_call_find(name))
		return unknown_name(verb, name, err);
	return 0;
}

static int add_entry(char ***list, size_t *n, size_t other, const char *verb, const char *name,
                     struct sbx_error *err)
{
	int r = check_name(verb, name, err);

	if (r < 0)
		return r;
	if (*n + other >= SBX_SECCOMP_MAX_NAMES)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many seccomp allow and deny entries: at most %d",
		                     SBX_SECCOMP_MAX_NAMES);
	return push_name(list, n, name, err);
}

/* The locked group that `name` (a group or a call) is or belongs to, if any. */
static const struct sbx_seccomp_group *locked_group(const char *name)
{
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++) {
		const struct sbx_seccomp_group *grp = &sbx_seccomp_groups[g];

		if (!grp->locked)
			continue;
		if (strcmp(grp->name, name) == 0)
			return grp;
		for (size_t e = 0; e < grp->n_entries; e++)
			if (strcmp(grp->entries[e].call, name) == 0)
				return grp;
	}
	return NULL;
}

/* Locked groups hold what must never leave a sandbox (set-uid files, file capabilities): no
 * profile or flag may open them, not even for one call, since a call allowed by name would
 * lose the argument conditions that make the group safe to leave partly open. */
static int refuse_locked(const char *name, struct sbx_error *err)
{
	const struct sbx_seccomp_group *g = locked_group(name);
	int r;

	if (!g)
		return 0;
	if (strcmp(g->name, name) == 0)
		r = sbx_error_set(err, SBX_ERR_USAGE, EPERM,
		                  "cannot allow seccomp group %s: it is locked, denied in every "
		                  "sandbox (%s)",
		                  g->name, g->help);
	else
		r = sbx_error_set(err, SBX_ERR_USAGE, EPERM,
		                  "cannot allow '%s': the locked seccomp group %s denies it in "
		                  "every sandbox (%s)",
		                  name, g->name, g->help);
	sbx_error_hint(err, "remove it from --seccomp-allow or the profile's seccomp: allow: "
	                    "list; what the group denies is never needed inside a sandbox (see "
	                    "sbx-seccomp(7))");
	return r;
}

int sbx_seccomp_conf_allow(struct sbx_seccomp_conf *conf, const char *name, struct sbx_error *err)
{
	int r = check_name("allow", name, err);

	if (r < 0 || (r = refuse_locked(name, err)) < 0)
		return r;
	return add_entry(&conf->allow, &conf->n_allow, conf->n_deny, "allow", name, err);
}

int sbx_seccomp_conf_deny(struct sbx_seccomp_conf *conf, const char *name, struct sbx_error *err)
{
	return add_entry(&conf->deny, &conf->n_deny, conf->n_allow, "deny", name, err);
}

static const struct {
	const char *name;
	int value;
} errno_names[] = {
    {"EPERM", EPERM},   {"EACCES", EACCES},   {"ENOSYS", ENOSYS},
    {"EINVAL", EINVAL}, {"ENOTSUP", ENOTSUP}, {"EOPNOTSUPP", EOPNOTSUPP},
};

const char *sbx_seccomp_errno_name(int errnum)
{
	for (size_t i = 0; i < SBX_ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].value == errnum)
			return errno_names[i].name;
	return NULL;
}

int sbx_seccomp_conf_set_errno(struct sbx_seccomp_conf *conf, const char *value,
                               struct sbx_error *err)
{
	char *end = NULL;
	long v;
	int r;

	for (size_t i = 0; value && i < SBX_ARRAY_SIZE(errno_names); i++)
		if (strcmp(value, errno_names[i].name) == 0) {
			conf->deny_errno = errno_names[i].value;
			return 0;
		}
	if (value && *value >= '0' && *value <= '9') {
		errno = 0;
		v = strtol(value, &end, 10);
		/* 4095 is the kernel's MAX_ERRNO: larger values are not errors to the caller. */
		if (errno == 0 && *end == '\0' && v >= 1 && v <= 4095) {
			conf->deny_errno = (int)v;
			return 0;
		}
	}
	r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "seccomp errno '%.64s' is not valid",
	                  value ? value : "");
	sbx_error_hint(err, "give EPERM (the default), EACCES, ENOSYS, EINVAL, EOPNOTSUPP or a "
	                    "number from 1 to 4095");
	return r;
}

/* ---- resolution ---- */

void sbx_seccomp_rules_clear(struct sbx_seccomp_rules *rules)
{
	if (!rules)
		return;
	free(rules->rules);
	free(rules->group_state);
	memset(rules, 0, sizeof(*rules));
}

static bool listed(char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* The group that denies `call` under a condition, if any (for messages). */
static const struct sbx_seccomp_group *conditional_group(const char *call)
{
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++)
		for (size_t e = 0; e < sbx_seccomp_groups[g].n_entries; e++) {
			const struct sbx_seccomp_entry *en = &sbx_seccomp_groups[g].entries[e];

			if (en->cmp[0].op != SBX_SECCOMP_ALWAYS && strcmp(en->call, call) == 0)
				return &sbx_seccomp_groups[g];
		}
	return NULL;
}

static bool has_rule(const struct sbx_seccomp_rules *r, const char *call, bool unconditional)
{
	for (size_t i = 0; i < r->n_rules; i++)
		if (strcmp(r->rules[i].call, call) == 0 && (!unconditional || !r->rules[i].cmp))
			return true;
	return false;
}

static int check_conf(const struct sbx_seccomp_conf *conf, struct sbx_error *err)
{
	int r;

	for (size_t i = 0; i < conf->n_allow; i++) {
		const struct sbx_seccomp_group *g;

		if ((r = check_name("allow", conf->allow[i], err)) < 0)
			return r;
		if ((r = refuse_locked(conf->allow[i], err)) < 0)
			return r;
		g = conditional_group(conf->allow[i]);
		if (conf->allow[i][0] != '@' && g) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "cannot allow '%s' by name: it is denied only with "
			                  "certain arguments, by the group %s",
			                  conf->allow[i], g->name);
			sbx_error_hint(err, "allow the group %s instead (%s)", g->name, g->help);
			return r;
		}
	}
	for (size_t i = 0; i < conf->n_deny; i++) {
		if ((r = check_name("deny", conf->deny[i], err)) < 0)
			return r;
		if (strcmp(conf->deny[i], "execve") == 0) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "cannot deny execve: sbx starts the worker with execve "
			                  "after the filter is installed");
			sbx_error_hint(err, "deny execveat, or use a Landlock policy (execute "
			                    "rights) to limit what may be run");
			return r;
		}
	}
	if (conf->n_allow + conf->n_deny > SBX_SECCOMP_MAX_NAMES)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many seccomp allow and deny entries: at most %d",
		                     SBX_SECCOMP_MAX_NAMES);
	if (conf->deny_errno < 0 || conf->deny_errno > 4095)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "seccomp errno %d is not in 1..4095", conf->deny_errno);
	return 0;
}

static struct sbx_seccomp_rule entry_rule(const struct sbx_seccomp_entry *en, const char *group,
                                          int deny_errno, bool locked)
{
	size_t n = sbx_seccomp_entry_n_cmp(en);

	return (struct sbx_seccomp_rule){
	    .call = en->call,
	    .group = group,
	    .cmp = n ? en->cmp : NULL,
	    .n_cmp = n,
	    .errnum = en->action == SBX_SECCOMP_ENOSYS    ? ENOSYS
	              : en->action == SBX_SECCOMP_ENOTSUP ? EOPNOTSUPP
	                                                  : deny_errno,
	    .locked = locked,
	};
}

/* The rules of one of the landlock backend's tables, less what is denied outright already.
 * They stand in for a namespace that backend lacks (network, mount, pid, IPC), so they are
 * locked: log mode, which lifts every other denial, must not give the worker the host's unix
 * sockets, processes or IPC objects that the namespaces backend never shows. */
static void add_backend_rules(struct sbx_seccomp_rules *res, const struct sbx_seccomp_entry *tbl,
                              size_t n, const char *group)
{
	for (size_t i = 0; i < n; i++) {
		if (has_rule(res, tbl[i].call, true))
			continue; /* denied outright already */
		res->rules[res->n_rules++] = entry_rule(&tbl[i], group, res->deny_errno, true);
	}
}

static bool keyring_group(const struct sbx_seccomp_group *g)
{
	return strcmp(g->name, "@keyring") == 0;
}

/* Keyrings without a user namespace of the worker's own: the session keyring it joins is
 * new, but the caller's user keyring (KEY_SPEC_USER_KEYRING, keyctl link, search, read) is
 * the same uid's in the same user namespace. So under the landlock backend @keyring cannot be
 * allowed, by group or by call, and log mode keeps it denied (resolve locks it there). */
static int refuse_same_ns_keyring(const struct sbx_seccomp_conf *conf, struct sbx_error *err)
{
	const struct sbx_seccomp_group *g = sbx_seccomp_group_find("@keyring");
	int r;

	if (!conf->same_ns || !g)
		return 0;
	for (size_t i = 0; i < conf->n_allow; i++) {
		bool hit = strcmp(conf->allow[i], g->name) == 0;

		for (size_t e = 0; !hit && e < g->n_entries; e++)
			hit = strcmp(conf->allow[i], g->entries[e].call) == 0;
		if (!hit)
			continue;
		r = sbx_error_set(err, SBX_ERR_USAGE, EPERM,
		                  "cannot allow '%s' under the landlock backend: without a user "
		                  "namespace of its own the worker would reach the caller's user "
		                  "keyring and read its keys",
		                  conf->allow[i]);
		sbx_error_hint(err,
		               "run on the namespaces backend (where the worker's keyrings are "
		               "its own), or leave @keyring denied");
		return r;
	}
	return 0;
}

int sbx_seccomp_resolve(const struct sbx_seccomp_conf *conf, struct sbx_seccomp_rules *out,
                        struct sbx_error *err)
{
	struct sbx_seccomp_rules res = {0};
	size_t cap = conf->n_deny;
	int r;

	memset(out, 0, sizeof(*out));
	r = check_conf(conf, err);
	if (r < 0)
		return r;
	r = refuse_same_ns_keyring(conf, err);
	if (r < 0)
		return r;
	res.log = conf->log;
	res.deny_errno = conf->deny_errno ? conf->deny_errno : EPERM;
	for (size_t g = 0; g < sbx_seccomp_n_groups; g++)
		cap += sbx_seccomp_groups[g].n_entries;
	cap += SBX_ARRAY_SIZE(g_no_network) + SBX_ARRAY_SIZE(g_tcp_only) +
	       SBX_ARRAY_SIZE(g_no_hardlinks) + SBX_ARRAY_SIZE(g_no_unix) +
	       SBX_ARRAY_SIZE(g_processes) + SBX_ARRAY_SIZE(g_host_root);
	res.rules = calloc(cap ? cap : 1, sizeof(*res.rules));
	res.group_state = calloc(sbx_seccomp_n_groups, sizeof(*res.group_state));
	if (!res.rules || !res.group_state) {
		sbx_seccomp_rules_clear(&res);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}

	for (size_t g = 0; g < sbx_seccomp_n_groups; g++) {
		const struct sbx_seccomp_group *grp = &sbx_seccomp_groups[g];
		bool denied_by_name = listed(conf->deny, conf->n_deny, grp->name);

		/* A deny always wins: the most restrictive answer (docs/design.md, The model
		 * (policies)). A locked group is denied whatever is asked (check_conf refused any
		 * allow of it). */
		if (denied_by_name || grp->locked)
			res.group_state[g] = SBX_SECCOMP_GROUP_DENIED;
		else if (listed(conf->allow, conf->n_allow, grp->name))
			res.group_state[g] = SBX_SECCOMP_GROUP_ALLOWED;
		else if (grp->nesting && conf->nesting)
			res.group_state[g] = SBX_SECCOMP_GROUP_NESTING;
		else if (grp->same_ns && !conf->same_ns)
			res.group_state[g] = SBX_SECCOMP_GROUP_OWN_NS;
		else
			res.group_state[g] = SBX_SECCOMP_GROUP_DENIED;
		if (res.group_state[g] != SBX_SECCOMP_GROUP_DENIED)
			continue;
		for (size_t e = 0; e < grp->n_entries; e++) {
			const struct sbx_seccomp_entry *en = &grp->entries[e];

			if (!grp->locked && !denied_by_name &&
			    listed(conf->allow, conf->n_allow, en->call) &&
			    !listed(conf->deny, conf->n_deny, en->call))
				continue;
			/* Denied by name outright: the conditional rules are subsumed below (a
			 * locked call's by-name rule is locked too). */
			if (en->cmp[0].op != SBX_SECCOMP_ALWAYS &&
			    listed(conf->deny, conf->n_deny, en->call))
				continue;
			/* a group standing in for the IPC namespace the landlock backend lacks is
			 * enforced in log mode too, like that backend's own rules */
			res.rules[res.n_rules++] = entry_rule(
			    en, grp->name, res.deny_errno,
			    grp->locked || (conf->same_ns && (grp->same_ns || keyring_group(grp))));
		}
	}
	for (size_t i = 0; i < conf->n_deny; i++) {
		const char *call = sbx_seccomp_call_find(conf->deny[i]);

		if (conf->deny[i][0] == '@' || !call || has_rule(&res, call, true))
			continue;
		res.rules[res.n_rules++] = (struct sbx_seccomp_rule){
		    .call = call,
		    .group = NULL,
		    .errnum = res.deny_errno,
		    .locked = locked_group(call) != NULL,
		};
	}

	if (conf->no_network)
		add_backend_rules(&res, g_no_network, SBX_ARRAY_SIZE(g_no_network),
		                  sbx_seccomp_no_network_group);
	else if (conf->tcp_only)
		add_backend_rules(&res, g_tcp_only, SBX_ARRAY_SIZE(g_tcp_only),
		                  sbx_seccomp_tcp_only_group);
	if (conf->no_unix_sockets)
		add_backend_rules(&res, g_no_unix, SBX_ARRAY_SIZE(g_no_unix),
		                  sbx_seccomp_no_unix_group);
	if (conf->same_ns)
		add_backend_rules(&res, g_processes, SBX_ARRAY_SIZE(g_processes),
		                  sbx_seccomp_processes_group);
	if (conf->no_hardlinks)
		add_backend_rules(&res, g_no_hardlinks, SBX_ARRAY_SIZE(g_no_hardlinks),
		                  sbx_seccomp_no_hardlinks_group);
	/* Locked: log mode must not hand root the machine's modes and owners. */
	for (size_t i = 0; conf->host_root && i < SBX_ARRAY_SIZE(g_host_root); i++)
		if (!has_rule(&res, g_host_root[i].call, true))
			res.rules[res.n_rules++] = entry_rule(
			    &g_host_root[i], sbx_seccomp_host_root_group, res.deny_errno, true);

	/* clone3 hides its flags from seccomp: allowing it while namespace creation is denied
	 * would deny nothing. */
	if (!has_rule(&res, "clone3", false) &&
	    (has_rule(&res, "clone", false) || has_rule(&res, "unshare", false))) {
		sbx_seccomp_rules_clear(&res);
		r = sbx_error_set(
		    err, SBX_ERR_USAGE, EINVAL,
		    "cannot allow clone3 while namespace creation is denied: seccomp "
		    "cannot read clone3's flags, so the worker could create namespaces "
		    "with it");
		sbx_error_hint(err, "leave clone3 denied (glibc falls back to clone), or allow "
		                    "@namespaces too (profile key nesting: true)");
		return r;
	}
	*out = res;
	return 0;
}
