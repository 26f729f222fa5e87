#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the noise test initramfs (tests/vm/noise.sh): Debian's kernel
# under -smp 2 with CPU 1 isolated (nohz_full=1 isolcpus=nohz,domain,1
# rcu_nocbs=1). Runs "tracecost noise" with a load that forces TLB-shootdown
# IPIs to CPU 1, with no load, and interrupted; results go to the data port as
# "TEST <name> ok|FAIL <detail>" lines and JSON between "@@BEGIN <name>" and
# "@@END"; the host asserts on both.
. /guest-lib.sh
mount -t tmpfs tmp /run
check() { # check NAME CMD...: the command must succeed, its output to the console
	name=$1; shift
	if "$@" >/tmp/o 2>&1; then t "$name" ok; else t "$name" FAIL "$(tail -c 300 /tmp/o | tr '\n' ' ')"; fi
	cat /tmp/o >/dev/console
}
# tracefs as this guest sees it (tracecost mounts it privately when it is absent)
snap() {
	mkdir -p /tmp/tr
	mount -t tracefs nodev /tmp/tr 2>/dev/null
	(ls /tmp/tr/instances; cat /tmp/tr/tracing_on /tmp/tr/trace_clock /tmp/tr/set_event
	 cat /tmp/tr/buffer_size_kb) 2>&1
	umount /tmp/tr
}

out "@@START $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) nohz_full=$(cat /sys/devices/system/cpu/nohz_full)"
# A fresh boot: the top-level ring buffer is still "7 (expanded: 1408)". The
# first event anywhere expands it to its configured size, as for any tracing
# user; what must not happen is v6.1's resize of an instance marking it
# expanded at 7 KB (then it stays 7 KB for everyone).
mkdir -p /tmp/tr
mount -t tracefs nodev /tmp/tr
cat /tmp/tr/buffer_size_kb >/tmp/buf0
umount /tmp/tr
check noise-tlb /tracecost noise --cpus 1 --duration 10s --load tlb --json /tlb.json
send tlb.json /tlb.json
send tlb.txt /tmp/o
mount -t tracefs nodev /tmp/tr
cat /tmp/tr/buffer_size_kb >/tmp/buf1
umount /tmp/tr
want=$(sed -n 's/.*(expanded: \([0-9]*\))/\1/p' /tmp/buf0)
have=$(sed 's/ .*//' /tmp/buf1)
if [ -z "$want" ] || [ "$have" -ge "$want" ]; then t top-buffer-not-shrunk ok
else t top-buffer-not-shrunk FAIL "buffer_size_kb $(cat /tmp/buf0) before, $(cat /tmp/buf1) after"; fi
snap >/tmp/before
check noise-none /tracecost noise --cpus 1 --duration 5s --load none --json /none.json
send none.json /none.json
snap >/tmp/after
send before.txt /tmp/before
send after.txt /tmp/after
if cmp -s /tmp/before /tmp/after && [ ! -e /run/tracecost/state ]; then t tracefs-restored ok
else t tracefs-restored FAIL "$(diff /tmp/before /tmp/after | head -5 | tr '\n' ' ')"; fi
# bad CPU lists: exit 2 before any change
for a in "--cpus 0,1" "--cpus 1 --housekeeping 1" "--cpus 3" "--cpus ,"; do
	# shellcheck disable=SC2086
	/tracecost noise $a --duration 1s >/tmp/o 2>&1
	rc=$?
	n=$(echo "$a" | tr -c 'a-z0-9' '_')
	[ $rc -eq 2 ] && [ "$(wc -l </tmp/o)" -eq 1 ] && t "bad$n" ok || t "bad$n" FAIL "rc=$rc $(cat /tmp/o)"
done
# SIGINT mid-run: 130, nothing written, tracefs as before. This time tracefs
# is mounted (/tmp/tr2) before the run starts, so the run uses that mount;
# it stays mounted until the run is over.
mkdir -p /tmp/tr2
mount -t tracefs nodev /tmp/tr2
/tracecost noise --cpus 1 --duration 60s --load tlb --json /int.json >/tmp/o 2>&1 &
pid=$!
# mid-run: once the instance's clock is "mono", the last step of the setup
# (enabling the events takes seconds under TCG, longer than the supervisor's
# 10 s grace after a signal when the host is busy)
i=0
while ! grep -qs '\[mono\]' /tmp/tr2/instances/tracecost-$pid/trace_clock && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
kill -INT $pid
wait $pid
rc=$?
umount /tmp/tr2
snap >/tmp/after
send sigint.txt /tmp/o
send sigint-after.txt /tmp/after
if [ $rc -eq 130 ] && [ ! -e /int.json ] && cmp -s /tmp/before /tmp/after; then t sigint ok
else t sigint FAIL "rc=$rc $(tail -c 200 /tmp/o) $(diff /tmp/before /tmp/after | head -3 | tr '\n' ' ')"; fi
out "@@DONE"
sync
poweroff -f
