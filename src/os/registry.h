/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_REGISTRY_H
#define SBX_OS_REGISTRY_H

/*
 * Where the running sandboxes' records live (sbx ps, inspect, kill; the record itself is
 * core's, include/sbx/registry.h), and the process facts that say whether a record still
 * describes a live sandbox.
 *
 * The runtime directory of a caller is, in order: $XDG_RUNTIME_DIR/sbx when XDG_RUNTIME_DIR
 * is an absolute path to a directory of the caller's (not a symlink) that no one else can
 * write; /run/sbx for root; /run/user/UID/sbx when that directory is the caller's (a session
 * that lost its environment: sudo -u, su); else run-BOOT in sbx's cache directory
 * ($XDG_CACHE_HOME/sbx or ~/.cache/sbx), BOOT being this boot's id: a home directory may be
 * shared between machines, and no pid of another machine or boot may be taken for one of
 * this one's. Not /tmp (as tmux has it): the landlock backend gives its workers the caller's
 * /tmp, and a directory of sbx's there would cost them /tmp itself (a guarded directory's
 * parent can be neither listed nor added to under Landlock). Each is opened without
 * following a symlink and checked: a directory, owned by the caller, mode 0700 at most, or
 * nothing is read from or written to it. sbx makes it (0700) when it is missing.
 *
 * Every one of these places is sbx's own state: no sandbox may see it (os/state.h guards
 * the first three, whichever a later sbx would choose; the cache directory is guarded as
 * the glob walk's).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx/error.h"
#include "sbx/registry.h"

#define SBX_REGISTRY_PLACES 3 /* candidate directories of one caller, sbx_registry_places */

/* The runtime directories a caller with these variables and this euid may use, each an
 * allocated path (the caller frees), in the order above; NULL entries where one does not
 * apply. Used by os/state.c to hide every one of them. */
void sbx_registry_places(char *const *envp, uid_t euid, char *out[SBX_REGISTRY_PLACES]);

/* The caller's runtime directory (the first place that applies, see above), opened (made
 * when `create`) and checked: *dirfd (O_PATH-free, O_DIRECTORY, the caller closes) and its
 * path in path. -ENOENT when it does not exist and !create; another -errno with err when
 * it is not one sbx can trust. */
int sbx_registry_open_own(char *const *envp, bool create, int *dirfd, char *path, size_t size,
                          struct sbx_error *err);

/* Open and check a directory as a registry of `owner`'s: a directory, not a symlink, owned
 * by owner, mode 0700 at most. */
int sbx_registry_open_dir(const char *path, uid_t owner, int *dirfd, struct sbx_error *err);

/* Write one record (text, len bytes) as the file `id` in dirfd: a temporary file of mode
 * 0600, renamed over it, so that a reader sees the whole record or none. */
int sbx_registry_put(int dirfd, const char *id, const char *text, size_t len,
                     struct sbx_error *err);

/* Remove the record `id`; a record already gone is no error. */
void sbx_registry_remove(int dirfd, const char *id);

/* Read the record `name` (a sandbox id) of dirfd: a regular file owned by `owner`, not a
 * symlink, at most SBX_REG_FILE_MAX bytes, parsed by sbx_reg_parse. */
int sbx_registry_read(int dirfd, const char *name, uid_t owner, struct sbx_reg *out,
                      struct sbx_error *err);

/* What /proc says of a process. */
struct sbx_proc_facts {
	uint64_t start; /* /proc/PID/stat field 22: clock ticks after boot */
	pid_t ppid;
	uid_t uid; /* real uid (/proc/PID/status) */
};
int sbx_registry_proc(pid_t pid, struct sbx_proc_facts *out);

/* Does the record still describe a live sandbox: its sbx and sbx's child are the processes
 * it names (their start times agree; the child's parent is that sbx)? A record whose pids are
 * gone or reused is stale. */
bool sbx_registry_alive(const struct sbx_reg *r);

/*
 * Send sig to the record's sandbox: to sbx's child (the namespaces backend's init: SIGKILL
 * ends the whole pid namespace, another signal is passed on to the worker; the landlock
 * backend's worker), through a pidfd opened before the record is checked against /proc, so
 * that the process signalled is the one checked (a pid reused meanwhile is refused, not
 * signalled). `owner`: the uid whose directory held the record; a record in someone else's
 * directory may only name that user's processes (root's sbx kill cannot be aimed at another
 * process by a planted record). -ESRCH with err when the record is stale.
 */
int sbx_registry_signal(const struct sbx_reg *r, uid_t owner, int sig, struct sbx_error *err);

/* This process's own start time (for the record's sbx_start). */
int sbx_registry_self_start(uint64_t *start);

/* The live sandboxes found (sbx_registry_list): each record with the owner of the directory
 * that held it (the uid to show and to check against, never the record's own "uid"). */
struct sbx_registry_entry {
	struct sbx_reg rec;
	uid_t owner;
};
struct sbx_registry_list {
	struct sbx_registry_entry *items; /* owned, sorted by start time then id */
	size_t n;
	size_t skipped; /* files that were not records (malformed, wrong owner, too large) */
	size_t swept;   /* stale records removed (their sandbox died without cleaning) */
};
void sbx_registry_list_clear(struct sbx_registry_list *l);

/*
 * The live sandboxes of the caller's runtime directory, and with `all` (root) of every
 * registry on the machine sbx knows where to find: /run/sbx, /run/user/UID/sbx for every
 * UID, and ~/.cache/sbx/run-BOOT of every user of the password database (a user's
 * $XDG_RUNTIME_DIR or $XDG_CACHE_HOME elsewhere is not found). Each
 * directory is checked (sbx_registry_open_dir, owned by the UID its place names); a stale
 * record is removed where the directory is the caller's, and skipped elsewhere.
 */
int sbx_registry_list(char *const *envp, bool all, struct sbx_registry_list *out,
                      struct sbx_error *err);

#endif
