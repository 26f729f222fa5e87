/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/tracefs.h - the one tracefs module of tracecost: tracing
 * profiles applied in a private tracefs instance, a state file that records
 * what a run changes, and the restore that puts it back (libtracefs and
 * libtraceevent underneath).
 *
 * A session, in the order a suite uses it:
 *
 *	tc_tracefs_open(&t, NULL)	find tracefs; if it is not mounted,
 *					mount it in a private mount namespace
 *					of this process (nothing to unmount,
 *					even after kill -9). Changes nothing.
 *	tc_profile_check(t, p)		validate profiles against the kernel
 *					(read only; tracecost/profile.h)
 *	tc_tracefs_begin(t)		lock TC_TRACEFS_STATE_DIR/lock, refuse a
 *					stale state file, write the state file
 *					(instance name, mount, pid) before any
 *					change
 *	tc_tracefs_supervise(t, fn, arg, &status)
 *					fork; the child runs fn(), which calls
 *	    tc_tracefs_apply(t, p)	  create the private instance
 *					  "tracecost-<pid>" and enable p in it
 *	    tc_tracefs_count(t, ...)	  events it recorded (and from whom)
 *	    tc_tracefs_unapply(t)	  remove the instance
 *					the parent waits (SIGINT/SIGTERM/SIGHUP
 *					are forwarded to the child, never acted
 *					on in a handler) and then restores from
 *					the state file: tc_tracefs_end()
 *	tc_tracefs_close(t)
 *
 * After kill -9 of the whole run, tc_tracefs_restore() (the CLI's
 * "tracecost restore") reads the state file and finishes the job; until
 * then tc_tracefs_begin() refuses with -ESTALE.
 *
 * Everything a profile enables lives in the private instance, so the user's
 * own top-level tracing is never touched; a caller that must change a
 * top-level file records it first with tc_tracefs_record_file(), and the
 * restore writes the recorded content back. Buffer contents are not
 * restored (the kernel offers no way to).
 *
 * Functions return 0 or -errno; a human-readable detail of the last failure
 * (the kernel's error_log line for a refused filter, the file and errno of a
 * failed write) is in tc_tracefs_error(). Nothing here prints or exits.
 * libtracefs is not async-signal-safe: none of this may be called from a
 * signal handler.
 */
#ifndef TRACECOST_TRACEFS_H
#define TRACECOST_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_TRACEFS_STATE_DIR	"/run/tracecost"

struct tc_tracefs;
struct tc_profile;	/* tracecost/profile.h */

/**
 * tc_tracefs_open() - find tracefs (mount it privately if needed)
 * @tp:	       output session
 * @state_dir: directory of the state and lock files, NULL for
 *	       TC_TRACEFS_STATE_DIR
 *
 * If tracefs is mounted, uses the first mount in /proc/mounts. Otherwise
 * the calling process enters a new mount namespace (unshare(CLONE_NEWNS),
 * mounts made private) and mounts tracefs on /sys/kernel/tracing there: the
 * rest of the system never sees the mount, and it ends with the last
 * process of the namespace (forked children share it). Call this before
 * any other thread or child exists. Changes no tracing setting.
 *
 * Return: 0; -EPERM or -EACCES (not root); -ENODEV (no tracefs in this
 * kernel, or it cannot be mounted); -ENOMEM.
 */
int tc_tracefs_open(struct tc_tracefs **tp, const char *state_dir);

/** tc_tracefs_close() - free the session (call tc_tracefs_end() first) */
void tc_tracefs_close(struct tc_tracefs *t);

/** tc_tracefs_dir() - the tracing directory in use */
const char *tc_tracefs_dir(const struct tc_tracefs *t);

/** tc_tracefs_mounted_privately() - whether tc_tracefs_open() mounted it */
bool tc_tracefs_mounted_privately(const struct tc_tracefs *t);

/** tc_tracefs_state_path() - path of the state file */
const char *tc_tracefs_state_path(const struct tc_tracefs *t);

/** tc_tracefs_instance_name() - name of the private instance ("tracecost-PID") */
const char *tc_tracefs_instance_name(const struct tc_tracefs *t);

/** tc_tracefs_error() - detail of the last failure of a call on @t ("" if none) */
const char *tc_tracefs_error(const struct tc_tracefs *t);

/**
 * tc_tracefs_begin() - lock, refuse stale state, write the state file
 * @t: session
 *
 * Takes flock(LOCK_EX | LOCK_NB) on STATE_DIR/lock (held by this process
 * and its children until tc_tracefs_end()), then writes STATE_DIR/state
 * (atomically: temporary file, fsync, rename) with the pid, the tracing
 * directory, how it was mounted and the private instance's name, before
 * any tracing setting is changed.
 *
 * Return: 0; -EBUSY if another run holds the lock (its pid is in
 * tc_tracefs_error()); -ESTALE if a state file from an interrupted run is
 * there (run tc_tracefs_restore()); -errno if the state cannot be written.
 */
