// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/suite_user.c - "tracecost run --suite user": the tracer benchmark in
 * userspace. Five configurations of the toggle subject (stock, call, call+,
 * static, static+) x three pairs (irq, preempt, irq_save), sampled on every
 * selected CPU, plus a separate short run on one CPU for the percentile row
 * (the seed's method).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <tracecost/clock.h>
#include <tracecost/report.h>
#include <tracecost/result.h>
#include <tracecost/sampler.h>
#include <tracecost/static_key.h>
#include <tracecost/tracepoint.h>
#include <tracecost/stats.h>
#include <tracecost/sysinfo.h>

#include <tracecost/tracefs.h>

#include "cli.h"
#include "pair_report.h"
#include "peers.h"
#include "size_table.h"

/* The suite's columns; --peers appends its columns (src/peers.c). */
static const struct tc_subject *subjects[TC_PEERS_MAX_COLUMNS] = {
	&tc_subject_stock, &tc_subject_call, &tc_subject_callp,
	&tc_subject_static, &tc_subject_staticp,
};
static int nr_subjects = 5;
#define NR_SUBJECTS nr_subjects
#define NR_SUBJECTS_MAX TC_PEERS_MAX_COLUMNS

static const struct {
	const char *name;
	const char *title;
} pairs[TC_NR_USER_PAIRS] = {
	[TC_PAIR_IRQ] = { "irq", "IRQ Metrics" },
	[TC_PAIR_PREEMPT] = { "preempt", "Preempt Metrics" },
	[TC_PAIR_IRQ_SAVE] = { "irq_save", "IRQ save/restore Metrics" },
};

struct user_opts {
	int *cpus;
	int nr_cpus;
	uint64_t samples;
	unsigned int batch;
	unsigned int highest;
	double percentile;
	unsigned int repeat;
	int do_work;
	int priority;
	int mlock;
	int per_cpu;
	int unit_ticks;
	enum tc_table_format format;
	const char *json;
	const char *raw;
	uint64_t raw_max;
};

enum {
	OPT_CPUS = 256, OPT_SAMPLES, OPT_BATCH, OPT_HIGHEST, OPT_PERCENTILE, OPT_REPEAT,
	OPT_DO_WORK, OPT_PRIORITY, OPT_MLOCK, OPT_PER_CPU, OPT_UNIT, OPT_JSON, OPT_RAW,
	OPT_RAW_MAX, OPT_FORMAT, OPT_HELP, OPT_PEERS,
};

static const struct option long_opts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "highest", required_argument, NULL, OPT_HIGHEST },
	{ "percentile", required_argument, NULL, OPT_PERCENTILE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "do-work", no_argument, NULL, OPT_DO_WORK },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ "mlock", no_argument, NULL, OPT_MLOCK },
	{ "per-cpu", no_argument, NULL, OPT_PER_CPU },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "raw", required_argument, NULL, OPT_RAW },
	{ "raw-max", required_argument, NULL, OPT_RAW_MAX },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "peers", required_argument, NULL, OPT_PEERS },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost run [--suite user] [--runs N] [--cpus LIST] [--samples N]\n"
	       "                     [--batch K] [--highest N] [--percentile P] [--repeat K]\n"
	       "                     [--do-work] [--priority N] [--mlock] [--per-cpu]\n"
	       "                     [--unit ns|ticks] [--format text|markdown|csv]\n"
	       "                     [--json FILE] [--raw FILE] [--raw-max N] [--peers all|LIST]\n\n"
	       "  --runs N         N runs, each a fresh process, in one result file; the table\n"
	       "                   is compare's, with verdicts (default 1; any suite)\n"
	       "  --cpus LIST      CPUs to sample on, e.g. 0-3,6 (default: all online)\n"
	       "  --samples N      samples per pair x configuration x CPU (default 1000000)\n"
	       "  --batch K        pairs timed per sample, result divided by K (default 1)\n"
	       "  --highest N      samples averaged into max_avg (default 1000)\n"
	       "  --percentile P   percentile row, 0 < P <= 100 (default 99)\n"
	       "  --repeat K       repetitions of the whole measurement (default 1)\n"
	       "  --do-work        simulated critical section inside each pair\n"
	       "  --priority N     SCHED_FIFO priority 1-99 (needs CAP_SYS_NICE)\n"
	       "  --mlock          mlockall() before sampling (needs CAP_IPC_LOCK or rlimit)\n"
	       "  --per-cpu        add a per-CPU breakdown\n"
	       "  --unit ns|ticks  table unit (default ns; 'cycles' = ticks)\n"
	       "  --json FILE      write the result file (doc/result-format.md)\n"
	       "  --format FORMAT  tables as text (default), markdown or csv\n"
	       "  --raw FILE       write raw samples as CSV\n"
	       "  --raw-max N      rows kept for --raw (default 1000000)\n"
	       "  --peers LIST     also measure peers: all, or %s (enabled\n"
	       "                   usdt needs root; see tracecost(1))\n\n"
	       "Other suites: tracecost run --suite kernel --help, --suite system --help.\n"
	       "Single-pair samples cannot resolve less than the counter's step (printed in\n"
	       "the header); compare means with --batch 16 or more.\n", tc_peers_list());
}

