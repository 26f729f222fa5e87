#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-kernel-debug: the module on a debug kernel (make kernels
# KERNELS=debug: KASAN, lockdep, atomic-sleep, debug-objects, hung-task),
# booted under QEMU -smp 2 with a 3 s hung-task timeout, under the races of
# tests/vm/guest-stress.sh: rmmod racing a run that is just ending (RACES,
# default 200, times), CPU 1 offline/online during runs, a run longer than
# the hung-task timeout, two CLI runs at once, the CLI killed with SIGKILL
# then tracecost restore. Pass: every guest check, and no KASAN, lockdep,
# hung-task, WARNING or BUG report in the console log.
# Usage: tests/vm/stress.sh BUILD_DIR KERNEL_CACHE
#   (BUILD_DIR/tracecost-static and KERNEL_CACHE/debug must exist)
set -u
O=$(readlink -f "$1")
kc=$(readlink -f "$2")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm-stress
vm_name=check-kernel-debug
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"

kdir=$kc/debug
kernel=$kdir/arch/x86/boot/bzImage
[ -r "$kernel" ] && [ -r "$kdir/Module.symvers" ] || die "no debug kernel in $kc (make kernels KERNELS=debug)"
for opt in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DETECT_HUNG_TASK DEBUG_OBJECTS SMP PREEMPT HOTPLUG_CPU; do
	grep -qx "CONFIG_$opt=y" "$kdir/.config" || die "$kdir is not a debug kernel: CONFIG_$opt is not set"
done
echo "$vm_name: kernel $(cat "$kdir/include/config/kernel.release"), $kernel"

vm_module "$kdir" "$vm/tracecost.ko"
vm_initrd "$vm/initrd.gz" "$top/tests/vm/guest-stress.sh" "$vm/tracecost.ko" "$O/tracecost-static"
vm_boot stress stress "${STRESS_TIMEOUT:-1800}" "$kernel" "$vm/initrd.gz" \
	"sysctl.kernel.hung_task_timeout_secs=3 tcraces=${RACES:-200}" --smp 2

summary "$vm_name"
