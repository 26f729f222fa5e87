// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/unit/test_kmod_results.c - the reader of tracecost.ko's results file
 * (tc_kmod_results_parse(), lib/kmod_results.c): a whole file into its
 * slots, and each kind of rejection with its -errno and one line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <tracecost/kmod.h>
#include <tracecost/kmod_results.h>
#include <tracecost/snapshot.h>

static const char header[] =
	"tracecost-kmod 2\n"
	"samples 3\n"
	"highest 4\n"
	"do_work 0\n"
	"pair_event 0\n"
	"pairs irq,preempt\n"
	"cpus 0-1\n"
	"hist_layout 1\n"
	"status done\n"
	"counter tsc\n"
	"counter_khz 2000000\n";

static const char cell_irq0[] =
	"cell 0 irq n 3 min 10 max 30 overflow 0 sum 0 60 clamped 1 omin 5 omax 7 resched 2\n"
	"b 10:1 20:1 30:1\n"
	"t 30 10 20\n";

static const char other_cells[] =
	"cell 0 preempt n 3 min 10 max 30 overflow 0 sum 0 60 clamped 0 omin 5 omax 7 resched 0\n"
	"b 10:1 20:1 30:1\n"
	"t 10 20 30\n"
	"cell 1 irq n 3 min 10 max 30 overflow 0 sum 0 60 clamped 0 omin 5 omax 7 resched 3\n"
	"b 10:1 20:1 30:1\n"
	"t 10 20 30\n"
	"cell 1 preempt n 3 min 10 max 30 overflow 0 sum 0 60 clamped 0 omin 5 omax 7 resched 0\n"
	"b 10:1 20:1 30:1\n"
	"t 10 20 30\n";

static const int cpus[2] = { 0, 1 };
static const int pairs[2] = { TC_KPAIR_IRQ, TC_KPAIR_PREEMPT };

struct parsed {
	struct tc_snapshot snaps[4];
	struct tc_snapshot *snap[4];
	uint64_t resched[2];
	struct tc_kmod_counter kc;
	char err[4096];
};

/* Parse the concatenation of @parts (NULL-terminated) with the standard run. */
static int parse(struct parsed *r, int samples, ...)
{
	const struct tc_kmod_run_config c = {
		.samples = (uint64_t)samples, .highest = 4, .pairs = pairs, .nr_pairs = 2,
		.cpus = cpus, .nr_cpus = 2, .cpu_list = "0-1",
	};
	char text[4096] = "";
	const char *part;
	va_list ap;
	int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->kc.name, sizeof(r->kc.name), "unknown");
	for (i = 0; i < 4; i++)
		r->snap[i] = &r->snaps[i];
	va_start(ap, samples);
	while ((part = va_arg(ap, const char *)))
		strncat(text, part, sizeof(text) - strlen(text) - 1);
	va_end(ap);
	return tc_kmod_results_parse(text, &c, 1, r->snap, r->resched, &r->kc, r->err,
				     sizeof(r->err));
}

static void release(struct parsed *r)
{
	int i;

	for (i = 0; i < 4; i++)
		tc_snapshot_free(&r->snaps[i]);
}

static void test_whole_file(void **state)
{
	struct parsed r;
	const struct tc_snapshot *s;

	(void)state;
	assert_int_equal(parse(&r, 3, header, cell_irq0, other_cells, NULL), 0);
	assert_string_equal(r.kc.name, "tsc");
	assert_int_equal(r.kc.khz, 2000000);
	/* slot [pair * nr_cpus + cpu]: irq on CPU 0 */
	s = r.snap[0];
	assert_int_equal(s->cpu, 0);
	assert_int_equal(s->rep, 1);
	assert_int_equal(s->nr_cpus, 1);
	assert_int_equal(s->n, 3);
	assert_int_equal(s->min, 10);
	assert_int_equal(s->max, 30);
	assert_int_equal(s->sum_lo, 60);
	assert_int_equal(s->clamped, 1);
	assert_int_equal(s->overhead_min, 5);
	assert_int_equal(s->overhead_max, 7);
	assert_int_equal(s->nr, 3);
	assert_int_equal(s->idx[2], 30);
	assert_int_equal(s->cnt[2], 1);
	/* heap order in the file, ascending in the snapshot */
	assert_int_equal(s->top_len, 3);
	assert_int_equal(s->top[0], 10);
	assert_int_equal(s->top[2], 30);
	/* irq on CPU 1 is slot 1, preempt on CPU 0 slot 2 */
	assert_int_equal(r.snap[1]->cpu, 1);
	assert_int_equal(r.snap[2]->cpu, 0);
	assert_int_equal(r.resched[0], 5);
	assert_int_equal(r.resched[1], 0);
	release(&r);
}

static void expect(int want, const char *msg, struct parsed *r, int got)
{
	assert_int_equal(got, want);
	assert_non_null(strstr(r->err, msg));
	assert_null(strchr(r->err, '\n'));
	release(r);
}

static void test_rejected(void **state)
{
	struct parsed r;

	(void)state;
	expect(-EPROTO, "results version 1", &r,
	       parse(&r, 3, "tracecost-kmod 1\n", NULL));
	expect(-EPROTO, "histogram layout 9", &r,
	       parse(&r, 3, "tracecost-kmod 2\nhist_layout 9\n", NULL));
	expect(-EIO, "tracecost.ko: failed: busy", &r,
	       parse(&r, 3, "tracecost-kmod 2\nstatus failed: busy\n", NULL));
	/* the run wrote samples 4: something else changed the file */
	expect(-EBUSY, "ran with samples 3, not 4", &r,
	       parse(&r, 4, header, cell_irq0, other_cells, NULL));
	expect(-EINVAL, "no version line", &r, parse(&r, 3, "status done\n", NULL));
	expect(-EINVAL, "CPU 0 pair irq reported twice", &r,
	       parse(&r, 3, header, cell_irq0, cell_irq0, NULL));
	expect(-EINVAL, "two bucket lines", &r,
	       parse(&r, 3, header, cell_irq0, "b 1:1\n", NULL));
	expect(-EINVAL, "two top-N lines", &r,
	       parse(&r, 3, header, cell_irq0, "t 1\n", NULL));
	expect(-EINVAL, "bad bucket", &r,
	       parse(&r, 3, header, "cell 0 irq n 1 min 1 max 1 overflow 0 sum 0 1 clamped 0"
		     " omin 0 omax 0 resched 0\nb 99999:1\n", NULL));
	expect(-EINVAL, "CPU 7 pair irq, not asked for", &r,
	       parse(&r, 3, header, "cell 7 irq n 1\n", NULL));
	expect(-EINVAL, "bad line", &r, parse(&r, 3, header, "cell 0 irq n 1\n", NULL));
	expect(-EINVAL, "1 of 4 CPU x pair cells", &r,
	       parse(&r, 3, header, cell_irq0, NULL));
	expect(-EINVAL, "0 of 6 configuration lines", &r,
	       parse(&r, 3, "tracecost-kmod 2\n", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_file),
		cmocka_unit_test(test_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
