// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/ringbuf.c - per-thread rings in overwrite mode and the recording probe.
 *
 * Locking: rec->lock protects rec->rings (the list of all threads' rings)
 * and is taken only by thread_init, totals and destroy, never by the probe.
 * Each ring is written by its own thread only; the TLS slot table maps a
 * recorder's slot to the calling thread's ring.
 *
 * The probe's common path is a leaf with no saved register: the ring's
 * first allocation and the CPU number without rseq are cold functions of
 * their own, and overruns are not counted per event but derived from the
 * head (every event past the ring's size overwrote one: head - size).
 * Measured with bench/floor.sh (issue 17).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>

#include <tracecost/clock.h>
#include <tracecost/compiler.h>
#include <tracecost/ringbuf.h>
#include <tracecost/toggle.h>

#define TC_RECORDER_MAX 64

struct tc_ring {
	struct tc_ring *next;		/* rec->rings, under rec->lock */
	uint64_t head;			/* events written by the owner */
	uint32_t mask;
	struct tc_event ev[];
};

struct tc_recorder {
	pthread_mutex_t lock;
	struct tc_ring *rings;
	unsigned int nr_events;
	unsigned int slot;
};

static TC_TLS struct tc_ring *tls_rings[TC_RECORDER_MAX];
static unsigned int next_slot;	/* under slot_lock */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* The CPU without rseq (or before the thread's rseq registration). */
static tc_noinline __attribute__((cold)) int current_cpu_slow(void)
{
	return sched_getcpu();
}

static tc_always_inline int current_cpu(void)
{
	if (tc_likely(__rseq_size >= 8)) {
		const volatile uint32_t *cpu_id = (const volatile uint32_t *)
			((char *)__builtin_thread_pointer() + __rseq_offset + 4);
		int cpu = (int)*cpu_id;

		if (tc_likely(cpu >= 0))
			return cpu;
	}
	return current_cpu_slow();
}

int tc_current_cpu(void)
{
	return current_cpu();
}

int tc_recorder_create(unsigned int nr_events, struct tc_recorder **out)
{
	struct tc_recorder *rec;

	if (nr_events < 2 || (nr_events & (nr_events - 1)))
		return -EINVAL;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	pthread_mutex_lock(&slot_lock);
	if (next_slot >= TC_RECORDER_MAX) {
		pthread_mutex_unlock(&slot_lock);
		free(rec);
		return -ENOSPC;
	}
	rec->slot = next_slot++;
	pthread_mutex_unlock(&slot_lock);
	pthread_mutex_init(&rec->lock, NULL);
	rec->nr_events = nr_events;
	*out = rec;
	return 0;
}

void tc_recorder_destroy(struct tc_recorder *rec)
{
	struct tc_ring *r, *n;

	if (!rec)
		return;
	for (r = rec->rings; r; r = n) {
		n = r->next;
		free(r);
	}
	pthread_mutex_destroy(&rec->lock);
	free(rec);
}

static struct tc_ring *ring_alloc(struct tc_recorder *rec)
{
	struct tc_ring *r;

	r = calloc(1, sizeof(*r) + (size_t)rec->nr_events * sizeof(struct tc_event));
	if (!r)
		return NULL;
	r->mask = rec->nr_events - 1;
	pthread_mutex_lock(&rec->lock);
	r->next = rec->rings;
	rec->rings = r;
	pthread_mutex_unlock(&rec->lock);
	tls_rings[rec->slot] = r;
	return r;
}

int tc_recorder_thread_init(struct tc_recorder *rec)
{
	if (tls_rings[rec->slot])
		return 0;
	return ring_alloc(rec) ? 0 : -ENOMEM;
}

void tc_recorder_totals(struct tc_recorder *rec, uint64_t *events, uint64_t *overruns)
{
	const struct tc_ring *r;

	*events = 0;
	*overruns = 0;
	pthread_mutex_lock(&rec->lock);
	for (r = rec->rings; r; r = r->next) {
		*events += r->head;
		/* overwrite mode: each event past the ring's size replaced one */
		if (r->head > (uint64_t)r->mask + 1)
			*overruns += r->head - r->mask - 1;
	}
	pthread_mutex_unlock(&rec->lock);
}

int tc_recorder_read(struct tc_recorder *rec, int (*fn)(const struct tc_event *ev, int ring,
							void *arg), void *arg)
{
	const struct tc_ring *r;
	uint64_t i, first;
	int ring = 0, ret = 0;

	if (!rec || !fn)
		return -EINVAL;
	pthread_mutex_lock(&rec->lock);
	for (r = rec->rings; r && !ret; r = r->next, ring++) {
		/* the events still in the ring, oldest first */
		first = r->head > (uint64_t)r->mask + 1 ? r->head - r->mask - 1 : 0;
		for (i = first; i < r->head && !ret; i++)
			ret = fn(&r->ev[i & r->mask], ring, arg);
	}
	pthread_mutex_unlock(&rec->lock);
	return ret;
}

int tc_recorder_last(struct tc_recorder *rec, struct tc_event *ev)
{
	const struct tc_ring *r = tls_rings[rec->slot];

	if (!r || !r->head)
		return -ENOENT;
	*ev = r->ev[(r->head - 1) & r->mask];
	return 0;
}

/* The end of an event without rseq: the CPU from sched_getcpu(). */
static tc_noinline __attribute__((cold)) void record_end_slow(struct tc_ring *r,
							       struct tc_event *ev, uint64_t h)
{
	ev->cpu = (uint32_t)current_cpu_slow();
	r->head = h + 1;
}

/*
 * One event. Everything that needs a call is a tail call (the CPU without
 * rseq, last), so the common path saves no register.
 */
static tc_always_inline void record(struct tc_ring *r, unsigned long ip,
				    unsigned long parent_ip)
{
	uint64_t h = r->head;
	struct tc_event *ev = &r->ev[h & r->mask];

	ev->ts = tc_clock_read_fast();
	ev->ip = ip;
	ev->parent_ip = parent_ip;
	ev->pad = 0;
	if (tc_likely(__rseq_size >= 8)) {
		int cpu = (int)*(const volatile uint32_t *)
			((char *)__builtin_thread_pointer() + __rseq_offset + 4);

		if (tc_likely(cpu >= 0)) {
			ev->cpu = (uint32_t)cpu;
			r->head = h + 1;
			return;
		}
	}
	record_end_slow(r, ev, h);
}

/* The thread's first event for @rec: its ring first (malloc). */
static tc_noinline __attribute__((cold)) void record_first(struct tc_recorder *rec,
							    unsigned long ip,
							    unsigned long parent_ip)
{
	struct tc_ring *r = ring_alloc(rec);

	if (r)
		record(r, ip, parent_ip);
}

void tc_record_probe(void *data, unsigned long ip, unsigned long parent_ip)
{
	struct tc_recorder *rec = data;
	struct tc_ring *r = tls_rings[rec->slot];

	if (tc_unlikely(!r)) {
		record_first(rec, ip, parent_ip);
		return;
	}
	record(r, ip, parent_ip);
}
