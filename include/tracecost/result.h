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

#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include <tracecost/clock.h>
#include <tracecost/sampler.h>
#include <tracecost/stats.h>
#include <tracecost/sysinfo.h>

#define TC_RESULT_FILE_VERSION	1

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

/** tc_u128_to_json() - exact decimal string of a 128-bit sum (JSON numbers are doubles) */
json_t *tc_u128_to_json(tc_u64 hi, tc_u64 lo);

/** tc_stats_to_json() - the figures of struct tc_stats, in ticks (scaled by @div) */
json_t *tc_stats_to_json(const struct tc_stats *s, double div);

/** tc_snapshot_to_json() - one CPU x repetition histogram (sparse) and top-N */
json_t *tc_snapshot_to_json(const struct tc_snapshot *s);

/**
 * tc_result_write() - write @root to @path atomically
 *
 * Writes "@path.tmp.PID" and renames it over @path, so a reader (or an
 * interrupted run) never sees a partial file. "-" writes to stdout.
 * Return: 0 or -errno.
 */
int tc_result_write(json_t *root, const char *path);

#endif /* TRACECOST_RESULT_H */
