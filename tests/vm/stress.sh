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
# Usage: [ARCH=arm64|riscv] tests/vm/stress.sh BUILD_DIR KERNEL_CACHE
#   (BUILD_DIR/tracecost-static and KERNEL_CACHE/debug must exist; with
#   ARCH=arm64, BUILD_DIR-arm64/tracecost-static, KERNEL_CACHE/arm64/debug
#   and Debian's arm64 busybox, make deps-kernels ARCH=arm64: the module is
#   cross-built against that tree and the guest is QEMU's virt board;
#   ARCH=riscv the same with BUILD_DIR-riscv64, KERNEL_CACHE/riscv/debug)
set -u
O=$(readlink -f "$1")
kc=$(readlink -f "$2")
top=$(cd "$(dirname "$0")/../.." && pwd)
# its own directory per architecture (x86-64: vm-stress), so that two
# architectures' checks can run at once
case "${ARCH:-x86_64}" in
x86_64 | x86 | amd64) vm=$O/vm-stress ;;
arm64 | aarch64 | riscv | riscv64) vm=$O/vm-stress-${ARCH} ;;
*) echo "check-kernel-debug: ARCH=$ARCH is not x86_64, arm64 or riscv" >&2; exit 2 ;;
esac
vm_name=check-kernel-debug
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"

case "${ARCH:-x86_64}" in
x86_64|x86|amd64) static=$O/tracecost-static kdir=$kc/debug kernel=$kc/debug/arch/x86/boot/bzImage ;;
arm64|aarch64)
	static=$O-arm64/tracecost-static kdir=$kc/arm64/debug kernel=$kc/arm64/debug/arch/arm64/boot/Image
	export VM_ARCH=arm64 VM_BUSYBOX=/var/lib/tracecost/arm64/busybox
	export VM_KBUILD="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	[ -x "$VM_BUSYBOX" ] || die "$VM_BUSYBOX is missing (make deps-kernels ARCH=arm64)" ;;
riscv|riscv64)
	static=$O-riscv64/tracecost-static kdir=$kc/riscv/debug kernel=$kc/riscv/debug/arch/riscv/boot/Image
	export VM_ARCH=riscv64 VM_BUSYBOX=/var/lib/tracecost/riscv64/busybox
	export VM_KBUILD="ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-"
	[ -x "$VM_BUSYBOX" ] || die "$VM_BUSYBOX is missing (make deps-kernels ARCH=riscv)" ;;
esac
[ -x "$static" ] || die "$static is missing"
[ -r "$kernel" ] && [ -r "$kdir/Module.symvers" ] ||
	die "no debug kernel in $kdir (make kernels ARCH=${ARCH:-x86_64} KERNELS=debug)"
for opt in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DETECT_HUNG_TASK DEBUG_OBJECTS SMP PREEMPT HOTPLUG_CPU; do
	grep -qx "CONFIG_$opt=y" "$kdir/.config" || die "$kdir is not a debug kernel: CONFIG_$opt is not set"
done
echo "$vm_name: ${ARCH:-x86_64} kernel $(cat "$kdir/include/config/kernel.release"), $kernel"

vm_module "$kdir" "$vm/tracecost.ko"
vm_initrd "$vm/initrd.gz" "$top/tests/vm/guest-stress.sh" "$vm/tracecost.ko" "$static"
vm_boot stress stress "${STRESS_TIMEOUT:-1800}" "$kernel" "$vm/initrd.gz" \
	"sysctl.kernel.hung_task_timeout_secs=3 tcraces=${RACES:-200}" --smp 2

summary "$vm_name"
