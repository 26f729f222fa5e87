/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/clock.h - the serialized counter every sample is taken with.
 *
 * x86-64: "lfence; rdtsc; lfence". The leading LFENCE keeps RDTSC from
 * executing before earlier instructions complete, the trailing one keeps
 * later instructions from starting before RDTSC has read the counter
 * (Intel SDM Vol. 2B, RDTSC: "If software requires RDTSC to be executed only
 * after all previous instructions have executed ... it can execute LFENCE
 * immediately before RDTSC"; AMD APM Vol. 3 documents LFENCE as dispatch
 * serializing when MSR C001_1029[1] is set, which Linux sets for Spectre v1).
 * The TSC counts at a constant rate (CPUID 8000_0007h EDX[8], "constant_tsc"
 * / "nonstop_tsc" in /proc/cpuinfo): ticks are not core cycles.
 * The kernel's rdtsc_ordered() (arch/x86/include/asm/msr.h) is the same idea.
 *
 * aarch64: "isb; mrs cntvct_el0" (Arm ARM D11.2: the ISB keeps the read from
 * being speculated ahead of earlier instructions), the kernel's get_cycles()
 * with __arch_counter_get_cntvct() ordering. Built with -DTC_CLOCK_PMCCNTR
 * (the guest's tracecost of tracecost vm --arch arm64 --deterministic):
 * "isb; mrs pmccntr_el0", the PMU cycle counter, which QEMU TCG advances one
 * per instruction under -icount shift=0; EL0 may read it only once
 * PMUSERENR_EL0.EN is set (tracecost.ko counter=pmccntr does, at load).
 *
 * riscv64 built with -DTC_CLOCK_INSTRET (the guest's tracecost of tracecost
 * vm --arch riscv64 --deterministic): "rdinstret", the instructions-retired
 * counter, which QEMU 7.2 reads as its instruction count under -icount
 * (target/riscv/csr.c, get_ticks()): one tick per instruction at shift=0.
 * RISC-V has no instruction that orders a counter read against earlier
 * instructions (FENCE orders memory accesses only); QEMU TCG executes in
 * order, which is where this counter is meant to be read. User mode may
 * read it only once scounteren.IR is set (tracecost.ko counter=instret
 * does, at load).
 *
 * Elsewhere (riscv64 without TC_CLOCK_INSTRET too):
 * clock_gettime(CLOCK_MONOTONIC_RAW) in ns (1 tick = 1 ns).
 */
#ifndef TRACECOST_CLOCK_H
#define TRACECOST_CLOCK_H

#include <stdint.h>
#include <time.h>
#include <tracecost/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * tc_clock_read() - read the serialized counter (fast path, inline)
 *
 * Return: counter value in ticks; see tc_clock_info() for the unit.
 */
static tc_always_inline uint64_t tc_clock_read(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__) && defined(TC_CLOCK_PMCCNTR)
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, pmccntr_el0" : "=r"(v) :: "memory");
	return v;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
#elif defined(__riscv) && __riscv_xlen == 64 && defined(TC_CLOCK_INSTRET)
	uint64_t v;

	__asm__ __volatile__("rdinstret %0" : "=r"(v) :: "memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/**
 * tc_clock_read_start() - tc_clock_read() for the start of a timed region
 *
 * The same serialized read, with the two halves of RDTSC joined before the
 * trailing LFENCE and the value moved into a register of the compiler's
 * choice there: with tc_clock_read() the compiler may join them after the
 * fence (shl/or/mov), inside the region being timed, and how it does so
 * depends on the register pressure of the code under test (seen in GCC 12's
 * static-key loops, issue 17), so two subjects would not carry the same
 * overhead. Elsewhere the read already yields one register.
 *
 * Return: counter value in ticks, as tc_clock_read().
 */
static tc_always_inline uint64_t tc_clock_read_start(void)
{
#if defined(__x86_64__)
	uint64_t v;

	__asm__ __volatile__("lfence\n\trdtsc\n\tshl $32, %%rdx\n\t"
			     "or %%rdx, %%rax\n\tmov %%rax, %0\n\tlfence"
			     : "=r"(v) :: "rax", "rdx", "memory");
	return v;
#else
	return tc_clock_read();
#endif
}

/**
 * tc_clock_read_fast() - read the same counter without serialization
 *
 * For event timestamps (the recording probe), where ordering against the
 * surrounding instructions does not matter but cost does. Same unit as
 * tc_clock_read().
 */
static tc_always_inline uint64_t tc_clock_read_fast(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__) && defined(TC_CLOCK_PMCCNTR)
	uint64_t v;

	__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
	return v;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#elif defined(__riscv) && __riscv_xlen == 64 && defined(TC_CLOCK_INSTRET)
	uint64_t v;

	__asm__ __volatile__("rdinstret %0" : "=r"(v));
	return v;
#else
	return tc_clock_read();
#endif
}

/**
 * struct tc_clock_info - what the counter is
 * @name:	  e.g. "tsc (lfence; rdtsc; lfence)"
 * @freq_hz:	  measured ticks per second
 * @resolution:	  smallest non-zero difference of two back-to-back reads, ticks
 * @read_cost:	  median of back-to-back read differences, ticks
 * @constant_rate: true when the counter runs at a constant rate (not core cycles)
 * @source:	  how @freq_hz was obtained ("measured against CLOCK_MONOTONIC_RAW
 *		  over N ms", "cntfrq_el0", "1 GHz (ns clock)")
 */
struct tc_clock_info {
	const char *name;
	double freq_hz;
	uint64_t resolution;
	uint64_t read_cost;
	int constant_rate;
	char source[96];
};

/**
 * tc_clock_calibrate() - describe the counter and measure its frequency
 * @info:	output
 * @ms:		measurement window in ms (>= 10; 100 gives ~10 ppm here)
 *
 * Measures the counter against CLOCK_MONOTONIC_RAW over @ms (the kernel's
 * NTP-free clock), three times, keeping the median. On AArch64 @freq_hz is
 * CNTFRQ_EL0 instead (the Arm ARM's frequency register of the system
 * counter, set by firmware; the measurement is kept in @source as a check),
 * unless it reads 0. Not thread-safe with itself; call once, from one
 * thread.
 *
 * Return: 0, or -EINVAL for @ms < 10, -EIO if the counter did not advance.
 */
int tc_clock_calibrate(struct tc_clock_info *info, unsigned int ms);

/**
 * tc_clock_ticks_to_ns() - convert ticks to ns with a calibrated frequency
 */
static inline double tc_clock_ticks_to_ns(const struct tc_clock_info *info, double ticks)
{
	return ticks * 1e9 / info->freq_hz;
}

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_CLOCK_H */
