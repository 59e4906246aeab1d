/* SPDX-License-Identifier: MIT */
/*
 * Are we in a container? Decided from facts (src/os/sysprobe.c gathers them), strongest
 * first: what the container engine itself declares (container= in pid 1's environment,
 * podman's /run/.containerenv, Kubernetes' service account), the cgroup paths an engine
 * names, and only then /.dockerenv, which an image keeps when it boots as a virtual machine:
 * it counts only where the machine's kernel threads are not visible (a PID namespace of its
 * own) or / is an overlay.
 */
#include <stdio.h>
#include <string.h>

#include "sbx/probe.h"

static bool is_overlay(const char *fs)
{
	return strcmp(fs, "overlay") == 0 || strcmp(fs, "fuse-overlayfs") == 0 ||
	       strcmp(fs, "aufs") == 0;
}

void sbx_container_decide(const struct sbx_container_facts *f, char *what, size_t wsize, char *note,
                          size_t nsize)
{
	if (wsize)
		what[0] = '\0';
	if (nsize)
		note[0] = '\0';
	if (f->pid1_container[0]) {
		snprintf(what, wsize, "%s (container=%s in pid 1's environment)",
		         strcmp(f->pid1_container, "oci") == 0 ? "a container" : f->pid1_container,
		         f->pid1_container);
		return;
	}
	if (f->containerenv) {
		snprintf(what, wsize, "podman (/run/.containerenv)");
		return;
	}
	if (f->k8s_secrets || strcmp(f->cgroup_engine, "kubepods") == 0) {
		snprintf(what, wsize, "kubernetes (%s)",
		         f->k8s_secrets ? "a service account is mounted" : "kubepods cgroup");
		return;
	}
	if (f->cgroup_engine[0]) {
		snprintf(what, wsize, "%s (its cgroup path)", f->cgroup_engine);
		return;
	}
	if (f->dockerenv && (!f->kthreadd_visible || is_overlay(f->root_fs))) {
		snprintf(what, wsize, "docker (/.dockerenv, %s)",
		         is_overlay(f->root_fs) ? "an overlay root" : "a PID namespace of its own");
		return;
	}
	if (f->dockerenv)
		snprintf(
		    note, nsize,
		    "/.dockerenv is set aside: the machine's kernel threads are visible and / is "
		    "%s, not an overlay; an image built with Docker keeps that file when it "
		    "boots as a virtual machine",
		    f->root_fs[0] ? f->root_fs : "not an overlay");
	if (!f->kthreadd_visible && is_overlay(f->root_fs)) {
		snprintf(what, wsize, "a container (an overlay root, a PID namespace of its own)");
		return;
	}
	if (!f->kthreadd_visible && nsize && !note[0])
		snprintf(
		    note, nsize,
		    "kernel threads are not visible: a PID namespace of its own (a sandbox, or "
		    "a container that declares nothing)");
}
