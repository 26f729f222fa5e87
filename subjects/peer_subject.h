/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/peer_subject.h - what the user suite knows of the peer columns
 * (subjects/peer_subject.c): their subjects, the floor's rings.
 */
#ifndef TC_PEER_SUBJECT_H
#define TC_PEER_SUBJECT_H

#include <stdint.h>
#include <tracecost/ringbuf.h>
#include <tracecost/subject.h>

/* The floor's per-thread rings: 256 events of 32 bytes, one per sampler thread. */
#define TC_FLOOR_EVENTS		256u
#define TC_FLOOR_THREADS	1024u

struct tc_floor_ring {
	uint64_t head;			/* events written */
	uint64_t pad[7];
	struct tc_event ev[TC_FLOOR_EVENTS];
} __attribute__((aligned(64)));

extern struct tc_floor_ring tc_floor_rings[TC_FLOOR_THREADS];

/* Built when the peer's headers were there (TC_HAVE_USDT, TC_HAVE_LTTNG). */
extern const struct tc_subject tc_subject_flag, tc_subject_flagp, tc_subject_floor;
extern const struct tc_subject tc_subject_usdt, tc_subject_usdtp, tc_subject_usdts,
	tc_subject_usdtsp;
extern const struct tc_subject tc_subject_lttng, tc_subject_lttngp;

/* The flag of flag+ (1) and flag (0). */
extern int flag_flag, flagp_flag;

#endif /* TC_PEER_SUBJECT_H */
