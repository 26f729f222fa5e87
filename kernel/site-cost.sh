#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What one preempt/irq toggle site costs in bytes and instructions, and
# whether the sites add up to the growth of the whole vmlinux (x86-64,
# arm64, riscv64).
#
#   [ARCH=...] kernel/site-cost.sh KERNEL_CACHE [STOCK [PATCHED]]
#                                                   (stock preemptirq)
#
# ARCH (default x86_64; arm64 or aarch64, riscv or riscv64; the mapping of
# kernel/vm/boot-lib.sh's seed_arch): that architecture's kernels,
# KERNEL_CACHE/arm64/NAME or KERNEL_CACHE/riscv/NAME (make kernels
# ARCH=...), the module cross-built against them and read with the cross
# binutils (aarch64-linux-gnu-, riscv64-linux-gnu-). Any other ARCH: one
# line, exit 2, before any work.
#
# 1. Per site: kernel/site-cost/tc_sites.c (one toggle per function, between
#    two calls of tc_site_mark()) is built as a module against both kernel
#    trees; for each toggle it prints
#      - the fall-through path: the instructions and bytes between the two
#        calls (the path a site runs while the events are off):
#        unconditional jumps followed, conditional branches not taken
#        unless the not-taken side calls a function before the second
#        mark (arm64's preempt_enable() takes its cbnz over the
#        preempt_schedule call; on x86-64 no path needs that);
#      - out-of-line bytes: the function's size (nm -S) minus the bytes of
#        its path from the entry through the return that path reaches
#        (what the compiler placed after the return: the tracing block, and
#        stock's own preempt_schedule call);
#      - jump-table entries and bytes: relocations of __jump_table that
#        point into the function; the entry's size is read from the
#        tree's arch/ARCH/include/asm/jump_label.h (16 bytes on x86-64,
#        arm64 and riscv64 in 6.1: code and target as 32-bit offsets, the
#        key as a 64-bit offset).
#    The branch, call and return mnemonics are each architecture's (x86-64
#    jmp/jcc/call/ret; arm64 b, b.cond, cbz/cbnz, tbz/tbnz, bl/blr, br,
#    ret; riscv j, beq/bne/.../beqz/bnez, jal/jalr/call, jr, ret); a riscv
#    call in a module is auipc + jalr, its relocation on the auipc.
# 2. In the whole PATCHED vmlinux: every __jump_table entry whose key is
#    one of the four preemptirq tracepoints, its site classified by the key
#    and its neighbours (x86-64: local_irq_disable() is NOP; cli,
#    local_irq_save() cli; NOP, local_irq_enable() NOP; sti,
#    local_irq_restore() NOP; test; arm64 and riscv: the nearest DAIF or
#    sstatus access, FLAG below), the NOP's bytes (riscv: with the c.nop
#    that aligns it) and the bytes of its out-of-line block (from the
#    entry's target up to and including the first unconditional jump or
#    return), summed per kind; then the functions' growth against STOCK
#    (nm -S) beside those sums and the new functions' sizes, and the growth
#    of the section that holds __jump_table beside the entries. The
#    remainder is what the sites changed elsewhere (inlining and layout).
#    Then the file size of each vmlinux stripped (strip -o, the measure v3's
#    cover letter quoted), and the modules: the census counts vmlinux only;
#    the .ko files of each tree (a defconfig builds some) and the preemptirq
#    jump-table entries in them are counted on a line of their own. A
#    return may be a jmp to __x86_return_thunk (RETHUNK, as on
#    x86_64_defconfig): the per-site walk takes it for a ret.
# Needs both trees built (make kernels [ARCH=...] KERNELS="stock preemptirq").
# SITE_COST_CENSUS_ONLY=1: part 2 alone, from the two vmlinux files and the
# tree's jump_label.h (no module build; tests/integration/site-cost.sh runs
# it on small assembled images). SITE_COST_DEBUG=1: each preemptirq site,
# its kind and its neighbours on stderr.
set -eu
table=site-cost
# shellcheck source=kernel/vm/boot-lib.sh
. "$(dirname "$0")/vm/boot-lib.sh"
seed_arch
KC=$(readlink -f "$1")$sub
A=${2:-stock}
B=${3:-preemptirq}
for k in "$A" "$B"; do
	case $k in
	*[!A-Za-z0-9_-]* | "") echo "site-cost: bad configuration name '$k'" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "site-cost: $*" >&2; exit 1; }
