// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault rules at run time: a rule's life (creation, references, the
 * time window of the match predicate the I/O path calls) and a device's
 * rule set, an immutable array replaced as a whole under fc->lock and
 * published with RCU, so that map reads it without a lock.
 *
 * A bio the set's bounds rule out is counted once, in the device's
 * skipped counter; it counts as seen by every rule of the set.  A rule
 * keeps the value that counter had when the rule was published (or its
 * counters reset), so its seen count is its own walks plus the device's
 * skips since then: no path waits for a retired set, and the count is
 * exact whenever no bio is in flight across a rule change.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "dm-fault.h"

#define DM_MSG_PREFIX "fault"

static const blk_status_t fault_blk_status[FAULT_NR_STATUS] = {
	[FAULT_STS_OK] = BLK_STS_OK,
	[FAULT_STS_IOERR] = BLK_STS_IOERR,
	[FAULT_STS_NOSPC] = BLK_STS_NOSPC,
	[FAULT_STS_TIMEOUT] = BLK_STS_TIMEOUT,
	[FAULT_STS_MEDIUM] = BLK_STS_MEDIUM,
	[FAULT_STS_TRANSPORT] = BLK_STS_TRANSPORT,
	[FAULT_STS_NOTSUPP] = BLK_STS_NOTSUPP,
	[FAULT_STS_AGAIN] = BLK_STS_AGAIN,
	[FAULT_STS_PROTECTION] = BLK_STS_PROTECTION,
	[FAULT_STS_TARGET] = BLK_STS_TARGET,
	[FAULT_STS_RESOURCE] = BLK_STS_RESOURCE,
};

/* The block layer's status for a status a rule or a bad range names. */
blk_status_t fault_status_blk(enum fault_sts status)
{
	return status < FAULT_NR_STATUS ? fault_blk_status[status] : BLK_STS_IOERR;
}

static void fault_rule_free(struct fault_rule *rule)
{
	free_percpu(rule->seen);
	fault_rule_cfg_destroy(&rule->cfg);
	kfree(rule);
}

/**
 * fault_rule_alloc - a rule with the default configuration, on no device yet
 * @fc: the device the rule is for (its name goes in the engine's log lines)
 * @error: set to a static string on failure
 *
 * The caller fills in rule->cfg, as fault_rule_cfg_parse() does from text or
 * a compatibility table does field by field, and hands the rule to
 * fault_rules_add() or drops it with fault_rule_put().
 *
 * Return: the rule with one reference, or NULL.
 */
struct fault_rule *fault_rule_alloc(struct fault_c *fc, char **error)
{
	struct fault_rule *rule;

	rule = kzalloc(sizeof(*rule), GFP_KERNEL);
	if (!rule)
		goto out_error;
	if (fault_rule_cfg_init(&rule->cfg))
		goto out_free_rule;
	rule->seen = alloc_percpu(u64);
	if (!rule->seen) {
		fault_rule_free(rule);
		goto out_error;
	}
	kref_init(&rule->ref);
	rule->cfg.attr.name = dm_device_name(dm_table_get_md(fc->ti->table));
	return rule;

out_free_rule:
	kfree(rule);
out_error:
	*error = "Cannot allocate rule";
	return NULL;
}

void fault_rule_get(struct fault_rule *rule)
{
	kref_get(&rule->ref);
}

static void fault_rule_release(struct kref *ref)
{
	fault_rule_free(container_of(ref, struct fault_rule, ref));
}

void fault_rule_put(struct fault_rule *rule)
{
	kref_put(&rule->ref, fault_rule_release);
}

/* Is the rule's time window open?  flakey's cycle: up first, then down. */
bool fault_rule_window_open(const struct fault_rule *rule)
{
	const struct fault_rule_cfg *cfg = &rule->cfg;
	unsigned long elapsed = (jiffies - rule->start_jiffies) / HZ;

	if (elapsed < cfg->after_s)
		return false;
	if (!cfg->down_s)
		return true;
	elapsed -= cfg->after_s;
	return elapsed % (cfg->up_s + cfg->down_s) >= cfg->up_s;
}

/**
 * fault_rule_seen - bios a rule saw
 * @rule: a rule of the current set
 * @skipped: fault_rules_skipped() of the device
 *
 * Those that reached the rule in the walk, and those the device's rule
 * sets skipped since the rule was published or its counters reset.  A bio
 * in flight across a rule change, which read the set before or after it,
 * may count for the rules of the other set.
 */
u64 fault_rule_seen(const struct fault_rule *rule, u64 skipped)
{
	u64 sum = 0, base = READ_ONCE(rule->skip_base);
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(rule->seen, cpu));
	return sum + (skipped > base ? skipped - base : 0);
}

