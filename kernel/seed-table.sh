#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make seed-table: the preemptirq thread's tables, from source. Boots each of
# the kernels stock, irqsoff, preemptirq and lockdep (make kernels, under
# KERNEL_CACHE) with `tracecost vm --deterministic` (QEMU -icount: one tick
# per guest instruction), runs the kernel suite (irq, preempt, irq_save;
# events/preemptirq off and, where the kernel has them, on: the "+" columns)
# twice per kernel and the system suite (getpid, pipe, ctxsw, fs, hackbench)
# once, then prints with tracecost compare and tracecost size:
#   - IRQ / Preempt / irq_save: stock, irqsoff, irqsoff+, preemptirq, preemptirq+
#   - the system table, one column per kernel
#   - lockdep against stock on hackbench (the messaging workload)
#   - vmlinux text of the four kernels
# Results stay in BUILD_DIR/seed-table/ for tests/vm/seed-table.sh.
# SEED_KERNELS (default "stock irqsoff preemptirq lockdep"; stock and
# preemptirq at least) boots fewer: the tables then have those columns only
# (make seed-table KERNEL=6.12 SEED_KERNELS="stock preemptirq").
# ARCH (default x86_64; arm64 or aarch64, riscv or riscv64) boots that
# architecture's kernels, KERNEL_CACHE/arm64/NAME or KERNEL_CACHE/riscv/NAME
# (make kernels ARCH=...), with tracecost vm --arch, which packs the static
# tracecost of BUILD_DIR-arm64-pmc/ or BUILD_DIR-riscv64-instret/ (the
# sampler on the counter that counts instructions there: PMCCNTR_EL0,
# instret); results in BUILD_DIR/seed-table-arm64/ or -riscv/. KERNEL=6.12
# (the kernels of KERNEL_CACHE/6.12): -6.12 after the directory's name.
# Usage: [ARCH=...] kernel/seed-table.sh BUILD_DIR KERNEL_CACHE
#   (KERNEL_CACHE holds the kernels by NAME: $KERNEL_CACHE/6.12 for 6.12's)
set -eu
table=seed-table
# shellcheck source=kernel/vm/boot-lib.sh
. "$(dirname "$0")/vm/boot-lib.sh"
seed_arch
O=$(readlink -f "$1")
KC=$(readlink -f "$2")$sub
tc=$O/tracecost
static=$O$static
out=$O/seed-table$suffix
die() { echo "seed-table: $*" >&2; exit 1; }
KERNELS=${SEED_KERNELS:-stock irqsoff preemptirq lockdep}
has() { case " $KERNELS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if ! has stock || ! has preemptirq; then
	echo "seed-table: SEED_KERNELS='$KERNELS' lacks stock or preemptirq" >&2
	exit 2
fi
for k in $KERNELS; do
	case $k in
	stock | irqsoff | preemptirq | lockdep) ;;
	*) echo "seed-table: SEED_KERNELS: '$k' is not stock, irqsoff, preemptirq or lockdep" >&2; exit 2 ;;
	esac
done
[ -x "$tc" ] && [ -x "$static" ] || die "build $tc and $static first"
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt "$out"/*.console

# Small counts: seconds per workload under TCG, and instruction counts need no
# repetitions (every boot gives the same ones).
KSUITE="--samples 2000 --highest 20 --pairs irq,preempt,irq_save --unit ticks"
SSUITE="--profiles none --repeat 1 --workloads getpid,pipe,ctxsw,fs,hackbench --calls 2000
	--round-trips 200 --ring-trips 50 --procs 2 --files 20 --sizes 0 --groups 1 --fds 2
	--loops 20 --ipc pipe"

# shellcheck disable=SC2086
kernels_present $KERNELS

for k in $KERNELS; do
	case $k in
	irqsoff | preemptirq) tp=both ;;
	*) tp=off ;;
	esac
	# shellcheck disable=SC2086
	vm "$k" kernel-1 --suite kernel $KSUITE --tracepoints $tp
	# shellcheck disable=SC2086
	vm "$k" kernel-2 --suite kernel $KSUITE --tracepoints $tp
	# shellcheck disable=SC2086
	vm "$k" system --suite system $SSUITE
done

r=$out
where=${sub:+ ($karch)}
# the columns of the kernels booted, in the tables' order
pairs="$r/stock-kernel-1.json:stock"
has irqsoff && pairs="$pairs $r/irqsoff-kernel-1.json:irqsoff $r/irqsoff-kernel-1.json:irqsoff+"
pairs="$pairs $r/preemptirq-kernel-1.json:preemptirq $r/preemptirq-kernel-1.json:preemptirq+"
sys="" labels="" vmlinux=""
for k in stock irqsoff preemptirq lockdep; do
	has $k || continue
	sys="$sys $r/$k-system.json"
	labels="$labels --label $k"
	vmlinux="$vmlinux $KC/$k/vmlinux"
done
echo
echo "== Kernel pairs$where: instructions per pair (QEMU -icount, medians of 2000 samples) =="
# shellcheck disable=SC2086
"$tc" compare --unit ticks --metrics median,min,max $pairs
echo
echo "== System workloads$where: ns under -icount = instructions (events/preemptirq off) =="
# shellcheck disable=SC2086
"$tc" compare --metrics median $sys $labels
if has lockdep; then
	echo
	echo "== lockdep against stock$where: hackbench (the messaging workload) =="
	"$tc" compare --metrics median "$r/stock-system.json" "$r/lockdep-system.json" \
		--label stock --label lockdep | awk '/^hackbench/ { on = 1 } on { print } on && /^> slower/ { exit }'
fi
echo
echo "== vmlinux size$where =="
# shellcheck disable=SC2086
"$tc" size $vmlinux $labels
