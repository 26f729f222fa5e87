#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/site-cost.sh's whole-vmlinux census (part 2) on arm64 and riscv64,
# without a kernel: two small images assembled and linked at kernel
# addresses with the cross binutils, "stock" and "preemptirq" (the same
# code, the latter with the sites' NOPs, their out-of-line blocks, their
# __jump_table entries and one new irq_toggle_ function), read with
# SITE_COST_CENSUS_ONLY=1. Each irq site kind is there once or twice in the
# shape the 6.1 kernels have it (arm64: DAIF writes, the pseudo-NMI mov
# between, an out-of-line arch_local_irq_save(), the code after a site
# reached by a b; riscv: sstatus CSR accesses, the c.nop that aligns a
# NOP), and one entry hook; the census must give each its kind, the NOP
# and block bytes, and reconcile the growth with remainder 0. An
# architecture whose binutils are missing is skipped.
# Usage: tests/integration/site-cost.sh
set -u
top=$(readlink -f "$(dirname "$(readlink -f "$0")")/../..")
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir
cd "$tmp" || exit 1

# jump_label.h as the census reads it: the entry's operands (16 bytes)
jl() {
	mkdir -p "kc/$1/preemptirq/arch/$1/include/asm"
	cat >"kc/$1/preemptirq/arch/$1/include/asm/jump_label.h" <<'H'
		 "	.pushsection	__jump_table, \"aw\"	\n\t"
		 "	.long		1b - ., %l[l_yes] - .	\n\t"
		 "	.quad		%c0 - .			\n\t"
		 "	.popsection				\n\t"
H
}

# the data both images share: the four tracepoints (the key 8 bytes in),
# another key, and __jump_table with one entry of that other key
common_data() {
	cat <<'S'
	.data
	.balign 64
	.globl __tracepoint_irq_disable, __tracepoint_irq_enable
	.globl __tracepoint_preempt_disable, __tracepoint_preempt_enable
__tracepoint_irq_disable:	.quad 0, 0, 0, 0
__tracepoint_irq_enable:	.quad 0, 0, 0, 0
__tracepoint_preempt_disable:	.quad 0, 0, 0, 0
__tracepoint_preempt_enable:	.quad 0, 0, 0, 0
other_key:	.quad 0, 0
	.section .rodata, "a"
	.balign 8
	.globl __start___jump_table, __stop___jump_table
__start___jump_table:
	.long f_sites - ., f_sites - .
	.quad other_key - .
.ifdef PATCHED
	JT s_dis, b_dis, irq_disable
	JT s_en, b_en, irq_enable
	JT s_en2, b_en2, irq_enable
	JT s_save, b_save, irq_disable
	JT s_save2, b_save2, irq_disable
	JT s_rst, b_rst, irq_enable
	JT s_oth, b_oth, irq_disable
	JT s_pd, b_pd, preempt_disable
	JT s_pe, b_pe, preempt_enable
.endif
__stop___jump_table:
S
}

lds() {
	printf 'SECTIONS { . = %s; .text : { _stext = .; *(.text) _etext = .; }\n' "$1"
	printf '. = ALIGN(4096); .rodata : { *(.rodata) } . = ALIGN(4096); .data : { *(.data) } }\n'
}

# image ARCH CROSS ASFLAGS LDFLAGS BASE < source: kc/ARCH/{stock,preemptirq}/vmlinux
image() {
	cat >"$1.s"
	lds "$5" >"$1.lds"
	for k in stock preemptirq; do
		mkdir -p "kc/$1/$k"
		d=""
		[ $k = preemptirq ] && d="--defsym PATCHED=1"
		# shellcheck disable=SC2086
		"${2}as" $3 $d -o "$1-$k.o" "$1.s" 2>>"$1.err" &&
			"${2}ld" $4 -T "$1.lds" -o "kc/$1/$k/vmlinux" "$1-$k.o" 2>>"$1.err" || return 1
	done
}

# census ARCH: the script's output for the two images
census() {
	ARCH=$1 SITE_COST_CENSUS_ONLY=1 sh "$top/kernel/site-cost.sh" kc stock preemptirq >"$1.out" 2>&1
}

row() { grep -qxF "$2" "$1.out" || { echo "# expected: $2"; sed 's/^/# /' "$1.out"; false; }; }

