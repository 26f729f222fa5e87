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
 * debugfs tracecost/:
 *   samples, highest, pairs, cpus, do_work	configuration (read/write)
 *   run	write 1 to start a run (asynchronous; -EBUSY while one runs),
 *		0 to cancel the current one
 *   status	idle | running | done | cancelled | invalid: <reason>
 *   results	the last run's histograms (doc/kmod-results.md), or
 *		"status ..." without data when there is no valid run
 *
 * Locking:
 *   tc_lock (mutex) protects the configuration, tc_state, tc_results and
 *   tc_ctrl; it is never held while sampling.
 *   A run is owned by one controller kthread from start to publish; the
 *   per-CPU sampler threads only write their own struct tc_cpu.
 *   The CPU-hotplug read lock is held by the controller for the whole run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
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
	cpumask_var_t cpus;	/* empty: every online CPU */
};

struct tc_cpu {
	int cpu;
	struct task_struct *task;
	bool ran;		/* set by the thread when it started sampling */
	int err;
	struct tc_hist *hist[TC_NR_KPAIRS];
	struct tc_topn *top[TC_NR_KPAIRS];
	u64 clamped[TC_NR_KPAIRS];
	u64 o_min[TC_NR_KPAIRS], o_max[TC_NR_KPAIRS];
	u64 *buf;		/* TC_KMOD_BLOCK raw samples */
	u64 *calib;		/* TC_KMOD_CALIB empty samples */
};

struct tc_run {
	struct tc_config cfg;	/* copy taken at start (cpus resolved) */
	unsigned long id;
	int nr_cpus;
	struct tc_cpu *cpu;	/* nr_cpus entries, ascending CPU */
	struct completion start;
	struct completion done;
	atomic_t running;
	bool abort;		/* set before @start completes: exit without sampling */
};

static DEFINE_MUTEX(tc_lock);
static struct tc_config tc_cfg = {
	.samples = 100000, .highest = 1000,
	.pairs = (1u << TC_NR_KPAIRS) - 1,
};
static enum tc_state tc_state = TC_IDLE;
static char tc_invalid[96];
static struct tc_run *tc_results;		/* last valid run, under tc_lock */
static struct task_struct *tc_ctrl;		/* controller of the current run */
static DECLARE_COMPLETION(tc_ctrl_done);
static unsigned long tc_run_id;
static bool tc_cancel;				/* READ_ONCE by samplers */
static struct dentry *tc_dir;
static DEFINE_PER_CPU(spinlock_t, tc_spin);
static DEFINE_PER_CPU(unsigned int, tc_work_state);

/*
 * The ordered counter read: the kernel's rdtsc_ordered() on x86 (LFENCE or
 * RDTSCP, so the read is not executed before earlier instructions), the
 * arm64 counter after an ISB, else the ns clock.
 */
static __always_inline u64 tc_read(void)
{
#if defined(CONFIG_X86)
	return rdtsc_ordered();
#elif defined(CONFIG_ARM64)
	isb();
	return __arch_counter_get_cntvct();
#else
	return ktime_get_ns();
#endif
}

static u64 tc_counter_khz(void)
{
#if defined(CONFIG_X86)
	return tsc_khz;
#elif defined(CONFIG_ARM64)
	return arch_timer_get_rate() / 1000;
#else
	return 1000000;
#endif
}

static const char *tc_counter_name(void)
{
#if defined(CONFIG_X86)
	return "tsc (rdtsc_ordered)";
#elif defined(CONFIG_ARM64)
	return "cntvct_el0 (isb; mrs)";
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
static __always_inline void tc_do_work(unsigned int *state)
{
	unsigned int v = READ_ONCE(*state);

	v = v * 1664525u + 1013904223u;
	v ^= (v & 0x00400000u) ? 0x5bd1e995u : 0;
	WRITE_ONCE(*state, v);
}

#define NOP4	"nop; nop; nop; nop;"

/*
 * Pair bodies. Each timed sample is: t0 = tc_read(); BODY; t1 = tc_read().
 * The tracecost:pair tracepoint sits inside every pair except ref16 (the
 * harness reference), so with the event disabled it costs one NOP.
 */
#define BODY_NONE(W)		do { W; } while (0)
#define BODY_IRQ(W)		do { local_irq_disable(); trace_pair(TC_KPAIR_IRQ); W;	\
				     local_irq_enable(); } while (0)
