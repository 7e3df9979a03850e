// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault bad-block map: ranges of sectors that fail the bios touching
 * them, as a disk's medium errors do.  A range has a mode (heal: reads
 * fail and a write heals the sectors it covers, after wr_fail failed
 * writes; sticky: reads and writes fail; read or write: only those fail)
 * and the status its failures complete with.
 *
 * The ranges are a maple tree of sector ranges, each mapped to one value
 * word that packs its kind, so marking 2^20 sectors bad is one entry and
 * a lookup is O(log n).  Changes (messages, and the writes that heal a
 * range or count down its wr_fail) take the map's mutex, which the tree
 * knows as its external lock: the tree allocates nodes with it held, so
 * no change is split by a dropped lock.  The I/O path reads the tree
 * under the read side of a per-CPU rw semaphore, which costs a reader no
 * write to a shared cache line; a change takes it for writing only around
 * the store itself.  The tree is not in RCU mode: its RCU-deferred
 * freeing of replaced subtrees (mt_free_walk()) oopses on 6.1 and 6.12
 * with large maps, and a store under the write side frees what it
 * replaces at once, with no reader inside.
 *
 * In front of the tree, a summary of the target in chunks of 2^chunk_shift
 * sectors has a bit set for each chunk that a range may touch: set before
 * a range is stored, cleared when a removal leaves the chunk with no range.
 * A bio whose chunks have no bit set misses the map with no lock taken and
 * no walk, whatever the size of the map elsewhere.
 *
 * Ranges with equal kinds that touch or overlap are kept as one; a range
 * with writes left to fail is kept apart, since its count is its own.
 *
 * fault-dust's map is a map of blocks: its entries are dm-dust's blocks,
 * each one thing that dust's messages list, count, query and remove.  So
 * every change to it (an add or a remove by any message, a heal by a
 * write smaller than a block) covers whole blocks, and a heal counts and
 * reports each block it removes.
 */
#include <linux/maple_tree.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

#define FAULT_BAD_MT_FLAGS	MT_FLAGS_LOCK_EXTERN

/* at most this many chunks in the summary: 32 KiB of bits */
#define FAULT_BAD_SUMMARY_BITS	BIT(18)

/* a list reply: at most this many ranges, each line shorter than this */
#define FAULT_BAD_LIST_MAX	1024
#define FAULT_BAD_LINE_MAX	96

struct fault_bad_stats {
	u64 lookups;
	u64 hits;
	u64 heals;
};

/* A range's kind as one tree value: mode, status, writes left to fail. */
static void *fault_bad_entry(const struct fault_bad_attr *a)
{
	return xa_mk_value(a->mode | a->status << 2 | (unsigned long)a->wr_fail << 8);
}

static void fault_bad_attr_of(void *entry, struct fault_bad_attr *a)
{
	unsigned long v = xa_to_value(entry);

	a->mode = v & 3;
	a->status = (v >> 2) & 63;
	a->wr_fail = v >> 8;
}

/* Does a range of mode @mode fail a read (@rd) or a write? */
static bool fault_bad_applies(enum fault_bad_mode mode, bool rd)
{
	return rd ? mode != FAULT_BAD_WRITE : mode != FAULT_BAD_READ;
}

static struct maple_tree *fault_bad_tree_alloc(struct fault_bad *bad)
{
	struct maple_tree *mt = kzalloc(sizeof(*mt), GFP_KERNEL);

	if (mt) {
		mt_init_flags(mt, FAULT_BAD_MT_FLAGS);
		mt_set_external_lock(mt, &bad->lock);
	}
	return mt;
}

/* Free a tree no reader can reach any more.  Caller: bad->lock. */
static void fault_bad_tree_free(struct maple_tree *mt)
{
	__mt_destroy(mt);
	kfree(mt);
}

/* The tree, for its writers: bad->lock held. */
static struct maple_tree *fault_bad_tree(struct fault_bad *bad)
{
	lockdep_assert_held(&bad->lock);
	return bad->mt;
}

