// SPDX-License-Identifier: GPL-2.0-or-later
/* workloads/common.c - helpers of workloads/wl.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * --count fentry: the clock of the workloads counts function entries, the
 * hits of the kernel's function profiler (CONFIG_FUNCTION_PROFILER), summed
 * over trace_stat/function*. Each reading stops the profiler, sums its
 * hits, and starts it again (which resets them): the reading itself is not
 * counted, except the few entries between "on" and the return of one write
 * and between the next write's entry and "off" - calibrated once (the
 * fewest of five empty intervals) and subtracted from every interval.
 */
static struct {
	int enable_fd;		/* function_profile_enabled, or -1: CLOCK_MONOTONIC */
	char stat[256];		/* .../trace_stat/function, CPU number appended */
	uint64_t total;		/* entries counted so far */
	uint64_t toggle;	/* entries of one stop and start */
} fentry = { .enable_fd = -1 };

static int fentry_write(const char *v)
{
	if (pwrite(fentry.enable_fd, v, 1, 0) != 1)
		return errno ? -errno : -EIO;
	return 0;
}

/* Hits of one trace_stat file: the second column of every line with a number. */
static int fentry_sum_file(const char *path, uint64_t *sum)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap), *p, *nl;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -errno : -ENOMEM;
	}
	for (;;) {
		if (len + 1 == cap) {
			char *b = realloc(buf, cap * 2);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		uint64_t h;

		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		/* "  Function  Hit ..." and "  --------  ---" have no number */
		if (sscanf(p, "%*s %" SCNu64, &h) == 1)
			*sum += h;
	}
	free(buf);
	return 0;
}

static int fentry_sum(uint64_t *sum)
{
	char path[300];
	int cpu, err;

	*sum = 0;
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s%d", fentry.stat, cpu);
		if (access(path, R_OK))
			return cpu ? 0 : -errno;
		err = fentry_sum_file(path, sum);
		if (err)
			return err;
	}
}

static uint64_t fentry_now(void)
{
	uint64_t s = 0;
	int err;

	err = fentry_write("0");
	if (!err)
		err = fentry_sum(&s);
	if (!err)
		err = fentry_write("1");
	if (err) {
		fprintf(stderr, "tracecost: --count fentry: the function profiler: %s\n",
			strerror(-err));
		exit(1);
	}
	fentry.total += s > fentry.toggle ? s - fentry.toggle : 0;
	return fentry.total;
}

int tc_wl_count_fentry(char *msg, size_t len, uint64_t *toggle)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	uint64_t t[6], min = UINT64_MAX;
	char path[300], v[8] = "";
	size_t i;
	int fd = -1;

	for (i = 0; i < 2 && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/function_profile_enabled", dirs[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == EACCES) {
			snprintf(msg, len, "--count fentry: %s: %s (needs root)", path,
				 strerror(errno));
			return -EACCES;
		}
	}
	if (fd < 0) {
		snprintf(msg, len, "--count fentry: no function_profile_enabled in %s or %s: the "
			 "kernel needs CONFIG_FUNCTION_PROFILER and tracefs mounted", dirs[0],
			 dirs[1]);
		return -ENOENT;
	}
	if (pread(fd, v, sizeof(v) - 1, 0) > 0 && v[0] != '0') {
		close(fd);
		snprintf(msg, len, "--count fentry: %s is %c: the function profiler is in use",
			 path, v[0]);
		return -EBUSY;
	}
	fentry.enable_fd = fd;
	snprintf(fentry.stat, sizeof(fentry.stat), "%s/trace_stat/function", dirs[i - 1]);
	fentry.total = fentry.toggle = 0;
	if (fentry_write("1")) {
		snprintf(msg, len, "--count fentry: %s: %s", path, strerror(errno));
		close(fd);
		fentry.enable_fd = -1;
		return -EIO;
	}
	for (i = 0; i < 6; i++)
		t[i] = fentry_now();
	for (i = 1; i < 6; i++)
		if (t[i] - t[i - 1] < min)
			min = t[i] - t[i - 1];
	fentry.toggle = min;
	*toggle = min;
	return 0;
}

void tc_wl_count_fentry_end(void)
{
	if (fentry.enable_fd < 0)
		return;
	fentry_write("0");
	close(fentry.enable_fd);
	fentry.enable_fd = -1;
}

uint64_t tc_wl_now_ns(void)
{
	struct timespec ts;

	if (fentry.enable_fd >= 0)
		return fentry_now();

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
