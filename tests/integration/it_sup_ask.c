/* SPDX-License-Identifier: MIT */
/*
 * Questions pending (sbx(1), APPROVALS): a question a broker has not answered yet keeps only
 * the call that asked. sbx serves every other call meanwhile (an allowed create finishes while
 * a socket broker holds question 1), at most 16 questions are pending (the 17th is denied at
 * once, with a line naming the cap), a call of the same command on the same subtree joins the
 * question pending instead of asking again, and a caller killed while its question is pending
 * leaves nothing behind (nothing made, the broker moves on to the next question).
 *
 * The broker is a socket broker served by a thread of the test; the worker is the test binary
 * (`--in CASE ASKDIR FREEDIR`, one line "OP PATH => RESULT" per check). The two wait for each
 * other on conditions: the broker reads a request line, the worker opens a FIFO the broker
 * writes, the worker sees its other threads blocked in their call (/proc/.../syscall), a file
 * appears; each wait has a generous bound and a bound reached is a failure. Under both
 * backends, as root and as the user (the harness runs both).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define WAIT_MS 30000 /* every wait's upper bound */
#define PENDING 16    /* the supervisor's cap on questions pending */

/* the harness's (it_errno_word, it_mono_ms, it_at) under this file's short names */
#define res    it_errno_word
#define now_ms it_mono_ms
#define at     it_at

static void tick(void)
{
	struct timespec t = {0, 2000000};

	nanosleep(&t, NULL);
}

/* ---- inside the sandbox ---- */

/* Is the task (/proc/PID or /proc/self/task/TID) blocked in its openat (stopped at the
 * supervisor)? Polled with a bound. */
static bool in_open(const char *procdir)
{
	char path[128], buf[256];
	long long end = now_ms() + WAIT_MS;

	snprintf(path, sizeof(path), "%s/syscall", procdir);
	while (now_ms() < end) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		if (atol(buf) == SYS_openat)
			return true;
		tick();
	}
	return false;
}

static bool child_in_open(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d", (int)pid);
	return in_open(p);
}

static int create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

/* A child that creates path and says how it went. */
static pid_t creator(const char *op, const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		int r = create(path);

		printf("%s %s => %s\n", op, path, res(r));
		_exit(0);
	}
	return pid;
}

/* Wait for the broker's word: it writes a byte into FREEDIR/go once it holds question 1. */
static void go(const char *free_dir)
{
	char c;
	int fd = open(at(free_dir, "go"), O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &c, 1) != 1)
		printf("go %s => %s\n", free_dir, res(-1));
	if (fd >= 0)
		close(fd);
}

/* question 1 held by the broker: another process's allowed create finishes meanwhile */
static int in_meanwhile(const char *ask, const char *free_dir)
{
	pid_t pid = creator("asked", at(ask, "q1"));

	go(free_dir);
	printf("free %s => %s\n", at(free_dir, "x"), res(create(at(free_dir, "x"))));
	printf("still-asking %s => %s\n", at(ask, "q1"), child_in_open(pid) ? "yes" : "no");
	/* the broker answers question 1 only after this word: had it answered on seeing x,
	 * the asking child could finish before the look above (seen in CI on a busy machine) */
	(void)create(at(free_dir, "looked"));
	waitpid(pid, NULL, 0);
	return 0;
}

/* 16 questions pending: the 17th is denied at once */
static int in_cap(const char *ask, const char *free_dir)
{
	pid_t kids[PENDING];
	bool all = true;
	long long t0;
	int r;

	for (int i = 0; i < PENDING; i++) {
		char name[32];

		snprintf(name, sizeof(name), "c%d", i);
		kids[i] = creator("asked", at(ask, name));
		/* one after the other: the questions come in this order */
		all = child_in_open(kids[i]) && all;
	}
	printf("pending %s => %s\n", ask, all ? "yes" : "no");
	t0 = now_ms();
	r = create(at(ask, "over"));
	printf("capped %s => %s\n", at(ask, "over"), res(r));
	printf("at-once %s => %s\n", at(ask, "over"), now_ms() - t0 < 10000 ? "yes" : "no");
	/* the broker answers now */
	(void)create(at(free_dir, "release"));
	for (int i = 0; i < PENDING; i++)
		waitpid(kids[i], NULL, 0);
	return 0;
}

