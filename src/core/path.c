/* SPDX-License-Identifier: MIT */
#include "sbx/path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbx_path_normalize(const char *in, char *out, size_t size, struct sbx_error *err)
{
	size_t len = 0;
	const char *p;

	if (!in || in[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "path '%s' is not absolute",
		                     in ? in : "(null)");
	if (size < 2)
		return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG, "path buffer too small");
	if (strnlen(in, SBX_PATH_MAX_INPUT) >= SBX_PATH_MAX_INPUT)
		return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
		                     "path '%.64s...' is longer than %d bytes", in,
		                     SBX_PATH_MAX_INPUT - 1);

	/* Any byte but '/' and NUL may name a file, control characters included: a name the
	 * worker chose (a glob's match, say) must be hidden like any other, and what sbx prints
	 * of it is escaped (cmd/, sbx_cli_esc). */
	out[0] = '/';
	len = 1;
	p = in;
	while (*p) {
		const char *seg;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);

		if (n == 1 && seg[0] == '.')
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			/* Climb one component, never above "/". */
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			continue;
		}
		if (len > 1) {
			if (len + 1 >= size)
				goto too_long;
			out[len++] = '/';
		}
		if (len + n >= size)
			goto too_long;
		memcpy(out + len, seg, n);
		len += n;
	}
	out[len] = '\0';
	return (int)len;

too_long:
	return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
	                     "path '%.64s...' is longer than %zu bytes once normalised", in,
	                     size - 1);
}

int sbx_path_absolute(const char *in, const char *base, char **out, struct sbx_error *err)
{
	char joined[SBX_PATH_MAX_INPUT];
	char *buf;
	int r;

	if (!in || !*in)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "empty path");
	if (in[0] != '/') {
		if (!base || base[0] != '/')
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "relative path '%s' needs an absolute base", in);
		r = snprintf(joined, sizeof(joined), "%s/%s", base, in);
		if (r < 0 || (size_t)r >= sizeof(joined))
			return sbx_error_set(err, SBX_ERR_USAGE, ENAMETOOLONG,
			                     "path '%.64s...' is too long", in);
		in = joined;
	}
	buf = malloc(SBX_PATH_MAX_OUT);
	if (!buf)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	r = sbx_path_normalize(in, buf, SBX_PATH_MAX_OUT, err);
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

bool sbx_path_covers(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (n == 1 && prefix[0] == '/')
		return path[0] == '/';
	return strncmp(prefix, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const char *sbx_path_rest(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (n == 1 && prefix[0] == '/')
		return path + 1;
	path += n;
	return *path == '/' ? path + 1 : path;
}

size_t sbx_path_depth(const char *path)
{
	size_t d = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] != '\0')
			d++;
	return d;
}

bool sbx_path_backtracks(const char *text)
{
	bool named = false; /* the component before this one is a name */

	for (const char *c = text; *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (named)
				return true;
		} else if (n > 0) {
			named = !(n == 1 && c[0] == '.') ? true : named;
		}
		c += n;
		while (*c == '/')
			c++;
	}
	return false;
}
