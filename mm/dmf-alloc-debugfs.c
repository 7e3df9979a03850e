// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc debugfs knobs: /sys/kernel/debug/dm-fault/{failslab,
 * fail_page_alloc}/ with the names and meanings of the kernel's
 * fault-injection knobs, plus module and symbol scoping, seed, counters
 * and the probe list; mark, unmark and fail-nth at the top.  Every file
 * is root only.
 *
 * Each knob is a row of dmfa_knobs[]: plain values by type and offset
 * (bool, u32), the others with a show and a store of their own.  Rows are
 * shown and stored under dmfa_lock; after a store to a row marked .arms
 * (probability, times, fail-nth), dmfa_rearm() arms or disarms the hooks.
 *
 * Why not the debugfs helpers lib/fault-inject.c is built from, on 6.1
 * and 6.12 alike: debugfs_create_bool()'s write returns success for a
 * value kstrtobool() refuses, and debugfs_create_u32() truncates
 * (4294967296 stores 0).  simple_attr_write_xsigned(), the write of
 * DEFINE_DEBUGFS_ATTRIBUTE() files, parses only the first 23 bytes (a
 * 27-byte zero-padded 1 stores 0 and succeeds), in any base, returns
 * ERANGE past U64_MAX and refuses surrounding blanks.  Every knob here
 * takes surrounding blanks; times, space and interval are decimal only;
 * a bool or an integer that does not parse or fit is refused with EINVAL
 * and the old value kept.
 */
#define pr_fmt(fmt) "dmf_alloc: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "dmf-alloc.h"

#define DMFA_SLAB	BIT(DMFA_FAILSLAB)
#define DMFA_PAGE	BIT(DMFA_FAIL_PAGE_ALLOC)
#define DMFA_BOTH	(DMFA_SLAB | DMFA_PAGE)
#define DMFA_TOP	0

struct dmfa_knob {
	const char *name;
	umode_t mode;
	u8 hooks;		/* the directories it is in; DMFA_TOP: the top one */
	bool arms;		/* a write can arm or disarm: dmfa_rearm() after it */
	size_t arg;		/* an offset in struct dmfa_hook, or a list */
	int (*show)(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k);
	int (*store)(struct dmfa_hook *h, const struct dmfa_knob *k, char *val);
};

struct dmfa_knob_file {
	const struct dmfa_knob *knob;
	struct dmfa_hook *hook;
};

static struct dentry *dmfa_dir;

/* The field of @h at the knob's offset. */
#define DMFA_AT(type, h, k)	((type *)((char *)(h) + (k)->arg))

/* Plain values: Y/N and unsigned ints that any base may spell */

static int dmfa_bool_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%c\n", READ_ONCE(*DMFA_AT(bool, h, k)) ? 'Y' : 'N');
	return 0;
}

static int dmfa_bool_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	bool b;

	if (kstrtobool(val, &b))
		return -EINVAL;
	WRITE_ONCE(*DMFA_AT(bool, h, k), b);
	return 0;
}

static int dmfa_u32_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%u\n", READ_ONCE(*DMFA_AT(u32, h, k)));
	return 0;
}

static int dmfa_u32_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	u32 v;

	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	WRITE_ONCE(*DMFA_AT(u32, h, k), v);
	return 0;
}

static int dmfa_u64_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%llu\n", *DMFA_AT(u64, h, k));
	return 0;
}

/* times and space read back what is left, as the kernel's atomic_t does */
static int dmfa_left_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(DMFA_AT(atomic64_t, h, k)));
	return 0;
}

/*
 * The engine's own parser for times and space (decimal only), seed (any
 * base) and streams (shared or percpu).
 */
static int dmfa_attr_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	return dmf_attr_parse_kv(&h->attr, k->name, val);
}

static int dmfa_streams_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%s\n", dmf_attr_streams_name(&h->attr));
	return 0;
}

static int dmfa_interval_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	return dmf_attr_parse_kernel_interval(&h->attr, val);
}

static int dmfa_probability_show(struct seq_file *m, struct dmfa_hook *h,
				 const struct dmfa_knob *k)
{
	char buf[64];

	dmf_prob_format(&h->attr.prob, buf, sizeof(buf));
	seq_printf(m, "%s\n", buf);
	return 0;
}

