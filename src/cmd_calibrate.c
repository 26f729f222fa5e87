// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_calibrate.c - "tracecost calibrate": how far two sessions of the
 * same binary differ on this host, measured once, for every comparison of
 * single files (tracecost/calibration.h states the estimator and its
 * source, Kalibera & Jones 2013).
 *
 * It runs N sessions, each one invocation of tracecost run --runs R (a
 * fresh process tree, as a user takes them: src/runs.c starts each), spaced
 * by a pause, estimates the variance at each level per row, configuration
 * and metric, prints the dimensioning table (how many sessions a side a
 * comparison needs to resolve a difference) and stores the calibration
 * where compare finds it for this host. --from estimates from session
 * files already taken instead.
 *
 * Signals: as run --runs (the running session is stopped, it restores what
 * it changed; the temporary files are removed; exit 130); a pause ends at
 * once. Nothing is written unless every session succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <tracecost/calibration.h>
#include <tracecost/compare.h>
#include <tracecost/result.h>
#include <tracecost/stats.h>

#include "cli.h"

#define CAL_MAX_SESSIONS	100

struct cal_opts {
	const char *suite;
	unsigned int sessions, runs;
	double spacing;			/* s */
	const char *output;		/* NULL: the default path */
	char **from;			/* session files given, or NULL */
	int nr_from;
	char **run_args;		/* after --: given to every tracecost run */
	int nr_run_args;
};

enum { OPT_SUITE = 256, OPT_SESSIONS, OPT_SPACING, OPT_RUNS, OPT_OUTPUT, OPT_FROM, OPT_HELP };

