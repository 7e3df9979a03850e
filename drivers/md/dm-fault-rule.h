/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault rule configuration: what a rule matches, how often it fires and
 * what it does.  This header and dm-fault-parse.c use only the engine's
 * environment, so the host unit tests and fuzzers build them unchanged.
 *
 * A rule is one table argument:
 *
 *   <action>[:<key>=<value>[,<key>=<value>]...]
 *
 * See Documentation/admin-guide/device-mapper/dm-fault.rst for the keys.
 */
#ifndef _DM_FAULT_RULE_H
#define _DM_FAULT_RULE_H

#include <dmf/engine.h>

/* Operation classes a rule matches and statistics are kept for. */
enum dmf_op {
	DMF_OP_READ,
	DMF_OP_WRITE,
	DMF_OP_FLUSH,		/* empty flush (REQ_PREFLUSH) */
	DMF_OP_DISCARD,
	DMF_OP_WRITE_ZEROES,
	DMF_OP_OTHER,
	DMF_NR_OPS
};

/* a write with REQ_FUA */
#define DMF_OPM_FUA		BIT(DMF_NR_OPS)
#define DMF_OPM_ANY		((1U << DMF_NR_OPS) - 1)
#define DMF_OPM_WRITES		((1U << DMF_OP_WRITE) | DMF_OPM_FUA)

enum dmf_action {
	DMF_ACT_ERROR,		/* complete with an error status */
	DMF_ACT_DROP,		/* acknowledge a write, never write it */
	DMF_ACT_CORRUPT,	/* flip bits or set a byte in the data */
	DMF_ACT_DELAY,		/* hold the bio for a (jittered) time */
	DMF_ACT_STALL,		/* hold the bio until released or timed out */
	DMF_ACT_TORN,		/* write only a prefix of the bio */
	DMF_NR_ACTIONS
};

/* Completion statuses a rule may return; mapped to blk_status_t. */
enum dmf_status {
	DMF_STS_OK,
	DMF_STS_IOERR,
	DMF_STS_NOSPC,
	DMF_STS_TIMEOUT,
	DMF_STS_MEDIUM,
	DMF_STS_TRANSPORT,
	DMF_STS_NOTSUPP,
	DMF_STS_AGAIN,
	DMF_STS_PROTECTION,
	DMF_STS_TARGET,
	DMF_STS_RESOURCE,
	DMF_NR_STATUS
};

enum dmf_dist {
	DMF_DIST_UNIFORM,	/* jitter uniform in [0, jitter] */
	DMF_DIST_EXP,		/* jitter exponential with mean jitter */
};

struct dmf_rule_cfg {
	unsigned int id;		/* 0: assign the next free id */
	bool enabled;

	/* match */
	unsigned int opmask;		/* bits of enum dmf_op, DMF_OPM_FUA */
	u64 first, last;		/* inclusive sector range */
	u32 min_bytes, max_bytes;	/* inclusive bio size range */
	u32 up_s, down_s;		/* flakey cycle; down_s == 0: always on */
	u32 after_s;			/* inactive for this long after creation */
	u64 skip;			/* matching bios let through before acting */

	/* action */
	enum dmf_action action;
	enum dmf_status status;		/* error; torn completion */
	u32 bits;			/* corrupt: bits to flip */
	s32 byte;			/* corrupt: value to set, -1 flips bits */
	s64 offset;			/* corrupt: byte in the bio, -1 random */
	u64 delay_ns;			/* delay: base time */
	u64 jitter_ns;			/* delay: added jitter, see dist */
	enum dmf_dist dist;
	u64 timeout_ns;			/* stall: 0 holds until released */
	s64 keep;			/* torn: sectors written, -1 random */

	struct dmf_attr attr;
};

/*
 * Why a rule text was refused: a static reason, and the part of the text it
 * is about (characters [pos, pos + len)).
 */
struct dmf_rule_err {
	const char *reason;
	size_t pos, len;
};

int dmf_rule_cfg_init(struct dmf_rule_cfg *cfg);
void dmf_rule_cfg_destroy(struct dmf_rule_cfg *cfg);
int dmf_rule_cfg_parse(struct dmf_rule_cfg *cfg, const char *text, struct dmf_rule_err *err);
int dmf_rule_cfg_format(const struct dmf_rule_cfg *cfg, char *buf, size_t len);
int dmf_parse_duration(const char *s, u64 *ns);
int dmf_parse_ops(char *s, unsigned int *mask);
int dmf_parse_status(const char *s, enum dmf_status *st);
int dmf_format_duration(u64 ns, char *buf, size_t len);
u64 dmf_exp_sample(u64 draw, u64 mean);

const char *dmf_op_name(unsigned int op);
const char *dmf_action_name(enum dmf_action action);
const char *dmf_status_name(enum dmf_status status);

#endif /* _DM_FAULT_RULE_H */
