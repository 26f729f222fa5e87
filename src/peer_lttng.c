// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/peer_lttng.c - the lttng peer's consumer (subjects/peers.def): the
 * column lttng+ (events tracecost:*_1; lttng's tracecost:*_0 are never
 * enabled). A private lttng-sessiond runs as our child with LTTNG_HOME and
 * its run directory in a temporary directory: /run is bind-mounted from
 * there in a mount namespace of its own (sessiond and the lttng commands),
 * the application socket is $LTTNG_HOME/.lttng/lttng-ust-sock-8, where
 * liblttng-ust looks too. The daemon has a process group of its own (a
 * Ctrl-C reaches this run, not its consumer); after a signal the group is
 * killed at once. The session is in snapshot mode (overwrite,
 * nothing written to disk). The provider's probes
 * (build/peers/libtracecost-lttng.so, liblttng-ust; subjects/peer_lttng.mk)
 * are dlopen()ed once the session exists. LTTng does not count what it
 * kept: the count is its discarded events.
 *
 * The temporary directory, the daemon's home, is $TMPDIR/tracecost-lttng.XXXXXX
 * (/tmp when TMPDIR is unset, too long for the sockets under it, or under
 * /run, which the daemon's namespace covers). Its owner.lock is locked
 * (flock) by this run until the directory is gone: a free lock marks a home
 * whose run was killed (kill -9), which tracecost restore and the --runs
 * parent of a killed child remove (tc_peers_clean()). The teardown kills
 * the daemon's whole process group (its consumers outlive it otherwise)
 * before it removes the directory, in this process: a signal that ends the
 * run does not cut the removal short.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "peer_ops.h"

#ifndef TC_PEER_LIBDIR
#define TC_PEER_LIBDIR "/usr/local/lib/tracecost"
#endif

#define HOME_NAME	"tracecost-lttng."	/* + 6 characters of mkdtemp() */
#define HOME_LOCK	"owner.lock"
/* The longest $TMPDIR: the daemon's sockets under it fit in sun_path (108) */
#define HOME_BASE_MAX	40

static char peer_tmp[HOME_BASE_MAX + 24];
static int peer_lock = -1;

/* Whether @path is @dir or under it. */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* Where the homes are made: $TMPDIR if it suits them (see the top), else /tmp. */
static void home_base(char *buf, size_t len)
{
	const char *t = getenv("TMPDIR");
	char real[PATH_MAX];

	if (t && *t == '/' && realpath(t, real) && strlen(real) <= HOME_BASE_MAX &&
	    !under(real, "/run") && strcmp(real, "/"))
		snprintf(buf, len, "%s", real);
	else
		snprintf(buf, len, "/tmp");
}

static int rm_err;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if ((flag == FTW_DP || flag == FTW_DNR ? rmdir(path) : unlink(path)) && errno != ENOENT)
		rm_err = -errno;
	return 0;
}

/*
 * Remove @dir and everything in it, not crossing into other file systems;
 * what a process still creates in it meanwhile is removed on the next pass
 * (up to 2 s). Return: 0 or -errno.
 */
static int rm_tree(const char *dir)
{
	struct stat st;
	int i;

	for (i = 0; i < 200; i++) {
		rm_err = 0;
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
		if (lstat(dir, &st) && errno == ENOENT)
			return 0;
		usleep(10000);
	}
	return rm_err ? rm_err : -ENOTEMPTY;
}

/*
 * Child side of the LTTng commands: a mount namespace of its own where /run
 * is our temporary run directory, so the root session daemon's sockets,
 * lock and consumer directories (/var/run/lttng) are private.
 */
static void child_private_run(void)
{
	char run[80];

	/* Not root: the daemon's run directory is $LTTNG_HOME/.lttng already. */
	if (geteuid())
		return;
	snprintf(run, sizeof(run), "%.63s/run", peer_tmp);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(run, "/run", NULL, MS_BIND, NULL)) {
		fprintf(stderr, "private /run: %s\n", strerror(errno));
		_exit(126);
	}
}

/*
 * Run @argv, output (stdout + stderr) into @out; a signal to this run kills
 * it. Return: exit status or -errno.
 */
