// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/ctxsw.c - context-switch time, after lmbench's lat_ctx: a ring
 * of N processes joined by pipes passes a 4-byte token around; the measuring
 * process is member 0 and the ring is pinned to one CPU (the first selected)
 * so that every hop is a context switch. Each run makes 100 untimed trips
 * (or fewer if asked for fewer), then T timed trips of N hops each.
 *
 * As lmbench does, the cost of the pipe itself is subtracted: the same
 * process writes the token into a pipe and reads it back (no switch), timed
 * over N x T hops in the same run. Figure per ring size:
 *	(ring time / (N x T)) - (pipe time / (N x T)), in us per switch.
 *
 * The difference has no meaning when the ring is not dearer than the pipe
 * alone (too few trips for the noise, or an emulator whose pipe dominates):
 * lmbench would print a negative or zero time; we refuse the run with
 * -ERANGE and both figures in the reason instead of reporting one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define CTXSW_MAX_PROCS	256	/* two fds per member stay under the 1024 default */

static int ctxsw_check(const struct tc_wl_opts *o, char *msg, size_t len)
{
	int i;

	if (!o->ring_trips) {
		snprintf(msg, len, "--ring-trips: must be at least 1");
		return -EINVAL;
	}
	if (o->nr_procs < 1) {
		snprintf(msg, len, "--procs: empty list");
		return -EINVAL;
	}
	for (i = 0; i < o->nr_procs; i++) {
		if (o->procs[i] < 2 || o->procs[i] > CTXSW_MAX_PROCS) {
			snprintf(msg, len, "--procs: %u is out of range [2, %d]", o->procs[i],
				 CTXSW_MAX_PROCS);
			return -EINVAL;
		}
	}
	return 0;
}

static int ctxsw_setup(struct tc_wl_ctx *ctx)
{
	int i;

	for (i = 0; i < ctx->o->nr_procs; i++) {
		char name[48];

		snprintf(name, sizeof(name), "ctxsw %u procs", ctx->o->procs[i]);
		wl_metric(ctx, name, "us", "switches", false,
			  (uint64_t)ctx->o->procs[i] * ctx->o->ring_trips);
	}
	return 0;
}

/* Ring member: read from @in, write to @out, until EOF. */
static void __attribute__((noreturn)) ctxsw_member(int in, int out)
{
	int token;

	while (!wl_read_full(NULL, in, &token, sizeof(token)))
		if (wl_write_full(NULL, out, &token, sizeof(token)))
			break;
	_exit(0);
}

/* Per-hop cost of the pipe alone: write and read back in one process. */
static int ctxsw_pipe_cost(struct tc_wl_ctx *ctx, uint64_t hops, double *ns)
{
	int p[2], token = 0, err = 0;
	uint64_t i, t0;

	if (pipe(p))
		return wl_fail(ctx, -errno, "pipe: %s", strerror(errno));
	t0 = tc_wl_now_ns();
	for (i = 0; i < hops && !err; i++) {
		err = wl_write_full(ctx, p[1], &token, sizeof(token));
		if (!err)
			err = wl_read_full(ctx, p[0], &token, sizeof(token));
	}
	*ns = (double)(tc_wl_now_ns() - t0) / (double)hops;
	close(p[0]);
	close(p[1]);
	return err ? wl_fail(ctx, wl_err(ctx, err), "pipe: %s", strerror(-err)) : 0;
}

static int ctxsw_ring(struct tc_wl_ctx *ctx, unsigned int n, double *us, uint64_t *work)
{
	uint64_t trips = ctx->o->ring_trips, warm = trips < 100 ? trips : 100, i, t0 = 0;
	int fds[CTXSW_MAX_PROCS][2], token = 0, err = 0;
	pid_t pids[CTXSW_MAX_PROCS] = { 0 };
	unsigned int m, k, made = 0;
	double ring_ns, pipe_ns = 0;

	for (m = 0; m < n; m++, made++) {
		if (pipe(fds[m])) {
			err = wl_fail(ctx, -errno, "pipe: %s", strerror(errno));
			goto out;
		}
	}
	/* member m reads fds[m][0] and writes fds[(m + 1) % n][1]; we are member 0 */
	for (m = 1; m < n; m++) {
		pid_t pid = wl_fork(ctx);

		if (pid == 0) {
			for (k = 0; k < n; k++) {
				if (k != m)
					close(fds[k][0]);
				if (k != (m + 1) % n)
					close(fds[k][1]);
			}
			ctxsw_member(fds[m][0], fds[(m + 1) % n][1]);
		}
		if (pid < 0) {
			err = wl_fail(ctx, (int)pid, "fork: %s", strerror((int)-pid));
			goto out;
		}
		pids[m] = pid;
	}
	for (i = 0; i < warm + trips && !err; i++) {
		if (i == warm)
			t0 = tc_wl_now_ns();
		err = wl_write_full(ctx, fds[1][1], &token, sizeof(token));
		if (!err)
			err = wl_read_full(ctx, fds[0][0], &token, sizeof(token));
	}
	if (err) {
		err = wl_fail(ctx, wl_err(ctx, err), "token ring of %u: %s", n, strerror(-err));
		goto out;
	}
	ring_ns = (double)(tc_wl_now_ns() - t0) / ((double)trips * n);
	err = ctxsw_pipe_cost(ctx, trips * n, &pipe_ns);
	if (!err && !(ring_ns > pipe_ns))
		err = wl_fail(ctx, -ERANGE,
			      "ring of %u: %.1f ns per hop is not above the pipe's own %.1f ns: "
			      "no switch time can be derived (raise --ring-trips)",
			      n, ring_ns, pipe_ns);
	if (!err) {
		*us = (ring_ns - pipe_ns) / 1e3;
		*work = trips * n;
	}
out:
	for (m = 0; m < made; m++) {
		close(fds[m][0]);
		close(fds[m][1]);
	}
	if (!wl_reap(ctx, pids + 1, (int)n - 1, err != 0) && !err)
		err = wl_fail(ctx, -EIO, "a ring process failed");
	return err;
}

static int ctxsw_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	cpu_set_t saved;
	int i, err;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return wl_fail(ctx, -errno, "sched_getaffinity: %s", strerror(errno));
	err = wl_pin(ctx->cpus[0]);
	if (err)
		return wl_fail(ctx, err, "pinning to CPU %d: %s", ctx->cpus[0], strerror(-err));
	tc_wl_add_pid(ctx, getpid());
	for (i = 0; i < ctx->o->nr_procs && !err; i++)
		err = ctxsw_ring(ctx, ctx->o->procs[i], &s->value[i], &s->work[i]);
	sched_setaffinity(0, sizeof(saved), &saved);
	return err;
}

const struct tc_workload tc_workload_ctxsw = {
	.name = "ctxsw",
	.summary = "token ring of N processes on one CPU (lmbench lat_ctx), us per switch",
	.check = ctxsw_check,
	.setup = ctxsw_setup,
	.run = ctxsw_run,
};
