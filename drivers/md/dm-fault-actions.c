// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault actions: what a rule does to a bio it fires on.
 *
 * error and drop complete the bio at once.  corrupt changes the data: reads
 * after they complete, writes on a copy (the caller's pages are never
 * touched).  torn writes a prefix of the bio through a clone and completes
 * the original with the rule's status.  delay and stall park the bio on a
 * per-device list that a timer and a work item drain; presuspend releases
 * everything held.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

/* Flip bits or set a byte in the data described by @iter. */
static void fault_corrupt_data(struct fault_rule *rule, struct bio *bio, struct bvec_iter iter)
{
	const struct fault_rule_cfg *cfg = &rule->cfg;
	unsigned int size = iter.bi_size, n, i;
	struct bvec_iter it;
	struct bio_vec bv;
	u64 pos;

	if (!size)
		return;
	n = cfg->byte >= 0 ? 1 : max_t(u32, cfg->bits, 1);
	for (i = 0; i < n; i++) {
		if (cfg->byte >= 0) {
			pos = cfg->offset >= 0 ? cfg->offset :
				dmf_attr_draw(&rule->cfg.attr) % size;
			if (pos >= size)
				return;
		} else {
			pos = dmf_attr_draw(&rule->cfg.attr) % ((u64)size * 8);
		}
		__bio_for_each_segment(bv, bio, it, iter) {
			u64 byte = cfg->byte >= 0 ? pos : pos / 8;
			u8 *p;

			if (byte >= bv.bv_len) {
				pos -= cfg->byte >= 0 ? bv.bv_len : (u64)bv.bv_len * 8;
				continue;
			}
			p = bvec_kmap_local(&bv);
			if (cfg->byte >= 0)
				p[byte] = cfg->byte;
			else
				p[byte] ^= 1U << (pos % 8);
			kunmap_local(p);
			break;
		}
	}
}

/* The pages of a corrupted copy (fault_corrupt_write()). */
static void fault_copy_free(struct bio *clone)
{
	struct folio_iter fi;

	bio_for_each_folio_all(fi, clone)
		folio_put(fi.folio);
}

static void fault_clone_endio(struct bio *clone)
{
	struct bio *bio = clone->bi_private;
	struct fault_per_bio *pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));

	/* torn: the original completes with the rule's status unless I/O failed */
	if (clone->bi_status)
		bio->bi_status = clone->bi_status;
	else if (pb->rule->cfg.action == FAULT_ACT_TORN)
		bio->bi_status = pb->rule->status;
	if (pb->rule->cfg.action == FAULT_ACT_CORRUPT)
		fault_copy_free(clone);
	bio_put(clone);
	bio_endio(bio);
}

/*
 * The copy of a write is made of folios of 2^order pages, at most
 * BIO_MAX_VECS of them so that one bio holds it: an O_DIRECT write of
 * 4 MiB from contiguous memory comes as one bio of 1024 pages in a few
 * multi-page segments, which a copy page by page could not hold.  Past
 * FAULT_COPY_MAX_ORDER (256 MiB in one bio) the write is refused.
 */
#define FAULT_COPY_MAX_ORDER	8

static int fault_copy_order(unsigned int bytes)
{
	unsigned long chunks = DIV_ROUND_UP(bytes, PAGE_SIZE);
	int order = 0;

	while (chunks > BIO_MAX_VECS) {
		chunks = DIV_ROUND_UP(chunks, 2);
		order++;
	}
	return order;
}

/* A copy of a write's data, corrupted, submitted in its place. */
static int fault_corrupt_write(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio,
			       gfp_t gfp)
{
	unsigned int size = bio->bi_iter.bi_size, chunk, done;
	int order = fault_copy_order(size);
	struct bio *clone;

	if (order > FAULT_COPY_MAX_ORDER) {
		DMERR_LIMIT("%s: corrupt: a write of %u bytes is more than one copy holds",
			    fault_dev_name(fc), size);
		return -E2BIG;
	}
	if (order)
		gfp |= __GFP_NORETRY | __GFP_NOWARN;
	chunk = PAGE_SIZE << order;
	clone = bio_alloc_bioset(fc->dev->bdev, DIV_ROUND_UP(size, chunk), bio->bi_opf, gfp,
				 &fc->bs);
	if (!clone)
		return -ENOMEM;
	clone->bi_iter.bi_sector = bio->bi_iter.bi_sector;
	for (done = 0; done < size; done += chunk) {
		struct folio *folio = folio_alloc(gfp, order);
		unsigned int len = min(chunk, size - done);

		/* bio_add_folio() is not exported before 6.4: its page, as it does */
		if (!folio || bio_add_page(clone, &folio->page, len, 0) != len) {
			if (folio)
				folio_put(folio);
			fault_copy_free(clone);
			bio_put(clone);
			return -ENOMEM;
		}
	}
	bio_copy_data(clone, bio);
	fault_corrupt_data(pb->rule, clone, clone->bi_iter);
	clone->bi_private = bio;
	clone->bi_end_io = fault_clone_endio;
	submit_bio_noacct(clone);
	return 0;
}

