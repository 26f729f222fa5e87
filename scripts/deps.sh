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
[ -z "$missing" ] && [ "$qemu_old" -eq 0 ] && [ "$bb_missing" -eq 0 ] && exit 0
[ "$check_only" -eq 1 ] && exit 1
if [ "$(id -u)" -ne 0 ]; then
	[ -n "$missing" ] && echo "tracecost: missing packages:$missing" >&2
	[ -n "$missing" ] && echo "run as root: apt-get update && apt-get install -y$missing" >&2
	[ "$qemu_old" -eq 1 ] &&
		echo "tracecost: qemu-user >= 8.1 missing (Debian 12: apt-get install qemu-user/bookworm-backports)" >&2
	[ "$bb_missing" -eq 1 ] && echo "tracecost: $ARM64_BUSYBOX missing (run scripts/deps.sh kernels-arm64 as root)" >&2
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
echo "deps: installing$missing$([ "$qemu_old" -eq 1 ] && echo ' qemu-user (>= 8.1)')$([ "$bb_missing" -eq 1 ] && echo " $ARM64_BUSYBOX")"
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
