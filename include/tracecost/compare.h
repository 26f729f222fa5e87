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
 *  - the data are nested: runs (one process, one module load, one boot;
 *    the top level), repetitions inside runs, CPUs inside repetitions
 *    (merged), samples. Samples and repetitions of one run share its
 *    conditions (placement, address-space layout, frequency state), so two
 *    runs of one binary differ by more than the repetitions of either
 *    suggest: runs, not repetitions, are the independent units across
 *    files (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time",
 *    ISMM 2013, section 3);
 *  - a bootstrap replicate of a column draws its runs with replacement and
 *    keeps each drawn run's repetitions whole (the cluster bootstrap,
 *    Davison & Hinkley, "Bootstrap Methods and their Application" (1997),
 *    section 3.8, strategy 1: the spread of the run figures already holds
 *    the within-run variation, and resampling the repetitions again would
 *    count it twice), merges the drawn histograms and top-N heaps exactly
 *    and recomputes every figure with tc_stats_compute(), the estimator of
 *    the value shown (Efron & Tibshirani, "An Introduction to the
 *    Bootstrap" (1993), ch. 6). A column with fewer than
 *    TC_COMPARE_MIN_RUNS runs draws its repetitions instead (one run: the
 *    only level there is);
 *  - the variance of a replicate figure over n drawn clusters is
 *    (n - 1) / n times that of the figure (D&H 3.8); it is scaled back by
 *    n / (n - 1), and the interval is d +- t * se with d the difference of
 *    the values, se the standard error from the B replicates and t
 *    Student's quantile (tc_stats_t_quantile()) at n - 1 degrees of freedom
 *    for paired columns, Welch-Satterthwaite's for independent ones
 *    (Welch, Biometrika 34, 1947): with 3 to 10 runs the normal quantile
 *    and the plain percentile interval are too narrow (the synthetic
 *    coverage tests in tests/unit/test_compare.c measure it);
 *  - columns from the same runs (the same file or file group, or files
 *    holding the same runs) share the draws: their configurations were
 *    sampled in interleaved blocks within each repetition, so run i (and
 *    repetition j) of one pairs with run i (repetition j) of the other and
 *    the paired difference is legitimately tighter (E & T ch. 8.4). A file
 *    compared with itself differs by exactly 0: no significant difference.
 *    When the runs are fewer than TC_COMPARE_MIN_RUNS, paired verdicts
 *    rest on the repetitions and speak for those runs only;
 *  - columns from different runs need the between-run variation of both:
 *    with fewer than TC_COMPARE_MIN_RUNS runs in either, the verdict is
 *    TC_VERDICT_UNKNOWN ("?"): the data cannot support one;
 *  - resolution: medians, percentiles, minima and maxima of single-pair
 *    samples move in steps of the counter's quantum (the gcd of the gaps
 *    between sample values, at most resolution_ticks; none when that is 0
 *    or not recorded), per pair / batch; a difference in them smaller than one step is never called
 *    significant (@below_step);
 *  - system: the repetition is the round (every profile ran once, in column
 *    order, per round); the figures are the median (mean of the middle two
 *    for an even count, as the suite), min, max and average of the drawn
 *    rounds' values; runs as above;
 *  - verdict: slower if the interval lies entirely above 0, faster if it
 *    lies entirely below, else no significant difference; n/a when a
 *    column or its reference has fewer than two repetitions. For a row
 *    where higher is better (a rate such as files/s) the meaning flips, so
 *    that the verdict always says better or worse for the user; the value,
 *    change and interval keep their sign (tc_compare_verdict_dir());
 *  - variance components: for each cell, the standard deviation of the
 *    figure over its runs (between) and the pooled standard deviation of
 *    the figure over the repetitions inside each run (within), so a reader
 *    sees where the noise is;
 *  - draws come from splitmix64 (Steele, Lea & Flood, OOPSLA 2014) seeded
 *    from the options' seed and the run group, so the output is
 *    reproducible.
 *
 * Library conventions: functions return 0 or -errno and print nothing.
 */
#ifndef TRACECOST_COMPARE_H
#define TRACECOST_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <tracecost/metric.h>
#include <tracecost/result.h>

struct tc_calibration;

