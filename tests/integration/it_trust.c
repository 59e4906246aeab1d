/* SPDX-License-Identifier: MIT */
/*
 * Profiles and policies are trusted only when no one but the caller or root could have
 * written them (sbx-profile(5), src/os/trust.h): a file or a folder on the way that is
 * writable by group or others, or owned by another user, is refused with one line naming it
 * and the fix; a symlink on the way is checked where it really leads. As root and as the
 * user. The user variant's file owned by someone else is staged by as-user.sh
 * (SBX_IT_FOREIGN), since a user cannot give a file away.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static const char profile_text[] = "version: 1\nname: p\nbase_policy: pp\nmounts:\n"
                                   "  - {path: /tmp, readonly: true}\n";
static const char policy_text[] = "version: 1\nname: pp\nrules:\n  - name: all\n"
                                  "    paths: [\"**\"]\n    operations: [all]\n"
                                  "    decision: allow\n";

/* DIR/p.yaml and DIR/policies/pp.yaml, both fine as they are written. */
static char *make_profile(const char *dir)
{
	char *file = it_path(dir, "p.yaml");

	it_write_file(file, profile_text);
	it_write_file(it_path(dir, "policies/pp.yaml"), policy_text);
	return file;
}

/* `sbx run --dry-run -p FILE` and `sbx check -p FILE`: both refuse or both accept. */
static void expect_refused(const char *file, const char *what)
{
	struct it_run r;

	it_sbxv(&r, "run", "-p", file, "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, what);
	/* one line: the refusal and its fix */
	IT_EXPECT(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);
	it_sbxv(&r, "check", "-p", file, "read", "/tmp", NULL);
	IT_EXPECT_INT(r.status, 125);
	IT_EXPECT_CONTAINS(r.err, what);
}

static void expect_loaded(const char *file)
{
	struct it_run r;

	it_sbxv(&r, "check", "-p", file, "read", "/tmp", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "allow read    /tmp");
}

static char msg[16384];

__attribute__((format(printf, 1, 2))) static const char *fmt(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(msg, sizeof(msg), f, ap);
	va_end(ap);
	return msg;
}

/* The case's directory lies in /tmp: a sticky folder of root's that others may write, which
 * is accepted on the way (others cannot rename or remove what is in it). */
static void test_own_files_load(void)
{
	expect_loaded(make_profile(it_tmpdir()));
}

static void test_world_writable_profile(void)
{
	char *file = make_profile(it_tmpdir());

	IT_EXPECT_INT(chmod(file, 0666), 0);
	expect_refused(file, fmt("refusing profile %s: it is writable by group and others (mode "
	                         "0666)",
	                         file));
	expect_refused(file, fmt("; chmod go-w %s\n", file));
	IT_EXPECT_INT(chmod(file, 0646), 0);
	expect_refused(file, "writable by others (mode 0646)");
	IT_EXPECT_INT(chmod(file, 0644), 0);
	expect_loaded(file);
}

static void test_group_writable_folder(void)
{
	char *dir = it_path(it_tmpdir(), "a/b");
	char *file = make_profile(dir);
	char *a = it_path(it_tmpdir(), "a");

	IT_EXPECT_INT(chmod(a, 0775), 0);
	expect_refused(file, fmt("refusing profile %s: the folder %s on the way is writable by its "
	                         "group (mode 0775)",
	                         file, a));
	expect_refused(file, fmt("; chmod go-w %s\n", a));
	IT_EXPECT_INT(chmod(a, 0755), 0);
	expect_loaded(file);
	/* a sticky folder writable by others, owned by someone trusted (the caller), may stand
	 * on the way; the same without the sticky bit may not */
	IT_EXPECT_INT(chmod(a, 01777), 0);
	expect_loaded(file);
	IT_EXPECT_INT(chmod(a, 0777), 0);
	expect_refused(file, fmt("the folder %s on the way is writable by group and others", a));
}

static void test_policy_beside_profile(void)
{
	char *file = make_profile(it_tmpdir());
	char *pol = it_path(it_tmpdir(), "policies/pp.yaml");

	IT_EXPECT_INT(chmod(pol, 0666), 0);
	expect_refused(file, fmt("refusing policy %s: it is writable by group and others", pol));
	IT_EXPECT_INT(chmod(pol, 0644), 0);
	IT_EXPECT_INT(chmod(it_path(it_tmpdir(), "policies"), 0770), 0);
	expect_refused(file, fmt("refusing policy %s: the folder %s on the way is writable by its "
	                         "group",
	                         pol, it_path(it_tmpdir(), "policies")));
}

/* A file owned by another user: root refuses it as the user does (ssh's rule, sudo's). */
static void test_owned_by_another_user(void)
{
	char *file;

	if (it_is_root()) {
		file = make_profile(it_tmpdir());
		IT_EXPECT_INT(chown(file, 12345, 12345), 0);
		expect_refused(file, fmt("refusing profile %s: it is owned by uid 12345, not by "
		                         "you (uid 0) or root",
		                         file));
		expect_refused(file, fmt("chown root %s", file));
		/* world-writable and another user's: still refused */
		IT_EXPECT_INT(chmod(file, 0666), 0);
		expect_refused(file, fmt("refusing profile %s", file));
		/* a policy beside it owned by another user */
		IT_EXPECT_INT(chown(file, 0, 0), 0);
		IT_EXPECT_INT(chmod(file, 0644), 0);
		IT_EXPECT_INT(chown(it_path(it_tmpdir(), "policies/pp.yaml"), 12345, 0), 0);
		expect_refused(file, "refusing policy");
		expect_refused(file, "is owned by uid 12345");
		/* a folder on the way owned by another user */
		IT_EXPECT_INT(chown(it_path(it_tmpdir(), "policies/pp.yaml"), 0, 0), 0);
		IT_EXPECT_INT(chown(it_tmpdir(), 12345, 12345), 0);
		expect_refused(file,
		               fmt("the folder %s on the way is owned by uid 12345", it_tmpdir()));
		IT_EXPECT_INT(chown(it_tmpdir(), 0, 0), 0);
		expect_loaded(file);
	} else {
		const char *foreign = getenv("SBX_IT_FOREIGN");
		struct stat st;

		if (!foreign || !*foreign)
			it_fail(__FILE__, __LINE__,
			        "SBX_IT_FOREIGN is not set (as-user.sh sets it)");
		IT_EXPECT_INT(stat(foreign, &st), 0);
		IT_EXPECT(st.st_uid != getuid() && st.st_uid != 0);
		IT_EXPECT((st.st_mode & 022) == 0);
		expect_refused(foreign,
		               fmt("refusing profile %s: it is owned by uid %u, not by you "
		                   "(uid %u) or root",
		                   foreign, (unsigned)st.st_uid, (unsigned)getuid()));
	}
}

/* A symlink on the way is followed where it leads, and the folders there are checked: a
 * trusted path may not lead into a folder others can write. */
static void test_symlink_checks_real_chain(void)
{
	char *evil = it_path(it_tmpdir(), "evil");
	char *file = make_profile(evil);
	char *link = it_path(it_tmpdir(), "etc-sbx");

	IT_EXPECT_INT(symlink(evil, link), 0);
	expect_loaded(it_path(link, "p.yaml"));
	IT_EXPECT_INT(chmod(evil, 0777), 0);
	expect_refused(it_path(link, "p.yaml"),
	               fmt("refusing profile %s/p.yaml: the folder %s on the way is writable by "
	                   "group and others",
	                   link, evil));
	/* the same file named directly: the same answer */
	expect_refused(file, fmt("the folder %s on the way is writable", evil));
	IT_EXPECT_INT(chmod(evil, 0755), 0);
	/* a relative symlink, with a .. in it */
	IT_EXPECT_INT(symlink("evil/../evil", it_path(it_tmpdir(), "rel")), 0);
	expect_loaded(it_path(it_tmpdir(), "rel/p.yaml"));
	IT_EXPECT_INT(chmod(evil, 0757), 0);
	expect_refused(it_path(it_tmpdir(), "rel/p.yaml"),
	               fmt("the folder %s on the way is writable by others", evil));
	IT_EXPECT_INT(chmod(evil, 0755), 0);
	if (it_is_root()) {
		/* a symlink owned by someone else is not followed (anyone may plant one in a
		 * sticky folder such as /tmp) */
		IT_EXPECT_INT(lchown(link, 12345, 12345), 0);
		expect_refused(it_path(link, "p.yaml"),
		               fmt("the symlink %s on the way is owned by uid 12345", link));
	}
}

/* By name, the finder takes the first NAME.yaml on the search path that is a regular file: a
 * folder or a dangling symlink of that name in an earlier folder hides nothing. */
static void test_found_by_name_past_what_is_not_a_file(void)
{
	char *d1 = it_path(it_tmpdir(), "d1"), *d2 = it_path(it_tmpdir(), "d2");
	char *shadow = it_path(d1, "p.yaml");
	struct it_run r;

	make_profile(d2);
	IT_EXPECT_INT(mkdir(d1, 0755), 0);
	IT_EXPECT_INT(mkdir(shadow, 0755), 0);
	IT_EXPECT_INT(setenv("SBX_PROFILE_PATH", fmt("%s:%s", d1, d2), 1), 0);
	it_sbxv(&r, "check", "-p", "p", "read", "/tmp", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "allow read    /tmp");
	IT_EXPECT_INT(rmdir(shadow), 0);
	IT_EXPECT_INT(symlink(it_path(d1, "gone.yaml"), shadow), 0);
	it_sbxv(&r, "run", "-p", "p", "--dry-run", "--", "/bin/true", NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "profile:    p\n");
}

/*
 * Nested: inside a sandbox, files whose owners are not mapped in its user namespace read as
 * nobody (root's shipped profiles among them, in the user's sandbox). They are accepted there,
 * since a nested sandbox can only narrow its parent; what others can write still is not.
 */
static void test_nested_run(void)
{
	const char *src = getenv("SBX_SOURCE_DIR");
	char *parent = it_path(it_tmpdir(), "parent.yaml");
	char *bad = make_profile(it_path(it_tmpdir(), "bad"));
	char sbxdir[4096], vsrc[4200], vsbx[4200], script[16384];
	struct it_run r;

	if (!src || !*src)
		it_fail(__FILE__, __LINE__, "SBX_SOURCE_DIR is not set (CTest sets it)");
	it_write_file(parent, "version: 1\nname: parent\nnesting: true\n");
	IT_EXPECT_INT(chmod(it_path(it_tmpdir(), "bad/p.yaml"), 0666), 0);
	snprintf(sbxdir, sizeof(sbxdir), "%s", it_sbx_path());
	snprintf(vsbx, sizeof(vsbx), "%s:ro", dirname(sbxdir));
	snprintf(vsrc, sizeof(vsrc), "%s:ro", src);
	snprintf(script, sizeof(script),
	         "stat -c '%%u' %s/profiles/code-reviewer.yaml; "
	         "%s run --workspace %s -p %s/profiles/code-reviewer.yaml --dry-run -- /bin/true "
	         ">/dev/null && echo SHIPPED-OK; "
	         "%s run --workspace %s -p %s --dry-run -- /bin/true; echo bad=$?",
	         src, it_sbx_path(), it_tmpdir(), src, it_sbx_path(), it_tmpdir(), bad);
	it_sbxv(&r, "run", "-p", parent, "-v", vsbx, "-v", vsrc, "-v", it_tmpdir(), "--", "/bin/sh",
	        "-c", script, NULL);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "SHIPPED-OK\nbad=125\n");
	IT_EXPECT_CONTAINS(r.err,
	                   fmt("refusing profile %s: it is writable by group and others", bad));
	/* the user's sandbox: root's files read as nobody there, and were accepted */
	if (!it_is_root())
		IT_EXPECT_CONTAINS(r.out, "65534\n");
}

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_own_files_load),
	    IT_CASE(test_world_writable_profile),
	    IT_CASE(test_group_writable_folder),
	    IT_CASE(test_policy_beside_profile),
	    IT_CASE(test_owned_by_another_user),
	    IT_CASE(test_symlink_checks_real_chain),
	    IT_CASE(test_found_by_name_past_what_is_not_a_file),
	    IT_CASE(test_nested_run),
	};

	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
