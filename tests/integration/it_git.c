/* SPDX-License-Identifier: MIT */
/*
 * git's control surface (src/os/gitguard.h). A hook or a config a worker plants in a
 * repository runs on the host at the user's next git command, so where a writable mount shows
 * a repository at launch, .git is a mount point of its own (it cannot be renamed or replaced:
 * EBUSY) and every control file that exists is read-only (EROFS): config, hooks/, submodules'
 * git dirs under modules/, linked worktrees' under worktrees/ (config.worktree, commondir,
 * gitdir), and a checkout's .git file. A name that does not exist at launch in a .git that git
 * must write (.git/commondir) cannot be guarded by a mount: sbx says so at launch and names it
 * after the run if it appeared. Under the landlock backend .git is read-only whole (EACCES).
 * git add, commit, stash, rebase, fetch and gc keep working under the namespaces backend.
 * As root and as the user.
 */
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "os/gitguard.h"

static char t[4096], ws[4200], wt[4200], up[4200];

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

static const char git[] = "git -c user.name=sbx -c user.email=sbx@x.invalid "
                          "-c init.defaultBranch=main -c protocol.file.allow=always";

static void host_sh(const char *script)
{
	struct it_run r;
	const char *argv[] = {"/bin/sh", "-c", script, NULL};

	it_exec(&r, argv);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "%s: status %d\n%s%s", script, r.status, r.out, r.err);
}

/*
 * t/ws: a repository with a commit, a submodule's git dir (.git/modules/sub, its config and
 * hooks), and a linked worktree t/wt (.git/worktrees/wt, given a config.worktree); t/up.git a
 * bare upstream; t/ws/decoy, a folder to rename over .git; hooks in the working tree (husky's
 * .husky, which core.hooksPath names); a real submodule at t/ws/lib (its .git a file naming
 * .git/modules/lib).
 */
static void setup(void)
{
	snprintf(t, sizeof(t), "%s", it_tmpdir());
	snprintf(ws, sizeof(ws), "%s/ws", t);
	snprintf(wt, sizeof(wt), "%s/wt", t);
	snprintf(up, sizeof(up), "%s/up.git", t);
	host_sh(fmt("set -e; export GIT_CONFIG_NOSYSTEM=1; %s init -q --bare %s; %s init -q %s; cd "
	            "%s; echo one > f; %s add f; "
	            "%s commit -qm one; %s remote add origin %s; %s push -q origin main; "
	            "%s worktree add -q %s; mkdir -p .git/modules/sub/hooks; "
	            "echo 'ref: refs/heads/main' > .git/modules/sub/HEAD; "
	            "echo '[core]' > .git/modules/sub/config; "
	            "echo '[core]' > .git/worktrees/wt/config.worktree; mkdir decoy; "
	            "%s config core.hooksPath .husky; mkdir .husky; "
	            "echo '# husky' > .husky/pre-commit; mkdir tools; echo '# hook' > "
	            "tools/pre-rebase; ln -s ../../tools/pre-rebase .git/hooks/pre-rebase; "
	            "%s submodule add -q %s lib; "
	            "%s commit -qm lib",
	            git, up, git, ws, ws, git, git, git, up, git, git, wt, git, git, up, git));
	setenv("HOME", t, 1);
}

/* Every probe of git's control surface in ws, and the workspace's own ones. */
static char *probes(void)
{
	return fmt(
	    "%s --probe rename %s/.git %s/.git-orig rename %s/decoy %s/.git "
	    "create %s/.git/hooks/pre-commit write %s/.git/config "
	    "create %s/.git/modules/sub/hooks/post-checkout write %s/.git/modules/sub/config "
	    "write %s/.git/worktrees/wt/config.worktree write %s/.git/worktrees/wt/commondir "
	    "write %s/.git/worktrees/wt/gitdir write %s/.git rename %s/.git %s/x "
	    "write %s/.husky/pre-commit write %s/lib/.git write %s/.git/modules/lib/config "
	    "create %s/.git/commondir write %s/tools/pre-rebase rename %s/tools %s/tools-old "
	    "create %s/.git/config.worktree",
	    it_self(), ws, ws, ws, ws, ws, ws, ws, ws, ws, ws, ws, wt, wt, wt, ws, ws, ws, ws, ws,
	    ws, ws, ws);
}

/* ro: what a write to a read-only control file gives; busy: what renaming a guard gives */
static void expect_probes(const struct it_run *r, const char *ro, const char *busy)
{
	IT_EXPECT_CONTAINS(r->out, fmt("rename %s/.git => %s", ws, busy));
	/* a folder renamed over .git: refused before the kernel's EBUSY (no new .git where the
	 * host keeps it) */
	IT_EXPECT_CONTAINS(r->out, fmt("rename %s/decoy => EACCES", ws));
	IT_EXPECT_CONTAINS(r->out, fmt("create %s/.git/hooks/pre-commit => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git/config => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out,
	                   fmt("create %s/.git/modules/sub/hooks/post-checkout => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git/modules/sub/config => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git/worktrees/wt/config.worktree => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git/worktrees/wt/commondir => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git/worktrees/wt/gitdir => %s", ws, ro));
	/* hooks in the working tree, which the (read-only) config names, or a hook links to */
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.husky/pre-commit => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/tools/pre-rebase => %s", ws, ro));
	/* ... whose folder cannot be renamed away for a new one (re-verification) */
	IT_EXPECT_CONTAINS(r->out, fmt("rename %s/tools => %s", ws, busy));
	/* a submodule's checkout and its git dir */
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/lib/.git => %s", ws, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git/modules/lib/config => %s", ws, ro));
	/* the linked worktree's .git file */
	IT_EXPECT_CONTAINS(r->out, fmt("write %s/.git => %s", wt, ro));
	IT_EXPECT_CONTAINS(r->out, fmt("rename %s/.git => %s", wt, busy));
	/* config.worktree, read once extensions.worktreeConfig is on (git sparse-checkout init
	 * turns it on later, on the host): never made, though the config does not name it */
	IT_EXPECT_CONTAINS(r->out, fmt("create %s/.git/config.worktree => EACCES", ws));
}

/* Namespaces backend, the default profile over t (both checkouts in view). */
static void test_control_surface_namespaces(void)
{
	struct it_run r;
	const char *opts[] = {"-v", t, "--workspace", ws, "--backend", "namespaces", NULL};

	setup();
	{
		/* and a repository of the worker's own registered as a submodule: git would run
		 * git in it, with its config, at the next git status */
		char *script = fmt("cd %s; export GIT_CONFIG_NOSYSTEM=1; git update-index --add "
		                   "--cacheinfo 160000,$(git rev-parse HEAD),evil; %s",
		                   ws, probes());
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	expect_probes(&r, "EROFS", "EBUSY");
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: warning: git: %s/evil was made a submodule during the "
	                              "run",
	                              ws));
	IT_EXPECT_NOT_CONTAINS(r.err, fmt("%s/lib was made a submodule", ws));
	/* the hard case: a name that does not exist in a .git git must write, which no mount
	 * can guard: the supervisor refuses its creation (src/os/supervisor.c) */
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/.git/commondir => EACCES", ws));
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: supervisor: denied create %s/.git/commondir", ws));
	IT_EXPECT_NOT_CONTAINS(r.err, "cannot be protected here");
	IT_EXPECT_NOT_CONTAINS(r.err, "appeared during the run");
	/* nothing written on the host */
	{
		struct stat st;

		IT_EXPECT_INT(lstat(fmt("%s/.git/commondir", ws), &st), -1);
		IT_EXPECT_INT(lstat(fmt("%s/.git-orig", ws), &st), -1);
		IT_EXPECT_INT(lstat(fmt("%s/.git/hooks/pre-commit", ws), &st), -1);
		IT_EXPECT_INT(lstat(fmt("%s/.git/modules/sub/hooks/post-checkout", ws), &st), -1);
	}
}

/* The landlock backend mounts nothing: .git is read-only whole, and the name that does not
 * exist cannot be made either. */
