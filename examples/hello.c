// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hello.c - a program using the installed libtracecost: a tracepoint with
 * the recording probe, a static key, and a key of a shared object
 * (libhello_plugin.so) flipped from here. Built by tests/install.sh with
 *
 *	cc hello.c -L. -lhello_plugin $(pkg-config --cflags --libs tracecost)
 *
 * Prints what it recorded; exits 1 if anything disagrees.
 */
#include <stdint.h>
#include <stdio.h>

#include <tracecost/ringbuf.h>
#include <tracecost/static_key.h>
#include <tracecost/tracepoint.h>

#include "hello_plugin.h"

TC_DECLARE_TRACEPOINT(hello_event, TC_TP_PROTO(unsigned long ip, unsigned long parent_ip),
		      TC_TP_ARGS(ip, parent_ip));
TC_DEFINE_TRACEPOINT(hello_event, TC_TP_PROTO(unsigned long ip, unsigned long parent_ip),
		     TC_TP_ARGS(ip, parent_ip));

static TC_DEFINE_STATIC_KEY_FALSE(hello_key);

/* The consumer: count the events read back, check their arguments. */
static int hello_read(const struct tc_event *ev, int ring, void *arg)
{
	unsigned long *n = (unsigned long *)arg;

	(void)ring;
	if (ev->ip && ev->parent_ip)
		(*n)++;
	return 0;
}

static __attribute__((noinline)) int hello_site(void)
{
	return tc_static_branch_unlikely(&hello_key) ? 1 : 0;
}

int main(void)
{
	struct tc_recorder *rec;
	uint64_t events, overruns;
	unsigned long read_back;
	int i, bad = 0;

	if (tc_recorder_create(1024, &rec) || tc_recorder_thread_init(rec))
		return 1;
	if (tc_register_trace_hello_event(tc_record_probe, rec))
		return 1;
	for (i = 0; i < 10; i++)
		tc_trace_hello_event(TC_THIS_IP, TC_RET_IP);
	tc_unregister_trace_hello_event(tc_record_probe, rec);
	tc_tracepoint_synchronize_unregister();
	tc_trace_hello_event(TC_THIS_IP, TC_RET_IP);	/* not recorded */
	tc_recorder_totals(rec, &events, &overruns);
	printf("hello: recorded %llu events, %llu overruns\n",
	       (unsigned long long)events, (unsigned long long)overruns);
	bad |= events != 10 || overruns != 0;
	read_back = 0;
	bad |= tc_recorder_read(rec, hello_read, &read_back) != 0 || read_back != 10;
	printf("hello: read back %lu events\n", read_back);

	bad |= hello_site() != 0 || tc_static_key_enable(&hello_key) || hello_site() != 1;
	bad |= plugin_verbose_site() != 0;
	bad |= tc_static_key_enable(&plugin_verbose) != 0;
	bad |= plugin_verbose_site() != 1;
	printf("hello: key in the program %d, key in the plugin %d\n", hello_site(),
	       plugin_verbose_site());
	tc_recorder_destroy(rec);
	printf("hello: %s\n", bad ? "FAILED" : "ok");
	return bad;
}