/* Write only the first sectors of @bio, then complete it with the status. */
static int fault_torn_write(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio,
			    gfp_t gfp)
{
	unsigned int sectors = bio_sectors(bio);
	s64 keep = pb->rule->cfg.keep;
	struct bio *clone;

	if (keep < 0)
		keep = sectors > 1 ? dmf_attr_draw(&pb->rule->cfg.attr) % sectors : 0;
	if (!keep) {
		bio->bi_status = pb->rule->status;
		bio_endio(bio);
		return 0;
	}
	clone = bio_alloc_clone(fc->dev->bdev, bio, gfp, &fc->bs);
	if (!clone)
		return -ENOMEM;
	if (keep < sectors)
		bio_trim(clone, 0, keep);
	clone->bi_private = bio;
	clone->bi_end_io = fault_clone_endio;
	submit_bio_noacct(clone);
	return 0;
}

static u64 fault_hold_time(struct fault_rule *rule)
{
	const struct fault_rule_cfg *cfg = &rule->cfg;
	u64 t = cfg->delay_ns, draw;

	if (cfg->action == FAULT_ACT_STALL)
		return cfg->timeout_ns ? cfg->timeout_ns : U64_MAX;
	if (cfg->jitter_ns) {
		draw = dmf_attr_draw(&rule->cfg.attr);
		if (cfg->dist == FAULT_DIST_EXP)
			t += fault_exp_sample(draw, cfg->jitter_ns);
		else
			t += mul_u64_u64_div_u64(draw >> 1, cfg->jitter_ns + 1, 1ULL << 63);
	}
	return t;
}

/* Park a bio; false if the device is suspending and it must go now. */
static bool fault_hold(struct fault_c *fc, struct fault_per_bio *pb)
{
	u64 t = fault_hold_time(pb->rule);
	unsigned long flags;
	bool held = false;

	pb->due_ns = t == U64_MAX ? U64_MAX : ktime_get_ns() + t;
	spin_lock_irqsave(&fc->held_lock, flags);
	if (fc->may_hold) {
		list_add_tail(&pb->held, &fc->held);
		fc->nr_held++;
		held = true;
		/*
		 * The timer's due time is our own, kept under the lock: asking
		 * the timer (hrtimer_active()) says "armed" while its callback
		 * is still returning after the work it queued has already
		 * walked the list, and this bio would wait for the next one.
		 */
		if (pb->due_ns < fc->held_timer_due) {
			fc->held_timer_due = pb->due_ns;
			hrtimer_start(&fc->held_timer, ns_to_ktime(pb->due_ns), HRTIMER_MODE_ABS);
		}
	}
	spin_unlock_irqrestore(&fc->held_lock, flags);
	return held;
}

/**
 * fault_act - carry out a rule's action on a bio it fired on
 * @fc: the device
 * @pb: the bio's per-bio data; pb->rule holds a reference
 * @bio: the bio, already remapped to the underlying device
 *
 * Return: a DM_MAPIO_* value for map to return.
 */
int fault_act(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio)
{
	struct fault_rule *rule = pb->rule;
	gfp_t gfp = bio->bi_opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO;
	int r = 0;

	switch (rule->cfg.action) {
	case FAULT_ACT_ERROR:
		bio->bi_status = rule->status;
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	case FAULT_ACT_DROP:
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	case FAULT_ACT_CORRUPT:
		if (bio_data_dir(bio) == READ || !bio_has_data(bio)) {
			pb->iter = bio->bi_iter;
			return DM_MAPIO_REMAPPED;
		}
		r = fault_corrupt_write(fc, pb, bio, gfp);
		break;
	case FAULT_ACT_TORN:
		if (!bio_has_data(bio))
			return DM_MAPIO_REMAPPED;
		r = fault_torn_write(fc, pb, bio, gfp);
		break;
	case FAULT_ACT_DELAY:
	case FAULT_ACT_STALL:
		if (!fault_hold(fc, pb))
			return DM_MAPIO_REMAPPED;
		break;
	default:
		return DM_MAPIO_REMAPPED;
	}
	if (r) {
		/* no memory for the copy: the caller sees a retryable error */
		bio->bi_status = r == -E2BIG ? BLK_STS_IOERR :
				 bio->bi_opf & REQ_NOWAIT ? BLK_STS_AGAIN : BLK_STS_RESOURCE;
		bio_endio(bio);
	}
	return DM_MAPIO_SUBMITTED;
}

