/* SPDX-License-Identifier: MIT */
#ifndef SBX_OS_STATE_H
#define SBX_OS_STATE_H

/*
 * sbx's own state on the host: the glob walk's cache, in $XDG_CACHE_HOME/sbx (or
 * ~/.cache/sbx), which a later launch trusts to know what to hide, and the folders where sbx
 * finds profiles and policies of its own accord ($XDG_CONFIG_HOME/sbx or ~/.config/sbx, and
 * /etc/sbx), which choose a later sandbox's mounts, and the runtime directories that hold the
 * records of running sandboxes (os/registry.h), which tell sbx kill which pid to signal. A sandbox
 * that could write the cache could make that launch hide nothing (and one that could read it would
 * learn where the secrets are); one that could write a profile there would widen the next launch of
 * its name. So no sandbox may see them, whatever its mounts say (docs/design.md, sbx's own state).
 *
 * The directory is recognised by host identity (device and inode), not by path: every mount
 * (and the root) of the sandbox whose source is the directory, one of its ancestors, or
 * something beneath it is found however it is named (a symlink on the way, a bind of a
 * parent elsewhere on the host, the directory itself), and the directory's path there is
 * hidden (sbx_spec_add_pins, in core): masked under the namespaces backend, with every directory
 * above it within the mount pinned so that the worker can neither rename nor remove one (and plant
 * a directory of its own at the path), and denied under the landlock backend, whose carved
 * rules never let a directory on the way be renamed either. sbx makes the directory (mode
 * 0700) before the sandbox starts when it is missing and a mount shows where it would be, so
 * that no worker makes it first (or when the launch walks, to cache there); otherwise a
 * launch writes nothing.
 */

#include <stdbool.h>

#include "sbx/error.h"
#include "sbx/plan.h"
#include "sbx/spec.h"

/* Sandbox paths where sbx's cache directory is seen (normalised, each once; owned). */
struct sbx_state_pins {
	char **paths;
	size_t n;
};
void sbx_state_pins_clear(struct sbx_state_pins *p);

/*
 * Guard sbx's state (the cache, and the profile folders above) for the sandbox that spec and
 * host describe: find every sandbox path where a mount, the root or a system mount shows
 * one, for the caller to hide (*pins; core's sbx_spec_add_pins: the spec is only read here),
 * and, when `create`, make it if it is missing and a mount shows where it would be (or, for
 * the cache, the spec has hide globs to walk). *cache_dir (allocated, may be NULL) is the
 * directory the glob walk may use: NULL when there is none (no HOME), or when it is not one
 * sbx can trust (not a directory of the caller's, mode 0700, reached without a symlink at
 * its end). Without `create`, a missing directory is hidden where it would be (sbx check).
 */
int sbx_state_guard(const struct sbx_spec *spec, const struct sbx_host *host, bool create,
                    struct sbx_state_pins *pins, char **cache_dir, struct sbx_error *err);

#endif