static void test_control_surface_landlock(void)
{
	struct it_run r;
	const char *opts[] = {"-v", t, "--workspace", ws, "--backend", "landlock", NULL};

	setup();
	{
		const char *cmd[] = {"/bin/sh", "-c", probes(), NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	expect_probes(&r, "EACCES", "EACCES");
	IT_EXPECT_CONTAINS(r.out, fmt("create %s/.git/commondir => EACCES", ws));
	IT_EXPECT_CONTAINS(r.err, "sbx: note: git: the landlock backend cannot make .git a mount "
	                          "point of its own");
	IT_EXPECT_NOT_CONTAINS(r.err, "appeared during the run");
	/* and --dry-run says so: the pin it shows is read-only, as the rules grant */
	it_sbxv(&r, "run", "--dry-run", "-v", t, "--workspace", ws, "--backend", "landlock", "--",
	        "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	{
		const char *bind = strstr(r.out, fmt(" %s/.git <- %s/.git ", ws, ws));
		const char *line = bind;

		while (line && line > r.out && line[-1] != '\n')
			line--;
		IT_EXPECT(line != NULL);
		IT_EXPECT(line && strncmp(line, "  bind      ro ", 15) == 0);
		IT_EXPECT_CONTAINS(r.out, "the landlock backend mounts nothing, so it is read-only "
		                          "whole");
	}
}

/* git works in a claude-agent sandbox: add, commit, stash, rebase, fetch, push, gc, and in the
 * linked worktree too; the config and hooks stay as they were. */
static void test_git_works_claude_agent(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	struct it_run r;
	char *script;

	setup();
	if (!src || !*src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	it_write_file(fmt("%s/.claude/settings.json", t), "{}\n");
	setenv("SBX_PROFILE_PATH", fmt("%s/profiles", src), 1);
	unsetenv("XDG_CONFIG_HOME");
	if (chdir(ws) < 0)
		it_fail(__FILE__, __LINE__, "chdir %s", ws);
	script = fmt("set -e; export GIT_CONFIG_NOSYSTEM=1; g='%s'; cd %s; echo two >> f; $g add "
	             "f; $g commit -qm two; "
	             "echo three >> f; $g stash -q; $g stash pop -q; $g commit -qam three; "
	             "$g checkout -qb side HEAD~1; echo s > s; $g add s; $g commit -qm side; "
	             "$g rebase -q main; $g fetch -q origin; $g push -q origin side; $g gc -q; "
	             "$g checkout -q main; cd %s; echo w > w; $g add w; $g commit -qm wt; "
	             "cd %s; $g log --format=%%s --all | sort | tr '\\n' ' '; echo; echo GIT-OK",
	             git, ws, wt, ws);
	/* t is also $HOME here: shown as it is, instead of claude-agent's private home */
	it_sbxv(&r, "run", "-p", "claude-agent", "--home", "none", "-v", t, "--", "/bin/sh", "-c",
	        script, NULL);
	if (r.status != 0)
		it_fail(__FILE__, __LINE__, "status %d:\n%s%s", r.status, r.out, r.err);
	IT_EXPECT_CONTAINS(r.out, "one side three two wt \nGIT-OK\n");
	IT_EXPECT_NOT_CONTAINS(r.err, "appeared during the run");
	/* the runs changed no control file */
	{
		struct it_run h;
		const char *argv[] = {"/bin/sh", "-c",
		                      fmt("cd %s && ls .git/hooks | grep -v sample | wc -l && "
		                          "cat .git/worktrees/wt/config.worktree",
		                          ws),
		                      NULL};

		it_exec(&h, argv);
		IT_EXPECT_CONTAINS(h.out, "1\n[core]\n"); /* setup's pre-rebase link only */
	}
}

/* A hook that reaches its program through a second symlink in the working tree
 * (hooks/pre-commit -> ../../hooklink -> tools/pre-commit): the link could be replaced,
 * and a mount holds files, not links, so the launch is refused (re-verification). */
static void test_hook_link_chain_refused(void)
{
	struct it_run r;
	char *repo = fmt("%s/chain", it_tmpdir());

	host_sh(fmt("set -e; %s init -q %s; cd %s; mkdir tools; echo '#!/bin/sh' > "
	            "tools/pre-commit; ln -s tools/pre-commit hooklink; ln -s ../../hooklink "
	            ".git/hooks/pre-commit",
	            git, repo, repo));
	it_sbxv(&r, "run", "-v", repo, "--chdir", repo, "--", "/bin/sh", "-c",
	        "echo PWNED >> tools/pre-commit", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "through another symlink");
	{
		struct it_run h;
		const char *argv[] = {"/bin/cat", fmt("%s/tools/pre-commit", repo), NULL};

		it_exec(&h, argv);
		IT_EXPECT_NOT_CONTAINS(h.out, "PWNED");
	}
}

/* A profile may turn the guards off; --dry-run shows them when on. */
static void test_dry_run_and_opt_out(void)
{
	struct it_run r;
	char *prof = fmt("%s/open.yaml", it_tmpdir());

	setup();
	/* the user's own config (HOME is t here, which the sandbox shows writable), and a
	 * relative core.hooksPath there, which names a folder in every working tree */
	it_write_file(fmt("%s/.gitconfig", t), "[core]\n\thooksPath = .githooks\n");
	IT_EXPECT_INT(mkdir(fmt("%s/.githooks", ws), 0755), 0);
	it_sbxv(&r, "run", "-v", t, "--workspace", ws, "--backend", "namespaces", "--dry-run", "--",
	        "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.gitconfig <- %s/.gitconfig  (git control file)", t, t));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.githooks <- %s/.githooks  (git control file)", ws, ws));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.git <- %s/.git  (git directory, pinned", ws, ws));
	IT_EXPECT_CONTAINS(r.out,
	                   fmt("%s/.git/config <- %s/.git/config  (git control file)", ws, ws));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.git/modules/sub/hooks <- ", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.git/worktrees/wt/gitdir <- ", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("%s/.git <- %s/.git  (git control file)", wt, wt));
	/* the names no mount can guard are the supervisor's, not a limit (with no supervisor
	 * able to run, they would be a "git:" limit line) */
	IT_EXPECT_CONTAINS(r.out, fmt("  %s/.git/config.worktree (git's control surface", ws));
	IT_EXPECT_CONTAINS(r.out, fmt("  %s/.git/commondir (git's control surface", ws));
	IT_EXPECT_NOT_CONTAINS(r.out, fmt("  git: %s/.git/config.worktree", ws));
	it_sbxv(&r, "check", "--workspace", ws, "write", fmt("%s/.git/config", ws), NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out,
	                   fmt("readonly: git control file %s/.git/config is read-only", ws));
	it_sbxv(&r, "check", "--workspace", ws, "write", fmt("%s/.git/config.worktree", ws), NULL);
	IT_EXPECT_INT(r.status, 1);
	IT_EXPECT_CONTAINS(r.out, fmt("deny  write   %s/.git/config.worktree  protected:", ws));

	it_write_file(prof, "version: 1\nname: open\nprotect_git: false\nmounts:\n"
	                    "  - path: ${WORKSPACE}\n");
	it_sbxv(&r, "run", "-p", prof, "--workspace", ws, "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "git control file");
	IT_EXPECT_NOT_CONTAINS(r.out, "git directory, pinned");
}

static void count_line(const char *line, void *ctx)
{
	char **last = ctx;

	free(*last);
	*last = strdup(line);
}

/* A fresh project's .git (none at launch: the supervisor refuses its creation) that appeared
 * anyway, by a route the supervisor does not hold (another process on the host, a run
 * without one): sbx_gitguard_after names it, a folder or a file, once, also where the
 * workspace lies inside a repository (`appear` names it then). (Before: never named.) */
static void test_fresh_git_named_after(void)
{
	char *dir = it_path(it_tmpdir(), "fresh"), *dotgit = it_path(dir, ".git");
	char *fresh[] = {dotgit}, *last = NULL;
	struct sbx_gitguard g = {.fresh = fresh, .n_fresh = 1};

	IT_EXPECT_INT(mkdir(dir, 0755), 0);
	IT_EXPECT_INT((int)sbx_gitguard_after(&g, count_line, &last), 0);
	IT_EXPECT_INT(mkdir(dotgit, 0755), 0);
	IT_EXPECT_INT((int)sbx_gitguard_after(&g, count_line, &last), 1);
	IT_EXPECT_CONTAINS(last, fmt("git: %s appeared during the run", dotgit));
	IT_EXPECT_CONTAINS(last, "look at it before running git there");
	IT_EXPECT_INT(rmdir(dotgit), 0);
	it_write_file(dotgit, "gitdir: /elsewhere\n");
	IT_EXPECT_INT((int)sbx_gitguard_after(&g, count_line, &last), 1);
	g.appear = fresh;
	g.n_appear = 1;
	IT_EXPECT_INT((int)sbx_gitguard_after(&g, count_line, &last), 1);
	free(last);
}

/* A second, read-only view of the workspace (-v WS:/ref:ro) does not turn the protection of
 * git's absent names off: the writable view at the workspace's own path still shows them,
 * and the supervisor refuses their creation there; a fresh project shown twice (read-only at
 * /a, writable at /b) is refused `git init` at /b. (Before: the view with the longest source,
 * the read-only one, decided, and nothing was protected nor said: an outside attack.) */
static void test_second_view_keeps_protection(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	char *repo = it_path(it_tmpdir(), "twice"), *fresh = it_path(it_tmpdir(), "fresh2");
	struct it_run r;
	struct stat st;

	if (!src || !*src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	setenv("SBX_PROFILE_PATH", fmt("%s/profiles", src), 1);
	host_sh(fmt("%s init -q %s && %s -C %s commit -q --allow-empty -m i && mkdir %s", git, repo,
	            git, repo, fresh));
	it_sbxv(&r, "run", "-p", "claude-agent", "--home", "tmpfs", "-v", fmt("%s:/ref:ro", repo),
	        "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        "echo ../.evil > .git/commondir; echo config > .git/config.worktree; true", NULL);
	IT_EXPECT_CONTAINS(r.err, "protected");
	IT_EXPECT(lstat(fmt("%s/.git/commondir", repo), &st) < 0 && errno == ENOENT);
	IT_EXPECT(lstat(fmt("%s/.git/config.worktree", repo), &st) < 0 && errno == ENOENT);
	it_sbxv(&r, "run", "-p", "claude-agent", "--home", "tmpfs", "-v", fmt("%s:/a:ro", fresh),
	        "-v", fmt("%s:/b", fresh), "-w", "/b", "--", "/bin/sh", "-c",
	        fmt("%s init -q .; true", git), NULL);
	IT_EXPECT(lstat(fmt("%s/.git", fresh), &st) < 0 && errno == ENOENT);
}

/* A submodule staged in a split index (its entries partly in .git/sharedindex.*), and an index
 * replaced by a symbolic link: both named when the run ends (before: sbx read only the split
 * part, and a link not at all, and said nothing while the host's git status ran the
 * submodule's fsmonitor: an outside attack). */
static void test_split_or_linked_index_named(void)
{
	static const char *const scripts[] = {
	    "git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),sub && "
	    "git update-index --split-index",
	    "cp .git/index .git/idx2 && rm .git/index && ln -s idx2 .git/index",
	};
	static const char *const says[] = {"was made a submodule during the run",
	                                   "cannot be read by sbx after the run (a symbolic link)"};

	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		char *repo = it_path(it_tmpdir(), i ? "linked" : "split");
		struct it_run r;

		host_sh(fmt("%s init -q %s && %s -C %s commit -q --allow-empty -m i", git, repo,
		            git, repo));
		it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
		        fmt("export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@a GIT_COMMITTER_NAME=a "
		            "GIT_COMMITTER_EMAIL=a@a GIT_CONFIG_NOSYSTEM=1; set -e; %s",
		            scripts[i]),
		        NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.err, says[i]);
	}
}

/* A repository made the sandbox's root (--root REPO shows its .git at /.git), or shown by two
 * writable binds, is guarded at every view as a single bind's is: its config and hooks read-only,
 * its absent control files refused (before: all three planted, and the host's next git status and
 * commit ran them: an outside attack). */
