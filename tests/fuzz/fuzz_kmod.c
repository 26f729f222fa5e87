// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz_kmod.c - libFuzzer harness of the reader of the module's
 * debugfs results (parse_results() in src/suite_kernel.c, included here
 * whole: the parser is static there). Setup: 2 CPUs (0, 1), pairs irq and
 * preempt, 3 samples, one repetition, top-4, no pair event (the results'
 * version-2 echo of those parameters). For any text the reader either fills the
 * snapshots (buckets in range, then merged by tc_cells_merge() as a run
 * would) or rejects it the way the CLI does: one line and exit 1, here
 * exit() renamed to tc_fuzz_exit(), which jumps back.
 */
#define _GNU_SOURCE
#include <setjmp.h>

#include "../../src/suite_kernel.c"

static jmp_buf back;
static int exited;

void tc_fuzz_exit(int code) __attribute__((noreturn));
void tc_fuzz_exit(int code)
{
	exited = code;
	longjmp(back, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int cpus[2] = { 0, 1 };
	static struct kopts o;
	static struct tc_cell *cells;
	static char *text;
	struct kcounter kc;
	int i, k;

	if (size > 1 << 16)
		return 0;
	memset(&o, 0, sizeof(o));
	memset(&kc, 0, sizeof(kc));
	o.npairs = 2;
	o.pairs[0] = TC_KPAIR_IRQ;
	o.pairs[1] = TC_KPAIR_PREEMPT;
	o.highest = 4;
	o.samples = 3;
	o.repeat = 1;
	cells = tc_cells_alloc(2, 2, o.highest);
	text = malloc(size + 1);
	if (!cells || !text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	if (setjmp(back)) {
		if (exited != 1) {
			fprintf(stderr, "fuzz_kmod: rejected with exit %d, not 1\n", exited);
			abort();
		}
	} else {
		parse_results(text, &o, cpus, 2, 0, cells, NULL, 0, 0, &kc);
		for (i = 0; i < 2; i++)
			for (k = 0; k < 2; k++) {
				const struct tc_snapshot *s = &cells[i].snap[k];
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