int tc_tracefs_begin(struct tc_tracefs *t);

/**
 * tc_tracefs_record_file() - record a top-level tracefs file before changing it
 * @t:	  session, after tc_tracefs_begin()
 * @path: path relative to the tracing directory ("tracing_on", "options/foo")
 *
 * Appends the file's current content to the state file (rewritten
 * atomically) so that the restore writes it back, in reverse order of
 * recording. Recording the same path twice keeps the first content.
 *
 * Return: 0, -EINVAL (absolute path or ".."), -errno of the read or write.
 */
int tc_tracefs_record_file(struct tc_tracefs *t, const char *path);

/**
 * tc_tracefs_uprobe_add() - define a uprobe event, recorded for the restore
 * @t:	   session, after tc_tracefs_begin()
 * @group: event group, must start with "tracecost" (only those are removed)
 * @event: event name
 * @spec:  "PATH:0xOFFSET" or "PATH:0xOFFSET(0xREF_CTR_OFFSET)", file offsets
 *	   (Documentation/trace/uprobetracer.rst)
 *
 * The name goes into the state file first, then "p:GROUP/EVENT SPEC" is
 * appended to uprobe_events. tc_tracefs_end() and tc_tracefs_restore()
 * remove it again ("-:GROUP/EVENT"), after the instances. Enable it in the
 * private instance with a profile naming GROUP:EVENT.
 *
 * Return: 0, -EINVAL (name), -errno of the state write or of the kernel
 * (its error_log has the detail).
 */
int tc_tracefs_uprobe_add(struct tc_tracefs *t, const char *group, const char *event,
			  const char *spec);

/**
 * tc_tracefs_apply() - create the private instance and enable @p in it
 * @t: session, after tc_tracefs_begin()
 * @p: a checked, available profile (not "none": that is no instance)
 *
 * Removes an instance left by a previous apply first. Tracing is off while
 * the buffer size, filters, events and tracer are set, then switched on.
 *
 * Return: 0, or -errno of the step that failed (tc_tracefs_error() names
 * it, with the kernel's error_log line when there is one); on failure the
 * instance is removed again.
 */
int tc_tracefs_apply(struct tc_tracefs *t, const struct tc_profile *p);

/**
 * struct tc_trace_counts - what the private instance recorded
 * @written:  events written into the ring buffer, all CPUs (entries +
 *	      overrun + dropped of per_cpu/cpuN/stats)
 * @lost:     of those, overwritten or dropped
 * @in_buffer: events read back from the buffer
 * @matched:  of those, from one of the given pids (common_pid)
 */
struct tc_trace_counts {
	uint64_t written;
	uint64_t lost;
	uint64_t in_buffer;
	uint64_t matched;
};

/**
 * tc_tracefs_count() - stop tracing in the instance and count its events
 * @t:	   session with an applied profile
 * @pids:  thread ids to match against common_pid (may be NULL)
 * @nr:	   their number
 * @c:	   output
 *
 * Consumes the buffer. Return: 0, -ENOENT (no instance applied), -errno.
 */
int tc_tracefs_count(struct tc_tracefs *t, const pid_t *pids, int nr,
		     struct tc_trace_counts *c);

/**
 * tc_tracefs_unapply() - remove the private instance (tracing off, tracer
 * nop, events off, rmdir); nothing to do if none exists
 *
 * Return: 0 or -errno.
 */
int tc_tracefs_unapply(struct tc_tracefs *t);

/**
 * tc_tracefs_end() - restore from the state file, remove it, unlock
 * @t: session after tc_tracefs_begin()
 *
 * Reads the state file again (a child may have recorded files), removes
 * the instances it names, writes recorded files back, then deletes the
 * state file and releases the lock. On failure the state file stays for
 * tc_tracefs_restore().
 *
 * Return: 0 or -errno.
 */
int tc_tracefs_end(struct tc_tracefs *t);

/**
 * tc_tracefs_supervise() - run @fn in a child, restore in this process
 * @t:	    session after tc_tracefs_begin()
 * @fn:	    what the child runs; its return value is the child's exit code
 * @arg:    its argument
 * @status: output: the child's exit code, or 128 + signal if it was killed
 *
 * The child gets PR_SET_PDEATHSIG(SIGTERM) (if this process dies, the child
 * stops rather than trace unsupervised). While waiting, this process
 * catches SIGINT, SIGTERM and SIGHUP in a flag-only handler and forwards
 * them to the child; if the child has not exited 10 s after a forwarded
 * signal, it is killed. Then tc_tracefs_end() restores, with those
 * signals still caught (a second Ctrl-C cannot cut the restore short);
 * previous signal dispositions are put back before returning, and a
 * SIGINT, SIGTERM or SIGHUP that came while waiting or restoring is then
 * delivered to them (the caller learns of a signal that came after the
 * child's last check: with the default disposition, it ends the caller).
 *
 * Return: the result of tc_tracefs_end(), or -errno if fork() failed
 * (nothing ran, but tc_tracefs_end() was still called).
 */
