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

#include <linux/ctype.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dm-fault.h"

#define CREATE_TRACE_POINTS
#include "dm_fault_trace.h"

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
	if (!fc->stats) {
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
	return 0;
}

/* Parse "<dev> <offset>" and open the device. */
int fault_ctx_open(struct fault_c *fc, struct dm_arg_set *as)
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
	if (r)
		ti->error = "Device lookup failed";
	return r;
}

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
	unsigned int i;
	int r;

	if (argc < 2) {
		ti->error = "Invalid argument count";
		return -EINVAL;
	}
	r = fault_ctx_create(ti, FAULT_NATIVE);
	if (r)
		goto bad;
	r = fault_ctx_open(ti->private, &as);
	if (r)
		goto bad;
	/* a write cache of our own, when on: flush and FUA must reach us */
	ti->flush_supported = true;
	r = fault_table_parse_rules(&ta, &as, &ti->error);
	if (r)
		goto bad;
	for (i = 0; i < ta.nr_rules; i++) {
		r = fault_rules_add_text(ti->private, ta.rules[i], NULL, &ti->error);
		if (r) {
			DMERR("rule '%s': %s", ta.rules[i], ti->error);
			goto bad;
		}
	}
	r = fault_ctr_features(ti->private, &ta, &as);
	if (r)
		goto bad;
	return 0;

bad:
	fault_ctx_destroy(ti);
	return r;
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
	if (fc->dev)
		dm_put_device(ti, fc->dev);
	kfree(fc);
	ti->private = NULL;
}

static unsigned int fault_bio_op(struct bio *bio, unsigned int *opbits)
{
	unsigned int op;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		op = FAULT_OP_READ;
		break;
	case REQ_OP_WRITE:
		op = bio_sectors(bio) ? FAULT_OP_WRITE : FAULT_OP_FLUSH;
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		op = FAULT_OP_DISCARD;
		break;
	case REQ_OP_WRITE_ZEROES:
		op = FAULT_OP_WRITE_ZEROES;
		break;
	default:
		op = FAULT_OP_OTHER;
		break;
	}
	*opbits = 1U << op;
	if (bio->bi_opf & REQ_PREFLUSH)
		*opbits |= 1U << FAULT_OP_FLUSH;
	if (bio->bi_opf & REQ_FUA)
		*opbits |= FAULT_OPM_FUA;
	return op;
}

static void fault_log(struct fault_c *fc, struct fault_rule *rule, unsigned int op,
		      sector_t sector, unsigned int bytes)
{
	struct fault_log_entry *e;
	unsigned long flags;

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

static int fault_map(struct dm_target *ti, struct bio *bio)
{
	struct fault_c *fc = ti->private;
	struct fault_per_bio *pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));
	sector_t sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	blk_status_t bad = BLK_STS_OK;
	struct fault_op_stats *st;
	struct fault_ruleset *set;
	unsigned int opbits, i;
	int r;

	pb->rule = NULL;
	pb->op = fault_bio_op(bio, &opbits);
	/* first, as a disk's medium errors: it may shorten the bio */
	if (unlikely(READ_ONCE(fc->bad)))
		bad = fault_bad_map(fc, bio, pb->op, sector);
	pb->bytes = bio->bi_iter.bi_size;

	st = get_cpu_ptr(fc->stats);
	st->bios[pb->op]++;
	st->bytes[pb->op] += pb->bytes;
	put_cpu_ptr(fc->stats);
	if (unlikely(bad)) {
		bio->bi_status = bad;
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}

	rcu_read_lock();
	set = rcu_dereference(fc->rules);
	if (set && !fault_ruleset_may_match(set, opbits, sector, pb->bytes)) {
		this_cpu_inc(*set->skipped);
		set = NULL;
	}

	for (i = 0; set && i < set->nr; i++) {
		if (fault_rule_fires(set->rules[i], opbits, sector, pb->bytes)) {
			pb->rule = set->rules[i];
			fault_rule_get(pb->rule);
			break;
		}
	}
	rcu_read_unlock();

	if (unlikely(!fc->dev)) {
		/* fault-error: nothing below; a disabled rule still fails */
		if (!pb->rule)
			return DM_MAPIO_KILL;
	} else {
		bio_set_dev(bio, fc->dev->bdev);
		if (bio_sectors(bio))
			bio->bi_iter.bi_sector = fc->start + sector;
	}
	if (unlikely(pb->rule))
		fault_log(fc, pb->rule, pb->op, sector, pb->bytes);
	if (unlikely(fc->cache)) {
		r = fault_cache_map(fc, pb, bio, sector);
		if (r >= 0)
			return r;
	}
	if (unlikely(pb->rule))
		return fault_act(fc, pb, bio);
	return DM_MAPIO_REMAPPED;
}

