// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc: slab and page-allocator failure injection on a stock kernel.
 *
 * Debian builds its kernels without CONFIG_FAILSLAB and
 * CONFIG_FAIL_PAGE_ALLOC.  This module attaches an ftrace callback to the
 * allocators and, when the dm-fault engine says so, makes the probed
 * function return at once with its failure value.  Where the kernel still
 * has the noinline should_failslab() and should_fail_alloc_page() (6.1)
 * one probe each is enough; where they are compiled out (6.12) the
 * allocation entry points are failed before they run.  The probe set is chosen at load time from
 * what the running kernel has.
 *
 * Each hook (failslab, fail_page_alloc) applies its domain filters (gfp,
 * order, slab cache), then the per-task ones (fail-nth, the task filter,
 * dmf-alloc-task.c), then probability 0 and the stack filter
 * (dmf-alloc-filter.c), and then asks the engine, which does interval,
 * times, space and probability; a fault is logged with the hook's own
 * line (dmfa_log_fault()).
 * Each hook has one ftrace_ops whose filter, the hook's probed functions,
 * is set at load; the ops is registered only while the hook is armed
 * (probability not zero, or a fail-nth count pending): a disarmed hook
 * leaves the kernel text as it found it.  Knobs live in debugfs, see
 * Documentation/fault-injection/dm-fault-allocators.rst.
 */
#define pr_fmt(fmt) "dmf_alloc: " fmt

#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "dmf-alloc.h"

#define N	DMFA_NOARG
#define B	IS_ENABLED(CONFIG_SLAB_BUCKETS)	/* adds a kmem_buckets * after size */

/* Failed at entry: (cache, gfp), with an explicit size, by size, bulk. */
#define DMFA_CACHE(sym, c, g) \
	{ sym, g, c, N, N, N, N, N, DMFA_RET_NULL }
#define DMFA_CACHE_SIZED(sym, c, g, sz) \
	{ sym, g, c, sz, N, N, N, N, DMFA_RET_NULL }
#define DMFA_KMALLOC(sym, sz, b, g) \
	{ sym, g, N, sz, b, N, N, N, DMFA_RET_NULL }
#define DMFA_CACHE_BULK(sym, c, g, n) \
	{ sym, g, c, N, N, N, n, N, DMFA_RET_ZERO }
#define DMFA_PAGES(sym, g, o, ret) \
	{ sym, g, N, N, N, o, N, N, ret }
#define DMFA_PAGES_BULK(sym, g, n, a) \
	{ sym, g, N, N, N, N, n, a, DMFA_RET_BULK }

#define DMFA_SLAB_POINT(sym, c, g) \
	{ sym, g, c, N, N, N, N, N, DMFA_RET_ENOMEM }

static const struct dmfa_probe_desc dmfa_failslab_point =
	DMFA_SLAB_POINT("should_failslab", 0, 1);
static const struct dmfa_probe_desc dmfa_fail_page_point =
	DMFA_PAGES("should_fail_alloc_page", 0, 1, DMFA_RET_TRUE);

/*
 * The slab entry points, 6.10 and later (_noprof) and before.  Large
 * kmalloc is left to the page hook, as the kernel's failslab leaves it:
 * the kmalloc points skip sizes above KMALLOC_MAX_CACHE_SIZE and
 * __kmalloc_large*() is not probed.
 */
static const struct dmfa_probe_desc dmfa_slab_entries[] = {
	DMFA_CACHE("kmem_cache_alloc_noprof", 0, 1),
	DMFA_CACHE("kmem_cache_alloc_lru_noprof", 0, 2),
	DMFA_CACHE("kmem_cache_alloc_node_noprof", 0, 1),
	DMFA_CACHE_SIZED("__kmalloc_cache_noprof", 0, 1, 2),
	DMFA_CACHE_SIZED("__kmalloc_cache_node_noprof", 0, 1, 3),
	DMFA_KMALLOC("__kmalloc_noprof", 0, N, 1),
	DMFA_KMALLOC("__kmalloc_node_noprof", 0, B ? 1 : N, B ? 2 : 1),
	DMFA_KMALLOC("__kmalloc_node_track_caller_noprof", 0, B ? 1 : N, B ? 2 : 1),
	DMFA_CACHE_BULK("kmem_cache_alloc_bulk_noprof", 0, 1, 2),
	DMFA_CACHE("kmem_cache_alloc", 0, 1),
	DMFA_CACHE("kmem_cache_alloc_lru", 0, 2),
	DMFA_CACHE("kmem_cache_alloc_node", 0, 1),
	DMFA_CACHE_SIZED("kmalloc_trace", 0, 1, 2),
	DMFA_CACHE_SIZED("kmalloc_node_trace", 0, 1, 3),
	DMFA_KMALLOC("__kmalloc", 0, N, 1),
	DMFA_KMALLOC("__kmalloc_node", 0, N, 1),
	DMFA_KMALLOC("__kmalloc_node_track_caller", 0, N, 1),
	DMFA_CACHE_BULK("kmem_cache_alloc_bulk", 0, 1, 2),
};

