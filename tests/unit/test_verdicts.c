// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_verdicts.c - the comparison's claims, tested like code on synthetic
 * data with known variance components (lib/compare.c, tracecost/compare.h):
 *
 *  - Student's t quantiles against published values;
 *  - over many simulated A/A experiments (two independent groups of
 *    sessions of one distribution, three levels: a value per repetition =
 *    mu + session effect (sd sigma_s, one per file) + run effect (sd
 *    sigma_b) + noise (sd sigma_w)), the 95 % interval covers the true
 *    difference 0 in 93-97 % of them, for the average and the median, with
 *    3, 5 and 10 sessions per side of 1 to 3 runs each, and each level
 *    large or small (medians: 93-98.5 %, see check_coverage());
 *  - single files from different sessions give "unknown" whatever their
 *    runs (their between-session variance is not measured), and files
 *    under QEMU -icount (deterministic) are compared by their runs;
 *  - the same for paired columns (two configurations of the same runs,
 *    whose difference itself varies from run to run);
 *  - a known shift of 4 between-run sds is detected;
 *  - fewer than TC_COMPARE_MIN_RUNS runs on either side of a cross-run
 *    comparison give "unknown", not a verdict;
 *  - pooling files (tc_result_file_pool()) keeps runs whole and in order;
 *  - a calibration (tracecost/calibration.h) estimated from N sessions
 *    matches the method-of-moments formula computed by brute force, reads
 *    back as written, refuses hostile files, and covers only its host and
 *    batch; single files of different sessions compared with a fresh
 *    calibration each experiment: coverage 93-97 % (medians 98.5 %).
 *
 * Files are built in memory in the system-suite shape (one value per
 * repetition), whose figures are exact functions of the values. Seeds are
 * fixed: the counts are deterministic; the bounds are those the issue and
 * the method state, not fitted to one seed (TC_TEST_SEED changes them).
 * No timing anywhere.
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
#include <unistd.h>
#include <cmocka.h>

#include <tracecost/calibration.h>
#include <tracecost/compare.h>
#include <tracecost/result.h>
#include <tracecost/stats.h>
#include "helpers.h"

#define EXPERIMENTS	1500
#define RESAMPLES	1000

