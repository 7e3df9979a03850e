// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault's volatile write cache: power-cut emulation.
 *
 * With the cache on, a write that no rule acts on completes as soon as its
 * data is copied here, as a disk with a volatile write cache acknowledges it.
 * Reads see the newest data, cached or on disk.  A flush writes back every
 * cached block and then flushes the disk below, so it makes durable every
 * write that completed before it was issued.  A FUA write, a discard, a
 * write-zeroes and a bio that a rule delays, stalls, corrupts or tears first
 * write the cache back the same way and then go to the disk: a real disk may
 * write back early, so this shows fewer crash states, never an impossible one.
 *
 * A crash (the "crash" message, or a trigger after the n-th flush, write or
 * byte since "mark") decides by a policy and a seed which cached writes, or
 * which sectors of them, reach the disk; the rest are lost and listed.  Then
 * every bio fails with EIO until "recover".  The decisions hash the seed
 * with the write's number since the mark and the sector, so the same seed
 * and the same sequence of writes give the same crash.
 *
 * A write is cached as blocks of at most a page: a page of data and a
 * 64-byte struct fault_cw.  Blocks are in an rb-tree by (sector, write
 * number), for O(log n) lookups, and on a list in write order, the order of
 * write-back.  Overlapping writes are all kept, the newest wins on read: a
 * crash may keep an older write and lose a newer one, as a disk can.  When
 * the blocks would take more memory than the limit, the oldest are written
 * back first (counted as forced); when memory for a block cannot be had the
 * write goes through to the disk.  Nothing acknowledged is dropped for lack
 * of memory.
 *
 * Locking: c->lock covers the tree, the list, the state and the counters; it
 * is held for lookups, inserts and copies of at most one bio's data.
 * c->mutex serialises everything that writes to the disk: the work item that
 * runs deferred bios, crash, recover, "cache off" and postsuspend.  Blocks
 * leave the tree only under c->mutex once their write-back has completed, so
 * a read that finds no cached block in map can go straight to the disk.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

#define FAULT_CW_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
/* memory a block takes, counted against the limit */
#define FAULT_CW_MEM		(PAGE_SIZE + sizeof(struct fault_cw))
/* write-back bios in flight at once */
#define FAULT_WB_BATCH		64
/* lost ranges kept from the last crash, and listed in its reply */
#define FAULT_LOST_MAX		1024
#define FAULT_LOST_REPLY	32

/* One cached block: up to a page of one write. */
struct fault_cw {
	struct rb_node node;		/* in c->tree by (sector, wseq) */
	struct fault_cw *next;		/* c->head list, oldest first */
	struct page *page;
	sector_t sector;		/* relative to the target */
	u64 wseq;			/* the write's number: newer is larger */
	unsigned int nr;		/* sectors, 1 to FAULT_CW_SECTORS */
};

enum fault_cache_state {
	FAULT_CACHE_OFF,		/* nothing cached; bios pass */
	FAULT_CACHE_ON,
	FAULT_CACHE_DRAIN,		/* "cache off": writes wait for write-back */
	FAULT_CACHE_CRASHED,		/* every bio fails until recover */
};

static const char * const fault_cache_state_names[] = {
	[FAULT_CACHE_OFF] = "off",
	[FAULT_CACHE_ON] = "on",
	[FAULT_CACHE_DRAIN] = "off",
	[FAULT_CACHE_CRASHED] = "crashed",
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
	u64 lost_writes, lost_sectors;
};

struct fault_cache {
	struct fault_c *fc;
	spinlock_t lock;		/* the tree, list, state and counters */
	enum fault_cache_state state;
	struct rb_root tree;
	struct fault_cw *head, **tail;
	struct list_head pool;		/* free pages kept for new blocks */
	unsigned long pool_nr;
	struct fault_cache_cfg cfg;	/* limit, and the armed trigger */
	u64 wseq, mark_wseq;
	u64 since_flushes, since_writes, since_bytes;
	struct fault_cache_stats st;

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

static u64 fault_cw_last(const struct fault_cw *cw)
{
	return cw->sector + cw->nr - 1;
}

static bool fault_cw_less(struct rb_node *a, const struct rb_node *b)
{
	const struct fault_cw *x = rb_entry(a, struct fault_cw, node);
	const struct fault_cw *y = rb_entry(b, struct fault_cw, node);

	return x->sector < y->sector || (x->sector == y->sector && x->wseq < y->wseq);
}

/* The first block that starts at or after @sector. */
static struct fault_cw *fault_cw_from(struct fault_cache *c, sector_t sector)
{
	struct rb_node *n = c->tree.rb_node;
	struct fault_cw *cw, *found = NULL;

