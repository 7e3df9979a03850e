// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault: a device-mapper target that remaps like dm-linear and injects
 * faults into the bios it passes according to rules.  A rule matches bios
 * (by operation, sector range, size, time window), asks the dm-fault engine
 * whether to fire (probability, interval, times, space, seed) and acts
 * (error with a chosen status, drop a write, corrupt data, delay or stall,
 * tear a write).  Rules are given in the table
 * and changed at run time with messages; every rule and operation keeps
 * counters, and recent injections are kept in a ring log.
 */
#include <linux/device-mapper.h>

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dm-fault.h"

#define CREATE_TRACE_POINTS
#include "dm_fault_trace.h"

#define DM_MSG_PREFIX "fault"

/* The feature group after the rules, read by the table parser: the cache. */
static int fault_ctr_features(struct fault_c *fc, struct fault_table_args *ta,
			      struct dm_arg_set *as)
{
	struct dm_target *ti = fc->ti;
	int r;

	r = fault_table_parse_features(ta, as, &ti->error);
	if (r || !ta->cache)
		return r;
	fc->cache_table = ta->cache_cfg;
	fc->cache_in_table = true;
	return fault_cache_create(fc, &fc->cache_table, &ti->error);
}

/*
 * Construct a fault mapping:
 *
 *   <dev> <offset> [<#rules> <rule>... [<#features> cache [<key>=<value>...]]]
 *
 *   <rule> := <action>[:<key>=<value>[,<key>=<value>]...]
 *
 * See Documentation/admin-guide/device-mapper/dm-fault.rst.
 */
static int fault_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct fault_table_args ta;
	struct fault_c *fc;
	unsigned int i;
	int r;

	if (argc < 2) {
		ti->error = "Invalid argument count";
		return -EINVAL;
	}
	fc = fault_ctx_start(ti, FAULT_NATIVE, &as);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	/* a write cache of our own, when on: flush and FUA must reach us */
	ti->flush_supported = true;
	r = fault_table_parse_rules(&ta, &as, &ti->error);
	if (r)
		goto bad;
	for (i = 0; i < ta.nr_rules; i++) {
		r = fault_rules_add_text(fc, ta.rules[i], NULL, &ti->error);
		if (r) {
			DMERR("rule '%s': %s", ta.rules[i], ti->error);
			goto bad;
		}
	}
	r = fault_ctr_features(fc, &ta, &as);
	if (r)
		goto bad;
	return 0;

bad:
	fault_ctx_destroy(ti);
	return r;
}

/*
 * The operation class of each block operation, so that map finds it with
 * one load rather than a chain of compares.  Filled at module load: every
 * operation not named is FAULT_OP_OTHER.
 */
static u8 fault_op_of[1 << REQ_OP_BITS] __ro_after_init;

static void __init fault_op_table_set(enum req_op op, enum fault_op fop)
{
	fault_op_of[(__force unsigned int)op] = fop;
}

static void __init fault_op_table_init(void)
{
	memset(fault_op_of, FAULT_OP_OTHER, sizeof(fault_op_of));
	fault_op_table_set(REQ_OP_READ, FAULT_OP_READ);
	fault_op_table_set(REQ_OP_WRITE, FAULT_OP_WRITE);
	fault_op_table_set(REQ_OP_DISCARD, FAULT_OP_DISCARD);
	fault_op_table_set(REQ_OP_SECURE_ERASE, FAULT_OP_DISCARD);
	fault_op_table_set(REQ_OP_WRITE_ZEROES, FAULT_OP_WRITE_ZEROES);
}

static unsigned int fault_bio_op(struct bio *bio)
{
	unsigned int op = fault_op_of[(__force unsigned int)bio_op(bio)];

	/* a write without data is an empty flush (the next class) */
	BUILD_BUG_ON(FAULT_OP_FLUSH - FAULT_OP_WRITE != 1);
	if (op == FAULT_OP_WRITE)
		op += !bio_sectors(bio);
	return op;
}

/* What rules match: the bio's operation class, a preflush, FUA. */
static unsigned int fault_bio_opbits(struct bio *bio, unsigned int op)
{
	unsigned int opbits = 1U << op;

	if (bio->bi_opf & REQ_PREFLUSH)
		opbits |= 1U << FAULT_OP_FLUSH;
	if (bio->bi_opf & REQ_FUA)
		opbits |= FAULT_OPM_FUA;
	return opbits;
}

