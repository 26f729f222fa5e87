// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/runs.c - "tracecost run --runs N": N independent runs, each in a
 * fresh process, in one result file.
 *
 * A run is the top level of the data (tracecost/compare.h): thread
 * placement, address-space layout, page placement and frequency state are
 * drawn once per process, so N runs are N re-executions of this program
 * (/proc/self/exe), each writing a version-1 run to a temporary file. The
 * runs go into one version-2 file (tc_result_runs_new()), and the table is
 * tracecost compare's on that file: the suite's columns side by side with
 * their verdicts. The kernel suite loads and unloads the module in each
 * run; the system suite applies and restores its profiles in each run.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are passed to the running child; the
 * parent waits for it (it restores what it changed), removes the
 * temporaries and exits 130. They stay blocked across fork(): the child
 * puts back their default action before it unblocks them, so one that
 * arrives between fork() and execv() ends the child instead of reaching
 * this program's handler there and being lost.
 *
 * A child dies with its parent: PR_SET_PDEATHSIG (SIGTERM, so that it
 * restores tracing as after a Ctrl-C), checked again after the exec
 * (tc_cli_runs_child_check(), TC_RUNS_PARENT_ENV names the parent). The
 * temporary directory holds a lock file (flock) for as long as its run
 * lives: tracecost restore removes the directories whose lock is free
 * (tc_cli_runs_clean()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <jansson.h>

#include <tracecost/result.h>

#include "cli.h"
#include "peers.h"

#define RUNS_DIR_PREFIX	"/tmp/tracecost-runs."
#define RUNS_LOCK	"owner.lock"

static volatile sig_atomic_t runs_signal;
static volatile pid_t runs_child;
/*
 * After the runs, while their result is made, written and shown (seconds
 * under TCG): a signal ends this process at once from its handler, which
 * removes the temporary directory (the NUL-separated paths of end_rm, then
 * end_dir: unlink() and rmdir() are async-signal-safe) and says end_msg.
 */
static volatile sig_atomic_t runs_at_once;
static char *end_rm, end_dir[PATH_MAX], end_msg[PATH_MAX + 128];
static size_t end_rm_len;

static void runs_on_signal(int sig)
{
	runs_signal = sig;
	if (runs_child > 0)
		kill(runs_child, sig);
	if (runs_at_once) {
		size_t off = 0;

		while (off < end_rm_len) {
			unlink(end_rm + off);
			off += strlen(end_rm + off) + 1;
		}
		rmdir(end_dir);
		if (write(STDERR_FILENO, end_msg, strlen(end_msg)) < 0) {
			/* nothing more to say */
		}
		_exit(TC_EXIT_INTERRUPTED);
	}
}

/* Arm the at-once end: the files a run of @runs leaves in @dir, then @msg. */
static void end_at_once(const char *dir, unsigned int runs, const char *msg)
{
	size_t cap = (size_t)(runs + 3) * (strlen(dir) + 32), off = 0;
	unsigned int i;

	snprintf(end_msg, sizeof(end_msg), "%s", msg);
	if (runs_at_once)
		return;
	end_rm = malloc(cap);
	if (!end_rm)
		return;		/* a signal then ends the runs at the next check */
	for (i = 0; i < runs; i++)
		off += (size_t)snprintf(end_rm + off, cap - off, "%s/run%u.json", dir, i) + 1;
	off += (size_t)snprintf(end_rm + off, cap - off, "%s/runs.json", dir) + 1;
	off += (size_t)snprintf(end_rm + off, cap - off, "%s/runs.json.tmp.%d", dir,
				(int)getpid()) + 1;
	off += (size_t)snprintf(end_rm + off, cap - off, "%s/" RUNS_LOCK, dir) + 1;
	end_rm_len = off;
	snprintf(end_dir, sizeof(end_dir), "%s", dir);
	runs_at_once = 1;
}

/* The value of --NAME VALUE or --NAME=VALUE at argv[*a] (advancing *a), else NULL. */
static const char *take_opt(int argc, char **argv, int *a, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(argv[*a], name)) {
		if (*a + 1 >= argc)
			tc_cli_usage("%s: missing value", name);
		return argv[++*a];
	}
	if (!strncmp(argv[*a], name, n) && argv[*a][n] == '=')
		return argv[*a] + n + 1;
	return NULL;
}

