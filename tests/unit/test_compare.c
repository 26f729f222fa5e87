// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_compare.c - the result reader (lib/result_read.c) and the bootstrap
 * comparison (lib/compare.c).
 *
 * Result files are synthesised here: samples from a seeded generator go
 * through tc_hist_add()/tc_topn_add() and tc_snapshot_to_json(), as in a
 * real run, into the documented JSON layout. The statistical cases use a
 * fixed seed (not TC_TEST_SEED): their verdicts are deterministic, and the
 * distributions are far enough apart (or identical) that any seed would do.
 */
#define _GNU_SOURCE
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

#include <tracecost/compare.h>
#include <tracecost/hist.h>
#include <tracecost/result.h>
#include <tracecost/sampler.h>
#include <tracecost/stats.h>
#include "helpers.h"

#define HIGHEST		16
#define SAMPLES		2000

/* A sample of configuration @cfg in repetition @rep: returns ticks. */
typedef uint64_t (*gen_fn)(int cfg, int pair, int rep, uint64_t *st, const void *arg);

struct spec {
	const char *suite;
	const char *start;		/* identifies the run */
	int nr_cfgs;
	const char *const *cfgs;
	int nr_pairs;
	int reps;
	int cpus;
	gen_fn gen;
	const void *arg;
	uint64_t seed;
};

/* One CPU x repetition snapshot, as the sampler writes it. */
static json_t *snapshot(const struct spec *s, int cfg, int pair, int rep, int cpu,
			uint64_t *st)
{
	struct tc_hist *h = malloc(sizeof(*h));
	struct tc_topn *t = malloc(TC_TOPN_SIZE(HIGHEST));
	struct tc_snapshot sn = { .cpu = cpu, .rep = rep };
	tc_u32 i, nr = 0;
	json_t *j;
	int k;

	assert_non_null(h);
	assert_non_null(t);
	tc_hist_init(h);
	tc_topn_init(t, HIGHEST);
	for (k = 0; k < SAMPLES; k++) {
		uint64_t v = s->gen(cfg, pair, rep, st, s->arg);

		tc_hist_add(h, v);
		tc_topn_add(t, v);
	}
	for (i = 0; i < TC_HIST_NR_BUCKETS; i++)
		nr += h->counts[i] != 0;
	sn.idx = calloc(nr, sizeof(*sn.idx));
	sn.cnt = calloc(nr, sizeof(*sn.cnt));
	sn.top = calloc(t->len, sizeof(*sn.top));
	for (i = 0, nr = 0; i < TC_HIST_NR_BUCKETS; i++) {
		if (h->counts[i]) {
			sn.idx[nr] = i;
			sn.cnt[nr++] = h->counts[i];
		}
	}
	sn.nr = nr;
	sn.n = h->n;
	sn.min = h->min;
	sn.max = h->max;
	sn.overflow = h->overflow;
	sn.sum_lo = h->sum_lo;
	sn.sum_hi = h->sum_hi;
	sn.top_len = t->len;
	memcpy(sn.top, t->v, t->len * sizeof(*sn.top));
	/* ascending, as the sampler stores it */
	for (i = 1; i < sn.top_len; i++) {
		tc_u64 x = sn.top[i];
		tc_u32 m = i;

		for (; m > 0 && sn.top[m - 1] > x; m--)
			sn.top[m] = sn.top[m - 1];
		sn.top[m] = x;
	}
	j = tc_snapshot_to_json(&sn);
	free(sn.idx);
	free(sn.cnt);
	free(sn.top);
	free(h);
	free(t);
	return j;
}

static char *make_json(const struct spec *s)
{
	static const char *const pair_names[] = { "irq", "preempt", "irq_save" };
	json_t *root, *sec, *cfgs = json_array(), *pairs = json_array();
	uint64_t st = s->seed ? s->seed : 1;
	char *text;
	int c, p, r, cpu;

	for (c = 0; c < s->nr_cfgs; c++)
		json_array_append_new(cfgs, json_pack("{s:s}", "name", s->cfgs[c]));
	for (p = 0; p < s->nr_pairs; p++) {
		json_t *cells = json_array();

		for (c = 0; c < s->nr_cfgs; c++) {
			json_t *snaps = json_array();

			for (r = 0; r < s->reps; r++)
				for (cpu = 0; cpu < s->cpus; cpu++)
					json_array_append_new(snaps,
							      snapshot(s, c, p, r, cpu, &st));
			json_array_append_new(cells, json_pack("{s:s, s:o}", "configuration",
							       s->cfgs[c], "snapshots", snaps));
		}
		json_array_append_new(pairs, json_pack("{s:s, s:s, s:o}", "name", pair_names[p],
						       "title", pair_names[p], "cells", cells));
	}
	sec = json_pack("{s:i, s:i, s:i, s:f, s:i, s:b, s:o, s:o}", "hist_layout", 1,
			"batch", 1, "highest", HIGHEST, "percentile", 99.0, "repeat", s->reps,
			"do_work", 0, "configurations", cfgs, "pairs", pairs);
	root = json_pack("{s:i, s:{s:s}, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s},"
			 " s:{s:f}, s:o}",
			 "file_version", 1, "tool", "name", "tracecost", "suite", s->suite,
			 "command", "tracecost run", "start", s->start, "end", s->start,
			 "uname", "release", "6.1.0-test", "nodename", "box", "machine", "x86_64",
			 "host", "cpu_model", "test cpu", "counter", "frequency_hz", 1e9,
			 s->suite, sec);
	assert_non_null(root);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return text;
}

static struct tc_result_file *load(const struct spec *s)
{
	char err[TC_RESULT_ERR_LEN], *text = make_json(s);
	struct tc_result_file *f;
	int ret = tc_result_file_parse(text, strlen(text), "synthetic.json", &f, err, sizeof(err));

	if (ret)
		fail_msg("%s", err);
	free(text);
	return f;
}

