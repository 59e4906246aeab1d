/* SPDX-License-Identifier: MIT */
/*
 * The Landlock ABI table (what each ABI adds, what is lost without it, since which Linux),
 * the layer as data (sbx_ll_plan_clear), the negotiation of a compiled plan down to the
 * kernel's ABI, the scopes-only layer, and what the landlock backend cannot give whatever the
 * profile (pure). This file calls nothing of the plan or the policies, so the plan can free
 * its Landlock layer without depending on the compile, which reads the plan and the
 * policies: policy.c -> plan.c -> landlock_abi.c, and landlock_compile.c -> both, one way.
 */
#include "sbx/landlock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/policy.h"

#include "landlock_priv.h"

const struct sbx_ll_abi_step sbx_ll_abi_steps[] = {
    {1,
     SBX_LL_FS_EXECUTE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR |
         FS_REMOVE | SBX_LL_FS_MAKE_CHAR | FS_MAKE | SBX_LL_FS_MAKE_BLOCK,
     0, 0, "Landlock itself: no per-operation file rights at all", "5.13"},
    {2, SBX_LL_FS_REFER, 0, 0,
     "moves and links across directories (REFER): always refused with EXDEV", "5.19"},
    {3, SBX_LL_FS_TRUNCATE, 0, 0,
     "truncation (TRUNCATE): truncate(2) and O_TRUNC are not restricted by Landlock", "6.2"},
    {4, 0, SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP, 0,
     "TCP bind and connect rules (the landlock backend's --net none relies on seccomp)", "6.7"},
    {5, SBX_LL_FS_IOCTL_DEV, 0, 0,
     "device ioctls (IOCTL_DEV): ioctl(2) on device files is not restricted", "6.10"},
    {6, 0, 0, SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL,
     "scopes: abstract unix sockets and signals outside the sandbox are not restricted", "6.12"},
    {7, 0, 0, 0, "audit logging flags (nothing enforced is lost)", "6.15"},
};
const size_t sbx_ll_n_abi_steps = SBX_ARRAY_SIZE(sbx_ll_abi_steps);

uint64_t sbx_ll_fs_for_abi(int abi)
{
	uint64_t m = 0;

	for (size_t i = 0; i < sbx_ll_n_abi_steps && sbx_ll_abi_steps[i].abi <= abi; i++)
		m |= sbx_ll_abi_steps[i].fs;
	return m;
}

uint64_t sbx_ll_net_for_abi(int abi)
{
	uint64_t m = 0;

	for (size_t i = 0; i < sbx_ll_n_abi_steps && sbx_ll_abi_steps[i].abi <= abi; i++)
		m |= sbx_ll_abi_steps[i].net;
	return m;
}

uint64_t sbx_ll_scoped_for_abi(int abi)
{
	uint64_t m = 0;

	for (size_t i = 0; i < sbx_ll_n_abi_steps && sbx_ll_abi_steps[i].abi <= abi; i++)
		m |= sbx_ll_abi_steps[i].scoped;
	return m;
}

void sbx_ll_plan_clear(struct sbx_ll_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_rules; i++)
		free(p->rules[i].path);
	free(p->rules);
	for (size_t i = 0; i < p->n_inexact; i++)
		free(p->inexact[i]);
	free(p->inexact);
	free(p->lost);
	memset(p, 0, sizeof(*p));
}

