#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: calibration of compare's verdicts on this machine (figures,
# never asserted; copy them into BENCHMARKS.md with this command line).
#
#  1. A/A, user suite: N columns of R runs each, every run a separate
#     invocation of the same binary (`tracecost run`, one process), the runs
#     of the N columns interleaved in time (round r runs column 1..N once:
#     Kalibera & Jones's advice, so that load that drifts over the minutes
#     of the benchmark hits every column alike); every pair of columns
#     compared as file groups (`tracecost compare a1-1.json,...,a1-R.json
#     a2-1.json,...`: each configuration against the same configuration of
#     the other group) for
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
#  4. A/A, system suite: M columns of R interleaved invocations of
#     `--suite system --profiles none`, every pair compared, false alarms.
#  5. A/A, sequential sessions, as a user takes them: Q files one after
#     another, each one invocation of `tracecost run --runs 3` (a session);
#     (a) every pair of single files: with one session a side the
#     between-session spread is unknown, so each cell must be "?", never a
#     verdict (before sessions were the unit, 13 % of such cells were false
#     alarms); (b) groups of 3 sessions a side, taken AAA...BBB (files 1-3
#     against 4-6, ...) and ABAB (odd against even files): false alarms,
#     goal at most 5 %; "?" rate.
#  6. The same sequential single files, with a calibration of this host
#     taken just before them (`tracecost calibrate --sessions C --spacing
#     SP`, the files' settings): false alarms (goal at most 5 % of the
#     cells), "?" rate (goal at most 10 %), and the detection of call
#     against stock irq (average and median) between single files.
# Usage: bench/verdicts.sh path/to/tracecost
#   (VERDICT_FILES=10, VERDICT_RUNS=5, VERDICT_SAMPLES=100000, VERDICT_BATCH=64,
#    VERDICT_SYS_FILES=6, VERDICT_SEQ_FILES=12, VERDICT_CAL_SESSIONS=8,
#    VERDICT_CAL_SPACING=60s; VERDICT_ONLY=sequential runs 5 and 6 alone)
set -eu
TC=$1
N=${VERDICT_FILES:-10}
R=${VERDICT_RUNS:-5}
S=${VERDICT_SAMPLES:-100000}
K=${VERDICT_BATCH:-64}
M=${VERDICT_SYS_FILES:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

Q=${VERDICT_SEQ_FILES:-12}
echo "== tracecost verdict calibration, $(date -u +%Y-%m-%dT%H:%M:%SZ), $($TC --version)"
if [ "${VERDICT_ONLY:-}" != sequential ]; then
# group PREFIX I: the R run files of column I, comma-separated
group() {
	g=""
	r=1
	while [ "$r" -le "$R" ]; do
		g="$g${g:+,}$tmp/$1$2-$r.json"
		r=$((r + 1))
	done
	echo "$g"
}
echo "== user suite: $N columns x $R runs of '$TC run --samples $S --batch $K --repeat 2 --unit ticks', interleaved"
r=1
while [ "$r" -le "$R" ]; do
	i=1
	while [ "$i" -le "$N" ]; do
		"$TC" run --samples "$S" --batch "$K" --repeat 2 --unit ticks \
			--json "$tmp/a$i-$r.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
		i=$((i + 1))
	done
	r=$((r + 1))
done
# Every pair of columns: one compare each (10 columns: b's against a's).
i=1
while [ "$i" -le "$N" ]; do
	gi=$(group a "$i")
	j=$((i + 1))
	while [ "$j" -le "$N" ]; do
		gj=$(group a "$j")
		"$TC" compare "$gi" "$gj" --unit ticks --metrics all --resamples 1000 \
			--format json >"$tmp/c$i-$j.json"
		"$TC" compare "$gi:stock" "$gj:call" --unit ticks --resamples 1000 \
			--format json >"$tmp/sk$i-$j.json"
		j=$((j + 1))
	done
	"$TC" compare "$gi:stock" "$gi:static" --unit ticks --resamples 1000 \
		--format json >"$tmp/s$i.json"
	i=$((i + 1))
done

echo
echo "-- 1. A/A false alarms (same binary, columns of $R separate invocations each)"
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
echo "== system suite: $M columns x $R runs of '$TC run --suite system --profiles none --workloads getpid,pipe --calls 200000 --round-trips 5000 --repeat 5', interleaved"
r=1
while [ "$r" -le "$R" ]; do
	i=1
	while [ "$i" -le "$M" ]; do
		"$TC" run --suite system --profiles none --workloads getpid,pipe --calls 200000 \
			--round-trips 5000 --repeat 5 --json "$tmp/y$i-$r.json" >/dev/null \
			2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
		i=$((i + 1))
	done
	r=$((r + 1))
done
i=1
while [ "$i" -le "$M" ]; do
	j=$((i + 1))
	while [ "$j" -le "$M" ]; do
		"$TC" compare "$(group y "$i")" "$(group y "$j")" --metrics median,average \
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
fi

# ---- 5. sequential sessions ----------------------------------------------
echo
CS=${VERDICT_CAL_SESSIONS:-8}
SP=${VERDICT_CAL_SPACING:-60s}
echo "== calibration of this host: '$TC calibrate --sessions $CS --spacing $SP -- --samples $S --batch $K --repeat 2'"
"$TC" calibrate --sessions "$CS" --spacing "$SP" --output "$tmp/host-cal.json" -- \
	--samples "$S" --batch "$K" --repeat 2 >"$tmp/cal.out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; exit 1; }
sed -n '1,/^$/p' "$tmp/cal.out"
grep -A 4 "^row " "$tmp/cal.out"
echo "== sequential sessions: $Q files one after another of '$TC run --runs 3 --samples $S --batch $K --repeat 2 --unit ticks'"
q=1
while [ "$q" -le "$Q" ]; do
	"$TC" run --runs 3 --samples "$S" --batch "$K" --repeat 2 --unit ticks \
		--json "$tmp/q$q.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	q=$((q + 1))
done
i=1
while [ "$i" -le "$Q" ]; do
	j=$((i + 1))
	while [ "$j" -le "$Q" ]; do
		"$TC" compare "$tmp/q$i.json" "$tmp/q$j.json" --unit ticks --resamples 1000 \
			--calibration none --format json >"$tmp/p$i-$j.json"
		"$TC" compare "$tmp/q$i.json" "$tmp/q$j.json" --unit ticks --resamples 1000 \
			--calibration "$tmp/host-cal.json" --format json >"$tmp/sc$i-$j.json"
		"$TC" compare "$tmp/q$i.json:stock" "$tmp/q$j.json:call" --unit ticks \
			--resamples 1000 --calibration "$tmp/host-cal.json" --format json \
			>"$tmp/sk$i-$j.json"
		j=$((j + 1))
	done
	i=$((i + 1))
done
# groups of three sessions: AAA BBB (consecutive) and ABAB (alternate)
g=1
while [ $((g * 6)) -le "$Q" ]; do
	b=$(((g - 1) * 6))
	"$TC" compare "$tmp/q$((b + 1)).json,$tmp/q$((b + 2)).json,$tmp/q$((b + 3)).json" \
		"$tmp/q$((b + 4)).json,$tmp/q$((b + 5)).json,$tmp/q$((b + 6)).json" \
		--unit ticks --resamples 1000 --format json >"$tmp/ga$g.json"
	"$TC" compare "$tmp/q$((b + 1)).json,$tmp/q$((b + 3)).json,$tmp/q$((b + 5)).json" \
		"$tmp/q$((b + 2)).json,$tmp/q$((b + 4)).json,$tmp/q$((b + 6)).json" \
		--unit ticks --resamples 1000 --format json >"$tmp/gb$g.json"
	g=$((g + 1))
done
seq_tally() { # LABEL FILES...: alarms and unknowns over the cells against another session
	label=$1
	shift
	jq -s -r --arg l "$label" '
	  [.[] | .sections[] as $s | $s.rows[] | .metric as $m | .cells[5:][] | {m: $m, v: .verdict}] as $c
	  | "\($l)\t\($c | length) cells\t\([$c[] | select(.v == "slower" or .v == "faster")] | length) alarms (\(([$c[] | select(.v == "slower" or .v == "faster")] | length) * 1000 / ($c | length) | round / 10) %)\t? \([$c[] | select(.v == "unknown")] | length) (\(([$c[] | select(.v == "unknown")] | length) * 1000 / ($c | length) | round / 10) %)"
	' "$@"
}
echo "-- 5. A/A false alarms between sessions taken one after another"
{
	seq_tally "single files, one session a side" "$tmp"/p*.json
	[ -e "$tmp/ga1.json" ] && seq_tally "groups of 3 sessions, AAA BBB" "$tmp"/ga*.json
	[ -e "$tmp/gb1.json" ] && seq_tally "groups of 3 sessions, ABAB" "$tmp"/gb*.json
} | column -t -s "$(printf '\t')"
echo "-- 6. A/A false alarms between single files, calibrated (goal <= 5 %, ? <= 10 %)"
{
	seq_tally "single files, calibrated" "$tmp"/sc*.json
	jq -s -r '[.[] | .sections[] as $s | $s.rows[] | .metric as $m | .cells[5:][]
	  | {m: $m, v: .verdict}] | group_by(.m)[]
	  | "  \(.[0].m)\t\(length) cells\t\([.[] | select(.v == "slower" or .v == "faster")] | length) alarms (\(([.[] | select(.v == "slower" or .v == "faster")] | length) * 1000 / length | round / 10) %)\t? \([.[] | select(.v == "unknown")] | length)"' "$tmp"/sc*.json
} | column -t -s "$(printf '\t')"
echo "-- 6. call against stock irq between single files, calibrated: detection"
jq -s -r '[.[] | .sections[] | select(.name == "irq") | .rows[]
  | select(.metric == "average" or .metric == "median") | {m: .metric, v: .cells[1].verdict}]
  | group_by(.m)[]
  | "  \(.[0].m)\t\(length) comparisons\tslower \([.[] | select(.v == "slower")] | length) (\(([.[] | select(.v == "slower")] | length) * 1000 / length | round / 10) %)\t? \([.[] | select(.v == "unknown")] | length)"' \
	"$tmp"/sk*.json | column -t -s "$(printf '\t')"
