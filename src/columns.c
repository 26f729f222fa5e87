// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/columns.c - the column argument FILE[,FILE...][:CONFIG] of compare
 * and plot (src/columns.h): one parser, the files of each argument read
 * once (a group pooled, lib/result_pool.c), columns named, and the test
 * that hands noise result files to their own comparison.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracecost/compare_noise.h>
#include <tracecost/report.h>
#include <tracecost/result.h>

#include "cli.h"
#include "columns.h"

/*
 * The group of @FILE (@cs->path is "@FILE"): the file names of FILE, one a
 * line (empty lines skipped, names relative to the current directory).
 */
static void colspec_list(struct tc_cli_colspec *cs)
{
	const char *list = cs->path + 1;
	size_t cap = 0, len = 0, n = 0;
	char *line;
	FILE *f;
	int c;

	if (!*list)
		tc_cli_usage("'%.200s': no file after '@' (@FILE lists a group's files, one "
			     "a line)", cs->path);
	f = fopen(list, "r");
	if (!f)
		tc_cli_usage("%.200s: cannot open the list of a group (@FILE): %s", list,
			     strerror(errno));
	/* the whole list, each line ended by a NUL */
	while ((c = getc(f)) != EOF) {
		if (len + 2 > cap) {
			char *nb = realloc(cs->buf, cap = cap ? cap * 2 : 4096);

			if (!nb)
				tc_cli_fail("out of memory");
			cs->buf = nb;
		}
		if (!c)
			tc_cli_usage("%.200s: a NUL byte in the list of a group (@FILE)", list);
		cs->buf[len++] = c == '\n' ? 0 : (char)c;
		n += c == '\n';
	}
	if (ferror(f))
		tc_cli_usage("%.200s: %s", list, strerror(errno));
	fclose(f);
	if (!cs->buf)
		tc_cli_usage("%.200s: an empty list of a group (@FILE: one file a line)", list);
	cs->buf[len] = 0;
	cs->files = calloc(n + 2, sizeof(*cs->files));
	if (!cs->files)
		tc_cli_fail("out of memory");
	for (line = cs->buf; line < cs->buf + len; line += strlen(line) + 1) {
		size_t l = strlen(line);

		if (l && line[l - 1] == '\r')
			line[--l] = 0;		/* a list written on Windows */
		if (l >= 4096)
			tc_cli_usage("%.200s: a file name of %zu characters", list, l);
		if (l)
			cs->files[cs->nr_files++] = line;
	}
	if (!cs->nr_files)
		tc_cli_usage("%.200s: an empty list of a group (@FILE: one file a line)", list);
}

