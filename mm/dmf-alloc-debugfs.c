// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc debugfs knobs: /sys/kernel/debug/dm-fault/{failslab,
 * fail_page_alloc}/ with the names and meanings of the kernel's
 * fault-injection knobs, plus module and symbol scoping, seed, counters
 * and the probe list; mark, unmark and fail-nth at the top.  Every file
 * is root only.  Writes are serialised by dmf_alloc_lock and re-arm the
 * hooks as needed.
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

#define DMF_SLAB	BIT(DMF_FAILSLAB)
#define DMF_PAGE	BIT(DMF_FAIL_PAGE_ALLOC)
#define DMF_BOTH	(DMF_SLAB | DMF_PAGE)
#define DMF_TOP		0

struct dmf_knob {
	const char *name;
	umode_t mode;
	unsigned int hooks;
	unsigned long arg;	/* passed to show and store */
	int (*show)(struct seq_file *m, struct dmf_hook *h, unsigned long arg);
	int (*store)(struct dmf_hook *h, char *val, unsigned long arg);
};

struct dmf_knob_file {
	const struct dmf_knob *knob;
	struct dmf_hook *hook;
};

static struct dentry *dmf_dir;

static int dmf_show_bool(struct seq_file *m, bool v)
{
	seq_printf(m, "%c\n", v ? 'Y' : 'N');
	return 0;
}

static int dmf_store_bool(bool *v, const char *val)
{
	bool b;

	if (kstrtobool(val, &b))
		return -EINVAL;
	WRITE_ONCE(*v, b);
	return 0;
}

static int dmf_probability_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	char buf[64];

	dmf_prob_format(&h->attr.prob, buf, sizeof(buf));
	seq_printf(m, "%s\n", buf);
	return 0;
}

static int dmf_probability_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	struct dmf_prob p, old = h->attr.prob;
	int r;

	r = dmf_prob_parse(val, &p);
	if (r)
		return r;
	h->attr.prob = p;
	r = dmf_hook_update(h);
	if (r) {
		h->attr.prob = old;
		dmf_hook_update(h);
	}
	return r;
}

static int dmf_interval_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%llu\n", h->attr.interval);
	return 0;
}

static int dmf_interval_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kernel_interval(&h->attr, val);
}

/* times and space read back what is left, as the kernel's atomic_t does */
static int dmf_times_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&h->attr.times_left));
	return 0;
}

static int dmf_times_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kv(&h->attr, "times", val);
}

static int dmf_space_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&h->attr.space_left));
	return 0;
}

static int dmf_space_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kv(&h->attr, "space", val);
}

static int dmf_verbose_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", h->verbose);
	return 0;
}

static int dmf_verbose_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	WRITE_ONCE(h->verbose, v);
	return 0;
}

static int dmf_rl_interval_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", jiffies_to_msecs(h->attr.rs.interval));
	return 0;
}

static int dmf_rl_interval_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms))
		return -EINVAL;
	h->attr.rs.interval = msecs_to_jiffies(ms);
	return 0;
}

static int dmf_rl_burst_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%d\n", h->attr.rs.burst);
	return 0;
}

static int dmf_rl_burst_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	int v;

	if (kstrtoint(val, 0, &v) || v < 0)
		return -EINVAL;
	h->attr.rs.burst = v;
	return 0;
}

static int dmf_task_filter_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_show_bool(m, h->attr.flags & DMF_TASK_FILTER);
}

static int dmf_task_filter_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	bool b;

	if (kstrtobool(val, &b))
		return -EINVAL;
	if (b)
		WRITE_ONCE(h->attr.flags, h->attr.flags | DMF_TASK_FILTER);
	else
		WRITE_ONCE(h->attr.flags, h->attr.flags & ~DMF_TASK_FILTER);
	return 0;
}

static int dmf_depth_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", h->stack_depth);
	return 0;
}

static int dmf_depth_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	h->stack_depth = min_t(unsigned int, v, DMF_STACK_DEPTH_MAX);
	return dmf_stack_resolve(h, NULL);
}

/* require-start and friends, decimal like the kernel's; any base on write */
static int dmf_range_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%lu\n", *(unsigned long *)((char *)h + arg));
	return 0;
}

static int dmf_range_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	if (kstrtoul(val, 0, (unsigned long *)((char *)h + arg)))
		return -EINVAL;
	return dmf_stack_resolve(h, NULL);
}

