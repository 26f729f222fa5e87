/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/report.h - tables in the seed cover letters' layout.
 *
 *   IRQ Metrics
 *
 *             Metric     stock     call    call+   static  static+
 *            average      19.0     27.1    175.2     19.0    166.3
 *
 * Cells are strings formatted by the caller; columns are right-aligned to
 * the widest cell. Text, markdown and CSV share the same table object.
 */
#ifndef TRACECOST_REPORT_H
#define TRACECOST_REPORT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tc_table_format { TC_TABLE_TEXT, TC_TABLE_MARKDOWN, TC_TABLE_CSV };

struct tc_table;

/**
 * tc_table_new() - a table of @ncols value columns
 * @title:  section title ("IRQ Metrics"), or NULL
 * @label:  header of the first (label) column ("Metric")
 * @ncols:  value columns, >= 1
 * @cols:   their headers
 * Return: the table, or NULL on allocation failure.
 */
struct tc_table *tc_table_new(const char *title, const char *label, int ncols,
			      const char *const *cols);

/**
 * tc_table_add_row() - append a row; strings are copied
 * Return: 0 or -ENOMEM.
 */
int tc_table_add_row(struct tc_table *t, const char *label, const char *const *cells);

/**
 * tc_utf8_next() - decode the UTF-8 character at @s
 * @s:	 a NUL-terminated string, *@s != 0
 * @cp:	 output: the code point, or -1 for a byte that starts no valid
 *	 sequence (overlong, surrogate, above U+10FFFF, cut short)
 *
 * Return: the bytes the character (or the invalid byte) takes, 1 to 4.
 */
int tc_utf8_next(const char *s, long *cp);

/**
 * tc_text_width() - display columns of @s on a terminal: valid UTF-8 counts
 * one column a character, two for East Asian wide and fullwidth ones (CJK,
 * Hangul, fullwidth forms, emoji), none for combining marks; every other
 * byte one column.
 *
 * Return: the width in columns, >= 0.
 */
int tc_text_width(const char *s);

/**
 * tc_table_print() - print @t to @f in format @fmt; text and markdown
 * columns are aligned by display width (tc_text_width())
 */
void tc_table_print(const struct tc_table *t, FILE *f, enum tc_table_format fmt);

void tc_table_free(struct tc_table *t);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_REPORT_H */
