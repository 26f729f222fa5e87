#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Integration tests of tracecost compare, size and plot: the seed-style
# table with changes and verdicts, a file against itself (user and system
# suites), the formats,
# hostile result files (exit 2, one line, no output), the size table of the
# toggle subject's builds, and a checked SVG. Asserts behaviour, never
# timing: verdicts between different runs are only checked for consistency
# with their intervals.
# Usage: tests/integration/compare.sh path/to/tracecost
set -u
TC=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
top=$(readlink -f "$here/../..")
objs=$(dirname "$TC")/subjects
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir
# lock_wait (and the tracefs helpers, unused here)
. "$(dirname "$(readlink -f "$0")")/tracefs-lib.sh"

# expect_rc RC "description" args...: exit RC, exactly one line on stderr,
# nothing on stdout, no file left in $tmp/out (where the command runs).
expect_rc() {
	want=$1; desc=$2; shift 2
	rm -rf "$tmp/out"; mkdir -p "$tmp/out"
	(cd "$tmp/out" && "$TC" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/stdout" ] &&
	   [ -z "$(ls -A "$tmp/out")" ]; then
		ok "$desc: exit $want: $(cut -c1-150 "$tmp/stderr")"
	else
		not_ok "$desc: rc=$rc, stderr lines=$lines, stdout $(wc -c <"$tmp/stdout") bytes: $(head -3 "$tmp/stderr" | cut -c1-200)"
	fi
}
expect_usage() { expect_rc 2 "$@"; }

# Three small runs on one CPU: 5 repetitions, 5 with --do-work, 1.
"$TC" run --cpus 0 --samples 3000 --repeat 5 --json "$tmp/a.json" >/dev/null 2>&1 &&
"$TC" run --cpus 0 --samples 3000 --repeat 5 --do-work --json "$tmp/b.json" >/dev/null 2>&1 &&
"$TC" run --cpus 0 --samples 3000 --repeat 1 --json "$tmp/one.json" >/dev/null 2>&1
check "three result files" '[ -s "$tmp/a.json" ] && [ -s "$tmp/b.json" ] && [ -s "$tmp/one.json" ]'
cd "$tmp" || exit 1

# ---- compare: one file, the seed tables with changes and verdicts ----
"$TC" compare a.json >"$tmp/c1.out" 2>"$tmp/c1.err"
check "compare a.json: exit 0" '[ $? -eq 0 ] && [ ! -s "$tmp/c1.err" ]'
for sect in "IRQ Metrics" "Preempt Metrics" "IRQ save/restore Metrics"; do
	check "compare: section '$sect'" 'grep -qx "$sect" "$tmp/c1.out"'
done
check "compare: header line with the five columns" \
	'grep -Eq "^ *Metric +stock +call +call\+ +static +static\+$" "$tmp/c1.out"'
for row in average median max_avg "99 percentile"; do
	check "compare: row '$row' in 3 sections" \
		'[ $(grep -c "^ *$row  " "$tmp/c1.out") -eq 3 ]'
done
# each row: the reference value, then four cells "value change mark"
check "compare: every cell after the first has a change and a verdict mark" \
	'[ $(grep -E "^ *(average|median|max_avg|99 percentile) " "$tmp/c1.out" |
	     grep -cE "^ *[a-z_0-9 ]+ +[0-9.]+( +[0-9.]+ +([+-][0-9.]+%|-|x[0-9]+|>x9999) [<>~?]){4}$") -eq 12 ]'
check "compare: legend under each table" \
	'[ $(grep -c "^> slower, < faster, ~ no significant difference (95%)" "$tmp/c1.out") -eq 3 ] &&
	 [ $(grep -c "^step: samples move in steps of" "$tmp/c1.out") -eq 3 ]'
check "compare: five columns fit 80 characters" \
	'[ $(grep -E "^ *(Metric|average|median|max_avg|99 percentile) " "$tmp/c1.out" |
	     awk "{ if (length > m) m = length } END { print m + 0 }") -le 80 ]'
check "compare: header names method, unit and runs" \
	'grep -q "^method: 95% interval of each difference: d +- t \* se" "$tmp/c1.out" &&
	 grep -q "^unit: ns per pair" "$tmp/c1.out" && grep -q "1 run, 5 repetitions" "$tmp/c1.out" &&
	 grep -q "^spread of the average: sd between runs / pooled sd within runs" "$tmp/c1.out"'

# ---- a file against itself: no significant difference anywhere ----
"$TC" compare a.json a.json --metrics all --format json >"$tmp/self.json" 2>"$tmp/self.err"
check "self: exit 0, JSON" 'jq -e .sections "$tmp/self.json" >/dev/null'
check "self: every compared cell is 'no significant difference' with [0, 0]" \
	'jq -e "[.sections[].rows[] | select(.metric != \"percentile_1cpu\") | .cells[5:][] |
		 .verdict == \"no significant difference\" and .diff_lo == 0 and .diff_hi == 0] |
		 (length == 90) and all" "$tmp/self.json" >/dev/null'
