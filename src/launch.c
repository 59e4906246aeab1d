/* SPDX-License-Identifier: MIT */
#include "sbx/launch.h"

#include <errno.h>

int sbx_launch(const struct sbx_plan *plan, char *const argv[], int *status,
	       struct sbx_error *err)
{
	(void)plan;
	(void)argv;
	(void)status;
	return sbx_error_set(err, SBX_ERR_UNSUPPORTED, ENOSYS, "launch is being written");
}