/* A reader's side; a REQ_NOWAIT bio does not wait for a store. */
static bool fault_bad_read_lock(struct fault_bad *bad, bool nowait)
{
	if (!nowait)
		percpu_down_read(&bad->rw);
	else if (!percpu_down_read_trylock(&bad->rw))
		return false;
	return true;
}

/* The smallest chunk, of at least 4 KiB, that covers @len sectors in the summary's bits. */
static unsigned int fault_bad_chunk_shift(u64 len)
{
	unsigned int shift = 3;

	while ((len - 1) >> shift >= FAULT_BAD_SUMMARY_BITS)
		shift++;
	return shift;
}

/*
 * The summary's chunks that keys [@first, @last] touch, @c0 to @c1; false
 * when the keys lie outside the target (a fault-dust block no bio reaches).
 */
static bool fault_bad_chunks(const struct fault_bad *bad, u64 first, u64 last,
			     unsigned long *c0, unsigned long *c1)
{
	if (last < bad->base || first >= bad->base + bad->len)
		return false;
	*c0 = (max(first, bad->base) - bad->base) >> bad->chunk_shift;
	*c1 = min(last - bad->base, bad->len - 1) >> bad->chunk_shift;
	return true;
}

/* A range is about to be stored at keys [@first, @last].  Caller: bad->lock. */
static void fault_bad_summary_mark(struct fault_bad *bad, u64 first, u64 last)
{
	unsigned long c0, c1;

	if (fault_bad_chunks(bad, first, last, &c0, &c1))
		bitmap_set(bad->summary, c0, c1 - c0 + 1);
}

/*
 * Keys [@first, @last] were made good: clear the chunks they cover whole,
 * and the chunks at either end if no range is left in them.  Caller:
 * bad->lock.
 */
static void fault_bad_summary_trim(struct fault_bad *bad, u64 first, u64 last)
{
	unsigned long c0, c1, c;
	u64 k0, k1;

	if (!fault_bad_chunks(bad, first, last, &c0, &c1))
		return;
	for (c = c0; c <= c1; c++) {
		k0 = bad->base + ((u64)c << bad->chunk_shift);
		k1 = min(k0 + BIT_ULL(bad->chunk_shift), bad->base + bad->len) - 1;
		if (k0 < first || k1 > last) {
			MA_STATE(mas, fault_bad_tree(bad), k0, k0);

			if (mas_find(&mas, k1))
				continue;
		}
		__clear_bit(c, bad->summary);
	}
}

/* The number of the summary's chunks, and of its bits. */
static unsigned long fault_bad_nr_chunks(const struct fault_bad *bad)
{
	return ((bad->len - 1) >> bad->chunk_shift) + 1;
}

/* Might a range touch target sectors [@first, @last]? */
static bool fault_bad_summary_test(const struct fault_bad *bad, sector_t first, sector_t last)
{
	unsigned long c = first >> bad->chunk_shift;

	do {
		if (test_bit(c, bad->summary))
			return true;
	} while (++c <= last >> bad->chunk_shift);
	return false;
}

/**
 * fault_bad_create - give a device an empty bad-block map
 * @fc: the device; fc->bad is set
 * @base: added to a target sector to give its key in the map (fault-dust
 *        numbers blocks as the device below does)
 * @enabled: whether the map fails bios from the start
 *
 * Caller: the constructor, or a message under fc->lock.
 *
 * Return: 0 or -ENOMEM.
 */
