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
enum fault_op {
	FAULT_OP_READ,
	FAULT_OP_WRITE,
	FAULT_OP_FLUSH,		/* empty flush (REQ_PREFLUSH) */
	FAULT_OP_DISCARD,
	FAULT_OP_WRITE_ZEROES,
	FAULT_OP_OTHER,
	FAULT_NR_OPS
};

/* a write with REQ_FUA */
#define FAULT_OPM_FUA		BIT(FAULT_NR_OPS)
#define FAULT_OPM_ANY		((1U << FAULT_NR_OPS) - 1)
#define FAULT_OPM_WRITES		((1U << FAULT_OP_WRITE) | FAULT_OPM_FUA)
/* matches that need the bio's flags: FUA, and flush (a preflush write's) */
#define FAULT_OPM_BY_FLAGS	(FAULT_OPM_FUA | (1U << FAULT_OP_FLUSH))

enum fault_action {
	FAULT_ACT_ERROR,		/* complete with an error status */
	FAULT_ACT_DROP,		/* acknowledge a write, never write it */
	FAULT_ACT_CORRUPT,	/* flip bits or set a byte in the data */
	FAULT_ACT_DELAY,		/* hold the bio for a (jittered) time */
	FAULT_ACT_STALL,		/* hold the bio until released or timed out */
	FAULT_ACT_TORN,		/* write only a prefix of the bio */
	FAULT_NR_ACTIONS
};

/* Completion statuses a rule may return; mapped to blk_status_t. */
enum fault_sts {
	FAULT_STS_OK,
	FAULT_STS_IOERR,
	FAULT_STS_NOSPC,
	FAULT_STS_TIMEOUT,
	FAULT_STS_MEDIUM,
	FAULT_STS_TRANSPORT,
	FAULT_STS_NOTSUPP,
	FAULT_STS_AGAIN,
	FAULT_STS_PROTECTION,
	FAULT_STS_TARGET,
	FAULT_STS_RESOURCE,
	FAULT_NR_STATUS
};

enum fault_dist {
	FAULT_DIST_UNIFORM,	/* jitter uniform in [0, jitter] */
	FAULT_DIST_EXP,		/* jitter exponential with mean jitter */
};

struct fault_rule_cfg {
	unsigned int id;		/* 0: assign the next free id */
	bool enabled;

	/* match */
	unsigned int opmask;		/* bits of enum fault_op, FAULT_OPM_FUA */
	u64 first, last;		/* inclusive sector range */
	u32 min_bytes, max_bytes;	/* inclusive bio size range */
	u32 up_s, down_s;		/* flakey cycle; down_s == 0: always on */
	u32 after_s;			/* inactive for this long after creation */
	u64 skip;			/* matching bios let through before acting */

	/* action */
	enum fault_action action;
	enum fault_sts status;		/* error; torn completion */
	u32 bits;			/* corrupt: bits to flip */
	s32 byte;			/* corrupt: value to set, -1 flips bits */
	s64 offset;			/* corrupt: byte in the bio, -1 random */
	u64 delay_ns;			/* delay: base time */
	u64 jitter_ns;			/* delay: added jitter, see dist */
	enum fault_dist dist;
	u64 timeout_ns;			/* stall: 0 holds until released */
	s64 keep;			/* torn: sectors written, -1 random */

	struct dmf_attr attr;
};

/*
 * Why a rule text was refused: a static reason, and the part of the text it
 * is about (characters [pos, pos + len)).
 */
struct fault_rule_err {
	const char *reason;
	size_t pos, len;
};

/* What a power cut does to the writes the cache holds. */
enum fault_lose {
	FAULT_LOSE_ALL,		/* every write not yet durable is lost */
	FAULT_LOSE_NONE,	/* all reach the disk: a clean shutdown */
	FAULT_LOSE_WRITES,	/* each write kept or lost whole, by the seed */
	FAULT_LOSE_SECTORS,	/* each sector kept or lost: torn writes */
	FAULT_NR_LOSE
};

/* A crash that happens by itself, counted from the last mark. */
enum fault_trigger {
	FAULT_TRIG_NONE,
	FAULT_TRIG_FLUSH,	/* once the n-th flush has completed */
	FAULT_TRIG_WRITE,	/* once the n-th write is cached */
	FAULT_TRIG_BYTES,	/* once n bytes have been written */
	FAULT_NR_TRIGGERS
};

#define FAULT_CACHE_LIMIT_DEF	(64ULL << 20)
#define FAULT_CACHE_LIMIT_MIN	(64ULL << 10)

/*
 * The volatile write cache: its memory limit and the crash policy, which
 * the table, "cache on" and "crash" messages set with key=value words.
 */
struct fault_cache_cfg {
	u64 limit;			/* bytes of memory, pages and bookkeeping */
	enum fault_lose lose;
	u64 seed;
	enum fault_trigger after;
	u64 after_n;			/* 1 or more with a trigger */
	u32 unit;			/* tearing unit, bytes; 0: the logical block */
};

void fault_cache_cfg_init(struct fault_cache_cfg *cfg);
int fault_cache_cfg_parse(struct fault_cache_cfg *cfg, const char *word, unsigned int keys,
			  const char **error);
