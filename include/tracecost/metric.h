/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/metric.h - the figures a table or comparison prints for a
 * cell (average, median, max_avg, percentile, the percentile of the
 * separate one-CPU run percentile_1cpu, min, max): one table of
 * metrics (lib/metric.c) gives each its name (as printed, parsed and
 * written in JSON), what it estimates, whether it moves in counter steps,
 * and whether a system result (one value per round) has it. compare, its
 * renderers, the calibration and the usage texts read this table; a new
 * metric is one entry there plus its estimator in lib/stats.c and
 * lib/compare.c's figures().
 */
#ifndef TRACECOST_METRIC_H
#define TRACECOST_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <tracecost/result.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tc_metric {
	TC_METRIC_AVERAGE,
	TC_METRIC_MEDIAN,
	TC_METRIC_MAX_AVG,
	TC_METRIC_PERCENTILE,
	TC_METRIC_PERCENTILE_1CPU,
	TC_METRIC_MIN,
	TC_METRIC_MAX,
	TC_NR_METRICS
};

/**
 * struct tc_metric_info - one metric
 * @name:	as printed, parsed (--metrics) and written in JSON ("max_avg")
 * @estimates:	what it is, one line for usage texts and man pages
 * @stepped:	an order statistic: it moves in counter steps, so a
 *		difference below one step is never significant
 * @values:	a system result (one value per round) has it: median, min,
 *		max and average of the rounds
 * @usual:	in compare's default rows
 * @per_run:	one figure per run, not per repetition (kept by the reader
 *		per run): nothing varies within a run, so its interval needs
 *		runs or sessions as the resampling unit (else "?")
 */
struct tc_metric_info {
	const char *name;
	const char *estimates;
	bool stepped;
	bool values;
	bool usual;
	bool per_run;
};

/** tc_metric_info() - the table's entry for @m, NULL when out of range */
const struct tc_metric_info *tc_metric_info(enum tc_metric m);

/**
 * tc_metric_name() - "average", "median", "max_avg", "percentile",
 * "percentile_1cpu", "min", "max" ("?" out of range)
 */
const char *tc_metric_name(enum tc_metric m);

/**
 * tc_metric_parse() - metric of a name as printed by tc_metric_name()
 * Return: the metric, or -EINVAL.
 */
int tc_metric_parse(const char *name);

/**
 * tc_metric_applies() - whether figure @m exists for files of @shape
 *
 * Every metric for histograms; those with @values for the system suite.
 */
bool tc_metric_applies(enum tc_result_shape shape, enum tc_metric m);

/**
 * tc_metric_names() - every metric's name (@usual_only: the default rows),
 * in table order, joined by @sep, into @buf
 * Return: 0, or -ENOSPC when @buf is too small (it holds what fitted).
 */
int tc_metric_names(char *buf, size_t len, const char *sep, bool usual_only);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_METRIC_H */