# the one-CPU percentile is one figure per run: with one run, no interval
check "self: the one-CPU percentile of one run has no verdict" \
	'jq -e "[.sections[].rows[] | select(.metric == \"percentile_1cpu\") | .cells[5:][] |
		 .verdict == \"unknown\"] | (length == 15) and all" "$tmp/self.json" >/dev/null'
check "self: the first file's columns are the references" \
	'jq -e "[.sections[].rows[].cells[:5][] | .verdict == \"reference\"] | all" "$tmp/self.json" >/dev/null'
"$TC" compare a.json a.json >"$tmp/self.txt" 2>&1
check "self (text): only '~' marks" \
	'! grep -E "^ *(average|median|max_avg|99 percentile) " "$tmp/self.txt" | grep -q "[<>?]"'
cp a.json copy.json
"$TC" compare a.json:static copy.json:static --format json >"$tmp/copy.json" 2>/dev/null
check "a copy of a file (same run) against the original: no significant difference" \
	'jq -e "[.sections[].rows[].cells[1].verdict] | all(. == \"no significant difference\")" "$tmp/copy.json" >/dev/null'

# ---- two runs, one with --do-work (the issue's "done when") ----
"$TC" compare a.json b.json >"$tmp/ab.out" 2>"$tmp/ab.err"
check "compare a.json b.json: exit 0" '[ $? -eq 0 ]'
check "a b: ten columns, b's against the same configuration of a" \
	'grep -Eq "^ *Metric +stock +call +call\+ +static +static\+ +stock#2 +call#2 +call\+#2 +static#2 +static\+#2$" "$tmp/ab.out" &&
	 grep -q "static#2: b.json:static (vs static)" "$tmp/ab.out"'
"$TC" compare a.json b.json --format json --metrics all >"$tmp/ab.json"
check "a b (json): one run each: between-run variation unknown, no interval, no verdict" \
	'jq -e "[.sections[].rows[].cells[5:][] | .verdict == \"unknown\" and .diff_lo == null
		 and .runs == 1] | all" "$tmp/ab.json" >/dev/null'
"$TC" compare a.json b.json >"$tmp/ab.txt"
check "a b (text): '?' marks and the reason, with what to do" \
	'grep -E "^ *average " "$tmp/ab.txt" | head -1 | grep -q "?$" &&
	 grep -q "^? between-session variation unknown (sessions: .*): these columns were measured in different sessions .*give each column 3 or more files, one per session" "$tmp/ab.txt"'
check "a b (text): the header says the intervals are between sessions" \
	'grep -q "^interval: between sessions" "$tmp/ab.txt"'
check "a b (json): each cell says what its interval covers and its sessions" \
	'jq -e "[.sections[].rows[] | select(.metric != \"percentile_1cpu\") | .cells[5:][] |
		 .interval == \"between sessions\" and .sessions == 1] | all" "$tmp/ab.json" >/dev/null'
expect_usage "a file given twice in a group" compare "$tmp/a.json,$tmp/a.json"
check "a file given twice: the line says so" 'grep -q "given twice" "$tmp/stderr"'
# runs of one version-2 file that do not fit together: the file named once, the runs by index
"$TC" run --runs 2 --cpus 0 --samples 2000 --repeat 2 --json "$tmp/v2.json" >/dev/null 2>&1
jq '.runs[1].user.batch = 4' "$tmp/v2.json" >"$tmp/v2batch.json"
expect_usage "a version-2 file whose runs differ in batch" compare "$tmp/v2batch.json"
check "a mismatch inside one v2 file: the file named once, the runs by index" \
	'[ $(grep -o "v2batch.json" "$tmp/stderr" | wc -l) -eq 1 ] &&
	 grep -q "runs\[1\] cannot be pooled with runs\[0\]: batch 4, not 1" "$tmp/stderr"'
jq '.runs[1] = .runs[0]' "$tmp/v2.json" >"$tmp/v2dup.json"
expect_usage "a version-2 file holding one run twice" compare "$tmp/v2dup.json"
check "a run repeated inside one v2 file: the file named once, the runs by index" \
	'[ $(grep -o "v2dup.json" "$tmp/stderr" | wc -l) -eq 1 ] &&
	 grep -q "runs\[0\] and runs\[1\] are the same run" "$tmp/stderr"'
