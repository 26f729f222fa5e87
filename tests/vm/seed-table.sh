#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-seed-table: assertions on the files make seed-table left in
# BUILD_DIR/seed-table/ (kernel/seed-table.sh). Counts are instructions
# (QEMU -icount shift=0), so they are compared exactly, never as times:
#   - every kernel's two boots give identical medians, min and max of every
#     pair and column, and identical consoles (the deterministic mode, on
#     every architecture);
#   - the seed's shape claims, per pair (irq, preempt, irq_save):
#       preemptirq <= stock + 2 (at most one NOP per site: a pair has two;
#       riscv + 4, below),
#       irqsoff > preemptirq (the out-of-line hooks cost when idle),
#       irqsoff+ >= irqsoff + 100 and preemptirq+ >= preemptirq + 100
#       (an enabled event costs far more than any idle hook);
#   - the "+" columns recorded events, the others none;
#   - every system workload gave a figure on every kernel;
#   - the patched kernel's vmlinux has more text than stock's (the NOPs);
#   - with both options off the series changes no code (kernel/same-code.sh).
# ARCH=arm64 or riscv (kernel/seed-table.sh's): the same assertions on
# BUILD_DIR/seed-table-arm64/ or -riscv/ and KERNEL_CACHE/arm64/ or riscv/
# (vmlinux text with the cross binutils' size, same-code.sh with ARCH).
# KERNEL=6.12 (kernel/seed-table.sh's): BUILD_DIR/seed-table-6.12/ and the
# kernels of KERNEL_CACHE/6.12/, the same assertions.
# SEED_KERNELS (kernel/seed-table.sh's): the kernels not booted are skipped,
# with the claims that need their columns.
# Usage: [ARCH=...] [SEED_KERNELS=...] tests/vm/seed-table.sh BUILD_DIR KERNEL_CACHE
set -u
table=check-seed-table
# shellcheck source=kernel/vm/boot-lib.sh
. "$(dirname "$(readlink -f "$0")")/../../kernel/vm/boot-lib.sh"
seed_arch
O=$(readlink -f "$1")
KC=$(readlink -f "$2")$sub
r=$O/seed-table$suffix
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
KERNELS=${SEED_KERNELS:-stock irqsoff preemptirq lockdep}
has() { case " $KERNELS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# med FILE PAIR CONFIG [STAT]
med() {
	jq -r --arg p "$2" --arg c "$3" --arg s "${4:-median}" \
		'.kernel.pairs[] | select(.name == $p) | .cells[] | select(.configuration == $c) |
		 .stats[$s]' "$1" 2>/dev/null
}
# stats FILE: every pair x column: name, column, median, min, max
stats() {
	jq -c '[.kernel.pairs[] | .name as $p | .cells[] |
		[$p, .configuration, .stats.median, .stats.min, .stats.max]]' "$1" 2>/dev/null
}

# Every architecture: median, min and max identical on both boots, and the
# two consoles byte for byte (their timestamps are guest time, one ns per
# instruction). arm64's and riscv's drifted apart from the module's load on
# (riscv's irqsoff from the 8250 console's hand-over) until tracecost vm
# --deterministic passed QEMU -seed: the virt boards draw a fresh rng-seed
# for the device tree on every boot, which seeds the guest's random pool
# (doc/seed-table.md, "AArch64 and RISC-V")
for k in stock irqsoff preemptirq lockdep; do
	has $k || { skip "$k: not booted (SEED_KERNELS='$KERNELS')"; continue; }
	a=$(stats "$r/$k-kernel-1.json")
	b=$(stats "$r/$k-kernel-2.json")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "$k: two boots give identical counts (pair, column, median, min, max) $a"
	else
		not_ok "$k: counts differ between boots, [pair, column, median, min, max] where they do: $(
			jq -nc --argjson a "${a:-[]}" --argjson b "${b:-[]}" \
				'[range($a | length) | select($a[.] != $b[.]) | [$a[.], $b[.]]]' 2>/dev/null)"
	fi
	if cmp -s "$r/$k-kernel-1.console" "$r/$k-kernel-2.console"; then
		ok "$k: the two boots' consoles are identical ($(wc -l <"$r/$k-kernel-1.console") lines)"
	else
		not_ok "$k: the consoles differ between boots, first at: $(
			diff "$r/$k-kernel-1.console" "$r/$k-kernel-2.console" | sed -n 2p)"
	fi
