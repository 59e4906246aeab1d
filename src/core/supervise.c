/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's deciding, its session (grants, batches, rate limits) and the broker's JSON
 * (include/sbx/supervise.h). Pure: the listener (src/os) brings each call resolved.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json_priv.h"
#include "sbx/escape.h"
#include "sbx/path.h"
#include "sbx/policy.h"
#include "sbx/supervise.h"

/* ---- names ---- */

static const char *const op_names[SBX_SUP_OP_COUNT] = {
    [SBX_SUP_OP_CREATE] = "create",       [SBX_SUP_OP_WRITE] = "write",
    [SBX_SUP_OP_OVERWRITE] = "overwrite", [SBX_SUP_OP_DELETE] = "delete",
    [SBX_SUP_OP_RENAME] = "rename",       [SBX_SUP_OP_METADATA] = "metadata",
    [SBX_SUP_OP_READ] = "read",
};

static const char *const decider_names[] = {
    [SBX_SUP_BY_POLICY] = "policy",       [SBX_SUP_BY_BROKER] = "broker",
    [SBX_SUP_BY_PERSON] = "person",       [SBX_SUP_BY_GRANT] = "grant",
    [SBX_SUP_BY_TIMEOUT] = "timeout",     [SBX_SUP_BY_RATE_LIMIT] = "rate_limit",
    [SBX_SUP_BY_NO_BROKER] = "no_broker", [SBX_SUP_BY_CANCELLED] = "cancelled",
};

static const char *const approval_names[] = {
    [SBX_APPROVE_ALLOW] = "allow",
    [SBX_APPROVE_ASK] = "ask",
    [SBX_APPROVE_DENY] = "deny",
};

static const char *const class_names[SBX_AC_COUNT] = {
    [SBX_AC_WRITE] = "write",
    [SBX_AC_OVERWRITE] = "overwrite",
    [SBX_AC_DELETE] = "delete",
    [SBX_AC_RENAME] = "rename",
};

const char *sbx_sup_op_name(enum sbx_sup_op op)
{
	return (unsigned)op < SBX_SUP_OP_COUNT ? op_names[op] : "unknown";
}

const char *sbx_sup_decider_name(enum sbx_sup_decider d)
{
	return (unsigned)d < sizeof(decider_names) / sizeof(decider_names[0]) ? decider_names[d]
	                                                                      : "unknown";
}

const char *sbx_approval_name(enum sbx_approval a)
{
	return (unsigned)a < sizeof(approval_names) / sizeof(approval_names[0]) ? approval_names[a]
	                                                                        : "unknown";
}

const char *sbx_approval_class_name(enum sbx_approval_class c)
{
	return (unsigned)c < SBX_AC_COUNT ? class_names[c] : "none";
}

enum sbx_approval_class sbx_sup_op_class(enum sbx_sup_op op)
{
	switch (op) {
	case SBX_SUP_OP_CREATE:
	case SBX_SUP_OP_WRITE:
		return SBX_AC_WRITE;
	case SBX_SUP_OP_OVERWRITE:
		return SBX_AC_OVERWRITE;
	case SBX_SUP_OP_DELETE:
		return SBX_AC_DELETE;
	case SBX_SUP_OP_RENAME:
		return SBX_AC_RENAME;
	default:
		return SBX_AC_COUNT;
	}
}

/* ---- areas and sides ---- */

/* Does `scope` (an absolute path) hold `path`, itself or beneath? */
static bool covers(const char *scope, const char *path)
{
	size_t n = strlen(scope);

	if (n == 1 && scope[0] == '/')
		return path[0] == '/';
	return strncmp(scope, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const struct sbx_sup_area *sbx_sup_area_for(const struct sbx_sup_plan *plan, const char *path)
{
	const struct sbx_sup_area *best = NULL;
	size_t best_len = 0;

	if (!plan || !path)
		return NULL;
	for (size_t i = 0; i < plan->n_areas; i++) {
		const struct sbx_sup_area *a = &plan->areas[i];
		size_t n;

		if (!a->target || !covers(a->target, path))
			continue;
		n = strlen(a->target);
		if (!best || n > best_len) {
			best = a;
			best_len = n;
		}
	}
	return best;
}

/*
 * What a request touches, each side with the approval class it needs: a rename or a link
 * makes (or replaces) the new name at t2; a rename also moves the old name away at t (and a
 * whiteout makes a new entry there); a link's source is a side of its own (the inode becomes
 * writable under the new name, so the source's area and scope must allow writing too); an
 * exchange replaces and moves both names. The new name comes first: an editor's save (a
 * rename over the original) asks one overwrite, not a rename and an overwrite.
 */
#define SIDES_MAX 4

struct side {
	const struct sbx_sup_target *t;
	enum sbx_approval_class cls;
	const struct sbx_sup_area *area;
	enum sbx_approval approval;
};

static size_t sides_of(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req,
                       struct side out[SIDES_MAX])
{
	size_t n = 0;

	if (req->t2.path && req->op == SBX_SUP_OP_RENAME && req->exchange) {
		out[n].t = &req->t2;
		out[n++].cls = SBX_AC_OVERWRITE;
		out[n].t = &req->t;
		out[n++].cls = SBX_AC_OVERWRITE;
		out[n].t = &req->t2;
		out[n++].cls = SBX_AC_RENAME;
		out[n].t = &req->t;
		out[n++].cls = SBX_AC_RENAME;
	} else if (req->t2.path) {
		bool replaces = req->t2.exists || req->op == SBX_SUP_OP_OVERWRITE;

		if (req->op == SBX_SUP_OP_RENAME && req->noreplace)
			replaces = false; /* the kernel refuses an existing new name */
		out[n].t = &req->t2;
		out[n++].cls = replaces ? SBX_AC_OVERWRITE : SBX_AC_WRITE;
		out[n].t = &req->t;
		out[n++].cls = req->op == SBX_SUP_OP_RENAME ? SBX_AC_RENAME : SBX_AC_WRITE;
		if (req->op == SBX_SUP_OP_RENAME && req->whiteout) {
			out[n].t = &req->t;
			out[n++].cls = SBX_AC_WRITE;
		}
	} else if (sbx_sup_op_class(req->op) != SBX_AC_COUNT) {
		out[n].t = &req->t;
		out[n++].cls = sbx_sup_op_class(req->op);
	}
	if (req->t_provisional) {
		/* a provisional file's own name is asked for on its own (sup_pending.h) */
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (out[i].t != &req->t)
				out[k++] = out[i];
		n = k;
	}
	for (size_t i = 0; i < n; i++) {
		out[i].area = sbx_sup_area_for(plan, out[i].t->path);
		out[i].approval =
		    out[i].area ? out[i].area->approvals.op[out[i].cls] : SBX_APPROVE_ALLOW;
		if ((unsigned)out[i].approval > SBX_APPROVE_DENY)
			out[i].approval = SBX_APPROVE_DENY; /* not a value we know: fail closed */
	}
	return n;
}

/* The side a question is about: the first that asks, else the first. */
static const struct side *asked_side(const struct side *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].approval == SBX_APPROVE_ASK)
			return &s[i];
	return n ? &s[0] : NULL;
}

/* The first component below the area's target: `rm -rf build` under /ws is one subtree. */
static int scope_of(const struct sbx_sup_plan *plan, const char *path, char *out, size_t size)
{
	const struct sbx_sup_area *a = sbx_sup_area_for(plan, path);
	size_t n = strlen(path);

	if (a && strcmp(a->target, path) != 0) {
		size_t t = strcmp(a->target, "/") == 0 ? 0 : strlen(a->target);
		const char *end = strchr(path + t + 1, '/');

		if (end)
			n = (size_t)(end - path);
	}
	if (n + 1 > size)
		return -ENAMETOOLONG;
	memcpy(out, path, n);
	out[n] = '\0';
	return 0;
}

