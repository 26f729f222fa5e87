// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_plot.c - "tracecost plot": the latency distribution of one pair
 * per column (FILE[:CONFIG]), as a histogram or a CDF on a log-scale
 * latency axis, with the median and the P percentile marked, rendered by
 * gnuplot (SVG or PNG).
 *
 * The histogram of each column is every CPU and repetition of its cell
 * merged (exact). For display its buckets are grouped into 20 bins per
 * decade of counter ticks, snapped to whole ticks (so that no bin is
 * narrower than one tick and none is empty for lack of a tick value).
 * Zero-tick samples (clamped: below the timer overhead) are drawn at half
 * a tick, labelled "0". Samples beyond the histogram range (>= 2^44 ticks)
 * are counted in n but not drawn.
 *
 * gnuplot reads the script on its standard input and writes the image on
 * its standard output, which is a temporary file next to --out, renamed
 * over it on success: no partial output file, and no file name ever goes
 * into the script. Text from the result files is reduced to a safe set of
 * characters before it does.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracecost/result.h>
#include <tracecost/stats.h>

#include "cli.h"
#include "columns.h"

#define BINS_PER_DECADE	20

enum kind { KIND_HIST, KIND_CDF };

struct plot_opts {
	const char *out;
	int png;
	const char *pair;
	enum kind kind;
	int ticks;
	double percentile;
	char **labels;
	int nr_labels;
};

enum { OPT_OUT = 256, OPT_PAIR, OPT_KIND, OPT_LABEL, OPT_UNIT, OPT_PERCENTILE, OPT_HELP };

static const struct option long_opts[] = {
	{ "out", required_argument, NULL, OPT_OUT },
	{ "pair", required_argument, NULL, OPT_PAIR },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "percentile", required_argument, NULL, OPT_PERCENTILE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost plot FILE[:CONFIG]... --out OUT.svg|OUT.png [--pair NAME]\n"
	       "                      [--kind hist|cdf] [--label NAME]... [--unit ns|ticks]\n"
	       "                      [--percentile P]\n\n"
	       "  FILE[:CONFIG]    result files (tracecost run --json); one series per column\n"
	       "  --out FILE       image to write, SVG or PNG by its extension\n"
	       "  --pair NAME      pair to plot (default: the first of the first file)\n"
	       "  --kind hist|cdf  log-scale histogram (default) or cumulative distribution\n"
	       "  --label NAME     legend entry of the next column (repeat)\n"
	       "  --unit ns|ticks  latency axis unit (default ns)\n"
	       "  --percentile P   percentile marked besides the median (default: the file's)\n\n"
	       "Needs gnuplot (Debian: apt-get install gnuplot-nox).\n");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcasecmp(s + a - b, suffix);
}

static void parse(int argc, char **argv, struct plot_opts *o)
{
	int c;

	*o = (struct plot_opts){ .kind = KIND_HIST };
	o->labels = calloc((size_t)argc + 1, sizeof(*o->labels));
	if (!o->labels)
		tc_cli_fail("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_OUT:
			o->out = optarg;
			break;
		case OPT_PAIR:
			o->pair = optarg;
			break;
		case OPT_KIND:
			if (!strcmp(optarg, "hist"))
				o->kind = KIND_HIST;
			else if (!strcmp(optarg, "cdf"))
				o->kind = KIND_CDF;
			else
				tc_cli_usage("--kind: '%s' is not hist or cdf", optarg);
			break;
		case OPT_LABEL:
			o->labels[o->nr_labels++] = optarg;
			break;
		case OPT_UNIT:
			if (!strcmp(optarg, "ns"))
				o->ticks = 0;
			else if (!strcmp(optarg, "ticks") || !strcmp(optarg, "cycles"))
				o->ticks = 1;
			else
				tc_cli_usage("--unit: '%s' is not ns or ticks", optarg);
			break;
		case OPT_PERCENTILE:
			o->percentile = tc_cli_parse_double("--percentile", optarg, 0, 100);
			break;
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost plot --help");
		}
	}
	if (!o->out)
		tc_cli_usage("plot: --out FILE.svg or FILE.png is required");
	if (ends_with(o->out, ".png"))
		o->png = 1;
	else if (!ends_with(o->out, ".svg"))
		tc_cli_usage("--out: '%s' must end in .svg or .png", o->out);
	tc_cli_check_output("--out", o->out);
	if (optind >= argc)
		tc_cli_usage("plot: no result file (try 'tracecost plot --help')");
}

