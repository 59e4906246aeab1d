/* SPDX-License-Identifier: MIT */
#include "sbx/spec.h"

#include "sbx/policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/cleanup.h"
#include "sbx/path.h"

struct sbx_spec *sbx_spec_new(void)
{
	/* Sub-sandboxes are forbidden unless a profile says `nesting: true` or the caller
	 * passes --allow-nesting: making namespaces opens kernel surface (user namespaces
	 * above all) that a worker which starts no sub-worker never needs (sbx-seccomp(7)). */
	struct sbx_spec *spec = calloc(1, sizeof(struct sbx_spec));

	/* git's control surface is protected unless a profile says `protect_git: false`: a
	 * hook or a config planted by a worker runs on the host at the next git command. */
	if (spec)
		spec->protect_git = true;
	return spec;
}

void sbx_mount_clear(struct sbx_mount *m)
{
	if (!m)
		return;
	free(m->source);
	free(m->target);
	free(m->policy);
	for (size_t i = 0; i < m->n_suffixes; i++)
		free(m->suffixes[i]);
	free(m->suffixes);
	memset(m, 0, sizeof(*m));
}

void sbx_spec_free(struct sbx_spec *spec)
{
	if (!spec)
		return;
	free(spec->profile);
	free(spec->root);
	free(spec->workspace);
	free(spec->chdir);
	sbx_netpolicy_clear(&spec->netpol);
	for (size_t i = 0; i < spec->n_mounts; i++)
		sbx_mount_clear(&spec->mounts[i]);
	free(spec->mounts);
	free(spec->target_index);
	for (size_t i = 0; i < spec->n_env; i++) {
		free(spec->env[i].name);
		free(spec->env[i].value);
	}
	free(spec->env);
	for (size_t i = 0; i < spec->n_hide; i++)
		free(spec->hide[i]);
	free(spec->hide);
	free(spec->hide_walked);
	for (size_t i = 0; i < spec->n_hide_globs; i++)
		free(spec->hide_globs[i]);
	free(spec->hide_globs);
	for (size_t i = 0; i < spec->n_guards; i++)
		free(spec->guards[i].path);
	free(spec->guards);
	free(spec->hide_glob_firm);
	for (size_t i = 0; i < spec->n_unhide; i++)
		free(spec->unhide[i]);
	free(spec->unhide);
	for (size_t i = 0; i < spec->n_pin; i++)
		free(spec->pin[i]);
	free(spec->pin);
	for (size_t i = 0; i < spec->n_absent_ro; i++)
		free(spec->absent_ro[i]);
	free(spec->absent_ro);
	for (size_t i = 0; i < spec->n_absent_cfg; i++)
		free(spec->absent_cfg[i]);
	free(spec->absent_cfg);
	sbx_seccomp_conf_clear(&spec->seccomp);
	free(spec->approve);
	free(spec->audit_log);
	free(spec->label);
	free(spec->home_path);
	free(spec->home_dir);
	free(spec->home_gitconfig);
	free(spec);
}

