#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# With both TOGGLE options off, our patch series must not change the kernel
# it is built into: not its code, not its data, not a table (__jump_table,
# __bug_table, __ksymtab, .orc_unwind...), not a string. For each named
# configuration, build the whole kernel (vmlinux, the boot image, the
# modules) from the pristine and from the patched source with that kernel's
# .config and the same reproducible-build settings, and compare them byte
# for byte; where they differ, section by section (kernel/same-image-cmp.py
# names each section and the symbol or string where the first differences
# are).
#
# The pristine build is the cache's, copied and relinked with the fixed
# settings. The patched build is another copy of it whose recorded commands
# and dependencies name the patched tree. kernel/same-image-reuse.py finds
# every target that depends on a file whose content differs between the
# trees (the files the series edits): almost every object, as nearly all
# include <linux/preempt.h> or <linux/irqflags.h>. It preprocesses each of
# those translation units from both trees with kbuild's own command (-E -P
# for -c): where the token streams are the same, the compiler would be
# given the same input with the same flags, so the pristine object is kept;
# every other one is removed and recompiled from the patched source. By
# content, not time stamps: a pristine build made after the patched tree
# would otherwise look up to date. Then kbuild links vmlinux, the boot image
# and the modules. Preprocessing costs a fraction of compiling: this is what makes
# three kernels fit in an afternoon on two loaded CPUs.
#
# Usage: [ARCH=x86_64|arm64] kernel/same-image.sh KERNEL_CACHE WORKDIR NAME...
#   ARCH          default x86_64; arm64 or aarch64 (kernel/vm/boot-lib.sh's
#                 seed_arch mapping, as kernel/site-cost.sh): the kernels
#                 KERNEL_CACHE/arm64/NAME (make kernels ARCH=arm64), built
#                 with the cross compiler aarch64-linux-gnu- as
#                 kernel/build.sh does, the boot image arch/arm64/boot/Image,
#                 no objtool; the builds in WORKDIR/arm64/NAME. Any other
#                 ARCH (riscv included: not run yet): one line, exit 2,
#                 before any work.
#   KERNEL_CACHE  kernel/build.sh's cache: NAME built from the pristine
#                 source (a configuration without "# tracecost-patches"),
#                 preemptirq built (its source tree is the patched one)
#   WORKDIR       where the two builds of each NAME go: WORKDIR/NAME/a (a
#                 copy of the cached pristine build, relinked) and
#                 WORKDIR/NAME/b (from the patched source, as above). Both have
#                 the same path shape; a second run rebuilds only what changed.
#
# The configuration: NAME's .config from the cache, where the series'
# options do not exist, so they are off. `make olddefconfig` must leave
# every CONFIG_ line of it unchanged on both trees (a Kconfig change of the
# series that altered a configuration would fail here).
#
# Reproducible settings (kbuild's): KBUILD_BUILD_TIMESTAMP, _USER, _HOST and
# _VERSION fixed; kbuild's -fmacro-prefix-map=$(srctree)/= keeps the source
# trees' different paths out of __FILE__; no debug info in these configs.
#
# Before it compares, it checks that the comparison can fail: a copy of the
# first pristine vmlinux with one byte of .rodata changed must be reported
# as differing, in .rodata.
#
# Environment: ARCH, JOBS (default nproc). Exit 0 if every kernel is
# identical, 1 if one differs, a build fails or a tool is missing, 2 on bad
# arguments.
set -eu

die() { echo "same-image: $*" >&2; exit 1; }
case "${ARCH:-x86_64}" in
x86_64 | x86 | amd64 | arm64 | aarch64) ;;
*) echo "same-image: ARCH=$ARCH is not x86_64 or arm64 (aarch64)" >&2; exit 2 ;;
esac
[ $# -ge 3 ] || { echo "usage: [ARCH=x86_64|arm64] kernel/same-image.sh KERNEL_CACHE WORKDIR NAME..." >&2; exit 2; }
[ -d "$1" ] || { echo "same-image: $1 is not a kernel cache directory" >&2; exit 2; }
cache_arg=$1 work_arg=$2
shift 2
for n in "$@"; do
	case "$n" in
	*[!A-Za-z0-9_-]*|"") echo "same-image: bad configuration name '$n'" >&2; exit 2 ;;
	esac
done
table=same-image
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/vm/boot-lib.sh
. "$top/kernel/vm/boot-lib.sh"
# karch, image (the boot image), sub (the kernels' directory under a
# cache: "" or /arm64), cross (the cross compiler's prefix)
seed_arch
KC=$(readlink -f "$cache_arg")$sub
[ -d "$KC" ] || die "$KC does not exist (make kernels ARCH=$karch KERNELS=\"$* preemptirq\")"
mkdir -p "$work_arg$sub"
WORK=$(readlink -f "$work_arg$sub")
cmp_elf="python3 $top/kernel/same-image-cmp.py"
command -v python3 >/dev/null 2>&1 || die "python3 is missing"
jobs=${JOBS:-$(nproc)}

