#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/build.sh: the one kernel-build path of the project (make kernels).
#
#   kernel/build.sh NAME...      build kernel/configs/NAME.config for each NAME
#   ARCH=arm64 kernel/build.sh NAME...   the same for another architecture
#                                        (arm64; riscv, the RV64 kernel; arm,
#                                        ARMv7; mips, MIPS32r2 SMP: the last
#                                        two are built, not booted)
#   KERNEL=6.12 kernel/build.sh NAME...  the same on another kernel base
#   kernel/build.sh --hash NAME...       print "NAME HASH BASE" for each NAME
#                                        (the cache directory NAME-HASH it
#                                        would build), nothing else: no
#                                        unpacking, no lock, no build
#
# KERNEL picks the base: 6.1 (the default) is Debian's linux-source-6.1
# (/usr/src/linux-source-6.1.tar.xz), 6.12 Debian's linux-source-6.12
# (/usr/src/linux-source-6.12.tar.xz, bookworm-security). Each NAME is built
# as ARCH's tinyconfig (or the BASE its fragment names, below) +
# kernel/configs/base.config +
# kernel/configs/arch/ARCH.config + kernel/configs/version/KERNEL.config and
# kernel/configs/version/KERNEL-ARCH.config (if there are: the lines that must
# differ on that base, for every architecture or for one; none for 6.1) +
# kernel/configs/NAME.config + kernel/configs/arch/ARCH/NAME.config (if
# there is one: what NAME cannot have on that architecture, e.g. riscv's
# irqsoff without the function tracer), with kbuild's O= into
#
#   $KERNEL_STORE/NAME-HASH12/     .config, vmlinux, the boot image
#                                  (arch/x86/boot/bzImage, arch/arm64/boot/Image,
#                                  arch/riscv/boot/Image, arch/arm/boot/zImage,
#                                  vmlinux for mips),
#                                  Module.symvers, build.log
#   $KERNEL_CACHE/NAME-HASH12      symlink to it (when the two differ)
#   $KERNEL_CACHE/NAME             symlink to NAME-HASH12
#
# The store, KERNEL_STORE, is where the trees are built and kept: outside
# the checkout by default ($XDG_CACHE_HOME/tracecost/kernels, else
# ~/.cache/tracecost/kernels), so that every checkout on the machine (a
# clean clone for CI, a worktree) reuses a build whose hash it computes
# instead of building it again; KERNEL_CACHE is this checkout's view of it,
# links only, each checkout pointing NAME at its own hash. A KERNEL_CACHE
# given without KERNEL_STORE is its own store (the trees in it, as before
# the store existed); a tree already built inside KERNEL_CACHE itself is
# used where it is.
#
# for ARCH x86_64 (the default) and KERNEL 6.1, into $KERNEL_CACHE/ARCH/ for
# the other architectures (arm64 with Debian's aarch64-linux-gnu- cross
# compiler, riscv with its riscv64-linux-gnu- one, arm with
# arm-linux-gnueabihf-, mips with mips-linux-gnu-), and into
# $KERNEL_CACHE/KERNEL/ (and $KERNEL_CACHE/KERNEL/ARCH/) for another base,
# so that 6.1 and 6.12 kernels never share a name; then
# `make -C DIR/NAME M=/abs/kmod modules` builds a module against it (add
# ARCH= and CROSS_COMPILE= for another architecture). HASH covers the
# architecture, the linux-source package version, the compiler, base.config,
# the architecture's fragment, the base's fragment, NAME.config, its
# architecture override, the patches NAME.config names and this script; a
# directory whose hash is unchanged and
# whose build finished is reused.
#
# A fragment may name a patch series with a line
#   # tracecost-patches: DIR
# DIR is kernel/patches/DIR/: its `series` file (one patch per line, # comments)
# if there is one, otherwise its *.patch in sorted order, applied with patch -p1
# to a copy of the source of its own; configurations without the line share
# one pristine tree. Source trees live in $KERNEL_CACHE/src/. A DIR that is
# a kernel version (digits and dots, as `# tracecost-patches: 6.1`) names our
# series by the base it was written for: with KERNEL=V the series applied is
# kernel/patches/V/, the same series on that base (so one fragment serves
# every base, and a base without its port fails naming the directory).
#
# A fragment may name the configuration it starts from with a line
#   # tracecost-base: BASE
# BASE is tinyconfig (what a fragment without the line starts from) or
# defconfig (`make defconfig`: the architecture's own defconfig, on x86_64
# arch/x86/configs/x86_64_defconfig, a distribution-sized kernel); base.config,
# the arch and version fragments and NAME.config apply on top of it alike.
# BASE is part of the hash and of the build log's "== ..." line; any other
# BASE is refused (one line, exit 2) before any work, as a bad NAME is.
#
# Every option a fragment sets must survive `make olddefconfig`, otherwise the
# build fails naming the option (a typo or an unmet dependency).
#
# Environment: ARCH (x86_64, arm64, riscv, arm or mips; default x86_64), KERNEL (6.1 or
# 6.12; default 6.1), KERNEL_CACHE (default build/kernels), KERNEL_STORE
# (default: KERNEL_CACHE if that is set, else the directory above), V=1 (show the
# kernel's commands), W (kbuild's extra warnings, W=1; a build of its own),
# JOBS (default: nproc). The store is locked with flock, so two
# callers (two checkouts too) wait for each other instead of colliding.
set -eu -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cfgdir=$top/kernel/configs
kernel=${KERNEL:-6.1}
case "$kernel" in
6.1|6.12) ;;
*)	echo "kernels: KERNEL=$kernel is not 6.1 or 6.12" >&2; exit 2 ;;
esac
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-$kernel.tar.xz}
cache=${KERNEL_CACHE:-$top/build/kernels}
if [ -n "${KERNEL_STORE:-}" ]; then
	store=$KERNEL_STORE
