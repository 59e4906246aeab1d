/* SPDX-License-Identifier: MIT */
/*
 * The network's pieces of the CLI: the mode as YAML, and `sbx connect HOST PORT`, the
 * ProxyCommand sbx sets in GIT_SSH_COMMAND inside an allowlisted sandbox (BSD nc speaks no
 * SOCKS5 with names, and ssh itself no HTTP proxy): it asks the sandbox's HTTP proxy (found
 * in HTTP_PROXY or http_proxy) for a CONNECT tunnel, then relays stdin and stdout through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "os/fs.h"
#include "os/netproxy.h"
#include "os/supervisor.h"
#include "sbx/net.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

void sbx_cli_net_yaml(FILE *f, enum sbx_net_mode mode, const struct sbx_netpolicy *p)
{
	char e[SBX_NET_NAME_MAX + 8];

	if (mode != SBX_NET_ALLOW) {
		fputs(mode == SBX_NET_HOST ? "host" : mode == SBX_NET_LEARN ? "learn" : "none", f);
		return;
	}
	fputs("{allow: [", f);
	for (size_t i = 0; i < p->n_allow; i++) {
		sbx_net_rule_fmt(&p->allow[i], e, sizeof(e));
		if (p->allow[i].allow_private)
			fprintf(f, "%s{name: \"%s\", allow-private: true}", i ? ", " : "", e);
		else
			fprintf(f, "%s\"%s\"", i ? ", " : "", e);
	}
	fputs("]", f);
	if (p->n_deny) {
		fputs(", deny: [", f);
		for (size_t i = 0; i < p->n_deny; i++) {
			sbx_net_rule_fmt(&p->deny[i], e, sizeof(e));
			fprintf(f, "%s\"%s\"", i ? ", " : "", e);
		}
		fputs("]", f);
	}
	fputs("}", f);
}

/* http://127.0.0.1:PORT[/] or http://[::1]:PORT: the proxy sbx sets, on loopback only. */
static int proxy_addr(const char *url, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *p, *colon;
	long port;

	if (!url || strncmp(url, "http://", 7) != 0)
		return -EINVAL;
	p = url + 7;
	if (*p == '[') {
		const char *close = strchr(p, ']');

		if (!close || (size_t)(close - p - 1) >= sizeof(host) || close[1] != ':')
			return -EINVAL;
		memcpy(host, p + 1, (size_t)(close - p - 1));
		host[close - p - 1] = '\0';
		colon = close + 1;
	} else {
		colon = strchr(p, ':');
		if (!colon || (size_t)(colon - p) >= sizeof(host))
			return -EINVAL;
		memcpy(host, p, (size_t)(colon - p));
		host[colon - p] = '\0';
	}
	port = strtol(colon + 1, NULL, 10);
	if (port <= 0 || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		((struct sockaddr_in *)ss)->sin_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
	return -EINVAL;
}

static int relay(int s)
{
	char buf[65536];
	bool in_open = true, s_open = true;

	while (s_open) {
		struct pollfd p[2] = {{in_open ? 0 : -1, POLLIN, 0}, {s, POLLIN, 0}};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (p[0].revents) {
			ssize_t n = read(0, buf, sizeof(buf));

			if (n <= 0) {
				in_open = false;
				shutdown(s, SHUT_WR);
			} else
				for (ssize_t off = 0; off < n;) {
					ssize_t w =
					    send(s, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
					if (w <= 0)
						return 1;
					off += w;
				}
		}
		if (p[1].revents) {
			ssize_t n = recv(s, buf, sizeof(buf), 0);

			if (n <= 0)
				s_open = false;
			else
				for (ssize_t off = 0; off < n;) {
					ssize_t w = write(1, buf + off, (size_t)(n - off));
					if (w <= 0)
						return 1;
					off += w;
				}
		}
	}
	return 0;
}

int sbx_cmd_connect(int argc, char **argv)
{
	const char *url = getenv("HTTP_PROXY");
	struct sockaddr_storage ss;
	socklen_t slen = 0;
	_cleanup_close_ int s = -1;
	char req[600], head[4096];
	size_t got = 0;
	char *end = NULL;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts(
		    "Usage: sbx connect HOST PORT\n\nInside a sandbox with a network allowlist: "
		    "open a tunnel to HOST:PORT through the sandbox's proxy (HTTP_PROXY) and relay "
		    "stdin and stdout through it (ssh's ProxyCommand; sbx sets GIT_SSH_COMMAND to "
		    "use it).");
		return 0;
	}
	if (argc != 3 || strlen(argv[1]) > SBX_NET_NAME_MAX + 2 || strpbrk(argv[1], " \r\n")) {
		fputs("sbx connect: usage: sbx connect HOST PORT\n", stderr);
		return 125;
	}
	if (!url || !*url)
		url = getenv("http_proxy");
	if (proxy_addr(url, &ss, &slen) < 0) {
		fprintf(
		    stderr,
		    "sbx connect: HTTP_PROXY is %s%s%s, not the loopback proxy of an sbx sandbox "
		    "(http://127.0.0.1:PORT)\nsbx connect: hint: run it inside `sbx run --net "
		    "allow:...`\n",
		    url ? "'" : "", url ? sbx_cli_esc(url) : "unset", url ? "'" : "");
		return 125;
	}
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&ss, slen) < 0) {
		fprintf(stderr, "sbx connect: cannot reach the proxy at %s: %s\n", sbx_cli_esc(url),
		        strerror(errno));
		return 1;
	}
	{
		bool v6 = strchr(argv[1], ':') && argv[1][0] != '[';
		int n = snprintf(req, sizeof(req),
		                 "CONNECT %s%s%s:%s HTTP/1.1\r\nHost: %s%s%s:%s\r\n\r\n",
		                 v6 ? "[" : "", argv[1], v6 ? "]" : "", argv[2], v6 ? "[" : "",
		                 argv[1], v6 ? "]" : "", argv[2]);

		if (n < 0 || (size_t)n >= sizeof(req) ||
		    send(s, req, (size_t)n, MSG_NOSIGNAL) != n) {
			fprintf(stderr, "sbx connect: cannot send to the proxy: %s\n",
			        strerror(errno));
			return 1;
		}
	}
	/* read the answer's head byte by byte, so that nothing of the tunnel is taken */
	while (got + 1 < sizeof(head)) {
		ssize_t n = recv(s, head + got, 1, 0);

		if (n <= 0)
			break;
		got++;
		head[got] = '\0';
		if (got >= 4 && !memcmp(head + got - 4, "\r\n\r\n", 4)) {
			end = head + got;
			break;
		}
	}
	if (!end || strncmp(head, "HTTP/1.1 200", 12) != 0) {
		char *nl = strchr(head, '\r');
		const char *why = strstr(head, "X-Proxy-Error: ");

		if (nl)
			*nl = '\0';
		fprintf(stderr, "sbx connect: the proxy refused %s:%s: %s\n", sbx_cli_esc(argv[1]),
		        sbx_cli_esc(argv[2]), got ? sbx_cli_esc(head) : "no answer");
		if (why && nl)
			fprintf(stderr, "sbx connect: %.*s\n", (int)strcspn(why, "\r"), why);
		return 1;
	}
	return relay(s);
}

