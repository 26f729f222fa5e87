// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/pipe.c - round-trip latency over a pair of pipes between two
 * processes, after lmbench's lat_pipe: the parent writes a 4-byte token,
 * the child reads it and writes it back, N times. 1000 untimed round trips
 * (or N, if fewer) warm up first. Figure: elapsed / N in us.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

static int pipe_check(const struct tc_wl_opts *o, char *msg, size_t len)
{
	if (!o->round_trips) {
		snprintf(msg, len, "--round-trips: must be at least 1");
		return -EINVAL;
	}
	return 0;
}

static int pipe_setup(struct tc_wl_ctx *ctx)
{
	wl_metric(ctx, "pipe", "us", "round trips", false, ctx->o->round_trips);
	return 0;
}

/* The echo side: read a token, write it back, until EOF. */
static void __attribute__((noreturn)) pipe_echo(int in, int out)
{
	int token;

	while (!wl_read_full(NULL, in, &token, sizeof(token)))
		if (wl_write_full(NULL, out, &token, sizeof(token)))
			break;
	_exit(0);
}

static int pipe_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	uint64_t n = ctx->o->round_trips, warm = n < 1000 ? n : 1000, i, t0 = 0;
	int to[2], from[2], token = 0, err = 0;
	pid_t pid;

	if (pipe(to))
		return wl_fail(ctx, -errno, "pipe: %s", strerror(errno));
	if (pipe(from)) {
		err = -errno;
		close(to[0]);
		close(to[1]);
		return wl_fail(ctx, err, "pipe: %s", strerror(-err));
	}
	tc_wl_add_pid(ctx, getpid());
	pid = wl_fork(ctx);
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		pipe_echo(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (pid < 0) {
		err = wl_fail(ctx, (int)pid, "fork: %s", strerror((int)-pid));
		goto out;
	}
	for (i = 0; i < warm + n; i++) {
		if (i == warm)
			t0 = tc_wl_now_ns();
		token++;
		err = wl_write_full(ctx, to[1], &token, sizeof(token));
		if (!err)
			err = wl_read_full(ctx, from[0], &token, sizeof(token));
		if (err) {
			err = wl_fail(ctx, wl_err(ctx, err), "pipe round trip: %s",
				      strerror(-err));
			break;
		}
	}
	if (!err) {
		s->value[0] = (double)(tc_wl_now_ns() - t0) / 1e3 / (double)n;
		s->work[0] = n;
	}
out:
	close(to[1]);
	close(from[0]);
	if (pid > 0 && !wl_reap(ctx, &pid, 1, err != 0) && !err)
		err = wl_fail(ctx, -EIO, "the echo process failed");
	return err;
}

const struct tc_workload tc_workload_pipe = {
	.name = "pipe",
	.summary = "round trip between two processes over pipes (lmbench lat_pipe), us",
	.check = pipe_check,
	.setup = pipe_setup,
	.run = pipe_run,
};