/* @n runs of @s (starts "<start>/i", seeds seed + i) pooled as one file. */
static struct tc_result_file *load_runs(const struct spec *s, int n)
{
	struct tc_result_file *runs[8], *p;
	char err[TC_RESULT_ERR_LEN], start[8][64];
	struct spec one;
	int i;

	assert_true(n <= 8);
	for (i = 0; i < n; i++) {
		one = *s;
		snprintf(start[i], sizeof(start[i]), "%s/%d", s->start, i);
		one.start = start[i];
		one.seed = s->seed + (uint64_t)i * 1000;
		runs[i] = load(&one);
	}
	if (tc_result_file_pool(runs, n, s->start, &p, err, sizeof(err)))
		fail_msg("%s", err);
	for (i = 0; i < n; i++)
		tc_result_file_free(runs[i]);
	return p;
}

/* Normal-ish noise: sum of 4 uniforms in [0, 2w), centred. */
static int64_t noise(uint64_t *st, int64_t w)
{
	int64_t x = 0;
	int i;

	for (i = 0; i < 4; i++)
		x += (int64_t)tc_test_rand_below(st, (uint64_t)(2 * w + 1)) - w;
	return x / 2;
}

/* Location by configuration (arg: int[]), per-repetition offset, sample noise. */
static uint64_t gen_shift(int cfg, int pair, int rep, uint64_t *st, const void *arg)
{
	const int *loc = arg;
	int64_t v = loc[cfg] + ((rep * 7919) % 13 - 6) + noise(st, 20);

	return v < 0 ? 0 : (uint64_t)v;
}

static const char *const two[] = { "base", "other" };

static int run(const struct tc_compare_column *cols, int n, unsigned int b,
	       struct tc_compare **res)
{
	struct tc_compare_opts o = {
		.resamples = b, .seed = 1, .confidence = 0.95, .percentile = 99,
		.highest = HIGHEST,
	};

	return tc_compare_run(cols, n, &o, res);
}

static const struct tc_compare_cell *cell(const struct tc_compare *r, int row, int col, int m)
{
	return &r->rows[row].cells[col * TC_NR_METRICS + m];
}

static void test_interval_ranks(void **state)
{
	double d[2000], lo, hi;
	uint64_t st = 42;
	int i;

	for (i = 0; i < 2000; i++)
		d[i] = i + 1;
	for (i = 1999; i > 0; i--) {
		int j = (int)tc_test_rand_below(&st, (uint64_t)i + 1);
		double x = d[i];

		d[i] = d[j];
		d[j] = x;
	}
	assert_int_equal(tc_compare_interval(d, 2000, 0.95, &lo, &hi), 0);
	/* Efron & Tibshirani: the B*a/2-th and B*(1-a/2)-th ordered values */
	assert_true(lo == 50 && hi == 1950);
	assert_int_equal(tc_compare_interval(d, 39, 0.95, &lo, &hi), -EINVAL);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(tc_compare_interval(d, 40, 0.95, &lo, &hi), 0);
	assert_true(lo == d[0] && hi == d[38]);
	d[3] = NAN;
	assert_int_equal(tc_compare_interval(d, 100, 0.95, &lo, &hi), -EINVAL);
	assert_int_equal(tc_compare_interval(d, 100, 1.0, &lo, &hi), -EINVAL);
}

static void test_verdicts(void **state)
{
	assert_int_equal(tc_compare_verdict(0.5, 2), TC_VERDICT_SLOWER);
	assert_int_equal(tc_compare_verdict(-2, -0.5), TC_VERDICT_FASTER);
	assert_int_equal(tc_compare_verdict(-1, 1), TC_VERDICT_SAME);
	assert_int_equal(tc_compare_verdict(0, 0), TC_VERDICT_SAME);
	assert_int_equal(tc_compare_verdict(0, 3), TC_VERDICT_SAME);
	assert_int_equal(tc_compare_verdict(NAN, 1), TC_VERDICT_NA);
	assert_string_equal(tc_verdict_name(TC_VERDICT_SAME), "no significant difference");
	assert_int_equal(tc_metric_parse("max_avg"), TC_METRIC_MAX_AVG);
	assert_int_equal(tc_metric_parse("p99"), -EINVAL);
}

