#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The AArch64 build, run under qemu-user on this x86-64 machine (make
# check-aarch64): every unit test, then a short user-suite run whose file
# compare reads, and the disassembly test of the disabled sites on the
# cross-built objects (SITECHECK, the host's tests/disasm/sitecheck). The static-key tests must pass here: after every flip they
# check the site's bytes (NOP or B to the entry's target) and the branch the
# code takes, with other threads running the sites. No timing is asserted:
# under emulation the counter and the figures mean nothing.
#
# Usage: tests/cross/aarch64.sh BUILD_DIR [QEMU]
#   BUILD_DIR  built with make CROSS_COMPILE=aarch64-linux-gnu- O=BUILD_DIR
#   QEMU       qemu-user's AArch64 emulator (default qemu-aarch64), >= 8.1:
#              earlier versions keep running the translation of a site that
#              was rewritten through /proc/self/mem (QEMU 8.1 invalidates it
#              on the IC IVAU that follows our write; see static_key.h)
set -eu
odir=$1
qemu=${2:-qemu-aarch64}
TEST_MARKS=colon
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"

if ! command -v "$qemu" >/dev/null 2>&1; then
	echo "check-aarch64: $qemu not found (run 'make deps-aarch64' as root)"
	exit 1
fi
ver=$("$qemu" --version | sed -n '1s/.*version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p')
set -- $ver
if [ $# -ne 2 ] || [ "$1" -lt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -lt 1 ]; }; then
	echo "check-aarch64: $qemu is version ${1:-?}.${2:-?}; 8.1 or later is needed" \
		"(Debian 12: apt-get install qemu-user/bookworm-backports, or 'make deps-aarch64')"
	exit 1
fi
echo "emulator: $("$qemu" --version | head -n 1)"
file "$odir/tracecost" 2>/dev/null | grep -q 'ARM aarch64' ||
	{ echo "check-aarch64: $odir/tracecost is not an AArch64 build"; exit 1; }

# 1. every unit test under the emulator
units=$(ls "$odir"/tests/test_* | grep -v '\.o$')
# shellcheck disable=SC2086
if TC_TEST_RUNNER="$qemu" sh tests/run-unit.sh "$odir" $units; then
	ok "unit tests under $qemu"
else
	not_ok "unit tests under $qemu"
fi

# 2. a short user-suite run: the file it writes, compare reading it
tmpdir
if "$qemu" "$odir/tracecost" run --suite user --samples 20000 --repeat 2 \
	--json "$tmp/u.json" > "$tmp/u.txt" 2> "$tmp/u.err"; then
	ok "tracecost run --suite user (20000 samples, 2 repetitions)"
else
	not_ok "tracecost run --suite user: $(head -n 3 "$tmp/u.err")"
fi
impl=$(jq -r '.static_key_impl' "$tmp/u.json" 2>/dev/null || true)
case "$impl" in
"aarch64 asm goto"*) ok "static keys: $impl" ;;
*) not_ok "static_key_impl is '$impl'" ;;
esac
counter=$(jq -r '.counter.name' "$tmp/u.json" 2>/dev/null || true)
case "$counter" in
cntvct_el0*) ok "counter: $counter ($(jq -r '.counter.frequency_source' "$tmp/u.json"))" ;;
*) not_ok "counter is '$counter'" ;;
esac
cfgs=$(jq -r '[.user.configurations[].name] | join(" ")' "$tmp/u.json" 2>/dev/null || true)
[ "$cfgs" = "stock call call+ static static+" ] && ok "configurations: $cfgs" ||
	not_ok "configurations: '$cfgs'"
# the disabled static site is one NOP: as many instructions as stock's plus one
sizes=$(jq -r '[.user.configurations[] | select(.name == "stock" or .name == "static")
	| .size.sites.irq_disable.insns] | join(" ")' "$tmp/u.json" 2>/dev/null || true)
set -- $sizes
[ $# -eq 2 ] && [ "$2" -eq $(($1 + 1)) ] && ok "irq_disable site: stock $1, static $2 instructions" ||
	not_ok "irq_disable site instructions (stock static): '$sizes'"
# 3. the disabled sites read from the cross-built objects (issue 17,
# tests/disasm/sitecheck.c, a host program): each one 4-byte NOP, no jump,
# load, store or spill more than stock's; this build's objects, then -O3
if [ -n "${SITECHECK:-}" ]; then
	for o in this -O3; do
		d=$odir
		if [ "$o" != this ]; then
			d=$tmp/a64$o
			if ! make -s --no-print-directory CROSS_COMPILE=aarch64-linux-gnu- O="$d" \
				OPTFLAGS="$o" "$d/subjects/toggle_stock.o" "$d/subjects/toggle_static.o" \
				> "$tmp/build$o" 2>&1; then
				not_ok "AArch64 subject at $o does not build: $(tail -n 3 "$tmp/build$o")"
				continue
			fi
		fi
		if "$SITECHECK" "$d/subjects/toggle_stock.o" "$d/subjects/toggle_static.o" \
			> "$tmp/sites$o" 2>&1; then
			ok "disabled sites ($(echo "$o" | sed 's/^this$/this build'"'"'s/') objects):" \
				"$(tail -n 1 "$tmp/sites$o" | sed 's/ (.*//')"
		else
			not_ok "disabled sites ($o objects): not stock + one NOP per site"
			grep -v '^  ok' "$tmp/sites$o" | head -n 60
		fi
	done
else
	echo "skipped: disabled sites (SITECHECK not set: make check-aarch64 sets it)"
fi

if "$qemu" "$odir/tracecost" compare "$tmp/u.json" > "$tmp/c.txt" 2>&1 &&
	grep -q 'IRQ Metrics' "$tmp/c.txt"; then
	ok "tracecost compare reads the AArch64 file"
else
	not_ok "tracecost compare: $(head -n 3 "$tmp/c.txt")"
fi
summary aarch64
