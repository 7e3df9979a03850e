// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf_alloc filters that look inside the kernel: slab cache names, the
 * text ranges of modules and symbols for the stack filter, and symbol
 * addresses (the probe points' too).
 *
 * struct kmem_cache has been private to mm/ since 6.8, so the offset of
 * its name is found at load time on two kmalloc caches whose names are
 * known.  kallsyms_lookup_name() is not exported, and calling it through a
 * pointer would trip IBT where its ENDBR is sealed, so a symbol is looked
 * up by register_kprobe(), which fills in the kprobe's address before it
 * checks it.  The probe asked for is one byte into the symbol, inside its
 * first instruction (ENDBR or the ftrace call), so the registration is
 * refused: no breakpoint is written and ftrace is not touched, which
 * matters when the symbol is an allocator another CPU is running through.
 * Modules are found by name among the module objects in sysfs, and a
 * module notifier keeps the ranges right as modules come and go.
 */
#define pr_fmt(fmt) "dmf_alloc: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dmf-alloc.h"

/* A require range that no return address falls in: "not loaded yet". */
#define DMFA_NEVER_START	1UL
#define DMFA_NEVER_END	2UL

static unsigned int dmfa_name_off;
static bool dmfa_name_found;
/* The cache of struct kmem_cache: dmfa_is_boot_cache(). */
const struct kmem_cache *dmfa_boot_cache;

/* Does the char * at @off in @s point to @want? */
static bool dmfa_name_at(const struct kmem_cache *s, unsigned int off, const char *want)
{
	size_t len = strlen(want) + 1;
	const char *p;
	char buf[32];

	if (len > sizeof(buf) ||
	    copy_from_kernel_nofault(&p, (const char *)s + off, sizeof(p)) ||
	    copy_from_kernel_nofault(buf, p, len))
		return false;
	return !memcmp(buf, want, len);
}

static void dmfa_find_name_offset(void)
{
	const struct kmem_cache *a = kmalloc_caches[KMALLOC_NORMAL][kmalloc_index(64)];
	const struct kmem_cache *b = kmalloc_caches[KMALLOC_NORMAL][kmalloc_index(128)];
	unsigned int off;

	for (off = 0; a && b && off < 512; off += sizeof(void *)) {
		if (dmfa_name_at(a, off, "kmalloc-64") && dmfa_name_at(b, off, "kmalloc-128")) {
			dmfa_name_off = off;
			dmfa_name_found = true;
			return;
		}
	}
	pr_warn("slab cache names not found: cache-filter unavailable\n");
}

bool dmfa_cache_names_known(void)
{
	return dmfa_name_found;
}

/**
 * dmfa_cache_name - the name of a slab cache
 * @s: the cache
 *
 * Return: the name, or NULL if cache names are unknown in this kernel.
 */
const char *dmfa_cache_name(const struct kmem_cache *s)
{
	if (!dmfa_name_found || !s)
		return NULL;
	return READ_ONCE(*(const char * const *)((const char *)s + dmfa_name_off));
}

static unsigned int dmfa_kmalloc_index(size_t size)
{
	if (size <= KMALLOC_MIN_SIZE)
		return KMALLOC_SHIFT_LOW;
	if (KMALLOC_MIN_SIZE <= 32 && size > 64 && size <= 96)
		return 1;
	if (KMALLOC_MIN_SIZE <= 64 && size > 128 && size <= 192)
		return 2;
	return fls(size - 1);
}

/**
 * dmfa_kmalloc_cache - the cache a kmalloc of @size will come from
 * @size: bytes, 1 to KMALLOC_MAX_CACHE_SIZE
 * @gfp: the allocation's flags (they choose the kmalloc type)
 * @buckets: the kmem_buckets of a bucketed kmalloc, or NULL
 * @caller: the return address (CONFIG_RANDOM_KMALLOC_CACHES)
 *
 * Mirrors kmalloc_slab() (mm/slab.h) for the entry points that take a
 * size rather than a cache.
 *
 * Return: the cache, or NULL.
 */
struct kmem_cache *dmfa_kmalloc_cache(size_t size, gfp_t gfp, const void *buckets,
				      unsigned long caller)
{
	unsigned int idx;

	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return NULL;
	idx = dmfa_kmalloc_index(size);
	if (buckets)
		return READ_ONCE(((struct kmem_cache * const *)buckets)[idx]);
	return kmalloc_caches[dmfa_kmalloc_type(gfp, caller)][idx];
}

/*
 * The start of symbol @name ("symbol" or "module:symbol"), 0 if there is
 * none: for the stack filter, and for the probe points at load.  The kprobe
 * is registered disabled in case the first instruction is a single byte:
 * it is then placed but never armed, and taken down at once.  The answer is
 * checked against kallsyms, since a symbol of one byte would have sent the
 * probe into its neighbour.
 */
unsigned long dmfa_lookup(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.offset = 1,
		.flags = KPROBE_FLAG_DISABLED,
	};
	const char *colon = strrchr(name, ':');
	char buf[KSYM_SYMBOL_LEN];
	unsigned long addr;
	size_t len;

	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	if (!kp.addr)
		return 0;
	addr = (unsigned long)kp.addr - 1;
	name = colon ? colon + 1 : name;
	len = strlen(name);
	sprint_symbol(buf, addr);
	if (strncmp(buf, name, len) || strncmp(buf + len, "+0x0/", 5))
		return 0;
	return addr;
}

