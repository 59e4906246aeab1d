/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_SUPERVISOR_H
#define SBX_OS_SUPERVISOR_H

/*
 * The supervisor (docs/design.md, The supervisor): the worker's listener filter, the
 * performer, and the listener loop in sbx. Decisions are core's (sbx_sup_decide); answers
 * from a broker (os/broker.h); records to the audit log (os/audit.h).
 *
 * How the launcher drives it (src/launch.c), in the order things run:
 *   sbx, before clone/fork   sbx_supervisor_new, then sbx_supervisor_prepare (two socket
 *                            pairs: the listener's channel and the performer's);
 *   sbx, after clone/fork    sbx_supervisor_parent_close (the children's ends);
 *   init (namespaces)        sbx_supervisor_child_close once the worker is forked;
 *   the worker               sbx_supervisor_arm after its main filter: forks the performer,
 *                            installs the listener filter, sends the listener fd to sbx,
 *                            waits until sbx has filled its table of protected names;
 *   sbx, its poll loop       sbx_supervisor_pollfd / sbx_supervisor_handle.
 */

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/plan.h"
#include "sbx/supervise.h"

struct sbx_broker;
struct sbx_audit;

/* Is a listener possible here? 0; -EBUSY: a filter above us already has one (a supervised
 * parent); -ENOSYS/-EOPNOTSUPP: no user notification. Probes in a throwaway child only
 * where this process already has a seccomp filter. */
int sbx_sup_probe_listener(void);

/* At most this many processes of a supervised sandbox hold a Landlock domain of their own at
 * once, each with a sub-performer (a landlock sub-worker takes two: its reaper and its
 * worker); past it, landlock_restrict_self fails with EAGAIN (a code the kernel never gives
 * it), which a nested sbx turns into its refusal. */
#define SBX_SUP_MAX_SUBS 64

struct sbx_supervisor; /* sbx's side: the listener, the performer's channel, guards, session */

/* Before the launch: what the listener needs (plan->sup, the broker, the audit log; borrowed,
 * must outlive the run). */
int sbx_supervisor_new(const struct sbx_plan *plan, struct sbx_broker *broker,
                       struct sbx_audit *audit, bool verbose, struct sbx_supervisor **out,
                       struct sbx_error *err);
void sbx_supervisor_free(struct sbx_supervisor *s);

/* One supervised decision, as it happened (for -v: cmd/sbx prints it; os modules do not). */
struct sbx_sup_event {
	const struct sbx_sup_req *req;
	const struct sbx_sup_verdict *verdict; /* the final answer */
	const char *asked_path;                /* the path as the call named it */
	int errnum;                            /* the call's result: 0 or an errno */
	uint64_t latency_us;
	bool noteworthy; /* a deny, an ask, a protected name, a rule that named the call (what
	                    the audit log records); false: a silent perform */
};
typedef void (*sbx_sup_event_fn)(void *ctx, const struct sbx_sup_event *ev);
/* Called for every decision (cmd/sbx prints denials, and all with --verbose). */
void sbx_supervisor_on_event(struct sbx_supervisor *s, sbx_sup_event_fn fn, void *ctx);

/* What cancels a pending broker question (sbx's signalfd and its reader, os/broker.h);
 * copied. Without it a question waits for its answer or its timeout. */
struct sbx_broker_cancel;
void sbx_supervisor_set_cancel(struct sbx_supervisor *s, const struct sbx_broker_cancel *c);

/* The landlock backend's allowlist (plan->sup.families has SBX_SUP_F_CONNECT): the proxy
 * on the host's loopback (borrowed; os/netproxy.h) and its ports, the only ones the
 * worker's connect(2) may reach. Without it every connect is refused. */
struct sbx_netproxy;
void sbx_supervisor_set_net(struct sbx_supervisor *s, struct sbx_netproxy *proxy,
                            unsigned http_port, unsigned socks_port);

/* The sandbox's id (32 hex digits; borrowed) for the broker's requests. */
void sbx_supervisor_set_id(struct sbx_supervisor *s, const char *sandbox_id);
/* Before the end record: write the folded decision record still pending and say the
 * records the rate cap dropped (sbx/audit.h, sbx_audit_fold). Accepts NULL. */
void sbx_supervisor_flush(struct sbx_supervisor *s);
/* For the audit log's end record: requests asked, calls allowed and denied, and "supervisor
 * lost" where the supervisor ended the sandbox (NULL otherwise). */
void sbx_supervisor_counts(const struct sbx_supervisor *s, uint64_t *asked, uint64_t *allowed,
                           uint64_t *denied, const char **killed);

/* ---- the launcher's side ---- */

/* sbx, before clone/fork: the socket pairs both sides need. */
int sbx_supervisor_prepare(struct sbx_supervisor *s, struct sbx_error *err);
/* sbx, after clone/fork: close the children's ends. */
void sbx_supervisor_parent_close(struct sbx_supervisor *s);
/* A child of sbx that is not the worker (init, once it has forked the worker): close every
 * end it inherited. */
void sbx_supervisor_child_close(struct sbx_supervisor *s);
/* The worker, right after its main filter and before exec: fork the performer, install the
 * listener filter, hand its fd to sbx, wait for sbx's word. Nothing of the supervisor stays
 * open in the worker afterwards. */
int sbx_supervisor_arm(struct sbx_supervisor *s, struct sbx_error *err);

/* sbx's poll loop: the supervisor's fds (at most SBX_SUP_POLLFDS entries; unused ones -1). */
#define SBX_SUP_POLLFDS 4
void sbx_supervisor_pollfd(const struct sbx_supervisor *s, struct pollfd *p);

/* True while a question is with the terminal's broker (--approve tty): the loop then reads
 * nothing of the terminal for the worker's pseudo-terminal, so that the answer typed there
 * reaches the question, not the worker. Accepts NULL. */
bool sbx_supervisor_asks_tty(const struct sbx_supervisor *s);
/*
 * Serve what poll found. Returns 0; 1 when the sandbox must end now because the supervisor
 * cannot serve it any more (the performer died while the worker lives: *err says so, the
 * caller kills the sandbox and reports 125); -errno with *err when the start failed.
 */
int sbx_supervisor_handle(struct sbx_supervisor *s, const struct pollfd *p, struct sbx_error *err);

#endif