int sbx_sup_scope(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req, char *out,
                  size_t size)
{
	struct side s[SIDES_MAX];
	size_t n;
	const struct side *a;
	int r;

	if (!req || !req->t.path || req->t.path[0] != '/')
		return -EINVAL;
	n = sides_of(plan, req, s);
	a = asked_side(s, n);
	r = scope_of(plan, a ? a->t->path : req->t.path, out, size);
	if (r < 0 || !a || a->approval != SBX_APPROVE_ASK)
		return r;
	/* Every side that asks is granted by the answer (each its own scope): where they fall
	 * in different scopes (a link of a file from elsewhere, an exchange), the question
	 * names their common ancestor, so that a broker that allows one subtree is not read as
	 * allowing the other. */
	for (size_t i = 0; i < n; i++) {
		char other[SBX_SUP_SCOPE_MAX];
		size_t k;

		if (s[i].approval != SBX_APPROVE_ASK ||
		    scope_of(plan, s[i].t->path, other, sizeof(other)) < 0)
			continue;
		for (k = 0; out[k] && out[k] == other[k]; k++)
			;
		if (out[k] == '\0' && (other[k] == '\0' || other[k] == '/'))
			continue; /* out holds other */
		while (k > 0 && out[k] != '/')
			k--; /* back to the last whole component they share */
		if (out[k] == '/' && (k == 0 || other[k] == '/' || other[k] == '\0'))
			out[k ? k : 1] = '\0';
		else
			out[1] = '\0';
	}
	return 0;
}

/* ---- the session ---- */

static void comm_copy(char out[16], const char *comm)
{
	snprintf(out, 16, "%s", comm ? comm : "");
}

static bool grant_live(const struct sbx_sup_grant *g, const struct sbx_sup_req *req)
{
	char c[16];
	uint64_t now = req->now_ms;

	if (g->remember == SBX_SUP_REMEMBER_SESSION)
		return true;
	/* a batch is one process's: the command name alone is the caller's to choose
	 * (prctl PR_SET_NAME), its thread group is not */
	comm_copy(c, req->comm);
	if (strcmp(g->comm, c) != 0 || g->pid != req->pid)
		return false;
	return now <= g->last_ms || now - g->last_ms <= SBX_SUP_BATCH_IDLE_MS;
}

/* The grant for one side (a denial before an allowance), or NULL. */
static struct sbx_sup_grant *grant_for_side(const struct sbx_sup_session *s,
                                            const struct sbx_sup_plan *plan,
                                            const struct sbx_sup_req *req, const struct side *sd)
{
	char scope[SBX_SUP_SCOPE_MAX];
	struct sbx_sup_grant *allow = NULL;

	if (scope_of(plan, sd->t->path, scope, sizeof(scope)) < 0)
		return NULL;
	for (size_t i = 0; i < s->n_grants; i++) {
		struct sbx_sup_grant *g = &s->grants[i];

		if (g->cls != sd->cls || strcmp(g->scope, scope) != 0 || !grant_live(g, req))
			continue;
		if (!g->allow)
			return g;
		if (!allow)
			allow = g;
	}
	return allow;
}

/*
 * The grant that answers req: a denial covering any side that asks, or, when every side that
 * asks is covered by an allowance, the first of those (all in `used`, for marking). NULL when
 * a side that asks is not covered.
 */
static struct sbx_sup_grant *session_match(const struct sbx_sup_session *s,
                                           const struct sbx_sup_plan *plan,
                                           const struct sbx_sup_req *req,
                                           struct sbx_sup_grant *used[SIDES_MAX], size_t *n_used)
{
	struct side sd[SIDES_MAX];
	size_t n, asking = 0;

	*n_used = 0;
	if (!s || !req || !req->t.path)
		return NULL;
	n = sides_of(plan, req, sd);
	for (size_t i = 0; i < n; i++) {
		struct sbx_sup_grant *g;

		if (sd[i].approval != SBX_APPROVE_ASK)
			continue;
		asking++;
		g = grant_for_side(s, plan, req, &sd[i]);
		if (g && !g->allow) {
			used[0] = g;
			*n_used = 1;
			return g;
		}
		if (g)
			used[(*n_used)++] = g;
	}
	if (asking == 0 || *n_used != asking) {
		*n_used = 0;
		return NULL;
	}
	return used[0];
}

void sbx_sup_session_clear(struct sbx_sup_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_grants; i++)
		free(s->grants[i].scope);
	free(s->grants);
	memset(s, 0, sizeof(*s));
}

const struct sbx_sup_grant *sbx_sup_session_find(struct sbx_sup_session *s,
                                                 const struct sbx_sup_plan *plan,
                                                 const struct sbx_sup_req *req, bool use)
{
	struct sbx_sup_grant *used[SIDES_MAX];
	size_t n_used;
	struct sbx_sup_grant *g = session_match(s, plan, req, used, &n_used);

	if (g && use)
		for (size_t i = 0; i < n_used; i++) {
			bool seen = false;

			for (size_t j = 0; j < i; j++)
				seen = seen || used[j] == used[i];
			if (seen)
				continue; /* two sides in one scope and class: one use */
			if (req->now_ms > used[i]->last_ms)
				used[i]->last_ms = req->now_ms;
			used[i]->uses++;
		}
	return g;
}

#define RATE_WINDOW_MS 60000u

bool sbx_sup_session_admit(struct sbx_sup_session *s, uint64_t now_ms)
{
	if (!s || s->pending >= SBX_SUP_PENDING_MAX)
		return false;
	if (s->asked_in_window == 0 || now_ms < s->window_start_ms ||
	    now_ms - s->window_start_ms >= RATE_WINDOW_MS) {
		s->window_start_ms = now_ms;
		s->asked_in_window = 0;
	}
	if (s->asked_in_window >= SBX_SUP_RATE_PER_MIN)
		return false;
	s->asked_in_window++;
	s->pending++;
	s->n_asked++;
	return true;
}

bool sbx_sup_session_room(const struct sbx_sup_session *s, uint64_t now_ms, size_t n)
{
	size_t in_window;

	if (!s || s->pending + n > SBX_SUP_PENDING_MAX)
		return false;
	in_window = s->asked_in_window;
	if (s->asked_in_window == 0 || now_ms < s->window_start_ms ||
	    now_ms - s->window_start_ms >= RATE_WINDOW_MS)
		in_window = 0;
	return in_window + n <= SBX_SUP_RATE_PER_MIN;
}

static void grant_drop(struct sbx_sup_session *s, size_t i)
{
	free(s->grants[i].scope);
	s->grants[i] = s->grants[--s->n_grants];
}

/* Batches that ended long ago answer nothing more: drop them when room is short. */
static void grants_prune(struct sbx_sup_session *s, uint64_t now)
{
	for (size_t i = 0; i < s->n_grants;) {
		const struct sbx_sup_grant *g = &s->grants[i];

		if (g->remember == SBX_SUP_REMEMBER_ONCE && now > g->last_ms &&
		    now - g->last_ms > SBX_SUP_BATCH_IDLE_MS)
			grant_drop(s, i);
		else
			i++;
	}
}

static int grant_add(struct sbx_sup_session *s, const char *scope, const struct sbx_sup_req *req,
                     enum sbx_approval_class cls, bool allow, enum sbx_sup_remember remember,
                     struct sbx_error *err)
{
	struct sbx_sup_grant *g;
	char comm[16];

