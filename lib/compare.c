// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/compare.c - columns of result files side by side with bootstrap
 * confidence intervals of their differences (method: tracecost/compare.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/calibration.h>
#include <tracecost/compare.h>
#include <tracecost/stats.h>

const char *tc_verdict_name(enum tc_verdict v)
{
	switch (v) {
	case TC_VERDICT_SAME:
		return "no significant difference";
	case TC_VERDICT_SLOWER:
		return "slower";
	case TC_VERDICT_FASTER:
		return "faster";
	case TC_VERDICT_UNKNOWN:
		return "unknown";
	default:
		return "n/a";
	}
}

enum tc_verdict tc_compare_verdict(double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return TC_VERDICT_NA;
	if (lo > 0)
		return TC_VERDICT_SLOWER;
	if (hi < 0)
		return TC_VERDICT_FASTER;
	return TC_VERDICT_SAME;
}

enum tc_verdict tc_compare_verdict_dir(double lo, double hi, bool higher_better)
{
	return higher_better ? tc_compare_verdict(-hi, -lo) : tc_compare_verdict(lo, hi);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int tc_compare_interval(double *d, unsigned int b, double confidence, double *lo, double *hi)
{
	double a = 1 - confidence;
	unsigned long klo, khi;
	unsigned int i;

	*lo = *hi = NAN;
	if (!(confidence > 0 && confidence < 1) || !b)
		return -EINVAL;
	for (i = 0; i < b; i++)
		if (isnan(d[i]))
			return -EINVAL;
	/* A tolerance so that e.g. 2000 * 0.025 is 50, not 49.999... */
	klo = (unsigned long)floor((double)b * a / 2 + 1e-9);
	khi = (unsigned long)ceil((double)b * (1 - a / 2) - 1e-9);
	if (klo < 1)
		return -EINVAL;
	if (khi > b)
		khi = b;
	if (khi < klo)
		khi = klo;
	qsort(d, b, sizeof(*d), cmp_double);
	*lo = d[klo - 1];
	*hi = d[khi - 1];
	return 0;
}

bool tc_compare_same_run(const struct tc_result_file *a, const struct tc_result_file *b)
{
	int i;

	if (a == b)
		return true;
	if (a->nr_runs != b->nr_runs || a->repeat != b->repeat || strcmp(a->suite, b->suite))
		return false;
	for (i = 0; i < a->nr_runs; i++) {
		const struct tc_result_run *x = &a->runs[i], *y = &b->runs[i];

		if (x->nr_reps != y->nr_reps || !tc_result_run_same(x, y))
			return false;
	}
	return true;
}

/* splitmix64 (Steele, Lea & Flood 2014): one 64-bit state, full period. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound >= 1: multiply-shift with rejection (unbiased). */
static uint32_t rng_below(uint64_t *s, uint32_t bound)
{
	uint64_t m = (rng_next(s) >> 32) * bound;
	uint32_t low = (uint32_t)m;

	if (low < bound) {
		uint32_t t = (uint32_t)(-bound) % bound;

		while (low < t) {
			m = (rng_next(s) >> 32) * bound;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

/* Stream of the draws of run group @g: the same for every column of it. */
static uint64_t rng_seed(uint64_t seed, int g)
{
	uint64_t s = seed ^ ((uint64_t)(g + 1) * 0xd1b54a32d192ed03ull);

	rng_next(&s);
	return s;
}

/* A round's value and index, to visit the rounds in ascending order. */
struct ranked {
	double v;
	int i;
};

struct work {
	const struct tc_compare_opts *o;
	const struct tc_result_file *f;	/* the file of the cell being figured */
	struct tc_hist *h;
	struct tc_topn *t;
	unsigned int *k;	/* draw counts per repetition */
	unsigned int *kr;	/* draw counts per run */
	struct ranked *order;	/* system: the cell's rounds, ascending */
	double *fig;		/* per-run or per-repetition figures, for the spreads */
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return x->i - y->i;
}

/*
 * System: median (mean of the middle two for an even count, as
 * tc_summary_compute()), min, max and average of the rounds drawn @k[i]
 * times each; @w->order holds the cell's rounds in ascending order.
 */
static void figures_values(const struct work *w, const struct tc_result_cell *cell,
			   double unit, const unsigned int *k, double *v)
{
	unsigned long total = 0, seen = 0, lo_rank, hi_rank;
	double sum = 0, lo = NAN, hi = NAN, min = NAN, max = 0;
	int j;

	for (j = 0; j < cell->nr_reps; j++) {
		total += k[j];
		sum += k[j] * cell->values[j];
	}
	/* 1-based ranks of the middle value(s) */
	lo_rank = (total + 1) / 2;
	hi_rank = total / 2 + 1;
	for (j = 0; j < cell->nr_reps; j++) {
		const struct ranked *x = &w->order[j];

		if (!k[x->i])
			continue;
		if (isnan(min))
			min = x->v;
		max = x->v;
		if (seen < lo_rank && seen + k[x->i] >= lo_rank)
			lo = x->v;
		if (seen < hi_rank && seen + k[x->i] >= hi_rank)
			hi = x->v;
		seen += k[x->i];
	}
	v[TC_METRIC_MEDIAN] = (total % 2 ? lo : (lo + hi) / 2) * unit;
	v[TC_METRIC_MIN] = min * unit;
	v[TC_METRIC_MAX] = max * unit;
	v[TC_METRIC_AVERAGE] = sum / (double)total * unit;
	v[TC_METRIC_MAX_AVG] = v[TC_METRIC_PERCENTILE] = NAN;
	v[TC_METRIC_PERCENTILE_1CPU] = NAN;
}

/*
 * The percentile of the one-CPU runs (@cell->p1cpu, ticks per pair) of the
 * runs whose repetitions are drawn (@k): the weighted median over the runs,
 * each weighing what its repetitions are drawn (the lower middle for an
 * even weight); NAN when no drawn run recorded one.
 */
static double figure_p1cpu(const struct tc_result_file *f, const struct tc_result_cell *cell,
			   const unsigned int *k)
{
	struct ranked run[TC_RESULT_MAX_RUNS];
	unsigned long wr[TC_RESULT_MAX_RUNS], total = 0, seen = 0;
	int r, n = 0, nr = f->nr_runs < TC_RESULT_MAX_RUNS ? f->nr_runs : TC_RESULT_MAX_RUNS;
	unsigned int j;

	if (!cell->p1cpu)
		return NAN;
	for (r = 0; r < nr; r++) {
		wr[r] = 0;
		if (isnan(cell->p1cpu[r]))
			continue;
		for (j = 0; j < f->runs[r].nr_reps; j++)
			wr[r] += k[f->runs[r].first_rep + j];
		if (wr[r]) {
			run[n++] = (struct ranked){ cell->p1cpu[r], r };
			total += wr[r];
		}
	}
	if (!n)
		return NAN;
	qsort(run, (size_t)n, sizeof(*run), cmp_ranked);
	for (r = 0; r < n; r++) {
		seen += wr[run[r].i];
		if (2 * seen >= total)
			return run[r].v;
	}
	return run[n - 1].v;
}

/*
 * Every figure of the repetitions drawn @k[i] times each, in the output unit;
 * @upper (may be NULL) gets the largest value each figure's true value can
 * have (the figure itself where it is exact: see tc_stats_value_range()).
 */
static int figures(struct work *w, const struct tc_result_cell *cell, double unit,
		   const unsigned int *k, double *v, double *upper)
{
	struct tc_stats st;
	int i, err;

	if (cell->values) {
		figures_values(w, cell, unit, k, v);
		if (upper)
			memcpy(upper, v, TC_NR_METRICS * sizeof(*v));
		return 0;
	}
	tc_hist_init(w->h);
	tc_topn_init(w->t, w->o->highest);
	for (i = 0; i < cell->nr_reps; i++)
		if (k[i])
			tc_snapshot_add(w->h, w->t, &cell->reps[i], k[i]);
	err = tc_stats_compute(&st, w->h, w->t, w->o->percentile);
	if (err)
		return err;
	v[TC_METRIC_AVERAGE] = st.average * unit;
	v[TC_METRIC_MEDIAN] = (double)st.median * unit;
	v[TC_METRIC_MAX_AVG] = st.max_avg * unit;
	v[TC_METRIC_PERCENTILE] = (double)st.percentile * unit;
	v[TC_METRIC_MIN] = (double)st.min * unit;
	v[TC_METRIC_MAX] = (double)st.max * unit;
	/* p1cpu is per pair; unit converts ticks per sample (batch pairs) */
	v[TC_METRIC_PERCENTILE_1CPU] = figure_p1cpu(w->f, cell, k) * w->f->batch * unit;
	if (upper) {
		memcpy(upper, v, TC_NR_METRICS * sizeof(*v));
		upper[TC_METRIC_MEDIAN] = (double)st.median_upper * unit;
		upper[TC_METRIC_PERCENTILE] = (double)st.percentile_upper * unit;
	}
	return 0;
}

static int check_opts(const struct tc_compare_column *cols, int nr_cols,
		      const struct tc_compare_opts *o)
{
	double a = 1 - o->confidence;
	bool hist;
	int c;

	if (nr_cols < 1 || !cols[0].file || !(o->confidence > 0 && o->confidence < 1) ||
	    floor((double)o->resamples * a / 2 + 1e-9) < 1)
		return -EINVAL;
	hist = cols[0].file->shape == TC_RESULT_SHAPE_HIST;
	if (hist && (!(o->percentile > 0 && o->percentile <= 100) || !o->highest))
		return -EINVAL;
	for (c = 0; c < nr_cols; c++) {
		const struct tc_result_file *f = cols[c].file;

		if (!f || f->shape != cols[0].file->shape || cols[c].config < 0 ||
		    cols[c].config >= f->nr_configs || (hist && o->highest > f->highest) ||
		    !(cols[c].scale > 0 && isfinite(cols[c].scale)) || cols[c].ref >= nr_cols)
			return -EINVAL;
	}
	return 0;
}

/* Rows: the union of the columns' rows, in the order first met. */
static int collect_rows(struct tc_compare *res, const struct tc_compare_column *cols,
			int nr_cols)
{
	int c, r, i, max = 0;

	for (c = 0; c < nr_cols; c++)
		max += cols[c].file->nr_rows;
	res->rows = calloc((size_t)max, sizeof(*res->rows));
	if (!res->rows)
		return -ENOMEM;
	for (c = 0; c < nr_cols; c++) {
		const struct tc_result_file *f = cols[c].file;

		for (r = 0; r < f->nr_rows; r++) {
			for (i = 0; i < res->nr_rows; i++)
				if (!strcmp(res->rows[i].name, f->rows[r].name))
					break;
			if (i < res->nr_rows)
				continue;
			res->rows[i].name = f->rows[r].name;
			res->rows[i].title = f->rows[r].title;
			res->rows[i].unit = f->rows[r].unit;
			res->rows[i].higher_better = f->rows[r].higher_better;
			res->rows[i].cells = calloc((size_t)nr_cols * TC_NR_METRICS,
						    sizeof(*res->rows[i].cells));
			if (!res->rows[i].cells)
				return -ENOMEM;
			res->nr_rows++;
		}
	}
	return 0;
}

/*
 * The resampling unit of a column: its sessions when it holds several (a
 * group of files; not under -icount, where a boot adds nothing), else its
 * runs when there are enough, else its repetitions.
 */
static bool by_sessions(const struct tc_result_file *f)
{
	return f->nr_sessions >= 2 && !f->deterministic;
}

static bool by_runs(const struct tc_result_file *f)
{
	return f->nr_runs >= TC_COMPARE_MIN_RUNS;
}

static int clusters(const struct tc_result_file *f, int nr_reps)
{
	if (by_sessions(f))
		return f->nr_sessions;
	return by_runs(f) ? f->nr_runs : nr_reps;
}

/*
 * One bootstrap draw: @k[i] = times repetition i enters the replicate.
 * Sessions (or runs) are drawn with replacement and keep everything under
 * them whole: the top-level cluster bootstrap (Davison & Hinkley 3.8,
 * strategy 1; Kalibera & Jones 2013, section 4: the spread of the top
 * level already holds the variation of the levels below it).
 * @kr: scratch of nr_runs + nr_sessions counts.
 */
static void draw(uint64_t *s, const struct tc_result_file *f, int nr_reps, unsigned int *k,
		 unsigned int *kr)
{
	unsigned int *ks = kr + f->nr_runs;
	int i, r;
	unsigned int j;

	memset(k, 0, (size_t)nr_reps * sizeof(*k));
	if (!by_sessions(f) && !by_runs(f)) {
		for (i = 0; i < nr_reps; i++)
			k[rng_below(s, (uint32_t)nr_reps)]++;
		return;
	}
	memset(kr, 0, (size_t)f->nr_runs * sizeof(*kr));
	if (by_sessions(f)) {
		memset(ks, 0, (size_t)f->nr_sessions * sizeof(*ks));
		for (i = 0; i < f->nr_sessions; i++)
			ks[rng_below(s, (uint32_t)f->nr_sessions)]++;
		for (r = 0; r < f->nr_runs; r++)
			kr[r] = ks[f->runs[r].session];
	} else {
		for (r = 0; r < f->nr_runs; r++)
			kr[rng_below(s, (uint32_t)f->nr_runs)]++;
	}
	for (r = 0; r < f->nr_runs; r++)
		for (j = 0; j < f->runs[r].nr_reps; j++)
			k[f->runs[r].first_rep + j] = kr[r];
}

/* Sample variance of @n values (two passes); 0 for n < 2. */
static double variance(const double *x, size_t n, size_t stride)
{
	double mean = 0, ss = 0;
	size_t i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		mean += x[i * stride];
	mean /= (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i * stride] - mean) * (x[i * stride] - mean);
	return ss / (double)(n - 1);
}

/*
 * Spread of each figure between runs (sd of the run figures) and within
 * them (pooled sd of the repetition figures inside each run).
 */
static int spreads(struct work *w, const struct tc_result_file *f,
		   const struct tc_result_cell *rc, double unit, struct tc_compare_cell *cell)
{
	double v[TC_NR_METRICS], ss[TC_NR_METRICS] = { 0 };
	int r, m, i, err, dof = 0;
	unsigned int j;

	for (m = 0; m < TC_NR_METRICS; m++)
		cell[m].between = cell[m].within = NAN;
	if (f->nr_runs >= 2) {
		for (r = 0; r < f->nr_runs; r++) {
			memset(w->k, 0, (size_t)rc->nr_reps * sizeof(*w->k));
			for (j = 0; j < f->runs[r].nr_reps; j++)
				w->k[f->runs[r].first_rep + j] = 1;
			err = figures(w, rc, unit, w->k, v, NULL);
			if (err)
				return err;
			for (m = 0; m < TC_NR_METRICS; m++)
				w->fig[(size_t)r * TC_NR_METRICS + m] = v[m];
		}
		for (m = 0; m < TC_NR_METRICS; m++)
			cell[m].between = sqrt(variance(&w->fig[m], (size_t)f->nr_runs,
							TC_NR_METRICS));
	}
	for (r = 0; r < f->nr_runs; r++) {
		const struct tc_result_run *run = &f->runs[r];

		if (run->nr_reps < 2)
			continue;
		for (j = 0; j < run->nr_reps; j++) {
			memset(w->k, 0, (size_t)rc->nr_reps * sizeof(*w->k));
			w->k[run->first_rep + j] = 1;
			err = figures(w, rc, unit, w->k, v, NULL);
			if (err)
				return err;
			for (m = 0; m < TC_NR_METRICS; m++)
				w->fig[(size_t)j * TC_NR_METRICS + m] = v[m];
		}
		for (m = 0; m < TC_NR_METRICS; m++)
			ss[m] += variance(&w->fig[m], run->nr_reps, TC_NR_METRICS) *
				 (run->nr_reps - 1);
		dof += (int)run->nr_reps - 1;
	}
	for (i = 0; dof && i < TC_NR_METRICS; i++)
		cell[i].within = sqrt(ss[i] / dof);
	return 0;
}

static tc_u64 gcd(tc_u64 a, tc_u64 b)
{
	while (b) {
		tc_u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The step of a cell's samples, in ticks per sample: the greatest common
 * divisor of the gaps between the exact values (below TC_HIST_EXACT) that
 * hold at least 1/10000 of a repetition's samples (and 2 of them). A
 * counter that advances in quanta of q ticks gives q whatever the timer
 * overhead subtracted; a fine-grained counter gives 1; a cell whose samples
 * all read the same value (an instruction count under QEMU -icount) gives
 * 0: no step known, none applied.
 */
static double cell_step(const struct tc_result_cell *rc)
{
	tc_u64 g = 0;
	tc_u32 i;
	int k;

	for (k = 0; k < rc->nr_reps; k++) {
		const struct tc_snapshot *r = &rc->reps[k];
		tc_u64 thr = r->n / 10000 > 2 ? r->n / 10000 : 2, prev = 0;
		bool have = false;

		for (i = 0; i < r->nr && r->idx[i] < TC_HIST_EXACT; i++) {
			if (r->cnt[i] < thr)
				continue;
			if (have)
				g = gcd(g, r->idx[i] - prev);
			prev = r->idx[i];
			have = true;
		}
	}
	return (double)g;
}

static bool stepped(enum tc_metric m)
{
	return tc_metric_info(m)->stepped;
}

/*
 * The variance of one side of a cross-session difference: the spread
 * between its sessions when it has TC_COMPARE_MIN_SESSIONS of them; else
 * (with a calibration that covers its file and row) the spread between
 * its runs (or repetitions) plus the calibrated between-session variance
 * of its figure, (session_cv * value)^2 / sessions. Return: false when
 * neither is known.
 */
struct side {
	double v, df;		/* measured part and its degrees of freedom */
	double cal, cal_df;	/* calibrated part (0: none) and its df */
};

static bool side_variance(const struct tc_compare_opts *o, const struct tc_compare_column *col,
			  const char *row, int m, const double *rx, double value, int reps,
			  struct side *sd)
{
	const struct tc_result_file *f = col->file;
	const struct tc_calibration_entry *e;
	unsigned int B = o->resamples;
	int ns = f->nr_sessions > 0 ? f->nr_sessions : 1, n;
	char why[8];

	*sd = (struct side){ 0 };
	if (ns >= TC_COMPARE_MIN_SESSIONS) {
		sd->v = variance(rx, B, 1) * ns / (ns - 1);
		sd->df = ns - 1;
		return true;
	}
	if (!o->calibration || !tc_calibration_covers(o->calibration, f, why, sizeof(why)))
		return false;
	e = tc_calibration_find(o->calibration, row, f->configs[col->config], m);
	if (!e)
		return false;
	n = clusters(f, reps);
	sd->v = variance(rx, B, 1) * n / (n - 1);
	sd->df = n - 1;
	sd->cal = e->session_cv * value * e->session_cv * value / ns;
	sd->cal_df = e->df;
	return true;
}

/*
 * The interval of cell @x (column @c) against @rc (its reference @ref):
 * paired when the columns share their runs, else independent (Welch).
 */
static int interval(const struct tc_compare_opts *o, const struct tc_compare_column *cols,
		    int c, int ref, bool paired, const double *rx, const double *r0,
		    double *d, struct tc_compare_cell *x, const struct tc_compare_cell *rc,
		    const char *row, int m)
{
	const struct tc_result_file *fc = cols[c].file, *fr = cols[ref].file;
	unsigned int B = o->resamples, b;
	double var, df, t, diff = x->value - rc->value;

	if (paired) {
		int n = clusters(fc, x->reps);

		x->scope = TC_SCOPE_PAIRED;
		for (b = 0; b < B; b++)
			d[b] = rx[b] - r0[b];
		var = variance(d, B, 1) * n / (n - 1);
		df = n - 1;
	} else if (fc->deterministic && fr->deterministic) {
		/* Under -icount on both sides a boot adds no variance: runs are the units. */
		int ac = fc->nr_runs, ar = fr->nr_runs;
		double vc, vr, den;

		x->scope = TC_SCOPE_BOOTS_EXACT;
		if (ac < TC_COMPARE_MIN_RUNS || ar < TC_COMPARE_MIN_RUNS) {
			x->verdict = TC_VERDICT_UNKNOWN;
			return 0;
		}
		vc = variance(rx, B, 1) * ac / (ac - 1);
		vr = variance(r0, B, 1) * ar / (ar - 1);
		var = vc + vr;
		den = vc * vc / (ac - 1) + vr * vr / (ar - 1);
		df = den > 0 ? var * var / den : ac + ar - 2;
	} else {
		/*
		 * Different sessions: the runs of one session resemble each
		 * other more than those of a session taken minutes or a boot
		 * later. Only the spread between sessions (files of a group)
		 * or a calibration of this host says how far two differ.
		 * Welch-Satterthwaite over the measured parts and the
		 * calibrated one (one estimate, the smaller df of the two).
		 */
		struct side sc, sr;
		double cal, cal_df, den;

		x->scope = TC_SCOPE_SESSIONS;
		if (!side_variance(o, &cols[c], row, m, rx, x->value, x->reps, &sc) ||
		    !side_variance(o, &cols[ref], row, m, r0, rc->value, rc->reps, &sr)) {
			x->verdict = TC_VERDICT_UNKNOWN;
			return 0;
		}
		cal = sc.cal + sr.cal;
		cal_df = sc.cal_df && sr.cal_df ? fmin(sc.cal_df, sr.cal_df) :
			 fmax(sc.cal_df, sr.cal_df);
		if (cal_df > 0)
			x->scope = TC_SCOPE_CALIBRATED;
		var = sc.v + sr.v + cal;
		den = sc.v * sc.v / sc.df + sr.v * sr.v / sr.df +
		      (cal_df > 0 ? cal * cal / cal_df : 0);
		df = den > 0 ? var * var / den : sc.df + sr.df;
	}
	t = tc_stats_t_quantile(1 - (1 - o->confidence) / 2, df);
	if (isnan(t))
		return -EINVAL;
	x->df = df;
	x->lo = diff - t * sqrt(var);
	x->hi = diff + t * sqrt(var);
	return 0;
}

/*
 * One row: the figures of every column, their spreads, then B replicates
 * of each column with at least two repetitions (@rep[c * TC_NR_METRICS +
 * m][b]), then each column against its reference.
 */
static int compare_row(struct work *w, const struct tc_compare_column *cols, int nr_cols,
		       const int *group, struct tc_compare_row *row, double *rep, double *d)
{
	const struct tc_compare_opts *o = w->o;
	unsigned int B = o->resamples, b;
	int c, m, i, err;

	for (c = 0; c < nr_cols; c++) {
		const struct tc_result_file *f = cols[c].file;
		struct tc_compare_cell *cell = &row->cells[c * TC_NR_METRICS];
		int ri = tc_result_file_row(f, row->name);
		const struct tc_result_cell *rc;
		double unit = cols[c].scale, v[TC_NR_METRICS], up[TC_NR_METRICS], step;
		uint64_t s;

		if (ri < 0)
			continue;
		rc = &f->rows[ri].cells[cols[c].config];
		w->f = f;
		/*
		 * No step where the file records no counter resolution, or 0 (a
		 * guest under -icount: counts, not quanta); never above it.
		 */
		step = rc->reps && f->step_ticks > 0 ? fmin(cell_step(rc), f->step_ticks) : 0;
		for (i = 0; i < rc->nr_reps; i++) {
			w->k[i] = 1;
			if (rc->values)
				w->order[i] = (struct ranked){ rc->values[i], i };
		}
		if (rc->values)
			qsort(w->order, (size_t)rc->nr_reps, sizeof(*w->order), cmp_ranked);
		err = figures(w, rc, unit, w->k, v, up);
		if (err)
			return err;
		for (m = 0; m < TC_NR_METRICS; m++) {
			/* a per-run figure where some run recorded one */
			cell[m].present = tc_metric_applies(f->shape, m) &&
					  (!tc_metric_info(m)->per_run || !isnan(v[m]));
			cell[m].upper = up[m];
			cell[m].approx = up[m] != v[m];
			cell[m].reps = rc->nr_reps;
			cell[m].runs = f->nr_runs;
			cell[m].sessions = f->nr_sessions > 0 ? f->nr_sessions : 1;
			cell[m].scope = TC_SCOPE_NONE;
			cell[m].value = v[m];
			cell[m].change = NAN;
			cell[m].lo = cell[m].hi = cell[m].df = NAN;
			cell[m].verdict = TC_VERDICT_NA;
			cell[m].step = rc->reps && stepped(m) ? step * unit : 0;
		}
		err = spreads(w, f, rc, unit, cell);
		if (err)
			return err;
		/* one figure per run: nothing varies within a run */
		for (m = 0; m < TC_NR_METRICS; m++)
			if (tc_metric_info(m)->per_run)
				cell[m].within = NAN;
		if (rc->nr_reps < TC_COMPARE_MIN_REPS)
			continue;
		s = rng_seed(o->seed, group[c]);
		for (b = 0; b < B; b++) {
			draw(&s, f, rc->nr_reps, w->k, w->kr);
			err = figures(w, rc, unit, w->k, v, NULL);
			if (err)
				return err;
			for (m = 0; m < TC_NR_METRICS; m++)
				rep[((size_t)c * TC_NR_METRICS + m) * B + b] = v[m];
		}
	}

	/* Changes and intervals against each column's reference. */
	for (c = 0; c < nr_cols; c++) {
		int ref = cols[c].ref;

		if (ref < 0 || ref == c)
			continue;
		for (m = 0; m < TC_NR_METRICS; m++) {
			struct tc_compare_cell *x = &row->cells[c * TC_NR_METRICS + m];
			const struct tc_compare_cell *rc = &row->cells[ref * TC_NR_METRICS + m];
			const double *rx = &rep[((size_t)c * TC_NR_METRICS + m) * B];
			const double *r0 = &rep[((size_t)ref * TC_NR_METRICS + m) * B];
			double step;

			if (!x->present || !rc->present)
				continue;
			if (rc->value != 0)
				x->change = (x->value - rc->value) / rc->value * 100;
			else if (x->value == 0)
				x->change = 0;
			if (x->reps < TC_COMPARE_MIN_REPS || rc->reps < TC_COMPARE_MIN_REPS)
				continue;
			/*
			 * One figure per run: the repetitions of a run say
			 * nothing of its spread, only runs (or sessions) do.
			 */
			if (tc_metric_info(m)->per_run &&
			    (!(by_runs(cols[c].file) || by_sessions(cols[c].file)) ||
			     !(by_runs(cols[ref].file) || by_sessions(cols[ref].file)))) {
				x->verdict = TC_VERDICT_UNKNOWN;
				x->scope = TC_SCOPE_NONE;
				continue;
			}
			err = interval(o, cols, c, ref, group[c] == group[ref], rx, r0, d, x, rc,
				       row->name, m);
			if (err)
				return err;
			if (x->verdict == TC_VERDICT_UNKNOWN)
				continue;
			x->verdict = tc_compare_verdict_dir(x->lo, x->hi, row->higher_better);
			step = fmax(x->step, rc->step);
			/* a tolerance: one step in ns is the same quantum, rounded */
			if (x->verdict != TC_VERDICT_SAME && step > 0 &&
			    fabs(x->value - rc->value) < step * (1 - 1e-9)) {
				x->verdict = TC_VERDICT_SAME;
				x->below_step = true;
			}
		}
	}
	return 0;
}

int tc_compare_run(const struct tc_compare_column *cols, int nr_cols,
		   const struct tc_compare_opts *o, struct tc_compare **out)
{
	struct work w = { .o = o };
	struct tc_compare *res;
	unsigned int max_reps = 1;
	int max_runs = 1;
	double *rep = NULL, *d = NULL;
	int *group = NULL;
	int c, g, r, err;

	*out = NULL;
	err = check_opts(cols, nr_cols, o);
	if (err)
		return err;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	res->nr_cols = nr_cols;
	err = collect_rows(res, cols, nr_cols);
	if (err)
		goto out;

	err = -ENOMEM;
	group = calloc((size_t)nr_cols, sizeof(*group));
	if (!group)
		goto out;
	for (c = 0; c < nr_cols; c++) {
		for (g = 0; g < c; g++)
			if (tc_compare_same_run(cols[g].file, cols[c].file))
				break;
		group[c] = g < c ? group[g] : c;
		if (cols[c].file->repeat > max_reps)
			max_reps = cols[c].file->repeat;
		if (cols[c].file->nr_runs > max_runs)
			max_runs = cols[c].file->nr_runs;
	}
	w.h = malloc(sizeof(*w.h));
	w.t = malloc(TC_TOPN_SIZE(o->highest));
	w.k = calloc(max_reps, sizeof(*w.k));
	w.order = calloc(max_reps, sizeof(*w.order));
	w.kr = calloc((size_t)max_runs * 2, sizeof(*w.kr));
	w.fig = calloc((size_t)(max_reps > (unsigned int)max_runs ? max_reps : (unsigned int)max_runs) *
		       TC_NR_METRICS, sizeof(*w.fig));
	rep = calloc((size_t)nr_cols * TC_NR_METRICS * o->resamples, sizeof(*rep));
	d = calloc(o->resamples, sizeof(*d));
	if (!w.h || !w.t || !w.k || !w.order || !w.kr || !w.fig || !rep || !d)
		goto out;
	for (r = 0; r < res->nr_rows; r++) {
		err = compare_row(&w, cols, nr_cols, group, &res->rows[r], rep, d);
		if (err)
			goto out;
	}
	err = 0;
out:
	free(w.h);
	free(w.t);
	free(w.k);
	free(w.order);
	free(w.kr);
	free(w.fig);
	free(rep);
	free(d);
	free(group);
	if (err)
		tc_compare_free(res);
	else
		*out = res;
	return err;
}

void tc_compare_free(struct tc_compare *c)
{
	int r;

	if (!c)
		return;
	for (r = 0; r < c->nr_rows; r++)
		free(c->rows[r].cells);
	free(c->rows);
	free(c);
}