/*
 * A rule took a bio: the rule's line in the kernel log if it is verbose,
 * the device's log ring and the tracepoint.
 */
static void fault_log(struct fault_c *fc, struct fault_rule *rule, unsigned int op,
		      sector_t sector, unsigned int bytes)
{
	struct fault_log_entry *e;
	unsigned long flags;

	dmf_log_fault(&rule->cfg.attr);
	spin_lock_irqsave(&fc->log_lock, flags);
	e = &fc->log[fc->log_head];
	fc->log_head = (fc->log_head + 1) % FAULT_LOG_SIZE;
	if (fc->log_count < FAULT_LOG_SIZE)
		fc->log_count++;
	e->ns = ktime_get_ns();
	e->sector = sector;
	e->bytes = bytes;
	e->rule_id = rule->cfg.id;
	e->op = op;
	e->action = rule->cfg.action;
	spin_unlock_irqrestore(&fc->log_lock, flags);

	trace_fault_inject(disk_devt(dm_disk(dm_table_get_md(fc->ti->table))), rule->cfg.id,
			   rule->cfg.action, op, sector, bytes,
			   rule->cfg.action == FAULT_ACT_ERROR ?
			   blk_status_to_errno(rule->status) : 0);
}

/* Count a bio in its operation's counters. */
static inline void fault_count(struct fault_c *fc, unsigned int op, unsigned int bytes)
{
	struct fault_op_stats __percpu *stats = fc->stats;

	this_cpu_inc(stats->bios[op]);
	this_cpu_add(stats->bytes[op], bytes);
}

/* Send the bio to the device below, as dm-linear does. */
static inline void fault_remap(struct fault_c *fc, struct bio *bio, sector_t sector)
{
	sector_t to = likely(bio_sectors(bio)) ? fc->start + sector : bio->bi_iter.bi_sector;

	bio_set_dev(bio, fc->dev->bdev);
	bio->bi_iter.bi_sector = to;
}

/*
 * The rule walk: the first rule of the set that fires on the bio takes it,
 * with a reference, and is counted in fc->nr_acting until end_io.
 *
 * The read side is rcu_read_lock_sched(): with preemptible RCU,
 * rcu_read_lock() and rcu_read_unlock() are a call each, while disabling
 * preemption is one instruction each way, and since RCU's flavours were
 * consolidated call_rcu() and synchronize_rcu() wait for such a section
 * too.  Nothing in the walk sleeps (the engine's predicate never does).
 *
 * The walk is fault_rules_scan(), inline and without a call, so that map
 * saves no register for it: it settles the rules that the match tests or
 * probability 0 decide.  The first rule with more to decide goes to
 * fault_rules_walk_slow(), which finishes the walk in the same read-side
 * section: in fault_map_slow(), map's tail call, or in fault_map_full().
 */
static inline unsigned int fault_rules_opbits(struct fault_ruleset *set, struct bio *bio,
					      unsigned int op)
{
	return unlikely(set->by_flags) ? fault_bio_opbits(bio, op) : BIT(op);
}

/*
 * The first rule of @set, a published one, that has more to decide than
 * the inline tests; or set->nr.
 */
static __always_inline unsigned int fault_rules_settle(struct fault_ruleset *set,
						       unsigned int opbits, sector_t sector,
						       unsigned int bytes)
{
	enum fault_match match;
	struct fault_rule *rule;
	unsigned int i = 0;

	/* a published set has a rule */
	do {
		rule = set->rules[i];
		match = fault_rule_match(rule, opbits, sector, bytes);
		if (!match)
			continue;
		if (match != FAULT_MATCH_ENGINE || !dmf_prob_is_zero(&rule->cfg.attr.prob))
			break;
		dmf_count_filtered(&rule->cfg.attr);
	} while (++i < set->nr);
	return i;
}

/**
 * fault_rules_scan - the rule walk as far as the inline tests go
 * @fc: the device
 * @bio: the bio, within the bounds (fault_rules_may_match())
 * @op: its operation class
 * @sector: its first sector, relative to the target
 * @bytes: its size
 * @i: set to the first rule with more to decide
 * @opbits: set to the bio's operation bits
 *
 * The one walk of map and fault_map_full(), in the caller's read-side
 * section: the bio meets the rules of the set read here, in order, up to
 * the first that the match tests and probability 0 do not settle.  The
 * caller ends the section, or fault_rules_walk_slow() does.
 *
 * Return: NULL if no rule takes the bio; or the set, for
 * fault_rules_walk_slow() from rule *@i.
 */
