#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the signal-trial initramfs (tests/vm/signals.sh): random-time
# SIGINT (to the process group, as Ctrl-C; odd trials) and SIGTERM (to the
# process, as kill PID; even trials) to "tracecost run --suite kernel",
# which loads /tracecost.ko, runs, and unloads it. Each trial is timed by
# /sigtrial (tests/integration/sigtrial.c, static) on the guest's own
# CLOCK_MONOTONIC. Kernel command line: tctrials=N trials per set,
# tcseed=N for the moments. Sends to the data port, per trial:
#   TRIAL SET N SIG DELAY_S RC SEEN_MS EXIT_MS LEFT
# (LEFT "-" when nothing was left: no process of the trial's session, the
# module unloaded, no /run/tracecost/state, no lock held by a dead process,
# no tracefs instance, no /tmp/tracecost-runs.*, the global tracefs files
# as before the trials), "EARLY SET N RC" for a run that ended before its
# signal, and TEST lines.
. /guest-lib.sh
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
T=/sys/kernel/tracing
TRIALS=$(sed -n 's/.*tctrials=\([0-9]*\).*/\1/p' /proc/cmdline)
SEED=$(sed -n 's/.*tcseed=\([0-9]*\).*/\1/p' /proc/cmdline)
: "${TRIALS:=20}" "${SEED:=1}"
out "@@START signals $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) trials=$TRIALS seed=$SEED"

# what a run may change of tracefs outside its own instance
snap() {
	for f in tracing_on current_tracer set_event buffer_size_kb trace_clock \
		tracing_cpumask set_event_pid set_ftrace_filter trace_options; do
		[ -r "$T/$f" ] && echo "$f: $(tr "\n" " " <"$T/$f")"
	done
	echo "instances: $(ls "$T/instances")"
}
# The kernel expands the top buffer ("7 (expanded: 1408)" to 1410) the first
# time anything enables an event, an instance's too: before the first run,
# buffer_size_kb is left out; the trials compare with the state after it.
snap | grep -v '^buffer_size_kb' >/tmp/snap0

uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# in_session SID: the live processes of session SID
in_session() {
	awk -v sid="$1" '$6 == sid && $3 != "Z" { print $1 }' /proc/[0-9]*/stat 2>/dev/null
}
# leftovers SID: what a trial of session SID left ("" if nothing)
leftovers() {
	left=""
	i=0
	while [ -n "$(in_session "$1")" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	ps=$(in_session "$1")
	[ -n "$ps" ] && left="processes $(echo $ps)" && kill -9 $ps 2>/dev/null
	grep -q '^tracecost ' /proc/modules && left="$left module-loaded"
	[ -e /sys/kernel/debug/tracecost ] && left="$left debugfs-dir"
	[ -e /run/tracecost/state ] && left="$left state-file"
	ino=$(stat -c %i /run/tracecost/lock 2>/dev/null)
	if [ -n "$ino" ]; then
		for p in $(awk -v ino=":$ino" '$2 == "FLOCK" && substr($6, length($6) - length(ino) + 1) == ino { print $5 }' /proc/locks); do
			kill -0 "$p" 2>/dev/null || left="$left lock-of-dead-$p"
		done
	fi
	[ -n "$(ls "$T/instances")" ] && left="$left instance-$(ls "$T/instances" | tr '\n' ,)"
	ls -d /tmp/tracecost-runs.* >/dev/null 2>&1 && left="$left $(ls -d /tmp/tracecost-runs.*)"
	if [ "${first:-0}" = 1 ]; then snap | grep -v '^buffer_size_kb'; else snap; fi >/tmp/snap1
	cmp -s /tmp/snap0 /tmp/snap1 || left="$left tracefs-changed:$(diff /tmp/snap0 /tmp/snap1 | grep '^[-+][a-z]' | tr '\n' ' ')"
	# restore what is restorable, so that one bad trial does not spoil the next
	grep -q '^tracecost ' /proc/modules && rmmod tracecost 2>/dev/null
	[ -e /run/tracecost/state ] && /tracecost restore >/dev/null 2>&1
	rm -rf /tmp/tracecost-runs.*
	echo "${left:--}"
}

n=0
firstrun=1
# trials SET COUNT ARGS...: COUNT trials of "tracecost ARGS", each signalled
# at a moment uniform in [0.05 s, 0.9 x the length of an uninterrupted run]
# (its length varies with the host's load: a run that ends before its
# signal is no trial, said in an EARLY line; more than half fails)
trials() {
	set_name=$1 count=$2
	shift 2
	# two uninterrupted runs (the very first is checked against the state
	# before any run, but for buffer_size_kb): the shorter sets the range
	len=0
	for u in 1 2; do
		t0=$(uptime_ms)
		/sigtrial 100000 INT group /tmp/t.err -- /tracecost "$@" >/tmp/r
		rc=$(cut -d' ' -f1 /tmp/r)
		l=$(($(uptime_ms) - t0))
		out "LENGTH $set_name $l $rc"
		if [ "$rc" != 0 ]; then
			t "$set_name-uninterrupted-run-$u" FAIL "exit $rc: $(tail -c 300 /tmp/t.err | tr '\n' ' ')"
			return
		fi
		t "$set_name-uninterrupted-run-$u" ok
		lft=$(first=$firstrun leftovers "$(cut -d' ' -f4 /tmp/r)")
		[ "$lft" = - ] && t "$set_name-uninterrupted-nothing-left-$u" ok ||
			t "$set_name-uninterrupted-nothing-left-$u" FAIL "$lft"
		[ "$firstrun" = 1 ] && snap >/tmp/snap0
		firstrun=0
		{ [ $len -eq 0 ] || [ $l -lt $len ]; } && len=$l
	done
	out "SNAP $(tr '\n' ' ' </tmp/snap0)"
	k=0 early=0
	while [ $k -lt "$count" ] && [ $early -le $((count / 2 + 2)) ]; do
		n=$((n + 1))
		d=$(awk -v s="$SEED" -v n=$n -v len="$len" \
			'BEGIN { srand(s + n); printf "%.3f", 0.05 + rand() * (0.9 * len / 1000 - 0.05) }')
		if [ $((k % 2)) -eq 0 ]; then sig=INT to=group; else sig=TERM to=pid; fi
		r=$(/sigtrial "$d" $sig $to /tmp/t.err -- /tracecost "$@")
		rc=$(echo "$r" | cut -d' ' -f1)
		seen=$(echo "$r" | cut -d' ' -f2)
		ex=$(echo "$r" | cut -d' ' -f3)
		sid=$(echo "$r" | cut -d' ' -f4)
		lft=$(leftovers "$sid")
		if [ "$ex" = -2 ]; then
			early=$((early + 1))
			out "EARLY $set_name $n $rc $lft"
			continue
		fi
		# exit 130 before any line: the signal came before the handlers
		[ "$seen" -lt 0 ] && seen=$ex
		out "TRIAL $set_name $k $sig $d $rc $seen $ex $lft"
		[ "$rc" = 130 ] && [ "$lft" = - ] ||
			out "ERR $set_name $k $(tail -c 400 /tmp/t.err | tr '\n' ' ')"
		k=$((k + 1))
	done
}

# short runs (the signal lands as often in the loading, the set-up, the
# instance, the statistics and the tables as in a module run), long module
# runs (it lands in them: the module's cancel), and --runs 2 (a child run
# per repetition, each loading and unloading the module)
trials kernel "$TRIALS" run --suite kernel --module /tracecost.ko --samples 10000 \
	--highest 20 --repeat 1 --tracepoints both
trials kernel-long "$TRIALS" run --suite kernel --module /tracecost.ko --samples 100000 \
	--highest 20 --repeat 2 --tracepoints both --do-work
trials kernel-runs "$TRIALS" run --suite kernel --runs 2 --module /tracecost.ko \
	--samples 10000 --highest 20 --repeat 1 --tracepoints both
out "@@DONE"
sync
sleep 1
poweroff -f
