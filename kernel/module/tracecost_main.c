// SPDX-License-Identifier: GPL-2.0
/*
 * tracecost.ko - the tracer benchmark as a kernel module.
 *
 * One kthread per selected online CPU, bound to it, all released together;
 * each times @samples disable/enable pairs of every selected pair type with
 * an ordered counter read, minus the timer overhead O (integer median of
 * TC_KMOD_CALIB empty samples, re-measured every block, with the same
 * do_work inside when do_work is set), and adds them to a histogram + top-N
 * heap with the layout of include/tracecost/hist.h. The CLI reads the
 * histograms from debugfs and computes every statistic, so kernel and user
 * results go through the same code. Memory does not grow with @samples.
 *
 * debugfs tracecost/ (doc/kmod-results.md):
 *   samples, highest, pairs, cpus, do_work, pair_event
 *		configuration (read/write)
 *   run	write 1 to start a run (asynchronous; -EBUSY while one runs),
 *		0 to cancel the current one
 *   status	idle | running | done | cancelled | invalid: <reason>
 *   results	the last run's histograms and the configuration it ran with,
 *		or "status ..." without data when there is no valid run
 *
 * Lifetime and locking:
 *   tc_lock (mutex) protects the configuration, tc_state, tc_results and
 *   tc_ctrl; it is never held while sampling, nor while results are read.
 *   A run is owned by one controller kthread from thread creation to
 *   publishing. The controller then waits to be stopped: the next run or
 *   rmmod reaps it with kthread_stop() on a task reference (tc_ctrl), which
 *   returns only after the thread function has returned, so no thread of
 *   ours executes module text once tracecost_exit() is done, and a run
 *   never depends on a completion another run could reinitialise.
 *   The per-CPU sampler threads only write their own struct tc_cpu; the
 *   controller kthread_stop()s each of them.
 *   A published run is immutable and reference counted: an open results
 *   file holds a reference, so it is read record by record without tc_lock.
 *
 * CPU hotplug: the hotplug read lock is held only while the samplers are
 *   created and bound. A CPU going offline during a run (cpuhp teardown
 *   callback) stops the run and makes it invalid ("CPU N went offline
 *   during the run"): no figure of a migrated sampler is ever published.
 *   The controller waits in one-second slices, so neither it nor a CPU
 *   offline nor a static_key_enable() elsewhere waits for a long run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/bottom_half.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#include <asm/tsc.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/arch_timer.h>
#endif
#ifdef CONFIG_RISCV
#include <asm/csr.h>
#include <asm/delay.h>
#include <asm/timex.h>
#endif

#include <tracecost/hist.h>
#include <tracecost/kmod.h>

#define CREATE_TRACE_POINTS
#include "tracecost_trace.h"

#define X_NAME(id, name, title) [id] = name,
static const char *const pair_names[TC_NR_KPAIRS] = { TC_KMOD_PAIRS(X_NAME) };

enum tc_state { TC_IDLE, TC_RUNNING, TC_DONE, TC_CANCELLED, TC_INVALID };

struct tc_config {
	u64 samples;
	u32 highest;
	u32 pairs;		/* bit mask of enum tc_kmod_pair */
	bool do_work;
	bool pair_event;	/* tracecost:pair inside each pair (its own column) */
	cpumask_var_t cpus;	/* empty: every online CPU */
};

struct tc_cpu {
	int cpu;
	struct task_struct *task;
	bool ran;		/* set by the thread when it started sampling */
	bool moved;		/* its CPU went offline or the thread was moved off it */
	unsigned long offlines;	/* tc_offlines of @cpu when the run started */
	struct tc_hist *hist[TC_NR_KPAIRS];
	struct tc_topn *top[TC_NR_KPAIRS];
	u64 clamped[TC_NR_KPAIRS];
	u64 resched[TC_NR_KPAIRS];	/* samples that ended with a reschedule pending */
	u64 o_min[TC_NR_KPAIRS], o_max[TC_NR_KPAIRS];
	u64 *buf;		/* TC_KMOD_BLOCK raw samples */
	u64 *calib;		/* TC_KMOD_CALIB empty samples */
};

struct tc_run {
	struct kref ref;	/* tc_results and each open results file */
	struct tc_config cfg;	/* copy taken at start (cpus resolved) */
	unsigned long id;
	int nr_cpus;
	struct tc_cpu *cpu;	/* nr_cpus entries, ascending CPU */
	struct completion start;
	struct completion done;
	atomic_t running;
	bool abort;		/* set before @start completes: exit without sampling */
	bool lost;		/* a CPU of the run went offline: every sampler stops */
};

static DEFINE_MUTEX(tc_lock);
static struct tc_config tc_cfg = {
	.samples = 100000, .highest = 1000,
	.pairs = (1u << TC_NR_KPAIRS) - 1,
};
static enum tc_state tc_state = TC_IDLE;
static char tc_invalid[96];
static struct tc_run *tc_results;		/* last valid run (a reference), under tc_lock */
static struct task_struct *tc_ctrl;		/* controller of the current or last run (a task reference) */
static unsigned long tc_run_id;
static bool tc_cancel;				/* READ_ONCE by samplers */
static struct dentry *tc_dir;
static int tc_hp_state = -1;
static DEFINE_PER_CPU(spinlock_t, tc_spin);
static DEFINE_PER_CPU(unsigned int, tc_work_state);
static DEFINE_PER_CPU(unsigned long, tc_offlines);	/* times the CPU went offline */

/*
 * The ordered counter read: the kernel's rdtsc_ordered() on x86 (LFENCE or
 * RDTSCP, so the read is not executed before earlier instructions), on arm64
 * the kernel's __arch_counter_get_cntvct() (ISB; MRS CNTVCT_EL0, or the
 * self-synchronised CNTVCTSS_EL0 on ECV CPUs, then a dependent load that
 * orders later loads after the read), on riscv the kernel's get_cycles() (the
 * time CSR, at riscv_timebase), else the ns clock. The timed region of
 * x86-64, arm64 and riscv does not use it: see TC_T0 below.
 */
static __always_inline u64 tc_read(void)
{
#if defined(CONFIG_X86)
	return rdtsc_ordered();
#elif defined(CONFIG_ARM64)
	return __arch_counter_get_cntvct();
#elif defined(CONFIG_RISCV)
	return get_cycles();
#else
	return ktime_get_ns();
#endif
}

