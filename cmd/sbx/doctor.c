/* SPDX-License-Identifier: MIT */
/* sbx doctor: what this kernel and system allow, which backend sbx will use, and for each
 * missing piece, its fix. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sbx/landlock.h"
#include "os/sysprobe.h"
#include "os/userns.h"

static const char doctor_usage[] =
    "Usage: sbx doctor\n"
    "\n"
    "Say what this kernel and system allow (user namespaces and what blocks them, Landlock\n"
    "ABI, seccomp and user notification, the new mount API, cgroup v2 delegation, a\n"
    "container or WSL) and which backend 'sbx run' will use; each missing piece with its\n"
    "fix. Exit status: 0 if a backend can enforce the default profile fully, 1 otherwise.\n";

static void item(const char *what, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void item(const char *what, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%-4s %-16s ", ok ? "ok" : "--", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void fix(const char *text)
{
	printf("     %-16s fix: %s\n", "", text);
}

int sbx_cmd_doctor(int argc, char **argv)
{
	struct sbx_system_facts f;
	struct sbx_error why = {0};
	bool userns, landlock_full, landlock_backend_ok;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(doctor_usage, stdout);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr,
		        "sbx: doctor takes no arguments (got '%s'); see 'sbx doctor "
		        "--help'\n",
		        sbx_cli_esc(argv[1]));
		return 125;
	}
	sbx_probe_system(&f);
	userns = f.userns_errno == 0;
	printf("sbx doctor: Linux %s, running as uid %u\n\n", sbx_cli_esc(f.kernel), f.euid);

	/* Where sbx runs. */
	if (f.container[0])
		item("container", false,
		     "running inside %s: user namespaces are often denied there",
		     sbx_cli_esc(f.container));
	else
		item("container", true, "none detected%s",
		     f.hypervisor ? " (a virtual machine with its own kernel)" : "");
	if (f.container_note[0])
		printf("     %-16s %s\n", "", sbx_cli_esc(f.container_note));
	if (f.wsl)
		item("WSL", false,
		     "running under WSL: Landlock and user namespaces depend on its "
		     "kernel (WSL 2 with a recent kernel has both)");

	/* User namespaces, and what blocks them. */
	if (userns) {
		item("user namespaces", true, "can be created (max_user_namespaces %ld)",
		     f.max_user_namespaces);
	} else {
		sbx_userns_explain(f.userns_errno, false, &why);
		item("user namespaces", false, "%s", sbx_cli_esc(why.msg));
		if (why.hint[0])
			fix(sbx_cli_esc(why.hint));
		if (!f.proc_sys_readable)
			item("/proc/sys", false,
			     "masked or unreadable (as in a container): sbx cannot "
			     "read user.max_user_namespaces");
		if (f.apparmor_restrict == 1)
			fix("AppArmor: 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0', "
			    "or "
			    "an AppArmor profile for sbx with 'userns,' (Ubuntu 24.04)");
		if (f.seccomp_mode == 2)
			fix("this process already runs under a seccomp filter (a container's "
			    "profile "
			    "denying unshare/clone?): run the container with a profile that allows "
			    "user namespaces, or run sbx on the host");
	}
	if (f.seccomp_mode == 2 && userns)
		item("seccomp (caller)", true,
		     "sbx already runs under a seccomp filter; it stacks "
		     "its own");

	/* Landlock. */
	landlock_full = f.landlock_abi >= SBX_LL_ABI_KNOWN;
	if (f.landlock_abi < 1) {
		item("Landlock", false, "%s",
		     f.landlock_abi == -EOPNOTSUPP
		         ? "built into this kernel but not enabled"
		         : "not in this kernel (CONFIG_SECURITY_LANDLOCK)");
		fix("boot with 'landlock' in lsm= (e.g. lsm=landlock,lockdown,yama,apparmor,bpf); "
		    "without it sbx refuses per-operation policies unless --best-effort");
	} else {
		item("Landlock", f.landlock_abi >= 6, "ABI %d%s", f.landlock_abi,
		     landlock_full ? " (all sbx uses)" : "");
		for (size_t i = 0; i < sbx_ll_n_abi_steps; i++)
			if (sbx_ll_abi_steps[i].abi > f.landlock_abi)
				printf("     %-16s lacks ABI %d (Linux %s): %s\n", "",
				       sbx_ll_abi_steps[i].abi, sbx_ll_abi_steps[i].since,
				       sbx_ll_abi_steps[i].lacks);
		if (!landlock_full)
			fix("a newer kernel; meanwhile --best-effort runs with those parts "
			    "unenforced (or stricter, for REFER)");
	}

	/* seccomp. */
	item("seccomp", f.seccomp_actions_known, "%s",
	     f.seccomp_actions_known ? "filters available" : "no seccomp actions listed");
	item("seccomp notify", f.seccomp_user_notif, "%s",
	     f.seccomp_user_notif ? "user notification available (approvals)"
	                          : "no user notification: approvals ('ask') cannot work");
	if (!f.seccomp_user_notif)
		fix("Linux 5.5 or newer with CONFIG_SECCOMP_FILTER");

	/* The new mount API. */
	item("mount API", f.mount_api, "%s",
	     f.mount_api ? "open_tree and mount_setattr available"
	                 : "open_tree/mount_setattr missing: the namespaces backend cannot "
	                   "build its mounts");
	if (!f.mount_api)
		fix("Linux 5.12 or newer");

	/* cgroup v2. */
	if (!f.cgroup2) {
		item("cgroup v2", false, "not mounted at /sys/fs/cgroup (limits: see below)");
		fix("boot with systemd.unified_cgroup_hierarchy=1");
	} else {
		item("cgroup v2", f.cgroup_delegated, "%s %s", f.cgroup,
		     f.cgroup_delegated ? "is delegated to this user (memory, pids, cpu limits)"
		                        : "is not writable: memory/pids/cpu limits are refused "
		                          "(or warned with --best-effort)");
		if (!f.cgroup_delegated)
			fix("run sbx as root, or in a delegated scope: 'systemd-run --user --scope "
			    "-p "
			    "Delegate=yes sbx run ...'");
	}

	/* Limits: which this host can enforce, found by trying (limits_cli.c). */
	sbx_cli_doctor_limits();

	/* The verdict. */
	landlock_backend_ok = f.landlock_abi >= 6;
	putchar('\n');
	if (userns) {
		printf(
		    "backend: namespaces (user, mount, pid, ipc, uts, cgroup, net namespaces%s)\n",
		    f.landlock_abi >= 1 ? ", plus Landlock" : "; NO Landlock");
		return f.landlock_abi >= 1 ? 0 : 1;
	}
	if (why.kind != SBX_ERR_UNSUPPORTED) {
		/* a passing shortage: sbx run refuses rather than take the weaker backend */
		printf("backend: none right now: user namespaces are short, not off, so 'sbx run' "
		       "refuses (exit 125) until they can be made again, rather than fall back to "
		       "the landlock backend (choose it with --backend landlock)\n");
		return 1;
	}
	printf("backend: landlock (no user namespaces here): Landlock ABI %d alone, in the "
	       "caller's mount namespace\n",
	       f.landlock_abi);
	if (!landlock_backend_ok) {
		printf(
		    "  it needs Landlock ABI 6 (TCP rules, scopes); this kernel cannot confine the "
		    "worker without namespaces: sbx refuses unless --best-effort\n");
		return 1;
	}
	printf(
	    "  compiled stricter than the namespaces backend (not refused):\n"
	    "  - hidden paths are denied (EACCES), not masked; the directories above them are\n"
	    "    carved into a rule per entry, and new files directly in them cannot be read\n"
	    "  - a private tmpfs denies the host's directory instead\n"
	    "  - --net none denies every socket but AF_UNIX, and connect(2): no loopback\n"
	    "  - network allowlists (--net allow:..., learn): TCP sockets only (no UDP, MPTCP,\n"
	    "    raw, TCP Fast Open, listen), every connect(2) made by sbx's supervisor, only\n"
	    "    to its proxy's ports on 127.0.0.1 (Landlock's TCP rules name those ports)\n"
	    "  - no new unix socket (socket(AF_UNIX) denied; socketpair stays): Landlock does\n"
	    "    not guard the host's unix sockets bound to a path (docker.sock, a session bus)\n"
	    "  what it gives up:\n"
	    "  - pid, ipc and uts isolation; mounts elsewhere than at their own path; --root\n"
	    "  - stat(2) of denied paths, and metadata changes (chmod, utimes) of granted files\n"
	    "  - with a network allowlist or learning (--net allow:..., --net learn,\n"
	    "    claude-agent's network:): no network namespace, so sbx's proxy listens on the\n"
	    "    host's loopback (ports picked at launch, named by HTTP_PROXY and ALL_PROXY;\n"
	    "    it serves only the connections sbx made for the worker); no resolver inside:\n"
	    "    every name lookup fails at once, tools must use the proxy variables; it needs\n"
	    "    the supervisor (refused where a parent sandbox supervises already)\n");
	return 1;
}
