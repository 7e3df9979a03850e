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
 * What a crash does is dm-fault-crash.c's; recording a workload and
 * presenting its crash states, dm-fault-record.c's; the blocks and their
 * write-back, dm-fault-cache-store.c's.
 *
 * This file is the cache's entry: map, the work that runs what map cannot,
 * create, destroy, suspend, "cache on" and "cache off", status and table.
 * map takes in the caller's context what needs neither the disk nor
 * memory it may have to wait for; everything else goes, in order, to an
 * ordered work item under c->mutex.  Past the memory limit the oldest
 * blocks are written back (counted as forced), and a write larger than the
 * limit, one that no memory can be had for, or one a rule delays, stalls,
 * corrupts or tears goes to the disk after every cached write before it: a
 * real disk may write back early, so this shows fewer crash states, never
 * an impossible one.
 *
 * Calls go one way (see dm-fault-cache.h): dm-fault.c calls this file; it
 * calls dm-fault-crash.c, dm-fault-record.c, the store and the rule
 * actions, none of which calls it.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dm-fault-cache.h"

#define DM_MSG_PREFIX "fault"

/* What the work does with a deferred bio, as fault_cache_job() decides. */
enum fault_cache_job {
	FAULT_JOB_FAIL,			/* crashed: EIO */
	FAULT_JOB_PASS,			/* off: to the disk */
	FAULT_JOB_ACT,			/* a rule's action, after the cache */
	FAULT_JOB_READ,			/* the disk's data, the cache's over it */
	FAULT_JOB_FLUSH,		/* write back, flush the disk, then the data */
	FAULT_JOB_WRITE,		/* into the cache, room made, or through */
	FAULT_JOB_BEHIND,		/* an operation not cached: to the disk after the cache */
	FAULT_JOB_RECORD,		/* recorded, or a view's scratch */
	FAULT_JOB_UNSUPPORTED,		/* an operation not cached, while recording: refused */
};

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
			     fault_dev_name(c->fc));
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

/*
 * The one place that decides what becomes of a deferred bio: from the
 * state the work sees and the bio's class.  With the cache on a rule's
 * action comes first, since it decides whether the bio reaches the cache
 * at all; while recording or viewing a rule's action does not apply (map
 * let error and drop act), so a bio is read or recorded as any other.
 * "cache off" drains under c->mutex, so the work never sees DRAIN: it
 * would be taken as a recording, which takes no write then.
 */
static enum fault_cache_job fault_cache_job(enum fault_cache_state state,
					    const struct fault_per_bio *pb, const struct bio *bio)
{
	switch (state) {
	case FAULT_CACHE_CRASHED:
		return FAULT_JOB_FAIL;
	case FAULT_CACHE_OFF:
		return FAULT_JOB_PASS;
	case FAULT_CACHE_ON:
		if (pb->rule)
			return FAULT_JOB_ACT;
		if (pb->op == FAULT_OP_READ)
			return FAULT_JOB_READ;
		if (bio->bi_opf & REQ_PREFLUSH)
			return FAULT_JOB_FLUSH;
		return pb->op == FAULT_OP_OTHER ? FAULT_JOB_BEHIND : FAULT_JOB_WRITE;
	default:
		/* recording, overflowed, viewing */
		if (pb->op == FAULT_OP_READ)
			return FAULT_JOB_READ;
		return pb->op == FAULT_OP_OTHER ? FAULT_JOB_UNSUPPORTED : FAULT_JOB_RECORD;
	}
}

