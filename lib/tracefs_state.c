// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/tracefs_state.c - what a run changes in tracefs, recorded before it
 * changes it: the state file and its lock, restore (after a crash or
 * kill -9) and the supervisor that restores on every exit path. jansson
 * reads and writes the state.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
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
#include <sys/syscall.h>
#include <sys/wait.h>

#include <jansson.h>
#include <tracefs.h>

#include <tracecost/file.h>
#include <tracecost/kmod.h>

#include "tracefs_local.h"

/* A state file names a few instances and files: far below this. */
#define STATE_MAX_BYTES		(1u << 20)

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
	char why[128], *buf;
	json_t *st;
	size_t n;

	*err = 0;
	if (access(path, F_OK)) {
		*err = -errno;
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* not a regular file (a directory, a FIFO): say so, never block */
	*err = tc_file_read(path, STATE_MAX_BYTES, &buf, &n, why, sizeof(why));
	if (*err) {
		snprintf(msg, len, "%s: %s", path, why);
		return NULL;
	}
	st = tcfs_state_parse(buf, n, path, err, msg, len);
	free(buf);
	return st;
}

json_t *tcfs_state_parse(const char *buf, size_t n, const char *path, int *err, char *msg,
			 size_t len)
{
	json_error_t je;
	json_t *st;

	*err = 0;
	st = json_loadb(buf, n, 0, &je);
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
		if (!pid)
			return tcfs_err(t, -ESTALE, "state file %s of an interrupted run is still "
				       "there and cannot be read (corrupt: 'tracecost restore' "
				       "undoes what it can without it and moves it aside)",
				       t->state_path);
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

bool tcfs_state_instance_ok(const char *name)
{
	const char *p;

	/* exactly what tc_tracefs_open() names them: tracecost-PID */
	if (!name || strncmp(name, "tracecost-", 10) || !name[10])
		return false;
	for (p = name + 10; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return p - name < 32;
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

int tc_tracefs_record_kmod(struct tc_tracefs *t, unsigned int what)
{
	char msg[256];
	json_t *st;
	unsigned int had;
	int err;

	t->err[0] = 0;
	if (!t->begun || !what || (what & ~(TC_KMOD_RECORD_LOADED | TC_KMOD_RECORD_RUN)))
		return tcfs_err(t, -EINVAL, "record kmod: bad change or no session");
	st = tcfs_state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st)
		return tcfs_err(t, err, "%s", msg);
	had = (unsigned int)json_integer_value(json_object_get(st, "kmod"));
	if ((had | what) == had) {
		json_decref(st);
		return 0;
	}
	json_object_set_new(st, "kmod", json_integer(had | what));
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

#define KMOD_DEBUGFS	"/sys/kernel/debug"
#define KMOD_DIR	KMOD_DEBUGFS "/" TC_KMOD_DIR
#define KMOD_CANCEL_WAIT_MS	60000

/* The module's debugfs directory, mounting debugfs privately if needed. */
static bool kmod_reach(void)
{
	if (!access(KMOD_DIR, F_OK))
		return true;
	if (access("/sys/module/" TC_KMOD_DIR, F_OK))
		return false;		/* not loaded */
	if (!access(KMOD_DEBUGFS "/tracing", F_OK) || !access(KMOD_DEBUGFS "/bdi", F_OK))
		return false;		/* debugfs is mounted, the module has no directory */
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("debugfs", KMOD_DEBUGFS, "debugfs", 0, NULL))
		return false;
	return !access(KMOD_DIR, F_OK);
}

static bool kmod_running(void)
{
	char buf[16] = "";
	int fd = open(KMOD_DIR "/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && !strncmp(buf, "running", 7);
}

/* Cancel a run of tracecost.ko, unload it if @loaded: the "kmod" record. */
static int kmod_undo(struct tc_tracefs *t, unsigned int what, struct tc_restore_report *r)
{
	int fd, waited = 0, tries;

	if (kmod_reach()) {
		fd = open(KMOD_DIR "/run", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, "0", 1) == 1 && r)
				r->kmod_cancelled = true;
			close(fd);
		}
		while (kmod_running() && waited < KMOD_CANCEL_WAIT_MS) {
			usleep(20000);
			waited += 20;
		}
		if (kmod_running())
			return tcfs_err(t, -EBUSY, "the tracecost.ko run did not stop within %d s",
				       KMOD_CANCEL_WAIT_MS / 1000);
	}
	if (!(what & TC_KMOD_RECORD_LOADED))
		return 0;
	/* an open debugfs file holds the module for a moment: retry for 5 s */
	for (tries = 0; tries < 250; tries++) {
		if (!syscall(SYS_delete_module, TC_KMOD_DIR, O_NONBLOCK)) {
			if (r)
				r->kmod_unloaded = true;
			return 0;
		}
		if (errno == ENOENT)
			return 0;	/* never loaded, or already unloaded */
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EBUSY)
			break;
		usleep(20000);
	}
	return tcfs_err(t, -errno, "unloading tracecost.ko: %s", strerror(errno));
}

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

	/* first stop and unload the module of a kernel-suite run */
	if (json_integer_value(json_object_get(st, "kmod")))
		ret = kmod_undo(t, (unsigned int)json_integer_value(json_object_get(st, "kmod")), r);
	/* our instance may be in use by this session */
	if (t->inst) {
		err = tc_tracefs_unapply(t);
		if (err && !ret)
			ret = err;
	}
	for (i = 0; i < json_array_size(inst); i++) {
		const char *name = json_string_value(json_array_get(inst, i));
		bool removed;

		if (!tcfs_state_instance_ok(name))
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
	/*
	 * A signal that came while waiting (forwarded) stays pending for the
	 * caller; one that came during the restore is pending already. Both
	 * reach the caller's dispositions, put back first, once unblocked: a
	 * signal that came after the child's last look at it is not lost.
	 */
	if (sup_signal)
		raise(sup_signal);
	for (i = 0; i < 5; i++)
		sigaction(sigs[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return err;
}

int tc_tracefs_state_owner(const char *state_dir, long *pid)
{
	char path[PATH_MAX + 16], msg[64];
	json_t *st;
	int fd, err;

	*pid = 0;
	if (!state_dir)
		state_dir = TC_TRACEFS_STATE_DIR;
	snprintf(path, sizeof(path), "%s/state", state_dir);
	if (access(path, F_OK))
		return errno == ENOENT ? TC_STATE_NONE : -errno;
	st = tcfs_state_read(path, &err, msg, sizeof(msg));
	if (st) {
		*pid = (long)json_integer_value(json_object_get(st, "pid"));
		json_decref(st);
	}
	/*
	 * A run holds the lock (LOCK_EX) from before it writes the state file
	 * until after it removed it: a shared lock that cannot be had means a
	 * live run; one that can, a dead one (flock locks die with their owner).
	 */
	snprintf(path, sizeof(path), "%s/lock", state_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return TC_STATE_STALE;
	if (flock(fd, LOCK_SH | LOCK_NB)) {
		err = errno;
		close(fd);
		return err == EWOULDBLOCK ? TC_STATE_LIVE : -err;
	}
	flock(fd, LOCK_UN);
	close(fd);
	return TC_STATE_STALE;
}

/*
 * STATE.tmp.PID files of runs killed while writing their state. Called with
 * the lock held: no live run is writing one.
 */
static void remove_stale_temporaries(struct tc_tracefs *t)
{
	char prefix[64], path[PATH_MAX + 300];
	struct dirent *de;
	size_t plen;
	DIR *d;

	plen = (size_t)snprintf(prefix, sizeof(prefix), "state.tmp.");
	d = opendir(t->state_dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen) || !isdigit((unsigned char)de->d_name[plen]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", t->state_dir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

/* Append @name to the comma-separated list @buf (silently cut when full). */
static void list_add(char *buf, size_t len, const char *name, size_t n)
{
	size_t used = strlen(buf);

	if (used + n + 3 >= len)
		return;
	snprintf(buf + used, len - used, "%s%.*s", used ? ", " : "", (int)n, name);
}

/* The "path" values in the text of a state file that jansson cannot read. */
static void salvage_paths(const char *raw, size_t n, char *buf, size_t len)
{
	const char *p = raw, *end = raw + n, *q;

	buf[0] = 0;
	while (p < end && (p = memmem(p, (size_t)(end - p), "\"path\"", 6))) {
		p += 6;
		while (p < end && (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t'))
			p++;
		if (p >= end || *p != '"')
			continue;
		p++;
		q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			break;
		if (q > p && !memchr(p, '\\', (size_t)(q - p)) && !memchr(p, '/', (size_t)(q - p)))
			list_add(buf, len, p, (size_t)(q - p));
		p = q + 1;
	}
}

/* The uprobe events of groups tracecost* in uprobe_events. */
static int salvage_uprobes(struct tc_tracefs *t)
{
	char path[PATH_MAX + 32], line[512], *sp, *slash;
	json_t *ups = json_array();
	int ret;
	FILE *f;

	if (!ups)
		return tcfs_err(t, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/uprobe_events", t->dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		/* "p:tracecost_x/usdt_a /path:0x1234" */
		if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':' ||
		    strncmp(line + 2, "tracecost", 9))
			continue;
		sp = strchr(line + 2, ' ');
		slash = strchr(line + 2, '/');
		if (!sp || !slash || slash > sp)
			continue;
		*sp = 0;
		json_array_append_new(ups, json_string(line + 2));
	}
	if (f)
		fclose(f);
	ret = uprobes_remove(t, ups);
	json_decref(ups);
	return ret;
}

/*
 * A state file jansson cannot read: undo what only tracecost makes (called
 * with the lock held, so no tracecost run is live), move the file aside.
 */
static int state_salvage(struct tc_tracefs *t, struct tc_restore_report *r)
{
	char path[PATH_MAX + 32], why[128], *raw = NULL;
	struct dirent *de;
	int ret = 0, err;
	size_t n = 0;
	DIR *d;

	r->corrupt = true;
	if (!tc_file_read(t->state_path, STATE_MAX_BYTES, &raw, &n, why, sizeof(why))) {
		const char *p = memmem(raw, n, "\"pid\"", 5);

		salvage_paths(raw, n, r->unrestored, sizeof(r->unrestored));
		if (p)
			sscanf(p + 5, " : %ld", &r->pid);
		free(raw);
	}
	snprintf(path, sizeof(path), "%s/instances", t->dir);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		bool removed;
		long pid;

		if (!tcfs_state_instance_ok(de->d_name))
			continue;
		pid = strtol(de->d_name + 10, NULL, 10);
		if (pid > 0 && (!kill((pid_t)pid, 0) || errno != ESRCH))
			continue;	/* that process lives: not a leftover */
		err = tcfs_instance_remove_by_name(t, de->d_name, &removed);
		if (err && !ret)
			ret = err;
		if (removed)
			r->instances++;
	}
	if (d)
		closedir(d);
	err = salvage_uprobes(t);
	if (err && !ret)
		ret = err;
	if (!access("/sys/module/" TC_KMOD_DIR, F_OK)) {
		err = kmod_undo(t, TC_KMOD_RECORD_RUN, r);
		if (err && !ret)
			ret = err;
	}
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/state.corrupt", t->state_dir);
	if (rename(t->state_path, path))
		return tcfs_err(t, -errno, "moving %s to %s: %s", t->state_path, path,
				strerror(errno));
	n = strlen(path);
	if (n >= sizeof(r->moved_to))
		n = sizeof(r->moved_to) - 1;
	memcpy(r->moved_to, path, n);
	r->moved_to[n] = 0;
	return 0;
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
		/* nothing to undo; a temporary of a run killed mid-write may be there */
		if (!tcfs_lock_take(t, 0)) {
			remove_stale_temporaries(t);
			tcfs_lock_release(t);
		}
		tc_tracefs_close(t);
		return 0;
	}
	err = tcfs_lock_take(t, LOCK_WAIT_MS);
	if (err)
		goto out;
	remove_stale_temporaries(t);
	st = tcfs_state_read(t->state_path, &err, msg, sizeof(msg));
	if (!st) {
		struct stat sb;

		if (err == -ENOENT) {	/* the run finished while we waited */
			err = 0;
			goto out;
		}
		if (err == -EINVAL && !lstat(t->state_path, &sb) && S_ISREG(sb.st_mode)) {
			r->found = true;
			snprintf(r->why, sizeof(r->why), "%s", msg);
			err = state_salvage(t, r);
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
