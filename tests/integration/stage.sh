#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What make check says about itself (issue 22, items 13 and 18), with
# stand-in commands instead of real stages: scripts/stage.sh prints SKIP with
# the whole reason for a stage that was skipped (PASS and SKIP for one that
# was partly), records it for the last line, and leaves no heartbeat sleep
# holding its output open; scripts/check-plan.sh names the stages it will
# skip in make check's first line (packages missing: a stand-in dpkg-query)
# and those it skipped in the last, failing under CI=true;
# scripts/kbuild-progress.sh prints the kernel build's progress from its log.
# Asserts what is printed, never how long anything took.
# Usage: tests/integration/stage.sh
set -u
top=$(readlink -f "$(dirname "$(readlink -f "$0")")/../..")
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmpdir
cd "$tmp" || exit 1

long="run make deps-kernel deps-kernels as root to install QEMU and linux-source-6.1, then make check again"
# a stage of which nothing ran
V=0 sh "$top/scripts/stage.sh" log kernel sh -c "echo 'check-kernel: skipped ($long)'" >out1.txt 2>&1
check "skipped stage: exit 0, SKIP with the whole reason, no PASS" \
	'[ $? -eq 0 ] && grep -q "^  SKIP    kernel  .* check-kernel: skipped ($long)\$" out1.txt &&
	 ! grep -q PASS out1.txt'
check "skipped stage: recorded for make check's last line" \
	'grep -qx "kernel: check-kernel: skipped ($long)" log/skipped'
# a stage of which a part ran
V=0 sh "$top/scripts/stage.sh" log vm sh -c "echo 'vm: 3 passed, 0 failed'; echo 'check-vm-debug: skipped (no debug kernel)'" \
	>out2.txt 2>&1
check "partly skipped stage: PASS with the count, SKIP with the reason" \
	'grep -q "^  PASS    vm .*vm: 3 passed, 0 failed\$" out2.txt &&
	 grep -q "^  SKIP    vm  .*check-vm-debug: skipped (no debug kernel)\$" out2.txt &&
	 [ $(wc -l <log/skipped) -eq 2 ]'
V=0 sh "$top/scripts/stage.sh" log unit sh -c "echo 'unit: 9 passed, 0 failed'" >out3.txt 2>&1
check "a stage that ran whole: PASS, nothing recorded" \
	'grep -q "^  PASS    unit .*unit: 9 passed, 0 failed\$" out3.txt && ! grep -q SKIP out3.txt &&
	 [ $(wc -l <log/skipped) -eq 2 ]'
V=0 sh "$top/scripts/stage.sh" log bad sh -c "echo 'FAIL - x'; exit 3" >out4.txt 2>&1
check "a failing stage: its status, FAIL" '[ $? -eq 3 ] && grep -q "^  FAIL    bad " out4.txt'

# The heartbeat (one line per HEARTBEAT s when not on a terminal): once the
# stage has returned, no process of it still has its output open (before,
# a "sleep 60" kept the pipe of make check open for up to a minute).
HEARTBEAT=30 V=0 sh "$top/scripts/stage.sh" log quick sh -c "echo 'quick: 1 passed'" >hb.txt 2>&1
held=""
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/fd/1" 2>/dev/null)" = "$tmp/hb.txt" ] && held="$held ${p#/proc/}"
done
check "heartbeat: nothing holds the output open after the stage (held by:${held:- none})" \
	'[ -z "$held" ]'

# make check's first and last lines
mkdir bin
cat >bin/dpkg-query <<'DQ'
#!/bin/sh
# stand-in: the cross compiler and QEMU are not installed, the rest is
for a; do p=$a; done
case "$*" in *Version*) echo 1:8.2; exit 0 ;; esac
case $p in
gcc-aarch64-linux-gnu | qemu-system-x86) echo "unknown ok not-installed" ;;
*) printf 'install ok installed' ;;
esac
DQ
chmod +x bin/dpkg-query
PATH=$tmp/bin:$PATH sh "$top/scripts/check-plan.sh" first >first.txt 2>&1
check "first line: the stages that will be skipped and why" \
	'[ $(wc -l <first.txt) -eq 1 ] &&
	 grep -q "^check: will skip aarch64, kernel, noise-vm, vm, vm-arm64: aarch64 packages missing; kernel packages missing; kernels-arm64 packages missing; " first.txt'
