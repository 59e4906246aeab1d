/* SPDX-License-Identifier: MIT */
/*
 * An sbx that finds no SBX_SPEC_FD is not necessarily outside every sandbox: a worker may have
 * unset it (env -u SBX_SPEC_FD sbx run ...). Nothing it starts can be wider than what already
 * holds it (the parent's layers stay), but a spec that says "depth 1, started from outside"
 * misleads every tool that trusts it. So: SBX=1, which sbx sets for every worker, without a
 * spec is refused; other confinement (no_new_privs, a seccomp filter: an sbx worker that also
 * dropped SBX, or an ordinary container) runs, with its parent marked unknown. Pure: facts in
 * (src/os/sysprobe.c), a verdict out.
 */
#include <errno.h>

#include "sbx/nest.h"
#include "sbx/probe.h"

const char *sbx_origin_evidence(const struct sbx_origin_facts *f)
{
	bool nnp = f->no_new_privs == 1, filter = f->seccomp_mode > 0;

	return nnp && filter ? "no_new_privs and a seccomp filter"
	       : nnp         ? "no_new_privs"
	       : filter      ? "a seccomp filter"
	                     : "";
}

int sbx_origin_decide(const struct sbx_origin_facts *f, struct sbx_error *err)
{
	int r;

	if (f->sbx_env) {
		r = sbx_error_set(err, SBX_ERR_ESCALATION, EPERM,
		                  "this process runs inside an sbx sandbox (SBX=1) whose effective "
		                  "spec is gone (%s is not set): sbx will not start a sandbox that "
		                  "would call itself top-level",
		                  SBX_SPEC_FD_ENV);
		sbx_error_hint(
		    err,
		    "keep %s and fd %d as sbx set them (a nested sandbox can only narrow "
		    "its parent); outside any sandbox, unset SBX",
		    SBX_SPEC_FD_ENV, SBX_SPEC_FD_NUMBER);
		return r;
	}
	return *sbx_origin_evidence(f) ? SBX_ORIGIN_UNKNOWN : SBX_ORIGIN_TOP;
}
