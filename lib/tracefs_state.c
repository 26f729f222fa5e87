// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tracefs_state.c - what a run changes in tracefs, recorded before it
 * changes it: the state file and its lock, restore (after a crash or
 * kill -9) and the supervisor that restores on every exit path. jansson
 * reads and writes the state.
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

#include "tracefs-local.h"

/* ---- state file ------------------------------------------------------- */

int tcfs_write_all(int fd, const char *s, size_t n)
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
		return tcfs_err(t, -ENOMEM, "cannot encode the state");
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", t->state_path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		free(s);
		return tcfs_err(t, err, "%s: %s", tmp, strerror(-err));
	}
	err = tcfs_write_all(fd, s, strlen(s));
	if (!err)
		err = tcfs_write_all(fd, "\n", 1);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	free(s);
	if (!err && rename(tmp, t->state_path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return tcfs_err(t, err, "writing %s: %s", t->state_path, strerror(-err));
	}
	return 0;
}

/* Return: the state object, NULL with *err = -ENOENT when absent. */
json_t *tcfs_state_read(const char *path, int *err, char *msg, size_t len)
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

	st = tcfs_state_read(path, &err, msg, sizeof(msg));
	if (!st)
		return 0;
	pid = (long)json_integer_value(json_object_get(st, "pid"));
	json_decref(st);
	return pid;
}

int tcfs_lock_take(struct tc_tracefs *t, int wait_ms)
{
	int fd, waited = 0;

	if (mkdir(t->state_dir, 0755) && errno != EEXIST)
		return tcfs_err(t, -errno, "%s: %s", t->state_dir, strerror(errno));
	fd = open(t->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return tcfs_err(t, -errno, "%s: %s", t->lock_path, strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = -errno;

			close(fd);
			return tcfs_err(t, err, "flock %s: %s", t->lock_path, strerror(-err));
		}
		if (waited >= wait_ms) {
			long pid = state_pid(t->state_path);

			close(fd);
			if (pid)
				return tcfs_err(t, -EBUSY, "another tracecost run (pid %ld) holds %s",
					       pid, t->lock_path);
			return tcfs_err(t, -EBUSY, "another tracecost run holds %s", t->lock_path);
		}
		usleep(100000);
		waited += 100;
	}
	t->lock_fd = fd;
	return 0;
}

void tcfs_lock_release(struct tc_tracefs *t)
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
	err = tcfs_lock_take(t, 0);
	if (err)
		return err;
	if (!access(t->state_path, F_OK)) {
		long pid = state_pid(t->state_path);

		tcfs_lock_release(t);
		return tcfs_err(t, -ESTALE, "state file %s from an interrupted run (pid %ld) is "
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
		tcfs_lock_release(t);
		return tcfs_err(t, -ENOMEM, "cannot build the state");
	}
	err = state_write(t, st);
	json_decref(st);
	if (err) {
		tcfs_lock_release(t);
		return err;
	}
	t->begun = true;
	return 0;
}

bool tcfs_bad_relpath(const char *p)
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
	if (!t->begun || tcfs_bad_relpath(path))
		return tcfs_err(t, -EINVAL, "record %s: bad path or no session", path);
	st = tcfs_state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st)
		return tcfs_err(t, err, "%s", msg);
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
		return tcfs_err(t, err, "reading %s/%s: %s", t->dir, path, strerror(-err));
	}
	json_array_append_new(files, json_pack("{s:s, s:s%}", "path", path, "content",
					       content, (size_t)size));
	free(content);
	err = state_write(t, st);
	json_decref(st);
	return err;
}