# a group describes itself by its first file: mixed groups are refused, naming the field
"$TC" run --cpus 0,1 --samples 2000 --repeat 2 --json "$tmp/cpus2.json" >/dev/null 2>&1
expect_usage "a group of 1-CPU and 2-CPU files" compare "$tmp/a.json,$tmp/cpus2.json:stock"
check "mixed CPUs: the line names the field" 'grep -q "header field cpus" "$tmp/stderr"'
jq '.host.emulation = "aarch64 binary on an x86_64 kernel" | .start = "emulated"' "$tmp/a.json" >"$tmp/emul.json"
expect_usage "a group of native and emulated files" compare "$tmp/a.json,$tmp/emul.json:stock"
check "mixed emulation: the line names the field" 'grep -q "host.emulation" "$tmp/stderr"'
jq '.uname.machine = "aarch64" | .start = "arm"' "$tmp/a.json" >"$tmp/arm.json"
expect_usage "a group of x86_64 and aarch64 files" compare "$tmp/a.json,$tmp/arm.json:stock"
check "a b (json): do_work recorded per column" \
	'jq -e "[.columns[].do_work] == [false,false,false,false,false,true,true,true,true,true]" "$tmp/ab.json" >/dev/null'

# ---- UTF-8 in release and node names: printed as is, columns aligned by display width ----
jq '.uname.release = "6.1-ünï-日本" | .uname.nodename = "nöde\u001b[31m\u009b" | .start = "utf8"' \
	a.json >utf8.json
"$TC" compare a.json:stock utf8.json:stock utf8.json:static >"$tmp/utf8.out" 2>&1
check "UTF-8 release and node names printed as they are, control characters as '?'" \
	'grep -qF "6.1-ünï-日本:stock: utf8.json:stock" "$tmp/utf8.out" &&
	 grep -qF "on nöde?[31m? (" "$tmp/utf8.out" && ! grep -q "$(printf "\033")" "$tmp/utf8.out"'
# every line of a table as wide on the screen as its header
utf8_widths() {
	awk '/^IRQ Metrics$/ { on = 1; next } on && /^$/ { if (seen) exit; next } on { seen = 1; print }' "$1" |
		while IFS= read -r l; do printf '%s\n' "$l" | LC_ALL=C.UTF-8 wc -L; done | sort -u | wc -l
}
check "UTF-8 names: the table's columns aligned by display width (text)" \
	'[ "$(utf8_widths "$tmp/utf8.out")" -eq 1 ]'
"$TC" compare a.json:stock utf8.json:stock --format markdown >"$tmp/utf8.md" 2>&1
check "UTF-8 names: aligned by display width (markdown)" \
	'[ "$(grep "^|" "$tmp/utf8.md" | head -6 | while IFS= read -r l; do printf "%s\n" "$l" | LC_ALL=C.UTF-8 wc -L; done | sort -u | wc -l)" -eq 1 ]'

# ---- FILE:CONFIG, labels, metrics, formats ----
"$TC" compare a.json:stock a.json:static b.json:static --label stock --label static \
	--label work >"$tmp/pick.out"
check "FILE:CONFIG and --label pick and name columns" \
	'grep -Eq "^ *Metric +stock +static +work$" "$tmp/pick.out" &&
	 grep -q "work: b.json:static (vs static)" "$tmp/pick.out"'
"$TC" compare a.json --metrics median,max --format markdown >"$tmp/md.out"
check "markdown: sections, rows, intervals" \
	'[ $(grep -c "^### " "$tmp/md.out") -eq 3 ] && [ $(grep -c "^| *max |" "$tmp/md.out") -eq 3 ] &&
	 grep -q "^| *median |" "$tmp/md.out" && ! grep -q "^| *average" "$tmp/md.out" &&
	 grep -Eq "\[[+-][0-9.]+, [+-][0-9.]+\]" "$tmp/md.out"'
"$TC" compare a.json:stock a.json:call --label "a|b" --format markdown >"$tmp/mdbar.out"
check "markdown: a '|' in a label is escaped: every table line has the same cells" \
	'[ $(grep "^|" "$tmp/mdbar.out" | sed "s/\\\\|//g" | awk -F"|" "{ print NF }" | sort -u | wc -l) -eq 1 ] &&
	 grep -q "a\\\\|b" "$tmp/mdbar.out"'
"$TC" compare a.json --format csv >"$tmp/csv.out"
check "csv: header and one line per cell (3 sections x 4 metrics x 5 columns)" \
	'head -1 "$tmp/csv.out" | grep -qx "section,metric,column,file,configuration,value,change_pct,diff_lo,diff_hi,verdict,unit,value_upper" &&
	 [ $(($(wc -l <"$tmp/csv.out") - 1)) -eq 60 ]'
"$TC" compare a.json --unit ticks --percentile 50 --resamples 200 --seed 7 >"$tmp/ticks.out"
check "--unit ticks, --percentile, --resamples, --seed" \
	'grep -q "^unit: counter ticks per pair" "$tmp/ticks.out" && grep -q "50 percentile" "$tmp/ticks.out" &&
	 grep -q "200 bootstrap resamples (seed 7)" "$tmp/ticks.out"'
