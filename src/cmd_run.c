// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_run.c - "tracecost run": pick the suite from one registration
 * table (the perf bench model), hand it the remaining arguments.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct tc_suite suites[] = {
	{ "user", "userspace toggles: stock, call, call+, static, static+ (no root)",
	  suite_user_run },
};

int cmd_run(int argc, char **argv)
{
	const char *name = "user";
	size_t i;
	int a, b;

	/* Take "--suite NAME" / "--suite=NAME" out of argv, keep the rest in order. */
	for (a = 1, b = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--suite")) {
			if (a + 1 >= argc)
				tc_cli_usage("--suite: missing value (suites: user)");
			name = argv[++a];
		} else if (!strncmp(argv[a], "--suite=", 8)) {
			name = argv[a] + 8;
		} else {
			argv[b++] = argv[a];
		}
	}
	argv[b] = NULL;
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (!strcmp(suites[i].name, name))
			return suites[i].run(b, argv);
	tc_cli_usage("--suite: unknown suite '%s' (suites: user)", name);
}