int sbx_spec_set_str(char **dst, const char *src, struct sbx_error *err)
{
	char *copy = NULL;

	if (src) {
		copy = strdup(src);
		if (!copy)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	free(*dst);
	*dst = copy;
	return 0;
}

static size_t hash_path(const char *s)
{
	size_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot for target: where it is, or the empty slot where it would go. */
static size_t *index_slot(const struct sbx_spec *spec, const char *target)
{
	size_t mask = spec->index_cap - 1;

	for (size_t i = hash_path(target) & mask;; i = (i + 1) & mask) {
		size_t *slot = &spec->target_index[i];

		if (*slot == 0 || strcmp(spec->mounts[*slot - 1].target, target) == 0)
			return slot;
	}
}

/* Room for n mounts: the array doubles (cap / 2 entries) and the index, kept at most half
 * full, is rebuilt at the same time. */
static int index_reserve(struct sbx_spec *spec, size_t n)
{
	size_t cap = spec->index_cap ? spec->index_cap : 64;
	struct sbx_mount *grown;
	size_t *fresh;

	if (n * 2 <= spec->index_cap)
		return 0;
	while (n * 2 > cap)
		cap *= 2;
	grown = realloc(spec->mounts, cap / 2 * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	spec->mounts = grown;
	fresh = calloc(cap, sizeof(*fresh));
	if (!fresh)
		return -ENOMEM;
	free(spec->target_index);
	spec->target_index = fresh;
	spec->index_cap = cap;
	for (size_t i = 0; i < spec->n_mounts; i++)
		*index_slot(spec, spec->mounts[i].target) = i + 1;
	return 0;
}

struct sbx_mount *sbx_spec_find_target(const struct sbx_spec *spec, const char *target)
{
	size_t *slot;

	if (!spec->index_cap)
		return NULL;
	slot = index_slot(spec, target);
	return *slot ? &spec->mounts[*slot - 1] : NULL;
}

static const char *kind_name(enum sbx_mount_kind k)
{
	switch (k) {
	case SBX_MOUNT_BIND:
		return "bind";
	case SBX_MOUNT_TMPFS:
		return "tmpfs";
	case SBX_MOUNT_DEVICE:
		return "device";
	}
	return "?";
}

int sbx_spec_add_mount(struct sbx_spec *spec, const struct sbx_mount *m, bool replace,
                       struct sbx_error *err)
{
	_cleanup_free_ char *source = NULL;
	_cleanup_free_ char *target = NULL;
	_cleanup_free_ char *policy = NULL;
	struct sbx_mount caps = {0};
	struct sbx_mount *old;
	int r;

	if (!m->target || m->target[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "%s mount target '%s' is not an absolute path",
		                     kind_name(m->kind), m->target ? m->target : "");
	r = sbx_path_absolute(m->target, "/", &target, err);
	if (r < 0)
		return r;
	if (m->kind != SBX_MOUNT_TMPFS) {
		if (!m->source || m->source[0] != '/')
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "%s mount source '%s' is not an absolute path",
			                     kind_name(m->kind), m->source ? m->source : "");
		r = sbx_path_absolute(m->source, "/", &source, err);
		if (r < 0)
			return r;
	}
	if (m->kind == SBX_MOUNT_TMPFS && strcmp(target, "/") == 0)
		return sbx_error_set(
		    err, SBX_ERR_USAGE, EINVAL,
		    "a tmpfs cannot be mounted at '/'; use --root DIR for the root");
	if (m->policy) {
		policy = strdup(m->policy);
		if (!policy)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < m->n_suffixes; i++) {
		r = sbx_mount_add_suffix(&caps, m->suffixes[i], err);
		if (r < 0) {
			sbx_mount_clear(&caps);
			return r;
		}
	}

	old = sbx_spec_find_target(spec, target);
	if (old) {
		if (!replace) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EEXIST,
			                  "two mounts have the target '%s' (sources '%s' and '%s')",
			                  target, old->source ? old->source : "tmpfs",
			                  source ? source : "tmpfs");
			sbx_error_hint(err, "give each mount its own target, or drop one of them");
			sbx_mount_clear(&caps);
			return r;
		}
		sbx_mount_clear(old);
	} else {
		if (spec->n_mounts >= SBX_MAX_MOUNTS) {
			sbx_mount_clear(&caps);
			return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
			                     "too many mounts: at most %d are allowed",
			                     SBX_MAX_MOUNTS);
		}
		if (index_reserve(spec, spec->n_mounts + 1) < 0) {
			sbx_mount_clear(&caps);
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		}
		old = &spec->mounts[spec->n_mounts++];
		old->target = target; /* so that the slot below can compare against it */
		*index_slot(spec, target) = spec->n_mounts;
	}
	*old = (struct sbx_mount){
	    .kind = m->kind,
	    .source = TAKE_PTR(source),
	    .target = TAKE_PTR(target),
	    .readonly = m->readonly,
	    .optional = m->optional,
	    .noexec = m->noexec,
	    .origin = m->origin,
	    .policy = TAKE_PTR(policy),
	    .approvals = m->approvals,
	    .max_file_bytes = m->max_file_bytes,
	    .size = m->kind == SBX_MOUNT_TMPFS ? m->size : 0,
	};
	/* the copies are the mount's now */
	old->suffixes = caps.suffixes;
	old->n_suffixes = caps.n_suffixes;
	return 0;
}

