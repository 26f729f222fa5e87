// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/profile.c - tracing profiles: the built-in ones and profile files
 * (doc/profile-format.md). Parsing only: checking a profile against the
 * running kernel is the session's (tracefs.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <jansson.h>
#include <tracefs.h>

#include <tracecost/file.h>
#include <tracecost/profile.h>

#include "tracefs_local.h"

/* Largest profile file read: 64 profiles of many events fit in far less. */
#define PROFILE_FILE_MAX_BYTES	(1u << 20)

/* ---- profiles --------------------------------------------------------- */

static const struct tcfs_builtin builtins[] = {
	{ "none", "no tracing (baseline)", "", NULL, NULL, "", NULL },
	{ "syscalls", "raw_syscalls sys_enter and sys_exit",
	  "raw_syscalls:sys_enter raw_syscalls:sys_exit", NULL, NULL, "",
	  "CONFIG_FTRACE_SYSCALLS" },
	{ "sched", "sched_switch and sched_wakeup",
	  "sched:sched_switch sched:sched_wakeup", NULL, NULL, "", "CONFIG_TRACEPOINTS" },
	{ "ipi", "every event of the ipi system",
	  "ipi:*",
	  "irq_vectors:call_function_entry irq_vectors:call_function_single_entry "
	  "irq_vectors:reschedule_entry",
	  "irq_vectors call_function, call_function_single and reschedule entries "
	  "(no ipi events)", "", "ipi events, or x86 irq_vectors" },
	{ "irq", "irq handler entry/exit, softirq entry/exit",
	  "irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit",
	  NULL, NULL, "", "CONFIG_TRACEPOINTS" },
	{ "function", "function tracer", "", NULL, NULL, "function", "CONFIG_FUNCTION_TRACER" },
	{ "preemptirq", "preemptirq events: irq and preempt disable/enable",
	  "preemptirq:*", NULL, NULL, "",
	  "CONFIG_PREEMPTIRQ_TRACEPOINTS, via CONFIG_IRQSOFF_TRACER or CONFIG_PREEMPT_TRACER" },
};

#define NR_BUILTINS	((int)(sizeof(builtins) / sizeof(builtins[0])))

const char *const *tc_profile_builtin_names(void)
{
	static const char *names[NR_BUILTINS + 1];
	int i;

	for (i = 0; i < NR_BUILTINS; i++)
		names[i] = builtins[i].name;
	names[i] = NULL;
	return names;
}

