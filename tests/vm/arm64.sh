#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-vm-arm64: tracecost vm --arch arm64 end to end (qemu-system-aarch64
# -M virt, TCG) with the arm64 stock kernel of make kernels ARCH=arm64, the
# module cross-built against it, the static tracecost of the arm64 cross
# build and Debian's arm64 busybox.
#   - bad input for --arch: one line, exit 2;
#   - one -smp 2 boot: the module loads, the kernel suite runs on both CPUs;
#   - two --deterministic boots (the module's timed region on PMCCNTR_EL0,
#     one tick per instruction under -icount shift=0): identical counts, and
#     irq, preempt, irq_save and ref16 read exactly the instruction counts
#     of their code, walked in the module's disassembly (ref16: 16 NOPs),
#     which CNTVCT_EL0 (one tick per 16 instructions) cannot;
#   - the user suite twice deterministic (its sampler on PMCCNTR_EL0 too):
#     identical, each static-key site one instruction;
#   - the system suite inside, deterministic.
# The checks are vm_cross_check's (tests/vm/lib.sh).
# Usage: tests/vm/arm64.sh BUILD_DIR ARM64_BUILD_DIR KERNEL_DIR
set -u
O=$(readlink -f "$1")
A=$(readlink -f "$2")
kdir=$(readlink -f "$3")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm-arm64
vm_name=check-vm-arm64
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"

xa=arm64 xk=arm64 xcc=aarch64-linux-gnu- xm=aarch64 xbad=sparc
ximage='not an arm64 Image'
# -smp 2: the architected timer's counter; deterministic: the PMU cycle
# counter, one per instruction under -icount shift=0, which CNTVCT_EL0 (one
# tick per 16 instructions) cannot be
xsmp_re=cntvct_el0 xsmp_name=CNTVCT_EL0
xdet_re=pmccntr_el0 xdet_name=PMCCNTR_EL0
# the user suite's sampler reads PMCCNTR_EL0 in the build with
# -DTC_CLOCK_PMCCNTR (build-arm64-pmc/); each static-key site is a NOP
xclk=pmc xsite=1 xsite_what='one NOP'

# vm_count PAIR: the instructions of loop_<pair>_pmc between t0's "str x9"
# and t1's "isb", walked as the CPU runs them with interrupts on, no
# reschedule pending and no probe (conditional branches not taken, "b"
# followed). The empty loop's region is t0's str and t1's isb, which O
# removes; so each median must be exactly this count.
vm_count() {
	awk -v f="<loop_$1_pmc>:" '
	$2 == f { on = 1; next }
	on && /^$/ { on = 0 }
	on && $1 ~ /:$/ { a = $1; sub(":", "", a); addr[++n] = a; op[a] = $2; arg[a] = $3; idx[a] = n }
	END {
		for (i = 1; i <= n; i++)
			if (op[addr[i]] == "mrs" && arg[addr[i]] == "x9," && op[addr[i + 1]] == "str") {
				i += 2; break
			}
		c = 0
		while (i <= n && op[addr[i]] != "isb" && c < 100) {
			c++
			if (op[addr[i]] == "b") { t = arg[addr[i]]; i = idx[t] } else i++
		}
		print (i <= n && c < 100) ? c : "?"
	}' "$vm/tracecost.dis"
}

vm_cross_check