int sbx_ll_negotiate(struct sbx_ll_plan *p, int abi, bool landlock_backend, bool best_effort,
                     char *warn, size_t size, struct sbx_error *err)
{
	size_t len = 0;
	int r;

	if (size)
		warn[0] = '\0';
	if (!p->enabled)
		return 0;
	if (abi > SBX_LL_ABI_KNOWN)
		abi = SBX_LL_ABI_KNOWN; /* newer rights are not asked for: nothing to mask */
	for (size_t i = 0; i < sbx_ll_n_abi_steps; i++) {
		const struct sbx_ll_abi_step *s = &sbx_ll_abi_steps[i];
		bool needed;

		if (s->abi <= abi)
			continue;
		/* Is anything the profile asks lost without this ABI? Without REFER moves across
		 * directories are refused (stricter); without IOCTL_DEV nothing opens a device
		 * that no rule grants anyway; ABI 7 enforces nothing more. Scopes matter only
		 * where no namespace separates the worker. */
		switch (s->abi) {
		case 1:
			needed = p->needed_fs != 0;
			break;
		case 3:
			needed = (p->needed_fs & SBX_LL_FS_TRUNCATE) != 0;
			break;
		case 4:
			/* The TCP rules are asked only by the landlock backend's --net none, whose
			 * seccomp filter denies every socket but AF_UNIX, and connect(2), anyway:
			 * without them the network stays closed. */
			needed = false;
			break;
		case 6:
			needed = landlock_backend && p->scoped;
			break;
		default:
			needed = false;
			break;
		}
		if (needed && !best_effort) {
			r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			                  "this kernel's Landlock (ABI %d) lacks ABI %d: %s",
			                  abi < 0 ? 0 : abi, s->abi, s->lacks);
			sbx_error_hint(err,
			               "use Linux %s or newer with 'landlock' in the lsm= boot "
			               "parameter (Landlock ABI %d), or pass --best-effort to run "
			               "with this part unenforced",
			               s->since, s->abi);
			return r;
		}
		if (needed && size > len) {
			int n = snprintf(warn + len, size - len,
			                 "NOT ENFORCED: ABI %d missing (kernel has %d): %s\n",
			                 s->abi, abi < 0 ? 0 : abi, s->lacks);

			if (n > 0)
				len += (size_t)n < size - len ? (size_t)n : size - len - 1;
		}
		if (s->abi == 1) {
			/* No Landlock: the mounts alone enforce what they can; nothing needed
			 * it, or best-effort accepted the loss. */
			p->enabled = false;
			return 0;
		}
	}
	p->abi = abi;
	p->handled_fs &= sbx_ll_fs_for_abi(abi);
	p->handled_net &= sbx_ll_net_for_abi(abi);
	p->scoped &= sbx_ll_scoped_for_abi(abi);
	for (size_t i = 0; i < p->n_rules; i++) {
		p->rules[i].access &= p->handled_fs;
		p->rules[i].full &= p->handled_fs;
	}
	/* A scopes-only ruleset on a kernel without scopes handles nothing, which the kernel
	 * refuses (ENOMSG): there is nothing to enforce. */
	if (!p->handled_fs && !p->handled_net && !p->scoped) {
		p->enabled = false;
		p->off = "this kernel's Landlock has no scopes (ABI 6, Linux 6.12), and the mounts "
		         "enforce every file right by themselves";
	}
	return 0;
}

void sbx_ll_scopes_only(struct sbx_ll_plan *p)
{
	for (size_t i = 0; i < p->n_rules; i++)
		free(p->rules[i].path);
	free(p->rules);
	p->rules = NULL;
	p->n_rules = 0;
	for (size_t i = 0; i < p->n_inexact; i++)
		free(p->inexact[i]);
	free(p->inexact);
	p->inexact = NULL;
	p->n_inexact = 0;
	p->handled_fs = 0;
	p->needed_fs = 0;
	p->handled_net = 0;
	p->scoped = SBX_LL_SCOPE_ABSTRACT_UNIX | SBX_LL_SCOPE_SIGNAL;
	p->enabled = true;
	p->off = NULL;
}

/* What the landlock backend never gives, whatever the profile. */
static const char *const always_lost[] = {
    "no pid, ipc, uts or mount namespace: the worker sees the host's processes in /proc "
    "(signals and ptrace to them are scoped by Landlock, ABI 6; seccomp denies the calls "
    "that change another process's limits, priority or scheduling) and shares System V IPC "
    "(seccomp denies it unless the profile allows @sysvipc)",
    "denied is not absent: every host path can still be stat(2)ed, as Landlock does not "
    "control it",
    "modes, times, inode flags and the removal of extended attributes (a POSIX ACL) are "
    "not controlled by Landlock, granted or not: where the supervisor runs it refuses them "
    "outside the writable mounts (its line below); where it cannot (a parent sandbox "
    "supervises already, or the kernel has no user notification) a worker may change them "
    "on any file its uid owns anywhere on the host, even where writes are denied (as "
    "root seccomp denies chmod, chown, removing extended attributes and setting inode "
    "flags outright, since root owns the system; writing extended attributes is denied in "
    "every sandbox): read-only is weaker than a read-only mount",
    "inotify and fanotify watches are not controlled by Landlock: a worker can watch a "
    "directory it may not list and learn the names of what is created, opened or written "
    "there",
    "no pid namespace: sbx's reaper, a child subreaper between sbx and the worker, kills "
    "every process the worker started when the worker ends or sbx does (SIGKILL of sbx "
    "included), sessions of their own too; a worker that kills the reaper first (its uid "
    "may, where Landlock cannot scope signals: ABI 5 and older) leaves what it started "
    "running, with the worker's rights; the namespaces backend's pid namespace has no such "
    "gap",
    "no private /tmp or /dev/shm: the host's are shared with every process there, so they "
    "are not granted (mount a directory of your own with -v DIR and set TMPDIR to it); no "
    "new pseudo-terminals (the host's /dev/pts is not granted; the one sbx gives the worker "
    "with -t, or when stdin is a terminal, comes from the host's /dev/ptmx)",
    "/proc is the host's: its kernel settings and state are not masked (they stay read-only "
    "to Landlock)",
    "no new unix socket (seccomp denies socket(AF_UNIX) and datagram socketpair(2); stream "
    "pairs stay): Landlock ABI "
    "7 does not guard a unix socket bound to a path, and the caller's mount namespace has "
    "the host's (a container engine's, a session bus); ssh-agent, D-Bus or X11 clients fail",
};

