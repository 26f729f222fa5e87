#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install into a temporary DESTDIR; build examples/ (a program and a
# shared object with a static key) against the installed library with
# pkg-config --cflags --libs tracecost, as C and the program also as C++,
# and with -flto -rdynamic (PIE and not) with an exported key; run them on
# the installed libtracecost.so; make uninstall leaves no file.
# Usage: tests/install.sh BUILD_DIR
set -eu
odir=$1
src=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
root=$tmp/root
prefix=/opt/tracecost
pre=$root$prefix
fail() { echo "install: FAIL: $*"; exit 1; }

make --no-print-directory -s O="$odir" install DESTDIR="$root" PREFIX="$prefix" >/dev/null
for f in bin/tracecost lib/libtracecost.so lib/libtracecost.so.0 lib/libtracecost.a \
	lib/pkgconfig/tracecost.pc include/tracecost/static_key.h \
	include/tracecost/tracepoint.h share/man/man1/tracecost.1 \
	share/man/man3/libtracecost.3 share/man/man3/tc_static_key.3 \
	share/man/man3/tc_static_key_enable.3; do
	[ -e "$pre/$f" ] || fail "$f not installed"
done
# The man pages render without warnings.
for m in "$pre"/share/man/man3/libtracecost.3 "$pre"/share/man/man3/tc_*.3; do
	w=$(cd "$pre/share/man" && MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$m" 2>&1 >/dev/null) ||
		fail "man $m"
	[ -z "$w" ] || fail "man $m: $w"
done

export PKG_CONFIG_PATH="$pre/lib/pkgconfig"
cflags=$(pkg-config --define-prefix --cflags tracecost)
libs=$(pkg-config --define-prefix --libs tracecost)
case "$libs" in *"-L$pre/lib"*) ;; *) fail "pkg-config --libs gave '$libs'" ;; esac
cp "$src"/examples/hello.c "$src"/examples/hello_plugin.c "$src"/examples/hello_plugin.h "$tmp/"
cd "$tmp"
# shellcheck disable=SC2086
cc -Wall -Werror -fPIC -shared hello_plugin.c -o libhello_plugin.so $cflags $libs
# shellcheck disable=SC2086
cc -Wall -Werror hello.c -o hello -L. -lhello_plugin $cflags $libs
# shellcheck disable=SC2086
g++ -std=gnu++20 -Wall -Werror -x c++ hello.c -o hello_cxx -L. -lhello_plugin $cflags $libs
export LD_LIBRARY_PATH="$pre/lib:$tmp"
ldd ./hello | grep -q "$pre/lib/libtracecost.so.0" || fail "hello does not use the installed library"
./hello > out.txt || { cat out.txt; fail "hello"; }
grep -q "recorded 10 events, 0 overruns" out.txt || fail "hello: $(cat out.txt)"
grep -q "read back 10 events" out.txt || fail "hello: $(cat out.txt)"
./hello_cxx > out_cxx.txt || { cat out_cxx.txt; fail "hello (C++)"; }
# Link-time optimisation with an exported key (-rdynamic, as for plugins) on
# the default PIE: "impossible constraint in 'asm'" before the PIE sites
# pointed to a private pointer to the key (issue 22, item 12).
cat >lto.c <<'EOF_LTO'
#include <stdio.h>
#include <tracecost/static_key.h>

TC_DEFINE_STATIC_KEY_FALSE(lto_key);

static __attribute__((noinline)) int lto_site(void)
{
	return tc_static_branch_unlikely(&lto_key) ? 1 : 0;
}

int main(void)
{
	int before = lto_site(), err = tc_static_key_enable(&lto_key);

	printf("lto: %d %d %d\n", before, err, lto_site());
	return before != 0 || err || lto_site() != 1;
}
EOF_LTO
for lto in "-O2 -flto -rdynamic" "-O0 -flto -rdynamic" "-O2 -flto -no-pie -rdynamic" \
	   "-O2 -flto -fPIE -pie"; do
	# shellcheck disable=SC2086
	cc -Wall -Werror $lto lto.c -o lto $cflags $libs 2>lto.err || fail "cc $lto: $(head -3 lto.err)"
	./lto >lto.out || fail "lto ($lto): $(cat lto.out)"
	# shellcheck disable=SC2086
	cc -Wall -Werror $lto hello_plugin.c -fPIC -shared -o libhello_plugin_lto.so $cflags $libs \
		2>lto.err || fail "cc -shared $lto: $(head -3 lto.err)"
done
# shellcheck disable=SC2086
cc -Wall -Werror -O2 -flto -rdynamic hello.c -o hello_lto -L. -lhello_plugin $cflags $libs ||
	fail "cc -flto -rdynamic hello.c"
./hello_lto >out_lto.txt || { cat out_lto.txt; fail "hello (-flto -rdynamic)"; }
cd "$src"
make --no-print-directory -s O="$odir" uninstall DESTDIR="$root" PREFIX="$prefix" >/dev/null
left=$(find "$root" -type f -o -type l)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "install: PASS (make install, pkg-config build of examples/ as C and C++, -flto -rdynamic on PIE and not, make uninstall)"
