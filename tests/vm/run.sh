#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-kernel: build tracecost.ko for Debian's kernel, boot that kernel
# under QEMU (TCG: this machine's KVM does not run a stock kernel) with a
# busybox initramfs holding the module and a static tracecost, run the kernel
# suite inside (tests/vm/guest-init.sh), and assert on what comes back.
# Never asserts absolute times: under TCG they mean nothing.
#   boot 1 (-smp 2): both CPUs in every pair, statistics and their order,
#           one-CPU run, bad debugfs values refused, second trigger refused,
#           tracepoints recorded and the instance removed, rmmod;
#   boots 2+3 (DETERMINISTIC, -icount shift=0, -smp 1): medians of irq,
#           preempt, irq_save and ref16 are exactly their instruction counts
#           (4, 3, 10, 16) on both boots, with and without --do-work.
# Usage: tests/vm/run.sh BUILD_DIR   (BUILD_DIR/tracecost-static must exist)
set -u
O=$(readlink -f "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm
mkdir -p "$vm"
. "$top/tests/vm/lib.sh"

# The kernel: the release of Debian's linux-headers-amd64 and its image.
vm_debian_kernel
echo "check-kernel: kernel $kver, $vmlinuz"

# The module, built against the matching headers.
vm_module "$kdir" "$vm/tracecost.ko"
grep -a -o 'vermagic=[^ ]*' "$vm/tracecost.ko" | grep -qx "vermagic=$kver" &&
	ok "module built for $kver (vermagic)" || not_ok "module vermagic is not $kver"

# The initramfs.
vm_initrd "$vm/initrd.gz" "$top/tests/vm/guest-init.sh" "$vm/tracecost.ko" "$O/tracecost-static"

# boot NAME MODE TIMEOUT QEMU-ARGS...: Debian's kernel
boot() {
	_b_name=$1 _b_mode=$2 _b_limit=$3
	shift 3
	vm_boot "$_b_name" "$_b_mode" "$_b_limit" "$vmlinuz" "$vm/initrd.gz" "" "$@"
}
extract() { vm_extract "$@"; }

# the -smp 2 boot: retried once with one TCG thread if QEMU stalls a vCPU
VM_RETRY_STALL=1
boot smp smp 600 --smp 2
VM_RETRY_STALL=0
if extract smp r.json; then
	f=$vm/smp-r.json
	jqcheck "$f" '.suite == "kernel" and .file_version == 1' "r.json: kernel suite result"
	jqcheck "$f" '(.kernel.pairs | length) == 7' "r.json: seven pairs"
	# Debian's kernel has no preemptirq events: the "+" column is the stand-in
	# "+pair" (tracecost:pair inside each pair), labelled as such
	jqcheck "$f" '. as $f | [.kernel.configurations[].name] | length == 2 and (.[1] | endswith(if ($f.kernel.events | test("preemptirq")) then "+" else "+pair" end))' \
		"r.json: columns <release> and <release>+ (preemptirq) or <release>+pair (stand-in)"
	jqcheck "$f" '.kernel.pair_event_column == (.kernel.events | test("tracecost:pair"))' \
		"r.json: the tracecost:pair event is a column of its own"
	jqcheck "$f" '[.kernel.pairs[].cells[] | [.snapshots[] | .cpu] | unique] | all(. == [0,1])' \
		"r.json: both CPUs reported for every pair and column"
	jqcheck "$f" '[.kernel.pairs[].cells[].snapshots[] | .n] | all(. == 2000)' \
		"r.json: every CPU x repetition took its 2000 samples"
	jqcheck "$f" '[.kernel.pairs[].cells[] | .stats | (has("average") and has("median") and has("max_avg") and has("percentile") and has("min") and has("max"))] | all' \
		"r.json: every statistic present"
	jqcheck "$f" '[.kernel.pairs[].cells[] | (.stats, .stats_1cpu) | (.min <= .median and .median <= .percentile and .percentile <= .max and .max_avg <= .max)] | all' \
		"r.json: min <= median <= percentile <= max, max_avg <= max"
	jqcheck "$f" '.kernel.configurations[1].events_recorded > 0' \
		"r.json: tracepoints on recorded events ($(jq -r .kernel.events "$f"))"
	jqcheck "$f" '.kernel.configurations[0].events_recorded == 0' "r.json: no events with tracepoints off"
else
	not_ok "r.json came back as JSON"
fi
if extract smp one.json; then
	jqcheck "$vm/smp-one.json" '([.kernel.pairs[].cells[].stats.n] | all(. == 2000)) and .cpus == [0]' \
		"one.json: --cpus 0 has samples on CPU 0"
else
	not_ok "one.json came back as JSON"
fi

if [ "${DETERMINISTIC:-1}" = 1 ]; then
	det=--deterministic
	# shellcheck disable=SC2086
	boot det1 det 900 $det
	# shellcheck disable=SC2086
	boot det2 det 900 $det
	# Exact pairs: under -icount one tick is one instruction, so the median of
	# each pair is the instruction count of the pair itself, as the kernel
	# patched it at load (nothing of ours is inside the timed region: see the
	# commit that added this, and objdump -d kernel/module/tracecost.ko). On Debian's
	# 6.1 (x86-64, PARAVIRT; no preemptirq tracing; PREEMPT_DYNAMIC):
	#   irq       call *pv_ops.irq_disable -> cli; nop5
	#             call *pv_ops.irq_enable  -> sti; nop5                =  4
	#   preempt   incl %gs:__preempt_count; decl %gs:__preempt_count;
	#             je <preempt_schedule> (not taken: no reschedule pending,
	#             the sampler clears it before each loop)                =  3
	#   irq_save  call *pv_ops.save_fl -> pushf; pop %rax; nop4 (3);
	#             mov %rax,%rdx; cli; nop5; and $0x2,%dh; je (not taken);
	#             sti; nop5                                              = 10
	#   ref16     16 NOPs                                                = 16
	# Two boots, with and without --do-work (calibrated out exactly).
	want='{"irq":4,"preempt":3,"irq_save":10,"ref16":16}'
	med() { jq -c '[.kernel.pairs[] | select(.name == "irq" or .name == "preempt" or .name == "irq_save" or .name == "ref16") | {(.name): .cells[0].stats.median}] | add' "$1"; }
	for b in det1 det2; do
		for f in d.json dw.json; do
			if extract "$b" "$f"; then
				got=$(med "$vm/$b-$f")
				[ "$(echo "$got" | jq -S -c .)" = "$(echo "$want" | jq -S -c .)" ] &&
					ok "deterministic $b $f: medians are the pairs' instruction counts $got" ||
					not_ok "deterministic $b $f: medians $got, want $want"
				jqcheck "$vm/$b-$f" '[.kernel.resched_samples[][]] | all(. < 1500)' \
					"deterministic $b $f: fewer than half the samples saw a pending reschedule ($(jq -c .kernel.resched_samples "$vm/$b-$f"))"
			else
				not_ok "deterministic $b $f came back as JSON"
			fi
		done
	done
fi

summary check-kernel
