// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault's volatile write cache: power-cut emulation.
 *
 * With the cache on, the target behaves as a disk with a volatile write
 * cache.  A write, a FUA write, a discard and a write-zeroes that no rule
 * acts on complete as soon as they are held here; reads see the newest
 * data.  A flush makes durable exactly the writes that completed before it
 * was issued: it writes back the blocks numbered up to the last write
 * completed when it reached the target, flushes the disk below, and then
 * completes.  A FUA write is durable when it completes and makes nothing
 * else durable: it stays cached, marked durable, and every crash keeps it.
 *
 * A crash (the "crash" message, or a trigger after the n-th flush, write or
 * byte since "mark") keeps, by a policy and a seed, a subset of the writes
 * no flush covered, each whole or torn at the tearing unit (the logical
 * block of the disk below unless a larger unit is set), and writes back
 * what it keeps in write order, so that where two kept writes overlap the
 * newer one is on the disk.  The rest are lost and listed.  Then every bio
 * fails with EIO until "recover".
 *
 * "record" keeps every write in memory and writes nothing back: flushes are
 * recorded as barriers between epochs.  After a "crash", "view" presents
 * one crash state of the recording at a time: the untouched disk below,
 * the recorded writes the state keeps, and a scratch overlay that takes the
 * check's own writes and is thrown away by the next view.  One recorded
 * run so gives as many crash states as a checker wants to try.
 *
 * A write is held as blocks of at most a page (a discard or write-zeroes as
 * one block without data) in an interval tree by sector, so that lookups
 * take O(log n + overlaps) whatever the block sizes, and on a list in write
 * order, the order of write-back.  Overlapping writes are all kept, newest
 * visible on read.  The memory limit bounds the blocks for every bio size:
 * past it the oldest blocks are written back (counted as forced), and a
 * write larger than the limit, one that no memory can be had for, or one a
 * rule delays, stalls, corrupts or tears goes to the disk after every
 * cached write before it: a real disk may write back early, so this shows
 * fewer crash states, never an impossible one.  A recording past the limit
 * overflows: its writes fail, and the state says so.
 *
 * A write-back that fails leaves its blocks cached and fails the flush (or
 * suspend) that asked for it; the next flush tries again.
 *
 * Locking: c->lock covers the tree, the list, the state, the recording and
 * the counters; it is held for lookups, inserts and copies of at most one
 * bio's data, and for a view's walk over the recording.  c->mutex
 * serialises everything that writes to the disk: the work item that runs
 * deferred bios, crash, recover, record, view, "cache off" and postsuspend.
 * Blocks leave the tree only under c->mutex, after their write-back has
 * completed, so a read that finds no cached block in map can go straight to
 * the disk.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/interval_tree_generic.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

#define FAULT_CW_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
/* write-back bios in flight at once */
#define FAULT_WB_BATCH		64
/* lost ranges kept from the last crash, and listed in its reply */
#define FAULT_LOST_MAX		1024
#define FAULT_LOST_REPLY	32
/* a recording's flush barriers and marks */
#define FAULT_REC_FLUSHES	65536
#define FAULT_REC_MARKS		256
/* writes a "record list" reply gives */
#define FAULT_REC_PAGE		1024
/* sectors a read's overlay looks up at once */
#define FAULT_WIN		32

/* What a block holds, and what the view in force makes of it. */
#define FAULT_CW_FUA		BIT(0)	/* durable from completion */
#define FAULT_CW_DISCARD	BIT(1)	/* no data: a discard */
#define FAULT_CW_ZEROES		BIT(2)	/* no data: a write-zeroes */
#define FAULT_CW_SCRATCH	BIT(3)	/* a check's write in a view */
#define FAULT_CW_KEPT		BIT(4)	/* kept by the view in force */
#define FAULT_CW_TORN		BIT(5)	/* ... torn: only some units */

/* One cached block: up to a page of one write, or a whole discard. */
struct fault_cw {
	struct rb_node node;		/* in c->tree, by sector interval */
	sector_t subtree_last;
	struct fault_cw *next;		/* c->head list, oldest first */
	struct page *page;		/* NULL: reads as zeroes */
	sector_t sector;		/* relative to the target */
	u64 wseq;			/* the write's number: newer is larger */
	u32 nr;				/* sectors */
	u32 flags;			/* FAULT_CW_* */
};

static inline sector_t fault_cw_last(const struct fault_cw *cw)
{
	return cw->sector + cw->nr - 1;
}

#define FAULT_CW_START(cw)	((cw)->sector)
#define FAULT_CW_LAST(cw)	fault_cw_last(cw)

INTERVAL_TREE_DEFINE(struct fault_cw, node, sector_t, subtree_last, FAULT_CW_START,
		     FAULT_CW_LAST, static, fault_it)

enum fault_cache_state {
	FAULT_CACHE_OFF,		/* nothing cached; bios pass */
	FAULT_CACHE_ON,
	FAULT_CACHE_DRAIN,		/* "cache off": writes wait for write-back */
	FAULT_CACHE_CRASHED,		/* every bio fails until recover (or view) */
	FAULT_CACHE_RECORD,		/* every write kept, nothing written back */
	FAULT_CACHE_OVERFLOW,		/* a recording past the limit: writes fail */
	FAULT_CACHE_VIEW,		/* a crash state of the recording */
};

static const char * const fault_cache_state_names[] = {
	[FAULT_CACHE_OFF] = "off",
	[FAULT_CACHE_ON] = "on",
	[FAULT_CACHE_DRAIN] = "off",
	[FAULT_CACHE_CRASHED] = "crashed",
	[FAULT_CACHE_RECORD] = "recording",
	[FAULT_CACHE_OVERFLOW] = "overflow",
	[FAULT_CACHE_VIEW] = "view",
};

/* Sectors a crash lost of one write, numbered from the mark. */
struct fault_lost {
	u64 write;
	sector_t sector;
	u64 nr;
};

/* Counters since the cache was created, and what the last crash lost. */
struct fault_cache_stats {
	u64 mem, hwm, blocks;
	u64 writes, flushes, fua, forced, written_back, crashes, wb_errors;
	u64 lost_writes, lost_sectors, recorded;
};

struct fault_rec_mark {
	u64 after;			/* the last write before it */
	char label[FAULT_MARK_LABEL_MAX + 1];
};

/* A recording: write n is the one numbered base + n. */
struct fault_rec {
	u64 base;
	u64 *barriers;			/* ascending: a flush covered writes 1..n */
	unsigned int nr_barriers;
	struct fault_rec_mark *marks;
	unsigned int nr_marks;
	bool overflow;			/* passed the limit: writes failed */
	struct fault_cw **end;		/* link after the last recorded block */
	/* "record list": where the last page ended, to go on from there */
	struct fault_cw *cursor;
	u64 cursor_write;
	/* the view in force: its torn writes */
	unsigned int nr_tears;
	struct fault_tear tears[FAULT_VIEW_TEARS];
};

struct fault_cache {
	struct fault_c *fc;
	spinlock_t lock;		/* the tree, list, state, recording and counters */
	enum fault_cache_state state;
	struct rb_root_cached tree;
	struct fault_cw *head, **tail;
	struct list_head pool;		/* free pages kept for new blocks */
	unsigned long pool_nr;
	struct fault_cache_cfg cfg;	/* limit, and the armed trigger */
	unsigned int unit;		/* tearing unit, sectors */
	u64 wseq, mark_wseq;
	u64 since_flushes, since_writes, since_bytes;
	struct fault_cache_stats st;
	struct fault_rec *rec;		/* NULL unless a recording is held */

	struct bio_list deferred;
	struct work_struct work;
	struct work_struct crash_work;
	struct fault_cache_cfg pending;	/* the crash a trigger fired */
	struct workqueue_struct *wq;
	struct mutex mutex;		/* held while writing to the disk */

	/* what the last crash lost, under c->mutex */
	unsigned int nr_lost;
	bool lost_truncated;
	struct fault_lost *lost;
};

static struct kmem_cache *fault_cw_cache;

/* Write-back of a batch of blocks. */
struct fault_wb {
	atomic_t pending;
	struct completion done;
	blk_status_t status;
	unsigned int nr;
	struct fault_cw *cw[FAULT_WB_BATCH];
};

static u64 fault_cw_mem(const struct fault_cw *cw)
{
	return sizeof(*cw) + (cw->page ? PAGE_SIZE : 0);
}

static const char *fault_cache_name(struct fault_c *fc)
{
	return dm_device_name(dm_table_get_md(fc->ti->table));
}

