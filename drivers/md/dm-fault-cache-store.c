// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault's volatile write cache: the store of cached blocks, their
 * lookup by a read, and their write-back to the disk below.
 *
 * A write is held as blocks of at most a page (a discard or write-zeroes as
 * one block without data) in an interval tree by sector, so that lookups
 * take O(log n + overlaps) whatever the block sizes, and on a list in write
 * order, the order of write-back.  Overlapping writes are all kept, newest
 * visible on read; in a view, a read sees only the blocks the view keeps
 * and the check's own writes.  The memory limit bounds the blocks for every
 * bio size: an insert that would pass it is refused (the work then writes
 * back the oldest blocks to make room), and a recording that passes it
 * overflows.
 *
 * A write-back that fails leaves its blocks cached and fails the flush (or
 * suspend) that asked for it; the next flush tries again.
 *
 * The leaf of the cache's files (see dm-fault-cache.h): it calls none of
 * dm-fault-cache.c, dm-fault-crash.c and dm-fault-record.c, which all call
 * it.  Every function here takes the cache's locks as its comment says.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/interval_tree_generic.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "dm-fault-cache.h"

#define DM_MSG_PREFIX "fault"

/* sectors a read's overlay looks up at once */
#define FAULT_WIN		32

#define FAULT_CW_START(cw)	((cw)->sector)
#define FAULT_CW_LAST(cw)	fault_cw_last(cw)

INTERVAL_TREE_DEFINE(struct fault_cw, node, sector_t, subtree_last, FAULT_CW_START,
		     FAULT_CW_LAST, static, fault_it)

static const char * const fault_cache_state_names[] = {
	[FAULT_CACHE_OFF] = "off",
	[FAULT_CACHE_ON] = "on",
	[FAULT_CACHE_DRAIN] = "off",
	[FAULT_CACHE_CRASHED] = "crashed",
	[FAULT_CACHE_RECORD] = "recording",
	[FAULT_CACHE_OVERFLOW] = "overflow",
	[FAULT_CACHE_VIEW] = "view",
};

static struct kmem_cache *fault_cw_cache;

/* The state's name, as status shows it and a refused crash says it. */
const char *fault_cache_state_name(enum fault_cache_state state)
{
	return fault_cache_state_names[state];
}

static u64 fault_cw_mem(const struct fault_cw *cw)
{
	return sizeof(*cw) + (cw->page ? PAGE_SIZE : 0);
}

/**
 * fault_cache_of - the cache a message acts on
 * @fc: the device
 * @m: a cache message other than "cache on", which makes the cache
 *
 * The one place a message for a cache the device does not have is refused.
 *
 * Return: the cache, or NULL after logging that there is none.
 */
struct fault_cache *fault_cache_of(struct fault_c *fc, const struct fault_msg *m)
{
	/* pairs with the release in fault_cache_create() */
	struct fault_cache *c = smp_load_acquire(&fc->cache);

	if (!c)
		DMWARN("%s: %s: the cache is off", fault_dev_name(fc),
		       m->cmd == FAULT_MSG_CACHE_OFF ? "cache" : fault_msg_name(m->cmd));
	return c;
}

/* A message's outcome: 0, or why message @what was refused, logged, and -EINVAL. */
int fault_cache_refuse(struct fault_c *fc, const char *what, const char *error)
{
	if (!error)
		return 0;
	DMWARN("%s: %s: %s", fault_dev_name(fc), what, error);
	return -EINVAL;
}

