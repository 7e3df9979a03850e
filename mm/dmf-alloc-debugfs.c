// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc debugfs knobs: /sys/kernel/debug/dm-fault/{failslab,
 * fail_page_alloc}/ with the names and meanings of the kernel's
 * fault-injection knobs, plus module and symbol scoping, seed, counters
 * and the probe list; mark, unmark and fail-nth at the top.  Every file
 * is root only.  Writes are serialised by dmfa_lock and re-arm the
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

#define DMFA_SLAB	BIT(DMFA_FAILSLAB)
#define DMFA_PAGE	BIT(DMFA_FAIL_PAGE_ALLOC)
#define DMFA_BOTH	(DMFA_SLAB | DMFA_PAGE)
#define DMFA_TOP		0

struct dmfa_knob {
	const char *name;
	umode_t mode;
	unsigned int hooks;
	unsigned long arg;	/* passed to show and store */
	int (*show)(struct seq_file *m, struct dmfa_hook *h, unsigned long arg);
	int (*store)(struct dmfa_hook *h, char *val, unsigned long arg);
};

struct dmfa_knob_file {
	const struct dmfa_knob *knob;
	struct dmfa_hook *hook;
};

static struct dentry *dmfa_dir;

static int dmfa_show_bool(struct seq_file *m, bool v)
{
	seq_printf(m, "%c\n", v ? 'Y' : 'N');
	return 0;
}

static int dmfa_store_bool(bool *v, const char *val)
{
	bool b;

	if (kstrtobool(val, &b))
		return -EINVAL;
	WRITE_ONCE(*v, b);
	return 0;
}

static int dmfa_probability_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	char buf[64];

	dmf_prob_format(&h->attr.prob, buf, sizeof(buf));
	seq_printf(m, "%s\n", buf);
	return 0;
}

static int dmfa_probability_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	struct dmf_prob p, old = h->attr.prob;
	int r;

	r = dmf_prob_parse(val, &p);
	if (r)
		return r;
	h->attr.prob = p;
	r = dmfa_hook_update(h);
	if (r) {
		h->attr.prob = old;
		dmfa_hook_update(h);
	}
	return r;
}

static int dmfa_interval_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%llu\n", h->attr.interval);
	return 0;
}

static int dmfa_interval_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kernel_interval(&h->attr, val);
}

/* times and space read back what is left, as the kernel's atomic_t does */
static int dmfa_times_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&h->attr.times_left));
	return 0;
}

static int dmfa_times_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kv(&h->attr, "times", val);
}

static int dmfa_space_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&h->attr.space_left));
	return 0;
}

static int dmfa_space_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kv(&h->attr, "space", val);
}

static int dmfa_verbose_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", h->verbose);
	return 0;
}

static int dmfa_verbose_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	WRITE_ONCE(h->verbose, v);
	return 0;
}

static int dmfa_rl_interval_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", jiffies_to_msecs(h->attr.rs.interval));
	return 0;
}

static int dmfa_rl_interval_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms))
		return -EINVAL;
	h->attr.rs.interval = msecs_to_jiffies(ms);
	return 0;
}

static int dmfa_rl_burst_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%d\n", h->attr.rs.burst);
	return 0;
}

static int dmfa_rl_burst_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	int v;

	if (kstrtoint(val, 0, &v) || v < 0)
		return -EINVAL;
	h->attr.rs.burst = v;
	return 0;
}

static int dmfa_task_filter_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_show_bool(m, h->attr.flags & DMF_TASK_FILTER);
}

static int dmfa_task_filter_store(struct dmfa_hook *h, char *val, unsigned long arg)
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

static int dmfa_depth_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", h->stack_depth);
	return 0;
}

static int dmfa_depth_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	h->stack_depth = min_t(unsigned int, v, DMF_STACK_DEPTH_MAX);
	return dmfa_stack_resolve(h, NULL);
}

/* require-start and friends, decimal like the kernel's; any base on write */
static int dmfa_range_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%lu\n", *(unsigned long *)((char *)h + arg));
	return 0;
}

