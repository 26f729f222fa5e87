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
#     least one instruction per site on the calls and the pipe (every site
#     is a NOP that executes), and no more than FTRACE_MAX_PER_SITE (what
#     the tracer adds besides its NOPs, found by measurement:
#     doc/seed-table.md);
#   - the --count fentry run counted entries (its result says so);
#   - stock's vmlinux has no patchable sites, ftrace's has some;
#   - the code: functions of the workloads' paths are stock's plus the
#     5-byte NOP at their entry, instruction for instruction.
# Usage: tests/vm/ftrace-table.sh BUILD_DIR KERNEL_CACHE
set -u
O=$(readlink -f "$1")
KC=$(readlink -f "$2")
r=$O/ftrace-table
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
tmpdir
MAX=${FTRACE_MAX_PER_SITE:-2}
# functions of the workloads' paths whose code is compared (getpid, pipe, fs,
# the switch)
FTRACE_FUNCS=${FTRACE_FUNCS:-"__x64_sys_getpid __task_pid_nr_ns ksys_write vfs_write pipe_write
	ksys_read vfs_read pipe_read do_sys_openat2 do_unlinkat try_to_wake_up __schedule"}

for k in stock ftrace; do
	a=$(cat "$r/$k-1.tsv" 2>/dev/null)
	b=$(cat "$r/$k-2.tsv" 2>/dev/null)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "$k: two boots give identical figures ($(echo "$a" | tr '\t\n' '= ' | sed 's/ $//'))"
	else
		not_ok "$k: figures differ between boots: '$a' vs '$b'"
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
			'BEGIN { d = f - s; exit !(d >= n - 0.5 && d <= x * n + 0.5) }'; then
			ok "$m: difference $(awk -v s="$s" -v f="$f" 'BEGIN { print f - s }') is between 1 and $MAX instructions per site ($n)"
		else
			not_ok "$m: difference $(awk -v s="$s" -v f="$f" 'BEGIN { print f - s }') is not between 1 and $MAX instructions per site ($n)"
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
	set -- $(nm "$1" 2>/dev/null | awk '$3 == "__start_mcount_loc" { s = $1 }
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
# rip-relative operands point elsewhere in each vmlinux, symbols stay.
insns() {
	objdump -d --no-show-raw-insn --disassemble="$2" "$1" 2>/dev/null |
		awk -v f="<$2>:" 'index($0, f) { on = 1; next } on && /^$/ { exit } on' |
		sed -E 's/^ *[0-9a-f]+:[[:space:]]*//; s/[0-9a-f]{16}//g; s/0x[0-9a-f]+/X/g;
			s/<([^+>]*)(\+[^>]*)?>/<\1>/g; s/[[:space:]]+/ /g; s/ *#.*//'
}
# Instruction for instruction: the same mnemonics in the same order once the
# entry's fentry site is dropped (a notrace function, __schedule, has none);
# operands may differ (GCC picks another register here and there).
for fn in $FTRACE_FUNCS; do
	insns "$KC/stock/vmlinux" "$fn" >"$tmp/s"
	insns "$KC/ftrace/vmlinux" "$fn" >"$tmp/f"
	first=$(head -1 "$tmp/f")
	if echo "$first" | grep -q '^nopl X(%rax,%rax,1)$\|^call <__fentry__>$'; then
		tail -n +2 "$tmp/f" >"$tmp/f2"
		site="after its fentry site"
	else
		cp "$tmp/f" "$tmp/f2"
		site="(no fentry site: notrace)"
	fi
	cut -d' ' -f1 "$tmp/s" >"$tmp/sm"
	cut -d' ' -f1 "$tmp/f2" >"$tmp/fm"
	ops=$(diff "$tmp/s" "$tmp/f2" | grep -c '^<')
	if [ ! -s "$tmp/s" ]; then
		not_ok "$fn: not in stock's vmlinux"
	elif cmp -s "$tmp/sm" "$tmp/fm"; then
		ok "$fn: ftrace's code is stock's, $(wc -l <"$tmp/s") instructions, $site ($ops with other operands)"
	else
		not_ok "$fn: ftrace's code is not stock's $site ($(diff "$tmp/sm" "$tmp/fm" | grep -c '^[<>]') mnemonics differ)"
	fi
done

summary check-ftrace-table
