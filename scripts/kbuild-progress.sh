#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Progress of the kernel builds of `make kernels` (kernel/build.sh keeps
# kbuild's output in CACHE/NAME-HASH/build.log, CACHE/ARCH/NAME-HASH/build.log
# for another architecture): run COMMAND and, every
# PROGRESS seconds (default 60) while a build log grows, print one line
#   kernels: debug: compiling, 1234 of about 1650 kbuild steps, 6m00s, last: CC fs/open.o
# (the "about" figure is the step count of the last finished build of the
# same kernel in CACHE, when there is one). So `make check`'s kernel stage
# and `make check-seed-table` say what they are doing instead of the last
# line before the compiler started. Nothing under V=1 (kbuild's output is
# shown live then). kernel/build.sh itself is left alone: it is part of the
# hash that names its cached builds.
# Usage: scripts/kbuild-progress.sh CACHE COMMAND...
set -u
cache=$1
shift
every=${PROGRESS:-60}
if [ "${V:-0}" = 1 ]; then
	exec "$@"
fi
# the stamp is dated 0.1 s back: file times are taken from a coarse clock,
# so a build that writes .tracecost-expect within the same tick as the stamp
# would not be -newer than it (CI saw that once: no progress line at all)
stamp=$(mktemp)
touch -d "@$(date +%s.%N | awk '{ printf "%.3f", $1 - 0.1 }')" "$stamp"
"$@" &
pid=$!
# Ctrl-C and TERM: the build (same process group on a terminal) ends too;
# report its status (130 after Ctrl-C)
trap 'kill -TERM $pid 2>/dev/null' INT TERM

steps() { grep -cE '^  [A-Z][A-Z0-9_]* +[^ ]' "$1" 2>/dev/null || true; }
# the log of a build started by this command (kernel/build.sh writes
# .tracecost-expect when it starts one), the one written last: a build that
# another user of a shared cache runs meanwhile is not ours to report
newest_log() {
	for e in $(find "$cache" -mindepth 2 -maxdepth 3 -name .tracecost-expect -newer "$stamp" \
		   2>/dev/null); do
		[ -f "${e%/*}/build.log" ] && echo "${e%/*}/build.log"
	done | xargs -r ls -t 2>/dev/null | head -1
}
fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# The heartbeat polls the build once a second (no signal to it, no trap:
# dash keeps a parent's handler in a subshell until its own trap is set, so
# a TERM sent at once could be lost) and ends within a second of the build.
(
	last_size=-1 left=$every
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		left=$((left - 1))
		[ "$left" -le 0 ] || continue
		left=$every
		log=$(newest_log)
		[ -n "$log" ] && [ ! -f "$(dirname "$log")/.tracecost-built" ] || continue
		size=$(wc -c <"$log")
		[ "$size" != "$last_size" ] || continue
		last_size=$size
		t=$(($(date +%s) - $(stat -c %Y "$(dirname "$log")/.tracecost-expect")))
		dir=$(basename "$(dirname "$log")")
		# CACHE/NAME-HASH, or CACHE/ARCH/NAME-HASH for another architecture
		in=$(dirname "$(dirname "$log")")
		name=${dir%-*}
		n=$(steps "$log")
		of=""
		for d in "$in/$name"-*; do
			[ "$d" != "$in/$dir" ] && [ -f "$d/.tracecost-built" ] || continue
			tot=$(steps "$d/build.log")
			[ "$n" -lt "$tot" ] && of=" of about $tot"
			break
		done
		lastl=$(grep -E '^  [A-Z][A-Z0-9_]* +[^ ]' "$log" | tail -1 | sed 's/^ *//; s/  */ /g')
		echo "kernels: $name: compiling, $n$of kbuild steps, $(fmt_time $t), last: $lastl"
	done
) &
hb=$!
wait $pid
rc=$?
# a signal interrupted the first wait: wait for the build's own end
kill -0 $pid 2>/dev/null && { wait $pid; rc=$?; }
wait $hb 2>/dev/null
rm -f "$stamp"
exit $rc
