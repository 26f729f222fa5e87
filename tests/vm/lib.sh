#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/vm/lib.sh: what the QEMU tests share (tests/vm/run.sh on Debian's
# kernel, tests/vm/stress.sh on the debug kernel of make kernels,
# tests/vm/noise.sh with an isolated CPU): TAP-like
# counters, the busybox initramfs, one boot with its console checks, and the
# JSON the guest sends back. Source it after setting vm (the work directory).
#
# The guest (an /init script) writes "TEST <name> ok|FAIL <detail>" lines and
# JSON between "@@BEGIN <name>" and "@@END" to the second serial port, and
# "@@DONE" last; the console (first serial port) has the kernel log.

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
not_ok() { fail=$((fail + 1)); echo "FAIL - $1"; }
die() { echo "${vm_name:-check-kernel}: $*" >&2; exit 1; }

# Kernel log lines that fail a boot: panics, oopses, WARNINGs, BUGs (KASAN,
# sleeping in atomic context, ...), lockdep reports, hung tasks, lockups,
# RCU stalls, debugobjects.
vm_splat='Kernel panic|Oops|WARNING:|BUG:|soft lockup|hard LOCKUP|rcu.*self-detected stall|rcu_preempt detected stalls|Call Trace|blocked for more than|possible recursive locking|possible circular locking|inconsistent lock state|possible deadlock|DEBUG_LOCKS_WARN_ON|suspicious RCU usage|KASAN|ODEBUG|UBSAN'

