#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-ftrace-table: assertions on the files make ftrace-table left in
# BUILD_DIR/ftrace-table/ (kernel/ftrace-table.sh). Counts are instructions
# (QEMU -icount shift=0) or function entries, compared exactly:
#   - each kernel's two boots give identical figures for every workload;
#   - every workload gave a figure on each kernel and a count of fentry
#     sites (> 0: each of them enters the kernel);
#   - the idle function tracer never saves instructions: ftrace >= stock;
#   - the difference per operation and the fentry sites executed agree: at
#     least the site's own instructions per site on the calls and the pipe
#     (every site executes: one 5-byte NOP on x86-64, two instructions on
#     arm64), and no more than FTRACE_MAX_PER_SITE (default: those plus
#     one, what the tracer adds besides its NOPs, found by measurement:
#     doc/seed-table.md);
#   - the --count fentry run counted entries (its result says so);
#   - stock's vmlinux has no patchable sites, ftrace's has some;
#   - the code: functions of the workloads' paths are stock's plus the
#     site at their entry, instruction for instruction.
# ARCH=arm64 (kernel/ftrace-table.sh's): the same on BUILD_DIR/ftrace-table-arm64/
# and KERNEL_CACHE/arm64/, with the cross binutils; a site there is the two
# NOPs of -fpatchable-function-entry=2 (vmlinux holds `nop; nop`, boot
# makes the first `mov x9, x30`: two instructions executed per entry).
# Usage: [ARCH=...] tests/vm/ftrace-table.sh BUILD_DIR KERNEL_CACHE
set -u
table=check-ftrace-table
# shellcheck source=kernel/vm/boot-lib.sh
. "$(dirname "$(readlink -f "$0")")/../../kernel/vm/boot-lib.sh"
seed_arch
if [ "$karch" = riscv ]; then
	echo "check-ftrace-table: ARCH=$ARCH: 6.1's riscv has no function tracer with PREEMPT" \
		"(kernel/configs/arch/riscv/irqsoff.config)" >&2
	exit 2
fi
O=$(readlink -f "$1")
KC=$(readlink -f "$2")$sub
r=$O/ftrace-table$suffix
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
tmpdir
# the instructions a site executes when idle, the syscall entry of getpid
# and the site as the unpatched vmlinux holds it (one line per instruction,
# as insns() prints them)
case $karch in
arm64)
	NOPS=2 getpid_sys=__arm64_sys_getpid site_re='^nop$'
	site_lines=2 ;;
*)
	NOPS=1 getpid_sys=__x64_sys_getpid site_re='^nopl X(%rax,%rax,1)$\|^call <__fentry__>$'
	site_lines=1 ;;
esac
MAX=${FTRACE_MAX_PER_SITE:-$((NOPS + 1))}
# functions of the workloads' paths whose code is compared (getpid, pipe, fs,
# the switch)
FTRACE_FUNCS=${FTRACE_FUNCS:-"$getpid_sys __task_pid_nr_ns ksys_write vfs_write pipe_write
	ksys_read vfs_read pipe_read do_sys_openat2 do_unlinkat try_to_wake_up __schedule"}

# identical figures on both boots, on every architecture (arm64's differed
# until tracecost vm --deterministic passed QEMU -seed: the virt board's
# random rng-seed, doc/seed-table.md, "AArch64 and RISC-V")
for k in stock ftrace; do
	a=$(cat "$r/$k-1.tsv" 2>/dev/null)
	b=$(cat "$r/$k-2.tsv" 2>/dev/null)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "$k: two boots give identical figures ($(echo "$a" | tr '\t\n' '= ' | sed 's/ $//'))"
	else
		not_ok "$k: figures differ between boots: $(paste "$r/$k-1.tsv" "$r/$k-2.tsv" 2>/dev/null |
			awk -F'\t' '$2 != $4 { printf "%s%s %s vs %s", n++ ? ", " : "", $1, $2, $4 }')"
	fi
done

fig() { awk -F'\t' -v m="$2" '$1 == m { print $2 }' "$1" 2>/dev/null; }
for m in getpid pipe "ctxsw 2 procs" "fs 0k create" "fs 0k delete"; do
	s=$(fig "$r/stock-1.tsv" "$m")
	f=$(fig "$r/ftrace-1.tsv" "$m")
	n=$(fig "$r/ftrace-fentry.tsv" "$m")
	desc="$m: stock ${s:-?}, ftrace ${f:-?}, fentry sites ${n:-?} per op"
	if [ -z "$s" ] || [ -z "$f" ] || [ -z "$n" ]; then
		not_ok "$desc: a figure is missing"
		continue
	fi
	# awk for the arithmetic: the figures are means, not always integers
	if awk -v s="$s" -v f="$f" 'BEGIN { exit !(f >= s) }'; then
		ok "$desc: ftrace >= stock"
	else
		not_ok "$desc: ftrace < stock"
	fi
	if awk -v n="$n" 'BEGIN { exit !(n > 0) }'; then
		ok "$desc: sites counted"
	else
		not_ok "$desc: no fentry site counted"
	fi
	case $m in
	getpid | pipe)
		if awk -v s="$s" -v f="$f" -v n="$n" -v x="$MAX" \
			-v p="$NOPS" 'BEGIN { d = f - s; exit !(d >= p * n - 0.5 && d <= x * n + 0.5) }'; then
			ok "$m: difference $(awk -v s="$s" -v f="$f" 'BEGIN { print f - s }') is between $NOPS and $MAX instructions per site ($n)"
		else
			not_ok "$m: difference $(awk -v s="$s" -v f="$f" 'BEGIN { print f - s }') is not between $NOPS and $MAX instructions per site ($n)"
		fi
		;;
	esac
