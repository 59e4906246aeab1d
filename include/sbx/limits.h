/* SPDX-License-Identifier: MIT */
#ifndef SBX_LIMITS_H
#define SBX_LIMITS_H

/*
 * Resource limits (SPEC section 12; profile key `limits:`, flag --limit NAME=VALUE): parsing,
 * formatting, nesting (a child may only lower) and the sizes every tmpfs sbx makes gets. Pure:
 * the host's facts (its RAM, its /proc/sys/user values) come in as numbers. What enforces them
 * is the launcher's: rlimits in the worker, a cgroup for memory, pids and cpu
 * (src/os/cgroup.c), sbx's timer for timeout, the tmpfs size= option.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/error.h"

enum sbx_limit {
	SBX_LIMIT_MEMORY = 0, /* bytes: the cgroup's memory.max (v1: memory.limit_in_bytes) */
	SBX_LIMIT_PIDS,       /* tasks: pids.max; or RLIMIT_NPROC in the sandbox's own userns */
	SBX_LIMIT_CPU,        /* thousandths of a CPU: cpu.max (v1: cfs quota and period) */
	SBX_LIMIT_NOFILE,     /* open files: RLIMIT_NOFILE */
	SBX_LIMIT_FSIZE,      /* bytes of one file: RLIMIT_FSIZE */
	SBX_LIMIT_TIMEOUT,    /* milliseconds of wall clock: sbx kills the sandbox, exit 124 */
	SBX_LIMIT_TMPFS,      /* bytes: the size of each tmpfs sbx makes that names none */
	SBX_LIMIT_COUNT,
};

/* The limits that need a cgroup (memory, pids and cpu). */
#define SBX_LIMITS_CGROUP                                                                          \
	((1u << SBX_LIMIT_MEMORY) | (1u << SBX_LIMIT_PIDS) | (1u << SBX_LIMIT_CPU))
#define SBX_LIMIT_BIT(l) (1u << (l))

struct sbx_limits {
	unsigned set; /* SBX_LIMIT_BIT of each limit given */
	uint64_t v[SBX_LIMIT_COUNT];
};

enum sbx_limit_unit {
	SBX_UNIT_BYTES = 0, /* 512M, 2G: powers of 1024 */
	SBX_UNIT_COUNT,     /* a plain number */
	SBX_UNIT_CPU,       /* 1.5 (CPUs) or 150% */
	SBX_UNIT_DURATION,  /* 500ms, 30s, 5m, 1h, 1d; a plain number is seconds */
};

struct sbx_limit_info {
	const char *name;
	enum sbx_limit_unit unit;
	uint64_t min, max;   /* in the unit's base: bytes, count, thousandths of a CPU, ms */
	const char *allowed; /* for messages: what may be written */
	const char *example; /* a value, for hints */
};

/* The table of limits, indexed by enum sbx_limit. */
extern const struct sbx_limit_info sbx_limit_table[SBX_LIMIT_COUNT];

/* The limit called `name`, or -1. */
int sbx_limit_lookup(const char *name);

/* Parse one value of limit `l` into *out. Errors (SBX_ERR_USAGE) name the key, the value and
 * what is allowed. */
int sbx_limit_parse(enum sbx_limit l, const char *value, uint64_t *out, struct sbx_error *err);

/* Set limit `name` to `value` (the profile's limits: mapping). */
int sbx_limits_set(struct sbx_limits *lim, const char *name, const char *value,
                   struct sbx_error *err);

/* --limit NAME=VALUE. */
int sbx_limits_set_arg(struct sbx_limits *lim, const char *arg, struct sbx_error *err);

/* A value in its unit, as a user writes it: 512M, 1.5 CPUs, 30s, 1000. */
const char *sbx_limit_format(enum sbx_limit l, uint64_t v, char *buf, size_t size);

/*
 * A nested sandbox's limits: the parent's, lowered where the child asks (asked). A child
 * asking more than its parent is refused (SBX_ERR_ESCALATION, exit 125) naming the limit,
 * both values and what to do; a limit the parent lacks may be asked freely. *own gets the
 * limits the child must enforce itself (those it asked): the parent's stay enforced by the
 * parent's cgroup and timer, which hold its children too.
 */
int sbx_limits_narrow(const struct sbx_limits *parent, const struct sbx_limits *asked,
                      struct sbx_limits *out, unsigned *own, struct sbx_error *err);

/*
 * The size of a tmpfs sbx makes that names no size of its own: limits' tmpfs when given;
 * otherwise SBX_TMPFS_DEFAULT_SHIFT (an eighth) of the host's RAM, at least
 * SBX_TMPFS_DEFAULT_MIN; never more than the memory limit where one is set (tmpfs pages are
 * charged to the writer's cgroup anyway). mem_total 0 (unknown): SBX_TMPFS_DEFAULT_UNKNOWN.
 */
#define SBX_TMPFS_DEFAULT_SHIFT   3u
#define SBX_TMPFS_DEFAULT_MIN     (64ull << 20)
#define SBX_TMPFS_DEFAULT_UNKNOWN (1ull << 30)
uint64_t sbx_limits_tmpfs_size(const struct sbx_limits *lim, uint64_t mem_total);
/* The inode count of a tmpfs of `size` bytes: one per 4 KiB page, at least 1024, so that empty
 * files cannot take kernel memory beyond what the size allows for data. */
uint64_t sbx_limits_tmpfs_inodes(uint64_t size);

/*
 * The caller's per-user kernel counts (/proc/sys/user/max_*): each is a limit of one user
 * namespace, counted at every level up (kernel/ucount.c), so a sandbox's own user namespace can
 * carry a lower one. The sandbox gets 1/divisor of what the caller's namespace allows, so that
 * its exhaustion leaves the rest to the caller and to other sandboxes.
 */
struct sbx_ucount_share {
	const char *name; /* under /proc/sys/user */
	unsigned divisor;
	bool ranked; /* a share of what the caller's sandboxes running at once left (below) */
};
#define SBX_N_UCOUNTS 12
extern const struct sbx_ucount_share sbx_ucount_shares[SBX_N_UCOUNTS];
/* The sandbox's value for a caller's value `host` (< 0: absent, gives 0: leave it). */
uint64_t sbx_ucount_share_of(size_t i, long long host);
/*
 * The same for the caller's sandbox of rank k among those running at once (k sandboxes hold
 * the lower ranks: os/shareslot.h): for a ranked count, 1/divisor of what the k before it
 * left, so that n of them leave the caller host * (1 - 1/divisor)^n; never below
 * host >> SBX_UCOUNT_FLOOR_SHIFT (a sandbox of a high rank keeps a usable few: 2 inotify
 * instances of 128, 3008 watches of 192536), nor below 1. k = 0 is sbx_ucount_share_of.
 */
#define SBX_UCOUNT_FLOOR_SHIFT 6u
uint64_t sbx_ucount_share_at(size_t i, long long host, unsigned k);

/* rlimits that are per-user counts (RLIMIT_MSGQUEUE, RLIMIT_SIGPENDING): the worker keeps
 * 1/SBX_RLIMIT_SHARE_DIVISOR of its soft limit (src/os/rlimit.c). */
#define SBX_RLIMIT_SHARE_DIVISOR 4u

#endif
