// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/result_pool.c - the runs of several loaded result files as one file
 * (tc_result_file_pool(), tracecost/result.h): a version-2 file's runs[],
 * and a group of files given as one column of tracecost compare.
 *
 * Pooling keeps every run's repetitions whole and in order, so a
 * comparison can resample runs first (tracecost/compare.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/result.h>

/* Two counters within this relative difference run at one rate. */
#define SAME_RATE	1e-3

static int __attribute__((format(printf, 4, 5)))
pool_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Why @g cannot be pooled with @f (NULL when it can). */
static const char *misfit(const struct tc_result_file *f, const struct tc_result_file *g,
			  char *buf, size_t len)
{
	int i;

	if (strcmp(f->suite, g->suite))
		return "another suite";
	if (f->nr_configs != g->nr_configs)
		return "other configurations";
	for (i = 0; i < f->nr_configs; i++)
		if (strcmp(f->configs[i], g->configs[i])) {
			snprintf(buf, len, "configuration %d is '%.64s', not '%.64s'", i,
				 g->configs[i], f->configs[i]);
			return buf;
		}
	if (f->nr_rows != g->nr_rows)
		return "other pairs or metrics";
	for (i = 0; i < f->nr_rows; i++) {
		const struct tc_result_row *a = &f->rows[i], *b = &g->rows[i];

		if (strcmp(a->name, b->name) || strcmp(a->unit, b->unit) ||
		    a->higher_better != b->higher_better) {
			snprintf(buf, len, "row %d is '%.40s' (%.20s), not '%.40s' (%.20s)", i,
				 b->name, b->unit, a->name, a->unit);
			return buf;
		}
	}
	if (f->batch != g->batch) {
		snprintf(buf, len, "batch %u, not %u", g->batch, f->batch);
		return buf;
	}
	if (f->do_work != g->do_work)
		return "another --do-work";
	/* what the header of a group says must hold for each of its files */
	if (f->nr_cpus != g->nr_cpus) {
		snprintf(buf, len, "measured on %d CPU%s, not %d (header field cpus)", g->nr_cpus,
			 g->nr_cpus == 1 ? "" : "s", f->nr_cpus);
		return buf;
	}
	if (strcmp(f->machine ? f->machine : "", g->machine ? g->machine : "")) {
		snprintf(buf, len, "machine %.32s, not %.32s (header field uname.machine)",
			 g->machine ? g->machine : "?", f->machine ? f->machine : "?");
		return buf;
	}
	if (strcmp(f->emulation ? f->emulation : "", g->emulation ? g->emulation : "")) {
		snprintf(buf, len, "%.80s, not %.80s (header field host.emulation)",
			 g->emulation && *g->emulation ? g->emulation : "native",
			 f->emulation && *f->emulation ? f->emulation : "native");
		return buf;
	}
	if (f->deterministic != g->deterministic)
		return g->deterministic ? "counted under QEMU -icount, not timed (header field vm)" :
		       "timed, not counted under QEMU -icount (header field vm)";
	if ((f->freq_hz > 0) != (g->freq_hz > 0) ||
	    (f->freq_hz > 0 && fabs(g->freq_hz / f->freq_hz - 1) > SAME_RATE)) {
		snprintf(buf, len, "counter at %.6g Hz, not %.6g Hz", g->freq_hz, f->freq_hz);
		return buf;
	}
	return NULL;
}

static char *dup_str(const char *s)
{
	return strdup(s ? s : "");
}

static int copy_run(struct tc_result_run *dst, const struct tc_result_run *src,
		    unsigned int first)
{
	dst->first_rep = first;
	dst->nr_reps = src->nr_reps;
	if (!(dst->path = dup_str(src->path)) || !(dst->start = dup_str(src->start)) ||
	    !(dst->end = dup_str(src->end)) || !(dst->command = dup_str(src->command)) ||
	    !(dst->nodename = dup_str(src->nodename)) ||
	    !(dst->release = dup_str(src->release)))
		return -ENOMEM;
	return 0;
}

/* The header fields of @f0, the shape of the pooled file. */
static int copy_header(struct tc_result_file *p, const struct tc_result_file *f0,
		       const char *name)
{
	int i;

	p->version = f0->version;
	p->shape = f0->shape;
	p->batch = f0->batch;
	p->percentile = f0->percentile;
	p->do_work = f0->do_work;
	p->nr_cpus = f0->nr_cpus;
	if (!(p->path = strdup(name)) || !(p->suite = dup_str(f0->suite)) ||
	    !(p->release = dup_str(f0->release)) || !(p->nodename = dup_str(f0->nodename)) ||
	    !(p->machine = dup_str(f0->machine)) || !(p->cpu_model = dup_str(f0->cpu_model)) ||
	    !(p->emulation = dup_str(f0->emulation)) ||
	    !(p->start = dup_str(f0->start)) || !(p->end = dup_str(f0->end)) ||
	    !(p->command = dup_str(f0->command)))
		return -ENOMEM;
	p->configs = calloc((size_t)f0->nr_configs, sizeof(*p->configs));
	p->rows = calloc((size_t)f0->nr_rows, sizeof(*p->rows));
	if (!p->configs || !p->rows)
		return -ENOMEM;
	for (i = 0; i < f0->nr_configs; i++, p->nr_configs++)
		if (!(p->configs[i] = strdup(f0->configs[i])))
			return -ENOMEM;
	for (i = 0; i < f0->nr_rows; i++, p->nr_rows++) {
		const struct tc_result_row *r = &f0->rows[i];

		p->rows[i].higher_better = r->higher_better;
		p->rows[i].cells = calloc((size_t)f0->nr_configs, sizeof(*p->rows[i].cells));
		if (!(p->rows[i].name = strdup(r->name)) || !(p->rows[i].title = dup_str(r->title)) ||
		    !(p->rows[i].unit = dup_str(r->unit)) || !p->rows[i].cells)
			return -ENOMEM;
	}
	return 0;
}

static int pool_cells(struct tc_result_file *p, struct tc_result_file *const *files, int nr)
{
	int r, c, i, k;

	for (r = 0; r < p->nr_rows; r++) {
		for (c = 0; c < p->nr_configs; c++) {
			struct tc_result_cell *dst = &p->rows[r].cells[c];

			if (p->shape == TC_RESULT_SHAPE_HIST)
				dst->reps = calloc(p->repeat, sizeof(*dst->reps));
			else
				dst->values = calloc(p->repeat, sizeof(*dst->values));
			if (!dst->reps && !dst->values)
				return -ENOMEM;
			if (p->shape == TC_RESULT_SHAPE_HIST) {
				dst->p1cpu = malloc((size_t)p->nr_runs * sizeof(*dst->p1cpu));
				if (!dst->p1cpu)
					return -ENOMEM;
			}
			for (i = 0, k = 0; dst->p1cpu && i < nr; i++) {
				const struct tc_result_cell *src = &files[i]->rows[r].cells[c];
				int a;

				for (a = 0; a < files[i]->nr_runs; a++, k++)
					dst->p1cpu[k] = src->p1cpu ? src->p1cpu[a] : NAN;
			}
			for (i = 0; i < nr; i++) {
				const struct tc_result_cell *src = &files[i]->rows[r].cells[c];

				for (k = 0; k < src->nr_reps; k++, dst->nr_reps++) {
					if (src->values) {
						dst->values[dst->nr_reps] = src->values[k];
						continue;
					}
					if (tc_snapshot_copy(&dst->reps[dst->nr_reps], &src->reps[k])) {
						dst->nr_reps++;
						return -ENOMEM;
					}
				}
			}
		}
	}
	return 0;
}

/*
 * A run that appears twice (the same file given twice in a group, or a copy
 * of it): it is one measurement, not two, and counting it twice would
 * shrink the interval for nothing. Runs are the same when start, end, host
 * and command agree and a start is recorded.
 */
static const char *repeated_run(struct tc_result_file *const *files, int nr, bool one_file,
				char *buf, size_t len)
{
	int i, j, a, b;

	for (i = 0; i < nr; i++)
		for (a = 0; a < files[i]->nr_runs; a++) {
			const struct tc_result_run *x = &files[i]->runs[a];

			if (!x->start || !*x->start)
				continue;
			for (j = i; j < nr; j++)
				for (b = j == i ? a + 1 : 0; b < files[j]->nr_runs; b++) {
					const struct tc_result_run *y = &files[j]->runs[b];

					if (!tc_result_run_same(x, y))
						continue;
					if (one_file)
						snprintf(buf, len, "runs[%d] and runs[%d] are the same "
							 "run (started %.40s on %.40s): a run counts "
							 "once", i, j, x->start,
							 x->nodename ? x->nodename : "?");
					else if (i != j && !strcmp(files[i]->path, files[j]->path))
						snprintf(buf, len, "%.200s is given twice: a file (a "
							 "session) counts once", files[i]->path);
					else if (i == j)
						snprintf(buf, len, "%.200s holds one run twice (started "
							 "%.40s on %.40s): a run counts once",
							 files[i]->path, x->start,
							 x->nodename ? x->nodename : "?");
					else
						snprintf(buf, len, "%.200s and %.200s hold the same run "
							 "(started %.40s on %.40s): a run counts once",
							 files[i]->path, files[j]->path, x->start,
							 x->nodename ? x->nodename : "?");
					return buf;
				}
		}
	return NULL;
}

const char *tc_result_file_unmeasured(const struct tc_result_file *f, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < f->nr_unmeasured; i++)
		if (!strncmp(f->unmeasured[i], name, n) && f->unmeasured[i][n] == ':')
			return f->unmeasured[i];
	return NULL;
}

