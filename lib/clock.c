// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/clock.c - counter description and frequency calibration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracecost/clock.h>

static uint64_t mono_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#if defined(__x86_64__)
static int cpu_has_flag(const char *flag)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, "flags", 5))
			continue;
		for (p = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \n");
		     p; p = strtok(NULL, " \n"))
			if (!strcmp(p, flag))
				found = 1;
		break;
	}
	fclose(f);
	return found;
}
#endif

#if defined(__aarch64__)
/* The system counter's frequency as firmware programmed it (Arm ARM, CNTFRQ_EL0). */
static uint64_t cntfrq(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}
#endif

int tc_clock_calibrate(struct tc_clock_info *info, unsigned int ms)
{
	enum { ROUNDS = 3, READS = 4096 };
	double freq[ROUNDS];
	uint64_t d[READS];
	int i;

	if (ms < 10)
		return -EINVAL;
	memset(info, 0, sizeof(*info));

	/* Back-to-back reads: resolution and cost of one read. */
	for (i = 0; i < READS; i++) {
		uint64_t a = tc_clock_read_start();
		uint64_t b = tc_clock_read();

		d[i] = b - a;
	}
	qsort(d, READS, sizeof(d[0]), cmp_u64);
	info->read_cost = d[READS / 2];
	info->resolution = 0;
	for (i = 0; i < READS; i++) {
		if (d[i]) {
			info->resolution = d[i];
			break;
		}
	}

#if defined(__x86_64__) || defined(__aarch64__) || \
	(defined(__riscv) && __riscv_xlen == 64 && defined(TC_CLOCK_INSTRET))
	for (i = 0; i < ROUNDS; i++) {
		struct timespec req = {
			.tv_sec = ms / ROUNDS / 1000,
			.tv_nsec = (long)(ms / ROUNDS % 1000) * 1000000L,
		};
		uint64_t n0, n1, c0, c1;

		n0 = mono_raw_ns();
		c0 = tc_clock_read();
		nanosleep(&req, NULL);
		n1 = mono_raw_ns();
		c1 = tc_clock_read();
		if (c1 <= c0 || n1 <= n0)
			return -EIO;
		freq[i] = (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
	}
	qsort(freq, ROUNDS, sizeof(freq[0]), cmp_double);
	info->freq_hz = freq[ROUNDS / 2];
	snprintf(info->source, sizeof(info->source),
		 "measured against CLOCK_MONOTONIC_RAW, median of %d x %u ms",
		 ROUNDS, ms / ROUNDS);
#endif
#if defined(__x86_64__)
	info->name = "tsc (lfence; rdtsc; lfence)";
	info->constant_rate = cpu_has_flag("constant_tsc");
#elif defined(__aarch64__) && defined(TC_CLOCK_PMCCNTR)
	(void)cntfrq;
	info->name = "pmccntr_el0 (isb; mrs)";
	info->constant_rate = 1;
#elif defined(__aarch64__)
	info->name = "cntvct_el0 (isb; mrs)";
	info->constant_rate = 1;
	if (cntfrq()) {
		/* the architected frequency; the measurement stays as a check */
		snprintf(info->source, sizeof(info->source),
			 "cntfrq_el0; %.3f MHz measured against CLOCK_MONOTONIC_RAW",
			 info->freq_hz / 1e6);
		info->freq_hz = (double)cntfrq();
	} else {
		/* firmware left it unset (or an emulator does not model it) */
		snprintf(info->source, sizeof(info->source),
			 "measured against CLOCK_MONOTONIC_RAW, median of %d x %u ms; "
			 "cntfrq_el0 reads 0", ROUNDS, ms / ROUNDS);
	}
#elif defined(__riscv) && __riscv_xlen == 64 && defined(TC_CLOCK_INSTRET)
	info->name = "instret (rdinstret)";
	info->constant_rate = 1;
#else
	(void)cmp_double;
	(void)freq;
	(void)mono_raw_ns;
	info->name = "CLOCK_MONOTONIC_RAW (ns)";
	info->freq_hz = 1e9;
	info->constant_rate = 1;
	snprintf(info->source, sizeof(info->source), "1 tick = 1 ns");
#endif
	return 0;
}