int fault_cache_cfg_parse_words(struct fault_cache_cfg *cfg, unsigned int argc, char **argv,
				unsigned int keys, unsigned int *given, const char **error);
void fault_cache_cfg_apply(struct fault_cache_cfg *to, const struct fault_cache_cfg *from,
			   unsigned int keys);
int fault_cache_cfg_format(const struct fault_cache_cfg *cfg, unsigned int keys, char *buf,
			   size_t len);
int fault_cache_feature_format(const struct fault_cache_cfg *cfg, char *buf, size_t len);
const char *fault_lose_name(enum fault_lose lose);
const char *fault_trigger_name(enum fault_trigger after);

/*
 * The write cache's counters in the order the status's cache word gives
 * them (positional) and the stats reply names them; dmfault reads the
 * names from here too.
 */
enum fault_cache_stat {
	FAULT_CS_BLOCKS, FAULT_CS_BYTES, FAULT_CS_HIGH_WATER, FAULT_CS_LIMIT,
	FAULT_CS_WRITES, FAULT_CS_FLUSHES, FAULT_CS_FUA, FAULT_CS_FORCED,
	FAULT_CS_WRITTEN_BACK, FAULT_CS_CRASHES, FAULT_CS_LOST_WRITES,
	FAULT_CS_LOST_SECTORS, FAULT_CS_RECORDED, FAULT_NR_CACHE_STATS
};

const char *fault_cache_stat_name(enum fault_cache_stat i);

/* the keys each use of fault_cache_cfg_parse() allows */
#define FAULT_CKEY_LIMIT	BIT(0)
#define FAULT_CKEY_LOSE		BIT(1)
#define FAULT_CKEY_SEED		BIT(2)
#define FAULT_CKEY_AFTER	BIT(3)
#define FAULT_CKEY_UNIT		BIT(4)
#define FAULT_CKEY_ALL		(BIT(5) - 1)

/* the largest tearing unit a cache takes */
#define FAULT_CACHE_UNIT_MAX	BIT(20)

/* A crash state of a recording: the writes it keeps, and those it tears. */
struct fault_range {
	u64 first, last;
};

struct fault_tear {
	u64 write;
	u64 seed;
};

#define FAULT_VIEW_RANGES	65536
#define FAULT_VIEW_TEARS	64

struct fault_view {
	bool all;			/* keep=all: every recorded write */
	unsigned int nr_ranges;
	struct fault_range *ranges;	/* ascending; NULL: only count and check */
	unsigned int nr_tears;
	struct fault_tear *tears;	/* ascending; NULL: only count and check */
};

int fault_view_parse(struct fault_view *v, const char *keep, const char *tear,
		     const char **error);

/*
 * The bad-block map: sector ranges and what each does to the bios that
 * touch it.  A range's kind is packed into one word in the map
 * (dm-fault-bad.c); the names are the messages' and the replies'.
 */
enum fault_bad_mode {
	FAULT_BAD_HEAL,			/* reads fail; a write fails wr_fail times, then heals */
	FAULT_BAD_STICKY,		/* reads and writes fail until the range is removed */
	FAULT_BAD_READ,			/* reads fail; writes pass and heal nothing */
	FAULT_BAD_WRITE,		/* writes fail; reads pass */
	FAULT_NR_BAD_MODES
};

struct fault_bad_attr {
	enum fault_bad_mode mode;
	enum fault_sts status;
	u32 wr_fail;			/* heal: writes that fail before one heals */
};

/* The map's counters, positional in the status's bad word, named in stats. */
enum fault_bad_stat {
	FAULT_BS_RANGES, FAULT_BS_SECTORS, FAULT_BS_LOOKUPS, FAULT_BS_HITS,
	FAULT_BS_HEALS, FAULT_NR_BAD_STATS
};

void fault_bad_attr_init(struct fault_bad_attr *a);
int fault_bad_attr_parse(struct fault_bad_attr *a, const char *word, const char **error);
int fault_bad_attr_format(const struct fault_bad_attr *a, char *buf, size_t len);
int fault_bad_range_parse(const char *s, u64 *first, u64 *last);
int fault_bad_sector_parse(const char *s, u64 *v);
const char *fault_bad_stat_name(enum fault_bad_stat i);

int fault_rule_cfg_init(struct fault_rule_cfg *cfg);
void fault_rule_cfg_destroy(struct fault_rule_cfg *cfg);
int fault_rule_cfg_parse(struct fault_rule_cfg *cfg, const char *text, struct fault_rule_err *err);
int fault_rule_cfg_format(const struct fault_rule_cfg *cfg, char *buf, size_t len);
int fault_parse_duration(const char *s, u64 *ns);
int fault_parse_size(const char *s, u64 max, u64 *v);
int fault_parse_ops(char *s, unsigned int *mask);
int fault_parse_status(const char *s, enum fault_sts *st);
int fault_format_duration(u64 ns, char *buf, size_t len);
u64 fault_exp_sample(u64 draw, u64 mean);
/* The index of @s in @names[0..@n), or -1: the words of every name table. */
int fault_name_index(const char * const *names, unsigned int n, const char *s);

const char *fault_op_name(unsigned int op);
const char *fault_action_name(enum fault_action action);

#endif /* _DM_FAULT_RULE_H */
