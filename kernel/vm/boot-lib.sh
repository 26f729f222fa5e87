# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2154
#
# kernel/vm/boot-lib.sh: the deterministic boots of the tables from source
# (kernel/seed-table.sh, kernel/ftrace-table.sh), sourced after setting
# tc (the host's tracecost), KC (the kernel cache, kernels by NAME), out
# (the results' directory), table (the script's name for its lines) and
# die().
#
#   kernels_present NAME...     die unless each NAME's bzImage is in KC
#   vm NAME TAG RUN-ARGS...     boot NAME with `tracecost vm --deterministic`
#                               and run `tracecost run RUN-ARGS` inside:
#                               out/NAME-TAG.json, .txt and .console; die
#                               on failure; the boot's seconds on stderr

kernels_present() {
	for _k in "$@"; do
		[ -r "$KC/$_k/arch/x86/boot/bzImage" ] ||
			die "$KC/$_k/arch/x86/boot/bzImage is missing (make kernels KERNELS=$_k)"
	done
}

vm() {
	_k=$1 _tag=$2
	shift 2
	_t0=$(date +%s)
	if ! "$tc" vm --kernel "$KC/$_k/arch/x86/boot/bzImage" --build "$KC/$_k" --deterministic \
		--name "$_k" --timeout 900 --json "$out/$_k-$_tag.json" \
		--console "$out/$_k-$_tag.console" -- run "$@" >"$out/$_k-$_tag.txt"; then
		die "$_k ($_tag) failed; console: $out/$_k-$_tag.console"
	fi
	echo "$table: $_k $_tag: $(($(date +%s) - _t0)) s" >&2
}