done

# one NOP per site, a pair has two; riscv's 4-byte NOP is aligned to 4 bytes
# (.align 2 in arch_static_branch()), which with compressed instructions may
# put a c.nop before it: at most two instructions per site there
nops=2 why=""
[ "$karch" = riscv ] && nops=4 why=" (riscv: a NOP and at most one c.nop of alignment per site)"

for p in irq preempt irq_save; do
	s=$(med "$r/stock-kernel-1.json" $p stock)
	i=$(med "$r/irqsoff-kernel-1.json" $p irqsoff)
	ip=$(med "$r/irqsoff-kernel-1.json" $p irqsoff+)
	t=$(med "$r/preemptirq-kernel-1.json" $p preemptirq)
	tp=$(med "$r/preemptirq-kernel-1.json" $p preemptirq+)
	fig="stock $s, irqsoff $i, irqsoff+ $ip, preemptirq $t, preemptirq+ $tp"
	# each claim needs only its own columns: a missing one fails that claim alone
	claim() { # claim DESC A B: holds when A <= B (integers)
		if [ -z "$2" ] || [ -z "$3" ]; then
			not_ok "$p: $1: a column is missing ($fig)"
		elif [ "$2" -le "$3" ]; then
			ok "$p: $1 ($fig)"
		else
			not_ok "$p: not $1 ($fig)"
		fi
	}
	plus() { [ -n "$1" ] && echo $(($1 + $2)); }
	claim "preemptirq <= stock + $nops$why" "$t" "$(plus "$s" $nops)"
	if has irqsoff; then
		claim "irqsoff > preemptirq when off" "$(plus "$t" 1)" "$i"
		claim "irqsoff+ >= irqsoff + 100" "$(plus "$i" 100)" "$ip"
	else
		skip "$p: irqsoff > preemptirq, irqsoff+ >= irqsoff + 100: irqsoff not booted"
	fi
	claim "preemptirq+ >= preemptirq + 100" "$(plus "$t" 100)" "$tp"
done

for k in irqsoff preemptirq; do
	has $k || continue
	f=$r/$k-kernel-1.json
	if jq -e '.kernel.events | test("preemptirq:")' "$f" >/dev/null 2>&1 &&
		jq -e '[.kernel.configurations[] | select(.tracepoints) | .events_recorded > 0] | all' "$f" >/dev/null 2>&1 &&
		jq -e '[.kernel.configurations[] | select(.tracepoints | not) | .events_recorded == 0] | all' "$f" >/dev/null 2>&1; then
		ok "$k: the + column recorded preemptirq events, the other none ($(jq -r .kernel.events "$f"))"
	else
		not_ok "$k: events/preemptirq were not what the + column recorded ($(jq -c '[.kernel.events, [.kernel.configurations[].events_recorded]]' "$f" 2>&1))"
	fi
done

for k in stock irqsoff preemptirq lockdep; do
	has $k || continue
	f=$r/$k-system.json
	n=$(jq '[.. | objects | select(has("median")) | .median | select(type == "number" and . > 0)] | length' "$f" 2>/dev/null)
	[ "${n:-0}" -ge 6 ] && ok "$k: system suite gave $n figures" ||
		not_ok "$k: system suite figures missing (${n:-no file})"
done

# text as binutils size -B counts it (executable and read-only sections)
text() { "${cross}size" -B "$1" 2>/dev/null | awk 'NR == 2 { print $1 }'; }
st=$(text "$KC/stock/vmlinux")
pt=$(text "$KC/preemptirq/vmlinux")
if [ -n "$st" ] && [ -n "$pt" ] && [ "$pt" -gt "$st" ]; then
	ok "vmlinux text: preemptirq $pt > stock $st bytes (+$((pt - st)))"
else
	not_ok "vmlinux text: preemptirq '$pt' vs stock '$st'"
fi

# default configuration unchanged by the series (kernel/same-code.sh)
if ARCH=$karch sh "$(dirname "$0")/../../kernel/same-code.sh" "$KC" >"$r/same-code.txt" 2>&1; then
	ok "$(tail -1 "$r/same-code.txt")"
else
	not_ok "options off, code changed: $(tail -3 "$r/same-code.txt" | tr '\n' ' ')"
fi

# shellcheck disable=SC2046
summary "check-seed-table$suffix" $([ "$skipped" -gt 0 ] && echo skipped)
