#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-noise-vm: boot Debian's kernel under QEMU (TCG) with -smp 2 and
# CPU 1 isolated (nohz_full=1 isolcpus=nohz,domain,1 rcu_nocbs=1), with a
# busybox initramfs holding a static tracecost, run "tracecost noise" there
# (tests/vm/noise-init.sh) and assert on what comes back: with a load that
# forces TLB-shootdown IPIs to CPU 1, a non-zero IPI count on CPU 1 grouped by
# a cause that names the flush; with --load none, a complete per-CPU report;
# tracefs as it was, after a normal end and after SIGINT; bad CPU lists exit 2.
# Same approach as tests/vm/run.sh (kernel image, initramfs); no thresholds
# from single runs, no absolute times (TCG).
# Usage: tests/vm/noise.sh BUILD_DIR   (BUILD_DIR/tracecost-static must exist)
set -u
O=$(readlink -f "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm-noise
mkdir -p "$vm"
vm_name=check-noise-vm
. "$top/tests/vm/lib.sh"

# The kernel: the release of Debian's linux-headers-amd64 and its image.
vm_debian_kernel
echo "check-noise-vm: kernel $kver, $vmlinuz"

vm_initrd "$vm/initrd.gz" "$top/tests/vm/noise-init.sh" - "$O/tracecost-static"

# -smp 2, retried once with one TCG thread if QEMU stalls a vCPU (lib.sh)
VM_RETRY_STALL=1
vm_boot noise noise 600 "$vmlinuz" "$vm/initrd.gz" \
	"nohz_full=1 isolcpus=nohz,domain,1 rcu_nocbs=1" --smp 2
VM_RETRY_STALL=0
grep -q '^@@START .*nohz_full=1$' "$vm/noise.txt" && ok "guest: CPU 1 is nohz_full" ||
	not_ok "guest: nohz_full is not CPU 1: $(grep '^@@START' "$vm/noise.txt")"

extract() { # extract NAME: the file the guest sent between markers
	awk -v f="$1" '$0 == "@@BEGIN " f { on = 1; next } /^@@END/ { on = 0 } on' "$vm/noise.txt" >"$vm/$1"
}
jqcheck() { # jqcheck FILE EXPR DESC (jq 1.6 -e passes an empty file: refuse it here)
	if [ -s "$1" ] && jq -e "$2" "$1" >/dev/null 2>&1; then ok "$3"; else not_ok "$3"; fi
}

extract tlb.txt
sed 's/^/  | /' "$vm/tlb.txt"
if extract tlb.json && [ -s "$vm/tlb.json" ] && jq -e . "$vm/tlb.json" >/dev/null 2>&1; then
	f=$vm/tlb.json
	jqcheck "$f" '.suite == "noise" and .file_version == 1 and .cpus == [1]' \
		"tlb.json: a noise result for CPU 1"
	jqcheck "$f" '.noise.targets[0].isolated and (.noise.targets[0].isolation | test("nohz_full"))' \
		"tlb.json: CPU 1 reported isolated ($(jq -r '.noise.targets[0].isolation' "$f"))"
	jqcheck "$f" '.noise.targets[0].ipis > 0' \
		"tlb.json: IPIs to CPU 1: $(jq -r '.noise.targets[0].ipis' "$f") ($(jq -r .noise.ipis_counted "$f"))"
	ipi_events=$(jq -c '[.noise.events[] | select(.ipi) | "\(.system):\(.name)"]' "$f")
	jqcheck "$f" "[.noise.targets[0].counts[] | select(.event as \$e | $ipi_events | index(\$e)) |
		select(.count > 0 and (.cause | test(\"flush\")))] | length > 0" \
		"tlb.json: an IPI count on CPU 1 grouped by a cause naming the flush: $(jq -c "[.noise.targets[0].counts[] | select(.event as \$e | $ipi_events | index(\$e)) | {event, cause, count}] | .[0:3]" "$f")"
	jqcheck "$f" '.noise.targets[0].loop.kind == "getpid" and .noise.targets[0].loop.calls > 0 and
		.noise.targets[0].loop.ns_per_call.median > 0' "tlb.json: getpid figures beside the counts"
	jqcheck "$f" '[.noise.events[] | select(.system != "ipi" or .filter != "") | .filter | length > 0] | all' \
		"tlb.json: every target-side event filtered in the kernel"
	jqcheck "$f" '.noise.events_lost == 0' "tlb.json: no event lost"
else
	not_ok "tlb.json came back as JSON"
fi
if extract none.json && [ -s "$vm/none.json" ] && jq -e . "$vm/none.json" >/dev/null 2>&1; then
	jqcheck "$vm/none.json" '.noise.load == "none" and (.noise.targets | length) == 1 and
		.noise.targets[0].cpu == 1 and (.noise.targets[0].counts | type) == "array" and
		.noise.targets[0].loop.calls > 0' \
		"none.json: --load none completes with a row for CPU 1 ($(jq -c '[.noise.targets[0].counts[] | {event, cause, count}] | .[0:4]' "$vm/none.json"))"
	if [ -x "$O/tracecost" ] && "$O/tracecost" compare "$vm/none.json" "$vm/tlb.json" \
		--label none --label tlb >"$vm/compare.txt" 2>&1; then
		grep -q "more" "$vm/compare.txt" && ok "compare reads both files: tlb has more" ||
			not_ok "compare: no 'more' verdict: $(head -20 "$vm/compare.txt")"
	else
		not_ok "compare none.json tlb.json: $(head -3 "$vm/compare.txt" 2>/dev/null)"
	fi
else
	not_ok "none.json came back as JSON"
fi

summary check-noise-vm
