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
# Usage: tests/vm/riscv64.sh BUILD_DIR RISCV64_BUILD_DIR KERNEL_DIR
set -u
O=$(readlink -f "$1")
A=$(readlink -f "$2")
kdir=$(readlink -f "$3")
top=$(cd "$(dirname "$0")/../.." && pwd)
tc=$O/tracecost
vm=$O/vm-riscv64
vm_name=check-vm-riscv64
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"

kernel=$kdir/arch/riscv/boot/Image
[ -r "$kernel" ] || die "no riscv kernel in $kdir (make kernels ARCH=riscv KERNELS=stock)"
[ -x "$A/tracecost-static" ] || die "$A/tracecost-static is missing"
[ -x "$A-instret/tracecost-static" ] || die "$A-instret/tracecost-static is missing"
[ "$(dirname "$A")/$(basename "$O")-riscv64" = "$A" ] ||
	die "$A is not the cross build beside $O (tracecost vm looks for ${O}-riscv64)"
echo "$vm_name: kernel $(cat "$kdir/include/config/kernel.release"), $kernel"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

# bad input: one line, exit 2
"$tc" vm --arch riscv32 --kernel "$kernel" --build "$kdir" -- run >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok "--arch riscv32: exit 2, one line" ||
	not_ok "--arch riscv32: $(cat "$T/err")"
"$tc" vm --arch riscv64 --kernel "$top/README.md" --build "$kdir" -- run >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'not a riscv Image' "$T/err" && ok "--arch riscv64 refuses a file without the Image header" ||
	not_ok "--arch riscv64 with README.md: $(cat "$T/err")"
"$tc" vm --arch riscv64 --accel kvm --kernel "$kernel" --build "$kdir" -- run >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && ok "--arch riscv64 --accel kvm on x86-64: exit 2 ($(cat "$T/err"))" ||
	not_ok "--accel kvm: $(cat "$T/err")"

K="--arch riscv64 --kernel $kernel --build $kdir --name stock"
# one -smp 2 boot: the module is cross-built, loaded and run on both CPUs
# shellcheck disable=SC2086
"$tc" vm $K --smp 2 --json "$T/smp.json" --console "$vm/smp.console" -- run --suite kernel \
	--samples 2000 --pairs irq,preempt,irq_save,ref16 >"$T/smp.txt" 2>"$T/smp.err"
rc=$?
[ $rc -eq 0 ] && ok "smp 2: kernel suite ran on riscv64" ||
	not_ok "smp 2: exit $rc: $(head -5 "$T/smp.err")"
jqcheck "$T/smp.json" '.suite == "kernel" and .vm.config == "stock" and .uname.machine == "riscv64"' \
	"smp 2: result labelled, from a riscv64 guest"
jqcheck "$T/smp.json" '[.kernel.pairs[].cells[0] | [.snapshots[] | .cpu] | unique] | all(. == [0,1])' \
	"smp 2: both CPUs reported for every pair"
jqcheck "$T/smp.json" '.counter.name | test("^time")' "smp 2: timed on the time CSR"

# The module for the deterministic boots, cross-built here so that its code
# can be read: for each pair, the instructions of loop_<pair>_pmc between
# t0's "rdinstret t0; sd t0" and t1's "rdinstret", walked as the CPU runs
# them with interrupts on, no reschedule pending and no probe: "j" is
# followed, a conditional branch is not taken, except the one that skips
# preempt_enable()'s call of the scheduler when TIF_NEED_RESCHED (bit 3 of
# the thread's flags: "srl x, x, 0x3; and x, x, 1; beqz x, ...") is clear.
# The empty loop's region is t0's sd, which O removes; so each median must
# be exactly this count.
mk=$vm/module-src
rm -rf "$mk" && mkdir -p "$mk/kernel" && cp -r "$top/lib" "$top/include" "$mk/" &&
	cp -r "$top/kernel/module" "$mk/kernel/"
make -s -C "$kdir" ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- M="$mk/kernel/module" modules \
	>"$vm/kbuild.log" 2>&1 || { cat "$vm/kbuild.log"; die "module cross build against $kdir failed"; }
