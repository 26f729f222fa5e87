// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/suite_kernel.c - "tracecost run --suite kernel": drive the tracecost
 * module (kernel/module/) through debugfs, read its histograms (doc/kmod-results.md)
 * and report them with the statistics, tables and result format of the user
 * suite. Columns are the kernel release, and "<release>+" for runs with the
 * kernel's preemptirq events enabled in a private tracefs instance; on a
 * kernel without them, the stand-in column "<release>+pair" has the
 * module's own tracecost:pair event fired inside each pair (the stock
 * column never has it).
 *
 * Every run is supervised (src/cli.c, lib/tracefs_state.c): it holds the
 * tracecost lock, so two runs never mix the module's configuration, and
 * records in the state file, before doing them, that it loads the module
 * and that it starts a run; the supervisor (or "tracecost restore" after
 * kill -9) stops the run and unloads the module it loaded. debugfs, when
 * not mounted, is mounted in a private mount namespace: nothing to undo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <tracecost/file.h>
#include <tracecost/kmod.h>
#include <tracecost/kmod_results.h>
#include <tracecost/profile.h>
#include <tracecost/result.h>
#include <tracecost/sysinfo.h>
#include <tracecost/tracefs.h>

#include "cli.h"
#include "pair_report.h"

#define DEBUGFS		"/sys/kernel/debug"
#define KDIR		DEBUGFS "/" TC_KMOD_DIR

#define X_NAME(id, name, title) [id] = name,
#define X_TITLE(id, name, title) [id] = title,
static const char *const kpair_names[TC_NR_KPAIRS] = { TC_KMOD_PAIRS(X_NAME) };
static const char *const kpair_titles[TC_NR_KPAIRS] = { TC_KMOD_PAIRS(X_TITLE) };

enum { TP_OFF, TP_ON, TP_BOTH };

struct kopts {
	int *cpus;
	int nr_cpus;
	uint64_t samples;
	unsigned int highest;
	double percentile;
	unsigned int repeat;
	int pairs[TC_NR_KPAIRS];
	int npairs;
	int do_work;
	int tp_mode;
	int unit_ticks;
	enum tc_table_format format;
	const char *module;
	const char *json;
};

enum {
	OPT_CPUS = 256, OPT_SAMPLES, OPT_HIGHEST, OPT_PERCENTILE, OPT_REPEAT, OPT_PAIRS,
	OPT_DO_WORK, OPT_TRACEPOINTS, OPT_MODULE, OPT_JSON, OPT_UNIT, OPT_FORMAT, OPT_HELP,
};

static const struct option long_opts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "highest", required_argument, NULL, OPT_HIGHEST },
	{ "percentile", required_argument, NULL, OPT_PERCENTILE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "do-work", no_argument, NULL, OPT_DO_WORK },
	{ "tracepoints", required_argument, NULL, OPT_TRACEPOINTS },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost run --suite kernel [--module PATH] [--cpus LIST] [--samples N]\n"
	       "                     [--highest N] [--percentile P] [--repeat K] [--pairs LIST]\n"
	       "                     [--do-work] [--tracepoints off|on|both] [--unit ns|ticks]\n"
	       "                     [--format text|markdown|csv] [--json FILE]\n\n"
	       "  --module PATH       tracecost.ko to load when the module is not loaded\n"
	       "                      (default: kernel/module/tracecost.ko beside the binary's"
	       " tree)\n"
	       "  --pairs LIST        irq,preempt,irq_save,bh,rcu,spin,ref16 (default: all)\n"
	       "  --tracepoints MODE  off (default), on, or both: columns <release> and\n"
	       "                      <release>+ (events enabled in a private tracefs instance)\n"
	       "Needs root and debugfs. Other options as for the user suite.\n");
}

