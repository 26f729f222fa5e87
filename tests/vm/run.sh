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
#   boots 2+3 (DETERMINISTIC, -icount shift=0, -smp 1): ref16 median is 16,
#           both boots give identical medians, do_work calibrates out.
# Usage: tests/vm/run.sh BUILD_DIR   (BUILD_DIR/tracecost-static must exist)
set -u
O=$(readlink -f "$1")
top=$(cd "$(dirname "$0")/../.." && pwd)
vm=$O/vm
mkdir -p "$vm"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
not_ok() { fail=$((fail + 1)); echo "FAIL - $1"; }
die() { echo "check-kernel: $*" >&2; exit 1; }

# The kernel: the release of Debian's linux-headers-amd64 and its image.
kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	sed -n 's/.*linux-headers-\([0-9][^ ,]*-amd64\).*/\1/p')
[ -n "$kver" ] || die "linux-headers-amd64 is not installed (make deps-kernel)"
kdir=/usr/src/linux-headers-$kver
[ -d "$kdir" ] || die "$kdir is missing"
vmlinuz=/boot/vmlinuz-$kver
if [ ! -r "$vmlinuz" ]; then
	vmlinuz=$vm/image/boot/vmlinuz-$kver
	if [ ! -r "$vmlinuz" ]; then
		# unpack the image package; its postinst (initramfs, grub) never runs
		(cd "$vm" && rm -f linux-image-*.deb && apt-get download "linux-image-$kver" >/dev/null 2>&1) ||
			die "cannot download linux-image-$kver (apt-get download)"
		dpkg-deb -x "$vm"/linux-image-"$kver"_*.deb "$vm/image" || die "dpkg-deb -x failed"
	fi
fi
echo "check-kernel: kernel $kver, $vmlinuz"

# The module, built against the matching headers.
make -s -C "$kdir" M="$top/kmod" modules >"$vm/kbuild.log" 2>&1 ||
	{ cat "$vm/kbuild.log"; die "module build failed"; }
grep -q "warning" "$vm/kbuild.log" && { cat "$vm/kbuild.log"; not_ok "module builds without warnings"; }
grep -a -o 'vermagic=[^ ]*' "$top/kmod/tracecost.ko" | grep -qx "vermagic=$kver" &&
	ok "module built for $kver (vermagic)" || not_ok "module vermagic is not $kver"

# The initramfs.
root=$vm/root
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run"
cp /bin/busybox "$root/bin/busybox"
cp "$O/tracecost-static" "$root/tracecost"
cp "$top/kmod/tracecost.ko" "$root/tracecost.ko"
cp "$top/tests/vm/guest-init.sh" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$vm/initrd.gz"

# boot NAME MODE TIMEOUT QEMU-ARGS...
boot() {
	name=$1 mode=$2 limit=$3
	shift 3
	rm -f "$vm/$name.console" "$vm/$name.data"
	timeout "$limit" qemu-system-x86_64 -accel tcg -m 1024 -nodefaults -display none \
		-no-reboot -kernel "$vmlinuz" -initrd "$vm/initrd.gz" \
		-append "console=ttyS0 panic=-1 oops=panic softlockup_panic=0 tcmode=$mode" \
		-serial "file:$vm/$name.console" -serial "file:$vm/$name.data" "$@"
	rc=$?
	tr -d '\r' <"$vm/$name.data" >"$vm/$name.txt"
	[ "$rc" -eq 124 ] && not_ok "$name: timeout after $limit s" || ok "$name: booted and powered off"
	grep -q '^@@DONE' "$vm/$name.txt" && ok "$name: guest script completed" ||
		not_ok "$name: guest script did not complete (console: $vm/$name.console)"
	if grep -E 'Kernel panic|Oops|WARNING:|BUG:|soft lockup|rcu.*self-detected stall|rcu_preempt detected stalls|Call Trace' \
		"$vm/$name.console" >"$vm/$name.bad"; then
		not_ok "$name: console log clean: $(head -3 "$vm/$name.bad")"
	else
		ok "$name: console log has no panic, oops, WARNING, lockup or stall"
	fi
	grep '^TEST ' "$vm/$name.txt" | while read -r _ tname res detail; do
		echo "$tname $res $detail"
	done >"$vm/$name.tests"
	while read -r tname res detail; do
		[ "$res" = ok ] && ok "$name: $tname" || not_ok "$name: $tname: $detail"
	done <"$vm/$name.tests"
}

# extract NAME FILE: the JSON the guest sent between markers
extract() {
	awk -v f="$2" '$0 == "@@BEGIN " f { on = 1; next } /^@@END/ { on = 0 } on' "$vm/$1.txt" >"$vm/$1-$2"
	jq -e . "$vm/$1-$2" >/dev/null 2>&1
}

jqcheck() { # jqcheck FILE EXPR DESC
	if jq -e "$2" "$1" >/dev/null 2>&1; then ok "$3"; else not_ok "$3"; fi
}

boot smp smp 600 -smp 2
if extract smp r.json; then
	f=$vm/smp-r.json
	jqcheck "$f" '.suite == "kernel" and .file_version == 1' "r.json: kernel suite result"
	jqcheck "$f" '(.kernel.pairs | length) == 7' "r.json: seven pairs"
	jqcheck "$f" '[.kernel.configurations[].name] | length == 2 and (.[1] | endswith("+"))' \
		"r.json: columns <release> and <release>+"
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
	det="-smp 1 -icount shift=0,align=off,sleep=off -rtc base=2024-01-01T00:00:00,clock=vm"
	# shellcheck disable=SC2086
	boot det1 det 900 $det
	# shellcheck disable=SC2086
	boot det2 det 900 $det
	if extract det1 d.json && extract det2 d.json && extract det1 dw.json; then
		med() { jq -c '[.kernel.pairs[] | {(.name): .cells[0].stats.median}] | add' "$1"; }
		jqcheck "$vm/det1-d.json" '.kernel.pairs[] | select(.name == "ref16") | .cells[0].stats.median == 16' \
			"deterministic: ref16 median is exactly 16 ticks ($(med "$vm/det1-d.json"))"
		[ "$(med "$vm/det1-d.json")" = "$(med "$vm/det2-d.json")" ] &&
			ok "deterministic: two boots give identical medians" ||
			not_ok "deterministic: medians differ: $(med "$vm/det1-d.json") vs $(med "$vm/det2-d.json")"
		a=$(jq '.kernel.pairs[] | select(.name == "irq") | .cells[0].stats.median' "$vm/det1-d.json")
		b=$(jq '.kernel.pairs[] | select(.name == "irq") | .cells[0].stats.median' "$vm/det1-dw.json")
		[ "$a" = "$b" ] && ok "deterministic: irq median $a with and without do_work" ||
			not_ok "deterministic: irq median $a without do_work, $b with"
	else
		not_ok "deterministic results came back as JSON"
	fi
fi

echo "check-kernel: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
