// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/static_key_x86.c - x86-64 half of the static keys: 5-byte NOP <-> jmp
 * written in the kernel's text_poke_bp() order (int3 first, then the tail,
 * then byte 0, each step followed by membarrier SYNC_CORE), and the SIGTRAP
 * handler that sends a thread trapping on a site being patched on its way.
 * The safety argument is in include/tracecost/static_key.h ("Patching
 * safety (x86-64)"); the sources are the kernel's arch/x86/kernel/
 * jump_label.c (which instruction) and alternative.c (the order).
 *
 * Locking: tcsk_arch_*() run under tcsk_mutex (static_key_local.h). The
 * handler takes no lock: it reads tc_poke_state and the site's byte 0 with
 * acquire loads and the tables through tcsk_find_site().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include <tracecost/static_key.h>
#include "static_key_local.h"

#if TC_STATIC_KEY_ASM_GOTO && defined(__x86_64__)

#define INT3_INSN	0xcc
#define JMP8_INSN	0xeb
#define JMP32_INSN	0xe9

static const unsigned char tc_nop5[TC_JUMP_SITE_SIZE] = { TC_JUMP_NOP5 };

const char *tcsk_arch_impl(void)
{
	return "x86-64 asm goto, 5-byte NOP <-> jmp, text_poke_bp order via "
	       "/proc/self/mem + membarrier";
}

/* Installed once per process image (a fork()ed child inherits it). */
static bool tc_trap_installed;

/*
 * The SIGTRAP handler that was installed before ours. Written once, under
 * tcsk_mutex, before our handler is installed; read by tc_sigtrap().
 */
static struct sigaction tc_prev_trap;

/*
 * The batch in flight: (uintptr_t)key | 1 if its sites are being patched
 * to the enabled state, | 0 to the disabled state; 0 when idle. Written
 * under tcsk_mutex (seq_cst stores, before step 1 and after step 3),
 * read by tc_sigtrap() (acquire).
 */
static uintptr_t tc_poke_state;

/* Passes a SIGTRAP that is not ours to the previous disposition. */
static void tc_chain_trap(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *p = &tc_prev_trap;
	struct sigaction dfl;

	if (p->sa_flags & SA_SIGINFO) {
		if (p->sa_sigaction)
			p->sa_sigaction(sig, si, uc);
		return;
	}
	if (p->sa_handler == SIG_IGN)
		return;
	if (p->sa_handler == SIG_DFL) {
		/* Default action (core dump): reset and re-raise; delivered on return. */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		raise(sig);
		return;
	}
	p->sa_handler(sig);
}

/*
 * The int3 handler (the userspace poke_int3_handler). Async-signal-safe:
 * only loads, one atomic increment, and the chained handler. Why re-reading
 * byte 0 is enough, and why a late handler (the batch long finished) is
 * harmless, is explained in static_key.h.
 */
static void tc_sigtrap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct tcsk_site_ref site;
	uintptr_t ip, state;
	unsigned int spins;

	/*
	 * The kernel's int3 path (do_int3_user) sends SI_KERNEL; raise()/kill()/
	 * sigqueue() give <= 0, a single step TRAP_TRACE, a hardware breakpoint
	 * TRAP_HWBKPT, perf TRAP_PERF: none of those is a site's int3, even when
	 * RIP - 1 happens to be a site's first byte.
	 */
	if (si->si_code != SI_KERNEL)
		goto chain;
	ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
	if (!tcsk_find_site(ip, &site))
		goto chain;
	for (spins = 0; spins < (1u << 20); spins++) {
		/* Acquire: the batch state was stored before the int3 was written. */
		if (__atomic_load_n((const unsigned char *)ip, __ATOMIC_ACQUIRE) != INT3_INSN) {
			/* Complete instruction again: run it. */
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
			goto ours;
		}
		state = __atomic_load_n(&tc_poke_state, __ATOMIC_ACQUIRE);
		if (state && (struct tc_static_key *)(state & ~(uintptr_t)1) == site.key) {
			/* Emulate the new instruction. */
			if ((state & 1) ^ site.likely)
				uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site.target;
			else
				uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(ip + TC_JUMP_SITE_SIZE);
			goto ours;
		}
		/* The batch ended between the two loads: byte 0 is restored now. */
		__builtin_ia32_pause();
	}
	/* An int3 on a site that no batch of ours wrote: not ours. */
chain:
	tc_chain_trap(sig, si, ctx);
	return;
ours:
	__atomic_fetch_add(&tcsk_int3_hits, 1, __ATOMIC_RELAXED);
}

/* Installs tc_sigtrap once, remembering the previous disposition. Under tcsk_mutex. */
int tcsk_arch_ready(void)
{
	struct sigaction sa, old;

	if (tc_trap_installed)
		return 0;
	if (sigaction(SIGTRAP, NULL, &tc_prev_trap))
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = tc_sigtrap;
	/*
	 * SA_NODEFER: SIGTRAP stays unblocked in our handler and in a handler
	 * we chain to, so a site run there can trap again (a synchronous trap
	 * on a blocked signal would kill the process).
	 */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, &old))
		return -errno;
	/* Changed between the two calls (another thread): keep the newer one. */
	if (memcmp(&old, &tc_prev_trap, sizeof(old)))
		tc_prev_trap = old;
	tc_trap_installed = true;
	return 0;
}

