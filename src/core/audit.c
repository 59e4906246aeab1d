/* SPDX-License-Identifier: MIT */
/*
 * The audit log's records (include/sbx/audit.h): one JSON object a line, each whole, so that
 * one write(2) on an O_APPEND descriptor puts it in a shared log at once. Pure: the time comes
 * in as milliseconds and is turned into a date here, without the C library's time zone state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_priv.h"
#include "sbx/audit.h"

/* ---- time: RFC 3339, UTC, milliseconds ---- */

/* The civil date of a day count since 1970-01-01 (H. Hinnant's days_from_civil inverted;
 * proleptic Gregorian). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era, yy;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	yy = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yy + (*m <= 2);
}

static void rfc3339(char out[32], uint64_t ms)
{
	uint64_t secs = ms / 1000, days = secs / 86400, rem = secs % 86400;
	int64_t y;
	unsigned m, d;

	civil_from_days((int64_t)days, &y, &m, &d);
	snprintf(out, 32, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%03uZ", y, m, d,
	         (unsigned)(rem / 3600), (unsigned)(rem / 60 % 60), (unsigned)(rem % 60),
	         (unsigned)(ms % 1000));
}

/* ---- records ---- */

/* A string sbx made itself (an id, a name from a table): never cut. */
static void fixed(struct sbx_jw *w, const char *s)
{
	size_t max = w->str_max;

	w->str_max = SIZE_MAX;
	sbx_jw_str(w, s);
	w->str_max = max;
}

static void head(struct sbx_jw *w, const char *type, uint64_t time_ms,
                 const struct sbx_audit_ids *ids)
{
	char time[32];

	rfc3339(time, time_ms);
	sbx_jw_raw(w, "{");
	sbx_jw_key(w, "v");
	sbx_jw_u64(w, SBX_AUDIT_VERSION);
	sbx_jw_key(w, "type");
	fixed(w, type);
	sbx_jw_key(w, "time");
	fixed(w, time);
	sbx_jw_key(w, "sandbox");
	fixed(w, ids ? ids->sandbox : NULL);
	sbx_jw_key(w, "parent");
	fixed(w, ids ? ids->parent : NULL);
	sbx_jw_key(w, "label");
	sbx_jw_str(w, ids ? ids->label : NULL);
}

/* A list of strings, at most `max` of them; *cut when some were left out. */
static void list(struct sbx_jw *w, char *const *v, size_t max, bool *cut)
{
	sbx_jw_raw(w, "[");
	for (size_t i = 0; v && v[i]; i++) {
		if (i == max) {
			*cut = true;
			break;
		}
		if (i)
			sbx_jw_raw(w, ",");
		sbx_jw_str(w, v[i]);
	}
	sbx_jw_raw(w, "]");
}

typedef void body_fn(struct sbx_jw *w, const void *rec, size_t list_max, bool *cut);

/*
 * Format a record whole, or, when it is longer than its line, again with every string and list
 * cut shorter, until it fits, marked "cut":true: a record that does not fit is still one line
 * of valid JSON, never a torn one.
 */
static size_t record(char *out, size_t size, const struct sbx_audit_ids *ids, const char *type,
                     uint64_t time_ms, body_fn *body, const void *rec)
{
	static const struct {
		size_t str_max, list_max;
	} levels[] = {
	    {SIZE_MAX, SIZE_MAX}, {2048, 256}, {512, 64}, {128, 16}, {32, 4}, {0, 0},
	};
	size_t budget = size ? size - 1 : 0, n = 0;

	/* a line and its newline are at most SBX_AUDIT_LINE_MAX bytes */
	if (budget > SBX_AUDIT_LINE_MAX - 1)
		budget = SBX_AUDIT_LINE_MAX - 1;
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct sbx_jw w;
		bool cut = false;

		sbx_jw_init(&w, size ? out : NULL, budget + 1, levels[l].str_max);
		head(&w, type, time_ms, ids);
		body(&w, rec, levels[l].list_max, &cut);
		if (w.cut || cut) {
			sbx_jw_key(&w, "cut");
			sbx_jw_bool(&w, true);
		}
		sbx_jw_raw(&w, "}");
		n = sbx_jw_end(&w);
		if (n <= budget)
			return n;
	}
	return n; /* even cut to nothing it does not fit: size is too small */
}

static void body_start(struct sbx_jw *w, const void *rec, size_t list_max, bool *cut)
{
	const struct sbx_audit_start *s = rec;

	sbx_jw_key(w, "version");
	sbx_jw_str(w, s->version);
	sbx_jw_key(w, "profile");
	sbx_jw_str(w, s->profile);
	sbx_jw_key(w, "digest");
	fixed(w, s->digest);
	sbx_jw_key(w, "argv");
	list(w, s->argv, list_max, cut);
	sbx_jw_key(w, "uid");
	sbx_jw_u64(w, s->uid);
	sbx_jw_key(w, "pid");
	sbx_jw_i64(w, s->pid);
	sbx_jw_key(w, "depth");
	sbx_jw_u64(w, s->depth);
	sbx_jw_key(w, "backend");
	sbx_jw_str(w, s->backend);
	sbx_jw_key(w, "supervised");
	sbx_jw_bool(w, s->supervised);
}

