// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_run.c - "tracecost run": pick the suite from one registration
 * table (the perf bench model), hand it the remaining arguments.
 */
#include <stdio.h>
#include <string.h>

#include <tracecost/result.h>

#include "cli.h"

static const struct tc_suite suites[] = {
	{ "user", "userspace toggles: stock, call, call+, static, static+ (no root)",
	  suite_user_run },
	{ "kernel", "the tracecost module: irq, preempt, irq_save, bh, rcu, spin, ref16 (root)",
	  suite_kernel_run },
	{ "system", "real workloads under tracing profiles applied through tracefs (root)",
	  suite_system_run },
};

#define NR_SUITES (sizeof(suites) / sizeof(suites[0]))

/* "user, kernel, ...": the names in the table, for messages. */
static const char *suite_list(void)
{
	static char buf[256];
	size_t i, off = 0;

	for (i = 0; i < NR_SUITES && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
					suites[i].name);
	return buf;
}

int cmd_run(int argc, char **argv)
{
	const char *name = "user", *runs = NULL;
	unsigned int nr_runs = 1;
	size_t i;
	int a, b;

	/* Take "--suite NAME" / "--suite=NAME" out of argv, keep the rest in order. */
	for (a = 1, b = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--suite")) {
			if (a + 1 >= argc)
				tc_cli_usage("--suite: missing value (suites: %s)", suite_list());
			name = argv[++a];
		} else if (!strncmp(argv[a], "--suite=", 8)) {
			name = argv[a] + 8;
		} else if (!strcmp(argv[a], "--runs")) {
			if (a + 1 >= argc)
				tc_cli_usage("--runs: missing value");
			runs = argv[++a];
		} else if (!strncmp(argv[a], "--runs=", 7)) {
			runs = argv[a] + 7;
		} else {
			argv[b++] = argv[a];
		}
	}
	argv[b] = NULL;
	if (runs)
		nr_runs = (unsigned int)tc_cli_parse_u64("--runs", runs, 1, TC_RESULT_MAX_RUNS);
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		if (strcmp(suites[i].name, name))
			continue;
		/* Several runs: each one this program again, in a fresh process. */
		if (nr_runs > 1)
			return tc_cli_runs(name, nr_runs, b, argv);
		return suites[i].run(b, argv);
	}
	tc_cli_usage("--suite: unknown suite '%s' (suites: %s)", name, suite_list());
}
