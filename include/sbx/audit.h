/* SPDX-License-Identifier: MIT */
#ifndef SBX_AUDIT_H
#define SBX_AUDIT_H

/*
 * The audit log's records (sbx(1), AUDIT LOG; docs/design.md, The supervisor): JSON Lines,
 * `"v":1`, each record whole on one line so that one write(2) on an O_APPEND descriptor puts
 * it in the file at once, and many sandboxes can share one log. Pure: formatting only; the
 * writing is src/os/audit.c's.
 *
 * Every record carries "v", "type" ("start", "decision", "end"), "time" (RFC 3339, UTC, ms),
 * "sandbox" (this sandbox's id, 32 hex digits), "parent" (the parent sandbox's id, or null)
 * and "label" (--label, or null). Strings go through sbx_escape (SBX_ESCAPE_JSON).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx/sha.h" /* sbx_sha256_hex, the spec's digest */

#include "sbx/supervise.h"

#define SBX_AUDIT_VERSION  1
#define SBX_AUDIT_LINE_MAX 16384 /* a record longer is cut at a field and marked "cut":true */
#define SBX_SANDBOX_ID_LEN 32

struct sbx_audit_ids {
	const char *sandbox; /* 32 hex digits */
	const char *parent;  /* NULL: none (a top-level sandbox) */
	const char *label;   /* NULL: none */
};

struct sbx_audit_start {
	uint64_t time_ms;    /* CLOCK_REALTIME */
	const char *version; /* sbx's */
	const char *profile;
	const char *digest;  /* sha256 of the effective spec, hex */
	char *const *argv;   /* the worker's command */
	unsigned uid;        /* the caller's */
	int pid;             /* sbx's */
	unsigned depth;      /* 1: top level */
	const char *backend; /* "namespaces", "landlock" */
	bool supervised;
};

struct sbx_audit_decision {
	uint64_t time_ms;
	const struct sbx_sup_req *req;
	const struct sbx_sup_verdict *verdict; /* the final one: PERFORM/CONTINUE or DENY */
	const char *asked_path;                /* the path as the call named it (may be relative) */
	const char *host_path;                 /* NULL: none */
	int errnum; /* the call's result: 0, or the errno it got (not written for CONTINUE) */
	uint64_t latency_us;
	uint64_t batch_uses; /* > 1: how many calls the grant that answered this covered so far */
	uint64_t repeated;   /* > 0: the record stands for this many decisions like it, folded
	                        (sbx_audit_fold): "repeated":N; 0: no such member */
};

struct sbx_audit_end {
	uint64_t time_ms;
	int status;         /* exit status, or -1 */
	int signal;         /* the killing signal, or 0 */
	const char *killed; /* NULL, or who ended it abnormally: "sbx killed", "supervisor lost" */
	uint64_t duration_ms;
	uint64_t peak_rss_kb; /* 0: unknown */
	uint64_t asked, allowed, denied;
};

/*
 * Format one record into out (size bytes), without a newline: the record and its newline are
 * at most SBX_AUDIT_LINE_MAX bytes. Longer, every string and list the caller gave is cut
 * shorter (never within an escape or a UTF-8 sequence), until it fits, and the record ends
 * with "cut":true; the ids and the names from sbx's own tables are never cut. Returns the
 * record's length; a return >= size means size is too small even for a cut record (out then
 * holds a prefix). Members, after v, type, time, sandbox, parent, label:
 *   start:    version, profile, digest, argv [..], uid, pid, depth, backend, supervised
 *   decision: pid, comm, op, call, path (as asked), resolved, path2, host_path, narrower,
 *             rule, class (the approval, or null), decider, answer ("perform", "continue",
 *             "deny"), errno (the call's result, 0 or a number; null for "continue", whose
 *             result the kernel keeps), error ("EACCES" or null),
 *             latency_us, batch, and repeated where the record stands for folded decisions
 *   end:      status (or null), signal (or null), killed, duration_ms, peak_rss_kb (or
 *             null), asked, allowed, denied
 * Strings are null where the caller gave NULL.
 */
size_t sbx_audit_fmt_start(char *out, size_t size, const struct sbx_audit_ids *ids,
                           const struct sbx_audit_start *s);
size_t sbx_audit_fmt_decision(char *out, size_t size, const struct sbx_audit_ids *ids,
                              const struct sbx_audit_decision *d);
size_t sbx_audit_fmt_end(char *out, size_t size, const struct sbx_audit_ids *ids,
                         const struct sbx_audit_end *e);

/* A "net" record: one decision of sbx's network proxy or resolver (sbx(1), NETWORK). Members
 * after the ids: via ("http", "connect", "socks5", "dns"), host, port (or null), answer
 * ("allow", "deny"), reason (X-Proxy-Error's value, or "allowed"), rule (the entry that
 * decided, or null), addr (the address dialled or answered, or null). */
