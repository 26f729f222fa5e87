// SPDX-License-Identifier: GPL-2.0
/*
 * One toggle per function, for kernel/site-cost.sh: what one
 * preempt_disable(), preempt_enable(), local_irq_disable(),
 * local_irq_enable(), local_irq_save() or local_irq_restore() site
 * compiles to in a kernel configuration. Each site sits between two calls
 * of tc_site_mark(), as a site sits inside a larger function: the
 * instructions between the two calls are the site's fall-through path,
 * and what the compiler placed after the function's return is its
 * out-of-line block. Built as a module against each kernel tree, never
 * loaded.
 */
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>

noinline void tc_site_mark(void)
{
	barrier();
}
EXPORT_SYMBOL_GPL(tc_site_mark);

noinline void tc_site_use(unsigned long flags)
{
	barrier();
}
EXPORT_SYMBOL_GPL(tc_site_use);

noinline void tc_site_preempt_disable(void)
{
	tc_site_mark();
	preempt_disable();
	tc_site_mark();
}
EXPORT_SYMBOL_GPL(tc_site_preempt_disable);

noinline void tc_site_preempt_enable(void)
{
	tc_site_mark();
	preempt_enable();
	tc_site_mark();
}
EXPORT_SYMBOL_GPL(tc_site_preempt_enable);

noinline void tc_site_irq_disable(void)
{
	tc_site_mark();
	local_irq_disable();
	tc_site_mark();
}
EXPORT_SYMBOL_GPL(tc_site_irq_disable);

noinline void tc_site_irq_enable(void)
{
	tc_site_mark();
	local_irq_enable();
	tc_site_mark();
}
EXPORT_SYMBOL_GPL(tc_site_irq_enable);

noinline void tc_site_irq_save(void)
{
	unsigned long flags;

	tc_site_mark();
	local_irq_save(flags);
	tc_site_mark();
	tc_site_use(flags);
}
EXPORT_SYMBOL_GPL(tc_site_irq_save);

noinline void tc_site_irq_restore(unsigned long flags)
{
	tc_site_mark();
	local_irq_restore(flags);
	tc_site_mark();
}
EXPORT_SYMBOL_GPL(tc_site_irq_restore);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracecost: one preempt/irq toggle per function, for code size only");