/* The probe handler reads it as one word: see dmf_prob_publish(). */
static int dmfa_probability_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	struct dmf_prob p;
	int r;

	r = dmf_prob_parse(val, &p);
	if (r)
		return r;
	/* a hook with nothing to probe cannot be armed */
	if (!dmf_prob_is_zero(&p) && !h->nr_probes)
		return -ENODEV;
	dmf_prob_publish(&h->attr.prob, &p);
	return 0;
}

static int dmfa_rl_interval_show(struct seq_file *m, struct dmfa_hook *h,
				 const struct dmfa_knob *k)
{
	seq_printf(m, "%u\n", jiffies_to_msecs(h->attr.rs.interval));
	return 0;
}

static int dmfa_rl_interval_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms))
		return -EINVAL;
	h->attr.rs.interval = msecs_to_jiffies(ms);
	return 0;
}

static int dmfa_rl_burst_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%d\n", h->attr.rs.burst);
	return 0;
}

static int dmfa_rl_burst_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	int v;

	if (kstrtoint(val, 0, &v) || v < 0)
		return -EINVAL;
	h->attr.rs.burst = v;
	return 0;
}

/* The stack filter: knobs the engine's ranges are derived from */

static int dmfa_depth_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	h->stack_depth = min_t(unsigned int, v, DMF_STACK_DEPTH_MAX);
	return dmfa_stack_resolve(h, NULL);
}

/* require-start and friends, decimal like the kernel's; any base on write */
static int dmfa_range_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	seq_printf(m, "%lu\n", *DMFA_AT(unsigned long, h, k));
	return 0;
}

static int dmfa_range_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	if (kstrtoul(val, 0, DMFA_AT(unsigned long, h, k)))
		return -EINVAL;
	return dmfa_stack_resolve(h, NULL);
}

/* Module and symbol lists share the DMF_STACK_RANGES - 1 slots of their side. */
static int dmfa_list_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	static const enum dmfa_list other[DMFA_NR_LISTS] = {
		[DMFA_REQUIRE_MODULE] = DMFA_REQUIRE_SYMBOL,
		[DMFA_REJECT_MODULE] = DMFA_REJECT_SYMBOL,
		[DMFA_REQUIRE_SYMBOL] = DMFA_REQUIRE_MODULE,
		[DMFA_REJECT_SYMBOL] = DMFA_REJECT_MODULE,
	};
	const enum dmfa_list l = k->arg;
	const bool symbols = l == DMFA_REQUIRE_SYMBOL || l == DMFA_REJECT_SYMBOL;
	unsigned int room = DMF_STACK_RANGES - 1, i;
	struct dmfa_names *n, *old;
	int r;

	if (h->lists[other[l]])
		room -= h->lists[other[l]]->nr;
	n = dmfa_names_parse(val, room, !symbols);
	if (IS_ERR(n))
		return PTR_ERR(n);
	for (i = 0; symbols && n && i < n->nr; i++) {
		r = dmfa_symbol_check(n->name[i]);
		if (r) {
			pr_info("%s: no symbol %s\n", h->name, n->name[i]);
			dmfa_names_free(n);
			return r;
		}
	}
	old = h->lists[l];
	h->lists[l] = n;
	dmfa_names_free(old);
	return dmfa_stack_resolve(h, NULL);
}

static int dmfa_list_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	return dmfa_names_show(m, h->lists[k->arg]);
}

static int dmfa_cache_filter_show(struct seq_file *m, struct dmfa_hook *h,
				  const struct dmfa_knob *k)
{
	return dmfa_names_show(m, rcu_dereference_protected(h->cache_filter,
							   lockdep_is_held(&dmfa_lock)));
}

/* Names of the caches to fail; see dmfa_cache_filter_parse(). */
static int dmfa_cache_filter_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	struct dmfa_names *n, *old;

	n = dmfa_cache_filter_parse(val, dmfa_cache_names_known());
	if (IS_ERR(n))
		return PTR_ERR(n);
	old = rcu_replace_pointer(h->cache_filter, n, lockdep_is_held(&dmfa_lock));
	dmfa_names_free(old);
	return 0;
}

