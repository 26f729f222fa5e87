/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/result.h - result files (JSON, jansson), one header writer for
 * every suite (the rt-tests rt_write_json() idea).
 *
 * Every result file is one JSON object that starts with the same header:
 *   file_version, tool {name, version, git}, command, start, end, uname,
 *   host, counter, cpus, interrupts
 * followed by one suite section ("user", later "kernel", "system") whose
 * layout is documented in doc/result-format.md. Readers check file_version
 * and refuse versions they do not know.
 */
#ifndef TRACECOST_RESULT_H
#define TRACECOST_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include <tracecost/clock.h>
#include <tracecost/sampler.h>
#include <tracecost/snapshot.h>
#include <tracecost/stats.h>
#include <tracecost/sysinfo.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A run (one process, one module load, one boot) is written as a version-1
 * object: the header and one suite section. A file of several runs
 * (tracecost run --runs N) is version 2: the same header, then runs[], each
 * a version-1 run object as its process wrote it. Readers take both; a
 * version-1 file is one run.
 */
#define TC_RESULT_RUN_VERSION	1
#define TC_RESULT_FILE_VERSION	2

/**
 * struct tc_result_header - what every result file starts with
 * @suite:	"user", "kernel", "system"
 * @argc, @argv: the command line, recorded as one shell-quoted string
 * @start, @end: wall-clock (CLOCK_REALTIME) times of the run
 * @si:		machine and kernel
 * @clock:	counter description, or NULL
 * @static_key_impl: static-key implementation used, or NULL
 * @cpus, @nr_cpus: CPUs sampled
 * @irqs:	interrupts per CPU during the run (same order as @cpus), or NULL
 */
struct tc_result_header {
	const char *suite;
	int argc;
	char *const *argv;
	struct timespec start, end;
	const struct tc_sysinfo *si;
	const struct tc_clock_info *clock;
	const char *static_key_impl;
	const int *cpus;
	int nr_cpus;
	const uint64_t *irqs;
};

/**
 * tc_result_new() - a result object holding the common header
 * Return: new reference, or NULL on allocation failure.
 */
json_t *tc_result_new(const struct tc_result_header *h);

/**
 * tc_result_runs_new() - a version-2 result holding several runs
 * @runs:	@nr run objects (version 1, as tc_result_new() and a suite wrote
 *		them), all of one suite; references are taken over (stolen)
 *		on success only
 * @nr:		1 .. TC_RESULT_MAX_RUNS
 * @argc, @argv: the command line of the invocation that made the runs
 * @start, @end: wall-clock times of that invocation
 *
 * The header (tool, suite, uname, host, counter of the first run) is the
 * same as a run's, with file_version TC_RESULT_FILE_VERSION, then "runs".
 * Return: new reference, or NULL (bad arguments, runs of different suites,
 * allocation failure).
 */
json_t *tc_result_runs_new(json_t *const *runs, int nr, int argc, char *const *argv,
			   const struct timespec *start, const struct timespec *end);

/** tc_stats_to_json() - the figures of struct tc_stats, in ticks (scaled by @div) */
json_t *tc_stats_to_json(const struct tc_stats *s, double div);

/**
 * tc_result_write() - write @root to @path atomically
 *
 * Writes "@path.tmp.PID" and renames it over @path, so a reader (or an
 * interrupted run) never sees a partial file. "-" writes to stdout.
 * Return: 0 or -errno.
 */
int tc_result_write(json_t *root, const char *path);