static void parse_pairs(const char *s, struct kopts *o)
{
	char *copy = strdup(s), *p = copy, *tok;
	int i, seen = 0;

	if (!copy)
		tc_cli_fail("out of memory");
	tc_cli_check_list("--pairs", s);
	o->npairs = 0;
	while ((tok = strsep(&p, ",")) != NULL) {
		for (i = 0; i < TC_NR_KPAIRS; i++)
			if (!strcmp(tok, kpair_names[i]))
				break;
		if (i == TC_NR_KPAIRS)
			tc_cli_usage("--pairs: unknown pair '%s' (pairs: irq, preempt, irq_save,"
				     " bh, rcu, spin, ref16)", tok);
		if (seen & (1 << i))
			continue;
		seen |= 1 << i;
	}
	/* table order, whatever the order given */
	for (i = 0; i < TC_NR_KPAIRS; i++)
		if (seen & (1 << i))
			o->pairs[o->npairs++] = i;
	free(copy);
}

static void parse(int argc, char **argv, struct kopts *o)
{
	int c, i;

	*o = (struct kopts){ .samples = 100000, .highest = 1000, .percentile = 99, .repeat = 1 };
	for (i = 0; i < TC_NR_KPAIRS; i++)
		o->pairs[o->npairs++] = i;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CPUS:
			free(o->cpus);
			o->nr_cpus = tc_cli_parse_cpus("--cpus", optarg, &o->cpus);
			break;
		case OPT_SAMPLES:
			o->samples = tc_cli_parse_u64("--samples", optarg, 1, TC_KMOD_MAX_SAMPLES);
			break;
		case OPT_HIGHEST:
			o->highest = (unsigned int)tc_cli_parse_u64("--highest", optarg, 1,
								    TC_KMOD_MAX_HIGHEST);
			break;
		case OPT_PERCENTILE:
			o->percentile = tc_cli_parse_double("--percentile", optarg, 0, 100);
			break;
		case OPT_REPEAT:
			o->repeat = (unsigned int)tc_cli_parse_u64("--repeat", optarg, 1, 255);
			break;
		case OPT_PAIRS:
			parse_pairs(optarg, o);
			break;
		case OPT_DO_WORK:
			o->do_work = 1;
			break;
		case OPT_TRACEPOINTS:
			if (!strcmp(optarg, "off"))
				o->tp_mode = TP_OFF;
			else if (!strcmp(optarg, "on"))
				o->tp_mode = TP_ON;
			else if (!strcmp(optarg, "both"))
				o->tp_mode = TP_BOTH;
			else
				tc_cli_usage("--tracepoints: '%s' is not off, on or both", optarg);
			break;
		case OPT_MODULE: {
			char why[128];
			int fd = tc_file_open(optarg, NULL, why, sizeof(why));

			/* a FIFO is refused here, before finit_module() could block on it */
			if (fd < 0)
				tc_cli_usage("--module %s: %s", optarg, why);
			close(fd);
			o->module = optarg;
			}
			break;
		case OPT_JSON:
			tc_cli_check_output("--json", optarg);
			o->json = optarg;
			break;
		case OPT_UNIT:
			o->unit_ticks = tc_cli_parse_unit("--unit", optarg);
			break;
		case OPT_FORMAT:
			o->format = (enum tc_table_format)tc_cli_parse_format("--format", optarg, 0);
			break;
		case 'h':
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost run --suite kernel --help");
		}
	}
	if (optind < argc)
		tc_cli_usage("unexpected argument '%s'", argv[optind]);
	if (!o->cpus)
		o->nr_cpus = tc_cli_all_cpus(&o->cpus);
	if (o->nr_cpus < 1)
		tc_cli_fail("no online CPU is available to this process");
}

/* ---- the module's debugfs files ---------------------------------------- */

