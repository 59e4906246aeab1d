/* SPDX-License-Identifier: MIT */
/*
 * A denied `execute` means no execution (docs/design.md, The model (policies)). Landlock's execute
 * right is checked at execve(2) only: a loader (ld.so FILE) maps the file and runs it anyway. Under
 * the namespaces backend a policy that denies execute on a whole subtree ("uploads/" and two stars)
 * makes that subtree a noexec mount, which refuses the loader's executable mmap too (EPERM), as
 * root and as the user; where the kernel cannot keep that (the landlock backend, a glob over single
 * files, a folder that does not exist at launch), --dry-run and `sbx check` say what execute
 * covers there.
 */
#include <fcntl.h>
#include <libgen.h>
#include <link.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char ws[4096], profile[4096], loader[4096];

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, f);
	n = vasprintf(&p, f, ap);
	va_end(ap);
	if (n < 0)
		it_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

/* The program loader this binary was linked for (its PT_INTERP), e.g. ld-linux-x86-64.so.2. */
static int find_interp(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP) {
			snprintf(data, sizeof(loader), "%s",
			         (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr));
			return 1;
		}
	return 0;
}

static void copy_program(const char *to)
{
	char buf[65536];
	int in = open("/bin/true", O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	it_write_file(to, "");
	out = open(to, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (in < 0 || out < 0)
		it_fail(__FILE__, __LINE__, "cannot copy /bin/true to %s", to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			it_fail(__FILE__, __LINE__, "write %s", to);
	close(in);
	close(out);
	IT_EXPECT_INT(chmod(to, 0755), 0);
}

/*
 * ws/uploads/tool and ws/bin/tool (copies of /bin/true), and a profile whose workspace policy
 * allows everything but execute beneath uploads/ (a subtree), beneath cache/ (absent at
 * launch) and on every .sh file (a glob over files).
 */
static void setup(void)
{
	const char *t = it_tmpdir();

	snprintf(ws, sizeof(ws), "%s/ws", t);
	snprintf(profile, sizeof(profile), "%s/p.yaml", t);
	copy_program(fmt("%s/uploads/tool", ws));
	copy_program(fmt("%s/bin/tool", ws));
	it_write_file(fmt("%s/s.sh", ws), "#!/bin/sh\necho script-ran\n");
	IT_EXPECT_INT(chmod(fmt("%s/s.sh", ws), 0755), 0);
	it_write_file(profile, "version: 1\nname: p\nbase_policy: everything\nmounts:\n"
	                       "  - path: ${WORKSPACE}\n    policy: no-upload-exec\n");
	it_write_file(it_path(t, "policies/everything.yaml"),
	              "version: 1\nname: everything\nrules:\n  - name: all\n    paths: [\"**\"]\n"
	              "    operations: [all]\n    decision: allow\n");
	it_write_file(it_path(t, "policies/no-upload-exec.yaml"),
	              "version: 1\nname: no-upload-exec\nrules:\n  - name: all\n"
	              "    paths: [\"**\"]\n    operations: [all]\n    decision: allow\n"
	              "  - name: no-exec-uploads\n    paths: [\"uploads/**\", \"cache/**\"]\n"
	              "    operations: [execute]\n    decision: deny\n"
	              "  - name: no-exec-scripts\n    paths: [\"**/*.sh\"]\n"
	              "    operations: [execute]\n    decision: deny\n");
	loader[0] = '\0';
	dl_iterate_phdr(find_interp, loader);
	if (!loader[0])
		it_fail(__FILE__, __LINE__, "this test binary names no program loader (PT_INTERP)");
}

/* Namespaces backend: uploads/ is a noexec mount; execve, the loader and mmap all fail there,
 * while bin/ (which the policy allows) still runs, and uploads/ cannot be moved aside. */
static void test_loader_refused_namespaces(void)
{
	struct it_run r;
	const char *opts[] = {"-p", profile, "--workspace", ws, "--backend", "namespaces", NULL};
	char *script;

	setup();
	/* every subtree the policy denies execute on exists: each is a noexec mount */
	IT_EXPECT_INT(mkdir(fmt("%s/cache", ws), 0755), 0);
	script = fmt("%s %s/uploads/tool; echo loader=$?; %s/bin/tool; echo bin=$?; "
	             "%s --probe exec %s/uploads/tool mmap-exec %s/uploads/tool "
	             "mmap-exec %s/bin/tool rename %s/uploads %s/moved",
	             loader, ws, ws, it_self(), ws, ws, ws, ws, ws);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("exec %s/uploads/tool => EACCES", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("mmap-exec %s/uploads/tool => EPERM", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("mmap-exec %s/bin/tool => ok", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("rename %s/uploads => EBUSY", ws));
	/* the loader's own error, not the program's success */
	IT_EXPECT_NOT_CONTAINS(r.out, "loader=0\n");
	IT_EXPECT_CONTAINS(r.err, "failed to map segment");
	/* what the policy allows still runs: noexec mounts hold the denials, so Landlock no
	 * longer takes execute from the whole workspace */
	IT_EXPECT_CONTAINS(r.out, "bin=0\n");

	/* cache/ absent at launch: no mount can hold its denial, and Landlock, which cannot
	 * take a right back beneath a grant, denies execute on the whole workspace (stricter) */
	IT_EXPECT_INT(rmdir(fmt("%s/cache", ws)), 0);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("mmap-exec %s/uploads/tool => EPERM", ws));
	IT_EXPECT_CONTAINS(r.out, "bin=126\n");
}

/* --dry-run shows the noexec mount, and what it cannot hold (an absent folder, a glob). */
static void test_dry_run_says_namespaces(void)
{
	struct it_run r;

	setup();
	it_sbxv(&r, "run", "-p", profile, "--workspace", ws, "--backend", "namespaces", "--dry-run",
	        "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("rw,noexec"));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/uploads <- %s/uploads  (execute denied by a policy: "
	                              "noexec)",
	                              ws, ws));
	IT_EXPECT_CONTAINS(r.out, "limits (what the kernel does not keep of the profile):\n");
	IT_EXPECT_CONTAINS(r.out, fmt("execute on '%s/cache/**' (policy no-upload-exec, rule "
	                              "no-exec-uploads): Landlock refuses execve(2) only, since "
	                              "%s/cache does not exist at launch",
	                              ws, ws));
	IT_EXPECT_CONTAINS(r.out, fmt("execute on '%s/**/*.sh' (policy no-upload-exec, rule "
	                              "no-exec-scripts): what matches at launch is hidden whole; a "
	                              "match created later is neither hidden nor denied execute",
	                              ws));
	IT_EXPECT_NOT_CONTAINS(r.out, fmt("execute on '%s/uploads/**'", ws));
}

/* The landlock backend mounts nothing: --dry-run and sbx check say that execute there is
 * execve only, and that a loader or an interpreter still runs the file. */
static void test_landlock_backend_says_the_limit(void)
{
	struct it_run r;

	setup();
	it_sbxv(&r, "run", "-p", profile, "--workspace", ws, "--backend", "landlock", "--dry-run",
	        "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out,
	                   fmt("execute on '%s/uploads/**' (policy no-upload-exec, rule "
	                       "no-exec-uploads): Landlock refuses execve(2) only, since the "
	                       "landlock backend mounts nothing (the namespaces backend "
	                       "makes %s/uploads a noexec mount); a loader (ld.so FILE) "
	                       "still maps and runs such a file, and an interpreter reading "
	                       "a script does a read, not an execution",
	                       ws, ws));
	it_sbxv(&r, "run", "-p", profile, "--workspace", ws, "--backend", "landlock", "--dry-run",
	        "--json", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "\"limits\":[\"execute on '");

	it_sbxv(&r, "check", "-p", profile, "--workspace", ws, "execute",
	        fmt("%s/uploads/tool", ws), fmt("%s/s.sh", ws), fmt("%s/bin/tool", ws), NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, fmt("deny  execute %s/uploads/tool  policy "
	                              "no-upload-exec/no-exec-uploads",
	                              ws));
	IT_EXPECT_CONTAINS(r.out, fmt("allow execute %s/bin/tool", ws));
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: note: execute on %s/uploads/tool: under the namespaces "
	                              "backend %s/uploads is a noexec mount (if it exists at "
	                              "launch), which refuses execve(2) and a loader's mmap; under "
	                              "the landlock backend Landlock refuses execve(2) only, and a "
	                              "loader (ld.so FILE) still runs it",
	                              ws, ws));
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: note: execute on %s/s.sh: '**/*.sh' is a glob over "
	                              "single files",
	                              ws));
}

