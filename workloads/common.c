// SPDX-License-Identifier: GPL-2.0-or-later
/* workloads/common.c - helpers of workloads/wl.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "wl.h"

int wl_fail(struct tc_wl_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->detail, sizeof(ctx->detail), fmt, ap);
	va_end(ap);
	return err;
}

uint64_t tc_wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tc_wl_add_pid(struct tc_wl_ctx *ctx, pid_t pid)
{
	if (ctx->nr_pids < TC_WL_MAX_PIDS)
		ctx->pids[ctx->nr_pids++] = pid;
}

pid_t wl_fork(struct tc_wl_ctx *ctx)
{
	pid_t parent = getpid(), pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		return 0;
	}
	tc_wl_add_pid(ctx, pid);
	return pid;
}

bool wl_reap(const struct tc_wl_ctx *ctx, const pid_t *pids, int n, bool kill_first)
{
	bool ok = true, killed = kill_first;
	int i, j, st;

	for (i = 0; kill_first && i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		if (!killed && ctx && tc_wl_stopped(ctx)) {
			for (j = i; j < n; j++)
				if (pids[j] > 0)
					kill(pids[j], SIGKILL);
			killed = true;
		}
		while (waitpid(pids[i], &st, 0) < 0) {
			if (errno != EINTR) {
				st = 1;
				break;
			}
			if (!killed && ctx && tc_wl_stopped(ctx)) {
				for (j = i; j < n; j++)
					if (pids[j] > 0)
						kill(pids[j], SIGKILL);
				killed = true;
			}
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			ok = false;
	}
	return ok;
}

int wl_read_full(const struct tc_wl_ctx *ctx, int fd, void *buf, size_t len)
{
	char *p = buf;

	if (ctx && tc_wl_stopped(ctx))
		return -EINTR;
	while (len) {
		ssize_t r = read(fd, p, len);

		if (r < 0 && errno == EINTR && !(ctx && tc_wl_stopped(ctx)))
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int wl_write_full(const struct tc_wl_ctx *ctx, int fd, const void *buf, size_t len)
{
	const char *p = buf;

	if (ctx && tc_wl_stopped(ctx))
		return -EINTR;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR && !(ctx && tc_wl_stopped(ctx)))
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int wl_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

void wl_metric(struct tc_wl_ctx *ctx, const char *name, const char *unit,
	       const char *work_unit, bool higher_better, uint64_t work_asked)
{
	struct tc_wl_metric *m;

	if (ctx->nr_metrics >= TC_WL_MAX_METRICS)
		return;
	m = &ctx->metric[ctx->nr_metrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->unit = unit;
	m->work_unit = work_unit;
	m->higher_better = higher_better;
	m->work_asked = work_asked;
}