static void test_root_repo_guarded(void)
{
	char *repo = it_path(it_tmpdir(), "rootrepo");
	struct it_run r;
	struct stat st;

	host_sh(
	    fmt("%s init -q %s && %s -C %s commit -q --allow-empty -m i", git, repo, git, repo));
	/* two writable views of one repository: its hooks read-only at both (before: at the
	 * first only, the survey took a git dir once whatever its view) */
	it_sbxv(&r, "run", "-v", fmt("%s:/a", repo), "-v", fmt("%s:/b", repo), "-w", "/a", "--",
	        "/bin/sh", "-c",
	        "echo x > /b/.git/hooks/pre-commit; echo x > /a/.git/hooks/post-commit; true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(lstat(fmt("%s/.git/hooks/pre-commit", repo), &st) < 0 && errno == ENOENT);
	IT_EXPECT(lstat(fmt("%s/.git/hooks/post-commit", repo), &st) < 0 && errno == ENOENT);
	it_sbxv(&r, "run", "--root", repo, "-w", "/", "--", "/bin/sh", "-c",
	        "git config core.fsmonitor 'touch /tmp/x; false'; "
	        "echo x > /.git/hooks/pre-commit; echo ../evil > /.git/commondir; true",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT(lstat(fmt("%s/.git/hooks/pre-commit", repo), &st) < 0 && errno == ENOENT);
	IT_EXPECT(lstat(fmt("%s/.git/commondir", repo), &st) < 0 && errno == ENOENT);
	{
		struct it_run h;
		const char *argv[] = {
		    "/bin/sh", "-c", fmt("git -C %s config --get core.fsmonitor; echo rc=$?", repo),
		    NULL};

		it_exec(&h, argv);
		IT_EXPECT_CONTAINS(h.out, "rc=1");
	}
}

/*
 * No new repository where the host keeps files (an outside attack: a git dir the worker made,
 * .git/modules/b or b/.git with core.fsmonitor in its config, registered as a submodule by a
 * gitlink in the index, which the worker may write: the host's next `git status` ran it).
 * The worker cannot make a .git by any call in a writable mount of a host directory; it can
 * in its private /tmp, and inside the .git that exists. protect_git: false allows it.
 */
static void no_new_repository(const char *backend)
{
	bool ns = strcmp(backend, "namespaces") == 0;
	const char *opts[] = {"-v", t, "--workspace", ws, "--backend", backend, NULL};
	char *script, *marker = fmt("%s/FSMONITOR-RAN", t), *deep;
	struct it_run r;
	struct stat st;

	setup();
	/* the landlock backend: ws is read-only whole (setup's hook link pins it), so beside it */
	deep = fmt("%s/deep", ns ? ws : t);
	IT_EXPECT_INT(mkdir(deep, 0755), 0);
	script = fmt(
	    "export GIT_CONFIG_NOSYSTEM=1; g='%s'; cd %s;"
	    " $g init -q r 2>/dev/null; echo init=$?;"
	    " mkdir b; printf 'gitdir: %s/.git/modules/sub\\n' > b/.git; echo file=$?;"
	    " mkdir -p c/x; mv c/x c/.git 2>/dev/null; echo rename=$?;"
	    " ln -s . .GIT. 2>/dev/null; echo symlink=$?;"
	    " $g worktree add -q wt2 2>/dev/null; echo worktree=$?;"
	    " $g clone -q %s /tmp/cl && $g -C /tmp/cl log --oneline | wc -l | sed 's/^/tmp=/';"
	    " cd %s; mkdir -p .git/sbx-scratch; echo inside=$?;"
	    " $g update-index --add --cacheinfo 160000,$($g rev-parse HEAD),deep/b; echo link=$?;"
	    /* a bare repository's shape in a folder (git takes it for one, in it and beneath) */
	    " cd %s; mkdir -p bare/objects bare/refs/heads;"
	    " echo 'ref: refs/heads/main' > bare/HEAD 2>/dev/null; echo bare=$?;"
	    " printf '[core]\\n\\tfsmonitor = \"touch %s; false\"\\n' > bare/config;"
	    " cp bare/config b/config 2>/dev/null;"
	    /* a submodule's git dir, which fetch and submodule update use with no checkout */
	    " cd %s; mkdir -p .git/modules/x/objects .git/modules/x/refs/heads;"
	    " echo 'ref: refs/heads/main' > .git/modules/x/HEAD 2>/dev/null; echo modhead=$?;"
	    " cp %s/bare/config .git/modules/x/config 2>/dev/null;"
	    /* git itself still replaces HEAD, and makes a remote's HEAD in refs */
	    " $g symbolic-ref HEAD refs/heads/main; echo headlock=$?;"
	    " $g symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main; echo "
	    "remotehead=$?;"
	    /* a git dir grown beside a HEAD inside .git, which a link from the workspace reaches
	     * (git takes the link's real path for a bare repository) */
	    " mkdir -p .git/logs/x/objects .git/logs/x/refs 2>/dev/null;"
	    " echo 'ref: refs/heads/main' > .git/logs/x/HEAD 2>/dev/null; echo grownhead=$?;"
	    " mkdir -p .git/logs/refs; mkdir .git/logs/objects 2>/dev/null; echo logsobjects=$?;"
	    " echo ../.. > .git/logs/commondir 2>/dev/null; echo logscommondir=$?;"
	    /* a folder that holds a HEAD, moved where git looks for git dirs */
	    " mkdir -p .git/modules; mv .git/refs/remotes .git/modules/m 2>/dev/null;"
	    " echo movein=$?; ln -s ../refs/remotes/origin .git/modules/l 2>/dev/null;"
	    " echo linkin=$?;"
	    " true",
	    git, deep, ws, up, ws, deep, marker, ws, deep);
	{
		const char *cmd[] = {"/bin/sh", "-c", script, NULL};

		it_run_in(&r, opts, cmd);
	}
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "init=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "file=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "rename=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "symlink=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "worktree=0");
	if (ns) /* a private /tmp (the landlock backend denies the host's) */
		IT_EXPECT_CONTAINS(r.out, "tmp=1\n");
	IT_EXPECT_CONTAINS(r.err, fmt("protected: %s/r/.git (a new git repository where the host "
	                              "keeps files",
	                              deep));
	IT_EXPECT_CONTAINS(r.err, fmt("protected: %s/b/.git", deep));
	IT_EXPECT_CONTAINS(r.err, fmt("protected: %s/c/.git", deep));
	IT_EXPECT_CONTAINS(r.err, fmt("protected: %s/.GIT.", deep));
	IT_EXPECT_NOT_CONTAINS(r.out, "bare=0");
	IT_EXPECT_CONTAINS(r.err, fmt("protected: %s/bare/HEAD (a new git repository", deep));
	IT_EXPECT(lstat(fmt("%s/bare/HEAD", deep), &st) < 0);
	if (ns) {
		/* inside the .git that exists, and the index, git must write; but no git dir of
		 * a new submodule */
		IT_EXPECT_NOT_CONTAINS(r.out, "modhead=0");
		IT_EXPECT(lstat(fmt("%s/.git/modules/x/HEAD", ws), &st) < 0);
		IT_EXPECT_NOT_CONTAINS(r.out, "grownhead=0");
		IT_EXPECT_NOT_CONTAINS(r.out, "logsobjects=0");
		IT_EXPECT_NOT_CONTAINS(r.out, "logscommondir=0");
		IT_EXPECT(lstat(fmt("%s/.git/logs/x/HEAD", ws), &st) < 0);
		IT_EXPECT_NOT_CONTAINS(r.out, "movein=0");
		IT_EXPECT_NOT_CONTAINS(r.out, "linkin=0");
		IT_EXPECT(lstat(fmt("%s/.git/modules/m", ws), &st) < 0);
		IT_EXPECT_CONTAINS(r.out, "headlock=0");
		IT_EXPECT_CONTAINS(r.out, "remotehead=0");
		IT_EXPECT_CONTAINS(r.out, "inside=0");
		IT_EXPECT_CONTAINS(r.out, "link=0");
		IT_EXPECT_CONTAINS(r.err, fmt("%s/deep/b was made a submodule during the run", ws));
	}
	IT_EXPECT(lstat(fmt("%s/r/.git", deep), &st) < 0);
	IT_EXPECT(lstat(fmt("%s/b/.git", deep), &st) < 0);
	IT_EXPECT(lstat(fmt("%s/c/.git", deep), &st) < 0);
	IT_EXPECT(lstat(fmt("%s/.GIT.", deep), &st) < 0);
	IT_EXPECT(lstat(fmt("%s/wt2/.git", deep), &st) < 0);
	/* the host's git status, in the workspace and in the folders the worker shaped, runs
	 * no program of the worker's: its configs are there, but no git dir to read them (the
	 * registered submodule has none) */
	host_sh(fmt("for d in %s %s/bare %s/b %s/.git/modules/x; do [ -d $d ] || continue;"
	            " (cd $d && GIT_CONFIG_NOSYSTEM=1 git status >/dev/null 2>&1); done; true",
	            ws, deep, deep, ws));
	IT_EXPECT(lstat(marker, &st) < 0);

	/* the profile's opt-out */
	{
		char *prof = fmt("%s/open.yaml", it_tmpdir());
		const char *open_opts[] = {"-p",        prof,    "--workspace", ns ? ws : t,
		                           "--backend", backend, NULL};
		/* mkdir, not git init: as root the landlock backend denies chmod, which git init
		 * does */
		const char *cmd[] = {"/bin/mkdir", "-p", fmt("%s/r2/.git", deep), NULL};

		it_write_file(prof, "version: 1\nname: open\nprotect_git: false\nmounts:\n"
		                    "  - path: ${WORKSPACE}\n");
		it_run_in(&r, open_opts, cmd);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT(lstat(fmt("%s/r2/.git", deep), &st) == 0);
	}
}

/*
 * Where the host keeps files is the directory's file system, not its path: a folder above a
 * tmpfs or a hidden folder inside the workspace, renamed away and made again, is the host's
 * (an outside attack: the plan's path still read "tmpfs", and git init went through).
 */
static void test_no_new_repository_after_rename(void)
{
	char *w = it_path(it_tmpdir(), "rn"), *prof = it_path(it_tmpdir(), "hide.yaml");
	struct it_run r;
	struct stat st;

	host_sh(fmt("set -e; %s init -q %s; mkdir -p %s/web/node_modules %s/backend/.env/bin", git,
	            w, w, w));
	it_write_file(prof, "version: 1\nname: hide\nhide: ['${WORKSPACE}/**/.env']\nmounts:\n"
	                    "  - path: ${WORKSPACE}\n");
	it_sbxv(&r, "run", "-p", prof, "--workspace", w, "--tmpfs", fmt("%s/web/node_modules", w),
	        "--", "/bin/sh", "-c",
	        fmt("cd %s; mkdir web/node_modules/.git && echo private=ok;"
	            " mv web web.old && mkdir -p web/node_modules && mkdir web/node_modules/.git;"
	            " echo tmpfs=$?; mv backend backend.old && mkdir -p backend/.env &&"
	            " %s init -q backend/.env; echo hidden=$?; true",
	            w, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "private=ok"); /* on the tmpfs itself, gone after the run */
	IT_EXPECT_NOT_CONTAINS(r.out, "tmpfs=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "hidden=0");
	IT_EXPECT(lstat(fmt("%s/web/node_modules/.git", w), &st) < 0);
	IT_EXPECT(lstat(fmt("%s/backend/.env/.git", w), &st) < 0);
}

/* Under the landlock backend a private home, or one no mount shows, is denied; git, which
 * stops on a global config it may not read, still reads the history (GIT_CONFIG_GLOBAL), with
 * a home of each kind. */
static void test_landlock_git_reads(void)
{
	char *w = it_path(it_tmpdir(), "ll");
	const char *homes[] = {"empty", "tmpfs",
	                       "none"}; /* ci-job's, the default's, code-reviewer's */
	struct it_run r;

	host_sh(fmt("set -e; %s init -q %s; %s -C %s commit -q --allow-empty -m first", git, w, git,
	            w));
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
		it_sbxv(&r, "run", "--backend", "landlock", "--home", homes[i], "-v", w, "-w", w,
		        "--", "git", "log", "--format=%s", NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "first\n");
	}
}

/* A bare repository at the top of a writable mount (a local remote passed with -v): its hooks
 * and config are guarded as a .git's, and a push into it still works (an outside attack
 * wrote hooks/pre-receive there, which ran at the user's next git push). */
static void bare_top(const char *backend)
{
	char *b = it_path(it_tmpdir(), "bare"), *o = fmt("%s/origin.git", b), *w = fmt("%s/w", b);
	bool ns = strcmp(backend, "namespaces") == 0;
	struct it_run r;
	struct stat st;

	host_sh(fmt("set -e; mkdir -p %s; %s init -q --bare %s; %s init -q %s; cd %s; echo a > f;"
	            " %s add f; %s commit -qm one; %s remote add origin %s; %s push -q origin main",
	            b, git, o, git, w, w, git, git, git, o, git));
	it_sbxv(&r, "run", "--backend", backend, "-v", o, "-v", w, "-w", w, "--", "/bin/sh", "-c",
	        fmt("g='%s'; $g commit -q --allow-empty -m two && $g push -q origin main &&"
	            " echo pushed; echo x > %s/hooks/pre-receive; echo hook=$?;"
	            " echo '[alias]' >> %s/config; echo config=$?; true",
	            git, o, o),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.out, "hook=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "config=0");
	IT_EXPECT(lstat(fmt("%s/hooks/pre-receive", o), &st) < 0);
	if (ns) /* the landlock backend keeps a git dir read-only whole */
		IT_EXPECT_CONTAINS(r.out, "pushed\n");
}

static void test_bare_top_namespaces(void)
{
	bare_top("namespaces");
}

static void test_bare_top_landlock(void)
{
	bare_top("landlock");
}

/* A workspace that is a linked worktree of a repository outside it: git cannot find its git
 * dir, and sbx says so at launch; with the repository mounted too, git works there. */
static void test_linked_worktree_workspace(void)
{
	char *b = it_path(it_tmpdir(), "lw"), *repo = fmt("%s/r", b), *lwt = fmt("%s/wt", b);
	struct it_run r;

	host_sh(fmt("set -e; mkdir -p %s; %s init -q %s; %s -C %s commit -q --allow-empty -m first;"
	            " %s -C %s worktree add -q %s",
	            b, git, repo, git, repo, git, repo, lwt));
	it_sbxv(&r, "run", "--workspace", lwt, "-w", lwt, "--", "git", "log", "--format=%s", NULL);
	IT_EXPECT_CONTAINS(r.err,
	                   fmt("sbx: note: git: the workspace's .git names %s/.git/worktrees/"
	                       "wt, which no mount shows",
	                       repo));
	it_sbxv(&r, "run", "-v", repo, "-v", lwt, "-w", lwt, "--", "git", "log", "--format=%s",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "first\n");
	IT_EXPECT_NOT_CONTAINS(r.err, "which no mount shows");
}

/*
 * What git's configs name is guarded wherever it lies (a fourth attack): a hooks folder an
 * included config names, and an include of an include; the hooks folder the enclosing
 * repository names when the workspace is a folder of it (husky in a monorepo's package); a
 * relative core.hooksPath in a workspace that is a linked worktree; a separate git dir's
 * worktrees (a "gitdir: ./.bare" layout); the user's config reached through a symbolic link
 * or named by GIT_CONFIG_GLOBAL, and a file it includes, with no repository in view.
 * Each write below must fail: the files are read-only in the sandbox.
 */
static void test_configs_followed(void)
{
	char *b = it_path(it_tmpdir(), "cf");
	struct it_run r;
	struct stat st;

	host_sh(fmt(
	    "set -e; mkdir -p %s; cd %s;"
	    /* an include chain in a repository */
	    " %s init -q inc; cd inc; mkdir -p .githooks tools;"
	    " printf '[core]\\n\\thooksPath = .githooks\\n[include]\\n\\tpath = tools/x.inc\\n' > "
	    ".gitcfg;"
	    " printf '[core]\\n' > tools/x.inc; %s config include.path ../.gitcfg; cd ..;"
	    /* a monorepo whose hooksPath names a folder in its package */
	    " %s init -q mono; mkdir -p mono/pkg/.husky/_; echo h > mono/pkg/.husky/_/pre-commit;"
	    " %s -C mono config core.hooksPath pkg/.husky/_;"
	    /* a linked worktree with a relative hooksPath */
	    " %s init -q app; mkdir app/.githooks; echo h > app/.githooks/pre-commit;"
	    " %s -C app add -A; %s -C app commit -qm one; %s -C app config core.hooksPath "
	    ".githooks;"
	    " %s -C app worktree add -q ../feat;"
	    /* a separate git dir at .bare, with a worktree */
	    " %s clone -q --bare app proj/.bare; echo 'gitdir: ./.bare' > proj/.git;"
	    " %s -C proj worktree add -q wt1 main; %s -C proj worktree prune;"
	    /* dotfiles: ~/.gitconfig a link into them, and an include there */
	    " mkdir -p home/dotfiles; printf '[include]\\n\\tpath = ~/dotfiles/more.inc\\n' >"
	    " home/dotfiles/gitconfig; printf '[core]\\n' > home/dotfiles/more.inc;"
	    " ln -s dotfiles/gitconfig home/.gitconfig; printf '[core]\\n' > "
	    "home/dotfiles/global.cfg",
	    b, b, git, git, git, git, git, git, git, git, git, git, git, git));
	it_sbxv(&r, "run", "-v", fmt("%s/inc", b), "-w", fmt("%s/inc", b), "--", "/bin/sh", "-c",
	        "echo x > .githooks/pre-commit; echo a=$?; echo x >> tools/x.inc; echo b=$?; true",
	        NULL);
	IT_EXPECT_CONTAINS(r.out, "a=");
	IT_EXPECT_NOT_CONTAINS(r.out, "a=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "b=0");
	it_sbxv(&r, "run", "--workspace", fmt("%s/mono/pkg", b), "-w", fmt("%s/mono/pkg", b), "--",
	        "/bin/sh", "-c", "echo x > .husky/_/pre-commit; echo c=$?; true", NULL);
	IT_EXPECT_CONTAINS(r.out, "c=");
	IT_EXPECT_NOT_CONTAINS(r.out, "c=0");
	it_sbxv(&r, "run", "-v", fmt("%s/app", b), "-v", fmt("%s/feat", b), "-w", fmt("%s/feat", b),
	        "--", "/bin/sh", "-c", "echo x > .githooks/pre-commit; echo d=$?; true", NULL);
	IT_EXPECT_CONTAINS(r.out, "d=");
	IT_EXPECT_NOT_CONTAINS(r.out, "d=0");
	it_sbxv(&r, "run", "-v", fmt("%s/proj", b), "-w", fmt("%s/proj", b), "--", "/bin/sh", "-c",
	        "echo ../../../x > .bare/worktrees/wt1/commondir; echo e=$?; true", NULL);
	IT_EXPECT_CONTAINS(r.out, "e=");
	IT_EXPECT_NOT_CONTAINS(r.out, "e=0");
	setenv("HOME", fmt("%s/home", b), 1);
	it_sbxv(&r, "run", "--home", "none", "-v", fmt("%s/home/dotfiles", b), "-w",
	        fmt("%s/home/dotfiles", b), "--", "/bin/sh", "-c",
	        "echo x >> gitconfig; echo f=$?; echo x >> more.inc; echo g=$?; true", NULL);
	IT_EXPECT_CONTAINS(r.out, "f=");
	IT_EXPECT_NOT_CONTAINS(r.out, "f=0");
	IT_EXPECT_NOT_CONTAINS(r.out, "g=0");
	setenv("GIT_CONFIG_GLOBAL", fmt("%s/home/dotfiles/global.cfg", b), 1);
	it_sbxv(&r, "run", "--home", "none", "-v", fmt("%s/home/dotfiles", b), "-w",
	        fmt("%s/home/dotfiles", b), "--", "/bin/sh", "-c",
	        "echo x >> global.cfg; echo h=$?; true", NULL);
	unsetenv("GIT_CONFIG_GLOBAL");
	IT_EXPECT_CONTAINS(r.out, "h=");
	IT_EXPECT_NOT_CONTAINS(r.out, "h=0");
	IT_EXPECT(stat(fmt("%s/home/dotfiles/global.cfg", b), &st) == 0 && st.st_size == 7);
}

/*
 * git's config as git reads it (a fifth attack): CRLF line ends, a UTF-8 BOM, a value
 * continued by a backslash, a config past 64 KiB, a hooks folder that is a symbolic link to
 * a tracked folder, and core.hooksPath given in the environment (GIT_CONFIG_COUNT): the hooks
 * folder each names is read-only in the sandbox.
 */
static void test_config_syntax_followed(void)
{
	static const char *const kinds[] = {"crlf",   "bom",    "cont",  "big",   "link",  "env",
	                                    "twohdr", "lonecr", "combs", "eofbs", "params"};
	char *b = it_path(it_tmpdir(), "cs");

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char *repo = fmt("%s/%s", b, kinds[i]);
		struct it_run r;

		host_sh(fmt("set -e; mkdir -p %s; %s init -q %s; mkdir %s/githooks", b, git, repo,
		            repo));
		if (strcmp(kinds[i], "crlf") == 0)
			host_sh(fmt(
			    "printf '[core]\\r\\n\\thooksPath = githooks\\r\\n' >> %s/.git/config",
			    repo));
		else if (strcmp(kinds[i], "bom") == 0)
			host_sh(
			    fmt("cd %s/.git && { printf '\\357\\273\\277[core]\\n\\thooksPath = "
			        "githooks\\n'; cat config; } > c && mv c config",
			        repo));
		else if (strcmp(kinds[i], "cont") == 0)
			host_sh(fmt(
			    "printf '[core]\\n\\thooksPath = git\\\\\\nhooks\\n' >> %s/.git/config",
			    repo));
		else if (strcmp(kinds[i], "big") == 0)
			host_sh(
			    fmt("cd %s && for i in $(seq 3000); do printf '[branch \"b%%s\"]\\n\\t"
			        "remote = origin-with-a-long-name\\n' $i; done >> .git/config && "
			        "printf '[core]\\n\\thooksPath = githooks\\n' >> .git/config",
			        repo));
		else if (strcmp(kinds[i], "link") == 0)
			host_sh(fmt("cd %s && rm -rf .git/hooks && ln -s ../githooks .git/hooks",
			            repo));
		else if (strcmp(kinds[i], "twohdr") == 0) /* several headers on a line */
			host_sh(fmt("printf '[x][core]hooksPath = githooks\\n' >> %s/.git/config",
			            repo));
		else if (strcmp(kinds[i], "lonecr") == 0) /* a lone CR is whitespace */
			host_sh(fmt("printf '[core]\\rhooksPath = githooks\\n' >> %s/.git/config",
			            repo));
		else if (strcmp(kinds[i], "combs") == 0) /* a comment's backslash joins nothing */
			host_sh(fmt("printf '[core]\\n# c\\\\\\n\\thooksPath = githooks\\n' >> "
			            "%s/.git/config",
			            repo));
		else if (strcmp(kinds[i], "eofbs") == 0) /* a backslash at the end: dropped */
			host_sh(
			    fmt("printf '[core]\\n\\thooksPath = githooks\\\\' >> %s/.git/config",
			        repo));
		if (strcmp(kinds[i], "env") == 0) {
			setenv("GIT_CONFIG_COUNT", "1", 1);
			setenv("GIT_CONFIG_KEY_0", "core.hooksPath", 1);
			setenv("GIT_CONFIG_VALUE_0", fmt("%s/githooks", repo), 1);
		}
		if (strcmp(kinds[i], "params") == 0) /* a quote escaped before the pair */
			setenv(
			    "GIT_CONFIG_PARAMETERS",
			    fmt("'alias.x'='!echo it'\\''s' 'core.hooksPath'='%s/githooks'", repo),
			    1);
		it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
		        "echo x > githooks/pre-commit; echo w=$?; true", NULL);
		unsetenv("GIT_CONFIG_PARAMETERS");
		unsetenv("GIT_CONFIG_COUNT");
		unsetenv("GIT_CONFIG_KEY_0");
		unsetenv("GIT_CONFIG_VALUE_0");
		if (!strstr(r.out, "w=") || strstr(r.out, "w=0"))
			it_fail(__FILE__, __LINE__, "%s: the hooks folder was writable:\n%s%s",
			        kinds[i], r.out, r.err);
	}
	/* a link on the way to the hooks folder (tools -> build-tools) is not replaced */
	{
		char *repo = fmt("%s/midlink", b);
		struct it_run r;

		host_sh(fmt("set -e; %s init -q %s; cd %s; mkdir -p build-tools/hooks;"
		            " ln -s build-tools tools; %s config core.hooksPath tools/hooks",
		            git, repo, repo, git));
		it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
		        "rm tools; mkdir -p evil/hooks; ln -s evil tools; echo l=$?; true", NULL);
		IT_EXPECT_CONTAINS(r.out, "l=");
		IT_EXPECT_NOT_CONTAINS(r.out, "l=0");
	}
}

/*
 * A seventh attack: a .git that is a symbolic link at launch (its git dir's hooks and config
 * are guarded as a .git's); core.fsmonitor naming a program by a path (in .git, existing or
 * not, or in the working tree: git runs it at every status); a relative core.hooksPath under
 * a core.worktree elsewhere. Each write below must fail.
 */
static void test_gitdir_link_and_fsmonitor(void)
{
	char *b = it_path(it_tmpdir(), "gl");
	struct it_run r;

	host_sh(
	    fmt("set -e; mkdir -p %s; cd %s;"
	        " %s init -q lk; cd lk; mkdir meta; mv .git meta/lk.git; ln -s meta/lk.git .git;"
	        " cd ..;"
	        " %s init -q fm; echo '#!/bin/sh' > fm/.git/fsmon; mkdir fm/tools;"
	        " echo '#!/bin/sh' > fm/tools/fsmon;"
	        " %s -C fm config core.fsmonitor .git/fsmon;"
	        " %s init -q fw; mkdir fw/tools; echo '#!/bin/sh' > fw/tools/fsmon;"
	        " %s -C fw config core.fsmonitor 'tools/fsmon --quiet';"
	        " %s init -q fn; %s -C fn config core.fsmonitor .git/query-watchman;"
	        " %s init -q cw; mkdir -p cw/tree/.githooks; %s -C cw config core.worktree"
	        " %s/cw/tree; %s -C cw config core.hooksPath .githooks",
	        b, b, git, git, git, git, git, git, git, git, git, b, git));
	{
		static const struct {
			const char *repo, *script, *var;
		} cases[] = {
		    {"lk",
		     "echo x > meta/lk.git/hooks/pre-commit; echo a=$?; echo x >> "
		     "meta/lk.git/config; echo b=$?",
		     "a="},
		    {"fm", "echo x > .git/fsmon; echo c=$?", "c="},
		    {"fw", "echo x > tools/fsmon; echo d=$?", "d="},
		    {"fn", "echo x > .git/query-watchman; echo e=$?", "e="},
		    {"cw", "echo x > tree/.githooks/pre-commit; echo f=$?", "f="},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char *repo = fmt("%s/%s", b, cases[i].repo);

			it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
			        fmt("%s; true", cases[i].script), NULL);
			if (!strstr(r.out, cases[i].var) || strstr(r.out, "=0\n"))
				it_fail(__FILE__, __LINE__, "%s: written:\n%s%s", cases[i].repo,
				        r.out, r.err);
		}
	}
}