/* A message's outcome: 0, or why message @what was refused, logged, and -EINVAL. */
static int fault_cache_refuse(struct fault_c *fc, const char *what, const char *error)
{
	if (!error)
		return 0;
	DMWARN("%s: %s: %s", fault_cache_name(fc), what, error);
	return -EINVAL;
}

/* A hash of the seed, the write's number and the unit: keep if odd. */
static bool fault_crash_keeps(u64 seed, u64 w, u64 unit)
{
	u64 x = seed ^ (w * 0x9e3779b97f4a7c15ULL) ^ (unit * 0xc2b2ae3d27d4eb4fULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 32;
	return x & 1;
}

/* Does the view in force show sector @sector of block @cw?  Caller: c->lock. */
static bool fault_cw_visible(struct fault_cache *c, const struct fault_cw *cw, sector_t sector)
{
	const struct fault_rec *rec = c->rec;
	u64 w = cw->wseq - (rec ? rec->base : 0);
	unsigned int i;

	if (c->state != FAULT_CACHE_VIEW || (cw->flags & FAULT_CW_SCRATCH))
		return true;
	if (!(cw->flags & FAULT_CW_KEPT))
		return false;
	if (!(cw->flags & FAULT_CW_TORN))
		return true;
	for (i = 0; i < rec->nr_tears; i++)
		if (rec->tears[i].write == w)
			return fault_crash_keeps(rec->tears[i].seed, w, sector / c->unit);
	return true;
}

/*
 * The newest block the view shows for each sector of [@sector, @sector +
 * @n), @n <= FAULT_WIN, into @best.  Return: the sectors held.
 * Caller: c->lock.
 */
static unsigned int fault_cache_paint(struct fault_cache *c, sector_t sector, unsigned int n,
				      struct fault_cw **best)
{
	sector_t last = sector + n - 1, s, e;
	struct fault_cw *cw;
	unsigned int held = 0, i;

	memset(best, 0, n * sizeof(*best));
	for (cw = fault_it_iter_first(&c->tree, sector, last); cw;
	     cw = fault_it_iter_next(cw, sector, last)) {
		e = min_t(sector_t, fault_cw_last(cw), last);
		for (s = max(cw->sector, sector); s <= e; s++) {
			i = s - sector;
			if ((!best[i] || cw->wseq > best[i]->wseq) && fault_cw_visible(c, cw, s))
				best[i] = cw;
		}
	}
	for (i = 0; i < n; i++)
		held += !!best[i];
	return held;
}

/*
 * Copy @len bytes between @buf and the bio's data at *@it, and advance it;
 * to the bio with @buf NULL: zeroes.  Whole aligned pages (fio's and the
 * page cache's 4k I/O) go by copy_page(): a word at a time, where memcpy()
 * may move a byte at a time (rep movsb).
 */
static void fault_bio_copy(struct bio *bio, struct bvec_iter *it, void *buf, unsigned int len,
			   bool to_bio)
{
	while (len) {
		struct bio_vec bv = bio_iter_iovec(bio, *it);
		unsigned int n = min(len, bv.bv_len);
		void *p = bvec_kmap_local(&bv);

		if (to_bio && !buf)
			memset(p, 0, n);
		else if (n == PAGE_SIZE && PAGE_ALIGNED(buf) && PAGE_ALIGNED(p))
			copy_page(to_bio ? p : buf, to_bio ? buf : p);
		else if (to_bio)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		if (to_bio)
			flush_dcache_page(bv.bv_page);
		kunmap_local(p);
		bio_advance_iter_single(bio, it, n);
		if (buf)
			buf += n;
		len -= n;
	}
}

/*
 * Lay the newest data the view shows over a read of @nr sectors at
 * @sector (relative to the target).  With @copy false only count: return
 * the sectors the cache holds.  Caller: c->lock.
 */
static unsigned int fault_cache_overlay(struct fault_cache *c, struct bio *bio, sector_t sector,
					unsigned int nr, bool copy)
{
	struct fault_cw *best[FAULT_WIN];
	struct bvec_iter it = bio->bi_iter;
	unsigned int done, n, i, j, held = 0;
	void *src;

	for (done = 0; done < nr; done += n) {
		n = min_t(unsigned int, nr - done, FAULT_WIN);
		held += fault_cache_paint(c, sector + done, n, best);
		for (i = 0; copy && i < n; i = j) {
			for (j = i + 1; j < n && best[j] == best[i]; j++)
				;
			if (!best[i]) {
				bio_advance_iter(bio, &it, (j - i) << SECTOR_SHIFT);
				continue;
			}
			src = best[i]->page ? page_address(best[i]->page) +
			      ((sector + done + i - best[i]->sector) << SECTOR_SHIFT) : NULL;
			fault_bio_copy(bio, &it, src, (j - i) << SECTOR_SHIFT, true);
		}
	}
	return held;
}

/*
 * Pages of blocks written back or lost are kept for new blocks, as long as
 * blocks and kept pages together stay within the limit: a block's page is
 * filled the moment it is taken and only its filled sectors are ever read or
 * written back, and a new page costs its clearing (init_on_alloc, on in
 * Debian's kernels) on top of the allocation, as much as the rest of a
 * cached write.  "cache off" and the destructor give them back.
 */
static struct page *fault_page_get(struct fault_cache *c, gfp_t gfp)
{
	struct page *page;

	spin_lock(&c->lock);
	page = list_first_entry_or_null(&c->pool, struct page, lru);
	if (page) {
		list_del(&page->lru);
		c->pool_nr--;
	}
	spin_unlock(&c->lock);
	return page ?: alloc_page(gfp | __GFP_NOWARN);
}

static void fault_page_put(struct fault_cache *c, struct page *page)
{
	spin_lock(&c->lock);
	if (c->st.mem + (c->pool_nr + 1) * PAGE_SIZE <= c->cfg.limit) {
		list_add(&page->lru, &c->pool);
		c->pool_nr++;
		page = NULL;
	}
	spin_unlock(&c->lock);
	if (page)
		__free_page(page);
}

static void fault_pool_drain(struct fault_cache *c)
{
	struct page *page, *tmp;
	LIST_HEAD(pages);

	spin_lock(&c->lock);
	list_splice_init(&c->pool, &pages);
	c->pool_nr = 0;
	spin_unlock(&c->lock);
	list_for_each_entry_safe(page, tmp, &pages, lru)
		__free_page(page);
}

static void fault_cw_free(struct fault_cache *c, struct fault_cw *cw)
{
	if (cw->page)
		fault_page_put(c, cw->page);
	kmem_cache_free(fault_cw_cache, cw);
}

static void fault_cw_free_list(struct fault_cache *c, struct fault_cw *cw)
{
	struct fault_cw *next;

	for (; cw; cw = next) {
		next = cw->next;
		fault_cw_free(c, cw);
	}
}

/* The FAULT_CW_* kind of a write bio. */
static u32 fault_cw_kind(struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_DISCARD:
		return FAULT_CW_DISCARD;
	case REQ_OP_WRITE_ZEROES:
		return FAULT_CW_ZEROES;
	default:
		return bio->bi_opf & REQ_FUA ? FAULT_CW_FUA : 0;
	}
}

/* Blocks for the write @bio of @nr sectors at @sector, data copied; NULL: no memory. */
static struct fault_cw *fault_cw_alloc(struct fault_cache *c, struct bio *bio, sector_t sector,
				       unsigned int nr, gfp_t gfp)
{
	u32 kind = fault_cw_kind(bio);
	struct bvec_iter it = bio->bi_iter;
	struct fault_cw *first = NULL, **link = &first, *cw;
	unsigned int n;

	while (nr) {
		cw = kmem_cache_alloc(fault_cw_cache, gfp | __GFP_NOWARN);
		if (!cw)
			goto fail;
		cw->page = NULL;
		n = nr;
		if (!(kind & (FAULT_CW_DISCARD | FAULT_CW_ZEROES))) {
			cw->page = fault_page_get(c, gfp);
			if (!cw->page) {
				kmem_cache_free(fault_cw_cache, cw);
				goto fail;
			}
			n = min_t(unsigned int, nr, FAULT_CW_SECTORS);
			fault_bio_copy(bio, &it, page_address(cw->page), n << SECTOR_SHIFT,
				       false);
		}
		cw->sector = sector;
		cw->nr = n;
		cw->flags = kind;
		cw->next = NULL;
		*link = cw;
		link = &cw->next;
		sector += n;
		nr -= n;
	}
	return first;

fail:
	fault_cw_free_list(c, first);
	return NULL;
}