grep -q warning "$vm/kbuild.log" && not_ok "module cross-builds without warnings: $(grep warning "$vm/kbuild.log" | head -2)"
ko=$mk/kernel/module/tracecost.ko
riscv64-linux-gnu-objdump -d --no-show-raw-insn "$ko" >"$vm/tracecost.dis"
# count PAIR: the walk described above
count() {
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
want=$(printf '{"irq":%s,"preempt":%s,"irq_save":%s,"ref16":%s}' \
	"$(count irq)" "$(count preempt)" "$(count irq_save)" "$(count ref16)")
echo "$vm_name: instructions per pair in the module's code: $want"
[ "$(count ref16)" = 16 ] && ok "disassembly: ref16 is 16 instructions" ||
	not_ok "disassembly: ref16 is $(count ref16) instructions, not 16"

# two deterministic boots: instret under -icount shift=0
D="--arch riscv64 --kernel $kernel --module $ko --name stock"
for i in 1 2; do
	# shellcheck disable=SC2086
	"$tc" vm $D --deterministic --json "$T/d$i.json" --console "$vm/det$i.console" \
		-- run --suite kernel --samples 2000 --pairs irq,preempt,irq_save,ref16 \
		--unit ticks >"$T/d$i.txt" 2>"$T/d$i.err"
	rc=$?
	[ $rc -eq 0 ] && ok "deterministic boot $i: kernel suite ran" ||
		not_ok "deterministic boot $i: exit $rc: $(head -5 "$T/d$i.err")"
done
cp "$T"/d1.json "$T"/d2.json "$T"/smp.json "$vm"/ 2>/dev/null
jqcheck "$T/d1.json" '.counter.name | test("^instret")' "deterministic: timed on instret"
med() { jq -c '[.kernel.pairs[] | {(.name): .cells[0].stats.median}] | add' "$1" 2>/dev/null; }
a=$(med "$T/d1.json")
b=$(med "$T/d2.json")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "two deterministic boots: identical medians $a" ||
	not_ok "deterministic medians differ: '$a' vs '$b'"
st() { jq -c '[.kernel.pairs[] | .name as $p | .cells[] | [$p, .configuration, .stats.median, .stats.min, .stats.max]]' "$1" 2>/dev/null; }
[ "$(st "$T/d1.json")" = "$(st "$T/d2.json")" ] && ok "two deterministic boots: identical medians, minima, maxima" ||
	not_ok "deterministic statistics differ"
[ "$a" = "$want" ] && ok "deterministic: medians are exactly the instruction counts of the module's code $want" ||
	not_ok "deterministic medians $a, not the code's $want"

# the user suite, deterministic: the sampler of the tracecost built with
# -DTC_CLOCK_INSTRET (build-riscv64-instret/) reads instret too (user access
# granted by the module, loaded by the guest's init): identical on two
# boots, and each static-key site is two instructions (the flag test: a
# load of the count and a branch), so the irq and preempt pairs (two sites)
# read exactly 4 more under "static" than "stock"
for i in 1 2; do
	# shellcheck disable=SC2086
	"$tc" vm $D --deterministic --json "$T/u$i.json" -- run --suite user --samples 2000 \
		--unit ticks >"$T/u$i.txt" 2>"$T/u$i.err"
	rc=$?
	[ $rc -eq 0 ] && ok "deterministic user suite $i ran" ||
		not_ok "deterministic user suite $i: exit $rc: $(head -3 "$T/u$i.err")"
done
jqcheck "$T/u1.json" '.counter.name | test("^instret")' "user suite: sampled on instret"
um() { jq -c '[.user.pairs[] | .name as $p | .cells[] | [$p, .configuration, .stats.median, .stats.min]]' "$1" 2>/dev/null; }
[ -n "$(um "$T/u1.json")" ] && [ "$(um "$T/u1.json")" = "$(um "$T/u2.json")" ] &&
	ok "user suite: identical medians and minima on two boots" ||
	not_ok "user suite differs: $(um "$T/u1.json") vs $(um "$T/u2.json")"
jqcheck "$T/u1.json" '[.user.pairs[] | select(.name == "irq" or .name == "preempt") | ([.cells[] | {(.configuration): .stats.median}] | add) | .static - .stock] == [4, 4]' \
	"user suite: static = stock + 4 instructions (a load and a branch per static-key site) for irq and preempt"
cp "$T"/u1.json "$vm"/ 2>/dev/null

# the system suite inside
# shellcheck disable=SC2086
"$tc" vm $D --deterministic --json "$T/s.json" -- run --suite system --profiles none \
	--repeat 1 --workloads getpid,pipe --calls 2000 --round-trips 200 >"$T/s.txt" 2>"$T/s.err"
rc=$?
[ $rc -eq 0 ] && jqcheck "$T/s.json" '.suite == "system" and .vm.deterministic' "system suite in the riscv64 guest" ||
	not_ok "system suite: exit $rc: $(head -3 "$T/s.err")"

summary "$vm_name"
