// SPDX-License-Identifier: GPL-2.0-or-later
/* src/pair_report.c - see pair_report.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/result.h>

#include "cli.h"
#include "pair_report.h"

/* A figure in ticks per sample, in the table's unit. */
static void fmt_val(char *buf, size_t len, const struct tc_pair_view *v, double x, int integral)
{
	double u = x / v->batch;

	if (!v->unit_ticks)
		u = u * 1e9 / v->freq_hz;
	if (v->unit_ticks && integral && v->batch == 1)
		snprintf(buf, len, "%.0f", u);
	else
		snprintf(buf, len, u >= 1000 ? "%.0f" : "%.1f", u);
}

#define MAX_COLS 16

/* '*' after a figure that is not exact (tc_stats_value_range()). */
static void mark_approx(char *buf, size_t len, bool exact, bool *any)
{
	if (exact || strlen(buf) + 1 >= len)
		return;
	strcat(buf, "*");
	*any = true;
}

void tc_pair_report_table(const struct tc_pair_view *v, const char *title,
			  const struct tc_stats *st, const struct tc_stats *st1,
			  int stride, int off, FILE *f)
{
	char cells[MAX_COLS][32], lab[64];
	const char *cp[MAX_COLS];
	struct tc_table *t;
	int s, row, ncols = v->ncols < MAX_COLS ? v->ncols : MAX_COLS;
	bool approx = false;

	t = tc_table_new(title, "Metric", ncols, v->cols);
	if (!t)
		tc_cli_fail("out of memory");
	for (s = 0; s < ncols; s++)
		cp[s] = cells[s];
	for (row = 0; row < 7; row++) {
		const char *label = NULL;

		if (row == 4 && !st1)
			continue;
		for (s = 0; s < ncols; s++) {
			const struct tc_stats *x = &st[s * stride + off];
			char *c = cells[s];

			switch (row) {
			case 0:
				label = "average";
				fmt_val(c, 32, v, x->average, 0);
				break;
			case 1:
				label = "median";
				fmt_val(c, 32, v, (double)x->median, 1);
				mark_approx(c, 32, x->median_exact, &approx);
				break;
			case 2:
				label = "max_avg";
				fmt_val(c, 32, v, x->max_avg, 0);
				break;
			case 3:
				snprintf(lab, sizeof(lab), "%g percentile", v->percentile);
				label = lab;
				fmt_val(c, 32, v, (double)x->percentile, 1);
				mark_approx(c, 32, x->percentile_exact, &approx);
				break;
			case 4:
				snprintf(lab, sizeof(lab), "%g percentile (1 CPU)", v->percentile);
				label = lab;
				fmt_val(c, 32, v, (double)st1[s * stride + off].percentile, 1);
				mark_approx(c, 32, st1[s * stride + off].percentile_exact, &approx);
				break;
			case 5:
				label = "min";
				fmt_val(c, 32, v, (double)x->min, 1);
				break;
			case 6:
				label = "max";
				fmt_val(c, 32, v, (double)x->max, 1);
				break;
			}
		}
		if (tc_table_add_row(t, label, cp))
			tc_cli_fail("out of memory");
	}
	tc_table_print(t, f, v->format);
	tc_table_free(t);
	if (approx)
		fprintf(f, "* approximate: the lower end of a histogram bucket (samples above %u "
			"counter ticks are kept to 1/256), raised to the minimum; the result file "
			"has each bound (stats: median_upper, percentile_upper)\n",
			TC_HIST_EXACT - 1);
}

int tc_pair_report_cpu_stats(const struct tc_cell *cell, int nr_cpus, int repeat, int ci,
			     unsigned int highest, double p, struct tc_stats *st)
{
	struct tc_hist *h = malloc(sizeof(*h));
	struct tc_topn *t = malloc(TC_TOPN_SIZE(highest));
	int r, err;

	if (!h || !t) {
		free(h);
		free(t);
		return -ENOMEM;
	}
	tc_hist_init(h);
	tc_topn_init(t, highest);
	for (r = 0; r < repeat; r++)
		tc_snapshot_add(h, t, &cell->snap[r * nr_cpus + ci], 1);
	err = tc_stats_compute(st, h, t, p);
	free(h);
	free(t);
	return err;
}

json_t *tc_pair_report_json(const struct tc_pair_view *v)
{
	json_t *jp = json_array();
	int p, s, i;

	for (p = 0; p < v->npairs; p++) {
		json_t *cells = json_array();

		for (s = 0; s < v->ncols; s++) {
			const struct tc_cell *c = &v->cells[s * v->npairs + p];
			json_t *snaps = json_array(), *cell;

			for (i = 0; i < v->nr_snap; i++)
				json_array_append_new(snaps, tc_snapshot_to_json(&c->snap[i]));
			cell = json_pack("{s:s, s:o, s:I, s:I, s:I, s:o}",
					 "configuration", v->cols[s],
					 "stats", tc_stats_to_json(&v->st[s * v->npairs + p],
								   v->batch),
					 "clamped", (json_int_t)c->clamped,
					 "overhead_min", (json_int_t)c->overhead_min,
					 "overhead_max", (json_int_t)c->overhead_max,
					 "snapshots", snaps);
			if (cell && v->st1)
				json_object_set_new(cell, "stats_1cpu",
						    tc_stats_to_json(&v->st1[s * v->npairs + p],
								     v->batch));
			json_array_append_new(cells, cell);
		}
		json_array_append_new(jp, json_pack("{s:s, s:s, s:o}", "name", v->pair_names[p],
						    "title", v->pair_titles[p], "cells", cells));
	}
	return jp;
}
