// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Toggle semantics of every hooked configuration of the toggle subject,
 * counted by a test probe: preempt events only on the outermost transition,
 * irq events only on a real state change, irq_save/restore likewise; the
 * recording probe's ring buffer (overwrite mode, overrun count). static+q
 * (QSBR tracepoints) twice: from a thread that is no QSBR reader (the memb
 * path) and from an online QSBR reader (the fast path).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <tracecost/ringbuf.h>
#include <tracecost/subject.h>
#include <tracecost/toggle.h>
#include <tracecost/tracepoint.h>

#define DECL_SITES(id)								\
	void id##_site_preempt_disable(void);					\
	void id##_site_preempt_enable(void);					\
	void id##_site_irq_disable(void);					\
	void id##_site_irq_enable(void);					\
	unsigned long id##_site_irq_save(void);					\
	void id##_site_irq_restore(unsigned long f);				\
	static const struct sites id##_sites = {				\
		id##_site_preempt_disable, id##_site_preempt_enable,		\
		id##_site_irq_disable, id##_site_irq_enable,			\
		id##_site_irq_save, id##_site_irq_restore, &tc_subject_##id,	\
	}

struct sites {
	void (*preempt_disable)(void);
	void (*preempt_enable)(void);
	void (*irq_disable)(void);
	void (*irq_enable)(void);
	unsigned long (*irq_save)(void);
	void (*irq_restore)(unsigned long f);
	const struct tc_subject *subject;
};

DECL_SITES(stock);
DECL_SITES(call);
DECL_SITES(callp);
DECL_SITES(static);
DECL_SITES(staticp);
DECL_SITES(staticq);

static unsigned long hits[TC_NR_SUBJECT_TPS];
static unsigned long last_ip[TC_NR_SUBJECT_TPS];

static void count_probe(void *data, unsigned long ip, unsigned long parent_ip)
{
	int i = (int)(intptr_t)data;

	hits[i]++;
	last_ip[i] = ip;
	(void)parent_ip;
}

static void attach(const struct tc_subject *s)
{
	int i;

	for (i = 0; i < TC_NR_SUBJECT_TPS; i++)
		assert_int_equal(tc_tracepoint_probe_register(s->tp[i], (void *)count_probe,
							      (void *)(intptr_t)i), 0);
	memset(hits, 0, sizeof(hits));
	memset(last_ip, 0, sizeof(last_ip));
}

static void detach(const struct tc_subject *s)
{
	int i;

	for (i = 0; i < TC_NR_SUBJECT_TPS; i++)
		assert_int_equal(tc_tracepoint_probe_unregister(s->tp[i], (void *)count_probe,
								(void *)(intptr_t)i), 0);
	tc_tracepoint_synchronize_unregister();
}

#define EXPECT(d_irq, e_irq, d_pre, e_pre) do {					\
		assert_int_equal(hits[TC_TP_IRQ_DISABLE], d_irq);		\
		assert_int_equal(hits[TC_TP_IRQ_ENABLE], e_irq);		\
		assert_int_equal(hits[TC_TP_PREEMPT_DISABLE], d_pre);		\
		assert_int_equal(hits[TC_TP_PREEMPT_ENABLE], e_pre);		\
	} while (0)

static void semantics(const struct sites *st)
{
	unsigned long f1, f2;

	assert_int_equal(tc_preempt_count(), 0);
	assert_int_equal(tc_irqs_disabled(), 0);
	attach(st->subject);

	/* preempt: only the outermost transition emits */
	st->preempt_disable();
	EXPECT(0, 0, 1, 0);
	assert_int_not_equal(last_ip[TC_TP_PREEMPT_DISABLE], 0);
	st->preempt_disable();
	st->preempt_disable();
	assert_int_equal(tc_preempt_count(), 3);
	EXPECT(0, 0, 1, 0);
	st->preempt_enable();
	st->preempt_enable();
	EXPECT(0, 0, 1, 0);
	st->preempt_enable();
	EXPECT(0, 0, 1, 1);
	assert_int_equal(tc_preempt_count(), 0);

	/* irq: only real state changes emit */
	st->irq_disable();
	EXPECT(1, 0, 1, 1);
	st->irq_disable();
	EXPECT(1, 0, 1, 1);
	assert_int_equal(tc_irqs_disabled(), 1);
	st->irq_enable();
	EXPECT(1, 1, 1, 1);
	st->irq_enable();
	EXPECT(1, 1, 1, 1);
	assert_int_equal(tc_irqs_disabled(), 0);

	/* irq_save/restore: nested save emits nothing, inner restore nothing */
	f1 = st->irq_save();
	assert_int_equal(f1, 0);
	EXPECT(2, 1, 1, 1);
	f2 = st->irq_save();
	assert_int_not_equal(f2, 0);
	EXPECT(2, 1, 1, 1);
	st->irq_restore(f2);
	EXPECT(2, 1, 1, 1);
	assert_int_equal(tc_irqs_disabled(), 1);
	st->irq_restore(f1);
	EXPECT(2, 2, 1, 1);
	assert_int_equal(tc_irqs_disabled(), 0);
	/* restore of "enabled" while enabled is no state change */
	st->irq_restore(0);
	EXPECT(2, 2, 1, 1);

	detach(st->subject);
	/* no probes: nothing is called */
	st->preempt_disable();
	st->preempt_enable();
	st->irq_disable();
	st->irq_enable();
	EXPECT(2, 2, 1, 1);
}