int fault_bad_create(struct fault_c *fc, u64 base, bool enabled)
{
	struct fault_bad *bad;

	bad = kzalloc(sizeof(*bad), GFP_KERNEL);
	if (!bad)
		return -ENOMEM;
	mutex_init(&bad->lock);
	bad->base = base;
	bad->len = fc->ti->len;
	bad->chunk_shift = fault_bad_chunk_shift(bad->len);
	bad->enabled = enabled;
	bad->stats = alloc_percpu(struct fault_bad_stats);
	if (!bad->stats)
		goto free;
	if (percpu_init_rwsem(&bad->rw))
		goto free_stats;
	bad->summary = bitmap_zalloc(fault_bad_nr_chunks(bad), GFP_KERNEL);
	if (!bad->summary)
		goto free_rw;
	bad->mt = fault_bad_tree_alloc(bad);
	if (!bad->mt)
		goto free_summary;
	/* pairs with the READ_ONCE() of map: the map is whole when seen */
	smp_store_release(&fc->bad, bad);
	fault_map_bits_update(fc);
	return 0;

free_summary:
	bitmap_free(bad->summary);
free_rw:
	percpu_free_rwsem(&bad->rw);
free_stats:
	free_percpu(bad->stats);
free:
	kfree(bad);
	return -ENOMEM;
}

void fault_bad_destroy(struct fault_c *fc)
{
	struct fault_bad *bad = fc->bad;

	if (!bad)
		return;
	/* no bio can reach the map: its tree goes at once */
	mutex_lock(&bad->lock);
	fault_bad_tree_free(fault_bad_tree(bad));
	mutex_unlock(&bad->lock);
	bitmap_free(bad->summary);
	percpu_free_rwsem(&bad->rw);
	free_percpu(bad->stats);
	kfree(bad);
	fc->bad = NULL;
}

/**
 * fault_bad_clear - empty the map; its counters of lookups, hits and heals stay
 * @bad: the map
 *
 * An empty tree replaces the map's under the write side; the old one is
 * freed when no lookup can be in it.  Sleeps.
 *
 * Return: 0 or -ENOMEM (the map unchanged).
 */
int fault_bad_clear(struct fault_bad *bad)
{
	struct maple_tree *mt = fault_bad_tree_alloc(bad), *old;

	if (!mt)
		return -ENOMEM;
	mutex_lock(&bad->lock);
	old = fault_bad_tree(bad);
	percpu_down_write(&bad->rw);
	bad->mt = mt;
	percpu_up_write(&bad->rw);
	bitmap_zero(bad->summary, fault_bad_nr_chunks(bad));
	bad->nr_ranges = 0;
	bad->nr_sectors = 0;
	fault_bad_tree_free(old);
	mutex_unlock(&bad->lock);
	return 0;
}

/* In a map of blocks, widen keys [@first, @last] to the blocks they touch. */
static void fault_bad_whole(const struct fault_bad *bad, u64 *first, u64 *last)
{
	u64 mask = BIT_ULL(bad->block_shift) - 1;

	if (bad->blocks) {
		*first &= ~mask;
		*last |= mask;
	}
}

/*
 * Make keys [@first, @last] map to @entry (NULL: not bad), merging with
 * equal neighbours, and keep the range and sector counts.  Caller:
 * bad->lock.
 */
static int fault_bad_store(struct fault_bad *bad, unsigned long first, unsigned long last,
			   void *entry, gfp_t gfp)
{
	MA_STATE(mas, fault_bad_tree(bad), first, first);
	struct fault_bad_attr a;
	s64 ranges = 0, sectors = 0;
	void *e;
	int r;

	if (entry) {
		fault_bad_attr_of(entry, &a);
		if (!a.wr_fail && first) {
			mas_set(&mas, first - 1);
			if (mas_walk(&mas) == entry)
				first = mas.index;
		}
		if (!a.wr_fail && last < ULONG_MAX) {
			mas_set(&mas, last + 1);
			if (mas_walk(&mas) == entry)
				last = mas.last;
		}
		ranges = 1;
		sectors = last - first + 1;
	}
	mas_set(&mas, first);
	mas_for_each(&mas, e, last) {
		sectors -= min(mas.last, last) - max(mas.index, first) + 1;
		ranges += (mas.index < first) + (mas.last > last) - 1;
	}
	mas_set_range(&mas, first, last);
	/* the store frees what it replaces: no reader may be in the tree */
	if (entry)
		fault_bad_summary_mark(bad, first, last);
	percpu_down_write(&bad->rw);
	r = mas_store_gfp(&mas, entry, gfp);
	percpu_up_write(&bad->rw);
	if (r)
		return r;
	if (!entry)
		fault_bad_summary_trim(bad, first, last);
	bad->nr_ranges += ranges;
	bad->nr_sectors += sectors;
	return 0;
}

