// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_compare.c - "tracecost compare": configurations of result files
 * side by side, each cell with its change against the first column and a
 * verdict from a bootstrap confidence interval (lib/compare.c), as text
 * (the seed tables), markdown, CSV or JSON. Its columns come from
 * src/columns.c, as plot's do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracecost/calibration.h>
#include <tracecost/compare.h>
#include <tracecost/report.h>
#include <tracecost/result.h>

#include "cli.h"
#include "columns.h"

#define CONFIDENCE	0.95

/* ---- compare ---- */

enum fmt { FMT_TEXT, FMT_MARKDOWN, FMT_CSV, FMT_JSON };

struct cmp_opts {
	enum fmt fmt;
	bool metrics[TC_NR_METRICS];
	bool named[TC_NR_METRICS];	/* named in --metrics (not by "all") */
	bool metrics_set;		/* --metrics given */
	bool ticks;
	double percentile;		/* 0: the first file's */
	unsigned int resamples;
	uint64_t seed;
	char **labels;
	int nr_labels;
	const char *calibration;	/* --calibration FILE, "none", or NULL (default) */
};

enum { OPT_LABEL = 256, OPT_METRICS, OPT_FORMAT, OPT_UNIT, OPT_PERCENTILE, OPT_RESAMPLES,
	OPT_SEED, OPT_CALIBRATION, OPT_HELP };

static const struct option long_opts[] = {
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "percentile", required_argument, NULL, OPT_PERCENTILE },
	{ "resamples", required_argument, NULL, OPT_RESAMPLES },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "calibration", required_argument, NULL, OPT_CALIBRATION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	char all[128], usual[128];

	tc_metric_names(all, sizeof(all), ",", false);
	tc_metric_names(usual, sizeof(usual), ",", true);
	printf("usage: tracecost compare FILE[,FILE...][:CONFIG]... [--label NAME]...\n"
	       "                         [--metrics LIST] [--format text|markdown|csv|json]\n"
	       "                         [--unit ns|ticks] [--percentile P] [--resamples B]\n"
	       "                         [--seed N] [--calibration FILE|none]\n\n"
	       "  FILE[:CONFIG]    a result file (tracecost run --json), all its configurations\n"
	       "                   or the one named; columns in the order given, the first is\n"
	       "                   the reference\n"
	       "  A1,A2,A3:CONFIG  a group of files, each a session (one invocation of\n"
	       "                   tracecost run with all its --runs, one boot): one column\n"
	       "  --label NAME     name of the next column (repeat; default <release> or\n"
	       "                   <release>:<config>)\n"
	       "  --metrics LIST   rows, from %s or all\n"
	       "                   (default %s; system\n"
	       "                   results: median,min,max of the rounds, or average)\n"
	       "  --format F       text (default), markdown, csv or json\n"
	       "  --unit ns|ticks  ns per pair (default; each file's counter frequency) or ticks\n"
	       "  --percentile P   the percentile row (default: the first file's)\n"
	       "  --resamples B    bootstrap resamples of the sessions or runs (default 2000)\n"
	       "  --seed N         seed of the resampling (default 1)\n"
	       "  --calibration F  the host's between-session variance (tracecost calibrate) for\n"
	       "                   single files of different sessions; none: do not use one\n"
	       "                   (default: the stored calibration of the host, if any)\n\n"
	       "Each cell after the first: value, change against its reference, and a verdict\n"
	       "from the 95%% interval of the difference (sessions or runs resampled,\n"
	       "Student/Welch t): > slower, < faster, ~ no significant difference, ? none\n"
	       "(the reason is printed: columns from different sessions need 3 files each,\n"
	       "or a calibration of the host: tracecost calibrate;\n"
	       "one repetition gives n/a). Columns of the same runs are paired; the header\n"
	       "says what each interval covers. Differences of medians and percentiles\n"
	       "below one counter step are never significant. Where higher is better\n"
	       "(files/s), < (faster) marks a higher value. Changes from +1000%% on show as\n"
	       "the ratio: x42 is 42 times the reference. Method: man tracecost, COMPARE.\n", all, usual);
}

static void parse_metrics(struct cmp_opts *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save;
	int m;

	if (!copy)
		tc_cli_fail("out of memory");
	tc_cli_check_list("--metrics", arg);
	memset(o->metrics, 0, sizeof(o->metrics));
	memset(o->named, 0, sizeof(o->named));
	o->metrics_set = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (m = 0; m < TC_NR_METRICS; m++)
				o->metrics[m] = true;
			continue;
		}
		m = tc_metric_parse(tok);
		if (m < 0) {
			char all[128];

			tc_metric_names(all, sizeof(all), ", ", false);
			tc_cli_usage("--metrics: unknown metric '%s' (%s, all)", tok, all);
		}
		o->metrics[m] = o->named[m] = true;
	}
	free(copy);
	for (m = 0; m < TC_NR_METRICS && !o->metrics[m]; m++)
		;
	if (m == TC_NR_METRICS)
		tc_cli_usage("--metrics: empty list");
}

/* The defaults of every option: compare's, and those of run's tables. */
static void opts_init(struct cmp_opts *o)
{
	int m;

	*o = (struct cmp_opts){ .resamples = TC_COMPARE_DEFAULT_B, .seed = 1 };
	for (m = 0; m < TC_NR_METRICS; m++)
		o->metrics[m] = tc_metric_info(m)->usual;
}

/* --format NAME (compare and run share the names); -1 if unknown. */
static int format_of(const char *name)
{
	if (!strcmp(name, "text"))
		return FMT_TEXT;
	if (!strcmp(name, "markdown"))
		return FMT_MARKDOWN;
	if (!strcmp(name, "csv"))
		return FMT_CSV;
	if (!strcmp(name, "json"))
		return FMT_JSON;
	return -1;
}

