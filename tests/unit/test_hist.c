// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hist.c - histogram, top-N heap and statistics against brute force.
 *
 * Every figure of tc_stats_compute() and every rank query is compared with the
 * value taken from a sorted copy of the samples, on random data of several
 * sizes and shapes. Reproduce a failure with TC_TEST_SEED=<seed printed>.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <tracecost/compiler.h>
#include <tracecost/hist.h>
#include <tracecost/stats.h>
#include "helpers.h"

typedef unsigned __int128 u128;

static uint64_t base_seed;

#define U64(x)	((unsigned long long)(x))

/* Fail with context when two u64 differ. */
#define CHECK_EQ(got, want, ctx)					\
	do {								\
		uint64_t chk_got = (got), chk_want = (want);		\
		if (chk_got != chk_want)				\
			fail_msg("%s: %s = %llu, expected %llu", (ctx),	\
				 #got, U64(chk_got), U64(chk_want));	\
	} while (0)

#define CHECK(cond, ctx)						\
	do {								\
		if (!(cond))						\
			fail_msg("%s: %s", (ctx), #cond);		\
	} while (0)

/* Per-test PRNG state, derived from the seed and a per-test constant. */
static uint64_t test_state(uint64_t salt)
{
	uint64_t st = base_seed ^ (salt * 0x9E3779B97F4A7C15ULL);

	return st ? st : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Bucket index from the layout's definition, written independently of hist.h. */
static uint32_t ref_bucket(uint64_t v)
{
	unsigned int e = 0;

	if (v < 4096)
		return (uint32_t)v;
	while ((v >> e) > 1)
		e++;
	return 4096 + (e - 12) * 256 +
	       (uint32_t)((v - (1ULL << e)) / (1ULL << (e - 8)));
}

static struct tc_topn *topn_new(uint32_t cap)
{
	struct tc_topn *t = malloc(TC_TOPN_SIZE(cap));

	assert_non_null(t);
	/* Garbage in the array: init must not rely on it being zeroed. */
	memset(t, 0xA5, TC_TOPN_SIZE(cap));
	tc_topn_init(t, cap);
	return t;
}

static struct tc_hist *hist_new(void)
{
	struct tc_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	memset(h, 0x5A, sizeof(*h));
	tc_hist_init(h);
	return h;
}

static uint64_t *sorted_heap(const struct tc_topn *t)
{
	uint64_t *c = malloc((t->len + 1) * sizeof(*c));

	assert_non_null(c);
	memcpy(c, t->v, t->len * sizeof(*c));
	qsort(c, t->len, sizeof(*c), cmp_u64);
	return c;
}

/* @t holds exactly the min(cap, n) largest of the @n @sorted samples, as a min-heap. */
static void check_heap(const struct tc_topn *t, const uint64_t *sorted, uint64_t n,
		       const char *ctx)
{
	uint64_t want = n < t->cap ? n : t->cap;
	uint64_t *c;
	uint32_t i;

	CHECK_EQ(t->len, want, ctx);
	for (i = 1; i < t->len; i++)
		CHECK(t->v[(i - 1) / 2] <= t->v[i], ctx);
	c = sorted_heap(t);
	for (i = 0; i < t->len; i++)
		CHECK_EQ(c[i], sorted[n - t->len + i], ctx);
	free(c);
}

/* ceil(P * n / 10^8) clamped to [1, n], P = percentile in millionths. */
static uint64_t ref_rank(uint64_t n, uint64_t p_millionths)
{
	u128 r = ((u128)p_millionths * n + 99999999) / 100000000;

	if (r < 1)
		r = 1;
	return r > n ? n : (uint64_t)r;
}

/*
 * Expected tc_stats_value_range() from the sorted samples: exact at rank 1
 * (min), n (max) and among the heap's @heap_len largest values; otherwise the
 * sample's bucket ([TC_HIST_LIMIT, max] for an overflow sample) cut to
 * [min, max] and to at most the heap's smallest value; exact when that leaves
 * one value. Returns the lower end, *@upper the upper end.
 */
static uint64_t expect_range(const uint64_t *sorted, uint64_t n, uint64_t rank,
			     uint32_t heap_len, uint64_t *upper)
{
	uint64_t v = sorted[rank - 1], lo, hi;

	if (rank == 1 || rank == n || (heap_len && rank > n - heap_len)) {
		*upper = v;
		return v;
	}
	if (v >= TC_HIST_LIMIT) {
		lo = TC_HIST_LIMIT;
		hi = sorted[n - 1];
	} else {
		uint32_t bv = tc_hist_bucket(v);
		uint64_t a = 0, b = v;

		/* the bucket's ends by bisection on tc_hist_bucket(), not its formula */
		while (a < b) {
			uint64_t m = a + (b - a) / 2;

			if (tc_hist_bucket(m) == bv)
				b = m;
			else
				a = m + 1;
		}
		lo = a;
		a = v;
		b = TC_HIST_LIMIT - 1;
		while (a < b) {
			uint64_t m = a + (b - a + 1) / 2;

			if (tc_hist_bucket(m) == bv)
				a = m;
			else
				b = m - 1;
		}
		hi = a;
	}
	if (lo < sorted[0])
		lo = sorted[0];
	if (hi > sorted[n - 1])
		hi = sorted[n - 1];
	if (heap_len && hi > sorted[n - heap_len])
		hi = sorted[n - heap_len];
	*upper = hi;
	return lo;
}

static uint64_t expect_at_rank(const uint64_t *sorted, uint64_t n, uint64_t rank,
			       uint32_t heap_len, bool *exact)
{
	uint64_t hi, lo = expect_range(sorted, n, rank, heap_len, &hi);

	*exact = lo == hi;
	return lo;
}

/* A figure said to be inexact is a lower bound within 1/256 of the true value. */
static void check_rel_error(uint64_t got, uint64_t truth, const char *ctx)
{
	if (truth >= TC_HIST_LIMIT)
		return;
	CHECK(got <= truth, ctx);
	CHECK((truth - got) * 256 <= truth, ctx);
}

/* ---------------------------------------------------------------- layout */

static void test_bucket_exact_region(void **state tc_unused)
{
	uint32_t v;

	for (v = 0; v < TC_HIST_EXACT; v++) {
		assert_int_equal(tc_hist_bucket(v), v);
		assert_int_equal(tc_hist_bucket_lower(v), v);
	}
	assert_int_equal(tc_hist_bucket(TC_HIST_EXACT), TC_HIST_EXACT);
	/* First log-linear power of two: width 16. */
	assert_int_equal(tc_hist_bucket(4096 + 15), 4096);
	assert_int_equal(tc_hist_bucket(4096 + 16), 4097);
	assert_int_equal(TC_HIST_NR_BUCKETS, 12288);
	assert_int_equal(sizeof(struct tc_hist), 6 * 8 + 96 * 1024);
}

/* Every bucket: lower bound strictly increasing, round trip, upper edge. */
static void test_bucket_roundtrip(void **state tc_unused)
{
	uint64_t prev = 0;
	uint32_t i;

	for (i = 0; i < TC_HIST_NR_BUCKETS; i++) {
		uint64_t lo = tc_hist_bucket_lower(i);

		if (i)
			assert_true(lo > prev);
		assert_int_equal(tc_hist_bucket(lo), i);
		assert_int_equal(ref_bucket(lo), i);
		if (i) {
			/* The value just below is the top of the previous bucket. */
			assert_int_equal(tc_hist_bucket(lo - 1), i - 1);
			assert_int_equal(ref_bucket(lo - 1), i - 1);
		}
		prev = lo;
	}
	assert_true(prev < TC_HIST_LIMIT);
	assert_int_equal(tc_hist_bucket(TC_HIST_LIMIT - 1), TC_HIST_NR_BUCKETS - 1);
	assert_int_equal(tc_hist_bucket_lower(TC_HIST_NR_BUCKETS - 1),
			 TC_HIST_LIMIT - TC_HIST_LIMIT / 512);
}

static void check_bucket_value(uint64_t v)
{
	uint32_t i = tc_hist_bucket(v);
	uint64_t lo = tc_hist_bucket_lower(i);
	char ctx[64];

	snprintf(ctx, sizeof(ctx), "v=%llu", U64(v));
	CHECK(i < TC_HIST_NR_BUCKETS, ctx);
	CHECK_EQ(i, ref_bucket(v), ctx);
	CHECK(lo <= v, ctx);
	if (i + 1 < TC_HIST_NR_BUCKETS)
		CHECK(v < tc_hist_bucket_lower(i + 1), ctx);
	if (v < TC_HIST_EXACT)
		CHECK_EQ(lo, v, ctx);
	else
		CHECK((v - lo) * 256 < v, ctx);		/* relative error < 2^-8 */
}

static void test_bucket_boundaries(void **state tc_unused)
{
	uint64_t prev_idx = 0, prev_v = 0;
	unsigned int e;
	int d;

	for (e = 0; e <= TC_HIST_MAX_BITS; e++) {
		for (d = -1; d <= 1; d++) {
			uint64_t v = (1ULL << e) + (uint64_t)(int64_t)d;

			if (v >= TC_HIST_LIMIT)
				continue;
			check_bucket_value(v);
			/* Monotonic over the increasing boundary sequence. */
			if (v >= prev_v)
				assert_true(tc_hist_bucket(v) >= prev_idx);
			prev_v = v;
			prev_idx = tc_hist_bucket(v);
		}
	}
	check_bucket_value(0);
	check_bucket_value(TC_HIST_LIMIT - 1);
}

static void test_bucket_random(void **state tc_unused)
{
	uint64_t st = test_state(1);
	int i;

	for (i = 0; i < 200000; i++) {
		unsigned int e = (unsigned int)tc_test_rand_below(&st, TC_HIST_MAX_BITS + 1);
		uint64_t a = e ? tc_test_rand(&st) >> (64 - e) : 0;
		uint64_t b = e ? tc_test_rand(&st) >> (64 - e) : 0;

		check_bucket_value(a);
		if (a > b) {
			uint64_t x = a;

			a = b;
			b = x;
		}
		assert_true(tc_hist_bucket(a) <= tc_hist_bucket(b));
		assert_true(tc_hist_bucket_lower(tc_hist_bucket(b)) >=
			    tc_hist_bucket_lower(tc_hist_bucket(a)));
	}
}

/* ---------------------------------------------------------------- hist basics */

static void test_hist_init_empty(void **state tc_unused)
{
	struct tc_hist *h = hist_new();
	uint32_t i;

	assert_int_equal(h->n, 0);
	assert_true(h->min == UINT64_MAX);
	assert_int_equal(h->max, 0);
	assert_int_equal(h->overflow, 0);
	assert_int_equal(h->sum_lo, 0);
	assert_int_equal(h->sum_hi, 0);
	for (i = 0; i < TC_HIST_NR_BUCKETS; i++)
		assert_int_equal(h->counts[i], 0);
	assert_int_equal(tc_hist_value_at_rank(h, 1), 0);
	free(h);
}

/* 128-bit sum: carries from the low word, in tc_hist_add() and tc_hist_merge(). */
static void test_sum_carry(void **state tc_unused)
{
	struct tc_hist *h = hist_new(), *g = hist_new();
	struct tc_stats s;
	u128 sum = 0;
	uint64_t i;

	for (i = 0; i < 10; i++) {
		uint64_t v = (1ULL << 63) + i;

		tc_hist_add(h, v);
		sum += v;
		assert_true(h->sum_lo == (uint64_t)sum);
		assert_true(h->sum_hi == (uint64_t)(sum >> 64));
	}
	/* 10 * 2^63 + 45 = 5 * 2^64 + 45 */
	assert_int_equal(h->sum_hi, 5);
	assert_int_equal(h->sum_lo, 45);
	assert_int_equal(h->n, 10);
	assert_int_equal(h->overflow, 10);
	assert_true(h->min == (1ULL << 63));
	assert_true(h->max == (1ULL << 63) + 9);

	assert_int_equal(tc_stats_compute(&s, h, NULL, 50), 0);
	assert_true(s.average == ldexp(1.0, 63) + 4.5);

	for (i = 0; i < 3; i++)
		tc_hist_add(g, UINT64_MAX);
	/* 3 * (2^64 - 1) = 2 * 2^64 + (2^64 - 3) */
	assert_int_equal(g->sum_hi, 2);
	assert_true(g->sum_lo == UINT64_MAX - 2);

	/* Merge: (5, 45) + (2, 2^64 - 3) = (8, 42) with a carry. */
	tc_hist_merge(h, g);
	sum += 3 * (u128)UINT64_MAX;
	assert_int_equal(h->sum_hi, 8);
	assert_int_equal(h->sum_lo, 42);
	assert_true(h->sum_lo == (uint64_t)sum && h->sum_hi == (uint64_t)(sum >> 64));
	assert_int_equal(h->n, 13);
	assert_int_equal(h->overflow, 13);
	assert_true(h->max == UINT64_MAX);

	/* Merge carrying exactly to 2^64. */
	tc_hist_init(h);
	tc_hist_init(g);
	tc_hist_add(h, UINT64_MAX);
	tc_hist_add(g, 1);
	tc_hist_merge(h, g);
	assert_int_equal(h->sum_hi, 1);
	assert_int_equal(h->sum_lo, 0);
	assert_int_equal(h->min, 1);
	assert_int_equal(h->overflow, 1);
	assert_int_equal(h->counts[1], 1);
	free(h);
	free(g);
}

static void test_hist_value_at_rank_small(void **state tc_unused)
{
	struct tc_hist *h = hist_new();

	/* 3, 5000 (bucket [4992, 5008)), 2^44 + 1 (overflow), 4095. */
	tc_hist_add(h, 3);
	tc_hist_add(h, 5000);
	tc_hist_add(h, TC_HIST_LIMIT + 1);
	tc_hist_add(h, 4095);
	assert_int_equal(tc_hist_value_at_rank(h, 1), 3);
	assert_int_equal(tc_hist_value_at_rank(h, 2), 4095);
	assert_int_equal(tc_hist_value_at_rank(h, 3), 4992);
	assert_true(tc_hist_value_at_rank(h, 4) == TC_HIST_LIMIT + 1);
	/* Out-of-range ranks are clamped. */
	assert_int_equal(tc_hist_value_at_rank(h, 0), 3);
	assert_true(tc_hist_value_at_rank(h, 99) == TC_HIST_LIMIT + 1);
	free(h);
}

/* ---------------------------------------------------------------- top-N */

static void test_topn_basic(void **state tc_unused)
{
	struct tc_topn *t = topn_new(3);
	static const uint64_t in[] = { 5, 1, 9, 9, 2, 7, 9, 0, 8 };
	uint64_t *c;
	size_t i;

	for (i = 0; i < TC_ARRAY_SIZE(in); i++)
		tc_topn_add(t, in[i]);
	assert_int_equal(t->len, 3);
	assert_int_equal(t->v[0], 9);
	c = sorted_heap(t);
	assert_int_equal(c[0], 9);
	assert_int_equal(c[1], 9);
	assert_int_equal(c[2], 9);
	free(c);

	/* Direct push of values not larger than v[0] is a no-op once full. */
	tc_topn_push(t, 9);
	tc_topn_push(t, 3);
	assert_int_equal(t->len, 3);
	assert_int_equal(t->v[0], 9);
	tc_topn_push(t, UINT64_MAX);
	c = sorted_heap(t);
	assert_int_equal(c[0], 9);
	assert_int_equal(c[1], 9);
	assert_true(c[2] == UINT64_MAX);
	free(c);
	free(t);

	/* Capacity 1 keeps the maximum. */
	t = topn_new(1);
	tc_topn_add(t, 4);
	tc_topn_add(t, 2);
	tc_topn_add(t, 6);
	tc_topn_add(t, 5);
	assert_int_equal(t->len, 1);
	assert_int_equal(t->v[0], 6);
	free(t);
}

/* Random streams against sorting, including descending and ascending order. */
static void test_topn_random(void **state tc_unused)
{
	static const uint32_t caps[] = { 1, 2, 3, 10, 1000 };
	uint64_t st = test_state(2);
	uint64_t *x = malloc(5000 * sizeof(*x)), *s = malloc(5000 * sizeof(*s));
	int trial;

	assert_non_null(x);
	assert_non_null(s);
	for (trial = 0; trial < 60; trial++) {
		uint64_t n = tc_test_rand_below(&st, 5000) + 1;
		uint32_t cap = caps[trial % 5];
		uint64_t range = trial % 3 == 0 ? 4 : trial % 3 == 1 ? 1000 : UINT64_MAX;
		struct tc_topn *t = topn_new(cap);
		char ctx[80];
		uint64_t i;

		for (i = 0; i < n; i++) {
			x[i] = tc_test_rand(&st) % range;
			if (trial % 7 == 5)
				x[i] = i;		/* ascending: every value pushed */
			else if (trial % 7 == 6)
				x[i] = n - i;		/* descending */
			tc_topn_add(t, x[i]);
		}
		memcpy(s, x, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_u64);
		snprintf(ctx, sizeof(ctx), "topn trial %d n=%llu cap=%u", trial, U64(n), cap);
		check_heap(t, s, n, ctx);
		free(t);
	}
	free(x);
	free(s);
}

/* ---------------------------------------------------------------- ranks */

static void test_stats_rank_edges(void **state tc_unused)
{
	assert_int_equal(tc_stats_rank(100, 99), 99);
	assert_int_equal(tc_stats_rank(100, 100), 100);
	assert_int_equal(tc_stats_rank(1, 50), 1);
	assert_int_equal(tc_stats_rank(3, 50), 2);
	assert_int_equal(tc_stats_rank(2, 50), 1);
	assert_int_equal(tc_stats_rank(4, 50), 2);
	assert_int_equal(tc_stats_rank(1000, 99.9), 999);
	assert_int_equal(tc_stats_rank(10000, 99.99), 9999);
	assert_int_equal(tc_stats_rank(1000000, 99.999), 999990);
	assert_int_equal(tc_stats_rank(100, 0.001), 1);
	assert_int_equal(tc_stats_rank(1000000, 0.001), 10);
	assert_int_equal(tc_stats_rank(1000001, 0.001), 11);
	assert_int_equal(tc_stats_rank(1, 1e-9), 1);
	assert_int_equal(tc_stats_rank(1, 100), 1);
	assert_int_equal(tc_stats_rank(7, 100), 7);
	assert_int_equal(tc_stats_rank(10, 10), 1);
	assert_int_equal(tc_stats_rank(10, 10.000001), 2);
	assert_int_equal(tc_stats_rank(10, 90), 9);
	assert_int_equal(tc_stats_rank(10, 90.1), 10);
	assert_int_equal(tc_stats_rank(100, 0.1 + 0.2 + 98.7), 99);
	/* 1/3 and 2/3 are not decimal: still no rounding up past the integer. */
	assert_int_equal(tc_stats_rank(300, 100.0 / 3), 100);
	assert_int_equal(tc_stats_rank(3, 200.0 / 3), 2);
	assert_int_equal(tc_stats_rank(301, 100.0 / 3), 101);
	/* Huge n: no overflow in the product. */
	assert_true(tc_stats_rank(UINT64_MAX, 100) == UINT64_MAX);
	assert_true(tc_stats_rank(UINT64_MAX, 50) == 1ULL << 63);
	assert_true(tc_stats_rank(UINT64_MAX, 99.9) == ref_rank(UINT64_MAX, 99900000));
	assert_true(tc_stats_rank(UINT64_MAX, 1e-12) ==
		    (uint64_t)ceill((long double)UINT64_MAX * 1e-14L));
	/* Out of range: clamped into [1, n]. */
	assert_int_equal(tc_stats_rank(10, 0), 1);
	assert_int_equal(tc_stats_rank(10, -5), 1);
	assert_int_equal(tc_stats_rank(10, 150), 10);
	assert_int_equal(tc_stats_rank(10, NAN), 1);
	assert_int_equal(tc_stats_rank(0, 50), 0);
}

/* Every 6-decimal percentile against the integer definition. */
static void test_stats_rank_sweep(void **state tc_unused)
{
	static const uint64_t fixed[] = {
		1000, 50000000, 90000000, 99000000, 99900000, 99990000, 100000000,
		1, 10, 12345, 33333333, 66666667, 99999999, 25000000, 75000000,
	};
	uint64_t st = test_state(3);
	int i;

	for (i = 0; i < 300000; i++) {
		uint64_t pm = i < 15 * 200 ? fixed[i % 15] :
			      tc_test_rand_below(&st, 100000000) + 1;
		uint64_t n = i % 4 == 0 ? tc_test_rand(&st) :
			     tc_test_rand_below(&st, 1ULL << (i % 40 + 1)) + 1;
		double p = (double)pm / 1e6;

		if (n == 0)
			n = 1;
		if (tc_stats_rank(n, p) != ref_rank(n, pm))
			fail_msg("tc_stats_rank(%llu, %.6f) = %llu, expected %llu",
				 U64(n), p, U64(tc_stats_rank(n, p)), U64(ref_rank(n, pm)));
	}
}

/* ---------------------------------------------------------------- errors */

static void test_stats_errors(void **state tc_unused)
{
	static const double bad[] = { 0, -0.0, -1, 100.0000001, 101, INFINITY,
				      -INFINITY, NAN };
	struct tc_hist *h = hist_new();
	struct tc_topn *t = topn_new(4);
	struct tc_stats s, zero;
	size_t i;

	memset(&zero, 0, sizeof(zero));
	/* Empty histogram: -ENODATA, @s zeroed. */
	memset(&s, 0xEE, sizeof(s));
	assert_int_equal(tc_stats_compute(&s, h, t, 50), -ENODATA);
	assert_memory_equal(&s, &zero, sizeof(s));
	memset(&s, 0xEE, sizeof(s));
	assert_int_equal(tc_stats_compute(&s, h, NULL, 100), -ENODATA);
	assert_memory_equal(&s, &zero, sizeof(s));

	tc_hist_add(h, 42);
	tc_topn_add(t, 42);
	for (i = 0; i < TC_ARRAY_SIZE(bad); i++) {
		memset(&s, 0xEE, sizeof(s));
		assert_int_equal(tc_stats_compute(&s, h, t, bad[i]), -EINVAL);
		assert_memory_equal(&s, &zero, sizeof(s));
	}
	/* Edges of (0, 100] that are valid. */
	assert_int_equal(tc_stats_compute(&s, h, t, 100), 0);
	assert_int_equal(s.percentile, 42);
	assert_true(s.percentile_exact);
	assert_int_equal(tc_stats_compute(&s, h, t, 1e-300), 0);
	assert_int_equal(s.percentile, 42);

	/* No heap: max_avg is max, one sample behind it. */
	tc_hist_add(h, 1000000);
	assert_int_equal(tc_stats_compute(&s, h, NULL, 100), 0);
	assert_true(s.max_avg == 1000000.0);
	assert_int_equal(s.highest, 1);
	/* P100 is the max, known exactly even without a heap */
	assert_int_equal(s.percentile, 1000000);
	assert_true(s.percentile_exact);
	assert_int_equal(s.median, 42);
	assert_true(s.median_exact);
	free(h);
	free(t);
}

/* ---------------------------------------------------------------- brute force */

enum shape {
	SHAPE_EQUAL,		/* all samples the same value */
	SHAPE_SMALL,		/* uniform < 4096: everything exact */
	SHAPE_PARETO,		/* mostly 20..40, rare heavy tail up to 2^40 */
	SHAPE_WIDE,		/* log-uniform up to 2^40 */
	SHAPE_OVERFLOW_FEW,	/* wide, plus a few >= 2^44 */
	SHAPE_OVERFLOW_MANY,	/* wide, plus 1% >= 2^44 */
	NR_SHAPES
};

static const char *const shape_name[NR_SHAPES] = {
	"equal", "small", "pareto", "wide", "overflow-few", "overflow-many",
};

static uint64_t gen_overflow(uint64_t *st)
{
	switch (tc_test_rand_below(st, 4)) {
	case 0:
		return TC_HIST_LIMIT;
	case 1:
		return UINT64_MAX;
	default:
		return TC_HIST_LIMIT + tc_test_rand_below(st, 1ULL << 50);
	}
}

static uint64_t gen_wide(uint64_t *st)
{
	unsigned int e = (unsigned int)tc_test_rand_below(st, 41);

	return e ? tc_test_rand(st) >> (64 - e) : 0;
}

static void gen_samples(uint64_t *x, uint64_t n, enum shape shape, uint64_t *st,
			unsigned int variant)
{
	static const uint64_t equal_vals[] = {
		0, 7, 4095, 4096, 123456789, TC_HIST_LIMIT - 1, TC_HIST_LIMIT, UINT64_MAX,
	};
	uint64_t eq = equal_vals[variant % TC_ARRAY_SIZE(equal_vals)];
	uint64_t i;

	for (i = 0; i < n; i++) {
		switch (shape) {
		case SHAPE_EQUAL:
			x[i] = eq;
			break;
		case SHAPE_SMALL:
			x[i] = tc_test_rand_below(st, TC_HIST_EXACT);
			break;
		case SHAPE_PARETO:
			if (tc_test_rand_below(st, 100)) {
				x[i] = 20 + tc_test_rand_below(st, 21);
			} else {
				/* Pareto, alpha 1.1, scale 40, capped at 2^40. */
				double u = (double)((tc_test_rand(st) >> 11) + 1) * 0x1p-53;
				double v = 40.0 * pow(u, -1.0 / 1.1);

				x[i] = v >= 0x1p40 ? 1ULL << 40 : (uint64_t)v;
			}
			break;
		case SHAPE_WIDE:
			x[i] = gen_wide(st);
			break;
		case SHAPE_OVERFLOW_FEW:
			x[i] = (i == n / 2 || !tc_test_rand_below(st, 5000)) ?
			       gen_overflow(st) : gen_wide(st);
			break;
		case SHAPE_OVERFLOW_MANY:
			x[i] = (i == 0 || !tc_test_rand_below(st, 100)) ?
			       gen_overflow(st) : gen_wide(st);
			break;
		default:
			fail();
		}
	}
}

struct pct {
	double p;
	uint64_t millionths;
};

static const struct pct pcts[] = {
	{ 50, 50000000 }, { 90, 90000000 }, { 99, 99000000 },
	{ 99.9, 99900000 }, { 100, 100000000 }, { 0.001, 1000 },
};

#define NR_CAPS 4

/*
 * One rank query against the expectation: tc_stats_value_at_rank() with heap
 * @t (or NULL) and, without heap, tc_hist_value_at_rank().
 */
static void check_rank(const struct tc_hist *h, const struct tc_topn *t,
		       const uint64_t *sorted, uint64_t n, uint64_t rank,
		       const char *ctx)
{
	uint32_t len = t ? t->len : 0;
	bool ex = false, want_ex;
	uint64_t want = expect_at_rank(sorted, n, rank, len, &want_ex);
	uint64_t got = tc_stats_value_at_rank(h, t, rank, &ex);
	char c[160];

	snprintf(c, sizeof(c), "%s rank=%llu true=%llu heap=%u", ctx, U64(rank),
		 U64(sorted[rank - 1]), len);
	CHECK_EQ(got, want, c);
	CHECK(ex == want_ex, c);
	if (!ex)
		check_rel_error(got, sorted[rank - 1], c);
	/* the bounds hold the true sample, inside [min, max]; exact is exact */
	{
		uint64_t up = 0, lo = tc_stats_value_range(h, t, rank, &up);

		CHECK_EQ(lo, got, c);
		CHECK(lo <= sorted[rank - 1] && sorted[rank - 1] <= up, c);
		CHECK(lo >= sorted[0] && up <= sorted[n - 1], c);
		CHECK(ex == (lo == up), c);
		CHECK_EQ(tc_stats_value_range(h, t, rank, NULL), lo, c);
	}
	/* NULL exact pointer accepted, same value. */
	CHECK_EQ(tc_stats_value_at_rank(h, t, rank, NULL), want, c);
	if (!t) {
		/* The histogram alone: bucket lower bound, or max among overflow. */
		uint64_t v = sorted[rank - 1];

		CHECK_EQ(tc_hist_value_at_rank(h, rank),
			 v >= TC_HIST_LIMIT ? sorted[n - 1] :
			 tc_hist_bucket_lower(tc_hist_bucket(v)), c);
	}
}

static void run_case(const uint64_t *x, uint64_t n, const char *label, uint64_t *st)
{
	struct tc_hist *h = hist_new();
	struct tc_hist *ref = hist_new();
	struct tc_topn *heaps[NR_CAPS];
	uint32_t caps[NR_CAPS] = { 1, 10, 1000, (uint32_t)n + 7 };
	uint64_t *sorted = malloc(n * sizeof(*sorted));
	uint64_t over = 0, i;
	u128 sum = 0;
	char ctx[128];
	int c;

	assert_non_null(sorted);
	for (c = 0; c < NR_CAPS; c++)
		heaps[c] = topn_new(caps[c]);
	for (i = 0; i < n; i++) {
		tc_hist_add(h, x[i]);
		for (c = 0; c < NR_CAPS; c++)
			tc_topn_add(heaps[c], x[i]);
		sum += x[i];
		over += x[i] >= TC_HIST_LIMIT;
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);

	/* The histogram itself, field by field, counts from the reference layout. */
	snprintf(ctx, sizeof(ctx), "%s n=%llu", label, U64(n));
	CHECK_EQ(h->n, n, ctx);
	CHECK_EQ(h->min, sorted[0], ctx);
	CHECK_EQ(h->max, sorted[n - 1], ctx);
	CHECK_EQ(h->overflow, over, ctx);
	CHECK_EQ(h->sum_lo, (uint64_t)sum, ctx);
	CHECK_EQ(h->sum_hi, (uint64_t)(sum >> 64), ctx);
	ref->n = n;
	ref->min = sorted[0];
	ref->max = sorted[n - 1];
	ref->overflow = over;
	ref->sum_lo = (uint64_t)sum;
	ref->sum_hi = (uint64_t)(sum >> 64);
	for (i = 0; i < n; i++)
		if (x[i] < TC_HIST_LIMIT)
			ref->counts[ref_bucket(x[i])]++;
	CHECK(memcmp(h, ref, sizeof(*h)) == 0, ctx);

	for (c = 0; c < NR_CAPS; c++)
		check_heap(heaps[c], sorted, n, ctx);

	/* Every figure of tc_stats_compute(), with each heap and without. */
	for (c = -1; c < NR_CAPS; c++) {
		const struct tc_topn *t = c < 0 ? NULL : heaps[c];
		uint32_t len = t ? t->len : 0;
		long double avg = (long double)sum / (long double)n;
		long double top;
		u128 topsum = 0;
		size_t k;

		for (i = n - (len ? len : 1); i < n; i++)
			topsum += sorted[i];
		top = (long double)topsum / (len ? len : 1);

		for (k = 0; k < TC_ARRAY_SIZE(pcts); k++) {
			uint64_t r = ref_rank(n, pcts[k].millionths);
			uint64_t rm = ref_rank(n, 50000000);
			struct tc_stats s;
			bool want_ex, want_mex;
			uint64_t want = expect_at_rank(sorted, n, r, len, &want_ex);
			uint64_t want_med = expect_at_rank(sorted, n, rm, len, &want_mex);

			snprintf(ctx, sizeof(ctx), "%s n=%llu cap=%d p=%g", label,
				 U64(n), c < 0 ? 0 : (int)caps[c], pcts[k].p);
			CHECK_EQ(tc_stats_rank(n, pcts[k].p), r, ctx);
			memset(&s, 0xEE, sizeof(s));
			CHECK(tc_stats_compute(&s, h, t, pcts[k].p) == 0, ctx);
			CHECK_EQ(s.n, n, ctx);
			CHECK_EQ(s.min, sorted[0], ctx);
			CHECK_EQ(s.max, sorted[n - 1], ctx);
			CHECK_EQ(s.overflow, over, ctx);
			CHECK(s.p == pcts[k].p, ctx);
			CHECK(fabsl(s.average - avg) <= avg * 1e-15L, ctx);
			CHECK(s.average >= (double)sorted[0] && s.average <= (double)sorted[n - 1],
			      ctx);
			CHECK_EQ(s.percentile, want, ctx);
			CHECK(s.percentile_exact == want_ex, ctx);
			if (!want_ex)
				check_rel_error(s.percentile, sorted[r - 1], ctx);
			CHECK_EQ(s.median, want_med, ctx);
			CHECK(s.median_exact == want_mex, ctx);
			{
				uint64_t up, mup;

				expect_range(sorted, n, r, len, &up);
				expect_range(sorted, n, rm, len, &mup);
				CHECK_EQ(s.percentile_upper, up, ctx);
				CHECK_EQ(s.median_upper, mup, ctx);
			}
			/* no figure contradicts another */
			CHECK(s.min <= s.median && s.median <= s.median_upper &&
			      s.median_upper <= s.max, ctx);
			CHECK(s.min <= s.percentile && s.percentile <= s.percentile_upper &&
			      s.percentile_upper <= s.max, ctx);
			CHECK(sorted[rm - 1] >= s.median && sorted[rm - 1] <= s.median_upper, ctx);
			CHECK(sorted[r - 1] >= s.percentile && sorted[r - 1] <= s.percentile_upper,
			      ctx);
			if (pcts[k].p >= 50)
				CHECK(s.percentile >= s.median &&
				      s.percentile_upper >= s.median_upper, ctx);
			CHECK_EQ(s.highest, len ? len : 1, ctx);
			CHECK(fabsl(s.max_avg - top) <= top * 1e-15L, ctx);
		}
	}

	/* Rank queries: all for small n, else the edges and random ranks. */
	for (c = -1; c < NR_CAPS; c++) {
		const struct tc_topn *t = c < 0 ? NULL : heaps[c];
		uint32_t len = t ? t->len : 0;
		/* Heap selection costs O(64 len): fewer queries on big heaps. */
		uint64_t nr = n <= 200 ? n : len > 2000 ? 10 : 300;
		uint64_t edges[] = { 1, 2, n / 2, n - len, n - len + 1, n - over,
				     n - over + 1, n };

		snprintf(ctx, sizeof(ctx), "%s n=%llu cap=%d", label, U64(n),
			 c < 0 ? 0 : (int)caps[c]);
		for (i = 0; i < TC_ARRAY_SIZE(edges); i++)
			if (edges[i] >= 1 && edges[i] <= n)
				check_rank(h, t, sorted, n, edges[i], ctx);
		for (i = 0; i < nr; i++)
			check_rank(h, t, sorted, n,
				   n <= 200 ? i + 1 : tc_test_rand_below(st, n) + 1, ctx);
	}

	for (c = 0; c < NR_CAPS; c++)
		free(heaps[c]);
	free(sorted);
	free(ref);
	free(h);
}

static void run_shape(enum shape shape, uint64_t salt)
{
	static const uint64_t sizes[] = { 1, 2, 3, 10, 999, 1000, 1001, 12345, 100000 };
	uint64_t st = test_state(salt);
	uint64_t *x = malloc(100000 * sizeof(*x));
	size_t i;
	char label[64];

	assert_non_null(x);
	for (i = 0; i < TC_ARRAY_SIZE(sizes); i++) {
		gen_samples(x, sizes[i], shape, &st, (unsigned int)i);
		snprintf(label, sizeof(label), "%s[%zu]", shape_name[shape], i);
		run_case(x, sizes[i], label, &st);
	}
	/* Equal values: every value of the list, at a mid size. */
	if (shape == SHAPE_EQUAL)
		for (i = 0; i < 8; i++) {
			gen_samples(x, 777, shape, &st, (unsigned int)i);
			snprintf(label, sizeof(label), "equal-v%zu", i);
			run_case(x, 777, label, &st);
		}
	free(x);
}

static void test_brute_equal(void **state tc_unused)
{
	run_shape(SHAPE_EQUAL, 10);
}

static void test_brute_small(void **state tc_unused)
{
	run_shape(SHAPE_SMALL, 11);
}

static void test_brute_pareto(void **state tc_unused)
{
	run_shape(SHAPE_PARETO, 12);
}

static void test_brute_wide(void **state tc_unused)
{
	run_shape(SHAPE_WIDE, 13);
}

static void test_brute_overflow_few(void **state tc_unused)
{
	run_shape(SHAPE_OVERFLOW_FEW, 14);
}

static void test_brute_overflow_many(void **state tc_unused)
{
	run_shape(SHAPE_OVERFLOW_MANY, 15);
}

/*
 * Issue 22 item 17: samples above the exact range whose minimum lies inside
 * the median's bucket, above the bucket's lower end (the seed table's
 * irqsoff+ preempt: min 6757, median bucket [6752, 6767], median printed
 * 6752). For every power of two of the range and the overflow, a minimum at
 * each offset inside a bucket: the median and the percentiles never fall
 * below the minimum or above the maximum, each holds the true sample between
 * its bounds, and a figure is exact only when it is the true sample.
 */
static void test_stats_order_whole_range(void **state tc_unused)
{
	static const double ps[] = { 50, 90, 99, 99.9 };
	struct tc_hist *h = hist_new();
	struct tc_topn *t = topn_new(3);
	uint64_t x[41], sorted[41], st = test_state(17);
	unsigned int e, off, i, k, trial = 0;

	for (e = 12; e <= TC_HIST_MAX_BITS; e++) {
		for (off = 0; off < 6; off++) {
			/* bucket width at 2^e: 2^(e - 8); the overflow: 2^44 on */
			uint64_t base = e < TC_HIST_MAX_BITS ?
					tc_hist_bucket_lower(tc_hist_bucket((1ULL << e) +
									    (3ULL << (e - 8)))) :
					TC_HIST_LIMIT;
			uint64_t width = e < TC_HIST_MAX_BITS ? 1ULL << (e - 8) : 1ULL << 40;
			struct tc_stats s;
			char ctx[96];

			tc_hist_init(h);
			tc_topn_init(t, off & 1 ? 3 : 1);
			for (i = 0; i < TC_ARRAY_SIZE(x); i++) {
				/* min at an offset inside the bucket, the others above it */
				uint64_t lo = base + (off * width) / 6 + (off ? 1 : 0);
				uint64_t span = base + width - lo;

				x[i] = i == 0 ? lo : lo + tc_test_rand_below(&st, span ? span : 1);
				if (off == 5 && i > 30)	/* a tail in higher buckets */
					x[i] = lo + width * (1 + tc_test_rand_below(&st, 40));
				tc_hist_add(h, x[i]);
				tc_topn_add(t, x[i]);
			}
			memcpy(sorted, x, sizeof(x));
			qsort(sorted, TC_ARRAY_SIZE(x), sizeof(*sorted), cmp_u64);
			for (k = 0; k < TC_ARRAY_SIZE(ps); k++, trial++) {
				uint64_t n = TC_ARRAY_SIZE(x);
				uint64_t rm = ref_rank(n, 50000000);
				uint64_t r = tc_stats_rank(n, ps[k]);

				snprintf(ctx, sizeof(ctx), "e=%u off=%u p=%g min=%llu", e, off,
					 ps[k], U64(sorted[0]));
				CHECK(tc_stats_compute(&s, h, t, ps[k]) == 0, ctx);
				CHECK_EQ(s.min, sorted[0], ctx);
				CHECK(s.median >= s.min && s.median_upper <= s.max, ctx);
				CHECK(s.percentile >= s.median && s.percentile <= s.max, ctx);
				CHECK(s.median <= sorted[rm - 1] && sorted[rm - 1] <= s.median_upper,
				      ctx);
				CHECK(s.percentile <= sorted[r - 1] &&
				      sorted[r - 1] <= s.percentile_upper, ctx);
				CHECK(!s.median_exact || s.median == sorted[rm - 1], ctx);
				CHECK(!s.percentile_exact || s.percentile == sorted[r - 1], ctx);
			}
		}
	}
	assert_int_equal(trial, (TC_HIST_MAX_BITS - 12 + 1) * 6 * 4);
	/* the seed table's cell itself: 6757 then 40 values in [6757, 6767] */
	tc_hist_init(h);
	tc_topn_init(t, 1);
	for (i = 0; i < 41; i++) {
		tc_hist_add(h, 6757 + i % 11);
		tc_topn_add(t, 6757 + i % 11);
	}
	{
		struct tc_stats s;

		assert_int_equal(tc_stats_compute(&s, h, t, 99), 0);
		assert_int_equal(s.min, 6757);
		assert_int_equal(s.median, 6757);
		assert_int_equal(s.median_upper, 6767);
		assert_false(s.median_exact);
	}
	free(h);
	free(t);
}

/* ---------------------------------------------------------------- merge */

#define MAX_PARTS 8

/*
 * Split samples over 2..8 histograms and heaps (randomly per sample, or in
 * contiguous runs with empty parts), merge in a random order, and compare with
 * adding everything to one: identical histogram bytes, same heap content.
 */
static void test_merge_random(void **state tc_unused)
{
	static const uint32_t caps[] = { 1, 10, 1000 };
	static const uint64_t edge_vals[] = {
		0, 4095, 4096, TC_HIST_LIMIT - 1, TC_HIST_LIMIT, UINT64_MAX,
	};
	uint64_t st = test_state(4);
	uint64_t *x = malloc(20000 * sizeof(*x));
	uint64_t *sorted = malloc(20000 * sizeof(*sorted));
	struct tc_hist *all = hist_new(), *merged = hist_new();
	struct tc_hist *part[MAX_PARTS];
	struct tc_topn *tpart[MAX_PARTS], *tall, *tmerged;
	int trial, k;

	assert_non_null(x);
	assert_non_null(sorted);
	for (k = 0; k < MAX_PARTS; k++)
		part[k] = hist_new();

	for (trial = 0; trial < 48; trial++) {
		uint64_t n = trial < 4 ? (uint64_t)trial : tc_test_rand_below(&st, 20000) + 1;
		int nparts = 2 + (int)tc_test_rand_below(&st, MAX_PARTS - 1);
		uint32_t cap = trial % 4 == 3 ? (uint32_t)n + 1 : caps[trial % 3];
		bool runs = trial & 1;
		int order[MAX_PARTS];
		uint64_t cut[MAX_PARTS + 1];
		char ctx[96];
		uint64_t *a, *b, i;

		snprintf(ctx, sizeof(ctx), "merge trial %d n=%llu parts=%d cap=%u %s",
			 trial, U64(n), nparts, cap, runs ? "runs" : "random");
		gen_samples(x, n, (enum shape)(trial % NR_SHAPES), &st, (unsigned int)trial);
		/* A few edge values, first and last bucket included. */
		for (i = 0; n && i < 4; i++)
			x[tc_test_rand_below(&st, n)] =
				edge_vals[tc_test_rand_below(&st, TC_ARRAY_SIZE(edge_vals))];

		tc_hist_init(all);
		tall = topn_new(cap);
		tmerged = topn_new(cap);
		for (k = 0; k < nparts; k++) {
			tc_hist_init(part[k]);
			tpart[k] = topn_new(cap);
			order[k] = k;
		}
		/* Contiguous runs: sorted random cut points, so empty parts occur. */
		cut[0] = 0;
		cut[nparts] = n;
		for (k = 1; k < nparts; k++)
			cut[k] = tc_test_rand_below(&st, n + 1);
		qsort(cut + 1, (size_t)nparts - 1, sizeof(cut[0]), cmp_u64);

		for (i = 0; i < n; i++) {
			int d = 0;

			if (runs)
				while (i >= cut[d + 1])
					d++;
			else
				d = (int)tc_test_rand_below(&st, (uint64_t)nparts);
			tc_hist_add(all, x[i]);
			tc_topn_add(tall, x[i]);
			tc_hist_add(part[d], x[i]);
			tc_topn_add(tpart[d], x[i]);
		}
		/* Random merge order (Fisher-Yates). */
		for (k = nparts - 1; k > 0; k--) {
			int j = (int)tc_test_rand_below(&st, (uint64_t)k + 1), tmp = order[k];

			order[k] = order[j];
			order[j] = tmp;
		}
		tc_hist_init(merged);
		for (k = 0; k < nparts; k++) {
			tc_hist_merge(merged, part[order[k]]);
			tc_topn_merge(tmerged, tpart[order[k]]);
		}
		CHECK(memcmp(merged, all, sizeof(*all)) == 0, ctx);
		CHECK_EQ(tmerged->len, tall->len, ctx);
		CHECK_EQ(tmerged->cap, cap, ctx);
		for (i = 1; i < tmerged->len; i++)
			CHECK(tmerged->v[(i - 1) / 2] <= tmerged->v[i], ctx);
		a = sorted_heap(tmerged);
		b = sorted_heap(tall);
		for (i = 0; i < tall->len; i++)
			CHECK_EQ(a[i], b[i], ctx);
		free(a);
		free(b);
		/* And against brute force. */
		if (n) {
			memcpy(sorted, x, n * sizeof(*sorted));
			qsort(sorted, n, sizeof(*sorted), cmp_u64);
			check_heap(tmerged, sorted, n, ctx);
		}

		/* In place into a non-empty part, and merging an empty one is a no-op. */
		for (k = 1; k < nparts; k++) {
			tc_hist_merge(part[0], part[k]);
			tc_topn_merge(tpart[0], tpart[k]);
		}
		CHECK(memcmp(part[0], all, sizeof(*all)) == 0, ctx);
		a = sorted_heap(tpart[0]);
		b = sorted_heap(tall);
		CHECK_EQ(tpart[0]->len, tall->len, ctx);
		for (i = 0; i < tall->len; i++)
			CHECK_EQ(a[i], b[i], ctx);
		free(a);
		free(b);
		tc_hist_init(merged);
		tc_hist_merge(part[0], merged);
		CHECK(memcmp(part[0], all, sizeof(*all)) == 0, ctx);

		for (k = 0; k < nparts; k++)
			free(tpart[k]);
		free(tall);
		free(tmerged);
	}
	for (k = 0; k < MAX_PARTS; k++)
		free(part[k]);
	free(all);
	free(merged);
	free(x);
	free(sorted);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_exact_region),
		cmocka_unit_test(test_bucket_roundtrip),
		cmocka_unit_test(test_bucket_boundaries),
		cmocka_unit_test(test_bucket_random),
		cmocka_unit_test(test_hist_init_empty),
		cmocka_unit_test(test_sum_carry),
		cmocka_unit_test(test_hist_value_at_rank_small),
		cmocka_unit_test(test_topn_basic),
		cmocka_unit_test(test_topn_random),
		cmocka_unit_test(test_stats_rank_edges),
		cmocka_unit_test(test_stats_rank_sweep),
		cmocka_unit_test(test_stats_errors),
		cmocka_unit_test(test_brute_equal),
		cmocka_unit_test(test_brute_small),
		cmocka_unit_test(test_brute_pareto),
		cmocka_unit_test(test_brute_wide),
		cmocka_unit_test(test_brute_overflow_few),
		cmocka_unit_test(test_brute_overflow_many),
		cmocka_unit_test(test_stats_order_whole_range),
		cmocka_unit_test(test_merge_random),
	};

	base_seed = tc_test_seed(0x7C0575EEDULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
