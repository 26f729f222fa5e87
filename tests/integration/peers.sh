#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tracecost run --suite user --peers: bad input, the peer tables with their
# event counts (flag+, static+q and floor record exactly 2 events per pair:
# asserted),
# "needs root" for enabled usdt without root, and --peers all as root: every
# column measured or saying why, nothing left behind (uprobes, instance,
# state file, session daemon, temporary directory, /dev/shm files); LTTng's
# temporary home removed after runs that end, are signalled at any moment
# or under --runs, and by restore or the --runs parent after a kill -9.
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

# ---- LTTng's temporary home (issue 22) ----
# Every run of the lttng peer makes a home for its session daemon,
# $TMPDIR/tracecost-lttng.XXXXXX (lock, sockets, run/lttng): none may stay
# after a run that ends, fails or is signalled at any moment (set-up,
# sampling, teardown; also under --runs); one left by a killed run (kill -9)
# or a killed --runs child is removed by 'tracecost restore', or by the
# --runs parent. These runs have a TMPDIR of their own: other runs on this
# machine share /tmp.
lt=$tmp/t
mkdir "$lt"
bg=""
cleanup() { [ -n "$bg" ] && kill -9 -"$bg" "$bg" 2>/dev/null; }
homes() { ls -d "$lt"/tracecost-lttng.* 2>/dev/null; }
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# daemon_home SID: the home of a session daemon in session SID (empty if none)
daemon_home() {
	for _p in $(pgrep -s "$1" -x lttng-sessiond); do
		tr '\0' '\n' <"/proc/$_p/cmdline" 2>/dev/null |
			sed -n 's|^--apps-sock=\(.*\)/home/\.lttng/.*|\1|p'
	done | head -1
}
# daemons HOME: the live session daemons of HOME
daemons() {
	for _p in $(pgrep -x lttng-sessiond); do
		alive "$_p" && tr '\0' '\n' <"/proc/$_p/cmdline" 2>/dev/null |
			grep -q "^--apps-sock=$1/" && echo "$_p"
	done
}
# gone HOME: HOME was removed and none of its daemons runs (a killed
# daemon gets 1 s to go); else say what is left and remove it
gone() {
	_i=0
	while [ -n "$(daemons "$1")" ] && [ $_i -lt 20 ]; do sleep 0.05; _i=$((_i + 1)); done
	_d=$(daemons "$1")
	[ -n "$_d" ] && kill -9 $_d
	if [ -e "$1" ] || [ -n "$_d" ]; then
		echo "left:${_d:+ daemon $_d} $(find "$1" 2>/dev/null | wc -l) files in $1"
		rm -rf "$1"
		return 1
	fi
}
# start_run ARGS...: "tracecost run --peers lttng ARGS" in a session of its
# own (bg), its daemon's home in $home once it runs (up to 10 s)
start_run() {
	TMPDIR=$lt setsid "$TC" run --peers lttng "$@" >"$tmp/lt.out" 2>"$tmp/lt.err" &
	bg=$!
	home=""
	_i=0
	while [ -z "$home" ] && [ $_i -lt 200 ] && alive $bg; do
		sleep 0.05
		home=$(daemon_home $bg)
		_i=$((_i + 1))
	done
}
# shellcheck disable=SC2086
TMPDIR=$lt "$TC" run --peers lttng $small >"$tmp/out" 2>"$tmp/err"
rc=$?
why=$(grep "^lttng+: " "$tmp/out")
if [ $rc -ne 0 ]; then
	not_ok "--peers lttng: rc=$rc $(head -3 "$tmp/err")"
elif [ -n "$why" ]; then
	skip "LTTng's temporary home: lttng+ does not run here ($why)"