static int parse(int argc, char **argv, struct cmp_opts *o)
{
	int c;

	opts_init(o);
	o->labels = calloc((size_t)argc + 1, sizeof(*o->labels));
	if (!o->labels)
		tc_cli_fail("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_LABEL:
			o->labels[o->nr_labels++] = optarg;
			break;
		case OPT_METRICS:
			parse_metrics(o, optarg);
			break;
		case OPT_FORMAT:
			if (format_of(optarg) < 0)
				tc_cli_usage("--format: '%s' is not text, markdown, csv or json",
					     optarg);
			o->fmt = (enum fmt)format_of(optarg);
			break;
		case OPT_UNIT:
			if (!strcmp(optarg, "ns"))
				o->ticks = false;
			else if (!strcmp(optarg, "ticks") || !strcmp(optarg, "cycles"))
				o->ticks = true;
			else
				tc_cli_usage("--unit: '%s' is not ns or ticks", optarg);
			break;
		case OPT_PERCENTILE:
			o->percentile = tc_cli_parse_double("--percentile", optarg, 0, 100);
			break;
		case OPT_RESAMPLES:
			o->resamples = (unsigned int)tc_cli_parse_u64("--resamples", optarg, 100,
								      100000);
			break;
		case OPT_SEED:
			o->seed = tc_cli_parse_u64("--seed", optarg, 0, UINT64_MAX);
			break;
		case OPT_CALIBRATION:
			if (!*optarg)
				tc_cli_usage("--calibration: empty (a file, or none)");
			o->calibration = optarg;
			break;
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost compare --help");
		}
	}
	if (optind >= argc)
		tc_cli_usage("compare: no result file (try 'tracecost compare --help')");
	return optind;
}

/* Counters within this relative distance share one frequency (same rate). */
#define SAME_RATE	1e-3

/*
 * Same suite and version everywhere; the scale of each column (ticks per
 * sample to ns or ticks per pair); the percentile and N of max_avg.
 */
static void check_columns(const struct tc_cli_column *col, int n, struct cmp_opts *o,
			  unsigned int *highest, double *freq, double *scale)
{
	const struct tc_result_file *f0 = col[0].file;
	int i;

	*highest = f0->highest;
	for (i = 1; i < n; i++) {
		const struct tc_result_file *f = col[i].file;

		if (strcmp(f->suite, f0->suite))
			tc_cli_usage("%s (suite %s) and %s (suite %s): results of different "
				     "suites cannot be compared", f0->path, f0->suite, f->path,
				     f->suite);
		if (f->version != f0->version)
			tc_cli_usage("%s (file_version %d) and %s (file_version %d): different "
				     "schema versions", f0->path, f0->version, f->path, f->version);
		if (f->highest < *highest)
			*highest = f->highest;
	}
	for (i = 0; i < n; i++) {
		const struct tc_result_file *f = col[i].file;
		bool same = f0->freq_hz > 0 && f->freq_hz > 0 &&
			    fabs(f->freq_hz / f0->freq_hz - 1) <= SAME_RATE;

		if (!o->ticks && !(f->freq_hz > 0))
			tc_cli_usage("%s records no counter frequency: cannot convert to ns "
				     "(use --unit ticks)", f->path);
		if (o->ticks && f0->freq_hz > 0 && f->freq_hz > 0 && !same)
			tc_cli_usage("--unit ticks: %s (%.3f MHz) and %s (%.3f MHz) count at "
				     "different rates; compare in ns", f0->path, f0->freq_hz / 1e6,
				     f->path, f->freq_hz / 1e6);
		freq[i] = same ? f0->freq_hz : f->freq_hz;
		scale[i] = o->ticks ? 1.0 / f->batch : 1e9 / (freq[i] * f->batch);
	}
	if (!o->percentile)
		o->percentile = f0->percentile;
}

/*
 * System results: no counter, no percentile; each row has its own unit,
 * which must agree (with its direction) across the files; rows are median,
 * min, max (or average) of the rounds.
 */
static void check_system_columns(const struct tc_cli_column *col, int n, struct cmp_opts *o,
				 double *freq, double *scale)
{
	const struct tc_result_file *f0 = col[0].file;
	int i, j, r, m;

	for (i = 1; i < n; i++)
		if (strcmp(col[i].file->suite, f0->suite))
			tc_cli_usage("%s (suite %s) and %s (suite %s): results of different "
				     "suites cannot be compared", f0->path, f0->suite,
				     col[i].file->path, col[i].file->suite);
	if (o->ticks)
		tc_cli_usage("--unit ticks: %s is a system result (every metric has its own "
			     "unit)", f0->path);
	if (o->percentile)
		tc_cli_usage("--percentile: %s is a system result (no percentile row)",
			     f0->path);
	if (!o->metrics_set) {
		memset(o->metrics, 0, sizeof(o->metrics));
		o->metrics[TC_METRIC_MEDIAN] = o->metrics[TC_METRIC_MIN] = true;
		o->metrics[TC_METRIC_MAX] = true;
	}
	for (m = 0; m < TC_NR_METRICS; m++) {
		if (tc_metric_applies(TC_RESULT_SHAPE_VALUES, m))
			continue;
		if (o->named[m])
			tc_cli_usage("--metrics: %s does not apply to system results (median, "
				     "min, max, average)", tc_metric_name(m));
		o->metrics[m] = false;
	}
	for (i = 0; i < n; i++) {
		const struct tc_result_file *f = col[i].file;

		freq[i] = 0;
		scale[i] = 1;
		for (j = 0; j < i; j++) {
			const struct tc_result_file *g = col[j].file;

			if (g == f)
				continue;
			for (r = 0; r < f->nr_rows; r++) {
				int k = tc_result_file_row(g, f->rows[r].name);

				if (k < 0 || (!strcmp(g->rows[k].unit, f->rows[r].unit) &&
					      g->rows[k].higher_better == f->rows[r].higher_better))
					continue;
				tc_cli_usage("%s and %s: metric '%s' is in %s%s in one and in %s%s "
					     "in the other", g->path, f->path, f->rows[r].name,
					     g->rows[k].unit, g->rows[k].higher_better ?
					     " (higher is better)" : "", f->rows[r].unit,
					     f->rows[r].higher_better ? " (higher is better)" : "");
			}
		}
	}
	o->percentile = 0;
}

static bool is_system(const struct tc_result_file *f)
{
	return f->shape == TC_RESULT_SHAPE_VALUES;
}

/*
 * The column @c is compared with. One FILE[:CONFIG] argument: the first
 * column (the seed tables: each configuration against the first). Several:
 * the first argument's columns are the references, and every other column
 * is compared with the first column before it of the same configuration
 * (e.g. a kernel against the same configuration of the first kernel), or
 * with the first column when there is none. -1 for a reference.
 */
