/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/static_key.h - userspace static keys (jump labels).
 *
 * Modelled on the kernel's include/linux/jump_label.h (API and semantics) and
 * arch/x86/kernel/jump_label.c + alternative.c (patching); independent code.
 *
 * A static key is a reference count. Code tests it with
 *
 *	if (tc_static_branch_unlikely(&key))
 *		rare_path();
 *
 * and, with asm goto, the test is not a load and a compare but one
 * instruction at the "site": a NOP (fall through) or a jump to the branch
 * target; 5 bytes on x86-64 (nopl / jmp), 4 on AArch64 (NOP / B).
 * tc_static_key_enable()/tc_static_key_disable() rewrite the sites of a key
 * while other threads keep executing them.
 *
 * Keys and their defaults
 * -----------------------
 *   struct tc_static_key_false: starts disabled (count 0);
 *   struct tc_static_key_true:  starts enabled  (count 1);
 * as in the kernel, "enabled" is always "count > 0": for a true key the
 * default state is the enabled one, one tc_static_key_disable() takes it to
 * 0 (disabled) and tc_static_key_enable() brings it back. Both branch macros
 * work with both key types; the key type only decides which instruction the
 * compiler emits at the site initially (so that the default is free):
 *
 *				false key (count 0)	true key (count 1)
 *   tc_static_branch_unlikely	NOP, returns false	jmp, returns true
 *   tc_static_branch_likely	jmp, returns false	NOP, returns true
 *
 * and in every case the macro returns tc_static_key_enabled(key). "unlikely"
 * places the guarded code out of line, "likely" in line.
 *
 * The jump table
 * --------------
 * Every site adds one struct tc_jump_entry to the section "tc_jump_table"
 * (a C identifier, so the static linker defines __start_tc_jump_table and
 * __stop_tc_jump_table in every ELF object: the executable and each shared
 * object). Entries are PC-relative like the kernel's
 * (CONFIG_HAVE_ARCH_JUMP_LABEL_RELATIVE): 32-bit offsets from the field to
 * the site and to the target, and a 64-bit offset to the key whose bit 0 is
 * set for a "likely" site. In a shared object (-fPIC without -fPIE) a key
 * with default visibility may be preempted by another object's definition,
 * its address is no link-time constant and GCC before 14 refuses it as an
 * asm operand; there the site gets a private pointer to the key (static,
 * relocated by the dynamic loader, read-only after RELRO) and the entry
 * points to that pointer with bit 1 set. A position-independent executable
 * does so too: with -flto -rdynamic its keys are exported and GCC's
 * link-time compile refuses them in the same way. On AArch64 every object
 * does so, non-PIE executables too: there the static linker cannot resolve a 64-bit
 * PC-relative reference (R_AARCH64_PREL64) to a key that a shared object
 * defines, where x86-64's makes a copy relocation. The section is "aw"
 * like the kernel's __jump_table.
 *
 * One table per object, registered at load time (the kernel's
 * jump_label_add_module()/jump_label_del_module()): this header gives every
 * translation unit that includes it a constructor that hands the bounds of
 * its object's table (hidden references, so each object names its own) to
 * tc_jump_table_register(), and a destructor that calls
 * tc_jump_table_unregister() (at exit, or at dlclose() of a shared object).
 * A site is emitted only by the branch macros of this header, so every
 * object with a site has the constructor: a site the library does not know
 * of cannot exist once its object's constructors ran. A key defined in one
 * object patches its sites in every loaded object; an object loaded while a
 * key is enabled has its sites patched to the key's state by its
 * constructor, before dlopen() returns. If that patch fails (the process
 * cannot write its text any more), the library prints one line to stderr
 * and aborts rather than run a stale site: a constructor cannot fail a
 * dlopen(). Keys must be statically allocated: the branch macros need the
 * key's address (or the pointer's) as a link-time constant.
 *
 * Patching safety (x86-64)
 * ------------------------
 * Sources:
 *  [SDM]	Intel 64 and IA-32 Architectures Software Developer's Manual,
 *		Vol. 3A, section 8.1.3 "Handling Self- and Cross-Modifying Code"
 *		(9.1.3 in recent editions). Cross-modifying code (one processor
 *		writes code another executes) is only architecturally defined if
 *		the executing processor does not run the modified bytes until the
 *		writer is done, and then executes a serializing instruction before
 *		running them. Otherwise what it executes is implementation-specific.
 *  [KERNEL]	Linux arch/x86/kernel/alternative.c: text_poke_bp() and
 *		text_poke_bp_batch() (renamed smp_text_poke_single() and
 *		smp_text_poke_batch_*() in 2025), used by jump_label.c; the int3
 *		scheme dates from "x86: Introduce int3 (breakpoint)-based
 *		instruction patching" (2013). Beyond [SDM] it relies on one
 *		property that x86 CPUs have had ever since the kernel started
 *		using it: a processor fetching an instruction whose first byte was
 *		just overwritten by the one-byte int3 (0xcc) runs either the old
 *		instruction or the int3, never a mix.
 *  [MEMBARRIER] membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE
 *		(Linux 4.16): on return, every running thread of the process has
 *		executed a core serializing instruction, and every thread not
 *		running will execute one before it returns to user space. That is
 *		the user-space equivalent of the kernel's text_poke_sync() (an IPI
 *		running sync_core() on every CPU). The process must first register
 *		with MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE.
 *  [XRAY]	LLVM XRay (compiler-rt/lib/xray/xray_x86_64.cpp) patches its
 *		sleds by mprotect()ing the text writable, writing the tail of the
 *		new instruction, then storing the first 2 bytes with one atomic
 *		16-bit store (the sled is 2-byte aligned). It relies on a 2-byte
 *		store being seen atomically by instruction fetch on other cores
 *		(true in practice, not promised by [SDM]) and it needs W+X or
 *		permission flips on pages other threads are executing. We differ:
 *		no permission change, no atomicity assumption beyond the one-byte
 *		int3 of [KERNEL], and explicit serialization via [MEMBARRIER]; we
 *		pay 3 membarrier system calls per key flip (measured ~8 us per
 *		flip of a one-site key on an idle 2-CPU VM, ~70 us with both CPUs
 *		busy) where XRay pays none.
 *
 * Procedure, for all sites of one key at once (a batch, like [KERNEL]),
 * with one global mutex serialising every enable/disable:
 *  0. check every site holds exactly the expected old instruction (else
 *     -EINVAL, nothing written), publish the batch for the int3 handler;
 *  1. write int3 (0xcc) over byte 0 of every site; membarrier SYNC_CORE.
 *     A thread now either executes the complete old instruction (fetched and
 *     serialized before) or traps;
 *  2. write bytes 1..4 of the new instruction; membarrier SYNC_CORE. Nobody
 *     executes those bytes: byte 0 is int3 and no branch targets site + 1..4;
 *  3. write byte 0 of the new instruction; membarrier SYNC_CORE. When enable
 *     or disable returns, every thread runs the new instruction.
 * Writes go through pwrite() on /proc/self/mem at the code address: the
 * kernel writes with FOLL_FORCE, copying the private text page on first
 * write (the copy is identical to the old page at the moment of the switch),
 * so no mprotect() and no writable+executable mapping are needed.
 *
 * New instructions: to the enabled-jump state, "eb rel8" (2 bytes; the old
 * NOP's tail bytes stay, unreached) when the displacement fits, else
 * "e9 rel32"; to the NOP state, the full 5-byte NOP 0f 1f 44 00 00.
 *
 * The int3 handler: a SIGTRAP handler (SA_SIGINFO) is installed before the
 * first patch and never removed. A thread that executes a site's int3 gets
 * SIGTRAP (si_code SI_KERNEL, RIP = site + 1). Signal delivery is
 * asynchronous to the patcher (the thread may be descheduled before its
 * handler runs, after the batch finished), so the handler does not trust
 * "a batch is in flight": for a SIGTRAP with si_code SI_KERNEL (what the
 * kernel's int3 path sends; a single step, a hardware breakpoint or perf's
 * TRAP_PERF carry other codes and are never taken for a site's int3) whose
 * RIP - 1 is a site in the jump table it reads byte 0 of the site again;
 *  - not 0xcc any more: the instruction is complete; resume at the site;
 *  - still 0xcc: a batch for this site's key is in flight (published before
 *    step 1, withdrawn after step 3); resume where the new instruction goes
 *    (the jmp target or site + 5), as [KERNEL]'s poke_int3_handler does.
 * Any other SIGTRAP (raise(), a debugger's breakpoint delivered as a signal,
 * an int3 elsewhere) is passed to the handler that was installed before ours
 * (or the default action is re-raised; SIG_IGN is honoured).
 *
 * Patching safety (AArch64)
 * -------------------------
 * Sources:
 *  [ARM]	Arm Architecture Reference Manual for A-profile (DDI 0487),
 *		"Concurrent modification and execution of instructions": when
 *		one thread replaces an instruction of the set B, BL, BRK, HVC,
 *		ISB, NOP, SMC, SVC by another of the set with a single-copy
 *		atomic 32-bit write, a thread executing that location
 *		concurrently runs either the old or the new instruction, nothing
 *		else. "Synchronization and coherency issues between data and
 *		instruction accesses": the new instruction is guaranteed to be
 *		fetched once its location was cleaned to the Point of
 *		Unification (DC CVAU; DSB ISH), invalidated in the instruction
 *		caches (IC IVAU; DSB ISH), and the executing thread then passed
 *		a context synchronization event (ISB, exception entry or return).
 *  [KERNEL64]	Linux arch/arm64/kernel/jump_label.c: NOP <-> B with
 *		aarch64_insn_patch_text_nosync() (one 32-bit store, then
 *		caches_clean_inval_pou() on the site) and no stop_machine(), by
 *		[ARM]'s first rule; then kick_all_cpus_sync(), an IPI to every
 *		CPU, whose exception return synchronizes its context.
 *  [PROCMEM64]	Linux (6.1) /proc/PID/mem writes: mem_rw() -> access_remote_vm()
 *		-> copy_to_user_page() (arch/arm64/mm/flush.c): memcpy() into the
 *		kernel's alias of the (copied-on-write) page, then, for an
 *		executable mapping, sync_icache_aliases(): D-cache clean and
 *		I-cache invalidate to the PoU. The kernel's memcpy()
 *		(arch/arm64/lib/memcpy.S) copies 4 bytes as two 32-bit loads and
 *		two 32-bit stores of the whole word (the "4-7 bytes" case), both
 *		to our 4-byte-aligned site: each store is single-copy atomic and
 *		the second writes the value the first did.
 *  [MEMBARRIER] as for x86-64; arm64 selects ARCH_HAS_MEMBARRIER_SYNC_CORE
 *		(Documentation/features/sched/membarrier-sync-core): the IPI's
 *		exception return, and every return to user space, is a context
 *		synchronization event.
 *
 * Procedure, for all sites of one key, under the same mutex:
 *  0. as on x86-64: every site must hold the expected old instruction (NOP
 *     or a B to the entry's target), else -EINVAL and nothing is written;
 *  1. write the new 32-bit instruction of each site through /proc/self/mem
 *     ([PROCMEM64]: one single-copy atomic value, kernel cache maintenance),
 *     then "dc cvau; dsb ish; ic ivau; dsb ish; isb" on the site's user
 *     address: [ARM]'s sequence, done again by us so that the argument does
 *     not rest on the kernel's choice of alias (and so that an emulator
 *     that models code writes by IC IVAU sees this one: QEMU >= 8.1);
 *  2. membarrier SYNC_CORE once: when enable or disable returns, every
 *     thread runs the new instruction ([KERNEL64]'s kick_all_cpus_sync()).
 * There is no breakpoint step and no SIGTRAP handler: by [ARM]'s first rule
 * a thread that runs a site during step 1 executes the old NOP/B or the
 * new one; during the batch, as on x86-64, either value may be seen. New
 * instructions: "b target" (imm26, +-128 MiB: a site and its label are in
 * one function) or NOP d503201f.
 *
 * Rules for callers (asm-goto build):
 *  - x86-64: do not block SIGTRAP in threads that run sites (a blocked
 *    synchronous trap kills the process); our handler runs with SA_NODEFER
 *    so a site run inside a SIGTRAP handler is fine;
 *  - fork() is safe: a pthread_atfork() handler takes the patch mutex, so
 *    fork() waits for a flip in progress to end (the child's text holds
 *    complete instructions); after fork() the child sets itself up again
 *    (its own /proc/self/mem and membarrier registration);
 *  - x86-64: a SIGTRAP handler installed after the first
 *    tc_static_key_enable() or disable must chain to the previous one
 *    (sigaction()'s oldact), or a thread that traps on a site being patched
 *    dies; under ptrace (gdb), a site hit during a flip stops the tracee
 *    with SIGTRAP; continue and pass the signal ("signal SIGTRAP").
 *
 * If MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE or writes to /proc/self/mem
 * are unavailable (old kernel, seccomp, proc_mem.force_override=never),
 * tc_static_key_enable()/tc_static_key_disable() return a negative errno and
 * change nothing. There is no silent fallback at run time:
 * tc_static_key_patch_check() tells at start-up, naming the feature.
 *
 * Fallback build: without x86-64 or AArch64, without asm goto, or with
 * -DTC_STATIC_KEY_FORCE_FLAG, the branch macros are a load of the count and
 * a predicted compare-and-branch; the API and semantics are unchanged and
 * tc_static_key_impl() says which implementation is compiled in.
 */
#ifndef TRACECOST_STATIC_KEY_H
#define TRACECOST_STATIC_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tracecost/compiler.h>

#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(TC_STATIC_KEY_FORCE_FLAG) && \
	((defined(__clang__) && __clang_major__ >= 9) || \
	 (!defined(__clang__) && defined(__GNUC__) && \
	  (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))))
#define TC_STATIC_KEY_ASM_GOTO	1
#else
#define TC_STATIC_KEY_ASM_GOTO	0
#endif

/*
 * Size of a patch site in bytes, and the NOP it holds while "not taken"
 * (TC_JUMP_NOP, as bytes in memory order; TC_JUMP_NOP5 is the x86-64 one).
 */
#define TC_JUMP_NOP5		0x0f, 0x1f, 0x44, 0x00, 0x00	/* nopl 0x0(%rax,%rax,1) */
#if defined(__aarch64__)
#define TC_JUMP_SITE_SIZE	4
#define TC_JUMP_NOP		0x1f, 0x20, 0x03, 0xd5		/* nop: d503201f */
#else
#define TC_JUMP_SITE_SIZE	5
#define TC_JUMP_NOP		TC_JUMP_NOP5
#endif

/**
 * struct tc_static_key - a static key (use the typed wrappers below)
 * @enabled: reference count; > 0 means enabled. Written only under the
 *	     library's mutex, read with TC_READ_ONCE()/__atomic loads.
 *
 * The layout is the same in both builds, so objects compiled with and
 * without TC_STATIC_KEY_FORCE_FLAG can share keys.
 */
struct tc_static_key {
	int enabled;
};

/* A key that starts disabled (count 0). */
struct tc_static_key_false {
	struct tc_static_key key;
};

/* A key that starts enabled (count 1). */
struct tc_static_key_true {
	struct tc_static_key key;
};

/* Initialisers: plain key, and typed keys (usable inside another struct's initialiser). */
#ifdef __cplusplus
#define TC_STATIC_KEY_INIT_FALSE	{ 0 }
#define TC_STATIC_KEY_INIT_TRUE		{ 1 }
#define TC_STATIC_KEY_FALSE_INIT	{ TC_STATIC_KEY_INIT_FALSE }
#define TC_STATIC_KEY_TRUE_INIT		{ TC_STATIC_KEY_INIT_TRUE }
#else
#define TC_STATIC_KEY_INIT_FALSE	{ .enabled = 0 }
#define TC_STATIC_KEY_INIT_TRUE		{ .enabled = 1 }
#define TC_STATIC_KEY_FALSE_INIT	{ .key = TC_STATIC_KEY_INIT_FALSE }
#define TC_STATIC_KEY_TRUE_INIT		{ .key = TC_STATIC_KEY_INIT_TRUE }
#endif

/* Definitions; prefix with "static" for a file-local key. */
#define TC_DEFINE_STATIC_KEY_FALSE(name) \
	struct tc_static_key_false name = TC_STATIC_KEY_FALSE_INIT
#define TC_DEFINE_STATIC_KEY_TRUE(name) \
	struct tc_static_key_true name = TC_STATIC_KEY_TRUE_INIT
#define TC_DECLARE_STATIC_KEY_FALSE(name) \
	extern struct tc_static_key_false name
#define TC_DECLARE_STATIC_KEY_TRUE(name) \
	extern struct tc_static_key_true name

/**
 * struct tc_jump_entry - one patch site, in section tc_jump_table
 * @code:   site address minus &@code (signed 32-bit, PC-relative)
 * @target: branch target (the "taken" label) minus &@target
 * @key:    key address minus &@key, plus 1 for a "likely" site; or, with
 *	    bit 1 set (TC_JUMP_ENTRY_INDIRECT), the address of a pointer to
 *	    the key minus &@key (shared objects and PIE, see "The jump table")
 *
 * 16 bytes, 8-aligned; the linker concatenates the entries of every object
 * file into one array [__start_tc_jump_table, __stop_tc_jump_table) per ELF
 * object (executable or shared object).
 */
struct tc_jump_entry {
	int32_t code;
	int32_t target;
	int64_t key;
};

#define TC_JUMP_ENTRY_LIKELY	1
#define TC_JUMP_ENTRY_INDIRECT	2

/*
 * Bounds of the table of the ELF object that includes this header: hidden,
 * so that a reference from a shared object is its own table; weak, so that a
 * program without sites links (the empty section below makes them equal).
 */
extern const struct tc_jump_entry __start_tc_jump_table[]
	__attribute__((weak, visibility("hidden")));
extern const struct tc_jump_entry __stop_tc_jump_table[]
	__attribute__((weak, visibility("hidden")));

/* Site address of entry @e. */
static inline uintptr_t tc_jump_entry_code(const struct tc_jump_entry *e)
{
	return (uintptr_t)&e->code + (intptr_t)e->code;
}

/* Branch target ("taken" label) of entry @e. */
static inline uintptr_t tc_jump_entry_target(const struct tc_jump_entry *e)
{
	return (uintptr_t)&e->target + (intptr_t)e->target;
}

/* Key of entry @e. */
static inline struct tc_static_key *tc_jump_entry_key(const struct tc_jump_entry *e)
{
	uintptr_t v = (uintptr_t)&e->key + (uintptr_t)e->key;

	if (v & TC_JUMP_ENTRY_INDIRECT)
		return *(struct tc_static_key *const *)(v & ~(uintptr_t)3);
	return (struct tc_static_key *)(v & ~(uintptr_t)3);
}

/* True if entry @e is a "likely" site (the kernel's branch bit). */
static inline bool tc_jump_entry_is_likely(const struct tc_jump_entry *e)
{
	return ((uintptr_t)&e->key + (uintptr_t)e->key) & TC_JUMP_ENTRY_LIKELY;
}

#ifdef __cplusplus
extern "C" {
#endif

/**
 * tc_jump_table_register() - make an object's sites known to the library
 * @start: first entry of the object's tc_jump_table section
 * @stop:  one past its last entry
 *
 * Called by the constructor this header gives every translation unit (so
 * once per unit: the library counts registrations of the same table). Sites
 * of keys that are enabled now are patched to the key's state before it
 * returns; if that is impossible the process is aborted with a message (a
 * stale site would be a silent failure). An empty table (@start == @stop)
 * is ignored. Not for direct use.
 */
void tc_jump_table_register(const struct tc_jump_entry *start,
			    const struct tc_jump_entry *stop);

/**
 * tc_jump_table_unregister() - forget an object's sites (its destructor)
 * @start: as given to tc_jump_table_register()
 *
 * The last unregistration of a table removes it, after any key flip in
 * progress finished and no SIGTRAP handler still reads it. Not for direct use.
 */
void tc_jump_table_unregister(const struct tc_jump_entry *start);

#ifdef __cplusplus
}
#endif

/*
 * The registration of this object's table: one constructor and one
 * destructor per translation unit, plus an empty tc_jump_table section so
 * the linker always defines the bounds.
 */
__asm__(".pushsection tc_jump_table, \"aw\"\n\t.popsection");

static void __attribute__((constructor, used)) __tc_jump_table_ctor(void)
{
	tc_jump_table_register(__start_tc_jump_table, __stop_tc_jump_table);
}

static void __attribute__((destructor, used)) __tc_jump_table_dtor(void)
{
	tc_jump_table_unregister(__start_tc_jump_table);
}

/*
 * Key type dispatch: __tc_key_is_true(x) is 1 for a struct
 * tc_static_key_true *, 0 for a struct tc_static_key_false *, a compile
 * error for anything else (C: a call to an error function; C++: an
 * incomplete template).
 */
#ifdef __cplusplus
template <typename T> struct __tc_key_kind;
template <> struct __tc_key_kind<struct tc_static_key_true> { enum { is_true = 1 }; };
template <> struct __tc_key_kind<const struct tc_static_key_true> { enum { is_true = 1 }; };
template <> struct __tc_key_kind<struct tc_static_key_false> { enum { is_true = 0 }; };
template <> struct __tc_key_kind<const struct tc_static_key_false> { enum { is_true = 0 }; };
#define __tc_key_is_true(x)	((int)__tc_key_kind<__typeof__(*(x))>::is_true)
#define __tc_key_checked(x, e)	(e)
#else
/* Referenced only when a branch macro is given something that is not a typed key. */
extern bool __tc_static_branch_wrong_type(void)
	__attribute__((error("tc_static_branch_*() needs a struct tc_static_key_true/false *")));

#define __tc_key_is_true(x) \
	__builtin_types_compatible_p(__typeof__(*(x)), struct tc_static_key_true)
#define __tc_key_is_false(x) \
	__builtin_types_compatible_p(__typeof__(*(x)), struct tc_static_key_false)
#define __tc_key_checked(x, e) \
	__builtin_choose_expr(__tc_key_is_true(x) || __tc_key_is_false(x), (e), \
			      __tc_static_branch_wrong_type())
#endif

#if TC_STATIC_KEY_ASM_GOTO

/*
 * The site: one asm goto whose instruction is chosen by the assembler from
 * @jump (0 or 1, a constant): the NOP (falls through: the expression is
 * false) or a jump to the "taken" label (the expression is true; on x86-64
 * the forced 5-byte form), plus its jump-table entry. @likely is 0 or 1 (the entry's branch
 * bit). Statement expressions rather than inline functions, so the "i"
 * operands are constants even at -O0.
 */
#if defined(__PIC__) || defined(__aarch64__)
/*
 * Shared object, position-independent executable, and every AArch64
 * object: the entry points to a private, relocated pointer to the key (see
 * "The jump table"). A PIE too: under -flto with -rdynamic (Debian's
 * default-PIE GCC 12), the key of the program is exported and no longer
 * binds locally in the link-time compile, where "i"(&key) is then refused
 * ("impossible constraint in 'asm'"); the address of the private pointer
 * always binds locally. Only the table entry changes (one pointer per site
 * in .data.rel.ro): the site's instruction is the same.
 */
#define __TC_SITE_KEY_DECL(k)	static struct tc_static_key *const __tc_kp = (k);
#define __TC_SITE_KEY_OP(k)	(&__tc_kp)
#define __TC_SITE_KEY_FLAGS	"2"
#else
#define __TC_SITE_KEY_DECL(k)
#define __TC_SITE_KEY_OP(k)	(k)
#define __TC_SITE_KEY_FLAGS	"0"
#endif

#if defined(__aarch64__)
/*
 * The key's address as an operand: "S" (a symbolic address) on AArch64,
 * where GCC refuses "i" for a symbol in position-independent code, as the
 * kernel's arm64 jump_label.h does since 6.8; "i" on x86-64.
 */
#define __TC_SITE_KEY_C(op)	"S"(op)
/* One 4-byte instruction: "b label" or "nop" (the kernel's arm64 jump_label.h). */
#define __TC_SITE_INSN								\
		     ".if %c1\n\t"						\
		     "b %l[l_yes]\n\t"					\
		     ".else\n\t"						\
		     "nop\n\t"						\
		     ".endif\n\t"
#else
#define __TC_SITE_KEY_C(op)	"i"(op)
/* A forced 5-byte "jmp rel32" or the 5-byte NOP. */
#define __TC_SITE_INSN								\
		     ".if %c1\n\t"						\
		     ".byte 0xe9\n\t"						\
		     ".long %l[l_yes] - (1b + 5)\n\t"				\
		     ".else\n\t"						\
		     ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"			\
		     ".endif\n\t"
#endif

/*
 * Block placement (issue 17). The jump target is the rare side for both
 * macros (unlikely: the guarded code; likely: the skip of it), and the
 * fall-through after the NOP must be the code that follows the site, with
 * no jump over an in-line target block. GCC's C front end predicts every
 * goto statement of the source not taken (PRED_GOTO, "goto heuristics"):
 * an earlier form of this macro ended its NOP path with "goto l_done", so
 * GCC 12 predicted the fall-through 34 % and the jump 66 % (seen with
 * -fdump-tree-profile_estimate-details), __builtin_expect() on the value
 * did not outweigh that, and the timed loops of the static subject had a
 * taken jmp after most NOPs. So: no goto, the target block under if (0),
 * and a cold label on it (PRED_COLD_LABEL: the jump 10 %). Clang ignores
 * label attributes (with a warning) and needs neither.
 *
 * Checked from the disassembly by make check-sites (tests/disasm/): GCC
 * -O2/-O3 and clang -O1..-O3, also -fPIC, and AArch64 (GCC -O2/-O3). Not
 * at GCC -O1/-Os: their "simple" block reordering (-freorder-blocks-
 * algorithm=simple) leaves the edges of an asm goto as they are (GCC's
 * bb-reorder.cc, "We cannot optimize asm goto"), so a jump may follow a
 * site there (-O1 -freorder-blocks-algorithm=stc: no added jump, one
 * spilled register in the irq_save loops; -Os with it: jumps remain).
 */
#if defined(__GNUC__) && !defined(__clang__)
#define __TC_COLD_LABEL		__attribute__((cold));
#else
#define __TC_COLD_LABEL
#endif

#define __tc_arch_branch(k, jump, likely) ({					\
	__label__ l_yes;							\
	bool __tc_ret = false;							\
	__TC_SITE_KEY_DECL(k)							\
	__asm__ goto("1:\n\t"							\
		     __TC_SITE_INSN						\
		     ".pushsection tc_jump_table, \"aw\"\n\t"			\
		     ".balign 8\n\t"						\
		     ".long 1b - ., %l[l_yes] - .\n\t"				\
		     ".quad %c0 + %c2 + " __TC_SITE_KEY_FLAGS " - .\n\t"	\
		     ".popsection\n\t"						\
		     : : __TC_SITE_KEY_C(__TC_SITE_KEY_OP(k)), "i"(jump), "i"(likely)	\
		     : : l_yes);						\
	if (0) {								\
l_yes: __TC_COLD_LABEL							\
		__tc_ret = true;						\
	}									\
	__tc_ret;								\
})

