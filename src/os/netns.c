/* SPDX-License-Identifier: MIT */
/*
 * In init, in the sandbox's own network namespace: the listening sockets sbx serves from
 * outside (src/os/netproxy.c), and the sandbox's /etc/resolv.conf pointing at them.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/mounts.h"
#include "os/netproxy.h"
#include "os/netproxy_priv.h"
#include "os/kapi.h"
#include "sbx/cleanup.h"

static int listener(int family, int type, unsigned port, struct sbx_error *err)
{
	_cleanup_close_ int s = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int one = 1;

	if (s < 0)
		return family == AF_INET6 ? -EAFNOSUPPORT
		                          : sbx_error_set(err, SBX_ERR_SETUP, errno,
		                                          "cannot open a socket in the sandbox's "
		                                          "network namespace: %s",
		                                          strerror(errno));
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		a->sin6_addr = in6addr_loopback;
		len = sizeof(*a);
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	}
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&ss, len) < 0 ||
	    (type == SOCK_STREAM && listen(s, 1024) < 0)) {
		/* a namespace without IPv6 (disabled by sysctl) has no ::1 */
		if (family == AF_INET6)
			return -EADDRNOTAVAIL;
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot listen on 127.0.0.1:%u in the sandbox's network "
		                     "namespace: %s",
		                     port, strerror(errno));
	}
	return TAKE_FD(s);
}

int sbx_netns_sockets(int fd, bool proxy, struct sbx_error *err)
{
	static const struct {
		int type;
		unsigned port;
		unsigned char role;
		bool proxy;
	} want[] = {
	    {SOCK_DGRAM, SBX_NET_DNS_PORT, SBX_NETNS_DNS_UDP, false},
	    {SOCK_STREAM, SBX_NET_DNS_PORT, SBX_NETNS_DNS_TCP, false},
	    {SOCK_STREAM, SBX_NET_HTTP_PORT, SBX_NETNS_HTTP, true},
	    {SOCK_STREAM, SBX_NET_SOCKS_PORT, SBX_NETNS_SOCKS, true},
	};
	int fds[SBX_NETNS_MAX_FDS];
	unsigned char roles[SBX_NETNS_MAX_FDS];
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < sizeof(want) / sizeof(want[0]); i++) {
		if (want[i].proxy && !proxy)
			continue;
		for (int fam = 0; r >= 0 && fam < 2; fam++) {
			int s = listener(fam ? AF_INET6 : AF_INET, want[i].type, want[i].port, err);

			if (s == -EAFNOSUPPORT || s == -EADDRNOTAVAIL)
				continue;
			if (s < 0) {
				r = s;
				break;
			}
			fds[n] = s;
			roles[n++] = want[i].role;
		}
	}
	if (r >= 0) {
		union {
			char buf[CMSG_SPACE(sizeof(fds))];
			struct cmsghdr align;
		} u;
		struct iovec iov = {roles, n};
		struct msghdr msg = {.msg_iov = &iov,
		                     .msg_iovlen = 1,
		                     .msg_control = u.buf,
		                     .msg_controllen = CMSG_SPACE(n * sizeof(int))};
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
		if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0)
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot hand the sandbox's proxy sockets to sbx: %s",
			                  strerror(errno));
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	close(fd);
	return r;
}

int sbx_netns_resolv_conf(struct sbx_error *err)
{
	static const char text[] = SBX_NET_RESOLV_CONF;
	_cleanup_close_ int target = open("/etc/resolv.conf", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int fs = -1, mnt = -1, file = -1, tree = -1;
	struct stat st;

	/* none there: the resolver's default, 127.0.0.1, is ours already; a symlink (a --root
	 * whose resolv.conf points elsewhere) is not followed */
	if (target < 0 || fstat(target, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	/* a sub-sandbox of a sandbox with its own namespace sees ours already, and 127.0.0.1
	 * is its own namespace's (and its parent's supervisor may refuse the file's creation) */
	{
		char head[64] = "";
		_cleanup_close_ int rd =
		    open("/etc/resolv.conf", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		if (rd >= 0 && read(rd, head, sizeof(head) - 1) > 0 &&
		    strncmp(head, text, strcspn(text, "\n")) == 0)
			return 0;
	}
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "size", "64k", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = fsmount(fs, FSMOUNT_CLOEXEC,
	                   MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)) < 0)
		goto fail;
	file = openat(mnt, "resolv.conf", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (file < 0 || write(file, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		goto fail;
	tree = open_tree(mnt, "resolv.conf", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0 ||
	    mount_setattr(tree, "", AT_EMPTY_PATH,
	                  &(struct mount_attr){.attr_set = MOUNT_ATTR_RDONLY},
	                  sizeof(struct mount_attr)) < 0 ||
	    move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		goto fail;
	sbx_mounts_defer_close(TAKE_FD(mnt)); /* a detached tree: dissolved off the way */
	return 0;
fail:
	/* Not fatal: the host's resolver named there is out of reach of this namespace anyway
	 * (a lookup fails at once, but no allowed name resolves before its connection); a
	 * sub-sandbox whose parent's supervisor denies the file's creation lands here. */
	(void)err;
	return 0;
}