static __always_inline struct fault_ruleset *
fault_rules_scan(struct fault_c *fc, struct bio *bio, unsigned int op,
		 sector_t sector, unsigned int bytes, unsigned int *i, unsigned int *opbits)
{
	struct fault_ruleset *set = rcu_dereference_sched(fc->rules);

	if (unlikely(!set))
		return NULL;
	*opbits = fault_rules_opbits(set, bio, op);
	*i = fault_rules_settle(set, *opbits, sector, bytes);
	return unlikely(*i < set->nr) ? set : NULL;
}

/* The walk from rule @i of @set on, which fault_rules_scan() matched. */
static __always_inline bool fault_rules_walk_slow(struct fault_c *fc,
						  struct fault_per_bio *pb,
						  struct fault_ruleset *set, unsigned int i,
						  unsigned int opbits, sector_t sector)
	__releases(RCU_SCHED)
{
	struct fault_rule *rule = set->rules[i];
	enum fault_match match;
	bool fires;

	fires = fault_rule_decide(rule, FAULT_MATCH_TIMED, pb->bytes);
	while (!fires && ++i < set->nr) {
		rule = set->rules[i];
		match = fault_rule_match(rule, opbits, sector, pb->bytes);
		fires = match && fault_rule_decide(rule, match, pb->bytes);
	}
	if (fires) {
		pb->rule = rule;
		fault_rule_get(rule);
		atomic_inc(&fc->nr_acting);
	}
	rcu_read_unlock_sched();
	return fires;
}

/* The per-bio data of a bio map does more with than remap it: no rule yet. */
static inline struct fault_per_bio *fault_per_bio_init(struct bio *bio, unsigned int op)
{
	struct fault_per_bio *pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));

	pb->rule = NULL;
	pb->op = op;
	return pb;
}

/*
 * A bio that map sends below as through dm-linear has no per-bio data of
 * ours: looking it up is a call into dm.  What end_io needs of such a bio,
 * to count it if it fails, is its operation class and size, which map
 * packs into the clone's bi_private.  A bio's size is whole sectors, which
 * leaves the low bits for the class, and bit 0 tells such a tag from
 * NULL, the mark of a bio whose per-bio data map filled.
 *
 * dm leaves a clone's bi_private to the target: it never reads it, and
 * bio_init() in bio_alloc_clone(), by which dm makes every clone it hands
 * a target (alloc_tio()), leaves it NULL.  Other targets in the tree
 * (6.1, 6.12) rely on the same: dm-snapshot's zero_exception() sets it
 * after a WARN_ON_ONCE() that it is NULL, dm-clone's hydration_overwrite()
 * sets it without saving it (dm "generates a new bio ... with clean
 * bi_private"), dm-verity's map and dm-cache's dm_hook_bio() overwrite it
 * and never restore it; dm-writecache passes a value from map to end_io
 * there as this target does.  Were dm ever to hand a clone with bi_private
 * set, the tag would overwrite dm's value and end_io would read that value
 * as a tag: the first bio a device maps goes to fault_map_full()
 * (FAULT_MAP_FIRST), which asks fault_tag_room(), so that map of a later
 * bio tests nothing more.
 */
#define FAULT_TAG_OP_SHIFT	1
#define FAULT_TAG_OP_MASK	(7U << FAULT_TAG_OP_SHIFT)

static inline void fault_tag_set(struct bio *bio, unsigned int op, unsigned int bytes)
{
	BUILD_BUG_ON(FAULT_TAG_OP_MASK >> FAULT_TAG_OP_SHIFT < FAULT_NR_OPS - 1);
	BUILD_BUG_ON(FAULT_TAG_OP_MASK >= SECTOR_SIZE);
	bio->bi_private = (void *)(unsigned long)(bytes | op << FAULT_TAG_OP_SHIFT | 1);
}

/*
 * The first bio a device maps: is its bi_private NULL, as the tag needs?
 * If so, FAULT_MAP_FIRST goes and no later bio is asked (a rule change
 * that races this puts the bit back: one more bio is asked).  If not, the
 * bio fails with a warning, once, and so does every later one.
 */