/* ---- the supervisor's settings ---- */

static bool has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

bool sbx_approval_parse(const char *name, enum sbx_approval *out)
{
	static const char *const names[] = {"allow", "ask", "deny"};

	for (size_t i = 0; i < SBX_ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum sbx_approval)i;
			return true;
		}
	return false;
}

int sbx_spec_set_approve(struct sbx_spec *spec, const char *b, struct sbx_error *err)
{
	size_t n = strlen(b);
	int r;

	if (n > SBX_APPROVE_MAX || has_control(b)) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "the approval broker '%.64s' is longer than %d bytes or holds a "
		                  "control character",
		                  b, SBX_APPROVE_MAX);
		sbx_error_hint(err, "use tty, deny, allow, cmd:PROGRAM or socket:PATH");
		return r;
	}
	if (strcmp(b, "tty") == 0 || strcmp(b, "deny") == 0 || strcmp(b, "allow") == 0)
		return sbx_spec_set_str(&spec->approve, b, err);
	if (strncmp(b, "cmd:", 4) == 0 && b[4]) {
		/* a program: an absolute path, or a name looked up in PATH; never relative to a
		 * directory the caller happens to be in */
		if (b[4] != '/' && strchr(b + 4, '/')) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "the approval broker '%s' names a relative path", b);
			sbx_error_hint(err, "give cmd: an absolute path, or a program name found "
			                    "in PATH");
			return r;
		}
		return sbx_spec_set_str(&spec->approve, b, err);
	}
	if (strncmp(b, "socket:", 7) == 0 && b[7]) {
		/* sockaddr_un's sun_path: 108 bytes with its terminating NUL */
		if (b[7] != '/' || n - 7 > 107) {
			r = sbx_error_set(
			    err, SBX_ERR_USAGE, EINVAL,
			    "the approval broker '%s' is not an absolute socket path of "
			    "at most 107 bytes",
			    b);
			sbx_error_hint(err, "e.g. socket:/run/user/1000/agent-approvals.sock");
			return r;
		}
		return sbx_spec_set_str(&spec->approve, b, err);
	}
	r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "unknown approval broker '%s'", b);
	sbx_error_hint(err, "use tty (ask at the terminal), deny, allow (log only), cmd:PROGRAM or "
	                    "socket:PATH");
	return r;
}

int sbx_spec_set_label(struct sbx_spec *spec, const char *label, struct sbx_error *err)
{
	int r;

	if (strlen(label) > SBX_LABEL_MAX || has_control(label)) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "the label '%.64s' is longer than %d bytes or holds a control "
		                  "character",
		                  label, SBX_LABEL_MAX);
		sbx_error_hint(err,
		               "give a short text without control characters, such as a task id");
		return r;
	}
	return sbx_spec_set_str(&spec->label, label, err);
}

int sbx_size_parse(const char *s, uint64_t *out, struct sbx_error *err)
{
	uint64_t v = 0, mul = 1;
	const char *p = s;
	int r;

	/* past the cap, digits are still read (the value stays above it: out of range) */
	for (; *p >= '0' && *p <= '9'; p++)
		if (v <= SBX_MAX_FILE_BYTES_MAX)
			v = v * 10 + (uint64_t)(*p - '0');
	if (p == s)
		goto bad;
	if (*p == 'K' || *p == 'k')
		mul = 1ull << 10;
	else if (*p == 'M' || *p == 'm')
		mul = 1ull << 20;
	else if (*p == 'G' || *p == 'g')
		mul = 1ull << 30;
	else if (*p)
		goto bad;
	if (*p && p[1])
		goto bad;
	if (v == 0 || v > SBX_MAX_FILE_BYTES_MAX / mul) {
		r = sbx_error_set(err, SBX_ERR_USAGE, ERANGE,
		                  "the size '%s' is not between 1 byte and 1T", s);
		sbx_error_hint(err, "e.g. 512K, 10M or 1G");
		return r;
	}
	*out = v * mul;
	return 0;
bad:
	r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "'%s' is not a size", s);
	sbx_error_hint(err, "write a number of bytes, optionally followed by K, M or G (1024, "
	                    "1024^2, 1024^3): e.g. 512K, 10M");
	return r;
}

