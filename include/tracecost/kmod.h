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
#define TC_KMOD_RESULTS_VERSION	2
#define TC_KMOD_MAX_SAMPLES	100000000ull
/*
 * Bounds on what one run may allocate and print: top-N capacity per cell
 * (8 bytes a value), and the top-N memory of a whole run (CPUs x pairs x
 * capacity), refused at the start of a run beyond it. The histograms are a
 * fixed 96 KiB per CPU x pair. The results file is read one cell at a time,
 * so its size needs no buffer of its size.
 */
#define TC_KMOD_MAX_HIGHEST	10000u
#define TC_KMOD_MAX_TOPN_BYTES	(64ull << 20)
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