/*
 * The counter of the timed region: 0 the architecture's (TSC, CNTVCT_EL0);
 * on arm64 1 is the PMU cycle counter PMCCNTR_EL0 (module parameter
 * counter=pmccntr), which QEMU TCG advances at 1 GHz of virtual time
 * (target/arm's ARM_CPU_FREQ), so one tick per instruction under -icount
 * shift=0, where CNTVCT_EL0 (62.5 MHz) ticks once per 16 instructions.
 * tracecost vm --deterministic --arch arm64 loads the module with it.
 * On riscv 0 is the time CSR (riscv_timebase, 10 MHz on QEMU's virt) and 1
 * the instret CSR (counter=instret), which QEMU 7.2 reads as its
 * instruction count under -icount (target/riscv/csr.c, get_ticks()): one
 * tick per instruction at shift=0. The loops of counter 1 are the *_pmc
 * ones on both architectures.
 */
#if defined(CONFIG_ARM64)
#define TC_NR_COUNTERS	2
static char *counter = "cntvct";
module_param(counter, charp, 0444);
MODULE_PARM_DESC(counter, "arm64: the timed region's counter, cntvct (default) or pmccntr "
		 "(the PMU cycle counter, enabled at load; QEMU -icount: one tick per instruction)");
#elif defined(CONFIG_RISCV)
#define TC_NR_COUNTERS	2
static char *counter = "time";
module_param(counter, charp, 0444);
MODULE_PARM_DESC(counter, "riscv: the timed region's counter, time (default) or instret "
		 "(user mode may read it too from load on; QEMU -icount: one tick per instruction)");
#else
#define TC_NR_COUNTERS	1
#endif
static unsigned int tc_ctr;	/* index of the counter, set at load */

static u64 tc_counter_khz(void)
{
#if defined(CONFIG_X86)
	return tsc_khz;
#elif defined(CONFIG_ARM64)
	if (tc_ctr)
		return 1000000;	/* QEMU's PMU cycle counter: 1 GHz (ARM_CPU_FREQ) */
	/*
	 * CNTFRQ_EL0, as the userspace engine uses: arch_timer_get_rate() is
	 * not exported to modules. It is 0 if firmware left it unset, and it
	 * misses a devicetree "clock-frequency" override of the driver.
	 */
	return arch_timer_get_cntfrq() / 1000;
#elif defined(CONFIG_RISCV)
	if (tc_ctr)
		return 1000000;	/* QEMU -icount shift=0: one instruction per ns */
	return riscv_timebase / 1000;
#else
	return 1000000;
#endif
}

static const char *tc_counter_name(void)
{
#if defined(CONFIG_X86)
	return "tsc (rdtsc_ordered)";
#elif defined(CONFIG_ARM64)
	return tc_ctr ? "pmccntr_el0 (isb; mrs)" : "cntvct_el0 (isb; mrs)";
#elif defined(CONFIG_RISCV)
	return tc_ctr ? "instret (rdinstret)" : "time (rdtime)";
#else
	return "ktime_get_ns";
#endif
}

/*
 * The simulated critical section: a per-CPU read-modify-write whose
 * instruction count does not depend on the data (the branch is a select),
 * so that with QEMU -icount it adds exactly the same number of instructions
 * to the empty sample and to the pair, and calibrates out exactly.
 */
#if defined(CONFIG_ARM64)
/*
 * The same computation as one asm block: arm64 has no 32-bit immediates,
 * and in C the compiler keeps the constants in registers outside the loop
 * in some loops but rebuilds them inside the timed region in others (the
 * _work_ev loops, whose tracepoint call path takes the registers). Here
 * they are built every time: 12 instructions wherever do_work runs.
 */
static __always_inline void tc_do_work(unsigned int *state)
{
	unsigned int v, k, t;

	asm volatile("ldr	%w0, %3\n\t"
		     "mov	%w1, #0x660d\n\t"		/* 1664525 */
		     "movk	%w1, #0x19, lsl #16\n\t"
		     "mov	%w2, #0xf35f\n\t"		/* 1013904223 */
		     "movk	%w2, #0x3c6e, lsl #16\n\t"
		     "madd	%w0, %w0, %w1, %w2\n\t"
		     "mov	%w1, #0xe995\n\t"		/* 0x5bd1e995 */
		     "movk	%w1, #0x5bd1, lsl #16\n\t"
		     "eor	%w2, %w0, %w1\n\t"
		     "tst	%w0, #0x00400000\n\t"
		     "csel	%w0, %w2, %w0, ne\n\t"
		     "str	%w0, %3"
		     : "=&r"(v), "=&r"(k), "=&r"(t), "+m"(*state) : : "cc");
}
#elif defined(CONFIG_RISCV)
/*
 * The same as one asm block, without a branch: RV64GC has no conditional
 * select, and GCC turns the C version's select into a branch, whose
 * instruction count depends on the data. 14 instructions wherever
 * do_work runs (li of a 32-bit constant: lui and addi(w)).
 */
static __always_inline void tc_do_work(unsigned int *state)
{
	unsigned int v, k, t;

	asm volatile("lw	%0, %3\n\t"
		     "li	%1, 1664525\n\t"
		     "li	%2, 1013904223\n\t"
		     "mulw	%0, %0, %1\n\t"
		     "addw	%0, %0, %2\n\t"
		     "srliw	%1, %0, 22\n\t"
		     "andi	%1, %1, 1\n\t"
		     "neg	%1, %1\n\t"
		     "li	%2, 0x5bd1e995\n\t"
		     "and	%2, %2, %1\n\t"
		     "xor	%0, %0, %2\n\t"
		     "sw	%0, %3"
		     : "=&r"(v), "=&r"(k), "=&r"(t), "+m"(*state));
}
#else
static __always_inline void tc_do_work(unsigned int *state)
{
	unsigned int v = READ_ONCE(*state);

	v = v * 1664525u + 1013904223u;
	v ^= (v & 0x00400000u) ? 0x5bd1e995u : 0;
	WRITE_ONCE(*state, v);
}
#endif

#define NOP4	"nop; nop; nop; nop;"

/*
 * Pair bodies. Each timed sample is: t0 = tc_read(); BODY; t1 = tc_read().
 * The body is the pair (and do_work when set), nothing else of ours. The
 * EV variant adds the module's tracecost:pair event inside the pair; it is
 * used only for the stand-in column "<release>+pair" (pair_event = 1) of a
 * kernel without preemptirq events, never for the stock column.
 */
#define BODY_NONE(W, EV)	do { W; } while (0)
#define BODY_IRQ(W, EV)		do { local_irq_disable(); EV(TC_KPAIR_IRQ); W;		\
				     local_irq_enable(); } while (0)
