#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the initramfs that `tracecost vm` packs (src/cmd_vm.c): mount
# what the suites need, run /tracecost with the arguments in /vm/args (one
# per line) plus --json /vm/result.json, and send back on the data port
# (/guest-lib.sh) its standard output and error and the result file, each
# between "@@BEGIN <name>" and "@@END" lines, then "@@RC <status>" and
# "@@DONE". The console keeps the kernel log for the host.
. /guest-lib.sh
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmp /tmp 2>/dev/null
ip link set lo up 2>/dev/null
# tccounter=NAME (tracecost vm --deterministic --arch arm64): the module
# loaded here with counter=NAME, so that the kernel suite finds it loaded
if [ -n "${tccounter:-}" ]; then
	insmod /tracecost.ko counter="$tccounter" 2>/vm/insmod || {
		out "@@START $(uname -r)"
		echo "tracecost: insmod tracecost.ko counter=$tccounter: $(cat /vm/insmod)" >/vm/stderr
		send stdout /dev/null
		send stderr /vm/stderr
		out "@@RC 1"
		out "@@DONE"
		reboot -f
	}
fi

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
