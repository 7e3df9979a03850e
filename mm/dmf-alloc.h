/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmf_alloc internals: the types and functions its files share.
 *
 *   dmf-alloc.c          probe tables, the ftrace callback and its log line,
 *                        load and unload
 *   dmf-alloc-hook.c     the hooks, their lock, arming and disarming
 *   dmf-alloc-task.c     per-task decisions: marks (make-it-fail) and
 *                        fail-nth, asked before the engine; when to arm
 *                        (dmfa_rearm())
 *   dmf-alloc-filter.c   lookups in the running kernel: slab cache names,
 *                        module and symbol text for the stack filter
 *   dmf-alloc-debugfs.c  the knobs
 *   dmf-alloc-parse.c    what a write to a knob says, read with no side
 *                        effect (the host fuzzers build it)
 *   dmf-alloc-x86.c      the architecture part
 *
 * Calls go one way, down this list: dmf-alloc.c, debugfs, task, filter,
 * hook; parse and x86 are called by the others and call none of them.
 * Names private to mm/ start with dmfa_; dmf_ names are the engine's.
 */
#ifndef _DMF_ALLOC_H
#define _DMF_ALLOC_H

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <dmf/engine.h>

#include "dmf-alloc-parse.h"

struct kmem_cache;

enum dmfa_hook_id {
	DMFA_FAILSLAB,
	DMFA_FAIL_PAGE_ALLOC,
	DMFA_NR_HOOKS,
};

/* What a probed function returns when it is failed at entry. */
enum dmfa_ret {
	DMFA_RET_NULL,		/* an allocation: NULL */
	DMFA_RET_ENOMEM,		/* should_failslab(): -ENOMEM */
	DMFA_RET_TRUE,		/* should_fail_alloc_page(): true */
	DMFA_RET_ZERO,		/* kmem_cache_alloc_bulk(): no object */
	DMFA_RET_BULK,		/* alloc_pages_bulk(): the pages already in the array */
};

#define DMFA_NOARG	0xff

/*
 * One probe point: which argument holds what, and how the function fails.
 * Argument numbers count from 0 in the C calling convention.
 */
struct dmfa_probe_desc {
	const char *symbol;
	u8 gfp;
	u8 cache;	/* struct kmem_cache * */
	u8 size;	/* bytes requested (kmalloc) */
	u8 buckets;	/* kmem_buckets *, CONFIG_SLAB_BUCKETS */
	u8 order;	/* page order */
	u8 count;	/* objects or pages of a bulk allocation */
	u8 array;	/* struct page ** of a bulk page allocation */
	u8 ret;		/* enum dmfa_ret */
};

struct dmfa_hook;

/* One trapped allocation: what the probe's callback learned. */
struct dmfa_call {
	struct ftrace_regs *fregs;
	const struct dmfa_probe_desc *desc;
	gfp_t gfp;
	struct kmem_cache *cache;
	u64 size;		/* bytes (slab) or pages (page hook), for space */
	unsigned int order;
};

struct dmfa_probe {
	const struct dmfa_probe_desc *desc;
	unsigned long site;		/* the function's ftrace call site */
	unsigned long missed;		/* calls met while this CPU was in the hook */
};

/* The stack filter lists; slot 0 of each range array is the raw range. */
enum dmfa_list {
	DMFA_REQUIRE_MODULE,
	DMFA_REJECT_MODULE,
	DMFA_REQUIRE_SYMBOL,
	DMFA_REJECT_SYMBOL,
	DMFA_NR_LISTS,
};

struct dmfa_hook {
	const char *name;
	enum dmfa_hook_id id;
	struct dmf_attr attr;		/* the policy, verbose and its ratelimit */
	u64 __percpu *seen;		/* every call the probes saw */

	/* filters applied before the engine, read locklessly by the probe handler */
	bool task_filter;		/* only marked tasks */
	bool ignore_gfp_wait;
	bool ignore_gfp_highmem;
	u32 min_order;
	struct dmfa_names __rcu *cache_filter;

	/* the stack filter as configured, and stack derived from it */
	struct dmf_stack_filter stack;
	unsigned int stack_depth;
	unsigned long require_start, require_end;
	unsigned long reject_start, reject_end;
	struct dmfa_names *lists[DMFA_NR_LISTS];

	/*
	 * Probe points: chosen at load, the ops' filter set then; the ops is
	 * registered while the hook is armed, live while it may fail calls.
	 */
	struct ftrace_ops ops;
	struct dmfa_probe probes[16];
	unsigned int nr_probes;
	bool armed;
	bool live;
	unsigned long arms;		/* times armed since load */
};

/* Kernel interfaces that changed; DMFA_* detected by Kbuild in the headers. */
/*
 * The registers at the ftrace call site, which the architecture's part
 * reads and writes.  The ops does not ask for FTRACE_OPS_FL_SAVE_REGS: the
 * trampoline saves the argument registers, %rax, %rbp, %rip and %rsp, which
 * is all the hooks read or write, and returns to whatever %rip holds when
 * the callback is done (the FTRACE_OPS_FL_IPMODIFY contract livepatch
 * relies on).  ftrace_get_regs() answers only for full registers, so they
 * are taken as they are: x86-64's ftrace_regs holds a struct pt_regs.
 */
#ifdef CONFIG_X86_64
static inline struct pt_regs *dmfa_pt_regs(struct ftrace_regs *fregs)
{
#ifdef DMFA_ARCH_FTRACE_REGS
	return &arch_ftrace_regs(fregs)->regs;
#else
	return &fregs->regs;
#endif
}

