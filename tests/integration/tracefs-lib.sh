# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shell helpers for integration tests that look at this machine's tracefs
# (sourced; needs $TC_SNAP_MNT, an empty directory): every setting a run
# could change, read through a private mount namespace so that looking
# mounts nothing anyone else sees. Used by system.sh and noise.sh.

# snap: the settings, one file after another
snap() {
	unshare -m --propagation private sh -c '
		t=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)
		if [ -z "$t" ]; then
			t=$TC_SNAP_MNT && mount -t tracefs nodev "$t" || exit 1
		fi
		cd "$t" || exit 1
		for f in tracing_on current_tracer buffer_size_kb trace_clock \
			 tracing_cpumask set_event set_event_pid trace_options; do
			echo "== $f"; cat "$f"
		done
		echo "== instances"; ls instances
		echo "== filters"; grep -v "^none$" -H events/*/*/filter 2>/dev/null
		echo "== enables"; grep -l 1 events/*/enable 2>/dev/null
		for i in instances/*/; do
			[ -d "$i" ] || continue
			echo "== $i"; cat "$i/tracing_on" "$i/current_tracer" "$i/set_event"
		done
	' 2>&1
}
# has_instance NAME: whether instance NAME exists now
has_instance() {
	unshare -m --propagation private sh -c '
		t=$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)
		if [ -z "$t" ]; then
			t=$TC_SNAP_MNT && mount -t tracefs nodev "$t" || exit 1
		fi
		[ -d "$t/instances/$1" ]' sh "$1"
}
# mounted: tracefs and debugfs mounts everyone sees
mounted() { grep -E ' (tracefs|debugfs) ' /proc/mounts | sort; }
# wait_instance NAME PID: wait up to 20 s for instance NAME while PID lives
wait_instance() {
	i=0
	while [ $i -lt 200 ]; do
		has_instance "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
