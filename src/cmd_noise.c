// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_noise.c - "tracecost noise": what interrupts the target (isolated)
 * CPUs while the housekeeping CPUs are loaded, and what a syscall costs on
 * the targets meanwhile.
 *
 * The IPI-deferral series (context_tracking,x86: Defer some IPIs until a
 * user->kernel transition) was judged on two figures taken with trace-cmd,
 * rteval and sort | uniq -c: IPIs reaching the nohz_full CPUs while rteval
 * loads the housekeeping ones, and the cost of 10M getpid calls there. This
 * command gives both: lib/noise.c records and groups the events, this file
 * runs the loops on the targets, the load on the housekeeping CPUs, and
 * prints and writes the result.
 *
 * Processes, as in the system suite: this process validates everything
 * (exit 2 before any change), takes the lock and the state file, forks; the
 * child measures; this process restores tracefs however the child ends
 * (tc_cli_run_supervised). The load runs in its own process group (killed
 * at the end) or as threads of the child (--load tlb).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <jansson.h>

#include <tracecost/clock.h>
#include <tracecost/noise.h>
#include <tracecost/result.h>
#include <tracecost/sysinfo.h>
#include <tracecost/tracefs.h>
#include <tracecost/workload.h>

#include "cli.h"

#define MAX_TARGETS		64
#define BATCH_CALLS		1000ull		/* getpid calls between clock reads */
#define CHUNK_NS		10000000ull	/* a getpid chunk lasts at least 10 ms */
#define MAX_CHUNKS		10000		/* tc_summary_compute()'s limit */
#define SPIN_GAP_NS		5000.0
#define TLB_PERIOD_US		1000

enum measure { M_GETPID, M_SPIN };
enum load { L_BUILTIN, L_TLB, L_NONE, L_COMMAND };

static const char *const measure_names[] = { "getpid", "spin" };
static const char *const load_names[] = { "builtin", "tlb", "none", "command" };

struct noise_opts {
	int *cpus;
	int nr_cpus;
	int *hk;
	int nr_hk;
	double duration;		/* seconds */
	enum measure measure;
	enum load load;
	bool load_given;
	const char *events;
	const char *json;
	char **cmd;			/* -- LOAD COMMAND ... */
};

/* One target CPU's loop. */
struct loop {
	pthread_t th;
	int cpu;
	pid_t tid;
	int pinned;			/* on its target CPU, waiting for go */
	enum measure kind;
	/* getpid: ns per call of each chunk; folded in pairs at MAX_CHUNKS */
	double *chunk;
	int nr_chunk;
	uint64_t chunk_ns;
	uint64_t calls;
	uint64_t ns;
	/* spin */
	uint64_t loops;
	uint64_t gaps;
	uint64_t max_gap;		/* ticks */
	int err;
};

/*
 * The tool's own footprint on the targets: per-CPU rows of /proc/interrupts
 * (CAL, TLB, RES, LOC, each device irq) read before the set-up, at the
 * window's start and end, and after the tear-down, so that the report says
 * what tracecost itself caused outside its window (enabling and disabling
 * events patches kernel text: function-call IPIs to every CPU).
 */
#define FP_MAX_ROWS		160
enum { FP_BEFORE, FP_START, FP_END, FP_AFTER, FP_NR };
static const char *const fp_phase[] = { "setup", "window", "teardown" };

struct footprint {
	int nr_rows;
	char name[FP_MAX_ROWS][16];
	bool ok[FP_NR];
	uint64_t v[FP_NR][MAX_TARGETS][FP_MAX_ROWS];
};

struct noise_run {
	struct noise_opts o;
	struct footprint fp;
	struct tc_tracefs *t;
	struct tc_noise *n;
	struct loop loops[MAX_TARGETS];
	char iso[MAX_TARGETS][128];
	bool isolated[MAX_TARGETS];
	struct tc_clock_info clk;
	struct tc_sysinfo si;
	struct timespec start, end;
	uint64_t t0_ns, t1_ns;		/* CLOCK_MONOTONIC of tracing on, off */
	char engine[1024];		/* what the load ran */
	pid_t load_pgid[4];
	int nr_load;
	int load_status;		/* exit status of an early-ending command, -1 */
	pthread_t tlb_th[MAX_TARGETS];
	int nr_tlb;
};

/*
 * pin_go: the loop threads move to their targets (after the set-up); go: the
 * window starts; halt: it ends.
 */
static atomic_int pin_go, go, halt;

/*
 * /proc/interrupts, the target CPUs' columns, into phase @ph of @fp. A row is
 * named by its label ("CAL", "24"); rows past FP_MAX_ROWS are left out (the
 * footprint then misses them, it never mixes them up).
 */
static void fp_read(struct footprint *fp, int ph, const int *cpus, int nr)
{
	char *line = NULL, *p, *end;
	size_t cap = 0;
	int col[4096], cols = 0, i, c, r;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return;
	if (getline(&line, &cap, f) > 0)
		for (p = line; (p = strstr(p, "CPU")) && cols < 4096; p += 3)
			col[cols++] = atoi(p + 3);
	while (getline(&line, &cap, f) > 0) {
		char name[16];

		p = strchr(line, ':');
		if (!p)
			continue;
		*p++ = 0;
		snprintf(name, sizeof(name), "%s", line + strspn(line, " "));
		for (r = 0; r < fp->nr_rows && strcmp(fp->name[r], name); r++)
			;
		if (r == fp->nr_rows) {
			if (r == FP_MAX_ROWS)
				continue;
			snprintf(fp->name[fp->nr_rows++], sizeof(fp->name[0]), "%s", name);
		}
		for (c = 0; c < cols; c++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			p = end;
			for (i = 0; i < nr; i++)
				if (cpus[i] == col[c])
					fp->v[ph][i][r] = v;
		}
	}
	free(line);
	fclose(f);
	fp->ok[ph] = true;
}

