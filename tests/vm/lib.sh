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

# vm_module KDIR OUT: build kernel/module/ against the kbuild tree KDIR, copy
# the .ko to OUT. Built in a copy under $vm (with lib/ and include/, which
# its Kbuild reads), so that two tests, or two architectures, never build in
# the same folder at once. VM_KBUILD: kbuild's ARCH= and CROSS_COMPILE= for
# another architecture's tree (an O= tree does not record them).
vm_module() {
	_mk=$vm/module-src
	rm -rf "$_mk" && mkdir -p "$_mk/kernel" && cp -r "$top/lib" "$top/include" "$_mk/" &&
		cp -r "$top/kernel/module" "$_mk/kernel/" || die "cannot copy kernel/module to $_mk"
	rm -f "$_mk"/kernel/module/*.o "$_mk"/kernel/module/*.ko "$_mk"/kernel/module/.*.cmd
	# shellcheck disable=SC2086
	make -s -C "$1" ${VM_KBUILD:-} M="$_mk/kernel/module" modules >"$vm/kbuild.log" 2>&1 ||
		{ cat "$vm/kbuild.log"; die "module build against $1 failed"; }
	grep -q "warning" "$vm/kbuild.log" && { cat "$vm/kbuild.log"; not_ok "module builds without warnings against $1"; }
	cp "$_mk/kernel/module/tracecost.ko" "$2"
}


# vm_cross_check: tracecost vm end to end on a cross-built guest (make
# check-vm-arm64: tests/vm/arm64.sh, make check-vm-riscv64:
# tests/vm/riscv64.sh), the one body both run with the architecture's names:
#   - bad input for --arch: one line, exit 2; a file without the Image
#     header and --accel kvm on x86-64 refused;
#   - one -smp 2 boot: the module loads, the kernel suite runs on both CPUs;
#   - two --deterministic boots (the module's timed region on the counter
#     that counts instructions under -icount shift=0): identical counts and
#     consoles, and irq, preempt, irq_save and ref16 read exactly the
#     instruction counts of their code, walked in the module's disassembly
#     (ref16: 16 NOPs);
#   - the user suite twice deterministic (its sampler on that counter too):
#     identical, and each static-key site the instructions it should be;
#   - the system suite inside, deterministic.
# Set before calling (besides O, top, vm, vm_name):
#   A        the cross build of tracecost (O-xa, what tracecost vm looks for),
#            A-xclk the one whose sampler reads the deterministic counter
#   kdir     the kernel's kbuild tree (stock of make kernels ARCH=xk)
#   xa xk xcc  tracecost vm's --arch, kbuild's ARCH, the cross prefix
#   xm       the guest's uname -m; xbad an --arch tracecost vm must refuse
#   ximage   tracecost vm's complaint about a file that is not an Image
#   xsmp_re xsmp_name  the -smp 2 boot's counter: regex of .counter.name, name
#   xdet_re xdet_name  the deterministic boots' counter, the same
#   xclk     the suffix of the user-clock build beside A
#   xsite xsite_what   instructions per user static-key site, and what they are
# and define vm_count PAIR: the instructions of the module's loop_PAIR_pmc
# between its two counter reads, walked in $vm/tracecost.dis as the CPU runs
# them (the module is cross-built here and disassembled there), "?" if lost.
vm_cross_check() {
	tc=$O/tracecost
	kernel=$kdir/arch/$xk/boot/Image
	[ -r "$kernel" ] || die "no $xk kernel in $kdir (make kernels ARCH=$xk KERNELS=stock)"
	[ -x "$A/tracecost-static" ] || die "$A/tracecost-static is missing"
	[ -x "$A-$xclk/tracecost-static" ] || die "$A-$xclk/tracecost-static is missing"
	[ "$(dirname "$A")/$(basename "$O")-$xa" = "$A" ] ||
		die "$A is not the cross build beside $O (tracecost vm looks for ${O}-$xa)"
	echo "$vm_name: kernel $(cat "$kdir/include/config/kernel.release"), $kernel"

	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	export TMPDIR=$T/tmp
	mkdir -p "$TMPDIR"

	# bad input: one line, exit 2
	"$tc" vm --arch "$xbad" --kernel "$kernel" --build "$kdir" -- run >"$T/out" 2>"$T/err"
	[ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok "--arch $xbad: exit 2, one line" ||
		not_ok "--arch $xbad: $(cat "$T/err")"
	"$tc" vm --arch "$xa" --kernel "$top/README.md" --build "$kdir" -- run >"$T/out" 2>"$T/err"
	[ $? -eq 2 ] && grep -q "$ximage" "$T/err" && ok "--arch $xa refuses a file without the Image header" ||
		not_ok "--arch $xa with README.md: $(cat "$T/err")"
	"$tc" vm --arch "$xa" --accel kvm --kernel "$kernel" --build "$kdir" -- run >"$T/out" 2>"$T/err"
	[ $? -eq 2 ] && ok "--arch $xa --accel kvm on x86-64: exit 2 ($(cat "$T/err"))" ||
		not_ok "--accel kvm: $(cat "$T/err")"

	K="--arch $xa --kernel $kernel --build $kdir --name stock"
	# one -smp 2 boot: the module is cross-built, loaded and run on both CPUs
	# shellcheck disable=SC2086
	"$tc" vm $K --smp 2 --json "$T/smp.json" --console "$vm/smp.console" -- run --suite kernel \
		--samples 2000 --pairs irq,preempt,irq_save,ref16 >"$T/smp.txt" 2>"$T/smp.err"
	rc=$?
	[ $rc -eq 0 ] && ok "smp 2: kernel suite ran on $xa" ||
		not_ok "smp 2: exit $rc: $(head -5 "$T/smp.err")"
	jqcheck "$T/smp.json" ".suite == \"kernel\" and .vm.config == \"stock\" and .uname.machine == \"$xm\"" \
		"smp 2: result labelled, from a guest whose machine is $xm"
	jqcheck "$T/smp.json" '[.kernel.pairs[].cells[0] | [.snapshots[] | .cpu] | unique] | all(. == [0,1])' \
		"smp 2: both CPUs reported for every pair"
	jqcheck "$T/smp.json" ".counter.name | test(\"$xsmp_re\")" "smp 2: timed on $xsmp_name"

	# the module for the deterministic boots, cross-built here so that its
	# code can be read (vm_count)
	mk=$vm/module-src
	rm -rf "$mk" && mkdir -p "$mk/kernel" && cp -r "$top/lib" "$top/include" "$mk/" &&
		cp -r "$top/kernel/module" "$mk/kernel/"
	make -s -C "$kdir" ARCH="$xk" CROSS_COMPILE="$xcc" M="$mk/kernel/module" modules \
		>"$vm/kbuild.log" 2>&1 || { cat "$vm/kbuild.log"; die "module cross build against $kdir failed"; }
	grep -q warning "$vm/kbuild.log" &&
		not_ok "module cross-builds without warnings: $(grep warning "$vm/kbuild.log" | head -2)"
	ko=$mk/kernel/module/tracecost.ko
	"${xcc}objdump" -d --no-show-raw-insn "$ko" >"$vm/tracecost.dis"
	want=$(printf '{"irq":%s,"preempt":%s,"irq_save":%s,"ref16":%s}' \
		"$(vm_count irq)" "$(vm_count preempt)" "$(vm_count irq_save)" "$(vm_count ref16)")
	echo "$vm_name: instructions per pair in the module's code: $want"
	[ "$(vm_count ref16)" = 16 ] && ok "disassembly: ref16 is 16 instructions" ||
		not_ok "disassembly: ref16 is $(vm_count ref16) instructions, not 16"

	# two deterministic boots: the counter under -icount shift=0
	D="--arch $xa --kernel $kernel --module $ko --name stock"
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
	jqcheck "$T/d1.json" ".counter.name | test(\"$xdet_re\")" "deterministic: timed on $xdet_name"
	_med() { jq -c '[.kernel.pairs[] | {(.name): .cells[0].stats.median}] | add' "$1" 2>/dev/null; }
	a=$(_med "$T/d1.json")
	b=$(_med "$T/d2.json")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok "two deterministic boots: identical medians $a" ||
		not_ok "deterministic medians differ: '$a' vs '$b'"
	_st() { jq -c '[.kernel.pairs[] | .name as $p | .cells[] | [$p, .configuration, .stats.median, .stats.min, .stats.max]]' "$1" 2>/dev/null; }
	[ "$(_st "$T/d1.json")" = "$(_st "$T/d2.json")" ] &&
		ok "two deterministic boots: identical medians, minima, maxima" ||
		not_ok "deterministic statistics differ"
	# the guest's console, timestamps included (guest time: one ns per
	# instruction): identical only if the guest ran the same instructions
	# throughout, which on the virt boards needs QEMU -seed (their device
	# tree's rng-seed)
	cmp -s "$vm/det1.console" "$vm/det2.console" &&
		ok "two deterministic boots: identical consoles ($(wc -l <"$vm/det1.console") lines)" ||
		not_ok "deterministic consoles differ, first at: $(diff "$vm/det1.console" "$vm/det2.console" | sed -n 2p)"
	[ "$a" = "$want" ] && ok "deterministic: medians are exactly the instruction counts of the module's code $want" ||
		not_ok "deterministic medians $a, not the code's $want"

	# the user suite, deterministic: the sampler of the tracecost in A-xclk
	# reads the counter too (user access granted by the module, loaded by
	# the guest's init): identical on two boots, and the irq and preempt
	# pairs (two static-key sites) read exactly 2 * xsite more under
	# "static" than "stock"
	for i in 1 2; do
		# shellcheck disable=SC2086
		"$tc" vm $D --deterministic --json "$T/u$i.json" -- run --suite user --samples 2000 \
			--unit ticks >"$T/u$i.txt" 2>"$T/u$i.err"
		rc=$?
		[ $rc -eq 0 ] && ok "deterministic user suite $i ran" ||
			not_ok "deterministic user suite $i: exit $rc: $(head -3 "$T/u$i.err")"
	done
	jqcheck "$T/u1.json" ".counter.name | test(\"$xdet_re\")" "user suite: sampled on $xdet_name"
	_um() { jq -c '[.user.pairs[] | .name as $p | .cells[] | [$p, .configuration, .stats.median, .stats.min]]' "$1" 2>/dev/null; }
	[ -n "$(_um "$T/u1.json")" ] && [ "$(_um "$T/u1.json")" = "$(_um "$T/u2.json")" ] &&
		ok "user suite: identical medians and minima on two boots" ||
		not_ok "user suite differs: $(_um "$T/u1.json") vs $(_um "$T/u2.json")"
	_d=$((2 * xsite))
	jqcheck "$T/u1.json" "[.user.pairs[] | select(.name == \"irq\" or .name == \"preempt\") | ([.cells[] | {(.configuration): .stats.median}] | add) | .static - .stock] == [$_d, $_d]" \
		"user suite: static = stock + $_d instructions ($xsite_what per static-key site) for irq and preempt"
	cp "$T"/u1.json "$vm"/ 2>/dev/null

	# the system suite inside
	# shellcheck disable=SC2086
	"$tc" vm $D --deterministic --json "$T/s.json" -- run --suite system --profiles none \
		--repeat 1 --workloads getpid,pipe --calls 2000 --round-trips 200 >"$T/s.txt" 2>"$T/s.err"
	rc=$?
	[ $rc -eq 0 ] && jqcheck "$T/s.json" '.suite == "system" and .vm.deterministic' "system suite in the $xa guest" ||
		not_ok "system suite: exit $rc: $(head -3 "$T/s.err")"

	summary "$vm_name"
}
