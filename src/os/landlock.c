/* SPDX-License-Identifier: MIT */
/*
 * Landlock: the ABI this kernel speaks, and enforcing a negotiated struct sbx_ll_plan on the
 * calling process. Runs in the worker (a vfork child): no allocation, system calls only.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock_compat.h"
#include "os.h"
#include "sbx/landlock.h"

/* Our bit values are the kernel's: a mismatch would grant the wrong rights. */
_Static_assert(SBX_LL_FS_EXECUTE == LANDLOCK_ACCESS_FS_EXECUTE, "fs bits");
_Static_assert(SBX_LL_FS_READ_DIR == LANDLOCK_ACCESS_FS_READ_DIR, "fs bits");
_Static_assert(SBX_LL_FS_MAKE_SYM == LANDLOCK_ACCESS_FS_MAKE_SYM, "fs bits");
_Static_assert(SBX_LL_FS_REFER == LANDLOCK_ACCESS_FS_REFER, "fs bits");
_Static_assert(SBX_LL_FS_TRUNCATE == LANDLOCK_ACCESS_FS_TRUNCATE, "fs bits");
_Static_assert(SBX_LL_FS_IOCTL_DEV == LANDLOCK_ACCESS_FS_IOCTL_DEV, "fs bits");
_Static_assert(SBX_LL_NET_CONNECT_TCP == LANDLOCK_ACCESS_NET_CONNECT_TCP, "net bits");
_Static_assert(SBX_LL_SCOPE_SIGNAL == LANDLOCK_SCOPE_SIGNAL, "scope bits");

int sbx_landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	/* ENOSYS: built without Landlock; EOPNOTSUPP: built in, not enabled at boot. */
	return abi < 0 ? -errno : (int)abi;
}

int sbx_landlock_enforce(const struct sbx_ll_plan *p, struct sbx_error *err)
{
	struct sbx_landlock_ruleset_attr attr = {
	    .handled_access_fs = p->handled_fs,
	    .handled_access_net = p->handled_net,
	    .scoped = p->scoped,
	};
	/* The attribute's size tells the kernel which fields we use: an older kernel rejects
	 * a larger one (E2BIG) unless the extra fields are zero, so pass what the ABI has. */
	size_t size = p->abi >= 6 ? sizeof(attr) : p->abi >= 4 ? 16 : 8;
	int fd, r;

	if (!p->enabled)
		return 0;
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0) {
		r = sbx_error_set(err, SBX_ERR_UNSUPPORTED, errno,
		                  "cannot create the Landlock ruleset (ABI %d): %s", p->abi,
		                  strerror(errno));
		sbx_error_hint(err, "see 'sbx doctor'; --best-effort runs without what the kernel "
		                    "lacks");
		return r;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		struct landlock_path_beneath_attr pb = {0};
		struct stat st;
		int pfd = open(p->rules[i].path, O_PATH | O_CLOEXEC);

		if (pfd < 0) {
			/* An optional mount that was skipped: nothing there to grant. */
			if (errno == ENOENT)
				continue;
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "Landlock rule for %s: cannot open it: %s",
			                  p->rules[i].path, strerror(errno));
			close(fd);
			return r;
		}
		pb.parent_fd = pfd;
		pb.allowed_access = p->rules[i].access & p->handled_fs;
		/* A rule on anything but a directory takes only the rights that apply to a
		 * file; the others are about entries of a directory. */
		if (fstat(pfd, &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= SBX_LL_FS_FILE;
		if (pb.allowed_access && syscall(__NR_landlock_add_rule, fd,
		                                 SBX_LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			r = sbx_error_set(err, SBX_ERR_SETUP, errno,
			                  "cannot add the Landlock rule for %s: %s",
			                  p->rules[i].path, strerror(errno));
			close(pfd);
			close(fd);
			return r;
		}
		close(pfd);
	}
	/* TCP: handled with no port rule, so every bind and connect is denied. */
	if (syscall(__NR_landlock_restrict_self, fd, 0) < 0) {
		r = sbx_error_set(err, SBX_ERR_SETUP, errno,
		                  "cannot enforce the Landlock ruleset: %s", strerror(errno));
		close(fd);
		return r;
	}
	close(fd);
	return 0;
}