/* The crash @cfg asks for, now; the caller runs it. Caller: c->lock. */
static void fault_cache_fire(struct fault_cache *c)
{
	c->state = FAULT_CACHE_CRASHED;
	c->pending = c->cfg;
	c->cfg.after = FAULT_TRIG_NONE;
}

/*
 * Count a write for the trigger; true if the trigger fires.  Every write
 * that reaches the cache or the disk through it is numbered, so that a
 * program that counts its own writes from the mark finds them in the lost
 * list by the same numbers.  Caller: c->lock, state on.
 */
static bool fault_cache_count_write(struct fault_cache *c, unsigned int bytes)
{
	c->since_writes++;
	c->since_bytes += bytes;
	if ((c->cfg.after == FAULT_TRIG_WRITE && c->since_writes >= c->cfg.after_n) ||
	    (c->cfg.after == FAULT_TRIG_BYTES && c->since_bytes >= c->cfg.after_n)) {
		fault_cache_fire(c);
		return true;
	}
	return false;
}

static bool fault_cache_taking(enum fault_cache_state state)
{
	return state == FAULT_CACHE_ON || state == FAULT_CACHE_RECORD ||
	       state == FAULT_CACHE_VIEW;
}

/* A recording past its limit overflows, once, and says so. Caller: c->lock. */
static void fault_cache_overflow(struct fault_cache *c, const char *why)
{
	if (c->state != FAULT_CACHE_RECORD)
		return;
	c->state = FAULT_CACHE_OVERFLOW;
	c->rec->overflow = true;
	DMERR("%s: recording overflowed after %llu writes: %s", fault_cache_name(c->fc),
	      c->st.recorded, why);
}

/*
 * Put the blocks of one write in the cache, numbered as one write.
 * Return: 1 if they went in and a trigger fired (the caller runs the
 * crash), 0 if they went in, -ENOSPC if they would pass the limit, -EIO if
 * the cache is not taking writes (crashed, overflowed, being switched off).
 */
static int fault_cache_insert(struct fault_cache *c, struct fault_cw *first, unsigned int bytes)
{
	u64 mem = 0, nr = 0;
	struct fault_cw *cw, *last = NULL;
	int r = 0;

	for (cw = first; cw; cw = cw->next) {
		mem += fault_cw_mem(cw);
		nr++;
		last = cw;
	}
	spin_lock(&c->lock);
	if (!fault_cache_taking(c->state)) {
		r = -EIO;
	} else if (c->st.mem + mem > c->cfg.limit) {
		fault_cache_overflow(c, "the cache's limit");
		r = -ENOSPC;
	} else {
		c->wseq++;
		if (c->state == FAULT_CACHE_ON)
			r = fault_cache_count_write(c, bytes);
		else if (c->state == FAULT_CACHE_RECORD)
			c->st.recorded++;
		for (cw = first; cw; cw = cw->next) {
			cw->wseq = c->wseq;
			if (c->state == FAULT_CACHE_VIEW)
				cw->flags |= FAULT_CW_SCRATCH;
			fault_it_insert(cw, &c->tree);
		}
		*c->tail = first;
		c->tail = &last->next;
		c->st.mem += mem;
		c->st.blocks += nr;
		c->st.hwm = max(c->st.hwm, c->st.mem);
		c->st.writes++;
		if (first->flags & FAULT_CW_FUA)
			c->st.fua++;
	}
	spin_unlock(&c->lock);
	return r;
}

/*
 * A recording's flush: a barrier after the last completed write (a second
 * flush with no write between adds nothing).  Return: false if the
 * recording cannot take it.  Caller: c->lock.
 */
static bool fault_rec_barrier(struct fault_cache *c)
{
	struct fault_rec *rec = c->rec;
	u64 n = c->wseq - rec->base;

	c->st.flushes++;
	if (rec->nr_barriers && rec->barriers[rec->nr_barriers - 1] == n)
		return true;
	if (rec->nr_barriers == FAULT_REC_FLUSHES) {
		fault_cache_overflow(c, "too many flushes");
		return false;
	}
	rec->barriers[rec->nr_barriers++] = n;
	return true;
}

/*
 * A flush while recording (a barrier) or viewing (nothing to make durable:
 * the scratch is thrown away).  Return: false if it cannot be taken here:
 * the recording overflowed, or the cache is on and the flush writes back.
 * Caller: c->lock.
 */
static bool fault_rec_flush(struct fault_cache *c)
{
	if (c->state == FAULT_CACHE_RECORD)
		return fault_rec_barrier(c);
	if (c->state != FAULT_CACHE_VIEW)
		return false;
	c->st.flushes++;
	return true;
}

static void fault_wb_endio(struct bio *bio)
{
	struct fault_wb *wb = bio->bi_private;
	blk_status_t st = bio->bi_status;

	/* a discard is a hint: a disk that takes none has done it */
	if (st == BLK_STS_NOTSUPP && bio_op(bio) == REQ_OP_DISCARD)
		st = BLK_STS_OK;
	if (st)
		wb->status = st;
	bio_put(bio);
	if (atomic_dec_and_test(&wb->pending))
		complete(&wb->done);
}

static void fault_wb_init(struct fault_wb *wb)
{
	atomic_set(&wb->pending, 1);
	init_completion(&wb->done);
	wb->status = BLK_STS_OK;
	wb->nr = 0;
}

/* Write sectors [@first, @first + @nr) of block @cw to the disk. */
static void fault_wb_submit(struct fault_cache *c, struct fault_wb *wb, struct fault_cw *cw,
			    unsigned int first, unsigned int nr)
{
	struct fault_c *fc = c->fc;
	blk_opf_t op = REQ_OP_WRITE;
	struct bio *bio;

	if (cw->flags & FAULT_CW_DISCARD)
		op = REQ_OP_DISCARD;
	else if (cw->flags & FAULT_CW_ZEROES)
		op = REQ_OP_WRITE_ZEROES;
	bio = bio_alloc_bioset(fc->dev->bdev, cw->page ? 1 : 0, op, GFP_NOIO, &fc->bs);
	bio->bi_iter.bi_sector = fc->start + cw->sector + first;
	if (cw->page)
		__bio_add_page(bio, cw->page, nr << SECTOR_SHIFT, first << SECTOR_SHIFT);
	else
		bio->bi_iter.bi_size = nr << SECTOR_SHIFT;
	bio->bi_private = wb;
	bio->bi_end_io = fault_wb_endio;
	atomic_inc(&wb->pending);
	submit_bio_noacct(bio);
}

static blk_status_t fault_wb_wait(struct fault_wb *wb)
{
	if (!atomic_dec_and_test(&wb->pending))
		wait_for_completion_io(&wb->done);
	return wb->status;
}

/* Blocks in one batch must not overlap: the disk may reorder the writes. */
static bool fault_wb_overlaps(struct fault_wb *wb, struct fault_cw *cw)
{
	unsigned int i;

	for (i = 0; i < wb->nr; i++)
		if (cw->sector <= fault_cw_last(wb->cw[i]) &&
		    fault_cw_last(cw) >= wb->cw[i]->sector)
			return true;
	return false;
}

/*
 * Wait for a batch and take its blocks out of the cache.  A batch that
 * failed stays, whole, at the head of the list: it is written again by
 * the next write-back, and what it holds is still read.
 */
static blk_status_t fault_wb_finish(struct fault_cache *c, struct fault_wb *wb)
{
	blk_status_t st = fault_wb_wait(wb);
	unsigned int i;
	u64 mem = 0;

	if (st) {
		c->st.wb_errors++;
		DMERR_LIMIT("%s: write-back failed: %d", fault_cache_name(c->fc),
			    blk_status_to_errno(st));
		fault_wb_init(wb);
		return st;
	}
	spin_lock(&c->lock);
	for (i = 0; i < wb->nr; i++) {
		/* the batch is the head of the list, in order */
		c->head = wb->cw[i]->next;
		if (!c->head)
			c->tail = &c->head;
		fault_it_remove(wb->cw[i], &c->tree);
		mem += fault_cw_mem(wb->cw[i]);
	}
	c->st.mem -= mem;
	c->st.blocks -= wb->nr;
	c->st.written_back += wb->nr;
	spin_unlock(&c->lock);
	for (i = 0; i < wb->nr; i++)
		fault_cw_free(c, wb->cw[i]);
	fault_wb_init(wb);
	return BLK_STS_OK;
}

/*
 * Write back the oldest blocks, in order, until no block numbered up to
 * @last is cached (U64_MAX: all) or the cache takes no more than @mem;
 * stop at the first batch that fails.  Caller: c->mutex, state on.
 * Return: that batch's error, or 0.
 */
