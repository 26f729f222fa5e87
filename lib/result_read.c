// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/result_read.c - read and validate result files (see the "Reading
 * result files" section of tracecost/result.h and doc/result-format.md).
 *
 * Every value that a later computation relies on is checked here, so that
 * compare, plot and the fuzzer's harness can trust a loaded file: counts add
 * up, buckets are in range and ascending, min/max/sum agree with the
 * buckets, the top-N is the largest samples, and every sum the bootstrap
 * may form stays below 2^64 (bounds in result.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracecost/file.h>
#include <tracecost/report.h>
#include <tracecost/result.h>


/* Parsing context: where we are, for the one-line message. */
struct rd {
	const char *name;
	char *err;
	size_t errlen;
	struct tc_hist *tmp;		/* scratch for merging one repetition */
	struct tc_topn *top;		/* scratch heap, capacity highest */
	const char *prefix;		/* "runs[3]: " inside a version-2 file */
	bool in_runs;			/* reading a run of a version-2 file */
};

/*
 * Copy @s into @dst, one printable line: valid UTF-8 as it is (release and
 * node names, paths), '?' for each control character (C0, DEL, C1) and each
 * byte of no valid sequence; cut at a character's end to fit @len.
 */
static void put_clean(char *dst, size_t len, const char *s)
{
	size_t i = 0;
	long c;
	int n;

	if (!len)
		return;
	while (*s) {
		n = tc_utf8_next(s, &c);
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) {
			if (i + 1 >= len)
				break;
			dst[i++] = '?';
		} else {
			if (i + (size_t)n >= len)
				break;
			memcpy(dst + i, s, (size_t)n);
			i += (size_t)n;
		}
		s += n;
	}
	dst[i] = 0;
}

