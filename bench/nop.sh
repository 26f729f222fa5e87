#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/nop.sh (issue 17): what a disabled static-key site costs over stock,
# per pair, paired inside one run. Figures for BENCHMARKS.md, never asserted.
#
# One process, tracecost run --batch B --repeat R --unit ticks: every
# repetition measures every configuration on every CPU in turn, so static
# and stock of one repetition share the machine's state. Per pair and
# repetition: mean ticks per pair of static minus that of stock (all CPUs:
# sum of snapshot sums / sum of samples / batch). Printed per pair: the mean
# of the R differences with its 95 % t interval, the smallest and largest
# difference, and in how many repetitions it is within the goal (0.1 tick).
# The code measured is checked by make check-sites: the static loops are
# stock's plus one NOP per site (no added jump, load, store or spill).
#
# Usage: bench/nop.sh path/to/tracecost   (NOP_REPEAT, NOP_SAMPLES, NOP_BATCH)
set -eu
TC=$1
REPEAT=${NOP_REPEAT:-20}
SAMPLES=${NOP_SAMPLES:-100000}
BATCH=${NOP_BATCH:-64}
GOAL=0.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT

echo "== static - stock per pair, $(date -u +%Y-%m-%dT%H:%M:%SZ), $($TC --version)"
echo "== $TC run --samples $SAMPLES --batch $BATCH --repeat $REPEAT --unit ticks"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
$TC run --samples "$SAMPLES" --batch "$BATCH" --repeat "$REPEAT" --unit ticks \
	--json "$tmp/n.json" >"$tmp/n.txt"
grep -E '^(cpu|kernel|counter|static keys):' "$tmp/n.txt" || true
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
jq -r --argjson R "$REPEAT" --argjson G "$GOAL" '
  def t975(df): [12.706,4.303,3.182,2.776,2.571,2.447,2.365,2.306,2.262,2.228,2.201,2.179,
                 2.160,2.145,2.131,2.120,2.110,2.101,2.093,2.086,2.080,2.074,2.069,2.064,
                 2.060,2.056,2.052,2.048,2.045,2.042][df - 1] // 1.96;
  def r3: . * 1000 | round / 1000;
  .user.batch as $b
  | "pair\tstatic - stock\t95 % CI\tmin\tmax\twithin \($G)\tstock",
    (.user.pairs[] as $p
     | ($p.cells | map({key: .configuration,
          value: [range(0; $R) as $r | [.snapshots[] | select(.rep == $r)]
                  | ((map(.sum | tonumber) | add) / (map(.n) | add) / $b)]})
        | from_entries) as $m
     | [range(0; $R) as $r | $m["static"][$r] - $m["stock"][$r]] as $d
     | ($d | add / length) as $mean
     | (if $R > 1 then ((($d | map((. - $mean) * (. - $mean)) | add) / ($R - 1)) | sqrt)
        else 0 end) as $sd
     | (t975($R - 1) * $sd / ($R | sqrt)) as $hw
     | "\($p.name)\t\($mean | r3)\t[\(($mean - $hw) | r3), \(($mean + $hw) | r3)]\t\($d | min | r3)\t\($d | max | r3)\t\([$d[] | select(. <= $G)] | length)/\($R)\t\($m["stock"] | add / length | r3)")
' "$tmp/n.json" | column -t -s "$(printf '\t')"