static int reference(const struct tc_cli_column *col, int n, int c)
{
	const char *cfg = col[c].file->configs[col[c].config];
	int j;

	if (col[n - 1].arg == 0)
		return c ? 0 : -1;
	if (col[c].arg == 0)
		return -1;
	for (j = 0; j < c; j++)
		if (!strcmp(col[j].file->configs[col[j].config], cfg))
			return j;
	return 0;
}

static const char *metric_label(int m, double p, char *buf, size_t len)
{
	if (m == TC_METRIC_PERCENTILE) {
		snprintf(buf, len, "%g percentile", p);
		return buf;
	}
	if (m == TC_METRIC_PERCENTILE_1CPU) {
		snprintf(buf, len, "%g percentile (1 CPU)", p);
		return buf;
	}
	return tc_metric_name(m);
}

/*
 * A figure: no decimals from 1000 on, one down to 0.1, and below that three
 * significant digits in fixed notation (0.00213 s, not 0.0), so that a small
 * figure (a hackbench run in seconds under QEMU -icount) still reads.
 */
static void fmt_value(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a != 0 && a < 0.1 && isfinite(a)) {
		int dec = 2 - (int)floor(log10(a));

		snprintf(buf, len, "%.*f", dec > 12 ? 12 : dec, v);
		return;
	}
	snprintf(buf, len, a >= 1000 ? "%.0f" : "%.1f", v);
}

/*
 * A cell's figure, with '*' when it is approximate (the lower end of its
 * histogram bucket, tc_compare_cell.approx; print_approx() gives the bound).
 */
static void fmt_cell_value(char *buf, size_t len, const struct tc_compare_cell *cell)
{
	fmt_value(buf, len, cell->value);
	if (cell->approx && strlen(buf) + 1 < len)
		strcat(buf, "*");
}

/* The change in %; from +1000% on, the ratio ("x42"), which stays short. */
static void fmt_change(char *buf, size_t len, double pct)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (pct >= 999.5 && pct < 999900)
		snprintf(buf, len, "x%.0f", 1 + pct / 100);
	else if (pct >= 999900)
		snprintf(buf, len, ">x9999");
	else
		snprintf(buf, len, fabs(pct) < 9.95 ? "%+.1f%%" : "%+.0f%%", pct);
}

static char verdict_mark(enum tc_verdict v)
{
	switch (v) {
	case TC_VERDICT_SLOWER:
		return '>';
	case TC_VERDICT_FASTER:
		return '<';
	case TC_VERDICT_SAME:
		return '~';
	default:
		return '?';	/* n/a or unknown: the legend says which and why */
	}
}

static const char *verdict_word(enum tc_verdict v)
{
	switch (v) {
	case TC_VERDICT_SLOWER:
		return "slower";
	case TC_VERDICT_FASTER:
		return "faster";
	case TC_VERDICT_SAME:
		return "~";
	case TC_VERDICT_UNKNOWN:
		return "?";
	default:
		return "n/a";
	}
}

struct ctx {
	const struct tc_cli_column *col;
	const struct tc_compare_column *cc;
	int n;
	const double *freq;		/* frequency each column is converted with */
	const struct cmp_opts *o;
	const struct tc_compare *res;
	unsigned int highest;
	const char *unit;
	const struct tc_calibration *cal;	/* NULL: none used */
	const char *cal_path;			/* the default path looked at, or --calibration */
};

static const struct tc_compare_cell *cell_at(const struct tc_compare_row *row, int c, int m)
{
	return &row->cells[c * TC_NR_METRICS + m];
}

static bool is_ref(const struct ctx *x, int c)
{
	return x->cc[c].ref < 0 || x->cc[c].ref == c;
}

static void print_spreads(const struct ctx *x, FILE *f, const char *pre);

/* What the interval covers, said once for every format. */
static void print_method(const struct ctx *x, FILE *f, const char *pre, const char *reps)
{
	bool seen[TC_SCOPE_CALIBRATED + 1] = { false };
	int r, i;

	fprintf(f, "%smethod: %.0f%% interval of each difference: d +- t * se, se from %u "
		"bootstrap resamples (seed %llu) of the sessions (files of a group), else the "
		"runs (of the %s where a column has fewer than %d runs), t of Student at n - 1 "
		"(paired) or Welch's degrees of freedom; columns of the same runs paired, run i "
		"with run i\n", pre, CONFIDENCE * 100, x->o->resamples,
		(unsigned long long)x->o->seed, reps, TC_COMPARE_MIN_RUNS);
	for (r = 0; r < x->res->nr_rows; r++)
		for (i = 0; i < x->n * TC_NR_METRICS; i++)
			seen[x->res->rows[r].cells[i].scope] = true;
	if (seen[TC_SCOPE_PAIRED])
		fprintf(f, "%sinterval: paired within one session (the same runs; it does not "
			"cover the drift between sessions)\n", pre);
	if (seen[TC_SCOPE_SESSIONS])
		fprintf(f, "%sinterval: between sessions (files measured minutes or boots apart): "
			"from the spread between the files of each column's group, at least %d a "
			"side, else ?\n", pre, TC_COMPARE_MIN_SESSIONS);
	if (seen[TC_SCOPE_BOOTS_EXACT])
		fprintf(f, "%sinterval: between boots under QEMU -icount (instruction counts: a "
			"boot adds no variance): from the spread between runs\n", pre);
	if (seen[TC_SCOPE_CALIBRATED])
		fprintf(f, "%sinterval: between sessions, calibrated: each file's spread between "
			"its runs plus the between-session variance of %s on %s (%d sessions of %d "
			"runs spaced %.0f s, %s to %s)\n", pre, x->cal->path, x->cal->nodename,
			x->cal->sessions, x->cal->runs, x->cal->spacing_s, x->cal->start,
			x->cal->end);
}

