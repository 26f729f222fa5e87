// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/suite_system.c - "tracecost run --suite system": real workloads
 * (workloads/, one registration table) on the running kernel under tracing
 * profiles applied through tracefs (lib/tracefs.c), one table per workload
 * metric with the profiles as columns and the overhead against "none".
 *
 * Processes: this process validates everything (exit 2 before any change),
 * records the state and takes the lock (tc_tracefs_begin), then forks. The
 * child measures: it applies each profile in the private instance, runs the
 * workload, counts the instance's events, removes the instance, and prints
 * and writes the results. This process only waits (SIGINT/SIGTERM/SIGHUP
 * are forwarded, never acted on in a handler) and restores from the state
 * file when the child is gone, however it went (tc_tracefs_supervise). With
 * --profiles none nothing touches tracefs and there is no second process.
 *
 * Order: for each workload, K rounds of every profile in turn (A B C A B C
 * ...), so that drift hits every column alike; "change vs none" is the
 * change of the median against none's median, (median / median_none - 1)
 * in %: the estimator tracecost compare uses for its change column, so
 * the row always agrees with the medians above it (a rate that falls
 * reads negative). Verdicts with intervals: tracecost compare, or
 * tracecost run --runs N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <tracecost/profile.h>
#include <tracecost/report.h>
#include <tracecost/result.h>
#include <tracecost/sysinfo.h>
#include <tracecost/tracefs.h>
#include <tracecost/workload.h>

#include "cli.h"

#define MAX_PROFILES	64
#define MAX_WORKLOADS	16

struct sys_opts {
	struct tc_wl_opts wl;
	const struct tc_workload *wls[MAX_WORKLOADS];
	int nr_wls;
	const char *profiles;		/* --profiles LIST, or NULL */
	const char *profile_file;
	int *cpus;
	int nr_cpus;
	unsigned int repeat;
	const char *json;
	enum tc_table_format format;
	bool count_fentry;		/* --count fentry */
	uint64_t fentry_toggle;		/* its calibration (tc_wl_count_fentry()) */
};

/* One measured workload: its context and every run's results. */
struct sys_result {
	struct tc_wl_ctx ctx;
	struct tc_wl_sample *s;		/* [rep * nr_cols + col] */
	struct tc_trace_counts *c;	/* same layout */
};

struct sys_run {
	struct sys_opts o;
	struct tc_profile prof[MAX_PROFILES];
	int nr_prof;
	int col[MAX_PROFILES];		/* measured columns: indexes into prof[] */
	int nr_cols;
	int none_col;			/* column of "none", or -1 */
	struct tc_tracefs *t;		/* NULL with --profiles none */
	struct sys_result res[MAX_WORKLOADS];
	int nr_res;
	struct tc_sysinfo si;
	struct timespec start, end;
	/* whole-run estimate and progress */
	double call_s;			/* one getpid call here (calibrated), s */
	double model[MAX_WORKLOADS];	/* modelled seconds of one run of each workload */
	double model_total, model_done;
	double t0;			/* CLOCK_MONOTONIC at the first run, s */
};

enum {
	OPT_WORKLOADS = 256, OPT_PROFILES, OPT_PROFILE_FILE, OPT_CPUS, OPT_REPEAT, OPT_JSON,
	OPT_FORMAT, OPT_CALLS, OPT_ROUND_TRIPS, OPT_RING_TRIPS, OPT_PROCS, OPT_SIZES,
	OPT_FILES, OPT_DIR, OPT_GROUPS, OPT_FDS, OPT_LOOPS, OPT_IPC, OPT_TREE, OPT_COUNT, OPT_HELP,
};

static const struct option long_opts[] = {
	{ "workloads", required_argument, NULL, OPT_WORKLOADS },
	{ "profiles", required_argument, NULL, OPT_PROFILES },
	{ "profile-file", required_argument, NULL, OPT_PROFILE_FILE },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "calls", required_argument, NULL, OPT_CALLS },
	{ "round-trips", required_argument, NULL, OPT_ROUND_TRIPS },
	{ "ring-trips", required_argument, NULL, OPT_RING_TRIPS },
	{ "procs", required_argument, NULL, OPT_PROCS },
	{ "sizes", required_argument, NULL, OPT_SIZES },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "groups", required_argument, NULL, OPT_GROUPS },
	{ "fds", required_argument, NULL, OPT_FDS },
	{ "loops", required_argument, NULL, OPT_LOOPS },
	{ "ipc", required_argument, NULL, OPT_IPC },
	{ "tree", required_argument, NULL, OPT_TREE },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	int i;

	printf("usage: tracecost run --suite system [--workloads LIST] [--profiles LIST]\n"
	       "                     [--profile-file FILE] [--cpus LIST] [--repeat K]\n"
	       "                     [--format text|markdown|csv] [--json FILE]\n"
	       "                     [--calls N] [--round-trips N] [--ring-trips N]\n"
	       "                     [--procs LIST] [--sizes LIST] [--files N] [--dir PATH]\n"
	       "                     [--groups N] [--fds N] [--loops N] [--ipc socket|pipe]\n"
	       "                     [--tree PATH] [--count time|fentry]\n\n"
	       "  --workloads LIST   workloads to run, in order (default: all):\n");
	for (i = 0; tc_workloads[i]; i++)
		printf("                       %-10s %s\n", tc_workloads[i]->name,
		       tc_workloads[i]->summary);
	printf("  --profiles LIST    tracing profiles, the columns (default: every built-in,\n"
	       "                     then those of --profile-file): none, syscalls, sched,\n"
	       "                     ipi, irq, function, preemptirq; any but none needs root\n"
	       "  --profile-file F   user-defined profiles (doc/profile-format.md)\n"
	       "  --runs N           N runs, each a fresh process, in one result file, and\n"
	       "                     compare's table with verdicts (default 1)\n"
	       "  --cpus LIST        CPUs the workloads run on (default: all online)\n"
	       "  --repeat K         runs per workload and profile, interleaved (default 7;\n"
	       "                     K >= 6 gives a 95%% interval of the median)\n"
	       "  --json FILE        write the result file (doc/result-system.md)\n"
	       "  --calls N          getpid: calls per CPU per run (default 2000000)\n"
	       "  --round-trips N    pipe: round trips per run (default 20000)\n"
	       "  --ring-trips N     ctxsw: trips of the token around the ring (default 2000)\n"
	       "  --procs LIST       ctxsw: ring sizes (default 2,4,8,16)\n"
	       "  --sizes LIST       fs: file sizes in KiB (default 0,1,4,10)\n"
	       "  --files N          fs: files per size per run (default 2000)\n"
	       "  --dir PATH         fs: where the fresh directory is made (default /dev/shm\n"
	       "                     when it is a tmpfs, else $TMPDIR or /tmp)\n"
	       "  --groups N --fds N --loops N\n"
	       "                     hackbench -g/-f/-l (default 4, 2, 10000)\n"
	       "  --ipc socket|pipe  hackbench transport (default socket)\n"
	       "  --tree PATH        walk: the tree to traverse (default /usr/share)\n"
	       "  --count fentry     figures count kernel function entries instead of ns\n"
	       "                     (CONFIG_FUNCTION_PROFILER; root, one CPU, --profiles\n"
	       "                     none): a figure of N ns is N entries (default: time)\n");
}

