// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/report.c - text, markdown and CSV tables (see tracecost/report.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/report.h>

struct tc_table {
	char *title;
	int ncols;		/* value columns; column 0 is the label */
	int nrows;		/* rows incl. the header row */
	int cap;
	char ***rows;		/* rows[r][0..ncols] */
};

static char **row_new(int ncols, const char *label, const char *const *cells)
{
	char **r = calloc((size_t)ncols + 1, sizeof(*r));
	int i;

	if (!r)
		return NULL;
	r[0] = strdup(label ? label : "");
	for (i = 0; i < ncols; i++)
		r[i + 1] = strdup(cells[i] ? cells[i] : "");
	for (i = 0; i <= ncols; i++) {
		if (!r[i]) {
			for (i = 0; i <= ncols; i++)
				free(r[i]);
			free(r);
			return NULL;
		}
	}
	return r;
}

int tc_table_add_row(struct tc_table *t, const char *label, const char *const *cells)
{
	char **r;

	if (t->nrows == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		char ***rows = realloc(t->rows, (size_t)cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		t->rows = rows;
		t->cap = cap;
	}
	r = row_new(t->ncols, label, cells);
	if (!r)
		return -ENOMEM;
	t->rows[t->nrows++] = r;
	return 0;
}

struct tc_table *tc_table_new(const char *title, const char *label, int ncols,
			      const char *const *cols)
{
	struct tc_table *t = calloc(1, sizeof(*t));

	if (!t || ncols < 1)
		goto fail;
	t->ncols = ncols;
	if (title && !(t->title = strdup(title)))
		goto fail;
	if (tc_table_add_row(t, label, cols))
		goto fail;
	return t;
fail:
	tc_table_free(t);
	return NULL;
}

void tc_table_free(struct tc_table *t)
{
	int r, c;

	if (!t)
		return;
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c <= t->ncols; c++)
			free(t->rows[r][c]);
		free(t->rows[r]);
	}
	free(t->rows);
	free(t->title);
	free(t);
}

static void print_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A markdown cell: '|' escaped (GitHub Flavored Markdown, tables), right-aligned to @w. */
static void print_md_cell(FILE *f, int w, const char *s)
{
	int n = 0;
	const char *p;

	for (p = s; *p; p++)
		n += 1 + (*p == '|');
	fprintf(f, " %*s", w > n ? w - n : 0, "");
	for (p = s; *p; p++) {
		if (*p == '|')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputs(" |", f);
}

void tc_table_print(const struct tc_table *t, FILE *f, enum tc_table_format fmt)
{
	int r, c, w[64] = { 0 };
	int ncols = t->ncols < 63 ? t->ncols : 63;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c <= ncols; c++) {
			int len = (int)strlen(t->rows[r][c]);

			if (len > w[c])
				w[c] = len;
		}
	switch (fmt) {
	case TC_TABLE_TEXT:
		if (t->title)
			fprintf(f, "%s\n\n", t->title);
		for (r = 0; r < t->nrows; r++) {
			/* label column right-aligned, indented like the seed tables */
			fprintf(f, "  %*s", w[0] + 2, t->rows[r][0]);
			for (c = 1; c <= ncols; c++)
				fprintf(f, "  %*s", w[c], t->rows[r][c]);
			fputc('\n', f);
		}
		fputc('\n', f);
		break;
	case TC_TABLE_MARKDOWN:
		if (t->title)
			fprintf(f, "### %s\n\n", t->title);
		for (r = 0; r < t->nrows; r++) {
			fputc('|', f);
			for (c = 0; c <= ncols; c++)
				print_md_cell(f, w[c], t->rows[r][c]);
			fputc('\n', f);
			if (r == 0) {
				fputc('|', f);
				for (c = 0; c <= ncols; c++) {
					int i;

					fputc(c ? ' ' : ':', f);
					for (i = 0; i < w[c]; i++)
						fputc('-', f);
					fputs(c ? ":|" : " |", f);
				}
				fputc('\n', f);
			}
		}
		fputc('\n', f);
		break;
	case TC_TABLE_CSV:
		for (r = 0; r < t->nrows; r++) {
			if (t->title) {
				print_csv_field(f, r ? t->title : "section");
				fputc(',', f);
			}
			for (c = 0; c <= ncols; c++) {
				if (c)
					fputc(',', f);
				print_csv_field(f, t->rows[r][c]);
			}
			fputc('\n', f);
		}
		break;
	}
}
