// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/toggle_subject.c - the toggle subject, built once per configuration.
 *
 * The Makefile compiles this file six times with
 *   -DTC_SUBJECT_HOOKS=0|1|2 (none, call, static), -DTC_SUBJECT_PROBES=0|1,
 *   [-DTC_SUBJECT_QSBR=1], -DTC_SUBJECT_ID=stock|call|callp|static|staticp|staticq
 * so the only difference between the columns is the instrumentation. Every
 * object has its own (file-local) tracepoints and keys: attaching probes for
 * one column never touches another.
 *
 *  stock:  the raw toggles (toggle.h), no hooks.
 *  call:   the pre-patch shape (irqsoff/preempt tracers built in): each toggle
 *	    is an out-of-line function that does its work and, on a transition,
 *	    calls the trace hook, which checks for probes inside.
 *  static: the patched shape (preemptirq v2/v3): inline toggle, then a
 *	    static-key test; while the key is off the hook is one 5-byte NOP.
 *  "+":    the same object with the recording probe attached (at run time).
 *  static+q: static+ with TC_SUBJECT_QSBR: its tracepoints are QSBR ones
 *	    (tracepoint.h, TC_DEFINE_TRACEPOINT_QSBR): in the sampler's
 *	    threads, online QSBR readers while a loop runs, the probes are
 *	    called with no RCU read-side code. Same site, same probe, same
 *	    registration as static+: the two columns differ in the read side
 *	    only (issue 17). Selected with --peers qsbr.
 *
 * Events follow the kernel's semantics (toggle.h): preempt events only on the
 * outermost transition, irq events only on a real state change.
 */
#include <tracecost/compiler.h>
#include <tracecost/subject.h>
#include <tracecost/toggle.h>
#include <tracecost/tracepoint.h>

#ifndef TC_SUBJECT_HOOKS
#error "build with -DTC_SUBJECT_HOOKS=0|1|2 -DTC_SUBJECT_PROBES=0|1 -DTC_SUBJECT_ID=name"
#endif

#define HOOKS_NONE	0
#define HOOKS_CALL	1
#define HOOKS_STATIC	2

#if TC_SUBJECT_HOOKS == HOOKS_NONE
#define HOOKS_NAME "stock"
#elif TC_SUBJECT_HOOKS == HOOKS_CALL
#define HOOKS_NAME "call"
#else
#define HOOKS_NAME "static"
#endif

#if TC_SUBJECT_HOOKS != HOOKS_NONE
/* The object's own tracepoints (toggle_hooks.h), for call and static. */
#define SUBJECT_TRACEPOINTS
#endif
#if defined(TC_SUBJECT_QSBR) && TC_SUBJECT_QSBR
#define SUBJECT_QSBR
#define NAME_SUFFIX "+q"
#elif TC_SUBJECT_PROBES
#define NAME_SUFFIX "+"
#else
#define NAME_SUFFIX ""
#endif

#if TC_SUBJECT_HOOKS == HOOKS_STATIC
/*
 * The patched shape: the inline toggles of toggle_hooks.h, the is-enabled
 * test a static key. Everything after the key test sits on the jump target,
 * out of the fall-through path.
 */
#define ON(tp)			tc_static_branch_unlikely(&__tc_tp_##tp.key)
#define FIRE(tp, ip, pip)	__tc_do_trace_##tp(ip, pip)
#endif

/* The tracepoints; for static, also the toggles. */
#include "toggle_hooks.h"

#if TC_SUBJECT_HOOKS == HOOKS_NONE

#define T_PREEMPT_DISABLE()	tc_raw_preempt_count_add(1)
#define T_PREEMPT_ENABLE()	tc_raw_preempt_count_sub(1)
#define T_IRQ_DISABLE()		tc_raw_irq_disable()
#define T_IRQ_ENABLE()		tc_raw_irq_enable()
#define T_IRQ_SAVE(f)		((f) = tc_raw_irq_save())
#define T_IRQ_RESTORE(f)	tc_raw_irq_restore(f)

#elif TC_SUBJECT_HOOKS == HOOKS_CALL

/*
 * Out-of-line toggles. The site is the call; ip is the call's return address
 * (the kernel's CALLER_ADDR0), parent_ip the return address of the toggle's
 * caller (CALLER_ADDR1; frame pointers are kept, -fno-omit-frame-pointer).
 */
#define CALLER_IP0	((unsigned long)__builtin_return_address(0))
/*
 * One frame up, as the kernel's CALLER_ADDR1 / get_lock_parent_ip() do in the
 * pre-patch code: reliable here because the subject is built with frame
 * pointers (-fno-omit-frame-pointer), and only evaluated on a transition.
 */
#pragma GCC diagnostic ignored "-Wframe-address"
#define CALLER_IP1	((unsigned long)__builtin_return_address(1))

static tc_noinline void call_preempt_disable(int val)
{
	tc_raw_preempt_count_add(val);
	if (tc_preempt_count() == val)
		__tc_do_trace_preempt_disable(CALLER_IP0, CALLER_IP1);
}

static tc_noinline void call_preempt_enable(int val)
{
	if (tc_preempt_count() == val)
		__tc_do_trace_preempt_enable(CALLER_IP0, CALLER_IP1);
	tc_raw_preempt_count_sub(val);
}

static tc_noinline void call_irq_disable(void)
{
	int was = tc_irqs_disabled();

	tc_raw_irq_disable();
	if (!was)
		__tc_do_trace_irq_disable(CALLER_IP0, CALLER_IP1);
}

static tc_noinline void call_irq_enable(void)
{
	if (tc_irqs_disabled())
		__tc_do_trace_irq_enable(CALLER_IP0, CALLER_IP1);
	tc_raw_irq_enable();
}

static tc_noinline unsigned long call_irq_save(void)
{
	unsigned long flags = tc_raw_irq_save();

	if (!flags)
		__tc_do_trace_irq_disable(CALLER_IP0, CALLER_IP1);
	return flags;
}

static tc_noinline void call_irq_restore(unsigned long flags)
{
	if (!flags && tc_irqs_disabled())
		__tc_do_trace_irq_enable(CALLER_IP0, CALLER_IP1);
	tc_raw_irq_restore(flags);
}

#define T_PREEMPT_DISABLE()	call_preempt_disable(1)
#define T_PREEMPT_ENABLE()	call_preempt_enable(1)
#define T_IRQ_DISABLE()		call_irq_disable()
#define T_IRQ_ENABLE()		call_irq_enable()
#define T_IRQ_SAVE(f)		((f) = call_irq_save())
#define T_IRQ_RESTORE(f)	call_irq_restore(f)

#endif /* HOOKS_STATIC: the toggles of toggle_hooks.h */

/* The timed pairs, their loops and the size sites, from the toggles above. */
#include "sample_loops.h"

const struct tc_subject TC_CONCAT(tc_subject_, TC_SUBJECT_ID) = {
	.name = HOOKS_NAME NAME_SUFFIX,
	.id = TC_STR(TC_SUBJECT_ID),
	.hooks = TC_SUBJECT_HOOKS == HOOKS_NONE ? "none" : HOOKS_NAME,
	.probes = TC_SUBJECT_PROBES,
	.loop = SAMPLE_LOOPS,
#ifdef SUBJECT_TRACEPOINTS
	.tp = SUBJECT_TPS,
#endif
};
