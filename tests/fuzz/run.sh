#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the result-reader fuzzer (tests/fuzz/fuzz_result_read.c, libFuzzer):
# first every input of tests/fuzz/regress/ (inputs that once crashed it)
# and of the seed corpus, once each; then new inputs for SECONDS, mutated
# from the seed corpus with the format's dictionary. New corpus entries go
# to a temporary directory: the tree is left unchanged.
# A crash leaves its input in $TC_FUZZ_ARTIFACTS (default: a kept temporary
# directory, printed); add it to tests/fuzz/regress/ with the fix.
# Usage: tests/fuzz/run.sh FUZZ_BIN SECONDS [CORPUS [DICT]]
# CORPUS (default corpus) names tests/fuzz/CORPUS, regression inputs are in
# tests/fuzz/regress (corpus) or tests/fuzz/regress-NAME (corpus-NAME); the
# result reader's dictionary is used for the default corpus only.
set -u
bin=$1
secs=$2
cname=${3:-corpus}
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=tests/lib.sh
. "$here/../lib.sh"
name=$(basename "$bin")
dict=${4:-}
[ "$cname" = corpus ] && dict=${dict:-$here/result.dict}
regress=$here/regress
[ "$cname" = corpus ] || regress=$here/regress-${cname#corpus-}
extra=""
# each rejected value prints its one line: not in the log
[ "$cname" = corpus-options ] && extra="-close_fd_mask=2"

work=$(mktemp -d)
log=$work/fuzz.log
artifacts=${TC_FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$work/corpus" "$artifacts"

# Replay: each file once (libFuzzer runs file arguments and exits).
set -- "$regress"/* "$here/$cname"/*
replay=""
for f in "$@"; do
	case "$f" in */README*) continue ;; esac
	[ -f "$f" ] && replay="$replay $f"
done
# shellcheck disable=SC2086
if "$bin" $extra $replay >"$log" 2>&1; then
	ok "$name: replayed $(echo $replay | wc -w) regression and seed inputs"
else
	not_ok "$name: a regression or seed input crashes it:"
	tail -30 "$log"
fi

if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 ${dict:+-dict="$dict"} $extra \
	-artifact_prefix="$artifacts/" -print_final_stats=1 "$work/corpus" "$here/$cname" \
	>"$log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(sed -n 's/^stat::.*//; s/.*cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
	ok "$name: ${runs:-?} executions in ${secs} s (coverage ${cov:-?} edges), no crash"
	rm -rf "$work"
else
	not_ok "$name: crash; input kept in $artifacts (add it to $regress/):"
	grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$log" | head -10
	rm -rf "$work/corpus"
fi
summary "$name"
