#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tracecost run --suite user --peers: bad input, the peer tables with their
# event counts (flag+, static+q and floor record exactly 2 events per pair:
# asserted),
# "needs root" for enabled usdt without root, and --peers all as root: every
# column measured or saying why, nothing left behind (uprobes, instance,
# state file, session daemon, temporary directory, /dev/shm files).
# Asserts behaviour only, never timing.
# Usage: tests/integration/peers.sh path/to/tracecost
set -u
TC=$(readlink -f "$1")
# shellcheck source=tests/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
tmpdir
small="--samples 2000 --cpus 0"

# bad input: one line, exit 2
for bad in "bogus" "" "flag,nope"; do
	"$TC" run --suite user --peers "$bad" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
		ok "--peers '$bad': exit 2: $(cat "$tmp/err")"
	else
		not_ok "--peers '$bad': rc=$rc $(head -2 "$tmp/err")"
	fi
done

# the man page's PEERS section names every peer of the usage text (subjects/peers.def)
man=$(dirname "$0")/../../doc/tracecost.1
list=$("$TC" run --help | sed -n 's/.*--peers LIST .* all, or \([a-z0-9_,-]*\) .*/\1/p')
[ -n "$list" ] && ok "usage lists the peers: $list" || not_ok "usage: no --peers list"
for p in $(echo "$list" | tr ',' ' '); do
	sed -n '/^\.SH PEERS/,/^\.SH [A-Z]/p' "$man" | grep -q "^\.BR\{0,1\} $p\( \|$\)" &&
		ok "man page, PEERS: $p" || not_ok "man page, PEERS: $p missing"
done

# flag, floor and qsbr (static+q): columns in every table, counts exact
# shellcheck disable=SC2086
if "$TC" run --suite user --peers flag,floor,qsbr $small --json "$tmp/r.json" >"$tmp/out" \
	2>"$tmp/err"; then
	ok "--peers flag,floor,qsbr runs"
else
	not_ok "--peers flag,floor,qsbr: $(head -3 "$tmp/err")"
fi
for t in "Peers, tracing off: cost over stock" "Peers, tracing on: cost per event" \
	 "Peers, tracing off: instructions/bytes per site"; do
	grep -q "^$t" "$tmp/out" && ok "table: $t" || not_ok "table missing: $t"
done
grep -q "^ *Metric .*flag .*flag+ .*floor" "$tmp/out" && ok "flag, flag+, floor in the pair tables" ||
	not_ok "flag/floor columns missing in the pair tables"
grep -q "^ *Metric .*static+ .*static+q" "$tmp/out" && ok "static+q in the pair tables" ||
	not_ok "static+q column missing in the pair tables"
# 2000 samples x 3 pairs x 2 events = 12000 events in the main run
line=$(grep "events recorded" "$tmp/out" | tail -1)
case "$line" in
*"12000"*) ok "events recorded: $line" ;;
*) not_ok "events recorded: $line" ;;
esac
per=$(grep "events per pair" "$tmp/out" | tail -1)
n=$(echo "$per" | grep -o "2\.000" | wc -l)
[ "$n" -ge 5 ] && ok "events per pair 2.000 for static+ call+ static+q flag+ floor" ||
	not_ok "$per"
jq -e '.user.peers.columns | map(.name) | index("floor") != null' "$tmp/r.json" >/dev/null &&
	ok "result file has user.peers" || not_ok "result file without user.peers"
jq -e '.user.peers.columns[] | select(.name == "flag+") | .events == 12000' "$tmp/r.json" \
	>/dev/null && ok "result file: flag+ events" || not_ok "result file: flag+ events"
jq -e '.user.peers.columns[] | select(.name == "static+q") | .events == 12000' "$tmp/r.json" \
	>/dev/null && ok "result file: static+q events" || not_ok "result file: static+q events"
jq -e '.user.configurations[] | select(.name == "static+q") | .probes == true' "$tmp/r.json" \
	>/dev/null && ok "result file: static+q is a configuration with probes" ||
	not_ok "result file: static+q configuration"

# enabled usdt without root: the column says so, the rest runs
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	# shellcheck disable=SC2086
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TC" run --suite user --peers usdt \
		$small >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q "usdt+: needs root" "$tmp/out"; then
		ok "usdt+ without root: 'needs root', exit 0"
	elif grep -q "usdt+: not built" "$tmp/out"; then
		ok "usdt not built here: says so"
	else
		not_ok "usdt without root: rc=$rc $(grep usdt "$tmp/out" "$tmp/err" | head -3)"
	fi
fi

# --peers all as root: measured or a reason, and everything torn down
if [ "$(id -u)" -eq 0 ]; then
	before_shm=$(ls /dev/shm 2>/dev/null | grep -c lttng)
	# shellcheck disable=SC2086
	"$TC" run --suite user --peers all $small >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] && ok "--peers all: exit 0" || not_ok "--peers all: rc=$rc $(head -3 "$tmp/err")"
	for c in usdt+ usdt-s+ lttng+; do
		if grep -q "^ *Metric .* $c" "$tmp/out" || grep -q "^$c: " "$tmp/out"; then
			ok "$c: measured or says why ($(grep "^$c: " "$tmp/out" || echo measured))"
		else
			not_ok "$c: neither a column nor a reason"
		fi
	done
	tdir=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -n "$tdir" ] && grep -q tracecost_usdt "$tdir/uprobe_events"; then
		not_ok "uprobes left in $tdir/uprobe_events"
	else
		ok "no uprobe left"
	fi
	if ls -d /tmp/tracecost-lttng.* >/dev/null 2>&1 && \
	   [ -n "$(find /tmp -maxdepth 1 -name 'tracecost-lttng.*' -newer "$tmp/err" 2>/dev/null)" ]; then
		not_ok "temporary LTTng directory left"
	else
		ok "no temporary LTTng directory left"
	fi
	after_shm=$(ls /dev/shm 2>/dev/null | grep -c lttng)
	[ "$after_shm" -le "$before_shm" ] && ok "no /dev/shm file left" ||
		not_ok "/dev/shm: $(ls /dev/shm | grep lttng)"
	# A daemon of this run outlives its temporary directory (removed above);
	# one whose directory is still there belongs to another tracecost that
	# runs now (another test run, a benchmark): not ours to judge. A
	# finished run's daemon gets 2 s to go.
	orphans() {
		pgrep -af "lttng-sessiond --no-kernel --quiet --apps-sock=/tmp/tracecost-lttng" |
		sed -n 's|.*--apps-sock=\(/tmp/tracecost-lttng\.[^/ ]*\).*|\1|p' |
		while read -r d; do [ -d "$d" ] || echo "$d"; done
	}
	left=$(orphans)
	[ -n "$left" ] && sleep 2 && left=$(orphans)
	if [ -n "$left" ]; then
		not_ok "session daemon still running, its directory gone: $(echo $left)"
	else
		ok "no session daemon left"
	fi
fi

summary peers