static void print_header(const struct ctx *x, FILE *f, const char *pre)
{
	const struct tc_result_file *f0 = x->col[0].file;
	bool same_release = true, same_machine = true, own = false;
	char cpu[256], emulated[512] = "";
	size_t off = 0;
	int i, j, k;

	for (i = 1; i < x->n; i++) {
		same_release &= !strcmp(x->col[i].file->release, f0->release);
		same_machine &= !strcmp(x->col[i].file->machine, f0->machine);
	}
	fprintf(f, "%stracecost compare: suite %s, %d column%s%s%s\n", pre, f0->suite, x->n,
		x->n > 1 ? "s" : "", same_release ? ", kernel " : "",
		same_release ? f0->release : "");
	for (i = 0; i < x->n; i++) {
		const struct tc_result_file *fi = x->col[i].file;
		char vs[128] = "reference";

		if (x->cc[i].ref >= 0 && x->cc[i].ref != i)
			snprintf(vs, sizeof(vs), "vs %s", x->col[x->cc[i].ref].name);
		/* the machine when the columns' differ; emulation always */
		snprintf(cpu, sizeof(cpu), "%s%s%s%s", fi->cpu_model, same_machine ? "" : ", ",
			 same_machine ? "" : fi->machine,
			 fi->emulation && fi->emulation[0] ? ", emulated" : "");
		if (fi->emulation && fi->emulation[0] && off < sizeof(emulated))
			off += (size_t)snprintf(emulated + off, sizeof(emulated) - off, "%s%s",
						off ? ", " : "", x->col[i].name);
		if (is_system(fi))
			fprintf(f, "%s  %s: %s:%s (%s), %s on %s (%s), %d run%s, %u round%s on %d "
				"CPU%s\n", pre, x->col[i].name, fi->path,
				fi->configs[x->col[i].config], vs, fi->release, fi->nodename,
				cpu, fi->nr_runs, fi->nr_runs > 1 ? "s" : "", fi->repeat,
				fi->repeat > 1 ? "s" : "", fi->nr_cpus, fi->nr_cpus > 1 ? "s" : "");
		else
			fprintf(f, "%s  %s: %s:%s (%s), %s on %s (%s), %d run%s, %u repetition%s "
				"x %d CPU%s, batch %u, do_work %s\n", pre, x->col[i].name, fi->path,
				fi->configs[x->col[i].config], vs, fi->release, fi->nodename,
				cpu, fi->nr_runs, fi->nr_runs > 1 ? "s" : "", fi->repeat,
				fi->repeat > 1 ? "s" : "", fi->nr_cpus, fi->nr_cpus > 1 ? "s" : "",
				fi->batch, fi->do_work ? "on" : "off");
		own |= x->freq[i] != x->freq[0];
	}
	if (emulated[0])
		fprintf(f, "%semulated: %s ran under user-mode emulation (qemu-user): their figures "
			"are not measurements\n", pre, emulated);
	if (!same_machine)
		fprintf(f, "%smachines differ: a configuration is a different instruction sequence on "
			"each (sites, counter reads: see each file's static_key_impl and counter)\n",
			pre);
	if (is_system(f0)) {
		for (i = 0; i < x->n; i++) {
			const struct tc_result_file *fi = x->col[i].file;

			for (j = 0; j < i; j++)
				if (x->col[j].file == fi)
					break;
			for (k = 0; j == i && k < fi->nr_unmeasured; k++)
				fprintf(f, "%snot measured in %s: profile %s\n", pre, fi->path,
					fi->unmeasured[k]);
		}
		fprintf(f, "%sunit: each section's own (the workload's metric); where higher is "
			"better (files/s) the verdict says better or worse: < faster = higher\n",
			pre);
		print_method(x, f, pre, "rounds");
		print_spreads(x, f, pre);
		return;
	}
	if (x->o->ticks) {
		fprintf(f, "%sunit: counter ticks per pair (%.3f MHz)\n", pre, f0->freq_hz / 1e6);
	} else if (!own) {
		fprintf(f, "%sunit: ns per pair, counter ticks converted with %s's %.3f MHz%s\n",
			pre, f0->path, x->freq[0] / 1e6, x->n > 1 && x->col[x->n - 1].file != f0 ?
			" (every file's counter within 0.1% of it: one rate)" : "");
	} else {
		fprintf(f, "%sunit: ns per pair; the counters run at different rates, each file's "
			"ticks converted with its own frequency:", pre);
		for (i = 0; i < x->n; i++) {
			for (j = 0; j < i; j++)
				if (x->col[j].file == x->col[i].file)
					break;
			if (j == i)
				fprintf(f, " %s %.3f MHz", x->col[i].file->path, x->freq[i] / 1e6);
		}
		fputc('\n', f);
	}
	print_method(x, f, pre, "repetitions");
	fprintf(f, "%smax_avg over the %u highest samples\n", pre, x->highest);
	print_spreads(x, f, pre);
}

/*
 * The bound of every approximate figure of @row ('*' in the table): medians
 * and percentiles of samples above the histogram's exact range are the lower
 * end of their bucket, raised to the minimum (tc_stats_value_range()).
 */
static void print_approx(const struct ctx *x, const struct tc_compare_row *row, const char *pre)
{
	char lab[64], v[64];
	int c, m, k = 0;

	for (c = 0; c < x->n; c++) {
		for (m = 0; m < TC_NR_METRICS; m++) {
			const struct tc_compare_cell *cell = cell_at(row, c, m);

			if (!x->o->metrics[m] || !cell->present || !cell->approx)
				continue;
			if (!k++)
				printf("%s* approximate (samples above %u counter ticks are kept in histogram "
				       "buckets of 1/256 relative width): the true figure lies between "
				       "the one shown and its bound:", pre, TC_HIST_EXACT - 1);
			fmt_value(v, sizeof(v), cell->upper);
			printf("%s %s %s <= %s", k > 1 ? "," : "", x->col[c].name,
			       metric_label(m, x->o->percentile, lab, sizeof(lab)), v);
		}
	}
	if (k)
		putchar('\n');
}

/* Why the calibration does not give single files of another session an interval. */
static void print_calibration_reason(const struct ctx *x)
{
	char why[512];
	int c;

	if (!x->cal) {
		if (x->cal_path)
			printf(", or calibrate this host once (tracecost calibrate; no %s)\n",
			       x->cal_path);
		else
			printf(" (--calibration none)\n");
		return;
	}
	for (c = 0; c < x->n; c++) {
		const struct tc_result_file *f = x->col[c].file;

		if (f->nr_sessions < TC_COMPARE_MIN_SESSIONS &&
		    !tc_calibration_covers(x->cal, f, why, sizeof(why))) {
			printf("; the calibration %s does not cover %s: %s\n", x->cal->path,
			       x->col[c].name, why);
			return;
		}
	}
	printf("; the calibration %s has no figure for this row\n", x->cal->path);
}

