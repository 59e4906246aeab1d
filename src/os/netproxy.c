/* SPDX-License-Identifier: MIT */
/*
 * sbx's network proxy and resolver (src/os/netproxy.h): one thread, one epoll loop, every
 * socket non-blocking. The decisions are core's (include/sbx/net.h); this file moves bytes.
 *
 * Connections: a client socket (accepted on a listener inside the sandbox's namespace) and,
 * once the request is decided, resolved, vetted and dialled, a remote socket in sbx's own
 * namespace. The relay splices through two pipes, so that the payload is never copied into
 * sbx. Names: sbx's own DNS queries (A and AAAA over UDP, to the host's resolver), sockets of
 * the same loop; each name is resolved once for the whole run (a success is kept: there is
 * no second answer to rebind to), and connections and DNS questions wait on it.
 */

#include "os/netproxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "os/audit.h"
#include "os/netproxy_priv.h"
#include "sbx/cleanup.h"
#include "sbx/netpipe.h"

#define DNS_MSG_MAX   1232u /* what sbx reads of a DNS message, and answers in */
#define MAX_SERVERS   3
#define MAX_REFUSED   4096u
#define MAX_LEARNED   4096u
#define FAIL_KEEP_MS  10000u /* a failed lookup is asked again after this */
#define DNS_TTL       30u
#define SOCKS_REQ_MAX (4 + 1 + 255 + 2)
#define MAX_WAITING   4096u /* DNS questions waiting on lookups, at most */

enum tag_type { T_CHAN = 1, T_WAKE, T_TIMER, T_LISTEN, T_LOOKUP, T_CLIENT, T_REMOTE };
struct tag {
	enum tag_type type;
};

#define container_of(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))

enum proto { P_HTTP = 1, P_SOCKS, P_DNS };
enum state { S_HEAD = 1, S_SOCKS_GREET, S_SOCKS_REQ, S_LOOKUP, S_DIAL, S_UPSTREAM, S_RELAY };

struct listener {
	struct tag t;
	int fd;
	int role;
};

struct lookup;

struct conn {
	struct tag ct, rt;
	struct conn *next, *prev; /* every connection */
	struct conn *wait_next;   /* waiting on lk */
	int cfd, rfd;
	enum proto proto;
	enum state state;
	char *buf; /* the request as it arrives, until the relay */
	size_t len;
	char *out; /* for the remote before the relay: a forwarded head and what followed it */
	size_t out_len, out_off;
	const char *via;
	struct sbx_net_decision d;
	unsigned port;
	bool literal_dial; /* dial d.addr itself */
	struct sbx_net_addr dial[SBX_NET_ADDR_MAX];
	size_t n_dial, next_dial;
	struct lookup *lk;
	struct sbx_http_req req;
	int pcr[2], prc[2]; /* client -> remote, remote -> client */
	size_t fcr, frc;
	size_t pcap[2];    /* bytes each pipe holds: [0] pcr's, [1] prc's */
	size_t pipe_bytes; /* both pipes' size, counted in the proxy's pipe_used */
	size_t sock_bytes; /* its sockets' buffers as set, counted in the proxy's sock_used */
	int rbuf;          /* the upstream socket's buffers (each way), sized once */
	bool eof_c, eof_r, shut_r, shut_c;
	uint32_t cmask, rmask;
	bool dead;
	uint64_t deadline; /* before the relay: head, lookup and dial */
	uint64_t last;     /* the relay's last byte */
};

/* A DNS question waiting on a lookup. */
struct dnsq {
	struct dnsq *next;
	int fd; /* the UDP listener to answer from, or -1 for tcp */
	struct sockaddr_storage peer;
	socklen_t plen;
	struct conn *tcp;
	unsigned char q[DNS_MSG_MAX];
	size_t qlen, qend; /* the query, and the end of its question */
	unsigned qtype;
};

struct lookup {
	struct tag t;
	struct lookup *next;
	char name[SBX_NET_NAME_MAX + 1];
	bool pending;
	int rcode; /* 0, 3 (NXDOMAIN), 2 (SERVFAIL) */
	struct sbx_net_addr addrs[SBX_NET_ADDR_MAX];
	size_t n;
	int fd;
	uint16_t id4, id6;
	bool got4, got6;
	int server;
	uint64_t deadline, done_at;
	struct conn *waiters;
	struct dnsq *dwaiters;
};

struct sbx_netproxy {
	struct sbx_netproxy_conf conf;
	struct sbx_netpolicy policy;
	struct sockaddr_storage servers[MAX_SERVERS];
	socklen_t server_len[MAX_SERVERS];
	int n_servers;
	/* a nested sandbox's own proxy: its dials go through the parent's proxy (CONNECT to the
	 * address checked), the only way out of the parent's namespace */
	struct sockaddr_storage upstream;
	socklen_t upstream_len;
	int chan[2]; /* [0] sbx's, [1] init's */
	int ep, wake, timer;
	struct tag chan_tag, wake_tag, timer_tag;
	struct listener ls[SBX_NETNS_MAX_FDS];
	size_t n_ls;
	pthread_t thread;
	bool started;
	bool inline_mode; /* no thread: served by sbx's own loop (sbx_netproxy_service) */
	struct conn *conns, *dead;
	size_t n_conns;
	struct lookup *lookups;
	size_t n_lookups;
	char **refused;
	size_t n_refused;
	char **learned;
	bool *learned_private;
	size_t n_learned;
	unsigned refused_lookups;
	size_t n_waiting; /* DNS questions queued on pending lookups */
	uint16_t next_id;
	/* the pipes of every tunnel together (sbx/netpipe.h): pipe pages are the caller's */
	size_t pipe_budget, pipe_used;
	size_t sock_used; /* every connection's socket buffers as set (SBX_NETPROXY_SOCK_BUDGET) */
	/* the audit log's rate cap (SBX_AUDIT_RATE_MAX records a second, as the supervisor's):
	 * a worker looping on refused lookups must not fill the host's disk */
	uint64_t rate_sec, suppressed;
	unsigned rate_n;
	uint64_t audited; /* records written this run: past SBX_NETPROXY_AUDIT_MAX, only the
	                     count of the rest, at the end (a flood of distinct names, one a
	                     second under the rate cap, would still grow the log for days) */
	/* The landlock backend (sbx_netproxy_listen_host): the listeners are on the host's
	 * loopback, where any process of the host can connect; only the connections sbx's
	 * supervisor made for the worker are served, known by their local port, told before
	 * the connect (sbx_netproxy_expect) and taken once at accept. The lock is for the
	 * supervisor (sbx's main thread) and the loop's thread, and for the audit counters,
	 * which both write. */
	bool host_mode;
	pthread_mutex_t lock;
	struct expect {
		unsigned port;
		uint64_t at_ms;
	} expect[SBX_NETPROXY_MAX_EXPECT];
	size_t n_expect;
	char **gate_refused; /* addresses the gate refused, each named once on stderr */
	size_t n_gate_refused;
	unsigned strangers; /* connections from the host refused at accept */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- setup ---- */

static int add_server(struct sbx_netproxy *p, const char *spec)
{
	char host[64];
	unsigned port = 53;
	const char *colon;
	struct sockaddr_storage *ss = &p->servers[p->n_servers];

	if (p->n_servers >= MAX_SERVERS)
		return 0;
	memset(ss, 0, sizeof(*ss));
	/* IPv4[:PORT], [IPv6]:PORT or a bare IPv6 */
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || (size_t)(close - spec) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(close - spec - 1), spec + 1);
		if (close[1] == ':')
			port = (unsigned)strtoul(close + 2, NULL, 10);
	} else if ((colon = strchr(spec, ':')) && !strchr(colon + 1, ':')) {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		port = (unsigned)strtoul(colon + 1, NULL, 10);
	} else {
		snprintf(host, sizeof(host), "%s", spec);
	}
	if (port == 0 || port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		p->server_len[p->n_servers++] = sizeof(struct sockaddr_in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		p->server_len[p->n_servers++] = sizeof(struct sockaddr_in6);
		return 0;
	}
	return -EINVAL;
}

/* The host's resolvers: its /etc/resolv.conf's nameserver lines (the administrator's). */
static void read_resolv_conf(struct sbx_netproxy *p)
{
	_cleanup_fclose_ FILE *f = fopen("/etc/resolv.conf", "re");
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		char addr[80];

		if (sscanf(line, " nameserver %79s", addr) == 1)
			add_server(p, addr);
	}
}

int sbx_netproxy_new(const struct sbx_netproxy_conf *conf, struct sbx_netproxy **out,
                     struct sbx_error *err)
{
	struct sbx_netproxy *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	p->conf = *conf;
	p->chan[0] = p->chan[1] = p->ep = p->wake = p->timer = -1;
	pthread_mutex_init(&p->lock, NULL);
	p->conf.policy = &p->policy;
	if (conf->policy && (r = sbx_netpolicy_copy(&p->policy, conf->policy, err)) < 0) {
		free(p);
		return r;
	}
	if (conf->mode != SBX_NET_NONE) {
		if (conf->upstream) {
			if (add_server(p, conf->upstream) < 0) {
				r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
				                  "%s='%s' is not IP[:PORT]",
				                  SBX_NETPROXY_RESOLVER_ENV, conf->upstream);
				sbx_netproxy_free(p);
				return r;
			}
		} else
			read_resolv_conf(p);
		if (p->n_servers == 0) {
			r = sbx_error_set(err, SBX_ERR_SETUP, ENOENT,
			                  "--net %s: the host's /etc/resolv.conf names no resolver "
			                  "(nameserver IP) for sbx to resolve allowed names with",
			                  sbx_net_mode_name(conf->mode));
			sbx_error_hint(err, "add a nameserver line to /etc/resolv.conf");
			sbx_netproxy_free(p);
			return r;
		}
	}
	if (conf->upstream_proxy) {
		struct sbx_netproxy tmp = {0};

		if (add_server(&tmp, conf->upstream_proxy) < 0) {
			r = sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
			                  "internal: the parent's proxy '%s' is not IP:PORT",
			                  conf->upstream_proxy);
			sbx_netproxy_free(p);
			return r;
		}
		p->upstream = tmp.servers[0];
		p->upstream_len = tmp.server_len[0];
	}
	if (getrandom(&p->next_id, sizeof(p->next_id), GRND_NONBLOCK) != sizeof(p->next_id))
		p->next_id = (uint16_t)now_ms();
	*out = p;
	return 0;
}