static blk_status_t fault_cache_write_back(struct fault_cache *c, u64 last, u64 mem,
					   bool forced)
{
	struct fault_wb *wb;
	struct fault_cw *cw;
	blk_status_t st = BLK_STS_OK;
	u64 left;

	wb = kmalloc(sizeof(*wb), GFP_NOIO | __GFP_NOFAIL);
	fault_wb_init(wb);
	spin_lock(&c->lock);
	cw = c->head;
	left = c->st.mem;
	spin_unlock(&c->lock);
	while (cw && cw->wseq <= last && left > mem) {
		if (wb->nr == FAULT_WB_BATCH || fault_wb_overlaps(wb, cw)) {
			st = fault_wb_finish(c, wb);
			if (st)
				break;
		}
		fault_wb_submit(c, wb, cw, 0, cw->nr);
		wb->cw[wb->nr++] = cw;
		left -= fault_cw_mem(cw);
		if (forced)
			c->st.forced++;
		spin_lock(&c->lock);
		cw = cw->next;
		spin_unlock(&c->lock);
	}
	if (!st)
		st = fault_wb_finish(c, wb);
	else
		fault_wb_wait(wb);
	kfree(wb);
	return st;
}

/* Write back everything, then flush the disk below: what a flush does. */
static blk_status_t fault_cache_sync(struct fault_cache *c, u64 last)
{
	blk_status_t st = fault_cache_write_back(c, last, 0, false);

	if (!st && blkdev_issue_flush(c->fc->dev->bdev))
		st = BLK_STS_IOERR;
	return st;
}

/* Empty the cache: the blocks leave the tree; return their list. Caller: c->lock. */
static struct fault_cw *fault_cache_take_all(struct fault_cache *c)
{
	struct fault_cw *list = c->head;

	c->head = NULL;
	c->tail = &c->head;
	c->tree = RB_ROOT_CACHED;
	c->st.mem = 0;
	c->st.blocks = 0;
	return list;
}

/* Note lost sectors of write @w, merged with the last range of @w. */
static void fault_crash_lost(struct fault_cache *c, u64 w, sector_t sector, u64 nr)
{
	struct fault_lost *l = c->nr_lost ? &c->lost[c->nr_lost - 1] : NULL;

	c->st.lost_sectors += nr;
	if (l && l->write == w && l->sector + l->nr == sector) {
		l->nr += nr;
	} else if (c->nr_lost < FAULT_LOST_MAX) {
		l = &c->lost[c->nr_lost++];
		l->write = w;
		l->sector = sector;
		l->nr = nr;
	} else {
		c->lost_truncated = true;
	}
}

/* Does the policy keep unit @unit of write @w? */
static bool fault_crash_unit_kept(const struct fault_cache_cfg *cfg, const struct fault_cw *cw,
				  u64 w, u64 unit)
{
	if (cw->flags & FAULT_CW_FUA)
		return true;
	switch (cfg->lose) {
	case FAULT_LOSE_NONE:
		return true;
	case FAULT_LOSE_WRITES:
		return fault_crash_keeps(cfg->seed, w, 0);
	case FAULT_LOSE_SECTORS:
		/* a discard or write-zeroes is kept or lost whole */
		return fault_crash_keeps(cfg->seed, w, cw->page ? unit : 0);
	default:
		return false;
	}
}

/*
 * Apply the policy to one block: write back the runs of whole units it
 * keeps, note the rest.  Return: true if any sector was lost.
 */
static bool fault_crash_block(struct fault_cache *c, const struct fault_cache_cfg *cfg,
			      struct fault_wb *wb, struct fault_cw *cw)
{
	u64 w = cw->wseq > c->mark_wseq ? cw->wseq - c->mark_wseq : 0;
	unsigned int i = 0, n, run = 0;
	bool keep, lost = false;
	sector_t s;

	while (i <= cw->nr) {
		keep = false;
		n = 1;
		if (i < cw->nr) {
			s = cw->sector + i;
			/* to the end of the unit, or of the block */
			n = cw->page ? min_t(unsigned int, cw->nr - i, c->unit - s % c->unit) :
				cw->nr;
			keep = fault_crash_unit_kept(cfg, cw, w, s / c->unit);
		}
		if (!keep) {
			if (i > run)
				fault_wb_submit(c, wb, cw, run, i - run);
			if (i < cw->nr) {
				fault_crash_lost(c, w, cw->sector + i, n);
				lost = true;
			}
			run = i + n;
		}
		i += n;
	}
	return lost;
}

/*
 * The power fails: the blocks leave the cache, those the policy keeps are
 * written (in order, overlaps in separate batches), the rest are lost.
 * The state is already CRASHED, so no block comes in meanwhile.
 * Caller: c->mutex.
 */
static void fault_cache_crash(struct fault_cache *c, const struct fault_cache_cfg *cfg)
{
	struct fault_cw *cw, *list;
	struct fault_wb *wb;
	u64 last_lost = U64_MAX;

	spin_lock(&c->lock);
	list = fault_cache_take_all(c);
	c->st.crashes++;
	spin_unlock(&c->lock);

	c->st.lost_writes = 0;
	c->st.lost_sectors = 0;
	c->nr_lost = 0;
	c->lost_truncated = false;
	wb = kmalloc(sizeof(*wb), GFP_NOIO | __GFP_NOFAIL);
	fault_wb_init(wb);
	for (cw = list; cw; cw = cw->next) {
		if (wb->nr == FAULT_WB_BATCH || fault_wb_overlaps(wb, cw)) {
			if (fault_wb_wait(wb))
				c->st.wb_errors++;
			fault_wb_init(wb);
		}
		wb->cw[wb->nr++] = cw;
		if (fault_crash_block(c, cfg, wb, cw) && cw->wseq != last_lost) {
			c->st.lost_writes++;
			last_lost = cw->wseq;
		}
	}
	if (fault_wb_wait(wb))
		c->st.wb_errors++;
	kfree(wb);
	fault_cw_free_list(c, list);
	DMINFO("%s: crash (lose=%s seed=%llu): lost %llu writes, %llu sectors",
	       fault_cache_name(c->fc), fault_lose_name(cfg->lose), cfg->seed,
	       c->st.lost_writes, c->st.lost_sectors);
}

static void fault_cache_crash_work(struct work_struct *w)
{
	struct fault_cache *c = container_of(w, struct fault_cache, crash_work);

	mutex_lock(&c->mutex);
	fault_cache_crash(c, &c->pending);
	mutex_unlock(&c->mutex);
}

/* Queue @bio for the work, with the last write completed before it. */
static void fault_cache_defer(struct fault_cache *c, struct bio *bio, struct fault_per_bio *pb)
{
	spin_lock(&c->lock);
	pb->barrier = c->wseq;
	bio_list_add(&c->deferred, bio);
	spin_unlock(&c->lock);
	queue_work(c->wq, &c->work);
}

/* Pass @bio to the disk and wait: what follows is ordered after it. */
static blk_status_t fault_cache_pass(struct fault_c *fc, struct bio *bio)
{
	struct bio *clone = bio_alloc_clone(fc->dev->bdev, bio, GFP_NOIO, &fc->bs);
	blk_status_t st;

	submit_bio_wait(clone);
	st = clone->bi_status;
	bio_put(clone);
	return st;
}

/*
 * A write that map could not cache, with the cache on: room first, or
 * through to the disk after everything cached before it.  Return: the
 * bio's status; *@fire: a trigger fired.
 */
static blk_status_t fault_cache_deferred_write(struct fault_cache *c, struct bio *bio,
					       sector_t sector, bool *fire)
{
	unsigned int nr = bio_sectors(bio);
	u64 need = fault_cw_kind(bio) & (FAULT_CW_DISCARD | FAULT_CW_ZEROES) ?
		   sizeof(struct fault_cw) :
		   DIV_ROUND_UP(nr, FAULT_CW_SECTORS) * (PAGE_SIZE + sizeof(struct fault_cw));
	struct fault_cw *first;
	blk_status_t st;
	int r;

	if (need <= c->cfg.limit) {
		st = fault_cache_write_back(c, U64_MAX, c->cfg.limit - need, true);
		first = st ? NULL : fault_cw_alloc(c, bio, sector, nr, GFP_NOIO);
		r = first ? fault_cache_insert(c, first, bio->bi_iter.bi_size) : -ENOMEM;
		if (r >= 0) {
			*fire = r;
			return BLK_STS_OK;
		}
		if (first)
			fault_cw_free_list(c, first);
		if (r == -EIO)
			return BLK_STS_IOERR;
	}
	/* larger than the cache, or no memory: write it through */
	st = fault_cache_write_back(c, U64_MAX, 0, false);
	st = st ?: fault_cache_pass(c->fc, bio);
	if (!st) {
		spin_lock(&c->lock);
		if (c->state == FAULT_CACHE_ON) {
			c->wseq++;
			*fire = fault_cache_count_write(c, bio->bi_iter.bi_size);
		}
		spin_unlock(&c->lock);
	}
	return st;
}

