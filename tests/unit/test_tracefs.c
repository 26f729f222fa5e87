// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tracefs.c - lib/profile.c, lib/tracefs.c and lib/tracefs_state.c:
 * built-in profiles, the profile-file parser
 * (every syntax error names its line), and, as root on a kernel with
 * tracefs, the session on the real tracefs: checks against the kernel,
 * apply / count / unapply in a private instance, the state file and its
 * lock, restore after a "crash", and the supervised child. Those use a
 * temporary state directory and instances named after this process, and
 * leave tracefs as they found it (each test checks that its instance is
 * gone). Without root they are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include <tracefs.h>

#include <tracecost/profile.h>
#include <tracecost/tracefs.h>

static char tmpdir[64];

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tc-test-tracefs.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write @text to a file in tmpdir; return its path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_builtins(void **state)
{
	static const char *const want[] = {
		"none", "syscalls", "sched", "ipi", "irq", "function", "preemptirq", NULL,
	};
	const char *const *names = tc_profile_builtin_names();
	struct tc_profile p;
	int i;

	(void)state;
	for (i = 0; want[i]; i++) {
		assert_non_null(names[i]);
		assert_string_equal(names[i], want[i]);
		assert_int_equal(tc_profile_builtin(names[i], &p), 0);
		assert_string_equal(p.name, want[i]);
		assert_true(p.builtin);
		tc_profile_release(&p);
	}
	assert_null(names[i]);
	assert_int_equal(tc_profile_builtin("nosuch", &p), -ENOENT);
	assert_int_equal(tc_profile_builtin("none", &p), 0);
	assert_int_equal(p.nr_events, 0);
	assert_string_equal(p.tracer, "");
	assert_int_equal(tc_profile_builtin("syscalls", &p), 0);
	assert_int_equal(p.nr_events, 2);
	assert_string_equal(p.events[0].system, "raw_syscalls");
	assert_string_equal(p.events[0].name, "sys_enter");
	assert_string_equal(p.events[1].name, "sys_exit");
	tc_profile_release(&p);
	assert_int_equal(tc_profile_builtin("function", &p), 0);
	assert_string_equal(p.tracer, "function");
	assert_int_equal(tc_profile_builtin("ipi", &p), 0);
	assert_non_null(p.fallback);
	assert_string_equal(p.events[0].name, "*");
	tc_profile_release(&p);
}

static void test_add_event(void **state)
{
	struct tc_profile p;
	int i;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(tc_profile_add_event(&p, "sched", "sched_switch", "prev_pid == 1"), 0);
	assert_string_equal(p.events[0].filter, "prev_pid == 1");
	assert_int_equal(tc_profile_add_event(&p, "", "x", NULL), -EINVAL);
	assert_int_equal(tc_profile_add_event(&p, "a/b", "x", NULL), -EINVAL);
	assert_int_equal(tc_profile_add_event(&p, "sched", "x y", NULL), -EINVAL);
	assert_int_equal(tc_profile_add_event(&p, "sched", "*", ""), 0);
	assert_null(p.events[1].filter);
	for (i = 2; i < TC_PROFILE_MAX_EVENTS; i++)
		assert_int_equal(tc_profile_add_event(&p, "s", "e", NULL), 0);
	assert_int_equal(tc_profile_add_event(&p, "s", "e", NULL), -ENOSPC);
	tc_profile_release(&p);
	assert_int_equal(p.nr_events, 0);
}

static void test_file_good(void **state)
{
	const char *path = write_file("good.profiles",
		"# comment\n"
		"\n"
		"[wakeups]\n"
		"summary = wakeups of RT tasks\n"
		"event = sched:sched_wakeup if prio < 100\n"
		"event=sched:sched_switch\n"
		"  ; another comment\n"
		"buffer_kb = 2048\n"
		"[fn.1]\n"
		"tracer = function\n"
		"[all-irq]\n"
		"event = irq:*\n");
	struct tc_profile *ps;
	char err[256];
	int nr, i;

	(void)state;
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 3);
	assert_string_equal(ps[0].name, "wakeups");
	assert_string_equal(ps[0].summary, "wakeups of RT tasks");
	assert_false(ps[0].builtin);
	assert_int_equal(ps[0].line, 3);
	assert_int_equal(ps[0].nr_events, 2);
	assert_string_equal(ps[0].events[0].system, "sched");
	assert_string_equal(ps[0].events[0].name, "sched_wakeup");
	assert_string_equal(ps[0].events[0].filter, "prio < 100");
	assert_int_equal(ps[0].events[0].line, 5);
	assert_null(ps[0].events[1].filter);
	assert_int_equal(ps[0].events[1].line, 6);
	assert_int_equal(ps[0].buffer_kb, 2048);
	assert_string_equal(ps[1].tracer, "function");
	assert_int_equal(ps[1].tracer_line, 10);
	assert_string_equal(ps[2].events[0].name, "*");
	for (i = 0; i < nr; i++)
		tc_profile_release(&ps[i]);
	free(ps);
}

