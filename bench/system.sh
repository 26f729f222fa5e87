#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench, system suite: what raw syscall events cost a getpid loop on one
# CPU (the seed's "10M getpid" under raw_syscalls), as figures of one run,
# never asserted. Needs root (tracefs); skipped otherwise.
# Usage: bench/system.sh path/to/tracecost   (BENCH_SYS_CALLS, BENCH_SYS_REPEAT)
set -eu
TC=$1
CALLS=${BENCH_SYS_CALLS:-10000000}
REPEAT=${BENCH_SYS_REPEAT:-7}
if [ "$(id -u)" -ne 0 ]; then
	echo "== system suite: skipped (tracing profiles need root)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo
echo "== system suite: $TC run --suite system --workloads getpid --profiles none,syscalls --cpus 0 --calls $CALLS --repeat $REPEAT"
$TC run --suite system --workloads getpid --profiles none,syscalls --cpus 0 --calls "$CALLS" \
	--repeat "$REPEAT" --json "$tmp/s.json" >"$tmp/s.txt"
sed -n '/^getpid:/,/overhead vs none/p' "$tmp/s.txt"
jq -r '
  .system.workloads[0].metrics[0].cells as $c
  | ($c[] | select(.profile == "none")) as $n
  | ($c[] | select(.profile == "syscalls")) as $s
  | "getpid: \($n.summary.median * 10 | round / 10) ns/call -> \($s.summary.median * 10 | round / 10) ns/call under raw_syscalls (\(($s.summary.median - $n.summary.median) / 2 * 10 | round / 10) ns per event, 2 events per call)",
    "overhead: \($s.overhead_pct.median * 10 | round / 10)% [\($s.overhead_pct.ci_low * 10 | round / 10), \($s.overhead_pct.ci_high * 10 | round / 10)] (order-statistic 95% CI, null below 6 rounds)",
    "sign: syscalls slower than none in \([range(0; $n.values | length) as $i | select($s.values[$i] > $n.values[$i])] | length) of \($n.values | length) rounds",
    "events from the workload in the buffer at the end of each round: \($s.events_from_workload)"
' "$tmp/s.json"