"$TC" compare a.json > "$tmp/r1.out"; "$TC" compare a.json > "$tmp/r2.out"
check "reproducible: the same command gives the same output" 'cmp -s "$tmp/r1.out" "$tmp/r2.out"'

# ---- one repetition: n/a, never a guess ----
"$TC" compare one.json one.json --format json >"$tmp/one.out"
check "one repetition: verdict n/a, no interval" \
	'jq -e "[.sections[].rows[].cells[5:][] | .verdict == \"n/a\" and .diff_lo == null] | all" "$tmp/one.out" >/dev/null'
"$TC" compare one.json >"$tmp/one.txt"
check "one repetition (text): '?' marks" \
	'grep -E "^ *average " "$tmp/one.txt" | grep -q "?$"'

# ---- units: counters at different rates ----
jq '.counter.frequency_hz *= 2' a.json >fast.json
"$TC" compare a.json:stock fast.json:stock >"$tmp/fast.out"
check "different counter rates: converted per file, said in the header" \
	'grep -q "the counters run at different rates" "$tmp/fast.out"'
jq 'del(.counter)' a.json >nofreq.json
jq '.suite = "kernel" | .kernel = .user | del(.user)' a.json >kernel.json

# ---- refusals: exit 2, one line, nothing on stdout ----
expect_usage "different suites" compare "$tmp/a.json" "$tmp/kernel.json"
check "different suites: the line names both files" \
	'grep -q "a.json (suite user) and .*kernel.json (suite kernel)" "$tmp/stderr"'
expect_usage "--unit ticks across counter rates" compare "$tmp/a.json" "$tmp/fast.json" --unit ticks
expect_usage "no counter frequency for ns" compare "$tmp/nofreq.json"
# physical fields bounded by what a machine can have: one line naming file and field
for v in 1e-300 1e-10 2e12; do
	jq ".counter.frequency_hz = $v" a.json >freq.json
	expect_usage "counter.frequency_hz $v" compare "$tmp/freq.json"
	check "counter.frequency_hz $v: the line names the file and the field" \
		'grep -q "freq.json: counter.frequency_hz: .* is out of range" "$tmp/stderr"'
done
jq ".counter.resolution_ticks = .counter.frequency_hz" a.json >freq.json
expect_usage "counter.resolution_ticks of one second" compare "$tmp/freq.json"
expect_usage "unknown configuration" compare "$tmp/a.json:nosuch"
expect_usage "too many labels" compare "$tmp/a.json:stock" --label x --label y
expect_usage "unknown metric" compare "$tmp/a.json" --metrics p99
expect_usage "empty CONFIG" compare "$tmp/a.json:"
check "empty CONFIG: the line says the CONFIG is empty" 'grep -q "CONFIG after .:. is empty" "$tmp/stderr"'
expect_usage "a label given twice" compare "$tmp/a.json:stock" "$tmp/a.json:call" --label x --label x
expect_usage "bad format" compare "$tmp/a.json" --format xml
expect_usage "--resamples 5" compare "$tmp/a.json" --resamples 5
expect_usage "no file" compare
expect_usage "missing file" compare "$tmp/nosuch.json"
expect_usage "a directory" compare "$tmp"

# Hostile result files.
mkdir -p "$tmp/h"
: >"$tmp/h/empty.json"
head -c 3000 a.json >"$tmp/h/truncated.json"
printf 'IRQ Metrics\n  average 19.0\n' >"$tmp/h/table.txt"
head -c 4096 /dev/urandom >"$tmp/h/random.bin"
jq '.file_version = 2' a.json >"$tmp/h/future.json"
jq '.file_version = "1"' a.json >"$tmp/h/version-string.json"
jq '.suite = "gpu"' a.json >"$tmp/h/unknown-suite.json"
jq '.suite = "system" | .system = {}' a.json >"$tmp/h/system.json"
jq 'del(.user.pairs)' a.json >"$tmp/h/no-pairs.json"
jq '.user.pairs[0].cells[0].snapshots[0].n = -5' a.json >"$tmp/h/negative-n.json"
jq '.user.pairs[0].cells[0].snapshots[0].buckets[0][1] = -1' a.json >"$tmp/h/negative-count.json"
jq '.user.pairs[0].cells[0].snapshots[0].buckets[0][0] = 20000' a.json >"$tmp/h/bucket-range.json"
jq '.user.pairs[0].cells[2].snapshots[0].buckets |= reverse' a.json >"$tmp/h/bucket-order.json"
jq '.user.pairs[1].cells[2].snapshots[0].sum = "1"' a.json >"$tmp/h/bad-sum.json"
jq '.user.pairs[0].cells[2].snapshots[0].top[0] = 99999999999' a.json >"$tmp/h/top-above-max.json"
jq '.user.hist_layout = 7' a.json >"$tmp/h/layout.json"
jq '.user.pairs[0].cells[0].configuration = "x"' a.json >"$tmp/h/bad-config.json"
jq '.user.configurations[0].name = ("x" * 100000)' a.json >"$tmp/h/long-name.json"
jq '.user.repeat = 1000' a.json >"$tmp/h/missing-reps.json"
sed 's/"file_version":1/"file_version":99999999999999999999999/' a.json >"$tmp/h/huge-int.json"
sed 's/"percentile":99/"percentile":1e999/' a.json >"$tmp/h/huge-real.json"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' >"$tmp/h/deep.json"
for f in "$tmp"/h/*; do
	expect_usage "hostile $(basename "$f")" compare "$f"
	grep -q "^tracecost: $f: " "$tmp/stderr" || not_ok "hostile $(basename "$f"): the line names the file"
done
for f in "$top"/tests/fuzz/corpus/* "$top"/tests/fuzz/regress/*; do
	case "$f" in *README*|*/\*) continue ;; esac
	(cd "$tmp" && "$TC" compare "$f" >/dev/null 2>"$tmp/fz.err")
	rc=$?
	if [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/fz.err")" -eq 1 ]; }; then
		ok "fuzz input $(basename "$f"): exit $rc"
	else
		not_ok "fuzz input $(basename "$f"): rc=$rc $(head -2 "$tmp/fz.err")"
	fi
