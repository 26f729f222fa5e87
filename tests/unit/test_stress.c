// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_stress.c - static keys and tracepoints under concurrent use.
 *
 * Three reader threads run, in a tight loop, a static-branch site and two
 * tracepoint sites, one memb tracepoint (stress) and one QSBR tracepoint
 * (stress_q, TC_DEFINE_TRACEPOINT_STATIC_QSBR), while the main thread, in a
 * seeded random order,
 *  - flips a static key (enable/disable pairs), and
 *  - registers a probe on both tracepoints, then unregisters them and calls
 *    tc_tracepoint_synchronize_unregister() (each cycle also patches the
 *    tracepoints' keys twice and waits for grace periods).
 * The readers differ in their read side: reader 0 is no QSBR reader (both
 * tracepoints take the memb path, registered lazily), reader 1 is an
 * online QSBR reader reporting a quiescent state every 32 iterations (the
 * QSBR tracepoint's fast path, racing register/unregister), reader 2 a
 * QSBR reader that goes offline every 32 iterations, yields, and comes back
 * (both paths, switching),
 * TC_STRESS_OPS (default 100000) times in total, counting one per key flip
 * and one per register/unregister cycle.
 *
 * Checks (no timing assertions):
 *  - no crash (the int3 path is taken many times);
 *  - the probe never runs outside its registration: each registration has a
 *    generation, passed as the probe's data; the main thread publishes the
 *    allowed generation before registering and clears it only after
 *    unregister + synchronize returned; a probe call whose generation is not
 *    the published one is a violation;
 *  - the static branch read between two equal even values of the flip epoch
 *    (seqlock-style: odd while a flip runs) equals that epoch's key state;
 *  - bounds: per reader, probe calls <= tracepoint executions and branch
 *    hits <= branch executions; in total both are > 0 (the main thread
 *    waits, boundedly, for the first of each), and the QSBR fast path
 *    (reader 1's calls of the QSBR probe) ran.
 * Reproduce an order with TC_TEST_SEED=<seed printed>.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <tracecost/compiler.h>
#include <tracecost/static_key.h>
#include <tracecost/tracepoint.h>
#include "helpers.h"

#define NR_READERS	3
#define QS_EVERY	32

TC_DEFINE_TRACEPOINT_STATIC(stress, TC_TP_PROTO(unsigned long seq), TC_TP_ARGS(seq));
TC_DEFINE_TRACEPOINT_STATIC_QSBR(stress_q, TC_TP_PROTO(unsigned long seq), TC_TP_ARGS(seq));
static TC_DEFINE_STATIC_KEY_FALSE(stress_key);

struct reader {
	pthread_t th;
	/* Written by the reader only (relaxed atomics: the main thread peeks). */
	unsigned long iters;		/* loop iterations = site executions */
	unsigned long key_hits;		/* static branch taken */
	unsigned long checked;		/* branch reads inside a stable epoch */
	unsigned long bad;		/* ... that disagreed with the epoch */
	unsigned long probe_calls;	/* probe calls on this thread */
	unsigned long q_calls;		/* ... of which from stress_q */
} __attribute__((aligned(64)));

static struct reader readers[NR_READERS];
static __thread struct reader *me;
static int stop;

/* Flip epoch of stress_key: odd while a flip runs; state = (epoch / 2) & 1. */
static unsigned long key_epoch;
/* Generation of the registration currently allowed to run, 0 for none. */
static unsigned long allowed_gen;
static unsigned long violations;

static void stress_probe(void *data, unsigned long seq)
{
	unsigned long gen = (unsigned long)(uintptr_t)data;

	(void)seq;
	/* Read inside the read-side section; cleared only after a grace period. */
	if (__atomic_load_n(&allowed_gen, __ATOMIC_ACQUIRE) != gen)
		__atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&me->probe_calls, me->probe_calls + 1, __ATOMIC_RELAXED);
}

static void stress_probe_q(void *data, unsigned long seq)
{
	stress_probe(data, seq);
	__atomic_store_n(&me->q_calls, me->q_calls + 1, __ATOMIC_RELAXED);
}

static tc_noinline bool key_site(void)
{
	return tc_static_branch_unlikely(&stress_key);
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	unsigned long i = 0;

	int mode = (int)(r - readers);

	me = r;
	if (mode)
		tc_thread_qsbr_register();
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long e1 = __atomic_load_n(&key_epoch, __ATOMIC_ACQUIRE), e2;
		bool v = key_site();

		e2 = __atomic_load_n(&key_epoch, __ATOMIC_ACQUIRE);
		if (v)
			__atomic_store_n(&r->key_hits, r->key_hits + 1, __ATOMIC_RELAXED);
		if (e1 == e2 && !(e1 & 1)) {
			r->checked++;
			if (v != (bool)((e1 / 2) & 1))
				r->bad++;
		}
		tc_trace_stress(i);
		tc_trace_stress_q(i);
		i++;
		__atomic_store_n(&r->iters, i, __ATOMIC_RELAXED);
		if (mode == 1 && !(i % QS_EVERY)) {
			tc_thread_quiescent();
		} else if (mode == 2 && !(i % QS_EVERY)) {
			tc_thread_offline();
			sched_yield();
			tc_trace_stress_q(i);	/* offline: the memb path */
			tc_thread_online();
		}
	}
	if (mode)
		tc_thread_qsbr_unregister();
	return NULL;
}

static unsigned long sum(size_t off)
{
	unsigned long s = 0;

	for (int i = 0; i < NR_READERS; i++)
		s += __atomic_load_n((unsigned long *)((char *)&readers[i] + off),
				     __ATOMIC_RELAXED);
	return s;
}

#define SUM(field)	sum(offsetof(struct reader, field))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits (at most 5 s) until @field's total exceeds @old; false on timeout. */
static bool wait_for(size_t off, unsigned long old)
{
	double t0 = now();

	while (sum(off) <= old) {
		if (now() - t0 > 5.0)
			return false;
		sched_yield();
	}
	return true;
}

/* Waits (at most 5 s) for the online QSBR reader's first QSBR probe call. */
static bool wait_q_fast(void)
{
	double t0 = now();

	while (!__atomic_load_n(&readers[1].q_calls, __ATOMIC_RELAXED)) {
		if (now() - t0 > 5.0)
			return false;
		sched_yield();
	}
	return true;
}

static void key_flip(bool on)
{
	__atomic_add_fetch(&key_epoch, 1, __ATOMIC_SEQ_CST);
	if (on)
		assert_int_equal(tc_static_branch_enable(&stress_key), 0);
	else
		assert_int_equal(tc_static_branch_disable(&stress_key), 0);
	__atomic_add_fetch(&key_epoch, 1, __ATOMIC_SEQ_CST);
}

static void test_stress(void **state)
{
	const char *env = getenv("TC_STRESS_OPS");
	unsigned long target = env ? strtoul(env, NULL, 0) : 100000;
	unsigned long flips = 0, cycles = 0, gen = 0, hits0 = tc_static_key_int3_hits();
	uint64_t rng = tc_test_seed(0x5eed5eedULL);
	bool waited_probe = false, waited_key = false;
	double t0 = now(), t, t_flips = 0, t_cycles = 0, t1;
	int i;

	(void)state;
	for (i = 0; i < NR_READERS; i++)
		assert_int_equal(pthread_create(&readers[i].th, NULL, reader_fn, &readers[i]), 0);
	while (SUM(iters) < 1000)
		sched_yield();

	while (flips + cycles < target) {
		if (tc_test_rand_below(&rng, 4)) {
			/* Key flip pair (3 in 4): two operations. */
			t1 = now();
			key_flip(true);
			if (!waited_key) {
				assert_true(wait_for(offsetof(struct reader, key_hits), 0));
				waited_key = true;
			}
			key_flip(false);
			flips += 2;
			t_flips += now() - t1;
		} else {
			/* Probe cycle (1 in 4). */
			unsigned long calls = SUM(probe_calls);

			t1 = now();
			gen++;
			__atomic_store_n(&allowed_gen, gen, __ATOMIC_RELEASE);
			assert_int_equal(tc_tracepoint_probe_register(&__tc_tp_stress,
					(void *)stress_probe, (void *)(uintptr_t)gen), 0);
			assert_int_equal(tc_tracepoint_probe_register(&__tc_tp_stress_q,
					(void *)stress_probe_q, (void *)(uintptr_t)gen), 0);
			if (!waited_probe) {
				assert_true(wait_for(offsetof(struct reader, probe_calls), calls));
				assert_true(wait_q_fast());
				waited_probe = true;
			}
			assert_int_equal(tc_tracepoint_probe_unregister(&__tc_tp_stress_q,
					(void *)stress_probe_q, (void *)(uintptr_t)gen), 0);
			assert_int_equal(tc_tracepoint_probe_unregister(&__tc_tp_stress,
					(void *)stress_probe, (void *)(uintptr_t)gen), 0);
			tc_tracepoint_synchronize_unregister();
			/* From here on, a call of generation gen is a violation. */
			__atomic_store_n(&allowed_gen, 0, __ATOMIC_RELEASE);
			cycles++;
			t_cycles += now() - t1;
		}
	}
	t = now() - t0;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < NR_READERS; i++)
		assert_int_equal(pthread_join(readers[i].th, NULL), 0);

	printf("# %lu key flips + %lu probe cycles = %lu ops in %.2f s "
	       "(%.1f us per flip, %.1f us per cycle)\n",
	       flips, cycles, flips + cycles, t, t_flips * 1e6 / (double)(flips ? flips : 1),
	       t_cycles * 1e6 / (double)(cycles ? cycles : 1));
	printf("# readers: %lu iterations, %lu branch hits, %lu branch reads checked, "
	       "%lu probe calls (QSBR tracepoint: %lu, %lu on the online QSBR reader); "
	       "int3 redirects %lu; violations %lu\n",
	       SUM(iters), SUM(key_hits), SUM(checked), SUM(probe_calls), SUM(q_calls),
	       readers[1].q_calls, tc_static_key_int3_hits() - hits0, violations);

	assert_int_equal(violations, 0);
	assert_true(flips + cycles >= target);
	for (i = 0; i < NR_READERS; i++) {
		struct reader *r = &readers[i];

		assert_int_equal(r->bad, 0);
		/* two tracepoints per iteration, three for reader 2 */
		assert_true(r->probe_calls <= 3 * r->iters);
		assert_true(r->q_calls <= 2 * r->iters);
		assert_true(r->key_hits <= r->iters);
	}
	assert_true(SUM(probe_calls) > 0);
	assert_true(readers[1].q_calls > 0);
	assert_true(SUM(key_hits) > 0);
	assert_true(SUM(checked) > 0);
	/* Everything is off again. */
	assert_false(tc_static_key_enabled(&stress_key));
	assert_false(tc_trace_stress_enabled());
	assert_null(__tc_tp_stress.funcs);
	assert_false(tc_trace_stress_q_enabled());
	assert_null(__tc_tp_stress_q.funcs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("stress", tests, NULL, NULL);
}