static noinline __cold bool fault_tag_room(struct fault_c *fc, struct bio *bio)
{
	unsigned int bits = READ_ONCE(fc->map_bits);

	if (WARN_ONCE(bio->bi_private, "%s: dm handed a clone with bi_private set: its I/O fails",
		      fault_dev_name(fc)))
		return false;
	try_cmpxchg(&fc->map_bits, &bits, fault_map_route(bits & ~FAULT_MAP_FIRST));
	return true;
}

/* May the bio's bi_private carry a tag?  Asked of a device's first bio only. */
static inline bool fault_tag_ready(struct fault_c *fc, struct bio *bio)
{
	return likely(!(READ_ONCE(fc->map_bits) & FAULT_MAP_FIRST)) || fault_tag_room(fc, bio);
}

/*
 * map of a bio from the slow walk on, on a device that has no bad-block
 * map, no cache and a device below: the bio's per-bio data, the rest of
 * the walk, and the action of a rule that takes the bio.  The bio is not
 * remapped yet: its sector is map's again.
 */
static noinline int fault_map_slow(struct fault_c *fc, struct bio *bio, unsigned int op,
				   struct fault_ruleset *set, unsigned int i, unsigned int opbits)
	__releases(RCU_SCHED)
{
	struct fault_per_bio *pb = fault_per_bio_init(bio, op);
	sector_t sector = dm_target_offset(fc->ti, bio->bi_iter.bi_sector);
	bool fires;

	pb->bytes = bio->bi_iter.bi_size;
	fault_count(fc, op, pb->bytes);
	fires = fault_rules_walk_slow(fc, pb, set, i, opbits, sector);
	fault_remap(fc, bio, sector);
	if (!fires)
		return DM_MAPIO_REMAPPED;
	fault_log(fc, pb->rule, pb->op, sector, pb->bytes);
	return fault_act(fc, pb, bio);
}

/* Does @rule's action end a bio without a device below (error, drop)? */
static bool fault_act_completes(const struct fault_rule *rule)
{
	return rule->cfg.action == FAULT_ACT_ERROR || rule->cfg.action == FAULT_ACT_DROP;
}

/*
 * map of a device with a bad-block map, a write cache or no device below
 * (fault-error), and of a device's first bio.  Out of line so that map of
 * a device with none of these keeps a small frame.
 */
