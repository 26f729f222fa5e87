// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/registry.c - the registration table of the system suite's
 * workloads (one file each, the perf bench model), the shared option
 * defaults and the calls every workload goes through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracecost/workload.h>

extern const struct tc_workload tc_workload_getpid, tc_workload_pipe, tc_workload_ctxsw,
	tc_workload_fs, tc_workload_hackbench, tc_workload_walk;

const struct tc_workload *const tc_workloads[] = {
	&tc_workload_getpid,
	&tc_workload_pipe,
	&tc_workload_ctxsw,
	&tc_workload_fs,
	&tc_workload_hackbench,
	&tc_workload_walk,
	NULL,
};

const struct tc_workload *tc_workload_find(const char *name)
{
	int i;

	for (i = 0; tc_workloads[i]; i++)
		if (!strcmp(tc_workloads[i]->name, name))
			return tc_workloads[i];
	return NULL;
}

void tc_workload_opts_init(struct tc_wl_opts *o)
{
	static const unsigned int procs[] = { 2, 4, 8, 16 }, sizes[] = { 0, 1, 4, 10 };

	memset(o, 0, sizeof(*o));
	/* defaults: the whole default system run in a few minutes (issue 13) */
	o->calls = 2000000;
	o->round_trips = 20000;
	o->ring_trips = 2000;
	memcpy(o->procs, procs, sizeof(procs));
	o->nr_procs = 4;
	memcpy(o->sizes, sizes, sizeof(sizes));
	o->nr_sizes = 4;
	o->files = 2000;
	o->groups = 4;
	o->fds = 2;
	o->loops = 10000;
	o->datasize = 100;
	o->tree = "/usr/share";
}

int tc_workload_check(const struct tc_workload *w, const struct tc_wl_opts *o,
		      char *msg, size_t len)
{
	if (msg && len)
		msg[0] = 0;
	return w->check ? w->check(o, msg, len) : 0;
}

static int ctx_cpus(struct tc_wl_ctx *ctx)
{
	const struct tc_wl_opts *o = ctx->o;
	cpu_set_t set;
	int i;

	ctx->nr_cpus = 0;
	if (o->cpus && o->nr_cpus > 0) {
		for (i = 0; i < o->nr_cpus && i < (int)(sizeof(ctx->cpus) / sizeof(int)); i++)
			ctx->cpus[ctx->nr_cpus++] = o->cpus[i];
		return 0;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (i = 0; i < CPU_SETSIZE && ctx->nr_cpus < (int)(sizeof(ctx->cpus) / sizeof(int));
	     i++)
		if (CPU_ISSET(i, &set))
			ctx->cpus[ctx->nr_cpus++] = i;
	return ctx->nr_cpus ? 0 : -ENODEV;
}

int tc_workload_setup(struct tc_wl_ctx *ctx, const struct tc_workload *w,
		      const struct tc_wl_opts *o)
{
	int err;

	memset(ctx, 0, sizeof(*ctx));
	ctx->type = w;
	ctx->o = o;
	err = tc_workload_check(w, o, ctx->detail, sizeof(ctx->detail));
	if (err)
		return err;
	err = ctx_cpus(ctx);
	if (err) {
		snprintf(ctx->detail, sizeof(ctx->detail), "no CPU to run on: %s",
			 strerror(-err));
		return err;
	}
	err = w->setup ? w->setup(ctx) : 0;
	if (err && w->teardown)
		w->teardown(ctx);
	return err;
}

int tc_workload_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	memset(s, 0, sizeof(*s));
	ctx->nr_pids = 0;
	ctx->detail[0] = 0;
	if (tc_wl_stopped(ctx))
		return -EINTR;
	return ctx->type->run(ctx, s);
}

void tc_workload_teardown(struct tc_wl_ctx *ctx)
{
	if (ctx->type && ctx->type->teardown)
		ctx->type->teardown(ctx);
	ctx->type = NULL;
}
