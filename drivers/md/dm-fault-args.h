/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault table arguments: the number reader every constructor uses, and
 * what a dm-flakey or dm-delay table line says, read and printed back.
 * This header and dm-fault-args.c use only the engine's environment and
 * <dmf/dm.h>, so the host fuzzers build them unchanged.
 */
#ifndef _DM_FAULT_ARGS_H
#define _DM_FAULT_ARGS_H

#include <dmf/dm.h>

#define FAULT_FL_DROP_WRITES	BIT(0)
#define FAULT_FL_ERROR_WRITES	BIT(1)
#define FAULT_FL_ERROR_READS	BIT(2)

/* flakey's random_{read,write}_corrupt probabilities are per 10^9 */
#define FAULT_FLAKEY_PROB_BASE	1000000000

/* dm-delay's longest delay: a day, in milliseconds */
#define FAULT_DELAY_MAX_MS	86400000

/* What a compatibility table said, to print it back. */
struct fault_compat_args {
	unsigned int up, down;
	unsigned long flags;		/* FAULT_FL_* */
	unsigned int corrupt_byte;	/* 1-based; 0: none */
	unsigned int corrupt_value;
	unsigned int corrupt_flags;
	char corrupt_dir;
	unsigned int rrc, rwc;		/* random_{read,write}_corrupt, per 10^9 */
	unsigned int nr_delay;		/* delay classes given: 1 to 3 */
	unsigned int delay_ms[3];
};

int fault_read_arg(const struct dm_arg *arg, struct dm_arg_set *as, unsigned int *value,
		   char **error);
int fault_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *as, unsigned int *value,
			 char **error);

int fault_flakey_parse(struct fault_compat_args *ca, struct dm_arg_set *as, char **error);
void fault_flakey_format(const struct fault_compat_args *ca, const char *dev,
			 unsigned long long start, char *result, unsigned int maxlen);
int fault_delay_parse(struct fault_compat_args *ca, unsigned int argc, char **argv,
		      char **error);
void fault_delay_format(const struct fault_compat_args *ca, const char *dev,
			unsigned long long start, char *result, unsigned int maxlen);

#endif /* _DM_FAULT_ARGS_H */