/**
 * tc_static_branch_unlikely() - test a static key, guarded code out of line
 * @x: &key, a struct tc_static_key_false or tc_static_key_true with static
 *     storage duration (the address must be a link-time constant)
 *
 * A macro (like the kernel's), usable as "static inline bool f(&key)".
 * Return: true iff the key is enabled (count > 0), modulo the transition of
 * a concurrent enable/disable, during which either value may be seen.
 */
#define tc_static_branch_unlikely(x)						\
	((bool)__builtin_expect(__tc_key_checked(x,				\
		__tc_arch_branch(&(x)->key, __tc_key_is_true(x), 0)), 0))

/**
 * tc_static_branch_likely() - test a static key, guarded code in line
 * @x: &key, as for tc_static_branch_unlikely()
 *
 * Return: true iff the key is enabled (count > 0).
 */
#define tc_static_branch_likely(x)						\
	((bool)__builtin_expect(__tc_key_checked(x,				\
		!__tc_arch_branch(&(x)->key, !__tc_key_is_true(x), 1)), 1))

#else /* !TC_STATIC_KEY_ASM_GOTO: flag test */

#define __tc_static_key_flag(x)							\
	__tc_key_checked(x, TC_READ_ONCE((x)->key.enabled) > 0)

#define tc_static_branch_unlikely(x)	((bool)__builtin_expect(__tc_static_key_flag(x), 0))
#define tc_static_branch_likely(x)	((bool)__builtin_expect(__tc_static_key_flag(x), 1))

