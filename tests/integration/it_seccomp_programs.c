/* SPDX-License-Identifier: MIT */
/*
 * Real programs keep working under the default seccomp filter (issue 5, item 3).
 *
 * Each row is a shell script run in a fresh directory twice: under the filter loaded by this
 * binary's --exec mode (the launcher's filter, without the rest of the sandbox), and inside
 * `sbx run`. A row passes when the script exits 0 and prints what it must; a program a row
 * needs that is not installed fails the row (scripts/setup.sh installs them all).
 */
#include <unistd.h>

#include "harness.h"
#include "seccomp_helpers.h"

#define PY "/usr/bin/python3"

struct row {
	const char *name;
	const char *needs; /* programs that must be installed (scripts/setup.sh lists them) */
	const char *script;
	const char *expect;  /* must appear in stdout */
	const char *sbx_opt; /* an extra sbx run option, or NULL */
};

static const struct row rows[] = {
    {"bash", "bash seq sort",
     "bash -c 'seq 1 1000 | sort -rn | head -3 | tr \"\\n\" \" \"; echo;"
     " set -m; sleep 0.2 & jobs -l | grep -c sleep; fg %1 >/dev/null; echo fg=$?;"
     " sleep 30 & kill %1; wait; x=$( (exit 3) ; echo $?); echo sub=$x'",
     "1000 999 998 \n1\nfg=0\nsub=3\n", NULL},
    {"coreutils", "cp mv ls stat sha256sum du find readlink",
     "set -e; mkdir -p a/b; echo hi > a/b/f; cp -r a c; mv c d; ls -R d >/dev/null;"
     " stat -c %s d/b/f; sha256sum d/b/f | cut -c1-8; du -s d >/dev/null;"
     " find . -name f | sort | tr '\\n' ' '; echo; chmod 600 d/b/f; ln -s d/b/f l;"
     " readlink l; cat l; rm -rf a d l; touch -d 2001-01-01 t; date -r t +%Y; id -u >/dev/null;"
     " nproc >/dev/null; df . >/dev/null; tail -c 3 /etc/passwd >/dev/null; echo ok",
     "3\n98ea6e4f\n./a/b/f ./d/b/f \nd/b/f\nhi\n2001\nok\n", NULL},
    {"python3", PY,
     PY " - <<'EOF'\n"
        "import asyncio, concurrent.futures, subprocess, threading\n"
        "out = []\n"
        "ts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print('threads', sorted(out) == list(range(8)))\n"
        "with concurrent.futures.ProcessPoolExecutor(2) as ex:\n"
        "    print('pool', sum(ex.map(abs, [-1, -2, -3])))\n"
        "print('subprocess', subprocess.run(['sh', '-c', 'echo $((6*7))'],"
        " capture_output=True, text=True, check=True).stdout.strip())\n"
        "async def main():\n"
        "    p = await asyncio.create_subprocess_exec('echo', 'aio', "
        "stdout=asyncio.subprocess.PIPE)\n"
        "    o, _ = await p.communicate()\n"
        "    r, w = await asyncio.open_connection(*(await serve()))\n"
        "    w.write(b'ping\\n'); await w.drain(); line = await r.readline(); w.close()\n"
        "    return o.decode().strip(), line.decode().strip()\n"
        "async def serve():\n"
        "    async def h(r, w):\n"
        "        w.write((await r.readline()).upper()); await w.drain(); w.close()\n"
        "    s = await asyncio.start_server(h, '127.0.0.1', 0)\n"
        "    return s.sockets[0].getsockname()[:2]\n"
        "print('asyncio', *asyncio.run(main()))\n"
        "EOF",
     "threads True\npool 6\nsubprocess 42\nasyncio aio PING\n", NULL},
    {"git", "git",
     /* in a private /tmp: no new repository is made where the host keeps files */
     "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=$PWD; g='git -c user.name=sbx"
     " -c user.email=sbx@example.invalid -c init.defaultBranch=main'; d=$(mktemp -d); cd $d;"
     " $g init -q repo; cd repo; echo one > f; $g add f; $g commit -qm first;"
     " echo two >> f; $g commit -qam second; $g log --format=%s | tr '\\n' ' '; echo;"
     " cd ..; $g clone -q \"$PWD/repo\" copy; cat copy/f | tr '\\n' ' '; echo;"
     " $g -C copy log --oneline | wc -l; $g -C copy fsck --no-progress 2>&1 && echo fsck-ok;"
     " cd /; rm -rf $d",
     "second first \none two \n2\nfsck-ok\n", NULL},
    {"gcc_make", "gcc make",
     "set -e; mkdir -p src; printf '#include \"lib.h\"\\nint twice(int x) { return 2 * x; }\\n'"
     " > src/lib.c; printf 'int twice(int x);\\n' > src/lib.h;"
     " printf '#include <stdio.h>\\n#include \"lib.h\"\\nint main(void)"
     " { printf(\"%%d\\\\n\", twice(21)); return 0; }\\n' > src/main.c;"
     " printf 'app: main.o lib.o\\n\\t$(CC) -o $@ $^\\n%%.o: src/%%.c src/lib.h\\n"
     "\\t$(CC) -O2 -Wall -Werror -c -o $@ $<\\n' > Makefile;"
     " make -s -j2 CC=gcc; ./app; make -s -q CC=gcc app && echo up-to-date",
     "42\nup-to-date\n", NULL},
    {"cmake", "cmake gcc make",
     "set -e; printf 'cmake_minimum_required(VERSION 3.13)\\nproject(p C)\\n"
     "add_executable(p p.c)\\n' > CMakeLists.txt;"
     " printf 'int main(void) { return 0; }\\n' > p.c;"
     " cmake -S . -B b >/dev/null; cmake --build b -j2 >/dev/null; ./b/p && echo cmake-ok",
     "cmake-ok\n", NULL},
    {"node_worker_threads", "node",
     "node -e 'const { Worker } = require(\"worker_threads\"); const fs = require(\"fs\");"
     " const w = new Worker(\"require(\\\"worker_threads\\\").parentPort.postMessage(6 * 7)\","
     " { eval: true }); w.on(\"message\", (m) => fs.promises.writeFile(\"x\", String(m))"
     ".then(() => fs.promises.readFile(\"x\", \"utf8\")).then((s) => {"
     " console.log(\"worker \" + s); process.exit(0); }));'",
     "worker 42\n", NULL},
    /* glibc 2.34+ starts threads with clone3 and falls back to clone on ENOSYS. */
    {"glibc_clone3_threads", "gcc",
     "set -e; cat > t.c <<'EOF'\n"
     "#define _GNU_SOURCE\n"
     "#include <errno.h>\n#include <pthread.h>\n#include <stdio.h>\n"
     "#include <sys/syscall.h>\n#include <unistd.h>\n"
     "static void *run(void *p) { *(int *)p *= 2; return NULL; }\n"
     "int main(void) {\n"
     "  int v[4] = {1, 2, 3, 4}, sum = 0; pthread_t t[4];\n"
     "  long r = syscall(SYS_clone3, NULL, 0);\n"
     "  printf(\"clone3 %s\\n\", r < 0 && errno == ENOSYS ? \"ENOSYS\" : \"reached\");\n"
     "  for (int i = 0; i < 4; i++) if (pthread_create(&t[i], NULL, run, &v[i])) return 1;\n"
     "  for (int i = 0; i < 4; i++) { pthread_join(t[i], NULL); sum += v[i]; }\n"
     "  printf(\"threads %d\\n\", sum); return 0;\n}\n"
     "EOF\n"
     "gcc -O2 -pthread -o t t.c; ./t; ldd --version | head -1 | grep -o '[0-9.]*$' |"
     " awk -F. '{ print ($1 > 2 || $2 >= 34) ? \"glibc uses clone3\" : \"old glibc\" }'",
     "clone3 ENOSYS\nthreads 20\nglibc uses clone3\n", NULL},
    {"af_unix", PY,
     PY " - <<'EOF'\n"
        "import os, socket, threading\n"
        "a, b = socket.socketpair(); a.sendall(b'pair'); print(b.recv(4).decode())\n"
        "d = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
        "d[0].send(b'dgram'); print(d[1].recv(5).decode())\n"
        "s = socket.socket(socket.AF_UNIX); s.bind('sock'); s.listen(1)\n"
        "def srv():\n"
        "    c, _ = s.accept(); c.sendall(c.recv(6).upper()); c.close()\n"
        "t = threading.Thread(target=srv); t.start()\n"
        "c = socket.socket(socket.AF_UNIX); c.connect('sock'); c.sendall(b'stream')\n"
        "print(c.recv(6).decode()); t.join()\n"
        "r, w = os.pipe(); os.write(w, b'fd'); print(os.read(r, 2).decode())\n"
        "EOF",
     "pair\ndgram\nSTREAM\nfd\n", NULL},
    /* xattr writers answer EOPNOTSUPP (@setxattr): copies that preserve what they can go on,
     * set-uid bits aside (@suid) */
    {"copies_keep_going", "cp tar " PY,
     "set -e; echo data > f; mkdir d; echo in > d/g; chmod 640 d/g; cp -a f f.a; cp -a d d.a;"
     " cp -p f f.p; " PY " -c 'import shutil; shutil.copy2(\"f\", \"f.c\");"
     " shutil.copytree(\"d\", \"d.c\"); print(\"copy2 ok\")';"
     " tar --xattrs -cf t.tar f d; mkdir x; tar --xattrs -xpf t.tar -C x; stat -c %a x/d/g;"
     " cat f.a d.a/g x/f; chmod u+s f 2>/dev/null || echo no-suid",
     "copy2 ok\n640\ndata\nin\ndata\nno-suid\n", NULL},
    {"curl_loopback", "curl " PY,
     /* The server says "Serving HTTP on 127.0.0.1 port N" once it listens: read that line
      * from a fifo (a blocking read, no polling), then connect. */
     "set -e; echo served > index.html; mkfifo ready; " PY " -u -m http.server"
     " --bind 127.0.0.1 0 > ready 2> log & pid=$!; exec 3< ready; read -r line <&3;"
     " port=${line##* port }; port=${port%% *}; [ -n \"$port\" ] || { cat log >&2; exit 1; };"
     " curl -sS http://127.0.0.1:$port/; kill $pid",
     "served\n", "--net=host"},
};