/* [start, end) of the symbol that contains @addr, from "sym+0x4/0x60". */
static int dmfa_symbol_extent(unsigned long addr, struct dmf_range *r)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	char *p;

	sprint_symbol(buf, addr);
	p = strrchr(buf, '+');
	if (!p || sscanf(p, "+%lx/%lx", &off, &size) != 2 || !size)
		return -ENOENT;
	r->start = addr - off;
	r->end = r->start + size;
	return 0;
}

/*
 * The module the notifier is called for as it comes: it is not in sysfs
 * until after the call, but what it runs from its init on is in scope.
 * Under dmfa_lock.
 */
static const struct module *dmfa_coming;

/*
 * The text of module @name.  Every module's sysfs object is in one kset,
 * ours too, and kset_find_obj() takes a reference: free_module() waits for
 * the last one, so the module stays while its range is read.  Built-in
 * "modules" (parameters only) have no struct module and do not match.
 * Caller holds dmfa_lock.
 */
static bool dmfa_module_range(const char *name, const struct module *going,
			      struct dmf_range *r)
{
	struct kobject *kobj;
	const struct module *mod;
	bool found;

	lockdep_assert_held(&dmfa_lock);
	if (dmfa_coming && !strcmp(dmfa_coming->name, name)) {
		dmfa_module_text(dmfa_coming, r);
		return true;
	}
	kobj = kset_find_obj(THIS_MODULE->mkobj.kobj.kset, name);
	if (!kobj)
		return false;
	mod = container_of(kobj, struct module_kobject, kobj)->mod;
	found = mod && mod != going && mod->state != MODULE_STATE_UNFORMED &&
		mod->state != MODULE_STATE_GOING;
	if (found)
		dmfa_module_text(mod, r);
	kobject_put(kobj);
	return found;
}

/* The extent of symbol @name; -ENOENT, or -EAGAIN if its module is not loaded. */
static int dmfa_symbol_range(const char *name, const struct module *going,
			     struct dmf_range *r)
{
	struct dmf_range gr = { };
	const char *colon = strchr(name, ':');
	char mod[MODULE_NAME_LEN];
	unsigned long addr;

	if (colon) {
		if (colon - name >= MODULE_NAME_LEN)
			return -ENOENT;
		strscpy(mod, name, colon - name + 1);
		if (!dmfa_module_range(mod, going, &gr))
			return -EAGAIN;
	}
	addr = dmfa_lookup(name);
	if (!addr || dmfa_symbol_extent(addr, r))
		return -ENOENT;
	if (going) {
		dmfa_module_text(going, &gr);
		if (r->start >= gr.start && r->start < gr.end)
			return -EAGAIN;
	}
	return 0;
}

