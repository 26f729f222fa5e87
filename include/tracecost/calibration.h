/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/calibration.h - the between-session variance of this machine,
 * measured once and used by every comparison of single files.
 *
 * A session shares one time window and one boot: one invocation of
 * tracecost run (all its --runs). The runs of one session resemble each
 * other more than those of a session taken minutes later, so one file a
 * side says nothing about how far two sessions differ (tracecost/compare.h,
 * TC_SCOPE_SESSIONS). The calibration measures it: N sessions of the same
 * binary, spaced in time, on this host (the dimensioning experiment of
 * Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013,
 * section 3), and for every row, configuration and metric estimates
 *
 *   sigma_s^2 = max(0, var_i(x_i) - mean_i(b_i^2 / R_i))
 *
 * where x_i is session i's figure, b_i the standard deviation of its R_i
 * run figures and b_i^2 / R_i the part of var(x_i) that the session's own
 * runs already explain (the method-of-moments estimate of the nested
 * variance component, K&J section 3.2). It is stored relative to the mean
 * figure (a coefficient of variation), so that it applies to a figure of
 * any size in the same row and configuration.
 *
 * compare adds (cv_s * value)^2 to each single-session side's variance,
 * with the component's effective degrees of freedom (@df below) in
 * Welch-Satterthwaite's formula (tc_compare_run(), TC_SCOPE_CALIBRATED).
 *
 * Not thread-safe; a loaded calibration is read-only and may be shared.
 */
#ifndef TRACECOST_CALIBRATION_H
#define TRACECOST_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <tracecost/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/* calibration_version of the files this library writes and reads */
#define TC_CALIBRATION_VERSION	1
/* sessions a calibration needs (two degrees of freedom for the component) */
#define TC_CALIBRATION_MIN_SESSIONS	3
/* the configuration name of the entries pooled over every configuration */
#define TC_CALIBRATION_ALL	"*"

/**
 * struct tc_calibration_entry - the variance components of one figure
 * @row:	the row (pair or system metric) name, as in the result files
 * @config:	the configuration, or TC_CALIBRATION_ALL for the entry pooled
 *		over the configurations (used for a configuration the
 *		calibration did not measure)
 * @metric:	enum tc_metric value (tracecost/metric.h)
 * @mean:	mean figure over the sessions, in ticks per pair (histogram
 *		files) or the row's unit (system files)
 * @session_cv:	sigma_s / @mean: the between-session standard deviation,
 *		relative; 0 when the sessions vary no more than their runs say
 * @run_cv:	mean standard deviation between the runs of a session / @mean
 * @rep_cv:	pooled standard deviation between the repetitions of a run /
 *		@mean (NAN when the files had one repetition per run)
 * @df:		degrees of freedom of @session_cv's variance: Satterthwaite's
 *		effective df of the difference, (sessions - 1) * (s2 / var)^2
 *		with var = var_i(x_i), at least 1 (a component small beside
 *		the runs' own is poorly known); for a pooled entry the sum over
 *		the configurations
 */
struct tc_calibration_entry {
	char *row;
	char *config;
	int metric;
	double mean;
	double session_cv;
	double run_cv;
	double rep_cv;
	double df;
};

/**
 * struct tc_calibration - a calibration: where and how it was measured,
 * and its entries
 * @path:	file it was read from (NULL for one just estimated)
 * @suite:	"user" or "system"
 * @nodename, @machine, @cpu_model, @release: of the host, from the files
 * @start, @end: ISO 8601 UTC times of the first session's start and the
 *		last session's end
 * @sessions:	sessions measured, >= TC_CALIBRATION_MIN_SESSIONS
 * @runs:	runs per session (the smallest over the sessions)
 * @repeat:	repetitions per run
 * @batch:	pairs per sample of the files (0 for system files): a file
 *		taken with another batch is not covered
 * @spacing_s:	mean time from one session's end to the next one's start, s
 * @command:	the command line of the first session
 * @nr_entries, @entries: every row x configuration x metric measured, then
 *		the pooled ones (@config TC_CALIBRATION_ALL)
 */
struct tc_calibration {
	char *path;
	char *suite;
	char *nodename, *machine, *cpu_model, *release;
	char *start, *end;
	int sessions;
	int runs;
	unsigned int repeat;
	unsigned int batch;
	double spacing_s;
	char *command;
	int nr_entries;
	struct tc_calibration_entry *entries;
};

/**
 * tc_calibration_estimate() - the variance components of @nr sessions
 * @files:	the sessions' result files (one tracecost run each, not
 *		groups), of one suite, host, batch and configuration list
 * @nr:		sessions, >= TC_CALIBRATION_MIN_SESSIONS
 * @out:	set to the calibration (free with tc_calibration_free())
 * @err, @errlen: on -EINVAL, one line saying which file differs and how
 *
 * Each figure is computed as tc_compare_run() computes it (percentile and
 * max_avg at each file's own settings).
 *
 * Return: 0; -EINVAL for fewer than TC_CALIBRATION_MIN_SESSIONS files, a
 * group, files of different suites, hosts, batches or configurations, or
 * files whose runs are repeated; -ENOMEM.
 */
int tc_calibration_estimate(struct tc_result_file *const *files, int nr,
			    struct tc_calibration **out, char *err, size_t errlen);

/**
 * tc_calibration_write() - the calibration as JSON (doc/calibration-format.md)
 * @c:		the calibration
 * @path:	written through a temporary file and renamed: never partial
 *
 * Return: 0 or -errno of the write or rename.
 */
int tc_calibration_write(const struct tc_calibration *c, const char *path);

/**
 * tc_calibration_read() - load and validate a calibration file
 * @path:	the file
 * @out:	set to the calibration, NULL on error
 * @err, @errlen: on error, one line "PATH: problem"
 *
 * Return: 0; -ENOENT (and the other -errno of open/read); -EINVAL for a
 * file that is not a valid calibration; -EPROTONOSUPPORT for another
 * calibration_version; -ENOMEM.
 */
int tc_calibration_read(const char *path, struct tc_calibration **out, char *err,
			size_t errlen);

/** tc_calibration_free() - release a calibration (NULL is ignored) */
void tc_calibration_free(struct tc_calibration *c);

/**
 * tc_calibration_find() - the entry for @row, @config and @metric: the
 * configuration's own, else the row's pooled entry, else NULL
 */
const struct tc_calibration_entry *tc_calibration_find(const struct tc_calibration *c,
							const char *row, const char *config,
							int metric);

/**
 * tc_calibration_covers() - whether @c applies to file @f
 * @why, @len:	on false, the reason ("calibrated on host X, the file is
 *		from Y")
 *
 * It applies to a file of the same suite, taken on the same host (node
 * name, machine and CPU model of every run) with the same batch.
 */
bool tc_calibration_covers(const struct tc_calibration *c, const struct tc_result_file *f,
			   char *why, size_t len);

/**
 * tc_calibration_default_path() - where tracecost calibrate stores the
 * calibration of @suite and compare looks for it:
 * $TRACECOST_CALIBRATION_DIR/calibration-SUITE.json, by default
 * /var/lib/tracecost/calibration-SUITE.json
 * Return: 0, or -ENAMETOOLONG when it does not fit in @len.
 */
int tc_calibration_default_path(const char *suite, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_CALIBRATION_H */
