/* SPDX-License-Identifier: MIT */
/* The proxy's pipe sizes (include/sbx/netpipe.h). */
#include "sbx/netpipe.h"

size_t sbx_netpipe_budget(unsigned long soft_pages, size_t page)
{
	size_t share;

	if (soft_pages == 0 || page == 0)
		return SBX_NETPIPE_BUDGET;
	if (soft_pages > (size_t)-1 / page)
		return SBX_NETPIPE_BUDGET;
	share = soft_pages * page / SBX_NETPIPE_SHARE;
	return share < SBX_NETPIPE_BUDGET ? share : SBX_NETPIPE_BUDGET;
}

size_t sbx_netpipe_grow(size_t cur, size_t used, size_t budget)
{
	size_t left = used < budget ? budget - used : 0;

	for (size_t s = SBX_NETPIPE_MAX; s > cur; s /= 2)
		if (s - cur <= left)
			return s;
	return cur;
}