/**
 * dmfa_symbol_check - can a require/reject-symbol entry be used?
 * @name: "symbol" or "module:symbol"
 *
 * Return: 0 if it resolves, or names a module not loaded now (it will be
 * resolved when the module loads); -ENOENT otherwise.
 */
int dmfa_symbol_check(const char *name)
{
	struct dmf_range r;
	int ret = dmfa_symbol_range(name, NULL, &r);

	return ret == -EAGAIN ? 0 : ret;
}

/* Fill @r from @n, modules or symbols; unresolved entries of a require list never match. */
static unsigned int dmfa_resolve_list(const struct dmfa_names *n, bool symbols, bool require,
				      const struct module *going, struct dmf_range *r,
				      unsigned int slot)
{
	unsigned int i;
	bool ok;

	for (i = 0; n && i < n->nr && slot < DMF_STACK_RANGES; i++) {
		if (symbols)
			ok = !dmfa_symbol_range(n->name[i], going, &r[slot]);
		else
			ok = dmfa_module_range(n->name[i], going, &r[slot]);
		if (ok) {
			slot++;
		} else if (require) {
			r[slot].start = DMFA_NEVER_START;
			r[slot++].end = DMFA_NEVER_END;
		}
	}
	return slot;
}

/* The raw start/end ranges into slot 0 of each side; true if either is set. */
static bool dmfa_raw_ranges(const struct dmfa_hook *h, struct dmf_stack_filter *sf)
{
	bool on = false;

	if (h->require_start || h->require_end != ULONG_MAX) {
		if (h->require_start < h->require_end) {
			sf->require[0].start = h->require_start;
			sf->require[0].end = h->require_end;
		} else {
			sf->require[0].start = DMFA_NEVER_START;
			sf->require[0].end = DMFA_NEVER_END;
		}
		on = true;
	}
	if (h->reject_start < h->reject_end) {
		sf->reject[0].start = h->reject_start;
		sf->reject[0].end = h->reject_end;
		on = true;
	}
	return on;
}

/*
 * Copy @sf into the hook's filter, which the probe's callback reads as it
 * goes: off before the ranges change, on after.
 */
static void dmfa_stack_publish(struct dmfa_hook *h, const struct dmf_stack_filter *sf)
{
	unsigned int i;

	if (!sf->depth)
		WRITE_ONCE(h->stack.depth, 0);
	for (i = 0; i < DMF_STACK_RANGES; i++) {
		WRITE_ONCE(h->stack.require[i].start, sf->require[i].start);
		WRITE_ONCE(h->stack.require[i].end, sf->require[i].end);
		WRITE_ONCE(h->stack.reject[i].start, sf->reject[i].start);
		WRITE_ONCE(h->stack.reject[i].end, sf->reject[i].end);
	}
	if (sf->depth)
		WRITE_ONCE(h->stack.depth, sf->depth);
}

/**
 * dmfa_stack_allows - does the trapped call's chain pass the hook's stack filter?
 * @h: the hook
 * @c: the call
 *
 * The chain starts at the probed function's caller (dmfa_arch_stack());
 * it is unwound only while the filter is on.
 *
 * Return: true if the filter is off or the chain passes it.
 */
bool dmfa_stack_allows(struct dmfa_hook *h, const struct dmfa_call *c)
{
	unsigned int depth = min_t(unsigned int, READ_ONCE(h->stack.depth), DMF_STACK_DEPTH_MAX);
	unsigned long entries[DMF_STACK_DEPTH_MAX];

	if (!depth)
		return true;
	return dmf_stack_allows(&h->stack, entries, dmfa_arch_stack(c->fregs, entries, depth));
}

