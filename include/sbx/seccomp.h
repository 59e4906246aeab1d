/* SPDX-License-Identifier: MIT */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

/*
 * The seccomp filter (sbx-seccomp(7)).
 *
 * Core (src/core/seccomp_groups.c, pure): the tables of named syscall groups, the known
 * syscall names, the configuration that flags and profiles fill, and its resolution into the
 * effective rule set that --dry-run prints and the loader compiles.
 *
 * OS (src/os/seccomp.c, declared in src/os/seccomp.h, links libseccomp): building the BPF
 * program from a resolved rule set (the plan's, which --dry-run prints) and installing it. It
 * decides nothing: what is denied is the resolution's.
 *
 * The filter's shape: default allow; every call in a denied group answers an errno (EPERM
 * unless configured) or ENOSYS where programs should fall back (clone3, io_uring, obsolete
 * calls); calls numbered above the last one sbx has classified answer ENOSYS; foreign
 * architectures (i386, x32 on x86_64) kill the process.
 *
 * Ownership: struct sbx_seccomp_conf owns its name arrays (setters copy);
 * sbx_seccomp_conf_clear() frees them. Resolved rules point into the static tables and own
 * only their array.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"

/* Caps on what a user controls. */
#define SBX_SECCOMP_MAX_NAMES 512 /* allow + deny entries */
#define SBX_SECCOMP_NAME_MAX  64
#define SBX_SECCOMP_SET_MAX   4 /* values of a NOT_IN32 comparison */
#define SBX_SECCOMP_CMP_MAX   2 /* comparisons ANDed in one entry: "O_CREAT and S_ISUID" */

/* What a denied call answers. Under log mode both become "allowed, logged". */
enum sbx_seccomp_action {
	SBX_SECCOMP_DENY = 0, /* the configured errno: EPERM unless --seccomp-errno */
	SBX_SECCOMP_ENOSYS,   /* ENOSYS, whatever the configured errno: the caller falls back */
	SBX_SECCOMP_ENOTSUP,  /* EOPNOTSUPP, whatever the configured errno: "not supported here",
	                         which cp -a, tar and shutil.copy2 take as no xattrs and go on */
};

enum sbx_seccomp_cmp_op {
	SBX_SECCOMP_ALWAYS = 0, /* no argument condition */
	SBX_SECCOMP_MASKED_EQ,  /* denied when (arg & mask) == value */
	SBX_SECCOMP_NOT_IN32,   /* denied when the low 32 bits of arg are none of set[] */
};

struct sbx_seccomp_cmp {
	enum sbx_seccomp_cmp_op op;
	unsigned arg;                      /* 0..5 */
	uint64_t mask, value;              /* MASKED_EQ */
	uint32_t set[SBX_SECCOMP_SET_MAX]; /* NOT_IN32 */
	unsigned n_set;
	const char *what; /* the condition in words, for --dry-run: "CLONE_NEWUSER" */
};

/* A denied call, under every one of its comparisons (ANDed; none: unconditionally). The
 * comparisons in use come first; the rest are zeroed (SBX_SECCOMP_ALWAYS). A NOT_IN32
 * comparison stands alone: the filter's prologue tests it (see src/os/seccomp.c). */
struct sbx_seccomp_entry {
	const char *call;
	enum sbx_seccomp_action action;
	struct sbx_seccomp_cmp cmp[SBX_SECCOMP_CMP_MAX];
};

/* How many comparisons an entry ANDs: 0 for an unconditional denial. */
size_t sbx_seccomp_entry_n_cmp(const struct sbx_seccomp_entry *entry);

struct sbx_seccomp_group {
	const char *name; /* "@module" */
	const char *help; /* one line: what the group denies and why */
	const struct sbx_seccomp_entry *entries;
	size_t n_entries;
	bool nesting; /* lifted when the sandbox may start sub-sandboxes */
	bool locked;  /* denied in every sandbox: no configuration can allow the group or any of
	                 its calls, and log mode does not lift it (set-uid files, file caps) */
	bool same_ns; /* denied only where the worker shares the caller's namespaces (the
	                 landlock backend): elsewhere the worker's own namespace holds it */
};

extern const struct sbx_seccomp_group sbx_seccomp_groups[];
/* The name the rules of sbx_seccomp_conf.no_network carry as their group. */
extern const char *const sbx_seccomp_no_network_group;
/* ... and those of sbx_seccomp_conf.tcp_only. */
extern const char *const sbx_seccomp_tcp_only_group;
/* ... and those of sbx_seccomp_conf.no_hardlinks. */
extern const char *const sbx_seccomp_no_hardlinks_group;
/* ... and those of sbx_seccomp_conf.no_unix_sockets. */
extern const char *const sbx_seccomp_no_unix_group;
/* ... and those of sbx_seccomp_conf.same_ns that reach other processes. */
extern const char *const sbx_seccomp_processes_group;
/* ... and those of sbx_seccomp_conf.host_root. */
extern const char *const sbx_seccomp_host_root_group;
extern const size_t sbx_seccomp_n_groups;

/* Every system call name sbx has classified, sorted (strcmp). A call not in this list cannot
 * be named in a configuration; calls the kernel numbers above the last of them answer ENOSYS. */
