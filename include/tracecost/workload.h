/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/workload.h - real workloads for the system suite, one file each
 * under workloads/, registered in one table (the perf bench model):
 *
 *	getpid     syscall(SYS_getpid) loop, ns per call, one thread per CPU
 *	pipe       round trip between two processes over pipes (lmbench lat_pipe), us
 *	ctxsw      token ring of N processes on one CPU (lmbench lat_ctx), us per switch
 *	fs         create and delete files of each size (lmbench lat_fs), files/s
 *	hackbench  groups of senders and receivers (rt-tests hackbench -g/-f/-l), s
 *	walk       recursive traversal with lstat of every entry (find), s
 *
 * A workload is set up once (options checked, temporary files made, one
 * warm-up run), run K times, torn down. Each run yields one value per
 * metric (ctxsw has one metric per ring size, fs two per file size) and the
 * work it did, so that a caller can check it against what was asked. Runs
 * report the thread ids they used (for matching trace events to the
 * workload) and stop early with -EINTR when *@stop becomes non-zero (set it
 * from a signal handler). Timing is CLOCK_MONOTONIC.
 *
 * Workloads that fork give their children PR_SET_PDEATHSIG(SIGKILL) and
 * reap them on every path; the caller should ignore SIGPIPE.
 */
#ifndef TRACECOST_WORKLOAD_H
#define TRACECOST_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_WL_MAX_METRICS	24
#define TC_WL_MAX_PIDS		1024
#define TC_WL_MAX_LIST		16

/**
 * struct tc_wl_opts - options of every workload (tc_workload_opts_init()
 * gives the defaults)
 * @cpus, @nr_cpus: CPUs the workload may run on (NULL: every allowed CPU);
 *		 getpid runs one pinned thread on each, ctxsw pins its ring
 *		 to the first, the others run under this affinity mask
 * @calls:	 getpid: calls per CPU per run (default 10^7)
 * @round_trips: pipe: round trips per run (default 20000)
 * @ring_trips:	 ctxsw: trips of the token around the ring per run (default 2000)
 * @procs:	 ctxsw ring sizes, each >= 2 (default 2,4,8,16)
 * @sizes:	 fs file sizes in KiB (default 0,1,4,10)
 * @files:	 fs files per size per run (default 1000)
 * @dir:	 fs: where the fresh directory is made (NULL: $TMPDIR or /tmp)
 * @groups, @fds, @loops: hackbench -g/-f/-l (default 4, 2, 30000, the seed's)
 * @datasize:	 hackbench message size in bytes (default 100, as rt-tests)
 * @hb_pipe:	 hackbench over pipes instead of AF_UNIX stream sockets
 * @tree:	 walk root (default /usr)
 * @stop:	 early stop flag, or NULL
 */
struct tc_wl_opts {
	const int *cpus;
	int nr_cpus;
	uint64_t calls;
	uint64_t round_trips;
	uint64_t ring_trips;
	unsigned int procs[TC_WL_MAX_LIST];
	int nr_procs;
	unsigned int sizes[TC_WL_MAX_LIST];
	int nr_sizes;
	uint64_t files;
	const char *dir;
	unsigned int groups;
	unsigned int fds;
	uint64_t loops;
	unsigned int datasize;
	bool hb_pipe;
	const char *tree;
	volatile sig_atomic_t *stop;
};

/**
 * struct tc_wl_metric - one figure a workload reports per run
 * @name:	  row/table name ("getpid", "ctxsw 4 procs", "fs 1k create")
 * @unit:	  "ns/call", "us", "files/s", "s"
 * @work_unit:	  what @work counts ("calls", "round trips", "files", ...)
 * @higher_better: true for rates (files/s)
 * @work_asked:	  work one run is asked to do (0 when not known in advance:
 *		  walk counts what it finds)
 */
struct tc_wl_metric {
	char name[48];
	const char *unit;
	const char *work_unit;
	bool higher_better;
	uint64_t work_asked;
};

/**
 * struct tc_wl_sample - what one run produced
 * @value: one figure per metric, in the metric's unit
 * @work:  work done per metric
 */
struct tc_wl_sample {
	double value[TC_WL_MAX_METRICS];
	uint64_t work[TC_WL_MAX_METRICS];
};

struct tc_workload;

/**
 * struct tc_wl_ctx - a workload set up with its options
 * @type:	the workload
 * @o:		its options (must outlive the context)
 * @nr_metrics, @metric: what each run reports
 * @pids, @nr_pids: thread ids of the last run (self, threads, children)
 * @cpus, @nr_cpus: the CPUs in use (from @o, or every allowed CPU)
 * @priv:	the workload's own state
 * @detail:	one line of the last failure
 */
struct tc_wl_ctx {
	const struct tc_workload *type;
	const struct tc_wl_opts *o;
	int nr_metrics;
	struct tc_wl_metric metric[TC_WL_MAX_METRICS];
	pid_t pids[TC_WL_MAX_PIDS];
	int nr_pids;
	int cpus[1024];
	int nr_cpus;
	void *priv;
	char detail[256];
};