# vm_initrd OUT INIT KO STATIC-TRACECOST: a gzip'ed newc initramfs with
# busybox, the static tracecost, tracecost.ko (none when KO is "-") and INIT
# as /init.
vm_initrd() {
	_root=$vm/root
	rm -rf "$_root"
	mkdir -p "$_root/bin" "$_root/proc" "$_root/sys" "$_root/dev" "$_root/tmp" "$_root/run"
	cp /bin/busybox "$_root/bin/busybox"
	cp "$4" "$_root/tracecost"
	[ "$3" = - ] || cp "$3" "$_root/tracecost.ko"
	cp "$2" "$_root/init"
	chmod +x "$_root/init"
	(cd "$_root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$1"
}

# vm_qemu_stall CONSOLE: did a timed-out boot stop on a virtual CPU that
# stopped running, outside our code? A CPU's timers stopped firing (RCU's
# "timer wakeup didn't happen", or a soft lockup of a CPU waiting for the
# other one's IPI) while no stack of the log has a frame of tracecost.ko.
# Seen once in about ten -smp 2 boots of QEMU 7.2's multi-threaded TCG on a
# 2-CPU host: CPU 1 froze in __schedule() (its clock stopped) before any
# sample was taken, and CPU 0 waited for its text_poke IPI for good.
vm_qemu_stall() {
	grep -q -E "timer wakeup didn't happen|soft lockup - CPU#[0-9]+ stuck" "$1" &&
		! grep -q -E '\+0x[0-9a-f]+/0x[0-9a-f]+ \[tracecost\]' "$1"
}

# vm_qemu NAME TIMEOUT KERNEL INITRD MODE CMDLINE-EXTRA QEMU-ARGS...: one boot,
# with $VM_ACCEL (default tcg); returns timeout's status (124: timed out)
vm_qemu() {
	_q_name=$1 _q_limit=$2 _q_kernel=$3 _q_initrd=$4 _q_mode=$5 _q_extra=$6
	shift 6
	rm -f "$vm/$_q_name.console" "$vm/$_q_name.data"
	timeout "$_q_limit" qemu-system-x86_64 -accel "${VM_ACCEL:-tcg}" -m 1024 -nodefaults \
		-display none -no-reboot -kernel "$_q_kernel" -initrd "$_q_initrd" \
		-append "console=ttyS0 panic=-1 oops=panic softlockup_panic=0 tcmode=$_q_mode $_q_extra" \
		-serial "file:$vm/$_q_name.console" -serial "file:$vm/$_q_name.data" "$@"
}

# vm_boot NAME MODE TIMEOUT KERNEL INITRD CMDLINE-EXTRA QEMU-ARGS...
# Boots, then asserts: powered off in time, the guest script completed, the
# console log has no splat, and every TEST line of the guest. With
# VM_RETRY_STALL=1, a boot that timed out on a QEMU vCPU stall
# (vm_qemu_stall) is booted once more with one TCG thread (thread=single),
# its console kept as NAME.stall.console and the retry said in a line; a
# hang of ours (a tracecost.ko frame on a stack) or a second stall fails.
vm_boot() {
	_name=$1 _mode=$2 _limit=$3 _kernel=$4 _initrd=$5 _extra=$6
	shift 6
	vm_qemu "$_name" "$_limit" "$_kernel" "$_initrd" "$_mode" "$_extra" "$@"
	_rc=$?
	if [ "$_rc" -eq 124 ] && [ "${VM_RETRY_STALL:-0}" = 1 ] &&
	   vm_qemu_stall "$vm/$_name.console"; then
		mv "$vm/$_name.console" "$vm/$_name.stall.console"
		echo "note - $_name: timed out on a virtual CPU that stopped outside tracecost.ko" \
			"(QEMU TCG; console kept as $vm/$_name.stall.console): booting again with one TCG thread"
		_accel=${VM_ACCEL:-tcg}
		VM_ACCEL=tcg,thread=single
		vm_qemu "$_name" "$_limit" "$_kernel" "$_initrd" "$_mode" "$_extra" "$@"
		_rc=$?
		VM_ACCEL=$_accel
	fi
	tr -d '\r' <"$vm/$_name.data" >"$vm/$_name.txt"
	[ "$_rc" -eq 124 ] && not_ok "$_name: timeout after $_limit s" || ok "$_name: booted and powered off"
	grep -q '^@@DONE' "$vm/$_name.txt" && ok "$_name: guest script completed" ||
		not_ok "$_name: guest script did not complete (console: $vm/$_name.console)"
	if grep -E "$vm_splat" "$vm/$_name.console" >"$vm/$_name.bad"; then
		not_ok "$_name: console log clean: $(head -3 "$vm/$_name.bad")"
	else
		ok "$_name: console log has no panic, oops, WARNING, BUG, lockdep, hung task, lockup or stall"
	fi
	grep '^TEST ' "$vm/$_name.txt" | while read -r _ tname res detail; do
		echo "$tname $res $detail"
	done >"$vm/$_name.tests"
	while read -r tname res detail; do
		[ "$res" = ok ] && ok "$_name: $tname" || not_ok "$_name: $tname: $detail"
	done <"$vm/$_name.tests"
}

# vm_extract NAME FILE: the JSON the guest sent between markers, into $vm/NAME-FILE
vm_extract() {
	awk -v f="$2" '$0 == "@@BEGIN " f { on = 1; next } /^@@END/ { on = 0 } on' "$vm/$1.txt" >"$vm/$1-$2"
	jq -e . "$vm/$1-$2" >/dev/null 2>&1
}

jqcheck() { # jqcheck FILE EXPR DESC
	if jq -e "$2" "$1" >/dev/null 2>&1; then ok "$3"; else not_ok "$3"; fi
}

# vm_module KDIR OUT: build kmod/ against the kbuild tree KDIR, copy the .ko to OUT
vm_module() {
	make -s -C "$1" M="$top/kmod" clean >/dev/null 2>&1
	make -s -C "$1" M="$top/kmod" modules >"$vm/kbuild.log" 2>&1 ||
		{ cat "$vm/kbuild.log"; die "module build against $1 failed"; }
	grep -q "warning" "$vm/kbuild.log" && { cat "$vm/kbuild.log"; not_ok "module builds without warnings against $1"; }
	cp "$top/kmod/tracecost.ko" "$2"
}

