// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/kmod_results.c - read tracecost.ko's debugfs results file
 * (doc/kmod-results.md; see tracecost/kmod_results.h) into repetition
 * snapshots. Moved here from src/suite_kernel.c, which calls it after each
 * run of the module; tests/fuzz/fuzz_kmod.c drives it with any text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/hist.h>
#include <tracecost/kmod.h>
#include <tracecost/kmod_results.h>
#include <tracecost/snapshot.h>

#define X_NAME(id, name, title) [id] = name,
static const char *const kpair_names[TC_NR_KPAIRS] = { TC_KMOD_PAIRS(X_NAME) };

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static char *next_line(char **p)
{
	char *l = *p, *nl;

	if (!l || !*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = l + strlen(l);
	}
	return l;
}

static int pair_index(const struct tc_kmod_run_config *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr_pairs; i++)
		if (c->pairs[i] >= 0 && c->pairs[i] < TC_NR_KPAIRS &&
		    !strcmp(kpair_names[c->pairs[i]], name))
			return i;
	return -1;
}

static int cpu_index(const struct tc_kmod_run_config *c, int cpu)
{
	int i;

	for (i = 0; i < c->nr_cpus; i++)
		if (c->cpus[i] == cpu)
			return i;
	return -1;
}

/*
 * A configuration line ("samples 1000", ...) after the version line: the
 * module echoes the configuration each run ran with, and it must be what
 * this run wrote (the lock keeps other tracecost runs out; this catches
 * anyone else writing the debugfs files in between). Returns 1 if @l is
 * one (and matches), 0 if it is not one, -EBUSY if it differs.
 */
static int check_echo(char *l, const struct tc_kmod_run_config *c, char *err, size_t len)
{
	char want[1024], *v;
	size_t off;
	int i;

	if (strncmp(l, "samples ", 8) && strncmp(l, "highest ", 8) &&
	    strncmp(l, "do_work ", 8) && strncmp(l, "pair_event ", 11) &&
	    strncmp(l, "pairs ", 6) && strncmp(l, "cpus ", 5))
		return 0;
	v = strchr(l, ' ') + 1;
	*strchr(l, ' ') = 0;
	if (!strcmp(l, "samples"))
		snprintf(want, sizeof(want), "%llu", (unsigned long long)c->samples);
	else if (!strcmp(l, "highest"))
		snprintf(want, sizeof(want), "%u", c->highest);
	else if (!strcmp(l, "do_work"))
		snprintf(want, sizeof(want), "%d", c->do_work);
	else if (!strcmp(l, "pair_event"))
		snprintf(want, sizeof(want), "%d", c->pair_event);
	else if (!strcmp(l, "cpus"))
		snprintf(want, sizeof(want), "%s", c->cpu_list);
	else
		for (i = 0, off = 0, want[0] = 0; i < c->nr_pairs; i++)
			off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%s",
						i ? "," : "", kpair_names[c->pairs[i]]);
	if (strcmp(v, want))
		return fail(err, len, -EBUSY, "tracecost.ko ran with %s %s, not %s as configured:"
			    " something else wrote its debugfs files during this run", l, v, want);
	return 1;
}

