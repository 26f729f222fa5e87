#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Does our series build, on every architecture and base it must? Builds each
# KERNEL:ARCH:NAME through kernel/build.sh (the one build path) with kbuild's
# W=1, then prints one table row per build: the result, the build time, the
# warnings of the whole build, and those located in a file the series edits
# (kernel/patches/KERNEL/: the files of its "+++ b/" lines), which must be 0.
#
# Usage: kernel/build-test.sh [KERNEL:ARCH:NAME...]
#   default: the 6.12 series on arm, mips, riscv and arm64, and x86-64 with
#   JUMP_LABEL=n (preemptirq-nojl); the 6.1 series on arm and mips
# Environment: KERNEL_CACHE (as kernel/build.sh), JOBS.
# Exit 0 if every build succeeded with no warning in the series' files, 1
# otherwise, 2 for a bad argument.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- 6.12:mips:preemptirq 6.12:arm:preemptirq 6.12:riscv:preemptirq \
	6.12:x86_64:preemptirq-nojl 6.12:arm64:preemptirq 6.1:mips:preemptirq 6.1:arm:preemptirq
for t in "$@"; do
	case "$t" in
	6.1:*:*|6.12:*:*) ;;
	*) echo "build-test: '$t' is not KERNEL:ARCH:NAME (KERNEL 6.1 or 6.12)" >&2; exit 2 ;;
	esac
	a=${t#*:}; a=${a%%:*}
	case "$a" in x86_64|arm64|riscv|arm|mips) ;;
	*) echo "build-test: '$t': ARCH is not x86_64, arm64, riscv, arm or mips" >&2; exit 2 ;;
	esac
	n=${t##*:}
	[ -r "$top/kernel/configs/$n.config" ] ||
		{ echo "build-test: '$t': no kernel/configs/$n.config" >&2; exit 2; }
done
cache=${KERNEL_CACHE:-$top/build/kernels}

# the files a series edits, as a grep -E alternative of their paths
edited() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$top/kernel/patches/$1"/*.patch | sort -u |
		sed 's/[.]/[.]/g' | paste -sd'|'
}

rc=0
rows=""
for t in "$@"; do
	k=${t%%:*} r=${t#*:}
	a=${r%%:*} n=${r#*:}
	out=$(KERNEL=$k ARCH=$a W=1 bash "$top/kernel/build.sh" "$n" 2>&1 | tee /dev/stderr)
	case "$out" in
	*" built in "*) res="builds in $(echo "$out" | sed -n 's/.* built in \([0-9]*m[0-9]*s\).*/\1/p')" ;;
	*" cached ("*) res="builds (cached)" ;;
	*) res=FAILS; rc=1 ;;
	esac
	# the build's log, from what kernel/build.sh printed: its hash
	# ("cached (HASH)", "built in T (HASH, DIR)") or, failed, its "full log"
	h=$(echo "$out" | sed -n 's/.* cached (\([0-9a-f]*\)).*/\1/p; s/.* built in [0-9ms]* (\([0-9a-f]*\),.*/\1/p' | tail -n 1)
	if [ -n "$h" ]; then
		log=$(find "$cache" -maxdepth 3 -name "$n-$h" | head -n 1)/build.log
	else
		log=$(echo "$out" | sed -n 's/.*(full log: \(.*\))$/\1/p' | tail -n 1)
	fi
	all=$(grep -c ': warning: ' "$log" 2>/dev/null || true)
	ours=$(grep -E "(^|/)($(edited "$k")):[0-9]+(:[0-9]+)?: warning: " "$log" 2>/dev/null | sort -u | wc -l)
	[ "$ours" -eq 0 ] || rc=1
	rows="$rows| $k | $a | $n | $res | ${all:-0} | $ours | $(basename "$(dirname "$log")") |
"
done
echo "| base | arch | configuration | W=1 build | warnings | in the series' files | build |"
echo "| --- | --- | --- | --- | ---: | ---: | --- |"
printf '%s' "$rows"
exit $rc
