#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every unit-test binary; print a summary line "N passed, N failed".
# Usage: tests/run-unit.sh BUILD_DIR BIN...
odir=$1; shift
pass=0; fail=0; failed=""
for t in "$@"; do
	if "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed="$failed $(basename "$t")"
	fi
done
echo "unit ($odir): $pass passed, $fail failed"
[ "$fail" -eq 0 ] || { echo "failed:$failed"; exit 1; }
