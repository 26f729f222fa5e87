// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/calibration_estimate.c - the variance components of a machine from
 * sessions taken on it (tc_calibration_estimate(), tracecost/calibration.h
 * states the estimator and its source).
 *
 * The figures are those of the comparison itself: every session file and
 * configuration is one column of one tc_compare_run() without references,
 * which gives each column's figure, the standard deviation between its
 * runs and the pooled one between the repetitions of a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracecost/calibration.h>
#include <tracecost/compare.h>

/* Enough for the interval check of tc_compare_run(); the draws are unused. */
#define EST_RESAMPLES	40

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Seconds since the epoch of an ISO 8601 UTC time as the writer prints it. */
static double iso_seconds(const char *s)
{
	struct tm tm = { 0 };
	const char *rest = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	double frac = 0;

	if (!rest)
		return NAN;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	return (double)timegm(&tm) + frac;
}

static int check_files(struct tc_result_file *const *files, int nr, char *err, size_t len)
{
	const struct tc_result_file *f0 = files[0];
	int i, j, c, r, s;

	if (nr < TC_CALIBRATION_MIN_SESSIONS)
		return fail(err, len, "%d sessions: a calibration needs %d or more", nr,
			    TC_CALIBRATION_MIN_SESSIONS);
	if (strcmp(f0->suite, "user") && strcmp(f0->suite, "system"))
		return fail(err, len, "%s: the %s suite; a calibration is of the user or system "
			    "suite", f0->path, f0->suite);
	for (i = 0; i < nr; i++) {
		const struct tc_result_file *f = files[i];

		if (f->nr_sessions > 1)
			return fail(err, len, "%s: a group of %d sessions; give one file per session",
				    f->path, f->nr_sessions);
		if (f->deterministic)
			return fail(err, len, "%s: instruction counts under QEMU -icount vary by no "
				    "session: nothing to calibrate", f->path);
		if (!eq(f->suite, f0->suite) || f->shape != f0->shape)
			return fail(err, len, "%s: the %s suite, %s is of the %s suite", f->path,
				    f->suite, f0->path, f0->suite);
		if (!eq(f->nodename, f0->nodename) || !eq(f->machine, f0->machine) ||
		    !eq(f->cpu_model, f0->cpu_model))
			return fail(err, len, "%s: measured on %s, %s on %s: a calibration is of "
				    "one host", f->path, f->nodename, f0->path, f0->nodename);
		if (f->batch != f0->batch)
			return fail(err, len, "%s: --batch %u, %s --batch %u", f->path, f->batch,
				    f0->path, f0->batch);
		if (f->nr_configs != f0->nr_configs)
			return fail(err, len, "%s: %d configurations, %s %d", f->path,
				    f->nr_configs, f0->path, f0->nr_configs);
		for (c = 0; c < f->nr_configs; c++)
			if (!eq(f->configs[c], f0->configs[c]))
				return fail(err, len, "%s: configuration %d is %s, in %s %s",
					    f->path, c + 1, f->configs[c], f0->path,
					    f0->configs[c]);
		for (j = 0; j < i; j++)
			for (r = 0; r < f->nr_runs; r++)
				for (s = 0; s < files[j]->nr_runs; s++)
					if (tc_result_run_same(&f->runs[r], &files[j]->runs[s]))
						return fail(err, len, "%s and %s hold the same run: "
							    "each session once", files[j]->path,
							    f->path);
	}
	return 0;
}

static int header(struct tc_calibration *cal, struct tc_result_file *const *files, int nr)
{
	const struct tc_result_file *f0 = files[0];
	double gap = 0;
	int i, gaps = 0;

	cal->suite = strdup(f0->suite);
	cal->nodename = strdup(f0->nodename ? f0->nodename : "");
	cal->machine = strdup(f0->machine ? f0->machine : "");
	cal->cpu_model = strdup(f0->cpu_model ? f0->cpu_model : "");
	cal->release = strdup(f0->release ? f0->release : "");
	cal->command = strdup(f0->command ? f0->command : "");
	cal->sessions = nr;
	cal->runs = f0->nr_runs;
	cal->repeat = f0->repeat;
	cal->batch = f0->batch;
	for (i = 0; i < nr; i++) {
		if (files[i]->nr_runs < cal->runs)
			cal->runs = files[i]->nr_runs;
		if (i + 1 < nr) {
			const struct tc_result_file *a = files[i], *b = files[i + 1];
			double d = iso_seconds(b->runs[0].start) -
				   iso_seconds(a->runs[a->nr_runs - 1].end);

			if (isfinite(d)) {
				gap += d;
				gaps++;
			}
		}
	}
	/* the first run's start and the last run's end, as the files give them */
	cal->start = strdup(f0->runs[0].start ? f0->runs[0].start : "");
	cal->end = strdup(files[nr - 1]->runs[files[nr - 1]->nr_runs - 1].end ?
			  files[nr - 1]->runs[files[nr - 1]->nr_runs - 1].end : "");
	cal->spacing_s = gaps ? gap / gaps : 0;
	if (!cal->suite || !cal->nodename || !cal->machine || !cal->cpu_model ||
	    !cal->release || !cal->command || !cal->start || !cal->end)
		return -ENOMEM;
	return 0;
}

static int add_entry(struct tc_calibration *cal, const char *row, const char *config, int m,
		     double mean, double scv, double rcv, double wcv, double df)
{
	struct tc_calibration_entry *e = &cal->entries[cal->nr_entries];

	e->row = strdup(row);
	e->config = strdup(config);
	if (!e->row || !e->config) {
		free(e->row);
		free(e->config);
		return -ENOMEM;
	}
	e->metric = m;
	e->mean = mean;
	e->session_cv = scv;
	e->run_cv = rcv;
	e->rep_cv = wcv;
	e->df = df;
	cal->nr_entries++;
	return 0;
}