/* A rebase's step counters that are not numbers (an eighth attack: git's prompt script
 * pastes them into PS1, where bash expands them) are named after the run; numbers, as a
 * rebase inside the sandbox leaves them, are not. */
static void test_rebase_counters_named(void)
{
	char *repo = it_path(it_tmpdir(), "rc"), *repo2 = it_path(it_tmpdir(), "rc2");
	struct it_run r;

	host_sh(fmt("%s init -q %s && %s -C %s commit -q --allow-empty -m i && %s init -q %s", git,
	            repo, git, repo, git, repo2));
	it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        "mkdir -p .git/rebase-merge && echo 2 > .git/rebase-merge/msgnum &&"
	        " echo 3 > .git/rebase-merge/end",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "holds text that is not a number");
	/* (in another repository: a rebase's state left at launch is read-only) */
	it_sbxv(&r, "run", "-v", repo2, "-w", repo2, "--", "/bin/sh", "-c",
	        "mkdir -p .git/rebase-merge && echo '$(id)' > .git/rebase-merge/msgnum", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("git: %s/.git/rebase-merge/msgnum holds text that is not a "
	                              "number",
	                              repo2));
}

/*
 * A ninth attack's findings, each a way around the guards: a hook with a second name (a hard
 * link in the working tree) is refused; the links in a core.hooksPath folder lead to guarded
 * files; husky 9's folder above its .husky/_ stubs, a template folder (init.templateDir), and
 * each file word of a core.fsmonitor shell command are read-only; a shell command sbx cannot
 * follow is refused; empty folders nested in .git/modules stop no later launch.
 */