# census_checks ARCH ARCHNAME RC FUNCTIONS ROW...: the checks every
# architecture's census passes: RC the exit status of its images' assembly
# and link, FUNCTIONS the expected "functions (nm -S)" growth (an ERE after
# the sizes), each ROW a line of its table; 7 kinds classified; .rodata
# grows by the 9 entries; no ORC, a reason instead
census_checks() {
	a=$1 an=$2 rc=$3 fre=$4
	shift 4
	check "$a images assembled and linked" '[ $rc -eq 0 ] || { sed "s/^/# /" $a.err; false; }'
	census "$a"
	check "$a census: exit 0, no per-site part" '[ $? -eq 0 ] && ! grep -q "^Per site" $a.out ||
		{ sed "s/^/# /" $a.out; false; }'
	for r in "$@"; do
		check "$a census row $r" 'row $a "$r"'
	done
	check "$a census: nothing else classified" '[ $(grep -c "^| [^-s*]" $a.out) -eq 7 ]'
	check "$a: the functions' growth is NOPs + blocks + the new function, remainder 0" \
		'grep -Eq "^functions \(nm -S\): [0-9]+ -> [0-9]+, $fre \+ remainder 0 " $a.out ||
		 { sed "s/^/# /" $a.out; false; }'
	check "$a: .rodata holds __jump_table, grows by the entries" \
		'grep -q "^.rodata (holds __jump_table): 16 -> 160, +144 bytes = jump-table entries 144 + remainder 0$" $a.out'
	check "$a: no ORC line, a reason instead" \
		'grep -q "^unwind tables: none to measure ($an has no ORC" $a.out && ! grep -q orc_unwind $a.out'
}

