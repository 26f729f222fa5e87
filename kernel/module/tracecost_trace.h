/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracecost:pair - fired inside each timed pair when enabled, so that the
 * "+" path (a kernel tracepoint with an ftrace consumer) can be measured on
 * any kernel, including one without events/preemptirq.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tracecost

#if !defined(_TRACECOST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACECOST_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(pair,
	TP_PROTO(int pair),
	TP_ARGS(pair),
	TP_STRUCT__entry(
		__field(int, pair)
	),
	TP_fast_assign(
		__entry->pair = pair;
	),
	TP_printk("pair=%d", __entry->pair)
);

#endif /* _TRACECOST_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracecost_trace
#include <trace/define_trace.h>
