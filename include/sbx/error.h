/* SPDX-License-Identifier: MIT */
#ifndef SBX_ERROR_H
#define SBX_ERROR_H

#include <stddef.h>

/*
 * One flat error record. No heap parts, so a child process can send it to its parent in a
 * single write(2) after clone, and a caller can keep it on the stack.
 *
 * Convention (STYLE.md): a fallible function returns >= 0 on success or -errno on failure,
 * and fills the caller's `struct sbx_error *` (last parameter, may be NULL) only on failure.
 */

enum sbx_error_kind {
	SBX_ERR_NONE = 0,
	SBX_ERR_USAGE,          /* bad command line                       -> 125 */
	SBX_ERR_PROFILE,        /* bad profile or policy                  -> 125 */
	SBX_ERR_ESCALATION,     /* a request wider than allowed           -> 125 */
	SBX_ERR_UNSUPPORTED,    /* the kernel or system lacks a feature   -> 125 */
	SBX_ERR_SETUP,          /* building the sandbox failed            -> 125 */
	SBX_ERR_EXEC_NOT_FOUND, /* CMD not found                          -> 127 */
	SBX_ERR_EXEC_DENIED,    /* CMD exists but cannot be executed      -> 126 */
};

#define SBX_ERROR_MSG_MAX  1024
#define SBX_ERROR_HINT_MAX 512
#define SBX_ERROR_FILE_MAX 256

struct sbx_error {
	int kind;                      /* enum sbx_error_kind */
	int errnum;                    /* errno that caused it, 0 if none */
	char file[SBX_ERROR_FILE_MAX]; /* profile file, "" if none */
	int line;                      /* 1-based; 0 if none */
	int column;                    /* 1-based; 0 if none */
	char msg[SBX_ERROR_MSG_MAX];   /* what was asked and why it failed */
	char hint[SBX_ERROR_HINT_MAX]; /* what to do; "" if nothing useful */
};

/* Fill *err (if not NULL) and return -errnum (or -EINVAL when errnum is 0). */
int sbx_error_set(struct sbx_error *err, enum sbx_error_kind kind, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Set the hint of an error already filled; no-op on NULL. */
void sbx_error_hint(struct sbx_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix context to an error as it climbs: "CONTEXT: previous message". */
void sbx_error_wrap(struct sbx_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Attach a source location (profile file, line, column). */
void sbx_error_at(struct sbx_error *err, const char *file, int line, int column);

/* The process exit status that sbx(1) gives this error: 125, 126 or 127. */
int sbx_error_exit_code(const struct sbx_error *err);

/* A short name of the kind ("setup", "profile", ...), for JSON and logs. */
const char *sbx_error_kind_name(int kind);

/* The symbolic name of an errno value ("EACCES"), or NULL where it is not one a sandbox's
 * calls commonly give; the same on every C library (glibc's strerrorname_np is not). */
const char *sbx_errno_name(int e);

/* A signal's name without "SIG" ("KILL"), or NULL for one past the classic 31. */
const char *sbx_signal_abbrev(int sig);

#endif