static int dmfa_counters_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	struct dmf_counters c;
	u64 seen = 0;
	int cpu;

	dmf_attr_counters(&h->attr, &c);
	for_each_possible_cpu(cpu)
		seen += READ_ONCE(*per_cpu_ptr(h->seen, cpu));
	seq_printf(m, "seen %llu\nevaluated %llu\npassed %llu\ninjected %llu\n",
		   seen, c.evaluated, c.passed, c.injected);
	return 0;
}

/* "0" zeroes them; a call already past a counter may still add to it. */
static int dmfa_counters_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	int cpu;

	if (strcmp(val, "0"))
		return -EINVAL;
	dmf_attr_clear_counters(&h->attr);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(*per_cpu_ptr(h->seen, cpu), 0);
	return 0;
}

static int dmfa_probes_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	dmfa_hook_list_probes(m, h);
	return 0;
}

/* The top directory: marks (arg: mark or unmark), mark-missed and fail-nth */

static int dmfa_mark_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	return dmfa_marks_list(m);
}

static int dmfa_mark_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	return dmfa_marks_write(val, k->arg);
}

static int dmfa_missed_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	return dmfa_mark_missed_show(m);
}

static int dmfa_nth_show(struct seq_file *m, struct dmfa_hook *h, const struct dmfa_knob *k)
{
	return dmfa_nths_list(m);
}

static int dmfa_nth_store(struct dmfa_hook *h, const struct dmfa_knob *k, char *val)
{
	return dmfa_nths_write(val);
}

#define DMFA_OFF(field)	offsetof(struct dmfa_hook, field)