/* Each bad file: the message names the file and this line, and says what. */
static void test_file_errors(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *what;
	} cases[] = {
		{ "event = sched:sched_switch\n", 1, "outside a [profile] section" },
		{ "[ok]\nevent = sched:sched_switch\nnonsense\n", 3, "expected '[name]'" },
		{ "[bad name]\nevent = a:b\n", 1, "bad profile name" },
		{ "[syscalls]\nevent = a:b\n", 1, "built-in name" },
		{ "[a]\nevent = x:y\n[a]\nevent = x:y\n", 3, "defined again (first at line 1)" },
		{ "[a]\ncolour = red\n", 2, "unknown key 'colour'" },
		{ "[a]\nevent = sched_switch\n", 2, "expected SYSTEM:EVENT" },
		{ "[a]\nevent = sched:sw/itch\n", 2, "bad event" },
		{ "[a]\nevent = sched:sched_switch if\n", 2, "empty filter" },
		{ "[a]\nevent = sched:sched_switch where x\n", 2, "expected 'if FILTER'" },
		{ "[a]\ntracer = function\ntracer = nop\n", 3, "tracer given twice" },
		{ "[a]\nevent = a:b\nbuffer_kb = 0\n", 3, "buffer_kb" },
		{ "[a]\nevent = a:b\nbuffer_kb = 12x\n", 3, "buffer_kb" },
		{ "[a]\nsummary = nothing\n", 1, "enables nothing" },
		{ "[a\n", 1, "expected '[name]'" },
	};
	struct tc_profile *ps;
	char err[512], want[64];
	size_t i;
	int nr;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = write_file("bad.profiles", cases[i].text);

		ps = (void *)1;
		nr = 99;
		if (tc_profile_file_load(path, &ps, &nr, err, sizeof(err)) != -EINVAL)
			fail_msg("case %zu: not -EINVAL", i);
		assert_null(ps);
		assert_int_equal(nr, 0);
		snprintf(want, sizeof(want), "%s:%d: ", path, cases[i].line);
		if (strncmp(err, want, strlen(want)) || !strstr(err, cases[i].what))
			fail_msg("case %zu: got '%s', want '%s...%s'", i, err, want, cases[i].what);
		assert_null(strchr(err, '\n'));
	}
	/* empty file, missing file */
	assert_int_equal(tc_profile_file_load(write_file("empty.profiles", "# nothing\n"), &ps,
					      &nr, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no profile defined"));
	assert_int_equal(tc_profile_file_load("/nonexistent/x", &ps, &nr, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x: "));
}

/* Issue 13, defects 5 and 7: what is not a text file is named as such. */
static void test_file_not_text(void **state)
{
	char path[128], err[512];
	struct tc_profile *ps;
	FILE *f;
	int nr;

	(void)state;
	/* a directory: not "read error" */
	assert_int_equal(tc_profile_file_load(tmpdir, &ps, &nr, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory"));
	/* a FIFO: refused before open() could block */
	snprintf(path, sizeof(path), "%s/fifo.profiles", tmpdir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a FIFO"));
	/* a NUL byte in a short line: not "line longer than 4094 characters" */
	snprintf(path, sizeof(path), "%s/nul.profiles", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite("[a]\nev\0ent = a:b\n", 1, 18, f), 18);
	fclose(f);
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), -EINVAL);
	if (!strstr(err, ":2: a NUL byte"))
		fail_msg("got '%s'", err);
}

/* Issue 13, defect 8: a live run's state file is told from a dead one's. */
static void test_state_owner(void **state)
{
	char dir[96], path[128];
	long pid = -1;
	int fd, lock;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/owner", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(tc_tracefs_state_owner(dir, &pid), TC_STATE_NONE);
	assert_int_equal(pid, 0);
	snprintf(path, sizeof(path), "%s/state", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"version\": 1, \"pid\": 4242, \"instances\": [], "
			       "\"files\": []}\n", 58), 58);
	close(fd);
	/* no lock file, or nobody holding it: interrupted */
	assert_int_equal(tc_tracefs_state_owner(dir, &pid), TC_STATE_STALE);
	assert_int_equal(pid, 4242);
	snprintf(path, sizeof(path), "%s/lock", dir);
	lock = open(path, O_RDWR | O_CREAT, 0644);
	assert_true(lock >= 0);
	assert_int_equal(tc_tracefs_state_owner(dir, &pid), TC_STATE_STALE);
	/* held (by another open file description, as another process would): live */
	assert_int_equal(flock(lock, LOCK_EX), 0);
	assert_int_equal(tc_tracefs_state_owner(dir, &pid), TC_STATE_LIVE);
	assert_int_equal(pid, 4242);
	close(lock);
	assert_int_equal(tc_tracefs_state_owner(dir, &pid), TC_STATE_STALE);
}

static struct tc_tracefs *open_or_skip(void);

/* Issue 13, defects 7 and 9: a directory as state file; stale temporaries. */
static void test_restore_odd_state(void **state)
{
	struct tc_tracefs *t = open_or_skip();
	struct tc_restore_report r;
	char dir[96], path[160], err[512];
	int fd;

	(void)state;
	tc_tracefs_close(t);
	snprintf(dir, sizeof(dir), "%s/odd", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	/* the temporary of a run killed while writing its state: removed */
	snprintf(path, sizeof(path), "%s/state.tmp.999999", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tc_tracefs_restore(dir, &r, err, sizeof(err)), 0);
	assert_false(r.found);
	assert_int_equal(access(path, F_OK), -1);
	/* a directory where the state file should be: named, not "'[' expected" */
	snprintf(path, sizeof(path), "%s/state", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_not_equal(tc_tracefs_restore(dir, &r, err, sizeof(err)), 0);
	if (!strstr(err, "is a directory"))
		fail_msg("got '%s'", err);
	rmdir(path);
}

/* ---- on the real tracefs (root) -------------------------------------- */

static struct tc_tracefs *open_or_skip(void)
{
	struct tc_tracefs *t = NULL;
	char dir[96];

	if (geteuid())
		skip();
	snprintf(dir, sizeof(dir), "%s/state", tmpdir);
	if (tc_tracefs_open(&t, dir)) {
		tc_tracefs_close(t);
		skip();
	}
	return t;
}

static bool instance_exists(const char *name)
{
	return tracefs_instance_exists(name);
}

static void test_check_kernel(void **state)
{
	struct tc_tracefs *t = open_or_skip();
	const char *path;
	struct tc_profile p, *ps;
	char err[256];
	int nr;

	(void)state;
	assert_int_equal(tc_profile_builtin("syscalls", &p), 0);
	assert_int_equal(tc_profile_check(t, &p), 0);
	if (!p.available)
		skip();	/* no syscall events in this kernel */
	tc_profile_release(&p);
	assert_int_equal(tc_profile_builtin("ipi", &p), 0);
	assert_int_equal(tc_profile_check(t, &p), 0);
	if (p.available) {
		assert_true(p.nr_events > 0);
		assert_string_not_equal(p.events[0].name, "*");
	} else {
		assert_true(strlen(p.reason) > 0);
	}
	tc_profile_release(&p);
	/* tracer nop: libtracefs's list leaves it out, the kernel has it (defect 4) */
	path = write_file("k0.profiles", "[x]\ntracer = nop\n");
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), 0);
	assert_int_equal(tc_profile_check(t, &ps[0]), 0);
	assert_true(ps[0].available);
	tc_profile_release(&ps[0]);
	free(ps);
	/* a file profile naming an unknown event */
	path = write_file("k1.profiles", "[x]\nevent = sched:sched_switch\nevent = nosuch:event\n");
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), 0);
	assert_int_equal(tc_profile_check(t, &ps[0]), -EINVAL);
	assert_non_null(strstr(tc_tracefs_error(t), ":3: unknown event 'nosuch:event'"));
	tc_profile_release(&ps[0]);
	free(ps);
	/* a filter naming a field the event does not have */
	path = write_file("k2.profiles", "[x]\n\nevent = sched:sched_switch if nosuchfield == 1\n");
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), 0);
	assert_int_equal(tc_profile_check(t, &ps[0]), -EINVAL);
	assert_non_null(strstr(tc_tracefs_error(t), ":3: bad filter for sched:sched_switch"));
	tc_profile_release(&ps[0]);
	free(ps);
	/* a good filter */
	path = write_file("k3.profiles", "[x]\nevent = sched:sched_switch if prev_pid != 0\n");
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), 0);
	assert_int_equal(tc_profile_check(t, &ps[0]), 0);
	assert_true(ps[0].available);
	tc_profile_release(&ps[0]);
	free(ps);
	/* an unknown tracer */
	path = write_file("k4.profiles", "[x]\nevent = sched:sched_switch\ntracer = nosuch\n");
	assert_int_equal(tc_profile_file_load(path, &ps, &nr, err, sizeof(err)), 0);
	assert_int_equal(tc_profile_check(t, &ps[0]), -EINVAL);
	assert_non_null(strstr(tc_tracefs_error(t), ":3: tracer 'nosuch'"));
	tc_profile_release(&ps[0]);
	free(ps);
	tc_tracefs_close(t);
}