# an O= tree's Makefile includes its source tree's
srcof() { sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile" | head -n 1; }
[ -f "$KC/preemptirq/.tracecost-built" ] ||
	die "$KC/preemptirq is not built (make kernels ARCH=$karch KERNELS=preemptirq)"
patched=$(srcof "$KC/preemptirq")
[ -f "$patched/.tracecost-patched" ] || die "$KC/preemptirq was not built from a patched tree"
command -v "${cross}gcc" >/dev/null 2>&1 || die "${cross}gcc is missing (make deps-kernels ARCH=$karch)"

KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 1970"
KBUILD_BUILD_USER=tracecost
KBUILD_BUILD_HOST=tracecost
KBUILD_BUILD_VERSION=1
export KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST KBUILD_BUILD_VERSION
# kmake SRC DIR ARGS...: kbuild with the reproducible settings, at low priority
kmake() {
	s=$1 d=$2
	shift 2
	nice -n 19 make -C "$s" O="$d" ARCH="$karch" CROSS_COMPILE="$cross" "$@"
}
syms() { grep '^CONFIG_' "$1" | sort; }
fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# config_check SRC CONFIG LABEL: olddefconfig on SRC leaves CONFIG's options alone
config_check() {
	t=$(mktemp -d "$WORK/.cfg.XXXXXX")
	cp "$2" "$t/.config"
	make -s -C "$1" O="$t" ARCH="$karch" CROSS_COMPILE="$cross" olddefconfig >/dev/null
	syms "$2" >"$t/want"
	syms "$t/.config" >"$t/got"
	if ! cmp -s "$t/want" "$t/got"; then
		d=$(diff "$t/want" "$t/got" | grep '^[<>]' | head -3 | tr '\n' ' ')
		rm -rf "$t"
		die "$3: olddefconfig on $1 changes the configuration: $d"
	fi
	tog=$(grep -E '^(# )?CONFIG_TRACE_(PREEMPT|IRQFLAGS)(_TOGGLE)?[= ]' "$t/.config" |
		sed -e 's/^# \(CONFIG_[A-Z_]*\) is not set/\1=n/' -e 's/^CONFIG_//' | sort | tr '\n' ' ')
	echo "same-image: $3: olddefconfig on $(basename "$1") leaves the .config's options unchanged; ${tog:-no TRACE_PREEMPT*/TRACE_IRQFLAGS* option}"
	rm -rf "$t"
}

# build_a NAME: WORK/NAME/a, a copy of the cached pristine build, relinked
build_a() {
	from=$(readlink -f "$KC/$1")
	a=$WORK/$1/a
	if [ "$(cat "$a/.same-image-from" 2>/dev/null)" != "$from" ]; then
		rm -rf "$a"
		cp -a "$from" "$a"
		# objtool's build (x86-64; arm64 has none in 6.1) records its
		# absolute output path; every object depends on objtool, so a
		# changed path would rebuild them all
		grep -rl "$from" "$a/tools" 2>/dev/null | while read -r f; do
			t=$(stat -c %y "$f")
			sed -i "s#$from#$a#g" "$f"
			touch -d "$t" "$f"
		done
		echo "$from" >"$a/.same-image-from"
	fi
	kmake "$(srcof "$from")" "$a" -j"$jobs" all >"$a.log" 2>&1 ||
		{ tail -20 "$a.log"; die "$1: the pristine relink failed (log: $a.log)"; }
}

# build_b NAME: WORK/NAME/b, from the patched source with the same .config:
# another copy of the cached pristine build whose recorded commands and
# dependencies name the patched tree, then kbuild; kernel/same-image-reuse.py
# first finds what depends on a file whose content differs between the trees,
# keeps the objects whose translation unit preprocesses to the same tokens
# from both trees and removes every other such target, for kbuild to rebuild
build_b() {
	from=$(readlink -f "$KC/$1")
	p0=$(srcof "$from")
	b=$WORK/$1/b
	if [ "$(cat "$b/.same-image-from" 2>/dev/null)" != "$from $patched" ]; then
		rm -rf "$b"
		cp -a "$from" "$b"
		find "$b" -type f \( -name '.*.cmd' -o -path "$b/Makefile" \
			-o -path "$b/include/config/auto.conf.cmd" \) \
			-exec grep -l -e "$p0" -e "$from" {} + |
			while read -r f; do
			t=$(stat -c %y "$f")
			sed -i -e "s#$p0#$patched#g" -e "s#$from#$b#g" "$f"
			touch -d "$t" "$f"
		done
		ln -sfn "$patched" "$b/source"
		echo "$from $patched" >"$b/.same-image-from"
	fi
	start=$(date +%s)
	# the series' new options, off (they are absent from the .config)
	{ kmake "$patched" "$b" olddefconfig && kmake "$patched" "$b" prepare; } >"$b.log" 2>&1 ||
		{ tail -20 "$b.log"; die "$1: make prepare failed on the patched tree (log: $b.log)"; }
	# once per copy: the objects it keeps are then newer than their sources
	if [ -f "$b/.same-image-reused" ]; then
		echo "same-image: $1: objects sorted by an earlier run ($WORK/$1/reuse.txt)"
	else
		JOBS=$jobs nice -n 19 python3 "$top/kernel/same-image-reuse.py" "$WORK/$1/a" "$b" \
			"$p0" "$patched" >"$WORK/$1/reuse.raw" ||
			die "$1: kernel/same-image-reuse.py failed"
		sed "s/^same-image: /same-image: $1: /" "$WORK/$1/reuse.raw" >"$WORK/$1/reuse.txt"
		grep -v ': differs between the trees: ' "$WORK/$1/reuse.txt" || true
		touch "$b/.same-image-reused"
	fi
	kmake "$patched" "$b" -j"$jobs" all >>"$b.log" 2>&1 ||
		{ tail -20 "$b.log"; die "$1: the patched build failed (log: $b.log)"; }
	echo "same-image: $1: patched build $(fmt_time $(($(date +%s) - start))) (nice 19, -j$jobs; log $b.log)"
}

# selftest VMLINUX: one byte changed in .rodata must be found, in .rodata
selftest() {
	t=$WORK/.selftest
	rm -rf "$t"
	mkdir -p "$t"
	cp "$1" "$t/vmlinux"
	off=$(readelf -SW "$1" | sed -n 's/.* \.rodata  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	[ -n "$off" ] || die "selftest: no .rodata in $1"
	off=$((0x$off + 4096))
	old=$(od -An -tu1 -j "$off" -N1 "$t/vmlinux" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' $(((old + 1) % 256)))" |
		dd of="$t/vmlinux" bs=1 seek="$off" conv=notrunc status=none
	if $cmp_elf "$1" "$t/vmlinux" >"$t/out"; then
		die "selftest: a vmlinux with one byte changed compares as identical"
	fi
	grep -q '^  section \.rodata differs: bytes$' "$t/out" ||
		{ cat "$t/out"; die "selftest: the changed byte is not reported in .rodata"; }
	[ "$(grep -c '^  section' "$t/out")" -eq 1 ] ||
		{ cat "$t/out"; die "selftest: sections other than .rodata reported"; }
	echo "same-image: selftest: one byte changed at file offset $off is reported (.rodata, 1 section)"
	rm -rf "$t"
}

bad=0
tested=0
for n in "$@"; do
	[ -f "$KC/$n/.tracecost-built" ] || die "$KC/$n is not built (make kernels ARCH=$karch KERNELS=$n)"
	pristine=$(srcof "$KC/$n")
	[ ! -f "$pristine/.tracecost-patched" ] || die "$n is built from a patched tree; name a pristine configuration"
	mkdir -p "$WORK/$n"
	config_check "$pristine" "$KC/$n/.config" "$n"
	config_check "$patched" "$KC/$n/.config" "$n"
	build_a "$n"
	if [ "$tested" -eq 0 ]; then
		selftest "$WORK/$n/a/vmlinux"
		tested=1
	fi
	build_b "$n"
	a=$WORK/$n/a b=$WORK/$n/b
	syms "$a/.config" >"$WORK/$n/a.syms"
	syms "$b/.config" >"$WORK/$n/b.syms"
	cmp -s "$WORK/$n/a.syms" "$WORK/$n/b.syms" || die "$n: the two builds' .config differ"
	ok=1
	what=""
	if $cmp_elf "$a/vmlinux" "$b/vmlinux" >"$WORK/$n/vmlinux.cmp"; then
		what="vmlinux $(stat -c %s "$a/vmlinux") bytes"
	else
		ok=0
	fi
	cat "$WORK/$n/vmlinux.cmp"
	for f in "$image" System.map; do
		if cmp -s "$a/$f" "$b/$f"; then
			what="${what:+$what, }$(basename "$f") $(stat -c %s "$a/$f") bytes"
		else
			echo "same-image: $n: $f differs"
			ok=0
		fi
	done
	cmp -s "$a/modules.order" "$b/modules.order" || { echo "same-image: $n: modules.order differs"; ok=0; }
	mods=0
	# shellcheck disable=SC2094
	while read -r m; do
		case "$m" in
		*.o) ko=${m%.o}.ko ;;
		*) ko=$m ;;
		esac
		if $cmp_elf "$a/$ko" "$b/$ko" >"$WORK/$n/module.cmp"; then
			what="${what:+$what, }$(basename "$ko") $(stat -c %s "$a/$ko") bytes"
		else
			cat "$WORK/$n/module.cmp"
			ok=0
		fi
		mods=$((mods + 1))
	done <"$a/modules.order"
	if [ "$ok" -eq 1 ]; then
		echo "same-image: $n: identical with the series applied and both options off ($what; $mods module(s))"
	else
		echo "same-image: $n: DIFFERS (identical: $what; $mods module(s) compared)"
		bad=$((bad + 1))
	fi
done
[ "$bad" -eq 0 ] || { echo "same-image: $bad of $# kernels differ"; exit 1; }
echo "same-image: $# kernel(s) identical"
