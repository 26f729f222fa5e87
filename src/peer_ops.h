/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/peer_ops.h - what a peer of subjects/peers.def does in the CLI
 * beyond its columns: set up and tear down the consumer of its enabled
 * columns, count their events. A peer that needs any of it defines
 *	const struct tc_peer_ops tc_peer_ops_<peer>
 * in src/peer_<peer>.c; src/peers.c finds it by that name (a weak
 * reference: a peer without one, such as flag, has nothing to set up and
 * its events are counted by the sampler's probe or not at all).
 */
#ifndef TC_PEER_OPS_H
#define TC_PEER_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * struct tc_peer_ops - a peer's consumer
 * @first:	set up before the other peers (usdt: tc_tracefs_open()
 *		wants no other thread in the process yet)
 * @setup:	start the consumer of the peer's enabled columns, called only
 *		when the peer was selected and built. Return: 0, or -errno
 *		with @why (at most @len bytes) saying why and *@tag the same
 *		in a table cell; every enabled column of the peer is then
 *		dropped with that reason, the other columns run
 * @teardown:	stop it; idempotent, also after a failed or no @setup
 * @busy:	what @teardown will stop, named when a run is interrupted
 *		("LTTng's session daemon"), or NULL when nothing runs
 * @done:	after the main run, before @count: read the consumer
 * @count:	events recorded and lost (overwritten, discarded) in the
 *		main run by the consumer of enabled column @id, for the
 *		columns whose count (subjects/peers.def) is not PROBE
 * @clean:	remove what runs of the peer that were killed (kill -9) left
 *		behind, only what no live run holds; say on @f (NULL: say
 *		nothing) what was removed, on stderr what could not be
 */
struct tc_peer_ops {
	bool first;
	int (*setup)(char *why, size_t len, const char **tag);
	void (*teardown)(void);
	const char *(*busy)(void);
	void (*done)(void);
	void (*count)(const char *id, uint64_t *events, uint64_t *lost);
	void (*clean)(FILE *f);
};

#endif /* TC_PEER_OPS_H */
