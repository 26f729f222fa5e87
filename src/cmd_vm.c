// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_vm.c - "tracecost vm": boot a kernel build under QEMU and run one
 * "tracecost run" inside it.
 *
 * The host side builds tracecost.ko against the given kbuild tree (a copy
 * of kernel/module/ in a private directory, so the source tree is never
 * written), packs an initramfs (newc cpio, written here) holding busybox, the static
 * tracecost, the module, kernel/vm/init.sh as /init (with its preamble
 * kernel/vm/guest-lib.sh, shared with the tests' inits) and the guest's
 * arguments, boots the kernel with QEMU and reads back what the guest sends
 * on its data port: the run's standard output and error, its result file
 * and its exit status. The result file is labelled with the kernel release
 * and the configuration name ("vm" object; kernel suite columns <name> and
 * <name>+).
 *
 * --initrd CPIO boots a given initramfs instead (the QEMU tests' own /init,
 * tests/vm/lib.sh), its data port into --data FILE: this file is the one
 * QEMU boot path of the project. Every boot is checked the same way: in
 * time (a timeout fails), and a console log without a splat (panic, oops,
 * WARNING, BUG, lockdep, hung task, lockup, RCU stall: vm_splat below).
 * --retry-stall boots once more with one TCG thread when a -smp N boot
 * timed out on a virtual CPU that stopped outside tracecost.ko.
 *
 * Architectures (--arch, struct vm_arch): x86_64 (qemu-system-x86_64, pc,
 * ttyS0 console, ttyS1 data port) and arm64 (qemu-system-aarch64 -M virt,
 * ttyAMA0 console, a virtio console hvc0 as data port: QEMU 7.2's virt has
 * one non-secure UART). The guest's init finds its data port in the
 * environment variable tcdata (a tcdata= kernel parameter). For arm64 the
 * module is cross-built (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-), the
 * static tracecost comes from the cross build tree beside this binary's
 * (build-arm64/ for build/) and busybox from busybox-static:arm64 unpacked
 * by scripts/deps.sh kernels-arm64. riscv64 (qemu-system-riscv64 -M virt with
 * QEMU's OpenSBI, ttyS0 console, hvc0 data port as on arm64) is the same
 * with riscv64-linux-gnu-, build-riscv64/ and /var/lib/tracecost/riscv64/
 * busybox (scripts/deps.sh kernels-riscv). --deterministic on arm64 passes
 * tccounter=pmccntr: the guest's init loads the module with counter=pmccntr,
 * the PMU cycle counter, which counts instructions under -icount shift=0
 * (kernel/module/tracecost_main.c), where CNTVCT_EL0 counts one per 16, and packs
 * the static tracecost built with -DTC_CLOCK_PMCCNTR (build-arm64-pmc/),
 * whose sampler reads the same counter (include/tracecost/clock.h). On
 * riscv64 it passes tccounter=instret (the instret CSR, which QEMU 7.2
 * advances one per instruction under -icount shift=0; the module lets user
 * mode read it) and packs build-riscv64-instret/ (-DTC_CLOCK_INSTRET).
 *
 * --deterministic boots one CPU with -icount shift=0,align=off,sleep=off,
 * a fixed RTC and -seed 1: the guest's TSC and clocks advance by one tick
 * (1 ns) per retired instruction, so figures are instruction counts and
 * every boot of the same kernel and initramfs gives the same ones. -seed
 * fixes what QEMU draws from the host's random source for the guest: the
 * virt boards (arm64, riscv64) put a fresh rng-seed (and arm64 a
 * kaslr-seed) in the device tree's /chosen on every boot (QEMU 7.2
 * hw/arm/virt.c, hw/riscv/virt.c), which seeds the guest kernel's random
 * pool; without it two boots ran the same instructions up to the module's
 * load and then drifted (doc/seed-table.md, "AArch64 and RISC-V").
 *
 * Everything the command creates lives in one directory under $TMPDIR (or
 * /tmp), removed on every exit path.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <jansson.h>

#include "cli.h"

#define VM_TAIL_LINES	20

/*
 * One architecture's boot. In @data_args, "@PREFIX" is PREFIX followed by
 * the data file's path;
 * @image_magic/@image_off is the boot image's signature (x86: the boot
 * protocol's "HdrS" at 0x202; arm64: "ARM\x64" at 0x38, the Image header of
 * Documentation/arm64/booting.rst; riscv: "RSC\x05" at 0x38,
 * Documentation/riscv/boot-image-header.rst).
 */
struct vm_arch {
	const char *name;
	const char *qemu;
	const char *qemu_pkg;
	const char *const *machine;
	const char *console;
	const char *data_dev;
	const char *const *data_args;
	const char *kbuild_arch;
	const char *cross;
	const char *static_dir;		/* the cross build's tree: "<build>" + this */
	const char *det_static_dir;	/* the same for --deterministic */
	const char *det_static_make;	/* the make line that builds it */
	const char *static_make;	/* the make line of static_dir's tracecost-static */
	const char *deps;		/* what installs busybox and QEMU */
	const char *busybox;
	const char *det_append;		/* kernel parameters of --deterministic */
	const char *image_desc;
	const char *image_magic;
	unsigned int image_off;
	unsigned int elf_machine;
};

static const char *const x86_machine[] = { NULL };
static const char *const x86_data[] = { "-serial", "@file:", NULL };
static const char *const arm64_machine[] = { "-M", "virt", "-cpu", "cortex-a57", NULL };
static const char *const arm64_data[] = { "-device", "virtio-serial-device", "-chardev",
					  "@file,id=tcdata,path=", "-device",
					  "virtconsole,chardev=tcdata", NULL };
/* -bios default: the OpenSBI firmware QEMU ships, which boots -kernel in S-mode */
static const char *const riscv64_machine[] = { "-M", "virt", "-bios", "default", NULL };

static const struct vm_arch vm_arches[] = {
	{ "x86_64", "qemu-system-x86_64", "qemu-system-x86", x86_machine, "ttyS0", "/dev/ttyS1",
	  x86_data, NULL, NULL, "", "", "", "build/tracecost-static", "apt-get install busybox-static",
	  "/bin/busybox", "", "an x86 bzImage (no boot header)", "HdrS", 0x202, EM_X86_64 },
	{ "arm64", "qemu-system-aarch64", "qemu-system-arm", arm64_machine, "ttyAMA0",
	  "/dev/hvc0", arm64_data, "arm64", "aarch64-linux-gnu-", "-arm64", "-arm64-pmc",
	  "CROSS_COMPILE=aarch64-linux-gnu- O=build-arm64-pmc EXTRA_CFLAGS=-DTC_CLOCK_PMCCNTR "
	  "build-arm64-pmc/tracecost-static",
	  "CROSS_COMPILE=aarch64-linux-gnu- O=build-arm64 build-arm64/tracecost-static",
	  "make deps-kernels ARCH=arm64", "/var/lib/tracecost/arm64/busybox", " tccounter=pmccntr", "an arm64 Image (no ARM\\x64 header)", "ARM\x64",
	  0x38, EM_AARCH64 },
	{ "riscv64", "qemu-system-riscv64", "qemu-system-misc", riscv64_machine, "ttyS0",
	  "/dev/hvc0", arm64_data, "riscv", "riscv64-linux-gnu-", "-riscv64", "-riscv64-instret",
	  "CROSS_COMPILE=riscv64-linux-gnu- O=build-riscv64-instret EXTRA_CFLAGS=-DTC_CLOCK_INSTRET "
	  "build-riscv64-instret/tracecost-static",
	  "CROSS_COMPILE=riscv64-linux-gnu- O=build-riscv64 build-riscv64/tracecost-static",
	  "make deps-kernels ARCH=riscv", "/var/lib/tracecost/riscv64/busybox", " tccounter=instret",
	  "a riscv Image (no RSC\\x05 header)", "RSC\x05", 0x38, EM_RISCV },
};

enum vm_accel { ACCEL_AUTO, ACCEL_TCG, ACCEL_TCG_SINGLE, ACCEL_KVM };

struct vm_opts {
	const struct vm_arch *arch;
	const char *kernel;
	const char *initrd;
	const char *data;
	const char *build;
	const char *module;
	const char *append;
	const char *json;
	const char *name;
	const char *console;
	unsigned int smp;
	unsigned int memory;
	unsigned int timeout;
	bool deterministic;
	bool retry_stall;
	unsigned int gdb_port;
	enum vm_accel accel;
	int nr_guest;
	char **guest;
};

enum {
	OPT_KERNEL = 256, OPT_BUILD, OPT_MODULE, OPT_SMP, OPT_DETERMINISTIC, OPT_APPEND,
	OPT_JSON, OPT_NAME, OPT_MEMORY, OPT_TIMEOUT, OPT_ACCEL, OPT_CONSOLE, OPT_HELP,
	OPT_ARCH, OPT_INITRD, OPT_DATA, OPT_RETRY_STALL, OPT_GDB,
};

static const struct option long_opts[] = {
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "build", required_argument, NULL, OPT_BUILD },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "smp", required_argument, NULL, OPT_SMP },
	{ "deterministic", no_argument, NULL, OPT_DETERMINISTIC },
	{ "append", required_argument, NULL, OPT_APPEND },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "console", required_argument, NULL, OPT_CONSOLE },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "retry-stall", no_argument, NULL, OPT_RETRY_STALL },
	{ "gdb", required_argument, NULL, OPT_GDB },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost vm [--arch x86_64|arm64|riscv64] --kernel IMAGE\n"
	       "                    (--build KBUILD_DIR | --module KO)\n"
	       "                    [--smp N | --deterministic] [--append ARGS] [--name NAME]\n"
	       "                    [--memory MB] [--timeout S] [--accel auto|tcg|tcg-single|kvm]\n"
	       "                    [--console FILE] [--json FILE] -- run --suite S [options]\n"
	       "       tracecost vm [--arch A] --kernel IMAGE --initrd CPIO --data FILE\n"
	       "                    [--console FILE] [--retry-stall] [boot options]\n"
	       "  boot options: --smp, --deterministic, --append, --memory, --timeout,\n"
	       "                --accel, --gdb PORT\n\n"
	       "Boot IMAGE under QEMU with busybox, a static tracecost and tracecost.ko in\n"
	       "an initramfs, run the given 'tracecost run' inside, print its output and\n"
	       "bring its result file back. With --initrd, boot that initramfs as it is\n"
	       "and keep what its /init writes to the data port (device in $tcdata).\n"
	       "Every boot fails on a timeout or a splat in the console log.\n\n"
	       "  --arch A           x86_64 (default; qemu-system-x86_64), arm64\n"
	       "                     (qemu-system-aarch64 -M virt, TCG) or riscv64\n"
	       "                     (qemu-system-riscv64 -M virt, TCG)\n"
	       "  --kernel IMAGE     the kernel image (arch/x86/boot/bzImage,\n"
	       "                     arch/arm64/boot/Image or arch/riscv/boot/Image)\n"
	       "  --build DIR        kbuild tree (O= directory or linux-headers) to build\n"
	       "                     tracecost.ko against; its name labels the results\n"
	       "  --module KO        take this tracecost.ko instead of building one\n"
	       "  --smp N            virtual CPUs (default 1)\n"
	       "  --deterministic    one CPU, -icount shift=0,align=off,sleep=off, fixed RTC,\n"
	       "                     -seed 1 (the guest's random seeds): one tick per guest\n"
	       "                     instruction, identical on every boot\n"
	       "  --append ARGS      more kernel command line\n"
	       "  --name NAME        configuration name in the result (default: the base\n"
	       "                     name of --build, else of --kernel)\n"
	       "  --memory MB        guest memory (default 512)\n"
	       "  --timeout S        give up on the guest after S seconds (default 900)\n"
	       "  --accel MODE       auto (default: KVM when /dev/kvm works and not\n"
	       "                     --deterministic), tcg, tcg-single (one host thread\n"
	       "                     runs every virtual CPU) or kvm\n"
	       "  --console FILE     keep the guest's console log\n"
	       "  --json FILE        write the run's result file, labelled (\"vm\" object)\n"
	       "  --initrd CPIO      boot this initramfs (its own /init) instead\n"
	       "  --data FILE        with --initrd: where the guest's data port goes\n"
	       "  --retry-stall      a timed-out -smp N boot whose virtual CPU stopped\n"
	       "                     outside tracecost.ko is booted again, one TCG thread\n"
	       "  --gdb PORT         QEMU's gdbstub on 127.0.0.1:PORT (-gdb), for a debugger\n"
	       "                     or kernel/pair-trace.sh; the guest does not wait for it\n"
	       "Needs QEMU (qemu-system-x86, qemu-system-arm or qemu-system-misc), a static\n"
	       "busybox (busybox-static; arm64: make deps-kernels ARCH=arm64; riscv64:\n"
	       "make deps-kernels ARCH=riscv) and tracecost-static beside this binary\n"
	       "(make build/tracecost-static; arm64: make CROSS_COMPILE=aarch64-linux-gnu-\n"
	       "O=build-arm64 build-arm64/tracecost-static; riscv64: the same with\n"
	       "riscv64-linux-gnu- and build-riscv64).\n");
}