/* A column against itself (the same file): no significant difference, exactly 0. */
static void test_self_same(void **state)
{
	static const int loc[] = { 100, 300 };
	struct spec s = { "user", "t0", 2, two, 2, 5, 2, gen_shift, loc, 7 };
	struct tc_result_file *f = load(&s);
	struct tc_compare_column cols[] = {
		{ f, 0, -1, 1.0 }, { f, 0, 0, 1.0 }, { f, 1, -1, 1.0 }, { f, 1, 2, 1.0 },
	};
	struct tc_compare *r;
	int row, m, c;

	assert_int_equal(run(cols, 4, 2000, &r), 0);
	assert_int_equal(r->nr_rows, 2);
	for (row = 0; row < 2; row++)
		for (c = 1; c < 4; c += 2)
			for (m = 0; m < TC_NR_METRICS; m++) {
				const struct tc_compare_cell *x = cell(r, row, c, m);

				/* no stats_1cpu in these files: no such row */
				if (m == TC_METRIC_PERCENTILE_1CPU) {
					assert_false(x->present);
					continue;
				}
				assert_int_equal(x->verdict, TC_VERDICT_SAME);
				assert_true(x->lo == 0 && x->hi == 0 && x->change == 0);
			}
	/* the reference columns carry no verdict */
	assert_int_equal(cell(r, 0, 0, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_NA);
	assert_true(isnan(cell(r, 0, 0, TC_METRIC_AVERAGE)->change));
	tc_compare_free(r);
	tc_result_file_free(f);
}

/* A copy of a file (another path, same run) pairs with the original too. */
static void test_copy_is_same_run(void **state)
{
	static const int loc[] = { 100, 300 };
	struct spec s = { "user", "t1", 2, two, 1, 4, 1, gen_shift, loc, 9 };
	struct tc_result_file *a = load(&s), *b = load(&s);
	struct tc_compare_column cols[] = { { a, 0, -1, 1.0 }, { b, 0, 0, 1.0 } };
	struct tc_compare *r;
	int m;

	assert_true(tc_compare_same_run(a, b));
	assert_int_equal(run(cols, 2, 500, &r), 0);
	for (m = 0; m < TC_NR_METRICS; m++)
		if (m != TC_METRIC_PERCENTILE_1CPU)
			assert_int_equal(cell(r, 0, 1, m)->verdict, TC_VERDICT_SAME);
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/*
 * Independent runs, clearly different locations: with one run a side the
 * between-run variation is unknown (?); with three runs a side, slower one
 * way and faster the other.
 */
static void test_slower_faster(void **state)
{
	static const int la[] = { 100, 100 }, lb[] = { 160, 160 };
	struct spec sa = { "user", "run-a", 2, two, 1, 5, 2, gen_shift, la, 11 };
	struct spec sb = { "user", "run-b", 2, two, 1, 5, 2, gen_shift, lb, 12 };
	struct tc_result_file *a = load(&sa), *b = load(&sb);
	struct tc_compare_column cols[] = { { a, 0, -1, 1.0 }, { b, 0, 0, 1.0 } };
	struct tc_compare_column back[2];
	struct tc_compare *r;
	int m;

	assert_false(tc_compare_same_run(a, b));
	assert_int_equal(run(cols, 2, 2000, &r), 0);
	for (m = 0; m < TC_NR_METRICS; m++)
		if (m != TC_METRIC_PERCENTILE_1CPU)
			assert_int_equal(cell(r, 0, 1, m)->verdict, TC_VERDICT_UNKNOWN);
	assert_true(isnan(cell(r, 0, 1, TC_METRIC_AVERAGE)->lo));
	assert_true(fabs(cell(r, 0, 1, TC_METRIC_AVERAGE)->change - 60) < 5);
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);

	a = load_runs(&sa, 3);
	b = load_runs(&sb, 3);
	cols[0].file = back[1].file = a;
	cols[1].file = back[0].file = b;
	back[0].config = back[1].config = 0;
	back[0].ref = -1;
	back[1].ref = 0;
	back[0].scale = back[1].scale = 1.0;
	assert_int_equal(a->nr_runs, 3);
	assert_int_equal(run(cols, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_SLOWER);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_SLOWER);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_PERCENTILE)->verdict, TC_VERDICT_SLOWER);
	assert_true(cell(r, 0, 1, TC_METRIC_AVERAGE)->lo > 40);
	assert_true(cell(r, 0, 1, TC_METRIC_AVERAGE)->hi < 80);
	assert_true(cell(r, 0, 1, TC_METRIC_AVERAGE)->runs == 3);
	tc_compare_free(r);
	assert_int_equal(run(back, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_FASTER);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_FASTER);
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/*
 * The percentile of the one-CPU runs (percentile_1cpu): the median over the
 * runs of one figure per run, exactly; with one run a side no verdict (a
 * run's repetitions say nothing of its spread), with three a side slower.
 */