size_t sbx_audit_fmt_start(char *out, size_t size, const struct sbx_audit_ids *ids,
                           const struct sbx_audit_start *s)
{
	return record(out, size, ids, "start", s->time_ms, body_start, s);
}

static const char *answer_name(enum sbx_sup_answer a)
{
	switch (a) {
	case SBX_SUP_PERFORM:
		return "perform";
	case SBX_SUP_CONTINUE:
		return "continue";
	case SBX_SUP_DENY:
		return "deny";
	case SBX_SUP_ASK:
		return "ask";
	}
	return "unknown";
}

static void body_decision(struct sbx_jw *w, const void *rec, size_t list_max, bool *cut)
{
	const struct sbx_audit_decision *d = rec;
	const struct sbx_sup_req *req = d->req;
	const struct sbx_sup_verdict *v = d->verdict;

	(void)list_max;
	(void)cut;
	sbx_jw_key(w, "pid");
	sbx_jw_i64(w, req ? req->pid : 0);
	sbx_jw_key(w, "comm");
	sbx_jw_str(w, req ? req->comm : NULL);
	sbx_jw_key(w, "op");
	fixed(w, req ? sbx_sup_op_name(req->op) : NULL);
	sbx_jw_key(w, "call");
	sbx_jw_str(w, req ? req->call : NULL);
	sbx_jw_path(w, "path", d->asked_path);
	sbx_jw_path(w, "resolved", req ? req->t.path : NULL);
	sbx_jw_path(w, "path2", req ? req->t2.path : NULL);
	sbx_jw_path(w, "host_path", d->host_path);
	sbx_jw_key(w, "narrower");
	sbx_jw_bool(w, req && req->narrower);
	sbx_jw_key(w, "rule");
	sbx_jw_str(w, v ? v->rule : NULL);
	sbx_jw_key(w, "class");
	fixed(w, v && v->asked < SBX_AC_COUNT ? sbx_approval_class_name(v->asked) : NULL);
	sbx_jw_key(w, "decider");
	fixed(w, v ? sbx_sup_decider_name(v->decider) : NULL);
	sbx_jw_key(w, "answer");
	fixed(w, v ? answer_name(v->answer) : NULL);
	/* CONTINUE: the kernel does the call, and its result is unknown to sbx */
	sbx_jw_key(w, "errno");
	if (v && v->answer == SBX_SUP_CONTINUE)
		sbx_jw_raw(w, "null");
	else
		sbx_jw_i64(w, d->errnum);
	sbx_jw_key(w, "error");
	fixed(w, v && v->answer == SBX_SUP_CONTINUE ? NULL : sbx_errno_name(d->errnum));
	sbx_jw_key(w, "latency_us");
	sbx_jw_u64(w, d->latency_us);
	sbx_jw_key(w, "batch");
	sbx_jw_u64(w, d->batch_uses);
	if (d->repeated) {
		sbx_jw_key(w, "repeated");
		sbx_jw_u64(w, d->repeated);
	}
}

size_t sbx_audit_fmt_decision(char *out, size_t size, const struct sbx_audit_ids *ids,
                              const struct sbx_audit_decision *d)
{
	return record(out, size, ids, "decision", d->time_ms, body_decision, d);
}

static void body_end(struct sbx_jw *w, const void *rec, size_t list_max, bool *cut)
{
	const struct sbx_audit_end *e = rec;

	(void)list_max;
	(void)cut;
	sbx_jw_key(w, "status");
	if (e->status >= 0)
		sbx_jw_i64(w, e->status);
	else
		sbx_jw_raw(w, "null");
	sbx_jw_key(w, "signal");
	if (e->signal > 0)
		sbx_jw_i64(w, e->signal);
	else
		sbx_jw_raw(w, "null");
	sbx_jw_key(w, "killed");
	sbx_jw_str(w, e->killed);
	sbx_jw_key(w, "duration_ms");
	sbx_jw_u64(w, e->duration_ms);
	sbx_jw_key(w, "peak_rss_kb");
	if (e->peak_rss_kb)
		sbx_jw_u64(w, e->peak_rss_kb);
	else
		sbx_jw_raw(w, "null");
	sbx_jw_key(w, "asked");
	sbx_jw_u64(w, e->asked);
	sbx_jw_key(w, "allowed");
	sbx_jw_u64(w, e->allowed);
	sbx_jw_key(w, "denied");
	sbx_jw_u64(w, e->denied);
}

size_t sbx_audit_fmt_end(char *out, size_t size, const struct sbx_audit_ids *ids,
                         const struct sbx_audit_end *e)
{
	return record(out, size, ids, "end", e->time_ms, body_end, e);
}

static void body_suppressed(struct sbx_jw *w, const void *rec, size_t list_max, bool *cut)
{
	(void)list_max;
	(void)cut;
	sbx_jw_key(w, "count");
	sbx_jw_u64(w, *(const uint64_t *)rec);
}

