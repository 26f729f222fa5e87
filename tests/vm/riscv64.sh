#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-vm-riscv64: tracecost vm --arch riscv64 end to end
# (qemu-system-riscv64 -M virt with QEMU's OpenSBI, TCG) with the riscv stock
# kernel of make kernels ARCH=riscv, the module cross-built against it, the
# static tracecost of the riscv64 cross build and Debian 13's riscv64 busybox
# (scripts/deps.sh kernels-riscv).
#   - bad input for --arch riscv64: one line, exit 2;
#   - one -smp 2 boot: the module loads, the kernel suite runs on both CPUs;
#   - two --deterministic boots (the module's timed region on instret, which
#     QEMU 7.2 reads as its instruction count under -icount shift=0):
#     identical counts, and irq, preempt, irq_save and ref16 read exactly the
#     instruction counts of their code, walked in the module's disassembly
#     (ref16: 16 NOPs), which the time CSR (10 MHz: one tick per 100
#     instructions) cannot;
#   - the user suite twice deterministic (its sampler on instret too):
#     identical, and each static-key site two instructions (riscv64 has no
#     asm-goto static keys in tracecost: a load and a branch on the count);
#   - the system suite inside, deterministic.
# The checks are vm_cross_check's (tests/vm/lib.sh).
# Usage: tests/vm/riscv64.sh BUILD_DIR RISCV64_BUILD_DIR KERNEL_DIR
set -u
O=$(readlink -f "$1")
A=$(readlink -f "$2")
kdir=$(readlink -f "$3")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm-riscv64
vm_name=check-vm-riscv64
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"

xa=riscv64 xk=riscv xcc=riscv64-linux-gnu- xm=riscv64 xbad=riscv32
ximage='not a riscv Image'
# -smp 2: the time CSR; deterministic: instret, which QEMU 7.2 reads as its
# instruction count under -icount shift=0 (the time CSR, 10 MHz, is one
# tick per 100 instructions)
xsmp_re=^time xsmp_name='the time CSR'
xdet_re=^instret xdet_name=instret
# the user suite's sampler reads instret in the build with
# -DTC_CLOCK_INSTRET (build-riscv64-instret/); riscv64 has no asm-goto
# static keys in tracecost: each site is a load of the count and a branch
xclk=instret xsite=2 xsite_what='a load and a branch'

# vm_count PAIR: the instructions of loop_<pair>_pmc between t0's
# "rdinstret t0; sd t0" and t1's "rdinstret", walked as the CPU runs them
# with interrupts on, no reschedule pending and no probe: "j" is followed, a
# conditional branch is not taken, except the one that skips
# preempt_enable()'s call of the scheduler when TIF_NEED_RESCHED (bit 3 of
# the thread's flags: "srl x, x, 0x3; and x, x, 1; beqz x, ...") is clear.
# The empty loop's region is t0's sd, which O removes; so each median must
# be exactly this count.
vm_count() {
	awk -v f="<loop_$1_pmc>:" '
	/^[0-9a-f]+ <[^.]/ { on = ($2 == f); next }
	on && $1 ~ /:$/ { a = $1; sub(":", "", a); addr[++n] = a; op[a] = $2; arg[a] = $3; idx[a] = n }
	function target(s) { sub(/.*,/, "", s); return s }
	END {
		for (i = 1; i <= n; i++)
			if (op[addr[i]] == "rdinstret" && op[addr[i + 1]] == "sd" && arg[addr[i + 1]] ~ /^t0,/) {
				i += 2; break
			}
		c = 0
		while (i <= n && op[addr[i]] != "rdinstret" && c < 100) {
			o = op[addr[i]]; c++
			if (o == "j") {
				i = idx[target(arg[addr[i]])]
			} else if (o == "beqz" && i > 2 && op[addr[i - 1]] == "and" && arg[addr[i - 1]] ~ /,1$/ &&
				   op[addr[i - 2]] == "srl" && arg[addr[i - 2]] ~ /,0x3$/) {
				i = idx[target(arg[addr[i]])]
			} else
				i++
		}
		print (i <= n && c < 100) ? c : "?"
	}' "$vm/tracecost.dis"
}

vm_cross_check