	comm_copy(comm, req->comm);
	/* What this answer says replaces what was said before for the same scope and class
	 * (and, for a batch, the same command). */
	for (size_t i = 0; i < s->n_grants;) {
		g = &s->grants[i];
		if (g->cls == cls && strcmp(g->scope, scope) == 0 &&
		    (remember == SBX_SUP_REMEMBER_SESSION ||
		     (g->remember == SBX_SUP_REMEMBER_ONCE && strcmp(g->comm, comm) == 0 &&
		      g->pid == req->pid)))
			grant_drop(s, i);
		else
			i++;
	}
	if (s->n_grants >= SBX_SUP_GRANTS_MAX)
		grants_prune(s, req->now_ms);
	if (s->n_grants >= SBX_SUP_GRANTS_MAX)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOSPC,
		                     "too many approvals remembered (at most %d)",
		                     SBX_SUP_GRANTS_MAX);
	if (s->n_grants == s->cap_grants) {
		size_t cap = s->cap_grants ? s->cap_grants * 2 : 16;
		struct sbx_sup_grant *grown = realloc(s->grants, cap * sizeof(*grown));

		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		s->grants = grown;
		s->cap_grants = cap;
	}
	g = &s->grants[s->n_grants];
	memset(g, 0, sizeof(*g));
	g->scope = strdup(scope);
	if (!g->scope)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	g->cls = cls;
	memcpy(g->comm, comm, sizeof(g->comm));
	g->pid = req->pid;
	g->allow = allow;
	g->remember =
	    remember == SBX_SUP_REMEMBER_SESSION ? SBX_SUP_REMEMBER_SESSION : SBX_SUP_REMEMBER_ONCE;
	g->last_ms = req->now_ms;
	g->uses = 1; /* the call that was asked */
	s->n_grants++;
	return 0;
}

int sbx_sup_session_record(struct sbx_sup_session *s, const struct sbx_sup_plan *plan,
                           const struct sbx_sup_req *req, bool allow,
                           enum sbx_sup_remember remember, struct sbx_error *err)
{
	struct side sd[SIDES_MAX];
	bool covered[SIDES_MAX], uncovered = false;
	size_t n;