/* ---- sbx run's network (sbx(1), NETWORK) ---- */

/* What the worker's tools need to use the proxy. */
struct net_env {
	char http[64], socks[64], ssh[PATH_MAX + 64];
	struct {
		const char *name, *value;
	} e[10];
};

/* The ports as text: a number, or "PORT" where --dry-run shows a plan whose ports the
 * kernel picks at launch (0). */
static void net_env_ports(struct net_env *v, unsigned http_port, unsigned socks_port)
{
	char hp[16] = "PORT", sp[16] = "PORT";

	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t k = 0;

	if (n <= 0 || memchr(self, '\'', (size_t)n))
		snprintf(self, sizeof(self), "sbx");
	else
		self[n] = '\0';
	if (http_port)
		snprintf(hp, sizeof(hp), "%u", http_port);
	if (socks_port)
		snprintf(sp, sizeof(sp), "%u", socks_port);
	snprintf(v->http, sizeof(v->http), "http://127.0.0.1:%s", hp);
	snprintf(v->socks, sizeof(v->socks), "socks5h://127.0.0.1:%s", sp);
	/* ssh through `sbx connect`, which asks the HTTP proxy for a tunnel */
	snprintf(v->ssh, sizeof(v->ssh), "ssh -o 'ProxyCommand=%s connect %%h %%p'", self);
	v->e[k].name = "HTTP_PROXY", v->e[k++].value = v->http;
	v->e[k].name = "HTTPS_PROXY", v->e[k++].value = v->http;
	v->e[k].name = "ALL_PROXY", v->e[k++].value = v->socks;
	v->e[k].name = "NO_PROXY", v->e[k++].value = "localhost,127.0.0.1,::1";
	v->e[k].name = "http_proxy", v->e[k++].value = v->http;
	v->e[k].name = "https_proxy", v->e[k++].value = v->http;
	v->e[k].name = "all_proxy", v->e[k++].value = v->socks;
	v->e[k].name = "no_proxy", v->e[k++].value = "localhost,127.0.0.1,::1";
	/* Node's fetch ignores the variables without it (Node 22.21 and 24.5 on) */
	v->e[k].name = "NODE_USE_ENV_PROXY", v->e[k++].value = "1";
	v->e[k].name = "GIT_SSH_COMMAND", v->e[k++].value = v->ssh;
}

