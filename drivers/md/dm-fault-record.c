// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault's volatile write cache: recording a workload and presenting
 * its crash states.
 *
 * "record" keeps every write in memory and writes nothing back: flushes are
 * recorded as barriers between epochs, "mark" adds a labelled step.  After
 * a "crash", "view" presents one crash state of the recording at a time:
 * the untouched disk below, the recorded writes the state keeps, and a
 * scratch overlay that takes the check's own writes and is thrown away by
 * the next view.  One recorded run so gives as many crash states as a
 * checker wants to try.  "record list" pages through the recording, for a
 * checker to choose the states from.  A recording past the cache's limit
 * overflows: its writes fail, and the state says so.
 *
 * Calls go one way (see dm-fault-cache.h): dm-fault.c (the messages),
 * dm-fault-cache.c and dm-fault-crash.c call this file; it calls only the
 * store, dm-fault-cache-store.c.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "dm-fault-cache.h"

#define DM_MSG_PREFIX "fault"

/* writes a "record list" reply gives */
#define FAULT_REC_PAGE		1024

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
bool fault_rec_flush(struct fault_cache *c)
{
	if (c->state == FAULT_CACHE_RECORD)
		return fault_rec_barrier(c);
	if (c->state != FAULT_CACHE_VIEW)
		return false;
	c->st.flushes++;
	return true;
}

/*
 * crash while recording or viewing: the power fails, the recording stays.
 * Caller: c->mutex.  Return: 1, with the recording's counts in @result.
 */
int fault_rec_crash(struct fault_cache *c, char *result, unsigned int maxlen)
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

/* Let a recording go: its blocks, barriers and marks. Caller: c->mutex. */
void fault_rec_drop(struct fault_cache *c)
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

/**
 * fault_rec_msg_mark - "mark [<label>]"
 * @fc: the device
 * @m: the parsed message
 * @result: unused: no reply
 * @maxlen: unused
 *
 * While recording, a labelled step of the recording; with the cache on,
 * the start of the trigger's counts and of the lost list's numbers, with
 * what was written before it (the setup's writes) on the disk.
 *
 * Return: 0 or -errno.
 */
int fault_rec_msg_mark(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	struct fault_rec_mark *mk;
	const char *error = NULL;

	if (!c)
		return -EINVAL;
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

/**
 * fault_rec_msg_record - "record": keep every write, write none back
 * @fc: the device
 * @m: the parsed message
 * @result: unused: no reply
 * @maxlen: unused
 *
 * The cache is written back first: the recording starts from the disk.
 *
 * Return: 0 or -errno.
 */
int fault_rec_msg_record(struct fault_c *fc, const struct fault_msg *m, char *result,
			 unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	const char *error = NULL;
	struct fault_rec *rec;
	int r;

	if (!c)
		return -EINVAL;
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

/**
 * fault_rec_msg_list - "record list <from>": a page of the recording
 * @fc: the device
 * @m: the parsed message
 * @result: the reply, as fault_rec_list() writes it
 * @maxlen: its size
 *
 * Return: 1 with the reply, or -EINVAL when there is no recording.
 */
int fault_rec_msg_list(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	bool have;

	if (!c)
		return -EINVAL;
	mutex_lock(&c->mutex);
	have = c->rec;
	if (have)
		fault_rec_list(c, m->from, result, maxlen);
	mutex_unlock(&c->mutex);
	return have ? 1 : fault_cache_refuse(fc, "record list", "no recording");
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
	fault_cache_unlink(c, scratch);
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

/**
 * fault_rec_msg_view - "view keep=<list> [tear=<list>]": a crash state
 * @fc: the device
 * @m: the parsed message
 * @result: unused: no reply
 * @maxlen: unused
 *
 * The view shows the disk below, the recorded writes @m->keep names (some
 * torn, as @m->tear says) and the check's own writes, which the next view
 * throws away.
 *
 * Return: 0 or -errno.
 */
int fault_rec_msg_view(struct fault_c *fc, const struct fault_msg *m, char *result,
		       unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	struct fault_view v = { .ranges = NULL, .tears = NULL };
	struct fault_cw *scratch = NULL;
	const char *error = NULL;
	bool nomem;

	if (!c)
		return -EINVAL;
	if (fault_view_parse(&v, m->keep, m->tear, &error))
		goto out;
	v.ranges = kvmalloc_array(max(v.nr_ranges, 1U), sizeof(*v.ranges), GFP_KERNEL);
	v.tears = kmalloc_array(max(v.nr_tears, 1U), sizeof(*v.tears), GFP_KERNEL);
	if (!v.ranges || !v.tears || fault_view_parse(&v, m->keep, m->tear, &error))
		goto out;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	spin_lock(&c->lock);
	if (!c->rec || (c->state != FAULT_CACHE_CRASHED && c->state != FAULT_CACHE_VIEW))
		error = c->rec ? "crash the recording first" : "no recording";
	else
		scratch = fault_view_apply(c, &v);
	spin_unlock(&c->lock);
	fault_cw_free_list(c, scratch);
	mutex_unlock(&c->mutex);
out:
	nomem = !error && (!v.ranges || !v.tears);
	kvfree(v.ranges);
	kfree(v.tears);
	if (nomem) {
		fault_cache_refuse(fc, "view", "Cannot allocate the view");
		return -ENOMEM;
	}
	return fault_cache_refuse(fc, "view", error);
}
