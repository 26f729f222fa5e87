// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/peer_floor.c - the floor peer (subjects/peers.def: floor):
 * every toggle records: one counter read (rdtsc; cntvct_el0 on AArch64)
 * and one 32-byte event stored into a hot per-thread ring (256 events,
 * 8 KiB) - the cheapest recording of an event there is, the physical
 * floor. No is-enabled test: it fires on every toggle, and has no "+"
 * column (compared with stock).
 */
#include <tracecost/clock.h>

#include "peer.h"
#include "peer_floor.h"

struct tc_floor_ring tc_floor_rings[TC_FLOOR_THREADS];
static unsigned int floor_next;
static TC_TLS struct tc_floor_ring *floor_ring;

/* Before a timed loop: this thread's ring (outside the timed region). */
static tc_noinline void floor_thread(void)
{
	unsigned int i;

	if (floor_ring)
		return;
	i = __atomic_fetch_add(&floor_next, 1, __ATOMIC_RELAXED);
	floor_ring = &tc_floor_rings[i % TC_FLOOR_THREADS];
}

static tc_always_inline void floor_record(unsigned long ip, unsigned long pip)
{
	struct tc_floor_ring *r = floor_ring;
	uint64_t h = r->head;
	struct tc_event *e = &r->ev[h & (TC_FLOOR_EVENTS - 1)];

	*e = (struct tc_event){ .ts = tc_clock_read_fast(), .ip = ip, .parent_ip = pip };
	r->head = h + 1;
}
#define LOOP_PROLOGUE	floor_thread()
#define FIRE(ev, ip, pip) floor_record(ip, pip)

#include "peer_body.h"
