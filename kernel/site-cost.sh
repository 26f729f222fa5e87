#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What one preempt/irq toggle site costs in bytes and instructions, and
# whether the sites add up to the growth of the whole vmlinux (x86-64).
#
#   kernel/site-cost.sh KERNEL_CACHE [STOCK [PATCHED]]    (stock preemptirq)
#
# 1. Per site: kernel/site-cost/tc_sites.c (one toggle per function, between
#    two calls of tc_site_mark()) is built as a module against both kernel
#    trees; for each toggle it prints
#      - the fall-through path: the instructions and bytes between the two
#        calls, conditional jumps not taken, unconditional jumps followed
#        (the path a site runs while the events are off);
#      - out-of-line bytes: the function's size (nm -S) minus the bytes of
#        its path from the entry through the return that path reaches
#        (what the compiler placed after the return: the tracing block, and
#        stock's own preempt_schedule call);
#      - jump-table entries and bytes: relocations of __jump_table that
#        point into the function, 16 bytes each on x86-64 (code and target
#        as 32-bit offsets, the key as a 64-bit offset: JUMP_TABLE_ENTRY in
#        arch/x86/include/asm/jump_label.h).
# 2. In the whole PATCHED vmlinux: every __jump_table entry whose key is one
#    of the four preemptirq tracepoints, its site classified by the key and
#    its neighbour (local_irq_disable() is NOP; cli, local_irq_save() cli;
#    NOP, local_irq_enable() NOP; sti, local_irq_restore() NOP; test), the
#    NOP's bytes and the bytes of its out-of-line block (from the entry's
#    target up to and including the first unconditional jmp or ret), summed
#    per kind; then text and data growth against STOCK (size -B) beside
#    those sums and the new functions' sizes. The remainder is what the
#    sites changed elsewhere (inlining and layout decisions).
# Needs both trees built (make kernels KERNELS="stock preemptirq").
set -eu
KC=$(readlink -f "$1")
A=${2:-stock}
B=${3:-preemptirq}
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "site-cost: $*" >&2; exit 1; }
for k in "$A" "$B"; do
	[ -r "$KC/$k/vmlinux" ] && [ -r "$KC/$k/Module.symvers" ] ||
		die "$KC/$k is not a built kernel tree (make kernels KERNELS=$k)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

HEX='function hex(s,  i, v) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }'

# site FUNCTION FSIZE < objdump -dr: "insns bytes main_bytes" of the
# fall-through path between the two tc_site_mark calls, and of the whole
# path from the entry through its return
site() {
	awk -v fn="<$1>:" -v fsize="$2" "$HEX"'
	BEGIN { n = 0 }
	$2 == fn { on = 1; next }
	on && /^$/ { on = 0 }
	on && $2 ~ /^R_/ {
		# a relocation (objdump -dr): the call it belongs to is a mark
		if ($3 ~ /^tc_site_mark[-+]/) mark[n - 1] = 1
		next
	}
	on && /^ *[0-9a-f]+:/ {
		a = hex(substr($1, 1, length($1) - 1))
		if (n == 0) first = a
		addr[n] = a; op[n] = $2; line[n] = $0; idx[a] = n; n++
	}
	END {
		for (i = 0; i < n; i++)
			len[i] = (i + 1 < n ? addr[i + 1] : first + fsize) - addr[i]
		marks = 0; i = 0; guard = 0
		while (i < n && guard++ < 1000) {
			main += len[i]
			if (op[i] ~ /^ret/)
				break
			if (op[i] ~ /^call/ && (i in mark)) {
				marks++; i++; continue
			}
			if (marks == 1) { insns++; bytes += len[i] }
			if (op[i] ~ /^jmp/) {
				t = line[i]; sub(/^.*jmp[q]? +/, "", t); sub(/ .*/, "", t)
				if ((hex(t) in idx)) { i = idx[hex(t)]; continue }
				break
			}
			i++
		}
		print insns + 0, bytes + 0, main + 0
	}'
}