/* Run one deferred bio.  Caller: c->mutex. */
static void fault_cache_run(struct fault_cache *c, struct bio *bio)
{
	struct fault_per_bio *pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));
	sector_t sector = bio->bi_iter.bi_sector - c->fc->start;
	bool fire = false;
	blk_status_t st;

	switch (fault_cache_job(READ_ONCE(c->state), pb, bio)) {
	case FAULT_JOB_FAIL:
		st = BLK_STS_IOERR;
		break;
	case FAULT_JOB_PASS:
		st = fault_cache_pass(c->fc, bio);
		break;
	case FAULT_JOB_ACT:
		/* the action completes the bio, or holds it */
		fault_cache_deferred_act(c, bio, pb);
		return;
	case FAULT_JOB_READ:
		st = fault_cache_deferred_read(c, bio, sector);
		break;
	case FAULT_JOB_FLUSH:
		st = fault_cache_deferred_flush(c, bio, pb, sector, &fire);
		break;
	case FAULT_JOB_WRITE:
		st = fault_cache_deferred_write(c, bio, sector, &fire);
		break;
	case FAULT_JOB_BEHIND:
		st = fault_cache_write_back(c, U64_MAX, 0, false);
		st = st ?: fault_cache_pass(c->fc, bio);
		break;
	case FAULT_JOB_RECORD:
		st = fault_cache_deferred_record(c, bio, sector);
		break;
	case FAULT_JOB_UNSUPPORTED:
		st = BLK_STS_NOTSUPP;
		break;
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

/* Complete @bio in map with @st. */
static enum fault_cache_result fault_cache_end(struct bio *bio, blk_status_t st)
{
	bio->bi_status = st;
	bio_endio(bio);
	return FAULT_CACHE_DONE;
}

/*
 * Take a write (or a flush while recording or viewing) in map.  Return:
 * true if done; false if it must wait for the work.  With the cache on a
 * flush writes back, which only the work may do.
 */
static bool fault_cache_map_write(struct fault_cache *c, struct bio *bio, sector_t sector)
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
			return false;
		if (!bio_sectors(bio)) {
			fault_cache_end(bio, BLK_STS_OK);
			return true;
		}
	}
	first = fault_cw_alloc(c, bio, sector, bio_sectors(bio), gfp);
	if (!first)
		return false;
	r = fault_cache_insert(c, first, bio->bi_iter.bi_size);
	if (r < 0) {
		fault_cw_free_list(c, first);
		return false;
	}
	fault_cache_end(bio, BLK_STS_OK);
	if (r == 1)
		queue_work(c->wq, &c->crash_work);
	return true;
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
 * Return: what became of the bio, an enum fault_cache_result.
 */
enum fault_cache_result fault_cache_map(struct fault_c *fc, struct fault_per_bio *pb,
					struct bio *bio, sector_t sector)
{
	struct fault_cache *c = fc->cache;
	enum fault_cache_state state = READ_ONCE(c->state);
	enum fault_action action;

	if (state == FAULT_CACHE_CRASHED)
		return fault_cache_end(bio, BLK_STS_IOERR);
	if (state == FAULT_CACHE_OFF)
		return FAULT_CACHE_PASS;
	if (pb->rule) {
		/* error and drop never reach the disk: no order to keep */
		action = pb->rule->cfg.action;
		if (action == FAULT_ACT_ERROR || action == FAULT_ACT_DROP)
			return FAULT_CACHE_PASS;
	}
	if (pb->rule && state == FAULT_CACHE_ON) {
		/* after the cache, in the work */
	} else if (pb->op == FAULT_OP_READ) {
		switch (fault_cache_hold(c, bio, sector)) {
		case FAULT_HOLD_CRASHED:
			return fault_cache_end(bio, BLK_STS_IOERR);
		case FAULT_HOLD_ALL:
			return fault_cache_end(bio, BLK_STS_OK);
		case FAULT_HOLD_NONE:
			return FAULT_CACHE_REMAP;
		case FAULT_HOLD_SOME:
			/* the work reads the disk, then lays the cache over it */
			break;
		}
	} else if (pb->op != FAULT_OP_OTHER && state != FAULT_CACHE_DRAIN) {
		if (fault_cache_map_write(c, bio, sector))
			return FAULT_CACHE_DONE;
	}
	if (bio->bi_opf & REQ_NOWAIT)
		return fault_cache_end(bio, BLK_STS_AGAIN);
	fault_cache_defer(c, bio, pb);
	return FAULT_CACHE_DEFERRED;
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
		      fault_dev_name(fc), c->st.blocks);
	mutex_unlock(&c->mutex);
}

/* Let the cache go, with what it holds: the destructor's, after postsuspend. */
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

/**
 * fault_cache_msg_on - "cache on [limit=<size>] [unit=<size>]"
 * @fc: the device
 * @m: the parsed message
 * @result: unused: no reply
 * @maxlen: unused
 *
 * Makes the cache the first time; later, sets its limit and unit and turns
 * it on, unless it has crashed or holds a recording.
 *
 * Return: 0 or -errno.
 */
int fault_cache_msg_on(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen)
{
	/* pairs with the release in fault_cache_create() */
	struct fault_cache *c = smp_load_acquire(&fc->cache);
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
	DMWARN("%s: cache on: %s", fault_dev_name(fc), error);
	return -EINVAL;
}

/**
 * fault_cache_msg_off - "cache off": write the cache back, then let bios pass
 * @fc: the device
 * @m: the parsed message
 * @result: unused: no reply
 * @maxlen: unused
 *
 * Return: 0 or -EINVAL.
 */
int fault_cache_msg_off(struct fault_c *fc, const struct fault_msg *m, char *result,
			unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	const char *error = NULL;

	if (!c)
		return -EINVAL;
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
	return fault_cache_state_name(state);
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
