#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the QEMU test initramfs (tests/vm/run.sh). Runs the kernel suite
# and the module's own checks inside the guest; results go to the data
# port (/guest-lib.sh) as lines "TEST <name> ok|FAIL <detail>" and JSON
# files between "@@BEGIN <name>" and "@@END" markers; the console has
# the kernel log, which the host scans for oopses, WARNINGs and stalls.
. /guest-lib.sh
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
MODE=$(sed -n 's/.*tcmode=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
D=/sys/kernel/debug/tracecost
refuse() { # refuse NAME FILE VALUE: writing VALUE to FILE must fail and change nothing
	before=$(cat "$D/$2")
	if echo "$3" >"$D/$2" 2>/dev/null; then t "$1" FAIL "accepted '$3'"
	elif [ "$(cat "$D/$2")" != "$before" ]; then t "$1" FAIL "value changed"
	else t "$1" ok; fi
}
wait_idle() {
	i=0
	while grep -q running "$D/status" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}

out "@@START $MODE $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
case "$MODE" in
smp)
	check run-both /tracecost run --suite kernel --module /tracecost.ko --samples 2000 \
		--highest 50 --repeat 2 --tracepoints both --json /r.json
	cat /tmp/o >/dev/console
	send r.json /r.json
	check instance-removed sh -c '[ -z "$(ls /sys/kernel/tracing/instances)" ]'
	check run-one-cpu /tracecost run --suite kernel --cpus 0 --samples 2000 --highest 50 \
		--pairs irq,preempt,ref16 --json /one.json
	send one.json /one.json
	check run-do-work /tracecost run --suite kernel --samples 2000 --highest 50 \
		--pairs irq,ref16 --do-work --json /work.json
	send work.json /work.json
	# every run loaded the module, recorded it, and unloaded it at the end
	check module-unloaded-after-runs sh -c '! grep -q "^tracecost " /proc/modules && [ ! -e /run/tracecost/state ]'
	check insmod insmod /tracecost.ko
	# a module loaded by someone else stays loaded after a run
	check run-module-preloaded /tracecost run --suite kernel --samples 500 --highest 10 \
		--pairs irq --json /pre.json
	check module-stays-loaded grep -q "^tracecost " /proc/modules
	# white space around a value is accepted (defect 5: strim)
	check spaces-accepted sh -c "echo ' 5 ' >$D/samples && [ \"\$(cat $D/samples)\" = 5 ]"
	refuse bad-samples-0 samples 0
	refuse bad-samples-huge samples 1000000000000
	refuse bad-samples-text samples lots
	refuse bad-pair pairs irq,bogus
	refuse bad-pairs-empty pairs ""
	refuse bad-cpu cpus 7
	refuse bad-cpus-empty cpus ""
	refuse bad-do-work do_work 2
	refuse bad-highest highest 0
	refuse bad-highest-huge highest 10001
	refuse bad-pair-event pair_event 2
	# a second trigger while a run is going is refused
	echo 10000000 >$D/samples; echo all >$D/pairs; echo all >$D/cpus
	echo 1 >$D/run
	if echo 1 >$D/run 2>/dev/null; then t second-trigger FAIL "accepted"; else t second-trigger ok; fi
	check status-running grep -q running $D/status
	echo 0 >$D/run
	wait_idle
	check status-cancelled grep -q cancelled $D/status
	check no-stale-results sh -c "! grep -q '^cell' $D/results && grep -q 'status cancelled' $D/results"
	# unloading during a run cancels it
	echo 1 >$D/run
	sleep 0.5
	check rmmod-during-run rmmod tracecost
	check reload insmod /tracecost.ko
	echo 1000 >$D/samples
	check rmmod-after-run sh -c "echo 1 >$D/run && while grep -q running $D/status; do sleep 0.1; done && grep -q done $D/status && rmmod tracecost"
	;;
det)
	# deterministic: QEMU -icount, one tick per guest instruction
	check det-run /tracecost run --suite kernel --module /tracecost.ko --samples 3000 \
		--highest 20 --pairs irq,preempt,irq_save,rcu,ref16 --unit ticks --json /d.json
	send d.json /d.json
	check det-work /tracecost run --suite kernel --module /tracecost.ko --samples 3000 \
		--highest 20 --pairs irq,preempt,irq_save,ref16 --do-work --unit ticks --json /dw.json
	send dw.json /dw.json
	;;
esac
out "@@DONE"
sync
sleep 1
poweroff -f