/* ---- the private directory, removed on every exit path ------------------ */

static char vm_dir[4096];
static pid_t vm_child;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void vm_cleanup(void)
{
	if (vm_child > 0) {
		kill(-vm_child, SIGKILL);
		waitpid(vm_child, NULL, 0);
		vm_child = 0;
	}
	if (vm_dir[0]) {
		nftw(vm_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		vm_dir[0] = 0;
	}
}

static bool verbose(void)
{
	const char *v = getenv("V");

	return v && !strcmp(v, "1");
}

/*
 * run_child() - run @argv in its own process group with stdout and stderr
 * in @log, for at most @limit seconds (0: no limit). A signal to us kills
 * it and exits 130.
 * Return: exit status, 128 + signal, or -1 on timeout.
 */
static int run_child(char *const argv[], const char *log, unsigned int limit)
{
	struct timespec t0, now, nap = { 0, 20 * 1000 * 1000 };
	int status, fd;
	pid_t pid;

	if (verbose()) {
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "  ", argv[i]);
		fputc('\n', stderr);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		tc_cli_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	vm_child = pid;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			tc_cli_fail("waitpid: %s", strerror(errno));
		if (tc_cli_stop) {
			vm_cleanup();
			exit(TC_EXIT_INTERRUPTED);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (limit && now.tv_sec - t0.tv_sec >= (time_t)limit) {
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			vm_child = 0;
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	vm_child = 0;
	kill(-pid, SIGKILL);	/* anything the child left in its group */
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* @buf = @fmt...; a path that does not fit is a runtime failure. */
static void __attribute__((format(printf, 3, 4))) pathf(char *buf, size_t len, const char *fmt,
							 ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		tc_cli_fail("path too long: %.60s...", buf);
}

/* ---- small file helpers ------------------------------------------------- */

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 65536 + 1);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* The last @lines lines of @path on stderr, indented. */
/* The lines of @text (modified) as "  | LINE", @max at most. */
static void print_lines(char *text, int max)
{
	int n = 0;

	for (char *line = strtok(text, "\n"); line && n < max; line = strtok(NULL, "\n"), n++) {
		line[strcspn(line, "\r")] = 0;
		fprintf(stderr, "  | %s\n", line);
	}
}

static void print_tail(const char *path, int lines)
{
	size_t len;
	char *buf = read_all(path, &len), *p;
	int seen = 0;

	if (!buf || !len) {
		fprintf(stderr, "  (%s is empty)\n", path);
		free(buf);
		return;
	}
	p = buf + len;
	while (p > buf && (p[-1] == '\n' || p[-1] == '\r'))
		*--p = 0;
	while (p > buf && seen < lines)
		if (*--p == '\n')
			seen++;
	if (*p == '\n')
		p++;
	print_lines(p, INT_MAX);
	free(buf);
}

/*
 * The lines of @path around the first line that contains @needle: @before
 * lines before it, @lines in all at most, each as "  | LINE" (a splat's
 * header and its stack, for a report that has only the console log).
 */
static void print_around(const char *path, const char *needle, int before, int lines)
{
	char *buf = read_all(path, NULL), *hit, *p;
	int back = 0;

	hit = buf && needle ? strstr(buf, needle) : NULL;
	if (!hit) {
		free(buf);
		return;
	}
	for (p = hit; p > buf && back <= before; p--)
		if (p[-1] == '\n' && ++back > before)
			break;
	print_lines(p, lines);
	free(buf);
}

static const struct vm_arch *host_arch(void);

/*
 * What differs when the guest's architecture is not this machine's: the
 * cross compiler, the cross build tree of the static tracecost, Debian's
 * busybox of that architecture. On its own architecture a machine uses its
 * compiler, build/ and /bin/busybox.
 */
static bool foreign(const struct vm_arch *arch)
{
	return arch != host_arch();
}

/* The e_machine of the ELF file @path, or 0. */
static unsigned int elf_machine(const char *path)
{
	Elf64_Ehdr eh;
	unsigned int m = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG))
		m = eh.e_machine;
	close(fd);
	return m;
}

static bool has_pt_interp(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	bool interp = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		for (int i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize))
			    != sizeof(ph))
				break;
			if (ph.p_type == PT_INTERP)
				interp = true;
		}
	}
	close(fd);
	return interp;
}

