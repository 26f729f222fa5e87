#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the initramfs that `tracecost vm` packs (src/cmd_vm.c): mount
# what the suites need, run /tracecost with the arguments in /vm/args (one
# per line) plus --json /vm/result.json, and send back on the second serial
# port (/dev/ttyS1) its standard output and error and the result file, each
# between "@@BEGIN <name>" and "@@END" lines, then "@@RC <status>" and
# "@@DONE". The console (ttyS0) keeps the kernel log for the host.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmp /tmp 2>/dev/null
stty -F /dev/ttyS1 raw -echo 2>/dev/null
ip link set lo up 2>/dev/null
out() { echo "$*" >/dev/ttyS1; }
send() { # send NAME FILE
	out "@@BEGIN $1"
	[ -f "$2" ] && cat "$2" >/dev/ttyS1
	out ""
	out "@@END"
}

set --
while IFS= read -r a; do
	set -- "$@" "$a"
done </vm/args
out "@@START $(uname -r)"
cd /tmp || exit 1
/tracecost "$@" --json /vm/result.json >/vm/stdout 2>/vm/stderr
rc=$?
send stdout /vm/stdout
send stderr /vm/stderr
[ $rc -eq 0 ] && send result /vm/result.json
out "@@RC $rc"
out "@@DONE"
sync
# -no-reboot: QEMU exits on the reboot (kernels without ACPI cannot power off)
reboot -f