/**
 * dmfa_stack_resolve - derive the hook's stack filter from its knobs
 * @h: the hook
 * @going: a module being unloaded, whose ranges must go; or NULL
 *
 * Slot 0 of each side is the raw start/end range; module and symbol
 * entries follow.  The filter is on (stacktrace-depth) only when some
 * range is set.  Caller holds dmfa_lock.
 *
 * Return: 0.
 */
int dmfa_stack_resolve(struct dmfa_hook *h, const struct module *going)
{
	struct dmf_stack_filter sf = { };
	unsigned int nreq = 1, nrej = 1, i;
	bool on;

	lockdep_assert_held(&dmfa_lock);
	on = dmfa_raw_ranges(h, &sf);
	nreq = dmfa_resolve_list(h->lists[DMFA_REQUIRE_MODULE], false, true, going,
				 sf.require, nreq);
	nreq = dmfa_resolve_list(h->lists[DMFA_REQUIRE_SYMBOL], true, true, going,
				 sf.require, nreq);
	nrej = dmfa_resolve_list(h->lists[DMFA_REJECT_MODULE], false, false, going,
				 sf.reject, nrej);
	nrej = dmfa_resolve_list(h->lists[DMFA_REJECT_SYMBOL], true, false, going,
				 sf.reject, nrej);
	for (i = 0; i < DMFA_NR_LISTS; i++)
		on |= !!h->lists[i];
	sf.depth = h->stack_depth;
	/*
	 * stacktrace-depth 0 looks at no frame, as in the kernel: a require
	 * side then finds nothing and the hook fails nothing, a reject side
	 * has nothing to refuse.  One frame checked against a range no
	 * address is in says the first; the filter off, the second.
	 */
	if (on && !sf.depth) {
		bool req = nreq > 1 || sf.require[0].start < sf.require[0].end;

		memset(&sf, 0, sizeof(sf));
		sf.require[0].start = DMFA_NEVER_START;
		sf.require[0].end = DMFA_NEVER_END;
		on = req;
		sf.depth = 1;
	}
	if (!on)
		sf.depth = 0;
	dmfa_stack_publish(h, &sf);
	return 0;
}

/*
 * Resolve the names again as a module comes (before its init runs), goes
 * live (now in sysfs, where a resolve between the two would not have
 * found it) and goes.
 */
static int dmfa_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	const struct module *mod = data;
	unsigned int i, l;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_LIVE &&
	    state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&dmfa_lock);
	if (state == MODULE_STATE_COMING)
		dmfa_coming = mod;
	for (i = 0; i < DMFA_NR_HOOKS; i++) {
		for (l = 0; l < DMFA_NR_LISTS; l++) {
			if (dmfa_hooks[i].lists[l]) {
				dmfa_stack_resolve(&dmfa_hooks[i],
						   state == MODULE_STATE_GOING ? mod : NULL);
				break;
			}
		}
	}
	dmfa_coming = NULL;
	mutex_unlock(&dmfa_lock);
	return NOTIFY_OK;
}

static struct notifier_block dmfa_module_nb = {
	.notifier_call = dmfa_module_event,
};

void dmfa_names_free(struct dmfa_names *n)
{
	if (n)
		kfree_rcu(n, rcu);
}

int dmfa_names_show(struct seq_file *m, const struct dmfa_names *n)
{
	unsigned int i;

	for (i = 0; n && i < n->nr; i++)
		seq_printf(m, "%s%s", i ? " " : "", n->name[i]);
	seq_putc(m, '\n');
	return 0;
}

int dmfa_filter_init(void)
{
	const struct kmem_cache *s;
	unsigned long addr;

	dmfa_find_name_offset();
	addr = dmfa_lookup("kmem_cache");
	if (addr && !copy_from_kernel_nofault(&s, (void *)addr, sizeof(s)) &&
	    dmfa_name_found && dmfa_name_at(s, dmfa_name_off, "kmem_cache"))
		dmfa_boot_cache = s;
	return register_module_notifier(&dmfa_module_nb);
}

void dmfa_filter_exit(void)
{
	unregister_module_notifier(&dmfa_module_nb);
}