/* Module and symbol lists share the DMF_STACK_RANGES - 1 slots of their side. */
static int dmf_list_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	static const enum dmf_list other[DMF_NR_LISTS] = {
		[DMF_REQUIRE_MODULE] = DMF_REQUIRE_SYMBOL,
		[DMF_REJECT_MODULE] = DMF_REJECT_SYMBOL,
		[DMF_REQUIRE_SYMBOL] = DMF_REQUIRE_MODULE,
		[DMF_REJECT_SYMBOL] = DMF_REJECT_MODULE,
	};
	const enum dmf_list l = arg;
	const bool symbols = l == DMF_REQUIRE_SYMBOL || l == DMF_REJECT_SYMBOL;
	unsigned int room = DMF_STACK_RANGES - 1, i;
	struct dmf_names *n, *old;
	int r;

	if (h->lists[other[l]])
		room -= h->lists[other[l]]->nr;
	n = dmf_names_parse(val, room, !symbols);
	if (IS_ERR(n))
		return PTR_ERR(n);
	for (i = 0; symbols && n && i < n->nr; i++) {
		r = dmf_symbol_check(n->name[i]);
		if (r) {
			pr_info("%s: no symbol %s\n", h->name, n->name[i]);
			dmf_names_free(n);
			return r;
		}
	}
	old = h->lists[l];
	h->lists[l] = n;
	dmf_names_free(old);
	return dmf_stack_resolve(h, NULL);
}

static int dmf_list_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_names_show(m, h->lists[arg]);
}

static int dmf_gfp_wait_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_show_bool(m, h->ignore_gfp_wait);
}

static int dmf_gfp_wait_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_store_bool(&h->ignore_gfp_wait, val);
}

static int dmf_gfp_highmem_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_show_bool(m, h->ignore_gfp_highmem);
}

static int dmf_gfp_highmem_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_store_bool(&h->ignore_gfp_highmem, val);
}

static int dmf_min_order_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", h->min_order);
	return 0;
}

static int dmf_min_order_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	u32 v;

	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	WRITE_ONCE(h->min_order, v);
	return 0;
}

static int dmf_cache_filter_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_names_show(m, rcu_dereference_protected(h->cache_filter,
							   lockdep_is_held(&dmf_alloc_lock)));
}

/*
 * Names of the caches to fail, e.g. "dentry kmalloc-64"; empty, "N" or "0"
 * for every cache.  The kernel's Y (caches flagged in /sys/kernel/slab)
 * has no equivalent: no cache can be flagged without CONFIG_FAILSLAB.
 */
static int dmf_cache_filter_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	struct dmf_names *n = NULL, *old;

	/* kstrtobool() would take "no_such_cache" for N */
	if (!strcmp(val, "Y") || !strcmp(val, "y") || !strcmp(val, "1")) {
		return -EINVAL;
	} else if (strcmp(val, "N") && strcmp(val, "n") && strcmp(val, "0")) {
		if (!dmf_cache_names_known())
			return -EOPNOTSUPP;
		n = dmf_names_parse(val, DMF_NAMES_MAX, false);
		if (IS_ERR(n))
			return PTR_ERR(n);
	}
	old = rcu_replace_pointer(h->cache_filter, n, lockdep_is_held(&dmf_alloc_lock));
	dmf_names_free(old);
	return 0;
}

static int dmf_seed_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	seq_printf(m, "%llu\n", h->attr.seed);
	return 0;
}

static int dmf_seed_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kv(&h->attr, "seed", val);
}

static int dmf_counters_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
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
static int dmf_counters_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	int cpu;

	if (strcmp(val, "0"))
		return -EINVAL;
	dmf_attr_clear_counters(&h->attr);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(*per_cpu_ptr(h->seen, cpu), 0);
	return 0;
}

static int dmf_probes_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	dmf_show_probes(m, h);
	return 0;
}

static int dmf_mark_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_marks_show(m);
}

static int dmf_mark_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_marks_store(val, true);
}

static int dmf_unmark_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_marks_store(val, false);
}

static int dmf_nth_show(struct seq_file *m, struct dmf_hook *h, unsigned long arg)
{
	return dmf_nths_show(m);
}

static int dmf_nth_store(struct dmf_hook *h, char *val, unsigned long arg)
{
	return dmf_nths_store(val);
}

