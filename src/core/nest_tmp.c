/* SPDX-License-Identifier: MIT */
/*
 * A landlock sub-worker's private temporary directory (include/sbx/finish.h): a namespaced
 * child gets a private /tmp of its own; a child on the landlock backend has no mount
 * namespace to make one in, and the /tmp it sees is its parent's (denied to it: the parent's
 * processes keep their files there). Where that /tmp is a sandbox's own tmpfs, never the
 * host's, the child gets a directory of its own in it instead, TMPDIR names it, and nested
 * landlock children of it get one inside theirs. Pure: the caller makes and removes it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbx/finish.h"
#include "sbx/policy.h"

int sbx_nest_tmp_base(const struct sbx_nest *parent, const char *tmpdir, char *out, size_t size)
{
	const struct sbx_nest_mount *m;
	const size_t plen = strlen(SBX_NEST_TMP_PREFIX);

	/* a namespaces parent's /tmp is its private tmpfs, unless a mount takes /tmp itself */
	if (parent->backend == SBX_BACKEND_NAMESPACES) {
		m = sbx_nest_lookup(parent, "/tmp");
		if (m && strcmp(m->target, "/tmp") == 0)
			return -ENOENT;
		return snprintf(out, size, "/tmp") < (int)size ? 0 : -ENAMETOOLONG;
	}
	/* a landlock parent that got a directory of its own this way (its TMPDIR, a writable
	 * entry of its spec at that very path): one inside it */
	if (!tmpdir || strncmp(tmpdir, "/tmp/", 5) != 0 || !strstr(tmpdir, SBX_NEST_TMP_PREFIX) ||
	    strstr(tmpdir, "/..") || strstr(tmpdir, "/./") || strlen(tmpdir) < plen)
		return -ENOENT;
	m = sbx_nest_lookup(parent, tmpdir);
	if (!m || m->kind != SBX_NEST_BIND || strcmp(m->target, tmpdir) != 0 ||
	    (m->rights & (SBX_OP_LOOK | SBX_OP_MODIFY)) != (SBX_OP_LOOK | SBX_OP_MODIFY))
		return -ENOENT;
	return snprintf(out, size, "%s", tmpdir) < (int)size ? 0 : -ENAMETOOLONG;
}

int sbx_nest_add_tmp(struct sbx_nest_planned *np, const char *dir, bool made, struct sbx_error *err)
{
	char path[SBX_PATH_MAX];
	struct sbx_mount m = {.kind = SBX_MOUNT_BIND,
	                      .source = path,
	                      .target = path,
	                      .optional = !made, /* --dry-run makes nothing: shown, not bound */
	                      .origin = SBX_ORIGIN_FLAG};
	int r;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return sbx_error_set(err, SBX_ERR_SETUP, ENAMETOOLONG, "%s: too long", dir);
	r = sbx_spec_add_mount(np->spec, &m, true, err);

	/* the child's effective spec carries it (its Landlock layer is cut to that spec), with
	 * every right a private /tmp gives */
	if (r >= 0)
		r = sbx_nest_put(np->child, dir, SBX_NEST_BIND, SBX_OP_ALL, 0, err);
	if (r >= 0)
		r = sbx_spec_add_env(np->spec, "TMPDIR", dir, err);
	return r < 0 ? r : 0;
}