/* The directory of @path must exist and be writable: checked before any work. */
static void parse(int argc, char **argv, struct user_opts *o)
{
	int c;

	*o = (struct user_opts){
		.samples = 1000000, .batch = 1, .highest = 1000, .percentile = 99,
		.repeat = 1, .raw_max = 1000000,
	};
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CPUS:
			free(o->cpus);
			o->nr_cpus = tc_cli_parse_cpus("--cpus", optarg, &o->cpus);
			break;
		case OPT_SAMPLES:
			o->samples = tc_cli_parse_u64("--samples", optarg, 1, 10000000000ull);
			break;
		case OPT_BATCH:
			o->batch = (unsigned int)tc_cli_parse_u64("--batch", optarg, 1, 1024);
			break;
		case OPT_HIGHEST:
			o->highest = (unsigned int)tc_cli_parse_u64("--highest", optarg, 1, 1000000);
			break;
		case OPT_PERCENTILE:
			o->percentile = tc_cli_parse_double("--percentile", optarg, 0, 100);
			break;
		case OPT_REPEAT:
			o->repeat = (unsigned int)tc_cli_parse_u64("--repeat", optarg, 1, 255);
			break;
		case OPT_DO_WORK:
			o->do_work = 1;
			break;
		case OPT_PRIORITY:
			o->priority = (int)tc_cli_parse_u64("--priority", optarg, 1, 99);
			break;
		case OPT_MLOCK:
			o->mlock = 1;
			break;
		case OPT_PER_CPU:
			o->per_cpu = 1;
			break;
		case OPT_UNIT:
			o->unit_ticks = tc_cli_parse_unit("--unit", optarg);
			break;
		case OPT_FORMAT:
			o->format = (enum tc_table_format)tc_cli_parse_format("--format", optarg, 0);
			break;
		case OPT_JSON:
			tc_cli_check_output("--json", optarg);
			o->json = optarg;
			break;
		case OPT_RAW:
			tc_cli_check_output("--raw", optarg);
			o->raw = optarg;
			break;
		case OPT_RAW_MAX:
			o->raw_max = tc_cli_parse_u64("--raw-max", optarg, 1, 100000000);
			break;
		case OPT_PEERS:
			tc_peers_parse(optarg);
			break;
		case 'h':
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost run --help");
		}
	}
	if (optind < argc)
		tc_cli_usage("unexpected argument '%s'", argv[optind]);
	if (o->json && o->raw && strcmp(o->json, "-") && tc_cli_same_file(o->json, o->raw))
		tc_cli_usage("--json '%s' and --raw '%s' name the same file", o->json, o->raw);
	if (!o->cpus)
		o->nr_cpus = tc_cli_all_cpus(&o->cpus);
	if (o->nr_cpus < 1)
		tc_cli_fail("no online CPU is available to this process");
}