/**
 * fault_bad_insert - mark keys [@first, @last] bad with the kind @a
 * @bad: the map; a map of blocks marks the blocks the keys touch
 * @first: the first key
 * @last: the last key, inclusive
 * @a: the kind; overlapped ranges take it where they overlap
 * @exclusive: refuse with -EEXIST if @first is bad already
 *
 * Return: 0, -EEXIST or -ENOMEM (the map unchanged).
 */
int fault_bad_insert(struct fault_bad *bad, u64 first, u64 last, const struct fault_bad_attr *a,
		     bool exclusive)
{
	int r = -EEXIST;

	fault_bad_whole(bad, &first, &last);
	mutex_lock(&bad->lock);
	if (!exclusive || !mtree_load(fault_bad_tree(bad), first))
		r = fault_bad_store(bad, first, last, fault_bad_entry(a), GFP_KERNEL);
	mutex_unlock(&bad->lock);
	return r;
}

/**
 * fault_bad_erase - mark keys [@first, @last] good
 * @bad: the map; a map of blocks removes the blocks the keys touch
 * @first: the first key
 * @last: the last key, inclusive
 * @must_exist: refuse with -ENOENT if @first is not bad
 *
 * Return: 0, -ENOENT or -ENOMEM (the map unchanged).
 */
int fault_bad_erase(struct fault_bad *bad, u64 first, u64 last, bool must_exist)
{
	int r = -ENOENT;

	fault_bad_whole(bad, &first, &last);
	mutex_lock(&bad->lock);
	if (!must_exist || mtree_load(fault_bad_tree(bad), first))
		r = fault_bad_store(bad, first, last, NULL, GFP_KERNEL);
	mutex_unlock(&bad->lock);
	return r;
}

/**
 * fault_bad_next - the first bad range that ends at or after @pos
 * @bad: the map
 * @pos: a key
 * @first: its first key
 * @last: its last key
 * @a: its kind
 *
 * Return: true if there is one.
 */
bool fault_bad_next(struct fault_bad *bad, u64 pos, u64 *first, u64 *last,
		    struct fault_bad_attr *a)
{
	void *e;

	fault_bad_read_lock(bad, false);
	/* the tree's lockdep checks take RCU for a reader without its lock */
	rcu_read_lock();
	{
		MA_STATE(mas, bad->mt, pos, pos);

		e = mas_find(&mas, ULONG_MAX);
		if (e) {
			*first = mas.index;
			*last = mas.last;
			fault_bad_attr_of(e, a);
		}
	}
	rcu_read_unlock();
	percpu_up_read(&bad->rw);
	return e;
}

/*
 * Fail a bio at key @at, its first bad sector: with partial completion,
 * a read or write that starts before it goes on shortened to the good
 * logical blocks before it, and the rest comes back as a bio of its own
 * that starts on the bad sector.
 */
static blk_status_t fault_bad_fail(struct fault_bad *bad, struct bio *bio, u64 key, u64 at,
				   enum fault_sts status)
{
	unsigned int lbs = bdev_logical_block_size(bio->bi_bdev) >> SECTOR_SHIFT;
	u64 good = round_down(at - key, lbs);

	if (READ_ONCE(bad->partial) && good &&
	    (bio_op(bio) == REQ_OP_READ || bio_op(bio) == REQ_OP_WRITE)) {
#ifdef REQ_ATOMIC
		if (bio->bi_opf & REQ_ATOMIC)
			return fault_status_blk(status);
#endif
		dm_accept_partial_bio(bio, good);
		return BLK_STS_OK;
	}
	return fault_status_blk(status);
}

