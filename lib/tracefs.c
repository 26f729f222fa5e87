// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tracefs.c - tracing profiles in a private tracefs instance, the state
 * file and the restore (see tracecost/tracefs.h). libtracefs does the tracefs
 * work, libtraceevent parses event formats and buffers, jansson the state.
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

#include <tracecost/tracefs.h>

#ifndef TC_VERSION
#define TC_VERSION "unknown"
#endif

#define STATE_VERSION		1
#define MOUNT_POINT		"/sys/kernel/tracing"
#define LOCK_WAIT_MS		10000
#define KILL_AFTER_S		10

struct tc_tracefs {
	char dir[PATH_MAX];
	bool private_mount;
	char state_dir[PATH_MAX];
	char state_path[PATH_MAX + 16];
	char lock_path[PATH_MAX + 16];
	int lock_fd;
	bool begun;
	pid_t owner;
	char iname[64];
	struct tracefs_instance *inst;
	struct tep_handle *tep;		/* formats for counting, for @tep_key */
	char tep_key[512];
	char err[512];
};

static int set_err(struct tc_tracefs *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct tc_tracefs *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return err;
}

/* ---- profiles --------------------------------------------------------- */

static const struct builtin {
	const char *name;
	const char *summary;
	const char *events;
	const char *fallback;
	const char *fallback_summary;
	const char *tracer;
	const char *needs;
} builtins[] = {
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

static const struct builtin *builtin_find(const char *name)
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

static void clear_events(struct tc_profile *p)
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
	clear_events(p);
}

/* Add the space-separated "system:name" list @list to @p. */
static int add_event_list(struct tc_profile *p, const char *list)
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
	const struct builtin *b = builtin_find(name);

	memset(p, 0, sizeof(*p));
	if (!b)
		return -ENOENT;
	snprintf(p->name, sizeof(p->name), "%s", b->name);
	snprintf(p->summary, sizeof(p->summary), "%s", b->summary);
	snprintf(p->tracer, sizeof(p->tracer), "%s", b->tracer);
	p->builtin = true;
	p->fallback = b->fallback;
	p->available = true;
	return add_event_list(p, b->events);
}

/* ---- profile files ---------------------------------------------------- */

static char *trim(char *s)
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
		sp = trim(sp);
		if (strncmp(sp, "if", 2) || (sp[2] && !isspace((unsigned char)sp[2]))) {
			snprintf(msg, len, "expected 'if FILTER' after the event name, found '%s'", sp);
			return -EINVAL;
		}
		filter = trim(sp + 2);
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
	char *s = trim(line), *eq, *key, *val, *end;
	int i;

	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		struct tc_profile *np;

		end = strchr(s, ']');
		if (!end || trim(end + 1)[0]) {
			snprintf(msg, len, "expected '[name]'");
			return -EINVAL;
		}
		*end = 0;
		s = trim(s + 1);
		if (!valid_profile_name(s)) {
			snprintf(msg, len, "bad profile name '%s': 1-%d characters of A-Z a-z 0-9 "
				 "_ . + -", s, TC_PROFILE_NAME_MAX - 1);
			return -EINVAL;
		}
		if (builtin_find(s)) {
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
	key = trim(s);
	val = trim(eq + 1);
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
	char line[4096], msg[384];
	int lineno = 0, i, ret = 0;
	FILE *f;

	*out = NULL;
	*nr = 0;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, len, "%s:%d: line longer than %zu characters", path, lineno,
				 sizeof(line) - 2);
			ret = -EINVAL;
			break;
		}
		msg[0] = 0;
		ret = parse_line(line, out, nr, lineno, path, msg, sizeof(msg));
		if (ret) {
			snprintf(err, len, "%s:%d: %s", path, lineno,
				 msg[0] ? msg : strerror(-ret));
			break;
		}
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		snprintf(err, len, "%s: read error", path);
	}
	fclose(f);
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

/* ---- session ---------------------------------------------------------- */

/*
 * The private mount is the process's: sessions opened after it reuse it,
 * and the last one closed unmounts it (the namespace would drop it anyway
 * when the process ends).
 */
static int private_refs;
static pid_t private_pid;