extern const char *const sbx_seccomp_known_calls[];
extern const size_t sbx_seccomp_n_known_calls;

const struct sbx_seccomp_group *sbx_seccomp_group_find(const char *name);
/* The static copy of a known call name, or NULL. */
const char *sbx_seccomp_call_find(const char *name);

/* What flags (--seccomp-*) and profiles (seccomp:) ask for. Zeroed is the default filter. */
struct sbx_seccomp_conf {
	char **allow; /* "@group" or call names; owned */
	size_t n_allow;
	char **deny;
	size_t n_deny;
	int deny_errno;       /* errno answered by SBX_SECCOMP_DENY rules; 0 means EPERM */
	bool log;             /* SCMP_ACT_LOG instead of every denial: find what a program needs */
	bool nesting;         /* may start sub-sandboxes: @namespaces and @mount are lifted */
	bool no_network;      /* the landlock backend's --net none: every socket but AF_UNIX denied
	                         (no network namespace holds the worker; Landlock covers TCP only) */
	bool tcp_only;        /* the landlock backend's allowlist (no_network wins): TCP sockets of
	                         AF_INET and AF_INET6 only (no MPTCP, UDP, raw), no MSG_FASTOPEN,
	                         no listen(2); connect(2) is the supervisor's */
	bool no_hardlinks;    /* the landlock backend with hidden paths beneath a grant: link and
	                         linkat denied, since a hidden file linked under a new name in a
	                         directory on a carved chain would not be hidden at a later launch */
	bool no_unix_sockets; /* the landlock backend: socket(AF_UNIX) denied, since Landlock
	                         (ABI 7) does not guard connecting or sending to a unix socket
	                         bound to a path (a container engine's, a session bus); the
	                         caller's mount namespace has them all. Datagram pairs from
	                         socketpair too (sendto(2) with a path reaches any datagram
	                         socket); stream and seqpacket pairs stay */
	bool same_ns;         /* the landlock backend: the worker shares the caller's pid and IPC
	                         namespaces, so calls that act on another process by its id
	                         (prlimit64, setpriority, sched_set*, ioprio_set, ...) are denied
	                         and so are the groups marked same_ns (@sysvipc) */
	bool host_root;       /* the landlock backend as root: the worker owns every root-owned
	                         file of the machine and Landlock governs no mode or owner, so
	                         chmod, chown and their kin are denied (locked, even in log mode) */
};

void sbx_seccomp_conf_clear(struct sbx_seccomp_conf *conf);
int sbx_seccomp_conf_copy(struct sbx_seccomp_conf *dst, const struct sbx_seccomp_conf *src,
                          struct sbx_error *err);
/* Allow or deny a group ("@debug") or a single call ("ptrace"); the name must be in the
 * tables. A deny always wins over an allow, whatever their order. */
int sbx_seccomp_conf_allow(struct sbx_seccomp_conf *conf, const char *name, struct sbx_error *err);
int sbx_seccomp_conf_deny(struct sbx_seccomp_conf *conf, const char *name, struct sbx_error *err);
/* The errno denials answer: a name (EPERM, EACCES, ENOSYS, ...) or a number 1..4095. */
int sbx_seccomp_conf_set_errno(struct sbx_seccomp_conf *conf, const char *value,
                               struct sbx_error *err);
/* errno name for the few a configuration may name, or NULL. */
const char *sbx_seccomp_errno_name(int errnum);

/* One rule of the effective filter. Pointers are to static tables. */
struct sbx_seccomp_rule {
	const char *call;
	const char *group; /* "@debug", or NULL when denied by name */
	const struct sbx_seccomp_cmp
	    *cmp;     /* the entry's comparisons (ANDed); NULL: unconditional */
	size_t n_cmp; /* how many; 0 when cmp is NULL */
	int errnum;   /* the errno answered (log mode: would have answered) */
	bool locked;  /* answers errnum even in log mode */
};

enum sbx_seccomp_group_state {
	SBX_SECCOMP_GROUP_DENIED = 0,
	SBX_SECCOMP_GROUP_ALLOWED, /* allowed by the configuration */
	SBX_SECCOMP_GROUP_NESTING, /* lifted because nesting is allowed */
	SBX_SECCOMP_GROUP_OWN_NS,  /* a same_ns group where the worker has namespaces of its own */
};

struct sbx_seccomp_rules {
	struct sbx_seccomp_rule *rules; /* owned */
	size_t n_rules;
	enum sbx_seccomp_group_state *group_state; /* owned, one per sbx_seccomp_groups[] */
	bool log;
	int deny_errno;
};

/*
 * Resolve a configuration into the effective rules: every group denied, less the groups
 * nesting lifts and those allowed, less calls allowed by name (unless a deny names their
 * group or them), plus calls denied by name. Locked groups stay denied whatever is asked.
 * Refuses what would be incoherent: allowing a locked group or any call of one, allowing a
 * call that is only denied under a condition, allowing clone3 while namespace creation is
 * denied (seccomp cannot read clone3's flags), denying execve (sbx execs the worker after
 * the filter is in place).
 */
int sbx_seccomp_resolve(const struct sbx_seccomp_conf *conf, struct sbx_seccomp_rules *out,
                        struct sbx_error *err);
void sbx_seccomp_rules_clear(struct sbx_seccomp_rules *rules);

#endif
