// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault compatibility targets: devices made from the table lines of
 * dm-flakey, dm-delay, dm-error and dm-dust, which behave as those targets
 * do and print their status and table lines as they print them, with
 * dm-fault's statistics, log, messages and rules on top.  Flakey, delay
 * and error tables become fault rules; a dust table becomes a bad-block
 * map (dm-fault-bad.c) with dm-dust's messages, replies and log lines.
 * The lines and dm-dust's messages are read and printed by
 * dm-fault-compat-args.c, which the host tests build.
 *
 * As dm-dust: blocks are numbered as the device below numbers them, bios
 * are split at block boundaries, the map starts disabled ("enable" makes
 * reads of bad blocks fail), a failure is an I/O error, a write to a bad
 * block (any part of it) fails its write fail count of times and then
 * removes the block.  The replies, log lines and their levels, and the
 * reasons and errnos of a refused table are dm-dust's, word for word.
 * Where dm-dust is wrong fault-dust is not: an empty flush writes no
 * block (dm-dust takes it for a write to block 0), a discard heals every
 * block it covers (dm-dust, its first), and the heal line names the block
 * written (dm-dust divides its number once more).
 */
#include <linux/device-mapper.h>

#include "dm-fault.h"

/* the only lines these targets log are fault-dust's, in dm-dust's words */
#define DM_MSG_PREFIX "dust"

/* Flakey's writes: everything bio_data_dir() calls a write. */
#define FLAKEY_WRITES	(BIT(FAULT_OP_WRITE) | BIT(FAULT_OP_FLUSH) | \
				 BIT(FAULT_OP_DISCARD) | BIT(FAULT_OP_WRITE_ZEROES))
#define FLAKEY_READS	(BIT(FAULT_OP_READ) | BIT(FAULT_OP_OTHER))

/*
 * A rule that does @action to the operations @ops, and for a flakey table
 * only in its down interval.  The caller sets what else the rule needs and
 * adds it with fault_compat_add(): no rule text is printed and parsed again.
 */
static struct fault_rule *fault_compat_rule(struct fault_c *fc, enum fault_action action,
					    unsigned int ops)
{
	struct fault_rule *rule = fault_rule_alloc(fc, &fc->ti->error);

	if (!rule)
		return NULL;
	rule->cfg.action = action;
	rule->cfg.opmask = ops;
	if (fc->compat == FAULT_FLAKEY) {
		rule->cfg.up_s = fc->cargs.up;
		rule->cfg.down_s = fc->cargs.down;
	}
	return rule;
}

/* Append @rule (NULL: fault_compat_rule() failed) to the device's rules. */
static int fault_compat_add(struct fault_c *fc, struct fault_rule *rule)
{
	if (!rule)
		return -ENOMEM;
	return fault_rules_add(fc, rule, NULL, &fc->ti->error);
}

/* flakey's random_{read,write}_corrupt: flip one bit, @p times in 10^9. */
static int fault_flakey_random_corrupt(struct fault_c *fc, enum fault_op op, unsigned int p)
{
	struct fault_rule *rule = fault_compat_rule(fc, FAULT_ACT_CORRUPT, BIT(op));

	if (rule) {
		rule->cfg.bits = 1;
		dmf_prob_set(&rule->cfg.attr.prob, p, FAULT_FLAKEY_PROB_BASE);
	}
	return fault_compat_add(fc, rule);
}

/* The rules that do in the down interval what dm-flakey does. */
static int fault_flakey_rules(struct fault_c *fc, bool no_features)
{
	struct fault_compat_args *ca = &fc->cargs;
	bool err_reads, err_writes;
	struct fault_rule *rule;
	enum fault_op op;
	int r = 0;

	if (!ca->down)
		return 0;
	if (FAULT_FLAKEY_V2) {
		err_reads = ca->flags & FAULT_FL_ERROR_READS;
		err_writes = ca->flags & FAULT_FL_ERROR_WRITES;
	} else {
		/* before 6.6 every I/O fails unless a feature says otherwise */
		err_reads = !(ca->flags & (FAULT_FL_DROP_WRITES | FAULT_FL_ERROR_WRITES)) &&
			    !ca->corrupt_byte;
		err_writes = (ca->flags & FAULT_FL_ERROR_WRITES) || err_reads;
	}
	if (no_features) {
		err_reads = true;
		err_writes = true;
	}

	if (err_reads)
		r = fault_compat_add(fc, fault_compat_rule(fc, FAULT_ACT_ERROR, FLAKEY_READS));
	if (!r && (ca->flags & FAULT_FL_DROP_WRITES))
		r = fault_compat_add(fc, fault_compat_rule(fc, FAULT_ACT_DROP, FLAKEY_WRITES));
	if (!r && err_writes)
		r = fault_compat_add(fc, fault_compat_rule(fc, FAULT_ACT_ERROR, FLAKEY_WRITES));
	if (!r && ca->corrupt_byte) {
		op = ca->corrupt_dir == 'w' ? FAULT_OP_WRITE : FAULT_OP_READ;
		rule = fault_compat_rule(fc, FAULT_ACT_CORRUPT, BIT(op));
		if (rule) {
			rule->cfg.byte = ca->corrupt_value;
			rule->cfg.offset = ca->corrupt_byte - 1;
		}
		r = fault_compat_add(fc, rule);
	}
	if (!r && ca->rrc)
		r = fault_flakey_random_corrupt(fc, FAULT_OP_READ, ca->rrc);
	if (!r && ca->rwc)
		r = fault_flakey_random_corrupt(fc, FAULT_OP_WRITE, ca->rwc);
	return r;
}