static void parse_workloads(struct sys_opts *o, const char *s)
{
	char *copy = strdup(s), *tok, *save;
	int i;

	if (!copy)
		tc_cli_fail("out of memory");
	o->nr_wls = 0;
	tc_cli_check_list("--workloads", s);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct tc_workload *w = tc_workload_find(tok);

		if (!w) {
			char names[256] = "";

			for (i = 0; tc_workloads[i]; i++) {
				strcat(names, i ? ", " : "");
				strcat(names, tc_workloads[i]->name);
			}
			tc_cli_usage("--workloads: unknown workload '%s' (workloads: %s)", tok, names);
		}
		for (i = 0; i < o->nr_wls; i++)
			if (o->wls[i] == w)
				tc_cli_usage("--workloads: '%s' is listed twice", tok);
		if (o->nr_wls == MAX_WORKLOADS)
			tc_cli_usage("--workloads: too many");
		o->wls[o->nr_wls++] = w;
	}
	free(copy);
}

/* Options of one workload each: given without it, they are ignored (a warning). */
static const struct {
	int opt;
	const char *name, *workload;
} wl_only_opts[] = {
	{ OPT_CALLS, "--calls", "getpid" },
	{ OPT_ROUND_TRIPS, "--round-trips", "pipe" },
	{ OPT_RING_TRIPS, "--ring-trips", "ctxsw" },
	{ OPT_PROCS, "--procs", "ctxsw" },
	{ OPT_SIZES, "--sizes", "fs" },
	{ OPT_FILES, "--files", "fs" },
	{ OPT_DIR, "--dir", "fs" },
	{ OPT_GROUPS, "--groups", "hackbench" },
	{ OPT_FDS, "--fds", "hackbench" },
	{ OPT_LOOPS, "--loops", "hackbench" },
	{ OPT_IPC, "--ipc", "hackbench" },
	{ OPT_TREE, "--tree", "walk" },
};

static void warn_unused_opts(const struct sys_opts *o, uint64_t given)
{
	size_t k;
	int i;

	for (k = 0; k < sizeof(wl_only_opts) / sizeof(wl_only_opts[0]); k++) {
		if (!(given & (1ull << (wl_only_opts[k].opt - OPT_WORKLOADS))))
			continue;
		for (i = 0; i < o->nr_wls; i++)
			if (!strcmp(o->wls[i]->name, wl_only_opts[k].workload))
				break;
		if (i == o->nr_wls)
			fprintf(stderr, "tracecost: warning: %s applies to the %s workload, which "
				"is not in --workloads: ignored\n", wl_only_opts[k].name,
				wl_only_opts[k].workload);
	}
}