static const char *join_path[2];
static pid_t join_tid[2];
static int join_ready[2];

static void *join_thread(void *arg)
{
	int i = (int)(long)arg, r;

	join_tid[i] = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&join_ready[i], 1, __ATOMIC_SEQ_CST);
	r = create(join_path[i]);
	printf("asked %s => %s\n", join_path[i], res(r));
	return NULL;
}

/* two threads of one command, one subtree: the second call joins the question pending */
static int in_join(const char *ask, const char *free_dir)
{
	pthread_t th[2];
	char task[2][64];
	long long end = now_ms() + WAIT_MS;

	join_path[0] = strdup(at(ask, "sub/f1"));
	join_path[1] = strdup(at(ask, "sub/f2"));
	pthread_create(&th[0], NULL, join_thread, (void *)0L);
	go(free_dir);
	pthread_create(&th[1], NULL, join_thread, (void *)1L);
	while (!__atomic_load_n(&join_ready[1], __ATOMIC_SEQ_CST) && now_ms() < end)
		tick();
	for (int i = 0; i < 2; i++)
		snprintf(task[i], sizeof(task[i]), "/proc/self/task/%d", (int)join_tid[i]);
	printf("both-waiting %s => %s\n", ask, in_open(task[0]) && in_open(task[1]) ? "yes" : "no");
	printf("free %s => %s\n", at(free_dir, "y"), res(create(at(free_dir, "y"))));
	(void)create(at(free_dir, "release"));
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	return 0;
}

/* the caller of question 1 killed: nothing made, question 2 asked */
static int in_killed(const char *ask, const char *free_dir)
{
	pid_t pid = creator("asked", at(ask, "k"));
	bool waiting;

	go(free_dir); /* the broker holds its question */
	waiting = child_in_open(pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("killed %s => %s\n", at(ask, "k"), waiting ? "yes" : "no");
	printf("asked %s => %s\n", at(ask, "k2"), res(create(at(ask, "k2"))));
	return 0;
}

static int in_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(WAIT_MS / 1000 * 4); /* a hang is a failure, never a stuck suite */
	if (argc < 3) {
		printf("%s => unknown\n", argc ? argv[0] : "");
		return 2;
	}
	if (!strcmp(argv[0], "meanwhile"))
		return in_meanwhile(argv[1], argv[2]);
	if (!strcmp(argv[0], "cap"))
		return in_cap(argv[1], argv[2]);
	if (!strcmp(argv[0], "join"))
		return in_join(argv[1], argv[2]);
	if (!strcmp(argv[0], "killed"))
		return in_killed(argv[1], argv[2]);
	printf("%s => unknown\n", argv[0]);
	return 2;
}

/* ---- the host side: the broker ---- */

enum mode { M_MEANWHILE, M_CAP, M_JOIN, M_KILLED };

struct broker {
	enum mode mode;
	int listen_fd, fd;
	const char *ask, *free_dir;
	char buf[1 << 16];
	size_t len;
	unsigned lines;
	/* what it saw */
	bool saw_free;    /* meanwhile, join: the allowed create finished while it held q1 */
	bool q1_unmade;   /* meanwhile: question 1's file not made before the answer */
	bool released;    /* cap, join: the worker said so before the bound */
	bool second_came; /* killed: request 2 came while request 1 was unanswered */
	char first[8192];
};

/* The next request line within ms: its "id", or 0 (none). */
static unsigned next_line(struct broker *b, int ms)
{
	long long end = now_ms() + ms;

	for (;;) {
		char *nl = memchr(b->buf, '\n', b->len);
		struct pollfd p = {b->fd, POLLIN, 0};
		long long left = end - now_ms();
		ssize_t n;

		if (nl) {
			size_t k = (size_t)(nl - b->buf);
			const char *id;
			unsigned v;

			*nl = '\0';
			id = strstr(b->buf, "\"id\":");
			v = id ? (unsigned)atoi(id + 5) : 0;
			if (++b->lines == 1)
				memcpy(b->first, b->buf, k < sizeof(b->first) ? k + 1 : 0);
			memmove(b->buf, nl + 1, b->len - k - 1);
			b->len -= k + 1;
			return v;
		}
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return 0;
		n = read(b->fd, b->buf + b->len, sizeof(b->buf) - 1 - b->len);
		if (n <= 0)
			return 0;
		b->len += (size_t)n;
	}
}