env -u CI sh "$top/scripts/check-plan.sh" last log >last.txt 2>&1
rc=$?
check "last line: the skipped stages, exit 0 outside CI" \
	'[ $rc -eq 0 ] && tail -1 last.txt | grep -q "^check: every test that ran passed; 2 part(s) skipped in stage(s) kernel, vm" &&
	 grep -q "^check: skipped: kernel: check-kernel: skipped ($long)\$" last.txt'
CI=true sh "$top/scripts/check-plan.sh" last log >ci.txt 2>&1
rc=$?
check "last line under CI=true: exit 1, names the skipped stages" \
	'[ $rc -eq 1 ] && tail -1 ci.txt | grep -q "^check: FAILED under CI=true: 2 part(s) skipped in stage(s) kernel, vm"'
rm log/skipped
CI=true sh "$top/scripts/check-plan.sh" last log >none.txt 2>&1
check "nothing skipped: exit 0 under CI=true" '[ $? -eq 0 ] && grep -qx "check: all test groups passed, none skipped" none.txt'
# the check target's recipe: packages first, the plan's line, the stages, the last line
awk '/^check: / { r = 1; print; next } r && /^\t/ { print; next } r { exit }' "$top/Makefile" >recipe.txt
check "make check: installs through check-plan.sh deps, first and last lines from it" \
	'head -1 recipe.txt | grep -qx "check: deps-check" &&
	 sed -n 3p recipe.txt | grep -q "check-plan.sh first" &&
	 tail -1 recipe.txt | grep -q "check-plan.sh last \$(O)/log" &&
	 grep -A1 "^deps-check:" "$top/Makefile" | grep -q "check-plan.sh deps"'

# The kernel build's progress, from a stand-in build writing a kbuild log
mkdir -p kc/debug-old
: >kc/debug-old/.tracecost-built
printf '  CC      a.o\n' >kc/debug-old/build.log
for i in $(seq 100); do printf '  CC      f%d.o\n' "$i"; done >kc/debug-old/build.log
cat >build.sh <<'KB'
d=$1/debug-abc; mkdir -p $d; : >$d/.tracecost-expect; : >$d/build.log
for i in 1 2 3 4 5 6 7 8; do printf '  CC      kernel/f%d.o\n' $i >>$d/build.log; sleep 1; done
: >$d/.tracecost-built; echo "kernels: debug built"
KB
# another user's build in the shared cache, started before ours, still writing
mkdir -p kc/other-def
: >kc/other-def/.tracecost-expect
(for i in $(seq 12); do printf '  CC      other/f%d.o\n' "$i" >>kc/other-def/build.log; sleep 1; done) &
other=$!
sleep 1
PROGRESS=2 sh "$top/scripts/kbuild-progress.sh" kc sh build.sh kc >kb.txt 2>&1
rc=$?
wait $other
check "kernel build progress: steps done of the last build's count, then the end" \
	'[ $rc -eq 0 ] && grep -Eq "^kernels: debug: compiling, [1-8] of about 100 kbuild steps, [0-9]+m[0-9]{2}s, last: CC kernel/f[1-8].o$" kb.txt &&
	 tail -1 kb.txt | grep -qx "kernels: debug built" || { sed "s/^/# /" kb.txt; false; }'
check "kernel build progress: another user's build in the cache is not reported as ours" \
	'! grep -q "other" kb.txt'
# another architecture's build: CACHE/ARCH/NAME-HASH, counted against its own
# last build there
mkdir -p kc/arm64/stock-old
: >kc/arm64/stock-old/.tracecost-built
for i in $(seq 50); do printf '  CC      g%d.o\n' "$i"; done >kc/arm64/stock-old/build.log
sed 's|/debug-abc|/arm64/stock-abc|; s|debug built|arm64 stock built|; s|1 2 3 4 5 6 7 8|1 2 3 4|' \
	build.sh >build-arm64.sh