/*
 * A write healed keys [@lo, @hi]: one heal, or in a map of blocks one for
 * each block, as each is an entry of its own.  Caller: bad->lock.
 */
static void fault_bad_healed(struct fault_c *fc, u64 lo, u64 hi)
{
	struct fault_bad *bad = fc->bad;
	u64 n = bad->blocks ? ((hi - lo) >> bad->block_shift) + 1 : 1, i;

	this_cpu_add(bad->stats->heals, n);
	for (i = 0; bad->healed && i < n; i++)
		bad->healed(fc, lo + (i << bad->block_shift));
}

/*
 * A write met a heal range: under the lock, walk the ranges it touches in
 * order; heal ranges with no writes left to fail lose the sectors the
 * write covers (in a map of blocks, the blocks it touches), the first
 * range that fails it (sticky, write, or heal with writes left, whose
 * count goes down) ends the walk.  Either changes the map under the write
 * side of its per-CPU semaphore, which has no trylock: a REQ_NOWAIT write
 * goes back to its submitter, to come again without it.
 */
static blk_status_t fault_bad_write(struct fault_c *fc, struct bio *bio, u64 key, u64 end)
{
	struct fault_bad *bad = fc->bad;
	struct fault_bad_attr a;
	blk_status_t st = BLK_STS_OK;
	u64 first, last, lo, hi, pos = key;
	void *e;

	if (bio->bi_opf & REQ_NOWAIT)
		return BLK_STS_AGAIN;
	mutex_lock(&bad->lock);
	while (pos <= end) {
		MA_STATE(mas, fault_bad_tree(bad), pos, pos);

		e = mas_find(&mas, end);
		if (!e)
			break;
		first = mas.index;
		last = mas.last;
		fault_bad_attr_of(e, &a);
		if (a.mode == FAULT_BAD_READ)
			goto next;
		if (a.mode == FAULT_BAD_HEAL && !a.wr_fail) {
			lo = max(first, key);
			hi = min(last, end);
			fault_bad_whole(bad, &lo, &hi);
			if (fault_bad_store(bad, lo, hi, NULL, GFP_NOIO)) {
				st = BLK_STS_RESOURCE;
				break;
			}
			fault_bad_healed(fc, lo, hi);
			goto next;
		}
		if (a.mode == FAULT_BAD_HEAL) {
			a.wr_fail--;
			if (fault_bad_store(bad, first, last, fault_bad_entry(&a), GFP_NOIO))
				st = BLK_STS_RESOURCE;
		}
		mutex_unlock(&bad->lock);
		return st ?: fault_bad_fail(bad, bio, key, max(first, key), a.status);
next:
		if (last >= end)
			break;
		pos = last + 1;
	}
	mutex_unlock(&bad->lock);
	return st;
}

/**
 * fault_bad_map - what the bad-block map does to a bio
 * @fc: the device, with a map
 * @bio: the bio, not yet remapped; a partial completion shortens it
 * @op: its enum fault_op
 * @sector: its first sector, relative to the target
 *
 * Called from map before the rules and the cache: a medium error is the
 * first thing a bio meets.  A read or a write in chunks that no range
 * touches costs a test of the summary's bits; one in a chunk with ranges,
 * a walk of the tree under the read side of its semaphore.
 *
 * Return: BLK_STS_OK to let the bio go on, or the status to fail it with.
 */
