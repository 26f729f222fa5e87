// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/integration/exec-window.c - LD_PRELOAD shim for signals.sh: widens
 * the window between fork() and execv() of "tracecost run --runs N" to
 * 300 ms so that a signal can be sent inside it on purpose. With
 * TC_EXEC_WINDOW=FILE, each execv() appends "window PID" to FILE, sleeps,
 * then appends "exec PID" and executes: a child that a signal should have
 * ended but whose inherited handler swallowed it writes its "exec" line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void note(const char *path, const char *what)
{
	char line[64];
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return;
	snprintf(line, sizeof(line), "%s %ld\n", what, (long)getpid());
	if (write(fd, line, strlen(line)) < 0)
		line[0] = 0;
	close(fd);
}

int execv(const char *path, char *const argv[])
{
	int (*real)(const char *, char *const[]) =
		(int (*)(const char *, char *const[]))dlsym(RTLD_NEXT, "execv");
	const char *f = getenv("TC_EXEC_WINDOW");
	struct timespec ts = { 0, 300 * 1000 * 1000 };

	if (f) {
		note(f, "window");
		while (nanosleep(&ts, &ts))
			;	/* a handled signal: sleep the rest */
		note(f, "exec");
	}
	return real(path, argv);
}