/*
 * Construct a flakey-compatible mapping:
 *
 *   <dev> <offset> <up interval> <down interval> [<#feature args> [<arg>]*]
 *
 * Features: drop_writes, error_writes, corrupt_bio_byte <nth> <r|w> <value>
 * <flags> (flags 0 only), and since 6.6 error_reads,
 * random_read_corrupt <p>, random_write_corrupt <p> (p per 10^9).
 */
int fault_flakey_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct fault_c *fc;
	bool no_features;
	int r;

	if (argc < 4) {
		ti->error = "Invalid argument count";
		return -EINVAL;
	}
	fc = fault_ctx_start(ti, FAULT_FLAKEY, &as);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	r = fault_flakey_parse(&fc->cargs, &as, &ti->error);
	if (r)
		goto bad;
	no_features = !fc->cargs.flags && !fc->cargs.corrupt_byte && !fc->cargs.rrc &&
		      !fc->cargs.rwc;
	if (FAULT_FLAKEY_V2 && no_features)
		fc->cargs.flags = FAULT_FL_ERROR_READS | FAULT_FL_ERROR_WRITES;
	r = fault_flakey_rules(fc, no_features);
	if (r)
		goto bad;
	return 0;

bad:
	fault_ctx_destroy(ti);
	return r;
}

/*
 * Construct a delay-compatible mapping:
 *
 *   <dev> <offset> <ms> [<dev> <offset> <write ms> [<dev> <offset> <flush ms>]]
 *
 * Every class must map the same device and offset: a fault device has one
 * device below it.
 */
int fault_delay_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	static const unsigned int ops[3] = {
		BIT(FAULT_OP_READ) | BIT(FAULT_OP_OTHER),
		BIT(FAULT_OP_WRITE) | BIT(FAULT_OP_DISCARD) | BIT(FAULT_OP_WRITE_ZEROES),
		BIT(FAULT_OP_FLUSH),
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct fault_compat_args *ca;
	struct fault_rule *rule;
	struct fault_c *fc;
	unsigned int i, ms;
	int r;

	if (argc != 3 && argc != 6 && argc != 9) {
		ti->error = "Requires exactly 3, 6 or 9 arguments";
		return -EINVAL;
	}
	fc = fault_ctx_start(ti, FAULT_DELAY, &as);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	ca = &fc->cargs;
	r = fault_delay_parse(ca, argc, argv, &ti->error);
	if (r)
		goto bad;
	/* one class delays everything; two: reads, then writes and flushes */
	for (i = 0; i < 3; i++) {
		ms = ca->delay_ms[min(i, ca->nr_delay - 1)];
		if (!ms)
			continue;
		rule = fault_compat_rule(fc, FAULT_ACT_DELAY, ops[i]);
		if (rule)
			rule->cfg.delay_ns = (u64)ms * NSEC_PER_MSEC;
		r = fault_compat_add(fc, rule);
		if (r)
			goto bad;
	}
	return 0;

bad:
	fault_ctx_destroy(ti);
	return r;
}

/*
 * Construct an error-compatible mapping: no arguments, every bio fails with
 * EIO, counted.  The rule can be replaced by message like any other.
 */
int fault_error_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct fault_c *fc;
	int r;

	if (argc) {
		ti->error = "fault-error takes no arguments";
		return -EINVAL;
	}
	r = fault_ctx_create(ti, FAULT_ERROR);
	if (!r) {
		fc = ti->private;
		r = fault_compat_add(fc, fault_compat_rule(fc, FAULT_ACT_ERROR, FAULT_OPM_ANY));
	}
	if (r)
		fault_ctx_destroy(ti);
	return r;
}

/* A write healed the block at @key: dm-dust's line for it. */
static void fault_dust_healed(struct fault_c *fc, u64 key)
{
	if (!READ_ONCE(fc->dust.quiet))
		DMINFO("block %llu removed from badblocklist by write", key >> fc->dust.shift);
}

