// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tracepoint.c - tracepoint probe registration: calls counted by test
 * probes, error codes (-EEXIST, -ENOENT, -EINVAL), key enabled iff probes are
 * attached, call order and data of several probes, no call without probes,
 * the out-of-line __tc_do_trace_* shape, macro names, and lazy RCU
 * registration of a thread that exits; the QSBR tracepoints
 * (TC_DEFINE_TRACEPOINT_QSBR): an online QSBR thread calls the probes
 * without the memb read side (it never gets registered with liburcu-memb),
 * offline or unregistered threads take the memb path, and a grace period
 * waits for an online QSBR reader inside a probe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <tracecost/compiler.h>
#include <tracecost/static_key.h>
#include <tracecost/tracepoint.h>

#include "site_insn.h"

/* A global tracepoint whose name is a macro (like the toggle subject's). */
#define TP_PREFIX	unit_
#define TP_NAME		TC_CONCAT(TP_PREFIX, basic)

TC_DECLARE_TRACEPOINT(TP_NAME, TC_TP_PROTO(int a, unsigned long b), TC_TP_ARGS(a, b));
TC_DEFINE_TRACEPOINT(TP_NAME, TC_TP_PROTO(int a, unsigned long b), TC_TP_ARGS(a, b));

/* A file-local one. */
TC_DEFINE_TRACEPOINT_STATIC(local, TC_TP_PROTO(unsigned long ip, unsigned long parent_ip),
			    TC_TP_ARGS(ip, parent_ip));

/* QSBR ones: a declared/defined global and a file-local one. */
TC_DECLARE_TRACEPOINT(unit_qglobal, TC_TP_PROTO(unsigned long ip, unsigned long parent_ip),
		      TC_TP_ARGS(ip, parent_ip));
TC_DEFINE_TRACEPOINT_QSBR(unit_qglobal, TC_TP_PROTO(unsigned long ip, unsigned long parent_ip),
			  TC_TP_ARGS(ip, parent_ip));
TC_DEFINE_TRACEPOINT_STATIC_QSBR(qlocal,
				 TC_TP_PROTO(unsigned long ip, unsigned long parent_ip),
				 TC_TP_ARGS(ip, parent_ip));

/* The sites, out of line so that each tracepoint has one site here. */
static tc_noinline void site_basic(int a, unsigned long b) { tc_trace_unit_basic(a, b); }
static tc_noinline void site_local(unsigned long ip) { tc_trace(local, ip, ip + 1); }
static tc_noinline void site_qlocal(unsigned long ip) { tc_trace_qlocal(ip, ip + 1); }
static tc_noinline void site_qglobal(unsigned long ip) { tc_trace_unit_qglobal(ip, ip + 1); }

/* What the probes saw. */
struct rec {
	char tag;		/* which probe/data */
	int a;
	unsigned long b;
};

static struct rec log_buf[64];
static int log_len;

static void log_reset(void)
{
	log_len = 0;
	memset(log_buf, 0, sizeof(log_buf));
}

static void probe_a(void *data, int a, unsigned long b)
{
	if (log_len < (int)TC_ARRAY_SIZE(log_buf))
		log_buf[log_len++] = (struct rec){ .tag = *(const char *)data, .a = a, .b = b };
}

/* Same prototype, another function: tag is upper-cased. */
static void probe_b(void *data, int a, unsigned long b)
{
	if (log_len < (int)TC_ARRAY_SIZE(log_buf))
		log_buf[log_len++] = (struct rec){ .tag = (char)(*(const char *)data - 32),
						   .a = a, .b = b };
}

static unsigned long local_calls, local_last_ip;

static void probe_local(void *data, unsigned long ip, unsigned long parent_ip)
{
	local_calls += (unsigned long)(uintptr_t)data;
	local_last_ip = ip;
	assert_int_equal(parent_ip, ip + 1);
}

static const char tag_x = 'x', tag_y = 'y', tag_z = 'z';

