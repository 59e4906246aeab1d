/* SPDX-License-Identifier: MIT */
#include "os/tty.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx/cleanup.h"

/* The bits of a mode that raw mode changes: the keeper restores only a terminal still in
 * sbx's raw mode. */
static bool same_mode(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_lflag == b->c_lflag &&
	       a->c_cflag == b->c_cflag;
}

/*
 * The keeper: fd 0 is the caller's terminal, fd 1 the read end of sbx's pipe, nothing else.
 * A session of its own: no signal of the caller's job or terminal reaches it, and its
 * tcsetattr is not a background job's (no SIGTTOU).
 */
__attribute__((noreturn)) static void keeper_main(const struct termios *orig,
                                                  const struct termios *raw)
{
	static const int quiet[] = {SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU,
	                            SIGHUP, SIGPIPE, SIGTERM, SIGWINCH};
	sigset_t none;
	char c;
	ssize_t n;

	setsid();
	for (size_t i = 0; i < SBX_ARRAY_SIZE(quiet); i++)
		signal(quiet[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		n = read(1, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1) {
		/* sbx ended without giving the mode back */
		struct termios now;

		if (tcgetattr(0, &now) == 0 && same_mode(&now, raw))
			tcsetattr(0, TCSADRAIN, orig);
	}
	_exit(0);
}

static int start_keeper(struct sbx_tty *t, struct sbx_error *err)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the terminal keeper's pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return sbx_error_set(err, SBX_ERR_SETUP, e, "cannot start the terminal keeper: %s",
		                     strerror(e));
	}
	if (pid == 0) {
		/* the terminal at 0, the pipe at 1, nothing else of sbx's */
		if (dup2(t->term, 0) < 0 || dup2(p[0], 1) < 0)
			_exit(1);
		close(2);
		if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
		keeper_main(&t->orig, &t->raw_mode);
	}
	close(p[0]);
	t->keeper = p[1];
	t->keeper_pid = pid;
	return 0;
}

static void stop_keeper(struct sbx_tty *t)
{
	if (t->keeper >= 0) {
		/* "done": the mode is given back, the keeper leaves the terminal alone */
		ssize_t n = write(t->keeper, "d", 1);

		(void)n;
		close(t->keeper);
		t->keeper = -1;
	}
	if (t->keeper_pid > 0) {
		while (waitpid(t->keeper_pid, NULL, 0) < 0 && errno == EINTR)
			;
		t->keeper_pid = 0;
	}
}

static void go_raw(struct sbx_tty *t)
{
	pid_t fg;

	if (!t->have_mode || t->raw)
		return;
	/* only from the foreground: a background sbx (its SIGTTOU blocked) would change the
	 * mode under the shell that owns the terminal now (-1: not the caller's controlling
	 * terminal, which no job owns) */
	fg = tcgetpgrp(t->term);
	if (fg >= 0 && fg != getpgrp())
		return;
	if (tcsetattr(t->term, TCSADRAIN, &t->raw_mode) == 0)
		t->raw = true;
}

static void go_cooked(struct sbx_tty *t)
{
	if (!t->raw)
		return;
	tcsetattr(t->term, TCSADRAIN, &t->orig);
	t->raw = false;
}

/* Does this process's descriptor hold a lock or a lease (its /proc fdinfo's "lock:" lines)?
 * True where it cannot tell. */
static bool fd_locked(int fd)
{
	char path[64], buf[4096];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return true;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	return strstr(buf, "lock:") != NULL;
}

static void fd_save(int fd, struct sbx_tty_fdstate *s)
{
	s->fl = fcntl(fd, F_GETFL);
	if (s->fl < 0)
		return;
	s->sig = fcntl(fd, F_GETSIG);
	s->have_own = fcntl(fd, F_GETOWN_EX, &s->own) == 0;
	s->pipe_sz = fcntl(fd, F_GETPIPE_SZ);
	s->locked = fd_locked(fd);
	{
		struct stat st;

		/* a file, or the caller's terminal (a worker made the caller's pty 0644, and
		 * another user read what was typed into it afterwards: an outside attack) */
		if (fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
			s->file = true;
			s->dev = st.st_dev;
			s->ino = st.st_ino;
			s->mode = st.st_mode & 07777;
			s->gid = st.st_gid;
			s->have_iflags =
			    S_ISREG(st.st_mode) && ioctl(fd, FS_IOC_GETFLAGS, &s->iflags) == 0;
		}
	}
}