/* __folio_alloc*() is not probed: it calls __alloc_pages*(). */
static const struct dmfa_probe_desc dmfa_page_entries[] = {
	DMFA_PAGES("__alloc_pages_noprof", 0, 1, DMFA_RET_NULL),
	DMFA_PAGES_BULK("alloc_pages_bulk_noprof", 0, 3, 5),
	DMFA_PAGES("__alloc_pages", 0, 1, DMFA_RET_NULL),
	DMFA_PAGES_BULK("__alloc_pages_bulk", 0, 3, 5),
};

#undef N
#undef B

static char dmfa_failslab_param[64];
module_param_string(failslab, dmfa_failslab_param, sizeof(dmfa_failslab_param), 0444);
MODULE_PARM_DESC(failslab, "<interval>,<probability>,<space>,<times> armed at load");

static char dmfa_fail_page_param[64];
module_param_string(fail_page_alloc, dmfa_fail_page_param, sizeof(dmfa_fail_page_param), 0444);
MODULE_PARM_DESC(fail_page_alloc, "<interval>,<probability>,<space>,<times> armed at load");

static bool dmfa_entry_probes;
module_param_named(entry_probes, dmfa_entry_probes, bool, 0444);
MODULE_PARM_DESC(entry_probes,
		 "probe the allocation entry points even where should_failslab/should_fail_alloc_page exist");

static bool dmfa_slab_wanted(struct dmfa_hook *h, struct dmfa_call *c)
{
	const struct dmfa_probe_desc *d = c->desc;
	const struct dmfa_names *filter;
	const void *buckets = NULL;
	const char *name;
	bool wanted = true;
	unsigned int i;

	if (d->cache != DMFA_NOARG) {
		c->cache = (struct kmem_cache *)dmfa_arch_arg(c->fregs, d->cache);
		if (dmfa_is_boot_cache(c->cache))
			return false;
	}
	if (d->size != DMFA_NOARG) {
		c->size = dmfa_arch_arg(c->fregs, d->size);
		/* kmalloc(0) is ZERO_SIZE_PTR; large kmalloc is the page hook's */
		if (d->cache == DMFA_NOARG && (!c->size || c->size > KMALLOC_MAX_CACHE_SIZE))
			return false;
	}
	if (d->buckets != DMFA_NOARG)
		buckets = (const void *)dmfa_arch_arg(c->fregs, d->buckets);

	/* preemption is off in the callback: an RCU grace period waits for it */
	filter = rcu_dereference_sched(h->cache_filter);
	if (filter) {
		if (!c->cache)
			c->cache = dmfa_kmalloc_cache(c->size, c->gfp, buckets,
						      dmfa_arch_caller(c->fregs));
		name = c->cache ? dmfa_cache_name(c->cache) : NULL;
		wanted = false;
		for (i = 0; name && i < filter->nr && !wanted; i++)
			wanted = !strcmp(name, filter->name[i]);
	}
	return wanted;
}

/* Bytes for space, worked out only for a call that may fail. */
static void dmfa_slab_size(struct dmfa_call *c)
{
	const struct dmfa_probe_desc *d = c->desc;

	if (d->size == DMFA_NOARG)
		c->size = kmem_cache_size(c->cache);
	if (d->count != DMFA_NOARG)
		c->size *= dmfa_arch_arg(c->fregs, d->count);
}