/* ---- the initramfs: newc cpio, written directly ------------------------- */

struct cpio {
	FILE *f;
	unsigned int ino;
	unsigned long off;
};

static void cpio_pad(struct cpio *c)
{
	while (c->off & 3) {
		fputc(0, c->f);
		c->off++;
	}
}

static void cpio_entry(struct cpio *c, const char *name, unsigned int mode, unsigned int rmaj,
		       unsigned int rmin, const void *data, size_t size)
{
	size_t nlen = strlen(name) + 1;

	c->off += (unsigned long)fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X"
					 "%08zX%08X", ++c->ino, mode, 0, 0,
					 (mode & S_IFMT) == S_IFDIR ? 2 : 1, 0, size, 0, 0, rmaj,
					 rmin, nlen, 0);
	fwrite(name, 1, nlen, c->f);
	c->off += nlen;
	cpio_pad(c);
	if (size) {
		fwrite(data, 1, size, c->f);
		c->off += size;
		cpio_pad(c);
	}
}

static void cpio_file(struct cpio *c, const char *name, const char *src, unsigned int perm)
{
	size_t len;
	char *buf = read_all(src, &len);

	if (!buf)
		tc_cli_fail("cannot read %s: %s", src, strerror(errno));
	cpio_entry(c, name, S_IFREG | perm, 0, 0, buf, len);
	free(buf);
}

/* ---- the module: built from a private copy of kernel/module/ ------------ */

