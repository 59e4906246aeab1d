/* SPDX-License-Identifier: MIT */
#ifndef SBX_IDENTITY_H
#define SBX_IDENTITY_H

/*
 * The worker's name (src/core/identity.c): whoami, id -un, getpass.getuser() and ssh look the
 * worker's uid up in /etc/passwd, and fail where it has no entry (as root with nesting the
 * worker is SBX_ROOT_NEST_ID, which no host names). sbx shows the host's passwd and group
 * files with an entry for the worker's ids added where the host has none; it never writes
 * the host's files.
 *
 * Ownership: *name, *passwd_out and *group_out are allocated; the caller frees them.
 */

#include "sbx/error.h"

/* The name uid has in passwd (a copy), or NULL (none, or out of memory). */
char *sbx_identity_lookup(const char *passwd, unsigned uid);

/*
 * The worker's name and, where passwd or group lacks its ids, the files to show instead:
 * the host's text with one line added (NULL where nothing is missing). hint is a name to
 * prefer for a uid the host does not name (the caller's $USER, or NULL: "sbx"); home and
 * shell go in the added passwd line. passwd or group may be NULL (unreadable): then nothing
 * is shown instead of it, and the name is the hint or "sbx".
 */
int sbx_identity_make(const char *passwd, const char *group, unsigned uid, unsigned gid,
                      const char *hint, const char *home, char **name, char **passwd_out,
                      char **group_out, struct sbx_error *err);

#endif
