/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmf_alloc internals, shared by the hook core (dmf-alloc.c), the filters
 * that need kernel lookups (dmf-alloc-filter.c), per-task marking and
 * fail-nth (dmf-alloc-task.c), the debugfs knobs (dmf-alloc-debugfs.c) and
 * the architecture part (dmf-alloc-x86.c).
 */
#ifndef _DMF_ALLOC_H
#define _DMF_ALLOC_H

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <dmf/engine.h>

struct kmem_cache;

enum dmf_hook_id {
	DMF_FAILSLAB,
	DMF_FAIL_PAGE_ALLOC,
	DMF_NR_HOOKS,
};

/* What a probed function returns when it is failed at entry. */
enum dmf_ret {
	DMF_RET_NULL,		/* an allocation: NULL */
	DMF_RET_ENOMEM,		/* should_failslab(): -ENOMEM */
	DMF_RET_TRUE,		/* should_fail_alloc_page(): true */
	DMF_RET_ZERO,		/* kmem_cache_alloc_bulk(): no object */
	DMF_RET_BULK,		/* alloc_pages_bulk(): the pages already in the array */
};

#define DMF_NOARG	0xff

/*
 * One probe point: which argument holds what, and how the function fails.
 * Argument numbers count from 0 in the C calling convention.
 */
struct dmf_probe_desc {
	const char *symbol;
	u8 gfp;
	u8 cache;	/* struct kmem_cache * */
	u8 size;	/* bytes requested (kmalloc) */
	u8 buckets;	/* kmem_buckets *, CONFIG_SLAB_BUCKETS */
	u8 order;	/* page order */
	u8 count;	/* objects or pages of a bulk allocation */
	u8 array;	/* struct page ** of a bulk page allocation */
	u8 ret;		/* enum dmf_ret */
};

struct dmf_hook;

struct dmf_probe {
	struct kprobe kp;
	const struct dmf_probe_desc *desc;
	struct dmf_hook *hook;
	kprobe_opcode_t *addr;		/* where to probe; NULL: the symbol's entry */
};

/* A list of names from a knob (caches, modules, symbols), RCU-freed. */
#define DMF_NAMES_MAX	16
#define DMF_NAME_LEN	128

struct dmf_names {
	struct rcu_head rcu;
	unsigned int nr;
	const char *name[DMF_NAMES_MAX];
	char buf[];
};

/* The stack filter lists; slot 0 of each range array is the raw range. */
enum dmf_list {
	DMF_REQUIRE_MODULE,
	DMF_REJECT_MODULE,
	DMF_REQUIRE_SYMBOL,
	DMF_REJECT_SYMBOL,
	DMF_NR_LISTS,
};

struct dmf_hook {
	const char *name;
	enum dmf_hook_id id;
	struct dmf_attr attr;
	u64 __percpu *seen;		/* every call the probes saw */

	/* domain filters, read locklessly by the probe handler */
	bool ignore_gfp_wait;
	bool ignore_gfp_highmem;
	u32 min_order;
	struct dmf_names __rcu *cache_filter;

	unsigned int verbose;

	/* the stack filter as configured; attr.stack is derived from it */
	unsigned int stack_depth;
	unsigned long require_start, require_end;
	unsigned long reject_start, reject_end;
	struct dmf_names *lists[DMF_NR_LISTS];

	/* probe points: chosen and registered (disabled) at load, enabled while armed */
	struct dmf_probe probes[16];
	struct kprobe *kps[16];
	unsigned int nr_probes;
	bool armed;
	unsigned long arms;		/* times armed since load */
};

extern struct dmf_hook dmf_hooks[DMF_NR_HOOKS];
extern struct mutex dmf_alloc_lock;	/* configuration and arming */

/* Kernel interfaces that changed; DMF_* detected by Kbuild in the headers. */
static inline void dmf_module_text(const struct module *mod, struct dmf_range *r)
{
#ifdef DMF_MODULE_MEMORY
	r->start = (unsigned long)mod->mem[MOD_TEXT].base;
	r->end = r->start + mod->mem[MOD_TEXT].size;
#else
	r->start = (unsigned long)mod->core_layout.base;
	r->end = r->start + mod->core_layout.text_size;
#endif
}

#ifdef DMF_KMALLOC_TYPE_CALLER
#define dmf_kmalloc_type(gfp, caller)	kmalloc_type(gfp, caller)
#else
#define dmf_kmalloc_type(gfp, caller)	kmalloc_type(gfp)
#endif

/* dmf-alloc.c */
int dmf_hook_update(struct dmf_hook *h);
void dmf_rearm_soon(void);
void dmf_update_all(void);
void dmf_show_probes(struct seq_file *m, struct dmf_hook *h);

/* dmf-alloc-filter.c */
int dmf_filter_init(void);
void dmf_filter_exit(void);
const char *dmf_cache_name(const struct kmem_cache *s);
bool dmf_cache_names_known(void);
bool dmf_is_boot_cache(const struct kmem_cache *s);
struct kmem_cache *dmf_kmalloc_cache(size_t size, gfp_t gfp, const void *buckets,
				     unsigned long caller);
struct dmf_names *dmf_names_parse(const char *s, unsigned int max, bool modules);
void dmf_names_free(struct dmf_names *n);
int dmf_names_show(struct seq_file *m, const struct dmf_names *n);
int dmf_stack_resolve(struct dmf_hook *h, const struct module *going);
int dmf_symbol_check(const char *name);

/* dmf-alloc-task.c */
int dmf_task_init(void);
void dmf_task_stop(void);
void dmf_task_exit(void);
bool dmf_nth_active(void);
bool dmf_nth_pending(void);
int dmf_marks_show(struct seq_file *m);
int dmf_marks_store(char *val, bool mark);
int dmf_nths_show(struct seq_file *m);
int dmf_nths_store(char *val);
DECLARE_PER_CPU(unsigned int, dmf_busy);

/* dmf-alloc-debugfs.c */
int dmf_debugfs_init(void);
void dmf_debugfs_exit(void);

/* dmf-alloc-x86.c: the architecture part */
unsigned long dmf_arch_arg(struct pt_regs *regs, unsigned int n);
unsigned long dmf_arch_caller(struct pt_regs *regs);
void dmf_arch_fail(struct pt_regs *regs, unsigned long ret);
bool dmf_arch_module_addr(unsigned long addr);
kprobe_opcode_t *dmf_arch_past_ftrace(kprobe_opcode_t *addr);
bool dmf_arch_in_task(void);
unsigned int dmf_arch_stack(void *ctx, unsigned long *entries, unsigned int max);

#endif /* _DMF_ALLOC_H */