/*
 * ======================================================================
 * Reading result files (lib/result_read.c)
 * ======================================================================
 *
 * The reader validates a whole file before handing it out: a file that is
 * truncated, not JSON, of another schema or a newer file_version, or whose
 * numbers do not add up (negative or huge counts, buckets out of range or
 * not ascending, a sum outside [n * min, n * max], a top-N that is not the
 * largest samples, ...) is refused with one line naming the file and the
 * first problem found. Nothing of a refused file is returned.
 *
 * Suites and their shapes:
 *  - "user" and "kernel" (TC_RESULT_SHAPE_HIST): rows are pairs, columns are
 *    configurations, each cell holds one histogram snapshot per CPU and
 *    repetition; the reader merges the CPUs of each repetition (exactly,
 *    with the 128-bit sum) into one struct tc_snapshot (tracecost/snapshot.h, cpu -1);
 *  - "system" (TC_RESULT_SHAPE_VALUES, doc/result-system.md): rows are the
 *    metrics of the workloads (one per table the suite prints: "getpid",
 *    "ctxsw 4 procs", "fs 1k create", ...), columns are the available
 *    profiles, each cell holds one value per repetition (round) in the
 *    row's unit; every per-round array has exactly repeat entries, values
 *    are finite and non-negative, event counts are non-negative integers
 *    (lost <= written, from the workload <= in the buffer) and a summary,
 *    when present, agrees with the values.
 * Any other suite, and any file_version other than TC_RESULT_FILE_VERSION,
 * is refused.
 */

/*
 * Largest result file read (bytes), and the reader's other bounds. A file is
 * parsed whole in memory (jansson's tree takes several times the text), and
 * reading 1 GiB took 3 to 8 s before the parser could say a word: 256 MiB is
 * about 500 times a default user-suite file.
 */
#define TC_RESULT_MAX_BYTES	(256ull << 20)
#define TC_RESULT_MAX_NAME	64	/* configuration and pair names */
#define TC_RESULT_MAX_CONFIGS	64
#define TC_RESULT_MAX_ROWS	64
#define TC_RESULT_MAX_REPEAT	TC_SNAPSHOT_MAX_REPEAT	/* repetitions of one run */
#define TC_RESULT_MAX_RUNS	1000	/* runs of one file or file group */
#define TC_RESULT_MAX_TOTAL_REPS 16384	/* repetitions over every run */
#define TC_RESULT_MAX_CPUS	TC_SNAPSHOT_MAX_CPUS
#define TC_RESULT_MAX_HIGHEST	1000000
/*
 * The counter frequencies a machine can have, with two decades of margin
 * each side: Arm's generic timer runs at 1 MHz .. 1 GHz (fixed at 1 GHz
 * from Armv8.6; QEMU's 62.5 MHz), x86's TSC at ~0.1 .. 6 GHz, QEMU -icount
 * shift=0 at 1 GHz. A file outside is hand-made or damaged: its ns would be
 * nonsense (1e-10 Hz made samples of 1e20 ns).
 */
#define TC_RESULT_MIN_FREQ_HZ	1e4
#define TC_RESULT_MAX_FREQ_HZ	1e11
/* A counter that steps less often than once per this many s is no timer. */
#define TC_RESULT_MAX_RESOLUTION_S	1e-3
#define TC_RESULT_MAX_SNAP_N	TC_SNAPSHOT_MAX_N	/* samples in one snapshot */
#define TC_RESULT_MAX_CELL_N	(1ull << 50)	/* samples in one cell */
#define TC_RESULT_MAX_WORKLOADS	16	/* system: workloads, metrics of each */
#define TC_RESULT_MAX_METRICS	24
#define TC_RESULT_MAX_VALUE	1e15	/* system: largest value of a round */
/* Room for a one-line error message (file name included, truncated). */
#define TC_RESULT_ERR_LEN	512

enum tc_result_shape {
	TC_RESULT_SHAPE_HIST,	/* user, kernel: cells of per-repetition histograms */
	TC_RESULT_SHAPE_VALUES,	/* system: one value per repetition (round) */
};

/**
 * struct tc_result_cell - one row x configuration
 * @nr_reps:	repetitions (the section's repeat), each with @n > 0
 * @reps:	TC_RESULT_SHAPE_HIST only: by repetition number (else NULL)
 * @values:	TC_RESULT_SHAPE_VALUES only: @nr_reps values, by round, in the
 *		row's unit, finite and >= 0 (else NULL)
 * @p1cpu:	TC_RESULT_SHAPE_HIST only: by run (the file's @nr_runs), the
 *		percentile of that run's separate one-CPU run (the cell's
 *		stats_1cpu.percentile, ticks per pair, at the file's @percentile),
 *		NAN where the run recorded none; NULL for system
 */
struct tc_result_cell {
	int nr_reps;
	struct tc_snapshot *reps;
	double *values;
	double *p1cpu;
};

