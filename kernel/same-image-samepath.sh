#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/same-image-samepath.sh WORKDIR NAME: after kernel/same-image.sh
# KERNEL_CACHE WORKDIR NAME (x86-64), build the patched kernel a second way,
# WORKDIR/NAME/c, in which the patched source is seen at the pristine
# tree's own path: in a private mount namespace the patched tree is
# bind-mounted over the pristine one, so the compiler is given the same
# file names as for the pristine build. kernel/same-image.sh's patched
# build names the patched tree's path, which kbuild maps out of __FILE__
# but which KASAN's descriptors of global variables record as the source
# location of each global (absolute paths in .rodata): in a KASAN
# configuration every recompiled object differs from the pristine one in
# those strings, and the merged string sections of vmlinux are laid out
# differently from there on. Here only what the series changes can differ.
#
# WORKDIR/NAME/c is a copy of the relinked pristine build WORKDIR/NAME/a;
# kernel/same-image-reuse.py sorts its objects as for WORKDIR/NAME/b (the
# pristine tree reached through a second bind mount for the comparison),
# kbuild recompiles the others and links; vmlinux, bzImage, System.map and
# the modules are compared with WORKDIR/NAME/a's. Needs root (mount
# namespaces). Environment: JOBS (default nproc). Exit 0 if identical, 1 if
# they differ or a step fails, 2 on bad arguments.
set -eu
die() { echo "same-image-samepath: $*" >&2; exit 1; }
[ $# -eq 2 ] || { echo "usage: kernel/same-image-samepath.sh WORKDIR NAME" >&2; exit 2; }
case "$2" in
*[!A-Za-z0-9_-]*|"") echo "same-image-samepath: bad configuration name '$2'" >&2; exit 2 ;;
esac
[ -f "$1/$2/b/.same-image-from" ] ||
	{ echo "same-image-samepath: $1/$2 is not a kernel/same-image.sh work directory" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
W=$(readlink -f "$1")/$2
a=$W/a c=$W/c
command -v unshare >/dev/null 2>&1 || die "unshare is missing (util-linux)"
srcof() { sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile" | head -n 1; }
p0=$(srcof "$a")
patched=$(cut -d' ' -f2 "$W/b/.same-image-from")
[ -f "$patched/.tracecost-patched" ] || die "$patched is not a patched tree"
jobs=${JOBS:-$(nproc)}
KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 1970"
KBUILD_BUILD_USER=tracecost
KBUILD_BUILD_HOST=tracecost
KBUILD_BUILD_VERSION=1
export KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST KBUILD_BUILD_VERSION

start=$(date +%s)
rm -rf "$c"
cp -a "$a" "$c"
# objtool's recorded output path, as kernel/same-image.sh's build_a
grep -rl "$a" "$c/tools" 2>/dev/null | while read -r f; do
	t=$(stat -c %y "$f")
	sed -i "s#$a#$c#g" "$f"
	touch -d "$t" "$f"
done
alt=$(mktemp -d /tmp/same-image-pristine.XXXXXX)
# shellcheck disable=SC2016
unshare -m --propagation private sh -eu -c '
	p0=$1 patched=$2 alt=$3 a=$4 c=$5 top=$6 jobs=$7
	mount --bind "$p0" "$alt"
	mount --bind "$patched" "$p0"
	kmake() { nice -n 19 make -C "$p0" O="$c" ARCH=x86_64 "$@"; }
	{ kmake olddefconfig && kmake prepare; } >"$c.log" 2>&1
	JOBS=$jobs nice -n 19 python3 "$top/kernel/same-image-reuse.py" "$a" "$c" "$alt" "$p0" >"$c.reuse"
	kmake -j"$jobs" all >>"$c.log" 2>&1
' same-image-samepath "$p0" "$patched" "$alt" "$a" "$c" "$top" "$jobs" ||
	{ rmdir "$alt"; tail -20 "$c.log"; die "$2: the build in the mount namespace failed (log: $c.log)"; }
rmdir "$alt"
grep -v ': differs between the trees: ' "$c.reuse" | sed "s/^same-image: /same-image-samepath: $2: /"
echo "same-image-samepath: $2: patched build at the pristine path $(($(date +%s) - start)) s (nice 19, -j$jobs; log $c.log)"
ok=1
python3 "$top/kernel/same-image-cmp.py" "$a/vmlinux" "$c/vmlinux" || ok=0
for f in arch/x86/boot/bzImage System.map; do
	cmp -s "$a/$f" "$c/$f" || { echo "same-image-samepath: $2: $f differs"; ok=0; }
done
while read -r m; do
	case "$m" in
	*.o) ko=${m%.o}.ko ;;
	*) ko=$m ;;
	esac
	python3 "$top/kernel/same-image-cmp.py" "$a/$ko" "$c/$ko" || ok=0
done <"$a/modules.order"
[ "$ok" -eq 1 ] || { echo "same-image-samepath: $2: DIFFERS"; exit 1; }
echo "same-image-samepath: $2: identical"