static void test_percentile_1cpu(void **state)
{
	static const int la[] = { 100, 100 }, lb[] = { 160, 160 };
	struct spec sa = { "user", "run-a", 2, two, 2, 5, 2, gen_shift, la, 31 };
	struct spec sb = { "user", "run-b", 2, two, 2, 5, 2, gen_shift, lb, 32 };
	struct tc_result_file *a = load(&sa), *b = load(&sb);
	struct tc_compare_column cols[] = { { a, 0, -1, 1.0 }, { b, 0, 0, 1.0 } };
	const struct tc_compare_cell *x;
	struct tc_compare *r;
	int i;

	(void)state;
	a->rows[0].cells[0].p1cpu[0] = 30;
	b->rows[0].cells[0].p1cpu[0] = 40;
	assert_int_equal(run(cols, 2, 500, &r), 0);
	x = cell(r, 0, 1, TC_METRIC_PERCENTILE_1CPU);
	assert_true(x->present);
	assert_true(fabs(cell(r, 0, 0, TC_METRIC_PERCENTILE_1CPU)->value - 30) < 1e-9);
	assert_true(fabs(x->value - 40) < 1e-9);
	assert_int_equal(x->verdict, TC_VERDICT_UNKNOWN);
	/* the second pair recorded none: no such figure there */
	assert_false(cell(r, 1, 1, TC_METRIC_PERCENTILE_1CPU)->present);
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);

	a = load_runs(&sa, 3);
	b = load_runs(&sb, 3);
	for (i = 0; i < 3; i++) {
		a->rows[0].cells[0].p1cpu[i] = 30 + i;		/* 30, 31, 32 */
		b->rows[0].cells[0].p1cpu[i] = 42 - 2 * i;	/* 42, 40, 38 */
	}
	cols[0].file = a;
	cols[1].file = b;
	assert_int_equal(run(cols, 2, 2000, &r), 0);
	x = cell(r, 0, 1, TC_METRIC_PERCENTILE_1CPU);
	/* the medians of the runs, as a sort of the three gives them */
	assert_true(fabs(cell(r, 0, 0, TC_METRIC_PERCENTILE_1CPU)->value - 31) < 1e-9);
	assert_true(fabs(x->value - 40) < 1e-9);
	assert_int_equal(x->verdict, TC_VERDICT_SLOWER);
	assert_true(isnan(x->within));
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* Independent runs of one distribution: the interval of the average contains 0. */
static void test_same_distribution(void **state)
{
	static const int loc[] = { 200, 200 };
	struct spec sa = { "user", "run-a", 2, two, 1, 6, 1, gen_shift, loc, 21 };
	struct spec sb = { "user", "run-b", 2, two, 1, 6, 1, gen_shift, loc, 22 };
	struct tc_result_file *a = load_runs(&sa, 4), *b = load_runs(&sb, 4);
	struct tc_compare_column cols[] = { { a, 0, -1, 1.0 }, { b, 0, 0, 1.0 } };
	struct tc_compare *r;

	assert_int_equal(run(cols, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_SAME);
	assert_true(cell(r, 0, 1, TC_METRIC_AVERAGE)->lo < 0);
	assert_true(cell(r, 0, 1, TC_METRIC_AVERAGE)->hi > 0);
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* One repetition: n/a, never a guess; the value and change are still there. */
static void test_one_rep_na(void **state)
{
	static const int loc[] = { 100, 200 };
	struct spec s = { "user", "one", 2, two, 1, 1, 2, gen_shift, loc, 5 };
	struct tc_result_file *f = load(&s);
	struct tc_compare_column cols[] = { { f, 0, -1, 1.0 }, { f, 1, 0, 1.0 } };
	struct tc_compare *r;
	int m;

	assert_int_equal(run(cols, 2, 2000, &r), 0);
	for (m = 0; m < TC_NR_METRICS; m++) {
		const struct tc_compare_cell *x = cell(r, 0, 1, m);

		assert_int_equal(x->verdict, TC_VERDICT_NA);
		assert_true(isnan(x->lo) && isnan(x->hi));
		assert_int_equal(x->reps, 1);
	}
	assert_true(cell(r, 0, 1, TC_METRIC_AVERAGE)->change > 50);
	tc_compare_free(r);
	tc_result_file_free(f);
}

/*
 * Configurations of one run share each repetition's conditions: a
 * repetition-to-repetition swing (+-6 ticks), identical in both, and a
 * constant 1-tick difference. Resampled together (one run), the difference of the averages
 * is exactly 1 in every replicate: slower.
 */
static void test_paired_same_run(void **state)
{
	static const int loc[] = { 500, 500 };
	struct spec s = { "user", "paired", 2, two, 1, 6, 1, gen_shift, loc, 3 };
	struct tc_result_file *f;
	struct tc_compare *r;
	struct tc_compare_column cols[2];
	char err[TC_RESULT_ERR_LEN], *text = make_json(&s);
	json_t *root, *cells;
	size_t k;
	int ret;

	root = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(root);
	cells = json_object_get(json_array_get(json_object_get(json_object_get(root, "user"),
							       "pairs"), 0), "cells");
	/* configuration 1 := configuration 0 + 1 tick, sample by sample */
	{
		json_t *c0 = json_array_get(cells, 0), *c1 = json_deep_copy(c0), *snaps;

		json_object_set_new(c1, "configuration", json_string("other"));
		snaps = json_object_get(c1, "snapshots");
		for (k = 0; k < json_array_size(snaps); k++) {
			json_t *sn = json_array_get(snaps, k), *b = json_object_get(sn, "buckets");
			json_t *top = json_object_get(sn, "top");
			const char *sums = json_string_value(json_object_get(sn, "sum"));
			unsigned long long sum = strtoull(sums, NULL, 10);
			json_int_t n = json_integer_value(json_object_get(sn, "n"));
			size_t i;

			/* values stay below 4096: bucket index = value */
			for (i = 0; i < json_array_size(b); i++) {
				json_t *e = json_array_get(b, i);

				json_array_set_new(e, 0, json_integer(json_integer_value(
							 json_array_get(e, 0)) + 1));
			}
			for (i = 0; i < json_array_size(top); i++)
				json_array_set_new(top, i, json_integer(json_integer_value(
							   json_array_get(top, i)) + 1));
			json_object_set_new(sn, "min", json_integer(json_integer_value(
							 json_object_get(sn, "min")) + 1));
			json_object_set_new(sn, "max", json_integer(json_integer_value(
							 json_object_get(sn, "max")) + 1));
			text = NULL;
			assert_true(asprintf(&text, "%llu", sum + (unsigned long long)n) > 0);
			json_object_set_new(sn, "sum", json_string(text));
			free(text);
		}
		json_array_set_new(cells, 1, c1);
	}
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	ret = tc_result_file_parse(text, strlen(text), "paired.json", &f, err, sizeof(err));
	free(text);
	if (ret)
		fail_msg("%s", err);
	cols[0] = (struct tc_compare_column){ f, 0, -1, 1.0 };
	cols[1] = (struct tc_compare_column){ f, 1, 0, 1.0 };
	assert_int_equal(run(cols, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_SLOWER);
	assert_true(fabs(cell(r, 0, 1, TC_METRIC_AVERAGE)->lo - 1) < 1e-9);
	assert_true(fabs(cell(r, 0, 1, TC_METRIC_AVERAGE)->hi - 1) < 1e-9);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_SLOWER);
	tc_compare_free(r);
	tc_result_file_free(f);
}

/* The loaded repetitions hold exactly the samples: the figures match the file's. */
static void test_reader_exact(void **state)
{
	static const int loc[] = { 100, 5000 };
	struct spec s = { "kernel", "k", 2, two, 3, 3, 2, gen_shift, loc, 33 };
	struct tc_result_file *f = load(&s);
	struct tc_hist *h = malloc(sizeof(*h));
	int c, p, k;

	assert_string_equal(f->suite, "kernel");
	assert_int_equal(f->nr_rows, 3);
	assert_int_equal(f->nr_configs, 2);
	assert_int_equal(f->repeat, 3);
	assert_int_equal(f->nr_cpus, 2);
	assert_true(f->freq_hz == 1e9);
	assert_int_equal(tc_result_file_config(f, "other"), 1);
	assert_int_equal(tc_result_file_row(f, "irq_save"), 2);
	assert_int_equal(tc_result_file_row(f, "nmi"), -ENOENT);
	for (p = 0; p < 3; p++)
		for (c = 0; c < 2; c++) {
			const struct tc_result_cell *cell = &f->rows[p].cells[c];
			tc_u64 n = 0, cnt = 0;

			assert_int_equal(cell->nr_reps, 3);
			tc_hist_init(h);
			for (k = 0; k < 3; k++) {
				assert_int_equal(cell->reps[k].rep, k);
				assert_int_equal(cell->reps[k].nr_cpus, 2);
				assert_int_equal(cell->reps[k].top_len, HIGHEST);
				tc_snapshot_add(h, NULL, &cell->reps[k], 2);
				n += 2 * SAMPLES * 2;
			}
			for (k = 0; k < (int)TC_HIST_NR_BUCKETS; k++)
				cnt += h->counts[k];
			assert_int_equal(h->n, n);
			assert_int_equal(cnt, n);
		}
	free(h);
	tc_result_file_free(f);
}

static int parse_text(const char *text, char *err)
{
	struct tc_result_file *f = (void *)1;
	int ret = tc_result_file_parse(text, strlen(text), "bad.json", &f, err,
				       TC_RESULT_ERR_LEN);

	if (!ret)
		tc_result_file_free(f);
	else
		assert_null(f);
	return ret;
}

/* Replace the first occurrence of @from in @s by @to (new string). */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	char *r;

	assert_non_null(p);
	assert_true(asprintf(&r, "%.*s%s%s", (int)(p - s), s, to, p + strlen(from)) > 0);
	return r;
}

static void expect(const char *text, int want, const char *needle)
{
	char err[TC_RESULT_ERR_LEN];
	int ret = parse_text(text, err);

	if (ret != want || !strstr(err, needle) || strchr(err, '\n') ||
	    strncmp(err, "bad.json: ", 10))
		fail_msg("got %d '%s', wanted %d with '%s'", ret, err, want, needle);
}

static void test_reader_rejects(void **state)
{
	static const int loc[] = { 100, 5000 };
	struct spec s = { "user", "r", 2, two, 1, 2, 1, gen_shift, loc, 44 };
	char *good = make_json(&s), *t, *deep;
	char err[TC_RESULT_ERR_LEN];
	size_t i;

	assert_int_equal(parse_text(good, err), 0);
	expect("", -EINVAL, "empty");
	expect("{\"file_version\": 1", -EINVAL, "truncated");
	expect("IRQ Metrics", -EINVAL, "not valid JSON");
	expect("[1, 2]", -EINVAL, "an array where a result object was expected");
	expect("{\"file_version\": 99999999999999999999999}", -EINVAL, "not valid JSON");
	expect("{\"file_version\": 1e400}", -EINVAL, "not valid JSON");

	t = subst(good, "\"file_version\":1", "\"file_version\":3");
	expect(t, -EPROTONOSUPPORT, "newer");
	free(t);
	t = subst(good, "\"file_version\":1", "\"file_version\":2");
	expect(t, -EINVAL, "runs: an array of 1 to");
	free(t);
	t = subst(good, "\"suite\":\"user\"", "\"suite\":\"gpu\"");
	expect(t, -EOPNOTSUPP, "unknown suite 'gpu'");
	free(t);
	t = subst(good, "\"hist_layout\":1", "\"hist_layout\":2");
	expect(t, -EPROTONOSUPPORT, "histogram layout 2");
	free(t);
	t = subst(good, "\"n\":2000", "\"n\":-2000");
	expect(t, -EINVAL, "out of range");
	free(t);
	t = subst(good, "\"buckets\":[[", "\"buckets\":[[99999,1],[");
	expect(t, -EINVAL, "index 99999 is out of range");
	free(t);
	t = subst(good, "\"buckets\":[[", "\"buckets\":[[0,9223372036854775807],[");
	expect(t, -EINVAL, "count");
	free(t);
	t = subst(good, "\"sum\":\"", "\"sum\":\"9");
	expect(t, -EINVAL, "sum");
	free(t);
	t = subst(good, "\"sum\":\"", "\"sum\":\"99999999999999999999999999999999999999999");
	expect(t, -EINVAL, "2^128");
	free(t);
	t = subst(good, "\"top\":[", "\"top\":[999999999,");
	expect(t, -EINVAL, "top");
	free(t);
	t = subst(good, "\"top\":[", "\"top\":[0,");
	expect(t, -EINVAL, "min(n, highest)");
	free(t);
	t = subst(good, "\"configuration\":\"base\"", "\"configuration\":\"nope\"");
	expect(t, -EINVAL, "not one of the file's configurations");
	free(t);
	t = subst(good, "\"name\":\"base\"", "\"name\":\"a\\u001b[31mb\"");
	expect(t, -EINVAL, "printable");
	free(t);
	t = subst(good, "\"file_version\":1", "\"file_version\":1,\"file_version\":1");
	expect(t, -EINVAL, "duplicate");
	free(t);
	t = subst(good, "\"rep\":1", "\"rep\":0");
	expect(t, -EINVAL, "twice");
	free(t);

	/* very long strings: a 1 MB configuration name, a 1 MB release (kept, cut) */
	deep = malloc(1 << 20);
	memset(deep, 'x', (1 << 20) - 1);
	deep[(1 << 20) - 1] = 0;
	assert_true(asprintf(&t, "\"name\":\"%s\"", deep) > 0);
	{
		char *u = subst(good, "\"name\":\"base\"", t);

		expect(u, -EINVAL, "a name of 1 to 64 characters");
		free(u);
	}
	free(t);
	free(deep);

	/* deep nesting */
	deep = malloc(200002);
	for (i = 0; i < 100000; i++) {
		deep[i] = '[';
		deep[199999 - i] = ']';
	}
	deep[200000] = 0;
	expect(deep, -EINVAL, "not valid JSON");
	free(deep);
	free(good);
}

/* Rows are the union of the columns' pairs; a column without a pair has no cell. */
static void test_rows_union(void **state)
{
	static const int loc[] = { 100, 100 };
	struct spec sa = { "user", "a", 2, two, 1, 2, 1, gen_shift, loc, 1 };
	struct spec sb = { "user", "b", 2, two, 3, 2, 1, gen_shift, loc, 2 };
	struct tc_result_file *a = load(&sa), *b = load(&sb);
	struct tc_compare_column cols[] = { { a, 0, -1, 1.0 }, { b, 1, 0, 2.0 } };
	struct tc_compare *r;

	assert_int_equal(run(cols, 2, 200, &r), 0);
	assert_int_equal(r->nr_rows, 3);
	assert_string_equal(r->rows[1].name, "preempt");
	assert_false(cell(r, 1, 0, TC_METRIC_AVERAGE)->present);
	assert_true(cell(r, 1, 1, TC_METRIC_AVERAGE)->present);
	assert_int_equal(cell(r, 1, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_NA);
	/* scale 2: twice the ticks, but one run a side: unknown */
	assert_true(fabs(cell(r, 0, 1, TC_METRIC_AVERAGE)->change - 100) < 10);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_UNKNOWN);
	tc_compare_free(r);

	/* bad options */
	cols[1].scale = 0;
	assert_int_equal(run(cols, 2, 200, &r), -EINVAL);
	assert_null(r);
	cols[1].scale = 1;
	cols[1].ref = 5;
	assert_int_equal(run(cols, 2, 200, &r), -EINVAL);
	cols[1].ref = 0;
	assert_int_equal(run(cols, 2, 20, &r), -EINVAL);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* ---- the system suite: one value per round, profiles as columns ---- */

/*
 * A system result: profiles "none" and "syscalls", metrics "getpid"
 * (ns/call, lower is better) and "fs 1k create" (files/s, higher is
 * better), @reps rounds; round r of profile c is @base[metric][c] times
 * (1 + a spread of +-2% that depends on the round only), so the two
 * profiles' rounds are paired like those of a real run.
 */
static char *make_sys_json(const char *start, int reps, const double base[2][2])
{
	static const char *const prof[] = { "none", "syscalls" };
	static const char *const mname[] = { "getpid", "fs 1k create" };
	static const char *const unit[] = { "ns/call", "files/s" };
	json_t *root, *profs = json_array(), *metrics = json_array();
	char *text;
	int m, c, k;

	for (c = 0; c < 2; c++)
		json_array_append_new(profs, json_pack("{s:s, s:b}", "name", prof[c],
						       "available", 1));
	for (m = 0; m < 2; m++) {
		json_t *cells = json_array();

		for (c = 0; c < 2; c++) {
			json_t *v = json_array(), *w = json_array(), *e = json_array();

			for (k = 0; k < reps; k++) {
				json_array_append_new(v, json_real(base[m][c] *
						      (1 + ((k * 7) % 5 - 2) / 100.0)));
				json_array_append_new(w, json_integer(1000));
				json_array_append_new(e, json_integer(c ? 50 : 0));
			}
			json_array_append_new(cells, json_pack(
				"{s:s, s:o, s:o, s:O, s:O, s:O, s:O, s:n, s:n}",
				"profile", prof[c], "values", v, "work", w,
				"events_written", e, "events_lost", e, "events_in_buffer", e,
				"events_from_workload", e, "summary", "overhead_pct"));
			json_decref(e);
		}
		json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:b, s:i, s:o}",
			"name", mname[m], "unit", unit[m], "work_unit", "calls",
			"higher_is_better", m == 1, "work_asked", 1000, "cells", cells));
	}
	root = json_pack("{s:i, s:{s:s}, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:[i],"
			 " s:{s:i, s:o, s:[{s:s, s:o}]}}",
			 "file_version", 1, "tool", "name", "tracecost", "suite", "system",
			 "command", "tracecost run --suite system", "start", start, "end", start,
			 "uname", "release", "6.1.0-test", "nodename", "box", "machine", "x86_64",
			 "cpus", 0, "system", "repeat", reps, "profiles", profs,
			 "workloads", "name", "w", "metrics", metrics);
	assert_non_null(root);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return text;
}