PROGRESS=2 sh "$top/scripts/kbuild-progress.sh" kc sh build-arm64.sh kc >kb64.txt 2>&1
check "kernel build progress: another architecture's build, counted against its own last build" \
	'grep -Eq "^kernels: stock: compiling, [1-4] of about 50 kbuild steps, " kb64.txt ||
	 { sed "s/^/# /" kb64.txt; false; }'
sh "$top/scripts/kbuild-progress.sh" kc sh -c "exit 7" >/dev/null 2>&1
check "kernel build progress: the build's exit status" '[ $? -eq 7 ]'

# make seed-table ARCH=... (x86_64, arm64 or riscv) refuses any other
# architecture in one line with exit 2, before any work: make itself (make
# -n, so that nothing would run were the check missing), then each script
# the targets run, given stand-ins for the binaries they look for
for t in seed-table check-seed-table site-cost check-balance check-kernel-debug; do
	make -n --no-print-directory -C "$top" $t ARCH=sparc O="$tmp/o" >mk.txt 2>&1
	rc=$?
	check "make $t ARCH=sparc: one line, exit 2" \
		'[ $rc -eq 2 ] && [ $(wc -l <mk.txt) -eq 1 ] &&
		 grep -Eq "(seed-table|site-cost|check-balance|check-kernel-debug): ARCH=sparc is not x86_64, arm64 \(aarch64\) or riscv \(riscv64\)" mk.txt ||
		 { head -3 mk.txt | sed "s/^/# /"; false; }'
done
mkdir -p o o-arm64-pmc kc/arm64 kc/sparc
printf '#!/bin/sh\nexit 0\n' >o/tracecost
cp o/tracecost o/tracecost-static
cp o/tracecost o-arm64-pmc/tracecost-static
chmod +x o/tracecost o/tracecost-static o-arm64-pmc/tracecost-static
for s in kernel/seed-table.sh tests/vm/seed-table.sh kernel/same-code.sh kernel/site-cost.sh \
	tests/vm/balance.sh tests/vm/stress.sh; do
	case $s in kernel/same-code.sh | kernel/site-cost.sh) set -- kc ;; *) set -- o kc ;; esac
	ARCH=sparc sh "$top/$s" "$@" >sc.txt 2>&1
	rc=$?
	check "ARCH=sparc $s: one line, exit 2, no results" \
		'[ $rc -eq 2 ] && [ $(wc -l <sc.txt) -eq 1 ] && grep -q "ARCH=sparc is not x86_64" sc.txt &&
		 [ -z "$(ls o | grep -E "seed-table|^vm-")" ] || { head -3 sc.txt | sed "s/^/# /"; false; }'
done
# make same-image and kernel/same-image.sh: x86_64 or arm64 only (riscv
# not run yet), the same way: one line, exit 2, nothing made in its WORKDIR
for a in sparc riscv; do
	make -n --no-print-directory -C "$top" same-image ARCH=$a O="$tmp/o" >mk.txt 2>&1
	rc=$?
	check "make same-image ARCH=$a: one line, exit 2" \
		'[ $rc -eq 2 ] && [ $(wc -l <mk.txt) -eq 1 ] &&
		 grep -q "same-image: ARCH=$a is not x86_64 or arm64 (aarch64)" mk.txt ||
		 { head -3 mk.txt | sed "s/^/# /"; false; }'
	ARCH=$a sh "$top/kernel/same-image.sh" kc o/same-image stock >si.txt 2>&1
	rc=$?
	check "ARCH=$a kernel/same-image.sh: one line, exit 2, no WORKDIR" \
		'[ $rc -eq 2 ] && [ $(wc -l <si.txt) -eq 1 ] &&
		 grep -q "^same-image: ARCH=$a is not x86_64 or arm64 (aarch64)\$" si.txt &&
		 [ ! -e o/same-image ] || { head -3 si.txt | sed "s/^/# /"; false; }'