done

if [ "$(jq -r .system.options.count "$r/ftrace-fentry.json" 2>/dev/null)" = fentry ] &&
	grep -q "^count: .*function entries" "$r/ftrace-fentry.txt" 2>/dev/null; then
	ok "the fentry run counted function entries ($(jq -r .system.options.fentry_toggle "$r/ftrace-fentry.json") per reading subtracted)"
else
	not_ok "the fentry run's result does not say it counted function entries"
fi

sites() {
	# shellcheck disable=SC2046 # two words, split on purpose
	set -- $("${cross}nm" "$1" 2>/dev/null | awk '$3 == "__start_mcount_loc" { s = $1 }
		$3 == "__stop_mcount_loc" { e = $1 } END { print s, e }')
	# the low 32 bits: sh arithmetic is signed 64-bit, the section is small
	if [ $# -eq 2 ]; then echo $(((0x${2#????????} - 0x${1#????????}) / 8)); else echo 0; fi
}
s=$(sites "$KC/stock/vmlinux")
f=$(sites "$KC/ftrace/vmlinux")
if [ "$s" -eq 0 ] && [ "$f" -gt 1000 ]; then
	ok "patchable fentry sites: stock $s, ftrace $f"
else
	not_ok "patchable fentry sites: stock $s, ftrace $f (expected 0 and > 1000)"
fi

# A function's instructions without addresses: relative targets and
# rip-relative operands point elsewhere in each vmlinux, symbols stay; the
# comments go (x86-64's start with #, arm64's with //: # there is an
# immediate's).
case $karch in
arm64) comment='s| *//.*||' ;;
*) comment='s/ *#.*//' ;;
esac
insns() {
	"${cross}objdump" -d --no-show-raw-insn --disassemble="$2" "$1" 2>/dev/null |
		awk -v f="<$2>:" 'index($0, f) { on = 1; next } on && /^$/ { exit } on' |
		sed -E 's/^ *[0-9a-f]+:[[:space:]]*//; s/[0-9a-f]{16}//g; s/0x[0-9a-f]+/X/g;
			s/<([^+>]*)(\+[^>]*)?>/<\1>/g; s/[[:space:]]+/ /g; s/ $//' | sed "$comment"
}
# Instruction for instruction: the same mnemonics in the same order once the
# entry's site is dropped (a notrace function, __schedule, has none);
# operands may differ (GCC picks another register here and there).
# arm64: a lone `nop` elsewhere is the assembler's padding before a loop
# head (aligned to 8 bytes), which the 8 bytes of the site move: compared
# without them, their count printed. Not compared there, with the reason:
# do_sys_openat2 (FTRACE_UNCOMPARED), where ftrace's code differs for a
# reason other than its site: stock keeps a value across the call to the
# static build_open_flags() in x7, which -fipa-ra knows the callee leaves
# alone; with -fpatchable-function-entry GCC no longer assumes that (the
# patched entry may call a tracer) and keeps it in a callee-saved register,
# saved and restored: 57 instructions against 58, laid out differently
# (doc/seed-table.md). x86-64's -pg -mfentry loses -fipa-ra too (a test
# compile shows it), but no function of the list changes its mnemonics.
case $karch in
arm64) FTRACE_UNCOMPARED=${FTRACE_UNCOMPARED-do_sys_openat2} pad='^nop$' ;;
*) FTRACE_UNCOMPARED=${FTRACE_UNCOMPARED-} pad='^$' ;;
esac
for fn in $FTRACE_FUNCS; do
	case " $FTRACE_UNCOMPARED " in
	*" $fn "*)
		skip "$fn: not compared on $karch: GCC allocates registers across calls to instrumented functions differently (-fipa-ra, doc/seed-table.md)"
		continue ;;
	esac
	insns "$KC/stock/vmlinux" "$fn" >"$tmp/s"
	insns "$KC/ftrace/vmlinux" "$fn" >"$tmp/f"
	if [ "$(head -"$site_lines" "$tmp/f" | grep -c "$site_re")" -eq "$site_lines" ]; then
		tail -n +$((site_lines + 1)) "$tmp/f" >"$tmp/f2"
		site="after its fentry site"
	else
		cp "$tmp/f" "$tmp/f2"
		site="(no fentry site: notrace)"
	fi
	note=""
	[ "$pad" = '^$' ] ||
		note=", padding nops: $(($(grep -c "$pad" "$tmp/f2") - $(grep -c "$pad" "$tmp/s"))) more"
	cut -d' ' -f1 "$tmp/s" | grep -v "$pad" >"$tmp/sm"
	cut -d' ' -f1 "$tmp/f2" | grep -v "$pad" >"$tmp/fm"
	ops=$(diff "$tmp/s" "$tmp/f2" | grep -c '^<')
	if [ ! -s "$tmp/s" ]; then
		not_ok "$fn: not in stock's vmlinux"
	elif cmp -s "$tmp/sm" "$tmp/fm"; then
		ok "$fn: ftrace's code is stock's, $(wc -l <"$tmp/s") instructions, $site ($ops with other operands$note)"
	else
		not_ok "$fn: ftrace's code is not stock's $site ($(diff "$tmp/sm" "$tmp/fm" | grep -c '^[<>]') mnemonics differ)"
	fi
done

# shellcheck disable=SC2046 # empty or one word
summary "check-ftrace-table${sub:+-$karch}" $([ "$skipped" -gt 0 ] && echo skipped)
