// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/compare_noise.c - "tracecost noise" result files (doc/result-noise.md)
 * read back, validated whole, and put side by side: integer counts get
 * "equal" / "more" / "fewer", with the ratio of rates per minute when the
 * runs lasted different times; getpid medians get "lower" / "higher" only
 * when their intervals do not overlap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <tracecost/compare_noise.h>
#include <tracecost/file.h>
#include <tracecost/result.h>

#define MAX_CPUS	4096
#define MAX_COUNTS	100000

static int bad(char *err, size_t len, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(char *err, size_t len, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, len, "%s: %s", path, msg);
	return -EINVAL;
}

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool num_of(json_t *o, const char *key, double *v)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return isfinite(*v);
}

void tc_noise_result_free(struct tc_noise_result *r)
{
	if (!r)
		return;
	free(r->cpus);
	free(r->isolated);
	free(r->ipis);
	free(r->loop);
	free(r->counts);
	free(r);
}

static int read_loop(json_t *lp, struct tc_noise_loop *l, const char *path, int t, char *err,
		     size_t len)
{
	const char *kind = str_of(lp, "kind");
	json_t *ns;

	if (!json_is_object(lp) || !kind || (strcmp(kind, "getpid") && strcmp(kind, "spin")))
		return bad(err, len, path, "noise.targets[%d].loop: kind getpid or spin expected",
			   t);
	snprintf(l->kind, sizeof(l->kind), "%s", kind);
	if (!strcmp(kind, "spin")) {
		if (!num_of(lp, "loops_per_s", &l->rate) || l->rate < 0)
			return bad(err, len, path, "noise.targets[%d].loop.loops_per_s: a number "
				   ">= 0 expected", t);
		return 0;
	}
	ns = json_object_get(lp, "ns_per_call");
	if (json_is_null(ns) || !ns)
		return 0;
	if (!json_is_object(ns) || !num_of(ns, "median", &l->median) ||
	    !num_of(lp, "calls_per_s", &l->rate) || l->median < 0 || l->rate < 0)
		return bad(err, len, path, "noise.targets[%d].loop: ns_per_call.median and "
			   "calls_per_s expected", t);
	l->ci_valid = json_is_true(json_object_get(ns, "ci_valid"));
	if (l->ci_valid && (!num_of(ns, "ci_low", &l->ci_low) ||
			    !num_of(ns, "ci_high", &l->ci_high) || l->ci_low > l->ci_high))
		return bad(err, len, path, "noise.targets[%d].loop.ns_per_call: ci_low <= "
			   "ci_high expected", t);
	l->valid = true;
	return 0;
}

