/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/noise.h - what interrupts the target (isolated) CPUs: the trace
 * events that mark interference aimed at them, enabled in the private tracefs
 * instance of a tracefs session (tracefs.h) and filtered in the kernel to
 * those CPUs, read back with libtraceevent and grouped by cause.
 *
 * Events, where the kernel has them (tc_noise_new() picks):
 *	ipi:ipi_send_cpu	  sender side, filter "cpu & CPUS{T}"
 *	ipi:ipi_send_cpumask	  sender side, filter "cpumask & CPUS{T}"
 *				  (both v6.6+; cause: callback, else callsite)
 *	ipi:ipi_raise		  only without the two above (cause: reason;
 *				  no cpumask filter before v6.6: the target
 *				  mask is matched here)
 *	csd:csd_queue_cpu	  sender side, "cpu & CPUS{T}" (cause: func)
 *	irq:irq_handler_entry	  on T (cause: handler name)
 *	irq_vectors:*_entry	  on T (x86; cause: what ran inside the vector:
 *				  the first csd:csd_function_entry or
 *				  tlb:tlb_flush before its *_exit, else the
 *				  vector number)
 *	tlb:tlb_flush		  on T (cause: reason, "remote shootdown")
 *	csd:csd_function_entry	  on T (cause: func)
 *	sched:sched_switch	  on T, to another task than the caller's
 *				  loop threads (cause: next_comm)
 * plus the caller's extra events, recorded on T (cause: the first of the
 * fields callback, func, function, name, reason, vector, next_comm, comm
 * that the event has).
 * "On T" filters use the kernel's generic CPU field: "CPU & CPUS{T}" where
 * the kernel takes cpumask filters (v6.6+), else "CPU == a || CPU == b".
 *
 * Use, in the process that owns the session (after tc_tracefs_begin()):
 *	tc_noise_new()		read-only: which events, which filters
 *	tc_noise_start()	apply them in the private instance, tracing on
 *	tc_noise_drain()	consume what the buffer holds (call it about
 *				every second: the buffer is finite)
 *	tc_noise_stop()		tracing off, last drain, lost events, symbol
 *				names, instance removed
 *	tc_noise_rows()		the grouped counts
 *	tc_noise_free()
 * Timestamps are CLOCK_MONOTONIC in ns (trace_clock "mono" in the
 * instance). Functions return 0 or -errno; tc_noise_error() has one line.
 */
#ifndef TRACECOST_NOISE_H
#define TRACECOST_NOISE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct tc_tracefs;
struct tc_noise;

#define TC_NOISE_MAX_EVENTS	48
#define TC_NOISE_CAUSE_MAX	128

/**
 * enum tc_noise_kind - how an event is read and grouped
 * @TC_NOISE_IPI_CPU:	 ipi_send_cpu: target in field "cpu"
 * @TC_NOISE_IPI_MASK:	 ipi_send_cpumask: targets in field "cpumask"
 * @TC_NOISE_IPI_RAISE:	 ipi_raise: targets in "target_cpus", cause "reason"
 * @TC_NOISE_CSD_QUEUE:	 csd_queue_cpu: target in "cpu", cause "func"
 * @TC_NOISE_IRQ:	 irq_handler_entry on the target
 * @TC_NOISE_VECTOR:	 irq_vectors:*_entry on the target
 * @TC_NOISE_VECTOR_EXIT: irq_vectors:call_function{,_single}_exit (brackets
 *			 the vector; no row of its own)
 * @TC_NOISE_TLB:	 tlb_flush on the target
 * @TC_NOISE_CSD_FUNC:	 csd_function_entry on the target
 * @TC_NOISE_SWITCH:	 sched_switch on the target
 * @TC_NOISE_OTHER:	 an extra event, on the target
 */
enum tc_noise_kind {
	TC_NOISE_IPI_CPU,
	TC_NOISE_IPI_MASK,
	TC_NOISE_IPI_RAISE,
	TC_NOISE_CSD_QUEUE,
	TC_NOISE_IRQ,
	TC_NOISE_VECTOR,
	TC_NOISE_VECTOR_EXIT,
	TC_NOISE_TLB,
	TC_NOISE_CSD_FUNC,
	TC_NOISE_SWITCH,
	TC_NOISE_OTHER,
};

/**
 * struct tc_noise_event - one event tc_noise_new() chose
 * @system, @name: the event
 * @kind:	   how it is read
 * @filter:	   the kernel filter set by tc_noise_start() ("" before, and
 *		   for events filtered here)
 * @is_ipi:	   counts as an IPI sent to the target (the "ipis" total; see
 *		   tc_noise_ipis_received())
 */