# sites TREE: per toggle "name insns bytes ool jt_entries" for the module
# built against TREE
sites() {
	d=$tmp/$1
	mkdir -p "$d"
	cp "$top/kernel/site-cost/tc_sites.c" "$d/"
	printf 'obj-m := tc_sites.o\nccflags-y := -fno-optimize-sibling-calls\n' >"$d/Kbuild"
	make -s -C "$KC/$1" M="$d" modules >"$d/build.log" 2>&1 ||
		{ cat "$d/build.log" >&2; die "tc_sites.c does not build against $KC/$1"; }
	o=$d/tc_sites.o
	objdump -dr --no-show-raw-insn "$o" >"$d/dis"
	objdump -r -j __jump_table "$o" 2>/dev/null |
		awk "$HEX"'$2 ~ /R_X86_64_PC32/ && $3 ~ /^\.text\+/ && hex($1) % 16 == 0 {
			v = $3; sub(/^\.text\+0x/, "", v); print hex(v) }' >"$d/jt"
	for s in preempt_disable preempt_enable irq_disable irq_enable irq_save irq_restore; do
		fn=tc_site_$s
		set -- $(nm -S "$o" | awk "$HEX"'$4 == "'"$fn"'" { print hex($1), hex($2) }')
		start=$1 fsize=$2
		set -- $(site "$fn" "$fsize" <"$d/dis")
		jt=$(awk -v s="$start" -v e="$((start + fsize))" '$1 >= s && $1 < e { n++ } END { print n + 0 }' "$d/jt")
		echo "$s $1 $2 $((fsize - $3)) $jt"
	done
}

sites "$A" >"$tmp/a.sites"
sites "$B" >"$tmp/b.sites"
echo "Per site (x86-64, $(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$KC/$B/.config")," \
	"$(grep -q '^CONFIG_CC_OPTIMIZE_FOR_SIZE=y' "$KC/$B/.config" && echo -Os || echo -O2)):" \
	"fall-through instructions / bytes, out-of-line bytes, jump-table entries x 16 bytes"
echo
echo "| site | $A | $B | growth on the path | out-of-line $A -> $B | jump table |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
paste -d' ' "$tmp/a.sites" "$tmp/b.sites" | while read -r s ai ab ao aj _ bi bb bo bj; do
	printf '| %s | %s insns, %s B | %s insns, %s B | +%s insns, +%s B | %s -> %s B (+%s) | %s entries, %s B |\n' \
		"$s" "$ai" "$ab" "$bi" "$bb" $((bi - ai)) $((bb - ab)) "$ao" "$bo" $((bo - ao)) \
		$((bj - aj)) $(((bj - aj) * 16))
done

# 2. the whole vmlinux
vb=$KC/$B/vmlinux
nm "$vb" | awk '$3 ~ /^__tracepoint_(irq|preempt)_(disable|enable)$/ {
	k = $3; sub(/^__tracepoint_/, "", k); print substr($1, 9), k }' >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" -eq 4 ] || die "$vb lacks the four preemptirq tracepoints"
