/* SPDX-License-Identifier: MIT */
#ifndef SBX_NETPIPE_H
#define SBX_NETPIPE_H

/*
 * How big the pipes of sbx's network proxy are (src/os/netproxy.c; sbx(1), NETWORK). Each
 * relayed connection splices through two pipes, and pipe pages are a per-user pool the
 * kernel counts against fs.pipe-user-pages-soft: past it, every new pipe of that user (the
 * caller's shell pipelines as well as the sandbox's) holds two pages. So a pipe starts at
 * one page, grows when it fills (a bulk transfer) while the proxy's pipes together stay
 * under a budget, a share of that pool, and goes back to one page when its connection has
 * been idle a while. Pure arithmetic, no kernel call.
 */

#include <stddef.h>

#define SBX_NETPIPE_MAX     (256u * 1024u)        /* a pipe, at most */
#define SBX_NETPIPE_BUDGET  (16u * 1024u * 1024u) /* the proxy's pipes together, at most */
#define SBX_NETPIPE_SHARE   4u    /* ... and at most 1/SHARE of fs.pipe-user-pages-soft */
#define SBX_NETPIPE_IDLE_MS 2000u /* a connection this long idle: its pipes back to a page */

/*
 * The proxy's budget: SBX_NETPIPE_BUDGET, or 1/SBX_NETPIPE_SHARE of soft_pages pages of page
 * bytes if that is less; soft_pages 0 (no soft limit) leaves SBX_NETPIPE_BUDGET.
 */
size_t sbx_netpipe_budget(unsigned long soft_pages, size_t page);

/*
 * The size a full pipe of cur bytes grows to, when the proxy's pipes hold used bytes of
 * budget: SBX_NETPIPE_MAX if the growth fits in what the budget has left, else the largest
 * power of two between them that fits, else cur (it stays). So the pipes together never
 * pass the budget but by the one page each starts with.
 */
size_t sbx_netpipe_grow(size_t cur, size_t used, size_t budget);

#endif