static int __attribute__((format(printf, 3, 4)))
rd_fail(struct rd *r, int err, const char *fmt, ...)
{
	char msg[TC_RESULT_ERR_LEN], line[TC_RESULT_ERR_LEN + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%.200s: %s%s", r->name, r->prefix ? r->prefix : "", msg);
	put_clean(r->err, r->errlen, line);
	return err;
}

#define BAD(r, ...)	rd_fail((r), -EINVAL, __VA_ARGS__)

static const char *type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static int get(struct rd *r, const json_t *obj, const char *path, const char *key,
	       json_type type, json_t **out)
{
	json_t *j = json_object_get(obj, key);

	if (!j)
		return BAD(r, "%s%s%s: missing", path, *path ? "." : "", key);
	if (json_typeof(j) != type)
		return BAD(r, "%s%s%s: %s where %s was expected", path, *path ? "." : "", key,
			   type_name(j), type == JSON_OBJECT ? "an object" :
			   type == JSON_ARRAY ? "an array" : type == JSON_STRING ? "a string" :
			   "an integer");
	*out = j;
	return 0;
}

/* An integer in [min, max] (JSON integers are signed 64-bit). */
static int get_int(struct rd *r, const json_t *obj, const char *path, const char *key,
		   json_int_t min, json_int_t max, json_int_t *out)
{
	json_t *j;
	int err = get(r, obj, path, key, JSON_INTEGER, &j);

	if (err)
		return err;
	*out = json_integer_value(j);
	if (*out < min || *out > max)
		return BAD(r, "%s%s%s: %lld is out of range [%lld, %lld]", path, *path ? "." : "",
			   key, (long long)*out, (long long)min, (long long)max);
	return 0;
}

/* A number (integer or real) in (min_excl, max_incl]. */
static int get_num(struct rd *r, const json_t *obj, const char *path, const char *key,
		   double min_excl, double max_incl, double *out)
{
	json_t *j = json_object_get(obj, key);

	if (!j)
		return BAD(r, "%s%s%s: missing", path, *path ? "." : "", key);
	if (!json_is_number(j))
		return BAD(r, "%s%s%s: %s where a number was expected", path, *path ? "." : "",
			   key, type_name(j));
	*out = json_number_value(j);
	if (!(*out > min_excl && *out <= max_incl))
		return BAD(r, "%s%s%s: %g is out of range (%g, %g]", path, *path ? "." : "", key,
			   *out, min_excl, max_incl);
	return 0;
}

/*
 * A string, copied. @strict 1: a name (1 .. TC_RESULT_MAX_NAME printable
 * ASCII characters, no spaces); 2: the same with spaces allowed inside
 * (system metric names such as "fs 1k create", units); 0: any string,
 * truncated to 255 characters with control characters replaced (it is only
 * ever printed).
 */
static int get_str(struct rd *r, const json_t *obj, const char *path, const char *key,
		   int strict, char **out)
{
	const char *s;
	size_t len, i;
	json_t *j;
	int err = get(r, obj, path, key, JSON_STRING, &j);

	if (err)
		return err;
	s = json_string_value(j);
	len = json_string_length(j);
	if (strict) {
		if (!len || len > TC_RESULT_MAX_NAME)
			return BAD(r, "%s%s%s: a name of 1 to %d characters was expected (%zu)",
				   path, *path ? "." : "", key, TC_RESULT_MAX_NAME, len);
		for (i = 0; i < len; i++)
			if (s[i] < 0x20 || s[i] >= 0x7f || (s[i] == ' ' && strict == 1))
				return BAD(r, "%s%s%s: a name must be printable ASCII%s",
					   path, *path ? "." : "", key,
					   strict == 1 ? " without spaces" : "");
		if (s[0] == ' ' || s[len - 1] == ' ')
			return BAD(r, "%s%s%s: a name must not start or end with a space",
				   path, *path ? "." : "", key);
	}
	if (len > 255)
		len = 255;
	*out = malloc(len + 1);
	if (!*out)
		return rd_fail(r, -ENOMEM, "out of memory");
	put_clean(*out, len + 1, s);
	return 0;
}

/* Optional string: empty when absent or not a string. */
static int opt_str(struct rd *r, const json_t *obj, const char *key, char **out)
{
	json_t *j = json_object_get(obj, key);

	*out = strdup("");
	if (!*out)
		return rd_fail(r, -ENOMEM, "out of memory");
	if (!json_is_string(j))
		return 0;
	free(*out);
	return get_str(r, obj, "", key, 0, out);
}

/* Exact 128-bit decimal string. */
/* Validate one snapshot and load it (lib/snapshot.c owns the format). */
static int read_snap(struct rd *r, const struct tc_result_file *f, const json_t *js,
		     const char *path, struct tc_snapshot *s)
{
	char msg[TC_RESULT_ERR_LEN];
	int err = tc_snapshot_from_json(js, path, f->highest, s, msg, sizeof(msg));

	if (err == -EINVAL)
		return BAD(r, "%s", msg);
	if (err)
		return rd_fail(r, err, "out of memory");
	return 0;
}

static int cmp_snap(const void *a, const void *b)
{
	const struct tc_snapshot *x = a, *y = b;

	if (x->rep != y->rep)
		return x->rep - y->rep;
	return x->cpu - y->cpu;
}

/* One cell: validate every snapshot, merge the CPUs of each repetition. */
static int read_cell(struct rd *r, const struct tc_result_file *f, unsigned int repeat,
		     const json_t *jc, const char *cpath, struct tc_result_cell *cell)
{
	char path[192];
	struct tc_snapshot *s;
	json_t *ja;
	size_t i, ns;
	tc_u64 total = 0;
	int err, k;

	if ((err = get(r, jc, cpath, "snapshots", JSON_ARRAY, &ja)))
		return err;
	ns = json_array_size(ja);
	if (ns < repeat || ns > (size_t)repeat * TC_RESULT_MAX_CPUS)
		return BAD(r, "%s.snapshots: %zu snapshots for %u repetitions", cpath, ns, repeat);
	s = calloc(ns, sizeof(*s));
	cell->reps = calloc(repeat, sizeof(*cell->reps));
	if (!s || !cell->reps) {
		free(s);
		return rd_fail(r, -ENOMEM, "out of memory");
	}
	cell->nr_reps = (int)repeat;
	for (i = 0; i < ns; i++) {
		snprintf(path, sizeof(path), "%s.snapshots[%zu]", cpath, i);
		err = read_snap(r, f, json_array_get(ja, i), path, &s[i]);
		if (err)
			goto out;
		if ((unsigned int)s[i].rep >= repeat) {
			err = BAD(r, "%s.rep: %d is not below repeat %u", path, s[i].rep, repeat);
			goto out;
		}
		total += s[i].n;
		if (total > TC_RESULT_MAX_CELL_N) {
			err = BAD(r, "%s: more than 2^50 samples in one cell", cpath);
			goto out;
		}
	}
	qsort(s, ns, sizeof(*s), cmp_snap);
	i = 0;
	for (k = 0; k < (int)repeat; k++) {
		int cpus = 0;

		if (i == ns || s[i].rep != k) {
			err = BAD(r, "%s.snapshots: repetition %d is missing", cpath, k);
			goto out;
		}
		tc_hist_init(r->tmp);
		tc_topn_init(r->top, f->highest);
		for (; i < ns && s[i].rep == k; i++, cpus++) {
			if (cpus && s[i].cpu == s[i - 1].cpu) {
				err = BAD(r, "%s.snapshots: CPU %d appears twice in repetition %d",
					  cpath, s[i].cpu, k);
				goto out;
			}
			tc_snapshot_add(r->tmp, r->top, &s[i], 1);
		}
		if (tc_snapshot_set(&cell->reps[k], r->tmp, r->top)) {
			err = rd_fail(r, -ENOMEM, "out of memory");
			goto out;
		}
		cell->reps[k].cpu = -1;
		cell->reps[k].rep = k;
		cell->reps[k].nr_cpus = cpus;
	}
	/* the percentile of the separate one-CPU run, if recorded */
	cell->p1cpu = malloc(sizeof(*cell->p1cpu));
	if (!cell->p1cpu) {
		err = rd_fail(r, -ENOMEM, "out of memory");
		goto out;
	}
	*cell->p1cpu = NAN;
	ja = json_object_get(jc, "stats_1cpu");
	if (ja && json_is_object(ja)) {
		json_t *jv = json_object_get(ja, "percentile");

		if (jv && json_is_number(jv) && isfinite(json_number_value(jv)) &&
		    json_number_value(jv) >= 0)
			*cell->p1cpu = json_number_value(jv);
	}
	err = 0;
out:
	for (i = 0; i < ns; i++)
		tc_snapshot_free(&s[i]);
	free(s);
	return err;
}

static int read_rows(struct rd *r, struct tc_result_file *f, const json_t *sec,
		     unsigned int repeat)
{
	char path[96];
	json_t *jp;
	size_t i, j;
	int err, c;

	if ((err = get(r, sec, f->suite, "pairs", JSON_ARRAY, &jp)))
		return err;
	if (!json_array_size(jp) || json_array_size(jp) > TC_RESULT_MAX_ROWS)
		return BAD(r, "%s.pairs: 1 to %d pairs expected", f->suite, TC_RESULT_MAX_ROWS);
	f->rows = calloc(json_array_size(jp), sizeof(*f->rows));
	if (!f->rows)
		return rd_fail(r, -ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(jp); i++) {
		struct tc_result_row *row = &f->rows[i];
		const json_t *p = json_array_get(jp, i);
		json_t *jc;

		snprintf(path, sizeof(path), "%s.pairs[%zu]", f->suite, i);
		if (!json_is_object(p))
			return BAD(r, "%s: %s where an object was expected", path, type_name(p));
		f->nr_rows++;
		row->cells = calloc((size_t)f->nr_configs, sizeof(*row->cells));
		if (!row->cells)
			return rd_fail(r, -ENOMEM, "out of memory");
		if ((err = get_str(r, p, path, "name", 1, &row->name)) ||
		    (err = get_str(r, p, path, "title", 0, &row->title)))
			return err;
		row->unit = strdup("");
		if (!row->unit)
			return rd_fail(r, -ENOMEM, "out of memory");
		if (tc_result_file_row(f, row->name) != (int)i)
			return BAD(r, "%s.name: pair '%s' appears twice", path, row->name);
		if ((err = get(r, p, path, "cells", JSON_ARRAY, &jc)))
			return err;
		if (json_array_size(jc) != (size_t)f->nr_configs)
			return BAD(r, "%s.cells: %zu cells for %d configurations", path,
				   json_array_size(jc), f->nr_configs);
		for (j = 0; j < json_array_size(jc); j++) {
			const json_t *cell = json_array_get(jc, j);
			char cpath[128], *cfg;

			snprintf(cpath, sizeof(cpath), "%s.cells[%zu]", path, j);
			if (!json_is_object(cell))
				return BAD(r, "%s: %s where an object was expected", cpath,
					   type_name(cell));
			if ((err = get_str(r, cell, cpath, "configuration", 1, &cfg)))
				return err;
			c = tc_result_file_config(f, cfg);
			free(cfg);
			if (c < 0)
				return BAD(r, "%s.configuration: not one of the file's "
					   "configurations", cpath);
			if (row->cells[c].reps)
				return BAD(r, "%s.configuration: '%s' appears twice", cpath,
					   f->configs[c]);
			if ((err = read_cell(r, f, repeat, cell, cpath, &row->cells[c])))
				return err;
		}
	}
	f->nr_cpus = f->rows[0].cells[0].reps[0].nr_cpus;
	return 0;
}

static int read_configs(struct rd *r, struct tc_result_file *f, const json_t *sec)
{
	char path[96];
	json_t *jc;
	size_t i;
	int err;

	if ((err = get(r, sec, f->suite, "configurations", JSON_ARRAY, &jc)))
		return err;
	if (!json_array_size(jc) || json_array_size(jc) > TC_RESULT_MAX_CONFIGS)
		return BAD(r, "%s.configurations: 1 to %d configurations expected", f->suite,
			   TC_RESULT_MAX_CONFIGS);
	f->configs = calloc(json_array_size(jc), sizeof(*f->configs));
	if (!f->configs)
		return rd_fail(r, -ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(jc); i++) {
		const json_t *c = json_array_get(jc, i);
		char *name;

		snprintf(path, sizeof(path), "%s.configurations[%zu]", f->suite, i);
		if (!json_is_object(c))
			return BAD(r, "%s: %s where an object was expected", path, type_name(c));
		if ((err = get_str(r, c, path, "name", 1, &name)))
			return err;
		if (tc_result_file_config(f, name) >= 0) {
			err = BAD(r, "%s.name: configuration '%s' appears twice", path, name);
			free(name);
			return err;
		}
		f->configs[f->nr_configs++] = name;
	}
	return 0;
}

/* The section of a histogram suite (user, kernel). */
static int read_hist_section(struct rd *r, struct tc_result_file *f, const json_t *sec)
{
	json_int_t v;
	int err;

	if ((err = get_int(r, sec, f->suite, "hist_layout", 0, INT_MAX, &v)))
		return err;
	if (v != TC_HIST_LAYOUT_VERSION)
		return rd_fail(r, -EPROTONOSUPPORT,
			       "histogram layout %lld is not supported (this tracecost reads "
			       "layout %d)", (long long)v, TC_HIST_LAYOUT_VERSION);
	if ((err = get_int(r, sec, f->suite, "batch", 1, 1 << 20, &v)))
		return err;
	f->batch = (unsigned int)v;
	if ((err = get_int(r, sec, f->suite, "highest", 1, TC_RESULT_MAX_HIGHEST, &v)))
		return err;
	f->highest = (unsigned int)v;
	if ((err = get_num(r, sec, f->suite, "percentile", 0, 100, &f->percentile)))
		return err;
	if (json_is_boolean(json_object_get(sec, "do_work")))
		f->do_work = json_is_true(json_object_get(sec, "do_work"));
	if ((err = get_int(r, sec, f->suite, "repeat", 1, TC_RESULT_MAX_REPEAT, &v)))
		return err;
	f->repeat = (unsigned int)v;
	if ((err = read_configs(r, f, sec)))
		return err;
	r->tmp = malloc(sizeof(*r->tmp));
	r->top = malloc(TC_TOPN_SIZE(f->highest));
	if (!r->tmp || !r->top)
		return rd_fail(r, -ENOMEM, "out of memory");
	return read_rows(r, f, sec, (unsigned int)v);
}

/* ---- the system section (doc/result-system.md) ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A per-round array @key of exactly @n entries: numbers in [0,
 * TC_RESULT_MAX_VALUE] into @v, or (@v NULL) integers >= 0 into @cnt.
 */
static int read_rounds(struct rd *r, const json_t *obj, const char *path, const char *key,
		       unsigned int n, double *v, json_int_t *cnt)
{
	json_t *ja;
	size_t i;
	int err;

	if ((err = get(r, obj, path, key, JSON_ARRAY, &ja)))
		return err;
	if (json_array_size(ja) != n)
		return BAD(r, "%s.%s: %zu values for %u rounds (repeat)", path, key,
			   json_array_size(ja), n);
	for (i = 0; i < n; i++) {
		const json_t *j = json_array_get(ja, i);

		if (v) {
			double x = json_is_number(j) ? json_number_value(j) : NAN;

			if (!(x >= 0 && x <= TC_RESULT_MAX_VALUE))
				return BAD(r, "%s.%s[%zu]: a number in [0, %g] expected", path,
					   key, i, TC_RESULT_MAX_VALUE);
			v[i] = x;
		} else {
			if (!json_is_integer(j) || json_integer_value(j) < 0)
				return BAD(r, "%s.%s[%zu]: a non-negative integer expected", path,
					   key, i);
			cnt[i] = json_integer_value(j);
		}
	}
	return 0;
}

/* @a and @b agree to 1e-9 (relative): a summary written from the values. */
static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12;
}