# __jump_table lies inside another output section of vmlinux; addresses are
# compared by their low 32 bits, as hex strings (mawk turns integers above
# 2^31 - 1 into that value when it makes them strings)
set -- $(nm "$vb" | awk '$3 == "__start___jump_table" { s = $1 } $3 == "__stop___jump_table" { e = $1 }
	END { print s, e }')
[ $# -eq 2 ] || die "$vb has no __start___jump_table/__stop___jump_table"
objdump -s --start-address=0x"$1" --stop-address=0x"$2" "$vb" | awk "$HEX"'
	function le(w) { return hex(substr(w, 7, 2) substr(w, 5, 2) substr(w, 3, 2) substr(w, 1, 2)) }
	# the static key sits 8 bytes into struct tracepoint (after .name)
	NR == FNR { key[sprintf("%08x", hex($1) + 8)] = $2; next }
	$1 ~ /^ffffffff[0-9a-f]+$/ && NF >= 5 {
		a = hex(substr($1, 9)); M = 4294967296
		code = (a + le($2)) % M; target = (a + 4 + le($3)) % M
		k = (a + 8 + le($4)) % M; k -= k % 4
		kh = sprintf("%08x", k)
		if (kh in key) printf "%08x %08x %s\n", code, target, key[kh]
	}' "$tmp/keys" - >"$tmp/entries"
[ -s "$tmp/entries" ] || die "no __jump_table entry of $vb has a preemptirq key"
# every instruction of vmlinux as "address length mnemonic" (low 32 bits)
objdump -d --no-show-raw-insn "$vb" | awk "$HEX"'
	/^ *ffffffff[0-9a-f]+:/ {
		a = hex(substr($1, 9, 8))
		if (have) printf "%08x %d %s\n", pa, a - pa, pop
		have = 1; pa = a; pop = $2
	}' >"$tmp/insns"
awk '
	NR == FNR { key[$1] = $3; tkey[$2] = $1; n++; next }
	{
		if (classify != "") {
			# what follows the NOP (and what precedes it) tells the toggle
			kd = classify
			if (kd == "irq_disable")
				kd = (prevop == "cli" ? "local_irq_save" : ($3 == "cli" ? "local_irq_disable" : "irq_disable (other)"))
			else if (kd == "irq_enable")
				kd = ($3 == "sti" ? "local_irq_enable" : ($3 == "test" ? "local_irq_restore" : "irq_enable (other)"))
			else
				kd = (kd == "preempt_disable" ? "preempt_count_add" : "preempt_count_sub")
			sites[kd]++; nop[kd] += nopl; kindof[site] = kd
			classify = ""
		}
		if (inool) {
			oolb[oolkind] += $2
			if ($3 ~ /^(jmp|ret)/) inool = 0
		}
		if ($1 in tkey && !inool && !($1 in seen)) {
			seen[$1] = 1; c = tkey[$1]
			oolkind = (c in kindof ? kindof[c] : key[c] " (block first)")
			inool = 1; oolb[oolkind] += $2; oolsites[oolkind]++
			if ($3 ~ /^(jmp|ret)/) inool = 0
		}
		if ($1 in key) { classify = key[$1]; site = $1; nopl = $2; prevop = lastop }
		lastop = $3
	}
	END {
		for (k in sites) printf "%s|%d|%d|%d\n", k, sites[k], nop[k], oolb[k]
		for (k in oolb) if (!(k in sites)) printf "%s|0|0|%d\n", k, oolb[k]
	}' "$tmp/entries" "$tmp/insns" | sort >"$tmp/census"

# bytes of the functions (nm -S, text symbols)
funcs() { nm -S "$1" | awk "$HEX"'NF == 4 && $3 ~ /^[tT]$/ { s += hex($2) } END { printf "%d\n", s }'; }
# size of one output section (size -A)
sect() { size -A "$1" | awk -v n="$2" '$1 == n { s = $2 } END { print s + 0 }'; }
span() { nm "$1" | awk "$HEX"'$3 == "_stext" { s = hex(substr($1, 9)) } $3 == "_etext" { e = hex(substr($1, 9)) } END { printf "%d\n", e - s }'; }
# the series' new functions, helpers and the preemptirq events' own
# (tracepoint iterators, static calls, event class), absent from stock
nm "$KC/$A/vmlinux" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$tmp/fa"
helpers=$(nm -S "$vb" | awk "$HEX"'NR == FNR { old[$1] = 1; next }
	NF == 4 && $3 ~ /^[tT]$/ && !($4 in old) &&
	$4 ~ /^(irq_toggle_|preempt_toggle_trace_|trace_preempt_o(n|ff)$|__traceiter_(irq|preempt)_|__SCT__tp_func_(irq|preempt)_|(perf_trace|trace_event_raw_event|trace_raw_output)_preemptirq)/ {
		s += hex($2); n++ } END { print s + 0, n + 0 }' "$tmp/fa" -)
echo
echo "Whole vmlinux ($B against $A): the jump-table entries of the four preemptirq keys"
echo
echo "| site kind | sites | NOP bytes | out-of-line bytes | jump table bytes |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -F'|' '{ printf "| %s | %d | %d | %d | %d |\n", $1, $2, $3, $4, $2 * 16
	s += $2; n += $3; o += $4 }
	END { printf "| all | %d | %d | %d | %d |\n", s, n, o, s * 16 > "/dev/stderr"
	      printf "| **all** | **%d** | **%d** | **%d** | **%d** |\n", s, n, o, s * 16 }' \
	"$tmp/census" 2>"$tmp/total"
set -- $(sed 's/|/ /g' "$tmp/total")
sites_n=$2 nop_b=$3 ool_b=$4 jt_b=$5
set -- $helpers
hb=$1 hn=$2
va=$KC/$A/vmlinux
fa=$(funcs "$va") fb=$(funcs "$vb")
ra=$(sect "$va" .rodata) rb=$(sect "$vb" .rodata)
oa=$(( $(sect "$va" .orc_unwind_ip) + $(sect "$va" .orc_unwind) ))
ob=$(( $(sect "$vb" .orc_unwind_ip) + $(sect "$vb" .orc_unwind) ))
echo
echo "functions (nm -S): $fa -> $fb, +$((fb - fa)) bytes = NOPs $nop_b + out-of-line blocks" \
	"$ool_b + $hn new functions of the series and its events $hb" \
	"+ remainder $((fb - fa - nop_b - ool_b - hb)) (what the sites changed elsewhere: inlining)"
echo ".rodata (holds __jump_table): $ra -> $rb, +$((rb - ra)) bytes = jump-table entries" \
	"$jt_b + remainder $((rb - ra - jt_b))"
echo ".orc_unwind_ip + .orc_unwind: $oa -> $ob, +$((ob - oa)) bytes (unwind entries of the new code)"
echo "_etext - _stext: $(span "$va") -> $(span "$vb"), +$(( $(span "$vb") - $(span "$va") )) bytes" \
	"(the growth lands in alignment padding inside .text)"