/*
 * A flush, or a write with a preflush, with the cache on: write back what
 * completed before it reached the target, flush the disk, then the write's
 * data as any write.  *@fire: a trigger fired; the flush itself completes.
 */
static blk_status_t fault_cache_deferred_flush(struct fault_cache *c, struct bio *bio,
					       struct fault_per_bio *pb, sector_t sector,
					       bool *fire)
{
	blk_status_t st = fault_cache_sync(c, pb->barrier);

	if (st)
		return st;
	spin_lock(&c->lock);
	c->st.flushes++;
	c->since_flushes++;
	if (c->cfg.after == FAULT_TRIG_FLUSH && c->since_flushes >= c->cfg.after_n &&
	    c->state == FAULT_CACHE_ON) {
		fault_cache_fire(c);
		*fire = true;
	}
	spin_unlock(&c->lock);
	if (!bio_sectors(bio) || *fire)
		return *fire && bio_sectors(bio) ? BLK_STS_IOERR : BLK_STS_OK;
	return fault_cache_deferred_write(c, bio, sector, fire);
}

/*
 * A write while recording or viewing that map could not take: with
 * memory the work may wait for, or it fails (the recording overflows).
 */
static blk_status_t fault_cache_deferred_record(struct fault_cache *c, struct bio *bio,
						sector_t sector)
{
	struct fault_cw *first;
	bool ok = true;

	if (bio->bi_opf & REQ_PREFLUSH) {
		spin_lock(&c->lock);
		ok = fault_rec_flush(c);
		spin_unlock(&c->lock);
		if (!ok)
			return BLK_STS_IOERR;
		if (!bio_sectors(bio))
			return BLK_STS_OK;
	}
	first = fault_cw_alloc(c, bio, sector, bio_sectors(bio), GFP_NOIO);
	if (first && !fault_cache_insert(c, first, bio->bi_iter.bi_size))
		return BLK_STS_OK;
	if (first) {
		fault_cw_free_list(c, first);
	} else {
		spin_lock(&c->lock);
		fault_cache_overflow(c, "no memory");
		spin_unlock(&c->lock);
	}
	if (READ_ONCE(c->state) == FAULT_CACHE_VIEW)
		DMWARN_LIMIT("%s: view: a write of the check passes the cache's limit",
			     fault_cache_name(c->fc));
	return BLK_STS_IOERR;
}

/* Read what the disk has, then lay the cache over it. */
static blk_status_t fault_cache_deferred_read(struct fault_cache *c, struct bio *bio,
					      sector_t sector)
{
	blk_status_t st = fault_cache_pass(c->fc, bio);

	if (!st) {
		spin_lock(&c->lock);
		if (c->state == FAULT_CACHE_CRASHED)
			st = BLK_STS_IOERR;
		else
			fault_cache_overlay(c, bio, sector, bio_sectors(bio), true);
		spin_unlock(&c->lock);
	}
	return st;
}

/* A bio that a rule acts on: after the cache, as without one. */
static void fault_cache_deferred_act(struct fault_cache *c, struct bio *bio,
				     struct fault_per_bio *pb)
{
	blk_status_t st = fault_cache_write_back(c, U64_MAX, 0, false);

	if (st) {
		bio->bi_status = st;
		bio_endio(bio);
		return;
	}
	if (fault_act(c->fc, pb, bio) == DM_MAPIO_REMAPPED) {
		bio->bi_status = fault_cache_pass(c->fc, bio);
		bio_endio(bio);
	}
}

/* Run one deferred bio.  Caller: c->mutex. */
static void fault_cache_run(struct fault_cache *c, struct bio *bio)
{
	struct fault_per_bio *pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));
	sector_t sector = bio->bi_iter.bi_sector - c->fc->start;
	enum fault_cache_state state = READ_ONCE(c->state);
	bool fire = false;
	blk_status_t st;

	if (state == FAULT_CACHE_CRASHED) {
		st = BLK_STS_IOERR;
	} else if (state == FAULT_CACHE_OFF) {
		st = fault_cache_pass(c->fc, bio);
	} else if (pb->rule && state == FAULT_CACHE_ON) {
		fault_cache_deferred_act(c, bio, pb);
		return;
	} else if (pb->op == FAULT_OP_READ) {
		st = fault_cache_deferred_read(c, bio, sector);
	} else if (state != FAULT_CACHE_ON) {
		st = pb->op == FAULT_OP_OTHER ? BLK_STS_NOTSUPP :
		     fault_cache_deferred_record(c, bio, sector);
	} else if (bio->bi_opf & REQ_PREFLUSH) {
		st = fault_cache_deferred_flush(c, bio, pb, sector, &fire);
	} else if (pb->op == FAULT_OP_OTHER) {
		st = fault_cache_write_back(c, U64_MAX, 0, false);
		st = st ?: fault_cache_pass(c->fc, bio);
	} else {
		st = fault_cache_deferred_write(c, bio, sector, &fire);
	}
	bio->bi_status = st;
	bio_endio(bio);
	/* the bio that fired the crash completed first, as the trigger says */
	if (fire)
		fault_cache_crash(c, &c->pending);
}

static void fault_cache_work(struct work_struct *w)
{
	struct fault_cache *c = container_of(w, struct fault_cache, work);
	struct bio *bio;

	for (;;) {
		spin_lock(&c->lock);
		bio = bio_list_pop(&c->deferred);
		spin_unlock(&c->lock);
		if (!bio)
			break;
		mutex_lock(&c->mutex);
		fault_cache_run(c, bio);
		mutex_unlock(&c->mutex);
	}
}

static int fault_cache_end(struct bio *bio, blk_status_t st)
{
	bio->bi_status = st;
	bio_endio(bio);
	return DM_MAPIO_SUBMITTED;
}

/*
 * Take a write (or a flush while recording or viewing) in map: 0 if done,
 * -1 if it must wait for the work.  With the cache on a flush writes back,
 * which only the work may do.
 */
static int fault_cache_map_write(struct fault_cache *c, struct bio *bio, sector_t sector)
{
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct fault_cw *first;
	bool ok = false;
	int r;

	if (bio->bi_opf & REQ_PREFLUSH) {
		spin_lock(&c->lock);
		ok = fault_rec_flush(c);
		spin_unlock(&c->lock);
		if (!ok)
			return -1;
		if (!bio_sectors(bio)) {
			fault_cache_end(bio, BLK_STS_OK);
			return 0;
		}
	}
	first = fault_cw_alloc(c, bio, sector, bio_sectors(bio), gfp);
	if (!first)
		return -1;
	r = fault_cache_insert(c, first, bio->bi_iter.bi_size);
	if (r < 0) {
		fault_cw_free_list(c, first);
		return -1;
	}
	fault_cache_end(bio, BLK_STS_OK);
	if (r == 1)
		queue_work(c->wq, &c->crash_work);
	return 0;
}

/* A read in map: 1 if the cache had it all, 0 if none, -1 if part, -EIO: crashed. */
static int fault_cache_map_read(struct fault_cache *c, struct bio *bio, sector_t sector)
{
	unsigned int nr = bio_sectors(bio), held;
	int r = 0;

	spin_lock(&c->lock);
	if (c->state == FAULT_CACHE_CRASHED) {
		r = -EIO;
	} else if (c->st.blocks && fault_it_iter_first(&c->tree, sector, sector + nr - 1)) {
		held = fault_cache_overlay(c, bio, sector, nr, false);
		r = held ? -1 : 0;
		if (held == nr) {
			fault_cache_overlay(c, bio, sector, nr, true);
			r = 1;
		}
	}
	spin_unlock(&c->lock);
	return r;
}

/**
 * fault_cache_map - the cache's part of map, after the rules
 * @fc: the device, with a cache
 * @pb: the bio's per-bio data (pb->rule: a rule fired)
 * @bio: remapped to the disk below
 * @sector: the bio's first sector, relative to the target
 *
 * While recording or viewing, a rule's error and drop act as always and a
 * read corruption acts on what the read returns; delays, stalls, write
 * corruption and torn writes, which would reach the disk below, are not
 * applied.
 *
 * Return: a DM_MAPIO_* value, or -1 to go on as without a cache.
 */