/* summary: null, or an object whose median, min and max are those of @v. */
static int check_summary(struct rd *r, const json_t *jc, const char *path, const double *v,
			 unsigned int n, double *tmp)
{
	json_t *js = json_object_get(jc, "summary"), *ov = json_object_get(jc, "overhead_pct");
	static const char *const keys[] = { "median", "min", "max" };
	double want[3];
	unsigned int i;

	if (ov && !json_is_object(ov) && !json_is_null(ov))
		return BAD(r, "%s.overhead_pct: %s where an object or null was expected", path,
			   type_name(ov));
	if (!js)
		return BAD(r, "%s.summary: missing", path);
	if (json_is_null(js))
		return 0;
	if (!json_is_object(js))
		return BAD(r, "%s.summary: %s where an object or null was expected", path,
			   type_name(js));
	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	want[0] = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	want[1] = tmp[0];
	want[2] = tmp[n - 1];
	for (i = 0; i < 3; i++) {
		const json_t *j = json_object_get(js, keys[i]);

		if (!json_is_number(j))
			return BAD(r, "%s.summary.%s: a number expected", path, keys[i]);
		if (!near(json_number_value(j), want[i]))
			return BAD(r, "%s.summary.%s: %g is not the %s of the values (%g)", path,
				   keys[i], json_number_value(j), keys[i], want[i]);
	}
	return 0;
}

