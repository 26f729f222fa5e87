#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the debug-kernel stress test (tests/vm/stress.sh): races against
# tracecost.ko on a KASAN + lockdep + hung-task kernel with two CPUs. Results
# go to the data port (/guest-lib.sh) as "TEST <name> ok|FAIL <detail>"; the
# host fails the test on any splat in the console log. Each step ends with the module
# unloaded and checks that the next run is whole.
. /guest-lib.sh
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
RACES=$(sed -n 's/.*tcraces=\([0-9]*\).*/\1/p' /proc/cmdline)
RACES=${RACES:-200}
DBG=/sys/kernel/debug
D=$DBG/tracecost
CPU1=/sys/devices/system/cpu/cpu1/online
log() { echo "stress: $*" >/dev/console; }
dbg_mount() { grep -q " $DBG debugfs" /proc/mounts || mount -t debugfs debugfs $DBG; }
dbg_umount() { ! grep -q " $DBG debugfs" /proc/mounts || umount $DBG; }
loaded() { grep -q "^tracecost " /proc/modules; }
# wait_for SECONDS CMD...: poll until CMD succeeds; fails after SECONDS
wait_for() {
	n=$(($1 * 10)); shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1)); [ $n -gt 0 ] || return 1
		sleep 0.1
	done
}
# shell builtins only: the race loop forks as little as it can
running() { read -r st <$D/status && [ "$st" = running ]; }
not_running() { read -r st <$D/status && [ "$st" != running ]; }
# a whole run: every CPU x pair has its samples (the CLI checks the echo)
whole_run() { # whole_run NAME
	if /tracecost run --suite kernel --module /tracecost.ko --samples 1000 --highest 10 \
		--pairs irq,preempt,spin --json /w.json >/tmp/o 2>&1 &&
	   [ "$(grep -o '"n": *1000' /w.json | wc -l)" -ge 1 ] && ! loaded; then
		t "$1" ok
	else
		t "$1" FAIL "$(tail -c 300 /tmp/o | tr '\n' ' ')"
	fi
}

out "@@START stress $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
check hung-task-timeout-short sh -c '[ "$(cat /proc/sys/kernel/hung_task_timeout_secs)" -le 5 ]'
check two-cpus sh -c '[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] && [ -w '$CPU1' ]'

# 1. rmmod racing a run that is just ending (defects 1 and 2): wait for a
#    run to be done, then either unload at once (the controller may still be
#    returning) or start the next run and unload at once.
log "rmmod races: $RACES"
dbg_mount
bad=0
i=0
while [ $i -lt "$RACES" ]; do
	insmod /tracecost.ko || { bad=$((bad + 1)); break; }
	echo 300 >$D/samples; echo irq >$D/pairs
	echo 1 >$D/run
	n=0
	while ! not_running; do
		n=$((n + 1))
		[ $n -lt 1000000 ] || { bad=$((bad + 1)); break; }
	done
	if [ $((i % 2)) = 1 ]; then echo 1 >$D/run; fi
	rmmod tracecost || { bad=$((bad + 1)); break; }
	i=$((i + 1))
	[ $((i % 50)) = 0 ] && log "rmmod races: $i done"
done
[ $bad = 0 ] && t rmmod-races ok || t rmmod-races FAIL "$bad failures in $i iterations"
check unloaded-after-races sh -c '! grep -q "^tracecost " /proc/modules'

# 2. CPU 1 offline and online during runs (defect 3): offlining does not
#    wait for the run, the run is invalid and says so; a run on CPU 0 alone
#    is not disturbed by CPU 1 going away and coming back.
log "hotplug"
insmod /tracecost.ko
for pause in 0.2 1 2; do
	log "hotplug: CPU 1 offline after $pause s of a run"
	echo 100000000 >$D/samples; echo all >$D/pairs; echo all >$D/cpus
	echo 1 >$D/run
	sleep $pause
	echo 0 >$CPU1
	# a static key flipped while the run goes on (needs cpus_read_lock)
	echo 1 >/sys/kernel/tracing/events/sched/sched_switch/enable
	echo 0 >/sys/kernel/tracing/events/sched/sched_switch/enable
	wait_for 60 not_running
	check "offline-invalidates-run-$pause" grep -q "invalid: .*CPU 1 went offline" $D/status
	check "offline-no-results-$pause" sh -c "! grep -q '^cell' $D/results"
	echo 1 >$CPU1
	check "online-again-$pause" grep -q 1 $CPU1
