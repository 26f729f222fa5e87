/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * workloads/wl.h - helpers shared by the workloads (not a public API).
 */
#ifndef TC_WORKLOADS_WL_H
#define TC_WORKLOADS_WL_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <tracecost/workload.h>

/* Set ctx->detail and return @err. */
int wl_fail(struct tc_wl_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * fork() for a workload child: in the child, SIGINT/SIGTERM/SIGHUP are back
 * to their defaults and the child dies with its parent (PR_SET_PDEATHSIG,
 * SIGKILL). The parent notes the pid in ctx->pids.
 * Return: as fork(), -errno on failure (errno set).
 */
pid_t wl_fork(struct tc_wl_ctx *ctx);

/*
 * Reap @n children; with @kill_first, SIGKILL them first. If @ctx is given
 * and the caller asks to stop while we wait, the children are killed.
 * Return: true if every child exited with status 0.
 */
bool wl_reap(const struct tc_wl_ctx *ctx, const pid_t *pids, int n, bool kill_first);

/* Whole read/write of @len bytes, restarting on EINTR unless stopped. */
int wl_read_full(const struct tc_wl_ctx *ctx, int fd, void *buf, size_t len);
int wl_write_full(const struct tc_wl_ctx *ctx, int fd, const void *buf, size_t len);

/* Pin the calling thread to @cpu. Return: 0 or -errno. */
int wl_pin(int cpu);

/* Parse-free defaults of a metric. */
void wl_metric(struct tc_wl_ctx *ctx, const char *name, const char *unit,
	       const char *work_unit, bool higher_better, uint64_t work_asked);

/* An error from a run: -EINTR if the caller asked to stop, else @err. */
static inline int wl_err(const struct tc_wl_ctx *ctx, int err)
{
	return tc_wl_stopped(ctx) ? -EINTR : err;
}

#endif /* TC_WORKLOADS_WL_H */