static int kwrite(const char *file, const char *val)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), KDIR "/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Whole file into a malloc'ed string; NULL with errno set on failure. */
static char *kread(const char *file)
{
	char path[256], *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KDIR "/%s", file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 1048576);

			if (!nb) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap += 1048576;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static const char *default_module(void)
{
	static char path[4096];
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct utsname u;

	if (n > 0) {
		exe[n] = 0;
		/*
		 * build/tracecost -> kernel/module/tracecost.ko; a packed
		 * initramfs puts it beside
		 */
		snprintf(path, sizeof(path), "%s/../kernel/module/tracecost.ko", dirname(exe));
		if (!access(path, R_OK))
			return path;
		exe[n] = 0;
		snprintf(path, sizeof(path), "%s/tracecost.ko", dirname(exe));
		if (!access(path, R_OK))
			return path;
	}
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/lib/modules/%s/extra/tracecost.ko", u.release);
		if (!access(path, R_OK))
			return path;
	}
	return NULL;
}

/*
 * debugfs for this process and its children: the existing mount, else one
 * in a private mount namespace, which goes away with the process (so no
 * signal or kill -9 can leave it behind).
 */
static void debugfs_reach(void)
{
	if (!access(KDIR, F_OK) || !access(DEBUGFS "/tracing", F_OK) ||
	    !access(DEBUGFS "/bdi", F_OK))
		return;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		tc_cli_fail("debugfs is not mounted and a private mount namespace to mount it in"
			    " was refused: %s", strerror(errno));
	if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL))
		tc_cli_fail("cannot mount debugfs on " DEBUGFS ": %s (needs CONFIG_DEBUG_FS)",
			    strerror(errno));
}

/* Before any work: the module is loaded, or there is a file to load. */
static const char *module_to_load(const struct kopts *o)
{
	const char *ko;

	if (!access(KDIR "/run", W_OK))
		return NULL;
	ko = o->module ? o->module : default_module();
	if (!ko)
		tc_cli_fail("tracecost.ko is not loaded and was not found: build it with"
			    " 'make -C kernel/module' and pass --module PATH");
	return ko;
}

/* In the supervised child: load @ko, recorded first so that it is unloaded. */
static void load_module(struct tc_tracefs *t, const char *ko)
{
	int fd, err;

	if (!ko || !access(KDIR "/run", W_OK))
		return;
	err = tc_tracefs_record_kmod(t, TC_KMOD_RECORD_LOADED);
	if (err)
		tc_cli_fail("%s", tc_tracefs_error(t));
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tc_cli_fail("--module %s: %s", ko, strerror(errno));
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
		int e = errno;

		close(fd);
		if (e == ENOEXEC || e == EINVAL)
			tc_cli_fail("%s was not built for this kernel (%s): rebuild with"
				    " 'make -C kernel/module"
				    " KDIR=/lib/modules/$(uname -r)/build'", ko, strerror(e));
		tc_cli_fail("loading %s: %s (the kernel must allow loading modules)", ko,
			    strerror(e));
	}
	close(fd);
	if (access(KDIR "/run", W_OK))
		tc_cli_fail("tracecost.ko loaded but " KDIR " is missing");
}

static void configure(const struct kopts *o, const int *cpus, int nr_cpus, int pair_event)
{
	char buf[1024];
	size_t off = 0;
	int i, err;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->samples);
	err = kwrite("samples", buf);
	if (!err) {
		snprintf(buf, sizeof(buf), "%u", o->highest);
		err = kwrite("highest", buf);
	}
	if (!err)
		err = kwrite("do_work", o->do_work ? "1" : "0");
	if (!err)
		err = kwrite("pair_event", pair_event ? "1" : "0");
	if (!err) {
		buf[0] = 0;
		for (i = 0; i < o->npairs; i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "," : "",
						kpair_names[o->pairs[i]]);
		err = kwrite("pairs", buf);
	}
	if (!err) {
		tc_cli_format_cpus(cpus, nr_cpus, buf, sizeof(buf));
		err = kwrite("cpus", buf);
	}
	if (err)
		tc_cli_fail("configuring the module: %s", strerror(-err));
}

/* ---- results ------------------------------------------------------------ */

/*
 * Read one run's results file (lib/kmod_results.c) into snapshot slot
 * [rep * nr_cpus + cpu_index] of the cells of column @col. Every selected
 * CPU x pair must be present.
 */
