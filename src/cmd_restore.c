// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_restore.c - "tracecost restore": finish the restore of a run that
 * was killed (kill -9, power cut of the shell, ...). Reads the state file
 * that every tracing run writes before changing anything
 * (TC_TRACEFS_STATE_DIR/state, lib/tracefs.c), removes the private instances
 * it names, writes recorded top-level files back, and deletes it. Without a
 * state file there is nothing to do. Buffer contents cannot be restored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracecost/tracefs.h>

#include "cli.h"
#include "peers.h"

static void usage(void)
{
	printf("usage: tracecost restore\n\n"
	       "Put back the tracing settings a killed tracecost run changed, from its state\n"
	       "file %s/state, and remove that file; stop a run of tracecost.ko it started\n"
	       "and unload the module if it loaded it. Needs root. Also removes what killed\n"
	       "runs left in /tmp: the directories of 'run --runs' and the homes of the LTTng\n"
	       "peer's session daemons ($TMPDIR/tracecost-lttng.*, this user's).\n",
	       TC_TRACEFS_STATE_DIR);
}

int cmd_restore(int argc, char **argv)
{
	struct tc_restore_report r;
	char err[512], left[512];
	unsigned int dirs;
	long pid;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage();
		return TC_EXIT_OK;
	}
	if (argc > 1)
		tc_cli_usage("restore: unexpected argument '%s' (try 'tracecost restore --help')",
			     argv[1]);
	/* the temporary directories of killed --runs parents (any user's run) */
	if (tc_cli_runs_clean(&dirs, left, sizeof(left)))
		fprintf(stderr, "tracecost: warning: cannot remove %s\n", left);
	if (dirs)
		printf("tracecost: removed %u temporary director%s of killed 'run --runs' "
		       "(/tmp/tracecost-runs.*)\n", dirs, dirs == 1 ? "y" : "ies");
	/* the LTTng session daemons' homes of killed runs (this user's) */
	tc_peers_clean(stdout);
	if (tc_tracefs_state_owner(NULL, &pid) == TC_STATE_LIVE)
		tc_cli_fail("run %ld is in progress (it holds %s/lock): it restores tracing "
			    "itself when it ends; nothing done", pid, TC_TRACEFS_STATE_DIR);
	if (access(TC_TRACEFS_STATE_DIR "/state", F_OK) && errno == ENOENT) {
		if (!geteuid())
			tc_tracefs_restore(NULL, &r, err, sizeof(err)); /* stale temporaries */
		printf("tracecost: nothing to restore (no %s/state)\n", TC_TRACEFS_STATE_DIR);
		return TC_EXIT_OK;
	}
	if (geteuid())
		tc_cli_fail("restore needs root (tracefs): the state file %s/state is still there",
			    TC_TRACEFS_STATE_DIR);
	ret = tc_tracefs_restore(NULL, &r, err, sizeof(err));
	if (ret == -EBUSY)
		tc_cli_fail("%s: that run restores by itself when it ends", err);
	if (ret)
		tc_cli_fail("restore failed: %s; the state file stays", err);
	if (!r.found) {
		printf("tracecost: nothing to restore (no %s/state)\n", TC_TRACEFS_STATE_DIR);
		return TC_EXIT_OK;
	}
	if (r.corrupt) {
		printf("tracecost: %s\n"
		       "tracecost: that file records what a tracing run changes in tracefs before it "
		       "changes it (its instances, top-level files with their old content, uprobes, "
		       "tracecost.ko), for this command to undo; unreadable, it cannot say what\n",
		       r.why);
		if (r.pid > 0)
			printf("tracecost: it names run %ld\n", r.pid);
		printf("tracecost: undone without it: %d tracecost-PID instance%s of dead processes "
		       "removed, tracecost* uprobe events removed%s\n", r.instances,
		       r.instances == 1 ? "" : "s",
		       r.kmod_cancelled ? ", a tracecost.ko run stopped" : "");
		if (r.unrestored[0])
			printf("tracecost: not written back (their old content is lost with the file): "
			       "%s; check them under /sys/kernel/tracing\n", r.unrestored);
		printf("tracecost: the file is now %s (read it there, then delete it); tracing "
		       "runs can start again\n", r.moved_to);
		return TC_EXIT_OK;
	}
	printf("tracecost: restored the tracing settings of run %ld: %d instance%s removed, "
	       "%d file%s written back%s%s; buffer contents cannot be restored\n", r.pid,
	       r.instances, r.instances == 1 ? "" : "s", r.files, r.files == 1 ? "" : "s",
	       r.kmod_cancelled ? ", tracecost.ko run stopped" : "",
	       r.kmod_unloaded ? ", tracecost.ko unloaded" : "");
	return TC_EXIT_OK;
}
