/* SPDX-License-Identifier: MIT */
/*
 * Resource limits (include/sbx/limits.h): one table of the limits, their units and ranges,
 * read by the parser, the formatter, the profile loader, --limit and the man pages' checks.
 */
#include "sbx/limits.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbx/cleanup.h"

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define TIB (1ull << 40)

const struct sbx_limit_info sbx_limit_table[SBX_LIMIT_COUNT] = {
    [SBX_LIMIT_MEMORY] = {"memory", SBX_UNIT_BYTES, 4 * MIB, 64 * TIB,
                          "a size from 4M to 64T, with K, M, G or T (powers of 1024), e.g. 512M",
                          "512M"},
    [SBX_LIMIT_PIDS] = {"pids", SBX_UNIT_COUNT, 1, 4194304,
                        "a number of processes and threads from 1 to 4194304, e.g. 256", "256"},
    [SBX_LIMIT_CPU] = {"cpu", SBX_UNIT_CPU, 10, 1024000,
                       "a number of CPUs from 0.01 to 1024 (1.5) or a percentage of one CPU "
                       "(150%)",
                       "1.5"},
    [SBX_LIMIT_NOFILE] = {"nofile", SBX_UNIT_COUNT, 8, 1073741816,
                          "a number of open files from 8 to 1073741816, e.g. 1024", "1024"},
    [SBX_LIMIT_FSIZE] = {"fsize", SBX_UNIT_BYTES, 1, 1ull << 60,
                         "a file size from 1 byte to 1048576T, with K, M, G or T, e.g. 1G", "1G"},
    [SBX_LIMIT_TIMEOUT] = {"timeout", SBX_UNIT_DURATION, 1, 30ull * 86400 * 1000,
                           "a duration from 1ms to 30d: a number with ms, s, m, h or d "
                           "(seconds without one), e.g. 30s, 5m, 1h",
                           "30s"},
    [SBX_LIMIT_TMPFS] = {"tmpfs", SBX_UNIT_BYTES, 64 * KIB, TIB,
                         "a size from 64K to 1T, with K, M, G or T, e.g. 256M", "256M"},
};

int sbx_limit_lookup(const char *name)
{
	for (int i = 0; i < SBX_LIMIT_COUNT; i++)
		if (name && strcmp(name, sbx_limit_table[i].name) == 0)
			return i;
	return -1;
}

/* Digits into *v, saturating above cap; returns the first byte after them. */
static const char *digits(const char *p, uint64_t *v, uint64_t cap, int *n)
{
	*v = 0;
	*n = 0;
	for (; *p >= '0' && *p <= '9'; p++, (*n)++)
		*v = *v > cap ? *v : *v * 10 + (uint64_t)(*p - '0');
	return p;
}

/* The multiplier of a size's unit ("", "K", "MiB", "gb"...), or 0 if it is none. */
static uint64_t size_unit(const char *u)
{
	static const struct {
		char c;
		uint64_t mul;
	} units[] = {{'k', KIB}, {'m', MIB}, {'g', GIB}, {'t', TIB}};

	if (!*u || strcmp(u, "b") == 0 || strcmp(u, "B") == 0)
		return 1;
	for (size_t i = 0; i < SBX_ARRAY_SIZE(units); i++) {
		if ((u[0] | 0x20) != units[i].c)
			continue;
		if (!u[1] || ((u[1] == 'B' || u[1] == 'b') && !u[2]) ||
		    (u[1] == 'i' && (u[2] == 'B' || u[2] == 'b') && !u[3]))
			return units[i].mul;
	}
	return 0;
}

/* The multiplier of a duration's unit, in ms; "" is seconds; 0 if none. */
static uint64_t duration_unit(const char *u)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = {{"", 1000},   {"ms", 1},      {"s", 1000},
	             {"m", 60000}, {"h", 3600000}, {"d", 86400000}};

	for (size_t i = 0; i < SBX_ARRAY_SIZE(units); i++)
		if (strcmp(u, units[i].name) == 0)
			return units[i].ms;
	return 0;
}

/* 1.5 -> 1500, 150% -> 1500, 2 -> 2000; at most three decimals. */
static bool parse_cpu(const char *s, uint64_t *out)
{
	uint64_t whole, frac = 0;
	int n, nf = 0;
	const char *p = digits(s, &whole, 1ull << 40, &n);

	if (*p == '.') {
		p = digits(p + 1, &frac, 1ull << 40, &nf);
		if (nf == 0 || nf > 3)
			return false;
		for (int i = nf; i < 3; i++)
			frac *= 10;
	}
	if (n == 0 && nf == 0)
		return false;
	if (whole > (1ull << 30))
		return false;
	if (strcmp(p, "%") == 0) {
		/* a percentage of one CPU: 150% is 1.5 CPUs, 1500 thousandths; its own decimals
		 * are hundredths of thousandths, which cpu.max cannot hold: refused */
		if (nf > 1)
			return false;
		*out = whole * 10 + frac / 100;
		return true;
	}
	if (*p)
		return false;
	*out = whole * 1000 + frac;
	return true;
}

