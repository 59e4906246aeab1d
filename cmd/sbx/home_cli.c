/* SPDX-License-Identifier: MIT */
/* The home's host facts (cli.h, sbx_cli_home_facts; src/core/home.c decides). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/nest.h"
#include "sbx/path.h"

int sbx_cli_home_facts(struct sbx_spec *spec, bool given, struct sbx_error *err)
{
	const char *home = getenv("HOME");
	_cleanup_free_ char *norm = NULL;
	char gitconfig[SBX_PATH_MAX];
	struct sysinfo si;
	struct stat st;
	int r;

	if (getenv(SBX_SPEC_FD_ENV) && !given) {
		/* a sub-worker keeps its parent's home, as every other mount */
		spec->home = SBX_HOME_NONE;
		return 0;
	}
	/* no $HOME (a service, env -i): no home to make; getpwuid would drag NSS into a
	 * static binary */
	if (!home || home[0] != '/')
		return 0;
	r = sbx_path_absolute(home, "/", &norm, err);
	if (r < 0)
		return r;
	r = sbx_spec_set_str(&spec->home_path, norm, err);
	if (r < 0)
		return r;
	if (!spec->home_size && sysinfo(&si) == 0)
		spec->home_size = sbx_home_size_for((uint64_t)si.totalram * si.mem_unit);
	r = snprintf(gitconfig, sizeof(gitconfig), "%s/.gitconfig", norm);
	if (r > 0 && (size_t)r < sizeof(gitconfig) && lstat(gitconfig, &st) == 0 &&
	    S_ISREG(st.st_mode))
		return sbx_spec_set_str(&spec->home_gitconfig, gitconfig, err);
	return 0;
}
