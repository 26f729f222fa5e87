// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/ringbuf.c - per-thread rings in overwrite mode and the recording probe.
 *
 * Locking: rec->lock protects rec->rings (the list of all threads' rings)
 * and is taken only by thread_init, totals and destroy, never by the probe.
 * Each ring is written by its own thread only; the TLS slot table maps a
 * recorder's slot to the calling thread's ring.
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
	uint64_t overruns;		/* events overwritten */
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

int tc_current_cpu(void)
{
	if (__rseq_size >= 8) {
		const volatile uint32_t *cpu_id = (const volatile uint32_t *)
			((char *)__builtin_thread_pointer() + __rseq_offset + 4);
		int cpu = (int)*cpu_id;

		if (cpu >= 0)
			return cpu;
	}
	return sched_getcpu();
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
		*overruns += r->overruns;
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

void tc_record_probe(void *data, unsigned long ip, unsigned long parent_ip)
{
	struct tc_recorder *rec = data;
	struct tc_ring *r = tls_rings[rec->slot];
	struct tc_event *ev;

	if (tc_unlikely(!r)) {
		r = ring_alloc(rec);
		if (!r)
			return;
	}
	if (r->head > r->mask)
		r->overruns++;
	ev = &r->ev[r->head & r->mask];
	ev->ts = tc_clock_read_fast();
	ev->ip = ip;
	ev->parent_ip = parent_ip;
	ev->cpu = (uint32_t)tc_current_cpu();
	ev->pad = 0;
	r->head++;
}