/* Key enabled, enabled() helper and (asm build) site bytes agree with @on. */
static void check_key(bool on)
{
	void *a[4];
	int n;

	assert_int_equal(tc_static_key_enabled(&__tc_tp_unit_basic.key), on);
	assert_int_equal(tc_trace_unit_basic_enabled(), on);
	assert_int_equal(tc_trace_enabled(TP_NAME), on);
	n = tc_static_key_sites(&__tc_tp_unit_basic.key, a, 4);
	if (!TC_STATIC_KEY_ASM_GOTO) {
		assert_int_equal(n, 0);
		return;
	}
	assert_true(n >= 1);
	for (int i = 0; i < n && i < 4; i++) {
		const unsigned char *s = a[i];

		if (on)
			assert_true(tc_test_site_jump(s, NULL));
		else
			assert_true(tc_test_site_is_nop(s));
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(__tc_tp_unit_basic.name, "unit_basic");
	assert_string_equal(tc_tracepoint_ptr(TP_NAME)->name, "unit_basic");
	assert_string_equal(__tc_tp_local.name, "local");
	assert_null(__tc_tp_unit_basic.funcs);
}

static void test_no_probes(void **state)
{
	(void)state;
	log_reset();
	check_key(false);
	site_basic(1, 2);
	tc_trace_unit_basic(3, 4);
	/* The out-of-line shape, called unconditionally: returns at once. */
	__tc_do_trace_unit_basic(5, 6);
	assert_int_equal(log_len, 0);
}

static void test_register_unregister(void **state)
{
	(void)state;
	log_reset();
	assert_int_equal(tc_register_trace_unit_basic(probe_a, (void *)&tag_x), 0);
	check_key(true);
	assert_non_null(__tc_tp_unit_basic.funcs);
	site_basic(7, 8);
	__tc_do_trace_unit_basic(9, 10);
	assert_int_equal(log_len, 2);
	assert_int_equal(log_buf[0].tag, 'x');
	assert_int_equal(log_buf[0].a, 7);
	assert_int_equal(log_buf[0].b, 8);
	assert_int_equal(log_buf[1].a, 9);
	assert_int_equal(log_buf[1].b, 10);

	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_x), 0);
	tc_tracepoint_synchronize_unregister();
	check_key(false);
	assert_null(__tc_tp_unit_basic.funcs);
	site_basic(11, 12);
	__tc_do_trace_unit_basic(13, 14);
	assert_int_equal(log_len, 2);

	/* Again, through the generic API. */
	assert_int_equal(tc_tracepoint_probe_register(&__tc_tp_unit_basic, (void *)probe_a,
						      (void *)&tag_x), 0);
	site_basic(15, 16);
	assert_int_equal(log_len, 3);
	assert_int_equal(tc_tracepoint_probe_unregister(&__tc_tp_unit_basic, (void *)probe_a,
							(void *)&tag_x), 0);
	check_key(false);
}

static void test_errors(void **state)
{
	(void)state;
	assert_int_equal(tc_tracepoint_probe_register(NULL, (void *)probe_a, NULL), -EINVAL);
	assert_int_equal(tc_tracepoint_probe_register(&__tc_tp_unit_basic, NULL, NULL), -EINVAL);
	assert_int_equal(tc_tracepoint_probe_unregister(NULL, (void *)probe_a, NULL), -EINVAL);
	assert_int_equal(tc_tracepoint_probe_unregister(&__tc_tp_unit_basic, NULL, NULL), -EINVAL);

	/* Unknown probe: nothing registered at all, then a different data. */
	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_x), -ENOENT);
	assert_int_equal(tc_register_trace_unit_basic(probe_a, (void *)&tag_x), 0);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_y), -ENOENT);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_b, (void *)&tag_x), -ENOENT);

	/* Duplicate probe+data: -EEXIST, and the key count is unchanged. */
	assert_int_equal(tc_register_trace_unit_basic(probe_a, (void *)&tag_x), -EEXIST);
	assert_int_equal(__tc_tp_unit_basic.key.key.enabled, 1);
	/* Same probe, other data: fine. NULL data is a valid value. */
	assert_int_equal(tc_register_trace_unit_basic(probe_a, (void *)&tag_y), 0);
	assert_int_equal(tc_register_trace_unit_basic(probe_b, NULL), 0);
	assert_int_equal(tc_register_trace_unit_basic(probe_b, NULL), -EEXIST);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_b, NULL), 0);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_b, NULL), -ENOENT);
	assert_int_equal(__tc_tp_unit_basic.key.key.enabled, 1);

	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_x), 0);
	check_key(true);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_y), 0);
	check_key(false);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_y), -ENOENT);
	assert_int_equal(__tc_tp_unit_basic.key.key.enabled, 0);
}

static void expect_tags(const char *tags, int a)
{
	int n = (int)strlen(tags);

	assert_int_equal(log_len, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(log_buf[i].tag, tags[i]);
		assert_int_equal(log_buf[i].a, a);
		assert_int_equal(log_buf[i].b, (unsigned long)a * 10);
	}
}