static void parse(int argc, char **argv, struct sys_opts *o)
{
	uint64_t given = 0;
	int c;

	memset(o, 0, sizeof(*o));
	tc_workload_opts_init(&o->wl);
	o->repeat = 7;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", long_opts, NULL)) != -1) {
		if (c >= OPT_WORKLOADS && c < OPT_WORKLOADS + 64)
			given |= 1ull << (c - OPT_WORKLOADS);
		switch (c) {
		case OPT_WORKLOADS:
			parse_workloads(o, optarg);
			break;
		case OPT_PROFILES:
			tc_cli_check_list("--profiles", optarg);
			o->profiles = optarg;
			break;
		case OPT_PROFILE_FILE:
			o->profile_file = optarg;
			break;
		case OPT_CPUS:
			free(o->cpus);
			o->nr_cpus = tc_cli_parse_cpus("--cpus", optarg, &o->cpus);
			break;
		case OPT_REPEAT:
			o->repeat = (unsigned int)tc_cli_parse_u64("--repeat", optarg, 1, 1000);
			break;
		case OPT_JSON:
			tc_cli_check_output("--json", optarg);
			o->json = optarg;
			break;
		case OPT_FORMAT:
			o->format = (enum tc_table_format)tc_cli_parse_format("--format",
									      optarg, 0);
			break;
		case OPT_CALLS:
			o->wl.calls = tc_cli_parse_u64("--calls", optarg, 1, 100000000000ull);
			break;
		case OPT_ROUND_TRIPS:
			o->wl.round_trips = tc_cli_parse_u64("--round-trips", optarg, 1,
							     1000000000ull);
			break;
		case OPT_RING_TRIPS:
			o->wl.ring_trips = tc_cli_parse_u64("--ring-trips", optarg, 1,
							    1000000000ull);
			break;
		case OPT_PROCS:
			o->wl.nr_procs = tc_cli_parse_uint_list("--procs", optarg, o->wl.procs,
						    TC_WL_MAX_LIST, false);
			break;
		case OPT_SIZES:
			o->wl.nr_sizes = tc_cli_parse_uint_list("--sizes", optarg, o->wl.sizes,
						    TC_WL_MAX_LIST / 2, true);
			break;
		case OPT_FILES:
			o->wl.files = tc_cli_parse_u64("--files", optarg, 1, 10000000);
			break;
		case OPT_DIR:
			o->wl.dir = optarg;
			break;
		case OPT_GROUPS:
			o->wl.groups = (unsigned int)tc_cli_parse_u64("--groups", optarg, 1, 1000);
			break;
		case OPT_FDS:
			o->wl.fds = (unsigned int)tc_cli_parse_u64("--fds", optarg, 1, 256);
			break;
		case OPT_LOOPS:
			o->wl.loops = tc_cli_parse_u64("--loops", optarg, 1, 100000000);
			break;
		case OPT_IPC:
			if (!strcmp(optarg, "socket"))
				o->wl.hb_pipe = false;
			else if (!strcmp(optarg, "pipe"))
				o->wl.hb_pipe = true;
			else
				tc_cli_usage("--ipc: '%s' is not socket or pipe", optarg);
			break;
		case OPT_TREE:
			o->wl.tree = optarg;
			break;
		case OPT_COUNT:
			if (!strcmp(optarg, "fentry"))
				o->count_fentry = true;
			else if (strcmp(optarg, "time"))
				tc_cli_usage("--count: '%s' is not time or fentry", optarg);
			else
				o->count_fentry = false;
			break;
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost run --suite system --help");
		}
	}
	if (optind < argc)
		tc_cli_usage("unexpected argument '%s'", argv[optind]);
	if (!o->nr_wls) {
		for (c = 0; tc_workloads[c] && c < MAX_WORKLOADS; c++)
			o->wls[o->nr_wls++] = tc_workloads[c];
	}
	warn_unused_opts(o, given);
	if (!o->cpus)
		o->nr_cpus = tc_cli_all_cpus(&o->cpus);
	if (o->nr_cpus < 1)
		tc_cli_fail("no online CPU is available to this process");
	if (o->count_fentry && (!o->profiles || strcmp(o->profiles, "none")))
		tc_cli_usage("--count fentry: only with --profiles none");
	if (o->count_fentry && o->nr_cpus != 1)
		tc_cli_usage("--count fentry: the workloads on one CPU (--cpus N), not %d",
			     o->nr_cpus);
	o->wl.cpus = o->cpus;
	o->wl.nr_cpus = o->nr_cpus;
	o->wl.stop = &tc_cli_stop;
}

/* ---- profiles ---------------------------------------------------------- */

static void add_profile(struct sys_run *d, const struct tc_profile *p)
{
	int i;

	for (i = 0; i < d->nr_prof; i++)
		if (!strcmp(d->prof[i].name, p->name))
			tc_cli_usage("--profiles: '%s' is listed twice", p->name);
	if (d->nr_prof == MAX_PROFILES)
		tc_cli_usage("--profiles: more than %d profiles", MAX_PROFILES);
	d->prof[d->nr_prof++] = *p;
}

/* Resolve --profiles against the built-ins and the file; exits 2. */
static void resolve_profiles(struct sys_run *d)
{
	const char *const *names = tc_profile_builtin_names();
	struct tc_profile *file = NULL, p;
	char err[512], *copy, *tok, *save;
	int nr_file = 0, i;

	if (d->o.profile_file) {
		int ret = tc_profile_file_load(d->o.profile_file, &file, &nr_file, err,
					       sizeof(err));

		if (ret)
			tc_cli_usage("--profile-file %s", err);
	}
	if (!d->o.profiles) {
		for (i = 0; names[i]; i++) {
			tc_profile_builtin(names[i], &p);
			add_profile(d, &p);
		}
		for (i = 0; i < nr_file; i++)
			add_profile(d, &file[i]);
		free(file);	/* the profiles (and their filters) now live in d->prof */
		return;
	}
	tc_cli_check_list("--profiles", d->o.profiles);
	copy = strdup(d->o.profiles);
	if (!copy)
		tc_cli_fail("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!tc_profile_builtin(tok, &p)) {
			add_profile(d, &p);
			continue;
		}
		for (i = 0; i < nr_file; i++)
			if (!strcmp(file[i].name, tok))
				break;
		if (i == nr_file) {
			char list[512] = "";
			int j;

			for (j = 0; names[j]; j++) {
				strcat(list, j ? ", " : "");
				strcat(list, names[j]);
			}
			for (j = 0; j < nr_file && strlen(list) < 400; j++) {
				strcat(list, ", ");
				strcat(list, file[j].name);
			}
			tc_cli_usage("--profiles: unknown profile '%s' (profiles: %s)", tok, list);
		}
		add_profile(d, &file[i]);
		memset(&file[i], 0, sizeof(file[i]));	/* moved */
	}
	for (i = 0; i < nr_file; i++)
		tc_profile_release(&file[i]);
	free(file);
	free(copy);
}

static bool needs_tracefs(const struct tc_profile *p)
{
	return strcmp(p->name, "none") != 0;
}