static void parse_results(char *text, const struct kopts *o, const int *cpus, int nr_cpus,
			  int pair_event, struct tc_cell *cells, uint64_t *resched, int col,
			  int rep, struct tc_kmod_counter *kc)
{
	struct tc_kmod_run_config c = {
		.samples = o->samples, .highest = o->highest, .do_work = o->do_work,
		.pair_event = pair_event, .pairs = o->pairs, .nr_pairs = o->npairs,
		.cpus = cpus, .nr_cpus = nr_cpus,
	};
	struct tc_snapshot **snap = calloc((size_t)(o->npairs * nr_cpus), sizeof(*snap));
	char cpu_list[1024], err[4096];
	int pi, ci;

	if (!snap)
		tc_cli_fail("out of memory");
	tc_cli_format_cpus(cpus, nr_cpus, cpu_list, sizeof(cpu_list));
	c.cpu_list = cpu_list;
	for (pi = 0; pi < o->npairs; pi++)
		for (ci = 0; ci < nr_cpus; ci++)
			snap[pi * nr_cpus + ci] =
				&cells[col * o->npairs + pi].snap[rep * nr_cpus + ci];
	if (tc_kmod_results_parse(text, &c, rep, snap, resched ? resched + col * o->npairs : NULL,
				  kc, err, sizeof(err)))
		tc_cli_fail("%s", err);
	free(snap);
}

static void run_once(const struct kopts *o, const int *cpus, int nr_cpus, int pair_event,
		     struct tc_cell *cells, uint64_t *resched, int col, int rep,
		     struct tc_kmod_counter *kc)
{
	struct timespec req = { .tv_sec = 0, .tv_nsec = 20 * 1000 * 1000 };
	char *text;
	int err;

	err = kwrite("run", "1");
	if (err == -EBUSY)
		tc_cli_fail("tracecost.ko is busy with another run");
	if (err)
		tc_cli_fail("starting a run: %s", strerror(-err));
	for (;;) {
		char *st = kread("status");

		if (!st)
			tc_cli_fail("reading " KDIR "/status: %s", strerror(errno));
		if (strncmp(st, "running", 7)) {
			free(st);
			break;
		}
		free(st);
		if (tc_cli_stop) {
			kwrite("run", "0");
			while ((st = kread("status")) && !strncmp(st, "running", 7)) {
				free(st);
				nanosleep(&req, NULL);
			}
			free(st);
			return;
		}
		nanosleep(&req, NULL);
	}
	text = kread("results");
	if (!text)
		tc_cli_fail("reading " KDIR "/results: %s", strerror(errno));
	parse_results(text, o, cpus, nr_cpus, pair_event, cells, resched, col, rep, kc);
	free(text);
}

/* ---- tracepoints -------------------------------------------------------- */

/*
 * The events of a "+" column, through the shared tracefs module (lib/
 * tracefs.c: private instance, state file, restore by the supervising
 * parent): the kernel's preemptirq events when it has them (the built-in
 * "preemptirq" profile), else the module's own tracecost:pair.
 */
static void choose_profile(struct tc_tracefs *t, struct tc_profile *p, char *desc, size_t len,
			   int *stand_in)
{
	int err, i;
	size_t off = 0;

	*stand_in = 0;
	if (!tc_profile_builtin("preemptirq", p) && !tc_profile_check(t, p) && p->available)
		goto done;
	*stand_in = 1;
	tc_profile_release(p);
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "tracecost-pair");
	err = tc_profile_add_event(p, "tracecost", "pair", NULL);
	if (!err)
		err = tc_profile_check(t, p);
	if (err || !p->available)
		tc_cli_fail("cannot enable tracecost:pair: %s", err ? tc_tracefs_error(t) : p->reason);
done:
	desc[0] = 0;
	for (i = 0; i < p->nr_events && off < len; i++)
		off += (size_t)snprintf(desc + off, len - off, "%s%s:%s", i ? "," : "",
					p->events[i].system, p->events[i].name);
}