int sbx_mount_add_suffix(struct sbx_mount *m, const char *suffix, struct sbx_error *err)
{
	char **grown;
	int r;

	if (!suffix[0] || strlen(suffix) > SBX_SUFFIX_MAX || strchr(suffix, '/') ||
	    has_control(suffix)) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "'%.80s' is not a file name ending (1 to %d bytes, no '/' or "
		                  "control character)",
		                  suffix, SBX_SUFFIX_MAX);
		sbx_error_hint(err, "e.g. suffixes: [.py, .md]");
		return r;
	}
	for (size_t i = 0; i < m->n_suffixes; i++)
		if (strcmp(m->suffixes[i], suffix) == 0)
			return 0;
	if (m->n_suffixes >= SBX_MAX_SUFFIXES)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG, "too many suffixes (at most %d)",
		                     SBX_MAX_SUFFIXES);
	grown = realloc(m->suffixes, (m->n_suffixes + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	m->suffixes = grown;
	m->suffixes[m->n_suffixes] = strdup(suffix);
	if (!m->suffixes[m->n_suffixes])
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	m->n_suffixes++;
	return 0;
}

int sbx_spec_add_hide(struct sbx_spec *spec, const char *path, struct sbx_error *err)
{
	_cleanup_free_ char *norm = NULL;
	char **grown;
	bool *walked;
	int r;

	if (!path || path[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "the path to hide '%s' is not an absolute path",
		                     path ? path : "");
	r = sbx_path_absolute(path, "/", &norm, err);
	if (r < 0)
		return r;
	if (strcmp(norm, "/") == 0)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "'/' cannot be hidden");
	for (size_t i = 0; i < spec->n_hide; i++)
		if (strcmp(spec->hide[i], norm) == 0)
			return 0;
	if (spec->n_hide >= SBX_MAX_HIDE)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many hidden paths: at most %d are allowed", SBX_MAX_HIDE);
	grown = realloc(spec->hide, (spec->n_hide + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	spec->hide = grown;
	walked = realloc(spec->hide_walked, (spec->n_hide + 1) * sizeof(*walked));
	if (!walked)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	spec->hide_walked = walked;
	spec->hide_walked[spec->n_hide] = false;
	spec->hide[spec->n_hide++] = TAKE_PTR(norm);
	return 0;
}

int sbx_spec_add_hides(struct sbx_spec *spec, char *const *paths, size_t n, struct sbx_error *err)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n; i++) {
		size_t before = spec->n_hide;

		r = sbx_spec_add_hide(spec, paths[i], err);
		if (r >= 0 && spec->n_hide > before)
			spec->hide_walked[before] = true; /* not an exact entry's own */
	}
	return r;
}

int sbx_spec_add_guard(struct sbx_spec *spec, const char *path, bool readonly, bool noexec,
                       const char *why, struct sbx_error *err)
{
	_cleanup_free_ char *norm = NULL;
	struct sbx_guard *grown;
	int r;

	if (!path || path[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "the path to guard '%s' is not an absolute path",
		                     path ? path : "");
	r = sbx_path_absolute(path, "/", &norm, err);
	if (r < 0)
		return r;
	if (strcmp(norm, "/") == 0)
		return 0; /* the root is no mount point of its own; its mount has the flags */
	for (size_t i = 0; i < spec->n_guards; i++) {
		struct sbx_guard *g = &spec->guards[i];

		if (strcmp(g->path, norm) != 0)
			continue;
		if ((readonly && !g->readonly) || (noexec && !g->noexec))
			g->why = why;
		g->readonly |= readonly;
		g->noexec |= noexec;
		return 0;
	}
	if (spec->n_guards >= SBX_MAX_GUARDS)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many guarded paths: at most %d are allowed",
		                     SBX_MAX_GUARDS);
	grown = realloc(spec->guards, (spec->n_guards + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	spec->guards = grown;
	spec->guards[spec->n_guards++] = (struct sbx_guard){
	    .path = TAKE_PTR(norm), .readonly = readonly, .noexec = noexec, .why = why};
	return 0;
}

int sbx_spec_add_pin(struct sbx_spec *spec, const char *path, struct sbx_error *err)
{
	_cleanup_free_ char *norm = NULL;
	char **grown;
	int r;

	r = sbx_spec_add_hide(spec, path, err);
	if (r >= 0)
		r = sbx_path_absolute(path, "/", &norm, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < spec->n_pin; i++)
		if (strcmp(spec->pin[i], norm) == 0)
			return 0;
	if (spec->n_pin >= SBX_MAX_HIDE)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many paths of sbx's own state to hide: at most %d",
		                     SBX_MAX_HIDE);
	grown = realloc(spec->pin, (spec->n_pin + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	spec->pin = grown;
	spec->pin[spec->n_pin++] = TAKE_PTR(norm);
	return 0;
}

int sbx_spec_add_pins(struct sbx_spec *spec, char *const *paths, size_t n, struct sbx_error *err)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n; i++)
		r = sbx_spec_add_pin(spec, paths[i], err);
	return r;
}

static int add_hide_glob(struct sbx_spec *spec, const char *pattern, bool firm,
                         struct sbx_error *err)
{
	size_t off = 0;
	char **grown;
	bool *fgrown;
	char *copy;
	int r;

	if (!pattern || pattern[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "the glob to hide '%s' is not absolute",
		                     pattern ? pattern : "");
	r = sbx_glob_check(pattern, &off, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < spec->n_hide_globs; i++)
		if (strcmp(spec->hide_globs[i], pattern) == 0) {
			spec->hide_glob_firm[i] |= firm;
			return 0;
		}
	if (spec->n_hide_globs >= SBX_MAX_HIDE)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many globs to hide: at most %d are allowed",
		                     SBX_MAX_HIDE);
	fgrown = realloc(spec->hide_glob_firm, (spec->n_hide_globs + 1) * sizeof(*fgrown));
	if (!fgrown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	spec->hide_glob_firm = fgrown;
	copy = strdup(pattern);
	grown = copy ? realloc(spec->hide_globs, (spec->n_hide_globs + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(copy);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	spec->hide_globs = grown;
	spec->hide_glob_firm[spec->n_hide_globs] = firm;
	spec->hide_globs[spec->n_hide_globs++] = copy;
	return 0;
}

int sbx_spec_add_hide_glob(struct sbx_spec *spec, const char *pattern, struct sbx_error *err)
{
	return add_hide_glob(spec, pattern, false, err);
}

int sbx_spec_add_firm_hide_glob(struct sbx_spec *spec, const char *pattern, struct sbx_error *err)
{
	return add_hide_glob(spec, pattern, true, err);
}

int sbx_spec_add_unhide(struct sbx_spec *spec, const char *pattern, struct sbx_error *err)
{
	_cleanup_free_ char *norm = NULL;
	size_t off = 0;
	char **grown;
	int r;

	if (!pattern || pattern[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "the path to unhide '%s' is not absolute",
		                     pattern ? pattern : "");
	if (sbx_glob_is_literal(pattern)) {
		r = sbx_path_absolute(pattern, "/", &norm, err);
	} else {
		r = sbx_glob_check(pattern, &off, err);
		if (r >= 0 && !(norm = strdup(pattern)))
			r = sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < spec->n_unhide; i++)
		if (strcmp(spec->unhide[i], norm) == 0)
			return 0;
	if (spec->n_unhide >= SBX_MAX_HIDE)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "too many paths to unhide: at most %d are allowed",
		                     SBX_MAX_HIDE);
	grown = realloc(spec->unhide, (spec->n_unhide + 1) * sizeof(*grown));
	if (!grown)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	spec->unhide = grown;
	spec->unhide[spec->n_unhide++] = TAKE_PTR(norm);
	return 0;
}

bool sbx_spec_unhidden(const struct sbx_spec *spec, const char *path)
{
	for (size_t i = 0; i < spec->n_unhide; i++)
		if (sbx_glob_match(spec->unhide[i], path))
			return true;
	return false;
}

void sbx_spec_drop_unhidden(struct sbx_spec *spec)
{
	size_t k = 0;

	for (size_t i = 0; i < spec->n_hide; i++) {
		if (sbx_spec_unhidden(spec, spec->hide[i]))
			free(spec->hide[i]);
		else
			spec->hide[k++] = spec->hide[i];
	}
	spec->n_hide = k;
}

static bool env_name_valid(const char *name)
{
	if (!name || !*name || strlen(name) > 255)
		return false;
	if (!((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_'))
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

int sbx_spec_add_env(struct sbx_spec *spec, const char *name, const char *value,
                     struct sbx_error *err)
{
	_cleanup_free_ char *n = NULL;
	_cleanup_free_ char *v = NULL;
	struct sbx_env_entry *e = NULL;

	if (!env_name_valid(name)) {
		int r =
		    sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "environment variable name '%s' is not valid", name ? name : "");
		sbx_error_hint(err, "names are letters, digits and '_', not starting with a "
		                    "digit, at most 255 bytes");
		return r;
	}
	if (value && strnlen(value, SBX_ENV_VAL_MAX + 1) > SBX_ENV_VAL_MAX)
		return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
		                     "value of environment variable %s is longer than %d bytes",
		                     name, SBX_ENV_VAL_MAX);
	n = strdup(name);
	if (!n || (value && !(v = strdup(value))))
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");

	for (size_t i = 0; i < spec->n_env; i++)
		if (strcmp(spec->env[i].name, name) == 0)
			e = &spec->env[i];
	if (!e) {
		struct sbx_env_entry *grown;

		if (spec->n_env >= SBX_MAX_ENV)
			return sbx_error_set(err, SBX_ERR_USAGE, E2BIG,
			                     "too many environment entries: at most %d",
			                     SBX_MAX_ENV);
		grown = realloc(spec->env, (spec->n_env + 1) * sizeof(*grown));
		if (!grown)
			return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
		spec->env = grown;
		e = &spec->env[spec->n_env++];
	} else {
		free(e->name);
		free(e->value);
	}
	e->name = TAKE_PTR(n);
	e->value = TAKE_PTR(v);
	return 0;
}

int sbx_volume_parse(const char *arg, const char *cwd, struct sbx_mount *out, struct sbx_error *err)
{
	_cleanup_free_ char *copy = NULL;
	char *parts[3] = {NULL, NULL, NULL};
	size_t n = 0;
	const char *dst = NULL;
	bool readonly = false;
	char *save = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if (!arg || !*arg)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "-v needs SRC[:DST][:ro|rw]");
	copy = strdup(arg);
	if (!copy)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	/* strtok_r would merge "a::b"; an empty part is an error, so split by hand. */
	for (char *p = copy;; p = save + 1) {
		save = strchr(p, ':');
		if (n == 3) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "-v '%s' has more than three ':'-separated parts", arg);
			sbx_error_hint(err, "the form is SRC[:DST][:ro|rw]; for a path with ':' "
			                    "use --mount type=bind,source=...,target=...");
			return r;
		}
		parts[n++] = p;
		if (!save)
			break;
		*save = '\0';
	}
	for (size_t i = 0; i < n; i++)
		if (!*parts[i])
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "-v '%s' has an empty part; the form is "
			                     "SRC[:DST][:ro|rw]",
			                     arg);

	if (n >= 2) {
		const char *last = parts[n - 1];
		bool is_opt = strcmp(last, "ro") == 0 || strcmp(last, "rw") == 0;

		if (n == 3 && !is_opt) {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "-v '%s': unknown option '%s'", arg, last);
			sbx_error_hint(err, "the options are 'ro' (read-only) and 'rw' "
			                    "(read-write, the default)");
			return r;
		}
		if (is_opt) {
			readonly = strcmp(last, "ro") == 0;
			if (n == 3)
				dst = parts[1];
		} else {
			dst = parts[1];
		}
	}
	if (dst && dst[0] != '/') {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "-v '%s': the target '%s' is not an absolute path", arg, dst);
		sbx_error_hint(err, "write the sandbox path in full, e.g. -v %s:/%s", parts[0],
		               dst);
		return r;
	}

	out->kind = SBX_MOUNT_BIND;
	out->origin = SBX_ORIGIN_FLAG;
	out->readonly = readonly;
	r = sbx_path_absolute(parts[0], cwd, &out->source, err);
	if (r < 0)
		goto fail;
	r = sbx_path_absolute(dst ? dst : out->source, "/", &out->target, err);
	if (r < 0)
		goto fail;
	return 0;
fail:
	sbx_error_wrap(err, "-v '%s'", arg);
	sbx_mount_clear(out);
	return r;
}

static int parse_bool_value(const char *arg, const char *key, const char *val, bool *out,
                            struct sbx_error *err)
{
	if (!val || strcmp(val, "true") == 0 || strcmp(val, "1") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0) {
		*out = false;
		return 0;
	}
	return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
	                     "--mount '%s': %s takes true or false, not '%s'", arg, key, val);
}

