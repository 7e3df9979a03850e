/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device-mapper environment of dm-fault's table argument parsers
 * (drivers/md/dm-fault-args.c, dm-fault-compat-args.c): struct dm_arg_set
 * and its readers, DMEMIT, SECTOR_SHIFT.
 * The host fuzzers put tools/kshim/dmf/dm.h in its place.
 */
#ifndef _DMF_DM_H
#define _DMF_DM_H

#include <dmf/kernel.h>
#include <linux/ctype.h>
#include <linux/device-mapper.h>

#endif /* _DMF_DM_H */