static int mount_private(struct tc_tracefs *t)
{
	struct stat st;

	if (stat(MOUNT_POINT, &st) || !S_ISDIR(st.st_mode))
		return set_err(t, -ENODEV, "tracefs is not mounted and %s does not exist",
			       MOUNT_POINT);
	if (unshare(CLONE_NEWNS))
		return set_err(t, -errno, "tracefs is not mounted, and a private mount "
			       "namespace to mount it in was refused: %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return set_err(t, -errno, "making mounts private failed: %s", strerror(errno));
	if (mount("nodev", MOUNT_POINT, "tracefs", 0, NULL))
		return set_err(t, errno == ENODEV ? -ENODEV : -errno,
			       "mounting tracefs on %s failed: %s", MOUNT_POINT, strerror(errno));
	snprintf(t->dir, sizeof(t->dir), "%s", MOUNT_POINT);
	t->private_mount = true;
	private_refs = 1;
	private_pid = getpid();
	return 0;
}

/*
 * The first tracefs mount of this mount namespace. (Not
 * tracefs_tracing_dir_is_mounted(): libtracefs 1.6 leaks the path it
 * returns.)
 */
static bool find_mount(char *dir, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool found = false;

	if (!f)
		return false;
	while (!found && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "tracefs") && strlen(m->mnt_dir) < len) {
			snprintf(dir, len, "%s", m->mnt_dir);
			found = true;
		}
	endmntent(f);
	return found;
}

int tc_tracefs_open(struct tc_tracefs **tp, const char *state_dir)
{
	struct tc_tracefs *t = calloc(1, sizeof(*t));
	int err;

	*tp = NULL;
	if (!t)
		return -ENOMEM;
	t->lock_fd = -1;
	t->owner = getpid();
	snprintf(t->state_dir, sizeof(t->state_dir), "%s", state_dir ? state_dir :
		 TC_TRACEFS_STATE_DIR);
	snprintf(t->state_path, sizeof(t->state_path), "%s/state", t->state_dir);
	snprintf(t->lock_path, sizeof(t->lock_path), "%s/lock", t->state_dir);
	snprintf(t->iname, sizeof(t->iname), "tracecost-%ld", (long)t->owner);
	tracefs_set_loglevel(TEP_LOG_NONE);
	if (private_refs > 0 && private_pid == getpid()) {
		snprintf(t->dir, sizeof(t->dir), "%s", MOUNT_POINT);
		t->private_mount = true;
		private_refs++;
	} else if (find_mount(t->dir, sizeof(t->dir))) {
		/* mounted: use it */
	} else {
		err = mount_private(t);
		if (err) {
			*tp = t;	/* for tc_tracefs_error(); caller closes */
			return err;
		}
	}
	if (access(t->dir, R_OK | W_OK | X_OK)) {
		err = -errno;
		set_err(t, err, "%s: %s", t->dir, strerror(errno));
		*tp = t;
		return err;
	}
	if (tracefs_set_tracing_dir(t->dir)) {
		*tp = t;
		return set_err(t, -ENOMEM, "tracefs_set_tracing_dir failed");
	}
	*tp = t;
	return 0;
}

void tc_tracefs_close(struct tc_tracefs *t)
{
	if (!t)
		return;
	if (t->inst)
		tracefs_instance_free(t->inst);
	if (t->tep)
		tep_free(t->tep);
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	if (t->private_mount && private_pid == getpid() && --private_refs == 0)
		umount2(t->dir, MNT_DETACH);
	free(t);
}

const char *tc_tracefs_dir(const struct tc_tracefs *t)
{
	return t->dir;
}

bool tc_tracefs_mounted_privately(const struct tc_tracefs *t)
{
	return t->private_mount;
}

const char *tc_tracefs_state_path(const struct tc_tracefs *t)
{
	return t->state_path;
}

const char *tc_tracefs_instance_name(const struct tc_tracefs *t)
{
	return t->iname;
}

const char *tc_tracefs_error(const struct tc_tracefs *t)
{
	return t ? t->err : "";
}

/* ---- checking profiles -------------------------------------------------- */

static bool event_exists(const char *system, const char *name)
{
	return tracefs_event_file_exists(NULL, system, name, "enable");
}

/* Replace "system:*" entries by the system's events. */
static int expand_stars(struct tc_tracefs *t, struct tc_profile *p, char *missing, size_t len)
{
	struct tc_trace_event ev[TC_PROFILE_MAX_EVENTS];
	int n = p->nr_events, i, j, err = 0;

	memcpy(ev, p->events, sizeof(ev[0]) * (size_t)n);
	p->nr_events = 0;
	for (i = 0; i < n; i++) {
		char **list;

		if (err) {
			free(ev[i].filter);
			continue;
		}
		if (strcmp(ev[i].name, "*")) {
			p->events[p->nr_events++] = ev[i];
			continue;
		}
		list = tracefs_system_events(t->dir, ev[i].system);
		if (!list || !list[0]) {
			snprintf(missing, len, "%.63s:*", ev[i].system);
			err = -ENOENT;
		}
		for (j = 0; !err && list && list[j]; j++) {
			err = tc_profile_add_event(p, ev[i].system, list[j], ev[i].filter);
			if (!err)
				p->events[p->nr_events - 1].line = ev[i].line;
			if (err == -EINVAL)	/* a name we cannot hold: skip it */
				err = 0;
		}
		tracefs_list_free(list);
		free(ev[i].filter);
	}
	return err;
}