int fault_cache_map(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio,
		    sector_t sector)
{
	struct fault_cache *c = fc->cache;
	enum fault_cache_state state = READ_ONCE(c->state);
	enum fault_action action;
	int r;

	if (state == FAULT_CACHE_CRASHED)
		return fault_cache_end(bio, BLK_STS_IOERR);
	if (state == FAULT_CACHE_OFF)
		return -1;
	if (pb->rule) {
		/* error and drop never reach the disk: no order to keep */
		action = pb->rule->cfg.action;
		if (action == FAULT_ACT_ERROR || action == FAULT_ACT_DROP)
			return -1;
	}
	if (pb->rule && state == FAULT_CACHE_ON) {
		/* after the cache, in the work */
	} else if (pb->op == FAULT_OP_READ) {
		r = fault_cache_map_read(c, bio, sector);
		if (r == -EIO)
			return fault_cache_end(bio, BLK_STS_IOERR);
		if (r >= 0)
			return r ? fault_cache_end(bio, BLK_STS_OK) : DM_MAPIO_REMAPPED;
	} else if (pb->op != FAULT_OP_OTHER && state != FAULT_CACHE_DRAIN) {
		if (!fault_cache_map_write(c, bio, sector))
			return DM_MAPIO_SUBMITTED;
	}
	if (bio->bi_opf & REQ_NOWAIT)
		return fault_cache_end(bio, BLK_STS_AGAIN);
	fault_cache_defer(c, bio, pb);
	return DM_MAPIO_SUBMITTED;
}

static void fault_cache_set_state(struct fault_cache *c, enum fault_cache_state state)
{
	spin_lock(&c->lock);
	c->state = state;
	spin_unlock(&c->lock);
}

/* A limit the machine can give (the parser checked the lower bound), or why not. */
static char *fault_cache_limit_error(u64 limit)
{
	if (limit > (u64)totalram_pages() << PAGE_SHIFT >> 1)
		return "Cache limit is more than half the memory";
	return NULL;
}

/* The tearing unit in sectors for @unit bytes (0: the logical block), or 0 and why not. */
static unsigned int fault_cache_unit(struct fault_c *fc, u32 unit, char **error)
{
	unsigned int lbs = bdev_logical_block_size(fc->dev->bdev);

	if (unit && unit < lbs) {
		*error = "Tearing unit is smaller than the disk's logical block";
		return 0;
	}
	return (unit ?: lbs) >> SECTOR_SHIFT;
}

/**
 * fault_cache_create - give a device a cache, on
 * @fc: the device; fc->cache must be NULL
 * @cfg: limit, tearing unit and trigger
 * @error: the reason on failure
 *
 * Return: 0 or -errno.
 */
int fault_cache_create(struct fault_c *fc, const struct fault_cache_cfg *cfg, char **error)
{
	struct fault_cache *c;
	unsigned int unit;
	char *why;

	if (!fc->dev) {
		*error = "fault-error has no disk to cache";
		return -EINVAL;
	}
	why = fault_cache_limit_error(cfg->limit);
	unit = why ? 0 : fault_cache_unit(fc, cfg->unit, &why);
	if (why) {
		*error = why;
		return -EINVAL;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		goto nomem;
	c->lost = kvcalloc(FAULT_LOST_MAX, sizeof(*c->lost), GFP_KERNEL);
	c->wq = alloc_ordered_workqueue("dm-fault-cache", WQ_MEM_RECLAIM);
	if (!c->lost || !c->wq) {
		kvfree(c->lost);
		if (c->wq)
			destroy_workqueue(c->wq);
		kfree(c);
		goto nomem;
	}
	c->fc = fc;
	spin_lock_init(&c->lock);
	mutex_init(&c->mutex);
	c->tree = RB_ROOT_CACHED;
	c->tail = &c->head;
	INIT_LIST_HEAD(&c->pool);
	c->cfg = *cfg;
	c->unit = unit;
	bio_list_init(&c->deferred);
	INIT_WORK(&c->work, fault_cache_work);
	INIT_WORK(&c->crash_work, fault_cache_crash_work);
	c->state = FAULT_CACHE_ON;
	/* map reads fc->cache without a lock: publish it whole */
	smp_store_release(&fc->cache, c);
	fault_map_bits_update(fc);
	return 0;

nomem:
	*error = "Cannot allocate the cache";
	return -ENOMEM;
}

/* Deferred bios and a fired crash have run. */
static void fault_cache_quiesce(struct fault_cache *c)
{
	flush_workqueue(c->wq);
}

/*
 * postsuspend: no bio is in flight and none comes until resume; write
 * the cache back, so that a table reload or a remove loses nothing that
 * was acknowledged.  A crashed cache has nothing left to write, and a
 * recording is never written.
 */
void fault_cache_postsuspend(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;

	if (!c)
		return;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->state == FAULT_CACHE_ON && fault_cache_sync(c, U64_MAX))
		DMERR("%s: suspend: %llu cached blocks could not be written back",
		      fault_cache_name(fc), c->st.blocks);
	mutex_unlock(&c->mutex);
}

/* Let a recording go: its blocks, barriers and marks. Caller: c->mutex. */
static void fault_rec_drop(struct fault_cache *c)
{
	struct fault_rec *rec = c->rec;
	struct fault_cw *list;

	spin_lock(&c->lock);
	list = fault_cache_take_all(c);
	c->rec = NULL;
	spin_unlock(&c->lock);
	fault_cw_free_list(c, list);
	if (rec) {
		kvfree(rec->barriers);
		kfree(rec->marks);
		kfree(rec);
	}
}

void fault_cache_destroy(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;

	if (!c)
		return;
	fault_cache_quiesce(c);
	destroy_workqueue(c->wq);
	/* postsuspend wrote back what a live table had, or said what it could not */
	fault_rec_drop(c);
	fault_pool_drain(c);
	kvfree(c->lost);
	kfree(c);
	fc->cache = NULL;
}

/*
 * The totals, then up to @max lost ranges, one a line: the write's number
 * since the mark, its first lost sector and the count.  Caller: c->mutex.
 */
static void fault_cache_emit_lost(struct fault_cache *c, unsigned int max, char *result,
				  unsigned int maxlen)
{
	unsigned int sz = 0, i, n = min(c->nr_lost, max);

	DMEMIT("lost_writes=%llu lost_sectors=%llu ranges=%u%s\n", c->st.lost_writes,
	       c->st.lost_sectors, c->nr_lost, c->lost_truncated ? "+" : "");
	for (i = 0; i < n; i++)
		DMEMIT("%llu %llu+%llu\n", c->lost[i].write, (unsigned long long)c->lost[i].sector,
		       c->lost[i].nr);
	if (n < c->nr_lost)
		DMEMIT("...\n");
}

/* crash while recording or viewing: the power fails, the recording stays. */
static int fault_cache_rec_crash(struct fault_cache *c, char *result, unsigned int maxlen)
{
	unsigned int sz = 0;

	spin_lock(&c->lock);
	if (c->state != FAULT_CACHE_VIEW)
		c->rec->end = c->tail;
	c->state = FAULT_CACHE_CRASHED;
	c->st.crashes++;
	spin_unlock(&c->lock);
	DMEMIT("recorded writes=%llu flushes=%u marks=%u\n", c->st.recorded,
	       c->rec->nr_barriers, c->rec->nr_marks);
	return 1;
}

/* crash: now, or armed for a trigger (after=none disarms) */
static int fault_cache_msg_crash(struct fault_c *fc, const struct fault_msg *m, char *result,
				 unsigned int maxlen)
{
	struct fault_cache *c = fc->cache;
	struct fault_cache_cfg cfg = c->cfg;
	const char *error = NULL;
	bool now;
	int r = 0;

	/* the policy and seed the cache has, unless named; no after=: now */
	fault_cache_cfg_apply(&cfg, &m->cache, m->keys | FAULT_CKEY_AFTER);
	now = cfg.after == FAULT_NR_TRIGGERS;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->rec && c->state != FAULT_CACHE_CRASHED) {
		if (now)
			r = fault_cache_rec_crash(c, result, maxlen);
		else
			error = "a trigger needs the cache on, not recording";
		goto out;
	}
	spin_lock(&c->lock);
	if (c->state != FAULT_CACHE_ON) {
		error = fault_cache_state_names[c->state];
	} else if (!now) {
		/* armed (or disarmed): counted from the last mark */
		c->cfg.after = cfg.after;
		c->cfg.after_n = cfg.after_n;
		c->cfg.lose = cfg.lose;
		c->cfg.seed = cfg.seed;
	} else {
		c->state = FAULT_CACHE_CRASHED;
		c->cfg.after = FAULT_TRIG_NONE;
	}
	spin_unlock(&c->lock);
	if (!error && now) {
		fault_cache_crash(c, &cfg);
		fault_cache_emit_lost(c, FAULT_LOST_REPLY, result, maxlen);
		r = 1;
	}