int sbx_netproxy_prepare(struct sbx_netproxy *p, int *child_fd, struct sbx_error *err)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p->chan) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot make the socket pair for the sandbox's proxy: %s",
		                     strerror(errno));
	*child_fd = p->chan[1];
	return 0;
}

int sbx_netproxy_parent_fd(const struct sbx_netproxy *p)
{
	return p->chan[0];
}

/* ---- events and records ---- */

static bool remember(char ***arr, size_t *n, const char *s, size_t cap, bool **flags, bool flag)
{
	char **grown;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*arr)[i], s) == 0) {
			if (flags && flag)
				(*flags)[i] = true;
			return false;
		}
	if (*n >= cap)
		return false;
	grown = realloc(*arr, (*n + 1) * sizeof(*grown));
	if (!grown)
		return false;
	*arr = grown;
	if (flags) {
		bool *g = realloc(*flags, (*n + 1) * sizeof(*g));

		if (!g)
			return false;
		*flags = g;
		g[*n] = flag;
	}
	grown[*n] = strdup(s);
	if (!grown[*n])
		return false;
	(*n)++;
	return true;
}

/* One record for the audit log, within the rate cap; the count of those dropped is written
 * (a "suppressed" record) before the next one admitted, and at the end. */
static void audit_net_locked(struct sbx_netproxy *p, const struct sbx_audit_net *rec, char *line,
                             uint64_t sec);

static void audit_net(struct sbx_netproxy *p, const struct sbx_audit_net *rec)
{
	char line[SBX_AUDIT_LINE_MAX];
	uint64_t sec = now_ms() / 1000u;

	if (!p->conf.audit)
		return;
	/* the loop's thread and the supervisor's gate (sbx_netproxy_gate_refused) */
	pthread_mutex_lock(&p->lock);
	audit_net_locked(p, rec, line, sec);
	pthread_mutex_unlock(&p->lock);
}

static void audit_net_locked(struct sbx_netproxy *p, const struct sbx_audit_net *rec, char *line,
                             uint64_t sec)
{
	if (sec != p->rate_sec) {
		p->rate_sec = sec;
		p->rate_n = 0;
	}
	if (rec && (p->rate_n >= SBX_AUDIT_RATE_MAX || p->audited >= SBX_NETPROXY_AUDIT_MAX)) {
		p->suppressed++;
		return;
	}
	if (p->suppressed &&
	    sbx_audit_fmt_suppressed(line, SBX_AUDIT_LINE_MAX, sbx_audit_ids(p->conf.audit),
	                             wall_ms(), p->suppressed) < SBX_AUDIT_LINE_MAX) {
		sbx_audit_write(p->conf.audit, line);
		p->suppressed = 0;
		p->rate_n++;
		p->audited++;
	}
	if (rec && sbx_audit_fmt_net(line, SBX_AUDIT_LINE_MAX, sbx_audit_ids(p->conf.audit), rec) <
	               SBX_AUDIT_LINE_MAX) {
		sbx_audit_write(p->conf.audit, line);
		p->rate_n++;
		p->audited++;
	}
}

static void emit(struct sbx_netproxy *p, const char *via, const struct sbx_net_decision *d,
                 unsigned port, const struct sbx_net_addr *addr, bool allowed)
{
	char a[INET6_ADDRSTRLEN] = "", rule[SBX_NET_NAME_MAX + 8] = "", text[1024] = "";
	struct sbx_net_event ev = {.via = via, .d = d, .port = port, .allowed = allowed};

	if (addr && addr->family)
		sbx_net_addr_fmt(addr, a, sizeof(a));
	if (d->rule)
		sbx_net_rule_fmt(d->rule, rule, sizeof(rule));
	ev.addr = a[0] ? a : NULL;
	if (!allowed) {
		sbx_net_refusal_text(d, a, text, sizeof(text));
		ev.text = text;
		ev.first_refusal =
		    remember(&p->refused, &p->n_refused, d->host, MAX_REFUSED, NULL, false);
	}
	{
		struct sbx_audit_net rec = {
		    .time_ms = wall_ms(),
		    .via = via,
		    .host = d->host,
		    .port = port,
		    .allowed = allowed,
		    .reason = allowed ? "allowed" : sbx_net_verdict_reason(d->verdict),
		    .rule = d->rule ? rule : NULL,
		    .addr = a[0] ? a : NULL,
		};

		audit_net(p, &rec);
	}
	if (p->conf.on_event)
		p->conf.on_event(p->conf.ctx, &ev);
}

static void learn(struct sbx_netproxy *p, const char *host, bool priv)
{
	if (p->conf.mode == SBX_NET_LEARN)
		remember(&p->learned, &p->n_learned, host, MAX_LEARNED, &p->learned_private, priv);
}

/* ---- epoll ---- */

static int ep_add(struct sbx_netproxy *p, int fd, uint32_t ev, struct tag *t)
{
	struct epoll_event e = {.events = ev, .data.ptr = t};

	return epoll_ctl(p->ep, EPOLL_CTL_ADD, fd, &e);
}

static void ep_mod(struct sbx_netproxy *p, int fd, uint32_t *cur, uint32_t ev, struct tag *t)
{
	struct epoll_event e = {.events = ev, .data.ptr = t};

	if (*cur == ev)
		return;
	*cur = ev;
	epoll_ctl(p->ep, EPOLL_CTL_MOD, fd, &e);
}

/* ---- connections ---- */

/* The client's socket is off the loop while its request is on its way (a hang-up there would
 * otherwise be reported again and again); the relay puts it back. */
static void client_off(struct sbx_netproxy *p, struct conn *c)
{
	epoll_ctl(p->ep, EPOLL_CTL_DEL, c->cfd, NULL);
	c->cmask = 0;
}

/* Closed now, freed at the end of the loop's batch (another event of it may name c). */
static void conn_free(struct sbx_netproxy *p, struct conn *c)
{
	if (c->dead)
		return;
	c->dead = true;
	if (c->lk) {
		/* still waiting on a name: off its list */
		for (struct conn **w = &c->lk->waiters; *w; w = &(*w)->wait_next)
			if (*w == c) {
				*w = c->wait_next;
				break;
			}
		c->lk = NULL;
	}
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->rfd >= 0)
		close(c->rfd);
	for (int i = 0; i < 2; i++) {
		if (c->pcr[i] >= 0)
			close(c->pcr[i]);
		if (c->prc[i] >= 0)
			close(c->prc[i]);
	}
	p->pipe_used -= c->pipe_bytes;
	c->pipe_bytes = 0;
	p->sock_used -= c->sock_bytes;
	c->sock_bytes = 0;
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	p->n_conns--;
	c->next = p->dead;
	p->dead = c;
}

static void reap(struct sbx_netproxy *p)
{
	while (p->dead) {
		struct conn *c = p->dead;

		p->dead = c->next;
		free(c->buf);
		free(c->out);
		free(c);
	}
}

static void send_all(int fd, const void *buf, size_t n)
{
	/* small answers to a fresh socket: its buffer takes them */
	ssize_t w = send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);

	(void)w;
}

static void http_error(struct conn *c, int code, const char *status, const char *reason,
                       const char *body)
{
	char head[2048];
	int n = snprintf(head, sizeof(head),
	                 "HTTP/1.1 %d %s\r\nX-Proxy-Error: %s\r\nContent-Type: text/plain; "
	                 "charset=utf-8\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
	                 code, status, reason, strlen(body) + 1, body);

	if (n > 0)
		send_all(c->cfd, head, (size_t)n < sizeof(head) ? (size_t)n : sizeof(head) - 1);
}

static void socks_reply(struct conn *c, unsigned char rep)
{
	unsigned char r[10] = {5, rep, 0, 1, 0, 0, 0, 0, 0, 0};

	send_all(c->cfd, r, sizeof(r));
}

/* Refuse a decided request: the client's answer and the records. */
static void refuse(struct sbx_netproxy *p, struct conn *c, const struct sbx_net_addr *addr)
{
	char a[INET6_ADDRSTRLEN] = "", text[1024];

	if (addr && addr->family)
		sbx_net_addr_fmt(addr, a, sizeof(a));
	emit(p, c->via, &c->d, c->port, addr, false);
	sbx_net_refusal_text(&c->d, a, text, sizeof(text));
	if (c->proto == P_HTTP)
		http_error(c, 403, "Forbidden", sbx_net_verdict_reason(c->d.verdict), text);
	else
		socks_reply(c, 2); /* connection not allowed by ruleset */
	conn_free(p, c);
}

static void fail_dial(struct sbx_netproxy *p, struct conn *c, const char *why, int code)
{
	char body[512];

	if (c->proto == P_HTTP) {
		snprintf(body, sizeof(body), "sbx: network: cannot reach %s:%u: %s", c->d.host,
		         c->port, why);
		http_error(c, code, code == 504 ? "Gateway Timeout" : "Bad Gateway",
		           "upstream-error", body);
	} else
		socks_reply(c, code == 504 ? 6 : 4);
	conn_free(p, c);
}