/**
 * fault_dust_ctr - construct a fault-dust mapping: <dev> <offset> <blksz>
 * @ti: the target
 * @argc: 3
 * @argv: the words
 *
 * Return: 0 or -errno with ti->error set, in dm-dust's words.
 */
int fault_dust_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc - 1, .argv = argv };
	struct fault_compat_args ca = { .blksz = 0 };
	struct fault_c *fc;
	int r;

	r = fault_dust_parse(&ca, argc, argv, ti->len, &ti->error);
	if (r)
		return r;
	fc = fault_ctx_start(ti, FAULT_DUST, &as);
	/* dm-dust fails with -EINVAL whatever the lookup returned */
	if (IS_ERR(fc))
		return PTR_ERR(fc) == -ENOMEM ? -ENOMEM : -EINVAL;
	fc->cargs = ca;
	fc->dust.shift = __ffs(ca.blksz >> SECTOR_SHIFT);
	r = fault_bad_create(fc, fc->start, false);
	if (r) {
		ti->error = "Cannot allocate context";
		goto bad;
	}
	fc->bad->blocks = true;
	fc->bad->block_shift = fc->dust.shift;
	fc->bad->healed = fault_dust_healed;
	r = dm_set_target_max_io_len(ti, ca.blksz >> SECTOR_SHIFT);
	if (!r)
		return 0;
bad:
	fault_ctx_destroy(ti);
	return r;
}

static unsigned long long fault_dust_count(struct fault_c *fc)
{
	return READ_ONCE(fc->bad->nr_sectors) >> fc->dust.shift;
}

static int fault_dust_add(struct fault_c *fc, unsigned long long block, unsigned int wr_fail)
{
	struct fault_bad_attr a = {
		.mode = FAULT_BAD_HEAL, .status = FAULT_STS_IOERR, .wr_fail = wr_fail,
	};
	bool quiet = READ_ONCE(fc->dust.quiet);
	u64 first = block << fc->dust.shift;
	int r;

	r = fault_bad_insert(fc->bad, first, first + BIT(fc->dust.shift) - 1, &a, true);
	if (r == -EEXIST) {
		if (!quiet)
			DMERR("dust_add_block: block %llu already in badblocklist", block);
		return -EINVAL;
	}
	if (r) {
		if (!quiet)
			DMERR("dust_add_block: badblock allocation failed");
		return r;
	}
	if (!quiet)
		DMINFO("dust_add_block: badblock added at block %llu with write fail count %u",
		       block, wr_fail);
	return 0;
}

static int fault_dust_remove(struct fault_c *fc, unsigned long long block)
{
	bool quiet = READ_ONCE(fc->dust.quiet);
	u64 first = block << fc->dust.shift;
	int r;

	r = fault_bad_erase(fc->bad, first, first + BIT(fc->dust.shift) - 1, true);
	if (r == -ENOENT) {
		if (!quiet)
			DMERR("dust_remove_block: block %llu not found in badblocklist", block);
		return -EINVAL;
	}
	if (!r && !quiet)
		DMINFO("dust_remove_block: badblock removed at block %llu", block);
	return r;
}

static int fault_dust_query(struct fault_c *fc, unsigned long long block, char *result,
			    unsigned int maxlen)
{
	u64 key = block << fc->dust.shift, first, last;
	struct fault_bad_attr a;
	unsigned int sz = 0;

	if (fault_bad_next(fc->bad, key, &first, &last, &a) && first <= key)
		DMEMIT("dust_query_block: block %llu found in badblocklist", block);
	else
		DMEMIT("dust_query_block: block %llu not found in badblocklist", block);
	return 1;
}

/* Every bad block, one a line, as many as the buffer holds. */
static int fault_dust_list(struct fault_c *fc, char *result, unsigned int maxlen)
{
	unsigned int shift = fc->dust.shift, sz = 0;
	u64 pos = 0, first, last, b;
	struct fault_bad_attr a;
	bool any = false;

	while (fault_bad_next(fc->bad, pos, &first, &last, &a)) {
		for (b = first >> shift; b <= last >> shift; b++) {
			DMEMIT("%llu\n", b);
			if (sz + 1 >= maxlen)
				return 1;
		}
		any = true;
		if (last == ULONG_MAX)
			break;
		pos = last + 1;
	}
	if (!any)
		DMEMIT("No blocks in badblocklist");
	return 1;
}

/* dm-dust's line for a message it refuses, if any.  Return: -EINVAL. */
static int fault_dust_log_refusal(const struct fault_dust_msg *m, char **argv)
{
	if (m->unrecognized)
		DMERR("unrecognized message '%s' received", argv[0]);
	else if (m->why[0])
		DMERR("%s", m->why);
	return -EINVAL;
}

