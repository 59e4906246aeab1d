/* SPDX-License-Identifier: MIT */
/* sbx-seccomp-exec: load the filter sbx would load, then exec a command. A test and bench
 * helper (see seccomp_helpers.h); not installed. */
#include "seccomp_helpers.h"

int main(int argc, char **argv)
{
	return seccomp_exec_main(argc, argv);
}