static bool wanted_source(const char *name, bool all)
{
	size_t n = strlen(name);

	if (all)
		return true;
	return !strcmp(name, "Kbuild") || !strcmp(name, "Makefile") ||
	       (n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h'));
}

/* Copy the sources of @src (regular files, recursively) into @dst. */
static void copy_sources(const char *src, const char *dst, bool all)
{
	DIR *d = opendir(src);
	struct dirent *e;
	char s[4096], t[4096];
	struct stat st;

	if (!d)
		tc_cli_fail("cannot read %s: %s", src, strerror(errno));
	if (mkdir(dst, 0755) && errno != EEXIST)
		tc_cli_fail("mkdir %s: %s", dst, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		pathf(s, sizeof(s), "%s/%s", src, e->d_name);
		pathf(t, sizeof(t), "%s/%s", dst, e->d_name);
		if (lstat(s, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			copy_sources(s, t, all);
		} else if (S_ISREG(st.st_mode) && wanted_source(e->d_name, all)) {
			size_t len;
			char *buf = read_all(s, &len);
			FILE *f = buf ? fopen(t, "wb") : NULL;

			if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
				tc_cli_fail("cannot copy %s to %s", s, t);
			free(buf);
		}
	}
	closedir(d);
}

static void build_module(const struct vm_arch *arch, const char *top, const char *build,
			 char *ko, size_t len)
{
	char src[4096], dir[4096], log[4096], arg_c[4200], arg_m[4200], arg_a[64], arg_x[64];
	char *argv[] = { "make", "-s", arg_c, arg_m, "modules", NULL, NULL, NULL };
	int rc;

	pathf(dir, sizeof(dir), "%s/src", vm_dir);
	if (mkdir(dir, 0755))
		tc_cli_fail("mkdir %s: %s", dir, strerror(errno));
	/* kernel/module/ finds ../../include and ../../lib as in the tree */
	pathf(dir, sizeof(dir), "%s/src/kernel", vm_dir);
	if (mkdir(dir, 0755))
		tc_cli_fail("mkdir %s: %s", dir, strerror(errno));
	pathf(src, sizeof(src), "%s/kernel/module", top);
	pathf(dir, sizeof(dir), "%s/src/kernel/module", vm_dir);
	copy_sources(src, dir, false);
	pathf(src, sizeof(src), "%s/lib", top);
	pathf(dir, sizeof(dir), "%s/src/lib", vm_dir);
	copy_sources(src, dir, false);
	pathf(src, sizeof(src), "%s/include", top);
	pathf(dir, sizeof(dir), "%s/src/include", vm_dir);
	copy_sources(src, dir, true);
	pathf(dir, sizeof(dir), "%s/src/kernel/module", vm_dir);
	pathf(log, sizeof(log), "%s/kbuild.log", vm_dir);
	pathf(arg_c, sizeof(arg_c), "-C%s", build);
	pathf(arg_m, sizeof(arg_m), "M=%s", dir);
	/*
	 * The module is kbuild's own build against BUILD: nothing of a make
	 * that runs us may reach it. A "make seed-table O=DIR" puts O=DIR in
	 * MAKEFLAGS, which kbuild would take as its output directory (then
	 * "include/config/auto.conf: No such file"); KBUILD_OUTPUT is the
	 * same; ARCH and CROSS_COMPILE in the environment would pick another
	 * architecture than BUILD's (foreign ones are passed below).
	 */
	for (const char *const *v = (const char *const[]){ "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
							    "MAKEOVERRIDES", "KBUILD_OUTPUT",
							    "ARCH", "CROSS_COMPILE", NULL };
	     *v; v++)
		unsetenv(*v);
	if (foreign(arch) && arch->kbuild_arch) {
		snprintf(arg_a, sizeof(arg_a), "ARCH=%s", arch->kbuild_arch);
		snprintf(arg_x, sizeof(arg_x), "CROSS_COMPILE=%s", arch->cross);
		argv[5] = arg_a;
		argv[6] = arg_x;
	}
	rc = run_child(argv, log, 0);
	pathf(ko, len, "%s/tracecost.ko", dir);
	if (rc || access(ko, R_OK)) {
		fprintf(stderr, "tracecost: tracecost.ko does not build against %s (make exit %d):\n",
			build, rc);
		print_tail(log, VM_TAIL_LINES);
		exit(TC_EXIT_FAIL);
	}
}

/* ---- parsing ------------------------------------------------------------ */

static bool is_image(const struct vm_arch *arch, const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, magic, 4, arch->image_off) == 4 && !memcmp(magic, arch->image_magic, 4);
	close(fd);
	return ok;
}

/* The architecture this binary runs on: KVM only boots its own. */
static const struct vm_arch *host_arch(void)
{
#if defined(__x86_64__)
	return &vm_arches[0];
#elif defined(__aarch64__)
	return &vm_arches[1];
#elif defined(__riscv) && __riscv_xlen == 64
	return &vm_arches[2];
#else
	return NULL;
#endif
}

static bool kvm_works(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = ioctl(fd, KVM_GET_API_VERSION, 0) == KVM_API_VERSION;
	close(fd);
	return ok;
}

static void parse(int argc, char **argv, struct vm_opts *o)
{
	char path[4096];
	struct stat st;
	int c;

	*o = (struct vm_opts){ .arch = &vm_arches[0], .smp = 0, .memory = 512, .timeout = 900 };
	if (host_arch())
		o->arch = host_arch();
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL:
			o->kernel = optarg;
			break;
		case OPT_BUILD:
			o->build = optarg;
			break;
		case OPT_MODULE:
			if (access(optarg, R_OK))
				tc_cli_usage("--module: cannot read '%s': %s", optarg, strerror(errno));
			o->module = optarg;
			break;
		case OPT_SMP:
			o->smp = (unsigned int)tc_cli_parse_u64("--smp", optarg, 1, 64);
			break;
		case OPT_DETERMINISTIC:
			o->deterministic = true;
			break;
		case OPT_APPEND:
			if (strpbrk(optarg, "\n\r"))
				tc_cli_usage("--append: the kernel command line is one line");
			o->append = optarg;
			break;
		case OPT_JSON:
			tc_cli_check_output("--json", optarg);
			o->json = optarg;
			break;
		case OPT_NAME:
			if (!*optarg || strlen(optarg) > 40 || strpbrk(optarg, ": \t\n/"))
				tc_cli_usage("--name: '%s' must have 1 to 40 characters, none of"
					     " ':', '/' or blanks", optarg);
			o->name = optarg;
			break;
		case OPT_MEMORY:
			o->memory = (unsigned int)tc_cli_parse_u64("--memory", optarg, 64, 65536);
			break;
		case OPT_TIMEOUT:
			o->timeout = (unsigned int)tc_cli_parse_u64("--timeout", optarg, 1, 86400);
			break;
		case OPT_ACCEL:
			if (!strcmp(optarg, "auto"))
				o->accel = ACCEL_AUTO;
			else if (!strcmp(optarg, "tcg"))
				o->accel = ACCEL_TCG;
			else if (!strcmp(optarg, "tcg-single"))
				o->accel = ACCEL_TCG_SINGLE;
			else if (!strcmp(optarg, "kvm"))
				o->accel = ACCEL_KVM;
			else
				tc_cli_usage("--accel: '%s' is not auto, tcg, tcg-single or kvm", optarg);
			break;
		case OPT_CONSOLE:
			tc_cli_check_output("--console", optarg);
			o->console = optarg;
			break;
		case OPT_ARCH: {
			size_t i;

			for (i = 0; i < sizeof(vm_arches) / sizeof(vm_arches[0]); i++)
				if (!strcmp(optarg, vm_arches[i].name))
					break;
			if (!strcmp(optarg, "aarch64"))
				i = 1;
			else if (!strcmp(optarg, "x86-64") || !strcmp(optarg, "amd64"))
				i = 0;
			else if (!strcmp(optarg, "riscv"))
				i = 2;
			if (i == sizeof(vm_arches) / sizeof(vm_arches[0]))
				tc_cli_usage("--arch: '%s' is not x86_64, arm64 or riscv64", optarg);
			o->arch = &vm_arches[i];
			break;
		}
		case OPT_INITRD:
			if (access(optarg, R_OK))
				tc_cli_usage("--initrd: cannot read '%s': %s", optarg, strerror(errno));
			o->initrd = optarg;
			break;
		case OPT_DATA:
			tc_cli_check_output("--data", optarg);
			if (strchr(optarg, ','))
				tc_cli_usage("--data: '%s' has a comma (QEMU option syntax)", optarg);
			o->data = optarg;
			break;
		case OPT_RETRY_STALL:
			o->retry_stall = true;
			break;
		case OPT_GDB:
			o->gdb_port = (unsigned int)tc_cli_parse_u64("--gdb", optarg, 1, 65535);
			break;
		case 'h':
		case OPT_HELP:
			usage();
			exit(TC_EXIT_OK);
		default:
			tc_cli_bad_option(c, argv, "tracecost vm --help");
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		tc_cli_usage("unexpected argument '%s' (the guest's command goes after '--')",
			     argv[optind]);
	o->guest = argv + optind;
	o->nr_guest = argc - optind;
	if (!o->kernel)
		tc_cli_usage("missing --kernel IMAGE");
	if (access(o->kernel, R_OK))
		tc_cli_usage("--kernel: cannot read '%s': %s", o->kernel, strerror(errno));
	if (!is_image(o->arch, o->kernel))
		tc_cli_usage("--kernel: '%s' is not %s", o->kernel, o->arch->image_desc);
	if (o->accel == ACCEL_KVM && o->arch != host_arch())
		tc_cli_usage("--accel kvm: KVM boots this machine's architecture, not %s",
			     o->arch->name);
	if (o->deterministic && o->smp > 1)
		tc_cli_usage("--deterministic boots one CPU (QEMU -icount): drop --smp %u",
			     o->smp);
	if (o->deterministic && o->accel == ACCEL_KVM)
		tc_cli_usage("--deterministic needs TCG (QEMU -icount): drop --accel kvm");
	if (o->initrd || o->data) {
		if (!o->initrd || !o->data)
			tc_cli_usage("--initrd and --data go together");
		if (o->build || o->module || o->json || o->name || o->nr_guest)
			tc_cli_usage("--initrd boots its own /init: no --build, --module, --json,"
				     " --name or guest command");
		if (!o->smp)
			o->smp = 1;
		return;
	}
	if (!o->build && !o->module)
		tc_cli_usage("missing --build KBUILD_DIR (or --module KO)");
	if (o->build) {
		if (stat(o->build, &st) || !S_ISDIR(st.st_mode))
			tc_cli_usage("--build: '%s' is not a directory", o->build);
		pathf(path, sizeof(path), "%s/include/config/kernel.release", o->build);
		if (access(path, R_OK))
			tc_cli_usage("--build: '%s' is not a configured kernel build tree"
				     " (no include/config/kernel.release)", o->build);
	}
	if (!o->smp)
		o->smp = 1;
	if (!o->nr_guest)
		tc_cli_usage("missing the guest's command: ... -- run --suite kernel|system|user"
			     " [options]");
	if (strcmp(o->guest[0], "run"))
		tc_cli_usage("the guest's command must be 'run', not '%s'", o->guest[0]);
	for (int i = 0; i < o->nr_guest; i++) {
		if (strpbrk(o->guest[i], "\n\r"))
			tc_cli_usage("guest argument %d has a line break", i + 1);
		if (!strcmp(o->guest[i], "--json") || !strncmp(o->guest[i], "--json=", 7))
			tc_cli_usage("--json goes before '--': the result comes back to the host");
	}
}

/* ---- the result: labelled, written atomically ---------------------------- */

/* The text between "@@BEGIN @name" and "@@END" in @data, malloc'ed. */
static char *section(const char *data, const char *name)
{
	char mark[64];
	const char *b, *e;
	char *s;

	snprintf(mark, sizeof(mark), "@@BEGIN %s\n", name);
	b = strstr(data, mark);
	if (!b)
		return NULL;
	b += strlen(mark);
	e = strstr(b, "\n@@END\n");
	if (!e)
		return NULL;
	s = strndup(b, (size_t)(e - b));
	return s;
}

/* A configuration name "<release>..." of the kernel suite -> "<name>...". */
static void relabel(json_t *obj, const char *key, const char *release, const char *name)
{
	const char *n = json_string_value(json_object_get(obj, key));
	size_t rl = strlen(release);
	char buf[160];

	if (n && rl && !strncmp(n, release, rl)) {
		snprintf(buf, sizeof(buf), "%s%s", name, n + rl);
		json_object_set_new(obj, key, json_string(buf));
	}
}

static void label_result(json_t *root, const struct vm_opts *o, const char *name,
			 const char *release, const char *accel)
{
	json_t *k = json_object_get(root, "kernel"), *c, *pair, *cell;
	size_t i, j;

	json_object_set_new(root, "vm", json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:b, s:i, s:s?}",
						  "config", name, "release", release,
						  "kernel", o->kernel, "build", o->build,
						  "accel", accel, "deterministic", o->deterministic,
						  "smp", (int)o->smp, "append", o->append));
	/* kernel suite columns <release>, <release>+ -> <name>, <name>+ */
	if (!k)
		return;
	json_array_foreach(json_object_get(k, "configurations"), i, c)
		relabel(c, "name", release, name);
	json_array_foreach(json_object_get(k, "pairs"), i, pair)
		json_array_foreach(json_object_get(pair, "cells"), j, cell)
			relabel(cell, "configuration", release, name);
}

