/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/static_key_local.h - what the static-key files of libtracecost share.
 * Not installed.
 *
 *   static_key.c        counts, jump tables, the generic half of a key flip
 *                       (which sites change, from what to what), the patch
 *                       environment (/proc/self/mem, membarrier), fork()
 *   static_key_x86.c    x86-64: 5-byte NOP <-> jmp, the int3 protocol and
 *                       its SIGTRAP handler (the kernel's arch/x86 jump_label.c
 *                       and text_poke_bp())
 *   static_key_arm64.c  AArch64: NOP <-> B, one write per site, cache
 *                       maintenance, one membarrier (the kernel's arch/arm64
 *                       jump_label.c)
 *
 * Locking: every function here that is not marked otherwise is called with
 * tcsk_mutex held (the library's one mutex: it serialises every key count
 * update and every write to a site). tcsk_find_site() is for the signal
 * handler: it takes no lock (see its comment).
 */
#ifndef TC_STATIC_KEY_LOCAL_H
#define TC_STATIC_KEY_LOCAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tracecost/static_key.h>

#define TCSK_HIDDEN		__attribute__((visibility("hidden")))

extern pthread_mutex_t tcsk_mutex TCSK_HIDDEN;

/* SIGTRAPs the x86-64 int3 handler took as its own (atomic increments). */
extern unsigned long tcsk_int3_hits TCSK_HIDDEN;

/* One site of a batch: where, and its bytes before and after. */
struct tcsk_site {
	uintptr_t ip;
	unsigned char old[TC_JUMP_SITE_SIZE];
	unsigned char new[TC_JUMP_SITE_SIZE];
};

/* What the SIGTRAP handler needs of a site, copied out of its table. */
struct tcsk_site_ref {
	uintptr_t target;
	struct tc_static_key *key;
	bool likely;
};

/*
 * Looks up the site that starts at @ip in every registered table without
 * the mutex (for a signal handler; async-signal-safe). A table is not freed
 * while a lookup is inside it. Return: true and *@ref filled if @ip is a site.
 */
bool tcsk_find_site(uintptr_t ip, struct tcsk_site_ref *ref) TCSK_HIDDEN;

/* Writes @len bytes at code address @addr through /proc/self/mem: 0 or -errno. */
int tcsk_poke(uintptr_t addr, const void *buf, size_t len) TCSK_HIDDEN;

/* membarrier(PRIVATE_EXPEDITED_SYNC_CORE), then the test delay: 0 or -errno. */
int tcsk_sync_core(void) TCSK_HIDDEN;

/*
 * The architecture's half; in the flag build static_key.c has its own.
 *
 * tcsk_arch_site_is():   do the @TC_JUMP_SITE_SIZE bytes @insn of the site of
 *                        @e hold the NOP (!@jump) or a jump to its target?
 * tcsk_arch_site_insn(): the bytes for state @jump at the site of @e, now
 *                        holding @cur, into @out; -ERANGE if the target is
 *                        out of the jump's reach
 * tcsk_arch_ready():     per-process set-up beyond membarrier and
 *                        /proc/self/mem (x86-64: the SIGTRAP handler)
 * tcsk_arch_patch():     writes @n sites of @key (every one changes) so that
 *                        they hold ->new when it returns, by the
 *                        architecture's protocol; on error, puts ->old back
 *                        as far as it can and returns -errno
 * tcsk_arch_impl():      tc_static_key_impl()'s string
 */
bool tcsk_arch_site_is(const unsigned char *insn, const struct tc_jump_entry *e,
		       bool jump) TCSK_HIDDEN;
int tcsk_arch_site_insn(const struct tc_jump_entry *e, bool jump, const unsigned char *cur,
			unsigned char *out) TCSK_HIDDEN;
int tcsk_arch_ready(void) TCSK_HIDDEN;
int tcsk_arch_patch(struct tc_static_key *key, bool enable, const struct tcsk_site *p,
		    int n) TCSK_HIDDEN;
const char *tcsk_arch_impl(void) TCSK_HIDDEN;

#endif /* TC_STATIC_KEY_LOCAL_H */
