/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/compare_noise.h - "tracecost noise" result files read back and
 * put side by side (lib/compare_noise.c): the "noise" section of
 * doc/result-noise.md, validated whole before use.
 *
 * Counts are integers: between two files the verdict is "equal", "more" or
 * "fewer". When the runs lasted different times (more than 1% apart) the
 * rates per minute are compared as well: their ratio to the reference.
 * The getpid figures carry the 95% interval of the median over the chunks
 * of one run; two intervals that do not overlap give "lower"/"higher",
 * else "overlap". Such an interval covers the spread inside one run only,
 * not the spread between runs.
 */
#ifndef TRACECOST_COMPARE_NOISE_H
#define TRACECOST_COMPARE_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TC_NOISE_CMP_TEXT	192

/** struct tc_noise_count - one count of a file: CPU, event, cause */
struct tc_noise_count {
	int cpu;
	char event[TC_NOISE_CMP_TEXT];
	char cause[TC_NOISE_CMP_TEXT];
	char callsite[TC_NOISE_CMP_TEXT];
	uint64_t count;
};

/**
 * struct tc_noise_loop - the loop of one target CPU
 * @kind:	"getpid" or "spin"
 * @valid:	getpid: ns_per_call present (at least one chunk)
 * @median, @ci_low, @ci_high, @ci_valid: getpid ns per call, median of the
 *		chunks and its interval
 * @rate:	calls (getpid) or loops (spin) per second
 */
struct tc_noise_loop {
	char kind[16];
	bool valid;
	double median, ci_low, ci_high;
	bool ci_valid;
	double rate;
};

/**
 * struct tc_noise_result - one result file
 * @path:	where it was read from
 * @release:	uname release of the header
 * @duration_s: how long the run traced
 * @measure, @load: the options of the run
 * @cpus, @nr_cpus: target CPUs, with @isolated, @ipis and @loop per CPU
 * @counts, @nr_counts: every count of the file
 */
struct tc_noise_result {
	char path[1024];
	char release[128];
	double duration_s;
	char measure[16];
	char load[16];
	int nr_cpus;
	int *cpus;
	bool *isolated;
	uint64_t *ipis;
	struct tc_noise_loop *loop;
	int nr_counts;
	struct tc_noise_count *counts;
};

/**
 * tc_noise_result_read() - read and validate a noise result file
 * @path: the file
 * @out:  output (tc_noise_result_free())
 * @err:  one line on failure: "PATH: problem" (JSON path of the bad field)
 * @len:  size of @err
 * Return: 0; -ENOENT (no such file) or -errno of the read; -EINVAL (not
 * JSON, not a tracecost file, file_version not 1, suite not "noise", a
 * missing or malformed field); -ENOMEM.
 */
int tc_noise_result_read(const char *path, struct tc_noise_result **out, char *err,
			 size_t len);

/** tc_noise_result_free() - free a result of tc_noise_result_read() */
void tc_noise_result_free(struct tc_noise_result *r);

/**
 * tc_noise_result_is() - whether @path is a JSON file whose "suite" is
 * "noise" (for compare to choose this reader); false for anything else,
 * including unreadable files
 */
bool tc_noise_result_is(const char *path);

/**
 * struct tc_noise_cmp_row - one (CPU, event, cause) across files
 * @count:   per file (0 where a file has no such row)
 * @per_min: per file, @count / duration * 60
 * @verdict: per file, against file 0: "equal", "more", "fewer" ("" for 0);
 *	     with ", rate xR" appended when durations differ by more than 1%
 *	     (R = per_min[i] / per_min[0], "new" when per_min[0] is 0)
 * @total:   the row is the total of IPIs sent to the CPU (event "ipis")
 */
struct tc_noise_cmp_row {
	int cpu;
	char event[TC_NOISE_CMP_TEXT];
	char cause[TC_NOISE_CMP_TEXT];
	char callsite[TC_NOISE_CMP_TEXT];
	bool total;
	uint64_t *count;
	double *per_min;
	char (*verdict)[64];
};

/**
 * struct tc_noise_cmp - files side by side
 * @n:	      number of files
 * @rows:     IPI total first for each CPU, then every (event, cause) of any
 *	      file, CPUs ascending
 * @loop_verdict: [cpu index][file], against file 0: "lower", "higher",
 *	      "overlap" (intervals overlap), "n/a" (no interval)
 * @cpus:     CPUs of file 0 (the others must have the same)
 */
struct tc_noise_cmp {
	int n;
	int nr_rows;
	struct tc_noise_cmp_row *rows;
	int nr_cpus;
	const int *cpus;
	char (*loop_verdict)[16];
};

/**
 * tc_noise_compare() - put @n files side by side, file 0 the reference
 * @files: results
 * @n:	   2 or more
 * @out:   output (tc_noise_compare_free())
 * @err:   one line when the files cannot be compared (different target
 *	   CPUs): -EINVAL
 * Return: 0, -EINVAL or -ENOMEM.
 */
int tc_noise_compare(struct tc_noise_result *const *files, int n, struct tc_noise_cmp **out,
		     char *err, size_t len);

/** tc_noise_compare_free() - free a result of tc_noise_compare() */
void tc_noise_compare_free(struct tc_noise_cmp *c);

#endif /* TRACECOST_COMPARE_NOISE_H */
