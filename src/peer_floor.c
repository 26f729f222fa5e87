// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/peer_floor.c - the floor peer's count (subjects/peers.def): the
 * events its column recorded are the heads of its per-thread rings
 * (subjects/peer_floor.c) moved during the main run; nothing overwritten
 * is counted (a ring of the floor is overwritten by design).
 */
#include <stdint.h>

#include "peer_ops.h"
#include "../subjects/peer_floor.h"

static uint64_t floor_before;

static uint64_t floor_total(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < TC_FLOOR_THREADS; i++)
		n += __atomic_load_n(&tc_floor_rings[i].head, __ATOMIC_RELAXED);
	return n;
}

/* Nothing to start: the heads before the run. */
static int floor_setup(char *why, size_t len, const char **tag)
{
	floor_before = floor_total();
	return 0;
}

static void floor_count(const char *id, uint64_t *events, uint64_t *lost)
{
	*events = floor_total() - floor_before;
}

const struct tc_peer_ops tc_peer_ops_floor = {
	.setup = floor_setup,
	.count = floor_count,
};
