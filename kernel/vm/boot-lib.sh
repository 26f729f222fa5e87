# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2154,SC2034
#
# kernel/vm/boot-lib.sh: the deterministic boots of the tables from source
# (kernel/seed-table.sh, kernel/ftrace-table.sh), sourced after setting
# tc (the host's tracecost), KC (the kernel cache, kernels by NAME), out
# (the results' directory), table (the script's name for its lines) and
# die().
#
#   seed_arch                   the architecture of $ARCH (default x86_64;
#                               arm64 or aarch64, riscv or riscv64): sets
#                               karch (kbuild's name), vmarch (tracecost
#                               vm's --arch), image (the boot image in a
#                               kbuild tree), sub (the kernels' directory
#                               under a cache: "", /arm64, /riscv), cross
#                               (the cross prefix of binutils), suffix ("",
#                               -arm64, -riscv: the results' directory; then
#                               -KERNEL for a KERNEL other than 6.1, so that
#                               6.12's tables never overwrite 6.1's) and
#                               static (where the tracecost-static that vm
#                               --deterministic packs is, appended to the
#                               build directory: /tracecost-static,
#                               -arm64-pmc/tracecost-static,
#                               -riscv64-instret/tracecost-static); any
#                               other ARCH: one line, exit 2
#   kernels_present NAME...     die unless each NAME's boot image is in KC
#   vm NAME TAG RUN-ARGS...     boot NAME with `tracecost vm --deterministic`
#                               and run `tracecost run RUN-ARGS` inside:
#                               out/NAME-TAG.json, .txt and .console; die
#                               on failure; the boot's seconds on stderr
#
# Without seed_arch the boots are x86-64's (every script calls it now: seed-table,
# ftrace-table and their checks).

seed_arch() {
	case "${ARCH:-x86_64}" in
	x86_64 | x86 | amd64)
		karch=x86_64 vmarch=x86_64 image=arch/x86/boot/bzImage sub="" cross="" suffix=""
		static=/tracecost-static ;;
	arm64 | aarch64)
		karch=arm64 vmarch=arm64 image=arch/arm64/boot/Image sub=/arm64
		cross=aarch64-linux-gnu- suffix=-arm64 static=-arm64-pmc/tracecost-static ;;
	riscv | riscv64)
		karch=riscv vmarch=riscv64 image=arch/riscv/boot/Image sub=/riscv
		cross=riscv64-linux-gnu- suffix=-riscv static=-riscv64-instret/tracecost-static ;;
	*)
		echo "$table: ARCH=$ARCH is not x86_64, arm64 (aarch64) or riscv (riscv64)" >&2
		exit 2 ;;
	esac
	case "${KERNEL:-6.1}" in
	6.1) ;;
	*) suffix=$suffix-$KERNEL ;;
	esac
}

kernels_present() {
	for _k in "$@"; do
		[ -r "$KC/$_k/${image:-arch/x86/boot/bzImage}" ] ||
			die "$KC/$_k/${image:-arch/x86/boot/bzImage} is missing (make kernels ${sub:+ARCH=$karch }KERNELS=$_k)"
	done
}

vm() {
	_k=$1 _tag=$2
	shift 2
	_t0=$(date +%s)
	if ! "$tc" vm --arch "${vmarch:-x86_64}" --kernel "$KC/$_k/${image:-arch/x86/boot/bzImage}" \
		--build "$KC/$_k" --deterministic \
		--name "$_k" --timeout 900 --json "$out/$_k-$_tag.json" \
		--console "$out/$_k-$_tag.console" -- run "$@" >"$out/$_k-$_tag.txt"; then
		die "$_k ($_tag) failed; console: $out/$_k-$_tag.console"
	fi
	echo "$table: $_k $_tag: $(($(date +%s) - _t0)) s" >&2
}