/* The worker's changes to a description it shared with the caller, taken back: flags (a
 * terminal left O_NONBLOCK failed the caller's next read), the signal and owner of O_ASYNC,
 * a pipe's size, and the flock, OFD lock and lease it left (a lease made the caller's next
 * open of its own log wait 45 s: an outside attack), where there were none at the start. */
static void fd_restore(int fd, const struct sbx_tty_fdstate *s)
{
	int now;

	if (s->fl < 0)
		return;
	now = fcntl(fd, F_GETFL);
	if (now >= 0 && now != s->fl)
		(void)fcntl(fd, F_SETFL, s->fl);
	if (s->sig >= 0 && fcntl(fd, F_GETSIG) != s->sig)
		(void)fcntl(fd, F_SETSIG, s->sig);
	if (s->have_own)
		(void)fcntl(fd, F_SETOWN_EX, &s->own);
	if (s->pipe_sz > 0 && fcntl(fd, F_GETPIPE_SZ) != s->pipe_sz)
		(void)fcntl(fd, F_SETPIPE_SZ, s->pipe_sz);
	/* a file the caller redirected: its mode (a worker made the caller's 0600 log 0644),
	 * group and inode flags, as they were (the namespaces backend lets the worker, which
	 * owns it there, change them; the landlock backend's supervisor refuses) */
	if (s->file) {
		struct stat st;
		int iflags;

		if (fstat(fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino) {
			if ((st.st_mode & 07777) != s->mode)
				(void)fchmod(fd, s->mode);
			if (st.st_gid != s->gid && fchown(fd, (uid_t)-1, s->gid) < 0)
				st.st_gid = s->gid; /* best effort: nothing more to do */
			if (s->have_iflags && ioctl(fd, FS_IOC_GETFLAGS, &iflags) == 0 &&
			    iflags != s->iflags)
				(void)ioctl(fd, FS_IOC_SETFLAGS, &s->iflags);
		}
	}
	if (!s->locked) {
		struct flock whole = {.l_type = F_UNLCK, .l_whence = SEEK_SET};

		(void)flock(fd, LOCK_UN);
		(void)fcntl(fd, F_OFD_SETLK, &whole);
		(void)fcntl(fd, F_SETLEASE, F_UNLCK);
	}
}

int sbx_tty_begin(struct sbx_tty *t, enum sbx_tty_ask ask, struct sbx_error *err)
{
	pid_t fg;
	int r;

	memset(t, 0, sizeof(*t));
	t->term = t->keeper = t->master = -1;
	t->in_fd = 0;
	t->out_fd = 1;
	for (int fd = 0; fd < 3; fd++) {
		/* its file status flags, which the worker shares with the caller wherever it holds
		 * sbx's own descriptor: O_NONBLOCK left on the caller's terminal made the next
		 * program's read fail (an outside attack); given back by sbx_tty_end */
		fd_save(fd, &t->fds_at[fd]);
		if (!isatty(fd))
			continue;
		t->fds |= 1u << fd;
		if (t->term < 0)
			t->term = fd;
	}
	/* Without a pty the worker holds the caller's terminal (--no-tty, or stdout not a
	 * terminal): it may leave it raw, its output stopped (TCOOFF) or exclusive (TIOCEXCL).
	 * Its mode is saved now, while sbx is in the foreground, and all three are given back
	 * at the end (sbx_tty_end); a pty below replaces this. */
	if (t->term >= 0 && tcgetpgrp(t->term) == getpgrp() && tcgetattr(t->term, &t->orig) == 0)
		t->guard = true;

	if (ask == SBX_TTY_NEVER) {
		t->fds = 0;
		return 0;
	}
	/* stdin not a terminal: pipes stay pipes. stdout not one either (sbx run ... | less,
	 * ... | tee log): the caller's terminal must stay as it is, cooked for what else writes
	 * to it, and its keys for what else reads them (a pager). */
	if (ask == SBX_TTY_AUTO && (t->fds & 3u) != 3u)
		return 0;
	/* A job started in the background (sbx run ... &) is not the terminal's: with AUTO it
	 * keeps the caller's descriptors, as before. ENOTTY: a terminal that is not the
	 * caller's controlling one, where no job owns it. */
	fg = t->term >= 0 ? tcgetpgrp(t->term) : -1;
	if (ask == SBX_TTY_AUTO && fg >= 0 && fg != getpgrp())
		return 0;
	t->active = true;
	if (ask == SBX_TTY_ALWAYS)
		t->fds = 7u; /* as docker run -t: the worker's 0, 1 and 2 are its terminal */
	/* the master's output goes to sbx's stdout (auto: a terminal; -t: whatever it is) */
	t->out_fd = 1;
	if (t->term < 0)
		return 0;
	if (ioctl(t->term, TIOCGWINSZ, &t->ws) == 0)
		t->have_ws = true;
	if (tcgetattr(t->term, &t->orig) < 0)
		return 0; /* no mode to save, none changed */
	t->have_mode = true;
	if (fg >= 0 && fg != getpgrp())
		return 0; /* -t in the background: the caller's mode is the shell's */
	t->raw_mode = t->orig;
	cfmakeraw(&t->raw_mode);
	t->raw_mode.c_cc[VMIN] = 1;
	t->raw_mode.c_cc[VTIME] = 0;
	r = start_keeper(t, err);
	if (r < 0)
		return r;
	go_raw(t);
	return 0;
}

void sbx_tty_end(struct sbx_tty *t)
{
	if (t->guard && !t->active && t->term >= 0 && tcgetpgrp(t->term) == getpgrp()) {
		/* the worker had the caller's terminal itself: its mode, output and sharing back */
		(void)ioctl(t->term, TIOCNXCL);
		(void)tcflow(t->term, TCOON);
		(void)tcsetattr(t->term, TCSANOW, &t->orig);
	}
	t->guard = false;
	for (int fd = 0; fd < 3; fd++)
		fd_restore(fd, &t->fds_at[fd]);

	go_cooked(t);
	stop_keeper(t);
	sbx_closep(&t->master);
	t->master = -1;
	t->active = false;
}

int sbx_tty_open_pty(const struct sbx_tty *t, const char *ptmx, int *slave, struct sbx_error *err)
{
	_cleanup_close_ int master = -1;
	int unlock = 0, s;

	master = open(ptmx, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0) {
		int r = sbx_error_set(err, SBX_ERR_SETUP, errno,
		                      "-t: cannot make a pseudo-terminal for the worker (%s): %s",
		                      ptmx, strerror(errno));

		sbx_error_hint(err, "run without -t: the worker then has sbx's own descriptors "
		                    "(where no pseudo-terminal can be made, sbx does so by itself "
		                    "without -t)");
		return r;
	}
	if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot unlock the pseudo-terminal: %s", strerror(errno));
	/* the peer of this very master, without a path lookup in /dev/pts */
	s = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot open the pseudo-terminal's peer: %s", strerror(errno));
	/* the worker's terminal starts as the caller's was (sbx relays raw bytes) */
	if (t->have_mode)
		tcsetattr(s, TCSANOW, &t->orig);
	if (t->have_ws)
		ioctl(s, TIOCSWINSZ, &t->ws);
	*slave = s;
	return TAKE_FD(master);
}

int sbx_tty_attach(int slave, unsigned fds, struct sbx_error *err)
{
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the pseudo-terminal the worker's terminal: %s",
		                     strerror(errno));
	for (int fd = 0; fd < 3; fd++)
		if ((fds & (1u << fd)) && dup2(slave, fd) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot give the worker its terminal as fd %d: %s", fd,
			                     strerror(errno));
	return 0;
}

