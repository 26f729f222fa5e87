#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-vm-signals (part of make check-vm): issue 22's signal trials for
# the kernel suite, which needs tracecost.ko loaded: Debian's kernel under
# QEMU (TCG, one thread, -smp 2), the module built against its headers, and in the
# guest (tests/vm/guest-signals.sh) random-time SIGINT to the process group
# (as Ctrl-C) and SIGTERM to the process (as kill PID) of "tracecost run
# --suite kernel --module /tracecost.ko" in three sets (short runs, long
# module runs, --runs 2), each timed by a static sigtrial
# (tests/integration/sigtrial.c) on the guest's clock. Asserted in every
# trial: exit 130 and nothing left (no process of its session, the module
# unloaded, no state file, no lock of a dead run, no tracefs instance, the
# global tracefs files as before); with SIGNAL_BOUND_MS, the signal seen
# ("interrupted") within that many ms of the guest's clock. The latencies
# are reported (median, p99, max), never asserted without the bound: TCG
# times are not the hardware's.
# Knobs: SIGNAL_TRIALS=N per set (default 20), SEED=N, SIGNAL_BOUND_MS=MS.
# Usage: tests/vm/signals.sh BUILD_DIR SIGTRIAL-STATIC
set -u
O=$(readlink -f "$1")
SIGTRIAL=$(readlink -f "$2")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm-signals
mkdir -p "$vm"
vm_name=check-vm-signals
. "$top/tests/vm/lib.sh"

TRIALS=${SIGNAL_TRIALS:-20}
SEED=${SEED:-$(date +%s)}
case "$TRIALS$SEED${SIGNAL_BOUND_MS:-0}" in
*[!0-9]*) echo "check-vm-signals: SIGNAL_TRIALS, SEED and SIGNAL_BOUND_MS are numbers" >&2; exit 2 ;;
esac

vm_debian_kernel
echo "check-vm-signals: kernel $kver, $vmlinuz; $TRIALS trials, seed $SEED"
vm_module "$kdir" "$vm/tracecost.ko"
vm_initrd "$vm/initrd.gz" "$top/tests/vm/guest-signals.sh" "$vm/tracecost.ko" \
	"$O/tracecost-static"
# the static sigtrial beside /tracecost: unpack, add, pack again
(cd "$vm/root" && cp "$SIGTRIAL" sigtrial && find . | cpio -o -H newc 2>/dev/null | gzip -1) \
	>"$vm/initrd.gz"

# One TCG thread for both virtual CPUs ($VM_ACCEL to change): a boot of
# 100 trials with one thread each (-accel tcg) met a QEMU vCPU timer stall
# after 180 s on a loaded host (rcu: "timer wakeup didn't happen", the
# guest hung), and a stall is only seen at the timeout. A trial takes
# 5-20 s of a loaded host; the limit leaves room for a slow one.
VM_ACCEL=${VM_ACCEL:-tcg-single}
vm_boot signals signals $((300 + TRIALS * 60)) "$vmlinuz" "$vm/initrd.gz" \
	"tctrials=$TRIALS tcseed=$SEED" --smp 2

txt=$vm/signals.txt
grep '^EARLY ' "$txt" | sed 's/^/  /'
grep '^ERR ' "$txt" | sed 's/^/  /'
# pct FILE P: the P-th percentile of FILE's numbers (nearest rank)
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}
st() { echo "median $(pct "$1" 50), p99 $(pct "$1" 99), max $(pct "$1" 100)"; }
summary=""
for set in kernel kernel-long kernel-runs; do
	lens=$(awk -v s=$set '$1 == "LENGTH" && $2 == s { printf "%s%d", sep, $3; sep = ", " }' "$txt")
	awk -v s=$set '$1 == "TRIAL" && $2 == s { print $7 }' "$txt" >"$vm/seen.$set"
	awk -v s=$set '$1 == "TRIAL" && $2 == s { print $8 }' "$txt" >"$vm/exit.$set"
	got=$(wc -l <"$vm/seen.$set")
	bad=$(awk -v s=$set '$1 == "TRIAL" && $2 == s && ($6 != 130 || $9 != "-")' "$txt")
	early=$(grep -c "^EARLY $set " "$txt")
	stats="ms of the guest clock (TCG) to 'interrupted' $(st "$vm/seen.$set"); to the exit $(st "$vm/exit.$set"); $got trials ($early more ended before their signal; uninterrupted runs $lens ms)"
	if [ "$got" -ne "$TRIALS" ]; then
		not_ok "signal latency, $set: $got of $TRIALS trials ran; $stats"
	elif [ -n "$bad" ]; then
		not_ok "signal latency, $set: wrong exit or something left:"
		echo "$bad" | sed 's/^/  /'
	else
		ok "signal latency, $set: exit 130 and nothing left in every trial; $stats"
	fi
	if [ -n "${SIGNAL_BOUND_MS:-}" ] && [ "$got" -gt 0 ]; then
		late=$(awk -v b="$SIGNAL_BOUND_MS" '$1 > b' "$vm/seen.$set" | wc -l)
		if [ "$late" -eq 0 ]; then
			ok "signal latency, $set: every signal seen within $SIGNAL_BOUND_MS ms"
		else
			not_ok "signal latency, $set: $late of $got signals seen after $SIGNAL_BOUND_MS ms"
		fi
	fi
	# both signals among the trials
	for s in INT TERM; do
		[ "$got" -lt 2 ] || awk -v s=$set -v g=$s '$1 == "TRIAL" && $2 == s && $4 == g' "$txt" |
			grep -q . || not_ok "$set: no SIG$s trial"
	done
	summary="$summary$(printf '  %-12s seen %s; exit %s' "$set" "$(st "$vm/seen.$set")" "$(st "$vm/exit.$set")")
"
done
printf 'signal latency (ms of the guest clock, TCG; %d trials per set; seed %s):\n%s' \
	"$TRIALS" "$SEED" "$summary"

summary check-vm-signals
