/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault table and message arguments: the number reader every
 * constructor uses, what a fault table says after its device, what a
 * message asks for, and what a dm-flakey or dm-delay table line says, read
 * and printed back.  This header and dm-fault-args.c use only the engine's
 * environment, <dmf/dm.h> and the rule text (dm-fault-rule.h), so the host
 * fuzzers build them unchanged.
 */
#ifndef _DM_FAULT_ARGS_H
#define _DM_FAULT_ARGS_H

#include <dmf/dm.h>
#include "dm-fault-rule.h"

#define FAULT_MAX_RULES	256

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
	unsigned int blksz;		/* dust: bytes per block */
};

/*
 * A fault table after "<dev> <offset>":
 *   [<#rules> <rule>... [<#features> cache [<key>=<value>...]]]
 */
struct fault_table_args {
	unsigned int nr_rules;
	char **rules;			/* the rule words, in the caller's argv */
	bool cache;			/* the cache feature was given */
	unsigned int keys;		/* FAULT_CKEY_* of the options given */
	struct fault_cache_cfg cache_cfg;
};

/* What a message asks for; the cache's are last. */
enum fault_msg_cmd {
	FAULT_MSG_NONE,			/* no message of the target's */
	FAULT_MSG_RULE,			/* "rule" and a bad rest: only refused */
	FAULT_MSG_RULE_ADD,
	FAULT_MSG_RULE_REPLACE,
	FAULT_MSG_RULE_REMOVE,
	FAULT_MSG_RULE_ENABLE,
	FAULT_MSG_RULE_DISABLE,
	FAULT_MSG_RULE_LIST,
	FAULT_MSG_STATS,
	FAULT_MSG_LOG,
	FAULT_MSG_RELEASE,
	FAULT_MSG_RESET,
	FAULT_MSG_BAD,			/* "bad" and a bad rest: only refused */
	FAULT_MSG_BAD_ADD,
	FAULT_MSG_BAD_REMOVE,
	FAULT_MSG_BAD_CLEAR,
	FAULT_MSG_BAD_QUERY,
	FAULT_MSG_BAD_COUNT,
	FAULT_MSG_BAD_LIST,
	FAULT_MSG_BAD_ENABLE,
	FAULT_MSG_BAD_DISABLE,
	FAULT_MSG_BAD_PARTIAL,
	FAULT_MSG_CACHE,		/* "cache" and a bad rest: only refused */
	FAULT_MSG_CACHE_ON,
	FAULT_MSG_CACHE_OFF,
	FAULT_MSG_CRASH,
	FAULT_MSG_MARK,
	FAULT_MSG_RECOVER,
	FAULT_MSG_LOST,
	FAULT_MSG_RECORD,
	FAULT_MSG_RECORD_LIST,
	FAULT_MSG_VIEW,
	FAULT_NR_MSGS
};

struct fault_msg {
	enum fault_msg_cmd cmd;
	unsigned int id;		/* rule id; release: 0 for every rule */
	const char *rule;		/* add, replace: the rule's text, in argv */
	unsigned int keys;		/* FAULT_CKEY_* of the options given */
	struct fault_cache_cfg cache;	/* cache on: limit; crash: lose, seed, after */
	u64 from;			/* record list: the first write listed */
	const char *label;		/* mark: its label, in argv, or NULL */
	const char *keep, *tear;	/* view: the values of keep= and tear=, in argv */
	struct fault_bad_attr bad;	/* bad add: the ranges' kind */
	unsigned int nr_ranges;		/* bad add, remove: the range words, in argv */
	char **ranges;
	u64 sector;			/* bad query: the sector; bad list: the first */
	bool on;			/* bad partial */
};

#define FAULT_MARK_LABEL_MAX	32

int fault_read_arg(const struct dm_arg *arg, struct dm_arg_set *as, unsigned int *value,
		   char **error);
int fault_read_arg_group(const struct dm_arg *arg, struct dm_arg_set *as, unsigned int *value,
			 char **error);

int fault_table_parse_rules(struct fault_table_args *ta, struct dm_arg_set *as, char **error);
int fault_table_parse_features(struct fault_table_args *ta, struct dm_arg_set *as,
			       char **error);
int fault_msg_parse(struct fault_msg *m, unsigned int argc, char **argv, char **error);
const char *fault_msg_name(enum fault_msg_cmd cmd);

int fault_flakey_parse(struct fault_compat_args *ca, struct dm_arg_set *as, char **error);
void fault_flakey_format(const struct fault_compat_args *ca, const char *dev,
			 unsigned long long start, char *result, unsigned int maxlen);
int fault_delay_parse(struct fault_compat_args *ca, unsigned int argc, char **argv,
		      char **error);
void fault_delay_format(const struct fault_compat_args *ca, const char *dev,
			unsigned long long start, char *result, unsigned int maxlen);

#endif /* _DM_FAULT_ARGS_H */