/* One cell of a metric: per-round values and event counts. */
static int read_value_cell(struct rd *r, struct tc_result_file *f, const json_t *jc,
			   const char *cpath, struct tc_result_row *row, json_int_t *cnt,
			   double *tmp)
{
	static const char *const ev[] = {
		"events_written", "events_lost", "events_in_buffer", "events_from_workload",
	};
	unsigned int n = f->repeat, k;
	json_int_t *e[4];
	double *v;
	char *prof;
	int err, c, i;

	if (!json_is_object(jc))
		return BAD(r, "%s: %s where an object was expected", cpath, type_name(jc));
	if ((err = get_str(r, jc, cpath, "profile", 1, &prof)))
		return err;
	c = tc_result_file_config(f, prof);
	free(prof);
	if (c < 0)
		return BAD(r, "%s.profile: not one of the file's available profiles", cpath);
	if (row->cells[c].values)
		return BAD(r, "%s.profile: '%s' appears twice", cpath, f->configs[c]);
	v = calloc(n, sizeof(*v));
	if (!v)
		return rd_fail(r, -ENOMEM, "out of memory");
	row->cells[c].values = v;
	row->cells[c].nr_reps = (int)n;
	if ((err = read_rounds(r, jc, cpath, "values", n, v, NULL)) ||
	    (err = read_rounds(r, jc, cpath, "work", n, NULL, cnt)))
		return err;
	for (i = 0; i < 4; i++) {
		e[i] = cnt + (size_t)(i + 1) * n;
		if ((err = read_rounds(r, jc, cpath, ev[i], n, NULL, e[i])))
			return err;
	}
	for (k = 0; k < n; k++) {
		if (e[1][k] > e[0][k])
			return BAD(r, "%s.events_lost[%u]: more than events_written", cpath, k);
		if (e[3][k] > e[2][k])
			return BAD(r, "%s.events_from_workload[%u]: more than events_in_buffer",
				   cpath, k);
	}
	return check_summary(r, jc, cpath, v, n, tmp);
}

