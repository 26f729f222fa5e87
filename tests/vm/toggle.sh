#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# How often does a kernel die on a stale int3 while its static keys are
# switched? Boots the x86-64 kernel NAME of make kernels (under
# KERNEL_CACHE) BOOTS times (default 10), one boot at a time, under QEMU
# -smp 2 with tests/vm/guest-toggle.sh as /init: events/preemptirq switched
# on and off TOGGLES times (default 40) while a dd makes system calls, so
# that one CPU patches the inline static-key sites (text_poke_bp_batch)
# while the other runs through them. Prints one line per boot (clean, or
# the int3 and the function it hit) and the count; the console of each
# boot is kept as BUILD_DIR/vm-toggle/NAME.N.console.
#
# A reproducer for doc/seed-table.md ("A stale int3 under multi-threaded
# TCG"), not a test: VM_ACCEL=tcg (the default here) is QEMU's
# multi-threaded TCG, where the patched preemptirq kernel dies within a
# few toggles; VM_ACCEL=tcg-single is one TCG thread for both vCPUs.
# TOGGLE=ftrace switches the function tracer (current_tracer function/nop)
# instead of the events: the same batches on a kernel without the series.
# The qemu-system-x86_64 first in PATH is the one booted. Run it under
# nice; it is in no make target and not in CI.
# Usage: tests/vm/toggle.sh BUILD_DIR KERNEL_CACHE NAME [BOOTS [TOGGLES]]
#   (BUILD_DIR/tracecost and BUILD_DIR/tracecost-static must exist)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vm_name=toggle
if [ $# -lt 3 ] || [ $# -gt 5 ]; then
	echo "usage: tests/vm/toggle.sh BUILD_DIR KERNEL_CACHE NAME [BOOTS [TOGGLES]]" >&2
	exit 2
fi
boots=${4:-10} toggles=${5:-40} what=${TOGGLE:-events}
case "$what" in
events|ftrace) ;;
*) echo "toggle: TOGGLE is events or ftrace, not '$what'" >&2; exit 2 ;;
esac
case "$boots$toggles" in
*[!0-9]*) echo "toggle: BOOTS and TOGGLES are numbers, not '$boots' '$toggles'" >&2; exit 2 ;;
esac
O=$(readlink -f "$1")
kernel=$(readlink -f "$2")/$3/arch/x86/boot/bzImage
vm=$O/vm-toggle
. "$top/tests/vm/lib.sh"
[ -x "$O/tracecost-static" ] || die "$O/tracecost-static is missing (make $O/tracecost-static)"
[ -r "$kernel" ] || die "no kernel $3 in $2 (make kernels KERNELS=$3)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not in PATH"
accel=${VM_ACCEL:-tcg}
mkdir -p "$vm"
vm_initrd "$vm/initrd.gz" "$top/tests/vm/guest-toggle.sh" - "$O/tracecost-static"
echo "toggle: $3, $(qemu-system-x86_64 --version | head -1), --accel $accel, $boots boots of $toggles toggles of $what"
n=0 died=0 clean=0 other=0
while [ $n -lt "$boots" ]; do
	n=$((n + 1))
	con=$vm/$3.$n.console
	"$O/tracecost" vm --arch x86_64 --accel "$accel" --memory 1024 --timeout 900 \
		--kernel "$kernel" --initrd "$vm/initrd.gz" --console "$con" --data "$vm/$3.data" \
		--append "softlockup_panic=0 tctoggles=$toggles tctoggle=$what" --smp 2 2>"$vm/$3.err"
	rc=$?
	done=$(tr -d '\r' <"$vm/$3.data" 2>/dev/null | grep -c '^toggled')
	int3=$(grep -m1 -o 'int3: [0-9a-f]* \[#1\]' "$con")
	rip=$(grep -m1 -o 'RIP: 0010:[^ ]*' "$con" | sed 's/RIP: 0010://')
	if [ -n "$int3" ]; then
		died=$((died + 1))
		echo "boot $n: $int3 at $rip after $done toggles"
	elif [ $rc -eq 0 ] && tr -d '\r' <"$vm/$3.data" | grep -q "^TEST toggles ok $toggles "; then
		clean=$((clean + 1))
		echo "boot $n: $toggles toggles, clean"
	elif [ ! -s "$vm/$3.err" ]; then
		# QEMU exited on the guest's reset (-no-reboot) with no splat in
		# the console: a triple fault, say
		other=$((other + 1))
		echo "boot $n: the guest reset without a splat after $done toggles"
	else
		other=$((other + 1))
		echo "boot $n: failed otherwise after $done toggles: $(head -1 "$vm/$3.err")"
	fi
done
echo "toggle: $died of $n boots died on an int3, $clean clean, $other failed otherwise"