struct run_data {
	struct user_opts *o;
	struct tc_sysinfo si;
	struct tc_clock_info ci;
	struct tc_sampler_result main, one;
	int one_cpu;
	struct tc_stats *st, *st1;	/* [subject * nr_pairs + pair] */
	uint64_t *irqs;			/* per selected CPU, during the main run */
	struct timespec start, end;
};

static void print_header(const struct run_data *d, FILE *f)
{
	const struct user_opts *o = d->o;
	char cpus[256], start[64];
	struct tm tm;
	int i;

	tc_cli_format_cpus(o->cpus, o->nr_cpus, cpus, sizeof(cpus));
	gmtime_r(&d->start.tv_sec, &tm);
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "tracecost %s (git %s), suite user, %s\n", TC_VERSION, TC_GIT_SHA, start);
	fprintf(f, "cpu:          %s, %d online; sampled on CPU %s\n", d->si.cpu_model,
		d->si.cpus_online, cpus);
	fprintf(f, "kernel:       %s %s %s\n", d->si.release, d->si.version, d->si.machine);
	if (d->si.emulation[0])
		fprintf(f, "emulation:    %s (user-mode emulation: the figures are not "
			"measurements)\n", d->si.emulation);
	/* the whole command line is in the result file; mail wants 80 columns */
	fprintf(f, "cmdline:      %.64s%s\n", d->si.cmdline,
		strlen(d->si.cmdline) > 64 ? " ... (whole in --json)" : "");
	fprintf(f, "clocksource:  %s; preemption: %s\n", d->si.clocksource, d->si.preemption);
	fprintf(f, "mitigations:  %s\n", d->si.mitigations_summary);
	fprintf(f, "compiler:     %s, %s\n", d->si.compiler, d->si.cflags);
	fprintf(f, "counter:      %s, %.3f MHz (%s), resolution %llu ticks, read %llu ticks%s\n",
		d->ci.name, d->ci.freq_hz / 1e6, d->ci.source,
		(unsigned long long)d->ci.resolution, (unsigned long long)d->ci.read_cost,
		d->ci.constant_rate ? "; constant-rate ticks, not core cycles" : "");
	fprintf(f, "static keys:  %s\n", tc_static_key_impl());
	fprintf(f, "rcu readers:  %s\n", tc_tracepoint_urcu_read_side());
	fprintf(f, "samples:      %llu per pair x configuration x CPU x repetition, %u repetition%s,"
		" batch %u, highest %u, do_work %s%s; %g percentile (1 CPU) from a run on CPU %d\n",
		(unsigned long long)o->samples, o->repeat, o->repeat > 1 ? "s" : "", o->batch,
		o->highest, o->do_work ? "on" : "off",
		o->priority ? ", SCHED_FIFO" : "", o->percentile, d->one_cpu);
	fprintf(f, "interrupts:   ");
	for (i = 0; i < o->nr_cpus; i++)
		fprintf(f, "%sCPU%d %llu", i ? ", " : "", o->cpus[i],
			(unsigned long long)d->irqs[i]);
	fprintf(f, " during the run (/proc/interrupts)\n");
	fprintf(f, "unit:         %s%s\n", o->unit_ticks ? "counter ticks" : "ns",
		o->batch > 1 ? " per pair (batch samples divided by the batch size)" : "");
	if (d->ci.resolution > 1 && o->batch == 1)
		fprintf(f, "resolution:   single-pair samples move in steps of %llu ticks (%.1f ns) on"
			" this counter;\n              differences below that show in average and"
			" max_avg only: use --batch K\n",
			(unsigned long long)d->ci.resolution,
			tc_clock_ticks_to_ns(&d->ci, (double)d->ci.resolution));
	fputc('\n', f);
}