/* Interrupts of row @r on target @t between phases @a and @b (0 if unknown). */
static uint64_t fp_delta(const struct footprint *fp, int a, int b, int t, int r)
{
	if (!fp->ok[a] || !fp->ok[b] || fp->v[b][t][r] < fp->v[a][t][r])
		return 0;
	return fp->v[b][t][r] - fp->v[a][t][r];
}

enum { OPT_CPUS = 256, OPT_HK, OPT_DURATION, OPT_MEASURE, OPT_LOAD, OPT_EVENTS, OPT_JSON,
	OPT_HELP };

static const struct option long_opts[] = {
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "housekeeping", required_argument, NULL, OPT_HK },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "measure", required_argument, NULL, OPT_MEASURE },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost noise --cpus LIST [--housekeeping LIST] [--duration TIME]\n"
	       "                       [--measure getpid|spin] [--load builtin|tlb|none]\n"
	       "                       [--events LIST] [--json FILE] [-- LOAD COMMAND ...]\n\n"
	       "  --cpus LIST          target CPUs (e.g. the nohz_full ones): what interrupts\n"
	       "                       them is recorded, filtered in the kernel to them\n"
	       "  --housekeeping LIST  CPUs the load runs on (default: every online CPU not\n"
	       "                       in --cpus and not isolated; if none, not in --cpus)\n"
	       "  --duration TIME      how long: 10s, 5m, 6h, 500ms (default 60s)\n"
	       "  --measure KIND       loop on each target: getpid (ns per call, calls/s;\n"
	       "                       default) or spin (stays in userspace; gaps >= 5 us)\n"
	       "  --load KIND          builtin: hackbench-style messaging plus fork/exec/mmap\n"
	       "                       churn (stress-ng when installed), rteval's kind of load;\n"
	       "                       tlb: threads of this process on the housekeeping CPUs\n"
	       "                       zap a page every ms (TLB shootdown IPIs to the targets);\n"
	       "                       none (default: builtin, or the command after --)\n"
	       "  --events LIST        more events, SYSTEM:EVENT,..., recorded on the targets\n"
	       "  --json FILE          write the result file (doc/result-noise.md)\n"
	       "  -- COMMAND ...       run COMMAND on the housekeeping CPUs as the load\n\n"
	       "Needs root (tracefs). Tracing settings are restored on every exit path.\n");
}

static bool in_list(const int *l, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (l[i] == cpu)
			return true;
	return false;
}

static bool in_path(const char *name);