#define BODY_PREEMPT(W, EV)	do { preempt_disable(); EV(TC_KPAIR_PREEMPT); W;	\
				     preempt_enable(); } while (0)
#define BODY_IRQ_SAVE(W, EV)	do { unsigned long __f; local_irq_save(__f);		\
				     EV(TC_KPAIR_IRQ_SAVE); W;				\
				     local_irq_restore(__f); } while (0)
#define BODY_BH(W, EV)		do { local_bh_disable(); EV(TC_KPAIR_BH); W;		\
				     local_bh_enable(); } while (0)
#define BODY_RCU(W, EV)		do { rcu_read_lock(); EV(TC_KPAIR_RCU); W;		\
				     rcu_read_unlock(); } while (0)
#define BODY_SPIN(W, EV)	do { spin_lock(lock); EV(TC_KPAIR_SPIN); W;		\
				     spin_unlock(lock); } while (0)
#define BODY_REF16(W, EV)	do { asm volatile(NOP4 NOP4 NOP4 NOP4); W; } while (0)

#define NO_WORK			do { } while (0)
#define DO_WORK			tc_do_work(work)
#define NO_EV(p)		do { } while (0)
#define PAIR_EV(p)		trace_pair(p)

#if defined(CONFIG_X86_64)
/*
 * The timed region on x86-64: the two counter reads are each one asm block
 * that also combines edx:eax and stores to the sample slot, so the compiler
 * cannot schedule harness instructions (shifts, ors, register copies of t0)
 * into the region differently from one loop to another. With QEMU -icount
 * (one tick per instruction) an empty pair then reads exactly O and ref16
 * exactly O + 16. The read is "lfence; rdtsc; lfence", the sequence of the
 * userspace engine (include/tracecost/clock.h): rdtsc_ordered()'s ordering
 * against earlier instructions plus a fence against later ones.
 */
#define TC_T0(slot)								\
	asm volatile("lfence; rdtsc; lfence; shl $32, %%rdx; or %%rdx, %%rax;"	\
		     "mov %%rax, %0" : "=m"(slot) : : "rax", "rdx", "memory")
#define TC_T1(slot)								\
	asm volatile("lfence; rdtsc; lfence; shl $32, %%rdx; or %%rdx, %%rax;"	\
		     "sub %0, %%rax; mov %%rax, %0" : "+m"(slot) : : "rax", "rdx", "memory")
#elif defined(CONFIG_ARM64)
/*
 * The timed region on arm64, built the same way: each read is one asm block
 * that also stores t0 (or subtracts it and stores t1 - t0), in fixed
 * scratch registers. The read is "isb; mrs cntvct_el0", the sequence of the
 * userspace engine (include/tracecost/clock.h): the ISB keeps the read from
 * being taken before earlier instructions (those of the pair, for t1); as
 * there, nothing fences later instructions from the read. The region holds
 * t0's store, the pair (and do_work when set) and t1's ISB; the empty
 * samples hold the same store, ISB and do_work, so O takes them out (the
 * empty loop: "str; isb", ref16: 16 NOPs more). This is raw
 * CNTVCT_EL0, not the kernel's arch_timer_read_counter(), which also works
 * around counter errata (Cortex-A73 858921, HiSilicon, Freescale A-008585)
 * and reads CNTPCT_EL0 on a VHE host (there CNTVCT_EL0 counts the same, the
 * host's virtual offset being zero).
 */
#define TC_T0(slot)								\
	asm volatile("isb; mrs x9, cntvct_el0; str x9, %0"			\
		     : "=m"(slot) : : "x9", "memory")
#define TC_T1(slot)								\
	asm volatile("isb; mrs x9, cntvct_el0; ldr x10, %0; sub x9, x9, x10;"	\
		     "str x9, %0" : "+m"(slot) : : "x9", "x10", "memory")
/* the same with the PMU cycle counter: a second family of loops, *_pmc */
#define TC_T0_PMC(slot)								\
	asm volatile("isb; mrs x9, pmccntr_el0; str x9, %0"			\
		     : "=m"(slot) : : "x9", "memory")
#define TC_T1_PMC(slot)								\
	asm volatile("isb; mrs x9, pmccntr_el0; ldr x10, %0; sub x9, x9, x10;"	\
		     "str x9, %0" : "+m"(slot) : : "x9", "x10", "memory")
#elif defined(CONFIG_RISCV)
/*
 * The timed region on riscv, built the same way, in the fixed scratch
 * registers t0 and t1: the region holds t0's store, the pair (and do_work
 * when set) and t1's read; the empty samples hold the same store, so O
 * takes it out (ref16: 16 NOPs more). RISC-V has no instruction that keeps
 * a counter read after earlier instructions (FENCE orders memory accesses),
 * so nothing orders the reads but program order, as in the kernel's
 * get_cycles(); QEMU TCG executes in order.
 */
#define TC_T0(slot)								\
	asm volatile("rdtime t0; sd t0, %0" : "=m"(slot) : : "t0", "memory")
#define TC_T1(slot)								\
	asm volatile("rdtime t0; ld t1, %0; sub t0, t0, t1; sd t0, %0"		\
		     : "+m"(slot) : : "t0", "t1", "memory")
/* the same with instret: the *_pmc loops */
#define TC_T0_PMC(slot)								\
	asm volatile("rdinstret t0; sd t0, %0" : "=m"(slot) : : "t0", "memory")
#define TC_T1_PMC(slot)								\
	asm volatile("rdinstret t0; ld t1, %0; sub t0, t0, t1; sd t0, %0"	\
		     : "+m"(slot) : : "t0", "t1", "memory")
#else
#define TC_T0(slot)	do { (slot) = tc_read(); barrier(); } while (0)
#define TC_T1(slot)	do { barrier(); (slot) = tc_read() - (slot); } while (0)
#endif

/*
 * After t1 (outside the timed region) a sample is marked when a reschedule
 * is pending: on a kernel without full preemption preempt_enable() then
 * takes its slow branch. The sampler clears a pending reschedule before
 * each timed loop; the marked samples are counted per cell ("resched").
 */
#define TC_RESCHED_MARK		(1ull << 63)

#define DEFINE_LOOP_C(fn, BODY, W, EV, T0, T1)					\
static noinline void fn(u64 *out, unsigned int n, spinlock_t *lock,		\
			unsigned int *work)					\
{										\
	unsigned int i;								\
										\
	for (i = 0; i < n; i++) {						\
		T0(out[i]);							\
		BODY(W, EV);							\
		T1(out[i]);							\
		if (test_thread_flag(TIF_NEED_RESCHED))				\
			out[i] |= TC_RESCHED_MARK;				\
	}									\
}

