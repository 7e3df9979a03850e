// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test hooks of tools/kshim (declared at the end of dmf/kernel.h): an
 * allocation failure budget, counters of what the code under test printed
 * and allocated, a quiet printk, a clock offset, the race window of
 * atomic64_read() and a fake stack for stack_trace_save().  kernel-shim.c
 * reaches them through shim-hooks.h.  The unit tests, fuzzers and
 * benchmarks link this file; the shipped tool does not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dmf/kernel.h>
#include "shim-hooks.h"

#include <sched.h>

unsigned long shim_printk_count, shim_dump_stack_count, shim_warnings;
bool shim_quiet;
char shim_printk_last[256];
unsigned long shim_jiffies_offset;
unsigned int shim_race_delay;
unsigned int shim_stack_calls, shim_stack_last_size, shim_stack_last_skip;

static long shim_alloc_budget = -1;
static long shim_live, shim_failed;
static unsigned long shim_stack[SHIM_STACK_MAX];
static unsigned int shim_stack_len;
static pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;

/* Take one allocation from the budget: false when this one must fail. */
bool shim_alloc_allowed(void)
{
	long b = __atomic_load_n(&shim_alloc_budget, __ATOMIC_SEQ_CST);

	do {
		if (b < 0)
			return true;
		if (b == 0) {
			__atomic_add_fetch(&shim_failed, 1, __ATOMIC_SEQ_CST);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&shim_alloc_budget, &b, b - 1, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return true;
}

/* One more (@d 1) or one fewer (@d -1) allocation live. */
void shim_alloc_count(long d)
{
	__atomic_add_fetch(&shim_live, d, __ATOMIC_SEQ_CST);
}

void shim_dump_stack_seen(void)
{
	__atomic_add_fetch(&shim_dump_stack_count, 1, __ATOMIC_RELAXED);
}

void shim_warn_seen(void)
{
	__atomic_add_fetch(&shim_warnings, 1, __ATOMIC_RELAXED);
}

unsigned long shim_clock_offset(void)
{
	return __atomic_load_n(&shim_jiffies_offset, __ATOMIC_RELAXED);
}

bool shim_is_quiet(void)
{
	return shim_quiet;
}

/* printk's line, counted and kept; whether to print it (not shim_quiet). */
bool shim_printk_seen(const char *text)
{
	pthread_mutex_lock(&shim_lock);
	shim_printk_count++;
	snprintf(shim_printk_last, sizeof(shim_printk_last), "%s", text);
	pthread_mutex_unlock(&shim_lock);
	return !shim_quiet;
}

void shim_race_window(void)
{
	static __thread u64 x = 0x9e3779b97f4a7c15ULL;
	unsigned int n;

	if (x == 0x9e3779b97f4a7c15ULL)
		x ^= (uintptr_t)&x;	/* a different sequence per thread */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	if (!(x & 255)) {
		sched_yield();
		return;
	}
	for (n = x % (shim_race_delay + 1); n; n--)
		__asm__ __volatile__("" ::: "memory");
}

void shim_fail_alloc_after(long n)
{
	__atomic_store_n(&shim_alloc_budget, n, __ATOMIC_SEQ_CST);
}

long shim_allocs_live(void)
{
	return __atomic_load_n(&shim_live, __ATOMIC_SEQ_CST);
}

long shim_allocs_failed(void)
{
	return __atomic_load_n(&shim_failed, __ATOMIC_SEQ_CST);
}

void shim_set_cpu(int cpu)
{
	if (cpu < 0 || cpu >= SHIM_NR_CPUS)
		abort();
	shim_cpu = cpu;
}

void shim_set_stack(const unsigned long *entries, unsigned int n)
{
	if (n > SHIM_STACK_MAX)
		abort();
	pthread_mutex_lock(&shim_lock);
	if (n)
		memcpy(shim_stack, entries, n * sizeof(*entries));
	shim_stack_len = n;
	pthread_mutex_unlock(&shim_lock);
}

unsigned int stack_trace_save(unsigned long *store, unsigned int size, unsigned int skipnr)
{
	unsigned int n;

	pthread_mutex_lock(&shim_lock);
	shim_stack_calls++;
	shim_stack_last_size = size;
	shim_stack_last_skip = skipnr;
	n = shim_stack_len < size ? shim_stack_len : size;
	if (n)
		memcpy(store, shim_stack, n * sizeof(*store));
	pthread_mutex_unlock(&shim_lock);
	return n;
}
