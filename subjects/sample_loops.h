/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/sample_loops.h - the timed pairs and sample loops of a subject
 * object, and its code-size sites: the part of toggle_subject.c and
 * the peers (peer_body.h) that does not depend on how a toggle is instrumented.
 *
 * Include it once, after the includer has defined its six toggles:
 *
 *	T_IRQ_DISABLE()		T_IRQ_ENABLE()
 *	T_IRQ_SAVE(f)		(assigns the saved flags to f)
 *	T_IRQ_RESTORE(f)
 *	T_PREEMPT_DISABLE()	T_PREEMPT_ENABLE()
 *
 * and optionally LOOP_PROLOGUE, a statement every loop runs once before
 * its timed region (peer_floor.c: the thread's ring); it is
 * empty unless the includer defined it. TC_SUBJECT_ID (-D, from the
 * Makefile) names the sites.
 *
 * It defines the six loops loop_{irq,preempt,irq_save}[_work] (static),
 * SAMPLE_LOOPS, the initializer of struct tc_subject's .loop, and the
 * sites <id>_site_<toggle>().
 *
 * Why macros, expanded in the includer, and not functions of their own:
 * the Makefile builds each subject source once per configuration, one
 * object each, and a column's loops must be that object's, built from that
 * configuration's toggles. The sites are inlined into the timed region
 * (TC_SAMPLE_LOOP): what is timed is a site as a kernel caller has it
 * (inline code, or for "call" the call of the out-of-line toggle), with
 * no call through a pointer or into a shared loop around it, and
 * TC_THIS_IP is the site's own address in the loop.
 */
#ifndef TC_SAMPLE_LOOPS_H
#define TC_SAMPLE_LOOPS_H

#include <stdint.h>

#include <tracecost/compiler.h>
#include <tracecost/subject.h>

#ifndef LOOP_PROLOGUE
#define LOOP_PROLOGUE	do { } while (0)
#endif

/* The pairs, as timed: disable, [simulated critical section], enable. */
#define PAIR_IRQ(WORK)		do { T_IRQ_DISABLE(); WORK; T_IRQ_ENABLE(); } while (0)
#define PAIR_PREEMPT(WORK)	do { T_PREEMPT_DISABLE(); WORK; T_PREEMPT_ENABLE(); } while (0)
#define PAIR_IRQ_SAVE(WORK)	do {						\
		unsigned long __flags;						\
		T_IRQ_SAVE(__flags);						\
		WORK;								\
		T_IRQ_RESTORE(__flags);						\
	} while (0)
#define NO_WORK			do { } while (0)
#define DO_WORK			tc_do_work()

#define DEFINE_LOOP(fn, PAIR, WORK)						\
static tc_noinline void fn(uint64_t *out, unsigned int n, unsigned int batch)	\
{										\
	LOOP_PROLOGUE;								\
	TC_SAMPLE_LOOP(out, n, batch, PAIR(WORK));				\
}

DEFINE_LOOP(loop_irq, PAIR_IRQ, NO_WORK)
DEFINE_LOOP(loop_irq_work, PAIR_IRQ, DO_WORK)
DEFINE_LOOP(loop_preempt, PAIR_PREEMPT, NO_WORK)
DEFINE_LOOP(loop_preempt_work, PAIR_PREEMPT, DO_WORK)
DEFINE_LOOP(loop_irq_save, PAIR_IRQ_SAVE, NO_WORK)
DEFINE_LOOP(loop_irq_save_work, PAIR_IRQ_SAVE, DO_WORK)

/* struct tc_subject's .loop: [pair][without, with tc_do_work()]. */
#define SAMPLE_LOOPS {							\
		[TC_PAIR_IRQ] = { loop_irq, loop_irq_work },			\
		[TC_PAIR_PREEMPT] = { loop_preempt, loop_preempt_work },	\
		[TC_PAIR_IRQ_SAVE] = { loop_irq_save, loop_irq_save_work },	\
	}

/*
 * One function per toggle, for the code-size table: the instructions of a
 * site on its fall-through path are those before the first "ret" (scripts/
 * subject-size.sh reads them from the object with objdump).
 */
#define SITE(x)		TC_CONCAT(TC_CONCAT(TC_SUBJECT_ID, _site_), x)

tc_noinline tc_used void SITE(preempt_disable)(void);
tc_noinline tc_used void SITE(preempt_enable)(void);
tc_noinline tc_used void SITE(irq_disable)(void);
tc_noinline tc_used void SITE(irq_enable)(void);
tc_noinline tc_used unsigned long SITE(irq_save)(void);
tc_noinline tc_used void SITE(irq_restore)(unsigned long f);

void SITE(preempt_disable)(void) { T_PREEMPT_DISABLE(); }
void SITE(preempt_enable)(void) { T_PREEMPT_ENABLE(); }
void SITE(irq_disable)(void) { T_IRQ_DISABLE(); }
void SITE(irq_enable)(void) { T_IRQ_ENABLE(); }
unsigned long SITE(irq_save)(void)
{
	unsigned long f;

	T_IRQ_SAVE(f);
	return f;
}
void SITE(irq_restore)(unsigned long f) { T_IRQ_RESTORE(f); }

#endif /* TC_SAMPLE_LOOPS_H */