int tc_tracefs_supervise(struct tc_tracefs *t, int (*fn)(void *arg), void *arg, int *status);

/* What tc_tracefs_record_kmod() records: the changes the kernel suite makes. */
#define TC_KMOD_RECORD_LOADED	1u	/* about to load tracecost.ko */
#define TC_KMOD_RECORD_RUN	2u	/* about to start a run of it */

/**
 * tc_tracefs_record_kmod() - record a kernel-module change before making it
 * @t:	  session, after tc_tracefs_begin()
 * @what: TC_KMOD_RECORD_LOADED and/or TC_KMOD_RECORD_RUN
 *
 * Adds @what to the state file (rewritten atomically), so that the restore
 * (tc_tracefs_end(), tc_tracefs_restore()) cancels a run of tracecost.ko
 * that may still go on (writes 0 to its debugfs "run" file and waits, up
 * to 60 s, for its status to leave "running"), and then, when the module
 * was loaded by the run, unloads it. Recording what is already recorded is
 * a no-op. debugfs is reached through an existing mount of
 * /sys/kernel/debug, else through one made in a private mount namespace
 * (never one left in the caller's namespace).
 * Return: 0; -EINVAL without a session; -errno writing the state.
 */
int tc_tracefs_record_kmod(struct tc_tracefs *t, unsigned int what);

/**
 * struct tc_restore_report - what tc_tracefs_restore() did
 * @found:     a state file was there
 * @pid:       the pid it names
 * @instances: instances removed
 * @files:     top-level files written back
 * @kmod_cancelled, @kmod_unloaded: see tc_tracefs_record_kmod()
 * @corrupt:   the state file could not be read as one (@why says how): what
 *	       it names was undone as far as it can be without it (below),
 *	       and the file was moved to @moved_to
 * @why:       why the state file is not one ("" if it is)
 * @unrestored: the top-level files it names (found in its text), whose
 *	       recorded content could not be read: not written back, "" if none
 * @moved_to:  where the corrupt state file went
 */
struct tc_restore_report {
	bool found;
	long pid;
	int instances;
	int files;
	bool kmod_cancelled;	/* a tracecost.ko run was told to stop */
	bool kmod_unloaded;	/* tracecost.ko was unloaded */
	bool corrupt;
	char why[256];
	char unrestored[256];
	char moved_to[128];
};

/* What tc_tracefs_state_owner() found */
#define TC_STATE_NONE	0	/* no state file */
#define TC_STATE_LIVE	1	/* a running tracecost holds the lock */
#define TC_STATE_STALE	2	/* nobody holds the lock: an interrupted run's */

/**
 * tc_tracefs_state_owner() - tell a running run's state file from a dead one's
 * @state_dir: NULL for TC_TRACEFS_STATE_DIR
 * @pid:       the pid the state file records (0 if it cannot be read)
 *
 * Reads only (no root needed to read a world-readable state): whether the
 * state file exists, and whether its lock is held (a shared flock() that
 * cannot be had). Takes and drops a shared lock for an instant.
 * Return: TC_STATE_NONE, TC_STATE_LIVE, TC_STATE_STALE, or -errno.
 */
int tc_tracefs_state_owner(const char *state_dir, long *pid);

/**
 * tc_tracefs_restore() - finish the restore of a run that was killed
 * @state_dir: NULL for TC_TRACEFS_STATE_DIR
 * @r:	       output
 * @err:       on failure, one line naming the problem
 * @len:       size of @err
 *
 * Waits up to 10 s for the lock (a dying run's children release it), then
 * does what tc_tracefs_end() does, and removes the state.tmp.PID files of
 * runs killed while writing their state. No state file: @r->found = false, 0.
 *
 * A state file that is not one (truncated, hand-edited: @r->corrupt) cannot
 * say what to undo, but only tracecost makes what it would name: with the
 * lock held no tracecost run is live, so the instances named tracecost-PID
 * of processes that no longer exist are removed, the uprobe events of groups
 * tracecost* too, a run of tracecost.ko is stopped (the module stays
 * loaded), and the file is renamed to STATE_DIR/state.corrupt (replacing an
 * older one) so that runs may start again. Recorded file contents cannot be
 * recovered: the paths its text names are listed in @r->unrestored.
 *
 * Return: 0; -EBUSY (a run still holds the lock); -EPERM/-EACCES; -ENODEV;
 * -EINVAL (the state path is not a regular file: it is left in place); -errno.
 */
int tc_tracefs_restore(const char *state_dir, struct tc_restore_report *r, char *err,
		       size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_TRACEFS_H */
