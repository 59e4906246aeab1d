/* SPDX-License-Identifier: MIT */
/* Guards the host has (include/sbx/guard.h). */
#include "sbx/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os.h"

/* What the launcher will bind: a directory or a file, reached without any symlink (it opens
 * sources the same way, src/os/mounts.c). */
static bool bindable(const char *path)
{
	int fd = sbx_openat2(AT_FDCWD, path, O_PATH | O_CLOEXEC | O_NOFOLLOW,
	                     RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	struct stat st;
	bool ok;

	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
	close(fd);
	return ok;
}

int sbx_guards_prune(struct sbx_plan *plan, struct sbx_error *err)
{
	size_t k = 0;

	(void)err;
	for (size_t i = 0; i < plan->n_ops; i++) {
		struct sbx_plan_op *o = &plan->ops[i];

		if ((o->flags & SBX_PLAN_F_GUARD) && !bindable(o->source)) {
			free(o->source);
			free(o->target);
			continue;
		}
		plan->ops[k++] = *o;
	}
	plan->n_ops = k;
	return 0;
}