/* Bios the device's rule sets ruled out by their bounds, ever. */
u64 fault_rules_skipped(struct fault_c *fc)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(fc->skipped, cpu));
	return sum;
}

static struct fault_ruleset *fault_ruleset_alloc(unsigned int nr)
{
	struct fault_ruleset *set;

	set = kzalloc(struct_size(set, rules, nr), GFP_KERNEL);
	if (!set)
		return NULL;
	set->nr = nr;
	return set;
}

/* Drop the set's references to its rules and free it: nobody can see it. */
static void fault_ruleset_free(struct fault_ruleset *set)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		fault_rule_put(set->rules[i]);
	kfree(set);
}

/* A grace period after the set was replaced no map can still be reading it. */
static void fault_ruleset_retire_rcu(struct rcu_head *head)
{
	fault_ruleset_free(container_of(head, struct fault_ruleset, rcu));
}

/**
 * fault_rules_summarise - derive what map reads in place of the rules
 * @fc: the device; the caller holds fc->lock
 * @set: the set about to be published (empty: none), or the current set
 *	 once a rule of it was switched on or off
 *
 * map settles most bios without reading a rule's match keys: by
 * fc->map_bits, fc->bounds, set->by_flags and each rule's plain flag.
 * Each is derived here from the rules, and nowhere else:
 *
 * - rule->plain: the rule is enabled and has no match key but its
 *   operations, so fault_rule_match() tests only those;
 * - set->by_flags: a rule matches FUA or preflush, so the walk computes the
 *   bio's flag bits (fault_rules_opbits());
 * - fc->bounds: the union of the rules' sector ranges;
 * - fc->map_bits: FAULT_MAP_RULES, the rules' operation classes (a FUA or
 *   preflush match is a write's; an empty flush has a class of its own),
 *   and FAULT_MAP_ALL when the bounds are every sector and every class;
 *   FAULT_MAP_FIRST and FAULT_MAP_EXTRA, which are not the rules', are
 *   kept.
 *
 * A bio that the bounds rule out (fault_rules_may_match()) is counted
 * once, in fc->skipped, and fault_rule_seen() adds that count past its
 * skip_base to every rule's seen count: a summary needs no more than to
 * rule out only bios that no rule of the set matches.
 *
 * Besides its field and its words in the parser, a new match key is added
 * in two places: fault_rule_match(), which tests it, and here, where a
 * rule with the key set is not plain and, if the key can rule bios out
 * for the whole set, a summary says so (or none does: a summary only
 * ever rules bios out early).
 */
static void fault_rules_summarise(struct fault_c *fc, struct fault_ruleset *set)
{
	unsigned int i, opmask = 0, bits = fc->map_bits & (FAULT_MAP_FIRST | FAULT_MAP_EXTRA);
	u64 first = U64_MAX, last = 0;

	for (i = 0; i < set->nr; i++) {
		struct fault_rule *rule = set->rules[i];
		const struct fault_rule_cfg *cfg = &rule->cfg;

		WRITE_ONCE(rule->plain, cfg->enabled && !cfg->first && cfg->last == U64_MAX &&
			   !cfg->min_bytes && cfg->max_bytes == U32_MAX && !cfg->after_s &&
			   !cfg->down_s && !cfg->skip);
		opmask |= cfg->opmask;
		first = min(first, cfg->first);
		last = max(last, cfg->last);
	}
	WRITE_ONCE(set->by_flags, !!(opmask & FAULT_OPM_BY_FLAGS));
	if (opmask & FAULT_OPM_BY_FLAGS)
		opmask |= BIT(FAULT_OP_WRITE);
	if (set->nr) {
		bits |= FAULT_MAP_RULES | (opmask & FAULT_OPM_ANY);
		if (!first && last == U64_MAX && (opmask & FAULT_OPM_ANY) == FAULT_OPM_ANY)
			bits |= FAULT_MAP_ALL;
	}
	WRITE_ONCE(fc->map_bits, fault_map_route(bits));
	WRITE_ONCE(fc->bounds.first, first);
	WRITE_ONCE(fc->bounds.last, last);
}

static struct fault_ruleset *fault_rules_current(struct fault_c *fc)
{
	return rcu_dereference_protected(fc->rules, lockdep_is_held(&fc->lock));
}

/*
 * A new set: @old's rules, each with a reference of the new set's own,
 * without the one at @pos if @remove, and with @rule (if any) at @pos.
 * @rule's reference passes to the set; on failure the caller keeps it.
 */