/* The line of the filter error: libtracefs gives "filter\n   ^\nmessage\n". */
static void filter_error(const char *e, char *buf, size_t len)
{
	const char *caret = e ? strchr(e, '^') : NULL, *line, *nl;
	int col = 0;
	char tmp[256];

	if (!e || !*e) {
		snprintf(buf, len, "rejected");
		return;
	}
	if (caret) {
		const char *bol = caret;

		while (bol > e && bol[-1] != '\n')
			bol--;
		col = (int)(caret - bol) + 1;
		line = strchr(caret, '\n');
		line = line ? line + 1 : caret;
	} else {
		line = e;
	}
	nl = strchr(line, '\n');
	snprintf(tmp, sizeof(tmp), "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
	if (col)
		snprintf(buf, len, "%s (column %d)", trim(tmp), col);
	else
		snprintf(buf, len, "%s", trim(tmp));
}

static int check_filters(struct tc_tracefs *t, struct tc_profile *p)
{
	const char *systems[2] = { NULL, NULL };
	int i, ret = 0;

	for (i = 0; i < p->nr_events && !ret; i++) {
		struct tc_trace_event *e = &p->events[i];
		struct tep_handle *tep;
		struct tep_event *ev;
		char *msg = NULL, line[256];

		if (!e->filter)
			continue;
		systems[0] = e->system;
		tep = tracefs_local_events_system(t->dir, systems);
		ev = tep ? tep_find_event_by_name(tep, e->system, e->name) : NULL;
		if (!ev) {
			ret = set_err(t, -EINVAL, "%s:%d: cannot read the format of %s:%s",
				      p->file, e->line, e->system, e->name);
		} else if (tracefs_filter_string_verify(ev, e->filter, &msg)) {
			filter_error(msg, line, sizeof(line));
			ret = set_err(t, -EINVAL, "%s:%d: bad filter for %s:%s '%s': %s",
				      p->file, e->line, e->system, e->name, e->filter, line);
		}
		free(msg);
		if (tep)
			tep_free(tep);
	}
	return ret;
}

static int check_file_profile(struct tc_tracefs *t, struct tc_profile *p)
{
	char missing[160];
	int i, err;

	for (i = 0; i < p->nr_events; i++) {
		const struct tc_trace_event *e = &p->events[i];

		if (!strcmp(e->name, "*")) {
			char **l = tracefs_system_events(t->dir, e->system);
			bool ok = l && l[0];

			tracefs_list_free(l);
			if (!ok)
				return set_err(t, -EINVAL, "%s:%d: unknown event system '%s' (no "
					       "events/%s in %s)", p->file, e->line, e->system,
					       e->system, t->dir);
		} else if (!event_exists(e->system, e->name)) {
			return set_err(t, -EINVAL, "%s:%d: unknown event '%s:%s' (no events/%s/%s "
				       "in %s)", p->file, e->line, e->system, e->name,
				       e->system, e->name, t->dir);
		}
	}
	err = expand_stars(t, p, missing, sizeof(missing));
	if (err == -ENOSPC)
		return set_err(t, -EINVAL, "%s:%d: profile '%s' has more than %d events",
			       p->file, p->line, p->name, TC_PROFILE_MAX_EVENTS);
	if (err)
		return set_err(t, err == -ENOENT ? -EINVAL : err, "%s:%d: %s: %s", p->file,
			       p->line, missing, strerror(-err));
	err = check_filters(t, p);
	if (err)
		return err;
	if (p->tracer[0] && !tracefs_tracer_available(t->dir, p->tracer))
		return set_err(t, -EINVAL, "%s:%d: tracer '%s' is not in %s/available_tracers",
			       p->file, p->tracer_line, p->tracer, t->dir);
	p->available = true;
	return 0;
}

static int check_builtin(struct tc_tracefs *t, struct tc_profile *p)
{
	const struct builtin *b = builtin_find(p->name);
	char missing[160] = "";
	int i, err;

	p->available = true;
	p->reason[0] = 0;
	err = expand_stars(t, p, missing, sizeof(missing));
	for (i = 0; !err && i < p->nr_events; i++) {
		if (!event_exists(p->events[i].system, p->events[i].name)) {
			snprintf(missing, sizeof(missing), "%.63s:%.63s", p->events[i].system,
				 p->events[i].name);
			err = -ENOENT;
		}
	}
	if (err == -ENOENT && p->fallback) {
		char fb[160];

		snprintf(fb, sizeof(fb), "%s", missing);
		clear_events(p);
		err = add_event_list(p, p->fallback);
		for (i = 0; !err && i < p->nr_events; i++) {
			if (!event_exists(p->events[i].system, p->events[i].name)) {
				/* keep the ones this kernel has */
				free(p->events[i].filter);
				memmove(&p->events[i], &p->events[i + 1],
					sizeof(p->events[0]) * (size_t)(p->nr_events - i - 1));
				p->nr_events--;
				i--;
			}
		}
		if (!err && !p->nr_events) {
			snprintf(missing, sizeof(missing), "%.70s, nor %.70s", fb, p->fallback);
			err = -ENOENT;
		} else if (!err && b && b->fallback_summary) {
			snprintf(p->summary, sizeof(p->summary), "%s", b->fallback_summary);
		}
	}
	if (err == -ENOENT) {
		clear_events(p);
		p->available = false;
		snprintf(p->reason, sizeof(p->reason), "no event %.80s in this kernel (needs %.90s)",
			 missing, b && b->needs ? b->needs : "it");
		return 0;
	}
	if (err)
		return set_err(t, err, "profile %s: %s", p->name, strerror(-err));
	if (p->tracer[0] && !tracefs_tracer_available(t->dir, p->tracer)) {
		p->available = false;
		snprintf(p->reason, sizeof(p->reason), "tracer '%s' is not in available_tracers "
			 "(needs %s)", p->tracer, b && b->needs ? b->needs : "it");
	}
	return 0;
}

int tc_profile_check(struct tc_tracefs *t, struct tc_profile *p)
{
	t->err[0] = 0;
	return p->builtin ? check_builtin(t, p) : check_file_profile(t, p);
}

/* ---- state file ------------------------------------------------------- */

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int state_write(struct tc_tracefs *t, json_t *st)
{
	char tmp[PATH_MAX + 32], *s;
	int fd, err;

	s = json_dumps(st, JSON_INDENT(1));
	if (!s)
		return set_err(t, -ENOMEM, "cannot encode the state");
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", t->state_path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		free(s);
		return set_err(t, err, "%s: %s", tmp, strerror(-err));
	}
	err = write_all(fd, s, strlen(s));
	if (!err)
		err = write_all(fd, "\n", 1);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	free(s);
	if (!err && rename(tmp, t->state_path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return set_err(t, err, "writing %s: %s", t->state_path, strerror(-err));
	}
	return 0;
}

/* Return: the state object, NULL with *err = -ENOENT when absent. */
static json_t *state_read(const char *path, int *err, char *msg, size_t len)
{
	json_error_t je;
	json_t *st;

	*err = 0;
	if (access(path, F_OK)) {
		*err = -errno;
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	st = json_load_file(path, 0, &je);
	if (!st || !json_is_object(st) ||
	    json_integer_value(json_object_get(st, "version")) != STATE_VERSION ||
	    !json_is_array(json_object_get(st, "instances")) ||
	    !json_is_array(json_object_get(st, "files"))) {
		snprintf(msg, len, "%s: not a tracecost state file (version %d)%s%s", path,
			 STATE_VERSION, st ? "" : ": ", st ? "" : je.text);
		json_decref(st);
		*err = -EINVAL;
		return NULL;
	}
	return st;
}

static long state_pid(const char *path)
{
	char msg[64];
	json_t *st;
	long pid;
	int err;

	st = state_read(path, &err, msg, sizeof(msg));
	if (!st)
		return 0;
	pid = (long)json_integer_value(json_object_get(st, "pid"));
	json_decref(st);
	return pid;
}

static int lock_take(struct tc_tracefs *t, int wait_ms)
{
	int fd, waited = 0;

	if (mkdir(t->state_dir, 0755) && errno != EEXIST)
		return set_err(t, -errno, "%s: %s", t->state_dir, strerror(errno));
	fd = open(t->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return set_err(t, -errno, "%s: %s", t->lock_path, strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = -errno;

			close(fd);
			return set_err(t, err, "flock %s: %s", t->lock_path, strerror(-err));
		}
		if (waited >= wait_ms) {
			long pid = state_pid(t->state_path);

			close(fd);
			if (pid)
				return set_err(t, -EBUSY, "another tracecost run (pid %ld) holds %s",
					       pid, t->lock_path);
			return set_err(t, -EBUSY, "another tracecost run holds %s", t->lock_path);
		}
		usleep(100000);
		waited += 100;
	}
	t->lock_fd = fd;
	return 0;
}

static void lock_release(struct tc_tracefs *t)
{
	if (t->lock_fd >= 0) {
		flock(t->lock_fd, LOCK_UN);
		close(t->lock_fd);
	}
	t->lock_fd = -1;
}

int tc_tracefs_begin(struct tc_tracefs *t)
{
	json_t *st;
	int err;

	t->err[0] = 0;
	if (t->begun)
		return 0;
	err = lock_take(t, 0);
	if (err)
		return err;
	if (!access(t->state_path, F_OK)) {
		long pid = state_pid(t->state_path);

		lock_release(t);
		return set_err(t, -ESTALE, "state file %s from an interrupted run (pid %ld) is "
			       "still there", t->state_path, pid);
	}
	st = json_pack("{s:i, s:s, s:I, s:I, s:s, s:s, s:[s], s:[], s:s}",
		       "version", STATE_VERSION, "tool", "tracecost " TC_VERSION,
		       "pid", (json_int_t)t->owner, "start", (json_int_t)time(NULL),
		       "tracing_dir", t->dir,
		       "mount", t->private_mount ? "private namespace (nothing to unmount)" :
						   "existing",
		       "instances", t->iname, "files",
		       "note", "buffer contents are not restored");
	if (!st) {
		lock_release(t);
		return set_err(t, -ENOMEM, "cannot build the state");
	}
	err = state_write(t, st);
	json_decref(st);
	if (err) {
		lock_release(t);
		return err;
	}
	t->begun = true;
	return 0;
}

static bool bad_relpath(const char *p)
{
	return !*p || *p == '/' || strstr(p, "..");
}

int tc_tracefs_record_file(struct tc_tracefs *t, const char *path)
{
	char msg[256], *content;
	json_t *st, *files, *e;
	size_t i;
	int err, size = 0;

	t->err[0] = 0;
	if (!t->begun || bad_relpath(path))
		return set_err(t, -EINVAL, "record %s: bad path or no session", path);
	st = state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st)
		return set_err(t, err, "%s", msg);
	files = json_object_get(st, "files");
	json_array_foreach(files, i, e) {
		if (!strcmp(json_string_value(json_object_get(e, "path")) ?: "", path)) {
			json_decref(st);
			return 0;
		}
	}
	content = tracefs_instance_file_read(NULL, path, &size);
	if (!content) {
		err = errno ? -errno : -EIO;
		json_decref(st);
		return set_err(t, err, "reading %s/%s: %s", t->dir, path, strerror(-err));
	}
	json_array_append_new(files, json_pack("{s:s, s:s%}", "path", path, "content",
					       content, (size_t)size));
	free(content);
	err = state_write(t, st);
	json_decref(st);
	return err;
}

/* ---- instances ------------------------------------------------------ */

/* Tracing off, tracer nop, events off, rmdir (retried while busy). */
static int instance_remove(struct tc_tracefs *t, struct tracefs_instance *in)
{
	int tries;

	tracefs_trace_off(in);
	tracefs_instance_file_write(in, "current_tracer", "nop");
	tracefs_instance_file_clear(in, "set_event");
	for (tries = 0; tries < 50; tries++) {
		if (!tracefs_instance_destroy(in))
			return 0;
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	return set_err(t, errno ? -errno : -EIO, "removing instance %s: %s",
		       tracefs_instance_get_name(in), strerror(errno ? errno : EIO));
}

static int remove_by_name(struct tc_tracefs *t, const char *name, bool *removed)
{
	struct tracefs_instance *in;
	int err;

	*removed = false;
	if (!tracefs_instance_exists(name))
		return 0;
	in = tracefs_instance_alloc(t->dir, name);
	if (!in)
		return set_err(t, -ENOMEM, "instance %s: out of memory", name);
	err = instance_remove(t, in);
	tracefs_instance_free(in);
	*removed = !err;
	return err;
}

int tc_tracefs_unapply(struct tc_tracefs *t)
{
	int err;

	t->err[0] = 0;
	if (!t->inst) {
		bool removed;

		/* also an instance of ours left by a killed child */
		return t->begun ? remove_by_name(t, t->iname, &removed) : 0;
	}
	err = instance_remove(t, t->inst);
	tracefs_instance_free(t->inst);
	t->inst = NULL;
	return err;
}

/* ---- counting --------------------------------------------------------- */

struct count_ctx {
	const pid_t *pids;	/* sorted */
	int nr;
	uint64_t seen, matched;
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int count_cb(struct tep_event *ev, struct tep_record *rec, int cpu, void *arg)
{
	struct count_ctx *c = arg;
	unsigned long long pid;
	pid_t p;

	c->seen++;
	if (!c->nr || tep_get_common_field_val(NULL, ev, "common_pid", rec, &pid, 0))
		return 0;
	p = (pid_t)pid;
	if (bsearch(&p, c->pids, (size_t)c->nr, sizeof(p), cmp_pid))
		c->matched++;
	return 0;
}

static uint64_t stat_field(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Formats of the systems the applied profile records (ftrace for tracers). */
static struct tep_handle *count_tep(struct tc_tracefs *t)
{
	const char *systems[TC_PROFILE_MAX_EVENTS + 2];
	char key[sizeof(t->tep_key)], *tok, *save;
	int n = 0;

	if (t->tep)
		return t->tep;
	snprintf(key, sizeof(key), "%s", t->tep_key);
	for (tok = strtok_r(key, ",", &save); tok && n <= TC_PROFILE_MAX_EVENTS;
	     tok = strtok_r(NULL, ",", &save))
		systems[n++] = tok;
	systems[n] = NULL;
	t->tep = tracefs_local_events_system(t->dir, systems);
	return t->tep;
}

/* Remember the systems of @p for count_tep(); drop the old formats if they differ. */
static void count_key(struct tc_tracefs *t, const struct tc_profile *p)
{
	char key[sizeof(t->tep_key)] = "ftrace";
	int i, j;

	for (i = 0; i < p->nr_events; i++) {
		const char *sys = p->events[i].system;

		for (j = 0; j < i && strcmp(p->events[j].system, sys); j++)
			;
		if (j < i || !strcmp(sys, "ftrace"))
			continue;
		if (strlen(key) + strlen(sys) + 2 < sizeof(key)) {
			strcat(key, ",");
			strcat(key, sys);
		}
	}
	if (strcmp(key, t->tep_key)) {
		if (t->tep)
			tep_free(t->tep);
		t->tep = NULL;
		snprintf(t->tep_key, sizeof(t->tep_key), "%s", key);
	}
}

int tc_tracefs_count(struct tc_tracefs *t, const pid_t *pids, int nr,
		     struct tc_trace_counts *c)
{
	struct count_ctx ctx = { .nr = 0 };
	long cpus = sysconf(_SC_NPROCESSORS_CONF), cpu;
	struct tep_handle *tep;
	pid_t *sorted = NULL;

	memset(c, 0, sizeof(*c));
	t->err[0] = 0;
	if (!t->inst)
		return set_err(t, -ENOENT, "no profile applied");
	tracefs_trace_off(t->inst);
	for (cpu = 0; cpu < cpus; cpu++) {
		char file[64], *s;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		s = tracefs_instance_file_read(t->inst, file, NULL);
		if (!s)
			continue;
		c->written += stat_field(s, "entries:") + stat_field(s, "\noverrun:") +
			      stat_field(s, "dropped events:");
		c->lost += stat_field(s, "\noverrun:") + stat_field(s, "dropped events:");
		free(s);
	}
	if (nr > 0) {
		sorted = malloc(sizeof(*sorted) * (size_t)nr);
		if (!sorted)
			return set_err(t, -ENOMEM, "out of memory");
		memcpy(sorted, pids, sizeof(*sorted) * (size_t)nr);
		qsort(sorted, (size_t)nr, sizeof(*sorted), cmp_pid);
		ctx.pids = sorted;
		ctx.nr = nr;
	}
	tep = count_tep(t);
	if (!tep) {
		free(sorted);
		return set_err(t, -EIO, "cannot read the event formats in %s", t->dir);
	}
	if (tracefs_iterate_raw_events(tep, t->inst, NULL, 0, count_cb, &ctx)) {
		free(sorted);
		return set_err(t, -EIO, "reading the buffer of instance %s failed", t->iname);
	}
	free(sorted);
	c->in_buffer = ctx.seen;
	c->matched = ctx.matched;
	return 0;
}

static int kernel_error(struct tc_tracefs *t, int err, const char *what)
{
	char *last = tracefs_error_last(t->inst);

	if (last && *last) {
		char *nl;

		/* "[ ts] event filter parse error: error: Field not found\n  Command: ..." */
		nl = strchr(last, '\n');
		if (nl)
			*nl = 0;
		nl = strchr(last, ']');
		set_err(t, err, "%s: %s", what, trim(nl ? nl + 1 : last));
	} else {
		set_err(t, err, "%s: %s", what, strerror(-err));
	}
	free(last);
	return err;
}

int tc_tracefs_apply(struct tc_tracefs *t, const struct tc_profile *p)
{
	struct tracefs_instance *in;
	char what[256];
	int i, err;

	err = tc_tracefs_unapply(t);
	if (err)
		return err;
	if (!t->begun)
		return set_err(t, -EINVAL, "apply %s: the state was not recorded "
			       "(tc_tracefs_begin)", p->name);
	in = tracefs_instance_create(t->iname);
	if (!in)
		return set_err(t, errno ? -errno : -EIO, "creating instance %s: %s", t->iname,
			       strerror(errno ? errno : EIO));
	t->inst = in;
	if (!tracefs_instance_is_new(in)) {
		/* left over from a killed child of this run: start afresh */
		err = tc_tracefs_unapply(t);
		if (err)
			return err;
		in = tracefs_instance_create(t->iname);
		if (!in)
			return set_err(t, errno ? -errno : -EIO, "creating instance %s: %s",
				       t->iname, strerror(errno ? errno : EIO));
		t->inst = in;
	}
	tracefs_error_clear(in);
	if (tracefs_trace_off(in)) {
		err = kernel_error(t, errno ? -errno : -EIO, "tracing_on");
		goto fail;
	}
	if (p->buffer_kb && tracefs_instance_set_buffer_size(in, p->buffer_kb, -1)) {
		snprintf(what, sizeof(what), "buffer_size_kb %lu", p->buffer_kb);
		err = kernel_error(t, errno ? -errno : -ENOMEM, what);
		goto fail;
	}
	for (i = 0; i < p->nr_events; i++) {
		const struct tc_trace_event *e = &p->events[i];

		if (e->filter &&
		    tracefs_event_file_write(in, e->system, e->name, "filter", e->filter) < 0) {
			snprintf(what, sizeof(what), "filter of %s:%s '%s'", e->system, e->name,
				 e->filter);
			err = kernel_error(t, errno ? -errno : -EINVAL, what);
			goto fail;
		}
		if (tracefs_event_file_write(in, e->system, e->name, "enable", "1") < 0) {
			snprintf(what, sizeof(what), "enabling %s:%s", e->system, e->name);
			err = kernel_error(t, errno ? -errno : -EIO, what);
			goto fail;
		}
	}
	if (p->tracer[0] && tracefs_instance_file_write(in, "current_tracer", p->tracer) < 0) {
		snprintf(what, sizeof(what), "the kernel refused tracer '%s' in an instance",
			 p->tracer);
		err = kernel_error(t, errno ? -errno : -EIO, what);
		goto fail;
	}
	if (tracefs_trace_on(in)) {
		err = kernel_error(t, errno ? -errno : -EIO, "tracing_on");
		goto fail;
	}
	count_key(t, p);
	return 0;
fail:
	{
		char keep[sizeof(t->err)];

		memcpy(keep, t->err, sizeof(keep));
		tc_tracefs_unapply(t);
		memcpy(t->err, keep, sizeof(keep));
	}
	return err;
}

/* ---- restore ---------------------------------------------------------- */

/* Write @content back to the top-level file @path. */
static int file_restore(struct tc_tracefs *t, const char *path, const char *content)
{
	char full[PATH_MAX * 2], val[64];
	unsigned long a, b;
	int fd, err;

	snprintf(full, sizeof(full), "%s/%s", t->dir, path);
	/* buffer_size_kb reads "7 (expanded: 1408)" before first use */
	if (sscanf(content, "%lu (expanded: %lu)", &a, &b) == 2) {
		snprintf(val, sizeof(val), "%lu", b);
		content = val;
	}
	fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return set_err(t, -errno, "restoring %s: %s", full, strerror(errno));
	err = *content ? write_all(fd, content, strlen(content)) : 0;
	close(fd);
	if (err)
		return set_err(t, err, "restoring %s: %s", full, strerror(-err));
	return 0;
}

/* Undo what @st records. Counts what was done in @r (may be NULL). */
static int state_undo(struct tc_tracefs *t, json_t *st, struct tc_restore_report *r)
{
	json_t *inst = json_object_get(st, "instances"), *files = json_object_get(st, "files");
	size_t i;
	int ret = 0, err;

	/* our instance may be in use by this session */
	if (t->inst)
		ret = tc_tracefs_unapply(t);
	for (i = 0; i < json_array_size(inst); i++) {
		const char *name = json_string_value(json_array_get(inst, i));
		bool removed;

		if (!name || strncmp(name, "tracecost-", 10) || strchr(name, '/'))
			continue;	/* never touch an instance that is not ours */
		err = remove_by_name(t, name, &removed);
		if (err && !ret)
			ret = err;
		if (removed && r)
			r->instances++;
	}
	for (i = json_array_size(files); i-- > 0;) {
		json_t *e = json_array_get(files, i);
		const char *path = json_string_value(json_object_get(e, "path"));
		const char *content = json_string_value(json_object_get(e, "content"));

		if (!path || !content || bad_relpath(path))
			continue;
		err = file_restore(t, path, content);
		if (err && !ret)
			ret = err;
		else if (!err && r)
			r->files++;
	}
	return ret;
}

int tc_tracefs_end(struct tc_tracefs *t)
{
	char msg[256];
	json_t *st;
	int err;

	if (!t->begun)
		return 0;
	st = state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st) {
		/* the file is ours: without it, undo what we know */
		st = json_pack("{s:[s], s:[]}", "instances", t->iname, "files");
		if (!st)
			return set_err(t, -ENOMEM, "out of memory");
	}
	err = state_undo(t, st, NULL);
	json_decref(st);
	if (err)
		return err;	/* keep the state file for tracecost restore */
	if (unlink(t->state_path) && errno != ENOENT)
		return set_err(t, -errno, "removing %s: %s", t->state_path, strerror(errno));
	lock_release(t);
	t->begun = false;
	return 0;
}

static volatile sig_atomic_t sup_signal, sup_alarm;

static void sup_on_signal(int sig)
{
	if (sig == SIGALRM)
		sup_alarm = 1;
	else if (sig != SIGCHLD)
		sup_signal = sig;
}

int tc_tracefs_supervise(struct tc_tracefs *t, int (*fn)(void *arg), void *arg, int *status)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGCHLD };
	struct sigaction sa = { .sa_handler = sup_on_signal }, old[5];
	sigset_t block, orig;
	pid_t parent = getpid(), child;
	int i, st = 0, forwarded = 0, err;

	*status = 1;
	fflush(NULL);
	sup_signal = 0;
	sup_alarm = 0;
	/*
	 * Signals stay blocked except inside sigsuspend(): a signal that
	 * arrives between the checks and the wait is not lost.
	 */
	sigemptyset(&block);
	for (i = 0; i < 5; i++)
		sigaddset(&block, sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 5; i++)
		sigaction(sigs[i], &sa, &old[i]);
	child = fork();
	if (child == 0) {
		for (i = 0; i < 5; i++)
			sigaction(sigs[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(128 + SIGTERM);
		i = fn(arg);
		fflush(NULL);
		_exit(i & 0xff);
	}
	if (child < 0) {
		err = -errno;
		for (i = 0; i < 5; i++)
			sigaction(sigs[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		tc_tracefs_end(t);
		return set_err(t, err, "fork: %s", strerror(-err));
	}
	for (;;) {
		sigset_t wait_mask = orig;
		pid_t w = waitpid(child, &st, WNOHANG);

		if (w == child)
			break;
		if (w < 0 && errno != EINTR) {
			st = 1 << 8;
			break;
		}
		if (sup_alarm) {
			kill(child, SIGKILL);
			sup_alarm = 0;
		}
		if (sup_signal && !forwarded) {
			kill(child, sup_signal);
			forwarded = 1;
			alarm(KILL_AFTER_S);
		}
		for (i = 0; i < 5; i++)
			sigdelset(&wait_mask, sigs[i]);
		sigsuspend(&wait_mask);
	}
	alarm(0);
	if (WIFEXITED(st))
		*status = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		*status = 128 + WTERMSIG(st);
	/* restore with the signals still caught: a second Ctrl-C cannot cut it short */
	err = tc_tracefs_end(t);
	sigprocmask(SIG_SETMASK, &orig, NULL);	/* pending ones reach sup_on_signal */
	for (i = 0; i < 5; i++)
		sigaction(sigs[i], &old[i], NULL);
	return err;
}

int tc_tracefs_restore(const char *state_dir, struct tc_restore_report *r, char *errbuf,
		       size_t len)
{
	struct tc_tracefs *t;
	char msg[256];
	json_t *st;
	int err;

	memset(r, 0, sizeof(*r));
	errbuf[0] = 0;
	err = tc_tracefs_open(&t, state_dir);
	if (err) {
		snprintf(errbuf, len, "%s", tc_tracefs_error(t));
		tc_tracefs_close(t);
		return err;
	}
	if (access(t->state_path, F_OK)) {
		tc_tracefs_close(t);
		return 0;
	}
	err = lock_take(t, LOCK_WAIT_MS);
	if (err)
		goto out;
	st = state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st) {
		if (err == -ENOENT) {	/* the run finished while we waited */
			err = 0;
			goto out;
		}
		set_err(t, err, "%s", msg);
		goto out;
	}
	r->found = true;
	r->pid = (long)json_integer_value(json_object_get(st, "pid"));
	err = state_undo(t, st, r);
	json_decref(st);
	if (!err && unlink(t->state_path))
		err = set_err(t, -errno, "removing %s: %s", t->state_path, strerror(errno));
out:
	if (err)
		snprintf(errbuf, len, "%s", t->err);
	lock_release(t);
	tc_tracefs_close(t);
	return err;
}