/* Validate against the kernel (read only). Exits 2 for bad file profiles, 1 else. */
static void check_profiles(struct sys_run *d)
{
	char names[512] = "";
	bool any = false;
	int i, err;

	for (i = 0; i < d->nr_prof; i++) {
		if (!needs_tracefs(&d->prof[i]))
			continue;
		if (strlen(names) < 400) {
			strcat(names, any ? ", " : "");
			strcat(names, d->prof[i].name);
		}
		any = true;
	}
	if (!any)
		return;
	if (geteuid())
		tc_cli_fail("profile%s %s need%s tracefs, which needs root: run as root, or use "
			    "--profiles none", strchr(names, ',') ? "s" : "", names,
			    strchr(names, ',') ? "" : "s");
	err = tc_tracefs_open(&d->t, NULL);
	if (err) {
		const char *why = tc_tracefs_error(d->t);

		if (err == -ENODEV)
			tc_cli_fail("no tracefs: %s (the kernel needs CONFIG_TRACING)", why);
		tc_cli_fail("tracefs: %s", why);
	}
	for (i = 0; i < d->nr_prof; i++) {
		if (!needs_tracefs(&d->prof[i]))
			continue;
		err = tc_profile_check(d->t, &d->prof[i]);
		if (err == -EINVAL)
			tc_cli_usage("--profile-file %s", tc_tracefs_error(d->t));
		if (err)
			tc_cli_fail("profile %s: %s", d->prof[i].name, tc_tracefs_error(d->t));
	}
}

/* ---- measuring (the child) ------------------------------------------------ */

static void set_columns(struct sys_run *d)
{
	int i;

	d->nr_cols = 0;
	d->none_col = -1;
	for (i = 0; i < d->nr_prof; i++) {
		if (!d->prof[i].available)
			continue;
		if (!strcmp(d->prof[i].name, "none"))
			d->none_col = d->nr_cols;
		d->col[d->nr_cols++] = i;
	}
}

/* Apply and remove every tracefs profile once: the kernel has the last word. */
static void probe_profiles(struct sys_run *d)
{
	int i;

	for (i = 0; i < d->nr_prof; i++) {
		struct tc_profile *p = &d->prof[i];

		if (!needs_tracefs(p) || !p->available)
			continue;
		if (tc_tracefs_apply(d->t, p)) {
			p->available = false;
			snprintf(p->reason, sizeof(p->reason), "%s", tc_tracefs_error(d->t));
		}
		if (tc_tracefs_unapply(d->t))
			tc_cli_fail("removing instance %s: %s", tc_tracefs_instance_name(d->t),
				    tc_tracefs_error(d->t));
	}
	set_columns(d);
}

static void print_header(const struct sys_run *d)
{
	const struct sys_opts *o = &d->o;
	char cpus[256], start[64];
	struct tm tm;
	int i, w;

	tc_cli_format_cpus(o->cpus, o->nr_cpus, cpus, sizeof(cpus));
	gmtime_r(&d->start.tv_sec, &tm);
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("tracecost %s (git %s), suite system, %s\n", TC_VERSION, TC_GIT_SHA, start);
	printf("cpu:          %s, %d online; workloads on CPU %s\n", d->si.cpu_model,
	       d->si.cpus_online, cpus);
	printf("kernel:       %s %s %s\n", d->si.release, d->si.version, d->si.machine);
	if (d->si.emulation[0])
		printf("emulation:    %s (user-mode emulation: the figures are not "
		       "measurements)\n", d->si.emulation);
	printf("cmdline:      %s\n", d->si.cmdline);
	printf("clocksource:  %s; preemption: %s\n", d->si.clocksource, d->si.preemption);
	printf("mitigations:  %s\n", d->si.mitigations_summary);
	if (d->t)
		printf("tracefs:      %s%s; profiles in instance %s; state %s\n",
		       tc_tracefs_dir(d->t), tc_tracefs_mounted_privately(d->t) ?
		       " (mounted in a private mount namespace)" : "",
		       tc_tracefs_instance_name(d->t), tc_tracefs_state_path(d->t));
	else
		printf("tracefs:      not used\n");
	if (o->count_fentry)
		printf("count:        kernel function entries (function profiler, trace_stat/"
		       "function*), not time:\n              a figure of N ns is N entries; %" PRIu64
		       " entries of each reading subtracted\n", o->fentry_toggle);
	printf("runs:         %u per workload and profile, profiles interleaved round-robin; "
	       "median, min, max,\n              95%% CI of the median from order statistics"
	       "%s\n", o->repeat, o->repeat < 6 ? " (n/a: needs --repeat 6 or more)" : "");
	for (i = 0, w = 10; i < d->nr_prof; i++)
		if ((int)strlen(d->prof[i].name) > w)
			w = (int)strlen(d->prof[i].name);
	for (i = 0; i < d->nr_prof; i++) {
		const struct tc_profile *p = &d->prof[i];
		char ev[256] = "";
		int j;

		for (j = 0; j < p->nr_events && strlen(ev) < 180; j++) {
			strcat(ev, j ? " " : "");
			strcat(ev, p->events[j].system);
			strcat(ev, ":");
			strcat(ev, p->events[j].name);
			if (p->events[j].filter)
				strcat(ev, " (filtered)");
		}
		if (j < p->nr_events)
			strcat(ev, " ...");
		printf("%s%-*s  ", i ? "              " : "profiles:     ", w, p->name);
		if (!p->available)
			printf("unavailable: %s\n", p->reason);
		else if (!p->nr_events && !p->tracer[0])
			printf("%s\n", p->summary);
		else
			printf("%s%s%s%s%s\n", ev, *ev && p->tracer[0] ? "; " : "",
			       p->tracer[0] ? "tracer " : "", p->tracer,
			       p->buffer_kb ? "; buffer set" : "");
	}
	printf("\n");
	fflush(stdout);
}

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);	/* 4 significant digits */
}

static void fmt_count(char *buf, size_t len, double v)
{
	if (v < 10000)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
}

/*
 * The change (%) of column @c's median against none's, the ratio of the
 * medians minus 1; false if undefined (no none column, a zero median).
 */