static bool dmfa_page_wanted(struct dmfa_hook *h, struct dmfa_call *c)
{
	const struct dmfa_probe_desc *d = c->desc;

	if (d->order != DMFA_NOARG)
		c->order = (unsigned int)dmfa_arch_arg(c->fregs, d->order);
	if (c->order < READ_ONCE(h->min_order))
		return false;
	if (READ_ONCE(h->ignore_gfp_highmem) && (c->gfp & __GFP_HIGHMEM))
		return false;
	/* space counts pages, as the kernel's fail_page_alloc does */
	if (d->count != DMFA_NOARG)
		c->size = max_t(int, (int)dmfa_arch_arg(c->fregs, d->count), 0);
	else
		c->size = 1ULL << min(c->order, 31U);
	return true;
}

/* The domain filters: gfp, then the hook's own (slab cache and size, or order). */
static bool dmfa_wanted(struct dmfa_hook *h, struct dmfa_call *c)
{
	c->gfp = (__force gfp_t)dmfa_arch_arg(c->fregs, c->desc->gfp);
	if (c->gfp & __GFP_NOFAIL)
		return false;
	if (READ_ONCE(h->ignore_gfp_wait) && (c->gfp & __GFP_DIRECT_RECLAIM))
		return false;
	if (h->id == DMFA_FAIL_PAGE_ALLOC)
		return dmfa_page_wanted(h, c);
	return dmfa_slab_wanted(h, c);
}

/* The return value that makes the probed function look failed. */
static unsigned long dmfa_fail_value(const struct dmfa_probe_desc *d,
				     struct ftrace_regs *fregs)
{
	struct page **array;
	int i, n;

	switch (d->ret) {
	case DMFA_RET_ENOMEM:
		return (unsigned long)-ENOMEM;
	case DMFA_RET_TRUE:
		return 1;
	case DMFA_RET_BULK:
		/* a bulk allocation that adds nothing reports what was there */
		array = (struct page **)dmfa_arch_arg(fregs, d->array);
		n = (int)dmfa_arch_arg(fregs, d->count);
		for (i = 0; array && i < n && READ_ONCE(array[i]); i++)
			;
		return array ? i : 0;
	default:
		return 0;
	}
}

/*
 * The hook's line for a fault while verbose is set, fail-nth ones
 * included, under the attribute's ratelimit.
 */
static void dmfa_log_fault(struct dmfa_hook *h, const struct dmfa_call *c)
{
	struct dmf_attr *a = &h->attr;
	const char *cache = "-";

	/* __GFP_NOWARN callers may hold locks printk needs (commit 6b9dbedbe349) */
	if (!READ_ONCE(a->verbose) || (c->gfp & __GFP_NOWARN) || !__ratelimit(&a->rs))
		return;
	if (h->id == DMFA_FAILSLAB) {
		if (c->cache)
			cache = dmfa_cache_name(c->cache) ?: "?";
		pr_notice("FAULT_INJECTION: forcing a failure: %s %s(cache %s, size %llu, gfp %pGg) pid %d (%s)\n",
			  h->name, c->desc->symbol, cache, c->size, &c->gfp,
			  task_pid_nr(current), current->comm);
	} else {
		pr_notice("FAULT_INJECTION: forcing a failure: %s %s(order %u, gfp %pGg) pid %d (%s)\n",
			  h->name, c->desc->symbol, c->order, &c->gfp,
			  task_pid_nr(current), current->comm);
	}
	if (READ_ONCE(a->verbose) > 1) {
		unsigned long chain[DMF_STACK_DEPTH_MAX];
		unsigned int i, n = dmfa_arch_stack(c->fregs, chain, ARRAY_SIZE(chain));

		/* the chain the stack filter sees, not the trampoline's frames */
		for (i = 0; i < n; i++)
			pr_notice("  %s %pB\n", i ? "from" : "called by", (void *)chain[i]);
	}
}

/*
 * The task's say first (fail-nth, the task filter), then probability 0
 * and the stack filter, then the engine's; a fault is logged here.
 */