static void answer(struct broker *b, unsigned id, bool allow)
{
	char line[128];

	snprintf(line, sizeof(line), "{\"v\":1,\"id\":%u,\"allow\":%s}\n", id,
	         allow ? "true" : "false");
	if (write(b->fd, line, strlen(line)) < 0)
		return;
}

static bool wait_file(const char *path, int ms)
{
	long long end = now_ms() + ms;

	while (access(path, F_OK) != 0) {
		if (now_ms() > end)
			return false;
		tick();
	}
	return true;
}

static void say_go(struct broker *b)
{
	int fd = open(at(b->free_dir, "go"), O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "g", 1) != 1)
			b->saw_free = false;
		close(fd);
	}
}

static void *broker_main(void *arg)
{
	struct broker *b = arg;
	unsigned id;

	b->fd = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (b->fd < 0)
		return NULL;
	id = next_line(b, WAIT_MS * 2);
	if (!id)
		goto out;
	switch (b->mode) {
	case M_MEANWHILE:
		say_go(b);
		b->saw_free = wait_file(at(b->free_dir, "x"), WAIT_MS / 3);
		(void)wait_file(at(b->free_dir, "looked"), WAIT_MS / 3);
		b->q1_unmade = access(at(b->ask, "q1"), F_OK) != 0;
		answer(b, id, true);
		break;
	case M_CAP:
		b->released = wait_file(at(b->free_dir, "release"), WAIT_MS);
		answer(b, id, true);
		break;
	case M_JOIN:
		say_go(b);
		b->released = wait_file(at(b->free_dir, "release"), WAIT_MS);
		b->saw_free = access(at(b->free_dir, "y"), F_OK) == 0;
		answer(b, id, true);
		break;
	case M_KILLED: {
		unsigned second;

		say_go(b);
		/* the second caller asks once the first is killed: waited for, not timed */
		second = next_line(b, WAIT_MS * 2);

		b->second_came = second != 0;
		if (second)
			answer(b, second, true);
		answer(b, id, true); /* late: sbx skips it */
		break;
	}
	}
	/* every later question: yes */
	while ((id = next_line(b, WAIT_MS)) != 0)
		answer(b, id, true);
out:
	close(b->fd);
	return NULL;
}

static void run_case(enum mode mode, const char *name, const char *backend, struct broker *b,
                     struct it_run *r)
{
	char *ws = it_path(it_tmpdir(), "ws"), *prof = it_path(it_tmpdir(), "ask.yaml");
	char *ask = it_path(ws, "ask"), *free_dir = it_path(ws, "free"), *text = NULL;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char spec[256];
	const char *opts[] = {
	    "-p", prof, "--backend", backend, "--approve", spec, "--approve-timeout", "120", NULL};
	const char *cmd[] = {it_self(), "--in", name, ask, free_dir, NULL};
	pthread_t t;