/* The namespaces backend's: fixed ports in the sandbox's own network namespace. */
static void net_env(struct net_env *v)
{
	net_env_ports(v, SBX_NET_HTTP_PORT, SBX_NET_SOCKS_PORT);
}

int sbx_cli_net_spec(struct sbx_spec *spec, bool top, struct sbx_error *err)
{
	/* systemd-resolved's varlink socket, nscd's, and the system bus, where resolved
	 * answers org.freedesktop.resolve1.ResolveHostname for anyone (and avahi its mDNS
	 * names): each would carry a name out */
	static const char *const resolver_sockets[] = {
	    "/run/systemd/resolve", "/run/nscd", "/var/run/nscd", "/run/dbus/system_bus_socket",
	    "/var/run/dbus/system_bus_socket"};
	struct net_env v = {0};
	int r = 0;

	if (spec->net == SBX_NET_HOST)
		return 0;
	/* a name looked up through the host's resolver daemon would leave the sandbox by a unix
	 * socket, which no network namespace stops: hidden wherever a mount shows them. Only
	 * where they exist, at their own path (/var/run is a symlink to /run on most hosts:
	 * hiding /run/nscd covers it, and a mask is never made through a symlink) */
	for (size_t i = 0;
	     top && r >= 0 && i < sizeof(resolver_sockets) / sizeof(*resolver_sockets); i++) {
		char real[PATH_MAX];

		if (realpath(resolver_sockets[i], real) && strcmp(real, resolver_sockets[i]) == 0)
			r = sbx_spec_add_hide(spec, resolver_sockets[i], err);
	}
	if (r < 0 || spec->net < SBX_NET_ALLOW)
		return r;
	net_env(&v);
	for (size_t i = 0; r >= 0 && i < sizeof(v.e) / sizeof(v.e[0]); i++)
		r = sbx_spec_add_env(spec, v.e[i].name, v.e[i].value, err);
	return r;
}

static int plan_env(struct sbx_plan *plan, unsigned http_port, unsigned socks_port,
                    struct sbx_error *err)
{
	struct net_env v = {0};

