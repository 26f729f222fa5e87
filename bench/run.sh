#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: speed figures of the user suite, printed as differences and
# ratios measured in one run (never asserted). Copy the output into
# BENCHMARKS.md with this command line.
#
#  1. static (disabled) - stock and call - stock per pair, ticks per pair,
#     mean of per-repetition differences with a 95% t interval over the
#     repetitions (--batch 64 for sub-tick resolution of means);
#  2. static+ - static: cost per recorded event (2 events per pair), ns;
#  3. peak RSS at --samples 10^7 and 10^8 (memory must not grow), and
#     samples per second per CPU;
#  4. instructions and bytes per toggle site, per configuration.
# Usage: bench/run.sh path/to/tracecost   (BENCH_REPEAT, BENCH_SAMPLES, BENCH_BIG)
set -eu
TC=$1
REPEAT=${BENCH_REPEAT:-10}
SAMPLES=${BENCH_SAMPLES:-200000}
BIG=${BENCH_BIG:-100000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== tracecost bench, $(date -u +%Y-%m-%dT%H:%M:%SZ), $($TC --version)"
echo "== 1. disabled-site cost: $TC run --samples $SAMPLES --batch 64 --repeat $REPEAT --unit ticks"
$TC run --samples "$SAMPLES" --batch 64 --repeat "$REPEAT" --unit ticks --json "$tmp/b.json" >"$tmp/b.txt"
grep -E '^(cpu|kernel|counter|static keys):' "$tmp/b.txt"
# Per repetition: mean ticks per pair of a configuration over all CPUs
# (sum of snapshot sums / sum of n / batch). Then the mean difference of
# two configurations over the repetitions and its 95% t interval.
jq -r --argjson R "$REPEAT" '
  def t975(df): [12.706,4.303,3.182,2.776,2.571,2.447,2.365,2.306,2.262,2.228,2.201,2.179,
                 2.160,2.145,2.131,2.120,2.110,2.101,2.093,2.086][df - 1] // 1.96;
  .user.batch as $b
  | .user.pairs[] as $p
  | ($p.cells | map({key: .configuration,
       value: [range(0; $R) as $r | [.snapshots[] | select(.rep == $r)]
               | ((map(.sum | tonumber) | add) / (map(.n) | add) / $b)]})
     | from_entries) as $m
  | ["call", "static", "static+"][] as $c
  | [range(0; $R) as $r | $m[$c][$r] - $m["stock"][$r]] as $d
  | ($d | add / length) as $mean
  | (if $R > 1 then ((($d | map((. - $mean) * (. - $mean)) | add) / ($R - 1)) | sqrt) else 0 end) as $sd
  | (t975($R - 1) * $sd / ($R | sqrt)) as $hw
  | "\($p.name)\t\($c) - stock\t\($mean * 1000 | round / 1000) ticks/pair\t95% CI [\(($mean - $hw) * 1000 | round / 1000), \(($mean + $hw) * 1000 | round / 1000)]\tratio \(($m[$c] | add) / ($m["stock"] | add) * 100 | round / 100)"
' "$tmp/b.json" | column -t -s "$(printf '\t')"

echo
echo "== 2. cost per recorded event (static+ - static, 2 events per pair)"
jq -r '
  .counter.frequency_hz as $f
  | .user.pairs[] as $p
  | ($p.cells | map({key: .configuration, value: .stats.average}) | from_entries) as $a
  | "\($p.name)\tstatic+: \(($a["static+"] - $a["static"]) / 2 / $f * 1e9 * 10 | round / 10) ns/event\tcall+: \(($a["call+"] - $a["call"]) / 2 / $f * 1e9 * 10 | round / 10) ns/event"
' "$tmp/b.json" | column -t -s "$(printf '\t')"
jq -r '.user.configurations[] | select(.probes) | "\(.name): \(.events) events recorded, \(.overruns) overruns"' "$tmp/b.json"

echo
echo "== 3. memory and rate: --cpus 0, --samples 10^7 and $BIG"
for n in 10000000 "$BIG"; do
	/usr/bin/time -f "%M %e" -o "$tmp/time" $TC run --cpus 0 --samples "$n" >/dev/null
	set -- $(cat "$tmp/time")
	# main run + 1-CPU run, 15 cells each
	rate=$(awk -v n="$n" -v s="$2" 'BEGIN { printf "%.2f", 2 * 15 * n / s / 1e6 }')
	echo "samples $n: peak RSS $(($1 / 1024)) MiB, wall $2 s, ~$rate M samples/s on one CPU (incl. calibration and both runs)"
done

echo
echo "== 4. code size per toggle site (instructions/bytes on the fall-through path + bytes out of line)"
sed -n '/^Binary size impact/,/^Sites:/p' "$tmp/b.txt"
