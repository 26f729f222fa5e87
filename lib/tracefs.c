// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tracefs.c - the tracefs session (see tracecost/tracefs.h): the mount,
 * profile checks against the running kernel, the private instance, applying
 * a profile and counting its events. libtracefs does the tracefs work,
 * libtraceevent parses event formats and buffers.
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

#include "tracefs_local.h"

int tcfs_err(struct tc_tracefs *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return err;
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
		return tcfs_err(t, -ENODEV, "tracefs is not mounted and %s does not exist",
			       MOUNT_POINT);
	if (unshare(CLONE_NEWNS))
		return tcfs_err(t, -errno, "tracefs is not mounted, and a private mount "
			       "namespace to mount it in was refused: %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return tcfs_err(t, -errno, "making mounts private failed: %s", strerror(errno));
	if (mount("nodev", MOUNT_POINT, "tracefs", 0, NULL))
		return tcfs_err(t, errno == ENODEV ? -ENODEV : -errno,
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
		tcfs_err(t, err, "%s: %s", t->dir, strerror(errno));
		*tp = t;
		return err;
	}
	if (tracefs_set_tracing_dir(t->dir)) {
		*tp = t;
		return tcfs_err(t, -ENOMEM, "tracefs_set_tracing_dir failed");
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
		snprintf(buf, len, "%s (column %d)", tcfs_trim(tmp), col);
	else
		snprintf(buf, len, "%s", tcfs_trim(tmp));
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
			ret = tcfs_err(t, -EINVAL, "%s:%d: cannot read the format of %s:%s",
				      p->file, e->line, e->system, e->name);
		} else if (tracefs_filter_string_verify(ev, e->filter, &msg)) {
			filter_error(msg, line, sizeof(line));
			ret = tcfs_err(t, -EINVAL, "%s:%d: bad filter for %s:%s '%s': %s",
				      p->file, e->line, e->system, e->name, e->filter, line);
		}
		free(msg);
		if (tep)
			tep_free(tep);
	}
	return ret;
}

/*
 * libtracefs's tracefs_tracers() leaves "nop" out of the list it returns
 * (and so tracefs_tracer_available() says no for it), while the kernel
 * registers nop first and lists it in every available_tracers.
 */
static bool tracer_available(struct tc_tracefs *t, const char *name)
{
	return !strcmp(name, "nop") || tracefs_tracer_available(t->dir, name);
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
				return tcfs_err(t, -EINVAL, "%s:%d: unknown event system '%s' (no "
					       "events/%s in %s)", p->file, e->line, e->system,
					       e->system, t->dir);
		} else if (!event_exists(e->system, e->name)) {
			return tcfs_err(t, -EINVAL, "%s:%d: unknown event '%s:%s' (no events/%s/%s "
				       "in %s)", p->file, e->line, e->system, e->name,
				       e->system, e->name, t->dir);
		}
	}
	err = expand_stars(t, p, missing, sizeof(missing));
	if (err == -ENOSPC)
		return tcfs_err(t, -EINVAL, "%s:%d: profile '%s' has more than %d events",
			       p->file, p->line, p->name, TC_PROFILE_MAX_EVENTS);
	if (err)
		return tcfs_err(t, err == -ENOENT ? -EINVAL : err, "%s:%d: %s: %s", p->file,
			       p->line, missing, strerror(-err));
	err = check_filters(t, p);
	if (err)
		return err;
	if (p->tracer[0] && !tracer_available(t, p->tracer))
		return tcfs_err(t, -EINVAL, "%s:%d: tracer '%s' is not in %s/available_tracers",
			       p->file, p->tracer_line, p->tracer, t->dir);
	p->available = true;
	return 0;
}

static int check_builtin(struct tc_tracefs *t, struct tc_profile *p)
{
	const struct tcfs_builtin *b = tcfs_builtin_find(p->name);
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
		tcfs_profile_clear_events(p);
		err = tcfs_profile_add_event_list(p, p->fallback);
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
		tcfs_profile_clear_events(p);
		p->available = false;
		snprintf(p->reason, sizeof(p->reason), "no event %.80s in this kernel (needs %.90s)",
			 missing, b && b->needs ? b->needs : "it");
		return 0;
	}
	if (err)
		return tcfs_err(t, err, "profile %s: %s", p->name, strerror(-err));
	if (p->tracer[0] && !tracer_available(t, p->tracer)) {
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
	return tcfs_err(t, errno ? -errno : -EIO, "removing instance %s: %s",
		       tracefs_instance_get_name(in), strerror(errno ? errno : EIO));
}

int tcfs_instance_remove_by_name(struct tc_tracefs *t, const char *name, bool *removed)
{
	struct tracefs_instance *in;
	int err;

	*removed = false;
	if (!tracefs_instance_exists(name))
		return 0;
	in = tracefs_instance_alloc(t->dir, name);
	if (!in)
		return tcfs_err(t, -ENOMEM, "instance %s: out of memory", name);
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
		return t->begun ? tcfs_instance_remove_by_name(t, t->iname, &removed) : 0;
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
		return tcfs_err(t, -ENOENT, "no profile applied");
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
			return tcfs_err(t, -ENOMEM, "out of memory");
		memcpy(sorted, pids, sizeof(*sorted) * (size_t)nr);
		qsort(sorted, (size_t)nr, sizeof(*sorted), cmp_pid);
		ctx.pids = sorted;
		ctx.nr = nr;
	}
	tep = count_tep(t);
	if (!tep) {
		free(sorted);
		return tcfs_err(t, -EIO, "cannot read the event formats in %s", t->dir);
	}
	if (tracefs_iterate_raw_events(tep, t->inst, NULL, 0, count_cb, &ctx)) {
		free(sorted);
		return tcfs_err(t, -EIO, "reading the buffer of instance %s failed", t->iname);
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
		tcfs_err(t, err, "%s: %s", what, tcfs_trim(nl ? nl + 1 : last));
	} else {
		tcfs_err(t, err, "%s: %s", what, strerror(-err));
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
		return tcfs_err(t, -EINVAL, "apply %s: the state was not recorded "
			       "(tc_tracefs_begin)", p->name);
	in = tracefs_instance_create(t->iname);
	if (!in)
		return tcfs_err(t, errno ? -errno : -EIO, "creating instance %s: %s", t->iname,
			       strerror(errno ? errno : EIO));
	t->inst = in;
	if (!tracefs_instance_is_new(in)) {
		/* left over from a killed child of this run: start afresh */
		err = tc_tracefs_unapply(t);
		if (err)
			return err;
		in = tracefs_instance_create(t->iname);
		if (!in)
			return tcfs_err(t, errno ? -errno : -EIO, "creating instance %s: %s",
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

