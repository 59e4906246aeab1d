/* SPDX-License-Identifier: MIT */
#include "sbx/error.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int sbx_error_set(struct sbx_error *err, enum sbx_error_kind kind, int errnum, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		memset(err, 0, sizeof(*err));
		err->kind = kind;
		err->errnum = errnum;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return errnum > 0 ? -errnum : -EINVAL;
}

void sbx_error_hint(struct sbx_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
}

void sbx_error_wrap(struct sbx_error *err, const char *fmt, ...)
{
	char prefix[SBX_ERROR_MSG_MAX];
	size_t plen, mlen, room = sizeof(err->msg) - 1;
	va_list ap;
	int n;

	if (!err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* "PREFIX: MSG", cut to the buffer: the message is for people and stays bounded. */
	plen = strnlen(prefix, sizeof(prefix) - 1);
	if (plen + 2 > room)
		plen = room - 2;
	mlen = strnlen(err->msg, room);
	if (plen + 2 + mlen > room)
		mlen = room - plen - 2;
	memmove(err->msg + plen + 2, err->msg, mlen);
	memcpy(err->msg, prefix, plen);
	err->msg[plen] = ':';
	err->msg[plen + 1] = ' ';
	err->msg[plen + 2 + mlen] = '\0';
}

void sbx_error_at(struct sbx_error *err, const char *file, int line, int column)
{
	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	err->column = column;
}

int sbx_error_exit_code(const struct sbx_error *err)
{
	switch (err ? err->kind : SBX_ERR_SETUP) {
	case SBX_ERR_EXEC_NOT_FOUND:
		return 127;
	case SBX_ERR_EXEC_DENIED:
		return 126;
	default:
		return 125;
	}
}

const char *sbx_error_kind_name(int kind)
{
	static const char *const names[] = {
	    [SBX_ERR_NONE] = "none",
	    [SBX_ERR_USAGE] = "usage",
	    [SBX_ERR_PROFILE] = "profile",
	    [SBX_ERR_ESCALATION] = "escalation",
	    [SBX_ERR_UNSUPPORTED] = "unsupported",
	    [SBX_ERR_SETUP] = "setup",
	    [SBX_ERR_EXEC_NOT_FOUND] = "exec-not-found",
	    [SBX_ERR_EXEC_DENIED] = "exec-denied",
	};

	if (kind < 0 || (size_t)kind >= sizeof(names) / sizeof(names[0]) || !names[kind])
		return "unknown";
	return names[kind];
}

const char *sbx_errno_name(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
	    {EPERM, "EPERM"},
	    {ENOENT, "ENOENT"},
	    {ESRCH, "ESRCH"},
	    {EINTR, "EINTR"},
	    {EIO, "EIO"},
	    {ENXIO, "ENXIO"},
	    {E2BIG, "E2BIG"},
	    {ENOEXEC, "ENOEXEC"},
	    {EBADF, "EBADF"},
	    {ECHILD, "ECHILD"},
	    {EAGAIN, "EAGAIN"},
	    {ENOMEM, "ENOMEM"},
	    {EACCES, "EACCES"},
	    {EFAULT, "EFAULT"},
	    {EBUSY, "EBUSY"},
	    {EEXIST, "EEXIST"},
	    {EXDEV, "EXDEV"},
	    {ENODEV, "ENODEV"},
	    {ENOTDIR, "ENOTDIR"},
	    {EISDIR, "EISDIR"},
	    {EINVAL, "EINVAL"},
	    {ENFILE, "ENFILE"},
	    {EMFILE, "EMFILE"},
	    {ENOTTY, "ENOTTY"},
	    {ETXTBSY, "ETXTBSY"},
	    {EFBIG, "EFBIG"},
	    {ENOSPC, "ENOSPC"},
	    {ESPIPE, "ESPIPE"},
	    {EROFS, "EROFS"},
	    {EMLINK, "EMLINK"},
	    {EPIPE, "EPIPE"},
	    {ERANGE, "ERANGE"},
	    {ENAMETOOLONG, "ENAMETOOLONG"},
	    {ENOSYS, "ENOSYS"},
	    {ENOTEMPTY, "ENOTEMPTY"},
	    {ELOOP, "ELOOP"},
	    {EOVERFLOW, "EOVERFLOW"},
	    {ENOTSOCK, "ENOTSOCK"},
	    {EAFNOSUPPORT, "EAFNOSUPPORT"},
	    {EADDRINUSE, "EADDRINUSE"},
	    {ECONNREFUSED, "ECONNREFUSED"},
	    {ETIMEDOUT, "ETIMEDOUT"},
	    {EDQUOT, "EDQUOT"},
	    {EOPNOTSUPP, "EOPNOTSUPP"},
	    {ESTALE, "ESTALE"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	return NULL;
}

const char *sbx_signal_abbrev(int sig)
{
	static const char *const names[] = {
	    [SIGHUP] = "HUP",   [SIGINT] = "INT",       [SIGQUIT] = "QUIT", [SIGILL] = "ILL",
	    [SIGTRAP] = "TRAP", [SIGABRT] = "ABRT",     [SIGBUS] = "BUS",   [SIGFPE] = "FPE",
	    [SIGKILL] = "KILL", [SIGUSR1] = "USR1",     [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
	    [SIGPIPE] = "PIPE", [SIGALRM] = "ALRM",     [SIGTERM] = "TERM", [SIGSTKFLT] = "STKFLT",
	    [SIGCHLD] = "CHLD", [SIGCONT] = "CONT",     [SIGSTOP] = "STOP", [SIGTSTP] = "TSTP",
	    [SIGTTIN] = "TTIN", [SIGTTOU] = "TTOU",     [SIGURG] = "URG",   [SIGXCPU] = "XCPU",
	    [SIGXFSZ] = "XFSZ", [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGWINCH] = "WINCH",
	    [SIGIO] = "IO",     [SIGPWR] = "PWR",       [SIGSYS] = "SYS",
	};

	if (sig <= 0 || (size_t)sig >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[sig];
}
