// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/tracecost.c - entry point: one table of subcommands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef TC_VERSION
#define TC_VERSION "unknown"
#endif
#ifndef TC_GIT_SHA
#define TC_GIT_SHA "unknown"
#endif

struct tc_command {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

static const struct tc_command commands[] = {
	{ "run", "measure: tracecost run [--suite user] [options]", cmd_run },
	{ "compare", "result files side by side: tracecost compare FILE[:CONFIG]...", cmd_compare },
	{ "calibrate", "between-session variance of this host: tracecost calibrate [options]",
	  cmd_calibrate },
	{ "size", "binary size impact: tracecost size ELF... [--symbols PATTERN]", cmd_size },
	{ "plot", "latency distributions: tracecost plot FILE[:CONFIG]... --out F.svg", cmd_plot },
	{ "noise", "what interrupts isolated CPUs: tracecost noise --cpus LIST [options]", cmd_noise },
	{ "restore", "put back tracing settings after a killed run: tracecost restore", cmd_restore },
	{ "vm", "boot a kernel build under QEMU, run there: tracecost vm --kernel BZIMAGE ...",
	  cmd_vm },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: tracecost <command> [options]\n"
		"       tracecost --help | --version\n\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n'tracecost run --help' lists the options of a run; man tracecost (doc/tracecost.1)\n"
		"has the details. Exit status: 0 ok, 1 runtime failure or missing privilege,\n"
		"2 bad usage, 130 interrupted.\n");
}

/*
 * At every exit (also the exit(0) after a --help): what went to stdout
 * must have been written, or the exit status says it was not (a full
 * disk, /dev/full, a closed pipe): the gnulib close_stdout() rule.
 */
static void close_stdout(void)
{
	int err;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout) && !fclose(stdout))
		return;
	err = errno;
	fprintf(stderr, "tracecost: writing to standard output failed%s%s\n",
		err ? ": " : "", err ? strerror(err) : "");
	_exit(TC_EXIT_FAIL);
}

int main(int argc, char **argv)
{
	size_t i;

	tc_cli_early_signals();
	tc_cli_runs_child_check();
	/* Keep the command line as given: subcommands may reorder argv. */
	tc_cli_argc = argc;
	tc_cli_argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!tc_cli_argv)
		return TC_EXIT_FAIL;
	for (i = 0; i < (size_t)argc; i++)
		tc_cli_argv[i] = argv[i];
	atexit(close_stdout);
	if (argc < 2)
		tc_cli_usage("missing command (try 'tracecost --help')");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help") ||
	    !strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			tc_cli_usage("%s: unexpected argument '%s'", argv[1], argv[2]);
		if (argv[1][2] == 'v' || argv[1][1] == 'V')
			printf("tracecost %s (git %s)\n", TC_VERSION, TC_GIT_SHA);
		else
			usage(stdout);
		return TC_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		/* tables on a full disk or a closed pipe fail in close_stdout() */
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	}
	tc_cli_usage("unknown command '%s' (try 'tracecost --help')", argv[1]);
}