static void dial_next(struct sbx_netproxy *p, struct conn *c);
static void wake(struct sbx_netproxy *p, struct lookup *l);
static void relay(struct sbx_netproxy *p, struct conn *c);
static struct lookup *lookup_start(struct sbx_netproxy *p, const char *name);

/* Reverse: an address sbx handed out for an allowed name stands for that name. */
static const struct lookup *by_addr(const struct sbx_netproxy *p, const struct sbx_net_addr *a)
{
	for (const struct lookup *l = p->lookups; l; l = l->next)
		for (size_t i = 0; !l->pending && i < l->n; i++)
			if (l->addrs[i].family == a->family &&
			    !memcmp(l->addrs[i].a, a->a, a->family == AF_INET ? 4 : 16))
				return l;
	return NULL;
}

static enum sbx_net_verdict vet_host(const struct sbx_net_addr *a, size_t n, bool allow_private,
                                     size_t *bad);

static void decide(struct sbx_netproxy *p, const char *host, struct sbx_net_decision *d)
{
	sbx_netpolicy_decide(&p->policy, p->conf.mode, host, d);
	if (d->literal && d->verdict == SBX_NETV_LITERAL) {
		/* an address the resolver inside answered for an allowed name (a client that
		 * resolved first, then asked SOCKS5 by address) is that name's */
		const struct lookup *l = by_addr(p, &d->addr);
		struct sbx_net_decision named;

		if (l) {
			sbx_netpolicy_decide(&p->policy, p->conf.mode, l->name, &named);
			/* only an answer that was accepted whole: the public address of a refused
			 * answer (one that also held a private one) stays refused by literal */
			if (named.verdict == SBX_NETV_ALLOW &&
			    vet_host(l->addrs, l->n, named.allow_private, NULL) == SBX_NETV_ALLOW) {
				named.literal = true;
				named.addr = d->addr;
				*d = named;
			}
		}
	}
}

/* Is a an address of this host (sbx's network namespace: the host's)? A socket binds to it
 * only then (EADDRNOTAVAIL otherwise): exact, whatever the interfaces are called, and asked
 * when the name is resolved. An allowed name that resolves to the host's own public address
 * would reach the host's services bound to every interface (attack of 2026-11-28). */
static bool host_local(const struct sbx_net_addr *a)
{
	struct sockaddr_storage ss = {0};
	socklen_t len;
	int fd, r;

	if (a->family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a->a, 4);
		len = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, a->a, 16);
		len = sizeof(*s6);
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true; /* cannot tell: refused */
	r = bind(fd, (struct sockaddr *)&ss, len);
	close(fd);
	return r == 0 || errno != EADDRNOTAVAIL;
}

/* sbx_net_vet, and no address of the host itself unless the entry allows private ones. */
static enum sbx_net_verdict vet_host(const struct sbx_net_addr *a, size_t n, bool allow_private,
                                     size_t *bad)
{
	enum sbx_net_verdict v = sbx_net_vet(a, n, allow_private, bad);

	if (v != SBX_NETV_ALLOW || allow_private)
		return v;
	for (size_t i = 0; i < n; i++)
		if (host_local(&a[i])) {
			if (bad)
				*bad = i;
			return SBX_NETV_PRIVATE;
		}
	return SBX_NETV_ALLOW;
}

/* The request is decided: refuse it, dial a literal, or wait for its name. */
static void proceed(struct sbx_netproxy *p, struct conn *c, const char *host)
{
	decide(p, host, &c->d);
	if (c->d.verdict != SBX_NETV_ALLOW) {
		refuse(p, c, c->d.literal ? &c->d.addr : NULL);
		return;
	}
	client_off(p, c);
	if (c->d.literal) {
		struct sbx_net_addr a = c->d.addr;

		if (p->conf.mode != SBX_NET_LEARN &&
		    vet_host(&a, 1, c->d.allow_private, NULL) != SBX_NETV_ALLOW) {
			c->d.verdict = SBX_NETV_PRIVATE;
			refuse(p, c, &a);
			return;
		}
		learn(p, c->d.host, sbx_net_addr_private(&a) != NULL);
		c->dial[0] = a;
		c->n_dial = 1;
		c->state = S_DIAL;
		dial_next(p, c);
		return;
	}
	c->lk = lookup_start(p, c->d.host);
	if (!c->lk) {
		fail_dial(p, c, "too many names in this run", 502);
		return;
	}
	c->state = S_LOOKUP;
	c->wait_next = c->lk->waiters;
	c->lk->waiters = c;
	if (!c->lk->pending) /* known already: on at once */
		wake(p, c->lk);
}

static void after_lookup(struct sbx_netproxy *p, struct conn *c, struct lookup *l)
{
	size_t bad = 0;

	if (l->rcode != 0 || l->n == 0) {
		fail_dial(p, c,
		          l->rcode == 3   ? "no such name (NXDOMAIN)"
		          : l->rcode == 0 ? "the name has no address"
		                          : "the host's resolver did not answer",
		          502);
		return;
	}
	/* learn mode lets private answers through: what it writes says which were private,
	 * whatever this run's decision allowed (an entry without allow-private refuses them) */
	if (p->conf.mode == SBX_NET_LEARN)
		learn(p, c->d.host, vet_host(l->addrs, l->n, false, NULL) != SBX_NETV_ALLOW);
	if (vet_host(l->addrs, l->n, c->d.allow_private, &bad) != SBX_NETV_ALLOW &&
	    p->conf.mode != SBX_NET_LEARN) {
		c->d.verdict = SBX_NETV_PRIVATE;
		refuse(p, c, &l->addrs[bad]);
		return;
	}
	memcpy(c->dial, l->addrs, l->n * sizeof(l->addrs[0]));
	c->n_dial = l->n;
	c->next_dial = 0;
	c->state = S_DIAL;
	dial_next(p, c);
}

/* One socket's buffers (each way) for the next connection, within the proxy's budget: the
 * full size while the budget holds it, a share of what is left after,
 * SBX_NETPROXY_SOCKBUF_MIN at least. */
static int sock_size(const struct sbx_netproxy *p)
{
	size_t left =
	    p->sock_used < SBX_NETPROXY_SOCK_BUDGET ? SBX_NETPROXY_SOCK_BUDGET - p->sock_used : 0;
	size_t want = left / 16 < SBX_NETPROXY_SOCKBUF ? left / 16 : SBX_NETPROXY_SOCKBUF;

	return (int)(want < SBX_NETPROXY_SOCKBUF_MIN ? SBX_NETPROXY_SOCKBUF_MIN : want);
}

/* Counted against the budget until c ends. */
static void sock_count(struct sbx_netproxy *p, struct conn *c, size_t bytes)
{
	p->sock_used += bytes;
	c->sock_bytes += bytes;
}

static int sock_buffers(struct sbx_netproxy *p, struct conn *c)
{
	int want = sock_size(p);

	sock_count(p, c, 2 * (size_t)want);
	return want;
}

/* A listener's receive buffer, which the connections it accepts take from the SYN on: the
 * size the next one gets. Set on the accepted socket after the handshake instead, a smaller
 * buffer leaves the window the kernel advertised already, and a sender on loopback (64 KiB
 * segments) waited on a window it could never fill: a bulk tunnel stalled. */
static void listener_size(const struct sbx_netproxy *p, int fd)
{
	int next = sock_size(p);

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &next, sizeof(next));
}

static void dial_next(struct sbx_netproxy *p, struct conn *c)
{
	while (c->next_dial < c->n_dial) {
		const struct sbx_net_addr *a = &c->dial[c->next_dial++];
		struct sockaddr_storage ss = {0};
		socklen_t len;
		int one = 1;

		if (c->rfd >= 0) {
			close(c->rfd);
			c->rfd = -1;
		}
		if (p->upstream_len) {
			memcpy(&ss, &p->upstream, p->upstream_len);
			len = p->upstream_len;
		} else if (a->family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)c->port);
			memcpy(&s4->sin_addr, a->a, 4);
			len = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)c->port);
			memcpy(&s6->sin6_addr, a->a, 16);
			len = sizeof(*s6);
		}
		c->rfd =
		    socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
		if (c->rfd < 0)
			continue;
		setsockopt(c->rfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		/* fixed buffers: autotuning would let a worker that never reads pin up to 32 MiB
		 * of host memory a connection, outside its limits; sized once a connection,
		 * within the proxy's budget */
		if (!c->rbuf)
			c->rbuf = sock_buffers(p, c);
		setsockopt(c->rfd, SOL_SOCKET, SO_RCVBUF, &c->rbuf, sizeof(c->rbuf));
		setsockopt(c->rfd, SOL_SOCKET, SO_SNDBUF, &c->rbuf, sizeof(c->rbuf));
		if (connect(c->rfd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS)
			continue;
		c->rmask = EPOLLOUT;
		if (ep_add(p, c->rfd, EPOLLOUT, &c->rt) < 0)
			continue;
		c->deadline = now_ms() + SBX_NETPROXY_DIAL_TIMEOUT;
		return;
	}
	fail_dial(p, c, "no address of it accepts connections", 502);
}

/*
 * A pipe to size bytes (grown when it fills, back to a page when idle), the proxy's count
 * kept to what the kernel gave (a user past pipe-user-pages-soft cannot grow one).
 */
