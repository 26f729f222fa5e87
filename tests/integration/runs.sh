#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Integration tests of tracecost run --runs N (src/runs.c): N runs, each a
# fresh process, in one version-2 result file that compare and plot read;
# file groups as columns; bad input (exit 2, one line, nothing written);
# Ctrl-C between and inside runs (exit 130, no file, no temporary left).
# Asserts behaviour, never timing.
# Usage: tests/integration/runs.sh path/to/tracecost
set -u
TC=$(readlink -f "$1")
top=$(readlink -f "$(dirname "$(readlink -f "$0")")/../..")
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir
# lock_wait (and the tracefs helpers, unused here)
. "$(dirname "$(readlink -f "$0")")/tracefs-lib.sh"
cd "$tmp" || exit 1
leftovers() { ls -d /tmp/tracecost-runs.* 2>/dev/null | wc -l; }
before=$(leftovers)

"$TC" run --runs 3 --cpus 0 --samples 2000 --repeat 2 --json r.json >out.txt 2>err.txt
check "--runs 3: exit 0, one line per run on stderr" \
	'[ $? -eq 0 ] && [ $(grep -c "^tracecost: run [123] of 3 done (user suite, a fresh process, [0-9.]* s)$" err.txt) -eq 3 ]'
check "--runs 3: file_version 2, three version-1 runs of the user suite" \
	'jq -e ".file_version == 2 and .suite == \"user\" and (.runs | length) == 3 and
		([.runs[] | .file_version == 1 and .user.repeat == 2] | all)" r.json >/dev/null'
check "--runs 3: the runs are separate processes (their starts differ)" \
	'[ $(jq -r ".runs[].start" r.json | sort -u | wc -l) -eq 3 ]'
check "--runs 3: the table is compare's: 3 runs per column, verdicts and spreads" \
	'grep -q "stock: r.json:stock (reference), .*3 runs, 6 repetitions" out.txt &&
	 grep -q "^spread of the average" out.txt && grep -Eq "^ *median .*[<>~]$" out.txt'
"$TC" compare r.json:static r.json:stock --format json >c.json
check "compare reads it: columns of the same runs are paired (a verdict, df = runs - 1)" \
	'jq -e "[.sections[].rows[].cells[1] | .runs == 3 and (.df == 2) and (.verdict != \"unknown\")] | all" c.json >/dev/null'
"$TC" run --cpus 0 --samples 2000 --repeat 2 --json one.json >/dev/null 2>&1
"$TC" compare r.json,one.json:static one.json:static --format json >g.json 2>g.err
check "a group of a runs file and a run file: 4 runs in the column; the other 1: unknown" \
	'jq -e "(.columns[0].runs == 4) and (.columns[1].runs == 1) and
		([.sections[].rows[].cells[1].verdict] | all(. == \"unknown\"))" g.json >/dev/null'
"$TC" plot r.json:stock r.json,one.json:static --out p.svg >/dev/null 2>&1
check "plot takes runs files and groups" '[ -s p.svg ]'

# ---- without --json: no temporary path shown, how to keep the file said ----
"$TC" run --runs 2 --cpus 0 --samples 2000 >nj.txt 2>nj.err
rc=$?
"$TC" run --runs 2 --cpus 0 --samples 2000 --format csv >nj.csv 2>>nj.err
check "--runs 2 without --json: no path that will not exist, in the table or the CSV" \
	'[ $rc -eq 0 ] && ! grep -q "tracecost-runs" nj.txt nj.csv nj.err &&
	 grep -q "stock: (not kept):stock (reference)" nj.txt &&
	 [ "$(sed -n 2p nj.csv | cut -d, -f4)" = "(not kept)" ]'
check "--runs 2 without --json: says how to keep the file" \
	'[ $(grep -c "not kept (--json FILE keeps it)" nj.err) -eq 2 ]'

# ---- the system suite (profile none: no root, tracefs untouched) ----
# a system run refuses to start while another tracecost run traces (a shared
# machine): wait for it (tests/integration/tracefs-lib.sh)
lock_wait
"$TC" run --suite system --runs 3 --profiles none --workloads getpid,pipe --calls 2000 \
	--round-trips 200 --repeat 2 --json sys.json >sys.txt 2>sys.err
check "system --runs 3: three runs in the file, compare's table (3 runs, 6 rounds)" \
	'[ $? -eq 0 ] && jq -e ".file_version == 2 and (.runs | length) == 3 and .suite == \"system\"" sys.json >/dev/null &&
	 grep -q ": sys.json:none (reference), .*3 runs, 6 rounds" sys.txt &&
	 grep -qx "getpid: lower is better (calls per run: [0-9]*)" sys.txt'

# a profile a run could not apply: its reason in the table and in compare
jq '.runs[].system.profiles += [{"name": "function", "summary": "function tracer",
	"builtin": true, "file": null, "available": false,
	"reason": "the kernel refused tracer function", "events": [], "tracer": "function",
	"buffer_kb": 0}]' sys.json >unav.json
