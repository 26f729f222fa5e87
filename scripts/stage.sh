#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One stage of `make check`: run COMMAND with its output in LOGDIR/NAME.log
# and print one line with the stage's result and wall time, e.g.
#   PASS    unit            4.1 s  unit (build): 9 passed, 0 failed
# A part that could not run says so in a line "TARGET: skipped (REASON)" (the
# -if-available targets of the Makefile); each such line is printed whole as
#   SKIP    kernel                 check-kernel-debug: skipped (REASON)
# and appended, with the stage's name, to LOGDIR/skipped (make check names
# the skipped stages at its end from it); a stage of which nothing else ran
# prints SKIP, never PASS.
# The summary is the stage's last line that counts passes; under it,
# indented, the log's lines that give trial and execution counts (fuzzer
# executions, signal-timing trials, static-key flips raced by running
# threads, the start-up refusals under seccomp), so that a CI log shows how
# much each of those tests did. On failure the end of the log is printed and
# the command's status returned.
# While a long stage runs: on a terminal, a line updated in place with the
# stage's latest output; otherwise (CI logs) one line every HEARTBEAT
# seconds (default 60). V=1 shows the whole output live (still logged).
# Usage: scripts/stage.sh LOGDIR NAME COMMAND...
set -u
logdir=$1 name=$2
shift 2
mkdir -p "$logdir"
log=$logdir/$name.log
beat=${HEARTBEAT:-60}
t0=$(date +%s.%N)

elapsed() { echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }'; }
last_line() { grep -v '^[[:space:]]*$' "$log" 2>/dev/null | tail -1 | cut -c1-90; }

: >"$log"
if [ "${V:-0}" = 1 ]; then
	printf '  %-7s %s\n' STAGE "$name"
	{ "$@" 2>&1; echo $? >"$log.rc"; } | tee "$log"
	rc=$(cat "$log.rc"); rm -f "$log.rc"
else
	"$@" >"$log" 2>&1 &
	pid=$!
	(
		# polls the stage once a second (no signal to it, no trap: dash
		# keeps a parent's handler in a subshell until its own trap is
		# set, so a TERM sent at once could be lost); the sleeps write
		# nowhere: nothing holds make check's output open once it is over
		n=0
		while kill -0 "$pid" 2>/dev/null; do
			sleep 1 >/dev/null 2>&1 </dev/null
			n=$((n + 1))
			kill -0 "$pid" 2>/dev/null || break
			if [ -t 1 ]; then
				[ $n -ge 2 ] && printf '\r\033[K  %-7s %-14s %4d s  %s' RUN "$name" $n \
					"$(last_line | cut -c1-50)"
			elif [ $((n % beat)) -eq 0 ]; then
				printf '  %-7s %-14s %4d s  %s\n' RUN "$name" $n "$(last_line)"
			fi
		done
	) &
	hb=$!
	wait $pid
	rc=$?
	wait $hb 2>/dev/null
	[ -t 1 ] && printf '\r\033[K'
fi
summary=$(grep -E '[0-9]+ passed|: ok' "$log" | tail -1 | cut -c1-90)
skips=$(grep -E '^[A-Za-z0-9_.-]+: skipped \(' "$log")
if [ "$rc" -eq 0 ] && [ -n "$skips" ]; then
	printf '%s\n' "$skips" | sed "s/^/$name: /" >>"$logdir/skipped"
	if [ -n "$summary" ]; then
		printf '  %-7s %-14s %6s s  %s\n' PASS "$name" "$(elapsed)" "$summary"
		printf '%s\n' "$skips" | while IFS= read -r l; do
			printf '  %-7s %-14s %8s  %s\n' SKIP "$name" "" "$l"; done
	else
		printf '%s\n' "$skips" | while IFS= read -r l; do
			printf '  %-7s %-14s %6s s  %s\n' SKIP "$name" "$(elapsed)" "$l"; done
	fi
elif [ "$rc" -eq 0 ]; then
	printf '  %-7s %-14s %6s s  %s\n' PASS "$name" "$(elapsed)" "$summary"
	grep -E '[0-9]+ (executions|trials)|^# (spinner|fork during flips|[0-9]+ key flips|readers)|\(seccomp\)|^emulator:' \
		"$log" | sed 's/^\(ok *-* *\)//; s/^/            /' | cut -c1-120 | head -30
else
	if [ "${V:-0}" != 1 ]; then
		grep -E '^FAIL|[Ee]rror|ERROR' "$log" | head -20
		echo "  ... last lines of $log:"
		tail -15 "$log"
	fi
	printf '  %-7s %-14s %6s s  exit %d; whole output in %s\n' FAIL "$name" "$(elapsed)" \
		"$rc" "$log"
fi
exit "$rc"
