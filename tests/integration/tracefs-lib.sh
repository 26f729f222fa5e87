# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shell helpers for integration tests that look at this machine's tracefs
# (sourced after tests/lib.sh's tmpdir): every setting a run could change,
# read through a private mount namespace so that looking mounts nothing
# anyone else sees. Used by system.sh, noise.sh and signals.sh; compare.sh
# and runs.sh for lock_wait. Sets:
#   TC_SNAP_MNT	the mount point of those looks, $tmp/mnt (removed with $tmp)
#   STATE	the state file of a run, /run/tracecost/state
#   bg		"": the pid of what a test runs in the background, for the
#		script's cleanup() to kill
export TC_SNAP_MNT="$tmp/mnt"
mkdir -p "$TC_SNAP_MNT"
STATE=/run/tracecost/state
bg=""

# in_tracefs SCRIPT [ARG...]: run the sh SCRIPT with ARGs as $1... inside
# tracefs (mounted at TC_SNAP_MNT when nobody has it mounted), in a private
# mount namespace
in_tracefs() {
	_script=$1
	shift
	unshare -m --propagation private sh -c '
		t=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)
		if [ -z "$t" ]; then
			t=$TC_SNAP_MNT && mount -t tracefs nodev "$t" || exit 1
		fi
		cd "$t" || exit 1
		'"$_script" sh "$@"
}
# snap: the settings, one file after another
snap() {
	in_tracefs '
		for f in tracing_on current_tracer buffer_size_kb trace_clock \
			 tracing_cpumask set_event set_event_pid trace_options; do
			echo "== $f"; cat "$f"
		done
		echo "== instances"; ls instances
		echo "== filters"; grep -v "^none$" -H events/*/*/filter 2>/dev/null
		echo "== enables"; grep -l 1 events/*/enable 2>/dev/null
		for i in instances/*/; do
			[ -d "$i" ] || continue
			echo "== $i"; cat "$i/tracing_on" "$i/current_tracer" "$i/set_event"
		done
	' 2>&1
}
# has_instance NAME: whether instance NAME exists now
has_instance() { in_tracefs '[ -d "instances/$1" ]' "$1"; }
# uprobes_of GROUP: how many uprobe events of GROUP are defined now
uprobes_of() { in_tracefs 'grep -c "^[pr]:$1/" uprobe_events' "$1"; }
# mounted: tracefs and debugfs mounts everyone sees
mounted() { grep -E ' (tracefs|debugfs) ' /proc/mounts | sort; }
# wait_instance NAME PID: wait up to 20 s for instance NAME while PID lives
wait_instance() {
	i=0
	while [ $i -lt 200 ]; do
		has_instance "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# ---- what tracecost itself changes (issue 22 item 14) ----------------------
# Other tracing users on the machine (trace-cmd, another worktree's tests,
# another tracecost run) change the top level and their own instances while
# a test runs: a test compares only what tracecost could have changed, and
# sees what tracecost did from its own system calls.

# traced LOG CMD...: CMD (and its children) under strace, every call that can
# change a file recorded in LOG (untraced calls do not stop: --seccomp-bpf)
traced() {
	_log=$1
	shift
	strace -f -qq --seccomp-bpf -e signal=none -o "$_log" \
		-e trace=open,openat,openat2,creat,mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2,truncate,mount,umount2 \
		"$@"
}
# tracefs_writes LOG: the successful calls of LOG that change tracing state
# (written tracefs or debugfs files, instances made or removed, the state
# file), one "CALL PATH" per line. Not tracecost's tracefs mount in its
# private mount namespace, which nobody else sees (mounted() checks that no
# mount appears for everyone).
tracefs_writes() {
	awk '
		{
			call = $2; sub(/\(.*/, "", call)
			if (!match($0, /"[^"]*"/))
				next
			path = substr($0, RSTART + 1, RLENGTH - 2)
			if ($0 ~ / = -1 /)
				next
			if (call ~ /^(open|openat|openat2)$/ && $0 !~ /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/)
				next
			if (call == "mount" || call == "umount2")
				next
			if (path ~ /^\/sys\/kernel\/(tracing|debug)(\/|$)/ || path == "/run/tracecost/state")
				print call " " path
		}' "$1"
}
# foreign_writes LOG: what tracefs_writes LOG lists outside what a run may
# change: its own instances (instances/tracecost-PID), the uprobe events it
# adds and removes, the state file, its private tracefs mount
foreign_writes() {
	tracefs_writes "$1" | grep -Ev \
		' /sys/kernel/(debug/)?tracing/(instances/tracecost-[0-9]+(/.*)?|uprobe_events)$|^(open|openat|unlink|rename)[a-z0-9]* /run/tracecost/state$'
}
# snap_ours PID...: the tracing state a run of these pids can change: their
# instances (with their settings) and the state file (whether it is there and
# theirs). Not the uprobe events: their names are tracecost's, not a run's
# (the user suite's --peers usdt, another run's on a shared machine), and
# the system suite and noise add none (foreign_writes checks that).
snap_ours() {
	_ours=" $* "
	snap | awk -v ours="$_ours" '
		/^== / { blk = $0; drop = 0 }
		/^== instances\// { name = $2; sub(/^instances\//, "", name); sub(/\/$/, "", name)
				    drop = index(ours, " " substr(name, 11) " ") == 0 || name !~ /^tracecost-/ }
		blk == "== instances" && !/^== / { if ($0 ~ /^tracecost-/ && index(ours, " " substr($0, 11) " ")) print; next }
		blk ~ /^== (tracing_on|current_tracer|buffer_size_kb|trace_clock|tracing_cpumask|set_event|set_event_pid|trace_options|filters|enables)$/ { next }
		!drop'
	# the state file counts when it is one of these runs' (another run's comes and goes)
	_st=absent
	if [ -e /run/tracecost/state ]; then
		_p=$(grep -o '"pid": *[0-9]*' /run/tracecost/state 2>/dev/null | grep -o '[0-9]*$')
		case "$_ours" in *" ${_p:-x} "*) _st="present (pid $_p)" ;; esac
	fi
	echo "== state file: $_st"
}
# snap_instance NAME: instance NAME (a user's own), its settings, and whether it is there
snap_instance() {
	snap | awk -v want="instances/$1/" '
		/^== / { blk = $0 }
		blk == "== instances" && $0 == substr(want, 11, length(want) - 11) { print "present" }
		blk == "== " want'
}
# top_note BEFORE AFTER DESC: the rest of tracefs (top level, other users'
# instances) is not compared; when it changed meanwhile, say so
top_note() {
	if ! cmp -s "$1" "$2"; then
		echo "note - $3: tracefs outside tracecost's instances changed meanwhile (another tracing user; not compared): $(diff "$1" "$2" | grep '^[<>]' | head -2 | tr '\n' ' ')"
	fi
}
# tests_lock: one test script at a time in the tracefs sections (several
# worktrees' make check on one machine): a tracecost run refuses to start while
# another holds /run/tracecost/lock, which would fail the test for nothing
tests_lock() {
	exec 9>>/run/tracecost-tests.lock
	if ! flock -n 9; then
		echo "note - waiting for another test run's tracefs section (/run/tracecost-tests.lock)"
		flock 9
	fi
}
# state_of PID: whether the state file is there and names run PID
state_of() {
	[ -e /run/tracecost/state ] &&
		grep -q "\"pid\": *$1[,}]" /run/tracecost/state 2>/dev/null
}
# state_wait: wait (up to 10 min) while the state file is another live run's
state_wait() {
	_i=0
	while [ -e /run/tracecost/state ] && [ $_i -lt 600 ]; do
		_p=$(grep -o '"pid": *[0-9]*' /run/tracecost/state 2>/dev/null | grep -o '[0-9]*$')
		[ -n "$_p" ] && kill -0 "$_p" 2>/dev/null || return 1
		[ $_i -eq 0 ] && echo "note - waiting for another tracecost run (pid $_p) to end"
		sleep 1
		_i=$((_i + 1))
	done
	[ ! -e /run/tracecost/state ]
}
# lock_wait: wait (up to 10 min) while another tracecost run holds its lock
# (a run refuses to start then: "another tracecost run ... holds"); looked
# up in /proc/locks, never taken, so that no run of someone else is refused
lock_wait() {
	_ino=$(stat -c %i /run/tracecost/lock 2>/dev/null) || return 0
	_i=0
	while grep -Eq "FLOCK .* [0-9a-f]+:[0-9a-f]+:$_ino " /proc/locks && [ $_i -lt 600 ]; do
		[ $_i -eq 0 ] && echo "note - waiting for another tracecost run to release /run/tracecost/lock" >&2
		sleep 1
		_i=$((_i + 1))
	done
}