#endif /* TC_STATIC_KEY_ASM_GOTO */

/*
 * Accept a typed key or a plain struct tc_static_key * in the functions
 * below (a checked cast: anything else but a void * is a compile error).
 */
#ifdef __cplusplus
static inline struct tc_static_key *__tc_to_key(void *k)
{
	return (struct tc_static_key *)k;
}
static inline struct tc_static_key *__tc_to_key(struct tc_static_key *k) { return k; }
static inline const struct tc_static_key *__tc_to_key(const struct tc_static_key *k) { return k; }
static inline struct tc_static_key *__tc_to_key(struct tc_static_key_true *k) { return &k->key; }
static inline const struct tc_static_key *__tc_to_key(const struct tc_static_key_true *k)
{
	return &k->key;
}
static inline struct tc_static_key *__tc_to_key(struct tc_static_key_false *k) { return &k->key; }
static inline const struct tc_static_key *__tc_to_key(const struct tc_static_key_false *k)
{
	return &k->key;
}
extern "C" {
#else
#define __tc_to_key(x) _Generic((x),						\
	void *: (struct tc_static_key *)(x),					\
	struct tc_static_key *: (x),						\
	const struct tc_static_key *: (x),					\
	struct tc_static_key_true *: (struct tc_static_key *)(x),		\
	const struct tc_static_key_true *: (const struct tc_static_key *)(x),	\
	struct tc_static_key_false *: (struct tc_static_key *)(x),		\
	const struct tc_static_key_false *: (const struct tc_static_key *)(x))
