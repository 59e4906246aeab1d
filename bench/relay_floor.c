/* SPDX-License-Identifier: MIT */
/*
 * The floor of a TCP relay (bench/net.sh, bench/README.md "The network proxy"): what the
 * best plain relay on this machine carries, beside which sbx's proxy is measured. No
 * parsing, no decisions, no namespaces: accept a connection on 127.0.0.1, connect to the
 * server's port, move bytes both ways until both sides end, then take the next connection.
 *
 *   relay_floor MODE PORT [-p PIPE_BYTES] [-b SOCKBUF_BYTES] [-l RCVLOWAT] [-r RWBUF]
 *
 * MODE: "splice" (a thread a direction, blocking splice through a pipe), "rw" (a thread a
 * direction, blocking read and write through a 256 KiB buffer), "epoll" (one thread, every
 * socket non-blocking, level-triggered epoll, splice through a pipe: sbx's shape, minimal).
 * -p sets the pipes' size (F_SETPIPE_SZ; default the kernel's, 64 KiB); -b fixes both
 * sockets' SO_RCVBUF and SO_SNDBUF (default: none set, the kernel autotunes); -l sets
 * SO_RCVLOWAT on the server's socket; -r the read/write buffer (256 KiB). Prints the port
 * it listens on, then serves until killed. Built static by net.sh (cc -O2 -static), as sbx is.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static int pipe_bytes, sockbuf, lowat, rwbuf = 256 * 1024;
static unsigned short port;

struct dir {
	int src, dst;
};

static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (sockbuf) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof(sockbuf));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof(sockbuf));
	}
}

static int make_pipe(int p[2], int flags)
{
	if (pipe2(p, O_CLOEXEC | flags) < 0)
		return -1;
	if (pipe_bytes)
		fcntl(p[1], F_SETPIPE_SZ, pipe_bytes);
	return 0;
}

static void *splice_dir(void *arg)
{
	struct dir *d = arg;
	int p[2];

	if (make_pipe(p, 0) < 0)
		return NULL;
	for (;;) {
		ssize_t n = splice(d->src, NULL, p[1], NULL, 1 << 30, SPLICE_F_MOVE);

		if (n <= 0)
			break;
		while (n > 0) {
			ssize_t w = splice(p[0], NULL, d->dst, NULL, (size_t)n, SPLICE_F_MOVE);

			if (w <= 0)
				goto out;
			n -= w;
		}
	}
out:
	shutdown(d->dst, SHUT_WR);
	close(p[0]);
	close(p[1]);
	return NULL;
}

static void *rw_dir(void *arg)
{
	struct dir *d = arg;
	char *buf = malloc((size_t)rwbuf);

	for (;;) {
		ssize_t n = buf ? read(d->src, buf, (size_t)rwbuf) : -1, off = 0;

		if (n <= 0)
			break;
		while (off < n) {
			ssize_t w = write(d->dst, buf + off, (size_t)(n - off));

			if (w <= 0)
				goto out;
			off += w;
		}
	}
out:
	shutdown(d->dst, SHUT_WR);
	free(buf);
	return NULL;
}

static void threads(int c, int r, void *(*fn)(void *))
{
	struct dir a = {c, r}, b = {r, c};
	pthread_t ta;

	if (pthread_create(&ta, NULL, fn, &a) != 0)
		return;
	fn(&b);
	pthread_join(ta, NULL);
}

/* One direction of the epoll relay: 1 while it goes on, 0 when it has ended. */
struct half {
	int src, dst, p[2];
	size_t fill, cap;
	bool eof, done;
};

static void pump(struct half *h)
{
	for (;;) {
		bool moved = false;
		ssize_t n;

		if (h->fill) {
			n = splice(h->p[0], NULL, h->dst, NULL, h->fill,
			           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				h->fill -= (size_t)n;
				moved = true;
			} else if (n == 0 || errno != EAGAIN) {
				h->done = true;
				return;
			}
		}
		if (!h->eof && h->fill < h->cap) {
			n = splice(h->src, NULL, h->p[1], NULL, h->cap - h->fill,
			           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				h->fill += (size_t)n;
				moved = true;
			} else if (n == 0 || errno != EAGAIN) {
				h->eof = true;
			}
		}
		if (!moved)
			break;
	}
	if (h->eof && !h->fill) {
		shutdown(h->dst, SHUT_WR);
		h->done = true;
	}
}

