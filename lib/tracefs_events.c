// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/tracefs_events.c - see tracecost/tracefs_events.h. Not thread-safe. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include <tracecost/tracefs_events.h>

struct tc_tracefs_events {
	struct tracefs_instance *inst;
};

bool tc_tracefs_event_exists(const char *system, const char *event)
{
	if (!tracefs_tracing_dir())
		return false;
	return tracefs_event_file_exists(NULL, system, event, "enable");
}

static int split(const char *ev, char *sys, size_t slen, const char **name)
{
	const char *colon = strchr(ev, ':');

	if (!colon || colon == ev || !colon[1] || (size_t)(colon - ev) >= slen)
		return -EINVAL;
	memcpy(sys, ev, (size_t)(colon - ev));
	sys[colon - ev] = 0;
	*name = colon + 1;
	return 0;
}

int tc_tracefs_events_enable(const char *name, const char *const *events,
			     struct tc_tracefs_events **out)
{
	struct tc_tracefs_events *t;
	int i, err;

	if (!tracefs_tracing_dir())
		return -ENODEV;
	for (i = 0; events[i]; i++) {
		char sys[64];
		const char *ev;

		if (split(events[i], sys, sizeof(sys), &ev))
			return -EINVAL;
		if (!tc_tracefs_event_exists(sys, ev))
			return -ENOENT;
	}
	if (tracefs_instance_exists(name))
		return -EEXIST;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->inst = tracefs_instance_create(name);
	if (!t->inst) {
		err = errno ? -errno : -EIO;
		free(t);
		return err;
	}
	for (i = 0; events[i]; i++) {
		char sys[64];
		const char *ev;

		split(events[i], sys, sizeof(sys), &ev);
		if (tracefs_event_enable(t->inst, sys, ev)) {
			err = errno ? -errno : -EIO;
			tc_tracefs_events_disable(t);
			return err;
		}
	}
	tracefs_trace_on(t->inst);
	*out = t;
	return 0;
}

static uint64_t stat_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

void tc_tracefs_events_count(struct tc_tracefs_events *t, uint64_t *written, uint64_t *lost)
{
	int cpu;

	*written = 0;
	*lost = 0;
	for (cpu = 0; cpu < 4096; cpu++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (!tracefs_file_exists(t->inst, file))
			break;
		text = tracefs_instance_file_read(t->inst, file, NULL);
		if (!text)
			continue;
		*written += stat_field(text, "entries: ") + stat_field(text, "overrun: ");
		*lost += stat_field(text, "overrun: ");
		free(text);
	}
}

void tc_tracefs_events_disable(struct tc_tracefs_events *t)
{
	if (!t)
		return;
	tracefs_event_disable(t->inst, NULL, NULL);
	tracefs_instance_destroy(t->inst);
	tracefs_instance_free(t->inst);
	free(t);
}
