// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/static_key_arm64.c - AArch64 half of the static keys: a site is one
 * 4-byte NOP or "B target"; a flip writes each site's new instruction
 * through /proc/self/mem, cleans and invalidates it to the Point of
 * Unification from user space, then runs one membarrier SYNC_CORE. No
 * breakpoint step: NOP and B are both in the Arm ARM's set of instructions
 * that may be modified while another thread executes them. The safety
 * argument and its sources are in include/tracecost/static_key.h ("Patching
 * safety (AArch64)"); the model is the kernel's arch/arm64/kernel/
 * jump_label.c (aarch64_insn_patch_text_nosync(), kick_all_cpus_sync()).
 *
 * Locking: tcsk_arch_*() run under tcsk_mutex (static_key_local.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <tracecost/static_key.h>
#include "static_key_local.h"

#if TC_STATIC_KEY_ASM_GOTO && defined(__aarch64__)

#define A64_NOP		0xd503201fu	/* hint #0 */
#define A64_B		0x14000000u	/* b imm26: offset / 4 in bits 25..0 */
#define A64_B_MASK	0xfc000000u
#define A64_B_RANGE	(128l << 20)	/* +-128 MiB */

const char *tcsk_arch_impl(void)
{
	return "aarch64 asm goto, NOP <-> B, one 32-bit write per site via "
	       "/proc/self/mem + dc cvau/ic ivau + membarrier";
}

int tcsk_arch_ready(void)
{
	return 0;	/* no breakpoint, no handler */
}

/* A64 instructions are little-endian words in memory (also on big-endian data). */
static uint32_t a64_load(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void a64_store(unsigned char *p, uint32_t insn)
{
	p[0] = (unsigned char)insn;
	p[1] = (unsigned char)(insn >> 8);
	p[2] = (unsigned char)(insn >> 16);
	p[3] = (unsigned char)(insn >> 24);
}

/* The target of the B at @pc encoded as @insn. */
static uintptr_t a64_b_target(uintptr_t pc, uint32_t insn)
{
	/* imm26, sign-extended, times 4 */
	int64_t off = (int64_t)((uint64_t)(insn & ~A64_B_MASK) << 38) >> 36;

	return pc + (uintptr_t)off;
}

bool tcsk_arch_site_is(const unsigned char *insn, const struct tc_jump_entry *e, bool jump)
{
	uint32_t v = a64_load(insn);

	if (!jump)
		return v == A64_NOP;
	return (v & A64_B_MASK) == A64_B &&
	       a64_b_target(tc_jump_entry_code(e), v) == tc_jump_entry_target(e);
}

int tcsk_arch_site_insn(const struct tc_jump_entry *e, bool jump, const unsigned char *cur,
			unsigned char *out)
{
	uintptr_t pc = tc_jump_entry_code(e), target = tc_jump_entry_target(e);
	intptr_t off = (intptr_t)(target - pc);

	(void)cur;
	if (!jump) {
		a64_store(out, A64_NOP);
		return 0;
	}
	/* The kernel's aarch64_insn_gen_branch_imm(): word aligned, in reach. */
	if ((off & 3) || off < -A64_B_RANGE || off >= A64_B_RANGE)
		return -ERANGE;
	a64_store(out, A64_B | ((uint32_t)(off >> 2) & ~A64_B_MASK));
	return 0;
}

/*
 * [ARM]'s sequence for a modified instruction, on the site's own address:
 * clean the data cache to the PoU, invalidate the instruction cache, each
 * completed, then synchronize this thread's context. Always issued, also
 * when CTR_EL0.IDC/DIC say the core does not need it (a few instructions
 * per flip; an emulator may rely on seeing the IC IVAU). An A64 site is
 * 4-byte aligned, so it lies in one cache line.
 */
static void a64_sync_icache(uintptr_t addr)
{
	__asm__ __volatile__("dc cvau, %0\n\t"
			     "dsb ish\n\t"
			     "ic ivau, %0\n\t"
			     "dsb ish\n\t"
			     "isb"
			     : : "r"(addr) : "memory");
}

/* Writes @insn over the site at @addr and makes it visible to instruction fetch. */
static int a64_write(uintptr_t addr, const unsigned char *insn)
{
	int ret = tcsk_poke(addr, insn, TC_JUMP_SITE_SIZE);

	if (!ret)
		a64_sync_icache(addr);
	return ret;
}

/*
 * Writes the @n sites of @p, then one membarrier SYNC_CORE (static_key.h,
 * AArch64 "Procedure"). A thread running a site meanwhile executes its old
 * or its new instruction. On an error the sites are put back the same way
 * (best effort) and the error returned.
 */
int tcsk_arch_patch(struct tc_static_key *key, bool enable, const struct tcsk_site *p, int n)
{
	int i, j, ret = 0;

	(void)key;
	(void)enable;
	for (i = 0; i < n && !ret; i++)
		ret = a64_write(p[i].ip, p[i].new);
	if (ret)
		i--;	/* site i was not written */
	/* Every thread passes a context synchronization event before we return. */
	if (!ret)
		ret = tcsk_sync_core();
	if (ret) {
		for (j = 0; j < i; j++)
			a64_write(p[j].ip, p[j].old);
		tcsk_sync_core();
	}
	return ret;
}

#endif /* TC_STATIC_KEY_ASM_GOTO && __aarch64__ */
