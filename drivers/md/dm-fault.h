/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault: types shared by the target (dm-fault.c), the device context
 * every fault target builds on (dm-fault-ctx.c), its rule set
 * (dm-fault-rules.c), actions (dm-fault-actions.c), status and replies
 * (dm-fault-status.c), compatibility targets (dm-fault-compat.c), volatile
 * write cache (dm-fault-cache.c and the files it calls) and bad-block map
 * (dm-fault-bad.c).
 */
#ifndef _DM_FAULT_H
#define _DM_FAULT_H

#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/maple_tree.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/percpu-rwsem.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "dm-fault-args.h"
#include "dm-fault-compat-args.h"
#include "dm-fault-rule.h"

/*
 * A rule as the I/O path sees it: configuration plus run-time state.  Each
 * rule set holding the rule and each bio it acts on hold a reference.
 */
struct fault_rule {
	struct fault_rule_cfg cfg;
	struct kref ref;
	blk_status_t status;
	unsigned long start_jiffies;
	atomic64_t skipped;		/* matching bios let through (skip=) */
	u64 __percpu *seen;		/* bios that reached the rule in the walk */
	u64 skip_base;			/* fault_rules_skipped() when published or reset */
	bool plain;			/* see fault_rules_summarise() */
};

/*
 * An immutable array of rules, replaced as a whole under RCU.  by_flags: a
 * rule matches FUA or preflush, so the walk looks at the bio's flags (see
 * fault_rules_summarise(), which writes it again, with the same value,
 * when a rule of the published set is switched on or off).
 */
struct fault_ruleset {
	struct rcu_head rcu;
	unsigned int nr;
	bool by_flags;
	struct fault_rule *rules[];
};

/*
 * What the rules of the current set could match at most: the union of
 * their sector ranges, and the operation classes of their matches (FUA and
 * preflush matches counted as writes, in fc->map_bits).  A bio outside
 * skips the walk and is counted in the device's skipped counter.  Written
 * by fault_rules_summarise() under fc->lock when a set is published, read
 * in map without a lock: a bio that sees the bounds of one set and the
 * rules of another, while a message changes them, is ruled out only by a
 * bound of one of the two sets, so it meets the rules of one set or the
 * other, as it would before or after.
 */
struct fault_rule_bounds {
	u64 first, last;
};

/*
 * fc->map_bits: all that map reads before it knows a bio goes below as
 * through dm-linear, in one word (0 once a device with no rules, no
 * bad-block map, no cache and a device below has mapped a bio).  The low
 * bits are the operation classes of the bounds (enum fault_op).
 * FAULT_MAP_FULL, the sign bit so that map tests it with the word, is
 * derived from the word's other bits (fault_map_route()).  Written in the
 * constructor, under fc->lock (FAULT_MAP_EXTRA by fault_map_bits_update(),
 * the rules' bits by fault_rules_summarise(), each keeping the others),
 * and once by map, with a compare-and-exchange, to clear FAULT_MAP_FIRST.
 */
#define FAULT_MAP_FIRST		BIT(27)	/* no bio mapped yet: see fault_tag_room() */
#define FAULT_MAP_EXTRA		BIT(28)	/* a bad-block map, a cache, or no device below */
#define FAULT_MAP_RULES		BIT(29)	/* the device has rules */
#define FAULT_MAP_ALL		BIT(30)	/* ... and their bounds are every sector and class */
#define FAULT_MAP_FULL		BIT(31)	/* FIRST or EXTRA: fault_map_full() maps the bio */

/* @bits, a value of fc->map_bits, with FAULT_MAP_FULL as its bits say. */
static inline unsigned int fault_map_route(unsigned int bits)
{
	if (bits & (FAULT_MAP_FIRST | FAULT_MAP_EXTRA))
		return bits | FAULT_MAP_FULL;
	return bits & ~FAULT_MAP_FULL;
}

struct fault_op_stats {
	u64 bios[FAULT_NR_OPS];
	u64 bytes[FAULT_NR_OPS];
	u64 failed[FAULT_NR_OPS];
	u64 failed_bytes[FAULT_NR_OPS];
};

