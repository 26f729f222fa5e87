#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Is the preemptirq event stream of each CPU balanced? Boots each kernel
# NAME of make kernels (under KERNEL_CACHE) under QEMU -smp 2 with
# tests/vm/guest-balance.sh as /init: events/preemptirq enabled while the
# guest makes system calls, forks, switches, faults, takes interrupts and
# idles; on every CPU, irq_disable/irq_enable must alternate, and so must
# preempt_disable/preempt_enable (at least 100 of each in every record).
# Part of make check-seed-table (preemptirq: our series; irqsoff: the
# TRACE_IRQFLAGS and preemptoff-tracer hooks, the reference).
# Usage: [ARCH=arm64|riscv] tests/vm/balance.sh BUILD_DIR KERNEL_CACHE NAME...
#   (BUILD_DIR/tracecost-static and KERNEL_CACHE/NAME must exist; with
#   ARCH=arm64, BUILD_DIR-arm64/tracecost-static, KERNEL_CACHE/arm64/NAME
#   and Debian's arm64 busybox, make deps-kernels ARCH=arm64; ARCH=riscv the
#   same with BUILD_DIR-riscv64, KERNEL_CACHE/riscv and make deps-kernels
#   ARCH=riscv)
set -u
O=$(readlink -f "$1")
kc=$(readlink -f "$2")
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
# its own directory per architecture (x86-64: vm-balance), so that two
# architectures' checks can run at once
case "${ARCH:-x86_64}" in
x86_64 | x86 | amd64) vm=$O/vm-balance ;;
arm64 | aarch64 | riscv | riscv64) vm=$O/vm-balance-${ARCH} ;;
*) echo "balance: ARCH=$ARCH is not x86_64, arm64 or riscv" >&2; exit 2 ;;
esac
vm_name=balance
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"
[ $# -gt 0 ] || die "usage: tests/vm/balance.sh BUILD_DIR KERNEL_CACHE NAME..."
case "${ARCH:-x86_64}" in
x86_64|x86|amd64) static=$O/tracecost-static kdir=$kc image=arch/x86/boot/bzImage ;;
arm64|aarch64)
	static=$O-arm64/tracecost-static kdir=$kc/arm64 image=arch/arm64/boot/Image
	export VM_ARCH=arm64 VM_BUSYBOX=/var/lib/tracecost/arm64/busybox
	[ -x "$VM_BUSYBOX" ] || die "$VM_BUSYBOX is missing (make deps-kernels ARCH=arm64)" ;;
riscv|riscv64)
	static=$O-riscv64/tracecost-static kdir=$kc/riscv image=arch/riscv/boot/Image
	export VM_ARCH=riscv64 VM_BUSYBOX=/var/lib/tracecost/riscv64/busybox
	[ -x "$VM_BUSYBOX" ] || die "$VM_BUSYBOX is missing (make deps-kernels ARCH=riscv)" ;;
esac
[ -x "$static" ] || die "$static is missing (make $static)"

# One TCG thread runs both virtual CPUs (--accel tcg-single). Under QEMU's
# multi-threaded TCG a vCPU can run a stale translation of code another
# vCPU has patched: our patched kernel died now and then on an int3 that
# text_poke_bp_batch() had already replaced ("int3: 0000 [#1]" at one of
# the inline static-key sites, poke_int3_handler() finding no patch in
# progress), 8 boots of this test in 37 with QEMU 7.2, none in 29 with one
# TCG thread. tests/vm/toggle.sh hits it within a few on/off switches with
# QEMU 7.2 (20 boots of 20), less often with QEMU 10.0.2 (4 of 19; it has
# QEMU 8.1's deba78709ae8, "accel/tcg: Always lock pages before
# translation"), in none of 11 with one TCG thread; the irqsoff kernel,
# without the series' code, dies the same way when the function tracer is
# switched, with QEMU 10.0.2 too (doc/seed-table.md, "A stale int3 under multi-threaded
# TCG"). A QEMU bug, so one thread whatever the QEMU version.
export VM_ACCEL=${VM_ACCEL:-tcg-single}
vm_initrd "$vm/initrd.gz" "$top/tests/vm/guest-balance.sh" - "$static"
for k in "$@"; do
	kernel=$kdir/$k/$image
	[ -r "$kernel" ] || die "no kernel $k in $kdir (make kernels ARCH=${ARCH:-x86_64} KERNELS=$k)"
	VM_RETRY_STALL=1 vm_boot "$k" balance "${BALANCE_TIMEOUT:-600}" "$kernel" "$vm/initrd.gz" \
		"" --smp 2
	# the first unbalanced events of a failing stream, as the guest sent them
	if grep -q '^TEST .* FAIL' "$vm/$k.txt"; then
		grep -E '^(TEST .* FAIL|  (after|bad) )' "$vm/$k.txt"
	fi
done
summary "$vm_name"