#endif

/**
 * tc_static_key_patch_check() - can this process patch its sites?
 * @why: on failure, one line naming the missing feature
 * @len: size of @why
 *
 * Does at start-up what the first tc_static_key_enable() would do
 * (membarrier SYNC_CORE query and registration, /proc/self/mem opened,
 * SIGTRAP handler installed) and rewrites one byte of a site with its own
 * value, so that a kernel that opens /proc/self/mem but refuses the write
 * (proc_mem.force_override=never) is found too. Nothing changes in the text.
 * Return: 0 (also in the flag build, which patches nothing); -ENOSYS
 * (membarrier SYNC_CORE missing); -EPERM (/proc/self/mem write refused);
 * another negative errno.
 */
int tc_static_key_patch_check(char *why, size_t len);

/**
 * tc_static_key_enable() - take a reference on a key (static_key_slow_inc)
 * @key: the key
 *
 * The 0 -> 1 transition patches every site of @key to its enabled state
 * (see the procedure above) before returning; later calls only count.
 * Serialised by the library's global mutex; may sleep (system calls).
 * Must not be called from a signal handler.
 *
 * Return: 0; -EINVAL for a NULL key or a site that does not hold the
 * expected instruction; -EOVERFLOW at INT_MAX references; -ENOSYS if
 * membarrier SYNC_CORE is unsupported, or if this library was built as the
 * flag fallback while the program contains asm-goto sites of @key;
 * -EPERM if /proc/self/mem cannot write our text; another negative errno
 * from open(), membarrier() or sigaction(). On error nothing changed.
 */