void fault_cache_set_state(struct fault_cache *c, enum fault_cache_state state)
{
	spin_lock(&c->lock);
	c->state = state;
	spin_unlock(&c->lock);
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
unsigned int fault_cache_overlay(struct fault_cache *c, struct bio *bio, sector_t sector,
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

void fault_pool_drain(struct fault_cache *c)
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

void fault_cw_free_list(struct fault_cache *c, struct fault_cw *cw)
{
	struct fault_cw *next;

	for (; cw; cw = next) {
		next = cw->next;
		fault_cw_free(c, cw);
	}
}

/* The FAULT_CW_* kind of a write bio. */
u32 fault_cw_kind(struct bio *bio)
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
struct fault_cw *fault_cw_alloc(struct fault_cache *c, struct bio *bio, sector_t sector,
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
void fault_cache_fire(struct fault_cache *c)
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
bool fault_cache_count_write(struct fault_cache *c, unsigned int bytes)
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
void fault_cache_overflow(struct fault_cache *c, const char *why)
{
	if (c->state != FAULT_CACHE_RECORD)
		return;
	c->state = FAULT_CACHE_OVERFLOW;
	c->rec->overflow = true;
	DMERR("%s: recording overflowed after %llu writes: %s", fault_dev_name(c->fc),
	      c->st.recorded, why);
}

/*
 * Put the blocks of one write in the cache, numbered as one write.
 * Return: 1 if they went in and a trigger fired (the caller runs the
 * crash), 0 if they went in, -ENOSPC if they would pass the limit, -EIO if
 * the cache is not taking writes (crashed, overflowed, being switched off).
 */
int fault_cache_insert(struct fault_cache *c, struct fault_cw *first, unsigned int bytes)
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

void fault_wb_init(struct fault_wb *wb)
{
	atomic_set(&wb->pending, 1);
	init_completion(&wb->done);
	wb->status = BLK_STS_OK;
	wb->nr = 0;
}

static noinline __cold void fault_wb_refuse(struct fault_c *fc, struct fault_wb *wb,
					    sector_t sector, unsigned int nr)
{
	DMWARN_LIMIT("%s: %s of %u bytes at sector %llu refused: not whole %u-byte blocks of %pg",
		     fault_dev_name(fc), "write-back", nr << SECTOR_SHIFT,
		     (unsigned long long)sector, bdev_logical_block_size(fc->dev->bdev),
		     fc->dev->bdev);
	wb->status = BLK_STS_IOERR;
}

/*
 * Write sectors [@first, @first + @nr) of block @cw to the disk.  A block
 * cached while the device below took 512-byte blocks is not written once
 * it has grown them (a dm device below reloaded onto a disk of 4 KiB
 * blocks) and the sectors are not whole blocks of it: the batch fails as
 * map fails such a bio, with the reason, and its blocks stay cached.
 */
void fault_wb_submit(struct fault_cache *c, struct fault_wb *wb, struct fault_cw *cw,
		     unsigned int first, unsigned int nr)
{
	struct fault_c *fc = c->fc;
	blk_opf_t op = REQ_OP_WRITE;
	struct bio *bio;

	if (unlikely(fault_below_misaligned(fc, cw->sector + first, nr))) {
		fault_wb_refuse(fc, wb, cw->sector + first, nr);
		return;
	}
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

blk_status_t fault_wb_wait(struct fault_wb *wb)
{
	if (!atomic_dec_and_test(&wb->pending))
		wait_for_completion_io(&wb->done);
	return wb->status;
}

/* Blocks in one batch must not overlap: the disk may reorder the writes. */
bool fault_wb_overlaps(struct fault_wb *wb, struct fault_cw *cw)
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
		DMERR_LIMIT("%s: write-back failed: %d", fault_dev_name(c->fc),
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
blk_status_t fault_cache_write_back(struct fault_cache *c, u64 last, u64 mem, bool forced)
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
blk_status_t fault_cache_sync(struct fault_cache *c, u64 last)
{
	blk_status_t st = fault_cache_write_back(c, last, 0, false);

	if (!st && blkdev_issue_flush(c->fc->dev->bdev))
		st = BLK_STS_IOERR;
	return st;
}

/* Empty the cache: the blocks leave the tree; return their list. Caller: c->lock. */
struct fault_cw *fault_cache_take_all(struct fault_cache *c)
{
	struct fault_cw *list = c->head;

	c->head = NULL;
	c->tail = &c->head;
	c->tree = RB_ROOT_CACHED;
	c->st.mem = 0;
	c->st.blocks = 0;
	return list;
}

/*
 * Take the blocks of @list, a tail cut off the list, out of the tree and
 * the counts: a view's scratch, thrown away.  Caller: c->lock.
 */
void fault_cache_unlink(struct fault_cache *c, struct fault_cw *list)
{
	struct fault_cw *cw;

	for (cw = list; cw; cw = cw->next) {
		fault_it_remove(cw, &c->tree);
		c->st.mem -= fault_cw_mem(cw);
		c->st.blocks--;
	}
}

/*
 * What the cache holds of the read @bio at @sector, in map: with all of it
 * held, the data is copied to the bio.
 */
enum fault_cache_hold fault_cache_hold(struct fault_cache *c, struct bio *bio, sector_t sector)
{
	unsigned int nr = bio_sectors(bio), held;
	enum fault_cache_hold r = FAULT_HOLD_NONE;

	spin_lock(&c->lock);
	if (c->state == FAULT_CACHE_CRASHED) {
		r = FAULT_HOLD_CRASHED;
	} else if (c->st.blocks && fault_it_iter_first(&c->tree, sector, sector + nr - 1)) {
		held = fault_cache_overlay(c, bio, sector, nr, false);
		r = held ? FAULT_HOLD_SOME : FAULT_HOLD_NONE;
		if (held == nr) {
			fault_cache_overlay(c, bio, sector, nr, true);
			r = FAULT_HOLD_ALL;
		}
	}
	spin_unlock(&c->lock);
	return r;
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