static bool overhead(const struct sys_run *d, const struct sys_result *r, int m, int c,
		     double *pct)
{
	double *v = calloc(d->o.repeat, sizeof(double));
	struct tc_summary base, x;
	unsigned int k;

	if (!v)
		tc_cli_fail("out of memory");
	if (d->none_col < 0 || c == d->none_col) {
		free(v);
		return false;
	}
	for (k = 0; k < d->o.repeat; k++)
		v[k] = r->s[k * d->nr_cols + d->none_col].value[m];
	tc_summary_compute(v, (int)d->o.repeat, &base);
	for (k = 0; k < d->o.repeat; k++)
		v[k] = r->s[k * d->nr_cols + c].value[m];
	tc_summary_compute(v, (int)d->o.repeat, &x);
	free(v);
	if (!(base.median > 0))
		return false;
	*pct = (x.median / base.median - 1) * 100;
	return true;
}

static void metric_values(const struct sys_run *d, const struct sys_result *r, int m, int c,
			  double *v)
{
	unsigned int k;

	for (k = 0; k < d->o.repeat; k++)
		v[k] = r->s[k * d->nr_cols + c].value[m];
}

static void print_tables(const struct sys_run *d, const struct sys_result *r)
{
	const char *cols[MAX_PROFILES];
	char cell[6][MAX_PROFILES][64];
	const char *cp[MAX_PROFILES];
	double *v = calloc(d->o.repeat, sizeof(double));
	int m, c, row;

	if (!v)
		tc_cli_fail("out of memory");
	for (c = 0; c < d->nr_cols; c++)
		cols[c] = d->prof[d->col[c]].name;
	for (m = 0; m < r->ctx.nr_metrics; m++) {
		const struct tc_wl_metric *mt = &r->ctx.metric[m];
		char title[192];
		struct tc_table *t;

		snprintf(title, sizeof(title), "%s: %s (%s per run: %llu)", mt->name,
			 mt->higher_better ? "higher is better" : "lower is better",
			 mt->work_unit, (unsigned long long)mt->work_asked);
		t = tc_table_new(title, mt->unit, d->nr_cols, cols);
		if (!t)
			tc_cli_fail("out of memory");
		for (c = 0; c < d->nr_cols; c++) {
			struct tc_summary s;
			double ev[1024], pct;
			unsigned int k;

			metric_values(d, r, m, c, v);
			tc_summary_compute(v, (int)d->o.repeat, &s);
			fmt_num(cell[0][c], 64, s.median);
			fmt_num(cell[1][c], 64, s.min);
			fmt_num(cell[2][c], 64, s.max);
			if (s.ci_valid) {
				char lo[24], hi[24];

				fmt_num(lo, sizeof(lo), s.ci_low);
				fmt_num(hi, sizeof(hi), s.ci_high);
				snprintf(cell[3][c], 64, "[%s, %s]", lo, hi);
			} else {
				snprintf(cell[3][c], 64, "n/a");
			}
			for (k = 0; k < d->o.repeat && k < 1024; k++)
				ev[k] = (double)r->c[k * d->nr_cols + c].written;
			tc_summary_compute(ev, (int)(d->o.repeat < 1024 ? d->o.repeat : 1024), &s);
			fmt_count(cell[4][c], 64, s.median);
			if (overhead(d, r, m, c, &pct)) {
				snprintf(cell[5][c], 64, "%+.1f%%", pct);
			} else {
				snprintf(cell[5][c], 64, "-");
			}
		}
		for (row = 0; row < 6; row++) {
			static const char *const labels[] = {
				"median", "min", "max", "95% CI", "events/run", "median vs none",
			};

			if (row == 5 && d->none_col < 0)
				continue;
			for (c = 0; c < d->nr_cols; c++)
				cp[c] = cell[row][c];
			tc_table_add_row(t, labels[row], cp);
		}
		tc_table_print(t, stdout, d->o.format);
		tc_table_free(t);
	}
	free(v);
	fflush(stdout);
}

/* ---- whole-run estimate and progress ----------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Whether this guest's clock counts instructions: `tracecost vm
 * --deterministic` boots QEMU with -icount shift=0 (one ns of guest time per
 * instruction) and puts TC_CLOCK=icount on the kernel command line, which the
 * kernel hands to /init (and so to this process) as an environment variable.
 */
static bool clock_is_icount(void)
{
	const char *c = getenv("TC_CLOCK");

	return c && !strcmp(c, "icount");
}

/*
 * "42 s", "3 min 5 s", "1 h 2 min"; below 0.1 s in ms or us with three
 * digits (never "0.0 s" for a run that took time); under -icount, where the
 * guest's seconds are instruction counts, "2.13 M instructions".
 */
static const char *fmt_dur(char *buf, size_t len, double s)
{
	long t = lround(s);

	if (clock_is_icount()) {
		double n = s * 1e9;

		if (n < 1e3)
			snprintf(buf, len, "%.0f instructions", n);
		else if (n < 1e6)
			snprintf(buf, len, "%.3g k instructions", n / 1e3);
		else if (n < 1e9)
			snprintf(buf, len, "%.3g M instructions", n / 1e6);
		else
			snprintf(buf, len, "%.3g G instructions", n / 1e9);
	} else if (s < 0.0001)
		snprintf(buf, len, "%.3g us", s * 1e6);
	else if (s < 0.1)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else if (s < 9.95)
		snprintf(buf, len, "%.1f s", s);
	else if (t < 60)
		snprintf(buf, len, "%ld s", t);
	else if (t < 3600)
		snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
	else
		snprintf(buf, len, "%ld h %ld min", t / 3600, t % 3600 / 60);
	return buf;
}

