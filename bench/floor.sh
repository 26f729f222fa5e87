#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/floor.sh (issue 17, "the enabled path at the floor"): what one
# recorded event costs with the events serialized, for static+ (urcu-memb
# read side per event), static+q (QSBR: no read side), the floor (rdtsc +
# one 32-byte store into a per-thread ring) and LTTng-UST (lttng+), all
# columns of one run. Figures for BENCHMARKS.md, never asserted.
#
# Serialized: the tracecost given must be built with
# EXTRA_CFLAGS=-DTC_SAMPLE_LFENCE (make bench builds one in $(O)-lfence/):
# each batched pair then ends with an lfence, so a sample is the sum of
# its pairs' latencies and consecutive events cannot overlap
# (include/tracecost/subject.h, __TC_SAMPLE_SEP). Its header's "compiler:"
# line says so; without it this script says the figures are free-running.
#
# ns per event = (column - its disabled twin) / events per pair, from the
# median sample / batch (robust to preemption on a loaded machine) and
# from the mean; twins: static+ and static+q against static, lttng+
# against lttng, floor against stock. Ratios from the medians of the same
# run: static+q / floor (goal <= 1.2), static+q / lttng+ (goal <= 1/8),
# and static+ / floor for comparison.
#
# Usage: bench/floor.sh path/to/tracecost
#   FLOOR_SAMPLES (default 200000), FLOOR_BATCH (16), FLOOR_CPUS (1),
#   FLOOR_PEERS (qsbr,floor,lttng; lttng+ says why when it cannot run)
set -eu
TC=$1
SAMPLES=${FLOOR_SAMPLES:-200000}
BATCH=${FLOOR_BATCH:-16}
CPUS=${FLOOR_CPUS:-1}
PEERS=${FLOOR_PEERS:-qsbr,floor,lttng}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT

cmd="$TC run --suite user --peers $PEERS --samples $SAMPLES --batch $BATCH --cpus $CPUS --format csv"
echo "== enabled cost per event, $(date -u +%Y-%m-%dT%H:%M:%SZ), $($TC --version)"
echo "== $cmd"
echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
$cmd >"$tmp/out.csv" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E '^(cpu|kernel|compiler|counter|rcu readers):' "$tmp/out.csv" || true
if grep -q '^compiler:.*TC_SAMPLE_LFENCE' "$tmp/out.csv"; then
	echo "== serialized: an lfence after every pair (TC_SAMPLE_LFENCE)"
else
	echo "== NOT serialized: $TC was built without -DTC_SAMPLE_LFENCE (free-running figures)"
fi
grep -v '^tracecost: --peers' "$tmp/err" >&2 || true
grep '^tracecost: --peers' "$tmp/err" || true

# The "tracing on" table: its header line, then its rows.
awk -F, '
	/^section,/ { hdr = $0; next }
	/^"Peers, tracing on: cost per event"/ { if (!done) { print hdr; done = 1 } print }
' "$tmp/out.csv" | sed 's/^"Peers, tracing on: cost per event"/table/' >"$tmp/on.csv"

echo
echo "ns per event (median sample / batch; mean in parentheses):"
awk -F, '
	NR == 1 { for (i = 3; i <= NF; i++) name[i] = $i; n = NF; next }
	{ row = $2; for (i = 3; i <= n; i++) v[row, name[i]] = $i; rows[++nr] = row }
	END {
		line = "| pair |"; sep = "| --- |"
		for (i = 3; i <= n; i++) { line = line " " name[i] " |"; sep = sep " ---: |" }
		print line; print sep
		split("irq preempt irq_save", pairs, " ")
		for (p = 1; p <= 3; p++) {
			line = "| " pairs[p] " |"
			for (i = 3; i <= n; i++)
				line = line " " v[pairs[p] " median", name[i]] " (" v[pairs[p] " mean", name[i]] ") |"
			print line
		}
		line = "| events per pair |"
		for (i = 3; i <= n; i++) line = line " " v["events per pair", name[i]] " |"
		print line
		print ""
		print "ratios of the medians (same run):"
		print "| pair | static+q / floor | static+q / lttng+ | static+ / floor | static+ / lttng+ |"
		print "| --- | ---: | ---: | ---: | ---: |"
		for (p = 1; p <= 3; p++) {
			q = v[pairs[p] " median", "static+q"]; s = v[pairs[p] " median", "static+"]
			f = v[pairs[p] " median", "floor"]; l = v[pairs[p] " median", "lttng+"]
			printf "| %s | %s | %s | %s | %s |\n", pairs[p],
				(f + 0 > 0 && q != "") ? sprintf("%.2f", q / f) : "-",
				(l + 0 > 0 && q != "") ? sprintf("%.3f", q / l) : "-",
				(f + 0 > 0 && s != "") ? sprintf("%.2f", s / f) : "-",
				(l + 0 > 0 && s != "") ? sprintf("%.3f", s / l) : "-"
		}
	}
' "$tmp/on.csv"
