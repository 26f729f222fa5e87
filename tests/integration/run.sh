#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Integration tests of the tracecost CLI: exit codes and one-line errors for
# bad input, the man page's EXAMPLES, the result file's invariants, raw
# output, and Ctrl-C. Asserts behaviour only, never timing.
# Usage: tests/integration/run.sh path/to/tracecost
set -u
TC=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
top=$(readlink -f "$here/../..")
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir

# expect_usage "description" args...: exit 2, exactly one line on stderr,
# nothing on stdout, no file left in $tmp/out.
expect_usage() {
	desc=$1; shift
	rm -rf "$tmp/out"; mkdir -p "$tmp/out"
	(cd "$tmp/out" && "$TC" "$@" >"$tmp/stdout" 2>"$tmp/stderr")
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/stdout" ] &&
	   [ -z "$(ls -A "$tmp/out")" ]; then
		ok "$desc: exit 2: $(cat "$tmp/stderr")"
	else
		not_ok "$desc: rc=$rc, stderr lines=$lines: $(head -3 "$tmp/stderr")"
	fi
}

expect_usage "--samples 0" run --samples 0 --json out.json
expect_usage "--samples -5" run --samples -5
expect_usage "--samples 1e6" run --samples 1e6
expect_usage "--percentile 101" run --percentile 101
expect_usage "--percentile 0" run --percentile 0
expect_usage "--percentile nan" run --percentile nan
expect_usage "--cpus 9999" run --cpus 9999
expect_usage "--cpus 1-" run --cpus 1-
expect_usage "--cpus 1-0" run --cpus 1-0
expect_usage "--cpus ''" run --cpus ''
expect_usage "--cpus 0,,1" run --cpus 0,,1
expect_usage "--batch 0" run --batch 0
expect_usage "--repeat 0" run --repeat 0
expect_usage "--highest 0" run --highest 0
expect_usage "--priority 100" run --priority 100
expect_usage "--unit furlongs" run --unit furlongs
expect_usage "--format xml" run --format xml
expect_usage "unknown option" run --frobnicate
expect_usage "missing value" run --samples
expect_usage "unknown suite" run --suite nosuch
expect_usage "unknown command" frobnicate
expect_usage "no command"
expect_usage "--json in a missing directory" run --samples 10 --json /nonexistent/dir/x.json
expect_usage "stray argument" run stray

if "$TC" --version | grep -q '^tracecost '; then ok "--version"; else not_ok "--version"; fi
if "$TC" --help | grep -q 'usage: tracecost'; then ok "--help"; else not_ok "--help"; fi
if "$TC" run --help | grep -q -- '--samples'; then ok "run --help"; else not_ok "run --help"; fi

# The EXAMPLES section of the man page, as written there.
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$top/doc/tracecost.1" |
	awk '/^\.EX/ { on = 1; next } /^\.EE/ { on = 0; next } on' |
	sed 's/\\-/-/g' >"$tmp/examples"
