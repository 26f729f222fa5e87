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
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "peer_ops.h"

#ifndef TC_PEER_LIBDIR
#define TC_PEER_LIBDIR "/usr/local/lib/tracecost"
#endif

static char peer_tmp[64];

static int run_quiet(char *const argv[], int ns, char *out, size_t outlen);

static void rm_tree(const char *dir)
{
	char *argv[] = { "rm", "-rf", "--one-file-system", (char *)dir, NULL };

	if (*dir)
		run_quiet(argv, 0, NULL, 0);
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

static void lttng_teardown(void)
{
	int status, i;

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
		for (i = 0; i < 500 && !tc_cli_stop; i++) {
			if (waitpid(sessiond_pid, &status, WNOHANG) == sessiond_pid)
				break;
			usleep(10000);
		}
		if (i == 500 || tc_cli_stop) {
			kill(-sessiond_pid, SIGKILL);
			kill(sessiond_pid, SIGKILL);
			waitpid(sessiond_pid, &status, 0);
		}
		sessiond_pid = 0;
		if (!(shm_wait_existed & 1))
			unlink("/dev/shm/lttng-ust-wait-8");
		if (!(shm_wait_existed & 2))
			unlink(shm_local);
	}
	if (*peer_tmp) {
		rm_tree(peer_tmp);
		peer_tmp[0] = '\0';
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
	int i, st;

	exe_dir(dir, sizeof(dir));
	snprintf(so, sizeof(so), "%.4000s/peers/libtracecost-lttng.so", dir);
	if (!exists(so))
		snprintf(so, sizeof(so), "%s/libtracecost-lttng.so", TC_PEER_LIBDIR);
	if (!exists(so)) {
		snprintf(why, len, "no libtracecost-lttng.so");
		return -ENOENT;
	}
	snprintf(peer_tmp, sizeof(peer_tmp), "/tmp/tracecost-lttng.XXXXXX");
	if (!mkdtemp(peer_tmp)) {
		peer_tmp[0] = '\0';
		snprintf(why, len, "temporary directory: %s", strerror(errno));
		return -errno;
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
		if (waitpid(sessiond_pid, &st, WNOHANG) == sessiond_pid) {
			sessiond_pid = 0;
			snprintf(why, len, "lttng-sessiond could not start (exit %d)",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
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

const struct tc_peer_ops tc_peer_ops_lttng = {
	.setup = lttng_setup_op,
	.teardown = lttng_teardown,
	.busy = lttng_busy,
	.count = lttng_count,
};