static bool dmfa_decide(struct dmfa_hook *h, struct dmfa_call *c)
{
	enum dmfa_task_verdict v = DMFA_TASK_PASS;

	if (!dmfa_task_surely_filtered(h))
		v = dmfa_task_decide(h, c);
	if (v == DMFA_TASK_SKIP)
		return false;
	if (v == DMFA_TASK_NONE && (dmf_prob_is_zero(&h->attr.prob) || !dmfa_stack_allows(h, c)))
		v = DMFA_TASK_PASS;
	if (v == DMFA_TASK_PASS) {
		dmf_count_filtered(&h->attr);
		return false;
	}
	if (h->id == DMFA_FAILSLAB)
		dmfa_slab_size(c);
	if (v == DMFA_TASK_FAIL)
		dmf_force_fail(&h->attr);
	else if (!dmf_should_fail(&h->attr, c->size))
		return false;
	dmfa_log_fault(h, c);
	return true;
}

/*
 * One call of a probed function, at its ftrace call site: domain filters,
 * per-task decisions, then the engine.  Runs in any context the allocator
 * runs in, with preemption off: no sleeping, no allocation.  To fail it,
 * set the return value and have the trampoline return into
 * dmfa_return_stub instead of the function's body
 * (FTRACE_OPS_FL_IPMODIFY).
 */
static void dmfa_probe_hit(struct dmfa_hook *h, const struct dmfa_probe *p,
			   struct ftrace_regs *fregs)
{
	struct dmfa_call c = { .fregs = fregs, .desc = p->desc };

	this_cpu_inc(*h->seen);
	if (!dmfa_wanted(h, &c) || !dmfa_decide(h, &c))
		return;
	/* the last of times: nothing more to do, disarm (as the kernel cannot) */
	if (READ_ONCE(h->attr.times) >= 0 && !atomic64_read(&h->attr.times_left))
		dmfa_rearm_soon();
	dmfa_arch_fail(fregs, dmfa_fail_value(c.desc, fregs));
}

/*
 * The ftrace callback of a hook's probed functions.  Nothing has run in
 * the function yet: the arguments are in their registers and the return
 * address is on top of the stack.  A call made while this CPU is already
 * in here, in the same context, is let through and counted as missed.
 */
static void dmfa_ftrace_func(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct dmfa_hook *h = container_of(ops, struct dmfa_hook, ops);
	struct dmfa_probe *p;
	int bit;

	if (!READ_ONCE(h->live))
		return;
	for (p = h->probes; p < h->probes + h->nr_probes && p->site != ip; p++)
		;
	if (p == h->probes + h->nr_probes)
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		p->missed++;
		return;
	}
	dmfa_probe_hit(h, p, fregs);
	ftrace_test_recursion_unlock(bit);
}

/*
 * Keep @d as a probe of @h if its function is in this kernel and has an
 * ftrace call site: it joins the filter of the hook's ops, which is not
 * registered yet, so nothing in the kernel text changes.
 */
static bool dmfa_probe_try(struct dmfa_hook *h, const struct dmfa_probe_desc *d)
{
	struct dmfa_probe *p = &h->probes[h->nr_probes];
	unsigned long addr;
	int r;

	if (h->nr_probes >= ARRAY_SIZE(h->probes))
		return false;
	addr = dmfa_lookup(d->symbol);
	if (!addr)
		return false;
	r = ftrace_set_filter_ip(&h->ops, addr, 0, 0);
	if (r) {
		pr_warn("%s: %s: no ftrace call site (%d), not probed\n", h->name, d->symbol, r);
		return false;
	}
	p->desc = d;
	p->site = dmfa_arch_ftrace_site(addr);
	p->missed = 0;
	h->nr_probes++;
	return true;
}

/*
 * Choose the probe points: the should_*() function where it exists,
 * else every allocation entry point this kernel has.  One ftrace_ops per
 * hook covers them all; its filter is set here, once, and the ops is
 * registered only while the hook is armed.
 */
static void dmfa_hook_choose(struct dmfa_hook *h, const struct dmfa_probe_desc *point,
			     const struct dmfa_probe_desc *entries, unsigned int nr)
{
	unsigned int i;

	h->ops.func = dmfa_ftrace_func;
	h->ops.flags = FTRACE_OPS_FL_IPMODIFY;
	if (dmfa_entry_probes || !dmfa_probe_try(h, point))
		for (i = 0; i < nr; i++)
			dmfa_probe_try(h, &entries[i]);
	if (!h->nr_probes)
		pr_warn("%s: no allocator function to probe in this kernel\n", h->name);
}

/*
 * The kernel's defaults (lib/fault-inject.c, mm/failslab.c,
 * mm/fail_page_alloc.c) but for verbose, 1 rather than 2, and the
 * engine's log ratelimit: a fault is one line, not a stack dump each.
 */