static const struct option long_opts[] = {
	{ "suite", required_argument, NULL, OPT_SUITE },
	{ "sessions", required_argument, NULL, OPT_SESSIONS },
	{ "spacing", required_argument, NULL, OPT_SPACING },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* What each session runs by default, after --runs R: the sequential protocol's settings. */
static const char *const user_defaults[] = { "--samples", "100000", "--batch", "64",
					     "--repeat", "2", NULL };

static void usage(void)
{
	char path[4096];

	if (tc_calibration_default_path("SUITE", path, sizeof(path)))
		snprintf(path, sizeof(path), "(too long)");
	printf("usage: tracecost calibrate [--suite user|system] [--sessions N] [--spacing TIME]\n"
	       "                           [--runs R] [--output FILE] [-- RUN-OPTIONS...]\n"
	       "       tracecost calibrate --from FILE,FILE,FILE... [--output FILE]\n\n"
	       "  --suite S        the suite to calibrate (default user)\n"
	       "  --sessions N     sessions, each one 'tracecost run --runs R' (default 8, 3..%d)\n"
	       "  --spacing TIME   pause between sessions: 30s, 2m, 0 (default 60s)\n"
	       "  --runs R         runs per session (default 3)\n"
	       "  --output FILE    where to store it (default %s,\n"
	       "                   $TRACECOST_CALIBRATION_DIR overrides the folder)\n"
	       "  --from FILES     estimate from session files already taken (tracecost run\n"
	       "                   --json, one per session, on this host), measure nothing\n"
	       "  -- RUN-OPTIONS   given to every session's tracecost run (default for the user\n"
	       "                   suite: --samples 100000 --batch 64 --repeat 2)\n\n"
	       "The default run takes about 11 minutes on 2 CPUs. compare then gives a verdict\n"
	       "between single files of this host taken at the same --batch: the interval adds\n"
	       "the between-session variance measured here (Kalibera & Jones, ISMM 2013). The\n"
	       "table says how many sessions a side resolve a difference. man tracecost, CALIBRATE.\n",
	       CAL_MAX_SESSIONS, path);
}

static void parse_from(struct cal_opts *o, const char *arg)
{
	char *copy, *tok, *save;

	tc_cli_check_list("--from", arg);
	copy = strdup(arg);
	o->from = calloc(strlen(arg) / 2 + 2, sizeof(*o->from));
	if (!copy || !o->from)
		tc_cli_fail("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		o->from[o->nr_from++] = tok;
	if (o->nr_from < TC_CALIBRATION_MIN_SESSIONS)
		tc_cli_usage("--from: %d file%s; a calibration needs %d sessions or more",
			     o->nr_from, o->nr_from == 1 ? "" : "s", TC_CALIBRATION_MIN_SESSIONS);
}

static void parse(int argc, char **argv, struct cal_opts *o)
{
	bool sessions = false, spacing = false, runs = false;
	int c;

	*o = (struct cal_opts){ .suite = "user", .sessions = 8, .runs = 3, .spacing = 60 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_SUITE:
			if (strcmp(optarg, "user") && strcmp(optarg, "system"))
				tc_cli_usage("--suite: '%s': the user or system suite (the kernel "
					     "suite boots under QEMU -icount: no session variance)",
					     optarg);
			o->suite = optarg;
			break;
		case OPT_SESSIONS:
			o->sessions = (unsigned int)tc_cli_parse_u64("--sessions", optarg,
								      TC_CALIBRATION_MIN_SESSIONS,
								      CAL_MAX_SESSIONS);
			sessions = true;
			break;
		case OPT_SPACING:
			o->spacing = tc_cli_parse_duration("--spacing", optarg, 0, 86400);
			spacing = true;
			break;
		case OPT_RUNS:
			o->runs = (unsigned int)tc_cli_parse_u64("--runs", optarg, 1, 100);
			runs = true;
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_FROM:
			parse_from(o, optarg);
			break;
		case OPT_HELP:
			usage();
			exit(0);
		default:
			tc_cli_bad_option(c, argv, "tracecost calibrate --help");
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		tc_cli_usage("unexpected argument '%s' (run options go after --)", argv[optind]);
	o->run_args = argv + optind;
	o->nr_run_args = argc - optind;
	for (c = 0; c < o->nr_run_args; c++) {
		static const char *const own[] = { "--runs", "--json", "--suite", "--raw", NULL };
		const char *a = o->run_args[c];
		int k;

		for (k = 0; own[k]; k++)
			if (!strncmp(a, own[k], strlen(own[k])) &&
			    (!a[strlen(own[k])] || a[strlen(own[k])] == '='))
				tc_cli_usage("%s after --: calibrate sets it for every session%s", own[k],
					     strcmp(own[k], "--raw") ? " (give --runs or --suite "
					     "before --)" : "");
	}
	if (o->from && (sessions || spacing || runs || o->nr_run_args))
		tc_cli_usage("--from: estimates from files already taken; not with --sessions, "
			     "--spacing, --runs or run options");
	if (o->output)
		tc_cli_check_output("--output", o->output);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep @s seconds, or until a signal. */
static void pause_for(double s)
{
	double end = now_s() + s;

	while (!tc_cli_runs_signalled()) {
		double left = end - now_s();
		struct timespec ts;

		if (left <= 0)
			break;
		if (left > 0.2)
			left = 0.2;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
}

static void fmt_minutes(char *buf, size_t len, double s)
{
	if (s < 90)
		snprintf(buf, len, "%.0f s", s);
	else
		snprintf(buf, len, "%.0f min", s / 60);
}

/* "tracecost run ..." as each session ran it, without its temporary --json */
static char *session_command(char **argv, int n)
{
	size_t len = 1;
	char *s;
	int a;

	for (a = 0; a < n; a++)
		len += strlen(argv[a]) + 1;
	s = calloc(1, len);
	if (!s)
		tc_cli_fail("out of memory");
	for (a = 0; a < n; a++) {
		if (a)
			strcat(s, " ");
		strcat(s, argv[a]);
	}
	return s;
}

/*
 * The sessions, one tracecost run each, into @paths; *@command is set to
 * what each ran. Returns the exit status.
 */
static int measure(const struct cal_opts *o, char **paths, char **command)
{
	char runs[16], **argv;
	double t0, took = 0, left;
	char eta[32];
	unsigned int i;
	int n = 0, a, ret = 0;

	argv = calloc((size_t)o->nr_run_args + 16, sizeof(*argv));
	if (!argv)
		tc_cli_fail("out of memory");
	snprintf(runs, sizeof(runs), "%u", o->runs);
	argv[n++] = "tracecost";
	argv[n++] = "run";
	argv[n++] = "--suite";
	argv[n++] = (char *)o->suite;
	argv[n++] = "--runs";
	argv[n++] = runs;
	if (!o->nr_run_args && !strcmp(o->suite, "user"))
		for (a = 0; user_defaults[a]; a++)
			argv[n++] = (char *)user_defaults[a];
	for (a = 0; a < o->nr_run_args; a++)
		argv[n++] = o->run_args[a];
	*command = session_command(argv, n);
	argv[n++] = "--json";
	for (i = 0; i < o->sessions && !tc_cli_runs_signalled(); i++) {
		if (i)
			pause_for(o->spacing);
		if (tc_cli_runs_signalled())
			break;
		argv[n] = paths[i];
		argv[n + 1] = NULL;
		t0 = now_s();
		ret = tc_cli_runs_exec(argv);
		if (ret)
			break;
		took += now_s() - t0;
		left = (o->sessions - i - 1) * (took / (i + 1) + o->spacing);
		fmt_minutes(eta, sizeof(eta), left);
		fprintf(stderr, "tracecost: calibrate: session %u of %u done (%.1f s)%s%s%s\n",
			i + 1, o->sessions, now_s() - t0, i + 1 < o->sessions ? "; about " : "",
			i + 1 < o->sessions ? eta : "", i + 1 < o->sessions ? " left" : "");
	}
	free(argv);
	if (!ret && tc_cli_runs_signalled())
		ret = TC_EXIT_INTERRUPTED;
	return ret;
}

/*
 * Kalibera & Jones's dimensioning: the smallest number n of sessions a
 * side (each of @runs runs) whose 95 % interval of a difference is within
 * +-@pct % of the figure. With 3 or more the group's own spread is used
 * (df 2(n - 1)); below, the calibration's (df of the calibrated part).
 */
static int sessions_for(const struct tc_calibration_entry *e, int runs, double pct)
{
	double s2 = e->session_cv * e->session_cv, r2 = 0, var, t;
	int n;

	if (isfinite(e->run_cv))
		r2 = e->run_cv * e->run_cv / runs;
	for (n = 1; n <= 99; n++) {
		double df;

		var = 2 * (s2 + r2) / n;
		if (n >= TC_COMPARE_MIN_SESSIONS) {
			df = 2.0 * (n - 1);
		} else {
			double a = 2 * r2 / n, b = 2 * s2 / n, den;

			den = (runs > 1 ? a * a / (2.0 * (runs - 1)) : 0) + b * b / e->df;
			df = den > 0 ? var * var / den : 1e6;
			if (runs < 2 && a > 0)
				df = e->df;	/* no run spread measured: the calibration's */
		}
		t = tc_stats_t_quantile(0.975, df);
		if (t * sqrt(var) * 100 <= pct)
			return n;
	}
	return 100;
}

static void print_sessions(char *buf, size_t len, int n)
{
	if (n > 99)
		snprintf(buf, len, ">99");
	else
		snprintf(buf, len, "%d", n);
}

static void print_pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%.2f", v * 100);
	else
		snprintf(buf, len, "-");
}

static void report(const struct tc_calibration *c, const char *path)
{
	const char *last = NULL;
	int i;

	printf("calibration of %s (%s, %s), %s suite: %d sessions of %d run%s, spaced %.0f s, "
	       "%s to %s\n", c->nodename, c->cpu_model, c->release, c->suite, c->sessions,
	       c->runs, c->runs == 1 ? "" : "s", c->spacing_s, c->start, c->end);
	printf("sessions: %s\n", c->command);
	printf("stored in %s: compare uses it for single files of this host at --batch %u\n\n",
	       path, c->batch);
	printf("standard deviations in %% of the figure (all configurations pooled); sessions a\n"
	       "side (of %d runs) for a 95%% interval of a difference within +-1, 2, 5 %%:\n\n",
	       c->runs);
	printf("%-14s %-11s %9s %9s %9s %6s %6s %6s\n", "row", "metric", "session", "run",
	       "rep", "1%", "2%", "5%");
	for (i = 0; i < c->nr_entries; i++) {
		const struct tc_calibration_entry *e = &c->entries[i];
		char s[16], r[16], w[16], n1[16], n2[16], n5[16];

		if (strcmp(e->config, TC_CALIBRATION_ALL))
			continue;
		print_pct(s, sizeof(s), e->session_cv);
		print_pct(r, sizeof(r), e->run_cv);
		print_pct(w, sizeof(w), e->rep_cv);
		print_sessions(n1, sizeof(n1), sessions_for(e, c->runs, 1));
		print_sessions(n2, sizeof(n2), sessions_for(e, c->runs, 2));
		print_sessions(n5, sizeof(n5), sessions_for(e, c->runs, 5));
		printf("%-14.14s %-11s %9s %9s %9s %6s %6s %6s\n",
		       last && !strcmp(last, e->row) ? "" : e->row, tc_metric_name(e->metric), s,
		       r, w, n1, n2, n5);
		last = e->row;
	}
	printf("\nsession: sd between sessions beyond what their runs explain; run: sd between\n"
	       "the runs of a session; rep: sd between the repetitions of a run. The file has\n"
	       "every configuration's own figures (doc/calibration-format.md).\n");
}

static int mkdir_parents(const char *path)
{
	char *copy = strdup(path), *p;

	if (!copy)
		return -ENOMEM;
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(copy, 0755) && errno != EEXIST) {
			int err = -errno;

			free(copy);
			return err;
		}
		*p = '/';
	}
	free(copy);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	struct tc_result_file **files = NULL;
	struct tc_calibration *cal = NULL;
	struct cal_opts o;
	char def[4096], dir[64], err[TC_RESULT_ERR_LEN], **paths = NULL, *command = NULL;
	const char *out;
	int i, nr, fd = -1, ret;

	tc_cli_runs_catch();
	parse(argc, argv, &o);
	if (tc_calibration_default_path(o.suite, def, sizeof(def)))
		tc_cli_usage("$TRACECOST_CALIBRATION_DIR: too long");
	out = o.output ? o.output : def;
	nr = o.from ? o.nr_from : (int)o.sessions;
	files = calloc((size_t)nr, sizeof(*files));
	paths = calloc((size_t)nr, sizeof(*paths));
	if (!files || !paths)
		tc_cli_fail("out of memory");
	if (o.from) {
		for (i = 0; i < nr; i++) {
			ret = tc_result_file_read(o.from[i], &files[i], err, sizeof(err));
			if (ret)
				tc_cli_usage("%s", err);
		}
	} else {
		fd = tc_cli_runs_tmpdir(dir, sizeof(dir));
		if (fd < 0)
			tc_cli_fail("a temporary folder in /tmp: %s", strerror(-fd));
		for (i = 0; i < nr; i++)
			if (asprintf(&paths[i], "%s/run-session%d.json", dir, i + 1) < 0)
				tc_cli_fail("out of memory");
		fprintf(stderr, "tracecost: calibrate: %u sessions of tracecost run --runs %u, "
			"spaced %.0f s\n", o.sessions, o.runs, o.spacing);
		ret = measure(&o, paths, &command);
		for (i = 0; !ret && i < nr; i++) {
			ret = tc_result_file_read(paths[i], &files[i], err, sizeof(err));
			if (ret) {
				fprintf(stderr, "tracecost: session %d: %s\n", i + 1, err);
				ret = TC_EXIT_FAIL;
			}
		}
		tc_cli_runs_tmpdir_remove(dir, fd);
		if (ret == TC_EXIT_INTERRUPTED)
			fprintf(stderr, "tracecost: calibrate: interrupted; nothing written\n");
		if (ret)
			goto out;
	}
	ret = tc_calibration_estimate(files, nr, &cal, err, sizeof(err));
	if (ret == -EINVAL && o.from)
		tc_cli_usage("%s", err);
	if (ret)
		tc_cli_fail("the calibration: %s", ret == -EINVAL ? err : strerror(-ret));
	if (command) {
		free(cal->command);
		cal->command = command;
		command = NULL;
	}
	if (!o.output) {
		ret = mkdir_parents(out);
		if (ret)
			tc_cli_fail("%s: %s", out, strerror(-ret));
	}
	ret = tc_calibration_write(cal, out);
	if (ret)
		tc_cli_fail("writing %s: %s", out, strerror(-ret));
	report(cal, out);
out:
	tc_calibration_free(cal);
	for (i = 0; i < nr; i++) {
		tc_result_file_free(files[i]);
		free(paths[i]);
	}
	free(files);
	free(paths);
	free(command);
	free(o.from ? o.from[0] : NULL);
	free(o.from);
	return ret;
}