"$TC" compare unav.json >unav.txt 2>&1
check "an unavailable profile: compare's header says why it has no column" \
	'[ $? -eq 0 ] && grep -qx "not measured in unav.json: profile function: the kernel refused tracer function" unav.txt'
check "... and in compare --format json (columns[].not_measured)" \
	'"$TC" compare unav.json --format json >unav.cj && [ -s unav.cj ] &&
	 jq -e ".columns[0].not_measured == [\"function: the kernel refused tracer function\"]" unav.cj >/dev/null'
"$TC" compare unav.json:function >unav.txt 2>unav.err
check "compare FILE:PROFILE of an unavailable profile: exit 2, the file's reason" \
	'[ $? -eq 2 ] && [ $(wc -l <unav.err) -eq 1 ] && grep -q "function: the kernel refused tracer function (not measured" unav.err'

# ---- bad input: exit 2, one line, nothing written ----
expect_bad() {
	desc=$1; shift
	rm -f bad.json
	"$TC" "$@" >so.txt 2>se.txt
	rc=$?
	if [ $rc -eq 2 ] && [ $(wc -l <se.txt) -eq 1 ] && [ ! -e bad.json ] && [ ! -s so.txt ]; then
		ok "$desc: exit 2: $(cat se.txt)"
	else
		not_ok "$desc: rc=$rc: $(head -2 se.txt)"
	fi
}
# --runs 1 is the run itself: a version-1 file, and the man page says so
"$TC" run --runs 1 --cpus 0 --samples 2000 --json one1.json >/dev/null 2>&1
man -l "$top/doc/tracecost.1" 2>/dev/null | tr -s ' \n' ' ' >man.txt
check "--runs 1: a version-1 file, as the man page says (N = 1 ... version 1; N >= 2 ... version 2)" \
	'jq -e ".file_version == 1 and .suite == \"user\" and (has(\"runs\") | not)" one1.json \
	 >/dev/null && grep -q "N = 1 is the run itself.* result file of version 1" man.txt &&
	 grep -q "N >= 2: each run in a fresh process.* file of version 2" man.txt'
expect_bad "--runs 0" run --runs 0 --json bad.json
expect_bad "--runs x" run --runs x --json bad.json
expect_bad "--runs 1001" run --runs 1001 --json bad.json
expect_bad "--runs without a value" run --runs
expect_bad "--runs 2 --raw" run --runs 2 --raw bad.csv --json bad.json
expect_bad "--runs 2 --json into a missing directory" run --runs 2 --json nodir/bad.json
"$TC" run --runs 2 --samples 0 --json bad.json >so.txt 2>se.txt
check "--runs 2 with a bad suite option: exit 2 from the first run, one line, nothing written" \
	'[ $? -eq 2 ] && grep -q "samples" se.txt && [ $(wc -l <se.txt) -eq 1 ] && [ ! -e bad.json ] && [ ! -s so.txt ]'
expect_bad "a group with an empty name" compare r.json,,one.json
expect_bad "a group of different suites" compare r.json,"$tmp/nonexistent.json"

# ---- Ctrl-C: 130, no result file, no temporary ----
"$TC" run --runs 50 --cpus 0 --samples 200000 --json int.json >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT during --runs 50: exit 130, no result file" '[ $rc -eq 130 ] && [ ! -e int.json ]'
"$TC" run --runs 3 --cpus 0 --samples 2000 --json int2.json >/dev/null 2>&1 &
pid=$!
# as soon as main() has its handler in place (15: SIGTERM); a fixed sleep
# raced the dynamic loader on a loaded machine (killed by SIGTERM, 143)
catches $pid 15
caught=$?
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM as soon as the handler is in place: exit 130, no result file" \
	'[ $caught -eq 0 ] && [ $rc -eq 130 ] && [ ! -e int2.json ]'
check "no /tmp/tracecost-runs.* left behind" '[ $(leftovers) -eq $before ]'

summary runs