#define FAULT_LOG_SIZE		64

struct fault_log_entry {
	u64 ns;				/* ktime_get_ns() at injection */
	sector_t sector;
	unsigned int bytes;
	unsigned int rule_id;
	u8 op;
	u8 action;
};

/* The table syntax a device was created with. */
enum fault_compat {
	FAULT_NATIVE,
	FAULT_FLAKEY,
	FAULT_DELAY,
	FAULT_ERROR,
	FAULT_DUST,
};

struct fault_c;

/*
 * dm-fault-bad.c: the bad-block map, a maple tree of sector ranges changed
 * under @lock (the tree's external lock), read under @rw, with a summary
 * of the chunks of the target that a range may touch.
 */
struct fault_bad {
	struct maple_tree *mt;
	struct mutex lock;		/* the tree's writers */
	struct percpu_rw_semaphore rw;	/* readers; a store takes it for writing */
	unsigned long *summary;		/* a bit a chunk: a range may touch it */
	unsigned int chunk_shift;	/* log2 of a chunk's sectors */
	u64 base;			/* key = target sector + base */
	u64 len;			/* the target's sectors: keys base..base+len-1 */
	u64 nr_ranges, nr_sectors;	/* changed under lock */
	bool enabled;			/* fails bios at all */
	bool partial;			/* completes the good blocks before a bad one */
	/*
	 * fault-dust: the map holds whole blocks of 2^block_shift keys, and
	 * every change (add, remove, heal) covers the blocks it touches
	 */
	bool blocks;
	unsigned int block_shift;
	struct fault_bad_stats __percpu *stats;
	/* told under @lock that a write healed the block or range at key @key, or NULL */
	void (*healed)(struct fault_c *fc, u64 key);
};

/* dm-fault-compat.c: what a fault-dust device keeps beside its bad-block map */
struct fault_dust {
	unsigned int shift;		/* log2 of sectors per block */
	bool quiet;			/* no log line for a change of the map */
};

struct fault_c {
	struct dm_dev *dev;
	enum fault_compat compat;
	struct fault_compat_args cargs;
	struct fault_dust dust;
	sector_t start;
	struct dm_target *ti;

	/* dm-fault-rules.c */
	struct fault_ruleset __rcu *rules;
	struct mutex lock;		/* serialises rule set updates */
	unsigned int next_id;
	unsigned int map_bits;		/* FAULT_MAP_*, bounds' operation classes */
	struct fault_rule_bounds bounds;
	u64 __percpu *skipped;		/* bios the bounds ruled out */
	atomic_t nr_acting;		/* bios in flight a rule took (pb->rule) */

	struct fault_op_stats __percpu *stats;

	/* bios held by delay and stall rules */
	spinlock_t held_lock;		/* protects held, release_*, held_timer_due */
	struct list_head held;
	unsigned int nr_held;
	bool may_hold;			/* false from presuspend to resume */
	struct hrtimer held_timer;
	u64 held_timer_due;		/* when held_timer fires; U64_MAX: not armed */
	struct work_struct held_work;
	struct workqueue_struct *wq;

	struct bio_set bs;		/* clones for torn, corrupt and the cache */

	/* dm-fault-cache.c: the volatile write cache; NULL until first on */
	struct fault_cache *cache;
	bool cache_in_table;
	struct fault_cache_cfg cache_table;	/* as the table gave it */

	/* dm-fault-bad.c: the bad-block map; NULL until first needed */
	struct fault_bad *bad;

	spinlock_t log_lock;		/* protects the log ring */
	unsigned int log_head;
	unsigned int log_count;
	struct fault_log_entry log[FAULT_LOG_SIZE];
};

/* Per-bio data */
struct fault_per_bio {
	struct fault_rule *rule;		/* rule that acted, holds a reference */
	struct bvec_iter iter;		/* the data as mapped, for read corruption */
	struct list_head held;		/* on fc->held while delayed or stalled */
	union {
		u64 due_ns;		/* when a held bio goes, U64_MAX: on release */
		u64 barrier;		/* cache: the last write completed at map */
	};
	unsigned int bytes;
	u8 op;
};