static void test_order(void **state)
{
	(void)state;
	assert_int_equal(tc_register_trace_unit_basic(probe_a, (void *)&tag_x), 0);
	assert_int_equal(tc_register_trace_unit_basic(probe_b, (void *)&tag_y), 0);
	assert_int_equal(tc_register_trace_unit_basic(probe_a, (void *)&tag_z), 0);
	log_reset();
	site_basic(1, 10);
	expect_tags("xYz", 1);

	/* Remove the middle one: the others keep their order. */
	assert_int_equal(tc_unregister_trace_unit_basic(probe_b, (void *)&tag_y), 0);
	log_reset();
	site_basic(2, 20);
	expect_tags("xz", 2);

	/* Re-added probes go last. */
	assert_int_equal(tc_register_trace_unit_basic(probe_b, (void *)&tag_y), 0);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_x), 0);
	log_reset();
	site_basic(3, 30);
	__tc_do_trace_unit_basic(3, 30);
	expect_tags("zYzY", 3);

	assert_int_equal(tc_unregister_trace_unit_basic(probe_a, (void *)&tag_z), 0);
	assert_int_equal(tc_unregister_trace_unit_basic(probe_b, (void *)&tag_y), 0);
	tc_tracepoint_synchronize_unregister();
	check_key(false);
	log_reset();
	site_basic(4, 40);
	assert_int_equal(log_len, 0);
}

static void test_static_tracepoint(void **state)
{
	(void)state;
	local_calls = 0;
	site_local(100);
	assert_int_equal(local_calls, 0);
	assert_false(tc_trace_local_enabled());
	assert_int_equal(tc_register_trace_local(probe_local, (void *)(uintptr_t)1), 0);
	assert_int_equal(tc_register_trace_local(probe_local, (void *)(uintptr_t)2), 0);
	assert_true(tc_trace_local_enabled());
	site_local(200);
	assert_int_equal(local_calls, 3);
	assert_int_equal(local_last_ip, 200);
	/* The basic tracepoint is independent. */
	check_key(false);
	assert_int_equal(tc_unregister_trace_local(probe_local, (void *)(uintptr_t)1), 0);
	site_local(300);
	assert_int_equal(local_calls, 5);
	assert_int_equal(tc_unregister_trace_local(probe_local, (void *)(uintptr_t)2), 0);
	site_local(400);
	assert_int_equal(local_calls, 5);
	assert_false(tc_trace_local_enabled());
}

/* A thread that never registered with liburcu runs a tracepoint and exits. */
static unsigned long thread_calls;

static void probe_count(void *data, unsigned long ip, unsigned long parent_ip)
{
	(void)ip;
	(void)parent_ip;
	__atomic_add_fetch((unsigned long *)data, 1, __ATOMIC_RELAXED);
}

static void *lazy_thread(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++)
		site_local((unsigned long)i);
	return NULL;
}

static void *explicit_thread(void *arg)
{
	(void)arg;
	tc_thread_register();
	tc_thread_register();		/* idempotent */
	site_local(1);
	tc_thread_unregister();
	tc_thread_unregister();		/* no-op */
	site_local(2);			/* registers again, lazily */
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th[4];
	int i;

	(void)state;
	thread_calls = 0;
	assert_int_equal(tc_register_trace_local(probe_count, &thread_calls), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, lazy_thread, NULL), 0);
	assert_int_equal(pthread_create(&th[3], NULL, explicit_thread, NULL), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(thread_calls, 3 * 1000 + 2);
	/*
	 * The threads are gone: had they stayed in liburcu's registry, this
	 * grace period would read their freed TLS (ASan reports it).
	 */
	assert_int_equal(tc_unregister_trace_local(probe_count, &thread_calls), 0);
	tc_tracepoint_synchronize_unregister();
	/* And this thread: explicit register/unregister around a grace period. */
	tc_thread_register();
	tc_tracepoint_synchronize_unregister();
	tc_thread_unregister();
}

/* QSBR: which read side a thread took, seen from liburcu-memb's registry flag. */
static bool memb_registered(void)
{
	return URCU_TLS(urcu_memb_reader).registered;
}

struct qcount {
	unsigned long calls;
	unsigned long last_ip;
	char tag;
};

static char qorder[8];
static int qorder_len;

static void probe_q(void *data, unsigned long ip, unsigned long parent_ip)
{
	struct qcount *c = data;

	assert_int_equal(parent_ip, ip + 1);
	c->calls++;
	c->last_ip = ip;
	if (qorder_len < (int)sizeof(qorder) - 1)
		qorder[qorder_len++] = c->tag;
}