case $karch in
x86_64)	archname=x86-64 hdr=x86 callrel='^R_X86_64_(PLT32|PC32)$' jtrel=R_X86_64_PC32
	RET='^ret' CALL='^call' JMP='^jmp' COND='^j' IND='^$' THUNK='^__x86_return_thunk([-+]|$)' ;;
arm64)	archname=AArch64 hdr=arm64 callrel='^R_AARCH64_(CALL26|JUMP26)$' jtrel=R_AARCH64_PREL32
	RET='^ret(aa|ab)?$' CALL='^blr?$' JMP='^b$' COND='^(b\.[a-z]+|cbn?z|tbn?z)$' IND='^br$' THUNK='' ;;
riscv)	archname=riscv64 hdr=riscv callrel='^R_RISCV_CALL(_PLT)?$' jtrel=R_RISCV_ADD32
	RET='^(c\.)?ret$' CALL='^(c\.)?(jal|jalr|call)$' JMP='^(c\.)?j$'
	COND='^(c\.)?b(eq|ne|lt|ge|gt|le)(u|z)?$' IND='^(c\.)?jr$' THUNK='' ;;
esac
# the census (part 2): an irq site's kind is told by the nearest
# instruction matching FLAG within W instructions of its NOP, each matched
# as "mnemonic operands" (operands without blanks or comments): before it
# SAVE (local_irq_save(): the flags read and masked, then the NOP); after
# it DIS (local_irq_disable()), EN (local_irq_enable()) or RST
# (local_irq_restore()); any other irq site is "(other)" (entry and idle
# hooks, arm64's local_daif_*()). An out-of-line block ends at the first
# instruction whose mnemonic matches END. x86-64: the neighbours themselves
# (W=1, any instruction); arm64: DAIF writes (pseudo-NMI's alternative
# keeps daifset/daifclr/daif in the image; its "mov x0, #0x60" and the
# gic_nonsecure_priorities NOP sit between); riscv: sstatus CSR accesses.
case $karch in
x86_64)	FLAG='' PAD='' W=1 SAVE='^cli$' DIS='^cli$' EN='^sti$' RST='^test( |$)' END='^(jmp|ret)' ;;
arm64)	FLAG='^((msr|mrs) .*daif|bl .*<arch_local_irq_[a-z]+>)' PAD='' W=4
	SAVE='^(mrs [xw][0-9]+,daif|msr daifset,#0x3|bl .*<arch_local_irq_save>)$'
	DIS='^(msr daifset,#0x3|bl .*<arch_local_irq_disable>)$'
	EN='^(msr daifclr,#0x3|bl .*<arch_local_irq_enable>)$'
	RST='^(msr daif,[xw][0-9]+|bl .*<arch_local_irq_restore>)$'
	END='^(b|br|ret|retaa|retab|brk)$' ;;
riscv)	FLAG='^csr[a-z]* .*sstatus' W=4 SAVE='^csrrci? [a-z0-9]+,sstatus,2$'
	DIS='^csrci? sstatus,2$' EN='^csrsi? sstatus,2$' RST='^csrs sstatus,[a-z][a-z0-9]*$'
	END='^(c\.)?(j|jr|ret|ebreak)$' PAD='^(c\.)?nop$' ;;
esac
for t in objdump nm size; do
	command -v "${cross}$t" >/dev/null || die "${cross}$t is missing (binutils for $karch)"
done
for k in "$A" "$B"; do
	[ -r "$KC/$k/vmlinux" ] && { [ -n "${SITE_COST_CENSUS_ONLY:-}" ] || [ -r "$KC/$k/Module.symvers" ]; } ||
		die "$KC/$k is not a built kernel tree (make kernels ${sub:+ARCH=$karch }KERNELS=$k)"
