// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tracepoint.c - tracepoint probe registration: calls counted by test
 * probes, error codes (-EEXIST, -ENOENT, -EINVAL), key enabled iff probes are
 * attached, call order and data of several probes, no call without probes,
 * the out-of-line __tc_do_trace_* shape, macro names, and lazy RCU
 * registration of a thread that exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The sites, out of line so that each tracepoint has one site here. */
static tc_noinline void site_basic(int a, unsigned long b) { tc_trace_unit_basic(a, b); }
static tc_noinline void site_local(unsigned long ip) { tc_trace(local, ip, ip + 1); }

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
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("tracepoint", tests, NULL, NULL);
}