int sbx_limit_parse(enum sbx_limit l, const char *value, uint64_t *out, struct sbx_error *err)
{
	const struct sbx_limit_info *in = &sbx_limit_table[l];
	uint64_t v = 0, mul = 1;
	const char *p = value;
	bool ok = value && *value;
	int n = 0, r;

	if (ok && in->unit == SBX_UNIT_CPU) {
		ok = parse_cpu(value, &v);
	} else if (ok) {
		p = digits(value, &v, 1ull << 62, &n);
		ok = n > 0;
		if (ok && in->unit == SBX_UNIT_BYTES)
			mul = size_unit(p);
		else if (ok && in->unit == SBX_UNIT_DURATION)
			mul = duration_unit(p);
		else if (ok && *p)
			mul = 0;
		ok = ok && mul != 0;
		if (ok && v > UINT64_MAX / mul)
			v = UINT64_MAX;
		else if (ok)
			v *= mul;
	}
	if (!ok || v < in->min || v > in->max) {
		r = sbx_error_set(err, SBX_ERR_USAGE, ok ? ERANGE : EINVAL,
		                  "limit %s: '%.64s' is not %s", in->name, value ? value : "",
		                  in->allowed);
		sbx_error_hint(err, "e.g. --limit %s=%s or, in a profile, limits: {%s: %s}",
		               in->name, in->example, in->name, in->example);
		return r;
	}
	*out = v;
	return 0;
}

static int unknown(const char *name, struct sbx_error *err)
{
	char names[128] = "";
	int r;

	for (int i = 0; i < SBX_LIMIT_COUNT; i++) {
		strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
		strncat(names, sbx_limit_table[i].name, sizeof(names) - strlen(names) - 1);
	}
	r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "'%.64s' is not a limit; the limits are %s",
	                  name, names);
	sbx_error_hint(err, "e.g. --limit memory=512M --limit pids=256 --limit timeout=5m");
	return r;
}

int sbx_limits_set(struct sbx_limits *lim, const char *name, const char *value,
                   struct sbx_error *err)
{
	int l = sbx_limit_lookup(name);
	uint64_t v;
	int r;

	if (l < 0)
		return unknown(name, err);
	r = sbx_limit_parse((enum sbx_limit)l, value, &v, err);
	if (r < 0)
		return r;
	lim->v[l] = v;
	lim->set |= SBX_LIMIT_BIT(l);
	return 0;
}

int sbx_limits_set_arg(struct sbx_limits *lim, const char *arg, struct sbx_error *err)
{
	const char *eq = strchr(arg, '=');
	char name[32];
	int r;

	if (!eq) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "--limit '%.64s' is not NAME=VALUE",
		                  arg);
		sbx_error_hint(err, "e.g. --limit memory=512M; the limits are memory, pids, cpu, "
		                    "nofile, fsize, timeout and tmpfs");
		return r;
	}
	if ((size_t)(eq - arg) >= sizeof(name))
		return unknown(arg, err);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	return sbx_limits_set(lim, name, eq + 1, err);
}

const char *sbx_limit_format(enum sbx_limit l, uint64_t v, char *buf, size_t size)
{
	static const struct {
		uint64_t mul;
		const char *name;
	} sizes[] = {{TIB, "T"}, {GIB, "G"}, {MIB, "M"}, {KIB, "K"}},
	  durations[] = {{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}};

	switch (l < SBX_LIMIT_COUNT ? sbx_limit_table[l].unit : SBX_UNIT_COUNT) {
	case SBX_UNIT_BYTES:
		for (size_t i = 0; i < SBX_ARRAY_SIZE(sizes); i++)
			if (v && v % sizes[i].mul == 0) {
				snprintf(buf, size, "%llu%s",
				         (unsigned long long)(v / sizes[i].mul), sizes[i].name);
				return buf;
			}
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return buf;
	case SBX_UNIT_CPU:
		if (v % 1000 == 0)
			snprintf(buf, size, "%llu", (unsigned long long)(v / 1000));
		else if (v % 100 == 0)
			snprintf(buf, size, "%llu.%llu", (unsigned long long)(v / 1000),
			         (unsigned long long)(v % 1000 / 100));
		else if (v % 10 == 0)
			snprintf(buf, size, "%llu.%02llu", (unsigned long long)(v / 1000),
			         (unsigned long long)(v % 1000 / 10));
		else
			snprintf(buf, size, "%llu.%03llu", (unsigned long long)(v / 1000),
			         (unsigned long long)(v % 1000));
		return buf;
	case SBX_UNIT_DURATION:
		for (size_t i = 0; i < SBX_ARRAY_SIZE(durations); i++)
			if (v && v % durations[i].mul == 0) {
				snprintf(buf, size, "%llu%s",
				         (unsigned long long)(v / durations[i].mul),
				         durations[i].name);
				return buf;
			}
		snprintf(buf, size, "%llums", (unsigned long long)v);
		return buf;
	case SBX_UNIT_COUNT:
	default:
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return buf;
	}
}

