/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/sampler.h - the sampling engine shared by every suite.
 *
 * One thread per selected CPU, pinned, all released together by a barrier.
 * Each takes @samples samples of every pair x configuration per repetition,
 * interleaved in blocks of TC_SAMPLER_BLOCK samples so that drift (frequency,
 * temperature, other load) hits every column alike; the configuration that
 * goes first rotates from block to block.
 *
 * A sample is (t1 - t0) - O, clamped at 0, where t0/t1 are tc_clock_read()
 * and O is the integer median of TC_SAMPLER_CALIB empty samples taken on the
 * same CPU with the same loop (and the same --do-work body) at the start of
 * every block. Samples go into a per-thread histogram + top-N heap (hist.h),
 * so memory does not grow with @samples.
 */
#ifndef TRACECOST_SAMPLER_H
#define TRACECOST_SAMPLER_H

#include <signal.h>
#include <stdint.h>
#include <tracecost/hist.h>
#include <tracecost/snapshot.h>
#include <tracecost/subject.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_SAMPLER_BLOCK	10000u	/* samples per pair x configuration per block */
#define TC_SAMPLER_CALIB	10000u	/* empty samples behind each O */
#define TC_SAMPLER_RING_EVENTS	4096u	/* per-thread ring of the recording probe */
/*
 * A block's samples of one cell are taken in calls of about this many ns
 * (at least TC_SAMPLER_CHUNK_MIN samples at first), with a look at
 * tc_sampler_config.stop between calls: a stop is seen within ~2x this.
 */
#define TC_SAMPLER_CHUNK_NS	20000000ull
#define TC_SAMPLER_CHUNK_MIN	16u

struct tc_recorder;

/**
 * struct tc_cell - one pair x configuration over the whole run
 * @hist, @top:	 merged over every CPU and repetition (exact)
 * @clamped:	 samples clamped to 0 (raw difference below O)
 * @overhead_min, @overhead_max: range of O over all blocks, ticks
 * @snap:	 [rep * nr_cpus + cpu_index]
 */
struct tc_cell {
	struct tc_hist *hist;
	struct tc_topn *top;
	tc_u64 clamped;
	tc_u64 overhead_min, overhead_max;
	struct tc_snapshot *snap;
};

/** struct tc_raw_row - one row of --raw output */
struct tc_raw_row {
	uint16_t cpu;
	uint8_t rep;
	uint8_t subject;
	uint8_t pair;
	uint64_t raw;
	uint64_t overhead;
	uint64_t ticks;
};

/**
 * struct tc_sampler_config - what to run
 * @cpus, @nr_cpus:	CPUs, one pinned thread each
 * @subjects:		configurations (columns), @nr_subjects of them
 * @pairs:		pair indices to run, @nr_pairs of them
 * @samples:		per pair x configuration x CPU x repetition, >= 1
 * @batch:		pairs per sample, >= 1
 * @highest:		top-N capacity (max_avg), >= 1
 * @repeat:		repetitions, >= 1
 * @do_work:		put tc_do_work() inside every pair
 * @priority:		SCHED_FIFO priority, 0 for none
 * @raw_max:		rows of raw samples to keep (0: none)
 * @stop:		set asynchronously (SIGINT) to end the run early
 * @progress:		if set, called from the calling thread about every
 *			200 ms with the fraction done
 * @stopping:		if set, called once from the calling thread as soon as
 *			it sees @stop (at once when the signal handler ran on
 *			it: the workers block every asynchronous signal), before
 *			it waits for the workers to end their current chunk of
 *			samples, which a worker starved of CPU can stretch to
 *			seconds: to say so and to undo what needs no worker
 *			(e.g. remove uprobes). The workers may still be running
 *			the subjects' loops while it runs.
 */
struct tc_sampler_config {
	const int *cpus;
	int nr_cpus;
	const struct tc_subject *const *subjects;
	int nr_subjects;
	const int *pairs;
	int nr_pairs;
	uint64_t samples;
	unsigned int batch;
	unsigned int highest;
	unsigned int repeat;
	int do_work;
	int priority;
	uint64_t raw_max;
	volatile sig_atomic_t *stop;
	void (*progress)(void *arg, double fraction);
	void *progress_arg;
	void (*stopping)(void *arg);
	void *stopping_arg;
};

/**
 * struct tc_sampler_result - what a run produced
 * @cells:	[subject * nr_pairs + pair_index]
 * @events, @overruns: per subject, from the recording probe ("+" columns)
 * @raw, @nr_raw: kept raw rows
 * @interrupted: the run was stopped through @stop
 * @elapsed_ns: wall time between release and the last thread's end
 */
struct tc_sampler_result {
	int nr_subjects, nr_pairs, nr_cpus, repeat;
	struct tc_cell *cells;
	uint64_t *events;
	uint64_t *overruns;
	struct tc_raw_row *raw;
	uint64_t nr_raw;
	int interrupted;
	uint64_t elapsed_ns;
};

/**
 * tc_sampler_run() - run the sampler
 * @cfg: what to run (not modified)
 * @res: filled in; release with tc_sampler_result_free()
 *
 * Attaches the recording probe to the tracepoints of every subject with
 * @probes set, and detaches it (with a grace period) before returning; both
 * while the sampler threads are not running.
 *
 * Return: 0 (also when stopped early: see @res->interrupted), -EINVAL for a
 * bad @cfg, -ENOMEM, -EPERM when SCHED_FIFO or pinning was refused (needs
 * CAP_SYS_NICE / a CPU in the affinity mask), or another negative errno from
 * thread creation or probe registration.
 */
int tc_sampler_run(const struct tc_sampler_config *cfg, struct tc_sampler_result *res);

/**
 * tc_cells_alloc() - @nr empty cells, each with @nr_snap zeroed snapshot slots
 * and a top-N heap of capacity @highest
 * Return: the cells, or NULL on allocation failure. Any suite that collects
 * snapshots (the sampler, the kernel module's results) fills them the same way.
 */
struct tc_cell *tc_cells_alloc(int nr, int nr_snap, unsigned int highest);

/** tc_cells_merge() - merge every cell's snapshots into its whole-run figures (exact) */
void tc_cells_merge(struct tc_cell *cells, int nr, int nr_snap);

/** tc_cells_free() - free cells, their snapshots' arrays and heaps (NULL is fine) */
void tc_cells_free(struct tc_cell *cells, int nr, int nr_snap);
void tc_sampler_result_free(struct tc_sampler_result *res);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_SAMPLER_H */
