#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/checkpatch.sh [DIR...]: every patch of kernel/patches/DIR (default:
# every series) through the kernel's own scripts/checkpatch.pl --no-tree, from
# Debian's linux-source-6.1: the pristine tree kernel/build.sh unpacked in
# $KERNEL_CACHE/src/ if there is one, otherwise the three files checkpatch
# reads, extracted from the tarball. Fails unless every patch reports
# "0 errors, 0 warnings" (make check-patches; kernel/patches/README.md).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
cache=${KERNEL_CACHE:-$top/build/kernels}

cp_pl=""
for d in "$cache"/src/linux-*/; do
	if [ -f "$d/.tracecost-unpacked" ] && [ -r "$d/scripts/checkpatch.pl" ]; then
		cp_pl=$d/scripts/checkpatch.pl
		break
	fi
done
tmp=""
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
if [ -z "$cp_pl" ]; then
	[ -r "$tarball" ] || { echo "checkpatch: $tarball is missing (make deps-kernels)" >&2; exit 1; }
	tmp=$(mktemp -d)
	top_dir=$(tar -tJf "$tarball" | head -n 1 | cut -d/ -f1)
	tar -xJf "$tarball" -C "$tmp" "$top_dir/scripts/checkpatch.pl" \
		"$top_dir/scripts/spelling.txt" "$top_dir/scripts/const_structs.checkpatch"
	cp_pl=$tmp/$top_dir/scripts/checkpatch.pl
fi

if [ $# -eq 0 ]; then
	for d in "$top"/kernel/patches/*/; do
		d=${d%/}
		set -- "$@" "${d##*/}"
	done
fi
rc=0
n=0
for dir in "$@"; do
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