done
# the size of one __jump_table entry: the first entry the tree's
# jump_label.h emits, .long = 4 bytes per operand, .quad/_ASM_PTR/RISCV_PTR
# = 8 (64-bit kernels)
jl=$KC/$B/source/arch/$hdr/include/asm/jump_label.h
[ -r "$jl" ] || jl=$KC/$B/arch/$hdr/include/asm/jump_label.h
[ -r "$jl" ] || die "$KC/$B has no arch/$hdr/include/asm/jump_label.h (source link)"
ES=$(awk '/__jump_table/ && !done { on = 1 }
	on && /\.long/ { l = $0; sub(/^.*\.long/, "", l); n += 4 * (gsub(/,/, ",", l) + 1) }
	on && /(\.quad|_ASM_PTR|RISCV_PTR)/ { n += 8 }
	on && /popsection/ { on = 0; done = 1 }
	END { print n + 0 }' "$jl")
[ "$ES" -gt 0 ] || die "no __jump_table entry in $jl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

HEX='function hex(s,  i, v) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }'

# site FUNCTION FSIZE < objdump -dr: "insns bytes main_bytes" of the
# fall-through path between the two tc_site_mark calls, and of the whole
# path from the entry through its return
site() {
	awk -v fn="<$1>:" -v fsize="$2" -v callrel="$callrel" -v RET="$RET" -v CALL="$CALL" \
		-v JMP="$JMP" -v COND="$COND" -v IND="$IND" -v THUNK="$THUNK" "$HEX"'
	# the target of a direct branch: the address before " <symbol>"
	function tgt(i,  t) {
		t = line[i]
		if (t !~ / <[^>]*>$/) return ""
		sub(/ <[^>]*>$/, "", t); sub(/^.*[ ,\t]/, "", t)
		return t ~ /^[0-9a-f]+$/ ? hex(t) : ""
	}
	function cond(i) { return op[i] ~ COND && op[i] !~ JMP }
	# from the entry (or a mark) on: jumps followed, conditional
	# branches not taken, up to the next mark (stop) or the return
	function lin(i, stop,  g, t) {
		while (i < n && g++ < 1000) {
			if (stop && (i in mark)) return i
			main += len[i]
			if (op[i] ~ RET) return -1
			if (op[i] ~ JMP) {
				t = tgt(i)
				if (t != "" && (t in idx)) { i = idx[t]; continue }
				return -1
			}
			i++
		}
		return -1
	}
	# past the mark call at i (riscv: auipc, then the jalr)
	function skip(i) {
		if (op[i] !~ CALL) { main += len[i]; i++ }
		main += len[i]
		return i + 1
	}
	# the site: from i to the second mark, calling nothing (unless calls);
	# the fall-through side of a conditional branch first
	function path(i, d, calls,  t, ok) {
		if (d > 300 || i >= n || (i in busy)) return 0
		if (i in mark) { m2 = i; return 1 }
		if (op[i] ~ RET || op[i] ~ IND || (op[i] ~ CALL && !calls)) return 0
		busy[i] = 1
		if (op[i] ~ JMP) {
			t = tgt(i)
			ok = t != "" && (t in idx) && path(idx[t], d + 1, calls)
		} else {
			ok = path(i + 1, d + 1, calls)
			if (!ok && cond(i)) {
				t = tgt(i)
				ok = t != "" && (t in idx) && path(idx[t], d + 1, calls)
			}
		}
		delete busy[i]
		if (ok) { insns++; bytes += len[i]; main += len[i] }
		return ok
	}
	BEGIN { n = 0 }
	/^[0-9a-f]+ <.*>:$/ {
		# a function starts; riscv objects also label branch targets (.L)
		if ($2 == fn) on = 1
		else if ($2 !~ /^<\.L/) on = 0
		next
	}
	on && $2 ~ /^R_/ {
		# a relocation (objdump -dr): the call it belongs to is a mark
		if ($2 ~ callrel && $3 ~ /^tc_site_mark([-+]|$)/) mark[n - 1] = 1
		# x86-64 with RETHUNK (defconfig): a return is a jmp to the
		# return thunk, its target a relocation (objdump shows the
		# next instruction): a ret, not a jump to follow
		if (THUNK != "" && $3 ~ THUNK && op[n - 1] ~ JMP) op[n - 1] = "ret"
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
		i = lin(0, 1)
		if (i < 0) { print "error: no call of tc_site_mark"; exit }
		i = skip(i); s = main
		if (!path(i, 0, 0)) {
			main = s; insns = bytes = 0
			if (!path(i, 0, 1)) { print "error: no path to the second tc_site_mark call"; exit }
		}
		lin(skip(m2), 0)
		print insns + 0, bytes + 0, main + 0
	}'
}

# sites TREE: per toggle "name insns bytes ool jt_entries" for the module
# built against TREE
sites() {
	tree=$KC/$1 d=$tmp/$1
	mkdir -p "$d"
	cp "$top/kernel/site-cost/tc_sites.c" "$d/"
	printf 'obj-m := tc_sites.o\nccflags-y := -fno-optimize-sibling-calls\n' >"$d/Kbuild"
	make -s -C "$KC/$1" ${sub:+ARCH=$karch CROSS_COMPILE=$cross} M="$d" modules >"$d/build.log" 2>&1 ||
		{ cat "$d/build.log" >&2; die "tc_sites.c does not build against $KC/$1"; }
	o=$d/tc_sites.o
	"${cross}objdump" -dr --no-show-raw-insn "$o" >"$d/dis"
	# an entry's code field: .text+OFFSET, or a label of the disassembly
	# (riscv: R_RISCV_ADD32 .L1^B1 with R_RISCV_SUB32 .L0)
	"${cross}objdump" -r -j __jump_table "$o" 2>/dev/null |
		awk -v rel="$jtrel" -v es="$ES" "$HEX"'
		NR == FNR { if ($0 ~ /^[0-9a-f]+ <.*>:$/) {
				s = $2; sub(/^</, "", s); sub(/>:$/, "", s); sym[s] = hex($1) }
			next }
		$2 == rel && hex($1) % es == 0 {
			v = $3; off = 0
			if (v ~ /\+0x[0-9a-f]+$/) { off = v; sub(/^.*\+0x/, "", off); off = hex(off); sub(/\+0x[0-9a-f]+$/, "", v) }
			if (v == ".text") print off
			else if (v in sym) print sym[v] + off
		}' "$d/dis" - >"$d/jt"
	for s in preempt_disable preempt_enable irq_disable irq_enable irq_save irq_restore; do
		fn=tc_site_$s
		set -- $("${cross}nm" -S "$o" | awk "$HEX"'$4 == "'"$fn"'" { print hex($1), hex($2) }')
		start=$1 fsize=$2
		set -- $(site "$fn" "$fsize" <"$d/dis")
		[ $# -eq 3 ] || die "$fn ($tree): $*"
		jt=$(awk -v s="$start" -v e="$((start + fsize))" '$1 >= s && $1 < e { n++ } END { print n + 0 }' "$d/jt")
		echo "$s $1 $2 $((fsize - $3)) $jt"
	done
}

if [ -z "${SITE_COST_CENSUS_ONLY:-}" ]; then
	sites "$A" >"$tmp/a.sites"
	sites "$B" >"$tmp/b.sites"
	echo "Per site ($archname, $(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"/\1/p' "$KC/$B/.config")," \
		"$(grep -q '^CONFIG_CC_OPTIMIZE_FOR_SIZE=y' "$KC/$B/.config" && echo -Os || echo -O2)):" \
		"fall-through instructions / bytes, out-of-line bytes, jump-table entries x $ES bytes"
	echo
	echo "| site | $A | $B | growth on the path | out-of-line $A -> $B | jump table |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	paste -d' ' "$tmp/a.sites" "$tmp/b.sites" | while read -r s ai ab ao aj _ bi bb bo bj; do
		printf '| %s | %s insns, %s B | %s insns, %s B | +%s insns, +%s B | %s -> %s B (+%s) | %s entries, %s B |\n' \
			"$s" "$ai" "$ab" "$bi" "$bb" $((bi - ai)) $((bb - ab)) "$ao" "$bo" $((bo - ao)) \
			$((bj - aj)) $(((bj - aj) * ES))
	done
fi

# 2. the whole vmlinux
vb=$KC/$B/vmlinux
"${cross}nm" "$vb" | awk '$3 ~ /^__tracepoint_(irq|preempt)_(disable|enable)$/ {
	k = $3; sub(/^__tracepoint_/, "", k); print substr($1, 9), k }' >"$tmp/keys"
[ "$(wc -l <"$tmp/keys")" -eq 4 ] || die "$vb lacks the four preemptirq tracepoints"
# __jump_table lies inside another output section of vmlinux; addresses are
# compared by their low 32 bits, as hex strings (mawk turns integers above
# 2^31 - 1 into that value when it makes them strings): the kernel image
# spans far less than 4 GiB of 0xffffffff8..., 0xffffffc0... (arm64) or
# 0xffffffff80... (riscv)
set -- $("${cross}nm" "$vb" | awk '$3 == "__start___jump_table" { s = $1 } $3 == "__stop___jump_table" { e = $1 }
	END { print s, e }')
[ $# -eq 2 ] || die "$vb has no __start___jump_table/__stop___jump_table"
jts=$1
"${cross}objdump" -s --start-address=0x"$1" --stop-address=0x"$2" "$vb" | awk "$HEX"'
	function le(w) { return hex(substr(w, 7, 2) substr(w, 5, 2) substr(w, 3, 2) substr(w, 1, 2)) }
	# the static key sits 8 bytes into struct tracepoint (after .name)
	NR == FNR { key[sprintf("%08x", hex($1) + 8)] = $2; next }
	length($1) == 16 && $1 ~ /^ffff[0-9a-f]+$/ && NF >= 5 {
		a = hex(substr($1, 9)); M = 4294967296
		code = (a + le($2)) % M; target = (a + 4 + le($3)) % M
		k = (a + 8 + le($4)) % M; k -= k % 4
		kh = sprintf("%08x", k)
		if (kh in key) printf "%08x %08x %s\n", code, target, key[kh]
	}' "$tmp/keys" - >"$tmp/entries"
[ -s "$tmp/entries" ] || die "no __jump_table entry of $vb has a preemptirq key"
# every instruction of vmlinux as "address length mnemonic operands" (low
# 32 bits; operands without blanks and comments, "-" if none; the <symbol>
# objdump names a branch target by, "-" if none)
"${cross}objdump" -d --no-show-raw-insn "$vb" | awk "$HEX"'
	length($1) == 17 && $1 ~ /^ffff[0-9a-f]+:$/ {
		a = hex(substr($1, 9, 8))
		if (have) printf "%08x %d %s %s %s\n", pa, a - pa, pop, pops, psym
		o = $0; sub(/^[^:]*:[ \t]+[^ \t]+/, "", o)
		sub(/[ \t]+\/\/.*$/, "", o); sub(/[ \t]+#[ \t].*$/, "", o)
		y = "-"
		if (match(o, /[ \t]+<[^ \t>]*>$/)) { y = substr(o, RSTART, RLENGTH); o = substr(o, 1, RSTART - 1) }
		gsub(/[ \t]/, "", o); gsub(/[ \t]/, "", y)
		have = 1; pa = a; pop = $2; pops = o == "" ? "-" : o; psym = y
	}' >"$tmp/insns"
awk -v FLAG="$FLAG" -v W="$W" -v SAVE="$SAVE" -v DIS="$DIS" -v EN="$EN" -v RST="$RST" -v OEND="$END" -v JMP="$JMP" -v PAD="$PAD" '
	# "mnemonic operands" of instruction i
	function text(i) { return (ops[i] == "-" ? op[i] : op[i] " " ops[i]) (sym[i] == "-" ? "" : " " sym[i]) }
	# the nearest instruction matching FLAG within W steps of d (-1, 1)
	# (forward, an unconditional jump is followed: GCC places the code
	# after a site anywhere)
	function near(i, d,  j, t) {
		for (j = 1; j <= W && i + d >= 0 && i + d < n; j++) {
			i += d; t = text(i)
			if (t ~ FLAG) return t
			if (d > 0 && op[i] ~ JMP && (ops[i] ~ /^ffff[0-9a-f]+$/) && (substr(ops[i], 9) in at))
				i = at[substr(ops[i], 9)] - 1
		}
		return ""
	}
	NR == FNR { key[$1] = $3; tkey[$2] = $1; next }
	{ ad[n] = $1; ln[n] = $2; op[n] = $3; ops[n] = $4; sym[n] = $5; at[$1] = n; n++ }
	END {
		for (i = 0; i < n; i++) {
			a = ad[i]
			if (inool) {
				oolb[oolkind] += ln[i]
				if (op[i] ~ OEND) inool = 0
			}
			if (a in tkey && !inool && !(a in seen)) {
				seen[a] = 1; c = tkey[a]
				oolkind = (c in kindof ? kindof[c] : key[c] " (block first)")
				inool = 1; oolb[oolkind] += ln[i]; oolsites[oolkind]++
				if (op[i] ~ OEND) inool = 0
			}
			if (a in key) {
				# what precedes the NOP (and what follows it) tells the toggle
				kd = key[a]
				if (kd == "irq_disable")
					kd = (near(i, -1) ~ SAVE ? "local_irq_save" : (near(i, 1) ~ DIS ? "local_irq_disable" : "irq_disable (other)"))
				else if (kd == "irq_enable") {
					t = near(i, 1)
					kd = (t ~ EN ? "local_irq_enable" : (t ~ RST ? "local_irq_restore" : "irq_enable (other)"))
				} else
					kd = (kd == "preempt_disable" ? "preempt_count_add" : "preempt_count_sub")
				# riscv: the 2-byte c.nop that aligns the NOP belongs to the site
				sites[kd]++; nop[kd] += ln[i]; kindof[a] = kd
				if (PAD != "" && i > 0 && op[i - 1] ~ PAD && ln[i - 1] == 2 && ln[i] == 4)
					nop[kd] += 2
				if (ENVIRON["SITE_COST_DEBUG"] != "")
					printf "%s %s | %s %s | %s %s %s\n", a, kd, text(i - 2), text(i - 1),
						text(i + 1), text(i + 2), text(i + 3) >"/dev/stderr"
			}
		}
		for (k in sites) printf "%s|%d|%d|%d\n", k, sites[k], nop[k], oolb[k]
		for (k in oolb) if (!(k in sites)) printf "%s|0|0|%d\n", k, oolb[k]
	}' "$tmp/entries" "$tmp/insns" | sort >"$tmp/census"

# bytes of the functions (nm -S, text symbols)
funcs() { "${cross}nm" -S "$1" | awk "$HEX"'NF == 4 && $3 ~ /^[tT]$/ { s += hex($2) } END { printf "%d\n", s }'; }
# size of one output section (size -A)
sect() { "${cross}size" -A "$1" | awk -v n="$2" '$1 == n { s = $2 } END { print s + 0 }'; }
span() { "${cross}nm" "$1" | awk "$HEX"'$3 == "_stext" { s = hex(substr($1, 9)) } $3 == "_etext" { e = hex(substr($1, 9)) } END { printf "%d\n", e - s }'; }
# the output section that holds __jump_table (.rodata on x86-64, arm64 and
# riscv in 6.1: RO_DATA's JUMP_TABLE_DATA, ro_after_init), by address
jtsec=$("${cross}objdump" -h "$vb" | awk -v a="$jts" "$HEX"'
	$1 ~ /^[0-9]+$/ && NF >= 6 && !f {
		s = hex(substr($4, 9)); x = hex(substr(a, 9))
		if (x >= s && x < s + hex($3)) { print $2; f = 1 } }')
[ -n "$jtsec" ] || die "no section of $vb holds __jump_table ($jts)"
# the series' new functions, helpers and the preemptirq events' own
# (tracepoint iterators, static calls, event class), absent from stock
"${cross}nm" "$KC/$A/vmlinux" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$tmp/fa"
helpers=$("${cross}nm" -S "$vb" | awk "$HEX"'NR == FNR { old[$1] = 1; next }
	NF == 4 && $3 ~ /^[tT]$/ && !($4 in old) &&
	$4 ~ /^(irq_toggle_|preempt_toggle_trace_|trace_preempt_o(n|ff)$|__traceiter_(irq|preempt)_|__SCT__tp_func_(irq|preempt)_|(perf_trace|trace_event_raw_event|trace_raw_output)_preemptirq)/ {
		s += hex($2); n++ } END { print s + 0, n + 0 }' "$tmp/fa" -)
echo
echo "Whole vmlinux ($B against $A): the jump-table entries of the four preemptirq keys"
echo
echo "| site kind | sites | NOP bytes | out-of-line bytes | jump table bytes |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -F'|' '{ printf "| %s | %d | %d | %d | %d |\n", $1, $2, $3, $4, $2 * ES
	s += $2; n += $3; o += $4 }
	END { printf "| all | %d | %d | %d | %d |\n", s, n, o, s * ES > "/dev/stderr"
	      printf "| **all** | **%d** | **%d** | **%d** | **%d** |\n", s, n, o, s * ES }' ES="$ES" \
	"$tmp/census" 2>"$tmp/total"
set -- $(sed 's/|/ /g' "$tmp/total")
sites_n=$2 nop_b=$3 ool_b=$4 jt_b=$5
set -- $helpers
hb=$1 hn=$2
va=$KC/$A/vmlinux
fa=$(funcs "$va") fb=$(funcs "$vb")
ra=$(sect "$va" "$jtsec") rb=$(sect "$vb" "$jtsec")
echo
echo "functions (nm -S): $fa -> $fb, +$((fb - fa)) bytes = NOPs $nop_b + out-of-line blocks" \
	"$ool_b + $hn new functions of the series and its events $hb" \
	"+ remainder $((fb - fa - nop_b - ool_b - hb)) (what the sites changed elsewhere: inlining)"
echo "$jtsec (holds __jump_table): $ra -> $rb, +$((rb - ra)) bytes = jump-table entries" \
	"$jt_b + remainder $((rb - ra - jt_b))"
if [ "$karch" = x86_64 ]; then
	oa=$(( $(sect "$va" .orc_unwind_ip) + $(sect "$va" .orc_unwind) ))
	ob=$(( $(sect "$vb" .orc_unwind_ip) + $(sect "$vb" .orc_unwind) ))
	echo ".orc_unwind_ip + .orc_unwind: $oa -> $ob, +$((ob - oa)) bytes (unwind entries of the new code)"
else
	echo "unwind tables: none to measure ($archname has no ORC; its kernel unwinds by frame pointer)"
fi
sa=$(span "$va") sb=$(span "$vb")
echo "_etext - _stext: $sa -> $sb, +$((sb - sa)) bytes$([ $((10 * (sb - sa))) -lt $((fb - fa)) ] &&
	echo " (the growth lands in alignment padding inside .text)")"
ssa=$("${cross}strip" -o "$tmp/a.stripped" "$va" && stat -c %s "$tmp/a.stripped")
ssb=$("${cross}strip" -o "$tmp/b.stripped" "$vb" && stat -c %s "$tmp/b.stripped")
echo "stripped vmlinux (strip -o, file size): $ssa -> $ssb, +$((ssb - ssa)) bytes"
# the modules, outside vmlinux and the census: how many, and the jump-table
# entries with a preemptirq key in them (the key field's relocation)
mods() {
	find "$KC/$1/" -name '*.ko' -type f | sort >"$tmp/mods-$1"
	n=$(wc -l <"$tmp/mods-$1") e=0
	while read -r m; do
		k=$("${cross}objdump" -r -j __jump_table "$m" 2>/dev/null |
			grep -cE '__tracepoint_(irq|preempt)_(disable|enable)([-+]|$)' || true)
		e=$((e + k))
	done <"$tmp/mods-$1"
	echo "$n $e"
}
set -- $(mods "$A") $(mods "$B")
echo "modules (not in vmlinux, not in the census): $1 .ko in $A, $3 in $B;" \
	"preemptirq jump-table entries in $B's: $4"
