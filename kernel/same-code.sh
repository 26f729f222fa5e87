#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# With both TOGGLE options off, our patch series must not change the code the
# kernel is built into. Compile objects that use preempt_*() and local_irq_*()
# most (the scheduler, softirq, locking, timers, RCU, the allocators, the VFS,
# tracing) with the stock kernel's .config from the pristine and from the
# patched source, and compare each one's disassembly with relocations
# (objdump -dr: every code section, instruction bytes and the symbols they
# reference).
# ARCH=arm64 or riscv: that architecture's kernels (KERNEL_CACHE is then
# the cache's arm64/ or riscv/ directory), its cross compiler and objdump,
# and its own objects in place of x86-64's (the entry code our patches 3
# and 4 change, process, smp, irq, the UART driver); kernel/entry/common.o
# is x86-64's only (the generic entry code, which 6.1's arm64 and riscv do
# not use).
# Usage: [ARCH=...] kernel/same-code.sh KERNEL_CACHE
#   (stock configured, preemptirq built: make kernels KERNELS="stock preemptirq")
set -eu
case "${ARCH:-x86_64}" in
x86_64 | x86 | amd64)
	karch=x86_64 cross=""
	AOBJS="kernel/entry/common.o arch/x86/kernel/process.o arch/x86/kernel/smp.o arch/x86/mm/tlb.o
drivers/tty/serial/8250/8250_port.o" ;;
arm64 | aarch64)
	karch=arm64 cross=aarch64-linux-gnu-
	AOBJS="arch/arm64/kernel/entry-common.o arch/arm64/kernel/process.o arch/arm64/kernel/smp.o
arch/arm64/kernel/irq.o arch/arm64/kernel/idle.o arch/arm64/kernel/traps.o arch/arm64/kernel/signal.o
arch/arm64/mm/fault.o drivers/tty/serial/amba-pl011.o" ;;
riscv | riscv64)
	karch=riscv cross=riscv64-linux-gnu-
	AOBJS="arch/riscv/kernel/entry.o arch/riscv/kernel/process.o arch/riscv/kernel/smp.o
arch/riscv/kernel/irq.o arch/riscv/kernel/traps.o arch/riscv/kernel/signal.o arch/riscv/mm/fault.o
drivers/tty/serial/8250/8250_port.o" ;;
*)
	echo "same-code: ARCH=$ARCH is not x86_64, arm64 (aarch64) or riscv (riscv64)" >&2
	exit 2 ;;
esac
KC=$(readlink -f "$1")
die() { echo "same-code: $*" >&2; exit 1; }
stock=$(readlink -f "$KC/stock")
patched_build=$(readlink -f "$KC/preemptirq")
[ -f "$stock/.config" ] || die "$KC/stock has no .config (make kernels KERNELS=stock)"
# an O= tree's Makefile includes its source tree's
srcof() { sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile" | head -n 1; }
pristine=$(srcof "$stock")
patched=$(srcof "$patched_build")
[ -d "$pristine" ] && [ -d "$patched" ] || die "cannot find the source trees of $stock and $patched_build"
[ "$pristine" != "$patched" ] || die "preemptirq was not built from a patched tree"
OBJS="kernel/sched/core.o kernel/sched/fair.o kernel/softirq.o kernel/fork.o kernel/exit.o
kernel/locking/spinlock.o kernel/locking/mutex.o kernel/time/timer.o kernel/time/hrtimer.o
kernel/rcu/tree.o kernel/irq/manage.o kernel/smp.o kernel/trace/ring_buffer.o kernel/trace/trace.o
kernel/sched/build_policy.o kernel/context_tracking.o
mm/slub.o mm/page_alloc.o mm/memory.o fs/namei.o fs/read_write.o $AOBJS"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
syms() { grep '^CONFIG_' "$1" | sort; }
# objs SRC DIR: the objects from SRC with the stock .config, in DIR
objs() {
	mkdir -p "$2"
	cp "$stock/.config" "$2/.config"
	make -s -C "$1" O="$2" ARCH=$karch CROSS_COMPILE=$cross olddefconfig >/dev/null
	syms "$stock/.config" >"$2.want"
	syms "$2/.config" >"$2.got"
	cmp -s "$2.want" "$2.got" ||
		die "$1 changes the stock .config: $(diff "$2.want" "$2.got" | grep '^[<>]' | head -3 | tr '\n' ' ')"
	# shellcheck disable=SC2086
	nice make -s -C "$1" O="$2" ARCH=$karch CROSS_COMPILE=$cross -j"${JOBS:-$(nproc)}" $OBJS >"$2.log" 2>&1 ||
		{ tail -20 "$2.log"; die "objects do not build from $1"; }
}
objs "$pristine" "$tmp/a"
objs "$patched" "$tmp/b"
dis() { "${cross}objdump" -dr "$1" | tail -n +4; }
bad=0
n=0
for o in $OBJS; do
	n=$((n + 1))
	if ! dis "$tmp/a/$o" >"$tmp/a.dis" || ! dis "$tmp/b/$o" >"$tmp/b.dis" ||
		! cmp -s "$tmp/a.dis" "$tmp/b.dis"; then
		echo "same-code: $o differs: $(diff "$tmp/a.dis" "$tmp/b.dis" | head -4 | tr '\n' ' ')"
		bad=$((bad + 1))
	fi
done
if [ "$bad" -eq 0 ]; then
	echo "same-code: $n objects identical (objdump -dr) with the series applied and both options off"
else
	echo "same-code: $bad of $n objects differ"
	exit 1
fi
