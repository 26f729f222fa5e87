// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist.c - mergeable latency histogram and exact top-N heap (see
 * include/tracecost/hist.h for the layout).
 *
 * This file is also compiled into the kernel module: it uses fixed-width
 * types, no floating point, no 64-bit division and no libc beyond memset().
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <stdint.h>
#include <string.h>
#endif

#include <tracecost/hist.h>

#define TC_U64_MAX	(~(tc_u64)0)

/**
 * tc_hist_init() - empty a histogram
 * @h: histogram
 *
 * Sets @n, @overflow, the sum and every count to zero, @min to UINT64_MAX and
 * @max to 0, so that tc_hist_add() and tc_hist_merge() need no special case
 * for the first sample.
 */
void tc_hist_init(struct tc_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = TC_U64_MAX;
}

/**
 * tc_hist_merge() - add every sample of @src to @dst
 * @dst: histogram receiving the samples
 * @src: histogram left unchanged
 *
 * Exact: the result is bit for bit the histogram that would have been built by
 * adding the samples of both to one histogram (the 128-bit sum included).
 */
void tc_hist_merge(struct tc_hist *dst, const struct tc_hist *src)
{
	tc_u64 lo = dst->sum_lo + src->sum_lo;
	tc_u32 i;

	dst->sum_hi += src->sum_hi + (lo < dst->sum_lo);
	dst->sum_lo = lo;
	dst->n += src->n;
	dst->overflow += src->overflow;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (i = 0; i < TC_HIST_NR_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
}

/**
 * tc_hist_value_at_rank() - approximate rank-th smallest sample
 * @h:    histogram
 * @rank: 1 .. @h->n (clamped into that range)
 *
 * Return: the lower bound of the bucket holding the @rank-th smallest sample
 * (exact below TC_HIST_EXACT, within 1/256 below the sample above), @h->max if
 * that sample is one of the overflow samples (>= TC_HIST_LIMIT), 0 if @h is
 * empty.
 */
tc_u64 tc_hist_value_at_rank(const struct tc_hist *h, tc_u64 rank)
{
	tc_u64 seen = 0;
	tc_u32 i;

	if (!h->n)
		return 0;
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	if (rank > h->n - h->overflow)
		return h->max;
	for (i = 0; i < TC_HIST_NR_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			return tc_hist_bucket_lower(i);
	}
	/* Only reached if @counts do not add up to @n - @overflow. */
	return h->max;
}

/**
 * tc_topn_init() - empty a top-N heap
 * @t:   heap, with room for @cap values (TC_TOPN_SIZE(@cap) bytes)
 * @cap: capacity, >= 1 (tc_topn_add() reads v[0] once the heap is full)
 */
void tc_topn_init(struct tc_topn *t, tc_u32 cap)
{
	t->cap = cap;
	t->len = 0;
}

static void tc_topn_sift_down(tc_u64 *v, tc_u32 len, tc_u32 i)
{
	tc_u64 x = v[i];

	for (;;) {
		tc_u32 c = 2 * i + 1;

		if (c >= len)
			break;
		if (c + 1 < len && v[c + 1] < v[c])
			c++;
		if (v[c] >= x)
			break;
		v[i] = v[c];
		i = c;
	}
	v[i] = x;
}

/**
 * tc_topn_push() - slow path of tc_topn_add(): insert @v if it is among the largest
 * @t: heap
 * @v: sample
 *
 * While the heap is not full, @v is inserted. Once full, @v replaces the
 * smallest kept value v[0] if it is larger, and is dropped otherwise, so the
 * heap always holds the min(@cap, samples offered) largest samples (with their
 * multiplicity). May be called directly (it does the tc_topn_add() test too).
 */
void tc_topn_push(struct tc_topn *t, tc_u64 v)
{
	tc_u32 i;

	if (t->len < t->cap) {
		/* Sift up from the new leaf. */
		i = t->len++;
		while (i > 0) {
			tc_u32 parent = (i - 1) / 2;

			if (t->v[parent] <= v)
				break;
			t->v[i] = t->v[parent];
			i = parent;
		}
		t->v[i] = v;
		return;
	}
	if (!t->cap || v <= t->v[0])
		return;
	t->v[0] = v;
	tc_topn_sift_down(t->v, t->len, 0);
}

/**
 * tc_topn_merge() - offer every value of @src to @dst
 * @dst: heap receiving the values (must not be @src)
 * @src: heap left unchanged
 *
 * If @src and @dst each hold the largest samples of two sets and @src->cap >=
 * @dst->cap, @dst then holds exactly the min(@dst->cap, total) largest samples
 * of their union, whatever the split (with a smaller @src->cap, samples @src
 * dropped may be missing).
 */
void tc_topn_merge(struct tc_topn *dst, const struct tc_topn *src)
{
	tc_u32 i;

	for (i = 0; i < src->len; i++)
		tc_topn_add(dst, src->v[i]);
}
