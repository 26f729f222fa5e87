/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/snapshot.h - the repetition snapshot: one histogram and top-N
 * heap kept sparse (non-zero buckets only), the unit that result files hold
 * and that every whole-run figure is merged from.
 *
 * One owner: lib/snapshot.c builds a snapshot from a dense histogram (the
 * sampler's, or a merge), adds snapshots into a dense histogram (exact, with
 * a multiplicity for resampling), writes and validates its JSON form, and
 * frees it. The sampler (one CPU x repetition), the kernel suite (the
 * module's debugfs lines) and the result reader (every CPU of a repetition
 * merged) all produce and consume this one type.
 *
 * Values are counter ticks per sample (a sample times its section's batch),
 * as in struct tc_hist (tracecost/hist.h).
 *
 * Locking: none; a snapshot has one owner at a time.
 */
#ifndef TRACECOST_SNAPSHOT_H
#define TRACECOST_SNAPSHOT_H

#include <stddef.h>
#include <jansson.h>

#include <tracecost/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tc_snapshot - one histogram and its top values, sparse
 * @cpu:	 CPU number (one CPU's snapshot), -1 once CPUs are merged
 * @rep:	 repetition, 0-based
 * @nr_cpus:	 snapshots (CPUs) merged into this one, 1 for a CPU's own
 * @n, @min, @max, @overflow, @sum_lo, @sum_hi: as in struct tc_hist
 * @clamped:	 samples clamped to 0 (raw difference below the overhead O)
 * @overhead_min, @overhead_max: range of O over the blocks, ticks
 * @nr:		 non-zero buckets; @idx (ascending) and @cnt, @nr of each
 * @top_len:	 values in @top: min(highest, @n), ascending
 */
struct tc_snapshot {
	int cpu;
	int rep;
	int nr_cpus;
	tc_u64 n, min, max, overflow, sum_lo, sum_hi;
	tc_u64 clamped;
	tc_u64 overhead_min, overhead_max;
	tc_u32 nr;
	tc_u32 *idx;
	tc_u64 *cnt;
	tc_u32 top_len;
	tc_u64 *top;
};

/* Bounds of a snapshot read from a file (tracecost/result.h names them too). */
#define TC_SNAPSHOT_MAX_N	(1ull << 40)	/* samples in one snapshot */
#define TC_SNAPSHOT_MAX_CPUS	65536		/* cpu < this */
#define TC_SNAPSHOT_MAX_REPEAT	4096		/* rep < this */

/**
 * tc_snapshot_set() - make @s the sparse copy of a dense histogram and heap
 * @s: snapshot; its arrays are allocated here (free with tc_snapshot_free());
 *     @cpu, @rep, @nr_cpus, @clamped and the overhead range are left as they
 *     are, for the caller to set
 * @h: histogram
 * @t: heap (its values are copied and sorted ascending), or NULL for none
 *
 * Return: 0, or -ENOMEM (then @s holds no arrays).
 */
int tc_snapshot_set(struct tc_snapshot *s, const struct tc_hist *h, const struct tc_topn *t);

/**
 * tc_snapshot_add() - add @k copies of a snapshot's samples to @h and @t
 * @h: histogram (tc_hist_init()ed, or holding earlier snapshots)
 * @t: heap, or NULL
 * @s: snapshot
 * @k: multiplicity: 1 to merge, the count of a run drawn by a resample
 *     (tracecost/compare.h); 0 adds nothing
 *
 * Exact, like tc_hist_merge(): n, overflow, the 128-bit sum and every bucket
 * count are multiplied by @k; min and max are those of the union; @t receives
 * each top value @k times, as far as it has room for them.
 */
void tc_snapshot_add(struct tc_hist *h, struct tc_topn *t, const struct tc_snapshot *s,
		     unsigned int k);

/**
 * tc_snapshot_copy() - @dst becomes a copy of @src with arrays of its own
 * Return: 0, or -ENOMEM (then @dst's arrays that could be had are set: free
 * them with tc_snapshot_free()).
 */
int tc_snapshot_copy(struct tc_snapshot *dst, const struct tc_snapshot *src);

/** tc_snapshot_free() - free a snapshot's arrays (not @s itself; NULL is fine) */
void tc_snapshot_free(struct tc_snapshot *s);

/**
 * tc_snapshot_to_json() - a snapshot as the result file holds it
 * (doc/result-format.md: cpu, rep, n, min, max, overflow, sum as a decimal
 * string, clamped, overhead_min, overhead_max, buckets [[index, count]...],
 * top [...])
 * Return: a new JSON object, or NULL on allocation failure.
 */
json_t *tc_snapshot_to_json(const struct tc_snapshot *s);

/**
 * tc_snapshot_from_json() - validate one snapshot of a result file and load it
 * @js:      the JSON object
 * @path:    where it is ("rows[0].cells[1].snapshots[2]"), for messages
 * @highest: the file's top-N capacity: @top must hold min(n, highest) values
 * @s:       filled in (arrays allocated; free with tc_snapshot_free())
 * @err:     one line naming @path and the field at fault, on -EINVAL
 * @errlen:  size of @err
 *
 * Every field is checked against the others (sum within [n min, n max],
 * buckets ascending and adding up to n - overflow, min and max in the first
 * and last bucket, top values within [min, max] with max among them).
 * Return: 0, -EINVAL (with @err), or -ENOMEM.
 */
int tc_snapshot_from_json(const json_t *js, const char *path, tc_u64 highest,
			  struct tc_snapshot *s, char *err, size_t errlen);

/** tc_u128_to_json() - exact decimal string of a 128-bit sum (JSON numbers are doubles) */
json_t *tc_u128_to_json(tc_u64 hi, tc_u64 lo);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_SNAPSHOT_H */