static void parse(int argc, char **argv, struct noise_opts *o)
{
	char a[256], b[256];
	int c, i, *all, nr_all;

	memset(o, 0, sizeof(*o));
	o->duration = 60;
	o->measure = M_GETPID;
	o->load = L_BUILTIN;
	opterr = 0;
	optind = 1;
	/* "+": options end at "--" or the first non-option (the load command) */
	while ((c = getopt_long(argc, argv, "+:", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CPUS:
			free(o->cpus);
			o->nr_cpus = tc_cli_parse_cpus("--cpus", optarg, &o->cpus);
			break;
		case OPT_HK:
			free(o->hk);
			o->nr_hk = tc_cli_parse_cpus("--housekeeping", optarg, &o->hk);
			break;
		case OPT_DURATION:
			o->duration = tc_cli_parse_duration("--duration", optarg, 0.1, 7 * 86400);
			break;
		case OPT_MEASURE:
			for (i = 0; i < 2 && strcmp(optarg, measure_names[i]); i++)
				;
			if (i == 2)
				tc_cli_usage("--measure: '%s' is not getpid or spin", optarg);
			o->measure = (enum measure)i;
			break;
		case OPT_LOAD:
			for (i = 0; i < 3 && strcmp(optarg, load_names[i]); i++)
				;
			if (i == 3)
				tc_cli_usage("--load: '%s' is not builtin, tlb or none (a command "
					     "goes after --)", optarg);
			o->load = (enum load)i;
			o->load_given = true;
			break;
		case OPT_EVENTS:
			o->events = optarg;
			break;
		case OPT_JSON:
			tc_cli_check_output("--json", optarg);
			o->json = optarg;
			break;
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost noise --help");
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--"))
			tc_cli_usage("unexpected argument '%s' (a load command goes after --)",
				     argv[optind]);
		if (o->load_given)
			tc_cli_usage("--load %s and a load command after -- exclude each other",
				     load_names[o->load]);
		o->cmd = &argv[optind];
		o->load = L_COMMAND;
		if (!*o->cmd[0] || !in_path(o->cmd[0]))
			tc_cli_usage("load command '%s' is not found or not executable", o->cmd[0]);
	} else if (!strcmp(argv[optind - 1], "--") && optind > 1) {
		tc_cli_usage("nothing after --: give a load command, or drop the --");
	}
	if (!o->cpus)
		tc_cli_usage("--cpus: missing: name the target CPUs (e.g. --cpus 1)");
	if (o->nr_cpus > MAX_TARGETS)
		tc_cli_usage("--cpus: more than %d target CPUs", MAX_TARGETS);
	nr_all = tc_cli_all_cpus(&all);
	if (o->hk) {
		for (i = 0; i < o->nr_hk; i++)
			if (in_list(o->cpus, o->nr_cpus, o->hk[i]))
				tc_cli_usage("--housekeeping: CPU %d is also in --cpus: the two "
					     "lists must not overlap", o->hk[i]);
	} else {
		o->hk = malloc(sizeof(int) * (size_t)(nr_all ? nr_all : 1));
		if (!o->hk)
			tc_cli_fail("out of memory");
		/* not the targets, and not another isolated CPU when any is left */
		for (i = 0; i < nr_all; i++)
			if (!in_list(o->cpus, o->nr_cpus, all[i]) &&
			    !tc_noise_cpu_isolation(all[i], a, sizeof(a)))
				o->hk[o->nr_hk++] = all[i];
		for (i = 0; i < nr_all && !o->nr_hk; i++)
			if (!in_list(o->cpus, o->nr_cpus, all[i]))
				o->hk[o->nr_hk++] = all[i];
		if (!o->nr_hk) {
			tc_cli_format_cpus(o->cpus, o->nr_cpus, a, sizeof(a));
			tc_cli_format_cpus(all, nr_all, b, sizeof(b));
			tc_cli_usage("--cpus %s takes every online CPU (%s): no housekeeping CPU "
				     "left for the load and the tracing", a, b);
		}
	}
	free(all);
}

/* ---- loops on the targets ------------------------------------------------ */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void add_chunk(struct loop *l, double v)
{
	int i;

	if (l->nr_chunk == MAX_CHUNKS) {
		/*
		 * fold adjacent pairs into chunks of twice the time: the mean of
		 * two time-boxed chunks' ns per call (equal weights: their
		 * lengths differ by at most one batch)
		 */
		for (i = 0; i < MAX_CHUNKS / 2; i++)
			l->chunk[i] = (l->chunk[2 * i] + l->chunk[2 * i + 1]) / 2;
		l->nr_chunk = MAX_CHUNKS / 2;
		l->chunk_ns *= 2;
	}
	l->chunk[l->nr_chunk++] = v;
}

static void *loop_main(void *arg)
{
	struct loop *l = arg;

	/*
	 * Created on the housekeeping CPUs (the measuring thread's affinity):
	 * no work on the targets, and this process's mm not on them, while
	 * the events are set up (each allocation freed there would send them
	 * a TLB flush); on a target only once everything is armed.
	 */
	__atomic_store_n(&l->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!atomic_load_explicit(&pin_go, memory_order_acquire)) {
		if (atomic_load_explicit(&halt, memory_order_relaxed))
			return NULL;
		usleep(1000);
	}
	pin(l->cpu);
	if (sched_getcpu() != l->cpu)
		l->err = -EINVAL;
	__atomic_store_n(&l->pinned, 1, __ATOMIC_RELEASE);
	while (!atomic_load_explicit(&go, memory_order_acquire))
		if (atomic_load_explicit(&halt, memory_order_relaxed))
			return NULL;
	if (l->kind == M_GETPID) {
		/*
		 * the seed's loop, syscall(SYS_getpid), timed per chunk of at
		 * least CHUNK_NS in batches of BATCH_CALLS (one clock read per
		 * batch): many chunks even where a call takes microseconds (TCG)
		 */
		uint64_t c_calls = 0, c_ns = 0;

		while (!atomic_load_explicit(&halt, memory_order_relaxed)) {
			uint64_t t0 = now_ns(), t1, i;

			for (i = 0; i < BATCH_CALLS; i++)
				syscall(SYS_getpid);
			t1 = now_ns();
			l->calls += BATCH_CALLS;
			l->ns += t1 - t0;
			c_calls += BATCH_CALLS;
			c_ns += t1 - t0;
			if (c_ns >= l->chunk_ns) {
				add_chunk(l, (double)c_ns / (double)c_calls);
				c_calls = 0;
				c_ns = 0;
			}
		}
	} else {
		/* stays in userspace: counter reads, no call into the kernel */
		uint64_t prev = tc_clock_read_fast(), thr = l->max_gap, loops = 0;

		l->max_gap = 0;
		while (!atomic_load_explicit(&halt, memory_order_relaxed)) {
			uint64_t now = tc_clock_read_fast(), d = now - prev;

			if (d >= thr) {
				l->gaps++;
				if (d > l->max_gap)
					l->max_gap = d;
			}
			prev = now;
			loops++;
		}
		l->loops = loops;
	}
	return NULL;
}

/* ---- loads on the housekeeping CPUs -------------------------------------- */

static void set_hk_affinity(const struct noise_opts *o)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < o->nr_hk; i++)
		CPU_SET(o->hk[i], &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static volatile sig_atomic_t load_stop;

static void on_load_term(int sig)
{
	(void)sig;
	load_stop = 1;
}

/* Fork a load process in its own group; the child runs @fn or execs @argv. */
static pid_t spawn(struct noise_run *d, int (*fn)(struct noise_run *), char *const *argv)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_load_term };

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		set_hk_affinity(&d->o);
		signal(SIGINT, SIG_IGN);	/* the measuring process decides */
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_DFL);
		if (argv) {
			/* the report owns stdout: the command's output goes to stderr */
			dup2(STDERR_FILENO, STDOUT_FILENO);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			execvp(argv[0], argv);
			fprintf(stderr, "tracecost: load command '%s': %s\n", argv[0],
				strerror(errno));
			_exit(127);
		}
		sigaction(SIGTERM, &sa, NULL);
		_exit(fn(d));
	}
	setpgid(pid, pid);
	d->load_pgid[d->nr_load++] = pid;
	return pid;
}

/* hackbench (workloads/hackbench.c) over and over until SIGTERM */
static int hackbench_load(struct noise_run *d)
{
	const struct tc_workload *w = tc_workload_find("hackbench");
	struct tc_wl_opts o;
	struct tc_wl_ctx ctx;
	struct tc_wl_sample s;

	if (!w)
		return 1;
	tc_workload_opts_init(&o);
	o.cpus = d->o.hk;
	o.nr_cpus = d->o.nr_hk;
	o.groups = (unsigned int)(d->o.nr_hk > 1 ? d->o.nr_hk : 2);
	o.fds = 4;
	o.loops = 200;
	o.stop = &load_stop;
	memset(&ctx, 0, sizeof(ctx));
	if (tc_workload_setup(&ctx, w, &o))
		return 1;
	while (!load_stop)
		if (tc_workload_run(&ctx, &s) && !load_stop)
			break;
	tc_workload_teardown(&ctx);
	return 0;
}