int sbx_mount_parse(const char *arg, const char *cwd, struct sbx_mount *out, struct sbx_error *err)
{
	_cleanup_free_ char *copy = NULL;
	const char *type = NULL, *source = NULL, *target = NULL, *size = NULL;
	bool readonly = false;
	char *save = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if (!arg || !*arg)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "--mount needs type=bind,source=SRC,target=DST[,readonly]");
	copy = strdup(arg);
	if (!copy)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (val)
			*val++ = '\0';
		if (strcmp(tok, "type") == 0 && val) {
			type = val;
		} else if ((strcmp(tok, "source") == 0 || strcmp(tok, "src") == 0) && val) {
			source = val;
		} else if ((strcmp(tok, "target") == 0 || strcmp(tok, "dst") == 0 ||
		            strcmp(tok, "destination") == 0) &&
		           val) {
			target = val;
		} else if (strcmp(tok, "readonly") == 0 || strcmp(tok, "ro") == 0) {
			r = parse_bool_value(arg, tok, val, &readonly, err);
			if (r < 0)
				return r;
		} else if ((strcmp(tok, "size") == 0 || strcmp(tok, "tmpfs-size") == 0) && val) {
			size = val; /* Docker's tmpfs-size=, and tmpfs's own size= */
		} else {
			r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                  "--mount '%s': unknown or incomplete key '%s'", arg, tok);
			sbx_error_hint(err, "the keys are type=bind|tmpfs, source=, target=, "
			                    "readonly, and size= for a tmpfs");
			return r;
		}
	}
	if (!type)
		type = "bind";
	if (!target) {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "--mount '%s' has no target=", arg);
		sbx_error_hint(err, "e.g. --mount type=bind,source=/data,target=/data,readonly");
		return r;
	}
	if (size && strcmp(type, "tmpfs") != 0)
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                     "--mount '%s': only a tmpfs has a size", arg);
	if (strcmp(type, "bind") == 0) {
		if (!source)
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "--mount '%s': a bind mount needs source=", arg);
		out->kind = SBX_MOUNT_BIND;
		r = sbx_path_absolute(source, cwd, &out->source, err);
		if (r < 0)
			goto fail;
	} else if (strcmp(type, "tmpfs") == 0) {
		if (source)
			return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
			                     "--mount '%s': a tmpfs has no source", arg);
		out->kind = SBX_MOUNT_TMPFS;
		if (size) {
			r = sbx_limit_parse(SBX_LIMIT_TMPFS, size, &out->size, err);
			if (r < 0) {
				sbx_error_wrap(err, "--mount '%s': size", arg);
				return r;
			}
		}
	} else {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "--mount '%s': unknown type '%s'",
		                  arg, type);
		sbx_error_hint(err, "the types are bind and tmpfs; use --device for devices");
		return r;
	}
	if (target[0] != '/') {
		r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
		                  "--mount '%s': the target '%s' is not an absolute path", arg,
		                  target);
		goto fail;
	}
	r = sbx_path_absolute(target, "/", &out->target, err);
	if (r < 0)
		goto fail;
	out->readonly = readonly;
	out->origin = SBX_ORIGIN_FLAG;
	return 0;
