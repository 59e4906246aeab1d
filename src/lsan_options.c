/* SPDX-License-Identifier: MIT */
/*
 * Linked into the sbx executable and every integration test binary (CMakeLists.txt) — not into
 * a library, since the sanitizer runtime looks the hook up weakly and an archive member
 * nothing references would be left out. It does anything only in an ASan build.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer stops the world with ptrace, which sbx's seccomp filter denies: inside a
 * sandbox (this process already under a seccomp filter) leak checking cannot run and would
 * turn every exit into a failure. Outside, it stays on. */
const char *__lsan_default_options(void);
__attribute__((no_sanitize("address", "undefined"))) const char *__lsan_default_options(void)
{
	/* Called before the sanitizer's own interceptors work: raw system calls, no libc. */
	static const char key[] = "\nSeccomp:\t2";
	char buf[4096];
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
	long n = fd < 0 ? -1 : syscall(SYS_read, fd, buf, sizeof(buf));

	if (fd >= 0)
		syscall(SYS_close, fd);
	for (long i = 0; i + (long)sizeof(key) - 1 <= n; i++) {
		long k = 0;

		while (k < (long)sizeof(key) - 1 && buf[i + k] == key[k])
			k++;
		if (k == (long)sizeof(key) - 1)
			return "detect_leaks=0";
	}
	return "";
}
#endif
