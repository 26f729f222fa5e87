// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd_vm.c - "tracecost vm": boot a kernel build under QEMU and run one
 * "tracecost run" inside it.
 *
 * The host side builds tracecost.ko against the given kbuild tree (a copy
 * of kmod/ in a private directory, so the source tree is never written),
 * packs an initramfs (newc cpio, written here) holding busybox, the static
 * tracecost, the module, kernel/vm/init.sh as /init and the guest's
 * arguments, boots the kernel with qemu-system-x86_64 and reads back what
 * the guest sends on its second serial port: the run's standard output and
 * error, its result file and its exit status. The result file is labelled
 * with the kernel release and the configuration name ("vm" object; kernel
 * suite columns <name> and <name>+).
 *
 * --deterministic boots one CPU with -icount shift=0,align=off,sleep=off
 * and a fixed RTC: the guest's TSC and clocks advance by one tick (1 ns)
 * per retired instruction, so figures are instruction counts and every
 * boot of the same kernel and initramfs gives the same ones.
 *
 * Everything the command creates lives in one directory under $TMPDIR (or
 * /tmp), removed on every exit path.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
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

#define VM_QEMU		"qemu-system-x86_64"
#define VM_BUSYBOX	"/bin/busybox"
#define VM_TAIL_LINES	20

enum vm_accel { ACCEL_AUTO, ACCEL_TCG, ACCEL_KVM };

struct vm_opts {
	const char *kernel;
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
	enum vm_accel accel;
	int nr_guest;
	char **guest;
};

