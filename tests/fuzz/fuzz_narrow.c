/* SPDX-License-Identifier: MIT */
/* Narrowing (sbx_spec_narrow, src/core/nest_narrow.c), docs/design.md, Nesting. The input builds a
 * parent effective spec and a nested request from a small alphabet of paths (so that targets nest
 * and overlap often). Properties, for every probe path and every operation:
 *   - the child never has a right the parent lacks there;
 *   - --readonly leaves nothing writable; a named grant leaves nothing but the named paths
 *     and the system mounts visible;
 *   - the child is one level deeper, never gains the network, nesting or leaves Landlock;
 *   - the child survives the codec byte for byte;
 *   - a refusal allocates nothing and is an escalation or a bad request. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/nest.h"
#include "sbx/path.h"
#include "sbx/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
    "/",    "/a",   "/a/b",     "/a/b/c", "/a/bc", "/b",      "/src", "/src/x",
    "/out", "/usr", "/usr/bin", "/etc",   "/home", "/home/u", "/tmp", "/dev/null",
};
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

static const char *const probes[] = {
    "/a/b/c/d", "/src/x/y", "/out/f", "/usr/bin/sh", "/home/u/.env", "/zzz", "/a/b/cd",
};

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static bool beneath(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void check_path(const struct sbx_nest *parent, const struct sbx_nest *child,
                       const struct sbx_nest_request *req, const char *p)
{
	unsigned pr = sbx_nest_rights(parent, p), cr = sbx_nest_rights(child, p);
	const struct sbx_nest_mount *ce = sbx_nest_lookup(child, p);
	bool named = false;

	if (cr & ~pr)
		abort(); /* wider than the parent */
	if (req->readonly && (cr & SBX_OP_MODIFY))
		abort();
	if (!ce || cr == 0 || req->n_grants == 0)
		return;
	for (size_t i = 0; i < req->n_grants; i++)
		named |= beneath(p, req->grants[i].path);
	if (!named && !(ce->flags & SBX_NEST_F_SYSTEM))
		abort(); /* naming something makes the rest invisible */
	/* the deepest grant covering p decides beneath itself: a read grant gives no write */
	{
		const struct sbx_grant *deepest = NULL;

		for (size_t i = 0; i < req->n_grants; i++)
			if (beneath(p, req->grants[i].path) &&
			    (!deepest || strlen(req->grants[i].path) > strlen(deepest->path)))
				deepest = &req->grants[i];
		if (deepest && deepest->kind == SBX_GRANT_READ && (cr & SBX_OP_MODIFY))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size};
	struct sbx_nest *parent = sbx_nest_new(), *child = NULL, *again = NULL;
	struct sbx_nest_request req = {0};
	char hide_buf[2][16], *hide[2];
	unsigned char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	unsigned n, flags;
	int r;

	if (!parent)
		abort();
	n = take(&in) % 9;
	for (unsigned i = 0; i < n; i++) {
		const char *t = paths[take(&in) % N_PATHS];
		unsigned kind = take(&in) % SBX_NEST_KIND_MAX_;
		unsigned rights = take(&in) & SBX_OP_ALL;
		unsigned fl = take(&in) & SBX_NEST_F_ALL_;

		if (fl & SBX_NEST_F_SYSTEM)
			rights &= ~SBX_OP_MODIFY;
		if (kind == SBX_NEST_HIDDEN)
			rights = 0;
		if (sbx_nest_put(parent, t, kind, rights, fl, NULL) < 0)
			goto out;
	}
	flags = take(&in);
	parent->depth = 1 + take(&in) % SBX_NEST_MAX_DEPTH;
	parent->backend = flags & 1 ? SBX_BACKEND_LANDLOCK : SBX_BACKEND_NAMESPACES;
	parent->net = flags & 2 ? SBX_NET_HOST : SBX_NET_NONE;
	parent->nesting = flags & 4;
	parent->landlocked = flags & 8;
	parent->scoped = (flags >> 4) & 3;
	parent->parent_unknown = flags & 64;

	flags = take(&in);
	req.readonly = flags & 1;
	req.net_given = flags & 2;
	req.net = flags & 4 ? SBX_NET_HOST : SBX_NET_NONE;
	req.no_nesting = flags & 8;
	req.no_system = flags & 16;
	n = take(&in) % 5;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = take(&in);
		const char *p = paths[take(&in) % N_PATHS];

		if (sbx_nest_request_add(&req, k % 3, p, k & 4, "--fuzz", NULL) < 0)
			goto out;
		req.grants[req.n_grants - 1].noexec = k & 8;
	}
	n = take(&in) % 3;
	for (unsigned i = 0; i < n; i++) {
		strcpy(hide_buf[i], paths[take(&in) % N_PATHS]);
		hide[i] = hide_buf[i];
	}
	req.hide = hide;
	req.n_hide = n;

	r = sbx_spec_narrow(parent, &req, &child, NULL);
	if (r < 0) {
		if (child)
			abort();
		goto out;
	}
	if (!child || child->depth != parent->depth + 1)
		abort();
	if (parent->net == SBX_NET_NONE && child->net != SBX_NET_NONE)
		abort();
	if (child->nesting && !parent->nesting)
		abort();
	if (parent->landlocked && !child->landlocked)
		abort();
	/* the parent's scopes hold beneath it; an unknown origin never becomes a known one */
	if ((parent->scoped & ~child->scoped) || (parent->parent_unknown && !child->parent_unknown))
		abort();
	for (size_t i = 0; i < N_PATHS; i++)
		check_path(parent, child, &req, paths[i]);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		check_path(parent, child, &req, probes[i]);
	for (size_t i = 0; i < child->n_mounts; i++)
		check_path(parent, child, &req, child->mounts[i].target);
	for (size_t i = 0; i < n; i++)
		if (sbx_nest_rights(child, hide[i]) != 0)
			abort(); /* hidden in the child */

	if (sbx_nest_encode(child, &buf, &len, NULL) < 0)
		abort();
	if (sbx_nest_decode(buf, len, &again, NULL) < 0)
		abort();
	if (sbx_nest_encode(again, &buf2, &len2, NULL) < 0 || len2 != len ||
	    memcmp(buf, buf2, len) != 0)
		abort();
out:
	req.hide = NULL;
	req.n_hide = 0;
	sbx_nest_request_clear(&req);
	free(buf);
	free(buf2);
	sbx_nest_free(again);
	sbx_nest_free(child);
	sbx_nest_free(parent);
	return 0;
}
