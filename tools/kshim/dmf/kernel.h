/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Userspace stand-in for include/dmf/kernel.h, in the manner of
 * tools/testing/radix-tree: the engine's source compiles unchanged on the
 * host against these definitions.  Put tools/kshim first on the include
 * path and link tools/kshim/kernel-shim.c, and test-hooks.c for the hooks.
 *
 * Atomics, per-CPU counters, RCU and mutexes are real (GCC __atomic
 * builtins, pthreads), so tests may hammer the engine from many threads.
 * Test hooks, all named shim_*, are declared at the end: an allocation
 * failure budget, a fake stack for stack_trace_save(), a fake clock for
 * ratelimits and counters of what the code under test printed.
 * SHIM_NO_TEST_HOOKS (the shipped tools/dmfault) leaves them all out.
 */
#ifndef _DMF_KERNEL_H
#define _DMF_KERNEL_H

#ifdef SHIM_NO_TEST_HOOKS
#define SHIM_NO_RACE_WINDOW
#endif

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* <linux/types.h> */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as the kernel: printed with %llu */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef unsigned int gfp_t;

/* <linux/compiler.h> */
#define __percpu
#define __rcu
#define __user
#define __iomem
#define __force
#define __init
#define __exit
#define __must_check		__attribute__((warn_unused_result))
#define __maybe_unused		__attribute__((unused))
#define __always_unused		__attribute__((unused))
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define noinline		__attribute__((noinline))

/* <linux/cache.h>: x86-64's line */
#define SMP_CACHE_BYTES		64
#define ____cacheline_aligned_in_smp __attribute__((aligned(SMP_CACHE_BYTES)))
#define __noreturn		__attribute__((__noreturn__))
#define fallthrough		__attribute__((fallthrough))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __same_type(a, b)	__builtin_types_compatible_p(typeof(a), typeof(b))
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#define BUILD_BUG_ON(e)		((void)sizeof(char[1 - 2 * !!(e)]))

/* Scalars only, as the engine uses them; relaxed atomics keep ASan quiet. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* <linux/limits.h>, <linux/kernel.h>, <linux/minmax.h> */
#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		((s64)(-S64_MAX - 1))

#define BIT(n)		(1UL << (n))

/* <linux/bitops.h>, <linux/math64.h> */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}

#define __must_be_array(a)	BUILD_BUG_ON_ZERO(__same_type((a), &(a)[0]))
#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]) + __must_be_array(arr))

#define min_t(type, x, y) ({ type __x = (x); type __y = (y); __x < __y ? __x : __y; })
#define max_t(type, x, y) ({ type __x = (x); type __y = (y); __x > __y ? __x : __y; })
#define min(x, y) ({ typeof(x) __x = (x); typeof(y) __y = (y); \
		     (void)(&__x == &__y); __x < __y ? __x : __y; })
#define max(x, y) ({ typeof(x) __x = (x); typeof(y) __y = (y); \
		     (void)(&__x == &__y); __x > __y ? __x : __y; })
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)

/* <linux/math64.h>, <linux/gcd.h> */
static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

/* Same contract as lib/math/gcd.c: gcd(0, b) == b, gcd(a, 0) == a. */
static inline unsigned long gcd(unsigned long a, unsigned long b)
{
	while (b) {
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* <linux/kstrtox.h>: the kernel's exact semantics (lib/kstrtox.c). */
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);

static inline int __must_check kstrtou64(const char *s, unsigned int base, u64 *res)
{
	return kstrtoull(s, base, res);
}

static inline int __must_check kstrtos64(const char *s, unsigned int base, s64 *res)
{
	return kstrtoll(s, base, res);
}

/* <linux/sprintf.h> */
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/*
 * The kernel's sscanf() (lib/vsprintf.c), not libc's, for %d, %u, %lld,
 * %llu and %c: blanks before a number skipped, no '+', a number past the
 * type wrapped.  Other conversions abort.
 */
int shim_sscanf(const char *buf, const char *fmt, ...);
#define sscanf shim_sscanf

/* <linux/err.h> */
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE(ptr);
}