int sbx_limits_narrow(const struct sbx_limits *parent, const struct sbx_limits *asked,
                      struct sbx_limits *out, unsigned *own, struct sbx_error *err)
{
	struct sbx_limits res = *parent;

	*own = 0;
	for (int l = 0; l < SBX_LIMIT_COUNT; l++) {
		unsigned bit = SBX_LIMIT_BIT(l);
		char a[32], p[32];
		int r;

		if (!(asked->set & bit))
			continue;
		if ((parent->set & bit) && asked->v[l] > parent->v[l]) {
			r = sbx_error_set(
			    err, SBX_ERR_ESCALATION, EPERM,
			    "cannot raise limit %s to %s: the parent sandbox's is %s; child "
			    "sandboxes can only lower limits",
			    sbx_limit_table[l].name, sbx_limit_format(l, asked->v[l], a, sizeof(a)),
			    sbx_limit_format(l, parent->v[l], p, sizeof(p)));
			sbx_error_hint(err, "ask at most %s=%s, or leave %s out to inherit it",
			               sbx_limit_table[l].name, p, sbx_limit_table[l].name);
			return r;
		}
		if ((parent->set & bit) && asked->v[l] == parent->v[l])
			continue; /* the parent's holds already */
		res.v[l] = asked->v[l];
		res.set |= bit;
		*own |= bit;
	}
	*out = res;
	return 0;
}

uint64_t sbx_limits_tmpfs_size(const struct sbx_limits *lim, uint64_t mem_total)
{
	uint64_t size;

	if (lim && (lim->set & SBX_LIMIT_BIT(SBX_LIMIT_TMPFS)))
		return lim->v[SBX_LIMIT_TMPFS];
	size = mem_total ? mem_total >> SBX_TMPFS_DEFAULT_SHIFT : SBX_TMPFS_DEFAULT_UNKNOWN;
	if (size < SBX_TMPFS_DEFAULT_MIN)
		size = SBX_TMPFS_DEFAULT_MIN;
	if (lim && (lim->set & SBX_LIMIT_BIT(SBX_LIMIT_MEMORY)) && size > lim->v[SBX_LIMIT_MEMORY])
		size = lim->v[SBX_LIMIT_MEMORY];
	return size & ~(4 * KIB - 1); /* whole pages, as the kernel counts them */
}

uint64_t sbx_limits_tmpfs_inodes(uint64_t size)
{
	uint64_t n = size / (4 * KIB);

	return n < 1024 ? 1024 : n;
}

const struct sbx_ucount_share sbx_ucount_shares[SBX_N_UCOUNTS] = {
    /* a program rarely needs more than a few inotify instances; the caller's editor and
     * file watchers need theirs: a quarter, of what the caller's other sandboxes running at
     * once left */
    {"max_inotify_instances", 4, true},
    /* watches are many (one per watched directory): half */
    {"max_inotify_watches", 2, true},
    {"max_fanotify_groups", 4, true},
    {"max_fanotify_marks", 2, true},
    /* namespaces a nested sandbox makes: a quarter each, whatever else runs: sbx's own
     * launch takes mount namespaces in the sandbox's (an open_tree clone for each mount
     * source), so a share that shrank with each sandbox running would fail the launch of
     * the later ones (ENOSPC); and a worker makes none without nesting */
    {"max_user_namespaces", 4, false},
    {"max_mnt_namespaces", 4, false},
    {"max_pid_namespaces", 4, false},
    {"max_ipc_namespaces", 4, false},
    {"max_uts_namespaces", 4, false},
    {"max_net_namespaces", 4, false},
    {"max_cgroup_namespaces", 4, false},
    {"max_time_namespaces", 4, false},
};

uint64_t sbx_ucount_share_at(size_t i, long long host, unsigned k)
{
	uint64_t left, d, share, floor;

	if (i >= SBX_N_UCOUNTS || host <= 0)
		return 0;
	/* what the k sandboxes before it took (1/d of what each found) is not this one's */
	d = sbx_ucount_shares[i].divisor;
	left = (uint64_t)host;
	for (unsigned j = 0; sbx_ucount_shares[i].ranked && j < k && left >= d; j++)
		left -= left / d;
	share = left / d;
	/* never below a usable floor (SBX_UCOUNT_FLOOR_SHIFT), nor 0: 0 would forbid the count
	 * altogether */
	floor = (uint64_t)host >> SBX_UCOUNT_FLOOR_SHIFT;
	if (share < floor)
		share = floor;
	return share ? share : 1;
}

uint64_t sbx_ucount_share_of(size_t i, long long host)
{
	return sbx_ucount_share_at(i, host, 0);
}
