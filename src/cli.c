// SPDX-License-Identifier: GPL-2.0-or-later
/* src/cli.c - argument parsing, errors, signals and progress for the CLI. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libgen.h>
#include <limits.h>

#include <tracecost/report.h>
#include <tracecost/tracefs.h>

#include "cli.h"

volatile sig_atomic_t tc_cli_stop;
int tc_cli_argc;
char **tc_cli_argv;

void tc_cli_die(int code, const char *fmt, ...)
{
	va_list ap;

	tc_cli_progress_done();
	fputs("tracecost: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* Set once a command polls tc_cli_stop; before that a signal exits at once. */
static volatile sig_atomic_t polling;
/* tc_cli_signals_at_once(): the supervised child's set-up, nothing to lose */
static volatile sig_atomic_t at_once;
/* In the measuring child of tc_cli_run_supervised(): its supervisor. */
static pid_t sup_parent;

static void on_signal(int sig)
{
	static const char msg[] = "tracecost: interrupted; nothing written\n";

	tc_cli_stop = sig;
	if (!polling)
		_exit(TC_EXIT_INTERRUPTED);
	if (at_once && sup_parent && getppid() == sup_parent) {
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nothing more to say */
		}
		_exit(TC_EXIT_INTERRUPTED);
	}
}

static void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void tc_cli_early_signals(void)
{
	install_handlers();
}

void tc_cli_catch_signals(void)
{
	polling = 1;
	install_handlers();
	/*
	 * From here on a command may have changed tracing: a write to a closed
	 * pipe (Ctrl-C on "tracecost run | tee log" ends tee first) must fail
	 * with EPIPE, not kill the process before it restores what it changed.
	 */
	signal(SIGPIPE, SIG_IGN);
}

uint64_t tc_cli_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		tc_cli_usage("%s: '%s' is not a non-negative integer", opt, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		tc_cli_usage("%s: '%s' is not a non-negative integer", opt, s);
	if (errno == ERANGE)
		tc_cli_usage("%s: %s is out of range [%llu, %llu]", opt, s,
			     (unsigned long long)min, (unsigned long long)max);
	if (v < min || v > max)
		tc_cli_usage("%s: %llu is out of range [%llu, %llu]", opt, v,
			     (unsigned long long)min, (unsigned long long)max);
	return v;
}

double tc_cli_parse_double(const char *opt, const char *s, double min_excl, double max_incl)
{
	double v;
	char *end;

	errno = 0;
	v = s && *s ? strtod(s, &end) : NAN;
	if (!s || !*s || errno || *end || isnan(v))
		tc_cli_usage("%s: '%s' is not a number", opt, s ? s : "");
	if (!(v > min_excl && v <= max_incl))
		tc_cli_usage("%s: %s is out of range (%g, %g]", opt, s, min_excl, max_incl);
	return v;
}

/* Online CPUs from sysfs, intersected with our affinity mask. */
static void allowed_cpus(cpu_set_t *set)
{
	char buf[4096], *p;
	cpu_set_t online;
	FILE *f;

	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(*set), set))
		tc_cli_fail("sched_getaffinity: %s", strerror(errno));
	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f)
		return;
	CPU_ZERO(&online);
	if (fgets(buf, sizeof(buf), f)) {
		for (p = strtok(buf, ",\n"); p; p = strtok(NULL, ",\n")) {
			int a, b;

			if (sscanf(p, "%d-%d", &a, &b) == 2) {
				for (; a <= b && a < CPU_SETSIZE; a++)
					CPU_SET(a, &online);
			} else if (sscanf(p, "%d", &a) == 1 && a < CPU_SETSIZE) {
				CPU_SET(a, &online);
			}
		}
		CPU_AND(set, set, &online);
	}
	fclose(f);
}

static int set_to_list(const cpu_set_t *set, int **cpus)
{
	int i, n = 0;

	*cpus = malloc(sizeof(int) * (size_t)(CPU_COUNT(set) ? CPU_COUNT(set) : 1));
	if (!*cpus)
		tc_cli_fail("out of memory");
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, set))
			(*cpus)[n++] = i;
	return n;
}

int tc_cli_all_cpus(int **cpus)
{
	cpu_set_t set;

	allowed_cpus(&set);
	return set_to_list(&set, cpus);
}

void tc_cli_format_cpus(const int *cpus, int n, char *buf, size_t len)
{
	size_t off = 0;
	int i = 0;

	buf[0] = 0;
	while (i < n && off < len) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "",
						cpus[i], cpus[j]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "",
						cpus[i]);
		i = j + 1;
	}
}