static void test_ninth_attack_guards(void)
{
	char *b = it_path(it_tmpdir(), "n9"), *home = it_path(it_tmpdir(), "n9home");
	struct it_run r;

	host_sh(fmt(
	    "set -e; mkdir -p %s %s/dot/tmpl/hooks; cd %s;"
	    " printf '[init]\\n\\ttemplateDir = ~/dot/tmpl\\n' > %s/.gitconfig;"
	    " %s init -q hl; mkdir hl/tools; echo '#!/bin/sh' > hl/tools/pre-commit;"
	    " ln hl/tools/pre-commit hl/.git/hooks/pre-commit;"
	    " %s init -q hp; mkdir hp/.githooks hp/scripts; echo '#!/bin/sh' > hp/scripts/pc.sh;"
	    " ln -s ../scripts/pc.sh hp/.githooks/pre-commit; %s -C hp config core.hooksPath "
	    ".githooks;"
	    " %s init -q hk; mkdir -p hk/.husky/_; echo 'sh -e x' > hk/.husky/_/h;"
	    " echo '. \"$(dirname \"$0\")/h\"' > hk/.husky/_/pre-commit; echo lint > "
	    "hk/.husky/pre-commit;"
	    " %s -C hk config core.hooksPath .husky/_;"
	    " %s init -q fs; mkdir fs/tools; echo '#!/bin/sh' > fs/tools/fsmon.sh;"
	    " %s -C fs config core.fsmonitor 'sh tools/fsmon.sh';"
	    " %s init -q fx; %s -C fx config core.fsmonitor 'tools/a; tools/b';"
	    " %s init -q md; mkdir -p md/.git/modules/a/b/c/d/e/f/g/h/i/j/k/l",
	    b, home, b, home, git, git, git, git, git, git, git, git, git, git));
	/* a hard-linked hook: refused, naming it */
	it_sbxv(&r, "run", "-v", fmt("%s/hl", b), "-w", fmt("%s/hl", b), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, fmt("%s/hl/.git/hooks/pre-commit has 2 names (hard links)", b));
	/* a shell command as core.fsmonitor: refused */
	it_sbxv(&r, "run", "-v", fmt("%s/fx", b), "-w", fmt("%s/fx", b), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "core.fsmonitor is a shell command");
	/* empty folders of module names, nested 12 deep: no refusal */
	it_sbxv(&r, "run", "-v", fmt("%s/md", b), "-w", fmt("%s/md", b), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	{
		static const struct {
			const char *repo, *script;
		} cases[] = {
		    {"hp", "echo x > .githooks/pre-commit; echo a=$?"},
		    {"hk", "echo x >> .husky/pre-commit; echo a=$?; echo x > .husky/post-merge;"
		           " echo b=$?"},
		    {"fs", "echo x > tools/fsmon.sh; echo a=$?"},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char *repo = fmt("%s/%s", b, cases[i].repo);

			it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
			        fmt("%s; true", cases[i].script), NULL);
			IT_EXPECT_INT(r.status, 0);
			if (!strstr(r.out, "a=") || strstr(r.out, "=0\n"))
				it_fail(__FILE__, __LINE__, "%s: written:\n%s%s", cases[i].repo,
				        r.out, r.err);
		}
	}
	/* the user's template folder, in a sandbox of the home folder */
	setenv("HOME", home, 1);
	it_sbxv(&r, "run", "-v", home, "-w", home, "--", "/bin/sh", "-c",
	        "echo x > dot/tmpl/hooks/post-checkout; echo a=$?; true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "a=");
	IT_EXPECT_NOT_CONTAINS(r.out, "a=0");
}

/*
 * What makes git on the host show other content or hide changes, changed during the run, is
 * named after it (a ninth attack): a replace ref, a file marked skip-worktree, info/exclude,
 * and a linked worktree's rebase counters; a counter longer than a short read is not a
 * number. Nothing is named where nothing changed.
 */
static void test_review_named(void)
{
	char *b = it_path(it_tmpdir(), "rv");
	struct it_run r;

	host_sh(fmt("set -e; mkdir -p %s; cd %s; %s init -q m; cd m; echo a > f; %s add f;"
	            " %s commit -qm i; %s worktree add -q ../w -b w",
	            b, b, git, git, git, git));
	it_sbxv(&r, "run", "-v", fmt("%s/m", b), "-w", fmt("%s/m", b), "--", "/bin/sh", "-c",
	        fmt("%s status -s >/dev/null", git), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "during the run");
	it_sbxv(
	    &r, "run", "-v", fmt("%s/m", b), "-w", fmt("%s/m", b), "--", "/bin/sh", "-c",
	    fmt("set -e; %s replace $(%s rev-parse HEAD:f) $(echo b | %s hash-object -w --stdin);"
	        " echo b > f; %s update-index --skip-worktree f; echo '*.log' >> .git/info/exclude;"
	        " d=.git/worktrees/w/rebase-merge; mkdir -p $d;"
	        " printf '%%s$(id)\\n' 000000000000000000000000000000000000000000000000000000000001"
	        " > $d/msgnum",
	        git, git, git, git),
	    NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("%s/m/.git: its replace refs changed during the run", b));
	IT_EXPECT_CONTAINS(r.err, fmt("%s/m/.git: files were marked skip-worktree", b));
	IT_EXPECT_CONTAINS(r.err, fmt("%s/m/.git: info/exclude changed during the run", b));
	IT_EXPECT_CONTAINS(r.err,
	                   fmt("%s/m/.git/worktrees/w/rebase-merge/msgnum holds text that is "
	                       "not a number",
	                       b));
}

/*
 * An index written during the run that gives a changed file its new stat data beside its old
 * object (a tenth attack: git status then says "clean", and the edit runs at the next make) is
 * named after the run; an index git itself refreshed is not.
 */
/* A worker's forgery (python3 -c FORGE NAME): the index entry of NAME given its file's new
 * stat data, its object left as it was, so that git status calls NAME unchanged. */
static const char forge[] =
    "import os,struct,hashlib,sys\n"
    "f=sys.argv[1]; d=bytearray(open('.git/index','rb').read());"
    " n=struct.unpack('>I',d[8:12])[0]; o=12\n"
    "for _ in range(n):\n"
    "  fl=struct.unpack('>H',d[o+60:o+62])[0]; nl=fl&0xfff; nm=bytes(d[o+62:o+62+nl])\n"
    "  if nm==f.encode():\n"
    "    st=os.lstat(f)\n"
    "    struct.pack_into('>6I',d,o,int(st.st_ctime),st.st_ctime_ns%10**9,int(st.st_mtime),"
    "st.st_mtime_ns%10**9,st.st_dev&0xffffffff,st.st_ino&0xffffffff)\n"
    "    struct.pack_into('>I',d,o+36,st.st_size)\n"
    "  o+=(62+nl+8)&~7\n"
    "b=bytes(d[:-20]); open('.git/index','wb').write(b+hashlib.sha1(b).digest())\n";

static void test_forged_index_named(void)
{
	char *repo = it_path(it_tmpdir(), "fi");
	struct it_run r;

	host_sh(fmt("set -e; %s init -q %s; cd %s; echo one > f; echo x > g; %s add f g;"
	            " %s commit -qm i",
	            git, repo, repo, git, git));
	/* git's own refresh of a touched file: nothing to name */
	it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        fmt("touch g; echo new > f; echo one > f; %s status -s", git), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "calls");
	it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        /* its mtime set back: else git takes the entry for racily clean, and looks */
	        fmt("echo two > f && touch -d @$(($(date +%%s) - 5)) f && python3 -c \"%s\" f &&"
	            " %s status --porcelain | wc -l",
	            forge, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "0\n"); /* git status says nothing changed */
	IT_EXPECT_CONTAINS(r.err, fmt("git: %s/.git: the index calls f "
	                              "unchanged while it is not",
	                              repo));
}

