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

int tc_utf8_next(const char *s, long *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	long c, min;
	int n, i;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2, c = u[0] & 0x1f, min = 0x80;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3, c = u[0] & 0x0f, min = 0x800;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4, c = u[0] & 0x07, min = 0x10000;
	} else {
		*cp = -1;
		return 1;
	}
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) {
			*cp = -1;
			return 1;
		}
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*cp = -1;
		return 1;
	}
	*cp = c;
	return n;
}

/* Columns of code point @c (after Markus Kuhn's wcwidth, without tables). */
static int cp_width(long c)
{
	if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0x20d0 && c <= 0x20ff))
		return 0;	/* combining marks, zero-width spaces, variation selectors */
	if ((c >= 0x1100 && c <= 0x115f) || c == 0x2329 || c == 0x232a ||
	    (c >= 0x2e80 && c <= 0xa4cf && c != 0x303f) || (c >= 0xac00 && c <= 0xd7a3) ||
	    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe6f) ||
	    (c >= 0xff00 && c <= 0xff60) || (c >= 0xffe0 && c <= 0xffe6) ||
	    (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) ||
	    (c >= 0x20000 && c <= 0x3fffd))
		return 2;
	return 1;
}

int tc_text_width(const char *s)
{
	int w = 0;
	long c;

	while (*s) {
		s += tc_utf8_next(s, &c);
		w += c < 0 ? 1 : cp_width(c);
	}
	return w;
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
	int n = tc_text_width(s);
	const char *p;

	for (p = s; *p; p++)
		n += *p == '|';
	fprintf(f, " %*s", w > n ? w - n : 0, "");
	for (p = s; *p; p++) {
		if (*p == '|')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputs(" |", f);
}

/* printf's field width that right-aligns @s to @w display columns */
#define PAD(w, s)	((w) + (int)strlen(s) - tc_text_width(s))

void tc_table_print(const struct tc_table *t, FILE *f, enum tc_table_format fmt)
{
	int r, c, w[64] = { 0 };
	int ncols = t->ncols < 63 ? t->ncols : 63;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c <= ncols; c++) {
			int len = tc_text_width(t->rows[r][c]);

			if (len > w[c])
				w[c] = len;
		}
	switch (fmt) {
	case TC_TABLE_TEXT:
		if (t->title)
			fprintf(f, "%s\n\n", t->title);
		for (r = 0; r < t->nrows; r++) {
			/* label column right-aligned, indented like the seed tables */
			fprintf(f, "  %*s", PAD(w[0] + 2, t->rows[r][0]), t->rows[r][0]);
			for (c = 1; c <= ncols; c++)
				fprintf(f, "  %*s", PAD(w[c], t->rows[r][c]), t->rows[r][c]);
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
