/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_BROKER_H
#define SBX_OS_BROKER_H

/*
 * Who answers an approval request (sbx(1), APPROVALS): `tty` (a prompt on the caller's
 * terminal, read from /dev/tty opened by sbx at start, never the worker's stdin), `cmd:PROGRAM`
 * (one JSON request on PROGRAM's stdin; exit 0 allows, and a JSON answer on its stdout may
 * add remember/reason), `socket:PATH` (JSON Lines each way on a unix stream socket, one
 * connection for the sandbox's life), `deny`, `allow` (log only). Each ask is bounded by a
 * timeout: no answer in time is a deny (decider TIMEOUT). The JSON is core's
 * (sbx_sup_ask_json, sbx_sup_answer_parse).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sbx/error.h"
#include "sbx/supervise.h"

struct sbx_broker;

struct sbx_broker_answer {
	bool allow;
	enum sbx_sup_remember remember;
	enum sbx_sup_decider decider; /* BROKER, PERSON, TIMEOUT, NO_BROKER, CANCELLED, POLICY */
	char reason[256];             /* escaped for text; may be empty */
};

/*
 * Open the broker `spec` names ("tty", "deny", "allow", "cmd:PROGRAM", "socket:PATH"; NULL:
 * tty where sbx has a controlling terminal, deny otherwise). Done by sbx before the launch:
 * a tty broker opens /dev/tty now (refused if there is none), a socket broker connects now
 * (refused if it cannot), a cmd broker checks PROGRAM is executable. Returns 0 or -errno
 * (SBX_ERR_USAGE/SETUP, exit 125) with a line naming what was asked and what to do.
 */
int sbx_broker_open(const char *spec, struct sbx_broker **out, struct sbx_error *err);

/*
 * What ends a question before its answer: `fd` is polled beside the broker's own (sbx's
 * signalfd); when it is readable, and once before the question is put, `fn(ctx)` is called
 * and returns true to cancel (a SIGTERM, SIGINT, SIGHUP or SIGQUIT for sbx): the question is
 * denied at once (decider CANCELLED, a cmd broker's process group killed). fd -1: nothing
 * cancels.
 */
struct sbx_broker_cancel {
	int fd;
	bool (*fn)(void *ctx);
	void *ctx;
};

/* One request: `json` is the request line (no newline), `prompt` the one-line human text
 * (for tty: "sbx: delete /ws/build (1 file so far) by rm[1234]? [y/N/a(lways)] "). Blocks
 * at most timeout_ms, or until `cancel` (may be NULL) says so. Always fills *ans (a failure
 * is a deny with its decider and reason). */
void sbx_broker_ask(struct sbx_broker *b, const char *json, const char *prompt, unsigned timeout_ms,
                    const struct sbx_broker_cancel *cancel, struct sbx_broker_answer *ans);

/* Does b take its time to answer (tty, cmd, socket: a thread asks it, os/askq.h), rather than
 * answering at once (deny, allow)? */
bool sbx_broker_thinks(const struct sbx_broker *b);

/* The spec's kind for messages and the audit log: "tty", "cmd", "socket", "deny", "allow". */
const char *sbx_broker_kind(const struct sbx_broker *b);

void sbx_broker_close(struct sbx_broker *b); /* accepts NULL */

#endif
