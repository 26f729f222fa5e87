// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <stdlib.h>
#include "helpers.h"

uint64_t tc_test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

uint64_t tc_test_rand_below(uint64_t *state, uint64_t bound)
{
	return tc_test_rand(state) % bound;
}

uint64_t tc_test_seed(uint64_t dflt)
{
	const char *s = getenv("TC_TEST_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : dflt;

	if (!seed)
		seed = 1;
	fprintf(stderr, "# TC_TEST_SEED=%llu\n", (unsigned long long)seed);
	return seed;
}