static void test_apply_count(void **state)
{
	struct tc_tracefs *t = open_or_skip();
	struct tc_trace_counts c;
	struct tc_profile p;
	pid_t self = getpid();
	char path[160];
	int i;

	(void)state;
	assert_int_equal(tc_profile_builtin("syscalls", &p), 0);
	assert_int_equal(tc_profile_check(t, &p), 0);
	if (!p.available)
		skip();
	/* no apply before the state is recorded */
	assert_int_equal(tc_tracefs_apply(t, &p), -EINVAL);
	assert_int_equal(tc_tracefs_begin(t), 0);
	snprintf(path, sizeof(path), "%s/state/state", tmpdir);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(tc_tracefs_apply(t, &p), 0);
	assert_true(instance_exists(tc_tracefs_instance_name(t)));
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	assert_int_equal(tc_tracefs_count(t, &self, 1, &c), 0);
	assert_true(c.written >= 2000);
	assert_true(c.in_buffer > 0);
	assert_true(c.matched > 0);
	assert_true(c.matched <= c.in_buffer);
	assert_int_equal(tc_tracefs_unapply(t), 0);
	assert_false(instance_exists(tc_tracefs_instance_name(t)));
	assert_int_equal(tc_tracefs_count(t, NULL, 0, &c), -ENOENT);
	/* a filter the kernel applies: only getpid (39 on x86-64) */
	tc_profile_release(&p);
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "filtered");
	assert_int_equal(tc_profile_add_event(&p, "raw_syscalls", "sys_enter",
					      "id == 99999"), 0);
	assert_int_equal(tc_tracefs_apply(t, &p), 0);
	for (i = 0; i < 100; i++)
		syscall(SYS_getpid);
	assert_int_equal(tc_tracefs_count(t, &self, 1, &c), 0);
	assert_int_equal(c.written, 0);
	/* applying again replaces the instance */
	assert_int_equal(tc_tracefs_apply(t, &p), 0);
	assert_int_equal(tc_tracefs_end(t), 0);
	assert_false(instance_exists(tc_tracefs_instance_name(t)));
	assert_int_equal(access(path, F_OK), -1);
	tc_profile_release(&p);
	tc_tracefs_close(t);
}

