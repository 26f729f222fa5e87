// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/snapshot.c - the repetition snapshot (tracecost/snapshot.h): dense to
 * sparse, exact weighted merge, JSON out and validated JSON in, free.
 *
 * Sums are carried in 128 bits (struct tc_hist's sum_lo/sum_hi). The reader's
 * bounds (TC_SNAPSHOT_MAX_N samples per snapshot, TC_SNAPSHOT_MAX_REPEAT for
 * a multiplicity) keep n, overflow and every bucket count below 2^64.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/snapshot.h>

typedef unsigned __int128 u128;

static int cmp_u64(const void *a, const void *b)
{
	tc_u64 x = *(const tc_u64 *)a, y = *(const tc_u64 *)b;

	return (x > y) - (x < y);
}

int tc_snapshot_set(struct tc_snapshot *s, const struct tc_hist *h, const struct tc_topn *t)
{
	tc_u32 i, nr = 0, len = t ? t->len : 0;

	for (i = 0; i < TC_HIST_NR_BUCKETS; i++)
		nr += h->counts[i] != 0;
	s->idx = malloc((nr ? nr : 1) * sizeof(*s->idx));
	s->cnt = malloc((nr ? nr : 1) * sizeof(*s->cnt));
	s->top = malloc((len ? len : 1) * sizeof(*s->top));
	if (!s->idx || !s->cnt || !s->top) {
		tc_snapshot_free(s);
		return -ENOMEM;
	}
	s->n = h->n;
	s->min = h->min;
	s->max = h->max;
	s->overflow = h->overflow;
	s->sum_lo = h->sum_lo;
	s->sum_hi = h->sum_hi;
	for (i = 0, nr = 0; i < TC_HIST_NR_BUCKETS; i++) {
		if (h->counts[i]) {
			s->idx[nr] = i;
			s->cnt[nr++] = h->counts[i];
		}
	}
	s->nr = nr;
	s->top_len = len;
	if (len) {
		memcpy(s->top, t->v, len * sizeof(*s->top));
		qsort(s->top, len, sizeof(*s->top), cmp_u64);
	}
	return 0;
}

void tc_snapshot_add(struct tc_hist *h, struct tc_topn *t, const struct tc_snapshot *s,
		     unsigned int k)
{
	u128 sum;
	tc_u32 i;
	unsigned int j;

	if (!k || !s->n)
		return;
	sum = ((u128)s->sum_hi << 64 | s->sum_lo) * k + ((u128)h->sum_hi << 64 | h->sum_lo);
	h->sum_lo = (tc_u64)sum;
	h->sum_hi = (tc_u64)(sum >> 64);
	h->n += s->n * k;
	h->overflow += s->overflow * k;
	if (s->min < h->min)
		h->min = s->min;
	if (s->max > h->max)
		h->max = s->max;
	for (i = 0; i < s->nr; i++)
		h->counts[s->idx[i]] += s->cnt[i] * k;
	if (!t)
		return;
	/* Largest first: once a value is refused, every smaller one would be. */
	for (i = s->top_len; i-- > 0;) {
		if (t->len == t->cap && s->top[i] <= t->v[0])
			break;
		for (j = 0; j < k; j++)
			tc_topn_add(t, s->top[i]);
	}
}

static void *dup_mem(const void *p, size_t len)
{
	void *d = malloc(len ? len : 1);

	if (d && len)
		memcpy(d, p, len);
	return d;
}

int tc_snapshot_copy(struct tc_snapshot *dst, const struct tc_snapshot *src)
{
	*dst = *src;
	dst->idx = dup_mem(src->idx, src->nr * sizeof(*src->idx));
	dst->cnt = dup_mem(src->cnt, src->nr * sizeof(*src->cnt));
	dst->top = dup_mem(src->top, src->top_len * sizeof(*src->top));
	if (!dst->idx || !dst->cnt || !dst->top)
		return -ENOMEM;
	return 0;
}

void tc_snapshot_free(struct tc_snapshot *s)
{
	if (!s)
		return;
	free(s->idx);
	free(s->cnt);
	free(s->top);
	s->idx = NULL;
	s->cnt = NULL;
	s->top = NULL;
	s->nr = 0;
	s->top_len = 0;
}

json_t *tc_u128_to_json(tc_u64 hi, tc_u64 lo)
{
	u128 v = ((u128)hi << 64) | lo;
	char buf[48], *p = buf + sizeof(buf) - 1;

	*p = 0;
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	return json_string(p);
}

json_t *tc_snapshot_to_json(const struct tc_snapshot *s)
{
	json_t *b = json_array(), *top = json_array();
	tc_u32 i;

	for (i = 0; i < s->nr; i++)
		json_array_append_new(b, json_pack("[I, I]", (json_int_t)s->idx[i],
						   (json_int_t)s->cnt[i]));
	for (i = 0; i < s->top_len; i++)
		json_array_append_new(top, json_integer((json_int_t)s->top[i]));
	return json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:o, s:o}",
			 "cpu", s->cpu, "rep", s->rep,
			 "n", (json_int_t)s->n,
			 "min", (json_int_t)(s->n ? s->min : 0),
			 "max", (json_int_t)s->max,
			 "overflow", (json_int_t)s->overflow,
			 "sum", tc_u128_to_json(s->sum_hi, s->sum_lo),
			 "clamped", (json_int_t)s->clamped,
			 "overhead_min", (json_int_t)(s->n ? s->overhead_min : 0),
			 "overhead_max", (json_int_t)s->overhead_max,
			 "buckets", b, "top", top);
}

