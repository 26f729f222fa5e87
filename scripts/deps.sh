#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install the Debian packages tracecost needs, idempotently: ask dpkg-query
# first, run apt-get only for what is missing, and only as root (otherwise
# print the apt-get line and fail).
#
#   deps.sh            the build, the tests and the user suite
#   deps.sh kernel     also QEMU, busybox and Debian's kernel headers (make check-kernel)
#   deps.sh kernels    also what make kernels needs (Debian's linux-source-6.1, flex, bison...)
#   deps.sh kernels-6.12  also linux-source-6.12 (make kernels KERNEL=6.12)
#   deps.sh kernels-arm64  also the arm64 kernels and their boots (make kernels ARCH=arm64,
#                      tracecost vm --arch arm64): the kernels group, gcc-aarch64-linux-gnu
#                      and the arm64 libraries (the static tracecost), qemu-system-arm
#                      (Debian 12's 7.2), and busybox-static:arm64 unpacked into
#                      /var/lib/tracecost/arm64/busybox (it cannot be installed beside
#                      the amd64 one)
#   deps.sh kernels-riscv  also the riscv kernels and their boots (make kernels ARCH=riscv,
#                      tracecost vm --arch riscv64): the kernels group,
#                      gcc-riscv64-linux-gnu and its C library, qemu-system-misc (7.2,
#                      with QEMU's OpenSBI), and in /var/lib/tracecost/riscv64/ Debian
#                      13's busybox-static:riscv64 and the riscv64 libraries of the static
#                      tracecost (riscv64 is no Debian 12 architecture; see riscv_root below)
#   deps.sh kernels-arm, kernels-mips  also the cross compiler of the ARMv7 or the
#                      MIPS32 kernels (make kernels ARCH=arm|mips: built, not booted):
#                      gcc-arm-linux-gnueabihf, gcc-mips-linux-gnu
#   deps.sh aarch64    also the AArch64 cross build and its emulator (make check-aarch64):
#                      gcc-aarch64-linux-gnu, the arm64 multiarch libraries, and
#                      qemu-user >= 8.1 (bookworm-backports on Debian 12: 7.2 does not
#                      see code written through /proc/self/mem, see static_key.h)
#   deps.sh --check G  exit 0 if group G is installed, 1 if not; installs nothing
set -eu
PKGS="gcc make binutils pkg-config liburcu-dev libjansson-dev libcmocka-dev jq man-db groff-base time bsdextrautils libtracefs-dev libtraceevent-dev"
# the tracefs tests: what a run itself writes there (tests/integration/tracefs-lib.sh)
PKGS="$PKGS strace"
# compare/size/plot: ELF (libelf), disassembly (capstone), plots (gnuplot), fuzzing (clang + libFuzzer)
PKGS="$PKGS libelf-dev libcapstone-dev gnuplot-nox clang libclang-rt-dev"
# tracecost noise: the churn half of its built-in load
PKGS="$PKGS stress-ng"
# C++ (the public headers are compiled as C++ by the tests)
PKGS="$PKGS g++"
# the user suite's peers (--peers): each one's packages, from their table
# (subjects/peers.def: LTTng-UST and its session daemon, USDT probes)
PKGS="$PKGS $(sed -n 's/^TC_PEER(.*"\([^"]*\)")$/\1/p' "$(dirname "$0")/../subjects/peers.def" | tr '\n' ' ')"
# gdb: kernel/pair-trace.sh steps a guest through QEMU's gdbstub
KERNEL_PKGS="linux-headers-amd64 qemu-system-x86 busybox-static cpio gzip gdb"
KERNELS_PKGS="linux-source-6.1 flex bison bc libssl-dev libelf-dev xz-utils patch"
KERNELS_ARM64_PKGS="qemu-system-arm"
KERNELS_RISCV_PKGS="gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-system-misc"
KERNELS_ARM_PKGS="gcc-arm-linux-gnueabihf"
KERNELS_MIPS_PKGS="gcc-mips-linux-gnu"
RISCV_ROOT=/var/lib/tracecost/riscv64
# the Debian 13 (trixie) riscv64 packages unpacked there: busybox, and the
# libraries of the static tracecost (their headers and static archives)
RISCV_DEBS="busybox-static liburcu-dev libjansson-dev libtracefs-dev libtraceevent-dev libelf-dev
	libcapstone-dev zlib1g-dev libzstd-dev"
ARM64_BUSYBOX=/var/lib/tracecost/arm64/busybox
AARCH64_PKGS="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6:arm64 liburcu-dev:arm64
	libjansson-dev:arm64 libcmocka-dev:arm64 libtracefs-dev:arm64 libtraceevent-dev:arm64
	libelf-dev:arm64 libcapstone-dev:arm64"
# the first qemu-user that invalidates translated code on IC IVAU (QEMU commit
# "target/arm: Handle IC IVAU to improve compatibility with JITs", v8.1.0)
QEMU_USER_MIN="1:8.1"
check_only=0
if [ "${1:-}" = "--check" ]; then
	check_only=1
	shift
fi
if [ "${1:-}" = "kernel" ]; then
	PKGS="$PKGS $KERNEL_PKGS"
elif [ "${1:-}" = "kernels" ]; then
	PKGS="$PKGS $KERNELS_PKGS"
elif [ "${1:-}" = "kernels-6.12" ]; then
	# bookworm-security's linux-source-6.12 (make kernels KERNEL=6.12)
	PKGS="$PKGS $KERNELS_PKGS linux-source-6.12"
elif [ "${1:-}" = "kernels-arm64" ]; then
	PKGS="$PKGS $KERNELS_PKGS $AARCH64_PKGS $KERNELS_ARM64_PKGS"
	group=kernels-arm64
elif [ "${1:-}" = "kernels-riscv" ]; then
	PKGS="$PKGS $KERNELS_PKGS $KERNELS_RISCV_PKGS"
	group=kernels-riscv
elif [ "${1:-}" = "kernels-arm" ]; then
	PKGS="$PKGS $KERNELS_PKGS $KERNELS_ARM_PKGS"
elif [ "${1:-}" = "kernels-mips" ]; then
	PKGS="$PKGS $KERNELS_PKGS $KERNELS_MIPS_PKGS"
elif [ "${1:-}" = "aarch64" ]; then
	PKGS="$PKGS $AARCH64_PKGS"
	group=aarch64
fi
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
# qemu-user, new enough (its version, not only its presence)
qemu_old=0
if [ "${group:-}" = aarch64 ]; then
	v=$(dpkg-query -W -f='${Version}' qemu-user 2>/dev/null || true)
	if [ -z "$v" ] || ! dpkg --compare-versions "$v" ge "$QEMU_USER_MIN"; then
		qemu_old=1
	fi
fi
bb_missing=0
[ "${group:-}" = kernels-arm64 ] && [ ! -x "$ARM64_BUSYBOX" ] && bb_missing=1
rv_missing=0
[ "${group:-}" = kernels-riscv ] && [ ! -f "$RISCV_ROOT/.tracecost-done" ] && rv_missing=1
[ -z "$missing" ] && [ "$qemu_old" -eq 0 ] && [ "$bb_missing" -eq 0 ] && [ "$rv_missing" -eq 0 ] && exit 0
[ "$check_only" -eq 1 ] && exit 1
if [ "$(id -u)" -ne 0 ]; then
	[ -n "$missing" ] && echo "tracecost: missing packages:$missing" >&2
	[ -n "$missing" ] && echo "run as root: apt-get update && apt-get install -y$missing" >&2
	[ "$qemu_old" -eq 1 ] &&
		echo "tracecost: qemu-user >= 8.1 missing (Debian 12: apt-get install qemu-user/bookworm-backports)" >&2
	[ "$bb_missing" -eq 1 ] && echo "tracecost: $ARM64_BUSYBOX missing (run scripts/deps.sh kernels-arm64 as root)" >&2
	[ "$rv_missing" -eq 1 ] && echo "tracecost: $RISCV_ROOT missing (run scripts/deps.sh kernels-riscv as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ "${group:-}" = aarch64 ] || [ "${group:-}" = kernels-arm64 ]; then
	# arm64 libraries next to the amd64 ones (Debian multiarch)
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
	if [ "$qemu_old" -eq 1 ] && grep -q '^VERSION_CODENAME=bookworm' /etc/os-release &&
	   ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo 'deb http://deb.debian.org/debian bookworm-backports main' \
			> /etc/apt/sources.list.d/tracecost-backports.list
	fi
fi
echo "deps: installing$missing$([ "$qemu_old" -eq 1 ] && echo ' qemu-user (>= 8.1)')$([ "$bb_missing" -eq 1 ] && echo " $ARM64_BUSYBOX")$([ "$rv_missing" -eq 1 ] && echo " $RISCV_ROOT")"
apt-get update -qq
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ "$qemu_old" -eq 1 ]; then
	if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release; then
		# qemu-user alone from backports: not "-t", which would move
		# qemu-system-x86 (the kernel tests' QEMU) to backports as well
		apt-get install -y -qq --no-install-recommends qemu-user/bookworm-backports >/dev/null
	else
		apt-get install -y -qq --no-install-recommends qemu-user >/dev/null
	fi
