/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/kmod_results.h - the reader of tracecost.ko's debugfs results
 * file (doc/kmod-results.md, version TC_KMOD_RESULTS_VERSION of
 * tracecost/kmod.h): one run of the module, every CPU x pair as a
 * repetition snapshot (tracecost/snapshot.h).
 *
 * One owner: lib/kmod_results.c. The kernel suite (src/suite_kernel.c)
 * calls it after each run of the module; tests/fuzz/fuzz_kmod.c drives it
 * with any text. It returns 0 or -errno with a one-line message; nothing
 * here prints or exits.
 *
 * Locking: none; the caller owns the text and the snapshots.
 */
#ifndef TRACECOST_KMOD_RESULTS_H
#define TRACECOST_KMOD_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tc_snapshot;

/**
 * struct tc_kmod_run_config - what a run wrote to the module's debugfs
 * files; the results echo it back, and a difference means that something
 * else wrote them during the run
 * @samples:	samples per CPU x pair (the "samples" file)
 * @highest:	top-N capacity per CPU x pair ("highest")
 * @do_work:	0 or 1 ("do_work")
 * @pair_event:	0 or 1 ("pair_event": tracecost:pair fired inside each pair)
 * @pairs:	enum tc_kmod_pair values, @nr_pairs of them, in the order
 *		written to "pairs" (their names, comma-separated)
 * @cpus:	CPU numbers, @nr_cpus of them
 * @cpu_list:	@cpus as written to "cpus" ("0-3,5")
 */
struct tc_kmod_run_config {
	uint64_t samples;
	unsigned int highest;
	int do_work;
	int pair_event;
	const int *pairs;
	int nr_pairs;
	const int *cpus;
	int nr_cpus;
	const char *cpu_list;
};

/**
 * struct tc_kmod_counter - the counter the module timed with
 * @name:	its name, as the module's "counter" line gives it
 * @khz:	its frequency in kHz, 0 when the module did not report one
 */
struct tc_kmod_counter {
	char name[64];
	unsigned long long khz;
};

/**
 * tc_kmod_results_parse() - read one run's results file
 * @text:	the file's content, NUL-terminated; split into lines in place
 * @c:		the run's configuration
 * @rep:	repetition (0-based) recorded in each snapshot
 * @snap:	@c->nr_pairs * @c->nr_cpus slots, [pair * nr_cpus + cpu], in
 *		the order of @c->pairs and @c->cpus; each must be zeroed on
 *		entry and is filled here (histogram buckets, ascending top-N,
 *		overhead range in ticks; free with tc_snapshot_free(), also
 *		after a failure)
 * @resched:	NULL, or @c->nr_pairs counters: each pair's samples that
 *		ended with a reschedule pending (summed over CPUs) are added
 * @kc:		output: the counter's name and frequency (left as they are
 *		when the file names none)
 * @err:	on failure, one line saying why
 * @len:	size of @err
 *
 * Every selected CPU x pair must be reported, once, with the run's echoed
 * configuration and status "done".
 *
 * Return: 0; -EPROTO (results version or histogram layout not this
 * reader's); -EIO (the run's status is not "done": @err holds it);
 * -EBUSY (an echoed configuration differs from @c); -EINVAL (a malformed,
 * repeated, missing or unasked-for line); -ENOMEM.
 */
int tc_kmod_results_parse(char *text, const struct tc_kmod_run_config *c, int rep,
			  struct tc_snapshot **snap, uint64_t *resched,
			  struct tc_kmod_counter *kc, char *err, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_KMOD_RESULTS_H */
