/* SPDX-License-Identifier: MIT */
/* The worker's name (include/sbx/identity.h). */
#include "sbx/identity.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"

#define NAME_MAX_LEN 32 /* useradd's limit */

/* Field `field` (0-based) of the colon-separated line at s (up to its newline): its start
 * and length, or NULL. */
static const char *field_of(const char *line, size_t field, size_t *len)
{
	const char *p = line;

	for (size_t i = 0; i < field; i++) {
		p += strcspn(p, ":\n");
		if (*p != ':')
			return NULL;
		p++;
	}
	*len = strcspn(p, ":\n");
	return p;
}

static bool field_is_id(const char *line, size_t field, unsigned id)
{
	size_t len;
	const char *f = field_of(line, field, &len);
	char buf[16];

	if (!f || len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, f, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return false;
	return strtoul(buf, NULL, 10) == id;
}

/* The line of a passwd (id field 2) or group (id field 2) file whose id is `id`, or NULL. */
static const char *line_with_id(const char *text, unsigned id)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (*l != '#' && field_is_id(l, 2, id))
			return l;
	return NULL;
}

static bool name_taken(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, name, n) == 0 && l[n] == ':')
			return true;
	return false;
}

static bool name_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > NAME_MAX_LEN || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.' || (c == '$' && i == n - 1)))
			return false;
	}
	return true;
}

char *sbx_identity_lookup(const char *passwd, unsigned uid)
{
	const char *l = passwd ? line_with_id(passwd, uid) : NULL;
	size_t len = l ? strcspn(l, ":\n") : 0;

	return l && len ? strndup(l, len) : NULL;
}

/* A name free in text: the hint, "sbx", "sbx-worker", then "sbx<id>". */
static void pick_name(const char *text, const char *hint, unsigned id, char *out, size_t size)
{
	const char *tries[] = {hint, "sbx", "sbx-worker"};

	for (size_t i = 0; i < SBX_ARRAY_SIZE(tries); i++) {
		if (name_valid(tries[i]) && (!text || !name_taken(text, tries[i]))) {
			snprintf(out, size, "%s", tries[i]);
			return;
		}
	}
	snprintf(out, size, "sbx%u", id);
}

static int append_line(const char *text, const char *line, char **out, struct sbx_error *err)
{
	size_t n = strlen(text);

	if (asprintf(out, "%s%s%s", text, n && text[n - 1] != '\n' ? "\n" : "", line) < 0) {
		*out = NULL;
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	return 0;
}

static bool safe_field(const char *s)
{
	return !strpbrk(s, ":\n");
}

int sbx_identity_make(const char *passwd, const char *group, unsigned uid, unsigned gid,
                      const char *hint, const char *home, char **name, char **passwd_out,
                      char **group_out, struct sbx_error *err)
{
	_cleanup_free_ char *found = sbx_identity_lookup(passwd, uid);
	_cleanup_free_ char *pw = NULL, *gr = NULL;
	char picked[NAME_MAX_LEN + 16], line[SBX_PATH_MAX + 128];
	int r;

	*name = *passwd_out = *group_out = NULL;
	if (found) {
		snprintf(picked, sizeof(picked), "%s", found);
	} else {
		pick_name(passwd, hint, uid, picked, sizeof(picked));
		if (!home || home[0] != '/' || !safe_field(home))
			home = "/";
		if (passwd) {
			snprintf(line, sizeof(line), "%s:x:%u:%u:sbx sandbox worker:%s:/bin/sh\n",
			         picked, uid, gid, home);
			r = append_line(passwd, line, &pw, err);
			if (r < 0)
				return r;
		}
	}
	if (group && !line_with_id(group, gid)) {
		char gname[NAME_MAX_LEN + 16];

		if (name_taken(group, picked))
			snprintf(gname, sizeof(gname), "sbx%u", gid);
		else
			snprintf(gname, sizeof(gname), "%s", picked);
		snprintf(line, sizeof(line), "%s:x:%u:\n", gname, gid);
		r = append_line(group, line, &gr, err);
		if (r < 0)
			return r;
	}
	*name = strdup(picked);
	if (!*name)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	*passwd_out = TAKE_PTR(pw);
	*group_out = TAKE_PTR(gr);
	return 0;
}