#define BODY_PREEMPT(W)		do { preempt_disable(); trace_pair(TC_KPAIR_PREEMPT); W; \
				     preempt_enable(); } while (0)
#define BODY_IRQ_SAVE(W)	do { unsigned long __f; local_irq_save(__f);		\
				     trace_pair(TC_KPAIR_IRQ_SAVE); W;			\
				     local_irq_restore(__f); } while (0)
#define BODY_BH(W)		do { local_bh_disable(); trace_pair(TC_KPAIR_BH); W;	\
				     local_bh_enable(); } while (0)
#define BODY_RCU(W)		do { rcu_read_lock(); trace_pair(TC_KPAIR_RCU); W;	\
				     rcu_read_unlock(); } while (0)
#define BODY_SPIN(W)		do { spin_lock(lock); trace_pair(TC_KPAIR_SPIN); W;	\
				     spin_unlock(lock); } while (0)
#define BODY_REF16(W)		do { asm volatile(NOP4 NOP4 NOP4 NOP4); W; } while (0)

#define NO_WORK			do { } while (0)
#define DO_WORK			tc_do_work(work)

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
#else
#define TC_T0(slot)	do { (slot) = tc_read(); barrier(); } while (0)
#define TC_T1(slot)	do { barrier(); (slot) = tc_read() - (slot); } while (0)
#endif

#define DEFINE_LOOP(fn, BODY, W)						\
static noinline void fn(u64 *out, unsigned int n, spinlock_t *lock,		\
			unsigned int *work)					\
{										\
	unsigned int i;								\
										\
	for (i = 0; i < n; i++) {						\
		TC_T0(out[i]);							\
		BODY(W);							\
		TC_T1(out[i]);							\
	}									\
}