/* Without stress-ng: fork/exec and fault-in churn, one process per housekeeping CPU. */
static int churn_load(struct noise_run *d)
{
	int i;

	for (i = 1; i < d->o.nr_hk; i++)
		if (fork() == 0)
			break;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!load_stop) {
		pid_t pid = fork();

		if (pid == 0) {
			size_t len = 8u << 20;
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p != MAP_FAILED) {
				memset(p, 1, len);
				munmap(p, len);
			}
			execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

/* Whether @name runs: a path that is executable, or found in $PATH. */
static bool in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save, buf[4096];
	bool found = false;

	if (strchr(name, '/'))
		return !access(name, X_OK);
	if (!path || !*path)
		path = "/usr/bin:/bin";
	copy = strdup(path);
	for (dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, name);
		found = !access(buf, X_OK);
	}
	free(copy);
	return found;
}

/*
 * A thread of this process with SIGINT, SIGTERM and SIGHUP blocked: they
 * reach the main thread, whose sleep they cut short (a loop on a target CPU
 * would run the handler there, and the main thread sleep on).
 */
static int thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t set, old;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	err = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* The TLB load: zap a page of this mm; the loops on the targets share the mm. */
static void *tlb_main(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts = { 0, TLB_PERIOD_US * 1000 };

	if (p == MAP_FAILED)
		return NULL;
	pin(cpu);
	/* the zapping starts with the window, not during the set-up */
	while (!atomic_load_explicit(&go, memory_order_acquire) &&
	       !atomic_load_explicit(&halt, memory_order_relaxed))
		usleep(1000);
	while (!atomic_load_explicit(&halt, memory_order_relaxed)) {
		p[0] = 1;				/* fault the page in */
		madvise(p, 4096, MADV_DONTNEED);	/* zap: flush every CPU of the mm */
		nanosleep(&ts, NULL);
	}
	munmap(p, 4096);
	return NULL;
}

static int start_load(struct noise_run *d)
{
	struct noise_opts *o = &d->o;
	char hk[256];
	int i, err;

	tc_cli_format_cpus(o->hk, o->nr_hk, hk, sizeof(hk));
	switch (o->load) {
	case L_NONE:
		snprintf(d->engine, sizeof(d->engine), "none");
		return 0;
	case L_TLB:
		for (i = 0; i < o->nr_hk && i < MAX_TARGETS; i++) {
			err = thread_start(&d->tlb_th[i], tlb_main, (void *)(intptr_t)o->hk[i]);
			if (err)
				return -err;
			d->nr_tlb++;
		}
		snprintf(d->engine, sizeof(d->engine), "tlb: one thread per housekeeping CPU "
			 "(%s) zaps a page of this process every %d us (madvise MADV_DONTNEED)",
			 hk, TLB_PERIOD_US);
		return 0;
	case L_COMMAND: {
		size_t off = 0;

		if (spawn(d, NULL, o->cmd) < 0)
			return -errno;
		off += (size_t)snprintf(d->engine, sizeof(d->engine), "command on CPU %s:", hk);
		for (i = 0; o->cmd[i] && off < sizeof(d->engine); i++)
			off += (size_t)snprintf(d->engine + off, sizeof(d->engine) - off, " %s",
						o->cmd[i]);
		return 0;
	}
	case L_BUILTIN:
		break;
	}
	if (spawn(d, hackbench_load, NULL) < 0)
		return -errno;
	if (in_path("stress-ng")) {
		static char n[16], vmb[16], tmo[32], *argv[20];
		int k = 0;

		snprintf(n, sizeof(n), "%d", o->nr_hk);
		snprintf(vmb, sizeof(vmb), "64M");
		/* a safety net if this process is killed: stress-ng's own timeout */
		snprintf(tmo, sizeof(tmo), "%.0fs", o->duration + 60);
		argv[k++] = "stress-ng";
		argv[k++] = "--quiet";
		argv[k++] = "--taskset";
		argv[k++] = hk;
		argv[k++] = "--fork";
		argv[k++] = n;
		argv[k++] = "--exec";
		argv[k++] = n;
		argv[k++] = "--vm";
		argv[k++] = n;
		argv[k++] = "--vm-bytes";
		argv[k++] = vmb;
		argv[k++] = "--timeout";
		argv[k++] = tmo;
		argv[k] = NULL;
		if (spawn(d, NULL, argv) < 0)
			return -errno;
		snprintf(d->engine, sizeof(d->engine), "builtin on CPU %s: hackbench-style "
			 "messaging (%d groups x 4 senders/receivers) + stress-ng --fork %s "
			 "--exec %s --vm %s --vm-bytes 64M", hk, o->nr_hk > 1 ? o->nr_hk : 2,
			 n, n, n);
	} else {
		if (spawn(d, churn_load, NULL) < 0)
			return -errno;
		snprintf(d->engine, sizeof(d->engine), "builtin on CPU %s: hackbench-style "
			 "messaging (%d groups x 4 senders/receivers) + fork/exec/fault-in churn "
			 "(stress-ng not found)", hk, o->nr_hk > 1 ? o->nr_hk : 2);
	}
	return 0;
}

/*
 * Stop the load: SIGTERM, then SIGKILL 5 s later; after a signal to this
 * run, SIGKILL at once (nothing of the load is kept, and a stress-ng under
 * load can take seconds to end its stressors).
 */
