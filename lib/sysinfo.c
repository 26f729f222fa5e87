// SPDX-License-Identifier: LGPL-2.1-or-later
/* lib/sysinfo.c - machine and kernel description (see tracecost/sysinfo.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracecost/sysinfo.h>

#ifndef TC_CFLAGS
#define TC_CFLAGS "unknown"
#endif

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

/* First line of @path into @buf; "unknown" when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		chomp(buf);
	else
		snprintf(buf, len, "unknown");
	fclose(f);
}

static void read_cpu_model(struct tc_sysinfo *si)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(si->cpu_model, sizeof(si->cpu_model), "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "model name", 10) || !strncmp(line, "Model\t", 6)) {
			chomp(colon);
			snprintf(si->cpu_model, sizeof(si->cpu_model), "%s", colon + 2);
			break;
		}
	}
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_mitigations(struct tc_sysinfo *si)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char *names[64];
	int i, n = 0, mitigated = 0, unaffected = 0, vulnerable = 0;
	struct dirent *de;
	size_t off = 0;
	DIR *d = opendir(dir);

	si->mitigations[0] = 0;
	snprintf(si->mitigations_summary, sizeof(si->mitigations_summary), "unknown");
	if (!d)
		return;
	while ((de = readdir(d)) && n < 64) {
		if (de->d_name[0] == '.')
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		char path[512], state[256];

		if (!names[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		read_line(path, state, sizeof(state));
		if (!strncmp(state, "Not affected", 12))
			unaffected++;
		else if (!strncmp(state, "Vulnerable", 10))
			vulnerable++;
		else
			mitigated++;
		if (off < sizeof(si->mitigations))
			off += (size_t)snprintf(si->mitigations + off, sizeof(si->mitigations) - off,
						"%s: %s\n", names[i], state);
		free(names[i]);
	}
	chomp(si->mitigations);
	snprintf(si->mitigations_summary, sizeof(si->mitigations_summary),
		 "%d listed: %d mitigated, %d not affected, %d vulnerable",
		 n, mitigated, unaffected, vulnerable);
}

static void read_preemption(struct tc_sysinfo *si)
{
	char buf[128], *open, *close;
	static const char *const models[] = { "PREEMPT_RT", "PREEMPT_DYNAMIC",
					      "PREEMPT_LAZY", "PREEMPT" };
	size_t i;

	/* "none voluntary (full) lazy": the parenthesised one is active. */
	read_line("/sys/kernel/debug/sched/preempt", buf, sizeof(buf));
	open = strchr(buf, '(');
	close = open ? strchr(open, ')') : NULL;
	if (open && close) {
		*close = 0;
		snprintf(si->preemption, sizeof(si->preemption), "%s (dynamic)", open + 1);
		return;
	}
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (strstr(si->version, models[i])) {
			snprintf(si->preemption, sizeof(si->preemption), "%s (uname -v)",
				 models[i]);
			return;
		}
	}
	snprintf(si->preemption, sizeof(si->preemption), "none or voluntary (uname -v)");
}

/* The architecture this binary was built for, as the kernel names it. */
#if defined(__x86_64__)
#define TC_BUILD_ARCH	"x86_64"
#elif defined(__aarch64__)
#define TC_BUILD_ARCH	"aarch64"
#else
#define TC_BUILD_ARCH	NULL
#endif

/*
 * User-mode emulation (qemu-user): uname(2) is the emulated machine's, but
 * /proc/sys/kernel/arch is the running kernel's own and differs.
 */
static void read_emulation(struct tc_sysinfo *si)
{
	char arch[65] = "";
	const char *self = TC_BUILD_ARCH;

	if (!self)
		return;
	read_line("/proc/sys/kernel/arch", arch, sizeof(arch));
	if (!arch[0] || !strcmp(arch, "unknown") || !strcmp(arch, self))
		return;
	snprintf(si->emulation, sizeof(si->emulation), "%s binary on an %s kernel", self, arch);
}

int tc_sysinfo_read(struct tc_sysinfo *si)
{
	struct utsname u;

	memset(si, 0, sizeof(*si));
	read_cpu_model(si);
	si->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (!uname(&u)) {
		snprintf(si->sysname, sizeof(si->sysname), "%s", u.sysname);
		snprintf(si->release, sizeof(si->release), "%s", u.release);
		snprintf(si->version, sizeof(si->version), "%s", u.version);
		snprintf(si->machine, sizeof(si->machine), "%s", u.machine);
		snprintf(si->nodename, sizeof(si->nodename), "%s", u.nodename);
	}
	read_line("/proc/cmdline", si->cmdline, sizeof(si->cmdline));
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  si->clocksource, sizeof(si->clocksource));
	read_preemption(si);
	read_mitigations(si);
#ifdef __VERSION__
	snprintf(si->compiler, sizeof(si->compiler), "%s%s",
#ifdef __clang__
		 "clang ",
#else
		 "gcc ",
#endif
		 __VERSION__);
#endif
	snprintf(si->cflags, sizeof(si->cflags), "%s", TC_CFLAGS);
	read_emulation(si);
	return 0;
}

int tc_interrupts_read(uint64_t *per_cpu, int max)
{
	char *line = NULL, *p, *end;
	size_t cap = 0;
	int cols = 0, i, cpu[4096];
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -errno;
	memset(per_cpu, 0, (size_t)max * sizeof(*per_cpu));
	/* Header: "           CPU0       CPU1 ..." */
	if (getline(&line, &cap, f) > 0) {
		for (p = line; (p = strstr(p, "CPU")) && cols < 4096; p += 3)
			cpu[cols++] = atoi(p + 3);
	}
	while (getline(&line, &cap, f) > 0) {
		p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		for (i = 0; i < cols; i++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (cpu[i] >= 0 && cpu[i] < max)
				per_cpu[cpu[i]] += v;
			p = end;
		}
	}
	free(line);
	fclose(f);
	return 0;
}
