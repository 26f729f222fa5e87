/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracecost/sysinfo.h - what a result depends on, read from /proc and /sys.
 */
#ifndef TRACECOST_SYSINFO_H
#define TRACECOST_SYSINFO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct tc_sysinfo - machine and kernel description for result headers
 * @cpu_model:	 "model name" of /proc/cpuinfo (first CPU)
 * @cpus_online: online CPUs (sysconf _SC_NPROCESSORS_ONLN)
 * @sysname, @release, @version, @machine, @nodename: uname(2)
 * @cmdline:	 /proc/cmdline
 * @clocksource: /sys/devices/system/clocksource/clocksource0/current_clocksource
 * @preemption:	 preemption model: /sys/kernel/debug/sched/preempt when
 *		 readable (the active one of PREEMPT_DYNAMIC), else from the
 *		 uname version string ("PREEMPT_DYNAMIC", "PREEMPT_RT", ...)
 * @mitigations: one "name: state" per line of /sys/devices/system/cpu/vulnerabilities
 * @mitigations_summary: e.g. "13 listed: 9 mitigated, 4 not affected, 0 vulnerable"
 * @compiler:	 compiler that built tracecost (__VERSION__)
 * @cflags:	 optimisation and sanitizer flags it was built with
 * @emulation:	 empty on a native run; else e.g. "aarch64 binary on an x86_64
 *		 kernel": /proc/sys/kernel/arch (the kernel's own architecture,
 *		 which qemu-user does not fake) differs from the one this
 *		 binary was built for, so the figures are not measurements
 */
struct tc_sysinfo {
	char cpu_model[128];
	int cpus_online;
	char sysname[65], release[65], version[65], machine[65], nodename[65];
	char cmdline[4096];
	char clocksource[64];
	char preemption[64];
	char mitigations[4096];
	char mitigations_summary[128];
	char compiler[128];
	char cflags[256];
	char emulation[128];
};

/** tc_sysinfo_read() - fill @si; missing files leave "unknown". Return: 0. */
int tc_sysinfo_read(struct tc_sysinfo *si);

/**
 * tc_interrupts_read() - interrupts per CPU so far, summed over every line
 * of /proc/interrupts
 * @per_cpu: array of @max counters, indexed by CPU number (zeroed first)
 * @max:     its length
 *
 * Return: 0, or -errno if /proc/interrupts cannot be read.
 */
int tc_interrupts_read(uint64_t *per_cpu, int max);

#ifdef __cplusplus
}
#endif

#endif /* TRACECOST_SYSINFO_H */