int tc_static_key_enable(struct tc_static_key *key);

/**
 * tc_static_key_disable() - drop a reference on a key (static_key_slow_dec)
 * @key: the key
 *
 * The 1 -> 0 transition patches every site back to its disabled state.
 *
 * Return: 0; -EINVAL for a NULL key or if the count is already 0 (nothing
 * changes); the errors of tc_static_key_enable(). On error nothing changed.
 */
int tc_static_key_disable(struct tc_static_key *key);

/**
 * tc_static_key_enabled() - is the key enabled (count > 0)?
 * @key: the key
 *
 * For a false key: at least one tc_static_key_enable() is outstanding.
 * For a true key (count 1 at start): the default state, until it is
 * disabled. Lock-free (one load); a concurrent enable/disable may or may
 * not be visible yet.
 */
bool tc_static_key_enabled(const struct tc_static_key *key);

/**
 * tc_static_key_sites() - patch-site addresses of a key
 * @key:   the key
 * @addrs: array of @max pointers to fill (may be NULL when @max is 0)
 * @max:   capacity of @addrs
 *
 * Every site is TC_JUMP_SITE_SIZE bytes long (5 on x86-64, 4 on AArch64). Source: the registered jump
 * tables of every loaded object (see "The jump table"). Takes the
 * library's mutex: not from a signal handler.
 *
 * Return: the number of sites of @key (which may exceed @max; only the first
 * @max are stored), or -EINVAL for a NULL key, a negative @max or NULL
 * @addrs with @max > 0.
 */
