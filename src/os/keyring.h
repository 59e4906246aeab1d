/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_KEYRING_H
#define SBX_OS_KEYRING_H

#include "sbx/error.h"

/*
 * Join a fresh anonymous session keyring, so that the worker cannot reach the caller's
 * (keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)). Call it in the worker before the filter,
 * which denies keyctl. Returns 0 when joined; 1 when keyrings are unreachable from this
 * process anyway (no CONFIG_KEYS, or a parent sandbox's filter denies keyctl), which is as
 * good; -errno on failure (fail closed).
 */
int sbx_keyring_new_session(struct sbx_error *err);

#endif
