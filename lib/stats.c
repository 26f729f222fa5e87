// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stats.c - figures of a merged histogram and top-N heap (see
 * include/tracecost/stats.h). Userspace only (floating point).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <tracecost/stats.h>

/*
 * Percentiles with at most this many decimals are handled as exact integers
 * (p * 10^6), so that e.g. 99.9% of 1000 samples is rank 999 and not 1000.
 */
#define TC_P_SCALE	1000000ull
#define TC_P_SCALE_100	(100ull * TC_P_SCALE)

tc_u64 tc_stats_rank(tc_u64 n, double p)
{
	double scaled;
	long double x;
	tc_u64 r;

	if (!n)
		return 0;
	/* Out of (0, 100] (NaN included): clamp, callers validate @p. */
	if (!(p > 0))
		return 1;
	if (p >= 100)
		return n;

	scaled = p * (double)TC_P_SCALE;
	if (scaled >= 0.5 && fabs(scaled - nearbyint(scaled)) <= 1e-6) {
		/* p = P / 10^6 exactly: ceil(P * n / 10^8) in 128 bits. */
		unsigned __int128 num = (unsigned __int128)(tc_u64)nearbyint(scaled) * n;

		num = (num + TC_P_SCALE_100 - 1) / TC_P_SCALE_100;
		r = num > n ? n : (tc_u64)num;
	} else {
		/*
		 * More decimals: long double, minus a relative 1e-13 (far above
		 * the ~1e-16 representation error of p) so that a product meant
		 * to be integral (e.g. (100.0 / 3) * 300 / 100) does not round
		 * up to the next rank. The price: a true fraction below
		 * x * 1e-13 is rounded down (only with many decimals, huge n).
		 */
		x = (long double)p * (long double)n / 100.0L;
		x = ceill(x - x * 1e-13L);
		if (x >= (long double)n)
			return n;
		r = x < 1 ? 1 : (tc_u64)x;
	}
	return r < 1 ? 1 : r;
}

/*
 * k-th smallest (1-based, k <= len) of the unsorted values @v: the smallest x
 * with #{v[i] <= x} >= k, found by bisection over the value range. O(64 * len),
 * no allocation, @v left untouched; the result is always one of the values.
 */
static tc_u64 tc_kth_smallest(const tc_u64 *v, tc_u32 len, tc_u32 k)
{
	tc_u64 lo = v[0], hi = v[0];
	tc_u32 i;

	for (i = 1; i < len; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	while (lo < hi) {
		tc_u64 mid = lo + (hi - lo) / 2;
		tc_u32 le = 0;

		for (i = 0; i < len; i++)
			le += v[i] <= mid;
		if (le >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The interval [*lo, *hi] that holds the @rank-th smallest sample (1-based,
 * 1 < rank < n, not among the heap's values): its histogram bucket, or
 * [TC_HIST_LIMIT, max] for an overflow sample, narrowed by what else is
 * known exactly: every sample lies in [min, max], and one of rank <= n - len
 * is at most the smallest value the heap kept (the heap holds the len largest
 * samples). So a bucket that also holds the minimum never gives a figure below
 * it, and figures of increasing rank never decrease.
 */
static void tc_stats_rank_interval(const struct tc_hist *h, const struct tc_topn *t,
				   tc_u64 rank, tc_u64 *lo, tc_u64 *hi)
{
	tc_u64 a, b;
	tc_u32 i;

	if (rank > h->n - h->overflow) {
		a = TC_HIST_LIMIT;
		b = h->max;
	} else {
		a = tc_hist_value_at_rank(h, rank);
		i = tc_hist_bucket(a);
		b = i + 1 < TC_HIST_NR_BUCKETS ? tc_hist_bucket_lower(i + 1) - 1 :
		    TC_HIST_LIMIT - 1;
	}
	if (a < h->min)
		a = h->min;
	if (b > h->max)
		b = h->max;
	if (t && t->len && t->len <= h->n && rank <= h->n - t->len) {
		tc_u64 floor = t->v[0];

		/* the heap is a min-heap: v[0] is its smallest value */
		if (b > floor)
			b = floor;
	}
	if (a > b)	/* only with inconsistent inputs (a heap of other samples) */
		a = b;
	*lo = a;
	*hi = b;
}

tc_u64 tc_stats_value_range(const struct tc_hist *h, const struct tc_topn *t,
			    tc_u64 rank, tc_u64 *upper)
{
	tc_u64 lo, hi;

	if (!h->n) {
		if (upper)
			*upper = 0;
		return 0;
	}
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;

	/* The extremes are kept exactly. */
	if (rank == 1 || rank == h->n) {
		lo = hi = rank == 1 ? h->min : h->max;
	} else if (t && t->len && t->len <= h->n && rank > h->n - t->len) {
		/* Among the top-N values: exact from the heap. */
		lo = hi = tc_kth_smallest(t->v, t->len, (tc_u32)(rank - (h->n - t->len)));
	} else {
		tc_stats_rank_interval(h, t, rank, &lo, &hi);
	}
	if (upper)
		*upper = hi;
	return lo;
}

tc_u64 tc_stats_value_at_rank(const struct tc_hist *h, const struct tc_topn *t,
			      tc_u64 rank, bool *exact)
{
	tc_u64 hi, lo = tc_stats_value_range(h, t, rank, &hi);

	if (exact)
		*exact = h->n && lo == hi;
	return lo;
}

/* Exact (hi:lo) / n as a double: integer quotient plus remainder fraction. */
static double tc_div128(unsigned __int128 sum, tc_u64 n)
{
	unsigned __int128 q = sum / n;
	tc_u64 r = (tc_u64)(sum % n);

	return (double)q + (double)r / (double)n;
}

int tc_stats_compute(struct tc_stats *s, const struct tc_hist *h,
		     const struct tc_topn *t, double p)
{
	unsigned __int128 sum;
	tc_u32 i;

	memset(s, 0, sizeof(*s));
	if (!(p > 0 && p <= 100))
		return -EINVAL;
	if (!h->n)
		return -ENODATA;

	s->n = h->n;
	s->min = h->min;
	s->max = h->max;
	s->overflow = h->overflow;
	s->p = p;
	sum = ((unsigned __int128)h->sum_hi << 64) | h->sum_lo;
	s->average = tc_div128(sum, h->n);
	s->median = tc_stats_value_range(h, t, tc_stats_rank(h->n, 50), &s->median_upper);
	s->median_exact = s->median == s->median_upper;
	s->percentile = tc_stats_value_range(h, t, tc_stats_rank(h->n, p),
					     &s->percentile_upper);
	s->percentile_exact = s->percentile == s->percentile_upper;
	if (t && t->len) {
		sum = 0;
		for (i = 0; i < t->len; i++)
			sum += t->v[i];
		s->max_avg = tc_div128(sum, t->len);
		s->highest = t->len;
	} else {
		s->max_avg = (double)h->max;
		s->highest = 1;
	}
	return 0;
}

/*
 * Continued fraction of the regularized incomplete beta function I_x(a, b)
 * (Abramowitz & Stegun 26.5.8), by the modified Lentz method; converges
 * fast for x < (a + 1) / (a + b + 2).
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, del, num;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), x in [0, 1]. */
static double beta_inc(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t), Student's t with @df degrees of freedom. */
static double t_cdf(double t, double df)
{
	double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double tc_stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (df > 1e7)
		df = 1e7;
	if (p < 0.5)
		return -tc_stats_t_quantile(1 - p, df);
	while (t_cdf(hi, df) < p)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12; i++) {
		mid = (lo + hi) / 2;
		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
