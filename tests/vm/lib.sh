#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/vm/lib.sh: what the QEMU tests share (tests/vm/run.sh on Debian's
# kernel, tests/vm/stress.sh on the debug kernel of make kernels): TAP-like
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
# busybox, the static tracecost, tracecost.ko and INIT as /init.
vm_initrd() {
	_root=$vm/root
	rm -rf "$_root"
	mkdir -p "$_root/bin" "$_root/proc" "$_root/sys" "$_root/dev" "$_root/tmp" "$_root/run"
	cp /bin/busybox "$_root/bin/busybox"
	cp "$4" "$_root/tracecost"
	cp "$3" "$_root/tracecost.ko"
	cp "$2" "$_root/init"
	chmod +x "$_root/init"
	(cd "$_root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$1"
}

# vm_boot NAME MODE TIMEOUT KERNEL INITRD CMDLINE-EXTRA QEMU-ARGS...
# Boots, then asserts: powered off in time, the guest script completed, the
# console log has no splat, and every TEST line of the guest.
vm_boot() {
	_name=$1 _mode=$2 _limit=$3 _kernel=$4 _initrd=$5 _extra=$6
	shift 6
	rm -f "$vm/$_name.console" "$vm/$_name.data"
	timeout "$_limit" qemu-system-x86_64 -accel tcg -m 1024 -nodefaults -display none \
		-no-reboot -kernel "$_kernel" -initrd "$_initrd" \
		-append "console=ttyS0 panic=-1 oops=panic softlockup_panic=0 tcmode=$_mode $_extra" \
		-serial "file:$vm/$_name.console" -serial "file:$vm/$_name.data" "$@"
	_rc=$?
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