blk_status_t fault_bad_map(struct fault_c *fc, struct bio *bio, unsigned int op, sector_t sector)
{
	struct fault_bad *bad = fc->bad;
	unsigned int nr = bio_sectors(bio);
	bool rd = op == FAULT_OP_READ;
	struct fault_bad_attr a;
	u64 key, end, first = 0;
	void *e;

	if (!nr || !READ_ONCE(bad->enabled) || op == FAULT_OP_OTHER)
		return BLK_STS_OK;
	this_cpu_inc(bad->stats->lookups);
	if (!fault_bad_summary_test(bad, sector, sector + nr - 1))
		return BLK_STS_OK;
	key = sector + bad->base;
	end = key + nr - 1;
	if (!fault_bad_read_lock(bad, (bio->bi_opf & REQ_NOWAIT) != 0))
		return BLK_STS_AGAIN;
	rcu_read_lock();
	{
		MA_STATE(mas, bad->mt, key, key);

		/* most bios: the gap at key covers them, one walk */
		e = mas_walk(&mas);
		if (e || mas.last < end) {
			mas_set(&mas, key);
			mas_for_each(&mas, e, end) {
				fault_bad_attr_of(e, &a);
				if (fault_bad_applies(a.mode, rd)) {
					first = mas.index;
					break;
				}
			}
		}
	}
	rcu_read_unlock();
	percpu_up_read(&bad->rw);
	if (!e)
		return BLK_STS_OK;
	this_cpu_inc(bad->stats->hits);
	if (!rd && a.mode == FAULT_BAD_HEAL)
		return fault_bad_write(fc, bio, key, end);
	return fault_bad_fail(bad, bio, key, max(first, key), a.status);
}

static void fault_bad_sum(struct fault_bad *bad, u64 *v)
{
	int cpu;

	v[FAULT_BS_RANGES] = READ_ONCE(bad->nr_ranges);
	v[FAULT_BS_SECTORS] = READ_ONCE(bad->nr_sectors);
	v[FAULT_BS_LOOKUPS] = 0;
	v[FAULT_BS_HITS] = 0;
	v[FAULT_BS_HEALS] = 0;
	for_each_possible_cpu(cpu) {
		struct fault_bad_stats *s = per_cpu_ptr(bad->stats, cpu);

		v[FAULT_BS_LOOKUPS] += READ_ONCE(s->lookups);
		v[FAULT_BS_HITS] += READ_ONCE(s->hits);
		v[FAULT_BS_HEALS] += READ_ONCE(s->heals);
	}
}

/**
 * fault_bad_snapshot - the map's switches and counters
 * @fc: the device
 * @enabled: whether the map fails bios
 * @partial: whether it completes the good blocks before a bad one
 * @v: filled in, indexed by enum fault_bad_stat
 *
 * Return: false without a map.
 */
bool fault_bad_snapshot(struct fault_c *fc, bool *enabled, bool *partial, u64 *v)
{
	/* pairs with the release in fault_bad_create() */
	struct fault_bad *bad = smp_load_acquire(&fc->bad);

	if (!bad)
		return false;
	*enabled = READ_ONCE(bad->enabled);
	*partial = READ_ONCE(bad->partial);
	fault_bad_sum(bad, v);
	return true;
}

/* The map, made on the first message that needs one: on, whole-bio failures. */
static struct fault_bad *fault_bad_get(struct fault_c *fc)
{
	mutex_lock(&fc->lock);
	if (!fc->bad && fault_bad_create(fc, 0, true))
		DMWARN("%s: bad: cannot allocate the map", fault_dev_name(fc));
	mutex_unlock(&fc->lock);
	return fc->bad;
}

/*
 * bad add and bad remove: every range is checked against the device
 * before the map changes, then applied in order.
 */
static int fault_bad_msg_ranges(struct fault_c *fc, const struct fault_msg *m)
{
	u64 first, last, len = fc->ti->len;
	struct fault_bad *bad;
	unsigned int i;
	int r = 0;

	for (i = 0; i < m->nr_ranges; i++) {
		if (fault_bad_range_parse(m->ranges[i], &first, &last) || last >= len ||
		    last > ULONG_MAX) {
			DMWARN("%s: %s: range '%s' is not within the device's %llu sectors",
			       fault_dev_name(fc), fault_msg_name(m->cmd), m->ranges[i], len);
			return -EINVAL;
		}
	}
	bad = fault_bad_get(fc);
	if (!bad)
		return -ENOMEM;
	for (i = 0; i < m->nr_ranges && !r; i++) {
		fault_bad_range_parse(m->ranges[i], &first, &last);
		if (m->cmd == FAULT_MSG_BAD_ADD)
			r = fault_bad_insert(bad, first, last, &m->bad, false);
		else
			r = fault_bad_erase(bad, first, last, false);
	}
	if (r)
		DMWARN("%s: %s: out of memory after %u of %u ranges", fault_dev_name(fc),
		       fault_msg_name(m->cmd), i - 1, m->nr_ranges);
	return r;
}