static int read_root(json_t *root, struct tc_noise_result *r, const char *path, char *err,
		     size_t len)
{
	json_t *sec, *targets, *t, *uname;
	const char *s;
	size_t i, j;
	int nc = 0;

	if (!json_is_object(root) || !json_is_object(json_object_get(root, "tool")) ||
	    !json_object_get(root, "suite"))
		return bad(err, len, path, "not a tracecost result file (no tool and suite)");
	if (!json_is_integer(json_object_get(root, "file_version")) ||
	    json_integer_value(json_object_get(root, "file_version")) != 1)
		return bad(err, len, path, "file_version 1 expected (written by another tracecost "
			   "version?)");
	s = str_of(root, "suite");
	if (!s || strcmp(s, "noise"))
		return bad(err, len, path, "suite 'noise' expected");
	uname = json_object_get(root, "uname");
	s = json_is_object(uname) ? str_of(uname, "release") : NULL;
	snprintf(r->release, sizeof(r->release), "%s", s ? s : "unknown");
	sec = json_object_get(root, "noise");
	if (!json_is_object(sec))
		return bad(err, len, path, "noise: an object expected");
	if (!num_of(sec, "duration_s", &r->duration_s) || r->duration_s <= 0)
		return bad(err, len, path, "noise.duration_s: a number > 0 expected");
	s = str_of(sec, "measure");
	if (!s || (strcmp(s, "getpid") && strcmp(s, "spin")))
		return bad(err, len, path, "noise.measure: getpid or spin expected");
	snprintf(r->measure, sizeof(r->measure), "%s", s);
	s = str_of(sec, "load");
	if (!s)
		return bad(err, len, path, "noise.load: a string expected");
	snprintf(r->load, sizeof(r->load), "%s", s);
	targets = json_object_get(sec, "targets");
	if (!json_is_array(targets) || !json_array_size(targets) ||
	    json_array_size(targets) > MAX_CPUS)
		return bad(err, len, path, "noise.targets: 1 to %d target CPUs expected", MAX_CPUS);
	r->nr_cpus = (int)json_array_size(targets);
	r->cpus = calloc((size_t)r->nr_cpus, sizeof(*r->cpus));
	r->isolated = calloc((size_t)r->nr_cpus, sizeof(*r->isolated));
	r->ipis = calloc((size_t)r->nr_cpus, sizeof(*r->ipis));
	r->loop = calloc((size_t)r->nr_cpus, sizeof(*r->loop));
	if (!r->cpus || !r->isolated || !r->ipis || !r->loop)
		return -ENOMEM;
	json_array_foreach(targets, i, t) {
		json_t *cpu = json_object_get(t, "cpu"), *ipis = json_object_get(t, "ipis");
		json_t *counts = json_object_get(t, "counts");
		int err2;

		if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
		    json_integer_value(cpu) >= MAX_CPUS ||
		    (i && json_integer_value(cpu) <= r->cpus[i - 1]))
			return bad(err, len, path, "noise.targets[%zu].cpu: CPUs ascending in [0, "
				   "%d) expected", i, MAX_CPUS);
		if (!json_is_integer(ipis) || json_integer_value(ipis) < 0)
			return bad(err, len, path, "noise.targets[%zu].ipis: an integer >= 0 "
				   "expected", i);
		if (!json_is_array(counts))
			return bad(err, len, path, "noise.targets[%zu].counts: an array expected",
				   i);
		r->cpus[i] = (int)json_integer_value(cpu);
		r->ipis[i] = (uint64_t)json_integer_value(ipis);
		r->isolated[i] = json_is_true(json_object_get(t, "isolated"));
		err2 = read_loop(json_object_get(t, "loop"), &r->loop[i], path, (int)i, err, len);
		if (err2)
			return err2;
		nc += (int)json_array_size(counts);
		if (nc > MAX_COUNTS)
			return bad(err, len, path, "noise: more than %d counts", MAX_COUNTS);
	}
	r->counts = calloc((size_t)(nc ? nc : 1), sizeof(*r->counts));
	if (!r->counts)
		return -ENOMEM;
	json_array_foreach(targets, i, t) {
		json_t *counts = json_object_get(t, "counts"), *c;

		json_array_foreach(counts, j, c) {
			struct tc_noise_count *x = &r->counts[r->nr_counts];
			const char *ev = str_of(c, "event"), *cause = str_of(c, "cause");
			const char *site = str_of(c, "callsite");
			json_t *n = json_object_get(c, "count");

			if (!ev || !cause || !site || !json_is_integer(n) ||
			    json_integer_value(n) < 0)
				return bad(err, len, path, "noise.targets[%zu].counts[%zu]: event, "
					   "cause, callsite (strings) and count (an integer >= 0) "
					   "expected", i, j);
			x->cpu = r->cpus[i];
			snprintf(x->event, sizeof(x->event), "%s", ev);
			snprintf(x->cause, sizeof(x->cause), "%s", cause);
			snprintf(x->callsite, sizeof(x->callsite), "%s", site);
			x->count = (uint64_t)json_integer_value(n);
			r->nr_counts++;
		}
	}
	return 0;
}

int tc_noise_result_read(const char *path, struct tc_noise_result **out, char *err, size_t len)
{
	struct tc_noise_result *r;
	json_error_t je;
	json_t *root;
	FILE *f;
	int ret;

	*out = NULL;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!root)
		return bad(err, len, path, "not JSON: line %d: %s", je.line, je.text);
	r = calloc(1, sizeof(*r));
	if (!r) {
		json_decref(root);
		return -ENOMEM;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	ret = read_root(root, r, path, err, len);
	json_decref(root);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, len, "%s: out of memory", path);
		tc_noise_result_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

bool tc_noise_result_is(const char *path)
{
	char err[128], *buf;
	const char *s;
	json_t *root;
	size_t len;
	bool is;

	/* regular files only, bounded, never blocking (a FIFO is the reader's to refuse) */
	if (tc_file_read(path, TC_RESULT_MAX_BYTES, &buf, &len, err, sizeof(err)))
		return false;
	root = json_loadb(buf, len, 0, NULL);
	free(buf);
	if (!root)
		return false;
	s = json_is_object(root) ? str_of(root, "suite") : NULL;
	is = s && !strcmp(s, "noise");
	json_decref(root);
	return is;
}

/* ---- side by side ------------------------------------------------------- */

static void verdict(uint64_t a, double da, uint64_t b, double db, char *buf, size_t len)
{
	const char *w = b == a ? "equal" : b > a ? "more" : "fewer";

	if (fabs(db - da) <= 0.01 * da) {
		snprintf(buf, len, "%s", w);
		return;
	}
	/* different durations: the rates tell more than the counts */
	if (!a)
		snprintf(buf, len, "%s, rate new", w);
	else
		snprintf(buf, len, "%s, rate x%.2f", w, ((double)b / db) / ((double)a / da));
}

static int find_row(struct tc_noise_cmp *c, int cpu, bool total, const char *ev,
		    const char *cause, const char *site)
{
	int i;

	for (i = 0; i < c->nr_rows; i++) {
		const struct tc_noise_cmp_row *r = &c->rows[i];

		if (r->cpu == cpu && r->total == total && !strcmp(r->event, ev) &&
		    !strcmp(r->cause, cause) && !strcmp(r->callsite, site))
			return i;
	}
	return -1;
}

