/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-fault's volatile write cache: the internals its four files share.
 * The rest of the target sees only what dm-fault.h declares.
 *
 * Calls go one way, from the entry down to the store:
 *
 *   dm-fault.c -> dm-fault-cache.c   map, the deferred work, create,
 *                                    destroy, suspend, "cache on/off"
 *              -> dm-fault-crash.c   crash, the lost list, "recover"
 *              -> dm-fault-record.c  "record", "mark", "record list", "view"
 *              -> dm-fault-cache-store.c  blocks, lookups, write-back
 *
 * Each file calls only the files below it (dm-fault.c calls each for its
 * messages); the store calls none of them.  scripts/lint.sh checks it.
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
#ifndef _DM_FAULT_CACHE_H
#define _DM_FAULT_CACHE_H

#include <linux/bio.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "dm-fault.h"

#define FAULT_CW_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)
/* write-back bios in flight at once */
#define FAULT_WB_BATCH		64
/* lost ranges kept from the last crash */
#define FAULT_LOST_MAX		1024
/* a recording's flush barriers and marks */
#define FAULT_REC_FLUSHES	65536
#define FAULT_REC_MARKS		256

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

enum fault_cache_state {
	FAULT_CACHE_OFF,		/* nothing cached; bios pass */
	FAULT_CACHE_ON,
	FAULT_CACHE_DRAIN,		/* "cache off": writes wait for write-back */
	FAULT_CACHE_CRASHED,		/* every bio fails until recover (or view) */
	FAULT_CACHE_RECORD,		/* every write kept, nothing written back */
	FAULT_CACHE_OVERFLOW,		/* a recording past the limit: writes fail */
	FAULT_CACHE_VIEW,		/* a crash state of the recording */
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

/* Write-back of a batch of blocks. */
struct fault_wb {
	atomic_t pending;
	struct completion done;
	blk_status_t status;
	unsigned int nr;
	struct fault_cw *cw[FAULT_WB_BATCH];
};

/* What the cache holds of a read, looked up in map. */
enum fault_cache_hold {
	FAULT_HOLD_NONE,		/* nothing: the disk has it all */
	FAULT_HOLD_SOME,		/* part: the disk's data, then the cache's */
	FAULT_HOLD_ALL,			/* all of it, copied to the bio */
	FAULT_HOLD_CRASHED,		/* the cache has crashed */
};

/**
 * fault_crash_keeps - does a crash keep unit @unit of write @w?
 * @seed: the crash's seed
 * @w: the write's number since the mark (or in the recording)
 * @unit: the tearing unit's number; 0 for a whole write
 *
 * A hash of the three, kept if odd: the same seed gives the same crash
 * state, whether a crash writes it back or a view shows it.
 */
static inline bool fault_crash_keeps(u64 seed, u64 w, u64 unit)
{
	u64 x = seed ^ (w * 0x9e3779b97f4a7c15ULL) ^ (unit * 0xc2b2ae3d27d4eb4fULL);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 32;
	return x & 1;
}

/* Deferred bios and a fired crash have run. */
static inline void fault_cache_quiesce(struct fault_cache *c)
{
	flush_workqueue(c->wq);
}

/* dm-fault-cache-store.c: the leaf; every other cache file calls it */
const char *fault_cache_state_name(enum fault_cache_state state);
struct fault_cache *fault_cache_of(struct fault_c *fc, const struct fault_msg *m);
int fault_cache_refuse(struct fault_c *fc, const char *what, const char *error);
void fault_cache_set_state(struct fault_cache *c, enum fault_cache_state state);
unsigned int fault_cache_overlay(struct fault_cache *c, struct bio *bio, sector_t sector,
				 unsigned int nr, bool copy);
enum fault_cache_hold fault_cache_hold(struct fault_cache *c, struct bio *bio, sector_t sector);
void fault_pool_drain(struct fault_cache *c);
u32 fault_cw_kind(struct bio *bio);
struct fault_cw *fault_cw_alloc(struct fault_cache *c, struct bio *bio, sector_t sector,
				unsigned int nr, gfp_t gfp);
void fault_cw_free_list(struct fault_cache *c, struct fault_cw *cw);
void fault_cache_fire(struct fault_cache *c);
bool fault_cache_count_write(struct fault_cache *c, unsigned int bytes);
void fault_cache_overflow(struct fault_cache *c, const char *why);
int fault_cache_insert(struct fault_cache *c, struct fault_cw *first, unsigned int bytes);
void fault_cache_unlink(struct fault_cache *c, struct fault_cw *list);
struct fault_cw *fault_cache_take_all(struct fault_cache *c);
void fault_wb_init(struct fault_wb *wb);
void fault_wb_submit(struct fault_cache *c, struct fault_wb *wb, struct fault_cw *cw,
		     unsigned int first, unsigned int nr);
blk_status_t fault_wb_wait(struct fault_wb *wb);
bool fault_wb_overlaps(struct fault_wb *wb, struct fault_cw *cw);
blk_status_t fault_cache_write_back(struct fault_cache *c, u64 last, u64 mem, bool forced);
blk_status_t fault_cache_sync(struct fault_cache *c, u64 last);

/* dm-fault-record.c: calls the store */
bool fault_rec_flush(struct fault_cache *c);
int fault_rec_crash(struct fault_cache *c, char *result, unsigned int maxlen);
void fault_rec_drop(struct fault_cache *c);

/* dm-fault-crash.c: calls the recording and the store */
void fault_cache_crash(struct fault_cache *c, const struct fault_cache_cfg *cfg);
void fault_cache_crash_work(struct work_struct *w);

#endif /* _DM_FAULT_CACHE_H */