/* One metric of a workload: a row. */
static int read_metric(struct rd *r, struct tc_result_file *f, const json_t *jm,
		       const char *path, json_int_t *cnt, double *tmp)
{
	struct tc_result_row *row = &f->rows[f->nr_rows];
	char title[256], *work_unit;
	json_int_t asked;
	json_t *jc, *hb;
	size_t j;
	int err;

	if (!json_is_object(jm))
		return BAD(r, "%s: %s where an object was expected", path, type_name(jm));
	if (f->nr_rows == TC_RESULT_MAX_WORKLOADS * TC_RESULT_MAX_METRICS)
		return BAD(r, "%s: more than %d metrics", path,
			   TC_RESULT_MAX_WORKLOADS * TC_RESULT_MAX_METRICS);
	f->nr_rows++;
	row->cells = calloc((size_t)f->nr_configs, sizeof(*row->cells));
	if (!row->cells)
		return rd_fail(r, -ENOMEM, "out of memory");
	if ((err = get_str(r, jm, path, "name", 2, &row->name)) ||
	    (err = get_str(r, jm, path, "unit", 2, &row->unit)))
		return err;
	if (tc_result_file_row(f, row->name) != f->nr_rows - 1)
		return BAD(r, "%s.name: metric '%s' appears twice", path, row->name);
	hb = json_object_get(jm, "higher_is_better");
	if (!json_is_boolean(hb))
		return BAD(r, "%s.higher_is_better: %s where a boolean was expected", path,
			   hb ? type_name(hb) : "missing");
	row->higher_better = json_is_true(hb);
	if ((err = get_str(r, jm, path, "work_unit", 0, &work_unit)))
		return err;
	err = get_int(r, jm, path, "work_asked", 0, INT64_MAX, &asked);
	if (!err) {
		snprintf(title, sizeof(title), "%s: %s is better (%.60s per run: %lld)",
			 row->name, row->higher_better ? "higher" : "lower", work_unit,
			 (long long)asked);
		row->title = strdup(title);
		if (!row->title)
			err = rd_fail(r, -ENOMEM, "out of memory");
	}
	free(work_unit);
	if (err)
		return err;
	if ((err = get(r, jm, path, "cells", JSON_ARRAY, &jc)))
		return err;
	if (json_array_size(jc) != (size_t)f->nr_configs)
		return BAD(r, "%s.cells: %zu cells for %d available profiles", path,
			   json_array_size(jc), f->nr_configs);
	for (j = 0; j < json_array_size(jc); j++) {
		char cpath[192];

		snprintf(cpath, sizeof(cpath), "%s.cells[%zu]", path, j);
		if ((err = read_value_cell(r, f, json_array_get(jc, j), cpath, row, cnt, tmp)))
			return err;
	}
	return 0;
}