elif [ -n "${KERNEL_CACHE:-}" ]; then
	store=$KERNEL_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	store=$XDG_CACHE_HOME/tracecost/kernels
elif [ -n "${HOME:-}" ] && [ "$HOME" != / ]; then
	store=$HOME/.cache/tracecost/kernels
else
	store=$cache
fi
jobs=${JOBS:-$(nproc)}
verbose=${V:-0}
# kbuild's extra warnings (W=1, W=12...): part of the hash, so such a build
# has its own directory and its build.log keeps the warnings
extra_warn=${W:-}
case "$extra_warn" in
""|[123]|[123][123]|123) ;;
*)	echo "kernels: W=$extra_warn is not kbuild's W (1, 2, 3 or a combination)" >&2; exit 2 ;;
esac

die() { echo "kernels: $*" >&2; exit 1; }
# bad input: one line, exit 2, before any work
bad() { echo "kernels: $*" >&2; exit 2; }

# the architecture: kbuild's name, the cross compiler, the boot image
case "${ARCH:-x86_64}" in
x86_64|x86|amd64)
	karch=x86_64 cross="" image=arch/x86/boot/bzImage sub="" ;;
arm64|aarch64)
	karch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image sub=/arm64 ;;
riscv|riscv64)
	karch=riscv cross=riscv64-linux-gnu- image=arch/riscv/boot/Image sub=/riscv ;;
arm|armhf)
	karch=arm cross=arm-linux-gnueabihf- image=arch/arm/boot/zImage sub=/arm ;;
mips)
	karch=mips cross=mips-linux-gnu- image=vmlinux sub=/mips ;;
*)	bad "ARCH=$ARCH is not x86_64, arm64, riscv, arm or mips" ;;
esac
archfrag=$cfgdir/arch/$karch.config
# the base's own fragment (none for 6.1) and its directory in the cache
verfrag=""
[ -r "$cfgdir/version/$kernel.config" ] && verfrag=$cfgdir/version/$kernel.config
[ -r "$cfgdir/version/$kernel-$karch.config" ] &&
	verfrag="$verfrag $cfgdir/version/$kernel-$karch.config"
kdir=""
[ "$kernel" = 6.1 ] || kdir=/$kernel

# base_of FRAGMENT: the BASE of its "# tracecost-base: BASE" line, or tinyconfig
base_of() {
	b=$(sed -n 's/^# tracecost-base:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$1" | tail -n 1)
	echo "${b:-tinyconfig}"
}

hash_only=0
if [ "${1:-}" = --hash ]; then
	hash_only=1
	shift
fi
[ $# -gt 0 ] || bad "usage: kernel/build.sh [--hash] NAME... (configurations in kernel/configs/)"
for name in "$@"; do
	case "$name" in
	base) bad "base is the fragment every configuration shares, not a configuration" ;;
	*[!A-Za-z0-9_-]*|"") bad "bad configuration name '$name'" ;;
	esac
	[ -r "$cfgdir/$name.config" ] || bad "no configuration '$name' (kernel/configs/$name.config)"
	case "$(base_of "$cfgdir/$name.config")" in
	tinyconfig|defconfig) ;;
	*) bad "$name.config: tracecost-base '$(base_of "$cfgdir/$name.config")' is not tinyconfig or defconfig" ;;
	esac
done
[ -r "$tarball" ] || die "$tarball is missing (make deps-kernels KERNEL=$kernel installs linux-source-$kernel)"
tools="flex bison bc gcc make xz"
[ "$hash_only" = 0 ] || tools=gcc
for tool in $tools; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (make deps-kernels)"
done
[ -z "$cross" ] || command -v "${cross}gcc" >/dev/null 2>&1 ||
	die "${cross}gcc is missing (make deps-kernels-$karch)"