size_t sbx_audit_fmt_suppressed(char *out, size_t size, const struct sbx_audit_ids *ids,
                                uint64_t time_ms, uint64_t count)
{
	return record(out, size, ids, "suppressed", time_ms, body_suppressed, &count);
}

static void body_net(struct sbx_jw *w, const void *rec, size_t list_max, bool *cut)
{
	const struct sbx_audit_net *n = rec;

	(void)list_max;
	(void)cut;
	sbx_jw_key(w, "via");
	sbx_jw_str(w, n->via);
	sbx_jw_key(w, "host");
	sbx_jw_str(w, n->host);
	sbx_jw_key(w, "port");
	if (n->port)
		sbx_jw_u64(w, n->port);
	else
		sbx_jw_raw(w, "null");
	sbx_jw_key(w, "answer");
	sbx_jw_str(w, n->allowed ? "allow" : "deny");
	sbx_jw_key(w, "reason");
	sbx_jw_str(w, n->reason);
	sbx_jw_key(w, "rule");
	sbx_jw_str(w, n->rule);
	sbx_jw_key(w, "addr");
	sbx_jw_str(w, n->addr);
}

size_t sbx_audit_fmt_net(char *out, size_t size, const struct sbx_audit_ids *ids,
                         const struct sbx_audit_net *n)
{
	return record(out, size, ids, "net", n->time_ms, body_net, n);
}

/* ---- bounding the decision records ---- */

static bool same_key(const struct sbx_audit_fold *f, const struct sbx_sup_req *req,
                     const struct sbx_sup_verdict *v, int errnum, const char *comm,
                     const char *rule)
{
	return f->have && f->op == (int)req->op && f->answer == (int)v->answer &&
	       f->decider == (int)v->decider && f->errnum == errnum && strcmp(f->comm, comm) == 0 &&
	       strcmp(f->rule, rule) == 0;
}

enum sbx_audit_fold_act sbx_audit_fold(struct sbx_audit_fold *f, const struct sbx_sup_req *req,
                                       const struct sbx_sup_verdict *v, int errnum, uint64_t now_ms,
                                       uint64_t *repeated, uint64_t *flush)
{
	const char *comm = req && req->comm ? req->comm : "";
	const char *rule = v ? v->rule : "";
	char c[sizeof(f->comm)], r[sizeof(f->rule)];

	*repeated = 0;
	*flush = 0;
	/* compared as they would be kept: a name cut to the key's size is the same name */
	snprintf(c, sizeof(c), "%s", comm);
	snprintf(r, sizeof(r), "%s", rule);
	if (req && v && same_key(f, req, v, errnum, c, r) && now_ms >= f->last_ms &&
	    now_ms - f->last_ms < SBX_AUDIT_FOLD_GAP_MS) {
		f->last_ms = now_ms;
		*repeated = ++f->repeats;
		if (now_ms - f->since_ms >= SBX_AUDIT_FOLD_EVERY_MS) {
			f->repeats = 0;
			f->since_ms = now_ms;
			return SBX_AUDIT_FOLD_WRITE;
		}
		return SBX_AUDIT_FOLD_KEEP;
	}
	*flush = f->repeats;
	f->repeats = 0;
	f->have = req && v;
	if (f->have) {
		f->op = (int)req->op;
		f->answer = (int)v->answer;
		f->decider = (int)v->decider;
		f->errnum = errnum;
		memcpy(f->comm, c, sizeof(c));
		memcpy(f->rule, r, sizeof(r));
	}
	f->last_ms = f->since_ms = now_ms;
	return SBX_AUDIT_FOLD_NEW;
}

uint64_t sbx_audit_fold_end(struct sbx_audit_fold *f)
{
	uint64_t n = f->repeats;

	f->repeats = 0;
	f->have = false;
	return n;
}

bool sbx_audit_rate(struct sbx_audit_fold *f, uint64_t now_ms, uint64_t decisions, size_t bytes,
                    uint64_t *said)
{
	uint64_t second = now_ms / 1000u;

	*said = 0;
	if (second != f->second) {
		f->second = second;
		f->in_second = 0;
		f->bytes_second = 0;
	}
	if (f->in_second >= SBX_AUDIT_RATE_MAX ||
	    f->bytes_second + bytes > SBX_AUDIT_BYTES_PER_SEC ||
	    f->bytes + bytes > SBX_AUDIT_BYTES_MAX) {
		f->suppressed += decisions ? decisions : 1;
		return false;
	}
	f->in_second++;
	f->bytes_second += bytes;
	f->bytes += bytes;
	if (f->suppressed) {
		*said = f->suppressed;
		f->suppressed = 0;
		f->in_second++; /* the "suppressed" record */
	}
	return true;
}

uint64_t sbx_audit_rate_end(struct sbx_audit_fold *f)
{
	uint64_t n = f->suppressed;

	f->suppressed = 0;
	return n;
}
