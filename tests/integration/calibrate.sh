#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Integration tests of tracecost calibrate (src/cmd_calibrate.c) and of
# compare with a calibration (tracecost/calibration.h): bad input (exit 2,
# one line, nothing written); a short real calibration (sessions run as
# tracecost run --runs, the table, the file, no temporary left); --from;
# compare of single files of different sessions: "?" without a calibration
# (and how to get one), a verdict with one, the interval said in every
# format; a calibration of another host or batch does not apply; the
# stored default is found; Ctrl-C in a pause: 130, nothing written.
# Asserts behaviour, never timing.
# Usage: tests/integration/calibrate.sh path/to/tracecost
set -u
TC=$(readlink -f "$1")
top=$(readlink -f "$(dirname "$(readlink -f "$0")")/../..")
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir
# lock_wait (and the tracefs helpers, unused here)
. "$(dirname "$(readlink -f "$0")")/tracefs-lib.sh"
cd "$tmp" || exit 1
export TRACECOST_CALIBRATION_DIR="$tmp/stored"
leftovers() { ls -d /tmp/tracecost-runs.* 2>/dev/null | wc -l; }
before=$(leftovers)
quick="--samples 3000 --batch 16 --repeat 2 --cpus 0"

# ---- bad input: one line, exit 2, nothing measured or written ----
bad() {
	"$TC" calibrate "$@" --output "$tmp/bad.json" >bad.out 2>bad.err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] && [ ! -e bad.json ] &&
	   [ ! -s bad.out ]; then
		ok "calibrate $*: exit 2: $(cat bad.err)"
	else
		not_ok "calibrate $*: rc=$rc $(head -2 bad.err)"
	fi
}
bad --sessions 2
bad --sessions 1000
bad --spacing -5s
bad --spacing 3x
bad --runs 0
bad --suite kernel
bad --from a.json
bad --from nosuch1.json,nosuch2.json,nosuch3.json
bad --nosuch
bad -- --runs 3
bad -- --json x.json
bad stray
"$TC" calibrate --output /nonexistent/dir/c.json >bad.out 2>bad.err
check "calibrate --output in a missing folder: exit 2 before any session" \
	'[ $? -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] && ! grep -q "session" bad.err'

# ---- a short real calibration ----
lock_wait
"$TC" calibrate --sessions 3 --spacing 0 --runs 3 --output c.json -- $quick >cal.out 2>cal.err
rc=$?
check "calibrate: exit 0, three sessions said on stderr" \
	'[ $rc -eq 0 ] && [ $(grep -c "^tracecost: calibrate: session [123] of 3 done" cal.err) -eq 3 ]'