static struct tc_result_file *load_sys(const char *start, int reps, const double base[2][2])
{
	char err[TC_RESULT_ERR_LEN], *text = make_sys_json(start, reps, base);
	struct tc_result_file *f;

	if (tc_result_file_parse(text, strlen(text), "sys.json", &f, err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
	return f;
}

static struct tc_result_file *load_sys_runs(const char *start, int reps,
					   const double base[2][2], int n)
{
	struct tc_result_file *runs[8], *p;
	char err[TC_RESULT_ERR_LEN], name[8][32];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name[i], sizeof(name[i]), "%s/%d", start, i);
		runs[i] = load_sys(name[i], reps, base);
	}
	if (tc_result_file_pool(runs, n, start, &p, err, sizeof(err)))
		fail_msg("%s", err);
	for (i = 0; i < n; i++)
		tc_result_file_free(runs[i]);
	return p;
}

static void test_sys_reader(void **state)
{
	static const double base[2][2] = { { 100, 200 }, { 1000, 500 } };
	struct tc_result_file *f = load_sys("s0", 5, base);

	assert_int_equal(f->shape, TC_RESULT_SHAPE_VALUES);
	assert_int_equal(f->nr_configs, 2);
	assert_string_equal(f->configs[1], "syscalls");
	assert_int_equal(f->nr_rows, 2);
	assert_int_equal(f->repeat, 5);
	assert_int_equal(f->nr_cpus, 1);
	assert_string_equal(f->rows[1].name, "fs 1k create");
	assert_string_equal(f->rows[1].unit, "files/s");
	assert_true(f->rows[1].higher_better);
	assert_false(f->rows[0].higher_better);
	assert_string_equal(f->rows[0].title, "getpid: lower is better (calls per run: 1000)");
	assert_int_equal(f->rows[0].cells[1].nr_reps, 5);
	assert_null(f->rows[0].cells[1].reps);
	/* round 1: (1 * 7) % 5 - 2 = 0 */
	assert_true(f->rows[0].cells[1].values[1] == 200);
	assert_true(tc_metric_applies(TC_RESULT_SHAPE_VALUES, TC_METRIC_MEDIAN));
	assert_false(tc_metric_applies(TC_RESULT_SHAPE_VALUES, TC_METRIC_PERCENTILE));
	assert_false(tc_metric_applies(TC_RESULT_SHAPE_VALUES, TC_METRIC_MAX_AVG));
	tc_result_file_free(f);
}