	it_write_file(it_path(ask, "sub/keep"), "k\n");
	it_write_file(it_path(free_dir, "keep"), "k\n");
	IT_EXPECT(mkfifo(it_path(free_dir, "go"), 0666) == 0);
	IT_EXPECT(asprintf(&text,
	                   "version: 1\nname: ask\nmounts:\n  - path: %s\n"
	                   "    approvals: {write: ask}\n  - path: %s\n",
	                   ask, free_dir) > 0);
	it_write_file(prof, text);
	memset(b, 0, sizeof(*b));
	b->mode = mode;
	b->ask = ask;
	b->free_dir = free_dir;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/b.sock", it_tmpdir());
	b->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	IT_EXPECT(b->listen_fd >= 0);
	IT_EXPECT(bind(b->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	IT_EXPECT(listen(b->listen_fd, 4) == 0);
	snprintf(spec, sizeof(spec), "socket:%s", sa.sun_path);
	IT_EXPECT(pthread_create(&t, NULL, broker_main, b) == 0);
	it_run_in(r, opts, cmd);
	if (r->status == 125 &&
	    (strstr(r->err, "supervisor needs") || strstr(r->err, "user notification")))
		it_skip("no supervisor here: %s", r->err);
	pthread_join(t, NULL);
	close(b->listen_fd);
}

static void meanwhile(const char *backend)
{
	static struct broker b;
	struct it_run r;

	run_case(M_MEANWHILE, "meanwhile", backend, &b, &r);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(b.first, "\"op\":\"create\"");
	IT_EXPECT_CONTAINS(b.first, "/ask/q1\"");
	/* the allowed create finished while question 1 was held, and q1 waited for its answer */
	IT_EXPECT(b.saw_free);
	IT_EXPECT(b.q1_unmade);
	IT_EXPECT_PROBE(r.out, "free", it_path(b.free_dir, "x"), "ok");
	IT_EXPECT_PROBE(r.out, "still-asking", it_path(b.ask, "q1"), "yes");
	IT_EXPECT_PROBE(r.out, "asked", it_path(b.ask, "q1"), "ok");
	IT_EXPECT(access(it_path(b.ask, "q1"), F_OK) == 0);
	IT_EXPECT_INT(b.lines, 1);
}

static void cap(const char *backend)
{
	static struct broker b;
	struct it_run r;

	run_case(M_CAP, "cap", backend, &b, &r);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "pending", b.ask, "yes");
	IT_EXPECT_PROBE(r.out, "capped", it_path(b.ask, "over"), "EACCES");
	IT_EXPECT_PROBE(r.out, "at-once", it_path(b.ask, "over"), "yes");
	IT_EXPECT(b.released);
	IT_EXPECT_CONTAINS(r.err, "at most 16 questions may wait for an answer at once");
	/* the 16 asked one after the other, each allowed; the 17th never asked */
	IT_EXPECT_INT(b.lines, PENDING);
	for (int i = 0; i < PENDING; i++) {
		char name[32];

		snprintf(name, sizeof(name), "c%d", i);
		IT_EXPECT_PROBE(r.out, "asked", it_path(b.ask, name), "ok");
	}
	IT_EXPECT(access(it_path(b.ask, "over"), F_OK) != 0);
}

static void join(const char *backend)
{
	static struct broker b;
	struct it_run r;

	run_case(M_JOIN, "join", backend, &b, &r);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "both-waiting", b.ask, "yes");
	IT_EXPECT_PROBE(r.out, "free", it_path(b.free_dir, "y"), "ok");
	IT_EXPECT(b.released);
	IT_EXPECT(b.saw_free);
	IT_EXPECT_PROBE(r.out, "asked", it_path(b.ask, "sub/f1"), "ok");
	IT_EXPECT_PROBE(r.out, "asked", it_path(b.ask, "sub/f2"), "ok");
	/* one question for the two calls */
	IT_EXPECT_INT(b.lines, 1);
	IT_EXPECT_CONTAINS(b.first, "/ask/sub\"");
}

static void killed(const char *backend)
{
	static struct broker b;
	struct it_run r;

	run_case(M_KILLED, "killed", backend, &b, &r);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_PROBE(r.out, "killed", it_path(b.ask, "k"), "yes");
	IT_EXPECT(b.second_came);
	IT_EXPECT_PROBE(r.out, "asked", it_path(b.ask, "k2"), "ok");
	/* the killed caller's question answered yes, late: nothing made for it */
	IT_EXPECT(access(it_path(b.ask, "k"), F_OK) != 0);
	IT_EXPECT(access(it_path(b.ask, "k2"), F_OK) == 0);
	IT_EXPECT_INT(b.lines, 2);
}

/* ---- an editor's save is one question (provisional files) ---- */

/* A workspace with doc.txt and doc2.txt under {write: ask, overwrite: ask}, and a cmd broker
 * that appends each request to req.log and answers with exit status `status`. */
static void editor_ws(char **ws, char **prof, char **log, char *spec, size_t size, int status)
{
	char *broker = it_path(it_tmpdir(), "broker.sh"), *text = NULL;

	*ws = it_path(it_tmpdir(), "ws");
	*prof = it_path(it_tmpdir(), "ed.yaml");
	*log = it_path(it_tmpdir(), "req.log");
	it_write_file(it_path(*ws, "doc.txt"), "old\n");
	it_write_file(it_path(*ws, "doc2.txt"), "aaa\n");
	IT_EXPECT(asprintf(&text,
	                   "version: 1\nname: ed\nmounts:\n  - path: %s\n"
	                   "    approvals: {write: ask, overwrite: ask}\n",
	                   *ws) > 0);
	it_write_file(*prof, text);
	free(text);
	IT_EXPECT(asprintf(&text, "#!/bin/sh\ncat >>'%s'; echo >>'%s'; exit %d\n", *log, *log,
	                   status) > 0);
	it_write_file(broker, text);
	IT_EXPECT_INT(chmod(broker, 0755), 0);
	snprintf(spec, size, "cmd:%s", broker);
	if (access("/usr/bin/python3", X_OK) != 0)
		it_skip("python3 is not installed (scripts/setup.sh installs it)");
}