# They run in a directory where build/ is the build under test (the size
# examples name build/subjects/...), unglobbed, in order (a compare example
# reads the files of the run examples before it); each must exit 0 and print
# its table (plot prints nothing: it writes --out).
mkdir -p "$tmp/ex" && ln -s "$(dirname "$TC")" "$tmp/ex/build"
n=0
set -f
while IFS= read -r cmd; do
	n=$((n + 1))
	set -- $cmd
	shift
	case "$1" in
	size) want='Binary size impact' ;;
	plot) want='' ;;
	*) want='IRQ Metrics' ;;
	esac
	case "$cmd" in
	*"--suite system"*)
		want='median vs none'
		if [ "$(id -u)" -ne 0 ]; then
			echo "skip - man EXAMPLES $n: $cmd (tracing profiles need root)"
			continue
		fi ;;
	"tracecost restore"*) want='restore' ;;
	"tracecost noise"*)
		want='IPIs'
		if [ "$(id -u)" -ne 0 ] || [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
			echo "skip - man EXAMPLES $n: $cmd (needs root and two CPUs)"
			continue
		fi ;;
	esac
	if (cd "$tmp/ex" && "$TC" "$@" >"$tmp/ex.out" 2>"$tmp/ex.err") &&
	   { [ -z "$want" ] || grep -q "$want" "$tmp/ex.out"; }; then
		ok "man EXAMPLES $n: $cmd"
	else
		not_ok "man EXAMPLES $n: $cmd: $(head -3 "$tmp/ex.err")"
	fi
done <"$tmp/examples"
set +f
[ "$n" -ge 3 ] && ok "man page has $n examples" || not_ok "man page has only $n examples"
rm -f /tmp/tracecost-example.json /tmp/tracecost-a.json /tmp/tracecost-b.json \
	/tmp/tracecost-irq.svg /tmp/tracecost-r.json /tmp/tracecost-s.json

# One run with a result file and raw samples; check the file's invariants.
samples=3000
ncpu=$("$TC" run --help >/dev/null; getconf _NPROCESSORS_ONLN)
if "$TC" run --samples $samples --repeat 2 --json "$tmp/r.json" --raw "$tmp/raw.csv" \
	--raw-max 5000 >"$tmp/run.out" 2>"$tmp/run.err"; then
	ok "run with --json and --raw"
else
	not_ok "run with --json and --raw: $(cat "$tmp/run.err")"
fi
for sect in "IRQ Metrics" "Preempt Metrics" "IRQ save/restore Metrics" "Binary size impact"; do
	grep -q "^$sect\$" "$tmp/run.out" && ok "table '$sect'" || not_ok "table '$sect' missing"
done
if grep -Eq '^ +Metric +stock +call +call\+ +static +static\+$' "$tmp/run.out"; then
	ok "header line with the five columns"
else
	not_ok "header line with the five columns"
fi
for row in average median max_avg "99 percentile" "99 percentile (1 CPU)"; do
	c=$(grep -c "^ *$row  " "$tmp/run.out")
	[ "$c" -eq 3 ] && ok "row '$row' in 3 tables" || not_ok "row '$row' in $c tables"
done
# min and max (one sample each) are in the result file, not in run's tables
c=$(grep -Ec "^ *(min|max)  " "$tmp/run.out")
[ "$c" -eq 0 ] && ok "no min or max rows (compare --metrics shows them)" ||
	not_ok "$c min/max rows in run's tables"
check() {
	if jq -e "$1" "$tmp/r.json" >/dev/null 2>&1; then ok "json: $2"; else not_ok "json: $2"; fi
}
check '.file_version == 1 and .suite == "user" and .tool.name == "tracecost"' "header"
check '(.counter.frequency_hz > 0) and (.cpus | length) == '"$ncpu" "counter and cpus"
check '.user.pairs | length == 3' "three pairs"
check '[.user.pairs[].cells | length] == [5,5,5]' "five configurations per pair"
check '[.user.pairs[].cells[].stats.n] | all(. == '"$((samples * 2 * ncpu))"')' "n = samples x repeat x cpus"
check '[.user.pairs[].cells[].stats_1cpu.n] | all(. == '"$samples"')' "1-CPU run n = samples"
check '[.user.pairs[].cells[].stats | (.min <= .median and .median <= .percentile and .percentile <= .max and .max_avg <= .max and .min <= .average and .average <= .max)] | all' "min <= median <= percentile <= max, max_avg <= max"
check '[.user.pairs[].cells[].snapshots | length] | all(. == '"$((2 * ncpu))"')' "one snapshot per CPU and repetition"
check '[.user.pairs[].cells[].snapshots[] | ([.buckets[][1]] | add) + .overflow == .n] | all' "snapshot buckets add up to n"
check '[.user.configurations[] | select(.probes) | .events > 0] | all' "probes recorded events in + columns"
check '[.user.configurations[] | select(.probes | not) | .events == 0] | all' "no events without probes"
check '[.user.configurations[] | select(.name == "static") | .size.sites.preempt_disable.insns] == [2]' "static preempt_disable: 2 instructions (addl + nop)"
check '[.user.configurations[] | select(.name == "stock") | .size.sites.preempt_disable.insns] == [1]' "stock preempt_disable: 1 instruction"
rows=$(($(wc -l <"$tmp/raw.csv") - 1))
[ "$rows" -eq 5000 ] && ok "raw rows capped at --raw-max" || not_ok "raw rows: $rows"
head -1 "$tmp/raw.csv" | grep -qx 'cpu,rep,configuration,pair,raw_ticks,overhead,ticks' &&
	ok "raw header" || not_ok "raw header"
awk -F, 'NR > 1 && ($7 != ($5 > $6 ? $5 - $6 : 0)) { bad++ } END { exit bad > 0 }' "$tmp/raw.csv" &&
	ok "raw: ticks = max(raw - overhead, 0)" || not_ok "raw: ticks != raw - overhead"

# One CPU must give samples.
if "$TC" run --cpus 0 --samples 2000 --json "$tmp/one.json" >/dev/null 2>&1 &&
   jq -e '[.user.pairs[].cells[].stats.n] | all(. == 2000)' "$tmp/one.json" >/dev/null; then
	ok "--cpus 0: samples on the single CPU"
else
	not_ok "--cpus 0"
fi

# Ctrl-C mid-run: exit 130, no result file.
"$TC" run --samples 100000000 --json "$tmp/int.json" >/dev/null 2>"$tmp/int.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
if [ "$rc" -eq 130 ] && [ ! -e "$tmp/int.json" ] && ! ls "$tmp" | grep -q 'int.json.tmp'; then
	ok "SIGINT: exit 130, no result file"
else
	not_ok "SIGINT: rc=$rc $(cat "$tmp/int.err")"
fi

summary integration
