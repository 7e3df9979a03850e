/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the dm-fault target: one event per injected fault.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dm_fault

#if !defined(_DM_FAULT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DM_FAULT_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

/* __assign_str() lost its source argument in 6.10. */
#ifndef __assign_str_compat
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define __assign_str_compat(dst, src)	__assign_str(dst)
#else
#define __assign_str_compat(dst, src)	__assign_str(dst, src)
#endif
#endif

TRACE_EVENT(dmf_inject,
	TP_PROTO(const char *dev, unsigned int rule, const char *action,
		 const char *op, sector_t sector, unsigned int bytes, int status),

	TP_ARGS(dev, rule, action, op, sector, bytes, status),

	TP_STRUCT__entry(
		__string(dev, dev)
		__field(unsigned int, rule)
		__string(action, action)
		__string(op, op)
		__field(sector_t, sector)
		__field(unsigned int, bytes)
		__field(int, status)
	),

	TP_fast_assign(
		__assign_str_compat(dev, dev);
		__entry->rule = rule;
		__assign_str_compat(action, action);
		__assign_str_compat(op, op);
		__entry->sector = sector;
		__entry->bytes = bytes;
		__entry->status = status;
	),

	TP_printk("dev=%s rule=%u action=%s op=%s sector=%llu bytes=%u status=%d",
		  __get_str(dev), __entry->rule, __get_str(action), __get_str(op),
		  (unsigned long long)__entry->sector, __entry->bytes, __entry->status)
);

#endif /* _DM_FAULT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dm-fault-trace
#include <trace/define_trace.h>
