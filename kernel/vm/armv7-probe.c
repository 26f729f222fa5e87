// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel/vm/armv7-probe.c: the ARMv7 rows of the function-tracer table
 * (seed 004, doc/seed-table.md, "ARMv7"), measured without tracecost, which
 * does not build for 32-bit ARM (no armhf libraries here, __int128 in
 * lib/stats.c and lib/snapshot.c, <linux/kvm.h> in src/cmd_vm.c) and whose
 * tracecost vm has no ARMv7 machine. A static /init for an initramfs:
 * getpid, a pipe round trip between two processes, and lat_fs 0k's file
 * create and delete on tmpfs, each one long loop timed with CLOCK_MONOTONIC,
 * which under QEMU -icount shift=0 counts guest instructions (one ns each);
 * prints the totals and per operation, then powers off. With "count" on
 * the kernel command line (passed to /init) it counts function entries
 * instead, with the function profiler (tracefs function_profile_enabled,
 * trace_stat/function0, its own enable and disable subtracted); with
 * "trace", with the function tracer (current_tracer function, the events
 * written between tracing_on 1 and 0: the trace's entries-written header,
 * its own on and off subtracted).
 *
 *   arm-linux-gnueabihf-gcc -O2 -Wall -static -o DIR/init kernel/vm/armv7-probe.c
 *   mkdir DIR/dev && mknod -m 600 DIR/dev/console c 5 1
 *   (cd DIR && find . | cpio -o -H newc | gzip) >probe.gz
 *   qemu-system-arm -M virt,dtb-randomness=off -cpu cortex-a15 -m 512 -smp 1 \
 *       -icount shift=0,align=off,sleep=off -rtc base=2024-01-01T00:00:00,clock=vm \
 *       -nographic -no-reboot -kernel KDIR/arch/arm/boot/zImage -initrd probe.gz \
 *       -append "console=ttyAMA0 panic=-1 [count|trace]"
 *
 * KDIR: make kernels ARCH=arm KERNELS="stock ftrace". Not part of any make
 * target or test.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static int counting;	/* 1: the function profiler, 2: the function tracer */
static uint64_t base;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void put(const char *file, const char *v)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/t/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, v, strlen(v)) != (ssize_t)strlen(v)) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void prof(const char *v)
{
	put(counting == 1 ? "function_profile_enabled" : "tracing_on", v);
}

/* the function tracer's events since the trace was cleared */
static uint64_t tracer_entries(void)
{
	unsigned long long in, all = 0;
	char line[256];
	FILE *f = fopen("/t/trace", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu", &in, &all) == 2)
			break;
	if (f)
		fclose(f);
	put("trace", "");
	return all;
}

/* the hits of every function in trace_stat/function0 */
static uint64_t hits(void)
{
	static char buf[1 << 20];
	unsigned long long h;
	uint64_t s = 0;
	size_t len = 0;
	ssize_t n;
	char *p, *nl;
	int fd = open("/t/trace_stat/function0", O_RDONLY);

	while (fd >= 0 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	if (fd >= 0)
		close(fd);
	buf[len] = 0;
	for (p = buf; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (sscanf(p, "%*s %llu", &h) == 1)
			s += h;
	}
	return s;
}

static uint64_t start(void)
{
	if (counting == 2)
		put("trace", "");
	if (counting)
		prof("1");
	return now();
}

static void stop(const char *what, uint64_t t0, int n)
{
	uint64_t t1 = now(), h;

	if (counting) {
		prof("0");
		h = counting == 1 ? hits() : tracer_entries();
		printf("probe: %s %.2f function entries/op (%llu - %llu)\n", what,
		       (double)(h - base) / n, (unsigned long long)h, (unsigned long long)base);
	} else {
		printf("probe: %s %.2f ns/op (%llu ns / %d)\n", what, (double)(t1 - t0) / n,
		       (unsigned long long)(t1 - t0), n);
	}
}

int main(int argc, char **argv)
{
	int i, n, p1[2], p2[2];
	char c = 0, name[32];
	uint64_t t0;

	if (argc > 1)
		counting = !strcmp(argv[1], "count") ? 1 : !strcmp(argv[1], "trace") ? 2 : 0;
	mkdir("/tmp", 0777);
	if (mount("tmpfs", "/tmp", "tmpfs", 0, NULL))
		perror("probe: tmpfs");
	if (counting) {
		mkdir("/t", 0755);
		if (mount("nodev", "/t", "tracefs", 0, NULL))
			perror("probe: tracefs");
		if (counting == 2)
			put("current_tracer", "function");
		prof("1");
		prof("0");
		base = counting == 1 ? hits() : tracer_entries();
		printf("probe: counting, enable and disable alone %llu entries\n",
		       (unsigned long long)base);
	}

	n = 200000;
	t0 = start();
	for (i = 0; i < n; i++)
		syscall(SYS_getpid);
	stop("getpid", t0, n);

	if (pipe(p1) || pipe(p2))
		return 1;
	if (fork() == 0) {
		for (;;) {
			if (read(p1[0], &c, 1) != 1 || write(p2[1], &c, 1) != 1)
				_exit(0);
		}
	}
	n = 20000;
	t0 = start();
	for (i = 0; i < n; i++) {
		if (write(p1[1], &c, 1) != 1 || read(p2[0], &c, 1) != 1)
			return 1;
	}
	stop("pipe round trip", t0, n);

	n = 10000;
	t0 = start();
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "/tmp/%d", i);
		close(open(name, O_CREAT | O_WRONLY, 0644));
	}
	stop("fs 0k create", t0, n);
	t0 = start();
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "/tmp/%d", i);
		unlink(name);
	}
	stop("fs 0k delete", t0, n);
	fflush(stdout);
	reboot(RB_POWER_OFF);
	return 0;
}