/* The requests the broker got: how many, and the text. */
static size_t requests(const char *log, char *text, size_t size)
{
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, size - 1) : 0;
	size_t count = 0;

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	for (const char *p = text; (p = strstr(p, "\"type\":\"approval\"")); p++)
		count++;
	return count;
}

static void sbx_in(struct it_run *r, const char *prof, const char *backend, const char *spec,
                   const char *const *cmd)
{
	const char *args[32] = {"run", "-p", prof, "--backend", backend, "--approve", spec, "--"};
	size_t n = 8;

	for (; *cmd && n < 31; cmd++)
		args[n++] = *cmd;
	args[n] = NULL;
	it_sbx(r, args);
	if (r->status == 125 &&
	    (strstr(r->err, "supervisor needs") || strstr(r->err, "user notification")))
		it_skip("no supervisor here: %s", r->err);
}

/* The editor workspace holds its two files and nothing else: no temporary left behind. */
static void only_originals(const char *ws)
{
	struct it_run ls;
	const char *argv[] = {"/bin/ls", "-A", ws, NULL};

	it_exec(&ls, argv);
	IT_EXPECT(strcmp(ls.out, "doc.txt\ndoc2.txt\n") == 0);
}

/* python3's tempfile + os.replace, and sed -i: one question each (the overwrite), the file
 * replaced, no temporary left. (Before: two, the temporary's create and the overwrite.) */
static void editor_save(const char *backend)
{
	static char text[65536], code[8192];
	char spec[4200], *ws, *prof, *log;
	struct it_run r;
	const char *py[] = {"/usr/bin/python3", "-c", code, NULL};
	const char *sed[] = {"sed", "-i", "s/a/b/", NULL, NULL};

	editor_ws(&ws, &prof, &log, spec, sizeof(spec), 0);
	snprintf(code, sizeof(code),
	         "import tempfile, os\n"
	         "f = tempfile.NamedTemporaryFile('w', dir='%s', delete=False)\n"
	         "f.write('new\\n'); f.close()\n"
	         "os.replace(f.name, '%s/doc.txt')\n",
	         ws, ws);
	sbx_in(&r, prof, backend, spec, py);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_INT(requests(log, text, sizeof(text)), 1);
	IT_EXPECT_CONTAINS(text, "\"class\":\"overwrite\"");
	IT_EXPECT_CONTAINS(text, "/doc.txt\"");
	IT_EXPECT_NOT_CONTAINS(text, "\"op\":\"create\"");
	{
		char *got = NULL;
		size_t len = 0;
		FILE *f = fopen(it_path(ws, "doc.txt"), "r");

		IT_EXPECT(f != NULL);
		IT_EXPECT(getline(&got, &len, f) > 0);
		fclose(f);
		IT_EXPECT(strcmp(got, "new\n") == 0);
	}
	unlink(log);
	sed[3] = it_path(ws, "doc2.txt");
	sbx_in(&r, prof, backend, spec, sed);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_INT(requests(log, text, sizeof(text)), 1);
	IT_EXPECT_CONTAINS(text, "\"class\":\"overwrite\"");
	IT_EXPECT_CONTAINS(text, "/doc2.txt\"");
	/* nothing else in the folder: no temporary left behind */
	only_originals(ws);
}

/* Every other new name still asks: a create with O_EXCL that is never renamed over a file
 * is asked for (kept when allowed, removed when refused), a create without O_EXCL asks at
 * once, a temporary renamed to a new name asks for that name. */
