/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * src/cli.h - what the subcommands of the tracecost CLI share: exit codes,
 * one-line error reporting, strict argument parsing, the suite table.
 *
 * Exit status: 0 success; 1 runtime failure or missing privilege/feature;
 * 2 bad usage or invalid input (reported before any work); 130 after Ctrl-C.
 */
#ifndef TC_CLI_H
#define TC_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define TC_EXIT_OK		0
#define TC_EXIT_FAIL		1
#define TC_EXIT_USAGE		2
#define TC_EXIT_INTERRUPTED	130

/* Set by SIGINT/SIGTERM/SIGHUP once tc_cli_catch_signals() ran. */
extern volatile sig_atomic_t tc_cli_stop;
/*
 * Before a command changes anything: SIGINT/SIGTERM/SIGHUP set tc_cli_stop
 * (the command polls it), SIGPIPE is ignored (a closed output pipe gives
 * EPIPE: the command still restores what it changed).
 */
void tc_cli_catch_signals(void);
/*
 * From main()'s first line: SIGINT/SIGTERM/SIGHUP exit 130 at once (not
 * death by signal) until a command calls tc_cli_catch_signals() and polls.
 */
void tc_cli_early_signals(void);
/**
 * tc_cli_signals_at_once() - in the measuring child of tc_cli_run_supervised(),
 * between tc_cli_signals_at_once(true) and (false) a signal ends this process
 * at once, from its handler, after the line "interrupted; nothing written":
 * for set-up steps that block in the kernel for seconds (enabling events,
 * reading their formats) and have nothing to lose, since the supervisor
 * restores tracing however the child ends and the child's helpers die with it
 * (PR_SET_PDEATHSIG). Not when the supervisor is gone (kill -9): then the
 * signal sets tc_cli_stop and the child restores in its place.
 */
void tc_cli_signals_at_once(bool on);

/* Print "tracecost: <msg>" on stderr and exit with @code. */
void tc_cli_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
#define tc_cli_usage(...)	tc_cli_die(TC_EXIT_USAGE, __VA_ARGS__)
#define tc_cli_fail(...)	tc_cli_die(TC_EXIT_FAIL, __VA_ARGS__)

/* Strict parsers: the whole string, in range, else exit 2 naming @opt. */
uint64_t tc_cli_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max);
double tc_cli_parse_double(const char *opt, const char *s, double min_excl, double max_incl);
/*
 * tc_cli_parse_duration() - "10s", "5m", "6h", "500ms" or "2.5" (seconds)
 * in [@min, @max] seconds; else exit 2 naming @opt.
 */
double tc_cli_parse_duration(const char *opt, const char *s, double min, double max);

/**
 * tc_cli_parse_cpus() - parse a CPU list ("0-3,6") against the online CPUs
 * the process may run on; exits 2 naming @opt on any error.
 * Return: number of CPUs written to *@cpus (malloc'ed, ascending, unique).
 */
int tc_cli_parse_cpus(const char *opt, const char *s, int **cpus);
/* Every online CPU this process may run on. */
int tc_cli_all_cpus(int **cpus);
/* "0-3,6" for a sorted list */
void tc_cli_format_cpus(const int *cpus, int n, char *buf, size_t len);

/**
 * tc_cli_bad_option() - the default: of every getopt_long() switch: exit 2
 * with "X: missing value" (@c == ':') or "unknown option 'X' (try '@help')"
 */
void tc_cli_bad_option(int c, char **argv, const char *help) __attribute__((noreturn));

/*
 * tc_cli_check_list() - the one rule for every comma-separated option value:
 * not empty, no empty item (",a", "a,,b", "a,"); else exit 2 naming @opt.
 */
void tc_cli_check_list(const char *opt, const char *s);

/*
 * tc_cli_parse_uint_list() - "2,4,8" (or "0k,1k" with @k_suffix) into @v,
 * at most @max values of at most 1000000; else exit 2 naming @opt.
 * Return: the number of values.
 */
int tc_cli_parse_uint_list(const char *opt, const char *s, unsigned int *v, int max,
			   bool k_suffix);

/* "ns" -> 0, "ticks"/"cycles" -> 1; else exit 2 naming @opt. */
int tc_cli_parse_unit(const char *opt, const char *s);
/* "text", "markdown", "csv" (and "json" when @json_ok) -> enum tc_table_format, or -1 for json. */
int tc_cli_parse_format(const char *opt, const char *s, int json_ok);
/* tc_cli_format_name() - "text", "markdown" or "csv" of a tc_table_format */
const char *tc_cli_format_name(int format);
/* The directory of @path must exist and be writable ("-" is stdout): exit 2 otherwise. */
void tc_cli_check_output(const char *opt, const char *path);
/*
 * Whether two output paths name the same file: the same device and inode
 * when both exist, else the same name in the same (resolved) directory.
 * "-" (stdout) is only the same as "-".
 */
int tc_cli_same_file(const char *a, const char *b);
/*
 * Whether a run's tracefs state file is there (TC_STATE_NONE), held by a
 * running tracecost (TC_STATE_LIVE) or left by an interrupted one
 * (TC_STATE_STALE: tracecost restore); *@pid is the run's pid or 0.
 */
int tc_cli_state(long *pid);
/**
 * tc_cli_interrupted() - say "interrupted; nothing written" for a run that a
 * signal stopped. In the measuring child of tc_cli_run_supervised() whose
 * supervisor was killed (kill -9: the child got SIGTERM as it died), restore
 * tracing here, or say to run 'tracecost restore' when that fails.
 * Return: the exit status, TC_EXIT_INTERRUPTED (TC_EXIT_FAIL if tracing
 * could not be restored).
 */