/* The section of the system suite: profiles are columns, metrics rows. */
static int read_values_section(struct rd *r, struct tc_result_file *f, const json_t *sec)
{
	json_t *jp, *jw;
	json_int_t v, *cnt;
	double *tmp;
	size_t i, j, nm = 0;
	char path[128];
	int err;

	if ((err = get_int(r, sec, "system", "repeat", 1, TC_RESULT_MAX_REPEAT, &v)))
		return err;
	f->repeat = (unsigned int)v;
	if ((err = get(r, sec, "system", "profiles", JSON_ARRAY, &jp)))
		return err;
	if (!json_array_size(jp) || json_array_size(jp) > TC_RESULT_MAX_CONFIGS)
		return BAD(r, "system.profiles: 1 to %d profiles expected",
			   TC_RESULT_MAX_CONFIGS);
	f->configs = calloc(json_array_size(jp), sizeof(*f->configs));
	if (!f->configs)
		return rd_fail(r, -ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(jp); i++) {
		const json_t *p = json_array_get(jp, i), *av;
		char *name;

		snprintf(path, sizeof(path), "system.profiles[%zu]", i);
		if (!json_is_object(p))
			return BAD(r, "%s: %s where an object was expected", path, type_name(p));
		av = json_object_get(p, "available");
		if (!json_is_boolean(av))
			return BAD(r, "%s.available: %s where a boolean was expected", path,
				   av ? type_name(av) : "missing");
		if ((err = get_str(r, p, path, "name", 1, &name)))
			return err;
		if (tc_result_file_config(f, name) >= 0) {
			err = BAD(r, "%s.name: profile '%s' appears twice", path, name);
			free(name);
			return err;
		}
		if (json_is_true(av)) {
			f->configs[f->nr_configs++] = name;
		} else {
			const char *why = json_string_value(json_object_get(p, "reason"));

			err = tc_result_file_add_unmeasured(f, name, why);
			free(name);
			if (err)
				return rd_fail(r, err, "out of memory");
		}
	}
	if (!f->nr_configs)
		return BAD(r, "system.profiles: no available profile (no column)");
	if ((err = get(r, sec, "system", "workloads", JSON_ARRAY, &jw)))
		return err;
	if (!json_array_size(jw) || json_array_size(jw) > TC_RESULT_MAX_WORKLOADS)
		return BAD(r, "system.workloads: 1 to %d workloads expected",
			   TC_RESULT_MAX_WORKLOADS);
	for (i = 0; i < json_array_size(jw); i++) {
		const json_t *w = json_array_get(jw, i);
		json_t *jm;

		snprintf(path, sizeof(path), "system.workloads[%zu]", i);
		if (!json_is_object(w))
			return BAD(r, "%s: %s where an object was expected", path, type_name(w));
		if ((err = get(r, w, path, "metrics", JSON_ARRAY, &jm)))
			return err;
		if (!json_array_size(jm) || json_array_size(jm) > TC_RESULT_MAX_METRICS)
			return BAD(r, "%s.metrics: 1 to %d metrics expected", path,
				   TC_RESULT_MAX_METRICS);
		nm += json_array_size(jm);
	}
	f->rows = calloc(nm, sizeof(*f->rows));
	/* five per-round integer arrays of one cell */
	cnt = calloc((size_t)f->repeat * 5, sizeof(*cnt));
	tmp = calloc(f->repeat, sizeof(*tmp));
	if (!f->rows || !cnt || !tmp) {
		free(cnt);
		free(tmp);
		return rd_fail(r, -ENOMEM, "out of memory");
	}
	for (i = 0; i < json_array_size(jw) && !err; i++) {
		const json_t *w = json_array_get(jw, i), *jm = json_object_get(w, "metrics");
		char *wname;

		snprintf(path, sizeof(path), "system.workloads[%zu]", i);
		if ((err = get_str(r, w, path, "name", 1, &wname)))
			break;
		free(wname);
		for (j = 0; j < json_array_size(jm) && !err; j++) {
			char mpath[160];

			snprintf(mpath, sizeof(mpath), "%s.metrics[%zu]", path, j);
			err = read_metric(r, f, json_array_get(jm, j), mpath, cnt, tmp);
		}
	}
	free(cnt);
	free(tmp);
	return err;
}

/* cpus of the header: the CPUs the system suite's workloads ran on. */
static int read_cpus(struct rd *r, struct tc_result_file *f, const json_t *root)
{
	const json_t *jc = json_object_get(root, "cpus");
	size_t i;

	if (!jc)
		return 0;
	if (!json_is_array(jc) || json_array_size(jc) > TC_RESULT_MAX_CPUS)
		return BAD(r, "cpus: an array of at most %d CPUs expected", TC_RESULT_MAX_CPUS);
	for (i = 0; i < json_array_size(jc); i++) {
		const json_t *c = json_array_get(jc, i);

		if (!json_is_integer(c) || json_integer_value(c) < 0 ||
		    json_integer_value(c) >= TC_RESULT_MAX_CPUS)
			return BAD(r, "cpus[%zu]: a CPU number in [0, %d) expected", i,
				   TC_RESULT_MAX_CPUS);
	}
	f->nr_cpus = (int)json_array_size(jc);
	return 0;
}

static const struct {
	const char *name;
	enum tc_result_shape shape;
} suites[] = {
	{ "user", TC_RESULT_SHAPE_HIST },
	{ "kernel", TC_RESULT_SHAPE_HIST },
	{ "system", TC_RESULT_SHAPE_VALUES },
};