int sbx_tty_relay_start(struct sbx_tty *t, int master, struct sbx_error *err)
{
	int fl = fcntl(master, F_GETFL);

	t->master = master;
	if (fl < 0 || fcntl(master, F_SETFL, fl | O_NONBLOCK) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot relay the pseudo-terminal: %s", strerror(errno));
	t->master_open = true;
	t->out_ok = true;
	/* the input: sbx's stdin, if the worker's is the pty */
	t->in_open = (t->fds & 1u) != 0;
	return 0;
}

void sbx_tty_pollfds(const struct sbx_tty *t, struct pollfd *p)
{
	bool relay = t->active && t->master >= 0;

	/* [0] the master: output when there is room to keep it, input when there is some */
	p[0] = (struct pollfd){-1, 0, 0};
	if (relay && t->master_open) {
		p[0].fd = t->master;
		p[0].events =
		    (short)((t->olen == t->ooff ? POLLIN : 0) | (t->ilen > t->ioff ? POLLOUT : 0));
		if (!p[0].events)
			p[0].fd = -1;
	}
	/* [1] sbx's stdin, when the last read is passed on */
	p[1] =
	    (struct pollfd){relay && t->in_open && t->ilen == t->ioff ? t->in_fd : -1, POLLIN, 0};
	/* [2] sbx's output, while the master's output waits */
	p[2] = (struct pollfd){relay && t->olen > t->ooff ? t->out_fd : -1, POLLOUT, 0};
}

/* Write what waits for the caller; a caller that went away (EIO, EPIPE) gets nothing more,
 * and the master is still drained so that the worker never blocks on its terminal. */
static void flush_out(struct sbx_tty *t)
{
	while (t->ooff < t->olen) {
		ssize_t n = t->out_ok ? write(t->out_fd, t->obuf + t->ooff, t->olen - t->ooff) : -1;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			t->out_ok = false;
			t->ooff = t->olen;
			break;
		}
		t->ooff += (size_t)n;
	}
	t->olen = t->ooff = 0;
}