enum {
	OPT_KERNEL = 256, OPT_BUILD, OPT_MODULE, OPT_SMP, OPT_DETERMINISTIC, OPT_APPEND,
	OPT_JSON, OPT_NAME, OPT_MEMORY, OPT_TIMEOUT, OPT_ACCEL, OPT_CONSOLE, OPT_HELP,
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
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	printf("usage: tracecost vm --kernel BZIMAGE (--build KBUILD_DIR | --module KO)\n"
	       "                    [--smp N | --deterministic] [--append ARGS] [--name NAME]\n"
	       "                    [--memory MB] [--timeout S] [--accel auto|tcg|kvm]\n"
	       "                    [--console FILE] [--json FILE] -- run --suite S [options]\n\n"
	       "Boot BZIMAGE under QEMU with busybox, a static tracecost and tracecost.ko in\n"
	       "an initramfs, run the given 'tracecost run' inside, print its output and\n"
	       "bring its result file back.\n\n"
	       "  --kernel BZIMAGE   the kernel image (arch/x86/boot/bzImage of a build)\n"
	       "  --build DIR        kbuild tree (O= directory or linux-headers) to build\n"
	       "                     tracecost.ko against; its name labels the results\n"
	       "  --module KO        take this tracecost.ko instead of building one\n"
	       "  --smp N            virtual CPUs (default 1)\n"
	       "  --deterministic    one CPU, -icount shift=0,align=off,sleep=off, fixed RTC:\n"
	       "                     one tick per guest instruction, identical on every boot\n"
	       "  --append ARGS      more kernel command line\n"
	       "  --name NAME        configuration name in the result (default: the base\n"
	       "                     name of --build, else of --kernel)\n"
	       "  --memory MB        guest memory (default 512)\n"
	       "  --timeout S        give up on the guest after S seconds (default 900)\n"
	       "  --accel MODE       auto (default: KVM when /dev/kvm works and not\n"
	       "                     --deterministic), tcg or kvm\n"
	       "  --console FILE     keep the guest's console log\n"
	       "  --json FILE        write the run's result file, labelled (\"vm\" object)\n"
	       "Needs qemu-system-x86_64, a static busybox (busybox-static) and\n"
	       "tracecost-static beside this binary (make build/tracecost-static).\n");
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
	for (char *line = strtok(p, "\n"); line; line = strtok(NULL, "\n")) {
		line[strcspn(line, "\r")] = 0;
		fprintf(stderr, "  | %s\n", line);
	}
	free(buf);
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

/* ---- the module: built from a private copy of kmod/ --------------------- */

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

static void build_module(const char *top, const char *build, char *ko, size_t len)
{
	char src[4096], dir[4096], log[4096], arg_c[4200], arg_m[4200];
	char *argv[] = { "make", "-s", arg_c, arg_m, "modules", NULL };
	int rc;

	pathf(dir, sizeof(dir), "%s/src", vm_dir);
	if (mkdir(dir, 0755))
		tc_cli_fail("mkdir %s: %s", dir, strerror(errno));
	pathf(src, sizeof(src), "%s/kmod", top);
	pathf(dir, sizeof(dir), "%s/src/kmod", vm_dir);
	copy_sources(src, dir, false);
	pathf(src, sizeof(src), "%s/lib", top);
	pathf(dir, sizeof(dir), "%s/src/lib", vm_dir);
	copy_sources(src, dir, false);
	pathf(src, sizeof(src), "%s/include", top);
	pathf(dir, sizeof(dir), "%s/src/include", vm_dir);
	copy_sources(src, dir, true);
	pathf(dir, sizeof(dir), "%s/src/kmod", vm_dir);
	pathf(log, sizeof(log), "%s/kbuild.log", vm_dir);
	pathf(arg_c, sizeof(arg_c), "-C%s", build);
	pathf(arg_m, sizeof(arg_m), "M=%s", dir);
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

static bool is_bzimage(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	/* the x86 boot protocol's header signature, "HdrS" at 0x202 */
	ok = pread(fd, magic, 4, 0x202) == 4 && !memcmp(magic, "HdrS", 4);
	close(fd);
	return ok;
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

	*o = (struct vm_opts){ .smp = 0, .memory = 512, .timeout = 900 };
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
			else if (!strcmp(optarg, "kvm"))
				o->accel = ACCEL_KVM;
			else
				tc_cli_usage("--accel: '%s' is not auto, tcg or kvm", optarg);
			break;
		case OPT_CONSOLE:
			tc_cli_check_output("--console", optarg);
			o->console = optarg;
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
		tc_cli_usage("missing --kernel BZIMAGE");
	if (access(o->kernel, R_OK))
		tc_cli_usage("--kernel: cannot read '%s': %s", o->kernel, strerror(errno));
	if (!is_bzimage(o->kernel))
		tc_cli_usage("--kernel: '%s' is not an x86 bzImage (no boot header)", o->kernel);
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
	if (o->deterministic && o->smp > 1)
		tc_cli_usage("--deterministic boots one CPU (QEMU -icount): drop --smp %u",
			     o->smp);
	if (o->deterministic && o->accel == ACCEL_KVM)
		tc_cli_usage("--deterministic needs TCG (QEMU -icount): drop --accel kvm");
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

/* Boot the guest once: QEMU's exit status, or -1 on timeout. */
static int boot(const struct vm_opts *o, const char *qemu, const char *accel, char *initrd)
{
	char console[4300], data[4300], cmdline[4096], mem[16], smp[16], log[4300];
	char *qargv[40];
	int a = 0, n;

	pathf(console, sizeof(console), "file:%s/console", vm_dir);
	pathf(data, sizeof(data), "file:%s/data", vm_dir);
	pathf(log, sizeof(log), "%s/qemu.log", vm_dir);
	/*
	 * TC_CLOCK=icount: the kernel passes it to /init as an environment
	 * variable, so that the guest's tracecost says its times are
	 * instruction counts (progress lines of the system suite)
	 */
	n = snprintf(cmdline, sizeof(cmdline), "console=ttyS0 panic=-1 oops=panic%s%s%s",
		     o->deterministic ? " TC_CLOCK=icount" : "",
		     o->append ? " " : "", o->append ? o->append : "");
	if (n >= (int)sizeof(cmdline))
		tc_cli_fail("--append: command line too long");
	snprintf(mem, sizeof(mem), "%u", o->memory);
	snprintf(smp, sizeof(smp), "%u", o->smp);
	qargv[a++] = (char *)qemu;
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
	}
	qargv[a++] = "-nodefaults";
	qargv[a++] = "-display";
	qargv[a++] = "none";
	qargv[a++] = "-no-reboot";
	qargv[a++] = "-kernel";
	qargv[a++] = (char *)o->kernel;
	qargv[a++] = "-initrd";
	qargv[a++] = initrd;
	qargv[a++] = "-append";
	qargv[a++] = cmdline;
	qargv[a++] = "-serial";
	qargv[a++] = console;
	qargv[a++] = "-serial";
	qargv[a++] = data;
	qargv[a] = NULL;
	return run_child(qargv, log, o->timeout);
}

/* Whether the guest's /init reported on the data port. */
static bool guest_started(void)
{
	char path[4300];
	char *buf;
	bool ok;

	pathf(path, sizeof(path), "%s/data", vm_dir);
	buf = read_all(path, NULL);
	ok = buf && strstr(buf, "@@START");
	free(buf);
	return ok;
}

int cmd_vm(int argc, char **argv)
{
	char exe[4096], top[4096], stat_bin[4300], init[4300], ko[4300], path[4300];
	char initrd[4300], console[4300], data[4300];
	const char *qemu, *name, *accel, *tmpdir;
	char release[128] = "";
	struct vm_opts o;
	struct cpio c = { 0 };
	struct stat st;
	json_error_t je;
	json_t *root;
	char *buf, *out, *err, *res, *p;
	int rc, grc;
	ssize_t len;

	parse(argc, argv, &o);

	/* Everything below is work: first what must be on this machine. */
	qemu = find_in_path(VM_QEMU);
	if (!qemu)
		tc_cli_fail(VM_QEMU " is not installed (apt-get install qemu-system-x86)");
	if (access(VM_BUSYBOX, X_OK) || has_pt_interp(VM_BUSYBOX))
		tc_cli_fail(VM_BUSYBOX " is missing or not static (apt-get install busybox-static)");
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		tc_cli_fail("cannot find this binary: %s", strerror(errno));
	exe[len] = 0;
	pathf(stat_bin, sizeof(stat_bin), "%s/tracecost-static", dirname(exe));
	pathf(top, sizeof(top), "%s/..", exe);
	if (access(stat_bin, R_OK))
		tc_cli_fail("%s is missing (make %s)", stat_bin, "build/tracecost-static");
	pathf(init, sizeof(init), "%s/kernel/vm/init.sh", top);
	if (access(init, R_OK))
		tc_cli_fail("%s is missing: tracecost vm runs from its source tree", init);
	pathf(path, sizeof(path), "%s/kmod/Kbuild", top);
	if (!o.module && access(path, R_OK))
		tc_cli_fail("%s is missing: pass --module KO", path);
	accel = o.accel == ACCEL_KVM || (o.accel == ACCEL_AUTO && !o.deterministic && kvm_works())
		? "kvm" : "tcg";
	if (!strcmp(accel, "kvm") && !kvm_works())
		tc_cli_fail("--accel kvm: /dev/kvm does not work here");
	if (o.name) {
		name = o.name;
	} else {
		pathf(path, sizeof(path), "%s", o.build ? o.build : o.kernel);
		while ((p = strrchr(path, '/')) && !p[1] && p > path)
			*p = 0;
		name = strdup(basename(path));
		if (!name)
			tc_cli_fail("out of memory");
	}

	tc_cli_catch_signals();
	tmpdir = getenv("TMPDIR");
	snprintf(vm_dir, sizeof(vm_dir), "%s/tracecost-vm.XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(vm_dir)) {
		vm_dir[0] = 0;
		tc_cli_fail("cannot make a directory in %s: %s", tmpdir ? tmpdir : "/tmp",
			    strerror(errno));
	}
	atexit(vm_cleanup);

	if (o.module)
		pathf(ko, sizeof(ko), "%s", o.module);
	else
		build_module(top, o.build, ko, sizeof(ko));

	/* the initramfs */
	pathf(initrd, sizeof(initrd), "%s/initrd.cpio", vm_dir);
	c.f = fopen(initrd, "wb");
	if (!c.f)
		tc_cli_fail("cannot write %s: %s", initrd, strerror(errno));
	static const char *const dirs[] = { "bin", "dev", "proc", "sys", "tmp", "run", "vm" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cpio_entry(&c, dirs[i], S_IFDIR | 0755, 0, 0, NULL, 0);
	cpio_entry(&c, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	cpio_file(&c, "init", init, 0755);
	cpio_file(&c, "bin/busybox", VM_BUSYBOX, 0755);
	cpio_file(&c, "tracecost", stat_bin, 0755);
	cpio_file(&c, "tracecost.ko", ko, 0644);
	{
		size_t cap = 1, off = 0;
		char *args;

		for (int i = 0; i < o.nr_guest; i++)
			cap += strlen(o.guest[i]) + 1;
		args = malloc(cap);
		if (!args)
			tc_cli_fail("out of memory");
		for (int i = 0; i < o.nr_guest; i++)
			off += (size_t)sprintf(args + off, "%s\n", o.guest[i]);
		cpio_entry(&c, "vm/args", S_IFREG | 0644, 0, 0, args, off);
		free(args);
	}
	cpio_entry(&c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (fclose(c.f))
		tc_cli_fail("cannot write %s", initrd);

	/* the boot; an automatic KVM that cannot start the guest falls back to TCG */
	rc = boot(&o, qemu, accel, initrd);
	if (o.accel == ACCEL_AUTO && !strcmp(accel, "kvm") && !guest_started()) {
		fprintf(stderr, "tracecost: KVM did not start the guest; booting under TCG\n");
		accel = "tcg";
		rc = boot(&o, qemu, accel, initrd);
	}
	pathf(console, sizeof(console), "%s/console", vm_dir);
	pathf(data, sizeof(data), "%s/data", vm_dir);
	if (o.console) {
		char *cbuf = read_all(console, (size_t *)&len);
		FILE *f = fopen(o.console, "wb");

		if (!f || (cbuf && fwrite(cbuf, 1, (size_t)len, f) != (size_t)len) || fclose(f))
			tc_cli_fail("--console %s: cannot write", o.console);
		free(cbuf);
	}
	buf = read_all(data, NULL);
	if (buf) {	/* the serial port's CRLF -> LF */
		char *s = buf, *d = buf;

		for (; *s; s++)
			if (*s != '\r')
				*d++ = *s;
		*d = 0;
	}
	if (rc != 0 || !buf || !strstr(buf, "\n@@DONE")) {
		if (rc == -1)
			fprintf(stderr, "tracecost: %s did not finish within %u s; console tail:\n",
				o.kernel, o.timeout);
		else if (!buf || !strstr(buf, "@@START"))
			fprintf(stderr, "tracecost: %s did not boot to its init (QEMU exit %d);"
				" console tail:\n", o.kernel, rc);
		else
			fprintf(stderr, "tracecost: the guest stopped before the run ended (QEMU"
				" exit %d); console tail:\n", rc);
		print_tail(console, VM_TAIL_LINES);
		pathf(path, sizeof(path), "%s/qemu.log", vm_dir);
		if (!stat(path, &st) && st.st_size > 0)
			print_tail(path, 3);
		free(buf);
		exit(TC_EXIT_FAIL);
	}
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
		free(buf);
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
	label_result(root, &o, name, release, accel);
	if (o.json)
		write_result(o.json, root);
	json_decref(root);
	free(res);
	free(out);
	free(err);
	free(buf);
	return TC_EXIT_OK;
}