fail:
	sbx_mount_clear(out);
	return r;
}

int sbx_spec_finish(struct sbx_spec *spec, struct sbx_error *err)
{
	int r;

	/* hide_later: the supervisor decides the worker's opens, and it can serve a sub-sandbox
	 * only on the landlock backend (in namespaces of its own a sub-sandbox is narrower than
	 * the worker, and every open it makes for reading would be refused). Without nesting
	 * a sub-worker takes that backend (sbx(1), NESTED SANDBOXES). */
	if (spec->hide_later)
		spec->nesting = false;
	/* Read caps judge a path; a worker that makes mount namespaces binds a capped folder at
	 * another path, where no caps are (an outside attack: unshare -rm, mount --bind data
	 * /tmp/x, cat /tmp/x/secret.bin). Sub-workers take the landlock backend, as above. */
	/* And a mount with read caps runs nothing (noexec): execve maps a program's bytes into
	 * the worker, which no open for reading shows the supervisor (an outside attack copied a
	 * capped ELF out of its own mappings with LD_PRELOAD). */
	for (size_t i = 0; i < spec->n_mounts; i++) {
		const struct sbx_mount *c = &spec->mounts[i];

		if (!c->n_suffixes && !c->max_file_bytes)
			continue;
		spec->nesting = false;
		/* and every mount of a folder beneath it, which shows its files at a second path
		 * (an outside attack ran a capped program from -v ws/data/sub:/opt/sub) */
		for (size_t k = 0; k < spec->n_mounts; k++) {
			struct sbx_mount *m = &spec->mounts[k];

			if (k == i ||
			    (c->source && m->source && sbx_path_covers(c->source, m->source)))
				m->noexec = true;
		}
	}

	/* The built-in default gives the worker a private home; a profile says what it wants
	 * (home:), none if it does not; --root shows a tree with homes of its own. */
	if (spec->home == SBX_HOME_UNSET)
		spec->home = !spec->profile && !spec->root ? SBX_HOME_TMPFS : SBX_HOME_NONE;

	if (!spec->profile) {
		r = sbx_spec_set_str(&spec->profile, "default", err);
		if (r < 0)
			return r;
		/* The built-in default: the workspace read-write at its own path, unless
		 * explicit mounts replace it (sbx(1)). */
		if (!spec->explicit_mounts) {
			struct sbx_mount ws = {
			    .kind = SBX_MOUNT_BIND,
			    .source = spec->workspace,
			    .target = spec->workspace,
			    .origin = SBX_ORIGIN_DEFAULT,
			};

			if (!spec->workspace)
				return sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
				                     "no workspace directory is known");
			if (strcmp(spec->workspace, "/") == 0) {
				r = sbx_error_set(err, SBX_ERR_USAGE, EINVAL,
				                  "the workspace is '/' (the current directory), "
				                  "which would give the sandbox the whole host "
				                  "read-write");
				sbx_error_hint(err,
				               "run sbx from a project directory, or name one "
				               "with --workspace DIR, or choose mounts with -v");
				return r;
			}
			if (!sbx_spec_find_target(spec, spec->workspace)) {
				r = sbx_spec_add_mount(spec, &ws, false, err);
				if (r < 0)
					return r;
			}
		}
	}
	if (spec->root && spec->root[0] != '/')
		return sbx_error_set(err, SBX_ERR_USAGE, EINVAL, "root '%s' is not absolute",
		                     spec->root);
	/* The home after every other mount, so that a mount the user named there wins; before
	 * readonly, which makes it read-only too. */
	r = sbx_spec_add_home(spec, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < spec->n_mounts; i++) {
		if (spec->readonly)
			spec->mounts[i].readonly = true;
		if (strcmp(spec->mounts[i].target, "/") == 0) {
			r = sbx_error_set(
			    err, SBX_ERR_USAGE, EINVAL, "mount '%s' targets '/', which is the root",
			    spec->mounts[i].source ? spec->mounts[i].source : "tmpfs");
			sbx_error_hint(err, "use --root %s to see a directory at '/'",
			               spec->mounts[i].source ? spec->mounts[i].source : "DIR");
			return r;
		}
	}
	return 0;
}