static void pipe_resize(struct sbx_netproxy *p, struct conn *c, int i, size_t size)
{
	int fd = i ? c->prc[1] : c->pcr[1], got;

	if (size == c->pcap[i] || fcntl(fd, F_SETPIPE_SZ, (int)size) < 0 ||
	    (got = fcntl(fd, F_GETPIPE_SZ)) <= 0)
		return;
	p->pipe_used = p->pipe_used - c->pcap[i] + (size_t)got;
	c->pipe_bytes = c->pipe_bytes - c->pcap[i] + (size_t)got;
	c->pcap[i] = (size_t)got;
}

static int start_relay(struct sbx_netproxy *p, struct conn *c)
{
	if (pipe2(c->pcr, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(c->prc, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	/* a page each, from the kernel's default of 16: a pipe grows when it fills */
	for (int i = 0; i < 2; i++) {
		int got;

		fcntl(i ? c->prc[1] : c->pcr[1], F_SETPIPE_SZ, getpagesize());
		got = fcntl(i ? c->prc[1] : c->pcr[1], F_GETPIPE_SZ);
		if (got <= 0)
			return -1;
		c->pcap[i] = (size_t)got;
		c->pipe_bytes += (size_t)got;
		p->pipe_used += (size_t)got;
	}
	c->state = S_RELAY;
	c->last = now_ms();
	c->cmask = 0;
	return ep_add(p, c->cfd, 0, &c->ct);
}

/* The remote accepted: answer the client, and what goes first to the remote. */
static void dialled(struct sbx_netproxy *p, struct conn *c)
{
	const struct sbx_net_addr *a = &c->dial[c->next_dial - 1];
	size_t rest = c->len - (c->proto == P_HTTP ? c->req.head_len : c->out_off);

	emit(p, c->via, &c->d, c->port, a, true);
	if (c->proto == P_HTTP && c->req.connect) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		send_all(c->cfd, ok, sizeof(ok) - 1);
		c->out = malloc(rest ? rest : 1);
		if (c->out)
			memcpy(c->out, c->buf + c->req.head_len, rest);
		c->out_len = rest;
	} else if (c->proto == P_HTTP) {
		/* origin-form request line; hop-by-hop and proxy headers dropped; one request */
		size_t cap = c->req.head_len + 64 + rest + sizeof(c->req.path);
		char *o = malloc(cap);
		const char *h = c->buf + c->req.line_len, *end = c->buf + c->req.head_len;
		size_t n;

		if (!o) {
			fail_dial(p, c, "out of memory", 502);
			return;
		}
		n = (size_t)snprintf(o, cap, "%s %s %s\r\n", c->req.method, c->req.path,
		                     c->req.version);
		while (h < end) {
			const char *nl = memchr(h, '\n', (size_t)(end - h));
			size_t ln = (size_t)(nl - h) + 1;

			if (ln <= 2) /* the blank line */
				break;
			if (strncasecmp(h, "proxy-", 6) != 0 &&
			    strncasecmp(h, "connection:", 11) != 0 &&
			    strncasecmp(h, "keep-alive:", 11) != 0) {
				memcpy(o + n, h, ln);
				n += ln;
			}
			h = nl + 1;
		}
		n += (size_t)snprintf(o + n, cap - n, "Connection: close\r\n\r\n");
		memcpy(o + n, c->buf + c->req.head_len, rest);
		c->out = o;
		c->out_len = n + rest;
	} else {
		socks_reply(c, 0);
		c->out = malloc(rest ? rest : 1);
		if (c->out)
			memcpy(c->out, c->buf + c->out_off, rest);
		c->out_len = rest;
	}
	c->out_off = 0;
	free(c->buf);
	c->buf = NULL;
	if (!c->out || start_relay(p, c) < 0) {
		conn_free(p, c);
		return;
	}
	relay(p, c); /* sets what each side waits for */
}

/*
 * Move what can be moved one way; -1 on an error that ends the connection. Double-buffered:
 * the source is read while the pipe has room and the sink written while it holds bytes, so
 * that neither side waits for the other's turn (each handoff costs a wake-up).
 */
static int pump(int src, int dst, int pipe[2], size_t cap, size_t *fill, bool *eof, bool *shut,
                bool *full)
{
	*full = false;
	for (int rounds = 0; rounds < 32; rounds++) {
		bool moved = false;
		ssize_t n;

		if (*fill) {
			n = splice(pipe[0], NULL, dst, NULL, *fill,
			           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				*fill -= (size_t)n;
				moved = true;
			} else if (n == 0 || errno != EAGAIN) {
				return -1;
			}
		}
		if (!*eof && *fill < cap) {
			n = splice(src, NULL, pipe[1], NULL, cap - *fill,
			           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				*fill += (size_t)n;
				moved = true;
			} else if (n == 0) {
				*eof = true;
			} else if (errno != EAGAIN) {
				return -1;
			}
		}
		if (!moved) {
			int queued = 0;

			/* The sink is blocked, and the pipe may be full short of cap: it counts
			 * slots, and a slot holds what one segment brought, a page or a few
			 * bytes. Then the source, still readable, must not be asked for again
			 * (a level-triggered loop would spin) until the sink takes some. */
			*full = *fill >= cap || (*fill && !*eof &&
			                         ioctl(src, FIONREAD, &queued) == 0 && queued > 0);
			break;
		}
	}
	if (*eof && !*fill && !*shut) {
		shutdown(dst, SHUT_WR);
		*shut = true;
	}
	return 0;
}

static void relay(struct sbx_netproxy *p, struct conn *c)
{
	uint32_t wc = 0, wr = 0;
	bool full[2] = {false, false};

	c->last = now_ms();
	if (c->out_off < c->out_len) {
		ssize_t n = send(c->rfd, c->out + c->out_off, c->out_len - c->out_off,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno != EAGAIN) {
			conn_free(p, c);
			return;
		}
		if (n > 0)
			c->out_off += (size_t)n;
	}
	if (c->out_off >= c->out_len && pump(c->cfd, c->rfd, c->pcr, c->pcap[0], &c->fcr, &c->eof_c,
	                                     &c->shut_r, &full[0]) < 0) {
		conn_free(p, c);
		return;
	}
	if (pump(c->rfd, c->cfd, c->prc, c->pcap[1], &c->frc, &c->eof_r, &c->shut_c, &full[1]) <
	    0) {
		conn_free(p, c);
		return;
	}
	if (c->shut_r && c->shut_c) {
		conn_free(p, c);
		return;
	}
	/* a full pipe: a bulk transfer, which a larger pipe serves with fewer wake-ups; one
	 * that grew has room again */
	for (int i = 0; i < 2; i++) {
		size_t was = c->pcap[i];

		if (full[i]) {
			pipe_resize(p, c, i,
			            sbx_netpipe_grow(c->pcap[i], p->pipe_used, p->pipe_budget));
			full[i] = c->pcap[i] == was;
		}
	}
	if (c->out_off < c->out_len || c->fcr)
		wr |= EPOLLOUT;
	if (c->out_off >= c->out_len && !c->eof_c && !full[0])
		wc |= EPOLLIN;
	if (c->frc)
		wc |= EPOLLOUT;
	if (!c->eof_r && !full[1])
		wr |= EPOLLIN;
	ep_mod(p, c->cfd, &c->cmask, wc, &c->ct);
	ep_mod(p, c->rfd, &c->rmask, wr, &c->rt);
}

/* ---- DNS messages ---- */

static size_t put_name(unsigned char *out, size_t cap, const char *name)
{
	size_t n = 0;

	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);

		if (l == 0 || l > 63 || n + l + 2 > cap)
			return 0;
		out[n++] = (unsigned char)l;
		memcpy(out + n, name, l);
		n += l;
		name += l + (dot ? 1 : 0);
	}
	out[n++] = 0;
	return n;
}

/* The question of a query: its name (lower case, dotted), type and class, and where it
 * ends. Compression is refused in a question (no client sends it). */
static int parse_question(const unsigned char *m, size_t len, char *name, size_t nsize,
                          unsigned *qtype, unsigned *qclass, size_t *end)
{
	size_t off = 12, n = 0;

	for (;;) {
		unsigned l;

		if (off >= len)
			return -1;
		l = m[off++];
		if (l == 0)
			break;
		if (l > 63 || off + l > len || n + l + 2 > nsize)
			return -1;
		if (n)
			name[n++] = '.';
		memcpy(name + n, m + off, l);
		n += l;
		off += l;
	}
	name[n] = '\0';
	if (off + 4 > len)
		return -1;
	*qtype = (unsigned)m[off] << 8 | m[off + 1];
	*qclass = (unsigned)m[off + 2] << 8 | m[off + 3];
	*end = off + 4;
	return 0;
}

/* An answer to q: rcode, and the addresses of its type. Returns the length. */
static size_t dns_answer(const struct dnsq *q, int rcode, const struct sbx_net_addr *addrs,
                         size_t n, unsigned char *out)
{
	size_t len = q->qend, an = 0;
	/* over UDP a client that sent no EDNS size takes 512 bytes; sbx reads no OPT record */
	size_t cap = q->fd >= 0 ? 512u : DNS_MSG_MAX;

	memcpy(out, q->q, q->qend);
	out[2] = (unsigned char)(0x80 | (q->q[2] & 0x01)); /* QR, opcode 0, RD as asked */
	out[3] = (unsigned char)(0x80 | (rcode & 0x0f));   /* RA */
	out[4] = 0;
	out[5] = 1;
	for (size_t i = 0; rcode == 0 && i < n; i++) {
		bool v4 = addrs[i].family == AF_INET;
		size_t dl = v4 ? 4 : 16;

		if ((q->qtype == 1) != v4 || len + 12 + dl > cap)
			continue;
		out[len++] = 0xc0;
		out[len++] = 12; /* the question's name */
		out[len++] = 0;
		out[len++] = (unsigned char)q->qtype;
		out[len++] = 0;
		out[len++] = 1;
		out[len++] = 0;
		out[len++] = 0;
		out[len++] = 0;
		out[len++] = DNS_TTL;
		out[len++] = 0;
		out[len++] = (unsigned char)dl;
		memcpy(out + len, addrs[i].a, dl);
		len += dl;
		an++;
	}
	out[6] = (unsigned char)(an >> 8);
	out[7] = (unsigned char)an;
	memset(out + 8, 0, 4); /* no authority, no additional */
	return len;
}