struct tc_noise_event {
	char system[64];
	char name[64];
	enum tc_noise_kind kind;
	char filter[512];
	bool is_ipi;
};

/**
 * struct tc_noise_row - events of one kind, cause and target CPU
 * @cpu:	target CPU
 * @event:	index into the events of tc_noise_events()
 * @cause:	the cause: a function name (resolved from /proc/kallsyms), an
 *		irq or task name, a reason
 * @callsite:	where the IPI was sent from (ipi_send_*), else ""
 * @count:	events
 * @first_ns, @last_ns: CLOCK_MONOTONIC of the first and the last
 */
struct tc_noise_row {
	int cpu;
	int event;
	char cause[TC_NOISE_CAUSE_MAX];
	char callsite[TC_NOISE_CAUSE_MAX];
	uint64_t count;
	uint64_t first_ns;
	uint64_t last_ns;
};

/**
 * tc_noise_new() - choose the events for target CPUs @cpus (read only)
 * @np:	    output
 * @t:	    an open tracefs session
 * @cpus:   target CPUs, ascending, each < 4096
 * @nr:	    their number, >= 1
 * @extra:  "system:name,..." to add (recorded on the targets), or NULL
 *
 * Return: 0; -EINVAL for a malformed or unknown extra event (tc_noise_error()
 * on *@np, which is still allocated, names it); -ENOENT if this kernel has
 * none of the events; -ENOMEM.
 */
int tc_noise_new(struct tc_noise **np, struct tc_tracefs *t, const int *cpus, int nr,
		 const char *extra);

/** tc_noise_free() - free @n (call tc_noise_stop() first if it was started) */
void tc_noise_free(struct tc_noise *n);

/** tc_noise_error() - one line about the last failure ("" if none) */
const char *tc_noise_error(const struct tc_noise *n);

/** tc_noise_events() - the chosen events; *@nr set to their number */
const struct tc_noise_event *tc_noise_events(const struct tc_noise *n, int *nr);

/**
 * tc_noise_ipis_received() - whether IPIs are counted where they arrive
 *
 * Without ipi:ipi_send_cpu/ipi_send_cpumask (before v6.6) nothing on the
 * sending side names an x86 IPI's target; then the events with @is_ipi are
 * the IPI vectors taken on the targets: irq_vectors call_function_entry,
 * call_function_single_entry and reschedule_entry.
 */
bool tc_noise_ipis_received(const struct tc_noise *n);

/** tc_noise_cpumask_filters() - whether the kernel took CPUS{} filters (after start) */
bool tc_noise_cpumask_filters(const struct tc_noise *n);

/**
 * tc_noise_start() - apply the events in the session's private instance
 * @n:	  from tc_noise_new()
 * @own:  thread ids of the caller's loops on the targets: switches to them
 *	  are not interference (sched_switch filter "next_pid != ..."); may
 *	  be NULL
 * @nr_own: their number (at most 64)
 *
 * The session must be begun (tc_tracefs_begin()). Tries cpumask filters
 * first and falls back to CPU equality when the kernel refuses them. Sets
 * trace_clock "mono" in the instance.
 *
 * Return: 0, or -errno (tc_noise_error(), with the kernel's error_log line).
 */
int tc_noise_start(struct tc_noise *n, const pid_t *own, int nr_own);

/**
 * tc_noise_drain() - consume the records in the instance's buffer and count them
 * Return: 0, -ENOENT (not started), -EIO.
 */
int tc_noise_drain(struct tc_noise *n);

/**
 * tc_noise_stop() - tracing off, last drain, lost events, names, instance removed
 * Return: 0 or -errno; the counts stay readable either way.
 */
int tc_noise_stop(struct tc_noise *n);

/**
 * tc_noise_rows() - the grouped counts, sorted by CPU, event, count (descending)
 * @nr: output, number of rows
 */
const struct tc_noise_row *tc_noise_rows(const struct tc_noise *n, int *nr);

/**
 * tc_noise_lost() - events the kernel overwrote or dropped (ring buffer
 * overrun and dropped events of every CPU of the instance), after stop
 */
uint64_t tc_noise_lost(const struct tc_noise *n);

/**
 * tc_noise_cpu_isolation() - how the kernel isolates @cpu
 * @buf: output: "nohz_full, isolcpus (domain)" style text, or "" when not isolated
 *
 * Reads /sys/devices/system/cpu/nohz_full and .../isolated (the isolcpus
 * domain set) and the isolcpus= flags of /proc/cmdline.
 * Return: true if @cpu is in nohz_full or isolated.
 */
bool tc_noise_cpu_isolation(int cpu, char *buf, size_t len);

#endif /* TRACECOST_NOISE_H */
