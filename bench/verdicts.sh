#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: calibration of compare's verdicts on this machine (figures,
# never asserted; copy them into BENCHMARKS.md with this command line).
#
#  1. A/A, user suite: N invocations of the same binary, each
#     `tracecost run --runs R` (R runs, each a fresh process); every pair of
#     files compared (`tracecost compare aI.json aJ.json`: each
#     configuration against the same configuration of the other file) for
#     average, median, max_avg and the percentile. Nothing changed, so
#     every "slower" or "faster" is a false alarm: goal at most 5 % of the
#     cells at the 95 % level. "?" (unknown) would mean too few runs.
#  2. Known effects: `call` against `stock` irq across separate files
#     (about 7.7 ticks per pair at --batch 64 on the reference machine):
#     detection rate over the file pairs, goal >= 95 % with R = 5 runs a
#     side; and `static` against `stock` within each file (one NOP per
#     hook, paired), the rate at which that difference is called.
#  3. Resolution: for each pair, the median half-width of the A/A
#     intervals of the average, in ticks per pair: the smallest difference
#     between two such files that this machine resolves.
#  4. A/A, system suite: M invocations of `--suite system --profiles none
#     --runs R`, every pair of files compared, false-alarm rate.
# Usage: bench/verdicts.sh path/to/tracecost
#   (VERDICT_FILES=10, VERDICT_RUNS=5, VERDICT_SAMPLES=100000, VERDICT_BATCH=64,
#    VERDICT_SYS_FILES=6)
set -eu
TC=$1
N=${VERDICT_FILES:-10}
R=${VERDICT_RUNS:-5}
S=${VERDICT_SAMPLES:-100000}
K=${VERDICT_BATCH:-64}
M=${VERDICT_SYS_FILES:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== tracecost verdict calibration, $(date -u +%Y-%m-%dT%H:%M:%SZ), $($TC --version)"
echo "== user suite: $N x '$TC run --runs $R --samples $S --batch $K --repeat 2 --unit ticks'"
i=1
while [ "$i" -le "$N" ]; do
	"$TC" run --runs "$R" --samples "$S" --batch "$K" --repeat 2 --unit ticks \
		--json "$tmp/a$i.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	i=$((i + 1))
done
# Every pair of files: one compare each (10 columns: b's against a's).
i=1
while [ "$i" -le "$N" ]; do
	j=$((i + 1))
	while [ "$j" -le "$N" ]; do
		"$TC" compare "$tmp/a$i.json" "$tmp/a$j.json" --unit ticks --metrics all \
			--format json >"$tmp/c$i-$j.json"
		"$TC" compare "$tmp/a$i.json:stock" "$tmp/a$j.json:call" --unit ticks \
			--format json >"$tmp/k$i-$j.json"
		j=$((j + 1))
	done
	"$TC" compare "$tmp/a$i.json:stock" "$tmp/a$i.json:static" --unit ticks \
		--format json >"$tmp/s$i.json"
	i=$((i + 1))
done

echo
echo "-- 1. A/A false alarms (same binary, separate invocations of $R runs each)"
jq -s -r '
  [.[] | .sections[] as $s | $s.rows[] | select(.metric != "min" and .metric != "max")
   | .metric as $m | .cells[5:][] | {m: $m, v: .verdict}] as $c
  | ($c | group_by(.m)[] | "\(.[0].m)\t\(length) cells\t\([.[] | select(.v == "slower" or .v == "faster")] | length) alarms\t\(([.[] | select(.v == "slower" or .v == "faster")] | length) * 1000 / length | round / 10) %\tunknown \([.[] | select(.v == "unknown")] | length)"),
    "all\t\($c | length) cells\t\([$c[] | select(.v == "slower" or .v == "faster")] | length) alarms\t\(([$c[] | select(.v == "slower" or .v == "faster")] | length) * 1000 / ($c | length) | round / 10) %\tgoal <= 5 %"
' "$tmp"/c*.json | column -t -s "$(printf '\t')"

echo
echo "-- 2. known effects"
jq -s -r '
  [.[] | .sections[] | select(.name == "irq") | .rows[] | select(.metric == "average")
   | {d: (.cells[1].value - .cells[0].value), v: .cells[1].verdict, r: .cells[1].runs}] as $k
  | ([$k[] | select(.v == "slower")] | length) as $hit
  | "call vs stock irq, separate files (\($k[0].r) runs a side): slower in \($hit) of \($k | length) (\($hit * 1000 / ($k | length) | round / 10) %, goal >= 95 %), mean difference \([$k[].d] | add / length * 100 | round / 100) ticks per pair"
' "$tmp"/k*.json
jq -s -r '
  [.[] | .sections[] | select(.name == "irq") | .rows[] | select(.metric == "average")
   | {d: (.cells[1].value - .cells[0].value), v: .cells[1].verdict}] as $k
  | ([$k[] | select(.v == "slower")] | length) as $hit
  | "static vs stock irq, within each file (paired, one NOP per hook): slower in \($hit) of \($k | length), mean difference \([$k[].d] | add / length * 1000 | round / 1000) ticks per pair"
' "$tmp"/s*.json

echo
echo "-- 3. resolution: median half-width of the A/A intervals of the average (ticks per pair, batch $K)"
jq -s -r '
  [.[] | .sections[] as $s | $s.rows[] | select(.metric == "average") | .cells[5:][]
   | {p: $s.name, h: ((.diff_hi - .diff_lo) / 2)}]
  | group_by(.p)[] | (map(.h) | sort) as $h
  | "\(.[0].p)\t+- \($h[($h | length) / 2 | floor] * 1000 | round / 1000) ticks per pair"
' "$tmp"/c*.json | column -t -s "$(printf '\t')"

echo
echo "== system suite: $M x '$TC run --suite system --profiles none --workloads getpid,pipe --calls 200000 --round-trips 5000 --repeat 5 --runs 3'"
i=1
while [ "$i" -le "$M" ]; do
	"$TC" run --suite system --profiles none --workloads getpid,pipe --calls 200000 \
		--round-trips 5000 --repeat 5 --runs 3 --json "$tmp/y$i.json" >/dev/null \
		2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	i=$((i + 1))
done
i=1
while [ "$i" -le "$M" ]; do
	j=$((i + 1))
	while [ "$j" -le "$M" ]; do
		"$TC" compare "$tmp/y$i.json" "$tmp/y$j.json" --metrics median,average \
			--format json >"$tmp/d$i-$j.json"
		j=$((j + 1))
	done
	i=$((i + 1))
done
echo "-- 4. A/A false alarms, system suite"
jq -s -r '
  [.[] | .sections[] as $s | $s.rows[] | .metric as $m | .cells[1] | {m: $m, v: .verdict}] as $c
  | "\($c | length) cells (median, average of getpid and pipe)\t\([$c[] | select(.v == "slower" or .v == "faster")] | length) alarms\t\(([$c[] | select(.v == "slower" or .v == "faster")] | length) * 1000 / ($c | length) | round / 10) %\tgoal <= 5 %"
' "$tmp"/d*.json | column -t -s "$(printf '\t')"