struct runs_args {
	const char *json, *format, *unit;
	char **child;		/* argv of a child, --json TMP at the end */
	int nr;
	bool help;
};

static void split_args(const char *suite, int argc, char **argv, struct runs_args *ra)
{
	const char *v;
	int a;

	ra->child = calloc((size_t)argc + 8, sizeof(*ra->child));
	if (!ra->child)
		tc_cli_fail("out of memory");
	ra->child[ra->nr++] = "tracecost";
	ra->child[ra->nr++] = "run";
	ra->child[ra->nr++] = "--suite";
	ra->child[ra->nr++] = (char *)suite;
	for (a = 1; a < argc; a++) {
		if ((v = take_opt(argc, argv, &a, "--json"))) {
			ra->json = v;
			continue;
		}
		if (!strcmp(argv[a], "--raw") || !strncmp(argv[a], "--raw=", 6))
			tc_cli_usage("--raw: one run's samples; not with --runs above 1");
		if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h"))
			ra->help = true;
		if ((v = take_opt(argc, argv, &a, "--format"))) {
			ra->format = v;
			ra->child[ra->nr++] = "--format";
			ra->child[ra->nr++] = (char *)v;
			continue;
		}
		if ((v = take_opt(argc, argv, &a, "--unit"))) {
			ra->unit = v;
			ra->child[ra->nr++] = "--unit";
			ra->child[ra->nr++] = (char *)v;
			continue;
		}
		ra->child[ra->nr++] = argv[a];
	}
}

/*
 * ENOEXEC on our own binary: a foreign-architecture binary run by qemu-user,
 * whose execve() goes to the kernel, which needs binfmt_misc to start it.
 */
#define EXEC_HINT	" (under user-mode emulation, --runs re-executes this binary and " \
			"needs binfmt_misc for its architecture: run without --runs)"

static const int runs_sigs[] = { SIGINT, SIGTERM, SIGHUP };

/* Run one child; its exit status as main() would return it. */
static int run_child(char **argv)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t block, orig;
	pid_t pid, parent = getpid();
	char ppid[32];
	int status, fd, i;

	fflush(NULL);
	sigemptyset(&block);
	for (i = 0; i < 3; i++)
		sigaddset(&block, runs_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &orig);
	pid = fork();
	if (pid < 0)
		tc_cli_fail("fork: %s", strerror(errno));
	if (!pid) {
		/* a signal pending or arriving from here on ends this child */
		sigemptyset(&dfl.sa_mask);
		for (i = 0; i < 3; i++)
			sigaction(runs_sigs[i], &dfl, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(TC_EXIT_INTERRUPTED);
		snprintf(ppid, sizeof(ppid), "%ld", (long)parent);
		setenv(TC_RUNS_PARENT_ENV, ppid, 1);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "tracecost: exec /proc/self/exe: %s%s\n", strerror(errno),
			errno == ENOEXEC ? EXEC_HINT : "");
		_exit(TC_EXIT_FAIL);
	}
	runs_child = pid;
	sigprocmask(SIG_SETMASK, &orig, NULL);	/* a pending one is forwarded now */
	if (runs_signal)
		kill(pid, runs_signal);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			tc_cli_fail("waitpid: %s", strerror(errno));
	runs_child = 0;
	/* a child killed (kill -9, the OOM killer) left its peers' files */
	if (WIFSIGNALED(status))
		tc_peers_clean(NULL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM ||
	       WTERMSIG(status) == SIGHUP ? TC_EXIT_INTERRUPTED : TC_EXIT_FAIL;
}

