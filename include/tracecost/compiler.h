/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/compiler.h - compiler helpers shared by the library, the subjects
 * and the tests. Kernel names where the kernel has one.
 */
#ifndef TRACECOST_COMPILER_H
#define TRACECOST_COMPILER_H

#define tc_likely(x)		__builtin_expect(!!(x), 1)
#define tc_unlikely(x)		__builtin_expect(!!(x), 0)
#define tc_barrier()		__asm__ __volatile__("" ::: "memory")
#ifdef __clang__
#define tc_noinline		__attribute__((noinline))
#else
/* noipa: no inter-procedural shortcuts either (no clone, no IPA-RA). */
#define tc_noinline		__attribute__((noinline, noclone, noipa))
#endif
#define tc_always_inline	inline __attribute__((always_inline))
#define tc_unused		__attribute__((unused))
#define tc_used			__attribute__((used))
#define TC_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TC_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define TC_WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#define __TC_CONCAT(a, b)	a##b
#define TC_CONCAT(a, b)		__TC_CONCAT(a, b)
#define __TC_STR(x)		#x
#define TC_STR(x)		__TC_STR(x)

/* Return address of the current function's caller (the kernel's _RET_IP_). */
#define TC_RET_IP		((unsigned long)__builtin_return_address(0))
/*
 * Address of the current code location (the kernel's _THIS_IP_). Clang
 * cannot inline a function that takes a label's address (LLVM's blockaddress),
 * always_inline or not: a toggle using TC_THIS_IP would stay a call, with
 * its static-key sites out of the caller. There it is read by the
 * instruction itself (lea / adr).
 */
#if defined(__clang__) && defined(__x86_64__)
#define TC_THIS_IP		({ unsigned long __ip; __asm__("lea 0(%%rip), %0" : "=r"(__ip)); __ip; })
#elif defined(__clang__) && defined(__aarch64__)
#define TC_THIS_IP		({ unsigned long __ip; __asm__("adr %0, ." : "=r"(__ip)); __ip; })
#else
#define TC_THIS_IP		({ __label__ __here; __here: (unsigned long)&&__here; })
#endif

#endif /* TRACECOST_COMPILER_H */