/* gnuplot from $PATH, or NULL. */
static char *find_gnuplot(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, *found = NULL;

	if (!path)
		return NULL;
	copy = strdup(path);
	if (!copy)
		tc_cli_fail("out of memory");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char buf[4096];

		snprintf(buf, sizeof(buf), "%s/gnuplot", *dir ? dir : ".");
		if (!access(buf, X_OK))
			found = strdup(buf);
	}
	free(copy);
	return found;
}

/* Text for a gnuplot string in double quotes: a safe character set only. */
static void clean(char *dst, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = isalnum(c) || strchr(" ._:+,()/=#%-", c) ? (char)c : '_';
	}
	dst[i] = 0;
}

/* One column, ready to draw. */
struct series {
	char name[96];
	double scale;		/* ticks per sample -> unit */
	struct tc_hist *h;
	struct tc_stats st;
	/* bins: [edge[i], edge[i + 1]) ticks, count[i] */
	unsigned long long *edge, *count;
	int nr;
};

/* 20 bins per decade from 1 tick, snapped to whole ticks; bin 0 holds 0. */
static void make_bins(struct series *s)
{
	tc_u64 top = s->h->max < TC_HIST_LIMIT ? s->h->max : TC_HIST_LIMIT - 1;
	double r = pow(10.0, 1.0 / BINS_PER_DECADE);
	int cap = 64, i;
	tc_u32 b;

	s->edge = malloc((size_t)cap * sizeof(*s->edge));
	if (!s->edge)
		tc_cli_fail("out of memory");
	s->edge[0] = 0;
	s->edge[1] = 1;
	s->nr = 1;
	while (s->edge[s->nr] <= top) {
		unsigned long long e = s->edge[s->nr];
		unsigned long long next = (unsigned long long)ceil((double)e * r);

		if (next <= e)
			next = e + 1;
		if (s->nr + 2 >= cap) {
			cap *= 2;
			s->edge = realloc(s->edge, (size_t)cap * sizeof(*s->edge));
			if (!s->edge)
				tc_cli_fail("out of memory");
		}
		s->edge[++s->nr] = next;
	}
	s->count = calloc((size_t)s->nr, sizeof(*s->count));
	if (!s->count)
		tc_cli_fail("out of memory");
	for (b = 0, i = 0; b < TC_HIST_NR_BUCKETS; b++) {
		tc_u64 v;

		if (!s->h->counts[b])
			continue;
		v = tc_hist_bucket_lower(b);
		while (i + 1 < s->nr && v >= s->edge[i + 1])
			i++;
		s->count[i] += s->h->counts[b];
	}
}

static int bin_of(const struct series *s, tc_u64 v)
{
	int i;

	for (i = 0; i + 1 < s->nr && v >= s->edge[i + 1]; i++)
		;
	return i;
}

/* x of a value in ticks: 0 goes to half a tick (log axis). */
static double xpos(const struct series *s, double ticks)
{
	return (ticks > 0 ? ticks : 0.5) * s->scale;
}

/* y of a marker at @v: its bin's fraction (hist) or the CDF at its bin's end. */
static double ypos(const struct series *s, enum kind kind, tc_u64 v)
{
	int i, k = bin_of(s, v);
	unsigned long long cum = 0;

	if (kind == KIND_HIST)
		return (double)s->count[k] / (double)s->h->n;
	for (i = 0; i <= k; i++)
		cum += s->count[i];
	return (double)cum / (double)s->h->n;
}