done
ARCH=arm64 sh "$top/kernel/same-image.sh" kc o/same-image 'st/ock' >si.txt 2>&1
rc=$?
check "ARCH=arm64 kernel/same-image.sh, a bad kernel name: one line, exit 2, no WORKDIR" \
	'[ $rc -eq 2 ] && [ $(wc -l <si.txt) -eq 1 ] &&
	 grep -q "^same-image: bad configuration name .st/ock.\$" si.txt &&
	 [ ! -e o/same-image ] || { head -3 si.txt | sed "s/^/# /"; false; }'
# a known ARCH looks for its kernels where make kernels puts them, builds
# nothing without them (kc/arm64 exists and holds no preemptirq)
ARCH=aarch64 sh "$top/kernel/same-image.sh" kc o/same-image stock >si.txt 2>&1
rc=$?
check "ARCH=aarch64 kernel/same-image.sh: looks for KERNEL_CACHE/arm64/preemptirq, WORKDIR/arm64" \
	'[ $rc -eq 1 ] &&
	 grep -q "kc/arm64/preemptirq is not built (make kernels ARCH=arm64 KERNELS=preemptirq)" si.txt &&
	 [ -d o/same-image/arm64 ] && [ -z "$(ls o/same-image/arm64)" ] ||
	 { head -3 si.txt | sed "s/^/# /"; false; }'
env -u ARCH sh "$top/kernel/same-image.sh" kc o/same-image stock >si.txt 2>&1
rc=$?
check "kernel/same-image.sh (x86-64): looks for KERNEL_CACHE/preemptirq" \
	'[ $rc -eq 1 ] &&
	 grep -q "kc/preemptirq is not built (make kernels ARCH=x86_64 KERNELS=preemptirq)" si.txt ||
	 { head -3 si.txt | sed "s/^/# /"; false; }'
# a known ARCH gets past the check and the static tracecost's: its kernels
# are looked for where make kernels puts them (KERNEL_CACHE/NAME for
# x86-64, KERNEL_CACHE/arm64/NAME/arch/arm64/boot/Image for arm64)
env -u ARCH SEED_KERNELS="stock preemptirq" sh "$top/kernel/seed-table.sh" o kc >x86.txt 2>&1
rc=$?
check "kernel/seed-table.sh (x86-64): looks for KERNEL_CACHE/stock/arch/x86/boot/bzImage" \
	'[ $rc -eq 1 ] && grep -q "kc/stock/arch/x86/boot/bzImage is missing (make kernels KERNELS=stock)" x86.txt ||
	 { head -3 x86.txt | sed "s/^/# /"; false; }'
ARCH=aarch64 SEED_KERNELS="stock preemptirq" sh "$top/kernel/seed-table.sh" o kc >a64.txt 2>&1
rc=$?
check "ARCH=aarch64 kernel/seed-table.sh: looks for KERNEL_CACHE/arm64/stock/arch/arm64/boot/Image" \
	'[ $rc -eq 1 ] && grep -q "kc/arm64/stock/arch/arm64/boot/Image is missing (make kernels ARCH=arm64 KERNELS=stock)" a64.txt ||
	 { head -3 a64.txt | sed "s/^/# /"; false; }'

# make ftrace-table ARCH=...: x86_64 or arm64; riscv has no function tracer
# in a preemptible 6.1 kernel: one line, exit 2, make and the scripts alike
for t in ftrace-table check-ftrace-table; do
	for a in sparc riscv; do
		make -n --no-print-directory -C "$top" $t ARCH=$a O="$tmp/o" >mk.txt 2>&1
		rc=$?
		check "make $t ARCH=$a: one line, exit 2" \
			'[ $rc -eq 2 ] && [ $(wc -l <mk.txt) -eq 1 ] &&
			 grep -q "ftrace-table: ARCH=$a is not x86_64 or arm64 (aarch64)" mk.txt ||
			 { head -3 mk.txt | sed "s/^/# /"; false; }'
	done
