// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/result_file.c - the loaded result file (struct tc_result_file,
 * tracecost/result.h): look-ups by configuration and row name, and free.
 * The reader (lib/result_read.c) and the pool (lib/result_pool.c) build
 * such files; both release them here, so neither depends on the other for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/result.h>

void tc_result_file_free(struct tc_result_file *f)
{
	int i, c, k;

	if (!f)
		return;
	for (i = 0; i < f->nr_rows; i++) {
		struct tc_result_row *row = &f->rows[i];

		for (c = 0; row->cells && c < f->nr_configs; c++) {
			struct tc_result_cell *cell = &row->cells[c];

			for (k = 0; cell->reps && k < cell->nr_reps; k++)
				tc_snapshot_free(&cell->reps[k]);
			free(cell->reps);
			free(cell->values);
			free(cell->p1cpu);
		}
		free(row->cells);
		free(row->name);
		free(row->title);
		free(row->unit);
	}
	free(f->rows);
	for (i = 0; i < f->nr_runs; i++) {
		free(f->runs[i].path);
		free(f->runs[i].start);
		free(f->runs[i].end);
		free(f->runs[i].command);
		free(f->runs[i].nodename);
		free(f->runs[i].release);
	}
	free(f->runs);
	for (i = 0; i < f->nr_configs; i++)
		free(f->configs[i]);
	free(f->configs);
	for (i = 0; i < f->nr_unmeasured; i++)
		free(f->unmeasured[i]);
	free(f->unmeasured);
	free(f->path);
	free(f->suite);
	free(f->release);
	free(f->nodename);
	free(f->machine);
	free(f->cpu_model);
	free(f->emulation);
	free(f->start);
	free(f->end);
	free(f->command);
	free(f);
}

int tc_result_file_config(const struct tc_result_file *f, const char *name)
{
	int i;

	for (i = 0; i < f->nr_configs; i++)
		if (f->configs[i] && !strcmp(f->configs[i], name))
			return i;
	return -ENOENT;
}

int tc_result_file_row(const struct tc_result_file *f, const char *name)
{
	int i;

	for (i = 0; i < f->nr_rows; i++)
		if (f->rows[i].name && !strcmp(f->rows[i].name, name))
			return i;
	return -ENOENT;
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

bool tc_result_run_same(const struct tc_result_run *a, const struct tc_result_run *b)
{
	return same_str(a->start, b->start) && same_str(a->end, b->end) &&
	       same_str(a->nodename, b->nodename) && same_str(a->command, b->command);
}