static int read_header(struct rd *r, struct tc_result_file *f, const json_t *root)
{
	json_t *j, *uname, *host, *counter, *vm;
	json_int_t v;
	size_t i;
	int err;

	if (!json_is_object(root))
		return BAD(r, "%s where a result object was expected", type_name(root));
	if (!json_object_get(root, "file_version"))
		return BAD(r, "not a tracecost result file (no file_version)");
	if ((err = get_int(r, root, "", "file_version", 0, INT_MAX, &v)))
		return err;
	f->version = (int)v;
	if (v > TC_RESULT_FILE_VERSION)
		return rd_fail(r, -EPROTONOSUPPORT,
			       "file_version %lld is newer than this tracecost reads (%d)",
			       (long long)v, TC_RESULT_FILE_VERSION);
	if (v != TC_RESULT_RUN_VERSION && v != TC_RESULT_FILE_VERSION)
		return rd_fail(r, -EPROTONOSUPPORT,
			       "file_version %lld is not supported (%d and %d are)", (long long)v,
			       TC_RESULT_RUN_VERSION, TC_RESULT_FILE_VERSION);
	if (r->in_runs && v != TC_RESULT_RUN_VERSION)
		return BAD(r, "file_version %lld where a run (version %d) was expected",
			   (long long)v, TC_RESULT_RUN_VERSION);
	if ((err = get(r, root, "", "tool", JSON_OBJECT, &j)) ||
	    (err = get(r, j, "tool", "name", JSON_STRING, &j)))
		return err;
	if (strcmp(json_string_value(j), "tracecost"))
		return BAD(r, "tool.name: not written by tracecost");
	if ((err = get_str(r, root, "", "suite", 1, &f->suite)))
		return err;
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (!strcmp(suites[i].name, f->suite))
			break;
	if (i == sizeof(suites) / sizeof(suites[0]))
		return rd_fail(r, -EOPNOTSUPP, "unknown suite '%s' (known: user, kernel, "
			       "system)", f->suite);
	f->shape = suites[i].shape;
	if ((err = get(r, root, "", "uname", JSON_OBJECT, &uname)) ||
	    (err = get_str(r, uname, "uname", "release", 0, &f->release)) ||
	    (err = opt_str(r, uname, "nodename", &f->nodename)) ||
	    (err = opt_str(r, uname, "machine", &f->machine)) ||
	    (err = opt_str(r, root, "start", &f->start)) ||
	    (err = opt_str(r, root, "end", &f->end)) ||
	    (err = opt_str(r, root, "command", &f->command)))
		return err;
	vm = json_object_get(root, "vm");
	f->deterministic = json_is_object(vm) &&
			   json_is_true(json_object_get(vm, "deterministic"));
	f->nr_sessions = 1;
	host = json_object_get(root, "host");
	if (json_is_object(host)) {
		err = opt_str(r, host, "cpu_model", &f->cpu_model);
		if (!err)
			err = opt_str(r, host, "emulation", &f->emulation);
	} else if (!(f->cpu_model = strdup("")) || !(f->emulation = strdup(""))) {
		err = rd_fail(r, -ENOMEM, "out of memory");
	}
	if (err)
		return err;
	counter = json_object_get(root, "counter");
	if (counter) {
		if (!json_is_object(counter))
			return BAD(r, "counter: %s where an object was expected",
				   type_name(counter));
		/* (the bound is exclusive below: 1e4 Hz itself is refused too) */
		if ((err = get_num(r, counter, "counter", "frequency_hz", TC_RESULT_MIN_FREQ_HZ,
				   TC_RESULT_MAX_FREQ_HZ, &f->freq_hz)))
			return err;
		/* 0 where every read differed by the same step (QEMU -icount) */
		if (json_object_get(counter, "resolution_ticks") &&
		    (err = get_num(r, counter, "counter", "resolution_ticks", -1,
				   f->freq_hz * TC_RESULT_MAX_RESOLUTION_S, &f->step_ticks)))
			return err;
	}
	return 0;
}

/* A version-1 object (one run) already checked by read_header(). */
static int read_run_body(struct rd *r, struct tc_result_file *f, const json_t *root)
{
	json_t *sec;
	int err;

	if ((err = get(r, root, "", f->suite, JSON_OBJECT, &sec)))
		return err;
	if (f->shape == TC_RESULT_SHAPE_VALUES && (err = read_cpus(r, f, root)))
		return err;
	err = f->shape == TC_RESULT_SHAPE_HIST ? read_hist_section(r, f, sec) :
	      read_values_section(r, f, sec);
	if (err)
		return err;
	f->runs = calloc(1, sizeof(*f->runs));
	if (!f->runs)
		return rd_fail(r, -ENOMEM, "out of memory");
	f->nr_runs = 1;
	f->runs[0].nr_reps = f->repeat;
	if (!(f->runs[0].path = strdup(f->path)) ||
	    !(f->runs[0].start = strdup(f->start ? f->start : "")) ||
	    !(f->runs[0].end = strdup(f->end ? f->end : "")) ||
	    !(f->runs[0].command = strdup(f->command ? f->command : "")) ||
	    !(f->runs[0].nodename = strdup(f->nodename ? f->nodename : "")) ||
	    !(f->runs[0].release = strdup(f->release ? f->release : "")))
		return rd_fail(r, -ENOMEM, "out of memory");
	return 0;
}

