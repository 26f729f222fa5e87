#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Integration tests of "tracecost run --suite system" and "tracecost restore":
# bad input (exit 2, one line, tracefs untouched), every workload's result
# (finite, positive, the work asked for), that a profile really traced the
# workload, and the restore contract on this machine's real tracefs: equal
# settings before and after a run, after SIGINT mid-run, and after kill -9
# followed by "tracecost restore". Asserts behaviour only, never timing.
# The tracefs parts need root; without it they are skipped.
# Usage: tests/integration/system.sh path/to/tracecost
set -u
TC=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
top=$(readlink -f "$here/../..")
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir
cleanup() {
	[ -n "${bg:-}" ] && kill -9 -"$bg" 2>/dev/null
}

root=0
[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && root=1

# snap, has_instance, mounted, wait_instance (shared with noise.sh)
# shellcheck source=tests/integration/tracefs-lib.sh
. "$here/tracefs-lib.sh"

# A small tree for walk: root + 4 directories of 5 files = 25 entries.
mkdir -p "$tmp/tree"
for d in 1 2 3 4; do
	mkdir "$tmp/tree/d$d"
	for f in 1 2 3 4 5; do : >"$tmp/tree/d$d/f$f"; done
done
SMALL="--calls 20000 --round-trips 300 --ring-trips 30 --procs 2,3 --sizes 0,1
	--files 40 --dir $tmp --groups 1 --fds 2 --loops 100 --tree $tmp/tree"

# The tracefs sections: one test script at a time on this machine
[ $root -eq 1 ] && tests_lock

# ---- bad input: exit 2, one line, nothing else happens ------------------
# (under strace: tracecost opened no tracefs file for writing, made no
# instance, mounted nothing and wrote no state file; what other tracing users
# do meanwhile does not count)
[ $root -eq 1 ] && mounted >"$tmp/mnt0"
printf '[ok]\nevent = sched:sched_switch\n[bad]\nevent sched:sched_switch\n' >"$tmp/syntax.profiles"
printf '[p]\nsummary = typo\nevent = sched:sched_switchh\n' >"$tmp/event.profiles"
printf '[p]\nevent = sched:sched_wakeup if prio <<< 3\n' >"$tmp/filter.profiles"
printf '[syscalls]\nevent = sched:sched_switch\n' >"$tmp/builtin.profiles"
expect_usage() {
	desc=$1; shift
	rm -rf "$tmp/out"; mkdir -p "$tmp/out"
	if [ $root -eq 1 ]; then
		(cd "$tmp/out" && traced "$tmp/strace" "$TC" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
	else
		(cd "$tmp/out" && "$TC" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
	fi
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	untouched=1
	if [ $root -eq 1 ]; then
		[ -n "$(tracefs_writes "$tmp/strace")" ] && untouched=0
		rm -f "$tmp/strace"
	fi
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/stdout" ] &&
	   [ -z "$(ls -A "$tmp/out")" ] && [ $untouched -eq 1 ]; then
		ok "$desc: exit 2: $(cat "$tmp/stderr")"
	else
		not_ok "$desc: rc=$rc, stderr lines=$lines, tracefs untouched=$untouched: $(head -3 "$tmp/stderr")"
	fi
}
S="run --suite system"
expect_usage "unknown workload" $S --workloads getpid,nosuch --json out.json
expect_usage "workload twice" $S --workloads getpid,getpid
expect_usage "unknown profile" $S --profiles none,nosuch
expect_usage "profile twice" $S --profiles none,none
expect_usage "--repeat 0" $S --repeat 0
expect_usage "--calls 0" $S --calls 0
expect_usage "--procs 1" $S --workloads ctxsw --procs 1
expect_usage "--procs 2,x" $S --procs 2,x
expect_usage "--sizes 1m" $S --sizes 1m
expect_usage "--tree missing" $S --workloads walk --tree /nonexistent/tree
expect_usage "--dir missing" $S --workloads fs --dir /nonexistent/dir
expect_usage "--ipc carrier" $S --ipc carrier
expect_usage "--loops 0" $S --loops 0
expect_usage "--count bogus" $S --count bogus
expect_usage "--count fentry with profiles" $S --count fentry --workloads getpid
[ "$(nproc)" -ge 2 ] &&
	expect_usage "--count fentry on two CPUs" $S --count fentry --profiles none --cpus 0,1
expect_usage "--json in a missing directory" $S --json /nonexistent/dir/x.json
expect_usage "stray argument" $S stray
expect_usage "--profile-file missing" $S --profile-file /nonexistent/p
expect_usage "profile file: bad syntax" $S --profile-file "$tmp/syntax.profiles"
grep -q "syntax.profiles:4: expected" "$tmp/stderr" && ok "syntax error names line 4" ||
	not_ok "syntax error line: $(cat "$tmp/stderr")"
expect_usage "profile file: built-in name" $S --profile-file "$tmp/builtin.profiles"
expect_usage "restore with an argument" restore --now
if [ $root -eq 1 ]; then
	expect_usage "profile file: bad event" $S --profile-file "$tmp/event.profiles"
	grep -q "event.profiles:3: unknown event 'sched:sched_switchh'" "$tmp/stderr" &&
		ok "bad event names file, line 3 and event" || not_ok "bad event: $(cat "$tmp/stderr")"
	expect_usage "profile file: bad filter" $S --profile-file "$tmp/filter.profiles"
	grep -q "filter.profiles:2: bad filter for sched:sched_wakeup" "$tmp/stderr" &&
		ok "bad filter names file, line 2 and event" || not_ok "bad filter: $(cat "$tmp/stderr")"
	mounted >"$tmp/mnt1"
	cmp -s "$tmp/mnt0" "$tmp/mnt1" && ok "bad input mounted nothing" ||
		not_ok "mounts changed: $(diff "$tmp/mnt0" "$tmp/mnt1")"
else
	skip "profile file checks against the kernel (not root)"
fi
if "$TC" $S --help | grep -q -- '--profile-file'; then ok "run --suite system --help"; else
	not_ok "run --suite system --help"; fi

# ---- every workload, no tracing: figures and work ------------------------
check() {
	if jq -e "$2" "$1" >/dev/null 2>&1; then ok "json: $3"; else not_ok "json: $3"; fi
}
# shellcheck disable=SC2086
if "$TC" $S --profiles none --repeat 2 $SMALL --json "$tmp/none.json" >"$tmp/none.out" \
	2>"$tmp/none.err"; then
	ok "all workloads under none"
else
	not_ok "all workloads under none: $(cat "$tmp/none.err")"
fi
check "$tmp/none.json" '.suite == "system" and .file_version == 1 and .system.repeat == 2' "header"
check "$tmp/none.json" '[.system.workloads[].name] == ["getpid","pipe","ctxsw","fs","hackbench","walk"]' "six workloads"
check "$tmp/none.json" '[.system.workloads[].metrics[].name] == ["getpid","pipe","ctxsw 2 procs","ctxsw 3 procs","fs 0k create","fs 0k delete","fs 1k create","fs 1k delete","hackbench","walk"]' "one metric per figure"
check "$tmp/none.json" '[.system.workloads[].metrics[].cells[].values[] | (isinfinite or isnan or . <= 0) | not] | all' "every value finite and positive"
check "$tmp/none.json" '[.system.workloads[].metrics[] | .work_asked as $w | .cells[].work[] == $w] | all' "work done == work asked"
check "$tmp/none.json" '[.system.workloads[].metrics[] | select(.name == "walk") | .work_asked] == [25]' "walk found the 25 entries of the tree"
check "$tmp/none.json" '[.system.workloads[].metrics[] | select(.name == "hackbench") | .work_asked] == [400]' "hackbench: 1 x 2 x 2 x 100 messages"
check "$tmp/none.json" '. as $r | [.system.workloads[].metrics[] | select(.name == "getpid") | .work_asked] == [20000 * ($r.cpus | length)]' "getpid: calls x CPUs"
check "$tmp/none.json" '[.system.workloads[].metrics[].cells[] | .values | length == 2] | all' "two values per cell"
check "$tmp/none.json" '.system.tracefs == null and ([.system.workloads[].metrics[].cells[].events_written[]] | all(. == 0))' "none: no tracefs, no events"
for t in "getpid:" "pipe:" "ctxsw 2 procs:" "fs 1k delete:" "hackbench:" "walk:"; do
	grep -q "^$t" "$tmp/none.out" && ok "table '$t'" || not_ok "table '$t' missing"
done
c=$(grep -c '^ *median  ' "$tmp/none.out")
[ "$c" -eq 10 ] && ok "a median row in each of the 10 tables" || not_ok "median rows: $c"

# Under QEMU -icount (tracecost vm --deterministic puts TC_CLOCK=icount in the
# guest's environment) the guest clock counts instructions: the progress
# lines say instructions, never "0.0 s"; compare prints a hackbench run of a
# fraction of a millisecond with figures, not 0.0 (issue 22 item 18).
lock_wait
TC_CLOCK=icount "$TC" $S --profiles none --workloads getpid,hackbench --calls 2000 --groups 1 \
	--fds 2 --loops 20 --repeat 1 --json "$tmp/ic.json" >"$tmp/ic.out" 2>"$tmp/ic.err"
if grep -Eq "^tracecost: estimate: about [0-9.]+ ?[kMG]? instructions for 2 workloads.*-icount" "$tmp/ic.err" &&
   grep -Eq "^tracecost: \[2/2\] hackbench done in [0-9.]+ ?[kMG]? instructions; [0-9.]+ ?[kMG]? instructions elapsed" "$tmp/ic.err" &&
   ! grep -q " 0\.0 s" "$tmp/ic.err"; then
	ok "TC_CLOCK=icount: progress in guest instructions ($(grep -c instructions "$tmp/ic.err") lines)"
else
	not_ok "TC_CLOCK=icount progress: $(head -3 "$tmp/ic.err")"
fi
"$TC" compare --metrics median,min,max "$tmp/ic.json" >"$tmp/ic.cmp" 2>&1
hb=$(awk '/^hackbench/ { h = 1 } h && $1 == "median" { print $2; exit }' "$tmp/ic.cmp")
if [ -n "$hb" ] && awk -v v="$hb" 'BEGIN { exit !(v + 0 > 0) }'; then
	ok "compare: hackbench's median in s reads $hb, not 0.0"
else
	not_ok "compare: hackbench median '$hb': $(grep -A4 '^hackbench' "$tmp/ic.cmp")"
fi

# Without root: --profiles none works, a tracing profile says it needs root.
if [ $root -eq 1 ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
	cp "$TC" "$tmp/tc" && chmod 755 "$tmp" "$tmp/tc"
	if (cd / && as_nobody "$tmp/tc" $S --profiles none --workloads getpid --calls 1000 \
		--repeat 1 >/dev/null 2>"$tmp/nobody.err"); then
		ok "not root: --profiles none runs"
	else
		not_ok "not root: --profiles none: $(cat "$tmp/nobody.err")"
	fi
	(cd / && as_nobody "$tmp/tc" $S --profiles none,syscalls --workloads getpid \
		>"$tmp/nobody.out" 2>"$tmp/nobody.err")
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/nobody.err")" -eq 1 ] &&
	   grep -q 'root' "$tmp/nobody.err" && [ ! -s "$tmp/nobody.out" ]; then
		ok "not root: tracing profile: exit 1: $(cat "$tmp/nobody.err")"
	else
		not_ok "not root: tracing profile: rc=$rc $(cat "$tmp/nobody.err")"
	fi
else
	skip "unprivileged runs (not root, or no setpriv)"
fi

if [ $root -eq 0 ]; then
	echo "system: $pass passed, $fail failed, $skipped skipped (tracefs tests need root)"
	[ "$fail" -eq 0 ]
	exit
fi

# ---- on the real tracefs ------------------------------------------------
if ! state_wait; then
	not_ok "a state file of no live run is there ($STATE): not running the tracefs tests"
	summary system skipped
	exit 1
fi
snap >"$tmp/before"
snap_ours >"$tmp/ours0"
mounted >"$tmp/mnt0"

# "none": no instance, no state file, at any time during the run.
lock_wait
"$TC" $S --profiles none --workloads getpid --calls 2000000 --repeat 3 >/dev/null 2>&1 &
pid=$!
seen=0
while kill -0 $pid 2>/dev/null; do
	{ has_instance "tracecost-$pid" || state_of $pid; } && seen=1
	sleep 0.05
done
wait $pid
[ $seen -eq 0 ] && ok "--profiles none: no instance and no state file during the run" ||
	not_ok "--profiles none: an instance or state file appeared"

# Another tracing user meanwhile (trace-cmd, a second test run): an instance
# of its own, tracing, made after the snapshot and removed after the run's.
other="tc-other-$$"
other_instance() { # other_instance 1|0: make it tracing, or remove it
	unshare -m --propagation private sh -c '
		t=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)
		[ -n "$t" ] || { t=$TC_SNAP_MNT; mount -t tracefs nodev "$t"; }
		if [ "$2" = 1 ]; then
			mkdir "$t/instances/$1" && echo 1 >"$t/instances/$1/events/sched/sched_wakeup/enable"
		else
			echo 0 >"$t/instances/$1/events/sched/sched_wakeup/enable"; rmdir "$t/instances/$1"
		fi' sh "$other" "$1"
}
other_instance 1

# Tracing profiles on every workload; the profile really traced the workload.
# Under strace: what the run wrote in tracefs (only its own instance).
# shellcheck disable=SC2086
lock_wait
if traced "$tmp/tr.strace" "$TC" $S --profiles none,syscalls,sched --repeat 2 $SMALL \
	--json "$tmp/tr.json" >"$tmp/tr.out" 2>"$tmp/tr.err"; then
	ok "all workloads under none, syscalls, sched"
else
	not_ok "all workloads under none, syscalls, sched: $(cat "$tmp/tr.err")"
fi
check "$tmp/tr.json" '[.system.workloads[].metrics[0].cells | map(.profile)] | all(. == ["none","syscalls","sched"])' "three columns per table"
check "$tmp/tr.json" '[.system.workloads[] | select(.name == "getpid") | .metrics[0].cells[] | select(.profile == "syscalls") | .events_from_workload[] > 0] | all' "syscalls: the instance recorded sys_enter/exit of getpid's threads"
check "$tmp/tr.json" '[.system.workloads[] | .metrics[0].cells[] | select(.profile == "syscalls") | .events_written[] > 0] | all' "syscalls: events on every workload"
check "$tmp/tr.json" '[.system.workloads[] | .metrics[0].cells[] | select(.profile == "none") | .events_written[] == 0] | all' "none: no events"
check "$tmp/tr.json" '[.system.workloads[].metrics[] | .work_asked as $w | .cells[].work[] == $w] | all' "traced: work done == work asked"
check "$tmp/tr.json" '[.system.workloads[].metrics[].cells[] | select(.profile != "none") | .overhead_pct.value | type == "number"] | all' "an overhead per traced cell"
check "$tmp/tr.json" '.system.tracefs.instance | test("^tracecost-[0-9]+$")' "instance named in the result"
# The figures follow from the values: medians, and the change of the medians.
MEDIAN='sort | if length % 2 == 1 then .[(length - 1) / 2] else (.[length / 2 - 1] + .[length / 2]) / 2 end'
NEAR='(if . < 0 then -. else . end) < 1e-6'
check "$tmp/tr.json" "[.system.workloads[].metrics[].cells[] | ((.values | $MEDIAN) - .summary.median) | $NEAR] | all" "summary.median is the median of the values"
check "$tmp/tr.json" "[.system.workloads[].metrics[] | .higher_is_better as \$h
	| (.cells[] | select(.profile == \"none\") | .values) as \$n
	| .cells[] | select(.profile != \"none\") | . as \$c
	| ((((\$c.values | $MEDIAN) / (\$n | $MEDIAN)) - 1) * 100) - \$c.overhead_pct.value | $NEAR] | all" "overhead_pct.value: median / median of none - 1, as compare's change"
grep -q '^ *median vs none ' "$tmp/tr.out" && ok "change row" || not_ok "change row"
trpid=$(jq -r '.system.tracefs.instance' "$tmp/tr.json" 2>/dev/null | sed 's/^tracecost-//')
! state_of "$trpid" && ok "no state file of the run after it" || not_ok "state file left after a run"
foreign=$(foreign_writes "$tmp/tr.strace")
[ -z "$foreign" ] && grep -q "mkdir.*instances/tracecost-$trpid" "$tmp/tr.strace" &&
	ok "a tracing run wrote only in its own instance (strace: $(tracefs_writes "$tmp/tr.strace" | wc -l) calls)" ||
	not_ok "a tracing run wrote outside its instance: $(echo "$foreign" | head -3)"
snap >"$tmp/after"
snap_ours "$trpid" >"$tmp/ours1"
if cmp -s "$tmp/ours0" "$tmp/ours1"; then ok "what a run can change is as before after it (its instance gone)"; else
	not_ok "tracefs changed by a run: $(diff "$tmp/ours0" "$tmp/ours1" | head -5)"; fi
top_note "$tmp/before" "$tmp/after" "after a run"
grep -q "^== instances/$other/" "$tmp/after" && ok "another user's instance made meanwhile: seen, and no failure" ||
	not_ok "the other user's instance $other was not there"
other_instance 0

# Every built-in is either a column or listed as unavailable with a reason.
lock_wait
"$TC" $S --workloads getpid --calls 1000 --repeat 1 --json "$tmp/all.json" >"$tmp/all.out" 2>&1
check "$tmp/all.json" '[.system.profiles[].name] == ["none","syscalls","sched","ipi","irq","function","preemptirq"]' "the seven built-ins, in order"
check "$tmp/all.json" '[.system.profiles[] | select(.available | not) | .reason | length > 0] | all' "an unavailable profile has a reason"
check "$tmp/all.json" '([.system.profiles[] | select(.available) | .name]) == [.system.workloads[0].metrics[0].cells[].profile]' "available profiles are the columns"
for p in $(jq -r '.system.profiles[] | select(.available | not) | .name' "$tmp/all.json"); do
	grep -Eq "^ +$p +unavailable: " "$tmp/all.out" && ok "$p reported unavailable" ||
		not_ok "$p unavailable but not reported"
done

# The example of doc/profile-format.md loads and runs.
awk '/^```ini/ { on = 1; next } /^```/ { if (on) exit } on' "$top/doc/profile-format.md" \
	>"$tmp/example.profiles"
lock_wait
if "$TC" $S --profile-file "$tmp/example.profiles" --profiles none,rt-wakeups,timers+getpid \
	--workloads getpid --calls 20000 --repeat 2 --json "$tmp/ex.json" >"$tmp/ex.out" 2>"$tmp/ex.err"; then
	ok "doc/profile-format.md example runs"
else
	not_ok "doc/profile-format.md example: $(cat "$tmp/ex.err")"
fi
check "$tmp/ex.json" '[.system.profiles[] | select(.builtin | not) | .available] == [true, true]' "example profiles available"
check "$tmp/ex.json" '[.system.workloads[0].metrics[0].cells[] | select(.profile == "timers+getpid") | .events_from_workload[] > 0] | all' "example: the filtered sys_enter recorded getpid"

# The user's own tracing stays as it was: an instance of theirs, tracing.
mine="tc-user-$$"
unshare -m --propagation private sh -c '
	t=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)
	[ -n "$t" ] || { t=$TC_SNAP_MNT; mount -t tracefs nodev "$t"; }
	mkdir "$t/instances/$1" && echo 1 >"$t/instances/$1/events/sched/sched_switch/enable"' sh "$mine"
snap_instance "$mine" >"$tmp/user0"
lock_wait
"$TC" $S --profiles none,sched --workloads pipe --round-trips 200 --repeat 1 >/dev/null 2>&1
snap_instance "$mine" >"$tmp/user1"
cmp -s "$tmp/user0" "$tmp/user1" && grep -q "sched:sched_switch" "$tmp/user1" &&
	ok "a user's instance and its events stay as they were" ||
	not_ok "the user's instance changed: $(diff "$tmp/user0" "$tmp/user1" | head -5)"
unshare -m --propagation private sh -c '
	t=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)
	[ -n "$t" ] || { t=$TC_SNAP_MNT; mount -t tracefs nodev "$t"; }
	echo 0 >"$t/instances/$1/events/sched/sched_switch/enable" && rmdir "$t/instances/$1"' sh "$mine"

# SIGINT mid-run: exit 130, nothing written, everything restored.
lock_wait
"$TC" $S --profiles none,syscalls --workloads getpid --calls 3000000 --repeat 100 \
	--json "$tmp/int.json" >/dev/null 2>"$tmp/int.err" &
pid=$!
if wait_instance "tracecost-$pid" $pid; then
	ok "syscalls: instance tracecost-$pid exists during the run"
	grep -q "\"tracecost-$pid\"" "$STATE" && ok "the state file names it" ||
		not_ok "state file does not name the instance"
else
	not_ok "syscalls: no instance seen during the run"
fi
kill -INT $pid
wait $pid
rc=$?
snap_ours "$pid" >"$tmp/ours1"
if [ $rc -eq 130 ] && [ ! -e "$tmp/int.json" ] && cmp -s "$tmp/ours0" "$tmp/ours1"; then
	ok "SIGINT: exit 130, no result file, its instance and state file gone"
else
	not_ok "SIGINT: rc=$rc $(cat "$tmp/int.err") $(diff "$tmp/ours0" "$tmp/ours1" | head -3)"
fi

# kill -9 of the whole run: the state stays, a new run refuses, restore fixes it.
lock_wait
setsid sh -c 'echo $$ >"$1"; exec "$2" run --suite system --profiles none,syscalls \
	--workloads getpid --calls 3000000 --repeat 100' sh "$tmp/pg" "$TC" >/dev/null 2>&1 &
i=0
while [ ! -s "$tmp/pg" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
bg=$(cat "$tmp/pg")
if wait_instance "tracecost-$bg" "$bg"; then
	kill -9 -"$bg"
	i=0
	while kill -0 -"$bg" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	bg=""
	has_instance "tracecost-$(cat "$tmp/pg")" && state_of "$(cat "$tmp/pg")" &&
		ok "kill -9: instance and state file left behind" ||
		not_ok "kill -9: nothing left to restore?"
	"$TC" $S --profiles none,syscalls --workloads getpid --calls 1000 --repeat 1 \
		>"$tmp/stale.out" 2>"$tmp/stale.err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/stale.err")" -eq 1 ] &&
	   grep -q "run 'tracecost restore'" "$tmp/stale.err" && [ ! -s "$tmp/stale.out" ]; then
		ok "stale state: the next run refuses: $(cat "$tmp/stale.err")"
	else
		not_ok "stale state: rc=$rc $(cat "$tmp/stale.err")"
	fi
	# a baseline taken while the killed run's tracing is still on would be wrong
	"$TC" $S --profiles none --workloads getpid --calls 1000 --repeat 1 \
		>"$tmp/stale.out" 2>"$tmp/stale.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "run 'tracecost restore'" "$tmp/stale.err" &&
	   [ ! -s "$tmp/stale.out" ]; then
		ok "stale state: a --profiles none run refuses too"
	else
		not_ok "stale state: --profiles none: rc=$rc $(cat "$tmp/stale.err")"
	fi
	if "$TC" restore >"$tmp/restore.out" 2>&1 && grep -q "restored" "$tmp/restore.out"; then
		ok "tracecost restore: $(cat "$tmp/restore.out")"
	else
		not_ok "tracecost restore: $(cat "$tmp/restore.out")"
	fi
	snap_ours "$(cat "$tmp/pg")" >"$tmp/ours1"
	if cmp -s "$tmp/ours0" "$tmp/ours1"; then
		ok "after restore: the killed run's instance and state file gone"
	else
		not_ok "after restore: $(diff "$tmp/ours0" "$tmp/ours1" | head -5)"
	fi
	"$TC" restore | grep -q "nothing to restore" && ok "restore again: nothing to restore" ||
		not_ok "restore again"
else
	not_ok "kill -9: no instance seen"
	"$TC" restore >/dev/null 2>&1
fi
snap >"$tmp/after"
top_note "$tmp/before" "$tmp/after" "after the trials"
mounted >"$tmp/mnt1"
cmp -s "$tmp/mnt0" "$tmp/mnt1" && ok "no tracefs or debugfs mount added or removed" ||
	not_ok "mounts changed: $(diff "$tmp/mnt0" "$tmp/mnt1")"

# --count fentry where the kernel has no function profiler: exit 1 naming it
if [ $root -eq 1 ] && [ ! -e /sys/kernel/tracing/function_profile_enabled ] &&
   [ ! -e /sys/kernel/debug/tracing/function_profile_enabled ]; then
	"$TC" $S --count fentry --profiles none --cpus 0 --workloads getpid --calls 10 \
		>"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "CONFIG_FUNCTION_PROFILER" "$tmp/stderr" && [ ! -s "$tmp/stdout" ]; then
		ok "--count fentry without a function profiler: exit 1: $(cat "$tmp/stderr")"
	else
		not_ok "--count fentry without a function profiler: rc=$rc: $(head -3 "$tmp/stderr")"
	fi
fi
summary system skipped
