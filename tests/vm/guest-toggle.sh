#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash
#
# /init of tests/vm/toggle.sh: switch events/preemptirq on and off
# tctoggles= times (default 40) while a busy process makes system calls,
# so that one CPU patches the kernel's inline static-key sites
# (text_poke_bp_batch) while the other runs through them; with
# tctoggle=ftrace, current_tracer between function and nop instead (the
# function tracer's call sites, patched by the same text_poke_bp_batch). A stale int3
# after a batch ("int3: 0000 [#1]") oopses the guest, which tracecost vm
# reports from the console. The data port has "toggled I" after each
# on/off pair and, for a clean run, "TEST toggles ok N toggles" last.
# shellcheck source=kernel/vm/guest-lib.sh
. /guest-lib.sh
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
T=/sys/kernel/tracing
N=$(sed -n 's/.*tctoggles=\([0-9]*\).*/\1/p' /proc/cmdline)
N=${N:-40}
WHAT=$(sed -n 's/.*tctoggle=\([a-z]*\).*/\1/p' /proc/cmdline)
WHAT=${WHAT:-events}
out "@@START $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) toggles=$N $WHAT"
case $WHAT in
events)	f=$T/events/preemptirq/enable on=1 off=0 ;;
ftrace)	f=$T/current_tracer on=function off=nop ;;
*)	f=/nonexistent ;;
esac
if [ ! -f "$f" ]; then
	t toggles FAIL "tctoggle=$WHAT: no $f"
	out "@@DONE"
	poweroff -f
fi
echo 0 >"$T/tracing_on"
echo 64 >"$T/buffer_size_kb"
# the busy process: reads and writes of one byte, system calls back to back
dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>/dev/null &
busy=$!
i=0
while [ $i -lt "$N" ]; do
	echo "$on" >"$f"
	echo "$off" >"$f"
	i=$((i + 1))
	out "toggled $i"
done
kill $busy
out "TEST toggles ok $i toggles"
out "@@DONE"
poweroff -f