static int dmfa_hook_init(struct dmfa_hook *h, const char *param)
{
	int r;

	r = dmf_attr_init(&h->attr, h->name);
	if (r)
		return r;
	h->seen = alloc_percpu(u64);
	if (!h->seen) {
		dmf_attr_destroy(&h->attr);
		return -ENOMEM;
	}
	h->attr.times = 1;
	h->attr.verbose = 1;
	dmf_attr_reset(&h->attr);
	h->ignore_gfp_wait = true;
	if (h->id == DMFA_FAIL_PAGE_ALLOC) {
		h->ignore_gfp_highmem = true;
		h->min_order = 1;
	}
	h->stack_depth = DMF_STACK_DEPTH_MAX;
	h->require_end = ULONG_MAX;
	if (param[0]) {
		r = dmf_attr_parse_legacy(&h->attr, param);
		if (r) {
			pr_err("%s=%s: expected <interval>,<probability>,<space>,<times>\n",
			       h->name, param);
			free_percpu(h->seen);
			dmf_attr_destroy(&h->attr);
		}
	}
	return r;
}

static void dmfa_hook_destroy(struct dmfa_hook *h)
{
	unsigned int i;

	ftrace_free_filter(&h->ops);

	for (i = 0; i < DMFA_NR_LISTS; i++)
		dmfa_names_free(h->lists[i]);
	dmfa_names_free(rcu_dereference_protected(h->cache_filter, true));
	free_percpu(h->seen);
	dmf_attr_destroy(&h->attr);
}

static int __init dmfa_init(void)
{
	struct dmfa_hook *slab = &dmfa_hooks[DMFA_FAILSLAB];
	struct dmfa_hook *page = &dmfa_hooks[DMFA_FAIL_PAGE_ALLOC];
	int r;

	r = dmfa_hook_init(slab, dmfa_failslab_param);
	if (r)
		goto out_slab;
	r = dmfa_hook_init(page, dmfa_fail_page_param);
	if (r)
		goto out_page;
	dmfa_hook_choose(slab, &dmfa_failslab_point, dmfa_slab_entries,
			 ARRAY_SIZE(dmfa_slab_entries));
	dmfa_hook_choose(page, &dmfa_fail_page_point, dmfa_page_entries,
			 ARRAY_SIZE(dmfa_page_entries));
	r = dmfa_filter_init();
	if (r)
		goto out_hooks;
	r = dmfa_task_init();
	if (r)
		goto out_filter;
	r = dmfa_debugfs_init();
	if (r)
		goto out_task;
	mutex_lock(&dmfa_lock);
	r = dmfa_rearm();
	mutex_unlock(&dmfa_lock);
	if (r)
		goto out_debugfs;
	pr_info("failslab: %u probes (%s), fail_page_alloc: %u probes (%s)\n",
		slab->nr_probes, slab->nr_probes ? slab->probes[0].desc->symbol : "none",
		page->nr_probes, page->nr_probes ? page->probes[0].desc->symbol : "none");
	return 0;

out_debugfs:
	dmfa_debugfs_exit();
	dmfa_hooks_disarm();
out_task:
	dmfa_task_stop();
	dmfa_rearm_sync();
	dmfa_task_exit();
out_filter:
	dmfa_filter_exit();
out_hooks:
	dmfa_hook_destroy(page);
out_page:
	dmfa_hook_destroy(slab);
out_slab:
	return r;
}

static void __exit dmfa_exit(void)
{
	unsigned int i;

	dmfa_debugfs_exit();
	dmfa_filter_exit();
	dmfa_hooks_disarm();
	dmfa_task_stop();
	dmfa_rearm_sync();
	dmfa_task_exit();
	/*
	 * unregister_ftrace_function() waited for tasks preempted in the
	 * trampoline; one between it and the return stub is past it now
	 */
	synchronize_rcu_tasks();
	for (i = 0; i < DMFA_NR_HOOKS; i++)
		dmfa_hook_destroy(&dmfa_hooks[i]);
}

module_init(dmfa_init);
module_exit(dmfa_exit);

MODULE_DESCRIPTION("dm-fault slab and page-allocator fault injection (ftrace)");
MODULE_AUTHOR("dm-fault developers");
MODULE_LICENSE("GPL");
