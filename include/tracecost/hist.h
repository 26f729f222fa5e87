/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/hist.h - mergeable latency histogram and exact top-N heap.
 *
 * One layout, compiled both in userspace (lib/hist.c) and in the kernel module
 * (kernel/module/), so kernel and user samples flow through the same statistics.
 * The header therefore uses only fixed-width types and no libc.
 *
 * Values are unsigned 64-bit counts of counter ticks (or ticks per batch).
 *
 * Bucket layout (TC_HIST_NR_BUCKETS buckets of u64 counts):
 *  - values 0 .. 4095 (2^TC_HIST_EXACT_BITS - 1) have one bucket each: exact;
 *  - above, each power of two [2^e, 2^(e+1)) for e = 12 .. TC_HIST_MAX_BITS - 1
 *    is split into 256 (2^TC_HIST_SUB_BITS) equal sub-buckets, so a bucket's
 *    lower bound is within 1/256 of every value in it (relative error <= 2^-8);
 *  - values >= 2^TC_HIST_MAX_BITS are not bucketed but counted in @overflow
 *    (they still count in n, sum, min, max and the top-N heap).
 * This is the log-linear scheme of HdrHistogram (G. Tene) with a linear
 * exact region, sized so that one histogram is 96 KiB.
 */
#ifndef TRACECOST_HIST_H
#define TRACECOST_HIST_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u64 tc_u64;
typedef u32 tc_u32;
#else
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
typedef uint64_t tc_u64;
typedef uint32_t tc_u32;
#endif

#define TC_HIST_EXACT_BITS	12
#define TC_HIST_SUB_BITS	8
#define TC_HIST_MAX_BITS	44
#define TC_HIST_EXACT		(1u << TC_HIST_EXACT_BITS)		/* 4096 */
#define TC_HIST_SUB		(1u << TC_HIST_SUB_BITS)		/* 256 */
#define TC_HIST_NR_BUCKETS	(TC_HIST_EXACT + \
				 (TC_HIST_MAX_BITS - TC_HIST_EXACT_BITS) * TC_HIST_SUB)
#define TC_HIST_LIMIT		((tc_u64)1 << TC_HIST_MAX_BITS)	/* first overflow value */

/* Version of this layout; written into result files and the module's debugfs. */
#define TC_HIST_LAYOUT_VERSION	1

/**
 * struct tc_hist - histogram of one pair x configuration on one CPU (one repetition)
 * @n:		samples added
 * @min:	smallest sample (UINT64_MAX while @n == 0)
 * @max:	largest sample (0 while @n == 0)
 * @overflow:	samples >= TC_HIST_LIMIT (not in @counts)
 * @sum_lo:	low 64 bits of the exact 128-bit sum of all samples
 * @sum_hi:	high 64 bits of that sum
 * @counts:	bucket counts, layout above
 */
struct tc_hist {
	tc_u64 n;
	tc_u64 min;
	tc_u64 max;
	tc_u64 overflow;
	tc_u64 sum_lo;
	tc_u64 sum_hi;
	tc_u64 counts[TC_HIST_NR_BUCKETS];
};

/**
 * struct tc_topn - min-heap holding the @cap largest samples seen (exact)
 * @cap:	capacity (the --highest N of the run), >= 1
 * @len:	entries in use, <= @cap
 * @v:		heap array, v[0] is the smallest kept value
 */
struct tc_topn {
	tc_u32 cap;
	tc_u32 len;
	tc_u64 v[];
};

/* Bytes needed for a struct tc_topn of capacity @cap. */
#define TC_TOPN_SIZE(cap)	(sizeof(struct tc_topn) + (size_t)(cap) * sizeof(tc_u64))

/**
 * tc_hist_bucket() - bucket index of a value
 * @v: value in ticks, < TC_HIST_LIMIT
 *
 * Return: index in [0, TC_HIST_NR_BUCKETS).
 */
static inline tc_u32 tc_hist_bucket(tc_u64 v)
{
	unsigned int e;

	if (v < TC_HIST_EXACT)
		return (tc_u32)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return TC_HIST_EXACT + (e - TC_HIST_EXACT_BITS) * TC_HIST_SUB +
	       (tc_u32)((v >> (e - TC_HIST_SUB_BITS)) & (TC_HIST_SUB - 1));
}

/**
 * tc_hist_bucket_lower() - smallest value that falls in bucket @idx
 * @idx: bucket index, < TC_HIST_NR_BUCKETS
 */
static inline tc_u64 tc_hist_bucket_lower(tc_u32 idx)
{
	tc_u32 e, sub;

	if (idx < TC_HIST_EXACT)
		return idx;
	e = (idx - TC_HIST_EXACT) / TC_HIST_SUB + TC_HIST_EXACT_BITS;
	sub = (idx - TC_HIST_EXACT) % TC_HIST_SUB;
	return ((tc_u64)TC_HIST_SUB + sub) << (e - TC_HIST_SUB_BITS);
}

/**
 * tc_hist_add() - add one sample (fast path, no locking: one writer per histogram)
 * @h: histogram
 * @v: sample in ticks
 */
static inline void tc_hist_add(struct tc_hist *h, tc_u64 v)
{
	tc_u64 lo = h->sum_lo + v;

	h->sum_hi += lo < h->sum_lo;
	h->sum_lo = lo;
	h->n++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (v < TC_HIST_LIMIT)
		h->counts[tc_hist_bucket(v)]++;
	else
		h->overflow++;
}

void tc_topn_push(struct tc_topn *t, tc_u64 v);

/**
 * tc_topn_add() - offer one sample to the top-N heap (no locking: one writer)
 * @t: heap, initialised by tc_topn_init() with a capacity >= 1
 * @v: sample in ticks
 *
 * O(1) when @v is not among the largest (the common case), O(log cap) otherwise.
 */
static inline void tc_topn_add(struct tc_topn *t, tc_u64 v)
{
	if (t->len == t->cap && v <= t->v[0])
		return;
	tc_topn_push(t, v);
}

void tc_hist_init(struct tc_hist *h);
void tc_hist_merge(struct tc_hist *dst, const struct tc_hist *src);
tc_u64 tc_hist_value_at_rank(const struct tc_hist *h, tc_u64 rank);
void tc_topn_init(struct tc_topn *t, tc_u32 cap);
void tc_topn_merge(struct tc_topn *dst, const struct tc_topn *src);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_HIST_H */
