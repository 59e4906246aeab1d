/* SPDX-License-Identifier: MIT */
/*
 * The hooks of struct sbx_profile_opts for unit and fuzz tests that load fixture files: core
 * never opens a file (tests/check-core-purity.sh), so a test hands the loader its own plain
 * reader, file test and realpath, as the command line hands it src/os/trust.c's and
 * src/os/fs.c's. No ownership checks: the fixtures are the test's own.
 */
#ifndef SBX_TEST_HOST_FILES_H
#define SBX_TEST_HOST_FILES_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx/error.h"

static inline bool test_file_exists(const char *path, void *ctx)
{
	struct stat st;

	(void)ctx;
	return lstat(path, &st) == 0;
}

/* The source tree as it is on disk (profiles, fixtures); every other path exists, as with
 * no hook at all (optional mounts kept whatever this machine has). */
static inline bool test_source_exists(const char *path, void *ctx)
{
	if (strncmp(path, SBX_SOURCE_DIR "/", strlen(SBX_SOURCE_DIR "/")) == 0)
		return test_file_exists(path, ctx);
	return true;
}

static inline bool test_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static inline char *test_resolve(const char *path)
{
	return realpath(path, NULL);
}

static inline int test_read_file(const char *file, const char *what, size_t max, char **data,
                                 size_t *len, struct sbx_error *err)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;

	(void)what;
	if (fd < 0)
		return sbx_error_set(err, SBX_ERR_PROFILE, errno, "cannot open %s: %s", file,
		                     strerror(errno));
	buf = malloc(max + 2);
	if (!buf) {
		close(fd);
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	}
	while (got <= max && (n = read(fd, buf + got, max + 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (got > max) {
		free(buf);
		return sbx_error_set(err, SBX_ERR_PROFILE, EFBIG, "%s is larger than %zu KiB", file,
		                     max / 1024);
	}
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

#endif