static double uniform(uint64_t *s)
{
	return ((double)(tc_test_rand(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller: one standard normal deviate. */
static double normal(uint64_t *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(2 * M_PI * uniform(s));
}

struct model {
	int runs, reps;
	double mu, sd_between, sd_within;
	double sd_session;	/* one draw per file: a file is a session */
	/* configuration 1 = configuration 0 + shift + a run effect of this sd */
	double shift, sd_between_diff;
};

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

/*
 * A file of @m->runs runs x @m->reps repetitions of two configurations
 * ("a", "b") and one row ("x", unit "ns/call", lower is better). @tag makes
 * the runs of different files different runs.
 */
static struct tc_result_file *make_file(const struct model *m, uint64_t *s, int tag)
{
	struct tc_result_file *f = calloc(1, sizeof(*f));
	struct tc_result_row *row;
	double sess;
	int r, k, c;
	char buf[64];

	assert_non_null(f);
	f->path = xstrdup("synthetic.json");
	f->suite = xstrdup("system");
	f->shape = TC_RESULT_SHAPE_VALUES;
	f->release = xstrdup("6.1");
	f->nodename = xstrdup("host");
	f->machine = xstrdup("x86_64");
	f->cpu_model = xstrdup("cpu");
	snprintf(buf, sizeof(buf), "file %d", tag);
	f->start = xstrdup(buf);
	f->end = xstrdup(buf);
	f->command = xstrdup("synthetic");
	f->repeat = (unsigned int)(m->runs * m->reps);
	f->nr_runs = m->runs;
	f->nr_sessions = 1;
	f->runs = calloc((size_t)m->runs, sizeof(*f->runs));
	assert_non_null(f->runs);
	for (r = 0; r < m->runs; r++) {
		snprintf(buf, sizeof(buf), "file %d run %d", tag, r);
		f->runs[r].path = xstrdup("synthetic.json");
		f->runs[r].start = xstrdup(buf);
		f->runs[r].end = xstrdup(buf);
		f->runs[r].command = xstrdup("synthetic");
		f->runs[r].nodename = xstrdup("host");
		f->runs[r].release = xstrdup("6.1");
		f->runs[r].first_rep = (unsigned int)(r * m->reps);
		f->runs[r].nr_reps = (unsigned int)m->reps;
	}
	f->nr_configs = 2;
	f->configs = calloc(2, sizeof(*f->configs));
	assert_non_null(f->configs);
	f->configs[0] = xstrdup("a");
	f->configs[1] = xstrdup("b");
	f->nr_rows = 1;
	f->rows = row = calloc(1, sizeof(*row));
	assert_non_null(row);
	row->name = xstrdup("x");
	row->title = xstrdup("x: lower is better");
	row->unit = xstrdup("ns/call");
	row->cells = calloc(2, sizeof(*row->cells));
	assert_non_null(row->cells);
	for (c = 0; c < 2; c++) {
		row->cells[c].nr_reps = (int)f->repeat;
		row->cells[c].values = calloc(f->repeat, sizeof(double));
		assert_non_null(row->cells[c].values);
	}
	sess = m->sd_session * normal(s);
	for (r = 0; r < m->runs; r++) {
		double run = sess + m->sd_between * normal(s);
		double diff = m->shift + m->sd_between_diff * normal(s);

		for (k = 0; k < m->reps; k++) {
			int i = r * m->reps + k;

			/* values stay positive: mu is far above the spreads */
			row->cells[0].values[i] = m->mu + run + m->sd_within * normal(s);
			row->cells[1].values[i] = m->mu + run + diff + m->sd_within * normal(s);
		}
	}
	return f;
}

struct tally {
	int covered, slower, faster, unknown, na;
};

/*
 * Compare column @ca of @a with column @cb of @b (its reference) and tally,
 * for metric @m, whether the interval covers @truth and the verdict.
 */
static const struct tc_calibration *tally_cal;	/* the calibration tally_one() uses */

static void tally_one(const struct tc_result_file *a, int ca, const struct tc_result_file *b,
		      int cb, enum tc_metric m, double truth, uint64_t seed, struct tally *t)
{
	struct tc_compare_column cols[2] = {
		{ .file = b, .config = cb, .ref = -1, .scale = 1 },
		{ .file = a, .config = ca, .ref = 0, .scale = 1 },
	};
	struct tc_compare_opts o = { .resamples = RESAMPLES, .seed = seed, .confidence = 0.95,
				     .calibration = tally_cal };
	struct tc_compare *res;
	const struct tc_compare_cell *cell;

	assert_int_equal(tc_compare_run(cols, 2, &o, &res), 0);
	cell = &res->rows[0].cells[1 * TC_NR_METRICS + m];
	switch (cell->verdict) {
	case TC_VERDICT_UNKNOWN:
		t->unknown++;
		break;
	case TC_VERDICT_NA:
		t->na++;
		break;
	default:
		t->covered += cell->lo <= truth && truth <= cell->hi;
		t->slower += cell->verdict == TC_VERDICT_SLOWER;
		t->faster += cell->verdict == TC_VERDICT_FASTER;
	}
	tc_compare_free(res);
}

/*
 * @hi: the upper bound of the coverage. 97 %, except for medians: the
 * bootstrap variance of a sample median is biased upwards for small
 * samples (Hall & Martin, "Exact convergence rate of bootstrap quantile
 * variance estimator", PTRF 80, 1988), so median intervals are
 * conservative: measured 97.6-97.9 % here, i.e. fewer false alarms than
 * 5 %, never more.
 */
static void check_coverage(const char *what, const struct tally *t, int n, double hi)
{
	double cov = 100.0 * t->covered / n;

	printf("# %-52s coverage %5.1f %% (%d of %d), slower %d, faster %d\n", what, cov,
	       t->covered, n, t->slower, t->faster);
	assert_int_equal(t->unknown + t->na, 0);
	assert_true(cov >= 93.0);
	assert_true(cov <= hi + 1e-9);
}

/* @n sessions (files) of model @m pooled as one column, as a group a1,a2,a3 is. */
static struct tc_result_file *make_group(const struct model *m, uint64_t *s, int tag, int n)
{
	struct tc_result_file *files[16], *p;
	char err[TC_RESULT_ERR_LEN];
	int i;

	assert_true(n >= 1 && n <= 16);
	for (i = 0; i < n; i++)
		files[i] = make_file(m, s, tag * 16 + i);
	assert_int_equal(tc_result_file_pool(files, n, "group", &p, err, sizeof(err)), 0);
	assert_int_equal(p->nr_sessions, n);
	for (i = 0; i < n; i++)
		tc_result_file_free(files[i]);
	return p;
}

/* Independent groups of sessions (Welch): A/A, the truth is 0. */
static void aa_sessions(int sessions, int runs, int reps, double ss, double sb, double sw,
			enum tc_metric m)
{
	struct model md = { .runs = runs, .reps = reps, .mu = 1000, .sd_between = sb,
			    .sd_within = sw, .sd_session = ss };
	uint64_t s = 0x5eed0000u + (uint64_t)sessions * 104729 + (uint64_t)runs * 7919 +
		     (uint64_t)reps * 31 + m;
	struct tally t = { 0 };
	char what[128];
	int e;

	for (e = 0; e < EXPERIMENTS; e++) {
		struct tc_result_file *a = make_group(&md, &s, 2 * e, sessions);
		struct tc_result_file *b = make_group(&md, &s, 2 * e + 1, sessions);

		tally_one(a, 0, b, 0, m, 0, (uint64_t)e, &t);
		tc_result_file_free(a);
		tc_result_file_free(b);
	}
	snprintf(what, sizeof(what), "A/A %s, %d sessions x %d runs x %d reps, sd %g/%g/%g",
		 tc_metric_name(m), sessions, runs, reps, ss, sb, sw);
	check_coverage(what, &t, EXPERIMENTS, m == TC_METRIC_MEDIAN ? 98.5 : 97.0);
}

static void test_t_quantile(void **state)
{
	/* Published two-sided 95 % critical values (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2) */
	static const struct {
		double df, t;
	} tab[] = { { 1, 12.706 }, { 2, 4.303 }, { 4, 2.776 }, { 9, 2.262 }, { 30, 2.042 },
		    { 100, 1.984 } };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		assert_true(fabs(tc_stats_t_quantile(0.975, tab[i].df) - tab[i].t) < 1e-3);
	assert_true(fabs(tc_stats_t_quantile(0.975, 1e9) - 1.95996) < 1e-4);
	assert_true(fabs(tc_stats_t_quantile(0.025, 4) + 2.776) < 1e-3);
	assert_true(fabs(tc_stats_t_quantile(0.5, 3)) < 1e-9);
	assert_true(isnan(tc_stats_t_quantile(1, 3)));
	assert_true(isnan(tc_stats_t_quantile(0.9, 0)));
}

static void test_aa_average(void **state)
{
	(void)state;
	/* one run per session (a file per invocation, as bench/verdicts.sh) */
	aa_sessions(3, 1, 3, 0, 5, 2, TC_METRIC_AVERAGE);
	aa_sessions(5, 1, 3, 0, 5, 2, TC_METRIC_AVERAGE);
	aa_sessions(10, 1, 2, 0, 5, 2, TC_METRIC_AVERAGE);
	aa_sessions(5, 1, 4, 0, 0.5, 5, TC_METRIC_AVERAGE);
	/* three levels: sessions of several runs, the session effect large or small */
	aa_sessions(3, 3, 2, 5, 2, 2, TC_METRIC_AVERAGE);
	aa_sessions(5, 3, 2, 5, 2, 2, TC_METRIC_AVERAGE);
	aa_sessions(5, 2, 3, 0.5, 5, 2, TC_METRIC_AVERAGE);
}

static void test_aa_median(void **state)
{
	(void)state;
	aa_sessions(5, 1, 9, 0, 5, 2, TC_METRIC_MEDIAN);
	aa_sessions(10, 1, 5, 0, 5, 2, TC_METRIC_MEDIAN);
	aa_sessions(5, 3, 5, 5, 2, 2, TC_METRIC_MEDIAN);
}

/* Paired columns: configuration b - a varies from run to run (sd 1), truth 0. */
static void test_paired(void **state)
{
	struct model md = { .runs = 5, .reps = 3, .mu = 1000, .sd_between = 5, .sd_within = 2,
			    .sd_between_diff = 1 };
	uint64_t s = 0xfacade;
	struct tally t = { 0 };
	int e;

	(void)state;
	for (e = 0; e < EXPERIMENTS; e++) {
		struct tc_result_file *f = make_file(&md, &s, e);

		tally_one(f, 1, f, 0, TC_METRIC_AVERAGE, 0, (uint64_t)e, &t);
		tc_result_file_free(f);
	}
	check_coverage("paired average, 5 runs x 3 reps, diff sd 1 between runs", &t,
		       EXPERIMENTS, 97.0);
}

/* A shift of 4 between-run sds, 5 sessions a side: detected nearly always. */
static void test_shift_detected(void **state)
{
	struct model md = { .runs = 1, .reps = 3, .mu = 1000, .sd_between = 5, .sd_within = 2 };
	struct model shifted = md;
	uint64_t s = 0xdecade;
	struct tally t = { 0 };
	int e, n = 200;

	(void)state;
	shifted.mu += 20;
	for (e = 0; e < n; e++) {
		struct tc_result_file *a = make_group(&shifted, &s, 2 * e, 5);
		struct tc_result_file *b = make_group(&md, &s, 2 * e + 1, 5);

		tally_one(a, 0, b, 0, TC_METRIC_AVERAGE, 20, (uint64_t)e, &t);
		tc_result_file_free(a);
		tc_result_file_free(b);
	}
	printf("# shift of 4 between-run sds (5 sessions a side): slower in %d of %d\n", t.slower,
	       n);
	assert_true(t.slower >= n * 95 / 100);
	assert_int_equal(t.faster, 0);
}

/*
 * Different sessions: one file a side is unknown however many runs it holds
 * (the runs of one session resemble each other more than those of another),
 * two a side too; the same runs paired: a verdict. Under QEMU -icount (a
 * boot adds no variance) the runs of two files are the units.
 */
static void test_sessions_unknown(void **state)
{
	struct model md = { .runs = 10, .reps = 5, .mu = 1000, .sd_between = 5, .sd_within = 2,
			    .shift = 50 };
	struct model shifted = md;
	uint64_t s = 42;
	struct tally t = { 0 }, p = { 0 }, g = { 0 }, d = { 0 };
	struct tc_result_file *a, *b;
	struct tc_compare_column cols[2];
	struct tc_compare_opts o = { .resamples = RESAMPLES, .seed = 1, .confidence = 0.95 };
	struct tc_compare *res;

	(void)state;
	a = make_file(&md, &s, 1);
	b = make_file(&md, &s, 2);
	tally_one(a, 0, b, 0, TC_METRIC_AVERAGE, 0, 1, &t);
	assert_int_equal(t.unknown, 1);
	cols[0] = (struct tc_compare_column){ .file = b, .config = 0, .ref = -1, .scale = 1 };
	cols[1] = (struct tc_compare_column){ .file = a, .config = 0, .ref = 0, .scale = 1 };
	assert_int_equal(tc_compare_run(cols, 2, &o, &res), 0);
	assert_int_equal(res->rows[0].cells[TC_NR_METRICS].scope, TC_SCOPE_SESSIONS);
	tc_compare_free(res);
	/* configuration b is 50 above a in every run of the same file: paired, slower */
	tally_one(a, 1, a, 0, TC_METRIC_AVERAGE, 50, 1, &p);
	assert_int_equal(p.slower, 1);
	/* deterministic files: 10 runs a side, a shift of 50: slower */
	a->deterministic = b->deterministic = true;
	tally_one(a, 1, b, 0, TC_METRIC_AVERAGE, 50, 1, &d);
	assert_int_equal(d.slower, 1);
	tc_result_file_free(a);
	tc_result_file_free(b);
	/* two sessions a side: unknown; three: a verdict for a large shift */
	shifted.runs = 1;
	md.runs = 1;
	shifted.mu += 200;
	a = make_group(&shifted, &s, 3, 2);
	b = make_group(&md, &s, 4, 2);
	tally_one(a, 0, b, 0, TC_METRIC_AVERAGE, 200, 1, &g);
	assert_int_equal(g.unknown, 1);
	tc_result_file_free(a);
	tc_result_file_free(b);
	a = make_group(&shifted, &s, 5, 3);
	b = make_group(&md, &s, 6, 3);
	tally_one(a, 0, b, 0, TC_METRIC_AVERAGE, 200, 1, &g);
	assert_int_equal(g.slower, 1);
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* A file given twice in a group, or two copies of one run, is refused. */
static void test_pool_repeated_run(void **state)
{
	struct model md = { .runs = 2, .reps = 3, .mu = 100, .sd_between = 5, .sd_within = 2 };
	uint64_t s = 9;
	struct tc_result_file *a, *b, *p, *files[2];
	char err[TC_RESULT_ERR_LEN];

	(void)state;
	a = make_file(&md, &s, 1);
	b = make_file(&md, &s, 1);	/* same tag: the same runs (start, end, host, command) */
	files[0] = a;
	files[1] = a;
	assert_int_equal(tc_result_file_pool(files, 2, "a,a", &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "given twice"));
	files[1] = b;
	free(b->path);
	b->path = xstrdup("copy.json");
	assert_int_equal(tc_result_file_pool(files, 2, "a,b", &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "hold the same run"));
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* Pooling: runs in order, repetitions whole, the same figures as one file. */
static void test_pool(void **state)
{
	struct model md = { .runs = 2, .reps = 3, .mu = 100, .sd_between = 5, .sd_within = 2 };
	struct model other = md;
	uint64_t s = 7;
	struct tc_result_file *a, *b, *p, *files[2];
	char err[TC_RESULT_ERR_LEN];
	int i;

	(void)state;
	a = make_file(&md, &s, 1);
	b = make_file(&md, &s, 2);
	files[0] = a;
	files[1] = b;
	assert_int_equal(tc_result_file_pool(files, 2, "a,b", &p, err, sizeof(err)), 0);
	assert_int_equal(p->nr_runs, 4);
	assert_int_equal(p->repeat, 12);
	for (i = 0; i < 4; i++)
		assert_int_equal(p->runs[i].first_rep, (unsigned int)(3 * i));
	assert_string_equal(p->runs[2].start, "file 2 run 0");
	for (i = 0; i < 6; i++) {
		assert_true(p->rows[0].cells[1].values[i] == a->rows[0].cells[1].values[i]);
		assert_true(p->rows[0].cells[1].values[6 + i] == b->rows[0].cells[1].values[i]);
	}
	assert_false(tc_compare_same_run(p, a));
	tc_result_file_free(p);
	/* another unit does not pool, and says which file */
	free(b->rows[0].unit);
	b->rows[0].unit = xstrdup("us");
	assert_int_equal(tc_result_file_pool(files, 2, "a,b", &p, err, sizeof(err)), -EINVAL);
	assert_null(p);
	assert_non_null(strstr(err, "cannot be pooled"));
	(void)other;
	tc_result_file_free(a);
	tc_result_file_free(b);
}

/* A calibration of @n fresh sessions of @m (tags from @tag on). */
static struct tc_calibration *calibrate(const struct model *m, uint64_t *s, int tag, int n)
{
	struct tc_result_file *files[32];
	struct tc_calibration *cal;
	char err[256];
	int i;

	assert_true(n <= 32);
	for (i = 0; i < n; i++)
		files[i] = make_file(m, s, tag + i);
	assert_int_equal(tc_calibration_estimate(files, n, &cal, err, sizeof(err)), 0);
	for (i = 0; i < n; i++)
		tc_result_file_free(files[i]);
	return cal;
}

/*
 * Single files of different sessions (one a side), each experiment with a
 * fresh calibration of @ncal sessions of the same model: A/A coverage.
 */
static void aa_calibrated(int ncal, int runs, int reps, double ss, double sb, double sw,
			  enum tc_metric m)
{
	struct model md = { .runs = runs, .reps = reps, .mu = 1000, .sd_between = sb,
			    .sd_within = sw, .sd_session = ss };
	uint64_t s = 0xca1b0000u + (uint64_t)ncal * 104729 + (uint64_t)runs * 7919 +
		     (uint64_t)reps * 31 + m;
	struct tally t = { 0 };
	char what[128];
	int e;

	for (e = 0; e < EXPERIMENTS; e++) {
		struct tc_calibration *cal = calibrate(&md, &s, 100 * e + 2, ncal);
		struct tc_result_file *a = make_file(&md, &s, 100 * e);
		struct tc_result_file *b = make_file(&md, &s, 100 * e + 1);

		tally_cal = cal;
		tally_one(a, 0, b, 0, m, 0, (uint64_t)e, &t);
		tally_cal = NULL;
		tc_result_file_free(a);
		tc_result_file_free(b);
		tc_calibration_free(cal);
	}
	snprintf(what, sizeof(what), "calibrated %s, 1 x %d runs x %d reps, cal %d, sd %g/%g/%g",
		 tc_metric_name(m), runs, reps, ncal, ss, sb, sw);
	check_coverage(what, &t, EXPERIMENTS, m == TC_METRIC_MEDIAN ? 98.5 : 97.0);
}

static void test_calibrated_coverage(void **state)
{
	(void)state;
	aa_calibrated(8, 3, 2, 5, 2, 2, TC_METRIC_AVERAGE);
	aa_calibrated(8, 3, 2, 2, 2, 2, TC_METRIC_AVERAGE);
	aa_calibrated(5, 3, 3, 5, 1, 1, TC_METRIC_AVERAGE);
	aa_calibrated(8, 1, 3, 5, 2, 2, TC_METRIC_AVERAGE);
	aa_calibrated(12, 5, 2, 3, 3, 2, TC_METRIC_AVERAGE);
	aa_calibrated(8, 3, 5, 5, 2, 2, TC_METRIC_MEDIAN);
}

/* The estimate against the formula of tracecost/calibration.h, by brute force. */
static void test_calibration_exact(void **state)
{
	struct model md = { .runs = 3, .reps = 2, .mu = 100, .sd_between = 4, .sd_within = 3,
			    .sd_session = 6 };
	struct tc_result_file *files[4];
	struct tc_calibration *cal;
	const struct tc_calibration_entry *e;
	double x[4], expl = 0, mean = 0, var = 0, want;
	uint64_t s = 77;
	char err[256];
	int i, r, k;

	(void)state;
	for (i = 0; i < 4; i++)
		files[i] = make_file(&md, &s, i);
	for (i = 0; i < 4; i++) {
		const double *v = files[i]->rows[0].cells[0].values;
		double rm[3], rmean = 0, rss = 0;

		x[i] = 0;
		for (r = 0; r < 3; r++) {
			rm[r] = 0;
			for (k = 0; k < 2; k++)
				rm[r] += v[r * 2 + k] / 2;
			x[i] += rm[r] / 3;
			rmean += rm[r] / 3;
		}
		for (r = 0; r < 3; r++)
			rss += (rm[r] - rmean) * (rm[r] - rmean);
		expl += rss / 2 / 3;		/* b_i^2 / R_i */
		mean += x[i] / 4;
	}
	for (i = 0; i < 4; i++)
		var += (x[i] - mean) * (x[i] - mean) / 3;
	want = sqrt(fmax(0, var - expl / 4)) / mean;
	assert_int_equal(tc_calibration_estimate(files, 4, &cal, err, sizeof(err)), 0);
	e = tc_calibration_find(cal, "x", "a", TC_METRIC_AVERAGE);
	assert_non_null(e);
	assert_string_equal(e->config, "a");
	printf("# calibration: session cv %.9f, brute force %.9f\n", e->session_cv, want);
	assert_true(fabs(e->session_cv - want) < 1e-9 * want + 1e-12);
	assert_true(fabs(e->mean - mean) < 1e-9 * mean);
	assert_true(fabs(e->df - fmax(1, 3 * pow(fmax(0, var - expl / 4) / var, 2))) < 1e-9);
	/* the pooled entry for a configuration never measured */
	e = tc_calibration_find(cal, "x", "nosuch", TC_METRIC_AVERAGE);
	assert_non_null(e);
	assert_string_equal(e->config, TC_CALIBRATION_ALL);
	assert_true(e->df >= 2);
	assert_null(tc_calibration_find(cal, "nosuch", "a", TC_METRIC_AVERAGE));
	assert_int_equal(cal->sessions, 4);
	assert_int_equal(cal->runs, 3);
	tc_calibration_free(cal);

	/* refused: too few sessions, a session twice, another host */
	assert_int_equal(tc_calibration_estimate(files, 2, &cal, err, sizeof(err)), -EINVAL);
	assert_null(cal);
	free(files[3]->runs[0].start);
	files[3]->runs[0].start = xstrdup(files[0]->runs[0].start);
	free(files[3]->runs[0].end);
	files[3]->runs[0].end = xstrdup(files[0]->runs[0].end);
	assert_int_equal(tc_calibration_estimate(files, 4, &cal, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the same run"));
	free(files[3]->nodename);
	files[3]->nodename = xstrdup("other");
	assert_int_equal(tc_calibration_estimate(files, 4, &cal, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "one host"));
	for (i = 0; i < 4; i++)
		tc_result_file_free(files[i]);
}

/* Written, read back the same; hostile files refused; covers its host and batch only. */
static void test_calibration_file(void **state)
{
	struct model md = { .runs = 3, .reps = 2, .mu = 100, .sd_between = 4, .sd_within = 3,
			    .sd_session = 6 };
	struct tc_calibration *cal, *back;
	struct tc_result_file *f;
	char path[] = "/tmp/tc-calibration-XXXXXX", err[512], why[256];
	uint64_t s = 5;
	FILE *fp;
	int fd, i;

	(void)state;
	cal = calibrate(&md, &s, 0, 5);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tc_calibration_write(cal, path), 0);
	assert_int_equal(tc_calibration_read(path, &back, err, sizeof(err)), 0);
	assert_int_equal(back->nr_entries, cal->nr_entries);
	assert_int_equal(back->sessions, 5);
	assert_string_equal(back->nodename, "host");
	for (i = 0; i < cal->nr_entries; i++) {
		assert_string_equal(back->entries[i].row, cal->entries[i].row);
		assert_string_equal(back->entries[i].config, cal->entries[i].config);
		assert_int_equal(back->entries[i].metric, cal->entries[i].metric);
		assert_true(fabs(back->entries[i].session_cv - cal->entries[i].session_cv) <=
			    1e-12 * cal->entries[i].session_cv);
	}
	tc_calibration_free(back);

	/* covers: the same host and batch; not another host, not another batch */
	f = make_file(&md, &s, 99);
	assert_true(tc_calibration_covers(cal, f, why, sizeof(why)));
	f->batch = 64;
	assert_false(tc_calibration_covers(cal, f, why, sizeof(why)));
	assert_non_null(strstr(why, "--batch"));
	f->batch = 0;
	free(f->runs[1].nodename);
	f->runs[1].nodename = xstrdup("elsewhere");
	assert_false(tc_calibration_covers(cal, f, why, sizeof(why)));
	assert_non_null(strstr(why, "elsewhere"));
	tc_result_file_free(f);
	tc_calibration_free(cal);

	/* hostile: another version, a negative component, not JSON, missing */
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"calibration_version\": 2}", fp);
	fclose(fp);
	assert_int_equal(tc_calibration_read(path, &back, err, sizeof(err)), -EPROTONOSUPPORT);
	assert_null(back);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"calibration_version\": 1, \"suite\": \"user\", \"host\": {\"nodename\": \"h\", "
	      "\"machine\": \"m\", \"cpu_model\": \"c\", \"release\": \"r\"}, \"start\": \"s\", "
	      "\"end\": \"e\", \"command\": \"c\", \"sessions\": 3, \"runs\": 3, \"repeat\": 2, "
	      "\"batch\": 64, \"spacing_s\": 60, \"entries\": [{\"row\": \"irq\", \"config\": "
	      "\"stock\", \"metric\": \"average\", \"mean\": 1, \"session_cv\": -0.1, "
	      "\"run_cv\": 0.1, \"rep_cv\": 0.1, \"df\": 2}]}", fp);
	fclose(fp);
	assert_int_equal(tc_calibration_read(path, &back, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "session_cv"));
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"calibration_version\": 1,", fp);
	fclose(fp);
	assert_int_equal(tc_calibration_read(path, &back, err, sizeof(err)), -EINVAL);
	unlink(path);
	assert_int_equal(tc_calibration_read(path, &back, err, sizeof(err)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_sessions_unknown),
		cmocka_unit_test(test_pool_repeated_run),
		cmocka_unit_test(test_shift_detected),
		cmocka_unit_test(test_paired),
		cmocka_unit_test(test_aa_average),
		cmocka_unit_test(test_aa_median),
		cmocka_unit_test(test_calibration_exact),
		cmocka_unit_test(test_calibration_file),
		cmocka_unit_test(test_calibrated_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