static struct fault_ruleset *fault_ruleset_splice(const struct fault_ruleset *old, unsigned int pos,
						  bool remove, struct fault_rule *rule)
{
	unsigned int nr = old ? old->nr : 0, i, j = 0;
	struct fault_ruleset *set;

	set = fault_ruleset_alloc(nr - remove + !!rule);
	if (!set)
		return NULL;
	for (i = 0; i <= nr; i++) {
		if (i == pos && rule)
			set->rules[j++] = rule;
		if (i == nr || (i == pos && remove))
			continue;
		fault_rule_get(old->rules[i]);
		set->rules[j++] = old->rules[i];
	}
	return set;
}

/*
 * Publish @set in place of the current one; the caller holds fc->lock.  An
 * empty set is published as none.  The old set retires after a grace
 * period, and with it the references to rules the new set left out.
 */
static void fault_rules_publish(struct fault_c *fc, struct fault_ruleset *set)
{
	struct fault_ruleset *old = fault_rules_current(fc);

	fault_rules_summarise(fc, set);
	rcu_assign_pointer(fc->rules, set->nr ? set : NULL);
	if (!set->nr)
		fault_ruleset_free(set);
	if (old)
		call_rcu(&old->rcu, fault_ruleset_retire_rcu);
}

static bool fault_ruleset_find(const struct fault_ruleset *set, unsigned int id, unsigned int *pos)
{
	unsigned int i;

	for (i = 0; set && i < set->nr; i++) {
		if (set->rules[i]->cfg.id == id) {
			*pos = i;
			return true;
		}
	}
	return false;
}

/*
 * A rule about to be published: its status, its time window, its skip
 * base.  Its plain flag is the set's summary's (fault_rules_summarise()).
 */
static void fault_rule_start(struct fault_c *fc, struct fault_rule *rule)
{
	rule->status = fault_blk_status[rule->cfg.status];
	rule->start_jiffies = jiffies;
	WRITE_ONCE(rule->skip_base, fault_rules_skipped(fc));
}

static int __fault_rules_add(struct fault_c *fc, struct fault_rule *rule, char **error)
{
	struct fault_ruleset *old = fault_rules_current(fc), *set;
	unsigned int nr = old ? old->nr : 0, pos;

	if (nr >= FAULT_MAX_RULES) {
		*error = "Too many rules";
		return -E2BIG;
	}
	if (rule->cfg.id && fault_ruleset_find(old, rule->cfg.id, &pos)) {
		*error = "Rule id already in use";
		return -EEXIST;
	}
	set = fault_ruleset_splice(old, nr, false, rule);
	if (!set) {
		*error = "Cannot allocate rule set";
		return -ENOMEM;
	}
	/* only now: a failed add leaves the next id unused */
	if (!rule->cfg.id) {
		while (fault_ruleset_find(old, fc->next_id, &pos))
			fc->next_id++;
		rule->cfg.id = fc->next_id++;
	}
	fault_rule_start(fc, rule);
	fault_rules_publish(fc, set);
	return 0;
}

/**
 * fault_rules_add - append a rule to the device's rules
 * @fc: the device
 * @rule: from fault_rule_alloc(), configured; its id 0 takes the next free id
 * @id: if not NULL, set to the rule's id
 * @error: set to a static string on failure
 *
 * The rule's reference passes to the device, also on failure (it is then
 * dropped), so that a caller never has to tell the two apart.
 *
 * Return: 0 or -errno.
 */
int fault_rules_add(struct fault_c *fc, struct fault_rule *rule, unsigned int *id, char **error)
{
	int r;

	mutex_lock(&fc->lock);
	r = __fault_rules_add(fc, rule, error);
	if (!r && id)
		*id = rule->cfg.id;
	mutex_unlock(&fc->lock);
	if (r)
		fault_rule_put(rule);
	return r;
}

/* A new rule from its text: "<action>[:<key>=<value>,...]"; or an ERR_PTR. */
static struct fault_rule *fault_rule_parse(struct fault_c *fc, const char *text, char **error)
{
	struct fault_rule_err err = { };
	struct fault_rule *rule;
	int r;

	rule = fault_rule_alloc(fc, error);
	if (!rule)
		return ERR_PTR(-ENOMEM);
	r = fault_rule_cfg_parse(&rule->cfg, text, &err);
	if (r) {
		*error = (char *)err.reason;
		fault_rule_put(rule);
		return ERR_PTR(r);
	}
	return rule;
}

/**
 * fault_rules_add_text - append a rule given as text
 * @fc: the device
 * @text: "<action>[:<key>=<value>,...]", as in the table and "rule add"
 * @id: if not NULL, set to the rule's id
 * @error: set to a static string on failure
 *
 * The one path by which the table and the rule add message add a rule.
 *
 * Return: 0 or -errno.
 */
