// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault rules at run time: creation from text, reference counting, the
 * match predicate the I/O path calls, and the RCU-published rule set.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

static const blk_status_t dmf_blk_status[DMF_NR_STATUS] = {
	[DMF_STS_OK] = BLK_STS_OK,
	[DMF_STS_IOERR] = BLK_STS_IOERR,
	[DMF_STS_NOSPC] = BLK_STS_NOSPC,
	[DMF_STS_TIMEOUT] = BLK_STS_TIMEOUT,
	[DMF_STS_MEDIUM] = BLK_STS_MEDIUM,
	[DMF_STS_TRANSPORT] = BLK_STS_TRANSPORT,
	[DMF_STS_NOTSUPP] = BLK_STS_NOTSUPP,
	[DMF_STS_AGAIN] = BLK_STS_AGAIN,
	[DMF_STS_PROTECTION] = BLK_STS_PROTECTION,
	[DMF_STS_TARGET] = BLK_STS_TARGET,
	[DMF_STS_RESOURCE] = BLK_STS_RESOURCE,
};

static void dmf_rule_free(struct dmf_rule *rule)
{
	free_percpu(rule->seen);
	dmf_rule_cfg_destroy(&rule->cfg);
	kfree(rule);
}

/**
 * dmf_rule_create - build a rule from its text
 * @fc: the device (for the next free id)
 * @text: "<action>[:<key>=<value>,...]"
 * @error: set to a static string on failure
 *
 * The caller holds fc->lock.  Ids are not checked for clashes here.
 *
 * Return: the rule with one reference, or an ERR_PTR.
 */
struct dmf_rule *dmf_rule_create(struct fault_c *fc, const char *text, char **error)
{
	struct dmf_rule_err err = { };
	struct dmf_rule *rule;
	int r;

	rule = kzalloc(sizeof(*rule), GFP_KERNEL);
	if (!rule) {
		*error = "Cannot allocate rule";
		return ERR_PTR(-ENOMEM);
	}
	r = dmf_rule_cfg_init(&rule->cfg);
	if (r) {
		kfree(rule);
		*error = "Cannot allocate rule";
		return ERR_PTR(r);
	}
	rule->seen = alloc_percpu(u64);
	if (!rule->seen) {
		dmf_rule_free(rule);
		*error = "Cannot allocate rule";
		return ERR_PTR(-ENOMEM);
	}
	r = dmf_rule_cfg_parse(&rule->cfg, text, &err);
	if (r) {
		dmf_rule_free(rule);
		*error = (char *)err.reason;
		return ERR_PTR(r);
	}
	kref_init(&rule->ref);
	rule->status = dmf_blk_status[rule->cfg.status];
	rule->start_jiffies = jiffies;
	rule->skip_base = dmf_bios_skipped(fc);
	rule->cfg.attr.name = dm_device_name(dm_table_get_md(fc->ti->table));
	return rule;
}

void dmf_rule_get(struct dmf_rule *rule)
{
	kref_get(&rule->ref);
}

static void dmf_rule_release(struct kref *ref)
{
	dmf_rule_free(container_of(ref, struct dmf_rule, ref));
}

void dmf_rule_put(struct dmf_rule *rule)
{
	kref_put(&rule->ref, dmf_rule_release);
}

/* Is the rule's time window open?  flakey's cycle: up first, then down. */
bool dmf_rule_window_open(const struct dmf_rule *rule)
{
	const struct dmf_rule_cfg *cfg = &rule->cfg;
	unsigned long elapsed = (jiffies - rule->start_jiffies) / HZ;

	if (elapsed < cfg->after_s)
		return false;
	if (!cfg->down_s)
		return true;
	elapsed -= cfg->after_s;
	return elapsed % (cfg->up_s + cfg->down_s) >= cfg->up_s;
}

/*
 * Bios the rule saw: those that reached it in the walk, plus those the
 * rule set's bounds let skip the walk (@skipped, the device's count) since
 * the rule started counting.
 */
u64 dmf_rule_seen(const struct dmf_rule *rule, u64 skipped)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(rule->seen, cpu));
	return sum + (skipped > rule->skip_base ? skipped - rule->skip_base : 0);
}

/* Zero the rule's counters; the device's were zeroed just before. */
void dmf_rule_clear_counters(struct dmf_rule *rule)
{
	int cpu;

	rule->skip_base = 0;
	for_each_possible_cpu(cpu)
		per_cpu(*rule->seen, cpu) = 0;
	dmf_attr_clear_counters(&rule->cfg.attr);
}

struct dmf_ruleset *dmf_ruleset_alloc(unsigned int nr)
{
	struct dmf_ruleset *set;

	set = kzalloc(struct_size(set, rules, nr), GFP_KERNEL);
	if (set)
		set->nr = nr;
	return set;
}

/* Set the bounds dmf_ruleset_may_match() tests: the union of the rules' matches. */
void dmf_ruleset_bound(struct dmf_ruleset *set)
{
	unsigned int i;

	set->opmask = 0;
	set->first = U64_MAX;
	set->last = 0;
	for (i = 0; i < set->nr; i++) {
		const struct dmf_rule_cfg *cfg = &set->rules[i]->cfg;

		set->opmask |= cfg->opmask;
		set->first = min(set->first, cfg->first);
		set->last = max(set->last, cfg->last);
	}
}

static void dmf_rule_put_rcu(struct rcu_head *head)
{
	dmf_rule_put(container_of(head, struct dmf_rule, rcu));
}

/*
 * Drop the set's reference to a rule once no reader can still be looking
 * at it without a reference of its own.
 */
void dmf_rule_retire(struct dmf_rule *rule)
{
	call_rcu(&rule->rcu, dmf_rule_put_rcu);
}

/* Free a set that readers may still walk; its rules stay referenced. */
void dmf_ruleset_retire(struct dmf_ruleset *set)
{
	if (set)
		kfree_rcu(set, rcu);
}

/* Free a set and its rules at once: nobody can see it any more. */
void dmf_ruleset_free(struct dmf_ruleset *set)
{
	unsigned int i;

	if (!set)
		return;
	for (i = 0; i < set->nr; i++)
		dmf_rule_put(set->rules[i]);
	kfree(set);
}
