/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/tc_lttng_tp.h - the LTTng-UST tracepoint provider "tracecost" of
 * the user suite's lttng columns: one event per toggle and column, the
 * preemptirq class (ip, parent_ip). Events *_0 belong to the "lttng" column
 * (never enabled), *_1 to "lttng+" (enabled in a private session).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tracecost

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "subjects/tc_lttng_tp.h"

#if !defined(TC_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TC_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(tracecost, toggle,
	LTTNG_UST_TP_ARGS(unsigned long, ip, unsigned long, parent_ip),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(unsigned long, ip, ip)
		lttng_ust_field_integer_hex(unsigned long, parent_ip, parent_ip)))

#define TC_LTTNG_EVENT(name)							\
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(tracecost, toggle, tracecost, name,	\
		LTTNG_UST_TP_ARGS(unsigned long, ip, unsigned long, parent_ip))

TC_LTTNG_EVENT(irq_disable_0)
TC_LTTNG_EVENT(irq_enable_0)
TC_LTTNG_EVENT(preempt_disable_0)
TC_LTTNG_EVENT(preempt_enable_0)
TC_LTTNG_EVENT(irq_disable_1)
TC_LTTNG_EVENT(irq_enable_1)
TC_LTTNG_EVENT(preempt_disable_1)
TC_LTTNG_EVENT(preempt_enable_1)

#endif /* TC_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