static const char *const *col_names(void)
{
	static const char *names[NR_SUBJECTS_MAX];
	int s;

	for (s = 0; s < NR_SUBJECTS; s++)
		names[s] = subjects[s]->name;
	return names;
}

static struct tc_pair_view view(const struct run_data *d)
{
	static const char *names[TC_NR_USER_PAIRS], *titles[TC_NR_USER_PAIRS];
	int p;

	for (p = 0; p < TC_NR_USER_PAIRS; p++) {
		names[p] = pairs[p].name;
		titles[p] = pairs[p].title;
	}
	return (struct tc_pair_view){
		.ncols = NR_SUBJECTS, .cols = col_names(), .npairs = TC_NR_USER_PAIRS,
		.pair_names = names, .pair_titles = titles, .cells = d->main.cells,
		.nr_snap = (int)d->o->repeat * d->o->nr_cpus, .st = d->st, .st1 = d->st1,
		.percentile = d->o->percentile, .batch = d->o->batch,
		.unit_ticks = d->o->unit_ticks, .freq_hz = d->ci.freq_hz,
		.format = d->o->format,
	};
}

/*
 * The tables: compare's, on this run's result (the same tables as --runs N
 * prints); with --per-cpu, each pair's figures on each CPU after them.
 */
static void print_tables(const struct run_data *d, json_t *root)
{
	const struct user_opts *o = d->o;
	struct tc_pair_view v = view(d);
	int p, s, i, ret;

	fflush(stdout);
	ret = tc_cli_compare_json(root, o->json && strcmp(o->json, "-") ? o->json : "this run",
				  tc_cli_format_name(o->format), o->unit_ticks);
	if (ret)
		exit(ret);
	for (p = 0; o->per_cpu && p < TC_NR_USER_PAIRS; p++) {
		for (i = 0; i < o->nr_cpus; i++) {
			struct tc_stats st[NR_SUBJECTS_MAX];
			char title[96];

			for (s = 0; s < NR_SUBJECTS; s++) {
				const struct tc_cell *cell = &d->main.cells[s * TC_NR_USER_PAIRS + p];

				if (tc_pair_report_cpu_stats(cell, o->nr_cpus, (int)o->repeat, i,
							     o->highest, o->percentile, &st[s]))
					tc_cli_fail("no samples on CPU %d", o->cpus[i]);
			}
			snprintf(title, sizeof(title), "%s, CPU %d", pairs[p].title, o->cpus[i]);
			tc_pair_report_table(&v, title, st, NULL, 1, 0, stdout);
		}
	}
}

static void print_harness(const struct run_data *d)
{
	char cells[4][NR_SUBJECTS_MAX][48];
	const char *cp[NR_SUBJECTS_MAX];
	struct tc_table *t;
	int s, p, r;

	for (s = 0; s < NR_SUBJECTS; s++) {
		uint64_t omin = UINT64_MAX, omax = 0, clamped = 0, n = 0;

		for (p = 0; p < TC_NR_USER_PAIRS; p++) {
			const struct tc_cell *c = &d->main.cells[s * TC_NR_USER_PAIRS + p];

			omin = c->overhead_min < omin ? c->overhead_min : omin;
			omax = c->overhead_max > omax ? c->overhead_max : omax;
			clamped += c->clamped;
			n += c->hist->n;
		}
		snprintf(cells[0][s], 48, "%llu-%llu", (unsigned long long)omin,
			 (unsigned long long)omax);
		snprintf(cells[1][s], 48, "%llu/%llu", (unsigned long long)clamped,
			 (unsigned long long)n);
		if (subjects[s]->probes) {
			snprintf(cells[2][s], 48, "%llu", (unsigned long long)d->main.events[s]);
			snprintf(cells[3][s], 48, "%llu", (unsigned long long)d->main.overruns[s]);
		} else {
			snprintf(cells[2][s], 48, "-");
			snprintf(cells[3][s], 48, "-");
		}
	}
	t = tc_table_new("Harness", "Metric", NR_SUBJECTS, col_names());
	if (!t)
		tc_cli_fail("out of memory");
	for (r = 0; r < 4; r++) {
		static const char *const labels[] = { "timer overhead O (ticks)",
			"clamped samples", "events recorded", "event overruns" };

		for (s = 0; s < NR_SUBJECTS; s++)
			cp[s] = cells[r][s];
		tc_table_add_row(t, labels[r], cp);
	}
	tc_table_print(t, stdout, d->o->format);
	tc_table_free(t);
	if (d->o->format == TC_TABLE_TEXT)
		printf("O: median of %u empty samples per block (min-max over blocks). Events go to a"
		       " %u-event\nring per thread in overwrite mode: overruns are the events"
		       " overwritten, expected.\n\n", TC_SAMPLER_CALIB, TC_SAMPLER_RING_EVENTS);
}