/*
 * One row and metric: an entry per configuration measured in every
 * session, then the pooled entry (variances weighted by their degrees of
 * freedom).
 */
static int row_entries(struct tc_calibration *cal, const struct tc_compare_row *row,
		       const char *const *configs, int nc,
		       int nr, int m)
{
	double pool_s = 0, pool_r = 0, pool_w = 0, pool_mean = 0, pool_df = 0;
	int c, i, n_r = 0, n_w = 0, n_c = 0, err;

	for (c = 0; c < nc; c++) {
		double sum = 0, ss = 0, expl = 0, bsum = 0, wsum = 0, mean, var, s2, df;
		int nb = 0, nw = 0;

		for (i = 0; i < nr; i++) {
			const struct tc_compare_cell *x =
				&row->cells[(i * nc + c) * TC_NR_METRICS + m];

			if (!x->present || !isfinite(x->value))
				break;
			sum += x->value;
			if (isfinite(x->between) && x->runs > 0) {
				expl += x->between * x->between / x->runs;
				bsum += x->between;
				nb++;
			}
			if (isfinite(x->within)) {
				wsum += x->within;
				nw++;
			}
		}
		if (i < nr)
			continue;	/* not in every session */
		mean = sum / nr;
		for (i = 0; i < nr; i++) {
			double d = row->cells[(i * nc + c) * TC_NR_METRICS + m].value - mean;

			ss += d * d;
		}
		var = ss / (nr - 1);
		s2 = fmax(0, var - expl / nr);
		if (!(fabs(mean) > 0))
			continue;	/* no relative spread of a zero figure */
		/*
		 * Satterthwaite's effective df of s2 = var - expl, var with nr - 1
		 * df and expl taken as known: (nr - 1) (s2 / var)^2, at least 1.
		 * A component small beside the runs' is poorly known.
		 */
		df = var > 0 ? fmax(1, (nr - 1) * (s2 / var) * (s2 / var)) : nr - 1;
		err = add_entry(cal, row->name, configs[c], m, mean, sqrt(s2) / fabs(mean),
				nb ? bsum / nb / fabs(mean) : NAN,
				nw ? wsum / nw / fabs(mean) : NAN, df);
		if (err)
			return err;
		pool_s += df * s2 / (mean * mean);
		pool_df += df;
		pool_mean += mean;
		n_c++;
		if (nb) {
			pool_r += bsum / nb / fabs(mean);
			n_r++;
		}
		if (nw) {
			pool_w += wsum / nw / fabs(mean);
			n_w++;
		}
	}
	if (!n_c)
		return 0;
	return add_entry(cal, row->name, TC_CALIBRATION_ALL, m, pool_mean / n_c,
			 sqrt(pool_s / pool_df), n_r ? pool_r / n_r : NAN,
			 n_w ? pool_w / n_w : NAN, pool_df);
}

int tc_calibration_estimate(struct tc_result_file *const *files, int nr,
			    struct tc_calibration **out, char *err, size_t errlen)
{
	struct tc_compare_opts o = { .resamples = EST_RESAMPLES, .seed = 1, .confidence = 0.95 };
	struct tc_compare_column *cols;
	struct tc_calibration *cal;
	struct tc_compare *res = NULL;
	const struct tc_result_file *f0;
	int nc, i, c, r, m, ret;

	*out = NULL;
	err[0] = 0;
	if (!files || nr < 1)
		return fail(err, errlen, "no sessions: a calibration needs %d or more",
			    TC_CALIBRATION_MIN_SESSIONS);
	ret = check_files(files, nr, err, errlen);
	if (ret)
		return ret;
	f0 = files[0];
	nc = f0->nr_configs;
	o.percentile = f0->percentile;
	o.highest = f0->highest;
	for (i = 0; i < nr; i++)
		if (files[i]->highest < o.highest)
			o.highest = files[i]->highest;
	cols = calloc((size_t)nr * nc, sizeof(*cols));
	cal = calloc(1, sizeof(*cal));
	if (!cols || !cal) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		for (c = 0; c < nc; c++) {
			struct tc_compare_column *col = &cols[i * nc + c];

			col->file = files[i];
			col->config = c;
			col->ref = -1;
			/* ticks per pair for histograms; the row's unit for values */
			col->scale = files[i]->batch ? 1.0 / files[i]->batch : 1.0;
		}
	}
	ret = tc_compare_run(cols, nr * nc, &o, &res);
	if (ret) {
		if (ret == -EINVAL)
			fail(err, errlen, "%s: these files cannot be compared with each other",
			     f0->path);
		goto out;
	}
	ret = header(cal, files, nr);
	if (ret)
		goto out;
	cal->entries = calloc((size_t)res->nr_rows * TC_NR_METRICS * (nc + 1),
			      sizeof(*cal->entries));
	if (!cal->entries) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; r < res->nr_rows; r++) {
		for (m = 0; m < TC_NR_METRICS; m++) {
			if (!tc_metric_applies(f0->shape, m))
				continue;
			ret = row_entries(cal, &res->rows[r],
					  (const char *const *)f0->configs, nc, nr, m);
			if (ret)
				goto out;
		}
	}
	if (!cal->nr_entries) {
		ret = fail(err, errlen, "%s: no figure was measured in every session", f0->path);
		goto out;
	}
out:
	tc_compare_free(res);
	free(cols);
	if (ret)
		tc_calibration_free(cal);
	else
		*out = cal;
	return ret;
}