static void stop_load(struct noise_run *d)
{
	int i, k;

	for (i = 0; i < d->nr_tlb; i++)
		pthread_join(d->tlb_th[i], NULL);
	d->nr_tlb = 0;
	for (i = 0; i < d->nr_load; i++)
		kill(-d->load_pgid[i], tc_cli_stop ? SIGKILL : SIGTERM);
	for (i = 0; i < d->nr_load; i++) {
		int status;

		for (k = 0; k < 100; k++) {
			pid_t r = waitpid(d->load_pgid[i], &status, WNOHANG);

			if (r == d->load_pgid[i] || (r < 0 && errno == ECHILD))
				break;
			usleep(50000);
		}
		kill(-d->load_pgid[i], SIGKILL);
		if (k == 100)
			waitpid(d->load_pgid[i], &status, 0);
	}
	d->nr_load = 0;
}

/* ---- the run (the measuring child) --------------------------------------- */

static void fmt_rate(char *buf, size_t len, double v)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

static double seconds(const struct noise_run *d)
{
	return (double)(d->t1_ns - d->t0_ns) / 1e9;
}

static double rel_s(const struct noise_run *d, uint64_t ts)
{
	return ts >= d->t0_ns ? (double)(ts - d->t0_ns) / 1e9 : -(double)(d->t0_ns - ts) / 1e9;
}

static void print_loop(const struct noise_run *d, const struct loop *l)
{
	char a[32], b[32];

	if (l->kind == M_GETPID) {
		struct tc_summary s;

		if (!l->calls || tc_summary_compute(l->chunk, l->nr_chunk, &s)) {
			printf("  getpid: %llu calls, no complete chunk of %.0f ms\n",
			       (unsigned long long)l->calls, (double)l->chunk_ns / 1e6);
			return;
		}
		fmt_rate(a, sizeof(a), (double)l->calls);
		fmt_rate(b, sizeof(b), (double)l->calls / seconds(d));
		printf("  getpid: %s calls, %s calls/s; ns/call: average %.1f, median %.1f",
		       a, b, (double)l->ns / (double)l->calls, s.median);
		if (s.ci_valid)
			printf(" [%.1f, %.1f]", s.ci_low, s.ci_high);
		printf(", min %.1f, max %.1f\n          (%d chunks of >= %.0f ms%s)\n",
		       s.min, s.max, s.n, (double)l->chunk_ns / 1e6,
		       s.ci_valid ? "; 95% CI of the median from order statistics" : "");
	} else {
		fmt_rate(a, sizeof(a), (double)l->loops / seconds(d));
		printf("  spin: %s loops/s; %llu gaps >= %.0f us, largest %.1f us\n", a,
		       (unsigned long long)l->gaps, SPIN_GAP_NS / 1000,
		       tc_clock_ticks_to_ns(&d->clk, (double)l->max_gap) / 1000);
	}
}

struct fp_row {
	uint64_t v;
	int r;
};

static int fp_row_cmp(const void *a, const void *b)
{
	const struct fp_row *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return x->r - y->r;
}

/*
 * "CAL +45, LOC +12, ...": the rows of target @t that grew between phases
 * @a and @b, largest first, at most 8. Return: the growth of every row.
 */
static uint64_t fp_format(const struct footprint *fp, int a, int b, int t, char *buf, size_t len)
{
	struct fp_row rows[FP_MAX_ROWS];
	uint64_t total = 0;
	size_t off = 0;
	int r, n = 0;

	for (r = 0; r < fp->nr_rows; r++) {
		uint64_t v = fp_delta(fp, a, b, t, r);

		total += v;
		if (v)
			rows[n++] = (struct fp_row){ v, r };
	}
	qsort(rows, (size_t)n, sizeof(*rows), fp_row_cmp);
	buf[0] = 0;
	for (r = 0; r < n && r < 8 && off < len; r++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s +%llu", r ? ", " : "",
					fp->name[rows[r].r], (unsigned long long)rows[r].v);
	if (!n)
		snprintf(buf, len, "none");
	return total;
}

static void print_footprint(const struct noise_run *d, int t)
{
	const struct footprint *fp = &d->fp;
	char s[512], w[512], e[512];
	uint64_t ns, nw, ne;

	if (!fp->ok[FP_BEFORE] || !fp->ok[FP_AFTER])
		return;
	ns = fp_format(fp, FP_BEFORE, FP_START, t, s, sizeof(s));
	nw = fp_format(fp, FP_START, FP_END, t, w, sizeof(w));
	ne = fp_format(fp, FP_END, FP_AFTER, t, e, sizeof(e));
	printf("  footprint (/proc/interrupts on CPU %d): this tool's set-up %llu (%s);\n"
	       "    tear-down %llu (%s); the window %llu (%s)\n", d->o.cpus[t],
	       (unsigned long long)ns, s, (unsigned long long)ne, e, (unsigned long long)nw, w);
	if (t == d->o.nr_cpus - 1) {
		int nr_ev;

		tc_noise_events(d->n, &nr_ev);
		printf("  (outside the window no thread of this tool runs on the targets and the "
		       "tlb load waits;\n   CAL there is the kernel patching its text to enable "
		       "and disable each of the %d events,\n   which reaches every CPU)\n", nr_ev);
	}
}

