// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/peer_usdt.c - the usdt peer (subjects/peers.def):
 *  usdt   (TC_PEER_VAR 0): a sys/sdt.h probe without semaphore (a NOP; its
 *	   arguments are computed every time), no is-enabled test: it fires
 *	   on every toggle; usdt+ is the same object with a uprobe on its
 *	   probe points, set up by tracecost in its tracefs instance
 *	   (src/peer_usdt.c).
 *  usdt-s (TC_PEER_VAR 1): a sys/sdt.h probe behind its semaphore
 *	   (is-enabled test of a 16-bit counter the kernel increments when a
 *	   uprobe with a reference counter is attached).
 * src/peer_usdt.c finds the probes of the enabled columns by their names,
 * tracecost:<id>_<event>.
 */
#include "peer.h"

#if TC_PEER_VAR == 1
#define _SDT_HAS_SEMAPHORES 1
#endif
#include <sys/sdt.h>

#if TC_PEER_VAR == 1
#define SEM(ev)		TC_CONCAT(tracecost_, TC_CONCAT(SYM(ev), _semaphore))
#define DEFINE_SEM(ev)	\
	unsigned short SEM(ev) __attribute__((section(".probes"), used))
DEFINE_SEM(irq_disable);
DEFINE_SEM(irq_enable);
DEFINE_SEM(preempt_disable);
DEFINE_SEM(preempt_enable);
#define ON(ev)		__builtin_expect(TC_READ_ONCE(SEM(ev)), 0)
#endif
#define FIRE(ev, ip, pip) STAP_PROBE2(tracecost, SYM(ev), ip, pip)

#include "peer_body.h"
