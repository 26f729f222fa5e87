#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/lib.sh - what every shell test shares: its counters, its TAP-like
# lines, a temporary directory removed on exit, and the summary line that
# scripts/stage.sh shows for the stage ("NAME: P passed, F failed").
# Source it first (POSIX sh, dash), e.g.
#	. "$(dirname "$(readlink -f "$0")")/../lib.sh"
#
#   pass, fail, skipped	the counters, 0 when sourced
#   ok MSG...		a pass:    "ok   - MSG"
#   not_ok MSG...	a failure: "FAIL - MSG"
#   skip MSG...		a skip:    "skip - MSG"
#			(TEST_MARKS=colon set before sourcing: "ok: MSG" and
#			"FAIL: MSG", the disasm and cross tests' lines)
#   check DESC EXPR	ok DESC if EXPR (eval'd) is true, else not_ok DESC
#			(a script may define a check() of its own instead)
#   tmpdir		make $tmp (mktemp -d) and remove it on exit, after
#			the script's cleanup(): define one to stop what the
#			script started (the default does nothing)
#   summary NAME [skipped]
#			"NAME: P passed, F failed" (", S skipped" with the
#			second word), and its status: 0 without failures, so
#			that it can end the script
tl_marks=${TEST_MARKS:-dash}
pass=0
fail=0
skipped=0

ok() {
	pass=$((pass + 1))
	if [ "$tl_marks" = colon ]; then echo "ok: $*"; else echo "ok   - $*"; fi
}

not_ok() {
	fail=$((fail + 1))
	if [ "$tl_marks" = colon ]; then echo "FAIL: $*"; else echo "FAIL - $*"; fi
}

skip() {
	skipped=$((skipped + 1))
	echo "skip - $*"
}

check() {
	if eval "$2"; then ok "$1"; else not_ok "$1"; fi
}

# catches PID SIG: wait (up to 30 s) until process PID has a handler for
# signal SIG (a number) in place, read from SigCgt of /proc/PID/status. A
# signal sent before that meets the dynamic loader or the kernel's default
# action, which no program can answer; a test that means "as early as the
# program can answer" waits for this, however loaded the machine is.
catches() {
	_n=0
	while [ $_n -lt 3000 ]; do
		_m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		[ -n "$_m" ] || return 1
		[ $(((0x$_m >> ($2 - 1)) & 1)) -eq 1 ] && return 0
		sleep 0.01
		_n=$((_n + 1))
	done
	return 1
}

cleanup() { :; }

tmpdir() {
	tmp=$(mktemp -d)
	trap 'cleanup; rm -rf "$tmp"' EXIT
}

summary() {
	echo "$1: $pass passed, $fail failed${2:+, $skipped skipped}"
	[ "$fail" -eq 0 ]
}