static void test_call(void **state) { semantics(&call_sites); }
static void test_callp(void **state) { semantics(&callp_sites); }
static void test_static(void **state) { semantics(&static_sites); }
static void test_staticp(void **state) { semantics(&staticp_sites); }
static void test_staticq(void **state) { semantics(&staticq_sites); }

static void test_staticq_qsbr(void **state)
{
	tc_thread_qsbr_register();
	semantics(&staticq_sites);
	tc_thread_qsbr_unregister();
}

static void test_stock(void **state)
{
	int i;

	for (i = 0; i < TC_NR_SUBJECT_TPS; i++)
		assert_null(stock_sites.subject->tp[i]);
	stock_sites.preempt_disable();
	assert_int_equal(tc_preempt_count(), 1);
	stock_sites.preempt_enable();
	assert_int_equal(tc_preempt_count(), 0);
	stock_sites.irq_disable();
	assert_int_equal(tc_irqs_disabled(), 1);
	stock_sites.irq_enable();
	assert_int_equal(tc_irqs_disabled(), 0);
}

/* The sample loops fire one event per toggle, per pair, with the probe attached. */
static void test_loops_fire(void **state)
{
	static uint64_t out[64];
	const struct tc_subject *subs[] = { &tc_subject_call, &tc_subject_static,
					    &tc_subject_staticq };
	size_t i;

	tc_thread_qsbr_register();	/* static+q: the QSBR fast path */
	for (i = 0; i < 3; i++) {
		attach(subs[i]);
		subs[i]->loop[TC_PAIR_IRQ][TC_LOOP_PLAIN](out, 64, 1);
		EXPECT(64, 64, 0, 0);
		subs[i]->loop[TC_PAIR_PREEMPT][TC_LOOP_WORK](out, 10, 3);
		EXPECT(64, 64, 30, 30);
		subs[i]->loop[TC_PAIR_IRQ_SAVE][TC_LOOP_PLAIN](out, 5, 1);
		EXPECT(69, 69, 30, 30);
		detach(subs[i]);
		assert_int_equal(tc_preempt_count(), 0);
		assert_int_equal(tc_irqs_disabled(), 0);
	}
	tc_thread_qsbr_unregister();
}

/* The recording probe: overwrite mode, overrun count, fields filled in. */
static void test_recorder(void **state)
{
	struct tc_recorder *rec;
	struct tc_event ev;
	uint64_t events, overruns;
	int i;

	assert_int_equal(tc_recorder_create(3, &rec), -EINVAL);
	assert_int_equal(tc_recorder_create(8, &rec), 0);
	assert_int_equal(tc_recorder_last(rec, &ev), -ENOENT);
	assert_int_equal(tc_recorder_thread_init(rec), 0);
	for (i = 1; i <= 20; i++)
		tc_record_probe(rec, (unsigned long)i, (unsigned long)(100 + i));
	tc_recorder_totals(rec, &events, &overruns);
	assert_int_equal(events, 20);
	assert_int_equal(overruns, 12);
	assert_int_equal(tc_recorder_last(rec, &ev), 0);
	assert_int_equal(ev.ip, 20);
	assert_int_equal(ev.parent_ip, 120);
	assert_true(ev.ts != 0);
	/* the thread may migrate between the event and now: a valid CPU only */
	assert_true(ev.cpu < (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	assert_true(tc_current_cpu() >= 0);
	tc_recorder_destroy(rec);
}

/* Through a tracepoint: the site passes its ip, the probe records it. */
static void test_recorder_on_tracepoint(void **state)
{
	const struct tc_subject *s = &tc_subject_static;
	struct tc_recorder *rec;
	struct tc_event ev;
	uint64_t events, overruns;

	assert_int_equal(tc_recorder_create(16, &rec), 0);
	assert_int_equal(tc_tracepoint_probe_register(s->tp[TC_TP_PREEMPT_DISABLE],
						      (void *)tc_record_probe, rec), 0);
	static_sites.preempt_disable();
	static_sites.preempt_enable();
	assert_int_equal(tc_tracepoint_probe_unregister(s->tp[TC_TP_PREEMPT_DISABLE],
							(void *)tc_record_probe, rec), 0);
	tc_tracepoint_synchronize_unregister();
	tc_recorder_totals(rec, &events, &overruns);
	assert_int_equal(events, 1);
	assert_int_equal(overruns, 0);
	assert_int_equal(tc_recorder_last(rec, &ev), 0);
	/* the site's ip lies inside the site function */
	assert_true(ev.ip >= (unsigned long)static_site_preempt_disable);
	assert_true(ev.ip < (unsigned long)static_site_preempt_disable + 256);
	assert_int_not_equal(ev.parent_ip, 0);
	tc_recorder_destroy(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stock),
		cmocka_unit_test(test_call),
		cmocka_unit_test(test_callp),
		cmocka_unit_test(test_static),
		cmocka_unit_test(test_staticp),
		cmocka_unit_test(test_staticq),
		cmocka_unit_test(test_staticq_qsbr),
		cmocka_unit_test(test_loops_fire),
		cmocka_unit_test(test_recorder),
		cmocka_unit_test(test_recorder_on_tracepoint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