/* Why a cell of @row has no verdict, or a weaker one: one line per reason. */
static void print_reasons(const struct ctx *x, const struct tc_compare_row *row)
{
	bool unknown = false, na = false, step = false, sessions = false;
	int per_run = -1;	/* a per-run metric without its runs */
	char lab[64];
	double st = 0;
	char few[256] = "";
	size_t off = 0;
	int c, m;

	for (c = 0; c < x->n; c++) {
		for (m = 0; m < TC_NR_METRICS; m++) {
			const struct tc_compare_cell *cell = cell_at(row, c, m);

			if (!x->o->metrics[m] || !cell->present || is_ref(x, c))
				continue;
			na |= cell->verdict == TC_VERDICT_NA;
			step |= cell->below_step;
			st = fmax(st, cell->step);
			if (tc_metric_info(m)->per_run) {
				if (cell->verdict == TC_VERDICT_UNKNOWN &&
				    cell->scope == TC_SCOPE_NONE)
					per_run = m;
				continue;
			}
			if (cell->verdict != TC_VERDICT_UNKNOWN || unknown)
				continue;
			unknown = true;
			sessions = cell->scope == TC_SCOPE_SESSIONS;
		}
	}
	for (c = 0; unknown && c < x->n && off < sizeof(few); c++) {
		const struct tc_result_file *fc = x->col[c].file;

		if (sessions && !fc->deterministic && fc->nr_sessions < TC_COMPARE_MIN_SESSIONS)
			off += (size_t)snprintf(few + off, sizeof(few) - off, "%s%s %d",
						off ? ", " : "", x->col[c].name, fc->nr_sessions);
		else if (!sessions && fc->nr_runs < TC_COMPARE_MIN_RUNS)
			off += (size_t)snprintf(few + off, sizeof(few) - off, "%s%s %d",
						off ? ", " : "", x->col[c].name, fc->nr_runs);
	}
	if (unknown && sessions) {
		printf("? between-session variation unknown (sessions: %s): these columns were "
		       "measured in different sessions (files taken minutes or boots apart), whose "
		       "runs differ by more than one session's runs show; give each column %d or "
		       "more files, one per session (A1.json,A2.json,A3.json)", few,
		       TC_COMPARE_MIN_SESSIONS);
		print_calibration_reason(x);
	}
	else if (unknown)
		printf("? between-run variation unknown (runs: %s): columns from different runs "
		       "need %d runs each: use --runs N or several files per column "
		       "(A1.json,A2.json,...)\n", few, TC_COMPARE_MIN_RUNS);
	if (per_run >= 0)
		printf("? %s: %s, one figure per run; its interval needs %d runs a column "
		       "(--runs N)\n", metric_label(per_run, x->o->percentile, lab, sizeof(lab)),
		       tc_metric_info(per_run)->estimates, TC_COMPARE_MIN_RUNS);
	if (na)
		printf("? n/a: a column with one repetition has no spread to resample\n");
	if (st > 0)
		printf("step: samples move in steps of %.4g %s per pair (the counter's quantum / "
		       "batch; the largest over the cells); smaller differences of median, "
		       "percentile, min, max are never called significant%s\n", st, x->unit,
		       step ? " (some ~ above)" : "");
}

/* Where the noise is: sd between runs and within runs, for each column. */
static void print_spreads(const struct ctx *x, FILE *f, const char *pre)
{
	int r, c, m;

	for (m = 0; m < TC_NR_METRICS && !x->o->metrics[m]; m++)
		;
	if (m == TC_NR_METRICS)
		return;
	fprintf(f, "%sspread of the %s: sd between runs / pooled sd within runs (runs x "
		"repetitions per run)\n", pre, tc_metric_name(m));
	for (r = 0; r < x->res->nr_rows; r++) {
		const struct tc_compare_row *row = &x->res->rows[r];

		fprintf(f, "%s  %s:", pre, row->name);
		for (c = 0; c < x->n; c++) {
			const struct tc_compare_cell *cell = cell_at(row, c, m);
			char b[32] = "-", w[32] = "-";

			if (!cell->present)
				continue;
			if (!isnan(cell->between))
				snprintf(b, sizeof(b), "%.3g", cell->between);
			if (!isnan(cell->within))
				snprintf(w, sizeof(w), "%.3g", cell->within);
			fprintf(f, "%s %s %s/%s (%dx%d)", c ? "," : "", x->col[c].name, b, w,
				cell->runs, cell->runs ? cell->reps / cell->runs : 0);
		}
		fputc('\n', f);
	}
}

