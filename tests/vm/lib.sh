#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/vm/lib.sh: what the QEMU tests share (tests/vm/run.sh on Debian's
# kernel, tests/vm/stress.sh on the debug kernel of make kernels,
# tests/vm/noise.sh with an isolated CPU, tests/vm/vm.sh): TAP-like
# counters and lines (tests/lib.sh), Debian's kernel, the busybox initramfs, one boot through
# tracecost vm with its console checks, and the JSON the guest sends back.
# Source it after setting O (the build directory, with tracecost), top and
# vm (the work directory).
#
# The guest (an /init script sourcing /guest-lib.sh) writes "TEST <name>
# ok|FAIL <detail>" lines and JSON between "@@BEGIN <name>" and "@@END" to
# its data port, and "@@DONE" last; the console has the kernel log.

# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
die() { echo "${vm_name:-check-kernel}: $*" >&2; exit 1; }

# vm_debian_kernel: Debian's kernel of linux-headers-amd64 (the one fetch of
# the QEMU tests): sets kver, kdir (its headers, the module's build tree) and
# vmlinuz (/boot's, else the image package unpacked into $O/vm/image once).
vm_debian_kernel() {
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/.*linux-headers-\([0-9][^ ,]*-amd64\).*/\1/p')
	[ -n "$kver" ] || die "linux-headers-amd64 is not installed (make deps-kernel)"
	kdir=/usr/src/linux-headers-$kver
	[ -d "$kdir" ] || die "$kdir is missing"
	vmlinuz=/boot/vmlinuz-$kver
	[ -r "$vmlinuz" ] && return 0
	_img=$O/vm/image
	vmlinuz=$_img/boot/vmlinuz-$kver
	[ -r "$vmlinuz" ] && return 0
	# unpack the image package; its postinst (initramfs, grub) never runs
	mkdir -p "$_img"
	(cd "$_img" && rm -f linux-image-*.deb && apt-get download "linux-image-$kver" >/dev/null 2>&1) ||
		die "cannot download linux-image-$kver (apt-get download)"
	dpkg-deb -x "$_img"/linux-image-"$kver"_*.deb "$_img" || die "dpkg-deb -x failed"
	rm -f "$_img"/linux-image-*.deb
}

# vm_initrd OUT INIT KO STATIC-TRACECOST: a gzip'ed newc initramfs with
# busybox ($VM_BUSYBOX, default /bin/busybox; an arm64 guest's is
# /var/lib/tracecost/arm64/busybox), the static tracecost, tracecost.ko (none
# when KO is "-"), the guests' preamble kernel/vm/guest-lib.sh and INIT as
# /init.
vm_initrd() {
	_root=$vm/root
	rm -rf "$_root"
	mkdir -p "$_root/bin" "$_root/proc" "$_root/sys" "$_root/dev" "$_root/tmp" "$_root/run"
	cp "${VM_BUSYBOX:-/bin/busybox}" "$_root/bin/busybox"
	cp "$4" "$_root/tracecost"
	[ "$3" = - ] || cp "$3" "$_root/tracecost.ko"
	cp "$top/kernel/vm/guest-lib.sh" "$_root/guest-lib.sh"
	cp "$2" "$_root/init"
	chmod +x "$_root/init"
	(cd "$_root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$1"
}

# vm_boot NAME MODE TIMEOUT KERNEL INITRD CMDLINE-EXTRA VM-OPTIONS...
# One boot through `tracecost vm --initrd` (src/cmd_vm.c, the project's one
# QEMU boot path, with $VM_ACCEL, default tcg, 1 GiB), VM-OPTIONS its boot
# options (--smp 2, --deterministic); tcmode=MODE on the command line. Then
# asserts: powered off in time and the console log clean (tracecost vm's
# checks: no panic, oops, WARNING, BUG, lockdep, hung task, lockup or
# stall), the guest script completed, and every TEST line of the guest.
# With VM_RETRY_STALL=1, a boot that timed out on a QEMU vCPU stall outside
# tracecost.ko is booted once more with one TCG thread (--retry-stall: the
# console kept as NAME.console.stall and the retry said in a line).
vm_boot() {
	_name=$1 _mode=$2 _limit=$3 _kernel=$4 _initrd=$5 _extra=$6
	shift 6
	_retry=""
	[ "${VM_RETRY_STALL:-0}" = 1 ] && _retry=--retry-stall
	rm -f "$vm/$_name.console" "$vm/$_name.data" "$vm/$_name.vm.err"
	"$O/tracecost" vm --arch "${VM_ARCH:-x86_64}" --accel "${VM_ACCEL:-tcg}" --memory 1024 \
		--timeout "$_limit" --kernel "$_kernel" --initrd "$_initrd" \
		--console "$vm/$_name.console" --data "$vm/$_name.data" $_retry \
		--append "softlockup_panic=0 tcmode=$_mode $_extra" "$@" 2>"$vm/$_name.vm.err"
	_rc=$?
	grep '^note - ' "$vm/$_name.vm.err" | sed "s/^note - /note - $_name: /"
	[ -f "$vm/$_name.data" ] && tr -d '\r' <"$vm/$_name.data" >"$vm/$_name.txt" || : >"$vm/$_name.txt"
	_why=$(grep -v '^note - ' "$vm/$_name.vm.err" | head -1)
	case "$_rc:$_why" in
	0:*) ok "$_name: booted and powered off, console log has no panic, oops, WARNING, BUG, lockdep, hung task, lockup or stall" ;;
	*) not_ok "$_name: $_why"
	   # what tracecost vm showed of the console (a splat's header and
	   # stack, or the tail), so that a CI log says what happened
	   grep '^  ' "$vm/$_name.vm.err" | head -60 ;;
	esac
	grep -q '^@@DONE' "$vm/$_name.txt" && ok "$_name: guest script completed" ||
		not_ok "$_name: guest script did not complete (console: $vm/$_name.console)"
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

# vm_module KDIR OUT: build kernel/module/ against the kbuild tree KDIR, copy the .ko to OUT
vm_module() {
	make -s -C "$1" M="$top/kernel/module" clean >/dev/null 2>&1
	make -s -C "$1" M="$top/kernel/module" modules >"$vm/kbuild.log" 2>&1 ||
		{ cat "$vm/kbuild.log"; die "module build against $1 failed"; }
	grep -q "warning" "$vm/kbuild.log" && { cat "$vm/kbuild.log"; not_ok "module builds without warnings against $1"; }
	cp "$top/kernel/module/tracecost.ko" "$2"
}