/**
 * struct tc_result_row - a pair (user, kernel) or a workload metric (system)
 * @name:	"irq", "preempt", ...; "getpid", "fs 1k create", ...
 * @title:	table section ("IRQ Metrics"; for system the suite's table
 *		title, "fs 1k create: higher is better (files per run: 1000)")
 * @unit:	system: the metric's unit ("ns/call", "files/s"); else ""
 * @higher_better: system: a larger value is better (rates such as files/s)
 * @cells:	one per configuration, in the order of the file's configurations
 */
struct tc_result_row {
	char *name;
	char *title;
	char *unit;
	bool higher_better;
	struct tc_result_cell *cells;
};

/**
 * struct tc_result_run - one run of a loaded file (or file group)
 * @path:	file it was read from
 * @start, @end, @command, @nodename, @release: as that run recorded them
 * @first_rep:	index of its first repetition in every cell's @reps/@values
 * @nr_reps:	its repetitions (its own repeat), >= 1
 * @session:	index of its session in the file, 0 .. nr_sessions - 1: a
 *		session is what shares one time window and one boot, one
 *		invocation of tracecost run (all its --runs); each file of a
 *		group (a1.json,a2.json) is a session of its own
 */
struct tc_result_run {
	char *path;
	char *start, *end, *command, *nodename, *release;
	unsigned int first_rep;
	unsigned int nr_reps;
	int session;
};

/**
 * struct tc_result_file - a validated result file
 * @path:	name given to the reader (for messages)
 * @version:	file_version
 * @suite:	"user", "kernel", "system"
 * @shape:	see enum tc_result_shape
 * @release, @nodename, @machine: from uname; @cpu_model from host
 * @emulation:	host.emulation: "" on a native run, else what ran on what
 *		("aarch64 binary on an x86_64 kernel"): not measurements
 * @start, @end, @command: as recorded (identify the run)
 * @freq_hz:	counter frequency, 0 when the file records none
 * @batch:	pairs per sample: values / @batch are per pair (0 for system)
 * @highest:	top-N capacity of every snapshot (max_avg; 0 for system)
 * @percentile:	the run's --percentile (0 for system)
 * @repeat:	repetitions over every run (every cell has this many,
 *		run by run, see @runs); rounds for system
 * @nr_runs:	runs (1 for a version-1 file), @runs their boundaries
 * @nr_sessions: sessions the runs come from: 1 for one file, the number of
 *		files for a group (levels: session > run > repetition)
 * @deterministic: every run was measured under QEMU -icount ("vm":
 *		{"deterministic": true}, tracecost vm --deterministic): its
 *		figures are instruction counts, the same on every boot, so
 *		sessions add no variance
 * @step_ticks:	the counter's step (counter.resolution_ticks: the smallest
 *		non-zero difference of two reads), ticks per sample; the
 *		largest over the runs, 0 when not recorded
 * @do_work:	the run's --do-work
 * @nr_cpus:	distinct CPUs over the snapshots of the first cell; for system
 *		the length of the header's cpus (0 when absent)
 * @configs:	configuration names (columns), @nr_configs of them; for
 *		system the available profiles, in column order
 * @rows:	@nr_rows rows
 * @unmeasured:	system: the profiles the file names but could not apply,
 *		"NAME: REASON" each (the file's "reason", or "no reason
 *		recorded"), @nr_unmeasured of them, each name once over the runs
 */
struct tc_result_file {
	char *path;
	int version;
	char *suite;
	enum tc_result_shape shape;
	char *release, *nodename, *machine, *cpu_model;
	char *emulation;
	char *start, *end, *command;
	double freq_hz;
	unsigned int batch;
	unsigned int highest;
	double percentile;
	unsigned int repeat;
	int nr_runs;
	struct tc_result_run *runs;
	int nr_sessions;
	bool deterministic;
	double step_ticks;
	int do_work;
	int nr_cpus;
	int nr_configs;
	char **configs;
	int nr_rows;
	struct tc_result_row *rows;
	int nr_unmeasured;
	char **unmeasured;
};

/**
 * tc_result_file_unmeasured() - why the file has no column @name
 * Return: "NAME: REASON" from @f->unmeasured, or NULL if @f names no such
 * unavailable profile.
 */
