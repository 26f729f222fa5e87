/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subjects/peer.h - included first by every subjects/peer_<peer>.c (a
 * peer's measured code, built once per column of subjects/peers.def; see
 * peer_body.h, included last): the headers a peer's toggles use, and the
 * names of this column's object:
 *	ID		the column's id (TC_SUBJECT_ID, -D from the Makefile)
 *	SYM(x)		<id>_x, a file-scope name unique to the column
 */
#ifndef TC_PEER_H
#define TC_PEER_H

#include <stdint.h>

#include <tracecost/compiler.h>
#include <tracecost/subject.h>
#include <tracecost/toggle.h>
#include <tracecost/tracepoint.h>

#if !defined(TC_PEER_VAR) || !defined(TC_PEER_ON) || !defined(TC_PEER_NAME) || \
	!defined(TC_PEER_HOOKS) || !defined(TC_SUBJECT_ID)
#error "built by the Makefile from subjects/peers.def: -DTC_PEER_VAR -DTC_PEER_ON -DTC_PEER_NAME ..."
#endif

#define ID		TC_SUBJECT_ID
#define SYM(x)		TC_CONCAT(TC_CONCAT(ID, _), x)

#endif /* TC_PEER_H */