static noinline int fault_map_full(struct fault_c *fc, struct bio *bio, unsigned int op,
				   sector_t sector)
{
	unsigned int bits, i, opbits;
	blk_status_t bad = BLK_STS_OK;
	enum fault_cache_result cr;
	struct fault_ruleset *set;
	struct fault_per_bio *pb;

	if (!fault_tag_ready(fc, bio))
		return DM_MAPIO_KILL;
	pb = fault_per_bio_init(bio, op);
	/* first, as a disk's medium errors: it may shorten the bio */
	if (unlikely(READ_ONCE(fc->bad)))
		bad = fault_bad_map(fc, bio, pb->op, sector);
	pb->bytes = bio->bi_iter.bi_size;
	fault_count(fc, pb->op, pb->bytes);
	if (unlikely(bad)) {
		bio->bi_status = bad;
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	bits = READ_ONCE(fc->map_bits);
	if ((bits & FAULT_MAP_RULES) &&
	    fault_rules_may_match(fc, bits, pb->op, sector, pb->bytes)) {
		rcu_read_lock_sched();
		set = fault_rules_scan(fc, bio, pb->op, sector, pb->bytes, &i, &opbits);
		if (set)
			fault_rules_walk_slow(fc, pb, set, i, opbits, sector);
		else
			rcu_read_unlock_sched();
	}

	if (fc->dev)
		fault_remap(fc, bio, sector);
	else if (!pb->rule)
		return DM_MAPIO_KILL;	/* fault-error, a disabled rule: fails */
	if (unlikely(pb->rule))
		fault_log(fc, pb->rule, pb->op, sector, pb->bytes);
	if (unlikely(fc->cache)) {
		cr = fault_cache_map(fc, pb, bio, sector);
		if (cr != FAULT_CACHE_PASS)
			return cr == FAULT_CACHE_REMAP ? DM_MAPIO_REMAPPED : DM_MAPIO_SUBMITTED;
	}
	if (unlikely(pb->rule)) {
		if (unlikely(!fc->dev) && !fault_act_completes(pb->rule)) {
			/*
			 * fault-error: an action that would send the bio
			 * below (corrupt, torn, delay, stall) has nowhere to
			 * send it, and the bio fails as without the rule.
			 */
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			return DM_MAPIO_SUBMITTED;
		}
		return fault_act(fc, pb, bio);
	}
	return DM_MAPIO_REMAPPED;
}

/*
 * Is @bio not whole logical blocks of the device below?  dm stacks queue
 * limits when a table is loaded, so a device stacked on this one keeps the
 * logical block size it was loaded with when the device below grows its
 * own: a dm device below reloaded onto a disk of 4 KiB blocks.  Such a bio
 * would reach the driver below, which trusts the block layer's alignment
 * (null_blk copies a 4 KiB block to the bio's offset in its page, past the
 * page's end).  An empty flush has no sector to check.  The bio's memory
 * is not looked at: the block layer asks of a segment only the queue's
 * dma_alignment, which is 511 for virtio, loop, null_blk and dm alike, so
 * a device above never has a smaller one.
 *
 * No logical block is larger than a page (blk_validate_block_size()), so a
 * bio of whole pages at a page's sector is whole blocks of any device: map
 * tests that first, with what it has loaded for the remap, and looks the
 * block size below up only for other bios.  Looked up for every bio, it
 * added at most 25 guest instructions per 4 KiB I/O against dm-linear
 * (bench/run, null_blk randread and randwrite, 6.1 and 6.12: one step of
 * the measure, on 6.12's randwrite only).
 */
static inline bool fault_misaligned(struct fault_c *fc, struct bio *bio, sector_t sector)
{
	unsigned int nr = bio_sectors(bio);
	sector_t edges = (fc->start + sector) | nr;

	if (likely(!(edges & (PAGE_SECTORS - 1))))
		return false;
	return fault_below_misaligned(fc, sector, nr);
}

/*
 * Fail a bio fault_misaligned() found, as a disk fails an I/O it cannot
 * address: counted in its operation and, by end_io, in the failures, with
 * the reason in the kernel log.  Before any rule, which would act on an
 * I/O that cannot be done.
 */
static noinline __cold int fault_map_misaligned(struct fault_c *fc, struct bio *bio,
						unsigned int op, sector_t sector)
{
	struct fault_per_bio *pb;

	if (!fault_tag_ready(fc, bio))
		return DM_MAPIO_KILL;
	pb = fault_per_bio_init(bio, op);
	pb->bytes = bio->bi_iter.bi_size;
	fault_count(fc, op, pb->bytes);
	DMWARN_LIMIT("%s: %s of %u bytes at sector %llu refused: not whole %u-byte blocks of %pg",
		     fault_dev_name(fc), fault_op_name(op), pb->bytes,
		     (unsigned long long)sector, bdev_logical_block_size(fc->dev->bdev),
		     fc->dev->bdev);
	bio->bi_status = BLK_STS_IOERR;
	bio_endio(bio);
	return DM_MAPIO_SUBMITTED;
}

/*
 * A bio that no rule takes, on a device with no bad-block map, no cache
 * and a device below, goes below as through dm-linear, and map makes no
 * call but dm-linear's: its per-bio data is looked up only by
 * fault_map_slow() and fault_map_full(), tail calls both.  The latter also
 * takes a device's first bio (FAULT_MAP_FIRST, see fault_tag_room()).
 */
static int fault_map(struct dm_target *ti, struct bio *bio)
{
	struct fault_c *fc = ti->private;
	sector_t sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	unsigned int bits = READ_ONCE(fc->map_bits);
	unsigned int bytes = bio->bi_iter.bi_size;
	unsigned int op = fault_bio_op(bio);
	struct fault_ruleset *set;
	unsigned int opbits, i;

	if (unlikely(fault_misaligned(fc, bio, sector)))
		return fault_map_misaligned(fc, bio, op, sector);
	if (unlikely(bits)) {
		if (bits & FAULT_MAP_FULL)
			return fault_map_full(fc, bio, op, sector);
		if (fault_rules_may_match(fc, bits, op, sector, bytes)) {
			rcu_read_lock_sched();
			set = fault_rules_scan(fc, bio, op, sector, bytes, &i, &opbits);
			if (unlikely(set))
				return fault_map_slow(fc, bio, op, set, i, opbits);
			rcu_read_unlock_sched();
		}
	}
	fault_count(fc, op, bytes);
	fault_tag_set(bio, op, bytes);
	fault_remap(fc, bio, sector);
	return DM_MAPIO_REMAPPED;
}

/*
 * end_io of a bio that failed, or while some bio in flight has a rule: the
 * failure's count, and the undoing of what the bio's rule did.
 */
static noinline int fault_end_io_full(struct fault_c *fc, struct bio *bio, blk_status_t *error)
{
	unsigned long tag = (unsigned long)bio->bi_private;
	struct fault_per_bio *pb = NULL;
	struct fault_op_stats *st;
	unsigned int op, bytes;

	if (tag) {
		op = (tag & FAULT_TAG_OP_MASK) >> FAULT_TAG_OP_SHIFT;
		bytes = tag & ~(SECTOR_SIZE - 1UL);
	} else {
		pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));
		op = pb->op;
		bytes = pb->bytes;
	}
	if (*error) {
		st = get_cpu_ptr(fc->stats);
		st->failed[op]++;
		st->failed_bytes[op] += bytes;
		put_cpu_ptr(fc->stats);
	}
	if (pb && pb->rule) {
		fault_act_end_io(fc, pb, bio, error);
		fault_rule_put(pb->rule);
		pb->rule = NULL;
		atomic_dec(&fc->nr_acting);
	}
	return DM_ENDIO_DONE;
}

