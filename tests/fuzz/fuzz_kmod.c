// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz_kmod.c - libFuzzer harness of the reader of the module's
 * debugfs results (tc_kmod_results_parse(), lib/kmod_results.c). Setup: 2
 * CPUs (0, 1), pairs irq and preempt, 3 samples, one repetition, top-4, no
 * pair event (the results' version-2 echo of those parameters). For any
 * text the reader either fills the snapshots (buckets in range, then merged
 * by tc_cells_merge() as a run would) or rejects it with -errno and a
 * one-line message; either way everything it allocated is freed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/kmod.h>
#include <tracecost/kmod_results.h>
#include <tracecost/sampler.h>
#include <tracecost/snapshot.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int cpus[2] = { 0, 1 };
	static const int pairs[2] = { TC_KPAIR_IRQ, TC_KPAIR_PREEMPT };
	const struct tc_kmod_run_config c = {
		.samples = 3, .highest = 4, .do_work = 0, .pair_event = 0,
		.pairs = pairs, .nr_pairs = 2, .cpus = cpus, .nr_cpus = 2, .cpu_list = "0-1",
	};
	struct tc_kmod_counter kc = { .name = "unknown" };
	struct tc_snapshot *snap[4];
	struct tc_cell *cells;
	uint64_t resched[2] = { 0, 0 };
	char *text, err[4096];
	int i, k, ret;

	if (size > 1 << 16)
		return 0;
	cells = tc_cells_alloc(2, 2, c.highest);
	text = malloc(size + 1);
	if (!cells || !text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++)
			snap[i * 2 + k] = &cells[i].snap[k];
	err[0] = 0;
	ret = tc_kmod_results_parse(text, &c, 0, snap, resched, &kc, err, sizeof(err));
	if (ret) {
		if (ret != -EPROTO && ret != -EIO && ret != -EBUSY && ret != -EINVAL &&
		    ret != -ENOMEM) {
			fprintf(stderr, "fuzz_kmod: rejected with %d, not a documented -errno\n", ret);
			abort();
		}
		if (!err[0] || strchr(err, '\n')) {
			fprintf(stderr, "fuzz_kmod: rejected without a one-line message\n");
			abort();
		}
	} else {
		for (i = 0; i < 4; i++) {
			const struct tc_snapshot *s = snap[i];
			tc_u32 j;

			for (j = 0; j < s->nr; j++)
				if (s->idx[j] >= TC_HIST_NR_BUCKETS)
					abort();
		}
		tc_cells_merge(cells, 2, 2);
	}
	tc_cells_free(cells, 2, 2);
	free(text);
	return 0;
}
