/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/kmod.h - what the kernel module and the CLI agree on: debugfs
 * file names, pair ids and names, limits, and the results file version.
 * The results file format is documented in doc/kmod-results.md.
 */
#ifndef TRACECOST_KMOD_H
#define TRACECOST_KMOD_H

#ifdef __cplusplus
extern "C" {
#endif

#define TC_KMOD_DIR		"tracecost"	/* under debugfs */
#define TC_KMOD_RESULTS_VERSION	1
#define TC_KMOD_MAX_SAMPLES	100000000ull
#define TC_KMOD_MAX_HIGHEST	100000u
#define TC_KMOD_BLOCK		10000u		/* samples per pair per block */
#define TC_KMOD_CALIB		10000u		/* empty samples behind each O (lower median) */

enum tc_kmod_pair {
	TC_KPAIR_IRQ,
	TC_KPAIR_PREEMPT,
	TC_KPAIR_IRQ_SAVE,
	TC_KPAIR_BH,
	TC_KPAIR_RCU,
	TC_KPAIR_SPIN,
	TC_KPAIR_REF16,
	TC_NR_KPAIRS,
};

/* Pair ids in the results file, and the tables' section titles. */
#define TC_KMOD_PAIRS(X)						\
	X(TC_KPAIR_IRQ, "irq", "IRQ Metrics")				\
	X(TC_KPAIR_PREEMPT, "preempt", "Preempt Metrics")		\
	X(TC_KPAIR_IRQ_SAVE, "irq_save", "IRQ save/restore Metrics")	\
	X(TC_KPAIR_BH, "bh", "BH Metrics")				\
	X(TC_KPAIR_RCU, "rcu", "RCU read-side Metrics")			\
	X(TC_KPAIR_SPIN, "spin", "Spinlock Metrics")			\
	X(TC_KPAIR_REF16, "ref16", "Reference (16 NOPs) Metrics")

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_KMOD_H */
