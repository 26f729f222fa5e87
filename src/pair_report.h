/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/pair_report.h - tables and result-file sections of the pair suites
 * (user, kernel): sections per pair, configurations as columns, the seed's
 * rows. One code path, so both suites print and store the same thing.
 */
#ifndef TC_PAIR_REPORT_H
#define TC_PAIR_REPORT_H

#include <jansson.h>
#include <tracecost/clock.h>
#include <tracecost/report.h>
#include <tracecost/sampler.h>
#include <tracecost/stats.h>

/**
 * struct tc_pair_view - what the tables show
 * @ncols, @cols:	configurations (columns) and their names
 * @npairs:		pairs (sections)
 * @pair_names, @pair_titles: "irq", "IRQ Metrics", ...
 * @cells:		[col * npairs + pair], whole-run cells with snapshots
 * @nr_snap:		snapshots per cell (repetitions x CPUs)
 * @st:			[col * npairs + pair] whole-run statistics (ticks per sample)
 * @st1:		same from the one-CPU run, or NULL (no such row)
 * @percentile:		P of the percentile rows
 * @batch:		pairs per sample: figures are divided by it
 * @unit_ticks:		print counter ticks instead of ns
 * @freq_hz:		counter frequency, for ns
 * @format:		table format
 */
struct tc_pair_view {
	int ncols;
	const char *const *cols;
	int npairs;
	const char *const *pair_names;
	const char *const *pair_titles;
	const struct tc_cell *cells;
	int nr_snap;
	const struct tc_stats *st;
	const struct tc_stats *st1;
	double percentile;
	unsigned int batch;
	int unit_ticks;
	double freq_hz;
	enum tc_table_format format;
};


/*
 * The same rows for arbitrary stats, e.g. one CPU's: @st indexed
 * [col * stride + off]; @title is the section title.
 */
void tc_pair_report_table(const struct tc_pair_view *v, const char *title,
			  const struct tc_stats *st, const struct tc_stats *st1,
			  int stride, int off, FILE *f);

/**
 * tc_pair_report_cpu_stats() - statistics of one CPU (index @ci in the
 * snapshot order) over every repetition of one cell
 * Return: 0, -ENOMEM, -ENODATA (no sample).
 */
int tc_pair_report_cpu_stats(const struct tc_cell *cell, int nr_cpus, int repeat, int ci,
			     unsigned int highest, double p, struct tc_stats *st);

/**
 * tc_pair_report_json() - the "pairs" array of a pair-suite section:
 * [{name, title, cells: [{configuration, stats, stats_1cpu?, clamped,
 * overhead_min, overhead_max, snapshots}]}] (doc/result-format.md)
 */
json_t *tc_pair_report_json(const struct tc_pair_view *v);

#endif /* TC_PAIR_REPORT_H */