/* "cell CPU PAIR n ...": the slot of that CPU x pair, filled but for its arrays. */
static int parse_cell(const char *l, const struct tc_kmod_run_config *c, int rep,
		      struct tc_snapshot **snap, uint64_t *resched, struct tc_snapshot **cur,
		      char *err, size_t len)
{
	unsigned long long v[10];
	struct tc_snapshot *s;
	char pair[32];
	int cpu, n, pi, ci;

	if (sscanf(l, "cell %d %31s %n", &cpu, pair, &n) != 2)
		return 0;
	pi = pair_index(c, pair);
	ci = cpu_index(c, cpu);
	if (pi < 0 || ci < 0)
		return fail(err, len, -EINVAL, "tracecost.ko reported CPU %d pair %s, not asked for",
			    cpu, pair);
	s = snap[pi * c->nr_cpus + ci];
	*cur = s;
	/* found by tests/fuzz/fuzz_kmod.c: a repeated line overwrote arrays */
	if (s->n || s->idx || s->top)
		return fail(err, len, -EINVAL, "tracecost.ko results: CPU %d pair %s reported twice",
			    cpu, pair);
	if (sscanf(l + n, "n %llu min %llu max %llu overflow %llu sum %llu %llu"
		   " clamped %llu omin %llu omax %llu resched %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) != 10)
		return fail(err, len, -EINVAL, "tracecost.ko results: bad line '%.60s'", l);
	*s = (struct tc_snapshot){
		.cpu = cpu, .rep = rep, .nr_cpus = 1, .n = v[0], .min = v[1], .max = v[2],
		.overflow = v[3], .sum_hi = v[4], .sum_lo = v[5], .clamped = v[6],
		.overhead_min = v[7], .overhead_max = v[8],
	};
	if (resched)
		resched[pi] += v[9];
	return 1;
}

/* "b IDX:COUNT ...": the non-zero buckets of the last cell. */
static int parse_buckets(const char *l, struct tc_snapshot *s, char *err, size_t len)
{
	const char *q = l + 1;
	char *end;
	size_t cap = 16;

	/* a second line kept nr with 16 fresh slots: heap overflow */
	if (s->idx || s->cnt)
		return fail(err, len, -EINVAL, "tracecost.ko results: two bucket lines for one cell");
	s->idx = malloc(cap * sizeof(*s->idx));
	s->cnt = malloc(cap * sizeof(*s->cnt));
	if (!s->idx || !s->cnt)
		return fail(err, len, -ENOMEM, "out of memory");
	while (*q == ' ') {
		unsigned long idx = strtoul(q + 1, &end, 10);

		if (*end != ':' || idx >= TC_HIST_NR_BUCKETS)
			return fail(err, len, -EINVAL, "tracecost.ko results: bad bucket");
		if (s->nr == cap) {
			tc_u32 *ni = realloc(s->idx, 2 * cap * sizeof(*s->idx));
			tc_u64 *nc;

			if (ni)
				s->idx = ni;
			nc = ni ? realloc(s->cnt, 2 * cap * sizeof(*s->cnt)) : NULL;
			if (!nc)
				return fail(err, len, -ENOMEM, "out of memory");
			s->cnt = nc;
			cap *= 2;
		}
		s->idx[s->nr] = (tc_u32)idx;
		s->cnt[s->nr++] = strtoull(end + 1, &end, 10);
		q = end;
	}
	return 0;
}

/* "t V ...": the top-N of the last cell, in the module's heap order. */
static int parse_top(const char *l, struct tc_snapshot *s, char *err, size_t len)
{
	const char *q = l + 1;
	char *end;
	size_t cap = 16;

	if (s->top)
		return fail(err, len, -EINVAL, "tracecost.ko results: two top-N lines for one cell");
	s->top = malloc(cap * sizeof(*s->top));
	if (!s->top)
		return fail(err, len, -ENOMEM, "out of memory");
	while (*q == ' ') {
		if (s->top_len == cap) {
			tc_u64 *nt = realloc(s->top, 2 * cap * sizeof(*s->top));

			if (!nt)
				return fail(err, len, -ENOMEM, "out of memory");
			s->top = nt;
			cap *= 2;
		}
		s->top[s->top_len++] = strtoull(q + 1, &end, 10);
		q = end;
	}
	/* the module writes heap order; result files keep them ascending */
	qsort(s->top, s->top_len, sizeof(*s->top), cmp_u64);
	return 0;
}

int tc_kmod_results_parse(char *text, const struct tc_kmod_run_config *c, int rep,
			  struct tc_snapshot **snap, uint64_t *resched,
			  struct tc_kmod_counter *kc, char *err, size_t len)
{
	int seen = 0, version = 0, layout = 0, echoed = 0, ret;
	struct tc_snapshot *s = NULL;
	char *p = text, *l;

	while ((l = next_line(&p))) {
		if (version) {
			ret = check_echo(l, c, err, len);
			if (ret < 0)
				return ret;
			if (ret) {
				echoed++;
				continue;
			}
		}
		if (sscanf(l, "tracecost-kmod %d", &version) == 1) {
			if (version != TC_KMOD_RESULTS_VERSION)
				return fail(err, len, -EPROTO, "tracecost.ko results version %d, this"
					    " tracecost reads %d: module and CLI do not match",
					    version, TC_KMOD_RESULTS_VERSION);
		} else if (sscanf(l, "hist_layout %d", &layout) == 1) {
			if (layout != TC_HIST_LAYOUT_VERSION)
				return fail(err, len, -EPROTO, "tracecost.ko histogram layout %d,"
					    " expected %d", layout, TC_HIST_LAYOUT_VERSION);
		} else if (!strncmp(l, "status ", 7)) {
			if (strcmp(l + 7, "done"))
				return fail(err, len, -EIO, "tracecost.ko: %s", l + 7);
		} else if (!strncmp(l, "counter ", 8)) {
			snprintf(kc->name, sizeof(kc->name), "%s", l + 8);
		} else if (sscanf(l, "counter_khz %llu", &kc->khz) == 1) {
			continue;
		} else {
			ret = parse_cell(l, c, rep, snap, resched, &s, err, len);
			if (ret > 0)
				seen++;
			else if (!ret && s && l[0] == 'b' && (l[1] == ' ' || !l[1]))
				ret = parse_buckets(l, s, err, len);
			else if (!ret && s && l[0] == 't' && (l[1] == ' ' || !l[1]))
				ret = parse_top(l, s, err, len);
			if (ret < 0)
				return ret;
		}
	}
	if (version != TC_KMOD_RESULTS_VERSION)
		return fail(err, len, -EINVAL, "tracecost.ko results: no version line");
	if (echoed != 6)
		return fail(err, len, -EINVAL, "tracecost.ko results: %d of 6 configuration lines",
			    echoed);
	if (seen != c->nr_pairs * c->nr_cpus)
		return fail(err, len, -EINVAL, "tracecost.ko reported %d of %d CPU x pair cells:"
			    " a CPU did not run", seen, c->nr_cpus * c->nr_pairs);
	return 0;
}