static void test_kernel_refuses_filter(void **state)
{
	struct tc_tracefs *t = open_or_skip();
	struct tc_profile p;

	(void)state;
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "bad");
	assert_int_equal(tc_profile_add_event(&p, "sched", "sched_switch", "nosuch == 1"), 0);
	assert_int_equal(tc_tracefs_begin(t), 0);
	assert_true(tc_tracefs_apply(t, &p) < 0);
	assert_non_null(strstr(tc_tracefs_error(t), "filter of sched:sched_switch"));
	assert_false(instance_exists(tc_tracefs_instance_name(t)));
	assert_int_equal(tc_tracefs_end(t), 0);
	tc_profile_release(&p);
	tc_tracefs_close(t);
}

/* Lock, stale state after a "crash", restore, recorded files. */
static void test_state_restore(void **state)
{
	struct tc_tracefs *t = open_or_skip(), *t2 = NULL, *hold = NULL;
	struct tc_restore_report r;
	struct tracefs_instance *mine;
	struct tc_profile p;
	char dir[96], err[256], rel[96], name[48], *v;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/state", tmpdir);
	/* keeps a private tracefs mount (if tc_tracefs_open made one) for "mine" */
	assert_int_equal(tc_tracefs_open(&hold, dir), 0);
	assert_int_equal(tc_tracefs_begin(t), 0);
	/* a second session is refused while the first holds the lock */
	assert_int_equal(tc_tracefs_open(&t2, dir), 0);
	assert_int_equal(tc_tracefs_begin(t2), -EBUSY);
	assert_non_null(strstr(tc_tracefs_error(t2), "holds"));
	/* record a file (in an instance of this test, not the top level), change it */
	snprintf(name, sizeof(name), "tctest-%d", (int)getpid());
	mine = tracefs_instance_create(name);
	assert_non_null(mine);
	assert_int_equal(tracefs_instance_file_write(mine, "tracing_on", "1"), 1);
	snprintf(rel, sizeof(rel), "instances/%s/tracing_on", name);
	assert_int_equal(tc_tracefs_record_file(t, rel), 0);
	assert_int_equal(tc_tracefs_record_file(t, "../etc/passwd"), -EINVAL);
	assert_int_equal(tc_tracefs_record_file(t, "/etc/passwd"), -EINVAL);
	assert_int_equal(tracefs_instance_file_write(mine, "tracing_on", "0"), 1);
	assert_int_equal(tc_profile_builtin("sched", &p), 0);
	assert_int_equal(tc_profile_check(t, &p), 0);
	assert_int_equal(tc_tracefs_apply(t, &p), 0);
	/* "crash": drop the session without tc_tracefs_end() */
	tc_tracefs_close(t);
	assert_true(instance_exists(tc_tracefs_instance_name(t2)));
	assert_int_equal(tc_tracefs_begin(t2), -ESTALE);
	assert_non_null(strstr(tc_tracefs_error(t2), "interrupted run"));
	tc_tracefs_close(t2);
	/* restore finishes the job */
	assert_int_equal(tc_tracefs_restore(dir, &r, err, sizeof(err)), 0);
	assert_true(r.found);
	assert_int_equal(r.pid, getpid());
	assert_int_equal(r.instances, 1);
	assert_int_equal(r.files, 1);
	v = tracefs_instance_file_read(mine, "tracing_on", NULL);
	assert_non_null(v);
	assert_int_equal(atoi(v), 1);
	free(v);
	snprintf(name, sizeof(name), "tracecost-%d", (int)getpid());
	assert_false(instance_exists(name));
	/* nothing left: a second restore finds nothing, a new session begins */
	assert_int_equal(tc_tracefs_restore(dir, &r, err, sizeof(err)), 0);
	assert_false(r.found);
	assert_int_equal(tc_tracefs_open(&t2, dir), 0);
	assert_int_equal(tc_tracefs_begin(t2), 0);
	assert_int_equal(tc_tracefs_end(t2), 0);
	tc_tracefs_close(t2);
	tracefs_instance_destroy(mine);
	tracefs_instance_free(mine);
	tc_profile_release(&p);
	tc_tracefs_close(hold);
}