# AArch64: every site's block is "bl irq_toggle_disable; b back", 8 bytes
if command -v aarch64-linux-gnu-as >/dev/null && command -v aarch64-linux-gnu-ld >/dev/null &&
	command -v aarch64-linux-gnu-objdump >/dev/null; then
	jl arm64
	{ cat <<'S'
	.macro JT code, target, key
	.long \code - ., \target - .
	.quad __tracepoint_\key + 8 - .
	.endm
	.macro SITE l
.ifdef PATCHED
\l:	nop
.endif
	.endm
	.macro BLOCK l, back
.ifdef PATCHED
\l:	bl irq_toggle_disable
	b \back
.endif
	.endm
	.text
	.type arch_local_irq_save, %function
arch_local_irq_save:
	mrs x0, daif
	ret
	.size arch_local_irq_save, . - arch_local_irq_save
	.type f_sites, %function
f_sites:
	SITE s_dis			// local_irq_disable()
	nop				// gic_nonsecure_priorities
	mov x0, #0x60
	msr daifset, #3
r_dis:	SITE s_en			// local_irq_enable()
	mov x0, #0xe0
	msr daifclr, #3
r_en:	mrs x1, daif			// local_irq_save(), masking inline
	and w2, w1, #0x80
	cbnz w2, 1f
	msr daifset, #3
1:	SITE s_save
r_save:	bl arch_local_irq_save		// local_irq_save(), out of line
	mov x19, x0
	SITE s_save2
r_save2: SITE s_rst			// local_irq_restore()
	msr daif, x19
r_rst:	msr daifset, #0xf		// local_daif_mask(): an entry hook
	SITE s_oth
r_oth:	ldr w0, [x1, #8]		// preempt_count_add()
	add w0, w0, #1
	str w0, [x1, #8]
	SITE s_pd
r_pd:	SITE s_pe			// preempt_count_sub()
	ldr x0, [x1, #8]
	sub x0, x0, #1
	SITE s_en2			// local_irq_enable(), its code after a b
	b 2f
r_pe:	ret
2:	mov x0, #0xe0
	msr daifclr, #3
r_en2:	ret
	BLOCK b_dis, r_dis
	BLOCK b_en, r_en
	BLOCK b_en2, r_en2
	BLOCK b_save, r_save
	BLOCK b_save2, r_save2
	BLOCK b_rst, r_rst
	BLOCK b_oth, r_oth
	BLOCK b_pd, r_pd
	BLOCK b_pe, r_pe
	.size f_sites, . - f_sites
.ifdef PATCHED
	.globl irq_toggle_disable
	.type irq_toggle_disable, %function
irq_toggle_disable:
	ret
	.size irq_toggle_disable, . - irq_toggle_disable
.endif
S
	  common_data; } | image arm64 aarch64-linux-gnu- "" "" 0xffffffc008010000
	census_checks arm64 AArch64 $? \
		'\+112 bytes = NOPs 36 \+ out-of-line blocks 72 \+ 1 new functions of the series and its events 4' \
		"| local_irq_disable | 1 | 4 | 8 | 16 |" "| local_irq_enable | 2 | 8 | 16 | 32 |" \
		"| local_irq_save | 2 | 8 | 16 | 32 |" "| local_irq_restore | 1 | 4 | 8 | 16 |" \
		"| irq_disable (other) | 1 | 4 | 8 | 16 |" "| preempt_count_add | 1 | 4 | 8 | 16 |" \
		"| preempt_count_sub | 1 | 4 | 8 | 16 |" "| **all** | **9** | **36** | **72** | **144** |"
else
	skip "arm64 census: aarch64-linux-gnu- binutils missing (make deps-aarch64)"
fi

# riscv64: blocks "call irq_toggle_disable; j back" (auipc, jalr, j: 12
# bytes, no compressed code but the c.nop that aligns the first NOP)
if command -v riscv64-linux-gnu-as >/dev/null && command -v riscv64-linux-gnu-ld >/dev/null &&
	command -v riscv64-linux-gnu-objdump >/dev/null; then
	jl riscv
	{ cat <<'S'
	.option norelax
	.option norvc
	.macro JT code, target, key
	.long \code - ., \target - .
	.dword __tracepoint_\key + 8 - .
	.endm
	.macro SITE l
.ifdef PATCHED
\l:	nop
.endif
	.endm
	.macro BLOCK l, back
.ifdef PATCHED
\l:	call irq_toggle_disable
	j \back
.endif
	.endm
	.text
	.type f_sites, @function
f_sites:
	.option push
	.option rvc
	c.mv a1, a0			# a 2-byte instruction: the site needs a c.nop
.ifdef PATCHED
	.align 2
.endif
	.option pop
	SITE s_dis			# local_irq_disable()
	csrci sstatus, 2
r_dis:	SITE s_en			# local_irq_enable()
	csrsi sstatus, 2
r_en:	csrrci a0, sstatus, 2		# local_irq_save()
	SITE s_save
r_save:	csrrc s1, sstatus, 2		# another save (objdump: csrrc ...,2)
	SITE s_save2
r_save2: SITE s_rst			# local_irq_restore()
	andi a0, a0, 2
	csrs sstatus, a0
r_rst:	SITE s_oth			# an entry hook
	ld a0, 0(sp)
r_oth:	lw a5, 8(tp)			# preempt_count_add()
	addiw a5, a5, 1
	sw a5, 8(tp)
	SITE s_pd
r_pd:	SITE s_pe			# preempt_count_sub()
	lw a5, 8(tp)
	addiw a3, a5, -1
	SITE s_en2			# local_irq_enable(), its code after a j
	j 2f
r_pe:	ret
2:	csrs sstatus, 2
r_en2:	ret
	BLOCK b_dis, r_dis
	BLOCK b_en, r_en
	BLOCK b_en2, r_en2
	BLOCK b_save, r_save
	BLOCK b_save2, r_save2
	BLOCK b_rst, r_rst
	BLOCK b_oth, r_oth
	BLOCK b_pd, r_pd
	BLOCK b_pe, r_pe
	.size f_sites, . - f_sites
.ifdef PATCHED
	.globl irq_toggle_disable
	.type irq_toggle_disable, @function
irq_toggle_disable:
	ret
	.size irq_toggle_disable, . - irq_toggle_disable
.endif
S
	  common_data; } | image riscv riscv64-linux-gnu- "-march=rv64imac_zicsr -mabi=lp64" "--no-relax" 0xffffffff80002000
	census_checks riscv riscv64 $? \
		'\+15[0-9] bytes = NOPs 38 \+ out-of-line blocks 108 \+ 1 new functions of the series and its events [0-9]+' \
		"| local_irq_disable | 1 | 6 | 12 | 16 |" "| local_irq_enable | 2 | 8 | 24 | 32 |" \
		"| local_irq_save | 2 | 8 | 24 | 32 |" "| local_irq_restore | 1 | 4 | 12 | 16 |" \
		"| irq_disable (other) | 1 | 4 | 12 | 16 |" "| preempt_count_add | 1 | 4 | 12 | 16 |" \
		"| preempt_count_sub | 1 | 4 | 12 | 16 |" "| **all** | **9** | **38** | **108** | **144** |"
else
	skip "riscv census: riscv64-linux-gnu- binutils missing (make deps-kernels ARCH=riscv)"
fi

summary site-cost skipped