done

# ---- system suite results (profile none: no root, tracefs untouched) ----
# a system run refuses to start while another tracecost run traces (a shared
# machine): wait for it (tests/integration/tracefs-lib.sh)
lock_wait
"$TC" run --suite system --profiles none --workloads getpid,pipe --calls 20000 \
	--round-trips 2000 --repeat 3 --json sys.json >/dev/null 2>&1
"$TC" run --suite system --profiles none --workloads getpid --calls 20000 \
	--repeat 1 --json sys1.json >/dev/null 2>&1
check "system: two result files" '[ -s sys.json ] && [ -s sys1.json ]'
"$TC" compare sys.json sys.json --metrics all --format json >"$tmp/sself.json" 2>"$tmp/sself.err"
check "system self: exit 0, sections getpid and pipe with their units" \
	'jq -e "[.sections[] | [.name, .unit]] == [[\"getpid\", \"ns/call\"], [\"pipe\", \"us\"]]" "$tmp/sself.json" >/dev/null'
check "system self: every compared cell is 'no significant difference' with [0, 0]" \
	'jq -e "[.sections[].rows[].cells[1:][] | .verdict == \"no significant difference\"
		 and .diff_lo == 0 and .diff_hi == 0] | (length == 8) and all" "$tmp/sself.json" >/dev/null'
check "system self: rows median, min, max, average (no percentile, no max_avg)" \
	'jq -e "[.sections[0].rows[].metric] == [\"average\", \"median\", \"min\", \"max\"]" "$tmp/sself.json" >/dev/null'
"$TC" compare sys.json:none sys.json:none >"$tmp/sself.txt" 2>&1
check "system self (text): FILE:PROFILE, unit header, rows median/min/max, only '~'" \
	'grep -qx "getpid: lower is better (calls per run: [0-9]*)" "$tmp/sself.txt" &&
	 grep -Eq "^ *ns/call +none +none#2$" "$tmp/sself.txt" &&
	 [ $(grep -cE "^ *(median|min|max) " "$tmp/sself.txt") -eq 6 ] &&
	 ! grep -E "^ *(median|min|max) " "$tmp/sself.txt" | grep -q "[<>?]$" &&
	 grep -q "3 rounds" "$tmp/sself.txt"'
"$TC" compare sys1.json sys1.json --format csv >"$tmp/sone.csv"
check "system, one round: n/a" \
	'[ $(grep -c ",n/a,ns/call,[^,]*$" "$tmp/sone.csv") -eq 3 ]'
# higher is better: the same metric as a rate, twice as high in another run
jq '.system.workloads[0].metrics[0] |= (.higher_is_better = true | .unit = "Mcalls/s")' \
	sys.json >rate-a.json
jq '.start = "other" | .system.workloads[0].metrics[0].cells[0] |=
	(.values |= map(. * 2) | .summary = null)' rate-a.json >rate-b.json
for i in 2 3; do
	jq ".start = \"a$i\"" rate-a.json >rate-a$i.json
	jq ".start = \"b$i\"" rate-b.json >rate-b$i.json
done
"$TC" compare rate-a.json rate-b.json --format json >"$tmp/rate1.json" 2>&1
check "higher is better, one run a side: unknown" \
	'jq -e "[.sections[0].rows[].cells[1].verdict] | all(. == \"unknown\")" "$tmp/rate1.json" >/dev/null'