#define DMF_KNOB(n, md, hk, fn) \
	{ .name = n, .mode = md, .hooks = hk, .show = dmf_##fn##_show, .store = dmf_##fn##_store }
#define DMF_ARG(n, fn, a) \
	{ .name = n, .mode = 0600, .hooks = DMF_BOTH, .arg = a, \
	  .show = dmf_##fn##_show, .store = dmf_##fn##_store }
#define DMF_RO(n, hk, fn) \
	{ .name = n, .mode = 0400, .hooks = hk, .show = dmf_##fn##_show }

static const struct dmf_knob dmf_knobs[] = {
	DMF_KNOB("probability", 0600, DMF_BOTH, probability),
	DMF_KNOB("interval", 0600, DMF_BOTH, interval),
	DMF_KNOB("times", 0600, DMF_BOTH, times),
	DMF_KNOB("space", 0600, DMF_BOTH, space),
	DMF_KNOB("verbose", 0600, DMF_BOTH, verbose),
	DMF_KNOB("verbose_ratelimit_interval_ms", 0600, DMF_BOTH, rl_interval),
	DMF_KNOB("verbose_ratelimit_burst", 0600, DMF_BOTH, rl_burst),
	DMF_KNOB("task-filter", 0600, DMF_BOTH, task_filter),
	DMF_KNOB("stacktrace-depth", 0600, DMF_BOTH, depth),
	DMF_ARG("require-start", range, offsetof(struct dmf_hook, require_start)),
	DMF_ARG("require-end", range, offsetof(struct dmf_hook, require_end)),
	DMF_ARG("reject-start", range, offsetof(struct dmf_hook, reject_start)),
	DMF_ARG("reject-end", range, offsetof(struct dmf_hook, reject_end)),
	DMF_ARG("require-module", list, DMF_REQUIRE_MODULE),
	DMF_ARG("reject-module", list, DMF_REJECT_MODULE),
	DMF_ARG("require-symbol", list, DMF_REQUIRE_SYMBOL),
	DMF_ARG("reject-symbol", list, DMF_REJECT_SYMBOL),
	DMF_KNOB("ignore-gfp-wait", 0600, DMF_BOTH, gfp_wait),
	DMF_KNOB("ignore-gfp-highmem", 0600, DMF_PAGE, gfp_highmem),
	DMF_KNOB("min-order", 0600, DMF_PAGE, min_order),
	DMF_KNOB("cache-filter", 0600, DMF_SLAB, cache_filter),
	DMF_KNOB("seed", 0600, DMF_BOTH, seed),
	DMF_KNOB("counters", 0600, DMF_BOTH, counters),
	DMF_RO("probes", DMF_BOTH, probes),
	DMF_KNOB("mark", 0600, DMF_TOP, mark),
	{ .name = "unmark", .mode = 0200, .hooks = DMF_TOP, .store = dmf_unmark_store },
	DMF_KNOB("fail-nth", 0600, DMF_TOP, nth),
};

/* One file per (directory, knob): index DMF_NR_HOOKS is the top directory. */
static struct dmf_knob_file dmf_files[DMF_NR_HOOKS + 1][ARRAY_SIZE(dmf_knobs)];

static int dmf_knob_show(struct seq_file *m, void *v)
{
	const struct dmf_knob_file *f = m->private;
	int r;

	mutex_lock(&dmf_alloc_lock);
	r = f->knob->show(m, f->hook, f->knob->arg);
	mutex_unlock(&dmf_alloc_lock);
	return r;
}

static int dmf_knob_open(struct inode *inode, struct file *file)
{
	const struct dmf_knob_file *f = inode->i_private;

	if ((file->f_mode & FMODE_READ) && !f->knob->show)
		return -EACCES;
	return single_open(file, dmf_knob_show, inode->i_private);
}

static ssize_t dmf_knob_write(struct file *file, const char __user *ubuf, size_t len,
			      loff_t *ppos)
{
	const struct dmf_knob_file *f = ((struct seq_file *)file->private_data)->private;
	unsigned int i;
	char *buf;
	int r;

	if (!f->knob->store)
		return -EACCES;
	if (len >= PAGE_SIZE)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&dmf_alloc_lock);
	r = f->knob->store(f->hook, strim(buf), f->knob->arg);
	/* a mark or fail-nth count can arm or disarm both hooks */
	for (i = 0; !r && i < DMF_NR_HOOKS; i++)
		if (!f->hook || f->hook == &dmf_hooks[i])
			r = dmf_hook_update(&dmf_hooks[i]);
	mutex_unlock(&dmf_alloc_lock);
	kfree(buf);
	return r ? r : len;
}

static const struct file_operations dmf_knob_fops = {
	.owner = THIS_MODULE,
	.open = dmf_knob_open,
	.read = seq_read,
	.write = dmf_knob_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void dmf_create_files(struct dentry *dir, struct dmf_hook *h, unsigned int row)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dmf_knobs); i++) {
		const struct dmf_knob *k = &dmf_knobs[i];

		if (h ? !(k->hooks & BIT(h->id)) : k->hooks != DMF_TOP)
			continue;
		dmf_files[row][i].knob = k;
		dmf_files[row][i].hook = h;
		debugfs_create_file(k->name, k->mode, dir, &dmf_files[row][i], &dmf_knob_fops);
	}
}

int dmf_debugfs_init(void)
{
	struct dentry *dir;
	unsigned int i;

	dmf_dir = debugfs_create_dir("dm-fault", NULL);
	if (IS_ERR(dmf_dir))
		return PTR_ERR(dmf_dir);
	for (i = 0; i < DMF_NR_HOOKS; i++) {
		dir = debugfs_create_dir(dmf_hooks[i].name, dmf_dir);
		if (IS_ERR(dir)) {
			debugfs_remove_recursive(dmf_dir);
			return PTR_ERR(dir);
		}
		dmf_create_files(dir, &dmf_hooks[i], i);
	}
	dmf_create_files(dmf_dir, NULL, DMF_NR_HOOKS);
	return 0;
}

void dmf_debugfs_exit(void)
{
	debugfs_remove_recursive(dmf_dir);
}