static void new_names_ask(const char *backend)
{
	static char text[65536], code[8192];
	char spec[4200], *ws, *prof, *log;
	struct it_run r;
	const char *py[] = {"/usr/bin/python3", "-c", code, NULL};

	editor_ws(&ws, &prof, &log, spec, sizeof(spec), 0);
	snprintf(code, sizeof(code),
	         "open('%s/x.txt', 'x').write('x')\n"
	         "open('%s/y.txt', 'w').write('y')\n"
	         "import tempfile, os\n"
	         "f = tempfile.NamedTemporaryFile('w', dir='%s', delete=False)\n"
	         "f.write('z'); f.close()\n"
	         "os.rename(f.name, '%s/z.txt')\n",
	         ws, ws, ws, ws);
	sbx_in(&r, prof, backend, spec, py);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_INT(requests(log, text, sizeof(text)), 3);
	IT_EXPECT_CONTAINS(text, "/x.txt\"");
	IT_EXPECT_CONTAINS(text, "/y.txt\"");
	IT_EXPECT_CONTAINS(text, "/z.txt\"");
	IT_EXPECT_NOT_CONTAINS(text, "\"class\":\"overwrite\"");
	/* x.txt's question says the file exists already (a refusal removes it); y.txt's not */
	IT_EXPECT_CONTAINS(text, "/x.txt\",\"path2\":null");
	IT_EXPECT_CONTAINS(strstr(text, "/x.txt\",\"path2\":null"), "\"provisional\":true}");
	IT_EXPECT_CONTAINS(strstr(text, "/y.txt\",\"path2\":null"), "\"provisional\":false}");
	IT_EXPECT(access(it_path(ws, "x.txt"), F_OK) == 0);
	IT_EXPECT(access(it_path(ws, "y.txt"), F_OK) == 0);
	IT_EXPECT(access(it_path(ws, "z.txt"), F_OK) == 0);
}

/* A provisional file is renamed plainly or not at all: exchanged (RENAME_EXCHANGE) with
 * another, or the new name of a rename, its held question would no longer name what is
 * there, and both files would stay unasked (attack J). Refused; each create is still asked
 * and, refused, removed. */
static void provisional_misused(const char *backend)
{
	static char text[65536], code[8192];
	char spec[4200], *ws, *prof, *log;
	struct it_run r;
	const char *py[] = {"/usr/bin/python3", "-c", code, NULL};

	editor_ws(&ws, &prof, &log, spec, sizeof(spec), 1);
	snprintf(code, sizeof(code),
	         "import ctypes, os\n"
	         "libc = ctypes.CDLL(None, use_errno=True)\n"
	         "d = '%s'\n"
	         "for n in ('a1', 'a2', 'c1', 'c2'):\n"
	         "    os.close(os.open(d + '/' + n, os.O_CREAT | os.O_EXCL | os.O_WRONLY))\n"
	         "r = libc.renameat2(-100, (d + '/a1').encode(), -100, (d + '/a2').encode(), 2)\n"
	         "print('exchange', r, ctypes.get_errno())\n"
	         "try:\n"
	         "    os.replace(d + '/c1', d + '/c2'); print('onto ok')\n"
	         "except OSError as e:\n"
	         "    print('onto', e.errno)\n",
	         ws);
	sbx_in(&r, prof, backend, spec, py);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "exchange -1 13");
	IT_EXPECT_CONTAINS(r.out, "onto 13");
	IT_EXPECT_CONTAINS(r.err, "it is renamed plainly or not at all");
	IT_EXPECT_INT(requests(log, text, sizeof(text)), 4);
	for (const char *n = "a1"; n; n = !strcmp(n, "a1")   ? "a2"
	                                  : !strcmp(n, "a2") ? "c1"
	                                  : !strcmp(n, "c1") ? "c2"
	                                                     : NULL)
		IT_EXPECT(access(it_path(ws, n), F_OK) != 0);
}

/* A broker that refuses: the O_EXCL create that was made provisionally is removed once it is
 * refused (here at the sandbox's end: the worker is gone within its time), and the line says
 * so; a temporary renamed over a file is refused with the overwrite and removed too. */