struct sbx_audit_net {
	uint64_t time_ms;
	const char *via;
	const char *host;
	unsigned port; /* 0: none (a lookup) */
	bool allowed;
	const char *reason;
	const char *rule; /* NULL: none */
	const char *addr; /* NULL: none */
};
size_t sbx_audit_fmt_net(char *out, size_t size, const struct sbx_audit_ids *ids,
                         const struct sbx_audit_net *n);

/* A "suppressed" record: `count` decisions whose records the rate cap dropped
 * (sbx_audit_rate); members after the ids: count. */
size_t sbx_audit_fmt_suppressed(char *out, size_t size, const struct sbx_audit_ids *ids,
                                uint64_t time_ms, uint64_t count);

/*
 * Bounding the decision records (sbx(1), AUDIT LOG): a worker in a loop of denied calls must
 * not fill the host's disk (or the user's terminal). Two bounds, per sandbox:
 *
 * Folding. A decision like the last one (same op, rule, answer, decider, errno and command
 * name) less than SBX_AUDIT_FOLD_GAP_MS after it is folded: its record is not written but
 * kept as the pending one, with "repeated":N (the decisions it stands for since the run's
 * last record, itself included; its path is the last one's). The pending record is written
 * when a different decision comes (before that one's), every SBX_AUDIT_FOLD_EVERY_MS while
 * the run goes on, and at the sandbox's end (sbx_audit_fold_end).
 *
 * A rate cap. At most SBX_AUDIT_RATE_MAX records, and SBX_AUDIT_BYTES_PER_SEC bytes of them,
 * a second are written, and SBX_AUDIT_BYTES_MAX bytes in all; beyond, the decisions are
 * counted, and the next record admitted is preceded by one "suppressed" record with their
 * count (and the sandbox's end says the rest). The bytes count too: 200 records of 16 KiB
 * (long paths, a command name changed between calls so that nothing folds) were 2.8 MB a
 * second, an outside attack's 10 GB an hour.
 */
#define SBX_AUDIT_FOLD_GAP_MS   2000u
#define SBX_AUDIT_FOLD_EVERY_MS 5000u
#define SBX_AUDIT_RATE_MAX      200u
#define SBX_AUDIT_BYTES_PER_SEC (128u << 10)
#define SBX_AUDIT_BYTES_MAX     (32ull << 20)

struct sbx_audit_fold {
	bool have; /* a decision was seen: the key below is the last one's */
	int op, answer, decider, errnum;
	char comm[32];
	char rule[SBX_SUP_RULE_MAX];
	uint64_t last_ms;      /* the last decision of the run */
	uint64_t since_ms;     /* the run's last record written */
	uint64_t repeats;      /* folded since that record: the pending record's count */
	uint64_t second;       /* the current second of the rate cap */
	unsigned in_second;    /* records admitted in it */
	uint64_t bytes_second; /* their bytes */
	uint64_t bytes;        /* bytes of records admitted in all */
	uint64_t suppressed;   /* decisions whose records were dropped, not yet said */
};

enum sbx_audit_fold_act {
	/* a new run: if *flush > 0, write the pending record first (its "repeated" is
	 * *flush); then this decision's record (no "repeated") */
	SBX_AUDIT_FOLD_NEW,
	/* folded: this decision's record, with "repeated":*repeated, becomes the pending one */
	SBX_AUDIT_FOLD_KEEP,
	/* folded, and the run's record is due: write this decision's record, with
	 * "repeated":*repeated, now (nothing is pending afterwards) */
	SBX_AUDIT_FOLD_WRITE,
};

/* One decision (now_ms: a monotonic clock) into the fold `f` (zeroed at first). */
enum sbx_audit_fold_act sbx_audit_fold(struct sbx_audit_fold *f, const struct sbx_sup_req *req,
                                       const struct sbx_sup_verdict *v, int errnum, uint64_t now_ms,
                                       uint64_t *repeated, uint64_t *flush);

/* At the end: the pending record's count (0: nothing pending); the fold forgets it. */
uint64_t sbx_audit_fold_end(struct sbx_audit_fold *f);

/* May a record of `bytes` bytes standing for `decisions` decisions be written at now_ms? True,
 * and counted; then *said is the count of dropped decisions to say first in a "suppressed"
 * record (0: none; the fold forgets them). False: the decisions are counted as dropped. */
bool sbx_audit_rate(struct sbx_audit_fold *f, uint64_t now_ms, uint64_t decisions, size_t bytes,
                    uint64_t *said);

/* At the end: the dropped decisions not yet said (0: none); the fold forgets them. */
uint64_t sbx_audit_rate_end(struct sbx_audit_fold *f);

#endif