static void print_report(struct noise_run *d)
{
	const struct tc_noise_event *ev;
	const struct tc_noise_row *rows;
	char tgt[256], hk[256];
	int nr_ev, nr_rows, i, j, k;

	ev = tc_noise_events(d->n, &nr_ev);
	rows = tc_noise_rows(d->n, &nr_rows);
	tc_cli_format_cpus(d->o.cpus, d->o.nr_cpus, tgt, sizeof(tgt));
	tc_cli_format_cpus(d->o.hk, d->o.nr_hk, hk, sizeof(hk));
	printf("tracecost %s (git %s), noise\n", TC_VERSION, TC_GIT_SHA);
	printf("kernel:       %s %s\n", d->si.release, d->si.version);
	printf("cmdline:      %s\n", d->si.cmdline);
	printf("targets:      CPU %s (%s loop); housekeeping CPU %s\n", tgt,
	       measure_names[d->o.measure], hk);
	printf("load:         %s\n", d->engine);
	printf("tracing:      %.1f s in instance %s; filters %s; %llu events lost\n",
	       seconds(d), tc_tracefs_instance_name(d->t),
	       tc_noise_cpumask_filters(d->n) ? "CPUS{} cpumasks" : "CPU equality (kernel < 6.6)",
	       (unsigned long long)tc_noise_lost(d->n));
	if (d->load_status >= 0)
		printf("note:         the load command ended early (status %d)\n", d->load_status);
	for (i = 0; i < d->o.nr_cpus; i++) {
		int cpu = d->o.cpus[i];
		uint64_t ipis = 0;

		printf("\nCPU %d: %s%s\n", cpu, d->isolated[i] ? "isolated: " : "not isolated",
		       d->isolated[i] ? d->iso[i] : " (not in nohz_full, not isolcpus)");
		printf("  %-50s %9s %8s %8s %8s\n", "event / cause", "count", "per min",
		       "first s", "last s");
		for (k = 0; k < nr_ev; k++) {
			uint64_t total = 0;
			char rate[32];

			for (j = 0; j < nr_rows; j++)
				if (rows[j].cpu == cpu && rows[j].event == k)
					total += rows[j].count;
			if (ev[k].is_ipi)
				ipis += total;
			if (!total)
				continue;
			fmt_rate(rate, sizeof(rate), (double)total * 60 / seconds(d));
			printf("  %s:%-*s %9llu %8s\n", ev[k].system,
			       49 - (int)strlen(ev[k].system), ev[k].name,
			       (unsigned long long)total, rate);
			for (j = 0; j < nr_rows; j++) {
				const struct tc_noise_row *r = &rows[j];
				char cause[300];

				if (r->cpu != cpu || r->event != k)
					continue;
				if (r->callsite[0])
					snprintf(cause, sizeof(cause), "%s <- %s", r->cause,
						 r->callsite);
				else
					snprintf(cause, sizeof(cause), "%s", r->cause);
				fmt_rate(rate, sizeof(rate), (double)r->count * 60 / seconds(d));
				printf("    %-48.48s %9llu %8s %8.2f %8.2f\n", cause,
				       (unsigned long long)r->count, rate, rel_s(d, r->first_ns),
				       rel_s(d, r->last_ns));
			}
		}
		{
			char rate[32];

			fmt_rate(rate, sizeof(rate), (double)ipis * 60 / seconds(d));
			printf("  IPIs %s CPU %d: %llu (%s per min)\n",
			       tc_noise_ipis_received(d->n) ? "received by" : "sent to", cpu,
			       (unsigned long long)ipis, rate);
		}
		print_loop(d, &d->loops[i]);
		print_footprint(d, i);
	}
	fflush(stdout);
}

static json_t *loop_json(const struct noise_run *d, const struct loop *l)
{
	struct tc_summary s;

	if (l->kind == M_SPIN)
		return json_pack("{s:s, s:I, s:f, s:I, s:f, s:f}", "kind", "spin",
				 "loops", (json_int_t)l->loops,
				 "loops_per_s", (double)l->loops / seconds(d),
				 "gaps", (json_int_t)l->gaps, "gap_threshold_ns", SPIN_GAP_NS,
				 "max_gap_ns", tc_clock_ticks_to_ns(&d->clk, (double)l->max_gap));
	if (!l->calls || tc_summary_compute(l->chunk, l->nr_chunk, &s))
		return json_pack("{s:s, s:I, s:n}", "kind", "getpid", "calls",
				 (json_int_t)l->calls, "ns_per_call");
	return json_pack("{s:s, s:I, s:f, s:f, s:f, s:i, s:{s:f, s:f, s:f, s:b, s:o, s:o, s:o}}",
			 "kind", "getpid", "calls", (json_int_t)l->calls,
			 "calls_per_s", (double)l->calls / seconds(d),
			 "ns_per_call_average", (double)l->ns / (double)l->calls,
			 "chunk_ms", (double)l->chunk_ns / 1e6, "chunks", s.n,
			 "ns_per_call", "median", s.median, "min", s.min, "max", s.max,
			 "ci_valid", s.ci_valid,
			 "ci_low", s.ci_valid ? json_real(s.ci_low) : json_null(),
			 "ci_high", s.ci_valid ? json_real(s.ci_high) : json_null(),
			 "ci_level", s.ci_valid ? json_real(s.ci_level) : json_null());
}

/* {"setup": {"CAL": 45, ...}, "window": {...}, "teardown": {...}} for target @t */
static json_t *footprint_json(const struct noise_run *d, int t)
{
	const struct footprint *fp = &d->fp;
	json_t *o = json_object();
	int ph, r;

	if (!fp->ok[FP_BEFORE] || !fp->ok[FP_AFTER]) {
		json_decref(o);
		return json_null();
	}
	for (ph = 0; ph < 3; ph++) {
		json_t *rows = json_object();
		uint64_t total = 0;

		for (r = 0; r < fp->nr_rows; r++) {
			uint64_t v = fp_delta(fp, ph, ph + 1, t, r);

			total += v;
			if (v)
				json_object_set_new(rows, fp->name[r], json_integer((json_int_t)v));
		}
		json_object_set_new(o, fp_phase[ph], rows);
		json_object_set_new(o, ph == 0 ? "setup_total" : ph == 1 ? "window_total" :
				    "teardown_total", json_integer((json_int_t)total));
	}
	return o;
}