struct kctx {
	struct kopts o;
	struct tc_sysinfo si;
	struct tc_tracefs *t;		/* the session: lock, state file, instance */
	const char *ko;			/* module to load, NULL if loaded */
	struct tc_profile prof;
	int stand_in;			/* "+pair": tracecost:pair inside the pairs */
	char events_str[256];
};

static int kernel_measure(void *arg);

int suite_kernel_run(int argc, char **argv)
{
	static struct kctx k;
	int err;

	parse(argc, argv, &k.o);
	tc_sysinfo_read(&k.si);
	if (geteuid() != 0)
		tc_cli_fail("the kernel suite needs root (debugfs and loading tracecost.ko)");
	err = tc_tracefs_open(&k.t, NULL);
	if (err)
		tc_cli_fail("tracefs: %s", tc_tracefs_error(k.t));
	debugfs_reach();
	k.ko = module_to_load(&k.o);
	/* one run at a time, the module's changes recorded and undone */
	return tc_cli_run_supervised(k.t, kernel_measure, &k);
}

/*
 * One run of the suite, in the supervised child: its columns, the cells
 * they fill, what the tracefs instance recorded, and the figures.
 */
struct kmeasure {
	const char *cols[2];
	int tp_col[2];			/* column has the tracefs instance */
	int ncols;
	char col_off[80], col_on[80];
	const char *events;		/* the "+" column's events, NULL if none */
	int nr_snap;			/* snapshots per cell: repetitions x CPUs */
	int npc;			/* cells: columns x pairs */
	struct tc_cell *cells;		/* [col * npairs + pair] */
	struct tc_cell *cells1;		/* the same from the one-CPU run */
	uint64_t *resched;		/* [col * npairs + pair] */
	uint64_t recorded[2], lost[2];	/* events, per column */
	struct timespec start, end;
	struct tc_kmod_counter kc;
	struct tc_clock_info ci;
	struct tc_stats *st, *st1;
	struct tc_pair_view v;
};

/* Columns "<release>" and "<release>+" as --tracepoints asks, their profile. */
static void measure_columns(struct kctx *k, struct kmeasure *m)
{
	const struct kopts *o = &k->o;

	if (o->tp_mode != TP_OFF) {
		choose_profile(k->t, &k->prof, k->events_str, sizeof(k->events_str),
			       &k->stand_in);
		m->events = k->events_str;
	}
	snprintf(m->col_off, sizeof(m->col_off), "%s", k->si.release);
	snprintf(m->col_on, sizeof(m->col_on), "%s+%s", k->si.release, k->stand_in ? "pair" : "");
	m->ncols = 0;
	if (o->tp_mode != TP_ON) {
		m->tp_col[m->ncols] = 0;
		m->cols[m->ncols++] = m->col_off;
	}
	if (o->tp_mode != TP_OFF) {
		m->tp_col[m->ncols] = 1;
		m->cols[m->ncols++] = m->col_on;
	}
}

static void measure_alloc(const struct kopts *o, struct kmeasure *m)
{
	m->nr_snap = (int)o->repeat * o->nr_cpus;
	m->npc = m->ncols * o->npairs;
	m->cells = tc_cells_alloc(m->npc, m->nr_snap, o->highest);
	m->cells1 = tc_cells_alloc(m->npc, 1, o->highest);
	m->resched = calloc((size_t)m->npc, sizeof(*m->resched));
	if (!m->cells || !m->cells1 || !m->resched)
		tc_cli_fail("out of memory");
}

/*
 * One column of round @r: configure the module, enable the column's events,
 * run, count the events and remove the instance. @one: the one-CPU run of
 * the percentile row (no resched, no event counts).
 */