static void write_result(const char *path, json_t *root)
{
	char tmp[4200];

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (json_dump_file(root, tmp, JSON_INDENT(1) | JSON_COMPACT)) {
		unlink(tmp);
		tc_cli_fail("--json %s: cannot write", path);
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		tc_cli_fail("--json %s: %s", path, strerror(errno));
	}
}

/* ---- the command -------------------------------------------------------- */

static const char *find_in_path(const char *prog)
{
	static char buf[4096];
	const char *p = getenv("PATH");
	char *copy, *dir, *save = NULL;

	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	copy = strdup(p);
	if (!copy)
		tc_cli_fail("out of memory");
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, prog);
		if (!access(buf, X_OK)) {
			free(copy);
			return buf;
		}
	}
	free(copy);
	return NULL;
}

/*
 * Boot the guest once with the data port into @data and the console into
 * @console: QEMU's exit status, or -1 on timeout.
 */
static int boot(const struct vm_opts *o, const char *qemu, const char *accel, const char *initrd,
		const char *console, const char *data)
{
	char con_arg[4300], data_arg[4300], cmdline[4096], mem[16], smp[16], log[4300], gdb[32];
	const struct vm_arch *arch = o->arch;
	char *qargv[48];
	int a = 0, n;

	pathf(con_arg, sizeof(con_arg), "file:%s", console);
	pathf(log, sizeof(log), "%s/qemu.log", vm_dir);
	/*
	 * TC_CLOCK=icount: the kernel passes it to /init as an environment
	 * variable, so that the guest's tracecost says its times are
	 * instruction counts (progress lines of the system suite)
	 */
	/*
	 * no_timer_check: an x86 kernel checks at boot that the timer
	 * interrupt arrives through the IO-APIC within a few ms of host time
	 * (check_timer(), arch/x86/kernel/apic/io_apic.c); a TCG guest on a
	 * loaded host misses that window and panics ("IO-APIC + timer doesn't
	 * work!", seen in a -smp 2 balance boot at load 15). Under -icount the
	 * check counts instructions and always passes, so deterministic boots
	 * keep the kernel's default and their counts.
	 */
	bool timer_check_off = !o->deterministic && strcmp(accel, "kvm") &&
			       !strcmp(arch->name, "x86_64");

	n = snprintf(cmdline, sizeof(cmdline), "console=%s panic=-1 oops=panic tcdata=%s%s%s%s%s%s",
		     arch->console, arch->data_dev, o->deterministic ? arch->det_append : "",
		     o->deterministic ? " TC_CLOCK=icount" : "",
		     timer_check_off ? " no_timer_check" : "",
		     o->append ? " " : "", o->append ? o->append : "");
	if (n >= (int)sizeof(cmdline))
		tc_cli_fail("--append: command line too long");
	snprintf(mem, sizeof(mem), "%u", o->memory);
	snprintf(smp, sizeof(smp), "%u", o->smp);
	qargv[a++] = (char *)qemu;
	for (int i = 0; arch->machine[i]; i++)
		qargv[a++] = (char *)arch->machine[i];
	qargv[a++] = "-accel";
	qargv[a++] = (char *)accel;
	if (!strcmp(accel, "kvm")) {
		qargv[a++] = "-cpu";
		qargv[a++] = "host";
	}
	qargv[a++] = "-m";
	qargv[a++] = mem;
	qargv[a++] = "-smp";
	qargv[a++] = smp;
	if (o->deterministic) {
		qargv[a++] = "-icount";
		qargv[a++] = "shift=0,align=off,sleep=off";
		qargv[a++] = "-rtc";
		qargv[a++] = "base=2024-01-01T00:00:00,clock=vm";
		qargv[a++] = "-seed";
		qargv[a++] = "1";
	}
	if (o->gdb_port) {
		snprintf(gdb, sizeof(gdb), "tcp:127.0.0.1:%u", o->gdb_port);
		qargv[a++] = "-gdb";
		qargv[a++] = gdb;
	}
	qargv[a++] = "-nodefaults";
	qargv[a++] = "-display";
	qargv[a++] = "none";
	qargv[a++] = "-no-reboot";
	qargv[a++] = "-kernel";
	qargv[a++] = (char *)o->kernel;
	qargv[a++] = "-initrd";
	qargv[a++] = (char *)initrd;
	qargv[a++] = "-append";
	qargv[a++] = cmdline;
	qargv[a++] = "-serial";
	qargv[a++] = con_arg;
	for (int i = 0; arch->data_args[i]; i++) {
		if (arch->data_args[i][0] == '@') {
			pathf(data_arg, sizeof(data_arg), "%s%s", arch->data_args[i] + 1, data);
			qargv[a++] = data_arg;
		} else {
			qargv[a++] = (char *)arch->data_args[i];
		}
	}
	qargv[a] = NULL;
	unlink(console);
	unlink(data);
	return run_child(qargv, log, o->timeout);
}

