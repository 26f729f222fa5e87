#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/pair-trace.sh: the instructions one timed pair of the kernel suite
# executes, function by function (issue 19, item 6: where do preemptirq+'s
# instructions go that irqsoff+ does not spend?).
#
#   kernel/pair-trace.sh BUILD_DIR KBUILD_DIR PAIR [on|off]
#
# Boots KBUILD_DIR's kernel (a tree of make kernels) with tracecost.ko built
# against it, through `tracecost vm --initrd ... --deterministic --gdb PORT`,
# with kernel/vm/pair-trace-init.sh as /init: the guest loads the module,
# sends the addresses of its loops for PAIR and for the empty sample, and
# runs the kernel suite on PAIR with the preemptirq events on (or off). gdb
# (kernel/pair-trace.py) breaks at each loop and single-steps one timed
# sample, the third, from t0's RDTSC to t1's; QEMU's gdbstub masks
# interrupts and timers while stepping. The
# trace's addresses are then named after vmlinux's symbols (System.map,
# shifted by the guest's _stext) and the module's (the guest's kallsyms):
# prints instructions per function in the order of first execution, the
# number of entries of each, and the total; then checks the trace against
# the measurement: the pair's sample less the empty loop's sample (traced
# the same way: the timer overhead O) must be the run's exact minimum in
# ticks, one per instruction under -icount (exit 1 otherwise). The trace is
# kept in BUILD_DIR/pair-trace/NAME-PAIR-MODE.pcs.
#
# Needs gdb (with Python), QEMU and what tracecost vm needs; the counts are
# of the path, not of time, so TCG's speed does not matter.
set -eu
[ $# -ge 3 ] || { echo "usage: kernel/pair-trace.sh BUILD_DIR KBUILD_DIR PAIR [on|off]" >&2; exit 2; }
O=$(readlink -f "$1")
kb=$(readlink -f "$2")
pair=$3
mode=${4:-on}
top=$(cd "$(dirname "$0")/.." && pwd)
case "$pair" in irq|preempt|irq_save|bh|rcu|spin|ref16) ;;
*) echo "pair-trace: '$pair' is not irq, preempt, irq_save, bh, rcu, spin or ref16" >&2; exit 2 ;; esac
case "$mode" in on|off) ;; *) echo "pair-trace: '$mode' is not on or off" >&2; exit 2 ;; esac
[ -r "$kb/arch/x86/boot/bzImage" ] || { echo "pair-trace: $kb has no arch/x86/boot/bzImage" >&2; exit 2; }
[ -x "$O/tracecost-static" ] || { echo "pair-trace: $O/tracecost-static is missing" >&2; exit 2; }
for t in gdb jq; do
	command -v $t >/dev/null || { echo "pair-trace: $t is missing (apt-get install $t)" >&2; exit 1; }
done

name=$(basename "$kb")
vm=$O/pair-trace
vm_name=pair-trace
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"
vm_module "$kb" "$vm/tracecost.ko"
vm_initrd "$vm/initrd.gz" "$top/kernel/vm/pair-trace-init.sh" "$vm/tracecost.ko" "$O/tracecost-static"

port=$((20000 + $$ % 20000))
tag=$name-$pair-$mode
data=$vm/$tag.data
rm -f "$data" "$vm/$tag.pcs"
"$O/tracecost" vm --kernel "$kb/arch/x86/boot/bzImage" --initrd "$vm/initrd.gz" --data "$data" \
	--console "$vm/$tag.console" --deterministic --memory 1024 --timeout 600 --gdb "$port" \
	--append "tcpair=$pair tctp=$mode" 2>"$vm/$tag.vm.err" &
qpid=$!
trap 'kill $qpid 2>/dev/null' EXIT INT TERM
TC_GDB_PORT=$port TC_DATA=$data TC_OUT=$vm/$tag.pcs TC_SYSTEM_MAP=$kb/System.map \
	TC_SYNC=$(awk '$3 == "__x64_sys_sync" { print $1 }' "$kb/System.map") \
	gdb -q -nx -batch -x "$top/kernel/pair-trace.py" \
	>"$vm/$tag.gdb.log" 2>&1 || { cat "$vm/$tag.gdb.log" >&2; exit 1; }
wait $qpid || { echo "pair-trace: tracecost vm failed: $(head -1 "$vm/$tag.vm.err")" >&2; exit 1; }
trap - EXIT INT TERM
tr -d '\r' <"$data" >"$vm/$tag.txt"
grep -q '^@@RC 0' "$vm/$tag.txt" || { echo "pair-trace: the guest's run failed (see $vm/$tag.txt)" >&2; exit 1; }
cat "$vm/$tag.pcs.txt"

# the trace against the measurement: the run's exact minimum (ticks, one
# per instruction under -icount) is its pair's sample less the empty one
awk '$0 == "@@BEGIN result" { on = 1; next } /^@@END/ { on = 0 } on' "$vm/$tag.txt" >"$vm/$tag.json"
min=$(jq -r --arg p "$pair" '[.kernel.pairs[] | select(.name == $p) | .cells[] |
	select(.stats.min != null) | .stats.min] | first // empty' "$vm/$tag.json")
total=$(awk '$1 == "total" { print $2 }' "$vm/$tag.pcs.txt")
empty=$(awk '/^empty sample/ { print $NF }' "$vm/$tag.pcs.txt")
if [ -n "$min" ] && [ "$((total - empty))" = "$min" ]; then
	echo "trace - empty sample = $total - $empty = $((total - empty)) = the run's minimum ($name, $pair, events $mode)"
else
	echo "pair-trace: trace - empty sample = $((total - empty)), the run's minimum ${min:-missing} ($name, $pair, events $mode)" >&2
	exit 1
fi