static int write_json(const struct noise_run *d)
{
	const struct noise_opts *o = &d->o;
	struct tc_result_header h = {
		.suite = "noise", .argc = tc_cli_argc, .argv = tc_cli_argv,
		.start = d->start, .end = d->end, .si = &d->si, .cpus = o->cpus,
		.nr_cpus = o->nr_cpus,
	};
	const struct tc_noise_event *ev;
	const struct tc_noise_row *rows;
	json_t *root = tc_result_new(&h), *evs, *targets, *hk, *sec;
	int nr_ev, nr_rows, i, j, err;

	if (!root)
		return -ENOMEM;
	ev = tc_noise_events(d->n, &nr_ev);
	rows = tc_noise_rows(d->n, &nr_rows);
	evs = json_array();
	for (i = 0; i < nr_ev; i++)
		json_array_append_new(evs, json_pack("{s:s, s:s, s:s, s:b}", "system",
			ev[i].system, "name", ev[i].name, "filter", ev[i].filter,
			"ipi", ev[i].is_ipi));
	hk = json_array();
	for (i = 0; i < o->nr_hk; i++)
		json_array_append_new(hk, json_integer(o->hk[i]));
	targets = json_array();
	for (i = 0; i < o->nr_cpus; i++) {
		json_t *counts = json_array();
		uint64_t ipis = 0;

		for (j = 0; j < nr_rows; j++) {
			const struct tc_noise_row *r = &rows[j];
			char name[160];

			if (r->cpu != o->cpus[i])
				continue;
			if (ev[r->event].is_ipi)
				ipis += r->count;
			snprintf(name, sizeof(name), "%s:%s", ev[r->event].system,
				 ev[r->event].name);
			json_array_append_new(counts, json_pack(
				"{s:s, s:s, s:s, s:I, s:f, s:f, s:f}", "event", name,
				"cause", r->cause, "callsite", r->callsite,
				"count", (json_int_t)r->count,
				"per_minute", (double)r->count * 60 / seconds(d),
				"first_s", rel_s(d, r->first_ns), "last_s", rel_s(d, r->last_ns)));
		}
		json_array_append_new(targets, json_pack("{s:i, s:b, s:s, s:I, s:o, s:o, s:o}",
			"cpu", o->cpus[i], "isolated", d->isolated[i], "isolation", d->iso[i],
			"ipis", (json_int_t)ipis, "counts", counts,
			"loop", loop_json(d, &d->loops[i]),
			"footprint", footprint_json(d, i)));
	}
	sec = json_pack("{s:f, s:s, s:s, s:s, s:o, s:o, s:b, s:s, s:I, s:s, s:o}",
			"duration_s", seconds(d), "measure", measure_names[o->measure],
			"load", load_names[o->load], "load_detail", d->engine,
			"housekeeping", hk, "events", evs,
			"cpumask_filters", tc_noise_cpumask_filters(d->n),
			"ipis_counted", tc_noise_ipis_received(d->n) ? "received" : "sent",
			"events_lost", (json_int_t)tc_noise_lost(d->n),
			"instance", tc_tracefs_instance_name(d->t), "targets", targets);
	if (!sec) {
		json_decref(root);
		return -ENOMEM;
	}
	json_object_set_new(root, "noise", sec);
	err = tc_result_write(root, o->json);
	json_decref(root);
	return err;
}

static void halt_all(struct noise_run *d)
{
	int i;

	atomic_store(&halt, 1);
	for (i = 0; i < d->o.nr_cpus; i++)
		if (d->loops[i].th)
			pthread_join(d->loops[i].th, NULL);
	stop_load(d);
}

static void fail_run(struct noise_run *d, const char *what, const char *detail)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), "%s%s", what, detail);
	halt_all(d);
	if (tc_cli_stop) {
		/* the supervisor removes the instance: be gone within its 10 s */
		exit(tc_cli_interrupted());
	}
	if (d->n)
		tc_noise_stop(d->n);
	tc_cli_fail("%s", msg);
}

