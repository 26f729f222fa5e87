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
#   deps.sh --check G  exit 0 if group G is installed, 1 if not; installs nothing
set -eu
PKGS="gcc make binutils pkg-config liburcu-dev libjansson-dev libcmocka-dev jq man-db groff-base time bsdextrautils libtracefs-dev libtraceevent-dev"
# compare/size/plot: ELF (libelf), disassembly (capstone), plots (gnuplot), fuzzing (clang + libFuzzer)
PKGS="$PKGS libelf-dev libcapstone-dev gnuplot-nox clang libclang-rt-dev"
KERNEL_PKGS="linux-headers-amd64 qemu-system-x86 busybox-static cpio gzip"
KERNELS_PKGS="linux-source-6.1 flex bison bc libssl-dev libelf-dev xz-utils patch"
check_only=0
if [ "${1:-}" = "--check" ]; then
	check_only=1
	shift
fi
if [ "${1:-}" = "kernel" ]; then
	PKGS="$PKGS $KERNEL_PKGS"
elif [ "${1:-}" = "kernels" ]; then
	PKGS="$PKGS $KERNELS_PKGS"
fi
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
[ "$check_only" -eq 1 ] && exit 1
if [ "$(id -u)" -ne 0 ]; then
	echo "tracecost: missing packages:$missing" >&2
	echo "run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
