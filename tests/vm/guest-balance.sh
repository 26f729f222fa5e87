#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the event-stream balance boot (tests/vm/balance.sh): is the
# stream of preemptirq events on every CPU balanced? With events/preemptirq
# enabled while the guest makes system calls, forks, execs, switches
# between processes, takes page faults, interrupts and softirqs and idles,
# each CPU's irq_disable/irq_enable events must alternate (never two
# disables or two enables in a row), and so must its
# preempt_disable/preempt_enable events: a consumer that pairs them (the
# irqs-off and preempt-off spans) is otherwise wrong.
#
# The ring buffer records only between tracing_on=1 and tracing_on=0, with
# every event already enabled, so each CPU's record is one contiguous piece
# of its stream (overwrite mode drops its oldest pages, not its middle);
# its first event may be either kind. A CPU whose record has fewer than
# MIN events of a kind fails: the check must have something to check; and
# a filtered stream, unbalanced on purpose, must fail the same check.
# Results: "TEST <name> ok|FAIL <detail>" lines on the data port ($tcdata:
# /dev/ttyS1 on x86-64, /dev/hvc0 on arm64), then the first unbalanced
# events of each failing stream, then "@@DONE".
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmp /tmp
PORT=${tcdata:-/dev/ttyS1}
stty -F "$PORT" raw -echo 2>/dev/null
T=/sys/kernel/tracing
MIN=100
out() { echo "$*" >"$PORT"; }
t() { if [ "$2" = ok ]; then out "TEST $1 ok $3"; else out "TEST $1 FAIL $3"; fi; }
finish() {
	out "@@DONE"
	sync
	reboot -f
}

ncpu=$(grep -c ^processor /proc/cpuinfo)
out "@@START $(uname -r) cpus=$ncpu"
events=""
for e in irq_disable irq_enable preempt_disable preempt_enable; do
	[ -d "$T/events/preemptirq/$e" ] && events="$events $e"
done
if [ "$events" != " irq_disable irq_enable preempt_disable preempt_enable" ]; then
	t events-present FAIL "events/preemptirq has:${events:- nothing}"
	finish
fi
t events-present ok "$events"

echo 0 >"$T/tracing_on"
echo 8192 >"$T/buffer_size_kb"
: >"$T/trace"
echo 1 >"$T/events/preemptirq/enable"
echo 1 >"$T/tracing_on"

# the workload: forks and execs (page faults, exits), a pipe between two
# processes (wakeups, switches, often across CPUs), file system calls,
# timers and idle; the idle period is last so that every CPU's record ends
# with it and has the rest before it
i=0
while [ $i -lt 10 ]; do
	cat /proc/self/stat >/dev/null
	ls /sys/kernel >/dev/null
	i=$((i + 1))
done
dd if=/dev/zero bs=4096 count=100 2>/dev/null | cat >/dev/null
i=0
while [ $i -lt 20 ]; do
	echo $i >/tmp/f.$i
	rm /tmp/f.$i
	i=$((i + 1))
done
sleep 1

echo 0 >"$T/tracing_on"
echo 0 >"$T/events/preemptirq/enable"

# check KIND CPU: alternation of KIND_disable/KIND_enable in the record of
# CPU; prints "n_disable n_enable n_bad" and the first bad events to
# /tmp/bad.KIND.CPU
check() {
	awk -v kind="$1" -v bad="/tmp/bad.$1.$2" '
	/^#/ { next }
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i == kind "_disable:" || $i == kind "_enable:") { ev = $i; break }
		if (ev == "")
			next
		n[ev]++
		if (ev == last) {
			nbad++
			if (nbad <= 3)
				printf "after  %s\nbad    %s\n", lastline, $0 > bad
		}
		last = ev
		lastline = $0
	}
	END { printf "%d %d %d\n", n[kind "_disable:"], n[kind "_enable:"], nbad }'
}
# hw CPU: irq events reported by the entry code and the idle loop (the
# transitions the hardware makes), by the function they were reported from:
# the generic entry code (x86-64), arm64's el0_*/el1_* handlers and the
# functions of arch/arm64/kernel/entry-common.c, riscv's entry.S (6.1: its
# labels _save_context, ret_from_exception and restore_all, where
# __trace_hardirqs_on/off tail-call the report, or those two helpers when
# built with frame pointers), default_idle_call()
hw() {
	grep -o -E 'irq_(en|dis)able: caller=(syscall_enter_from_user_mode|syscall_exit_to_user_mode|irqentry_enter|irqentry_exit|irqentry_exit_to_user_mode|exit_to_user_mode|enter_from_kernel_mode|exit_to_kernel_mode|asm_exit_to_user_mode|el[01]h?_[a-z0-9_]+|_save_context|ret_from_exception|restore_all|__trace_hardirqs_o(n|ff)|default_idle_call)[+.]' |
		sed 's/[+.]$//; s/caller=//' | sort | uniq -c | awk '{ printf "%s%s %s x%d", sep, $2, $3, $1; sep = ", " }'
}

cpu=0
while [ $cpu -lt "$ncpu" ]; do
	cat "$T/per_cpu/cpu$cpu/trace" >/tmp/trace.$cpu
	over=$(sed -n 's/^overrun: //p' "$T/per_cpu/cpu$cpu/stats")
	for kind in irq preempt; do
		set -- $(check $kind $cpu </tmp/trace.$cpu)
		fig="$1 disables, $2 enables, $3 in a row (overrun $over)"
		if [ "$1" -lt $MIN ] || [ "$2" -lt $MIN ]; then
			t "$kind-balance-cpu$cpu" FAIL "fewer than $MIN events of a kind: $fig"
		elif [ "$3" -ne 0 ]; then
			t "$kind-balance-cpu$cpu" FAIL "$fig"
			sed "s/^/  /" "/tmp/bad.$kind.$cpu" >"$PORT"
		else
			t "$kind-balance-cpu$cpu" ok "$fig"
		fi
	done
	# the record must hold the transitions at entry, exit and idle
	h=$(hw </tmp/trace.$cpu)
	case "$h" in
	*irq_disable:*irq_enable:* | *irq_enable:*irq_disable:*)
		t "hw-transitions-cpu$cpu" ok "$h" ;;
	*) t "hw-transitions-cpu$cpu" FAIL "no irq_disable and irq_enable from the entry code or idle: ${h:-none}" ;;
	esac
	cpu=$((cpu + 1))
done

# The check can fail: the same stream with the idle task's irq_disable
# events filtered out (an irq_enable of default_idle_call() then follows
# the last one before idle) must show events in a row on some CPU.
echo 'common_pid != 0' >"$T/events/preemptirq/irq_disable/filter"
: >"$T/trace"
echo 1 >"$T/events/preemptirq/enable"
echo 1 >"$T/tracing_on"
cat /proc/self/stat >/dev/null
sleep 0.5
echo 0 >"$T/tracing_on"
echo 0 >"$T/events/preemptirq/enable"
echo 0 >"$T/events/preemptirq/irq_disable/filter"
bad=0
cpu=0
while [ $cpu -lt "$ncpu" ]; do
	set -- $(check irq $cpu <"$T/per_cpu/cpu$cpu/trace")
	bad=$((bad + $3))
	cpu=$((cpu + 1))
done
if [ "$bad" -gt 0 ]; then
	t check-detects-imbalance ok "$bad in a row with the idle task's irq_disable filtered out"
else
	t check-detects-imbalance FAIL "no events in a row although the idle task's irq_disable were filtered out"
fi
finish