/* Text: value, change and mark, sub-aligned, so that 5 columns fit 80 characters. */
static void print_text(const struct ctx *x)
{
	int r, c, m, lw = 6;
	char lab[64];

	print_header(x, stdout, "");
	putchar('\n');
	for (m = 0; m < TC_NR_METRICS; m++) {
		int len = (int)strlen(metric_label(m, x->o->percentile, lab, sizeof(lab)));

		if (x->o->metrics[m] && len > lw)
			lw = len;
	}
	for (r = 0; r < x->res->nr_rows; r++)
		if ((int)strlen(x->res->rows[r].unit) > lw)
			lw = (int)strlen(x->res->rows[r].unit);
	for (r = 0; r < x->res->nr_rows; r++) {
		const struct tc_compare_row *row = &x->res->rows[r];
		int *valw, *pctw, *cw;

		valw = calloc((size_t)x->n * 3, sizeof(int));
		if (!valw)
			tc_cli_fail("out of memory");
		pctw = valw + x->n;
		cw = pctw + x->n;
		for (c = 0; c < x->n; c++) {
			for (m = 0; m < TC_NR_METRICS; m++) {
				const struct tc_compare_cell *cell = cell_at(row, c, m);
				char buf[64];

				if (!x->o->metrics[m] || !cell->present)
					continue;
				fmt_cell_value(buf, sizeof(buf), cell);
				if ((int)strlen(buf) > valw[c])
					valw[c] = (int)strlen(buf);
				fmt_change(buf, sizeof(buf), cell->change);
				if (is_ref(x, c))
					continue;
				if ((int)strlen(buf) > pctw[c])
					pctw[c] = (int)strlen(buf);
			}
			cw[c] = valw[c] + (is_ref(x, c) ? 0 : pctw[c] + 3);
			/* a UTF-8 release or label: aligned by its display width */
			if (tc_text_width(x->col[c].name) > cw[c])
				cw[c] = tc_text_width(x->col[c].name);
		}
		printf("%s\n\n%*s", row->title, lw, *row->unit ? row->unit : "Metric");
		for (c = 0; c < x->n; c++)
			printf("  %*s", cw[c] + (int)strlen(x->col[c].name) -
			       tc_text_width(x->col[c].name), x->col[c].name);
		putchar('\n');
		for (m = 0; m < TC_NR_METRICS; m++) {
			if (!x->o->metrics[m])
				continue;
			printf("%*s", lw, metric_label(m, x->o->percentile, lab, sizeof(lab)));
			for (c = 0; c < x->n; c++) {
				const struct tc_compare_cell *cell = cell_at(row, c, m);
				char v[64], p[64], s[160];

				if (!cell->present) {
					printf("  %*s", cw[c], "-");
					continue;
				}
				fmt_cell_value(v, sizeof(v), cell);
				if (!is_ref(x, c)) {
					fmt_change(p, sizeof(p), cell->change);
					snprintf(s, sizeof(s), "%*s %*s %c", valw[c], v, pctw[c], p,
						 verdict_mark(cell->verdict));
				} else {
					snprintf(s, sizeof(s), "%s", v);
				}
				printf("  %*s", cw[c], s);
			}
			putchar('\n');
		}
		free(valw);
		printf("\n> slower, < faster, ~ no significant difference (%.0f%%); xN: N times%s\n",
		       CONFIDENCE * 100, row->higher_better ?
		       "; higher is better here: < is a higher value" : "");
		print_reasons(x, row);
		print_approx(x, row, "");
		putchar('\n');
	}
}

static void cell_long(char *buf, size_t len, const struct tc_compare_cell *cell, bool ref)
{
	char v[64], p[64], lo[64], hi[64];

	if (!cell->present) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_cell_value(v, sizeof(v), cell);
	if (ref) {
		snprintf(buf, len, "%s", v);
		return;
	}
	fmt_change(p, sizeof(p), cell->change);
	if (cell->verdict == TC_VERDICT_NA || cell->verdict == TC_VERDICT_UNKNOWN) {
		snprintf(buf, len, "%s (%s, %s)", v, p, cell->verdict == TC_VERDICT_NA ? "n/a" :
			 cell->scope == TC_SCOPE_SESSIONS ?
			 "? between-session variation unknown" :
			 "? between-run variation unknown");
		return;
	}
	snprintf(lo, sizeof(lo), "%+.2f", cell->lo);
	snprintf(hi, sizeof(hi), "%+.2f", cell->hi);
	snprintf(buf, len, "%.40s (%.20s, %s, [%.40s, %.40s])", v, p,
		 verdict_word(cell->verdict), lo, hi);
}

static void print_markdown(const struct ctx *x)
{
	const char **names = calloc((size_t)x->n, sizeof(*names));
	char **cells = calloc((size_t)x->n, sizeof(*cells));
	char lab[64];
	int r, c, m;

	if (!names || !cells)
		tc_cli_fail("out of memory");
	print_header(x, stdout, "> ");
	printf("> cells: value (change, verdict, [%.0f%% interval of the difference])\n\n",
	       CONFIDENCE * 100);
	for (c = 0; c < x->n; c++) {
		names[c] = x->col[c].name;
		cells[c] = malloc(256);
		if (!cells[c])
			tc_cli_fail("out of memory");
	}
	for (r = 0; r < x->res->nr_rows; r++) {
		const struct tc_compare_row *row = &x->res->rows[r];
		struct tc_table *t = tc_table_new(row->title, *row->unit ? row->unit : "Metric",
						  x->n, names);

		if (!t)
			tc_cli_fail("out of memory");
		for (m = 0; m < TC_NR_METRICS; m++) {
			if (!x->o->metrics[m])
				continue;
			for (c = 0; c < x->n; c++)
				cell_long(cells[c], 256, &row->cells[c * TC_NR_METRICS + m],
					  is_ref(x, c));
			if (tc_table_add_row(t, metric_label(m, x->o->percentile, lab, sizeof(lab)),
					     (const char *const *)cells))
				tc_cli_fail("out of memory");
		}
		tc_table_print(t, stdout, TC_TABLE_MARKDOWN);
		tc_table_free(t);
		print_approx(x, row, "> ");
	}
	for (c = 0; c < x->n; c++)
		free(cells[c]);
	free(cells);
	free(names);
}

static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void csv_num(double v)
{
	if (isnan(v))
		fputs(",", stdout);
	else
		printf(",%.6g", v);
}

/* CSV, one line per cell (long format): easy to load in a spreadsheet or R. */
static void print_csv(const struct ctx *x)
{
	char lab[64];
	int r, c, m;

	printf("section,metric,column,file,configuration,value,change_pct,diff_lo,diff_hi,"
	       "verdict,unit,value_upper\n");
	for (r = 0; r < x->res->nr_rows; r++) {
		const struct tc_compare_row *row = &x->res->rows[r];

		for (m = 0; m < TC_NR_METRICS; m++) {
			if (!x->o->metrics[m])
				continue;
			for (c = 0; c < x->n; c++) {
				const struct tc_compare_cell *cell = cell_at(row, c, m);

				if (!cell->present)
					continue;
				csv_field(row->title);
				putchar(',');
				csv_field(metric_label(m, x->o->percentile, lab, sizeof(lab)));
				putchar(',');
				csv_field(x->col[c].name);
				putchar(',');
				csv_field(x->col[c].file->path);
				putchar(',');
				csv_field(x->col[c].file->configs[x->col[c].config]);
				csv_num(cell->value);
				csv_num(cell->change);
				csv_num(cell->lo);
				csv_num(cell->hi);
				printf(",%s,", is_ref(x, c) ? "reference" :
				       tc_verdict_name(cell->verdict));
				csv_field(*row->unit ? row->unit : x->unit);
				csv_num(cell->upper);
				putchar('\n');
			}
		}
	}
}