static void *qsbr_thread(void *arg)
{
	struct qcount a = { .tag = 'a' }, b = { .tag = 'b' };

	(void)arg;
	assert_false(memb_registered());
	tc_thread_quiescent();		/* not a QSBR reader yet: no-op */
	tc_thread_offline();
	tc_thread_online();
	tc_thread_qsbr_register();
	tc_thread_qsbr_register();	/* idempotent */

	/* One probe: the fast path (a tail call), no memb read side. */
	assert_int_equal(tc_register_trace_qlocal(probe_q, &a), 0);
	site_qlocal(10);
	site_qlocal(11);
	assert_int_equal(a.calls, 2);
	assert_int_equal(a.last_ip, 11);
	assert_false(memb_registered());
	tc_thread_quiescent();

	/* Two probes: the out-of-line walk, in registration order. */
	assert_int_equal(tc_register_trace_qlocal(probe_q, &b), 0);
	qorder_len = 0;
	site_qlocal(20);
	assert_string_equal(qorder, "ab");
	assert_int_equal(b.calls, 1);
	assert_false(memb_registered());

	/* Offline: the memb path, which registers this thread lazily. */
	tc_thread_offline();
	site_qlocal(30);
	assert_int_equal(a.calls, 4);
	assert_int_equal(b.calls, 2);
	assert_true(memb_registered());
	tc_thread_online();

	/* Unregistering from an online QSBR reader does not wait for itself. */
	assert_int_equal(tc_unregister_trace_qlocal(probe_q, &a), 0);
	assert_int_equal(tc_unregister_trace_qlocal(probe_q, &b), 0);
	site_qlocal(40);
	assert_int_equal(a.calls, 4);
	assert_false(tc_trace_qlocal_enabled());

	tc_thread_qsbr_unregister();
	tc_thread_qsbr_unregister();	/* no-op */
	tc_thread_quiescent();		/* no-op again */
	return NULL;
}

static void test_qsbr(void **state)
{
	struct qcount g = { .tag = 'g' };
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, qsbr_thread, NULL), 0);
	assert_int_equal(pthread_join(th, NULL), 0);

	/* A thread that is no QSBR reader (this one) takes the memb path. */
	assert_int_equal(tc_register_trace_unit_qglobal(probe_q, &g), 0);
	site_qglobal(5);
	assert_int_equal(g.calls, 1);
	assert_int_equal(g.last_ip, 5);
	assert_int_equal(tc_unregister_trace_unit_qglobal(probe_q, &g), 0);
	site_qglobal(6);
	assert_int_equal(g.calls, 1);
}

/*
 * A grace period waits for an online QSBR reader: the reader is held inside
 * the probe; unregister, in a third thread, must not return before the
 * probe returned and the reader reported a quiescent state. Asserted as
 * an order of events (no timing: the sleep only gives a wrong
 * implementation the chance to show itself).
 */
static int q_inside, q_release, q_stop, q_unreg_done, q_probe_done;

static void probe_hold(void *data, unsigned long ip, unsigned long parent_ip)
{
	(void)data;
	(void)ip;
	(void)parent_ip;
	__atomic_store_n(&q_inside, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&q_release, __ATOMIC_ACQUIRE))
		sched_yield();
	/* unregister must still be waiting: this probe is running */
	if (!__atomic_load_n(&q_unreg_done, __ATOMIC_ACQUIRE))
		__atomic_store_n(&q_probe_done, 1, __ATOMIC_RELEASE);
}

static void *hold_reader(void *arg)
{
	(void)arg;
	tc_thread_qsbr_register();
	site_qlocal(1);			/* held in probe_hold */
	while (!__atomic_load_n(&q_stop, __ATOMIC_ACQUIRE)) {
		tc_thread_quiescent();
		site_qlocal(2);		/* no probe any more, or still the same */
		sched_yield();
	}
	tc_thread_qsbr_unregister();
	return NULL;
}

static void *hold_unregister(void *arg)
{
	(void)arg;
	assert_int_equal(tc_unregister_trace_qlocal(probe_hold, NULL), 0);
	__atomic_store_n(&q_unreg_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_qsbr_grace_period(void **state)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 50 * 1000 * 1000 };
	pthread_t reader, unreg;

	(void)state;
	assert_int_equal(tc_register_trace_qlocal(probe_hold, NULL), 0);
	assert_int_equal(pthread_create(&reader, NULL, hold_reader, NULL), 0);
	while (!__atomic_load_n(&q_inside, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(pthread_create(&unreg, NULL, hold_unregister, NULL), 0);
	nanosleep(&ts, NULL);
	assert_int_equal(__atomic_load_n(&q_unreg_done, __ATOMIC_ACQUIRE), 0);
	__atomic_store_n(&q_release, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(unreg, NULL), 0);
	assert_int_equal(q_probe_done, 1);
	assert_int_equal(q_unreg_done, 1);
	__atomic_store_n(&q_stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(reader, NULL), 0);
	assert_false(tc_trace_qlocal_enabled());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_no_probes),
		cmocka_unit_test(test_register_unregister),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_static_tracepoint),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_qsbr),
		cmocka_unit_test(test_qsbr_grace_period),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("tracepoint", tests, NULL, NULL);
}