void tc_cli_check_list(const char *opt, const char *s)
{
	const char *p;

	if (!s || !*s)
		tc_cli_usage("%s: empty list", opt);
	for (p = s; *p; p++)
		if (*p == ',' && (p == s || p[1] == ',' || !p[1]))
			tc_cli_usage("%s: empty item in '%s' (items are separated by single commas)",
				     opt, s);
}

/* "2,4,8" or "0k,1k,4k" into @v; exits 2 naming @opt. */
int tc_cli_parse_uint_list(const char *opt, const char *s, unsigned int *v, int max,
			   bool k_suffix)
{
	char *copy, *tok, *save, *end;
	int n = 0;

	tc_cli_check_list(opt, s);
	copy = strdup(s);
	if (!copy)
		tc_cli_fail("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long x;

		errno = 0;
		x = strtoul(tok, &end, 10);
		if (k_suffix && (*end == 'k' || *end == 'K'))
			end++;
		/* digits only (strtoul would take " 5", "+5" and "-5") */
		if (!isdigit((unsigned char)*tok) || errno || *end || x > 1000000 || n == max) {
			free(copy);	/* the fuzzer (tests/fuzz/fuzz_options.c) returns here */
			if (n == max)
				tc_cli_usage("%s: more than %d values", opt, max);
			tc_cli_usage("%s: '%s' is not a list of integers (e.g. 2,4,8)", opt, s);
		}
		v[n++] = (unsigned int)x;
	}
	free(copy);
	return n;
}

static int parse_cpu_number(const char *opt, const char *list, const char **p)
{
	long v;
	char *end;

	if (!isdigit((unsigned char)**p))
		tc_cli_usage("%s: '%s' is not a CPU list (e.g. 0-3,6)", opt, list);
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v >= CPU_SETSIZE)
		tc_cli_usage("%s: CPU %.*s is out of range", opt, (int)(end - *p), *p);
	*p = end;
	return (int)v;
}

int tc_cli_parse_cpus(const char *opt, const char *s, int **cpus)
{
	cpu_set_t want, allowed;
	const char *p = s;
	int i, n;

	CPU_ZERO(&want);
	tc_cli_check_list(opt, s);
	for (;;) {
		int a = parse_cpu_number(opt, s, &p), b = a;

		if (*p == '-') {
			p++;
			b = parse_cpu_number(opt, s, &p);
			if (b < a)
				tc_cli_usage("%s: '%s': range %d-%d is reversed", opt, s, a, b);
		}
		for (i = a; i <= b; i++)
			CPU_SET(i, &want);
		if (!*p)
			break;
		if (*p != ',' || !p[1])
			tc_cli_usage("%s: '%s' is not a CPU list (e.g. 0-3,6)", opt, s);
		p++;
	}
	allowed_cpus(&allowed);
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET(i, &want) && !CPU_ISSET(i, &allowed)) {
			int *all;
			char buf[256];

			n = set_to_list(&allowed, &all);
			tc_cli_format_cpus(all, n, buf, sizeof(buf));
			free(all);
			tc_cli_usage("%s: CPU %d is not online or not allowed (available: %s)",
				     opt, i, buf);
		}
	}
	return set_to_list(&want, cpus);
}

static struct timespec progress_t0;
static int progress_shown;

void tc_cli_progress(void *arg, double fraction)
{
	const char *what = arg;
	struct timespec now;
	double el;

	if (!isatty(STDERR_FILENO))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!progress_t0.tv_sec && !progress_t0.tv_nsec) {
		progress_t0 = now;
		return;
	}
	el = (double)(now.tv_sec - progress_t0.tv_sec) +
	     (double)(now.tv_nsec - progress_t0.tv_nsec) / 1e9;
	if (el < 2.0)
		return;
	fprintf(stderr, "\r%s: %3.0f%% (%.0f s, ~%.0f s left) ", what ? what : "sampling",
		fraction * 100.0, el, fraction > 0.01 ? el / fraction - el : 0.0);
	progress_shown = 1;
}

void tc_cli_progress_line(const char *fmt, ...)
{
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	progress_shown = 1;
}

void tc_cli_progress_done(void)
{
	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = 0;
	progress_t0.tv_sec = 0;
	progress_t0.tv_nsec = 0;
}