done
for s in kernel/ftrace-table.sh tests/vm/ftrace-table.sh; do
	for a in sparc riscv64; do
		ARCH=$a sh "$top/$s" o kc >sc.txt 2>&1
		rc=$?
		check "ARCH=$a $s: one line, exit 2, no results" \
			'[ $rc -eq 2 ] && [ $(wc -l <sc.txt) -eq 1 ] &&
			 grep -q "ARCH=$a is not x86_64\|ARCH=$a: 6.1.s riscv has no function tracer" sc.txt &&
			 [ -z "$(ls o | grep ftrace-table)" ] || { head -3 sc.txt | sed "s/^/# /"; false; }'
	done
done
ARCH=aarch64 sh "$top/kernel/ftrace-table.sh" o kc >a64.txt 2>&1
rc=$?
check "ARCH=aarch64 kernel/ftrace-table.sh: looks for KERNEL_CACHE/arm64/stock/arch/arm64/boot/Image" \
	'[ $rc -eq 1 ] && grep -q "kc/arm64/stock/arch/arm64/boot/Image is missing (make kernels ARCH=arm64 KERNELS=stock)" a64.txt ||
	 { head -3 a64.txt | sed "s/^/# /"; false; }'

# make site-cost SITE_COST_KERNELS="STOCK PATCHED": two names, else one line
# and exit 2 from make itself; a bad name: the same from kernel/site-cost.sh
make -n --no-print-directory -C "$top" site-cost SITE_COST_KERNELS="stock" O="$tmp/o" >mk.txt 2>&1
rc=$?
check "make site-cost SITE_COST_KERNELS=stock: one line, exit 2" \
	'[ $rc -eq 2 ] && [ $(wc -l <mk.txt) -eq 1 ] &&
	 grep -q "site-cost: SITE_COST_KERNELS=\"stock\" is not two configurations" mk.txt ||
	 { head -3 mk.txt | sed "s/^/# /"; false; }'
make -n --no-print-directory -C "$top" site-cost SITE_COST_KERNELS="defconfig-stock defconfig-preemptirq" \
	KERNEL_CACHE="$tmp/kc" O="$tmp/o" >mk.txt 2>&1
check "make site-cost SITE_COST_KERNELS=\"defconfig-stock defconfig-preemptirq\": builds and compares that pair" \
	'grep -q "kernel/build.sh defconfig-stock defconfig-preemptirq\$" mk.txt &&
	 grep -q "kernel/site-cost.sh $tmp/kc defconfig-stock defconfig-preemptirq\$" mk.txt ||
	 { sed "s/^/# /" mk.txt; false; }'
env -u ARCH sh "$top/kernel/site-cost.sh" kc stock "../x" >sc.txt 2>&1
rc=$?
check "kernel/site-cost.sh KC stock ../x: one line, exit 2" \
	'[ $rc -eq 2 ] && [ $(wc -l <sc.txt) -eq 1 ] && grep -q "bad configuration name" sc.txt'

# kernel/build.sh's "# tracecost-base: BASE" line (no kernel is built): a
# copy of kernel/ with a fragment naming a base build.sh does not know is
# refused in one line with exit 2 before any work (no cache directory, the
# missing source tarball not even looked at); --hash prints each kernel's
# hash and base without building, and defconfig-stock (stock.config's
# options on defconfig) hashes apart from stock
mkdir -p kb/kernel
cp -r "$top/kernel/build.sh" "$top/kernel/configs" "$top/kernel/patches" kb/kernel/
{ echo "# tracecost-base: allnoconfig"; cat "$top/kernel/configs/stock.config"; } >kb/kernel/configs/badbase.config
for mode in "" --hash; do
	env -u ARCH -u KERNEL -u KERNEL_STORE LINUX_SOURCE_TARBALL="$tmp/none.tar.xz" KERNEL_CACHE="$tmp/kb-cache" \
		bash kb/kernel/build.sh $mode stock badbase >kb.txt 2>&1
	rc=$?
	check "kernel/build.sh ${mode:+$mode }badbase (tracecost-base: allnoconfig): one line, exit 2, nothing done" \
		'[ $rc -eq 2 ] && [ $(wc -l <kb.txt) -eq 1 ] &&
		 grep -qx "kernels: badbase.config: tracecost-base .allnoconfig. is not tinyconfig or defconfig" kb.txt &&
		 [ ! -e "$tmp/kb-cache" ] || { head -3 kb.txt | sed "s/^/# /"; false; }'
