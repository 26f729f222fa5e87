/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/profile.h - tracing profiles: named sets of trace events, a
 * tracer and a buffer size (the system suite's columns), the built-in ones
 * and those of profile files (doc/profile-format.md). lib/profile.c builds
 * and parses them without touching tracefs; tc_profile_check() validates one
 * against the running kernel through a tracefs session (tracecost/tracefs.h),
 * and tc_tracefs_apply() enables it in the session's private instance.
 *
 * Functions return 0 or -errno; nothing here prints or exits.
 */
#ifndef TRACECOST_PROFILE_H
#define TRACECOST_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_PROFILE_NAME_MAX	32
#define TC_PROFILE_MAX_EVENTS	64
#define TC_PROFILE_MAX_BUFFER_KB (1024u * 1024u)

/**
 * struct tc_trace_event - one trace event of a profile
 * @system:	event system ("sched")
 * @name:	event name ("sched_switch"), or "*" for every event of @system
 *		(expanded by tc_profile_check())
 * @filter:	filter in the kernel's syntax (Documentation/trace/events.rst,
 *		"Event filtering"), malloc'ed, or NULL
 * @line:	line of a profile file that named it, else 0
 */
struct tc_trace_event {
	char system[64];
	char name[64];
	char *filter;
	int line;
};

/**
 * struct tc_profile - a named tracing configuration
 * @name:	 column name ("syscalls")
 * @summary:	 one line for the report
 * @builtin:	 true for the built-in profiles (tc_profile_builtin())
 * @nr_events:	 entries of @events in use
 * @events:	 events to enable, in order
 * @fallback:	 built-ins only: space-separated "system:name" list used when
 *		 an event of @events does not exist (ipi -> irq_vectors), or NULL
 * @tracer:	 tracer for current_tracer, "" for none (nop)
 * @buffer_kb:	 ring-buffer size per CPU in KiB, 0 for the kernel's default
 * @file, @line: where a profile from a file was defined (else NULL, 0)
 * @tracer_line: line of its tracer key
 * @available:	 set by tc_profile_check(): whether this kernel provides it
 * @reason:	 why not, when !@available
 */
struct tc_profile {
	char name[TC_PROFILE_NAME_MAX];
	char summary[128];
	bool builtin;
	int nr_events;
	struct tc_trace_event events[TC_PROFILE_MAX_EVENTS];
	const char *fallback;
	char tracer[32];
	unsigned long buffer_kb;
	const char *file;
	int line;
	int tracer_line;
	bool available;
	char reason[256];
};

/**
 * tc_profile_builtin() - a built-in profile by name
 * @name: none, syscalls, sched, ipi, irq, function, preemptirq
 * @p:	  output; release with tc_profile_release()
 *
 * Return: 0, or -ENOENT for an unknown name.
 */
int tc_profile_builtin(const char *name, struct tc_profile *p);

/**
 * tc_profile_builtin_names() - the built-in names, in their default column order
 *
 * Return: a static array of names ending with NULL (never NULL itself).
 */
const char *const *tc_profile_builtin_names(void);

/**
 * tc_profile_add_event() - append an event to @p
 * @p:	    profile
 * @system: event system
 * @name:   event name, or "*"
 * @filter: kernel filter, or NULL (copied)
 *
 * For suites that build a profile in code (e.g. the kernel suite's
 * tracecost:pair event). Return: 0, -EINVAL (empty or too long a name),
 * -ENOSPC (TC_PROFILE_MAX_EVENTS reached) or -ENOMEM.
 */
int tc_profile_add_event(struct tc_profile *p, const char *system, const char *name,
			 const char *filter);

/**
 * tc_profile_release() - free what @p owns (its events' filters)
 * @p: profile; it stays valid, with no events
 */
void tc_profile_release(struct tc_profile *p);

/**
 * tc_profile_file_parse() - tc_profile_file_load() on @size bytes at @buf
 * (any bytes: a NUL byte is an error), @path naming them in messages. The
 * parser the fuzzer drives (tests/fuzz/fuzz_profile.c).
 *
 * Return: as tc_profile_file_load(), without its -errno of a read.
 */
int tc_profile_file_parse(const char *buf, size_t size, const char *path,
			  struct tc_profile **out, int *nr, char *err, size_t len);

/**
 * tc_profile_file_load() - parse a profile file (doc/profile-format.md)
 * @path:  the file
 * @out:   output: a malloc'ed array of profiles (release each, then free())
 * @nr:	   output: its length
 * @err:   on failure, one line "PATH:LINE: problem" (or "PATH: strerror")
 * @len:   size of @err
 *
 * Syntax only: event names and filters are checked against the kernel by
 * tc_profile_check(). A name that is a built-in's, or repeated, is an error.
 *
 * Return: 0; -EINVAL on a syntax error; -ENOMEM; -errno if @path cannot
 * be read. On error *@out is NULL and *@nr 0.
 */
int tc_profile_file_load(const char *path, struct tc_profile **out, int *nr,
			 char *err, size_t len);

struct tc_tracefs;	/* tracecost/tracefs.h */

/**
 * tc_profile_check() - validate @p against the running kernel (read only)
 * @t:	 session
 * @p:	 profile; "system:*" entries are expanded, a built-in whose events
 *	 are missing switches to its fallback
 *
 * For a built-in profile, a missing event or tracer is not an error: it
 * sets @p->available = false and @p->reason. For a profile from a file it
 * is bad input: -EINVAL, with "FILE:LINE: problem" in tc_tracefs_error()
 * (unknown event, filter the event's format rejects, tracer not in
 * available_tracers). Filters are checked with libtracefs
 * (tracefs_filter_string_verify) against the event's format, before
 * anything is changed; the kernel has the last word in tc_tracefs_apply().
 *
 * Return: 0 (check @p->available), -EINVAL, -ENOSPC (too many events after
 * expansion) or -ENOMEM.
 */
int tc_profile_check(struct tc_tracefs *t, struct tc_profile *p);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_PROFILE_H */