int fault_rules_add_text(struct fault_c *fc, const char *text, unsigned int *id, char **error)
{
	struct fault_rule *rule = fault_rule_parse(fc, text, error);

	if (IS_ERR(rule))
		return PTR_ERR(rule);
	return fault_rules_add(fc, rule, id, error);
}

/**
 * fault_rules_replace - put a rule given as text in place of rule @id
 * @fc: the device
 * @id: the rule replaced; the new one keeps its id and position
 * @text: the new rule; it may repeat the id, not name another
 * @error: set to a static string on failure
 *
 * Return: 0 or -errno (-ENOENT: no rule @id).
 */
int fault_rules_replace(struct fault_c *fc, unsigned int id, const char *text, char **error)
{
	struct fault_ruleset *set;
	struct fault_rule *rule;
	unsigned int pos;
	int r = -ENOENT;

	mutex_lock(&fc->lock);
	if (!fault_ruleset_find(fault_rules_current(fc), id, &pos)) {
		*error = "No rule with that id";
		goto out_unlock;
	}
	rule = fault_rule_parse(fc, text, error);
	if (IS_ERR(rule)) {
		r = PTR_ERR(rule);
		goto out_unlock;
	}
	if (rule->cfg.id && rule->cfg.id != id) {
		*error = "replace keeps the rule id";
		r = -EINVAL;
		goto out_put_rule;
	}
	rule->cfg.id = id;
	set = fault_ruleset_splice(fault_rules_current(fc), pos, true, rule);
	r = -ENOMEM;
	if (!set) {
		*error = "Cannot allocate rule set";
		goto out_put_rule;
	}
	fault_rule_start(fc, rule);
	fault_rules_publish(fc, set);
	mutex_unlock(&fc->lock);
	return 0;

out_put_rule:
	fault_rule_put(rule);
out_unlock:
	mutex_unlock(&fc->lock);
	return r;
}

/**
 * fault_rules_remove - remove rule @id
 * @fc: the device
 * @id: the rule
 * @error: set to a static string on failure
 *
 * Bios the rule acts on keep it alive until they complete.
 *
 * Return: 0 or -errno (-ENOENT: no rule @id).
 */
int fault_rules_remove(struct fault_c *fc, unsigned int id, char **error)
{
	struct fault_ruleset *set;
	unsigned int pos;
	int r = 0;

	mutex_lock(&fc->lock);
	set = fault_rules_current(fc);
	if (!fault_ruleset_find(set, id, &pos)) {
		*error = "No rule with that id";
		r = -ENOENT;
	} else {
		set = fault_ruleset_splice(set, pos, true, NULL);
		if (set) {
			fault_rules_publish(fc, set);
		} else {
			*error = "Cannot allocate rule set";
			r = -ENOMEM;
		}
	}
	mutex_unlock(&fc->lock);
	return r;
}

/* Switch rule @id on or off.  Return: 0 or -ENOENT. */
int fault_rules_enable(struct fault_c *fc, unsigned int id, bool enable, char **error)
{
	struct fault_ruleset *set;
	unsigned int pos;
	int r = 0;

	mutex_lock(&fc->lock);
	set = fault_rules_current(fc);
	if (fault_ruleset_find(set, id, &pos)) {
		WRITE_ONCE(set->rules[pos]->cfg.enabled, enable);
		fault_rules_summarise(fc, set);
	} else {
		*error = "No rule with that id";
		r = -ENOENT;
	}
	mutex_unlock(&fc->lock);
	return r;
}

/**
 * fault_rules_clear_counters - zero every rule's counters
 * @fc: the device
 *
 * The rules' walks and the engine's counters go to zero, and each rule's
 * skip base to the device's skipped count now.  Takes no RCU wait.
 */
void fault_rules_clear_counters(struct fault_c *fc)
{
	struct fault_ruleset *set;
	struct fault_rule *rule;
	unsigned int i;
	u64 skipped;
	int cpu;

	mutex_lock(&fc->lock);
	set = fault_rules_current(fc);
	skipped = fault_rules_skipped(fc);
	for (i = 0; set && i < set->nr; i++) {
		rule = set->rules[i];
		for_each_possible_cpu(cpu)
			per_cpu(*rule->seen, cpu) = 0;
		WRITE_ONCE(rule->skip_base, skipped);
		dmf_attr_clear_counters(&rule->cfg.attr);
	}
	mutex_unlock(&fc->lock);
}

/* Free the rules of a device no bio can reach any more (dtr). */
void fault_rules_destroy(struct fault_c *fc)
{
	struct fault_ruleset *set = rcu_dereference_protected(fc->rules, 1);

	RCU_INIT_POINTER(fc->rules, NULL);
	if (set)
		fault_ruleset_free(set);
}
