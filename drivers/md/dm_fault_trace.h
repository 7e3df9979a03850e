/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the dm-fault target: one event per injected fault.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dm_fault

#if !defined(_DM_FAULT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DM_FAULT_TRACE_H

#include <linux/tracepoint.h>

#define fault_show_op(op)						\
	__print_symbolic(op,					\
			 { FAULT_OP_READ, "read" },		\
			 { FAULT_OP_WRITE, "write" },		\
			 { FAULT_OP_FLUSH, "flush" },		\
			 { FAULT_OP_DISCARD, "discard" },		\
			 { FAULT_OP_WRITE_ZEROES, "write-zeroes" },	\
			 { FAULT_OP_OTHER, "other" })

#define fault_show_action(action)					\
	__print_symbolic(action,				\
			 { FAULT_ACT_ERROR, "error" },		\
			 { FAULT_ACT_DROP, "drop" },		\
			 { FAULT_ACT_CORRUPT, "corrupt" },	\
			 { FAULT_ACT_DELAY, "delay" },		\
			 { FAULT_ACT_STALL, "stall" },		\
			 { FAULT_ACT_TORN, "torn" })

TRACE_EVENT(fault_inject,
	TP_PROTO(dev_t dev, unsigned int rule, unsigned int action, unsigned int op,
		 sector_t sector, unsigned int bytes, int error),

	TP_ARGS(dev, rule, action, op, sector, bytes, error),

	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(unsigned int, rule)
		__field(unsigned int, action)
		__field(unsigned int, op)
		__field(sector_t, sector)
		__field(unsigned int, bytes)
		__field(int, error)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->rule = rule;
		__entry->action = action;
		__entry->op = op;
		__entry->sector = sector;
		__entry->bytes = bytes;
		__entry->error = error;
	),

	TP_printk("dev=%d:%d rule=%u action=%s op=%s sector=%llu bytes=%u error=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->rule,
		  fault_show_action(__entry->action), fault_show_op(__entry->op),
		  (unsigned long long)__entry->sector, __entry->bytes, __entry->error)
);

#endif /* _DM_FAULT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dm_fault_trace
#include <trace/define_trace.h>