static int run_quiet(char *const argv[], int ns, char *out, size_t outlen)
{
	int pfd[2], status, killed = 0;
	size_t used = 0;
	ssize_t n;
	pid_t pid;
	char junk[512];

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (ns)
			child_private_run();
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		/* a signal to this run ends the command (it cuts the read short) */
		if (tc_cli_stop && !killed)
			killed = !kill(pid, SIGKILL);
		if (out && used + 1 < outlen)
			n = read(pfd[0], out + used, outlen - 1 - used);
		else
			n = read(pfd[0], junk, sizeof(junk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out && used + 1 < outlen && n > 0)
			used += (size_t)n;
	}
	close(pfd[0]);
	if (out && outlen)
		out[used] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Directory of the running tracecost, for build/peers/. */
static void exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0) {
		snprintf(buf, len, ".");
		return;
	}
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}
#define LTTNG_SESSION	"tracecost"

static pid_t sessiond_pid;
static int shm_wait_existed;
static char shm_local[64];
static char lttng_out[4096];

static int lttng(const char *a1, const char *a2, const char *a3, const char *a4,
		 const char *a5)
{
	char *argv[] = { "lttng", "--no-sessiond", (char *)a1, (char *)a2, (char *)a3,
			 (char *)a4, (char *)a5, NULL };

	return run_quiet(argv, 1, lttng_out, sizeof(lttng_out));
}

/*
 * Wait up to @ms for the daemon to end; then (or at once after a signal)
 * kill it. Either way its process group is killed before the daemon is
 * reaped (its pid, the group's id, cannot be reused until then): its
 * consumers and run-as helper would go on writing in its home.
 */