out:
	mutex_unlock(&c->mutex);
	if (error && c->rec)
		DMWARN("%s: crash: %s", fault_cache_name(fc), error);
	else if (error)
		DMWARN("%s: crash: the cache is %s", fault_cache_name(fc), error);
	return error ? -EINVAL : r;
}

static int fault_cache_msg_on(struct fault_c *fc, const struct fault_msg *m)
{
	struct fault_cache *c = fc->cache;
	const struct fault_cache_cfg *cfg = &m->cache;
	char *error = NULL;
	unsigned int unit = 0;
	int r;

	if (!c) {
		mutex_lock(&fc->lock);
		r = fc->cache ? 0 : fault_cache_create(fc, cfg, &error);
		mutex_unlock(&fc->lock);
		if (r)
			goto bad;
		return 0;
	}
	error = fault_cache_limit_error(cfg->limit);
	if (!error && (m->keys & FAULT_CKEY_UNIT))
		unit = fault_cache_unit(fc, cfg->unit, &error);
	if (error)
		goto bad;
	mutex_lock(&c->mutex);
	spin_lock(&c->lock);
	if (c->rec) {
		error = "The cache holds a recording: recover first";
	} else if (c->state == FAULT_CACHE_CRASHED) {
		error = "The cache has crashed: recover first";
	} else {
		c->cfg.limit = cfg->limit;
		if (unit)
			c->unit = unit;
		c->state = FAULT_CACHE_ON;
	}
	spin_unlock(&c->lock);
	mutex_unlock(&c->mutex);
	if (!error)
		return 0;
bad:
	DMWARN("%s: cache on: %s", fault_cache_name(fc), error);
	return -EINVAL;
}

static int fault_cache_msg_off(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;
	const char *error = NULL;

	mutex_lock(&c->mutex);
	if (c->rec) {
		error = "The cache holds a recording: recover first";
	} else if (c->state == FAULT_CACHE_CRASHED) {
		error = "The cache has crashed: recover first";
	} else if (c->state == FAULT_CACHE_ON) {
		/* writes that map cannot cache wait for the mutex, then pass */
		fault_cache_set_state(c, FAULT_CACHE_DRAIN);
		if (fault_cache_sync(c, U64_MAX)) {
			error = "write-back failed: the cache stays on";
			fault_cache_set_state(c, FAULT_CACHE_ON);
		} else {
			fault_cache_set_state(c, FAULT_CACHE_OFF);
			fault_pool_drain(c);
		}
	}
	mutex_unlock(&c->mutex);
	return fault_cache_refuse(fc, "cache off", error);
}

static int fault_cache_msg_recover(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;
	int r = 0;

	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->rec && (c->state == FAULT_CACHE_CRASHED || c->state == FAULT_CACHE_VIEW))
		fault_rec_drop(c);
	if (c->state == FAULT_CACHE_CRASHED || (c->state == FAULT_CACHE_VIEW && !c->rec))
		fault_cache_set_state(c, FAULT_CACHE_ON);
	else
		r = -EINVAL;
	mutex_unlock(&c->mutex);
	if (r)
		DMWARN("%s: recover: the cache has not crashed", fault_cache_name(fc));
	return r;
}

/* mark: a step of a recording, or (cache on) the start of a count, setup's writes on the disk */
static int fault_cache_msg_mark(struct fault_c *fc, const struct fault_msg *m)
{
	struct fault_cache *c = fc->cache;
	struct fault_rec_mark *mk;
	const char *error = NULL;

	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->state == FAULT_CACHE_ON && fault_cache_write_back(c, U64_MAX, 0, false))
		error = "write-back failed";
	spin_lock(&c->lock);
	if (error) {
		/* said below */
	} else if (c->state == FAULT_CACHE_RECORD || c->state == FAULT_CACHE_OVERFLOW) {
		if (c->rec->nr_marks == FAULT_REC_MARKS) {
			error = "too many marks (at most 256)";
		} else {
			mk = &c->rec->marks[c->rec->nr_marks++];
			mk->after = c->wseq - c->rec->base;
			strscpy(mk->label, m->label ?: "-", sizeof(mk->label));
		}
	} else {
		c->since_flushes = 0;
		c->since_writes = 0;
		c->since_bytes = 0;
		c->mark_wseq = c->wseq;
	}
	spin_unlock(&c->lock);
	mutex_unlock(&c->mutex);
	return fault_cache_refuse(fc, "mark", error);
}

/* record: write the cache back, then keep every write and write none back */
static int fault_cache_msg_record(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;
	const char *error = NULL;
	struct fault_rec *rec;
	int r;

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (rec) {
		rec->barriers = kvcalloc(FAULT_REC_FLUSHES, sizeof(*rec->barriers), GFP_KERNEL);
		rec->marks = kcalloc(FAULT_REC_MARKS, sizeof(*rec->marks), GFP_KERNEL);
	}
	if (!rec || !rec->barriers || !rec->marks) {
		fault_cache_refuse(fc, "record", "Cannot allocate the recording");
		r = -ENOMEM;
		goto out;
	}
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->rec || c->state != FAULT_CACHE_ON)
		error = c->rec ? "the cache holds a recording: recover first" :
			"the cache is not on";
	else if (fault_cache_sync(c, U64_MAX))
		error = "write-back failed";
	spin_lock(&c->lock);
	if (!error && c->state != FAULT_CACHE_ON)
		error = "the cache is not on";
	if (!error) {
		rec->base = c->wseq;
		c->rec = rec;
		c->st.recorded = 0;
		c->state = FAULT_CACHE_RECORD;
		rec = NULL;
	}
	spin_unlock(&c->lock);
	mutex_unlock(&c->mutex);
	r = fault_cache_refuse(fc, "record", error);
out:
	if (rec) {
		kvfree(rec->barriers);
		kfree(rec->marks);
		kfree(rec);
	}
	return r;
}

static const char *fault_cw_kind_name(u32 flags)
{
	if (flags & FAULT_CW_DISCARD)
		return "discard";
	if (flags & FAULT_CW_ZEROES)
		return "zeroes";
	return flags & FAULT_CW_FUA ? "fua" : "write";
}

/* The flush and mark lines after write @w (0: before the first write). */
static void fault_rec_emit_after(struct fault_rec *rec, u64 w, unsigned int *bi, unsigned int *mi,
				 char *result, unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz;

	while (*bi < rec->nr_barriers && rec->barriers[*bi] <= w) {
		if (rec->barriers[*bi] == w)
			DMEMIT("f %llu\n", w);
		(*bi)++;
	}
	while (*mi < rec->nr_marks && rec->marks[*mi].after <= w) {
		if (rec->marks[*mi].after == w)
			DMEMIT("m %llu %s\n", w, rec->marks[*mi].label);
		(*mi)++;
	}
	*psz = sz;
}

/*
 * record list <from>: the recording's counts, then writes from..from+1023
 * with the flushes and marks after them, then "next <n>" or "end".  The
 * blocks of one write are consecutive on the list and make one line.
 * Caller: c->mutex (the recording stays).
 */
static void fault_rec_list(struct fault_cache *c, u64 from, char *result, unsigned int maxlen)
{
	struct fault_rec *rec = c->rec;
	unsigned int sz = 0, bi = 0, mi = 0, n = 0;
	struct fault_cw *cw, *first;
	u64 w, nr;

	spin_lock(&c->lock);
	DMEMIT("writes=%llu flushes=%u marks=%u unit=%u overflow=%d\n", c->st.recorded,
	       rec->nr_barriers, rec->nr_marks, c->unit, rec->overflow);
	if (from == 1) {
		fault_rec_emit_after(rec, 0, &bi, &mi, result, maxlen, &sz);
	} else {
		while (bi < rec->nr_barriers && rec->barriers[bi] < from)
			bi++;
		while (mi < rec->nr_marks && rec->marks[mi].after < from)
			mi++;
	}
	cw = rec->cursor && rec->cursor_write <= from ? rec->cursor : c->head;
	while (cw && !(cw->flags & FAULT_CW_SCRATCH) && n < FAULT_REC_PAGE) {
		first = cw;
		w = cw->wseq - rec->base;
		for (nr = 0; cw && cw->wseq == first->wseq; cw = cw->next)
			nr += cw->nr;
		if (w < from)
			continue;
		DMEMIT("w %llu %llu %llu %s\n", w, (unsigned long long)first->sector, nr,
		       fault_cw_kind_name(first->flags));
		fault_rec_emit_after(rec, w, &bi, &mi, result, maxlen, &sz);
		n++;
	}
	if (cw && !(cw->flags & FAULT_CW_SCRATCH)) {
		rec->cursor = cw;
		rec->cursor_write = cw->wseq - rec->base;
		DMEMIT("next %llu\n", rec->cursor_write);
	} else {
		DMEMIT("end\n");
	}
	spin_unlock(&c->lock);
}