/* What a cell's interval covers, for the JSON. */
static json_t *scope_name(enum tc_compare_scope scope)
{
	switch (scope) {
	case TC_SCOPE_PAIRED:
		return json_string("paired in one session");
	case TC_SCOPE_SESSIONS:
		return json_string("between sessions");
	case TC_SCOPE_BOOTS_EXACT:
		return json_string("between boots, instruction counts");
	case TC_SCOPE_CALIBRATED:
		return json_string("between sessions, calibrated");
	default:
		return json_null();
	}
}

static json_t *jnum(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void print_json(const struct ctx *x)
{
	json_t *root, *cols = json_array(), *secs = json_array();
	int r, c, m;

	for (c = 0; c < x->n; c++) {
		const struct tc_result_file *f = x->col[c].file;

		if (is_system(f)) {
			json_array_append_new(cols, json_pack(
				"{s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:i, s:i}",
				"name", x->col[c].name, "reference", is_ref(x, c) ? json_null() :
				json_string(x->col[x->cc[c].ref].name),
				"file", f->path, "configuration", f->configs[x->col[c].config],
				"release", f->release, "nodename", f->nodename,
				"cpu_model", f->cpu_model, "repetitions", (int)f->repeat,
				"cpus", f->nr_cpus));
			json_object_set_new(json_array_get(cols, json_array_size(cols) - 1), "runs",
					    json_integer(f->nr_runs));
			if (f->nr_unmeasured) {
				json_t *u = json_array();

				for (m = 0; m < f->nr_unmeasured; m++)
					json_array_append_new(u, json_string(f->unmeasured[m]));
				json_object_set_new(json_array_get(cols, json_array_size(cols) - 1),
						    "not_measured", u);
			}
			continue;
		}
		json_array_append_new(cols, json_pack(
			"{s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o, s:f, s:b}",
			"name", x->col[c].name,
			"reference",
			is_ref(x, c) ? json_null() : json_string(x->col[x->cc[c].ref].name),
			"file", f->path,
			"configuration", f->configs[x->col[c].config], "release", f->release,
			"nodename", f->nodename, "cpu_model", f->cpu_model,
			"repetitions", (int)f->repeat, "cpus", f->nr_cpus, "batch", (int)f->batch,
			"frequency_hz", f->freq_hz > 0 ? json_real(f->freq_hz) : json_null(),
			"converted_with_hz", x->freq[c], "do_work", f->do_work));
		json_object_set_new(json_array_get(cols, json_array_size(cols) - 1), "runs",
				    json_integer(f->nr_runs));
		json_object_set_new(json_array_get(cols, json_array_size(cols) - 1), "step_ticks",
				    f->step_ticks > 0 ? json_real(f->step_ticks) : json_null());
	}
	for (r = 0; r < x->res->nr_rows; r++) {
		const struct tc_compare_row *row = &x->res->rows[r];
		json_t *rows = json_array();

		for (m = 0; m < TC_NR_METRICS; m++) {
			json_t *cells = json_array();

			if (!x->o->metrics[m]) {
				json_decref(cells);
				continue;
			}
			for (c = 0; c < x->n; c++) {
				const struct tc_compare_cell *cell = cell_at(row, c, m);

				if (!cell->present) {
					json_array_append_new(cells, json_null());
					continue;
				}
				json_array_append_new(cells, json_pack(
					"{s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:s, s:b, s:o, s:o, s:o}",
					"value", jnum(cell->value), "repetitions", cell->reps,
					"runs", cell->runs,
					"change_pct", jnum(cell->change),
					"diff_lo", jnum(cell->lo), "diff_hi", jnum(cell->hi),
					"df", jnum(cell->df),
					"verdict", is_ref(x, c) ? "reference" :
					tc_verdict_name(cell->verdict),
					"below_step", cell->below_step,
					"step", cell->step > 0 ? json_real(cell->step) : json_null(),
					"sd_between_runs", jnum(cell->between),
					"sd_within_runs", jnum(cell->within)));
				json_object_set_new(json_array_get(cells, json_array_size(cells) - 1),
						    "sessions", json_integer(cell->sessions));
				json_object_set_new(json_array_get(cells, json_array_size(cells) - 1),
						    "interval", scope_name(cell->scope));
				json_object_set_new(json_array_get(cells, json_array_size(cells) - 1),
						    "value_upper", jnum(cell->upper));
				json_object_set_new(json_array_get(cells, json_array_size(cells) - 1),
						    "approximate", json_boolean(cell->approx));
			}
			json_array_append_new(rows, json_pack("{s:s, s:o}", "metric",
							      tc_metric_name(m), "cells", cells));
		}
		json_array_append_new(secs, json_pack("{s:s, s:s, s:s, s:b, s:o}", "name",
						      row->name, "title", row->title, "unit",
						      *row->unit ? row->unit : x->unit,
						      "higher_is_better", row->higher_better,
						      "rows", rows));
	}
	root = json_pack("{s:i, s:s, s:o, s:f, s:s, s:I, s:I, s:i}", "compare_version", 2,
			 "suite", x->col[0].file->suite,
			 "unit", is_system(x->col[0].file) ? json_null() : json_string(x->unit),
			 "confidence", CONFIDENCE, "method",
			 "d +- t se; se from bootstrap resamples of the sessions (files of a "
			 "group), else the runs (of the repetitions below min_runs runs), scaled "
			 "by n/(n-1); t of Student, n-1 (paired) or Welch degrees of freedom; "
			 "columns of the same runs paired; columns of different sessions need "
			 "min_sessions files each",
			 "resamples", (json_int_t)x->o->resamples, "seed", (json_int_t)x->o->seed,
			 "min_runs", TC_COMPARE_MIN_RUNS);
	if (root)
		json_object_set_new(root, "min_sessions", json_integer(TC_COMPARE_MIN_SESSIONS));
	if (!root)
		tc_cli_fail("out of memory");
	json_object_set_new(root, "percentile", is_system(x->col[0].file) ? json_null() :
			    json_real(x->o->percentile));
	json_object_set_new(root, "highest", is_system(x->col[0].file) ? json_null() :
			    json_integer(x->highest));
	json_object_set_new(root, "calibration", !x->cal ? json_null() : json_pack(
		"{s:s, s:s, s:i, s:i, s:f, s:s, s:s}", "file", x->cal->path,
		"nodename", x->cal->nodename, "sessions", x->cal->sessions,
		"runs", x->cal->runs, "spacing_s", x->cal->spacing_s,
		"start", x->cal->start, "end", x->cal->end));
	json_object_set_new(root, "columns", cols);
	json_object_set_new(root, "sections", secs);
	if (json_dumpf(root, stdout, JSON_INDENT(1)))
		tc_cli_fail("writing JSON: %s", strerror(errno));
	putchar('\n');
	json_decref(root);
}

/*
 * The calibration: --calibration FILE (exit 2 if it is not one), none, or
 * the stored one of @suite (tc_calibration_default_path()) when it is
 * there; a stored one that cannot be read is said and not used. @path is
 * set to the default path looked at ("" for an explicit choice).
 */
static struct tc_calibration *load_calibration(const struct cmp_opts *o, const char *suite,
					       char *path, size_t len)
{
	struct tc_calibration *cal = NULL;
	char err[TC_RESULT_ERR_LEN];
	int ret;

	path[0] = 0;
	if (o->calibration && !strcmp(o->calibration, "none"))
		return NULL;
	if (o->calibration) {
		ret = tc_calibration_read(o->calibration, &cal, err, sizeof(err));
		if (ret == -ENOMEM)
			tc_cli_fail("out of memory");
		if (ret)
			tc_cli_usage("--calibration: %s", err);
		return cal;
	}
	if (tc_calibration_default_path(suite, path, len))
		return NULL;
	ret = tc_calibration_read(path, &cal, err, sizeof(err));
	if (ret && ret != -ENOENT)
		fprintf(stderr, "tracecost: not using the stored calibration: %s\n", err);
	return ret ? NULL : cal;
}

/*
 * The comparison of @n columns @col and its tables in @o's format: what
 * compare prints, and run's tables whatever --runs is. Takes @col (freed).
 */
static int compare_columns(struct tc_cli_column *col, int n, struct cmp_opts *o)
{
	struct tc_calibration *cal;
	char cal_path[4096];
	struct tc_compare_column *cc;
	struct tc_compare_opts co;
	struct tc_compare *res;
	struct ctx x;
	unsigned int highest;
	double *freq, *scale;
	int i, err;

	cc = calloc((size_t)n, sizeof(*cc));
	freq = calloc((size_t)n, sizeof(*freq));
	scale = calloc((size_t)n, sizeof(*scale));
	if (!cc || !freq || !scale)
		tc_cli_fail("out of memory");
	if (is_system(col[0].file)) {
		check_system_columns(col, n, o, freq, scale);
		highest = 0;
	} else {
		check_columns(col, n, o, &highest, freq, scale);
	}
	for (i = 0; i < n; i++) {
		cc[i].file = col[i].file;
		cc[i].config = col[i].config;
		cc[i].scale = scale[i];
		cc[i].ref = reference(col, n, i);
	}
	cal = load_calibration(o, col[0].file->suite, cal_path, sizeof(cal_path));
	co = (struct tc_compare_opts){
		.resamples = o->resamples, .seed = o->seed, .confidence = CONFIDENCE,
		.percentile = o->percentile, .highest = highest, .calibration = cal,
	};
	err = tc_compare_run(cc, n, &co, &res);
	if (err)
		tc_cli_fail("compare: %s", strerror(-err));
	x = (struct ctx){ .col = col, .cc = cc, .n = n, .freq = freq, .o = o, .res = res,
			  .highest = highest, .unit = o->ticks ? "ticks" : "ns", .cal = cal,
			  .cal_path = *cal_path ? cal_path : NULL };
	switch (o->fmt) {
	case FMT_TEXT:
		print_text(&x);
		break;
	case FMT_MARKDOWN:
		print_markdown(&x);
		break;
	case FMT_CSV:
		print_csv(&x);
		break;
	case FMT_JSON:
		print_json(&x);
		break;
	}
	if (fflush(stdout))
		tc_cli_fail("writing the output: %s", strerror(errno));
	tc_compare_free(res);
	tc_calibration_free(cal);
	free(cc);
	free(freq);
	free(scale);
	tc_cli_columns_free(col, n);
	return TC_EXIT_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct tc_cli_column *col;
	struct cmp_opts o;
	int first, n, ret;

	first = parse(argc, argv, &o);
	/* noise result files: their own comparison (src/cmd_compare_noise.c) */
	if (tc_cli_columns_noise(argc - first, argv + first)) {
		free(o.labels);
		return cmd_compare_noise(argc, argv);
	}
	n = tc_cli_columns_load(argc - first, argv + first, o.nr_labels, o.labels, &col);
	ret = compare_columns(col, n, &o);
	free(o.labels);
	return ret;
}

int tc_cli_compare_result(struct tc_result_file *f, const char *format, bool ticks)
{
	struct tc_cli_column *col;
	struct cmp_opts o;
	int n;

	opts_init(&o);
	/*
	 * run's tables: the seed's rows (average, median, max_avg, percentile
	 * and its one-CPU percentile); min and max, a single sample each,
	 * stay in the result file and compare --metrics
	 */
	o.metrics[TC_METRIC_PERCENTILE_1CPU] = true;
	if (format && format_of(format) < 0)
		tc_cli_usage("--format: '%s' is not text, markdown, csv or json", format);
	if (format)
		o.fmt = (enum fmt)format_of(format);
	o.ticks = ticks;
	n = tc_cli_columns_of_file(f, &col);
	return compare_columns(col, n, &o);
}

int tc_cli_compare_json(json_t *root, const char *name, const char *format, bool ticks)
{
	char err[TC_RESULT_ERR_LEN];
	struct tc_result_file *f;
	char *buf;
	int ret;

	buf = json_dumps(root, JSON_COMPACT);
	if (!buf)
		tc_cli_fail("out of memory");
	ret = tc_result_file_parse(buf, strlen(buf), name, &f, err, sizeof(err));
	free(buf);
	if (ret == -ENOMEM)
		tc_cli_fail("out of memory");
	if (ret)
		tc_cli_fail("the result does not read back: %s", err);
	return tc_cli_compare_result(f, format, ticks);
}
