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

cleanup() { :; }

tmpdir() {
	tmp=$(mktemp -d)
	trap 'cleanup; rm -rf "$tmp"' EXIT
}

summary() {
	echo "$1: $pass passed, $fail failed${2:+, $skipped skipped}"
	[ "$fail" -eq 0 ]
}