/* Does @insn (the site's bytes) hold the NOP, or a jmp (either form) to the target of @e? */
bool tcsk_arch_site_is(const unsigned char *insn, const struct tc_jump_entry *e, bool jump)
{
	uintptr_t ip = tc_jump_entry_code(e), target = tc_jump_entry_target(e);
	int32_t rel32;

	if (!jump)
		return !memcmp(insn, tc_nop5, TC_JUMP_SITE_SIZE);
	if (insn[0] == JMP8_INSN)
		return ip + 2 + (intptr_t)(int8_t)insn[1] == target;
	if (insn[0] == JMP32_INSN) {
		memcpy(&rel32, insn + 1, sizeof(rel32));
		return ip + TC_JUMP_SITE_SIZE + (intptr_t)rel32 == target;
	}
	return false;
}

/*
 * The instruction for state @jump at the site of @e, whose bytes are now
 * @cur: the NOP, or the shortest jmp (the kernel's arch/x86 jump_label.c
 * writes the 2-byte form when the displacement fits, too).
 */
int tcsk_arch_site_insn(const struct tc_jump_entry *e, bool jump, const unsigned char *cur,
			unsigned char *out)
{
	uintptr_t ip = tc_jump_entry_code(e), target = tc_jump_entry_target(e);
	intptr_t rel = (intptr_t)(target - (ip + 2));
	int32_t rel32;

	if (!jump) {
		memcpy(out, tc_nop5, TC_JUMP_SITE_SIZE);
		return 0;
	}
	memcpy(out, cur, TC_JUMP_SITE_SIZE);
	if (rel >= -128 && rel <= 127) {
		out[0] = JMP8_INSN;
		out[1] = (unsigned char)(int8_t)rel;
		return 0;
	}
	rel32 = (int32_t)(intptr_t)(target - (ip + TC_JUMP_SITE_SIZE));
	if ((intptr_t)(target - (ip + TC_JUMP_SITE_SIZE)) != rel32)
		return -ERANGE;
	out[0] = JMP32_INSN;
	memcpy(out + 1, &rel32, sizeof(rel32));
	return 0;
}

/*
 * Best-effort return of every site of a failed batch to its old bytes, with
 * the same int3 protocol; the handler emulates the old instruction meanwhile.
 */
static void tc_poke_revert(struct tc_static_key *key, bool enable,
			   const struct tcsk_site *p, int n)
{
	const unsigned char int3 = INT3_INSN;
	int i;

	__atomic_store_n(&tc_poke_state, (uintptr_t)key | !enable, __ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++)
		tcsk_poke(p[i].ip, &int3, 1);
	tcsk_sync_core();
	for (i = 0; i < n; i++)
		tcsk_poke(p[i].ip + 1, p[i].old + 1, TC_JUMP_SITE_SIZE - 1);
	tcsk_sync_core();
	for (i = 0; i < n; i++)
		tcsk_poke(p[i].ip, p[i].old, 1);
	tcsk_sync_core();
	__atomic_store_n(&tc_poke_state, 0, __ATOMIC_SEQ_CST);
}

/*
 * The int3 protocol over the @n sites of @p (static_key.h, "Procedure"):
 * every site changes; the caller checked that our text is writable.
 */
int tcsk_arch_patch(struct tc_static_key *key, bool enable, const struct tcsk_site *p, int n)
{
	const unsigned char int3 = INT3_INSN;
	bool tails = false;
	int i, ret;

	for (i = 0; i < n; i++)
		if (memcmp(p[i].old + 1, p[i].new + 1, TC_JUMP_SITE_SIZE - 1))
			tails = true;

	/* Publish the batch for tc_sigtrap() before the first int3. */
	__atomic_store_n(&tc_poke_state, (uintptr_t)key | enable, __ATOMIC_SEQ_CST);

	/* Step 1: int3 over byte 0, then every thread serialises. */
	for (i = 0; i < n; i++) {
		ret = tcsk_poke(p[i].ip, &int3, 1);
		if (ret)
			goto revert;
	}
	ret = tcsk_sync_core();
	if (ret)
		goto revert;

	/* Step 2: the tail of the new instruction (nobody executes it). */
	if (tails) {
		for (i = 0; i < n; i++) {
			if (!memcmp(p[i].old + 1, p[i].new + 1, TC_JUMP_SITE_SIZE - 1))
				continue;
			ret = tcsk_poke(p[i].ip + 1, p[i].new + 1, TC_JUMP_SITE_SIZE - 1);
			if (ret)
				goto revert;
		}
		ret = tcsk_sync_core();
		if (ret)
			goto revert;
	}

	/* Step 3: byte 0 of the new instruction; after the sync everyone runs it. */
	for (i = 0; i < n; i++) {
		ret = tcsk_poke(p[i].ip, p[i].new, 1);
		if (ret)
			goto revert;
	}
	ret = tcsk_sync_core();
	if (ret)
		goto revert;
	__atomic_store_n(&tc_poke_state, 0, __ATOMIC_SEQ_CST);
	return 0;

revert:
	tc_poke_revert(key, enable, p, n);
	return ret;
}

#endif /* TC_STATIC_KEY_ASM_GOTO && __x86_64__ */
