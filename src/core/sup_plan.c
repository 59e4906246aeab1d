/* SPDX-License-Identifier: MIT */
/* The supervision plan's ownership (include/sbx/supervise.h). */
#include <stdlib.h>
#include <string.h>

#include "sbx/supervise.h"

void sbx_sup_plan_clear(struct sbx_sup_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_protected; i++)
		free(p->protected_paths[i].path);
	free(p->protected_paths);
	for (size_t i = 0; i < p->n_areas; i++) {
		free(p->areas[i].target);
		for (size_t j = 0; j < p->areas[i].n_suffixes; j++)
			free(p->areas[i].suffixes[j]);
		free(p->areas[i].suffixes);
	}
	free(p->areas);
	for (size_t i = 0; i < p->n_hide_globs; i++)
		free(p->hide_globs[i]);
	free(p->hide_globs);
	free(p->approve);
	free(p->audit_log);
	free(p->label);
	memset(p, 0, sizeof(*p));
}
