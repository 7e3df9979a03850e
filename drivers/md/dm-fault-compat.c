// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault compatibility tables: the table lines of dm-flakey, dm-delay and
 * dm-error, turned into fault rules, and printed back as those targets print
 * them.  The devices get dm-fault's statistics, log and messages on top.
 * The lines are read and printed by dm-fault-args.c.
 */
#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

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
	r = fault_ctx_create(ti, FAULT_FLAKEY);
	if (r)
		goto bad;
	fc = ti->private;
	r = fault_ctx_open(fc, &as);
	if (r)
		goto bad;
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
	r = fault_ctx_create(ti, FAULT_DELAY);
	if (r)
		goto bad;
	fc = ti->private;
	ca = &fc->cargs;
	r = fault_ctx_open(fc, &as);
	if (r)
		goto bad;
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

void fault_compat_table(struct fault_c *fc, char *result, unsigned int maxlen)
{
	switch (fc->compat) {
	case FAULT_FLAKEY:
		fault_flakey_format(&fc->cargs, fc->dev->name, fc->start, result, maxlen);
		break;
	case FAULT_DELAY:
		fault_delay_format(&fc->cargs, fc->dev->name, fc->start, result, maxlen);
		break;
	default:
		result[0] = '\0';
		break;
	}
}