const char *tc_result_file_unmeasured(const struct tc_result_file *f, const char *name);
/**
 * tc_result_file_add_unmeasured() - record that profile @name was not
 * measured, and @why (NULL or "": "no reason recorded"); nothing if @name is
 * recorded already or TC_RESULT_MAX_CONFIGS are (used by the reader and
 * tc_result_file_pool())
 * Return: 0, -ENOMEM.
 */
int tc_result_file_add_unmeasured(struct tc_result_file *f, const char *name, const char *why);

/**
 * tc_result_file_parse() - validate and load a result file held in memory
 * @buf:	file contents (need not be NUL-terminated)
 * @len:	bytes in @buf
 * @name:	file name for @res->path and the messages
 * @res:	set to the loaded file on success (free with
 *		tc_result_file_free()), to NULL on error
 * @err:	on error, one line "NAME: problem" (no newline, control
 *		characters replaced), at most @errlen - 1 characters
 * @errlen:	size of @err (TC_RESULT_ERR_LEN is enough)
 *
 * Return: 0; -EINVAL for a file that is not a valid result file (not JSON,
 * truncated, wrong schema, inconsistent numbers); -EPROTONOSUPPORT for an
 * unknown file_version or histogram layout; -EOPNOTSUPP for a suite this
 * reader does not know; -EFBIG above TC_RESULT_MAX_BYTES; -ENOMEM.
 */
int tc_result_file_parse(const char *buf, size_t len, const char *name,
			 struct tc_result_file **res, char *err, size_t errlen);

/**
 * tc_result_file_read() - read, validate and load a result file
 * @path:	file name
 * @res, @err, @errlen: as for tc_result_file_parse()
 *
 * Return: as tc_result_file_parse(), plus the -errno of open() or read()
 * (-ENOENT, -EACCES, ...) and -EISDIR for anything but a regular file.
 */
int tc_result_file_read(const char *path, struct tc_result_file **res,
			char *err, size_t errlen);

/**
 * tc_result_file_pool() - the runs of several loaded files as one file
 * @files:	@nr files (each with one or more runs) of one configuration
 *		set: the same suite, configurations, rows (and for system
 *		their units and directions), batch and do_work, counters
 *		within 0.1 % of one frequency
 * @nr:		>= 1
 * @name:	name of the result (e.g. the comma-separated paths), copied
 * @res:	set to the pooled file, whose runs are those of @files in order
 *		(free with tc_result_file_free(); @files are left as they are)
 * @err, @errlen: one line naming the first file that does not fit and why
 *
 * Used for a version-2 file's runs[] and for a group of files given as one
 * column ("a1.json,a2.json:static"). When every file's path is @name (the
 * runs of one version-2 file), @err names the file once and the runs by
 * their index ("x.json: runs[1] cannot be pooled with runs[0]: ..."). @highest is the smallest of the files'
 * (the top-N of the others hold more than enough values), @freq_hz the mean.
 * Return: 0; -EINVAL when the files do not fit together; -E2BIG above
 * TC_RESULT_MAX_RUNS runs or TC_RESULT_MAX_TOTAL_REPS repetitions; -ENOMEM.
 */
int tc_result_file_pool(struct tc_result_file *const *files, int nr, const char *name,
			struct tc_result_file **res, char *err, size_t errlen);

/** tc_result_file_free() - release a loaded file (NULL is ignored) */
void tc_result_file_free(struct tc_result_file *f);

/**
 * tc_result_file_config() - index of configuration @name in @f
 * Return: index in [0, @f->nr_configs), or -ENOENT.
 */
int tc_result_file_config(const struct tc_result_file *f, const char *name);

/**
 * tc_result_file_row() - index of row (pair, or system metric) @name in @f
 * Return: index in [0, @f->nr_rows), or -ENOENT.
 */
int tc_result_file_row(const struct tc_result_file *f, const char *name);

/**
 * tc_result_run_same() - whether two runs are one measurement: equal start,
 * end, node name and command strings (a missing string reads as "")
 */
bool tc_result_run_same(const struct tc_result_run *a, const struct tc_result_run *b);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_RESULT_H */