	net_env_ports(&v, http_port, socks_port);
	for (size_t i = 0; i < sizeof(v.e) / sizeof(v.e[0]); i++) {
		size_t n = strlen(v.e[i].name), at = plan->n_env;
		char *entry, **grown;

		if (asprintf(&entry, "%s=%s", v.e[i].name, v.e[i].value) < 0)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		for (size_t j = 0; j < plan->n_env; j++)
			if (!strncmp(plan->envp[j], v.e[i].name, n) && plan->envp[j][n] == '=')
				at = j;
		if (at < plan->n_env) {
			free(plan->envp[at]);
			plan->envp[at] = entry;
			continue;
		}
		grown = realloc(plan->envp, (plan->n_env + 2) * sizeof(*grown));
		if (!grown) {
			free(entry);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		plan->envp = grown;
		plan->envp[plan->n_env++] = entry;
		plan->envp[plan->n_env] = NULL;
	}
	return 0;
}

int sbx_cli_net_plan_env(struct sbx_plan *plan, struct sbx_error *err)
{
	return plan_env(plan, SBX_NET_HTTP_PORT, SBX_NET_SOCKS_PORT, err);
}

/* The port of a proxy URL sbx set (http://127.0.0.1:PORT, socks5h://127.0.0.1:PORT), or 0. */
static unsigned url_port(const char *url, const char *scheme)
{
	size_t n = strlen(scheme);
	char *end;
	unsigned long port;

	if (!url || strncmp(url, scheme, n) != 0 || strncmp(url + n, "127.0.0.1:", 10) != 0)
		return 0;
	port = strtoul(url + n + 10, &end, 10);
	return port && port < 65536 && (*end == '\0' || *end == '/') ? (unsigned)port : 0;
}

int sbx_cli_net_plan_env_inherited(struct sbx_plan *plan, struct sbx_error *err)
{
	unsigned http = url_port(getenv("HTTP_PROXY"), "http://"),
	         socks = url_port(getenv("ALL_PROXY"), "socks5h://");
	int r;

	if (!http || !socks) {
		r = sbx_error_set(
		    err, SBX_ERR_UNSUPPORTED, ENOENT,
		    "this sandbox's network is an allowlist on the landlock backend, "
		    "and HTTP_PROXY or ALL_PROXY no longer names its proxy on the "
		    "host's loopback (http://127.0.0.1:PORT, socks5h://127.0.0.1:PORT)");
		sbx_error_hint(err,
		               "run the sub-sandbox with the environment sbx gave this one, or "
		               "with --net none");
		return r;
	}
	return plan_env(plan, http, socks, err);
}

int sbx_cli_net_host_dry(struct sbx_plan *plan, struct sbx_error *err)
{
	if (!plan->backend_landlock || !plan->new_net || plan->net < SBX_NET_ALLOW)
		return 0;
	return plan_env(plan, 0, 0, err);
}

int sbx_cli_net_host(struct sbx_plan *plan, struct sbx_netproxy *p, struct sbx_supervisor *sup,
                     struct sbx_error *err)
{
	unsigned http, socks;
	int r;

	if (!plan->backend_landlock || !plan->new_net || plan->net < SBX_NET_ALLOW)
		return 0;
	/* fail closed: without the supervisor nothing would check a connect's address */
	if (!p || !sup || !(plan->sup.families & SBX_SUP_F_CONNECT))
		return sbx_error_set(err, SBX_ERR_SETUP, EINVAL,
		                     "internal: the landlock backend's allowlist without its proxy "
		                     "or its supervisor");
	r = sbx_netproxy_listen_host(p, &http, &socks, err);
	if (r < 0)
		return r;
	plan->landlock.connect_ports[0] = http;
	plan->landlock.connect_ports[1] = socks;
	plan->landlock.n_connect_ports = 2;
	sbx_supervisor_set_net(sup, p, http, socks);
	return plan_env(plan, http, socks, err);
}

struct net_ctx {
	bool verbose;
	unsigned lines; /* refused hosts named on stderr */
	int learn_fd;   /* --net-learn-out, opened before the run (the worker may plant a symlink
	                   on the way during it), written after; -1: none */
};

#define NET_LINES_MAX 32u /* beyond, one line says the rest is in the audit log */

static void on_net_event(void *ctx, const struct sbx_net_event *ev)
{
	struct net_ctx *c = ctx;

	/* one line per distinct refused host (a worker asking random names gets a few dozen,
	 * then one line); every decision with --verbose */
	if (!ev->allowed && ev->first_refusal && ev->text &&
	    (c->verbose || c->lines < NET_LINES_MAX)) {
		fprintf(stderr, "%s\n", sbx_cli_esc(ev->text));
		c->lines++;
	} else if (!ev->allowed && ev->first_refusal && c->lines++ == NET_LINES_MAX)
		fputs("sbx: network: more hosts were refused; they are not named here (see the "
		      "audit log, or --verbose)\n",
		      stderr);
	else if (c->verbose)
		fprintf(stderr, "sbx: network: %s %s %s%s%u%s%s\n", ev->allowed ? "allow" : "deny",
		        ev->via, sbx_cli_esc(ev->d->host), ev->port ? ":" : "", ev->port,
		        ev->addr ? " -> " : "", ev->addr ? ev->addr : "");
}

static struct net_ctx net_ctx;

int sbx_cli_net_open(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                     struct sbx_audit *audit, struct sbx_netproxy **out, struct sbx_error *err)
{
	int r;
	struct sbx_netproxy_conf conf = {
	    .mode = plan->net == SBX_NET_HOST ? SBX_NET_NONE : plan->net,
	    .policy = &run->spec->netpol,
	    .upstream = getenv(SBX_NETPROXY_RESOLVER_ENV),
	    /* nested: out through the parent's proxy (and, by its /etc/resolv.conf, which
	     * names it, resolved by the parent's resolver) */
	    .upstream_proxy = run->net_chained ? "127.0.0.1:3128" : NULL,
	    .on_event = on_net_event,
	    .ctx = &net_ctx,
	    .audit = audit,
	};

	*out = NULL;
	net_ctx.learn_fd = -1;
	/* the landlock backend's --net none has no resolver (no UDP); its allowlist a proxy
	 * on the host's loopback (sbx_cli_net_host) */
	if (!plan->new_net || (plan->backend_landlock && plan->net < SBX_NET_ALLOW))
		return 0;
	net_ctx.verbose = run->verbose;
	if (plan->net == SBX_NET_LEARN && run->net_learn_out) {
		/* now, before the worker runs, and no symbolic link followed on the path: what a
		 * worker plants on the way (a symlinked directory, a FIFO), in this run or an
		 * earlier one, cannot redirect or hang the write at the end; a regular file only */
		struct stat st;
		int fd =
		    sbx_fs_open_output(run->net_learn_out, O_WRONLY | O_CREAT | O_NONBLOCK, 0644);

		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			int e = fd < 0 ? -fd : EINVAL;

			if (fd >= 0)
				close(fd);
			r = sbx_error_set(
			    err, SBX_ERR_USAGE, e,
			    "--net-learn-out %s: cannot open it as a regular file: %s",
			    sbx_cli_esc(run->net_learn_out),
			    e == ELOOP ? "a symbolic link on its path is not followed"
			               : strerror(e));
			sbx_error_hint(err,
			               "name a regular file by its real path (realpath -m shows "
			               "it): sbx follows no symbolic link there");
			return r;
		}
		net_ctx.learn_fd = fd;
	}
	return sbx_netproxy_new(&conf, out, err);
}