done
echo 3000 >$D/samples; echo 0 >$D/cpus
echo 1 >$D/run
echo 0 >$CPU1; echo 1 >$CPU1
wait_for 120 not_running
check run-on-cpu0-survives-cpu1-hotplug grep -q done $D/status
check cpu0-run-whole sh -c "[ \$(grep -c '^cell 0 ' $D/results) = 7 ] && ! grep -q '^cell 1 ' $D/results"
echo all >$D/cpus
check rmmod-after-hotplug rmmod tracecost

# 3. A run longer than the hung-task timeout (defect 3): nothing of ours
#    sleeps uninterruptibly for it. Interrupted with SIGINT: exit 130, the
#    module unloaded by the CLI.
log "long run"
/tracecost run --suite kernel --module /tracecost.ko --samples 100000000 --pairs irq,preempt \
	>/tmp/long.out 2>&1 &
pid=$!
wait_for 60 loaded
sleep 12
kill -INT $pid
wait $pid
rc=$?
check long-run-interrupted sh -c "[ $rc = 130 ]"
check long-run-unloaded sh -c '! grep -q "^tracecost " /proc/modules && [ ! -e /run/tracecost/state ]'
whole_run next-run-whole-after-long

# 4. Two CLI runs at once (defect 4): the second is refused with one line,
#    the first is whole.
log "two runs"
/tracecost run --suite kernel --module /tracecost.ko --samples 20000 --highest 10 \
	--pairs irq,preempt --json /a.json >/tmp/a.out 2>&1 &
pa=$!
wait_for 60 loaded
/tracecost run --suite kernel --module /tracecost.ko --samples 500 --pairs irq --json /b.json \
	>/tmp/b.out 2>&1
rb=$?
wait $pa
ra=$?
check second-run-refused sh -c "[ $rb = 1 ] && [ \$(wc -l </tmp/b.out) = 1 ] && [ ! -e /b.json ]"
check first-run-whole sh -c "[ $ra = 0 ] && [ \$(grep -o '\"n\": *20000' /a.json | wc -l) -ge 1 ]"
check two-runs-unloaded sh -c '! grep -q "^tracecost " /proc/modules'

# 5. SIGKILL (defect 6). debugfs unmounted here: the CLI mounts it in a
#    private namespace, so nothing can stay mounted.
#    a) the measuring child killed: the supervisor stops the run, unloads
#    b) supervisor and child killed: the run goes on until tracecost restore
log "kill -9"
dbg_umount
children() { # the pids whose parent is $1
	for s in /proc/[0-9]*/stat; do
		read -r p _ _ pp _ <$s 2>/dev/null && [ "$pp" = "$1" ] && echo "$p"
	done
}
kmod_recorded() { grep -q '"kmod": 3' /run/tracecost/state; }
for how in child all; do
	/tracecost run --suite kernel --module /tracecost.ko --samples 100000000 --pairs irq \
		>/tmp/k.out 2>&1 &
	sup=$!
	wait_for 60 kmod_recorded
	sleep 1
	kids=$(children $sup)
	if [ $how = child ]; then kill -9 $kids; else kill -9 $sup $kids; fi
	wait $sup
	rc=$?
	if [ $how = child ]; then
		check kill9-child-supervisor-undid sh -c "[ $rc = 1 ] && ! grep -q '^tracecost ' /proc/modules && [ ! -e /run/tracecost/state ]"
	else
		check kill9-all-leaves-state sh -c '[ -e /run/tracecost/state ] && grep -q "^tracecost " /proc/modules'
		check restore /tracecost restore
		cp /tmp/o /tmp/restore.out
		cat /tmp/restore.out >/dev/console
		check restore-unloaded sh -c '! grep -q "^tracecost " /proc/modules && [ ! -e /run/tracecost/state ]'
		check restore-said-so grep -q "tracecost.ko run stopped, tracecost.ko unloaded" /tmp/restore.out
	fi
	check "kill9-$how-no-debugfs-left" sh -c '! grep -q debugfs /proc/mounts'
	whole_run "next-run-whole-after-kill9-$how"
done

out "@@DONE"
sync
sleep 1
poweroff -f