static const struct tc_subject_size *size_of(const char *id)
{
	int i;

	for (i = 0; i < tc_nr_subject_sizes; i++)
		if (!strcmp(tc_subject_sizes[i].id, id))
			return &tc_subject_sizes[i];
	return NULL;
}

static void print_size(const struct run_data *d)
{
	char cells[3 + TC_NR_SITES][NR_SUBJECTS_MAX][48];
	const char *cp[NR_SUBJECTS_MAX];
	const struct tc_subject_size *stock = size_of("stock");
	struct tc_table *t;
	int s, r;

	for (s = 0; s < NR_SUBJECTS; s++) {
		const struct tc_subject_size *z = size_of(subjects[s]->id);
		unsigned int ool = 0;

		if (!z || !stock)
			tc_cli_fail("internal: no size table for '%s'", subjects[s]->id);
		snprintf(cells[0][s], 48, "%lu", z->text_bytes);
		snprintf(cells[1][s], 48, "%+.1f%%",
			 100.0 * ((double)z->text_bytes - (double)stock->text_bytes) /
				 (double)stock->text_bytes);
		for (r = 0; r < TC_NR_SITES; r++) {
			const struct tc_site_size *x = &z->sites[r];

			if (x->ool_insns)
				snprintf(cells[2 + r][s], 48, "%u+%u/%u", x->insns, x->ool_insns,
					 x->bytes);
			else
				snprintf(cells[2 + r][s], 48, "%u/%u", x->insns, x->bytes);
			ool += x->ool_bytes;
		}
		snprintf(cells[2 + TC_NR_SITES][s], 48, "%u", ool);
	}
	t = tc_table_new("Binary size impact", "Metric", NR_SUBJECTS, col_names());
	if (!t)
		tc_cli_fail("out of memory");
	for (r = 0; r < 3 + TC_NR_SITES; r++) {
		char label[64];

		if (r == 0)
			snprintf(label, sizeof(label), "object .text bytes");
		else if (r == 1)
			snprintf(label, sizeof(label), "object vs stock");
		else if (r < 2 + TC_NR_SITES)
			snprintf(label, sizeof(label), "%s", stock->sites[r - 2].site);
		else
			snprintf(label, sizeof(label), "out-of-line bytes");
		for (s = 0; s < NR_SUBJECTS; s++)
			cp[s] = cells[r][s];
		tc_table_add_row(t, label, cp);
	}
	tc_table_print(t, stdout, d->o->format);
	tc_table_free(t);
	if (d->o->format == TC_TABLE_TEXT)
		printf("Object: the whole configuration, sample loops included (each loop carries its\n"
		       "own tracing blocks). Toggle sites with tracing off: instructions[+instructions\n"
		       "in the called toggle]/bytes at the site, frame excluded; out-of-line bytes:\n"
		       "tracing blocks and called toggles of the six sites (scripts/subject-size.sh).\n\n");
}