else
	[ -z "$(homes)" ] && ok "LTTng home: none left after a run" ||
		not_ok "LTTng home left after a run: $(homes)"
	# shellcheck disable=SC2086
	TMPDIR=$lt "$TC" run --peers lttng --runs 2 $small >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && [ -z "$(homes)" ] && ok "LTTng home: none left after --runs 2" ||
		not_ok "LTTng home after --runs 2: rc=$rc $(homes) $(head -2 "$tmp/err")"
	# a signal while the daemon runs: at its start, in the sampling, late
	t=0
	for d in 0 0.1 0.4 0.8 1.5 0; do
		t=$((t + 1))
		if [ $((t % 2)) -eq 1 ]; then sig=INT to=group; else sig=TERM to=run; fi
		start_run --cpus 0 --samples 3000000 --batch 64
		if [ -z "$home" ]; then
			not_ok "LTTng home, SIG$sig after $d s: no daemon seen: $(tail -2 "$tmp/lt.err")"
			cleanup
			wait $bg 2>/dev/null
			bg=""
			continue
		fi
		case $home in "$lt"/*) under=yes ;; *) under=no ;; esac
		sleep $d
		if [ $to = group ]; then kill -$sig -$bg; else kill -$sig $bg; fi
		wait $bg
		rc=$?
		bg=""
		left=$(gone "$home")
		if [ $rc -eq 130 ] && [ -z "$left" ] && [ $under = yes ] && [ -z "$(homes)" ]; then
			ok "LTTng home: SIG$sig to the $to $d s after its daemon started: exit 130, removed"
		else
			not_ok "LTTng home: SIG$sig to the $to after $d s: rc=$rc ${left:-$(homes)} (under \$TMPDIR: $under)"
		fi
	done
	# a signal before the daemon is up (set-up), and under --runs
	for d in 0.05 0.15; do
		TMPDIR=$lt setsid "$TC" run --peers lttng --cpus 0 --samples 3000000 \
			>/dev/null 2>"$tmp/err" &
		bg=$!
		sleep $d
		kill -INT -$bg
		wait $bg
		rc=$?
		bg=""
		sleep 0.2
		[ -z "$(homes)" ] && ok "LTTng home: SIGINT $d s after the start (rc $rc): none left" ||
			{ not_ok "LTTng home: SIGINT $d s after the start: $(homes)"; rm -rf "${lt:?}"/*; }
	done
	start_run --runs 3 --cpus 0 --samples 400000
	sleep 1.2
	kill -INT -$bg
	wait $bg
	rc=$?
	bg=""
	sleep 0.2
	[ $rc -eq 130 ] && [ -z "$(homes)" ] && ok "LTTng home: SIGINT under --runs 3: none left" ||
		{ not_ok "LTTng home: SIGINT under --runs 3: rc=$rc $(homes)"; rm -rf "${lt:?}"/*; }
	# kill -9 of the run: its home stays; restore removes it (and a daemon left)
	start_run --cpus 0 --samples 3000000 --batch 64
	if [ -n "$home" ]; then
		kill -9 $bg
		wait $bg 2>/dev/null
		bg=""
		TMPDIR=$lt "$TC" restore >"$tmp/r.out" 2>"$tmp/r.err"
		left=$(gone "$home")
		if [ -z "$left" ] && grep -q "LTTng" "$tmp/r.out"; then
			ok "LTTng home of a run killed with kill -9: tracecost restore removed it: $(grep LTTng "$tmp/r.out")"
		else
			not_ok "LTTng home of a killed run: $left; restore: $(cat "$tmp/r.out" "$tmp/r.err")"
		fi
	else
		not_ok "LTTng home, kill -9: no daemon seen: $(tail -2 "$tmp/lt.err")"
		cleanup
		wait $bg 2>/dev/null
		bg=""
	fi
	# kill -9 of a --runs child: the parent removes its home
	start_run --runs 2 --cpus 0 --samples 3000000 --batch 64
	child=$(pgrep -P "$bg" | head -1)
	if [ -n "$home" ] && [ -n "$child" ]; then
		kill -9 "$child"
		wait $bg
		rc=$?
		bg=""
		left=$(gone "$home")
		[ -z "$left" ] && ok "LTTng home of a killed --runs child: its parent removed it (rc $rc)" ||
			not_ok "LTTng home of a killed --runs child: rc=$rc $left"
	else
		not_ok "LTTng home, killed --runs child: no child or daemon seen"
		cleanup
		wait $bg 2>/dev/null
		bg=""
	fi
	# a home left by a tracecost before owner.lock: restore removes it once
	# no daemon uses it and it is older than a minute
	old=$lt/tracecost-lttng.Old123
	mkdir -p "$old/run/lttng" "$old/home/.lttng"
	: >"$old/run/lttng/lttng-sessiond.lck"
	touch -d '2 minutes ago' "$old"
	new=$lt/tracecost-lttng.New123
	mkdir "$new"
	TMPDIR=$lt "$TC" restore >"$tmp/r.out" 2>"$tmp/r.err"
	[ ! -e "$old" ] && [ -e "$new" ] &&
		ok "restore removes an old home without a lock, not a fresh one" ||
		not_ok "restore, homes without a lock: old $(ls -d "$old" 2>&1), new $(ls -d "$new" 2>&1)"
	rm -rf "$old" "$new"
fi

summary peers