static int fault_end_io(struct dm_target *ti, struct bio *bio, blk_status_t *error)
{
	struct fault_c *fc = ti->private;
	struct fault_per_bio *pb = dm_per_bio_data(bio, sizeof(struct fault_per_bio));
	struct fault_op_stats *st;

	if (*error) {
		st = get_cpu_ptr(fc->stats);
		st->failed[pb->op]++;
		st->failed_bytes[pb->op] += pb->bytes;
		put_cpu_ptr(fc->stats);
	}
	if (pb->rule) {
		fault_act_end_io(fc, pb, bio, error);
		fault_rule_put(pb->rule);
		pb->rule = NULL;
	}
	return DM_ENDIO_DONE;
}

static void fault_sum_op_stats(struct fault_c *fc, struct fault_op_stats *sum)
{
	int cpu, op;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct fault_op_stats *st = per_cpu_ptr(fc->stats, cpu);

		for (op = 0; op < FAULT_NR_OPS; op++) {
			sum->bios[op] += READ_ONCE(st->bios[op]);
			sum->bytes[op] += READ_ONCE(st->bytes[op]);
			sum->failed[op] += READ_ONCE(st->failed[op]);
			sum->failed_bytes[op] += READ_ONCE(st->failed_bytes[op]);
		}
	}
}

/*
 * One snapshot of the counters, in one of two forms: the INFO status, the
 * machine-readable one (words on one line: the op count and op words, the
 * rule count and rule words, the held bios), or the stats message reply,
 * the same values one group per line for people.  Caller: rcu_read_lock().
 */
static void fault_emit_counters(struct fault_c *fc, struct fault_ruleset *set, bool readable,
				char *result, unsigned int maxlen)
{
	unsigned int sz = 0, i, held = READ_ONCE(fc->nr_held);
	u64 skipped = set ? fault_ruleset_skipped(set) : 0, seen;
	struct fault_op_stats sum;
	struct dmf_counters c;
	struct fault_rule *rule;
	int op;

	fault_sum_op_stats(fc, &sum);
	if (readable)
		DMEMIT("held %u\n", held);
	else
		DMEMIT("%u", FAULT_NR_OPS);
	for (op = 0; op < FAULT_NR_OPS; op++)
		DMEMIT(readable ? "op %s bios=%llu bytes=%llu failed=%llu failed_bytes=%llu\n" :
		       " %s:%llu:%llu:%llu:%llu", fault_op_name(op), sum.bios[op], sum.bytes[op],
		       sum.failed[op], sum.failed_bytes[op]);
	if (!readable)
		DMEMIT(" %u", set ? set->nr : 0);
	for (i = 0; set && i < set->nr; i++) {
		rule = set->rules[i];
		dmf_attr_counters(&rule->cfg.attr, &c);
		seen = fault_rule_seen(rule, skipped);
		if (!readable) {
			DMEMIT(" %u:%llu:%llu:%llu:%s:%d:%llu", rule->cfg.id, seen, c.evaluated,
			       c.injected, fault_action_name(rule->cfg.action),
			       READ_ONCE(rule->cfg.enabled), rule->cfg.attr.seed);
			continue;
		}
		DMEMIT("rule %u action=%s enabled=%d ", rule->cfg.id,
		       fault_action_name(rule->cfg.action), READ_ONCE(rule->cfg.enabled));
		DMEMIT("seen=%llu matched=%llu injected=%llu seed=%llu\n", seen, c.evaluated,
		       c.injected, rule->cfg.attr.seed);
	}
	if (!readable)
		DMEMIT(" %u", held);
	fault_cache_emit(fc, readable, result, maxlen, &sz);
	fault_bad_emit(fc, readable, result, maxlen, &sz);
}

static void fault_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result, unsigned int maxlen)
{
	struct fault_c *fc = ti->private;
	struct fault_ruleset *set;
	unsigned int sz = 0, i;

	if (fc->compat == FAULT_DUST && type != STATUSTYPE_IMA) {
		fault_dust_status(fc, type, result, maxlen);
		return;
	}
	rcu_read_lock();
	set = rcu_dereference(fc->rules);
	switch (type) {
	case STATUSTYPE_INFO:
		fault_emit_counters(fc, set, false, result, maxlen);
		break;
	case STATUSTYPE_TABLE:
		if (fc->compat != FAULT_NATIVE) {
			fault_compat_table(fc, result, maxlen);
			break;
		}
		DMEMIT("%s %llu", fc->dev->name, (unsigned long long)fc->start);
		if (set || fc->cache_in_table)
			DMEMIT(" %u", set ? set->nr : 0);
		for (i = 0; set && i < set->nr; i++) {
			DMEMIT(" ");
			sz += fault_rule_cfg_format(&set->rules[i]->cfg, result + sz, maxlen - sz);
		}
		fault_cache_table(fc, result, maxlen, &sz);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",device_name=%s,start=%llu,rule_count=%u;",
		       fc->dev ? fc->dev->name : "none",
		       (unsigned long long)fc->start, set ? set->nr : 0);
		break;
	}
	rcu_read_unlock();
}

static int fault_msg_stats(struct fault_c *fc, char *result, unsigned int maxlen)
{
	rcu_read_lock();
	fault_emit_counters(fc, rcu_dereference(fc->rules), true, result, maxlen);
	rcu_read_unlock();
	return 1;
}