static inline bool IS_ERR_OR_NULL(const void *ptr)
{
	return !ptr || IS_ERR_VALUE(ptr);
}

/* <linux/overflow.h>: saturating at SIZE_MAX, so an allocation fails. */
static inline size_t shim_struct_size(size_t base, size_t elem, size_t n)
{
	size_t bytes;

	if (__builtin_mul_overflow(elem, n, &bytes) || __builtin_add_overflow(bytes, base, &bytes))
		return SIZE_MAX;
	return bytes;
}

#define struct_size(p, member, count) \
	shim_struct_size(sizeof(*(p)), sizeof(*(p)->member), (count))

/* <linux/string.h>; strsep() and the rest are libc's. */
char *strreplace(char *str, char old, char new);
char *skip_spaces(const char *str);	/* the kernel's isspace(): 0xa0 too */

/* <linux/printk.h> */
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define KERN_EMERG	"<0>"
#define KERN_ALERT	"<1>"
#define KERN_CRIT	"<2>"
#define KERN_ERR	"<3>"
#define KERN_WARNING	"<4>"
#define KERN_NOTICE	"<5>"
#define KERN_INFO	"<6>"
#define KERN_DEBUG	"<7>"

int printk(const char *fmt, ...) __printf(1, 2);
void dump_stack(void);

#define pr_emerg(fmt, ...)	printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)

/* <asm/bug.h>: a warning is counted in shim_warnings so tests can assert none. */
void shim_warn(const char *file, int line, const char *cond);
#define WARN_ON(cond) ({ bool __c = !!(cond); \
			 if (unlikely(__c)) shim_warn(__FILE__, __LINE__, #cond); \
			 unlikely(__c); })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)

/* <linux/random.h> */
u64 get_random_u64(void);
u32 get_random_u32(void);

/* <linux/jiffies.h>: milliseconds of CLOCK_MONOTONIC plus shim_jiffies_offset. */
#define HZ 1000
unsigned long shim_jiffies(void);
#define jiffies shim_jiffies()

/* <linux/ratelimit.h> */
#define DEFAULT_RATELIMIT_INTERVAL	(5 * HZ)
#define DEFAULT_RATELIMIT_BURST		10

struct ratelimit_state {
	int lock;		/* a spinlock; a copied struct is never locked */
	int interval;
	int burst;
	int printed;
	int missed;
	unsigned long begin;
};

void ratelimit_state_init(struct ratelimit_state *rs, int interval, int burst);
int ___ratelimit(struct ratelimit_state *rs, const char *func);
#define __ratelimit(rs) ___ratelimit(rs, __func__)

/* <linux/mutex.h> */
#include <pthread.h>

struct mutex {
	pthread_mutex_t m;
};

#define DEFINE_MUTEX(name) struct mutex name = { PTHREAD_MUTEX_INITIALIZER }
void mutex_init(struct mutex *lock);
void mutex_destroy(struct mutex *lock);
void mutex_lock(struct mutex *lock);
void mutex_unlock(struct mutex *lock);
int mutex_trylock(struct mutex *lock);
#define lockdep_assert_held(l)	((void)(l))

/* <linux/types.h> */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

/*
 * <linux/rcupdate.h>: readers share a writer-preferring rwlock that
 * synchronize_rcu() takes for writing, a real (if slow) grace period.
 */
void rcu_read_lock(void);
void rcu_read_unlock(void);
void synchronize_rcu(void);
#define rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_dereference_protected(p, c)	__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define rcu_access_pointer(p)		__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define rcu_assign_pointer(p, v) \
	do { typeof(p) __v = (v); __atomic_store_n(&(p), __v, __ATOMIC_RELEASE); } while (0)
#define RCU_INIT_POINTER(p, v) \
	do { typeof(p) __v = (v); __atomic_store_n(&(p), __v, __ATOMIC_RELAXED); } while (0)

/* <linux/atomic.h>: sequentially consistent, as the kernel's value-returning ops. */
typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }
#define __SHIM_SC		__ATOMIC_SEQ_CST

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __SHIM_SC);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __SHIM_SC);
}