#ifdef __cplusplus
extern "C" {
#endif

/* Repetitions a column needs for an interval. */
#define TC_COMPARE_MIN_REPS	2
/* Runs a column needs before its between-run variation is estimated. */
#define TC_COMPARE_MIN_RUNS	3
/* Sessions (files of a group) a column needs for a verdict across sessions. */
#define TC_COMPARE_MIN_SESSIONS	3
#define TC_COMPARE_DEFAULT_B	2000

enum tc_verdict {
	TC_VERDICT_NA,		/* fewer than TC_COMPARE_MIN_REPS repetitions, or a reference */
	TC_VERDICT_SAME,	/* the interval contains 0 */
	TC_VERDICT_SLOWER,	/* the interval lies above 0 */
	TC_VERDICT_FASTER,	/* the interval lies below 0 */
	TC_VERDICT_UNKNOWN,	/* different sessions, fewer than TC_COMPARE_MIN_SESSIONS in
				 * one and no calibration covering it */
};

/**
 * enum tc_compare_scope - what the interval of a cell covers
 * @TC_SCOPE_NONE:	no interval (a reference column, or n/a)
 * @TC_SCOPE_PAIRED:	the same runs of one session, paired run by run
 * @TC_SCOPE_SESSIONS:	columns from different sessions (files taken minutes
 *			or boots apart): the spread between the sessions of
 *			each column (the files of a group), at least
 *			TC_COMPARE_MIN_SESSIONS a side, else unknown
 * @TC_SCOPE_BOOTS_EXACT: different boots under QEMU -icount on both sides
 *			(instruction counts: a boot adds no variance): the
 *			spread between runs, at least TC_COMPARE_MIN_RUNS a side
 * @TC_SCOPE_CALIBRATED: columns from different sessions, one side (or both)
 *			with fewer than TC_COMPARE_MIN_SESSIONS: that side's
 *			spread between its runs plus the between-session
 *			variance of the calibration (tracecost/calibration.h),
 *			(session_cv * value)^2 / sessions, with the
 *			calibration's degrees of freedom
 */
enum tc_compare_scope {
	TC_SCOPE_NONE,
	TC_SCOPE_PAIRED,
	TC_SCOPE_SESSIONS,
	TC_SCOPE_BOOTS_EXACT,
	TC_SCOPE_CALIBRATED,
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
 * @calibration: the between-session variance of the host, or NULL: used
 *		for a side of a cross-session cell with fewer than
 *		TC_COMPARE_MIN_SESSIONS sessions when it covers that side's
 *		file (tc_calibration_covers()) and has an entry for the row,
 *		configuration and metric (tc_calibration_find()); else that
 *		cell is unknown
 *
 * @percentile and @highest are ignored (may be 0) for system files.
 */
struct tc_compare_opts {
	unsigned int resamples;
	uint64_t seed;
	double confidence;
	double percentile;
	unsigned int highest;
	const struct tc_calibration *calibration;
};

/**
 * struct tc_compare_cell - one figure of one column in one row
 * @present:	the column's file has this row
 * @reps:	repetitions behind the figure (over every run)
 * @runs:	runs behind the figure
 * @value:	the figure over every CPU, repetition and run
 * @change:	(@value - ref) / ref in %, ref the figure of the column's
 *		reference; NAN for a reference column, when the reference lacks
 *		the row, or when its figure is 0 (0 when both are 0)
 * @lo, @hi:	confidence interval of @value - ref; NAN when n/a or unknown
 * @df:		degrees of freedom of that interval; NAN when none
 * @verdict:	see enum tc_verdict
 * @below_step:	the interval excludes 0 but the difference is below one
 *		counter step: the verdict says no significant difference
 * @step:	the counter's step in the output unit for median, percentile,
 *		min and max (0 when unknown or for other figures)
 * @between:	standard deviation of the figure over the runs (NAN: < 2 runs)
 * @within:	pooled standard deviation of the figure over the repetitions
 *		inside each run (NAN: no run with 2 repetitions)
 * @scope:	what the interval covers (also why a verdict is unknown)
 * @sessions:	sessions behind the figure (files of a group; 1 for a file)
 * @approx:	@value is not exact but the lower end of what the samples
 *		allow (a median or percentile from a histogram bucket above
 *		its exact range, tc_stats_value_range()): the true figure lies
 *		in [@value, @upper]
 * @upper:	the largest the true figure can be; @value when exact
 */
struct tc_compare_cell {
	bool present;
	int reps;
	int runs;
	double value;
	double change;
	double lo, hi;
	double df;
	enum tc_verdict verdict;
	bool below_step;
	double step;
	double between, within;
	enum tc_compare_scope scope;
	int sessions;
	bool approx;
	double upper;
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
 * tc_verdict_name() - "n/a", "no significant difference", "slower",
 * "faster", "unknown"
 */
const char *tc_verdict_name(enum tc_verdict v);

/**
 * tc_compare_same_run() - whether two files hold the same runs
 *
 * The same file, or the same number of runs with, run by run, equal start,
 * end, node name and command strings and the same number of repetitions.
 * Such columns share their bootstrap draws.
 */
bool tc_compare_same_run(const struct tc_result_file *a, const struct tc_result_file *b);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_COMPARE_H */
