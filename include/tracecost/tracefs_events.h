/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/tracefs_events.h - enable a set of events in a private tracefs
 * instance for the duration of one measurement, count what they recorded,
 * and remove the instance (libtracefs). The user's own top-level tracing is
 * never touched: only the instance is created and destroyed.
 */
#ifndef TRACECOST_TRACEFS_EVENTS_H
#define TRACECOST_TRACEFS_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct tc_tracefs_events;

/** tc_tracefs_event_exists() - whether the running kernel has @system:@event */
bool tc_tracefs_event_exists(const char *system, const char *event);

/**
 * tc_tracefs_events_enable() - create instance @name, enable @events in it
 * @name:   instance name (refused with -EEXIST if it exists: another run)
 * @events: NULL-terminated "system:event" strings
 * @out:    handle for count/disable
 *
 * On error nothing is left behind (the instance is removed).
 * Return: 0, -EINVAL (bad event string), -ENOENT (no such event), -EEXIST,
 * -ENODEV (no tracefs), -ENOMEM, or -errno from tracefs.
 */
int tc_tracefs_events_enable(const char *name, const char *const *events,
			     struct tc_tracefs_events **out);

/**
 * tc_tracefs_events_count() - events the instance's buffers took so far
 * @written: entries in the buffers + entries overwritten (overrun), all CPUs
 * @lost:    entries overwritten (the buffer is in overwrite mode)
 */
void tc_tracefs_events_count(struct tc_tracefs_events *t, uint64_t *written, uint64_t *lost);

/** tc_tracefs_events_disable() - disable the events, remove the instance, free @t */
void tc_tracefs_events_disable(struct tc_tracefs_events *t);

#endif /* TRACECOST_TRACEFS_EVENTS_H */