static void epoll_relay(int c, int r)
{
	struct half h[2] = {{.src = c, .dst = r}, {.src = r, .dst = c}};
	int ep = epoll_create1(EPOLL_CLOEXEC);
	uint32_t mask[2] = {~0u, ~0u};

	fcntl(c, F_SETFL, O_NONBLOCK);
	fcntl(r, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 2; i++) {
		struct epoll_event e = {.events = 0, .data.u32 = (uint32_t)i};

		if (make_pipe(h[i].p, O_NONBLOCK) < 0)
			return;
		h[i].cap = (size_t)fcntl(h[i].p[1], F_GETPIPE_SZ);
		epoll_ctl(ep, EPOLL_CTL_ADD, i ? r : c, &e);
	}
	while (!h[0].done || !h[1].done) {
		struct epoll_event ev[4];
		uint32_t want[2] = {0, 0};

		pump(&h[0]);
		pump(&h[1]);
		/* fd 0 is the client, fd 1 the remote; h[0] reads the client */
		for (int i = 0; i < 2; i++) {
			int in = i, out = !i; /* h[i] reads side i, writes side !i */

			if (h[i].done)
				continue;
			if (!h[i].eof && h[i].fill < h[i].cap)
				want[in] |= EPOLLIN;
			if (h[i].fill)
				want[out] |= EPOLLOUT;
		}
		for (int s = 0; s < 2; s++)
			if (want[s] != mask[s]) {
				struct epoll_event e = {.events = want[s], .data.u32 = (uint32_t)s};

				epoll_ctl(ep, EPOLL_CTL_MOD, s ? r : c, &e);
				mask[s] = want[s];
			}
		if (h[0].done && h[1].done)
			break;
		if (epoll_wait(ep, ev, 4, -1) < 0 && errno != EINTR)
			break;
	}
	for (int i = 0; i < 2; i++) {
		close(h[i].p[0]);
		close(h[i].p[1]);
	}
	close(ep);
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	const char *mode;
	int ls, one = 1, opt;

	while ((opt = getopt(argc, argv, "p:b:l:r:")) != -1) {
		if (opt == 'p')
			pipe_bytes = atoi(optarg);
		else if (opt == 'l')
			lowat = atoi(optarg);
		else if (opt == 'r')
			rwbuf = atoi(optarg);
		else if (opt == 'b')
			sockbuf = atoi(optarg);
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: relay_floor splice|rw|epoll PORT [-p PIPE] [-b SOCKBUF] "
		                "[-l RCVLOWAT] [-r RWBUF]\n");
		return 2;
	}
	mode = argv[optind];
	port = (unsigned short)atoi(argv[optind + 1]);
	signal(SIGPIPE, SIG_IGN);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 64) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0) {
		perror("relay_floor: listen");
		return 1;
	}
	printf("%u\n", ntohs(a.sin_port));
	fflush(stdout);
	for (;;) {
		struct sockaddr_in t = {.sin_family = AF_INET,
		                        .sin_port = htons(port),
		                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC), r;

		if (c < 0)
			continue;
		r = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		tune(c);
		if (r >= 0)
			tune(r);
		/* the server's side only: the client's request is small */
		if (r >= 0 && lowat)
			setsockopt(r, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
		if (r < 0 || connect(r, (struct sockaddr *)&t, sizeof(t)) < 0) {
			close(c);
			if (r >= 0)
				close(r);
			continue;
		}
		if (!strcmp(mode, "splice"))
			threads(c, r, splice_dir);
		else if (!strcmp(mode, "rw"))
			threads(c, r, rw_dir);
		else
			epoll_relay(c, r);
		close(c);
		close(r);
	}
}
