/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/ringbuf.h - per-thread event ring buffers and the built-in
 * recording probe.
 *
 * A recorder owns one fixed-size ring per thread that fires its probe. Rings
 * run in overwrite mode (like the kernel's ring buffer with "overwrite" set):
 * when full, the oldest event is overwritten and counted as an overrun.
 * Each ring has exactly one writer (its thread), so the probe takes no lock
 * and issues no atomic instruction; totals are read after the writers have
 * stopped (the sampler reads them after its threads' final barrier).
 */
#ifndef TRACECOST_RINGBUF_H
#define TRACECOST_RINGBUF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tc_event - one recorded event (32 bytes)
 * @ts:		counter value (tc_clock_read_fast(): the sampler's counter,
 *		unserialized), ticks
 * @ip:		address of the site, passed by the site
 * @parent_ip:	return address of the toggle's caller
 * @cpu:	CPU the event was recorded on (rseq cpu_id, else sched_getcpu())
 * @pad:	zero (keeps the event 32 bytes)
 */
struct tc_event {
	uint64_t ts;
	uint64_t ip;
	uint64_t parent_ip;
	uint32_t cpu;
	uint32_t pad;
};

struct tc_recorder;

/**
 * tc_recorder_create() - a recorder with one ring of @nr_events per thread
 * @nr_events: ring size in events, a power of two >= 2 (32 bytes each)
 * @out:       the recorder
 *
 * Return: 0, -EINVAL (size), -ENOMEM, -ENOSPC (too many recorders in this
 * process: TC_RECORDER_MAX, slots are never reused).
 */
int tc_recorder_create(unsigned int nr_events, struct tc_recorder **out);
void tc_recorder_destroy(struct tc_recorder *rec);

/**
 * tc_recorder_thread_init() - allocate the calling thread's ring now
 *
 * Optional: the probe allocates a ring on a thread's first event otherwise
 * (malloc inside the probe). The sampler calls it before timing starts.
 * Return: 0 or -ENOMEM.
 */
int tc_recorder_thread_init(struct tc_recorder *rec);

/**
 * tc_recorder_totals() - events written and overruns, summed over all rings
 *
 * Read when no writer runs (after the writers were joined or stopped at a
 * barrier); takes the recorder's lock against concurrent thread_init.
 */
void tc_recorder_totals(struct tc_recorder *rec, uint64_t *events, uint64_t *overruns);

/**
 * tc_recorder_read() - the consumer: every event still in the rings
 * @rec: the recorder
 * @fn:	 called per event, oldest first within each thread's ring, with the
 *	 ring's index (one ring per thread that recorded, in no set order);
 *	 a non-zero return stops the walk
 * @arg: passed to @fn
 *
 * A ring keeps its newest nr_events events (overwrite mode); the older
 * ones are counted as overruns by tc_recorder_totals(). Call it when no
 * writer runs, like tc_recorder_totals(); takes the recorder's lock.
 *
 * Return: 0 after the last event, @fn's non-zero return, or -EINVAL.
 */
int tc_recorder_read(struct tc_recorder *rec, int (*fn)(const struct tc_event *ev, int ring,
							void *arg), void *arg);

/**
 * tc_recorder_last() - copy the calling thread's newest event
 * Return: 0, or -ENOENT when this thread recorded nothing.
 */
int tc_recorder_last(struct tc_recorder *rec, struct tc_event *ev);

/**
 * tc_record_probe() - the recording probe (preemptirq prototype)
 * @data:      the struct tc_recorder *, given at registration
 * @ip:	       site address
 * @parent_ip: caller's return address
 *
 * Register it with tc_tracepoint_probe_register(tp, tc_record_probe, rec).
 */
void tc_record_probe(void *data, unsigned long ip, unsigned long parent_ip);

/** tc_current_cpu() - this thread's CPU from rseq (glibc >= 2.35), else sched_getcpu() */
int tc_current_cpu(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_RINGBUF_H */
