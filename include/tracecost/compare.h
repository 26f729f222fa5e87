/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/compare.h - result files side by side, with a bootstrap
 * confidence interval of each difference.
 *
 * Columns are configurations of loaded result files (tracecost/result.h);
 * rows are the pairs of their suite, matched by name; each cell holds the
 * figures of struct tc_stats (average, median, max_avg, P percentile, min,
 * max) over every CPU and repetition of the column, in ns or counter ticks
 * per pair. For the system suite (TC_RESULT_SHAPE_VALUES) columns are
 * profiles, rows are the workloads' metrics ("getpid", "fs 1k create"),
 * and the figures are the median, min, max and average of the column's
 * per-round values, in the row's unit (tc_metric_applies()).
 *
 * Method (documented for reviewers in doc/tracecost.1, COMPARE):
 *  - the unit of resampling is the repetition (one whole measurement on
 *    every CPU; its CPUs are merged), not the sample: samples of one
 *    repetition share its conditions (frequency, placement, other load) and
 *    are not independent, repetitions are. This is the cluster bootstrap
 *    of Davison & Hinkley, "Bootstrap Methods and their Application"
 *    (1997), section 3.8, resampling at the top level only;
 *  - a bootstrap replicate of a column draws its R repetitions with
 *    replacement, merges their histograms and top-N heaps (exactly) and
 *    recomputes every figure with tc_stats_compute(), so the replicate is
 *    the same estimator as the value shown, applied to resampled data
 *    (Efron & Tibshirani, "An Introduction to the Bootstrap" (1993), ch. 6);
 *  - the difference of a column and its reference column (chosen by the
 *    caller, e.g. the first column) is computed replicate by replicate;
 *    its confidence interval is the percentile interval of those B
 *    differences (Efron & Tibshirani ch. 13.3): the
 *    floor(B * a / 2)-th and ceil(B * (1 - a / 2))-th smallest, a = 1 -
 *    confidence;
 *  - columns from different runs are resampled independently (the
 *    two-sample bootstrap, Efron & Tibshirani ch. 8.3). Columns from the
 *    same run (the same file, or files with the same start, end, node and
 *    command) share the draws: their configurations were sampled in
 *    interleaved blocks within each repetition, so repetition i of one is
 *    paired with repetition i of the other, and resampling the pairs keeps
 *    that pairing (Efron & Tibshirani ch. 8.4 for paired data). A file
 *    compared with itself therefore differs by exactly 0 in every
 *    replicate: no significant difference;
 *  - system: the repetition is the round (every profile ran once, in column
 *    order, per round); a replicate draws the rounds with replacement and
 *    recomputes the median (mean of the middle two for an even count, as
 *    the suite), min, max and average of the drawn values; columns of one
 *    run share the draws, so round r of a profile stays paired with round r
 *    of its reference;
 *  - verdict: slower if the interval lies entirely above 0, faster if it
 *    lies entirely below, else no significant difference; n/a when a
 *    column or its reference has fewer than two repetitions (one repetition
 *    gives no spread to resample). For a row where higher is better (a
 *    rate such as files/s) the meaning flips: an interval above 0 is
 *    faster (better), below 0 slower, so that the verdict always says
 *    better or worse for the user; the value, change and interval keep
 *    their sign (tc_compare_verdict_dir());
 *  - draws come from splitmix64 (Steele, Lea & Flood, OOPSLA 2014) seeded
 *    from the options' seed and the run, so the output is reproducible.
 *
 * Library conventions: functions return 0 or -errno and print nothing.
 */
#ifndef TRACECOST_COMPARE_H
#define TRACECOST_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <tracecost/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Repetitions a column needs for an interval. */
#define TC_COMPARE_MIN_REPS	2
#define TC_COMPARE_DEFAULT_B	2000

enum tc_metric {
	TC_METRIC_AVERAGE,
	TC_METRIC_MEDIAN,
	TC_METRIC_MAX_AVG,
	TC_METRIC_PERCENTILE,
	TC_METRIC_MIN,
	TC_METRIC_MAX,
	TC_NR_METRICS
};

enum tc_verdict {
	TC_VERDICT_NA,		/* fewer than TC_COMPARE_MIN_REPS repetitions, or a reference */
	TC_VERDICT_SAME,	/* the interval contains 0 */
	TC_VERDICT_SLOWER,	/* the interval lies above 0 */
	TC_VERDICT_FASTER,	/* the interval lies below 0 */
};

/**
 * struct tc_compare_column - one column
 * @file:	a loaded result file (must outlive the comparison)
 * @config:	index of its configuration, in [0, @file->nr_configs)
 * @ref:	index of the column this one is compared with; itself or a
 *		negative number for a reference column (no change, no verdict)
 * @scale:	factor from the file's unit (counter ticks per sample) to the
 *		output unit, > 0: 1 / batch for ticks per pair,
 *		1e9 / (frequency_hz * batch) for ns per pair. Columns whose
 *		counters run at the same rate should share one frequency, so
 *		that a calibration difference of a few ppm is not reported as
 *		a difference in cost.
 */
struct tc_compare_column {
	const struct tc_result_file *file;
	int config;
	int ref;
	double scale;
};