	while (n) {
		cw = rb_entry(n, struct fault_cw, node);
		if (cw->sector >= sector) {
			found = cw;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return found;
}

static struct fault_cw *fault_cw_next(struct fault_cw *cw)
{
	struct rb_node *n = rb_next(&cw->node);

	return n ? rb_entry(n, struct fault_cw, node) : NULL;
}

/* A block can start this many sectors before a sector it holds. */
static sector_t fault_cw_reach(sector_t sector)
{
	return sector >= FAULT_CW_SECTORS - 1 ? sector - (FAULT_CW_SECTORS - 1) : 0;
}

/*
 * The newest block holding @sector, searching from *@lo (the first block
 * that can hold it or any later sector), which moves forward with @sector.
 */
static struct fault_cw *fault_cw_newest(struct fault_cw **lo, sector_t sector)
{
	struct fault_cw *cw, *best = NULL;
	sector_t from = fault_cw_reach(sector);

	while (*lo && (*lo)->sector < from)
		*lo = fault_cw_next(*lo);
	for (cw = *lo; cw && cw->sector <= sector; cw = fault_cw_next(cw))
		if (fault_cw_last(cw) >= sector && (!best || cw->wseq > best->wseq))
			best = cw;
	return best;
}

static bool fault_cache_any(struct fault_cache *c, sector_t sector, unsigned int nr)
{
	struct fault_cw *cw = fault_cw_from(c, fault_cw_reach(sector));

	for (; cw && cw->sector < sector + nr; cw = fault_cw_next(cw))
		if (fault_cw_last(cw) >= sector)
			return true;
	return false;
}

/*
 * Copy @len bytes between @buf and the bio's data at *@it, and advance it.
 * Whole aligned pages (fio's and the page cache's 4k I/O) go by copy_page():
 * a word at a time, where memcpy() may move a byte at a time (rep movsb).
 */
static void fault_bio_copy(struct bio *bio, struct bvec_iter *it, void *buf, unsigned int len,
			   bool to_bio)
{
	while (len) {
		struct bio_vec bv = bio_iter_iovec(bio, *it);
		unsigned int n = min(len, bv.bv_len);
		void *p = bvec_kmap_local(&bv);

		if (n == PAGE_SIZE && PAGE_ALIGNED(buf) && PAGE_ALIGNED(p)) {
			copy_page(to_bio ? p : buf, to_bio ? buf : p);
			if (to_bio)
				flush_dcache_page(bv.bv_page);
		} else if (to_bio) {
			memcpy(p, buf, n);
			flush_dcache_page(bv.bv_page);
		} else {
			memcpy(buf, p, n);
		}
		kunmap_local(p);
		bio_advance_iter_single(bio, it, n);
		buf += n;
		len -= n;
	}
}

/*
 * Lay the newest cached data over a read of @nr sectors at @sector (relative
 * to the target).  With @copy false only count: return the sectors the cache
 * holds.  Caller: c->lock.
 */
static unsigned int fault_cache_overlay(struct fault_cache *c, struct bio *bio, sector_t sector,
					unsigned int nr, bool copy)
{
	struct fault_cw *lo = fault_cw_from(c, fault_cw_reach(sector));
	struct fault_cw *cw, *run = NULL;
	struct bvec_iter it = bio->bi_iter;
	unsigned int i, run_start = 0, held = 0;

	for (i = 0; i <= nr; i++) {
		cw = i < nr ? fault_cw_newest(&lo, sector + i) : NULL;
		if (cw)
			held++;
		if (run && cw == run)
			continue;
		if (run && copy)
			fault_bio_copy(bio, &it, page_address(run->page) +
				       ((sector + run_start - run->sector) << SECTOR_SHIFT),
				       (i - run_start) << SECTOR_SHIFT, true);
		if (!cw && i < nr && copy)
			bio_advance_iter(bio, &it, SECTOR_SIZE);
		run = cw;
		run_start = i;
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
	if ((c->pool_nr + c->st.blocks + 1) * FAULT_CW_MEM <= c->cfg.limit) {
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

/* Blocks for a write of @nr sectors at @sector, data copied; NULL: no memory. */
static struct fault_cw *fault_cw_alloc(struct fault_cache *c, struct bio *bio, sector_t sector,
				       unsigned int nr, gfp_t gfp)
{
	struct bvec_iter it = bio->bi_iter;
	struct fault_cw *first = NULL, **link = &first, *cw;
	unsigned int n;

	while (nr) {
		cw = kmem_cache_alloc(fault_cw_cache, gfp | __GFP_NOWARN);
		if (!cw)
			goto fail;
		cw->page = fault_page_get(c, gfp);
		if (!cw->page) {
			kmem_cache_free(fault_cw_cache, cw);
			goto fail;
		}
		n = min_t(unsigned int, nr, FAULT_CW_SECTORS);
		cw->sector = sector;
		cw->nr = n;
		cw->next = NULL;
		fault_bio_copy(bio, &it, page_address(cw->page), n << SECTOR_SHIFT, false);
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
 * Number a write and count it for the trigger; true if the trigger fires.
 * Every write that reaches the cache or the disk through it is numbered,
 * so that a program that counts its own writes from the mark finds them in
 * the lost list by the same numbers.  Caller: c->lock.
 */
static bool fault_cache_count_write(struct fault_cache *c, unsigned int bytes)
{
	c->wseq++;
	c->since_writes++;
	c->since_bytes += bytes;
	if ((c->cfg.after == FAULT_TRIG_WRITE && c->since_writes >= c->cfg.after_n) ||
	    (c->cfg.after == FAULT_TRIG_BYTES && c->since_bytes >= c->cfg.after_n)) {
		fault_cache_fire(c);
		return true;
	}
	return false;
}

/*
 * Put the blocks of one write in the cache.  Return: 1 if they went in
 * and a trigger fired (the caller queues the crash), 0 if they went in,
 * -ENOSPC if they would pass the limit, -EIO if the cache is not taking
 * writes (crashed, or being switched off).
 */
static int fault_cache_insert(struct fault_cache *c, struct fault_cw *first, unsigned int bytes)
{
	u64 mem = 0, nr = 0;
	struct fault_cw *cw, *last = NULL;
	int r = 0;

	for (cw = first; cw; cw = cw->next) {
		mem += FAULT_CW_MEM;
		nr++;
		last = cw;
	}
	spin_lock(&c->lock);
	if (c->state != FAULT_CACHE_ON) {
		r = -EIO;
	} else if (c->st.mem + mem > c->cfg.limit && c->st.blocks) {
		r = -ENOSPC;
	} else {
		r = fault_cache_count_write(c, bytes);
		for (cw = first; cw; cw = cw->next) {
			cw->wseq = c->wseq;
			rb_add(&cw->node, &c->tree, fault_cw_less);
		}
		*c->tail = first;
		c->tail = &last->next;
		c->st.mem += mem;
		c->st.blocks += nr;
		c->st.hwm = max(c->st.hwm, c->st.mem);
		c->st.writes++;
	}
	spin_unlock(&c->lock);
	return r;
}

static void fault_wb_endio(struct bio *bio)
{
	struct fault_wb *wb = bio->bi_private;

	if (bio->bi_status)
		wb->status = bio->bi_status;
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
	struct bio *bio;

	bio = bio_alloc_bioset(fc->dev->bdev, 1, REQ_OP_WRITE, GFP_NOIO, &fc->bs);
	bio->bi_iter.bi_sector = fc->start + cw->sector + first;
	__bio_add_page(bio, cw->page, nr << SECTOR_SHIFT, first << SECTOR_SHIFT);
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

/* Wait for a batch and take its blocks out of the cache. */
static blk_status_t fault_wb_finish(struct fault_cache *c, struct fault_wb *wb)
{
	blk_status_t st = fault_wb_wait(wb);
	unsigned int i;

	spin_lock(&c->lock);
	for (i = 0; i < wb->nr; i++) {
		/* the batch is the head of the list, in order */
		c->head = wb->cw[i]->next;
		if (!c->head)
			c->tail = &c->head;
		rb_erase(&wb->cw[i]->node, &c->tree);
	}
	c->st.mem -= (u64)wb->nr * FAULT_CW_MEM;
	c->st.blocks -= wb->nr;
	c->st.written_back += wb->nr;
	spin_unlock(&c->lock);
	for (i = 0; i < wb->nr; i++)
		fault_cw_free(c, wb->cw[i]);
	if (st) {
		c->st.wb_errors++;
		DMERR_LIMIT("%s: write-back failed: %d",
			    dm_device_name(dm_table_get_md(c->fc->ti->table)),
			    blk_status_to_errno(st));
	}
	fault_wb_init(wb);
	return st;
}

/*
 * Write back the oldest blocks, in order, until no block older than
 * @last is cached (U64_MAX: all) or the cache takes no more than @mem.
 * Caller: c->mutex.  Return: the first write-back error, or 0.
 */
static blk_status_t fault_cache_write_back(struct fault_cache *c, u64 last, u64 mem,
					   bool forced)
{
	struct fault_wb *wb;
	struct fault_cw *cw;
	blk_status_t st = BLK_STS_OK, r;
	u64 left;

	wb = kmalloc(sizeof(*wb), GFP_NOIO | __GFP_NOFAIL);
	fault_wb_init(wb);
	spin_lock(&c->lock);
	cw = c->head;
	left = c->st.mem;
	spin_unlock(&c->lock);
	while (cw && cw->wseq <= last && left > mem) {
		if (wb->nr == FAULT_WB_BATCH || fault_wb_overlaps(wb, cw)) {
			r = fault_wb_finish(c, wb);
			st = st ?: r;
		}
		fault_wb_submit(c, wb, cw, 0, cw->nr);
		wb->cw[wb->nr++] = cw;
		left -= FAULT_CW_MEM;
		if (forced)
			c->st.forced++;
		spin_lock(&c->lock);
		cw = cw->next;
		spin_unlock(&c->lock);
	}
	r = fault_wb_finish(c, wb);
	kfree(wb);
	return st ?: r;
}

static u64 fault_cache_newest(struct fault_cache *c)
{
	u64 wseq;

	spin_lock(&c->lock);
	wseq = c->wseq;
	spin_unlock(&c->lock);
	return wseq;
}

/* A hash of the seed, the write's number and the sector: keep if odd. */
static bool fault_crash_keeps(const struct fault_cache_cfg *cfg, u64 w, u64 sector)
{
	u64 x = cfg->seed ^ (w * 0x9e3779b97f4a7c15ULL) ^ (sector * 0xc2b2ae3d27d4eb4fULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 32;
	return x & 1;
}

/* Note a lost sector of write @w, merged with the last range of @w. */
static void fault_crash_lost(struct fault_cache *c, u64 w, sector_t sector)
{
	struct fault_lost *l = c->nr_lost ? &c->lost[c->nr_lost - 1] : NULL;

	c->st.lost_sectors++;
	if (l && l->write == w && l->sector + l->nr == sector) {
		l->nr++;
	} else if (c->nr_lost < FAULT_LOST_MAX) {
		l = &c->lost[c->nr_lost++];
		l->write = w;
		l->sector = sector;
		l->nr = 1;
	} else {
		c->lost_truncated = true;
	}
}

/*
 * Apply the policy to one block: write back the runs of sectors it keeps
 * (each sector's fate is its write's for lose=writes), note the rest.
 * Return: true if any sector was lost.
 */
static bool fault_crash_block(struct fault_cache *c, const struct fault_cache_cfg *cfg,
			      struct fault_wb *wb, struct fault_cw *cw)
{
	unsigned int i, run = 0;
	bool keep, lost = false;
	u64 w = cw->wseq - c->mark_wseq;

	for (i = 0; i <= cw->nr; i++) {
		keep = false;
		if (i < cw->nr) {
			switch (cfg->lose) {
			case FAULT_LOSE_NONE:
				keep = true;
				break;
			case FAULT_LOSE_WRITES:
				keep = fault_crash_keeps(cfg, w, 0);
				break;
			case FAULT_LOSE_SECTORS:
				keep = fault_crash_keeps(cfg, w, cw->sector + i);
				break;
			default:
				break;
			}
		}
		if (keep)
			continue;
		if (i > run)
			fault_wb_submit(c, wb, cw, run, i - run);
		if (i < cw->nr) {
			fault_crash_lost(c, w, cw->sector + i);
			lost = true;
		}
		run = i + 1;
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
	list = c->head;
	c->head = NULL;
	c->tail = &c->head;
	c->tree = RB_ROOT;
	c->st.mem = 0;
	c->st.blocks = 0;
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
	       dm_device_name(dm_table_get_md(c->fc->ti->table)), fault_lose_name(cfg->lose),
	       cfg->seed, c->st.lost_writes, c->st.lost_sectors);
}

static void fault_cache_crash_work(struct work_struct *w)
{
	struct fault_cache *c = container_of(w, struct fault_cache, crash_work);

	mutex_lock(&c->mutex);
	fault_cache_crash(c, &c->pending);
	mutex_unlock(&c->mutex);
}

static void fault_cache_defer(struct fault_cache *c, struct bio *bio)
{
	spin_lock(&c->lock);
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

static bool fault_cache_crashed(struct fault_cache *c)
{
	return READ_ONCE(c->state) == FAULT_CACHE_CRASHED;
}

/* A write that map could not cache: room first, or through to the disk. */
static blk_status_t fault_cache_deferred_write(struct fault_cache *c, struct bio *bio,
					       sector_t sector)
{
	unsigned int nr = bio_sectors(bio);
	u64 need = DIV_ROUND_UP(nr, FAULT_CW_SECTORS) * FAULT_CW_MEM;
	struct fault_cw *first;
	blk_status_t st;
	int r;

	if (need <= c->cfg.limit) {
		st = fault_cache_write_back(c, U64_MAX, c->cfg.limit - need, true);
		first = st ? NULL : fault_cw_alloc(c, bio, sector, nr, GFP_NOIO);
		r = first ? fault_cache_insert(c, first, bio->bi_iter.bi_size) : -ENOMEM;
		if (r == 1)
			fault_cache_crash(c, &c->pending);
		if (r >= 0)
			return BLK_STS_OK;
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
		r = c->state == FAULT_CACHE_ON && fault_cache_count_write(c, bio->bi_iter.bi_size);
		spin_unlock(&c->lock);
		if (r)
			fault_cache_crash(c, &c->pending);
	}
	return st;
}

/* Read what the disk has, then lay the cache over it. */
static blk_status_t fault_cache_deferred_read(struct fault_cache *c, struct bio *bio,
					      sector_t sector)
{
	blk_status_t st = fault_cache_pass(c->fc, bio);

	if (!st) {
		spin_lock(&c->lock);
		fault_cache_overlay(c, bio, sector, bio_sectors(bio), true);
		spin_unlock(&c->lock);
	}
	return st;
}

/* Flush and FUA: write back, then the bio itself, and count for triggers. */
static blk_status_t fault_cache_deferred_flush(struct fault_cache *c, struct bio *bio,
					       struct fault_per_bio *pb)
{
	blk_status_t st;
	bool fire = false;

	st = fault_cache_write_back(c, fault_cache_newest(c), 0, false);
	st = st ?: fault_cache_pass(c->fc, bio);
	if (st)
		return st;
	spin_lock(&c->lock);
	if (pb->op == FAULT_OP_FLUSH) {
		c->st.flushes++;
		c->since_flushes++;
		if (c->cfg.after == FAULT_TRIG_FLUSH && c->since_flushes >= c->cfg.after_n &&
		    c->state == FAULT_CACHE_ON) {
			fault_cache_fire(c);
			fire = true;
		}
	} else if (bio->bi_opf & REQ_FUA) {
		c->st.fua++;
	}
	if (pb->op == FAULT_OP_WRITE && c->state == FAULT_CACHE_ON)
		fire = fault_cache_count_write(c, pb->bytes);
	spin_unlock(&c->lock);
	if (fire)
		fault_cache_crash(c, &c->pending);
	return BLK_STS_OK;
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
	blk_status_t st;

	if (fault_cache_crashed(c)) {
		st = BLK_STS_IOERR;
	} else if (pb->rule) {
		fault_cache_deferred_act(c, bio, pb);
		return;
	} else if (pb->op == FAULT_OP_READ) {
		st = fault_cache_deferred_read(c, bio, sector);
	} else if (pb->op == FAULT_OP_WRITE && !(bio->bi_opf & (REQ_FUA | REQ_PREFLUSH)) &&
		   READ_ONCE(c->state) == FAULT_CACHE_ON) {
		st = fault_cache_deferred_write(c, bio, sector);
	} else {
		st = fault_cache_deferred_flush(c, bio, pb);
	}
	/* power lost while this bio was on its way: it fails */
	if (fault_cache_crashed(c))
		st = BLK_STS_IOERR;
	bio->bi_status = st;
	bio_endio(bio);
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

/* Cache a plain write in map: 0 if done, -1 if it must wait for the work. */
static int fault_cache_map_write(struct fault_cache *c, struct bio *bio, sector_t sector)
{
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	struct fault_cw *first = fault_cw_alloc(c, bio, sector, bio_sectors(bio), gfp);
	int r;

	if (!first)
		return -1;
	r = fault_cache_insert(c, first, bio->bi_iter.bi_size);
	if (r < 0) {
		fault_cw_free_list(c, first);
		return -1;
	}
	if (r == 1)
		queue_work(c->wq, &c->crash_work);
	fault_cache_end(bio, BLK_STS_OK);
	return 0;
}

/* A read in map: 1 if the cache had it all, 0 if none, -1 if part. */
static int fault_cache_map_read(struct fault_cache *c, struct bio *bio, sector_t sector)
{
	unsigned int nr = bio_sectors(bio), held;
	int r = 0;

	spin_lock(&c->lock);
	if (c->st.blocks && fault_cache_any(c, sector, nr)) {
		held = fault_cache_overlay(c, bio, sector, nr, false);
		r = -1;
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
	} else if (pb->op == FAULT_OP_READ) {
		r = fault_cache_map_read(c, bio, sector);
		if (r >= 0)
			return r ? fault_cache_end(bio, BLK_STS_OK) : DM_MAPIO_REMAPPED;
	} else if (pb->op == FAULT_OP_WRITE && state == FAULT_CACHE_ON &&
		   !(bio->bi_opf & (REQ_FUA | REQ_PREFLUSH))) {
		if (!fault_cache_map_write(c, bio, sector))
			return DM_MAPIO_SUBMITTED;
	} else if (pb->op == FAULT_OP_OTHER) {
		return -1;
	}
	if (bio->bi_opf & REQ_NOWAIT)
		return fault_cache_end(bio, BLK_STS_AGAIN);
	fault_cache_defer(c, bio);
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

/**
 * fault_cache_create - give a device a cache, on
 * @fc: the device; fc->cache must be NULL
 * @cfg: limit and trigger
 * @error: the reason on failure
 *
 * Return: 0 or -errno.
 */
int fault_cache_create(struct fault_c *fc, const struct fault_cache_cfg *cfg, char **error)
{
	char *why;
	struct fault_cache *c;

	if (!fc->dev) {
		*error = "fault-error has no disk to cache";
		return -EINVAL;
	}
	why = fault_cache_limit_error(cfg->limit);
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
	c->tree = RB_ROOT;
	c->tail = &c->head;
	INIT_LIST_HEAD(&c->pool);
	c->cfg = *cfg;
	bio_list_init(&c->deferred);
	INIT_WORK(&c->work, fault_cache_work);
	INIT_WORK(&c->crash_work, fault_cache_crash_work);
	c->state = FAULT_CACHE_ON;
	/* map reads fc->cache without a lock: publish it whole */
	smp_store_release(&fc->cache, c);
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
 * was acknowledged.  A crashed cache has nothing left to write.
 */
void fault_cache_postsuspend(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;

	if (!c)
		return;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->state != FAULT_CACHE_CRASHED)
		fault_cache_write_back(c, U64_MAX, 0, false);
	mutex_unlock(&c->mutex);
}

void fault_cache_destroy(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;

	if (!c)
		return;
	fault_cache_quiesce(c);
	destroy_workqueue(c->wq);
	/* postsuspend wrote back what a live table had */
	fault_cw_free_list(c, c->head);
	fault_pool_drain(c);
	kvfree(c->lost);
	kfree(c);
	fc->cache = NULL;
}

static const char *fault_cache_name(struct fault_c *fc)
{
	return dm_device_name(dm_table_get_md(fc->ti->table));
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

/* crash: now, or armed for a trigger (after=none disarms) */
static int fault_cache_msg_crash(struct fault_c *fc, const struct fault_msg *m, char *result,
				 unsigned int maxlen)
{
	struct fault_cache *c = fc->cache;
	struct fault_cache_cfg cfg = c->cfg;
	bool now;
	int r = 0;

	/* the policy and seed the cache has, unless named; no after=: now */
	fault_cache_cfg_apply(&cfg, &m->cache, m->keys | FAULT_CKEY_AFTER);
	now = cfg.after == FAULT_NR_TRIGGERS;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	spin_lock(&c->lock);
	if (c->state != FAULT_CACHE_ON) {
		r = -EINVAL;
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
	if (r)
		DMWARN("%s: crash: the cache is %s", fault_cache_name(fc),
		       fault_cache_state_names[c->state]);
	else if (now)
		fault_cache_crash(c, &cfg);
	mutex_unlock(&c->mutex);
	if (!r && now) {
		mutex_lock(&c->mutex);
		fault_cache_emit_lost(c, FAULT_LOST_REPLY, result, maxlen);
		mutex_unlock(&c->mutex);
		return 1;
	}
	return r;
}

static int fault_cache_msg_on(struct fault_c *fc, const struct fault_msg *m)
{
	struct fault_cache *c = fc->cache;
	const struct fault_cache_cfg *cfg = &m->cache;
	const char *error = NULL;
	char *err = NULL;
	int r;

	if (!c) {
		mutex_lock(&fc->lock);
		r = fc->cache ? 0 : fault_cache_create(fc, cfg, &err);
		mutex_unlock(&fc->lock);
		if (r) {
			error = err;
			goto bad;
		}
		return 0;
	}
	error = fault_cache_limit_error(cfg->limit);
	if (error)
		goto bad;
	mutex_lock(&c->mutex);
	spin_lock(&c->lock);
	if (c->state == FAULT_CACHE_CRASHED) {
		error = "The cache has crashed: recover first";
	} else {
		c->cfg.limit = cfg->limit;
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
	if (c->state == FAULT_CACHE_CRASHED) {
		error = "The cache has crashed: recover first";
	} else if (c->state == FAULT_CACHE_ON) {
		/* writes that map cannot cache wait for the mutex, then pass */
		fault_cache_set_state(c, FAULT_CACHE_DRAIN);
		fault_cache_write_back(c, U64_MAX, 0, false);
		fault_cache_set_state(c, FAULT_CACHE_OFF);
		fault_pool_drain(c);
	}
	mutex_unlock(&c->mutex);
	if (!error)
		return 0;
	DMWARN("%s: cache off: %s", fault_cache_name(fc), error);
	return -EINVAL;
}

static int fault_cache_msg_recover(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;
	int r = 0;

	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->state == FAULT_CACHE_CRASHED)
		fault_cache_set_state(c, FAULT_CACHE_ON);
	else
		r = -EINVAL;
	mutex_unlock(&c->mutex);
	if (r)
		DMWARN("%s: recover: the cache has not crashed", fault_cache_name(fc));
	return r;
}

static int fault_cache_msg_mark(struct fault_c *fc)
{
	struct fault_cache *c = fc->cache;

	spin_lock(&c->lock);
	c->since_flushes = 0;
	c->since_writes = 0;
	c->since_bytes = 0;
	c->mark_wseq = c->wseq;
	spin_unlock(&c->lock);
	return 0;
}

/* A cache message the parser refused with @error, or one that needs a cache there is not. */
static int fault_cache_msg_refused(struct fault_c *fc, const struct fault_msg *m,
				   const char *error)
{
	const char *name = fault_cache_name(fc);

	if (!error)
		DMWARN("%s: %s: the cache is off", name,
		       m->cmd == FAULT_MSG_CACHE_OFF ? "cache" : fault_msg_name(m->cmd));
	else if (m->cmd >= FAULT_MSG_MARK)
		DMWARN("%s: %s %s", name, fault_msg_name(m->cmd), error);
	else
		DMWARN("%s: %s: %s", name, fault_msg_name(m->cmd), error);
	return -EINVAL;
}

/**
 * fault_cache_message - the cache's messages
 * @fc: the device
 * @m: from fault_msg_parse(), m->cmd FAULT_MSG_CACHE or later: "cache on
 *     [limit=<size>]", "cache off", "crash [lose=<policy>] [seed=<n>]
 *     [after=<flush|write|bytes>:<n>]", "mark", "recover", "lost"
 * @error: the parser's reason when it refused @m, else NULL
 * @result: reply buffer
 * @maxlen: its size
 *
 * A message for a cache the device does not have is refused for that
 * before its arguments are looked at.
 *
 * Return: as a target's .message.
 */
int fault_cache_message(struct fault_c *fc, const struct fault_msg *m, char *error,
			char *result, unsigned int maxlen)
{
	/* pairs with the release in fault_cache_create() */
	struct fault_cache *c = smp_load_acquire(&fc->cache);

	if (!c && m->cmd != FAULT_MSG_CACHE && m->cmd != FAULT_MSG_CACHE_ON)
		return fault_cache_msg_refused(fc, m, NULL);
	if (error)
		return fault_cache_msg_refused(fc, m, error);
	switch (m->cmd) {
	case FAULT_MSG_CACHE_ON:
		return fault_cache_msg_on(fc, m);
	case FAULT_MSG_CACHE_OFF:
		return fault_cache_msg_off(fc);
	case FAULT_MSG_CRASH:
		return fault_cache_msg_crash(fc, m, result, maxlen);
	case FAULT_MSG_MARK:
		return fault_cache_msg_mark(fc);
	case FAULT_MSG_RECOVER:
		return fault_cache_msg_recover(fc);
	default:
		mutex_lock(&c->mutex);
		fault_cache_emit_lost(c, FAULT_LOST_MAX, result, maxlen);
		mutex_unlock(&c->mutex);
		return 1;
	}
}

/**
 * fault_cache_emit - the cache's word of the INFO status, or its stats line
 * @fc: the device
 * @readable: the stats reply's form
 * @result: output, DMEMIT's
 * @maxlen: its size
 * @psz: DMEMIT's position, advanced
 *
 * The word is "-" without a cache, else the state and the counters of enum
 * fault_cache_stat, colon-separated; the stats line names them.
 */
void fault_cache_emit(struct fault_c *fc, bool readable, char *result, unsigned int maxlen,
		      unsigned int *psz)
{
	/* pairs with the release in fault_cache_create() */
	struct fault_cache *c = smp_load_acquire(&fc->cache);
	u64 v[FAULT_NR_CACHE_STATS];
	enum fault_cache_state state;
	unsigned int sz = *psz, i;

	if (!c) {
		if (!readable)
			DMEMIT(" -");
		*psz = sz;
		return;
	}
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
	spin_unlock(&c->lock);
	DMEMIT(readable ? "cache state=%s" : " %s", fault_cache_state_names[state]);
	for (i = 0; i < FAULT_NR_CACHE_STATS; i++) {
		if (readable)
			DMEMIT(" %s=%llu", fault_cache_stat_name(i), v[i]);
		else
			DMEMIT(":%llu", v[i]);
	}
	if (readable)
		DMEMIT("\n");
	*psz = sz;
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
	/* the budget: a cached 4 KiB write costs its page + 64 bytes */
	BUILD_BUG_ON(sizeof(struct fault_cw) > 64);
	fault_cw_cache = KMEM_CACHE(fault_cw, 0);
	return fault_cw_cache ? 0 : -ENOMEM;
}

void fault_cache_exit(void)
{
	kmem_cache_destroy(fault_cw_cache);
}
