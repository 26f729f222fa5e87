#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# With both TOGGLE options off, our patch series must not change the code the
# kernel is built into. Compile objects that use preempt_*() and local_irq_*()
# most (the scheduler, softirq, locking, timers, RCU, the allocators, the VFS,
# tracing) from the patched source with the stock kernel's .config, and
# compare each one's disassembly with relocations (objdump -dr: every code
# section, instruction bytes and the symbols they reference) with the same
# object of the stock build.
# Usage: kernel/same-code.sh KERNEL_CACHE    (stock and preemptirq built)
set -eu
KC=$(readlink -f "$1")
die() { echo "same-code: $*" >&2; exit 1; }
stock=$(readlink -f "$KC/stock")
patched_build=$(readlink -f "$KC/preemptirq")
# an O= tree's Makefile includes its source tree's
srcof() { sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile" | head -n 1; }
pristine=$(srcof "$stock")
patched=$(srcof "$patched_build")
[ -d "$pristine" ] && [ -d "$patched" ] || die "cannot find the source trees of $stock and $patched_build"
[ "$pristine" != "$patched" ] || die "preemptirq was not built from a patched tree"
OBJS="kernel/sched/core.o kernel/sched/fair.o kernel/softirq.o kernel/fork.o kernel/exit.o
kernel/locking/spinlock.o kernel/locking/mutex.o kernel/time/timer.o kernel/time/hrtimer.o
kernel/rcu/tree.o kernel/irq/manage.o kernel/smp.o kernel/trace/ring_buffer.o kernel/trace/trace.o
mm/slub.o mm/page_alloc.o mm/memory.o fs/namei.o fs/read_write.o arch/x86/kernel/process.o
arch/x86/kernel/smp.o arch/x86/mm/tlb.o drivers/tty/serial/8250/8250_port.o"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$stock/.config" "$tmp/.config"
make -s -C "$patched" O="$tmp" olddefconfig >/dev/null
cmp -s "$stock/.config" "$tmp/.config" ||
	die "the patched tree changes the stock .config: $(diff "$stock/.config" "$tmp/.config" | grep '^[<>] CONFIG' | head -3 | tr '\n' ' ')"
# shellcheck disable=SC2086
nice make -s -C "$patched" O="$tmp" -j"${JOBS:-$(nproc)}" $OBJS >"$tmp/build.log" 2>&1 ||
	{ tail -20 "$tmp/build.log"; die "objects do not build from the patched tree"; }
dis() { objdump -dr "$1" | tail -n +4; }
bad=0
n=0
for o in $OBJS; do
	[ -f "$stock/$o" ] || continue
	n=$((n + 1))
	if ! dis "$stock/$o" >"$tmp/a" || ! dis "$tmp/$o" >"$tmp/b" || ! cmp -s "$tmp/a" "$tmp/b"; then
		echo "same-code: $o differs: $(diff "$tmp/a" "$tmp/b" | head -4 | tr '\n' ' ')"
		bad=$((bad + 1))
	fi
done
[ "$n" -gt 0 ] || die "none of the objects is in the stock build"
if [ "$bad" -eq 0 ]; then
	echo "same-code: $n objects identical (objdump -dr) with the series applied and both options off"
else
	echo "same-code: $bad of $n objects differ"
	exit 1
fi