void sbx_cli_net_close(const struct sbx_cli_run *run, const struct sbx_plan *plan,
                       struct sbx_netproxy *p, bool ran, int status)
{
	if (!p)
		return;
	sbx_netproxy_stop(p);
	if (ran && plan->net == SBX_NET_LEARN) {
		char *const *hosts;
		const bool *priv;
		size_t n;
		char text[65536];
		size_t len;

		sbx_netproxy_learned(p, &hosts, &priv, &n);
		len = sbx_net_learn_text(hosts, priv, n, text, sizeof(text));
		fprintf(stderr,
		        "sbx: --net learn: the network this run needed, for its profile:\n%s",
		        text);
		if (net_ctx.learn_fd >= 0 &&
		    (ftruncate(net_ctx.learn_fd, 0) < 0 ||
		     pwrite(net_ctx.learn_fd, text, len < sizeof(text) ? len : sizeof(text) - 1,
		            0) < 0))
			fprintf(stderr, "sbx: warning: cannot write %s: %s\n",
			        sbx_cli_esc(run->net_learn_out), strerror(errno));
	}
	/* the landlock backend's proxy on the host's loopback: someone else knocked */
	if (sbx_netproxy_strangers(p))
		fprintf(stderr,
		        "sbx: network: %u connection%s to the sandbox's proxy from outside the "
		        "sandbox (another process of the host) %s refused\n",
		        sbx_netproxy_strangers(p), sbx_netproxy_strangers(p) == 1 ? "" : "s",
		        sbx_netproxy_strangers(p) == 1 ? "was" : "were");
	if (ran && plan->net == SBX_NET_NONE && status != 0 && sbx_netproxy_refused_lookups(p))
		fprintf(stderr,
		        "sbx: note: the sandbox has no network (--net none, the default): %u name "
		        "lookup%s refused; to allow a host: --net allow:HOST (profile key network: "
		        "{allow: [HOST]}), or --net learn to find which hosts the command needs\n",
		        sbx_netproxy_refused_lookups(p),
		        sbx_netproxy_refused_lookups(p) == 1 ? " was" : "s were");
	if (net_ctx.learn_fd >= 0)
		close(net_ctx.learn_fd);
	net_ctx.learn_fd = -1;
	sbx_netproxy_free(p);
}