/* The blocks of the device below, the last one that a message may name. */
static u64 fault_dust_nr_blocks(struct fault_c *fc)
{
	return bdev_nr_sectors(fc->dev->bdev) >> fc->dust.shift;
}

/**
 * fault_dust_refused - a message that neither dm-dust's words nor the
 *                      fault target's took, refused as dm-dust refuses it
 * @fc: the device
 * @argc: number of words
 * @argv: the words
 *
 * Logs dm-dust's line for it ("unrecognized message '<word>' received", or
 * what dm-dust checks before that) at dm-dust's level, under dm-dust's
 * prefix, where the fault target would warn under its own.
 *
 * Return: -EINVAL, as dm-dust.
 */
int fault_dust_refused(struct fault_c *fc, unsigned int argc, char **argv)
{
	struct fault_dust_msg m;

	fault_dust_msg_parse(&m, argc, argv, fault_dust_nr_blocks(fc));
	return fault_dust_log_refusal(&m, argv);
}

/**
 * fault_dust_message - dm-dust's messages on a fault-dust device
 * @fc: the device
 * @argc: number of words
 * @argv: the words
 * @result: the reply buffer
 * @maxlen: its size
 *
 * Return: as dm-dust's .message, or -ENOTTY when the first word is none of
 * dm-dust's: the fault target's own messages then read the words.
 */
int fault_dust_message(struct fault_c *fc, unsigned int argc, char **argv, char *result,
		       unsigned int maxlen)
{
	struct fault_bad *bad = fc->bad;
	struct fault_dust_msg m;
	unsigned int sz = 0;
	int r;

	r = fault_dust_msg_parse(&m, argc, argv, fault_dust_nr_blocks(fc));
	if (r == -EINVAL)
		return fault_dust_log_refusal(&m, argv);
	if (r)
		return r;
	switch (m.cmd) {
	case FAULT_DUST_ADD:
		return fault_dust_add(fc, m.block, m.wr_fail);
	case FAULT_DUST_REMOVE:
		return fault_dust_remove(fc, m.block);
	case FAULT_DUST_QUERY:
		return fault_dust_query(fc, m.block, result, maxlen);
	case FAULT_DUST_DISABLE:
	case FAULT_DUST_ENABLE:
		DMINFO("%s read failures on bad sectors",
		       m.cmd == FAULT_DUST_ENABLE ? "enabling" : "disabling");
		WRITE_ONCE(bad->enabled, m.cmd == FAULT_DUST_ENABLE);
		return 0;
	case FAULT_DUST_COUNT:
		DMEMIT("countbadblocks: %llu badblock(s) found", fault_dust_count(fc));
		return 1;
	case FAULT_DUST_CLEAR:
		if (fault_dust_count(fc) && !fault_bad_clear(bad))
			DMEMIT("dust_clear_badblocks: badblocks cleared");
		else
			DMEMIT("dust_clear_badblocks: no badblocks found");
		return 1;
	case FAULT_DUST_QUIET:
		WRITE_ONCE(fc->dust.quiet, !fc->dust.quiet);
		return 0;
	default:
		return fault_dust_list(fc, result, maxlen);
	}
}

/**
 * fault_compat_status - the status lines a compatibility target prints itself
 * @fc: a device made from a compatibility table
 * @type: INFO or TABLE
 * @result: the status buffer
 * @maxlen: its size
 *
 * TABLE: the line as the target it stands for prints it (none for
 * dm-error); INFO: dm-dust's "<dev> <fail mode> <verbosity>".
 *
 * Return: true if written; false: the line is the fault target's.
 */
bool fault_compat_status(struct fault_c *fc, status_type_t type, char *result,
			 unsigned int maxlen)
{
	unsigned int sz = 0;

	if (type == STATUSTYPE_INFO && fc->compat == FAULT_DUST) {
		DMEMIT("%s %s %s", fc->dev->name,
		       READ_ONCE(fc->bad->enabled) ? "fail_read_on_bad_block" : "bypass",
		       READ_ONCE(fc->dust.quiet) ? "quiet" : "verbose");
		return true;
	}
	if (type != STATUSTYPE_TABLE)
		return false;
	switch (fc->compat) {
	case FAULT_FLAKEY:
		fault_flakey_format(&fc->cargs, fc->dev->name, fc->start, result, maxlen);
		break;
	case FAULT_DELAY:
		fault_delay_format(&fc->cargs, fc->dev->name, fc->start, result, maxlen);
		break;
	case FAULT_DUST:
		fault_dust_format(&fc->cargs, fc->dev->name, fc->start, result, maxlen);
		break;
	default:
		result[0] = '\0';
		break;
	}
	return true;
}
