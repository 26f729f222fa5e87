// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sampling engine: every sample accounted for (per cell, per CPU, per
 * repetition), snapshots consistent with the merged cells, the recording
 * probe's event count exact (static+ and static+q: the memb and the QSBR
 * dispatch in the sampler's workers), raw rows consistent, bad
 * configurations refused, an early stop reported, the stop callback run
 * before the workers are joined. No timing is asserted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>

#include <tracecost/sampler.h>

static const struct tc_subject *const subjects[] = {
	&tc_subject_stock, &tc_subject_call, &tc_subject_callp,
	&tc_subject_static, &tc_subject_staticp, &tc_subject_staticq,
};
#define NR_SUBJECTS	((int)(sizeof(subjects) / sizeof(subjects[0])))
static const int pairs[] = { TC_PAIR_IRQ, TC_PAIR_PREEMPT, TC_PAIR_IRQ_SAVE };

static struct tc_sampler_config base(const int *cpus, int nr_cpus)
{
	return (struct tc_sampler_config){
		.cpus = cpus, .nr_cpus = nr_cpus, .subjects = subjects, .nr_subjects = NR_SUBJECTS,
		.pairs = pairs, .nr_pairs = 3, .samples = 1500, .batch = 1,
		.highest = 10, .repeat = 2,
	};
}

static void check_run(const int *cpus, int nr_cpus, int do_work, unsigned int batch)
{
	struct tc_sampler_config cfg = base(cpus, nr_cpus);
	struct tc_sampler_result res;
	uint64_t per_thread, i;
	int c, s;

	cfg.do_work = do_work;
	cfg.batch = batch;
	cfg.raw_max = 100;
	assert_int_equal(tc_sampler_run(&cfg, &res), 0);
	assert_false(res.interrupted);
	for (c = 0; c < NR_SUBJECTS * 3; c++) {
		const struct tc_cell *cell = &res.cells[c];
		uint64_t n = 0, sum = 0;
		int k;

		assert_int_equal(cell->hist->n, cfg.samples * cfg.repeat * (uint64_t)nr_cpus);
		assert_true(cell->hist->min <= cell->hist->max);
		assert_true(cell->top->len == 10);
		for (k = 0; k < (int)cfg.repeat * nr_cpus; k++) {
			const struct tc_snapshot *sn = &cell->snap[k];
			uint64_t bsum = 0;
			tc_u32 j;

			assert_int_equal(sn->n, cfg.samples);
			assert_int_equal(sn->rep, k / nr_cpus);
			assert_int_equal(sn->cpu, cpus[k % nr_cpus]);
			for (j = 0; j < sn->nr; j++)
				bsum += sn->cnt[j];
			assert_int_equal(bsum + sn->overflow, sn->n);
			assert_true(sn->overhead_min <= sn->overhead_max);
			n += sn->n;
			sum += sn->sum_lo;
		}
		assert_int_equal(n, cell->hist->n);
		assert_int_equal(sum, cell->hist->sum_lo);
	}
	/* 2 events per pair and sample, 3 pairs; rings of TC_SAMPLER_RING_EVENTS */
	per_thread = 6 * cfg.samples * cfg.repeat * (uint64_t)cfg.batch;
	for (s = 0; s < NR_SUBJECTS; s++) {
		if (subjects[s]->probes) {
			assert_int_equal(res.events[s], per_thread * (uint64_t)nr_cpus);
			assert_int_equal(res.overruns[s],
					 (per_thread - TC_SAMPLER_RING_EVENTS) * (uint64_t)nr_cpus);
		} else {
			assert_int_equal(res.events[s], 0);
		}
	}
	assert_int_equal(res.nr_raw, 100);
	for (i = 0; i < res.nr_raw; i++) {
		const struct tc_raw_row *r = &res.raw[i];

		assert_int_equal(r->ticks, r->raw > r->overhead ? r->raw - r->overhead : 0);
		assert_true(r->subject < NR_SUBJECTS && r->pair < 3 && r->rep < 2);
	}
	tc_sampler_result_free(&res);
}

static void test_one_cpu(void **state)
{
	int cpu = 0;

	check_run(&cpu, 1, 0, 1);
}

static void test_all_cpus_work_batch(void **state)
{
	int cpus[2] = { 0, 1 };
	int n = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;

	check_run(cpus, n, 1, 4);
}

static void test_bad_config(void **state)
{
	int cpu = 0, bad_cpu = -1, bad_pair[] = { 7 };
	struct tc_sampler_config cfg = base(&cpu, 1);
	struct tc_sampler_result res;

	cfg.samples = 0;
	assert_int_equal(tc_sampler_run(&cfg, &res), -EINVAL);
	cfg = base(&bad_cpu, 1);
	assert_int_equal(tc_sampler_run(&cfg, &res), -EINVAL);
	cfg = base(&cpu, 1);
	cfg.pairs = bad_pair;
	cfg.nr_pairs = 1;
	assert_int_equal(tc_sampler_run(&cfg, &res), -EINVAL);
	cfg = base(&cpu, 1);
	cfg.batch = 0;
	assert_int_equal(tc_sampler_run(&cfg, &res), -EINVAL);
}

