/* SPDX-License-Identifier: MIT */
#ifndef SBX_SUP_PENDING_H
#define SBX_SUP_PENDING_H

/*
 * Questions pending (sbx(1), APPROVALS): while a broker thinks, sbx keeps the call that asked
 * and serves every other call. Pure: which call joins a question already pending, and what
 * the caps say.
 *
 * A call joins a pending question when it would be answered by the grant that question's
 * answer makes with `remember: once` (include/sbx/supervise.h, the session): the same scope
 * (the subtree sbx_sup_scope names), the same approval class (verdict.asked), the same
 * thread group (req->pid) and the same command name (req->comm). It then waits for that
 * answer instead of asking again: `rm -rf build` asks one question however many of its
 * calls arrive while it is pending.
 */

#include <stdbool.h>
#include <stddef.h>

#include "sbx/supervise.h"

struct sbx_sup_qkey {
	char scope[SBX_SUP_SCOPE_MAX];
	enum sbx_approval_class cls;
	int pid;
	char comm[16];
};

/* The key of a call that asks (verdict->answer SBX_SUP_ASK); 0, or -EINVAL/-ENAMETOOLONG
 * (then it joins nothing and is asked on its own). */
int sbx_sup_qkey_of(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req,
                    const struct sbx_sup_verdict *verdict, struct sbx_sup_qkey *out);

/* Does a call with key `call` wait for the question with key `pending`? */
bool sbx_sup_qkey_joins(const struct sbx_sup_qkey *pending, const struct sbx_sup_qkey *call);

/* A question admitted (sbx_sup_session_admit) that nobody waits for any more (its caller
 * ended, sbx ends): released from pending without a grant, counted as denied. */
void sbx_sup_session_release(struct sbx_sup_session *s);

/* Past SBX_SUP_PENDING_MAX questions pending, or SBX_SUP_RATE_PER_MIN a minute: the
 * refusal's rule, naming the cap and what to do (verdict: DENY EACCES, RATE_LIMIT). */
void sbx_sup_refuse_capped(const struct sbx_sup_session *s, struct sbx_sup_verdict *v);

/*
 * ---- provisional files: an editor's save is one question ----
 *
 * An editor saves by writing a temporary file in the file's folder (mkstemp: an open with
 * O_CREAT|O_EXCL of a new name) and renaming it over the file. Under `write: ask` that asked
 * twice: the temporary's create, then the overwrite. Instead, such a create is performed at
 * once and is *provisional*: its question (the create, as it would have been asked) is held
 * for SBX_SUP_PROVISIONAL_MS. Within that time, what the worker does with that very file (the
 * same directory, name and inode) asks nothing of its own: a rename of it over an existing
 * file asks only the overwrite of that file (the one question of the save), a rename to a
 * new name asks only the create of that name, an unlink of it asks nothing (nothing was
 * made), and a rename or unlink that is performed ends it (its held question is dropped). A
 * provisional file still there when the time is up is asked for as any create is, and a
 * refusal (or no answer) removes it; so is one still there when the sandbox ends. Every new
 * name is thus asked for, or replaces a file the broker allowed to be replaced; what the
 * worker gets without a question is a file that exists for at most that long before its
 * question (the kernel cannot hold a name back from the host's view).
 */
#define SBX_SUP_PROVISIONAL_MS  5000u
#define SBX_SUP_PROVISIONAL_MAX 16

/* May this call, which asks (verdict ASK), be performed as a provisional file? Only an open
 * with O_CREAT|O_EXCL (req->excl) of a new name (no second side), for a caller with the
 * worker's rights, asking the write class only, in an area whose overwrite approval is not
 * deny (a save could never replace a file there). */
bool sbx_sup_provisional_ok(const struct sbx_sup_plan *plan, const struct sbx_sup_req *req,
                            const struct sbx_sup_verdict *verdict);

/* The verdict of a provisional create: PERFORM, decider policy, the rule saying so. */
void sbx_sup_provisional_verdict(struct sbx_sup_verdict *v);

#endif