void tc_cli_colspec_parse(const char *spec, struct tc_cli_colspec *cs)
{
	const char *colon = strrchr(spec, ':');
	struct stat st;
	char *p, *save = NULL, *tok;
	size_t len;

	memset(cs, 0, sizeof(*cs));
	len = strlen(spec);
	if (len >= sizeof(cs->path))
		tc_cli_usage("'%.40s...': a column argument of %zu characters (at most %zu; "
			     "@FILE reads a group's files from FILE)",
			     spec, len, sizeof(cs->path) - 1);
	if (!len)
		tc_cli_usage("an empty column argument (FILE[,FILE...][:CONFIG])");
	snprintf(cs->path, sizeof(cs->path), "%s", spec);
	/* FILE:CONFIG, unless the whole argument names a file */
	if (colon && colon > spec && stat(spec, &st)) {
		if (!colon[1])
			tc_cli_usage("'%.200s': the CONFIG after ':' is empty (FILE:CONFIG names "
				     "one configuration; FILE alone gives them all)", spec);
		cs->path[colon - spec] = 0;
		cs->config = cs->path + (colon - spec) + 1;
	}
	/* @FILE: the group listed in FILE, unless the argument names a file */
	if (cs->path[0] == '@' && stat(cs->path, &st)) {
		colspec_list(cs);
		return;
	}
	cs->buf = strdup(cs->path);
	cs->files = calloc(strlen(cs->path) / 2 + 2, sizeof(*cs->files));
	if (!cs->buf || !cs->files)
		tc_cli_fail("out of memory");
	/* a group FILE,FILE,..., unless the whole path names a file */
	if (!strchr(cs->path, ',') || !stat(cs->path, &st)) {
		cs->files[cs->nr_files++] = cs->buf;
		return;
	}
	p = cs->path;
	if (p[0] == ',' || p[strlen(p) - 1] == ',' || strstr(p, ",,"))
		tc_cli_usage("'%.200s': an empty file name in a group (FILE,FILE,...)", p);
	for (tok = strtok_r(cs->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		cs->files[cs->nr_files++] = tok;
}

void tc_cli_colspec_free(struct tc_cli_colspec *cs)
{
	free(cs->buf);
	free(cs->files);
	cs->buf = NULL;
	cs->files = NULL;
	cs->nr_files = 0;
}

bool tc_cli_columns_noise(int nr_specs, char *const *specs)
{
	bool noise = false;
	int i, k;

	for (i = 0; i < nr_specs; i++) {
		struct tc_cli_colspec cs;
		int nr = 0;

		tc_cli_colspec_parse(specs[i], &cs);
		for (k = 0; k < cs.nr_files; k++)
			nr += tc_noise_result_is(cs.files[k]);
		if (nr && (cs.nr_files > 1 || cs.config))
			tc_cli_usage("'%.200s': a noise result is one column of its own (no group, "
				     "no :CONFIG): give each noise file as an argument", specs[i]);
		tc_cli_colspec_free(&cs);
		noise |= nr > 0;
	}
	return noise;
}

static struct tc_result_file *load_file(const char *path)
{
	char err[TC_RESULT_ERR_LEN];
	struct tc_result_file *f;
	int ret = tc_result_file_read(path, &f, err, sizeof(err));

	if (ret == -ENOMEM)
		tc_cli_fail("%s", err);
	if (ret)
		tc_cli_usage("%s", err);
	return f;
}

/* A column's files: one, or a group whose runs are pooled (tc_result_file_pool()). */
static struct tc_result_file *load_group(const struct tc_cli_colspec *cs)
{
	struct tc_result_file **files, *f;
	char err[TC_RESULT_ERR_LEN];
	int i, ret;

	if (cs->nr_files == 1)
		return load_file(cs->files[0]);
	files = calloc((size_t)cs->nr_files, sizeof(*files));
	if (!files)
		tc_cli_fail("out of memory");
	for (i = 0; i < cs->nr_files; i++)
		files[i] = load_file(cs->files[i]);
	ret = tc_result_file_pool(files, cs->nr_files, cs->path, &f, err, sizeof(err));
	if (ret == -ENOMEM)
		tc_cli_fail("%s", err);
	if (ret)
		tc_cli_usage("%s", err);
	for (i = 0; i < cs->nr_files; i++)
		tc_result_file_free(files[i]);
	free(files);
	return f;
}

static void config_list(const struct tc_result_file *f, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < f->nr_configs && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", f->configs[i]);
}

/* @s cut to at most @max bytes at a UTF-8 character's end, into @buf */
static const char *utf8_cut(char *buf, size_t cap, const char *s, size_t max)
{
	size_t i = 0;
	long c;
	int n;

	if (max >= cap)
		max = cap - 1;
	while (s[i]) {
		n = tc_utf8_next(s + i, &c);
		if (i + (size_t)n > max)
			break;
		i += (size_t)n;
	}
	memcpy(buf, s, i);
	buf[i] = 0;
	return buf;
}

/*
 * Default names: <release> where that names one column only, else
 * <release>:<config>; when every column has the same release, the header
 * says it once and the names are the configurations. Repeated names get
 * "#2", "#3", ... Labels replace the first names.
 */
static void name_columns(struct tc_cli_column *col, int n, int nr_labels,
			 char *const *labels)
{
	char (*base)[sizeof(col->name)] = calloc((size_t)n, sizeof(*base));
	int i, j, same_release = 1;

	if (!base)
		tc_cli_fail("out of memory");
	for (i = 1; i < n; i++)
		same_release &= !strcmp(col[i].file->release, col[0].file->release);
	for (i = 0; i < n; i++) {
		const struct tc_result_file *f = col[i].file;
		char cut[81], cut40[41];
		int k = 0;

		for (j = 0; j < n; j++)
			k += !strcmp(col[j].file->release, f->release);
		if (same_release && n > 1)
			snprintf(base[i], sizeof(base[i]), "%s", f->configs[col[i].config]);
		else if (k == 1 && *f->release)
			snprintf(base[i], sizeof(base[i]), "%s",
				 utf8_cut(cut, sizeof(cut), f->release, 80));
		else
			snprintf(base[i], sizeof(base[i]), "%s:%s",
				 utf8_cut(cut40, sizeof(cut40), f->release, 40),
				 f->configs[col[i].config]);
	}
	for (i = 0; i < n; i++) {
		char cut[81];
		int k = 1;

		for (j = 0; j < i; j++)
			k += !strcmp(base[j], base[i]);
		if (k > 1)
			snprintf(col[i].name, sizeof(col[i].name), "%s#%d",
				 utf8_cut(cut, sizeof(cut), base[i], 80), k);
		else
			snprintf(col[i].name, sizeof(col[i].name), "%s", base[i]);
	}
	free(base);
	if (nr_labels > n)
		tc_cli_usage("--label: %d labels for %d columns", nr_labels, n);
	for (i = 0; i < nr_labels; i++) {
		const char *ch;

		/* a newline or escape sequence would split or garble the table */
		for (ch = labels[i]; *ch; ch++)
			if ((unsigned char)*ch < 0x20 || *ch == 0x7f)
				tc_cli_usage("--label number %d holds a control character "
					     "(0x%02x): a label is one line of text", i + 1,
					     (unsigned char)*ch);
		if (!*labels[i] || strlen(labels[i]) >= sizeof(col[i].name))
			tc_cli_usage("--label: '%.40s' must have 1 to %zu characters", labels[i],
				     sizeof(col[i].name) - 1);
		for (j = 0; j < i; j++)
			if (!strcmp(labels[j], labels[i]))
				tc_cli_usage("--label '%.40s' is given twice: columns need distinct "
					     "names", labels[i]);
		snprintf(col[i].name, sizeof(col[i].name), "%s", labels[i]);
	}
}

int tc_cli_columns_load(int nr_specs, char *const *specs, int nr_labels,
			char *const *labels, struct tc_cli_column **cols)
{
	struct tc_result_file **files;
	struct tc_cli_column *col = NULL;
	int i, j, n = 0, cap = 0;

	files = calloc((size_t)nr_specs + 1, sizeof(*files));
	if (!files)
		tc_cli_fail("out of memory");
	for (i = 0; i < nr_specs; i++) {
		struct tc_cli_colspec cs;
		const char *path, *cfg;
		struct tc_result_file *f = NULL;
		int c0, c1;

		tc_cli_colspec_parse(specs[i], &cs);
		path = cs.path;
		cfg = cs.config;
		for (j = 0; j < i; j++)
			if (files[j] && !strcmp(files[j]->path, path))
				f = files[j];
		if (!f)
			f = files[i] = load_group(&cs);
		if (cfg) {
			char list[512];

			c0 = tc_result_file_config(f, cfg);
			if (c0 < 0 && tc_result_file_unmeasured(f, cfg))
				tc_cli_usage("%s: profile %s (not measured: no column)", path,
					     tc_result_file_unmeasured(f, cfg));
			if (c0 < 0) {
				config_list(f, list, sizeof(list));
				tc_cli_usage("%s: no configuration '%s' (the file has: %s)", path,
					     cfg, list);
			}
			c1 = c0 + 1;
		} else {
			c0 = 0;
			c1 = f->nr_configs;
		}
		tc_cli_colspec_free(&cs);
		for (j = c0; j < c1; j++) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				col = realloc(col, (size_t)cap * sizeof(*col));
				if (!col)
					tc_cli_fail("out of memory");
			}
			col[n].file = f;
			col[n].config = j;
			col[n].arg = i;
			n++;
		}
	}
	name_columns(col, n, nr_labels, labels);
	free(files);
	*cols = col;
	return n;
}

int tc_cli_columns_of_file(struct tc_result_file *f, struct tc_cli_column **cols)
{
	struct tc_cli_column *col;
	int j;

	col = calloc((size_t)f->nr_configs, sizeof(*col));
	if (!col)
		tc_cli_fail("out of memory");
	for (j = 0; j < f->nr_configs; j++)
		col[j] = (struct tc_cli_column){ .file = f, .config = j };
	name_columns(col, f->nr_configs, 0, NULL);
	*cols = col;
	return f->nr_configs;
}

void tc_cli_columns_free(struct tc_cli_column *cols, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < i; j++)
			if (cols[j].file == cols[i].file)
				break;
		if (j == i)
			tc_result_file_free(cols[i].file);
	}
	free(cols);
}