int tc_tracefs_uprobe_add(struct tc_tracefs *t, const char *group, const char *event,
			  const char *spec)
{
	char msg[PATH_MAX + 64], line[PATH_MAX + 256], name[192];
	json_t *st, *ups;
	int fd, err;

	t->err[0] = 0;
	if (!t->begun || strncmp(group, "tracecost", 9) || strchr(group, '/') ||
	    strchr(event, '/') || !*event || strchr(spec, '\n'))
		return tcfs_err(t, -EINVAL, "uprobe %s/%s: bad name or no session", group, event);
	snprintf(name, sizeof(name), "%s/%s", group, event);
	st = tcfs_state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st)
		return tcfs_err(t, err, "%s", msg);
	ups = json_object_get(st, "uprobes");
	if (!json_is_array(ups)) {
		ups = json_array();
		json_object_set_new(st, "uprobes", ups);
	}
	/* Recorded before it exists: a restore removes what may have been made. */
	json_array_append_new(ups, json_string(name));
	err = state_write(t, st);
	json_decref(st);
	if (err)
		return err;
	snprintf(line, sizeof(line), "p:%s %s\n", name, spec);
	snprintf(msg, sizeof(msg), "%s/uprobe_events", t->dir);
	fd = open(msg, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return tcfs_err(t, -errno, "%s: %s", msg, strerror(errno));
	err = tcfs_write_all(fd, line, strlen(line));
	close(fd);
	if (err)
		return tcfs_err(t, err, "defining uprobe %s (%s): %s", name, spec, strerror(-err));
	return 0;
}

/* Remove the uprobe events the state file names (ours only: group tracecost*). */
static int uprobes_remove(struct tc_tracefs *t, json_t *ups)
{
	char path[PATH_MAX + 32], line[256];
	size_t i;
	int fd, ret = 0, err;

	if (!json_array_size(ups))
		return 0;
	snprintf(path, sizeof(path), "%s/uprobe_events", t->dir);
	for (i = 0; i < json_array_size(ups); i++) {
		const char *name = json_string_value(json_array_get(ups, i));

		if (!name || strncmp(name, "tracecost", 9) || strlen(name) > 200)
			continue;
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0)
			return tcfs_err(t, -errno, "%s: %s", path, strerror(errno));
		snprintf(line, sizeof(line), "-:%s\n", name);
		err = tcfs_write_all(fd, line, strlen(line));
		close(fd);
		/* never defined, or already gone */
		if (err && err != -ENOENT && !ret)
			ret = tcfs_err(t, err, "removing uprobe %s: %s", name, strerror(-err));
	}
	return ret;
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
		return tcfs_err(t, -errno, "restoring %s: %s", full, strerror(errno));
	err = *content ? tcfs_write_all(fd, content, strlen(content)) : 0;
	close(fd);
	if (err)
		return tcfs_err(t, err, "restoring %s: %s", full, strerror(-err));
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
		err = tcfs_instance_remove_by_name(t, name, &removed);
		if (err && !ret)
			ret = err;
		if (removed && r)
			r->instances++;
	}
	/* after the instances: an event enabled in one cannot be removed */
	err = uprobes_remove(t, json_object_get(st, "uprobes"));
	if (err && !ret)
		ret = err;
	for (i = json_array_size(files); i-- > 0;) {
		json_t *e = json_array_get(files, i);
		const char *path = json_string_value(json_object_get(e, "path"));
		const char *content = json_string_value(json_object_get(e, "content"));

		if (!path || !content || tcfs_bad_relpath(path))
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
	st = tcfs_state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st) {
		/* the file is ours: without it, undo what we know */
		st = json_pack("{s:[s], s:[]}", "instances", t->iname, "files");
		if (!st)
			return tcfs_err(t, -ENOMEM, "out of memory");
	}
	err = state_undo(t, st, NULL);
	json_decref(st);
	if (err)
		return err;	/* keep the state file for tracecost restore */
	if (unlink(t->state_path) && errno != ENOENT)
		return tcfs_err(t, -errno, "removing %s: %s", t->state_path, strerror(errno));
	tcfs_lock_release(t);
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
		return tcfs_err(t, err, "fork: %s", strerror(-err));
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
	err = tcfs_lock_take(t, LOCK_WAIT_MS);
	if (err)
		goto out;
	st = tcfs_state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st) {
		if (err == -ENOENT) {	/* the run finished while we waited */
			err = 0;
			goto out;
		}
		tcfs_err(t, err, "%s", msg);
		goto out;
	}
	r->found = true;
	r->pid = (long)json_integer_value(json_object_get(st, "pid"));
	err = state_undo(t, st, r);
	json_decref(st);
	if (!err && unlink(t->state_path))
		err = tcfs_err(t, -errno, "removing %s: %s", t->state_path, strerror(errno));
out:
	if (err)
		snprintf(errbuf, len, "%s", t->err);
	tcfs_lock_release(t);
	tc_tracefs_close(t);
	return err;
}
