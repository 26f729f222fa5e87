// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_workload.c - the system suite's workloads and the order-statistic
 * summary. Each workload runs briefly with small counts and must report
 * finite, positive figures and exactly the work it was asked to do (calls,
 * round trips, switches, files, messages, entries of a tree made here).
 * Behaviour only: no figure is compared with a speed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <cmocka.h>

#include <tracecost/workload.h>

static char tmpdir[64];

static int setup_tmp(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tc-test-workload.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Small counts for every workload. */
static void small_opts(struct tc_wl_opts *o)
{
	tc_workload_opts_init(o);
	o->calls = 2000;
	o->round_trips = 200;
	o->ring_trips = 20;
	o->nr_procs = 2;
	o->procs[0] = 2;
	o->procs[1] = 3;
	o->nr_sizes = 2;
	o->sizes[0] = 0;
	o->sizes[1] = 4;
	o->files = 30;
	o->dir = tmpdir;
	o->groups = 2;
	o->fds = 2;
	o->loops = 50;
	o->tree = tmpdir;
}

/* Run @name twice; every metric: finite, > 0, work == asked (when known). */
static void run_workload(const char *name, struct tc_wl_opts *o, int want_metrics)
{
	const struct tc_workload *w = tc_workload_find(name);
	struct tc_wl_ctx ctx;
	struct tc_wl_sample s;
	int rep, m;

	assert_non_null(w);
	if (tc_workload_setup(&ctx, w, o))
		fail_msg("%s: setup: %s", name, ctx.detail);
	assert_int_equal(ctx.nr_metrics, want_metrics);
	for (rep = 0; rep < 2; rep++) {
		if (tc_workload_run(&ctx, &s))
			fail_msg("%s: run: %s", name, ctx.detail);
		assert_true(ctx.nr_pids >= 1);
		for (m = 0; m < ctx.nr_metrics; m++) {
			const struct tc_wl_metric *mt = &ctx.metric[m];

			if (!isfinite(s.value[m]) || !(s.value[m] > 0))
				fail_msg("%s: %s = %g", name, mt->name, s.value[m]);
			assert_non_null(mt->unit);
			assert_non_null(mt->work_unit);
			if (s.work[m] != mt->work_asked)
				fail_msg("%s: %s did %llu %s, asked %llu", name, mt->name,
					 (unsigned long long)s.work[m], mt->work_unit,
					 (unsigned long long)mt->work_asked);
		}
	}
	tc_workload_teardown(&ctx);
}

static void test_registry(void **state)
{
	static const char *const want[] = {
		"getpid", "pipe", "ctxsw", "fs", "hackbench", "walk", NULL,
	};
	struct tc_wl_opts o;
	int i;

	(void)state;
	for (i = 0; want[i]; i++) {
		assert_non_null(tc_workloads[i]);
		assert_string_equal(tc_workloads[i]->name, want[i]);
		assert_ptr_equal(tc_workload_find(want[i]), tc_workloads[i]);
		assert_non_null(tc_workloads[i]->summary);
		assert_non_null(tc_workloads[i]->run);
	}
	assert_null(tc_workloads[i]);
	assert_null(tc_workload_find("nosuch"));
	tc_workload_opts_init(&o);
	assert_int_equal(o.calls, 2000000);
	assert_int_equal(o.nr_procs, 4);
	assert_int_equal(o.procs[3], 16);
	assert_int_equal(o.nr_sizes, 4);
	assert_int_equal(o.sizes[3], 10);
	assert_int_equal(o.groups, 4);
	assert_int_equal(o.fds, 2);
	assert_int_equal(o.loops, 10000);
	assert_string_equal(o.tree, "/usr/share");
}

static void test_getpid(void **state)
{
	struct tc_wl_opts o;

	(void)state;
	small_opts(&o);
	run_workload("getpid", &o, 1);
	/* one CPU */
	{
		int cpu0 = 0;

		o.cpus = &cpu0;
		o.nr_cpus = 1;
		run_workload("getpid", &o, 1);
	}
}

static void test_pipe(void **state)
{
	struct tc_wl_opts o;

	(void)state;
	small_opts(&o);
	run_workload("pipe", &o, 1);
}

/*
 * ctxsw's figure is a difference (ring minus pipe); a run whose ring was not
 * dearer than the pipe (noise with few trips, an emulator) must be refused
 * with -ERANGE and its reason, never reported as a zero or negative time.
 * Either outcome is accepted here; a reported figure must be positive.
 */
static void test_ctxsw(void **state)
{
	const struct tc_workload *w = tc_workload_find("ctxsw");
	struct tc_wl_opts o;
	struct tc_wl_ctx ctx;
	struct tc_wl_sample s;
	int rep, m, err, refused = 0;

	(void)state;
	small_opts(&o);
	assert_non_null(w);
	if (tc_workload_setup(&ctx, w, &o))
		fail_msg("ctxsw: setup: %s", ctx.detail);
	assert_int_equal(ctx.nr_metrics, 2);
	for (rep = 0; rep < 4; rep++) {
		ctx.detail[0] = '\0';
		err = tc_workload_run(&ctx, &s);
		if (err == -ERANGE) {
			if (!strstr(ctx.detail, "no switch time can be derived") ||
			    !strstr(ctx.detail, "ns per hop"))
				fail_msg("ctxsw: -ERANGE without its reason: '%s'", ctx.detail);
			refused++;
			continue;
		}
		if (err)
			fail_msg("ctxsw: run: %s", ctx.detail);
		for (m = 0; m < ctx.nr_metrics; m++) {
			if (!isfinite(s.value[m]) || !(s.value[m] > 0))
				fail_msg("ctxsw: %s = %g reported", ctx.metric[m].name, s.value[m]);
			if (s.work[m] != ctx.metric[m].work_asked)
				fail_msg("ctxsw: %s did %llu switches, asked %llu", ctx.metric[m].name,
					 (unsigned long long)s.work[m],
					 (unsigned long long)ctx.metric[m].work_asked);
		}
	}
	if (refused)
		print_message("ctxsw: %d of 4 runs refused (ring not above the pipe)\n", refused);
	tc_workload_teardown(&ctx);
}

static void test_fs(void **state)
{
	struct tc_wl_opts o;
	char path[128];
	int n = 0;
	FILE *p;

	(void)state;
	small_opts(&o);
	run_workload("fs", &o, 4);
	/* teardown removed its directory */
	snprintf(path, sizeof(path), "ls -A '%s' | grep -c tracecost-fs", tmpdir);
	p = popen(path, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	assert_int_equal(n, 0);
}

static void test_hackbench(void **state)
{
	struct tc_wl_opts o;

	(void)state;
	small_opts(&o);
	run_workload("hackbench", &o, 1);
	o.hb_pipe = true;
	run_workload("hackbench", &o, 1);
}

static void test_walk(void **state)
{
	const struct tc_workload *w = tc_workload_find("walk");
	struct tc_wl_opts o;
	struct tc_wl_ctx ctx;
	struct tc_wl_sample s;
	char root[96], path[160];
	int d, f, fd;

	(void)state;
	/* root + 3 directories of 4 files + one symlink (not followed) = 17 */
	snprintf(root, sizeof(root), "%s/tree", tmpdir);
	assert_int_equal(mkdir(root, 0755), 0);
	for (d = 0; d < 3; d++) {
		snprintf(path, sizeof(path), "%s/d%d", root, d);
		assert_int_equal(mkdir(path, 0755), 0);
		for (f = 0; f < 4; f++) {
			snprintf(path, sizeof(path), "%s/d%d/f%d", root, d, f);
			fd = open(path, O_CREAT | O_WRONLY, 0644);
			assert_true(fd >= 0);
			close(fd);
		}
	}
	snprintf(path, sizeof(path), "%s/link", root);
	assert_int_equal(symlink("/", path), 0);
	small_opts(&o);
	o.tree = root;
	run_workload("walk", &o, 1);
	assert_int_equal(tc_workload_setup(&ctx, w, &o), 0);
	assert_int_equal(ctx.metric[0].work_asked, 17);
	assert_int_equal(tc_workload_run(&ctx, &s), 0);
	assert_int_equal(s.work[0], 17);
	tc_workload_teardown(&ctx);
}

static void test_bad_options(void **state)
{
	struct tc_wl_opts o;
	char msg[256];

	(void)state;
	small_opts(&o);
	o.procs[0] = 1;
	assert_int_equal(tc_workload_check(tc_workload_find("ctxsw"), &o, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--procs"));
	small_opts(&o);
	o.tree = "/nonexistent/tree";
	assert_int_equal(tc_workload_check(tc_workload_find("walk"), &o, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--tree"));
	small_opts(&o);
	o.dir = "/nonexistent/dir";
	assert_int_equal(tc_workload_check(tc_workload_find("fs"), &o, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "--dir"));
	small_opts(&o);
	o.loops = 0;
	assert_int_equal(tc_workload_check(tc_workload_find("hackbench"), &o, msg, sizeof(msg)),
			 -EINVAL);
	small_opts(&o);
	o.calls = 0;
	assert_int_equal(tc_workload_check(tc_workload_find("getpid"), &o, msg, sizeof(msg)),
			 -EINVAL);
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* A stop request mid-run (SIGALRM after 100 ms) ends every workload with -EINTR. */
static void test_stop(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval it = { .it_value = { .tv_usec = 100000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct tc_wl_opts o;
	struct tc_wl_ctx ctx;
	struct tc_wl_sample s;
	int i;

	(void)state;
	small_opts(&o);
	o.stop = &stop_flag;
	o.calls = 100000000000ull;
	o.round_trips = o.ring_trips = 1000000000;
	o.files = 10000000;
	o.loops = 100000000;
	sigemptyset(&sa.sa_mask);	/* no SA_RESTART: blocking calls return EINTR */
	sigaction(SIGALRM, &sa, &old);
	for (i = 0; tc_workloads[i]; i++) {
		stop_flag = 0;
		assert_int_equal(tc_workload_setup(&ctx, tc_workloads[i], &o), 0);
		if (strcmp(tc_workloads[i]->name, "walk")) {
			setitimer(ITIMER_REAL, &it, NULL);
			if (tc_workload_run(&ctx, &s) != -EINTR)
				fail_msg("%s: not stopped: %s", tc_workloads[i]->name, ctx.detail);
			setitimer(ITIMER_REAL, &off, NULL);
		}
		/* asked before the run: no work at all */
		stop_flag = 1;
		assert_int_equal(tc_workload_run(&ctx, &s), -EINTR);
		tc_workload_teardown(&ctx);
	}
	sigaction(SIGALRM, &old, NULL);
}

static void test_summary(void **state)
{
	double v[20];
	struct tc_summary s;
	int i;

	(void)state;
	/* K = 7: [min, max], coverage 1 - 2/128 */
	for (i = 0; i < 7; i++)
		v[i] = 7 - i;
	assert_int_equal(tc_summary_compute(v, 7, &s), 0);
	assert_true(s.median == 4 && s.min == 1 && s.max == 7);
	assert_true(s.ci_valid);
	assert_true(s.ci_low == 1 && s.ci_high == 7);
	assert_true(fabs(s.ci_level - (1 - 2.0 / 128)) < 1e-12);
	assert_int_equal(v[0], 7);	/* input untouched */
	/* K = 5: even [min, max] covers only 93.75% */
	assert_int_equal(tc_summary_compute(v, 5, &s), 0);
	assert_false(s.ci_valid);
	/* K = 6: [min, max] at 96.875%; even K: mean of the middle two */
	for (i = 0; i < 6; i++)
		v[i] = i + 1;
	assert_int_equal(tc_summary_compute(v, 6, &s), 0);
	assert_true(s.median == 3.5);
	assert_true(s.ci_valid && s.ci_low == 1 && s.ci_high == 6);
	assert_true(fabs(s.ci_level - (1 - 2.0 / 64)) < 1e-12);
	/* K = 20: [x(6), x(15)], coverage 1 - 2 P(B <= 5) = 0.958611... */
	for (i = 0; i < 20; i++)
		v[i] = 20 - i;
	assert_int_equal(tc_summary_compute(v, 20, &s), 0);
	assert_true(s.ci_low == 6 && s.ci_high == 15);
	assert_true(fabs(s.ci_level - (1 - 2 * 21700.0 / 1048576)) < 1e-9);
	/* K = 1, errors */
	assert_int_equal(tc_summary_compute(v, 1, &s), 0);
	assert_true(s.median == 20 && !s.ci_valid);
	assert_int_equal(tc_summary_compute(v, 0, &s), -EINVAL);
	v[1] = NAN;
	assert_int_equal(tc_summary_compute(v, 3, &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_getpid),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_ctxsw),
		cmocka_unit_test(test_fs),
		cmocka_unit_test(test_hackbench),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_stop),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("workload", tests, setup_tmp, teardown_tmp);
}
