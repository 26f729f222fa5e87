/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/noise_local.h - private state of lib/noise.c, and the grouping step
 * on decoded records (what the unit test feeds).
 */
#ifndef TRACECOST_NOISE_LOCAL_H
#define TRACECOST_NOISE_LOCAL_H

#include <tracecost/noise.h>

#define NOISE_MAX_CPUS		4096
#define NOISE_MAX_OWN		64
#define NOISE_MAX_ACC		4096

/* One group while counting: causes still as addresses. */
struct noise_acc {
	int cpu;
	int event;
	uint64_t addr;		/* cause as an address (0: @str) */
	uint64_t site;		/* callsite address, or 0 */
	char str[TC_NOISE_CAUSE_MAX];
	uint64_t count;
	uint64_t first;
	uint64_t last;
};

/* An irq_vectors entry on a target CPU whose cause is not known yet. */
struct noise_pending {
	bool open;
	int event;
	uint64_t ts;
	uint64_t addr;
	char str[TC_NOISE_CAUSE_MAX];
	int prio;		/* 0 vector number, 1 tlb_flush reason, 2 csd func */
};

/* The last csd_queue_cpu of a sending CPU: the cause of the IPI that follows. */
struct noise_csd {
	int target;
	uint64_t func;
};

/* A decoded record (noise_account() input). */
struct noise_rec {
	int event;			/* index into n->ev */
	int cpu;			/* where it was recorded */
	uint64_t ts;
	int target;			/* IPI_CPU, CSD_QUEUE: the target CPU */
	const unsigned long *mask;	/* IPI_MASK, IPI_RAISE: the targets */
	int mask_bytes;
	uint64_t addr, site;		/* cause and callsite addresses */
	const char *str;		/* cause as text (when !addr) */
};

struct tc_noise {
	struct tc_tracefs *t;
	int cpus[NOISE_MAX_CPUS];
	int nr_cpus;
	short idx[NOISE_MAX_CPUS];	/* cpu -> index in cpus[], or -1 */
	struct tc_noise_event ev[TC_NOISE_MAX_EVENTS];
	bool bracketed[TC_NOISE_MAX_EVENTS];	/* a vector entry with an exit event */
	struct noise_csd *last_csd;	/* [NOISE_MAX_CPUS]: by sending CPU */
	int ev_id[TC_NOISE_MAX_EVENTS];
	int nr_ev;
	bool cpumask_ok;
	bool ipis_received;		/* IPIs counted where they arrive */
	bool started;
	pid_t own[NOISE_MAX_OWN];
	int nr_own;
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct noise_pending *pend;	/* [nr_cpus] */
	struct noise_acc *acc;
	int nr_acc, cap_acc;
	struct tc_noise_row *rows;
	int nr_rows;
	uint64_t lost;
	uint64_t unmatched;		/* records outside the targets (unfiltered events) */
	char err[512];
};

/* Count @r (for the unit test: needs only ev[], cpus/idx and pend). */
int noise_account(struct tc_noise *n, const struct noise_rec *r);
/* Mark the vector entries whose exit event is chosen too. */
void noise_bracket(struct tc_noise *n);
/* Close every open vector entry (end of a run). */
int noise_flush_pending(struct tc_noise *n);
/* Build n->rows from n->acc with @resolve(@ctx, ...) turning addresses into names. */
int noise_build_rows(struct tc_noise *n,
		     void (*resolve)(void *ctx, uint64_t addr, char *buf, size_t len), void *ctx);
/* A struct tc_noise without tracefs, for tests: targets @cpus, events from the table. */
int noise_new_bare(struct tc_noise **np, const int *cpus, int nr);
int noise_add_event(struct tc_noise *n, const char *system, const char *name,
		    enum tc_noise_kind kind);

#endif /* TRACECOST_NOISE_LOCAL_H */
