/* SPDX-License-Identifier: MIT */
/* Questions pending (include/sbx/sup_pending.h). Pure. */
#include "sbx/sup_pending.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int sbx_sup_qkey_of(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req,
                    const struct sbx_sup_verdict *verdict, struct sbx_sup_qkey *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	if (!req || !verdict || verdict->answer != SBX_SUP_ASK || verdict->asked >= SBX_AC_COUNT)
		return -EINVAL;
	r = sbx_sup_scope(plan, req, out->scope, sizeof(out->scope));
	if (r < 0)
		return r;
	out->cls = verdict->asked;
	out->pid = req->pid;
	snprintf(out->comm, sizeof(out->comm), "%s", req->comm ? req->comm : "");
	return 0;
}

bool sbx_sup_qkey_joins(const struct sbx_sup_qkey *pending, const struct sbx_sup_qkey *call)
{
	return pending && call && pending->scope[0] == '/' && pending->cls == call->cls &&
	       pending->pid == call->pid && strcmp(pending->comm, call->comm) == 0 &&
	       strcmp(pending->scope, call->scope) == 0;
}

void sbx_sup_session_release(struct sbx_sup_session *s)
{
	if (!s)
		return;
	if (s->pending > 0)
		s->pending--;
	s->n_denied++;
}

void sbx_sup_refuse_capped(const struct sbx_sup_session *s, struct sbx_sup_verdict *v)
{
	char was[256];
	size_t n = strnlen(v->rule, sizeof(was) - 1);

	memcpy(was, v->rule, n);
	was[n] = '\0';
	v->answer = SBX_SUP_DENY;
	v->errnum = EACCES;
	v->decider = SBX_SUP_BY_RATE_LIMIT;
	if (s && s->pending >= SBX_SUP_PENDING_MAX)
		snprintf(v->rule, sizeof(v->rule),
		         "approvals: at most %d questions may wait for an answer at once, and %u "
		         "do: denied without asking (%s); answer the questions pending, or answer "
		         "with remember: session",
		         SBX_SUP_PENDING_MAX, s->pending, was[0] ? was : "ask");
	else
		snprintf(v->rule, sizeof(v->rule),
		         "approvals: at most %d questions are asked a minute: denied without "
		         "asking (%s); answer with remember: session, or allow it in the profile",
		         SBX_SUP_RATE_PER_MIN, was[0] ? was : "ask");
}

bool sbx_sup_provisional_ok(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req,
                            const struct sbx_sup_verdict *verdict)
{
	const struct sbx_sup_area *a;

	if (!req || !verdict || verdict->answer != SBX_SUP_ASK || verdict->asked != SBX_AC_WRITE)
		return false;
	if (req->op != SBX_SUP_OP_CREATE || !req->excl || req->narrower || req->t2.path ||
	    req->t.exists || req->t_provisional || !req->t.path || req->t.path[0] != '/')
		return false;
	a = sbx_sup_area_for(plan, req->t.path);
	return a && a->approvals.op[SBX_AC_WRITE] == SBX_APPROVE_ASK &&
	       a->approvals.op[SBX_AC_OVERWRITE] != SBX_APPROVE_DENY;
}

void sbx_sup_provisional_verdict(struct sbx_sup_verdict *v)
{
	char was[256];
	size_t n = strnlen(v->rule, sizeof(was) - 1);

	memcpy(was, v->rule, n);
	was[n] = '\0';
	v->answer = SBX_SUP_PERFORM;
	v->errnum = 0;
	v->decider = SBX_SUP_BY_POLICY;
	snprintf(v->rule, sizeof(v->rule),
	         "%s: provisional (a temporary file: asked for in %u s unless it replaces a file "
	         "by a rename first, removed if refused)",
	         was[0] ? was : "approvals: write ask", SBX_SUP_PROVISIONAL_MS / 1000);
}
