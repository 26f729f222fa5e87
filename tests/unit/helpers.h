/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the unit tests: a seeded PRNG so failures reproduce. */
#ifndef TC_TEST_HELPERS_H
#define TC_TEST_HELPERS_H

#include <stdint.h>

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators") */
uint64_t tc_test_rand(uint64_t *state);
/* Uniform in [0, bound), bound >= 1. */
uint64_t tc_test_rand_below(uint64_t *state, uint64_t bound);
/* Seed from TC_TEST_SEED in the environment, else @dflt; prints the seed used. */
uint64_t tc_test_seed(uint64_t dflt);

#endif
