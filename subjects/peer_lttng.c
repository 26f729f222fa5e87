// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/peer_lttng.c - the lttng peer (subjects/peers.def): an
 * LTTng-UST tracepoint (lttng_ust_tracepoint_enabled() test of the
 * tracepoint's state, lttng_ust_do_tracepoint()); events tracecost:*_0
 * (lttng, never enabled) and tracecost:*_1 (lttng+, enabled in tracecost's
 * private session, src/peer_lttng.c). The provider: tc_lttng_tp.h,
 * lttng_define.c, lttng_provider.c; their rules: peer_lttng.mk.
 */
#include "peer.h"
#include "subjects/tc_lttng_tp.h"

#define LTTNG_EV(ev)	TC_CONCAT(TC_CONCAT(ev, _), TC_PEER_ON)
#define LTTNG_ON(e)	lttng_ust_tracepoint_enabled(tracecost, e)
#define LTTNG_FIRE(e, ip, pip) lttng_ust_do_tracepoint(tracecost, e, ip, pip)
#define ON(ev)		LTTNG_ON(LTTNG_EV(ev))
#define FIRE(ev, ip, pip) LTTNG_FIRE(LTTNG_EV(ev), ip, pip)

#include "peer_body.h"