static void stop_daemon(int ms)
{
	siginfo_t si;
	int i;

	for (i = 0; i < ms / 10 && !tc_cli_stop; i++) {
		si.si_pid = 0;
		if (!waitid(P_PID, (id_t)sessiond_pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == sessiond_pid)
			break;
		usleep(10000);
	}
	kill(-sessiond_pid, SIGKILL);
	kill(sessiond_pid, SIGKILL);
	while (waitpid(sessiond_pid, NULL, 0) < 0 && errno == EINTR)
		;
	sessiond_pid = 0;
}

static void lttng_teardown(void)
{
	int err;

	if (sessiond_pid > 0) {
		/*
		 * After a signal nothing is kept: the daemon and its consumer
		 * (its process group) are killed at once; a daemon still
		 * starting up takes seconds to honour a SIGTERM.
		 */
		if (!tc_cli_stop) {
			lttng("destroy", LTTNG_SESSION, NULL, NULL, NULL);
			kill(sessiond_pid, SIGTERM);
		}
		stop_daemon(5000);
		if (!(shm_wait_existed & 1))
			unlink("/dev/shm/lttng-ust-wait-8");
		if (!(shm_wait_existed & 2))
			unlink(shm_local);
	}
	if (*peer_tmp) {
		err = rm_tree(peer_tmp);
		if (err)
			fprintf(stderr, "tracecost: warning: cannot remove %s: %s ('tracecost "
				"restore' removes it)\n", peer_tmp, strerror(-err));
		peer_tmp[0] = '\0';
	}
	if (peer_lock >= 0) {
		close(peer_lock);
		peer_lock = -1;
	}
}

/* Whether @path exists. */
static int exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static int lttng_setup(char *why, size_t len)
{
	char home[96], dir[PATH_MAX], sock[192], client[192], so[PATH_MAX + 64];
	siginfo_t si;
	int i;

	exe_dir(dir, sizeof(dir));
	snprintf(so, sizeof(so), "%.4000s/peers/libtracecost-lttng.so", dir);
	if (!exists(so))
		snprintf(so, sizeof(so), "%s/libtracecost-lttng.so", TC_PEER_LIBDIR);
	if (!exists(so)) {
		snprintf(why, len, "no libtracecost-lttng.so");
		return -ENOENT;
	}
	home_base(dir, sizeof(dir));
	snprintf(peer_tmp, sizeof(peer_tmp), "%.*s/" HOME_NAME "XXXXXX", HOME_BASE_MAX, dir);
	if (!mkdtemp(peer_tmp)) {
		int err = errno;

		snprintf(why, len, "temporary directory %s: %s", peer_tmp, strerror(err));
		peer_tmp[0] = '\0';
		return -err;
	}
	/* held until the directory is gone: a free lock marks a killed run's */
	snprintf(home, sizeof(home), "%s/" HOME_LOCK, peer_tmp);
	peer_lock = open(home, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (peer_lock < 0 || flock(peer_lock, LOCK_EX | LOCK_NB)) {
		snprintf(why, len, "temporary directory: %s: %s", home, strerror(errno));
		lttng_teardown();
		return -EIO;
	}
	snprintf(home, sizeof(home), "%.63s/home", peer_tmp);
	snprintf(dir, sizeof(dir), "%.95s/.lttng", home);
	snprintf(sock, sizeof(sock), "%.63s/run", peer_tmp);
	if (mkdir(home, 0700) || mkdir(dir, 0700) || mkdir(sock, 0755)) {
		snprintf(why, len, "temporary directory: %s", strerror(errno));
		lttng_teardown();
		return -errno;
	}
	setenv("LTTNG_HOME", home, 1);
	setenv("HOME", home, 1);
	setenv("LTTNG_UST_REGISTER_TIMEOUT", "5000", 1);
	snprintf(shm_local, sizeof(shm_local), "/dev/shm/lttng-ust-wait-8-%u", (unsigned)geteuid());
	shm_wait_existed = exists("/dev/shm/lttng-ust-wait-8") | exists(shm_local) << 1;
	snprintf(sock, sizeof(sock), "--apps-sock=%.110s/lttng-ust-sock-8", dir);
	if (geteuid())
		snprintf(client, sizeof(client), "%.95s/client-lttng-sessiond", dir);
	else
		snprintf(client, sizeof(client), "%.63s/run/lttng/client-lttng-sessiond", peer_tmp);

	sessiond_pid = fork();
	if (sessiond_pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		sessiond_pid = 0;
		lttng_teardown();
		return -EAGAIN;
	}
	if (!sessiond_pid) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/*
		 * Its own process group: a Ctrl-C reaches this run, which stops
		 * the daemon in order, not the daemon's consumer behind its back
		 * (a destroy then waited on a dead consumer for ever).
		 */
		setpgid(0, 0);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		child_private_run();
		execlp("lttng-sessiond", "lttng-sessiond", "--no-kernel", "--quiet", sock,
		       (char *)NULL);
		_exit(127);
	}
	/* Ready when its client socket is there (up to 10 s). */
	for (i = 0; i < 1000 && !exists(client) && !tc_cli_stop; i++) {
		/* not reaped here: the teardown kills its group first */
		si.si_pid = 0;
		if (!waitid(P_PID, (id_t)sessiond_pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == sessiond_pid) {
			snprintf(why, len, "lttng-sessiond could not start (exit %d)",
				 si.si_code == CLD_EXITED ? si.si_status : 128 + si.si_status);
			lttng_teardown();
			return -ECHILD;
		}
		usleep(10000);
	}
	if (!exists(client) || tc_cli_stop) {
		snprintf(why, len, tc_cli_stop ? "interrupted" :
			 "lttng-sessiond did not come up in 10 s");
		lttng_teardown();
		return -ETIMEDOUT;
	}
	if (lttng("create", LTTNG_SESSION, "--snapshot", NULL, NULL) || tc_cli_stop ||
	    lttng("enable-event", "--userspace", "tracecost:*_1", "--session=" LTTNG_SESSION,
		  NULL) || tc_cli_stop ||
	    lttng("start", LTTNG_SESSION, NULL, NULL, NULL) || tc_cli_stop) {
		char *nl = strchr(lttng_out, '\n');

		if (nl)
			*nl = '\0';
		if (tc_cli_stop)
			snprintf(why, len, "interrupted");
		else
			snprintf(why, len, "lttng: %.80s", lttng_out);
		lttng_teardown();
		return -EIO;
	}
	/* liblttng-ust registers with our daemon now and gets the enabled events. */
	if (!dlopen(so, RTLD_NOW | RTLD_GLOBAL)) {
		snprintf(why, len, "dlopen: %.80s", dlerror());
		lttng_teardown();
		return -ENOENT;
	}
	return 0;
}

/* "Discarded events: N" / "Lost packets: N" of the session's channel, summed. */
static void lttng_losses(uint64_t *discarded, uint64_t *lost)
{
	char *p;

	*discarded = *lost = 0;
	if (lttng("list", LTTNG_SESSION, NULL, NULL, NULL))
		return;
	for (p = lttng_out; (p = strstr(p, "Discarded events: ")); p++)
		*discarded += strtoull(p + 18, NULL, 10);
	for (p = lttng_out; (p = strstr(p, "Lost packets: ")); p++)
		*lost += strtoull(p + 14, NULL, 10);
}

static int lttng_setup_op(char *why, size_t len, const char **tag)
{
	int err = lttng_setup(why, len);

	if (err)
		*tag = "no session";
	return err;
}

static const char *lttng_busy(void)
{
	return sessiond_pid > 0 ? "LTTng's session daemon" : NULL;
}

static void lttng_count(const char *id, uint64_t *events, uint64_t *lost)
{
	lttng_losses(events, lost);
}

/*
 * The live session daemons whose home is @dir (an argument
 * --apps-sock=@dir/...); with @kill_them, killed with their process groups.
 * Return: how many there were.
 */
static int home_daemons(const char *dir, int kill_them)
{
	char path[64], args[4096], want[PATH_MAX + 16];
	struct dirent *de;
	const char *name, *p;
	DIR *d = opendir("/proc");
	ssize_t len;
	int fd, n = 0;
	char *end;
	long pid;

	if (!d)
		return 0;
	snprintf(want, sizeof(want), "--apps-sock=%.4000s/", dir);
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, args, sizeof(args) - 1);
		close(fd);
		if (len <= 0)	/* a zombie has none */
			continue;
		args[len] = '\0';
		name = strrchr(args, '/');
		if (strcmp(name ? name + 1 : args, "lttng-sessiond"))
			continue;
		for (p = args; p < args + len; p += strlen(p) + 1)
			if (!strncmp(p, want, strlen(want)))
				break;
		if (p >= args + len)
			continue;
		n++;
		if (kill_them) {
			kill((pid_t)-pid, SIGKILL);
			kill((pid_t)pid, SIGKILL);
		}
	}
	closedir(d);
	return n;
}

