/* SPDX-License-Identifier: MIT */
#include "os/caps.h"

#include <errno.h>
#include <linux/securebits.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

/* One call for the whole ambient set (libcap's cap_reset_ambient asks after each capability
 * first, 42 calls here). */
static int clear_ambient(void)
{
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

/* Is any capability left in the bounding set? One read for each (PR_CAPBSET_READ) where it is
 * empty, as in a worker whose init emptied it before the fork; -1 if one cannot be read. */
static int bound_left(cap_value_t max)
{
	for (cap_value_t c = 0; c < max; c++) {
		int b = cap_get_bound(c);

		if (b != 0)
			return b > 0 ? 1 : -1;
	}
	return 0;
}

int sbx_caps_drop_bound(struct sbx_error *err)
{
	/* Lock root's special treatment away first (it needs CAP_SETPCAP, which the bounding
	 * set drop below takes): a uid 0 worker in its user namespace gains nothing at exec. */
	unsigned bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	                SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	                SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	cap_value_t max = (cap_value_t)cap_max_bits();

	if (cap_set_secbits(bits) < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "cannot lock the securebits: %s",
		                     strerror(errno));
	if (clear_ambient() < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot clear the ambient capabilities: %s", strerror(errno));
	/* Empty already (inherited so from init): the reads that found it so are the check. */
	if (bound_left(max) == 0)
		return 0;
	for (cap_value_t c = 0; c < max; c++) {
		if (cap_drop_bound(c) < 0 && errno != EINVAL)
			return sbx_error_set(err, SBX_ERR_SETUP, errno,
			                     "cannot drop capability %d from the bounding set: %s",
			                     (int)c, strerror(errno));
	}
	/* Verify rather than trust: a capability left anywhere fails the launch. */
	for (cap_value_t c = 0; c < max; c++)
		if (cap_get_bound(c) != 0)
			return sbx_error_set(err, SBX_ERR_SETUP, EPERM,
			                     "capability %d is still in the bounding set", (int)c);
	return 0;
}

int sbx_caps_clear_sets(struct sbx_error *err)
{
	cap_t empty = cap_init(); /* every flag clear */
	int r;

	if (!empty)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "out of memory");
	r = cap_set_proc(empty);
	cap_free(empty);
	if (r < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot clear the capability sets: %s", strerror(errno));
	return 0;
}

int sbx_caps_drop_all(struct sbx_error *err)
{
	int r = sbx_caps_drop_bound(err);

	return r < 0 ? r : sbx_caps_clear_sets(err);
}

int sbx_caps_clear_unprivileged(struct sbx_error *err)
{
	cap_t empty, now;
	int r, cmp;

	/* Without CAP_SETPCAP neither the securebits nor the bounding set can change, but
	 * every set of our own can be emptied; with no_new_privs set (the caller's next step)
	 * no execve can give back more than the permitted set, which is empty. */
	if (clear_ambient() < 0)
		return sbx_error_set(err, SBX_ERR_SETUP, errno,
		                     "cannot clear the ambient capabilities: %s", strerror(errno));
	empty = cap_init();
	if (!empty)
		return sbx_error_set(err, SBX_ERR_SETUP, errno, "out of memory");
	r = cap_set_proc(empty);
	now = cap_get_proc();
	cmp = now ? cap_compare(now, empty) : -1;
	cap_free(now);
	cap_free(empty);
	if (r < 0 || cmp != 0)
		return sbx_error_set(err, SBX_ERR_SETUP, r < 0 ? errno : EPERM,
		                     "cannot clear the capability sets%s%s", r < 0 ? ": " : "",
		                     r < 0 ? strerror(errno) : "");
	return 0;
}