static void measure_column(struct kctx *k, struct kmeasure *m, int col, int r, int one)
{
	const struct kopts *o = &k->o;
	int nr_cpus = one ? 1 : o->nr_cpus;
	int pev = m->tp_col[col] && k->stand_in;
	int err;

	configure(o, o->cpus, nr_cpus, pev);
	if (m->tp_col[col]) {
		err = tc_tracefs_apply(k->t, &k->prof);
		if (err)
			tc_cli_fail("enabling %s in a private tracefs instance: %s",
				    k->events_str, tc_tracefs_error(k->t));
	}
	run_once(o, o->cpus, nr_cpus, pev, one ? m->cells1 : m->cells, one ? NULL : m->resched,
		 col, one ? 0 : r, &m->kc);
	if (m->tp_col[col]) {
		struct tc_trace_counts c = { 0 };

		err = tc_tracefs_count(k->t, NULL, 0, &c);
		if (!err && !one) {
			m->recorded[col] += c.written;
			m->lost[col] += c.lost;
		}
		err = tc_tracefs_unapply(k->t);
		if (err)
			tc_cli_fail("removing the tracefs instance: %s", tc_tracefs_error(k->t));
	}
}

/* Every repetition, then the one-CPU run; stops early on a signal. */
static void measure_run(struct kctx *k, struct kmeasure *m)
{
	int r, col, err;

	err = tc_tracefs_record_kmod(k->t, TC_KMOD_RECORD_RUN);
	if (err)
		tc_cli_fail("%s", tc_tracefs_error(k->t));
	clock_gettime(CLOCK_REALTIME, &m->start);
	for (r = 0; r < (int)k->o.repeat + 1 && !tc_cli_stop; r++) {
		/* the last round is the separate one-CPU run of the percentile row */
		int one = r == (int)k->o.repeat;

		for (col = 0; col < m->ncols && !tc_cli_stop; col++)
			measure_column(k, m, col, r, one);
	}
	clock_gettime(CLOCK_REALTIME, &m->end);
}

/* Merge the snapshots and compute every cell's statistics. */
static void measure_stats(const struct kopts *o, struct kmeasure *m)
{
	int i;

	tc_cells_merge(m->cells, m->npc, m->nr_snap);
	tc_cells_merge(m->cells1, m->npc, 1);
	m->st = calloc((size_t)m->npc, sizeof(*m->st));
	m->st1 = calloc((size_t)m->npc, sizeof(*m->st1));
	if (!m->st || !m->st1)
		tc_cli_fail("out of memory");
	for (i = 0; i < m->npc; i++)
		if (tc_stats_compute(&m->st[i], m->cells[i].hist, m->cells[i].top, o->percentile) ||
		    tc_stats_compute(&m->st1[i], m->cells1[i].hist, m->cells1[i].top,
				     o->percentile))
			tc_cli_fail("tracecost.ko returned a cell without samples");
}

/* The clock of the results: the module's counter and where its rate comes from. */
static void measure_clock(struct kmeasure *m)
{
	const char *name = m->kc.name;

	m->ci.name = name;
	m->ci.freq_hz = (double)m->kc.khz * 1000.0;
	m->ci.constant_rate = 1;
	snprintf(m->ci.source, sizeof(m->ci.source), "%s",
		 !strncmp(name, "tsc", 3) ? "the kernel's calibration (tsc_khz)" :
		 !strncmp(name, "pmccntr", 7) ? "the module's counter_khz (QEMU's 1 GHz PMU clock)" :
		 !strncmp(name, "instret", 7) ? "the module's counter_khz (QEMU -icount: 1 GHz)" :
		 !strncmp(name, "time", 4) ? "the module's counter_khz (riscv_timebase)" :
		 "the module's counter_khz (cntfrq_el0 on arm64)");
}

