/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace stand-in for include/dmf/dm.h: the table argument helpers of
 * <linux/device-mapper.h> as drivers/md/dm-table.c implements them, for
 * drivers/md/dm-fault-args.c and dm-fault-compat-args.c.  dm_read_arg()
 * reads as the kernel does, with its sscanf("%u%c"): blanks skipped, no
 * sign, a value past UINT_MAX wrapped, and anything after the digits
 * refused (see kernel-shim.c).
 */
#ifndef _DMF_DM_H
#define _DMF_DM_H

#include <dmf/kernel.h>
#include <ctype.h>
#include <strings.h>

#define SECTOR_SHIFT	9

struct dm_arg_set {
	unsigned int argc;
	char **argv;
};

struct dm_arg {
	unsigned int min;
	unsigned int max;
	char *error;
};

const char *dm_shift_arg(struct dm_arg_set *as);
void dm_consume_args(struct dm_arg_set *as, unsigned int num_args);
int dm_read_arg(const struct dm_arg *arg, struct dm_arg_set *arg_set, unsigned int *value,
		char **error);
int dm_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *arg_set,
		      unsigned int *num_args, char **error);

#define DMEMIT(x...) sz += ((sz >= maxlen) ? 0 : scnprintf(result + sz, maxlen - sz, x))

#endif /* _DMF_DM_H */
