#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the pair-trace boot (kernel/pair-trace.sh): load tracecost.ko,
# send the kernel's _stext, the module's symbols and the addresses of its
# timed loop for the pair (tcpair=NAME on the command line, loop_NAME in
# /proc/kallsyms) and of its empty loop (loop_none), call sync(2), where
# the host's debugger stops the guest to read them and break at the loops,
# then run the kernel suite on that pair with the preemptirq events on
# (tctp=on, the default) or off, its result file sent back.
. /guest-lib.sh
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmp /tmp 2>/dev/null
pair=${tcpair:-preempt}
out "@@START $(uname -r)"
if ! insmod /tracecost.ko 2>/tmp/insmod; then
	t insmod FAIL "$(cat /tmp/insmod)"
	out "@@DONE"
	reboot -f
fi
loop=$(awk -v f="loop_$pair" '$3 == f { print $1; exit }' /proc/kallsyms)
empty=$(awk '$3 == "loop_none" { print $1; exit }' /proc/kallsyms)
stext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
out "@@STEXT $stext"
grep '\[tracecost\]' /proc/kallsyms >/tmp/ksyms
send ksyms /tmp/ksyms
out "@@EMPTY $empty"
out "@@LOOP $loop"
sync
cd /tmp || exit 1
/tracecost run --suite kernel --pairs "$pair" --samples 64 --repeat 1 --unit ticks \
	--tracepoints "${tctp:-on}" --json /tmp/result.json >/tmp/stdout 2>&1
rc=$?
send stdout /tmp/stdout
send result /tmp/result.json
out "@@RC $rc"
out "@@DONE"
sync
reboot -f
