/* SPDX-License-Identifier: MIT */
/* Container detection for sbx doctor (pure): facts in, a name and a note out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sbx/probe.h"

static const struct {
	const char *name;
	struct sbx_container_facts f;
	const char *what; /* expected substring of the name; "" for none */
	const char *note; /* expected substring of the note; "" for none */
} cases[] = {
    {"a virtual machine booted from a Docker image (this project's CI machines)",
     {.dockerenv = true, .kthreadd_visible = true, .root_fs = "ext4"},
     "",
     "/.dockerenv is set aside"},
    {"a plain host", {.kthreadd_visible = true, .root_fs = "ext4"}, "", ""},
    {"docker: /.dockerenv, an overlay root, its own PID namespace",
     {.dockerenv = true, .root_fs = "overlay"},
     "docker (/.dockerenv, an overlay root)",
     ""},
    {"docker with --pid=host: kernel threads visible, but an overlay root",
     {.dockerenv = true, .kthreadd_visible = true, .root_fs = "overlay"},
     "docker",
     ""},
    {"docker on another storage driver: its own PID namespace",
     {.dockerenv = true, .root_fs = "xfs"},
     "docker (/.dockerenv, a PID namespace of its own)",
     ""},
    {"docker named by its cgroup path, without /.dockerenv",
     {.cgroup_engine = "docker", .kthreadd_visible = true, .root_fs = "ext4"},
     "docker (its cgroup path)",
     ""},
    {"podman", {.containerenv = true, .root_fs = "overlay"}, "podman", ""},
    {"systemd-nspawn declares itself",
     {.pid1_environ_readable = true, .pid1_container = "systemd-nspawn"},
     "systemd-nspawn (container=systemd-nspawn",
     ""},
    {"container= wins over a leftover /.dockerenv",
     {.dockerenv = true,
      .pid1_environ_readable = true,
      .pid1_container = "lxc",
      .kthreadd_visible = true},
     "lxc",
     ""},
    {"kubernetes by its service account", {.k8s_secrets = true}, "kubernetes", ""},
    {"kubernetes by its cgroup", {.cgroup_engine = "kubepods"}, "kubernetes (kubepods", ""},
    {"an unnamed container: overlay root, no kernel threads",
     {.root_fs = "overlay"},
     "a container (an overlay root",
     ""},
    {"a sandbox: no kernel threads, nothing declared",
     {.root_fs = "tmpfs"},
     "",
     "a PID namespace of its own"},
};

static void test_decide(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[96], note[256];

		sbx_container_decide(&cases[i].f, what, sizeof(what), note, sizeof(note));
		if (cases[i].what[0] ? !strstr(what, cases[i].what) : what[0] != '\0')
			fail_msg("%s: container '%s', want '%s'", cases[i].name, what,
			         cases[i].what);
		if (cases[i].note[0] ? !strstr(note, cases[i].note) : note[0] != '\0')
			fail_msg("%s: note '%s', want '%s'", cases[i].name, note, cases[i].note);
	}
}

/* Small buffers are never overrun, and stay strings. */
static void test_small_buffers(void **state)
{
	const struct sbx_container_facts f = {.pid1_container = "systemd-nspawn"};
	char what[8], note[4];

	(void)state;
	sbx_container_decide(&f, what, sizeof(what), note, sizeof(note));
	assert_int_equal(strlen(what), sizeof(what) - 1);
	assert_string_equal(note, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decide),
	    cmocka_unit_test(test_small_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
