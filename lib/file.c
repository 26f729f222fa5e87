// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/file.c - checked opening and reading of user-named input files (see
 * tracecost/file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracecost/file.h>

const char *tc_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symbolic link";
	}
	return "not a regular file";
}

static int not_regular(mode_t mode, char *err, size_t errlen)
{
	snprintf(err, errlen, "is %s, not a regular file", tc_file_kind(mode));
	return S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

int tc_file_open(const char *path, struct stat *st, char *err, size_t errlen)
{
	struct stat s;
	int fd, ret, fl;

	if (stat(path, &s)) {
		ret = -errno;
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return ret;
	}
	if (!S_ISREG(s.st_mode))
		return not_regular(s.st_mode, err, errlen);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return ret;
	}
	if (fstat(fd, &s)) {
		ret = -errno;
		snprintf(err, errlen, "cannot stat: %s", strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(s.st_mode)) {
		close(fd);
		return not_regular(s.st_mode, err, errlen);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (st)
		*st = s;
	return fd;
}

static int too_big(unsigned long long size, size_t max, char *err, size_t errlen)
{
	if (max >= (1u << 20) && !(max & ((1u << 20) - 1)))
		snprintf(err, errlen, "%llu MiB, more than the %zu MiB accepted",
			 (size + (1u << 20) - 1) >> 20, max >> 20);
	else
		snprintf(err, errlen, "%llu bytes, more than the %zu accepted", size, max);
	return -EFBIG;
}

int tc_file_read(const char *path, size_t max, char **buf, size_t *len, char *err,
		 size_t errlen)
{
	size_t cap, got = 0;
	struct stat st;
	char *b, *nb;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	fd = tc_file_open(path, &st, err, errlen);
	if (fd < 0)
		return fd;
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return too_big((unsigned long long)st.st_size, max, err, errlen);
	}
	/* procfs and sysfs report 0 (or a page): read to the end, bounded */
	cap = (size_t)st.st_size + 1 > 4096 ? (size_t)st.st_size + 1 : 4096;
	b = malloc(cap);
	if (!b) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (got + 1 >= cap) {
			if (cap > max + 1) {
				ret = too_big((unsigned long long)got, max, err, errlen);
				goto fail;
			}
			cap = cap * 2 > max + 2 ? max + 2 : cap * 2;
			nb = realloc(b, cap);
			if (!nb) {
				snprintf(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto fail;
			}
			b = nb;
		}
		n = read(fd, b + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "read error: %s", strerror(errno));
			goto fail;
		}
		if (!n)
			break;
		got += (size_t)n;
		if (got > max) {
			ret = too_big((unsigned long long)got, max, err, errlen);
			goto fail;
		}
	}
	close(fd);
	b[got] = 0;
	*buf = b;
	*len = got;
	return 0;
fail:
	free(b);
	close(fd);
	return ret;
}
