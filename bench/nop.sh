#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/nop.sh (issue 17): what a disabled static-key site costs over stock,
# per pair, paired inside one run. Figures for BENCHMARKS.md, never asserted.
#
# One process, tracecost run --batch B --repeat R --unit ticks: every
# repetition measures every configuration on every CPU in turn, so static
# and stock of one repetition share the machine's state. Per pair and
# repetition: ticks per pair of static minus that of stock, from the mean
# (all CPUs: sum of snapshot sums / sum of samples / batch) and from the
# median sample (robust to interruptions on a loaded machine). Printed per
# pair: the mean of the R differences with its 95 % t interval, the
# smallest and largest difference, and in how many repetitions it is within
# the goal (0.1 tick).
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
echo "== $TC run --samples $SAMPLES --batch $BATCH --repeat $REPEAT --unit ticks --peers nop"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
$TC run --samples "$SAMPLES" --batch "$BATCH" --repeat "$REPEAT" --unit ticks --peers nop \
	--json "$tmp/n.json" >"$tmp/n.txt"
grep -E '^(cpu|kernel|counter|static keys):' "$tmp/n.txt" || true
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The same per repetition with a statistic robust to interruptions: the
# median sample of the repetition (both CPUs' buckets merged; buckets are
# exact below 4096 ticks per sample), divided by the batch.
stats='
  def t975(df): [12.706,4.303,3.182,2.776,2.571,2.447,2.365,2.306,2.262,2.228,2.201,2.179,
                 2.160,2.145,2.131,2.120,2.110,2.101,2.093,2.086,2.080,2.074,2.069,2.064,
                 2.060,2.056,2.052,2.048,2.045,2.042][df - 1] // 1.96;
  def r3: . * 1000 | round / 1000;
  def bucket_value: if . < 4096 then .
    else (12 + ((. - 4096) / 256 | floor)) as $e | ((256 + (. - 4096) % 256) * pow(2; $e - 8)) end;
  def median_of($snaps): ([$snaps[].n] | add) as $n
    | [$snaps[].buckets[]] | group_by(.[0]) | map([.[0][0], (map(.[1]) | add)])
    | sort_by(.[0])
    | reduce .[] as $b ({c: 0, v: null};
        if .v == null and .c + $b[1] >= ($n + 1) / 2 then .v = ($b[0] | bucket_value)
        else . end | .c += $b[1]) | .v;
  def cellstat($how; $r; $b): [.snapshots[] | select(.rep == $r)] as $s
    | if $how == "mean" then ($s | (map(.sum | tonumber) | add) / (map(.n) | add) / $b)
      else median_of($s) / $b end;
  .user.batch as $b
  | "pair\t\($A) - \($B)\t95 % CI\tmin\tmax\twithin \($G)\t\($B)",
    (.user.pairs[] as $p
     | ($p.cells | map(. as $c | {key: .configuration,
          value: [range(0; $R) as $r | $c | cellstat($how; $r; $b)]}) | from_entries) as $m
     | [range(0; $R) as $r | $m[$A][$r] - $m[$B][$r]] as $d
     | ($d | add / length) as $mean
     | (if $R > 1 then ((($d | map((. - $mean) * (. - $mean)) | add) / ($R - 1)) | sqrt)
        else 0 end) as $sd
     | (t975($R - 1) * $sd / ($R | sqrt)) as $hw
     | "\($p.name)\t\($mean | r3)\t[\(($mean - $hw) | r3), \(($mean + $hw) | r3)]\t\($d | min | r3)\t\($d | max | r3)\t\([$d[] | select(. <= $G)] | length)/\($R)\t\($m[$B] | add / length | r3)")
'
# static - stock: the goal; static - nop: what the code around a disabled
# site costs beyond its NOP; nop - stock: what the NOP itself costs (the
# nop peer: stock with the same NOP at every toggle, as plain code).
for ab in static:stock static:nop nop:stock; do
	a=${ab%:*} b=${ab#*:}
	for how in mean median; do
		echo
		if [ $how = mean ]; then
			echo "mean ticks per pair, $a - $b per repetition:"
		else
			echo "median sample / batch (ticks per pair), $a - $b per repetition:"
		fi
		jq -r --argjson R "$REPEAT" --argjson G "$GOAL" --arg how $how --arg A "$a" \
			--arg B "$b" "$stats" "$tmp/n.json" | column -t -s "$(printf '\t')"
	done
done