/*
 * Seconds one run of @w should take, in units of one getpid() call here
 * (@call_s, timed at start-up) times a count per unit of the workload's
 * work. The counts were fitted to the default run (every built-in profile,
 * 7 repetitions: 1 min 46 s) on a 2-CPU KVM guest where one getpid() call
 * took 0.4 us; tracing lengthens runs unevenly (pipe 2.5x under sched, getpid
 * 3x under syscalls), so the estimate is rough: the progress lines correct
 * it as runs finish (elapsed / modelled so far).
 */
static double model_run_s(const struct sys_run *d, const struct tc_workload *w)
{
	const struct tc_wl_opts *o = &d->o.wl;
	double g = d->call_s, s = 0;
	int i;

	if (!strcmp(w->name, "getpid"))
		return (double)o->calls * 1.2 * g;
	if (!strcmp(w->name, "pipe"))
		return (double)o->round_trips * 50 * g;
	if (!strcmp(w->name, "ctxsw")) {
		for (i = 0; i < o->nr_procs; i++)
			s += (double)o->procs[i] * (double)o->ring_trips * 25 * g;
		return s + o->nr_procs * 0.01;
	}
	if (!strcmp(w->name, "fs")) {
		for (i = 0; i < o->nr_sizes; i++)
			s += (double)o->files * (60 + 4.0 * o->sizes[i]) * g;
		return s;
	}
	if (!strcmp(w->name, "hackbench"))
		return (double)o->groups * o->fds * o->fds * (double)o->loops * 7 * g;
	/* walk: the size of the tree is known once walked; /usr of a Debian install */
	return 1.2e6 * g;
}

static void eta_start(struct sys_run *d)
{
	double t;
	int i, runs = (int)d->o.repeat * d->nr_cols;
	char b[32];

	/* 20000 getpid() calls: the unit of the model (a few ms) */
	t = now_s();
	for (i = 0; i < 20000; i++)
		syscall(SYS_getpid);
	d->call_s = (now_s() - t) / 20000;
	d->model_total = 0;
	for (i = 0; i < d->o.nr_wls; i++) {
		d->model[i] = model_run_s(d, d->o.wls[i]);
		d->model_total += d->model[i] * runs;
	}
	d->model_done = 0;
	d->t0 = now_s();
	fprintf(stderr, "tracecost: estimate: about %s for %d workload%s x %d profile%s x %u "
		"repetition%s (rough: tracing lengthens runs unevenly; progress %s%s)\n",
		fmt_dur(b, sizeof(b), d->model_total), d->o.nr_wls, d->o.nr_wls > 1 ? "s" : "",
		d->nr_cols, d->nr_cols > 1 ? "s" : "", d->o.repeat, d->o.repeat > 1 ? "s" : "",
		isatty(STDERR_FILENO) ? "below" : "after each workload",
		clock_is_icount() ? "; QEMU -icount: the guest clock counts instructions, "
		"times are in guest instructions" : "");
	if (getenv("TC_ETA_DEBUG"))
		for (i = 0; i < d->o.nr_wls; i++)
			fprintf(stderr, "tracecost: estimate: %s %.3f s per run (one getpid call "
				"%.3f us)\n", d->o.wls[i]->name, d->model[i], d->call_s * 1e6);
}

/* Whole-run time left: the model scaled by what the finished runs took. */
static double eta_left(const struct sys_run *d, double elapsed)
{
	if (d->model_done <= 0)
		return d->model_total;
	return elapsed / d->model_done * (d->model_total - d->model_done);
}

/* One run of workload @wi finished: a progress line on a terminal. */
static void eta_run_done(struct sys_run *d, int wi, int run, int runs)
{
	double el;
	char a[32], b[32];

	d->model_done += d->model[wi];
	if (!isatty(STDERR_FILENO))
		return;
	el = now_s() - d->t0;
	tc_cli_progress_line("system: %3.0f%%, %s %d/%d, %s elapsed, about %s left",
			     100.0 * d->model_done / d->model_total, d->o.wls[wi]->name, run,
			     runs, fmt_dur(a, sizeof(a), el), fmt_dur(b, sizeof(b),
			     eta_left(d, el)));
}

/* Workload @wi finished: a line on stderr when it is not a terminal (logs). */
static void eta_workload_done(struct sys_run *d, int wi, double took)
{
	double el = now_s() - d->t0;
	char a[32], b[32], c[32];

	if (isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "tracecost: [%d/%d] %s done in %s; %s elapsed, about %s left\n",
		wi + 1, d->o.nr_wls, d->o.wls[wi]->name, fmt_dur(c, sizeof(c), took),
		fmt_dur(a, sizeof(a), el), fmt_dur(b, sizeof(b), eta_left(d, el)));
}

static void measure_fail(struct sys_run *d, struct sys_result *r, int err, const char *what)
{
	if (d->t)
		tc_tracefs_unapply(d->t);
	if (r)
		tc_workload_teardown(&r->ctx);
	tc_cli_progress_done();
	if (err == -EINTR) {
		exit(tc_cli_interrupted());
	}
	tc_cli_fail("%s", what);
}