done
: >src.tar.xz
env -u ARCH -u KERNEL -u KERNEL_STORE LINUX_SOURCE_TARBALL="$tmp/src.tar.xz" KERNEL_CACHE="$tmp/kb-cache" \
	bash "$top/kernel/build.sh" --hash stock defconfig-stock stock preemptirq defconfig-preemptirq >kh.txt 2>&1
rc=$?
check "kernel/build.sh --hash: NAME HASH BASE per name, the same hash twice, nothing unpacked or built" \
	'[ $rc -eq 0 ] && [ $(wc -l <kh.txt) -eq 5 ] &&
	 awk "NR == 1 && \$1 == \"stock\" && \$3 == \"tinyconfig\" { s = \$2 }
	      NR == 3 && \$2 == s && length(s) == 12 && s !~ /[^0-9a-f]/ { ok = 1 } END { exit !ok }" kh.txt &&
	 [ ! -e "$tmp/kb-cache" ] || { sed "s/^/# /" kh.txt; false; }'
check "kernel/build.sh --hash: defconfig-stock and -preemptirq start from defconfig, hash apart from stock, preemptirq" \
	'[ "$(awk "{ print \$1, \$3 }" kh.txt | sort -u | tr "\n" " ")" = "defconfig-preemptirq defconfig defconfig-stock defconfig preemptirq tinyconfig stock tinyconfig " ] &&
	 [ $(awk "{ print \$2 }" kh.txt | sort -u | wc -l) -eq 4 ]'
# the base line: its last word wins, blanks around it ignored; stock has none
{ echo "# tracecost-base: tinyconfig"; printf '# tracecost-base:\tdefconfig  \n'; cat "$top/kernel/configs/stock.config"; } >kb/kernel/configs/last.config
env -u ARCH -u KERNEL -u KERNEL_STORE LINUX_SOURCE_TARBALL="$tmp/src.tar.xz" \
	bash kb/kernel/build.sh --hash last stock >kc2.txt 2>&1
check "kernel/build.sh --hash: the last tracecost-base line names the base (blanks ignored), none is tinyconfig" \
	'[ "$(awk "{ print \$1, \$3 }" kc2.txt | tr "\n" " ")" = "last defconfig stock tinyconfig " ] ||
	 { sed "s/^/# /" kc2.txt; false; }'

# kernel/build.sh's store: the trees are built in KERNEL_STORE, each
# checkout's KERNEL_CACHE holds links into it, so a second checkout (a
# clean clone) reuses a tree by its hash. A stand-in source tarball and a
# tree marked built stand for the kernel; nothing is compiled.
ks_missing=""
for t in flex bison bc make xz; do
	command -v $t >/dev/null 2>&1 || ks_missing="$ks_missing $t"
done
if [ -n "$ks_missing" ]; then
	skip "kernel/build.sh's store: needs$ks_missing (make deps-kernels)"
