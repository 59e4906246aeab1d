/* SPDX-License-Identifier: MIT */
/* "Did you mean" (include/sbx/suggest.h). */
#include "sbx/suggest.h"

#include <stdint.h>
#include <string.h>

size_t sbx_edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	/* three rows of the optimal-string-alignment table */
	size_t rows[3][SBX_SUGGEST_MAX + 1];
	size_t *two = rows[0], *prev = rows[1], *cur = rows[2];

	if (n > SBX_SUGGEST_MAX || m > SBX_SUGGEST_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			cur[j] = best;
		}
		t = two;
		two = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

const char *sbx_suggest(const char *word, const char *const *candidates, size_t n)
{
	size_t len = strlen(word), limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	if (!len)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!candidates[i] || strcmp(candidates[i], word) == 0)
			continue;
		d = sbx_edit_distance(word, candidates[i]);
		if (d > limit && len >= 3 && strncmp(candidates[i], word, len) == 0)
			d = limit; /* an unfinished word */
		if (d <= limit && d < best_d) {
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}