check "calibrate: the file: version 1, 3 sessions of 3 runs, this host, batch 16" \
	'jq -e ".calibration_version == 1 and .sessions == 3 and .runs == 3 and .batch == 16 and
		.host.nodename == \"$(uname -n)\" and .suite == \"user\" and
		(.command | test(\"^tracecost run --suite user --runs 3 --samples 3000\"))" c.json >/dev/null'
check "calibrate: every configuration's entry and the pooled ones, components >= 0" \
	'jq -e "([.entries[] | select(.config == \"static\")] | length) > 0 and
		([.entries[] | select(.config == \"*\")] | length) > 0 and
		([.entries[] | .session_cv >= 0 and .df >= 1] | all)" c.json >/dev/null'
check "calibrate: the table: rows, metrics, sessions a side to resolve 1, 2, 5 %" \
	'grep -q "^row  *metric  *session  *run  *rep  *1%  *2%  *5%$" cal.out &&
	 grep -Eq "^irq  *average  *[0-9.]+ " cal.out && grep -q "stored in c.json" cal.out'
check "calibrate: no temporary folder left" '[ "$(leftovers)" -le "$before" ]'

# ---- three sessions taken by hand; --from ----
i=1
while [ $i -le 3 ]; do
	lock_wait
	"$TC" run --runs 3 $quick --json s$i.json >/dev/null 2>&1 || not_ok "run s$i.json"
	i=$((i + 1))
done
"$TC" calibrate --from s1.json,s2.json,s3.json --output f.json >from.out 2>from.err
check "calibrate --from: exit 0, 3 sessions, nothing measured" \
	'[ $? -eq 0 ] && jq -e ".sessions == 3" f.json >/dev/null && ! grep -q "session 1 of" from.err'
"$TC" calibrate --from s1.json,s1.json,s2.json --output dup.json >/dev/null 2>dup.err
check "calibrate --from with a session twice: exit 2, says so" \
	'[ $? -eq 2 ] && grep -q "same run" dup.err && [ ! -e dup.json ]'
"$TC" calibrate --from s1.json,s2.json,s3.json --sessions 4 >/dev/null 2>x.err
check "calibrate --from with --sessions: exit 2" '[ $? -eq 2 ]'

# ---- compare: single files of different sessions ----
"$TC" compare s1.json:static s2.json:static --metrics median >nocal.out 2>&1
check "no calibration: ?, the reason, and how to calibrate" \
	'grep -Eq "^ *median .*\?$" nocal.out &&
	 grep -q "or calibrate this host once (tracecost calibrate; no $tmp/stored/calibration-user.json)" nocal.out'
"$TC" compare s1.json:static s2.json:static --metrics median --calibration f.json >cal1.out 2>&1
check "with --calibration: a verdict, and the header says what the interval covers" \
	'grep -Eq "^ *median .*[<>~]$" cal1.out &&
	 grep -q "^interval: between sessions, calibrated: .* of f.json on $(uname -n) (3 sessions of 3 runs" cal1.out'
"$TC" compare s1.json:static s2.json:static --calibration f.json --format json >cal1.json
check "JSON: the calibration and each cell's interval" \
	'jq -e ".calibration.sessions == 3 and
		([.sections[].rows[].cells[1].interval] | all(. == \"between sessions, calibrated\"))" cal1.json >/dev/null'
"$TC" compare s1.json:static s2.json:static --calibration f.json --format markdown >cal1.md
check "markdown: the interval line" 'grep -q "^> interval: between sessions, calibrated" cal1.md'
"$TC" compare s1.json s1.json:static --calibration f.json --metrics median >paired.out
check "the same runs stay paired with a calibration" \
	'grep -q "^interval: paired within one session" paired.out && ! grep -q "calibrated" paired.out'
"$TC" compare s1.json:static s2.json:static --calibration none --metrics median >none.out
check "--calibration none: ?" 'grep -Eq "^ *median .*\?$" none.out && grep -q "(--calibration none)" none.out'

# another host, another batch: not covered, said
jq '.host.nodename = "elsewhere"' f.json >other.json
"$TC" compare s1.json:static s2.json:static --metrics median --calibration other.json >other.out
check "a calibration of another host: ?, and why" \
	'grep -Eq "^ *median .*\?$" other.out && grep -q "does not cover .*calibrated on elsewhere" other.out'
jq '.batch = 64' f.json >b64.json
"$TC" compare s1.json:static s2.json:static --metrics median --calibration b64.json >b64.out
check "a calibration at another batch: ?, and why" \
	'grep -Eq "^ *median .*\?$" b64.out && grep -q "calibrated at --batch 64" b64.out'
echo '{"calibration_version": 1}' >hostile.json
"$TC" compare s1.json:static s2.json:static --calibration hostile.json >h.out 2>h.err
check "--calibration with a broken file: exit 2, one line" \
	'[ $? -eq 2 ] && [ "$(wc -l <h.err)" -eq 1 ] && grep -q "hostile.json" h.err && [ ! -s h.out ]'
"$TC" compare s1.json:static s2.json:static --calibration nosuch.json >/dev/null 2>h.err
check "--calibration with a missing file: exit 2" '[ $? -eq 2 ]'

# the stored default: written without --output, found by compare
"$TC" calibrate --from s1.json,s2.json,s3.json >stored.out 2>&1
check "calibrate without --output stores it in \$TRACECOST_CALIBRATION_DIR" \
	'[ -s "$tmp/stored/calibration-user.json" ] && grep -q "stored in $tmp/stored/calibration-user.json" stored.out'
"$TC" compare s1.json:static s2.json:static --metrics median >def.out
check "compare finds the stored calibration of this host" \
	'grep -q "calibrated: .* of $tmp/stored/calibration-user.json" def.out'
echo broken >"$tmp/stored/calibration-user.json"
"$TC" compare s1.json:static s2.json:static --metrics median >brk.out 2>brk.err
check "a broken stored calibration: said, not used, exit 0" \
	'[ $? -eq 0 ] && grep -q "not using the stored calibration" brk.err && grep -Eq "^ *median .*\?$" brk.out'

# ---- Ctrl-C in the pause between sessions: 130, nothing written ----
lock_wait
"$TC" calibrate --sessions 3 --spacing 60s --runs 1 --output int.json -- $quick \
	>int.out 2>int.err &
pid=$!
n=0
while [ $n -lt 600 ] && ! grep -q "session 1 of 3 done" int.err; do
	sleep 0.1
	n=$((n + 1))
done
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C in the pause: exit 130, no calibration written, no temporary left" \
	'[ $rc -eq 130 ] && [ ! -e int.json ] && [ "$(leftovers)" -le "$before" ]'

summary calibrate
