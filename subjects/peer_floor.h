/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/peer_floor.h - the floor peer's per-thread rings
 * (subjects/peer_floor.c writes them, src/peer_floor.c counts their
 * heads): 256 events of 32 bytes, one ring per sampler thread.
 */
#ifndef TC_PEER_FLOOR_H
#define TC_PEER_FLOOR_H

#include <stdint.h>
#include <tracecost/ringbuf.h>

#define TC_FLOOR_EVENTS		256u
#define TC_FLOOR_THREADS	1024u

struct tc_floor_ring {
	uint64_t head;			/* events written */
	uint64_t pad[7];
	struct tc_event ev[TC_FLOOR_EVENTS];
} __attribute__((aligned(64)));

extern struct tc_floor_ring tc_floor_rings[TC_FLOOR_THREADS];

#endif /* TC_PEER_FLOOR_H */
