// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault device context: what every fault target (fault, and the
 * flakey, delay, error and dust compatible ones) allocates, opens and
 * frees the same way.  The constructors in dm-fault.c and
 * dm-fault-compat.c build on it; it calls none of them.
 */
#include <linux/device-mapper.h>

#include <linux/ctype.h>
#include <linux/slab.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

/**
 * fault_ctx_create - allocate a device's context, with no rules and no device
 * @ti: the target; ti->private is set, so fault_ctx_destroy() undoes a partial build
 * @kind: the table syntax the device was created with
 *
 * Return: 0 or -ENOMEM with ti->error set.
 */
int fault_ctx_create(struct dm_target *ti, enum fault_compat kind)
{
	struct fault_c *fc;

	fc = kzalloc(sizeof(*fc), GFP_KERNEL);
	if (!fc) {
		ti->error = "Cannot allocate context";
		return -ENOMEM;
	}
	ti->private = fc;
	fc->ti = ti;
	fc->compat = kind;
	fc->next_id = 1;
	mutex_init(&fc->lock);
	spin_lock_init(&fc->log_lock);

	fc->stats = alloc_percpu(struct fault_op_stats);
	fc->skipped = alloc_percpu(u64);
	if (!fc->stats || !fc->skipped) {
		ti->error = "Cannot allocate statistics";
		return -ENOMEM;
	}
	if (bioset_init(&fc->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_BVECS)) {
		ti->error = "Cannot allocate bio set";
		return -ENOMEM;
	}
	if (fault_held_init(fc)) {
		ti->error = "Cannot allocate work queue";
		return -ENOMEM;
	}
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_secure_erase_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct fault_per_bio);
	fc->map_bits = FAULT_MAP_FIRST;
	fault_map_bits_update(fc);
	return 0;
}

/* Parse "<dev> <offset>" and open the device. */
static int fault_ctx_open(struct fault_c *fc, struct dm_arg_set *as)
{
	struct dm_target *ti = fc->ti;
	const char *devname = dm_shift_arg(as);
	const char *offset = dm_shift_arg(as);
	unsigned long long start;
	int r;

	if (!devname || !offset) {
		ti->error = "Invalid argument count";
		return -EINVAL;
	}
	/* not sscanf("%llu"): it takes 2^64 as 0 */
	if (!isdigit(*offset) || kstrtoull(offset, 10, &start) || start != (sector_t)start) {
		ti->error = "Invalid device sector";
		return -EINVAL;
	}
	fc->start = start;
	r = dm_get_device(ti, devname, dm_table_get_mode(ti->table), &fc->dev);
	if (r) {
		ti->error = "Device lookup failed";
		return r;
	}
	fault_map_bits_update(fc);
	return 0;
}

/**
 * fault_ctx_start - what every constructor with a device below does first
 * @ti: the target
 * @kind: the table syntax the device is created with
 * @as: the table's words; "<dev> <offset>" are shifted off
 *
 * Allocates the context and opens the device; on failure nothing is left
 * allocated, so a constructor returns at once.
 *
 * Return: the context (ti->private), or an ERR_PTR() with ti->error set.
 */
struct fault_c *fault_ctx_start(struct dm_target *ti, enum fault_compat kind,
				struct dm_arg_set *as)
{
	int r;

	r = fault_ctx_create(ti, kind);
	if (!r)
		r = fault_ctx_open(ti->private, as);
	if (r) {
		fault_ctx_destroy(ti);
		return ERR_PTR(r);
	}
	return ti->private;
}

/*
 * The destructor of every fault target; the constructors also call it to
 * undo a partial build (ti->private set by fault_ctx_create()).
 */
void fault_ctx_destroy(struct dm_target *ti)
{
	struct fault_c *fc = ti->private;

	if (!fc)
		return;
	/* No I/O can be in flight: the rules go at once. */
	fault_cache_destroy(fc);
	fault_bad_destroy(fc);
	fault_held_exit(fc);
	bioset_exit(&fc->bs);
	fault_rules_destroy(fc);
	free_percpu(fc->stats);
	free_percpu(fc->skipped);
	if (fc->dev)
		dm_put_device(ti, fc->dev);
	kfree(fc);
	ti->private = NULL;
}