/*
 * dm-fault-rules.c: a rule's life, and the device's rule set.  The set is
 * read under rcu_read_lock(), or rcu_read_lock_sched() in map; these
 * change it, each under fc->lock, and return 0 or -errno with *error set.
 */
struct fault_rule *fault_rule_alloc(struct fault_c *fc, char **error);
void fault_rule_get(struct fault_rule *rule);
void fault_rule_put(struct fault_rule *rule);
bool fault_rule_window_open(const struct fault_rule *rule);
u64 fault_rule_seen(const struct fault_rule *rule, u64 skipped);
u64 fault_rules_skipped(struct fault_c *fc);
int fault_rules_add(struct fault_c *fc, struct fault_rule *rule, unsigned int *id, char **error);
int fault_rules_add_text(struct fault_c *fc, const char *text, unsigned int *id, char **error);
int fault_rules_replace(struct fault_c *fc, unsigned int id, const char *text, char **error);
int fault_rules_remove(struct fault_c *fc, unsigned int id, char **error);
int fault_rules_enable(struct fault_c *fc, unsigned int id, bool enable, char **error);
void fault_rules_clear_counters(struct fault_c *fc);
void fault_rules_destroy(struct fault_c *fc);
blk_status_t fault_status_blk(enum fault_sts status);

/* The device's name, for log lines. */
static inline const char *fault_dev_name(struct fault_c *fc)
{
	return dm_device_name(dm_table_get_md(fc->ti->table));
}

/*
 * Are @nr sectors at the device's @sector not whole logical blocks of the
 * device below, as it is now?  It may have grown its blocks since this
 * table was loaded (fault_misaligned()).
 */
static inline bool fault_below_misaligned(struct fault_c *fc, sector_t sector, unsigned int nr)
{
	return nr && fc->dev &&
	       (((fc->start + sector) | nr) &
		((bdev_logical_block_size(fc->dev->bdev) >> SECTOR_SHIFT) - 1));
}

/**
 * fault_map_bits_update - tell map whether a bio needs more than the rules
 * @fc: the device
 *
 * FAULT_MAP_EXTRA in fc->map_bits: the device has a bad-block map or a
 * cache, or no device below.  Called by the constructor, and under
 * fc->lock once a map or a cache is published.
 */
static inline void fault_map_bits_update(struct fault_c *fc)
{
	unsigned int bits = fc->map_bits & ~FAULT_MAP_EXTRA;

	if (fc->bad || fc->cache || !fc->dev)
		bits |= FAULT_MAP_EXTRA;
	WRITE_ONCE(fc->map_bits, fault_map_route(bits));
}

/* dm-fault-ctx.c */
int fault_ctx_create(struct dm_target *ti, enum fault_compat kind);
struct fault_c *fault_ctx_start(struct dm_target *ti, enum fault_compat kind,
				struct dm_arg_set *as);
void fault_ctx_destroy(struct dm_target *ti);

/* dm-fault-bad.c */
int fault_bad_create(struct fault_c *fc, u64 base, bool enabled);
void fault_bad_destroy(struct fault_c *fc);
int fault_bad_insert(struct fault_bad *bad, u64 first, u64 last, const struct fault_bad_attr *a,
		     bool exclusive);
int fault_bad_erase(struct fault_bad *bad, u64 first, u64 last, bool must_exist);
int fault_bad_clear(struct fault_bad *bad);
bool fault_bad_next(struct fault_bad *bad, u64 pos, u64 *first, u64 *last,
		    struct fault_bad_attr *a);
blk_status_t fault_bad_map(struct fault_c *fc, struct bio *bio, unsigned int op, sector_t sector);
bool fault_bad_snapshot(struct fault_c *fc, bool *enabled, bool *partial, u64 *v);
int fault_bad_message(struct fault_c *fc, const struct fault_msg *m, char *result,
		      unsigned int maxlen);