#define DEFINE_LOOPS(name, BODY)						\
	DEFINE_LOOP(loop_##name, BODY, NO_WORK)					\
	DEFINE_LOOP(loop_##name##_work, BODY, DO_WORK)

DEFINE_LOOPS(none, BODY_NONE)
DEFINE_LOOPS(irq, BODY_IRQ)
DEFINE_LOOPS(preempt, BODY_PREEMPT)
DEFINE_LOOPS(irq_save, BODY_IRQ_SAVE)
DEFINE_LOOPS(bh, BODY_BH)
DEFINE_LOOPS(rcu, BODY_RCU)
DEFINE_LOOPS(spin, BODY_SPIN)
DEFINE_LOOPS(ref16, BODY_REF16)

typedef void (*tc_loop_fn)(u64 *out, unsigned int n, spinlock_t *lock, unsigned int *work);

static const tc_loop_fn loops[TC_NR_KPAIRS][2] = {
	[TC_KPAIR_IRQ] = { loop_irq, loop_irq_work },
	[TC_KPAIR_PREEMPT] = { loop_preempt, loop_preempt_work },
	[TC_KPAIR_IRQ_SAVE] = { loop_irq_save, loop_irq_save_work },
	[TC_KPAIR_BH] = { loop_bh, loop_bh_work },
	[TC_KPAIR_RCU] = { loop_rcu, loop_rcu_work },
	[TC_KPAIR_SPIN] = { loop_spin, loop_spin_work },
	[TC_KPAIR_REF16] = { loop_ref16, loop_ref16_work },
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 calibrate(struct tc_cpu *c, bool do_work, spinlock_t *lock, unsigned int *work)
{
	(do_work ? loop_none_work : loop_none)(c->calib, TC_KMOD_CALIB, lock, work);
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
		u64 raw = c->buf[i];
		u64 v = raw > o ? raw - o : 0;

		if (raw < o)
			c->clamped[p]++;
		tc_hist_add(h, v);
		tc_topn_add(t, v);
	}
}

/* What a sampler thread gets: its run and its own per-CPU state. */
struct tc_thread_arg {
	struct tc_run *run;
	struct tc_cpu *c;
};

static int sampler_thread(void *data)
{
	struct tc_thread_arg *a = data;
	struct tc_run *run = a->run;
	struct tc_cpu *c = a->c;
	spinlock_t *lock = per_cpu_ptr(&tc_spin, c->cpu);
	unsigned int *work = per_cpu_ptr(&tc_work_state, c->cpu);
	u64 left = run->cfg.samples;

	wait_for_completion(&run->start);
	if (READ_ONCE(run->abort))
		left = 0;
	else
		WRITE_ONCE(c->ran, true);
	while (left && !READ_ONCE(tc_cancel)) {
		unsigned int n = min_t(u64, left, TC_KMOD_BLOCK);
		u64 o = calibrate(c, run->cfg.do_work, lock, work);
		int p;

		for (p = 0; p < TC_NR_KPAIRS; p++) {
			if (!(run->cfg.pairs & (1u << p)))
				continue;
			loops[p][run->cfg.do_work](c->buf, n, lock, work);
			account(c, p, n, o);
		}
		left -= n;
		cond_resched();
	}
	if (atomic_dec_and_test(&run->running))
		complete(&run->done);
	/* Stay until the controller stops us: it never stops a thread that did not run. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		schedule();
	}
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

static struct tc_run *alloc_run(const struct tc_config *cfg)
{
	struct tc_run *run = kzalloc(sizeof(*run), GFP_KERNEL);
	int cpu, i = 0, p;

	if (!run)
		return NULL;
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

static void set_invalid(const char *why)
{
	tc_state = TC_INVALID;
	strscpy(tc_invalid, why, sizeof(tc_invalid));
}

/* The controller: owns one run from thread creation to publishing. */
static int controller_fn(void *data)
{
	struct tc_run *run = data;
	struct tc_thread_arg *args;
	int i, created = 0, err = 0;
	bool all_ran = true;

	args = kcalloc(run->nr_cpus, sizeof(*args), GFP_KERNEL);
	if (!args) {
		err = -ENOMEM;
		goto publish;
	}
	cpus_read_lock();
	for (i = 0; i < run->nr_cpus; i++) {
		struct tc_cpu *c = &run->cpu[i];

		if (!cpu_online(c->cpu)) {
			err = -ENODEV;
			break;
		}
		args[i].run = run;
		args[i].c = c;
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
	atomic_set(&run->running, created);
	for (i = 0; i < created; i++)
		wake_up_process(run->cpu[i].task);
	/* Release all together (also when creation failed: they must run to exit). */
	if (err)
		WRITE_ONCE(run->abort, true);
	complete_all(&run->start);
	if (created)
		wait_for_completion(&run->done);
	for (i = 0; i < created; i++) {
		if (!READ_ONCE(run->cpu[i].ran))
			all_ran = false;
		kthread_stop(run->cpu[i].task);
	}
	cpus_read_unlock();
	kfree(args);
publish:
	mutex_lock(&tc_lock);
	if (err) {
		set_invalid(err == -ENOMEM ? "no valid run: out of memory" :
			    "no valid run: could not start a thread on every CPU");
		free_run(run);
	} else if (READ_ONCE(tc_cancel)) {
		tc_state = TC_CANCELLED;
		free_run(run);
	} else if (!all_ran) {
		set_invalid("no valid run: a sampler thread did not run");
		free_run(run);
	} else {
		tc_results = run;
		tc_state = TC_DONE;
	}
	tc_ctrl = NULL;
	mutex_unlock(&tc_lock);
	complete(&tc_ctrl_done);
	return 0;
}

static int start_run(void)
{
	struct tc_run *run;
	struct task_struct *t;
	int err = 0;

	mutex_lock(&tc_lock);
	if (tc_ctrl) {
		err = -EBUSY;
		goto out;
	}
	/* No stale figures: the previous results are gone from here on. */
	free_run(tc_results);
	tc_results = NULL;
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
	reinit_completion(&tc_ctrl_done);
	t = kthread_run(controller_fn, run, "tracecost-ctrl");
	if (IS_ERR(t)) {
		free_run(run);
		set_invalid("no valid run: could not start the controller");
		err = PTR_ERR(t);
		complete(&tc_ctrl_done);
		goto out;
	}
	tc_ctrl = t;
	tc_state = TC_RUNNING;
out:
	mutex_unlock(&tc_lock);
	return err;
}

/* ---- debugfs ---------------------------------------------------------- */

static int parse_pairs(const char *s, u32 *mask)
{
	char *copy, *p, *tok;
	u32 m = 0;
	int i, err = 0;

	copy = kstrdup(s, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	p = strim(copy);
	if (!*p) {
		err = -EINVAL;
		goto out;
	}
	if (!strcmp(p, "all")) {
		m = (1u << TC_NR_KPAIRS) - 1;
		goto out;
	}
	while ((tok = strsep(&p, ",")) != NULL) {
		for (i = 0; i < TC_NR_KPAIRS; i++)
			if (!strcmp(tok, pair_names[i]))
				break;
		if (i == TC_NR_KPAIRS) {
			err = -EINVAL;
			goto out;
		}
		m |= 1u << i;
	}
out:
	kfree(copy);
	if (!err)
		*mask = m;
	return err;
}

enum tc_file { F_SAMPLES, F_HIGHEST, F_PAIRS, F_CPUS, F_DO_WORK };

static ssize_t cfg_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	enum tc_file f = (enum tc_file)(uintptr_t)file_inode(file)->i_private;
	char buf[256];
	u64 v;
	u32 mask;
	cpumask_var_t cpus;
	int err = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	strim(buf);

	mutex_lock(&tc_lock);
	switch (f) {
	case F_SAMPLES:
		err = kstrtou64(buf, 0, &v);
		if (!err && (v < 1 || v > TC_KMOD_MAX_SAMPLES))
			err = -EINVAL;
		if (!err)
			tc_cfg.samples = v;
		break;
	case F_HIGHEST:
		err = kstrtou64(buf, 0, &v);
		if (!err && (v < 1 || v > TC_KMOD_MAX_HIGHEST))
			err = -EINVAL;
		if (!err)
			tc_cfg.highest = (u32)v;
		break;
	case F_DO_WORK:
		err = kstrtou64(buf, 0, &v);
		if (!err && v > 1)
			err = -EINVAL;
		if (!err)
			tc_cfg.do_work = v;
		break;
	case F_PAIRS:
		err = parse_pairs(buf, &mask);
		if (!err)
			tc_cfg.pairs = mask;
		break;
	case F_CPUS:
		if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
			err = -ENOMEM;
			break;
		}
		if (!strcmp(buf, "all")) {
			cpumask_clear(tc_cfg.cpus);
		} else {
			err = cpulist_parse(buf, cpus);
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

static int cfg_show(struct seq_file *m, void *v)
{
	enum tc_file f = (enum tc_file)(uintptr_t)m->private;
	int i, first = 1;

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
	case F_PAIRS:
		for (i = 0; i < TC_NR_KPAIRS; i++) {
			if (tc_cfg.pairs & (1u << i)) {
				seq_printf(m, "%s%s", first ? "" : ",", pair_names[i]);
				first = 0;
			}
		}
		seq_putc(m, '\n');
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

static void show_status(struct seq_file *m)
{
	static const char *const names[] = {
		[TC_IDLE] = "idle", [TC_RUNNING] = "running", [TC_DONE] = "done",
		[TC_CANCELLED] = "cancelled", [TC_INVALID] = "invalid",
	};

	if (tc_state == TC_INVALID)
		seq_printf(m, "invalid: %s\n", tc_invalid);
	else
		seq_printf(m, "%s\n", names[tc_state]);
}

static int status_show(struct seq_file *m, void *v)
{
	mutex_lock(&tc_lock);
	show_status(m);
	mutex_unlock(&tc_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static ssize_t run_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[8];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (!strcmp(strim(buf), "0")) {
		/* cancel the current run, if any; the samplers stop at the next block */
		WRITE_ONCE(tc_cancel, true);
		return len;
	}
	if (strcmp(strim(buf), "1"))
		return -EINVAL;
	err = start_run();
	return err ? err : (ssize_t)len;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
};

/* doc/kmod-results.md */
static int results_show(struct seq_file *m, void *v)
{
	struct tc_run *run;
	int i, p;
	u32 j;

	mutex_lock(&tc_lock);
	seq_printf(m, "tracecost-kmod %d\nhist_layout %d\n", TC_KMOD_RESULTS_VERSION,
		   TC_HIST_LAYOUT_VERSION);
	seq_puts(m, "status ");
	show_status(m);
	run = tc_state == TC_DONE ? tc_results : NULL;
	if (!run)
		goto out;
	seq_printf(m, "run %lu\nsamples %llu\nhighest %u\ndo_work %d\nblock %u\ncalib %u\n",
		   run->id, run->cfg.samples, run->cfg.highest, run->cfg.do_work,
		   TC_KMOD_BLOCK, TC_KMOD_CALIB);
	seq_printf(m, "counter %s\ncounter_khz %llu\ncpus %*pbl\n", tc_counter_name(),
		   tc_counter_khz(), cpumask_pr_args(run->cfg.cpus));
	for (i = 0; i < run->nr_cpus; i++) {
		const struct tc_cpu *c = &run->cpu[i];

		for (p = 0; p < TC_NR_KPAIRS; p++) {
			const struct tc_hist *h = c->hist[p];
			const struct tc_topn *t = c->top[p];

			if (!h)
				continue;
			seq_printf(m, "cell %d %s n %llu min %llu max %llu overflow %llu sum %llu %llu"
				   " clamped %llu omin %llu omax %llu\n", c->cpu, pair_names[p],
				   h->n, h->n ? h->min : 0, h->max, h->overflow, h->sum_hi,
				   h->sum_lo, c->clamped[p], h->n ? c->o_min[p] : 0, c->o_max[p]);
			seq_puts(m, "b");
			for (j = 0; j < TC_HIST_NR_BUCKETS; j++)
				if (h->counts[j])
					seq_printf(m, " %u:%llu", j, h->counts[j]);
			seq_puts(m, "\nt");
			for (j = 0; j < t->len; j++)
				seq_printf(m, " %llu", t->v[j]);
			seq_putc(m, '\n');
		}
	}
	seq_puts(m, "end\n");
out:
	mutex_unlock(&tc_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(results);

static int __init tracecost_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		spin_lock_init(per_cpu_ptr(&tc_spin, cpu));
		*per_cpu_ptr(&tc_work_state, cpu) = cpu + 1;
	}
	if (!zalloc_cpumask_var(&tc_cfg.cpus, GFP_KERNEL))
		return -ENOMEM;
	tc_dir = debugfs_create_dir(TC_KMOD_DIR, NULL);
	if (IS_ERR(tc_dir)) {
		free_cpumask_var(tc_cfg.cpus);
		return PTR_ERR(tc_dir);
	}
	debugfs_create_file("samples", 0600, tc_dir, (void *)F_SAMPLES, &cfg_fops);
	debugfs_create_file("highest", 0600, tc_dir, (void *)F_HIGHEST, &cfg_fops);
	debugfs_create_file("pairs", 0600, tc_dir, (void *)F_PAIRS, &cfg_fops);
	debugfs_create_file("cpus", 0600, tc_dir, (void *)F_CPUS, &cfg_fops);
	debugfs_create_file("do_work", 0600, tc_dir, (void *)F_DO_WORK, &cfg_fops);
	debugfs_create_file("run", 0200, tc_dir, NULL, &run_fops);
	debugfs_create_file("status", 0400, tc_dir, NULL, &status_fops);
	debugfs_create_file("results", 0400, tc_dir, NULL, &results_fops);
	complete(&tc_ctrl_done);
	return 0;
}

static void __exit tracecost_exit(void)
{
	/* No new run can start once the files are gone (debugfs waits for writers). */
	debugfs_remove_recursive(tc_dir);
	WRITE_ONCE(tc_cancel, true);
	wait_for_completion(&tc_ctrl_done);
	free_run(tc_results);
	free_cpumask_var(tc_cfg.cpus);
}

module_init(tracecost_init);
module_exit(tracecost_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracecost: cost of irq/preempt/bh/rcu/spinlock pairs, with and without tracing");