static void add_line(char *buf, size_t size, size_t *len, const char *prefix, const char *s)
{
	int n;

	if (*len >= size)
		return;
	n = snprintf(buf + *len, size - *len, "%s%s\n", prefix, s);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

int sbx_ll_backend_check(const struct sbx_spec *spec, const struct sbx_plan *plan, bool best_effort,
                         char *lost, size_t size, struct sbx_error *err)
{
	size_t len = 0;
	char line[512];
	int r;

	(void)best_effort; /* nothing below is refused that best-effort could accept */
	if (size)
		lost[0] = '\0';
	if (spec->root) {
		r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
		                  "the landlock backend cannot show %s at / (root mode needs a "
		                  "mount namespace)",
		                  spec->root);
		sbx_error_hint(err,
		               "use same-path mounts (-v DIR) without --root, or run where user "
		               "namespaces are allowed (see 'sbx doctor')");
		return r;
	}
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *m = &spec->mounts[i];

		if (m->kind != SBX_MOUNT_TMPFS && strcmp(m->source, m->target) != 0) {
			r = sbx_error_set(
			    err, SBX_ERR_UNSUPPORTED, EOPNOTSUPP,
			    "the landlock backend cannot show %s at %s: without a mount "
			    "namespace a path is only seen where it is",
			    m->source, m->target);
			sbx_error_hint(err,
			               "mount it at its own path (-v %s), or run where user "
			               "namespaces are allowed (see 'sbx doctor')",
			               m->source);
			return r;
		}
	}
	/* What the namespaces backend gives and this one compiles stricter: said, not
	 * refused (docs/design.md, The model (policies): stricter, never looser). */
	for (size_t i = 0; i < spec->n_mounts; i++)
		if (spec->mounts[i].kind == SBX_MOUNT_TMPFS) {
			snprintf(
			    line, sizeof(line),
			    "private tmpfs (%s%s): the host's directory is denied instead, and "
			    "nothing is created there",
			    spec->mounts[i].target, i + 1 < spec->n_mounts ? ", ..." : "");
			add_line(lost, size, &len, "STRICTER: ", line);
			break;
		}
	if (spec->n_hide || spec->n_hide_globs) {
		snprintf(line, sizeof(line),
		         "hiding (%s%s): denied (EACCES), not masked; the directories above are "
		         "carved into a rule per entry, and entries created later directly in them "
		         "cannot be read",
		         spec->n_hide ? spec->hide[0] : spec->hide_globs[0],
		         spec->n_hide + spec->n_hide_globs > 1 ? ", ..." : "");
		add_line(lost, size, &len, "STRICTER: ", line);
	}
	if (plan->new_net && plan->net >= SBX_NET_ALLOW) {
		/* the allowlist without a network namespace (sbx(1), NETWORK) */
		add_line(
		    lost, size, &len, "",
		    "--net allowlist: no network namespace: sbx's proxy listens on the host's "
		    "loopback (127.0.0.1, HTTP and SOCKS5 on ports the kernel picks at launch; "
		    "HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name them), where it accepts only "
		    "the connections sbx's supervisor made for the worker");
		add_line(lost, size, &len, "",
		         "--net allowlist: no resolver inside: /etc/resolv.conf is the host's and "
		         "UDP is denied, so every name lookup of the worker fails at once; tools "
		         "must use the proxy variables (the proxy resolves and vets allowed names "
		         "itself: socks5h, not socks5), and a tool that resolves before it "
		         "connects (dig, ssh without sbx connect, Node's dns.lookup) fails");
		add_line(lost, size, &len, "",
		         "--net allowlist: TCP sockets only (AF_INET, AF_INET6), and every "
		         "connect(2) is made by sbx's supervisor, only to the proxy's ports on "
		         "127.0.0.1 (Landlock's TCP rules name the same ports, bind none); UDP, "
		         "MPTCP, raw and packet sockets, TCP Fast Open and listen(2) are denied");
	} else if (plan->new_net) {
		add_line(lost, size, &len, "STRICTER: ",
		         "--net none: no loopback either (Landlock denies TCP bind and connect, "
		         "seccomp every socket but AF_UNIX, and connect(2))");
	}
	for (size_t i = 0; i < SBX_ARRAY_SIZE(always_lost); i++)
		add_line(lost, size, &len, "", always_lost[i]);
	return 0;
}