static struct tc_result_file *file_new(struct rd *r, const char *name)
{
	struct tc_result_file *f = calloc(1, sizeof(*f));

	if (f && !(f->path = strdup(name))) {
		free(f);
		f = NULL;
	}
	if (!f)
		rd_fail(r, -ENOMEM, "out of memory");
	return f;
}

/*
 * Version 2: every runs[] entry is a whole version-1 run, read as such and
 * pooled (tc_result_file_pool()); the header must name the runs' suite.
 */
static int read_runs(struct rd *r, const struct tc_result_file *top, const json_t *root,
		     struct tc_result_file **res)
{
	struct tc_result_file **runs;
	const json_t *jr = json_object_get(root, "runs");
	size_t i, n;
	int err = 0;

	if (!json_is_array(jr) || !json_array_size(jr) ||
	    json_array_size(jr) > TC_RESULT_MAX_RUNS)
		return BAD(r, "runs: an array of 1 to %d runs expected (file_version 2)",
			   TC_RESULT_MAX_RUNS);
	n = json_array_size(jr);
	runs = calloc(n, sizeof(*runs));
	if (!runs)
		return rd_fail(r, -ENOMEM, "out of memory");
	r->in_runs = true;
	for (i = 0; i < n && !err; i++) {
		const json_t *run = json_array_get(jr, i);
		char prefix[32];

		snprintf(prefix, sizeof(prefix), "runs[%zu]: ", i);
		r->prefix = prefix;
		runs[i] = file_new(r, top->path);
		if (!runs[i]) {
			err = -ENOMEM;
			break;
		}
		err = read_header(r, runs[i], run);
		if (!err && strcmp(runs[i]->suite, top->suite))
			err = BAD(r, "suite '%s' in a file of suite '%s'", runs[i]->suite,
				  top->suite);
		if (!err)
			err = read_run_body(r, runs[i], run);
		free(r->tmp);
		free(r->top);
		r->tmp = NULL;
		r->top = NULL;
	}
	r->prefix = NULL;
	if (!err)
		err = tc_result_file_pool(runs, (int)n, top->path, res, r->err, r->errlen);
	/* the runs of one file are one invocation: one session */
	if (!err) {
		for (i = 0; i < n; i++)
			(*res)->runs[i].session = 0;
		(*res)->nr_sessions = 1;
	}
	for (i = 0; i < n; i++)
		tc_result_file_free(runs[i]);
	free(runs);
	return err;
}

int tc_result_file_parse(const char *buf, size_t len, const char *name,
			 struct tc_result_file **res, char *err, size_t errlen)
{
	struct rd r = { .name = name, .err = err, .errlen = errlen };
	struct tc_result_file *f;
	json_error_t je;
	json_t *root;
	int ret;

	*res = NULL;
	if (errlen)
		err[0] = 0;
	if (len > TC_RESULT_MAX_BYTES)
		return rd_fail(&r, -EFBIG, "larger than %llu bytes",
			       (unsigned long long)TC_RESULT_MAX_BYTES);
	if (!len)
		return BAD(&r, "empty file");
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (json_error_code(&je) == json_error_premature_end_of_input)
			return BAD(&r, "truncated: JSON ends early (line %d)", je.line);
		if (json_error_code(&je) == json_error_out_of_memory)
			return rd_fail(&r, -ENOMEM, "out of memory");
		return BAD(&r, "not valid JSON: line %d, column %d: %s", je.line, je.column,
			   je.text);
	}
	f = file_new(&r, name);
	if (!f) {
		json_decref(root);
		return -ENOMEM;
	}
	ret = read_header(&r, f, root);
	if (!ret && f->version == TC_RESULT_FILE_VERSION) {
		ret = read_runs(&r, f, root, res);
		tc_result_file_free(f);
		f = NULL;
	} else if (!ret) {
		ret = read_run_body(&r, f, root);
	}
	json_decref(root);
	free(r.tmp);
	free(r.top);
	if (ret) {
		tc_result_file_free(f);
		if (*res) {
			tc_result_file_free(*res);
			*res = NULL;
		}
		return ret;
	}
	if (f)
		*res = f;
	return 0;
}

int tc_result_file_read(const char *path, struct tc_result_file **res, char *err,
			size_t errlen)
{
	struct rd r = { .name = path, .err = err, .errlen = errlen };
	char why[128], *buf;
	size_t got;
	int ret;

	*res = NULL;
	/* a FIFO or device is refused before open() could block on it */
	ret = tc_file_read(path, TC_RESULT_MAX_BYTES, &buf, &got, why, sizeof(why));
	if (ret == -EFBIG)
		return rd_fail(&r, ret, "%s for a result file (it is parsed whole in memory, "
			       "where its JSON tree takes several times its size)", why);
	if (ret)
		return rd_fail(&r, ret, "%s", why);
	ret = tc_result_file_parse(buf, got, path, res, err, errlen);
	free(buf);
	return ret;
}
