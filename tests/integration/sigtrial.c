// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/sigtrial.c - one signal trial for signals.sh: starts a
 * command in a new session, sends it a signal after a delay and times, on
 * CLOCK_MONOTONIC, the first line of its stderr that contains
 * "interrupted" (the command saw the signal) and its exit.
 *
 * Usage: sigtrial DELAY_S INT|TERM group|pid ERRFILE -- COMMAND [ARG...]
 *   DELAY_S  seconds (decimal) from the start to the signal
 *   group    the signal goes to the command's process group (as Ctrl-C);
 *   pid      to the command's process only (as kill PID)
 *   ERRFILE  the command's stderr is copied there (its stdout goes to
 *            /dev/null)
 * Prints one line on stdout: "STATUS SEEN_MS EXIT_MS SID", STATUS the exit
 * status (128 + N for death by signal N), SEEN_MS the milliseconds from the
 * signal to the "interrupted" line (-1 if none came before the exit),
 * EXIT_MS to the exit, SID the session (= the command's pid) for the
 * caller's checks. A command that ended before the signal: SEEN_MS and
 * EXIT_MS are -2. Exit 0, or 2 on bad usage, 1 if the command cannot start.
 *
 * The clocks are read by this process, which polls every millisecond: the
 * figures are what a user at the terminal would see, to ~1 ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static double t0, seen = -1;
static char line[8192];
static size_t len;

/* copy what the pipe holds to OUT, timing the "interrupted" line; 0 at EOF */
static int consume(int fd, int out)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n)
			return 0;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n' && len < sizeof(line) - 1) {
				line[len++] = buf[i];
				continue;
			}
			line[len] = 0;
			len = 0;
			if (t0 && seen < 0 && strstr(line, "interrupted"))
				seen = now_ms() - t0;
		}
	}
	return n < 0 && errno == EAGAIN;
}

int main(int argc, char **argv)
{
	int sig, group, p[2], out, st, open_pipe = 1;
	double delay, start;
	char *end;
	pid_t pid;

	if (argc < 7 || strcmp(argv[5], "--")) {
		fprintf(stderr, "usage: sigtrial DELAY_S INT|TERM group|pid ERRFILE -- COMMAND...\n");
		return 2;
	}
	delay = strtod(argv[1], &end);
	if (*end || delay < 0) {
		fprintf(stderr, "sigtrial: bad delay '%s'\n", argv[1]);
		return 2;
	}
	sig = !strcmp(argv[2], "INT") ? SIGINT : !strcmp(argv[2], "TERM") ? SIGTERM : 0;
	group = !strcmp(argv[3], "group");
	if (!sig || (!group && strcmp(argv[3], "pid"))) {
		fprintf(stderr, "sigtrial: bad signal or target '%s %s'\n", argv[2], argv[3]);
		return 2;
	}
	out = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "sigtrial: %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	start = now_ms();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sigtrial: fork: %s\n", strerror(errno));
		return 1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		setsid();
		dup2(null, 1);
		dup2(p[1], 2);
		execvp(argv[6], argv + 6);
		fprintf(stderr, "sigtrial: %s: %s\n", argv[6], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		if (!t0 && now_ms() - start >= delay * 1e3) {
			t0 = now_ms();
			kill(group ? -pid : pid, sig);
		}
		if (open_pipe && poll(&pfd, 1, 1) > 0)
			open_pipe = consume(p[0], out);
		else if (!open_pipe)
			usleep(1000);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
	}
	/* what it wrote just before its exit */
	if (open_pipe)
		consume(p[0], out);
	if (!t0) {
		printf("%d -2 -2 %ld\n", status_of(st), (long)pid);
		return 0;
	}
	printf("%d %.0f %.0f %ld\n", status_of(st), seen, now_ms() - t0, (long)pid);
	return 0;
}