/*
 * A seventeenth attack's findings, each of which the user's next git showed or recorded while
 * sbx said nothing: a cached tree git reads otherwise than sbx did (a 300-byte name, a count
 * git's int truncates); a forged entry given an old ctime, its file swapped in by a folder
 * renamed (two runs); replace refs behind a symbolic link (packed-refs, refs/replace);
 * .git/info made a link; a sha256 repository's linked worktree, its index read with SHA-1's
 * names; and 40 link extensions, which made sbx walk one shared index 40 times.
 */
static void test_seventeenth_attack(void)
{
	char *b = it_path(it_tmpdir(), "s17");
	const char *src = getenv("SBX_SOURCE_DIR");
	struct it_run r;

	if (!src || !*src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	host_sh(
	    fmt("set -e; mkdir -p %s; cd %s; cp %s/tests/fixtures/git-tree-forge.py f.py;"
	        " for d in tl ti ds rp rd lk in; do t=; [ $d = in ] && t=--template=;"
	        " %s init -q $t $d; cd $d; mkdir src; echo good > src/a.c; echo readme > README;"
	        " echo 'build/' > .gitignore; %s add .; %s commit -qm init; cd ..; done;"
	        " %s -C rp pack-refs --all; %s init -q --object-format=sha256 sw; cd sw;"
	        " echo good > a.c; echo wt/ > .gitignore; %s add .; %s commit -qm init;"
	        " %s worktree add -q wt -b side",
	        b, b, src, git, git, git, git, git, git, git, git));
	/* the cached trees */
	for (int i = 0; i < 2; i++) {
		char *repo = fmt("%s/%s", b, i ? "ti" : "tl");

		it_sbxv(&r, "run", "-v", fmt("%s/f.py:ro", b), "-v", repo, "-w", repo, "--",
		        "python3", fmt("%s/f.py", b), i ? "inttrunc" : "longname", NULL);
		IT_EXPECT_INT(r.status, 0);
		/* the forged subtree found, or the tree sbx reads otherwise than git said */
		IT_EXPECT_CONTAINS(r.err,
		                   i ? "the index's cached tree for / (one sbx cannot read: "
		                       "not checked), written during the run"
		                     : "the index's cached tree for src/, written during the "
		                       "run");
	}
	/* an entry forged with an old ctime: the file it calls unchanged was made before the
	 * launch (it need not be older than a second for sbx; the old check passed over it) */
	host_sh(fmt("set -e; cd %s/ds; mkdir -p build/.stage; cp -a src build/.stage/src;"
	            " echo EVIL > build/.stage/src/a.c; touch -d @$(($(date +%%s) - 60))"
	            " build/.stage/src/a.c; sleep 2",
	            b));
	it_sbxv(&r, "run", "-v", fmt("%s/ds", b), "-w", fmt("%s/ds", b), "--", "/bin/sh", "-c",
	        fmt("set -e; mv src build/.old; mv build/.stage/src src; python3 -c \"%s\" src/a.c;"
	            " %s status --porcelain | wc -l",
	            forge, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "0\n"); /* git status says nothing changed */
	IT_EXPECT_CONTAINS(r.err, "calls src/a.c unchanged while it is not");
	/* replace refs behind a link: packed-refs, and refs/replace */
	for (int i = 0; i < 2; i++) {
		char *repo = fmt("%s/%s", b, i ? "rd" : "rp");

		it_sbxv(
		    &r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
		    fmt("set -e; g=$(%s rev-parse HEAD:src/a.c);"
		        " e=$(echo EVIL | %s hash-object -w --stdin); mkdir -p "
		        ".git/objects/info/rr;"
		        " if [ %d = 0 ]; then cp .git/packed-refs .git/objects/info/refs.txt;"
		        " echo \"$e refs/replace/$g\" >> .git/objects/info/refs.txt;"
		        " ln -sf objects/info/refs.txt .git/p.new; mv .git/p.new .git/packed-refs;"
		        " else echo $e > .git/objects/info/rr/$g; rm -rf .git/refs/replace;"
		        " ln -s ../objects/info/rr .git/refs/replace; fi;"
		        " %s show HEAD:src/a.c",
		        git, git, i, git),
		    NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "EVIL"); /* git follows the link */
		IT_EXPECT_CONTAINS(r.err, "its replace refs changed during the run");
	}
	/* .git/info a link into .git/objects, in a repository made without git's template */
	it_sbxv(&r, "run", "-v", fmt("%s/in", b), "-w", fmt("%s/in", b), "--", "/bin/sh", "-c",
	        fmt("set -e; mkdir -p .git/objects/info/i; echo 'src/a.c -diff' >"
	            " .git/objects/info/i/attributes; echo evil.sh > .git/objects/info/i/exclude;"
	            " %s rev-parse HEAD > .git/objects/info/i/grafts;"
	            " ln -s objects/info/i .git/info",
	            git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "info/grafts or shallow changed during the run");
	IT_EXPECT_CONTAINS(r.err, "info/exclude changed during the run");
	IT_EXPECT_CONTAINS(r.err, "info/attributes changed during the run");
	/* a sha256 repository's linked worktree */
	it_sbxv(&r, "run", "-v", fmt("%s/sw", b), "-w", fmt("%s/sw/wt", b), "--", "/bin/sh", "-c",
	        fmt("set -e; echo EVIL > a.c; %s update-index --assume-unchanged a.c", git), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("%s/sw/.git/worktrees/wt: files were marked skip-worktree "
	                              "or assume-unchanged during the run",
	                              b));
	/* 40 link extensions: not read (git keeps one split index), and said */
	it_sbxv(&r, "run", "-v", fmt("%s/f.py:ro", b), "-v", fmt("%s/lk", b), "-w", fmt("%s/lk", b),
	        "--", "python3", fmt("%s/f.py", b), "links", "40", "2000", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("%s/lk/.git/index cannot be read by sbx after the run", b));
}

/*
 * An eighteenth attack's findings, each silent: a cached tree's line written otherwise than
 * git writes it ("1  0"), which git's strtol reads as sbx did not; forged entries of a
 * submodule's git dir and of a separate git dir (gitdir: .bare), whose checkouts sbx did not
 * know; a file rewritten at its size and mtime where the user's config makes git compare no
 * ctime (no index written: the landlock backend too); a planted MERGE_HEAD, which makes the
 * worker's commit a parent of the user's next; and a commit-graph written during the run.
 */
static void test_eighteenth_attack(void)
{
	char *b = it_path(it_tmpdir(), "s18");
	const char *src = getenv("SBX_SOURCE_DIR");
	char *sf = fmt("%s/sf.py", b), *tf = fmt("%s/tf.py", b);
	struct it_run r;

	if (!src || !*src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	host_sh(
	    fmt("set -e; mkdir -p %s; cd %s; cp %s/tests/fixtures/git-stat-forge.py sf.py;"
	        " cp %s/tests/fixtures/git-tree-forge.py tf.py; export GIT_CONFIG_NOSYSTEM=1;"
	        " for d in tr subsrc lax mh cg; do %s init -q $d; cd $d; mkdir src;"
	        " echo good > src/a.c; echo 'echo ok' > run.sh; echo readme > README;"
	        " %s add .; %s commit -qm init; cd ..; done; %s -C lax config core.checkStat"
	        " minimal; %s init -q sub; cd sub; echo top > README; %s add .; %s commit -qm t;"
	        " %s -c protocol.file.allow=always submodule -q add ../subsrc sub;"
	        " %s commit -qm sub; cd ..; mkdir bare; cd bare;"
	        " %s init -q --separate-git-dir=$PWD/.bare .; echo .bare > .gitignore;"
	        " echo 'echo ok' > run.sh; %s add .; %s commit -qm x",
	        b, b, src, src, git, git, git, git, git, git, git, git, git, git, git, git));
	/* the cached tree's line */
	it_sbxv(&r, "run", "-v", fmt("%s:ro", tf), "-v", fmt("%s/tr", b), "-w", fmt("%s/tr", b),
	        "--", "python3", tf, "spaces", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "the index's cached tree for / (one sbx cannot read: not "
	                          "checked)");
	/* a submodule's git dir, and a separate one: the file's mtime set back (else git takes
	 * the entry for racily clean, and looks) */
	it_sbxv(&r, "run", "-v", fmt("%s:ro", sf), "-v", fmt("%s/sub", b), "-w", fmt("%s/sub", b),
	        "--", "/bin/sh", "-c",
	        fmt("set -e; echo 'echo EVIL' > sub/run.sh; touch -d @$(($(date +%%s) - 5))"
	            " sub/run.sh; python3 %s .git/modules/sub/index sub run.sh;"
	            " %s -C sub status --porcelain | wc -l",
	            sf, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "0\n");
	IT_EXPECT_CONTAINS(r.err, fmt("git: %s/sub/.git/modules/sub: the index calls run.sh "
	                              "unchanged while it is not",
	                              b));
	it_sbxv(&r, "run", "-v", fmt("%s:ro", sf), "-v", fmt("%s/bare", b), "-w", fmt("%s/bare", b),
	        "--", "/bin/sh", "-c",
	        fmt("set -e; echo 'echo EVIL' > run.sh; touch -d @$(($(date +%%s) - 5)) run.sh;"
	            " python3 %s .bare/index . run.sh",
	            sf),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("git: %s/bare/.bare: the index calls run.sh unchanged", b));
	/* core.checkStat minimal: the same size and mtime, the index untouched */
	for (int ll = 0; ll < 2; ll++) {
		it_sbxv(
		    &r, "run", "--backend", ll ? "landlock" : "namespaces", "-v", fmt("%s/lax", b),
		    "-w", fmt("%s/lax", b), "--", "python3", "-c",
		    "import os; st = os.stat('run.sh'); open('run.sh', 'w').write('rm -r x\\n');"
		    " os.utime('run.sh', ns=(st.st_atime_ns, st.st_mtime_ns))",
		    NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.err,
		                   fmt("git: %s/lax/.git: the index calls run.sh unchanged", b));
		host_sh(fmt("cd %s/lax && %s checkout -q run.sh", b, git));
	}
	/* a planted MERGE_HEAD */
	it_sbxv(&r, "run", "-v", fmt("%s/mh", b), "-w", fmt("%s/mh", b), "--", "/bin/sh", "-c",
	        fmt("set -e; export GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x"
	            " GIT_COMMITTER_EMAIL=x@x; c=$(echo deps | %s commit-tree HEAD^{tree} -p HEAD);"
	            " echo $c > .git/MERGE_HEAD; echo Merge > .git/MERGE_MSG",
	            git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err,
	                   "MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, MERGE_MSG or SQUASH_MSG "
	                   "changed");
	/* and ended by the worker: nothing to say */
	it_sbxv(&r, "run", "-v", fmt("%s/mh", b), "-w", fmt("%s/mh", b), "--", "/bin/sh", "-c",
	        "rm .git/MERGE_HEAD .git/MERGE_MSG", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "MERGE_HEAD");
	/* a commit-graph written */
	it_sbxv(&r, "run", "-v", fmt("%s/cg", b), "-w", fmt("%s/cg", b), "--", "/bin/sh", "-c",
	        fmt("%s commit-graph write --reachable", git), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(
	    r.err,
	    fmt("git: %s/cg/.git: its commit-graph or its object alternates changed during the run",
	        b));
	/* the nineteenth's: an alternate planted, a chain's layer rewritten in place, rerere's
	 * resolutions made, SQUASH_MSG planted */
	it_sbxv(&r, "run", "-v", fmt("%s/cg", b), "-w", fmt("%s/cg", b), "--", "/bin/sh", "-c",
	        "echo /nowhere > .git/objects/info/alternates", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "its commit-graph or its object alternates changed");
	host_sh(fmt("cd %s/cg && rm .git/objects/info/alternates && rm -f "
	            ".git/objects/info/commit-graph && %s commit -q --allow-empty -m two && %s "
	            "commit-graph write --reachable --split=no-merge",
	            b, git, git));
	it_sbxv(&r, "run", "-v", fmt("%s/cg", b), "-w", fmt("%s/cg", b), "--", "/bin/sh", "-c",
	        "f=$(ls .git/objects/info/commit-graphs/graph-*.graph | head -1); chmod u+w $f;"
	        " printf x | dd of=$f bs=1 seek=100 conv=notrunc 2>/dev/null",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "its commit-graph or its object alternates changed");
	it_sbxv(&r, "run", "-v", fmt("%s/mh", b), "-w", fmt("%s/mh", b), "--", "/bin/sh", "-c",
	        "mkdir -p .git/rr-cache/ab && echo worker > .git/rr-cache/ab/postimage &&"
	        " echo 'Signed-off-by: boss' > .git/SQUASH_MSG",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "rerere's recorded resolutions (rr-cache) changed or appeared");
	IT_EXPECT_CONTAINS(r.err, "MERGE_MSG or SQUASH_MSG changed");
}

/*
 * A folder of projects (-v ~/src), no repository itself: the repositories in it, one and two
 * folders deep, are guarded as a top's (their hooks were as writable as their files), under
 * both backends; one three deep is not (sbx-profile(5) says so); past 4096 entries looked
 * through, a note says where sbx stopped.
 */
static void test_folder_of_projects(void)
{
	char *b = it_path(it_tmpdir(), "projects"), *many = it_path(it_tmpdir(), "many");
	struct it_run r;

	host_sh(fmt("set -e; mkdir -p %s/a %s/org/b %s/c/d/e %s; for p in a org/b c/d/e; do"
	            " %s init -q %s/$p; done; %s init -q --bare %s/remote.git; cd %s; i=0;"
	            " while [ $i -lt 4100 ]; do mkdir d$i; i=$((i+1)); done",
	            b, b, b, many, git, b, git, b, many));
	for (int ll = 0; ll < 2; ll++) {
		/* a bare repository too (a local remote: its hooks run at the user's git push) */
		it_sbxv(&r, "run", "--backend", ll ? "landlock" : "namespaces", "-v", b, "-w", b,
		        "--", "/bin/sh", "-c",
		        "for p in a/.git org/b/.git c/d/e/.git remote.git; do if (echo x >"
		        " $p/hooks/pre-commit) 2>/dev/null; then echo $p written; else echo $p"
		        " refused; fi; done",
		        NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "a/.git refused\norg/b/.git refused\nc/d/e/.git written\n"
		                          "remote.git refused\n");
		host_sh(fmt("rm -f %s/c/d/e/.git/hooks/pre-commit", b));
	}
	/* git still commits in them */
	it_sbxv(
	    &r, "run", "-v", b, "-w", fmt("%s/org/b", b), "--", "/bin/sh", "-c",
	    fmt("%s -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && echo ok", git),
	    NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "ok");
	/* the folder filled during a run past what sbx looks through: named after it */
	it_sbxv(&r, "run", "-v", b, "-w", b, "--", "/bin/sh", "-c",
	        "mkdir j && cd j && i=0; while [ $i -lt 4100 ]; do : > f$i; i=$((i+1)); done",
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("git: %s now holds more entries, two folders deep, than sbx "
	                              "looks through for repositories (4096), which it did not at "
	                              "launch",
	                              b));
	host_sh(fmt("rm -rf %s/j", b));
	/* one sbx would refuse as a workspace refuses the launch, as the workspace would (a
	 * warning let a worker fill a guarded .git in one run to unguard it in the next) */
	host_sh(fmt("set -e; %s init -q %s/bad; %s -C %s/bad config core.fsmonitor 'a; b'", git, b,
	            git, b));
	it_sbxv(&r, "run", "-v", b, "-w", b, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "core.fsmonitor is a shell command (a; b)");
	host_sh(fmt("rm -rf %s/bad", b));
	/* past 4096 entries: a warning, which -q keeps */
	it_sbxv(&r, "run", "-q", "-v", many, "-w", many, "--", "true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("sbx: warning: git: %s holds more entries, two folders deep, "
	                              "than sbx looks through for repositories (4096)",
	                              many));
}

/*
 * git-lfs: its clean filter gives git a file's pointer, which the index then holds for the
 * file. A commit of a large file in the sandbox is not named (it was, after every run that
 * added one); an edit hidden by a forged index still is, of an ordinary file and of one LFS
 * holds. The filter here writes the pointer as git-lfs does (the specification's v1 text).
 */
static void test_lfs_pointer_not_named(void)
{
	char *b = it_path(it_tmpdir(), "lfs"), *repo = it_path(b, "repo");
	struct it_run r;

	host_sh(fmt("set -e; mkdir -p %s; cd %s; printf '%%s\n' '#!/bin/sh' 'f=$(mktemp)' "
	            "'cat > \"$f\"; s=$(wc -c < \"$f\"); h=$(sha256sum \"$f\" | cut -d\" \" -f1)' "
	            "'rm -f \"$f\"' 'printf \"version https://git-lfs.github.com/spec/v1\\noid "
	            "sha256:%%s\\nsize %%s\\n\" \"$h\" \"$s\"' > clean.sh; chmod +x clean.sh;"
	            " %s init -q repo; cd repo; %s config filter.lfs.clean %s/clean.sh;"
	            " %s config filter.lfs.required true;"
	            " echo '*.bin filter=lfs -text' > .gitattributes; echo one > f;"
	            " %s add .gitattributes f; %s commit -qm i",
	            b, b, git, git, b, git, git, git));
	it_sbxv(&r, "run", "-v", fmt("%s:ro", b), "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        fmt("head -c 5000 /dev/urandom > a.bin && %s add a.bin && %s commit -qm a && %s "
	            "show HEAD:a.bin | head -n 1",
	            git, git, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "version https://git-lfs.github.com/spec/v1");
	IT_EXPECT_NOT_CONTAINS(r.err, "calls");
	/* hidden edits, of an ordinary file and of a large one */
	it_sbxv(&r, "run", "-v", fmt("%s:ro", b), "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        fmt("echo two > f && head -c 4000 /dev/urandom > a.bin &&"
	            " touch -d @$(($(date +%%s) - 5)) f a.bin && python3 -c \"%s\" f &&"
	            " python3 -c \"%s\" a.bin && %s status --porcelain | wc -l",
	            forge, forge, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "0\n"); /* git status says nothing changed */
	IT_EXPECT_CONTAINS(r.err, "the index calls a.bin and 1 more "
	                          "unchanged while they are not");
}

/*
 * A tenth attack's findings: a link in a subfolder of the core.hooksPath folder leads to a
 * guarded file; a guarded folder nested past what sbx looks at for hard links is refused, not
 * passed over; the user's ~/.config/git/attributes and ignore are guarded in a sandbox of the
 * home folder; 4100 empty files in .git/modules stop no later launch.
 */
static void test_tenth_attack_guards(void)
{
	char *b = it_path(it_tmpdir(), "n10"), *home = it_path(it_tmpdir(), "n10home");
	struct it_run r;

	host_sh(fmt(
	    "set -e; mkdir -p %s %s/.config/git; cd %s; echo '* diff' > %s/.config/git/attributes;"
	    " %s init -q sl; cd sl; mkdir -p .githooks/lib scripts; echo x > scripts/c.sh;"
	    " ln -s ../../scripts/c.sh .githooks/lib/c.sh; %s config core.hooksPath .githooks;"
	    " cd ..; %s init -q dp; mkdir -p dp/.githooks/a/b/c/d/e/f/g/h/i;"
	    " %s -C dp config core.hooksPath .githooks;"
	    " %s init -q mf; mkdir mf/.git/modules; i=0; while [ $i -lt 4100 ]; do"
	    " : > mf/.git/modules/f$i; i=$((i+1)); done",
	    b, home, b, home, git, git, git, git, git));
	it_sbxv(&r, "run", "-v", fmt("%s/sl", b), "-w", fmt("%s/sl", b), "--", "/bin/sh", "-c",
	        "echo y >> scripts/c.sh; echo a=$?; true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "a=");
	IT_EXPECT_NOT_CONTAINS(r.out, "a=0");
	it_sbxv(&r, "run", "-v", fmt("%s/dp", b), "-w", fmt("%s/dp", b), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, "nested within one another");
	it_sbxv(&r, "run", "-v", fmt("%s/mf", b), "-w", fmt("%s/mf", b), "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	it_sbxv(&r, "run", "-v", home, "-w", home, "--", "/bin/sh", "-c",
	        "echo '* -diff' > .config/git/attributes; echo a=$?; true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "a=");
	IT_EXPECT_NOT_CONTAINS(r.out, "a=0");
}

/*
 * An eleventh attack's findings: a split index whose replaced entry carries no name (git takes
 * it from the shared part) is said to be unchecked rather than passed over; thousands of
 * gitlinks made during a run are named eight at a time, and compared sorted (a quadratic
 * comparison took an hour after every later run); an sbx run from its build tree does not
 * search the source tree's profiles/, which a sandbox of the checkout could write.
 */
static void test_eleventh_attack(void)
{
	char *repo = it_path(it_tmpdir(), "sp"), *many = it_path(it_tmpdir(), "gl");
	struct it_run r;

	host_sh(fmt("set -e; %s init -q %s; cd %s; echo one > f; %s add f; %s commit -qm i;"
	            " %s init -q %s; %s -C %s commit -q --allow-empty -m i",
	            git, repo, repo, git, git, git, many, git, many));
	it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        fmt("%s update-index --split-index && echo two > f && %s add f", git, git), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "could not be checked");
	it_sbxv(&r, "run", "-v", many, "-w", many, "--", "/bin/sh", "-c",
	        fmt("h=$(%s rev-parse HEAD); i=0; while [ $i -lt 2000 ]; do"
	            " printf '160000 %%s\\tsub/%%05d\\n' $h $i; i=$((i+1)); done |"
	            " %s update-index --index-info",
	            git, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "and 1992 more submodules made during the run");
	IT_EXPECT_NOT_CONTAINS(r.err, "sub/01999 was made");
	/* the same index at the next launch: nothing new */
	it_sbxv(&r, "run", "-v", many, "-w", many, "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "made a submodule");
	/* an sbx in its own build tree does not search the source tree's profiles/, which a
	 * sandbox of the checkout could write */
	unsetenv("SBX_PROFILE_PATH");
	it_sbxv(&r, "profiles", "list", NULL);
	IT_EXPECT_NOT_CONTAINS(r.out, SBX_SOURCE_DIR "/profiles");
}

/*
 * A twelfth attack's findings: an index whose cached tree (the TREE extension) is swapped for
 * one that names the worker's blob, while its entries and their stat data stay as they were,
 * makes the user's next `git add README && git commit` record the worker's src/a: named
 * after the run. A rewritten .git/shallow (history cut) is named too; an index git itself
 * wrote during the run is not.
 */
static void test_twelfth_attack(void)
{
	/* splice the TREE extension of index B into index A (both version 2) */
	static const char splice[] =
	    "import struct,hashlib,sys\n"
	    "def parts(d):\n"
	    "  n=struct.unpack('>I',d[8:12])[0]; p=12\n"
	    "  for _ in range(n):\n"
	    "    s=p; fl=struct.unpack('>H',d[p+60:p+62])[0]; p+=62; z=d.index(b'\\0',p); p=z+1;"
	    " p=s+((p-s+7)&~7)\n"
	    "  ext={}; q=p\n"
	    "  while q<len(d)-20:\n"
	    "    sig=d[q:q+4]; sz=struct.unpack('>I',d[q+4:q+8])[0]; ext[sig]=d[q:q+8+sz]; "
	    "q+=8+sz\n"
	    "  return d[:p],ext\n"
	    "a,ea=parts(open(sys.argv[1],'rb').read()); b,eb=parts(open(sys.argv[2],'rb').read())\n"
	    "ea[b'TREE']=eb[b'TREE']; body=a+b''.join(ea.values())\n"
	    "open(sys.argv[1],'wb').write(body+hashlib.sha1(body).digest())\n";
	char *repo = it_path(it_tmpdir(), "ct"), *sh = it_path(it_tmpdir(), "sh");
	struct it_run r;

	host_sh(
	    fmt("set -e; for d in %s %s; do %s init -q $d; cd $d; mkdir src; echo hello > src/a;"
	        " echo readme > README; %s add .; %s commit -qm one; echo two > README;"
	        " %s commit -qam two; done",
	        repo, sh, git, git, git, git));
	/* git's own writes of the index: nothing named */
	it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        fmt("echo more >> README && %s add README && %s commit -qm three && %s status -s",
	            git, git, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "cached tree");
	it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
	        fmt("set -e; %s status -s; m=$(echo PWNED | %s hash-object -w --stdin);"
	            " cp .git/index /tmp/b; GIT_INDEX_FILE=/tmp/b %s update-index --cacheinfo"
	            " 100644,$m,src/a; GIT_INDEX_FILE=/tmp/b %s write-tree >/dev/null;"
	            " python3 -c \"%s\" .git/index /tmp/b; %s status --porcelain | wc -l",
	            git, git, git, git, splice, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "0\n");
	IT_EXPECT_CONTAINS(r.err,
	                   fmt("git: %s/.git: the index's cached tree for src/, written during "
	                       "the run, does not match its entries",
	                       repo));
	it_sbxv(&r, "run", "-v", sh, "-w", sh, "--", "/bin/sh", "-c",
	        fmt("%s rev-parse HEAD > .git/shallow", git), NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, fmt("git: %s/.git: info/grafts or shallow changed", sh));
}

/*
 * A thirteenth attack's findings, each a forged index that git on the host reads as a
 * commit's tree or a clean status: a second TREE extension (git keeps the last), a valid
 * cached tree over an intent-to-add entry (git never writes one), a sparse-directory entry
 * without its skip-worktree flag (git expands it all the same), a TREE hidden in an unknown
 * extension that EOIE points git to: each named after the run. And no warning for an
 * untracked cache the user keeps, which git rewrites at every status.
 */
static void test_thirteenth_attack(void)
{
	/* $G is git, $F the forger, $T a tree whose `a` is the worker's */
	static const char mk[] = "E=$(echo evil | $G hash-object -w --stdin);"
	                         " T=$(printf '100644 blob %s\\ta\\n' $E | $G mktree);";
	static const struct {
		const char *name, *script, *said;
	} cases[] = {
	    {"dt", "python3 $F .git/index dup-tree src $T 1", "more than one TREE extension"},
	    {"ia", "echo n > src/new; $G add -N src/new; python3 $F .git/index set-tree src $T 2",
	     "cached tree for src/"},
	    {"sd",
	     "echo evil > src/a; T=$($G rev-parse HEAD:src); python3 $F .git/index sdir src $T",
	     "marked skip-worktree"},
	    {"eo", "python3 $F .git/index eoie src $T 1", "an EOIE or IEOT extension"},
	    /* a fourteenth attack: two subtrees of one name (8192 such took 32 s to check); a
	     * version 2 entry with the extended bit, whose flags2 git reads and sbx did not */
	    {"tw", "T=$($G rev-parse HEAD:src); python3 $F .git/index twins src $T 1",
	     "cached tree for /"},
	    {"v2", "echo evil >> src/a; python3 $F .git/index v2ext src/a -",
	     "marked skip-worktree"},
	};
	char *fix = it_path(getenv("SBX_SOURCE_DIR"), "tests/fixtures/git-index-forge.py");
	struct it_run r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *repo = it_path(it_tmpdir(), cases[i].name);

		host_sh(fmt("set -e; %s init -q %s; cd %s; mkdir src; echo good > src/a;"
		            " echo readme > README; %s add .; %s commit -qm i",
		            git, repo, repo, git, git));
		it_sbxv(&r, "run", "-v", repo, "-w", repo, "-v", fmt("%s:ro", fix), "--", "/bin/sh",
		        "-c", fmt("set -e; G='%s'; F=%s; %s %s", git, fix, mk, cases[i].script),
		        NULL);
		if (r.status != 0)
			it_fail(__FILE__, __LINE__, "%s: status %d\n%s%s", cases[i].name, r.status,
			        r.out, r.err);
		if (!strstr(r.err, cases[i].said))
			it_fail(__FILE__, __LINE__, "%s: not named (%s):\n%s", cases[i].name,
			        cases[i].said, r.err);
	}
	{
		char *repo = it_path(it_tmpdir(), "uc");

		host_sh(fmt("set -e; %s init -q %s; cd %s; echo a > f; %s add f; %s commit -qm i;"
		            " %s config core.untrackedCache true; %s status >/dev/null",
		            git, repo, repo, git, git, git, git));
		it_sbxv(&r, "run", "-v", repo, "-w", repo, "--", "/bin/sh", "-c",
		        fmt("echo n > notes; %s status -s", git), NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.out, "notes");
		IT_EXPECT_NOT_CONTAINS(r.err, "untracked cache");
	}
}

/*
 * A fifteenth attack's findings: a split index's cached trees are said to be unchecked (a
 * forged tree matched the shared part's stale entry), resolve-undo data planted in the index
 * (git checkout -m puts it back in place of a file) is named, and a sparse index's folder
 * entries are checked as the trees they are (no warning after ordinary use).
 */
static void test_fifteenth_attack(void)
{
	static const char reuc[] =
	    "import struct,hashlib,sys\n"
	    "w=bytes.fromhex(sys.argv[1]); b=open('.git/index','rb').read()[:-20]\n"
	    "r=b'README\\0'+b'100644\\0'*3+w*3\n"
	    "b=b+b'REUC'+struct.pack('>I',len(r))+r\n"
	    "open('.git/index','wb').write(b+hashlib.sha1(b).digest())\n";
	char *sp = it_path(it_tmpdir(), "sp"), *ru = it_path(it_tmpdir(), "ru");
	char *sx = it_path(it_tmpdir(), "sx");
	struct it_run r;

	host_sh(fmt("set -e; for d in %s %s %s; do %s init -q $d; cd $d; mkdir src lib;"
	            " echo a > src/a; echo l > lib/l; echo readme > README; %s add .;"
	            " %s commit -qm i; done; cd %s; %s config index.sparse true;"
	            " %s sparse-checkout set src",
	            sp, ru, sx, git, git, git, sx, git, git));
	it_sbxv(
	    &r, "run", "-v", sp, "-w", sp, "--", "/bin/sh", "-c",
	    fmt("set -e; %s update-index --split-index; echo x >> README; %s add README", git, git),
	    NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "a split index: not checked");
	it_sbxv(&r, "run", "-v", ru, "-w", ru, "--", "/bin/sh", "-c",
	        fmt("set -e; w=$(echo evil | %s hash-object -w --stdin); python3 -c \"%s\" $w", git,
	            reuc),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.err, "resolve-undo data or unresolved conflicts changed");
	it_sbxv(&r, "run", "-v", sx, "-w", sx, "--", "/bin/sh", "-c",
	        fmt("set -e; echo more >> src/a; %s add src/a; %s commit -qm one; %s status -s",
	            git, git, git),
	        NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_NOT_CONTAINS(r.err, "cached tree");
	/* a sixteenth attack: an unresolved conflict planted in the index, whose third stage is
	 * the worker's (git checkout -m then writes it, with an empty diff before) */
	{
		static const char conflict[] =
		    "import struct,hashlib,sys\n"
		    "w=bytes.fromhex(sys.argv[1]); d=open('.git/index','rb').read()\n"
		    "n=struct.unpack('>I',d[8:12])[0]; p=12; ents=[]\n"
		    "for _ in range(n):\n"
		    "  s=p; z=d.index(b'\\0',p+62); p=s+((z+1-s+7)&~7); ents.append(d[s:p])\n"
		    "out=[]\n"
		    "for e in ents:\n"
		    "  if e[62:68]==b'README':\n"
		    "    for st in (1,2,3):\n"
		    "      fl=struct.unpack('>H',e[60:62])[0]|(st<<12); oid=w if st==3 else "
		    "e[40:60]\n"
		    "      out.append(e[:40]+oid+struct.pack('>H',fl)+e[62:])\n"
		    "  else: out.append(e)\n"
		    "b=d[:8]+struct.pack('>I',len(out))+b''.join(out)\n"
		    "open('.git/index','wb').write(b+hashlib.sha1(b).digest())\n";

		it_sbxv(
		    &r, "run", "-v", ru, "-w", ru, "--", "/bin/sh", "-c",
		    fmt("set -e; w=$(echo evil | %s hash-object -w --stdin); python3 -c \"%s\" $w",
		        git, conflict),
		    NULL);
		IT_EXPECT_INT(r.status, 0);
		IT_EXPECT_CONTAINS(r.err, "or unresolved conflicts changed during the run");
	}
}

static void test_no_new_repository_namespaces(void)
{
	no_new_repository("namespaces");
}

static void test_no_new_repository_landlock(void)
{
	no_new_repository("landlock");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_control_surface_namespaces),
	    IT_CASE(test_control_surface_landlock),
	    IT_CASE(test_git_works_claude_agent),
	    IT_CASE(test_dry_run_and_opt_out),
	    IT_CASE(test_hook_link_chain_refused),
	    IT_CASE(test_fresh_git_named_after),
	    IT_CASE(test_second_view_keeps_protection),
	    IT_CASE(test_split_or_linked_index_named),
	    IT_CASE(test_root_repo_guarded),
	    IT_CASE(test_no_new_repository_namespaces),
	    IT_CASE(test_no_new_repository_landlock),
	    IT_CASE(test_no_new_repository_after_rename),
	    IT_CASE(test_landlock_git_reads),
	    IT_CASE(test_bare_top_namespaces),
	    IT_CASE(test_bare_top_landlock),
	    IT_CASE(test_linked_worktree_workspace),
	    IT_CASE(test_configs_followed),
	    IT_CASE(test_config_syntax_followed),
	    IT_CASE(test_gitdir_link_and_fsmonitor),
	    IT_CASE(test_rebase_counters_named),
	    IT_CASE(test_ninth_attack_guards),
	    IT_CASE(test_review_named),
	    IT_CASE(test_forged_index_named),
	    IT_CASE(test_lfs_pointer_not_named),
	    IT_CASE(test_seventeenth_attack),
	    IT_CASE(test_eighteenth_attack),
	    IT_CASE(test_folder_of_projects),
	    IT_CASE(test_tenth_attack_guards),
	    IT_CASE(test_eleventh_attack),
	    IT_CASE(test_twelfth_attack),
	    IT_CASE(test_thirteenth_attack),
	    IT_CASE(test_fifteenth_attack),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
