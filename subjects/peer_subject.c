// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/peer_subject.c - the toggle subject instrumented with the peers
 * of the user suite (--peers), built once per column like toggle_subject.c:
 *   -DTC_PEER_KIND=1..5 -DTC_PEER_ON=0|1 -DTC_SUBJECT_ID=<id>
 *
 *  flag   (1): inline toggle, then a __builtin_expect() test of a global
 *		int (the scheme of LTTng-UST's and libside's "enabled" state);
 *		set, it calls the object's own tracepoint (the same dispatch
 *		and recording probe as static+). flag: 0; flag+: 1.
 *  floor  (2): every toggle records: one counter read (rdtsc; cntvct_el0
 *		on AArch64) and one 32-byte event stored into a hot
 *		per-thread ring (256 events, 8 KiB) - the cheapest
 *		recording of an event there is, the physical floor.
 *  usdt   (3): a sys/sdt.h probe without semaphore (a NOP; its arguments are
 *		computed every time); usdt+ is the same object with a uprobe on
 *		its probe points, set up by tracecost in its tracefs instance.
 *  usdt-s (4): a sys/sdt.h probe behind its semaphore (is-enabled test of a
 *		16-bit counter the kernel increments when a uprobe with a
 *		reference counter is attached).
 *  lttng  (5): an LTTng-UST tracepoint (lttng_ust_tracepoint_enabled() test
 *		of the tracepoint's state, lttng_ust_do_tracepoint()); events
 *		tracecost:*_0 (never enabled) and tracecost:*_1 (lttng+, enabled
 *		in tracecost's private session).
 *
 * Events follow the kernel's semantics where the mechanism has an
 * is-enabled test (flag, usdt-s, lttng): tested first, the state-change
 * condition inside. usdt and floor have no test: they fire on every toggle,
 * which in the timed pairs is always a state change too.
 */
#include <stdint.h>

#include <tracecost/clock.h>
#include <tracecost/compiler.h>
#include <tracecost/ringbuf.h>
#include <tracecost/subject.h>
#include <tracecost/toggle.h>
#include <tracecost/tracepoint.h>

#include "peer_subject.h"

#define KIND_FLAG	1
#define KIND_FLOOR	2
#define KIND_USDT	3
#define KIND_USDTS	4
#define KIND_LTTNG	5

#if TC_PEER_KIND == KIND_FLAG
#define PEER_NAME "flag"
#elif TC_PEER_KIND == KIND_FLOOR
#define PEER_NAME "floor"
#elif TC_PEER_KIND == KIND_USDT
#define PEER_NAME "usdt"
#elif TC_PEER_KIND == KIND_USDTS
#define PEER_NAME "usdt-s"
#elif TC_PEER_KIND == KIND_LTTNG
#define PEER_NAME "lttng"
#else
#error "build with -DTC_PEER_KIND=1..5 -DTC_PEER_ON=0|1 -DTC_SUBJECT_ID=name"
#endif

#define ID		TC_SUBJECT_ID
#define SYM(x)		TC_CONCAT(TC_CONCAT(ID, _), x)

#if TC_PEER_KIND == KIND_FLAG
/* The object's own tracepoints (toggle_hooks.h), as static+'s. */
#define SUBJECT_TRACEPOINTS

/* The flag: a plain global, so the compiler must load it at every site. */
int SYM(flag) = TC_PEER_ON;
#define ON(ev)		__builtin_expect(TC_READ_ONCE(SYM(flag)), 0)
#define FIRE(ev, ip, pip) __tc_do_trace_##ev(ip, pip)

#elif TC_PEER_KIND == KIND_FLOOR

struct tc_floor_ring tc_floor_rings[TC_FLOOR_THREADS];
static unsigned int floor_next;
static TC_TLS struct tc_floor_ring *floor_ring;

/* Before a timed loop: this thread's ring (outside the timed region). */
static tc_noinline void floor_thread(void)
{
	unsigned int i;

	if (floor_ring)
		return;
	i = __atomic_fetch_add(&floor_next, 1, __ATOMIC_RELAXED);
	floor_ring = &tc_floor_rings[i % TC_FLOOR_THREADS];
}

static tc_always_inline void floor_record(unsigned long ip, unsigned long pip)
{
	struct tc_floor_ring *r = floor_ring;
	uint64_t h = r->head;
	struct tc_event *e = &r->ev[h & (TC_FLOOR_EVENTS - 1)];

	*e = (struct tc_event){ .ts = tc_clock_read_fast(), .ip = ip, .parent_ip = pip };
	r->head = h + 1;
}
#define LOOP_PROLOGUE	floor_thread()
#define FIRE(ev, ip, pip) floor_record(ip, pip)

#elif TC_PEER_KIND == KIND_USDT || TC_PEER_KIND == KIND_USDTS

#if TC_PEER_KIND == KIND_USDTS
#define _SDT_HAS_SEMAPHORES 1
#endif
#include <sys/sdt.h>

#if TC_PEER_KIND == KIND_USDTS
#define SEM(ev)		TC_CONCAT(tracecost_, TC_CONCAT(SYM(ev), _semaphore))
#define DEFINE_SEM(ev)	\
	unsigned short SEM(ev) __attribute__((section(".probes"), used))
DEFINE_SEM(irq_disable);
DEFINE_SEM(irq_enable);
DEFINE_SEM(preempt_disable);
DEFINE_SEM(preempt_enable);
#define ON(ev)		__builtin_expect(TC_READ_ONCE(SEM(ev)), 0)
#endif
#define FIRE(ev, ip, pip) STAP_PROBE2(tracecost, SYM(ev), ip, pip)

#elif TC_PEER_KIND == KIND_LTTNG

#include "subjects/tc_lttng_tp.h"

#define LTTNG_EV(ev)	TC_CONCAT(TC_CONCAT(ev, _), TC_PEER_ON)
#define LTTNG_ON(e)	lttng_ust_tracepoint_enabled(tracecost, e)
#define LTTNG_FIRE(e, ip, pip) lttng_ust_do_tracepoint(tracecost, e, ip, pip)
#define ON(ev)		LTTNG_ON(LTTNG_EV(ev))
#define FIRE(ev, ip, pip) LTTNG_FIRE(LTTNG_EV(ev), ip, pip)

#endif

/*
 * With an is-enabled test (flag, usdt-s, lttng), the toggles of
 * toggle_hooks.h: ON(), then the kernel's state-change conditions. For flag,
 * also the tracepoints.
 */
#include "toggle_hooks.h"

#ifndef ON
/* No is-enabled test (usdt, floor): the event on every toggle. */
static tc_always_inline void peer_preempt_disable(int val)
{
	tc_raw_preempt_count_add(val);
	FIRE(preempt_disable, TC_THIS_IP, TC_RET_IP);
}

static tc_always_inline void peer_preempt_enable(int val)
{
	FIRE(preempt_enable, TC_THIS_IP, TC_RET_IP);
	tc_raw_preempt_count_sub(val);
}

static tc_always_inline void peer_irq_disable(void)
{
	tc_raw_irq_disable();
	FIRE(irq_disable, TC_THIS_IP, TC_RET_IP);
}

static tc_always_inline void peer_irq_enable(void)
{
	FIRE(irq_enable, TC_THIS_IP, TC_RET_IP);
	tc_raw_irq_enable();
}

static tc_always_inline unsigned long peer_irq_save(void)
{
	unsigned long flags = tc_raw_irq_save();

	FIRE(irq_disable, TC_THIS_IP, TC_RET_IP);
	return flags;
}

static tc_always_inline void peer_irq_restore(unsigned long flags)
{
	FIRE(irq_enable, TC_THIS_IP, TC_RET_IP);
	tc_raw_irq_restore(flags);
}

#define T_PREEMPT_DISABLE()	peer_preempt_disable(1)
#define T_PREEMPT_ENABLE()	peer_preempt_enable(1)
#define T_IRQ_DISABLE()		peer_irq_disable()
#define T_IRQ_ENABLE()		peer_irq_enable()
#define T_IRQ_SAVE(f)		((f) = peer_irq_save())
#define T_IRQ_RESTORE(f)	peer_irq_restore(f)
#endif /* !ON */

/* The timed pairs, their loops and the size sites, as in toggle_subject.c. */
#include "sample_loops.h"

const struct tc_subject TC_CONCAT(tc_subject_, ID) = {
	/* the floor always records: no "+" */
	.name = TC_PEER_ON && TC_PEER_KIND != KIND_FLOOR ? PEER_NAME "+" : PEER_NAME,
	.id = TC_STR(ID),
	.hooks = PEER_NAME,
	.probes = TC_PEER_KIND == KIND_FLAG && TC_PEER_ON,
	.loop = SAMPLE_LOOPS,
#ifdef SUBJECT_TRACEPOINTS
	.tp = SUBJECT_TPS,
#endif
};
