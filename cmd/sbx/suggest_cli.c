/* SPDX-License-Identifier: MIT */
/* "Did you mean" for flags and profile names (cli.h; the distance is core's, suggest.h). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbx/cleanup.h"
#include "sbx/suggest.h"

/* Docker's flags that mean nothing here, with what to do instead. */
static const struct {
	const char *flag, *hint;
} docker_only[] = {
    {"--rm", "sbx removes every sandbox when its command ends: drop --rm"},
    {"-d", "sbx runs in the foreground; put it in the background with your shell's &"},
    {"--detach", "sbx runs in the foreground; put it in the background with your shell's &"},
    {"-i", "stdin reaches the worker as it is: drop -i"},
    {"--interactive", "stdin reaches the worker as it is: drop --interactive"},
    {"--name", "sbx names its sandboxes itself (sbx status shows the id): drop --name"},
    {"-u", "the worker runs as you (as root: as an unprivileged uid): drop -u"},
    {"--user", "the worker runs as you (as root: as an unprivileged uid): drop --user"},
    {"--privileged", "a sandbox never has privileges: drop --privileged"},
};

void sbx_cli_hint_option(struct sbx_error *err, const char *bad, const struct option *opts,
                         const char *cmd)
{
	const char *names[256];
	char buf[SBX_SUGGEST_MAX + 3], word[SBX_SUGGEST_MAX + 3];
	static char store[256][64];
	size_t n = 0;
	const char *best;

	if (!err)
		return;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(bad, "="), bad);
	for (size_t i = 0; i < SBX_ARRAY_SIZE(docker_only); i++) {
		if (strcmp(word, docker_only[i].flag) == 0) {
			sbx_error_hint(err, "%s", docker_only[i].hint);
			return;
		}
	}
	for (const struct option *o = opts; o && o->name && n < SBX_ARRAY_SIZE(names); o++) {
		snprintf(store[n], sizeof(store[n]), "--%s", o->name);
		names[n] = store[n];
		n++;
	}
	best = strncmp(word, "--", 2) == 0 ? sbx_suggest(word, names, n) : NULL;
	if (best) {
		snprintf(buf, sizeof(buf), "%s", best);
		sbx_error_hint(err, "did you mean '%s'? see 'sbx %s --help'", buf, cmd);
	} else {
		sbx_error_hint(err, "see 'sbx %s --help'", cmd);
	}
}

int sbx_cli_profile_names(char ***out, size_t *n_out)
{
	struct sbx_cli_profile_env e;
	struct sbx_error err = {0};
	char **names = NULL;
	size_t n = 0;

	*out = NULL;
	*n_out = 0;
	if (sbx_cli_profile_env_init(&e, NULL, &err) < 0) {
		sbx_cli_profile_env_clear(&e);
		return -EINVAL;
	}
	for (size_t d = 0; d < e.opts.n_search; d++) {
		DIR *dir = opendir(e.search[d]);
		struct dirent *de;

		while (dir && (de = readdir(dir)) && n < 4096) {
			size_t len = strlen(de->d_name);
			char **grown;
			bool dup = false;

			if (len <= 5 || strcmp(de->d_name + len - 5, ".yaml") != 0 ||
			    de->d_name[0] == '.')
				continue;
			for (size_t i = 0; i < n && !dup; i++)
				dup = strlen(names[i]) == len - 5 &&
				      strncmp(names[i], de->d_name, len - 5) == 0;
			if (dup)
				continue;
			grown = realloc(names, (n + 1) * sizeof(*names));
			if (!grown)
				break;
			names = grown;
			names[n] = strndup(de->d_name, len - 5);
			if (names[n])
				n++;
		}
		if (dir)
			closedir(dir);
	}
	sbx_cli_profile_env_clear(&e);
	*out = names;
	*n_out = n;
	return 0;
}

void sbx_cli_hint_profile(struct sbx_error *err, const char *name)
{
	char **names = NULL;
	size_t n = 0;
	const char *best;

	if (!err || sbx_cli_profile_names(&names, &n) < 0)
		return;
	best = sbx_suggest(name, (const char *const *)names, n);
	if (best)
		sbx_error_hint(err, "did you mean '%s'? 'sbx profiles list' shows them all", best);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
