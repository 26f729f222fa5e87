// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/sampler.c - pinned sampler threads, barrier start, interleaved blocks.
 *
 * Threads and what they share:
 *  - the calling thread ("main") creates one worker per CPU, attaches probes
 *    while every worker waits at the start barrier, then only polls progress;
 *  - a worker owns its histograms, heaps, block buffers and snapshots; it
 *    writes nothing shared except its progress counter (relaxed atomic), the
 *    raw-row reservation index (atomic fetch-add, outside the timed loop) and
 *    its error code (read by main after the ready barrier);
 *  - workers meet at a barrier between repetitions, so every repetition
 *    starts on all CPUs together.
 * Results are merged by main after every worker was joined (pthread_join
 * orders the workers' writes before main's reads).
 *
 * RCU: a worker is a memb reader (tc_thread_register()) and a QSBR reader
 * (tc_thread_qsbr_register()) that is online only while a sample loop
 * runs (take(): online, the loop, offline), so the QSBR tracepoints of a
 * subject (static+q) dispatch with no read side inside the timed loops,
 * and a grace period never waits for a worker longer than one loop call
 * (TC_SAMPLER_CHUNK_NS): at gates, in accounting and calibration it is
 * offline. Online and offline are full barriers, outside every timed region.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracecost/ringbuf.h>
#include <tracecost/sampler.h>
#include <tracecost/tracepoint.h>

struct worker;

