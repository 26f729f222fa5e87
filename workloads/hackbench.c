// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workloads/hackbench.c - the scheduler/IPC stress of rt-tests hackbench,
 * process mode, with its -g/-f/-l semantics: G groups, each of F receivers
 * and F senders; every sender writes L messages of D bytes (100) to each
 * receiver of its group, over an AF_UNIX stream socket pair per receiver
 * (or a pipe per receiver with --ipc pipe). Every child reports ready; the
 * clock starts when all are, then the start pipe is closed (waking them all
 * at once) and stops when the last child has exited. Figure: seconds.
 * Work: messages sent, G x F x F x L.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "wl.h"

#define HB_MAX_PROCS	4096

static int hb_check(const struct tc_wl_opts *o, char *msg, size_t len)
{
	if (!o->groups || !o->fds || !o->loops || !o->datasize) {
		snprintf(msg, len, "--groups, --fds, --loops: must be at least 1");
		return -EINVAL;
	}
	if ((uint64_t)o->groups * o->fds * 2 > HB_MAX_PROCS) {
		snprintf(msg, len, "hackbench: --groups x --fds x 2 = %llu processes, more than %d",
			 (unsigned long long)o->groups * o->fds * 2, HB_MAX_PROCS);
		return -EINVAL;
	}
	if (o->fds > 256) {
		snprintf(msg, len, "--fds: %u is out of range [1, 256]", o->fds);
		return -EINVAL;
	}
	return 0;
}

static int hb_setup(struct tc_wl_ctx *ctx)
{
	const struct tc_wl_opts *o = ctx->o;

	wl_metric(ctx, "hackbench", "s", "messages", false,
		  (uint64_t)o->groups * o->fds * o->fds * o->loops);
	return 0;
}

/* Tell the parent we are ready, then wait for the start pipe to close. */
static int hb_ready(int ready, int start)
{
	char c = 0;

	if (wl_write_full(NULL, ready, &c, 1))
		return -1;
	return read(start, &c, 1) == 0 ? 0 : -1;	/* EOF: go */
}

static void __attribute__((noreturn)) hb_receiver(int in, uint64_t bytes, int ready, int start)
{
	char buf[4096];

	if (hb_ready(ready, start))
		_exit(2);
	while (bytes) {
		ssize_t r = read(in, buf, bytes < sizeof(buf) ? bytes : sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(3);
		bytes -= (uint64_t)r;
	}
	_exit(0);
}

static void __attribute__((noreturn)) hb_sender(const int *out, unsigned int nr, uint64_t loops,
						unsigned int size, int ready, int start)
{
	char buf[4096];
	uint64_t l;
	unsigned int j;

	memset(buf, 's', sizeof(buf));
	if (hb_ready(ready, start))
		_exit(2);
	for (l = 0; l < loops; l++)
		for (j = 0; j < nr; j++)
			if (wl_write_full(NULL, out[j], buf, size))
				_exit(3);
	_exit(0);
}

static int hb_run(struct tc_wl_ctx *ctx, struct tc_wl_sample *s)
{
	const struct tc_wl_opts *o = ctx->o;
	unsigned int g, f, k, nr = 0, fds = o->fds;
	int ready[2] = { -1, -1 }, start[2] = { -1, -1 }, err = 0;
	int rx[256], tx[256];
	pid_t *pids = calloc((size_t)o->groups * fds * 2, sizeof(*pids));
	uint64_t t0 = 0, bytes = o->loops * fds * o->datasize;
	char c;

	if (!pids)
		return wl_fail(ctx, -ENOMEM, "out of memory");
	if (o->datasize > 4096) {
		free(pids);
		return wl_fail(ctx, -EINVAL, "message size above 4096 bytes");
	}
	if (pipe(ready) || pipe(start)) {
		err = wl_fail(ctx, -errno, "pipe: %s", strerror(errno));
		goto out;
	}
	tc_wl_add_pid(ctx, getpid());
	for (g = 0; g < o->groups && !err; g++) {
		for (f = 0; f < fds; f++)
			rx[f] = tx[f] = -1;
		for (f = 0; f < fds && !err; f++) {
			int pair[2];

			if (o->hb_pipe ? pipe(pair) : socketpair(AF_UNIX, SOCK_STREAM, 0, pair)) {
				err = wl_fail(ctx, -errno, "%s: %s", o->hb_pipe ? "pipe" :
					      "socketpair", strerror(errno));
				break;
			}
			rx[f] = pair[0];
			tx[f] = pair[1];
		}
		for (f = 0; f < fds && !err; f++) {
			pid_t pid = wl_fork(ctx);

			if (pid == 0) {
				close(ready[0]);
				close(start[1]);
				for (k = 0; k < fds; k++) {
					close(tx[k]);
					if (k != f)
						close(rx[k]);
				}
				hb_receiver(rx[f], bytes, ready[1], start[0]);
			}
			if (pid < 0)
				err = wl_fail(ctx, (int)pid, "fork: %s", strerror((int)-pid));
			else
				pids[nr++] = pid;
		}
		for (f = 0; f < fds && !err; f++) {
			pid_t pid = wl_fork(ctx);

			if (pid == 0) {
				close(ready[0]);
				close(start[1]);
				for (k = 0; k < fds; k++)
					close(rx[k]);
				hb_sender(tx, fds, o->loops, o->datasize, ready[1], start[0]);
			}
			if (pid < 0)
				err = wl_fail(ctx, (int)pid, "fork: %s", strerror((int)-pid));
			else
				pids[nr++] = pid;
		}
		for (f = 0; f < fds; f++) {
			if (rx[f] >= 0)
				close(rx[f]);
			if (tx[f] >= 0)
				close(tx[f]);
		}
	}
	close(ready[1]);
	ready[1] = -1;
	for (k = 0; k < nr && !err; k++) {
		err = wl_read_full(ctx, ready[0], &c, 1);
		if (err)
			err = wl_fail(ctx, wl_err(ctx, err), "waiting for hackbench children: %s",
				      strerror(-err));
	}
	if (!err) {
		t0 = tc_wl_now_ns();
		close(start[1]);	/* go */
		start[1] = -1;
		if (!wl_reap(ctx, pids, (int)nr, false))
			err = wl_fail(ctx, wl_err(ctx, -EIO), "a hackbench child failed "
				      "(short read or write)");
		else
			s->value[0] = (double)(tc_wl_now_ns() - t0) / 1e9;
		nr = 0;
		if (!err)
			s->work[0] = (uint64_t)o->groups * fds * fds * o->loops;
	}
out:
	if (nr)
		wl_reap(ctx, pids, (int)nr, true);
	if (ready[0] >= 0)
		close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	if (start[0] >= 0)
		close(start[0]);
	if (start[1] >= 0)
		close(start[1]);
	free(pids);
	return err;
}

const struct tc_workload tc_workload_hackbench = {
	.name = "hackbench",
	.summary = "groups of senders and receivers over sockets or pipes (rt-tests "
		   "hackbench -g/-f/-l), s",
	.check = hb_check,
	.setup = hb_setup,
	.run = hb_run,
};
