// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/peer_flag.c - the flag peer (subjects/peers.def: flag, flag+):
 * inline toggle, then a __builtin_expect() test of a global int (the
 * scheme of LTTng-UST's and libside's "enabled" state); set, it calls the
 * object's own tracepoint (the same dispatch and recording probe as
 * static+). flag: 0; flag+: 1.
 */
#include "peer.h"

/* The object's own tracepoints (toggle_hooks.h), as static+'s. */
#define SUBJECT_TRACEPOINTS

/* The flag: a plain global, so the compiler must load it at every site. */
int SYM(flag) = TC_PEER_ON;
#define ON(ev)		__builtin_expect(TC_READ_ONCE(SYM(flag)), 0)
#define FIRE(ev, ip, pip) __tc_do_trace_##ev(ip, pip)
/* flag+: the sampler's recording probe on the tracepoints */
#define PEER_PROBES	TC_PEER_ON

#include "peer_body.h"