/**
 * struct tc_compare_opts - how to compare
 * @resamples:	bootstrap replicates B; the interval needs
 *		floor(B * (1 - @confidence) / 2) >= 1
 * @seed:	seed of the draws (same seed, same output)
 * @confidence:	level of the interval, in (0, 1), e.g. 0.95
 * @percentile:	P of the percentile figure, in (0, 100]
 * @highest:	N of max_avg, 1 .. the smallest highest of the files
 *
 * @percentile and @highest are ignored (may be 0) for system files.
 */
struct tc_compare_opts {
	unsigned int resamples;
	uint64_t seed;
	double confidence;
	double percentile;
	unsigned int highest;
};

/**
 * struct tc_compare_cell - one figure of one column in one row
 * @present:	the column's file has this row
 * @reps:	repetitions behind the figure
 * @value:	the figure over every CPU and repetition
 * @change:	(@value - ref) / ref in %, ref the figure of the column's
 *		reference; NAN for a reference column, when the reference lacks
 *		the row, or when its figure is 0 (0 when both are 0)
 * @lo, @hi:	confidence interval of @value - ref; NAN when n/a
 * @verdict:	see enum tc_verdict
 */
struct tc_compare_cell {
	bool present;
	int reps;
	double value;
	double change;
	double lo, hi;
	enum tc_verdict verdict;
};

/**
 * struct tc_compare_row - one pair (or system metric), in the order first
 * met over the columns
 * @name, @title: from the first column's file that has the row
 * @unit:	system: the row's unit ("ns/call", "files/s"); else ""
 * @higher_better: system: larger values are better (the verdict flips)
 * @cells:	[column * TC_NR_METRICS + metric]; a metric that does not apply
 *		to the files' shape (tc_metric_applies()) is never present
 */
struct tc_compare_row {
	const char *name;
	const char *title;
	const char *unit;
	bool higher_better;
	struct tc_compare_cell *cells;
};

/**
 * struct tc_compare - result of tc_compare_run()
 * @nr_cols:	columns, as given
 * @nr_rows:	rows, the union of the columns' rows
 * @rows:	the rows
 */
struct tc_compare {
	int nr_cols;
	int nr_rows;
	struct tc_compare_row *rows;
};

/**
 * tc_compare_run() - compute every cell with its interval and verdict
 * @cols:	columns, each naming its reference column
 * @nr_cols:	>= 1
 * @o:		options
 * @out:	set to the result (free with tc_compare_free()), NULL on error
 *
 * Cost: B x (columns x rows) histogram merges and tc_stats_compute() calls;
 * about 1 s for B = 2000 and 15 cells on a current x86-64 core.
 *
 * Return: 0; -EINVAL for bad options, a column whose configuration or
 * reference index is out of range or whose scale is not a positive number,
 * or columns of files of different shapes (histograms and system values
 * cannot be compared); -ENOMEM.
 */
int tc_compare_run(const struct tc_compare_column *cols, int nr_cols,
		   const struct tc_compare_opts *o, struct tc_compare **out);

/** tc_compare_free() - release a result of tc_compare_run() (NULL is ignored) */
void tc_compare_free(struct tc_compare *c);

/**
 * tc_compare_interval() - percentile interval of @b bootstrap differences
 * @d:		the differences; sorted in place
 * @b:		how many, >= 1
 * @confidence:	in (0, 1)
 * @lo, @hi:	set to the floor(b * a / 2)-th and ceil(b * (1 - a / 2))-th
 *		smallest (1-based, a = 1 - @confidence, clamped to [1, b])
 *
 * Return: 0, or -EINVAL if @b is too small for @confidence (the lower
 * rank would be 0), a difference is NaN, or @confidence is out of range.
 */
int tc_compare_interval(double *d, unsigned int b, double confidence, double *lo, double *hi);

/** tc_compare_verdict() - verdict of an interval (NaN bounds give n/a) */
enum tc_verdict tc_compare_verdict(double lo, double hi);

/**
 * tc_compare_verdict_dir() - verdict of an interval of a difference
 * @lo, @hi:	the interval of value - reference (NaN: n/a)
 * @higher_better: larger values are better: an interval above 0 is then
 *		faster (better), one below 0 slower
 */
enum tc_verdict tc_compare_verdict_dir(double lo, double hi, bool higher_better);

/**
 * tc_metric_applies() - whether figure @m exists for files of @shape
 *
 * Every metric for histograms; median, min, max and average (of the
 * per-round values) for the system suite.
 */
bool tc_metric_applies(enum tc_result_shape shape, enum tc_metric m);

/** tc_verdict_name() - "n/a", "no significant difference", "slower", "faster" */
const char *tc_verdict_name(enum tc_verdict v);

/** tc_metric_name() - "average", "median", "max_avg", "percentile", "min", "max" */
const char *tc_metric_name(enum tc_metric m);

/**
 * tc_metric_parse() - metric of a name as printed by tc_metric_name()
 * Return: the metric, or -EINVAL.
 */
int tc_metric_parse(const char *name);

/**
 * tc_compare_same_run() - whether two files hold the same run
 *
 * The same file, or equal start, end, node name and command strings, and
 * the same number of repetitions. Such columns share their bootstrap draws.
 */
bool tc_compare_same_run(const struct tc_result_file *a, const struct tc_result_file *b);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_COMPARE_H */
