/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel environment of the dm-fault engine.  Every kernel API the
 * engine uses is reached through this header; the host unit tests put
 * tools/kshim/dmf/kernel.h in its place.
 */
#ifndef _DMF_KERNEL_H
#define _DMF_KERNEL_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/gcd.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/types.h>

#endif /* _DMF_KERNEL_H */
