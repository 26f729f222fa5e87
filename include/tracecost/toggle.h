/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/toggle.h - userspace twins of the kernel's preempt and irq toggles.
 *
 * A thread-local preempt count and a thread-local "irqs disabled" flag (what a
 * runtime uses to defer signal handling), updated with the instruction shapes
 * of x86 (include/asm/preempt.h: preempt_count_add is one "addl" on a per-CPU
 * variable; cli/sti are one instruction each). Here each update is one
 * instruction on a %fs-relative local-exec TLS variable, written with inline
 * asm so the compiler can neither fold a pair away nor merge two pairs.
 *
 * Semantics kept from the kernel (include/linux/preempt.h, irqflags.h,
 * kernel/trace/trace_preemptirq.c), which the toggle subject implements on
 * top of these raw operations:
 *  - preempt_disable / preempt_enable events fire only on the outermost
 *    transition: after the add when the count equals @val (first disable),
 *    before the sub when it equals @val (last enable);
 *  - irq_disable / irq_enable events fire only on a real state change:
 *    disabling when already disabled emits nothing; restore emits irq_enable
 *    only when it really re-enables.
 *
 * These raw operations are thread-local and need no locking. They are not
 * async-signal-safe against a handler that toggles the same thread's state
 * (as in the kernel, a handler must leave the state as it found it).
 */
#ifndef TRACECOST_TOGGLE_H
#define TRACECOST_TOGGLE_H

#include <tracecost/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * TLS model of the library's per-thread variables. initial-exec by default:
 * valid in an executable and in a shared object (libtracecost.so, or an
 * object referencing its variables), one GOT load plus a %fs-relative
 * access. The tracecost binary links libtracecost.a into the executable
 * and builds with -DTC_TLS_MODEL='"local-exec"': a %fs-relative operand
 * with a link-time offset, so each raw toggle is one instruction
 * ("addl $1, %fs:off"). local-exec cannot go into a shared object.
 */
#ifndef TC_TLS_MODEL
#define TC_TLS_MODEL "initial-exec"
#endif
#define TC_TLS __thread __attribute__((tls_model(TC_TLS_MODEL)))

/* Per-thread preempt count (in units of 1, like PREEMPT_OFFSET). */
extern TC_TLS int tc_preempt_count_tls;
/* Per-thread "irqs disabled" flag: 0 or 1. */
extern TC_TLS unsigned char tc_irqs_disabled_tls;

/** tc_preempt_count() - current preempt count of this thread */
static tc_always_inline int tc_preempt_count(void)
{
	int v;

	__asm__ __volatile__("" : : : "memory");
	v = TC_READ_ONCE(tc_preempt_count_tls);
	return v;
}

/** tc_raw_preempt_count_add() - add @val to the count: one instruction on x86-64 */
static tc_always_inline void tc_raw_preempt_count_add(int val)
{
#if defined(__x86_64__)
	__asm__ __volatile__("addl %1, %0" : "+m"(tc_preempt_count_tls) : "ir"(val) : "memory");
#else
	TC_WRITE_ONCE(tc_preempt_count_tls, tc_preempt_count_tls + val);
	tc_barrier();
#endif
}

/** tc_raw_preempt_count_sub() - subtract @val from the count */
static tc_always_inline void tc_raw_preempt_count_sub(int val)
{
#if defined(__x86_64__)
	__asm__ __volatile__("subl %1, %0" : "+m"(tc_preempt_count_tls) : "ir"(val) : "memory");
#else
	tc_barrier();
	TC_WRITE_ONCE(tc_preempt_count_tls, tc_preempt_count_tls - val);
#endif
}

/** tc_irqs_disabled() - the "hardware" state: non-zero while disabled */
static tc_always_inline int tc_irqs_disabled(void)
{
	unsigned char v;

	__asm__ __volatile__("" : : : "memory");
	v = TC_READ_ONCE(tc_irqs_disabled_tls);
	return v;
}

/** tc_raw_irq_disable() - the twin of cli: one store */
static tc_always_inline void tc_raw_irq_disable(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("movb $1, %0" : "=m"(tc_irqs_disabled_tls) : : "memory");
#else
	TC_WRITE_ONCE(tc_irqs_disabled_tls, 1);
	tc_barrier();
#endif
}

/** tc_raw_irq_enable() - the twin of sti: one store */
static tc_always_inline void tc_raw_irq_enable(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("movb $0, %0" : "=m"(tc_irqs_disabled_tls) : : "memory");
#else
	tc_barrier();
	TC_WRITE_ONCE(tc_irqs_disabled_tls, 0);
#endif
}

/**
 * tc_raw_irq_save() - the twin of pushf; cli: return the previous flag, disable
 *
 * Return: the flag before disabling (non-zero: was already disabled).
 */
static tc_always_inline unsigned long tc_raw_irq_save(void)
{
	unsigned long flags = tc_irqs_disabled();

	tc_raw_irq_disable();
	return flags;
}

/** tc_raw_irq_restore() - the twin of popf: put the saved flag back */
static tc_always_inline void tc_raw_irq_restore(unsigned long flags)
{
	tc_barrier();
	TC_WRITE_ONCE(tc_irqs_disabled_tls, (unsigned char)(flags != 0));
	tc_barrier();
}

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_TOGGLE_H */
