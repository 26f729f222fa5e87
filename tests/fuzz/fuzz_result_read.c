// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz_result_read.c - libFuzzer harness of the result reader
 * (lib/result_read.c) and of the comparison it feeds (lib/compare.c).
 *
 * For every input: tc_result_file_parse() either refuses it with one
 * non-empty line and no file, or loads it; a loaded file is then compared
 * with itself (every configuration against the first, plus the first again,
 * B = 40; histogram suites and the system suite alike), which must succeed, give lo <= hi, and give "no significant
 * difference" for the first configuration against itself. Any violation
 * aborts, which libFuzzer reports as a crash with the input saved.
 *
 * Build and run: make check-fuzz (FUZZ_SECONDS=60), see tests/fuzz/run.sh.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/compare.h>
#include <tracecost/result.h>

#define MAX_COLS	6

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_result_read: invariant violated: %s\n", what);
		abort();
	}
}

/*
 * percentile_1cpu: present where a run of the cell recorded its one-CPU
 * percentile; one figure per run, so a verdict only with runs (or
 * sessions) to resample, and a column against itself the same.
 */
static void check_p1cpu(const struct tc_result_file *f, int config, int r, int c,
			const struct tc_compare_cell *x)
{
	const struct tc_result_cell *rc = &f->rows[r].cells[config];
	bool any = false;
	int i;

	for (i = 0; rc->p1cpu && i < f->nr_runs; i++)
		any |= !isnan(rc->p1cpu[i]);
	check(x->present == (tc_metric_applies(f->shape, TC_METRIC_PERCENTILE_1CPU) && any),
	      "percentile_1cpu present where a run recorded it");
	if (!x->present)
		return;
	check(isfinite(x->value) && x->value >= 0, "percentile_1cpu: finite value");
	if (f->nr_runs < TC_COMPARE_MIN_RUNS && f->nr_sessions < 2)
		check(x->verdict == TC_VERDICT_UNKNOWN || x->verdict == TC_VERDICT_NA,
		      "percentile_1cpu: no verdict without runs to resample");
	if (c == 1 && x->verdict != TC_VERDICT_UNKNOWN && x->verdict != TC_VERDICT_NA)
		check(x->verdict == TC_VERDICT_SAME,
		      "percentile_1cpu: a column against itself: no significant difference");
}

static void compare_self(const struct tc_result_file *f)
{
	struct tc_compare_column cols[MAX_COLS];
	struct tc_compare_opts o = {
		.resamples = 40, .seed = 1, .confidence = 0.95,
		.percentile = f->percentile, .highest = f->highest,
	};
	struct tc_compare *res;
	double scale = f->batch ? 1.0 / f->batch : 1.0;
	int n = 0, c, r, m, err;

	cols[n++] = (struct tc_compare_column){ .file = f, .config = 0, .ref = -1,
						.scale = scale };
	cols[n++] = (struct tc_compare_column){ .file = f, .config = 0, .ref = 0,
						.scale = scale };
	for (c = 1; c < f->nr_configs && n < MAX_COLS; c++)
		cols[n++] = (struct tc_compare_column){ .file = f, .config = c, .ref = 0,
							.scale = scale };
	err = tc_compare_run(cols, n, &o, &res);
	if (err == -ENOMEM)
		return;
	check(!err, "tc_compare_run() fails on a file the reader accepted");
	check(res->nr_rows == f->nr_rows, "one row per pair");
	for (r = 0; r < res->nr_rows; r++) {
		for (c = 0; c < n; c++) {
			for (m = 0; m < TC_NR_METRICS; m++) {
				const struct tc_compare_cell *x =
					&res->rows[r].cells[c * TC_NR_METRICS + m];

				if (m == TC_METRIC_PERCENTILE_1CPU) {
					check_p1cpu(f, cols[c].config, r, c, x);
					continue;
				}
				check(x->present == tc_metric_applies(f->shape, m),
				      "every cell of the shape's metrics present");
				if (!x->present)
					continue;
				check(isfinite(x->value) && x->value >= 0, "finite value");
				check(isnan(x->lo) == isnan(x->hi), "both bounds or none");
				check(isnan(x->lo) || x->lo <= x->hi, "lo <= hi");
				check(x->verdict == (x->below_step ? TC_VERDICT_SAME :
						     tc_compare_verdict_dir(x->lo, x->hi,
							res->rows[r].higher_better)),
				      "verdict follows the interval (and the step rule)");
				check(!x->below_step ||
				      fabs(x->value - res->rows[r].cells[m].value) < x->step,
				      "below_step only below one step");
				check(x->verdict != TC_VERDICT_UNKNOWN,
				      "columns of one file are paired: never unknown");
				if (c == 1)
					check(x->verdict == (f->repeat >= TC_COMPARE_MIN_REPS ?
							     TC_VERDICT_SAME : TC_VERDICT_NA),
					      "a column against itself: no significant difference");
			}
		}
	}
	tc_compare_free(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TC_RESULT_ERR_LEN];
	struct tc_result_file *f = (void *)1;
	int ret = tc_result_file_parse((const char *)data, size, "fuzz.json", &f, err,
				       sizeof(err));

	if (ret) {
		check(!f, "no file on error");
		check(ret < 0, "negative errno");
		check(!strncmp(err, "fuzz.json: ", 11) && err[11], "message names the file");
		check(!strchr(err, '\n'), "one line");
		return 0;
	}
	check(f && f->nr_rows > 0 && f->nr_configs > 0, "a loaded file has cells");
	compare_self(f);
	tc_result_file_free(f);
	return 0;
}
