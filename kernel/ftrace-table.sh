#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make ftrace-table: the function-tracer question (seed 004, doc/seed-table.md)
# from source. Boots the kernels stock (CONFIG_FUNCTION_TRACER not set) and
# ftrace (CONFIG_FUNCTION_TRACER=y, CONFIG_DYNAMIC_FTRACE=y, nothing enabled),
# both made by make kernels under KERNEL_CACHE, with the same path as make
# seed-table: `tracecost vm --deterministic` (QEMU -icount: one tick per
# guest instruction) running the system suite's lat_pipe, lat_ctx and lat_fs
# equivalents (pipe, ctxsw, fs) and getpid, twice per kernel; then once more
# on ftrace with --count fentry: the same workloads with the function
# profiler on, each figure counting the kernel's function entries (the
# fentry sites executed) instead of instructions. Prints per operation:
# instructions on stock and on ftrace, their difference, the fentry sites
# executed, and the patched sites of each vmlinux (__mcount_loc).
# Results stay in BUILD_DIR/ftrace-table/ for tests/vm/ftrace-table.sh.
# ARCH (default x86_64; arm64 or aarch64), as for make seed-table
# (kernel/vm/boot-lib.sh seed_arch; riscv is refused, exit 2: 6.1's riscv
# has no function tracer in a preemptible kernel): that architecture's kernels,
# KERNEL_CACHE/arm64/NAME (make kernels ARCH=arm64), booted by tracecost vm
# --arch with the static tracecost whose sampler counts instructions
# (BUILD_DIR-arm64-pmc/), results in BUILD_DIR/ftrace-table-arm64/. On arm64
# a site is the two NOPs of -fpatchable-function-entry=2 (boot makes the first
# `mov x9, x30`), recorded in __mcount_loc as x86-64's fentry calls are.
# Usage: [ARCH=...] kernel/ftrace-table.sh BUILD_DIR KERNEL_CACHE
set -eu
table=ftrace-table
# shellcheck source=kernel/vm/boot-lib.sh
. "$(dirname "$0")/vm/boot-lib.sh"
seed_arch
if [ "$karch" = riscv ]; then
	echo "ftrace-table: ARCH=$ARCH: 6.1's riscv has no function tracer with PREEMPT" \
		"(kernel/configs/arch/riscv/irqsoff.config)" >&2
	exit 2
fi
O=$(readlink -f "$1")
KC=$(readlink -f "$2")$sub
tc=$O/tracecost
static=$O$static
out=$O/ftrace-table$suffix
die() { echo "ftrace-table: $*" >&2; exit 1; }
[ -x "$tc" ] && [ -x "$static" ] || die "build $tc and $static first"
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt "$out"/*.console "$out"/*.tsv

KERNELS="stock ftrace"
# Each figure is the mean over one timed loop, so the loops are long: the
# periodic tick (HZ=250, one every 4 M instructions, some 20 k instructions
# each) lands in every loop many times, not once in one kernel's loop and
# not in the other's (with the seed table's counts, getpid read 11
# instructions per call fewer on ftrace than on stock, from one tick).
SSUITE="--profiles none --repeat 1 --workloads getpid,pipe,ctxsw,fs --calls 200000
	--round-trips 20000 --ring-trips 10000 --procs 2 --files 10000 --sizes 0"

# shellcheck disable=SC2086
kernels_present $KERNELS

for k in $KERNELS; do
	# shellcheck disable=SC2086
	vm "$k" 1 --suite system $SSUITE
	# shellcheck disable=SC2086
	vm "$k" 2 --suite system $SSUITE
done
# shellcheck disable=SC2086
vm ftrace fentry --suite system $SSUITE --count fentry

# per-op FILE: "metric<TAB>per operation" in instructions (or, with --count
# fentry, function entries): a figure of N ns is N of them, so us * 1000 and
# 1e9 / (files/s)
per_op() {
	jq -r '.system.workloads[].metrics[] | .name as $n | .unit as $u |
		.cells[] | select(.profile == "none") | .summary.median as $v |
		[$n, (if $u == "us" then $v * 1000 elif $u == "files/s" then 1e9 / $v
		      else $v end)] | @tsv' "$1"
}
for f in stock-1 stock-2 ftrace-1 ftrace-2 ftrace-fentry; do
	per_op "$out/$f.json" >"$out/$f.tsv"
done

# the patched sites of a vmlinux: 8-byte entries between the __mcount_loc bounds
sites() {
	# shellcheck disable=SC2046 # two words, split on purpose
	set -- $("${cross}nm" "$1" 2>/dev/null | awk '$3 == "__start_mcount_loc" { s = $1 }
		$3 == "__stop_mcount_loc" { e = $1 } END { print s, e }')
	# the low 32 bits: sh arithmetic is signed 64-bit, the section is small
	if [ $# -eq 2 ]; then echo $(((0x${2#????????} - 0x${1#????????}) / 8)); else echo 0; fi
}
echo
echo "== Function tracer built in and idle: per operation, QEMU -icount ($karch, 1 CPU) =="
echo "   instructions on stock and ftrace (boot 1; boot 2 must match), their difference,"
echo "   and the fentry sites executed (function profiler hits, on ftrace, --count fentry)"
echo
printf '%-16s %12s %12s %10s %12s %10s\n' workload stock ftrace difference "fentry sites" "diff/site"
paste "$out/stock-1.tsv" "$out/ftrace-1.tsv" "$out/ftrace-fentry.tsv" |
	awk -F'\t' '{ d = $4 - $2; printf "%-16s %12.1f %12.1f %+10.1f %12.1f %10s\n", $1, $2, $4, d, $6,
		($6 > 0 ? sprintf("%.2f", d / $6) : "-") }'
echo
printf 'lmbench equivalents: pipe = lat_pipe (a round trip), ctxsw 2 procs = lat_ctx -s 0 2\n'
printf '(a switch, the pipe'"'"'s own cost subtracted), fs 0k create/delete = lat_fs 0k (a file).\n'
echo
echo "== vmlinux: text and patched fentry sites (__mcount_loc) =="
for k in $KERNELS; do
	printf '%-8s text %10s bytes, %6s fentry sites\n' "$k" \
		"$("${cross}size" -B "$KC/$k/vmlinux" | awk 'NR == 2 { print $1 }')" "$(sites "$KC/$k/vmlinux")"
done