/*
 * After each tracefs test, even one cut short by a failed assertion: remove
 * the instances this process made (tracecost-PID, tctest-PID).
 */
/* Whether uprobe_events defines GROUP/EVENT @name. */
static bool uprobe_defined(struct tc_tracefs *t, const char *name)
{
	char path[4200], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", tc_tracefs_dir(t));
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "p:", 2) && !strncmp(line + 2, name, strlen(name)) &&
		    line[2 + strlen(name)] == ' ')
			found = true;
	fclose(f);
	return found;
}

/* Uprobes: recorded before they exist, removed by end and by restore after a "crash". */
static void test_uprobe_restore(void **state)
{
	struct tc_tracefs *t = open_or_skip(), *hold = NULL;
	struct tc_restore_report r;
	char dir[96], err[256], ev[48], name[96], spec[64];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/state", tmpdir);
	assert_int_equal(tc_tracefs_open(&hold, dir), 0);
	snprintf(ev, sizeof(ev), "u%d", (int)getpid());
	snprintf(name, sizeof(name), "tracecost_test/%s", ev);
	/* a file offset inside /bin/sh's text: defined, never enabled */
	snprintf(spec, sizeof(spec), "/bin/sh:0x1000");
	assert_int_equal(tc_tracefs_uprobe_add(t, "tracecost_test", ev, spec), -EINVAL);
	assert_int_equal(tc_tracefs_begin(t), 0);
	assert_int_equal(tc_tracefs_uprobe_add(t, "other", ev, spec), -EINVAL);
	assert_int_equal(tc_tracefs_uprobe_add(t, "tracecost_test", "a/b", spec), -EINVAL);
	assert_int_equal(tc_tracefs_uprobe_add(t, "tracecost_test", ev, spec), 0);
	assert_true(uprobe_defined(t, name));
	/* end removes it */
	assert_int_equal(tc_tracefs_end(t), 0);
	assert_false(uprobe_defined(t, name));
	/* "crash" after defining it: restore removes it */
	assert_int_equal(tc_tracefs_begin(t), 0);
	assert_int_equal(tc_tracefs_uprobe_add(t, "tracecost_test", ev, spec), 0);
	assert_true(uprobe_defined(hold, name));
	tc_tracefs_close(t);
	assert_int_equal(tc_tracefs_restore(dir, &r, err, sizeof(err)), 0);
	assert_true(r.found);
	assert_false(uprobe_defined(hold, name));
	tc_tracefs_close(hold);
}