static void new_name_refused(const char *backend)
{
	static char text[65536], code[8192];
	char spec[4200], *ws, *prof, *log;
	struct it_run r;
	const char *py[] = {"/usr/bin/python3", "-c", code, NULL};

	editor_ws(&ws, &prof, &log, spec, sizeof(spec), 1);
	snprintf(code, sizeof(code),
	         "open('%s/x.txt', 'x').write('x')\n"
	         "import tempfile, os\n"
	         "f = tempfile.NamedTemporaryFile('w', dir='%s', delete=False)\n"
	         "f.write('new'); f.close()\n"
	         "try:\n    os.replace(f.name, '%s/doc.txt')\n"
	         "except PermissionError:\n    print('replace refused')\n",
	         ws, ws, ws);
	sbx_in(&r, prof, backend, spec, py);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "replace refused");
	/* the overwrite, then the two provisional files' own questions */
	IT_EXPECT_INT(requests(log, text, sizeof(text)), 3);
	IT_EXPECT(access(it_path(ws, "x.txt"), F_OK) != 0);
	IT_EXPECT_CONTAINS(r.err, "the provisional file was removed");
	only_originals(ws);
}

/* A worker that goes on: its provisional file's question comes when its time is up (5 s),
 * during the run, and the refusal removes the file while the worker watches. */
static void held_then_asked(const char *backend)
{
	static char text[65536], code[8192];
	char spec[4200], *ws, *prof, *log;
	struct it_run r;
	const char *py[] = {"/usr/bin/python3", "-c", code, NULL};

	editor_ws(&ws, &prof, &log, spec, sizeof(spec), 1);
	snprintf(code, sizeof(code),
	         "import os, time\n"
	         "open('%s/x.txt', 'x').write('x')\n"
	         "t0 = time.monotonic()\n"
	         "while os.path.exists('%s/x.txt') and time.monotonic() - t0 < 30: "
	         "time.sleep(0.01)\n"
	         "print('gone' if not os.path.exists('%s/x.txt') else 'kept', "
	         "'after', int(time.monotonic() - t0))\n",
	         ws, ws, ws);
	sbx_in(&r, prof, backend, spec, py);
	IT_EXPECT_INT(r.status, 0);
	IT_EXPECT_CONTAINS(r.out, "gone after ");
	/* held its time, not asked at once */
	IT_EXPECT(atoi(strstr(r.out, "gone after ") + 11) >= 4);
	IT_EXPECT_INT(requests(log, text, sizeof(text)), 1);
	IT_EXPECT_CONTAINS(text, "\"provisional\":true}");
	IT_EXPECT_CONTAINS(r.err, "the provisional file was removed");
}

#define BOTH_BACKENDS(name)                                                                        \
	static void test_##name##_namespaces(void)                                                 \
	{                                                                                          \
		name("namespaces");                                                                \
	}                                                                                          \
	static void test_##name##_landlock(void)                                                   \
	{                                                                                          \
		name("landlock");                                                                  \
	}

BOTH_BACKENDS(meanwhile)
BOTH_BACKENDS(cap)
BOTH_BACKENDS(join)
BOTH_BACKENDS(killed)
BOTH_BACKENDS(editor_save)
BOTH_BACKENDS(new_names_ask)
BOTH_BACKENDS(provisional_misused)
BOTH_BACKENDS(new_name_refused)
BOTH_BACKENDS(held_then_asked)

int main(int argc, char **argv)
{
	static const struct it_case cases[] = {
	    IT_CASE(test_meanwhile_namespaces),
	    IT_CASE(test_meanwhile_landlock),
	    IT_CASE(test_cap_namespaces),
	    IT_CASE(test_cap_landlock),
	    IT_CASE(test_join_namespaces),
	    IT_CASE(test_join_landlock),
	    IT_CASE(test_killed_namespaces),
	    IT_CASE(test_killed_landlock),
	    IT_CASE(test_editor_save_namespaces),
	    IT_CASE(test_editor_save_landlock),
	    IT_CASE(test_new_names_ask_namespaces),
	    IT_CASE(test_new_names_ask_landlock),
	    IT_CASE(test_provisional_misused_namespaces),
	    IT_CASE(test_provisional_misused_landlock),
	    IT_CASE(test_new_name_refused_namespaces),
	    IT_CASE(test_new_name_refused_landlock),
	    IT_CASE(test_held_then_asked_namespaces),
	    IT_CASE(test_held_then_asked_landlock),
	};

	if (argc > 1 && strcmp(argv[1], "--in") == 0)
		return in_main(argc - 2, argv + 2);
	return it_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