static inline int atomic_add_return(int i, atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __SHIM_SC);
}

static inline void atomic_inc(atomic_t *v)
{
	atomic_add_return(1, v);
}

static inline void atomic_dec(atomic_t *v)
{
	atomic_add_return(-1, v);
}

static inline int atomic_inc_return(atomic_t *v)
{
	return atomic_add_return(1, v);
}

static inline bool atomic_dec_and_test(atomic_t *v)
{
	return atomic_add_return(-1, v) == 0;
}

#ifndef SHIM_NO_RACE_WINDOW
/* Test hook: widen the window between reading a value and acting on it. */
extern unsigned int shim_race_delay;
void shim_race_window(void);
#endif

static inline s64 atomic64_read(const atomic64_t *v)
{
	s64 i = __atomic_load_n(&v->counter, __SHIM_SC);

#ifndef SHIM_NO_RACE_WINDOW	/* bench/engine.sh counts the kernel's path */
	if (unlikely(shim_race_delay))
		shim_race_window();
#endif
	return i;
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __SHIM_SC);
}

static inline s64 atomic64_add_return(s64 i, atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __SHIM_SC);
}

static inline s64 atomic64_sub_return(s64 i, atomic64_t *v)
{
	return __atomic_sub_fetch(&v->counter, i, __SHIM_SC);
}

static inline s64 atomic64_inc_return(atomic64_t *v)
{
	return atomic64_add_return(1, v);
}

static inline s64 atomic64_dec_return(atomic64_t *v)
{
	return atomic64_sub_return(1, v);
}

static inline void atomic64_add(s64 i, atomic64_t *v)
{
	atomic64_add_return(i, v);
}

static inline void atomic64_sub(s64 i, atomic64_t *v)
{
	atomic64_sub_return(i, v);
}

static inline void atomic64_inc(atomic64_t *v)
{
	atomic64_add_return(1, v);
}

static inline void atomic64_dec(atomic64_t *v)
{
	atomic64_sub_return(1, v);
}

static inline s64 atomic64_xchg(atomic64_t *v, s64 new)
{
	return __atomic_exchange_n(&v->counter, new, __SHIM_SC);
}

/* On failure *old is updated to the current value, as in the kernel. */
static inline bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false, __SHIM_SC, __SHIM_SC);
}

static inline s64 atomic64_cmpxchg(atomic64_t *v, s64 old, s64 new)
{
	atomic64_try_cmpxchg(v, &old, new);
	return old;
}

/* Returns the old value minus one, even when it did not decrement. */
static inline s64 atomic64_dec_if_positive(atomic64_t *v)
{
	s64 c = atomic64_read(v), dec;

	do {
		dec = c - 1;
		if (unlikely(dec < 0))
			break;
	} while (!atomic64_try_cmpxchg(v, &c, dec));
	return dec;
}

/*
 * <linux/percpu.h>: SHIM_NR_CPUS copies SHIM_PCPU_UNIT bytes apart, the gap
 * after each copy poisoned under ASan.  A thread runs on CPU 0 until it
 * calls shim_set_cpu(); this_cpu ops are atomic because
 * several threads may share a CPU.
 */
#define SHIM_NR_CPUS	4
#define SHIM_PCPU_UNIT	256

void *shim_alloc_percpu(size_t size, size_t align);
void free_percpu(void *ptr);
extern __thread int shim_cpu;

/* A TLS load, as close as userspace gets to the kernel's %gs access. */
static inline int shim_this_cpu(void)
{
	return shim_cpu;
}

#define alloc_percpu(type)	((type *)shim_alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
#define per_cpu_ptr(ptr, cpu)	((typeof(ptr))((char *)(ptr) + (size_t)(cpu) * SHIM_PCPU_UNIT))
#define this_cpu_ptr(ptr)	per_cpu_ptr(ptr, shim_this_cpu())
#define raw_cpu_ptr(ptr)	this_cpu_ptr(ptr)
#define this_cpu_add(pcp, val) \
	((void)__atomic_add_fetch(this_cpu_ptr(&(pcp)), (val), __ATOMIC_RELAXED))