/* A knob of its own: show and store named dmfa_<fn>_show/_store. */
#define DMFA_KNOB(n, hk, fn, ...) \
	{ .name = n, .mode = 0600, .hooks = hk, .show = dmfa_##fn##_show, \
	  .store = dmfa_##fn##_store, __VA_ARGS__ }
/* A plain value of type t (bool, u32) at a field of the hook. */
#define DMFA_PLAIN(n, hk, t, field) \
	DMFA_KNOB(n, hk, t, .arg = DMFA_OFF(field))
/* Shown from a field, stored by its own function. */
#define DMFA_FIELD_KNOB(n, shown_as, store_fn, field, ...) \
	{ .name = n, .mode = 0600, .hooks = DMFA_BOTH, .arg = DMFA_OFF(field), \
	  .show = dmfa_##shown_as##_show, .store = dmfa_##store_fn##_store, __VA_ARGS__ }

static const struct dmfa_knob dmfa_knobs[] = {
	DMFA_KNOB("probability", DMFA_BOTH, probability, .arms = true),
	DMFA_FIELD_KNOB("interval", u64, interval, attr.interval),
	DMFA_FIELD_KNOB("times", left, attr, attr.times_left, .arms = true),
	DMFA_FIELD_KNOB("space", left, attr, attr.space_left),
	DMFA_FIELD_KNOB("seed", u64, attr, attr.seed),
	DMFA_FIELD_KNOB("streams", streams, attr, attr.flags),
	DMFA_PLAIN("verbose", DMFA_BOTH, u32, attr.verbose),
	DMFA_KNOB("verbose_ratelimit_interval_ms", DMFA_BOTH, rl_interval),
	DMFA_KNOB("verbose_ratelimit_burst", DMFA_BOTH, rl_burst),
	DMFA_PLAIN("task-filter", DMFA_BOTH, bool, task_filter),
	DMFA_FIELD_KNOB("stacktrace-depth", u32, depth, stack_depth),
	DMFA_FIELD_KNOB("require-start", range, range, require_start),
	DMFA_FIELD_KNOB("require-end", range, range, require_end),
	DMFA_FIELD_KNOB("reject-start", range, range, reject_start),
	DMFA_FIELD_KNOB("reject-end", range, range, reject_end),
	DMFA_KNOB("require-module", DMFA_BOTH, list, .arg = DMFA_REQUIRE_MODULE),
	DMFA_KNOB("reject-module", DMFA_BOTH, list, .arg = DMFA_REJECT_MODULE),
	DMFA_KNOB("require-symbol", DMFA_BOTH, list, .arg = DMFA_REQUIRE_SYMBOL),
	DMFA_KNOB("reject-symbol", DMFA_BOTH, list, .arg = DMFA_REJECT_SYMBOL),
	DMFA_PLAIN("ignore-gfp-wait", DMFA_BOTH, bool, ignore_gfp_wait),
	DMFA_PLAIN("ignore-gfp-highmem", DMFA_PAGE, bool, ignore_gfp_highmem),
	DMFA_PLAIN("min-order", DMFA_PAGE, u32, min_order),
	DMFA_KNOB("cache-filter", DMFA_SLAB, cache_filter),
	DMFA_KNOB("counters", DMFA_BOTH, counters),
	{ .name = "probes", .mode = 0400, .hooks = DMFA_BOTH, .show = dmfa_probes_show },
	DMFA_KNOB("mark", DMFA_TOP, mark, .arg = true),
	{ .name = "unmark", .mode = 0200, .hooks = DMFA_TOP, .store = dmfa_mark_store },
	{ .name = "mark-missed", .mode = 0400, .hooks = DMFA_TOP, .show = dmfa_missed_show },
	DMFA_KNOB("fail-nth", DMFA_TOP, nth, .arms = true),
};

/* One file per (directory, knob): index DMFA_NR_HOOKS is the top directory. */
static struct dmfa_knob_file dmfa_files[DMFA_NR_HOOKS + 1][ARRAY_SIZE(dmfa_knobs)];

static int dmfa_knob_show(struct seq_file *m, void *v)
{
	const struct dmfa_knob_file *f = m->private;
	int r;

	mutex_lock(&dmfa_lock);
	r = f->knob->show(m, f->hook, f->knob);
	mutex_unlock(&dmfa_lock);
	return r;
}

static int dmfa_knob_open(struct inode *inode, struct file *file)
{
	const struct dmfa_knob_file *f = inode->i_private;

	if ((file->f_mode & FMODE_READ) && !f->knob->show)
		return -EACCES;
	return single_open(file, dmfa_knob_show, inode->i_private);
}

static ssize_t dmfa_knob_write(struct file *file, const char __user *ubuf, size_t len,
			       loff_t *ppos)
{
	const struct dmfa_knob_file *f = ((struct seq_file *)file->private_data)->private;
	char *buf;
	int r;

	if (!f->knob->store)
		return -EACCES;
	if (len >= PAGE_SIZE)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&dmfa_lock);
	r = f->knob->store(f->hook, f->knob, strim(buf));
	if (!r && f->knob->arms)
		r = dmfa_rearm();
	mutex_unlock(&dmfa_lock);
	kfree(buf);
	return r ? r : len;
}

static const struct file_operations dmfa_knob_fops = {
	.owner = THIS_MODULE,
	.open = dmfa_knob_open,
	.read = seq_read,
	.write = dmfa_knob_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void dmfa_create_files(struct dentry *dir, struct dmfa_hook *h, unsigned int row)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dmfa_knobs); i++) {
		const struct dmfa_knob *k = &dmfa_knobs[i];

		if (h ? !(k->hooks & BIT(h->id)) : k->hooks != DMFA_TOP)
			continue;
		dmfa_files[row][i].knob = k;
		dmfa_files[row][i].hook = h;
		debugfs_create_file(k->name, k->mode, dir, &dmfa_files[row][i], &dmfa_knob_fops);
	}
}

int dmfa_debugfs_init(void)
{
	struct dentry *dir;
	unsigned int i;

	dmfa_dir = debugfs_create_dir("dm-fault", NULL);
	if (IS_ERR(dmfa_dir))
		return PTR_ERR(dmfa_dir);
	for (i = 0; i < DMFA_NR_HOOKS; i++) {
		dir = debugfs_create_dir(dmfa_hooks[i].name, dmfa_dir);
		if (IS_ERR(dir)) {
			debugfs_remove_recursive(dmfa_dir);
			return PTR_ERR(dir);
		}
		dmfa_create_files(dir, &dmfa_hooks[i], i);
	}
	dmfa_create_files(dmfa_dir, NULL, DMFA_NR_HOOKS);
	return 0;
}

void dmfa_debugfs_exit(void)
{
	debugfs_remove_recursive(dmfa_dir);
}