fi
if [ "$bb_missing" -eq 1 ]; then
	# Debian's static busybox for arm64, unpacked (its package conflicts with
	# the amd64 busybox-static the x86-64 guests use)
	bbtmp=$(mktemp -d)
	chown _apt "$bbtmp" 2>/dev/null || true	# apt-get download's sandbox user
	(cd "$bbtmp" && apt-get download -qq busybox-static:arm64 >/dev/null) ||
		{ rm -rf "$bbtmp"; echo "deps: cannot download busybox-static:arm64" >&2; exit 1; }
	dpkg-deb -x "$bbtmp"/busybox-static_*_arm64.deb "$bbtmp/root"
	mkdir -p "$(dirname "$ARM64_BUSYBOX")"
	cp "$bbtmp/root/bin/busybox" "$ARM64_BUSYBOX"
	rm -rf "$bbtmp"
fi
if [ "$rv_missing" -eq 1 ]; then
	# riscv_root: riscv64 is a release architecture from Debian 13 on, so
	# its packages come from Debian 13 (trixie), through apt-get with a
	# configuration of its own (this machine's sources stay as they are):
	# the archive of this machine's Debian sources, suite trixie, riscv64.
	# Debian 12's cross linker cannot link Debian 13's libc.a (ULEB128
	# relocations) nor any of its archives as they are (it crashes on their
	# RISC-V attributes, which name extensions newer than it): the C library
	# is the cross compiler's (libc6-dev-riscv64-cross, glibc 2.36), the
	# archives lose their .riscv.attributes section, and what they call of
	# glibc 2.38 or of elfutils' internal libeu is in scripts/riscv64-compat.c.
	# Debian 13's liburcu headers refuse GCC < 13.3 on RISC-V (GCC bug
	# 104831: some atomics not sequentially consistent): the headers are
	# Debian 12's liburcu 0.13 (this machine's liburcu-dev, the same on every
	# architecture but config.h), with Debian 13's riscv64 config.h choice
	# of no compiler TLS (its archives read the reader state through
	# functions). The guest's tracecost runs under QEMU TCG on this x86-64
	# host, whose memory order is stronger than RISC-V's.
	mirror=$(sed -n 's|^URIs:[[:space:]]*\([^[:space:]]*/debian\)/*$|\1|p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$mirror" ] || mirror=$(sed -n 's|^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*/debian\)/*[[:space:]]\{1,\}bookworm[[:space:]].*|\2|p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
	[ -n "$mirror" ] || { echo "deps: no Debian archive in this machine's apt sources" >&2; exit 1; }
	rv=$RISCV_ROOT.tmp
	rm -rf "$rv"
	mkdir -p "$rv/apt/lists/partial" "$rv/apt/cache/archives/partial" "$rv/debs" "$rv/sysroot"
	echo "deb [arch=riscv64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" \
		>"$rv/apt/sources.list"
	set -- -o Dir::Etc::SourceList="$rv/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$rv/apt/lists" -o Dir::Cache="$rv/apt/cache" \
		-o Dir::State::status=/dev/null -o APT::Architecture=riscv64 -o APT::Architectures=riscv64
	chown -R _apt "$rv/apt" "$rv/debs" 2>/dev/null || true	# apt-get's sandbox user
	apt-get "$@" update -qq >/dev/null ||
		{ echo "deps: cannot read Debian 13's riscv64 package list" >&2; exit 1; }
	# shellcheck disable=SC2086
	(cd "$rv/debs" && apt-get "$@" download -qq $RISCV_DEBS >/dev/null) ||
		{ echo "deps: cannot download Debian 13's riscv64 packages ($RISCV_DEBS)" >&2; exit 1; }
	for d in "$rv"/debs/*.deb; do
		case "$d" in
		*/busybox-static_*) dpkg-deb -x "$d" "$rv/bb" ;;
		*) dpkg-deb -x "$d" "$rv/sysroot" ;;
		esac
	done
	cp "$rv/bb/bin/busybox" "$rv/busybox" 2>/dev/null || cp "$rv/bb/usr/bin/busybox" "$rv/busybox"
	for a in "$rv"/sysroot/usr/lib/riscv64-linux-gnu/*.a; do
		riscv64-linux-gnu-objcopy -R .riscv.attributes "$a"
	done
	inc=$rv/sysroot/usr/include/riscv64-linux-gnu
	hostinc=/usr/include/$(gcc -print-multiarch)
	rm -rf "$inc"/urcu "$inc"/urcu*.h
	cp -r "$hostinc/urcu" "$hostinc"/urcu*.h "$inc/"
	sed -i 's|^#define CONFIG_RCU_TLS 1$|/* #undef CONFIG_RCU_TLS */|' "$inc/urcu/config.h"
	rm -rf "$rv/apt" "$rv/debs" "$rv/bb"
	touch "$rv/.tracecost-done"
	rm -rf "$RISCV_ROOT"
	mv "$rv" "$RISCV_ROOT"
fi
