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
#  and the latency of a signal (SIGINT to the process group, as Ctrl-C) at
#  random moments of a run of each suite that runs on this machine: exit
#  130 and tracing restored are asserted, the latencies are reported, never
#  asserted (TRIALS=N per suite, default 8, 2 for usdt+ whose uprobes take
#  ~20 s to remove here; SEED=N for the moments).
# Usage: tests/integration/signals.sh path/to/tracecost path/to/exec-window.so
set -u
TC=$(readlink -f "$1")
SHIM=$(readlink -f "$2")
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
tmpdir
cleanup() {
	[ -n "${bg:-}" ] && kill -9 $bg 2>/dev/null
}
. "$(dirname "$0")/tracefs-lib.sh"
TRIALS=${TRIALS:-8}
SEED=${SEED:-$(date +%s)}
echo "seed $SEED, $TRIALS trials per suite"
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

# ---- latency of a signal at a random moment, per suite ----
# trials N NAME MIN_S MAX_S ARGS...: N runs of ARGS, SIGINT to the group at a
# random moment; the time to the first stderr line that says "interrupted"
# (the run saw the signal: what the sampler and the workloads must do within
# ~100 ms) and to the exit (after the restore: removing uprobes or an
# instance waits for the kernel's RCU grace periods), in ms
n=0
trials() {
	count=$1 name=$2 lo=$3 hi=$4
	shift 4
	: >"seen.$name"
	: >"exit.$name"
	t=0
	bad=0
	while [ $t -lt "$count" ]; do
		n=$((n + 1))
		d=$(awk -v s="$SEED" -v n=$n -v lo="$lo" -v hi="$hi" \
			'BEGIN { srand(s + n); printf "%.3f", lo + rand() * (hi - lo) }')
		setsid "$TC" "$@" >/dev/null 2>t.err &
		bg=$!
		sleep "$d"
		t0=$(now_ms)
		kill -INT -$bg 2>/dev/null
		seen=""
		while alive $bg; do
			[ -z "$seen" ] && grep -q "interrupted" t.err && seen=$(($(now_ms) - t0))
			sleep 0.01
		done
		wait $bg
		rc=$?
		t1=$(($(now_ms) - t0))
		# a run that exits 130 before any line (the signal came before its handlers)
		echo "${seen:-$t1}" >>"seen.$name"
		echo $t1 >>"exit.$name"
		left=""
		[ -e "$STATE" ] && left="$STATE "
		[ $root -eq 1 ] && has_instance "tracecost-$bg" && left="${left}instance "
		bg=""
		if [ $rc -ne 130 ] || [ -n "$left" ]; then
			bad=$((bad + 1))
			echo "  $name trial $t (signal after $d s): rc=$rc ${left}$(tail -1 t.err)"
		fi
		t=$((t + 1))
	done
	med() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "median %d, max %d", v[int((NR + 1) / 2)], v[NR] }'; }
	stats="ms to 'interrupted' $(med "seen.$name"), to the exit $(med "exit.$name") over $count trials"
	[ $bad -eq 0 ] && ok "signal latency, $name: exit 130 and tracing restored in every trial; $stats" ||
		not_ok "signal latency, $name: $bad of $count trials wrong; $stats"
}
trials $TRIALS user 0.1 2.0 run --cpus 0 --samples 100000000
trials $TRIALS "user --runs 4" 0.1 4.0 run --runs 4 --cpus 0 --samples 400000
if [ $root -eq 1 ]; then
	trials $TRIALS system 0.3 3.0 run --suite system --profiles none,syscalls,sched \
		--workloads getpid,pipe,ctxsw --calls 300000 --round-trips 20000 --repeat 50
	# the sampler sees the signal at once; removing uprobes then takes seconds
	trials 2 "user --peers usdt --batch 64" 3.0 8.0 run --peers usdt --batch 64 --cpus 0 --samples 2000000
else
	skip "signal latency, system and usdt+: need root"
fi
if [ -e /sys/module/tracecost ] || modprobe -n tracecost 2>/dev/null; then
	skip "signal latency, kernel: not run here (make check-kernel boots the module)"
else
	skip "signal latency, kernel: tracecost.ko cannot be loaded on this machine"
fi

summary signals skipped
