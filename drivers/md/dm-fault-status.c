// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a fault device tells: its status lines (INFO for programs, TABLE
 * that recreates it, IMA) and the stats, log and rule list replies.  One
 * snapshot of the counters feeds both the INFO line and the stats reply,
 * so the two never disagree.  Called by dm-fault.c (the target type and
 * its message table); calls down to the rules, the cache, the bad-block
 * map and the compat targets, never back.
 */
#include "dm-fault.h"

/*
 * One snapshot of a device's counters, which the INFO status prints on one
 * line for programs and the stats reply one group a line for people.
 */
struct fault_snapshot {
	struct fault_op_stats ops;
	unsigned int held;
	u64 skipped;
	const char *cache;		/* the cache's state; NULL: none */
	u64 cache_v[FAULT_NR_CACHE_STATS];
	bool bad, bad_on, bad_partial;	/* a map, and its switches */
	u64 bad_v[FAULT_NR_BAD_STATS];
};

/* A rule's counters in the snapshot's terms. */
struct fault_rule_snap {
	struct dmf_counters c;
	u64 seen;
	const char *action;
	bool enabled;
};

static void fault_snapshot(struct fault_c *fc, struct fault_snapshot *s)
{
	int cpu, op;

	memset(&s->ops, 0, sizeof(s->ops));
	for_each_possible_cpu(cpu) {
		struct fault_op_stats *st = per_cpu_ptr(fc->stats, cpu);

		for (op = 0; op < FAULT_NR_OPS; op++) {
			s->ops.bios[op] += READ_ONCE(st->bios[op]);
			s->ops.bytes[op] += READ_ONCE(st->bytes[op]);
			s->ops.failed[op] += READ_ONCE(st->failed[op]);
			s->ops.failed_bytes[op] += READ_ONCE(st->failed_bytes[op]);
		}
	}
	s->held = READ_ONCE(fc->nr_held);
	s->skipped = fault_rules_skipped(fc);
	s->cache = fault_cache_snapshot(fc, s->cache_v);
	s->bad = fault_bad_snapshot(fc, &s->bad_on, &s->bad_partial, s->bad_v);
}

static void fault_rule_snapshot(struct fault_rule *rule, u64 skipped, struct fault_rule_snap *r)
{
	dmf_attr_counters(&rule->cfg.attr, &r->c);
	r->seen = fault_rule_seen(rule, skipped);
	r->action = fault_action_name(rule->cfg.action);
	r->enabled = READ_ONCE(rule->cfg.enabled);
}

/*
 * The INFO status after "<start> <len> fault": the op count and words, the
 * rule count and words, the held bios, the cache word, the bad-map word.
 * Caller: rcu_read_lock().
 */
static void fault_emit_info(struct fault_c *fc, struct fault_ruleset *set, char *result,
			    unsigned int maxlen)
{
	struct fault_rule_snap r;
	struct fault_snapshot s;
	unsigned int sz = 0, i;
	int op;

	fault_snapshot(fc, &s);
	DMEMIT("%u", FAULT_NR_OPS);
	for (op = 0; op < FAULT_NR_OPS; op++)
		DMEMIT(" %s:%llu:%llu:%llu:%llu", fault_op_name(op), s.ops.bios[op],
		       s.ops.bytes[op], s.ops.failed[op], s.ops.failed_bytes[op]);
	DMEMIT(" %u", set ? set->nr : 0);
	for (i = 0; set && i < set->nr; i++) {
		fault_rule_snapshot(set->rules[i], s.skipped, &r);
		DMEMIT(" %u:%llu:%llu:%llu:%s:%d:%llu", set->rules[i]->cfg.id, r.seen,
		       r.c.evaluated, r.c.injected, r.action, r.enabled,
		       set->rules[i]->cfg.attr.seed);
	}
	DMEMIT(" %u", s.held);
	if (s.cache) {
		DMEMIT(" %s", s.cache);
		for (i = 0; i < FAULT_NR_CACHE_STATS; i++)
			DMEMIT(":%llu", s.cache_v[i]);
	} else {
		DMEMIT(" -");
	}
	if (s.bad) {
		DMEMIT(" %s:%d", s.bad_on ? "on" : "off", s.bad_partial);
		for (i = 0; i < FAULT_NR_BAD_STATS; i++)
			DMEMIT(":%llu", s.bad_v[i]);
	} else {
		DMEMIT(" -");
	}
}

/* The stats reply: the same snapshot, one group a line, every counter named. */
static void fault_emit_stats(struct fault_c *fc, struct fault_ruleset *set, char *result,
			     unsigned int maxlen)
{
	struct fault_rule_snap r;
	struct fault_snapshot s;
	unsigned int sz = 0, i;
	int op;

	fault_snapshot(fc, &s);
	DMEMIT("held %u\n", s.held);
	for (op = 0; op < FAULT_NR_OPS; op++)
		DMEMIT("op %s bios=%llu bytes=%llu failed=%llu failed_bytes=%llu\n",
		       fault_op_name(op), s.ops.bios[op], s.ops.bytes[op], s.ops.failed[op],
		       s.ops.failed_bytes[op]);
	for (i = 0; set && i < set->nr; i++) {
		fault_rule_snapshot(set->rules[i], s.skipped, &r);
		DMEMIT("rule %u action=%s enabled=%d ", set->rules[i]->cfg.id, r.action, r.enabled);
		DMEMIT("seen=%llu matched=%llu injected=%llu seed=%llu\n", r.seen, r.c.evaluated,
		       r.c.injected, set->rules[i]->cfg.attr.seed);
	}
	if (s.cache) {
		DMEMIT("cache state=%s", s.cache);
		for (i = 0; i < FAULT_NR_CACHE_STATS; i++)
			DMEMIT(" %s=%llu", fault_cache_stat_name(i), s.cache_v[i]);
		DMEMIT("\n");
	}
	if (s.bad) {
		DMEMIT("bad state=%s partial=%d", s.bad_on ? "on" : "off", s.bad_partial);
		for (i = 0; i < FAULT_NR_BAD_STATS; i++)
			DMEMIT(" %s=%llu", fault_bad_stat_name(i), s.bad_v[i]);
		DMEMIT("\n");
	}
}

void fault_status(struct dm_target *ti, status_type_t type,
		  unsigned int status_flags, char *result, unsigned int maxlen)
{
	struct fault_c *fc = ti->private;
	struct fault_ruleset *set;
	unsigned int sz = 0, i;

	if (fc->compat != FAULT_NATIVE && type != STATUSTYPE_IMA &&
	    fault_compat_status(fc, type, result, maxlen))
		return;
	rcu_read_lock();
	set = rcu_dereference(fc->rules);
	switch (type) {
	case STATUSTYPE_INFO:
		fault_emit_info(fc, set, result, maxlen);
		break;
	case STATUSTYPE_TABLE:
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

int fault_msg_stats(struct fault_c *fc, const struct fault_msg *m, char *result,
		    unsigned int maxlen)
{
	rcu_read_lock();
	fault_emit_stats(fc, rcu_dereference(fc->rules), result, maxlen);
	rcu_read_unlock();
	return 1;
}

int fault_msg_log(struct fault_c *fc, const struct fault_msg *m, char *result,
		  unsigned int maxlen)
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

int fault_msg_list(struct fault_c *fc, const struct fault_msg *m, char *result,
		   unsigned int maxlen)
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