static int remove_ours(void **state)
{
	char name[48];
	int i;

	(void)state;
	if (geteuid())
		return 0;
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "%s-%d", i ? "tctest" : "tracecost", (int)getpid());
		if (tracefs_instance_exists(name)) {
			struct tracefs_instance *in = tracefs_instance_alloc(NULL, name);

			if (in) {
				tracefs_trace_off(in);
				tracefs_instance_file_clear(in, "set_event");
				tracefs_instance_destroy(in);
				tracefs_instance_free(in);
			}
		}
	}
	return 0;
}

static struct tc_profile sup_prof;

static int child_apply(void *arg)
{
	struct tc_tracefs *t = arg;

	if (tc_tracefs_apply(t, &sup_prof))
		return 1;
	return 7;	/* leave the instance for the parent's restore */
}

static int child_killed(void *arg)
{
	struct tc_tracefs *t = arg;

	if (tc_tracefs_apply(t, &sup_prof))
		return 1;
	kill(getpid(), SIGKILL);
	return 0;
}

/* a signal to the supervisor after this child's last look at its own flag */
static int child_signals_parent(void *arg)
{
	(void)arg;
	kill(getppid(), SIGTERM);
	return 0;
}

static volatile sig_atomic_t caller_got;

static void caller_handler(int sig)
{
	caller_got = sig;
}

static void test_supervise(void **state)
{
	struct tc_tracefs *t = open_or_skip();
	char path[160];
	int status;

	(void)state;
	assert_int_equal(tc_profile_builtin("sched", &sup_prof), 0);
	assert_int_equal(tc_profile_check(t, &sup_prof), 0);
	snprintf(path, sizeof(path), "%s/state/state", tmpdir);
	assert_int_equal(tc_tracefs_begin(t), 0);
	assert_int_equal(tc_tracefs_supervise(t, child_apply, t, &status), 0);
	assert_int_equal(status, 7);
	assert_false(instance_exists(tc_tracefs_instance_name(t)));
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(tc_tracefs_begin(t), 0);
	assert_int_equal(tc_tracefs_supervise(t, child_killed, t, &status), 0);
	assert_int_equal(status, 128 + SIGKILL);
	assert_false(instance_exists(tc_tracefs_instance_name(t)));
	assert_int_equal(access(path, F_OK), -1);
	/*
	 * the child ended well, but the supervisor was signalled meanwhile:
	 * the signal reaches the caller's handler once tracing is restored
	 * (it had been swallowed by the supervisor's own)
	 */
	{
		struct sigaction sa = { .sa_handler = caller_handler }, old;

		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, &old);
		caller_got = 0;
		assert_int_equal(tc_tracefs_begin(t), 0);
		assert_int_equal(tc_tracefs_supervise(t, child_signals_parent, t, &status), 0);
		assert_int_equal(status, 0);
		assert_int_equal(caller_got, SIGTERM);
		assert_int_equal(access(path, F_OK), -1);
		sigaction(SIGTERM, &old, NULL);
	}
	tc_profile_release(&sup_prof);
	tc_tracefs_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_add_event),
		cmocka_unit_test(test_file_good),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_file_not_text),
		cmocka_unit_test(test_state_owner),
		cmocka_unit_test(test_restore_odd_state),
		cmocka_unit_test(test_check_kernel),
		cmocka_unit_test_teardown(test_apply_count, remove_ours),
		cmocka_unit_test_teardown(test_kernel_refuses_filter, remove_ours),
		cmocka_unit_test_teardown(test_state_restore, remove_ours),
		cmocka_unit_test_teardown(test_supervise, remove_ours),
		cmocka_unit_test_teardown(test_uprobe_restore, remove_ours),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("tracefs", tests, setup_tmp, teardown_tmp);
}