static int dmfa_range_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	if (kstrtoul(val, 0, (unsigned long *)((char *)h + arg)))
		return -EINVAL;
	return dmfa_stack_resolve(h, NULL);
}

/* Module and symbol lists share the DMF_STACK_RANGES - 1 slots of their side. */
static int dmfa_list_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	static const enum dmfa_list other[DMFA_NR_LISTS] = {
		[DMFA_REQUIRE_MODULE] = DMFA_REQUIRE_SYMBOL,
		[DMFA_REJECT_MODULE] = DMFA_REJECT_SYMBOL,
		[DMFA_REQUIRE_SYMBOL] = DMFA_REQUIRE_MODULE,
		[DMFA_REJECT_SYMBOL] = DMFA_REJECT_MODULE,
	};
	const enum dmfa_list l = arg;
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

static int dmfa_list_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_names_show(m, h->lists[arg]);
}

static int dmfa_gfp_wait_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_show_bool(m, h->ignore_gfp_wait);
}

static int dmfa_gfp_wait_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmfa_store_bool(&h->ignore_gfp_wait, val);
}

static int dmfa_gfp_highmem_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_show_bool(m, h->ignore_gfp_highmem);
}

static int dmfa_gfp_highmem_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmfa_store_bool(&h->ignore_gfp_highmem, val);
}

static int dmfa_min_order_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%u\n", h->min_order);
	return 0;
}

static int dmfa_min_order_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	u32 v;

	if (kstrtou32(val, 0, &v))
		return -EINVAL;
	WRITE_ONCE(h->min_order, v);
	return 0;
}

static int dmfa_cache_filter_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_names_show(m, rcu_dereference_protected(h->cache_filter,
							   lockdep_is_held(&dmfa_lock)));
}

/*
 * Names of the caches to fail, e.g. "dentry kmalloc-64"; empty, "N" or "0"
 * for every cache.  The kernel's Y (caches flagged in /sys/kernel/slab)
 * has no equivalent: no cache can be flagged without CONFIG_FAILSLAB.
 */
static int dmfa_cache_filter_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	struct dmfa_names *n = NULL, *old;

	/* kstrtobool() would take "no_such_cache" for N */
	if (!strcmp(val, "Y") || !strcmp(val, "y") || !strcmp(val, "1")) {
		return -EINVAL;
	} else if (strcmp(val, "N") && strcmp(val, "n") && strcmp(val, "0")) {
		if (!dmfa_cache_names_known())
			return -EOPNOTSUPP;
		n = dmfa_names_parse(val, DMFA_NAMES_MAX, false);
		if (IS_ERR(n))
			return PTR_ERR(n);
	}
	old = rcu_replace_pointer(h->cache_filter, n, lockdep_is_held(&dmfa_lock));
	dmfa_names_free(old);
	return 0;
}

static int dmfa_seed_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	seq_printf(m, "%llu\n", h->attr.seed);
	return 0;
}

static int dmfa_seed_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmf_attr_parse_kv(&h->attr, "seed", val);
}

static int dmfa_counters_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
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
static int dmfa_counters_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	int cpu;

	if (strcmp(val, "0"))
		return -EINVAL;
	dmf_attr_clear_counters(&h->attr);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(*per_cpu_ptr(h->seen, cpu), 0);
	return 0;
}

static int dmfa_probes_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	dmfa_show_probes(m, h);
	return 0;
}

static int dmfa_mark_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_marks_show(m);
}

static int dmfa_mark_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmfa_marks_store(val, true);
}

static int dmfa_unmark_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmfa_marks_store(val, false);
}

static int dmfa_nth_show(struct seq_file *m, struct dmfa_hook *h, unsigned long arg)
{
	return dmfa_nths_show(m);
}

static int dmfa_nth_store(struct dmfa_hook *h, char *val, unsigned long arg)
{
	return dmfa_nths_store(val);
}

