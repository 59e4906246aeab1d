/* SPDX-License-Identifier: MIT */
#ifndef SBX_CORE_LANDLOCK_PRIV_H
#define SBX_CORE_LANDLOCK_PRIV_H

/*
 * Internal to src/core: groups of Landlock file rights shared by the compile
 * (landlock_compile.c), the carving (landlock_carve.c) and the ABI table (landlock_abi.c).
 */

#include "sbx/landlock.h"

#define FS_MAKE                                                                                    \
	(SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_DIR | SBX_LL_FS_MAKE_SOCK | SBX_LL_FS_MAKE_FIFO |     \
	 SBX_LL_FS_MAKE_SYM)
#define FS_REMOVE (SBX_LL_FS_REMOVE_FILE | SBX_LL_FS_REMOVE_DIR)
/* What a read-only mount stops by itself. */
#define FS_MODIFY                                                                                  \
	(SBX_LL_FS_WRITE_FILE | SBX_LL_FS_TRUNCATE | FS_MAKE | SBX_LL_FS_MAKE_CHAR |               \
	 SBX_LL_FS_MAKE_BLOCK | FS_REMOVE | SBX_LL_FS_REFER)
/* What procfs, devpts and a device node refuse by themselves: new entries, and running. */
#define NOT_A_TREE                                                                                 \
	(FS_MAKE | SBX_LL_FS_MAKE_CHAR | SBX_LL_FS_MAKE_BLOCK | FS_REMOVE | SBX_LL_FS_REFER |      \
	 SBX_LL_FS_EXECUTE)

#endif