static void remove_tmp(const char *dir, int nr)
{
	char path[4096];
	int i;

	for (i = 0; i <= nr; i++) {
		snprintf(path, sizeof(path), "%s/run%d.json", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/runs.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" RUNS_LOCK, dir);
	unlink(path);
	rmdir(dir);
}

void tc_cli_runs_child_check(void)
{
	const char *v = getenv(TC_RUNS_PARENT_ENV);
	long parent;

	if (!v)
		return;
	parent = strtol(v, NULL, 10);
	unsetenv(TC_RUNS_PARENT_ENV);
	/* kept across execve() for a non-setuid program; set again all the same */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (parent > 0 && getppid() != (pid_t)parent)
		tc_cli_die(TC_EXIT_INTERRUPTED, "the parent of this run (tracecost run --runs, "
			   "pid %ld) is gone; nothing done", parent);
}

/* Remove @dir's files of a run (ours only: run*.json, runs.json, temporaries). */
static int clean_dir(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, RUNS_LOCK))
			continue;
		if (strncmp(n, "run", 3) || !strstr(n, ".json")) {
			err = -ENOTEMPTY;	/* not ours: leave the directory */
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	closedir(d);
	return err;
}

int tc_cli_runs_clean(unsigned int *removed, char *left, size_t len)
{
	char dir[PATH_MAX], lock[PATH_MAX + 16];
	struct dirent *de;
	int fd, ret = 0, err;
	DIR *d;

	*removed = 0;
	left[0] = 0;
	d = opendir("/tmp");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "tracecost-runs.", 15) || strlen(de->d_name) != 21)
			continue;
		snprintf(dir, sizeof(dir), "/tmp/%s", de->d_name);
		snprintf(lock, sizeof(lock), "%s/" RUNS_LOCK, dir);
		fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;	/* not made by this version, or not ours */
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			continue;	/* its run is alive */
		}
		err = clean_dir(dir);
		if (!err && (unlink(lock) || rmdir(dir)))
			err = -errno;
		close(fd);
		if (err) {
			if (!ret)
				snprintf(left, len, "%s: %s", dir, strerror(-err));
			ret = err;
			continue;
		}
		(*removed)++;
	}
	closedir(d);
	return ret;
}

void tc_cli_runs_catch(void)
{
	struct sigaction sa = { .sa_handler = runs_on_signal };
	int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(runs_sigs[i], &sa, NULL);
}

int tc_cli_runs_signalled(void)
{
	return runs_signal;
}

int tc_cli_runs_exec(char **argv)
{
	return run_child(argv);
}

int tc_cli_runs_tmpdir(char *dir, size_t len)
{
	char lock[PATH_MAX];
	int fd;

	if (snprintf(dir, len, RUNS_DIR_PREFIX "XXXXXX") >= (int)len)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(lock, sizeof(lock), "%s/" RUNS_LOCK, dir);
	fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		unlink(lock);
		rmdir(dir);
		return err;
	}
	return fd;
}

void tc_cli_runs_tmpdir_remove(const char *dir, int fd)
{
	char lock[PATH_MAX];

	clean_dir(dir);
	snprintf(lock, sizeof(lock), "%s/" RUNS_LOCK, dir);
	unlink(lock);
	rmdir(dir);
	if (fd >= 0)
		close(fd);
}