/*
 * Kernel log lines that fail a boot: panics, oopses, WARNINGs, BUGs (KASAN,
 * sleeping in atomic context, ...), any die() header ("int3: 0000 [#1]": the
 * error code and the die counter of arch/x86/kernel/dumpstack.c), lockdep
 * reports, hung tasks, lockups, RCU stalls, debugobjects (POSIX extended
 * regular expression).
 */
static const char vm_splat[] =
	"Kernel panic|Oops|WARNING:|BUG:|kernel BUG at|general protection fault|invalid opcode|"
	"[0-9a-f]{4} \\[#[0-9]+\\]|"
	"Unable to handle kernel|Internal error:|unchecked MSR access|soft lockup|hard LOCKUP|"
	"rcu.*self-detected stall|"
	"rcu_preempt detected stalls|Call Trace|blocked for more than|possible recursive locking|"
	"possible circular locking|inconsistent lock state|possible deadlock|DEBUG_LOCKS_WARN_ON|"
	"suspicious RCU usage|KASAN|ODEBUG|UBSAN";

/* The first line of @text that matches @re, malloc'ed, or NULL. */
static char *first_match(const char *text, const char *re)
{
	regex_t rx;
	char *copy, *line, *save = NULL, *hit = NULL;

	if (!text || regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return NULL;
	copy = strdup(text);
	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line && !hit;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "\r")] = 0;
		if (!regexec(&rx, line, 0, NULL, 0))
			hit = strdup(line);
	}
	free(copy);
	regfree(&rx);
	return hit;
}

/*
 * Did a timed-out boot stop on a virtual CPU that stopped running, outside
 * our code? A CPU's timers stopped firing (RCU's "timer wakeup didn't
 * happen", or a soft lockup of a CPU waiting for the other one's IPI) while
 * no stack of the log has a frame of tracecost.ko. Seen once in about ten
 * -smp 2 boots of QEMU 7.2's multi-threaded TCG on a 2-CPU host: CPU 1 froze
 * in __schedule() (its clock stopped) before any sample was taken, and CPU 0
 * waited for its text_poke IPI for good.
 */
static bool qemu_stall(const char *console)
{
	char *hit = first_match(console, "timer wakeup didn't happen|"
					 "soft lockup - CPU#[0-9]+ stuck");
	char *ours = first_match(console, "\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[tracecost\\]");
	bool stall = hit && !ours;

	free(hit);
	free(ours);
	return stall;
}

/*
 * Boot with the checks every boot gets: a QEMU vCPU stall retried with one
 * TCG thread when @o->retry_stall, then the console scanned for splats.
 * Return: QEMU's status or -1 on timeout; *@splat the first splat line
 * (malloc'ed) or NULL.
 */