/* Argument @n (from 0) of the function whose entry @fregs was taken at. */
static inline unsigned long dmfa_arch_arg(struct ftrace_regs *fregs, unsigned int n)
{
	return regs_get_kernel_argument(dmfa_pt_regs(fregs), n);
}
#else
/* arm64: x0-x7 as the trampoline saved them */
static inline unsigned long dmfa_arch_arg(struct ftrace_regs *fregs, unsigned int n)
{
	return ftrace_regs_get_argument(fregs, n);
}
#endif

static inline void dmfa_module_text(const struct module *mod, struct dmf_range *r)
{
#ifdef DMFA_MODULE_MEMORY
	r->start = (unsigned long)mod->mem[MOD_TEXT].base;
	r->end = r->start + mod->mem[MOD_TEXT].size;
#else
	r->start = (unsigned long)mod->core_layout.base;
	r->end = r->start + mod->core_layout.text_size;
#endif
}

/* kmalloc_type() takes the caller where kmalloc has per-caller buckets. */
static inline enum kmalloc_cache_type dmfa_kmalloc_type(gfp_t gfp, unsigned long caller)
{
#ifdef DMFA_KMALLOC_TYPE_CALLER
	return kmalloc_type(gfp, caller);
#else
	return kmalloc_type(gfp);
#endif
}

/* Buckets of marked tasks (dmf-alloc-task.c). */
#define DMFA_MARK_BITS		8
#define DMFA_MARK_BUCKETS	BIT(DMFA_MARK_BITS)

/* What the per-task state says of one call: dmfa_task_decide(). */
enum dmfa_task_verdict {
	DMFA_TASK_NONE,		/* nothing: the engine decides */
	DMFA_TASK_FAIL,		/* a fail-nth count came due */
	DMFA_TASK_PASS,		/* not marked, or a count not yet due: filtered */
	DMFA_TASK_SKIP,		/* a count pending, the call out of scope: not counted */
};

/* dmf-alloc-hook.c */
extern struct dmfa_hook dmfa_hooks[DMFA_NR_HOOKS];
extern struct mutex dmfa_lock;		/* configuration and arming */
int dmfa_hooks_arm(bool nth);
void dmfa_hooks_disarm(void);
void dmfa_hook_list_probes(struct seq_file *m, struct dmfa_hook *h);

/* dmf-alloc-filter.c */
extern const struct kmem_cache *dmfa_boot_cache;
int dmfa_filter_init(void);
unsigned long dmfa_lookup(const char *name);
void dmfa_filter_exit(void);
const char *dmfa_cache_name(const struct kmem_cache *s);
bool dmfa_cache_names_known(void);
struct kmem_cache *dmfa_kmalloc_cache(size_t size, gfp_t gfp, const void *buckets,
				      unsigned long caller);
void dmfa_names_free(struct dmfa_names *n);
int dmfa_names_show(struct seq_file *m, const struct dmfa_names *n);
int dmfa_stack_resolve(struct dmfa_hook *h, const struct module *going);
bool dmfa_stack_allows(struct dmfa_hook *h, const struct dmfa_call *c);
int dmfa_symbol_check(const char *name);

/* The kernel's failslab never fails the cache of struct kmem_cache. */
static inline bool dmfa_is_boot_cache(const struct kmem_cache *s)
{
	return s == dmfa_boot_cache;
}

/* dmf-alloc-task.c */
extern bool dmfa_nth_on;
extern struct hlist_head dmfa_marks[DMFA_MARK_BUCKETS];

static inline struct hlist_head *dmfa_mark_bucket(const struct task_struct *t)
{
	return &dmfa_marks[hash_ptr(t, DMFA_MARK_BITS)];
}

/*
 * The task filter's answer where it needs no lookup: no fail-nth count is
 * pending, the filter is on and no marked task shares current's bucket.
 * dmfa_task_decide() answers the other calls.
 */
static inline bool dmfa_task_surely_filtered(struct dmfa_hook *h)
{
	return !READ_ONCE(dmfa_nth_on) && READ_ONCE(h->task_filter) &&
	       hlist_empty(dmfa_mark_bucket(current));
}

int dmfa_task_init(void);
void dmfa_task_stop(void);
void dmfa_task_exit(void);
enum dmfa_task_verdict dmfa_task_decide(struct dmfa_hook *h, struct dmfa_call *c);
int dmfa_rearm(void);
void dmfa_rearm_soon(void);
void dmfa_rearm_sync(void);
int dmfa_marks_list(struct seq_file *m);
int dmfa_marks_write(char *val, bool mark);
int dmfa_mark_missed_show(struct seq_file *m);
int dmfa_nths_list(struct seq_file *m);
int dmfa_nths_write(char *val);

/* dmf-alloc-debugfs.c */
int dmfa_debugfs_init(void);
void dmfa_debugfs_exit(void);

/* dmf-alloc-x86.c, dmf-alloc-arm64.c: the architecture part */
unsigned long dmfa_arch_caller(struct ftrace_regs *fregs);
void dmfa_arch_fail(struct ftrace_regs *fregs, unsigned long ret);
unsigned long dmfa_arch_ftrace_site(unsigned long func);
unsigned int dmfa_arch_stack(struct ftrace_regs *fregs, unsigned long *entries, unsigned int max);

#endif /* _DMF_ALLOC_H */