/* ---- validated JSON in ------------------------------------------------- */

struct in {
	const char *path;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 2, 3))) bad(struct in *in, const char *fmt, ...)
{
	va_list ap;

	if (in->errlen) {
		va_start(ap, fmt);
		vsnprintf(in->err, in->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:	return "an object";
	case JSON_ARRAY:	return "an array";
	case JSON_STRING:	return "a string";
	case JSON_INTEGER:	return "an integer";
	case JSON_REAL:		return "a real number";
	case JSON_TRUE:
	case JSON_FALSE:	return "a boolean";
	default:		return "null";
	}
}

/* Integer field @key in [lo, hi]. */
static int get_u64(struct in *in, const json_t *obj, const char *key, tc_u64 lo, tc_u64 hi,
		   tc_u64 *out)
{
	const json_t *j = json_object_get(obj, key);
	json_int_t v;

	if (!j)
		return bad(in, "%s.%s: missing", in->path, key);
	if (!json_is_integer(j))
		return bad(in, "%s.%s: %s where an integer was expected", in->path, key,
			   type_name(j));
	v = json_integer_value(j);
	if (v < 0 || (tc_u64)v < lo || (tc_u64)v > hi)
		return bad(in, "%s.%s: %lld is out of range [%llu, %llu]", in->path, key,
			   (long long)v, (unsigned long long)lo, (unsigned long long)hi);
	*out = (tc_u64)v;
	return 0;
}

static int parse_u128(const char *s, size_t len, u128 *out)
{
	u128 v = 0, max = ~(u128)0;
	size_t i;

	if (!len || len > 39 || (len > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The header fields: cpu, rep, n, min, max, overflow, sum, checked together. */
static int from_json_fields(struct in *in, const json_t *js, struct tc_snapshot *s)
{
	const json_t *j;
	tc_u64 v;
	u128 sum;
	int err;

	if ((err = get_u64(in, js, "cpu", 0, TC_SNAPSHOT_MAX_CPUS - 1, &v)))
		return err;
	s->cpu = (int)v;
	if ((err = get_u64(in, js, "rep", 0, TC_SNAPSHOT_MAX_REPEAT - 1, &v)))
		return err;
	s->rep = (int)v;
	s->nr_cpus = 1;
	if ((err = get_u64(in, js, "n", 1, TC_SNAPSHOT_MAX_N, &s->n)) ||
	    (err = get_u64(in, js, "min", 0, INT64_MAX, &s->min)) ||
	    (err = get_u64(in, js, "max", 0, INT64_MAX, &s->max)) ||
	    (err = get_u64(in, js, "overflow", 0, s->n, &s->overflow)))
		return err;
	j = json_object_get(js, "sum");
	if (!j)
		return bad(in, "%s.sum: missing", in->path);
	if (!json_is_string(j))
		return bad(in, "%s.sum: %s where a string was expected", in->path, type_name(j));
	if (parse_u128(json_string_value(j), json_string_length(j), &sum))
		return bad(in, "%s.sum: not a decimal integer below 2^128", in->path);
	s->sum_lo = (tc_u64)sum;
	s->sum_hi = (tc_u64)(sum >> 64);
	if (s->min > s->max)
		return bad(in, "%s: min %llu > max %llu", in->path, (unsigned long long)s->min,
			   (unsigned long long)s->max);
	if (sum < (u128)s->min * s->n || sum > (u128)s->max * s->n)
		return bad(in, "%s.sum: outside [n * min, n * max]", in->path);
	if ((s->overflow > 0) != (s->max >= TC_HIST_LIMIT))
		return bad(in, "%s: overflow %llu does not agree with max %llu", in->path,
			   (unsigned long long)s->overflow, (unsigned long long)s->max);
	if (s->overflow == s->n && s->min < TC_HIST_LIMIT)
		return bad(in, "%s: every sample overflows but min %llu is in range", in->path,
			   (unsigned long long)s->min);
	/* optional: what the sampler adds (a kernel or older file has none) */
	if (json_object_get(js, "clamped") &&
	    (err = get_u64(in, js, "clamped", 0, INT64_MAX, &s->clamped)))
		return err;
	if (json_object_get(js, "overhead_min") &&
	    (err = get_u64(in, js, "overhead_min", 0, INT64_MAX, &s->overhead_min)))
		return err;
	if (json_object_get(js, "overhead_max") &&
	    (err = get_u64(in, js, "overhead_max", 0, INT64_MAX, &s->overhead_max)))
		return err;
	return 0;
}

static int from_json_buckets(struct in *in, const json_t *j, struct tc_snapshot *s)
{
	size_t i, nb = json_array_size(j);
	tc_u64 total = 0;
	long prev_idx = -1;

	s->idx = malloc((nb ? nb : 1) * sizeof(*s->idx));
	s->cnt = malloc((nb ? nb : 1) * sizeof(*s->cnt));
	if (!s->idx || !s->cnt)
		return -ENOMEM;
	for (i = 0; i < nb; i++) {
		const json_t *b = json_array_get(j, i), *ji, *jc;
		json_int_t idx, cnt;

		if (!json_is_array(b) || json_array_size(b) != 2 ||
		    !json_is_integer(ji = json_array_get(b, 0)) ||
		    !json_is_integer(jc = json_array_get(b, 1)))
			return bad(in, "%s.buckets[%zu]: [index, count] of two integers expected",
				   in->path, i);
		idx = json_integer_value(ji);
		cnt = json_integer_value(jc);
		if (idx < 0 || idx >= TC_HIST_NR_BUCKETS)
			return bad(in, "%s.buckets[%zu]: index %lld is out of range [0, %u)",
				   in->path, i, (long long)idx, TC_HIST_NR_BUCKETS);
		if (idx <= prev_idx)
			return bad(in, "%s.buckets[%zu]: index %lld is not ascending", in->path, i,
				   (long long)idx);
		if (cnt < 1 || (tc_u64)cnt > s->n - s->overflow - total)
			return bad(in, "%s.buckets[%zu]: count %lld is out of range [1, %llu]",
				   in->path, i, (long long)cnt,
				   (unsigned long long)(s->n - s->overflow - total));
		total += (tc_u64)cnt;
		s->idx[i] = (tc_u32)idx;
		s->cnt[i] = (tc_u64)cnt;
		s->nr = (tc_u32)(i + 1);
		prev_idx = (long)idx;
	}
	if (total + s->overflow != s->n)
		return bad(in, "%s: buckets and overflow hold %llu samples, n is %llu", in->path,
			   (unsigned long long)(total + s->overflow), (unsigned long long)s->n);
	if (s->min < TC_HIST_LIMIT && (!s->nr || s->idx[0] != tc_hist_bucket(s->min)))
		return bad(in, "%s: min %llu is not in the first bucket", in->path,
			   (unsigned long long)s->min);
	if (s->max < TC_HIST_LIMIT && (!s->nr || s->idx[s->nr - 1] != tc_hist_bucket(s->max)))
		return bad(in, "%s: max %llu is not in the last bucket", in->path,
			   (unsigned long long)s->max);
	return 0;
}

static int from_json_top(struct in *in, const json_t *j, tc_u64 highest,
			 struct tc_snapshot *s)
{
	size_t i, nt = json_array_size(j);
	tc_u64 want = s->n < highest ? s->n : highest, top_max = 0;

	if (nt != want)
		return bad(in, "%s.top: %zu values, min(n, highest) = %llu expected", in->path, nt,
			   (unsigned long long)want);
	s->top = malloc((nt ? nt : 1) * sizeof(*s->top));
	if (!s->top)
		return -ENOMEM;
	/* Any order (the user suite sorts it, the kernel module's is a heap). */
	for (i = 0; i < nt; i++) {
		const json_t *t = json_array_get(j, i);
		tc_u64 x;

		if (!json_is_integer(t) || json_integer_value(t) < 0)
			return bad(in, "%s.top[%zu]: a non-negative integer expected", in->path, i);
		x = (tc_u64)json_integer_value(t);
		if (x < s->min || x > s->max)
			return bad(in, "%s.top[%zu]: %llu is outside [min, max]", in->path, i,
				   (unsigned long long)x);
		if (x > top_max)
			top_max = x;
		s->top[i] = x;
	}
	if (top_max != s->max)
		return bad(in, "%s.top: the largest value is not max", in->path);
	s->top_len = (tc_u32)nt;
	qsort(s->top, nt, sizeof(*s->top), cmp_u64);
	return 0;
}

int tc_snapshot_from_json(const json_t *js, const char *path, tc_u64 highest,
			  struct tc_snapshot *s, char *err, size_t errlen)
{
	struct in in = { .path = path, .err = err, .errlen = errlen };
	const json_t *j;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(js))
		return bad(&in, "%s: %s where an object was expected", path, type_name(js));
	ret = from_json_fields(&in, js, s);
	if (!ret) {
		j = json_object_get(js, "buckets");
		if (!j)
			ret = bad(&in, "%s.buckets: missing", path);
		else if (!json_is_array(j))
			ret = bad(&in, "%s.buckets: %s where an array was expected", path,
				  type_name(j));
		else
			ret = from_json_buckets(&in, j, s);
	}
	if (!ret) {
		j = json_object_get(js, "top");
		if (!j)
			ret = bad(&in, "%s.top: missing", path);
		else if (!json_is_array(j))
			ret = bad(&in, "%s.top: %s where an array was expected", path, type_name(j));
		else
			ret = from_json_top(&in, j, highest, s);
	}
	if (ret)
		tc_snapshot_free(s);
	return ret;
}