static int boot_checked(const struct vm_opts *o, const char *qemu, const char *accel,
			const char *initrd, const char *console, const char *data, char **splat)
{
	char stall_log[4300];
	char *con;
	int rc;

	rc = boot(o, qemu, accel, initrd, console, data);
	con = read_all(console, NULL);
	if (rc == -1 && o->retry_stall && o->smp > 1 && !strcmp(accel, "tcg") &&
	    qemu_stall(con)) {
		pathf(stall_log, sizeof(stall_log), "%s.stall", console);
		rename(console, stall_log);
		fprintf(stderr, "note - timed out on a virtual CPU that stopped outside tracecost.ko"
			" (QEMU TCG; console kept as %s): booting again with one TCG thread\n",
			stall_log);
		free(con);
		rc = boot(o, qemu, "tcg,thread=single", initrd, console, data);
		con = read_all(console, NULL);
	}
	*splat = first_match(con, vm_splat);
	free(con);
	return rc;
}

/* Whether the guest's /init reported on the data port @data. */
static bool guest_started(const char *data)
{
	char *buf;
	bool ok;

	buf = read_all(data, NULL);
	ok = buf && strstr(buf, "@@START");
	free(buf);
	return ok;
}

/*
 * The failure of a boot, said in one line and the console's tail: timeout,
 * no init, stopped early, a splat. Return: whether the boot failed.
 */
static bool boot_failed(const struct vm_opts *o, int rc, const char *buf, const char *splat,
			const char *console, bool want_done)
{
	char path[4300];
	struct stat st;
	bool stopped = true;

	if (rc == -1)
		fprintf(stderr, "tracecost: %s did not finish within %u s; console tail:\n",
			o->kernel, o->timeout);
	else if (want_done && (!buf || !strstr(buf, "@@START")))
		fprintf(stderr, "tracecost: %s did not boot to its init (QEMU exit %d);"
			" console tail:\n", o->kernel, rc);
	else if (rc != 0 || (want_done && !strstr(buf, "\n@@DONE")))
		fprintf(stderr, "tracecost: the guest stopped before its init ended (QEMU"
			" exit %d); console tail:\n", rc);
	else if (splat) {
		fprintf(stderr, "tracecost: the console log has a splat: %s\n", splat);
		stopped = false;
	} else {
		return false;
	}
	/* a guest that stopped: the console's tail; a splat: its header and stack */
	if (stopped)
		print_tail(console, VM_TAIL_LINES);
	if (splat) {
		if (stopped)
			fprintf(stderr, "  the first splat, in its context:\n");
		print_around(console, splat, 8, 48);
	}
	pathf(path, sizeof(path), "%s/qemu.log", vm_dir);
	if (!stat(path, &st) && st.st_size > 0)
		print_tail(path, 3);
	return true;
}

static const char *pick_accel(const struct vm_opts *o)
{
	const char *accel;

	if (o->accel == ACCEL_TCG_SINGLE)
		return "tcg,thread=single";
	accel = o->accel == ACCEL_KVM || (o->accel == ACCEL_AUTO && !o->deterministic &&
					  o->arch == host_arch() && kvm_works()) ? "kvm" : "tcg";
	if (!strcmp(accel, "kvm") && !kvm_works())
		tc_cli_fail("--accel kvm: /dev/kvm does not work here");
	return accel;
}

static void make_vm_dir(void)
{
	const char *tmpdir = getenv("TMPDIR");

	snprintf(vm_dir, sizeof(vm_dir), "%s/tracecost-vm.XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(vm_dir)) {
		vm_dir[0] = 0;
		tc_cli_fail("cannot make a directory in %s: %s", tmpdir ? tmpdir : "/tmp",
			    strerror(errno));
	}
	atexit(vm_cleanup);
}

/* --initrd: boot the given initramfs, its data port into --data. */
static int boot_initrd(const struct vm_opts *o, const char *qemu)
{
	const char *accel = pick_accel(o);
	char console[4300];
	char *splat = NULL;
	bool failed;
	int rc;

	tc_cli_catch_signals();
	make_vm_dir();
	if (o->console)
		pathf(console, sizeof(console), "%s", o->console);
	else
		pathf(console, sizeof(console), "%s/console", vm_dir);
	rc = boot_checked(o, qemu, accel, o->initrd, console, o->data, &splat);
	failed = boot_failed(o, rc, NULL, splat, console, false);
	free(splat);
	return failed ? TC_EXIT_FAIL : TC_EXIT_OK;
}

/* What the host must have for a boot, found from this binary's tree. */
struct vm_host {
	char top[4096];			/* the source tree: this binary's directory/.. */
	char stat_bin[4300];		/* the static tracecost packed for the guest */
	char init[4300];		/* kernel/vm/init.sh, the guest's /init */
	const char *busybox;		/* a static busybox of the guest's architecture */
};

/* Check busybox, the static tracecost, the guest's init and the module's source. */
static void find_host_files(const struct vm_opts *o, struct vm_host *h)
{
	const struct vm_arch *arch = o->arch;
	char exe[4096], path[4300];
	bool det_static;
	ssize_t len;

	h->busybox = foreign(arch) ? arch->busybox : "/bin/busybox";
	if (access(h->busybox, X_OK) || has_pt_interp(h->busybox) ||
	    elf_machine(h->busybox) != arch->elf_machine)
		tc_cli_fail("%s is missing or not a static %s busybox (%s)", h->busybox,
			    arch->name, arch->deps);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		tc_cli_fail("cannot find this binary: %s", strerror(errno));
	exe[len] = 0;
	det_static = foreign(arch) && o->deterministic && *arch->det_static_dir;
	pathf(h->stat_bin, sizeof(h->stat_bin), "%s%s/tracecost-static", dirname(exe),
	      det_static ? arch->det_static_dir : foreign(arch) ? arch->static_dir : "");
	pathf(h->top, sizeof(h->top), "%s/..", exe);	/* exe is its directory now */
	if (access(h->stat_bin, R_OK))
		tc_cli_fail("%s is missing (make %s)", h->stat_bin,
			    det_static ? arch->det_static_make : arch->static_make);
	if (elf_machine(h->stat_bin) != arch->elf_machine)
		tc_cli_fail("%s is not an %s binary", h->stat_bin, arch->name);
	pathf(h->init, sizeof(h->init), "%s/kernel/vm/init.sh", h->top);
	if (access(h->init, R_OK))
		tc_cli_fail("%s is missing: tracecost vm runs from its source tree", h->init);
	pathf(path, sizeof(path), "%s/kernel/module/Kbuild", h->top);
	if (!o->module && access(path, R_OK))
		tc_cli_fail("%s is missing: pass --module KO", path);
}

/* The name of the boot in the result: --name, else the last part of the kernel's path. */
static const char *boot_name(const struct vm_opts *o)
{
	char path[4300], *p;
	const char *name;

	if (o->name)
		return o->name;
	pathf(path, sizeof(path), "%s", o->build ? o->build : o->kernel);
	while ((p = strrchr(path, '/')) && !p[1] && p > path)
		*p = 0;
	name = strdup(basename(path));
	if (!name)
		tc_cli_fail("out of memory");
	return name;
}