static int fault_msg_log(struct fault_c *fc, char *result, unsigned int maxlen)
{
	struct fault_log_entry e;
	unsigned int sz = 0, i, n, head;
	unsigned long flags;

	spin_lock_irqsave(&fc->log_lock, flags);
	n = fc->log_count;
	head = fc->log_head;
	spin_unlock_irqrestore(&fc->log_lock, flags);
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&fc->log_lock, flags);
		e = fc->log[(head + FAULT_LOG_SIZE - n + i) % FAULT_LOG_SIZE];
		spin_unlock_irqrestore(&fc->log_lock, flags);
		DMEMIT("%llu.%06llu %s %llu %u %u %s\n", e.ns / NSEC_PER_SEC,
		       (e.ns % NSEC_PER_SEC) / NSEC_PER_USEC, fault_op_name(e.op),
		       (unsigned long long)e.sector, e.bytes, e.rule_id,
		       fault_action_name(e.action));
	}
	return 1;
}

static int fault_msg_list(struct fault_c *fc, char *result, unsigned int maxlen)
{
	struct fault_ruleset *set;
	unsigned int sz = 0, i;

	rcu_read_lock();
	set = rcu_dereference(fc->rules);
	for (i = 0; set && i < set->nr; i++) {
		sz += fault_rule_cfg_format(&set->rules[i]->cfg, result + sz, maxlen - sz);
		DMEMIT("\n");
	}
	rcu_read_unlock();
	return 1;
}

/*
 * A rule message fault_msg_parse() read, or refused with @error: the
 * warning names the message's words either way.
 */
static int fault_msg_rule(struct fault_c *fc, const struct fault_msg *m, char *error,
			  unsigned int argc, char **argv, char *result, unsigned int maxlen)
{
	unsigned int id, sz = 0;
	int r = -EINVAL;

	if (error) {
		/* refused by the parser */
	} else if (m->cmd == FAULT_MSG_RULE_LIST) {
		return fault_msg_list(fc, result, maxlen);
	} else if (m->cmd == FAULT_MSG_RULE_ADD) {
		r = fault_rules_add_text(fc, m->rule, &id, &error);
		if (!r) {
			DMEMIT("%u", id);
			return 1;
		}
	} else if (m->cmd == FAULT_MSG_RULE_REPLACE) {
		r = fault_rules_replace(fc, m->id, m->rule, &error);
	} else if (m->cmd == FAULT_MSG_RULE_REMOVE) {
		r = fault_rules_remove(fc, m->id, &error);
	} else {
		r = fault_rules_enable(fc, m->id, m->cmd == FAULT_MSG_RULE_ENABLE, &error);
	}
	if (r) {
		DMWARN("%s: rule %s '%s': %s", dm_device_name(dm_table_get_md(fc->ti->table)),
		       argv[1], argv[argc - 1], error);
		return r;
	}
	/* the replaced set has carried its skipped bios in: status is whole */
	rcu_barrier();
	return 0;
}

static int fault_msg_reset(struct fault_c *fc)
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
 * Messages: the words are read by fault_msg_parse() (dm-fault-args.c, also
 * built on the host); here is what they do to the device.
 */
static int fault_message(struct dm_target *ti, unsigned int argc, char **argv,
			 char *result, unsigned int maxlen)
{
	struct fault_c *fc = ti->private;
	const char *name = dm_device_name(dm_table_get_md(ti->table));
	struct fault_msg m;
	char *error = NULL;
	int r;

	if (fc->compat == FAULT_DUST) {
		r = fault_dust_message(fc, argc, argv, result, maxlen);
		if (r != -ENOTTY)
			return r;
	}
	r = fault_msg_parse(&m, argc, argv, &error);
	if (m.cmd >= FAULT_MSG_BAD && m.cmd < FAULT_MSG_CACHE)
		return fault_bad_message(fc, &m, r ? error : NULL, result, maxlen);
	if (m.cmd >= FAULT_MSG_CACHE)
		return fault_cache_message(fc, &m, r ? error : NULL, result, maxlen);
	if (m.cmd >= FAULT_MSG_RULE && m.cmd <= FAULT_MSG_RULE_LIST)
		return fault_msg_rule(fc, &m, r ? error : NULL, argc, argv, result, maxlen);
	if (r && m.cmd == FAULT_MSG_RELEASE)
		DMWARN("%s: release: invalid rule id '%s'", name, argv[1]);
	else if (r && argc)
		DMWARN("%s: unrecognised message '%s'", name, argv[0]);
	if (r)
		return r;
	switch (m.cmd) {
	case FAULT_MSG_STATS:
		return fault_msg_stats(fc, result, maxlen);
	case FAULT_MSG_LOG:
		return fault_msg_log(fc, result, maxlen);
	case FAULT_MSG_RELEASE:
		fault_held_release(fc, m.id);
		return 0;
	default:
		return fault_msg_reset(fc);
	}
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
