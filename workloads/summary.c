// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/summary.c - median of K repetitions with a distribution-free
 * 95% confidence interval from order statistics.
 *
 * For K independent values from any continuous distribution with median m,
 * the number B of values below m is Binomial(K, 1/2), so the interval
 * [x(j), x(K+1-j)] between the j-th smallest and j-th largest values covers
 * m with probability 1 - 2 P(B <= j-1) (the sign-test interval; e.g.
 * Conover, "Practical Nonparametric Statistics", section 3.2). We take the
 * largest j with coverage >= 95%; for K <= 5 even [min, max] covers less
 * (K = 5: 93.75%), so there is no interval.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/workload.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(B <= k) for B ~ Binomial(n, 1/2), in log space (n up to 10^4). */
static double binom_half_cdf(int n, int k)
{
	double sum = 0, ln2 = log(2.0);
	int i;

	for (i = 0; i <= k; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * ln2);
	return sum;
}

int tc_summary_compute(const double *v, int n, struct tc_summary *s)
{
	double *x;
	int i, j;

	memset(s, 0, sizeof(*s));
	if (n < 1 || n > 10000)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return -EINVAL;
	x = malloc(sizeof(*x) * (size_t)n);
	if (!x)
		return -ENOMEM;
	memcpy(x, v, sizeof(*x) * (size_t)n);
	qsort(x, (size_t)n, sizeof(*x), cmp_double);
	s->n = n;
	s->min = x[0];
	s->max = x[n - 1];
	s->median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	/* largest j (1-based) with 2 P(B <= j-1) <= 0.05 */
	for (j = 0; j + 1 <= n / 2 && 2 * binom_half_cdf(n, j) <= 0.05 + 1e-12; j++)
		;
	if (j >= 1) {
		s->ci_valid = true;
		s->ci_low = x[j - 1];
		s->ci_high = x[n - j];
		s->ci_level = 1 - 2 * binom_half_cdf(n, j - 1);
	}
	free(x);
	return 0;
}