/*
 * Set the view's marks on the recorded blocks (list order is write order,
 * the ranges and tears ascend: one pass) and throw the scratch away.
 * Return: the scratch blocks, to free.  Caller: c->lock.
 */
static struct fault_cw *fault_view_apply(struct fault_cache *c, const struct fault_view *v)
{
	struct fault_rec *rec = c->rec;
	struct fault_cw *cw, *scratch = *rec->end;
	unsigned int ri = 0, ti = 0;
	u64 w;

	*rec->end = NULL;
	c->tail = rec->end;
	for (cw = scratch; cw; cw = cw->next) {
		fault_it_remove(cw, &c->tree);
		c->st.mem -= fault_cw_mem(cw);
		c->st.blocks--;
	}
	for (cw = c->head; cw; cw = cw->next) {
		w = cw->wseq - rec->base;
		while (ri < v->nr_ranges && v->ranges[ri].last < w)
			ri++;
		while (ti < v->nr_tears && v->tears[ti].write < w)
			ti++;
		cw->flags &= ~(FAULT_CW_KEPT | FAULT_CW_TORN);
		if (v->all || (ri < v->nr_ranges && v->ranges[ri].first <= w))
			cw->flags |= FAULT_CW_KEPT;
		if (ti < v->nr_tears && v->tears[ti].write == w)
			cw->flags |= FAULT_CW_TORN;
	}
	rec->nr_tears = v->nr_tears;
	memcpy(rec->tears, v->tears, v->nr_tears * sizeof(v->tears[0]));
	c->state = FAULT_CACHE_VIEW;
	return scratch;
}

/* view keep=<list> [tear=<list>]: one crash state of the recording */
static int fault_cache_msg_view(struct fault_c *fc, const struct fault_msg *m)
{
	struct fault_cache *c = fc->cache;
	struct fault_view *v;
	struct fault_cw *scratch = NULL;
	const char *error = NULL;
	bool nomem;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v || fault_view_parse(v, m->keep, m->tear, &error))
		goto out;
	v->ranges = kvmalloc_array(max(v->nr_ranges, 1U), sizeof(*v->ranges), GFP_KERNEL);
	if (!v->ranges || fault_view_parse(v, m->keep, m->tear, &error))
		goto out;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	spin_lock(&c->lock);
	if (!c->rec || (c->state != FAULT_CACHE_CRASHED && c->state != FAULT_CACHE_VIEW))
		error = c->rec ? "crash the recording first" : "no recording";
	else
		scratch = fault_view_apply(c, v);
	spin_unlock(&c->lock);
	fault_cw_free_list(c, scratch);
	mutex_unlock(&c->mutex);
out:
	nomem = !error && (!v || !v->ranges);
	if (v)
		kvfree(v->ranges);
	kfree(v);
	if (nomem) {
		fault_cache_refuse(fc, "view", "Cannot allocate the view");
		return -ENOMEM;
	}
	return fault_cache_refuse(fc, "view", error);
}

/* A cache message the parser refused with @error, or one that needs a cache there is not. */
/* record list <from>: there must be a recording */
static int fault_cache_msg_list(struct fault_c *fc, const struct fault_msg *m, char *result,
				unsigned int maxlen)
{
	struct fault_cache *c = fc->cache;
	bool have;

	mutex_lock(&c->mutex);
	have = c->rec;
	if (have)
		fault_rec_list(c, m->from, result, maxlen);
	mutex_unlock(&c->mutex);
	return have ? 1 : fault_cache_refuse(fc, "record list", "no recording");
}

/**
 * fault_cache_message - the cache's messages
 * @fc: the device
 * @m: from fault_msg_parse(), m->cmd FAULT_MSG_CACHE_ON or later: "cache on
 *     [limit=<size>] [unit=<size>]", "cache off", "crash [lose=<policy>]
 *     [seed=<n>] [after=<flush|write|bytes>:<n>]", "mark [<label>]",
 *     "recover", "lost", "record", "record list <from>", "view keep=<list>
 *     [tear=<list>]"
 * @result: reply buffer
 * @maxlen: its size
 *
 * A message for a cache the device does not have is refused for that.
 *
 * Return: as a target's .message.
 */
int fault_cache_message(struct fault_c *fc, const struct fault_msg *m, char *result,
			unsigned int maxlen)
{
	/* pairs with the release in fault_cache_create() */
	struct fault_cache *c = smp_load_acquire(&fc->cache);

	if (!c && m->cmd != FAULT_MSG_CACHE_ON) {
		DMWARN("%s: %s: the cache is off", fault_cache_name(fc),
		       m->cmd == FAULT_MSG_CACHE_OFF ? "cache" : fault_msg_name(m->cmd));
		return -EINVAL;
	}
	switch (m->cmd) {
	case FAULT_MSG_CACHE_ON:
		return fault_cache_msg_on(fc, m);
	case FAULT_MSG_CACHE_OFF:
		return fault_cache_msg_off(fc);
	case FAULT_MSG_CRASH:
		return fault_cache_msg_crash(fc, m, result, maxlen);
	case FAULT_MSG_MARK:
		return fault_cache_msg_mark(fc, m);
	case FAULT_MSG_RECOVER:
		return fault_cache_msg_recover(fc);
	case FAULT_MSG_RECORD:
		return fault_cache_msg_record(fc);
	case FAULT_MSG_RECORD_LIST:
		return fault_cache_msg_list(fc, m, result, maxlen);
	case FAULT_MSG_VIEW:
		return fault_cache_msg_view(fc, m);
	default:
		mutex_lock(&c->mutex);
		fault_cache_emit_lost(c, FAULT_LOST_MAX, result, maxlen);
		mutex_unlock(&c->mutex);
		return 1;
	}
}

/**
 * fault_cache_snapshot - the cache's state and counters, read at once
 * @fc: the device
 * @v: filled in, indexed by enum fault_cache_stat
 *
 * Return: the state's name, or NULL without a cache.
 */
const char *fault_cache_snapshot(struct fault_c *fc, u64 *v)
{
	/* pairs with the release in fault_cache_create() */
	struct fault_cache *c = smp_load_acquire(&fc->cache);
	enum fault_cache_state state;

	if (!c)
		return NULL;
	spin_lock(&c->lock);
	state = c->state;
	v[FAULT_CS_BLOCKS] = c->st.blocks;
	v[FAULT_CS_BYTES] = c->st.mem;
	v[FAULT_CS_HIGH_WATER] = c->st.hwm;
	v[FAULT_CS_LIMIT] = c->cfg.limit;
	v[FAULT_CS_WRITES] = c->st.writes;
	v[FAULT_CS_FLUSHES] = c->st.flushes;
	v[FAULT_CS_FUA] = c->st.fua;
	v[FAULT_CS_FORCED] = c->st.forced;
	v[FAULT_CS_WRITTEN_BACK] = c->st.written_back;
	v[FAULT_CS_CRASHES] = c->st.crashes;
	v[FAULT_CS_LOST_WRITES] = c->st.lost_writes;
	v[FAULT_CS_LOST_SECTORS] = c->st.lost_sectors;
	v[FAULT_CS_RECORDED] = c->st.recorded;
	spin_unlock(&c->lock);
	return fault_cache_state_names[state];
}

/* The table's feature words: " <n> cache" and the options that differ. */
void fault_cache_table(struct fault_c *fc, char *result, unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz;
	char feature[160];

	if (fc->cache_in_table) {
		fault_cache_feature_format(&fc->cache_table, feature, sizeof(feature));
		DMEMIT("%s", feature);
	}
	*psz = sz;
}

int __init fault_cache_init(void)
{
	/* a cached 4 KiB write costs its page and 72 bytes */
	BUILD_BUG_ON(sizeof(struct fault_cw) > 72);
	fault_cw_cache = KMEM_CACHE(fault_cw, 0);
	return fault_cw_cache ? 0 : -ENOMEM;
}

void fault_cache_exit(void)
{
	kmem_cache_destroy(fault_cw_cache);
}