/**
 * struct tc_workload - one entry of the registration table
 * @name:     --workloads name
 * @summary:  one line
 * @check:    validate options without side effects; -EINVAL with a
 *	      one-line reason in @msg (may be NULL)
 * @setup:    fill the metrics, prepare, warm up; 0 or -errno (ctx->detail)
 * @run:      one measured run; 0, -EINTR (stopped), -errno (ctx->detail)
 * @teardown: undo @setup (may be NULL)
 */
struct tc_workload {
	const char *name;
	const char *summary;
	int (*check)(const struct tc_wl_opts *o, char *msg, size_t len);
	int (*setup)(struct tc_wl_ctx *ctx);
	int (*run)(struct tc_wl_ctx *ctx, struct tc_wl_sample *s);
	void (*teardown)(struct tc_wl_ctx *ctx);
};

/* The registration table (workloads/registry.c), NULL-terminated. */
extern const struct tc_workload *const tc_workloads[];

/** tc_workload_find() - a workload by name, or NULL */
const struct tc_workload *tc_workload_find(const char *name);

/** tc_workload_opts_init() - the defaults of struct tc_wl_opts */
void tc_workload_opts_init(struct tc_wl_opts *o);

/**
 * tc_workload_check() - validate @o for @w without side effects
 * @msg: one-line reason on -EINVAL
 * Return: 0 or -EINVAL.
 */
int tc_workload_check(const struct tc_workload *w, const struct tc_wl_opts *o,
		      char *msg, size_t len);

/**
 * tc_workload_setup() - set @w up in @ctx with options @o (checked first)
 * Return: 0, -EINVAL (bad options, ctx->detail), -errno.
 */
int tc_workload_setup(struct tc_wl_ctx *ctx, const struct tc_workload *w,
		      const struct tc_wl_opts *o);

/**
 * tc_workload_run() - one measured run of a set-up workload
 * @s: output, zeroed first
 * Return: 0, -EINTR when stopped, -errno (ctx->detail names the step).
 */
int tc_workload_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s);

/** tc_workload_teardown() - undo tc_workload_setup() */
void tc_workload_teardown(struct tc_wl_ctx *ctx);

/**
 * struct tc_summary - median of K values and its distribution-free interval
 * @n:		 K
 * @median:	 median (mean of the two middle values for even K)
 * @min, @max:	 extremes
 * @ci_valid:	 whether K is large enough for a 95% interval (K >= 6)
 * @ci_low, @ci_high: the interval [x(j), x(K+1-j)] of the order statistics,
 *		 j the largest rank with 2 P(B <= j-1) <= 0.05, B ~ Bin(K, 1/2)
 * @ci_level:	 its exact coverage, 1 - 2 P(B <= j-1) (>= 0.95)
 */
struct tc_summary {
	int n;
	double median;
	double min;
	double max;
	bool ci_valid;
	double ci_low;
	double ci_high;
	double ci_level;
};

/**
 * tc_summary_compute() - median, extremes and 95% interval of @v
 * @v: values (not modified)
 * @n: their number, 1 .. 10000
 * @s: output
 *
 * The interval is the textbook order-statistic (sign-test) confidence
 * interval of the median: distribution-free, exact coverage in @ci_level.
 * Return: 0, -EINVAL (n out of range, or a NaN value), -ENOMEM.
 */
int tc_summary_compute(const double *v, int n, struct tc_summary *s);

/**
 * tc_wl_now_ns() - CLOCK_MONOTONIC in ns, or after tc_wl_count_fentry()
 * the function entries the kernel counted so far
 */
uint64_t tc_wl_now_ns(void);

/**
 * tc_wl_count_fentry() - make tc_wl_now_ns() count function entries
 * @msg, @len: why not, on error
 * @toggle:    output: the entries of one reading, subtracted from each interval
 *
 * From here on every figure a workload computes from tc_wl_now_ns() reads
 * its "ns" as kernel function entries: the hits of the function profiler
 * (CONFIG_FUNCTION_PROFILER, function_profile_enabled, trace_stat/function*),
 * on every CPU - one process may read the clock at a time (one CPU). Needs
 * root and tracefs mounted. tc_wl_count_fentry_end() stops the profiler.
 *
 * Return: 0, or -errno with @msg set.
 */
int tc_wl_count_fentry(char *msg, size_t len, uint64_t *toggle);
void tc_wl_count_fentry_end(void);

/** tc_wl_add_pid() - note a thread id of the current run (ignored when full) */
void tc_wl_add_pid(struct tc_wl_ctx *ctx, pid_t pid);

/** tc_wl_stopped() - whether the caller asked to stop */
static inline bool tc_wl_stopped(const struct tc_wl_ctx *ctx)
{
	return ctx->o->stop && *ctx->o->stop;
}

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_WORKLOAD_H */