static void measure_workload(struct sys_run *d, const struct tc_workload *w, int wi)
{
	struct sys_result *r = &d->res[d->nr_res];
	int cells = (int)d->o.repeat * d->nr_cols, k, c, err;
	double t_start = now_s();
	char what[512];

	r->s = calloc((size_t)cells, sizeof(*r->s));
	r->c = calloc((size_t)cells, sizeof(*r->c));
	if (!r->s || !r->c)
		tc_cli_fail("out of memory");
	err = tc_workload_setup(&r->ctx, w, &d->o.wl);
	if (err) {
		snprintf(what, sizeof(what), "%s: setup: %s", w->name, r->ctx.detail[0] ?
			 r->ctx.detail : strerror(-err));
		measure_fail(d, NULL, tc_cli_stop ? -EINTR : err, what);
	}
	d->nr_res++;
	for (k = 0; k < (int)d->o.repeat; k++) {
		for (c = 0; c < d->nr_cols; c++) {
			const struct tc_profile *p = &d->prof[d->col[c]];
			int i = k * d->nr_cols + c;

			if (needs_tracefs(p) && tc_tracefs_apply(d->t, p)) {
				snprintf(what, sizeof(what), "profile %s: %s", p->name,
					 tc_tracefs_error(d->t));
				measure_fail(d, r, tc_cli_stop ? -EINTR : -EIO, what);
			}
			err = tc_workload_run(&r->ctx, &r->s[i]);
			if (err) {
				snprintf(what, sizeof(what), "%s under %s: %s", w->name, p->name,
					 r->ctx.detail[0] ? r->ctx.detail : strerror(-err));
				measure_fail(d, r, tc_cli_stop ? -EINTR : err, what);
			}
			if (needs_tracefs(p)) {
				if (tc_tracefs_count(d->t, r->ctx.pids, r->ctx.nr_pids, &r->c[i])) {
					snprintf(what, sizeof(what), "counting events of %s: %s",
						 p->name, tc_tracefs_error(d->t));
					measure_fail(d, r, -EIO, what);
				}
				if (tc_tracefs_unapply(d->t)) {
					snprintf(what, sizeof(what), "profile %s: %s", p->name,
						 tc_tracefs_error(d->t));
					measure_fail(d, r, -EIO, what);
				}
			}
			if (tc_cli_stop)
				measure_fail(d, r, -EINTR, "");
			eta_run_done(d, wi, i + 1, cells);
		}
	}
	tc_workload_teardown(&r->ctx);
	tc_cli_progress_done();
	eta_workload_done(d, wi, now_s() - t_start);
	print_tables(d, r);
}

/* ---- result file -------------------------------------------------------- */

static json_t *summary_json(const double *v, int n)
{
	struct tc_summary s;

	if (tc_summary_compute(v, n, &s))
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:b, s:o, s:o, s:o}",
			 "median", s.median, "min", s.min, "max", s.max,
			 "ci_valid", s.ci_valid,
			 "ci_low", s.ci_valid ? json_real(s.ci_low) : json_null(),
			 "ci_high", s.ci_valid ? json_real(s.ci_high) : json_null(),
			 "ci_level", s.ci_valid ? json_real(s.ci_level) : json_null());
}

static json_t *profiles_json(const struct sys_run *d)
{
	json_t *a = json_array();
	int i, j;

	for (i = 0; i < d->nr_prof; i++) {
		const struct tc_profile *p = &d->prof[i];
		json_t *ev = json_array();

		for (j = 0; j < p->nr_events; j++)
			json_array_append_new(ev, json_pack("{s:s, s:s, s:s?}",
				"system", p->events[j].system, "name", p->events[j].name,
				"filter", p->events[j].filter));
		json_array_append_new(a, json_pack("{s:s, s:s, s:b, s:s?, s:b, s:s?, s:o, s:s,"
						   " s:I}",
			"name", p->name, "summary", p->summary, "builtin", p->builtin,
			"file", p->file, "available", p->available,
			"reason", p->available ? NULL : p->reason, "events", ev,
			"tracer", p->tracer, "buffer_kb", (json_int_t)p->buffer_kb));
	}
	return a;
}

static json_t *cells_json(const struct sys_run *d, const struct sys_result *r, int m)
{
	int n = (int)d->o.repeat, c, k;
	double *v = calloc((size_t)n, sizeof(double)), pct;
	json_t *cells = json_array();

	if (!v) {
		return NULL;
	}
	for (c = 0; c < d->nr_cols; c++) {
		json_t *vals = json_array(), *work = json_array(), *wr = json_array();
		json_t *lost = json_array(), *inbuf = json_array(), *match = json_array();
		json_t *sum, *ovh;

		for (k = 0; k < n; k++) {
			const struct tc_trace_counts *tc = &r->c[k * d->nr_cols + c];

			json_array_append_new(vals, json_real(r->s[k * d->nr_cols + c].value[m]));
			json_array_append_new(work, json_integer(
				(json_int_t)r->s[k * d->nr_cols + c].work[m]));
			json_array_append_new(wr, json_integer((json_int_t)tc->written));
			json_array_append_new(lost, json_integer((json_int_t)tc->lost));
			json_array_append_new(inbuf, json_integer((json_int_t)tc->in_buffer));
			json_array_append_new(match, json_integer((json_int_t)tc->matched));
		}
		metric_values(d, r, m, c, v);
		sum = summary_json(v, n);
		ovh = overhead(d, r, m, c, &pct) ?
		      json_pack("{s:s, s:f}", "estimator", "median / median of none - 1", "value",
				pct) : json_null();
		json_array_append_new(cells, json_pack(
			"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"profile", d->prof[d->col[c]].name,
			"values", vals, "work", work,
			"events_written", wr, "events_lost", lost,
			"events_in_buffer", inbuf, "events_from_workload", match,
			"summary", sum, "overhead_pct", ovh));
	}
	free(v);
	return cells;
}

