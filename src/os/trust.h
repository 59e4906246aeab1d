/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_TRUST_H
#define SBX_OS_TRUST_H

/*
 * Configuration that decides a sandbox must come from someone the caller trusts (SPEC
 * section 5), as ssh refuses its keys and sudo its sudoers: a profile or policy file, and
 * every folder on the way to it up to /, must be owned by the caller or root and writable by
 * no one else (src/os/trust.c).
 *
 * The path is walked one component at a time from /, without the kernel following any
 * symlink: a symlink is followed only if the caller or root owns it, and the folders of its
 * target are checked in turn, so the chain that is checked is the one the file is read
 * through. The file is opened once and the descriptor that is read is the one checked.
 *
 * A folder writable by others may stand on the way if it is sticky and owned by the caller
 * or root (/tmp): others can add entries there but not rename or remove the ones beneath.
 *
 * Inside a user namespace (a nested sbx), files whose owner is not mapped there read as the
 * overflow id (nobody, 65534), root's own system files included; they are accepted as root's
 * are, since a nested sandbox can only narrow its parent, whose layers the kernel holds
 * whatever a profile says (trust.c says more).
 */

#include <stddef.h>

#include "sbx/error.h"

/*
 * Read a profile or policy file (`what` names it in messages) of at most max bytes into
 * *data (NUL-terminated, the caller frees) and *len, or refuse it with one line naming the
 * file or folder at fault and the command that fixes it (chmod go-w, chown). The signature of
 * struct sbx_profile_opts' read.
 */
int sbx_trust_read(const char *file, const char *what, size_t max, char **data, size_t *len,
                   struct sbx_error *err);

/* Open a file for reading after the checks above; returns the descriptor or -errno. */
int sbx_trust_open(const char *file, const char *what, struct sbx_error *err);

/* Read a whole regular file of at most `max` bytes (the loaders' cap) from an open
 * descriptor, which stays the caller's; *data is NUL-terminated; `file` names it in errors. */
int sbx_read_fd(int fd, const char *file, size_t max, char **data, size_t *len,
                struct sbx_error *err);

#endif
