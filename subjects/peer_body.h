/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/peer_body.h - the part of a peer's subject that does not depend
 * on the peer: its toggles, timed pairs, loops and size sites, and its
 * struct tc_subject. Included once, last, by every subjects/peer_<peer>.c,
 * which the Makefile builds once per column of subjects/peers.def with
 *   -DTC_PEER_VAR=n -DTC_PEER_ON=0|1 -DTC_PEER_HOOKS='"kind"'
 *   -DTC_PEER_NAME='"column"' -DTC_SUBJECT_ID=<id>
 * (the column's fields of the table).
 *
 * Before including it, the peer's file defines how a toggle is
 * instrumented:
 *	FIRE(ev, ip, pip)	the event ev (irq_disable, irq_enable,
 *				preempt_disable, preempt_enable);
 *	ON(ev)			optional: the is-enabled test of event ev; with
 *				it the toggles are toggle_hooks.h's (tested
 *				first, the kernel's state-change condition
 *				inside), without it FIRE() runs on every toggle
 *				(which in the timed pairs is always a state
 *				change too);
 *	SUBJECT_TRACEPOINTS	optional: the object's own tracepoints
 *				(toggle_hooks.h), defined before FIRE() may
 *				call them;
 *	LOOP_PROLOGUE		optional: run once before each timed loop
 *				(sample_loops.h);
 *	PEER_PROBES		optional: the subject's .probes (the sampler's
 *				recording probe attached), default 0.
 * The peer's file includes peer.h first (ID, SYM()).
 */
#ifndef TC_PEER_BODY_H
#define TC_PEER_BODY_H

#ifndef TC_PEER_H
#error "include peer.h first"
#endif

#ifndef PEER_PROBES
#define PEER_PROBES 0
#endif

/*
 * With an is-enabled test, the toggles of toggle_hooks.h: ON(), then the
 * kernel's state-change conditions. Also the tracepoints, if defined.
 */
#include "toggle_hooks.h"

#ifndef ON
/* No is-enabled test: the event on every toggle. */
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
	.name = TC_PEER_NAME,
	.id = TC_STR(ID),
	.hooks = TC_PEER_HOOKS,
	.probes = PEER_PROBES,
	.loop = SAMPLE_LOOPS,
#ifdef SUBJECT_TRACEPOINTS
	.tp = SUBJECT_TPS,
#endif
};

#endif /* TC_PEER_BODY_H */
