#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-vm: tracecost vm end to end with Debian's kernel (the image of
# linux-headers-amd64's release, unpacked from its package when /boot lacks
# it) and its headers as the build tree.
#   - bad input: one line, exit 2, nothing run, nothing left in $TMPDIR;
#   - no QEMU, a module that does not build, a kernel that does not boot:
#     one line (plus the console or build log tail), exit 1, nothing left;
#   - two --deterministic boots running the kernel suite give identical
#     instruction counts, the result file is labelled (vm object, columns
#     <name> and <name>+), and compare reads it;
#   - the system suite runs inside with small counts.
# Usage: tests/vm/vm.sh BUILD_DIR
set -u
O=$(readlink -f "$1")
tc=$O/tracecost
vm=$O/vm
mkdir -p "$vm"
top=$(cd "$(dirname "$0")/../.." && pwd)
vm_name=check-vm
. "$top/tests/vm/lib.sh"

vm_debian_kernel
kernel=$vmlinuz

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
left() { [ -z "$(ls -A "$TMPDIR")" ]; }

# expect CODE DESC CMD...: exit CODE, one line on stderr (CODE 2) or a first
# line naming the problem (CODE 1), nothing on stdout, nothing left
expect() {
	code=$1 desc=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	if [ "$rc" -ne "$code" ]; then
		not_ok "$desc: exit $rc, not $code ($(head -2 "$T/err" | tr '\n' ' '))"
	elif [ "$code" -eq 2 ] && [ "$lines" -ne 1 ]; then
		not_ok "$desc: $lines lines on stderr"
	elif [ -s "$T/out" ]; then
		not_ok "$desc: wrote to stdout"
	elif ! left; then
		not_ok "$desc: left $(ls "$TMPDIR") behind"
	else
		ok "$desc (exit $code: $(head -1 "$T/err"))"
	fi
	rm -rf "${TMPDIR:?}"/*
}

K="--kernel $kernel --build $kdir"
# shellcheck disable=SC2086
{
expect 2 "no --kernel" "$tc" vm --build "$kdir" -- run
expect 2 "--kernel not a bzImage" "$tc" vm --kernel /etc/passwd --build "$kdir" -- run
expect 2 "--kernel missing" "$tc" vm --kernel /nonexistent --build "$kdir" -- run
expect 2 "no --build or --module" "$tc" vm --kernel "$kernel" -- run
expect 2 "--build not a kernel tree" "$tc" vm --kernel "$kernel" --build /tmp -- run
expect 2 "no guest command" "$tc" vm $K
expect 2 "guest command not run" "$tc" vm $K -- ls
expect 2 "--deterministic with --smp 2" "$tc" vm $K --deterministic --smp 2 -- run
expect 2 "--smp 0" "$tc" vm $K --smp 0 -- run
expect 2 "--timeout text" "$tc" vm $K --timeout soon -- run
expect 2 "--accel bogus" "$tc" vm $K --accel xen -- run
expect 2 "--gdb 0" "$tc" vm $K --gdb 0 -- run
expect 2 "--gdb not a port" "$tc" vm $K --gdb 70000 -- run
expect 2 "--json in the guest's arguments" "$tc" vm $K -- run --json x
expect 2 "--json in a missing directory" "$tc" vm $K --json /nonexistent/r.json -- run
expect 2 "--name with a colon" "$tc" vm $K --name a:b -- run
expect 2 "unknown option" "$tc" vm $K --bogus -- run
expect 2 "argument before --" "$tc" vm $K stray -- run
}

# missing QEMU: a PATH without it
mkdir -p "$T/bin"
for p in make gcc ld as; do
	q=$(command -v $p) && ln -sf "$q" "$T/bin/$p"
done
# shellcheck disable=SC2086
expect 1 "no QEMU on PATH" env PATH="$T/bin" "$tc" vm $K -- run --suite user
grep -q 'qemu-system-x86_64 is not installed' "$T/err" 2>/dev/null || true

# a module that does not build: a "tree" whose Makefile fails
mkdir -p "$T/badtree/include/config"
echo 6.1.0-bad >"$T/badtree/include/config/kernel.release"
printf 'modules:\n\t@echo "no kernel here" >&2; exit 1\n' >"$T/badtree/Makefile"
expect 1 "module that does not build" "$tc" vm --kernel "$kernel" --build "$T/badtree" \
	-- run --suite kernel
grep -q 'does not build against' "$T/err" 2>/dev/null ||
	not_ok "module failure names the build tree"

# a kernel that does not boot to its init: init= points nowhere (panic)
expect 1 "kernel that does not reach its init" "$tc" vm $K --timeout 300 \
	--append "rdinit=/nonexistent init=/nonexistent" -- run --suite user
grep -q 'console tail' "$T/err" 2>/dev/null && ok "boot failure shows the console tail" ||
	not_ok "boot failure shows the console tail"

# --initrd (the tests' boots, tests/vm/lib.sh): its bad input, and a splat
# in the console log fails a boot that otherwise powers off in time
expect 2 "--initrd without --data" "$tc" vm --kernel "$kernel" --initrd /etc/passwd
expect 2 "--initrd with a guest command" "$tc" vm --kernel "$kernel" --initrd /etc/passwd \
	--data "$T/d" -- run
mkdir -p "$T/splat/bin" "$T/splat/dev" "$T/splat/proc"
cp /bin/busybox "$T/splat/bin/"
printf '#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs dev /dev\necho "WARNING: CPU: 0 PID: 1 at tracecost-test" >/dev/kmsg\n/bin/busybox reboot -f\n' \
	>"$T/splat/init"
chmod +x "$T/splat/init"
(cd "$T/splat" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$T/splat.gz"
expect 1 "a boot with a WARNING in its console log" "$tc" vm --kernel "$kernel" \
	--initrd "$T/splat.gz" --data "$T/splat.data" --timeout 300 --accel tcg
grep -q 'has a splat: .*WARNING: CPU: 0 PID: 1 at tracecost-test' "$T/err" 2>/dev/null &&
	ok "the splat is named in the line" || not_ok "splat line: $(head -2 "$T/err")"
rm -f "$T/splat.data"
expect 1 "a boot that does not finish within --timeout" "$tc" vm --kernel "$kernel" \
	--initrd "$T/splat.gz" --data "$T/splat.data" --timeout 1 --accel tcg
grep -q 'did not finish within 1 s' "$T/err" 2>/dev/null && ok "the timeout is named in the line" ||
	not_ok "timeout line: $(head -2 "$T/err")"
rm -f "$T/splat.data"

# --retry-stall, with a stand-in QEMU that writes a console: a vCPU stall
# outside tracecost.ko is booted again with one TCG thread, said in a line;
# a stall with a tracecost.ko frame on a stack is not (our hang: exit 1)
mkdir -p "$T/fake"
cat >"$T/fake/qemu-system-x86_64" <<'FAKE'
#!/bin/sh
con="" accel=""
while [ $# -gt 0 ]; do
	case "$1" in
	-serial) [ -z "$con" ] && con=${2#file:}; shift ;;
	-accel) accel=$2; shift ;;
	esac
	shift
done
case "$accel" in
*thread=single*)
	if [ -n "${FAKE_SPLAT:-}" ]; then
		printf '[    1.200000] int3: 0000 [#1] PREEMPT SMP\n[    1.200001] RIP: 0010:raise_softirq+0x8/0xb0\n[    1.200002] Call Trace:\n' >"$con"
	fi
	echo "[    1.300000] reboot: Restarting system" >>"$con"; exit 0 ;;
esac
echo "[   30.000000] rcu: rcu_preempt kthread timer wakeup didn't happen for 2502 jiffies!" >"$con"
[ -n "${FAKE_OURS:-}" ] && echo "[   30.000001]  tc_sample+0x10/0x20 [tracecost]" >>"$con"
exec sleep 60
FAKE
chmod +x "$T/fake/qemu-system-x86_64"
PATH="$T/fake:$PATH" "$tc" vm --kernel "$kernel" --initrd "$T/splat.gz" --data "$T/fake.data" \
	--console "$T/fake.console" --smp 2 --accel tcg --timeout 2 --retry-stall >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^note - timed out on a virtual CPU that stopped outside tracecost.ko' "$T/err" &&
	[ -s "$T/fake.console.stall" ] && ok "--retry-stall: a QEMU vCPU stall is booted again, said in a line, first console kept" ||
	not_ok "--retry-stall: exit $rc: $(head -2 "$T/err")"
FAKE_OURS=1 PATH="$T/fake:$PATH" "$tc" vm --kernel "$kernel" --initrd "$T/splat.gz" \
	--data "$T/fake.data" --smp 2 --accel tcg --timeout 2 --retry-stall >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ! grep -q '^note - ' "$T/err" && grep -q 'did not finish within 2 s' "$T/err" &&
	ok "--retry-stall: a stall with a tracecost.ko frame fails (exit 1, no retry)" ||
	not_ok "--retry-stall with our frame: exit $rc: $(head -2 "$T/err")"
# --accel tcg-single: one TCG thread for every virtual CPU; a die() header
# that names no BUG or Oops ("int3: 0000 [#1]") is a splat, shown with its stack
PATH="$T/fake:$PATH" "$tc" vm --kernel "$kernel" --initrd "$T/splat.gz" --data "$T/fake.data" \
	--console "$T/fake.console" --smp 2 --accel tcg-single --timeout 20 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "--accel tcg-single boots with -accel tcg,thread=single" ||
	not_ok "--accel tcg-single: exit $rc: $(head -2 "$T/err")"
FAKE_SPLAT=1 PATH="$T/fake:$PATH" "$tc" vm --kernel "$kernel" --initrd "$T/splat.gz" \
	--data "$T/fake.data" --console "$T/fake.console" --smp 2 --accel tcg-single \
	--timeout 20 >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q 'has a splat: .*int3: 0000 \[#1\]' "$T/err" &&
	grep -q '^  | .*RIP: 0010:raise_softirq' "$T/err" &&
	ok "a die() header is a splat, shown with the lines after it" ||
	not_ok "int3 splat: exit $rc: $(head -3 "$T/err")"
rm -f "$T"/fake.*

# two deterministic boots, identical counts; the second as from a make
# given O= and ARCH= (make seed-table O=DIR), whose MAKEFLAGS must not reach
# the module's kbuild
for i in 1 2; do
	mf="" ko=""
	[ $i -eq 2 ] && mf=" -- O=$T/not-the-tree ARCH=sparc" ko=$T/not-the-tree
	env MAKEFLAGS="$mf" KBUILD_OUTPUT="$ko" \
		"$tc" vm $K --deterministic --name debian --json "$T/d$i.json" -- run --suite kernel \
		--samples 2000 --highest 20 --pairs irq,preempt,irq_save --unit ticks \
		--tracepoints both >"$T/d$i.txt" 2>"$T/d$i.err"
	rc=$?
	[ $rc -eq 0 ] && ok "deterministic boot $i: kernel suite ran${mf:+ (MAKEFLAGS='$mf', KBUILD_OUTPUT set: the module built against --build all the same)}" ||
		not_ok "deterministic boot $i: exit $rc: $(head -3 "$T/d$i.err")"
done
st() { jq -c '[.kernel.pairs[] | .name as $p | .cells[] | [$p, .configuration, .stats.median, .stats.min]]' "$1" 2>/dev/null; }
a=$(st "$T/d1.json")
b=$(st "$T/d2.json")
[ -n "$a" ] && [ "$a" = "$b" ] && ok "two deterministic boots: identical counts $a" ||
	not_ok "deterministic counts differ: '$a' vs '$b'"
jq -e --arg r "$kver" '.vm.config == "debian" and .vm.release == $r and .vm.deterministic and
	.vm.accel == "tcg" and ([.kernel.configurations[].name] == ["debian", "debian+pair"])' \
	"$T/d1.json" >/dev/null 2>&1 && ok "result labelled: vm object, columns debian and debian+pair (no preemptirq events in Debian's kernel: the module's pair event stands in)" ||
	not_ok "result labels: $(jq -c '[.vm, [.kernel.configurations[].name]]' "$T/d1.json" 2>&1)"
grep -q 'IRQ Metrics' "$T/d1.txt" && ok "the guest's tables printed on stdout" ||
	not_ok "no tables on stdout"
"$tc" compare --unit ticks "$T/d1.json:debian" "$T/d2.json:debian+pair" >"$T/cmp" 2>&1 &&
	ok "compare reads the labelled result files" || not_ok "compare: $(head -2 "$T/cmp")"
left && ok "nothing left in TMPDIR after the boots" || not_ok "left $(ls "$TMPDIR")"

# the system suite inside, small
"$tc" vm $K --deterministic --json "$T/s.json" -- run --suite system --profiles none \
	--repeat 1 --workloads getpid,pipe --calls 2000 --round-trips 200 >"$T/s.txt" 2>"$T/s.err"
rc=$?
[ $rc -eq 0 ] && jq -e '.suite == "system" and .vm.deterministic' "$T/s.json" >/dev/null 2>&1 &&
	ok "system suite in the guest" || not_ok "system suite: exit $rc: $(head -3 "$T/s.err")"

summary check-vm