static int fault_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct fault_c *fc = ti->private;

	/*
	 * A bio that succeeded while no rule acts on any bio has nothing to
	 * count or undo: done without looking at it.  A bio a rule took was
	 * counted in nr_acting before it was submitted.
	 */
	if (likely(!*error) && !atomic_read(&fc->nr_acting))
		return DM_ENDIO_DONE;
	return fault_end_io_full(fc, bio, error);
}

/* A rule change the rules refused: the message's words and the reason. */
static int fault_msg_rule_refused(struct fault_c *fc, const struct fault_msg *m, int r,
				  const char *error)
{
	char id[12];

	snprintf(id, sizeof(id), "%u", m->id);
	DMWARN("%s: %s '%s': %s", fault_dev_name(fc), fault_msg_name(m->cmd),
	       m->cmd == FAULT_MSG_RULE_ADD || m->cmd == FAULT_MSG_RULE_REPLACE ? m->rule : id,
	       error);
	return r;
}

static int fault_msg_rule_add(struct fault_c *fc, const struct fault_msg *m, char *result,
			      unsigned int maxlen)
{
	unsigned int id, sz = 0;
	char *error;
	int r;

	r = fault_rules_add_text(fc, m->rule, &id, &error);
	if (r)
		return fault_msg_rule_refused(fc, m, r, error);
	DMEMIT("%u", id);
	return 1;
}

/* rule replace, remove, enable and disable */
static int fault_msg_rule_change(struct fault_c *fc, const struct fault_msg *m, char *result,
				 unsigned int maxlen)
{
	char *error;
	int r;

	if (m->cmd == FAULT_MSG_RULE_REPLACE)
		r = fault_rules_replace(fc, m->id, m->rule, &error);
	else if (m->cmd == FAULT_MSG_RULE_REMOVE)
		r = fault_rules_remove(fc, m->id, &error);
	else
		r = fault_rules_enable(fc, m->id, m->cmd == FAULT_MSG_RULE_ENABLE, &error);
	return r ? fault_msg_rule_refused(fc, m, r, error) : 0;
}

static int fault_msg_release(struct fault_c *fc, const struct fault_msg *m, char *result,
			     unsigned int maxlen)
{
	fault_held_release(fc, m->id);
	return 0;
}

static int fault_msg_reset(struct fault_c *fc, const struct fault_msg *m, char *result,
			   unsigned int maxlen)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(fc->stats, cpu), 0, sizeof(struct fault_op_stats));
	fault_rules_clear_counters(fc);
	spin_lock_irq(&fc->log_lock);
	fc->log_count = 0;
	spin_unlock_irq(&fc->log_lock);
	return 0;
}

/*
 * Why fault_msg_parse() refused a message, logged in the words of the
 * message it was taken for, which the parser kept in @m: the one place a
 * malformed message is logged.  An empty message is not: dm refuses it
 * before a target sees it.
 */
