/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/stats.h - statistics of one pair x configuration over a merged
 * histogram and top-N heap (see hist.h). All values are in the unit of the
 * samples added (counter ticks, or ticks per batch); conversion to ns and the
 * division by the batch size happen in the report, not here.
 */
#ifndef TRACECOST_STATS_H
#define TRACECOST_STATS_H

#include <stdbool.h>
#include <tracecost/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tc_stats - the seed tables' figures, exact over all samples given
 * @n:		number of samples
 * @min:	smallest sample
 * @max:	largest sample
 * @average:	exact sum / n (the 128-bit sum converted once)
 * @median:	P50 by the rank rule of @percentile
 * @percentile:	value at rank ceil(P * n / 100) (1-based, smallest first),
 *		P in (0, 100]; exact at rank 1 (min) and n (max), when the rank
 *		falls in the exact region
 *		(< 4096) or among the top-N values, else a lower bound: that of
 *		its histogram bucket (relative error <= 1/256), raised to @min
 *		when the bucket holds the minimum, or TC_HIST_LIMIT for an
 *		overflow sample (tc_stats_value_range())
 * @p:		the P of @percentile
 * @max_avg:	mean of the min(N, n) largest samples (N = top-N capacity);
 *		the seed's "max_avg" (1000 highest samples by default)
 * @highest:	min(N, n), the number of samples behind @max_avg
 * @overflow:	samples beyond the histogram range (>= TC_HIST_LIMIT)
 * @median_exact, @percentile_exact: whether the figure is exact
 *		(@median == @median_upper, @percentile == @percentile_upper)
 * @median_upper, @percentile_upper: the largest value the true figure can
 *		have (its bucket's upper end, lowered to @max and to the
 *		smallest value of the top-N heap); equal to the figure when
 *		it is exact. So min <= median <= median_upper <= max, and the
 *		same for the percentile: no printed figure contradicts another.
 */
struct tc_stats {
	tc_u64 n;
	tc_u64 min;
	tc_u64 max;
	double average;
	tc_u64 median;
	tc_u64 percentile;
	double p;
	double max_avg;
	tc_u64 highest;
	tc_u64 overflow;
	bool median_exact;
	bool percentile_exact;
	tc_u64 median_upper;
	tc_u64 percentile_upper;
};

/**
 * tc_stats_rank() - 1-based rank of the P percentile among n samples
 * @n: number of samples, >= 1
 * @p: percentile in (0, 100]
 *
 * Return: ceil(p * n / 100), clamped to [1, n]. Computed so that integral
 * products are exact (e.g. p = 99, n = 100 gives 99, not 100): a @p with at
 * most 6 decimals is handled as the integer p * 10^6 in 128-bit arithmetic,
 * any other @p in long double with a relative tolerance of 1e-13 against
 * rounding up. A @p outside (0, 100] is clamped (NaN and p <= 0 give 1,
 * p >= 100 gives n); n == 0 gives 0.
 */
tc_u64 tc_stats_rank(tc_u64 n, double p);

/**
 * tc_stats_compute() - figures of one merged histogram and heap
 * @s:	 output
 * @h:	 histogram (all CPUs merged, or one CPU)
 * @t:	 top-N heap of the same samples (may be NULL: then @max_avg is @max
 *	 and @highest is 1 if n > 0, and percentiles come from the histogram
 *	 only)
 * @p:	 percentile, in (0, 100]
 *
 * Return: 0, -EINVAL if @p is out of range (p <= 0, p > 100 or NaN; checked
 * first), -ENODATA if @h holds no sample. On either error @s is zeroed.
 */
int tc_stats_compute(struct tc_stats *s, const struct tc_hist *h,
		     const struct tc_topn *t, double p);

/**
 * tc_stats_value_range() - bounds of the k-th smallest sample (1-based)
 * @h:	   histogram
 * @t:	   top-N heap of the same samples, or NULL
 * @rank:  1 .. h->n (clamped into that range)
 * @upper: set to the largest value the sample can have (may be NULL)
 *
 * Rank 1 and rank h->n: h->min and h->max, exact. Among the heap's values
 * (t->len <= h->n, @rank > h->n - t->len): the (@rank - (h->n - t->len))-th
 * smallest heap value, exact. Otherwise the sample lies in its histogram
 * bucket, or in [TC_HIST_LIMIT, h->max] for an overflow sample (>=
 * TC_HIST_LIMIT), and also in [h->min, h->max] and at most the heap's
 * smallest value (the heap holds the largest samples): the intersection is
 * returned, which holds the true sample by construction (checked against
 * sorted samples over the whole range in tests/unit/test_hist.c).
 * Both bounds are non-decreasing in @rank.
 *
 * Return: the smallest value the sample can have (exact when it equals
 * *@upper), 0 (and *@upper = 0) if @h is empty.
 */
tc_u64 tc_stats_value_range(const struct tc_hist *h, const struct tc_topn *t,
			    tc_u64 rank, tc_u64 *upper);

/**
 * tc_stats_value_at_rank() - k-th smallest sample (1-based) from histogram and heap
 * @h:	   histogram
 * @t:	   heap of the same samples, or NULL
 * @rank:  1 .. h->n (clamped into that range)
 * @exact: set to whether the returned value is exact (may be NULL)
 *
 * The lower bound of tc_stats_value_range(): exact (*@exact true) when the
 * bounds meet: at rank 1 and h->n, among the heap's values, in the exact
 * region (< TC_HIST_EXACT), or where [h->min, h->max] narrows a bucket to
 * one value.
 *
 * Return: the value, 0 (inexact) if @h is empty.
 */
tc_u64 tc_stats_value_at_rank(const struct tc_hist *h, const struct tc_topn *t,
			      tc_u64 rank, bool *exact);

/**
 * tc_stats_t_quantile() - quantile of Student's t distribution
 * @p:		probability, in (0, 1)
 * @df:		degrees of freedom, > 0 (need not be an integer: Welch)
 *
 * The t with P(T <= t) = @p, found by bisection on the distribution
 * function 1 - I_x(df/2, 1/2) / 2 (x = df / (df + t^2), t > 0), with the
 * regularized incomplete beta function I evaluated by its continued
 * fraction (modified Lentz; Abramowitz & Stegun 26.5.8 and 26.7.1).
 * Absolute error below 1e-9; df above 1e7 gives the normal quantile.
 * Return: the quantile, or NAN for @p or @df out of range.
 */
double tc_stats_t_quantile(double p, double df);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_STATS_H */