#define this_cpu_sub(pcp, val)	this_cpu_add(pcp, -(typeof(pcp))(val))
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)
#define this_cpu_add_return(pcp, val) \
	__atomic_add_fetch(this_cpu_ptr(&(pcp)), (val), __ATOMIC_RELAXED)
#define this_cpu_inc_return(pcp) this_cpu_add_return(pcp, 1)
#define this_cpu_dec(pcp)	this_cpu_sub(pcp, 1)
#define this_cpu_read(pcp)	__atomic_load_n(this_cpu_ptr(&(pcp)), __ATOMIC_RELAXED)
#ifdef SHIM_ONE_CPU
/*
 * bench/engine.sh: one thread, on CPU 0, whose per-CPU operations are one
 * instruction on its own copy, as the kernel's %gs-relative ones are.
 */
#undef this_cpu_ptr
#undef this_cpu_add
#undef this_cpu_add_return
#define this_cpu_ptr(ptr)	(ptr)
#define this_cpu_add(pcp, val)	((void)((pcp) += (val)))
#define this_cpu_add_return(pcp, val) ((pcp) += (val))
#endif
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < SHIM_NR_CPUS; (cpu)++)
#define num_possible_cpus()	SHIM_NR_CPUS

/* <linux/slab.h>: honours the same allocation failure budget. */
#define GFP_KERNEL	0x1u
#define GFP_NOWAIT	0x2u
#define GFP_ATOMIC	0x4u
#define __GFP_NOWARN	0x8u

void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
char *kstrdup(const char *s, gfp_t gfp);
void kfree(const void *ptr);

#ifndef SHIM_NO_TEST_HOOKS
/* <linux/stacktrace.h>: returns the fake stack set with shim_set_stack(). */
unsigned int stack_trace_save(unsigned long *store, unsigned int size, unsigned int skipnr);
#endif

/* <linux/preempt.h>, <linux/sched.h> */
#define in_task()	1

/* <linux/export.h>, <linux/module.h>: declarations that swallow the ';'. */
#define EXPORT_SYMBOL(sym)	extern typeof(sym) sym
#define EXPORT_SYMBOL_GPL(sym)	extern typeof(sym) sym
#define MODULE_LICENSE(s)	extern int shim_module_info
#define MODULE_AUTHOR(s)	extern int shim_module_info
#define MODULE_DESCRIPTION(s)	extern int shim_module_info
#define MODULE_VERSION(s)	extern int shim_module_info
#define module_init(fn)		extern int shim_module_info
#define module_exit(fn)		extern int shim_module_info

#ifndef SHIM_NO_TEST_HOOKS
/* Test hooks. */

/*
 * Allocation failure budget for alloc_percpu() and kmalloc() & co: after
 * @n more successful allocations every allocation fails; n < 0 (the
 * default) never fails.
 */
void shim_fail_alloc_after(long n);
long shim_allocs_live(void);		/* allocated and not yet freed */
long shim_allocs_failed(void);		/* failures injected so far */

/* The stack stack_trace_save() reports (copied), and what it was asked. */
#define SHIM_STACK_MAX	64
void shim_set_stack(const unsigned long *entries, unsigned int n);
extern unsigned int shim_stack_calls, shim_stack_last_size, shim_stack_last_skip;

/* Pin the calling thread to a shim CPU, 0 <= cpu < SHIM_NR_CPUS. */
void shim_set_cpu(int cpu);

/* Counters of output; shim_quiet silences printk (it still counts). */
extern unsigned long shim_printk_count, shim_dump_stack_count, shim_warnings;
extern bool shim_quiet;
extern char shim_printk_last[256];

/*
 * Set shim_race_delay > 0 to make every atomic64_read() pause for up to
 * that many spins (and now and then yield), so that code reading an atomic
 * and then writing it without a cmpxchg loses updates where tests see it.
 */

/* Added to jiffies: lets a test step past a ratelimit interval. */
extern unsigned long shim_jiffies_offset;
#endif /* SHIM_NO_TEST_HOOKS */

#endif /* _DMF_KERNEL_H */
