/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The words of the compatibility targets: what a dm-flakey, dm-delay or
 * dm-dust table line says, read and printed back, and what a dm-dust
 * message asks for.  This header and dm-fault-compat-args.c use only the
 * environment of dm-fault-args.h, so the host unit tests and fuzzers build
 * them unchanged; the devices themselves are dm-fault-compat.c's.
 */
#ifndef _DM_FAULT_COMPAT_ARGS_H
#define _DM_FAULT_COMPAT_ARGS_H

#include "dm-fault-args.h"

#define FAULT_FL_DROP_WRITES	BIT(0)
#define FAULT_FL_ERROR_WRITES	BIT(1)
#define FAULT_FL_ERROR_READS	BIT(2)

/* flakey's random_{read,write}_corrupt probabilities are per 10^9 */
#define FAULT_FLAKEY_PROB_BASE	1000000000

/* dm-delay's longest delay: a day, in milliseconds */
#define FAULT_DELAY_MAX_MS	86400000

/* dm-dust's largest block: 1 GiB, in sectors */
#define FAULT_DUST_MAX_BLOCK_SECTORS	2097152

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
	unsigned int blksz;		/* dust: bytes per block */
};

/* What a dm-dust message asks for. */
enum fault_dust_cmd {
	FAULT_DUST_NONE,		/* a first word that is not dm-dust's */
	FAULT_DUST_ADD,
	FAULT_DUST_REMOVE,
	FAULT_DUST_QUERY,
	FAULT_DUST_DISABLE,
	FAULT_DUST_ENABLE,
	FAULT_DUST_COUNT,
	FAULT_DUST_CLEAR,
	FAULT_DUST_QUIET,
	FAULT_DUST_LIST,
	FAULT_NR_DUST_CMDS
};

/* the longest line a refused dm-dust message logs, with its NUL */
#define FAULT_DUST_WHY_MAX	64

struct fault_dust_msg {
	enum fault_dust_cmd cmd;
	unsigned long long block;	/* add, remove, query */
	unsigned int wr_fail;		/* add: writes to fail before the block heals */
	char why[FAULT_DUST_WHY_MAX];	/* refused: dm-dust's log line; "": it logs none */
	/*
	 * refused for its first word, with dm-dust's line "unrecognized message
	 * '<first word>' received", which the word, of any length, makes too
	 * long for @why: the caller prints it
	 */
	bool unrecognized;
};

int fault_flakey_parse(struct fault_compat_args *ca, struct dm_arg_set *as, char **error);
void fault_flakey_format(const struct fault_compat_args *ca, const char *dev,
			 unsigned long long start, char *result, unsigned int maxlen);
int fault_delay_parse(struct fault_compat_args *ca, unsigned int argc, char **argv,
		      char **error);
void fault_delay_format(const struct fault_compat_args *ca, const char *dev,
			unsigned long long start, char *result, unsigned int maxlen);
int fault_dust_parse(struct fault_compat_args *ca, unsigned int argc, char **argv, u64 len,
		     char **error);
void fault_dust_format(const struct fault_compat_args *ca, const char *dev,
		       unsigned long long start, char *result, unsigned int maxlen);
int fault_dust_msg_parse(struct fault_dust_msg *m, unsigned int argc, char **argv,
			 u64 nr_blocks);

#endif /* _DM_FAULT_COMPAT_ARGS_H */
