// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subjects/peer_nop.c - the nop peer (subjects/peers.def: nop): stock's
 * toggles with, at every toggle, the NOP a disabled static-key site holds
 * (x86-64: the 5-byte 0f 1f 44 00 00 of static_key.h; AArch64: nop), as
 * plain code: no jump table entry, no out-of-line block. It is the control
 * of issue 17: static - nop is what a disabled site costs beyond its NOP
 * (the code around it), nop - stock what the NOP itself costs in the loop
 * (its decode and retire slots). The NOPs stand where static's sites do:
 * after the disabling toggle, before the enabling one.
 */
#include "peer.h"

#if defined(__x86_64__)
#define FIRE(ev, ip, pip) __asm__ __volatile__(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00")
#elif defined(__aarch64__)
#define FIRE(ev, ip, pip) __asm__ __volatile__("nop")
#else
#define FIRE(ev, ip, pip) do { } while (0)
#endif

#include "peer_body.h"
