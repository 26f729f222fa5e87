/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/peer_subject.h - what the user suite knows of the peer columns:
 * one subject per column of subjects/peers.def, tc_subject_<id>, defined
 * by build/subjects/peer_<id>.o. The declarations are weak: a column whose
 * peer was not built (its needs missing at build time) has no object, and
 * its subject's address is NULL.
 */
#ifndef TC_PEER_SUBJECT_H
#define TC_PEER_SUBJECT_H

#include <tracecost/subject.h>

#define TC_PEER(name, needs, missing, debs)
#define TC_PEER_COLUMN(peer, kind, var, id, name, on, twin, count) \
	extern const struct tc_subject tc_subject_##id __attribute__((weak));
#include "peers.def"
#undef TC_PEER
#undef TC_PEER_COLUMN

#endif /* TC_PEER_SUBJECT_H */