int tc_cli_runs(const char *suite, unsigned int runs, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = runs_on_signal };
	char dir[] = RUNS_DIR_PREFIX "XXXXXX", out[4096];
	struct timespec start, end;
	struct runs_args ra = { 0 };
	json_t **objs, *root;
	const char *target;
	unsigned int i;
	int ret = 0, lock_fd;
	sigset_t runs_block, orig;

	sigemptyset(&runs_block);
	sigaddset(&runs_block, SIGINT);
	sigaddset(&runs_block, SIGTERM);
	sigaddset(&runs_block, SIGHUP);
	/* First: a signal from here on ends the runs with 130 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	split_args(suite, argc, argv, &ra);
	if (ra.help) {
		ra.child[ra.nr] = NULL;
		execv("/proc/self/exe", ra.child);
		tc_cli_fail("exec /proc/self/exe: %s%s", strerror(errno),
			    errno == ENOEXEC ? EXEC_HINT : "");
	}
	if (ra.json)
		tc_cli_check_output("--json", ra.json);
	if (ra.format && !strcmp(ra.format, "json"))
		tc_cli_usage("--format json: the result file is --json FILE");
	if (runs_signal)
		return TC_EXIT_INTERRUPTED;
	if (!mkdtemp(dir))
		tc_cli_fail("mkdtemp %s: %s", dir, strerror(errno));
	/* held until this process ends: a free lock marks a killed run's leftovers */
	snprintf(out, sizeof(out), "%s/" RUNS_LOCK, dir);
	lock_fd = open(out, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		remove_tmp(dir, 0);
		tc_cli_fail("%s: %s", out, strerror(err));
	}
	objs = calloc(runs, sizeof(*objs));
	if (!objs)
		tc_cli_fail("out of memory");
	ra.child[ra.nr] = "--json";
	clock_gettime(CLOCK_REALTIME, &start);
	for (i = 0; i < runs && !runs_signal; i++) {
		json_error_t je;

		struct timespec t0, t1;

		snprintf(out, sizeof(out), "%s/run%u.json", dir, i);
		ra.child[ra.nr + 1] = out;
		ra.child[ra.nr + 2] = NULL;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = run_child(ra.child);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!ret && !runs_signal)
			fprintf(stderr, "tracecost: run %u of %u done (%s suite, a fresh process, "
				"%.1f s)\n", i + 1, runs, suite, (double)(t1.tv_sec - t0.tv_sec) +
				(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (runs_signal && !ret)
			ret = TC_EXIT_INTERRUPTED;
		if (ret)
			break;
		objs[i] = json_load_file(out, JSON_REJECT_DUPLICATES, &je);
		if (!objs[i]) {
			fprintf(stderr, "tracecost: run %u: %s: %s\n", i + 1, out, je.text);
			ret = TC_EXIT_FAIL;
			break;
		}
	}
	clock_gettime(CLOCK_REALTIME, &end);
	if (!ret)
		end_at_once(dir, runs, "tracecost: interrupted; nothing written\n");
	if (!ret && runs_signal)
		ret = TC_EXIT_INTERRUPTED;
	root = NULL;
	if (!ret) {
		root = tc_result_runs_new(objs, (int)runs, tc_cli_argc, tc_cli_argv, &start, &end);
		if (!root) {
			fprintf(stderr, "tracecost: the runs do not make one result\n");
			ret = TC_EXIT_FAIL;
		}
	}
	if (ret) {
		for (i = 0; i < runs; i++)
			json_decref(objs[i]);
	}
	free(objs);
	if (!ret) {
		snprintf(out, sizeof(out), "%s/runs.json", dir);
		target = ra.json && strcmp(ra.json, "-") ? ra.json : out;
		/* the file whole, and the line of a signal true */
		sigprocmask(SIG_BLOCK, &runs_block, &orig);
		ret = tc_result_write(root, target);
		if (!ret && ra.json && !strcmp(ra.json, "-"))
			ret = tc_result_write(root, "-");
		if (!ret && ra.json && strcmp(ra.json, "-")) {
			snprintf(out, sizeof(out), "tracecost: interrupted while showing the runs;"
				 " %s is complete\n", ra.json);
			end_at_once(dir, runs, out);
		}
		sigprocmask(SIG_SETMASK, &orig, NULL);
		if (ret) {
			fprintf(stderr, "tracecost: writing %s: %s\n", target, strerror(-ret));
			ret = TC_EXIT_FAIL;
		} else if (!ra.json || strcmp(ra.json, "-")) {
			/* compare's tables of the result, named by its file if kept */
			ret = tc_cli_compare_json(root, ra.json ? target : "(not kept)", ra.format,
						  ra.unit && strcmp(suite, "system") &&
						  strcmp(ra.unit, "ns"));
			if (!ra.json && !ret)
				fprintf(stderr, "tracecost: the result file of these runs is not kept "
					"(--json FILE keeps it)\n");
		}
		json_decref(root);
	}
	runs_at_once = 0;
	free(end_rm);
	end_rm = NULL;
	if (!ret && runs_signal) {
		/* after the tables: the output is whole, and said so */
		fprintf(stderr, "tracecost: interrupted after the runs had written their output"
			" (it is complete)\n");
		ret = TC_EXIT_INTERRUPTED;
	}
	remove_tmp(dir, (int)runs);
	close(lock_fd);
	free(ra.child);
	return ret;
}