int tc_static_key_sites(const struct tc_static_key *key, void **addrs, int max);

/**
 * tc_static_key_impl() - the implementation compiled into the library
 *
 * Return: a static string, e.g. "x86-64 asm goto, 5-byte NOP <-> jmp,
 * text_poke_bp order via /proc/self/mem + membarrier", "aarch64 asm goto,
 * NOP <-> B, ..." or "flag test (no asm goto): TC_STATIC_KEY_FORCE_FLAG".
 */
const char *tc_static_key_impl(void);

/**
 * tc_static_key_int3_hits() - SIGTRAPs taken on sites being patched
 *
 * Return: number of times the int3 handler redirected a thread (a count of
 * events since program start; always 0 on AArch64, which has no breakpoint
 * step, and in the flag build). For tests.
 */
unsigned long tc_static_key_int3_hits(void);

/**
 * tc_static_key_set_poke_delay() - widen the int3 window, for tests
 * @usec: microseconds to sleep after each patch step (0, the default: none)
 *
 * Makes threads that run a site during a flip hit the int3 reliably (x86-64);
 * on AArch64 it widens the window between the writes and the membarrier.
 */
void tc_static_key_set_poke_delay(unsigned int usec);

#ifdef __cplusplus
}
#endif

#define tc_static_key_enable(k)		(tc_static_key_enable)(__tc_to_key(k))
#define tc_static_key_disable(k)	(tc_static_key_disable)(__tc_to_key(k))
#define tc_static_key_enabled(k)	(tc_static_key_enabled)(__tc_to_key(k))
#define tc_static_key_sites(k, a, m)	(tc_static_key_sites)(__tc_to_key(k), a, m)

/*
 * Typed-key spellings. Note: the kernel's static_branch_enable/disable set a
 * boolean; here they are the reference-counted tc_static_key_enable/disable
 * (the kernel's static_branch_inc/dec).
 */
#define tc_static_branch_enable(x)	(tc_static_key_enable)(&(x)->key)
#define tc_static_branch_disable(x)	(tc_static_key_disable)(&(x)->key)

#endif /* TRACECOST_STATIC_KEY_H */