static int measure(void *arg)
{
	struct noise_run *d = arg;
	pid_t tids[MAX_TARGETS];
	uint64_t deadline;
	int i, err, status;

	tc_cli_catch_signals();
	/* until the window: enabling events under the load takes seconds */
	tc_cli_signals_at_once(true);
	memset(&d->si, 0, sizeof(d->si));
	tc_sysinfo_read(&d->si);
	d->load_status = -1;
	set_hk_affinity(&d->o);		/* this thread: reading, draining */
	fp_read(&d->fp, FP_BEFORE, d->o.cpus, d->o.nr_cpus);
	if (d->o.measure == M_SPIN && tc_clock_calibrate(&d->clk, 100))
		tc_cli_fail("the counter does not advance");
	for (i = 0; i < d->o.nr_cpus; i++) {
		struct loop *l = &d->loops[i];

		l->cpu = d->o.cpus[i];
		l->kind = d->o.measure;
		l->chunk_ns = CHUNK_NS;
		l->max_gap = (uint64_t)(SPIN_GAP_NS * d->clk.freq_hz / 1e9);
		l->chunk = calloc(MAX_CHUNKS, sizeof(double));
		if (!l->chunk)
			tc_cli_fail("out of memory");
		err = thread_start(&l->th, loop_main, l);
		if (err)
			fail_run(d, "starting the loop threads: ", strerror(err));
	}
	for (i = 0; i < d->o.nr_cpus; i++) {
		while (!__atomic_load_n(&d->loops[i].tid, __ATOMIC_ACQUIRE) && !tc_cli_stop)
			usleep(1000);
		tids[i] = d->loops[i].tid;
	}
	clock_gettime(CLOCK_REALTIME, &d->start);
	err = start_load(d);
	if (err)
		fail_run(d, "starting the load: ", strerror(-err));
	err = tc_noise_start(d->n, tids, d->o.nr_cpus);
	if (err)
		fail_run(d, "", tc_noise_error(d->n));
	/* everything armed: now the loops move to their targets */
	atomic_store_explicit(&pin_go, 1, memory_order_release);
	for (i = 0; i < d->o.nr_cpus && !tc_cli_stop; i++)
		while (!__atomic_load_n(&d->loops[i].pinned, __ATOMIC_ACQUIRE) && !tc_cli_stop)
			usleep(100);
	/*
	 * The window starts when every event is on (enabling them can take
	 * seconds under TCG); the few records of the last setup steps get
	 * negative times.
	 */
	tc_cli_signals_at_once(false);
	fp_read(&d->fp, FP_START, d->o.cpus, d->o.nr_cpus);
	d->t0_ns = now_ns();
	atomic_store_explicit(&go, 1, memory_order_release);
	deadline = d->t0_ns + (uint64_t)(d->o.duration * 1e9);
	while (!tc_cli_stop) {
		uint64_t now = now_ns(), left = now < deadline ? deadline - now : 0;
		struct timespec ts = { 0, 0 };

		if (!left)
			break;
		if (left > 1000000000ull)
			left = 1000000000ull;
		ts.tv_sec = (time_t)(left / 1000000000ull);
		ts.tv_nsec = (long)(left % 1000000000ull);
		nanosleep(&ts, NULL);	/* a signal cuts it short (thread_start) */
		if (tc_cli_stop)
			break;
		err = tc_noise_drain(d->n);
		if (err)
			fail_run(d, "", tc_noise_error(d->n));
		for (i = 0; i < d->nr_load && d->o.load == L_COMMAND; i++) {
			if (d->load_status < 0 &&
			    waitpid(d->load_pgid[i], &status, WNOHANG) == d->load_pgid[i]) {
				d->load_status = WIFEXITED(status) ? WEXITSTATUS(status) :
					128 + WTERMSIG(status);
				/* reaped: nothing left to stop in its group but stragglers */
			}
		}
	}
	d->t1_ns = now_ns();
	atomic_store(&halt, 1);
	fp_read(&d->fp, FP_END, d->o.cpus, d->o.nr_cpus);
	for (i = 0; i < d->o.nr_cpus; i++) {
		pthread_join(d->loops[i].th, NULL);
		d->loops[i].th = 0;
		if (d->loops[i].err)
			fail_run(d, "a loop thread could not be pinned to ", "its target CPU");
	}
	if (tc_cli_stop) {
		/*
		 * Nothing to report: no last drain, no symbol names; the
		 * supervisor removes the instance (it kills this process 10 s
		 * after the signal, and disabling the events is slow under TCG).
		 */
		stop_load(d);
		return tc_cli_interrupted();
	}
	err = tc_noise_stop(d->n);
	stop_load(d);
	fp_read(&d->fp, FP_AFTER, d->o.cpus, d->o.nr_cpus);
	if (err)
		tc_cli_fail("%s", tc_noise_error(d->n));
	clock_gettime(CLOCK_REALTIME, &d->end);
	print_report(d);
	if (d->o.json) {
		err = write_json(d);
		if (err)
			tc_cli_fail("--json %s: %s", d->o.json, strerror(-err));
	}
	return TC_EXIT_OK;
}

/*
 * isolcpus=domain takes the isolated CPUs out of every process's default
 * affinity: widen it to every online CPU (a cpuset still limits it), so that
 * they can be named and the loops pinned there.
 */
static void widen_affinity(void)
{
	char buf[1024], *p, *save;
	cpu_set_t set;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f)
		return;
	CPU_ZERO(&set);
	if (fgets(buf, sizeof(buf), f)) {
		for (p = strtok_r(buf, ",\n", &save); p; p = strtok_r(NULL, ",\n", &save)) {
			int a, b;

			if (sscanf(p, "%d-%d", &a, &b) != 2) {
				if (sscanf(p, "%d", &a) != 1)
					continue;
				b = a;
			}
			for (; a <= b && a < CPU_SETSIZE; a++)
				CPU_SET(a, &set);
		}
	}
	fclose(f);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

int cmd_noise(int argc, char **argv)
{
	static struct noise_run d;
	long pid;
	int i, err;

	widen_affinity();
	parse(argc, argv, &d.o);
	for (i = 0; i < d.o.nr_cpus; i++)
		d.isolated[i] = tc_noise_cpu_isolation(d.o.cpus[i], d.iso[i], sizeof(d.iso[i]));
	if (geteuid())
		tc_cli_fail("noise needs tracefs, which needs root: run as root");
	err = tc_tracefs_open(&d.t, NULL);
	if (err) {
		if (err == -ENODEV)
			tc_cli_fail("no tracefs: %s (the kernel needs CONFIG_TRACING)",
				    tc_tracefs_error(d.t));
		tc_cli_fail("tracefs: %s", tc_tracefs_error(d.t));
	}
	err = tc_noise_new(&d.n, d.t, d.o.cpus, d.o.nr_cpus, d.o.events);
	if (err == -EINVAL)
		tc_cli_usage("%s", tc_noise_error(d.n));
	if (err)
		tc_cli_fail("%s", tc_noise_error(d.n));
	switch (tc_cli_state(&pid)) {
	case TC_STATE_LIVE:
		tc_cli_fail("another tracecost run (pid %ld) holds %s/lock and is tracing now: "
			    "wait for it to end", pid, TC_TRACEFS_STATE_DIR);
	case TC_STATE_STALE:
		tc_cli_fail("the state file of an interrupted run (%s) is still there (tracing "
			    "it set up may still be on): run 'tracecost restore' first",
			    tc_cli_state_who(pid));
	}
	for (i = 0; i < d.o.nr_cpus; i++)
		if (!d.isolated[i])
			fprintf(stderr, "tracecost: CPU %d is not isolated (not in nohz_full, not "
				"isolcpus): its figures include the scheduler tick and other "
				"tasks\n", d.o.cpus[i]);
	return tc_cli_run_supervised(d.t, measure, &d);
}