int tc_result_file_add_unmeasured(struct tc_result_file *f, const char *name, const char *why)
{
	char **u, *s;

	if (tc_result_file_unmeasured(f, name) || f->nr_unmeasured >= TC_RESULT_MAX_CONFIGS)
		return 0;
	u = realloc(f->unmeasured, (size_t)(f->nr_unmeasured + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	f->unmeasured = u;
	if (asprintf(&s, "%s: %s", name, why && *why ? why : "no reason recorded") < 0)
		return -ENOMEM;
	u[f->nr_unmeasured++] = s;
	return 0;
}

int tc_result_file_pool(struct tc_result_file *const *files, int nr, const char *name,
			struct tc_result_file **res, char *err, size_t errlen)
{
	struct tc_result_file *p;
	unsigned long reps = 0, runs = 0;
	double freq = 0, step = 0;
	unsigned int highest = 0;
	char why[640];
	const char *bad;
	bool one_file;
	int i, j, ret;

	*res = NULL;
	if (errlen)
		err[0] = 0;
	if (nr < 1 || !files[0])
		return pool_fail(err, errlen, -EINVAL, "%s: no files", name);
	/* the runs of one version-2 file (the reader's): named by their index */
	for (i = 0, one_file = nr > 1; i < nr && one_file; i++)
		one_file = files[i]->path && !strcmp(files[i]->path, name);
	for (i = 0; i < nr; i++) {
		bad = i ? misfit(files[0], files[i], why, sizeof(why)) : NULL;
		if (bad && one_file)
			return pool_fail(err, errlen, -EINVAL,
					 "%.200s: runs[%d] cannot be pooled with runs[0]: %s", name,
					 i, bad);
		if (bad)
			return pool_fail(err, errlen, -EINVAL,
					 "%.200s: cannot be pooled with %.200s: %s", files[i]->path,
					 files[0]->path, bad);
		reps += files[i]->repeat;
		runs += (unsigned long)files[i]->nr_runs;
		freq += files[i]->freq_hz;
		if (files[i]->step_ticks > step)
			step = files[i]->step_ticks;
		if (!highest || files[i]->highest < highest)
			highest = files[i]->highest;
	}
	bad = repeated_run(files, nr, one_file, why, sizeof(why));
	if (bad)
		return pool_fail(err, errlen, -EINVAL, "%.200s: %s", name, bad);
	if (runs > TC_RESULT_MAX_RUNS || reps > TC_RESULT_MAX_TOTAL_REPS)
		return pool_fail(err, errlen, -E2BIG,
				 "%.200s: %lu runs and %lu repetitions, more than %d and %d",
				 name, runs, reps, TC_RESULT_MAX_RUNS, TC_RESULT_MAX_TOTAL_REPS);
	p = calloc(1, sizeof(*p));
	if (!p)
		return pool_fail(err, errlen, -ENOMEM, "out of memory");
	ret = copy_header(p, files[0], name);
	p->repeat = (unsigned int)reps;
	p->highest = files[0]->shape == TC_RESULT_SHAPE_HIST ? highest : 0;
	p->freq_hz = freq / nr;
	p->step_ticks = step;
	if (!ret) {
		p->runs = calloc(runs, sizeof(*p->runs));
		ret = p->runs ? 0 : -ENOMEM;
	}
	/* each file is a session (or holds its own): sessions are numbered on */
	p->deterministic = true;
	for (i = 0, reps = 0; !ret && i < nr; i++) {
		for (j = 0; !ret && j < files[i]->nr_runs; j++, p->nr_runs++) {
			ret = copy_run(&p->runs[p->nr_runs], &files[i]->runs[j],
				       (unsigned int)reps);
			p->runs[p->nr_runs].session = p->nr_sessions + files[i]->runs[j].session;
			reps += files[i]->runs[j].nr_reps;
		}
		p->nr_sessions += files[i]->nr_sessions > 0 ? files[i]->nr_sessions : 1;
		p->deterministic &= files[i]->deterministic;
	}
	if (!ret)
		ret = pool_cells(p, files, nr);
	/* the profiles a run could not apply: said once per name */
	for (i = 0; !ret && i < nr; i++)
		for (j = 0; !ret && j < files[i]->nr_unmeasured; j++) {
			const char *u = files[i]->unmeasured[j], *colon = strchr(u, ':');
			char pname[TC_RESULT_MAX_NAME + 1];

			snprintf(pname, sizeof(pname), "%.*s", (int)(colon - u), u);
			ret = tc_result_file_add_unmeasured(p, pname, colon + 2);
		}
	if (ret) {
		tc_result_file_free(p);
		return pool_fail(err, errlen, ret, "out of memory");
	}
	*res = p;
	return 0;
}
