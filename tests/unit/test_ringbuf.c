// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ringbuf.c - lib/ringbuf.c: the recording probe's per-thread rings in
 * overwrite mode read back by tc_recorder_read(): the newest events of each
 * ring, oldest first, with the arguments recorded; totals and overruns
 * agree; a thread's ring is its own; the walk stops on request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <tracecost/ringbuf.h>

struct seen {
	int n;
	unsigned long ip[64];
	unsigned long parent[64];
	int ring[64];
	uint64_t last_ts[8];
	int ordered;
};

static int collect(const struct tc_event *ev, int ring, void *arg)
{
	struct seen *s = arg;

	if (s->n >= 64)
		return 1;
	s->ip[s->n] = ev->ip;
	s->parent[s->n] = ev->parent_ip;
	s->ring[s->n] = ring;
	if (ring < 8) {
		if (ev->ts < s->last_ts[ring])
			s->ordered = 0;
		s->last_ts[ring] = ev->ts;
	}
	s->n++;
	return 0;
}

static void test_overwrite_order(void **state)
{
	struct tc_recorder *rec;
	struct seen s = { .ordered = 1 };
	uint64_t events, overruns;
	unsigned long i;

	(void)state;
	assert_int_equal(tc_recorder_create(8, &rec), 0);
	assert_int_equal(tc_recorder_read(rec, collect, &s), 0);
	assert_int_equal(s.n, 0);
	for (i = 0; i < 20; i++)
		tc_record_probe(rec, 1000 + i, 2000 + i);
	tc_recorder_totals(rec, &events, &overruns);
	assert_int_equal(events, 20);
	assert_int_equal(overruns, 12);
	assert_int_equal(tc_recorder_read(rec, collect, &s), 0);
	assert_int_equal(s.n, 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(s.ip[i], 1012 + i);
		assert_int_equal(s.parent[i], 2012 + i);
	}
	assert_true(s.ordered);
	assert_int_equal(tc_recorder_read(NULL, collect, &s), -EINVAL);
	assert_int_equal(tc_recorder_read(rec, NULL, &s), -EINVAL);
	tc_recorder_destroy(rec);
}

static int stop_at_three(const struct tc_event *ev, int ring, void *arg)
{
	int *n = arg;

	(void)ev;
	(void)ring;
	return ++*n == 3 ? 42 : 0;
}

static void *writer(void *arg)
{
	unsigned long i;

	for (i = 0; i < 5; i++)
		tc_record_probe(arg, 5000 + i, 0);
	return NULL;
}

static void test_rings_per_thread(void **state)
{
	struct tc_recorder *rec;
	struct seen s = { .ordered = 1 };
	pthread_t t;
	int i, n = 0, mine = 0, theirs = 0, ring_mine = -1, ring_theirs = -1;

	(void)state;
	assert_int_equal(tc_recorder_create(16, &rec), 0);
	tc_record_probe(rec, 1, 0);
	tc_record_probe(rec, 2, 0);
	assert_int_equal(pthread_create(&t, NULL, writer, rec), 0);
	pthread_join(t, NULL);
	assert_int_equal(tc_recorder_read(rec, collect, &s), 0);
	assert_int_equal(s.n, 7);
	/* each ring holds one thread's events only, in its order */
	for (i = 0; i < s.n; i++) {
		if (s.ip[i] < 5000) {
			assert_int_equal(s.ip[i], (unsigned long)mine + 1);
			if (mine++)
				assert_int_equal(s.ring[i], ring_mine);
			ring_mine = s.ring[i];
		} else {
			assert_int_equal(s.ip[i], 5000ul + (unsigned long)theirs);
			if (theirs++)
				assert_int_equal(s.ring[i], ring_theirs);
			ring_theirs = s.ring[i];
		}
	}
	assert_int_equal(mine, 2);
	assert_int_equal(theirs, 5);
	assert_int_not_equal(ring_mine, ring_theirs);
	assert_int_equal(tc_recorder_read(rec, stop_at_three, &n), 42);
	assert_int_equal(n, 3);
	tc_recorder_destroy(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overwrite_order),
		cmocka_unit_test(test_rings_per_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
