/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault table and message arguments: the number reader every
 * constructor uses, what a fault table says after its device, and what a
 * message asks for.  This header and dm-fault-args.c use only the engine's
 * environment, <dmf/dm.h> and the rule text (dm-fault-rule.h), so the host
 * fuzzers build them unchanged.
 */
#ifndef _DM_FAULT_ARGS_H
#define _DM_FAULT_ARGS_H

#include <dmf/dm.h>
#include "dm-fault-rule.h"

#define FAULT_MAX_RULES	256

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

/* What a message asks for. */
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

/*
 * What fault_msg_flags() says of a message: how fault_msg_parse() finds
 * it, and how a refusal of it is logged (dm-fault.c's fault_msg_refused()).
 */
#define FAULT_MSGF_WORD		BIT(0)	/* its name is a first word, looked up */
#define FAULT_MSGF_RULE		BIT(1)	/* of "rule": a refusal names the form and last word */
#define FAULT_MSGF_ID		BIT(2)	/* a refusal is of its rule id, named */
#define FAULT_MSGF_TAKES	BIT(3)	/* a refusal says what it takes, after its name */

/*
 * A message read.  Refused, @word is the word its log line names: the
 * first of a message not ours, the id of a release, the last of a rule
 * message, whose second word as given is @form.
 */
struct fault_msg {
	enum fault_msg_cmd cmd;
	const char *word, *form;	/* refused: in argv, or NULL */
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
unsigned int fault_msg_flags(enum fault_msg_cmd cmd);

#endif /* _DM_FAULT_ARGS_H */