int tc_cli_parse_unit(const char *opt, const char *s)
{
	if (!strcmp(s, "ns"))
		return 0;
	if (!strcmp(s, "ticks") || !strcmp(s, "cycles"))
		return 1;
	tc_cli_usage("%s: '%s' is not ns, ticks or cycles", opt, s);
}

int tc_cli_parse_format(const char *opt, const char *s, int json_ok)
{
	if (!strcmp(s, "text"))
		return TC_TABLE_TEXT;
	if (!strcmp(s, "markdown"))
		return TC_TABLE_MARKDOWN;
	if (!strcmp(s, "csv"))
		return TC_TABLE_CSV;
	if (json_ok && !strcmp(s, "json"))
		return -1;
	tc_cli_usage("%s: '%s' is not text, markdown%s", opt, s,
		     json_ok ? ", csv or json" : " or csv");
}

const char *tc_cli_format_name(int format)
{
	switch (format) {
	case TC_TABLE_MARKDOWN:
		return "markdown";
	case TC_TABLE_CSV:
		return "csv";
	default:
		return "text";
	}
}

/* The kind of a kernel pseudo file system, where no output file can be created. */
static const char *pseudo_fs(const char *dir)
{
	static const struct { unsigned long magic; const char *name; } fs[] = {
		{ 0x9fa0, "proc file system" },
		{ 0x62656572, "sysfs" },
		{ 0x64626720, "debugfs" },
		{ 0x74726163, "tracefs" },
		{ 0x27e0eb, "cgroup file system" },
		{ 0x63677270, "cgroup2 file system" },
		{ 0x1cd1, "devpts file system" },
		{ 0x73636673, "securityfs" },
		{ 0xcafe4a11, "bpf file system" },
	};
	struct statfs sf;
	size_t i;

	if (statfs(dir, &sf))
		return NULL;
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if ((unsigned long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

void tc_cli_check_output(const char *opt, const char *path)
{
	const char *pseudo;
	char *copy, *dir, tmp[4096];
	struct stat st;
	int fd;

	if (!*path)
		tc_cli_usage("%s: empty file name", opt);
	if (!strcmp(path, "-"))
		return;
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		tc_cli_usage("%s: '%s' exists and is not a regular file", opt, path);
	copy = strdup(path);
	if (!copy)
		tc_cli_fail("out of memory");
	dir = dirname(copy);
	pseudo = pseudo_fs(dir);
	if (pseudo)
		tc_cli_usage("%s: cannot create '%s': '%s' is on a %s, where no file can be created",
			     opt, path, dir, pseudo);
	if (access(dir, W_OK))
		tc_cli_usage("%s: cannot write in '%s': %s", opt, dir, strerror(errno));
	/*
	 * Results are written to PATH.tmp.PID and renamed over PATH: try that
	 * now, before any work (root passes access() on /proc and the like).
	 */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		tc_cli_usage("%s: file name too long", opt);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		tc_cli_usage("%s: cannot write in '%s': %s", opt, dir, strerror(errno));
	close(fd);
	unlink(tmp);
	free(copy);
}

/* @path's directory resolved (symlinks, ".", "..") plus its last component */
static int resolved_name(const char *path, char *out, size_t len)
{
	char *c1 = strdup(path), *c2 = strdup(path), *dir;
	int ret = -1;

	if (c1 && c2) {
		dir = realpath(dirname(c1), NULL);
		if (dir && snprintf(out, len, "%s/%s", dir, basename(c2)) < (int)len)
			ret = 0;
		free(dir);
	}
	free(c1);
	free(c2);
	return ret;
}

int tc_cli_same_file(const char *a, const char *b)
{
	char ra[PATH_MAX + 256], rb[PATH_MAX + 256];
	struct stat sa, sb;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	if (!strcmp(a, b))
		return 1;
	/* both exist: the same inode (hard links, symlinks, ./x and x) */
	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	/* not yet created: the same name in the same directory */
	if (!resolved_name(a, ra, sizeof(ra)) && !resolved_name(b, rb, sizeof(rb)))
		return !strcmp(ra, rb);
	return 0;
}

int tc_cli_state(long *pid)
{
	int ret = tc_tracefs_state_owner(NULL, pid);

	/* a state file we cannot read or lock: treat it as left behind */
	return ret < 0 ? TC_STATE_STALE : ret;
}

const char *tc_cli_state_who(long pid)
{
	static char buf[128];

	if (pid > 0)
		snprintf(buf, sizeof(buf), "pid %ld", pid);
	else
		snprintf(buf, sizeof(buf), "its state file cannot be read: 'tracecost restore' "
			 "says why and moves it aside");
	return buf;
}

/* In the measuring child of tc_cli_run_supervised(): its session. */
static struct tc_tracefs *sup_t;
static int (*sup_fn)(void *arg);

static int supervised_child(void *arg)
{
	sup_parent = getppid();
	return sup_fn(arg);
}

void tc_cli_signals_at_once(bool on)
{
	at_once = on;
	/* a signal that came before: the same as one now */
	if (on && tc_cli_stop)
		on_signal(tc_cli_stop);
}

int tc_cli_interrupted(void)
{
	tc_cli_progress_done();
	if (!sup_parent || getppid() == sup_parent) {
		fprintf(stderr, "tracecost: interrupted; nothing written\n");
		return TC_EXIT_INTERRUPTED;
	}
	/*
	 * The supervisor was killed (SIGKILL: it could not restore). This
	 * process shares its lock (the same open file) and its session: restore.
	 */
	if (!tc_tracefs_end(sup_t)) {
		fprintf(stderr, "tracecost: interrupted; nothing written: the supervising process "
			"(pid %ld) was killed, this one restored tracing in its place\n",
			(long)sup_parent);
		return TC_EXIT_INTERRUPTED;
	}
	fprintf(stderr, "tracecost: interrupted; nothing written: the supervising process (pid %ld) "
		"was killed before it restored tracing (%s): run 'tracecost restore'\n",
		(long)sup_parent, tc_tracefs_error(sup_t));
	return TC_EXIT_FAIL;
}

int tc_cli_run_supervised(struct tc_tracefs *t, int (*fn)(void *arg), void *arg)
{
	int err, status;

	/* a signal from the first millisecond on: exit 130, nothing left behind */
	tc_cli_catch_signals();
	if (tc_cli_stop)
		return TC_EXIT_INTERRUPTED;
	err = tc_tracefs_begin(t);
	if (err == -ESTALE)
		tc_cli_fail("%s: run 'tracecost restore' first", tc_tracefs_error(t));
	if (err)
		tc_cli_fail("%s", tc_tracefs_error(t));
	if (tc_cli_stop) {
		/* interrupted while the state file was written */
		if (tc_tracefs_end(t))
			tc_cli_fail("restoring tracefs failed: %s; run 'tracecost restore'",
				    tc_tracefs_error(t));
		tc_tracefs_close(t);
		return TC_EXIT_INTERRUPTED;
	}
	/* measure in a child; this process restores tracefs however it ends */
	sup_t = t;
	sup_fn = fn;
	err = tc_tracefs_supervise(t, supervised_child, arg, &status);
	if (err) {
		fprintf(stderr, "tracecost: restoring tracefs failed: %s; run 'tracecost"
			" restore'\n", tc_tracefs_error(t));
		return TC_EXIT_FAIL;
	}
	tc_tracefs_close(t);
	if (status == 128 + SIGINT || status == 128 + SIGTERM || status == 128 + SIGHUP)
		return TC_EXIT_INTERRUPTED;
	if (!status && tc_cli_stop) {
		/* after the child's last check: its output is whole, and said so */
		fprintf(stderr, "tracecost: interrupted after the run had written its output"
			" (it is complete); tracing restored\n");
		return TC_EXIT_INTERRUPTED;
	}
	if (status > 128) {
		fprintf(stderr, "tracecost: the measuring process was killed by signal %d;"
			" tracing restored\n", status - 128);
		return TC_EXIT_FAIL;
	}
	return status;
}

void tc_cli_bad_option(int c, char **argv, const char *help)
{
	if (c == ':')
		tc_cli_usage("%s: missing value", argv[optind - 1]);
	tc_cli_usage("unknown option '%s' (try '%s')", argv[optind - 1], help);
}

double tc_cli_parse_duration(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v, mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || *s == '-' || *s == '+')
		tc_cli_usage("%s: '%s' is not a time (e.g. 10s, 5m, 6h, 500ms)", opt, s);
	if (!strcmp(end, "ms"))
		mul = 1e-3;
	else if (!strcmp(end, "s") || !*end)
		mul = 1;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else
		tc_cli_usage("%s: '%s' is not a time (e.g. 10s, 5m, 6h, 500ms)", opt, s);
	v *= mul;
	if (v < min || v > max)
		tc_cli_usage("%s: '%s' is out of range [%gs, %g days]", opt, s, min, max / 86400);
	return v;
}
