/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_TTY_H
#define SBX_OS_TTY_H

/*
 * The caller's terminal and the worker's pseudo-terminal (src/os/tty.c; sbx(1), TERMINAL).
 *
 * When sbx's stdin and stdout are terminals (or with -t), the worker gets a pseudo-terminal of its
 * own (under the namespaces backend from the sandbox's own devpts, under the landlock backend from
 * the host's /dev/ptmx) as its controlling terminal, so that its shell has job control and
 * /dev/tty opens, and the caller's terminal is never one of its descriptors (TIOCSTI and
 * terminal modes reach only the sandbox's terminal). sbx puts the caller's terminal in raw
 * mode and relays bytes both ways and the window size; the terminal's own keys (Ctrl-C,
 * Ctrl-Z, Ctrl-\) then reach the worker's foreground job through the pty's line discipline.
 *
 * The caller's mode is given back on every way out: sbx_tty_end (a cleanup, so sbx's errors
 * too), around a stop of sbx, and, when sbx dies without a word (SIGKILL), by a keeper: a
 * small process forked before the terminal goes raw, in a session of its own, that holds a
 * pipe only sbx writes. End of file without sbx's "done" byte means sbx is gone: the keeper
 * restores the mode if the terminal is still in sbx's raw mode (a shell that already set
 * its own is left alone).
 */

#include <poll.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <termios.h>

#include "sbx/error.h"
#include "sbx/plan.h"

#define SBX_TTY_POLLFDS 3

struct sbx_tty {
	bool active;    /* the worker gets a pty */
	unsigned fds;   /* bit N set: the worker's fd N (0, 1, 2) is the pty */
	int term;       /* the caller's terminal (one of sbx's 0, 1, 2), or -1 */
	bool raw;       /* the caller's terminal is in raw mode now */
	bool have_mode; /* orig holds the caller's mode (and the pty starts with it) */
	bool guard;     /* no pty, but the worker holds the caller's terminal: its mode, output
	                   flow and exclusivity are given back at the end (sbx_tty_end) */
	/* what the worker shares with the caller through sbx's 0, 1 and 2 (one open file
	 * description each), saved at the start and given back at the end (sbx_tty_end) */
	struct sbx_tty_fdstate {
		int fl;                /* F_GETFL, or -1 */
		int sig;               /* F_GETSIG */
		struct f_owner_ex own; /* F_GETOWN_EX */
		bool have_own;
		int pipe_sz; /* F_GETPIPE_SZ, or -1: not a pipe */
		bool locked; /* it held a lock or lease at the start: those are left as they are */
		bool file;   /* a regular file or a terminal: its mode, group (inode flags) below */
		dev_t dev;
		ino_t ino;
		mode_t mode;
		gid_t gid;
		int iflags;
		bool have_iflags;
	} fds_at[3];

	struct termios orig, raw_mode;
	bool have_ws;
	struct winsize ws;
	int keeper;       /* write end of the keeper's pipe, or -1 */
	pid_t keeper_pid; /* 0: none */
	/* the relay: sbx's stdin into the master, the master out to out_fd */
	int master; /* -1 until made (landlock backend) or received from init */
	int in_fd, out_fd;
	bool in_open, master_open, out_ok;
	char ibuf[4096], obuf[4096];
	size_t ilen, ioff, olen, ooff;
};

/*
 * Decide and prepare, before any process of the sandbox exists: a pty for ask ALWAYS, or for
 * AUTO when sbx's stdin and stdout are terminals and sbx is in its foreground (a job started
 * in the background, or piped into a pager, keeps its descriptors, as before). Where the caller has
 * a terminal in the foreground: save its mode and window size, start the keeper, and make it raw.
 * Returns 0 (t->active says whether a pty is to be made) or -errno. sbx_tty_end undoes it.
 */
int sbx_tty_begin(struct sbx_tty *t, enum sbx_tty_ask ask, struct sbx_error *err);

/* Give the caller's terminal its mode back, release the keeper, close the master.
 * Idempotent; t->active is false afterwards. For _cleanup_. */
void sbx_tty_end(struct sbx_tty *t);

/*
 * Make a pty from the multiplexer at `ptmx` ("/dev/pts/ptmx" of the sandbox's own devpts, or
 * the host's "/dev/ptmx"): returns the master and sets *slave (both close-on-exec, neither a
 * controlling terminal yet), the slave in the caller's mode and window size.
 */
int sbx_tty_open_pty(const struct sbx_tty *t, const char *ptmx, int *slave, struct sbx_error *err);

/* The worker, after setsid(2): make slave its controlling terminal and its fds per `fds`
 * (struct sbx_tty.fds). */
int sbx_tty_attach(int slave, unsigned fds, struct sbx_error *err);

/* Start relaying through master (taken). */
int sbx_tty_relay_start(struct sbx_tty *t, int master, struct sbx_error *err);

/* The relay's pollfds (SBX_TTY_POLLFDS; fd -1 where there is nothing to wait for), and what
 * to do once poll has filled them. */
void sbx_tty_pollfds(const struct sbx_tty *t, struct pollfd *p);
void sbx_tty_handle(struct sbx_tty *t, const struct pollfd *p);

/* After the sandbox has ended: relay what the master still holds. */
void sbx_tty_drain(struct sbx_tty *t);

/* SIGWINCH: the caller's window size to the pty (the kernel signals the worker's foreground
 * job). */
void sbx_tty_winch(struct sbx_tty *t);

/* Around a stop of sbx (SIGTSTP): the caller's mode back, then raw again once continued in
 * the foreground. */
void sbx_tty_suspend(struct sbx_tty *t);
void sbx_tty_resume(struct sbx_tty *t);

/* Send a pty's master (or, with fd -1, word that there is none) over a unix socket, and
 * receive it: returns the fd, -1 for none, or -errno. */
int sbx_tty_send_master(int sock, int master);
int sbx_tty_recv_master(int sock);

#endif