/* What the tables and the JSON "pairs" show. */
static void measure_view(const struct kopts *o, struct kmeasure *m)
{
	static const char *names[TC_NR_KPAIRS], *titles[TC_NR_KPAIRS];
	int i;

	for (i = 0; i < o->npairs; i++) {
		names[i] = kpair_names[o->pairs[i]];
		titles[i] = kpair_titles[o->pairs[i]];
	}
	m->v = (struct tc_pair_view){
		.ncols = m->ncols, .cols = m->cols, .npairs = o->npairs, .pair_names = names,
		.pair_titles = titles, .cells = m->cells, .nr_snap = m->nr_snap, .st = m->st,
		.st1 = m->st1, .percentile = o->percentile, .batch = 1,
		.unit_ticks = o->unit_ticks, .freq_hz = m->ci.freq_hz, .format = o->format,
	};
}

/* The lines above the tables: the machine, the counter, the run. */
static void print_header(const struct kctx *k, const struct kmeasure *m)
{
	const struct kopts *o = &k->o;
	const struct tc_sysinfo *si = &k->si;
	char cpus_str[256];
	uint64_t nres = 0;
	int i;

	tc_cli_format_cpus(o->cpus, o->nr_cpus, cpus_str, sizeof(cpus_str));
	printf("tracecost %s (git %s), suite kernel\n", TC_VERSION, TC_GIT_SHA);
	printf("cpu:          %s, %d online; sampled on CPU %s\n", si->cpu_model,
	       si->cpus_online, cpus_str);
	printf("kernel:       %s %s %s\n", si->release, si->version, si->machine);
	printf("cmdline:      %s\n", si->cmdline);
	printf("clocksource:  %s; preemption: %s\n", si->clocksource, si->preemption);
	printf("counter:      %s, %.3f MHz (%s)\n", m->kc.name, m->ci.freq_hz / 1e6, m->ci.source);
	printf("samples:      %llu per pair x CPU x repetition, %u repetition%s, highest %u,"
	       " do_work %s; %g percentile (1 CPU) from a run on CPU %d\n",
	       (unsigned long long)o->samples, o->repeat, o->repeat > 1 ? "s" : "",
	       o->highest, o->do_work ? "on" : "off", o->percentile, o->cpus[0]);
	if (m->events && !k->stand_in)
		printf("tracepoints:  %s in a private tracefs instance (\"+\" column): %llu"
		       " events recorded, %llu lost\n", k->events_str,
		       (unsigned long long)m->recorded[m->ncols - 1],
		       (unsigned long long)m->lost[m->ncols - 1]);
	else if (m->events)
		printf("tracepoints:  this kernel has no preemptirq events; stand-in column"
		       " \"+pair\": the module's %s fired inside each pair, in a private"
		       " tracefs instance: %llu events recorded, %llu lost\n", k->events_str,
		       (unsigned long long)m->recorded[m->ncols - 1],
		       (unsigned long long)m->lost[m->ncols - 1]);
	for (i = 0; i < m->npc; i++)
		nres += m->resched[i];
	if (nres)
		printf("resched:      %llu samples ended with a reschedule pending"
		       " (cleared before each timed loop; without full preemption"
		       " preempt_enable() takes its slow branch in them)\n",
		       (unsigned long long)nres);
	printf("unit:         %s\n\n", o->unit_ticks ? "counter ticks" : "ns");
}

