/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kernel-shim.c asks the test hooks (test-hooks.c): whether an
 * allocation may succeed, what to count, whether printk is silenced, how
 * far the clock is moved on.  Built with SHIM_NO_TEST_HOOKS (the shipped
 * tools/dmfault), these are stubs: every allocation goes ahead, nothing is
 * counted or silenced, the clock is the real one.
 */
#ifndef _SHIM_HOOKS_H
#define _SHIM_HOOKS_H

#include <stdbool.h>

#ifndef SHIM_NO_TEST_HOOKS
bool shim_alloc_allowed(void);		/* false: fail this one (the budget) */
void shim_alloc_count(long d);		/* one more (1) or one fewer (-1) live */
bool shim_printk_seen(const char *text);	/* counted and kept; print it? */
void shim_dump_stack_seen(void);
void shim_warn_seen(void);
unsigned long shim_clock_offset(void);	/* added to jiffies */
bool shim_is_quiet(void);
#else
static inline bool shim_alloc_allowed(void)
{
	return true;
}

static inline void shim_alloc_count(long d)
{
	(void)d;
}

static inline bool shim_printk_seen(const char *text)
{
	(void)text;
	return true;
}

static inline void shim_dump_stack_seen(void)
{
}

static inline void shim_warn_seen(void)
{
}

static inline unsigned long shim_clock_offset(void)
{
	return 0;
}

static inline bool shim_is_quiet(void)
{
	return false;
}
#endif

#endif /* _SHIM_HOOKS_H */