/* Remove the homes under @base that no live run holds; count them in *@removed. */
static void clean_base(const char *base, unsigned int *removed)
{
	char dir[PATH_MAX], lock[PATH_MAX + 16];
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;
	int fd, err, i;
	DIR *d = opendir(base);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, HOME_NAME, strlen(HOME_NAME)) ||
		    strlen(de->d_name) != strlen(HOME_NAME) + 6)
			continue;
		snprintf(dir, sizeof(dir), "%.2000s/%s", base, de->d_name);
		/* ours only: another user's directory in /tmp is theirs to remove */
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		snprintf(lock, sizeof(lock), "%s/" HOME_LOCK, dir);
		fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			continue;	/* its run is alive */
		}
		/*
		 * No lock: a run between its mkdtemp() and its lock, or one of
		 * a tracecost before the lock, alive while its daemon is.
		 */
		if (fd < 0 && (errno != ENOENT || st.st_mtime > now - 60 || home_daemons(dir, 0)))
			continue;
		/* a killed run's daemon outlives it a moment (SIGTERM at its death) */
		for (i = 0; i < 100 && home_daemons(dir, 1); i++)
			usleep(10000);
		err = rm_tree(dir);
		if (fd >= 0)
			close(fd);
		if (err)
			fprintf(stderr, "tracecost: warning: cannot remove %s: %s\n", dir,
				strerror(-err));
		else
			(*removed)++;
	}
	closedir(d);
}

static void lttng_clean(FILE *f)
{
	char base[PATH_MAX];
	unsigned int n = 0;

	clean_base("/tmp", &n);
	home_base(base, sizeof(base));
	if (strcmp(base, "/tmp"))
		clean_base(base, &n);
	if (n && f)
		fprintf(f, "tracecost: removed %u temporary home%s of the LTTng session daemons "
			"of killed runs (%s/" HOME_NAME "*)\n", n, n == 1 ? "" : "s", base);
}

const struct tc_peer_ops tc_peer_ops_lttng = {
	.setup = lttng_setup_op,
	.teardown = lttng_teardown,
	.busy = lttng_busy,
	.count = lttng_count,
	.clean = lttng_clean,
};
