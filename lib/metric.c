// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/metric.c - the table of metrics (tracecost/metric.h): one entry per
 * figure, read by compare, the calibration, the renderers and the usage
 * texts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <tracecost/metric.h>

static const struct tc_metric_info metrics[TC_NR_METRICS] = {
	[TC_METRIC_AVERAGE] = { "average", "the mean of every sample (system: of the rounds)",
				false, true, true },
	[TC_METRIC_MEDIAN] = { "median", "the 50th percentile of the samples (system: of the rounds)",
			       true, true, true },
	[TC_METRIC_MAX_AVG] = { "max_avg", "the mean of the N highest samples (rt-tests style)",
				false, false, true },
	[TC_METRIC_PERCENTILE] = { "percentile", "the P-th percentile of the samples",
				   true, false, true },
	[TC_METRIC_MIN] = { "min", "the smallest sample (system: round)", true, true, false },
	[TC_METRIC_MAX] = { "max", "the largest sample (system: round)", true, true, false },
	/*
	 * The seed's percentile (preemptirq-v2 cover letter: "The 99th
	 * percentile was measured in a separate benchmark run, focused on a
	 * single CPU"): one figure per run, the median over the runs; an
	 * interval only with runs (or sessions) as the resampling unit.
	 */
	[TC_METRIC_PERCENTILE_1CPU] = { "percentile_1cpu",
		"the P-th percentile of a separate run on one CPU, median over the runs",
		true, false, false, true },
};

const struct tc_metric_info *tc_metric_info(enum tc_metric m)
{
	return (unsigned int)m < TC_NR_METRICS ? &metrics[m] : NULL;
}

const char *tc_metric_name(enum tc_metric m)
{
	return (unsigned int)m < TC_NR_METRICS ? metrics[m].name : "?";
}

int tc_metric_parse(const char *name)
{
	int m;

	for (m = 0; m < TC_NR_METRICS; m++)
		if (!strcmp(name, metrics[m].name))
			return m;
	return -EINVAL;
}

bool tc_metric_applies(enum tc_result_shape shape, enum tc_metric m)
{
	if ((unsigned int)m >= TC_NR_METRICS)
		return false;
	return shape == TC_RESULT_SHAPE_HIST || metrics[m].values;
}

int tc_metric_names(char *buf, size_t len, const char *sep, bool usual_only)
{
	size_t off = 0;
	int m, n;

	if (len)
		buf[0] = 0;
	for (m = 0; m < TC_NR_METRICS; m++) {
		if (usual_only && !metrics[m].usual)
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? sep : "", metrics[m].name);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	return 0;
}