/* The guest's arguments, one a line, as the file vm/args of @c. */
static void cpio_guest_args(struct cpio *c, const struct vm_opts *o)
{
	size_t cap = 1, off = 0;
	char *args;

	for (int i = 0; i < o->nr_guest; i++)
		cap += strlen(o->guest[i]) + 1;
	args = malloc(cap);
	if (!args)
		tc_cli_fail("out of memory");
	for (int i = 0; i < o->nr_guest; i++)
		off += (size_t)sprintf(args + off, "%s\n", o->guest[i]);
	cpio_entry(c, "vm/args", S_IFREG | 0644, 0, 0, args, off);
	free(args);
}

/* The initramfs @initrd: busybox, tracecost, the module, /init and the arguments. */
static void write_initrd(const struct vm_opts *o, const struct vm_host *h, const char *ko,
			 const char *initrd)
{
	static const char *const dirs[] = { "bin", "dev", "proc", "sys", "tmp", "run", "vm" };
	struct cpio c = { 0 };
	char path[4300];

	c.f = fopen(initrd, "wb");
	if (!c.f)
		tc_cli_fail("cannot write %s: %s", initrd, strerror(errno));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cpio_entry(&c, dirs[i], S_IFDIR | 0755, 0, 0, NULL, 0);
	cpio_entry(&c, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	cpio_file(&c, "init", h->init, 0755);
	pathf(path, sizeof(path), "%s/kernel/vm/guest-lib.sh", h->top);
	cpio_file(&c, "guest-lib.sh", path, 0644);
	cpio_file(&c, "bin/busybox", h->busybox, 0755);
	cpio_file(&c, "tracecost", h->stat_bin, 0755);
	cpio_file(&c, "tracecost.ko", ko, 0644);
	cpio_guest_args(&c, o);
	cpio_entry(&c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (fclose(c.f))
		tc_cli_fail("cannot write %s", initrd);
}

/* --console FILE: a copy of the boot's console. */
static void copy_console(const char *console, const char *to)
{
	size_t len = 0;
	char *cbuf = read_all(console, &len);
	FILE *f = fopen(to, "wb");

	if (!f || (cbuf && fwrite(cbuf, 1, len, f) != len) || fclose(f))
		tc_cli_fail("--console %s: cannot write", to);
	free(cbuf);
}

/*
 * Boot @initrd; an automatic KVM that cannot start the guest falls back to
 * TCG (*@accel says which ran). Returns what the guest sent on its data
 * port with the serial port's CRLF made LF (NULL if nothing), *@rc and
 * *@splat as boot_checked() sets them, the console in @console.
 */
static char *boot_guest(const struct vm_opts *o, const char *qemu, const char **accel,
			const char *initrd, const char *console, int *rc, char **splat)
{
	char data[4300], *buf;

	pathf(data, sizeof(data), "%s/data", vm_dir);
	*rc = boot_checked(o, qemu, *accel, initrd, console, data, splat);
	if (o->accel == ACCEL_AUTO && !strcmp(*accel, "kvm") && !guest_started(data)) {
		fprintf(stderr, "tracecost: KVM did not start the guest; booting under TCG\n");
		*accel = "tcg";
		free(*splat);
		*rc = boot_checked(o, qemu, *accel, initrd, console, data, splat);
	}
	if (o->console)
		copy_console(console, o->console);
	buf = read_all(data, NULL);
	if (buf) {	/* the serial port's CRLF -> LF */
		char *s = buf, *d = buf;

		for (; *s; s++)
			if (*s != '\r')
				*d++ = *s;
		*d = 0;
	}
	return buf;
}

/*
 * What the guest sent (@buf: "@@START", its sections, "@@RC"): its output
 * here, its failure as one line, its result file labelled and written to
 * --json. Returns the exit status.
 */
static int guest_report(const struct vm_opts *o, const char *buf, const char *name,
			const char *accel)
{
	char release[128] = "";
	char *out, *err, *res;
	const char *p;
	json_error_t je;
	json_t *root;
	int grc;

	p = strstr(buf, "@@START ");
	if (p)
		sscanf(p + 8, "%127s", release);
	p = strstr(buf, "\n@@RC ");
	grc = p ? atoi(p + 6) : 1;
	out = section(buf, "stdout");
	err = section(buf, "stderr");
	if (out)
		fputs(out, stdout);
	if (grc) {
		/* the guest's own message, one line, then its status */
		char *line = err ? strtok(err, "\n") : NULL;

		fprintf(stderr, "tracecost: in the guest (%s, %s): %s\n", name, release,
			line ? (strncmp(line, "tracecost: ", 11) ? line : line + 11)
			     : "the run failed without a message");
		free(out);
		free(err);
		return grc == TC_EXIT_USAGE || grc == TC_EXIT_INTERRUPTED ? grc : TC_EXIT_FAIL;
	}
	if (err && *err)
		fputs(err, stderr);
	res = section(buf, "result");
	if (!res)
		tc_cli_fail("the guest sent no result file");
	root = json_loads(res, 0, &je);
	if (!root)
		tc_cli_fail("the guest's result file is not JSON: %s (line %d)", je.text, je.line);
	label_result(root, o, name, release, accel);
	if (o->json)
		write_result(o->json, root);
	json_decref(root);
	free(res);
	free(out);
	free(err);
	return TC_EXIT_OK;
}

int cmd_vm(int argc, char **argv)
{
	char ko[4300], initrd[4300], console[4300];
	const char *qemu, *name, *accel;
	struct vm_host h;
	struct vm_opts o;
	char *buf, *splat = NULL;
	int rc;

	parse(argc, argv, &o);

	/* Everything below is work: first what must be on this machine. */
	qemu = find_in_path(o.arch->qemu);
	if (!qemu)
		tc_cli_fail("%s is not installed (apt-get install %s)", o.arch->qemu,
			    o.arch->qemu_pkg);
	if (o.initrd)
		return boot_initrd(&o, qemu);
	find_host_files(&o, &h);
	accel = pick_accel(&o);
	name = boot_name(&o);

	tc_cli_catch_signals();
	make_vm_dir();

	if (o.module)
		pathf(ko, sizeof(ko), "%s", o.module);
	else
		build_module(o.arch, h.top, o.build, ko, sizeof(ko));
	pathf(initrd, sizeof(initrd), "%s/initrd.cpio", vm_dir);
	write_initrd(&o, &h, ko, initrd);

	pathf(console, sizeof(console), "%s/console", vm_dir);
	buf = boot_guest(&o, qemu, &accel, initrd, console, &rc, &splat);
	if (boot_failed(&o, rc, buf, splat, console, true)) {
		free(buf);
		free(splat);
		exit(TC_EXIT_FAIL);
	}
	rc = guest_report(&o, buf, name, accel);
	free(buf);
	return rc;
}