static int fault_msg_refused(struct fault_c *fc, const struct fault_msg *m, const char *error)
{
	unsigned int flags = fault_msg_flags(m->cmd);
	const char *name = fault_dev_name(fc);

	if (m->cmd == FAULT_MSG_NONE) {
		if (m->word)
			DMWARN("%s: unrecognised message '%s'", name, m->word);
	} else if (flags & FAULT_MSGF_RULE) {
		DMWARN("%s: rule %s '%s': %s", name, m->form, m->word, error);
	} else if (flags & FAULT_MSGF_ID) {
		DMWARN("%s: %s: invalid rule id '%s'", name, fault_msg_name(m->cmd), m->word);
	} else if (flags & FAULT_MSGF_TAKES) {
		DMWARN("%s: %s %s", name, fault_msg_name(m->cmd), error);
	} else {
		DMWARN("%s: %s: %s", name, fault_msg_name(m->cmd), error);
	}
	return -EINVAL;
}

typedef int (*fault_msg_fn)(struct fault_c *fc, const struct fault_msg *m, char *result,
			    unsigned int maxlen);

/*
 * What each message does to the device; the words are fault_msg_parse()'s
 * (dm-fault-args.c, also built on the host).  The commands it only refuses
 * (FAULT_MSG_NONE, RULE, BAD and CACHE alone) have no handler.
 */
static const fault_msg_fn fault_msg_handlers[FAULT_NR_MSGS] = {
	[FAULT_MSG_RULE_ADD] = fault_msg_rule_add,
	[FAULT_MSG_RULE_REPLACE] = fault_msg_rule_change,
	[FAULT_MSG_RULE_REMOVE] = fault_msg_rule_change,
	[FAULT_MSG_RULE_ENABLE] = fault_msg_rule_change,
	[FAULT_MSG_RULE_DISABLE] = fault_msg_rule_change,
	[FAULT_MSG_RULE_LIST] = fault_msg_list,
	[FAULT_MSG_STATS] = fault_msg_stats,
	[FAULT_MSG_LOG] = fault_msg_log,
	[FAULT_MSG_RELEASE] = fault_msg_release,
	[FAULT_MSG_RESET] = fault_msg_reset,
	[FAULT_MSG_BAD_ADD] = fault_bad_message,
	[FAULT_MSG_BAD_REMOVE] = fault_bad_message,
	[FAULT_MSG_BAD_CLEAR] = fault_bad_message,
	[FAULT_MSG_BAD_QUERY] = fault_bad_message,
	[FAULT_MSG_BAD_COUNT] = fault_bad_message,
	[FAULT_MSG_BAD_LIST] = fault_bad_message,
	[FAULT_MSG_BAD_ENABLE] = fault_bad_message,
	[FAULT_MSG_BAD_DISABLE] = fault_bad_message,
	[FAULT_MSG_BAD_PARTIAL] = fault_bad_message,
	[FAULT_MSG_CACHE_ON] = fault_cache_msg_on,
	[FAULT_MSG_CACHE_OFF] = fault_cache_msg_off,
	[FAULT_MSG_CRASH] = fault_crash_msg,
	[FAULT_MSG_MARK] = fault_rec_msg_mark,
	[FAULT_MSG_RECOVER] = fault_crash_msg_recover,
	[FAULT_MSG_LOST] = fault_crash_msg_lost,
	[FAULT_MSG_RECORD] = fault_rec_msg_record,
	[FAULT_MSG_RECORD_LIST] = fault_rec_msg_list,
	[FAULT_MSG_VIEW] = fault_rec_msg_view,
};

/*
 * A message: dm-dust's words first on a fault-dust device, then the
 * parser, which refuses in one place (a word neither knows, on a fault-dust
 * device, as dm-dust refuses it), then the message's handler.
 */
static int fault_message(struct dm_target *ti, unsigned int argc, char **argv,
			 char *result, unsigned int maxlen)
{
	struct fault_c *fc = ti->private;
	struct fault_msg m;
	char *error = NULL;
	int r;

	if (fc->compat == FAULT_DUST) {
		r = fault_dust_message(fc, argc, argv, result, maxlen);
		if (r != -ENOTTY)
			return r;
	}
	r = fault_msg_parse(&m, argc, argv, &error);
	if (r && m.cmd == FAULT_MSG_NONE && fc->compat == FAULT_DUST)
		return fault_dust_refused(fc, argc, argv);
	if (r)
		return fault_msg_refused(fc, &m, error);
	if (WARN_ON_ONCE(!fault_msg_handlers[m.cmd]))
		return -EINVAL;
	return fault_msg_handlers[m.cmd](fc, &m, result, maxlen);
}