srcver=$(dpkg-query -W -f='${Version}' "linux-source-$kernel" 2>/dev/null || true)
[ -n "$srcver" ] || srcver=$(stat -c '%s-%Y' "$tarball")
ccver=$("${cross}gcc" --version | head -n 1)

# patch_dir FRAGMENT: the DIR of its "# tracecost-patches: DIR" line, or
# nothing; a version DIR is our series, on this base: $kernel
patch_dir() {
	d=$(sed -n 's/^# tracecost-patches:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$1" | tail -n 1)
	case "$d" in
	""|*[!0-9.]*) echo "$d" ;;
	*) echo "$kernel" ;;
	esac
}

# patch_list DIR: the patches of kernel/patches/DIR, in the order they apply
patch_list() {
	d=$top/kernel/patches/$1
	if [ -f "$d/series" ]; then
		sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$d/series" | while read -r p; do
			echo "$d/$p"
		done
	else
		for p in "$d"/*.patch; do
			[ -e "$p" ] && echo "$p"
		done
	fi
	return 0
}

# ovfrag_of NAME: NAME's override for this architecture (applied last), or nothing
ovfrag_of() {
	if [ -r "$cfgdir/arch/$karch/$1.config" ]; then echo "$cfgdir/arch/$karch/$1.config"; fi
}

# kernel_hash NAME: the 12 hex digits naming NAME's build in the cache: the
# architecture, the base, the source version, the compiler, W, every
# fragment, the patches and this script
kernel_hash() {
	f=$cfgdir/$1.config
	d=$(patch_dir "$f")
	l=""
	[ -n "$d" ] && l=$(patch_list "$d")
	# shellcheck disable=SC2046,SC2086
	(echo "arch $karch"; echo "base $(base_of "$f")"; echo "linux-source $srcver"; echo "$ccver"; \
		[ -z "$extra_warn" ] || echo "W=$extra_warn"; \
		cat "$cfgdir/base.config" "$archfrag" $verfrag "$f" $(ovfrag_of "$1") $l "$top/kernel/build.sh") |
		sha256sum | cut -c1-12
}

# --hash: "NAME HASH BASE" per NAME, nothing built, unpacked or locked
if [ "$hash_only" = 1 ]; then
	for name in "$@"; do
		echo "$name $(kernel_hash "$name") $(base_of "$cfgdir/$name.config")"
	done
	exit 0
fi

mkdir -p "$cache" "$store/src"
cache=$(cd "$cache" && pwd)
store=$(cd "$store" && pwd)
exec 9>"$store/.lock"
if ! flock -n 9; then
	echo "kernels: waiting for another build in $store"
	flock 9
fi
# the view's src/ (kernel/checkpatch.sh finds the pristine tree there)
[ "$store" = "$cache" ] || [ -e "$cache/src" ] || ln -s "$store/src" "$cache/src"

# pristine: unpack the source once
pristine=$store/src/linux-$srcver
if [ ! -f "$pristine/.tracecost-unpacked" ]; then
	echo "kernels: unpacking $(basename "$tarball") ($srcver)"
	rm -rf "$pristine" "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	tar -xJf "$tarball" -C "$pristine.tmp" --strip-components=1
	touch "$pristine.tmp/.tracecost-unpacked"
	mv "$pristine.tmp" "$pristine"
fi

# source_tree FRAGMENT: print the source tree for it (patched copy if it names patches)
source_tree() {
	pd=$(patch_dir "$1")
	if [ -z "$pd" ]; then
		echo "$pristine"
		return 0
	fi
	[ -d "$top/kernel/patches/$pd" ] || die "$(basename "$1"): kernel/patches/$pd does not exist"
	plist=$(patch_list "$pd")
	[ -n "$plist" ] || die "kernel/patches/$pd has no patches"
	# shellcheck disable=SC2086
	ph=$( (echo "$srcver"; cat $plist) | sha256sum | cut -c1-12)
	tree=$store/src/$pd-$ph
	if [ ! -f "$tree/.tracecost-patched" ]; then
		echo "kernels: patching a copy of the source with kernel/patches/$pd" >&2
		rm -rf "$tree" "$tree.tmp"
		# the tree's contents, also when $pristine is a symlink to one
		mkdir "$tree.tmp"
		cp -a "$pristine/." "$tree.tmp"
		for p in $plist; do
			if ! patch -p1 -s -d "$tree.tmp" <"$p" >"$tree.tmp/.patch.log" 2>&1; then
				cat "$tree.tmp/.patch.log" >&2
				rm -rf "$tree.tmp"
				die "$p does not apply to linux-source $srcver"
			fi
		done
		touch "$tree.tmp/.tracecost-patched"
		mv "$tree.tmp" "$tree"
	fi
	echo "$tree"
}

# expect FRAGMENT...: "SYMBOL VALUE" per option, the last assignment winning;
# VALUE is "n" for "# CONFIG_X is not set"
expect() {
	awk '
	/^CONFIG_[A-Za-z0-9_]+=/ {
		i = index($0, "="); s = substr($0, 1, i - 1); v = substr($0, i + 1)
		if (!(s in val)) order[++n] = s
		val[s] = v; next
	}
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
		s = $2
		if (!(s in val)) order[++n] = s
		val[s] = "n"; next
	}
	/^[[:space:]]*$/ || /^#/ { next }
	{ printf "kernels: %s:%d: not a config line: %s\n", FILENAME, FNR, $0 > "/dev/stderr"; bad = 1 }
	END { for (k = 1; k <= n; k++) print order[k], val[order[k]]; exit bad }
	' "$@"
}

fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# link_view: this checkout's names for $out: $view/NAME-HASH (when $out is
# in the store) and $view/NAME, pointing at the hash this checkout computed
link_view() {
	[ "$out" = "$view/$name-$hash" ] || ln -sfn "$out" "$view/$name-$hash"
	ln -sfn "$name-$hash" "$view/$name"
}

rc=0
for name in "$@"; do
	frag=$cfgdir/$name.config
	kbase=$(base_of "$frag")
	ovfrag=$(ovfrag_of "$name")
	src=$(source_tree "$frag") || exit 1
	hash=$(kernel_hash "$name")
	view=$cache$kdir$sub
	out=$store$kdir$sub/$name-$hash
	# a tree built inside the view itself (before it had a store) stays there
	[ ! -d "$view/$name-$hash" ] || [ -L "$view/$name-$hash" ] || out=$view/$name-$hash
	mkdir -p "$view" "$out"
	if [ -f "$out/.tracecost-built" ] && [ -r "$out/$image" ]; then
		link_view
		echo "kernels: $karch $kernel $name cached ($hash)"
		continue
	fi
	log=$out/build.log
	start=$(date +%s)
	want=$out/.tracecost-expect
	# shellcheck disable=SC2086
	expect "$cfgdir/base.config" "$archfrag" $verfrag "$frag" $ovfrag >"$want" || die "$name: bad config fragment"
	kmake() { make -C "$src" O="$out" ARCH=$karch CROSS_COMPILE=$cross V="$verbose" W="$extra_warn" "$@"; }
	(
		set -e
		echo "== $karch $kernel $kbase + base.config + arch/$karch.config$(for f in $verfrag; do printf ' + version/%s' "${f##*/}"; done) + $name.config${ovfrag:+ + arch/$karch/$name.config}${extra_warn:+ W=$extra_warn} ($src)"
		kmake "$kbase"
		# apply the fragments: drop every symbol they set, then append their values
		awk '{ print $1 }' "$want" >"$out/.tracecost-syms"
		grep -v -E "^(# )?($(paste -sd'|' "$out/.tracecost-syms"))[= ]" "$out/.config" >"$out/.config.new" || true
		awk '{ if ($2 == "n") print "# " $1 " is not set"; else print $1 "=" $2 }' "$want" \
			>>"$out/.config.new"
		mv "$out/.config.new" "$out/.config"
		kmake olddefconfig
	) >"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		die "$name: configuration failed (full log: $log)"
	}
	lost=""
	while read -r sym val; do
		now=$(sed -n "s/^$sym=//p" "$out/.config")
		if [ "$val" = n ]; then
			if [ -n "$now" ]; then lost="$lost $sym=n(is $now)"; fi
		elif [ "$now" != "$val" ]; then
			lost="$lost $sym=$val(is ${now:-not set})"
		fi
	done <"$want"
	if [ -n "$lost" ]; then
		echo "kernels: $name: options that did not survive olddefconfig (typo or unmet dependency):$lost" >&2
		rc=1
		continue
	fi
	if [ "$verbose" = 1 ]; then
		ok=0
		if ! kmake -j"$jobs" all 2>&1 | tee -a "$log"; then ok=1; fi
	else
		ok=0
		if ! kmake -j"$jobs" all >>"$log" 2>&1; then ok=1; fi
	fi
	end=$(date +%s)
	if [ "$ok" -ne 0 ] || [ ! -r "$out/$image" ] || [ ! -r "$out/Module.symvers" ]; then
		tail -n 40 "$log" >&2
		echo "kernels: $karch $kernel $name FAILED after $(fmt_time $((end - start))) (full log: $log)" >&2
		rc=1
		continue
	fi
	touch "$out/.tracecost-built"
	link_view
	echo "kernels: $karch $kernel $name built in $(fmt_time $((end - start))) ($hash, $view/$name)"
done
exit $rc