	if (!s || !req)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL, "no session or request to record");
	if (s->pending > 0)
		s->pending--;
	if (allow)
		s->n_allowed++;
	else
		s->n_denied++;
	if (!req->t.path || req->t.path[0] != '/')
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "an approval for a request without a resolved path");
	n = sides_of(plan, req, sd);
	for (size_t i = 0; i < n; i++) {
		const struct sbx_sup_grant *g =
		    sd[i].approval == SBX_APPROVE_ASK ? grant_for_side(s, plan, req, &sd[i]) : NULL;

		covered[i] = g && g->allow;
		if (sd[i].approval == SBX_APPROVE_ASK && !covered[i])
			uncovered = true;
	}
	/* The answer was to the whole request: each side that asked is granted (or refused),
	 * each exactly as narrow as it was asked. */
	for (size_t i = 0; i < n; i++) {
		char scope[SBX_SUP_SCOPE_MAX];
		int r;

		if (sd[i].approval != SBX_APPROVE_ASK)
			continue;
		if (!allow && uncovered && covered[i])
			continue; /* a refusal is of what was not granted yet: a side an allowance
			             already covers (build, when a link brings precious into it)
			             stays granted */
		r = scope_of(plan, sd[i].t->path, scope, sizeof(scope));
		if (r < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, -r,
			                     "approval scope too long: %.64s...", sd[i].t->path);
		r = grant_add(s, scope, req, sd[i].cls, allow, remember, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- deciding ---- */

static void set_rule(struct sbx_sup_verdict *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_rule(struct sbx_sup_verdict *out, const char *fmt, ...)
{
	va_list ap;

	static const char ellipsis[] = "\xe2\x80\xa6"; /* … */
	size_t keep = sizeof(out->rule) - sizeof(ellipsis), cut;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out->rule, sizeof(out->rule), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n < sizeof(out->rule))
		return;
	/* too long: cut at the last word that fits (never inside a UTF-8 character), "…" */
	cut = keep;
	while (cut > keep / 2 && out->rule[cut] != ' ')
		cut--;
	if (out->rule[cut] != ' ')
		for (cut = keep; cut > 0 && ((unsigned char)out->rule[cut] & 0xc0) == 0x80;)
			cut--;
	memcpy(out->rule + cut, ellipsis, sizeof(ellipsis));
}

static void deny(struct sbx_sup_verdict *out, enum sbx_sup_decider by)
{
	out->answer = SBX_SUP_DENY;
	out->errnum = EACCES;
	out->decider = by;
}

static const char *final_name(const struct sbx_sup_target *t)
{
	const char *slash;

	if (t->name)
		return t->name;
	slash = t->path ? strrchr(t->path, '/') : NULL;
	return slash ? slash + 1 : "";
}

static const struct sbx_sup_guard *guard_of(const struct sbx_sup_guards *guards,
                                            const struct sbx_sup_target *t)
{
	if (!guards || !t->path)
		return NULL;
	return sbx_sup_guards_find(guards, t->dev, t->ino, final_name(t), t->casefold);
}

static void rule_protected(struct sbx_sup_verdict *out, const struct sbx_sup_plan *plan,
                           const struct sbx_sup_guard *g, const struct sbx_sup_target *t,
                           const char *more)
{
	const struct sbx_sup_protected *p = g->protected_index < plan->n_protected
	                                        ? &plan->protected_paths[g->protected_index]
	                                        : NULL;

	set_rule(out, "protected: %s (%s, absent at launch; %s)%s",
	         p && p->path ? p->path : t->path, p && p->why ? p->why : "a protected path",
	         p && p->fix ? p->fix : "create it outside the sandbox if it is wanted", more);
}

/* A narrower caller that can reach a directory holding a protected name: the one beside the
 * call's target where there is one, else the first watched. */
static void rule_reachable(struct sbx_sup_verdict *out, const struct sbx_sup_plan *plan,
                           const struct sbx_sup_guards *guards, const struct sbx_sup_target *t)
{
	const struct sbx_sup_guard *g = &guards->g[0];
	const struct sbx_sup_protected *p;

	for (size_t i = 0; i < guards->n; i++)
		if (guards->g[i].dev == t->dev && guards->g[i].ino == t->ino) {
			g = &guards->g[i];
			break;
		}
	p = g->protected_index < plan->n_protected ? &plan->protected_paths[g->protected_index]
	                                           : NULL;
	set_rule(out,
	         "protected: %s is watched and this caller, narrower than the worker (a "
	         "sub-sandbox, or a process with a seccomp filter of its own), can write beside "
	         "it; a sub-sandbox can only create files while protected names are watched with "
	         "--restrict to a subtree that holds none",
	         p && p->path ? p->path : "a protected name");
}

static bool is_mkdir(const struct sbx_sup_req *req)
{
	return req->op == SBX_SUP_OP_CREATE && req->call &&
	       (strcmp(req->call, "mkdir") == 0 || strcmp(req->call, "mkdirat") == 0);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return k <= n && memcmp(s + n - k, suffix, k) == 0;
}

/* Read caps (suffixes, max_file_bytes): DENY with its rule, or false. */
static bool read_capped(const struct sbx_sup_area *a, const struct sbx_sup_req *req,
                        struct sbx_sup_verdict *out)
{
	const char *name = final_name(&req->t);
	bool ok = false;

	/* A directory is never a file to cap: opening one for reading (to list it, or as a
	 * dirfd for *at calls) must work. */
	if (!a || req->t.is_dir)
		return false;
	if (a->n_suffixes) {
		for (size_t i = 0; i < a->n_suffixes && !ok; i++)
			ok = a->suffixes[i] && ends_with(name, a->suffixes[i]);
		if (!ok) {
			set_rule(out, "read caps: %s suffixes (%s does not end with %s%s)",
			         a->target, req->t.path, a->suffixes[0] ? a->suffixes[0] : "",
			         a->n_suffixes > 1 ? ", ..." : "");
			deny(out, SBX_SUP_BY_POLICY);
			return true;
		}
	}
	if (a->max_file_bytes && req->t.size > a->max_file_bytes) {
		set_rule(out, "read caps: %s max_file_bytes %" PRIu64 " (%s has %" PRIu64 ")",
		         a->target, a->max_file_bytes, req->t.path, req->t.size);
		deny(out, SBX_SUP_BY_POLICY);
		return true;
	}
	return false;
}

static bool area_caps(const struct sbx_sup_area *a);

/* Does a name end with one of the area's suffixes (its read caps admit it)? */
static bool cap_admits(const struct sbx_sup_area *a, const char *name)
{
	for (size_t i = 0; i < a->n_suffixes; i++)
		if (a->suffixes[i] && ends_with(name, a->suffixes[i]))
			return true;
	return !a->n_suffixes;
}

/*
 * Read caps judge a name, so the file behind one is not moved or linked where other caps, or
 * none, or an admitted suffix would let it be read (an outside attack: `ln secret.bin h.py;
 * cat h.py`, and `mv secret.bin r.md`). A file or folder beneath caps stays beneath the same
 * caps; a file whose name they refuse gets no name they admit. DENY with its rule, or false.
 */
static bool caps_moved(const struct sbx_sup_plan *plan, const struct sbx_sup_target *from,
                       const struct sbx_sup_target *to, struct sbx_sup_verdict *out)
{
	const struct sbx_sup_area *fa = sbx_sup_area_for(plan, from->path);
	const struct sbx_sup_area *ta = sbx_sup_area_for(plan, to->path);

	/* a folder that holds read caps' mount is not moved: the path beneath would no longer
	 * name its caps (an outside attack: mv sub sub2, then sub2/data/secret.bin read) */
	for (size_t i = 0; from->is_dir && i < plan->n_areas; i++) {
		const struct sbx_sup_area *a = &plan->areas[i];

		if (area_caps(a) && sbx_path_covers(from->path, a->target) &&
		    strcmp(from->path, a->target) != 0) {
			set_rule(
			    out,
			    "read caps: %s holds %s, whose read caps would not follow it: it is "
			    "not moved or renamed",
			    from->path, a->target);
			deny(out, SBX_SUP_BY_POLICY);
			return true;
		}
	}
	if (!area_caps(fa))
		return false;
	if (ta != fa) {
		set_rule(out,
		         "read caps: %s is beneath %s's read caps, and is not moved or linked out "
		         "of them (to %s)",
		         from->path, fa->target, to->path);
		deny(out, SBX_SUP_BY_POLICY);
		return true;
	}
	if (!from->is_dir && !cap_admits(fa, final_name(from)) && cap_admits(fa, final_name(to))) {
		set_rule(out,
		         "read caps: %s suffixes (%s does not end with %s%s, and is not moved or "
		         "linked to %s, which does)",
		         fa->target, from->path, fa->suffixes[0] ? fa->suffixes[0] : "",
		         fa->n_suffixes > 1 ? ", ..." : "", to->path);
		deny(out, SBX_SUP_BY_POLICY);
		return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool unhidden(const struct sbx_sup_plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_unhide; i++)
		if (plan->unhide[i] && sbx_glob_match(plan->unhide[i], path))
			return true;
	return false;
}

/* The hide glob that hides one sandbox path, or NULL: a glob matching the path or a folder
 * above it (the launch's walk hides a matching folder whole), unless an unhide entry gives
 * that one back (a policy's firm glob is never given back). What it matched goes to `at`
 * (SBX_PATH_MAX bytes). */
static const char *hidden_at(const struct sbx_sup_plan *plan, const char *path, char *at)
{
	size_t n = strlen(path);

	if (n >= SBX_PATH_MAX) {
		snprintf(at, SBX_PATH_MAX, "(a path too long to decide on)");
		return plan->n_hide_globs ? plan->hide_globs[0] : NULL; /* fail closed */
	}
	memcpy(at, path, n + 1);
	for (;;) {
		const char *key = at;
		char *slash;

		if (plan->hide_later && plan->n_hide_exact &&
		    bsearch(&key, plan->hide_exact, plan->n_hide_exact, sizeof(*plan->hide_exact),
		            cmp_str))
			return "an exact path to hide";
		for (size_t i = 0; i < plan->n_hide_globs; i++)
			if (plan->hide_globs[i] && sbx_glob_match(plan->hide_globs[i], at) &&
			    ((plan->hide_firm && plan->hide_firm[i]) || !unhidden(plan, at)))
				return plan->hide_globs[i];
		slash = strrchr(at, '/');
		if (!slash || slash == at)
			return NULL;
		*slash = '\0';
	}
}

/* ... at the target's path or at any other view of the same host file. */
static const char *hidden(const struct sbx_sup_plan *plan, const struct sbx_sup_target *t, char *at)
{
	const char *g;

	if (!t->path || (!plan->n_hide_globs && !plan->n_hide_exact))
		return NULL;
	if (t->views_lost) {
		snprintf(at, SBX_PATH_MAX, "%s, which shows at more views than sbx holds", t->path);
		return "every hide glob (fail closed)";
	}
	if ((g = hidden_at(plan, t->path, at)))
		return g;
	for (size_t v = 0; t->views && v < t->n_views; v++)
		if (t->views[v] && (g = hidden_at(plan, t->views[v], at)))
			return g;
	return NULL;
}

/* hide_later: an exact path to hide beneath a folder (or at it), at any of its views: moving
 * the folder would take the path from under its name. */
static const char *exact_beneath(const struct sbx_sup_plan *plan, const struct sbx_sup_target *t,
                                 char *at)
{
	for (size_t v = 0; t->path && v <= t->n_views; v++) {
		const char *dir = v ? t->views[v - 1] : t->path;
		size_t n = dir ? strlen(dir) : 0;

		for (size_t i = 0; dir && i < plan->n_hide_exact; i++)
			if (strncmp(plan->hide_exact[i], dir, n) == 0 &&
			    (plan->hide_exact[i][n] == '/' || plan->hide_exact[i][n] == '\0')) {
				snprintf(at, SBX_PATH_MAX, "%s", plan->hide_exact[i]);
				return "an exact path to hide";
			}
	}
	return NULL;
}

static bool area_caps(const struct sbx_sup_area *a)
{
	return a && (a->n_suffixes || a->max_file_bytes);
}

/* Can the call make a name (O_CREAT may be among an open's flags for writing)? */
static bool may_create(const struct sbx_sup_req *req)
{
	return req->op == SBX_SUP_OP_CREATE || req->op == SBX_SUP_OP_WRITE ||
	       req->op == SBX_SUP_OP_OVERWRITE || req->op == SBX_SUP_OP_RENAME || req->t2.path;
}

/* ---- no new git repository where the host keeps it ---- */

/*
 * `name` as a lookup on the host may find `want` (".git", "HEAD"): with trailing dots and
 * spaces dropped (vfat drops trailing dots); in any case where `any_case` (".git": git's own
 * checks fold it) or the directory folds names, where bytes outside ASCII are also left out
 * (a code point its folding might ignore).
 */
static bool name_is(const char *name, const char *want, bool casefold, bool any_case)
{
	size_t k = 0, end = strlen(name), len = strlen(want);

	while (end > 0 && (name[end - 1] == '.' || name[end - 1] == ' '))
		end--;
	for (size_t i = 0; i < end; i++) {
		unsigned char c = (unsigned char)name[i], w;

		if (c >= 0x80 && casefold)
			continue;
		if (k >= len)
			return false;
		w = (unsigned char)want[k];
		if (casefold || any_case) {
			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (w >= 'A' && w <= 'Z')
				w = (unsigned char)(w - 'A' + 'a');
		}
		if (c != w)
			return false;
		k++;
	}
	return k == len;
}

/* Inside a .git's modules/ or worktrees/ (or that folder itself): where git takes a folder
 * for a submodule's or a linked worktree's git dir. A .git cannot be made, renamed or
 * replaced, so such a path is one of a .git that was there at launch. */
static bool in_gitdirs(const char *path)
{
	static const char *const dirs[] = {"/.git/modules", "/.git/worktrees"};

	for (size_t i = 0; path && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *p = strstr(path, dirs[i]);
		size_t n = strlen(dirs[i]);

		for (; p; p = strstr(p + 1, dirs[i]))
			if (p[n] == '\0' || p[n] == '/')
				return true;
	}
	return false;
}

/*
 * What makes a folder a git repository to the host's git: a ".git" in it (a folder, a
 * "gitdir:" file, a link), or the folder itself holding HEAD with objects/ and refs/ (git
 * takes it for a bare repository, at the user's next command there or beneath, and as a
 * submodule's git dir under .git/modules/, which fetch and submodule update use with no
 * checkout at all). HEAD is the one every git dir has: a new one is refused, but inside a
 * .git that was there at launch and out of its modules/ and worktrees/ (logs/HEAD,
 * refs/remotes/origin/HEAD, sequencer/head), where git makes them itself and no git looks
 * for a repository: the .git is a mount of its own, so nothing moves out of it (EXDEV), and
 * nothing but a file is moved or linked into its modules/ and worktrees/ (below).
 */
static bool repo_name(const char *name, const char *path, bool casefold)
{
	if (name_is(name, ".git", casefold, true))
		return true;
	if (!name_is(name, "HEAD", casefold, false))
		return false;
	return !path || !strstr(path, "/.git/") || in_gitdirs(path);
}

/* Is a name made at `path` kept by the host after the run? The longest place that covers
 * its directory decides; none is sbx's scaffold. A path too long to cut is kept (fail
 * closed). What sbx check says; the supervisor goes by the directory's file system
 * (sbx_sup_target.private_fs), which a rename above a mount does not change. */
static bool kept_at(const struct sbx_sup_plan *plan, const char *path)
{
	const struct sbx_sup_place *best = NULL;
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash && slash != path ? (size_t)(slash - path) : 1, best_len = 0;
	char dir[SBX_PATH_MAX];

	if (dir_len >= sizeof(dir))
		return true;
	memcpy(dir, path, dir_len);
	dir[dir_len] = '\0';
	for (size_t i = 0; i < plan->n_places; i++) {
		const struct sbx_sup_place *p = &plan->places[i];
		size_t n;

		if (!p->target || !covers(p->target, dir))
			continue;
		n = strlen(p->target);
		if (!best || n > best_len) {
			best = p;
			best_len = n;
		}
	}
	return best && best->kept;
}

bool sbx_sup_no_new_git_at(const struct sbx_sup_plan *plan, const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return plan && plan->no_new_git && slash && repo_name(slash + 1, path, false) &&
	       kept_at(plan, path);
}

/* A name of a repository's made at t where the host keeps it: .git or HEAD as above, or any
 * name that would complete a git dir in its directory (HEAD beside objects/ or commondir,
 * objects/ or commondir beside a HEAD: git's own folders hold HEAD files, logs/HEAD and
 * refs/remotes/origin/HEAD, which a symbolic link from the workspace would let git find). */
static bool kept_repo_name(const struct sbx_sup_target *t)
{
	const char *name = final_name(t);

	if (t->private_fs)
		return false;
	if (repo_name(name, t->path, t->casefold))
		return true;
	return t->git_other && (name_is(name, "HEAD", t->casefold, false) ||
	                        name_is(name, "objects", t->casefold, false) ||
	                        name_is(name, "commondir", t->casefold, false));
}

/*
 * The side of a call that makes or replaces such a name: t2 for a rename or a link (and t
 * too for an exchange), t for a call that makes its own name. A name that exists is only
 * replaced by a rename without RENAME_NOREPLACE (git's HEAD.lock onto HEAD: allowed for
 * HEAD, which a repository already had) or an exchange; any other call the kernel answers
 * EEXIST (mkdir -p .git/x), opens what is there, or fails on the directory, and is left to
 * it.
 */
static const struct sbx_sup_target *new_git(const struct sbx_sup_req *req)
{
	const struct sbx_sup_target *t = &req->t, *t2 = &req->t2;

	/* into a .git's modules/ or worktrees/, nothing but a file is moved or linked (a folder
	 * that holds a HEAD at any depth would become a git dir there), and no symbolic link
	 * is made there (one to such a folder would do the same) */
	if (t2->path && in_gitdirs(t2->path) && !t2->private_fs && t->ftype != S_IFREG)
		return t2;
	if (req->exchange && t->path && in_gitdirs(t->path) && !t->private_fs &&
	    t2->ftype != S_IFREG)
		return t;
	if (!t2->path && req->call && strstr(req->call, "symlink") && in_gitdirs(t->path) &&
	    !t->private_fs)
		return t;
	if (t2->path) {
		bool replaces = req->op == SBX_SUP_OP_RENAME && !req->noreplace;
		bool dotgit = name_is(final_name(t2), ".git", t2->casefold, true);

		if ((!t2->exists || req->exchange || (replaces && dotgit)) && kept_repo_name(t2))
			return t2;
		if (req->exchange && kept_repo_name(t))
			return t;
		return NULL;
	}
	if (!t->exists &&
	    (req->op == SBX_SUP_OP_CREATE || req->op == SBX_SUP_OP_WRITE ||
	     req->op == SBX_SUP_OP_OVERWRITE) &&
	    kept_repo_name(t))
		return t;
	return NULL;
}

void sbx_sup_decide(const struct sbx_sup_plan *plan, const struct sbx_sup_guards *guards,
                    const struct sbx_sup_session *session, const struct sbx_sup_req *req,
                    struct sbx_sup_verdict *out)
{
	const struct sbx_sup_area *area;
	struct side sd[SIDES_MAX];
	size_t n;
	const struct sbx_sup_guard *on_the_way = NULL; /* mkdir on the way to a protected path */
	const char *protection = NULL;
	bool approved = false;
	const struct sbx_sup_guard *g;

	memset(out, 0, sizeof(*out));
	out->asked = SBX_AC_COUNT;
	deny(out, SBX_SUP_BY_POLICY);
	if (!plan || !req || !req->t.path || req->t.path[0] != '/' ||
	    (req->op == SBX_SUP_OP_RENAME && !req->t2.path) ||
	    (req->t2.path && req->t2.path[0] != '/') || (unsigned)req->op >= SBX_SUP_OP_COUNT) {
		set_rule(out, "unresolved: %s %s (a path that cannot be resolved is denied)",
		         req ? sbx_sup_op_name(req->op) : "call",
		         req && req->t.path ? req->t.path : "(no path)");
		return;
	}
	area = sbx_sup_area_for(plan, req->t.path);

	/* 1. protected names, on the directory's identity: the object's name unless the call
	 * only reads (a directory made on the way must be listable), and the new name */
	if (req->op != SBX_SUP_OP_READ && (g = guard_of(guards, &req->t))) {
		if (g->final || !is_mkdir(req)) {
			rule_protected(out, plan, g, &req->t, "");
			return;
		}
		on_the_way = g;
	}
	if ((g = guard_of(guards, &req->t2))) {
		rule_protected(out, plan, g, &req->t2, "");
		return;
	}
	/* 1b. a new git repository where the host keeps it: git on the host would run its
	 * config and hooks, at the user's next command there or, registered as a submodule
	 * (a gitlink in the index, which the worker may write), at the next `git status` in the
	 * repository above */
	if (plan->no_new_git) {
		const struct sbx_sup_target *made = new_git(req);

		if (made) {
			set_rule(
			    out,
			    "protected: %s (" SBX_SUP_NEW_GIT_WHY
			    ": git on the host would run its config and hooks; " SBX_SUP_NEW_GIT_FIX
			    ")",
			    made->path);
			return;
		}
		/* a narrower caller is CONTINUEd, and the kernel reads its names again after this
		 * check: a process of the worker's that gave itself a filter, which sees what the
		 * worker sees, makes no name (a sub-sandbox, in namespaces of its own, is held to
		 * the protected names as below) */
		if (req->narrower && !req->own_namespaces && may_create(req)) {
			set_rule(
			    out,
			    "protected: no new .git where the host keeps files, and this caller, "
			    "narrower than the worker (a process with a seccomp filter of its "
			    "own), cannot be performed for; run it without its own filter, or set "
			    "protect_git: false");
			return;
		}
	}

	/* 2. the landlock backend's metadata gap */
	if (req->op == SBX_SUP_OP_METADATA && plan->meta_writable_only) {
		if (!area || !area->writable) {
			set_rule(out, "read-only: %s (the landlock backend)", req->t.path);
			return;
		}
		protection = "read-only areas";
	}

	/* 3. what may be read: every open with read access (an O_RDWR open is a WRITE or an
	 * OVERWRITE, and reads as much as a READ) */
	if (req->op == SBX_SUP_OP_READ || req->reads) {
		bool hide = req->op == SBX_SUP_OP_READ || (plan->families & SBX_SUP_F_READ);
		char where[SBX_PATH_MAX];
		const char *glob = hide ? hidden(plan, &req->t, where) : NULL;

		if (glob) {
			set_rule(out, "hide: %s (matches %s)", glob, where);
			return;
		}
		if (read_capped(area, req, out))
			return;
		/* and at every other path the same file shows at (a --root over the workspace:
		 * caps on ws/data held, /data read the file: an outside attack) */
		for (size_t i = 0; i < req->t.n_views; i++) {
			const struct sbx_sup_area *va = sbx_sup_area_for(plan, req->t.views[i]);
			struct sbx_sup_req vr = *req;

			if (!area_caps(va) || va == area)
				continue;
			vr.t.path = req->t.views[i];
			if (read_capped(va, &vr, out))
				return;
			area = area_caps(area) ? area : va; /* "read caps" protection below */
		}
		bool any = plan->n_hide_globs || (plan->hide_later && plan->n_hide_exact);

		if ((hide && any) || area_caps(area))
			protection = hide && any ? "hide globs" : "read caps";
	}
	/* read caps: what they keep from reading is not moved or linked where they would not */
	if (req->t2.path && (req->op == SBX_SUP_OP_RENAME || req->op == SBX_SUP_OP_CREATE ||
	                     req->op == SBX_SUP_OP_OVERWRITE)) {
		if (caps_moved(plan, &req->t, &req->t2, out) ||
		    (req->exchange && caps_moved(plan, &req->t2, &req->t, out)))
			return;
		if (area_caps(area) || area_caps(sbx_sup_area_for(plan, req->t2.path)))
			protection = protection ? protection : "read caps";
	}
	/* hide_later: a file made after launch is not moved or linked away from the name that
	 * hides it (then opened under another), nor exchanged with another name; and no hidden
	 * name is made in the sandbox, by any call (a file the worker holds open, a symlink, a
	 * FIFO or a hard link put at the name would be what the host then writes the secret
	 * into or through) */
	if (plan->hide_later && (req->t2.path || req->op == SBX_SUP_OP_CREATE)) {
		char where[SBX_PATH_MAX];
		const char *glob = NULL;
		const char *why = "it is not moved or linked to another name";

		if (req->t2.path && (req->op == SBX_SUP_OP_RENAME || req->op == SBX_SUP_OP_CREATE ||
		                     req->op == SBX_SUP_OP_OVERWRITE))
			glob = hidden(plan, &req->t, where);
		if (!glob && req->t2.path && (glob = hidden(plan, &req->t2, where)))
			why = "a hidden name is not made in the sandbox";
		if (!glob && !req->t2.path && req->op == SBX_SUP_OP_CREATE && !req->t.exists &&
		    (glob = hidden(plan, &req->t, where)))
			why = "a hidden name is not made in the sandbox";
		if (!glob && req->op == SBX_SUP_OP_RENAME && req->t.is_dir &&
		    (glob = exact_beneath(plan, &req->t, where)))
			why = "a folder that holds an exact path to hide is not moved";
		/* a folder on the way to an exact path absent at launch made a symbolic link (or
		 * anything but a folder moved or linked there): the host's write would follow it
		 * to a name nothing hides */
		if (!glob && req->op == SBX_SUP_OP_CREATE && !req->t2.path && req->call &&
		    strstr(req->call, "symlink") && (glob = exact_beneath(plan, &req->t, where)))
			why = "a folder on the way to an exact path to hide is not made a symbolic "
			      "link";
		/* nor anything moved, linked or swapped onto the way, a folder included (one
		 * that holds a symbolic link where the path goes on would do the same) */
		if (!glob && req->t2.path && (glob = exact_beneath(plan, &req->t2, where)))
			why = "nothing is moved or linked onto the way to an exact path to hide";
		if (glob) {
			set_rule(out, "hide: %s (matches %s; hide_later: %s)", glob, where, why);
			return;
		}
		if (!protection)
			protection = "hide globs";
	}
	if (!protection && guards && guards->n && may_create(req)) {
		/* A narrower caller is CONTINUEd or denied, and CONTINUE lets the kernel resolve
		 * the path again after this check: a caller that can reach a directory holding a
		 * protected name could aim the call at that name once checked. Only a caller the
		 * listener found out of reach of all of them (a sub-sandbox restricted to a
		 * subtree that holds none) may create. */
		if (req->narrower && !req->guards_out_of_reach && !on_the_way) {
			rule_reachable(out, plan, guards, &req->t);
			return;
		}
		if (!req->narrower)
			protection = "protected names";
	}

	/* A narrower caller cannot be performed for (the performer has the worker's rights, wider
	 * than its own), and CONTINUE decides nothing where the decision is the protection: the
	 * caller can change the path between the check and the call. So: deny. */
	if (req->narrower && (protection || on_the_way)) {
		set_rule(
		    out,
		    "supervised: %s hold only for calls sbx performs, and a narrower caller "
		    "(a sub-sandbox, a process with its own seccomp filter) cannot be performed "
		    "for",
		    on_the_way ? "protected names" : protection);
		return;
	}

	/* 4. approvals */
	n = sides_of(plan, req, sd);
	for (size_t i = 0; i < n; i++)
		if (sd[i].approval == SBX_APPROVE_DENY) {
			set_rule(out, "approvals: %s %s deny", sd[i].area->target,
			         sbx_approval_class_name(sd[i].cls));
			return;
		}
	for (size_t i = 0; i < n; i++)
		if (sd[i].approval == SBX_APPROVE_ASK)
			approved = true;
	if (approved && req->narrower) {
		/* An ask (asked now, or granted before) is decided on the path sbx sees; the
		 * kernel would resolve it again for a narrower caller (a racing thread, a
		 * symlink at the last component), so a grant for one scope would reach
		 * another. Never asked, never CONTINUEd. */
		const struct side *a = asked_side(sd, n);

		set_rule(out,
		         "approvals: %s %s ask: a sub-sandbox or a process with its own seccomp "
		         "filter cannot be performed for; run it without its own filter, or give "
		         "the mount approvals allow",
		         a->area->target, sbx_approval_class_name(a->cls));
		return;
	}
	if (approved) {
		struct sbx_sup_grant *used[SIDES_MAX];
		size_t n_used;
		const struct sbx_sup_grant *gr = session_match(session, plan, req, used, &n_used);
		const struct side *a = asked_side(sd, n);

		if (!gr) {
			size_t k = 0;

			out->answer = SBX_SUP_ASK;
			out->errnum = 0;
			out->asked = a->cls;
			/* every side that asks, in order */
			for (size_t i = 0; i < n; i++) {
				size_t len = strlen(out->rule);
				bool again = false;

				if (sd[i].approval != SBX_APPROVE_ASK)
					continue;
				for (size_t j = 0; j < i; j++)
					again = again || (sd[j].approval == SBX_APPROVE_ASK &&
					                  sd[j].area == sd[i].area &&
					                  sd[j].cls == sd[i].cls);
				if (again)
					continue;
				snprintf(out->rule + len, sizeof(out->rule) - len, "%s%s %s ask",
				         k++ ? "; " : "approvals: ", sd[i].area->target,
				         sbx_approval_class_name(sd[i].cls));
			}
			return;
		}
		out->asked = a->cls; /* what the grant was given for, for the audit log */
		if (!gr->allow) {
			deny(out, SBX_SUP_BY_GRANT);
			set_rule(out, "approvals: %s %s ask, refused %s for %s", a->area->target,
			         sbx_approval_class_name(gr->cls),
			         gr->remember == SBX_SUP_REMEMBER_SESSION ? "for the session"
			                                                  : "for this batch",
			         gr->scope);
			return;
		}
		out->decider = SBX_SUP_BY_GRANT;
		set_rule(out, "approvals: %s %s ask, granted %s for %s", a->area->target,
		         sbx_approval_class_name(gr->cls),
		         gr->remember == SBX_SUP_REMEMBER_SESSION ? "for the session"
		                                                  : "for this batch",
		         gr->scope);
	}

	/* 5. what holds: the performer does the call wherever something path-dependent was
	 * decided, the kernel (CONTINUE) where nothing was */
	out->errnum = 0;
	if (req->narrower)
		out->answer = SBX_SUP_CONTINUE;
	else if (protection || on_the_way || approved)
		out->answer = SBX_SUP_PERFORM;
	else
		out->answer = SBX_SUP_CONTINUE;
	if (approved)
		return;
	if (on_the_way)
		rule_protected(out, plan, on_the_way, &req->t,
		               ": a directory on the way, made and watched");
	else if (protection)
		set_rule(out, "supervised: %s checked", protection);
	else if (n)
		set_rule(out, "approvals: %s %s allow", sd[0].area ? sd[0].area->target : "(none)",
		         sbx_approval_class_name(sd[0].cls));
	else
		set_rule(out, "supervised: nothing applies to %s", sbx_sup_op_name(req->op));
}

/* ---- the broker's JSON ---- */

size_t sbx_sup_ask_json(char *out, size_t size, const struct sbx_sup_ask *ask)
{
	struct sbx_jw w;
	const struct sbx_sup_req *req = ask->req;
	const struct sbx_sup_verdict *v = ask->verdict;
	enum sbx_approval_class cls =
	    v && v->asked < SBX_AC_COUNT ? v->asked : sbx_sup_op_class(req->op);

	sbx_jw_init(&w, out, size, SIZE_MAX);
	sbx_jw_raw(&w, "{");
	sbx_jw_key(&w, "v");
	sbx_jw_u64(&w, 1);
	sbx_jw_key(&w, "type");
	sbx_jw_str(&w, "approval");
	sbx_jw_key(&w, "id");
	sbx_jw_u64(&w, ask->id);
	sbx_jw_key(&w, "sandbox");
	sbx_jw_str(&w, ask->sandbox_id);
	sbx_jw_key(&w, "label");
	sbx_jw_str(&w, ask->label);
	sbx_jw_key(&w, "op");
	sbx_jw_str(&w, sbx_sup_op_name(req->op));
	sbx_jw_key(&w, "class");
	sbx_jw_str(&w, cls < SBX_AC_COUNT ? sbx_approval_class_name(cls) : NULL);
	sbx_jw_key(&w, "call");
	sbx_jw_str(&w, req->call);
	sbx_jw_path(&w, "path", req->t.path);
	sbx_jw_path(&w, "host_path", ask->host_path);
	sbx_jw_path(&w, "path2", req->t2.path);
	/* added: a RENAME_EXCHANGE replaces both names */
	sbx_jw_key(&w, "exchange");
	sbx_jw_raw(&w, req->exchange ? "true" : "false");
	sbx_jw_key(&w, "scope");
	sbx_jw_str(&w, ask->scope);
	sbx_jw_key(&w, "rule");
	sbx_jw_str(&w, v ? v->rule : NULL);
	sbx_jw_key(&w, "pid");
	sbx_jw_i64(&w, req->pid);
	sbx_jw_key(&w, "comm");
	sbx_jw_str(&w, req->comm);
	sbx_jw_key(&w, "cmdline");
	sbx_jw_raw(&w, "[");
	for (size_t i = 0; ask->cmdline && ask->cmdline[i]; i++) {
		if (i)
			sbx_jw_raw(&w, ",");
		sbx_jw_str(&w, ask->cmdline[i]);
	}
	sbx_jw_raw(&w, "]");
	sbx_jw_key(&w, "deadline_ms");
	sbx_jw_u64(&w, ask->deadline_ms);
	/* added in version 1 (fields are only ever added): a provisional file's question */
	sbx_jw_key(&w, "provisional");
	sbx_jw_raw(&w, ask->provisional ? "true" : "false");
	sbx_jw_raw(&w, "}");
	return sbx_jw_end(&w);
}

/*
 * The answer: one flat JSON object, parsed strictly. Hostile input (a broker is another
 * program, a socket another party) gets -EINVAL, never a crash and never an allowance.
 */
#define ANSWER_MAX  4096
#define MEMBERS_MAX 32
#define KEY_MAX     64

struct jp {
	const char *p, *end;
};

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int jp_u4(struct jp *j, unsigned *cp)
{
	unsigned v = 0;

	if (j->end - j->p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		int h = hexval(j->p[i]);

		if (h < 0)
			return -EINVAL;
		v = v << 4 | (unsigned)h;
	}
	j->p += 4;
	*cp = v;
	return 0;
}

/* Append one byte to out (size bytes, NUL included), failing when it is full. */
static int out_byte(char *out, size_t size, size_t *n, unsigned char c)
{
	if (*n + 1 >= size)
		return -EINVAL;
	out[(*n)++] = (char)c;
	return 0;
}

/* A string at j->p (the opening quote), decoded into out (NUL-terminated, at most size - 1
 * bytes: longer is malformed here). No NUL inside, well-formed UTF-8 only. */
static int jp_string(struct jp *j, char *out, size_t size)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return -EINVAL;
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		unsigned cp;

		if (c < 0x20)
			return -EINVAL;
		if (c >= 0x80) {
			size_t k = sbx_utf8_seq_len(j->p);

			if (k == 0 || (size_t)(j->end - j->p) < k)
				return -EINVAL;
			for (size_t i = 0; i < k; i++)
				if (out_byte(out, size, &n, (unsigned char)j->p[i]) < 0)
					return -EINVAL;
			j->p += k;
			continue;
		}
		j->p++;
		if (c != '\\') {
			if (out_byte(out, size, &n, c) < 0)
				return -EINVAL;
			continue;
		}
		if (j->p >= j->end)
			return -EINVAL;
		c = (unsigned char)*j->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			break;
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		case 'u':
			if (jp_u4(j, &cp) < 0 || cp == 0 || (cp >= 0xdc00 && cp <= 0xdfff))
				return -EINVAL;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				unsigned lo;

				if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
					return -EINVAL;
				j->p += 2;
				if (jp_u4(j, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
					return -EINVAL;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (cp < 0x80) {
				c = (unsigned char)cp;
				break;
			}
			{
				unsigned char u[4];
				size_t k;

				if (cp < 0x800) {
					u[0] = (unsigned char)(0xc0 | cp >> 6);
					u[1] = (unsigned char)(0x80 | (cp & 0x3f));
					k = 2;
				} else if (cp < 0x10000) {
					u[0] = (unsigned char)(0xe0 | cp >> 12);
					u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
					u[2] = (unsigned char)(0x80 | (cp & 0x3f));
					k = 3;
				} else {
					u[0] = (unsigned char)(0xf0 | cp >> 18);
					u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
					u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
					u[3] = (unsigned char)(0x80 | (cp & 0x3f));
					k = 4;
				}
				for (size_t i = 0; i < k; i++)
					if (out_byte(out, size, &n, u[i]) < 0)
						return -EINVAL;
			}
			continue;
		default:
			return -EINVAL;
		}
		if (out_byte(out, size, &n, c) < 0)
			return -EINVAL;
	}
	if (j->p >= j->end)
		return -EINVAL;
	j->p++;
	out[n] = '\0';
	return 0;
}

/* A JSON number; *start and *len say where (for the members that must be integers). */
static int jp_number(struct jp *j, const char **start, size_t *len)
{
	const char *p = j->p;

	*start = p;
	if (p < j->end && *p == '-')
		p++;
	if (p >= j->end)
		return -EINVAL;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (p < j->end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return -EINVAL;
	}
	if (p < j->end && *p == '.') {
		p++;
		if (p >= j->end || *p < '0' || *p > '9')
			return -EINVAL;
		while (p < j->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < j->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < j->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= j->end || *p < '0' || *p > '9')
			return -EINVAL;
		while (p < j->end && *p >= '0' && *p <= '9')
			p++;
	}
	*len = (size_t)(p - *start);
	j->p = p;
	return 0;
}

/* A number that is a plain unsigned integer (no sign, fraction or exponent), or -EINVAL. */
static int jp_u64(struct jp *j, uint64_t *v)
{
	const char *s;
	size_t n;
	uint64_t x = 0;

	if (jp_number(j, &s, &n) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static int jp_literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return -EINVAL;
	j->p += n;
	return 0;
}

static int jp_bool(struct jp *j, bool *v)
{
	if (jp_literal(j, "true") == 0) {
		*v = true;
		return 0;
	}
	if (jp_literal(j, "false") == 0) {
		*v = false;
		return 0;
	}
	return -EINVAL;
}

/* A member we do not know: any scalar; an object or an array is not an answer's. */
static int jp_skip_scalar(struct jp *j, char *scratch, size_t size)
{
	const char *s;
	size_t n;

	if (j->p >= j->end)
		return -EINVAL;
	switch (*j->p) {
	case '"':
		return jp_string(j, scratch, size);
	case 't':
		return jp_literal(j, "true");
	case 'f':
		return jp_literal(j, "false");
	case 'n':
		return jp_literal(j, "null");
	default:
		return jp_number(j, &s, &n);
	}
}

int sbx_sup_answer_parse(const char *line, uint64_t id, bool *allow,
                         enum sbx_sup_remember *remember, char *reason, size_t reason_size)
{
	char keys[MEMBERS_MAX][KEY_MAX];
	size_t n_keys = 0;
	char text[ANSWER_MAX + 1];
	bool got_v = false, got_id = false, got_allow = false, v_allow = false;
	enum sbx_sup_remember v_remember = SBX_SUP_REMEMBER_ONCE;
	size_t len;
	struct jp j;

	*allow = false;
	*remember = SBX_SUP_REMEMBER_ONCE;
	if (reason && reason_size)
		reason[0] = '\0';
	if (!line)
		return -EINVAL;
	len = strnlen(line, ANSWER_MAX + 1);
	if (len > ANSWER_MAX)
		return -EINVAL;
	text[0] = '\0';
	j.p = line;
	j.end = line + len;
	jp_ws(&j);
	if (j.p >= j.end || *j.p++ != '{')
		return -EINVAL;
	jp_ws(&j);
	if (j.p < j.end && *j.p == '}')
		return -EINVAL; /* {} says nothing: a deny */
	for (;;) {
		char *key;
		uint64_t u;

		if (n_keys >= MEMBERS_MAX)
			return -EINVAL;
		key = keys[n_keys];
		jp_ws(&j);
		if (jp_string(&j, key, KEY_MAX) < 0)
			return -EINVAL;
		for (size_t i = 0; i < n_keys; i++)
			if (strcmp(keys[i], key) == 0)
				return -EINVAL;
		n_keys++;
		jp_ws(&j);
		if (j.p >= j.end || *j.p++ != ':')
			return -EINVAL;
		jp_ws(&j);
		if (strcmp(key, "v") == 0) {
			if (jp_u64(&j, &u) < 0 || u != 1)
				return -EINVAL;
			got_v = true;
		} else if (strcmp(key, "id") == 0) {
			if (jp_u64(&j, &u) < 0 || u != id)
				return -EINVAL;
			got_id = true;
		} else if (strcmp(key, "allow") == 0) {
			if (jp_bool(&j, &v_allow) < 0)
				return -EINVAL;
			got_allow = true;
		} else if (strcmp(key, "remember") == 0) {
			char word[16];

			if (jp_string(&j, word, sizeof(word)) < 0)
				return -EINVAL;
			if (strcmp(word, "once") == 0)
				v_remember = SBX_SUP_REMEMBER_ONCE;
			else if (strcmp(word, "session") == 0)
				v_remember = SBX_SUP_REMEMBER_SESSION;
			else
				return -EINVAL;
		} else if (strcmp(key, "reason") == 0) {
			if (jp_string(&j, text, sizeof(text)) < 0)
				return -EINVAL;
		} else {
			char scratch[ANSWER_MAX + 1];

			if (jp_skip_scalar(&j, scratch, sizeof(scratch)) < 0)
				return -EINVAL;
		}
		jp_ws(&j);
		if (j.p >= j.end)
			return -EINVAL;
		if (*j.p == ',') {
			j.p++;
			continue;
		}
		if (*j.p++ != '}')
			return -EINVAL;
		break;
	}
	jp_ws(&j);
	if (j.p != j.end || !got_v || !got_id || !got_allow)
		return -EINVAL;
	*allow = v_allow;
	*remember = v_remember;
	if (reason && reason_size)
		sbx_escape(reason, reason_size, text, SBX_ESCAPE_TEXT);
	return 0;
}