/*
 * Clearly different profiles: syscalls costs twice the ns/call (slower) and
 * creates half the files/s (also slower: higher is better there); with the
 * columns swapped both are faster. The figures are those of the rounds.
 */
static void test_sys_verdicts(void **state)
{
	static const double base[2][2] = { { 100, 200 }, { 1000, 500 } };
	struct tc_result_file *f = load_sys("s1", 6, base);
	struct tc_compare_column cols[] = { { f, 0, -1, 1.0 }, { f, 1, 0, 1.0 } };
	struct tc_compare_column back[] = { { f, 1, -1, 1.0 }, { f, 0, 0, 1.0 } };
	struct tc_compare *r;
	int m;

	assert_int_equal(run(cols, 2, 2000, &r), 0);
	assert_int_equal(r->nr_rows, 2);
	assert_string_equal(r->rows[1].unit, "files/s");
	assert_true(r->rows[1].higher_better);
	for (m = 0; m < TC_NR_METRICS; m++) {
		bool applies = tc_metric_applies(TC_RESULT_SHAPE_VALUES, m);

		assert_int_equal(cell(r, 0, 1, m)->present, applies);
		if (!applies)
			continue;
		assert_int_equal(cell(r, 0, 1, m)->verdict, TC_VERDICT_SLOWER);
		assert_true(cell(r, 0, 1, m)->lo > 0);
		/* fewer files/s: the difference is negative, the verdict slower */
		assert_int_equal(cell(r, 1, 1, m)->verdict, TC_VERDICT_SLOWER);
		assert_true(cell(r, 1, 1, m)->hi < 0);
		assert_true(fabs(cell(r, 0, 1, m)->change - 100) < 1e-6);
		assert_true(fabs(cell(r, 1, 1, m)->change + 50) < 1e-6);
	}
	/* rounds: 0 -2%, 1 0%, 2 +2%, 3 -1%, 4 +1%, 5 -2%: median of 6 = mean of 0% and -1% */
	assert_true(fabs(cell(r, 0, 0, TC_METRIC_MEDIAN)->value - 99.5) < 1e-9);
	assert_true(fabs(cell(r, 0, 0, TC_METRIC_MIN)->value - 98) < 1e-9);
	assert_true(fabs(cell(r, 0, 0, TC_METRIC_MAX)->value - 102) < 1e-9);
	assert_true(fabs(cell(r, 0, 0, TC_METRIC_AVERAGE)->value - 99.6666666667) < 1e-6);
	tc_compare_free(r);

	assert_int_equal(run(back, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_FASTER);
	assert_int_equal(cell(r, 1, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_FASTER);
	assert_true(cell(r, 1, 1, TC_METRIC_MEDIAN)->lo > 0);
	tc_compare_free(r);
	assert_int_equal(tc_compare_verdict_dir(1, 2, true), TC_VERDICT_FASTER);
	assert_int_equal(tc_compare_verdict_dir(-2, -1, true), TC_VERDICT_SLOWER);
	assert_int_equal(tc_compare_verdict_dir(-1, 1, true), TC_VERDICT_SAME);
	assert_int_equal(tc_compare_verdict_dir(NAN, 1, true), TC_VERDICT_NA);
	tc_result_file_free(f);
}

/* Independent system runs, one slower: slower one way, faster the other. */
static void test_sys_two_runs(void **state)
{
	static const double ba[2][2] = { { 100, 200 }, { 1000, 500 } };
	static const double bb[2][2] = { { 150, 300 }, { 700, 350 } };
	struct tc_result_file *a = load_sys_runs("ra", 8, ba, 3), *b = load_sys_runs("rb", 8, bb, 3);
	struct tc_compare_column cols[] = { { a, 0, -1, 1.0 }, { b, 0, 0, 1.0 } };
	struct tc_compare_column back[] = { { b, 0, -1, 1.0 }, { a, 0, 0, 1.0 } };
	struct tc_compare *r;

	assert_false(tc_compare_same_run(a, b));
	assert_int_equal(run(cols, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_SLOWER);
	assert_int_equal(cell(r, 1, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_SLOWER);
	tc_compare_free(r);
	assert_int_equal(run(back, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_FASTER);
	assert_int_equal(cell(r, 1, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_FASTER);
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* Identical results: the same file, or two runs with the same values: ~. */
static void test_sys_same(void **state)
{
	static const double base[2][2] = { { 100, 200 }, { 1000, 500 } };
	struct tc_result_file *a = load_sys("sa", 6, base), *b = load_sys("sb", 6, base);
	struct tc_compare_column self[] = {
		{ a, 0, -1, 1.0 }, { a, 1, -1, 1.0 }, { a, 0, 0, 1.0 }, { a, 1, 1, 1.0 },
	};
	struct tc_compare_column two_runs[] = { { a, 1, -1, 1.0 }, { b, 1, 0, 1.0 } };
	struct tc_compare *r;
	int row, c, m;

	assert_int_equal(run(self, 4, 2000, &r), 0);
	for (row = 0; row < 2; row++)
		for (c = 2; c < 4; c++)
			for (m = 0; m < TC_NR_METRICS; m++) {
				const struct tc_compare_cell *x = cell(r, row, c, m);

				if (!tc_metric_applies(TC_RESULT_SHAPE_VALUES, m))
					continue;
				assert_int_equal(x->verdict, TC_VERDICT_SAME);
				assert_true(x->lo == 0 && x->hi == 0 && x->change == 0);
			}
	tc_compare_free(r);
	assert_int_equal(run(two_runs, 2, 2000, &r), 0);
	for (row = 0; row < 2; row++) {
		assert_int_equal(cell(r, row, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_UNKNOWN);
		assert_int_equal(cell(r, row, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_UNKNOWN);
	}
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
	/* three runs a side with the same values: no significant difference */
	a = load_sys_runs("sa", 6, base, 3);
	b = load_sys_runs("sb", 6, base, 3);
	two_runs[0].file = a;
	two_runs[1].file = b;
	assert_int_equal(run(two_runs, 2, 2000, &r), 0);
	for (row = 0; row < 2; row++) {
		assert_int_equal(cell(r, row, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_SAME);
		assert_int_equal(cell(r, row, 1, TC_METRIC_AVERAGE)->verdict, TC_VERDICT_SAME);
	}
	tc_compare_free(r);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* One round: value and change, verdict n/a; system and histograms never mix. */
static void test_sys_one_round(void **state)
{
	static const double base[2][2] = { { 100, 200 }, { 1000, 500 } };
	static const int loc[] = { 100, 200 };
	struct spec s = { "user", "u", 2, two, 1, 2, 1, gen_shift, loc, 9 };
	struct tc_result_file *f = load_sys("one", 1, base), *u = load(&s);
	struct tc_compare_column cols[] = { { f, 0, -1, 1.0 }, { f, 1, 0, 1.0 } };
	struct tc_compare_column mixed[] = { { u, 0, -1, 1.0 }, { f, 1, 0, 1.0 } };
	struct tc_compare *r;

	assert_int_equal(run(cols, 2, 2000, &r), 0);
	assert_int_equal(cell(r, 0, 1, TC_METRIC_MEDIAN)->verdict, TC_VERDICT_NA);
	assert_true(isnan(cell(r, 0, 1, TC_METRIC_MEDIAN)->lo));
	assert_true(fabs(cell(r, 0, 1, TC_METRIC_MEDIAN)->change - 100) < 1e-9);
	assert_int_equal(cell(r, 1, 1, TC_METRIC_MAX)->verdict, TC_VERDICT_NA);
	tc_compare_free(r);
	assert_int_equal(run(mixed, 2, 2000, &r), -EINVAL);
	assert_null(r);
	tc_result_file_free(f);
	tc_result_file_free(u);
}

static void expect_sys(const char *good, const char *from, const char *to, const char *needle)
{
	char *t = subst(good, from, to);

	expect(t, -EINVAL, needle);
	free(t);
}

static void test_sys_reader_rejects(void **state)
{
	static const double base[2][2] = { { 100, 200 }, { 1000, 500 } };
	char *good = make_sys_json("bad", 3, base);
	char err[TC_RESULT_ERR_LEN];

	assert_int_equal(parse_text(good, err), 0);
	expect_sys(good, "\"repeat\":3", "\"repeat\":0", "system.repeat: 0 is out of range");
	expect_sys(good, "\"repeat\":3", "\"repeat\":4", "3 values for 4 rounds");
	expect_sys(good, "\"repeat\":3", "\"repeat\":\"3\"", "a string where an integer");
	expect_sys(good, "\"values\":[98.0,", "\"values\":[-98.0,", "values[0]: a number in [0");
	expect_sys(good, "\"values\":[98.0,", "\"values\":[\"98\",", "values[0]: a number");
	expect_sys(good, "\"values\":[98.0,", "\"values\":[1e300,", "values[0]: a number");
	expect_sys(good, "\"work\":[1000,", "\"work\":[-1,", "work[0]: a non-negative integer");
	expect_sys(good, "\"events_lost\":[50,", "\"events_lost\":[51,", "more than events_written");
	expect_sys(good, "\"profile\":\"syscalls\"", "\"profile\":\"sched\"",
		   "not one of the file's available profiles");
	expect_sys(good, "\"profile\":\"syscalls\"", "\"profile\":\"none\"", "appears twice");
	expect_sys(good, "\"name\":\"fs 1k create\"", "\"name\":\"getpid\"",
		   "metric 'getpid' appears twice");
	expect_sys(good, "\"higher_is_better\":true", "\"higher_is_better\":1",
		   "higher_is_better: an integer where a boolean");
	expect_sys(good, "\"unit\":\"files/s\"", "\"unit\":\"\"", "unit: a name of 1 to");
	expect_sys(good, "\"available\":true}]", "\"available\":false}]",
		   "2 cells for 1 available profiles");
	expect_sys(good, "\"summary\":null", "\"summary\":{\"median\":1,\"min\":1,\"max\":1}",
		   "summary.median: 1 is not the median");
	expect_sys(good, "\"summary\":null", "\"summary\":7", "summary: an integer where");
	expect_sys(good, "\"cpus\":[0]", "\"cpus\":[-1]", "cpus[0]: a CPU number");
	expect_sys(good, "\"metrics\":[", "\"metrics\":[7,", "metrics[0]: an integer where");
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_ranks),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_self_same),
		cmocka_unit_test(test_copy_is_same_run),
		cmocka_unit_test(test_slower_faster),
		cmocka_unit_test(test_percentile_1cpu),
		cmocka_unit_test(test_same_distribution),
		cmocka_unit_test(test_one_rep_na),
		cmocka_unit_test(test_paired_same_run),
		cmocka_unit_test(test_reader_exact),
		cmocka_unit_test(test_reader_rejects),
		cmocka_unit_test(test_rows_union),
		cmocka_unit_test(test_sys_reader),
		cmocka_unit_test(test_sys_verdicts),
		cmocka_unit_test(test_sys_two_runs),
		cmocka_unit_test(test_sys_same),
		cmocka_unit_test(test_sys_one_round),
		cmocka_unit_test(test_sys_reader_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