static struct tc_peers_view peers_view(const struct run_data *d)
{
	static const char *names[TC_NR_USER_PAIRS];
	int p;

	for (p = 0; p < TC_NR_USER_PAIRS; p++)
		names[p] = pairs[p].name;
	return (struct tc_peers_view){
		.subjects = subjects, .nr = nr_subjects, .npairs = TC_NR_USER_PAIRS,
		.pair_names = names, .cells = d->main.cells, .st = d->st,
		.batch = d->o->batch, .ci = &d->ci, .format = d->o->format,
	};
}

static void print_peers(const struct run_data *d)
{
	struct tc_peers_view v = peers_view(d);

	tc_peers_print(&v, stdout);
}

static json_t *size_json(const struct tc_subject_size *z)
{
	json_t *sites = json_object();
	int r;

	for (r = 0; r < TC_NR_SITES; r++)
		json_object_set_new(sites, z->sites[r].site,
				    json_pack("{s:i, s:i, s:i, s:i}", "insns", z->sites[r].insns,
					      "bytes", z->sites[r].bytes,
					      "ool_insns", z->sites[r].ool_insns,
					      "ool_bytes", z->sites[r].ool_bytes));
	return json_pack("{s:I, s:o}", "text_bytes", (json_int_t)z->text_bytes, "sites", sites);
}

/* The result file's object of this run (doc/result-format.md), NULL when out of memory. */
static json_t *result_json(const struct run_data *d)
{
	const struct user_opts *o = d->o;
	struct tc_result_header h = {
		.suite = "user", .argc = tc_cli_argc, .argv = tc_cli_argv,
		.start = d->start, .end = d->end, .si = &d->si, .clock = &d->ci,
		.static_key_impl = tc_static_key_impl(), .cpus = o->cpus,
		.nr_cpus = o->nr_cpus, .irqs = d->irqs,
	};
	json_t *root = tc_result_new(&h), *user, *cfgs, *jp;
	struct tc_pair_view v;
	int s;

	if (!root)
		return NULL;
	cfgs = json_array();
	for (s = 0; s < NR_SUBJECTS; s++) {
		const struct tc_subject_size *z = size_of(subjects[s]->id);

		json_array_append_new(cfgs, json_pack("{s:s, s:s, s:s, s:b, s:I, s:I, s:o}",
			"name", subjects[s]->name, "id", subjects[s]->id,
			"hooks", subjects[s]->hooks, "probes", subjects[s]->probes,
			"events", (json_int_t)d->main.events[s],
			"overruns", (json_int_t)d->main.overruns[s],
			"size", z ? size_json(z) : json_null()));
	}
	v = view(d);
	jp = tc_pair_report_json(&v);
	user = json_pack("{s:I, s:i, s:i, s:f, s:i, s:b, s:i, s:i, s:i, s:i, s:i, s:s,"
			 " s:o, s:o}",
			 "samples", (json_int_t)o->samples, "batch", o->batch,
			 "highest", o->highest, "percentile", o->percentile,
			 "repeat", o->repeat, "do_work", o->do_work, "priority", o->priority,
			 "block", TC_SAMPLER_BLOCK, "calibration_samples", TC_SAMPLER_CALIB,
			 "hist_layout", TC_HIST_LAYOUT_VERSION, "cpu_1cpu", d->one_cpu,
			 "stats_unit", "ticks per pair",
			 "configurations", cfgs, "pairs", jp);
	if (!user) {
		json_decref(root);
		return NULL;
	}
	if (tc_peers_selected()) {
		struct tc_peers_view pv = peers_view(d);

		json_object_set_new(user, "peers", tc_peers_json(&pv));
	}
	json_object_set_new(root, "user", user);
	return root;
}