const struct tcfs_builtin *tcfs_builtin_find(const char *name)
{
	int i;

	for (i = 0; i < NR_BUILTINS; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

static bool valid_ident(const char *s, size_t max, bool star)
{
	size_t n = strlen(s), i;

	if (!n || n >= max)
		return false;
	if (star && !strcmp(s, "*"))
		return true;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

int tc_profile_add_event(struct tc_profile *p, const char *system, const char *name,
			 const char *filter)
{
	struct tc_trace_event *e;

	if (!valid_ident(system, sizeof(e->system), false) ||
	    !valid_ident(name, sizeof(e->name), true))
		return -EINVAL;
	if (p->nr_events >= TC_PROFILE_MAX_EVENTS)
		return -ENOSPC;
	e = &p->events[p->nr_events];
	memset(e, 0, sizeof(*e));
	snprintf(e->system, sizeof(e->system), "%s", system);
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (filter && *filter) {
		e->filter = strdup(filter);
		if (!e->filter)
			return -ENOMEM;
	}
	p->nr_events++;
	return 0;
}

void tcfs_profile_clear_events(struct tc_profile *p)
{
	int i;

	for (i = 0; i < p->nr_events; i++) {
		free(p->events[i].filter);
		p->events[i].filter = NULL;
	}
	p->nr_events = 0;
}

void tc_profile_release(struct tc_profile *p)
{
	tcfs_profile_clear_events(p);
}

/* Add the space-separated "system:name" list @list to @p. */
int tcfs_profile_add_event_list(struct tc_profile *p, const char *list)
{
	char buf[512], *tok, *save, *colon;
	int err;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return -EINVAL;
		*colon = 0;
		err = tc_profile_add_event(p, tok, colon + 1, NULL);
		if (err)
			return err;
	}
	return 0;
}

int tc_profile_builtin(const char *name, struct tc_profile *p)
{
	const struct tcfs_builtin *b = tcfs_builtin_find(name);

	memset(p, 0, sizeof(*p));
	if (!b)
		return -ENOENT;
	snprintf(p->name, sizeof(p->name), "%s", b->name);
	snprintf(p->summary, sizeof(p->summary), "%s", b->summary);
	snprintf(p->tracer, sizeof(p->tracer), "%s", b->tracer);
	p->builtin = true;
	p->fallback = b->fallback;
	p->available = true;
	return tcfs_profile_add_event_list(p, b->events);
}

/* ---- profile files ---------------------------------------------------- */

char *tcfs_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static bool valid_profile_name(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= TC_PROFILE_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.+-", s[i]))
			return false;
	return true;
}

/* "system:name [if FILTER]" */
static int parse_event(struct tc_profile *p, char *v, int lineno, char *msg, size_t len)
{
	char *colon, *filter = NULL, *name, *sp;
	int err;

	sp = v + strcspn(v, " \t");
	if (*sp) {
		*sp++ = 0;
		sp = tcfs_trim(sp);
		if (strncmp(sp, "if", 2) || (sp[2] && !isspace((unsigned char)sp[2]))) {
			snprintf(msg, len, "expected 'if FILTER' after the event name, found '%s'", sp);
			return -EINVAL;
		}
		filter = tcfs_trim(sp + 2);
		if (!*filter) {
			snprintf(msg, len, "empty filter after 'if'");
			return -EINVAL;
		}
	}
	colon = strchr(v, ':');
	if (!colon) {
		snprintf(msg, len, "bad event '%s': expected SYSTEM:EVENT", v);
		return -EINVAL;
	}
	*colon = 0;
	name = colon + 1;
	err = tc_profile_add_event(p, v, name, filter);
	if (!err)
		p->events[p->nr_events - 1].line = lineno;
	if (err == -EINVAL)
		snprintf(msg, len, "bad event '%s:%s': expected SYSTEM:EVENT (letters, digits, "
			 "'_', '-'; EVENT may be '*')", v, name);
	else if (err == -ENOSPC)
		snprintf(msg, len, "too many events (at most %d per profile)",
			 TC_PROFILE_MAX_EVENTS);
	else if (err)
		snprintf(msg, len, "%s", strerror(-err));
	return err;
}

static int parse_line(char *line, struct tc_profile **out, int *nr, int lineno,
		      const char *path, char *msg, size_t len)
{
	struct tc_profile *p = *nr ? &(*out)[*nr - 1] : NULL;
	char *s = tcfs_trim(line), *eq, *key, *val, *end;
	int i;

	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		struct tc_profile *np;

		end = strchr(s, ']');
		if (!end || tcfs_trim(end + 1)[0]) {
			snprintf(msg, len, "expected '[name]'");
			return -EINVAL;
		}
		*end = 0;
		s = tcfs_trim(s + 1);
		if (!valid_profile_name(s)) {
			snprintf(msg, len, "bad profile name '%s': 1-%d characters of A-Z a-z 0-9 "
				 "_ . + -", s, TC_PROFILE_NAME_MAX - 1);
			return -EINVAL;
		}
		if (tcfs_builtin_find(s)) {
			snprintf(msg, len, "profile '%s' is a built-in name", s);
			return -EINVAL;
		}
		for (i = 0; i < *nr; i++) {
			if (!strcmp((*out)[i].name, s)) {
				snprintf(msg, len, "profile '%s' defined again (first at line %d)",
					 s, (*out)[i].line);
				return -EINVAL;
			}
		}
		np = realloc(*out, sizeof(**out) * (size_t)(*nr + 1));
		if (!np)
			return -ENOMEM;
		*out = np;
		p = &np[(*nr)++];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", s);
		snprintf(p->summary, sizeof(p->summary), "from %s", path);
		p->file = path;
		p->line = lineno;
		p->available = true;
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq) {
		snprintf(msg, len, "expected '[name]', 'key = value' or a comment");
		return -EINVAL;
	}
	*eq = 0;
	key = tcfs_trim(s);
	val = tcfs_trim(eq + 1);
	if (!p) {
		snprintf(msg, len, "'%s = ...' outside a [profile] section", key);
		return -EINVAL;
	}
	if (!strcmp(key, "event"))
		return parse_event(p, val, lineno, msg, len);
	if (!strcmp(key, "summary")) {
		snprintf(p->summary, sizeof(p->summary), "%s", val);
		return 0;
	}
	if (!strcmp(key, "tracer")) {
		if (p->tracer[0]) {
			snprintf(msg, len, "tracer given twice in profile '%s'", p->name);
			return -EINVAL;
		}
		if (!valid_ident(val, sizeof(p->tracer), false)) {
			snprintf(msg, len, "bad tracer name '%s'", val);
			return -EINVAL;
		}
		snprintf(p->tracer, sizeof(p->tracer), "%s", val);
		p->tracer_line = lineno;
		return 0;
	}
	if (!strcmp(key, "buffer_kb")) {
		unsigned long v;

		errno = 0;
		v = isdigit((unsigned char)*val) ? strtoul(val, &end, 10) : 0;
		if (!isdigit((unsigned char)*val) || errno || *end || v < 1 ||
		    v > TC_PROFILE_MAX_BUFFER_KB) {
			snprintf(msg, len, "buffer_kb: '%s' is not an integer in [1, %u]", val,
				 TC_PROFILE_MAX_BUFFER_KB);
			return -EINVAL;
		}
		p->buffer_kb = v;
		return 0;
	}
	snprintf(msg, len, "unknown key '%s' (keys: summary, event, tracer, buffer_kb)", key);
	return -EINVAL;
}

static void free_profiles(struct tc_profile *ps, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		tc_profile_release(&ps[i]);
	free(ps);
}

int tc_profile_file_load(const char *path, struct tc_profile **out, int *nr,
			 char *err, size_t len)
{
	char why[128], *buf;
	size_t size;
	int ret;

	*out = NULL;
	*nr = 0;
	/* a directory or FIFO is named as such (never "read error", never a hang) */
	ret = tc_file_read(path, PROFILE_FILE_MAX_BYTES, &buf, &size, why, sizeof(why));
	if (ret) {
		snprintf(err, len, "%s: %s%s", path, why, ret == -EFBIG ? " for a profile file" : "");
		return ret;
	}
	ret = tc_profile_file_parse(buf, size, path, out, nr, err, len);
	free(buf);
	return ret;
}

int tc_profile_file_parse(const char *buf, size_t size, const char *path,
			  struct tc_profile **out, int *nr, char *err, size_t len)
{
	char line[4096], msg[384];
	const char *p, *next;
	int lineno = 0, i, ret = 0;

	*out = NULL;
	*nr = 0;
	for (p = buf; p < buf + size; p = next) {
		const char *nl = memchr(p, '\n', (size_t)(buf + size - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(buf + size - p);

		next = p + l + 1;
		lineno++;
		if (memchr(p, 0, l)) {
			snprintf(err, len, "%s:%d: a NUL byte in the line (a profile file is text)",
				 path, lineno);
			ret = -EINVAL;
			break;
		}
		if (l > sizeof(line) - 2) {
			snprintf(err, len, "%s:%d: line longer than %zu characters", path, lineno,
				 sizeof(line) - 2);
			ret = -EINVAL;
			break;
		}
		memcpy(line, p, l);
		if (nl)
			line[l++] = '\n';
		line[l] = 0;
		msg[0] = 0;
		ret = parse_line(line, out, nr, lineno, path, msg, sizeof(msg));
		if (ret) {
			snprintf(err, len, "%s:%d: %s", path, lineno,
				 msg[0] ? msg : strerror(-ret));
			break;
		}
	}
	for (i = 0; !ret && i < *nr; i++) {
		if (!(*out)[i].nr_events && !(*out)[i].tracer[0]) {
			snprintf(err, len, "%s:%d: profile '%s' enables nothing (no event, no tracer)",
				 path, (*out)[i].line, (*out)[i].name);
			ret = -EINVAL;
		}
	}
	if (!ret && !*nr) {
		snprintf(err, len, "%s: no profile defined (expected a '[name]' section)", path);
		ret = -EINVAL;
	}
	if (ret) {
		free_profiles(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return ret;
}