/* A nested sandbox's own profile denies execute on uploads/: its noexec mount is the child's
 * (a nested sandbox builds its own mount namespace), and the loader fails there too. */
static void test_loader_refused_nested(void)
{
	char *parent, *script, vsbx[4200], sbxdir[4096];
	struct it_run r;

	setup();
	IT_EXPECT_INT(mkdir(fmt("%s/cache", ws), 0755), 0);
	parent = fmt("%s/parent.yaml", it_tmpdir());
	it_write_file(parent, "version: 1\nname: parent\nnesting: true\n");
	snprintf(sbxdir, sizeof(sbxdir), "%s", it_sbx_path());
	snprintf(vsbx, sizeof(vsbx), "%s:ro", dirname(sbxdir));
	script = fmt("%s run -p %s --workspace %s -v %s:ro --backend namespaces -- /bin/sh -c '%s "
	             "%s/uploads/tool; echo loader=$?; %s --probe mmap-exec %s/uploads/tool'",
	             it_sbx_path(), profile, ws, it_self_dir(), loader, ws, it_self(), ws);
	{
		const char *opts[] = {"-p", parent, "-v", it_tmpdir(), "-v", vsbx, NULL};
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.out, fmt("mmap-exec %s/uploads/tool => EPERM", ws));
	IT_EXPECT_NOT_CONTAINS(r.out, "loader=0\n");
	IT_EXPECT_CONTAINS(r.err, "failed to map segment");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_loader_refused_namespaces),
	    IT_CASE(test_loader_refused_nested),
	    IT_CASE(test_dry_run_says_namespaces),
	    IT_CASE(test_landlock_backend_says_the_limit),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
