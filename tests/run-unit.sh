#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run every unit-test binary; print a summary line "N passed, N failed".
# Usage: tests/run-unit.sh BUILD_DIR BIN...
# TC_TEST_RUNNER: a command to run each binary with (qemu-aarch64 for the
# cross build, tests/cross/aarch64.sh).
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
odir=$1; shift
failed=""
for t in "$@"; do
	if ${TC_TEST_RUNNER:-} "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); failed="$failed $(basename "$t")"
	fi
done
summary "unit ($odir)" || { echo "failed:$failed"; exit 1; }