static void fault_presuspend(struct dm_target *ti)
{
	fault_held_stop(ti->private);
}

/*
 * A suspend that was interrupted (a signal while in-flight bios drained)
 * leaves the device live: stall and delay rules must hold bios again.
 */
static void fault_presuspend_undo(struct dm_target *ti)
{
	fault_held_start(ti->private);
}

static void fault_postsuspend(struct dm_target *ti)
{
	fault_cache_postsuspend(ti->private);
}

static void fault_resume(struct dm_target *ti)
{
	fault_held_start(ti->private);
}

static int fault_iterate_devices(struct dm_target *ti, iterate_devices_callout_fn fn,
				 void *data)
{
	struct fault_c *fc = ti->private;

	return fc->dev ? fn(ti, fc->dev, fc->start, ti->len, data) : 0;
}

static int fault_prepare_ioctl(struct dm_target *ti, struct block_device **bdev)
{
	struct fault_c *fc = ti->private;

	if (!fc->dev)
		return -ENOTTY;
	*bdev = fc->dev->bdev;
	/* Only pass ioctls through if the device sizes match exactly. */
	return fc->start || ti->len != bdev_nr_sectors(fc->dev->bdev);
}

#define FAULT_TARGET(tname, tctr) {					\
	.name = tname,							\
	.version = {1, 0, 0},						\
	.features = DM_TARGET_NOWAIT,					\
	.module = THIS_MODULE,						\
	.ctr = tctr,							\
	.dtr = fault_ctx_destroy,					\
	.map = fault_map,						\
	.end_io = fault_end_io,						\
	.presuspend = fault_presuspend,					\
	.presuspend_undo = fault_presuspend_undo,			\
	.postsuspend = fault_postsuspend,				\
	.resume = fault_resume,						\
	.status = fault_status,						\
	.message = fault_message,					\
	.prepare_ioctl = fault_prepare_ioctl,				\
	.iterate_devices = fault_iterate_devices,			\
}

/*
 * The native target, the compatibility targets under names of their own,
 * and, with compat_names=1, those under the in-tree names when free.
 */
static struct target_type fault_targets[] = {
	FAULT_TARGET("fault", fault_ctr),
	FAULT_TARGET("fault-flakey", fault_flakey_ctr),
	FAULT_TARGET("fault-delay", fault_delay_ctr),
	FAULT_TARGET("fault-error", fault_error_ctr),
	FAULT_TARGET("fault-dust", fault_dust_ctr),
	FAULT_TARGET("flakey", fault_flakey_ctr),
	FAULT_TARGET("delay", fault_delay_ctr),
	FAULT_TARGET("dust", fault_dust_ctr),
};

#define FAULT_NR_OWN	5

static bool compat_names;
module_param(compat_names, bool, 0444);
MODULE_PARM_DESC(compat_names,
		 "Also register the flakey, delay and dust targets when no module has them");

static bool fault_registered[ARRAY_SIZE(fault_targets)];

static void dm_fault_unregister(void)
{
	int i;

	for (i = ARRAY_SIZE(fault_targets) - 1; i >= 0; i--) {
		if (fault_registered[i])
			dm_unregister_target(&fault_targets[i]);
		fault_registered[i] = false;
	}
}

static int __init dm_fault_init(void)
{
	int i, r;

	fault_op_table_init();
	r = fault_cache_init();
	if (r)
		return r;
	for (i = 0; i < ARRAY_SIZE(fault_targets); i++) {
		if (i >= FAULT_NR_OWN && !compat_names)
			break;
		r = dm_register_target(&fault_targets[i]);
		if (r && i < FAULT_NR_OWN) {
			DMERR("cannot register target %s: %d", fault_targets[i].name, r);
			dm_fault_unregister();
			fault_cache_exit();
			return r;
		}
		if (r)
			DMINFO("target %s already registered: not taking the name",
			       fault_targets[i].name);
		fault_registered[i] = !r;
	}
	return 0;
}

static void __exit dm_fault_exit(void)
{
	dm_fault_unregister();
	/* Rules retired with call_rcu() run our code: wait for them. */
	rcu_barrier();
	fault_cache_exit();
}

module_init(dm_fault_init);
module_exit(dm_fault_exit);

MODULE_DESCRIPTION(DM_NAME " fault injection target");
MODULE_AUTHOR("dm-fault developers");
MODULE_LICENSE("GPL");
