// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/fuzz/fuzz_options.c - libFuzzer harness of the CLI's option-value
 * parsers (src/cli.c): integers, numbers, CPU lists, the one list rule,
 * integer lists (--procs, --sizes), --unit and --format. Byte 0 of the
 * input picks the parser, the rest is the value (up to its first NUL).
 *
 * A parser either returns a value in its bounds or rejects the value the
 * way the CLI does: one "tracecost: ..." line and exit 2. cli.c is built
 * for this harness with exit() renamed to tc_fuzz_exit(), which checks the
 * status (2: bad usage) and jumps back; the parsers free what they
 * allocated before they reject (LeakSanitizer checks). Run with
 * -close_fd_mask=2: every rejection prints its one line.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static jmp_buf back;
static int exited;

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_options: invariant violated: %s\n", what);
		abort();
	}
}

void tc_fuzz_exit(int code) __attribute__((noreturn));
void tc_fuzz_exit(int code)
{
	exited = code;
	longjmp(back, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static volatile int op;
	static char *s;
	unsigned int v[16];
	int *cpus = NULL;
	int n, i;

	if (size < 1 || size > 4096)
		return 0;
	op = data[0] % 8;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	exited = -1;
	if (setjmp(back)) {
		check(exited == 2, "a rejected value exits 2");
		free(s);
		return 0;
	}
	switch (op) {
	case 0: {
		uint64_t x = tc_cli_parse_u64("--samples", s, 1, 1000000000ull);

		check(x >= 1 && x <= 1000000000ull, "u64 in range");
		break;
	}
	case 1: {
		double x = tc_cli_parse_double("--percentile", s, 0, 100);

		check(x > 0 && x <= 100, "double in range");
		break;
	}
	case 2:
		n = tc_cli_parse_cpus("--cpus", s, &cpus);
		check(n >= 1, "a CPU list names a CPU");
		for (i = 1; i < n; i++)
			check(cpus[i] > cpus[i - 1], "CPUs ascending and unique");
		free(cpus);
		break;
	case 3:
		tc_cli_check_list("--workloads", s);
		check(*s && *s != ',' && s[strlen(s) - 1] != ',' && !strstr(s, ",,"),
		      "an accepted list has no empty item");
		break;
	case 4:
	case 5:
		n = tc_cli_parse_uint_list("--sizes", s, v, 16, op == 5);
		check(n >= 1 && n <= 16, "list length in bounds");
		for (i = 0; i < n; i++)
			check(v[i] <= 1000000, "list value in bounds");
		break;
	case 6:
		n = tc_cli_parse_unit("--unit", s);
		check(n == 0 || n == 1, "unit");
		break;
	default:
		n = tc_cli_parse_format("--format", s, 1);
		check(n >= -1 && n <= 2, "format");
		break;
	}
	free(s);
	return 0;
}