/*
 * dm-fault-status.c: the status lines and the stats, log and list replies
 * (rows of dm-fault.c's message table)
 */
void fault_status(struct dm_target *ti, status_type_t type, unsigned int status_flags,
		  char *result, unsigned int maxlen);
int fault_msg_stats(struct fault_c *fc, const struct fault_msg *m, char *result,
		    unsigned int maxlen);
int fault_msg_log(struct fault_c *fc, const struct fault_msg *m, char *result,
		  unsigned int maxlen);
int fault_msg_list(struct fault_c *fc, const struct fault_msg *m, char *result,
		   unsigned int maxlen);

/* dm-fault-compat.c: the flakey, delay, error and dust targets */
int fault_flakey_ctr(struct dm_target *ti, unsigned int argc, char **argv);
int fault_delay_ctr(struct dm_target *ti, unsigned int argc, char **argv);
int fault_error_ctr(struct dm_target *ti, unsigned int argc, char **argv);
int fault_dust_ctr(struct dm_target *ti, unsigned int argc, char **argv);
int fault_dust_refused(struct fault_c *fc, unsigned int argc, char **argv);
int fault_dust_message(struct fault_c *fc, unsigned int argc, char **argv, char *result,
		       unsigned int maxlen);
bool fault_compat_status(struct fault_c *fc, status_type_t type, char *result,
			 unsigned int maxlen);

/*
 * The volatile write cache (dm-fault-cache.c, its entry; dm-fault-crash.c,
 * dm-fault-record.c and dm-fault-cache-store.c, with dm-fault-cache.h for
 * what they share).  The messages have the signature of dm-fault.c's
 * message handlers and are its table's rows.
 */

/* What fault_cache_map() did with a bio. */
enum fault_cache_result {
	FAULT_CACHE_PASS,	/* not the cache's: map goes on as without one */
	FAULT_CACHE_REMAP,	/* to the disk below as it is: no rule acts */
	FAULT_CACHE_DONE,	/* completed: cached, read from the cache, or failed */
	FAULT_CACHE_DEFERRED,	/* queued for the cache's work, which completes it */
};

int fault_cache_create(struct fault_c *fc, const struct fault_cache_cfg *cfg, char **error);
void fault_cache_destroy(struct fault_c *fc);
enum fault_cache_result fault_cache_map(struct fault_c *fc, struct fault_per_bio *pb,
					struct bio *bio, sector_t sector);
void fault_cache_postsuspend(struct fault_c *fc);
const char *fault_cache_snapshot(struct fault_c *fc, u64 *v);
void fault_cache_table(struct fault_c *fc, char *result, unsigned int maxlen, unsigned int *psz);
int fault_cache_msg_on(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen);
int fault_cache_msg_off(struct fault_c *fc, const struct fault_msg *m, char *result,
			unsigned int maxlen);
int fault_crash_msg(struct fault_c *fc, const struct fault_msg *m, char *result,
		    unsigned int maxlen);
int fault_crash_msg_recover(struct fault_c *fc, const struct fault_msg *m, char *result,
			    unsigned int maxlen);
int fault_crash_msg_lost(struct fault_c *fc, const struct fault_msg *m, char *result,
			 unsigned int maxlen);
int fault_rec_msg_mark(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen);
int fault_rec_msg_record(struct fault_c *fc, const struct fault_msg *m, char *result,
			 unsigned int maxlen);
int fault_rec_msg_list(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen);
int fault_rec_msg_view(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen);
int fault_cache_init(void);
void fault_cache_exit(void);

/* dm-fault-actions.c */
int fault_act(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio);
void fault_act_end_io(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio,
		      blk_status_t *error);
int fault_held_init(struct fault_c *fc);
void fault_held_exit(struct fault_c *fc);
void fault_held_release(struct fault_c *fc, unsigned int rule_id);
void fault_held_stop(struct fault_c *fc);
void fault_held_start(struct fault_c *fc);

/*
 * Does a bio of @bytes at @sector touch sectors [@first, @last]?  A flush
 * without data touches only the whole disk, a range of [0, U64_MAX].
 */