/* The "kernel" section of the result file (doc/result-format.md). */
static json_t *kernel_json(const struct kctx *k, const struct kmeasure *m)
{
	const struct kopts *o = &k->o;
	json_t *cfgs = json_array(), *ks, *rs;
	int i, col;

	for (col = 0; col < m->ncols; col++)
		json_array_append_new(cfgs, json_pack("{s:s, s:b, s:I, s:I}",
			"name", m->cols[col], "tracepoints", m->tp_col[col],
			"events_recorded", (json_int_t)m->recorded[col],
			"events_lost", (json_int_t)m->lost[col]));
	ks = json_pack("{s:I, s:i, s:f, s:i, s:b, s:s, s:s, s:i, s:i, s:i, s:i, s:s,"
		      " s:o, s:o}",
		      "samples", (json_int_t)o->samples, "highest", o->highest,
		      "percentile", o->percentile, "repeat", o->repeat,
		      "do_work", o->do_work, "tracepoints", o->tp_mode == TP_OFF ? "off" :
		      o->tp_mode == TP_ON ? "on" : "both",
		      "events", k->events_str, "block", TC_KMOD_BLOCK,
		      "calibration_samples", TC_KMOD_CALIB,
		      "hist_layout", TC_HIST_LAYOUT_VERSION, "cpu_1cpu", o->cpus[0],
		      "stats_unit", "ticks per pair",
		      "configurations", cfgs, "pairs", tc_pair_report_json(&m->v));
	if (!ks)
		return NULL;
	json_object_set_new(ks, "batch", json_integer(1));
	json_object_set_new(ks, "pair_event_column", json_boolean(k->stand_in &&
								  o->tp_mode != TP_OFF));
	rs = json_object();
	for (i = 0; i < o->npairs; i++) {
		json_t *a = json_array();

		for (col = 0; col < m->ncols; col++)
			json_array_append_new(a, json_integer((json_int_t)
				m->resched[col * o->npairs + i]));
		json_object_set_new(rs, kpair_names[o->pairs[i]], a);
	}
	json_object_set_new(ks, "resched_samples", rs);
	return ks;
}

/* The result's object: the common header and the "kernel" section. */
static json_t *result_json(const struct kctx *k, const struct kmeasure *m)
{
	const struct kopts *o = &k->o;
	struct tc_result_header h = {
		.suite = "kernel", .argc = tc_cli_argc, .argv = tc_cli_argv,
		.start = m->start, .end = m->end, .si = &k->si, .clock = &m->ci,
		.cpus = o->cpus, .nr_cpus = o->nr_cpus,
	};
	json_t *root = tc_result_new(&h), *ks = kernel_json(k, m);

	if (!root || !ks)
		tc_cli_fail("out of memory");
	json_object_set_new(root, "kernel", ks);
	return root;
}

static void measure_free(struct kctx *k, struct kmeasure *m)
{
	tc_cells_free(m->cells, m->npc, m->nr_snap);
	tc_cells_free(m->cells1, m->npc, 1);
	free(m->st);
	free(m->st1);
	free(m->resched);
	free(k->o.cpus);
	tc_profile_release(&k->prof);
}

static int kernel_measure(void *arg)
{
	struct kctx *k = arg;
	struct kmeasure m = { .kc = { .name = "unknown" } };
	json_t *root;
	int ret;

	tc_cli_catch_signals();
	/*
	 * Until the result file is written, a signal ends this process at once
	 * (its supervisor cancels the module's run, removes the instance and
	 * unloads what was loaded: all recorded before it was done): loading
	 * the module, reading and parsing a run's results, removing an
	 * instance (RCU grace periods), the statistics and the tables each
	 * take up to seconds under TCG, and there is nothing to lose.
	 */
	tc_cli_signals_at_once(true);
	load_module(k->t, k->ko);
	measure_columns(k, &m);
	measure_alloc(&k->o, &m);
	measure_run(k, &m);
	if (tc_cli_stop)
		return tc_cli_interrupted();
	measure_stats(&k->o, &m);
	measure_clock(&m);
	measure_view(&k->o, &m);
	root = result_json(k, &m);
	print_header(k, &m);
	/* compare's tables, as run --runs N prints them */
	fflush(stdout);
	ret = tc_cli_compare_json(root, k->o.json && strcmp(k->o.json, "-") ? k->o.json : "this run",
				  tc_cli_format_name(k->o.format), k->o.unit_ticks);
	/* the file whole or not at all (written to a temporary file, renamed) */
	tc_cli_signals_at_once(false);
	if (!ret && k->o.json && tc_cli_stop) {
		json_decref(root);
		measure_free(k, &m);
		return tc_cli_interrupted();
	}
	if (!ret && k->o.json) {
		ret = tc_result_write(root, k->o.json);
		if (ret)
			tc_cli_fail("--json %s: %s", k->o.json, strerror(-ret));
	}
	json_decref(root);
	measure_free(k, &m);
	return ret;
}
