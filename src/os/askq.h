/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_ASKQ_H
#define SBX_OS_ASKQ_H

/*
 * The questions waiting for a broker (sbx(1), APPROVALS): one thread of sbx's puts them to the
 * broker, one at a time and in order (a terminal shows one prompt at a time, a socket broker
 * gets one request line and its answer before the next), while sbx's loop serves every other
 * supervised call. An answer comes back through a completion fd (askq_fd, readable while
 * answers wait to be taken). The broker's own timeouts, cancel fd and answers are exactly
 * sbx_broker_ask's: a question's timeout runs from when it was put in the queue (its JSON's
 * deadline_ms), so a question that waited behind others has what is left of it.
 *
 * Ownership: the queue copies every string put into it; after sbx_askq_new the broker is the
 * thread's alone until sbx_askq_free (which cancels what waits and joins the thread).
 */

#include <stdbool.h>
#include <stdint.h>

#include "os/broker.h"
#include "sbx/error.h"

struct sbx_askq;

/* Start the thread for broker b (not NULL). Signals stay blocked in the thread (it inherits
 * sbx's mask: signals come through sbx's signalfd). 0 or -errno. */
int sbx_askq_new(struct sbx_broker *b, struct sbx_askq **out, struct sbx_error *err);

/* Readable while answers wait (sbx_askq_take); -1 for NULL. */
int sbx_askq_fd(const struct sbx_askq *q);

/* Queue question `id` (json: the request line; prompt: the tty's line), to be answered
 * before deadline_mono_ms (CLOCK_MONOTONIC). 0, or -ENOMEM. */
int sbx_askq_put(struct sbx_askq *q, uint64_t id, const char *json, const char *prompt,
                 uint64_t deadline_mono_ms);

/* Take one answer: 1 with *id and *ans filled, 0 when none waits. */
int sbx_askq_take(struct sbx_askq *q, uint64_t *id, struct sbx_broker_answer *ans);

/* True from a question's sbx_askq_put until its answer is taken: a question queued, being
 * asked, or answered and not yet taken (the caller's thread only, as put and take). */
bool sbx_askq_busy(const struct sbx_askq *q);

/* Cancel question `id` (nobody waits for its answer any more): skipped if it still waits in
 * the queue, the broker told to stop if it is being asked (a cmd broker's group killed); its
 * answer (decider CANCELLED) still comes back. Accepts NULL. */
void sbx_askq_cancel(struct sbx_askq *q, uint64_t id);

/* Cancel every question queued or being asked now (sbx was told to end). Accepts NULL. */
void sbx_askq_cancel_all(struct sbx_askq *q);

/* Cancel everything, join the thread, free. Accepts NULL. */
void sbx_askq_free(struct sbx_askq *q);

#endif