int tc_cli_interrupted(void);
/* "pid N" for tc_cli_state()'s @pid, or what to do when the file gave none. */
const char *tc_cli_state_who(long pid);

struct tc_tracefs;
/**
 * tc_cli_run_supervised() - take the tracefs lock and state file, run @fn in
 * a child while this process waits to restore tracefs (tc_tracefs_supervise),
 * then close @t. Exits 1 if the state cannot be taken (a stale state file:
 * says to run tracecost restore).
 * Return: the exit status for main(): the child's, 130 if it was interrupted,
 * 1 if it was killed or the restore failed.
 */
int tc_cli_run_supervised(struct tc_tracefs *t, int (*fn)(void *arg), void *arg);

/* A progress line on stderr, only when stderr is a terminal, after 2 s. */
void tc_cli_progress(void *arg, double fraction);
void tc_cli_progress_done(void);
/* A progress line of the caller's own (terminal only), replaced by the next one. */
void tc_cli_progress_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* perf-bench style registration table of suites (src/cmd_run.c). */
struct tc_suite {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_run(int argc, char **argv);
/**
 * tc_cli_runs() - tracecost run --runs @runs: each run a fresh process
 * (src/runs.c), one version-2 result file, compare's table on it.
 * @argc, @argv: the suite's arguments (argv[0] is skipped)
 * Return: the exit status for main().
 */
int tc_cli_runs(const char *suite, unsigned int runs, int argc, char **argv);
/* The environment variable that names the parent of a run of --runs. */
#define TC_RUNS_PARENT_ENV	"TRACECOST_RUNS_PARENT"
/**
 * tc_cli_runs_child_check() - in a run started by --runs (TC_RUNS_PARENT_ENV
 * set): die with the parent (PR_SET_PDEATHSIG, SIGTERM), exit 130 at once
 * if it is already gone. Called by main() first.
 */
void tc_cli_runs_child_check(void);
/**
 * tc_cli_runs_clean() - remove the temporary directories (/tmp/tracecost-runs.*)
 * of killed --runs parents: those whose lock file nobody holds.
 * @removed:	set to the number of directories removed
 * @left:	the first one that could not be removed, and why ("" if none)
 * @len:	size of @left
 * Return: 0, or the -errno of the last failure (the others are tried).
 */
int tc_cli_runs_clean(unsigned int *removed, char *left, size_t len);
/*
 * For commands that run tracecost again as children (calibrate): the
 * handlers of --runs (SIGINT, SIGTERM, SIGHUP passed to the running child,
 * noted for tc_cli_runs_signalled()); one child run as --runs runs it
 * (tc_cli_runs_exec(): stdout to /dev/null, dies with this process; returns
 * its exit status as main() would); a temporary directory
 * /tmp/tracecost-runs.XXXXXX holding the lock that tracecost restore
 * checks (tc_cli_runs_tmpdir(): returns the lock's fd or -errno), removed
 * with the run*.json files in it (tc_cli_runs_tmpdir_remove()).
 */
void tc_cli_runs_catch(void);
int tc_cli_runs_signalled(void);
int tc_cli_runs_exec(char **argv);
int tc_cli_runs_tmpdir(char *dir, size_t len);
void tc_cli_runs_tmpdir_remove(const char *dir, int fd);
int suite_user_run(int argc, char **argv);
int suite_kernel_run(int argc, char **argv);
int suite_system_run(int argc, char **argv);
/* tracecost noise (src/cmd_noise.c); compare of its files (src/cmd_compare_noise.c) */
int cmd_noise(int argc, char **argv);
int cmd_compare_noise(int argc, char **argv);
/* tracecost restore (src/cmd_restore.c) */
int cmd_restore(int argc, char **argv);
/* tracecost vm (src/cmd_vm.c): a kernel build booted under QEMU */
int cmd_vm(int argc, char **argv);

/* compare, size, plot (src/cmd_compare.c, cmd_size.c, cmd_plot.c). */
int cmd_compare(int argc, char **argv);
struct tc_result_file;
/**
 * tc_cli_compare_result() - compare's tables of every configuration of @f,
 * a result already loaded: what tracecost run prints, at --runs 1 as at
 * --runs N (src/cmd_compare.c)
 * @f:		the result (tc_result_file_parse()); freed here
 * @format:	"text", "markdown", "csv" or "json" (compare's --format), NULL
 *		for text
 * @ticks:	figures in counter ticks instead of ns (--unit ticks)
 * Return: the exit status for main(); exits 2 on a bad @format.
 */
int tc_cli_compare_result(struct tc_result_file *f, const char *format, bool ticks);
struct json_t;
/**
 * tc_cli_compare_json() - tc_cli_compare_result() of a result held as JSON
 * (the object tc_result_write() writes), read back through the reader
 * (tc_result_file_parse()) under the name @name; exits 1 if it does not
 * read back (a bug of the writer), 2 on a bad @format.
 * Return: the exit status for main().
 */
int tc_cli_compare_json(struct json_t *root, const char *name, const char *format, bool ticks);
/* tracecost calibrate (src/cmd_calibrate.c) */
int cmd_calibrate(int argc, char **argv);
int cmd_size(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* argc/argv of main(), for the result header. */
extern int tc_cli_argc;
extern char **tc_cli_argv;

#endif /* TC_CLI_H */