static void dns_send(struct sbx_netproxy *p, struct dnsq *q, const unsigned char *msg, size_t len)
{
	if (q->fd >= 0) {
		ssize_t w = sendto(q->fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		                   (struct sockaddr *)&q->peer, q->plen);
		(void)w;
	} else if (q->tcp) {
		unsigned char buf[DNS_MSG_MAX + 2];

		buf[0] = (unsigned char)(len >> 8);
		buf[1] = (unsigned char)len;
		memcpy(buf + 2, msg, len);
		send_all(q->tcp->cfd, buf, len + 2);
		conn_free(p, q->tcp);
	}
}

static void dns_reply(struct sbx_netproxy *p, struct dnsq *q, int rcode,
                      const struct sbx_net_addr *addrs, size_t n)
{
	unsigned char out[DNS_MSG_MAX];
	size_t len = dns_answer(q, rcode, addrs, n, out);

	dns_send(p, q, out, len);
}

/* One question from inside. Returns with q answered, or queued on a lookup (q is then the
 * lookup's); returns true when q is kept. */
static bool dns_question(struct sbx_netproxy *p, struct dnsq *q)
{
	char name[SBX_NET_NAME_MAX + 2];
	unsigned qclass;
	struct sbx_net_decision d;
	struct lookup *l;

	if (q->qlen < 12 || (q->q[2] & 0x80)) {
		if (q->tcp) /* not a query: no answer */
			conn_free(p, q->tcp);
		return false;
	}
	if ((q->q[2] & 0x78) != 0 || q->q[4] != 0 || q->q[5] != 1 ||
	    parse_question(q->q, q->qlen, name, sizeof(name), &q->qtype, &qclass, &q->qend) < 0) {
		q->qend = 12;
		memset(q->q + 4, 0, 2);
		dns_reply(p, q, 5, NULL, 0);
		return false;
	}
	if (p->conf.mode == SBX_NET_NONE) {
		/* the network is off: refused at once, no lookup anywhere */
		p->refused_lookups++;
		memset(&d, 0, sizeof(d));
		snprintf(d.host, sizeof(d.host), "%s", name);
		d.verdict = SBX_NETV_NOT_LISTED;
		{
			struct sbx_audit_net rec = {.time_ms = wall_ms(),
			                            .via = "dns",
			                            .host = name,
			                            .reason = "network-none"};

			audit_net(p, &rec);
		}
		dns_reply(p, q, 5, NULL, 0);
		return false;
	}
	decide(p, name, &d);
	if (d.verdict == SBX_NETV_ALLOW && d.literal) {
		/* a query for an address spelled as a name: nothing to look up */
		dns_reply(p, q, 5, NULL, 0);
		return false;
	}
	if (d.verdict != SBX_NETV_ALLOW || qclass != 1 || (q->qtype != 1 && q->qtype != 28)) {
		if (d.verdict != SBX_NETV_ALLOW) {
			p->refused_lookups++;
			emit(p, "dns", &d, 0, NULL, false);
		}
		dns_reply(p, q, 5, NULL, 0); /* REFUSED, at once, nothing asked outside */
		return false;
	}
	l = p->n_waiting < MAX_WAITING ? lookup_start(p, d.host) : NULL;
	if (!l) {
		dns_reply(p, q, 2, NULL, 0); /* SERVFAIL: too many names, or questions waiting */
		return false;
	}
	q->next = l->dwaiters;
	l->dwaiters = q;
	p->n_waiting++;
	if (!l->pending) {
		wake(p, l);
	}
	return true;
}

/* ---- lookups: sbx's own queries to the host's resolver ---- */

