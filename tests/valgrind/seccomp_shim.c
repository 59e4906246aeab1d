/* SPDX-License-Identifier: MIT */
/*
 * Preloaded into sbx-dynamic under valgrind only (tests/valgrind/memcheck.sh), never into sbx.
 *
 * Valgrind 3.19 (Debian 12) does not implement seccomp(2): it answers ENOSYS without asking
 * the kernel. libseccomp then believes the kernel has API level 1, refuses
 * SCMP_ACT_KILL_PROCESS, and sbx fails closed before it starts any process. To let memcheck
 * follow a launch past that point, this shim
 *   - tells libseccomp the API level the kernel really has for what sbx asks (3: the
 *     seccomp syscall, TSYNC and KILL_PROCESS; Linux 4.14 and later), and
 *   - installs the filter sbx passes to seccomp(SECCOMP_SET_MODE_FILTER, ...) with
 *     prctl(PR_SET_SECCOMP), which valgrind does pass through. Without TSYNC: the process
 *     has one thread at that point, and so does valgrind's guest.
 * Every other seccomp(2) operation keeps valgrind's ENOSYS. The filter sbx builds and the
 * checks it makes around it are sbx's own, unchanged.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

__attribute__((constructor)) static void shim_init(void)
{
	(void)seccomp_api_set(3);
}

long syscall(long nr, ...);
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_seccomp) {
		if (a[0] == SECCOMP_SET_MODE_FILTER && a[2] != 0)
			return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, a[2], 0, 0);
		errno = ENOSYS;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
