/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/subject.h - what the sampler times: a subject exposes, per pair,
 * sample loops built from one harness (TC_SAMPLE_LOOP) so that the empty
 * calibration loop and every timed loop have the same shape.
 */
#ifndef TRACECOST_SUBJECT_H
#define TRACECOST_SUBJECT_H

#include <stdint.h>
#include <tracecost/clock.h>
#include <tracecost/toggle.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tc_tracepoint;

/* Pairs of the user suite, in table order. */
enum tc_user_pair {
	TC_PAIR_IRQ,
	TC_PAIR_PREEMPT,
	TC_PAIR_IRQ_SAVE,
	TC_NR_USER_PAIRS,
};

/* Loop variants: [do_work][batched]. */
enum { TC_LOOP_PLAIN, TC_LOOP_WORK, TC_NR_LOOP_KINDS };

/**
 * typedef tc_loop_fn - take @n samples
 * @out:   n raw samples, counter ticks per sample (t1 - t0, overhead not removed)
 * @n:	   samples to take
 * @batch: pairs timed per sample (>= 1); 1 selects the single-pair loop
 */
typedef void (*tc_loop_fn)(uint64_t *out, unsigned int n, unsigned int batch);

/* Tracepoints of the toggle subject, in this order in struct tc_subject. */
enum { TC_TP_IRQ_DISABLE, TC_TP_IRQ_ENABLE, TC_TP_PREEMPT_DISABLE,
       TC_TP_PREEMPT_ENABLE, TC_NR_SUBJECT_TPS };

/**
 * struct tc_subject - one configuration (column) of the toggle subject
 * @name:	column name: "stock", "call", "call+", "static", "static+",
 *		"static+q"
 * @id:		symbol-safe name: stock, call, callp, static, staticp, staticq
 * @hooks:	"none", "call" (out-of-line, unconditional check) or "static"
 * @probes:	1 when the recording probe is attached during runs ("+")
 * @loop:	sample loops per pair and kind
 * @tp:		the object's own tracepoints (NULL for stock)
 * @site:	one function per toggle, for code-size reporting
 */
struct tc_subject {
	const char *name;
	const char *id;
	const char *hooks;
	int probes;
	tc_loop_fn loop[TC_NR_USER_PAIRS][TC_NR_LOOP_KINDS];
	struct tc_tracepoint *tp[TC_NR_SUBJECT_TPS];
};

extern const struct tc_subject tc_subject_stock, tc_subject_call, tc_subject_callp,
	tc_subject_static, tc_subject_staticp;
/* static+ with QSBR tracepoints (issue 17; the user suite's --peers qsbr). */
extern const struct tc_subject tc_subject_staticq;

/* Per-thread state of the simulated critical section (--do-work). */
extern TC_TLS unsigned int tc_work_state;

/**
 * tc_do_work() - the simulated critical section put inside each pair
 *
 * A per-thread read-modify-write with a data-dependent branch (an LCG step,
 * Numerical Recipes constants, and a conditional xor), a few ns of work that
 * the compiler cannot remove. The empty calibration sample contains the same
 * work, so it is not counted in the pair's cost.
 */
static tc_always_inline void tc_do_work(void)
{
	unsigned int v = TC_READ_ONCE(tc_work_state);

	v = v * 1664525u + 1013904223u;
	if (v & 0x00400000u)
		v ^= 0x5bd1e995u;
	TC_WRITE_ONCE(tc_work_state, v);
}

/*
 * __TC_SAMPLE_SEP() - what separates two batched BODYs: a compiler barrier;
 * built with -DTC_SAMPLE_LFENCE (bench/floor.sh, in its own tree) an
 * lfence on x86-64 (isb on AArch64), which lets no later instruction start
 * before every earlier one has completed, so a sample is the sum of the
 * pairs' latencies: out-of-order overlap of consecutive pairs cannot hide
 * the cost of an event behind the next one's (Intel SDM vol. 2, LFENCE).
 * The empty calibration loop carries the same fence, so its own cost is
 * in the timer overhead O, not in the pair.
 */
#ifdef TC_SAMPLE_LFENCE
#if defined(__x86_64__)
#define __TC_SAMPLE_SEP()	__asm__ __volatile__("lfence" ::: "memory")
#elif defined(__aarch64__)
#define __TC_SAMPLE_SEP()	__asm__ __volatile__("isb" ::: "memory")
#else
#error "TC_SAMPLE_LFENCE: x86-64 and AArch64 only"
#endif
#else
#define __TC_SAMPLE_SEP()	tc_barrier()
#endif

/*
 * TC_SAMPLE_LOOP() - body of a sample loop: @n samples of BODY, each timed by
 * two serialized counter reads. With @batch > 1 each sample times @batch
 * consecutive BODYs (unrolled by 8), for sub-tick resolution of means.
 * Raw differences go to @out; nothing else happens between the two reads.
 */
#define TC_SAMPLE_LOOP(out, n, batch, BODY)					\
	do {									\
		unsigned int __i, __j;						\
		if ((batch) <= 1) {						\
			for (__i = 0; __i < (n); __i++) {			\
				uint64_t __t0 = tc_clock_read_start();		\
				BODY;						\
				(out)[__i] = tc_clock_read() - __t0;		\
			}							\
		} else {							\
			for (__i = 0; __i < (n); __i++) {			\
				uint64_t __t0 = tc_clock_read_start();		\
				_Pragma("GCC unroll 8")				\
				for (__j = 0; __j < (batch); __j++) {		\
					BODY;					\
					__TC_SAMPLE_SEP();			\
				}						\
				(out)[__i] = tc_clock_read() - __t0;		\
			}							\
		}								\
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_SUBJECT_H */
