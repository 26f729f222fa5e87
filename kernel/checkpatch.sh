#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/checkpatch.sh [DIR...]: every patch of kernel/patches/DIR (default:
# every series) through the kernel's own scripts/checkpatch.pl --no-tree, from
# the Debian linux-source the series is for: linux-source-DIR for a DIR
# named by a version (6.1, 6.12), linux-source-6.1 otherwise. It is the
# pristine tree kernel/build.sh unpacked in $KERNEL_STORE/src/ if there is
# one, otherwise the three files checkpatch reads, extracted from
# /usr/src/linux-source-VERSION.tar.xz. Fails unless every patch reports
# "0 errors, 0 warnings" (make check-patches; kernel/patches/README.md).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KERNEL_CACHE:-$top/build/kernels}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# checkpatch_for VERSION: the path of linux-source-VERSION's checkpatch.pl
checkpatch_for() {
	for d in "${KERNEL_STORE:-$cache}"/src/linux-"$1".*/; do
		if [ -f "$d/.tracecost-unpacked" ] && [ -r "$d/scripts/checkpatch.pl" ]; then
			echo "$d/scripts/checkpatch.pl"
			return 0
		fi
	done
	if [ -r "$tmp/$1/scripts/checkpatch.pl" ]; then
		echo "$tmp/$1/scripts/checkpatch.pl"
		return 0
	fi
	tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-$1.tar.xz}
	[ -r "$tarball" ] || { echo "checkpatch: $tarball is missing (make deps-kernels KERNEL=$1)" >&2; return 1; }
	top_dir=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
	mkdir -p "$tmp/$1"
	tar -xJf "$tarball" -C "$tmp/$1" --strip-components=1 "$top_dir/scripts/checkpatch.pl" \
		"$top_dir/scripts/spelling.txt" "$top_dir/scripts/const_structs.checkpatch"
	echo "$tmp/$1/scripts/checkpatch.pl"
}

if [ $# -eq 0 ]; then
	for d in "$top"/kernel/patches/*/; do
		d=${d%/}
		set -- "$@" "${d##*/}"
	done
fi
rc=0
n=0
for dir in "$@"; do
	case "$dir" in
	""|*[!0-9.]*) ver=6.1 ;;
	*) ver=$dir ;;
	esac
	cp_pl=$(checkpatch_for "$ver") || exit 1
	for p in "$top/kernel/patches/$dir"/*.patch; do
		[ -e "$p" ] || continue
		n=$((n + 1))
		out=$(perl "$cp_pl" --no-tree --no-color "$p" 2>&1 || true)
		total=$(echo "$out" | sed -n 's/^total: //p')
		case "$total" in
		"0 errors, 0 warnings,"*) echo "ok   - $dir/$(basename "$p"): $total" ;;
		*)
			echo "$out"
			echo "FAIL - $dir/$(basename "$p"): ${total:-checkpatch gave no total}"
			rc=1
			;;
		esac
	done
done
[ "$n" -gt 0 ] || { echo "checkpatch: no patches in kernel/patches/$*" >&2; exit 1; }
exit $rc
