// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/getpid.c - the seed's "10M getpid": syscall(SYS_getpid) in a
 * loop (the raw system call: no libc caching), one thread pinned to each
 * selected CPU, all running at once. A warm-up of min(calls / 10, 10^5)
 * calls precedes the timed loop in every thread; the threads start the
 * timed loop together (a start line). Figure: mean over the threads of the
 * elapsed time / calls, in ns per call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "wl.h"

/* Start line: threads warm up, report ready, and wait for go (1) or abort (-1). */
struct getpid_start {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	int go;
};

struct getpid_thread {
	struct tc_wl_ctx *ctx;
	struct getpid_start *start;
	int cpu;
	pid_t tid;
	int err;
	uint64_t calls;
	uint64_t ns;
};

static void *getpid_thread(void *arg)
{
	struct getpid_thread *th = arg;
	uint64_t n = th->ctx->o->calls, warm = n / 10 < 100000 ? n / 10 : 100000, i, t0;

	th->tid = (pid_t)syscall(SYS_gettid);
	th->err = wl_pin(th->cpu);
	for (i = 0; !th->err && i < warm; i++)
		syscall(SYS_getpid);
	pthread_mutex_lock(&th->start->lock);
	th->start->ready++;
	pthread_cond_broadcast(&th->start->cond);
	while (!th->start->go)
		pthread_cond_wait(&th->start->cond, &th->start->lock);
	pthread_mutex_unlock(&th->start->lock);
	if (th->err || th->start->go < 0)
		return NULL;
	t0 = tc_wl_now_ns();
	for (i = 0; i < n; i++) {
		syscall(SYS_getpid);
		if (!(i & 0xffff) && tc_wl_stopped(th->ctx))
			break;
	}
	th->ns = tc_wl_now_ns() - t0;
	th->calls = i;
	return NULL;
}

static int getpid_check(const struct tc_wl_opts *o, char *msg, size_t len)
{
	if (!o->calls) {
		snprintf(msg, len, "--calls: must be at least 1");
		return -EINVAL;
	}
	return 0;
}

static int getpid_setup(struct tc_wl_ctx *ctx)
{
	wl_metric(ctx, "getpid", "ns/call", "calls", false,
		  ctx->o->calls * (uint64_t)ctx->nr_cpus);
	return 0;
}

static int getpid_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	int n = ctx->nr_cpus, i, started = 0, err = 0;
	struct getpid_thread *th = calloc((size_t)n, sizeof(*th));
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));
	struct getpid_start start = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
	};
	double sum = 0;

	if (!th || !tids) {
		free(th);
		free(tids);
		return wl_fail(ctx, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		th[i] = (struct getpid_thread){ .ctx = ctx, .start = &start,
						.cpu = ctx->cpus[i] };
		err = -pthread_create(&tids[i], NULL, getpid_thread, &th[i]);
		if (err) {
			wl_fail(ctx, err, "pthread_create: %s", strerror(-err));
			break;
		}
		started++;
	}
	pthread_mutex_lock(&start.lock);
	while (start.ready < started)
		pthread_cond_wait(&start.cond, &start.lock);
	start.go = err ? -1 : 1;
	pthread_cond_broadcast(&start.cond);
	pthread_mutex_unlock(&start.lock);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < started; i++) {
		tc_wl_add_pid(ctx, th[i].tid);
		if (th[i].err && !err)
			err = wl_fail(ctx, th[i].err, "pinning a thread to CPU %d: %s", th[i].cpu,
				      strerror(-th[i].err));
		s->work[0] += th[i].calls;
		if (th[i].calls)
			sum += (double)th[i].ns / (double)th[i].calls;
	}
	s->value[0] = sum / n;
	free(th);
	free(tids);
	if (!err && s->work[0] < ctx->metric[0].work_asked)
		err = wl_err(ctx, -EINTR);
	return err;
}

const struct tc_workload tc_workload_getpid = {
	.name = "getpid",
	.summary = "syscall(SYS_getpid) loop on each CPU, ns per call",
	.check = getpid_check,
	.setup = getpid_setup,
	.run = getpid_run,
};
