// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of lib/noise.c's grouping (decoded records in, rows out: which
 * target CPU, which cause, how nested events name a vector's cause, how a
 * csd_queue_cpu names the IPI that follows) and of lib/compare_noise.c (the
 * reader's refusals, the verdicts), on synthetic data without tracefs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <tracecost/compare_noise.h>

#include "noise_local.h"

enum { E_IPI, E_MASK, E_QUEUE, E_CFS, E_CFS_EXIT, E_TLB, E_CSDF, E_TIMER, E_SWITCH };

static struct tc_noise *setup_noise(void)
{
	static const int cpus[] = { 1, 3 };
	struct tc_noise *n;

	assert_int_equal(noise_new_bare(&n, cpus, 2), 0);
	assert_int_equal(noise_add_event(n, "ipi", "ipi_send_cpu", TC_NOISE_IPI_CPU), 0);
	assert_int_equal(noise_add_event(n, "ipi", "ipi_send_cpumask", TC_NOISE_IPI_MASK), 0);
	assert_int_equal(noise_add_event(n, "csd", "csd_queue_cpu", TC_NOISE_CSD_QUEUE), 0);
	assert_int_equal(noise_add_event(n, "irq_vectors", "call_function_single_entry",
					 TC_NOISE_VECTOR), 0);
	assert_int_equal(noise_add_event(n, "irq_vectors", "call_function_single_exit",
					 TC_NOISE_VECTOR_EXIT), 0);
	assert_int_equal(noise_add_event(n, "tlb", "tlb_flush", TC_NOISE_TLB), 0);
	assert_int_equal(noise_add_event(n, "csd", "csd_function_entry", TC_NOISE_CSD_FUNC), 0);
	assert_int_equal(noise_add_event(n, "irq_vectors", "local_timer_entry", TC_NOISE_VECTOR),
			 0);
	assert_int_equal(noise_add_event(n, "sched", "sched_switch", TC_NOISE_SWITCH), 0);
	noise_bracket(n);
	return n;
}

static void feed(struct tc_noise *n, int event, int cpu, uint64_t ts, int target, uint64_t addr,
		 uint64_t site, const char *str)
{
	struct noise_rec r = { .event = event, .cpu = cpu, .ts = ts, .target = target,
			       .addr = addr, .site = site, .str = str };

	assert_int_equal(noise_account(n, &r), 0);
}

static void name_of(void *ctx, uint64_t addr, char *buf, size_t len)
{
	(void)ctx;
	/* 0x1000..0x10ff are one function, like return addresses inside it */
	if (addr >= 0x1000 && addr < 0x1100)
		snprintf(buf, len, "flush_tlb_func");
	else
		snprintf(buf, len, "f%llx", (unsigned long long)addr);
}

static const struct tc_noise_row *row(struct tc_noise *n, int cpu, int event, const char *cause)
{
	const struct tc_noise_row *rows;
	int nr, i;

	rows = tc_noise_rows(n, &nr);
	for (i = 0; i < nr; i++)
		if (rows[i].cpu == cpu && rows[i].event == event && !strcmp(rows[i].cause, cause))
			return &rows[i];
	return NULL;
}

static void test_bracketed(void **state)
{
	struct tc_noise *n = setup_noise();

	(void)state;
	assert_true(n->bracketed[E_CFS]);
	assert_false(n->bracketed[E_TIMER]);
	assert_false(n->bracketed[E_TLB]);
	tc_noise_free(n);
}

static void test_targets_only(void **state)
{
	struct tc_noise *n = setup_noise();
	const struct tc_noise_row *r;
	unsigned long mask[2] = { 0, 0 };
	struct noise_rec m = { .event = E_MASK, .cpu = 0, .ts = 50, .mask = mask,
			       .mask_bytes = sizeof(mask), .addr = 0x1000, .site = 0x2000 };
	int nr;

	(void)state;
	feed(n, E_IPI, 0, 10, 1, 0x1000, 0x2000, NULL);
	feed(n, E_IPI, 0, 20, 1, 0x1001, 0x2000, NULL);	/* same function */
	feed(n, E_IPI, 0, 30, 2, 0x1000, 0x2000, NULL);	/* not a target */
	feed(n, E_IPI, 2, 40, 3, 0, 0x3000, NULL);	/* no callback: the callsite */
	mask[0] = (1UL << 1) | (1UL << 2) | (1UL << 3);
	assert_int_equal(noise_account(n, &m), 0);
	m.mask_bytes = 0;				/* empty mask: nobody */
	assert_int_equal(noise_account(n, &m), 0);
	feed(n, E_TIMER, 2, 60, -1, 0, 0, "vector 236");	/* on a housekeeping CPU */
	assert_int_equal(noise_build_rows(n, name_of, NULL), 0);
	tc_noise_rows(n, &nr);
	assert_int_equal(nr, 4);
	r = row(n, 1, E_IPI, "flush_tlb_func");
	assert_non_null(r);
	assert_int_equal(r->count, 2);
	assert_string_equal(r->callsite, "f2000");
	assert_int_equal(r->first_ns, 10);
	assert_int_equal(r->last_ns, 20);
	r = row(n, 3, E_IPI, "f3000");
	assert_non_null(r);
	assert_string_equal(r->callsite, "");
	assert_int_equal(row(n, 1, E_MASK, "flush_tlb_func")->count, 1);
	assert_int_equal(row(n, 3, E_MASK, "flush_tlb_func")->count, 1);
	assert_int_equal(n->unmatched, 3);
	tc_noise_free(n);
}

static void test_csd_names_ipi(void **state)
{
	struct tc_noise *n = setup_noise();

	(void)state;
	/* csd_queue_cpu then the generic single-IPI handler, on sending CPU 0 */
	feed(n, E_QUEUE, 0, 10, 1, 0x1000, 0x5000, NULL);
	feed(n, E_IPI, 0, 11, 1, 0x7000, 0x6000, NULL);
	/* a queueing for CPU 3 does not name an IPI to CPU 1 */
	feed(n, E_QUEUE, 2, 20, 3, 0x8000, 0x5000, NULL);
	feed(n, E_IPI, 2, 21, 1, 0x7000, 0x6000, NULL);
	/* the queueing is used once */
	feed(n, E_IPI, 0, 30, 1, 0x7000, 0x6000, NULL);
	assert_int_equal(noise_build_rows(n, name_of, NULL), 0);
	assert_int_equal(row(n, 1, E_IPI, "flush_tlb_func")->count, 1);
	assert_string_equal(row(n, 1, E_IPI, "flush_tlb_func")->callsite, "f6000");
	assert_int_equal(row(n, 1, E_IPI, "f7000")->count, 2);
	assert_int_equal(row(n, 1, E_QUEUE, "flush_tlb_func")->count, 1);
	assert_int_equal(row(n, 3, E_QUEUE, "f8000")->count, 1);
	tc_noise_free(n);
}

static void test_vector_causes(void **state)
{
	struct tc_noise *n = setup_noise();
	int nr;

	(void)state;
	/* an IPI whose handler flushed the TLB */
	feed(n, E_CFS, 1, 100, -1, 0, 0, "vector 251");
	feed(n, E_TLB, 1, 101, -1, 0, 0, "remote shootdown");
	feed(n, E_CFS_EXIT, 1, 102, -1, 0, 0, NULL);
	/* the csd callback outranks the flush reason, whatever the order */
	feed(n, E_CFS, 1, 200, -1, 0, 0, "vector 251");
	feed(n, E_TLB, 1, 201, -1, 0, 0, "remote shootdown");
	feed(n, E_CSDF, 1, 202, -1, 0x1000, 0, NULL);
	feed(n, E_CFS_EXIT, 1, 203, -1, 0, 0, NULL);
	/* nothing inside: the vector number */
	feed(n, E_CFS, 3, 300, -1, 0, 0, "vector 251");
	feed(n, E_CFS_EXIT, 3, 301, -1, 0, 0, NULL);
	/* a flush after the exit does not name the closed entry */
	feed(n, E_CFS, 3, 400, -1, 0, 0, "vector 251");
	feed(n, E_CFS_EXIT, 3, 401, -1, 0, 0, NULL);
	feed(n, E_TLB, 3, 402, -1, 0, 0, "flush on task switch");
	/* a timer entry has no exit event: never refined */
	feed(n, E_TIMER, 1, 500, -1, 0, 0, "vector 236");
	feed(n, E_TLB, 1, 501, -1, 0, 0, "flush on task switch");
	/* an entry still open at the end counts too */
	feed(n, E_CFS, 1, 600, -1, 0, 0, "vector 251");
	feed(n, E_TLB, 1, 601, -1, 0, 0, "remote shootdown");
	assert_int_equal(noise_flush_pending(n), 0);
	assert_int_equal(noise_build_rows(n, name_of, NULL), 0);
	assert_int_equal(row(n, 1, E_CFS, "tlb_flush: remote shootdown")->count, 2);
	assert_int_equal(row(n, 1, E_CFS, "tlb_flush: remote shootdown")->first_ns, 100);
	assert_int_equal(row(n, 1, E_CFS, "tlb_flush: remote shootdown")->last_ns, 600);
	assert_int_equal(row(n, 1, E_CFS, "flush_tlb_func")->count, 1);
	assert_int_equal(row(n, 3, E_CFS, "vector 251")->count, 2);
	assert_int_equal(row(n, 1, E_TIMER, "vector 236")->count, 1);
	assert_int_equal(row(n, 1, E_TLB, "remote shootdown")->count, 3);
	assert_int_equal(row(n, 1, E_TLB, "flush on task switch")->count, 1);
	assert_int_equal(row(n, 1, E_CSDF, "flush_tlb_func")->count, 1);
	assert_null(row(n, 1, E_CFS_EXIT, "-"));
	tc_noise_rows(n, &nr);
	assert_int_equal(nr, 8);
	tc_noise_free(n);
}

static void test_rows_sorted(void **state)
{
	struct tc_noise *n = setup_noise();
	const struct tc_noise_row *rows;
	uint64_t seed = 7;
	int i, nr;

	(void)state;
	for (i = 0; i < 1000; i++) {
		static const char *const comm[] = { "kworker/1:1", "ksoftirqd/1", "rcu_preempt" };

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		feed(n, E_SWITCH, (seed >> 40) & 1 ? 1 : 3, (uint64_t)i, -1, 0, 0,
		     comm[(seed >> 33) % 3]);
	}
	assert_int_equal(noise_build_rows(n, name_of, NULL), 0);
	rows = tc_noise_rows(n, &nr);
	assert_int_equal(nr, 6);
	for (i = 1; i < nr; i++) {
		assert_true(rows[i - 1].cpu <= rows[i].cpu);
		if (rows[i - 1].cpu == rows[i].cpu)
			assert_true(rows[i - 1].count >= rows[i].count);
	}
	{
		uint64_t total = 0;

		for (i = 0; i < nr; i++)
			total += rows[i].count;
		assert_int_equal(total, 1000);
	}
	tc_noise_free(n);
}

/* ---- compare ------------------------------------------------------------- */

static struct tc_noise_result *result(double duration, uint64_t ipis, uint64_t flush,
				      double median, double lo, double hi)
{
	struct tc_noise_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	snprintf(r->path, sizeof(r->path), "r%.0f.json", duration);
	snprintf(r->release, sizeof(r->release), "6.1");
	r->duration_s = duration;
	r->nr_cpus = 1;
	r->cpus = calloc(1, sizeof(int));
	r->isolated = calloc(1, sizeof(bool));
	r->ipis = calloc(1, sizeof(uint64_t));
	r->loop = calloc(1, sizeof(*r->loop));
	r->counts = calloc(1, sizeof(*r->counts));
	r->cpus[0] = 1;
	r->ipis[0] = ipis;
	snprintf(r->loop[0].kind, sizeof(r->loop[0].kind), "getpid");
	r->loop[0].valid = true;
	r->loop[0].ci_valid = true;
	r->loop[0].median = median;
	r->loop[0].ci_low = lo;
	r->loop[0].ci_high = hi;
	if (flush) {
		r->nr_counts = 1;
		r->counts[0].cpu = 1;
		snprintf(r->counts[0].event, sizeof(r->counts[0].event), "ipi:ipi_send_cpu");
		snprintf(r->counts[0].cause, sizeof(r->counts[0].cause), "flush_tlb_func");
		r->counts[0].count = flush;
	}
	return r;
}

static const struct tc_noise_cmp_row *crow(const struct tc_noise_cmp *c, bool total,
					   const char *cause)
{
	int i;

	for (i = 0; i < c->nr_rows; i++)
		if (c->rows[i].total == total && !strcmp(c->rows[i].cause, cause))
			return &c->rows[i];
	return NULL;
}

static void test_compare_verdicts(void **state)
{
	struct tc_noise_result *f[4];
	struct tc_noise_cmp *c;
	char err[256];

	(void)state;
	f[0] = result(60, 100, 100, 770, 760, 780);
	f[1] = result(60, 100, 0, 1340, 1300, 1380);	/* no flush row: 0, fewer */
	f[2] = result(60.3, 120, 100, 775, 765, 800);	/* within 1%: counts only */
	f[3] = result(120, 100, 400, 500, 480, 520);	/* twice as long */
	assert_int_equal(tc_noise_compare(f, 4, &c, err, sizeof(err)), 0);
	assert_true(c->rows[0].total);			/* the IPI total first */
	assert_string_equal(crow(c, true, "")->verdict[1], "equal");
	assert_string_equal(crow(c, true, "")->verdict[2], "more");
	assert_string_equal(crow(c, true, "")->verdict[3], "equal, rate x0.50");
	assert_string_equal(crow(c, false, "flush_tlb_func")->verdict[1], "fewer");
	assert_int_equal(crow(c, false, "flush_tlb_func")->count[1], 0);
	assert_string_equal(crow(c, false, "flush_tlb_func")->verdict[2], "equal");
	assert_string_equal(crow(c, false, "flush_tlb_func")->verdict[3], "more, rate x2.00");
	assert_true(crow(c, false, "flush_tlb_func")->per_min[3] == 200.0);
	assert_string_equal(c->loop_verdict[1], "higher");
	assert_string_equal(c->loop_verdict[2], "overlap");
	assert_string_equal(c->loop_verdict[3], "lower");
	tc_noise_compare_free(c);
	/* a row only the later file has: rate "new" */
	assert_int_equal(tc_noise_compare((struct tc_noise_result *[]){ f[1], f[3] }, 2, &c, err,
					  sizeof(err)), 0);
	assert_string_equal(crow(c, false, "flush_tlb_func")->verdict[1], "more, rate new");
	tc_noise_compare_free(c);
	/* different targets cannot be compared */
	f[3]->cpus[0] = 2;
	assert_int_equal(tc_noise_compare(f, 4, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "different target CPUs"));
	assert_int_equal(tc_noise_compare(f, 1, &c, err, sizeof(err)), -EINVAL);
	for (int i = 0; i < 4; i++)
		tc_noise_result_free(f[i]);
}

static int read_text(const char *text, char *err, size_t len)
{
	char path[] = "/tmp/tc-noise-XXXXXX";
	struct tc_noise_result *r;
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ret = tc_noise_result_read(path, &r, err, len);
	if (!ret) {
		assert_int_equal(r->nr_cpus, 1);
		assert_int_equal(r->nr_counts, 1);
		assert_int_equal(r->counts[0].count, 5);
		tc_noise_result_free(r);
	}
	unlink(path);
	return ret;
}

#define HDR "{\"tool\": {\"name\": \"tracecost\"}, \"file_version\": 1, \"suite\": \"noise\", " \
	    "\"uname\": {\"release\": \"6.1\"}, "
#define TGT(count, loop) "\"targets\": [{\"cpu\": 1, \"ipis\": 5, \"isolated\": true, " \
	"\"counts\": [{\"event\": \"ipi:ipi_send_cpu\", \"cause\": \"f\", \"callsite\": \"\", " \
	"\"count\": " count "}], \"loop\": " loop "}]"
#define GETPID "{\"kind\": \"getpid\", \"calls\": 10, \"calls_per_s\": 5, \"ns_per_call\": " \
	"{\"median\": 3, \"ci_valid\": true, \"ci_low\": 2, \"ci_high\": 4}}"
#define SEC(dur, count, loop) "\"noise\": {\"duration_s\": " dur ", \"measure\": \"getpid\", " \
	"\"load\": \"tlb\", " TGT(count, loop) "}}"

static void test_reader(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(read_text(HDR SEC("10", "5", GETPID), err, sizeof(err)), 0);
	assert_int_equal(read_text("{\"a\": 1}", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a tracecost result file"));
	assert_int_equal(read_text("{\"tool\": {}, \"file_version\": 1, \"suite\": \"system\"}",
				   err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "suite 'noise' expected"));
	assert_int_equal(read_text("{\"tool\": {}, \"file_version\": 2, \"suite\": \"noise\"}",
				   err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "file_version 1"));
	assert_int_equal(read_text(HDR SEC("0", "5", GETPID), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "noise.duration_s"));
	assert_int_equal(read_text(HDR SEC("10", "-1", GETPID), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "noise.targets[0].counts[0]"));
	assert_int_equal(read_text(HDR SEC("10", "2.5", GETPID), err, sizeof(err)), -EINVAL);
	assert_int_equal(read_text(HDR SEC("10", "5", "{\"kind\": \"walk\"}"), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "noise.targets[0].loop"));
	assert_int_equal(read_text(HDR SEC("10", "5", "{\"kind\": \"getpid\", \"calls_per_s\": 5, "
				   "\"ns_per_call\": {\"median\": 3, \"ci_valid\": true, "
				   "\"ci_low\": 4, \"ci_high\": 2}}"), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ci_low <= ci_high"));
	assert_int_equal(read_text(HDR SEC("10", "5", GETPID) " trailing", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not JSON"));
	assert_int_equal(read_text("{\"tool\": {}, \"file_version\": 1, \"suite\": \"noise\", "
				   "\"suite\": \"noise\"}", err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bracketed),
		cmocka_unit_test(test_targets_only),
		cmocka_unit_test(test_csd_names_ipi),
		cmocka_unit_test(test_vector_causes),
		cmocka_unit_test(test_rows_sorted),
		cmocka_unit_test(test_compare_verdicts),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