static int lookup_send(struct sbx_netproxy *p, struct lookup *l)
{
	unsigned char m[300];
	size_t n;

	if (l->fd >= 0) {
		epoll_ctl(p->ep, EPOLL_CTL_DEL, l->fd, NULL);
		close(l->fd);
	}
	l->fd =
	    socket(p->servers[l->server].ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		return -1;
	if (connect(l->fd, (struct sockaddr *)&p->servers[l->server], p->server_len[l->server]) <
	        0 ||
	    ep_add(p, l->fd, EPOLLIN, &l->t) < 0)
		return -1;
	for (int v6 = 0; v6 < 2; v6++) {
		uint16_t id = v6 ? l->id6 : l->id4;

		memset(m, 0, 12);
		m[0] = (unsigned char)(id >> 8);
		m[1] = (unsigned char)id;
		m[2] = 0x01; /* RD */
		m[5] = 1;
		n = put_name(m + 12, sizeof(m) - 16, l->name);
		if (!n)
			return -1;
		n += 12;
		m[n++] = 0;
		m[n++] = v6 ? 28 : 1;
		m[n++] = 0;
		m[n++] = 1;
		if ((v6 ? !l->got6 : !l->got4) && send(l->fd, m, n, MSG_NOSIGNAL) < 0)
			return -1;
	}
	l->deadline = now_ms() + SBX_NETPROXY_DNS_TIMEOUT;
	return 0;
}

static void lookup_done(struct sbx_netproxy *p, struct lookup *l, int rcode)
{
	if (l->fd >= 0) {
		epoll_ctl(p->ep, EPOLL_CTL_DEL, l->fd, NULL);
		close(l->fd);
		l->fd = -1;
	}
	l->pending = false;
	l->rcode = l->n ? 0 : rcode;
	l->done_at = now_ms();
	wake(p, l);
}

/* Everyone waiting on l, now that it is known. */
static void wake(struct sbx_netproxy *p, struct lookup *l)
{
	struct conn *c = l->waiters;
	struct dnsq *q = l->dwaiters;

	l->waiters = NULL;
	l->dwaiters = NULL;
	while (c) {
		struct conn *next = c->wait_next;

		c->lk = NULL;
		after_lookup(p, c, l);
		c = next;
	}
	while (q) {
		struct dnsq *next = q->next;
		struct sbx_net_decision d;
		size_t bad = 0;

		decide(p, l->name, &d);
		if (l->rcode != 0) {
			dns_reply(p, q, l->rcode == 3 ? 3 : 2, NULL, 0);
		} else if (p->conf.mode != SBX_NET_LEARN && l->n &&
		           vet_host(l->addrs, l->n, d.allow_private, &bad) != SBX_NETV_ALLOW) {
			d.verdict = SBX_NETV_PRIVATE;
			emit(p, "dns", &d, 0, &l->addrs[bad], false);
			dns_reply(p, q, 5, NULL, 0);
		} else {
			/* learn mode answers private ones too, and writes allow-private for them */
			learn(p, l->name,
			      l->n && vet_host(l->addrs, l->n, false, NULL) != SBX_NETV_ALLOW);
			/* the answer is a decision too: the audit log has it (rate-capped) */
			if (q->qtype == 1 || q->qtype == 28) {
				const struct sbx_net_addr *first = NULL;

				for (size_t i = 0; !first && i < l->n; i++)
					if ((l->addrs[i].family == AF_INET) == (q->qtype == 1))
						first = &l->addrs[i];
				emit(p, "dns", &d, 0, first, true);
			}
			dns_reply(p, q, 0, l->addrs, l->n);
		}
		free(q);
		p->n_waiting--;
		q = next;
	}
}

static struct lookup *lookup_start(struct sbx_netproxy *p, const char *name)
{
	struct lookup *l;

	for (l = p->lookups; l; l = l->next)
		if (strcmp(l->name, name) == 0)
			break;
	if (l && (l->pending || l->rcode == 0 || now_ms() - l->done_at < FAIL_KEEP_MS))
		return l;
	if (!l) {
		if (p->n_lookups >= SBX_NETPROXY_MAX_NAMES)
			return NULL;
		l = calloc(1, sizeof(*l));
		if (!l)
			return NULL;
		l->t.type = T_LOOKUP;
		l->fd = -1;
		snprintf(l->name, sizeof(l->name), "%s", name);
		l->next = p->lookups;
		p->lookups = l;
		p->n_lookups++;
	}
	l->pending = true;
	l->n = 0;
	l->got4 = l->got6 = false;
	l->server = 0;
	l->id4 = p->next_id++;
	l->id6 = p->next_id++;
	if (lookup_send(p, l) < 0)
		lookup_done(p, l, 2);
	return l;
}

/* Skip a (possibly compressed) name in a message. */
static size_t skip_name(const unsigned char *m, size_t len, size_t off)
{
	while (off < len) {
		unsigned l = m[off];

		if (l == 0)
			return off + 1;
		if ((l & 0xc0) == 0xc0)
			return off + 2;
		off += l + 1;
	}
	return len + 1;
}

static void lookup_readable(struct sbx_netproxy *p, struct lookup *l)
{
	unsigned char m[DNS_MSG_MAX * 2];
	ssize_t n;

	while (l->pending && (n = recv(l->fd, m, sizeof(m), MSG_DONTWAIT)) >= 12) {
		uint16_t id = (uint16_t)(m[0] << 8 | m[1]);
		unsigned qd = (unsigned)m[4] << 8 | m[5], an = (unsigned)m[6] << 8 | m[7];
		int rcode = m[3] & 0x0f;
		bool v6 = id == l->id6;
		size_t off = 12;

		if (!(m[2] & 0x80) || (id != l->id4 && id != l->id6) || (v6 ? l->got6 : l->got4))
			continue;
		if (v6)
			l->got6 = true;
		else
			l->got4 = true;
		for (unsigned i = 0; i < qd && off <= (size_t)n; i++)
			off = skip_name(m, (size_t)n, off) + 4;
		for (unsigned i = 0; rcode == 0 && i < an && off + 10 <= (size_t)n; i++) {
			unsigned type, rdlen;

			off = skip_name(m, (size_t)n, off);
			if (off + 10 > (size_t)n)
				break;
			type = (unsigned)m[off] << 8 | m[off + 1];
			rdlen = (unsigned)m[off + 8] << 8 | m[off + 9];
			off += 10;
			if (off + rdlen > (size_t)n)
				break;
			if (l->n < SBX_NET_ADDR_MAX && ((type == 1 && rdlen == 4 && !v6) ||
			                                (type == 28 && rdlen == 16 && v6))) {
				struct sbx_net_addr *a = &l->addrs[l->n++];

				a->family = type == 1 ? AF_INET : AF_INET6;
				memcpy(a->a, m + off, rdlen);
			}
			off += rdlen;
		}
		if (l->got4 && l->got6) {
			/* IPv4 first: the host may have no IPv6 route */
			for (size_t i = 1; i < l->n; i++)
				for (size_t j = i; j > 0 && l->addrs[j].family == AF_INET &&
				                   l->addrs[j - 1].family == AF_INET6;
				     j--) {
					struct sbx_net_addr t = l->addrs[j];

					l->addrs[j] = l->addrs[j - 1];
					l->addrs[j - 1] = t;
				}
			lookup_done(p, l, rcode == 3 ? 3 : rcode ? 2 : 0);
		}
	}
}

static void lookup_timeout(struct sbx_netproxy *p, struct lookup *l)
{
	if (l->n) {
		lookup_done(p, l, 0); /* one family answered: that answer */
		return;
	}
	if (++l->server < p->n_servers && lookup_send(p, l) == 0)
		return;
	lookup_done(p, l, 2);
}

/* ---- clients ---- */

static void http_head(struct sbx_netproxy *p, struct conn *c)
{
	const char *why = NULL;
	int r = sbx_http_parse(c->buf, c->len, &c->req, &why);

	if (r == -EAGAIN)
		return;
	if (r < 0) {
		memset(&c->d, 0, sizeof(c->d));
		snprintf(c->d.host, sizeof(c->d.host), "%s", c->req.host[0] ? c->req.host : "?");
		c->d.verdict = SBX_NETV_BAD_REQUEST;
		emit(p, "http", &c->d, c->req.port, NULL, false);
		http_error(c, r == -EPERM ? 403 : 400, r == -EPERM ? "Forbidden" : "Bad Request",
		           r == -EPERM ? "host-mismatch" : "bad-request", why);
		conn_free(p, c);
		return;
	}
	c->via = c->req.connect ? "connect" : "http";
	c->port = c->req.port;
	proceed(p, c, c->req.host);
}

static void socks_input(struct sbx_netproxy *p, struct conn *c)
{
	unsigned char *b = (unsigned char *)c->buf;
	char host[SBX_NET_NAME_MAX + 3];
	size_t need;

	if (c->state == S_SOCKS_GREET) {
		bool noauth = false;

		if (c->len < 2)
			return;
		if (b[0] != 5) {
			conn_free(p, c);
			return;
		}
		need = 2u + b[1];
		if (c->len < need)
			return;
		for (size_t i = 2; i < need; i++)
			noauth |= b[i] == 0;
		if (!noauth) {
			send_all(c->cfd, "\x05\xff", 2);
			conn_free(p, c);
			return;
		}
		send_all(c->cfd, "\x05\x00", 2);
		memmove(c->buf, c->buf + need, c->len - need);
		c->len -= need;
		c->state = S_SOCKS_REQ;
	}
	if (c->len < 5)
		return;
	if (b[0] != 5 || b[2] != 0) {
		conn_free(p, c);
		return;
	}
	switch (b[3]) {
	case 1:
		need = 4 + 4 + 2;
		break;
	case 3:
		need = 4 + 1 + b[4] + 2;
		break;
	case 4:
		need = 4 + 16 + 2;
		break;
	default:
		socks_reply(c, 8); /* address type not supported */
		conn_free(p, c);
		return;
	}
	if (c->len < need)
		return;
	if (b[1] != 1) {
		socks_reply(c, 7); /* only CONNECT */
		conn_free(p, c);
		return;
	}
	if (b[3] == 1)
		inet_ntop(AF_INET, b + 4, host, sizeof(host));
	else if (b[3] == 4)
		inet_ntop(AF_INET6, b + 4, host, sizeof(host));
	else {
		memcpy(host, b + 5, b[4]);
		host[b[4]] = '\0';
		if (strlen(host) != b[4]) { /* a NUL inside the name */
			socks_reply(c, 1);
			conn_free(p, c);
			return;
		}
	}
	c->port = (unsigned)b[need - 2] << 8 | b[need - 1];
	c->out_off = need; /* where what follows the request starts */
	c->via = "socks5";
	if (c->port == 0) {
		socks_reply(c, 1);
		conn_free(p, c);
		return;
	}
	proceed(p, c, host);
}

static void dns_tcp_input(struct sbx_netproxy *p, struct conn *c)
{
	struct dnsq *q;
	size_t n;

	if (c->len < 2)
		return;
	n = (size_t)((unsigned char)c->buf[0] << 8 | (unsigned char)c->buf[1]);
	if (n > DNS_MSG_MAX || n < 12) {
		conn_free(p, c);
		return;
	}
	if (c->len < n + 2)
		return;
	q = calloc(1, sizeof(*q));
	if (!q) {
		conn_free(p, c);
		return;
	}
	q->fd = -1;
	q->tcp = c;
	memcpy(q->q, c->buf + 2, n);
	q->qlen = n;
	client_off(p, c);
	c->state = S_LOOKUP;
	if (!dns_question(p, q)) /* answered at once, or dropped: the connection is closed */
		free(q);
}

static void client_readable(struct sbx_netproxy *p, struct conn *c)
{
	size_t cap = c->proto == P_HTTP    ? SBX_HTTP_HEAD_MAX
	             : c->proto == P_SOCKS ? 2 + 255 + SOCKS_REQ_MAX
	                                   : DNS_MSG_MAX + 2;
	ssize_t n;

	if (c->len >= cap) {
		if (c->proto == P_HTTP)
			http_error(c, 431, "Request Header Fields Too Large", "bad-request",
			           "sbx: network: the request head is too long");
		conn_free(p, c);
		return;
	}
	n = recv(c->cfd, c->buf + c->len, cap - c->len, MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || errno != EAGAIN)
			conn_free(p, c);
		return;
	}
	c->len += (size_t)n;
	if (c->proto == P_HTTP)
		http_head(p, c);
	else if (c->proto == P_SOCKS)
		socks_input(p, c);
	else
		dns_tcp_input(p, c);
}

/* The landlock backend: is the peer a connection sbx's supervisor made for the worker? Its
 * local port was told before the connect; taken once. Entries older than a minute are gone
 * (a connect on loopback is made at once or fails). */
static bool expected(struct sbx_netproxy *p, const struct sockaddr_storage *peer)
{
	unsigned port = 0;
	bool loop = false, found = false;
	uint64_t now = now_ms();

	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)peer;

		port = ntohs(in->sin_port);
		loop = ntohl(in->sin_addr.s_addr) == INADDR_LOOPBACK;
	} else if (peer->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)peer;

		port = ntohs(in6->sin6_port);
		loop = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
		        in6->sin6_addr.s6_addr[12] == 127 && in6->sin6_addr.s6_addr[13] == 0 &&
		        in6->sin6_addr.s6_addr[14] == 0 && in6->sin6_addr.s6_addr[15] == 1);
	}
	if (!loop || !port)
		return false;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->n_expect;) {
		if (now - p->expect[i].at_ms > 60000u) {
			p->expect[i] = p->expect[--p->n_expect];
			continue;
		}
		if (!found && p->expect[i].port == port) {
			p->expect[i] = p->expect[--p->n_expect];
			found = true;
			continue;
		}
		i++;
	}
	pthread_mutex_unlock(&p->lock);
	return found;
}

void sbx_netproxy_expect(struct sbx_netproxy *p, unsigned local_port, bool on)
{
	uint64_t now = now_ms();

	if (!p || !local_port)
		return;
	pthread_mutex_lock(&p->lock);
	if (!on) {
		for (size_t i = 0; i < p->n_expect; i++)
			if (p->expect[i].port == local_port) {
				p->expect[i] = p->expect[--p->n_expect];
				break;
			}
	} else {
		size_t at = p->n_expect;

		/* full: the oldest goes (its connect was long made, or failed) */
		if (at >= SBX_NETPROXY_MAX_EXPECT) {
			at = 0;
			for (size_t i = 1; i < p->n_expect; i++)
				if (p->expect[i].at_ms < p->expect[at].at_ms)
					at = i;
		} else {
			p->n_expect++;
		}
		p->expect[at] = (struct expect){local_port, now};
	}
	pthread_mutex_unlock(&p->lock);
}