static int write_json(const struct sys_run *d)
{
	const struct sys_opts *o = &d->o;
	struct tc_result_header h = {
		.suite = "system", .argc = tc_cli_argc, .argv = tc_cli_argv,
		.start = d->start, .end = d->end, .si = &d->si, .cpus = o->cpus,
		.nr_cpus = o->nr_cpus,
	};
	json_t *root = tc_result_new(&h), *wls, *sys, *procs, *sizes, *tfs;
	int i, m, err;

	if (!root)
		return -ENOMEM;
	wls = json_array();
	for (i = 0; i < d->nr_res; i++) {
		const struct sys_result *r = &d->res[i];
		json_t *ms = json_array();

		for (m = 0; m < r->ctx.nr_metrics; m++) {
			const struct tc_wl_metric *mt = &r->ctx.metric[m];

			json_array_append_new(ms, json_pack("{s:s, s:s, s:s, s:b, s:I, s:o}",
				"name", mt->name, "unit", mt->unit, "work_unit", mt->work_unit,
				"higher_is_better", mt->higher_better,
				"work_asked", (json_int_t)mt->work_asked,
				"cells", cells_json(d, r, m)));
		}
		json_array_append_new(wls, json_pack("{s:s, s:s, s:o}", "name",
			r->ctx.type ? r->ctx.type->name : o->wls[i]->name,
			"summary", o->wls[i]->summary, "metrics", ms));
	}
	procs = json_array();
	for (i = 0; i < o->wl.nr_procs; i++)
		json_array_append_new(procs, json_integer(o->wl.procs[i]));
	sizes = json_array();
	for (i = 0; i < o->wl.nr_sizes; i++)
		json_array_append_new(sizes, json_integer(o->wl.sizes[i]));
	tfs = d->t ? json_pack("{s:s, s:b, s:s, s:s}", "dir", tc_tracefs_dir(d->t),
			       "mounted_privately", tc_tracefs_mounted_privately(d->t),
			       "instance", tc_tracefs_instance_name(d->t),
			       "state_file", tc_tracefs_state_path(d->t)) : json_null();
	sys = json_pack("{s:i, s:s, s:s, s:s, s:o,"
			" s:{s:I, s:I, s:I, s:o, s:o, s:I, s:s?, s:i, s:i, s:I, s:i, s:s, s:s, s:s,"
			" s:o},"
			" s:o, s:o}",
			"repeat", o->repeat, "order", "round-robin",
			"interval", "order statistics of the median, coverage >= 95%",
			"overhead", "change of the median against none's: median / median of "
				    "none - 1, in % (compare's change column)",
			"tracefs", tfs,
			"options", "calls", (json_int_t)o->wl.calls,
			"round_trips", (json_int_t)o->wl.round_trips,
			"ring_trips", (json_int_t)o->wl.ring_trips, "procs", procs,
			"sizes_kb", sizes, "files", (json_int_t)o->wl.files, "dir", o->wl.dir,
			"groups", o->wl.groups, "fds", o->wl.fds, "loops", (json_int_t)o->wl.loops,
			"datasize", o->wl.datasize, "ipc", o->wl.hb_pipe ? "pipe" : "socket",
			"tree", o->wl.tree, "count", o->count_fentry ? "fentry" : "time",
			"fentry_toggle", o->count_fentry ?
				json_integer((json_int_t)o->fentry_toggle) : json_null(),
			"profiles", profiles_json(d), "workloads", wls);
	if (!sys) {
		json_decref(root);
		return -ENOMEM;
	}
	json_object_set_new(root, "system", sys);
	err = tc_result_write(root, o->json);
	json_decref(root);
	return err;
}

static int measure(void *arg)
{
	struct sys_run *d = arg;
	int i, err;

	tc_cli_catch_signals();
	memset(&d->si, 0, sizeof(d->si));
	tc_sysinfo_read(&d->si);
	clock_gettime(CLOCK_REALTIME, &d->start);
	if (d->t)
		probe_profiles(d);
	else
		set_columns(d);
	if (!d->nr_cols) {
		for (i = 0; i < d->nr_prof && d->prof[i].available; i++)
			;
		tc_cli_fail("no requested profile is available here (%s: %s)",
			    d->prof[i < d->nr_prof ? i : 0].name,
			    d->prof[i < d->nr_prof ? i : 0].reason);
	}
	if (d->o.count_fentry) {
		char msg[400];

		err = tc_wl_count_fentry(msg, sizeof(msg), &d->o.fentry_toggle);
		if (err)
			tc_cli_fail("%s", msg);
	}
	print_header(d);
	fflush(stdout);
	eta_start(d);
	for (i = 0; i < d->o.nr_wls; i++)
		measure_workload(d, d->o.wls[i], i);
	tc_wl_count_fentry_end();
	clock_gettime(CLOCK_REALTIME, &d->end);
	if (d->o.json) {
		err = write_json(d);
		if (err)
			tc_cli_fail("--json %s: %s", d->o.json, strerror(-err));
	}
	return TC_EXIT_OK;
}

int suite_system_run(int argc, char **argv)
{
	static struct sys_run d;
	char msg[256];
	bool tracefs_cols = false;
	long pid;
	int i;

	/* Ctrl-C from the first millisecond: exit 130, nothing written */
	tc_cli_catch_signals();
	parse(argc, argv, &d.o);
	resolve_profiles(&d);
	for (i = 0; i < d.o.nr_wls; i++) {
		if (tc_workload_check(d.o.wls[i], &d.o.wl, msg, sizeof(msg)))
			tc_cli_usage("%s", msg);
	}
	check_profiles(&d);
	/* an interrupted run may still be tracing: no baseline is valid until restored */
	switch (tc_cli_state(&pid)) {
	case TC_STATE_LIVE:
		tc_cli_fail("another tracecost run (pid %ld) holds %s/lock and is tracing now: "
			    "wait for it to end", pid, TC_TRACEFS_STATE_DIR);
	case TC_STATE_STALE:
		tc_cli_fail("the state file of an interrupted run (%s) is still there (tracing "
			    "it set up may still be on): run 'tracecost restore' first",
			    tc_cli_state_who(pid));
	}
	if (tc_cli_stop)
		tc_cli_die(TC_EXIT_INTERRUPTED, "interrupted; nothing written");
	for (i = 0; i < d.nr_prof; i++)
		if (needs_tracefs(&d.prof[i]) && d.prof[i].available)
			tracefs_cols = true;
	if (!tracefs_cols) {
		/* nothing to change in tracefs: measure here */
		if (d.t) {
			tc_tracefs_close(d.t);
			d.t = NULL;
		}
		return measure(&d);
	}
	return tc_cli_run_supervised(d.t, measure, &d);
}