static void test_stop(void **state)
{
	int cpu = 0;
	volatile sig_atomic_t stop = 1;
	struct tc_sampler_config cfg = base(&cpu, 1);
	struct tc_sampler_result res;

	cfg.stop = &stop;
	cfg.samples = 1000000000ull;
	assert_int_equal(tc_sampler_run(&cfg, &res), 0);
	assert_true(res.interrupted);
	assert_int_equal(res.cells[0].hist->n, 0);
	tc_sampler_result_free(&res);
}

/*
 * A subject whose loop raises the stop flag in its first call and counts
 * the samples it is asked for: a stop raised inside a block must end the
 * block at the next chunk (TC_SAMPLER_CHUNK_MIN samples at first), not
 * after the block's TC_SAMPLER_BLOCK samples (issue 22, item 2: a usdt+
 * block at --batch 64 ran for a minute after SIGTERM).
 */
static volatile sig_atomic_t slow_stop;
static uint64_t slow_asked;

static void slow_loop(uint64_t *out, unsigned int n, unsigned int batch)
{
	unsigned int i;

	(void)batch;
	__atomic_store_n(&slow_stop, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&slow_asked, n, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		out[i] = 100;
}

/* One column, @sub, whose every loop is @loop, on @cpu: ten blocks of samples. */
static struct tc_sampler_config one_column(struct tc_subject *sub,
					   const struct tc_subject *const *one, tc_loop_fn loop,
					   const int *cpu)
{
	struct tc_sampler_config cfg = base(cpu, 1);
	int p, k;

	for (p = 0; p < TC_NR_USER_PAIRS; p++)
		for (k = 0; k < TC_NR_LOOP_KINDS; k++)
			sub->loop[p][k] = loop;
	cfg.subjects = one;
	cfg.nr_subjects = 1;
	cfg.samples = 10ull * TC_SAMPLER_BLOCK;
	return cfg;
}

static void test_stop_inside_block(void **state)
{
	static struct tc_subject slow = { .name = "slow", .id = "slow", .hooks = "none" };
	static const struct tc_subject *const one[] = { &slow };
	int cpu = 0;
	struct tc_sampler_config cfg = one_column(&slow, one, slow_loop, &cpu);
	struct tc_sampler_result res;

	(void)state;
	slow_stop = 0;
	slow_asked = 0;
	cfg.stop = &slow_stop;
	assert_int_equal(tc_sampler_run(&cfg, &res), 0);
	assert_true(res.interrupted);
	/* one chunk of the first cell, none of the others */
	assert_int_equal(slow_asked, TC_SAMPLER_CHUNK_MIN);
	assert_true(slow_asked < TC_SAMPLER_BLOCK);
	tc_sampler_result_free(&res);
}

/*
 * @stopping runs on the calling thread before the workers end their chunk
 * (issue 22: a worker starved of CPU held a usdt+ run's "interrupted" line
 * for 1.4 s): the loop raises @stop and then waits for @stopping to release
 * it, so a sampler that joined its workers first never returns (alarm). The
 * workers block SIGINT: a handler never runs inside their timed regions.
 */
static volatile sig_atomic_t held_stop;
static int held_released, held_in_loop, held_calls, held_on_caller, held_while_looping;
static int held_sigint_blocked = -1;
static pthread_t held_caller;

static void held_loop(uint64_t *out, unsigned int n, unsigned int batch)
{
	sigset_t cur;
	unsigned int i;

	(void)batch;
	if (!pthread_sigmask(SIG_BLOCK, NULL, &cur))
		held_sigint_blocked = sigismember(&cur, SIGINT);
	__atomic_store_n(&held_in_loop, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&held_stop, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&held_released, __ATOMIC_SEQ_CST))
		usleep(1000);
	for (i = 0; i < n; i++)
		out[i] = 100;
	__atomic_store_n(&held_in_loop, 0, __ATOMIC_SEQ_CST);
}

static void held_stopping(void *arg)
{
	assert_ptr_equal(arg, &held_caller);
	held_calls++;
	held_on_caller = pthread_equal(pthread_self(), held_caller);
	held_while_looping = __atomic_load_n(&held_in_loop, __ATOMIC_SEQ_CST);
	__atomic_store_n(&held_released, 1, __ATOMIC_SEQ_CST);
}

static void test_stopping_before_join(void **state)
{
	static struct tc_subject held = { .name = "held", .id = "held", .hooks = "none" };
	static const struct tc_subject *const one[] = { &held };
	int cpu = 0;
	struct tc_sampler_config cfg = one_column(&held, one, held_loop, &cpu);
	struct tc_sampler_result res;

	(void)state;
	held_caller = pthread_self();
	cfg.stop = &held_stop;
	cfg.stopping = held_stopping;
	cfg.stopping_arg = &held_caller;
	alarm(60);
	assert_int_equal(tc_sampler_run(&cfg, &res), 0);
	alarm(0);
	assert_true(res.interrupted);
	assert_int_equal(held_calls, 1);
	assert_true(held_on_caller);
	assert_true(held_while_looping);
	assert_int_equal(held_sigint_blocked, 1);
	tc_sampler_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_cpu),
		cmocka_unit_test(test_all_cpus_work_batch),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_stop_inside_block),
		cmocka_unit_test(test_stopping_before_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