static void stranger(struct sbx_netproxy *p, const struct sockaddr_storage *peer)
{
	char a[INET6_ADDRSTRLEN + 8] = "?";
	unsigned port = 0;
	struct sbx_audit_net rec = {
	    .time_ms = wall_ms(),
	    .via = "accept",
	    .allowed = false,
	    .reason = "not-the-sandbox",
	};

	if (peer->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, a, sizeof(a));
		port = ntohs(((const struct sockaddr_in *)peer)->sin_port);
	} else if (peer->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr, a, sizeof(a));
		port = ntohs(((const struct sockaddr_in6 *)peer)->sin6_port);
	}
	rec.host = a;
	rec.port = port;
	p->strangers++;
	audit_net(p, &rec);
}

static void on_accept(struct sbx_netproxy *p, struct listener *ls)
{
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage peer = {0};
		socklen_t plen = sizeof(peer);
		int fd =
		    accept4(ls->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;
		int one = 1;

		if (fd < 0)
			return;
		/* on the host's loopback, anyone's connection: only the sandbox's is served */
		if (p->host_mode && !expected(p, &peer)) {
			stranger(p, &peer);
			close(fd);
			continue;
		}
		if (p->n_conns >= SBX_NETPROXY_MAX_CONNS || !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		c->buf = malloc(ls->role == SBX_NETNS_HTTP ? SBX_HTTP_HEAD_MAX : DNS_MSG_MAX + 2);
		if (!c->buf) {
			free(c);
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		{
			/* fixed buffers toward the worker too: one that never reads would let
			 * autotuning grow each send buffer to 4 MiB of host memory; the receive
			 * buffer is the listener's (listener_size), counted as the kernel has it */
			int snd = sock_size(p), rb = 0;
			socklen_t l = sizeof(rb);

			setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd));
			if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, &l) < 0 || rb <= 0)
				rb = 2 * SBX_NETPROXY_SOCKBUF;
			sock_count(p, c, (size_t)snd + (size_t)rb / 2);
			listener_size(p, ls->fd);
		}
		c->ct.type = T_CLIENT;
		c->rt.type = T_REMOTE;
		c->cfd = fd;
		c->rfd = -1;
		c->pcr[0] = c->pcr[1] = c->prc[0] = c->prc[1] = -1;
		c->proto = ls->role == SBX_NETNS_HTTP    ? P_HTTP
		           : ls->role == SBX_NETNS_SOCKS ? P_SOCKS
		                                         : P_DNS;
		c->state = c->proto == P_HTTP    ? S_HEAD
		           : c->proto == P_SOCKS ? S_SOCKS_GREET
		                                 : S_HEAD;
		c->deadline = now_ms() + SBX_NETPROXY_HEAD_TIMEOUT;
		c->next = p->conns;
		if (p->conns)
			p->conns->prev = c;
		p->conns = c;
		p->n_conns++;
		c->cmask = EPOLLIN;
		if (ep_add(p, fd, EPOLLIN, &c->ct) < 0)
			conn_free(p, c);
	}
}

static void on_dns_udp(struct sbx_netproxy *p, struct listener *ls)
{
	for (int i = 0; i < 64; i++) {
		struct dnsq *q = calloc(1, sizeof(*q));
		ssize_t n;

		if (!q)
			return;
		q->fd = ls->fd;
		q->plen = sizeof(q->peer);
		n = recvfrom(ls->fd, q->q, sizeof(q->q), MSG_DONTWAIT, (struct sockaddr *)&q->peer,
		             &q->plen);
		if (n < 0) {
			free(q);
			return;
		}
		q->qlen = (size_t)n;
		if (!dns_question(p, q))
			free(q);
	}
}