static bool installed(const char *prog)
{
	char cmd[512];

	if (prog[0] == '/')
		return access(prog, X_OK) == 0;
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static void check_needs(const struct row *row)
{
	char needs[256], *save = NULL;

	snprintf(needs, sizeof(needs), "%s", row->needs);
	for (char *p = strtok_r(needs, " ", &save); p; p = strtok_r(NULL, " ", &save))
		if (!installed(p))
			it_fail(__FILE__, __LINE__,
			        "%s: '%s' is not installed; scripts/setup.sh installs it",
			        row->name, p);
}

static void expect_output(const struct row *row, const struct it_run *r, const char *how)
{
	if (r->status != 0 || !strstr(r->out, row->expect))
		it_fail(__FILE__, __LINE__,
		        "%s %s: exit %d\n--- expected in stdout:\n%s--- stdout:\n%s--- stderr:\n%s",
		        row->name, how, r->status, row->expect, r->out, r->err);
}

static void run_under_filter(const struct row *row)
{
	static struct it_run r;
	char script[8192];
	const char *argv[] = {it_self(), "--exec", "--", "/bin/sh", "-c", script, NULL};

	check_needs(row);
	snprintf(script, sizeof(script), "cd '%s' && %s", it_tmpdir(), row->script);
	it_exec(&r, argv);
	expect_output(row, &r, "under the default filter");
}

static void run_in_sbx(const struct row *row)
{
	static struct it_run r;
	char vol[4200], chdir_opt[4200];

	check_needs(row);
	snprintf(vol, sizeof(vol), "%s", it_tmpdir());
	snprintf(chdir_opt, sizeof(chdir_opt), "--chdir=%s", it_tmpdir());
	if (row->sbx_opt)
		it_sbxv(&r, "run", "-v", vol, chdir_opt, row->sbx_opt, "--", "/bin/sh", "-c",
		        row->script, NULL);
	else
		it_sbxv(&r, "run", "-v", vol, chdir_opt, "--", "/bin/sh", "-c", row->script, NULL);
	expect_output(row, &r, "inside sbx run");
}

#define ROW(i, n)                                                                                  \
	static void filter_##n(void)                                                               \
	{                                                                                          \
		run_under_filter(&rows[i]);                                                        \
	}                                                                                          \
	static void sbx_run_##n(void)                                                              \
	{                                                                                          \
		run_in_sbx(&rows[i]);                                                              \
	}
ROW(0, bash)
ROW(1, coreutils)
ROW(2, python3)
ROW(3, git)
ROW(4, gcc_make)
ROW(5, cmake)
ROW(6, node_worker_threads)
ROW(7, glibc_clone3_threads)
ROW(8, af_unix)
ROW(9, copies_keep_going)
ROW(10, curl_loopback)

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(filter_bash),
	    IT_CASE(filter_coreutils),
	    IT_CASE(filter_python3),
	    IT_CASE(filter_git),
	    IT_CASE(filter_gcc_make),
	    IT_CASE(filter_cmake),
	    IT_CASE(filter_node_worker_threads),
	    IT_CASE(filter_glibc_clone3_threads),
	    IT_CASE(filter_af_unix),
	    IT_CASE(filter_copies_keep_going),
	    IT_CASE(filter_curl_loopback),
	    IT_CASE(sbx_run_bash),
	    IT_CASE(sbx_run_coreutils),
	    IT_CASE(sbx_run_python3),
	    IT_CASE(sbx_run_git),
	    IT_CASE(sbx_run_gcc_make),
	    IT_CASE(sbx_run_cmake),
	    IT_CASE(sbx_run_node_worker_threads),
	    IT_CASE(sbx_run_glibc_clone3_threads),
	    IT_CASE(sbx_run_af_unix),
	    IT_CASE(sbx_run_copies_keep_going),
	    IT_CASE(sbx_run_curl_loopback),
	};

	_Static_assert(sizeof(rows) / sizeof(rows[0]) == 11, "a ROW() per row");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strcmp(rows[i].name, cases[i].name + strlen("filter_")) != 0) {
			fprintf(stderr, "row %zu (%s) and case %s disagree\n", i, rows[i].name,
			        cases[i].name);
			return 1;
		}
	if (argc > 1 && strcmp(argv[1], "--exec") == 0)
		return seccomp_exec_main(argc - 1, argv + 1);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