# file groups: three runs a side
ga=rate-a.json,rate-a2.json,rate-a3.json gb=rate-b.json,rate-b2.json,rate-b3.json
"$TC" compare $ga $gb --format json >"$tmp/rate.json" 2>&1
check "higher is better: twice the rate is faster (<), the difference positive" \
	'jq -e ".sections[0].higher_is_better and
		([.sections[0].rows[].cells[1] | .verdict == \"faster\" and .diff_lo > 0] | all)" "$tmp/rate.json" >/dev/null'
"$TC" compare $gb $ga --format json >"$tmp/rate2.json" 2>&1
check "higher is better: half the rate is slower (>)" \
	'jq -e "[.sections[0].rows[].cells[1] | .verdict == \"slower\" and .diff_hi < 0] | all" "$tmp/rate2.json" >/dev/null'
"$TC" compare $ga:none $gb:none >"$tmp/rate.txt" 2>&1
check "groups: three runs per column, in the header and the JSON" \
	'grep -q "rate-a.json,rate-a2.json,rate-a3.json:none (reference).*3 runs" "$tmp/rate.txt" &&
	 jq -e "[.columns[].runs] | all(. == 3)" "$tmp/rate.json" >/dev/null'
# @LIST: a group read from a file, one name a line (groups longer than an argument)
printf 'rate-a.json\nrate-a2.json\n\nrate-a3.json\n' >ga.list
printf '%s\n' rate-b.json rate-b2.json rate-b3.json >gb.list
"$TC" compare @ga.list @gb.list --format json >"$tmp/rate-list.json" 2>&1
check "@LIST: the group of the list's files, as written out with commas" \
	'jq -e "[.columns[].runs] | all(. == 3)" "$tmp/rate-list.json" >/dev/null &&
	 [ "$(jq -c "[.sections[].rows[].cells[] | .verdict]" "$tmp/rate-list.json")" = \
	   "$(jq -c "[.sections[].rows[].cells[] | .verdict]" "$tmp/rate.json")" ]'
long=$tmp/$(printf '%0200d' 0)/$(printf '%0200d' 1)/$(printf '%0200d' 2)/$(printf '%0200d' 3)
long=$long/$(printf '%0200d' 4)/$(printf '%0200d' 5)/$(printf '%0200d' 6)
mkdir -p "$long"
for i in "" 2 3; do cp rate-a$i.json "$long/"; echo "$long/rate-a$i.json"; done >long.list
expect_usage "a group of 3 files with 1,400-character names in one argument" \
	compare "$long/rate-a.json,$long/rate-a2.json,$long/rate-a3.json:none"
check "a group too long for an argument: the line says @FILE" 'grep -q "@FILE" "$tmp/stderr"'
"$TC" compare @long.list:none $ga:none >"$tmp/long.txt" 2>"$tmp/long.err"
check "@LIST of 3 files with 1,400-character names: exit 0, 3 runs, named @long.list" \
	'[ $? -eq 0 ] && grep -q "@long.list:none (reference).*3 runs" "$tmp/long.txt"'
expect_usage "@LIST that does not exist" compare @nosuch.list
: >empty.list
expect_usage "@LIST that is empty" compare "@$tmp/empty.list"
expect_usage "@ alone" compare @:none
check "higher is better (text): '<' marks and the legend says so" \
	'grep -E "^ *median " "$tmp/rate.txt" | head -1 | grep -q "<$" &&
	 grep -q "higher is better here" "$tmp/rate.txt"'
expect_usage "system and user results" compare "$tmp/sys.json" "$tmp/a.json"
check "system and user: the line names both files" \
	'grep -q "sys.json (suite system) and .*a.json (suite user)" "$tmp/stderr"'
expect_usage "user and system results" compare "$tmp/a.json:stock" "$tmp/sys.json"
expect_usage "system: unit or direction differs" compare "$tmp/sys.json" "$tmp/rate-a.json"
expect_usage "system: --unit ticks" compare "$tmp/sys.json" --unit ticks
expect_usage "system: --metrics percentile" compare "$tmp/sys.json" --metrics median,percentile
expect_usage "system: unknown profile" compare "$tmp/sys.json:syscalls"
expect_usage "system: plot" plot "$tmp/sys.json" --out out.svg
mkdir -p "$tmp/hs"
jq '.system.repeat = 4' sys.json >"$tmp/hs/short-values.json"
jq '.system.repeat = "3"' sys.json >"$tmp/hs/repeat-string.json"
jq '.system.workloads[0].metrics[0].cells[0].values[1] = -1' sys.json >"$tmp/hs/negative-value.json"
jq '.system.workloads[0].metrics[0].cells[0].values[1] = "fast"' sys.json >"$tmp/hs/string-value.json"
jq '.system.workloads[0].metrics[0].cells[0].values[1] = null' sys.json >"$tmp/hs/null-value.json"
jq '.system.workloads[1].metrics[0].cells[0].work |= .[1:]' sys.json >"$tmp/hs/short-work.json"
jq '.system.workloads[0].metrics[0].cells[0].events_lost[0] = 5' sys.json >"$tmp/hs/lost.json"
jq '.system.workloads[0].metrics[0].cells[0].profile = "sched"' sys.json >"$tmp/hs/profile.json"
jq '.system.workloads[0].metrics[0].cells += .system.workloads[0].metrics[0].cells' sys.json >"$tmp/hs/cells.json"
jq '.system.workloads[0].metrics[0].cells[0].summary.median = 1' sys.json >"$tmp/hs/summary.json"
jq '.system.workloads[1].metrics[0].name = "getpid"' sys.json >"$tmp/hs/dup-metric.json"
jq '.system.workloads[0].metrics[0].higher_is_better = "no"' sys.json >"$tmp/hs/hib.json"
jq '.system.profiles[0].available = false' sys.json >"$tmp/hs/no-profile.json"
jq 'del(.system.workloads)' sys.json >"$tmp/hs/no-workloads.json"
sed 's/"values":\[[0-9.e+-]*/"values":[1e999/' sys.json >"$tmp/hs/inf-value.json"
for f in "$tmp"/hs/*; do
	expect_usage "hostile system $(basename "$f")" compare "$f"
	grep -q "^tracecost: $f: " "$tmp/stderr" || not_ok "hostile system $(basename "$f"): the line names the file"
done

# ---- plot ----
"$TC" plot a.json --out "$tmp/p.svg" >"$tmp/plot.out" 2>"$tmp/plot.err"
check "plot: SVG written, nothing printed" \
	'[ $? -eq 0 ] && [ -s "$tmp/p.svg" ] && [ ! -s "$tmp/plot.out" ] && head -c 200 "$tmp/p.svg" | grep -q "<svg\|<?xml"'
check "plot: one series per column (5)" \
	'[ $(grep -o "id=\"gnuplot_plot_[0-9]*\"" "$tmp/p.svg" | sort -u | wc -l) -eq 5 ]'
check "plot: legend names the columns, title names the pair and machine" \
	'for c in stock call call+ static static+; do grep -q "<text>$c</text>" "$tmp/p.svg" || exit 1; done &&
	 grep -q "IRQ Metrics (irq)" "$tmp/p.svg" && grep -q "latency per pair (ns" "$tmp/p.svg"'
"$TC" plot a.json:stock b.json:call --kind cdf --pair preempt --label A --label B \
	--out "$tmp/c.svg" 2>/dev/null
check "plot --kind cdf --pair: two series, labels" \
	'[ $(grep -o "id=\"gnuplot_plot_[0-9]*\"" "$tmp/c.svg" | sort -u | wc -l) -eq 2 ] &&
	 grep -q "<text>A</text>" "$tmp/c.svg" && grep -q "Preempt Metrics (preempt)" "$tmp/c.svg" &&
	 grep -q "cumulative fraction" "$tmp/c.svg"'
"$TC" plot a.json:static --out "$tmp/p.png" 2>/dev/null
check "plot: PNG" '[ "$(head -c 4 "$tmp/p.png" | tail -c 3)" = "PNG" ]'
expect_usage "plot: no --out" plot "$tmp/a.json"
expect_usage "plot: --out .pdf" plot "$tmp/a.json" --out out.pdf
expect_usage "plot: unknown pair" plot "$tmp/a.json" --pair nmi --out out.svg
check "plot: an unknown pair lists the pairs" 'grep -q "the file has: irq, preempt, irq_save" "$tmp/stderr"'
expect_usage "plot: --kind pie" plot "$tmp/a.json" --kind pie --out out.svg
expect_usage "plot: hostile file" plot "$tmp/h/bucket-range.json" --out out.svg
expect_usage "plot: --out in a missing directory" plot "$tmp/a.json" --out /nonexistent/x.svg
rm -rf "$tmp/out"; mkdir -p "$tmp/out"
(cd "$tmp/out" && PATH=/nonexistent "$TC" plot "$tmp/a.json" --out out.svg >"$tmp/stdout" 2>"$tmp/stderr")
check "plot without gnuplot: exit 1, one line with the apt-get line, no file" \
	'[ $? -eq 1 ] && [ $(wc -l <"$tmp/stderr") -eq 1 ] && [ -z "$(ls -A "$tmp/out")" ] &&
	 grep -q "apt-get install gnuplot-nox" "$tmp/stderr"'

# ---- size: two builds of the toggle subject ----
"$TC" size "$objs/toggle_stock.o" "$objs/toggle_static.o" >"$tmp/size.out" 2>"$tmp/size.err"
check "size: exit 0, the Binary size impact table" \
	'[ $? -eq 0 ] && grep -qx "Binary size impact" "$tmp/size.out" &&
	 grep -Eq "^ +bytes +toggle_stock.o +toggle_static.o$" "$tmp/size.out"'
read -r st sd sb <<EOF
$(size -B "$objs/toggle_stock.o" | awk 'NR == 2 { print $1, $2, $3 }')
EOF
read -r zt zd zb <<EOF
$(size -B "$objs/toggle_static.o" | awk 'NR == 2 { print $1, $2, $3 }')
EOF
check "size: text, data, bss as binutils size -B, change in bytes and %" \
	'grep -Eq "^ +text +$st +$zt \+$((zt - st)) \(\+[0-9.]+%\)$" "$tmp/size.out" &&
	 grep -Eq "^ +data +$sd +$zd " "$tmp/size.out" && grep -Eq "^ +bss +$sb +$zb " "$tmp/size.out" &&
	 grep -Eq "^ +total +$((st + sd + sb)) +$((zt + zd + zb)) " "$tmp/size.out"'
"$TC" size "$objs/toggle_stock.o" "$objs/toggle_call.o" "$objs/toggle_static.o" \
	--symbols 'loop_*' >"$tmp/sym.out" 2>&1
check "size --symbols: instructions/bytes per matching function" \
	'grep -Eq "^ +loop_irq +[0-9]+/[0-9]+ +[0-9]+/[0-9]+ \([+-][0-9]+/[+-][0-9]+\) " "$tmp/sym.out" &&
	 [ $(grep -cE "^ +loop_" "$tmp/sym.out") -eq 6 ]'
sz=$(nm -S "$objs/toggle_stock.o" | awk '$4 == "loop_irq" { print $2 }')
check "size --symbols: bytes are the ELF symbol sizes" \
	'[ "$(grep -E "^ +loop_irq " "$tmp/sym.out" | awk "{ split(\$2, a, \"/\"); print a[2] }")" = \
	   "$(printf %d "0x$sz")" ]'
objcopy --strip-all "$objs/toggle_stock.o" "$tmp/stripped.o"
head -c 200 "$objs/toggle_stock.o" >"$tmp/trunc.o"
expect_usage "size: not an ELF file" size "$tmp/a.json"
expect_usage "size: missing file" size "$tmp/nosuch.o"
expect_usage "size: truncated ELF" size "$tmp/trunc.o"
expect_usage "size: stripped, --symbols" size "$tmp/stripped.o" --symbols 'loop_*'
expect_usage "size: no function matches" size "$objs/toggle_stock.o" --symbols 'nosuch_*'
expect_usage "size: no file" size

# ---- figures above the histogram's exact range (issue 22 item 17) ----
# One cell rewritten: 41 samples per snapshot, min 6757, 30 of 6760 (bucket
# [6752, 6767], index 4262) and 10 of 6800 (index 4265, the top-10 heap): the
# median's bucket holds the minimum. Before, the table printed median 6752
# below min 6757; now the median is at least the minimum, marked '*', and its
# bound (6767, the bucket's end) is printed under the table and in CSV.
"$TC" run --cpus 0 --samples 3000 --repeat 2 --highest 10 --unit ticks \
	--json "$tmp/hi0.json" >/dev/null 2>&1
jq '.user.pairs[0].cells[0].snapshots |= map(.n = 41 | .min = 6757 | .max = 6800 |
	.overflow = 0 | .sum = "277557" | .buckets = [[4262, 31], [4265, 10]] |
	.top = [range(10)] | .top |= map(6800) | .clamped = 0)' "$tmp/hi0.json" >"$tmp/hi.json"
"$TC" compare --unit ticks --metrics median,min,max,percentile "$tmp/hi.json:stock" \
	>"$tmp/hi.out" 2>&1
med=$(awk '/^IRQ Metrics/ { s = 1 } s && $1 == "median" { print $2; exit }' "$tmp/hi.out")
min=$(awk '/^IRQ Metrics/ { s = 1 } s && $1 == "min" { print $2; exit }' "$tmp/hi.out")
check "bucketed median: at least the minimum, marked approximate ($med, min $min)" \
	'[ "$med" = "6757*" ] && [ "$min" = 6757 ]'
check "bucketed median: its bound under the table" \
	'grep -q "^\* approximate (samples above 4095 counter ticks .*: [^ ]* median <= 6767$" \
	 "$tmp/hi.out"'
"$TC" compare --unit ticks --metrics all "$tmp/hi.json:stock" --format csv >"$tmp/hi.csv" 2>&1
check "bucketed figures in CSV: min <= median <= value_upper <= max, percentile >= median" \
	'awk -F, "\$1 == \"IRQ Metrics\" { v[\$2] = \$6; u[\$2] = \$12 }
	     END { exit !(v[\"min\"] <= v[\"median\"] && v[\"median\"] < u[\"median\"] &&
			  u[\"median\"] <= v[\"max\"] && v[\"99 percentile\"] >= v[\"median\"] &&
			  u[\"99 percentile\"] <= v[\"max\"]) }" "$tmp/hi.csv"'

summary compare