static void on_chan(struct sbx_netproxy *p)
{
	unsigned char roles[SBX_NETNS_MAX_FDS];
	union {
		char buf[CMSG_SPACE(sizeof(int) * SBX_NETNS_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {roles, sizeof(roles)};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = u.buf,
	                     .msg_controllen = sizeof(u.buf)};
	ssize_t n = recvmsg(p->chan[0], &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;

	epoll_ctl(p->ep, EPOLL_CTL_DEL, p->chan[0], NULL);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int fds[SBX_NETNS_MAX_FDS];

		memcpy(fds, CMSG_DATA(c), nfd * sizeof(int));
		for (size_t i = 0; i < nfd; i++) {
			struct listener *ls = &p->ls[p->n_ls];

			if (i >= (size_t)n || p->n_ls >= SBX_NETNS_MAX_FDS) {
				close(fds[i]);
				continue;
			}
			ls->t.type = T_LISTEN;
			ls->fd = fds[i];
			ls->role = roles[i];
			p->n_ls++;
			listener_size(p, ls->fd);
			ep_add(p, ls->fd, EPOLLIN, &ls->t);
		}
	}
}

static void on_timer(struct sbx_netproxy *p)
{
	uint64_t now = now_ms(), ticks;
	ssize_t r = read(p->timer, &ticks, sizeof(ticks));

	(void)r;
	for (struct lookup *l = p->lookups; l; l = l->next)
		if (l->pending && now >= l->deadline)
			lookup_timeout(p, l);
	for (struct conn *c = p->conns, *next; c; c = next) {
		next = c->next;
		if (c->state == S_RELAY) {
			if (now - c->last > SBX_NETPROXY_IDLE_TIMEOUT) {
				conn_free(p, c);
			} else if (now - c->last > SBX_NETPIPE_IDLE_MS) {
				/* idle: its pipes' budget back for the busy ones */
				if (!c->fcr)
					pipe_resize(p, c, 0, (size_t)getpagesize());
				if (!c->frc)
					pipe_resize(p, c, 1, (size_t)getpagesize());
			}
		} else if ((c->state == S_DIAL || c->state == S_UPSTREAM) && now >= c->deadline) {
			if (c->next_dial < c->n_dial)
				dial_next(p, c);
			else
				fail_dial(p, c, "it did not answer in time", 504);
		} else if ((c->state == S_HEAD || c->state == S_SOCKS_GREET ||
		            c->state == S_SOCKS_REQ) &&
		           now >= c->deadline) {
			conn_free(p, c);
		}
	}
}

/* Through the parent's proxy: CONNECT to the address this sbx checked. */
static void upstream_ask(struct sbx_netproxy *p, struct conn *c)
{
	char a[INET6_ADDRSTRLEN], req[256];
	const struct sbx_net_addr *ad = &c->dial[c->next_dial - 1];
	bool v6 = ad->family == AF_INET6;
	int n;

	sbx_net_addr_fmt(ad, a, sizeof(a));
	n = snprintf(req, sizeof(req), "CONNECT %s%s%s:%u HTTP/1.1\r\nHost: %s%s%s:%u\r\n\r\n",
	             v6 ? "[" : "", a, v6 ? "]" : "", c->port, v6 ? "[" : "", a, v6 ? "]" : "",
	             c->port);
	if (n <= 0 || send(c->rfd, req, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n) {
		fail_dial(p, c, "the parent sandbox's proxy did not take the request", 502);
		return;
	}
	c->state = S_UPSTREAM;
	ep_mod(p, c->rfd, &c->rmask, EPOLLIN, &c->rt);
}

/* The parent's answer: its head only is taken (MSG_PEEK first), so that what the remote
 * sends at once (an ssh banner) stays for the relay. */
static void upstream_answer(struct sbx_netproxy *p, struct conn *c)
{
	char head[2048];
	ssize_t n = recv(c->rfd, head, sizeof(head) - 1, MSG_PEEK | MSG_DONTWAIT);
	char *end;

	if (n <= 0) {
		if (n == 0 || errno != EAGAIN)
			fail_dial(p, c, "the parent sandbox's proxy closed the connection", 502);
		return;
	}
	head[n] = '\0';
	end = strstr(head, "\r\n\r\n");
	if (!end) {
		if ((size_t)n >= sizeof(head) - 1)
			fail_dial(p, c, "the parent sandbox's proxy answered garbage", 502);
		return;
	}
	if (recv(c->rfd, head, (size_t)(end + 4 - head), MSG_DONTWAIT) != end + 4 - head) {
		fail_dial(p, c, "the parent sandbox's proxy answered garbage", 502);
		return;
	}
	if (strncmp(head, "HTTP/1.1 200", 12) != 0 && strncmp(head, "HTTP/1.0 200", 12) != 0) {
		head[strcspn(head, "\r\n")] = '\0';
		fail_dial(p, c, "the parent sandbox's proxy refused it", 502);
		return;
	}
	dialled(p, c);
}

static void on_conn(struct sbx_netproxy *p, struct conn *c, bool remote)
{
	if (c->state == S_RELAY) {
		relay(p, c);
		return;
	}
	if (!remote) {
		if (c->state != S_LOOKUP && c->state != S_DIAL && c->state != S_UPSTREAM)
			client_readable(p, c);
		return;
	}
	if (c->state == S_DIAL) {
		int e = 0;
		socklen_t el = sizeof(e);

		if (getsockopt(c->rfd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e) {
			epoll_ctl(p->ep, EPOLL_CTL_DEL, c->rfd, NULL);
			dial_next(p, c);
			return;
		}
		if (p->upstream_len) {
			upstream_ask(p, c);
			return;
		}
		dialled(p, c);
	} else if (c->state == S_UPSTREAM) {
		upstream_answer(p, c);
	}
}

/* One round of the event loop, waiting at most timeout ms (-1: until something comes); false
 * once told to stop (T_WAKE) or when the loop cannot go on. */
static bool step(struct sbx_netproxy *p, int timeout)
{
	{
		struct epoll_event ev[64];
		int n = epoll_wait(p->ep, ev, 64, timeout);

		if (n < 0 && errno != EINTR)
			return false;
		for (int i = 0; i < n; i++) {
			struct tag *t = ev[i].data.ptr;

			switch (t->type) {
			case T_WAKE:
				return false;
			case T_CHAN:
				on_chan(p);
				break;
			case T_TIMER:
				on_timer(p);
				break;
			case T_LISTEN: {
				struct listener *ls = container_of(t, struct listener, t);

				if (ls->role == SBX_NETNS_DNS_UDP)
					on_dns_udp(p, ls);
				else
					on_accept(p, ls);
				break;
			}
			case T_LOOKUP:
				lookup_readable(p, container_of(t, struct lookup, t));
				break;
			case T_CLIENT:
			case T_REMOTE: {
				struct conn *c = t->type == T_CLIENT
				                     ? container_of(t, struct conn, ct)
				                     : container_of(t, struct conn, rt);

				if (!c->dead)
					on_conn(p, c, t->type == T_REMOTE);
				break;
			}
			}
		}
		reap(p);
	}
	return true;
}

static void *loop(void *arg)
{
	struct sbx_netproxy *p = arg;
	sigset_t all;

	/* splice(2) to a closed peer raises SIGPIPE: kept pending on this thread, never sbx's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (step(p, -1))
		;
	return NULL;
}

int sbx_netproxy_pollfd(const struct sbx_netproxy *p)
{
	return p && p->started && p->inline_mode ? p->ep : -1;
}

void sbx_netproxy_service(struct sbx_netproxy *p)
{
	if (p && p->started && p->inline_mode)
		(void)step(p, 0);
}

int sbx_netproxy_start(struct sbx_netproxy *p, bool inline_mode, struct sbx_error *err)
{
	struct itimerspec its = {{1, 0}, {1, 0}};
	int r;

	if (p->chan[1] >= 0) {
		close(p->chan[1]);
		p->chan[1] = -1;
	}
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	p->chan_tag.type = T_CHAN;
	p->wake_tag.type = T_WAKE;
	p->timer_tag.type = T_TIMER;
	if (p->ep < 0 || p->wake < 0 || p->timer < 0 ||
	    timerfd_settime(p->timer, 0, &its, NULL) < 0 ||
	    (p->chan[0] >= 0 && ep_add(p, p->chan[0], EPOLLIN, &p->chan_tag) < 0) ||
	    ep_add(p, p->wake, EPOLLIN, &p->wake_tag) < 0 ||
	    ep_add(p, p->timer, EPOLLIN, &p->timer_tag) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot start the sandbox's proxy: %s", strerror(errno));
	/* the landlock backend's listeners, made before the launch (sbx_netproxy_listen_host) */
	for (size_t i = 0; i < p->n_ls; i++)
		if (ep_add(p, p->ls[i].fd, EPOLLIN, &p->ls[i].t) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot start the sandbox's proxy: %s",
			                     strerror(errno));
	{
		/* the pipes' budget, a share of the caller's pool (sbx/netpipe.h) */
		FILE *f = fopen("/proc/sys/fs/pipe-user-pages-soft", "re");
		unsigned long soft = 0;

		if (!f || fscanf(f, "%lu", &soft) != 1)
			soft = 0;
		if (f)
			fclose(f);
		p->pipe_budget = sbx_netpipe_budget(soft, (size_t)getpagesize());
	}
	/* six descriptors a tunnel (two sockets, two pipes): the soft limit up to the hard one
	 * (the sandbox, cloned already, keeps its own) */
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
		    rl.rlim_cur < 8 * SBX_NETPROXY_MAX_CONNS) {
			rl.rlim_cur = rl.rlim_max < 8 * SBX_NETPROXY_MAX_CONNS
			                  ? rl.rlim_max
			                  : 8 * SBX_NETPROXY_MAX_CONNS;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	if (inline_mode) {
		p->inline_mode = p->started = true;
		return 0;
	}
	r = pthread_create(&p->thread, NULL, loop, p);
	if (r != 0)
		return sbx_error_set(err, SBX_ERR_SETUP, r,
		                     "cannot start the sandbox's proxy thread: %s", strerror(r));
	p->started = true;
	return 0;
}

void sbx_netproxy_stop(struct sbx_netproxy *p)
{
	uint64_t one = 1;

	if (!p || !p->started)
		return;
	if (!p->inline_mode && write(p->wake, &one, sizeof(one)) == sizeof(one))
		pthread_join(p->thread, NULL);
	p->started = false;
	audit_net(p, NULL); /* what the cap dropped at the end */
	while (p->conns)
		conn_free(p, p->conns);
	reap(p);
	for (struct lookup *l = p->lookups; l; l = l->next) {
		struct dnsq *q = l->dwaiters;

		while (q) {
			struct dnsq *next = q->next;

			free(q);
			q = next;
		}
		l->dwaiters = NULL;
		if (l->fd >= 0)
			close(l->fd);
		l->fd = -1;
	}
	for (size_t i = 0; i < p->n_ls; i++)
		close(p->ls[i].fd);
	p->n_ls = 0;
}

void sbx_netproxy_learned(const struct sbx_netproxy *p, char *const **hosts, const bool **privates,
                          size_t *n)
{
	*hosts = p->learned;
	*privates = p->learned_private;
	*n = p->n_learned;
}

unsigned sbx_netproxy_refused_lookups(const struct sbx_netproxy *p)
{
	return p->refused_lookups;
}

void sbx_netproxy_free(struct sbx_netproxy *p)
{
	if (!p)
		return;
	sbx_netproxy_stop(p);
	/* listeners made but never served (a launch that failed first) */
	for (size_t i = 0; i < p->n_ls; i++)
		close(p->ls[i].fd);
	p->n_ls = 0;
	for (struct lookup *l = p->lookups, *next; l; l = next) {
		next = l->next;
		free(l);
	}
	for (size_t i = 0; i < p->n_refused; i++)
		free(p->refused[i]);
	free(p->refused);
	for (size_t i = 0; i < p->n_learned; i++)
		free(p->learned[i]);
	free(p->learned);
	free(p->learned_private);
	for (int i = 0; i < 2; i++)
		if (p->chan[i] >= 0)
			close(p->chan[i]);
	if (p->ep >= 0)
		close(p->ep);
	if (p->wake >= 0)
		close(p->wake);
	if (p->timer >= 0)
		close(p->timer);
	for (size_t i = 0; i < p->n_gate_refused; i++)
		free(p->gate_refused[i]);
	free(p->gate_refused);
	pthread_mutex_destroy(&p->lock);
	sbx_netpolicy_clear(&p->policy);
	free(p);
}

/* ---- the landlock backend: the proxy on the host's loopback ---- */

static int host_listener(unsigned *port, struct sbx_error *err)
{
	_cleanup_close_ int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);

	/* port 0: the kernel picks a free one; no SO_REUSEADDR, so that nothing else binds it
	 * while it listens */
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1024) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0)
		return sbx_error_set(
		    err, SBX_ERR_SETUP, errno,
		    "cannot listen on the host's 127.0.0.1 for the sandbox's proxy "
		    "(the landlock backend): %s",
		    strerror(errno));
	*port = ntohs(a.sin_port);
	return TAKE_FD(s);
}

int sbx_netproxy_listen_host(struct sbx_netproxy *p, unsigned *http_port, unsigned *socks_port,
                             struct sbx_error *err)
{
	static const int roles[] = {SBX_NETNS_HTTP, SBX_NETNS_SOCKS};
	unsigned ports[2];

	if (p->n_ls || p->started)
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: the proxy listens already");
	for (size_t i = 0; i < 2; i++) {
		int fd = host_listener(&ports[i], err);

		if (fd < 0) {
			for (size_t k = 0; k < p->n_ls; k++)
				close(p->ls[k].fd);
			p->n_ls = 0;
			return fd;
		}
		p->ls[p->n_ls].t.type = T_LISTEN;
		p->ls[p->n_ls].fd = fd;
		p->ls[p->n_ls].role = roles[i];
		p->n_ls++;
		listener_size(p, fd);
	}
	p->host_mode = true;
	*http_port = ports[0];
	*socks_port = ports[1];
	return 0;
}

void sbx_netproxy_gate_refused(struct sbx_netproxy *p, const char *what, const char *text)
{
	struct sbx_net_decision d = {.verdict = SBX_NETV_NOT_LISTED};
	struct sbx_net_event ev = {.via = "connect()", .d = &d, .allowed = false, .text = text};
	struct sbx_audit_net rec = {
	    .time_ms = wall_ms(),
	    .via = "connect()",
	    .host = what,
	    .allowed = false,
	    .reason = "not-the-proxy",
	};

	char host[SBX_NET_NAME_MAX + 3];
	const char *colon = strrchr(what, ':');
	char *end;
	unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;

	if (!p)
		return;
	snprintf(d.host, sizeof(d.host), "%s", what);
	/* "ADDR:PORT" or "[ADDR6]:PORT": the record's host and port apart */
	if (colon && port && port < 65536 && !*end) {
		const char *h = what[0] == '[' ? what + 1 : what;
		size_t n = (size_t)(colon - h) - (what[0] == '[' ? 1 : 0);

		snprintf(host, sizeof(host), "%.*s", (int)n, h);
		rec.host = host;
		rec.port = (unsigned)port;
	}
	audit_net(p, &rec);
	pthread_mutex_lock(&p->lock);
	ev.first_refusal =
	    remember(&p->gate_refused, &p->n_gate_refused, what, MAX_REFUSED, NULL, false);
	pthread_mutex_unlock(&p->lock);
	if (p->conf.on_event)
		p->conf.on_event(p->conf.ctx, &ev);
}

unsigned sbx_netproxy_strangers(const struct sbx_netproxy *p)
{
	return p ? p->strangers : 0;
}
