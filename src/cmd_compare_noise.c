// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_compare_noise.c - "tracecost compare" of "tracecost noise" result
 * files (lib/compare_noise.c): per target CPU, the IPI total and every
 * (event, cause) count of every file side by side, the first file the
 * reference; then the loop figures. cmd_compare() hands over when one of its
 * column arguments are noise results (tc_cli_columns_noise(), src/columns.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/compare_noise.h>
#include <tracecost/report.h>

#include "cli.h"

enum { OPT_LABEL = 256, OPT_FORMAT, OPT_HELP };

static const struct option long_opts[] = {
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost compare NOISE.json NOISE.json... [--label NAME]...\n"
	       "                         [--format text|markdown|csv]\n\n"
	       "Noise result files side by side, the first the reference: counts per target\n"
	       "CPU, event and cause, with \"equal\", \"more\" or \"fewer\" (and the ratio of\n"
	       "the rates per minute when the runs lasted different times); the getpid median\n"
	       "with \"lower\"/\"higher\" only when the two 95%% intervals do not overlap (each\n"
	       "interval covers the chunks of one run, not the spread between runs).\n");
}

static void fmt_rate(char *buf, size_t len, double v)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

int cmd_compare_noise(int argc, char **argv)
{
	struct tc_noise_result **files;
	struct tc_noise_cmp *c;
	enum tc_table_format fmt = TC_TABLE_TEXT;
	const char **labels, **cells;
	char err[1024], (*cell)[160];
	int nr_labels = 0, n, i, j, k, ch, ret;

	labels = calloc((size_t)argc + 1, sizeof(*labels));
	if (!labels)
		tc_cli_fail("out of memory");
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_LABEL:
			labels[nr_labels++] = optarg;
			break;
		case OPT_FORMAT:
			fmt = (enum tc_table_format)tc_cli_parse_format("--format", optarg, 0);
			break;
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(ch, argv, "tracecost compare --help");
		}
	}
	n = argc - optind;
	if (n < 2)
		tc_cli_usage("compare: two or more noise result files are needed");
	if (nr_labels > n)
		tc_cli_usage("--label: %d labels for %d files", nr_labels, n);
	for (i = 0; i < nr_labels; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(labels[i], labels[j]))
				tc_cli_usage("--label '%.40s' is given twice: columns need distinct "
					     "names", labels[i]);
	files = calloc((size_t)n, sizeof(*files));
	if (!files)
		tc_cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		ret = tc_noise_result_read(argv[optind + i], &files[i], err, sizeof(err));
		if (ret == -ENOMEM)
			tc_cli_fail("out of memory");
		if (ret)
			tc_cli_usage("%s", err);
	}
	/* unlabelled columns: the release, or the file where releases repeat */
	for (i = nr_labels; i < n; i++) {
		for (k = 0, j = 0; j < n; j++)
			k += !strcmp(files[j]->release, files[i]->release);
		labels[i] = k > 1 || !*files[i]->release ? argv[optind + i] : files[i]->release;
	}
	ret = tc_noise_compare(files, n, &c, err, sizeof(err));
	if (ret == -ENOMEM)
		tc_cli_fail("out of memory");
	if (ret)
		tc_cli_usage("%s", err);
	cell = calloc((size_t)n, sizeof(*cell));
	cells = calloc((size_t)n, sizeof(*cells));
	if (!cell || !cells)
		tc_cli_fail("out of memory");
	for (i = 0; i < n; i++)
		cells[i] = cell[i];
	if (fmt == TC_TABLE_TEXT) {
		for (i = 0; i < n; i++)
			printf("%s: %s, %.1f s, load %s, %s loop\n", labels[i], files[i]->path,
			       files[i]->duration_s, files[i]->load, files[i]->measure);
		printf("cells: count (per minute), and against %s: equal / more / fewer\n\n",
		       labels[0]);
	}
	for (k = 0; k < c->nr_cpus; k++) {
		char title[128], label[600];
		struct tc_table *t;

		snprintf(title, sizeof(title), "CPU %d (%s)", c->cpus[k],
			 files[0]->isolated[k] ? "isolated" : "not isolated");
		t = tc_table_new(title, "event / cause", n, labels);
		if (!t)
			tc_cli_fail("out of memory");
		for (j = 0; j < c->nr_rows; j++) {
			const struct tc_noise_cmp_row *r = &c->rows[j];

			if (r->cpu != c->cpus[k])
				continue;
			if (r->total)
				snprintf(label, sizeof(label), "IPIs sent to CPU %d", r->cpu);
			else if (r->callsite[0])
				snprintf(label, sizeof(label), "%s %s <- %s", r->event, r->cause,
					 r->callsite);
			else
				snprintf(label, sizeof(label), "%s %s", r->event, r->cause);
			for (i = 0; i < n; i++) {
				char rate[32];

				fmt_rate(rate, sizeof(rate), r->per_min[i]);
				snprintf(cell[i], sizeof(cell[i]), "%llu (%s)%s%s",
					 (unsigned long long)r->count[i], rate, i ? " " : "",
					 i ? r->verdict[i] : "");
			}
			tc_table_add_row(t, label, cells);
		}
		for (i = 0; i < n; i++) {
			const struct tc_noise_loop *l = &files[i]->loop[k];

			if (!strcmp(l->kind, "spin"))
				snprintf(cell[i], sizeof(cell[i]), "spin %.0f loops/s", l->rate);
			else if (!l->valid)
				snprintf(cell[i], sizeof(cell[i]), "-");
			else if (l->ci_valid)
				snprintf(cell[i], sizeof(cell[i]), "%.1f [%.1f, %.1f]%s%s", l->median,
					 l->ci_low, l->ci_high, i ? " " : "",
					 i ? c->loop_verdict[k * n + i] : "");
			else
				snprintf(cell[i], sizeof(cell[i]), "%.1f", l->median);
		}
		tc_table_add_row(t, "getpid ns/call, median [95% CI]", cells);
		tc_table_print(t, stdout, fmt);
		tc_table_free(t);
	}
	tc_noise_compare_free(c);
	for (i = 0; i < n; i++)
		tc_noise_result_free(files[i]);
	free(files);
	free(cell);
	free(cells);
	free(labels);
	return TC_EXIT_OK;
}