static int add_row(struct tc_noise_cmp *c, int *cap, int cpu, bool total, const char *ev,
		   const char *cause, const char *site)
{
	struct tc_noise_cmp_row *r;
	int i = find_row(c, cpu, total, ev, cause, site);

	if (i >= 0)
		return i;
	if (c->nr_rows == *cap) {
		int nc = *cap ? *cap * 2 : 32;
		struct tc_noise_cmp_row *nr = realloc(c->rows, sizeof(*nr) * (size_t)nc);

		if (!nr)
			return -ENOMEM;
		c->rows = nr;
		*cap = nc;
	}
	r = &c->rows[c->nr_rows];
	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	r->total = total;
	snprintf(r->event, sizeof(r->event), "%s", ev);
	snprintf(r->cause, sizeof(r->cause), "%s", cause);
	snprintf(r->callsite, sizeof(r->callsite), "%s", site);
	r->count = calloc((size_t)c->n, sizeof(*r->count));
	r->per_min = calloc((size_t)c->n, sizeof(*r->per_min));
	r->verdict = calloc((size_t)c->n, sizeof(*r->verdict));
	if (!r->count || !r->per_min || !r->verdict) {
		free(r->count);
		free(r->per_min);
		free(r->verdict);
		return -ENOMEM;
	}
	return c->nr_rows++;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct tc_noise_cmp_row *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->total != y->total)
		return x->total ? -1 : 1;
	return strcmp(x->event, y->event);
}

void tc_noise_compare_free(struct tc_noise_cmp *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nr_rows; i++) {
		free(c->rows[i].count);
		free(c->rows[i].per_min);
		free(c->rows[i].verdict);
	}
	free(c->rows);
	free(c->loop_verdict);
	free(c);
}

int tc_noise_compare(struct tc_noise_result *const *files, int n, struct tc_noise_cmp **out,
		     char *err, size_t len)
{
	const struct tc_noise_result *f0 = files[0];
	struct tc_noise_cmp *c;
	int i, j, k, cap = 0;

	*out = NULL;
	if (n < 2) {
		snprintf(err, len, "compare needs two or more noise result files");
		return -EINVAL;
	}
	for (i = 1; i < n; i++) {
		if (files[i]->nr_cpus != f0->nr_cpus ||
		    memcmp(files[i]->cpus, f0->cpus, sizeof(int) * (size_t)f0->nr_cpus)) {
			snprintf(err, len, "%s and %s traced different target CPUs", f0->path,
				 files[i]->path);
			return -EINVAL;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->n = n;
	c->nr_cpus = f0->nr_cpus;
	c->cpus = f0->cpus;
	c->loop_verdict = calloc((size_t)(n * f0->nr_cpus), sizeof(*c->loop_verdict));
	if (!c->loop_verdict)
		goto nomem;
	/* stable insertion order: the IPI totals, then counts in file order */
	for (k = 0; k < f0->nr_cpus; k++)
		if (add_row(c, &cap, f0->cpus[k], true, "ipis", "", "") < 0)
			goto nomem;
	for (i = 0; i < n; i++) {
		for (j = 0; j < files[i]->nr_counts; j++) {
			const struct tc_noise_count *x = &files[i]->counts[j];
			int r = add_row(c, &cap, x->cpu, false, x->event, x->cause, x->callsite);

			if (r < 0)
				goto nomem;
			c->rows[r].count[i] += x->count;
		}
		for (k = 0; k < f0->nr_cpus; k++) {
			int r = find_row(c, f0->cpus[k], true, "ipis", "", "");

			c->rows[r].count[i] = files[i]->ipis[k];
		}
	}
	/* totals first, then events in name order; equal events keep file order */
	for (i = 1; i < c->nr_rows; i++) {
		struct tc_noise_cmp_row key = c->rows[i];

		for (j = i - 1; j >= 0 && cmp_rows(&c->rows[j], &key) > 0; j--)
			c->rows[j + 1] = c->rows[j];
		c->rows[j + 1] = key;
	}
	for (j = 0; j < c->nr_rows; j++) {
		struct tc_noise_cmp_row *r = &c->rows[j];

		for (i = 0; i < n; i++) {
			r->per_min[i] = (double)r->count[i] * 60 / files[i]->duration_s;
			if (i)
				verdict(r->count[0], files[0]->duration_s, r->count[i],
					files[i]->duration_s, r->verdict[i], sizeof(r->verdict[i]));
		}
	}
	for (k = 0; k < f0->nr_cpus; k++) {
		const struct tc_noise_loop *a = &f0->loop[k];

		for (i = 1; i < n; i++) {
			const struct tc_noise_loop *b = &files[i]->loop[k];
			char *v = c->loop_verdict[k * n + i];

			if (!a->valid || !b->valid || !a->ci_valid || !b->ci_valid ||
			    strcmp(a->kind, b->kind))
				snprintf(v, 16, "n/a");
			else if (b->ci_high < a->ci_low)
				snprintf(v, 16, "lower");
			else if (b->ci_low > a->ci_high)
				snprintf(v, 16, "higher");
			else
				snprintf(v, 16, "overlap");
		}
	}
	*out = c;
	return 0;
nomem:
	tc_noise_compare_free(c);
	snprintf(err, len, "out of memory");
	return -ENOMEM;
}
