/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_NET_H
#define SBX_OS_NET_H

/* The sandbox's network namespace (src/os/net.c). */

#include "sbx/error.h"

/* Bring up the loopback interface of the calling process's network namespace. */
int sbx_net_loopback_up(struct sbx_error *err);

#endif