static int fault_bad_msg_query(struct fault_c *fc, struct fault_bad *bad, u64 sector,
			       char *result, unsigned int maxlen)
{
	struct fault_bad_attr a;
	unsigned int sz = 0;
	u64 first, last;
	char kind[64];

	if (!bad || !fault_bad_next(bad, sector, &first, &last, &a) || first > sector) {
		DMEMIT("%llu ok", sector);
		return 1;
	}
	fault_bad_attr_format(&a, kind, sizeof(kind));
	DMEMIT("%llu bad %llu-%llu %s", sector, first, last, kind);
	return 1;
}

/* Up to FAULT_BAD_LIST_MAX ranges from @from, then "next <key>" if more. */
static int fault_bad_msg_list(struct fault_bad *bad, u64 from, char *result, unsigned int maxlen)
{
	struct fault_bad_attr a;
	unsigned int sz = 0, n = 0;
	u64 first, last;
	char kind[64];

	while (bad && fault_bad_next(bad, from, &first, &last, &a)) {
		if (n == FAULT_BAD_LIST_MAX || maxlen - sz < FAULT_BAD_LINE_MAX) {
			DMEMIT("next %llu\n", max(first, from));
			break;
		}
		fault_bad_attr_format(&a, kind, sizeof(kind));
		DMEMIT("%llu-%llu %s\n", max(first, from), last, kind);
		n++;
		if (last == ULONG_MAX)
			break;
		from = last + 1;
	}
	return 1;
}

/**
 * fault_bad_message - the bad messages fault_msg_parse() read
 * @fc: the device
 * @m: the message, m->cmd FAULT_MSG_BAD_ADD to FAULT_MSG_BAD_PARTIAL
 * @result: the reply buffer
 * @maxlen: its size
 *
 * Return: 0, 1 with a reply, or -errno with the reason logged.
 */
int fault_bad_message(struct fault_c *fc, const struct fault_msg *m, char *result,
		      unsigned int maxlen)
{
	/* pairs with the release in fault_bad_create() */
	struct fault_bad *bad = smp_load_acquire(&fc->bad);
	unsigned int sz = 0;
	u64 v[FAULT_NR_BAD_STATS] = { 0 };

	switch (m->cmd) {
	case FAULT_MSG_BAD_ADD:
	case FAULT_MSG_BAD_REMOVE:
		return fault_bad_msg_ranges(fc, m);
	case FAULT_MSG_BAD_QUERY:
		return fault_bad_msg_query(fc, bad, m->sector, result, maxlen);
	case FAULT_MSG_BAD_LIST:
		return fault_bad_msg_list(bad, m->sector, result, maxlen);
	case FAULT_MSG_BAD_COUNT:
		if (bad)
			fault_bad_sum(bad, v);
		DMEMIT("ranges=%llu sectors=%llu", v[FAULT_BS_RANGES], v[FAULT_BS_SECTORS]);
		return 1;
	case FAULT_MSG_BAD_CLEAR:
		return bad ? fault_bad_clear(bad) : 0;
	default:
		break;
	}
	bad = fault_bad_get(fc);
	if (!bad)
		return -ENOMEM;
	if (m->cmd == FAULT_MSG_BAD_PARTIAL)
		WRITE_ONCE(bad->partial, m->on);
	else
		WRITE_ONCE(bad->enabled, m->cmd == FAULT_MSG_BAD_ENABLE);
	return 0;
}