static void load_series(struct series *s, const struct tc_cli_column *col, const char *pair,
			const struct plot_opts *o)
{
	const struct tc_result_file *f = col->file;
	const struct tc_result_cell *cell;
	struct tc_topn *t;
	int r = tc_result_file_row(f, pair), k;

	if (r < 0)
		tc_cli_usage("%s: no pair '%s'", f->path, pair);
	cell = &f->rows[r].cells[col->config];
	s->h = malloc(sizeof(*s->h));
	t = malloc(TC_TOPN_SIZE(f->highest));
	if (!s->h || !t)
		tc_cli_fail("out of memory");
	tc_hist_init(s->h);
	tc_topn_init(t, f->highest);
	for (k = 0; k < cell->nr_reps; k++)
		tc_snapshot_add(s->h, t, &cell->reps[k], 1);
	if (tc_stats_compute(&s->st, s->h, t, o->percentile ? o->percentile : f->percentile))
		tc_cli_fail("%s: no samples for pair '%s'", f->path, pair);
	free(t);
	clean(s->name, sizeof(s->name), col->name);
	make_bins(s);
}

static void write_script(FILE *g, struct series *s, int n, const struct plot_opts *o,
			 const struct tc_result_file *f0, const char *pair_title,
			 const char *pair, double p, int machines)
{
	static const int pt_median = 7, pt_pct = 9;
	char title[256], cpu[128], node[96], rel[96], pt[96], unit[16];
	double xmin = INFINITY, xmax = 0, zero = 0, floor_y = 1;
	int i, c;

	clean(title, sizeof(title), pair_title);
	clean(cpu, sizeof(cpu), f0->cpu_model);
	clean(node, sizeof(node), f0->nodename);
	clean(rel, sizeof(rel), f0->release);
	clean(pt, sizeof(pt), pair);
	snprintf(unit, sizeof(unit), "%s", o->ticks ? "ticks" : "ns");
	for (c = 0; c < n; c++) {
		/* empty bins sit on the axis, a decade below the smallest fraction */
		floor_y = fmin(floor_y, pow(10, floor(log10(1.0 / (double)s[c].h->n)) - 1));
		xmin = fmin(xmin, xpos(&s[c], s[c].h->min) / 1.5);
		xmax = fmax(xmax, (double)s[c].edge[s[c].nr] * s[c].scale * 1.5);
	}
	if (o->png)
		fprintf(g, "set terminal png size 960,600 noenhanced\n");
	else
		fprintf(g, "set terminal svg size 960,600 noenhanced dynamic "
			"background rgb 'white'\n");
	fprintf(g, "set title \"%s (%s): latency distribution per pair\\n%s, %s, kernel %s%s\\n"
		"markers: circle = median, triangle = %g percentile\"\n", title, pt, cpu, node,
		rel, machines > 1 ? " (and other machines: see the legend)" : "", p);
	fprintf(g, "set logscale x 10\nset xrange [%g:%g]\n", xmin, xmax);
	for (c = 0; c < n; c++)
		if (!s[c].h->min)
			zero = xpos(&s[c], 0);
	if (zero > 0)
		fprintf(g, "set xtics add (\"0\" %g)\n", zero);
	fprintf(g, "set xlabel \"latency per pair (%s, log scale; 0 drawn at half a tick)\"\n",
		unit);
	fprintf(g, "set grid xtics ytics mxtics\nset key top right box\n");
	if (o->kind == KIND_HIST) {
		fprintf(g, "set logscale y 10\nset format y \"%%g\"\n");
		fprintf(g, "set yrange [%g:1.5]\n", floor_y);
		fprintf(g, "set ylabel \"fraction of samples per bin (%d bins per decade)\"\n",
			BINS_PER_DECADE);
	} else {
		fprintf(g, "set yrange [0:1.02]\nset ylabel \"cumulative fraction of samples\"\n");
		fprintf(g, "set key bottom right\n");
	}
	for (c = 0; c < n; c++) {
		fprintf(g, "set label %d \"\" at %g,%g point pt %d ps 1.6 lc %d front\n", 2 * c + 1,
			xpos(&s[c], (double)s[c].st.median),
			ypos(&s[c], o->kind, s[c].st.median), pt_median, c + 1);
		fprintf(g, "set label %d \"\" at %g,%g point pt %d ps 1.6 lc %d front\n", 2 * c + 2,
			xpos(&s[c], (double)s[c].st.percentile),
			ypos(&s[c], o->kind, s[c].st.percentile), pt_pct, c + 1);
	}
	fprintf(g, "plot");
	for (c = 0; c < n; c++)
		fprintf(g, "%s \"-\" using 1:2 with steps lw 2 lc %d title \"%s\"", c ? "," : "",
			c + 1, s[c].name);
	fputc('\n', g);
	for (c = 0; c < n; c++) {
		unsigned long long cum = 0;
		int first = -1, last = -1;

		for (i = 0; i < s[c].nr; i++) {
			if (s[c].count[i]) {
				last = i;
				if (first < 0)
					first = i;
			}
		}
		/* steps: (x_i, y_i) holds y_i from x_i to x_(i+1) */
		if (o->kind == KIND_CDF && first >= 0)
			fprintf(g, "%.9g 0\n", xmin);
		for (i = first; i >= 0 && i <= last; i++) {
			double x = xpos(&s[c], (double)s[c].edge[i]);

			cum += s[c].count[i];
			if (o->kind == KIND_CDF)
				fprintf(g, "%.9g %.9g\n", x, (double)cum / (double)s[c].h->n);
			else
				fprintf(g, "%.9g %.9g\n", x, s[c].count[i] ?
					(double)s[c].count[i] / (double)s[c].h->n : floor_y);
		}
		if (last >= 0)
			fprintf(g, "%.9g %.9g\n", o->kind == KIND_CDF ? xmax :
				xpos(&s[c], (double)s[c].edge[last + 1]),
				o->kind == KIND_CDF ? 1.0 :
				(double)s[c].count[last] / (double)s[c].h->n);
		fprintf(g, "e\n");
	}
}