static inline bool fault_sectors_overlap(u64 first, u64 last, sector_t sector,
					 unsigned int bytes)
{
	if (!bytes)
		return !first && last == U64_MAX;
	return sector <= last && sector + (bytes >> SECTOR_SHIFT) > first;
}

/*
 * Could a rule match this bio?  If not, count it as skipped: every rule
 * of the set has seen it.  @bits: fc->map_bits, read once by map, with
 * FAULT_MAP_RULES set.
 */
static inline bool fault_rules_may_match(struct fault_c *fc, unsigned int bits, unsigned int op,
					 sector_t sector, unsigned int bytes)
{
	if (bits & FAULT_MAP_ALL)
		return true;
	if ((bits & BIT(op)) &&
	    fault_sectors_overlap(READ_ONCE(fc->bounds.first), READ_ONCE(fc->bounds.last),
				  sector, bytes))
		return true;
	this_cpu_inc(*fc->skipped);
	return false;
}

/* What fault_rule_match() leaves to decide. */
enum fault_match {
	FAULT_MATCH_NONE,	/* nothing: the rule lets the bio by */
	FAULT_MATCH_ENGINE,	/* the engine's decision */
	FAULT_MATCH_TIMED,	/* the time window and the skip count, then the engine */
};

/**
 * fault_rule_match - the tests of a rule that need only the rule and the bio
 * @rule: the rule
 * @opbits: the bio's operation class bits (enum fault_op, FAULT_OPM_FUA)
 * @sector: first sector, relative to the target
 * @bytes: the bio's size
 *
 * Counts the bio as seen by the rule.  Called under rcu_read_lock_sched()
 * from map; takes no lock.  Inline: with many rules the match tests are
 * most of a bio's cost.  A plain rule (enabled, no key but its operations:
 * fault_rules_summarise()) is settled by its operations alone; a new match
 * key is tested after that, and summarised there.
 *
 * Return: an enum fault_match.
 */
static inline enum fault_match fault_rule_match(struct fault_rule *rule, unsigned int opbits,
						sector_t sector, unsigned int bytes)
{
	const struct fault_rule_cfg *cfg = &rule->cfg;

	this_cpu_inc(*rule->seen);
	if (!(cfg->opmask & opbits))
		return FAULT_MATCH_NONE;
	/* the case map's inline walk is laid out for: a rule armed by p= later */
	if (likely(READ_ONCE(rule->plain)))
		return FAULT_MATCH_ENGINE;
	if (!READ_ONCE(cfg->enabled) ||
	    !fault_sectors_overlap(cfg->first, cfg->last, sector, bytes))
		return FAULT_MATCH_NONE;
	if (bytes < cfg->min_bytes || bytes > cfg->max_bytes)
		return FAULT_MATCH_NONE;
	if (unlikely(cfg->after_s || cfg->down_s || cfg->skip))
		return FAULT_MATCH_TIMED;
	return FAULT_MATCH_ENGINE;
}

/**
 * fault_rule_decide - does a rule that matched a bio act on it?
 * @rule: the rule
 * @match: what fault_rule_match() returned for the bio, not FAULT_MATCH_NONE
 * @bytes: the bio's size
 *
 * The time window and the skip count (of a rule with either), then the
 * engine, which may be a call.  FAULT_MATCH_TIMED is right for any rule:
 * one without a window or a skip count passes those tests.
 *
 * Return: true if the rule acts on the bio.
 */
static inline bool fault_rule_decide(struct fault_rule *rule, enum fault_match match,
				     unsigned int bytes)
{
	const struct fault_rule_cfg *cfg = &rule->cfg;

	if (match == FAULT_MATCH_TIMED) {
		if ((cfg->after_s || cfg->down_s) && !fault_rule_window_open(rule))
			return false;
		if (cfg->skip && atomic64_inc_return(&rule->skipped) <= cfg->skip)
			return false;
	}
	return dmf_should_fail(&rule->cfg.attr, bytes);
}

#endif /* _DM_FAULT_H */