static int write_raw(const struct run_data *d)
{
	const char *path = d->o->raw;
	char tmp[4096];
	uint64_t i;
	FILE *f;

	if (!strcmp(path, "-")) {
		f = stdout;
	} else {
		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
		f = fopen(tmp, "w");
		if (!f)
			return -errno;
	}
	fprintf(f, "cpu,rep,configuration,pair,raw_ticks,overhead,ticks\n");
	for (i = 0; i < d->main.nr_raw; i++) {
		const struct tc_raw_row *r = &d->main.raw[i];

		fprintf(f, "%u,%u,%s,%s,%llu,%llu,%llu\n", r->cpu, r->rep,
			subjects[r->subject]->name, pairs[r->pair].name,
			(unsigned long long)r->raw, (unsigned long long)r->overhead,
			(unsigned long long)r->ticks);
	}
	if (f == stdout)
		return fflush(f) ? -EIO : 0;
	if (fclose(f) || rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

/*
 * The sampler saw a signal: stop the peers now (their "interrupted" line,
 * then the uprobes' removal, which waits for RCU grace periods), while the
 * workers end their current chunk; the teardown at the end is then a no-op.
 */
static void stopping(void *arg)
{
	(void)arg;
	tc_peers_teardown();
}

static const char *run_error(int err, const struct user_opts *o)
{
	static char buf[256];

	if (err == -EPERM && o->priority)
		return "--priority: SCHED_FIFO was refused: needs CAP_SYS_NICE (run as root)";
	if (err == -EPERM)
		return "pinning a thread to a CPU was refused";
	snprintf(buf, sizeof(buf), "sampler: %s", strerror(-err));
	return buf;
}

int suite_user_run(int argc, char **argv)
{
	static const int all_pairs[] = { TC_PAIR_IRQ, TC_PAIR_PREEMPT, TC_PAIR_IRQ_SAVE };
	struct user_opts o;
	struct run_data d = { .o = &o };
	json_t *root;
	struct tc_sampler_config cfg;
	uint64_t *irq0, *irq1;
	int i, c, err, maxcpu;
	char why[256];
	long pid;

	parse(argc, argv, &o);
	/* the static columns patch sites: say now if this process cannot */
	if (tc_static_key_patch_check(why, sizeof(why)))
		tc_cli_fail("static keys cannot be patched here: %s (a build with "
			    "EXTRA_CFLAGS=-DTC_STATIC_KEY_FORCE_FLAG measures the flag-test "
			    "implementation instead)", why);
	switch (tc_cli_state(&pid)) {
	case TC_STATE_LIVE:
		fprintf(stderr, "tracecost: warning: another tracecost run (pid %ld) is tracing"
			" now: its tracing and workloads may add to these figures\n", pid);
		break;
	case TC_STATE_STALE:
		fprintf(stderr, "tracecost: warning: an interrupted run (%s) left tracing set"
			" up (%s/state): 'tracecost restore' puts it back\n", tc_cli_state_who(pid),
			TC_TRACEFS_STATE_DIR);
		break;
	}
	memset(&d.si, 0, sizeof(d.si));
	tc_sysinfo_read(&d.si);
	err = tc_clock_calibrate(&d.ci, 150);
	if (err)
		tc_cli_fail("counter calibration failed: %s", strerror(-err));
	if (o.mlock && mlockall(MCL_CURRENT | MCL_FUTURE))
		tc_cli_fail("--mlock: mlockall failed: %s (needs CAP_IPC_LOCK or a larger "
			    "RLIMIT_MEMLOCK)", strerror(errno));
	tc_cli_catch_signals();
	tc_peers_setup(subjects, &nr_subjects);
	if (tc_cli_stop)
		goto interrupted;

	maxcpu = o.cpus[o.nr_cpus - 1] + 1;
	irq0 = calloc((size_t)maxcpu, sizeof(*irq0));
	irq1 = calloc((size_t)maxcpu, sizeof(*irq1));
	d.irqs = calloc((size_t)o.nr_cpus, sizeof(*d.irqs));
	d.st = calloc(NR_SUBJECTS * TC_NR_USER_PAIRS, sizeof(*d.st));
	d.st1 = calloc(NR_SUBJECTS * TC_NR_USER_PAIRS, sizeof(*d.st1));
	if (!irq0 || !irq1 || !d.irqs || !d.st || !d.st1)
		tc_cli_fail("out of memory");

	cfg = (struct tc_sampler_config){
		.cpus = o.cpus, .nr_cpus = o.nr_cpus, .subjects = subjects,
		.nr_subjects = NR_SUBJECTS, .pairs = all_pairs, .nr_pairs = TC_NR_USER_PAIRS,
		.samples = o.samples, .batch = o.batch, .highest = o.highest,
		.repeat = o.repeat, .do_work = o.do_work, .priority = o.priority,
		.raw_max = o.raw ? o.raw_max : 0, .stop = &tc_cli_stop,
		.progress = tc_cli_progress, .progress_arg = "sampling",
		.stopping = stopping,
	};
	clock_gettime(CLOCK_REALTIME, &d.start);
	tc_interrupts_read(irq0, maxcpu);
	err = tc_sampler_run(&cfg, &d.main);
	tc_interrupts_read(irq1, maxcpu);
	tc_cli_progress_done();
	if (err)
		tc_cli_fail("%s", run_error(err, &o));
	if (d.main.interrupted)
		goto interrupted;
	for (i = 0; i < o.nr_cpus; i++)
		d.irqs[i] = irq1[o.cpus[i]] - irq0[o.cpus[i]];
	tc_peers_main_done(subjects, nr_subjects, &d.main);

	/* The percentile row of the seed: a separate run on one pinned CPU. */
	d.one_cpu = o.cpus[0];
	cfg.cpus = &d.one_cpu;
	cfg.nr_cpus = 1;
	cfg.repeat = 1;
	cfg.raw_max = 0;
	cfg.progress_arg = "1-CPU run";
	err = tc_sampler_run(&cfg, &d.one);
	tc_cli_progress_done();
	if (err)
		tc_cli_fail("%s", run_error(err, &o));
	if (d.one.interrupted)
		goto interrupted;
	clock_gettime(CLOCK_REALTIME, &d.end);

	for (c = 0; c < NR_SUBJECTS * TC_NR_USER_PAIRS; c++) {
		if (tc_stats_compute(&d.st[c], d.main.cells[c].hist, d.main.cells[c].top,
				     o.percentile) ||
		    tc_stats_compute(&d.st1[c], d.one.cells[c].hist, d.one.cells[c].top,
				     o.percentile))
			tc_cli_fail("internal: no samples in a cell");
	}
	root = result_json(&d);
	if (!root)
		tc_cli_fail("out of memory");
	print_header(&d, stdout);
	print_tables(&d, root);
	print_harness(&d);
	print_size(&d);
	print_peers(&d);
	fflush(stdout);
	tc_peers_teardown();
	if (o.json) {
		err = tc_result_write(root, o.json);
		if (err)
			tc_cli_fail("--json %s: %s", o.json, strerror(-err));
	}
	if (o.raw) {
		err = write_raw(&d);
		if (err)
			tc_cli_fail("--raw %s: %s", o.raw, strerror(-err));
	}
	json_decref(root);
	tc_sampler_result_free(&d.main);
	tc_sampler_result_free(&d.one);
	free(irq0);
	free(irq1);
	free(d.irqs);
	free(d.st);
	free(d.st1);
	free(o.cpus);
	return TC_EXIT_OK;

interrupted:
	tc_peers_teardown();
	tc_sampler_result_free(&d.main);
	tc_sampler_result_free(&d.one);
	return tc_cli_interrupted();
}
