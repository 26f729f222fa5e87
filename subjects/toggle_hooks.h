/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/toggle_hooks.h - the instrumented toggles shared by
 * toggle_subject.c (static) and the peers (peer_body.h: flag, usdt-s, lttng): an
 * is-enabled test, then the kernel's state-change conditions and the event;
 * and the object's own preemptirq tracepoints (toggle_subject.c's call and
 * static, peer_flag.c).
 *
 * Include it once, where the object's toggles go. What it defines depends
 * on what the includer defined before including it:
 *
 *	SUBJECT_TRACEPOINTS	the object has its own tracepoints: they are
 *				defined here, file-local, in the preemptirq
 *				class (ip, parent_ip): irq_disable, irq_enable,
 *				preempt_disable, preempt_enable; and SUBJECT_TPS,
 *				the initializer of struct tc_subject's .tp.
 *	SUBJECT_QSBR		with SUBJECT_TRACEPOINTS: the tracepoints
 *				dispatch through QSBR in QSBR threads
 *				(TC_DEFINE_TRACEPOINT_STATIC_QSBR).
 *
 *	ON(ev)			the is-enabled test of event ev (one of the
 *				four names above), an expression expected to be
 *				false;
 *	FIRE(ev, ip, pip)	the event ev, (ip, parent ip). With both
 *				defined, the six toggles of sample_loops.h
 *				(T_IRQ_DISABLE() ...) are defined here. FIRE
 *				(flag, static) may call the tracepoints above:
 *				they are defined first.
 *
 * Events follow the kernel's semantics (toggle.h): preempt events only on
 * the outermost transition, irq events only on a real state change, each
 * condition tested after ON(). ip is the address of the site (TC_THIS_IP:
 * the toggles are inlined into it), parent_ip the return address of the
 * function the site is in.
 */
#ifndef TC_TOGGLE_HOOKS_H
#define TC_TOGGLE_HOOKS_H

#include <tracecost/compiler.h>
#include <tracecost/subject.h>
#include <tracecost/toggle.h>
#include <tracecost/tracepoint.h>

#ifdef SUBJECT_TRACEPOINTS
/*
 * One file-local tracepoint of the preemptirq class: (ip, parent_ip); with
 * SUBJECT_QSBR defined (static+q), the QSBR dispatch of tracepoint.h.
 */
#ifdef SUBJECT_QSBR
#define DEFINE_PREEMPTIRQ_TP(name)						\
	TC_DEFINE_TRACEPOINT_STATIC_QSBR(name,					\
				    TC_TP_PROTO(unsigned long ip, unsigned long parent_ip), \
				    TC_TP_ARGS(ip, parent_ip))
#else
#define DEFINE_PREEMPTIRQ_TP(name)						\
	TC_DEFINE_TRACEPOINT_STATIC(name,					\
				    TC_TP_PROTO(unsigned long ip, unsigned long parent_ip), \
				    TC_TP_ARGS(ip, parent_ip))
#endif

DEFINE_PREEMPTIRQ_TP(irq_disable);
DEFINE_PREEMPTIRQ_TP(irq_enable);
DEFINE_PREEMPTIRQ_TP(preempt_disable);
DEFINE_PREEMPTIRQ_TP(preempt_enable);

#define SUBJECT_TPS {							\
		[TC_TP_IRQ_DISABLE] = &__tc_tp_irq_disable,		\
		[TC_TP_IRQ_ENABLE] = &__tc_tp_irq_enable,		\
		[TC_TP_PREEMPT_DISABLE] = &__tc_tp_preempt_disable,	\
		[TC_TP_PREEMPT_ENABLE] = &__tc_tp_preempt_enable,	\
	}
#endif /* SUBJECT_TRACEPOINTS */

#if defined(ON) && defined(FIRE)
static tc_always_inline void hooked_preempt_disable(int val)
{
	tc_raw_preempt_count_add(val);
	if (ON(preempt_disable) && tc_preempt_count() == val)
		FIRE(preempt_disable, TC_THIS_IP, TC_RET_IP);
}

static tc_always_inline void hooked_preempt_enable(int val)
{
	if (ON(preempt_enable) && tc_preempt_count() == val)
		FIRE(preempt_enable, TC_THIS_IP, TC_RET_IP);
	tc_raw_preempt_count_sub(val);
}

static tc_always_inline void hooked_irq_disable(void)
{
	if (ON(irq_disable)) {
		int was = tc_irqs_disabled();

		tc_raw_irq_disable();
		if (!was)
			FIRE(irq_disable, TC_THIS_IP, TC_RET_IP);
	} else {
		tc_raw_irq_disable();
	}
}

static tc_always_inline void hooked_irq_enable(void)
{
	if (ON(irq_enable) && tc_irqs_disabled())
		FIRE(irq_enable, TC_THIS_IP, TC_RET_IP);
	tc_raw_irq_enable();
}

static tc_always_inline unsigned long hooked_irq_save(void)
{
	unsigned long flags = tc_raw_irq_save();

	if (ON(irq_disable) && !flags)
		FIRE(irq_disable, TC_THIS_IP, TC_RET_IP);
	return flags;
}

static tc_always_inline void hooked_irq_restore(unsigned long flags)
{
	if (ON(irq_enable) && !flags && tc_irqs_disabled())
		FIRE(irq_enable, TC_THIS_IP, TC_RET_IP);
	tc_raw_irq_restore(flags);
}

#define T_PREEMPT_DISABLE()	hooked_preempt_disable(1)
#define T_PREEMPT_ENABLE()	hooked_preempt_enable(1)
#define T_IRQ_DISABLE()		hooked_irq_disable()
#define T_IRQ_ENABLE()		hooked_irq_enable()
#define T_IRQ_SAVE(f)		((f) = hooked_irq_save())
#define T_IRQ_RESTORE(f)	hooked_irq_restore(f)
#endif /* ON && FIRE */

#endif /* TC_TOGGLE_HOOKS_H */