static void read_master(struct sbx_tty *t)
{
	ssize_t n = read(t->master, t->obuf, sizeof(t->obuf));

	if (n > 0) {
		t->olen = (size_t)n;
		t->ooff = 0;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		/* EIO: no process holds the terminal any more */
		t->master_open = false;
	}
}

void sbx_tty_handle(struct sbx_tty *t, const struct pollfd *p)
{
	if (p[0].fd >= 0 && (p[0].revents & POLLOUT)) {
		ssize_t n = write(t->master, t->ibuf + t->ioff, t->ilen - t->ioff);

		if (n > 0)
			t->ioff += (size_t)n;
		else if (n < 0 && errno != EINTR && errno != EAGAIN)
			t->ioff = t->ilen; /* nobody reads the terminal: dropped */
		if (t->ioff == t->ilen)
			t->ilen = t->ioff = 0;
	}
	if (p[0].fd >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)) && t->olen == t->ooff)
		read_master(t);
	if (p[2].fd >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP)))
		flush_out(t);
	else if (t->olen > t->ooff && p[2].fd < 0)
		flush_out(t); /* just read: try at once, poll if it would block */
	if (p[1].fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
		ssize_t n = read(t->in_fd, t->ibuf, sizeof(t->ibuf));

		if (n > 0) {
			t->ilen = (size_t)n;
			t->ioff = 0;
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			/* the input ended (or sbx is in the background: EIO): an end of file for
			 * a worker that reads lines, as a terminal's ^D */
			struct termios m;

			t->in_open = false;
			if (tcgetattr(t->master, &m) == 0 && (m.c_lflag & ICANON)) {
				t->ibuf[0] = (char)m.c_cc[VEOF];
				t->ilen = 1;
				t->ioff = 0;
			}
		}
	}
}

void sbx_tty_drain(struct sbx_tty *t)
{
	if (!t->active || t->master < 0)
		return;
	flush_out(t);
	/* the sandbox is gone: what the master holds is all there is (EIO once empty) */
	while (t->master_open) {
		read_master(t);
		if (t->olen == 0)
			break;
		flush_out(t);
	}
}

void sbx_tty_winch(struct sbx_tty *t)
{
	if (t->master < 0 || t->term < 0 || ioctl(t->term, TIOCGWINSZ, &t->ws) < 0)
		return;
	ioctl(t->master, TIOCSWINSZ, &t->ws);
}

void sbx_tty_suspend(struct sbx_tty *t)
{
	go_cooked(t);
}

void sbx_tty_resume(struct sbx_tty *t)
{
	go_raw(t);
	sbx_tty_winch(t);
}

int sbx_tty_send_master(int sock, int master)
{
	char byte = master >= 0 ? 'm' : 'n';
	struct iovec iov = {&byte, 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	memset(&u, 0, sizeof(u));
	if (master >= 0) {
		struct cmsghdr *c;

		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &master, sizeof(int));
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int sbx_tty_recv_master(int sock)
{
	char byte = 0;
	struct iovec iov = {&byte, 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = u.buf,
	                     .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c;
	ssize_t n;
	int fd = -1;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (n != 1 || byte != 'm' || (msg.msg_flags & MSG_CTRUNC)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}
