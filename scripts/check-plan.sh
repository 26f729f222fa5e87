#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The first and the last line of `make check`: which stages will be skipped
# and why, then which were.
#
#   check-plan.sh deps       as root: install every group make check needs
#                            (scripts/deps.sh: the build, kernel, kernels,
#                            aarch64); a group that fails to install is said
#                            and its stages skipped. Not root: only the build's
#                            packages are required (deps.sh fails without them).
#   check-plan.sh first      one line: "check: every stage runs" or
#                            "check: will skip STAGES: REASON"
#   check-plan.sh last LOG   the skipped parts from LOG/skipped (scripts/stage.sh),
#                            one line each, then the verdict line; exit 1 under
#                            CI=true when anything was skipped
#
# The stages behind each package group (Makefile, the -if-available targets):
#   aarch64  the aarch64 stage (cross compiler, arm64 libraries, qemu-user >= 8.1)
#   kernel   the kernel, noise-vm and vm stages (QEMU, busybox, kernel headers)
#   kernels  the debug-kernel half of the kernel stage (linux-source-6.1)
#   kernels-arm64  the vm-arm64 stage (cross compiler, qemu-system-arm, arm64 busybox)
set -u
here=$(dirname "$0")
stages_aarch64=aarch64
stages_kernel="kernel, noise-vm, vm"
stages_kernels="kernel (check-kernel-debug)"
stages_kernels_arm64=vm-arm64

missing() { ! sh "$here/deps.sh" --check "$1"; }

case "${1:-}" in
deps)
	sh "$here/deps.sh" || exit 1
	[ "$(id -u)" -eq 0 ] || exit 0
	for g in kernel kernels aarch64 kernels-arm64; do
		if ! sh "$here/deps.sh" "$g"; then
			echo "check: installing the $g packages failed (above): its stages will be skipped" >&2
		fi
	done
	;;
first)
	skip="" why=""
	for g in aarch64 kernel kernels kernels-arm64; do
		missing "$g" || continue
		eval "st=\$stages_$(echo "$g" | tr - _)"
		skip="$skip${skip:+, }$st"
		why="$why${why:+; }$g packages missing"
	done
	if [ -z "$skip" ]; then
		echo "check: every stage runs (build, unit, sites, integration, install, san, tsan, aarch64, fuzz, kernel, noise-vm, vm, vm-arm64)"
	else
		if [ "$(id -u)" -eq 0 ]; then how="their installation failed (above)"
		else how="run make check as root to install them (or make deps-kernel deps-kernels deps-aarch64)"; fi
		echo "check: will skip $skip: $why; $how${CI:+; CI=$CI: the check fails at the end}"
	fi
	;;
last)
	log=${2:?usage: check-plan.sh last LOGDIR}/skipped
	if [ -s "$log" ]; then
		n=$(wc -l <"$log")
		sed 's/^/check: skipped: /' "$log"
		stages=$(cut -d: -f1 "$log" | sort -u | paste -sd, - | sed 's/,/, /g')
		if [ "${CI:-}" = true ]; then
			echo "check: FAILED under CI=true: $n part(s) skipped in stage(s) $stages (every other test passed)"
			exit 1
		fi
		echo "check: every test that ran passed; $n part(s) skipped in stage(s) $stages (reasons above)"
	else
		echo "check: all test groups passed, none skipped"
	fi
	;;
*)
	echo "usage: check-plan.sh deps|first|last LOGDIR" >&2
	exit 2
	;;
esac
