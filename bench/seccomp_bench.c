/* SPDX-License-Identifier: MIT */
/*
 * Per-system-call cost of a seccomp filter, for bench/seccomp.sh.
 *
 * Four long-lived workers run the same workloads: one without a filter, one under sbx's
 * filter (sbx-seccomp-exec), one under bubblewrap with the very same BPF program
 * (bwrap --seccomp FD), and a "floor": the cheapest filter that still has to run for ioctl
 * (arch check, then "if ioctl, load an argument; allow"), which shows what the kernel charges
 * for running any filter at all. The driver asks them in turn for short bursts, round after
 * round, so that the noise of a shared machine (other builds, a busy hypervisor) falls on all
 * alike; it reports the median time per call of each and the median of per-round ratios.
 *
 * Workloads:
 *   getppid       a call no rule names: the kernel's action cache allows it without
 *                 running the filter
 *   ioctl         ioctl(FIONREAD) on a pipe: ioctl has argument-checked rules (TIOCSTI,
 *                 TIOCLINUX), so the filter runs on every call
 *   openat_close  openat("/dev/null") + close: two calls without rules, and real work
 *
 * usage: seccomp_bench --drive ROUNDS SBX_SECCOMP_EXEC FILTER.bpf
 *        seccomp_bench --worker [--floor]  (reads a workload number, answers ns per call)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];

static void w_getppid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void w_ioctl(long n)
{
	int avail;

	for (long i = 0; i < n; i++)
		if (syscall(SYS_ioctl, pipefd[0], FIONREAD, &avail) < 0)
			abort();
}

static void w_openat_close(long n)
{
	for (long i = 0; i < n; i++) {
		long fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			abort();
		syscall(SYS_close, fd);
	}
}

static const struct {
	const char *name;
	void (*fn)(long);
	long burst;
} loads[] = {
    {"getppid", w_getppid, 20000},
    {"ioctl", w_ioctl, 20000},
    {"openat_close", w_openat_close, 5000},
};
#define N_LOADS (sizeof(loads) / sizeof(loads[0]))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int install_floor(void)
{
	struct sock_filter insns[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 1),
	    /* an argument load: the kernel's action cache cannot prove ioctl constant */
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(insns) / sizeof(insns[0]), insns};

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	       syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0;
}

static int worker(bool floor)
{
	unsigned char w;

	if (pipe(pipefd) < 0 || (floor && install_floor()))
		return 1;
	while (read(0, &w, 1) == 1) {
		double start, ns;

		if (w >= N_LOADS)
			return 1;
		start = now_ns();
		loads[w].fn(loads[w].burst);
		ns = (now_ns() - start) / (double)loads[w].burst;
		if (write(1, &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
			return 1;
	}
	return 0;
}

struct proc {
	const char *label;
	pid_t pid;
	int to, from;
};

static void spawn(struct proc *p, char *const argv[], int filter_fd)
{
	int in[2], out[2];

	/* CLOEXEC: the next worker must not hold this one's pipes open (EOF at the end). */
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		exit(1);
	p->pid = fork();
	if (p->pid < 0)
		exit(1);
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (filter_fd == 3)
			fcntl(3, F_SETFD, 0);
		else if (filter_fd >= 0)
			dup2(filter_fd, 3);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->to = in[1];
	p->from = out[0];
}

static double ask(struct proc *p, unsigned char w)
{
	double ns;

	if (write(p->to, &w, 1) != 1 || read(p->from, &ns, sizeof(ns)) != (ssize_t)sizeof(ns)) {
		fprintf(stderr, "worker '%s' failed\n", p->label);
		exit(1);
	}
	return ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int drive(int rounds, const char *exec_helper, const char *filter)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int filter_fd = open(filter, O_RDONLY | O_CLOEXEC);
	struct proc procs[4] = {
	    {"none", 0, 0, 0}, {"sbx", 0, 0, 0}, {"bwrap", 0, 0, 0}, {"floor", 0, 0, 0}};
	double *t[N_LOADS][4], *ratio[N_LOADS][3];

	if (len <= 0 || filter_fd < 0 || rounds < 1)
		return 1;
	self[len] = '\0';
	{
		char *none[] = {self, (char *)"--worker", NULL};
		char *sbx[] = {(char *)exec_helper, (char *)"--", self, (char *)"--worker", NULL};
		char *bwrap[] = {(char *)"bwrap",     (char *)"--dev-bind",
		                 (char *)"/",         (char *)"/",
		                 (char *)"--seccomp", (char *)"3",
		                 (char *)"--",        self,
		                 (char *)"--worker",  NULL};
		char *floor[] = {self, (char *)"--worker", (char *)"--floor", NULL};

		spawn(&procs[0], none, -1);
		spawn(&procs[1], sbx, -1);
		spawn(&procs[2], bwrap, filter_fd);
		spawn(&procs[3], floor, -1);
	}
	for (size_t w = 0; w < N_LOADS; w++) {
		for (int m = 0; m < 4; m++)
			t[w][m] = calloc((size_t)rounds, sizeof(double));
		for (int m = 0; m < 3; m++)
			ratio[w][m] = calloc((size_t)rounds, sizeof(double));
	}
	for (int m = 0; m < 4; m++) /* warm up */
		for (size_t w = 0; w < N_LOADS; w++)
			ask(&procs[m], (unsigned char)w);
	for (int r = 0; r < rounds; r++)
		for (size_t w = 0; w < N_LOADS; w++) {
			for (int k = 0; k < 4; k++) { /* rotate who goes first */
				int m = (k + r) % 4;

				t[w][m][r] = ask(&procs[m], (unsigned char)w);
			}
			for (int m = 0; m < 3; m++)
				ratio[w][m][r] = t[w][m + 1][r] / t[w][0][r];
		}
	printf("%-13s %8s %8s %8s %8s %9s %10s %10s\n", "call", "none ns", "sbx ns", "bwrap ns",
	       "floor ns", "sbx/none", "bwrap/none", "floor/none");
	for (size_t w = 0; w < N_LOADS; w++) {
		double m[4], q[3];

		for (int k = 0; k < 4; k++)
			m[k] = median(t[w][k], rounds);
		for (int k = 0; k < 3; k++)
			q[k] = (median(ratio[w][k], rounds) - 1) * 100;
		printf("%-13s %8.1f %8.1f %8.1f %8.1f %+8.1f%% %+9.1f%% %+9.1f%%\n", loads[w].name,
		       m[0], m[1], m[2], m[3], q[0], q[1], q[2]);
	}
	printf("(%d rounds; ns are medians per call; percentages are medians of the per-round "
	       "ratios, the extra cost over no filter)\n",
	       rounds);
	fflush(stdout);
	for (int m = 0; m < 4; m++) {
		close(procs[m].to);
		waitpid(procs[m].pid, NULL, 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--worker") == 0)
		return worker(argc == 3 && strcmp(argv[2], "--floor") == 0);
	if (argc == 5 && strcmp(argv[1], "--drive") == 0)
		return drive(atoi(argv[2]), argv[3], argv[4]);
	fprintf(stderr, "usage: %s --drive ROUNDS SBX_SECCOMP_EXEC FILTER.bpf | --worker\n",
	        argv[0]);
	return 2;
}