#if TC_NR_COUNTERS == 2
#define DEFINE_LOOP(fn, BODY, W, EV)						\
	DEFINE_LOOP_C(fn, BODY, W, EV, TC_T0, TC_T1)				\
	DEFINE_LOOP_C(fn##_pmc, BODY, W, EV, TC_T0_PMC, TC_T1_PMC)
#else
#define DEFINE_LOOP(fn, BODY, W, EV)						\
	DEFINE_LOOP_C(fn, BODY, W, EV, TC_T0, TC_T1)
#endif

#define DEFINE_LOOPS(name, BODY)						\
	DEFINE_LOOP(loop_##name, BODY, NO_WORK, NO_EV)				\
	DEFINE_LOOP(loop_##name##_work, BODY, DO_WORK, NO_EV)			\
	DEFINE_LOOP(loop_##name##_ev, BODY, NO_WORK, PAIR_EV)			\
	DEFINE_LOOP(loop_##name##_work_ev, BODY, DO_WORK, PAIR_EV)

DEFINE_LOOP(loop_none, BODY_NONE, NO_WORK, NO_EV)
DEFINE_LOOP(loop_none_work, BODY_NONE, DO_WORK, NO_EV)
DEFINE_LOOPS(irq, BODY_IRQ)
DEFINE_LOOPS(preempt, BODY_PREEMPT)
DEFINE_LOOPS(irq_save, BODY_IRQ_SAVE)
DEFINE_LOOPS(bh, BODY_BH)
DEFINE_LOOPS(rcu, BODY_RCU)
DEFINE_LOOPS(spin, BODY_SPIN)
DEFINE_LOOPS(ref16, BODY_REF16)

typedef void (*tc_loop_fn)(u64 *out, unsigned int n, spinlock_t *lock, unsigned int *work);

/*
 * [counter][pair][do_work][pair_event]; ref16 has no event, its _ev loops
 * equal the plain ones. calib_loops: [counter][do_work].
 */
#define LOOP_ROW(name, c) { { loop_##name##c, loop_##name##_ev##c },		\
			    { loop_##name##_work##c, loop_##name##_work_ev##c } }
#define LOOP_TABLE(c) {								\
	[TC_KPAIR_IRQ] = LOOP_ROW(irq, c),					\
	[TC_KPAIR_PREEMPT] = LOOP_ROW(preempt, c),				\
	[TC_KPAIR_IRQ_SAVE] = LOOP_ROW(irq_save, c),				\
	[TC_KPAIR_BH] = LOOP_ROW(bh, c),					\
	[TC_KPAIR_RCU] = LOOP_ROW(rcu, c),					\
	[TC_KPAIR_SPIN] = LOOP_ROW(spin, c),					\
	[TC_KPAIR_REF16] = LOOP_ROW(ref16, c),					\
}
static const tc_loop_fn loops[TC_NR_COUNTERS][TC_NR_KPAIRS][2][2] = {
	LOOP_TABLE(),
#if TC_NR_COUNTERS == 2
	LOOP_TABLE(_pmc),
#endif
};
static const tc_loop_fn calib_loops[TC_NR_COUNTERS][2] = {
	{ loop_none, loop_none_work },
#if TC_NR_COUNTERS == 2
	{ loop_none_pmc, loop_none_work_pmc },
#endif
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 calibrate(struct tc_cpu *c, bool do_work, spinlock_t *lock, unsigned int *work)
{
	unsigned int i;

	calib_loops[tc_ctr][do_work](c->calib, TC_KMOD_CALIB, lock, work);
	for (i = 0; i < TC_KMOD_CALIB; i++)
		c->calib[i] &= ~TC_RESCHED_MARK;
	sort(c->calib, TC_KMOD_CALIB, sizeof(u64), cmp_u64, NULL);
	return c->calib[(TC_KMOD_CALIB - 1) / 2];
}

static void account(struct tc_cpu *c, int p, unsigned int n, u64 o)
{
	struct tc_hist *h = c->hist[p];
	struct tc_topn *t = c->top[p];
	unsigned int i;

	if (o < c->o_min[p])
		c->o_min[p] = o;
	if (o > c->o_max[p])
		c->o_max[p] = o;
	for (i = 0; i < n; i++) {
		u64 raw = c->buf[i], v;

		if (raw & TC_RESCHED_MARK) {
			c->resched[p]++;
			raw &= ~TC_RESCHED_MARK;
		}
		v = raw > o ? raw - o : 0;
		if (raw < o)
			c->clamped[p]++;
		tc_hist_add(h, v);
		tc_topn_add(t, v);
	}
}

/*
 * Run a pending reschedule now, so that the timed loop starts without one
 * (the calibration sort takes long enough for a wakeup to set need_resched,
 * and without full preemption nothing else would run it before the loop).
 */
static void clear_resched(void)
{
	int i;

	for (i = 0; i < 4 && need_resched(); i++)
		schedule();
}

/* What a sampler thread gets: its run and its own per-CPU state. */
struct tc_thread_arg {
	struct tc_run *run;
	struct tc_cpu *c;
};

/*
 * Stop sampling: cancelled or unloading, or a CPU of the run went offline
 * (ours: then every sampler of the run stops, the run is invalid anyway).
 */
static bool sampler_stop(struct tc_run *run, struct tc_cpu *c)
{
	if (READ_ONCE(tc_cancel) || READ_ONCE(run->lost))
		return true;
	if (READ_ONCE(per_cpu(tc_offlines, c->cpu)) != c->offlines ||
	    raw_smp_processor_id() != c->cpu) {
		WRITE_ONCE(c->moved, true);
		WRITE_ONCE(run->lost, true);
		return true;
	}
	return false;
}

/* Sleep until kthread_stop(); every thread of ours ends here, never on its own. */
static void wait_for_stop(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int sampler_thread(void *data)
{
	struct tc_thread_arg *a = data;
	struct tc_run *run = a->run;
	struct tc_cpu *c = a->c;
	spinlock_t *lock = per_cpu_ptr(&tc_spin, c->cpu);
	unsigned int *work = per_cpu_ptr(&tc_work_state, c->cpu);
	u64 left = run->cfg.samples;
	bool do_work = run->cfg.do_work, ev = run->cfg.pair_event;

	wait_for_completion(&run->start);
	if (READ_ONCE(run->abort))
		left = 0;
	else
		WRITE_ONCE(c->ran, true);
	while (left && !sampler_stop(run, c)) {
		unsigned int n = min_t(u64, left, TC_KMOD_BLOCK);
		u64 o = calibrate(c, do_work, lock, work);
		int p;

		for (p = 0; p < TC_NR_KPAIRS; p++) {
			if (!(run->cfg.pairs & (1u << p)))
				continue;
			clear_resched();
			if (sampler_stop(run, c))
				break;
			loops[tc_ctr][p][do_work][ev](c->buf, n, lock, work);
			if (sampler_stop(run, c))
				break;
			account(c, p, n, o);
		}
		left -= n;
		cond_resched();
	}
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	wait_for_stop();
	return 0;
}

static void free_run(struct tc_run *run)
{
	int i, p;

	if (!run)
		return;
	for (i = 0; i < run->nr_cpus; i++) {
		struct tc_cpu *c = &run->cpu[i];

		for (p = 0; p < TC_NR_KPAIRS; p++) {
			vfree(c->hist[p]);
			kvfree(c->top[p]);
		}
		kvfree(c->buf);
		kvfree(c->calib);
	}
	kfree(run->cpu);
	free_cpumask_var(run->cfg.cpus);
	kfree(run);
}

static void release_run(struct kref *ref)
{
	free_run(container_of(ref, struct tc_run, ref));
}

static void put_run(struct tc_run *run)
{
	if (run)
		kref_put(&run->ref, release_run);
}

static struct tc_run *alloc_run(const struct tc_config *cfg)
{
	struct tc_run *run = kzalloc(sizeof(*run), GFP_KERNEL);
	int cpu, i = 0, p;

	if (!run)
		return NULL;
	kref_init(&run->ref);
	run->cfg = *cfg;
	if (!zalloc_cpumask_var(&run->cfg.cpus, GFP_KERNEL)) {
		kfree(run);
		return NULL;
	}
	if (cpumask_empty(cfg->cpus))
		cpumask_copy(run->cfg.cpus, cpu_online_mask);
	else
		cpumask_and(run->cfg.cpus, cfg->cpus, cpu_online_mask);
	run->nr_cpus = cpumask_weight(run->cfg.cpus);
	run->cpu = kcalloc(max(run->nr_cpus, 1), sizeof(*run->cpu), GFP_KERNEL);
	if (!run->cpu)
		goto fail;
	for_each_cpu(cpu, run->cfg.cpus) {
		struct tc_cpu *c = &run->cpu[i++];

		c->cpu = cpu;
		c->buf = kvmalloc_array(TC_KMOD_BLOCK, sizeof(u64), GFP_KERNEL);
		c->calib = kvmalloc_array(TC_KMOD_CALIB, sizeof(u64), GFP_KERNEL);
		if (!c->buf || !c->calib)
			goto fail;
		for (p = 0; p < TC_NR_KPAIRS; p++) {
			if (!(cfg->pairs & (1u << p)))
				continue;
			c->hist[p] = vmalloc(sizeof(struct tc_hist));
			c->top[p] = kvmalloc(TC_TOPN_SIZE(cfg->highest), GFP_KERNEL);
			if (!c->hist[p] || !c->top[p])
				goto fail;
			tc_hist_init(c->hist[p]);
			tc_topn_init(c->top[p], cfg->highest);
			c->o_min[p] = U64_MAX;
		}
	}
	return run;
fail:
	free_run(run);
	return NULL;
}

static void set_invalid(const char *fmt, ...)
{
	va_list ap;

	tc_state = TC_INVALID;
	va_start(ap, fmt);
	vsnprintf(tc_invalid, sizeof(tc_invalid), fmt, ap);
	va_end(ap);
}

/* The controller: owns one run from thread creation to publishing. */
static int controller_fn(void *data)
{
	struct tc_run *run = data;
	struct tc_thread_arg *args;
	int i, created = 0, err = 0, lost = -1;
	bool all_ran = true;

	args = kcalloc(run->nr_cpus, sizeof(*args), GFP_KERNEL);
	if (!args) {
		err = -ENOMEM;
		goto publish;
	}
	/* hotplug excluded only while the threads are created and bound */
	cpus_read_lock();
	for (i = 0; i < run->nr_cpus; i++) {
		struct tc_cpu *c = &run->cpu[i];

		if (!cpu_online(c->cpu)) {
			err = -ENODEV;
			lost = c->cpu;
			break;
		}
		args[i].run = run;
		args[i].c = c;
		c->offlines = READ_ONCE(per_cpu(tc_offlines, c->cpu));
		c->task = kthread_create_on_node(sampler_thread, &args[i], cpu_to_node(c->cpu),
						 "tracecost/%d", c->cpu);
		if (IS_ERR(c->task)) {
			err = PTR_ERR(c->task);
			c->task = NULL;
			break;
		}
		kthread_bind(c->task, c->cpu);
		created++;
	}
	cpus_read_unlock();
	atomic_set(&run->running, created);
	for (i = 0; i < created; i++)
		wake_up_process(run->cpu[i].task);
	/* Release all together (also when creation failed: they must run to exit). */
	if (err)
		WRITE_ONCE(run->abort, true);
	complete_all(&run->start);
	/* bounded slices: never a hung task, however long the run */
	if (created)
		while (!wait_for_completion_timeout(&run->done, HZ))
			;
	for (i = 0; i < created; i++) {
		struct tc_cpu *c = &run->cpu[i];

		if (!READ_ONCE(c->ran))
			all_ran = false;
		kthread_stop(c->task);
		if (lost < 0 && (READ_ONCE(c->moved) ||
				 READ_ONCE(per_cpu(tc_offlines, c->cpu)) != c->offlines))
			lost = c->cpu;
	}
	kfree(args);
publish:
	mutex_lock(&tc_lock);
	if (lost >= 0) {
		set_invalid("no valid run: CPU %d went offline during the run", lost);
		put_run(run);
	} else if (err) {
		set_invalid(err == -ENOMEM ? "no valid run: out of memory" :
			    "no valid run: could not start a thread on every CPU");
		put_run(run);
	} else if (READ_ONCE(tc_cancel)) {
		tc_state = TC_CANCELLED;
		put_run(run);
	} else if (!all_ran) {
		set_invalid("no valid run: a sampler thread did not run");
		put_run(run);
	} else {
		tc_results = run;
		tc_state = TC_DONE;
	}
	mutex_unlock(&tc_lock);
	wait_for_stop();
	return 0;
}

/* Under tc_lock, no run going: stop the last controller (it only waits for this). */
static void reap_controller(void)
{
	if (tc_ctrl) {
		kthread_stop(tc_ctrl);
		put_task_struct(tc_ctrl);
		tc_ctrl = NULL;
	}
}

static int start_run(void)
{
	struct tc_run *run;
	struct task_struct *t;
	u64 topn;
	int err = 0, npairs;

	mutex_lock(&tc_lock);
	if (tc_state == TC_RUNNING) {
		err = -EBUSY;
		goto out;
	}
	reap_controller();
	/* No stale figures: the previous results are gone from here on. */
	put_run(tc_results);
	tc_results = NULL;
	npairs = hweight32(tc_cfg.pairs);
	topn = (u64)(cpumask_empty(tc_cfg.cpus) ? num_online_cpus() : cpumask_weight(tc_cfg.cpus)) *
	       npairs * TC_TOPN_SIZE(tc_cfg.highest);
	if (topn > TC_KMOD_MAX_TOPN_BYTES) {
		set_invalid("no valid run: highest x CPUs x pairs needs %llu MiB, limit %llu MiB",
			    topn >> 20, TC_KMOD_MAX_TOPN_BYTES >> 20);
		err = -E2BIG;
		goto out;
	}
	run = alloc_run(&tc_cfg);
	if (!run) {
		set_invalid("no valid run: out of memory");
		err = -ENOMEM;
		goto out;
	}
	if (!run->nr_cpus) {
		free_run(run);
		set_invalid("no valid run: no selected CPU is online");
		err = -EINVAL;
		goto out;
	}
	run->id = ++tc_run_id;
	WRITE_ONCE(tc_cancel, false);
	init_completion(&run->start);
	init_completion(&run->done);
	t = kthread_create(controller_fn, run, "tracecost-ctrl");
	if (IS_ERR(t)) {
		free_run(run);
		set_invalid("no valid run: could not start the controller");
		err = PTR_ERR(t);
		goto out;
	}
	get_task_struct(t);
	tc_ctrl = t;
	tc_state = TC_RUNNING;
	wake_up_process(t);
out:
	mutex_unlock(&tc_lock);
	return err;
}

/* CPU hotplug teardown (on the outgoing CPU): a run on it stops and is invalid. */
static int tc_cpu_offline(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(tc_offlines, cpu), per_cpu(tc_offlines, cpu) + 1);
	return 0;
}

/* ---- debugfs ---------------------------------------------------------- */

static int parse_pairs(char *p, u32 *mask)
{
	char *tok;
	u32 m = 0;
	int i;

	if (!*p)
		return -EINVAL;
	if (!strcmp(p, "all")) {
		*mask = (1u << TC_NR_KPAIRS) - 1;
		return 0;
	}
	while ((tok = strsep(&p, ",")) != NULL) {
		for (i = 0; i < TC_NR_KPAIRS; i++)
			if (!strcmp(tok, pair_names[i]))
				break;
		if (i == TC_NR_KPAIRS)
			return -EINVAL;
		m |= 1u << i;
	}
	*mask = m;
	return 0;
}

enum tc_file { F_SAMPLES, F_HIGHEST, F_PAIRS, F_CPUS, F_DO_WORK, F_PAIR_EVENT };

/* Configuration writes: surrounding white space is ignored; bounds in tracecost/kmod.h. */
static ssize_t cfg_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	enum tc_file f = (enum tc_file)(uintptr_t)file_inode(file)->i_private;
	char buf[256], *val;
	u64 v;
	u32 mask;
	cpumask_var_t cpus;
	int err = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	val = strim(buf);

	mutex_lock(&tc_lock);
	switch (f) {
	case F_SAMPLES:
		err = kstrtou64(val, 0, &v);
		if (!err && (v < 1 || v > TC_KMOD_MAX_SAMPLES))
			err = -EINVAL;
		if (!err)
			tc_cfg.samples = v;
		break;
	case F_HIGHEST:
		err = kstrtou64(val, 0, &v);
		if (!err && (v < 1 || v > TC_KMOD_MAX_HIGHEST))
			err = -EINVAL;
		if (!err)
			tc_cfg.highest = (u32)v;
		break;
	case F_DO_WORK:
	case F_PAIR_EVENT:
		err = kstrtou64(val, 0, &v);
		if (!err && v > 1)
			err = -EINVAL;
		if (!err && f == F_DO_WORK)
			tc_cfg.do_work = v;
		else if (!err)
			tc_cfg.pair_event = v;
		break;
	case F_PAIRS:
		err = parse_pairs(val, &mask);
		if (!err)
			tc_cfg.pairs = mask;
		break;
	case F_CPUS:
		if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
			err = -ENOMEM;
			break;
		}
		if (!strcmp(val, "all")) {
			cpumask_clear(tc_cfg.cpus);
		} else {
			err = *val ? cpulist_parse(val, cpus) : -EINVAL;
			if (!err && (cpumask_empty(cpus) || !cpumask_subset(cpus, cpu_online_mask)))
				err = -EINVAL;
			if (!err)
				cpumask_copy(tc_cfg.cpus, cpus);
		}
		free_cpumask_var(cpus);
		break;
	}
	mutex_unlock(&tc_lock);
	return err ? err : (ssize_t)len;
}

static void show_pairs(struct seq_file *m, u32 pairs)
{
	int i, first = 1;

	for (i = 0; i < TC_NR_KPAIRS; i++) {
		if (pairs & (1u << i)) {
			seq_printf(m, "%s%s", first ? "" : ",", pair_names[i]);
			first = 0;
		}
	}
	seq_putc(m, '\n');
}

static int cfg_show(struct seq_file *m, void *v)
{
	enum tc_file f = (enum tc_file)(uintptr_t)m->private;

	mutex_lock(&tc_lock);
	switch (f) {
	case F_SAMPLES:
		seq_printf(m, "%llu\n", tc_cfg.samples);
		break;
	case F_HIGHEST:
		seq_printf(m, "%u\n", tc_cfg.highest);
		break;
	case F_DO_WORK:
		seq_printf(m, "%d\n", tc_cfg.do_work);
		break;
	case F_PAIR_EVENT:
		seq_printf(m, "%d\n", tc_cfg.pair_event);
		break;
	case F_PAIRS:
		show_pairs(m, tc_cfg.pairs);
		break;
	case F_CPUS:
		if (cpumask_empty(tc_cfg.cpus))
			seq_puts(m, "all\n");
		else
			seq_printf(m, "%*pbl\n", cpumask_pr_args(tc_cfg.cpus));
		break;
	}
	mutex_unlock(&tc_lock);
	return 0;
}

static int cfg_open(struct inode *inode, struct file *file)
{
	return single_open(file, cfg_show, inode->i_private);
}

static const struct file_operations cfg_fops = {
	.owner = THIS_MODULE,
	.open = cfg_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = cfg_write,
};

static void format_status(char *buf, size_t len)
{
	static const char *const names[] = {
		[TC_IDLE] = "idle", [TC_RUNNING] = "running", [TC_DONE] = "done",
		[TC_CANCELLED] = "cancelled", [TC_INVALID] = "invalid",
	};

	if (tc_state == TC_INVALID)
		snprintf(buf, len, "invalid: %s", tc_invalid);
	else
		snprintf(buf, len, "%s", names[tc_state]);
}

static int status_show(struct seq_file *m, void *v)
{
	char st[128];

	mutex_lock(&tc_lock);
	format_status(st, sizeof(st));
	mutex_unlock(&tc_lock);
	seq_printf(m, "%s\n", st);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static ssize_t run_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[8], *val;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	val = strim(buf);
	if (!strcmp(val, "0")) {
		/* cancel the current run, if any; the samplers stop after their loop */
		WRITE_ONCE(tc_cancel, true);
		return len;
	}
	if (strcmp(val, "1"))
		return -EINVAL;
	err = start_run();
	return err ? err : (ssize_t)len;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
};

/*
 * results (doc/kmod-results.md): a snapshot taken at open (the status line
 * and a reference to the published run), read one record at a time: record
 * 0 is the header, 1 .. nr_cpus * TC_NR_KPAIRS one cell each (empty for
 * pairs not selected), then "end". Nothing is held between reads but the
 * reference, so the file's size costs no lock and no buffer of its size.
 */
struct tc_results_view {
	char status[128];
	struct tc_run *run;	/* NULL: header and status only */
};

static void *results_start(struct seq_file *m, loff_t *pos)
{
	struct tc_results_view *rv = m->private;
	loff_t last = rv->run ? (loff_t)rv->run->nr_cpus * TC_NR_KPAIRS + 1 : 0;

	return *pos <= last ? pos : NULL;
}

static void *results_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return results_start(m, pos);
}

static void results_stop(struct seq_file *m, void *v)
{
}

static int results_show(struct seq_file *m, void *v)
{
	struct tc_results_view *rv = m->private;
	struct tc_run *run = rv->run;
	loff_t k = *(loff_t *)v;
	const struct tc_cpu *c;
	const struct tc_hist *h;
	const struct tc_topn *t;
	int p;
	u32 j;

	if (k == 0) {
		seq_printf(m, "tracecost-kmod %d\nhist_layout %d\nstatus %s\n",
			   TC_KMOD_RESULTS_VERSION, TC_HIST_LAYOUT_VERSION, rv->status);
		if (!run)
			return 0;
		seq_printf(m, "run %lu\nsamples %llu\nhighest %u\ndo_work %d\npair_event %d\n"
			   "block %u\ncalib %u\n", run->id, run->cfg.samples, run->cfg.highest,
			   run->cfg.do_work, run->cfg.pair_event, TC_KMOD_BLOCK, TC_KMOD_CALIB);
		seq_puts(m, "pairs ");
		show_pairs(m, run->cfg.pairs);
		seq_printf(m, "counter %s\ncounter_khz %llu\ncpus %*pbl\n", tc_counter_name(),
			   tc_counter_khz(), cpumask_pr_args(run->cfg.cpus));
		return 0;
	}
	if (k == (loff_t)run->nr_cpus * TC_NR_KPAIRS + 1) {
		seq_puts(m, "end\n");
		return 0;
	}
	c = &run->cpu[(k - 1) / TC_NR_KPAIRS];
	p = (int)((k - 1) % TC_NR_KPAIRS);
	h = c->hist[p];
	t = c->top[p];
	if (!h)
		return 0;
	seq_printf(m, "cell %d %s n %llu min %llu max %llu overflow %llu sum %llu %llu"
		   " clamped %llu omin %llu omax %llu resched %llu\n", c->cpu, pair_names[p],
		   h->n, h->n ? h->min : 0, h->max, h->overflow, h->sum_hi, h->sum_lo,
		   c->clamped[p], h->n ? c->o_min[p] : 0, c->o_max[p], c->resched[p]);
	seq_puts(m, "b");
	for (j = 0; j < TC_HIST_NR_BUCKETS; j++)
		if (h->counts[j])
			seq_printf(m, " %u:%llu", j, h->counts[j]);
	seq_puts(m, "\nt");
	for (j = 0; j < t->len; j++)
		seq_printf(m, " %llu", t->v[j]);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations results_sops = {
	.start = results_start,
	.next = results_next,
	.stop = results_stop,
	.show = results_show,
};

static int results_open(struct inode *inode, struct file *file)
{
	struct tc_results_view *rv;

	rv = __seq_open_private(file, &results_sops, sizeof(*rv));
	if (!rv)
		return -ENOMEM;
	mutex_lock(&tc_lock);
	format_status(rv->status, sizeof(rv->status));
	if (tc_state == TC_DONE && tc_results) {
		rv->run = tc_results;
		kref_get(&rv->run->ref);
	}
	mutex_unlock(&tc_lock);
	return 0;
}

static int results_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct tc_results_view *rv = m->private;

	put_run(rv->run);
	return seq_release_private(inode, file);
}

static const struct file_operations results_fops = {
	.owner = THIS_MODULE,
	.open = results_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = results_release,
};

#if defined(CONFIG_ARM64)
/*
 * counter=pmccntr: the PMU cycle counter on, on every CPU (Arm ARM D13:
 * PMCR_EL0.E enables the counters, .LC makes PMCCNTR_EL0 overflow at 64
 * bits; PMCNTENSET_EL0 bit 31 enables the cycle counter; PMCCFILTR_EL0 = 0
 * counts at EL0 and EL1; PMUSERENR_EL0.EN lets EL0 read it too). Nothing
 * else may program the PMU meanwhile: the kernels of make kernels ARCH=arm64
 * have no perf PMU driver (CONFIG_ARM_PMU is not set).
 */
static void tc_pmu_enable(void *unused)
{
	write_sysreg(read_sysreg(pmcr_el0) | BIT(0) | BIT(6), pmcr_el0);
	write_sysreg(0, pmccfiltr_el0);
	write_sysreg(BIT(31), pmcntenset_el0);
	write_sysreg(BIT(0), pmuserenr_el0);
	isb();
}

static void tc_pmu_disable(void *unused)
{
	write_sysreg(0, pmuserenr_el0);
	write_sysreg(BIT(31), pmcntenclr_el0);
	isb();
}

/* counter= at load: 0 when valid, -EINVAL or -ENODEV (no PMU) otherwise */
static int tc_counter_setup(void)
{
	u64 dfr0 = read_sysreg(id_aa64dfr0_el1);
	unsigned int pmuver = (dfr0 >> 8) & 0xf;	/* ID_AA64DFR0_EL1.PMUVer */

	if (!strcmp(counter, "cntvct"))
		return 0;
	if (strcmp(counter, "pmccntr")) {
		pr_err("tracecost: counter=%s is not cntvct or pmccntr\n", counter);
		return -EINVAL;
	}
	if (!pmuver || pmuver == 0xf) {
		pr_err("tracecost: counter=pmccntr: this CPU has no PMU (ID_AA64DFR0_EL1.PMUVer %u)\n",
		       pmuver);
		return -ENODEV;
	}
	tc_ctr = 1;
	on_each_cpu(tc_pmu_enable, NULL, 1);
	return 0;
}

static void tc_counter_teardown(void)
{
	if (tc_ctr)
		on_each_cpu(tc_pmu_disable, NULL, 1);
}

static int tc_cpu_online(unsigned int cpu)
{
	if (tc_ctr)
		tc_pmu_enable(NULL);
	return 0;
}
#elif defined(CONFIG_RISCV)
/*
 * counter=instret: user mode may read instret too (scounteren.IR, bit 2,
 * on every CPU: the privileged spec's counter-enable register, which Linux
 * 6.1 without a perf driver leaves as it found it), so that the sampler of
 * the guest's tracecost reads the same counter. Supervisor mode reads it
 * under the firmware's mcounteren (OpenSBI enables cycle, time and
 * instret). Each CPU's previous value is restored at unload.
 */
#define TC_SCOUNTEREN_IR	BIT(2)
static DEFINE_PER_CPU(unsigned long, tc_scounteren);

static void tc_instret_user(void *unused)
{
	this_cpu_write(tc_scounteren, csr_read(CSR_SCOUNTEREN));
	csr_set(CSR_SCOUNTEREN, TC_SCOUNTEREN_IR);
}

static void tc_instret_restore(void *unused)
{
	csr_write(CSR_SCOUNTEREN, this_cpu_read(tc_scounteren));
}

/* counter= at load: 0 when valid, -EINVAL otherwise */
static int tc_counter_setup(void)
{
	if (!strcmp(counter, "time"))
		return 0;
	if (strcmp(counter, "instret")) {
		pr_err("tracecost: counter=%s is not time or instret\n", counter);
		return -EINVAL;
	}
	tc_ctr = 1;
	on_each_cpu(tc_instret_user, NULL, 1);
	return 0;
}

static void tc_counter_teardown(void)
{
	if (tc_ctr)
		on_each_cpu(tc_instret_restore, NULL, 1);
}

static int tc_cpu_online(unsigned int cpu)
{
	if (tc_ctr)
		tc_instret_user(NULL);
	return 0;
}
#else
static int tc_counter_setup(void)
{
	return 0;
}

static void tc_counter_teardown(void)
{
}
#define tc_cpu_online	NULL
#endif

static int __init tracecost_init(void)
{
	int cpu, ret;

	ret = tc_counter_setup();
	if (ret)
		return ret;

	for_each_possible_cpu(cpu) {
		spin_lock_init(per_cpu_ptr(&tc_spin, cpu));
		*per_cpu_ptr(&tc_work_state, cpu) = cpu + 1;
	}
	if (!zalloc_cpumask_var(&tc_cfg.cpus, GFP_KERNEL)) {
		tc_counter_teardown();
		return -ENOMEM;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "tracecost:online", tc_cpu_online,
					tc_cpu_offline);
	if (ret < 0) {
		free_cpumask_var(tc_cfg.cpus);
		tc_counter_teardown();
		return ret;
	}
	tc_hp_state = ret;
	tc_dir = debugfs_create_dir(TC_KMOD_DIR, NULL);
	if (IS_ERR(tc_dir)) {
		cpuhp_remove_state_nocalls(tc_hp_state);
		free_cpumask_var(tc_cfg.cpus);
		tc_counter_teardown();
		return PTR_ERR(tc_dir);
	}
	debugfs_create_file("samples", 0600, tc_dir, (void *)F_SAMPLES, &cfg_fops);
	debugfs_create_file("highest", 0600, tc_dir, (void *)F_HIGHEST, &cfg_fops);
	debugfs_create_file("pairs", 0600, tc_dir, (void *)F_PAIRS, &cfg_fops);
	debugfs_create_file("cpus", 0600, tc_dir, (void *)F_CPUS, &cfg_fops);
	debugfs_create_file("do_work", 0600, tc_dir, (void *)F_DO_WORK, &cfg_fops);
	debugfs_create_file("pair_event", 0600, tc_dir, (void *)F_PAIR_EVENT, &cfg_fops);
	debugfs_create_file("run", 0200, tc_dir, NULL, &run_fops);
	debugfs_create_file("status", 0400, tc_dir, NULL, &status_fops);
	debugfs_create_file("results", 0400, tc_dir, NULL, &results_fops);
	return 0;
}

static void __exit tracecost_exit(void)
{
	struct task_struct *t;

	/*
	 * No new run can start once the files are gone (debugfs waits for
	 * writers; an open file holds a module reference, so none is open).
	 */
	debugfs_remove_recursive(tc_dir);
	WRITE_ONCE(tc_cancel, true);
	mutex_lock(&tc_lock);
	t = tc_ctrl;
	tc_ctrl = NULL;
	mutex_unlock(&tc_lock);
	/* returns once the controller (which stopped its samplers) has returned */
	if (t) {
		kthread_stop(t);
		put_task_struct(t);
	}
	cpuhp_remove_state_nocalls(tc_hp_state);
	put_run(tc_results);
	free_cpumask_var(tc_cfg.cpus);
	tc_counter_teardown();
}

module_init(tracecost_init);
module_exit(tracecost_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracecost: cost of irq/preempt/bh/rcu/spinlock pairs, with and without tracing");
