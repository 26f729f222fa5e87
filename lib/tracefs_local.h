/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/tracefs_local.h - what the three tracefs areas of libtracecost share:
 * the session structure and the helpers that cross files. Not installed.
 *
 *   profile.c        built-in profiles and profile files (no tracefs access)
 *   tracefs.c        the session: mount, checks, instances, apply, counting
 *   tracefs_state.c  the state file, its lock, restore and the supervisor
 *
 * Locking: a session is used by one thread; the state file is protected
 * across processes by flock() on its lock file (tcfs_lock_take()).
 */
#ifndef TC_TRACEFS_LOCAL_H
#define TC_TRACEFS_LOCAL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include <jansson.h>
#include <tracefs.h>

#include <tracecost/profile.h>
#include <tracecost/tracefs.h>

#ifndef TC_VERSION
#define TC_VERSION "unknown"
#endif

#define STATE_VERSION		1
#define MOUNT_POINT		"/sys/kernel/tracing"
#define LOCK_WAIT_MS		10000
#define KILL_AFTER_S		10

#define TCFS_HIDDEN		__attribute__((visibility("hidden")))

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

/* A built-in profile (profile.c): events, fallback events, tracer, needs. */
struct tcfs_builtin {
	const char *name;
	const char *summary;
	const char *events;
	const char *fallback;
	const char *fallback_summary;
	const char *tracer;
	const char *needs;
};

/* profile.c */
TCFS_HIDDEN const struct tcfs_builtin *tcfs_builtin_find(const char *name);
TCFS_HIDDEN void tcfs_profile_clear_events(struct tc_profile *p);
TCFS_HIDDEN char *tcfs_trim(char *s);
TCFS_HIDDEN int tcfs_profile_add_event_list(struct tc_profile *p, const char *list);

/* tracefs.c: format the session's error message, return @err. */
TCFS_HIDDEN int tcfs_err(struct tc_tracefs *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
TCFS_HIDDEN int tcfs_instance_remove_by_name(struct tc_tracefs *t, const char *name,
					     bool *removed);

/* tracefs_state.c */
TCFS_HIDDEN int tcfs_write_all(int fd, const char *s, size_t n);
TCFS_HIDDEN json_t *tcfs_state_read(const char *path, int *err, char *msg, size_t len);
/* The state file's text (@n bytes at @buf, named @path): what restore trusts. */
TCFS_HIDDEN json_t *tcfs_state_parse(const char *buf, size_t n, const char *path, int *err,
				     char *msg, size_t len);
TCFS_HIDDEN int tcfs_lock_take(struct tc_tracefs *t, int wait_ms);
TCFS_HIDDEN void tcfs_lock_release(struct tc_tracefs *t);
TCFS_HIDDEN bool tcfs_bad_relpath(const char *p);
/* An instance name restore may remove: tracecost-PID, as we make them. */
TCFS_HIDDEN bool tcfs_state_instance_ok(const char *name);

#endif /* TC_TRACEFS_LOCAL_H */