/*
 * A barrier that can be broken: gate_wait() is not a cancellation
 * point, so a run whose thread creation failed half-way could not release
 * the threads already waiting. All fields under @lock.
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int count, waiting, generation;
	int broken;
};

static void gate_init(struct gate *g, unsigned int count)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->count = count;
	g->waiting = 0;
	g->generation = 0;
	g->broken = 0;
}

static void gate_destroy(struct gate *g)
{
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
}

static void gate_wait(struct gate *g)
{
	unsigned int gen;

	pthread_mutex_lock(&g->lock);
	gen = g->generation;
	if (++g->waiting == g->count) {
		g->waiting = 0;
		g->generation++;
		pthread_cond_broadcast(&g->cond);
	} else {
		while (gen == g->generation && !g->broken)
			pthread_cond_wait(&g->cond, &g->lock);
	}
	pthread_mutex_unlock(&g->lock);
}

/* Release every waiter now and let every later wait pass. */
static void gate_break(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->broken = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

struct run {
	const struct tc_sampler_config *cfg;
	struct tc_sampler_result *res;
	struct tc_recorder **rec;	/* per subject, NULL if no probes */
	struct gate ready;		/* workers + main: set-up done */
	struct gate start;		/* workers + main: probes attached */
	struct gate rep;		/* workers: between repetitions */
	atomic_int abort_run;		/* set by main between ready and start */
	atomic_uint_fast64_t raw_next;	/* next free raw row */
	struct worker *w;
};

struct worker {
	struct run *run;
	pthread_t thread;
	int cpu;
	int index;
	int err;
	atomic_uint_fast64_t done;	/* samples done, for progress */
	struct tc_hist *hist;		/* [subject * nr_pairs + pair] */
	struct tc_topn **top;
	tc_u64 *clamped;
	tc_u64 *o_min, *o_max;
	uint64_t *buf;			/* TC_SAMPLER_BLOCK raw samples */
	uint64_t *calib;		/* TC_SAMPLER_CALIB empty samples */
	unsigned int *chunk;		/* [cell]: samples per loop call (take()) */
	uint64_t t_end;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The empty samples behind O: the same harness as every timed loop. */
static tc_noinline void loop_empty(uint64_t *out, unsigned int n, unsigned int batch)
{
	TC_SAMPLE_LOOP(out, n, batch, do { } while (0));
}

static tc_noinline void loop_empty_work(uint64_t *out, unsigned int n, unsigned int batch)
{
	TC_SAMPLE_LOOP(out, n, batch, tc_do_work());
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t calibrate(struct worker *w)
{
	const struct tc_sampler_config *cfg = w->run->cfg;

	if (cfg->do_work)
		loop_empty_work(w->calib, TC_SAMPLER_CALIB, cfg->batch);
	else
		loop_empty(w->calib, TC_SAMPLER_CALIB, cfg->batch);
	qsort(w->calib, TC_SAMPLER_CALIB, sizeof(uint64_t), cmp_u64);
	/* integer median (lower middle for an even count) */
	return w->calib[(TC_SAMPLER_CALIB - 1) / 2];
}

static void snapshot(struct worker *w, int rep)
{
	const struct tc_sampler_config *cfg = w->run->cfg;
	struct tc_sampler_result *res = w->run->res;
	int c, nr_cells = cfg->nr_subjects * cfg->nr_pairs;

	for (c = 0; c < nr_cells; c++) {
		struct tc_snapshot *s = &res->cells[c].snap[rep * cfg->nr_cpus + w->index];

		if (tc_snapshot_set(s, &w->hist[c], w->top[c])) {
			w->err = -ENOMEM;
			return;
		}
		s->cpu = w->cpu;
		s->rep = rep;
		s->nr_cpus = 1;
		s->clamped = w->clamped[c];
		s->overhead_min = w->o_min[c];
		s->overhead_max = w->o_max[c];
	}
}

static void reset_cells(struct worker *w)
{
	const struct tc_sampler_config *cfg = w->run->cfg;
	int c, nr_cells = cfg->nr_subjects * cfg->nr_pairs;

	for (c = 0; c < nr_cells; c++) {
		tc_hist_init(&w->hist[c]);
		tc_topn_init(w->top[c], cfg->highest);
		w->clamped[c] = 0;
		w->o_min[c] = UINT64_MAX;
		w->o_max[c] = 0;
	}
}

/* Account one block: outside the timed loop. */
static void account(struct worker *w, int rep, int s, int p, unsigned int n, uint64_t o)
{
	struct run *run = w->run;
	const struct tc_sampler_config *cfg = run->cfg;
	int c = s * cfg->nr_pairs + p;
	struct tc_hist *h = &w->hist[c];
	struct tc_topn *t = w->top[c];
	uint64_t first = 0, keep = 0;
	unsigned int i;

	if (o < w->o_min[c])
		w->o_min[c] = o;
	if (o > w->o_max[c])
		w->o_max[c] = o;
	if (cfg->raw_max && atomic_load_explicit(&run->raw_next, memory_order_relaxed) < cfg->raw_max) {
		first = atomic_fetch_add(&run->raw_next, n);
		if (first < cfg->raw_max)
			keep = cfg->raw_max - first < n ? cfg->raw_max - first : n;
	}
	for (i = 0; i < n; i++) {
		uint64_t raw = w->buf[i];
		uint64_t v = raw > o ? raw - o : 0;

		if (raw < o)
			w->clamped[c]++;
		tc_hist_add(h, v);
		tc_topn_add(t, v);
		if (i < keep) {
			struct tc_raw_row *r = &run->res->raw[first + i];

			r->cpu = (uint16_t)w->cpu;
			r->rep = (uint8_t)rep;
			r->subject = (uint8_t)s;
			r->pair = (uint8_t)cfg->pairs[p];
			r->raw = raw;
			r->overhead = o;
			r->ticks = v;
		}
	}
}

static int worker_setup(struct worker *w)
{
	const struct tc_sampler_config *cfg = w->run->cfg;
	int c, s, nr_cells = cfg->nr_subjects * cfg->nr_pairs;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return -EPERM;
	if (cfg->priority > 0) {
		struct sched_param sp = { .sched_priority = cfg->priority };

		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
			return -EPERM;
	}
	tc_thread_register();
	tc_thread_qsbr_register();
	tc_thread_offline();
	w->hist = malloc((size_t)nr_cells * sizeof(*w->hist));
	w->top = calloc((size_t)nr_cells, sizeof(*w->top));
	w->clamped = calloc((size_t)nr_cells, sizeof(*w->clamped));
	w->o_min = calloc((size_t)nr_cells, sizeof(*w->o_min));
	w->o_max = calloc((size_t)nr_cells, sizeof(*w->o_max));
	w->buf = malloc(TC_SAMPLER_BLOCK * sizeof(*w->buf));
	w->calib = malloc(TC_SAMPLER_CALIB * sizeof(*w->calib));
	w->chunk = malloc((size_t)nr_cells * sizeof(*w->chunk));
	if (!w->hist || !w->top || !w->clamped || !w->o_min || !w->o_max ||
	    !w->buf || !w->calib || !w->chunk)
		return -ENOMEM;
	for (c = 0; c < nr_cells; c++)
		w->chunk[c] = TC_SAMPLER_CHUNK_MIN;
	for (c = 0; c < nr_cells; c++) {
		w->top[c] = malloc(TC_TOPN_SIZE(cfg->highest));
		if (!w->top[c])
			return -ENOMEM;
	}
	for (s = 0; s < cfg->nr_subjects; s++) {
		if (w->run->rec[s] && tc_recorder_thread_init(w->run->rec[s]))
			return -ENOMEM;
	}
	/* Touch every page now, not in the first timed block. */
	memset(w->buf, 0, TC_SAMPLER_BLOCK * sizeof(*w->buf));
	memset(w->calib, 0, TC_SAMPLER_CALIB * sizeof(*w->calib));
	reset_cells(w);
	return 0;
}

static void worker_free(struct worker *w)
{
	const struct tc_sampler_config *cfg = w->run->cfg;
	int c, nr_cells = cfg->nr_subjects * cfg->nr_pairs;

	if (w->top)
		for (c = 0; c < nr_cells; c++)
			free(w->top[c]);
	free(w->top);
	free(w->hist);
	free(w->clamped);
	free(w->o_min);
	free(w->o_max);
	free(w->buf);
	free(w->calib);
	free(w->chunk);
}

/* Set by a signal handler, or by another thread: read as a relaxed atomic. */
static int stopped(const struct tc_sampler_config *cfg)
{
	return cfg->stop && __atomic_load_n(cfg->stop, __ATOMIC_RELAXED);
}

/*
 * The @n samples of one cell into w->buf, in calls of at most
 * w->chunk[@cell] samples with a look at @stop between them, so that a
 * signal is noticed within about TC_SAMPLER_CHUNK_NS however slow a sample
 * is (a uprobe trap per pair, --batch 64: 10^4 samples take seconds). The
 * chunk adapts to the cell: doubled while a call takes under a quarter of
 * the target, halved above twice it. The clock is read between calls only,
 * outside every timed region; each sample is timed inside the loop as before.
 * Return: the samples taken (< @n when stopped).
 */
static unsigned int take(struct worker *w, tc_loop_fn loop, int cell, unsigned int n,
			 unsigned int batch, const struct tc_sampler_config *cfg)
{
	unsigned int done = 0, c = w->chunk[cell], m;
	uint64_t t0, dt;

	while (done < n && !stopped(cfg)) {
		m = n - done < c ? n - done : c;
		t0 = now_ns();
		tc_thread_online();
		loop(w->buf + done, m, batch);
		tc_thread_offline();
		dt = now_ns() - t0;
		done += m;
		if (m == c) {
			if (dt < TC_SAMPLER_CHUNK_NS / 4 && c < TC_SAMPLER_BLOCK)
				c *= 2;
			else if (dt > TC_SAMPLER_CHUNK_NS * 2 && c > 1)
				c /= 2;
		}
	}
	w->chunk[cell] = c;
	return done;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;
	const struct tc_sampler_config *cfg = run->cfg;
	unsigned int rep;

	w->err = worker_setup(w);
	gate_wait(&run->ready);
	gate_wait(&run->start);
	if (atomic_load(&run->abort_run))
		goto out;

	for (rep = 0; rep < cfg->repeat; rep++) {
		uint64_t left = cfg->samples, block = 0;

		while (left && !stopped(cfg)) {
			unsigned int n = left < TC_SAMPLER_BLOCK ? (unsigned int)left : TC_SAMPLER_BLOCK;
			uint64_t o = calibrate(w);
			int k, p;

			for (p = 0; p < cfg->nr_pairs; p++) {
				int kind = cfg->do_work ? TC_LOOP_WORK : TC_LOOP_PLAIN;

				for (k = 0; k < cfg->nr_subjects; k++) {
					int s = (int)((k + block) % (uint64_t)cfg->nr_subjects);
					const struct tc_subject *sub = cfg->subjects[s];
					unsigned int got;

					got = take(w, sub->loop[cfg->pairs[p]][kind],
						   s * cfg->nr_pairs + p, n, cfg->batch, cfg);
					if (got < n)
						break;	/* stopped: no result */
					account(w, (int)rep, s, p, n, o);
				}
			}
			left -= n;
			block++;
			atomic_fetch_add_explicit(&w->done, n, memory_order_relaxed);
		}
		snapshot(w, (int)rep);
		reset_cells(w);
		gate_wait(&run->rep);
	}
out:
	w->t_end = now_ns();
	tc_thread_qsbr_unregister();
	tc_thread_unregister();
	return NULL;
}

static int attach_probes(struct run *run)
{
	const struct tc_sampler_config *cfg = run->cfg;
	int s, t, err;

	for (s = 0; s < cfg->nr_subjects; s++) {
		const struct tc_subject *sub = cfg->subjects[s];

		if (!sub->probes)
			continue;
		err = tc_recorder_create(TC_SAMPLER_RING_EVENTS, &run->rec[s]);
		if (err)
			return err;
		for (t = 0; t < TC_NR_SUBJECT_TPS; t++) {
			if (!sub->tp[t])
				continue;
			err = tc_tracepoint_probe_register(sub->tp[t], (void *)tc_record_probe,
							   run->rec[s]);
			if (err)
				return err;
		}
	}
	return 0;
}

static void detach_probes(struct run *run)
{
	const struct tc_sampler_config *cfg = run->cfg;
	int s, t;

	for (s = 0; s < cfg->nr_subjects; s++) {
		const struct tc_subject *sub = cfg->subjects[s];

		if (!run->rec[s])
			continue;
		for (t = 0; t < TC_NR_SUBJECT_TPS; t++)
			if (sub->tp[t])
				tc_tracepoint_probe_unregister(sub->tp[t], (void *)tc_record_probe,
							       run->rec[s]);
	}
	tc_tracepoint_synchronize_unregister();
	for (s = 0; s < cfg->nr_subjects; s++) {
		if (!run->rec[s])
			continue;
		tc_recorder_totals(run->rec[s], &run->res->events[s], &run->res->overruns[s]);
		tc_recorder_destroy(run->rec[s]);
		run->rec[s] = NULL;
	}
}

static int check_config(const struct tc_sampler_config *cfg)
{
	int i;

	if (cfg->nr_cpus < 1 || cfg->nr_subjects < 1 || cfg->nr_subjects > 255 ||
	    cfg->nr_pairs < 1 || !cfg->samples || !cfg->batch || !cfg->highest ||
	    !cfg->repeat || cfg->repeat > 255)
		return -EINVAL;
	for (i = 0; i < cfg->nr_pairs; i++)
		if (cfg->pairs[i] < 0 || cfg->pairs[i] >= TC_NR_USER_PAIRS)
			return -EINVAL;
	for (i = 0; i < cfg->nr_cpus; i++)
		if (cfg->cpus[i] < 0 || cfg->cpus[i] >= CPU_SETSIZE)
			return -EINVAL;
	return 0;
}

static int alloc_result(const struct tc_sampler_config *cfg, struct tc_sampler_result *res)
{
	int nr_cells = cfg->nr_subjects * cfg->nr_pairs;

	memset(res, 0, sizeof(*res));
	res->nr_subjects = cfg->nr_subjects;
	res->nr_pairs = cfg->nr_pairs;
	res->nr_cpus = cfg->nr_cpus;
	res->repeat = (int)cfg->repeat;
	res->cells = tc_cells_alloc(nr_cells, (int)cfg->repeat * cfg->nr_cpus, cfg->highest);
	res->events = calloc((size_t)cfg->nr_subjects, sizeof(*res->events));
	res->overruns = calloc((size_t)cfg->nr_subjects, sizeof(*res->overruns));
	if (!res->cells || !res->events || !res->overruns)
		return -ENOMEM;
	if (cfg->raw_max) {
		res->raw = calloc(cfg->raw_max, sizeof(*res->raw));
		if (!res->raw)
			return -ENOMEM;
	}
	return 0;
}

struct tc_cell *tc_cells_alloc(int nr, int nr_snap, unsigned int highest)
{
	struct tc_cell *cells = calloc((size_t)nr, sizeof(*cells));
	int c;

	if (!cells)
		return NULL;
	for (c = 0; c < nr; c++) {
		struct tc_cell *cell = &cells[c];

		cell->hist = malloc(sizeof(*cell->hist));
		cell->top = malloc(TC_TOPN_SIZE(highest));
		cell->snap = calloc((size_t)nr_snap, sizeof(*cell->snap));
		if (!cell->hist || !cell->top || !cell->snap) {
			tc_cells_free(cells, nr, nr_snap);
			return NULL;
		}
		tc_hist_init(cell->hist);
		tc_topn_init(cell->top, highest);
		cell->overhead_min = UINT64_MAX;
	}
	return cells;
}

void tc_cells_free(struct tc_cell *cells, int nr, int nr_snap)
{
	int c, i;

	if (!cells)
		return;
	for (c = 0; c < nr; c++) {
		struct tc_cell *cell = &cells[c];

		if (cell->snap)
			for (i = 0; i < nr_snap; i++)
				tc_snapshot_free(&cell->snap[i]);
		free(cell->snap);
		free(cell->hist);
		free(cell->top);
	}
	free(cells);
}

void tc_cells_merge(struct tc_cell *cells, int nr, int nr_snap)
{
	int c, i;

	for (c = 0; c < nr; c++) {
		struct tc_cell *cell = &cells[c];

		for (i = 0; i < nr_snap; i++) {
			const struct tc_snapshot *s = &cell->snap[i];

			if (!s->n)
				continue;
			tc_snapshot_add(cell->hist, cell->top, s, 1);
			cell->clamped += s->clamped;
			if (s->overhead_min < cell->overhead_min)
				cell->overhead_min = s->overhead_min;
			if (s->overhead_max > cell->overhead_max)
				cell->overhead_max = s->overhead_max;
		}
	}
}

int tc_sampler_run(const struct tc_sampler_config *cfg, struct tc_sampler_result *res)
{
	struct run run = { .cfg = cfg, .res = res };
	sigset_t mask, old_mask;
	uint64_t total, t_start;
	int i, err, started = 0;

	err = check_config(cfg);
	if (err)
		return err;
	err = alloc_result(cfg, res);
	if (err)
		goto fail;
	run.rec = calloc((size_t)cfg->nr_subjects, sizeof(*run.rec));
	run.w = calloc((size_t)cfg->nr_cpus, sizeof(*run.w));
	if (!run.rec || !run.w) {
		err = -ENOMEM;
		goto fail;
	}
	gate_init(&run.ready, (unsigned int)cfg->nr_cpus + 1);
	gate_init(&run.start, (unsigned int)cfg->nr_cpus + 1);
	gate_init(&run.rep, (unsigned int)cfg->nr_cpus);

	/* Probes first: workers allocate their rings for these recorders. */
	err = attach_probes(&run);
	if (err) {
		detach_probes(&run);
		goto fail_barriers;
	}
	/*
	 * The workers block every asynchronous signal (they inherit this
	 * thread's mask): a handler then runs on a thread of the caller, never
	 * inside a timed region, and wakes this thread's wait below at once.
	 * Faults (SIGSEGV, SIGBUS, ...) are delivered whatever the mask.
	 */
	sigfillset(&mask);
	pthread_sigmask(SIG_BLOCK, &mask, &old_mask);
	for (i = 0; i < cfg->nr_cpus; i++) {
		run.w[i].run = &run;
		run.w[i].cpu = cfg->cpus[i];
		run.w[i].index = i;
		err = -pthread_create(&run.w[i].thread, NULL, worker_main, &run.w[i]);
		if (err)
			break;
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (started < cfg->nr_cpus) {
		/* Let the started ones through every gate with abort set. */
		atomic_store(&run.abort_run, 1);
		gate_break(&run.ready);
		gate_break(&run.start);
		for (i = 0; i < started; i++)
			pthread_join(run.w[i].thread, NULL);
		detach_probes(&run);
		goto fail_workers;
	}
	gate_wait(&run.ready);
	for (i = 0; i < cfg->nr_cpus; i++) {
		if (run.w[i].err) {
			err = run.w[i].err;
			atomic_store(&run.abort_run, 1);
			break;
		}
	}
	t_start = now_ns();
	gate_wait(&run.start);

	total = cfg->samples * cfg->repeat * (uint64_t)cfg->nr_cpus;
	for (;;) {
		struct timespec req = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
		uint64_t done = 0;

		for (i = 0; i < cfg->nr_cpus; i++)
			done += atomic_load_explicit(&run.w[i].done, memory_order_relaxed);
		if (done >= total || atomic_load(&run.abort_run) || stopped(cfg))
			break;
		if (cfg->progress)
			cfg->progress(cfg->progress_arg, (double)done / (double)total);
		nanosleep(&req, NULL);	/* EINTR: a signal, look now */
	}
	/* before the joins: a worker's last chunk can take seconds */
	if (stopped(cfg) && cfg->stopping)
		cfg->stopping(cfg->stopping_arg);
	for (i = 0; i < cfg->nr_cpus; i++) {
		pthread_join(run.w[i].thread, NULL);
		if (!err && run.w[i].err)
			err = run.w[i].err;
		if (run.w[i].t_end - t_start > res->elapsed_ns)
			res->elapsed_ns = run.w[i].t_end - t_start;
	}
	detach_probes(&run);
	res->interrupted = stopped(cfg) ? 1 : 0;
	if (!err) {
		tc_cells_merge(res->cells, cfg->nr_subjects * cfg->nr_pairs,
			       (int)cfg->repeat * cfg->nr_cpus);
		res->nr_raw = atomic_load(&run.raw_next);
		if (res->nr_raw > cfg->raw_max)
			res->nr_raw = cfg->raw_max;
	}
fail_workers:
	for (i = 0; i < cfg->nr_cpus; i++)
		worker_free(&run.w[i]);
fail_barriers:
	gate_destroy(&run.ready);
	gate_destroy(&run.start);
	gate_destroy(&run.rep);
fail:
	free(run.rec);
	free(run.w);
	if (err)
		tc_sampler_result_free(res);
	return err;
}

void tc_sampler_result_free(struct tc_sampler_result *res)
{
	tc_cells_free(res->cells, res->nr_subjects * res->nr_pairs, res->repeat * res->nr_cpus);
	free(res->events);
	free(res->overruns);
	free(res->raw);
	memset(res, 0, sizeof(*res));
}