#define DMFA_KNOB(n, md, hk, fn) \
	{ .name = n, .mode = md, .hooks = hk, .show = dmfa_##fn##_show, .store = dmfa_##fn##_store }
#define DMFA_ARG(n, fn, a) \
	{ .name = n, .mode = 0600, .hooks = DMFA_BOTH, .arg = a, \
	  .show = dmfa_##fn##_show, .store = dmfa_##fn##_store }
#define DMFA_RO(n, hk, fn) \
	{ .name = n, .mode = 0400, .hooks = hk, .show = dmfa_##fn##_show }

static const struct dmfa_knob dmfa_knobs[] = {
	DMFA_KNOB("probability", 0600, DMFA_BOTH, probability),
	DMFA_KNOB("interval", 0600, DMFA_BOTH, interval),
	DMFA_KNOB("times", 0600, DMFA_BOTH, times),
	DMFA_KNOB("space", 0600, DMFA_BOTH, space),
	DMFA_KNOB("verbose", 0600, DMFA_BOTH, verbose),
	DMFA_KNOB("verbose_ratelimit_interval_ms", 0600, DMFA_BOTH, rl_interval),
	DMFA_KNOB("verbose_ratelimit_burst", 0600, DMFA_BOTH, rl_burst),
	DMFA_KNOB("task-filter", 0600, DMFA_BOTH, task_filter),
	DMFA_KNOB("stacktrace-depth", 0600, DMFA_BOTH, depth),
	DMFA_ARG("require-start", range, offsetof(struct dmfa_hook, require_start)),
	DMFA_ARG("require-end", range, offsetof(struct dmfa_hook, require_end)),
	DMFA_ARG("reject-start", range, offsetof(struct dmfa_hook, reject_start)),
	DMFA_ARG("reject-end", range, offsetof(struct dmfa_hook, reject_end)),
	DMFA_ARG("require-module", list, DMFA_REQUIRE_MODULE),
	DMFA_ARG("reject-module", list, DMFA_REJECT_MODULE),
	DMFA_ARG("require-symbol", list, DMFA_REQUIRE_SYMBOL),
	DMFA_ARG("reject-symbol", list, DMFA_REJECT_SYMBOL),
	DMFA_KNOB("ignore-gfp-wait", 0600, DMFA_BOTH, gfp_wait),
	DMFA_KNOB("ignore-gfp-highmem", 0600, DMFA_PAGE, gfp_highmem),
	DMFA_KNOB("min-order", 0600, DMFA_PAGE, min_order),
	DMFA_KNOB("cache-filter", 0600, DMFA_SLAB, cache_filter),
	DMFA_KNOB("seed", 0600, DMFA_BOTH, seed),
	DMFA_KNOB("counters", 0600, DMFA_BOTH, counters),
	DMFA_RO("probes", DMFA_BOTH, probes),
	DMFA_KNOB("mark", 0600, DMFA_TOP, mark),
	{ .name = "unmark", .mode = 0200, .hooks = DMFA_TOP, .store = dmfa_unmark_store },
	DMFA_KNOB("fail-nth", 0600, DMFA_TOP, nth),
};

/* One file per (directory, knob): index DMFA_NR_HOOKS is the top directory. */
static struct dmfa_knob_file dmfa_files[DMFA_NR_HOOKS + 1][ARRAY_SIZE(dmfa_knobs)];

static int dmfa_knob_show(struct seq_file *m, void *v)
{
	const struct dmfa_knob_file *f = m->private;
	int r;

	mutex_lock(&dmfa_lock);
	r = f->knob->show(m, f->hook, f->knob->arg);
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
	mutex_lock(&dmfa_lock);
	r = f->knob->store(f->hook, strim(buf), f->knob->arg);
	/* a mark or fail-nth count can arm or disarm both hooks */
	for (i = 0; !r && i < DMFA_NR_HOOKS; i++)
		if (!f->hook || f->hook == &dmfa_hooks[i])
			r = dmfa_hook_update(&dmfa_hooks[i]);
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
