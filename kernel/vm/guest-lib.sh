# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# /guest-lib.sh: the preamble every QEMU guest /init sources (kernel/vm/init.sh
# of tracecost vm, tests/vm/guest-init.sh, guest-stress.sh, noise-init.sh),
# packed beside /init by src/cmd_vm.c and tests/vm/lib.sh. It installs
# busybox's applets, mounts proc, sysfs and devtmpfs, and finds the data
# port: $tcdata, set by the tcdata= kernel parameter that tracecost vm passes
# (x86_64 /dev/ttyS1, the second 8250 UART; arm64 /dev/hvc0, a virtio
# console), /dev/ttyS1 without it. The host reads the port as lines:
#   out LINE            one line
#   t NAME ok|FAIL DETAIL   "TEST NAME ok" or "TEST NAME FAIL DETAIL"
#   send NAME FILE      FILE between "@@BEGIN NAME" and "@@END"
#   check NAME CMD...   t NAME ok if CMD succeeds, FAIL with its output's tail
# The console (ttyS0, ttyAMA0) has the kernel log, which the host scans.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
PORT=${tcdata:-/dev/ttyS1}
stty -F "$PORT" raw -echo 2>/dev/null
out() { echo "$*" >"$PORT"; }
t() { if [ "$2" = ok ]; then out "TEST $1 ok"; else out "TEST $1 FAIL $3"; fi; }
send() { out "@@BEGIN $1"; [ -f "$2" ] && cat "$2" >"$PORT"; out ""; out "@@END"; }
check() {
	name=$1; shift
	if "$@" >/tmp/o 2>&1; then t "$name" ok; else t "$name" FAIL "$(tail -c 300 /tmp/o | tr '\n' ' ')"; fi
}