else
	mkdir -p ks-src/linux && echo "# stand-in" >ks-src/linux/Makefile
	tar -cJf ks.tar.xz -C ks-src linux
	ks() {
		env -u ARCH -u KERNEL -u XDG_CACHE_HOME -u KERNEL_CACHE -u KERNEL_STORE \
			LINUX_SOURCE_TARBALL="$tmp/ks.tar.xz" "$@"
	}
	h=$(ks KERNEL_STORE="$tmp/ks-store" bash "$top/kernel/build.sh" --hash stock | awk '{ print $2 }')
	# built_in DIR: a stand-in stock tree, built, in DIR
	built_in() {
		mkdir -p "$1/stock-$h/arch/x86/boot" && : >"$1/stock-$h/arch/x86/boot/bzImage" &&
		: >"$1/stock-$h/.tracecost-built"
	}
	built_in ks-store
	for v in a b; do
		ks KERNEL_STORE="$tmp/ks-store" KERNEL_CACHE="$tmp/ks-$v" \
			bash "$top/kernel/build.sh" stock >ks-$v.txt 2>&1
		echo $? >ks-$v.rc
	done
	check "kernel/build.sh: two checkouts' caches, one store: the tree built once is cached for both" \
		'[ "$(cat ks-a.rc ks-b.rc | tr "\n" " ")" = "0 0 " ] &&
		 grep -qx "kernels: x86_64 6.1 stock cached ($h)" ks-a.txt &&
		 grep -qx "kernels: x86_64 6.1 stock cached ($h)" ks-b.txt || { cat ks-a.txt ks-b.txt | sed "s/^/# /"; false; }'
	check "kernel/build.sh: each cache holds links only: NAME -> NAME-HASH -> the store's tree, src -> the store's" \
		'for v in a b; do
			[ "$(readlink ks-$v/stock)" = "stock-$h" ] &&
			[ "$(readlink -f ks-$v/stock)" = "$tmp/ks-store/stock-$h" ] &&
			[ "$(readlink -f ks-$v/src)" = "$tmp/ks-store/src" ] &&
			[ -z "$(find ks-$v -mindepth 1 ! -type l)" ] || exit 1
		 done &&
		 [ $(ls -d ks-store/src/linux-*/Makefile | wc -l) -eq 1 ] &&
		 [ ! -e ks-store/src/linux-*.tmp ]'
	# no KERNEL_CACHE and no KERNEL_STORE: the cache in the checkout
	# (a copy's build/kernels), the store in ~/.cache
	built_in home/.cache/tracecost/kernels
	ks HOME="$tmp/home" bash kb/kernel/build.sh stock >ks-home.txt 2>&1
	check "kernel/build.sh: by default the store is ~/.cache/tracecost/kernels, the cache the checkout's build/kernels" \
		'[ $? -eq 0 ] && grep -qx "kernels: x86_64 6.1 stock cached ($h)" ks-home.txt &&
		 [ "$(readlink -f kb/build/kernels/stock)" = "$tmp/home/.cache/tracecost/kernels/stock-$h" ] ||
		 { sed "s/^/# /" ks-home.txt; false; }'
	# a tree built inside the cache itself (before the store) is used where it is
	built_in ks-old
	ks KERNEL_STORE="$tmp/ks-store2" KERNEL_CACHE="$tmp/ks-old" bash "$top/kernel/build.sh" stock >ks-old.txt 2>&1
	check "kernel/build.sh: a tree already built in the cache itself stays the one used" \
		'[ $? -eq 0 ] && grep -qx "kernels: x86_64 6.1 stock cached ($h)" ks-old.txt &&
		 [ "$(readlink ks-old/stock)" = "stock-$h" ] && [ ! -L ks-old/stock-$h ] &&
		 [ ! -e ks-store2/stock-$h ] || { sed "s/^/# /" ks-old.txt; false; }'
	# KERNEL_CACHE alone is its own store, as before
	built_in ks-own
	ks KERNEL_CACHE="$tmp/ks-own" bash "$top/kernel/build.sh" stock >ks-own.txt 2>&1
	check "kernel/build.sh: KERNEL_CACHE without KERNEL_STORE is its own store" \
		'[ $? -eq 0 ] && grep -qx "kernels: x86_64 6.1 stock cached ($h)" ks-own.txt &&
		 [ -d ks-own/src ] && [ ! -L ks-own/src ] && [ ! -L ks-own/stock-$h ] ||
		 { sed "s/^/# /" ks-own.txt; false; }'
fi

summary stage