/*
 * Run gnuplot with @script on stdin; its standard output comes through a
 * pipe and is written to @out_fd here, every write checked: gnuplot exits 0
 * when its own write failed (a full file system left a truncated PNG).
 * Return: gnuplot's exit status, or -errno (a failed write: *@wr_err set).
 */
static int run_gnuplot(const char *gnuplot, const char *script, size_t len, int out_fd,
		       char *err, size_t errlen, int *wr_err)
{
	FILE *errf = tmpfile(), *in = tmpfile();
	int out[2], status, werr = 0;
	char buf[65536];
	pid_t pid;

	err[0] = 0;
	*wr_err = 0;
	if (!errf || !in || fwrite(script, 1, len, in) != len || fflush(in) ||
	    fseek(in, 0, SEEK_SET) || pipe(out))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(fileno(in), STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(fileno(errf), STDERR_FILENO);
		close(out[0]);
		close(out[1]);
		execl(gnuplot, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	for (;;) {
		ssize_t r = read(out[0], buf, sizeof(buf)), off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		while (!werr && off < r) {
			ssize_t w = write(out_fd, buf + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				werr = errno;
			else
				off += w;
		}
	}
	close(out[0]);
	fclose(in);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	rewind(errf);
	if (fgets(err, (int)errlen, errf))
		err[strcspn(err, "\n")] = 0;
	fclose(errf);
	if (werr) {
		*wr_err = werr;
		return -werr;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cmd_plot(int argc, char **argv)
{
	struct tc_cli_column *col;
	struct series *s;
	struct plot_opts o;
	struct stat st;
	char *gnuplot, *script = NULL, *tmp, err[256];
	const char *pair, *pair_title = "";
	size_t script_len = 0;
	mode_t mask;
	FILE *g;
	int n, c, fd, ret, wr_err, machines = 1;

	parse(argc, argv, &o);
	n = tc_cli_columns_load(argc - optind, argv + optind, o.nr_labels, o.labels, &col);
	for (c = 0; c < n; c++)
		if (col[c].file->shape != TC_RESULT_SHAPE_HIST)
			tc_cli_usage("%s: a %s result holds no latency histograms to plot "
				     "(compare it with 'tracecost compare')", col[c].file->path,
				     col[c].file->suite);
	pair = o.pair ? o.pair : col[0].file->rows[0].name;
	s = calloc((size_t)n, sizeof(*s));
	if (!s)
		tc_cli_fail("out of memory");
	for (c = 0; c < n; c++) {
		const struct tc_result_file *f = col[c].file, *f0 = col[0].file;
		int r = tc_result_file_row(f, pair);

		if (r < 0) {
			char list[512];
			size_t off = 0;
			int i;

			list[0] = 0;
			for (i = 0; i < f->nr_rows && off < sizeof(list); i++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
							i ? ", " : "", f->rows[i].name);
			tc_cli_usage("%s: no pair '%s' (the file has: %s)", f->path, pair, list);
		}
		if (!c)
			pair_title = f->rows[r].title;
		if (!o.ticks && !(f->freq_hz > 0))
			tc_cli_usage("%s records no counter frequency: cannot convert to ns "
				     "(use --unit ticks)", f->path);
		if (strcmp(f->nodename, f0->nodename) || strcmp(f->cpu_model, f0->cpu_model) ||
		    strcmp(f->release, f0->release))
			machines = 2;
		/* Counters within 0.1% of the first file's share its frequency. */
		s[c].scale = 1.0 / f->batch;
		if (!o.ticks)
			s[c].scale *= 1e9 / (fabs(f->freq_hz / f0->freq_hz - 1) <= 1e-3 ?
					     f0->freq_hz : f->freq_hz);
	}
	gnuplot = find_gnuplot();
	if (!gnuplot)
		tc_cli_fail("plot needs gnuplot, which is not installed: "
			    "apt-get install gnuplot-nox");
	for (c = 0; c < n; c++)
		load_series(&s[c], &col[c], pair, &o);

	g = open_memstream(&script, &script_len);
	if (!g)
		tc_cli_fail("out of memory");
	write_script(g, s, n, &o, col[0].file, pair_title, pair,
		     o.percentile ? o.percentile : col[0].file->percentile, machines);
	if (fclose(g))
		tc_cli_fail("out of memory");

	if (asprintf(&tmp, "%s.tmp.XXXXXX", o.out) < 0)
		tc_cli_fail("out of memory");
	fd = mkstemp(tmp);
	if (fd < 0)
		tc_cli_fail("--out %s: %s", o.out, strerror(errno));
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	signal(SIGPIPE, SIG_IGN);
	ret = run_gnuplot(gnuplot, script, script_len, fd, err, sizeof(err), &wr_err);
	errno = 0;
	if (ret || fstat(fd, &st) || !st.st_size || fsync(fd) || close(fd) ||
	    rename(tmp, o.out)) {
		int e = errno;

		unlink(tmp);
		if (wr_err)
			tc_cli_fail("--out %s: %s", o.out, strerror(wr_err));
		if (ret < 0)
			tc_cli_fail("running %s: %s", gnuplot, strerror(-ret));
		if (ret)
			tc_cli_fail("gnuplot failed (status %d)%s%s", ret, *err ? ": " : "", err);
		tc_cli_fail("--out %s: %s", o.out, strerror(e ? e : EIO));
	}
	for (c = 0; c < n; c++) {
		free(s[c].h);
		free(s[c].edge);
		free(s[c].count);
	}
	free(s);
	free(tmp);
	free(script);
	free(gnuplot);
	free(o.labels);
	tc_cli_columns_free(col, n);
	return TC_EXIT_OK;
}
