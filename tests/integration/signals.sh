#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Signals and killed processes (issue 22, items 1-5):
#  1. SIGINT to the process group inside the fork-to-exec window of
#     --runs (widened by the LD_PRELOAD shim exec-window.so) ends the child
#     there: it never reaches its exec;
#  3. kill -9 of the --runs parent: its child dies with it (PR_SET_PDEATHSIG,
#     also checked after the exec), 'tracecost restore' removes the
#     temporary directory it left;
#  4. kill -9 of the supervisor of a tracing run: the measuring child
#     restores tracing in its place (or says to run 'tracecost restore');
#  5. a corrupt state file: runs say it cannot be read, restore says what it
#     is, undoes what it can, moves it aside, and runs start again;
#  6. Ctrl-C with stderr piped: the pipe's reader ends first, the run's
#     next write gets EPIPE (not SIGPIPE) and it still restores tracing;
#  and the latency of a signal (SIGINT to the process group, as Ctrl-C, or
#  SIGTERM to the process) at random moments of runs of each suite and
#  several configurations that run on this machine: exit 130 and nothing
#  left behind are asserted, the latencies reported (see "latency" below).
# Knobs: SIGNAL_TRIALS=N trials per suite (default 4: make check's
#  integration stage), SIGNAL_TRIALS_SLOW=N for usdt+ whose uprobes take
#  ~20 s to remove here (default 2), SIGNAL_BOUND_MS=MS fails a trial whose
#  signal was seen later (make check-signals: 100 trials, 1000 ms), SEED=N
#  for the moments, SIGNAL_ONLY=REGEX only the latency trials of the runs
#  whose name matches (e.g. 'system|noise').
# Usage: tests/integration/signals.sh TRACECOST EXEC-WINDOW.SO SIGTRIAL
set -u
TC=$(readlink -f "$1")
SHIM=$(readlink -f "$2")
SIGTRIAL=$(readlink -f "$3")
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
tmpdir
cleanup() {
	[ -n "${bg:-}" ] && kill -9 $bg 2>/dev/null
}
. "$(dirname "$0")/tracefs-lib.sh"
SIGNAL_TRIALS=${SIGNAL_TRIALS:-4}
SEED=${SEED:-$(date +%s)}
echo "seed $SEED, $SIGNAL_TRIALS trials per suite"
root=0
[ "$(id -u)" -eq 0 ] && root=1
now_ms() { date +%s%N | cut -c1-13; }
# wait_for COND...: up to 20 s
wait_for() {
	i=0
	while [ $i -lt 400 ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
dead() { ! alive "$1"; }
has_child() { pgrep -P "$1" >/dev/null; }
cd "$tmp" || exit 1

# SIGNAL_ONLY=REGEX: only the latency trials of the runs whose name matches
if [ -n "${SIGNAL_ONLY:-}" ]; then
	echo "only the latency trials matching '$SIGNAL_ONLY'"
else
# ---- 1. a signal between fork and exec of a --runs child ----
: >win
TC_EXEC_WINDOW=$tmp/win LD_PRELOAD=$SHIM setsid "$TC" run --runs 3 --cpus 0 --samples 20000 \
	--json w.json >/dev/null 2>w.err &
bg=$!
second() { [ "$(grep -c '^window' win)" -ge 2 ]; }
if wait_for second; then
	kill -INT -$bg
	wait $bg
	rc=$?
	bg=""
	child=$(grep '^window' win | sed -n 2p | cut -d' ' -f2)
	if [ $rc -eq 130 ] && ! grep -q "^exec $child\$" win && [ ! -e w.json ]; then
		ok "1. SIGINT inside the fork-to-exec window of run 2: exit 130, the child ended there"
	else
		not_ok "1. fork-to-exec window: rc=$rc, $(tr '\n' ' ' <win); $(cat w.err)"
	fi
else
	not_ok "1. the second run's window never came: $(cat w.err)"
fi

# ---- 3. kill -9 of the --runs parent ----
TRACECOST_RUNS_PARENT=1 "$TC" run --cpus 0 --samples 2000 >/dev/null 2>pp.err
rc=$?
[ $rc -eq 130 ] && grep -q "is gone" pp.err &&
	ok "3. a run whose --runs parent is gone before its exec ends at once: $(cat pp.err)" ||
	not_ok "3. parent gone before the exec: rc=$rc $(cat pp.err)"
ls -d /tmp/tracecost-runs.* 2>/dev/null | sort >dirs0
"$TC" run --runs 3 --cpus 0 --samples 5000000 >/dev/null 2>o.err &
bg=$!
if wait_for has_child $bg; then
	child=$(pgrep -P $bg)
	ls -d /tmp/tracecost-runs.* 2>/dev/null | sort >dirs1
	kill -9 $bg
	wait $bg 2>/dev/null
	bg=$child
	if wait_for dead $child; then
		bg=""
		ok "3. kill -9 of the --runs parent: its child $child died with it"
	else
		not_ok "3. kill -9 of the --runs parent: child $child still runs"
		kill -9 $child
		bg=""
	fi
	new=$(comm -13 dirs0 dirs1)
	"$TC" restore >r.out 2>r.err
	if [ -n "$new" ] && [ ! -e "$new" ] && grep -q "removed [0-9]* temporary director" r.out; then
		ok "3. tracecost restore removed the killed run's $new"
	else
		not_ok "3. restore: '$new' still there? $(cat r.out r.err)"
		[ -n "$new" ] && rm -rf "$new"
	fi
else
	not_ok "3. no child of --runs seen"
fi

# ---- 4. kill -9 of a tracing run's supervisor ----
if [ $root -eq 0 ]; then
	skip "4. kill -9 of the supervisor: needs root (tracefs)"
elif [ -e "$STATE" ]; then
	skip "4. kill -9 of the supervisor: $STATE exists (another run on this machine)"
else
	"$TC" run --suite system --profiles none,sched --workloads getpid --calls 3000000 \
		--repeat 100 >/dev/null 2>s.err &
	bg=$!
	if wait_instance "tracecost-$bg" $bg && wait_for has_child $bg; then
		child=$(pgrep -P $bg | head -1)
		kill -9 $bg
		wait $bg 2>/dev/null
		bg=$child
		wait_for dead $child
		bg=""
		if [ ! -e "$STATE" ] && ! has_instance "tracecost-$bg" &&
		   grep -q "restored tracing in its place" s.err; then
			ok "4. supervisor killed: the measuring child restored tracing: $(tail -1 s.err)"
		else
			not_ok "4. supervisor killed: state $(ls $STATE 2>&1); $(cat s.err)"
			"$TC" restore >/dev/null 2>&1
		fi
	else
		not_ok "4. no instance or no measuring child seen: $(cat s.err)"
	fi
fi

# ---- 5. a corrupt state file ----
if [ $root -eq 0 ]; then
	skip "5. corrupt state file: needs root (/run/tracecost)"
elif [ -e "$STATE" ]; then
	skip "5. corrupt state file: $STATE exists (another run on this machine)"
else
	mkdir -p /run/tracecost
	echo '{"version": 1, "pid": 12, "files": [{"path": "tracing_on", "content": "1' >"$STATE"
	"$TC" run --suite system --profiles none --workloads getpid --calls 1000 --repeat 1 \
		>c.out 2>c.err
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <c.err)" -eq 1 ] && grep -q "cannot be read" c.err &&
	   grep -q "tracecost restore" c.err &&
		ok "5. a run refuses a corrupt state file, saying so: $(cat c.err)" ||
		not_ok "5. run with a corrupt state: rc=$rc $(cat c.err)"
	"$TC" restore >c.out 2>c.err
	rc=$?
	if [ $rc -eq 0 ] && grep -q "not a tracecost state file" c.out &&
	   grep -q "it names run 12" c.out && grep -q "not written back.*tracing_on" c.out &&
	   grep -q "state.corrupt" c.out && [ ! -e "$STATE" ]; then
		ok "5. restore of a corrupt state: says what it is and what is lost, moves it aside"
	else
		not_ok "5. restore of a corrupt state: rc=$rc $(cat c.out c.err)"
	fi
	"$TC" run --suite system --profiles none --workloads getpid --calls 1000 --repeat 1 \
		>/dev/null 2>c.err
	rc=$?
	[ $rc -eq 0 ] && ok "5. after it, runs start again" || not_ok "5. run after: rc=$rc $(cat c.err)"
	rm -f /run/tracecost/state.corrupt
	[ -e "$STATE" ] && rm -f "$STATE"
fi

# ---- 6. Ctrl-C with the output piped: the pipe's reader dies first ----
# "tracecost run ... 2>&1 | tee log", Ctrl-C: tee ends at once, so the run's
# "interrupted" line goes to a closed pipe. It must fail with EPIPE, not kill
# the run (SIGPIPE) before it restores tracing. The usdt+ columns are the
# run that sets up tracing in the measuring process itself (uprobes).
if [ $root -eq 0 ]; then
	skip "6. Ctrl-C with stderr piped: needs root (uprobes)"
elif [ -e "$STATE" ]; then
	skip "6. Ctrl-C with stderr piped: $STATE exists (another run on this machine)"
else
	rm -f pipe.fifo && mkfifo pipe.fifo
	# the run in a session of its own, its stderr read by cat
	setsid sh -c 'cat pipe.fifo >pipe.log & echo $! >cat.pid
		exec "$1" run --peers usdt --batch 64 --cpus 0 --samples 2000000 \
		>/dev/null 2>pipe.fifo' sh "$TC" &
	bg=$!
	usdt_up() { grep -q "tracecost-$bg" "$STATE" 2>/dev/null && grep -q '"uprobes"' "$STATE"; }
	if wait_for usdt_up; then
		sleep 1
		# the reader ends first (a background job of sh ignores SIGINT:
		# end it as Ctrl-C ends tee), then Ctrl-C to the run's group
		reader=$(cat cat.pid)
		kill -TERM "$reader"
		wait_for dead "$reader"
		kill -INT -$bg
		wait $bg
		rc=$?
		bg=""
		uprobes=$(uprobes_of tracecost_usdt)
		if [ $rc -eq 130 ] && [ ! -e "$STATE" ] && [ "$uprobes" = 0 ]; then
			ok "6. Ctrl-C with stderr piped (its reader gone first): exit 130, tracing restored"
		else
			not_ok "6. Ctrl-C with stderr piped: exit $rc (141: SIGPIPE), state file $(ls "$STATE" 2>&1), $uprobes usdt uprobes left"
			"$TC" restore >/dev/null 2>&1
		fi
	elif grep -q "usdt" pipe.log; then
		kill -9 $bg 2>/dev/null
		bg=""
		skip "6. Ctrl-C with stderr piped: no usdt+ columns here: $(head -1 pipe.log)"
	else
		not_ok "6. the usdt+ uprobes were never set up: $(cat pipe.log)"
	fi
fi

fi	# SIGNAL_ONLY

# ---- latency of a signal at a random moment, per suite ----
# trials N NAME LO_S HI_S ARGS...: N runs of "tracecost ARGS", each signalled
# at a random moment between LO_S and HI_S seconds after its start: SIGINT
# to its process group (as Ctrl-C) in odd trials, SIGTERM to its process (as
# kill PID) in even ones. Asserted in every trial: exit 130, and nothing
# left: no process of its session, no state file or tracefs instance of a
# dead run, no lock on /run/tracecost/lock held by a dead process, no
# /tmp/tracecost-runs.* directory whose run is gone, no LTTng home
# ($TMPDIR/tracecost-lttng.*). Timed by sigtrial (to
# ~1 ms): from the signal to the run's "interrupted" line (it saw the
# signal: the sampler and the workloads must stop within ~100 ms) and to
# its exit (after its restore: removing uprobes or an instance waits for
# the kernel's RCU grace periods); median, p99 and max per suite. With
# SIGNAL_BOUND_MS set (make check-signals: 1000), a signal seen later than
# that fails the trial: the bound of issue 22, a behaviour; make check
# reports the latencies and asserts none (a loaded machine is no failure).
# A run refused because another tracecost run holds the lock is retried
# after it.
n=0
# the runs' own TMPDIR: the LTTng peer's temporary homes are made there
export TMPDIR="$tmp/t"
mkdir "$TMPDIR"
# leftovers SID BEFORE: what the trial of session SID left (empty if nothing)
leftovers() {
	_left=""
	_i=0
	while [ -n "$(in_session "$1")" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	_ps=$(in_session "$1")
	if [ -n "$_ps" ]; then
		_left="processes $(echo $_ps)"
		kill -9 $_ps 2>/dev/null
	fi
	if [ -e "$STATE" ]; then
		_p=$(grep -o '"pid": *[0-9]*' "$STATE" 2>/dev/null | grep -o '[0-9]*$')
		[ -n "$_p" ] && ! kill -0 "$_p" 2>/dev/null && _left="$_left state file of dead run $_p"
	fi
	if [ $root -eq 1 ]; then
		for _in in $(instances); do
			kill -0 "${_in#tracecost-}" 2>/dev/null || _left="$_left instance $_in"
		done
	fi
	_ino=$(stat -c %i /run/tracecost/lock 2>/dev/null)
	if [ -n "$_ino" ]; then
		for _p in $(awk -v ino=":$_ino" '$2 == "FLOCK" && substr($6, length($6) - length(ino) + 1) == ino { print $5 }' /proc/locks); do
			kill -0 "$_p" 2>/dev/null || _left="$_left lock held by dead $_p"
		done
	fi
	for _d in "$TMPDIR"/tracecost-lttng.*; do
		[ -e "$_d" ] && _left="$_left $_d" && rm -rf "$_d"
	done
	for _d in $(ls -d /tmp/tracecost-runs.* 2>/dev/null | sort | comm -13 "$2" -); do
		[ -e "$_d/owner.lock" ] && flock -n "$_d/owner.lock" true 2>/dev/null && _left="$_left $_d"
	done
	echo "$_left"
}
# in_session SID: the live processes of session SID (not zombies: the dead
# children of a killed run are reparented to pid 1, which reaps them)
in_session() {
	ps -s "$1" -o stat=,pid= 2>/dev/null | awk '$1 !~ /^Z/ { print $2 }'
}
# instances: the tracecost-PID instances of tracefs now
instances() { in_tracefs 'ls instances' | grep '^tracecost-[0-9]*$'; }
# pct FILE P: the P-th percentile of FILE's numbers (nearest rank)
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}
summary=""
trials() {
	count=$1 name=$2 lo=$3 hi=$4
	shift 4
	if [ -n "${SIGNAL_ONLY:-}" ] && ! echo "$name" | grep -Eq -- "$SIGNAL_ONLY"; then
		return 0
	fi
	f=$(echo "$name" | tr -c 'a-z0-9\n' _)
	: >"seen.$f"
	: >"exit.$f"
	t=0
	bad=0
	early=0
	retry=0
	late=0
	while [ $t -lt "$count" ]; do
		n=$((n + 1))
		d=$(awk -v s="$SEED" -v n=$n -v lo="$lo" -v hi="$hi" \
			'BEGIN { srand(s + n); printf "%.3f", lo + rand() * (hi - lo) }')
		if [ $((t % 2)) -eq 0 ]; then sig=INT to=group; else sig=TERM to=pid; fi
		# one trial at a time with other test scripts' tracefs sections
		# (tests_lock), and after any other run's lock
		[ $root -eq 1 ] && { exec 9>>/run/tracecost-tests.lock; flock 9; }
		lock_wait >/dev/null
		ls -d /tmp/tracecost-runs.* 2>/dev/null | sort >dirs.before
		r=$("$SIGTRIAL" "$d" $sig $to t.err -- "$TC" "$@" 9>&-)
		[ $root -eq 1 ] && exec 9>&-
		[ -n "$r" ] || { bad=$((bad + 1)); echo "  $name: sigtrial failed"; break; }
		rc=${r%% *} r=${r#* }
		seen=${r%% *} r=${r#* }
		ex=${r%% *} sid=${r#* }
		left=$(leftovers "$sid" dirs.before)
		if [ "$rc" -eq 1 ] && grep -q "holds /run/tracecost/lock\|in progress" t.err &&
		   [ $retry -lt 20 ]; then
			retry=$((retry + 1))
			continue	# another run had the lock: not a trial
		fi
		if [ "$ex" -eq -2 ]; then
			early=$((early + 1))
			[ "$rc" -ne 0 ] && bad=$((bad + 1)) &&
				echo "  $name: ended before the signal with $rc: $(tail -1 t.err)"
			[ $early -gt $((count / 10 + 2)) ] &&
				{ bad=$((bad + 1)); echo "  $name: runs end before their signal"; break; }
			continue
		fi
		# a run that exits 130 before any line (the signal came before its handlers)
		[ "$seen" -lt 0 ] && seen=$ex
		echo "$seen" >>"seen.$f"
		echo "$ex" >>"exit.$f"
		if [ "$rc" -ne 130 ] || [ -n "$left" ]; then
			bad=$((bad + 1))
			echo "  $name trial $t (SIG$sig to the $to after $d s): rc=$rc left:${left:- nothing}; $(tail -1 t.err)"
		elif [ -n "${SIGNAL_BOUND_MS:-}" ] && [ "$seen" -gt "$SIGNAL_BOUND_MS" ]; then
			late=$((late + 1))
			echo "  $name trial $t (SIG$sig to the $to after $d s): seen after $seen ms > $SIGNAL_BOUND_MS ms"
		fi
		t=$((t + 1))
	done
	st() { echo "median $(pct "$1" 50), p99 $(pct "$1" 99), max $(pct "$1" 100)"; }
	stats="ms to 'interrupted' $(st "seen.$f"); to the exit $(st "exit.$f"); $t trials"
	[ $early -gt 0 ] && stats="$stats ($early more ended before their signal)"
	summary="$summary$(printf '  %-34s seen %s\n  %-34s exit %s' "$name" "$(st "seen.$f")" "" "$(st "exit.$f")")
"
	if [ $bad -eq 0 ] && [ $late -eq 0 ]; then
		ok "signal latency, $name: exit 130, nothing left in every trial; $stats"
	else
		not_ok "signal latency, $name: $bad wrong, $late late of $t trials; $stats"
	fi
}
SIGTRIALS=$SIGNAL_TRIALS
SLOW=${SIGNAL_TRIALS_SLOW:-$([ "$SIGNAL_TRIALS" -lt 2 ] && echo "$SIGNAL_TRIALS" || echo 2)}
trials $SIGTRIALS "user" 0.1 2.0 run --cpus 0 --samples 100000000
trials $SIGTRIALS "user --runs 4" 0.1 4.0 run --runs 4 --cpus 0 --samples 400000
trials $SIGTRIALS "user --peers lttng,flag,floor" 0.3 4.0 run --peers lttng,flag,floor --cpus 0 \
	--samples 3000000 --batch 64
if [ $root -eq 1 ]; then
	trials $SIGTRIALS "system (getpid,pipe,ctxsw)" 0.3 3.0 run --suite system \
		--profiles none,syscalls,sched --workloads getpid,pipe,ctxsw --calls 300000 \
		--round-trips 20000 --repeat 50
	trials $SIGTRIALS "system (fs,hackbench,walk)" 0.3 4.0 run --suite system \
		--profiles none,irq,function,preemptirq --workloads fs,hackbench,walk --files 500 \
		--loops 2000 --tree /usr/share/doc --repeat 20
	trials $SIGTRIALS "system --runs 3" 0.3 4.0 run --suite system --runs 3 \
		--profiles none,sched --workloads getpid,pipe --calls 300000 --round-trips 10000 --repeat 6
	trials $SIGTRIALS "noise (builtin load)" 0.3 4.0 noise --cpus 1 --duration 60s --load builtin
	trials $SIGTRIALS "noise (tlb load, spin)" 0.3 4.0 noise --cpus 1 --duration 60s --load tlb \
		--measure spin
	# the sampler sees the signal at once; removing uprobes then takes seconds
	trials $SLOW "user --peers usdt --batch 64" 3.0 8.0 run --peers usdt --batch 64 --cpus 0 \
		--samples 2000000
else
	skip "signal latency, system, noise and usdt+: need root"
fi
# the kernel suite: in a QEMU guest, where the module loads (tests/vm/signals.sh)
skip "signal latency, kernel: in the QEMU guest of make check-vm-signals (part of make check-vm)"
printf 'signal latency (ms, %d trials per suite, %d for usdt+; seed %s):\n%s' \
	"$SIGTRIALS" "$SLOW" "$SEED" "$summary"

summary signals skipped