/* Completion side of an action: read corruption happens here. */
void fault_act_end_io(struct fault_c *fc, struct fault_per_bio *pb, struct bio *bio,
		      blk_status_t *error)
{
	if (pb->rule->cfg.action == FAULT_ACT_CORRUPT && !*error &&
	    bio_data_dir(bio) == READ && pb->iter.bi_size)
		fault_corrupt_data(pb->rule, bio, pb->iter);
}

static enum hrtimer_restart fault_held_timer_fn(struct hrtimer *t)
{
	struct fault_c *fc = container_of(t, struct fault_c, held_timer);
	unsigned long flags;

	/* a bio held from now on arms the timer again; the work sees the rest */
	spin_lock_irqsave(&fc->held_lock, flags);
	fc->held_timer_due = U64_MAX;
	spin_unlock_irqrestore(&fc->held_lock, flags);
	queue_work(fc->wq, &fc->held_work);
	return HRTIMER_NORESTART;
}

/* Submit the bios that are due or released; re-arm for the next one. */
static void fault_held_work_fn(struct work_struct *w)
{
	struct fault_c *fc = container_of(w, struct fault_c, held_work);
	struct fault_per_bio *pb, *tmp;
	u64 now = ktime_get_ns(), next = U64_MAX;
	struct bio_list ready;
	struct bio *bio;

	bio_list_init(&ready);
	spin_lock_irq(&fc->held_lock);
	list_for_each_entry_safe(pb, tmp, &fc->held, held) {
		if (pb->due_ns <= now) {
			list_del_init(&pb->held);
			fc->nr_held--;
			bio_list_add(&ready, dm_bio_from_per_bio_data(pb, sizeof(*pb)));
		} else if (pb->due_ns < next) {
			next = pb->due_ns;
		}
	}
	/* never re-armed once presuspend has cancelled the timer */
	if (fc->may_hold && next < fc->held_timer_due) {
		fc->held_timer_due = next;
		hrtimer_start(&fc->held_timer, ns_to_ktime(next), HRTIMER_MODE_ABS);
	}
	spin_unlock_irq(&fc->held_lock);

	while ((bio = bio_list_pop(&ready)))
		submit_bio_noacct(bio);
}

int fault_held_init(struct fault_c *fc)
{
	INIT_LIST_HEAD(&fc->held);
	spin_lock_init(&fc->held_lock);
	hrtimer_init(&fc->held_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	fc->held_timer.function = fault_held_timer_fn;
	fc->held_timer_due = U64_MAX;
	INIT_WORK(&fc->held_work, fault_held_work_fn);
	fc->may_hold = true;
	fc->wq = alloc_workqueue("dm-fault", WQ_MEM_RECLAIM, 0);
	return fc->wq ? 0 : -ENOMEM;
}

void fault_held_exit(struct fault_c *fc)
{
	if (!fc->wq)
		return;
	fault_held_stop(fc);
	destroy_workqueue(fc->wq);
}

/**
 * fault_held_release - let held bios go, and wait until they are submitted
 * @fc: the device
 * @rule_id: release the bios that rule's stall holds with no timeout; 0:
 *	every held bio, delayed or stalled
 *
 * The bios are marked due now, under the lock, rather than the request
 * being left in a field for the work to read: two releases at once (two
 * messages, or a message and presuspend) would overwrite each other's, and
 * the stalls of the lost one would stay held until the next suspend.
 */
void fault_held_release(struct fault_c *fc, unsigned int rule_id)
{
	struct fault_per_bio *pb;

	spin_lock_irq(&fc->held_lock);
	list_for_each_entry(pb, &fc->held, held) {
		if (!rule_id || (pb->rule->cfg.id == rule_id && pb->due_ns == U64_MAX))
			pb->due_ns = 0;
	}
	spin_unlock_irq(&fc->held_lock);
	queue_work(fc->wq, &fc->held_work);
	flush_work(&fc->held_work);
}

/*
 * presuspend (and dtr): hold nothing more, let everything held go.  With
 * may_hold false neither a new bio nor the work arms the timer again, so
 * after the cancel nothing can queue work on fc->wq: dtr may destroy it.
 */
void fault_held_stop(struct fault_c *fc)
{
	spin_lock_irq(&fc->held_lock);
	fc->may_hold = false;
	spin_unlock_irq(&fc->held_lock);
	hrtimer_cancel(&fc->held_timer);
	fault_held_release(fc, 0);
	flush_workqueue(fc->wq);
	spin_lock_irq(&fc->held_lock);
	fc->held_timer_due = U64_MAX;
	spin_unlock_irq(&fc->held_lock);
}

void fault_held_start(struct fault_c *fc)
{
	spin_lock_irq(&fc->held_lock);
	fc->may_hold = true;
	spin_unlock_irq(&fc->held_lock);
}
